"""Metrics by segment: one value per segment (country, device, user group) and the overall one.

Whether a CTR gain holds in every segment, and how far apart user groups are (a
fairness question), is the same metric computed on the rows of each segment.
:func:`by_segment` runs the metric's one definition (:mod:`receval.engine`) on
the rows of every segment and on all the rows; ranking metrics are segmented by
user with :meth:`receval.EvaluationReport.by_segment`, from the per-user values
of one :func:`receval.evaluate`. Both return a :class:`SegmentReport`.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning

__all__ = ["SegmentReport", "by_segment", "report_by_segment", "segment_codes"]


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
    """

    segments: np.ndarray
    values: dict[str, np.ndarray]
    overall: dict[str, float]
    counts: np.ndarray
    unit: str
    n_undefined: dict[str, int]
    n_unassigned: int = 0

    def to_frame(self, backend: str | None = None) -> Any:
        """One row per segment: ``segment``, ``n_<unit>``, then one column per metric."""
        from .data.frames import make_frame

        columns = {"segment": self.segments, f"n_{self.unit}": self.counts, **self.values}
        return make_frame(columns, backend=backend)

    def records(self) -> list[dict[str, Any]]:
        """The rows as dicts, the overall row last (``segment`` None)."""
        out = [
            {
                "segment": _scalar(s),
                f"n_{self.unit}": int(n),
                **{m: float(v[i]) for m, v in self.values.items()},
            }
            for i, (s, n) in enumerate(zip(self.segments, self.counts, strict=True))
        ]
        total = int(self.counts.sum()) + self.n_unassigned
        out.append({"segment": None, f"n_{self.unit}": total, **self.overall})
        return out

    def __repr__(self) -> str:
        width = max([len(str(s)) for s in self.segments] + [7])
        names = list(self.values)
        head = f"  {'segment':<{width}}  {'n_' + self.unit:>10}  " + "  ".join(
            f"{m:>12}" for m in names
        )
        lines = [f"SegmentReport({len(self.segments)} segments)", head]
        for i, s in enumerate(self.segments):
            cells = "  ".join(f"{self.values[m][i]:>12.6f}" for m in names)
            lines.append(f"  {s!s:<{width}}  {int(self.counts[i]):>10}  {cells}")
        total = int(self.counts.sum()) + self.n_unassigned
        cells = "  ".join(f"{self.overall[m]:>12.6f}" for m in names)
        lines.append(f"  {'(all)':<{width}}  {total:>10}  {cells}")
        return "\n".join(lines)


def _scalar(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def segment_codes(by: Any, n: int, name: str, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes ``0..n_segments-1`` of the labels ``by`` (``n`` of them) and the labels,
    sorted where they sort; missing labels raise ``InputValidationError``."""
    from .data._encode import factorize

    codes, uniques = factorize(by, name, func)
    codes = np.asarray(codes)
    if len(codes) != n:
        raise InputValidationError(
            f"{func}: {name} must have one label per row. Got {len(codes)} labels for {n} rows."
        )
    uniques = np.asarray(uniques)
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:  # labels that do not compare: order of first appearance
        return codes, uniques
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[codes], uniques[order]


def _options_of(defn: Any, options: dict[str, Any]) -> dict[str, Any]:
    """The options a metric's ``check_params`` takes, among ``options``."""
    params = inspect.signature(defn.check_params).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return dict(options)
    return {k: x for k, x in options.items() if k in params}


def by_segment(metrics: str | Sequence[str], *data: Any, by: Any, **options: Any) -> SegmentReport:
    """Compute pointwise metrics in each segment of the rows, and over all of them.

    Each metric's one definition (what :func:`receval.metric` and
    :func:`receval.compute` run) is computed on the rows of every segment and
    on all the rows, so that every value equals the metric's function on
    those rows.

    Parameters
    ----------
    metrics : str or sequence of str
        Metrics of :func:`receval.metric` (``"roc_auc"``, ``"log_loss"``,
        ``"gauc"``, ``"pcoc"``, ...). Ranking metrics are segmented by user
        with :meth:`receval.EvaluationReport.by_segment`.
    *data
        The metrics' data arguments (``y_true, y_score``), as for
        :func:`receval.compute`.
    by : array-like
        The segment of each row (a country, a device, a user group).
    **options
        Keyword data arguments (``sample_weight=``, ``groups=``) and the
        metrics' options (``eps=``, ``weighting=``); each metric takes those of
        its options it has.

    Returns
    -------
    report : SegmentReport
        ``values[metric][i]`` on the rows of ``segments[i]``, ``overall[metric]``
        on all the rows, ``counts`` the rows per segment.

    Raises
    ------
    InvalidParameterError
        An unknown metric, a ranking metric, or an option no metric takes.
    InputValidationError
        Missing segment labels, or ``by`` of another length than the rows.

    Notes
    -----
    A metric undefined on a segment (an AUC of one class, a GAUC without a
    group of both classes) is nan there and counted in ``n_undefined``; the
    warning is raised only when the overall value is undefined. GAUC's groups
    may span segments: each segment holds the part of a group in it.

    Examples
    --------
    >>> import receval
    >>> y = [1, 0, 1, 0, 0, 1]
    >>> p = [0.9, 0.2, 0.4, 0.6, 0.3, 0.8]
    >>> report = receval.by_segment(["roc_auc"], y, p, by=["us", "us", "us", "fr", "fr", "fr"])
    >>> report.segments.tolist(), report.values["roc_auc"].tolist()
    (['fr', 'us'], [1.0, 1.0])
    >>> float(report.overall["roc_auc"])
    0.8888888888888888
    """
    from .registry import definition
    from .streaming import metric

    func = "by_segment"
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise InvalidParameterError(
            "The 'metrics' parameter of by_segment must name at least one metric. Got [] instead."
        )
    defns = {m: definition(m) for m in names}
    for m, defn in defns.items():
        if defn.name == "ranking":
            raise InvalidParameterError(
                f"by_segment: {m!r} is a ranking metric; segment its users with "
                f"receval.evaluate(...).by_segment(segments)."
            )
    data_names = {i for d in defns.values() for i in d.inputs}
    kwargs = {k: options.pop(k) for k in list(options) if k in data_names}
    taken = {k for d in defns.values() for k in _options_of(d, options)}
    unknown = sorted(set(options) - taken)
    if unknown:
        raise InvalidParameterError(
            f"by_segment: no metric of {names} takes the option {unknown[0]!r}."
        )
    given = [np.asarray(x) if isinstance(x, list) else x for x in data]
    kwargs = {k: np.asarray(x) if isinstance(x, list) else x for k, x in kwargs.items()}
    n = len(given[0]) if given else len(next(iter(kwargs.values())))
    codes, labels = segment_codes(by, n, "by", func)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(labels) + 1))
    counts = np.diff(bounds).astype(np.int64)

    def rows(x: Any, idx: np.ndarray) -> Any:
        if x is None or isinstance(x, str) or np.ndim(x) == 0:  # an option, not a column
            return x
        return np.asarray(x)[idx]

    values: dict[str, np.ndarray] = {}
    overall: dict[str, float] = {}
    undefined: dict[str, int] = {}
    for m, defn in defns.items():
        opts = _options_of(defn, options)
        own = {k: x for k, x in kwargs.items() if k in defn.inputs}
        out = np.empty(len(labels), dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for i in range(len(labels)):
                idx = order[bounds[i] : bounds[i + 1]]
                part = tuple(rows(x, idx) for x in given)
                part_kwargs = {k: rows(x, idx) for k, x in own.items()}
                out[i] = _value(metric(m, **opts).update(*part, **part_kwargs).compute())
        values[m] = out
        undefined[m] = int(np.isnan(out).sum())
        overall[m] = _value(metric(m, **opts).update(*given, **own).compute())
    return SegmentReport(labels, values, overall, counts, "rows", undefined)


def _value(x: Any) -> float:
    """A metric's value as a float (a binned AUC's value without its error bound)."""
    return float(getattr(x, "value", x))


def _user_segments(report: Any, segments: Any, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Segment code of each user of ``report`` (-1: none) and the segment labels."""
    from . import _validation as v
    from .data._encode import factorize, lookup
    from .data.io import frame_columns, is_frame

    users = report.users
    if isinstance(segments, dict):
        keys = list(segments)
        labels_of_keys = [segments[k] for k in keys]
    elif is_frame(segments):
        names = list(segments.columns)
        if len(names) != 2:
            raise InputValidationError(
                f"{func}: segments as a frame must have two columns (user, segment). Got "
                f"columns {v.format_values(names)}."
            )
        cols = frame_columns(segments, {"user": names[0], "segment": names[1]}, func)
        keys, labels_of_keys = cols["user"], cols["segment"]
    else:
        labels = v.as_1d(segments, "segments", func)
        if len(labels) != len(users):
            raise InputValidationError(
                f"{func}: segments must be a mapping of users, a frame (user, segment) or one "
                f"label per user of the report. Got {len(labels)} labels for {len(users)} users."
            )
        codes, uniques = segment_codes(labels, len(users), "segments", func)
        return codes, uniques
    codes, uniques = segment_codes(labels_of_keys, len(labels_of_keys), "segments", func)
    key_codes, key_ids = factorize(keys, "segments", func)
    if len(key_ids) < len(key_codes):
        raise InputValidationError(
            f"{func}: segments names a user twice; give each user one segment."
        )
    # each report user's row in the mapping (-1: none): factorize kept the rows' order
    position = lookup(users, key_ids)
    found = position >= 0
    out = np.full(len(users), -1, dtype=np.int64)
    out[found] = np.asarray(codes)[position[found]]
    return out, uniques


def report_by_segment(report: Any, segments: Any) -> SegmentReport:
    """:meth:`receval.EvaluationReport.by_segment`: the report's means within each segment."""
    func = "EvaluationReport.by_segment"
    codes, labels = _user_segments(report, segments, func)
    counts = np.bincount(codes[codes >= 0], minlength=len(labels)).astype(np.int64)
    values: dict[str, np.ndarray] = {}
    undefined: dict[str, int] = {}
    for text in report.mean:
        out = np.empty(len(labels), dtype=np.float64)
        for i in range(len(labels)):
            out[i] = report.mean_state_of(text, codes == i).value
        values[text] = out
        undefined[text] = int(np.isnan(out).sum())
    overall = {t: float(x) for t, x in report.mean.items()}
    n_unassigned = int((codes < 0).sum())
    return SegmentReport(labels, values, overall, counts, "users", undefined, n_unassigned)
