"""Expected exposure (Diaz et al. 2020) and exposure per item group.

A user who scans a ranking with rank-biased patience :math:`\\gamma` (Moffat
and Zobel's RBP browsing model) looks at the item at rank :math:`i` with
probability :math:`\\gamma^{i-1}`: its *exposure*. A ranking with tied scores,
or several sampled rankings, is a stochastic ranking, and the exposure of an
item is its expected value. :func:`expected_exposure` compares it with the
exposure that the relevance judgments warrant (EE-D, EE-R, EE-L);
:func:`group_exposure` sums it per item group (provider, category) and
measures how unevenly the groups are exposed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import _validation as v
from ...conventions import CHOICES
from ...data._encode import factorize
from ...data._labels import factorize_labels
from ...data._lookup import distinct, lookup
from ...data._ranked import Qrels, Run, as_qrels
from ...exceptions import InputValidationError, InvalidParameterError
from .history import block_means, list_positions
from .lists import RunLike, as_run, check_k

__all__ = ["ExpectedExposureReport", "expected_exposure", "exposure_columns"]

_TIES = ("average", "input")
_MISSING = ("zero", "skip")


# ---------------------------------------------------------------- building blocks
def check_ranking_options(patience: Any, k: Any, ties: Any, func: str) -> tuple[float, int]:
    """The checked RBP patience (in [0, 1)) and depth of the exposure functions, and ``ties``."""
    gamma = v.check_number(patience, "patience", func, low=0.0, high=1.0, high_inclusive=False)
    depth = check_k(k, func)
    v.check_option(ties, "ties", func, _TIES)
    return float(gamma), depth


def tie_averaged_exposure(
    offsets: np.ndarray, keys: np.ndarray, patience: float, depth: int
) -> np.ndarray:
    """Per row of CSR lists already sorted by ``keys`` (descending, equal keys adjacent),
    the RBP exposure ``patience**(rank - 1)`` (0 below ``depth``) averaged over the rows
    of its run of equal keys: the expected exposure when every order of a tie is equally
    likely."""
    position = list_positions(offsets)
    with np.errstate(under="ignore"):
        exposure = np.where(position < depth, np.power(patience, position, dtype=np.float64), 0.0)
    return block_means(offsets, keys, exposure)


def run_exposure(run: Run, patience: float, depth: int, ties: str) -> np.ndarray:
    """Expected exposure of every row of ``run`` (CSR order)."""
    keys = np.arange(run.n_rows) if ties == "input" else run.scores  # input: no tie
    return tie_averaged_exposure(run.offsets, keys, patience, depth)


def as_samples(run: Any, func: str) -> list[Run]:
    """One run, or the sampled rankings of a stochastic policy (a list of runs); an
    empty mapping or list is an error, as for the other beyond-accuracy metrics."""
    if isinstance(run, (Mapping, list, tuple)) and not isinstance(run, Run) and not run:
        v.check_not_empty(0, "run", func)
    if isinstance(run, (list, tuple)) and run and all(isinstance(x, (Run, Mapping)) for x in run):
        return [as_run(x, func) for x in run]
    return [as_run(run, func)]


def pool_ids(base: np.ndarray, parts: Sequence[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Ids of several dictionaries in one: ``base`` first, then each new id of ``parts``
    in order; per part, the pooled code of each of its ids (ids matched as by
    :func:`~receval.data._lookup.lookup`: an int and a str of the same spelling agree)."""
    pooled = np.asarray(base, dtype=object)
    codes = []
    for ids in parts:
        ids = np.asarray(ids, dtype=object)
        code = lookup(ids, pooled).astype(np.int64)
        new = code < 0
        code[new] = len(pooled) + np.arange(int(new.sum()))
        pooled = np.concatenate([pooled, ids[new]])
        codes.append(code)
    return codes, pooled


class PooledExposure:
    """Expected exposure per (user, item) pair, pooled over the sampled rankings.

    Items are encoded once over ``item_ids`` (the qrels' items, first) and every
    sample (``item_ids``). Users are ``user_ids`` (``user`` of each pair; rows of
    other users are dropped and counted in ``n_run_only_users``), or with
    ``user_ids=None`` every user of the samples. ``n_samples`` counts, per user,
    the samples that rank it; its exposure is the mean over them.
    """

    def __init__(
        self,
        user_ids: np.ndarray | None,
        item_ids: np.ndarray,
        samples: Sequence[Run],
        patience: float,
        depth: int,
        ties: str,
    ) -> None:
        item_codes, self.item_ids = pool_ids(item_ids, [r.item_ids for r in samples])
        n_items = len(self.item_ids)
        self.n_items = n_items
        if user_ids is None:
            user_codes, self.user_ids = pool_ids(
                np.empty(0, dtype=object), [r.user_ids for r in samples]
            )
        else:
            self.user_ids = user_ids
            user_codes = [
                lookup(np.asarray(r.user_ids), np.asarray(user_ids)).astype(np.int64)
                for r in samples
            ]
        seen = np.zeros(len(self.user_ids), dtype=np.int64)
        run_only: set[Any] = set()
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for r, user_pos, item_code in zip(samples, user_codes, item_codes, strict=True):
            has_rows = np.diff(r.offsets) > 0
            run_only.update(r.user_ids[(user_pos < 0) & has_rows].tolist())
            seen[user_pos[(user_pos >= 0) & has_rows]] += 1
            user = np.repeat(user_pos, np.diff(r.offsets))
            keep = user >= 0
            e = run_exposure(r, patience, depth, ties)
            parts.append((user[keep], item_code[r.items[keep]], e[keep]))
        self.n_samples = seen
        self.n_run_only_users = len(run_only)
        if len(parts) == 1:  # one ranking: its (user, item) pairs are distinct already
            self.user, self.item, self.exposure = parts[0][0], parts[0][1], parts[0][2]
            return
        none = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), np.empty(0))
        user, item, e = (np.concatenate([p[j] for p in [none, *parts]]) for j in range(3))
        key, inverse = np.unique(user * n_items + item, return_inverse=True)
        weight = 1.0 / np.maximum(seen[user], 1)
        self.exposure = np.bincount(inverse, weights=e * weight, minlength=len(key))
        self.user = key // n_items
        self.item = key % n_items


def target_exposure(
    q: Qrels, patience: float, depth: int, rel_threshold: float, binary: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The exposure each relevant judged item deserves: (qrels user, qrels item code,
    target) of the relevant rows. Items of one grade share the mean exposure of the
    positions they fill in the ideal rankings (grades descending)."""
    lengths = np.diff(q.offsets)
    user = np.repeat(np.arange(q.n_users, dtype=np.int64), lengths)
    relevant = q.grades >= rel_threshold
    level = np.where(relevant, 1.0 if binary else q.grades, -np.inf)
    order = np.lexsort((-level, user))
    order = order[relevant[order]]
    user_r = user[order]
    offsets = np.zeros(q.n_users + 1, dtype=np.int64)
    np.cumsum(np.bincount(user_r, minlength=q.n_users), out=offsets[1:])
    target = tie_averaged_exposure(offsets, level[order], patience, depth)
    return user_r, q.items[order].astype(np.int64), target


class Memberships:
    """Items and the groups they belong to (``item_groups``), one row per membership.

    ``item_groups`` is ``{item: group}``, ``{item: [group, ...]}`` (an item in several
    groups counts fully in each, as in expeval) or a pair ``(items, groups)`` of equal
    length, one row per membership. ``group_ids`` are in order of first appearance,
    of the type given (:func:`~receval.data._labels.factorize_labels`).
    """

    def __init__(self, item_groups: Any, func: str) -> None:
        if isinstance(item_groups, Mapping):
            items: list[Any] = []
            groups: Any = []  # a list, or the column given
            for item, group in item_groups.items():
                many = isinstance(group, (list, tuple, set, frozenset, np.ndarray))
                members = sorted(group, key=str) if isinstance(group, (set, frozenset)) else group
                for g in members if many else [group]:
                    items.append(item)
                    groups.append(g)
        elif isinstance(item_groups, tuple) and len(item_groups) == 2:
            items = list(v.as_1d(item_groups[0], "item_groups", func))
            groups = v.as_1d(item_groups[1], "item_groups", func)
            v.check_same_length(func, items=np.empty(len(items)), groups=np.empty(len(groups)))
        else:
            raise InputValidationError(
                f"{func}: item_groups must be a mapping {{item: group}} (or {{item: [groups]}}) "
                f"or a pair (items, groups) of arrays. Got {type(item_groups).__name__}."
            )
        v.check_not_empty(len(items), "item_groups", func)
        item_codes, self.item_ids = factorize(np.asarray(items, dtype=object), "item_groups", func)
        group_codes, self.group_ids = factorize_labels(groups, "item_groups", func)
        pairs = np.unique(np.column_stack([item_codes, group_codes]).astype(np.int64), axis=0)
        self.item = pairs[:, 0]  # a code of item_ids
        self.group = pairs[:, 1]  # a code of group_ids
        self.n_groups = len(self.group_ids)

    def of_pooled(
        self, pooled_ids: np.ndarray, used: np.ndarray, what: str, func: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """CSR of the groups of each pooled item: (offsets, group codes); every pooled
        item code of ``used`` (each a ``what``) needs a group."""
        code = lookup(np.asarray(self.item_ids, dtype=object), pooled_ids).astype(np.int64)
        known = code[self.item] >= 0
        item, group = code[self.item][known], self.group[known]
        counts = np.bincount(item, minlength=len(pooled_ids))
        ungrouped = distinct(used[counts[used] == 0])
        if len(ungrouped):
            n, ids = len(ungrouped), pooled_ids[ungrouped[: v.MAX_SHOWN + 1]]
            raise InputValidationError(
                f"{func}: item_groups must give a group to every {what}. Got "
                f"{v.counted(n, 'item')} {v.format_values(ids)} without one; add them "
                f"to item_groups."
            )
        offsets = np.zeros(len(pooled_ids) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return offsets, group[np.argsort(item, kind="stable")]


def expand_to_groups(
    offsets: np.ndarray, groups: np.ndarray, item: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For rows of pooled item codes ``item``: (row of each membership, its group)."""
    counts = offsets[item + 1] - offsets[item]
    row = np.repeat(np.arange(len(item)), counts)
    within = np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts)
    return row, groups[offsets[item][row] + within]


# ---------------------------------------------------------------- expected exposure
@dataclass(frozen=True, eq=False)
class ExpectedExposureReport:
    """Expected-exposure metrics of a run, per user and averaged over users.

    Attributes
    ----------
    users : ndarray of shape (n_users,)
        The users evaluated, in the qrels' order of first appearance: qrels users
        with at least one relevant item, and
        those without one under ``empty_users="zero"`` or ``"one"`` (with
        ``missing_users="skip"``, only those the run ranks).
    ee_disparity : ndarray of shape (n_users,)
        EE-D of each user, :math:`\\lVert\\varepsilon\\rVert_2^2`: how unequally
        the run spreads exposure over items, whatever their relevance (lower is
        more equal).
    ee_relevance : ndarray of shape (n_users,)
        EE-R of each user, :math:`\\varepsilon^\\top\\varepsilon^*`: exposure
        given to relevant items, weighted by the exposure they deserve.
    ee_loss : ndarray of shape (n_users,)
        EE-L of each user, :math:`\\lVert\\varepsilon - \\varepsilon^*\\rVert_2^2`
        (lower is better; 0 when the run exposes every item as it deserves).
    patience : float
        The RBP patience :math:`\\gamma`.
    k : int or None
        The depth of the rankings (None: whole rankings).
    n_users_skipped : int
        Qrels users without a relevant item left out by ``empty_users="skip"``.
    n_users_missing : int
        Users evaluated (or left out by ``missing_users="skip"``) but absent
        from every sampled ranking.
    n_run_only_users : int
        Run users absent from the qrels (ignored).
    """

    users: np.ndarray
    ee_disparity: np.ndarray
    ee_relevance: np.ndarray
    ee_loss: np.ndarray
    patience: float
    k: int | None
    n_users_skipped: int
    n_users_missing: int
    n_run_only_users: int

    @property
    def n_users(self) -> int:
        """Number of users evaluated."""
        return len(self.users)

    @property
    def mean(self) -> dict[str, float]:
        """Each metric's mean over the users evaluated (nan when there are none)."""
        return {name: _mean(getattr(self, name)) for name in _EE_NAMES}

    def __repr__(self) -> str:
        means = ", ".join(f"{name}={float(value)!r}" for name, value in self.mean.items())
        return (
            f"ExpectedExposureReport({means}, n_users={self.n_users}, "
            f"patience={self.patience}, k={self.k})"
        )

    def to_frame(self, backend: str | None = None) -> Any:
        """Per-user table (user, ee_disparity, ee_relevance, ee_loss) as a DataFrame.

        Parameters
        ----------
        backend : {"pandas", "polars"}, default=None
            Which library builds the frame; by default pandas if installed,
            else polars.
        """
        from ...data.frames import make_frame

        columns = {"user": self.users} | {name: getattr(self, name) for name in _EE_NAMES}
        return make_frame(columns, backend=backend)


_EE_NAMES = ("ee_disparity", "ee_relevance", "ee_loss")


def _mean(x: np.ndarray) -> float:
    """The exact mean (a fixed-point sum divided once), as the accumulators merge it."""
    from ...engine.sums import ExactSum

    return ExactSum.of(x).value / len(x) if len(x) else float("nan")


def expected_exposure(
    qrels: Any,
    run: RunLike,
    *,
    patience: float = 0.5,
    k: int | None = None,
    ties: str = "average",
    rel_threshold: float = 1,
    binary: bool = False,
    missing_users: str = "zero",
    empty_users: str = "skip",
    item_groups: Any = None,
) -> ExpectedExposureReport:
    """Compute expected exposure: EE-D, EE-R and EE-L of a (stochastic) ranking.

    Under the RBP browsing model an item at rank :math:`i` gets exposure
    :math:`\\gamma^{i-1}`. A ranking with tied scores is a stochastic ranking
    in which every order of a tie is equally likely, and a list of runs is a
    set of rankings sampled from a stochastic policy; the expected exposure
    :math:`\\varepsilon_d` of item :math:`d` is the mean over both. The target
    :math:`\\varepsilon^*_d` is the expected exposure of :math:`d` when the
    relevant items are ranked by grade, every order within a grade equally
    likely (the *equal expected exposure* principle); non-relevant items
    deserve 0.

    Parameters
    ----------
    qrels : Qrels, mapping, DataFrame or path
        Relevance grades per user (query): ``{user: {item: grade}}``, a
        :class:`~receval.Qrels`, or a qrels file as :meth:`Qrels.from_file`
        reads. Unjudged items are non-relevant.
    run : Run, mapping, DataFrame, sequence of lists, or list of runs
        The rankings, as in :func:`intra_list_similarity`; a list of
        :class:`~receval.Run` objects or of mappings is a sample of rankings of
        a stochastic policy, averaged per user over the samples that rank it.
    patience : float, default=0.5
        RBP patience :math:`\\gamma` in [0, 1): the probability of reading on.
    k : int, default=None
        Depth of the rankings: ranks below ``k`` get no exposure, in the run
        and in the target. None means whole rankings (as the reference
        implementation).
    ties : {"average", "input"}, default="average"
        ``"average"``: tied items share the mean exposure of their positions
        (the stochastic ranking). ``"input"``: the run's order (score
        descending, input order within ties) is taken as a deterministic ranking.
    rel_threshold : float, default=1
        Grade at or above which a judged item is relevant.
    binary : bool, default=False
        Whether every relevant item deserves the same exposure (grades are
        ignored), as the reference implementation's ``-B``.
    missing_users : {"zero", "skip"}, default="zero"
        Users with relevant items but absent from the run: ``"zero"`` scores
        them as an empty ranking (no exposure: EE-D = EE-R = 0 and EE-L =
        :math:`\\lVert\\varepsilon^*\\rVert^2`); ``"skip"`` leaves them out.
    empty_users : {"skip", "zero", "one", "error"}, default="skip"
        Users without a relevant item, who deserve no exposure: ``"skip"`` leaves
        them out (as the reference implementation); ``"zero"`` and ``"one"``
        give each of their metrics that value, as for the other relevance
        metrics of :func:`receval.evaluate`; ``"error"`` raises naming them.
    item_groups : mapping or (items, groups), default=None
        Groups of items (provider, category): ``{item: group}``,
        ``{item: [group, ...]}`` or a pair of arrays with one row per
        membership. When given, the metrics compare exposure per group: the
        exposure of a group is the sum over its *relevant* items (expeval's
        ``-G``); an item of several groups counts in each. Every relevant item
        needs a group.

    Returns
    -------
    report : ExpectedExposureReport
        Per-user ``ee_disparity``, ``ee_relevance`` and ``ee_loss``, their
        ``mean`` over users, and the users left out.

    Raises
    ------
    InvalidParameterError
        A patience outside [0, 1), a bad ``k``, ``ties``, ``rel_threshold``,
        ``missing_users`` or ``empty_users``.
    InputValidationError
        Malformed qrels or run; with ``empty_users="error"``, a user without a
        relevant item.

    See Also
    --------
    group_exposure : Exposure summed per item group.
    gini_index : How evenly the top-k lists spread over the catalogue.

    Notes
    -----
    With :math:`m_g` relevant items of grade :math:`g` and :math:`b_g` items of
    higher grade, every item of grade :math:`g` deserves

    .. math:: \\varepsilon^*_d = \\frac{1}{m_g} \\sum_{i=b_g}^{b_g + m_g - 1}
              \\gamma^i = \\frac{\\gamma^{b_g} - \\gamma^{b_g + m_g}}{m_g (1 - \\gamma)}

    (only the positions :math:`i < k` counted when ``k`` is set), and per user

    .. math:: \\text{EE-D} = \\lVert\\varepsilon\\rVert_2^2, \\quad
              \\text{EE-R} = \\varepsilon^\\top \\varepsilon^*, \\quad
              \\text{EE-L} = \\lVert\\varepsilon - \\varepsilon^*\\rVert_2^2
              = \\text{EE-D} - 2\\,\\text{EE-R} + \\lVert\\varepsilon^*\\rVert_2^2,

    the sums running over every item the run or the qrels hold. These are the
    unnormalised values of the reference implementation ``expeval`` (its
    ``-U -u rbp`` output; relevant items are those with grade > 0 there),
    which rescales them between bounds by default. Exposure is not divided by
    :math:`1/(1-\\gamma)`. Users without a relevant item have no target and are
    left out, as in ``expeval``, unless ``empty_users`` scores them; means are
    over the users evaluated.

    References
    ----------
    .. [1] F. Diaz, B. Mitra, M. D. Ekstrand, A. J. Biega and B. Carterette,
       "Evaluating stochastic rankings with expected exposure", CIKM 2020.
    .. [2] A. Moffat and J. Zobel, "Rank-biased precision for measurement of
       retrieval effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    Two relevant items deserve (1 + 0.5) / 2 = 0.75 each. A deterministic
    ranking gives them 1 and 0.5; a tie (or both orders, sampled) gives 0.75:

    >>> from receval import expected_exposure
    >>> qrels = {"u": {"a": 1, "b": 1}}
    >>> expected_exposure(qrels, {"u": {"a": 0.9, "b": 0.5}}).mean
    {'ee_disparity': 1.25, 'ee_relevance': 1.125, 'ee_loss': 0.125}
    >>> expected_exposure(qrels, {"u": {"a": 0.5, "b": 0.5}}).mean
    {'ee_disparity': 1.125, 'ee_relevance': 1.125, 'ee_loss': 0.0}
    >>> samples = [{"u": {"a": 2, "b": 1}}, {"u": {"b": 2, "a": 1}}]
    >>> expected_exposure(qrels, samples).mean["ee_loss"]
    0.0
    """
    func = "expected_exposure"
    gamma, depth = check_ranking_options(patience, k, ties, func)
    v.check_option(missing_users, "missing_users", func, _MISSING)
    v.check_option(empty_users, "empty_users", func, list(CHOICES["empty_users"]))
    threshold = float(v.check_number(rel_threshold, "rel_threshold", func))
    if not isinstance(binary, (bool, np.bool_)):
        raise InvalidParameterError(
            f"The 'binary' parameter of {func} must be a bool. Got {binary!r} instead."
        )
    q = as_qrels(qrels, func)
    pooled = PooledExposure(q.user_ids, q.item_ids, as_samples(run, func), gamma, depth, ties)
    t_user, t_qitem, target = target_exposure(q, gamma, depth, threshold, bool(binary))
    n = q.n_users
    has_relevant = np.bincount(t_user, minlength=n) > 0
    if empty_users == "error" and not has_relevant.all():
        empty = distinct(q.user_ids[~has_relevant])  # sorted, as evaluate names them
        raise InputValidationError(
            f"{func}: empty_users='error', and {v.counted(len(empty), 'user')} "
            f"{v.verb(len(empty), 'has')} no relevant item (grade >= {threshold:g}), e.g. "
            f"{v.format_values(empty)}; pass empty_users='skip', 'zero' or 'one' to leave "
            f"them out or score them."
        )

    # target of each pooled pair, and which target rows the run retrieved
    t_key = t_user * pooled.n_items + t_qitem  # the qrels items come first in the pool
    order = np.argsort(t_key, kind="stable")
    t_sorted = t_key[order]
    p_key = pooled.user * pooled.n_items + pooled.item
    pos = np.minimum(np.searchsorted(t_sorted, p_key), max(len(t_sorted) - 1, 0))
    found = (t_sorted[pos] == p_key) if len(t_sorted) else np.zeros(len(p_key), dtype=bool)
    deserved = np.where(found, target[order[pos]] if len(t_sorted) else 0.0, 0.0)
    retrieved = np.zeros(len(target), dtype=bool)
    retrieved[order[pos[found]]] = True

    e = pooled.exposure
    if item_groups is not None:
        disparity, relevance, loss = _group_metrics(
            Memberships(item_groups, func), pooled, t_user, t_qitem, target, found, n, func
        )
    else:
        # (float even without a row: bincount of nothing is int64)
        disparity = np.bincount(pooled.user, weights=e * e, minlength=n).astype(np.float64)
        relevance = np.bincount(pooled.user, weights=e * deserved, minlength=n).astype(np.float64)
        loss = np.bincount(pooled.user, weights=(e - deserved) ** 2, minlength=n).astype(np.float64)
        unretrieved = np.where(retrieved, 0.0, target)
        loss += np.bincount(t_user, weights=unretrieved * unretrieved, minlength=n)

    scored = has_relevant.copy()  # the users with a value: empty_users scores the others
    if empty_users in ("zero", "one"):
        value = 0.0 if empty_users == "zero" else 1.0
        for metric in (disparity, relevance, loss):
            metric[~has_relevant] = value
        scored[:] = True
    ranked = pooled.n_samples > 0
    missing = scored & ~ranked
    keep = scored & (ranked | (missing_users == "zero"))
    return ExpectedExposureReport(
        users=q.user_ids[keep],
        ee_disparity=disparity[keep],
        ee_relevance=relevance[keep],
        ee_loss=loss[keep],
        patience=gamma,
        k=k,
        n_users_skipped=int((~scored).sum()),
        n_users_missing=int(missing.sum()),
        n_run_only_users=pooled.n_run_only_users,
    )


def _group_metrics(
    members: Memberships,
    pooled: PooledExposure,
    t_user: np.ndarray,
    t_item: np.ndarray,
    target: np.ndarray,
    relevant_pair: np.ndarray,
    n_users: int,
    func: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per user, EE-D, EE-R and EE-L over the groups of its relevant items: a group's
    exposure (and target) is the sum over its relevant items, as expeval's ``-G``."""
    offsets, groups = members.of_pooled(pooled.item_ids, t_item, "relevant item", func)
    n_groups = members.n_groups
    row, group = expand_to_groups(offsets, groups, t_item)
    target_key = t_user[row] * n_groups + group
    target_value = target[row]
    pairs = np.flatnonzero(relevant_pair)
    row, group = expand_to_groups(offsets, groups, pooled.item[pairs])
    run_key = pooled.user[pairs][row] * n_groups + group
    run_value = pooled.exposure[pairs][row]
    keys, inverse = np.unique(np.concatenate([target_key, run_key]), return_inverse=True)
    deserved = np.bincount(inverse[: len(target_key)], weights=target_value, minlength=len(keys))
    exposure = np.bincount(inverse[len(target_key) :], weights=run_value, minlength=len(keys))
    user = keys // n_groups
    return (
        np.bincount(user, weights=exposure * exposure, minlength=n_users),
        np.bincount(user, weights=exposure * deserved, minlength=n_users),
        np.bincount(user, weights=(exposure - deserved) ** 2, minlength=n_users),
    )


def exposure_columns(
    q: Qrels, r: Run, specs: Mapping[str, Any], convs: Mapping[str, Any]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per qrels user, each expected-exposure metric (nan: left out) and the user's
    relevant items, from one :func:`receval.expected_exposure` per set of options.

    The conventions read: ``rel_threshold``, ``gain`` (``"binary"``: every relevant
    item deserves the same exposure), ``missing_users`` (``"skip"`` leaves users
    absent from the run out; otherwise they get an empty ranking), ``empty_users``
    (``"error"`` raises after the columns, which score those users as ``"zero"``)
    and ``ties`` (``"input"`` reads the run's order; any other rule, the stochastic
    ranking of every order of scores equal as doubles). ``specs`` are the metrics'
    parsed strings and ``convs`` their conventions, by metric string.
    """
    relevant: dict[float, np.ndarray] = {}
    reports: dict[tuple[Any, ...], Any] = {}
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    rows = np.repeat(np.arange(q.n_users), np.diff(q.offsets))
    for text, spec in specs.items():
        conv = convs[text]
        options = (
            float(spec.arg("patience")), spec.k, "input" if conv.ties == "input" else "average",
            float(conv.rel_threshold), conv.gain == "binary",
            "skip" if conv.missing_users == "skip" else "zero",
            "zero" if conv.empty_users == "error" else conv.empty_users,
        )  # fmt: skip
        if options not in reports:
            patience, k, ties, threshold, binary, missing, empty = options
            reports[options] = expected_exposure(
                q, r, patience=patience, k=k, ties=ties, rel_threshold=threshold,
                binary=binary, missing_users=missing, empty_users=empty,
            )  # fmt: skip
        report = reports[options]
        col = np.full(q.n_users, np.nan)
        col[lookup(report.users, q.user_ids)] = getattr(report, spec.name)
        threshold = float(conv.rel_threshold)
        if threshold not in relevant:
            judged = q.grades >= threshold
            relevant[threshold] = np.bincount(rows[judged], minlength=q.n_users).astype(float)
        out[text] = (col, relevant[threshold])
    return out
