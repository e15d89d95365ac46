"""What segmenting needs below the metrics: the report, the labels' codes, a report's users.

:func:`receval.by_segment` (in :mod:`receval.segments`) and
:meth:`receval.EvaluationReport.by_segment` both return a
:class:`SegmentReport`; this module imports no metric, so that the report of
:func:`receval.evaluate` can segment itself without an import cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._parameters import counted
from ..exceptions import InputValidationError

__all__ = [
    "SegmentReport", "first_repeat", "report_by_segment", "segment_codes", "segment_rows",
    "user_segments",
]  # fmt: skip


_REPR_EDGE = 5  # segments shown at each end of a long repr


@dataclass(frozen=True)
class SegmentReport:
    """Metrics by segment: a value per segment and metric, and the overall value.

    Attributes
    ----------
    segments : ndarray
        The segment labels, sorted (in order of first appearance where labels
        do not sort).
    values : dict of str to ndarray
        Each metric's value in each segment, aligned with ``segments``; nan
        where the metric is undefined on the segment (an AUC of one class).
    overall : dict of str to float
        Each metric on all the rows (users), as its function returns it.
    counts : ndarray of int
        Rows (``unit="rows"``) or users (``unit="users"``) in each segment.
    unit : str
        ``"rows"`` or ``"users"``.
    n_undefined : dict of str to int
        Per metric, segments where it is undefined (nan; no warning is raised
        for a segment, only when the overall value is undefined).
    n_unassigned : int
        Users of the report without a segment (ranking only; they count in
        the overall value, not in any segment).
    n_unknown : int
        Users that the segments (a mapping or a frame) name and the report
        does not hold: ignored (ranking only; a user id mistyped in the
        segments leaves its segment short by one user).
    n_skipped : dict of str to dict of str to ndarray
        Per metric, the counts of what its rules left out in each segment, each
        aligned with ``segments``. A ranking metric's users of the segment that
        each rule left out of its mean, under the rule's name as
        :attr:`receval.EvaluationReport.n_users_skipped_by` counts them
        (``"empty_users"``, ``"missing_users"``, ``"zero_users"``, ``"no_value"``;
        ``counts`` holds them too). A metric of :func:`receval.by_segment` that
        leaves groups out (gauc, the grouped metrics): ``n_groups``, the groups
        with rows in the segment, ``n_groups_skipped`` of them without a value
        (gauc: one class in the segment) and their rows, ``n_rows_skipped``.
        A metric that leaves nothing out (roc_auc, log_loss) has no entry.
    n_skipped_overall : dict of str to dict of str to int
        The same counts over all the rows (users): those of the pass that gives
        ``overall`` (:meth:`receval.Accumulator.skipped`'s; a ranking metric's
        ``n_users_skipped_by`` of the report), under the same keys as ``n_skipped``.
    why_skipped : dict of str to str
        Per metric of :func:`receval.by_segment` that leaves groups out, the rule
        it leaves them out by (gauc: ``"without both a click and a non-click"``).
    """

    segments: np.ndarray
    values: dict[str, np.ndarray]
    overall: dict[str, float]
    counts: np.ndarray
    unit: str
    n_undefined: dict[str, int]
    n_unassigned: int = 0
    n_skipped: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    n_unknown: int = 0
    n_skipped_overall: dict[str, dict[str, int]] = field(default_factory=dict)
    why_skipped: dict[str, str] = field(default_factory=dict)

    def to_frame(self, backend: str | None = None) -> Any:
        """One row per segment: ``segment``, ``n_<unit>``, one column per metric, then
        the counts of :meth:`records`, each a column named as ``receval ctr --by`` and
        ``receval rank --by`` name it in CSV (``gauc:n_groups_skipped``,
        ``n_users_skipped:ndcg@10``): a pandas (default) or polars DataFrame."""
        from ..data.frames import make_frame
        from ..report.tables import flatten_counts

        columns = {"segment": self.segments, f"n_{self.unit}": self.counts, **self.values}
        flat = [flatten_counts(self._counts(i)) for i in range(len(self.segments))]
        for key in flat[0] if flat else ():
            columns[key] = np.array([row[key] for row in flat], dtype=np.int64)
        return make_frame(columns, backend=backend)

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts, the overall row last (``segment`` None).

        Each holds ``segment``, ``n_<unit>``, each metric's value and ``counts``:
        what the metrics' rules left out of the row (``n_skipped``, on the overall
        row ``n_skipped_overall``), as ``receval ctr --by`` and ``receval rank --by``
        print them in JSON: ``{metric: {"n_groups": ..., "n_groups_skipped": ...,
        "n_rows_skipped": ...}}`` for rows, ``{"n_users_skipped": {metric: ...},
        "n_users_skipped_by": {metric: {"empty_users": ..., "missing_users": ...,
        "zero_users": ..., "no_value": ...}}}`` for users (the users left out, and
        those each rule left out, as :func:`receval.report.ranking_records` names
        a report's).
        """
        out = [
            {
                "segment": _scalar(s),
                f"n_{self.unit}": int(n),
                **{m: float(v[i]) for m, v in self.values.items()},
                "counts": self._counts(i),
            }
            for i, (s, n) in enumerate(zip(self.segments, self.counts, strict=True))
        ]
        total = int(self.counts.sum()) + self.n_unassigned
        out.append({"segment": None, f"n_{self.unit}": total, **self.overall,
                    "counts": self._counts(None)})  # fmt: skip
        return out

    def _counts(self, i: int | None) -> dict[str, Any]:
        """The counts of segment ``i`` (None: of all the rows), nested as :meth:`records`
        gives them."""
        if i is None:
            per_metric = self.n_skipped_overall
        else:
            per_metric = {
                m: {k: int(x[i]) for k, x in c.items()} for m, c in self.n_skipped.items()
            }
        if self.unit == "rows":
            return {m: dict(c) for m, c in per_metric.items()}
        return {"n_users_skipped": {m: sum(c.values()) for m, c in per_metric.items()},
                "n_users_skipped_by": {m: dict(c) for m, c in per_metric.items()}}  # fmt: skip

    def __repr__(self) -> str:
        width = max([len(str(s)) for s in self.segments] + [7])
        names = list(self.values)
        titles = "  ".join(f"{m:>12}" for m in names)
        head = f"  {'segment':<{width}}  {'n_' + self.unit:>10}  {titles}"
        n = len(self.segments)
        cut = n > 2 * _REPR_EDGE  # then only the first and last few, as pandas does
        shown = [*range(_REPR_EDGE), None, *range(n - _REPR_EDGE, n)] if cut else range(n)
        some = f", {2 * _REPR_EDGE} shown; all: .to_frame()" if cut else ""
        unit = self.unit.removesuffix("s")
        unassigned = f", {counted(self.n_unassigned, unit)} in none" if self.n_unassigned else ""
        if self.n_unknown:
            unassigned += f", {counted(self.n_unknown, 'unknown ' + unit)} ignored"
        lines = [f"SegmentReport({counted(n, 'segment')}{unassigned}{some})", head]
        for i in shown:
            if i is None:
                lines.append("  ...")
                continue
            s = self.segments[i]
            cells = "  ".join(f"{self.values[m][i]:>12.6f}" for m in names)
            lines.append(f"  {s!s:<{width}}  {int(self.counts[i]):>10}  {cells}")
        total = int(self.counts.sum()) + self.n_unassigned
        cells = "  ".join(f"{self.overall[m]:>12.6f}" for m in names)
        lines.append(f"  {'(all)':<{width}}  {total:>10}  {cells}")
        return "\n".join(lines)


def _scalar(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def segment_codes(
    by: Any, name: str, func: str, *, unit: str, user_of: Callable[[int], Any] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Codes ``0..n_segments-1`` of the labels ``by`` (one per ``unit``: ``"row"`` or
    ``"user"``) and the labels, sorted where they sort, of the type given
    (:func:`~receval.data._labels.factorize_labels`: ``True`` and ``1.0`` as given).

    A missing label (None, NaN, NaT, pandas' NA, a null of Arrow or polars) raises
    ``InputValidationError``, one message whatever its kind: it names the first
    one's position, or its user where ``user_of`` gives the user of a position (the
    labels of a mapping's or a frame's users).
    """
    from ..data._labels import factorize_labels

    missing = _missing_labels(by, name, func)
    if missing.any():
        raise _missing_labels_error(missing, name, func, unit, user_of)
    codes, uniques = factorize_labels(by, name, func)
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:  # labels that do not compare: order of first appearance
        return codes, uniques
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[codes], uniques[order]


def _missing_labels(labels: Any, name: str, func: str) -> np.ndarray:
    """Whether each label is missing: None, NaN, NaT, pandas' NA, a null (or a NaN) of
    Arrow or polars."""
    from .. import _validation as v
    from ..data._arrow import to_numpy

    module = type(labels).__module__.partition(".")[0]
    if module == "polars" and hasattr(labels, "to_arrow"):  # a Series: as Arrow holds it
        labels, module = labels.to_arrow(), "pyarrow"
    if module == "pyarrow" and hasattr(labels, "is_null"):
        return to_numpy(labels.is_null(nan_is_null=True))
    if module == "pandas" and hasattr(labels, "isna") and labels.ndim == 1:
        return np.asarray(labels.isna(), dtype=bool)
    if isinstance(labels, (list, tuple)):
        return np.fromiter(map(v.is_missing, labels), dtype=bool, count=len(labels))
    one_d = isinstance(labels, np.ndarray) and labels.ndim == 1
    arr: np.ndarray = labels if one_d else v.as_1d(labels, name, func)
    kind = arr.dtype.kind
    if kind == "O":
        return np.fromiter(map(v.is_missing, arr.tolist()), dtype=bool, count=len(arr))
    if kind in "fcmM":  # NaN, NaT
        return np.asarray(np.isnan(arr) if kind in "fc" else np.isnat(arr), dtype=bool)
    return np.zeros(len(arr), dtype=bool)


def _missing_labels_error(
    missing: np.ndarray, name: str, func: str, unit: str, user_of: Callable[[int], Any] | None
) -> InputValidationError:
    """The error of the labels ``missing`` flags: their count and the first, by its
    position or (``user_of``) its user, and the fix."""
    row = int(np.argmax(missing))
    count = counted(int(np.count_nonzero(missing)), "missing label")
    head = f"{func}: {name} must give every {unit}{' it names' if user_of else ''} a segment "
    head += "label. Got {count} (None, NaN or null), the first {at}; "
    if user_of is not None:
        at = f"for the user {user_of(row)!r}"
        fix = (f"give those users a label, or leave them out of {name} (a user without a "
               f"segment counts in the overall value only).")  # fmt: skip
        return InputValidationError(head.format(count=count, at=at) + fix, row=row)
    fix = "fill them with a label, e.g. 'unknown', or "
    fix += "drop those rows." if unit == "row" else (
        f"give {name} as a mapping {{{{user: label}}}} without those users.")  # fmt: skip
    return InputValidationError.positioned(head + fix, row, count, "missing labels")


def first_repeat(codes: Any) -> int | None:
    """The first row whose code an earlier row has (a user named twice), else None.

    Examples
    --------
    >>> first_repeat([0, 1, 2, 1, 0])
    3
    >>> first_repeat([0, 1]) is None
    True
    """
    codes = np.asarray(codes)
    order = np.argsort(codes, kind="stable")
    repeated = order[1:][np.diff(codes[order]) == 0]
    return int(repeated.min()) if len(repeated) else None


def user_segments(
    report: Any, segments: Any, func: str, name: str
) -> tuple[np.ndarray, np.ndarray, int]:
    """Segment code of each user of ``report`` (-1: none), the segment labels, and the
    number of users that ``segments`` (a mapping or a frame) names and the report does
    not hold; errors name ``segments`` as the caller's argument ``name``."""
    from .. import _validation as v
    from ..data._encode import factorize
    from ..data._lookup import lookup
    from ..data.io import frame_columns, is_frame

    users = report.users
    if isinstance(segments, dict):
        keys = list(segments)
        labels_of_keys = [segments[k] for k in keys]
    elif is_frame(segments):
        names = [str(c) for c in getattr(segments, "column_names", None) or segments.columns]
        if len(names) != 2:
            raise InputValidationError(
                f"{func}: {name} as a frame must have two columns (user, segment). Got "
                f"columns {v.format_values(names)}."
            )
        cols = frame_columns(segments, {"user": names[0], "segment": names[1]}, func)
        keys, labels_of_keys = cols["user"], cols["segment"]
    else:  # one label per user
        _check_positional(segments, name, func)
        codes, uniques = segment_codes(segments, name, func, unit="user")
        if len(codes) != len(users):
            raise InputValidationError(
                f"{func}: {name} must be a mapping of users, a frame (user, segment) or one "
                f"label per user of the report. Got {counted(len(codes), 'label')} for "
                f"{counted(len(users), 'user')}."
            )
        return codes, uniques, 0
    key_codes, key_ids = factorize(keys, name, func)

    def user_at(row: int) -> Any:
        return np.asarray(key_ids)[[key_codes[row]]].tolist()[0]  # a Python value

    row = first_repeat(key_codes)
    if row is not None:
        raise InputValidationError(
            f"{func}: {name} names the user {user_at(row)!r} twice, the second time at "
            f"position {row}; give each user one segment.",
            row=row,
        )
    codes, uniques = segment_codes(labels_of_keys, name, func, unit="user", user_of=user_at)
    # each report user's row in the mapping (-1: none): factorize kept the rows' order
    position = lookup(users, key_ids)
    found = position >= 0
    out = np.full(len(users), -1, dtype=np.int64)
    out[found] = np.asarray(codes)[position[found]]
    # the mapping's users are distinct, and so are the report's: each found once
    return out, uniques, len(key_codes) - int(found.sum())


def segment_rows(codes: np.ndarray, n_segments: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of every segment, grouped in one pass (a stable counting sort): CSR
    offsets (``n_segments + 1``) and the rows in segment order, those of segment ``i``
    ``rows[offsets[i]:offsets[i + 1]]`` in their order; a row of code -1 (in no
    segment) is in none.

    Examples
    --------
    >>> import numpy as np
    >>> offsets, rows = segment_rows(np.array([1, 0, -1, 1]), 2)
    >>> offsets.tolist(), rows.tolist()
    ([0, 1, 3], [1, 0, 3])
    """
    from ..data._encode import group_rows

    grouped = np.where(codes < 0, n_segments, codes)  # none: a last group, left out
    offsets, rows = group_rows(grouped, n_segments + 1)
    if not len(rows):  # the rows were in segment order already
        rows = np.arange(len(codes))
    return offsets[: n_segments + 1], rows[: offsets[n_segments]]


def _check_positional(segments: Any, name: str, func: str) -> None:
    """Refuse a pandas Series of labels with an index of its own (not 0, 1, ...): read
    as an array aligned with the report's users, its labels would go to the users at
    their positions, not to the users its index names (``groupby(...).first()``)."""
    from ..data.io import module_of

    index = getattr(segments, "index", None)
    if module_of(segments) != "pandas" or index is None:
        return
    if type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1:
        return
    from .. import _validation as v

    raise InputValidationError(
        f"{func}: {name} is a pandas Series with an index of its own (starting "
        f"{v.format_values(index[:3].tolist())}), and an array of labels is read in the "
        f"order of the users, not by its index; pass {name}.to_dict() to give each user "
        f"of the index its label, or {name}.to_numpy() for labels in the order of the "
        f"users."
    )


def report_by_segment(report: Any, segments: Any) -> SegmentReport:
    """:meth:`receval.EvaluationReport.by_segment`: the report's means within each segment."""
    func = "EvaluationReport.by_segment"
    codes, labels, n_unknown = user_segments(report, segments, func, "segments")
    groups = segment_rows(codes, len(labels))  # every segment's users, grouped once
    values: dict[str, np.ndarray] = {}
    undefined: dict[str, int] = {}
    skipped: dict[str, dict[str, np.ndarray]] = {}
    for text in report.mean:
        states = report.mean_states_of(text, groups)
        values[text] = np.array([state.value for state in states], dtype=np.float64)
        undefined[text] = int(np.isnan(values[text]).sum())
        # per rule, the users of each segment it left out (n_users_skipped_by)
        skipped[text] = report.n_users_skipped_by_of(text, groups)
    overall = {t: float(x) for t, x in report.mean.items()}
    skipped_overall = {t: dict(report.n_users_skipped_by[t]) for t in report.mean}
    n_unassigned = int((codes < 0).sum())
    counts = np.diff(groups[0]).astype(np.int64)
    return SegmentReport(labels, values, overall, counts, "users", undefined, n_unassigned,
                         skipped, n_unknown, skipped_overall)  # fmt: skip
