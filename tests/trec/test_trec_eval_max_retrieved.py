"""``receval trec-eval -M N``: only the first N documents of each query count, and
``-M 0`` none of them, as in trec_eval 10.0 (form_res_rels.c, form_res_rels_jg.c
and form_prefs_counts.c drop every result ranked below ``-M``; without ``-M`` none
is dropped).

With no document retrieved a query still counts (``num_q``, ``num_rel``), and each
measure is trec_eval's on an empty list, derived here from its C code: 0, but
``utility``, which scores the relevant and nonrelevant documents left out of the
list, and the interpolated precision at a recall level that asks for no relevant
document, which divides 0 by 0 (``-nan``; ``11pt_avg`` adds it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from receval.exceptions import InvalidParameterError, UnmatchedIdsWarning
from receval.trec.trec_eval import TrecEvalAbort, evaluate_options, parse_trec_eval_args, trec_eval
from tests.oracles.trec_prefs import prefs_oracle

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d4 1\n"
# q9 is not judged; x is not judged for q1
RUN = "q1 Q0 d1 1 0.9 r\nq1 Q0 d3 2 0.8 r\nq1 Q0 x 3 0.7 r\nq2 Q0 d4 1 0.5 r\nq9 Q0 d1 1 1 r\n"
MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall.0,0.3,0.5", "P.5", "relstring", "utility.2,-1,0,1", "11pt_avg",
    "set_P", "ndcg", "success.1", "num_q",
]  # fmt: skip


def _files(tmp_path: Path, qrels: str = QRELS, run: str = RUN) -> list[str]:
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return [str(tmp_path / "qrels"), str(tmp_path / "run")]


def _values(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        name, query, value = line.split("\t")
        out[name.strip(), query] = value.strip()
    return out


def _argv(*options: str) -> list[str]:
    return [*options, *(x for m in MEASURES for x in ("-m", m))]


# trec_eval 10.0 -q -N 30 -M 0 on QRELS and RUN: q1 has 2 relevant documents, q2 1.
# iprec_at_recall at level x asks for lround(x R) relevant documents: 0 of them
# (-nan) at 0 for both, at 0.3 for q2 (R = 1); utility = 2 rel_ret - nonrel_ret
# + 1 (N + rel_ret - ret - R): 28 and 29
NOTHING = {
    "num_ret": ("0", "0", "0"), "num_rel": ("2", "1", "3"), "num_rel_ret": ("0", "0", "0"),
    "map": ("0.0000",) * 3, "gm_map": (None, None, "0.0000"), "Rprec": ("0.0000",) * 3,
    "bpref": ("0.0000",) * 3, "recip_rank": ("0.0000",) * 3,
    "iprec_at_recall_0.00": ("-nan", "-nan", "-nan"),
    "iprec_at_recall_0.30": ("0.0000", "-nan", "-nan"),
    "iprec_at_recall_0.50": ("0.0000",) * 3, "P_5": ("0.0000",) * 3,
    "relstring": ("''", "''", None), "utility_2,-1,0,1": ("28.0000", "29.0000", "28.5000"),
    "11pt_avg": ("-nan", "-nan", "-nan"), "set_P": ("0.0000",) * 3,
    "ndcg": ("0.0000",) * 3, "success_1": ("0.0000",) * 3,
}  # fmt: skip


def test_max_retrieved_0_keeps_no_document(tmp_path):
    got = _values(trec_eval([*_argv("-q", "-N", "30", "-M", "0"), *_files(tmp_path)]))
    assert got.pop(("num_q", "all")) == "2"
    expected = {}
    for name, per_query in NOTHING.items():
        for query, value in zip(("q1", "q2", "all"), per_query, strict=True):
            if value is not None:
                expected[name, query] = value
    assert got == expected


def test_no_max_retrieved_keeps_every_document(tmp_path):
    files = _files(tmp_path)
    every = trec_eval([*_argv("-q"), *files])
    assert every == trec_eval([*_argv("-q", "-M", "1000"), *files])
    got = _values(every)
    assert got["num_ret", "q1"] == "3" and got["map", "q1"] == "1.0000"
    assert got["relstring", "q1"] == "'12-'"
    one = _values(trec_eval([*_argv("-q", "-M1"), *files]))
    assert one["num_ret", "q1"] == "1" and one["relstring", "q1"] == "'1'"


def test_max_retrieved_0_with_complete(tmp_path):
    # q3 is absent from the run: -c ranks it one unjudged document, which -M 0 drops too
    files = _files(tmp_path, QRELS + "q3 0 d5 1\n")
    argv = ["-q", "-c", "-M", "0", "-m", "num_ret", "-m", "num_rel", "-m", "map",
            "-m", "iprec_at_recall.0,0.5", "-m", "relstring", "-m", "num_q"]  # fmt: skip
    got = _values(trec_eval([*argv, *files]))
    assert {k[1] for k in got} == {"q1", "q2", "q3", "all"}
    assert [got[m, "q3"] for m in ("num_ret", "num_rel", "map", "relstring")] == [
        "0", "1", "0.0000", "''"
    ]  # fmt: skip
    assert got["iprec_at_recall_0.00", "q3"] == "-nan"
    assert got["iprec_at_recall_0.50", "q3"] == "0.0000"
    assert (got["num_q", "all"], got["num_rel", "all"]) == ("3", "4")
    # without -c, q3 stops the command (status 4) with -M 0 too
    with pytest.raises(TrecEvalAbort) as info:
        trec_eval(["-M", "0", "-m", "map", *files])
    assert info.value.status == 4


# judgment groups: q1 judged by amy and bob, q2 by amy; q3 is absent from RUN
JG_QRELS = "q1 amy d1 1\nq1 bob d3 2\nq1 bob d1 0\nq2 amy d4 1\nq3 amy d5 1\n"
JG_MEASURES = ["-m", "map_avgjg", "-m", "P_avgjg.1,5", "-m", "Rprec_mult_avgjg.1.0",
               "-m", "num_q", "-m", "runid"]  # fmt: skip
JG_NAMES = ["map_avgjg", "P_avgjg_1", "P_avgjg_5", "Rprec_mult_avgjg_1.00"]


def _jg_nothing(queries: list[str], per_query: bool, summary: bool = True) -> str:
    """What trec_eval 10.0 prints for JG_MEASURES under -M 0. form_res_rels_jg.c cuts
    each query's results to -M before it judges them, so every group's list is empty
    (num_ret 0, with -J or not): map_avgjg adds no precision, P_avgjg adds 0 / cut-off,
    Rprec_mult_avgjg 0 / its cut-off (none when the group has no relevant document):
    0 for every group, query and the mean. A query absent from the run (-c) is
    evaluated on an empty ranking: 0 as well."""
    lines = [f"{n:<22}\t{q}\t0.0000" for q in queries for n in JG_NAMES] if per_query else []
    if summary:
        lines += [f"{'runid':<22}\tall\tr", f"{'num_q':<22}\tall\t{len(queries)}"]
        lines += [f"{n:<22}\tall\t0.0000" for n in JG_NAMES]
    return "".join(line + "\n" for line in lines)


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("per_query", [False, True])
def test_max_retrieved_0_of_judgment_groups(tmp_path, judged_only, per_query):
    flags = ["-R", "qrels_jg", "-M", "0", *(["-J"] if judged_only else []),
             *(["-q"] if per_query else []), *JG_MEASURES]  # fmt: skip
    # -c: q3, absent from the run, counts
    got = trec_eval([*flags, "-c", *_files(tmp_path, JG_QRELS)])
    assert got == _jg_nothing(["q1", "q2", "q3"], per_query)
    # without -c: the qrels without q3; with q3, trec_eval stops there (status 4),
    # having printed the queries before it
    assert trec_eval([*flags, *_files(tmp_path, JG_QRELS[:-12])]) == _jg_nothing(
        ["q1", "q2"], per_query
    )
    with pytest.raises(TrecEvalAbort) as info:
        trec_eval([*flags, *_files(tmp_path, JG_QRELS)])
    assert info.value.status == 4
    assert info.value.output == _jg_nothing(["q1", "q2"], per_query, summary=False)


def test_max_retrieved_0_of_judgment_groups_counts_the_real_run(tmp_path):
    # -M 0 keeps no document, and the run read is still the one evaluated: its ids
    # are checked as with any -M (and as -R qrels checks them), naming its queries
    argv = ["-R", "qrels_jg", "-c", "-m", "map_avgjg"]
    for run, message in [
        ("q1 Q0 y1 1 0.9 r\nq2 Q0 y2 1 0.8 r\n", r"none of the run's 2 items is judged"),
        ("q7 Q0 d1 1 0.9 r\n", r"qrels users \['q1', 'q2', 'q3'\], run users \['q7'\]"),
    ]:
        files = _files(tmp_path, JG_QRELS, run)
        for depth in ([], ["-M", "1"], ["-M", "0"]):
            with pytest.warns(UnmatchedIdsWarning, match=message):
                got = trec_eval([*argv, *depth, *files])
            assert got == f"{'map_avgjg':<22}\tall\t0.0000\n"


def test_max_retrieved_0_of_preferences(tmp_path):
    # one group prefers a (2) to b (1) to c (0); the run ranks b, a
    lines = [("u", "s", "a", 2.0), ("u", "s", "b", 1.0), ("u", "s", "c", 0.0)]
    prefs = "".join(f"q1 {g} {s} {d} {level}\n" for g, s, d, level in lines)
    files = _files(tmp_path, prefs, "q1 Q0 b 1 0.9 r\nq1 Q0 a 2 0.5 r\n")
    argv = ["-R", "prefs", "-q", "-n", "-m", "all_prefs"]
    for options, ranking in ((["-M", "0"], []), (["-M", "1"], ["b"]), ([], ["b", "a"])):
        got = _values(trec_eval([*argv, *options, *files]))
        for name, value in prefs_oracle(lines, ranking).items():
            text = got[name, "q1"]
            assert float(text) == pytest.approx(value, abs=5e-5), (options, name)
    assert _values(trec_eval([*argv, "-M", "0", *files]))["prefs_num_prefs_ful", "q1"] == "0"


def test_negative_max_retrieved_is_refused(tmp_path):
    # trec_eval 10.0 would sort a negative number of documents (undefined behaviour)
    with pytest.raises(TrecEvalAbort) as info:
        trec_eval(["-M", "-1", *_files(tmp_path)])
    assert info.value.status == 1
    assert str(info.value) == (
        "trec-eval -M: expected a number of documents >= 0 (each query's first N count; "
        "0: none), got '-1'."
    )


def test_evaluate_options_refuses_max_retrieved_0():
    assert evaluate_options(parse_trec_eval_args(["q", "r"]), ["map"])["depth"] == 0
    assert evaluate_options(parse_trec_eval_args(["-M2", "q", "r"]), ["p@5"])["depth"] == 2
    with pytest.raises(InvalidParameterError, match=r"^trec-eval -M 0: trec_eval keeps no"):
        evaluate_options(parse_trec_eval_args(["-M0", "q", "r"]), ["map"])
