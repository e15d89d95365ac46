"""``receval ctr``: pointwise CTR metrics of score columns."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

from typing import Annotated

import typer

from .._parameters import counted
from ._common import (
    DEFAULT_CTR_METRICS,
    ByOption,
    DigitsOption,
    FormatOption,
    GroupOption,
    InputFormatOption,
    LabelOption,
    Messages,
    QuietOption,
    ScoresOption,
    WeightOption,
    app,
    displayed,
)
from ._impressions import (
    ctr_metrics,
    ctr_rows,
    ctr_segment_table,
    ctr_table,
    read_impressions,
    sigmoid,
)
from ._output import OutputFormat, render
from ._params import Command, metric_option, table_argument


@app.command(cls=Command)
def ctr(
    file: Annotated[str, table_argument("Impression log", "impression")],
    label: LabelOption[str],
    score: ScoresOption[list[str]],
    group: GroupOption = None,
    weight: WeightOption = None,
    by: ByOption = None,
    metric: Annotated[
        list[str] | None,
        metric_option(
            "A pointwise or grouped metric, by name, alias or metric string with options "
            "(gauc(weighting=clicks), log_loss(eps=1e-7)); repeat for more. Default: "
            f"{', '.join(DEFAULT_CTR_METRICS)} (gauc only with --group). receval metrics "
            "--family pointwise lists them."
        ),
    ] = None,
    logits: Annotated[
        bool,
        typer.Option(
            "--logits",
            help="The --score columns are logits: apply the sigmoid 1 / (1 + exp(-x)) to "
            "them before every metric (probability metrics then apply).",
        ),
    ] = False,
    negative_sampling_rate: Annotated[
        float | None,
        typer.Option(
            "--negative-sampling-rate",
            help="The share w in (0, 1] of the negatives kept in the model's training data: "
            "the probability metrics (logloss, ne, pcoc, copc, ece, ...) recalibrate each "
            "probability to p / (p + (1 - p) / w) first; metrics of the scores' order (auc, "
            "gauc) are unchanged by it.",
        ),
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Exit with status 2 when a metric is not applicable to a column (by "
            "default it is left empty, with a note, and the others are computed).",
        ),
    ] = False,
    input_format: InputFormatOption = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """Prints one row per --score column (column "score") and one column per
    metric, each value exactly as the library function on those columns
    returns it (e.g. receval.roc_auc_score(label, score)). With --by, one row
    per score column and segment, then the score column's overall row.

    Metrics of probabilities (logloss, pcoc, brier, ...) on a column with
    values outside [0, 1] are not applicable: left empty, the reason in a note
    and in the JSON's counts (not_applicable); pass --logits when the scores
    are logits, --strict to exit 2 instead.
    """
    say = Messages(quiet)
    with say.guard():
        metrics = ctr_metrics(metric, group, say, negative_sampling_rate)
        data = read_impressions(
            file, input_format, say, "receval ctr", label=label, score=score, group=group,
            weight=weight, by=by,
        )  # fmt: skip
        if logits:
            data = data._replace(scores=[(col, sigmoid(v)) for col, v in data.scores])
        title = f"{displayed(file)}: {counted(data.n_rows, 'impression')}"
        if negative_sampling_rate is not None:
            rate = f"{negative_sampling_rate:g}"
            title += f", probabilities recalibrated for negative sampling rate {rate}"
        if by is not None:
            table = ctr_segment_table(data, metrics, say, title, skip_inapplicable=True)
        else:
            rows = ctr_rows(
                data.y_true, data.scores, metrics, data.groups, data.sample_weight, say, data,
                skip_inapplicable=True,
            )  # fmt: skip
            table = ctr_table(rows, metrics, title, n_rows=data.n_rows)
        not_applicable = [c.get("not_applicable", {}) for c in table.counts or ()]
        skipped = set().union(*not_applicable)
        if strict and skipped:
            raise say.fail(
                f"--strict: {', '.join(sorted(skipped))} not applicable (see the notes); pass "
                f"--logits if the scores are logits, or leave out --strict."
            )
        if sum(len(n) == len(metrics) for n in not_applicable) == len(data.scores):
            raise say.fail(
                "no metric applies to these scores (see the notes); pass --logits if the "
                "scores are logits, or ask for a metric of scores such as -m auc."
            )
    render(table, output_format, digits=digits)
