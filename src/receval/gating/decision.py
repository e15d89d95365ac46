"""The gate's decision: per-user paired differences, one-sided tests, minimum detectable effects.

Every comparison (a rule's metric, a baseline, a candidate) is tested with the
paired tests of :mod:`receval.comparison` on the per-user differences that
:func:`receval.compare` and :func:`receval.compare_predictions` test (DeLong's
variance for the global ``roc_auc``), shifted by the rule's margin, and the
p-values of all comparisons are corrected together.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._parameters import check_keywords, keyword_names, of_the
from ..comparison.intervals import bootstrap_intervals, effect_sizes, ndtr, ndtri
from ..comparison.paired import Table, unequal_columns, unit_order, wins_ties_losses
from ..comparison.significance import adjust_pvalues, paired_pvalue_sides, smallest_pvalue
from ..data._lookup import distinct
from ..exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning
from .config import GateConfig, check_settings
from .report import GateReport, GateRow
from .rules import GateRule, as_rules, rule_metric

__all__ = ["gate"]

_FUNC = "gate"

#: Units of rounding (2**-52) of the magnitudes a value is computed from within which it is
#: its bound: a per-user value is a mean rounded once or a few times, the difference of two
#: and the margin's shift once more, so a gain of exactly the margin lands this close.
_ROUNDING = 8


def _beyond_rounding(gap: Any, scale: Any) -> np.ndarray:
    """``gap`` (a value minus its bound: a per-user gain plus the margin's shift, a value
    minus a threshold) with every entry within :data:`_ROUNDING` units of rounding of
    ``scale`` (the sum of the magnitudes it is computed from) set to exactly 0, as it is
    exactly: rounding leaves +-1e-17 of one sign, which every test reads as an effect."""
    gap = np.asarray(gap, dtype=np.float64)
    tolerance = _ROUNDING * np.finfo(np.float64).eps * np.asarray(scale, dtype=np.float64)
    return np.where(np.abs(gap) <= tolerance, 0.0, gap)


@dataclass
class _Metric:
    """One metric of every model: per-user values (``None`` for DeLong's ``roc_auc``; a
    geometric mean's: their logarithms, which it averages)."""

    higher: bool
    means: dict[str, float]
    values: dict[str, np.ndarray] | None = None
    weights: np.ndarray | None = None
    delong: tuple[np.ndarray, np.ndarray, dict[str, int], int] | None = None
    geometric: bool = False
    # each model's counts of its value (n_users, n_users_skipped, n_rows_skipped), as the
    # metric's own report gives them; empty where it gives none
    counts: dict[str, dict[str, int]] = field(default_factory=dict)


def _named(models: Any, what: str, empty_ok: bool = False) -> dict[str, Any]:
    if isinstance(models, Mapping) and (models or empty_ok):
        return {str(k): m for k, m in models.items()}
    raise InputValidationError(
        f"{_FUNC}: {what} must be a non-empty mapping {{name: run or scores}}. Got "
        f"{type(models).__name__ if not isinstance(models, Mapping) else 'an empty mapping'}."
    )


def _ranking(
    qrels: Any,
    models: dict[str, Any],
    metrics: list[str],
    profile: str | None,
    conventions: dict[str, Any],
    paired: dict[str, str],
) -> tuple[dict[str, _Metric], dict[str, int], dict[str, int]]:
    """Each metric of every run, and each run's qrels users without a list and users
    not in the qrels; ``paired``: as for :func:`_pointwise`."""
    from ..data._ranked import as_qrels
    from ..engine.totals import averaged_values
    from ..ranking.evaluation import evaluate_as
    from ..ranking.report import EvaluationReport
    from ..registry import ranking_spec

    specs = {m: ranking_spec(m, _FUNC) for m in metrics}
    for m, kind in paired.items():
        if specs[m].info.mean == "sum":
            raise InvalidParameterError(
                f"{_FUNC}: {m!r} is a sum over users, not a mean, so the gate's paired "
                f"test of the mean per-user difference does not test it, which a {kind} rule "
                f"needs. Got rule={kind!r} on {m!r}; bound it with a floor or ceiling rule "
                f"(its value against a threshold), or put the {kind} rule on a metric that "
                f"is a mean over users."
            )
    q = as_qrels(qrels, _FUNC)
    reports: dict[str, EvaluationReport] = {
        name: evaluate_as(_FUNC, q, run, metrics, profile=profile, **conventions)
        for name, run in models.items()
    }
    first = next(iter(reports.values()))
    order = unit_order(first.users)  # the users by id: the qrels' order changes nothing
    out = {}
    for m in metrics:
        mean = specs[m].info.mean
        pooled = mean == "pooled"  # weighs each user by its relevant items
        out[m] = _Metric(
            higher=bool(specs[m].info.higher_is_better),
            means={name: float(rep.mean[m]) for name, rep in reports.items()},
            values={  # a geometric mean's: the logarithms it averages, as compare tests them
                name: averaged_values(np.asarray(rep.values[m], dtype=np.float64)[order], mean)
                for name, rep in reports.items()
            },
            weights=np.asarray(first._aux[m], dtype=np.float64)[order] if pooled else None,
            geometric=mean == "geometric",
            counts={
                name: {
                    "n_users": int(rep.n_users_counted[m]),
                    "n_users_skipped": int(rep.n_users_skipped[m]),
                }
                for name, rep in reports.items()
            },
        )
    missing = {name: int(rep.n_users_missing) for name, rep in reports.items()}
    only = {name: int(rep.n_run_only_users) for name, rep in reports.items()}
    return out, missing, only


def _pointwise(
    y_true: Any,
    models: dict[str, Any],
    metrics: list[str],
    groups: Any,
    sample_weight: Any,
    weighting: str,
    roles: dict[str, str],
    paired: dict[str, str],
) -> dict[str, _Metric]:
    """Each metric of every model; ``paired``: the kind of the first comparative rule
    of each metric that has one (a metric of bounds only is not paired)."""
    from .. import _validation as v
    from ..comparison import recomputed as rec
    from ..comparison.impressions import check_impressions, scoring, unit_aucs, user_log_loss
    from ..metrics._delong import delong_covariance
    from ..metrics._gauc import group_auc
    from ..metrics._loss import log_loss
    from ..registry.pointwise import pointwise_adapter

    rows = check_impressions(y_true, models, groups, sample_weight, _FUNC, arguments=roles)
    yt, n, sw = rows.y_true, len(rows.y_true), rows.sample_weight
    out = {}
    for m in metrics:
        spec = rec.pointwise_spec(m, _FUNC)
        key = rec.how_compared(spec)
        higher = spec.info.higher_is_better is True
        unpaired = key == "recomputed" or (key == "roc_auc" and sw is not None)
        if unpaired and m not in paired:  # bounds only: each candidate's value, by its function
            metric = pointwise_adapter(spec)
            if metric.needs_group and groups is None:
                raise InputValidationError(
                    f"{_FUNC}: {m!r} needs groups; pass groups= (e.g. the user id of each row)."
                )
            values = {}
            for name, s in models.items():
                if roles[name] == "candidates":
                    with scoring(m, name):  # its errors name the model
                        values[name] = float(metric.func(yt, s, groups=groups, sample_weight=sw))
            out[m] = _Metric(higher, values)
        elif key == "gauc":
            if groups is None:
                raise InputValidationError(
                    f"{_FUNC}: {m!r} needs groups; pass groups= (e.g. the user id of each row)."
                )
            reps = {}
            options = rule_metric(m, weighting).given  # the string's weighting wins
            for name, s in models.items():
                with scoring(m, name):
                    reps[name] = group_auc(
                        yt, s, groups=groups, sample_weight=sample_weight, **options
                    )
            out[m] = _Metric(
                higher,
                {k: float(r.score) for k, r in reps.items()},
                {k: unit_aucs(r)[0] for k, r in reps.items()},
                unit_aucs(next(iter(reps.values())))[1],
                counts={
                    k: {
                        "n_users": r.n_groups - r.n_groups_skipped,
                        "n_users_skipped": r.n_groups_skipped,
                        "n_rows_skipped": r.n_rows_skipped,
                    }
                    for k, r in reps.items()
                },
            )
        elif key == "log_loss":
            loss, per = {}, {}
            for k, s in models.items():
                with scoring(m, k):
                    loss[k] = float(log_loss(yt, s, sample_weight=sw))
                    per[k] = user_log_loss(rows, s)[0]
            out[m] = _Metric(higher, loss, per, rows.unit_weight)
        elif key == "roc_auc":
            if sw is not None:
                raise InvalidParameterError(
                    f"{_FUNC}: {m!r} is compared by DeLong's test, which takes no sample "
                    f"weights. Got sample_weight with a {paired[m]} rule on {m!r}; leave it "
                    f"None, gate on 'gauc', or bound {m!r} with a floor or ceiling rule, "
                    f"which takes them."
                )
            labels = v.as_float(yt, "y_true", _FUNC)
            found = distinct(labels)
            binary = bool(np.isin(found, (0.0, 1.0)).all())
            if not binary or found.size < 2:
                raise InputValidationError(
                    f"{_FUNC}: {m!r} needs y_true of 0 and 1 with both classes. Got values "
                    f"{v.format_values(found)}.",
                    classes=None if binary else distinct(yt).tolist(),  # as given: 2, not 2.0
                )
            matrix = np.vstack(
                [
                    v.as_float(v.as_1d(s, f"scores of {k!r}", _FUNC), f"scores of {k!r}", _FUNC)
                    for k, s in models.items()
                ]
            )
            aucs, cov, _, _ = delong_covariance(labels, matrix)
            index = {k: i for i, k in enumerate(models)}
            out[m] = _Metric(
                True, {k: float(aucs[i]) for k, i in index.items()}, delong=(aucs, cov, index, n)
            )
        else:
            kind = paired[m]
            raise InvalidParameterError(
                f"{_FUNC}: {m!r} is not a mean over users, so the gate cannot pair it user by "
                f"user, which a {kind} rule does. Got rule={kind!r} on {m!r}; bound it with a "
                f"floor or ceiling rule (its value against a threshold), put the {kind} rule "
                f"on 'gauc', 'log_loss' or 'roc_auc' (DeLong), or use "
                f"receval.compare_predictions for its recomputed test."
            )
    return out


def gate(
    candidates: Mapping[str, Any],
    baselines: Mapping[str, Any],
    rules: Sequence[GateRule | Mapping[str, Any]],
    *,
    qrels: Any = None,
    y_true: Any = None,
    groups: Any = None,
    sample_weight: Any = None,
    alpha: float = 0.05,
    correction: str | None = "holm",
    test: str = "randomization",
    power: float = 0.8,
    inconclusive: str = "fail",
    interval: str = "bca",
    n_permutations: int = 10_000,
    n_resamples: int = 10_000,
    seed: int = 0,
    profile: str | None = None,
    weighting: str = "impressions",
    **conventions: Any,
) -> GateReport:
    """Decide whether candidates may replace baselines: a paired test per metric, rule and pair.

    Each rule's metric is computed per user for every run (ranking runs with
    ``qrels``) or model (CTR scores with ``y_true``); each candidate is compared
    with each baseline on the users both define, with a one-sided paired test
    of the rule's hypothesis; the p-values of all comparisons are corrected
    together; the gate passes when every row passes.

    Parameters
    ----------
    candidates, baselines : mapping of str to run, or of str to array-like
        The models by name: runs (anything :func:`receval.evaluate` takes as a
        run) with ``qrels``, or each model's scores of the rows of ``y_true``;
        ``baselines`` may be empty where every rule is a floor or a ceiling.
    rules : sequence of GateRule or mapping
        The rules (see :class:`receval.gating.rules.GateRule`); a mapping has
        the keys of a rule of the configuration file (``metric``, ``rule``,
        ``margin``, ``relative``, ``threshold``). A configuration read by
        :func:`receval.gating.config.load_config` gives its rules and settings
        as ``gate(candidates, baselines, config.rules, **config.settings())``.
    qrels : Qrels or anything :func:`receval.evaluate` takes, default=None
        Relevance judgments of ranking runs.
    y_true : array-like of shape (n_samples,), default=None
        0/1 labels of CTR models' rows (instead of ``qrels``).
    groups : array-like of shape (n_samples,), default=None
        User of each row: the unit of pairing of ``gauc`` and ``log_loss``.
    sample_weight : array-like of shape (n_samples,), default=None
        Per-row weights.
    alpha : float, default=0.05
        Level of the one-sided tests after correction, in (0, 0.5).
    correction : {"holm", "bonferroni", "bh"} or None, default="holm"
        Correction across every comparison (rules x baselines x candidates).
    test : {"randomization", "student", "wilcoxon"}, default="randomization"
        The paired test (``roc_auc``: DeLong's, whatever ``test``).
    power : float, default=0.8
        Power at which the minimum detectable effect is computed.
    inconclusive : {"fail", "pass"}, default="fail"
        What an inconclusive row counts as in :attr:`GateReport.passed`.
    interval : {"bca", "percentile"}, default="bca"
        Bootstrap interval of each difference, at confidence ``1 - 2 alpha``
        (its lower bound is the one-sided ``1 - alpha`` bound).
    n_permutations, n_resamples : int, default=10_000
        Sizes of the randomization test and the bootstrap.
    seed : int, default=0
        Seed of both.
    profile : str, default=None
        Conventions profile of the ranking metrics.
    weighting : {"impressions", "clicks", "uniform"}, default="impressions"
        Weighting of ``gauc``'s users in the rules whose metric string sets none: a
        rule on ``gauc(weighting=impressions)`` keeps its own (a parameter written in
        the string wins, at its default too).
    **conventions
        Convention keywords of :func:`receval.evaluate` (``missing_users``, ...).

    Returns
    -------
    report : GateReport
        ``passed``, one row per comparison and bound, and the outputs.

    Raises
    ------
    InvalidParameterError
        A bad rule or setting; a non-inferiority or superiority rule on a
        metric that is not a mean over users: a CTR metric such as ``pcoc`` or a
        ranking metric summed over users (``num_rel_ret``; a floor or ceiling
        bounds it); on a geometric mean (``gm_map``), a margin above 0 in the
        metric's units, or a relative non-inferiority margin of 1 or more.
    InputValidationError
        Both or neither of ``qrels`` and ``y_true``; empty or overlapping names;
        bad data.

    Notes
    -----
    With :math:`g_u` the candidate's per-user gain over the baseline in the
    metric's good direction and :math:`\\bar g` its (weighted) mean:

    - ``non_inferiority`` (margin :math:`\\delta`, times the baseline's value
      when relative) fails on a significant regression beyond the margin: the
      one-sided test of :math:`H_0: \\bar g \\ge -\\delta` against
      :math:`\\bar g < -\\delta` rejects at ``alpha`` after correction. When
      it does not, the row passes if the other side of the same test shows
      :math:`\\bar g > -\\delta` at level :math:`\\alpha'`, or if the sample
      could have detected a regression of :math:`\\delta`: the minimum
      detectable effect
      :math:`(z_{1-\\alpha'} + z_{\\text{power}})\\,\\mathrm{SE}(\\bar g)`
      (:math:`\\alpha' = \\alpha / m` over :math:`m` comparisons under a
      correction, else :math:`\\alpha`; infinite when the test's smallest
      one-sided p-value is not below :math:`\\alpha'`) is at most
      :math:`\\delta`. Otherwise the row is ``inconclusive``: a sample too
      small to see the margin never passes silently;
    - ``superiority`` (margin :math:`m \\ge 0`) passes on a significant gain:
      the one-sided test of :math:`H_0: \\bar g \\le m` rejects;
    - ``floor`` / ``ceiling`` compare the candidate's value with the threshold:
      its mean over users, or, for a CTR metric that is no mean over users
      (``pcoc``, ``ece``, ``copc``, ...), the metric's function on its rows.

    A gain of exactly the margin, or a value of exactly the threshold, is taken
    as exactly it: a shifted difference :math:`g_u + \\delta` (or
    :math:`g_u - m`), or a value minus its threshold, within 8 units of
    rounding (:math:`8 \\cdot 2^{-52}`) of the sum of the magnitudes it is
    computed from (the two models' values and the shift; the value and the
    threshold) is 0. Rounding would otherwise leave about 1e-17 of one sign in
    every user, which each test reads as a consistent effect: a regression of
    exactly the margin, inside the non-inferiority hypothesis, would fail; a
    gain of exactly :math:`m`, not above it, would pass a superiority rule; a
    mean of exactly 0.2 computed as 0.19999999999999998 would miss a floor of
    0.2. A user at the margin is no evidence either way (all of them: each
    test's null center, below), and the row's reason counts them. A failed
    bound's reason prints the value and the threshold with every digit.

    A relative margin is the margin times the baseline's absolute value; where
    that value is 0 or nan, a positive relative margin has no size, and its row
    fails, saying so, untested (not tested against a margin of 0).

    A geometric mean over users (``gm_map``, ``gm_bpref``) is tested, as
    :func:`receval.compare` tests it, by the logarithms it averages (values
    floored at :data:`receval.registry.trec_eval.GEOMETRIC_FLOOR`, as trec_eval
    floors them): :math:`g_u` is the user's log ratio, whose mean is exactly
    :math:`\\log(\\mathrm{GM}_c / \\mathrm{GM}_b)`, and a relative margin maps
    exactly onto it: non-inferiority with margin :math:`d \\in [0, 1)`,
    :math:`\\mathrm{GM}_c \\ge (1 - d)\\,\\mathrm{GM}_b`, is
    :math:`\\bar g \\ge \\log(1 - d)` (:math:`\\delta = -\\log(1 - d)`), and
    superiority with margin :math:`m`,
    :math:`\\mathrm{GM}_c > (1 + m)\\,\\mathrm{GM}_b`, is
    :math:`\\bar g > \\log(1 + m)`. A margin in the metric's units has no such
    form and is refused (a margin of 0 is 0 either way). The row's
    ``difference``, interval, effect size, ``margin`` and ``mde`` are then of
    the logarithms, its values the geometric means, and the report's notes
    say so.

    The one-sided p-value is that of the test's own one-sided test
    (:func:`receval.paired_pvalues` with ``alternative="less"`` or
    ``"greater"``) on the shifted differences :math:`g_u + \\delta` (or
    :math:`g_u - m`). The randomization test counts the sign vectors whose
    signed sum reaches the observed one on the alternative's side,
    :math:`(1 + \\#\\{b : S_b \\ge S\\}) / (B + 1)` (or :math:`\\le`), from
    the same ``n_permutations`` sign vectors for both sides, so it is never
    below :math:`1 / (B + 1)`; the t-test is SciPy's ``ttest_1samp``; the
    Wilcoxon test SciPy's one-sided signed-rank test, whose direction is the
    signed-rank statistic's, not the mean's: a few large gains against many
    small losses lean negative. Where the statistic sits at its null center
    each test keeps its own definition: identical models with a margin of 0
    (every shifted difference 0) give 1.0 for the randomization and Wilcoxon
    tests (every sign vector, every signed-rank sum reaches the observed one,
    as SciPy's ``wilcoxon`` gives) and 0.5 for the t-test (t read as 0,
    SciPy's one-sided p-value at t = 0), on both sides; so do models whose
    every user differs by exactly the margin. The other side's p-value of a
    non-inferiority row and its level :math:`\\alpha'` are its
    ``p_non_inferiority`` and ``level_non_inferiority``.

    Examples
    --------
    >>> import numpy as np
    >>> from receval import gate
    >>> rng = np.random.default_rng(0)
    >>> users = np.repeat(np.arange(300), 10)
    >>> clicks = rng.random(users.size) < 0.3
    >>> noise = rng.standard_normal(users.size)
    >>> base = np.clip(0.3 + 0.3 * (clicks - 0.3) + 0.1 * noise, 0.01, 0.99)
    >>> report = gate({"new": base}, {"main": base}, [
    ...     {"metric": "gauc", "rule": "non_inferiority", "margin": 0.01}],
    ...     y_true=clicks, groups=users, n_permutations=2000, n_resamples=2000)
    >>> report.passed, report.rows[0].verdict
    (True, 'pass')
    """
    settings = check_settings(
        {"alpha": alpha, "correction": correction, "test": test, "power": power,
         "inconclusive": inconclusive, "interval": interval,
         "n_permutations": n_permutations, "n_resamples": n_resamples, "seed": seed,
         "profile": profile, "weighting": weighting}, None)  # fmt: skip
    checked = as_rules(rules, weighting=settings["weighting"])
    if not checked:
        raise InvalidParameterError(
            f"{_FUNC}: rules must hold at least one rule. Got none; pass e.g. "
            f"[{{'metric': 'ndcg@10', 'rule': 'non_inferiority', 'margin': 0.01}}]."
        )
    from ..ranking.evaluation import evaluate

    check_keywords(conventions, keyword_names(gate) + keyword_names(evaluate), _FUNC)
    config = GateConfig(rules=checked, **settings)
    bounds_only = not any(r.comparative for r in config.rules)  # no baseline needed
    cands, bases = _named(candidates, "candidates"), _named(baselines, "baselines", bounds_only)
    both = sorted(set(cands) & set(bases))
    if both:
        raise InputValidationError(
            f"{_FUNC}: a model cannot be both a candidate and a baseline. Got {both[0]!r} in "
            f"both; give the two distinct names."
        )
    if (qrels is None) == (y_true is None):
        raise InputValidationError(
            f"{_FUNC}: pass either qrels (ranking runs) or y_true (CTR models' scores). Got "
            f"{'both' if qrels is not None else 'neither'}."
        )
    metrics = list(dict.fromkeys(r.metric for r in config.rules))
    paired: dict[str, str] = {}  # the kind of each metric's first comparative rule
    for r in config.rules:
        if r.comparative:
            paired.setdefault(r.metric, r.kind)
    models = cands | bases
    missing: dict[str, int] = {}
    only: dict[str, int] = {}
    if qrels is not None:
        table, missing, only = _ranking(qrels, models, metrics, config.profile, conventions, paired)
    else:
        if conventions:
            raise InvalidParameterError(
                f"{_FUNC}: convention keywords apply to ranking runs (qrels). Got "
                f"{sorted(conventions)} with y_true; remove them."
            )
        from ..comparison.impressions import binary_labels

        roles = {name: "candidates" if name in cands else "baselines" for name in models}
        with binary_labels(_FUNC):  # 0/1 labels: no pos_label to pass
            table = _pointwise(y_true, models, metrics, groups, sample_weight,
                               config.weighting, roles, paired)  # fmt: skip
    return _decide(config, cands, bases, table, missing, only)


def _decide(
    config: GateConfig,
    cands: dict[str, Any],
    bases: dict[str, Any],
    table: dict[str, _Metric],
    missing: dict[str, int],
    only: dict[str, int],
) -> GateReport:
    comps = [(r, b, c) for r in config.rules if r.comparative for b in bases for c in cands]
    k = len(comps)
    level = config.alpha / k if config.correction is not None and k else config.alpha
    z_power = ndtri(config.power) + ndtri(1.0 - level)
    paired = [j for j, (r, _, _) in enumerate(comps) if table[r.metric].values is not None]
    p_one = np.full(k, np.nan)
    p_other = np.full(k, np.nan)  # the opposite one-sided p-value: non-inferiority shown
    info: list[dict[str, Any]] = [{} for _ in comps]
    for j, (r, b, c) in enumerate(comps):
        t = table[r.metric]
        sign = 1.0 if t.higher else -1.0
        if t.geometric:
            # a test of the logarithms: GM_c >= (1 - d) GM_b is a mean gain >= log(1 - d),
            # GM_c > (1 + m) GM_b one > log1p(m), exactly (as_rule refused other margins)
            step = r.margin if r.kind == "superiority" else -r.margin
            undefined, margin = False, abs(math.log1p(sign * step))
        else:
            # a share of a baseline's value of 0 (or nan) is no margin: the row is refused,
            # not tested against a margin of 0
            base = abs(t.means[b])
            undefined = r.relative and r.margin > 0 and not base > 0
            margin = (
                math.nan if undefined else r.margin * base if r.relative and r.margin else r.margin
            )
        shift = 0.0 if undefined else margin if r.kind == "non_inferiority" else -margin
        info[j] = {"margin": margin, "shift": shift, "sign": sign, "undefined": undefined,
                   "at_margin": 0}  # fmt: skip
        if t.delong is not None:
            aucs, cov, index, n = t.delong
            ia, ib = index[c], index[b]
            diff = float(aucs[ia] - aucs[ib])
            se = math.sqrt(max(float(cov[ia, ia] + cov[ib, ib] - 2.0 * cov[ia, ib]), 0.0))
            gap = sign * diff + shift
            size = abs(float(aucs[ia])) + abs(float(aucs[ib])) + abs(shift)
            x = float(_beyond_rounding(gap, size))
            info[j]["at_margin"] = int(x == 0 and gap != 0)
            if se != se:  # fewer than 2 positives or negatives: no variance, no test
                below = above = math.nan
            elif se > 0:
                below, above = ndtr(x / se), ndtr(-x / se)
            else:
                below, above = float(x >= 0), float(x <= 0)
            half = ndtri(1.0 - config.alpha) * se
            lower = r.kind == "non_inferiority"
            p_one[j], p_other[j] = (below, above) if lower else (above, below)
            info[j] |= {
                "difference": diff,
                "ci": (diff - half, diff + half),
                "effect": math.nan,
                "n": n,
                "skipped": 0,
                "wtl": None,
                "mde": z_power * se,
            }
    if paired:
        n = len(next(iter(table[comps[paired[0]][0].metric].values.values())))  # type: ignore[union-attr]
        d = np.full((n, len(paired)), np.nan)
        scale = np.zeros((n, len(paired)))  # the magnitudes each difference is computed from
        w = np.ones((n, len(paired)))
        for col, j in enumerate(paired):
            r, b, c = comps[j]
            t = table[r.metric]
            vals = t.values
            assert vals is not None  # the paired columns have per-user values
            d[:, col] = vals[c] - vals[b]
            scale[:, col] = np.abs(vals[c]) + np.abs(vals[b])
            if t.weights is not None:  # users of weight 0 out first: {0, c} is one weight
                w[:, col] = t.weights
                d[t.weights == 0, col] = np.nan
        weighted = bool(unequal_columns(d, w).any())
        if weighted and config.test != "randomization":
            raise InvalidParameterError(
                f"{_FUNC}: test={config.test!r} weighs every user equally, but a metric of the "
                f"rules weighs users unequally (its mean is a weighted mean over users); use "
                f"test='randomization', which takes the weights."
            )
        shifts = np.array([info[j]["shift"] for j in paired])
        signs = np.array([info[j]["sign"] for j in paired])
        gain = d * signs
        raw = gain + shifts
        shifted = _beyond_rounding(raw, scale + np.abs(shifts))  # a gain of exactly the margin: 0
        used = ~np.isnan(d)
        for col, j in enumerate(paired):  # no value in one model or both, or weight 0
            info[j]["skipped"] = int(n - used[:, col].sum())
            info[j]["at_margin"] = int(((shifted[:, col] == 0) & (raw[:, col] != 0)).sum())
        wts = np.where(used, w, 0.0)
        paired_table = Table(d, wts if weighted else None)
        mean_d = paired_table.in_units(paired_table.mean)
        se_d = paired_table.in_units(paired_table.standard_error())
        n_used = paired_table.n_used
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            p_low, p_high = (
                np.atleast_1d(p)
                for p in paired_pvalue_sides(
                    shifted,
                    wts if weighted else None,
                    test=config.test,
                    sides=("less", "greater"),  # one draw of sign vectors for both
                    n_permutations=config.n_permutations,
                    seed=config.seed,
                )
            )
            effect = np.atleast_1d(effect_sizes(d, wts if weighted else None))
            low, high = bootstrap_intervals(
                d,
                wts if weighted else None,
                method=config.interval,
                confidence=1.0 - 2.0 * config.alpha,
                n_resamples=config.n_resamples,
                seed=config.seed,
            )
        low, high = np.atleast_1d(low), np.atleast_1d(high)
        for col, j in enumerate(paired):
            r = comps[j][0]
            lower = r.kind == "non_inferiority"
            sides = (p_low[col], p_high[col])
            p_one[j], p_other[j] = sides if lower else sides[::-1]
            g = gain[used[:, col], col]
            nu = int(n_used[col])
            floor_p = smallest_pvalue(nu, test=config.test, alternative="less",
                                      n_permutations=config.n_permutations)  # fmt: skip
            mde = z_power * float(se_d[col]) if nu >= 2 and floor_p < level else math.inf
            info[j] |= {
                "difference": float(mean_d[col]),
                "ci": (float(low[col]), float(high[col])),
                "effect": float(effect[col]),
                "n": nu,
                "mde": mde,
                "wtl": wins_ties_losses(g),
            }
    refused = [j for j in range(k) if info[j]["undefined"]]
    p_one[refused] = p_other[refused] = np.nan  # no margin, no test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        p_adj = adjust_pvalues(p_one, method=config.correction) if k else p_one
    out: list[GateRow] = []
    for j, (r, b, c) in enumerate(comps):
        t, i = table[r.metric], info[j]
        significant = bool(p_adj[j] < config.alpha)
        if i["undefined"]:
            verdict = "fail"
            why = (
                f"relative margin undefined: {b}'s value is {t.means[b]:.4g}, so "
                f"{100 * r.margin:.4g}% of it is no margin to test against; give the margin "
                f"in the metric's units (relative = false)"
            )
        elif r.kind == "superiority":
            verdict = "pass" if significant else "fail"
            why = (
                "significant gain"
                if significant
                else f"no significant gain over {b} (minimum detectable effect {i['mde']:.4g})"
            )
        elif significant:
            verdict, why = "fail", f"significant regression beyond the margin {i['margin']:.4g}"
        elif p_other[j] < level:  # the margin in the metric's units: a loss may rise by it
            bound = (
                f"above the margin {-i['margin']:+.4g}"
                if t.higher
                else f"below the margin {i['margin']:+.4g}"
            )
            verdict, why = "pass", f"significantly {bound}"
        elif i["n"] == 0:
            verdict = "inconclusive"
            why = (
                f"no user has a value for both {c} and {b} (see n_users_skipped), so there is "
                f"nothing to test"
            )
        elif not i["mde"] <= i["margin"]:
            verdict = "inconclusive"
            why = (
                f"sample too small: the minimum detectable effect {i['mde']:.4g} exceeds the "
                f"margin {i['margin']:.4g}, so a regression of the margin could go unseen"
            )
        else:
            verdict = "pass"
            why = (
                f"no significant regression beyond the margin, which the sample detects "
                f"(minimum detectable effect {i['mde']:.4g})"
            )
        if i["at_margin"]:  # said, as it decides: these users are no evidence either way
            who = (
                "the difference is"
                if t.delong is not None
                else f"{of_the(i['at_margin'], i['n'], 'user', then='has')} a difference of"
            )
            why += (
                f"; {who} exactly the margin, to rounding: read as exactly it, no evidence "
                f"either way"
            )
        wtl = i["wtl"]
        out.append(
            GateRow(
                metric=r.metric,
                rule=r.describe(),
                kind=r.kind,
                candidate=c,
                baseline=b,
                candidate_value=t.means[c],
                baseline_value=t.means[b],
                difference=i["difference"],
                ci_low=i["ci"][0],
                ci_high=i["ci"][1],
                effect_size=i["effect"],
                wins=None if wtl is None else wtl[0],
                ties=None if wtl is None else wtl[1],
                losses=None if wtl is None else wtl[2],
                n_users=i["n"],
                n_users_skipped=i["skipped"],
                p_value=float(p_one[j]),
                p_adjusted=float(p_adj[j]),
                p_non_inferiority=float(p_other[j]) if r.kind == "non_inferiority" else math.nan,
                level_non_inferiority=level if r.kind == "non_inferiority" else math.nan,
                margin=i["margin"],
                mde=i["mde"],
                verdict=verdict,
                reason=why,
                geometric=t.geometric,
            )
        )
    for r in config.rules:
        if r.comparative:
            continue
        assert r.threshold is not None  # a bound's threshold is checked by as_rule
        for c in cands:
            value = table[r.metric].means[c]
            # a value of exactly the threshold meets it, whatever its rounding
            gap = float(_beyond_rounding(value - r.threshold, abs(value) + abs(r.threshold)))
            ok = gap >= 0 if r.kind == "floor" else gap <= 0
            reason = (
                f"value {value:.4g} within the {r.kind} {r.threshold:g}"
                if ok
                else f"value {value!r} outside the {r.kind} {r.threshold!r}"  # every digit
                if value == value
                else f"value undefined (nan) for these rows, so not within the {r.kind} "
                f"{r.threshold:g}"
            )
            out.append(
                GateRow(
                    metric=r.metric,
                    rule=r.describe(),
                    kind=r.kind,
                    candidate=c,
                    baseline=None,
                    candidate_value=value,
                    verdict="pass" if ok else "fail",
                    reason=reason,
                    geometric=table[r.metric].geometric,
                    **table[r.metric].counts.get(c, {}),
                )
            )
    return GateReport(rows=out, config=config, runs_missing_users=missing, run_only_users=only)
