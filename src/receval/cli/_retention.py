"""``receval retention``: new, login and returning users and day-N retention."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations to
# build the command, and would compile and evaluate each one given as a string every
# time the command is built (once per process).

from typing import Annotated

import typer

from .._parameters import counted
from ._common import (
    DaysOption,
    DigitsOption,
    FormatOption,
    InputFormatOption,
    Messages,
    PeriodOption,
    QuietOption,
    RetentionTable,
    RetentionValues,
    TimeOption,
    TimeUnitOption,
    TzOption,
    UserOption,
    app,
    count_retention,
    displayed,
    parse_days,
    retention_columns,
)
from ._impressions import (
    table_format,
)
from ._output import OutputFormat, ResultTable, render, rows_of
from ._params import Command, table_argument


@app.command("retention", cls=Command)
def retention_command(
    file: Annotated[str, table_argument("Activity events", "event")],
    user: UserOption = "user",
    time: TimeOption = "time",
    signup: Annotated[
        str | None,
        typer.Option(
            metavar="COL",
            help="Column of signup times, read as those of --time (epoch numbers in "
            "--time-unit); without it a user's cohort is the period of their first event.",
            show_default=False,
        ),
    ] = None,
    period: PeriodOption = "day",
    days: DaysOption = "1,3,7,30",
    tz: TzOption = "UTC",
    time_unit: TimeUnitOption = None,
    before_signup: Annotated[
        str,
        typer.Option(metavar="[keep|drop|error]", help="Events before their user's signup."),
    ] = "keep",
    table: Annotated[
        RetentionTable,
        typer.Option(
            help="period: one row per period; cohort: each cohort's day-N retention for N "
            "in --days; full: every N from 0 (rates or counts: --values). The columns are "
            "described above.",
            case_sensitive=False,
        ),
    ] = RetentionTable.cohort,
    values: Annotated[
        RetentionValues,
        typer.Option(
            help="Rates or user counts in --table full (the only table it applies to).",
            case_sensitive=False,
        ),
    ] = RetentionValues.rate,
    input_format: InputFormatOption = None,
    output_format: FormatOption = OutputFormat.table,
    digits: DigitsOption = 4,
    quiet: QuietOption = False,
) -> None:
    """The columns are those of RetentionReport.to_frame() (--table period),
    cohort_frame() (--table cohort) and table_frame() (--table full); periods
    and cohorts are ISO dates (the first day of the period).

    \b
    --table period, one row per period:
      new_users                 users whose cohort is the period (their signup,
                                or without --signup their first event, is in it)
      login_users               users with an event (or their signup) in it
      returning_users           login_users - new_users: users of an earlier
                                cohort (or signed up before the first period)
      login_users_per_new_user  login_users / new_users: not a rate, above 1
                                when returning users outnumber new ones; nan
                                without new users
    --table cohort, one row per cohort (users new in the period):
      new_users                 the cohort's size
      <period>_N                share of the cohort with an event N periods
                                later, N in --days; nan where that period is
                                after the last one (not observed)
    --table full: <period>_N for every N from 0, rates or counts (--values);
      nan where that period is after the last one (not observed), counts too
      (table_frame(values="count") has 0 there, as in an observed cell)
    """
    say = Messages(quiet)
    if values is RetentionValues.count and table is not RetentionTable.full:
        raise say.fail(
            f"--values count is for --table full (the cohort x N table of user counts). Got "
            f"--table {table.value}; pass --table full --values count, or leave out --values."
        )
    offsets = parse_days(days, say)
    with say.guard():
        report = count_retention(
            file, table_format(input_format, file, say), say, user=user, time=time,
            signup=signup, period=period, days=offsets, tz=tz, time_unit=time_unit,
            before_signup=before_signup,
        )  # fmt: skip
    columns = retention_columns(report, table, values)
    names, rows = rows_of(columns)
    title = (
        f"{displayed(file)}: {counted(report.n_events, 'event')}, "
        f"{counted(report.n_users, 'user')} ({report.tz})"
    )
    # JSON carries the counts of each note with every row (CSV and TSV as columns)
    noted: dict[str, object] = {}
    if report.n_events_before_signup:
        noted.update({
            "events_before_signup": report.n_events_before_signup,
            "users_with_events_before_signup": report.n_users_events_before_signup,
            "events_dropped": report.n_events_dropped,
            "before_signup": report.before_signup,
        })  # fmt: skip
    if report.signup_note:
        noted.update({
            "users_signup_before_window": report.n_users_signup_before_window,
            "users_signup_after_window": report.n_users_signup_after_window,
            "users_without_signup": report.n_users_without_signup,
        })  # fmt: skip
    counts = [dict(noted) for _ in rows] if noted else None
    render(ResultTable(names, rows, title=title, counts=counts), output_format, digits=digits)
