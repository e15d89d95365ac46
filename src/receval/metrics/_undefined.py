"""Why a metric is undefined for its input: the reasons its warnings give.

A metric of labels counts rows per class, or with ``sample_weight`` the weight per
class, where a row of weight 0 counts for nothing: a class may be present in
``y_true`` and still count nothing. Each reason here says what the state counted.
"""

from __future__ import annotations

from ..engine.states import ScoreCounts
from ._binary import warn_undefined

__all__ = [
    "NO_WEIGHT",
    "lacking_class",
    "warn_because",
    "warn_counts_undefined",
    "warn_lacking_class",
]

#: The reason where every row has a sample weight of 0.
NO_WEIGHT = "no row has a positive sample weight"


def warn_because(func: str, what: str, why: str) -> float:
    """nan with the ``UndefinedMetricWarning``
    ``"<func>: <why>, so <what> is undefined (returned as nan)."``."""
    return warn_undefined(f"{func}: {why}, so {what} is undefined (returned as nan).")


def lacking_class(positive: bool, negative: bool, *, weighted: bool, both: bool = True) -> str:
    """The reason a metric of the classes of ``y_true`` counted too little.

    Parameters
    ----------
    positive, negative : bool
        Whether the positives (the negatives) counted anything: a row, or with
        weights a positive weight.
    weighted : bool
        Whether the state counted weights (then a class that counted nothing may
        have rows of weight 0) rather than rows.
    both : bool, default=True
        Whether the metric needs both classes; False: the positives only.

    Returns
    -------
    why : str
        The reason, to follow ``"<function>: "`` in the warning.
    """
    if not positive and not negative:
        return NO_WEIGHT
    lacking = "negative" if positive else "positive"
    if weighted:
        return f"y_true has no {lacking} row of positive sample weight"
    return "y_true has a single class" if both else "y_true has no positive sample"


def warn_lacking_class(
    func: str,
    what: str,
    positive: bool,
    negative: bool,
    *,
    weighted: bool,
    both: bool = True,
) -> float:
    """nan with the warning of :func:`warn_because` for :func:`lacking_class`'s reason."""
    return warn_because(func, what, lacking_class(positive, negative, weighted=weighted, both=both))


def warn_counts_undefined(counts: ScoreCounts, func: str, what: str, *, both: bool = True) -> float:
    """nan with the warning of :func:`warn_lacking_class` for the class that ``counts``
    (rows, or weights) hold nothing of."""
    _, pos, neg, _ = counts.table()
    return warn_lacking_class(func, what, bool(pos.any()), bool(neg.any()),
                              weighted=counts.weighted, both=both)  # fmt: skip
