"""Sources cut rows and hand them to a definition: arrays, :func:`receval.scan` batches.

A source never computes a metric: it reads the columns a metric needs, cuts the
rows as the metric's partitioning allows, and runs the metric's definition
(``prepare``, ``update``, ``merge``, ``finalize``) on the pieces.
:func:`run_definition` is what every metric's function calls: arrays are one
partition; scan columns are cut as the definition's partitioning says:

* ``"any"`` (:func:`scan_compute`): one accumulator fed batch by batch;
* ``"groups"`` (:func:`scan_compute` over :func:`whole_groups`): batches holding
  whole groups (users, queries); the last, maybe unfinished, group of a batch is
  carried into the next, and a group whose rows are not contiguous in the file raises;
* ``"ranges"`` (:func:`scan_ranges`): disjoint score ranges that fit
  ``Scan.max_memory``, found by a first pass that counts rows per score bucket
  and gathers the lowest range's rows on the way; each further pass gathers one
  range's rows (positives and negatives apart) and hands them to the
  definition's ``ranges``.

Every source gives the same checks, messages, exact sums and final value as the
metric's function in memory and as an accumulator in a training loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from .. import _validation as v
from .._kernels import compiled
from ..data._arrow import concat_columns, take_at, to_numpy
from ..data._origin import Batch, located
from ..data._string_buffers import integer_strings
from ..data.scan import Scan, ScanColumn, ScanRun
from ..exceptions import InputValidationError, InvalidParameterError
from .group_ids import Seen
from .kinds import NO_LABELS
from .metric import MetricDefinition
from .states import LabelledRows
from .totals import score_ranges
from .window import batch_rows

__all__ = [
    "is_scan_run",
    "located",
    "range_state",
    "run_counted",
    "run_definition",
    "scan_compute",
    "scan_of",
    "scan_ranges",
    "whole_groups",
]

# bits of the score buckets of a range partitioning (2**20 buckets: 1/256 of a binade each)
BUCKET_BITS = 20
#: what reading a scan takes beside the exact AUC's gathered scores (bytes)
_READING_RESERVE = 192 << 20
# bytes per gathered row of a score range besides its score (float64, or float32
# from a float32 column) and, with weights, its score again: the weight, an argsort
# index and the reordered weight
_WEIGHTED_EXTRA_BYTES = 24


# ------------------------------------------------------------------ dispatch
#: data arguments read as they are from a scan (labels, ids, codes); the others as float64
_NOT_FLOAT = frozenset({"y_true", "groups", "action", "position"})


def _list_of_numbers(x: Any) -> Any:
    """A list or tuple of numbers (bools, ints, floats) as the 1-D NumPy array NumPy
    makes of it, so that it takes the paths arrays take; anything else as given (a
    list of strings, or of ints beyond int64, keeps its own checks)."""
    if type(x) is not list and type(x) is not tuple:
        return x
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError):  # ragged: the checks say so
        return x
    return arr if arr.ndim == 1 and arr.dtype.kind in "biuf" else x


def run_definition(
    defn: MetricDefinition,
    params: dict[str, Any],
    columns: Mapping[str, Any],
    *,
    func: str,
    memory_only: Mapping[str, tuple[Any, Any]] | None = None,
    why: str = "",
    arrays: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Any:
    """The value of a metric's definition on some rows: what every metric's function runs.

    Arrays (lists, pandas/polars/Arrow columns) are one partition: the definition's
    ``one_partition`` hook where it answers, else ``prepare``, ``update`` and
    ``finalize``. Columns of one :func:`receval.scan` are cut as the module says.

    Parameters
    ----------
    defn : MetricDefinition
    params : dict
        The metric's checked options (``defn.check_params(...)``).
    columns : dict of str to data
        The definition's data arguments by name (None for an absent one): arrays,
        or columns of one scan.
    func : str
        The function named in messages.
    memory_only : dict of str to (value, default), default=None
        Options of the function that have no out-of-core form: on scan columns, one
        that is not at its default raises, with ``why``.
    why : str, default=""
        Why those options need every row at once (the end of the message).
    arrays : callable, default=None
        The function's own handling of in-memory arguments that is not a metric
        fact (scikit-learn's ``labels``): ``arrays(columns) -> columns``, run
        before the definition on arrays only.

    Raises
    ------
    InputValidationError
        Scan columns mixed with arrays, or columns of two scans; empty input.
    InvalidParameterError
        An option of ``memory_only`` away from its default on scan columns.
    """
    scan = scan_of(func, **columns)
    if scan is None:  # lists of numbers as arrays: the compiled one-call paths take them
        columns = {name: _list_of_numbers(c) for name, c in columns.items()}
        columns = columns if arrays is None else arrays(columns)
        weights = columns.get("sample_weight")
        if weights is not None and defn.scale_free is not None and defn.scale_free(params):
            # one partition: weights far from 1 are scaled by a power of two (exact)
            n = batch_rows((weights,), {})
            columns["sample_weight"] = v.check_sample_weight(weights, n, func, relative=True)
        if defn.one_partition is not None:
            with defn.named_by(func):
                value = defn.one_partition(params, columns)
            if value is not None:
                return value
        data = {k: columns[k] for k in defn.inputs if k in columns}
        state = defn.add(params, None, (), data, func=func)
        v.check_not_empty(batch_rows((), data), defn.inputs[0], func)
        return defn.value(params, state, func=func)
    for name, (value, default) in (memory_only or {}).items():
        if not (value is default or (isinstance(value, str) and value == default)):
            raise InvalidParameterError(
                f"The '{name}' parameter of {func} is not available out of core (on scan "
                f"columns). Got {value!r}; {why}."
            )
    if defn.partitioning == "groups" and "groups" not in defn.inputs:
        raise InvalidParameterError(
            f"{func}: this metric needs whole groups per batch, which a scan does not "
            f"promise; use the metric's own function on the scan."
        )
    floats = tuple(a for a in defn.inputs if a not in _NOT_FLOAT)
    with scan.timed():
        if defn.partitioning != "groups" and defn.ranges is not None:
            return scan_ranges(defn, params, columns, floats, func=func)
        return scan_compute(defn, params, columns, floats, func=func)


def run_counted(
    defn: MetricDefinition, params: dict[str, Any], columns: Mapping[str, Any], *, func: str
) -> tuple[Any, dict[str, int], str]:
    """The value of a metric's definition on some rows, with the counts of what it left
    out and why: the one way a grouped metric's value and counts are computed together.

    A definition with a ``grouped`` hook (gauc, the grouped metrics) runs as
    :func:`run_definition` runs it (arrays or scan columns; on one partition, the
    weights of a scale-free metric brought near 1 by a power of two), its ``grouped``
    hook giving the value and the counts (``n_groups``, ``n_groups_skipped``,
    ``n_rows_skipped``) from one finalize; its ``one_partition`` hook, which gives the
    value alone, is not run. Any other definition gives :func:`run_definition`'s value,
    ``{}`` and ``""``.

    Parameters
    ----------
    defn : MetricDefinition
    params : dict
        The metric's checked options (``defn.check_params(...)``).
    columns : dict of str to data
        The definition's data arguments by name, as for :func:`run_definition`.
    func : str
        The function named in messages.

    Returns
    -------
    value : object
        What the metric's function returns on these rows.
    counts : dict of str to int
        The groups and those left out (empty for a metric that leaves none out).
    why : str
        Why a group is left out (``"without a positive"``; ``""`` where none is).

    Examples
    --------
    >>> from receval.registry import definition
    >>> gauc = definition("gauc")
    >>> params = gauc.check_params("f")
    >>> columns = {"y_true": [1, 0, 1, 1], "y_score": [0.9, 0.2, 0.4, 0.7], "groups": [1, 1, 2, 2]}
    >>> value, counts, why = run_counted(gauc, params, columns, func="f")
    >>> value, counts  # group 2 has no non-click
    (1.0, {'n_groups': 2, 'n_groups_skipped': 1, 'n_rows_skipped': 2})
    >>> why
    'without both a click and a non-click'
    """
    if defn.grouped is None:
        return run_definition(defn, params, columns, func=func), {}, ""
    counting = replace(defn, finalize=defn.grouped, one_partition=None)
    value, counts, why = run_definition(counting, params, columns, func=func)
    return value, {k: int(n) for k, n in counts.items() if n is not None}, why


def scan_of(func: str, **data: Any) -> Scan | None:
    """The scan whose columns the data arguments are, or None for arrays.

    Mixing scan columns with arrays, or columns of two scans, raises.
    """
    columns = {k: a for k, a in data.items() if isinstance(a, ScanColumn)}
    if not columns:
        return None
    others = [k for k, a in data.items() if a is not None and k not in columns]
    if others:
        first = next(iter(columns))
        raise InputValidationError(
            f"{func}: {first} is a column of a receval.scan(...) but {others[0]} is not. "
            f"Got {type(data[others[0]]).__name__} for {others[0]}; pass columns of one scan "
            f"for every data argument (or arrays for all of them)."
        )
    scans = {id(c.scan) for c in columns.values()}
    if len(scans) > 1:
        names = ", ".join(columns)
        raise InputValidationError(
            f"{func}: {names} are columns of different scans. Got "
            f"{v.format_values([c.scan.name for c in columns.values()])}; take every column "
            f"from one receval.scan(...)."
        )
    scan: Scan = next(iter(columns.values())).scan
    return scan


def is_scan_run(run: Any) -> bool:
    """Whether ``run`` is a scanned run (a :class:`Scan` or its ``as_run()``)."""
    return isinstance(run, (Scan, ScanRun))


def _reading(
    columns: Mapping[str, Any], floats: tuple[str, ...]
) -> tuple[dict[str, ScanColumn], Scan, list[str], list[str]]:
    """The given scan columns by argument, their scan, the names to read and those
    read as float64."""
    given = {arg: col for arg, col in columns.items() if col is not None}
    names = list(dict.fromkeys(col.name for col in given.values()))
    float_names = [given[a].name for a in floats if a in given]
    return given, next(iter(given.values())).scan, names, float_names


# ------------------------------------------------------------------ any split, whole groups
def scan_compute(
    defn: MetricDefinition,
    params: dict[str, Any],
    columns: Mapping[str, Any],
    floats: tuple[str, ...],
    *,
    func: str,
) -> Any:
    """A metric over scan columns, batch by batch into one accumulator: batches of any
    rows, or of whole groups (``columns["groups"]``) for a metric partitioned by groups.
    The arguments are :func:`run_definition`'s; ``floats`` those read as float64."""
    given, scan, names, float_names = _reading(columns, floats)
    if defn.partitioning == "groups":
        group = given["groups"].name
        batches = whole_groups(
            scan, names, group, ids=[group], floats=float_names, func=func, what="group",
            description=func,
        )  # fmt: skip
    else:
        batches = scan.batches(names, floats=float_names, description=func)
    state, n_rows = None, 0
    for batch in batches:
        data = {arg: batch[col.name] for arg, col in given.items()}
        n_rows += len(next(iter(data.values())))
        with located(batch):  # its checks name the function called, then the file and row
            state = defn.add(params, state, (), data, func=func)
    v.check_not_empty(n_rows, defn.inputs[0], func)
    return defn.value(params, state, func=func)  # its warnings name the function called


# ------------------------------------------------------------------ disjoint score ranges
def range_state(defn: MetricDefinition, params: dict[str, Any], batch: LabelledRows) -> Any:
    """The state of a prepared batch that holds every row of its score range (a Spark
    partition after ``repartitionByRange``), with the labels it was given."""
    k = compiled()
    ranges = ranges_of(defn)
    labels, scores, weights, kind = batch
    labels = np.ascontiguousarray(labels)
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if weights is None:
        pos, neg = k.split_by_label(scores, labels)
        return replace(ranges(params, pos, neg, None, None), labels=kind)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    pos, pos_w, neg, neg_w = k.split_by_label_weighted(scores, labels, weights)
    return replace(ranges(params, pos, neg, pos_w, neg_w), labels=kind)


def ranges_of(defn: MetricDefinition) -> Callable[..., Any]:
    """The ``ranges`` constructor of a metric split by disjoint score ranges."""
    if defn.ranges is None:
        raise InvalidParameterError(
            f"The metric {defn.name!r} cannot be computed over disjoint score ranges; "
            f"its partitioning is {defn.partitioning!r}."
        )
    return defn.ranges


def scan_ranges(
    defn: MetricDefinition,
    params: dict[str, Any],
    columns: Mapping[str, Any],
    floats: tuple[str, ...],
    *,
    func: str,
) -> Any:
    """A metric partitioned by disjoint score ranges (exact AUC), over scan columns.

    ``prepare`` gives a :class:`~receval.engine.states.LabelledRows` per batch, whose
    labels every batch must share (as one call's labels). The scores gathered
    at once get the budget less what reading takes (``_READING_RESERVE``, and at
    least an eighth of ``Scan.max_memory``), at 4 bytes a score where the file's
    score column is float32 (every value is one), else 8. The first pass gathers the
    rows of the lowest score buckets that fit in three quarters of that (all of them
    when the file fits: one pass) and counts rows per bucket; the buckets above are
    cut into ranges that fit, and each further pass gathers one range.
    """
    k = compiled()
    ranges = ranges_of(defn)
    given, scan, names, float_names = _reading(columns, floats)
    weighted = given.get("sample_weight") is not None
    dtype = _score_dtype(scan, given[defn.inputs[1]].name)
    per_row = dtype.itemsize * (2 if weighted else 1) + (_WEIGHTED_EXTRA_BYTES if weighted else 0)
    # reading takes about 100 MiB whatever the budget (the decoded row group, a batch
    # and what prepare derives from it, measured)
    gather_bytes = max(scan.max_memory // 8, scan.max_memory - _READING_RESERVE)
    budget_rows = max(1, gather_bytes // per_row)
    shift = 64 - BUCKET_BITS
    n_rows = [0]
    held = [NO_LABELS]  # the labels of the batches read

    def batches(description: str) -> Iterator[tuple[np.ndarray, np.ndarray, Any]]:
        n_rows[0] = 0
        for batch in scan.batches(names, floats=float_names, description=description):
            data = {arg: batch[col.name] for arg, col in given.items()}
            with located(batch), defn.named_by(func):
                labels, scores, weights, kind = defn.prepare(params, **data)
                held[0] = held[0].join(kind, "in this batch")
            n_rows[0] += len(labels)
            weights = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
            yield (
                np.ascontiguousarray(labels),
                np.ascontiguousarray(scores, dtype=np.float64),
                weights,
            )

    def gather(first: int, last: int, n_pos: int, n_neg: int, description: str) -> Any:
        filled = np.zeros(2, dtype=np.int64)
        pos, neg = np.empty(n_pos, dtype), np.empty(n_neg, dtype)
        w_pos, w_neg = (n_pos, n_neg) if weighted else (0, 0)  # no weights: none written
        pos_w, neg_w = np.empty(w_pos), np.empty(w_neg)
        for labels, scores, weights in batches(description):
            out = (pos, pos_w, neg, neg_w, filled)
            k.gather(scores, labels, weights, shift, (first, last), out)
        return state_of(pos, pos_w, neg, neg_w, filled)

    def state_of(pos: Any, pos_w: Any, neg: Any, neg_w: Any, filled: Any) -> Any:
        """The state of one range's rows."""
        n_p, n_n = filled
        if not weighted:
            return ranges(params, pos[:n_p], neg[:n_n], None, None)
        return ranges(params, pos[:n_p], neg[:n_n], pos_w[:n_p], neg_w[:n_n])

    # pass 1 gathers the rows of the lowest score buckets that fit (all of them when
    # the file fits: one pass) and, once the rows outgrow the room, counts rows per
    # bucket for the further passes
    # three quarters of the room: the histogram, its updates and the reader's next
    # batch share this pass (the peak measured higher with all of it)
    first_pass = _FirstPass(budget_rows * 3 // 4, weighted, shift, scan.num_rows, dtype)
    for labels, scores, weights in batches(f"{func} (pass 1)"):
        first_pass.add(k, labels, scores, weights, n_rows[0])
    v.check_not_empty(n_rows[0], defn.inputs[0], func)
    top, hist = first_pass.top, first_pass.hist
    state = None if top < 0 else state_of(*first_pass.buffers())
    del first_pass  # its buffers; the histogram is `hist`
    if hist is None:  # every row gathered
        return defn.value(params, state, func=func)
    cuts = _cuts(hist, top, budget_rows)
    del hist  # 16 MiB: the passes below hold only the rows of their range
    for i, (first, last, n_pos, n_neg) in enumerate(cuts):
        description = f"{func} (pass {i + 2}/{len(cuts) + 1})"
        part = gather(first, last, n_pos, n_neg, description)
        state = part if state is None else state.merge(part)
    return defn.value(params, state, func=func)


def _cuts(
    hist: tuple[np.ndarray, np.ndarray], top: int, budget_rows: int
) -> list[tuple[int, int, int, int]]:
    """``(first bucket, last bucket, positives, negatives)`` of each further pass:
    the buckets above ``top`` cut into ranges of at most ``budget_rows`` rows."""
    neg_hist, pos_hist = hist
    rest = neg_hist + pos_hist
    rest[: top + 1] = 0
    return [
        (first, last, int(pos_hist[first : last + 1].sum()), int(neg_hist[first : last + 1].sum()))
        for first, last in score_ranges(rest, budget_rows)
    ]


def _score_dtype(scan: Scan, column: str) -> np.dtype:
    """float32 for the scores of a float32 (or float16) Parquet column, which gather
    exactly at half the memory; float64 for any other."""
    if scan.file_format == "parquet":
        import pyarrow as pa

        kind = scan.column_type(column)
        if kind is not None and (pa.types.is_float32(kind) or pa.types.is_float16(kind)):
            return np.dtype(np.float32)
    return np.dtype(np.float64)


class _FirstPass:
    """The first pass of the exact AUC over a scan.

    It holds the rows of the score buckets ``0..=top`` seen so far, positives and
    negatives apart, in buffers of ``capacity`` rows each, of which at most
    ``capacity`` in all are written (a buffer's pages are taken as it fills: the
    memory is that of the rows held). While every row seen fits, that is all; when
    they outgrow it, ``hist`` (rows per bucket, negatives and positives) starts from
    the rows held and counts every further row, and ``top`` is lowered to the last
    bucket whose rows, projected over the whole file, fill 90% of the room, the rows
    above dropped in place (``top`` is -1 when not even the first bucket fits).
    """

    def __init__(
        self, capacity: int, weighted: bool, shift: int, total: int | None, dtype: np.dtype
    ) -> None:
        self.capacity, self.shift, self.total = capacity, shift, total
        self.top = (1 << (64 - shift)) - 1
        self.hist: tuple[np.ndarray, np.ndarray] | None = None
        self.filled = np.zeros(2, dtype=np.int64)
        self.pos, self.neg = np.empty(capacity, dtype), np.empty(capacity, dtype)
        self.pos_w = np.empty(capacity if weighted else 0)
        self.neg_w = np.empty(capacity if weighted else 0)

    def add(self, k: Any, labels: Any, scores: Any, weights: Any, seen: int) -> None:
        """Add a batch; ``seen``: the rows read so far, this batch's included."""
        if self.hist is None and seen > self.capacity:
            self._count_held(k)
        if self.hist is not None:
            neg_hist, pos_hist = self.hist
            k.add_histogram(scores, labels, self.shift, neg_hist, pos_hist)
            if self.top >= 0:
                held = int(pos_hist[: self.top + 1].sum() + neg_hist[: self.top + 1].sum())
                if held > self.capacity:
                    counts = pos_hist + neg_hist
                    self._lower(np.cumsum(counts, out=counts), seen)
        if self.top >= 0:
            out = (self.pos, self.pos_w, self.neg, self.neg_w, self.filled)
            k.gather(scores, labels, weights, self.shift, (0, self.top), out)

    def _count_held(self, k: Any) -> None:
        """Start the histogram from the rows held: every row before this batch (but
        those of weight 0, which no pass gathers)."""
        size = 1 << (64 - self.shift)
        neg_hist, pos_hist = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
        step = 1 << 16
        for label, values, n in ((1, self.pos, self.filled[0]), (0, self.neg, self.filled[1])):
            labels = np.full(step, label, dtype=np.int8)
            for start in range(0, int(n), step):
                chunk = values[start : min(start + step, int(n))].astype(np.float64)
                k.add_histogram(chunk, labels[: len(chunk)], self.shift, neg_hist, pos_hist)
        self.hist = (neg_hist, pos_hist)

    def _lower(self, held: np.ndarray, seen: int) -> None:
        scale = max(self.total / max(seen, 1), 1.0) if self.total else 1.0
        self.top = int(np.searchsorted(held, 0.9 * self.capacity / scale, side="right")) - 1
        if self.top < 0:
            self.release()
            return
        limit = np.uint64((self.top + 1) << self.shift)  # the order key past bucket top
        for i, (values, w) in enumerate(((self.pos, self.pos_w), (self.neg, self.neg_w))):
            self.filled[i] = _keep_below(values, w, int(self.filled[i]), limit)

    def buffers(self) -> tuple[Any, Any, Any, Any, Any]:
        return self.pos, self.pos_w, self.neg, self.neg_w, self.filled

    def release(self) -> None:
        self.pos = self.neg = self.pos_w = self.neg_w = np.empty(0)


def _keep_below(values: np.ndarray, weights: np.ndarray, n: int, limit: np.uint64) -> int:
    """Keep, in place and in order, the rows of ``values[:n]`` (and ``weights``, when
    it has rows) whose order key is below ``limit``; the count kept."""
    sign = np.uint64(1 << 63)
    kept = 0
    for start in range(0, n, 1 << 16):  # in chunks: a few MiB at a time
        chunk = values[start : min(start + (1 << 16), n)]
        bits = (chunk.astype(np.float64) + 0.0).view(np.uint64)
        keys = np.where(bits & sign, ~bits, bits | sign)
        keep = keys < limit
        m = int(keep.sum())
        values[kept : kept + m] = chunk[keep]
        if len(weights):
            weights[kept : kept + m] = weights[start : start + len(chunk)][keep]
        kept += m
    return kept


# ------------------------------------------------------------------ whole groups
def _run_starts(ids: Any) -> np.ndarray:
    """Index of the first row of every run of equal ids (0 included)."""
    n = len(ids)
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if isinstance(ids, np.ndarray):
        change = ids[1:] != ids[:-1]
    else:
        import pyarrow.compute as pc

        change = to_numpy(pc.not_equal(ids[1:], ids[:-1]))
    return np.concatenate([[0], np.flatnonzero(change) + 1]).astype(np.int64)


def whole_groups(
    scan: Scan,
    columns: list[str],
    group: str,
    *,
    ids: list[str],
    floats: list[str],
    func: str,
    what: str,
    description: str,
) -> Iterator[Batch]:
    """Batches of ``scan`` holding whole groups of the column ``group``.

    The last (maybe unfinished) group of a batch is carried to the next, and read
    out as a batch of its own with the rows of the next batch's first run if they
    go on with it (only the group's rows are copied, not the next batch; a batch
    that the group fills is joined to it whole); a group whose rows are not
    contiguous raises when the batch holding its
    second run is read. Each batch's ``origin`` names its rows' files and rows:
    a consumer puts them in front of its errors with :func:`located`. The id of
    every run is kept (:class:`~receval.engine.group_ids.Seen`: O(groups) memory), so a
    repeat raises as soon as the batch holding it is read, within the batch or
    against the earlier ones, naming the file and row where the group comes again.
    """
    seen = Seen()
    # string ids held as the integers they spell while every one is an integer's
    # canonical spelling (one to one: the same repeats; the ids of a CSV file)
    spelled = True

    def check(batch: Batch, starts: np.ndarray) -> None:
        """Add the ids of the runs starting at rows ``starts``; raise if one was seen."""
        nonlocal seen, spelled
        run_ids = take_at(batch[group], starts)
        if not isinstance(run_ids, np.ndarray):
            ints = integer_strings(run_ids) if spelled else None
            if ints is None and spelled:  # from here on as text, the ids held included
                spelled = False
                seen = Seen(ids=set(seen.ints.astype(str).tolist()))
            run_ids = to_numpy(run_ids) if ints is None else ints
        repeated = seen.add_new(run_ids)
        if repeated:
            bad = repeated[0]
            at = [i for i, x in enumerate(run_ids.tolist()) if x == bad]
            # a repeat within the batch is its second run; else its first run here
            row = int(starts[at[1] if len(at) > 1 else at[0]]) if at else None
            bad = bad.item() if isinstance(bad, np.generic) else bad
            bad = str(bad) if spelled and not isinstance(batch[group], np.ndarray) else bad
            error = InputValidationError(
                f"{func}: the rows of each {what} must be contiguous in the file (grouped, "
                f"e.g. sorted by {what}). Got {what} {bad!r} again after other {what}s' "
                f"rows; sort or group the file by {group!r} first."
            )
            error.row = row
            with located(batch):
                raise error

    def joined(a: Batch, b: Batch) -> Batch:
        return Batch({c: concat_columns([a[c], b[c]], c) for c in columns}, a.origin + b.origin)

    first = np.zeros(1, dtype=np.int64)
    carry: Batch | None = None
    for batch in scan.batches(columns, ids=ids, floats=floats, description=description):
        starts = _run_starts(batch[group])
        if carry is not None:
            # the carried group, with the rows of the batch's first run when they go on
            # with it, is a batch of its own: only those rows are copied, not the batch
            ends = _run_starts(concat_columns([carry[group][-1:], batch[group][:1]], group))
            end = 0 if len(ends) > 1 else int(starts[1]) if len(starts) > 1 else len(batch.origin)
            if end == len(batch.origin):  # the batch goes on with the carried group
                carry = joined(carry, batch)
                continue
            if end:
                carry = joined(carry, batch.slice(0, end))
                batch, starts = batch.slice(end), starts[1:] - end
            check(carry, first)
            yield carry
        cut = int(starts[-1])
        carry = batch.slice(cut)
        if cut:
            check(batch, starts[:-1])
            yield batch.slice(0, cut)
    if carry is not None and len(carry[group]):
        check(carry, first)
        yield carry
