"""The command line refuses an option a metric does not take (exit 2, the message on
stderr, nothing on stdout), and `receval trec-eval` gives its options to the measures
that use them."""

from __future__ import annotations

import csv
import io

import pytest

from tests.cli._helpers import invoke, make_runner

QRELS = "101 0 a 2\n101 0 b 0\n101 0 c 1\n"
RUN = "101 Q0 a 1 1.0 r\n101 Q0 b 2 2.0 r\n101 Q0 c 3 0.5 r\n"


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-m", "mrr(gain=binary)@10"],
            "Metric 'mrr(gain=binary)@10': mrr does not use the convention 'gain' (it changes "
            "no value of mrr); its options are ['depth', 'empty_users', 'estimator', "
            "'hit_scores', 'judged_only', 'missing_users', 'rel_threshold', 'ties', "
            "'zero_users'].",
        ),
        (
            ["-m", "rbp(p=0.8,gain=exponential)"],
            "Metric 'rbp(p=0.8,gain=exponential)': rbp takes gain 'linear' or 'binary'. "
            "Got 'exponential' instead.",
        ),
        (
            ["-m", "mrr@10", "--gain", "binary"],
            "evaluate: the convention gain='binary' changes none of the metrics ['mrr@10']; "
            "it is used by ['cg', 'dcg', 'idcg', 'ndcg', 'ee_relevance', ...] (7 metrics). "
            "Drop it.",
        ),
    ],
)
def test_rank_refuses_an_option_the_metric_does_not_take(files, args, message):
    qrels, run = files
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, *args, code=2)
    assert result.stdout == ""
    assert result.stderr == f"error: {message}\n"


def test_rank_reads_rbp_rel_threshold_and_binary_gain(files):
    qrels, run = files
    metrics = ["rbp", "rbp(rel_threshold=2)", "rbp(gain=binary)", "RBP(rel=2,p=0.8)"]
    args = [arg for m in metrics for arg in ("-m", m)]
    result = invoke(make_runner(), "rank", "--qrels", qrels, "--run", run, *args, "-f", "csv")
    header, row = list(csv.reader(io.StringIO(result.stdout)))[:2]
    values = {name: round(float(row[header.index(name)]), 6) for name in metrics}
    assert values == dict(zip(metrics, [0.224, 0.16, 0.288, 0.16], strict=True))


def test_trec_eval_takes_its_options_whatever_the_measures(files):
    # -l 2 and -M 2 change none of num_q's values: trec_eval takes them all the same
    qrels, run = files
    result = invoke(make_runner(), "trec-eval", "-l", "2", "-M", "2", "-m", "num_q", qrels, run)
    assert result.stdout.split() == ["num_q", "all", "1"]
