"""The names of the paired tests, the p-value corrections and the bootstrap intervals.

Plain data, without NumPy: ``receval compare --help`` lists them without loading
the statistics (:mod:`receval.comparison.significance`,
:mod:`receval.comparison.intervals`).
"""

from __future__ import annotations

__all__ = ["CORRECTIONS", "INTERVALS", "TESTS"]

#: The p-value corrections of :func:`receval.adjust_pvalues`.
CORRECTIONS = ("holm", "bonferroni", "bh")
#: The paired tests of :func:`receval.paired_pvalues`.
TESTS = ("randomization", "student", "wilcoxon")
#: The bootstrap intervals of :func:`receval.bootstrap_intervals`.
INTERVALS = ("bca", "percentile")
