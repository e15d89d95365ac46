"""sampled_report(): sampled, corrected and full-ranking values of the same run side by side."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validation as v
from .._parameters import counted
from ..data._ranked import as_qrels, as_run
from ..engine.sources import is_scan_run
from ..exceptions import InvalidParameterError
from ..ranking.evaluation import evaluate_as
from ..ranking.report import EvaluationReport
from .corrections import CORRECTIONS, check_gamma
from .negatives import as_candidates

__all__ = ["SampledReport", "sampled_report"]


@dataclass(frozen=True)
class SampledReport:
    """Per metric: the sampled value, each corrected value and the full-ranking value.

    Attributes
    ----------
    metrics : list of str
        The metric strings.
    sampled : dict of str to float
        The metric on the run restricted to the candidates.
    corrected : dict of str to dict of str to float
        ``corrected[correction][metric]`` for each correction asked for.
    full : dict of str to float
        The metric on the whole run: the full-ranking value when the run ranks
        the whole catalogue (``run_covers_catalog``).
    run_covers_catalog : bool
        Whether every qrels user's run lists at least ``catalog_size`` items.
    reports : dict of str to EvaluationReport
        The underlying reports: "sampled", each correction, and "full".
    """

    metrics: list[str]
    sampled: dict[str, float]
    corrected: dict[str, dict[str, float]]
    full: dict[str, float]
    run_covers_catalog: bool
    reports: dict[str, EvaluationReport]

    def _columns(self) -> dict[str, dict[str, float]]:
        return {"sampled": self.sampled, **self.corrected, "full": self.full}

    def __repr__(self) -> str:
        names, values = zip(*self._columns().items(), strict=True)
        width = max([len(m) for m in self.metrics] + [6])
        lines = [f"SampledReport({counted(len(self.metrics), 'metric')}, run covers the catalog: "
                 f"{self.run_covers_catalog}; as a table: .to_frame())",
                 f"  {'metric':<{width}}  " + "  ".join(f"{n:>13}" for n in names)]  # fmt: skip
        for m in self.metrics:
            cells = "  ".join(f"{v[m]:>13.6f}" for v in values)
            lines.append(f"  {m:<{width}}  {cells}")
        return "\n".join(lines)

    def to_frame(self, backend: str | None = None) -> Any:
        """One row per metric: columns ``metric``, ``sampled``, one per correction, ``full``."""
        from ..data.frames import make_frame

        cols = {"metric": np.array(self.metrics, dtype=object)}
        for name, values in self._columns().items():
            cols[name] = np.array([values[m] for m in self.metrics])
        return make_frame(cols, backend)


def sampled_report(
    qrels: Any,
    run: Any,
    metrics: str | Iterable[str],
    *,
    candidates: Any,
    corrections: str | Iterable[str] = CORRECTIONS,
    catalog_size: int | None = None,
    gamma: float | None = None,
    **conventions: Any,
) -> SampledReport:
    """How far sampling moves each metric: sampled, corrected and full-ranking values.

    Runs :func:`receval.evaluate` on ``run`` restricted to ``candidates`` (the
    sampled metric), once per correction, and on the whole run (the full
    ranking, when the run scores the whole catalogue).

    Parameters
    ----------
    qrels, run, metrics
        As in :func:`receval.evaluate` (an in-memory run or a :func:`receval.scan`).
    candidates : Candidates, DataFrame or dict
        The candidate sets, e.g. from :func:`receval.sample_negatives`.
    corrections : str or iterable of str, default=("rank", "minimal_bias", "bv")
        The corrections to report, each one of "rank", "minimal_bias" and "bv"
        (see :func:`receval.corrected_metric`); a str is one correction.
    catalog_size : int, default=None
        N (default: the candidates' ``catalog_size``).
    gamma : float, default=None
        The variance weight of "bv" (None: 0.1); only with "bv" among ``corrections``.
    **conventions
        Conventions passed to every :func:`receval.evaluate` call.

    Returns
    -------
    report : SampledReport

    Examples
    --------
    >>> from receval import sample_negatives, sampled_report
    >>> qrels = {"u1": {3: 1}, "u2": {7: 1}}
    >>> run = {u: {i: float(i == (3 if u == "u1" else 0)) for i in range(20)} for u in qrels}
    >>> c = sample_negatives(qrels, 20, n=5, seed=0)
    >>> rep = sampled_report(qrels, run, ["recall@1"], candidates=c, corrections=["bv"])
    >>> rep.full["recall@1"], rep.run_covers_catalog
    (0.5, True)
    """
    func = "sampled_report"
    if isinstance(corrections, str):
        corrections = [corrections]
    elif not isinstance(corrections, Iterable):
        raise InvalidParameterError(
            f"The 'corrections' parameter of {func} must be a correction or a list of them "
            f"from {sorted(CORRECTIONS)!r}. Got {corrections!r} instead."
        )
    corrections = list(corrections)
    for name in corrections:
        v.check_option(name, "corrections", func, list(CORRECTIONS))
    check_gamma(gamma, corrections, func)
    if "correction" in conventions:  # each report's own: evaluate_as would get it twice
        raise InvalidParameterError(
            f"{func} takes corrections= (a list: one report each), not correction=. Got "
            f"correction={conventions['correction']!r} instead; pass "
            f"corrections=[{conventions['correction']!r}]."
        )
    c = as_candidates(candidates, func)
    reports = {"sampled": evaluate_as(func, qrels, run, metrics, candidates=c, **conventions)}
    for name in corrections:
        reports[name] = evaluate_as(
            func, qrels, run, metrics, candidates=c, correction=name,
            catalog_size=catalog_size, gamma=gamma if name == "bv" else None, **conventions,
        )  # fmt: skip
    reports["full"] = evaluate_as(func, qrels, run, metrics, **conventions)
    names = list(reports["sampled"].mean)
    size = catalog_size if catalog_size is not None else c.catalog_size
    covers = False
    if size is not None and not is_scan_run(run):
        r, q = as_run(run), as_qrels(qrels)
        lengths = np.append(np.diff(r.offsets), 0)
        pos = q.positions_in(r, "users")
        covers = bool((lengths[np.where(pos >= 0, pos, -1)] >= size).all())
    return SampledReport(
        metrics=names,
        sampled=dict(reports["sampled"].mean),
        corrected={k: dict(reports[k].mean) for k in corrections},
        full=dict(reports["full"].mean),
        run_covers_catalog=covers,
        reports=reports,
    )
