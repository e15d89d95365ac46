"""``receval off-policy``: off-policy estimates (IPS, SNIPS, DR) of a logged bandit feedback."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations.

from typing import Annotated

from ._common import (
    DigitsOption,
    FormatOption,
    InputFormatOption,
    Messages,
    QuietOption,
    app,
    column,
)
from ._impressions import table_format
from ._items import read_columns, row_value
from ._output import OutputFormat, ResultTable, render
from ._params import Command, metric_names, metric_option, table_argument

#: Estimates of ``receval off-policy`` when no ``-m`` is given.
DEFAULT_OFF_POLICY_METRICS = ("ips", "snips")


@app.command("off-policy", cls=Command)
def off_policy(
    file: Annotated[str, table_argument("Logged feedback", "round")],
    reward: Annotated[str, column(help="Column of the observed rewards.")] = "reward",
    pscore: Annotated[
        str, column(help="Column of the logging policy's probability of its action.")
    ] = "pscore",
    target: Annotated[
        str, column(help="Column of the target policy's probability of the logged action.")
    ] = "target",
    estimated_reward: Annotated[
        str | None,
        column(
            help="Column of the reward model's estimate of the logged action (dr).",
            show_default=False,
        ),
    ] = None,
    estimated_value: Annotated[
        str | None,
        column(
            help="Column of the reward model's value of the target policy (dr).", show_default=False
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        metric_option(
            "ips, snips or dr, with options (ips(clip=10)); repeat for more (each computed "
            "once). Default: "
            f"{', '.join(DEFAULT_OFF_POLICY_METRICS)}.",
            "Metrics",
        ),
    ] = None,
    input_format: InputFormatOption = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """One row: each estimate of the mean reward the target policy would get,
    from the rewards the logging policy got, as receval.ips_estimate,
    snips_estimate and dr_estimate with one number per round (the target
    policy's probability of the logged action; for dr the reward model's
    estimate of that action and its value of the target policy).
    """
    from ..data._arrow import to_numpy
    from ..registry import resolve

    say = Messages(quiet)
    names = metric_names(metric, list(DEFAULT_OFF_POLICY_METRICS))
    roles = {"reward": reward, "pscore": pscore, "action_dist": target,
             "estimated_rewards": estimated_reward, "estimated_value": estimated_value}  # fmt: skip
    with say.guard():
        specs = {m: resolve(m, family="off_policy", where="receval off-policy -m") for m in names}
        columns = {role: col for role, col in roles.items() if col is not None}
        table = read_columns(file, list(dict.fromkeys(columns.values())), "receval off-policy",
                             say, file_format=table_format(input_format, file, say))  # fmt: skip
        if not table.num_rows:
            raise say.fail(f"{file}: the log has no rows, only its header; pass a log with rows.")
        given = {role: to_numpy(table.column(col)) for role, col in columns.items()}
        row = [row_value(spec, given, "receval off-policy -m") for spec in specs.values()]
    render(ResultTable(["rounds", *names], [[table.num_rows, *row]]), output_format, digits=digits)
