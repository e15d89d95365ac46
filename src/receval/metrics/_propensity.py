"""Propensity-weighted (IPS / SNIPS) ranking metrics for missing-not-at-random feedback.

Held-out clicks come from what an earlier system showed: a relevant item ``i`` of
user ``u`` is in the qrels only with probability ``p_ui`` (its *propensity*), and
metrics over the observed items favour that system. Weighting every observed
relevant item by ``1 / p_ui`` (inverse propensity scoring, IPS) gives estimates of
the metric over all the relevant items, observed or not (Schnabel et al. 2016;
Yang et al. 2018). :func:`propensity_columns` computes ``precision``, ``recall``,
``dcg``, ``ndcg`` and ``map`` so, per qrels user, beside the kernel's metrics;
the definitions are in docs/conventions.md ("Propensity-weighted metrics").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import compiled
from ..data._encode import factorize
from ..data._lookup import lookup
from ..data._ranked import Qrels, Run
from ..data.io import column_names, frame_columns, is_frame
from ..engine.sums import weight_shifts
from ..exceptions import InputValidationError, InvalidParameterError

__all__ = [
    "DEFAULT_GAMMA",
    "WEIGHTED_METRICS",
    "Propensities",
    "Refusal",
    "as_propensities",
    "check_propensities",
    "gains_of",
    "prepare_weighting",
    "propensity_columns",
]

#: the metrics with a propensity-weighted form
WEIGHTED_METRICS = ("precision", "recall", "dcg", "ndcg", "map")
#: the popularity model's exponent ``(gamma + 1) / 2`` is 0.5 by default: the square root
DEFAULT_GAMMA = 0.0


@dataclass(eq=False)
class Propensities:
    """Propensities per item or per (user, item) pair, with the clipping bound.

    Parameters
    ----------
    values : ndarray of shape (n,)
        The propensities, in (0, 1] (0 for an item without interactions under
        the popularity model).
    item_ids : ndarray
        Per item: the distinct item ids of ``values``; per pair: the distinct
        item ids that ``keys`` index.
    user_ids : ndarray or None
        Per pair: the distinct user ids; None per item.
    keys : ndarray or None
        Per pair: ``user_code * len(item_ids) + item_code`` of each value, sorted.
    clip : float
        The smallest propensity a weight uses: ``w = 1 / max(p, clip)``.
    source : str
        How the propensities were given (for messages).
    counts, gamma : ndarray and float, or None
        The popularity model's counts of ``item_ids`` and its ``propensity_gamma``
        (for messages: a propensity 0 of an item with interactions underflowed);
        None for propensities given.
    """

    values: np.ndarray
    item_ids: np.ndarray
    user_ids: np.ndarray | None = None
    keys: np.ndarray | None = None
    _: KW_ONLY
    clip: float = 0.0
    source: str = "propensities"
    counts: np.ndarray | None = None
    gamma: float | None = None

    def __eq__(self, other: object) -> bool:
        """The same propensities, clip and source (accumulators with equal options merge)."""
        if not isinstance(other, Propensities):
            return NotImplemented
        mine = (self.values, self.item_ids, self.user_ids, self.keys)
        theirs = (other.values, other.item_ids, other.user_ids, other.keys)
        return (self.clip, self.source) == (other.clip, other.source) and all(
            a is b or (a is not None and b is not None and np.array_equal(a, b))
            for a, b in zip(mine, theirs, strict=True)
        )

    __hash__ = None  # type: ignore[assignment]

    def of_qrels(self, q: Qrels) -> np.ndarray:
        """The propensity of each qrels row (CSR order); nan where none was given."""
        items = lookup(q.item_ids, self.item_ids).astype(np.int64)[q.items]
        if self.user_ids is None:
            default = 0.0 if self.source == "popularity" else np.nan
            return np.where(items >= 0, self.values[np.maximum(items, 0)], default)
        users = lookup(q.user_ids, self.user_ids).astype(np.int64)
        users = np.repeat(users, np.diff(q.offsets))
        keys = np.zeros(1, dtype=np.int64) if self.keys is None else self.keys
        key = users * max(len(self.item_ids), 1) + items
        pos = np.minimum(np.searchsorted(keys, key), len(keys) - 1)
        found = (users >= 0) & (items >= 0) & (keys[pos] == key)
        return np.where(found, self.values[pos], np.nan)

    def weights(self, q: Qrels, threshold: float, func: str) -> np.ndarray:
        """``1 / max(p, clip)`` of each relevant qrels row (grade >= ``threshold``), 0
        elsewhere; raises, naming ``func`` (the caller), when a relevant row has no
        propensity, or 0 without a clip (the error's ``tally``: its :class:`Refusal`)."""
        relevant = q.grades >= threshold
        p = self.of_qrels(q)
        missing = relevant & np.isnan(p)
        p = np.where(relevant, np.maximum(p, self.clip), 1.0)
        zero = relevant & (p <= 0)
        # of those, the items with interactions whose p = (n / max n)**((gamma + 1) / 2)
        # underflowed to 0 (a gamma too large), told apart from items without any
        under = np.zeros_like(zero)
        if zero.any() and self.counts is not None:
            items = lookup(q.item_ids, self.item_ids).astype(np.int64)[q.items]
            under = zero & (items >= 0) & (self.counts[np.maximum(items, 0)] > 0)
        with np.errstate(divide="ignore", over="ignore"):  # 0 or beyond float64: refused
            w = np.where(relevant, 1.0 / p, 0.0)
        huge = ~np.isfinite(w) & ~missing & ~zero
        checks = (missing, under, zero & ~under, huge)  # in the order of _REFUSALS
        for kind, rows in enumerate(checks):
            if rows.any():
                pairs = _pairs(q, rows)
                raise Refusal(func, threshold, kind, int(rows.sum()), pairs, self.gamma).error()
        return w


#: What :meth:`Propensities.weights` refuses, in the order it checks: relevant pairs
#: without a propensity, of propensity 0 by underflow (the popularity model's, for items
#: with interactions), of propensity 0, of a weight beyond float64's range.
_REFUSALS = (
    "{func}: propensities has no propensity for {pairs_counted} of the qrels, e.g. {pairs}; "
    "give one for every item graded >= {threshold}.",
    "{func}: {pairs_counted} of the qrels {have} propensity 0 under the popularity model "
    "although their items have interactions, e.g. {pairs}: p = (n / max n)**((gamma + 1) / "
    "2) underflows to 0 with propensity_gamma={gamma!r}; pass a smaller propensity_gamma, or "
    "propensity_clip > 0 to bound their weight.",
    "{func}: {pairs_counted} of the qrels {have} propensity 0 under the popularity model "
    "(items without interactions in popularity= / train=), e.g. {pairs}; pass "
    "propensity_clip > 0 to bound their weight.",
    "{func}: {pairs_counted} of the qrels {have} a propensity so small that its weight 1 / p "
    "is beyond float64's range (p below 5.6e-309), e.g. {pairs}; pass propensity_clip > 0 "
    "(e.g. 1e-6) to bound their weight at 1 / clip.",
)


@dataclass(frozen=True)
class Refusal:
    """The relevant (user, item) pairs of qrels whose propensity a weighted metric cannot
    use: the first check of :meth:`Propensities.weights` they fail (at ``threshold``,
    ``kind``: the place of its message in :data:`_REFUSALS`), their number and a few.

    The refusals of parts of the qrels (Spark's partitions, each raising its own)
    merge into the refusal of the whole qrels, its count theirs added up.
    """

    func: str
    threshold: float
    kind: int
    count: int
    pairs: tuple[tuple[Any, Any], ...]
    #: the popularity model's gamma (its message of an underflow names it)
    gamma: float | None = None

    def merge(self, other: Refusal) -> Refusal:
        """The refusal of both parts: the check the whole qrels fail first (a part that
        failed a later check passed it), its pairs of both parts counted."""
        if (self.threshold, self.kind) != (other.threshold, other.kind):
            return min(self, other, key=lambda r: (r.threshold, r.kind))
        return replace(self, count=self.count + other.count, pairs=(self.pairs + other.pairs)[:5])

    def error(self) -> InputValidationError:
        """The error that states this refusal (its ``tally``: the refusal)."""
        pairs = v.format_values(list(self.pairs))
        text = _REFUSALS[self.kind].format(
            func=self.func, pairs_counted=v.counted(self.count, "relevant (user, item) pair"),
            have=v.verb(self.count, "has"), threshold=self.threshold, pairs=pairs,
            gamma=self.gamma,
        )  # fmt: skip
        error = InputValidationError(text)
        error.tally = self
        return error


def _pairs(q: Qrels, rows: np.ndarray) -> tuple[tuple[Any, Any], ...]:
    """The first five (user, item) pairs of the qrels rows ``rows`` (a mask)."""
    where = np.flatnonzero(rows)[:5]
    users = np.searchsorted(q.offsets, where, side="right") - 1
    pairs = zip(users, where, strict=True)
    return tuple((_py(q.user_ids[u]), _py(q.item_ids[q.items[r]])) for u, r in pairs)


def _py(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


def _checked_values(values: Any, func: str) -> np.ndarray:
    p = np.asarray(values, dtype=np.float64)
    bad = ~(np.isfinite(p) & (p > 0) & (p <= 1))
    if bad.any():
        raise InputValidationError(
            f"{func}: propensities must lie in (0, 1]. Got {v.counted(int(bad.sum()), 'value')} "
            f"outside "
            f"it, e.g. {v.format_values(p[bad])}; a propensity is the probability that a "
            f"relevant item was observed."
        )
    return p


def _per_pair(users: Any, items: Any, values: Any, func: str) -> Propensities:
    user_codes, user_ids = factorize(users, "propensities", func)
    item_codes, item_ids = factorize(items, "propensities", func)
    keys = user_codes.astype(np.int64) * max(len(item_ids), 1) + item_codes
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    dup = np.flatnonzero(keys[1:] == keys[:-1])
    if dup.size:
        row = order[dup[0]]
        raise InputValidationError(
            f"{func}: propensities gives the pair "
            f"{(_py(user_ids[user_codes[row]]), _py(item_ids[item_codes[row]]))!r} more than "
            f"once. Each (user, item) pair must appear once."
        )
    return Propensities(_checked_values(values, func)[order], item_ids, user_ids, keys)


def _per_item(items: Any, values: Any, func: str) -> Propensities:
    codes, item_ids = factorize(items, "propensities", func)
    if len(item_ids) < len(codes):
        counts = np.bincount(codes)
        raise InputValidationError(
            f"{func}: propensities gives item {_py(item_ids[int(np.argmax(counts))])!r} "
            f"more than once. Each item must appear once."
        )
    p = np.empty(len(item_ids))
    p[codes] = _checked_values(values, func)
    return Propensities(p, item_ids)


def _from_popularity(table: Any, gamma: float) -> Propensities:
    """Yang et al.'s popularity model: ``p_i = (n_i / max n)**((gamma + 1) / 2)``."""
    counts = np.asarray(table.counts, dtype=np.float64)
    top = float(counts.max()) if counts.size else 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.power(counts / top, (gamma + 1.0) / 2.0) if top > 0 else np.zeros_like(counts)
    return Propensities(p, table.item_ids, source="popularity", counts=counts, gamma=gamma)


def as_propensities(
    propensities: Any, popularity: Any, gamma: Any, clip: Any, func: str
) -> Propensities | None:
    """The ``propensities=`` of :func:`receval.evaluate`, checked, or None; the errors
    name ``func``, the function given them (``evaluate``, ``receval.metric('ndcg@10')``).

    ``propensities``: ``{user: {item: p}}``, ``{item: p}`` (or a pandas Series), a
    frame with columns ``user``, ``item``, ``propensity`` (or ``item``, ``propensity``), or
    ``"popularity"`` (from ``popularity``, the table of ``popularity=`` / ``train=``).
    """
    if isinstance(propensities, Propensities):  # resolved already (Spark's executors)
        return propensities
    gamma = float(v.check_number(gamma, "propensity_gamma", func, low=-1.0))
    clip = 0.0 if clip is None else float(v.check_number(clip, "propensity_clip", func))
    if not 0.0 <= clip <= 1.0:
        raise InvalidParameterError(
            f"The 'propensity_clip' parameter of {func} must be in the range [0, 1]. "
            f"Got {clip!r} instead."
        )
    if propensities is None:
        return None
    if type(propensities).__name__ == "Series" and hasattr(propensities, "to_dict"):
        propensities = propensities.to_dict()  # pandas: item -> propensity
    if isinstance(propensities, str):
        v.check_option(propensities, "propensities", func, ["popularity"])
        if popularity is None:
            raise InvalidParameterError(
                f"propensities='popularity' needs item popularity; pass popularity= (a "
                f"mapping item -> count) or train= (an interaction log) to {func}."
            )
        props = _from_popularity(popularity, gamma)
    elif is_frame(propensities):
        roles = {"user": "user" if "user" in column_names(propensities) else None, "item": "item"}
        cols = frame_columns(propensities, {**roles, "propensity": "propensity"}, func)
        if "user" in cols:
            props = _per_pair(cols["user"], cols["item"], cols["propensity"], func)
        else:
            props = _per_item(cols["item"], cols["propensity"], func)
    elif isinstance(propensities, Mapping) and propensities:
        if all(isinstance(x, Mapping) for x in propensities.values()):
            rows = [(u, i, p) for u, d in propensities.items() for i, p in d.items()]
            if not rows:
                raise InputValidationError(f"{func}: propensities holds no (user, item) pair.")
            users, items, values = (list(c) for c in zip(*rows, strict=True))
            props = _per_pair(np.asarray(users), np.asarray(items), values, func)
        else:
            props = _per_item(np.asarray(list(propensities)), list(propensities.values()), func)
    else:
        raise InvalidParameterError(
            f"The 'propensities' parameter of {func} must be a dict {{user: {{item: p}}}}, "
            f"a dict {{item: p}}, a DataFrame with columns user, item, propensity (or item, "
            f"propensity) or 'popularity'. Got {type(propensities).__name__} instead."
        )
    props.clip = clip
    return props


# ---------------------------------------------------------------- checks
def prepare_weighting(
    specs: dict[str, Any], convs: dict[str, Any], listwise: set[str], props: Any, func: str
) -> dict[str, Any]:
    """Check the weighted metrics (estimator ``"ips"`` / ``"snips"``) and return the
    specs, each weighted one's canonical string carrying its estimator; the list-wise
    metrics (no relevance to weigh) get ``estimator="naive"`` in ``convs``, in place.
    ``func``: the function that takes ``propensities=``, which the errors name."""
    out = dict(specs)
    for text, spec in specs.items():
        conv = convs[text]
        if text in listwise and conv.estimator != "naive":
            convs[text] = replace(conv, estimator="naive")
        if text in listwise or conv.estimator == "naive":
            continue
        est = conv.estimator
        if spec.name not in WEIGHTED_METRICS:
            raise InvalidParameterError(
                f"Metric {text!r} has no propensity-weighted form (estimator={est!r}); "
                f"weighted forms exist for {list(WEIGHTED_METRICS)}. Write "
                f"'{spec.name}(estimator=naive)' to compute it unweighted."
            )
        if props is None:
            raise InvalidParameterError(
                f"Metric {text!r} uses estimator={est!r}, which needs propensities; pass "
                f"propensities= to {func}."
            )
        unsupported = [
            (f"{name}={getattr(conv, name)!r}", f"{name}={ok!r}")
            for name, ok, metrics in (
                ("gain_grades", "relevant", ("dcg", "ndcg")),
                ("ideal", "judged", ("ndcg",)),
                ("ap_normalizer", "relevant", ("map",)),
                ("precision_normalizer", "k", ("precision",)),
                ("recall_normalizer", "relevant", ("recall",)),
                ("discount", "offset", ("dcg", "ndcg")),
            )
            if spec.name in metrics and getattr(conv, name) != ok
        ]
        if conv.ties == "worst":
            unsupported.append(("ties='worst'", "ties='trec' or 'input'"))
        if conv.ties == "average" and spec.name == "map":
            unsupported.append(("ties='average'", "ties='trec' or 'input'"))
        if "gains" in dict(spec.args):
            fix = "gain='linear', 'exponential' or 'binary'"
            unsupported.append(("a gain table (gains=)", fix))
        if unsupported:
            what, fix = unsupported[0]
            raise InvalidParameterError(
                f"Metric {text!r}: estimator={est!r} is not available with {what}; use {fix}."
            )
        params = dict(spec.params)
        params["estimator"] = est
        out[text] = replace(spec, params=tuple(sorted(params.items())))
    return out


def clipped_pairs(q: Qrels, convs: Mapping[str, Any], props: Propensities | None) -> dict[str, int]:
    """Per weighted metric, the relevant (user, item) pairs of ``q`` (at its threshold)
    whose propensity is below ``propensity_clip``, raised to it (their weight lowered to
    ``1 / clip``); ``{}`` without a clip."""
    if props is None or props.clip <= 0:
        return {}
    below = props.of_qrels(q) < props.clip  # nan (no propensity): refused by the checks
    return {text: int(np.count_nonzero(below & (q.grades >= float(conv.rel_threshold))))
            for text, conv in convs.items() if conv.estimator != "naive"}  # fmt: skip


def check_propensities(
    q: Qrels, convs: Mapping[str, Any], props: Propensities | None, func: str
) -> None:
    """Raise before any user is evaluated when a relevant item of ``q`` at the threshold
    of a weighted metric lacks a usable propensity (counted over all the qrels); the
    errors name ``func``, the caller."""
    if props is None:
        return
    thresholds = {float(c.rel_threshold) for c in convs.values() if c.estimator != "naive"}
    for threshold in sorted(thresholds):
        props.weights(q, threshold, func)


# ---------------------------------------------------------------- the columns
def gains_of(grades: np.ndarray, kind: str) -> np.ndarray:
    """The gain of each grade under ``kind`` (``Conventions.gain``): 1, ``2**g - 1`` or
    the grade itself."""
    if kind == "binary":
        return np.ones_like(grades, dtype=np.float64)
    if kind == "exponential":
        return np.power(2.0, grades.astype(np.float64)) - 1.0
    return grades.astype(np.float64)


# the power of two map's running sums of weights are taken at (times 2**-64)
_SUM_SHIFT = 64

#: the most positions the discounts span (2**26 float64: 0.5 GB); SNIPS's ideal DCG
#: beyond them is refused (see :func:`_check_ideal_positions`)
_MAX_POSITIONS = 2**26


class _Discounts:
    """``d(j) = 1 / log2(j + 2)`` and its running sum ``D(x)``, linear between integers."""

    def __init__(self) -> None:
        self.cum = np.zeros(1)

    def _grow(self, n: int) -> None:
        if n + 2 > len(self.cum):
            size = max(n + 2, min(2 * len(self.cum), _MAX_POSITIONS + 2))
            self.cum = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(size) + 2.0))])

    def at(self, x: np.ndarray) -> np.ndarray:
        """``D(x)``: the sum of the first ``floor(x)`` discounts plus the fraction of the next."""
        x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
        j = np.floor(x).astype(np.int64)
        self._grow(int(j.max()) + 1 if j.size else 0)
        result: np.ndarray = self.cum[j] + (x - j) * (self.cum[j + 1] - self.cum[j])
        return result


class _Ranked:
    """The run rows of the qrels users in one order of ties: their qrels user, position,
    tie block, score and qrels row (-1: not judged), and each user's list length."""

    def __init__(
        self, q: Qrels, r: Run, user_map: np.ndarray, ties: str, judged_only: bool, depth: int
    ) -> None:
        run_user = np.repeat(np.arange(r.n_users, dtype=np.int64), np.diff(r.offsets))
        q_of_run = np.full(r.n_users, -1, dtype=np.int64)
        present = np.flatnonzero(user_map >= 0)
        q_of_run[user_map[present]] = present
        qrow = _qrels_rows(q, r, user_map, run_user)
        sel = np.flatnonzero(q_of_run[run_user] >= 0)
        if ties in ("trec", "id_descending", "id_ascending"):
            sel = r.in_tie_order(sel, ties, run_user[sel])
        users = run_user[sel]
        if depth or judged_only:  # the first ``depth`` items, then the judged ones among them
            keep = np.ones(len(sel), dtype=bool)
            if depth:
                keep &= np.arange(len(sel)) - np.searchsorted(users, users) < depth
            if judged_only:
                keep &= qrow[sel] >= 0
                keep[keep] = q.grades[qrow[sel[keep]]] >= 0
            sel, users = sel[keep], users[keep]
        starts = np.searchsorted(users, np.arange(r.n_users))
        position = np.arange(len(sel)) - starts[users]
        self.length = np.bincount(q_of_run[users], minlength=q.n_users)
        # tie blocks (exact scores) for ties="average": first and end position
        score = r.scores[sel]
        new = np.ones(len(sel), dtype=bool)
        new[1:] = (users[1:] != users[:-1]) | (score[1:] != score[:-1])
        block = np.cumsum(new) - 1
        block_start = position[new][block]
        block_end = block_start + np.bincount(block)[block]
        # only the judged rows count from here on (the others weigh 0)
        judged = np.flatnonzero(qrow[sel] >= 0)
        users = users[judged]
        self.user = q_of_run[users]
        self.position = position[judged]
        self.score = score[judged]
        self.qrow = qrow[sel[judged]]
        self.block_start = block_start[judged]
        self.block_end = block_end[judged]
        # each row's user's first row (the rows of a user are contiguous)
        first = np.ones(len(users), dtype=bool)
        first[1:] = users[1:] != users[:-1]
        self.first_row = np.maximum.accumulate(np.where(first, np.arange(len(users)), 0))


def _qrels_rows(q: Qrels, r: Run, user_map: np.ndarray, run_user: np.ndarray) -> np.ndarray:
    """Per run row, the qrels row of the same (user, item), or -1."""
    item_map = q.positions_in(r, "items").astype(np.int64)
    q_user = np.repeat(np.asarray(user_map, dtype=np.int64), np.diff(q.offsets))
    q_item = item_map[q.items]
    n_items = max(len(r.item_ids), 1)
    key = np.where((q_user >= 0) & (q_item >= 0), q_user * n_items + q_item, -1)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    run_key = run_user * n_items + r.items
    if not len(sorted_key):
        return np.full(len(run_key), -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(sorted_key, run_key), len(sorted_key) - 1)
    return np.where(sorted_key[pos] == run_key, order[pos], -1)


def propensity_columns(
    q: Qrels,
    r: Run,
    specs: Mapping[str, Any],
    convs: Mapping[str, Any],
    user_map: np.ndarray,
    props: Propensities,
    func: str,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per qrels user, each weighted metric (nan: left out by a rule) and the user's
    relevant items; ``user_map`` gives each qrels user's position in ``r`` (-1: absent),
    ``func`` the caller, which the errors name.

    Relevant observed item ``i`` weighs ``w_i = 1 / max(p_ui, clip)``. The normalisers
    that count relevant items (recall's and AP's ``R_u``, NDCG's ideal) are the
    unweighted metric's under IPS (the ``n_u`` observed relevant items) and weighted
    under SNIPS (``sum(w)``, the weighted ideal); see docs/conventions.md.
    """
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    row_user = np.repeat(np.arange(q.n_users, dtype=np.int64), np.diff(q.offsets))
    rankings: dict[tuple[str, bool, int], _Ranked] = {}
    discounts = _Discounts()
    missing = np.asarray(user_map) < 0
    for text, spec in specs.items():
        conv = convs[text]
        ties = "input" if conv.ties == "average" else conv.ties
        key = (ties, bool(conv.judged_only), int(conv.depth))
        if key not in rankings:
            rankings[key] = _Ranked(q, r, user_map, *key)
        threshold = float(conv.rel_threshold)
        w = props.weights(q, threshold, func)
        relevant = q.grades >= threshold
        n = np.bincount(row_user[relevant], minlength=q.n_users).astype(np.float64)
        weighted = conv.estimator == "snips"
        norm = np.bincount(row_user, weights=w, minlength=q.n_users) if weighted else n
        if weighted and spec.name == "ndcg":
            _check_ideal_positions(text, q, norm, spec.k, func)
        col = _metric(spec, conv, q, rankings[key], w, norm, discounts, row_user)
        col = np.array(col, dtype=np.float64)
        col[(n == 0) & (conv.empty_users == "one")] = 1.0
        col[(n == 0) & (conv.empty_users == "skip")] = np.nan
        col[missing & (conv.missing_users == "skip")] = np.nan
        out[text] = (col, n)
    return out


def _check_ideal_positions(text: str, q: Qrels, span: np.ndarray, k: int | None, func: str) -> None:
    """Raise, naming ``func``, where a user's ideal DCG under SNIPS spans more than
    :data:`_MAX_POSITIONS` positions: ``span``, the sum of its relevant items' weights,
    up to the cut-off."""
    positions = span if k is None else np.minimum(span, k)
    over = np.flatnonzero(positions > _MAX_POSITIONS)
    if over.size:
        users = v.format_values(_py(u) for u in q.user_ids[over])
        raise InputValidationError(
            f"{func}: metric {text!r} with estimator='snips' needs up to "
            f"{positions[over].max():.3g} ideal positions for {v.counted(over.size, 'user')}, "
            f"e.g. {users} (each relevant item takes as many as its weight 1 / propensity), "
            f"more than the {_MAX_POSITIONS:,} its "
            f"discounts span; give it a cut-off (e.g. 'ndcg@10') or pass propensity_clip= "
            f"(e.g. 1e-6) to bound the weights at 1 / clip."
        )


def _metric(
    spec: Any,
    conv: Any,
    q: Qrels,
    ranked: _Ranked,
    w: np.ndarray,
    norm: np.ndarray,
    discounts: _Discounts,
    row_user: np.ndarray,
) -> np.ndarray:
    """One weighted metric per qrels user, before the rules for missing and empty users;
    ``norm``: what stands for each user's number of relevant items."""
    name, k = spec.name, spec.k
    judged = ranked.qrow >= 0
    qrow = np.maximum(ranked.qrow, 0)
    w_run = np.where(judged, w[qrow], 0.0)
    # the lists are cut at ``depth`` already
    denominator = ranked.length.astype(np.float64) if k is None else np.full(q.n_users, k * 1.0)
    cut = denominator
    cut_run = cut[ranked.user]
    a, b = ranked.position.astype(np.float64), ranked.position + 1.0
    if conv.ties == "average":
        a, b = ranked.block_start.astype(np.float64), ranked.block_end.astype(np.float64)
    hit = np.clip(cut_run - a, 0.0, b - a) / (b - a)  # expected share of the item in the top
    users = ranked.user
    size = q.n_users
    if name in ("dcg", "ndcg"):
        # each user's gains and weights times a power of two, their largest in [0.5, 1)
        # (exact): no product or sum overflows, and NDCG is their ratio
        gains = gains_of(q.grades, conv.gain)
        g_shift, w_shift = _shifts(gains, row_user, size), _shifts(w_run, users, size)
        scaled = np.ldexp(gains, -g_shift[row_user])
        gain = np.where(judged, scaled[qrow], 0.0)
        top = np.minimum(b, cut_run)
        disc = (discounts.at(top) - discounts.at(np.minimum(a, cut_run))) / (b - a)
        term = np.ldexp(w_run, -w_shift[users]) * gain * disc
        dcg = np.bincount(users, weights=term, minlength=size)
        if name == "dcg":
            shift = g_shift + w_shift
        else:
            span = w if conv.estimator == "snips" else (w > 0).astype(np.float64)
            ideal = _ideal(q, scaled, span, row_user, k, discounts)
            dcg = np.divide(dcg, ideal, out=np.zeros(size), where=ideal > 0)
            shift = w_shift
        with np.errstate(over="ignore"):  # beyond float64's range: inf, refused by evaluate
            result: np.ndarray = np.ldexp(dcg, shift)
        return result
    if conv.hit_scores == "positive":
        w_run = w_run * (ranked.score > 0)
    if name in ("precision", "recall"):
        num = np.bincount(users, weights=w_run * hit, minlength=size)
        den = denominator if name == "precision" else norm
        return _ratio(num, den)
    # map: each hit i adds w_i (1 + the weights of the hits above it) / rank_i
    weight = w_run * (ranked.position < cut_run)
    # the weights (>= 1) summed times 2**-64 (exact): no sum over the users overflows, each
    # user's own then scaled back (beyond float64's range: inf, refused by evaluate)
    # each user's own running sum (one over every user less those before it would cancel
    # the bits of a user's light weights after a heavy user's), the hits above each row
    scaled = np.ldexp(weight, -_SUM_SHIFT)
    firsts = np.flatnonzero(ranked.first_row == np.arange(len(scaled)))
    before = np.zeros(len(scaled))
    before[1:] = compiled().group_cumsum(scaled, firsts)[:-1]
    before[firsts] = 0.0
    with np.errstate(over="ignore", invalid="ignore"):  # (an item of weight 0: 0)
        above = np.ldexp(before, _SUM_SHIFT)
        terms = np.where(weight > 0, weight * (1.0 + above) / b, 0.0)
    num = np.bincount(users, weights=terms, minlength=size)
    return _ratio(num, norm)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den``, 0 where ``den`` is 0, and inf where it is: SNIPS's sum of weights
    beyond float64's range (refused by evaluate, where inf / inf would be a silent nan)."""
    with np.errstate(invalid="ignore"):
        out: np.ndarray = np.divide(num, den, out=np.zeros(len(den)), where=den > 0)
    out[np.isinf(den)] = np.inf
    return out


def _shifts(x: np.ndarray, users: np.ndarray, size: int) -> np.ndarray:
    """Per user, the :func:`weight_shifts` power of two ``e`` of its largest ``|x|``
    (``x * 2**-e`` in [0.5, 1)); 0 for a user without a value other than 0. The rows
    of a user are contiguous.

    The largest value stands for the least too: a term multiplies a scaled gain by a
    scaled weight, so both must stay below 1 for no product to overflow, which a shift
    lowered to keep the least value normal would not ensure."""
    top = np.zeros(size)
    if len(x):
        starts = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
        top[users[starts]] = np.maximum.reduceat(np.abs(x), starts)
    return weight_shifts(top, np.arange(size))  # each user's largest alone


def _ideal(
    q: Qrels,
    gain: np.ndarray,
    span: np.ndarray,
    row_user: np.ndarray,
    k: int | None,
    discounts: _Discounts,
) -> np.ndarray:
    """The ideal DCG of ``q``'s relevant items (each row's ``gain``) by gain
    descending, item ``i`` taking ``span_i`` positions (its weight under SNIPS, a
    fraction of one at the ends; 1 under IPS), the discounts over them summed up to
    the cut-off."""
    relevant = span > 0
    order = np.lexsort((-gain, row_user))
    order = order[relevant[order]]
    users = row_user[order]
    starts = np.searchsorted(users, np.arange(q.n_users))
    end = compiled().group_cumsum(span[order], starts)  # each user's own running sum
    start = end - span[order]
    if k is not None:
        start, end = np.minimum(start, k), np.minimum(end, k)
    part = gain[order] * (discounts.at(end) - discounts.at(start))
    return np.bincount(users, weights=part, minlength=q.n_users)
