"""trec_eval 10.0, reproduced: its measures, its options and its output, byte for byte.

:func:`trec_eval` takes trec_eval's command line (``-q``, ``-c``, ``-n``, ``-l N``,
``-M N``, ``-J``, ``-N N``, ``-m measure[.params]`` repeated, ``-Z file``, ...)
and returns the text trec_eval prints: one line per measure value, the measure
name padded to 22 columns, a tab, the query id or ``all``, a tab, the value
(``%6.4f``, or an integer for the counts). The values are computed by
:func:`receval.evaluate` with the ``trec_eval`` profile: every trec_eval measure
is an ordinary receval metric (``P_10`` is ``precision@10``, ``iprec_at_recall_0.10``
is ``iprec(recall=0.1)``, ``gm_map`` is ``gm_map``), so the same numbers come from
``evaluate``, ``compare``, the streaming accumulators, ``scan`` and Spark.

This module holds what is trec_eval's and not a metric's: the table of its
measures in its order with their default parameters, how ``-m`` names and
parameters select and name them, the nicknames (``official``, ``all_trec``,
``set``), and how values are printed (per query with ``-q``, then the summary;
z-scores with ``-Z``).

Where trec_eval stops, :func:`trec_eval` raises a :class:`TrecEvalAbort` that
carries trec_eval's exit status at that point (listed under :func:`trec_eval`) and
what it printed before it stopped (``receval trec-eval`` prints both). The
message is receval's, naming the option or file line. Where trec_eval 10.0
crashes or stops on input receval can score (judgments that are all negative, a
query absent from the ``-Z`` file), receval prints the report: see the
documented differences (docs/conventions.md). ``yaap`` is not computed:
asking for it is an error that says so. Judgment groups (``-R qrels_jg``:
``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``) are read and evaluated by
:mod:`receval.trec.jg`, each (query, group) as one user of ``evaluate``.
Preference judgments (``-R prefs``, ``-R qrels_prefs``) give the ``prefs_*``
measures, which are not receval metrics: :mod:`receval.trec.prefs` computes them
per query, and this module prints them as the others.
"""

from __future__ import annotations

import getopt
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..exceptions import InputValidationError, InvalidParameterError, RecevalError
from ..registry import parse_metric
from ..registry.trec_eval import (
    MEASURES,
    NICKNAMES,
    PREFS_MEASURES,
    UNSUPPORTED,
    MeasureValue,
    TrecMeasure,
    atol,
    measure_values,
    select_measures,
    split_list,
    trec_eval_metrics,
)

if TYPE_CHECKING:  # pragma: no cover - preference judgments load on first use
    from .prefs import Preferences

__all__ = [
    "MEASURES",
    "NICKNAMES",
    "TrecEvalAbort",
    "TrecEvalOptions",
    "TrecMeasure",
    "evaluate_options",
    "parse_trec_eval_args",
    "trec_eval",
    "trec_eval_metrics",
]


# ------------------------------------------------------------------ where trec_eval stops
class TrecEvalAbort(RecevalError):
    """trec_eval stops here: ``status`` is trec_eval 10.0's exit status at this point
    and ``output`` what it prints on stdout before it stops.

    The errors :func:`trec_eval` raises are all of this class, and also
    :class:`~receval.exceptions.InvalidParameterError` (an option, a measure, a
    query missing from the run) or :class:`~receval.exceptions.InputValidationError`
    (a file), as the rest of receval.

    Examples
    --------
    >>> from receval.trec.trec_eval import TrecEvalAbort, parse_trec_eval_args
    >>> try:
    ...     parse_trec_eval_args(["-x", "qrels", "run"])
    ... except TrecEvalAbort as exc:
    ...     print(exc.status)
    1
    """

    def __init__(self, message: str, *, status: int, output: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.output = output


class _ParameterAbort(TrecEvalAbort, InvalidParameterError):
    """A bad option, measure or query, where trec_eval stops."""


class _InputAbort(TrecEvalAbort, InputValidationError):
    """A file trec_eval cannot read."""


def _abort(exc: RecevalError, status: int, output: str = "") -> TrecEvalAbort:
    """``exc`` as a :class:`TrecEvalAbort` of the same kind, with trec_eval's status."""
    if isinstance(exc, TrecEvalAbort):
        return exc
    kind = _InputAbort if isinstance(exc, InputValidationError) else _ParameterAbort
    return kind(str(exc), status=status, output=output)


# trec_eval 10.0's exit statuses (trec_eval.c)
_USAGE = 1  # an unknown option, not two files, an illegal -m measure
_FILE = 2  # "Quit in file": a qrels or run file not read; an illegal -R or -T format
_QUERY = 4  # "result qid ... not found": a qrels query absent from the run, without -c
_NO_QUERY = 7  # "No queries with both results and relevance info"
_ZSCORES = 255  # a -Z file not read: main returns UNDEF (-1)


# ------------------------------------------------------------------ options
@dataclass
class TrecEvalOptions:
    """trec_eval's command line, parsed (see :func:`parse_trec_eval_args`)."""

    qrels: str = ""
    run: str = ""
    per_query: bool = False  # -q
    complete: bool = False  # -c
    summary: bool = True  # -n clears it
    level: int = 1  # -l
    judged_only: bool = False  # -J
    max_retrieved: int = 0  # -M (0: every document)
    num_docs: int = 0  # -N
    measures: list[str] = field(default_factory=list)  # -m, as given
    zscores: str | None = None  # -Z
    rel_format: str = "qrels"  # -R
    results_format: str = "trec_results"  # -T
    help: bool = False  # -h


_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = [
    "help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted",
    "level_for_rel=", "nosummary", "Debug_level=", "Judged_docs_only", "Number_docs_in_coll=",
    "Max_retrieved_per_topic=", "Rel_info_format=", "Results_format=",
    "Output_old_results_format", "Zscore=",
]  # fmt: skip


#: The short option of each long one.
_SHORT_OF = {"--" + n.rstrip("="): f"-{c}" for n, c in zip(_LONG, "hvqmclnDJNMRToZ", strict=True)}
#: The field each option sets, and its value: int or str (the option's), or the
#: constant; -D (debug level) and -o (obsolete in trec_eval 10.0) change nothing printed
_SETS: dict[str, tuple[str, Any]] = {
    "-h": ("help", True), "-v": ("help", True), "-q": ("per_query", True),
    "-c": ("complete", True), "-n": ("summary", False), "-J": ("judged_only", True),
    "-l": ("level", int), "-N": ("num_docs", int), "-M": ("max_retrieved", int),
    "-R": ("rel_format", str), "-T": ("results_format", str), "-Z": ("zscores", str),
}  # fmt: skip


def _int_option(flag: str, value: str) -> int:
    """An integer option value, strictly (trec_eval's ``atol`` would read ``x`` as 0)."""
    try:
        return int(value)
    except ValueError:
        raise _ParameterAbort(
            f"trec-eval {flag}: expected an integer, got {value!r}.", status=_USAGE
        ) from None


def parse_trec_eval_args(argv: Sequence[str]) -> TrecEvalOptions:
    """trec_eval's command line as :class:`TrecEvalOptions`.

    Options may follow the files and take their values attached (``-M100``,
    ``-mP.5,10``) or separate (``-M 100``), as in trec_eval (GNU getopt).

    Parameters
    ----------
    argv : sequence of str
        The arguments after the command name: options, then ``qrels run``.

    Returns
    -------
    TrecEvalOptions

    Raises
    ------
    TrecEvalAbort
        An unknown option, a missing value or file, a non-integer value (also an
        ``InvalidParameterError``; status 1, as trec_eval).

    Examples
    --------
    >>> from receval.trec.trec_eval import parse_trec_eval_args
    >>> o = parse_trec_eval_args(["-q", "-M100", "-m", "P.5,10", "qrels", "run"])
    >>> o.per_query, o.max_retrieved, o.measures, o.qrels, o.run
    (True, 100, ['P.5,10'], 'qrels', 'run')
    """
    try:
        opts, files = getopt.gnu_getopt(list(argv), _SHORT, _LONG)
    except getopt.GetoptError as exc:
        raise _ParameterAbort(
            f"trec-eval: {exc.msg}. Options: -q -c -n -J -l N -M N -N N -m measure[.params] "
            f"-R format -T format -Z file -h; then the qrels file and the run file.",
            status=_USAGE,
        ) from None
    o = TrecEvalOptions()
    for flag, value in opts:
        short = _SHORT_OF.get(flag, flag)
        if short == "-m":
            o.measures.append(value)
        elif short in _SETS:
            name, kind = _SETS[short]
            setting = _int_option(flag, value) if kind is int else value if kind is str else kind
            setattr(o, name, setting)
            if o.max_retrieved < 0:
                raise _ParameterAbort(
                    f"trec-eval {flag}: expected a number of documents >= 0, got {value!r}.",
                    status=_USAGE,
                )
    if o.help:
        return o
    if len(files) != 2:
        raise _ParameterAbort(
            f"trec-eval: expected two files, the qrels then the run ('-' for standard input). "
            f"Got {len(files)}: {files!r}.",
            status=_USAGE,
        )
    o.qrels, o.run = files
    return o


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


# ------------------------------------------------------------------ relstring
def _relstrings(
    q: Any, r: Any, users: list[Any], length: int, bare: bool, o: TrecEvalOptions
) -> list[str]:
    """trec_eval's ``relstring`` of each user: one character per document of the top
    ``length`` (its grade 0-9, ``>`` above 9, ``-`` absent from the qrels, ``.`` a
    negative grade), in trec_eval's order, after ``-M`` and ``-J``."""
    judged = {
        u: dict(zip(q.item_ids[q.items[a:b]].tolist(), q.grades[a:b].tolist(), strict=True))
        for u, a, b in zip(q.user_ids.tolist(), q.offsets[:-1], q.offsets[1:], strict=True)
    }
    run_user = {u: i for i, u in enumerate(r.user_ids.tolist())}
    keys = r.trec_keys
    out = []
    for u in users:
        i = run_user.get(u)
        if i is None:
            # -c: trec_eval ranks one document absent from the qrels for the query, and
            # clears the string only under the bare name relstring
            out.append("" if bare or o.judged_only else "-"[:length])
            continue
        a, b = int(r.offsets[i]), int(r.offsets[i + 1])
        items = r.items[a:b]
        order = np.lexsort((-keys[items], -r.scores[a:b]))  # trec_eval 10.0: doubles
        ids = r.item_ids[items[order]].tolist()
        if o.max_retrieved:
            ids = ids[: o.max_retrieved]
        grades = judged.get(u, {})
        if o.judged_only:
            ids = [d for d in ids if grades.get(d, -1) >= 0]
        out.append("".join(_relchar(grades.get(d)) for d in ids[:length]))
    return out


def _relchar(grade: int | None) -> str:
    """A document's character in a relstring."""
    if grade is None:
        return "-"
    return "." if grade < 0 else ">" if grade > 9 else str(int(grade))


# ------------------------------------------------------------------ the run
def _read(o: TrecEvalOptions) -> tuple[Any, Any]:
    from ..data._ranked import Qrels, Run
    from .jg import JudgmentGroups, read_judgment_groups

    if o.rel_format not in ("qrels", "qrels_jg", "prefs", "qrels_prefs"):
        raise InvalidParameterError(
            f"trec-eval -R {o.rel_format}: unknown relevance format; use -R qrels, "
            f"-R qrels_jg, -R prefs or -R qrels_prefs."
        )
    if o.results_format != "trec_results":
        raise InvalidParameterError(
            f"trec-eval -T {o.results_format}: unknown results format; use -T trec_results."
        )
    for path in (o.qrels, o.run):
        if path != "-" and not os.path.exists(path):
            raise InvalidParameterError(f"trec-eval: {path}: no such file.")
    q: JudgmentGroups | Preferences | Qrels
    if o.rel_format == "qrels_jg":
        q = read_judgment_groups(o.qrels)
    elif o.rel_format in ("prefs", "qrels_prefs"):
        from .prefs import read_prefs  # preference judgments only

        q = read_prefs(o.qrels, qrels=o.rel_format == "qrels_prefs")
    else:
        q = Qrels.from_file(o.qrels, file_format="trec")
    if o.run != "-":
        return q, Run.from_file(o.run, file_format="trec")
    # the run from standard input, through a temporary file (the reader maps files)
    import shutil
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "run")
        with open(path, "wb") as fh:
            shutil.copyfileobj(sys.stdin.buffer, fh)
        return q, Run.from_file(path, file_format="trec")


def trec_eval(argv: Sequence[str]) -> str:
    """What trec_eval 10.0 prints for this command line (everything but ``-h``).

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
        ``-q`` lines of the queries before it), qrels that judge no query (7), a
        bad ``-Z`` file (255); an ``InputValidationError`` for an unreadable or
        malformed file, naming file and line (2).

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
    o = parse_trec_eval_args(argv)
    if o.help:
        raise _ParameterAbort("trec-eval -h: see `receval trec-eval -h`.", status=_USAGE)
    try:
        selected = select_measures(o.measures)
    except InvalidParameterError as exc:
        # trec_eval rejects an unknown measure (status 1); one it computes and receval
        # does not (yaap) is receval's refusal, a bad input as any other (2)
        names = {m.partition(".")[0] for m in o.measures}
        names |= {n for m in names for n in NICKNAMES.get(m, ())}
        raise _abort(exc, _FILE if names & set(UNSUPPORTED) else _USAGE) from None
    try:
        values = [v for m, given in selected for v in measure_values(m, given)]
    except RecevalError as exc:
        raise _abort(exc, _FILE) from None  # trec_eval: "Cannot initialize measure"
    try:
        _check_format(o.rel_format, [m.name for m, _ in selected])
    except RecevalError as exc:
        # trec_eval: "Can't calculate measure" at the first query, nothing printed
        raise _abort(exc, _QUERY) from None
    try:
        q, r = _read(o)
    except RecevalError as exc:
        raise _abort(exc, _FILE) from None
    try:
        zscores = _read_zscores(o.zscores) if o.zscores else None
    except RecevalError as exc:
        raise _abort(exc, _ZSCORES) from None
    users = q.user_ids.tolist()
    if not users:
        raise _ParameterAbort("trec-eval: the qrels judge no query.", status=_NO_QUERY)
    # trec_eval goes through the qrels queries in byte order
    keys = [str(u).encode("utf-8") for u in users]
    order = sorted(range(len(users)), key=keys.__getitem__)
    missing = set() if o.complete else set(users) - set(r.user_ids.tolist())
    if missing:
        # trec_eval stops at the first query absent from the run (status 4)
        first = next(j for j, i in enumerate(order) if users[i] in missing)
        raise _ParameterAbort(
            f"trec-eval: query {users[order[first]]!r} of the qrels has no documents in the "
            f"run ({len(missing)} such queries); pass -c to count them as 0, or remove them "
            f"from the qrels.",
            status=_QUERY,
            output=_before(o, selected, values, q, r, order[:first], zscores),
        )
    try:
        blocks, summary = _lines(o, selected, values, q, r, order, zscores)
    except InputValidationError as exc:
        if o.rel_format not in ("prefs", "qrels_prefs"):
            raise
        # judgments that contradict themselves in a query: trec_eval stops there
        from .prefs import prefs_columns

        first = 0
        for first, i in enumerate(order):  # noqa: B007 - the query where it stops
            try:
                prefs_columns(q, r, [str(users[i])], depth=o.max_retrieved, source=o.qrels)
            except InputValidationError:
                break
        output = _before(o, selected, values, q, r, order[:first], zscores)
        raise _InputAbort(str(exc), status=_QUERY, output=output) from None
    return "".join(line + "\n" for line in [*(x for b in blocks for x in b), *summary])


def _check_format(rel_format: str, names: list[str]) -> None:
    """Refuse the measures trec_eval cannot compute from this relevance format: from
    judgment groups (``-R qrels_jg``) or preferences (``-R prefs``, ``-R qrels_prefs``)
    only ``runid``, ``num_q`` and their own measures, from any other format none of
    those."""
    from .jg import GROUP_FIELDS, GROUP_MEASURES

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


def _before(
    o: TrecEvalOptions,
    selected: list[tuple[TrecMeasure, str | None]],
    values: list[MeasureValue],
    q: Any,
    r: Any,
    order: list[int],
    zscores: dict[tuple[str, str], tuple[float, float]] | None,
) -> str:
    """What trec_eval prints before it stops: the ``-q`` lines of the queries of
    ``order``, those it went through (computed as with ``-c``, which changes no
    query's own lines)."""
    if not o.per_query or not order:
        return ""
    blocks, _ = _lines(replace(o, complete=True), selected, values, q, r, order, zscores)
    return "".join(line + "\n" for block in blocks for line in block)


def evaluate_options(o: TrecEvalOptions, metrics: Sequence[str]) -> dict[str, Any]:
    """The conventions trec_eval's options ``o`` give :func:`receval.evaluate` (with
    ``profile="trec_eval"``) for ``metrics``: ``-c``, ``-l``, ``-M`` and ``-J``, and
    trec_eval 10.0's order of tied scores (doubles, then document id descending).

    trec_eval takes its options whatever the measures: each is passed only where one
    of ``metrics`` reads it.

    Examples
    --------
    >>> from receval.trec.trec_eval import evaluate_options, parse_trec_eval_args
    >>> o = parse_trec_eval_args(["-c", "-l2", "qrels", "run"])
    >>> evaluate_options(o, ["precision@5"])["missing_users"]
    'complete'
    """
    options: dict[str, Any] = {
        "ties": "id_descending", "rel_threshold": o.level,
        "missing_users": "complete" if o.complete else "skip", "depth": o.max_retrieved,
        "judged_only": o.judged_only,
    }  # fmt: skip
    read = {c for m in metrics for c in parse_metric(m).info.conventions}
    return {k: v for k, v in options.items() if k in read}


def _lines(
    o: TrecEvalOptions,
    selected: list[tuple[TrecMeasure, str | None]],
    values: list[MeasureValue],
    q: Any,
    r: Any,
    order: list[int],
    zscores: dict[tuple[str, str], tuple[float, float]] | None,
) -> tuple[list[list[str]], list[str]]:
    """The lines trec_eval prints: those of each query (``-q``), in ``order``, and the
    summary."""
    from ..ranking.evaluation import evaluate
    from .jg import evaluate_groups

    prefs = o.rel_format in ("prefs", "qrels_prefs")
    if o.num_docs:
        # -N: the collection's size, in utility's count of non-relevant items not retrieved
        values = [
            MeasureValue(v.measure, v.name, v.metric[:-1] + f",n_docs={o.num_docs})")
            if v.measure.name == "utility"
            else v
            for v in values
        ]
    metrics = [] if prefs else list(dict.fromkeys(v.metric for v in values if v.metric))
    report = None
    if metrics:
        score = evaluate_groups if o.rel_format == "qrels_jg" else evaluate
        report = score(
            q, r, metrics, profile="trec_eval", **evaluate_options(o, metrics),
            allow_unmatched=True,
        )  # fmt: skip
    users = q.user_ids.tolist()
    evaluated = [str(users[i]) for i in order]
    index = np.asarray(order, dtype=np.intp)  # once: a list index is converted at each use
    prefix = "Z" if zscores is not None else ""
    per_user: dict[str, np.ndarray] = {}
    if prefs:
        from .prefs import prefs_columns

        by_name = prefs_columns(q, r, evaluated, depth=o.max_retrieved, source=o.qrels)
    for v in values:
        if prefs and v.measure.name in PREFS_MEASURES:
            col = by_name[v.measure.name]
        elif not v.metric or prefs:  # with preferences: runid and num_q
            continue
        else:
            col = np.asarray(report.values[v.metric], dtype=np.float64)[index]  # type: ignore[union-attr]
        if zscores is not None:
            if v.measure.name.startswith("gm_"):
                # trec_eval keeps log(max(value, 1e-5)) per query, then exp of the mean
                col = np.log(np.maximum(col, 1e-5))
            col = np.array(
                [
                    _zscore(zscores, qid, v.name, x)
                    for qid, x in zip(evaluated, col.tolist(), strict=True)
                ]
            )
        per_user[v.name] = col
    relstrings: list[str] = []
    if o.per_query and any(v.measure.printed == "relstring" for v in values):
        given = next(g for m, g in selected if m.name == "relstring")
        length = atol(split_list(given)[0]) if given else 10
        relstrings = _relstrings(q, r, [users[i] for i in order], length, given is None, o)
    blocks: list[list[str]] = []
    if o.per_query:
        for j, qid in enumerate(evaluated):
            lines: list[str] = []
            blocks.append(lines)
            for v in values:
                kind = v.measure.printed
                if kind in ("summary", "runid"):
                    continue
                if kind == "relstring":
                    lines.append(f"{v.name:<22}\t{qid}\t'{relstrings[j]}'")
                elif kind == "count" and zscores is None:
                    lines.append(f"{v.name:<22}\t{qid}\t{int(per_user[v.name][j])}")
                else:
                    lines.append(f"{prefix}{v.name:<22}\t{qid}\t{_real(per_user[v.name][j])}")
    summary: list[str] = []
    if o.summary:
        for v in values:
            kind, name = v.measure.printed, v.measure.name
            if kind == "runid":
                summary.append(f"{'runid':<22}\tall\t{r.name or ''}")
                continue
            if kind == "relstring":
                continue
            if name == "num_q":
                total = float(len(evaluated))
            else:
                # trec_eval adds the queries' values one by one in double precision, in
                # query order, then divides (sums the counts; gm_*: exp of the mean log)
                col = per_user[v.name]
                if zscores is None and name.startswith("gm_"):
                    col = np.array([math.log(max(x, 1e-5)) for x in col.tolist()])
                # cumsum adds left to right, as trec_eval's loop (np.sum is pairwise)
                total = float(np.cumsum(col)[-1])
                if kind != "count":
                    total /= len(evaluated)
                if name.startswith("gm_"):
                    total = math.exp(total)
                if name == "num_rel" and o.complete and zscores is None:
                    # trec_eval's num_rel with -c counts the qrels' grades above 0
                    total = float((np.asarray(q.grades) > 0).sum())
            if zscores is None and (kind == "count" or name == "num_q"):
                summary.append(f"{v.name:<22}\tall\t{int(total)}")
            else:
                summary.append(f"{prefix}{v.name:<22}\tall\t{_real(total)}")
    return blocks, summary
