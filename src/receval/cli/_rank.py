"""``receval rank``: ranking metrics of one or more runs against qrels (its options and
help; :func:`receval.cli._rank_run.run_rank` does the work)."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

from typing import Annotated

import typer

from ..exceptions import DEFAULT_MIN_MATCH
from ._common import (
    AllowUnmatchedOption,
    DigitsOption,
    FormatOption,
    GradeOption,
    ItemOption,
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
)
from ._items import (
    ITEM_PANEL,
    CandidatesOption,
    CatalogOption,
    CorrectionOption,
    ExcludeOption,
    FeaturesOption,
    ItemCategoriesOption,
    PopularityOption,
    ReferenceOption,
    TrainOption,
)
from ._output import OutputFormat
from ._params import Command
from ._retrieve import (
    ItemIdsOption,
    RetrieveKOption,
    SimilarityOption,
    UserIdsOption,
    VectorsOption,
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
            "trec_eval's ndcg; all: every judged grade, a negative one too)."
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
    recall_rounding: Annotated[
        str | None,
        convention("iprec's relevant items at recall x (trec9: int(x * R + 0.9), as pytrec_eval)."),
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
    ] = DEFAULT_MIN_MATCH,
    allow_unmatched: AllowUnmatchedOption = False,
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
    options = dict(locals())  # every option, by name
    from ._rank_run import run_rank

    run_rank(**options)
