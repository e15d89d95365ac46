"""What the CTR commands (``ctr``, ``compare``, ``report``) share: the impression log, its tables.

No metric is computed here: the rows call the library's functions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from .._parameters import counted
from ..exceptions import InvalidParameterError
from ._columns import no_missing, read_columns
from ._common import ALL_SEGMENTS, DEFAULT_CTR_METRICS, Messages, TableFormat, one_line
from ._output import ResultTable
from ._params import metric_names
from ._ranked import check_segment_labels, given_once
from ._streams import weight_words

__all__ = [
    "Impressions",
    "column",
    "ctr_metrics",
    "ctr_rows",
    "ctr_segment_table",
    "ctr_table",
    "not_probabilities",
    "read_impressions",
    "scored_error",
    "segment_skips_note",
    "sigmoid",
    "skipped_groups_note",
    "table_format",
]


def table_format(fmt: TableFormat | None, path: str, say: Messages) -> str:
    """The given format, else the suffix's; an error when neither tells."""
    from ..data.io import infer_format

    if fmt is not None:
        return fmt.value
    found = infer_format(path)
    if found in ("csv", "tsv", "parquet") or not os.path.isfile(path):
        return found or "csv"  # a missing file, a directory: reported by the reader
    raise say.fail(
        f"cannot tell the format of {path!r} from its suffix; pass --input-format csv, tsv "
        f"or parquet."
    )


def column(table: Any, name: str, option: str, path: str, fmt: str, command: str) -> Any:
    """A numeric Arrow column as a NumPy array; a column of text, or one with a missing
    value (an empty field, a null), is an error at the file and line of its first value
    that is not a number, naming ``option`` (``--score``, ``--weight``)."""
    import pyarrow as pa

    from .._validation import is_number
    from ..data._arrow import to_numpy
    from ..data._open import place
    from ..exceptions import InputValidationError

    values = table.column(name)
    kind = values.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        no_missing(values, f"{option} {name}", path, fmt, command)
        return to_numpy(values)
    row, bad = next(
        ((i, v) for i, v in enumerate(values.to_pylist()) if v is not None and not is_number(v)),
        (None, None),
    )
    where = path if row is None else place(path, row, lines=fmt in ("csv", "tsv"))
    raise InputValidationError(
        f"{where}: {option} {name}: the column holds {kind} values"
        f"{'' if bad is None else f' such as {bad!r}'}, not numbers; name a numeric column "
        f"or fix the value."
    )


class Impressions(NamedTuple):
    """The columns of an impression log that the CTR commands use."""

    n_rows: int
    y_true: Any
    scores: list[tuple[str, Any]]  # (column, values) of each --score
    groups: Any  # an Arrow array of ids, or None
    sample_weight: Any
    segments: Any = None  # an Arrow array of segment labels (--by), or None
    path: str | None = None  # the file read, and its format (csv, tsv, parquet)
    file_format: str | None = None
    weight: str | None = None  # the --weight column's name
    options: dict[str, str] | None = None  # the option that named each score column
    by: str | None = None  # the --by column's name

    def located(self, exc: BaseException) -> tuple[str, BaseException]:
        """Where a data error in the columns read from the file is, and the error to
        say after it (:func:`receval.data._open.file_error`: the row named once):
        ``"<file>:<line>: "`` (``"<file>: row N: "`` in Parquet, ``"<file>: "`` when
        the row is not known); ``""`` and the error itself for other errors, or
        columns not read from a file. Labels that are not 0/1 are placed at the
        first such label (the error of a function that takes other classes, such
        as roc_auc_score, knows no row)."""
        import numpy as np

        from ..data._open import file_error
        from ..exceptions import InputValidationError

        if self.path is None or not isinstance(exc, InputValidationError):
            return "", exc
        if self.path in str(exc):
            return "", exc
        row = exc.row
        if row is None and exc.classes is not None:
            labels = np.asarray(self.y_true)
            other = (labels != 0) & (labels != 1)
            row = int(np.argmax(other)) if other.any() else None
        where, said = file_error(exc, self.path, row, lines=self.file_format in ("csv", "tsv"))
        return f"{where}: ", said


def read_impressions(
    path: str,
    file_format: TableFormat | None,
    say: Messages,
    command: str,
    *,
    label: str,
    score: list[str],
    group: str | None = None,
    weight: str | None = None,
    by: str | None = None,
    score_options: list[str] | None = None,
) -> Impressions:
    """Read the label, score, group, weight and segment columns of an impression log
    (``score_options``: the option that named each score column, default ``--score``;
    a column named twice is an error)."""
    named = score_options or ["--score"] * len(score)
    given_once(score, named, "column")
    fmt = table_format(file_format, path, say)
    columns = list(dict.fromkeys([label, *score, *(c for c in (group, weight, by) if c)]))
    # a group or segment column that is also a column of numbers (--by click) is read
    # as numbers: as ids, a score column of 0.5 would be the text '0.5', "not numbers"
    numbers = {label, *score, weight}
    ids = tuple(c for c in (group, by) if c and c not in numbers)
    given = [("--by", by), ("--weight", weight), ("--group", group),
             *zip(named, score, strict=True), ("--label", label)]  # fmt: skip
    options = {c: option for option, c in given if c}
    table = read_columns(path, {c: options[c] for c in columns}, command, say, fmt=fmt, ids=ids)
    if not table.num_rows:
        from ..data.io import header_only

        raise say.fail(str(header_only(path)))
    if by:
        check_segment_labels(table.column(by), f"--by {by}", path, fmt, command)
    return Impressions(
        n_rows=table.num_rows,
        y_true=column(table, label, "--label", path, fmt, command),
        scores=[
            (col, column(table, col, option, path, fmt, command))
            for option, col in zip(named, score, strict=True)
        ],
        groups=table.column(group).combine_chunks() if group else None,
        sample_weight=column(table, weight, "--weight", path, fmt, command) if weight else None,
        segments=table.column(by).combine_chunks() if by else None,
        path=path,
        file_format=fmt,
        weight=weight,
        options=dict(zip(score, named, strict=True)),
        by=by,
    )


def ctr_metrics(
    metric: list[str] | None,
    group: str | None,
    say: Messages,
    negative_sampling_rate: float | None = None,
    where: str = "receval ctr -m",
) -> dict[str, Any]:
    """The pointwise and grouped metrics asked for (default: DEFAULT_CTR_METRICS), by name
    as written (lower case), each resolved by the registry (``gauc(weighting=clicks)``),
    an error naming the option ``where``; with ``negative_sampling_rate``, the metrics of
    probabilities recalibrate them (those that take no rate are refused: their value
    would be of the raw probabilities)."""
    default = [m for m in DEFAULT_CTR_METRICS if group is not None or m != "gauc"]
    from ..registry import resolve
    from ..registry.pointwise import pointwise_adapter

    try:
        specs = {
            name: resolve(name, family=("pointwise", "grouped"), where=where)
            for name in metric_names(metric, default)
        }
    except InvalidParameterError as exc:
        text = str(exc)  # a name or string the grammar refused: the option that gave it
        if text.startswith(where):
            raise
        raise InvalidParameterError(f"{where}: {text[0].lower()}{text[1:]}") from None
    if negative_sampling_rate is not None:
        specs = {name: _recalibrated(spec, negative_sampling_rate, say)
                 for name, spec in specs.items()}  # fmt: skip
    metrics = {name: pointwise_adapter(spec) for name, spec in specs.items()}
    for name, spec in metrics.items():
        if spec.needs_group and group is None:
            raise say.fail(
                f"metric {name!r} needs groups; pass --group COL (e.g. the user id column)."
            )
    return metrics


def _recalibrated(spec: Any, rate: float, say: Messages) -> Any:
    """``spec`` with ``negative_sampling_rate=rate`` (unless its string sets one); a metric
    of the scores' order (AUC, GAUC) as it is, which recalibration does not change."""
    if not 0.0 < rate <= 1.0:
        raise say.fail(
            f"--negative-sampling-rate must be in (0, 1]: the share of the negatives kept in "
            f"training. Got {rate!r}; e.g. --negative-sampling-rate 0.1."
        )
    takes = [p.name for p in spec.info.params]
    if "negative_sampling_rate" not in takes:
        if "y_score" in spec.info.inputs:
            return spec
        raise say.fail(
            f"--negative-sampling-rate: metric {str(spec)!r} takes no recalibration, so its "
            f"value would be of the probabilities as given; leave it out or compute it in a "
            f"separate run."
        )
    return spec.filled(negative_sampling_rate=float(rate))  # the string's rate wins


#: The inputs of a registry row that take probabilities (not any score).
_PROBABILITY_INPUTS = frozenset({"y_prob", "y_proba"})


def _inputs(name: str) -> set[str]:
    """The inputs of a metric's registry row: ``y_prob`` (probabilities only), ``y_pred``
    (predictions: log loss refuses what is not a probability), ``y_score`` (any score)."""
    from ..registry import resolve

    return set(resolve(name).info.inputs)


def sigmoid(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` without overflow: ``exp`` of ``-|x|`` only."""
    import numpy as np

    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    p = 1.0 / (1.0 + e)
    return np.where(x >= 0, p, e * p)


def not_probabilities(y_score: Any) -> str | None:
    """Why ``y_score`` are not probabilities (values outside [0, 1]: their range), or None.

    Examples
    --------
    >>> print(not_probabilities([0.2, -1.5, 0.4, 3.0]))
    it needs probabilities in [0, 1] and the scores range over [-1.5, 3]; pass --logits
    if they are logits.
    """
    import numpy as np

    values = np.asarray(y_score, dtype=np.float64)
    if not values.size:
        return None
    lo, hi = float(values.min()), float(values.max())
    if lo >= 0 and hi <= 1:
        return None
    return (
        f"it needs probabilities in [0, 1] and the scores range over [{lo:.6g}, {hi:.6g}]; "
        f"pass --logits if they are logits."
    )


def _refuses_scores(exc: BaseException) -> bool:
    """Whether a metric's error refuses the scores as not probabilities (its reason is
    then :func:`not_probabilities`')."""
    from .._validation import NOT_PROBABILITIES

    return NOT_PROBABILITIES in str(exc)


def ctr_rows(
    y_true: Any,
    scores: list[tuple[str, Any]],
    metrics: dict[str, Any],
    groups: Any,
    sample_weight: Any,
    say: Messages,
    source: Impressions | None = None,
    *,
    skip_inapplicable: bool = False,
) -> list[tuple[list[Any], dict[str, Any]]]:
    """Per score column, the row ``[name, value, ...]`` (values as the library returns them)
    and the counts of what a metric left out (``{metric: {...}}``), noted on stderr.
    ``source``: the impressions read from a file, whose line a data error names.

    ``skip_inapplicable``: on a column with values outside [0, 1], a metric of
    probabilities (registry inputs ``y_prob``), or one of predictions (``y_pred``) whose
    error refuses the values as not probabilities, is left undefined (None), the reason
    noted and in the counts as ``not_applicable``; any other error of the metric (labels,
    weights) stops the command, as on probabilities.
    """
    from ..exceptions import InputValidationError, RecevalError

    rows = []
    for col, y_score in scores:
        row: list[Any] = [col]
        row_counts: dict[str, Any] = {}
        why_not = not_probabilities(y_score) if skip_inapplicable else None
        skipped: dict[str, str] = {}
        whys: dict[str, str] = {}
        for name, spec in metrics.items():
            value = None
            if why_not is not None and _PROBABILITY_INPUTS & _inputs(name):
                skipped[name] = why_not
                row.append(value)
                continue
            with say.progress(f"Computing {name} of {col}"), column_warnings(source, col, name):
                try:
                    args = (y_true, y_score)
                    kwargs = {
                        "groups": groups if spec.needs_group else None,
                        "sample_weight": sample_weight,
                    }
                    if spec.counted is not None:
                        value, counts, whys[name] = spec.counted(*args, **kwargs)
                        if counts:
                            row_counts[name] = counts
                    else:
                        value = spec.func(*args, **kwargs)
                except InputValidationError as exc:
                    if why_not is None or not _refuses_scores(exc):  # a data error
                        raise say.fail(scored_error(exc, say, source, name, col)) from None
                    skipped[name] = why_not
                except RecevalError as exc:
                    raise say.fail(scored_error(exc, say, source, name, col)) from None
            row.append(value)
        for name, counts in row_counts.items():
            skipped_groups_note(col, name, counts, whys[name], say)
        for name, reason in skipped.items():
            say.note(f"{col}: {name} is not applicable (left empty): {reason}")
        if skipped:
            row_counts["not_applicable"] = skipped
        rows.append((row, row_counts))
    return rows


def scored_error(
    exc: BaseException,
    say: Messages,
    source: Impressions | None = None,
    metric: str | None = None,
    column: str | None = None,
) -> str:
    """A metric's error on a score column in the command's words, naming the metric and
    the column by its option: ``<file>:<line>: <metric> of --score <column>: ...`` (the
    library's message names its arguments, ``y_pred must contain probabilities``: the
    column's scores here). ``metric`` and ``column``: those computed, else the ones the
    library marked the error with (:attr:`InputValidationError.scored`, where models are
    compared, whose message names the model: said once, as the column); without a column,
    the error alone. ``source``: the impressions read from
    a file, whose line the error names, and the option of each column."""
    where, said = ("", exc) if source is None else source.located(exc)
    words = say.error_words(said, None if source is None else source.weight)
    marked = getattr(exc, "scored", None)
    if marked is not None:  # the model, named by the message, is named by its option here
        words = words.replace(f" of model {marked[1]!r}: ", ": ", 1)
        if column is None:
            metric, column = marked
    if column is None:
        return where + words
    return where + _of_column(words, source, metric, column)


def _of_column(words: str, source: Impressions | None, metric: str | None, column: str) -> str:
    """``words``, a message of a metric on a score column, said of the column by its
    option (and of the metric): ``auc of --score a: the scores contain NaN.``"""
    option = ((source.options if source is not None else None) or {}).get(column, "--score")
    words = _SCORES.sub(lambda m: "the scores" + (f" {_PLURAL[m[1]]}" if m[1] else ""), words)
    return f"{'' if metric is None else metric + ' of '}{option} {column}: {words}"


#: The library function a metric's message begins with (``roc_auc_score: ...``).
_FUNCTION = re.compile(r"^(?P<func>[A-Za-z_][\w.]*): ")


@contextmanager
def column_warnings(
    source: Impressions | None,
    column: str | None,
    metric: str | None = None,
    metrics: Iterable[str] = (),
) -> Iterator[None]:
    """The warnings of the metrics computed within on the score column ``column``, said
    as their errors are (:func:`scored_error`) and raised again for
    :meth:`Messages.guard` to print: ``auc of --score a: --label has a single class
    ...`` for the library's ``roc_auc_score: y_true has a single class ...``, the
    sample weights named as the ``--weight`` column. ``column`` None: the column of the
    model a comparison's warning names (``log_loss of model 'b': ...``, see
    :func:`receval.comparison.impressions.scoring`), if any. ``metric``: the metric
    computed; else the one of ``metrics`` whose function a warning begins with, if any.
    Where the metric raises, its error wins over the warnings
    (:func:`receval.exceptions.restated_warnings`)."""
    from ..exceptions import restated_warnings
    from ..registry import resolve

    # the metric of each library function, which begins its warnings
    functions = {resolve(m, family=("pointwise", "grouped")).info.function: m for m in metrics}

    def restate(message: str) -> str:
        text, col = one_line(message), column
        head = re.match(r"[\w.]+", text)
        if col is None and head is not None and source is not None:
            for model, _ in source.scores:  # the model a comparison's warning names
                marked = f"{head[0]} of model {model!r}: "
                if text.startswith(marked):
                    col, text = model, f"{head[0]}: {text[len(marked) :]}"
                    break
        func = _FUNCTION.match(text)
        name = metric if metric is not None or func is None else functions.get(func["func"])
        weight = None if source is None else source.weight
        if weight is not None:
            text = weight_words(text, weight)
        text = re.sub(r"\by_true\b", "--label", text)
        if col is None:
            return text
        if not _SCORES.match(text):  # the scores are said so by _of_column
            text = _FUNCTION.sub("", text, count=1)
        return _of_column(text, source, name, col)

    with restated_warnings(restate):
        yield


#: The verbs of the library's messages of a score argument (``y_score contains NaN``),
#: said of the scores (``the scores contain NaN``)
_PLURAL = {"contains": "contain", "has": "have", "holds": "hold", "is": "are", "mixes": "mix"}
_SCORES = re.compile(rf"^[\w.]+: (?:y_score|y_pred|y_prob|y_proba)\b(?: ({'|'.join(_PLURAL)})\b)?")


def skipped_groups_note(
    col: str, name: str, counts: dict[str, Any], why: str, say: Messages
) -> None:
    """The note on stderr of the groups a grouped metric left out (``why``: the groups
    it leaves out), if any."""
    if counts.get("n_groups_skipped"):
        say.note(
            f"{col}: {name} skips {counts['n_groups_skipped']:,} of "
            f"{counted(counts['n_groups'], 'group')} "
            f"({counted(counts['n_rows_skipped'], 'row')}) {why}."
        )


def segment_skips_note(
    col: str, name: str, segments: Any, counts: dict[str, Any], why: str, say: Messages
) -> None:
    """The note on stderr of the groups a grouped metric left out in each segment
    (``counts``: its ``n_groups``, ``n_groups_skipped`` and ``n_rows_skipped`` arrays,
    aligned with ``segments``), the first few segments that skip any."""
    skipping = [i for i, k in enumerate(counts["n_groups_skipped"].tolist()) if k]
    if not skipping:
        return
    shown = []
    for j, i in enumerate(skipping[:_SHOWN]):
        of_rows = f" ({counted(int(counts['n_rows_skipped'][i]), 'row')})"
        n_groups = int(counts["n_groups"][i])
        groups = counted(n_groups, "group") if j == 0 else f"{n_groups:,}"
        shown.append(
            f"{int(counts['n_groups_skipped'][i]):,} of {groups}{of_rows} in {segments[i]}"
        )
    more = (
        f", {_SHOWN} shown; every segment's counts: --format json or csv"
        if len(skipping) > _SHOWN
        else ""
    )
    say.note(
        f"{col}: {name} skips groups {why} in {len(skipping):,} of "
        f"{counted(len(segments), 'segment')}: "
        f"{', '.join(shown)}{more}."
    )


#: Segments a note names at most.
_SHOWN = 5


def ctr_table(
    counted: list[tuple[list[Any], dict[str, Any]]],
    metrics: dict[str, Any],
    title: str | None = None,
    n_rows: int | None = None,
) -> ResultTable:
    """The rows of :func:`ctr_rows` as a table (column ``score``, then one per metric);
    ``n_rows``, when given, is added to each row's counts."""
    extra = {} if n_rows is None else {"n_rows": int(n_rows)}
    return ResultTable(
        ["score", *metrics],
        [row for row, _ in counted],
        title=title,
        counts=[{**extra, **c} for _, c in counted],
    )


def ctr_segment_table(
    data: Impressions,
    metrics: dict[str, Any],
    say: Messages,
    title: str | None = None,
    *,
    skip_inapplicable: bool = False,
) -> ResultTable:
    """Per score column, one row per segment of ``data.segments`` and the overall row
    (segment ``(all)``): ``score, segment, n_rows`` and the metrics, with the counts of
    :meth:`receval.SegmentReport.records` (receval.by_segment); ``skip_inapplicable`` as
    for :func:`ctr_rows`, on the overall row's counts."""
    from ..exceptions import InputValidationError, RecevalError
    from ..segments.compute import by_segment

    rows: list[list[Any]] = []
    counts: list[dict[str, Any]] = []
    for col, y_score in data.scores:
        kwargs: dict[str, Any] = {}
        if data.sample_weight is not None:
            kwargs["sample_weight"] = data.sample_weight
        if data.groups is not None and any(spec.needs_group for spec in metrics.values()):
            kwargs["groups"] = data.groups
        why_not = not_probabilities(y_score) if skip_inapplicable else None
        skipped: dict[str, str] = {}
        with (
            say.progress(f"Computing {', '.join(metrics)} of {col} by segment"),
            column_warnings(data, col, metrics=metrics),
        ):
            try:
                if why_not is None:
                    reports = [by_segment(list(metrics), data.y_true, y_score, by=data.segments,
                                          **kwargs)]  # fmt: skip
                else:  # one metric at a time, so that one the scores do not suit is skipped
                    reports = []
                    for m in metrics:
                        if _PROBABILITY_INPUTS & _inputs(m):
                            skipped[m] = why_not
                            continue
                        own = {k: x for k, x in kwargs.items()
                               if k != "groups" or metrics[m].needs_group}  # fmt: skip
                        try:
                            reports.append(
                                by_segment([m], data.y_true, y_score, by=data.segments, **own)
                            )
                        except InputValidationError as exc:
                            if not _refuses_scores(exc):  # a data error of its own
                                raise
                            skipped[m] = why_not
            except RecevalError as exc:  # name the scores' column (the segments' are
                # checked as the file is read: read_columns)
                raise say.fail(scored_error(exc, say, data, column=col)) from None
        # what the rules left out: on the overall row, the groups each grouped metric
        # skips over all the rows, the segments where a metric is undefined and the metrics
        # not applicable; on each segment's row, the groups it skips in the segment
        by_row = {m: n for r in reports for m, n in r.n_skipped.items()}
        whole = {m: n for r in reports for m, n in r.n_skipped_overall.items()}
        why = {m: w for r in reports for m, w in r.why_skipped.items()}
        for m in metrics:
            if m in whole:
                skipped_groups_note(col, m, whole[m], why[m], say)
                if m in by_row:
                    segment_skips_note(col, m, reports[0].segments, by_row[m], why[m], say)
        undefined = {m: k for r in reports for m, k in r.n_undefined.items()}
        for name, reason in skipped.items():
            say.note(f"{col}: {name} is not applicable (left empty): {reason}")
        rules: dict[str, Any] = {"n_segments_undefined": undefined}
        if skipped:
            rules["not_applicable"] = skipped
        if not reports:  # no metric applies: the segments of none
            rows.append([col, ALL_SEGMENTS, data.n_rows, *(None for _ in metrics)])
            counts.append(rules)
            continue
        for each in zip(*(r.records() for r in reports), strict=True):
            record: dict[str, Any] = {"counts": {}}
            for part in each:  # the reports of one metric each: their records side by side
                record["counts"].update(part["counts"])
                record.update({k: x for k, x in part.items() if k != "counts"})
            segment = record["segment"]
            label = ALL_SEGMENTS if segment is None else segment
            rows.append([col, label, record["n_rows"], *(record.get(m) for m in metrics)])
            counts.append(record["counts"] if segment is not None else record["counts"] | rules)
        n_segments = len(reports[0].segments)
        for m, k in undefined.items():
            if k:
                say.note(
                    f"{col}: {m} is undefined (nan) in {k:,} of {counted(n_segments, 'segment')}."
                )
    return ResultTable(
        ["score", "segment", "n_rows", *metrics], rows, title=title, counts=counts, keys=2
    )
