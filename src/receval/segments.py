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
from typing import Any

import numpy as np

from ._segments import SegmentReport, segment_codes
from .exceptions import InvalidParameterError, UndefinedMetricWarning

__all__ = ["SegmentReport", "by_segment"]


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
