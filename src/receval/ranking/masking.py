"""``exclude=`` in an evaluation: one partition's run without its users' seen items.

The masking of :func:`receval.evaluate` (and every backend's aggregation) as one
step before the values: the run's rows of items a user has seen are removed, and
what was removed counted (:class:`~receval.data.seen.MaskingSummary`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data._lookup import lookup
from ..data._ranked import Qrels, Run
from ..data.seen import MaskingSummary, SeenItems

__all__ = ["MaskedRun", "masked_partition"]


@dataclass(frozen=True)
class MaskedRun:
    """One partition's masked run (None: no run) and its counts."""

    run: Run | None
    summary: MaskingSummary


def masked_partition(
    seen: SeenItems | None, qrels: Qrels | None, run: Run | None
) -> tuple[MaskedRun | None, np.ndarray | None]:
    """``exclude=``: the partition's run without its users' seen items, the counts
    (``qrels``: its judgments, whose seen rows are counted, kept; None: not read), and
    the rows removed per run user (None, None: nothing to mask)."""
    if seen is None:
        return None, None
    n_qrels_seen = 0 if qrels is None else int(seen.seen_lists(qrels)[1].sum())
    if run is None:
        return MaskedRun(None, MaskingSummary(n_qrels_seen=n_qrels_seen)), None
    masked = seen.mask(run)
    summary = MaskingSummary(
        n_rows_removed=masked.n_removed,
        n_users_masked=int(np.count_nonzero(masked.removed)),
        n_users_without_history=int(np.count_nonzero(lookup(run.user_ids, seen.user_ids) < 0)),
        n_qrels_seen=n_qrels_seen,
    )
    return MaskedRun(masked.run, summary), masked.removed
