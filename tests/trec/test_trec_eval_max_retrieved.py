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

import warnings
from pathlib import Path

import pytest

from receval.exceptions import InvalidParameterError
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


def test_max_retrieved_0_of_judgment_groups(tmp_path):
    qrels = "q1 amy d1 1\nq1 bob d3 2\nq1 bob d1 0\nq2 amy d4 1\n"
    files = _files(tmp_path, qrels)
    argv = ["-R", "qrels_jg", "-q", "-m", "map_avgjg", "-m", "P_avgjg.1"]
    one = _values(trec_eval([*argv, "-M1", *files]))
    assert one["map_avgjg", "q1"] == "0.5000"
    with warnings.catch_warnings():
        # the placeholder documents of -M 0 are unjudged: no warning says so
        warnings.simplefilter("error")
        got = _values(trec_eval([*argv, "-M", "0", *files]))
    assert set(got.values()) == {"0.0000"}
    assert len(got) == 6


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
