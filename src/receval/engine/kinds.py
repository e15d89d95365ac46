"""What a state's batches were of, which every later batch and merged state must share.

One call of a metric's function sees all its rows at once and refuses input of two
kinds: group ids of both types (the int 1 and the str "1": one group, or two?), or
binary labels of three values ({-1, 0, 1}: is 0 a negative?). An accumulator sees
them a batch at a time, each fine alone, so its state holds the kind of the rows
it holds (a :class:`Kind`, with the value ``None`` until a batch tells it) and
joins each batch's and each merged state's kind to it, refusing one that differs
(where the function refuses all the rows) with an error that names the argument,
the kind held and the one given. A kind is part of the state: it is merged,
synced, saved and loaded with it, and ``reset`` forgets it.

=================  ==================================================================
:class:`IdKind`    the type of the group ids: ``"integers"`` (ints, bools, whole
                   floats below ``2**53``), ``"floats"`` (a float that is not such
                   an integer: a fraction, or from ``2**53`` on) or ``"strings"``
                   (any other value, held by its text); integers and floats
                   join as floats (the ids of one float column, however cut)
:class:`LabelKind` the two labels of a binary ``y_true``, ``(negative, positive)``:
                   ``(0, 1)`` or ``(-1, 1)``, or ``(label, pos_label)``; a batch of
                   positives only tells none
:class:`WeightKind` whether the rows had ``sample_weight`` (True) or not (False),
                   for every metric that takes weights; held by the accumulator
                   (:class:`~receval.engine.run.Accumulator`) beside its state,
                   whatever the metric's state; a batch of no row tells none
=================  ==================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any, ClassVar, TypeVar

import numpy as np

from ..exceptions import InputValidationError, InvalidParameterError, RecevalError

__all__ = [
    "MERGED",
    "NO_IDS",
    "NO_LABELS",
    "NO_WEIGHTS",
    "UPDATE",
    "IdKind",
    "Kind",
    "LabelKind",
    "WeightKind",
    "held_01",
    "id_text",
    "id_texts",
    "is_integer",
    "with_kinds",
]

#: where the kind joined comes from, as an error says it: the batch of an update (a
#: state's ``absorb``), or another accumulator's state (its ``merge``; ``sync`` merges)
UPDATE = "in this update"
MERGED = "in the accumulator merged"


_K = TypeVar("_K", bound="Kind")


@dataclass(frozen=True)
class Kind:
    """The kind of one data argument's values in every batch of a state (see the module).

    ``value`` is None until a batch tells it; ``func`` names the function in errors.
    """

    value: Any = None
    func: str = ""
    #: the error of a kind that differs
    error: ClassVar[type[RecevalError]] = InputValidationError

    def join(self: _K, other: _K, where: str) -> _K:
        """This kind with ``other``'s, a batch's (``where="in this update"``) or a merged
        state's: the one known, or both when they agree.

        Raises
        ------
        InputValidationError
            Both are known and differ (:attr:`error`; ``InvalidParameterError`` for a
            :class:`WeightKind`): naming the argument, the kind held and the one given,
            and how to give one kind.
        """
        if other.value is None:
            return self
        if self.value is None:
            return other
        if _same(self.value, other.value):
            return self
        raise self.error(self.refusal(other, where))

    def refusal(self, given: Kind, where: str) -> str:  # pragma: no cover - abstract
        """The message refusing ``given`` beside this kind."""
        raise NotImplementedError

    def invalid(self) -> tuple[str, str] | None:
        """The field that a kind read from a pickle gets wrong and what it must be, or None."""
        if not isinstance(self.func, str):
            return "func", "a str"
        return None


@dataclass(frozen=True)
class IdKind(Kind):
    """The type of the group ids held: ``"integers"``, ``"floats"`` or ``"strings"``
    (None: no id yet).

    Float ids are one id per number whatever batch holds them: a batch of whole
    floats (below ``2**53``) is of integers, a batch holding another float of
    floats, and the two join as floats, where every id is held by its number's
    text (:func:`id_texts`: ``1.0`` and ``1`` as ``"1"``, ``0.5`` as ``"0.5"``), so
    that batches cut anywhere from one float column hold its groups, as
    :func:`receval.gauc_score` groups the whole column.

    ``argument`` names the ids in the refusal: ``"groups"``, or a column of a data
    argument as ``"run: items"`` (the fix converts the name after ``": "``).
    """

    argument: str = "groups"

    @classmethod
    def of(cls, ids: np.ndarray, func: str, argument: str = "groups") -> IdKind:
        """The kind of some ids (distinct or not), as the states hold them: integers for
        ints and bools (NumPy's too, in an object array) and whole floats below
        ``2**53``, floats for other floats, strings for any other value (held by its
        text); None for no id. ``argument`` names the ids in the refusal."""
        if not len(ids):
            return cls(None, func, argument)
        if ids.dtype.kind in "iub":
            return cls("integers", func, argument)
        if ids.dtype.kind == "f":
            finite = bool(np.all(np.isfinite(ids)))
            whole = finite and bool(np.all(ids == np.trunc(ids)) and np.abs(ids).max() < 2**53)
            return cls("integers" if whole else "floats", func, argument)
        if ids.dtype.kind == "O" and all(is_integer(x) for x in ids.tolist()):
            return cls("integers", func, argument)
        return cls("strings", func, argument)

    def join(self, other: IdKind, where: str) -> IdKind:
        """This kind with ``other``'s (see :meth:`Kind.join`): integers and floats
        join as floats."""
        if {self.value, other.value} == {"integers", "floats"}:
            return self if self.value == "floats" else other
        return super().join(other, where)

    def refusal(self, given: Kind, where: str) -> str:
        column = self.argument.rpartition(": ")[2]
        return (
            f"{given.func or self.func}: {self.argument} must hold ids of one type in every "
            f"update and merge: numbers (ints or floats) or strings. Got {given.value} "
            f"{where}, {self.value} before; convert them to one type in every update, e.g. "
            f"{column} = {column}.astype(str)."
        )

    def invalid(self) -> tuple[str, str] | None:
        if self.value not in (None, "integers", "floats", "strings"):
            return "value", "None, 'integers', 'floats' or 'strings'"
        if not isinstance(self.argument, str):
            return "argument", "a str"
        return super().invalid()


@dataclass(frozen=True)
class LabelKind(Kind):
    """The labels of a binary ``y_true`` held: ``(negative, positive)`` (None: positives
    only so far, or no row)."""

    @classmethod
    def of(cls, negative: Any, pos_label: Any, func: str) -> LabelKind:
        """The kind of a batch whose negative label is ``negative`` (None: the batch has
        no negative), with the metric's ``pos_label`` (None: 1 is positive)."""
        if negative is None:
            return cls(None, func)
        positive = 1 if pos_label is None else pos_label
        return cls((_plain(negative), _plain(positive)), func)

    def refusal(self, given: Kind, where: str) -> str:
        (negative, positive), (other, _) = self.value, given.value
        return (
            f"{given.func or self.func}: y_true must hold one negative label beside "
            f"{positive!r} in every update and merge (the labels of one binary column). Got "
            f"{other!r} {where}, {negative!r} before; binarise the labels alike in every "
            f"update, e.g. y_true = (y_true == {positive!r})."
        )

    def invalid(self) -> tuple[str, str] | None:
        value = self.value
        if value is not None and not (
            isinstance(value, tuple) and len(value) == 2 and all(map(_label, value))
        ):
            return "value", "None or a (negative, positive) pair of labels"
        return super().invalid()


@dataclass(frozen=True)
class WeightKind(Kind):
    """Whether the rows held had ``sample_weight``: True or False (None: no row yet).

    One call of a metric's function has weights for all its rows or for none; an
    accumulator refuses a batch (or a merged accumulator) with weights beside rows
    without, rather than take the rows without as rows of weight 1. The error is an
    ``InvalidParameterError``: the argument was given to some calls only.
    """

    error: ClassVar[type[RecevalError]] = InvalidParameterError

    def refusal(self, given: Kind, where: str) -> str:
        def said(weighted: Any) -> str:
            return "sample_weight" if weighted else "no sample_weight"

        return (
            f"{given.func or self.func}: sample_weight must be given to every update and "
            f"merged accumulator or to none. Got {said(given.value)} {where}, "
            f"{said(self.value)} before; pass sample_weight=np.ones(len(y_true)) with the "
            f"batches without weights, or reset() to start over."
        )

    def invalid(self) -> tuple[str, str] | None:
        if self.value is not None and not isinstance(self.value, bool):
            return "value", "None, True or False"
        return super().invalid()


#: the kinds of a state of no row
NO_IDS = IdKind()
NO_LABELS = LabelKind()
NO_WEIGHTS = WeightKind()


def with_kinds(empty: Any, state: Any) -> Any:
    """``empty`` (a state of no row) with the kinds ``state`` holds (its fields that are
    kinds): what a rank's rows restart from after ``sync``, so that a batch of another
    kind is refused at its update rather than when the states are merged."""
    if type(empty) is not type(state) or not is_dataclass(empty) or isinstance(empty, type):
        return empty
    held = {f.name: getattr(state, f.name, None) for f in fields(empty) if f.init}
    kinds = {name: x for name, x in held.items() if isinstance(x, Kind)}
    return replace(empty, **kinds) if kinds else empty


def held_01(state: Any) -> Any:
    """``state`` holding the labels ``(0, 1)`` in its fields of a :class:`LabelKind` that
    hold none: what an accumulator saved before its metric took ``pos_label`` loads
    holding once it has had an update, for its metric then took 0/1 labels (and bools)
    only, which its state did not record (a batch of positives only is taken as 0/1
    too: the state does not tell it apart)."""
    if not is_dataclass(state) or isinstance(state, type):
        return state
    unknown = [f.name for f in fields(state) if f.init
               and isinstance(getattr(state, f.name, None), LabelKind)
               and getattr(state, f.name).value is None]  # fmt: skip
    return replace(state, **{name: LabelKind((0, 1)) for name in unknown}) if unknown else state


def id_texts(ids: np.ndarray) -> list[str]:
    """Ids by their text (:func:`id_text`), as a state of float ids holds them.

    Examples
    --------
    >>> import numpy as np
    >>> id_texts(np.array([1.0, -0.0, 0.5, 2.0**53, 1e-05]))
    ['1', '0', '0.5', '9.007199254740992e+15', '0.00001']
    """
    if ids.dtype.kind != "f":
        return [id_text(x) for x in ids.tolist()]
    import pyarrow as pa
    import pyarrow.compute as pc

    ints = (ids == np.trunc(ids)) & (np.abs(ids) < 2**53)
    digits = pc.cast(pa.array(np.where(ints, ids, 0).astype(np.int64)), pa.string())
    texts: list[str] = pc.if_else(
        pa.array(ints), digits, pc.cast(pa.array(ids + 0.0), pa.string())
    ).to_pylist()
    return texts


def id_text(x: Any) -> str:
    """An id by its text, one text per id: a str as it is, an integer's digits for ints
    and for whole floats below ``2**53`` (``1``, ``1.0`` and ``-0.0`` as ``"1"``,
    ``"1"`` and ``"0"``: the integer ids they are), the text Arrow writes of another
    float (``0.5`` as ``"0.5"``, ``2.0**53`` as ``"9.007199254740992e+15"``: as
    :func:`receval.evaluate` matches a float id that its column keeps as a float), any
    other value's ``str``."""
    if isinstance(x, (float, np.floating)):
        return id_texts(np.array([x], dtype=np.float64))[0]
    return x if type(x) is str else str(int(x)) if is_integer(x) else str(x)


def is_integer(x: Any) -> bool:
    """Whether an id is an integer: a Python or NumPy int or bool."""
    return isinstance(x, (int, np.integer, np.bool_))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _plain(label: Any) -> Any:
    """A label as a Python value (a NumPy scalar's item)."""
    return label.item() if isinstance(label, np.generic) else label


def _label(x: Any) -> bool:
    """Whether ``x`` is a label a state may hold: a bool, an int, a finite float or a str."""
    if isinstance(x, float):
        return math.isfinite(x)
    return isinstance(x, (bool, int, str))


#: What the refusal of labels other than 0/1 without ``pos_label`` says (a whole column
#: takes the greater of two as positive; :func:`no_pos_label_by_parts` says why a part cannot).
NO_POS_LABEL = "pos_label is not specified"


def no_pos_label_by_parts(
    error: InputValidationError, part: str, other: str, fix: str
) -> InputValidationError | None:
    """The refusal of two labels without ``pos_label`` by a reader of the data in parts,
    ``part`` of them (a batch, a partition), which cannot take the greater label as the
    positive one as a whole column does, for ``other`` part (a later batch, another
    partition) may hold another label: why, and ``fix`` (how to pass ``pos_label``, the
    greater label written ``{label}``). None where ``error`` is another refusal than
    that of :data:`NO_POS_LABEL` with two labels.

    Examples
    --------
    >>> error = InputValidationError("f: y_true takes values [0, 2] and pos_label is not "
    ...                              "specified; pass pos_label, e.g. pos_label=2.",
    ...                              classes=[0, 2])
    >>> print(no_pos_label_by_parts(error, "a batch", "a later batch", "to f, e.g. {label}"))
    f: y_true takes values [0, 2] and pos_label is not specified; a batch cannot tell which
    label is the positive one, for a later batch may hold another (0s and 2s, then 2s and
    5s). Pass pos_label to f, e.g. 2.
    """
    classes = error.classes
    if NO_POS_LABEL not in str(error) or classes is None or len(classes) > 2:
        return None
    said = str(error).split("; ", 1)[0]  # what was given, without the fix of one call
    return InputValidationError(
        f"{said}; {part} cannot tell which label is the positive one, for {other} may hold "
        f"another (0s and 2s, then 2s and 5s). Pass pos_label "
        f"{fix.replace('{label}', repr(classes[-1]))}.",
        row=error.row,
        classes=classes,
    )
