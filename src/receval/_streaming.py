"""Out-of-core metrics: the public functions on columns of a :func:`receval.scan`.

Each function reads only the columns it needs, batch by batch, validates every
batch as the in-memory function validates its input (same messages), and
reduces it to a mergeable state of ``receval._states``:

* log loss, PCOC, COPC: :class:`~receval._states.Totals` (sums), any row order;
* exact ROC AUC: a first pass counts rows per score bucket; the buckets are cut
  into ranges that fit ``Scan.max_memory``; each further pass gathers the
  scores of one range (positives and negatives apart), sorts them and counts
  the pairs (:class:`~receval._states.ScoreRange`); :func:`auc_from_ranges`
  adds the ranges up exactly. Any row order;
* GAUC: one pass over whole groups (the rows of a group must be contiguous;
  checked), :class:`~receval._states.GroupTotals` per batch;
* :func:`receval.evaluate`: whole users per batch (contiguous; checked), each
  batch a :class:`~receval.Run` against the qrels users it holds.

This module imports nothing heavy at import time: the metric modules import it
to recognise scan columns.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from . import _validation as v
from .data.scan import Scan, ScanColumn, ScanRun
from .exceptions import InputValidationError, InvalidParameterError

_EPS = float(np.finfo(np.float64).eps)
# bits of the score buckets of the exact AUC (2**20 buckets: 1/256 of a binade each)
_BUCKET_BITS = 20
# bytes per gathered row of the exact AUC: a float64 score; with weights the
# score and weight, an argsort index and the reordered copies
_BYTES_PER_ROW = 8
_BYTES_PER_WEIGHTED_ROW = 40


# ------------------------------------------------------------------ dispatch
def is_scan(func: str, **data: Any) -> bool:
    """Whether the data arguments are scan columns (all of them, from one scan).

    Mixing scan columns with arrays, or columns of two scans, raises.
    """
    columns = {k: a for k, a in data.items() if isinstance(a, ScanColumn)}
    if not columns:
        return False
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
    return True


def is_scan_run(run: Any) -> bool:
    return isinstance(run, (Scan, ScanRun))


def _scan(*columns: ScanColumn | None) -> Scan:
    return next(c.scan for c in columns if c is not None)


def _names(*columns: ScanColumn | None) -> list[str]:
    return [c.name for c in columns if c is not None]


def _refuse(func: str, name: str, value: Any, default: Any, why: str) -> None:
    if not (value is default or (isinstance(value, str) and value == default)):
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} is not available out of core (on scan "
            f"columns). Got {value!r}; {why}."
        )


# ------------------------------------------------------------------ sums: log loss, PCOC
def log_loss(
    y_true: ScanColumn,
    y_pred: ScanColumn,
    *,
    normalize: bool,
    sample_weight: ScanColumn | None,
    labels: Any,
    eps: Any,
) -> float:
    _refuse("log_loss", "labels", labels, None, "out of core y_true must hold 0/1 labels")
    from .engine.sources import scan_compute

    columns = {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight}
    options = {"eps": eps, "normalize": normalize}
    return scan_compute("log_loss", columns, ("y_pred", "sample_weight"), **options)


def pcoc(y_true: ScanColumn, y_prob: ScanColumn, *, sample_weight: ScanColumn | None) -> float:
    return _engine("pcoc", y_true, y_prob, sample_weight)


def copc(y_true: ScanColumn, y_prob: ScanColumn, *, sample_weight: ScanColumn | None) -> float:
    return _engine("copc", y_true, y_prob, sample_weight)


def normalized_entropy(
    y_true: ScanColumn, y_prob: ScanColumn, *, sample_weight: ScanColumn | None, eps: Any
) -> float:
    return _engine("normalized_entropy", y_true, y_prob, sample_weight, eps=eps)


def _engine(name: str, y_true: Any, y_prob: Any, sample_weight: Any, **options: Any) -> Any:
    """A metric of the engine (rows split anyway) over scan columns, batch by batch."""
    from .engine.sources import scan_compute

    columns = {"y_true": y_true, "y_prob": y_prob, "sample_weight": sample_weight}
    return scan_compute(name, columns, ("y_prob", "sample_weight"), **options)


def roc_auc_score(
    y_true: ScanColumn,
    y_score: ScanColumn,
    *,
    sample_weight: ScanColumn | None,
    pos_label: Any,
    multi_class: str,
    labels: Any,
) -> float:
    from ._states import auc_from_ranges
    from .metrics._binary import warn_undefined

    func = "roc_auc_score"
    why = "out of core only binary AUC is available (one score column)"
    _refuse(func, "multi_class", multi_class, "raise", why)
    _refuse(func, "labels", labels, None, why)
    scan = _scan(y_true)
    weighted = sample_weight is not None
    per_row = _BYTES_PER_WEIGHTED_ROW if weighted else _BYTES_PER_ROW
    budget_rows = max(1, scan.max_memory // per_row)
    reader = _AucReader(func, scan, y_true, y_score, sample_weight, pos_label)
    if scan.num_rows is not None and 2 * scan.num_rows <= budget_rows:
        # everything fits twice over (both classes sized for every row): one pass
        n = scan.num_rows
        ranges = [reader.gather(0, (1 << _BUCKET_BITS) - 1, n, n, "")]
        v.check_not_empty(reader.n_rows, "y_true", func)
    else:
        neg, pos = reader.histogram()
        v.check_not_empty(int(neg.sum() + pos.sum()), "y_true", func)
        from ._states import score_ranges

        cuts = score_ranges(neg + pos, budget_rows)
        ranges = []
        for i, (first, last) in enumerate(cuts):
            n_pos = int(pos[first : last + 1].sum())
            n_neg = int(neg[first : last + 1].sum())
            label = f" (pass {i + 2}/{len(cuts) + 1})"
            ranges.append(reader.gather(first, last, n_pos, n_neg, label))
    value = auc_from_ranges(ranges)
    if np.isnan(value):
        return warn_undefined(
            f"{func}: y_true has a single class, so the AUC is undefined (returned as nan)."
        )
    return value


class _AucReader:
    """The passes of the exact AUC over one scan."""

    def __init__(
        self,
        func: str,
        scan: Scan,
        y_true: ScanColumn,
        y_score: ScanColumn,
        sample_weight: ScanColumn | None,
        pos_label: Any,
    ) -> None:
        self.func = func
        self.scan = scan
        self.y_true, self.y_score, self.sample_weight = y_true, y_score, sample_weight
        self.pos_label = pos_label
        self.columns = _names(y_true, y_score, sample_weight)
        self.n_rows = 0

    def _batches(self, description: str) -> Iterator[tuple[np.ndarray, np.ndarray, Any]]:
        func = self.func
        self.n_rows = 0
        for batch in self.scan.batches(
            self.columns, floats=self.columns[1:], description=description
        ):
            yt = v.as_1d(batch[self.y_true.name], "y_true", func)
            ys = batch[self.y_score.name]
            sw = None if self.sample_weight is None else batch[self.sample_weight.name]
            n = len(yt)
            labels = v.binarize_labels(yt, self.pos_label, func)
            scores = v.check_finite(v.as_float(ys, "y_score", func), "y_score", func)
            weights = v.check_sample_weight(sw, n, func)
            self.n_rows += n
            yield labels, np.ascontiguousarray(scores), weights

    def histogram(self) -> tuple[np.ndarray, np.ndarray]:
        from ._kernels._streaming import _add_histogram

        size = 1 << _BUCKET_BITS
        neg = np.zeros(size, dtype=np.int64)
        pos = np.zeros(size, dtype=np.int64)
        for labels, scores, _ in self._batches(f"{self.func} (pass 1: score histogram)"):
            _add_histogram(scores, labels, 64 - _BUCKET_BITS, neg, pos)
        return neg, pos

    def gather(self, first: int, last: int, n_pos: int, n_neg: int, label: str) -> Any:
        """The ScoreRange of the rows in buckets ``[first, last]`` (at most ``n_pos``
        positives and ``n_neg`` negatives)."""
        from ._kernels import _streaming as k

        shift = 64 - _BUCKET_BITS
        filled = np.zeros(2, dtype=np.int64)
        pos = np.empty(n_pos)
        neg = np.empty(n_neg)
        description = f"{self.func}{label}"
        if self.sample_weight is None:
            for labels, scores, _ in self._batches(description):
                k._gather(scores, labels, shift, first, last, pos, neg, filled)
            return _range_state(pos[: filled[0]], neg[: filled[1]])
        pos_w = np.empty(n_pos)
        neg_w = np.empty(n_neg)
        for labels, scores, weights in self._batches(description):
            k._gather_weighted(
                scores, labels, weights, shift, first, last, pos, pos_w, neg, neg_w, filled
            )
        return _weighted_range_state(
            pos[: filled[0]], pos_w[: filled[0]], neg[: filled[1]], neg_w[: filled[1]]
        )


def _range_state(pos: np.ndarray, neg: np.ndarray) -> Any:
    """ScoreRange of gathered unweighted scores (sorted in place; exact int counts)."""
    from ._kernels._auc import _pair_count_sorted
    from ._states import ScoreRange
    from .metrics._binary import sort_chunks

    if len(pos) + len(neg) == 0:
        return ScoreRange(float("nan"), float("nan"), 0, 0, 0)
    pos.sort()
    chunks = sort_chunks(neg)
    two_u = sum(int(_pair_count_sorted(pos, chunk)) for chunk in chunks)
    ends = [x for a in (pos, *chunks) if len(a) for x in (a[0], a[-1])]
    return ScoreRange(float(min(ends)), float(max(ends)), len(pos), len(neg), two_u)


def _weighted_range_state(
    pos: np.ndarray, pos_w: np.ndarray, neg: np.ndarray, neg_w: np.ndarray
) -> Any:
    from ._kernels._auc import _pair_weight_sorted
    from ._states import ScoreRange

    if len(pos) + len(neg) == 0:
        return ScoreRange(float("nan"), float("nan"), 0.0, 0.0, 0.0)
    o = np.argsort(pos, kind="stable")
    pos, pos_w = pos[o], pos_w[o]
    o = np.argsort(neg, kind="stable")
    neg, neg_w = neg[o], neg_w[o]
    del o
    area = float(_pair_weight_sorted(pos, pos_w, neg, neg_w))
    ends = [x for a in (pos, neg) if len(a) for x in (a[0], a[-1])]
    return ScoreRange(
        float(min(ends)), float(max(ends)), float(pos_w.sum()), float(neg_w.sum()), 2.0 * area
    )


# ------------------------------------------------------------------ whole groups
def _concat(a: Any, b: Any) -> Any:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.concatenate([a, b])
    import pyarrow as pa

    def arrow(x: Any) -> Any:
        return x if isinstance(x, pa.Array) else pa.array(x)

    return pa.concat_arrays([arrow(a), arrow(b)])


def _run_starts(ids: Any) -> np.ndarray:
    """Index of the first row of every run of equal ids (0 included)."""
    n = len(ids)
    if n == 0:
        return np.empty(0, dtype=np.int64)
    if isinstance(ids, np.ndarray):
        change = ids[1:] != ids[:-1]
    else:
        import pyarrow.compute as pc

        change = pc.not_equal(ids[1:], ids[:-1]).to_numpy(zero_copy_only=False)
    return np.concatenate([[0], np.flatnonzero(change) + 1]).astype(np.int64)


def _take(ids: Any, index: np.ndarray) -> np.ndarray:
    if isinstance(ids, np.ndarray):
        return ids[index]
    return ids.take(index).to_numpy(zero_copy_only=False)


def _py(x: Any) -> Any:
    return x.item() if isinstance(x, np.generic) else x


class _Contiguity:
    """Checks that every group's rows form one run, batch by batch: the id of
    every run is kept (O(groups) memory) and a repeat raises as soon as the
    batch holding it is read, within the batch or against the earlier ones."""

    def __init__(self, func: str, what: str, column: str, path: str) -> None:
        self.func, self.what, self.column, self.path = func, what, column, path
        self.sorted = np.empty(0, dtype=np.int64)  # integer ids seen, sorted
        self.others: set[Any] = set()  # other ids seen (strings, floats)

    def add(self, run_ids: np.ndarray) -> None:
        if len(run_ids) == 0:
            return
        if run_ids.dtype.kind in "iu" and run_ids.dtype != np.uint64 and not self.others:
            ordered = np.sort(run_ids.astype(np.int64, copy=False))
            self._raise_if(ordered[1:][ordered[1:] == ordered[:-1]])
            pos = np.minimum(np.searchsorted(self.sorted, ordered), max(len(self.sorted) - 1, 0))
            if len(self.sorted):
                self._raise_if(ordered[self.sorted[pos] == ordered])
            merged = np.concatenate([self.sorted, ordered])
            merged.sort(kind="stable")  # two sorted runs: merged in linear time
            self.sorted = merged
            return
        if len(self.sorted):  # ids of another kind after integers: compare as Python values
            self.others.update(self.sorted.tolist())
            self.sorted = np.empty(0, dtype=np.int64)
        values = run_ids.tolist()
        batch = set(values)
        if len(batch) < len(values):
            seen: set[Any] = set()
            self._raise_if([x for x in values if x in seen or seen.add(x)])
        self._raise_if([x for x in values if x in self.others])
        self.others |= batch

    def finish(self) -> None:
        """Nothing is left to check: every batch was checked when read."""

    def _raise_if(self, repeated: Any) -> None:
        if len(repeated):
            bad = _py(repeated[0])
            raise InputValidationError(
                f"{self.func}: the rows of each {self.what} must be contiguous in the file "
                f"(grouped, e.g. sorted by {self.what}). Got {self.what} {bad!r} again after "
                f"other {self.what}s' rows in {self.path}; sort or group the file by "
                f"{self.column!r} first."
            )


def _whole_groups(
    scan: Scan,
    columns: list[str],
    group: str,
    *,
    ids: list[str],
    floats: list[str],
    func: str,
    what: str,
    description: str,
) -> Iterator[dict[str, Any]]:
    """Batches holding whole groups: the last (maybe unfinished) group of a batch
    is carried into the next. Checks that each group's rows are contiguous."""
    check = _Contiguity(func, what, group, scan.name)
    carry: dict[str, Any] | None = None
    for batch in scan.batches(columns, ids=ids, floats=floats, description=description):
        if carry is not None:
            batch = {c: _concat(carry[c], batch[c]) for c in columns}
        starts = _run_starts(batch[group])
        cut = int(starts[-1])
        carry = {c: batch[c][cut:] for c in columns}
        if cut:
            check.add(_take(batch[group], starts[:-1]))
            yield {c: batch[c][:cut] for c in columns}
    if carry is not None and len(carry[group]):
        check.add(_take(carry[group], np.zeros(1, dtype=np.int64)))
        yield carry
    check.finish()


def _group_weighting(func: str, weighting: Any) -> tuple[Any, ScanColumn | None]:
    if isinstance(weighting, ScanColumn):
        return None, weighting
    if isinstance(weighting, str) or isinstance(weighting, Mapping) or hasattr(weighting, "items"):
        return weighting, None
    raise InputValidationError(
        f"{func}: weighting must be a string, a mapping or a column of the same scan when the "
        f"data are scan columns. Got {type(weighting).__name__}; pass scan['<column>'] for "
        f"per-row group weights."
    )


def _group_reports(
    func: str,
    y_true: ScanColumn,
    y_score: ScanColumn,
    groups: ScanColumn,
    weighting: Any,
    sample_weight: ScanColumn | None,
) -> Iterator[Any]:
    from .metrics._gauc import group_auc_of

    fixed, weight_column = _group_weighting(func, weighting)
    if weight_column is not None and weight_column.scan is not y_true.scan:
        is_scan(func, y_true=y_true, weighting=weight_column, groups=groups)
    scan = _scan(y_true)
    columns = list(dict.fromkeys(_names(y_true, y_score, sample_weight, weight_column, groups)))
    floats = _names(y_score, sample_weight, weight_column)
    n = 0
    for chunk in _whole_groups(
        scan, columns, groups.name, ids=[groups.name], floats=floats, func=func,
        what="group", description=func,
    ):  # fmt: skip
        w = fixed if weight_column is None else chunk[weight_column.name]
        sw = None if sample_weight is None else chunk[sample_weight.name]
        n += len(chunk[y_true.name])
        yield group_auc_of(chunk[y_true.name], chunk[y_score.name], chunk[groups.name], w, sw, func)
    v.check_not_empty(n, "y_true", func)


def gauc_score(
    y_true: ScanColumn,
    y_score: ScanColumn,
    *,
    groups: ScanColumn,
    weighting: Any,
    sample_weight: ScanColumn | None,
) -> float:
    from ._states import EMPTY_GROUP_TOTALS, report_totals
    from .metrics._gauc import gauc_or_warn

    func = "gauc_score"
    if groups is None:
        raise InputValidationError(f"{func}: groups is None; pass the group id of each row.")
    state = EMPTY_GROUP_TOTALS
    for report in _group_reports(func, y_true, y_score, groups, weighting, sample_weight):
        state = state.merge(report_totals(report))
    return gauc_or_warn(state.score, state.n_groups)


def group_auc(
    y_true: ScanColumn,
    y_score: ScanColumn,
    *,
    groups: ScanColumn,
    weighting: Any,
    sample_weight: ScanColumn | None,
) -> Any:
    """Per-group arrays of every batch, concatenated (O(groups) memory)."""
    from ._states import gauc_sums, gauc_value
    from .metrics._gauc import GroupAUCReport

    func = "gauc_score"
    if groups is None:
        raise InputValidationError(f"{func}: groups is None; pass the group id of each row.")
    parts = list(_group_reports(func, y_true, y_score, groups, weighting, sample_weight))
    auc = np.concatenate([p.auc for p in parts])
    weight = np.concatenate([p.weight for p in parts])
    rows = np.concatenate([p.n_rows for p in parts])
    skipped = np.isnan(auc)
    score = gauc_value(*gauc_sums(auc, weight))
    used = {p.weighting for p in parts}
    return GroupAUCReport(
        score=score,
        groups=np.concatenate([p.groups for p in parts]),
        auc=auc,
        weight=weight,
        n_rows=rows,
        n_groups=len(auc),
        n_groups_skipped=int(skipped.sum()),
        n_rows_skipped=int(rows[skipped].sum()),
        weighting=used.pop() if len(used) == 1 else "custom",
    )


# ------------------------------------------------------------------ evaluate
def _subset_qrels(q: Any, users: np.ndarray) -> Any:
    """The qrels of some users (positions in ``q``), with their items only."""
    from .data._ranked import Qrels

    lengths = np.diff(q.offsets)[users]
    offsets = np.zeros(len(users) + 1, dtype=q.offsets.dtype)
    np.cumsum(lengths, out=offsets[1:])
    rows = np.repeat(q.offsets[users] - offsets[:-1], lengths) + np.arange(int(offsets[-1]))
    items = q.items[rows]
    kept, codes = np.unique(items, return_inverse=True)  # monotone: item order kept
    sub = Qrels.__new__(Qrels)
    sub.offsets = offsets
    sub.items = codes.astype(q.items.dtype, copy=False)
    sub.grades = q.grades[rows]
    sub.grades_desc = q.grades_desc[rows]
    sub.user_ids = q.user_ids[users]
    sub.item_ids = q.item_ids[kept]
    return sub


def evaluate(qrels: Any, run: Scan | ScanRun, metrics: Any, **options: Any) -> Any:
    """:func:`receval.evaluate` with a scanned run, read in batches of whole users."""
    from . import evaluation as e
    from .data._encode import lookup
    from .data._ranked import Run

    func = "evaluate"
    spec = run.as_run() if isinstance(run, Scan) else run
    features = options.pop("features")
    feature_items = options.pop("feature_items")
    similarity = options.pop("similarity")
    metrics, specs, convs, listwise = e.prepare_metrics(metrics, features, similarity, options)
    if qrels is None:
        return _evaluate_lists(spec, metrics, specs, convs, listwise, features, feature_items,
                               similarity)  # fmt: skip
    q = e.as_qrels(qrels)
    ranked = [t for t in specs if t not in listwise]
    values = np.full((q.n_users, len(ranked)), np.nan)
    aux = np.zeros((q.n_users, len(ranked)))
    list_cols = {t: np.full(q.n_users, np.nan) for t in specs if t in listwise}
    seen = np.zeros(q.n_users, dtype=bool)
    n_run_only = 0
    name = spec.name or os.path.basename(os.path.normpath(spec.scan.name))
    last_run: Run | None = None
    for r in _run_batches(spec, func):
        last_run = r
        user_map = lookup(q.user_ids, r.user_ids)
        users = np.flatnonzero(user_map >= 0)
        n_run_only += r.n_users - len(users)
        if not len(users):
            continue
        seen[users] = True
        sub = _subset_qrels(q, users)
        if ranked:
            vals, den = e.ranked_values(sub, r, specs, convs, ranked, user_map[users])
            values[users] = vals
            aux[users] = den
        if listwise:
            of_run = e.list_values(r, listwise, specs, features, feature_items, similarity)
            for text, col in of_run.items():
                list_cols[text][users] = col[user_map[users]]
    if last_run is None:
        v.check_not_empty(0, "users", "Run")
    missing = np.flatnonzero(~seen)
    if len(missing) and any(c.missing_users == "error" for c in convs.values()):
        raise InputValidationError(
            f"{func}: {len(missing)} qrels users are absent from the run, e.g. "
            f"{v.format_values(q.user_ids[missing])}; pass missing_users='zero' or 'skip' to "
            f"score them 0 or leave them out."
        )
    if len(missing) and ranked:
        sub = _subset_qrels(q, missing)
        absent = np.full(len(missing), -1, dtype=np.int32)
        vals, den = e.ranked_values(sub, last_run, specs, convs, ranked, absent)
        values[missing] = vals
        aux[missing] = den
    return e.build_report(
        q, metrics, specs, convs, ranked, values, aux, list_cols,
        n_missing=len(missing), n_run_only=n_run_only, run_name=name,
    )  # fmt: skip


def _run_batches(spec: ScanRun, func: str) -> Iterator[Any]:
    """The run of a scan as :class:`~receval.Run` objects of whole users."""
    from .data._ranked import Run

    scan = spec.scan
    value_column = spec.score if spec.rank is None else spec.rank
    columns = [spec.user, spec.item, value_column]
    name = spec.name or os.path.basename(os.path.normpath(scan.name))
    for chunk in _whole_groups(
        scan, columns, spec.user, ids=[spec.user, spec.item], floats=[value_column],
        func=func, what="user", description=func,
    ):  # fmt: skip
        values_in = chunk[value_column]
        if spec.rank is None:
            yield Run(chunk[spec.user], chunk[spec.item], values_in, name=name)
        else:
            yield Run(chunk[spec.user], chunk[spec.item], ranks=values_in, name=name)


def _evaluate_lists(
    spec: ScanRun,
    metrics: list[str],
    specs: dict[str, Any],
    convs: dict[str, Any],
    listwise: set[str],
    features: Any,
    feature_items: Any,
    similarity: Any,
) -> Any:
    """``evaluate(None, scan, ...)``: beyond-accuracy metrics of the run's users, batch by batch."""
    from . import evaluation as e

    func = "evaluate"
    if len(listwise) < len(specs):
        first = next(t for t in specs if t not in listwise)
        raise InvalidParameterError(
            f"Metric {first!r} needs relevance judgments; pass qrels to evaluate "
            f"(qrels=None is only for beyond-accuracy metrics such as 'ils@10')."
        )
    users: list[Any] = []
    cols: dict[str, list[np.ndarray]] = {t: [] for t in specs}
    name = None
    for r in _run_batches(spec, func):
        name = r.name
        users.append(r.user_ids)
        for text, col in e.list_values(r, listwise, specs, features, feature_items,
                                        similarity).items():  # fmt: skip
            cols[text].append(col)
    if not users:
        v.check_not_empty(0, "users", "Run")
    states: dict[str, Any] = {}
    per_user: dict[str, np.ndarray] = {}
    empty: dict[str, int] = {}
    skipped: dict[str, int] = {}
    for text in specs:
        e.store_list_metric(text, np.concatenate(cols[text]), states, per_user, empty, skipped)
    all_users = np.concatenate([np.asarray(u, dtype=object) for u in users])
    if all(np.asarray(u).dtype.kind in "iu" for u in users):
        all_users = np.concatenate(users)
    return e.EvaluationReport(
        mean={t: states[t].value for t in metrics},
        users=all_users,
        values={t: per_user[t] for t in metrics},
        metrics={t: str(specs[t]) for t in metrics},
        conventions={t: convs[t] for t in metrics},
        n_users=len(all_users),
        n_users_missing=0,
        n_users_empty=empty,
        n_users_skipped=skipped,
        n_run_only_users=0,
        run_name=name,
        _states={t: states[t] for t in metrics},
    )
