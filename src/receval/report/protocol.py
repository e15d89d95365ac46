"""The protocol section of the HTML report: the findings of :func:`receval.audit`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .html import HTMLReport

if TYPE_CHECKING:
    from ..protocol import AuditReport

__all__ = ["protocol_section"]


def protocol_section(
    doc: HTMLReport,
    audits: AuditReport | Mapping[str, AuditReport],
    *,
    caption: str | None = None,
) -> None:
    """Add the protocol section: the findings of :func:`receval.audit`, errors first.

    A paragraph says what was checked, then one row per finding: severity,
    check, the inputs it concerns (and the run's name), count and share, what
    was found and how to fix it; a clean protocol gets a sentence instead of
    the table. With an audit per run, the findings of train and test alone
    are shown once (the first audit's). The report's JSON holds every
    finding whole (:meth:`receval.protocol.Finding.to_dict`: examples and
    details too).

    Parameters
    ----------
    doc : HTMLReport
        The report to add to.
    audits : AuditReport or mapping of str to AuditReport
        The audit, or one per run by run name.
    caption : str, default=None
        Caption of the table, e.g. the files audited.

    Examples
    --------
    >>> import receval
    >>> from receval.report import HTMLReport, protocol_section
    >>> train = {"u1": {"a": 1}, "u2": {"b": 1}}
    >>> test = {"u1": {"a": 1}, "u2": {"c": 1}}
    >>> doc = HTMLReport("Runs")
    >>> protocol_section(doc, receval.audit(train, test))
    >>> "test_in_train" in doc.to_html()
    True
    """
    named = {"": audits} if not isinstance(audits, Mapping) else dict(audits)
    doc.add_heading("Protocol")
    checks = sorted({c for a in named.values() for c in a.checks})
    doc.add_text(
        "The checks of receval.audit on the training data, the test set (the qrels) and the "
        f"runs: {', '.join(checks)}. Each finding counts the rows, users or ids it concerns "
        "(share: of the total its unit names); errors make the numbers wrong as the data "
        "stand, warnings may mislead, notes are worth knowing."
    )
    shown: list[dict[str, Any]] = []
    numbers: list[dict[str, Any]] = []
    for i, (name, audit) in enumerate(named.items()):
        for finding in audit.findings:
            about_run = "run" in finding.input.split("/")
            if i and not about_run:  # train and test alone: the first audit's
                continue
            run = name if about_run else ""
            shown.append(
                {
                    "severity": finding.severity,
                    "check": finding.check,
                    "input": finding.input,
                    **({"run": run} if len(named) > 1 else {}),
                    "count": finding.count,
                    "share": finding.share,
                    "message": finding.message,
                    "fix": finding.fix,
                }
            )
            numbers.append({**({"run": run} if len(named) > 1 else {}), **finding.to_dict()})
    if not shown:
        doc.add_text("No finding: the protocol passes every check that ran.")
        return
    doc.add_table(shown, caption=caption, numbers=numbers)
