"""``receval trec-eval`` against the trec_eval 10.0 binary's recorded output.

``data/recorded_trec_eval.json.gz`` holds random qrels (and judgment-group qrels)
and runs (graded, negative grades, ties as doubles and as C floats only, queries of
one file only) with random option lines (``-q``, ``-c``, ``-n``, ``-l``, ``-M``,
``-J``, ``-N``, ``-R qrels_jg``, measure sets and parameters), and what the binary
(usnistgov/trec_eval v10.0, built by ``benchmarks/build_trec_eval.sh``) printed
for each, written by ``benchmarks/parity_trec_eval.py --cli --record`` and ``--jg
--record`` (its docstring gives the commands). The standard output must be the
same bytes; where the binary stopped (a query of the qrels absent from the run
without ``-c``, a measure of another ``-R`` format), receval stops with the same
exit status after the same lines.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from receval.trec.trec_eval import TrecEvalAbort, trec_eval

RECORDED = json.loads(
    gzip.decompress((Path(__file__).parent / "data" / "recorded_trec_eval.json.gz").read_bytes())
)
RECORDS = RECORDED["records"]


def test_recorded_from_the_binary_of_trec_eval_10():
    assert RECORDED["version"].startswith("trec_eval version 10.0")
    assert {r["status"] for r in RECORDS} >= {0, 4}  # both outcomes are compared
    options = [" ".join(r["options"]) for r in RECORDS]
    for wanted in ("-c", "-J", "-M", "-q", "-R qrels_jg", "all_trec"):
        assert any(wanted in o for o in options), wanted


@pytest.mark.parametrize(
    "record", RECORDS, ids=[f"{i}:{' '.join(r['options'])}" for i, r in enumerate(RECORDS)]
)
def test_output_is_the_binarys(record, tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(record["qrels"])
    run.write_text(record["run"])
    argv = [*record["options"], str(qrels), str(run)]
    if record["status"]:
        with pytest.raises(TrecEvalAbort) as info:
            trec_eval(argv)
        assert info.value.status == record["status"]
        got = info.value.output
    else:
        got = trec_eval(argv)
    assert got.splitlines() == record["stdout"].splitlines()  # a readable diff first
    assert got == record["stdout"]
