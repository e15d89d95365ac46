"""The result of :func:`receval.audit`: :class:`Finding` and :class:`AuditReport`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._parameters import counted
from .._validation import check_option
from ..exceptions import InputValidationError
from ..report.json_values import dumps

__all__ = ["SEVERITIES", "AuditReport", "Finding", "example_value", "no_id_matches"]

#: The severities of a finding, the gravest first.
SEVERITIES = ("error", "warning", "info")


def example_value(value: Any) -> Any:
    """An id, time or score as a plain Python value (for examples and JSON)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def no_id_matches(role: str) -> str:
    """The fix of two inputs none of whose ``role`` ids (``"user"``, ``"item"``) match."""
    return f"check the {role} ids of both inputs (type, prefix, column)."


@dataclass(frozen=True)
class Finding:
    """One problem of an evaluation protocol.

    Attributes
    ----------
    check : str
        What was checked: ``"temporal_leak"``, ``"cutoff_leak"``,
        ``"timeline_overlap"``, ``"test_in_train"``, ``"unmasked_train_items"``,
        ``"cold_users"``, ``"cold_items"``, ``"duplicates"``, ``"missing_users"``,
        ``"short_lists"``, ``"tied_scores"`` or ``"id_types"``.
    severity : {"error", "warning", "info"}
        "error": the numbers are wrong as the data stand (a leak, ids that
        cannot match); "warning": they may mislead; "info": worth knowing.
    input : str
        The input it is about: ``"train"``, ``"test"``, ``"run"`` or two of
        them (``"train/test"``).
    count : int
        How many rows, users or ids (``unit``) it concerns.
    total : int
        Out of how many (the share's denominator).
    unit : str
        What ``count`` and ``total`` count, e.g. ``"test rows"``, ``"test users"``.
    message : str
        What was found, in one sentence with the counts.
    fix : str
        How to fix it, in words.
    examples : list of dict
        A few concerned rows, users or ids.
    details : dict
        More numbers where the check has them (``tied_scores``: the tie rule
        ``ties`` and per metric the mean as ``evaluate`` reports it under that
        rule, ``mean``, and with ``ties="average"``).
    """

    check: str
    severity: str
    input: str
    count: int
    total: int
    unit: str
    message: str
    fix: str
    examples: list[dict[str, Any]] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def share(self) -> float:
        """``count / total`` (0.0 when ``total`` is 0)."""
        return self.count / self.total if self.total else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The finding as plain JSON values."""
        return {
            "check": self.check,
            "severity": self.severity,
            "input": self.input,
            "count": int(self.count),
            "total": int(self.total),
            "share": self.share,
            "unit": self.unit,
            "message": self.message,
            "fix": self.fix,
            "examples": [{k: example_value(x) for k, x in e.items()} for e in self.examples],
            "details": self.details,
        }


@dataclass(frozen=True)
class AuditReport:
    """The result of :func:`receval.audit`: the findings, gravest first, and the inputs' sizes.

    Attributes
    ----------
    findings : list of Finding
        Every problem found, errors first, then warnings, then notes; none
        for a clean protocol.
    inputs : dict of str to dict
        Per input given (``"train"``, ``"test"``, ``"run"``): its rows, users
        and items, and its time column (None without one).
    checks : list of str
        The checks that ran (a check needs its inputs: the temporal ones a time
        column in train and test, ``short_lists`` a ``k``).
    k : int or None
        The list depth the run checks used.
    """

    findings: list[Finding]
    inputs: dict[str, dict[str, Any]]
    checks: list[str]
    k: int | None = None

    @property
    def ok(self) -> bool:
        """Whether no finding is an error."""
        return not self.errors

    @property
    def errors(self) -> list[Finding]:
        """The findings of severity ``"error"``."""
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        """The findings of severity ``"warning"``."""
        return [f for f in self.findings if f.severity == "warning"]

    def __getitem__(self, check: str) -> Finding:
        """The finding of a check (the first, when several inputs have one)."""
        for f in self.findings:
            if f.check == check:
                return f
        raise KeyError(
            f"AuditReport: no finding of check {check!r}. Got findings "
            f"{[f.check for f in self.findings]}."
        )

    def __contains__(self, check: object) -> bool:
        return any(f.check == check for f in self.findings)

    def check(self, severity: str = "error") -> None:
        """Raise when a finding is at least as grave as ``severity``.

        Parameters
        ----------
        severity : {"error", "warning", "info"}, default="error"
            The least grave severity that fails.

        Raises
        ------
        InputValidationError
            Naming every failing finding and its fix.
        """
        check_option(severity, "severity", "AuditReport.check", list(SEVERITIES))
        worst = SEVERITIES[: SEVERITIES.index(severity) + 1]
        failing = [f for f in self.findings if f.severity in worst]
        if failing:
            lines = "; ".join(f"{f.check} ({f.severity}): {f.message} {f.fix}" for f in failing)
            raise InputValidationError(
                f"audit: the protocol fails {len(failing)} check(s): {lines}"
            )

    def records(self) -> list[dict[str, Any]]:
        """One flat record per finding: severity, check, input, count, total, share,
        message, fix (the rows of the table and of ``receval audit``'s output)."""
        return [
            {
                "severity": f.severity,
                "check": f.check,
                "input": f.input,
                "count": int(f.count),
                "total": int(f.total),
                "share": f.share,
                "message": f.message,
                "fix": f.fix,
            }
            for f in self.findings
        ]

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain JSON values: ``ok``, ``k``, ``inputs``, ``checks`` and
        ``findings`` (each :meth:`Finding.to_dict`)."""
        return {
            "ok": self.ok,
            "k": self.k,
            "inputs": self.inputs,
            "checks": list(self.checks),
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self, *, indent: int | None = 2) -> str:
        """:meth:`to_dict` as JSON text (nan as null, infinities as ``"Infinity"`` and
        ``"-Infinity"``: :func:`~receval.report.json_values.json_value`)."""
        return dumps(self.to_dict(), indent=indent)

    def to_frame(self, backend: str | None = None) -> Any:
        """The findings as a pandas (default) or polars DataFrame, a row per finding
        (the columns of :meth:`records`)."""
        from ..data.frames import make_frame

        records = self.records()
        names = ["severity", "check", "input", "count", "total", "share", "message", "fix"]
        columns = {n: np.asarray([r[n] for r in records], dtype=object) for n in names}
        for n in ("count", "total"):
            columns[n] = columns[n].astype(np.int64)
        columns["share"] = columns["share"].astype(np.float64)
        return make_frame(columns, backend=backend)

    def __repr__(self) -> str:
        sizes = ", ".join(
            f"{name} {counted(info['rows'], 'row')}" for name, info in self.inputs.items()
        )
        counts = {s: sum(f.severity == s for f in self.findings) for s in SEVERITIES}
        head = (
            f"AuditReport({sizes}; {counted(counts['error'], 'error')}, "
            f"{counted(counts['warning'], 'warning')}, {counted(counts['info'], 'note')})"
        )
        if not self.findings:
            return head + "\n  no finding: the protocol passes every check that ran."
        lines = [head]
        for f in self.findings:
            lines.append(f"  {f.severity:<7}  {f.check:<20}  {f.message}")
        return "\n".join(lines)
