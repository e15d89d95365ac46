"""Per-user values of :func:`receval.evaluate`: the inputs as :class:`~receval.Qrels`
and :class:`~receval.Run`, the qrels grades each metric takes (checked once, before
any user is evaluated), each metric spec as a row of the ranking kernel, the
kernel's values per user (with the rules that leave users out), and the values of
the list-wise metrics (beyond accuracy) per run user.

Every partition of users (in memory, a batch of a scanned run, a Spark partition,
an accumulator's update) computes these for its users."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any

import numpy as np

from .._kernels import codes as _core_codes
from ..conventions import PROFILE_GRADES, PROFILE_REFUSED, Conventions, PeerGrades, PeerRefusal
from ..data._arrow import take_at
from ..data._lookup import distinct, lookup_ids
from ..data._ranked import Qrels, Run
from ..exceptions import InputValidationError
from ..registry import MetricSpec, parse_metric
from .specs import grade_limits, kernel_spec

codes = _core_codes()  # the ranking kernel's codes, defined in the compiled core

__all__ = [
    "as_popularity_table",
    "check_grades",
    "kernel_columns",
    "kernel_values",
    "list_values",
    "overflow_refusal",
    "ranked_values",
    "subset_qrels",
    "users_beyond",
    "users_given",
    "users_in_run",
]


def as_popularity_table(popularity: Any, train: Any, func: str) -> Any:
    """The popularity table of ``popularity=`` / ``train=``, built once per evaluation
    (None when neither is given); errors name ``func``."""
    if popularity is None and train is None:
        return None
    from ..metrics.beyond.popularity_table import as_popularity

    return as_popularity(popularity, train, func)


def subset_qrels(q: Any, users: np.ndarray) -> tuple[Any, np.ndarray]:
    """The qrels of some users (positions in ``q``), with their items only, and the
    code in ``q`` of each of those items (an item map of ``q`` serves them so)."""

    lengths = np.diff(q.offsets)[users]
    offsets = np.zeros(len(users) + 1, dtype=q.offsets.dtype)
    np.cumsum(lengths, out=offsets[1:])
    rows = np.repeat(q.offsets[users] - offsets[:-1], lengths) + np.arange(int(offsets[-1]))
    items = q.items[rows]
    kept, codes = np.unique(items, return_inverse=True)  # monotone: item order kept
    sub = Qrels.__new__(Qrels)
    sub.offsets = offsets
    sub.items = codes.astype(q.items.dtype, copy=False)
    sub.grades = q.grades[rows]
    sub.grades_desc = q.grades_desc[rows]
    sub.user_ids = take_at(q.encoded_ids("users"), users)
    sub.item_ids = take_at(q.encoded_ids("items"), kept)
    return sub, kept


def users_given(qrels: Qrels | None, run: Run | None) -> list[np.ndarray]:
    """The user ids of a partition, as an accumulator's check of users given in two
    updates takes them: its qrels users, then its run users absent from the qrels
    (only in the run; also a user whose rows ``exclude=`` or ``candidates=`` dropped)."""
    given = [] if qrels is None else [qrels.user_ids]
    if run is not None:
        ids = run.user_ids
        if qrels is not None:
            ids = ids[lookup_ids(run.encoded_ids("users"), qrels.encoded_ids("users")) < 0]
        given.append(ids)
    return [ids for ids in given if len(ids)]


def users_in_run(q_users: Any, r_users: Any) -> tuple[np.ndarray, int]:
    """Each qrels user's position among the run's users (-1: absent; every user when
    ``r_users`` is None: no run) and the number of qrels users absent from the run:
    the reports' ``n_users_missing``. ``q_users``, ``r_users``: the distinct user ids
    of each, as :meth:`~receval.Qrels.encoded_ids` gives them, or as an accumulator
    holds them (:func:`~receval.ranking.open_users.held_ids`)."""
    n_users = len(q_users)
    if r_users is None:
        return np.full(n_users, -1, dtype=np.int32), n_users
    user_map = lookup_ids(q_users, r_users)
    return user_map, n_users - int(np.count_nonzero(user_map >= 0))


def ranked_values(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    propensities: Any,
    item_map: np.ndarray | None,
    func: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per qrels user and ranked metric: the value, its denominator (the user's
    relevant items) and whether ``zero_users="skip"`` left the user out (its value,
    0, made nan); ``user_map`` gives each qrels user's position in the run (-1:
    absent), ``item_map`` each qrels item's (computed here when not given); ``func``:
    the caller, which the errors name.

    The kernel computes every metric but expected exposure, which
    ``metrics._exposure.exposure_columns`` adds from :func:`receval.expected_exposure`,
    and the propensity-weighted ones (``propensities``: a ``Propensities``), which
    ``metrics._propensity.propensity_columns`` adds.
    """
    values, aux = _metric_values(q, r, specs, convs, ranked, user_map, propensities, item_map,
                                 func)  # fmt: skip
    # a mean over users only (not a pooled ratio, a sum or a geometric mean)
    skip = [
        j
        for j, t in enumerate(ranked)
        if convs[t].zero_users == "skip" and specs[t].info.mean == "users"
    ]
    zeroed = np.zeros(values.shape, dtype=bool)
    if skip:
        _leave_out_users_without_hits(q, r, specs, convs, ranked, user_map, values, zeroed, skip)
    return values, aux, zeroed


def _leave_out_users_without_hits(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    values: np.ndarray,
    zeroed: np.ndarray,
    skip: list[int],
) -> None:
    """``zero_users="skip"`` (Microsoft Recommenders' ``r_precision_at_k``): a user
    without a relevant item in the top k is left out (nan in ``values``, True in
    ``zeroed``, in place); one with such an
    item keeps its value, which is 0 for R-precision when none is in the top min(R, k)
    (Recommenders counts that user, undefined: see ``user_mean``)."""
    rprec = [ranked[j] for j in skip if specs[ranked[j]].info.kind == codes.R_PRECISION]
    hits: dict[str, np.ndarray] = {}
    if rprec:  # success@k of the same users and conventions: a relevant item in the top k
        probes = {
            t: parse_metric("success" + (f"@{specs[t].k}" if specs[t].k else "")) for t in rprec
        }
        found, _ = kernel_values(q, r, probes, convs, rprec, user_map)
        hits = {t: found[:, i] > 0 for i, t in enumerate(rprec)}
    for j in skip:
        col = values[:, j]
        none = col == 0
        if ranked[j] in hits:
            none &= ~hits[ranked[j]]
        col[none] = np.nan
        zeroed[:, j] = none


def _metric_values(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    propensities: Any,
    item_map: np.ndarray | None,
    func: str,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranked_values` before its ``zero_users`` rule."""
    exposure = [t for t in ranked if specs[t].info.kind in codes.EXPOSURE_KINDS]
    weighted = [t for t in ranked if convs[t].estimator != "naive" and t not in exposure]
    if not exposure and not weighted:
        return kernel_values(q, r, specs, convs, ranked, user_map, item_map)
    values = np.empty((q.n_users, len(ranked)), dtype=np.float64)
    aux = np.empty((q.n_users, len(ranked)), dtype=np.float64)
    kernel = [t for t in ranked if t not in exposure and t not in weighted]
    if kernel:
        kv, ka = kernel_values(q, r, specs, convs, kernel, user_map, item_map)
        for j, t in enumerate(kernel):
            values[:, ranked.index(t)], aux[:, ranked.index(t)] = kv[:, j], ka[:, j]
    from ..metrics._propensity import propensity_columns
    from ..metrics.beyond.exposure import exposure_columns

    columns = exposure_columns(q, r, {t: specs[t] for t in exposure}, convs) if exposure else {}
    if weighted:
        sub = {t: specs[t] for t in weighted}
        columns.update(propensity_columns(q, r, sub, convs, user_map, propensities, func))
    for t, (col, den) in columns.items():
        values[:, ranked.index(t)], aux[:, ranked.index(t)] = col, den
    return values, aux


def kernel_values(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    item_map: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranked_values` of the metrics the kernel computes (their grades checked
    before, by :func:`check_grades`)."""
    kernel_specs = [kernel_spec(specs[t], convs[t]) for t in ranked]
    ties = {c.ties for c in convs.values()}
    return kernel_columns(q, r, kernel_specs, ties, user_map, item_map)


def kernel_columns(
    q: Qrels,
    r: Run,
    kernel_specs: list[Any],
    ties: set[str],
    user_map: np.ndarray,
    item_map: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ranking kernel's ``(values, aux)`` of ready specs (``receval._core.RankingSpec``),
    each of shape (n qrels users, n specs): the qrels user ``u`` ranks the run user
    ``user_map[u]``'s list (-1: absent from the run); ``ties``: the tie rules of the
    specs (which tie keys of the run the kernel reads)."""
    from .._kernels import compiled, num_threads

    if item_map is None:
        item_map = q.positions_in(r, "items")
    need_trec = "trec" in ties and r.has_single_precision_ties
    need_ascending = bool(ties & {"id_ascending", "id_descending"}) and r.has_ties
    r_keys = r.tie_keys(single=need_trec) if need_trec or need_ascending else np.empty(0)
    max_len = max(int(np.diff(r.offsets).max()) if r.n_users else 0, 1)
    depth = max(max_len, int(np.diff(q.offsets).max()))
    disc = 1.0 / np.log2(np.arange(depth, dtype=np.float64) + 2.0)
    n_chunks = 4 * num_threads()
    codes32 = [np.ascontiguousarray(x, dtype=np.int32) for x in (q.items, r.items)]
    maps32 = [np.ascontiguousarray(x, dtype=np.int32) for x in (item_map, user_map)]
    result: tuple[np.ndarray, np.ndarray] = compiled().evaluate_users(
        q.offsets, codes32[0], q.grades, q.grades_desc,
        r.offsets, codes32[1], r.scores, r_keys, maps32[0], maps32[1], kernel_specs,
        max_len, n_chunks, disc,
    )  # fmt: skip
    return result


def check_grades(
    q: Qrels,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    profile: str | None,
    func: str,
) -> None:
    """Refuse the qrels grades that a ranked metric does not take, by the rules of
    :func:`~receval.ranking.specs.grade_limits` (the grades a profile's peer refuses or
    changes first, then those of its NDCG, the exponential gain's, a gains table's,
    ERR's, then the sums of trec_eval's gains);
    ``func``: the caller the message names. Every source checks its qrels here, once,
    before any user is evaluated, and reads the grades at most once for each of their
    extremes and non-integers, whatever the number of metrics."""
    if not q.n_rows:
        return
    limits = {t: grade_limits(specs[t], convs[t], profile) for t in specs}
    grades = _Grades(q.grades)
    peer = PROFILE_GRADES.get(profile) if isinstance(profile, str) else None
    refusal = PROFILE_REFUSED.get(profile) if isinstance(profile, str) else None
    rules = ("refusal", "peer", "exponential", "integers", "stop", "sums")  # checked in order
    for rule in rules:
        for text, of in limits.items():
            if rule not in of:
                continue
            limit, spec = of[rule], specs[text]
            if limit is None:  # (grade_limits gives every rule a limit)
                continue
            if rule == "refusal":
                problem = _peer_changes(grades, refusal, profile)
            elif rule == "integers":
                problem = _fractions_refused(grades, limit)
            elif rule == "peer":
                problem = _peer_refused(grades, spec, int(limit), peer, profile)
            elif rule == "exponential":
                problem = _overflow_refused(grades, limit)
            elif rule == "sums":
                problem = _sums_refused(q, spec, limit)
            else:
                problem = _stops_refused(grades, spec, limit)
            if problem:
                raise InputValidationError(f"{func}: metric {text!r} {problem}")


class _Grades:
    """The qrels grades as the rules of :func:`check_grades` read them: their extremes
    and which of them are not integers, each computed on its first read (one pass over
    the grades each), then kept for every metric of the call."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    @cached_property
    def top(self) -> float:
        """The largest grade."""
        return float(np.max(self.values))

    @cached_property
    def bottom(self) -> float:
        """The smallest grade."""
        return float(np.min(self.values))

    @cached_property
    def fractional(self) -> np.ndarray:
        """Which grades are not integers (a boolean mask)."""
        mask: np.ndarray = self.values != np.floor(self.values)
        return mask

    @cached_property
    def integers(self) -> bool:
        """Whether every grade is an integer."""
        return not self.fractional.any()


def _shown(grades: np.ndarray) -> str:
    """Some distinct grades, as a message shows them (a whole number as an integer)."""
    from .._validation import format_values

    return format_values([int(x) if float(x).is_integer() else float(x) for x in distinct(grades)])


def _peer_changes(g: _Grades, refusal: PeerRefusal | None, profile: str | None) -> str | None:
    """The profile's peer refuses (or changes without a word) the grades of
    ``refusal``, where receval would compute with them as they are."""
    if refusal is None:
        return None  # (grade_limits gives the rule with a refusal only)
    if refusal.grades == "negative":
        if g.bottom >= 0:
            return None
        bad, taken = g.values[g.values < 0], "grades of 0 or more"
    else:
        if g.integers:
            return None
        bad, taken = g.values[g.fractional], "integer grades"
    return (
        f"with profile={profile!r} takes {taken} only: {refusal.does}. Got grades "
        f"{_shown(bad)}; {refusal.fix}."
    )


def _peer_refused(
    g: _Grades, spec: MetricSpec, n: int, peer: PeerGrades | None, profile: str | None
) -> str | None:
    """The profile's peer takes the integers from 0 to ``n`` - 1 in its NDCG, where
    receval would compute a value the peer has none of."""
    if peer is None or (g.integers and g.bottom >= 0 and g.top < n):
        return None  # (grade_limits gives the rule with a peer only)
    v = g.values
    bad = v[g.fractional | (v < 0) | (v >= n)]
    tabled = "gains" in dict(spec.args)
    table = "label_gain, here ndcg(gains=...)" if tabled else peer.table
    return (
        f"with profile={profile!r} takes the qrels grades "
        f"that {peer.peer} takes: integers from 0 to {n - 1}, the labels of its "
        f"{table}. Got grades {_shown(bad)}, which {peer.peer} refuses; "
        f"{peer.fix.format(last=n - 1)}."
    )


def _overflow_refused(g: _Grades, limit: float) -> str | None:
    """``gain="exponential"``'s 2**grade - 1 overflows float64 from ``limit`` on."""
    if g.top < limit:
        return None
    return (
        f"uses gain='exponential' (2**grade - 1), which "
        f"overflows float64 for grades >= {limit:g}. Got a grade of {g.top:g}; use "
        f"gain='linear' or map the grades to a smaller range."
    )


#: the clip the fix of weights beyond float64's range suggests
SUGGESTED_CLIP = "1e-6"

_GRADES_FIX = "map the grades to a smaller range"
_CLIP_FIX = f"pass propensity_clip= (e.g. {SUGGESTED_CLIP}) to bound the weights at 1 / clip"

# by cause, what a metric sums beyond float64's range and the fix
_OVERFLOW_CAUSES = {
    "gains": ("gains", _GRADES_FIX),
    "exponential": ("gains", f"use gain='linear' or {_GRADES_FIX}"),
    "table": ("gains", "map the grades (and the gains of gains=) to a smaller range"),
    "weights": ("weights 1 / propensity", _CLIP_FIX),
    "weighted gains": ("gains times weights 1 / propensity", _CLIP_FIX),
}


def overflow_refusal(q: Qrels, where: np.ndarray, cause: str) -> str:
    """Why a metric is refused where it sums beyond float64's range (1.8e308) for the
    qrels users at positions ``where`` (a few of them shown), and the fix, by
    ``cause``: "gains" (the grades' gains), "exponential" (``gain="exponential"``'s),
    "table" (trec_eval's table of gains, ``gains=``), "weights" (the weights 1 /
    propensity of a metric without gains) or "weighted gains" (gains within reach,
    times weights that take them beyond it)."""
    from .._validation import counted, format_values

    summed, fix = _OVERFLOW_CAUSES[cause]
    return (
        f"sums {summed} beyond float64's range (above 1.8e308) for "
        f"{counted(len(where), 'user')}, "
        f"e.g. {format_values(q.ids_at('users', where[:5]))}; {fix}."
    )


def users_beyond(q: Qrels, gains: np.ndarray, room: float = 1.0) -> np.ndarray:
    """The positions of the qrels users whose positive ``gains`` (one per qrels row)
    sum beyond float64's range, or beyond it over ``room`` (the factor a sum must leave
    room for). The sums are taken times 2**-64 (exact for a power of two), which no
    sum of fewer than 2**63 gains takes beyond float64."""
    row_user = np.repeat(np.arange(q.n_users), np.diff(q.offsets))
    scaled = np.ldexp(np.maximum(gains, 0.0), -64)
    sums = np.bincount(row_user, weights=scaled, minlength=q.n_users)
    return np.flatnonzero(sums > np.ldexp(np.finfo(np.float64).max, -64) / room)


def _sums_refused(q: Qrels, spec: MetricSpec, earned_from: float) -> str | None:
    """trec_eval's gain measures sum the gains of its table (each grade from
    ``earned_from`` on as its gain, or the gain ``gains=`` gives it) without rescaling
    them: a user whose positive gains sum beyond float64's range would get a silent
    nan, 0 or a wrong value."""
    grades = q.grades
    gains = grades.astype(np.float64)
    table: Any = dict(spec.args).get("gains", ())
    for grade, gain in table:
        gains[grades == grade] = gain
    gains[grades < earned_from] = 0.0
    where = users_beyond(q, gains)
    if not len(where):
        return None
    return overflow_refusal(q, where, "table" if table else "gains")


def _fractions_refused(g: _Grades, limit: float) -> str | None:
    """A table of integer grades (``gains=``: LightGBM's ``label_gain``) has no gain for
    a grade that is not an integer, and holds a level for each integer from 0 to the
    largest grade (trec_eval's table): none from ``limit`` on."""
    if not g.integers:
        return (
            f"gains by a table of integer grades (gains=), "
            f"and the qrels hold grades that are not integers. Got grades "
            f"{_shown(g.values[g.fractional])}; round the grades, or use "
            f"gain='linear' or 'exponential', which read any grade."
        )
    if g.top < limit:
        return None
    return (
        f"gains by a table of integer grades (gains=) with a level for each integer "
        f"from 0 to the largest grade, below {limit:,.0f}. Got a grade of {g.top:g}; "
        f"map the grades to a smaller range (a grade not in gains= is its own gain)."
    )


def _stops_refused(g: _Grades, spec: MetricSpec, limit: float) -> str | None:
    """gdeval's ERR would stop the user at a grade above ``limit`` (``max_grade``) with a
    probability ``(2**g - 1) / 2**max_grade`` above 1 (a value above 1; gdeval refuses
    such a grade)."""
    top = g.top
    if top <= limit:
        return None
    fix = f"map the grades to [0, {limit:g}]"
    if spec.name == "err":
        fix = f"pass err(max_grade={top:g}) or {fix}"
    return (
        f"stops the user at an item of grade g with "
        f"probability (2**g - 1) / 2**{limit:g}, above 1 (and ERR above 1) for a grade "
        f"above {limit:g}. Got a grade of {top:g}; {fix[0].upper()}{fix[1:]}."
    )


def list_values(
    r: Run,
    listwise: set[str],
    specs: dict[str, MetricSpec],
    features: Any,
    feature_items: Any,
    similarity: Any,
    popularity: Any = None,
    item_categories: Any = None,
) -> dict[str, np.ndarray]:
    """Per run user, the value of each beyond-accuracy metric (nan: undefined);
    ``popularity`` is a :class:`~receval.metrics.beyond.popularity_table.PopularityTable`."""
    from ..metrics.beyond.diversity import expected_ils_per_user, ils_per_user
    from ..metrics.beyond.popularity_users import POPULARITY_METRICS, popularity_per_user

    by_k: dict[tuple[int | None, bool], np.ndarray] = {}
    out: dict[str, np.ndarray] = {}
    for text in specs:
        if text not in listwise:
            continue
        spec = specs[text]
        if spec.info.needs == "popularity":
            param = POPULARITY_METRICS[spec.name]
            arg = None if param is None else float(spec.arg(param))
            average = dict(spec.params).get("ties") == "average"
            out[text] = popularity_per_user(r, popularity, spec.name, spec.k, arg, average)
            continue
        if spec.info.needs in ("history", "categories"):
            out[text] = _history_values(
                r, spec, features, feature_items, popularity, item_categories
            )
            continue
        average = dict(spec.params).get("ties") == "average" and spec.k is not None
        if (spec.k, average) not in by_k:
            per_user: Callable[..., np.ndarray] = expected_ils_per_user if average else ils_per_user
            by_k[(spec.k, average)] = per_user(
                r,
                spec.k,
                features=features,
                feature_items=feature_items,
                similarity=similarity,
                func="evaluate",
            )
        ils = by_k[(spec.k, average)]
        out[text] = ils if spec.info.kind == codes.ILS else 1.0 - ils
    return out


def _history_values(
    r: Run,
    spec: MetricSpec,
    features: Any,
    feature_items: Any,
    popularity: Any,
    item_categories: Any,
) -> np.ndarray:
    """Per run user, ``serendipity@k`` (feature cosine with ``features=``, co-occurrence
    in ``train=`` otherwise) or ``miscalibration@k``."""
    from ..metrics.beyond.history import log_of_popularity
    from ..metrics.beyond.miscalibration import miscalibration_per_user
    from ..metrics.beyond.serendipity import serendipity_per_user

    log = log_of_popularity(popularity)
    if spec.info.kind == codes.SERENDIPITY:
        return serendipity_per_user(
            r, log, spec.k, features=features, feature_items=feature_items, func="evaluate",
            average_ties=dict(spec.params).get("ties") == "average",
        )  # fmt: skip
    alpha = float(spec.arg("alpha"))
    return miscalibration_per_user(
        r, log, item_categories, spec.k, alpha, "evaluate",
        average_ties=dict(spec.params).get("ties") == "average",
    )  # fmt: skip
