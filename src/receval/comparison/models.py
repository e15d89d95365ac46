"""Significance tests and confidence intervals between models.

:func:`compare` puts ranking runs side by side (every metric string that
:func:`receval.evaluate` takes), :func:`compare_predictions` does the same for
CTR models scored on one impression log (per-user AUC as in GAUC, log loss).
Both pair the models user by user: each metric is a (weighted) mean over
users, so the difference between two models is the weighted mean of their
per-user differences, and every test and interval is computed on those.

The statistics themselves are public too: :func:`paired_pvalues`,
:func:`bootstrap_intervals`, :func:`adjust_pvalues` and :func:`effect_sizes`
take a matrix of paired differences (users x comparisons).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .. import _validation as v
from .._parameters import check_keywords, check_seed, keyword_names, metric_strings
from ..engine.totals import averaged_values
from ..exceptions import InputValidationError, InvalidParameterError, UndefinedMetricWarning, warn
from ..report.tables import format_p_value, latex_escape, markdown_escape
from .choices import check_count
from .intervals import INTERVALS as INTERVALS
from .intervals import bootstrap_intervals, effect_sizes
from .paired import (
    Table,
    column_wins_ties_losses,
    signed_rank_direction,
    unequal_columns,
    unit_order,
)
from .significance import CORRECTIONS as CORRECTIONS
from .significance import (
    TESTS,
    adjust_pvalues,
    paired_pvalues,
    randomization_test,
    smallest_pvalue,
    student_pvalues,
    wilcoxon_pvalues,
)
from .table import comparison_columns, model_pairs

__all__ = [
    "TESTS",
    "ComparisonReport",
    "adjust_pvalues",
    "bootstrap_intervals",
    "compare",
    "compare_predictions",
    "effect_sizes",
    "paired_pvalues",
    "smallest_pvalue",
]


_SUPERSCRIPT = dict(zip("abcdefghijklmnoprstuvwxyz", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ", strict=True))
_LETTERS = "abcdefghijklmnoprstuvwxyz"  # no q: it has no superscript form


@dataclass(frozen=True)
class ComparisonReport:
    """The result of :func:`compare` and :func:`compare_predictions`.

    Attributes
    ----------
    models : list of str
        Model names, in the order given; model ``i`` has letter ``"abc..."[i]``
        in the tables.
    metrics : list of str
        Metric strings as given (trec_eval's ``P.5,10`` and ``P``: each of their values).
    means : dict of str to dict of str to float
        ``means[metric][model]``: the model's value of the metric, exactly as
        :func:`receval.evaluate` (or the pointwise function) computes it.
    higher_is_better : dict of str to bool or None
        Direction of each metric (None: none, as the registry says of ``pcoc``).
    baseline : str or None
        The model every other is compared with; None: every pair.
    pairs : {"all"} or None
        ``"all"``: every pair, the p-values corrected as one family across
        every pair and metric; None: corrected within each metric.
    comparisons : dict of str to ndarray
        One entry per (metric, pair of models), as columns: ``metric``,
        ``model``, ``versus``, ``difference`` (paired mean of model minus
        versus over the users both define), ``effect_size`` (Cohen's d_z),
        ``ci_low``/``ci_high`` (bootstrap interval of the difference),
        ``p_value``, ``p_adjusted`` (corrected within each metric, or across
        every pair and metric with ``pairs="all"``), ``significant``
        (``p_adjusted < alpha``), ``better`` (significant and in the metric's
        good direction by the test's statistic: the mean difference's sign,
        or, for the Wilcoxon test, the signed ranks' side, which a few large
        gains against many small losses can set against the mean), ``worse``,
        ``wins``/``ties``/``losses`` (the users
        where model's value is better than, equal to or worse than versus's, in
        the metric's direction; they sum to ``n_users``; -1 without per-user
        values: DeLong's and recomputed rows of :func:`compare_predictions`),
        ``n_users`` (users in the test), ``n_users_skipped`` (left out: no value
        for a model, as a one-class user of ``gauc``, or weight 0) and
        ``p_min``, the smallest p-value the test can give with that many users
        (:func:`receval.smallest_pvalue`; 0 for DeLong's test): where it is not
        below ``alpha``, no difference could have been significant.
    test, interval, correction : str
        The test, the interval method and the correction used.
    alpha, confidence : float
        Significance level and interval coverage.
    n_permutations, n_resamples, seed : int
        Settings of the randomization test and of the bootstrap.
    """

    models: list[str]
    metrics: list[str]
    means: dict[str, dict[str, float]]
    higher_is_better: dict[str, bool | None]
    baseline: str | None
    comparisons: dict[str, np.ndarray]
    test: str
    interval: str | None
    correction: str | None
    alpha: float
    confidence: float
    n_permutations: int
    n_resamples: int
    seed: int
    n_users: int = 0
    pairs: str | None = None
    _details: dict[str, Any] = field(default_factory=dict, repr=False)

    # -------------------------------------------------------------- tables
    def to_frame(self, backend: str | None = None) -> Any:
        """Every comparison as a pandas (default) or polars DataFrame, one row per
        (metric, model, versus), with both means beside the statistics."""
        from ..data.frames import make_frame

        c = self.comparisons
        columns = {
            "metric": c["metric"],
            "model": c["model"],
            "versus": c["versus"],
            "mean": np.array(
                [self.means[m][a] for m, a in zip(c["metric"], c["model"], strict=True)]
            ),
            "versus_mean": np.array(
                [self.means[m][b] for m, b in zip(c["metric"], c["versus"], strict=True)]
            ),
        }
        columns.update({k: c[k] for k in _STAT_COLUMNS})
        return make_frame(columns, backend=backend)

    def records(self) -> list[dict[str, Any]]:
        """:meth:`to_frame`'s rows as dicts of plain Python values (JSON-ready); the
        counts of users a metric without per-user values has none of (-1 in the
        frame's integer columns) are None."""
        out = []
        c = self.comparisons
        for i in range(len(c["metric"])):
            m, a, b = str(c["metric"][i]), str(c["model"][i]), str(c["versus"][i])
            row: dict[str, Any] = {"metric": m, "model": a, "versus": b}
            row["mean"], row["versus_mean"] = self.means[m][a], self.means[m][b]
            for k in _STAT_COLUMNS:
                row[k] = c[k][i].item()
            for k in ("wins", "ties", "losses"):
                row[k] = None if row[k] < 0 else row[k]
            out.append(row)
        return out

    def letters(self) -> dict[str, str]:
        """The letter of each model in the tables."""
        return {m: _LETTERS[i] for i, m in enumerate(self.models)}

    def wins(self, metric: str, model: str) -> str:
        """Letters of the models that ``model`` beats significantly on ``metric``."""
        c = self.comparisons
        letters = self.letters()
        beaten = set()
        for i in range(len(c["metric"])):
            if c["metric"][i] != metric:
                continue
            if c["model"][i] == model and c["better"][i]:
                beaten.add(str(c["versus"][i]))
            elif c["versus"][i] == model and c["worse"][i]:
                beaten.add(str(c["model"][i]))
        return "".join(letters[m] for m in self.models if m in beaten)

    def summary_rows(self, digits: int = 4, style: str = "text") -> list[list[str]]:
        """Rows ``[letter, model, cell per metric]``: each mean with the letters of
        the models it beats significantly (``style``: "text" for Unicode
        superscripts; "markdown" for ``<sup>``, "latex" for ``$^{}$``, each cell ready
        for its table: the model's name escaped)."""
        name = {"markdown": markdown_escape, "latex": latex_escape}.get(style, str)
        rows = []
        for model in self.models:
            cells = []
            for metric in self.metrics:
                text = f"{self.means[metric][model]:.{digits}f}"
                wins = self.wins(metric, model)
                if wins and style == "markdown":
                    text += f"<sup>{wins}</sup>"
                elif wins and style == "latex":
                    text += f"$^{{{wins}}}$"
                elif wins:
                    text += "".join(_SUPERSCRIPT[ch] for ch in wins)
                cells.append(text)
            rows.append([self.letters()[model], name(model), *cells])
        return rows

    def legend(self, detail: bool = False) -> str:
        """One sentence saying what the letters mean and how they were tested
        (``detail=True``: what the columns of :meth:`detail_rows` mean)."""
        what = {
            "randomization": "Fisher's randomization test "
            f"({v.counted(self.n_permutations, 'permutation')}, "
            f"seed {self.seed})",
            "student": "paired Student t-test",
            "wilcoxon": "Wilcoxon signed-rank test",
        }[self.test]
        fix = {"holm": "Holm-Bonferroni", "bonferroni": "Bonferroni",
               "bh": "Benjamini-Hochberg", None: "no"}[self.correction]  # fmt: skip
        pairs = f"against {self.baseline}" if self.baseline is not None else "for every pair"
        within = "across every pair and metric" if self.pairs == "all" else "within each metric"
        delong = self._details.get("delong")
        also = f"; {', '.join(delong)}: DeLong's paired test" if delong else ""
        again = self._details.get("recomputed")
        also += f"; {', '.join(again)}: recomputed on swapped scores" if again else ""
        if delong and len(delong) == len(self.metrics):
            what, also = "DeLong's paired test", ""
        if not detail:
            return (
                f"A letter marks a model that this one beats significantly: {what}{also} "
                f"{pairs}, p < {self.alpha:g} after {fix} correction {within}."
            )
        ci = (f"{self.interval} bootstrap interval ({v.counted(self.n_resamples, 'resample')})"
              if self.interval else "not computed") + (", DeLong's" if delong else "")  # fmt: skip
        return (
            f"difference: model's mean minus versus's, paired over the users both define "
            f"(a geometric mean's: of the users' logarithms); "
            f"effect size: Cohen's d_z (mean difference / standard deviation of the per-user "
            f"differences); {self.confidence:.0%} CI: {ci} of the difference; p-value: "
            f"two-sided {what}{also}; adjusted p: after {fix} correction {within}, "
            f"* where below {self.alpha:g}; win/tie/loss: users where the model's value is "
            f"better, equal, worse."
        )  # fmt: skip

    def to_markdown(self, digits: int = 4, detail: bool = False) -> str:
        """A GitHub Markdown table: the means with significance letters and a legend
        (``detail=True``: every comparison with its statistics instead)."""
        if detail:
            header, rows = self.detail_rows(digits)
            rows = [[markdown_escape(c) for c in row] for row in rows]
        else:
            header, rows = ["", "model", *self.metrics], self.summary_rows(digits, "markdown")
        lines = ["| " + " | ".join(markdown_escape(h) for h in header) + " |",
                 "|" + "|".join("---" if j < (3 if detail else 2) else "---:"
                                for j in range(len(header))) + "|"]  # fmt: skip
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join([*lines, "", markdown_escape(self.legend(detail))]) + "\n"

    def to_latex(self, digits: int = 4, detail: bool = False) -> str:
        """A LaTeX ``tabular`` (booktabs rules) of :meth:`to_markdown`'s table."""
        if detail:
            header, rows = self.detail_rows(digits)
            rows, n_text = [[latex_escape(c) for c in row] for row in rows], 3
        else:
            header = ["", "Model", *self.metrics]
            rows, n_text = self.summary_rows(digits, style="latex"), 2
        spec = "l" * n_text + "r" * (len(header) - n_text)
        lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule",
                 " & ".join(latex_escape(h) for h in header) + " \\\\", "\\midrule"]  # fmt: skip
        lines += [" & ".join(row) + " \\\\" for row in rows]
        legend = " ".join(self.legend(detail).splitlines())  # a line break ends a comment
        lines += ["\\bottomrule", "\\end{tabular}", f"% {legend}"]
        return "\n".join(lines) + "\n"

    def detail_rows(self, digits: int = 4) -> tuple[list[str], list[list[str]]]:
        """Every comparison as a row of text cells, with the header.

        Parameters
        ----------
        digits : int, default=4
            Decimals of the difference and the interval.

        Returns
        -------
        header : list of str
            metric, model, versus, difference, effect size, interval, p-value, adjusted p,
            win/tie/loss.
        rows : list of list of str
            One row per comparison; the adjusted p-value ends with ``*`` where significant;
            win/tie/loss is ``-`` for a metric with no per-user value.
        """
        header = ["metric", "model", "versus", "difference", "effect size",
                  f"{self.confidence:.0%} CI", "p-value", "adjusted p", "win/tie/loss"]  # fmt: skip
        rows = []
        for r in self.records():
            ci = f"[{r['ci_low']:.{digits}f}, {r['ci_high']:.{digits}f}]"
            mark = "*" if r["significant"] else ""
            counts = "-" if r["wins"] is None else f"{r['wins']}/{r['ties']}/{r['losses']}"
            difference = r["difference"]  # nan without a sign (no user with both values)
            sign = "" if math.isnan(difference) else "+"
            rows.append([r["metric"], r["model"], r["versus"], f"{difference:{sign}.{digits}f}",
                         f"{r['effect_size']:.3f}", ci, format_p_value(r["p_value"]),
                         f"{format_p_value(r['p_adjusted'])}{mark}", counts])  # fmt: skip
        return header, rows

    def __str__(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        return (
            f"ComparisonReport({v.counted(len(self.models), 'model')}, "
            f"{v.counted(len(self.metrics), 'metric')}, "
            f"{v.counted(len(self.comparisons['metric']), 'comparison')}, test={self.test!r})\n"
            + self.to_markdown()
        )


_STAT_COLUMNS = ("difference", "effect_size", "ci_low", "ci_high", "p_value", "p_adjusted",
                 "significant", "better", "worse", "wins", "ties", "losses", "n_users",
                 "n_users_skipped", "p_min")  # fmt: skip


# ------------------------------------------------------------------ the comparison engine
def check_settings(func: str, **settings: Any) -> dict[str, Any]:
    """The settings of the tests and intervals, checked (the errors name ``func``), with
    the numbers as Python floats and ints."""
    v.check_option(settings["test"], "test", func, list(TESTS))
    v.check_option(settings["interval"], "interval", func, [*INTERVALS, None])
    v.check_option(settings["correction"], "correction", func, [*CORRECTIONS, None])
    for name in ("alpha", "confidence"):
        value = v.check_number(settings[name], name, func, low=0.0, high=1.0,
                               low_inclusive=False, high_inclusive=False)  # fmt: skip
        settings[name] = float(value)
    for name in ("n_permutations", "n_resamples"):
        settings[name] = check_count(settings[name], name, func)
    settings["seed"] = check_seed(settings["seed"], func)
    return settings


def _run_tests(
    func: str,
    models: list[str],
    metrics: list[str],
    values: dict[str, dict[str, np.ndarray]],
    weights: dict[str, np.ndarray | None],
    means: dict[str, dict[str, float]],
    higher: dict[str, bool | None],
    settings: dict[str, Any],
) -> ComparisonReport:
    """Every comparison of ``values[metric][model]`` (per-user arrays, nan = undefined),
    all columns tested and resampled in one pass; ``settings``: the report's (checked)."""
    names = ("test", "interval", "correction", "alpha", "n_permutations", "seed")
    test, interval, correction, alpha, n_permutations, seed = (settings[k] for k in names)
    pairs = model_pairs(models, settings["baseline"], func)
    cols: list[tuple[str, str, str]] = [(m, a, b) for m in metrics for a, b in pairs]
    counts = column_wins_ties_losses(values, weights, higher, cols)
    n = len(next(iter(next(iter(values.values())).values())))
    # no user (a segment of compare_by_segment without one): one row of no value, so that
    # every statistic is nan, as where no user has a value for both models
    diff = np.full((max(n, 1), len(cols)), np.nan)
    wts = np.ones((max(n, 1), len(cols)))
    for j, (m, a, b) in enumerate(cols):
        diff[:n, j] = values[m][a] - values[m][b]  # nan where either is undefined
        if weights[m] is not None:
            wts[:n, j] = weights[m]
    defined = ~np.isnan(diff)
    wts[~defined] = 0.0
    used = (defined & (wts > 0)).sum(axis=0)
    # users with weight 0 carry no information: leave them out everywhere
    diff[defined & (wts == 0)] = np.nan
    with warnings.catch_warnings():  # one warning below names the comparisons instead
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if test == "randomization":
            p = randomization_test(diff, wts, n_permutations, seed, func)[0]
        else:
            unequal = np.flatnonzero(unequal_columns(diff, wts))
            if unequal.size:
                raise InvalidParameterError(
                    f"{func}: test={test!r} weighs every user equally, but "
                    f"{cols[unequal[0]][0]!r} weighs users unequally (its mean is a weighted "
                    f"mean over users); use test='randomization', which takes the weights."
                )
            p = student_pvalues(diff) if test == "student" else wilcoxon_pvalues(diff)
        # better/worse follow the test's statistic: the signed ranks' side for Wilcoxon
        lean = signed_rank_direction(diff) if test == "wilcoxon" else None
        p = np.atleast_1d(np.asarray(p, dtype=np.float64))
        table = Table(diff, wts)
        difference = table.in_units(table.mean)
        effect = np.atleast_1d(np.asarray(effect_sizes(diff, wts), dtype=np.float64))
        if interval is None:
            low = high = np.full(len(cols), np.nan)
        else:
            lows, highs = bootstrap_intervals(diff, wts, method=interval, seed=seed,
                                              confidence=settings["confidence"],
                                              n_resamples=settings["n_resamples"])  # fmt: skip
            low, high = np.atleast_1d(lows), np.atleast_1d(highs)
        comparisons = comparison_columns(
            cols, difference, p, correction=correction, alpha=alpha, higher=higher,
            n_users=used, n_users_skipped=n - used, effect_size=effect, ci_low=low, ci_high=high,
            p_min=[smallest_pvalue(int(u), test=test, n_permutations=n_permutations)
                   for u in used], wins=counts[0], ties=counts[1], losses=counts[2],
            family="all" if settings.get("pairs") == "all" else "metric", direction=lean,
        )  # fmt: skip
    stats = {"p_value": p, "effect_size": effect, "ci": low if interval else p}
    untested = [
        f"{m}: {a} vs {b} ({', '.join(k for k, x in stats.items() if np.isnan(x[j]))})"
        for j, (m, a, b) in enumerate(cols)
        if any(np.isnan(x[j]) for x in stats.values())
    ]
    if untested:
        warn(
            f"{func}: {len(untested):,} of {v.counted(len(cols), 'comparison')} "
            f"{v.verb(len(untested), 'has')} nan statistics: too few "
            f"users with a value for both models (see n_users), e.g. "
            f"{v.format_values(untested)}.",
            UndefinedMetricWarning,
        )
    return ComparisonReport(models=models, metrics=metrics, means=means, higher_is_better=higher,
                            comparisons=comparisons, **settings)  # fmt: skip


def named_models(models: Any, func: str, what: str) -> dict[str, Any]:
    """The models by name: a mapping's keys, or each of a sequence's ``name`` (else
    ``f"{what}{i}"``, counted from 1), distinct."""
    if isinstance(models, Mapping):
        return {str(k): m for k, m in models.items()}
    if isinstance(models, Sequence) and not isinstance(models, (str, bytes)):
        out: dict[str, Any] = {}
        for i, m in enumerate(models):
            name = str(getattr(m, "name", None) or f"{what}{i + 1}")
            if name in out:
                raise InputValidationError(
                    f"{func}: model names must be distinct. Got {name!r} twice; name each "
                    f"{what}, or pass a mapping {{name: {what}}}."
                )
            out[name] = m
        return out
    raise InputValidationError(
        f"{func}: {what}s must be a mapping {{name: {what}}} or a list of named {what}s. "
        f"Got {type(models).__name__}."
    )


def compare(
    qrels: Any,
    runs: Mapping[str, Any] | Sequence[Any],
    metrics: Sequence[str],
    *,
    baseline: str | None = None,
    pairs: str | None = None,
    test: str = "randomization",
    correction: str | None = "holm",
    alpha: float = 0.05,
    interval: str | None = "bca",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    n_resamples: int = 10_000,
    seed: int = 0,
    profile: str | None = None,
    **conventions: Any,
) -> ComparisonReport:
    """Compare runs on ranking metrics, with paired tests and confidence intervals.

    Each run is evaluated once with :func:`receval.evaluate` (all metrics in one
    pass); then, for each metric and each pair of runs (every run against
    ``baseline``, or every pair), the per-user differences are tested and
    resampled. All comparisons share one pass of the randomization test and
    one of the bootstrap.

    Parameters
    ----------
    qrels : Qrels or anything :func:`receval.evaluate` takes
        Relevance judgments.
    runs : mapping of str to Run, or sequence of Run
        The runs, by name (a sequence uses each run's ``name``). A value may
        also be the :class:`receval.EvaluationReport` of a run already
        evaluated on these qrels with every metric (``qrels`` may then be None).
    metrics : str or sequence of str
        Metric strings, as for :func:`receval.evaluate` (``"P.5,10"``: ``P_5`` and ``P_10``);
        one string is one metric.
    baseline : str, default=None
        Name of the run the others are compared with; None compares every pair.
    pairs : {"all"}, default=None
        ``"all"``: every pair of runs (no ``baseline``), with the p-values
        corrected as one family across every pair and metric (the all-pairs
        comparison of several systems); None: the correction is within each
        metric.
    test : {"randomization", "student", "wilcoxon"}, default="randomization"
        Fisher's randomization test (recommended for IR by Smucker et al.,
        2007; takes weights), the paired t-test or the Wilcoxon signed-rank
        test (SciPy's). ``pooled_hit_ratio`` is a weighted mean over users (each
        user weighs its relevant items), so only the randomization test applies.
    correction : {"holm", "bonferroni", "bh"} or None, default="holm"
        Correction of the p-values for multiple comparisons, within each
        metric (the comparisons of one metric are one family), or across every
        pair and metric with ``pairs="all"``.
    alpha : float, default=0.05
        Level below which an adjusted p-value is significant.
    interval : {"bca", "percentile"} or None, default="bca"
        Paired bootstrap interval of each difference (None: no interval).
    confidence : float, default=0.95
        Coverage of the intervals.
    n_permutations, n_resamples : int, default=10_000
        Size of the randomization test and of the bootstrap.
    seed : int, default=0
        Seed of both; the same seed gives the same report.
    profile : str, default=None
        Conventions profile, as for :func:`receval.evaluate`.
    **conventions
        Convention keywords of :func:`receval.evaluate` (``ties``, ``gain``, ...).

    Returns
    -------
    report : ComparisonReport
        Means, every comparison's statistics, and Markdown/LaTeX/DataFrame tables.

    Notes
    -----
    A user counts in a comparison when both runs define the metric for them
    (``missing_users="skip"`` can leave different users out of different
    runs; they are counted in ``n_users``). ``difference`` is the paired mean
    over those users, so it can differ from the difference of the two means.
    A geometric mean (``gm_map``, ``gm_bpref``) is compared by the logarithms it
    averages (values floored at 1e-5): its ``difference``, interval and test are of
    the users' log ratios (``exp(difference)``: the ratio of the geometric means).
    ``wins``, ``ties`` and ``losses`` count those users by the sign of their
    difference (in the metric's direction): how many users a change helps and
    hurts, beside how much it moves the mean. The users are tested in ascending
    order of their ids (a user's random signs and bootstrap draws follow its
    row), so the order of the qrels and the runs changes no p-value or interval.

    Examples
    --------
    >>> from receval import compare
    >>> qrels = {"u1": {"a": 1, "b": 1}, "u2": {"c": 1}, "u3": {"d": 1}, "u4": {"e": 1}}
    >>> good = {"u1": {"a": 2, "x": 1}, "u2": {"c": 2, "y": 1}, "u3": {"d": 2, "z": 1},
    ...         "u4": {"e": 2, "w": 1}}
    >>> bad = {"u1": {"x": 2, "a": 1}, "u2": {"y": 2, "c": 1}, "u3": {"z": 2, "d": 1},
    ...        "u4": {"w": 2, "e": 1}}
    >>> report = compare(qrels, {"good": good, "bad": bad}, ["mrr"], baseline="bad",
    ...                  n_permutations=1000, interval="percentile", n_resamples=1000)
    >>> report.means["mrr"]
    {'good': 1.0, 'bad': 0.5}
    >>> float(report.comparisons["difference"][0])
    0.5
    >>> float(report.comparisons["p_value"][0])  # 2 of 16 sign patterns are as extreme
    0.1...
    """
    from ..data._ranked import as_qrels
    from ..ranking.evaluation import evaluate, evaluate_as
    from ..ranking.report import EvaluationReport

    func = "compare"
    check_keywords(conventions, keyword_names(compare) + keyword_names(evaluate), func)
    settings = check_settings(func, test=test, interval=interval, correction=correction,
                               alpha=alpha, confidence=confidence, n_permutations=n_permutations,
                               n_resamples=n_resamples, seed=seed)  # fmt: skip
    named = named_models(runs, func, "run")
    model_pairs(list(named), baseline, func, pairs)  # fail early on names
    specs = ranking_specs(metrics, func)
    q = None
    reports: dict[str, EvaluationReport] = {}
    for name, run in named.items():
        if isinstance(run, EvaluationReport):
            reports[name] = run
            continue
        if q is None:
            if qrels is None:
                raise InputValidationError(
                    f"{func}: qrels is None, so every run must be an EvaluationReport. Got "
                    f"{type(run).__name__} for {name!r}; pass the qrels."
                )
            q = as_qrels(qrels, func)
        reports[name] = evaluate_as(func, q, run, list(specs), profile=profile, **conventions)
    return compare_reports(reports, specs, func, settings | {"baseline": baseline, "pairs": pairs})


def ranking_specs(metrics: Any, func: str) -> dict[str, Any]:
    """The ranking spec of each metric of the metric strings ``metrics`` (``"P.5,10"``:
    ``P_5`` and ``P_10``), by name, in order; the errors name ``func``."""
    from ..registry import parse_metrics, ranking_spec

    names = [n for m in metric_strings(metrics, func) for n in parse_metrics(m)]
    if not names:
        raise InputValidationError(
            f"{func}: metrics is empty; pass metric strings, e.g. ['ndcg@10']."
        )
    return {m: ranking_spec(m, func) for m in names}


def compare_reports(
    reports: Mapping[str, Any], specs: dict[str, Any], func: str, settings: dict[str, Any]
) -> ComparisonReport:
    """The comparison of runs' reports (by name) on the metrics of ``specs``
    (:func:`ranking_specs`), every report of the same qrels users; ``settings``: those
    of :func:`check_settings` with ``baseline`` and ``pairs``. The errors and warnings
    name ``func`` (:func:`compare`, or the function that called it)."""
    metrics = list(specs)
    first = next(iter(reports.values()))
    for name, rep in reports.items():
        missing = [m for m in metrics if m not in rep.values]
        if missing:
            raise InputValidationError(
                f"{func}: the report of {name!r} has no metric {missing[0]!r}. Got metrics "
                f"{v.format_values(list(rep.values))}; evaluate it with every metric compared."
            )
        if not np.array_equal(rep.users, first.users):
            raise InputValidationError(
                f"{func}: the reports were evaluated on different qrels users ({name!r} has "
                f"{v.counted(len(rep.users), 'user')}, {next(iter(reports))!r} "
                f"{len(first.users):,}); evaluate every run against the same qrels."
            )
    order = unit_order(first.users)  # the users by id: the qrels' order changes nothing
    values = {m: {n: averaged_values(rep.values[m][order], specs[m].info.mean)
                  for n, rep in reports.items()} for m in metrics}  # fmt: skip
    means = {m: {name: rep.mean[m] for name, rep in reports.items()} for m in metrics}
    # a pooled mean (sum of hits / sum of R) weighs each user by R
    weights = {m: np.asarray(first._aux[m], dtype=np.float64)[order]
               if specs[m].info.mean == "pooled" else None for m in metrics}  # fmt: skip
    higher: dict[str, bool | None] = {m: specs[m].info.higher_is_better for m in metrics}
    settings = settings | {"n_users": len(first.users)}
    return _run_tests(func, list(reports), metrics, values, weights, means, higher, settings)


def compare_predictions(
    y_true: ArrayLike,
    y_scores: Mapping[str, ArrayLike],
    *,
    groups: ArrayLike | None = None,
    metrics: Sequence[str] = ("gauc", "log_loss"),
    weighting: str = "impressions",
    sample_weight: ArrayLike | None = None,
    baseline: str | None = None,
    test: str = "randomization",
    correction: str | None = "holm",
    alpha: float = 0.05,
    interval: str | None = "bca",
    confidence: float = 0.95,
    n_permutations: int = 10_000,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> ComparisonReport:
    """Compare CTR models scored on the same impressions, user by user.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        0/1 labels (1 = click).
    y_scores : mapping of str to array-like of shape (n_samples,)
        Each model's predicted scores (probabilities for ``log_loss``), by name.
    groups : array-like of shape (n_samples,), default=None
        User (or query, session) of each impression: the unit of pairing.
        Required for ``gauc``; without it every impression is its own unit. The
        units are tested in ascending order of their ids, so the order of the
        rows changes no statistic (without groups, the rows' order is the units').
    metrics : str or sequence of str, default=("gauc", "log_loss")
        One metric string, or several: any pointwise or grouped metric string of the registry
        (:func:`receval.list_metrics`; a ranking metric is compared by
        :func:`compare`). ``gauc``: per-user AUC weighted by ``weighting``
        (users with one class are left out, as :func:`receval.gauc_score`
        does); ``log_loss``: each user's mean loss weighted by their
        impressions, so the mean is the log loss of all impressions;
        ``roc_auc`` (alias ``auc``): the AUC of all impressions, compared with
        DeLong's paired test (:func:`receval.delong_test`; no sample weights):
        its rows hold DeLong's p-value and normal interval (whatever
        ``interval``), no effect size (nan) and the impressions as ``n_users``.
        Every other metric (``xauc``, ``pcoc``, ``rmse``, ``log_loss(eps=1e-7)``,
        ...) is not a mean over users: its function is run again on the rows
        with each unit's (group's, or row's) scores of the two models swapped at
        random (randomization test, ``n_permutations`` times) and on units drawn
        with replacement (percentile interval whatever ``interval``,
        ``n_resamples`` times); no effect size (nan), the units as ``n_users``.
        Each run computes the metric on all rows, so keep these counts modest
        on large logs.
    weighting : {"impressions", "clicks", "uniform"}, default="impressions"
        Weighting of ``gauc``, as in :func:`receval.gauc_score`, where its metric
        string sets none (``gauc(weighting=impressions)`` keeps its own).
    sample_weight : array-like of shape (n_samples,), default=None
        Per-impression weights.
    baseline, test, correction, alpha, interval, confidence, n_permutations, n_resamples, seed
        As for :func:`compare`. The t-test and the Wilcoxon test weigh users
        equally: use them with ``gauc`` under ``weighting="uniform"`` (a metric
        that is not a mean over users takes only the randomization test).

    Returns
    -------
    report : ComparisonReport

    Examples
    --------
    >>> import numpy as np
    >>> from receval import compare_predictions
    >>> rng = np.random.default_rng(0)
    >>> users = np.repeat(np.arange(200), 20)
    >>> clicks = rng.random(len(users)) < 0.3
    >>> noise = rng.standard_normal((2, len(users)))
    >>> good = np.clip(0.3 + 0.3 * (clicks - 0.3) + 0.1 * noise[0], 0.01, 0.99)
    >>> noisy = np.clip(good + 0.2 * noise[1], 0.01, 0.99)
    >>> report = compare_predictions(clicks, {"good": good, "noisy": noisy}, groups=users,
    ...                              baseline="noisy", n_permutations=2000, n_resamples=2000)
    >>> report.comparisons["better"].tolist()  # good beats noisy on gauc and log_loss
    [True, True]
    >>> report = compare_predictions(clicks, {"good": good, "noisy": noisy}, groups=users,
    ...                              metrics=["xauc"], baseline="noisy", n_permutations=200,
    ...                              n_resamples=200)
    >>> report.comparisons["better"].tolist()  # recomputed on swapped users' scores
    [True]
    """
    from ..metrics._gauc import group_auc
    from ..metrics._loss import log_loss
    from . import recomputed as rec
    from .impressions import binary_labels, check_impressions, scoring, unit_aucs, user_log_loss

    func = "compare_predictions"
    settings = check_settings(func, test=test, interval=interval, correction=correction,
                               alpha=alpha, confidence=confidence, n_permutations=n_permutations,
                               n_resamples=n_resamples, seed=seed)  # fmt: skip
    named = named_models(y_scores, func, "model")
    pairs = model_pairs(list(named), baseline, func)
    metrics = metric_strings(metrics, func)
    if not metrics:
        raise InputValidationError(f"{func}: metrics is empty; pass e.g. ['gauc', 'log_loss'].")
    specs = [rec.pointwise_spec(m, func) for m in metrics]
    keys = [rec.how_compared(spec) for spec in specs]
    rows = check_impressions(y_true, named, groups, sample_weight, func)
    yt, codes, n_groups, sw = rows.y_true, rows.codes, rows.n_units, rows.sample_weight
    if groups is None:
        needs = [m for m, s in zip(metrics, specs, strict=True) if "groups" in s.info.inputs]
        if needs:
            raise InputValidationError(
                f"{func}: {needs[0]!r} needs groups; pass groups= (e.g. the user id of each row)."
            )
    values: dict[str, dict[str, np.ndarray]] = {m: {} for m in metrics}
    means: dict[str, dict[str, float]] = {m: {} for m in metrics}
    weights: dict[str, np.ndarray | None] = {}
    with binary_labels(func):  # 0/1 labels: no pos_label to pass
        for name, score in named.items():
            for m, key, spec in zip(metrics, keys, specs, strict=True):
                with scoring(m, name):  # its errors name the model
                    if key == "gauc":
                        assert groups is not None  # 'gauc' without groups was refused above
                        rep = group_auc(yt, score, groups=groups, sample_weight=sample_weight,
                                        **spec.filled(weighting=weighting).given)  # fmt: skip
                        values[m][name], weights[m] = unit_aucs(rep)
                        means[m][name] = rep.score
                    elif key == "log_loss":
                        means[m][name] = log_loss(yt, score, sample_weight=sample_weight)
                        values[m][name], weights[m] = user_log_loss(rows, score)
    higher = {m: spec.info.higher_is_better for m, spec in zip(metrics, specs, strict=True)}
    per_user = [m for m, k in zip(metrics, keys, strict=True) if k in ("gauc", "log_loss")]
    settings |= {"baseline": baseline, "n_users": n_groups}
    report = None
    if per_user:
        per_user_values = {m: values[m] for m in per_user}
        report = _run_tests(func, list(named), per_user, per_user_values, weights, means, higher,
                            settings)  # fmt: skip
    if len(per_user) == len(metrics):
        return report  # type: ignore[return-value]
    from ..metrics._delong import delong_pairs

    blocks = {}
    with binary_labels(func):
        for m, key, spec in zip(metrics, keys, specs, strict=True):
            if key == "roc_auc":
                if sw is not None:
                    raise InvalidParameterError(
                        f"{func}: {m!r} is compared by DeLong's test, which takes no sample "
                        f"weights. Got sample_weight; leave it None or compare 'gauc'."
                    )
                means[m], blocks[m] = delong_pairs(
                    yt, named, pairs, func, metric=m, confidence=settings["confidence"],
                    alpha=alpha, correction=correction, higher=higher[m] is True,
                )  # fmt: skip
            elif key == "recomputed":
                with warnings.catch_warnings():  # a resample without a value is left out
                    warnings.simplefilter("ignore", UndefinedMetricWarning)
                    means[m], blocks[m] = rec.recomputed_pairs(
                        rec.rows_value(spec, yt, codes if groups is not None else None),
                        yt, {k: np.asarray(s) for k, s in named.items()}, pairs, codes, n_groups,
                        sw, func, settings, metric=m, higher=spec.info.higher_is_better,
                    )  # fmt: skip
    c = {} if report is None else report.comparisons
    for m in per_user:
        blocks[m] = {k: col[c["metric"] == m] for k, col in c.items()}
    comparisons = {k: np.concatenate([blocks[m][k] for m in metrics])
                   for k in ("metric", "model", "versus", *_STAT_COLUMNS)}  # fmt: skip
    return ComparisonReport(
        models=list(named), metrics=metrics, means=means, higher_is_better=higher,
        comparisons=comparisons, **settings,
        _details={"delong": [m for m, k in zip(metrics, keys, strict=True) if k == "roc_auc"],
                  "recomputed": [m for m, k in zip(metrics, keys, strict=True)
                                 if k == "recomputed"]},
    )  # fmt: skip
