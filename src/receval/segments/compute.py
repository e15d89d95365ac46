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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._parameters import counted, metric_strings
from .._validation import check_not_empty
from ..data._arrow import is_arrow, take_at
from ..exceptions import (
    InputValidationError,
    InvalidParameterError,
    UndefinedMetricWarning,
    warn,
)
from .report import SegmentReport, segment_codes, segment_rows

__all__ = ["SegmentComparison", "SegmentReport", "by_segment", "compare_by_segment"]

#: a metric's value on some rows, the counts of what it left out and why
_Outcome = tuple[float, dict[str, int], str]


def _check_in_memory(func: str, data: dict[str, Any]) -> None:
    """Refuse a column of a :func:`receval.scan` (whose rows are grouped in memory here)."""
    from ..data.scan import ScanColumn

    for name, x in data.items():
        if isinstance(x, ScanColumn):
            raise InputValidationError(
                f"{func}: {name} is {x!r}, a column of a receval.scan(...); {func} groups "
                f"the rows by segment in memory, so it takes arrays: read the columns it "
                f"needs first (e.g. pyarrow.parquet.read_table(path, columns=[...]))."
            )


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
        ``"gauc"``, ``"pcoc"``, ...), run by their engine definition, or the
        other pointwise metrics of ``receval ctr`` (``"average_precision"``, ``"ece"``, ...),
        run by their function. Ranking metrics are segmented by user with
        :meth:`receval.EvaluationReport.by_segment`.
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
        on all the rows, ``counts`` the rows per segment; ``n_skipped[metric]``,
        for a metric that leaves groups out (gauc, the grouped metrics), its
        ``n_groups``, ``n_groups_skipped`` and ``n_rows_skipped`` in each segment,
        ``n_skipped_overall[metric]`` the same on all the rows (from the pass
        that gives ``overall``) and ``why_skipped[metric]`` the rule. ``records()``
        and ``to_frame()`` carry the counts too.

    Raises
    ------
    InvalidParameterError
        An unknown metric, a ranking metric, an option no metric takes,
        ``sample_weight`` with a metric that takes none, or no data.
    InputValidationError
        Missing segment labels, ``by`` of another length than the rows, a data
        column of another length (the metric's own error), or no row (as the
        metric's function).

    Notes
    -----
    A metric undefined on a segment (an AUC of one class, a GAUC without a
    group of both classes) is nan there and counted in ``n_undefined``; the
    warning is raised only when the overall value is undefined. GAUC's groups
    may span segments: each segment holds the part of a group in it, and its
    counts are of those parts (a group of both classes overall may have one
    class in a segment), so they need not add up to ``n_skipped_overall``.

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

    User ``b`` has a click and a non-click, one in each country: each segment
    skips it (one class there), the overall GAUC does not.

    >>> users = ["a", "a", "b", "b", "c", "c"]
    >>> seg = receval.by_segment("gauc", y, p, by=["us", "us", "us", "fr", "fr", "fr"],
    ...                          groups=users)
    >>> counts = seg.n_skipped["gauc"]
    >>> counts["n_groups_skipped"].tolist(), counts["n_groups"].tolist()
    ([1, 1], [2, 2])
    >>> seg.n_skipped_overall["gauc"]
    {'n_groups': 3, 'n_groups_skipped': 0, 'n_rows_skipped': 0}
    >>> seg.records()[0]["counts"]
    {'gauc': {'n_groups': 2, 'n_groups_skipped': 1, 'n_rows_skipped': 1}}
    """
    func = "by_segment"
    names = metric_strings(metrics, func)
    if not names:
        raise InvalidParameterError(
            "The 'metrics' parameter of by_segment must name at least one metric. Got [] instead."
        )
    runners = {m: _runner(m, frozenset(options)) for m in names}
    # weights are data even where no metric takes them (refused below, as each metric does)
    data_names = {"sample_weight"} | {i for inputs, _, _ in runners.values() for i in inputs}
    kwargs = {k: options.pop(k) for k in list(options) if k in data_names}
    taken = {k for _, takes, _ in runners.values() for k in options if takes(k)}
    unknown = sorted(set(options) - taken)
    if unknown:
        raise InvalidParameterError(
            f"by_segment: no metric of {names} takes the option {unknown[0]!r}."
        )
    if kwargs.get("sample_weight") is not None:
        unweighted = [m for m in names if "sample_weight" not in runners[m][0]]
        if unweighted:
            from ..engine.metric import weights_refused
            from ..registry import resolve

            row = resolve(unweighted[0], supplied=frozenset(options)).info
            raise weights_refused(func, row.name, kwargs["sample_weight"])
    _check_in_memory(func, {**{f"argument {i + 1}": x for i, x in enumerate(data)},
                            **kwargs, "by": by})  # fmt: skip
    given = [np.asarray(x) if isinstance(x, list) else x for x in data]
    kwargs = {k: np.asarray(x) if isinstance(x, list) else x for k, x in kwargs.items()}
    if not given and not kwargs:
        inputs = runners[names[0]][0]
        raise InvalidParameterError(
            f"{func}: {names[0]!r} takes ({', '.join(inputs)}): missing a required argument: "
            f"{inputs[0]!r}."
        )
    n = len(given[0]) if given else len(next(iter(kwargs.values())))
    codes, labels = segment_codes(by, "by", func, unit="row")
    if len(codes) != n:
        raise InputValidationError(
            f"{func}: by must have one label per row. Got {counted(len(codes), 'label')} "
            f"for {counted(n, 'row')}."
        )
    bounds, order = segment_rows(codes, len(labels))  # every segment's rows, grouped once
    counts = np.diff(bounds).astype(np.int64)

    def cutter(x: Any) -> Callable[[np.ndarray], Any]:
        """What gives an argument at some rows: an option as it is; a column's rows, from
        the column made an array once (ids as Arrow keeps them: asarray gives objects)."""
        if x is None or isinstance(x, str) or np.ndim(x) == 0:  # an option, not a column
            return lambda idx: x
        if is_arrow(x):
            return lambda idx: take_at(x, idx)
        return np.asarray(x).__getitem__

    cut_given = [cutter(x) for x in given]
    cut_kwargs = {k: cutter(x) for k, x in kwargs.items()}

    values: dict[str, np.ndarray] = {}
    overall: dict[str, float] = {}
    undefined: dict[str, int] = {}
    skipped: dict[str, dict[str, np.ndarray]] = {}
    skipped_overall: dict[str, dict[str, int]] = {}
    why: dict[str, str] = {}
    for m, (inputs, takes, bind) in runners.items():
        own = {k: x for k, x in kwargs.items() if k in inputs}
        # the metric's definition, checked options and arguments, once for all the segments
        run = bind(tuple(given), own, {k: x for k, x in options.items() if takes(k)})
        # all the rows first: the metric's own checks (a column shorter than y_true is
        # its same-length error, not an index out of a segment's rows)
        if n == 0:  # the metric's checks of its columns, then its function's refusal
            with warnings.catch_warnings():  # (an accumulator of no row is nan)
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                run(tuple(given), own)
            check_not_empty(n, inputs[0], func)
        overall[m], left_out, rule = run(tuple(given), own)
        if left_out:
            skipped_overall[m], why[m] = left_out, rule
        out = np.empty(len(labels), dtype=np.float64)
        parts: list[dict[str, int]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            for i in range(len(labels)):
                idx = order[bounds[i] : bounds[i + 1]]
                part = tuple(cut(idx) for cut in cut_given)
                own_rows = {k: cut_kwargs[k](idx) for k in own}
                try:
                    out[i], left_out, _ = run(part, own_rows)
                except InputValidationError as exc:  # at a row of the segment: of all rows
                    if exc.row is None:
                        raise
                    raise exc.moved(int(idx[exc.row]) - exc.row) from None
                parts.append(left_out)
        values[m] = out
        undefined[m] = int(np.isnan(out).sum())
        # the counts every segment has (a metric that leaves nothing out has none)
        names = [k for k in (parts[0] if parts else {}) if all(k in p for p in parts)]
        if names:
            skipped[m] = {k: np.array([p[k] for p in parts], dtype=np.int64) for k in names}
    return SegmentReport(labels, values, overall, counts, "rows", undefined, n_skipped=skipped,
                         n_skipped_overall=skipped_overall, why_skipped=why)  # fmt: skip


def _runner(name: str, supplied: frozenset[str]) -> tuple[tuple[str, ...], Any, Any]:
    """``(data arguments, takes(option) -> bool, bind(data, kwargs, options))`` of a
    metric, resolved by the registry: its engine definition (what receval.metric runs),
    else its function. ``bind`` resolves and checks the metric's options (``kwargs``' option
    values among them) and its data arguments (``data`` and ``kwargs``: all the rows) once,
    the same for every segment, and returns ``run(data, kwargs)``, which computes the
    metric on some rows (:func:`receval.engine.sources.run_counted`) and returns the value,
    the counts of what the metric left out and why (``{}`` and ``""`` for a function)."""
    from ..engine.accumulator import whole_group_params
    from ..engine.metric import is_option_value, without_no_weights
    from ..engine.run import check_arguments
    from ..engine.sources import run_counted
    from ..registry import definition, load, resolve
    from ..registry.schema import family_words

    spec = resolve(name, supplied=supplied)
    entry = spec.info
    if entry.family not in ("pointwise", "grouped", "off_policy"):
        hint = (
            "; the average precision of scores is 'average_precision'"
            if entry.name == "map"
            else ""
        )
        raise InvalidParameterError(
            f"by_segment: {name!r} is {family_words(entry.family)} metric; segment its users with "
            f"receval.evaluate(...).by_segment(segments){hint}."
        )
    own = {p.name for p in entry.params}
    func = None if entry.definition_path else load(entry.function_path)

    def bind(
        data: tuple[Any, ...], kwargs: dict[str, Any], options: dict[str, Any]
    ) -> Callable[[tuple[Any, ...], dict[str, Any]], _Outcome]:
        if func is not None:
            args = dict(spec.args)
            return lambda data, columns: (float(func(*data, **columns, **args, **options)), {}, "")
        # an option that is also a data argument (gauc's named weighting) makes the metric
        named = {k: x for k, x in kwargs.items() if k in own and is_option_value(x)}
        chosen = {**options, **named}
        defn = definition(name, chosen)
        params = whole_group_params(defn, name, chosen, "by_segment")
        by_name = without_no_weights(defn, {k: x for k, x in kwargs.items() if k not in named})
        # arguments missing or too many, in the user's words (the segments cut the same ones)
        check_arguments(name, defn, params, data, by_name, "by_segment")

        def run(data: tuple[Any, ...], columns: dict[str, Any]) -> _Outcome:
            # some rows, as the metric's function runs them, their messages naming by_segment
            given = dict(zip(defn.inputs, data, strict=False)) | {k: columns[k] for k in by_name}
            value, counts, why = run_counted(defn, params, given, func="by_segment")
            return float(getattr(value, "value", value)), counts, why  # a binned AUC: no bound

        return run

    return entry.inputs, own.__contains__, bind


@dataclass(frozen=True)
class SegmentComparison:
    """:func:`compare_by_segment`: a :class:`~receval.ComparisonReport` per segment of users.

    Attributes
    ----------
    segments : ndarray
        The segment labels, as in :class:`SegmentReport`.
    reports : list of ComparisonReport
        The comparison within each segment (its users only), aligned with
        ``segments``.
    overall : ComparisonReport
        The comparison over every user.
    counts : ndarray of int
        Users in each segment.
    n_unassigned : int
        Users without a segment (in ``overall`` only).
    n_unknown : int
        Users that ``by`` (a mapping or a frame) names and the qrels do not
        hold: ignored.
    """

    segments: np.ndarray
    reports: list[Any]
    overall: Any
    counts: np.ndarray
    n_unassigned: int
    n_unknown: int = 0

    def __repr__(self) -> str:
        unknown = f", {counted(self.n_unknown, 'unknown user')} ignored" if self.n_unknown else ""
        return (
            f"SegmentComparison({counted(len(self.segments), 'segment')} of "
            f"{counted(int(self.counts.sum()), 'user')}, {self.n_unassigned:,} without one"
            f"{unknown}; each "
            f"segment's: .reports, every row: .to_frame()); over every user:\n{self.overall!r}"
        )

    def to_frame(self, backend: str | None = None) -> Any:
        """Every comparison of every segment, one row per (segment, metric, model,
        versus), the overall ones last (``segment`` None): a pandas (default) or polars
        DataFrame."""
        from ..data.frames import make_frame

        rows = self.records()
        columns = {k: np.array([r[k] for r in rows]) for k in (rows[0] if rows else ())}
        # the labels as given beside the overall row's None (pandas made 0, 1 floats)
        columns["segment"] = np.array([r["segment"] for r in rows], dtype=object)
        return make_frame(columns, backend=backend)

    def records(self) -> list[dict[str, Any]]:
        """:meth:`to_frame`'s rows as dicts (JSON-ready)."""
        out: list[dict[str, Any]] = []
        labelled = [*zip(self.segments.tolist(), self.reports, strict=True), (None, self.overall)]
        for label, report in labelled:
            out.extend({"segment": label, **row} for row in report.records())
        return out


def compare_by_segment(
    qrels: Any, runs: Any, metrics: Sequence[str], *, by: Any, **options: Any
) -> SegmentComparison:
    """Compare runs within each segment of the users: paired tests per segment.

    Each run is evaluated once (:func:`receval.evaluate`); the per-user values
    of each segment's users are then compared as :func:`receval.compare`
    compares them (the same tests, intervals and corrections, within the
    segment), and over every user.

    Parameters
    ----------
    qrels, runs, metrics
        As for :func:`receval.compare` (runs may be ``EvaluationReport`` s).
    by : mapping, array-like or DataFrame
        The segment of each qrels user, as for
        :meth:`receval.EvaluationReport.by_segment`.
    **options
        The keywords of :func:`receval.compare` (``baseline``, ``test``,
        ``profile``, conventions, ...).

    Returns
    -------
    comparison : SegmentComparison

    Raises
    ------
    InvalidParameterError
        A keyword of ``options`` that is neither :func:`receval.compare`'s nor a
        convention (a typo such as ``tset``), or a bad setting (a ``baseline`` that
        is no run's name, an unknown ``test``), named as this function's and
        refused before any run is evaluated.

    Notes
    -----
    A segment with none of the report's users (a user of ``by`` not in the
    qrels) has nan statistics and ``n_users`` 0, as
    :meth:`receval.EvaluationReport.by_segment` gives it nan. The users of
    ``by`` that the qrels do not hold are ignored and counted in
    ``n_unknown``. A warning of a segment's comparison (too few users for a
    statistic) names the segment: ``compare_by_segment, segment 'a': ...``.

    Examples
    --------
    >>> import numpy as np, receval
    >>> rng = np.random.default_rng(0)
    >>> qrels = {f"u{i}": {"a": 1} for i in range(40)}
    >>> good = {f"u{i}": {"a": 0.9, "b": 0.5} for i in range(40)}
    >>> bad = {f"u{i}": {"a": 0.1, "b": 0.5} if i % 2 else {"a": 0.9} for i in range(40)}
    >>> parity = {f"u{i}": "odd" if i % 2 else "even" for i in range(40)}
    >>> seg = receval.compare_by_segment(qrels, {"good": good, "bad": bad}, ["mrr"], by=parity)
    >>> [float(r.comparisons["difference"][0]) for r in seg.reports]  # bad - good
    [0.0, -0.5]
    """
    from .._parameters import check_keywords, keyword_names
    from ..comparison import compare
    from ..comparison.models import check_settings, compare_reports, named_models, ranking_specs
    from ..comparison.table import model_pairs
    from ..conventions import FIELDS
    from ..ranking.evaluation import evaluate_as
    from ..ranking.report import EvaluationReport
    from .report import user_segments

    func = "compare_by_segment"
    check_keywords(options, keyword_names(compare) + list(FIELDS), func)
    profile = options.get("profile")
    conventions = {k: x for k, x in options.items() if k in FIELDS}
    named = named_models(runs, func, "run")
    keywords = inspect.signature(compare).parameters.values()
    given = {p.name: p.default for p in keywords if p.kind is p.KEYWORD_ONLY}
    given |= {k: x for k, x in options.items() if k not in FIELDS}
    del given["profile"]
    # compare's settings and metrics, checked in this function's name before any evaluation
    settings = check_settings(func, **given)
    model_pairs(list(named), settings["baseline"], func, settings["pairs"])
    specs = ranking_specs(metrics, func)
    reports = {
        name: r if isinstance(r, EvaluationReport)
        else evaluate_as(func, qrels, r, list(specs), profile=profile, **conventions)
        for name, r in named.items()
    }  # fmt: skip
    first = next(iter(reports.values()), None)
    if first is None:
        raise InvalidParameterError(f"{func}: runs is empty; pass at least two runs.")
    codes, labels, n_unknown = user_segments(first, by, func, "by")
    # over every user first: compare's checks of the reports (the same users, every
    # metric) before any is cut into segments
    overall = compare_reports(reports, specs, func, settings)
    groups = segment_rows(codes, len(labels))  # every segment's users, grouped once
    counts = np.diff(groups[0]).astype(np.int64)
    parts = {n: rep.subsets(groups) for n, rep in reports.items()}
    per_segment = []
    for i, label in enumerate(labels.tolist()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            segment = {n: part[i] for n, part in parts.items()}
            per_segment.append(compare_reports(segment, specs, func, settings))
        for w in caught:  # a segment of no user: nan, n_users 0 (no warning)
            if counts[i] or not issubclass(w.category, UndefinedMetricWarning):
                said = str(w.message).removeprefix(f"{func}: ")
                warn(f"{func}, segment {label!r}: {said}", w.category)
    n_unassigned = int((codes < 0).sum())
    return SegmentComparison(labels, per_segment, overall, counts, n_unassigned, n_unknown)
