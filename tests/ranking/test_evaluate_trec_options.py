"""trec_eval's -c and -l through evaluate: the options receval trec-eval passes
(evaluate_options) give evaluate the binary's per-query values, and the command prints
the same (one definition of each option for both)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import receval
from receval.trec.trec_eval import evaluate_options, parse_trec_eval_args, trec_eval

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 2\n2 0 e 0\n3 0 f 0\n"
RUN = "1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n"  # queries 2 and 3 are absent from the run
MEASURES = ["-m", "num_rel", "-m", "num_ret", "-m", "map", "-m", "P.5", "-m", "rbp"]
NAMES = {"num_rel": "num_rel", "num_ret": "num_ret", "map": "map", "P_5": "p@5",
         "rbp": "rbp(p=0.9)"}  # fmt: skip
# trec_eval 10.0 -q -c -l{level} on these files: query -> (num_rel, num_ret, map, P_5, rbp)
EXPECTED = {
    0: {"1": (2, 2, 1.0, 0.4, 0.1), "2": (3, 0, 0.0, 0.0, 0.0), "3": (1, 0, 0.0, 0.0, 0.0)},
    2: {"1": (0, 2, 0.0, 0.0, 0.1), "2": (1, 0, 0.0, 0.0, 0.0), "3": (0, 0, 0.0, 0.0, 0.0)},
}


@pytest.mark.parametrize("level", sorted(EXPECTED))
def test_complete_and_level_match_trec_eval(tmp_path, level):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    argv = ["-c", f"-l{level}", *MEASURES, str(tmp_path / "qrels"), str(tmp_path / "run")]
    metrics = list(NAMES.values())
    q = receval.Qrels.from_file(tmp_path / "qrels", file_format="trec")
    r = receval.Run.from_file(tmp_path / "run", file_format="trec")
    report = receval.evaluate(q, r, metrics, profile="trec_eval", allow_unmatched=True,
                              **evaluate_options(parse_trec_eval_args(argv), metrics))  # fmt: skip
    printed = {}
    for line in trec_eval(["-q", *argv]).splitlines():
        name, query, value = line.split()
        printed[(name, query)] = float(value)
    for i, user in enumerate(report.users.tolist()):
        for (name, metric), want in zip(NAMES.items(), EXPECTED[level][user], strict=True):
            got = float(report.values[metric][i])
            assert math.isclose(got, want, abs_tol=5e-5), (level, user, name, got, want)
            assert math.isclose(printed[(name, user)], want, abs_tol=5e-5)
    assert np.isclose(report.mean["p@5"], np.mean([v[3] for v in EXPECTED[level].values()]))
