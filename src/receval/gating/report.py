"""The gate's result and its outputs: a terminal table, Markdown, JSON and JUnit XML."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree as ET

from .._parameters import counted, verb
from ..registry.trec_eval import GEOMETRIC_FLOOR
from ..report.json_values import dumps, json_value
from ..report.tables import format_p_value, markdown_escape

if TYPE_CHECKING:
    from .config import GateConfig

__all__ = ["GateReport", "GateRow"]

_MARKS = {"pass": "✅ pass", "fail": "❌ fail", "inconclusive": "⚠️ inconclusive"}


@dataclass(frozen=True)
class GateRow:
    """One decision: a rule's metric for a candidate (against a baseline for a comparison).

    Attributes
    ----------
    metric, rule, kind : str
        The metric string, the rule in words and its kind.
    candidate : str
        The candidate's name.
    baseline : str or None
        The baseline's name; None for a floor or ceiling.
    candidate_value, baseline_value : float
        Each model's value of the metric (nan: no baseline).
    difference, ci_low, ci_high : float
        Paired mean of candidate minus baseline over the users both define,
        and its bootstrap interval at confidence ``1 - 2 alpha`` (DeLong's
        normal interval for ``roc_auc``); of a geometric mean (``gm_map``), the
        mean of the users' log ratios, which the test tests (the log of the
        ratio of the two geometric means).
    effect_size : float
        Cohen's d_z of the per-user differences (nan for ``roc_auc``).
    wins, ties, losses : int or None
        Users where the candidate is better, equal, worse (None for ``roc_auc``,
        whose unit is the impression).
    n_users, n_users_skipped : int
        Users in the test; users left out of it: without a value in one of the
        two models or in both (a user missing from a run under
        ``missing_users="skip"``, a group with one class in ``gauc``), or of
        weight 0. For ``roc_auc``, whose unit is the impression, ``n_users`` is
        the rows (impressions) in DeLong's test and ``n_users_skipped`` 0. Of a
        floor or ceiling: the users (groups, for ``gauc``) the candidate's value
        is a mean over and those it leaves out (without a value: a user with no
        relevant item in ``recall@k``, a group with one class in ``gauc``); 0 where
        the metric gives no such counts.
    p_value, p_adjusted : float
        One-sided p-value of the rule's hypothesis, and after the correction
        (a row fails a non-inferiority rule, or passes a superiority one, where
        ``p_adjusted`` is below the gate's alpha).
    p_non_inferiority, level_non_inferiority : float
        Non-inferiority rows (nan for the others): the one-sided p-value of the
        other side of the same test, of a mean gain above minus the margin (the
        classic non-inferiority test), and the level it is compared with,
        :math:`\\alpha' = \\alpha / m` over the gate's :math:`m` comparisons
        under a correction, else alpha; a row that no regression fails passes
        as "significantly above the margin" (below it, for a metric where lower
        is better) where ``p_non_inferiority`` is below ``level_non_inferiority``.
    margin : float
        The margin in the units of ``difference``: the metric's (a relative margin
        times the baseline's value; nan where that value is 0 or nan, which gives a
        relative margin no size), or for a geometric mean the logarithms'
        (``-log(1 - d)`` for a relative non-inferiority margin ``d``, ``log1p(m)``
        for a relative superiority margin ``m``).
    n_rows_skipped : int, default=0
        Of a ``gauc`` floor or ceiling: the rows of the groups its value leaves out.
    mde : float
        Minimum detectable effect at the gate's alpha and power, in the units of
        ``difference`` (inf: no difference could be significant with these users).
    verdict : {"pass", "fail", "inconclusive"}
    reason : str
        Why, in words.
    geometric : bool, default=False
        Whether the metric is a geometric mean over users (``gm_map``), whose
        comparison is of log ratios (the key ``geometric`` of each row of
        :meth:`GateReport.records` and :meth:`GateReport.to_json`).
    """

    metric: str
    rule: str
    kind: str
    candidate: str
    baseline: str | None
    candidate_value: float
    verdict: str
    reason: str
    baseline_value: float = math.nan
    difference: float = math.nan
    ci_low: float = math.nan
    ci_high: float = math.nan
    effect_size: float = math.nan
    wins: int | None = None
    ties: int | None = None
    losses: int | None = None
    n_users: int = 0
    n_users_skipped: int = 0
    p_value: float = math.nan
    p_adjusted: float = math.nan
    p_non_inferiority: float = math.nan
    level_non_inferiority: float = math.nan
    margin: float = math.nan
    mde: float = math.nan
    geometric: bool = False
    n_rows_skipped: int = 0


def _num(x: float, digits: int = 4) -> str:
    return "—" if x != x else ("∞" if x == math.inf else f"{x:.{digits}f}")


@dataclass(frozen=True)
class GateReport:
    """The result of :func:`receval.gate`.

    Attributes
    ----------
    rows : list of GateRow
        The comparisons (rule x baseline x candidate), then the bounds.
    config : GateConfig
        The rules and settings used.
    runs_missing_users : dict of str to int
        Ranking runs: the qrels users each run has no list for (handled by the
        ``missing_users`` convention).
    run_only_users : dict of str to int
        Ranking runs: the users each run lists that the qrels do not hold, left
        out of every check.
    """

    rows: list[GateRow]
    config: GateConfig
    runs_missing_users: dict[str, int] = field(default_factory=dict)
    run_only_users: dict[str, int] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """Whether every row passes (an inconclusive row as the ``inconclusive`` setting says)."""
        ok = {"pass"} | ({"inconclusive"} if self.config.inconclusive == "pass" else set())
        return all(r.verdict in ok for r in self.rows)

    def counts(self) -> dict[str, int]:
        """Rows per verdict."""
        return {v: sum(r.verdict == v for r in self.rows) for v in ("pass", "fail", "inconclusive")}

    def summary(self) -> str:
        """One line: the decision and the rows per verdict."""
        c = self.counts()
        head = "PASSED" if self.passed else "FAILED"
        return (
            f"receval gate {head}: {c['pass']} passed, {c['fail']} failed, "
            f"{c['inconclusive']} inconclusive of {counted(len(self.rows), 'check')}."
        )

    def test_note(self) -> str | None:
        """The test and its correction; None where no check compares with a baseline
        (floors and ceilings alone run no test)."""
        cfg = self.config
        n_compared = sum(r.baseline is not None for r in self.rows)
        if not n_compared:
            return None
        levels = [r.level_non_inferiority for r in self.rows if r.kind == "non_inferiority"]
        other = (
            f" A non-inferiority row passes too where its non-inferiority p (the other side's) "
            f"is below alpha' = {levels[0]:.4g}."
            if levels
            else ""
        )
        return (
            f"One-sided {cfg.test} test (DeLong's for roc_auc) of each rule, alpha "
            f"{cfg.alpha:g} after {cfg.correction or 'no'} correction across "
            f"{counted(n_compared, 'comparison')}; interval: {cfg.interval} bootstrap at "
            f"{1 - 2 * cfg.alpha:.0%}; minimum detectable effect at power {cfg.power:g}.{other}"
        )

    def notes(self) -> list[str]:
        """What the reader must know: the test and correction (:meth:`test_note`),
        geometric means tested by their logarithms, inconclusive rows, rows whose
        relative margin has no size, users left out (of a paired test, without a
        list in a run, not in the qrels)."""
        cfg = self.config
        test = self.test_note()
        out = [] if test is None else [test]
        logs = list(
            dict.fromkeys(r.metric for r in self.rows if r.baseline is not None and r.geometric)
        )
        if logs:
            out.append(
                f"Geometric means over users ({', '.join(logs)}) are tested by the users' "
                f"logarithms (values floored at {GEOMETRIC_FLOOR:g}): their difference, "
                f"interval, effect size, margin and MDE are of log ratios (exp(difference) is "
                f"the ratio of the geometric means; a relative margin d is -log(1 - d), "
                f"log(1 + d) in a superiority rule)."
            )
        if self.counts()["inconclusive"]:
            counts = "fail" if cfg.inconclusive == "fail" else "pass"
            out.append(
                f"Inconclusive rows (sample too small to detect the margin) count as {counts}."
            )
        refused = [r for r in self.rows if r.baseline is not None and r.margin != r.margin]
        if refused:
            r, n = refused[0], len(refused)
            out.append(
                f"A relative margin has no size where the baseline's value is 0 or nan: "
                f"{counted(n, 'row')} {verb(n, 'fails')} for it, e.g. {r.metric}: {r.candidate} "
                f"vs {r.baseline}; give the margin in the metric's units (relative = false)."
            )
        skipped = [r for r in self.rows if r.n_users_skipped and r.baseline is not None]
        if skipped:
            r = skipped[0]
            out.append(
                f"Users without a value in both models are left out of the paired test, "
                f"e.g. {r.n_users_skipped:,} of {r.n_users + r.n_users_skipped:,} for {r.metric}: "
                f"{r.candidate} vs {r.baseline}."
            )
        bounded = {  # a floor and a ceiling on one value: one note
            (r.metric, r.candidate): r
            for r in self.rows
            if r.n_users_skipped and r.baseline is None
        }
        for (metric, candidate), r in bounded.items():
            rows = f" ({counted(r.n_rows_skipped, 'row')})" if r.n_rows_skipped else ""
            out.append(
                f"{metric} of {candidate} is a mean over {r.n_users:,} of "
                f"{counted(r.n_users + r.n_users_skipped, 'user')}: "
                f"{r.n_users_skipped:,} without a value left out{rows}."
            )
        for label, by_run in (
            ("Qrels users without a list in a run (handled by missing_users)",
             self.runs_missing_users),
            ("Run users not in the qrels (ignored)", self.run_only_users),
        ):  # fmt: skip
            held = ", ".join(f"{k} {n}" for k, n in by_run.items() if n)
            if held:
                out.append(f"{label}: {held}.")
        return out

    def table_rows(self, digits: int = 4) -> tuple[list[str], list[list[str]]]:
        """The header and one row of text cells per check."""
        header = [
            "metric",
            "rule",
            "candidate",
            "baseline",
            "value",
            "baseline value",
            "difference",
            f"{1 - 2 * self.config.alpha:.0%} CI",
            "effect size",
            "win/tie/loss",
            "p-value",
            "adjusted p",
            "non-inferiority p",
            "MDE",
            "verdict",
        ]
        rows = []
        for r in self.rows:
            wtl = "—" if r.wins is None else f"{r.wins}/{r.ties}/{r.losses}"
            ci = (
                "—"
                if r.ci_low != r.ci_low
                else f"[{_num(r.ci_low, digits)}, {_num(r.ci_high, digits)}]"
            )
            diff = "—" if r.difference != r.difference else f"{r.difference:+.{digits}f}"
            p = "—" if r.p_value != r.p_value else format_p_value(r.p_value)
            q = "—" if r.p_adjusted != r.p_adjusted else format_p_value(r.p_adjusted)
            shown = r.p_non_inferiority
            ni = "—" if shown != shown else format_p_value(shown)
            rows.append(
                [
                    r.metric,
                    r.rule,
                    r.candidate,
                    r.baseline or "—",
                    _num(r.candidate_value, digits),
                    _num(r.baseline_value, digits),
                    diff,
                    ci,
                    _num(r.effect_size, digits),
                    wtl,
                    p,
                    q,
                    ni,
                    _num(r.mde, digits),
                    r.verdict,
                ]
            )
        return header, rows

    def to_markdown(self, digits: int = 4, *, notes: bool = True) -> str:
        """A GitHub Markdown section: the decision, the table, the notes (for a pull-request
        comment or ``$GITHUB_STEP_SUMMARY``).

        Parameters
        ----------
        digits : int, default=4
            Decimals of the values.
        notes : bool, default=True
            Whether to list the notes after the first (inconclusive rows, users left
            out; the first, the test and its correction, is always listed):
            ``receval gate -f markdown`` prints those on standard error instead, as
            every command prints its notes.

        Returns
        -------
        markdown : str
            The decision as a heading, the table, then a list of the notes and of
            why each row that does not pass failed.
        """
        header, rows = self.table_rows(digits)
        mark = "✅" if self.passed else "❌"
        lines = [f"### {mark} {markdown_escape(self.summary())}", ""]
        lines.append("| " + " | ".join(markdown_escape(h) for h in header) + " |")
        lines.append("|" + "|".join("---" if j < 4 else "---:" for j in range(len(header))) + "|")
        for row in rows:
            row = [*row[:-1], _MARKS[row[-1]]]
            lines.append("| " + " | ".join(markdown_escape(c) for c in row) + " |")
        lines.append("")
        items = [n for n in (self.notes() if notes else [self.test_note()]) if n]
        items += [
            f"{r.metric} ({r.candidate}"
            + (f" vs {r.baseline}" if r.baseline else "")
            + f"): {r.verdict}: {r.reason}."
            for r in self.rows
            if r.verdict != "pass"
        ]
        lines += [f"- {markdown_escape(item)}" for item in items]
        return "\n".join(lines) + "\n"

    def records(self) -> list[dict[str, Any]]:
        """Every row as a dict of JSON values (:func:`~receval.report.json_values.json_value`:
        nan as None, an infinite ``mde`` as ``"Infinity"``)."""
        return [json_value(asdict(r)) for r in self.rows]

    def to_json(self) -> str:
        """The decision, the settings and every row as a JSON document."""
        cfg = self.config
        settings = {
            k: getattr(cfg, k)
            for k in (
                "alpha",
                "correction",
                "test",
                "power",
                "inconclusive",
                "interval",
                "n_permutations",
                "n_resamples",
                "seed",
                "profile",
                "weighting",
                "source",
            )
        }
        doc = {
            "passed": self.passed,
            "counts": self.counts(),
            "settings": settings,
            "runs_missing_users": self.runs_missing_users,
            "run_only_users": self.run_only_users,
            "rows": self.records(),
            "notes": self.notes(),
        }
        return dumps(doc, indent=2, ensure_ascii=False) + "\n"

    def to_junit(self) -> str:
        """JUnit XML: one test suite, one test case per row (metric x baseline x candidate);
        a failed row is a ``failure``, an inconclusive one a ``failure`` or ``skipped`` as the
        ``inconclusive`` setting counts it."""
        c = self.counts()
        soft = self.config.inconclusive == "pass"
        suite = ET.Element(
            "testsuite",
            name="receval gate",
            tests=str(len(self.rows)),
            failures=str(c["fail"] + (0 if soft else c["inconclusive"])),
            skipped=str(c["inconclusive"] if soft else 0),
            errors="0",
        )
        header, rows = self.table_rows()
        for r, cells in zip(self.rows, rows, strict=True):
            name = f"{r.metric} {r.candidate}" + (f" vs {r.baseline}" if r.baseline else "")
            case = ET.SubElement(suite, "testcase", name=name, classname=f"receval.gate.{r.kind}")
            detail = "; ".join(f"{h}: {x}" for h, x in zip(header, cells, strict=True))
            if r.verdict == "fail" or (r.verdict == "inconclusive" and not soft):
                ET.SubElement(
                    case, "failure", message=f"{r.verdict}: {r.reason}", type=r.verdict
                ).text = detail
            elif r.verdict == "inconclusive":
                ET.SubElement(case, "skipped", message=f"inconclusive: {r.reason}")
            ET.SubElement(case, "system-out").text = detail
        root = ET.Element(
            "testsuites",
            name="receval gate",
            tests=suite.get("tests", "0"),
            failures=suite.get("failures", "0"),
        )
        root.append(suite)
        return (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            + ET.tostring(root, encoding="unicode")
            + "\n"
        )

    def __str__(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        return f"GateReport(passed={self.passed}, {counted(len(self.rows), 'check')})"
