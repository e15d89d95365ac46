"""The result of :func:`receval.evaluate`: :class:`EvaluationReport`, and the
repr shared by the evaluation results."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np

from .._parameters import counted
from ..conventions import SKIP_REASONS, Conventions
from ..engine.totals import MeanState, counts_by_group, mean_state, mean_states
from ..exceptions import InputValidationError, InvalidParameterError

__all__ = [
    "ZERO_MEAN",
    "EvaluationReport",
    "describe_report",
    "no_value",
    "partition_mean",
    "partition_means",
    "skip_codes",
    "skip_counts",
    "skip_counts_by",
    "user_means",
]


@dataclass(frozen=True)
class EvaluationReport:
    """The result of :func:`evaluate`.

    Attributes
    ----------
    mean : dict of str to float
        Each metric string exactly as the caller wrote it, mapped to its mean
        over the evaluated users (``pooled_hit_ratio``: the pooled ratio).
    users : ndarray of shape (n_users,)
        The qrels users, in order of first appearance.
    values : dict of str to ndarray
        Per-user value of each metric, aligned with ``users``; ``nan`` where a
        rule skipped the user.
    metrics : dict of str to str
        The canonical form of each metric string.
    conventions : dict of str to Conventions
        The conventions each metric was computed with.
    n_users : int
        Users in the qrels.
    n_users_missing : int
        Qrels users absent from the run (zero-filled or skipped by ``missing_users``).
    n_users_empty : dict of str to int
        Per metric, users without a relevant item at its ``rel_threshold``.
    n_users_skipped_by : dict of str to dict of str to int
        Per metric, the users left out of its mean by each rule: ``"empty_users"``
        (no relevant item, ``empty_users="skip"``), ``"missing_users"`` (absent
        from the run, ``missing_users="skip"``), ``"zero_users"`` (a value of 0,
        ``zero_users="skip"``) and ``"no_value"`` (no value under any rule: a
        metric of the run's lists alone (``arp@10``, ``ils@10``, ...) for a user
        absent from the run or whose list is too short, expected exposure for a
        user without a relevant item). A user whom several rules leave out counts
        under the first of that order.
    n_run_only_users : int
        Run users absent from the qrels: ignored.
    run_name : str or None
        The run's name, if it has one.
    n_run_items : int
        Distinct items of the run (0 when no ranked metric reads the qrels).
    n_run_items_unmatched : int
        Run items that no user's qrels judge: their ids match none of the qrels'.
        With ``n_users_missing``, what :func:`evaluate` checks against ``min_match``
        (a run matching no qrels user or item is refused unless
        ``allow_unmatched=True``).
    n_users_tie_dependent : dict of str to int
        Per metric, the users whose value under the metric's ``ties`` order
        differs from its expected value over every order of their tied scores
        (``ties="average"``); 0 for a metric computed with ``ties="average"``.
    mean_ties_average : dict of str to float
        Per metric with tie-dependent users, its mean with those users' values
        taken as ``ties="average"`` gives them: how far the order of tied
        scores moves the mean. nan where some user's expected value was not
        computed: interpolated precision's costs ``(s * h) ** 2`` per tied
        block of s items, h relevant, and a user above a budget (a few
        milliseconds) is counted as tie-dependent without it (docs/conventions.md).
    sampling : SamplingSummary or None
        With ``candidates=``: the rows the restriction dropped, the candidates
        the run lacks, and the correction applied.
    masking : MaskingSummary or None
        With ``exclude=``: the run rows removed as seen items (in all, and the
        users they were removed from), the run users without a history, and
        the qrels rows the users had seen (kept). With ``repeats=True``:
        ``masking.repeats`` is True and nothing was removed. None: neither given.
    n_seen_removed : ndarray of shape (n_users,) or None
        With ``exclude=``: per user (aligned with ``users``), the rows removed
        from its list; a column of ``to_frame()``. None otherwise, and on Spark.
    n_exclude_unmatched : int or None
        With :func:`evaluate_embeddings` (in memory or on Spark) and
        ``exclude=``: the distinct (user, item) pairs of ``exclude`` whose user
        or item has no vector, which mask nothing. None otherwise.
    n_candidates_unmatched : int or None
        With :func:`evaluate_embeddings` and ``candidates=``: the distinct
        (user, item) pairs of ``candidates`` whose user or item has no vector,
        which are never scored. None otherwise.
    n_pairs_propensity_clipped : dict of str to int
        With ``propensity_clip`` (above 0), per propensity-weighted metric: the
        relevant (user, item) pairs of the qrels (at its ``rel_threshold``)
        whose propensity was below the clip, raised to it (their weight
        lowered to ``1 / propensity_clip``). Empty otherwise.

    Notes
    -----
    Every backend makes this report with one aggregation (in memory, a
    :func:`receval.scan` of a run, :func:`receval.spark.evaluate`), so its means
    and counts agree to the last bit. The report of
    :func:`receval.spark.evaluate` holds no per-user values: ``users`` is empty,
    ``values`` holds no metric, and ``per_user``, ``to_frame``, ``by_segment``,
    ``subset``, ``subsets`` and ``mean_states_of`` raise; every other attribute is there.
    """

    mean: dict[str, float]
    # the users as kept (string ids read from Arrow stay Arrow until ``users`` is read)
    _user_ids: Any = field(repr=False)
    values: dict[str, np.ndarray]
    metrics: dict[str, str]
    conventions: dict[str, Conventions]
    n_users: int
    n_users_missing: int
    n_users_empty: dict[str, int]
    n_users_skipped_by: dict[str, dict[str, int]]
    n_run_only_users: int
    run_name: str | None = None
    n_run_items: int = 0
    n_run_items_unmatched: int = 0
    n_users_tie_dependent: dict[str, int] = field(default_factory=dict)
    mean_ties_average: dict[str, float] = field(default_factory=dict)
    sampling: Any = None
    masking: Any = None
    n_seen_removed: np.ndarray | None = None
    n_exclude_unmatched: int | None = None
    n_candidates_unmatched: int | None = None
    n_pairs_propensity_clipped: dict[str, int] = field(default_factory=dict)
    _aux: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _states: dict[str, MeanState] = field(default_factory=dict, repr=False)
    # ranked metrics' per-user values before the mean's rules (pooled: numerators)
    _raw: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    # the users absent from the run (None: not known)
    _missing: np.ndarray | None = field(default=None, repr=False)
    # ranked metrics' values before the mean's rules with ties="average", where some
    # user's value differs from the tie order's (the others' as in _raw)
    _averaged: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    # whether the per-user values came back (not from receval.spark.evaluate)
    _rows: bool = field(default=True, repr=False)
    # per metric, why each user was left out of its mean (skip_codes)
    _skipped: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    @cached_property
    def users(self) -> np.ndarray:
        """The qrels users, in order of first appearance (string ids as an object
        array, made when first read)."""
        from ..data._strings import ids_to_numpy

        return ids_to_numpy(self._user_ids)

    def _check_rows(self, what: str) -> None:
        if not self._rows:
            raise InvalidParameterError(
                f"EvaluationReport.{what}: this report holds no per-user values (those of "
                f"receval.spark.evaluate stay on the executors); use its means and counts, or "
                f"receval.evaluate on the collected rows."
            )

    @property
    def n_users_skipped(self) -> dict[str, int]:
        """Per metric, the users left out of its mean, by any rule (the sum of
        ``n_users_skipped_by``)."""
        return {t: sum(by.values()) for t, by in self.n_users_skipped_by.items()}

    @property
    def n_users_counted(self) -> dict[str, int]:
        """Per metric, the users its mean counts: the qrels users (``users``) less
        those its rules skipped. A metric of the run's lists alone (``arp@10``,
        ``ils@10``, ...) counts the qrels users found in the run, not the
        ``n_run_only_users`` others, where its function
        (:func:`average_recommendation_popularity`, ...) and ``evaluate(None, run,
        ...)`` count every user of the run.

        Examples
        --------
        >>> import receval
        >>> qrels = {"u1": {"a": 1}, "u2": {"b": 1}}
        >>> run = {"u1": {"a": 0.9}, "u3": {"b": 0.9}}
        >>> report = receval.evaluate(qrels, run, ["arp@1"], popularity={"a": 4, "b": 2})
        >>> report.mean["arp@1"], report.n_users_counted["arp@1"], report.n_run_only_users
        (4.0, 1, 1)
        >>> arp = receval.average_recommendation_popularity(run, popularity={"a": 4, "b": 2}, k=1)
        >>> arp, arp.n_users
        (3.0, 2)
        """
        return {t: int(self.n_users - self.n_users_skipped[t]) for t in self.mean}

    @property
    def per_user(self) -> Any:
        """Per-user values as a DataFrame (pandas, else polars), else a dict of arrays."""
        self._check_rows("per_user")
        try:
            return self.to_frame()
        except ImportError:
            return {"user": self.users, **self.values}

    def to_frame(self, backend: str | None = None) -> Any:
        """Per-user values as a pandas (default) or polars DataFrame: a ``user`` column
        (``users``: the qrels users in order of first appearance, ids as given), then one
        column per metric (and ``n_seen_removed`` where seen items were removed).

        Parameters
        ----------
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ..data.frames import make_frame

        self._check_rows("to_frame")
        removed = {} if self.n_seen_removed is None else {"n_seen_removed": self.n_seen_removed}
        return make_frame({"user": self.users, **self.values, **removed}, backend=backend)

    def by_segment(self, segments: Any) -> Any:
        """Each metric's mean in each segment of the users, and over all of them.

        Parameters
        ----------
        segments : mapping, array-like or DataFrame
            The segment of each user: ``{user: segment}``, an array aligned
            with ``users``, or a two-column frame (user, segment). Users
            without a segment count in the overall mean only
            (``n_unassigned``); a missing label (None, NaN, NA, a null) is
            refused: leave such a user out of the mapping or frame.

        Returns
        -------
        report : SegmentReport
            The means over the users of each segment, by the same rules as
            ``mean`` (pooled metrics pool within the segment), ``counts`` the
            users of each segment, ``overall`` the report's ``mean``;
            ``n_skipped`` the users of each segment each rule left out of a
            metric's mean (as ``n_users_skipped_by`` counts them),
            ``n_skipped_overall`` the report's ``n_users_skipped_by``.

        Examples
        --------
        >>> import receval
        >>> qrels = {"u1": {"a": 1}, "u2": {"b": 1}, "u3": {"c": 1}}
        >>> run = {"u1": {"a": 0.9}, "u2": {"a": 0.9, "b": 0.5}, "u3": {"c": 0.1}}
        >>> report = receval.evaluate(qrels, run, ["mrr"])
        >>> seg = report.by_segment({"u1": "new", "u2": "new", "u3": "old"})
        >>> seg.values["mrr"].tolist(), seg.overall["mrr"]
        ([0.75, 1.0], 0.8333333333333334)
        """
        from ..segments.report import report_by_segment

        self._check_rows("by_segment")
        return report_by_segment(self, segments)

    def mean_states_of(self, metric: str, groups: tuple[np.ndarray, np.ndarray]) -> list[MeanState]:
        """The exact mean state of one metric over each group of the users, by the rules
        of its mean over all of them, in one pass: ``groups`` is ``(offsets, rows)``,
        group ``i`` the users at ``rows[offsets[i]:offsets[i + 1]]`` of ``users`` (as
        :func:`receval.segments.report.segment_rows` groups them)."""
        self._check_rows("mean_states_of")
        offsets, rows = groups
        if metric in self._raw:
            kind, conv = self._states[metric].kind, self.conventions[metric]
            return user_means(self._raw[metric][rows], self._aux[metric][rows], kind, conv,
                              offsets)  # fmt: skip
        return mean_states(self.values[metric][rows], offsets)

    def n_users_skipped_by_of(
        self, metric: str, groups: tuple[np.ndarray, np.ndarray]
    ) -> dict[str, np.ndarray]:
        """``n_users_skipped_by[metric]`` of each group of the users (``groups`` as for
        :meth:`mean_states_of`): per rule, the users of each group it left out of the
        metric's mean, from the same per-user reasons as the whole report's counts."""
        self._check_rows("n_users_skipped_by_of")
        offsets, rows = groups
        return skip_counts_by(self._skipped[metric][rows], offsets)

    def subset(self, users: Any) -> EvaluationReport:
        """The report of some of the users: a boolean mask aligned with ``users``.

        Per-user values, counts and means are those of the kept users, by the
        same rules as the whole report's (what ``evaluate`` gives on the qrels
        of those users alone); ``n_run_only_users`` and ``masking`` stay the run's
        (``n_seen_removed`` is the kept users').
        """
        self._check_rows("subset")
        kept = np.asarray(users, dtype=bool)
        if kept.shape != self.users.shape:
            raise InputValidationError(
                f"EvaluationReport.subset: users must be a boolean mask of "
                f"{counted(len(self.users), 'user')}. Got shape {kept.shape}."
            )
        return self.subsets((np.array([0, int(kept.sum())]), np.flatnonzero(kept)))[0]

    def subsets(self, groups: tuple[np.ndarray, np.ndarray]) -> list[EvaluationReport]:
        """:meth:`subset` of each group of the users, every group in one pass over
        them: ``groups`` as for :meth:`mean_states_of`, the report of group ``i`` that
        of the users ``rows[offsets[i]:offsets[i + 1]]``, in that order (the segments
        of :func:`receval.compare_by_segment`)."""
        self._check_rows("subsets")
        offsets, rows = groups
        bounds = list(zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True))

        def gathered(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
            return {t: col[rows] for t, col in cols.items()}  # each column once, grouped

        def parts(cols: dict[str, np.ndarray]) -> list[dict[str, np.ndarray]]:
            return [{t: col[lo:hi] for t, col in cols.items()} for lo, hi in bounds]

        states = {t: self.mean_states_of(t, groups) for t in self.mean}
        skipped_by = {t: self.n_users_skipped_by_of(t, groups) for t in self.mean}
        aux, raw, averaged = gathered(self._aux), gathered(self._raw), gathered(self._averaged)
        empty = {t: counts_by_group(den == 0, offsets) for t, den in aux.items()}
        moved, mean_average = self._tie_orders_of(offsets, raw, averaged, aux)
        values, raw_parts = parts(gathered(self.values)), parts(raw)
        averaged_parts = parts(averaged)
        skipped = parts(gathered({t: self._skipped[t] for t in self.mean}))
        missing = None if self._missing is None else self._missing[rows]
        seen = None if self.n_seen_removed is None else self.n_seen_removed[rows]
        users = self.users[rows]
        out = []
        for i, (lo, hi) in enumerate(bounds):
            tie_dependent = dict.fromkeys(self.n_users_tie_dependent, 0)
            tie_dependent |= {t: int(n[i]) for t, n in moved.items()}
            out.append(replace(
                self,
                mean={t: s[i].value for t, s in states.items()},
                _user_ids=users[lo:hi],
                values=values[i],
                n_users=hi - lo,
                n_users_missing=0 if missing is None else int(missing[lo:hi].sum()),
                n_users_empty={t: int(empty[t][i]) if t in empty else 0 for t in values[i]},
                n_users_skipped_by={t: {reason: int(n[i]) for reason, n in by.items()}
                                    for t, by in skipped_by.items()},
                _skipped=skipped[i],
                _aux={t: den[lo:hi] for t, den in aux.items()},
                _states={t: s[i] for t, s in states.items()},
                _raw=raw_parts[i],
                _missing=None if missing is None else missing[lo:hi],
                n_users_tie_dependent=tie_dependent,
                mean_ties_average={t: x for t, m in mean_average.items()
                                   if (x := m[i]) is not None},
                _averaged={t: col for t, col in averaged_parts[i].items() if tie_dependent[t]},
                n_seen_removed=None if seen is None else seen[lo:hi],
            ))  # fmt: skip
        return out

    def _tie_orders_of(
        self,
        offsets: np.ndarray,
        raw: dict[str, np.ndarray],
        averaged: dict[str, np.ndarray],
        aux: dict[str, np.ndarray],
    ) -> tuple[dict[str, np.ndarray], dict[str, list[float | None]]]:
        """Per metric with tie-dependent users, those of each group of the users (their
        ``_raw``, ``_averaged`` and ``_aux`` grouped, group ``i`` from ``offsets[i]`` to
        ``offsets[i + 1]``), and the group's ``mean_ties_average``: nan where a user's
        value was not averaged (its cost), None where no user of the group depends on
        the order of ties."""
        moved: dict[str, np.ndarray] = {}
        means: dict[str, list[float | None]] = {}
        for t, col in averaged.items():
            differs = ~np.isclose(raw[t], col, rtol=1e-12, atol=1e-12, equal_nan=True)
            moved[t] = counts_by_group(differs, offsets)
            not_averaged = counts_by_group(np.isnan(col) & ~np.isnan(raw[t]), offsets)
            states = user_means(col, aux[t], self._states[t].kind, self.conventions[t], offsets)
            means[t] = [
                float("nan") if lost else state.value if n else None
                for state, n, lost in zip(states, moved[t], not_averaged, strict=True)
            ]
        return moved, means

    def mean_states(self) -> dict[str, MeanState]:
        """Each metric's exact, mergeable mean over users (its sum and count), by metric
        string: the states that merge the reports of disjoint sets of users."""
        return dict(self._states)

    def unmatched_pairs(self) -> dict[str, int]:
        """``n_exclude_unmatched`` and ``n_candidates_unmatched`` by name, those that
        are not None (a retrieval from embeddings with ``exclude=``, ``candidates=``):
        as the JSON counts and the repr show them."""
        return {name: int(n) for name in ("n_exclude_unmatched", "n_candidates_unmatched")
                if (n := getattr(self, name)) is not None}  # fmt: skip

    def __repr__(self) -> str:
        return describe_report(self, "EvaluationReport", "")


def describe_report(report: Any, kind: str, extra: str) -> str:
    """The repr of an evaluation result: its counts (those of
    :meth:`EvaluationReport.unmatched_pairs` where not zero, by their name in the
    JSON counts), then one line per metric.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from receval import evaluate_embeddings
    >>> with warnings.catch_warnings(action="ignore"):  # item 7 has no vector
    ...     evaluate_embeddings({0: {0: 1}, 1: {1: 1}}, np.eye(2), np.eye(2), ["recall@1"],
    ...                         exclude={0: [1, 7]})
    EvaluationReport(run: 2 users, 0 missing from the run, 0 only in the run;
    n_exclude_unmatched=1)
      recall@1  1.000000
    """
    width = max(len(m) for m in report.mean) if report.mean else 6
    for summary in (getattr(report, "masking", None), getattr(report, "sampling", None)):
        if summary is not None:
            extra += f"; {summary.describe()}"
    unmatched = [f"{name}={n}" for name, n in report.unmatched_pairs().items() if n]
    if unmatched:
        extra += f"; {', '.join(unmatched)}"
    lines = [
        f"{kind}({report.run_name or 'run'}: {counted(report.n_users, 'user')}, "
        f"{report.n_users_missing} missing from the run, "
        f"{report.n_run_only_users} only in the run{extra})"
    ]
    for metric, value in report.mean.items():
        skipped = report.n_users_skipped[metric]
        note = f"  ({counted(skipped, 'user')} skipped)" if skipped else ""
        lines.append(f"  {metric:<{width}}  {value:.6f}{note}")
    return "\n".join(lines)


def partition_mean(
    col: np.ndarray, den: np.ndarray, kind: str, conv: Conventions
) -> tuple[MeanState, np.ndarray, int]:
    """The mergeable mean state of a ranked metric over some users, their reported
    values, and how many of them had a value before ``zero_users="skip"`` left the
    users at 0 out (what :func:`no_value` needs over all the users):
    :func:`partition_means` of one group.

    ``col``: each user's value as the kernel gives it (pooled metrics: the
    numerator), nan for a user left out; ``den``: each user's relevant items.
    """
    states, col, valued = partition_means(col, den, kind, conv, np.array([0, len(col)]))
    return states[0], col, int(valued[0])


def partition_means(
    col: np.ndarray, den: np.ndarray, kind: str, conv: Conventions, offsets: np.ndarray
) -> tuple[list[MeanState], np.ndarray, np.ndarray]:
    """:func:`partition_mean` of each group of users, grouped (group ``i`` the users
    ``offsets[i]`` to ``offsets[i + 1]`` of ``col`` and ``den``), in one pass: the
    groups' states, every user's reported value, and each group's users with a value
    before ``zero_users="skip"``."""
    valued = np.zeros(len(offsets) - 1, dtype=np.int64)
    if conv.zero_users == "skip" and kind == "users":
        # ranked_values left out the users without a relevant item in the top k; a user
        # still at 0 has one, but a value of 0 (R-precision: none in the top min(R, k)):
        # users at 0 leave the mean (when every counted user is at 0, the mean of
        # nothing, nan, as Recommenders'); a group without a value holds no 0 either
        valued = counts_by_group(~np.isnan(col), offsets)
        col = np.where(col == 0, np.nan, col)
    kept = ~np.isnan(col)
    if kind == "pooled":
        states = mean_states(col, offsets, den)  # sum of hits over sum of relevant items
        with np.errstate(invalid="ignore", divide="ignore"):
            col = np.where(den > 0, col / np.where(den > 0, den, 1), 0.0)
        col[~kept] = np.nan
        return states, col, valued
    return mean_states(col, offsets, kind=kind), col, valued


def skip_codes(
    reported: np.ndarray,
    conv: Conventions | None = None,
    ranked: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None] | None = None,
) -> np.ndarray:
    """Per user, why a metric's mean leaves it out: 0 where it counts, else 1 + the
    index in :data:`~receval.conventions.SKIP_REASONS` of the first rule that left it
    out (``n_users_skipped_by``).

    ``reported``: the values as reported (nan: left out). For a metric of the run's
    lists alone, that is all (no rule applies: every user left out has no value).
    For a ranked metric, ``conv`` its conventions and ``ranked`` its columns of
    :func:`~receval.ranking.values.ranked_values`: each user's value (nan: left out
    by a rule, or without a value), whether ``zero_users="skip"`` left the user out
    there, its relevant items, and whether it is absent from the run (None: none is).
    ``zero_users="skip"`` leaves out the users with a value before it (there, or in
    :func:`partition_mean`).
    """
    left = np.isnan(reported)
    codes = np.where(left, SKIP_REASONS.index("no_value") + 1, 0).astype(np.int8)
    if conv is None or ranked is None:
        return codes
    value, zeroed, den, missing = ranked
    by_kernel = left & np.isnan(value) & ~zeroed  # the kernel gave no value
    codes[left & ~by_kernel] = SKIP_REASONS.index("zero_users") + 1
    if conv.missing_users == "skip" and missing is not None:
        codes[by_kernel & missing] = SKIP_REASONS.index("missing_users") + 1
    if conv.empty_users == "skip":  # counted first: assigned last
        codes[by_kernel & (den == 0)] = SKIP_REASONS.index("empty_users") + 1
    return codes


def skip_counts(codes: np.ndarray) -> dict[str, int]:
    """The users that :func:`skip_codes` gives each reason, by reason."""
    by_group = skip_counts_by(codes, np.array([0, len(codes)]))
    return {reason: int(counts[0]) for reason, counts in by_group.items()}


def skip_counts_by(codes: np.ndarray, offsets: np.ndarray) -> dict[str, np.ndarray]:
    """Per reason, the users of each group that :func:`skip_codes` gives it: the codes
    grouped, group ``i`` those from ``offsets[i]`` to ``offsets[i + 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> by = skip_counts_by(np.array([0, 1, 0, 4, 4], dtype=np.int8), np.array([0, 2, 5]))
    >>> by["empty_users"].tolist(), by["no_value"].tolist()
    ([1, 0], [0, 2])
    """
    width = len(SKIP_REASONS) + 1  # code 0 (counted) and one a reason
    sizes = np.diff(offsets)
    cells = np.repeat(np.arange(len(sizes)) * width, sizes) + codes
    table = np.bincount(cells, minlength=len(sizes) * width).reshape(-1, width)
    return {reason: table[:, i + 1] for i, reason in enumerate(SKIP_REASONS)}


def no_value(kind: str, conv: Conventions, valued: int) -> bool:
    """Whether a mean is 0.0 by ``zero_users="skip"``'s rule: no user has a relevant
    item in any top k (Recommenders returns 0.0)."""
    return conv.zero_users == "skip" and kind == "users" and not valued


#: The state whose mean is 0.0 (``zero_users="skip"`` when no user has a value).
ZERO_MEAN = mean_state(np.zeros(1))


def user_means(
    col: np.ndarray, den: np.ndarray, kind: str, conv: Conventions, offsets: np.ndarray
) -> list[MeanState]:
    """The mean state of a ranked metric over each group of users, grouped as for
    :func:`partition_means`.

    ``col``: each user's value as the kernel gives it (pooled metrics: the
    numerator), nan for a user left out; ``den``: each user's relevant items.
    The same for all the users of a report and for the segments of them.
    """
    states, _, valued = partition_means(col, den, kind, conv, offsets)
    return [ZERO_MEAN if no_value(kind, conv, int(n)) else state
            for state, n in zip(states, valued, strict=True)]  # fmt: skip
