"""trec_eval's command line (:class:`TrecEvalOptions`, read by
:func:`parse_trec_eval_args`) and where trec_eval stops (:class:`TrecEvalAbort`,
with trec_eval 10.0's exit status), for :mod:`receval.trec.trec_eval`.
"""

from __future__ import annotations

import contextlib
import getopt
from collections.abc import Sequence
from typing import Any

from ..exceptions import InputValidationError, InvalidParameterError, RecevalError
from ..registry.trec_eval import NICKNAMES, UNSUPPORTED, TrecMeasure, select_measures

__all__ = [
    "FILE",
    "NO_QUERY",
    "QUERY",
    "USAGE",
    "ZSCORES",
    "InputAbort",
    "ParameterAbort",
    "TrecEvalAbort",
    "TrecEvalOptions",
    "as_abort",
    "parse_trec_eval_args",
    "selected_measures",
]


# ------------------------------------------------------------------ where trec_eval stops
class TrecEvalAbort(RecevalError):
    """trec_eval stops here: ``status`` is trec_eval 10.0's exit status at this point
    and ``output`` what it prints on stdout before it stops.

    The errors :func:`~receval.trec.trec_eval.trec_eval` raises are all of this
    class, and also :class:`~receval.exceptions.InvalidParameterError` (an option, a
    measure, a query missing from the run) or
    :class:`~receval.exceptions.InputValidationError` (a file), as the rest of
    receval.

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


class ParameterAbort(TrecEvalAbort, InvalidParameterError):
    """A bad option, measure or query, where trec_eval stops."""


class InputAbort(TrecEvalAbort, InputValidationError):
    """A file trec_eval cannot read."""


def as_abort(exc: RecevalError, status: int, output: str = "") -> TrecEvalAbort:
    """``exc`` as a :class:`TrecEvalAbort` of the same kind, with trec_eval's status."""
    if isinstance(exc, TrecEvalAbort):
        return exc
    kind = InputAbort if isinstance(exc, InputValidationError) else ParameterAbort
    return kind(str(exc), status=status, output=output)


# trec_eval 10.0's exit statuses (trec_eval.c)
USAGE = 1  # an unknown option, not two files, an illegal -m measure
FILE = 2  # "Quit in file": a qrels or run file not read; an illegal -R or -T format
QUERY = 4  # "result qid ... not found": a qrels query absent from the run, without -c
NO_QUERY = 7  # "No queries with both results and relevance info"
ZSCORES = 255  # a -Z file not read: main returns UNDEF (-1)


# ------------------------------------------------------------------ options
class TrecEvalOptions:
    """trec_eval's command line, parsed (see :func:`parse_trec_eval_args`)."""

    def __init__(self) -> None:
        self.qrels = ""
        self.run = ""
        self.per_query = False  # -q
        self.complete = False  # -c
        self.summary = True  # -n clears it
        self.level = 1  # -l
        self.judged_only = False  # -J
        self.max_retrieved: int | None = None  # -M (None: every document; 0: none)
        self.num_docs = 0  # -N
        self.measures: list[str] = []  # -m, as given
        self.zscores: str | None = None  # -Z
        self.rel_format = "qrels"  # -R
        self.results_format = "trec_results"  # -T
        self.help = False  # -h
        self.version = False  # -v: trec_eval prints its version as it reads the option


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
    "-h": ("help", True), "-v": ("version", True), "-q": ("per_query", True),
    "-c": ("complete", True), "-n": ("summary", False), "-J": ("judged_only", True),
    "-l": ("level", int), "-N": ("num_docs", int), "-M": ("max_retrieved", int),
    "-R": ("rel_format", str), "-T": ("results_format", str), "-Z": ("zscores", str),
}  # fmt: skip


def _int_option(flag: str, value: str) -> int:
    """An integer option value, strictly (trec_eval's ``atol`` would read ``x`` as 0)."""
    try:
        return int(value)
    except ValueError:
        raise ParameterAbort(
            f"trec-eval {flag}: expected an integer, got {value!r}.", status=USAGE
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
        opts, files = _read_before(argv), []
        if not any(_SHORT_OF.get(flag, flag) == "-v" for flag, _ in opts):
            raise ParameterAbort(
                f"trec-eval: {exc.msg}. Options: -q -c -n -J -l N -M N -N N "
                f"-m measure[.params] -R format -T format -Z file -h -v; then the qrels "
                f"file and the run file.",
                status=USAGE,
            ) from None
        # trec_eval reads its options in order: it stops at -v, before the one refused
    o = TrecEvalOptions()
    for flag, value in opts:
        short = _SHORT_OF.get(flag, flag)
        if short == "-m":
            o.measures.append(value)
        elif short in _SETS:
            name, kind = _SETS[short]
            setting = _int_option(flag, value) if kind is int else value if kind is str else kind
            setattr(o, name, setting)
            if o.max_retrieved is not None and o.max_retrieved < 0:
                # trec_eval 10.0 then sorts a negative count of documents (undefined)
                raise ParameterAbort(
                    f"trec-eval {flag}: expected a number of documents >= 0 (each query's "
                    f"first N count; 0: none), got {value!r}.",
                    status=USAGE,
                )
            if short == "-l" and o.level < 0:
                # trec_eval 10.0 then counts a retrieved unjudged document (grade -1)
                # as relevant in map and P, not in num_rel: map above 1
                raise ParameterAbort(
                    f"trec-eval {flag}: expected a relevance level >= 0 (grade >= N is "
                    f"relevant; default 1), got {value!r}.",
                    status=USAGE,
                )
            if o.version:  # trec_eval exits there, reading no further option
                _check_measure_names(o.measures)
                return o
    if o.help:
        _check_measure_names(o.measures)
        return o
    if len(files) != 2:
        raise ParameterAbort(
            f"trec-eval: expected two files, the qrels then the run ('-' for standard input). "
            f"Got {len(files)}: {files!r}.",
            status=USAGE,
        )
    o.qrels, o.run = files
    return o


def _read_before(argv: Sequence[str]) -> list[tuple[str, str]]:
    """The options of ``argv`` that getopt reads before the first it refuses: those of
    its longest prefix it reads whole, with those of a cluster of short options before
    the letter refused (``-vx``: ``-v``, as trec_eval acts on it first)."""
    for end in range(len(argv) - 1, -1, -1):
        arg = argv[end]
        short = arg.startswith("-") and not arg.startswith("--")
        cuts = [[arg[:k]] for k in range(len(arg) - 1, 1, -1)] if short else []
        for last in [*cuts, []]:
            with contextlib.suppress(getopt.GetoptError):
                return getopt.gnu_getopt([*argv[:end], *last], _SHORT, _LONG)[0]
    return []


def selected_measures(measures: Sequence[str]) -> list[tuple[TrecMeasure, str | None]]:
    """The measures of ``-m`` arguments (:func:`~receval.registry.trec_eval.
    select_measures`): an illegal one raises with trec_eval's status (1), one that
    trec_eval computes and receval does not (yaap) as receval's refusal of a bad input
    (2)."""
    try:
        return select_measures(measures)
    except InvalidParameterError as exc:
        names = {m.partition(".")[0] for m in measures}
        names |= {n for m in names for n in NICKNAMES.get(m, ())}
        raise as_abort(exc, FILE if names & set(UNSUPPORTED) else USAGE) from None


def _check_measure_names(measures: Sequence[str]) -> None:
    """Refuse an illegal ``-m`` as trec_eval does as it reads it (status 1), where
    ``-h`` or ``-v`` stops before any measure is computed."""
    try:
        selected_measures(measures)
    except TrecEvalAbort as exc:
        if exc.status == USAGE:
            raise
