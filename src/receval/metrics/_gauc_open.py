"""GAUC of groups split across updates and workers: the rows of open groups, held compactly.

``receval.metric("gauc")`` takes a group's rows in any number of updates and on any
number of accumulators. No update can tell that a group is finished, so each
batch's rows are kept, validated, as dense group codes (int32) into the batch's
distinct ids, 0/1 labels (int8), scores (float64, or float32 as given) and the
sample weights (when given): 13 bytes a row (9 with float32 scores), 8 more with
weights, plus each batch's distinct ids.
Merging two accumulators concatenates their batches, and ``compute()`` joins
the ids of every batch by value (ints, strings), so a group split between
batches or workers is one group, and runs the per-group AUC kernels of
:func:`receval.gauc_score` once on all the rows: the same float.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import compiled
from ..data._encode import factorize, group_rows, join_ids, plain_ids
from ..exceptions import InputValidationError

__all__ = ["Batch", "OpenGroups", "open_groups_of"]

_FUNC = "gauc_score"


@dataclass(frozen=True)
class Batch:
    """One batch's validated rows: ``ids`` its distinct group ids, ``codes`` each
    row's position in them; ``weights`` None without sample weights; ``group_weight``
    the caller's per-group weight of each id (per-row ``weighting``), else None;
    ``grouped``: the rows are in the order of their codes."""

    ids: np.ndarray
    codes: np.ndarray
    labels: np.ndarray
    scores: np.ndarray
    weights: np.ndarray | None
    group_weight: np.ndarray | None
    grouped: bool = False


def checked_rows(
    y_true: Any, y_score: Any, groups: Any, sample_weight: Any, func: str, *, whole: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """GAUC's rows checked once for every path: group codes, distinct ids, int8
    labels, float64 scores (float32 ones as given, from the core's pass) and the
    weights (or None).

    ``whole=True``: the rows are every row of the metric (:func:`gauc_score`), so
    integer scores beyond 2**53 are ranked and weights scaled by a power of two; a
    batch of an accumulator (``whole=False``) holds a part of the scores, so such
    scores raise and weights stay as given (batches must compare).
    """
    sw = None if sample_weight is None else v.as_1d(sample_weight, "sample_weight", func)
    if not whole and type(y_true) is type(y_score) is type(groups) is np.ndarray:
        rows = compiled().gauc_rows_checked(y_true, y_score, groups)  # one pass of the core
        if rows is not None and (sw is None or len(sw) == len(y_true)):
            if isinstance(rows[0], str):  # a value the core refuses
                raise v.refused(func, rows, {"y_true": y_true, "y_score": y_score})
            codes, ids, labels, scores = rows
            return codes, ids, labels, scores, v.check_sample_weight(sw, len(codes), func)
    yt = v.as_1d(y_true, "y_true", func)
    ys = v.as_1d(y_score, "y_score", func)
    if groups is None:
        raise InputValidationError(f"{func}: groups is None; pass the group id of each row.")
    codes, ids = factorize(groups, "groups", func)
    n = v.check_same_length(func, y_true=yt, y_score=ys, groups=codes, sample_weight=sw)
    v.check_not_empty(n, "y_true", func)
    labels = np.ascontiguousarray(v.check_binary01(yt, func), dtype=np.int8)
    scores = np.ascontiguousarray(v.order_scores(ys, "y_score", func, rank=whole))
    weights = v.check_sample_weight(sw, n, func, relative=whole)
    return codes, ids, labels, scores, weights


def open_groups_of(
    y_true: Any, y_score: Any, groups: Any, sample_weight: Any, per_group: Any
) -> tuple[OpenGroups, np.ndarray, np.ndarray]:
    """One batch's rows as an :class:`OpenGroups`, checked as :func:`gauc_score`
    checks them, with the batch's group codes and distinct ids; ``per_group(ids,
    codes)``: the caller's weight of each group (a per-row ``weighting``), or None."""
    codes, ids, labels, scores, weights = checked_rows(
        y_true, y_score, groups, sample_weight, _FUNC, whole=False
    )
    group_weight = per_group(ids, codes)
    part = Batch(_ids(ids), codes.astype(np.int32, copy=False), labels, scores, weights,
                 group_weight)  # fmt: skip
    return OpenGroups((part,)), codes, ids


def _ids(ids: np.ndarray) -> np.ndarray:
    """Distinct ids as int64 when integers that int64 holds, else as they are."""
    if ids.dtype.kind in "iu" and (ids.dtype != np.uint64 or not len(ids) or ids.max() < 2**63):
        return ids.astype(np.int64, copy=False)
    if ids.dtype.kind == "b":
        return ids.astype(np.int64)
    return ids


@dataclass(frozen=True)
class OpenGroups:
    """The validated rows of every batch given (see the module), merged by concatenation.

    A frozen value: ``merge`` returns a new state sharing the arrays (never written
    in place), ``folded`` the same rows as one batch.
    """

    batches: tuple[Batch, ...] = ()

    def merge(self, other: OpenGroups) -> OpenGroups:
        return OpenGroups(self.batches + other.batches)

    @property
    def n_rows(self) -> int:
        """Rows held."""
        return sum(len(b.codes) for b in self.batches)

    @property
    def memory_bytes(self) -> int:
        """Bytes of the arrays held (the ids of string batches counted by their objects)."""
        total = 0
        for b in self.batches:
            for x in (b.ids, b.codes, b.labels, b.scores, b.weights, b.group_weight):
                if x is not None:
                    total += x.nbytes
                    if x.dtype == object:
                        total += sum(sys.getsizeof(e) for e in x.tolist())
        return total

    def compact(self) -> OpenGroups:
        """Hold the rows as one batch, grouped (:meth:`folded`); returns this state.

        The same rows, so a state shared with a merged accumulator may change so."""
        if len(self.batches) > 1 or (self.batches and not self.batches[0].grouped):
            object.__setattr__(self, "batches", self.folded().batches)
        return self

    def folded(self) -> OpenGroups:
        """The same rows as one batch, the ids of every batch joined by value and the
        rows grouped by group (the kernels read a group's rows together: 3x faster
        than rows in the order they came)."""
        batches = self.batches
        if len(batches) == 1:
            b = batches[0]
            return OpenGroups((_grouped(b.ids, b.codes, b.labels, b.scores, b.weights,
                                        b.group_weight),))  # fmt: skip
        if not batches:
            return self
        codes_of_ids, ids = factorize(join_ids([b.ids for b in batches]), "groups", _FUNC)
        starts = np.cumsum([0] + [len(b.ids) for b in batches])
        codes = np.concatenate(
            [codes_of_ids[s + b.codes] for s, b in zip(starts, batches, strict=False)]
        ).astype(np.int32, copy=False)
        weighted = [b.weights is not None for b in batches]
        weights = None
        if any(weighted):  # sample_weight=None is a weight of 1 for each row
            weights = np.concatenate(
                [b.weights if b.weights is not None else np.ones(len(b.codes)) for b in batches]
            )
        custom = {b.group_weight is not None for b in batches}
        group_weight = None
        if custom == {True, False}:
            raise InputValidationError(
                f"{_FUNC}: weighting is a per-row array of group weights in some updates and "
                f"not in others; give it in every update or in none."
            )
        if custom == {True}:
            group_weight = _joined_group_weights(batches, codes_of_ids, starts, ids)
        labels = np.concatenate([b.labels for b in batches])
        scores = np.concatenate([b.scores for b in batches])
        return OpenGroups((_grouped(_ids(ids), codes, labels, scores, weights, group_weight),))

    def __getstate__(self) -> dict[str, Any]:
        one = self.compact().batches
        if not one:
            return {"n_rows": 0}
        b = one[0]
        state: dict[str, Any] = {"ids": plain_ids(b.ids), "codes": b.codes, "labels": b.labels,
                                 "scores": b.scores, "weights": b.weights,
                                 "group_weight": b.group_weight}  # fmt: skip
        return state

    def __setstate__(self, state: Any) -> None:
        object.__setattr__(self, "batches", _loaded_batches(state))


def _grouped(
    ids: np.ndarray,
    codes: np.ndarray,
    labels: np.ndarray,
    scores: np.ndarray,
    weights: np.ndarray | None,
    group_weight: np.ndarray | None,
) -> Batch:
    """A batch of these rows, put in the order of their group codes (a counting sort
    in the core; rows already in that order stay)."""
    offsets, order = group_rows(codes, len(ids))
    if len(order):
        # the codes in order are each code repeated (written in order, not gathered)
        codes = np.repeat(np.arange(len(ids), dtype=np.int32), np.diff(offsets))
        labels, scores = labels[order], scores[order]
        weights = None if weights is None else weights[order]
    return Batch(ids, codes, labels, scores, weights, group_weight, grouped=True)


def _joined_group_weights(
    batches: tuple[Batch, ...], codes_of_ids: np.ndarray, starts: np.ndarray, ids: np.ndarray
) -> np.ndarray:
    """Each group's weight from the per-row ``weighting`` of its batches, checked to be
    the same in every batch that holds the group."""
    out = np.full(len(ids), np.nan)
    for s, b in zip(starts, batches, strict=False):
        where = codes_of_ids[s : s + len(b.ids)]
        held = out[where]
        differ = ~np.isnan(held) & (held != b.group_weight)
        if differ.any():
            raise InputValidationError(
                f"{_FUNC}: weighting must be constant within each group. It varies in groups "
                f"{v.format_values(ids[where[differ]])} between updates."
            )
        out[where] = b.group_weight
    return out


_FIELDS = ("ids", "codes", "labels", "scores", "weights", "group_weight")


def _loaded_batches(state: Any) -> tuple[Batch, ...]:
    """The batch of a pickled :class:`OpenGroups`, checked field by field."""
    from ..engine.states import invalid_state

    if state == {"n_rows": 0}:
        return ()
    if not isinstance(state, dict) or set(state) != set(_FIELDS):
        keys = sorted(state) if isinstance(state, dict) else type(state).__name__
        raise invalid_state(f"OpenGroups: expected the fields {sorted(_FIELDS)}, got {keys}")

    def array(name: str, kinds: str, optional: bool = False) -> np.ndarray | None:
        x = state[name]
        if x is None and optional:
            return None
        if not isinstance(x, np.ndarray) or x.ndim != 1 or x.dtype.kind not in kinds:
            shown = type(x).__name__ if not isinstance(x, np.ndarray) else f"{x.dtype} {x.shape}"
            raise invalid_state(f"OpenGroups.{name} must be a 1-d array of kind {kinds!r}, "
                                f"got {shown}")  # fmt: skip
        return x

    ids, codes = array("ids", "iuUO"), array("codes", "i")
    labels, scores = array("labels", "i"), array("scores", "f")
    weights, group_weight = array("weights", "f", True), array("group_weight", "f", True)
    if ids is None or codes is None or labels is None or scores is None:  # pragma: no cover
        raise invalid_state("OpenGroups: a required field is None")
    n = len(codes)
    for name, x in (("labels", labels), ("scores", scores), ("weights", weights)):
        if x is not None and len(x) != n:
            raise invalid_state(f"OpenGroups.{name} must have {n} rows (as codes), got {len(x)}")
    if n and (codes.min() < 0 or codes.max() >= len(ids)):
        raise invalid_state(f"OpenGroups.codes must lie in [0, {len(ids)}), the ids held")
    if n and not np.isin(labels, (0, 1)).all():
        raise invalid_state("OpenGroups.labels must be 0 or 1")
    if not np.isfinite(scores).all():
        raise invalid_state("OpenGroups.scores must be finite")
    for name, x in (("weights", weights), ("group_weight", group_weight)):
        if x is not None and not (np.isfinite(x).all() and (x >= 0).all()):
            raise invalid_state(f"OpenGroups.{name} must be finite and >= 0")
    if group_weight is not None and len(group_weight) != len(ids):
        raise invalid_state(f"OpenGroups.group_weight must have {len(ids)} values (as ids)")
    if len(np.unique(ids)) != len(ids):
        raise invalid_state("OpenGroups.ids must be distinct")
    return (Batch(ids, codes.astype(np.int32, copy=False), labels.astype(np.int8, copy=False),
                  scores, weights, group_weight),)  # fmt: skip
