"""audit(): runs the checks of an evaluation protocol on its train, test and run."""

from __future__ import annotations

from typing import Any

from .. import _validation as v
from ..conventions import resolve_conventions
from ..exceptions import InvalidParameterError
from .inputs import Columns, Rows, align, read_rows
from .overlap import cold_findings, duplicate_findings, id_type_findings, test_in_train_findings
from .report import SEVERITIES, AuditReport, Finding
from .runs import as_qrels, as_run, missing_user_findings, run_findings, tie_findings
from .temporal import temporal_findings

__all__ = ["DEFAULT_AUDIT_METRICS", "audit"]

#: The metrics whose tie dependence :func:`audit` measures when none is named (at ``@k``
#: with a ``k``).
DEFAULT_AUDIT_METRICS = ("ndcg", "recall", "mrr")


def audit(
    train: Any = None,
    test: Any = None,
    run: Any = None,
    *,
    k: int | None = None,
    cutoff: Any = None,
    repeats: bool = False,
    metrics: str | list[str] | tuple[str, ...] | None = None,
    profile: str | None = None,
    ties: str | None = None,
    user: str = "user",
    item: str = "item",
    time: str | None = None,
    score: str = "score",
    grade: str | None = "grade",
    examples: int = 5,
) -> AuditReport:
    """Check an evaluation protocol: its split, its test set and the run it scores.

    Each check that its inputs allow runs, and each problem it finds is a
    :class:`Finding` with its counts, its share, a few examples, a severity
    and the fix in words. A clean protocol has no finding.

    ======================== ======== ==========================================================
    check                    severity what it finds
    ======================== ======== ==========================================================
    ``temporal_leak``        error    test interactions earlier than the same user's last
                                      training one (needs a time column in train and test)
    ``cutoff_leak``          error    with ``cutoff``: test interactions before it, training
                                      ones at or after it
    ``timeline_overlap``     info     without ``cutoff``: test interactions earlier than the
                                      last training interaction of anyone (a per-user split)
    ``test_in_train``        error    test (user, item) pairs in train (unless ``repeats``)
    ``unmasked_train_items`` warning  the user's training items in the run's lists (in the
                                      top ``k``, ranked as ``evaluate`` ranks them under
                                      ``ties``), not masked (unless ``repeats``)
    ``cold_users``           info     test users absent from train, with their share (error
                                      when no test user is in train)
    ``cold_items``           info     test interactions with items train never saw (error
                                      when none is)
    ``duplicates``           error    a (user, item) pair on several rows of test or run
                                      (info in train: repeated interactions)
    ``missing_users``        warning  test users without a list in the run (error: none has)
    ``short_lists``          warning  lists shorter than ``k``
    ``tied_scores``          warning  tied scores in the lists where the metrics depend on
                                      their order: each metric's mean as ``evaluate``
                                      reports it (``profile``, ``ties``) and with
                                      ``ties="average"`` (info: no metric moves, ``ties``
                                      is ``"average"``, or no test to measure it)
    ``id_types``             error    ids that are integers in one input and strings in
                                      another and match (almost) nothing (an integer 7
                                      matches ``"7"``: no finding)
    ======================== ======== ==========================================================

    Parameters
    ----------
    train : DataFrame, Qrels, Run, path or pair (users, items), default=None
        The training interactions: a frame (pandas, polars, Arrow) or a CSV,
        TSV or Parquet file with the ``user``, ``item`` and, for the temporal
        checks, ``time`` columns; a TREC qrels file; a Qrels; a pair of arrays.
    test : DataFrame, Qrels, dict, path, default=None
        The held-out interactions, in the same shapes (and ``{user: {item:
        grade}}``); its ``grade`` column holds the grades the metrics of
        ``tied_scores`` read. A frame or file without the column ``grade`` (the
        default name) of ``user``, ``item`` and time columns alone has grade 1 in
        every row (``grade=None``: every test frame and file); one with another
        column is refused, as :meth:`receval.Qrels.from_frame` refuses it.
    run : DataFrame, Run, dict, path, default=None
        The recommendations: a frame or a CSV, TSV or Parquet file with the
        ``user``, ``item`` and ``score`` columns, a TREC run file, a Run or
        ``{user: {item: score}}``.
    k : int, default=None
        The depth of the lists the evaluation reads: training items and ties
        count in the top ``k``, and lists shorter than ``k`` are reported.
        None: the whole lists, and no ``short_lists`` check.
    cutoff : number, datetime or str, default=None
        The global cut-off time of a temporal split: training interactions
        before it, test ones at or after it (``cutoff_leak``); needs ``train``
        and ``test``, both with times. Of the times' kind, as the cut-off of
        :func:`receval.split.temporal`: with a UTC offset or a time zone against
        tz-aware times (``'2024-01-01T00:00:00+01:00'``), without against naive
        ones.
    repeats : bool, default=False
        Declare repeat consumption: items may recur, so test pairs found in
        train and training items in the lists are expected (no
        ``test_in_train`` or ``unmasked_train_items`` check).
    metrics : str or list of str, default=None
        The metrics whose dependence on the order of tied scores is measured
        (default: ndcg, recall and mrr, at ``@k`` with a ``k``).
    profile : str, default=None
        The peer whose conventions the evaluation follows, as in
        :func:`receval.evaluate`: the metrics of ``tied_scores`` are computed
        with them, and its tie rule orders the lists (unless ``ties``).
    ties : {"trec", "average", "input", "id_ascending", "id_descending", "worst"}, default=None
        The order of tied scores, as in :func:`receval.evaluate` (None: the
        profile's, else ``"trec"``, evaluate's default): the lists are read in
        the order evaluate ranks them, so the training items in the top ``k``
        are those that take the places of the items to find there. Under
        ``"average"`` and ``"worst"`` (no one order of the tied items) an item
        is in the top ``k`` when its block of tied scores starts there.
    user, item, score, grade : str, default="user", "item", "score", "grade"
        The columns of frames and CSV/TSV/Parquet files (``grade=None``: grade 1
        in every row of test).
    time : str, default=None
        The time column of train and test (epoch numbers, datetimes or ISO
        8601 text); None: ``"timestamp"``, else ``"time"``, where an input has one
        The temporal checks run when both train and test have times.
    examples : int, default=5
        The most examples kept per finding.

    Returns
    -------
    report : AuditReport
        The findings, errors first; ``report.ok`` is False when one is an
        error, ``report.check()`` raises then; ``to_dict``, ``to_json`` and
        ``to_frame`` give them as data.

    Raises
    ------
    InvalidParameterError
        No input, or a bad ``k``, ``metrics``, ``profile``, ``ties``, ``repeats``
        or ``examples``; a ``cutoff`` without train and test, or without their
        times; a naive ``cutoff`` against tz-aware times, or an aware one against
        naive times.
    InputValidationError
        An unreadable input, a missing column, times of two kinds (numbers in
        train and datetimes in test, naive datetimes in one and tz-aware ones in
        the other), naive and tz-aware Python datetimes in one column; a
        ``cutoff`` against ISO 8601 text with a UTC offset on some times only.

    See Also
    --------
    evaluate : The metrics, with ``ties=`` and ``missing_users=``.

    Examples
    --------
    >>> import receval
    >>> train = {"u1": {"a": 1, "b": 1}, "u2": {"a": 1}}
    >>> test = {"u1": {"c": 1}, "u2": {"b": 1}, "u3": {"a": 1}}
    >>> run = {"u1": {"a": 0.9, "c": 0.5}, "u2": {"b": 0.7, "c": 0.7}, "u3": {"a": 0.2}}
    >>> report = receval.audit(train, test, run, k=2)
    >>> [(f.check, f.severity, f.count) for f in report.findings]
    [('unmasked_train_items', 'warning', 1), ('short_lists', 'warning', 1),
     ('tied_scores', 'warning', 1), ('cold_users', 'info', 1), ('cold_items', 'info', 1)]
    >>> report["unmasked_train_items"].examples
    [{'user': 'u1', 'item': 'a', 'score': 0.9, 'rank': 1}]
    >>> report.ok
    True
    """
    given = {"train": train, "test": test, "run": run}
    if all(x is None for x in given.values()):
        raise InvalidParameterError("audit: pass at least one of train, test and run. Got none.")
    if k is not None:
        k = v.check_number(k, "k", "audit", integer=True, low=1)
    if not isinstance(repeats, bool):
        raise InvalidParameterError(
            f"The 'repeats' parameter of audit must be a bool. Got {repeats!r} instead."
        )
    limit = v.check_number(examples, "examples", "audit", integer=True, low=0)
    names = _metrics(metrics, k)
    tie_rule = resolve_conventions(profile, "audit", ties=ties).ties
    columns = Columns(user, item, time, score, grade)
    inputs = {
        name: read_rows(data, name, columns) for name, data in given.items() if data is not None
    }
    rows = list(inputs.values())
    n_users, n_items = align(rows)
    tr, te, ru = inputs.get("train"), inputs.get("test"), inputs.get("run")
    findings: list[Finding] = [*id_type_findings(rows, limit)]
    checks = ["id_types", "duplicates"]
    for part in rows:
        findings += duplicate_findings(part, n_items, limit)
    if cutoff is not None:
        _check_cutoff_inputs(tr, te)
    if tr is not None and te is not None:
        if tr.times is not None and te.times is not None:
            findings += temporal_findings(tr, te, n_users, cutoff, limit)
            checks += ["temporal_leak", "cutoff_leak" if cutoff is not None else "timeline_overlap"]
        if not repeats:
            findings += test_in_train_findings(tr, te, n_items, limit)
            checks.append("test_in_train")
        findings += cold_findings(tr, te, n_users, n_items, limit)
        checks += ["cold_users", "cold_items"]
    if ru is not None:
        r = as_run(ru, n_items)
        if te is not None:
            findings += missing_user_findings(te, ru, n_users, limit)
            checks.append("missing_users")
        findings += run_findings(r, tr, k, repeats, tie_rule, limit)
        checks += (["unmasked_train_items"] if tr is not None and not repeats else []) + (
            ["short_lists"] if k is not None else []
        )
        qrels = as_qrels(te, n_items) if te is not None else None
        findings += tie_findings(r, qrels, names, k, (profile, ties), tie_rule, limit)
        checks.append("tied_scores")
    findings.sort(key=lambda f: SEVERITIES.index(f.severity))
    return AuditReport(
        findings, {name: _describe(part) for name, part in inputs.items()}, checks, k
    )


def _check_cutoff_inputs(train: Rows | None, test: Rows | None) -> None:
    """An error when ``cutoff`` cannot be checked: ``cutoff_leak`` reads the times of
    both train and test (a cut-off is never ignored)."""
    if train is None or test is None:
        missing = [name for name, part in (("train", train), ("test", test)) if part is None]
        raise InvalidParameterError(
            f"audit: cutoff needs train and test, with times. Got no {' and no '.join(missing)}; "
            f"pass {' and '.join(name + '=' for name in missing)}, or leave cutoff= out."
        )
    if train.times is None or test.times is None:
        got = "none" if train.times is None and test.times is None else "times in one only"
        raise InvalidParameterError(
            f"audit: cutoff needs times in train and test. Got {got}; name the time column "
            f"with time='<column>'."
        )


def _metrics(metrics: Any, k: int | None) -> list[str]:
    """The metric strings of the tie check, parsed now (a bad one fails before any read)."""
    from ..registry import ranking_spec

    if metrics is None:
        names = [m if k is None else f"{m}@{k}" for m in DEFAULT_AUDIT_METRICS]
    else:
        names = [metrics] if isinstance(metrics, str) else list(metrics)
    for name in names:
        ranking_spec(name, "audit")
    return names


def _describe(rows: Rows) -> dict[str, Any]:
    return {
        "rows": rows.n_rows,
        "users": rows.n_users,
        "items": len(rows.item_ids),
        "time": rows.time_column,
    }
