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
            "receval rank: the convention --gain binary changes none of the metrics ['mrr@10']; "
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


IMPRESSIONS = "click,score,user\n1,0.9,a\n0,0.3,a\n1,0.4,b\n0,0.6,b\n1,0.8,b\n0,0.2,c\n"


def test_ctr_takes_metric_strings_with_options(tmp_path):
    import receval

    path = tmp_path / "log.csv"
    path.write_text(IMPRESSIONS)
    metrics = ["gauc(weighting=clicks)", "log_loss(eps=1e-7)", "partial_auc(max_fpr=0.5)"]
    args = [arg for m in metrics for arg in ("-m", m)]
    base = ["ctr", path, "--label", "click", "--score", "score", "--group", "user"]
    result = invoke(make_runner(), *base, *args, "-f", "csv")
    header, row = list(csv.reader(io.StringIO(result.stdout)))[:2]
    y, s, g = [1, 0, 1, 0, 1, 0], [0.9, 0.3, 0.4, 0.6, 0.8, 0.2], list("aabbbc")
    expected = [
        receval.gauc_score(y, s, groups=g, weighting="clicks"),
        receval.log_loss(y, s, eps=1e-7),
        receval.partial_auc(y, s, max_fpr=0.5),
    ]
    assert [float(row[header.index(m)]) for m in metrics] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("command", "metric", "message"),
    [
        ("ctr", "ap", "receval ctr -m: 'ap' is map, a ranking metric (average precision in the "
         "top k, averaged over users), not a pointwise or grouped metric; the average precision "
         "of scores is 'average_precision'."),
        ("ctr", "gauc(wieghting=clicks)", "receval ctr -m: metric 'gauc(wieghting=clicks)': "
         "unknown option 'wieghting' (did you mean 'weighting'?); its options are "
         "['weighting', 'pos_label']."),
        ("ctr", "gaux", "receval ctr -m: unknown metric 'gaux'. Did you mean 'gauc'? See "
         "receval metrics."),
        ("rank", "gauc", "receval rank: 'gauc' is gauc, a grouped metric (per-group ROC AUC "
         "weighted by impressions, clicks or 1), not a ranking metric; compute it with "
         "receval ctr --group COL -m gauc."),
    ],
)  # fmt: skip
def test_every_command_resolves_names_through_the_registry(tmp_path, files, command, metric,
                                                            message):  # fmt: skip
    path = tmp_path / "log.csv"
    path.write_text(IMPRESSIONS)
    if command == "ctr":
        args = ["ctr", path, "--label", "click", "--score", "score", "--group", "user"]
    else:
        args = ["rank", "--qrels", files[0], "--run", files[1]]
    result = invoke(make_runner(), *args, "-m", metric, code=2)
    assert result.stdout == ""
    assert result.stderr == f"error: {message}\n"


def test_recall_rounding_in_rank_and_trec_eval(tmp_path):
    # R = 2: recall 0.6 asks for 2 relevant documents in trec_eval 9 and pytrec_eval
    # (the trec_eval profile), for round(1.2) = 1 in trec_eval 10.0 (receval trec-eval)
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("q 0 a 1\nq 0 b 1\n")
    run.write_text("q Q0 a 1 0.9 r\nq Q0 x 2 0.8 r\nq Q0 b 3 0.7 r\n")
    runner = make_runner()

    def rank(*options):
        args = ["rank", "--qrels", qrels, "--run", run, "-m", "iprec(recall=0.6)", "-f", "csv"]
        header, row = list(csv.reader(io.StringIO(invoke(runner, *args, *options).stdout)))[:2]
        return round(float(row[header.index("iprec(recall=0.6)")]), 4)

    assert rank("--profile", "trec_eval") == 0.6667
    assert rank("--profile", "trec_eval", "--recall-rounding", "nearest") == 1.0
    assert rank() == 1.0
    result = invoke(runner, "trec-eval", "-m", "iprec_at_recall.0.6", qrels, run)
    assert result.stdout.split() == ["iprec_at_recall_0.60", "all", "1.0000"]
