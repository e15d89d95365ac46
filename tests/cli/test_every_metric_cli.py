"""Every metric of the registry computed through the command line, with the options it
needs, equals the library's value: ranking and list metrics through ``receval rank``
(item data from files), pointwise and grouped ones through ``receval ctr``, retention
through ``receval retention``, off-policy estimates through ``receval off-policy``.
Then the library's errors as the command line words them: its options and commands."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

import receval
from receval.registry import ENTRIES, load
from tests.cli._helpers import invoke, make_runner

#: Rows no command computes, with the reason (none: every row has a command).
NOT_COMPUTABLE: dict[str, str] = {}

QRELS = {
    "u1": {"a": 1, "b": 2, "f": 0},
    "u2": {"c": 1, "x": -1},
    "u3": {"a": 1, "e": 1},
    "u4": {"g": 1},
}
RUN = {
    "u1": {"a": 0.9, "c": 0.5, "d": 0.1, "f": 0.3},
    "u2": {"b": 0.8, "c": 0.3, "x": 0.2},
    "u3": {"a": 0.7, "e": 0.2, "b": 0.6},
}
REFERENCE = {"u1": {"b": 0.9, "c": 0.5}, "u2": {"c": 0.8}, "u3": {"d": 0.7, "a": 0.1}}
TRAIN = [("v1", "a"), ("v1", "b"), ("v2", "a"), ("v3", "c"), ("v3", "d"), ("v4", "e"),
         ("v4", "a"), ("u1", "b"), ("u2", "a"), ("u3", "f"), ("v5", "x"), ("u1", "e")]  # fmt: skip
FEATURES = {"a": (1.0, 0.0), "b": (0.0, 1.0), "c": (1.0, 1.0), "d": (0.5, 0.2),
            "e": (0.1, 0.9), "f": (0.3, 0.3), "x": (0.7, 0.1)}  # fmt: skip
CATEGORIES = [("a", "x"), ("b", "y"), ("c", "x"), ("c", "y"), ("d", "z"), ("e", "z"),
              ("f", "y"), ("x", "x")]  # fmt: skip
CATALOG = 10
K = 3
LOG_COLUMNS = ["reward", "pscore", "target", "q", "v"]

#: Library values of the list metrics computed by a function of their own.
LIST_FUNCTIONS = {
    "catalog_coverage": lambda: receval.catalog_coverage(RUN, catalog=CATALOG, k=K),
    "novelty": lambda: receval.novelty(RUN, _train(), k=K),
    "personalization": lambda: receval.personalization(RUN, k=K),
    "gini_index": lambda: receval.gini_index(RUN, k=K, catalog=CATALOG),
    "pop_reo": lambda: receval.popularity_equal_opportunity(QRELS, RUN, train=_train(), k=K),
    "pop_rsp": lambda: receval.popularity_statistical_parity(RUN, train=_train(), k=K),
    "item_coverage": lambda: receval.item_coverage(RUN, train=_train(), k=K),
    "shannon_entropy": lambda: receval.shannon_entropy(RUN, k=K),
    "distributional_coverage": lambda: receval.distributional_coverage(RUN, k=K),
    "popularity_serendipity": lambda: receval.popularity_serendipity(
        RUN, QRELS, _train(), catalog=CATALOG, k=K
    ),
    "intersection": lambda: receval.intersection(RUN, REFERENCE, k=K),
    "user_coverage": lambda: receval.user_coverage(RUN, QRELS, k=K),
}


def _train():
    users, items = zip(*TRAIN, strict=True)
    return list(users), list(items)


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([header, *rows])
    return str(path)


def _write_trec_run(path, run):
    lines = [
        f"{u} Q0 {i} {r} {s!r} t\n"
        for u, items in run.items()
        for r, (i, s) in enumerate(sorted(items.items(), key=lambda x: -x[1]), 1)
    ]
    path.write_text("".join(lines))
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("every_metric")
    (d / "q.qrels").write_text(
        "".join(f"{u} 0 {i} {g}\n" for u, items in QRELS.items() for i, g in items.items())
    )
    rng = np.random.default_rng(7)
    n = 80
    y = rng.integers(0, 2, n)
    p = (rng.random(n) * 0.8 + y * 0.15).clip(0.01, 0.99)
    groups = rng.integers(0, 6, n)
    log_rows = [
        (int(r), float(p), float(t), float(q), float(v))
        for r, p, t, q, v in zip(rng.integers(0, 2, n), rng.uniform(0.2, 0.9, n),
                                 rng.uniform(0.1, 1, n), rng.random(n), rng.random(n),
                                 strict=True)
    ]  # fmt: skip
    days = [(1, 1), (1, 2), (2, 1), (2, 4), (3, 2), (3, 3), (4, 3), (1, 8), (2, 8), (5, 4)]
    return {
        "qrels": str(d / "q.qrels"),
        "run": _write_trec_run(d / "a.run", RUN),
        "reference": _write_trec_run(d / "ref.run", REFERENCE),
        "train": _write_csv(d / "train.csv", ["user", "item"], TRAIN),
        "features": _write_csv(
            d / "features.csv", ["item", "f1", "f2"], [(i, *v) for i, v in FEATURES.items()]
        ),
        "categories": _write_csv(d / "categories.csv", ["item", "category"], CATEGORIES),
        "impressions": _write_csv(
            d / "impressions.csv",
            ["click", "p", "user"],
            [(int(a), float(b), f"g{c}") for a, b, c in zip(y, p, groups, strict=True)],
        ),
        "log": _write_csv(d / "log.csv", LOG_COLUMNS, log_rows),
        "log_rows": log_rows,
        "y": y,
        "p": [float(b) for b in p],
        "groups": [f"g{c}" for c in groups],
        "events": _write_csv(
            d / "events.csv", ["user", "time"], [(f"u{u}", f"2024-01-{t:02d}") for u, t in days]
        ),
    }


@pytest.fixture(scope="module")
def runner():
    return make_runner()


def _string(entry) -> str:
    """The metric string of a row: its required parameters, and @K where it takes one."""
    required = {"iprec": "recall=0.5", "rprec_mult": "mult=2", "partial_auc": "max_fpr=0.5"}
    text = entry.name + (f"({required[entry.name]})" if entry.name in required else "")
    return text + (f"@{K}" if entry.accepts_k else "")


def _rank_value(runner, files, text):
    result = invoke(
        runner, "rank", "--qrels", files["qrels"], "--run", files["run"], "-m", text,
        "--train", files["train"], "--features", files["features"],
        "--item-categories", files["categories"], "--catalog", CATALOG,
        "--reference", files["reference"], "-f", "json", "-q",
    )  # fmt: skip
    return json.loads(result.stdout)[0][text]


def _library_value(entry, text):
    if entry.function == "evaluate":
        features = receval.evaluate(
            QRELS, RUN, [text], train=_train(), features=list(FEATURES.values()),
            feature_items=list(FEATURES), item_categories=dict(_categories()),
        )  # fmt: skip
        return features.mean[text]
    return LIST_FUNCTIONS[entry.name]()


def _categories():
    out: dict[str, list[str]] = {}
    for item, category in CATEGORIES:
        out.setdefault(item, []).append(category)
    return out.items()


@pytest.mark.filterwarnings("ignore::receval.exceptions.UndefinedMetricWarning")
@pytest.mark.filterwarnings("ignore:item_coverage is deprecated:FutureWarning")  # still a row
@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_every_registry_metric_through_the_cli(runner, files, name):
    entry = ENTRIES[name]
    if name in NOT_COMPUTABLE:
        pytest.skip(NOT_COMPUTABLE[name])
    text = _string(entry)
    if entry.family in ("ranking", "list"):
        got, want = _rank_value(runner, files, text), _library_value(entry, text)
    elif entry.family in ("pointwise", "grouped"):
        result = invoke(
            runner, "ctr", files["impressions"], "--label", "click", "--score", "p",
            "--group", "user", "-m", text, "-f", "json", "-q",
        )  # fmt: skip
        got = json.loads(result.stdout)[0][text]
        options = {"max_fpr": 0.5} if name == "partial_auc" else {}
        if entry.family == "grouped":
            options["groups"] = files["groups"]
        want = load(entry.function_path)(files["y"], files["p"], **options)
        want = getattr(want, "value", want)
    elif entry.family == "off_policy":
        model = ["--estimated-reward", "q", "--estimated-value", "v"] if name == "dr" else []
        result = invoke(runner, "off-policy", files["log"], "-m", text, *model, "-f", "json")
        got = json.loads(result.stdout)[0][text]
        log = dict(zip(LOG_COLUMNS, np.array(files["log_rows"]).T, strict=True))
        options = {"estimated_rewards": log["q"], "estimated_value": log["v"]}
        want = load(entry.function_path)(
            log["reward"], log["pscore"], action_dist=log["target"],
            **(options if name == "dr" else {}),
        )  # fmt: skip
    else:
        assert entry.family == "retention"
        result = invoke(runner, "retention", files["events"], "--table", "cohort",
                        "--days", "1,2", "-f", "json")  # fmt: skip
        got = [[r["new_users"], r["day_1"], r["day_2"]] for r in json.loads(result.stdout)]
        report = receval.retention(files["events"], days=[1, 2])
        want = [
            [int(n), *(None if v != v else float(v) for v in rates)]
            for n, rates in zip(report.new_users, report.day_n_retention, strict=True)
        ]
        assert got == want
        return
    assert got == pytest.approx(want, rel=1e-12, nan_ok=True) or (got is None and want != want)


def test_every_row_has_a_command():
    assert set(NOT_COMPUTABLE) <= set(ENTRIES)
    assert not NOT_COMPUTABLE


def test_off_policy_needs_the_reward_model_for_dr(runner, files):
    result = invoke(runner, "off-policy", files["log"], "-m", "dr", code=2)
    assert result.stderr == (
        "error: receval off-policy -m 'dr': dr needs --estimated-reward COL; pass it (see "
        "receval off-policy --help).\n"
    )


def test_off_policy_takes_a_clip_of_inf_as_no_clip(runner, files):
    model = ["--estimated-reward", "q", "--estimated-value", "v"]
    for name in ("ips", "snips", "dr"):
        texts = [name, f"{name}(clip=inf)"]
        args = [x for text in texts for x in ("-m", text)]
        extra = model if name == "dr" else []
        result = invoke(runner, "off-policy", files["log"], *args, *extra, "-f", "json")
        record = json.loads(result.stdout)[0]
        assert record[f"{name}(clip=inf)"] == record[name]


# ------------------------------------------------------------------ item data options
def test_rank_item_data_in_every_format(runner, files, tmp_path):
    """--popularity instead of --train, --catalog as a file, --features from Parquet and
    TSV, and --candidates: the library's values."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    items = [item for _, item in set(TRAIN)]
    counts = {item: items.count(item) for item in items}
    popularity = _write_csv(tmp_path / "pop.csv", ["item", "count"], counts.items())
    catalog = _write_csv(tmp_path / "catalog.csv", ["item"], [(i,) for i in "abcdefgxyz"])
    parquet = tmp_path / "features.parquet"
    pq.write_table(
        pa.table({"item": list(FEATURES), "f1": [v[0] for v in FEATURES.values()],
                  "f2": [v[1] for v in FEATURES.values()]}), parquet,
    )  # fmt: skip
    base = ["rank", "--qrels", files["qrels"], "--run", files["run"], "-f", "json", "-q"]
    record = json.loads(
        invoke(runner, *base, "-m", "arp@3", "-m", "catalog_coverage@3", "-m", "ils@3",
               "--popularity", popularity, "--catalog", catalog,
               "--features", parquet).stdout
    )[0]  # fmt: skip
    assert record["arp@3"] == pytest.approx(
        receval.evaluate(QRELS, RUN, ["arp@3"], popularity=counts).mean["arp@3"], rel=1e-12
    )
    assert record["catalog_coverage@3"] == receval.catalog_coverage(RUN, catalog=10, k=3)
    assert record["ils@3"] == pytest.approx(_library_value(ENTRIES["ils"], "ils@3"), rel=1e-12)
    candidates = [("u1", "a"), ("u1", "c"), ("u1", "b"), ("u2", "b"), ("u2", "c"), ("u3", "a")]
    path = _write_csv(tmp_path / "cand.csv", ["user", "item"], candidates)
    record = json.loads(invoke(runner, *base, "-m", "ndcg@3", "--candidates", path).stdout)[0]
    frame = pa.table({"user": [u for u, _ in candidates], "item": [i for _, i in candidates]})
    sampled = receval.evaluate(QRELS, RUN, ["ndcg@3"], candidates=frame)
    assert record["ndcg@3"] == sampled.mean["ndcg@3"]


def test_rank_mixes_list_and_ranking_metrics_in_the_order_given(runner, files):
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run"],
                    "--run", files["reference"], "-m", "personalization@3", "-m", "ndcg@3",
                    "-f", "json")  # fmt: skip
    records = json.loads(result.stdout)
    assert [list(r)[:3] for r in records] == [["run", "personalization@3", "ndcg@3"]] * 2
    assert records[0]["personalization@3"] == receval.personalization(RUN, k=3)
    assert "no significance letters: the list metrics (personalization@3)" not in result.stderr
    table = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run"], "--run",
                   files["reference"], "-m", "personalization@3", "-m", "ndcg@3")  # fmt: skip
    assert "no significance letters: the list metrics (personalization@3)" in table.stderr


def test_rank_takes_by_or_per_user(runner, files, tmp_path):
    segments = tmp_path / "segments.csv"
    segments.write_text("user,segment\n1,a\n")
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run"],
                    "-m", "ndcg@3", "--per-user", "--by", segments, code=2)  # fmt: skip
    assert result.stderr == (
        "error: --by gives a row per segment and --per-user a row per user; pass one of them.\n"
    )


def test_rank_list_metrics_have_no_per_user_values(runner, files):
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run"],
                    "-m", "personalization@3", "--per-user", code=2)  # fmt: skip
    assert result.stderr == (
        "error: --per-user shows values per user, and the list metrics (personalization@3) "
        "have one value per run; leave them out of -m or drop the option.\n"
    )


def test_report_computes_the_metrics_that_need_item_data(runner, files, tmp_path):
    out = tmp_path / "report.html"
    metrics = ["arp@3", "ils@3", "miscalibration@3", "serendipity@3"]
    invoke(runner, "report", "--out", out, "--qrels", files["qrels"], "--run", files["run"],
           *(a for m in metrics for a in ("-m", m)), "--train", files["train"],
           "--features", files["features"], "--item-categories", files["categories"],
           "--no-timestamp", "-q")  # fmt: skip
    row = json.loads((tmp_path / "report.json").read_text())["sections"][0]["tables"][0]["rows"][0]
    for m in metrics:
        assert row[m] == pytest.approx(_library_value(ENTRIES[m.split("@")[0]], m), rel=1e-12)
    result = invoke(runner, "report", "--out", out, "--features", files["features"],
                    "--events", files["events"], code=2)  # fmt: skip
    assert result.stderr == "error: --features describes runs: pass --qrels and --run too.\n"


def test_compare_takes_the_item_data_of_its_metrics(runner, files):
    result = invoke(runner, "compare", "--qrels", files["qrels"], "--run", files["run"],
                    "--run", files["reference"], "-m", "arp@3", "-m", "ils@3", "--train",
                    files["train"], "--features", files["features"], "--permutations", 10,
                    "--resamples", 10, "-f", "json", "-q")  # fmt: skip
    records = {r["metric"]: r for r in json.loads(result.stdout)}
    for m in ("arp@3", "ils@3"):
        assert records[m]["versus_mean"] == pytest.approx(
            _library_value(ENTRIES[m.split("@")[0]], m), rel=1e-12
        )


# ------------------------------------------------------------------ errors in CLI words
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "arp@3"], "Metric 'arp@3' needs item popularity; pass --popularity FILE or "
         "--train FILE."),
        (["-m", "ils@3"], "Metric 'ils@3' needs item similarities; pass --features FILE."),
        (["-m", "serendipity@3"], "Metric 'serendipity@3' needs the users' histories; pass "
         "--train FILE."),
        (["-m", "catalog_coverage@3"], "receval rank -m 'catalog_coverage@3': catalog_coverage "
         "needs --catalog N|FILE; pass it (see receval rank --help)."),
        (["-m", "intersection@3"], "receval rank -m 'intersection@3': intersection needs "
         "--reference FILE; pass it (see receval rank --help)."),
        (["-m", "ndgc@3"], "receval rank -m: unknown metric 'ndgc'. Did you mean 'ndcg'? See "
         "receval metrics."),
        (["--ties", "random"], "--ties must be one of ['average', 'id_ascending', "
         "'id_descending', 'input', 'trec', 'worst']. Got 'random' instead."),
        (["-m", "auc"], "receval rank: 'auc' is roc_auc, a pointwise metric (area under the "
         "ROC curve, exact (ties count one half)), not a ranking metric; compute it with "
         "receval ctr -m auc."),
        (["-m", "ips"], "receval rank: 'ips' is ips, an off-policy metric (inverse propensity "
         "scoring: mean importance-weighted reward of a target policy), not a ranking metric; "
         "compute it with receval off-policy -m ips."),
        (["-m", "retention"], "receval rank: 'retention' is retention, a retention metric "
         "(new, login and returning users per period; day-N retention per cohort), not a "
         "ranking metric; compute it with receval retention."),
        (["--candidates", "CAND", "--correction", "rank"], "receval rank: --correction rank "
         "needs the catalogue size N; pass --catalog N."),
    ],
)  # fmt: skip
def test_rank_errors_name_options_and_commands(runner, files, tmp_path, args, message):
    cand = _write_csv(tmp_path / "c.csv", ["user", "item"], [("u1", "a")])
    args = [cand if a == "CAND" else a for a in args]
    result = invoke(runner, "rank", "--qrels", files["qrels"], "--run", files["run"], *args,
                    code=2)  # fmt: skip
    assert result.stdout == ""
    assert result.stderr == f"error: {message}\n"


def test_ctr_and_retention_errors_name_options_and_commands(runner, files, tmp_path):
    result = invoke(runner, "ctr", files["impressions"], "--label", "click", "--score", "p",
                    "-m", "ndcg@10", code=2)  # fmt: skip
    assert result.stderr.endswith("compute it with receval rank -m ndcg@10.\n")
    events = _write_csv(tmp_path / "e.csv", ["user", "time"], [("u1", 5), ("u2", 7)])
    result = invoke(runner, "retention", events, "--days", "0", code=2)
    assert result.stderr == "error: --days must be an integer in [1, inf). Got 0 instead.\n"


def test_ctr_refuses_a_score_column_of_text(runner, files):
    log = files["impressions"]
    result = invoke(runner, "ctr", log, "--label", "click", "--score", "user", code=2)
    assert result.stderr == (
        f"error: {log}:2: --score user: the column holds string values such as 'g5', "
        "not numbers; name a numeric column or fix the value.\n"
    )


@pytest.mark.parametrize(
    ("rows", "option", "line"),
    [
        ("1,0.5\n0,\n1,0.3\n", "--score p", 3),  # an empty field: a missing score
        ("1,0.5\n0,0.1\n,0.3\n", "--label click", 4),
        ("1,0.5\n0,0.1\n1,0.3\n0,0.2\n1,0.6\n0,0.4\n,0.3\n", "--label click", 8),
    ],
)
def test_ctr_names_the_line_of_a_missing_label_or_score(runner, tmp_path, rows, option, line):
    path = tmp_path / "log.csv"
    path.write_text("click,p\n" + rows)
    result = invoke(runner, "ctr", str(path), "--label", "click", "--score", "p", code=2)
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {path}:{line}: receval ctr: {option} contains 1 missing value (empty or null), "
        f"the first on this line; drop those rows or fill them first.\n"
    )


def test_cli_text_keeps_metric_strings_and_unknown_names():
    from receval.cli._translate import cli_text

    text = "Metric 'ndcg(gain=exponential)@10': pass gain='linear' or foo=1 to evaluate."
    assert cli_text(text) == "Metric 'ndcg(gain=exponential)@10': pass --gain linear or foo=1."
    assert cli_text("pass allow_unmatched=True to score it.") == (
        "pass --allow-unmatched to score it."
    )
    assert cli_text("pass features= (vectors) or similarity= (a matrix) to evaluate.") == (
        "pass --features FILE."
    )
