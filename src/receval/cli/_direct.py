"""``receval trec-eval``: trec_eval 10.0's command line and output
(:mod:`receval.trec.trec_eval`), run without Typer and rich.

:func:`receval.cli.main` runs this command before it loads Typer (a trec_eval
user runs it in loops, where start-up is most of the time). The arguments are
trec_eval's, read by :func:`receval.trec.trec_eval.parse_trec_eval_args` (GNU
getopt, as trec_eval): ``-q``, ``-c``, ``-n``, ``-J``,
``-l N``, ``-M N``, ``-N N``, ``-m measure[.params]``, ``-R`` (qrels, qrels_jg,
prefs, qrels_prefs), ``-T``, ``-Z file``,
``-h``, ``-v``; then the qrels file and the run file (``-`` reads the run from stdin).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .._parameters import counted, verb
from ._streams import Messages, one_line

__all__ = ["trec_eval_main"]

HELP = """\
Usage: receval trec-eval [-h] [-v] [-q] [-c] [-n] [-J] [-l N] [-M N] [-N N]
                         [-m measure[.params]]... [-Z zscores_file] qrels run

Evaluate the run (TREC format: query Q0 docno rank score tag) against the qrels
(query iteration docno grade) and print what trec_eval 10.0 prints, byte for
byte: one line per measure (name padded to 22 columns, tab, query id or 'all',
tab, value). The values are receval.evaluate(..., profile="trec_eval").

  -q      also print every query's values, queries in byte order of their ids
  -c      average over every query of the qrels (those absent from the run
          count 0); without -c such a query is an error
  -n      no summary ('all') lines
  -l N    grade >= N is relevant (N >= 0; default 1)
  -M N    only the first N documents of each query count (0: none, as in
          trec_eval; without -M, all)
  -J      only judged documents count (the others are removed first)
  -N N    documents in the collection (utility's last coefficient)
  -m M    measures to print, repeated: a name (P, map, ndcg_cut, ...), a name
          with parameters (P.5,10  iprec_at_recall.0.1,0.5  ndcg.1=3,2=9
          utility.2,-1,0,0  rbp.p=0.95  relstring.20), or a set: official
          (the default), all_trec, set, qrels_jg, all_prefs, prefs
  -Z F    print z-scores against the per-query means and deviations of F
          (lines: query measure mean stddev)
  -R F    relevance format: qrels, or qrels_jg (lines: query group docno
          grade; map_avgjg, P_avgjg, Rprec_mult_avgjg average over the groups),
          prefs (lines: query jg jsg docno level) or qrels_prefs (qrels read
          as preferences) for the prefs_* measures
  -T F    results format: trec_results
  -h      this help
  -v      the version (on stderr, as trec_eval)

Every measure is also a receval metric: list them with `receval metrics`.
Errors go to stderr as 'error: ...'. Where trec_eval stops, the exit status is
trec_eval's: 1 for a bad option or an unknown measure, 2 for a file that cannot
be read, 4 for a query of the qrels with no document in the run (without -c;
the -q lines of the queries before it are printed first) or utility given
other than four coefficients, 7 when the qrels judge no query, 255 for a bad -Z
file.
"""


def _measures_help() -> str:
    """The help's list of the measures, from the registry's table of trec_eval's
    measures (in its order of printing), and those receval does not compute."""
    import textwrap

    from ..registry.trec_eval import MEASURES, NICKNAMES, UNSUPPORTED

    names = ", ".join(m.name for m in MEASURES)
    sets = ", ".join(NICKNAMES)
    missing = ", ".join(UNSUPPORTED)
    text = (
        f"Measures (-m), in trec_eval's order of printing: {names}; sets: {sets}. "
        f"trec_eval's {missing} is not computed."
    )
    return "\n" + textwrap.fill(text, 79, break_on_hyphens=False) + "\n"


def _write(text: str) -> None:
    """Write trec_eval's output to stdout in UTF-8, the bytes of a run tag that are not
    UTF-8 (held as surrogates) as the run file holds them, as trec_eval prints them."""
    data = text.encode("utf-8", "surrogateescape")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text stream without bytes below (a test's): the text
        sys.stdout.write(data.decode("utf-8", "replace"))
    else:
        sys.stdout.flush()
        buffer.write(data)
    sys.stdout.flush()


def trec_eval_main(argv: Sequence[str]) -> None:
    """Run ``receval trec-eval`` with these arguments.

    Parameters
    ----------
    argv : sequence of str
        trec_eval's arguments (what follows ``trec-eval`` on the command line).

    Raises
    ------
    SystemExit
        Where trec_eval stops, with its exit status (the error is on stderr, after
        what trec_eval prints before it stops); with status 2 on other errors (an
        unreadable file).
    """
    from ..trec.trec_eval import TrecEvalAbort, parse_trec_eval_args, trec_eval_output

    say = Messages(quiet=False, translate=False)
    args = list(argv)
    with say.guard():
        try:
            o = parse_trec_eval_args(args)
            if o.version:  # as trec_eval: on stderr, stdout empty
                from .. import __version__

                sys.stderr.write(f"receval {__version__} (trec-eval follows trec_eval 10.0)\n")
                sys.stderr.flush()
                return
            if o.help:
                sys.stdout.write(HELP + _measures_help())
                return
            text, run_only = trec_eval_output(args)
        except TrecEvalAbort as exc:
            # where trec_eval stops: what it printed before, and its exit status
            _write(exc.output)
            say.error(one_line(exc))
            raise SystemExit(exc.status) from None
    _write(text)
    if run_only:
        # trec_eval ignores them silently; receval says what it left out
        run = parse_trec_eval_args(args).run
        name = "<stdin>" if run == "-" else run
        say.note(
            f"{name}: {counted(run_only, 'run query', 'run queries')} {verb(run_only, 'is')} "
            f"not in the qrels (ignored, as trec_eval "
            f"ignores them)."
        )
