"""``receval rank``: ranking metrics of one or more runs against qrels."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

from typing import Annotated, Any

import typer

from ._common import (
    ALL_SEGMENTS,
    DEFAULT_RANK_METRICS,
    DigitsOption,
    FormatOption,
    GradeOption,
    ItemOption,
    Messages,
    PermutationsOption,
    ProfileOption,
    QrelsFormatOption,
    QrelsOption,
    QuietOption,
    RankMetricOption,
    RunFormatOption,
    RunOption,
    RunScoreOption,
    UserOption,
    app,
    convention,
    evaluate_run,
    rank_table,
    read_qrels_runs,
    read_segments,
    run_names,
)
from ._items import (
    EVALUATE_INPUTS,
    ITEM_PANEL,
    CandidatesOption,
    CatalogOption,
    CorrectionOption,
    ExcludeOption,
    FeaturesOption,
    ItemCategoriesOption,
    ItemData,
    PopularityOption,
    ReferenceOption,
    TrainOption,
    read_propensities,
    row_value,
)
from ._output import OutputFormat, ResultTable, render, scalar
from ._params import Command
from ._retrieve import (
    ItemIdsOption,
    RetrieveKOption,
    SimilarityOption,
    UserIdsOption,
    VectorsOption,
    read_exclude,
    read_ids,
    read_qrels,
    vector_run,
)


@app.command(cls=Command)
def rank(
    qrels: QrelsOption[str],
    run: RunOption[list[str] | None] = None,
    metric: RankMetricOption = None,
    profile: ProfileOption = None,
    per_user: Annotated[
        bool,
        typer.Option(
            "--per-user",
            help="Print each user's values (columns user, run, metrics) instead of the means.",
            rich_help_panel="Output",
        ),
    ] = False,
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            metavar="FILE",
            help="A CSV, TSV or Parquet file of user segments (columns --user and "
            "--segment): one row per run and segment, each the metrics' means over the "
            "segment's qrels users (EvaluationReport.by_segment), then the run's overall "
            "row (segment '(all)'). Users without a segment count in '(all)' only.",
            show_default=False,
            rich_help_panel="Output",
        ),
    ] = None,
    segment: Annotated[
        str,
        typer.Option(
            "--segment", metavar="COL", help="The segment column of --by.", rich_help_panel="Output"
        ),
    ] = "segment",
    qrels_format: QrelsFormatOption = None,
    run_format: RunFormatOption = None,
    user: UserOption = "user",
    item: ItemOption = "item",
    grade: GradeOption = "grade",
    score: RunScoreOption = "score",
    rank_column: Annotated[
        str | None,
        typer.Option(
            "--rank",
            metavar="COL",
            help="Rank column (1 = top) of CSV/TSV/Parquet runs, used instead of --score.",
            show_default=False,
            rich_help_panel="Input",
        ),
    ] = None,
    ties: Annotated[str | None, convention("Order of tied scores.")] = None,
    gain: Annotated[str | None, convention("Gain of a grade in (n)DCG.")] = None,
    ap_normalizer: Annotated[str | None, convention("Denominator of AP.")] = None,
    rel_threshold: Annotated[
        float | None, convention("Grade at or above which an item is relevant.")
    ] = None,
    missing_users: Annotated[str | None, convention("Qrels users absent from a run.")] = None,
    empty_users: Annotated[str | None, convention("Users without a relevant item.")] = None,
    ideal: Annotated[str | None, convention("What the ideal DCG ranks.")] = None,
    gain_grades: Annotated[
        str | None,
        convention(
            "Grades that earn a gain in DCG/NDCG (positive: every grade above 0, as "
            "trec_eval's ndcg)."
        ),
    ] = None,
    zero_users: Annotated[
        str | None, convention("Users whose value is 0 (skip: left out of the mean).")
    ] = None,
    hit_scores: Annotated[
        str | None,
        convention(
            "Scores that can make a hit (positive: an item scored <= 0 is never a hit, as "
            "torchmetrics)."
        ),
    ] = None,
    precision_normalizer: Annotated[
        str | None,
        convention(
            "Denominator of precision@k (retrieved: min(k, the list's length), as LensKit)."
        ),
    ] = None,
    recall_normalizer: Annotated[
        str | None, convention("Denominator of recall@k (min_k: min(R, k), as LensKit).")
    ] = None,
    discount: Annotated[
        str | None,
        convention(
            "Rank discount of (n)DCG (clipped: log2(max(rank, 2)), as LensKit; rank: the rank "
            "itself, as CatBoost's denominator=Position)."
        ),
    ] = None,
    depth: Annotated[
        int | None,
        convention(
            "Only the first N items of each list count, for every metric (trec_eval's -M; 0: all).",
            min=0,
        ),
    ] = None,
    judged_only: Annotated[
        bool | None,
        convention(
            "Remove the items absent from the user's qrels before any metric (trec_eval's -J, "
            "ir_measures' judged_only).",
            "--judged-only/--all-items",
        ),
    ] = None,
    grades: Annotated[
        str | None,
        convention(
            "How bpref and rbp read the grades (raw: as ranx, a negative grade judged "
            "non-relevant and RBP's gains the grades themselves)."
        ),
    ] = None,
    propensities: Annotated[
        str | None,
        typer.Option(
            "--propensities",
            metavar="FILE",
            help="Propensity-weighted metrics (precision, recall, dcg, ndcg, map): a CSV, "
            "TSV or Parquet file with columns --user, --item and propensity (the chance "
            "that a relevant item was observed), or --item and propensity (per item). "
            "--estimator defaults to ips with it.",
            show_default=False,
            rich_help_panel="Propensities",
        ),
    ] = None,
    estimator: Annotated[
        str | None,
        typer.Option(
            help="How relevant items are weighed (ips: 1 / "
            "propensity; snips: also normalised by the weights' sum).",
            show_default=False,
            rich_help_panel="Propensities",
        ),
    ] = None,
    propensity_clip: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="The smallest propensity a weight uses: 1 / max(p, clip).",
            show_default=False,
            rich_help_panel="Propensities",
        ),
    ] = None,
    train: TrainOption = None,
    exclude: ExcludeOption = None,
    repeats: Annotated[
        bool,
        typer.Option(
            "--repeats",
            help="Declare repeat consumption instead of --exclude: users may consume an item "
            "again, nothing is removed, and the output says so.",
            rich_help_panel=ITEM_PANEL,
        ),
    ] = False,
    popularity: PopularityOption = None,
    features: FeaturesOption = None,
    item_categories: ItemCategoriesOption = None,
    catalog: CatalogOption = None,
    reference: ReferenceOption = None,
    candidates: CandidatesOption = None,
    correction: CorrectionOption = None,
    min_match: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Warn when the share of qrels users found in a run, or of a run's items "
            "judged in the qrels, is below this (ids with a prefix or of another type match "
            "nothing).",
            rich_help_panel="Input",
        ),
    ] = 0.1,
    allow_unmatched: Annotated[
        bool,
        typer.Option(
            "--allow-unmatched",
            help="Score a run that matches no qrels user or item (every metric 0) instead "
            "of stopping with an error.",
            rich_help_panel="Input",
        ),
    ] = False,
    baseline: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="With several runs: mark significance against this run (a file name); "
            "default: every pair.",
            show_default=False,
            rich_help_panel="Significance",
        ),
    ] = None,
    test: Annotated[
        str,
        typer.Option(
            metavar="[randomization|student|wilcoxon|none]",
            help="With several runs: the paired test behind the significance letters. See "
            "receval compare for p-values and intervals.",
            rich_help_panel="Significance",
        ),
    ] = "randomization",
    permutations: PermutationsOption = 1000,
    user_vectors: VectorsOption = None,
    item_vectors: VectorsOption = None,
    user_ids: UserIdsOption = None,
    item_ids: ItemIdsOption = None,
    similarity: SimilarityOption = "dot",
    k: RetrieveKOption = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Prints one row per run (named by its file name) and one column per
    metric: each metric's mean over the qrels users, exactly as
    receval.evaluate(qrels, run, metrics, ...).mean. Conventions default to
    receval's; --profile sets all of them to a peer's and the other options
    override single ones. With several runs, the table, markdown and latex
    formats add significance letters: a letter after a value names a run
    this one beats significantly (paired --test, Holm-corrected, p < 0.05).
    --user-vectors and --item-vectors add the run of exact retrieval from
    embeddings (receval retrieve), named by the item vectors' file name; its
    --exclude items are masked in the retrieval, before the cut at k.
    """
    from ..conventions import resolve_conventions

    say = Messages(quiet)
    run = list(run or [])
    vectors = (user_vectors, item_vectors)
    if (user_vectors is None) != (item_vectors is None) or (not run and None in vectors):
        raise say.fail("pass --run FILE, or --user-vectors FILE and --item-vectors FILE (or both).")
    metrics = list(metric) if metric else list(DEFAULT_RANK_METRICS)
    conventions: dict[str, Any] = {
        "ties": ties,
        "gain": gain,
        "ap_normalizer": ap_normalizer,
        "rel_threshold": rel_threshold,
        "missing_users": missing_users,
        "empty_users": empty_users,
        "ideal": ideal,
        "gain_grades": gain_grades,
        "zero_users": zero_users,
        "hit_scores": hit_scores,
        "precision_normalizer": precision_normalizer,
        "recall_normalizer": recall_normalizer,
        "discount": discount,
        "depth": depth,
        "judged_only": judged_only,
        "grades": grades,
        "estimator": estimator,
    }
    with say.guard():
        # fail on a bad metric or option before reading any file
        from ..registry import parse_metric, parse_metrics

        # trec_eval's P.5,10 stands for P_5 and P_10: one column each
        metrics = [name for text in metrics for name in parse_metrics(text)]
        # list metrics (catalog_coverage@10, ...): one value per run, by their own function
        listed = {m: s for m, s in ((m, parse_metric(m)) for m in metrics) if _is_list(s)}
        ranked = [m for m in metrics if m not in listed]
        resolve_conventions(profile, "evaluate", **conventions)
        if test not in ("randomization", "student", "wilcoxon", "none"):
            raise say.fail(
                f"--test must be one of randomization, student, wilcoxon, none. Got {test!r}."
            )
        if baseline is not None and baseline not in run_names(run):
            raise say.fail(
                f"--baseline must name one of the runs {run_names(run)}. Got {baseline!r}."
            )
        if listed and (by is not None or per_user):
            raise say.fail(
                f"{'--by' if by is not None else '--per-user'} shows values per user, and the "
                f"list metrics ({', '.join(listed)}) have one value per run; leave them out "
                f"of -m or drop the option."
            )
        weighting: dict[str, Any] = {}
        if propensities is not None:
            weighting["propensities"] = read_propensities(propensities, user, item, say)
        if propensity_clip is not None:
            weighting["propensity_clip"] = propensity_clip
        if exclude is not None and repeats:
            raise say.fail(
                "--exclude removes the seen items and --repeats declares that users consume "
                "items again; pass one of them."
            )
        if repeats:
            weighting["repeats"] = True
        matching = {"min_match": min_match, "allow_unmatched": allow_unmatched}
        items = ItemData(
            train, popularity, features, item_categories, catalog, reference, candidates,
            correction, exclude, user=user, item=item, run_format=run_format, score=score,
            rank=rank_column,
        )  # fmt: skip
        inputs: Any = read_qrels_runs(
            qrels, qrels_format, run, run_format, say,
            user=user, item=item, grade=grade, score=score, rank=rank_column,
        )  # fmt: skip
        if user_vectors is not None and item_vectors is not None:
            ids = read_ids(item_ids, "--item-ids", say)
            inputs = [*inputs, vector_run(
                lambda: read_qrels(qrels, qrels_format, user, item, grade), user_vectors,
                item_vectors, ranked, k, say, metric=similarity,
                user_ids=read_ids(user_ids, "--user-ids", say), item_ids=ids,
                exclude=read_exclude(exclude, ids, user, item, say),
            )]  # fmt: skip
        data: dict[str, Any] | None = None
        reports: list[tuple[str, Any]] = []
        values: dict[str, dict[str, float]] = {}
        for q, name, r in inputs:
            if data is None:  # read once, its ids as the runs hold theirs
                data = items.load(r.item_ids.dtype.kind in "iu", say)
                weighting |= {k: v for k, v in data.items() if k in EVALUATE_INPUTS}
            if ranked:
                reports.append(
                    (name, evaluate_run(q, r, name, ranked, say, profile, conventions, weighting,
                                        matching))
                )  # fmt: skip
            given = {"run": r, "qrels": q, **data}
            values[name] = {m: row_value(s, given, "receval rank -m") for m, s in listed.items()}
    if by is not None:
        with say.guard():
            table = segment_table(reports, metrics, by, user, segment, say)
    elif per_user:
        rows = [
            [scalar(u), name, *(scalar(rep.values[m][i]) for m in metrics)]
            for name, rep in reports
            for i, u in enumerate(rep.users)
        ]
        table = ResultTable(["user", "run", *metrics], rows, keys=2)
    elif len(values) > 1 and test != "none" and output_format in _LETTER_FORMATS and not listed:
        from ..comparison.models import compare
        from ._compare import comparison_output, power_notes, work_line

        doing = f"Testing {len(reports)} runs on {len(metrics)} metrics: "
        with say.guard(), say.progress(doing + work_line(test, permutations, None) + "…"):
            comparison = compare(
                None, dict(reports), metrics, baseline=baseline, test=test,
                n_permutations=permutations, interval=None,
            )  # fmt: skip
        power_notes(comparison, say)
        comparison_output(comparison, output_format, digits, detail=False)
        return
    else:
        if len(values) > 1 and test != "none" and output_format in _LETTER_FORMATS:
            say.note(
                f"no significance letters: the list metrics ({', '.join(listed)}) have no "
                f"per-user values to pair (receval compare tests the other metrics)."
            )
        table = _with_list_values(rank_table(reports, ranked), metrics, values)
    render(table, output_format, digits=digits)


def _is_list(spec: Any) -> bool:
    """A list metric that ``receval.evaluate`` does not compute (catalog_coverage, ...)."""
    return bool(spec.info.family == "list" and spec.info.function != "evaluate")


def _with_list_values(
    table: ResultTable, metrics: list[str], values: dict[str, dict[str, float]]
) -> ResultTable:
    """``table`` (one row per run) with the list metrics' values, columns in ``metrics``'
    order; the runs of ``values`` when ``table`` has no row (no ranking metric)."""
    if not table.rows:
        return ResultTable(["run", *metrics], [[n, *v.values()] for n, v in values.items()])
    cells = [dict(zip(table.columns, row, strict=True)) | values[row[0]] for row in table.rows]
    rows = [[cell["run"], *(cell[m] for m in metrics)] for cell in cells]
    return ResultTable(["run", *metrics], rows, table.title, table.counts)


def segment_table(
    reports: list[tuple[str, Any]], metrics: list[str], path: str, user: str, segment: str,
    say: Messages,
) -> ResultTable:  # fmt: skip
    """``--by``: one row per run and segment of the users in ``path``, then the run's
    overall row (columns run, segment, n_users, metrics)."""
    rows: list[list[Any]] = []
    counts: list[dict[str, Any]] = []
    # read once: every report holds the same qrels users
    segments = read_segments(path, user, segment, reports[0][1].users, say)
    for name, rep in reports:
        seg = rep.by_segment(segments)
        if seg.n_unassigned:
            say.note(
                f"{name}: {seg.n_unassigned} of {rep.n_users} qrels users have no segment in "
                f"{path} (counted in {ALL_SEGMENTS} only)."
            )
        # what the rules left out, on the run's overall row
        overall = {
            "n_users_unassigned": seg.n_unassigned,
            "n_users_skipped": dict(rep.n_users_skipped),
            "n_segments_undefined": dict(seg.n_undefined),
        }
        for record in seg.records():
            label = ALL_SEGMENTS if record["segment"] is None else record["segment"]
            rows.append([name, label, record["n_users"], *(record[m] for m in metrics)])
            counts.append(overall if record["segment"] is None else {})
    return ResultTable(["run", "segment", "n_users", *metrics], rows, counts=counts, keys=2)


# formats in which ``rank`` marks significance with letters (the others keep plain numbers)
_LETTER_FORMATS = (OutputFormat.table, OutputFormat.markdown, OutputFormat.latex)
