"""The names of the paired tests, the p-value corrections and the bootstrap intervals,
and the check of their sizes.

Plain data, without NumPy: ``receval compare --help`` lists them without loading
the statistics (:mod:`receval.comparison.significance`,
:mod:`receval.comparison.intervals`), and the gate's configuration is checked
without them.
"""

from __future__ import annotations

from typing import Any

from .._parameters import check_number

__all__ = ["CORRECTIONS", "INTERVALS", "MAX_REPLICATES", "TESTS", "check_count"]

#: The p-value corrections of :func:`receval.adjust_pvalues`.
CORRECTIONS = ("holm", "bonferroni", "bh")
#: The paired tests of :func:`receval.paired_pvalues`.
TESTS = ("randomization", "student", "wilcoxon")
#: The bootstrap intervals of :func:`receval.bootstrap_intervals`.
INTERVALS = ("bca", "percentile")

#: The most replicates of a permutation test or a bootstrap: p-values resolve to 1e-7,
#: and each replicate keeps a few numbers per model (10**12 would need terabytes).
MAX_REPLICATES = 10**7


def check_count(value: Any, name: str, func: str, *, subject: str | None = None) -> int:
    """A number of replicates: an int in [1, MAX_REPLICATES].

    Examples
    --------
    >>> from receval.comparison.choices import check_count
    >>> check_count(1000, "n_permutations", "compare")
    1000
    """
    return int(check_number(value, name, func, integer=True, low=1, high=MAX_REPLICATES,
                            subject=subject))  # fmt: skip
