"""trec_eval 10.0, reproduced: its measures, its options and its output, byte for byte.

:func:`trec_eval` takes trec_eval's command line (``-q``, ``-c``, ``-n``, ``-l N``,
``-M N``, ``-J``, ``-N N``, ``-m measure[.params]`` repeated, ``-Z file``, ...)
and returns the text trec_eval prints: one line per measure value, the measure
name padded to 22 columns, a tab, the query id or ``all``, a tab, the value
(``%6.4f``, or an integer for the counts). Every trec_eval measure is an
ordinary receval metric (``P_10`` is ``precision@10``, ``iprec_at_recall_0.10`` is
``iprec(recall=0.1)``, ``gm_map`` is ``gm_map``), whose values
:func:`receval.evaluate` gives with the ``trec_eval`` profile, as ``compare``, the
streaming accumulators, ``scan`` and Spark do. With ``-R qrels`` the compiled core
computes them in one call (``trec_eval_table``: it reads both files, ranks each
query's documents and runs the kernel of ``evaluate`` on them, one kernel spec per
value, built here from the measure's row of :mod:`receval.registry.trec_eval`),
without NumPy: the command starts in milliseconds.

This module holds what is trec_eval's and not a metric's: the table of its
measures in its order with their default parameters, how ``-m`` names and
parameters select and name them, the nicknames (``official``, ``all_trec``,
``set``), and how values are printed (per query with ``-q``, then the summary;
z-scores with ``-Z``). Its command line and where it stops, with its exit
statuses, are in :mod:`receval.trec.options`.

Where trec_eval stops, :func:`trec_eval` raises a :class:`TrecEvalAbort` that
carries trec_eval's exit status at that point (listed under :func:`trec_eval`) and
what it printed before it stopped (``receval trec-eval`` prints both). The
message is receval's, naming the option or file line. Where trec_eval 10.0
crashes or stops on input receval can score (judgments that are all negative, a
query absent from the ``-Z`` file), receval prints the report: see the
documented differences (docs/conventions.md). ``yaap`` is not computed:
asking for it is an error that says so. Judgment groups (``-R qrels_jg``:
``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``) are read and evaluated by
:mod:`receval.trec.jg`, each (query, group) as one user of the ranking kernel,
with the kernel specs of ``-R qrels`` (:func:`kernel_specs`).
Preference judgments (``-R prefs``, ``-R qrels_prefs``) give the ``prefs_*``
measures, which are not receval metrics: :mod:`receval.trec.prefs` computes them
per query, and this module prints them as the others.
"""

from __future__ import annotations

import contextlib
import functools
import math
import operator
import os
from collections.abc import Iterator, Sequence
from typing import Any

from .._parameters import counted
from ..exceptions import (
    DEFAULT_MIN_MATCH,
    InputValidationError,
    InvalidParameterError,
    RecevalError,
)
from ..registry.trec_eval import (
    GEOMETRIC_FLOOR,
    GROUP_FIELDS,
    GROUP_MEASURES,
    MEASURES,
    NICKNAMES,
    PREFS_MEASURES,
    MeasureValue,
    TrecMeasure,
    atol,
    measure_values,
    split_list,
    trec_eval_metrics,
)
from .options import (
    FILE,
    NO_QUERY,
    QUERY,
    USAGE,
    ZSCORES,
    InputAbort,
    ParameterAbort,
    TrecEvalAbort,
    TrecEvalOptions,
    as_abort,
    parse_trec_eval_args,
    selected_measures,
)

__all__ = [
    "MEASURES",
    "NICKNAMES",
    "TrecEvalAbort",
    "TrecEvalOptions",
    "TrecMeasure",
    "evaluate_options",
    "kernel_specs",
    "parse_trec_eval_args",
    "trec_eval",
    "trec_eval_metrics",
]


# ------------------------------------------------------------------ z-scores
_MISSING_Z = -1000000.0


def _read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """``(query, measure) -> (mean, standard deviation)`` of a z-scores file."""
    out: dict[tuple[str, str], tuple[float, float]] = {}
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise InvalidParameterError(f"trec-eval -Z {path}: cannot be read: {exc}.") from None
    with fh:
        for number, line in enumerate(fh, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 4:
                raise InvalidParameterError(
                    f"{path}:{number}: expected 4 fields (query measure mean stddev), "
                    f"got {len(fields)}: {line.rstrip()!r}."
                )
            try:
                out[fields[0], fields[1]] = (float(fields[2]), float(fields[3]))
            except ValueError:
                raise InvalidParameterError(
                    f"{path}:{number}: the mean and standard deviation must be numbers. "
                    f"Got {fields[2]!r} and {fields[3]!r}."
                ) from None
    return out


def _zscore(
    table: dict[tuple[str, str], tuple[float, float]], qid: str, name: str, value: float
) -> float:
    found = table.get((qid, name))
    if found is None:
        return _MISSING_Z
    mean, std = found
    if std:
        return (value - mean) / std
    return 0.0 if value == mean else _MISSING_Z


def _real(x: float) -> str:
    """A value as trec_eval's ``%6.4f`` prints it (0/0 of C on x86 prints ``-nan``)."""
    return f"{'-nan':>6}" if math.isnan(x) else f"{x:6.4f}"


# ------------------------------------------------------------------ the values
class _Table:
    """What is printed, per query of the qrels (in byte order of the ids): whether
    the run holds the query, each value's column, the relstrings, and the run's tag
    and the qrels' grades above 0 (``num_rel`` with ``-c``); and the run's queries
    absent from the qrels, which trec_eval ignores (``run_only``)."""

    def __init__(
        self, queries: list[str], in_run: list[bool], columns: dict[str, list[float]],
        relstrings: list[str], runid: str, positive_grades: int, run_only: int,
    ) -> None:  # fmt: skip
        self.queries, self.in_run, self.columns = queries, in_run, columns
        self.relstrings, self.runid, self.positive_grades = relstrings, runid, positive_grades
        self.run_only = run_only
        # -R prefs: the query where the judgments contradict themselves, and why
        self.stop: tuple[int, InputValidationError] | None = None


#: The fix of a Parquet file given to trec-eval, which reads text files only.
_PARQUET_FIX = (
    "evaluate Parquet files with receval rank --qrels FILE --run FILE, or write the file as "
    "TREC text (trec-eval reads text files only)"
)


def _check_files(o: TrecEvalOptions) -> None:
    if o.rel_format not in ("qrels", "qrels_jg", "prefs", "qrels_prefs"):
        raise InvalidParameterError(
            f"trec-eval -R {o.rel_format}: unknown relevance format; use -R qrels, "
            f"-R qrels_jg, -R prefs or -R qrels_prefs."
        )
    if o.results_format != "trec_results":
        raise InvalidParameterError(
            f"trec-eval -T {o.results_format}: unknown results format; use -T trec_results."
        )
    if o.qrels == "-" and not os.path.exists("-"):
        # trec_eval reads the results from standard input, never the qrels (it opens
        # a file named -)
        raise InvalidParameterError(
            "trec-eval: expected the qrels file's path first, got '-'; only the run (the "
            "second file) can be read from standard input."
        )
    for path in (o.qrels, o.run):
        if path != "-" and not os.path.exists(path):
            raise InvalidParameterError(f"trec-eval: {path}: no such file.")


@contextlib.contextmanager
def _local_files(o: TrecEvalOptions) -> Iterator[tuple[str, str]]:
    """The qrels' and the run's paths: a temporary copy of standard input for ``-``
    (the run), and of a pipe (bash's ``<(...)``: its first bytes tell Parquet, which
    a pipe cannot show ahead of its reader, and a file that does not parse is read
    again for the message); the messages raised meanwhile name the copies
    ``<stdin>`` and the pipe as given, as the other commands do."""
    import shutil
    import sys
    import tempfile

    from ..data._open import is_stream

    given = {"qrels": o.qrels, "run": o.run}
    copied = [k for k, path in given.items() if path == "-" or is_stream(path)]
    if not copied:
        yield o.qrels, o.run
        return
    with tempfile.TemporaryDirectory() as directory:
        names, paths = {}, dict(given)
        for which in copied:
            paths[which] = os.path.join(directory, which)
            names[paths[which]] = "<stdin>" if given[which] == "-" else given[which]
            with open(paths[which], "wb") as fh:
                if given[which] == "-":
                    shutil.copyfileobj(sys.stdin.buffer, fh)
                else:
                    with open(given[which], "rb") as source:
                        shutil.copyfileobj(source, fh)
        try:
            yield paths["qrels"], paths["run"]
        except RecevalError as exc:
            kind = InputAbort if isinstance(exc, InputValidationError) else ParameterAbort
            status, output = getattr(exc, "status", FILE), getattr(exc, "output", "")
            text = str(exc)
            for path, name in names.items():
                text = text.replace(path, name)
            raise kind(text, status=status, output=output) from None


def _check_params(
    o: TrecEvalOptions, selected: list[tuple[TrecMeasure, str | None]], values: list[MeasureValue]
) -> None:
    """Parameters given on ``-m`` (and ``-N``) checked as metric strings: a level,
    real, persistence or gain out of its range is refused as ``evaluate`` refuses it
    (the defaults and cut-offs need no check), the message naming the option as
    given (``-m rbp.p=abc``) before the metric it reads as (``rbp(p=0)``)."""
    named = {m.name: g for m, g in selected if g is not None and m.params != "cuts"}
    given = [
        (f"-m {v.measure.name}.{named[v.measure.name]}", v.metric)
        for v in values
        if v.metric and v.measure.name in named
    ]
    if o.num_docs:
        given += [
            (f"-N {o.num_docs}", _with_num_docs(v.metric, o))
            for v in values
            if v.measure.name == "utility"
        ]
    if given:
        from ..registry import parse_metric

        for option, metric in given:
            try:
                parse_metric(metric)
            except InvalidParameterError as exc:
                raise InvalidParameterError(f"trec-eval {option}: {exc}") from None


def _with_num_docs(metric: str, o: TrecEvalOptions) -> str:
    """utility's metric string with the collection's size (``-N``)."""
    return metric[:-1] + f",n_docs={o.num_docs})"


def _core_table(
    o: TrecEvalOptions, selected: list[tuple[TrecMeasure, str | None]],
    values: list[MeasureValue], qrels: str, run: str,
) -> _Table:  # fmt: skip
    """The values of ``-R qrels``: the compiled core reads both files, ranks each
    query's documents and computes every value in one call, each as the ranking
    kernel's spec of its measure (:func:`kernel_specs`)."""
    from .._kernels import compiled
    from ..data._open import core_streams

    core = compiled()
    named = kernel_specs(o, values)
    specs = list(named.values())
    tabled = next((v.name for v in values if v.custom_gains), None)
    if tabled is not None:
        _check_table_grades(tabled, qrels)
    relstring = None
    if o.per_query and any(v.measure.printed == "relstring" for v in values):
        given = next(g for m, g in selected if m.name == "relstring")
        length = max(atol(split_list(given)[0]), 0) if given else 10
        relstring = (length, given is None, o.max_retrieved, o.judged_only)
    with core_streams(qrels, run) as streams:
        out = core.trec_eval_table(qrels, run, specs, relstring, streams)
    if isinstance(out, str):  # a file the core does not take as it is
        raise _refused(out, qrels, run)
    queries, in_run, columns, relstrings, tag, positive, matching, examples, run_only = out
    if specs:
        _warn_unmatched(matching, examples)
    computed = dict(zip(named, columns, strict=True))
    # trec_eval prints the tag's bytes as they are: those that are not UTF-8 kept as
    # surrogates, which the command writes back as the same bytes
    runid = "" if tag is None else tag.decode("utf-8", "surrogateescape")
    return _Table(queries, in_run, computed, relstrings, runid, positive, run_only)


def kernel_specs(o: TrecEvalOptions, values: Sequence[MeasureValue]) -> dict[str, Any]:
    """The ranking kernel's spec (``receval._core.RankingSpec``) of each value that is a
    receval metric, by its printed name, under trec_eval's options ``o``: for
    ``-R qrels`` (the compiled core's files) and judgment groups (``-R qrels_jg``,
    each group's judgments as a query's) alike.

    Each is its metric's kernel and parameters
    (:class:`~receval.registry.trec_eval.MeasureValue`) under trec_eval's
    conventions, those of :func:`receval.evaluate` with the ``trec_eval`` profile
    and :func:`evaluate_options`: a grade from ``-l`` on is relevant, gains count
    from grade 1 on (the grades are integers), tied scores by document id
    descending, a recall level's relevant documents rounded (10.0's rule), a query
    absent from the run evaluated as ``-c`` evaluates it (without ``-c`` the command
    stops there), the list cut at ``-M`` (None: the whole list; 0: no document, as
    trec_eval drops each result ranked below ``-M``, which ``evaluate``'s ``depth``
    cannot say) then to its judged documents with ``-J``, and utility's collection
    of ``-N`` documents.

    Examples
    --------
    >>> from receval.registry.trec_eval import measure_values, select_measures
    >>> from receval.trec.trec_eval import kernel_specs, parse_trec_eval_args
    >>> o = parse_trec_eval_args(["-M", "0", "-m", "P.5", "-m", "runid", "qrels", "run"])
    >>> values = [v for m, g in select_measures(o.measures) for v in measure_values(m, g)]
    >>> specs = kernel_specs(o, values)  # runid is not a metric
    >>> list(specs)
    ['P_5']
    >>> specs["P_5"]
    RankingSpec(..., k=5, threshold=1, gain_threshold=1, gain='linear', ties='id_descending')
    """
    from .._kernels import compiled

    core = compiled()
    specs = {}
    for v in values:
        if v.kind is None:
            continue
        args = (*v.args, float(o.num_docs)) if v.measure.name == "utility" else v.args
        specs[v.name] = core.RankingSpec(
            v.kind, k=v.k, threshold=float(o.level), gain_threshold=1.0, params=args,
            gain="custom" if v.custom_gains else "linear", ties="id_descending",
            missing_users="complete", empty_users="zero", depth=o.max_retrieved,
            judged_only=o.judged_only, recall_rounding="nearest",
        )  # fmt: skip
    return specs


def unmatched_due(matching: Sequence[int]) -> bool:
    """Whether :func:`receval.evaluate` warns about (or refuses) ids of the qrels and
    run that do not match, at the default ``min_match``; ``matching``: the qrels'
    queries, those in the run, the run's documents judged, the run's documents and
    the qrels' documents (as the core counts them).

    Examples
    --------
    >>> unmatched_due([3, 3, 40, 100, 200]), unmatched_due([3, 0, 0, 100, 200])
    (False, True)
    """
    n_users, users, items, n_items, n_judged = matching
    due = users == 0 or users / n_users < DEFAULT_MIN_MATCH
    if users:
        share = items / n_items if n_items else 1.0
        share_judged = items / n_judged if n_judged else 1.0
        due |= (items == 0 and n_items > 0) or max(share, share_judged) < DEFAULT_MIN_MATCH
    return bool(due)


def _warn_unmatched(matching: tuple[int, ...], examples: tuple[list[str], ...]) -> None:
    """The warnings of :func:`receval.evaluate` about ids of the qrels and run that do
    not match (``UnmatchedIdsWarning``), where they are due; ``matching``: the qrels'
    queries, those in the run, the run's documents judged, the run's documents and
    the qrels' documents; ``examples``: the smallest ids of each file's queries and
    documents (those :func:`receval.evaluate` names: :func:`~receval.data.seen.smallest_ids`)."""
    if not unmatched_due(matching):
        return
    n_users, users, items, n_items, n_judged = matching
    import numpy as np

    from ..ranking.checks import check_matching

    q_users, r_users, q_items, r_items = (np.array(x, dtype=object) for x in examples)
    shown = (q_users, r_users, q_items, r_items)
    check_matching(shown, n_users, users, (items, n_items, n_judged), DEFAULT_MIN_MATCH, True,
                   "evaluate")  # fmt: skip


def _check_table_grades(measure: str, qrels: str) -> None:
    """Raise unless the qrels' grades fit a gain table (``-m ndcg.1=0.5,2=3``), which,
    as trec_eval's, holds a level for each integer from 0 to the largest grade:
    grades below :data:`~receval.ranking.specs.TABLE_GRADES` (a grade of 1e12 asked
    the core for as many levels, for each query)."""
    from ..data._ranked import Qrels
    from ..ranking.specs import TABLE_GRADES

    grades = Qrels.from_trec(qrels).grades
    top = float(grades.max()) if len(grades) else 0.0
    if top >= TABLE_GRADES:
        raise InputValidationError(
            f"trec-eval: {qrels}: measure {measure} gains by a table with a level for each "
            f"integer from 0 to the largest grade, below {TABLE_GRADES:,.0f}. Got a grade of "
            f"{top:g}; map the grades to a smaller range."
        )


def _refused(which: str, qrels: str, run: str) -> InputValidationError:
    """The error of the file (``which``: ``"qrels"`` or ``"run"``) that the compiled
    core does not evaluate as it is: that of receval's reader of the file, which
    names file and line (a file that does not parse, has no line, or holds an id that
    is not UTF-8); else the file named."""
    from ..data._ranked import Qrels, Run

    if which == "qrels":
        Qrels.from_trec(qrels)
    else:
        Run.from_trec(run)
    return InputValidationError(f"trec-eval: {qrels if which == 'qrels' else run}: cannot be "
                                f"evaluated.")  # fmt: skip


def _python_table(o: TrecEvalOptions, values: list[MeasureValue], qrels: str, run: str) -> _Table:
    """The values of judgment groups (``-R qrels_jg``: :mod:`receval.trec.jg`) and
    preferences (``-R prefs``, ``-R qrels_prefs``: :mod:`receval.trec.prefs`)."""
    from ..data._ranked import Run

    q: Any
    if o.rel_format == "qrels_jg":
        from .jg import read_judgment_groups

        q = read_judgment_groups(qrels)
    else:
        from .prefs import read_prefs

        q = read_prefs(qrels, qrels=o.rel_format == "qrels_prefs")
    r = Run.from_trec(run)
    users = [str(u) for u in q.user_ids.tolist()]
    order = sorted(range(len(users)), key=lambda i: users[i].encode("utf-8"))
    queries = [users[i] for i in order]
    ranked = {str(u) for u in r.user_ids.tolist()}
    run_only = len(ranked - set(queries))
    t = _Table(queries, [u in ranked for u in queries], {}, [], r.name or "", 0, run_only)
    if o.rel_format == "qrels_jg":
        from .jg import evaluate_groups, id_matching

        specs = kernel_specs(o, values)
        if specs:
            _warn_unmatched(*id_matching(q, r))
        report = evaluate_groups(q, r, specs)
        for name, col in report.values.items():
            listed = col.tolist()
            t.columns[name] = [listed[i] for i in order]
        return t
    from .prefs import prefs_columns

    def columns(upto: int) -> dict[str, Any]:
        return prefs_columns(q, r, queries[:upto], depth=o.max_retrieved, source=qrels)

    try:
        by_name = columns(len(queries))
    except InputValidationError as exc:
        import bisect

        # judgments that contradict themselves in a query: trec_eval stops there.
        # The queries before the first such one are those of the longest prefix
        # that holds none (a prefix holding one raises, as every longer one does):
        # found by bisection, a log of the queries' count of evaluations
        stop = bisect.bisect_left(
            range(1, len(queries) + 1), True, key=lambda upto: _contradicts(columns, upto)
        )
        by_name, t.stop = columns(stop), (stop, exc)
    t.columns = {v.name: by_name[v.name].tolist() for v in values if v.name in PREFS_MEASURES}
    return t


def _contradicts(columns: Any, upto: int) -> bool:
    try:
        columns(upto)
    except InputValidationError:
        return True
    return False


def trec_eval(argv: Sequence[str]) -> str:
    """What trec_eval 10.0 prints for this command line (everything but ``-h`` and ``-v``).

    Parameters
    ----------
    argv : sequence of str
        trec_eval's arguments: options, then the qrels file and the run file
        (see :func:`parse_trec_eval_args`).

    Returns
    -------
    str
        The output, byte for byte trec_eval's.

    Raises
    ------
    TrecEvalAbort
        Where trec_eval stops, with its exit status (``status``) and what it prints
        before (``output``): also an ``InvalidParameterError`` for a bad option or
        an unknown measure (1), a measure receval does not compute (2), a query of
        the qrels absent from the run without ``-c`` (4; ``output`` holds the
        ``-q`` lines of the queries before it), ``utility`` given other than four
        coefficients (4, nothing printed), qrels that judge no query (7), a
        bad ``-Z`` file (255); an ``InputValidationError`` for an unreadable or
        malformed file, naming file and line (2).

    Notes
    -----
    With ``-R qrels`` (the default) the compiled core reads both files and computes
    every value in one call, without NumPy; judgment groups and preferences are
    read and evaluated by :mod:`receval.trec.jg` and :mod:`receval.trec.prefs`.

    Examples
    --------
    >>> import os, tempfile
    >>> from receval.trec.trec_eval import trec_eval
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "qrels"), "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> with open(os.path.join(d, "run"), "w") as f:
    ...     _ = f.write("q1 Q0 d2 1 0.9 sys\\nq1 Q0 d1 2 0.8 sys\\n")
    >>> print(trec_eval(["-m", "P.1,2", "-m", "map",
    ...                  os.path.join(d, "qrels"), os.path.join(d, "run")]), end="")
    map                   	all	0.5000
    P_1                   	all	0.0000
    P_2                   	all	0.5000
    """
    return trec_eval_output(argv)[0]


def trec_eval_output(argv: Sequence[str]) -> tuple[str, int]:
    """:func:`trec_eval`'s output, and the count of the run's queries absent from
    the qrels, which trec_eval ignores silently (``receval trec-eval`` notes them)."""
    o = parse_trec_eval_args(argv)
    if o.help or o.version:
        flag = "-v" if o.version else "-h"
        raise ParameterAbort(f"trec-eval {flag}: see `receval trec-eval {flag}`.", status=USAGE)
    selected = selected_measures(o.measures)
    values: list[MeasureValue] = []
    # utility's coefficients not four: trec_eval stops at the first query, not here;
    # four, one of them refused (inf), is receval's refusal of a bad input as any other
    uncounted: RecevalError | None = None
    for m, given in selected:
        try:
            values += measure_values(m, given)
        except RecevalError as exc:
            if m.name != "utility" or len(split_list(m.default if given is None else given)) == 4:
                raise as_abort(exc, FILE) from None  # trec_eval: "Cannot initialize measure"
            uncounted = exc
    try:
        _check_format(o.rel_format, [m.name for m, _ in selected])
    except RecevalError as exc:
        # trec_eval: "Can't calculate measure" at the first query, nothing printed
        raise as_abort(exc, QUERY) from None
    _check_params(o, selected, values)
    from ..data._open import check_not_parquet

    try:
        _check_files(o)
        with _local_files(o) as (qrels, run):
            for path in (qrels, run):
                check_not_parquet(path, "trec", fix=_PARQUET_FIX)
            if o.rel_format == "qrels":
                t = _core_table(o, selected, values, qrels, run)
            else:
                t = _python_table(o, values, qrels, run)
    except RecevalError as exc:
        raise as_abort(exc, FILE) from None
    try:
        zscores = _read_zscores(o.zscores) if o.zscores else None
    except RecevalError as exc:
        raise as_abort(exc, ZSCORES) from None
    if not t.queries:
        raise ParameterAbort("trec-eval: the qrels judge no query.", status=NO_QUERY)
    if uncounted is not None:
        # trec_eval: "calc_utility: improper number of coefficients", nothing printed
        raise as_abort(uncounted, QUERY)
    # trec_eval goes through the qrels queries in byte order; it stops at the first
    # query absent from the run without -c (status 4), or where preferences contradict
    # themselves
    missing = [] if o.complete else [j for j, there in enumerate(t.in_run) if not there]
    if missing and (t.stop is None or missing[0] < t.stop[0]):
        first = missing[0]
        raise ParameterAbort(
            f"trec-eval: query {t.queries[first]!r} of the qrels has no documents in the "
            f"run ({counted(len(missing), 'such query', 'such queries')}); pass -c to count them "
            f"as 0, or remove them "
            f"from the qrels.",
            status=QUERY,
            output=_text(_lines(o, values, t, zscores, first)[0]),
        )
    if t.stop is not None:
        stop, why = t.stop
        output = _text(_lines(o, values, t, zscores, stop)[0])
        raise InputAbort(str(why), status=QUERY, output=output)
    blocks, summary = _lines(o, values, t, zscores, len(t.queries))
    return _text([*blocks, *summary]), t.run_only


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _check_format(rel_format: str, names: list[str]) -> None:
    """Refuse the measures trec_eval cannot compute from this relevance format: from
    judgment groups (``-R qrels_jg``) or preferences (``-R prefs``, ``-R qrels_prefs``)
    only ``runid``, ``num_q`` and their own measures, from any other format none of
    those."""
    groups, prefs = rel_format == "qrels_jg", rel_format in ("prefs", "qrels_prefs")
    for name in names:
        if name in ("runid", "num_q"):
            continue
        if groups and name not in GROUP_MEASURES:
            raise InvalidParameterError(
                f"trec-eval -R qrels_jg: {name!r} is not computed from judgment groups; "
                f"trec_eval computes only runid, num_q, {', '.join(GROUP_MEASURES[:-1])} "
                f"and {GROUP_MEASURES[-1]} from them. Ask for those (e.g. -m qrels_jg), or "
                f"read the file with -R qrels."
            )
        if prefs and name not in PREFS_MEASURES:
            raise InvalidParameterError(
                f"trec-eval -R {rel_format}: {name!r} is not computed from preferences; "
                f"trec_eval computes only runid, num_q and the prefs_* measures from them. "
                f"Ask for those (e.g. -m all_prefs), or read the file with -R qrels."
            )
        if not groups and name in GROUP_MEASURES:
            raise InvalidParameterError(
                f"trec-eval -m {name}: it needs judgment groups; pass -R qrels_jg with a "
                f"qrels file of lines '{GROUP_FIELDS}'."
            )
        if not prefs and name in PREFS_MEASURES:
            raise InvalidParameterError(
                f"trec-eval -m {name}: it needs preference judgments (-R prefs or "
                f"-R qrels_prefs). Got -R {rel_format}."
            )


def evaluate_options(o: TrecEvalOptions, metrics: Sequence[str]) -> dict[str, Any]:
    """The conventions trec_eval's options ``o`` give :func:`receval.evaluate` (with
    ``profile="trec_eval"``) for ``metrics``: ``-c``, ``-l``, ``-M`` and ``-J``, and
    trec_eval 10.0's order of tied scores (doubles, then document id descending) and
    rounding of a recall level's relevant documents.

    trec_eval takes its options whatever the measures: each is passed only where one
    of ``metrics`` reads it.

    ``-M 0`` keeps no document of any query, which ``evaluate``'s ``depth`` cannot
    say (``depth=0`` keeps every item): it raises ``InvalidParameterError``. The
    command gives ``-M 0`` to the ranking kernel itself (``RankingSpec(depth=0)``),
    for qrels and judgment groups alike.

    Examples
    --------
    >>> from receval.trec.trec_eval import evaluate_options, parse_trec_eval_args
    >>> o = parse_trec_eval_args(["-c", "-l2", "qrels", "run"])
    >>> evaluate_options(o, ["precision@5"])["missing_users"]
    'complete'
    """
    if o.max_retrieved == 0:
        raise InvalidParameterError(
            "trec-eval -M 0: trec_eval keeps no document of any query, which evaluate's "
            "depth cannot say (depth=0 keeps every item); evaluate a run whose documents "
            "are all unjudged with judged_only=True, which leaves every list empty."
        )
    options: dict[str, Any] = {
        "ties": "id_descending", "rel_threshold": o.level,
        "missing_users": "complete" if o.complete else "skip", "depth": o.max_retrieved or 0,
        "judged_only": o.judged_only, "recall_rounding": "nearest",
    }  # fmt: skip
    from ..registry import parse_metric

    read = {c for m in metrics for c in parse_metric(m).info.conventions}
    return {k: v for k, v in options.items() if k in read}


def _lines(
    o: TrecEvalOptions,
    values: list[MeasureValue],
    t: _Table,
    zscores: dict[tuple[str, str], tuple[float, float]] | None,
    n: int,
) -> tuple[list[str], list[str]]:
    """The lines trec_eval prints for the first ``n`` queries of ``t``: those of each
    query (``-q``), and the summary when they are all the queries."""
    evaluated = t.queries[:n]
    prefix = "Z" if zscores is not None else ""
    per_user: dict[str, list[float]] = {}
    for v in values:
        if v.name not in t.columns:  # runid, relstring; num_q and runid with preferences
            continue
        col = t.columns[v.name][:n]
        if zscores is not None:
            if v.measure.name.startswith("gm_"):
                # trec_eval keeps log(max(value, GEOMETRIC_FLOOR)) per query, then exp of the mean
                col = [math.log(max(x, GEOMETRIC_FLOOR)) for x in col]
            col = [_zscore(zscores, qid, v.name, x) for qid, x in zip(evaluated, col, strict=True)]
        per_user[v.name] = col
    blocks: list[str] = []
    if o.per_query:
        for j, qid in enumerate(evaluated):
            for v in values:
                kind = v.measure.printed
                if kind in ("summary", "runid") or (kind != "relstring" and v.name not in per_user):
                    continue
                if kind == "relstring":
                    blocks.append(f"{v.name:<22}\t{qid}\t'{t.relstrings[j]}'")
                elif kind == "count" and zscores is None:
                    blocks.append(f"{v.name:<22}\t{qid}\t{int(per_user[v.name][j])}")
                else:
                    blocks.append(f"{prefix}{v.name:<22}\t{qid}\t{_real(per_user[v.name][j])}")
    summary: list[str] = []
    if o.summary and n == len(t.queries):
        for v in values:
            kind, name = v.measure.printed, v.measure.name
            if kind == "runid":
                summary.append(f"{'runid':<22}\tall\t{t.runid}")
                continue
            if kind == "relstring" or (name != "num_q" and v.name not in per_user):
                continue
            if name == "num_q":
                total = float(len(evaluated))
            else:
                # trec_eval adds the queries' values one by one in double precision, in
                # query order, then divides (sums the counts; gm_*: exp of the mean log)
                col = per_user[v.name]
                if zscores is None and name.startswith("gm_"):
                    col = [math.log(max(x, GEOMETRIC_FLOOR)) for x in col]
                # left to right, as trec_eval's loop (sum() compensates)
                total = functools.reduce(operator.add, col)
                if kind != "count":
                    total /= len(evaluated)
                if name.startswith("gm_"):
                    total = math.exp(total)
                if name == "num_rel" and o.complete:
                    # trec_eval's num_rel with -c counts the qrels' grades above 0,
                    # with -Z too (in place of the z-scores' mean)
                    total = float(t.positive_grades)
            if zscores is None and (kind == "count" or name == "num_q"):
                summary.append(f"{v.name:<22}\tall\t{int(total)}")
            else:
                summary.append(f"{prefix}{v.name:<22}\tall\t{_real(total)}")
    return blocks, summary
