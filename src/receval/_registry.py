"""Metric strings: parsing, the registry of ranking metrics, aliases, suggestions.

A metric string is ``name``, optionally followed by conventions in parentheses
and a cut-off: ``"ndcg@10"``, ``"ndcg(gain=exponential)@10"``,
``"map(ap_normalizer=min_k, rel_threshold=2)@100"``, ``"r_precision"``. Names
are case-insensitive and may be aliases (``hr@10`` is ``hit_ratio@10``);
``str(parse_metric(s))`` is the canonical form, and parsing it again gives the
same metric.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from ._kernels import _topk_codes as codes
from .conventions import CHOICES, FIELDS
from .exceptions import InvalidParameterError

__all__ = [
    "REGISTRY",
    "MetricSpec",
    "parse_metric",
]


@dataclass(frozen=True)
class MetricInfo:
    """What the registry knows of one metric."""

    name: str
    kind: int
    description: str
    accepts_k: bool = True
    bounded: bool = True  # values in [0, 1]
    higher_is_better: bool = True
    mean: str = "users"  # "users": mean of per-user values; "pooled": sum(num)/sum(den)
    uses: tuple[str, ...] = ()  # conventions that change its value besides the common ones
    needs: str = "qrels"  # "qrels": relevance judgments; "similarity": item similarities


_COMMON = ("rel_threshold", "ties", "missing_users", "empty_users")

REGISTRY: dict[str, MetricInfo] = {
    m.name: m
    for m in [
        MetricInfo("precision", codes.PRECISION, "hits in the top k / k"),
        MetricInfo("recall", codes.RECALL, "hits in the top k / relevant items of the user"),
        MetricInfo("f1", codes.F1, "harmonic mean of precision@k and recall@k"),
        MetricInfo(
            "hit_ratio",
            codes.HIT_RATIO,
            "sum of hits over users / sum of relevant items over users (one pooled ratio)",
            mean="pooled",
        ),
        MetricInfo("success", codes.SUCCESS, "1 if the top k holds a relevant item, else 0"),
        MetricInfo(
            "map",
            codes.AP,
            "average precision in the top k, averaged over users",
            uses=("ap_normalizer",),
        ),
        MetricInfo("cg", codes.CG, "sum of gains in the top k", bounded=False, uses=("gain",)),
        MetricInfo(
            "dcg",
            codes.DCG,
            "sum of gain / log2(rank + 1) in the top k",
            bounded=False,
            uses=("gain",),
        ),
        MetricInfo(
            "idcg", codes.IDCG, "DCG of the ideal ranking", bounded=False, uses=("gain", "ideal")
        ),
        MetricInfo("ndcg", codes.NDCG, "DCG / IDCG (0 when IDCG is 0)", uses=("gain", "ideal")),
        MetricInfo("mrr", codes.RR, "1 / rank of the first relevant item in the top k"),
        MetricInfo(
            "r_precision",
            codes.R_PRECISION,
            "precision at R, the number of relevant items of the user; with @k, the "
            "relevant items in the top min(R, k) over R",
        ),
        MetricInfo(
            "ils",
            codes.ILS,
            "intra-list similarity: mean similarity of the pairs of items in the top k "
            "(needs features or similarity)",
            bounded=False,  # cosine is in [-1, 1]; a caller's similarity may be anything
            higher_is_better=False,
            needs="similarity",
        ),
        MetricInfo(
            "diversity",
            codes.DIVERSITY,
            "1 - ils: mean dissimilarity of the pairs of items in the top k "
            "(needs features or similarity)",
            bounded=False,
            needs="similarity",
        ),
    ]
}

ALIASES: dict[str, str] = {
    "p": "precision",
    "hr": "hit_ratio",
    "hit_rate": "success",
    "ap": "map",
    "rr": "mrr",
    "recip_rank": "mrr",
    "rprec": "r_precision",
    "ndcg_burges": "ndcg(gain=exponential)",
    "intra_list_similarity": "ils",
}


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric string: name, cut-off and per-metric conventions."""

    name: str
    k: int | None = None
    params: tuple[tuple[str, object], ...] = field(default=())

    @property
    def info(self) -> MetricInfo:
        return REGISTRY[self.name]

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{key}={value}" for key, value in self.params) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text


_PATTERN = re.compile(
    r"^\s*(?P<name>[a-z_][a-z0-9_]*)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<k>[^\s]+))?\s*$",
    re.IGNORECASE,
)


_MAX_K = 2**63 - 1


def _unknown(name: str) -> InvalidParameterError:
    candidates = sorted(set(REGISTRY) | set(ALIASES))
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    return InvalidParameterError(f"Unknown metric {name!r}.{hint} See receval.list_metrics().")


def parse_metric(text: str) -> MetricSpec:
    """Parse a metric string such as ``"ndcg@10"`` into a :class:`MetricSpec`.

    Parameters
    ----------
    text : str
        ``name[(convention=value, ...)][@k]``, case-insensitive.

    Returns
    -------
    spec : MetricSpec
        ``str(spec)`` is the canonical string.

    Raises
    ------
    InvalidParameterError
        Unknown metric (with the closest name), malformed string, bad k, or a
        convention that is unknown or has a bad value.

    Examples
    --------
    >>> from receval import parse_metric
    >>> str(parse_metric("NDCG@10"))
    'ndcg@10'
    >>> str(parse_metric("hr@5"))
    'hit_ratio@5'
    >>> str(parse_metric("ndcg_burges@10"))
    'ndcg(gain=exponential)@10'
    >>> str(parse_metric("map( rel_threshold=2 , ap_normalizer=min_k )@100"))
    'map(ap_normalizer=min_k,rel_threshold=2)@100'
    """
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"A metric must be a string such as 'ndcg@10'. Got {text!r} instead."
        )
    match = _PATTERN.match(text)
    if match is None:
        raise InvalidParameterError(
            f"Cannot parse metric {text!r}; expected name[(convention=value, ...)][@k], "
            f"e.g. 'ndcg@10' or 'map(ap_normalizer=min_k)@100'."
        )
    name = match["name"].lower()
    params: dict[str, object] = {}
    if name in ALIASES:
        alias = ALIASES[name]
        inner = _PATTERN.match(alias)
        assert inner is not None  # the aliases above are well formed
        name = inner["name"]
        params.update(_parse_params(inner["params"], text))
    if name not in REGISTRY:
        raise _unknown(name)
    info = REGISTRY[name]
    params.update(_parse_params(match["params"], text))
    k = None
    if match["k"] is not None:
        if not info.accepts_k:
            raise InvalidParameterError(f"Metric {text!r}: {name} takes no @k cut-off.")
        try:
            k = int(match["k"])
        except ValueError:
            k = 0
        if k < 1 or str(k) != match["k"].lstrip("+"):
            raise InvalidParameterError(
                f"Metric {text!r}: the cut-off must be a positive integer. "
                f"Got {match['k']!r} instead."
            )
        if k > _MAX_K:  # the kernels take k as an int64
            raise InvalidParameterError(
                f"Metric {text!r}: the cut-off must be at most {_MAX_K}. "
                f"Got {match['k']!r} instead."
            )
    return MetricSpec(name, k, tuple(sorted(params.items())))


def _parse_params(text: str | None, whole: str) -> dict[str, object]:
    out: dict[str, object] = {}
    if not text or not text.strip():
        return out
    for part in text.split(","):
        key, sep, value = (s.strip() for s in part.partition("="))
        key = key.lower()
        if not sep or not key or not value:
            raise InvalidParameterError(
                f"Metric {whole!r}: expected convention=value inside the parentheses. "
                f"Got {part.strip()!r} instead."
            )
        if key not in FIELDS:
            raise InvalidParameterError(
                f"Metric {whole!r}: unknown convention {key!r}; use one of {sorted(FIELDS)!r}."
            )
        if key in ("rel_threshold", "depth"):
            try:
                out[key] = int(value)
            except ValueError:
                raise InvalidParameterError(
                    f"Metric {whole!r}: {key} must be an integer. Got {value!r} instead."
                ) from None
        elif key == "judged_only":
            if value.lower() not in ("true", "false"):
                raise InvalidParameterError(
                    f"Metric {whole!r}: judged_only must be true or false. Got {value!r} instead."
                )
            out[key] = value.lower() == "true"
        else:
            value = value.lower()
            if value not in CHOICES[key]:
                raise InvalidParameterError(
                    f"Metric {whole!r}: {key} must be one of {sorted(CHOICES[key])!r}. "
                    f"Got {value!r} instead."
                )
            out[key] = value
    return out
