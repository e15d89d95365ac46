"""What ``receval rank`` does once its options are read: read the files, evaluate, print.

Free of Typer and rich: the Typer command (:mod:`receval.cli._rank`) calls
:func:`run_rank` with its options, and so does :func:`receval.cli.main` for the
common command lines, which it reads before loading Typer
(:func:`common_options`). The item data, propensity and vector options load
their readers (which declare Typer options) only when given. With the common
options only, on TREC files, the compiled core computes the report
(:func:`receval.cli._rank_trec.core_report`), without NumPy.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .._parameters import counted, verb
from ..exceptions import DEFAULT_MIN_MATCH
from ._output import OutputFormat, ResultTable, render
from ._ranked import (
    ALL_SEGMENTS,
    DEFAULT_RANK_METRICS,
    RankedFormat,
    evaluate_run,
    per_user_table,
    rank_table,
    read_qrels_runs,
    read_segments,
    report_notes,
    run_names,
    unknown_users_note,
)
from ._streams import Messages

__all__ = ["common_options", "run_rank"]

# the options :func:`common_options` reads: each one's parameter of run_rank
_VALUED = {
    "--qrels": "qrels", "--run": "run", "-m": "metric", "--metric": "metric",
    "-f": "output_format", "--format": "output_format", "--digits": "digits",
    "--profile": "profile", "--depth": "depth", "--rel-threshold": "rel_threshold",
    "--qrels-format": "qrels_format", "--run-format": "run_format", "--user": "user",
    "--item": "item", "--grade": "grade", "--score": "score", "--rank": "rank_column",
    "--by": "by", "--segment": "segment",
    # the conventions given as words (rank passes them on as written)
    **{f"--{name.replace('_', '-')}": name for name in (
        "ties", "gain", "ap_normalizer", "missing_users", "empty_users", "ideal",
        "gain_grades", "zero_users", "hit_scores", "precision_normalizer",
        "recall_normalizer", "discount", "recall_rounding",
    )},
}  # fmt: skip
_FLAGS = {"-q": "quiet", "--quiet": "quiet", "--per-user": "per_user"}
_REPEATED = ("run", "metric")
_FILES = ("qrels", "run", "by")
# the parameters of run_rank that common_options gives
_COMMON = frozenset({*_VALUED.values(), *_FLAGS.values()})
# those with which the core may compute the report of TREC files (and the conventions)
_PLAIN = frozenset({"qrels", "run", "metric", "output_format", "digits", "profile", "quiet",
                    "per_user"})  # fmt: skip
_DIGITS = re.compile(r"[0-9]{1,2}")
_COUNT = re.compile(r"[0-9]{1,9}")
_DECIMAL = re.compile(r"[0-9]{1,15}(\.[0-9]{1,15})?")


def common_options(args: list[str]) -> dict[str, Any] | None:
    """The options of ``receval rank ARGS`` as :func:`run_rank` takes them, where the
    command line holds only common options written plainly; else None, and Typer
    reads it (its help, its usage errors, every other option).

    Read here: ``--qrels FILE`` (once, required), ``--run FILE`` and ``-m`` /
    ``--metric METRIC`` (repeated), ``-f`` / ``--format`` (a format's name as
    written in the help), ``--digits N`` (0 to 17 in digits), ``--profile NAME``,
    the conventions given as words (``--ties``, ``--gain``, ...), ``--depth N``
    (digits), ``--rel-threshold X`` (digits, a decimal point), the input's
    ``--qrels-format`` and ``--run-format`` (as written in the help), its columns
    (``--user``, ``--item``, ``--grade``, ``--score``, ``--rank``), ``--by FILE``
    and ``--segment COL``, ``-q`` /
    ``--quiet`` and ``--per-user``, each as its own argument with its value in
    the next one; no value may start with ``-`` (standard input, an option), nor
    a file be a pipe (Typer copies both, :func:`receval.cli._stdin.stdin_input`).
    These give the values Typer gives (``tests/cli/test_startup.py`` runs both on
    every combination).

    Examples
    --------
    >>> common_options(["--qrels", "q", "--run", "r", "-m", "map", "--digits", "3"])
    {'qrels': 'q', 'run': ['r'], 'metric': ['map'], 'digits': 3}
    >>> common_options(["--qrels", "q", "--run", "-"]) is None  # standard input: Typer
    True
    """
    options: dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        name = _FLAGS.get(arg)
        if name is not None:
            if name in options:
                return None
            options[name] = True
            i += 1
            continue
        name = _VALUED.get(arg)
        if name is None or i + 1 == len(args) or args[i + 1].startswith("-"):
            return None
        value: Any = args[i + 1]
        if name in _FILES:
            from ..data._open import is_stream

            if is_stream(value):
                return None
        if name in _REPEATED:
            value = [*options.get(name, []), value]
        elif name in options:
            return None
        elif name == "output_format":
            if value not in OutputFormat._value2member_map_:
                return None
            value = OutputFormat(value)
        elif name in ("qrels_format", "run_format"):
            if value not in RankedFormat._value2member_map_:
                return None
            value = RankedFormat(value)
        elif name == "digits":
            if not _DIGITS.fullmatch(value) or int(value) > 17:
                return None
            value = int(value)
        elif name == "depth":
            if not _COUNT.fullmatch(value):
                return None
            value = int(value)
        elif name == "rel_threshold":
            if not _DECIMAL.fullmatch(value):
                return None
            value = float(value)
        options[name] = value
        i += 2
    return options if "qrels" in options else None


def run_rank(
    *,
    qrels: str,
    run: list[str] | None = None,
    metric: list[str] | None = None,
    profile: str | None = None,
    per_user: bool = False,
    by: str | None = None,
    segment: str = "segment",
    qrels_format: RankedFormat | None = None,
    run_format: RankedFormat | None = None,
    user: str = "user",
    item: str = "item",
    grade: str = "grade",
    score: str = "score",
    rank_column: str | None = None,
    ties: str | None = None,
    gain: str | None = None,
    ap_normalizer: str | None = None,
    rel_threshold: float | None = None,
    missing_users: str | None = None,
    empty_users: str | None = None,
    ideal: str | None = None,
    gain_grades: str | None = None,
    zero_users: str | None = None,
    hit_scores: str | None = None,
    precision_normalizer: str | None = None,
    recall_normalizer: str | None = None,
    discount: str | None = None,
    recall_rounding: str | None = None,
    depth: int | None = None,
    judged_only: bool | None = None,
    grades: str | None = None,
    propensities: str | None = None,
    estimator: str | None = None,
    propensity_clip: float | None = None,
    train: str | None = None,
    exclude: str | None = None,
    repeats: bool = False,
    popularity: str | None = None,
    features: str | None = None,
    item_categories: str | None = None,
    catalog: str | None = None,
    reference: str | None = None,
    candidates: str | None = None,
    correction: str | None = None,
    min_match: float = DEFAULT_MIN_MATCH,
    allow_unmatched: bool = False,
    baseline: str | None = None,
    test: str = "randomization",
    permutations: int = 1000,
    user_vectors: str | None = None,
    item_vectors: str | None = None,
    user_ids: str | None = None,
    item_ids: str | None = None,
    similarity: str = "dot",
    k: int | None = None,
    output_format: OutputFormat = OutputFormat.table,
    digits: int = 4,
    quiet: bool = False,
) -> None:
    """Run ``receval rank`` with these options (each as the command's option of the same
    name, its default the same; ``rank_column`` is ``--rank``, ``output_format``
    ``--format``): print the table of results on stdout and the notes on stderr.

    Raises
    ------
    SystemExit
        With status 2 on bad options or bad input, after ``error: ...`` on stderr.
    """
    from ..conventions import FIELDS, resolve_conventions

    # only the options common_options reads are given (the others at their defaults)
    passed = dict(locals())
    defaults = run_rank.__kwdefaults__ or {}
    plain = all(passed[k] == v for k, v in defaults.items() if k not in _PLAIN | set(FIELDS))
    say = Messages(quiet, command="rank")
    run = list(run or [])
    vectors = (user_vectors, item_vectors)
    if (user_vectors is None) != (item_vectors is None) or (not run and None in vectors):
        raise say.fail("pass --run FILE, or --user-vectors FILE and --item-vectors FILE (or both).")
    for is_set, needed, option, needs in (  # an option that would be ignored
        (propensity_clip is not None, propensities, "--propensity-clip", "--propensities"),
        (segment != "segment", by, "--segment", "--by"),
        (k is not None, user_vectors, "--k", "--user-vectors and --item-vectors"),
    ):
        if is_set and needed is None:
            raise say.fail(f"{option} applies with {needs}; drop it or pass {needs}.")
    if baseline is not None and len(run) + (user_vectors is not None) < 2:
        raise say.fail("--baseline applies with several runs; drop it or pass more runs.")
    metrics = list(metric) if metric else list(DEFAULT_RANK_METRICS)
    conventions = {name: passed[name] for name in FIELDS}  # the options of the conventions
    with say.guard():
        # fail on a bad metric or option before reading any file
        from ..registry import parse_metric, parse_metrics

        # trec_eval's P.5,10 stands for P_5 and P_10: one column each; a name given
        # twice (-m mrr -m mrr, -m P.5,10 -m P_5) is one column, as in evaluate's report
        metrics = list(dict.fromkeys(name for text in metrics for name in parse_metrics(text)))
        # list metrics (catalog_coverage@10, ...): one value per run, by their own function
        listed = {m: s for m, s in ((m, parse_metric(m)) for m in metrics) if _is_list(s)}
        ranked = [m for m in metrics if m not in listed]
        resolve_conventions(profile, "evaluate", **conventions)
        if test not in ("randomization", "student", "wilcoxon", "none"):
            raise say.fail(
                f"--test must be one of randomization, student, wilcoxon, none. Got {test!r}."
            )
        if baseline is not None and baseline not in run_names(run):
            raise say.fail(
                f"--baseline must name one of the runs {run_names(run)}. Got {baseline!r}."
            )
        if by is not None and per_user:  # one table or the other: neither is ignored
            raise say.fail(
                "--by gives a row per segment and --per-user a row per user; pass one of them."
            )
        if listed and (by is not None or per_user):
            raise say.fail(
                f"{'--by' if by is not None else '--per-user'} shows values per user, and the "
                f"list metrics ({', '.join(listed)}) have one value per run; leave them out "
                f"of -m or drop the option."
            )
        # TREC files with the common options: the core computes evaluate's report
        # (receval.cli._rank_trec), without reading the files into NumPy
        core = None
        if plain and profile is None and len(run) == 1 and not listed:
            from ._rank_trec import core_report

            given = {k: v for k, v in conventions.items() if v is not None}
            core = core_report(qrels, run[0], ranked, given)
        data: dict[str, Any] | None = None
        reports: list[tuple[str, Any]] = []
        values: dict[str, dict[str, float]] = {}
        if core is not None:
            name = run_names(run)[0]
            report_notes(core, name, ranked, say)
            reports.append((name, core))
            values[name] = {}
        else:
            weighting: dict[str, Any] = {}
            if propensities is not None:
                from ._items import read_propensities

                weighting["propensities"] = read_propensities(propensities, user, item, say)
            if propensity_clip is not None:
                weighting["propensity_clip"] = propensity_clip
            if exclude is not None and repeats:
                raise say.fail(
                    "--exclude removes the seen items and --repeats declares that users consume "
                    "items again; pass one of them."
                )
            if repeats:
                weighting["repeats"] = True
            matching = {"min_match": min_match, "allow_unmatched": allow_unmatched}
            files = (train, popularity, features, item_categories, catalog, reference, candidates,
                     correction, exclude)  # fmt: skip
            items = None
            if any(path is not None for path in files):
                from ._items import ItemData

                items = ItemData(*files, user=user, item=item, run_format=run_format, score=score,
                                 rank=rank_column)  # fmt: skip
            inputs: Any = read_qrels_runs(
                qrels, qrels_format, run, run_format, say,
                user=user, item=item, grade=grade, score=score, rank=rank_column,
            )  # fmt: skip

            def load(integers: bool) -> dict[str, Any]:
                """The item data files, each read once, their ids integers where
                ``integers`` (the runs' item ids are)."""
                if items is None:
                    return {}
                from ._items import EVALUATE_INPUTS

                loaded = items.load(integers, say)
                weighting.update({k: v for k, v in loaded.items() if k in EVALUATE_INPUTS})
                if "popularity" in weighting or "train" in weighting:
                    from ..ranking.values import as_popularity_table

                    # evaluate's table of item popularity, built once by its rule (exactly
                    # one of --popularity and --train) whatever the metrics: a list
                    # metric's function takes --train alone, and dropped --popularity
                    weighting["popularity"] = as_popularity_table(
                        weighting.pop("popularity", None), weighting.pop("train", None),
                        "evaluate",
                    )  # fmt: skip
                return loaded

            # the retrieved run's --exclude and --candidates pairs without a vector (by
            # the report's count), and the ids of the items it was retrieved from, by id
            # of the run
            unmatched: dict[int, dict[str, int]] = {}
            catalogues: dict[int, Any] = {}
            if user_vectors is not None and item_vectors is not None:
                from ._retrieve import read_ids, read_qrels, vector_run

                inputs = list(inputs) if run else []  # (no run: the qrels read below)
                ids = read_ids(item_ids, "--item-ids", say)
                # read once, for the retrieval and the evaluation of every run: the
                # ids as the vectors' (a pair of ids of another type masks nothing)
                data = load(ids is None or ids.dtype.kind in "iu")
                retrieved, counts, catalogue = vector_run(
                    inputs[0][0] if inputs else read_qrels(qrels, qrels_format, user, item, grade),
                    user_vectors, item_vectors, ranked, k, say, metric=similarity,
                    user_ids=read_ids(user_ids, "--user-ids", say), item_ids=ids,
                    exclude=data.get("exclude"), candidates=data.get("candidates"),
                    files={"exclude": exclude, "candidates": candidates},
                )  # fmt: skip
                inputs = [*inputs, retrieved]
                unmatched[id(retrieved[2])] = counts
                catalogues[id(retrieved[2])] = catalogue
            for q, name, r in inputs:
                if data is None:  # read once, its ids as the runs hold theirs
                    data = load(r.item_ids.dtype.kind in "iu")
                if ranked:
                    report = evaluate_run(
                        q, r, name, ranked, say, profile, conventions, weighting, matching,
                        catalogues.get(id(r)),
                    )  # fmt: skip
                    if id(r) in unmatched:  # as evaluate_embeddings reports them
                        report = replace(report, **unmatched[id(r)])
                    reports.append((name, report))
                given = {"run": r, "qrels": q, **data}
                values[name] = {m: _list_value(s, given) for m, s in listed.items()}
    if by is not None:
        with say.guard():
            table = segment_table(reports, metrics, by, user, segment, say)
    elif per_user:
        table = per_user_table(reports, metrics)
    elif len(values) > 1 and test != "none" and output_format in _LETTER_FORMATS and not listed:
        from ..comparison.models import compare
        from ._compare import comparison_notes, comparison_output, work_line

        doing = f"Testing {counted(len(reports), 'run')} on {counted(len(metrics), 'metric')}: "
        with say.guard(), say.progress(doing + work_line(test, permutations, None) + "…"):
            comparison = compare(
                None, dict(reports), metrics, baseline=baseline, test=test,
                n_permutations=permutations, interval=None,
            )  # fmt: skip
        comparison_notes(comparison, say)
        comparison_output(comparison, output_format, digits, detail=False)
        return
    else:
        if len(values) > 1 and test != "none" and output_format in _LETTER_FORMATS:
            say.note(
                f"no significance letters: the list metrics ({', '.join(listed)}) have no "
                f"per-user values to pair (receval compare tests the other metrics)."
            )
        table = _with_list_values(rank_table(reports, ranked), metrics, values)
    render(table, output_format, digits=digits)


def _is_list(spec: Any) -> bool:
    """A list metric that ``receval.evaluate`` does not compute (catalog_coverage, ...)."""
    return bool(spec.info.family == "list" and spec.info.function != "evaluate")


def _list_value(spec: Any, given: dict[str, Any]) -> float:
    """A list metric's value (its function's), from the inputs ``given``."""
    from ._items import row_value

    value: float = row_value(spec, given, "receval rank -m")
    return value


def _with_list_values(
    table: ResultTable, metrics: list[str], values: dict[str, dict[str, float]]
) -> ResultTable:
    """``table`` (one row per run) with the list metrics' values, columns in ``metrics``'
    order; the runs of ``values`` when ``table`` has no row (no ranking metric)."""
    if not table.rows:
        return ResultTable(["run", *metrics], [[n, *v.values()] for n, v in values.items()])
    cells = [dict(zip(table.columns, row, strict=True)) | values[row[0]] for row in table.rows]
    rows = [[cell["run"], *(cell[m] for m in metrics)] for cell in cells]
    return ResultTable(["run", *metrics], rows, table.title, table.counts)


def segment_table(
    reports: list[tuple[str, Any]], metrics: list[str], path: str, user: str, segment: str,
    say: Messages,
) -> ResultTable:  # fmt: skip
    """``--by``: one row per run and segment of the users in ``path``, then the run's
    overall row (columns run, segment, n_users, metrics)."""
    from ..report.records import ranking_records

    rows: list[list[Any]] = []
    counts: list[dict[str, Any]] = []
    # each run's own counts (those of its plain run) on its overall row, but n_users: a column
    own = {
        r["run"]: {k: n for k, n in r["counts"].items() if k != "n_users"}
        for r in ranking_records(dict(reports), metrics)
    }
    # read once: every report holds the same qrels users
    segments = read_segments(path, user, segment, reports[0][1].users, say)
    for j, (name, rep) in enumerate(reports):
        seg = rep.by_segment(segments)
        if j == 0:  # the same qrels users in every report
            unknown_users_note(seg.n_unknown, path, say)
        if seg.n_unassigned:
            say.note(
                f"{name}: {seg.n_unassigned:,} of {counted(rep.n_users, 'qrels user')} "
                f"{verb(seg.n_unassigned, 'has')} no segment in {path} (counted in {ALL_SEGMENTS} "
                f"only)."
            )
        for record in seg.records():
            label = ALL_SEGMENTS if record["segment"] is None else record["segment"]
            rows.append([name, label, record["n_users"], *(record[m] for m in metrics)])
            if record["segment"] is None:  # what the rules left out, on the overall row
                counts.append({**own[name], "n_users_unassigned": seg.n_unassigned,
                               "n_users_unknown": seg.n_unknown, **record["counts"],
                               "n_segments_undefined": dict(seg.n_undefined)})  # fmt: skip
                continue
            # the users of the segment each metric's rules left out of its mean (if any),
            # and those each rule left out
            left_out = {m: n for m, n in record["counts"]["n_users_skipped"].items() if n}
            by_rule = {m: record["counts"]["n_users_skipped_by"][m] for m in left_out}
            counts.append(
                {"n_users_skipped": left_out, "n_users_skipped_by": by_rule} if left_out else {}
            )
    return ResultTable(["run", "segment", "n_users", *metrics], rows, counts=counts, keys=2)


# formats in which ``rank`` marks significance with letters (the others keep plain numbers)
_LETTER_FORMATS = (OutputFormat.table, OutputFormat.markdown, OutputFormat.latex)
