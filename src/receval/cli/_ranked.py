"""What the commands that read qrels and runs share (``rank``, ``compare``, ``gate``,
``report``): reading the files, evaluating a run with its notes, the table of means.

Free of Typer and rich, so that ``receval rank`` can run without loading them
(:func:`receval.cli.main`).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Sequence
from enum import Enum
from typing import Any

from .._parameters import counted, verb
from ..exceptions import InputValidationError, InvalidParameterError
from ._output import ResultTable
from ._streams import Messages

__all__ = [
    "ALL_SEGMENTS",
    "DEFAULT_RANK_METRICS",
    "RankedFormat",
    "check_segment_labels",
    "evaluate_run",
    "given_once",
    "per_user_table",
    "rank_table",
    "ranked_format",
    "read_qrels_runs",
    "read_runs",
    "read_segments",
    "report_notes",
    "run_names",
    "tie_notes",
    "unknown_users_note",
]

#: The segment of the overall rows of ``--by`` tables.
ALL_SEGMENTS = "(all)"

#: Metrics of ``receval rank`` when no ``-m`` is given.
DEFAULT_RANK_METRICS = ("ndcg@10", "map@100", "mrr", "recall@100", "precision@10")


class RankedFormat(str, Enum):
    """File formats of qrels and runs."""

    trec = "trec"
    csv = "csv"
    tsv = "tsv"
    parquet = "parquet"


def ranked_format(fmt: RankedFormat | None, path: str) -> str:
    """The given format, else the suffix's, else TREC (run files often have no suffix)."""
    from ..data.io import infer_format

    if fmt is not None:
        return fmt.value
    return infer_format(path) or "trec"


def given_once(
    values: Sequence[str],
    options: Sequence[str],
    what: str,
    keys: Sequence[Any] | None = None,
) -> None:
    """Refuse a value that repeatable options give twice (``options[i]`` gave
    ``values[i]``; ``keys``: what makes two values the same, default the values): it
    would be compared with itself, or counted once without a word."""
    seen: dict[Any, int] = {}
    for i, key in enumerate(values if keys is None else keys):
        j = seen.setdefault(key, i)
        if j == i:
            continue
        first, again = f"{options[j]} {values[j]!r}", f"{options[i]} {values[i]!r}"
        said = (
            f"{first} is given twice"
            if first == again
            else f"{first} and {again} name the same {what}"
        )
        raise InvalidParameterError(f"{said}; pass each {what} once.")


def run_names(paths: list[str], options: Sequence[str] | None = None) -> list[str]:
    """File names, or the paths as given when two runs share a file name; the same
    file twice is an error naming its options (``options[i]`` gave ``paths[i]``,
    default ``--run``): it would compare a run with itself under one name."""
    keys = [os.path.realpath(p) for p in paths]
    given_once(paths, options or ["--run"] * len(paths), "run file", keys)
    names = [os.path.basename(os.path.normpath(p)) for p in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    return names


def read_qrels_runs(
    qrels: str,
    qrels_format: RankedFormat | None,
    runs: list[str],
    run_format: RankedFormat | None,
    say: Messages,
    *,
    user: str = "user",
    item: str = "item",
    grade: str = "grade",
    score: str = "score",
    rank: str | None = None,
    options: Sequence[str] | None = None,
    score_option: str = "--score",
) -> Iterator[tuple[Any, str, Any]]:
    """``(qrels, name, run)`` for each run: ``Qrels.from_file`` and :func:`read_runs`
    (``options``: the option that gave each run, as for :func:`run_names`;
    ``score_option``: the option of the runs' score column, which names it in errors).

    The qrels are read on a thread of their own while the first run is read (the
    compiled reader lets go of the interpreter, so the two files share the cores);
    a bad qrels file is still reported before a bad run, as if read first.
    """
    import threading

    from ..data._ranked import Qrels

    read: dict[str, Any] = {}

    def work() -> None:
        from ._columns import columns_named  # only here: rank's start-up loads none

        try:
            fmt = ranked_format(qrels_format, qrels)
            named = {user: "--user", item: "--item", grade: "--grade"}
            with format_option("--qrels-format"), columns_named(named, files={qrels: fmt}):
                read["qrels"] = Qrels.from_file(
                    qrels, user=user, item=item, grade=grade, file_format=fmt
                )
        except BaseException as exc:  # handed to the reading thread by result()
            read["error"] = exc

    thread = threading.Thread(target=work, name="receval-qrels", daemon=True)
    try:
        thread.start()
    except RuntimeError:  # no thread to be had (its stack is address space: ulimit -v)
        work()

    def result() -> Any:
        if thread.ident is not None:
            thread.join()
        if "error" in read:
            raise read["error"]
        return read["qrels"]

    try:
        pairs = read_runs(runs, run_format, say, user=user, item=item, score=score, rank=rank,
                          options=options, score_option=score_option)  # fmt: skip
        for name, run in pairs:
            yield result(), name, run
    except Exception:
        result()  # the qrels' error first
        raise


@contextlib.contextmanager
def format_option(option: str | None) -> Iterator[None]:
    """The library's fix of a file read in another format (``pass file_format='csv'``)
    as the option of the file read (``pass --qrels-format csv``), or, with ``None``,
    as the name to give a file whose format its suffix alone gives (``name the file
    .csv``): the commands' other files take ``--input-format``."""
    try:
        yield
    except InputValidationError as exc:
        if option is None:
            from ._translate import by_suffix

            text = by_suffix(str(exc))
        else:
            text = re.sub(r"file_format='(\w+)'", rf"{option} \1", str(exc))
        if text == str(exc):
            raise
        raise InputValidationError(text) from None


def read_runs(
    paths: list[str],
    file_format: RankedFormat | None,
    say: Messages,
    *,
    user: str = "user",
    item: str = "item",
    score: str = "score",
    rank: str | None = None,
    options: Sequence[str] | None = None,
    score_option: str = "--score",
) -> Iterator[tuple[str, Any]]:
    """``(name, Run)`` of each path, read one at a time (named by :func:`run_names`, with
    ``options``; a column not in a file named by its option, ``score_option`` for the
    score's)."""
    from ..data._ranked import Run
    from ._columns import columns_named

    named = {user: "--user", item: "--item", score: score_option, rank: "--rank"}
    for path, name in zip(paths, run_names(paths, options), strict=True):
        fmt = ranked_format(file_format, path)
        with (
            say.progress(f"Reading {say.sized(path)}…"),
            format_option("--run-format"),
            columns_named(named, files={path: fmt}),
        ):
            run = Run.from_file(
                path,
                user=user,
                item=item,
                score=score,
                rank=rank,
                file_format=fmt,
                name=name,
            )
        yield name, run


def evaluate_run(
    qrels: Any,
    run: Any,
    name: str,
    metrics: list[str],
    say: Messages,
    profile: str | None = None,
    conventions: dict[str, Any] | None = None,
    weighting: dict[str, Any] | None = None,
    matching: dict[str, Any] | None = None,
    catalogue: Any = None,
) -> Any:
    """``receval.evaluate`` of one run, with notes on users in only one of qrels and run,
    run items no qrels judge, and values that depend on the order of tied scores
    (``weighting``: its ``propensities`` and ``propensity_clip``, if any; ``matching``:
    its ``min_match`` and ``allow_unmatched``; ``catalogue``: for a run retrieved from
    item vectors, their ids, which the qrels' items must match, as
    :func:`receval.evaluate_embeddings` matches them, rather than the items retrieved:
    a poor model's lists may miss every judged item)."""
    from ..ranking.evaluation import RunBatches, evaluate

    with say.progress(
        f"Computing {', '.join(metrics)} of {name} ({counted(run.n_rows, 'row')}, "
        f"{counted(qrels.n_users, 'qrels user')})…"
    ):
        report = evaluate(
            qrels,
            run if catalogue is None else RunBatches(lambda: iter([run]), run.name, catalogue),
            metrics,
            profile=profile,
            **(conventions or {}),
            **(weighting or {}),
            **(matching or {}),
        )
    report_notes(report, name, metrics, say)
    return report


def report_notes(report: Any, name: str, metrics: list[str], say: Messages) -> None:
    """The notes on a run's report (:func:`evaluate_run`): users in only one of qrels
    and run, seen items removed, run rows outside the candidates, users left out of
    a mean, tie-dependent values."""
    if report.n_users_missing:
        missing = report.n_users_missing
        say.note(
            f"{name}: {missing:,} of {counted(report.n_users, 'qrels user')} "
            f"{verb(missing, 'is')} absent from the run."
        )
    if report.n_run_only_users:
        only = report.n_run_only_users
        say.note(
            f"{name}: {counted(only, 'run user')} {verb(only, 'is')} not in the qrels (ignored)."
        )
    if report.masking is not None:  # --exclude or --repeats
        masking = report.masking
        absent = masking.n_users_without_history
        note = (
            ""
            if masking.repeats or not absent
            else f"; {counted(absent, 'run user')} {verb(absent, 'has')} no history"
        )
        say.note(f"{name}: {masking.describe()}{note}.")
    if report.sampling is not None:  # --candidates
        say.note(f"{name}: {report.sampling.describe()}.")
    for metric in metrics:
        skipped = report.n_users_skipped[metric]
        if skipped:
            say.note(
                f"{name}: {metric} leaves {skipped:,} of {counted(report.n_users, 'user')} out of "
                f"its mean ({_left_out(report, metric)}; see --missing-users, --empty-users and "
                f"--zero-users)."
            )
    for metric, n in report.n_pairs_propensity_clipped.items():
        if metric in metrics:
            pairs = "pair has" if n == 1 else "pairs have"
            say.note(
                f"{name}: {metric}: {n:,} relevant (user, item) {pairs} a propensity below "
                f"--propensity-clip, raised to it (their weight lowered to 1 / the clip)."
            )
    tie_notes(report, name, metrics, say)


def _left_out(report: Any, metric: str) -> str:
    """Why a metric's mean leaves users out, by the report's count of each rule
    (``n_users_skipped_by``)."""
    words = {
        "empty_users": "without a relevant item",
        "missing_users": "by --missing-users skip",
        "zero_users": "by --zero-users skip",
        "no_value": "without a value",
    }
    by = report.n_users_skipped_by[metric]
    return ", ".join(f"{by[reason]:,} {words[reason]}" for reason in words if by[reason])


def tie_notes(report: Any, name: str, metrics: list[str], say: Messages) -> None:
    """A note per metric whose value depends on the order of tied scores for some users:
    how many, the order used, and the mean with ``ties=average``."""
    from ..ranking.specs import TIE_ORDERS

    for metric in metrics:
        n_tied = report.n_users_tie_dependent.get(metric, 0)
        if n_tied:
            ties = report.conventions[metric].ties
            mean = report.mean_ties_average[metric]
            averaged = (
                f"its mean is {mean:.6g}"
                if mean == mean
                else "its mean is not computed here (too costly for some users' tied blocks)"
            )
            say.note(
                f"{name}: {metric} depends on the order of tied scores for {n_tied:,} of "
                f"{counted(report.n_users, 'user')}, whose ties are ordered {TIE_ORDERS[ties]}; "
                f"with "
                f"--ties average (the expected value over every order) {averaged}."
            )


def read_segments(path: str, user: str, segment: str, users: Any, say: Messages) -> Any:
    """The (user, segment) columns of a CSV, TSV or Parquet file (``--by``), as an Arrow
    table, both read as ids as ``ctr --by`` reads its segments (``007`` and ``7`` are two
    segments); the user ids as int64 when the report's ``users`` are integers and the
    file's are too."""
    import numpy as np

    from ..data._encode import factorize
    from ..data.io import infer_format
    from ._columns import read_columns

    fmt = infer_format(path)
    if fmt not in ("csv", "tsv", "parquet"):
        fmt = "csv"
    options = {user: "--user", segment: "--segment"}
    ints = (user,) if np.asarray(users).dtype.kind in "iu" else ()  # integer users (Parquet)
    frame = read_columns(path, options, "--by", say, fmt=fmt, ids=(user, segment), integers=ints)
    from ..data._open import place
    from ..segments.report import first_repeat

    row = first_repeat(factorize(frame.column(user), "--by", "receval")[0])
    if row is not None:
        raise say.fail(
            f"{place(path, row, lines=fmt != 'parquet')}: --by names the user "
            f"{frame.column(user)[row].as_py()!r} twice; give each user one segment."
        )
    check_segment_labels(frame.column(segment), f"--segment {segment}", path, fmt, "--by")
    return frame


def unknown_users_note(n_unknown: int, path: str, say: Messages) -> None:
    """The note of the users of the ``--by`` file that are not qrels users (ignored: a
    user id mistyped there leaves its segment short), if any."""
    if n_unknown:
        are = (
            "user of {} is not a qrels user"
            if n_unknown == 1
            else "users of {} are not qrels users"
        )
        say.note(f"{n_unknown:,} {are.format(path)} (ignored).")


def check_segment_labels(labels: Any, option: str, path: str, fmt: str, where: str) -> None:
    """Raise at the file and line of the first segment labelled ``(all)`` in the Arrow
    column ``labels`` (``option``'s): the label of the overall rows, which such a
    segment's rows could not be told apart from in the output."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..data._open import place
    from ..data._string_buffers import is_view

    if pa.types.is_dictionary(labels.type):  # a Parquet file's categories
        labels = labels.cast(labels.type.value_type)
    if is_view(labels.type):
        labels = labels.cast(pa.large_string())
    elif not (pa.types.is_string(labels.type) or pa.types.is_large_string(labels.type)):
        return
    # a pattern without wildcards matches the whole label; pc.equal would take a scalar,
    # whose construction imports pandas
    rows = pc.indices_nonzero(pc.match_like(labels, ALL_SEGMENTS))
    if len(rows):
        row = rows[0].as_py()
        raise InputValidationError(
            f"{place(path, row, lines=fmt in ('csv', 'tsv'))}: {where}: {option} holds the "
            f"label {ALL_SEGMENTS!r}, which the output gives its overall rows; rename that "
            f"segment."
        )


def rank_table(
    reports: list[tuple[str, Any]], metrics: list[str], title: str | None = None
) -> ResultTable:
    """One row per run: its name and the mean of each metric, with the counts."""
    from ..report.records import ranking_records

    records = ranking_records(dict(reports), metrics)
    columns = ["run", *metrics]
    rows = [[record[c] for c in columns] for record in records]
    return ResultTable(columns, rows, title=title, counts=[r["counts"] for r in records])


def per_user_table(reports: list[tuple[str, Any]], metrics: list[str]) -> ResultTable:
    """``--per-user``: one row per user and run, the user's value of each metric."""
    from ._output import scalar

    rows = [
        [scalar(u), name, *(scalar(rep.values[m][i]) for m in metrics)]
        for name, rep in reports
        for i, u in enumerate(rep.users)
    ]
    return ResultTable(["user", "run", *metrics], rows, keys=2)
