"""trec_eval's preference measures (``receval trec-eval -R prefs / qrels_prefs``).

The implementation (:mod:`receval.trec.prefs`) against a slow oracle written from
the definitions (``tests/oracles/trec_prefs.py``) on random judgments with tied
levels, repeated lines, several judgment groups and sub-groups, unjudged and
unretrieved documents; hand-computed values; the readers and their errors.
The whole output against trec_eval's is in ``peers/test_trec_eval_quicktest.py``
(and ``benchmarks/parity_trec_prefs.py`` with the binary).
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from receval.exceptions import InputValidationError, InvalidParameterError
from receval.trec.prefs import PREFS_MEASURES, prefs_measures, read_prefs
from receval.trec.trec_eval import NICKNAMES, trec_eval, trec_eval_metrics
from tests.oracles.trec_prefs import Inconsistent, prefs_oracle

DOCS = ["a", "b", "c", "d", "e", "B", "a1", "d10", "d9"]


def measures(lines, ranking):
    if not lines:
        raise AssertionError("a query has at least one line")
    g, s, d, lv = zip(*lines, strict=True)
    return prefs_measures(g, s, d, lv, ranking)


@st.composite
def queries(draw):
    """One query's lines (jg, jsg, docno, level) and its ranking."""
    lines = []
    for g in range(draw(st.integers(1, 3))):
        n_sub = draw(st.integers(1, 3))
        # consistent groups follow one order of the documents; the others mostly fail
        consistent = draw(st.booleans()) or draw(st.booleans())
        levels = st.sampled_from([0.0, 0.0, 1.0, 2.0, 3.0, 0.5, -1.0])
        truth = {doc: draw(levels) for doc in DOCS}
        for s in range(n_sub):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7))
            scale = draw(st.sampled_from([1.0, 2.0]))  # only the order counts
            for doc in docs:
                level = (
                    truth[doc] * (scale if truth[doc] > 0 else 1) if consistent else draw(levels)
                )
                lines.append((f"u{g}", f"s{s}", doc, level))
    order = draw(st.permutations(range(len(lines))))
    ranking = draw(st.lists(st.sampled_from([*DOCS, "x1", "x2"]), unique=True, max_size=9))
    return [lines[i] for i in order], ranking


@given(queries())
def test_every_prefs_measure_equals_the_oracle(case):
    lines, ranking = case
    try:
        expected = prefs_oracle(lines, ranking)
    except Inconsistent:
        with pytest.raises(InputValidationError):
            measures(lines, ranking)
        return
    got = measures(lines, ranking)
    assert list(got) == list(PREFS_MEASURES)
    for name in PREFS_MEASURES:
        assert got[name] == expected[name], (name, got[name], expected[name])


@given(queries())
def test_counts_and_bounds(case):
    lines, ranking = case
    try:
        v = measures(lines, ranking)
    except InputValidationError:  # inconsistent preferences: test_every_prefs_measure_... checks
        v = None
    assume(v is not None)
    assert 0 <= v["prefs_num_prefs_ful_ret"] <= v["prefs_num_prefs_ful"]
    assert v["prefs_num_prefs_ful"] <= v["prefs_num_prefs_poss"]
    for name in PREFS_MEASURES[3:]:
        assert 0.0 <= v[name] <= 1.0, name
    # nothing retrieved: nothing fulfilled
    none = measures(lines, [])
    assert none["prefs_num_prefs_ful"] == 0 and none["prefs_simp"] == 0
    assert none["prefs_num_prefs_poss"] == v["prefs_num_prefs_poss"]


def test_hand_computed_one_subgroup():
    # a(2) > b(1) > c(0), a > c; ranked b, a (c unretrieved): b > a fails (both
    # retrieved), a > c and b > c are fulfilled by implication
    v = measures([("u", "s", "a", 2), ("u", "s", "b", 1), ("u", "s", "c", 0)], ["b", "a"])
    assert v["prefs_num_prefs_poss"] == 3
    assert v["prefs_num_prefs_ful"] == 2
    assert v["prefs_num_prefs_ful_ret"] == 0
    assert v["prefs_simp"] == pytest.approx(2 / 3)
    assert v["prefs_simp_ret"] == 0.0
    assert v["prefs_simp_imp"] == pytest.approx(2 / 3)
    # R = 2 relevant (a, b) >= N = 1 nonrelevant: R - N = 1 fulfilled nonrelevant
    # document added per retrieved relevant one (2), and 2 x 1 possible
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx((2 + 2) / (3 + 2))


def test_hand_computed_transitive_subgroups():
    # trec_eval's example: 1 > 2 > 3 in s1, 2 > 4 in s2: 1>2 1>3 2>3 2>4 1>4
    lines = [
        ("u", "s1", "d1", 3), ("u", "s1", "d2", 2), ("u", "s1", "d3", 1),
        ("u", "s2", "d2", 5), ("u", "s2", "d4", 4),
    ]  # fmt: skip
    v = measures(lines, [])
    assert v["prefs_num_prefs_poss"] == 5
    v = measures(lines, ["d4", "d1", "d2", "d3"])
    # fulfilled: 1>2 1>3 2>3; failed: 2>4 1>4 (d4 ranked first)
    assert v["prefs_num_prefs_ful"] == 3
    assert v["prefs_simp"] == pytest.approx(3 / 5)


def test_hand_computed_pairs_across_groups():
    # two users disagree on (a, b); both prefer a to c
    lines = [
        ("u1", "s", "a", 1), ("u1", "s", "b", 0), ("u1", "s", "c", 0),
        ("u2", "s", "b", 1), ("u2", "s", "a", 0),
        ("u3", "s", "a", 1), ("u3", "s", "c", 0),
    ]  # fmt: skip
    v = measures(lines, ["a", "b", "c"])
    # pairs: (a,b) 1 of 2 preferences fulfilled, (a,c) 2 of 2
    assert v["prefs_pair"] == pytest.approx((0.5 + 1.0) / 2)
    assert v["prefs_simp"] == pytest.approx(3 / 4)
    # per group: u1 2/2, u2 0/1, u3 1/1
    assert v["prefs_avgjg"] == pytest.approx((1 + 0 + 1) / 3)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([("u", "s", "a", 1), ("u", "s", "a", 2), ("u", "s", "b", 0)], "two different levels"),
        (
            [("u", "s1", "a", 1), ("u", "s1", "b", 0), ("u", "s2", "a", 0), ("u", "s2", "b", 1)],
            "both level 0",
        ),
        (
            [("u", "s1", "a", 2), ("u", "s1", "b", 1), ("u", "s2", "b", 2), ("u", "s2", "a", 1)],
            "'a' and 'b' are each preferred to the other",
        ),
    ],
)
def test_inconsistent_judgments_are_errors(lines, message):
    with pytest.raises(InputValidationError, match=message):
        measures(lines, ["a"])


def test_a_document_twice_in_the_ranking_is_an_error():
    with pytest.raises(InputValidationError, match="the document 'a' twice"):
        measures([("u", "s", "a", 1)], ["a", "b", "a"])


# ------------------------------------------------------------------ files
def test_read_prefs_skips_comments_and_blank_lines_and_reads_gzip(tmp_path: Path):
    text = "# judgments\nq1 u1 s1 d1 2\n\nq2 u1 s1 d1#2 0\nq1 u1 s1 d2 0.5\n"
    plain = tmp_path / "prefs"
    plain.write_text(text)
    packed = tmp_path / "prefs.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    for path in (plain, packed):
        p = read_prefs(path)
        assert list(p.queries) == ["q1", "q2"]
        assert p.queries["q1"].docs.tolist() == ["d1", "d2"]
        assert p.queries["q1"].levels.tolist() == [2.0, 0.5]
        assert p.queries["q2"].docs.tolist() == ["d1#2"]


@pytest.mark.parametrize("qrels", [False, True])
def test_read_prefs_refuses_a_hash_after_white_space(tmp_path: Path, qrels: bool):
    # it was skipped as a comment; trec_eval's get_prefs and get_qrels_prefs take '#'
    # for a comment only as a line's first character
    path = tmp_path / "prefs"
    path.write_text(
        "# a comment\nq1 u1 s1 d1 2\n  # indented\n".replace(" s1", "" if qrels else " s1")
    )
    with pytest.raises(
        InputValidationError,
        match=r"prefs:3: a comment line begins with '#', got "
        r"white space before it: '  # indented'; trec_eval's qrels readers",
    ):
        read_prefs(path, qrels=qrels)


def test_read_qrels_as_prefs(tmp_path: Path):
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 1 d1 2\n")
    p = read_prefs(path, qrels=True).queries["q1"]
    assert p.groups.tolist() == ["0", "0", "1"]
    assert p.subgroups.tolist() == ["0", "0", "0"]


@pytest.mark.parametrize(
    ("text", "qrels", "message"),
    [
        ("q1 u1 s1 d1 2\nq1 u1 d2 0\n", False, r"prefs:2: expected 5 whitespace-separated"),
        ("q1 u1 s1 d1 2\n", True, r"prefs:1: expected 4 whitespace-separated"),
        ("q1 u1 s1 d1 high\n", False, r"prefs:1: the level 'high' is not a number"),
        ("q1 u1 s1 d1 nan\n", False, r"prefs:1: the level 'nan' is not a number"),
    ],
)
def test_read_prefs_errors_name_file_and_line(tmp_path: Path, text, qrels, message):
    path = tmp_path / "prefs"
    path.write_text(text)
    with pytest.raises(InputValidationError, match=message):
        read_prefs(path, qrels=qrels)


# ------------------------------------------------------------------ trec-eval
def _files(tmp_path: Path, prefs: str, run: str) -> list[str]:
    (tmp_path / "prefs").write_text(prefs)
    (tmp_path / "run").write_text(run)
    return [str(tmp_path / "prefs"), str(tmp_path / "run")]


def test_trec_eval_prints_counts_as_integers_and_averages_the_rest(tmp_path: Path):
    files = _files(
        tmp_path,
        "q1 u s a 1\nq1 u s b 0\nq2 u s a 1\nq2 u s b 0\n",
        "q1 Q0 a 1 0.5 r\nq1 Q0 b 2 0.4 r\nq2 Q0 b 1 0.5 r\nq2 Q0 a 2 0.5 r\n",
    )
    # q2: a tie, broken by increasing docno: a first
    out = trec_eval(["-q", "-R", "prefs", "-m", "prefs_num_prefs_ful", "-m", "prefs_simp", *files])
    assert out == (
        "prefs_num_prefs_ful   \tq1\t1\n"
        "prefs_simp            \tq1\t1.0000\n"
        "prefs_num_prefs_ful   \tq2\t1\n"
        "prefs_simp            \tq2\t1.0000\n"
        "prefs_num_prefs_ful   \tall\t2\n"
        "prefs_simp            \tall\t1.0000\n"
    )
    out = trec_eval(["-R", "prefs", "-M1", "-m", "prefs_simp_ret", "-m", "prefs_simp", *files])
    assert out == "prefs_simp            \tall\t1.0000\nprefs_simp_ret        \tall\t0.0000\n"


def test_trec_eval_c_ranks_an_absent_query_as_nothing_judged(tmp_path: Path):
    files = _files(tmp_path, "q1 u s a 1\nq1 u s b 0\nq2 u s a 1\nq2 u s b 0\n", "q1 Q0 a 1 1 r\n")
    with pytest.raises(InvalidParameterError, match=r"query 'q2'.*pass -c"):
        trec_eval(["-R", "prefs", "-m", "prefs_simp", *files])
    options = ["-c", "-q", "-R", "prefs", "-m", "num_q", "-m", "prefs_simp"]
    out = trec_eval([*options, "-m", "prefs_num_prefs_poss", *files])
    assert "prefs_simp            \tq2\t0.0000\n" in out
    assert "prefs_num_prefs_poss  \tall\t2\n" in out
    assert "prefs_simp            \tall\t0.5000\n" in out
    assert "num_q                 \tall\t2\n" in out


def test_trec_eval_names_the_file_and_query_of_inconsistent_judgments(tmp_path: Path):
    files = _files(
        tmp_path, "q1 u s1 a 2\nq1 u s1 b 1\nq1 u s2 b 2\nq1 u s2 a 1\n", "q1 Q0 a 1 1 r\n"
    )
    with pytest.raises(InputValidationError, match=r"prefs: query 'q1': judgment group 'u'"):
        trec_eval(["-m", "prefs_simp", "-R", "prefs", *files])


def test_nicknames_and_metric_strings():
    assert NICKNAMES["all_prefs"] == ("runid", "num_q", *PREFS_MEASURES)
    assert NICKNAMES["prefs"] == ("runid", "num_q", *PREFS_MEASURES[:6])
    # the prefs_* values are not receval metrics: left out, as runid is
    assert trec_eval_metrics(["all_prefs"]) == {"num_q": "num_q"}


def test_no_preference_gives_zeros_not_nan():
    v = measures([("u", "s", "a", 1)], ["a"])  # one document: no preference
    assert all(not math.isnan(x) for x in v.values())
    assert v["prefs_num_prefs_poss"] == 0 and v["prefs_pair"] == 0.0
    assert prefs_measures([], [], [], [], ["a"]) == dict.fromkeys(PREFS_MEASURES, 0.0)


def test_large_query_is_counted_in_pairs_not_lines():
    rng = np.random.default_rng(0)
    docs = [f"d{i}" for i in range(3000)]
    levels = rng.integers(0, 3, len(docs)).astype(float)
    ranking = [docs[i] for i in rng.permutation(len(docs))[:1000]]
    v = prefs_measures(["u"] * len(docs), ["s"] * len(docs), docs, levels, ranking)
    n = np.bincount(levels.astype(int))
    assert v["prefs_num_prefs_poss"] == n[0] * n[1] + n[0] * n[2] + n[1] * n[2]


def test_rnonrel_of_one_subgroup_pairs_the_lowest_level_with_its_first_r():
    # R = 1 relevant (a) < N = 2: the first R nonrelevant documents (c) are kept,
    # and trec_eval pairs every level with them, the lowest included: a > c
    # fulfilled, c > c and d > c possible, not fulfilled (trec_eval prints 0.3333)
    lines = [("u", "s", "a", 1), ("u", "s", "c", 0), ("u", "s", "d", 0)]
    v = measures(lines, ["a", "c", "d"])
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 3)
    assert v["prefs_avgjg_Rnonrel_ret"] == pytest.approx(1 / 3)
    assert v["prefs_avgjg"] == 1.0


def test_rnonrel_ret_of_subgroups_keeps_as_many_nonrelevant_as_relevant_documents():
    # a and b relevant (b unretrieved), c d e nonrelevant, all retrieved: R_ret = 1
    # < N_ret = 3; trec_eval keeps the first num_rel = 2 retrieved nonrelevant (c, d):
    # a > c fails, a > d is fulfilled (trec_eval prints 0.5000)
    lines = [
        ("u", "s1", "a", 1), ("u", "s1", "c", 0), ("u", "s1", "d", 0), ("u", "s1", "e", 0),
        ("u", "s2", "b", 1), ("u", "s2", "c", 0),
    ]  # fmt: skip
    v = measures(lines, ["c", "a", "d", "e"])
    assert v["prefs_avgjg_Rnonrel_ret"] == 0.5
    assert v["prefs_avgjg_Rnonrel"] == pytest.approx(1 / 3)


def test_command_line_prefs_nickname(tmp_path: Path):
    from typer.testing import CliRunner

    from receval.cli import app

    files = _files(tmp_path, "q1 0 a 1\nq1 0 b 0\n", "q1 Q0 b 1 2 r\nq1 Q0 a 2 1 r\n")
    result = CliRunner().invoke(app, ["trec-eval", "-R", "qrels_prefs", "-m", "prefs", *files])
    assert result.exit_code == 0, result.output
    names = [line.split("\t")[0].rstrip() for line in result.stdout.splitlines()]
    assert names == ["runid", "num_q", *PREFS_MEASURES[:6]]
    assert "prefs_simp            \tall\t0.0000\n" in result.stdout  # b above a
