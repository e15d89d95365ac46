"""Values of the precision-recall curve of cumulative counts per distinct score:
average precision, the trapezoidal area and the break-even point.

The counts ``tps`` and ``fps`` are cumulative from the highest score down. A weighted
state holds each label's weights in a unit of its own (see
:class:`receval.engine.states.ScoreCounts`): a negatives' unit is ``2**shift``
positives' units (0 without weights), and the two are never added as they are
(weights of 1e-300 beside 1e300 are 2**2000 apart, past any one float's range).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from fractions import Fraction

import numpy as np

__all__ = ["CurveValue", "average_precision", "break_even", "curve_value", "pr_auc"]

#: A value of ``(tps, fps, shift)``.
CurveValue = Callable[[np.ndarray, np.ndarray, int], float]

_FAR = 1 << 12  # beyond any two units of finite weights: a count scaled by 2**-_FAR is 0


def _precision(tps: np.ndarray, fps: np.ndarray, shift: int) -> np.ndarray:
    """``tps / (tps + fps 2**shift)``: the counts of the label of the finer unit scaled
    into the other's (exact, unless it falls below the normal floats, where it no longer
    moves a sum beside the other's counts of at least one unit), so that nothing
    overflows. A count scaled to 0 beside no count of the other label still gives the
    precision of that count: 1 for positives, 0 for negatives."""
    shift = max(-_FAR, min(shift, _FAR))
    t, f = (np.ldexp(tps, -shift), fps) if shift > 0 else (tps, np.ldexp(fps, shift))
    with np.errstate(invalid="ignore"):
        precision: np.ndarray = t / (t + f)
    if shift:  # with shift 0 nothing was scaled: a nan is 0/0 of the counts themselves
        lost = np.isnan(precision)
        precision[lost & (tps > 0)] = 1.0
        precision[lost & (fps > 0)] = 0.0
    return precision


def average_precision(tps: np.ndarray, fps: np.ndarray, shift: int) -> float:
    """The step-wise area ``sum (R_t - R_{t-1}) P_t`` (scikit-learn's)."""
    precision = _precision(tps, fps, shift)
    recall_step = np.diff(tps, prepend=0.0) / tps[-1]
    return float(np.sum(recall_step * precision))


def pr_auc(tps: np.ndarray, fps: np.ndarray, shift: int) -> float:
    """The trapezoidal area under the curve (Spark's)."""
    precision = _precision(tps, fps, shift)
    recall = tps / tps[-1]
    # the curve starts at (recall 0, precision of the top threshold), as in Spark
    recall = np.concatenate(([0.0], recall))
    precision = np.concatenate(([precision[0]], precision))
    return float(np.sum(np.diff(recall) * (precision[1:] + precision[:-1]) / 2.0))


def break_even(tps: np.ndarray, fps: np.ndarray, shift: int) -> float:
    """Where precision equals recall: where the rows predicted positive weigh as much as
    all positives (``tps + fps 2**shift == P``), between the first threshold at or past
    that weight and the one before it, linearly; in exact rationals of the cumulative
    counts as floats (each label's in its own unit: weighted counts beyond 2**53 units
    are rounded as they are summed), rounded once from there."""
    total = Fraction(tps[-1])
    unit = Fraction(2) ** shift  # a negatives' unit in positives' units

    def predicted(i: int) -> Fraction:
        return Fraction(tps[i]) + Fraction(fps[i]) * unit if i >= 0 else Fraction(0)

    k = bisect_left(range(len(tps)), True, key=lambda i: predicted(i) >= total)
    before = predicted(k - 1)
    hits = Fraction(tps[k - 1]) if k > 0 else Fraction(0)
    frac = (total - before) / (predicted(k) - before)
    return float((hits + frac * (Fraction(tps[k]) - hits)) / total)


def curve_value(value: CurveValue, tps: np.ndarray, fps: np.ndarray, shift: int = 0) -> float:
    """``value`` of the cumulative counts at the decreasing distinct scores (a negatives'
    unit ``2**shift`` positives' units); nan without a positive."""
    return value(tps, fps, shift) if len(tps) and tps[-1] > 0 else float("nan")
