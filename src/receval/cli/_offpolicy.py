"""``receval off-policy``: off-policy estimates (IPS, SNIPS, DR) of a logged bandit feedback."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations.

from typing import Annotated, Any

from .._parameters import of_the
from ..exceptions import InputValidationError
from ._columns import read_columns
from ._common import (
    DigitsOption,
    FormatOption,
    InputFormatOption,
    Messages,
    QuietOption,
    app,
    column,
    one_line,
)
from ._impressions import column as read_column
from ._impressions import table_format
from ._items import row_value
from ._output import OutputFormat, ResultTable, render
from ._params import Command, metric_names, metric_option, table_argument
from ._translate import OPTIONS

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
            "ips, snips or dr, with options (ips(clip=10): a note counts the weights "
            "clipped); repeat for more (each computed once). Default: "
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
    from ..metrics._offpolicy import policy_value_report
    from ..registry import resolve

    say = Messages(quiet)
    names = metric_names(metric, list(DEFAULT_OFF_POLICY_METRICS))
    roles = {"reward": reward, "pscore": pscore, "action_dist": target,
             "estimated_rewards": estimated_reward, "estimated_value": estimated_value}  # fmt: skip
    where = "receval off-policy"
    with say.guard():
        specs = {m: resolve(m, family="off_policy", where=f"{where} -m") for m in names}
        model = [_option(role) for role in _NEEDED["dr"] if roles[role] is not None]
        if model and all(spec.info.name != "dr" for spec in specs.values()):
            raise say.fail(
                f"{where}: {model[0]} is given, but no estimate is dr (-m "
                f"{', -m '.join(names)}), the one that reads the reward model; add -m dr, "
                f"or drop {' and '.join(model)}."
            )
        columns = {role: col for role, col in roles.items() if col is not None}
        fmt = table_format(input_format, file, say)
        named = {col: _option(role) for role, col in columns.items()}  # no column: its option
        table = read_columns(file, named, where, say, fmt=fmt)
        if not table.num_rows:
            from ..data.io import header_only

            raise say.fail(str(header_only(file)))
        given = {role: read_column(table, col, _option(role), file, fmt, where)
                 for role, col in columns.items()}  # fmt: skip
        try:
            reports = {text: row_value(spec, _inputs(spec.info.name, given), f"{where} -m",
                                       needed=_NEEDED.get(spec.info.name, ()),
                                       func=policy_value_report)
                       for text, spec in specs.items()}  # fmt: skip
        except InputValidationError as exc:
            raise say.fail(_in_cli_words(exc, columns, file, fmt)) from None
    counts = {text: report.counts() for text, report in reports.items() if report.counts()}
    for text, count in counts.items():
        say.note(_clipped(text, count))
    row = [table.num_rows, *(report.value for report in reports.values())]
    result = ResultTable(["rounds", *names], [row], counts=[counts] if counts else None)
    render(result, output_format, digits=digits)


#: The inputs an estimate needs beyond the rounds' (with one target probability per
#: round): dr's reward model
_NEEDED = {"dr": ("estimated_rewards", "estimated_value")}


def _inputs(estimator: str, given: dict[str, Any]) -> dict[str, Any]:
    """The inputs of one estimate: the reward model's columns for dr only."""
    model = () if estimator == "dr" else _NEEDED["dr"]
    return {"estimator": estimator, **{k: x for k, x in given.items() if k not in model}}


def _clipped(text: str, counts: dict[str, Any]) -> str:
    """The note of the rounds whose importance weight an estimate's clip lowered."""
    n, clip = counts["n_rounds_clipped"], counts["clip"]
    rounds = of_the(n, counts["n_rounds"], "round", then="has")
    lowered = "clipped to it" if n else "so nothing is clipped"
    return f"{text}: {rounds} an importance weight above {clip:g}, {lowered}."


def _option(role: str) -> str:
    """The option of a parameter of the estimators (``action_dist``: ``--target``)."""
    return OPTIONS[role].split()[0]


def _in_cli_words(exc: InputValidationError, columns: dict[str, str], path: str, fmt: str) -> str:
    """An estimator's error on the columns read: at the file and line of its row, the
    parameter it is about as the option and column that gave it, and its fix ``pass
    the ...`` (another argument) as the option to name another column with."""
    from ..data._open import file_error

    where, said = file_error(exc, path, exc.row, lines=fmt in ("csv", "tsv"))
    text = one_line(said)
    func, _, rest = text.partition(": ")
    role = rest.split(" ", 1)[0]
    if not func.endswith("_estimate") or role not in columns:
        return text  # not about one column's values (named by row_value already)
    option = _option(role)
    body, fix = rest[len(role) :], ""
    if "; " in body:
        body, fix = body.rsplit("; ", 1)
    if fix.startswith("pass the "):  # what the column holds, up to a remark in brackets
        what = fix.removeprefix("pass ").split(" (")[0].removesuffix(".")
        fix = f"fix the value, or name the column of {what} with {option}."
    return f"{where}: receval off-policy: {option} {columns[role]}{body}{'; ' * bool(fix)}{fix}"
