"""GAUC of groups split across updates and workers: the rows of open groups, held in the core.

``receval.metric("gauc")`` takes a group's rows in any number of updates and on any
number of accumulators. No update can tell that a group is finished, so the rows
are held, validated, until ``compute()``, in the compiled core
(``receval._core.OpenGroups``, built of the pieces that hold the ranking
accumulators' rows, :mod:`receval.ranking.open_users`): a table of the group ids
(ints, or strings), grown by each update, which codes its distinct ids only, and
per row its group code (4 bytes), its 0/1 label (1 byte), its score, as a float32
while every score so far is one exactly, as a float64 from the first that is not,
and, once an update gives sample weights, its weight (float32 while exact, the
rows before weighing 1): 9 bytes a row, 13 with float64 scores, 4 or 8 more with
weights, and the distinct ids (``memory_bytes``: the capacity allocated). A
per-row ``weighting`` is held as each group's weight, compared with the other
updates' at ``compute()``.

Merging two accumulators codes the other's distinct ids in this table (one pass)
and appends its rows, so a group split between updates or workers is one group;
``compute()`` groups the rows by group in a counting sort and runs the per-group
AUC kernels of :func:`receval.gauc_score` once on all of them: the same float.
Ids are held as int64 (ints, bools, whole floats) or as strings (strings, ints
beyond int64, other values by their text). Float ids are held by their number:
while every one is a whole float below ``2**53`` as an int64, and from the first
update or merged state that holds another float every id by its number's text
(:func:`~receval.engine.kinds.id_texts`: ``1.0`` as ``"1"``, ``0.5`` as ``"0.5"``;
the ids held so far are held so too), so that a float column cut into any
updates has the groups :func:`receval.gauc_score` makes of it whole. An update or
a merge of strings beside numbers is refused (:class:`~receval.engine.kinds.IdKind`),
as :func:`receval.gauc_score` refuses a column of both (the int 1 and the str "1"
would be one group). The labels are held as 0/1, with the pair of labels the updates
gave (:class:`~receval.engine.kinds.LabelKind`), which every later update and merged
state must share, as :func:`receval.gauc_score` refuses a column of three labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import compiled
from ..data._encode import factorize
from ..engine.kinds import MERGED, NO_IDS, NO_LABELS, UPDATE, IdKind, LabelKind, id_texts
from ..exceptions import InputValidationError
from ..ranking.open_users import given_ids, held_ids

__all__ = ["OpenGroups", "checked_rows"]

_FUNC = "gauc_score"

#: the group ids, each row's group code, label, score and weight (None: none), and
#: the groups' weights (None: none)
_Optional = np.ndarray | None
Grouped = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, _Optional, _Optional]


def checked_rows(
    y_true: Any, y_score: Any, groups: Any, sample_weight: Any, func: str, *, whole: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """GAUC's rows checked once for every path: group codes, distinct ids, int8
    labels (``y_true``: the 0/1 labels its definition's ``prepare`` read), float64
    scores (float32 ones as given, from the core's pass) and the weights (or None).

    ``whole=True``: the rows are every row of the metric (:func:`gauc_score`), so
    integer scores beyond 2**53 are ranked; a batch of an accumulator
    (``whole=False``) holds a part of the scores, so such scores raise (batches must
    compare). The weights are as given: the caller scales them (see
    :func:`~receval.engine.sums.weight_shift`) where it keeps the scale.
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
    labels = np.ascontiguousarray(yt, dtype=np.int8)
    scores = np.ascontiguousarray(v.order_scores(ys, "y_score", func, rank=whole))
    weights = v.check_sample_weight(sw, n, func)
    return codes, ids, labels, scores, weights


def _rows() -> Any:
    return compiled().OpenGroups()


@dataclass(eq=False)
class OpenGroups:
    """The validated rows of every update given (see the module): ``rows`` the core's."""

    rows: Any = field(default_factory=_rows)
    #: the type of the group ids held
    ids_kind: IdKind = field(default=NO_IDS, repr=False)
    #: the labels the rows were given, which later rows must share
    labels: LabelKind = field(default=NO_LABELS, repr=False)

    def add(
        self, y_true: Any, y_score: Any, groups: Any, sample_weight: Any, per_group: Any,
        given: LabelKind,
    ) -> OpenGroups:  # fmt: skip
        """Add a batch's rows, checked as :func:`gauc_score` checks them (``y_true``: 0/1,
        of the labels ``given``; ``per_group(ids, codes)``: the caller's weight of each
        of its groups, a per-row ``weighting``, or None); returns this state."""
        labels_kind = self.labels.join(given, UPDATE)
        codes, ids, labels, scores, weights = checked_rows(
            y_true, y_score, groups, sample_weight, _FUNC, whole=False
        )
        kind = self.ids_kind.join(IdKind.of(ids, _FUNC), UPDATE)
        group_weight = per_group(ids, codes)
        if scores.dtype != np.float32:
            scores = np.ascontiguousarray(scores, dtype=np.float64)
        self._hold(kind)
        self.rows.add(
            _held_form(ids, kind),
            np.ascontiguousarray(codes, dtype=np.int32),
            np.ascontiguousarray(labels, dtype=np.int8),
            np.ascontiguousarray(scores),
            None if weights is None else np.ascontiguousarray(weights, dtype=np.float64),
            None if group_weight is None else np.ascontiguousarray(group_weight, np.float64),
        )
        self.ids_kind, self.labels = kind, labels_kind
        return self

    def add_checked(self, y_true: np.ndarray, y_score: np.ndarray, groups: np.ndarray) -> bool:
        """Add plain NumPy 0/1 rows with integer group ids, checked by the core in one
        call; False: other input, rows beside other labels held (the full checks join
        them), or a value the core refuses (nothing added)."""
        if groups.dtype.kind not in "iu" or self.labels.value not in (None, (0, 1)):
            return False
        kind = self.ids_kind.join(IdKind.of(groups, _FUNC), UPDATE)
        if self.rows.add_checked(y_true, y_score, groups) is not True:
            return False
        if self.labels.value is None and len(y_true) and y_true.min() == 0:  # a 0 among them
            self.labels = LabelKind.of(0, None, _FUNC)
        self.ids_kind = kind
        return True

    def absorb(self, other: OpenGroups) -> OpenGroups:
        """Add another state's rows after these (in place); returns this state."""
        kind = self.ids_kind.join(other.ids_kind, MERGED)
        labels = self.labels.join(other.labels, MERGED)
        if other.ids_kind.value != kind.value:  # its ids by their text, as these are held
            other = OpenGroups(other.rows.copy(), other.ids_kind, other.labels)
            other._hold(kind)
        self._hold(kind)
        self.rows.absorb(other.rows.copy() if other is self else other.rows)
        self.ids_kind, self.labels = kind, labels
        return self

    def _hold(self, kind: IdKind) -> None:
        """Hold the ids as ``kind`` holds them: integers held re-keyed by their text
        where ``kind`` is floats (the rows' codes are kept)."""
        if kind.value != "floats" or self.ids_kind.value != "integers":
            return
        state = self.__getstate__()
        del state["label_pair"], state["id_kind"]
        self.rows = _loaded({**state, "ids": np.array(id_texts(state["ids"]))})
        self.ids_kind = kind

    def merge(self, other: OpenGroups) -> OpenGroups:
        """The rows of both (a new state; this one's first)."""
        return OpenGroups(self.rows.copy(), self.ids_kind, self.labels).absorb(other)

    @property
    def n_rows(self) -> int:
        """Rows held."""
        return int(self.rows.n_rows)

    @property
    def memory_bytes(self) -> int:
        """Bytes held: the id table, the rows and the groups' weights (capacity)."""
        return int(self.rows.memory_bytes)

    def ids(self) -> np.ndarray:
        """The group ids in code order (int64, or str)."""
        return held_ids(self.rows.ids())

    def group_weight(self) -> np.ndarray | None:
        """Each group's weight of the per-row ``weighting``s given (None: none given),
        checked: given in every update or in none, the same for a group in every update."""
        weight, without, differ = self.rows.group_weights()
        if weight is not None and without:
            raise InputValidationError(
                f"{_FUNC}: weighting is a per-row array of group weights in some updates and "
                f"not in others; give it in every update or in none."
            )
        if len(differ):
            raise InputValidationError(
                f"{_FUNC}: weighting must be constant within each group. It varies in groups "
                f"{v.format_values(self.ids()[differ])} between updates."
            )
        return None if weight is None else np.asarray(weight)

    def grouped(self) -> Grouped:
        """Every row, grouped by group in a counting sort: the ids, each row's group code
        (int32), label (int8), score (float32 while every one held is a float32) and
        weight (None: no update gave weights), and the groups' weights (None: none)."""
        group_weight = self.group_weight()
        codes, labels, scores, weights = self.rows.grouped()
        return self.ids(), codes, labels, scores, weights, group_weight

    def __getstate__(self) -> dict[str, Any]:
        if not self.n_rows:
            return {"n_rows": 0}
        group_weight = self.group_weight()
        codes, labels, scores, weights = self.rows.rows()
        return {"ids": self.ids(), "codes": codes, "labels": labels, "scores": scores,
                "weights": weights, "group_weight": group_weight,
                "label_pair": self.labels.value, "id_kind": self.ids_kind.value}  # fmt: skip

    def __setstate__(self, state: Any) -> None:
        # saved before the state held its labels: none known (0/1 where the accumulator
        # loading it says so: receval.engine.kinds.held_01)
        # saved before the state held the kind of its ids: told by the ids (floats
        # were held by their text, and are read as strings)
        pair = kind = None
        if isinstance(state, dict) and "label_pair" in state:
            state = dict(state)
            pair, kind = state.pop("label_pair"), state.pop("id_kind", None)
        self.rows = _loaded(state)
        told = IdKind.of(self.ids(), _FUNC) if self.n_rows else NO_IDS
        held = (told.value,) if told.value != "strings" else ("strings", "floats")
        if kind is not None and kind not in held:
            from ..engine.states import invalid_state

            raise invalid_state(f"OpenGroups.id_kind must be one of {held} for the ids held, "
                                f"got {kind!r}")  # fmt: skip
        self.ids_kind = told if kind is None else IdKind(kind, _FUNC)
        self.labels = LabelKind(pair, _FUNC)


def _held_form(ids: np.ndarray, kind: IdKind) -> Any:
    """A batch's distinct ids as the state of ``kind`` holds them (see the module)."""
    return id_texts(ids) if kind.value == "floats" else given_ids(ids)


_FIELDS = ("ids", "codes", "labels", "scores", "weights", "group_weight")


def _loaded(state: Any) -> Any:
    """The core's rows of a pickled :class:`OpenGroups`, checked field by field (the
    dtypes here, the values in the core)."""
    from ..engine.states import invalid_state

    if isinstance(state, dict) and set(state) == {"n_rows"} and state["n_rows"] == 0:
        return _rows()
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

    ids, codes = array("ids", "iubUO"), array("codes", "iu")
    labels, scores = array("labels", "iub"), array("scores", "f")
    weights, group_weight = array("weights", "f", True), array("group_weight", "f", True)
    if ids is None or codes is None or labels is None or scores is None:  # pragma: no cover
        raise invalid_state("OpenGroups: a required field is None")
    if len(codes) and (codes.min() < 0 or codes.max() >= len(ids)):
        raise invalid_state(f"OpenGroups.codes must lie in [0, {len(ids)}), the ids held")
    if len(labels) and not np.isin(labels, (0, 1)).all():
        raise invalid_state("OpenGroups.labels must be 0 or 1")

    def floats(x: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(x, dtype=np.float32 if x.dtype == np.float32 else np.float64)

    try:
        return compiled().OpenGroups.from_rows(
            given_ids(ids), np.ascontiguousarray(codes, dtype=np.uint32),
            np.ascontiguousarray(labels, dtype=np.int8), floats(scores),
            None if weights is None else floats(weights),
            None if group_weight is None else np.ascontiguousarray(group_weight, np.float64),
        )  # fmt: skip
    except ValueError as error:
        raise invalid_state(str(error)) from None
