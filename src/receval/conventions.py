"""The conventions that peers disagree on, and compatibility profiles.

Every top-K metric depends on a handful of choices that libraries make
differently. receval makes each one a parameter with a documented default, and
a *profile* sets all of them at once so that a user reproduces a peer's numbers
exactly.

=================  ==========================================================
convention         values (default first)
=================  ==========================================================
ap_normalizer      ``"relevant"``: AP divides by R_u, the relevant items of the
                   user (trec_eval); ``"min_k"``: by min(R_u, k) (Spark,
                   RecBole, seed 001); ``"hits"``: by the relevant items
                   retrieved in the top k (torchmetrics, seed 002's example)
gain               ``"linear"``: gain = grade (trec_eval, ranx ``ndcg``);
                   ``"exponential"``: 2**grade - 1 (ranx ``ndcg_burges``)
rel_threshold      grade at or above which an item is relevant (default 1)
ties               ``"trec"``: score descending, then item id descending as
                   strings, scores compared in single precision (trec_eval);
                   ``"average"``: expected value over all orders of tied
                   items (scikit-learn); ``"input"``: stable input order
missing_users      users in the qrels but absent from the run: ``"zero"``
                   (every metric 0), ``"skip"`` (left out of the means,
                   trec_eval without -c), ``"error"``
empty_users        users without a relevant item: ``"skip"`` (left out) or
                   ``"zero"``
ideal              what IDCG ranks: ``"judged"`` (all judged items of the
                   user) or ``"candidates"`` (only the ranked items, as
                   scikit-learn's ``ndcg_score``)
=================  ==========================================================
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ._validation import check_number, check_option

__all__ = ["PROFILES", "Conventions", "resolve_conventions"]

CHOICES: dict[str, tuple[str, ...]] = {
    "ap_normalizer": ("relevant", "min_k", "hits"),
    "gain": ("linear", "exponential"),
    "ties": ("trec", "average", "input"),
    "missing_users": ("zero", "skip", "error"),
    "empty_users": ("skip", "zero"),
    "ideal": ("judged", "candidates"),
}


@dataclass(frozen=True)
class Conventions:
    """One value for every convention; see the module documentation."""

    ap_normalizer: str = "relevant"
    gain: str = "linear"
    rel_threshold: int = 1
    ties: str = "trec"
    missing_users: str = "zero"
    empty_users: str = "skip"
    ideal: str = "judged"

    def validated(self, func: str = "evaluate") -> Conventions:
        for name, options in CHOICES.items():
            check_option(getattr(self, name), name, func, list(options))
        # the kernels take the threshold as an int64
        check_number(
            self.rel_threshold, "rel_threshold", func, integer=True, low=-(2**63), high=2**63 - 1
        )
        return self

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


FIELDS = tuple(f.name for f in fields(Conventions))

#: What each peer library does, as receval conventions.
PROFILES: dict[str, Conventions] = {
    # trec_eval / pytrec_eval: P_k divides by k, map by R, ndcg linear on grades,
    # ties by docno descending, queries absent from the run ignored (no -c flag),
    # queries without relevant documents still evaluated (their values are 0)
    "trec_eval": Conventions(
        ap_normalizer="relevant",
        gain="linear",
        rel_threshold=1,
        ties="trec",
        missing_users="skip",
        empty_users="zero",
        ideal="judged",
    ),
    # scikit-learn ndcg_score / dcg_score: tied scores averaged, the ideal ranking
    # of the candidates themselves, grades as linear gains, every row evaluated
    "sklearn": Conventions(
        ap_normalizer="relevant",
        gain="linear",
        rel_threshold=1,
        ties="average",
        missing_users="zero",
        empty_users="zero",
        ideal="candidates",
    ),
    # ranx: AP by R, linear ndcg (ndcg_burges is exponential), ties by input
    # order of the sorted run, queries without relevant documents score 0
    "ranx": Conventions(
        ap_normalizer="relevant",
        gain="linear",
        rel_threshold=1,
        ties="input",
        missing_users="zero",
        empty_users="zero",
        ideal="judged",
    ),
    # RecBole: MAP@k divides by min(R, k), users without ground truth removed
    "recbole": Conventions(
        ap_normalizer="min_k",
        gain="linear",
        rel_threshold=1,
        ties="input",
        missing_users="zero",
        empty_users="skip",
        ideal="judged",
    ),
    # Microsoft Recommenders: map_at_k divides by min(R, k), users absent from
    # the recommendations count as zero, users without ground truth skipped
    "recommenders": Conventions(
        ap_normalizer="min_k",
        gain="linear",
        rel_threshold=1,
        ties="input",
        missing_users="zero",
        empty_users="skip",
        ideal="judged",
    ),
    # torchmetrics retrieval metrics: AP divides by the relevant retrieved,
    # empty_target_action="neg" (queries without positives score 0)
    "torchmetrics": Conventions(
        ap_normalizer="hits",
        gain="linear",
        rel_threshold=1,
        ties="input",
        missing_users="zero",
        empty_users="zero",
        ideal="candidates",
    ),
}


def resolve_conventions(
    profile: str | None = None, func: str = "evaluate", **overrides: Any
) -> Conventions:
    """Start from ``profile`` (or the defaults) and apply explicit keyword overrides."""
    if profile is not None:
        check_option(profile, "profile", func, sorted(PROFILES))
        base = PROFILES[profile]
    else:
        base = Conventions()
    given = {k: v for k, v in overrides.items() if v is not None}
    for name in given:
        check_option(name, "convention", func, list(FIELDS))
    return replace(base, **given).validated(func)
