"""Every grouped metric of ``receval ctr`` counts the groups it leaves out: in the JSON
counts and in a note on stderr, as gauc does (a group without a value of its own is
left out of the mean, never silently)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import receval
from receval.exceptions import InvalidParameterError
from receval.registry import resolve
from receval.registry.pointwise import pointwise_adapter
from tests.cli._helpers import invoke, make_runner

# group a: both classes; b: clicks only; c: non-clicks only; d: one row
LOG = (
    "click,score,user,w\n"
    "1,0.9,a,1\n0,0.3,a,2\n1,0.2,a,1\n"
    "1,0.4,b,3\n1,0.6,b,1\n1,0.8,b,1\n"
    "0,0.2,c,1\n0,0.5,c,2\n"
    "1,0.7,d,1\n"
)
Y = np.array([1, 0, 1, 1, 1, 1, 0, 0, 1])
S = np.array([0.9, 0.3, 0.2, 0.4, 0.6, 0.8, 0.2, 0.5, 0.7])
G = np.array(list("aaabbbccd"))
W = np.array([1, 2, 1, 3, 1, 1, 1, 2, 1], dtype=float)

# metric -> (groups left out, their rows, why)
EXPECTED = {
    "grouped_auprc": (1, 2, "without a positive"),  # c
    "grouped_auprc(skip_groups=one_class)": (3, 6, "without both classes"),  # b, c, d
    "grouped_xauc": (3, 6, "without a pair of rows with different targets"),
    "gauc": (3, 6, "without both a click and a non-click"),
    "grouped_xauc(min_rows=3)": (
        3,
        6,
        "without a pair of rows with different targets and at least 3 rows",
    ),
    # each row a positive and a negative half: its rows counted once
    "grouped_xauc(targets=probabilities)": (3, 6, "without a pair of rows with different targets"),
}


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text(LOG)
    return path


def test_ctr_counts_the_groups_every_grouped_metric_leaves_out(log):
    args = [x for m in EXPECTED for x in ("-m", m)]
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "score",
                    "--group", "user", "--weight", "w", *args, "-f", "json")  # fmt: skip
    (record,) = json.loads(result.stdout)
    for name, (groups, rows, why) in EXPECTED.items():
        assert record["counts"][name] == {
            "n_groups": 4, "n_groups_skipped": groups, "n_rows_skipped": rows,
        }, name  # fmt: skip
        assert f"score: {name} skips {groups} of 4 groups ({rows} rows) {why}.\n" in (result.stderr)
        value = pointwise_adapter(resolve(name)).func(Y, S, groups=G, sample_weight=W)
        assert record[name] == pytest.approx(value, abs=1e-15)


def test_a_metric_that_leaves_no_group_out_says_so(log):
    result = invoke(make_runner(), "ctr", log, "--label", "click", "--score", "score",
                    "--group", "user", "-m", "grouped_regression_auc", "-f", "json")  # fmt: skip
    (record,) = json.loads(result.stdout)
    # d has one row: no pair
    assert record["counts"]["grouped_regression_auc"] == {
        "n_groups": 4, "n_groups_skipped": 1, "n_rows_skipped": 1,
    }  # fmt: skip
    assert "grouped_regression_auc skips 1 of 4 groups (1 row) without two rows or more" in (
        result.stderr
    )


@pytest.mark.parametrize("name", [*EXPECTED, "grouped_regression_auc",
                                  "grouped_xauc(weighting=uniform,empty_groups=zero)"])  # fmt: skip
@pytest.mark.parametrize("seed", range(5))
def test_counted_value_is_the_function_value(name, seed):
    # the counted path runs the metric's own definition: the same value as its function
    rng = np.random.default_rng(seed)
    n = 200
    y = rng.integers(0, 2, n)
    s = rng.choice([0.1, 0.2, 0.5, 0.9], n)  # ties
    g = rng.integers(0, 30, n)
    w = rng.choice([0.5, 1.0, 2.0], n)
    metric = pointwise_adapter(resolve(name))
    weights = None if "regression" in name else w
    value, counts, _ = metric.counted(y, s, groups=g, sample_weight=weights)
    assert value == metric.func(y, s, groups=g, sample_weight=weights)
    assert counts["n_groups"] == len(np.unique(g))
    assert 0 < counts["n_groups_skipped"] < counts["n_groups"] or name.startswith(
        ("grouped_regression", "grouped_xauc(weighting")
    )


def test_min_rows_with_probability_targets_is_refused():
    with pytest.raises(InvalidParameterError, match="leave min_rows at 1"):
        receval.xauc_score(Y, S, groups=G, targets="probabilities", min_rows=3)


def test_ctr_by_counts_the_groups_skipped_in_each_segment(tmp_path):
    # each segment's row counts the groups gauc skips in its rows (a pandas group-by),
    # in the JSON, the CSV and a note, as the overall row counts them over all the rows
    from tests.oracles.pointwise import gauc_skips_by_segment

    rng = np.random.default_rng(7)
    n = 300
    y = (rng.random(n) < 0.25).astype(int)
    s = rng.random(n).round(3)
    users = rng.integers(0, 40, n)
    country = rng.choice(["de", "fr", "us"], n)
    path = tmp_path / "log.csv"
    lines = [f"{a},{b},u{c},{d}\n" for a, b, c, d in zip(y, s, users, country, strict=True)]
    path.write_text("click,score,user,country\n" + "".join(lines))
    expected = gauc_skips_by_segment(y, users, country)
    args = ["ctr", path, "--label", "click", "--score", "score", "--group", "user", "--by",
            "country", "-m", "gauc", "-m", "auc"]  # fmt: skip
    result = invoke(make_runner(), *args, "-f", "json")
    records = json.loads(result.stdout)
    assert [r["segment"] for r in records] == ["de", "fr", "us", "(all)"]
    for record in records[:-1]:
        groups, skipped, rows = expected[record["segment"]]
        assert record["counts"] == {
            "gauc": {"n_groups": groups, "n_groups_skipped": skipped, "n_rows_skipped": rows}
        }  # fmt: skip
    assert records[-1]["counts"]["gauc"]["n_groups"] == 40
    shown = ", ".join(
        f"{k} of {g}{' groups' if i == 0 else ''} ({r} rows) in {label}"
        for i, (label, (g, k, r)) in enumerate(expected.items())
    )
    assert (
        f"note: score: gauc skips groups without both a click and a non-click in 3 of 3 "
        f"segments: {shown}.\n" in result.stderr
    )
    csv = invoke(make_runner(), *args, "-f", "csv", "-q").stdout.splitlines()
    header = csv[0].split(",")
    de = dict(zip(header, csv[1].split(","), strict=True))
    assert (de["gauc:n_groups"], de["gauc:n_groups_skipped"], de["gauc:n_rows_skipped"]) == (
        tuple(str(x) for x in expected["de"])
    )


def test_ctr_by_counts_the_overall_groups_in_its_one_pass(tmp_path, monkeypatch):
    # the overall row's counts were those of a second gauc over every row: they are the
    # counts of receval.by_segment's own pass, and the output is as it was
    import receval.metrics._gauc as gauc_module

    path = tmp_path / "log.csv"
    countries = ["x", "x", "y", "x", "y", "y", "x", "y", "y", "x", "y"]
    rows = [*LOG.splitlines()[1:], "0,0.1,e,1", "1,0.6,e,1"]
    lines = [f"{r},{c}\n" for r, c in zip(rows, countries, strict=True)]
    path.write_text("click,score,user,w,country\n" + "".join(lines))
    sizes: list[int] = []
    kernel = gauc_module.grouped_auc_kernel

    def counted_kernel(codes, *args):
        sizes.append(len(codes))
        return kernel(codes, *args)

    monkeypatch.setattr(gauc_module, "grouped_auc_kernel", counted_kernel)
    args = ["ctr", path, "--label", "click", "--score", "score", "--group", "user", "--by",
            "country", "-m", "gauc", "-m", "auc", "-f", "csv"]  # fmt: skip
    result = invoke(make_runner(), *args)
    assert sizes.count(len(rows)) == 1, str(sizes)  # gauc over every row: once
    assert sorted(sizes) == [5, 6, 11]  # and once on each segment's rows
    assert result.stdout.splitlines() == [
        "score,segment,n_rows,gauc,auc,gauc:n_groups,gauc:n_groups_skipped,gauc:n_rows_skipped,"
        "n_segments_undefined:gauc,n_segments_undefined:auc",
        "score,x,5,1.0,1.0,4,3,3,nan,nan",
        "score,y,6,nan,0.8,5,5,6,nan,nan",
        "score,(all),11,0.7,0.875,5,3,6,1,0",
    ]
    assert result.stderr == (
        "note: score: gauc skips 3 of 5 groups (6 rows) without both a click and a non-click.\n"
        "note: score: gauc skips groups without both a click and a non-click in 2 of 2 "
        "segments: 3 of 4 groups (3 rows) in x, 5 of 5 (6 rows) in y.\n"
        "note: score: gauc is undefined (nan) in 1 of 2 segments.\n"
    )


def test_ctr_by_a_grouped_metric_without_weights(log):
    # --by passed sample_weight=None to by_segment, which no metric of
    # grouped_regression_auc's takes: an error though no --weight was given
    args = ["ctr", log, "--label", "click", "--score", "score", "--group", "user",
            "-m", "grouped_regression_auc", "-f", "json", "-q"]  # fmt: skip
    (plain,) = json.loads(invoke(make_runner(), *args).stdout)
    by = json.loads(invoke(make_runner(), *args, "--by", "w").stdout)
    assert by[-1]["segment"] == "(all)"
    assert by[-1]["grouped_regression_auc"] == plain["grouped_regression_auc"]
    assert by[-1]["counts"]["grouped_regression_auc"] == plain["counts"]["grouped_regression_auc"]


def test_by_segment_refuses_weights_a_metric_does_not_take(log, tmp_path):
    # with --by, grouped_regression_auc was computed unweighted beside a weighted gauc
    # (exit 0); without --by the same command exits 2
    path = tmp_path / "seg.csv"
    path.write_text(
        "\n".join(
            [line + (",seg" if i == 0 else f",{'xy'[i % 2]}") for i, line in
             enumerate(LOG.splitlines())]
        ) + "\n"
    )  # fmt: skip
    args = ["ctr", path, "--label", "click", "--score", "score", "--group", "user",
            "--weight", "w", "-m", "gauc", "-m", "grouped_regression_auc"]  # fmt: skip
    invoke(make_runner(), *args, code=2)
    result = invoke(make_runner(), *args, "--by", "seg", code=2)
    assert result.stderr == (
        "error: --score score: --weight w is not taken by grouped_regression_auc: it counts "
        "each row once. Got 9 weights; compute grouped_regression_auc without them (or "
        "repeat rows to weigh them).\n"
    )


def test_ctr_reads_minus_one_labels_as_every_binary_metric_does(tmp_path, log):
    # -1/1 labels (-1 the negative): every binary metric of ctr reads them as their 0/1
    # equivalent (before: gauc and grouped_auprc said "--label must hold 0/1 labels",
    # where auc, logloss, pcoc and ne took them)
    minus = tmp_path / "minus.csv"
    minus.write_text("\n".join(
        line if i == 0 else ("-1" + line[1:] if line.startswith("0,") else line)
        for i, line in enumerate(LOG.splitlines())
    ) + "\n")  # fmt: skip
    metrics = ["auc", "gauc", "grouped_auprc", "logloss", "pcoc", "ne"]
    args = ["--label", "click", "--score", "score", "--group", "user", "--weight", "w",
            *(x for m in metrics for x in ("-m", m)), "-f", "json"]  # fmt: skip
    (want,) = json.loads(invoke(make_runner(), "ctr", log, *args).stdout)
    (got,) = json.loads(invoke(make_runner(), "ctr", minus, *args).stdout)
    assert got == want and "-1," in minus.read_text()


def test_a_group_or_segment_column_that_is_the_score_column_is_read_as_numbers(tmp_path):
    # read once as ids, the score column came out as text: "--score score: the column
    # holds string values, not numbers" (of a column of numbers)
    log = tmp_path / "log.csv"
    log.write_text(LOG)
    args = ["ctr", log, "--label", "click", "--score", "score", "-f", "json"]
    grouped = invoke(make_runner(), *args, "--group", "score", "-m", "grouped_auprc")
    want = receval.grouped_auprc_score(Y, S, groups=S)
    assert json.loads(grouped.stdout)[0]["grouped_auprc"] == want
    by = invoke(make_runner(), *args, "--by", "score", "-m", "logloss")
    got = {r["segment"]: r["logloss"] for r in json.loads(by.stdout) if r["segment"] != "(all)"}
    assert got == {v: receval.log_loss(Y[S == v], S[S == v]) for v in np.unique(S).tolist()}
