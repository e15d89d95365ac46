"""The pieces of :func:`receval.evaluate`: the report, metric and convention
parsing, per-user values of ranked and list-wise metrics, and report building.

Every backend (in memory, a scanned run, Spark) runs these on its users."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from . import _validation as v
from ._evaluation_report import EvaluationReport, describe_report, user_mean
from ._kernels import codes as _core_codes
from ._validation import check_option
from .conventions import FIELDS, Conventions, resolve_conventions
from .data._encode import lookup
from .data._ranked import Qrels, Run
from .data.io import is_frame
from .engine.totals import MeanState, mean_state
from .exceptions import InputValidationError, InvalidParameterError
from .registry import MetricSpec, parse_metric, parse_metrics, ranking_spec

codes = _core_codes()  # the ranking kernel's codes, defined in the compiled core

__all__ = [
    "EvaluationReport",
    "as_popularity_table",
    "as_qrels",
    "as_run",
    "build_report",
    "describe_report",
    "evaluate_lists",
    "kernel_values",
    "list_values",
    "mean_states",
    "metric_conventions",
    "prepare_metrics",
    "ranked_values",
    "store_list_metric",
    "subset_qrels",
]

# gain_grades="positive": every grade from 1 on earns its gain
_POSITIVE_GRADES = 1
# list-wise metrics with ties="average" at a cut-off: the popularity metrics and
# serendipity (sums over the list's items, each position of a tied block holding its
# mean), ILS/diversity (pair sums weighted by the chance both items are in the top k)
# and miscalibration (over the multivariate hypergeometric law of the top k's weights)
_AVERAGED = (*codes.POPULARITY_KINDS, *codes.LIST_KINDS, codes.SERENDIPITY, codes.MISCALIBRATION)
# grades="raw": the kernel's variant of bpref (P0 = 1) and rbp (P1 = 2), after the
# metric's own parameters (none for bpref, p for rbp)
_RAW_GRADES = {codes.BPREF: 1.0, codes.RBP: 2.0}
# gain="binary": rbp's variant of 0/1 gains at the threshold (P1 = 1)
_BINARY_RBP = 1.0
# 2.0**1024 overflows float64
_MAX_EXPONENTIAL_GRADE = 1024


def as_qrels(qrels: Any) -> Qrels:
    if isinstance(qrels, Qrels):
        return qrels
    if isinstance(qrels, Mapping):
        return Qrels.from_dict(qrels)
    if isinstance(qrels, (str, os.PathLike)):
        return Qrels.from_file(qrels)
    if is_frame(qrels):
        return Qrels.from_frame(qrels)
    raise InvalidParameterError(
        f"The 'qrels' parameter of evaluate must be a Qrels, a dict {{user: {{item: grade}}}}, "
        f"a DataFrame or a file path. Got {type(qrels).__name__} instead."
    )


def as_popularity_table(popularity: Any, train: Any) -> Any:
    """The popularity table of ``popularity=`` / ``train=``, built once per evaluation
    (None when neither is given)."""
    if popularity is None and train is None:
        return None
    from .metrics.beyond.popularity_table import as_popularity

    return as_popularity(popularity, train, "evaluate")


def as_run(run: Any) -> Run:
    if isinstance(run, Run):
        return run
    if isinstance(run, Mapping):
        return Run.from_dict(run)
    if isinstance(run, (str, os.PathLike)):
        return Run.from_file(run)
    if is_frame(run):
        return Run.from_frame(run)
    raise InvalidParameterError(
        f"The 'run' parameter of evaluate must be a Run, a dict {{user: {{item: score}}}}, "
        f"a DataFrame or a file path. Got {type(run).__name__} instead."
    )


def _kernel_spec(spec: MetricSpec, conv: Conventions) -> Any:
    """The ranking kernel's spec of one metric (a ``receval._core.RankingSpec``)."""
    kind = spec.info.kind
    if kind is None:  # a spec made by hand: metric strings are checked by ranking_spec
        raise InvalidParameterError(f"{spec.name} is not a ranking metric of evaluate.")
    params = spec.float_params()
    if kind == codes.RBP and conv.gain == "binary":
        params = (*params, _BINARY_RBP)
    elif conv.grades == "raw" and kind in _RAW_GRADES:
        params = (*params, _RAW_GRADES[kind])
    return codes.RankingSpec(
        kind,
        k=spec.k or 0,
        threshold=conv.rel_threshold,
        gain_threshold=(_POSITIVE_GRADES if conv.gain_grades == "positive" else conv.rel_threshold),
        params=params,
        gain="custom" if "gains" in dict(spec.args) else conv.gain,  # the table: in params
        ap_normalizer=conv.ap_normalizer,
        ideal=conv.ideal,
        ties=conv.ties,
        # "error" raises after the kernel, which evaluates those users as "zero"
        missing_users="zero" if conv.missing_users == "error" else conv.missing_users,
        empty_users="zero" if conv.empty_users == "error" else conv.empty_users,
        positive_scores=conv.hit_scores == "positive",
        depth=conv.depth,
        judged_only=conv.judged_only,
        discount=conv.discount,
        precision_normalizer=conv.precision_normalizer,
        recall_normalizer=conv.recall_normalizer,
    )


def metric_conventions(
    metric: str,
    *,
    profile: str | None = None,
    popularity: Any = None,
    item_categories: Any = None,
    **conventions: Any,
) -> tuple[MetricSpec, Conventions]:
    """The parsed metric string and the conventions it is computed with, checked.

    Parameters
    ----------
    metric : str
        A metric string of :func:`evaluate` (``"ndcg@10"``).
    profile : str, default=None
        A peer's profile, as in :func:`evaluate`.
    popularity : PopularityTable, default=None
        Item popularity, which ``arp@k`` and the other popularity metrics need
        (from ``train=``: also the histories of ``serendipity@k``).
    item_categories : mapping or DataFrame, default=None
        Item categories, which ``miscalibration@k`` needs.
    **conventions
        Convention keywords of :func:`evaluate`.

    Returns
    -------
    spec, conventions : MetricSpec, Conventions

    Examples
    --------
    >>> from receval.evaluation import metric_conventions
    >>> spec, conv = metric_conventions("ndcg@10", profile="recommenders")
    >>> str(spec), conv.gain, conv.missing_users
    ('ndcg@10', 'binary', 'zero')
    """
    unknown = set(conventions) - set(FIELDS)
    if unknown:
        check_option(sorted(unknown)[0], "convention", "evaluate", sorted(FIELDS))
    ranking_spec(metric)  # one metric: P.5,10 (two) is an error here
    _, specs, convs, _ = prepare_metrics(
        [metric], None, None, {"profile": profile, **conventions}, popularity, item_categories
    )
    if specs[metric].info.needs == "similarity":
        raise InvalidParameterError(
            f"Metric {metric!r} needs item similarities; compute it with evaluate(..., "
            f"features=...) per batch."
        )
    return specs[metric], convs[metric]


def prepare_metrics(
    metrics: str | Iterable[str],
    features: Any,
    similarity: Any,
    conventions: dict[str, Any],
    popularity: Any = None,
    item_categories: Any = None,
) -> tuple[list[str], dict[str, MetricSpec], dict[str, Conventions], set[str]]:
    """Parse the metric strings and resolve the conventions of each; ``listwise``: the
    metrics computed from the run alone (item similarities or item popularity)."""
    func = "evaluate"
    conventions = dict(conventions)
    profile = conventions.pop("profile")
    resolve_conventions(profile, func, **conventions)  # bad options fail before any metric
    unset = resolve_conventions(profile, func)  # the profile's, no keyword applied
    if isinstance(metrics, str):
        metrics = [metrics]
    if metrics is None or not isinstance(metrics, Iterable):
        raise InvalidParameterError(
            f"The 'metrics' parameter of evaluate must be a metric string or a list of "
            f"metric strings. Got {metrics!r} instead."
        )
    metrics = list(metrics)
    bad = [m for m in metrics if not isinstance(m, str)]
    if bad:
        raise InvalidParameterError(
            f"The 'metrics' parameter of evaluate must hold metric strings. Got "
            f"{bad[0]!r} ({type(bad[0]).__name__}) instead."
        )
    # trec_eval's form with several parameters (P.5,10) stands for one metric each,
    # reported under trec_eval's names (P_5, P_10)
    metrics = [name for text in metrics for name in parse_metrics(text)]
    if not metrics:
        raise InvalidParameterError(
            "The 'metrics' parameter of evaluate must name at least one metric. Got [] instead."
        )
    specs: dict[str, MetricSpec] = {}
    convs: dict[str, Conventions] = {}
    for text in metrics:
        spec = ranking_spec(text)
        base = resolve_conventions(
            profile, func, spec.name, spec.k is not None, spec.params, **conventions
        )
        overrides: dict[str, Any] = dict(spec.params)
        conv = replace(base, **overrides).validated(func)
        if conv.ties == "average" and spec.k is not None and spec.info.kind in _AVERAGED:
            # computed as the expectation over tie orders (list_values reads it here)
            spec = replace(
                spec, params=tuple(sorted({**dict(spec.params), "ties": "average"}.items()))
            )
        if conv.ties == "average" and spec.info.kind == codes.NDCG_REL:
            gains: Any = dict(spec.args).get("gains", ())
            negative = [gain for _, gain in gains if gain < 0]
            if negative:
                raise InvalidParameterError(
                    f"Metric {text!r}: ties='average' (expected value over tie orders) is "
                    f"not available for ndcg_rel with a negative gain (got {negative[0]:g}): "
                    f"no closed form over tie orders for a sum clamped at 0; use "
                    f"ties='trec' or ties='input', or gains of 0 or more."
                )
        specs[text] = spec
        convs[text] = conv
    _check_keywords(metrics, specs, conventions, unset)
    listwise = {t for t, spec in specs.items() if spec.info.needs != "qrels"}
    by_similarity = sorted(t for t in listwise if specs[t].info.needs == "similarity")
    if by_similarity and features is None and similarity is None:
        raise InvalidParameterError(
            f"Metric {by_similarity[0]!r} needs item similarities; pass features= (item "
            f"feature vectors) or similarity= (a matrix or a function) to evaluate."
        )
    by_popularity = sorted(t for t in listwise if specs[t].info.needs == "popularity")
    if by_popularity and popularity is None:
        raise InvalidParameterError(
            f"Metric {by_popularity[0]!r} needs item popularity; pass popularity= (a mapping "
            f"item -> count) or train= (an interaction log of (user, item) pairs) to evaluate."
        )
    _check_history(specs, listwise, popularity, item_categories)
    return metrics, specs, convs, listwise


def _check_keywords(
    metrics: list[str], specs: dict[str, MetricSpec], conventions: dict[str, Any], base: Any
) -> None:
    """A convention keyword of evaluate that differs from the profile's (or the default)
    must be one that some metric of the call uses, with a value each metric that uses it
    takes (a metric string's own setting wins); ``base``: the profile's conventions."""
    from .registry import RANKING
    from .registry.grammar import check_value

    for key, value in conventions.items():
        if value is None or key == "estimator":  # checked with the propensities
            continue
        readers = [t for t in metrics if key in specs[t].info.conventions]
        if not readers and value != getattr(base, key):
            users = [name for name, info in RANKING.items() if key in info.conventions]
            raise InvalidParameterError(
                f"evaluate: the convention {key}={value!r} changes none of the metrics "
                f"{v.format_values(metrics)}; it is used by {v.format_values(users)} "
                f"({len(users)} metrics). Drop it."
            )
        for text in readers:
            if key not in dict(specs[text].params):
                check_value(f"evaluate: metric {text!r}", specs[text].info, key, value)


def _check_history(
    specs: dict[str, MetricSpec], listwise: set[str], popularity: Any, item_categories: Any
) -> None:
    """``serendipity@k`` and ``miscalibration@k`` need the users' histories (``train=``,
    kept by the popularity table), and ``miscalibration@k`` item categories too."""
    by_history = sorted(t for t in listwise if specs[t].info.needs in ("history", "categories"))
    if by_history and getattr(popularity, "train_users", None) is None:
        raise InvalidParameterError(
            f"Metric {by_history[0]!r} needs the users' histories; pass train= (an interaction "
            f"log of (user, item) pairs) to evaluate"
            + (", not popularity=." if popularity is not None else ".")
        )
    by_categories = sorted(t for t in listwise if specs[t].info.needs == "categories")
    if by_categories and item_categories is None:
        raise InvalidParameterError(
            f"Metric {by_categories[0]!r} needs item categories; pass item_categories= (a "
            f"mapping item -> categories, or a DataFrame with item and category columns) to "
            f"evaluate."
        )


def subset_qrels(q: Any, users: np.ndarray) -> Any:
    """The qrels of some users (positions in ``q``), with their items only."""

    lengths = np.diff(q.offsets)[users]
    offsets = np.zeros(len(users) + 1, dtype=q.offsets.dtype)
    np.cumsum(lengths, out=offsets[1:])
    rows = np.repeat(q.offsets[users] - offsets[:-1], lengths) + np.arange(int(offsets[-1]))
    items = q.items[rows]
    kept, codes = np.unique(items, return_inverse=True)  # monotone: item order kept
    sub = Qrels.__new__(Qrels)
    sub.offsets = offsets
    sub.items = codes.astype(q.items.dtype, copy=False)
    sub.grades = q.grades[rows]
    sub.grades_desc = q.grades_desc[rows]
    sub.user_ids = q.user_ids[users]
    sub.item_ids = q.item_ids[kept]
    return sub


def ranked_values(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    propensities: Any = None,
    item_map: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per qrels user and ranked metric: the value and its denominator (the user's
    relevant items); ``user_map`` gives each qrels user's position in the run (-1: absent),
    ``item_map`` each qrels item's (computed here when not given).

    The kernel computes every metric but expected exposure, which
    ``metrics._exposure.exposure_columns`` adds from :func:`receval.expected_exposure`,
    and the propensity-weighted ones (``propensities``: a ``Propensities``), which
    ``metrics._propensity.propensity_columns`` adds.
    """
    values, aux = _metric_values(q, r, specs, convs, ranked, user_map, propensities, item_map)
    # a mean over users only (not a pooled ratio, a sum or a geometric mean)
    skip = [
        j
        for j, t in enumerate(ranked)
        if convs[t].zero_users == "skip" and specs[t].info.mean == "users"
    ]
    if skip:
        _leave_out_users_without_hits(q, r, specs, convs, ranked, user_map, values, skip)
    return values, aux


def _leave_out_users_without_hits(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    values: np.ndarray,
    skip: list[int],
) -> None:
    """``zero_users="skip"`` (Microsoft Recommenders' ``r_precision_at_k``): a user
    without a relevant item in the top k is left out (nan, in place); one with such an
    item keeps its value, which is 0 for R-precision when none is in the top min(R, k)
    (Recommenders counts that user, undefined: see ``user_mean``)."""
    rprec = [ranked[j] for j in skip if specs[ranked[j]].info.kind == codes.R_PRECISION]
    hits: dict[str, np.ndarray] = {}
    if rprec:  # success@k of the same users and conventions: a relevant item in the top k
        probes = {
            t: parse_metric("success" + (f"@{specs[t].k}" if specs[t].k else "")) for t in rprec
        }
        found, _ = kernel_values(q, r, probes, convs, rprec, user_map)
        hits = {t: found[:, i] > 0 for i, t in enumerate(rprec)}
    for j in skip:
        col = values[:, j]
        none = col == 0
        if ranked[j] in hits:
            none &= ~hits[ranked[j]]
        col[none] = np.nan


def _metric_values(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    propensities: Any,
    item_map: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranked_values` before its ``zero_users`` rule."""
    exposure = [t for t in ranked if specs[t].info.kind in codes.EXPOSURE_KINDS]
    weighted = [t for t in ranked if convs[t].estimator != "naive" and t not in exposure]
    if not exposure and not weighted:
        return kernel_values(q, r, specs, convs, ranked, user_map, item_map)
    values = np.empty((q.n_users, len(ranked)), dtype=np.float64)
    aux = np.empty((q.n_users, len(ranked)), dtype=np.float64)
    kernel = [t for t in ranked if t not in exposure and t not in weighted]
    if kernel:
        kv, ka = kernel_values(q, r, specs, convs, kernel, user_map, item_map)
        for j, t in enumerate(kernel):
            values[:, ranked.index(t)], aux[:, ranked.index(t)] = kv[:, j], ka[:, j]
    from .metrics._propensity import propensity_columns
    from .metrics.beyond.exposure import exposure_columns

    columns = exposure_columns(q, r, {t: specs[t] for t in exposure}, convs) if exposure else {}
    if weighted:
        sub = {t: specs[t] for t in weighted}
        columns.update(propensity_columns(q, r, sub, convs, user_map, propensities))
    for t, (col, den) in columns.items():
        values[:, ranked.index(t)], aux[:, ranked.index(t)] = col, den
    return values, aux


def kernel_values(
    q: Qrels,
    r: Run,
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    user_map: np.ndarray,
    item_map: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ranked_values` of the metrics the kernel computes."""
    from ._kernels import compiled, num_threads

    exponential = [t for t in ranked if convs[t].gain == "exponential"]
    if exponential and q.n_rows and float(q.grades.max()) >= _MAX_EXPONENTIAL_GRADE:
        raise InputValidationError(
            f"evaluate: metric {exponential[0]!r} uses gain='exponential' (2**grade - 1), which "
            f"overflows float64 for grades >= {_MAX_EXPONENTIAL_GRADE}. Got a grade of "
            f"{float(q.grades.max()):g}; use gain='linear' or map the grades to a smaller range."
        )
    if item_map is None:
        item_map = lookup(q.item_ids, r.item_ids)
    need_trec = any(c.ties == "trec" for c in convs.values()) and r.has_single_precision_ties
    need_ascending = (
        any(c.ties in ("id_ascending", "id_descending") for c in convs.values()) and r.has_ties
    )
    r_keys = r.trec_keys if need_trec or need_ascending else np.empty(0)
    kernel_specs = [_kernel_spec(specs[t], convs[t]) for t in ranked]
    max_len = max(int(np.diff(r.offsets).max()) if r.n_users else 0, 1)
    depth = max(max_len, int(np.diff(q.offsets).max()))
    disc = 1.0 / np.log2(np.arange(depth, dtype=np.float64) + 2.0)
    n_chunks = 4 * num_threads()
    codes32 = [np.ascontiguousarray(x, dtype=np.int32) for x in (q.items, r.items)]
    maps32 = [np.ascontiguousarray(x, dtype=np.int32) for x in (item_map, user_map)]
    result: tuple[np.ndarray, np.ndarray] = compiled().evaluate_users(
        q.offsets, codes32[0], q.grades, q.grades_desc,
        r.offsets, codes32[1], r.scores, r_keys, maps32[0], maps32[1], kernel_specs,
        max_len, n_chunks, disc,
    )  # fmt: skip
    return result


def build_report(
    q: Qrels,
    metrics: list[str],
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    ranked: list[str],
    values: np.ndarray,
    aux: np.ndarray,
    list_cols: dict[str, np.ndarray],
    *,
    missing: np.ndarray,
    n_run_only: int,
    run_name: str | None,
    items: tuple[int, int] = (0, 0),
    ties: tuple[np.ndarray, dict[str, np.ndarray]] | None = None,
) -> EvaluationReport:
    """Means, per-user values and counts from the per-user arrays (``missing``: the
    qrels users absent from the run, a mask; ``items``: the run's items judged in the
    qrels, and all its items; ``ties``: :func:`tie_averages`)."""
    states: dict[str, MeanState] = {}
    per_user: dict[str, np.ndarray] = {}
    empty: dict[str, int] = {}
    skipped: dict[str, int] = {}
    aux_out: dict[str, np.ndarray] = {}
    raw: dict[str, np.ndarray] = {}
    for text, col in list_cols.items():
        store_list_metric(text, col, states, per_user, empty, skipped)
    # a metric's column contiguous: every pass below reads one column
    values, aux = np.asfortranarray(values), np.asfortranarray(aux)
    for j, text in enumerate(ranked):
        col = values[:, j]
        den = aux[:, j]
        n_empty = int(np.count_nonzero(den == 0))  # den: each user's relevant items
        if convs[text].empty_users == "error" and n_empty:
            raise InputValidationError(
                f"evaluate: metric {text!r} has empty_users='error', and "
                f"{n_empty} users have no relevant item, e.g. "
                f"{v.format_values(q.user_ids[den == 0])}; pass empty_users='skip', 'zero' or "
                f"'one' to leave them out or score them."
            )
        raw[text] = col
        states[text], per_user[text] = user_mean(col, den, specs[text].info.mean, convs[text])
        aux_out[text] = den
        empty[text] = n_empty
        skipped[text] = int(np.count_nonzero(np.isnan(per_user[text])))
    averaged: dict[str, np.ndarray] = {}
    tie_dependent: dict[str, int] = {}
    mean_average: dict[str, float] = {}
    if ties is not None:  # a metric averaged over tie orders depends on none
        tie_dependent.update({t: 0 for t in ranked if convs[t].ties == "average"})
    for text, (n_dependent, average_col) in _tie_columns(raw, ties).items():
        tie_dependent[text] = n_dependent
        if average_col is not None:
            averaged[text] = average_col
            kind = specs[text].info.mean
            mean_average[text] = user_mean(average_col, aux_out[text], kind, convs[text])[0].value
    return EvaluationReport(
        mean={t: states[t].value for t in metrics},
        users=q.user_ids,
        values={t: per_user[t] for t in metrics},
        metrics={t: str(specs[t]) for t in metrics},
        conventions={t: convs[t] for t in metrics},
        n_users=q.n_users,
        n_users_missing=int(np.count_nonzero(missing)),
        n_users_empty=empty,
        n_users_skipped=skipped,
        n_run_only_users=n_run_only,
        run_name=run_name,
        n_run_items=items[1],
        n_run_items_unmatched=items[1] - items[0],
        n_users_tie_dependent={t: tie_dependent[t] for t in metrics if t in tie_dependent},
        mean_ties_average={t: mean_average[t] for t in metrics if t in mean_average},
        _aux=aux_out,
        _averaged=averaged,
        _states={t: states[t] for t in metrics},
        _raw=raw,
        _missing=np.asarray(missing, dtype=bool),
    )


def _tie_columns(
    raw: dict[str, np.ndarray], ties: tuple[np.ndarray, dict[str, np.ndarray]] | None
) -> dict[str, tuple[int, np.ndarray | None]]:
    """Per metric compared with its ``ties="average"`` values: how many users' values
    differ, and (when some do) the metric's column with those values put in."""
    out: dict[str, tuple[int, np.ndarray | None]] = {}
    if ties is None:
        return out
    users, columns = ties
    for text, avg in columns.items():
        col = raw[text]
        moved = ~np.isclose(col[users], avg, rtol=1e-12, atol=1e-12, equal_nan=True)
        n_moved = int(np.count_nonzero(moved))
        if not n_moved:
            out[text] = (0, None)
            continue
        full = col.copy()
        full[users] = avg
        out[text] = (n_moved, full)
    return out


def mean_states(report: EvaluationReport) -> dict[str, MeanState]:
    """Per metric string, the mergeable state of the report's mean: the states of
    reports on disjoint users merge into the state of all of them (Spark)."""
    return dict(report._states)


def list_values(
    r: Run,
    listwise: set[str],
    specs: dict[str, MetricSpec],
    features: Any,
    feature_items: Any,
    similarity: Any,
    popularity: Any = None,
    item_categories: Any = None,
) -> dict[str, np.ndarray]:
    """Per run user, the value of each beyond-accuracy metric (nan: undefined);
    ``popularity`` is a :class:`~receval.metrics.beyond.popularity_table.PopularityTable`."""
    from .metrics.beyond.diversity import expected_ils_per_user, ils_per_user
    from .metrics.beyond.popularity_users import POPULARITY_METRICS, popularity_per_user

    by_k: dict[tuple[int | None, bool], np.ndarray] = {}
    out: dict[str, np.ndarray] = {}
    for text in specs:
        if text not in listwise:
            continue
        spec = specs[text]
        if spec.info.needs == "popularity":
            param = POPULARITY_METRICS[spec.name]
            arg = None if param is None else float(spec.arg(param))
            average = dict(spec.params).get("ties") == "average"
            out[text] = popularity_per_user(r, popularity, spec.name, spec.k, arg, average)
            continue
        if spec.info.needs in ("history", "categories"):
            out[text] = _history_values(
                r, spec, features, feature_items, popularity, item_categories
            )
            continue
        average = dict(spec.params).get("ties") == "average" and spec.k is not None
        if (spec.k, average) not in by_k:
            per_user: Callable[..., np.ndarray] = expected_ils_per_user if average else ils_per_user
            by_k[(spec.k, average)] = per_user(
                r,
                spec.k,
                features=features,
                feature_items=feature_items,
                similarity=similarity,
                func="evaluate",
            )
        ils = by_k[(spec.k, average)]
        out[text] = ils if spec.info.kind == codes.ILS else 1.0 - ils
    return out


def _history_values(
    r: Run,
    spec: MetricSpec,
    features: Any,
    feature_items: Any,
    popularity: Any,
    item_categories: Any,
) -> np.ndarray:
    """Per run user, ``serendipity@k`` (feature cosine with ``features=``, co-occurrence
    in ``train=`` otherwise) or ``miscalibration@k``."""
    from .metrics.beyond.history import log_of_popularity
    from .metrics.beyond.miscalibration import miscalibration_per_user
    from .metrics.beyond.serendipity import serendipity_per_user

    log = log_of_popularity(popularity)
    if spec.info.kind == codes.SERENDIPITY:
        return serendipity_per_user(
            r, log, spec.k, features=features, feature_items=feature_items, func="evaluate",
            average_ties=dict(spec.params).get("ties") == "average",
        )  # fmt: skip
    alpha = float(spec.arg("alpha"))
    return miscalibration_per_user(
        r, log, item_categories, spec.k, alpha, "evaluate",
        average_ties=dict(spec.params).get("ties") == "average",
    )  # fmt: skip


def store_list_metric(
    text: str,
    col: np.ndarray,
    states: dict[str, MeanState],
    per_user: dict[str, np.ndarray],
    empty: dict[str, int],
    skipped: dict[str, int],
) -> None:
    states[text] = mean_state(col)
    per_user[text] = col
    empty[text] = 0  # relevance plays no part
    skipped[text] = int(np.isnan(col).sum())


def evaluate_lists(
    r: Run,
    metrics: list[str],
    specs: dict[str, MetricSpec],
    convs: dict[str, Conventions],
    features: Any,
    feature_items: Any,
    similarity: Any,
    popularity: Any = None,
    item_categories: Any = None,
) -> EvaluationReport:
    """``evaluate(None, run, ...)``: beyond-accuracy metrics over the run's users."""
    states: dict[str, MeanState] = {}
    per_user: dict[str, np.ndarray] = {}
    empty: dict[str, int] = {}
    skipped: dict[str, int] = {}
    of_run = list_values(
        r, set(specs), specs, features, feature_items, similarity, popularity, item_categories
    )
    for text, col in of_run.items():
        store_list_metric(text, col, states, per_user, empty, skipped)
    return EvaluationReport(
        mean={t: states[t].value for t in metrics},
        users=r.user_ids,
        values={t: per_user[t] for t in metrics},
        metrics={t: str(specs[t]) for t in metrics},
        conventions={t: convs[t] for t in metrics},
        n_users=r.n_users,
        n_users_missing=0,
        n_users_empty=empty,
        n_users_skipped=skipped,
        n_run_only_users=0,
        run_name=r.name,
        _states={t: states[t] for t in metrics},
    )
