"""What the CTR commands (``ctr``, ``compare``, ``report``) share: the impression log, its tables.

No metric is computed here: the rows call the library's functions.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

from ._common import ALL_SEGMENTS, DEFAULT_CTR_METRICS, Messages, TableFormat, one_line
from ._output import ResultTable

__all__ = [
    "Impressions",
    "column",
    "ctr_metrics",
    "ctr_rows",
    "ctr_segment_table",
    "ctr_table",
    "read_impressions",
    "skipped_groups_note",
    "table_format",
]


def table_format(fmt: TableFormat | None, path: str, say: Messages) -> str:
    """The given format, else the suffix's; an error when neither tells."""
    from ..data.io import infer_format

    if fmt is not None:
        return fmt.value
    found = infer_format(path)
    if found in ("csv", "tsv", "parquet") or not os.path.exists(path):
        return found or "csv"  # a missing file is reported by the reader
    raise say.fail(
        f"cannot tell the format of {path!r} from its suffix; pass --input-format csv, tsv "
        f"or parquet."
    )


def column(table: Any, name: str) -> Any:
    """A numeric Arrow column as a NumPy array (nulls become nan)."""
    return table.column(name).to_numpy()


class Impressions(NamedTuple):
    """The columns of an impression log that the CTR commands use."""

    n_rows: int
    y_true: Any
    scores: list[tuple[str, Any]]  # (column, values) of each --score
    groups: Any  # an Arrow array of ids, or None
    sample_weight: Any
    segments: Any = None  # an Arrow array of segment labels (--by), or None
    path: str | None = None  # the file read, and its format (csv, tsv, parquet)
    file_format: str | None = None

    def place(self, exc: BaseException) -> str:
        """``"<file>:<line>: "`` (``"<file>: row N: "`` in Parquet, ``"<file>: "`` when
        the row is not known) of a data error in the columns read from the file;
        ``""`` for other errors, or columns not read from a file."""
        from ..data._open import place
        from ..exceptions import InputValidationError

        if self.path is None or not isinstance(exc, InputValidationError):
            return ""
        if self.path in str(exc):
            return ""
        return place(self.path, exc.row, lines=self.file_format in ("csv", "tsv")) + ": "


def read_impressions(
    path: str,
    file_format: TableFormat | None,
    say: Messages,
    command: str,
    *,
    label: str,
    score: list[str],
    group: str | None = None,
    weight: str | None = None,
    by: str | None = None,
) -> Impressions:
    """Read the label, score, group, weight and segment columns of an impression log."""
    from ..data.io import read_table

    fmt = table_format(file_format, path, say)
    columns = list(dict.fromkeys([label, *score, *(c for c in (group, weight, by) if c)]))
    ids = tuple(c for c in (group, by) if c)
    with say.progress(f"Reading {say.sized(path)}…"):
        table = read_table(path, columns, command, fmt, id_columns=ids)
    return Impressions(
        n_rows=table.num_rows,
        y_true=column(table, label),
        scores=[(col, column(table, col)) for col in score],
        groups=table.column(group).combine_chunks() if group else None,
        sample_weight=column(table, weight) if weight else None,
        segments=table.column(by).combine_chunks() if by else None,
        path=path,
        file_format=fmt,
    )


def ctr_metrics(metric: list[str] | None, group: str | None, say: Messages) -> dict[str, Any]:
    """The pointwise and grouped metrics asked for (default: DEFAULT_CTR_METRICS), by name
    as written (lower case), each resolved by the registry (``gauc(weighting=clicks)``)."""
    if metric:
        names = [m.strip().lower() for m in metric]
    else:
        names = [m for m in DEFAULT_CTR_METRICS if group is not None or m != "gauc"]
    from ..registry import resolve
    from ..registry.pointwise import pointwise_adapter

    metrics = {
        name: pointwise_adapter(
            resolve(name, family=("pointwise", "grouped"), where="receval ctr -m")
        )
        for name in dict.fromkeys(names)
    }
    for name, spec in metrics.items():
        if spec.needs_group and group is None:
            raise say.fail(
                f"metric {name!r} needs groups; pass --group COL (e.g. the user id column)."
            )
    return metrics


def ctr_rows(
    y_true: Any,
    scores: list[tuple[str, Any]],
    metrics: dict[str, Any],
    groups: Any,
    sample_weight: Any,
    say: Messages,
    source: Impressions | None = None,
) -> list[tuple[list[Any], dict[str, Any]]]:
    """Per score column, the row ``[name, value, ...]`` (values as the library returns them)
    and the counts of what a metric left out (``{metric: {...}}``), noted on stderr.
    ``source``: the impressions read from a file, whose line a data error names."""
    from ..exceptions import RecevalError

    rows = []
    for col, y_score in scores:
        row: list[Any] = [col]
        row_counts: dict[str, Any] = {}
        for name, spec in metrics.items():
            with say.progress(f"Computing {name} of {col}"):
                try:
                    args = (y_true, y_score)
                    kwargs = {
                        "groups": groups if spec.needs_group else None,
                        "sample_weight": sample_weight,
                    }
                    if spec.counted is not None:
                        value, counts = spec.counted(*args, **kwargs)
                        row_counts[name] = counts
                    else:
                        value = spec.func(*args, **kwargs)
                except RecevalError as exc:  # name the column: the message names y_score
                    where = "" if source is None else source.place(exc)
                    raise say.fail(f"{where}{name} of --score {col}: {one_line(exc)}") from None
            row.append(value)
        for name, counts in row_counts.items():
            skipped_groups_note(col, name, counts, say)
        rows.append((row, row_counts))
    return rows


def skipped_groups_note(col: str, name: str, counts: dict[str, Any], say: Messages) -> None:
    """The note on stderr of the groups a grouped metric (gauc) left out, if any."""
    if counts.get("n_groups_skipped"):
        say.note(
            f"{col}: {name} skips {counts['n_groups_skipped']:,} of {counts['n_groups']:,} "
            f"groups ({counts['n_rows_skipped']:,} rows) without both a click and a non-click."
        )


def ctr_table(
    counted: list[tuple[list[Any], dict[str, Any]]],
    metrics: dict[str, Any],
    title: str | None = None,
    n_rows: int | None = None,
) -> ResultTable:
    """The rows of :func:`ctr_rows` as a table (column ``score``, then one per metric);
    ``n_rows``, when given, is added to each row's counts."""
    extra = {} if n_rows is None else {"n_rows": int(n_rows)}
    return ResultTable(
        ["score", *metrics],
        [row for row, _ in counted],
        title=title,
        counts=[{**extra, **c} for _, c in counted],
    )


def ctr_segment_table(
    data: Impressions, metrics: dict[str, Any], say: Messages, title: str | None = None
) -> ResultTable:
    """Per score column, one row per segment of ``data.segments`` and the overall row
    (segment ``(all)``): ``score, segment, n_rows`` and the metrics (receval.by_segment)."""
    from ..exceptions import RecevalError
    from ..segments.compute import by_segment

    rows: list[list[Any]] = []
    counts: list[dict[str, Any]] = []
    for col, y_score in data.scores:
        kwargs: dict[str, Any] = {"sample_weight": data.sample_weight}
        if data.groups is not None and any(spec.needs_group for spec in metrics.values()):
            kwargs["groups"] = data.groups
        with say.progress(f"Computing {', '.join(metrics)} of {col} by segment"):
            try:
                report = by_segment(list(metrics), data.y_true, y_score, by=data.segments, **kwargs)
            except RecevalError as exc:  # name the column: the message names y_score
                raise say.fail(f"{data.place(exc)}--score {col}: {one_line(exc)}") from None
        # what the rules left out, on the overall row: the groups gauc skips (over all
        # the rows) and the segments where a metric is undefined
        overall: dict[str, Any] = {}
        for m, spec in metrics.items():
            if spec.counted is not None:
                _, overall[m] = spec.counted(data.y_true, y_score, **kwargs)
                skipped_groups_note(col, m, overall[m], say)
        overall["n_segments_undefined"] = dict(report.n_undefined)
        for record in report.records():
            n = record.pop("n_rows")
            segment = record.pop("segment")
            label = ALL_SEGMENTS if segment is None else segment
            rows.append([col, label, n, *(record[m] for m in metrics)])
            counts.append(overall if segment is None else {})
        for m, k in report.n_undefined.items():
            if k:
                say.note(
                    f"{col}: {m} is undefined (nan) in {k} of {len(report.segments)} segments."
                )
    return ResultTable(["score", "segment", "n_rows", *metrics], rows, title=title, counts=counts)
