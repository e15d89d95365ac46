"""Sample weights the exact AUC's sums rounded, and the warning that says so.

The compiled core sums each label's weights as integers in units of the lowest set bit
of any of them: exact while one label's weights span at most 126 bits (from the lowest
set bit of the smallest to the top of their sum, with room for their count). Beyond
that it holds the label in a coarser unit and rounds its smallest weights (each to one
unit at least), and says so with the sums: for each label so rounded, the bits its
weights span and a bound on the share of their sum that the rounding moved. The ROC
AUC, a weighted mean over each label's weights, moves by at most the sum of the two
labels' shares; precision, a ratio of the two labels' sums at a threshold, may be far
from exact. Every metric of those sums (ROC AUC, GAUC, average precision, the P-R area,
the break-even point; in memory, in accumulators, out of core and on Spark) warns with
:func:`warn_rounded`, once, where its value is computed: the states keep what was
rounded (the core's state its :data:`CoreRounding`, a GAUC's sums of whole groups a
:class:`RoundedWeights` field of :data:`ROUNDING`) through merges, pickles and
``state_dict``, so a state merged or loaded warns as the rows' function.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from ..exceptions import RecevalWarning, warn

__all__ = [
    "CORE_ROUNDING",
    "NOT_ROUNDED",
    "ROUNDING",
    "RoundedWeights",
    "core_rounding",
    "merged",
    "rounding_problem",
    "warn_rounded",
]

#: The bits the core's sums of one label's weights hold exactly.
EXACT_BITS = 126

#: The metadata of a state's field that holds a :class:`RoundedWeights` or None: two
#: states' merge is :meth:`RoundedWeights.merge` of theirs, and a loaded one is checked.
ROUNDING: Mapping[str, bool] = MappingProxyType({"rounding": True})

#: A weighted state of the core's counts as it tells how far they are from its weights,
#: per label (positives, negatives): the lowest set bit of any of its weights (None:
#: none held) and the units by which its counts moved where they were rounded (0: every
#: bit kept); :class:`RoundedWeights` is what the warning reads of it. Pickles and
#: state_dicts keep it, so that a reloaded state rounds and warns as the original.
CoreRounding = tuple[tuple[int | None, int], tuple[int | None, int]]

#: The :data:`CoreRounding` of a state that kept every bit of no weight held (what a
#: state saved before its rounding was kept loads as).
NOT_ROUNDED: CoreRounding = ((None, 0), (None, 0))

#: What :func:`core_rounding` takes.
CORE_ROUNDING = (
    "a pair (positives, negatives) of pairs (lowest bit: an int32 or None, units moved: an "
    "int in [0, 2**128), 0 where the lowest bit is None)"
)

#: ``(span, share)`` of one label whose weights were rounded (None: every bit kept).
LabelRounding = tuple[int, float] | None


@dataclass(frozen=True)
class RoundedWeights:
    """The labels whose weights the core's sums rounded.

    Attributes
    ----------
    positives, negatives : (int, float) or None
        For a label whose weights were rounded: the bits they span (from the lowest set
        bit of the smallest to the top of their sum) and a bound on the share of their
        sum that the rounding moved; None where every bit was kept. Merged over score
        ranges or groups: the largest span and the largest share.
    groups : int, default=0
        The groups (GAUC) whose weights were rounded; 0 for one set of rows.
    """

    positives: LabelRounding
    negatives: LabelRounding
    groups: int = 0

    @classmethod
    def of(cls, rounded: Any, groups: int = 0) -> RoundedWeights | None:
        """The rounding the core returned, ``(positives, negatives)`` (of ``groups``
        groups); None when neither label was rounded."""
        positives, negatives = rounded
        if positives is None and negatives is None:
            return None
        return cls(_label(positives), _label(negatives), groups)

    def merge(self, other: RoundedWeights | None) -> RoundedWeights:
        """The rounding of both sets of rows (disjoint score ranges, or groups)."""
        if other is None:
            return self
        return RoundedWeights(
            _larger(self.positives, other.positives),
            _larger(self.negatives, other.negatives),
            self.groups + other.groups,
        )

    @property
    def bound(self) -> float:
        """A bound on how far the ROC AUC of the rounded sums is from the exact one: the
        sum of the two labels' shares (each label's weights enter it as a weighted mean)."""
        return sum(label[1] for label in (self.positives, self.negatives) if label is not None)


def merged(rounded: Any) -> RoundedWeights | None:
    """The merge of some :class:`RoundedWeights` and Nones (None: none rounded)."""
    out: RoundedWeights | None = None
    for r in rounded:
        if r is not None:
            out = r if out is None else out.merge(r)
    return out


def core_rounding(value: Any) -> CoreRounding | None:
    """``value`` as a :data:`CoreRounding` (NumPy integers as ints), or None where it is
    not one (see :data:`CORE_ROUNDING`)."""
    if not (isinstance(value, tuple) and len(value) == 2):
        return None
    labels = []
    for label in value:
        if not (isinstance(label, tuple) and len(label) == 2):
            return None
        low, lost = label
        if not ((low is None and _is_int(lost, 0, 1)) or _is_int(low, -(2**31), 2**31)):
            return None
        if not _is_int(lost, 0, 2**128):
            return None
        labels.append((None if low is None else int(low), int(lost)))
    return labels[0], labels[1]


def rounding_problem(value: Any) -> str | None:
    """What a loaded field of :data:`ROUNDING` should be and is not (None: it is)."""
    expected = (
        "None or a RoundedWeights of positives and negatives each None or (span: an int "
        ">= 0, share: a float in [0, 1]) and groups an int >= 0"
    )
    if value is None:
        return None
    if type(value) is not RoundedWeights:
        return expected
    labels = (value.positives, value.negatives)
    if not _is_int(value.groups, 0, None) or not all(
        label is None
        or (
            isinstance(label, tuple)
            and len(label) == 2
            and _is_int(label[0], 0, None)
            and isinstance(label[1], float)
            and 0.0 <= label[1] <= 1.0
        )
        for label in labels
    ):
        return expected
    return None


def _is_int(value: Any, low: int, high: int | None) -> bool:
    """Whether ``value`` is an integer (not a bool) in ``[low, high)`` (``high`` None:
    no bound)."""
    return bool(
        isinstance(value, (int, np.integer))
        and not isinstance(value, (bool, np.bool_))
        and low <= value
        and (high is None or value < high)
    )


def _label(label: Any) -> LabelRounding:
    return None if label is None else (int(label[0]), float(label[1]))


def _larger(a: LabelRounding, b: LabelRounding) -> LabelRounding:
    if a is None or b is None:
        return a if b is None else b
    return max(a[0], b[0]), max(a[1], b[1])


def warn_rounded(func: str, rounded: RoundedWeights | None, bound: float | None) -> None:
    """Warn (:class:`~receval.exceptions.RecevalWarning`) where the core rounded one
    label's weights: which label, how far its weights span, and ``bound``, how far the
    value may be from exact (None: unbounded, as precision may be far off); nothing
    where every bit was kept."""
    if rounded is None:
        return
    spans = [
        f"{name} span {label[0]:,} bits"
        for name, label in (("positives", rounded.positives), ("negatives", rounded.negatives))
        if label is not None
    ]
    where = (
        f" in {rounded.groups:,} group{'s' if rounded.groups != 1 else ''}"
        if rounded.groups
        else ""
    )
    effect = (
        "the value may be far from exact"
        if bound is None
        else f"the value may be off by at most {bound:.2g}"
    )
    warn(
        f"{func}: the sample weights of the {' and those of the '.join(spans)}{where} (from "
        f"the lowest set bit of the smallest to the top of their sum), which with room for "
        f"their count is more than the {EXACT_BITS} bits summed exactly, so the smallest were "
        f"rounded to a coarser unit (each to one unit at least) and {effect}; drop or clip "
        f"the tiniest weights (weights within 2**40 of each other fit for up to 2**30 rows).",
        RecevalWarning,
    )
