"""What :func:`receval.evaluate` checks and discloses beside the values: ids of the run
that match none (or few) of the qrels', candidate sets that keep none of the run's rows,
exclusions that name none of its users or items, the users whose value depends on the
order of tied scores (with their ``ties="average"`` values), and the ties a peer orders
by no rule. The messages name ``func``, the caller (``evaluate``, an accumulator,
``evaluate_embeddings``, ``receval.spark.evaluate``, ...)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import codes as _core_codes
from ..conventions import Conventions
from ..data._lookup import lookup_ids, types_note
from ..data._ranked import Qrels, Run
from ..data.seen import warn_unmatched_exclusions
from ..exceptions import InputValidationError, InvalidParameterError, warn
from ..metrics._propensity import gains_of
from ..registry import MetricSpec
from .specs import TIE_COSTLY_KINDS as _COSTLY_KINDS
from .specs import TIE_ORDERS, tie_checked
from .values import SUGGESTED_CLIP, kernel_values, overflow_refusal, subset_qrels, users_beyond

codes = _core_codes()  # the ranking kernel's codes, defined in the compiled core

__all__ = [
    "TIE_AVERAGE_BUDGET",
    "TIE_ORDERS",
    "UNSTABLE_TIES",
    "check_candidates",
    "check_exclusions",
    "check_finite_values",
    "check_match_options",
    "check_matching",
    "describe_tie_orders",
    "mixed_block_costs",
    "tie_averages",
    "tied_users",
    "unstable_tie_users",
    "warn_unreproducible_ties",
]


def check_match_options(min_match: Any, allow_unmatched: Any, func: str) -> float:
    """``min_match`` as a float in [0, 1] and ``allow_unmatched`` a bool, or an error."""
    if isinstance(allow_unmatched, (bool, np.bool_)) is False:
        raise InvalidParameterError(
            f"The 'allow_unmatched' parameter of {func} must be a bool. Got "
            f"{allow_unmatched!r} instead."
        )
    ok = isinstance(min_match, (int, float, np.integer, np.floating)) and not isinstance(
        min_match, (bool, np.bool_)
    )
    if not ok or not 0.0 <= float(min_match) <= 1.0:
        raise InvalidParameterError(
            f"The 'min_match' parameter of {func} must be a float in [0, 1]. Got "
            f"{min_match!r} instead."
        )
    return float(min_match)


def check_matching(
    examples: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    n_users: int,
    n_users_matched: int,
    items: tuple[int, int, int] | None,
    min_match: float,
    allow_unmatched: bool,
    func: str,
    catalogue: bool = False,
) -> None:
    """Refuse a run whose users or items match none of the qrels', warn when few do.

    ``examples``: a few ids of the qrels' users, the run's users, the qrels' items and
    the run's items, for the messages; ``n_users``: the qrels users;
    ``items``: (run items judged in the qrels, run items, qrels items), None when no
    metric reads the judgments of the run's items. Few items match when both the
    share of the run's items judged and the share of the qrels' items in the run are
    below ``min_match`` (a popularity run holds few of the judged items, a run over a
    large catalogue has many items no test user judged: neither is an id mix-up).
    A refusal becomes a warning with ``allow_unmatched``. With ``catalogue``, the
    run's items are those it was retrieved from (``item_ids``, in ``items`` and
    ``examples``), not those retrieved: lists that miss every judged item are a
    poor model's, not an id mix-up.
    """

    from ..exceptions import UnmatchedIdsWarning

    fix = (
        "check the ids for a prefix, a type or a column mix-up, or pass allow_unmatched=True "
        "to score the run anyway"
    )
    q_users, r_users, q_items, r_items = examples
    notes: list[tuple[bool, str]] = []
    if n_users:
        share = n_users_matched / n_users
        if n_users_matched == 0 or share < min_match:  # the message only then
            text = (
                f"{func}: {v.of_the(n_users_matched, n_users, 'qrels user', then='is')} in the run "
                f"({share:.1%}), e.g. qrels users {v.format_values(q_users)}, run users "
                f"{v.format_values(r_users)}{types_note(q_users, r_users)}"
            )
            if n_users_matched == 0:
                notes.append((True, text + "; every metric would be 0"))
            else:
                notes.append((False, text + f", below min_match={min_match:g}"))
    if items is not None and n_users_matched:
        matched, n_items, n_judged = items
        share = matched / n_items if n_items else 1.0
        share_judged = matched / n_judged if n_judged else 1.0
        refused = matched == 0 and n_items > 0 and n_judged > 0  # no judgment: no mix-up
        if refused or max(share, share_judged) < min_match:
            owner, side = ("item_ids'", "item_ids'") if catalogue else ("the run's", "run's")
            note = types_note(q_items, r_items, ("qrels'", side))
            text = (
                f"{func}: {'none' if matched == 0 else f'{matched:,}'} of {owner} "
                f"{v.counted(n_items, 'item')} {v.verb(matched or 1, 'is')} judged in the qrels "
                f"({share:.1%}; "
                f"{share_judged:.1%} of the qrels' {v.counted(n_judged, 'item')}), e.g. "
                f"{'item_ids' if catalogue else 'run items'} {v.format_values(r_items)}, qrels "
                f"items {v.format_values(q_items)}{note}"
            )
            if refused:
                notes.append((True, text + "; every metric that reads the judgments would be 0"))
            else:
                notes.append((False, text + f", below min_match={min_match:g}"))
    for refused, text in notes:
        if refused and not allow_unmatched:
            raise InputValidationError(text + "; " + fix + ".")
        warn(
            text + "; check the ids for a prefix, a type or a column mix-up.",
            UnmatchedIdsWarning,
        )


# profiles whose peer orders tied scores by no fixed rule: (why, list length from which
# the order is not input order, metrics that do not depend on the order of ties)
UNSTABLE_TIES: dict[str, tuple[str, int, frozenset[str]]] = {
    "ranx": (
        "ranx sorts with numba's quicksort, which keeps the input order of tied scores only "
        "in lists of at most 15 items",
        16,
        frozenset(),
    ),
    "recbole": (
        "RecBole takes the top k with torch.topk, which orders tied scores by no rule",
        2,
        frozenset(),
    ),
    "torchmetrics": (
        "torchmetrics groups rows with an unstable torch.sort and ranks them with "
        "torch.topk / torch.argsort, which order tied scores by no rule (its NDCG averages "
        "over ties, and is reproduced)",
        2,
        frozenset({"ndcg", "dcg", "idcg", "cg"}),
    ),
    "torchrec": (
        "TorchRec's NDCGMetric ranks each batch with torch.sort, which orders tied scores "
        "by no rule",
        2,
        frozenset(),
    ),
}


def describe_tie_orders(convs: Iterable[Conventions]) -> str:
    """How receval orders tied scores under these metrics' ``ties`` conventions."""
    rules = sorted({c.ties for c in convs})
    return " or ".join(f"{TIE_ORDERS[t]} (ties={t!r})" for t in rules)


def unstable_tie_users(profile: str | None, r: Run, specs: list[MetricSpec]) -> np.ndarray:
    """The run's users (positions) with ties that ``profile``'s peer orders by no rule,
    in lists long enough for it to matter, for the metrics that depend on the order;
    empty for another profile."""
    if profile not in UNSTABLE_TIES:
        return np.empty(0, dtype=np.int64)
    _, min_len, exempt = UNSTABLE_TIES[profile]
    concerned = [s for s in specs if s.name not in exempt]
    if not concerned or not r.has_ties:
        return np.empty(0, dtype=np.int64)
    users = r.tied_users(single=False)
    long: np.ndarray = users[np.diff(r.offsets)[users] >= min_len]
    return long


def warn_unreproducible_ties(
    func: str,
    profile: str,
    n_users: int,
    examples: np.ndarray,
    specs: list[MetricSpec],
    convs: list[Conventions],
) -> None:
    """A ``TieOrderWarning`` naming how many users have ties the peer orders by no rule
    (``examples``: a few of them), and the order receval uses (``convs``: the
    conventions of ``specs``)."""

    from ..exceptions import TieOrderWarning

    why, _, exempt = UNSTABLE_TIES[profile]
    concerned = [c for s, c in zip(specs, convs, strict=True) if s.name not in exempt]
    warn(
        f"{func} (profile={profile!r}): {v.counted(n_users, 'user')} "
        f"{v.verb(n_users, 'has')} tied scores, e.g. "
        f"{v.format_values(examples)}, and {why}. receval scores them "
        f"{describe_tie_orders(concerned)}, so its values for these users may "
        f"differ from the peer's. Break the ties "
        f"(e.g. subtract a tiny rank-based offset) to compare numbers exactly.",
        TieOrderWarning,
    )


def tied_users(r: Run, user_map: np.ndarray, single: bool) -> np.ndarray:
    """The qrels users (positions) whose run list holds two equal scores (``single``:
    equal in single precision, as ``ties="trec"`` compares them), from the run's
    pass over its rows that ``ties="trec"`` makes anyway."""
    run_users = r.tied_users(single)
    if not len(run_users):
        return np.empty(0, dtype=np.int64)
    tied = np.zeros(r.n_users, dtype=bool)
    tied[run_users] = True
    return np.flatnonzero((user_map >= 0) & tied[np.maximum(user_map, 0)])


#: Per user, the largest cost (the sum over its tied blocks that mix relevant and
#: non-relevant items of ``(s * h) ** 2``) for which the report computes interpolated
#: precision's ``ties="average"`` value: a few milliseconds. A user above it is
#: counted as tie-dependent and the metric's ``mean_ties_average`` is nan.
TIE_AVERAGE_BUDGET = 1 << 20


def mixed_block_costs(
    q: Qrels,
    r: Run,
    users: np.ndarray,
    user_map: np.ndarray,
    item_map: np.ndarray,
    threshold: float,
    single: bool,
) -> np.ndarray:
    """Per user (qrels positions, all in the run): the sum over the tied blocks of its
    list that hold relevant (grade >= ``threshold``) and non-relevant items of
    ``(s * h) ** 2`` (s items, h relevant; equal scores compared in single precision
    with ``single``); 0 when the user's value cannot depend on the order of ties.
    ``item_map``: the run code of each qrels item (-1: not in the run)."""
    runs = user_map[users]
    lengths = np.diff(r.offsets)[runs]
    local = np.zeros(len(users) + 1, dtype=np.int64)
    np.cumsum(lengths, out=local[1:])
    rows = np.repeat(r.offsets[runs] - local[:-1], lengths) + np.arange(int(local[-1]))
    owner = np.repeat(np.arange(len(users), dtype=np.int64), lengths)
    scores = r.scores[rows].astype(np.float32 if single else np.float64)
    # the run's items as qrels codes, and the relevant (user, item) pairs as keys
    n_items = max(len(q.item_ids), 1)
    of_run = np.full(len(r.item_ids), -1, dtype=np.int64)  # item_map inverted
    found = np.flatnonzero(item_map >= 0)
    of_run[item_map[found]] = found
    codes_of = of_run[r.items[rows]]
    q_lengths = np.diff(q.offsets)[users]
    q_rows = np.repeat(q.offsets[users] - np.cumsum(q_lengths) + q_lengths, q_lengths)
    q_rows = q_rows + np.arange(len(q_rows))
    q_owner = np.repeat(np.arange(len(users), dtype=np.int64), q_lengths)
    rel = q.grades[q_rows] >= threshold
    keys = q_owner[rel] * n_items + q.items[q_rows][rel]
    relevant = (codes_of >= 0) & np.isin(owner * n_items + codes_of, keys)
    # blocks of equal scores within a user's list (scores descend within it)
    start = np.ones(len(rows), dtype=bool)
    start[1:] = (owner[1:] != owner[:-1]) | (scores[1:] != scores[:-1])
    block = np.cumsum(start) - 1
    s = np.bincount(block).astype(np.float64)
    h = np.bincount(block, weights=relevant)
    cost = np.where((h > 0) & (h < s), (s * h) ** 2, 0.0)
    out: np.ndarray = np.bincount(owner[start], weights=cost, minlength=len(users))
    return out


def tie_averages(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    item_map: np.ndarray | None,
) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The users whose lists hold tied scores (qrels positions) and, per ranked metric
    computed with another tie order, their values with ``ties="average"`` (the
    expected value over every order of the tied items), computed for them only.

    Interpolated precision's expected value costs ``(s * h) ** 2`` per tied block:
    it is computed for the users within :data:`TIE_AVERAGE_BUDGET` only. The others
    whose list has a tied block of relevant and non-relevant items get ``inf`` (not
    computed: their value may depend on the order); the third dict marks, per such
    metric, the users without such a block (their value is their own). ``item_map``
    is the run code of each qrels item (None: looked up where needed)."""
    checked = [t for t in ranked if tie_checked(specs[t], convs[t])]
    if not checked:
        return np.empty(0, dtype=np.int64), {}, {}
    single = any(convs[t].ties == "trec" for t in checked)
    users = tied_users(r, user_map, single)
    if not len(users):
        return users, {t: np.empty(0) for t in checked}, {}
    costly = [t for t in checked if specs[t].info.kind in _COSTLY_KINDS]
    out: dict[str, np.ndarray] = {}
    own: dict[str, np.ndarray] = {}
    groups: list[tuple[list[str], np.ndarray]] = []
    cheap = [t for t in checked if t not in costly]
    if cheap:
        groups.append((cheap, np.ones(len(users), dtype=bool)))
    costs: dict[tuple[float, bool], np.ndarray] = {}  # by relevance threshold and tie rule
    for t in costly:
        c = convs[t]
        key = (c.rel_threshold, c.ties == "trec")
        if key not in costs:
            # a bound first, (n * min(n, judged))**2 over the user's list; the blocks for
            # the users above the budget
            n = np.diff(r.offsets)[user_map[users]].astype(np.float64)
            bound = (n * np.minimum(n, np.diff(q.offsets)[users])) ** 2
            big = bound > TIE_AVERAGE_BUDGET
            if big.any():
                if item_map is None:
                    item_map = q.positions_in(r, "items")
                bound[big] = mixed_block_costs(q, r, users[big], user_map, item_map, *key)
            costs[key] = bound
        cost = costs[key]
        out[t], own[t] = np.full(len(users), np.inf), cost == 0
        kept = (cost > 0) & (cost <= TIE_AVERAGE_BUDGET)
        # one kernel call per set of users (trec_eval's 11 recall levels share theirs)
        same = next((g for g in groups if np.array_equal(g[1], kept)), None)
        if same is None:
            groups.append(([t], kept))
        else:
            same[0].append(t)
    for names, kept in groups:
        averaged = {t: replace(convs[t], ties="average") for t in names}
        sub = users[kept]
        values = np.empty((0, len(names)))
        if len(sub):
            judged, kept_items = subset_qrels(q, sub)
            # the item map of the users' items: the qrels' (ids looked up once)
            sub_map = None if item_map is None else item_map[kept_items]
            values, _ = kernel_values(judged, r, specs, averaged, names, user_map[sub],
                                      item_map=sub_map)  # fmt: skip
        for j, t in enumerate(names):
            col = out.get(t, np.empty(len(users)))
            col[kept] = values[:, j]
            out[t] = col
    for t in checked:  # a tie across the depth: which items count depends on the order
        depth = convs[t].depth
        if depth:
            out[t][_straddling(r, user_map[users], depth)] = np.inf
            if t in own:
                own[t] = own[t] & ~np.isinf(out[t])
    return users, {t: out[t] for t in checked}, own


def _straddling(r: Run, runs: np.ndarray, depth: int) -> np.ndarray:
    """Per run list (``runs``: run user positions): whether a block of equal scores
    holds its ``depth``-th and ``depth + 1``-th items (score descending), so that
    which of them the depth keeps depends on the order of the tie."""
    lengths = np.diff(r.offsets)[runs]
    out = np.zeros(len(runs), dtype=bool)
    long = np.flatnonzero(lengths > depth)
    if not len(long):
        return out
    sizes = lengths[long]
    ends = np.cumsum(sizes)
    rows = np.arange(int(ends[-1])) + np.repeat(r.offsets[runs[long]] - (ends - sizes), sizes)
    owner = np.repeat(np.arange(len(long)), sizes)
    scores = r.scores[rows]
    ordered = scores[np.lexsort((-scores, owner))]
    first = ends - sizes
    out[long] = ordered[first + depth - 1] == ordered[first + depth]
    return out


def check_candidates(
    func: str,
    sampling: Any,
    n_run_users: int,
    examples: tuple[np.ndarray, np.ndarray],
    allow_unmatched: bool,
) -> None:
    """Refuse candidate sets that keep none of the run's rows: sets of none of the run's
    users, or sets whose items are none of the run's (another type or spelling of the
    ids), as every metric would be 0. ``sampling``: the :class:`SamplingSummary` of all
    the users; ``examples``: a few of the run's items and of the candidates' items, for
    the message. ``allow_unmatched`` scores the run anyway."""
    fix = "or pass allow_unmatched=True to score the run anyway."
    if allow_unmatched or not n_run_users:
        return
    if sampling.n_users_without_candidates >= n_run_users:
        raise InputValidationError(
            f"{func}: {v.of_the(0, n_run_users, 'run user', then='has')} a candidate set "
            f"(candidates=), so every run row would be dropped and every metric would be 0; "
            f"check the candidates' user ids for a prefix, a type or a column mix-up, {fix}"
        )
    n_rows = sampling.n_rows_kept + sampling.n_rows_dropped
    if sampling.n_rows_kept or not n_rows:
        return
    run_items, candidate_items = examples
    note = types_note(candidate_items, run_items, ("candidates'", "run's"))
    raise InputValidationError(
        f"{func}: {v.of_the(0, n_rows, 'run row', then='is')} in its user's candidate "
        f"set (candidates=), e.g. run items {v.format_values(run_items)}, candidate items "
        f"{v.format_values(candidate_items)}{note}, so every metric would be 0; check the "
        f"candidates' item ids for a prefix, a type or a column mix-up, {fix}"
    )


def check_exclusions(
    func: str, seen: Any, masking: Any, n_run_users: int, items: Any,
    examples: tuple[np.ndarray, np.ndarray],
) -> None:  # fmt: skip
    """Warn when ``exclude=`` names none of the run's users, or none of the items of the
    run and the qrels (``seen``: its :class:`~receval.data.seen.SeenItems`;
    ``masking``: the :class:`~receval.data.seen.MaskingSummary` of all the users;
    ``items``: the distinct items of the run and the qrels, None where not gathered;
    ``examples``: a few of the run's users and items): ids of another type or
    spelling would exclude nothing. Only a warning, as the values stay defined (those
    without exclusions), and test users without any training history, or a run that
    already left out each user's seen items, are protocols of their own."""
    users, run_items = examples
    if n_run_users and masking.n_users_without_history >= n_run_users:
        warn_unmatched_exclusions(func, "user", seen.user_ids, users, "run", "a run user")
    elif (
        items is not None and len(items) and len(seen.item_ids)
        and not masking.n_rows_removed + masking.n_qrels_seen
        and not (lookup_ids(seen.item_ids, items) >= 0).any()
    ):  # fmt: skip
        warn_unmatched_exclusions(func, "item", seen.item_ids, run_items, "run",
                                  "an item of the run or of the qrels")  # fmt: skip


def check_finite_values(
    text: str, spec: MetricSpec, conv: Conventions, value: np.ndarray, q: Qrels, func: str
) -> None:
    """Refuse a ranked metric whose ``value`` for some user of ``q`` is beyond float64's
    range: a sum of gains (DCG, IDCG, CG) above 1.8e308, which no float gives (NDCG,
    their ratio, is computed at a smaller scale there), or under an estimator a sum of
    weights 1 / propensity. The message blames the weights where clipping them at
    ``SUGGESTED_CLIP`` brings the sum within reach: a metric without gains, or a user
    whose gains alone leave room for weights up to 1 / clip; otherwise the gains."""
    bad = np.isinf(value)
    if not bad.any():
        return
    where = np.flatnonzero(bad)
    cause = "exponential" if conv.gain == "exponential" else "gains"
    if conv.estimator != "naive" and spec.name not in ("dcg", "ndcg"):
        cause = "weights"
    elif conv.estimator != "naive":
        gains = gains_of(q.grades, conv.gain)
        cramped = users_beyond(q, gains, room=1 / float(SUGGESTED_CLIP))
        if not np.isin(where, cramped).any():
            cause = "weighted gains"
    raise InputValidationError(f"{func}: metric {text!r} {overflow_refusal(q, where, cause)}")
