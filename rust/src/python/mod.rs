//! The `receval._core` module: NumPy arrays in and out, the GIL released around the
//! work. Arrays must be C-contiguous (the Python layer passes them so); a wrong
//! length or layout raises `ValueError`, never a panic.

use numpy::{
    IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::{auc, encode, gauc, scan, sums, threads};

mod checked;
mod codes;
mod columns;
mod lists;
mod ranking;
mod retention;
mod stats;
mod trec;

pub(crate) fn slice<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray1<'_, T>,
    name: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a C-contiguous 1-D array")))
}

pub(crate) fn same_length(func: &str, lengths: &[(&str, usize)]) -> PyResult<()> {
    if let Some((first, n)) = lengths.first() {
        for (name, m) in &lengths[1..] {
            if m != n {
                return Err(PyValueError::new_err(format!(
                    "{func}: {name} has {m} elements but {first} has {n}"
                )));
            }
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ sums
/// Accumulator (int64, length SIZE) of `sum(x)`.
#[pyfunction]
#[pyo3(signature = (x, n_chunks, carry_every = sums::CARRY_EVERY))]
fn exact_sum<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    n_chunks: usize,
    carry_every: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let x = slice(&x, "x")?;
    let acc = py.detach(|| sums::exact_sum(x, n_chunks, carry_every));
    Ok(acc.to_vec().into_pyarray(py))
}

/// Accumulator of `sum(x * w)`, each product rounded first.
#[pyfunction]
#[pyo3(signature = (x, w, n_chunks, carry_every = sums::CARRY_EVERY))]
fn exact_dot<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    w: PyReadonlyArray1<'py, f64>,
    n_chunks: usize,
    carry_every: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (x, w) = (slice(&x, "x")?, slice(&w, "w")?);
    same_length("exact_dot", &[("x", x.len()), ("w", w.len())])?;
    let acc = py.detach(|| sums::exact_dot(x, w, n_chunks, carry_every));
    Ok(acc.to_vec().into_pyarray(py))
}

/// Carry the digits of an accumulator in place.
#[pyfunction]
fn normalize(mut acc: PyReadwriteArray1<'_, i64>) -> PyResult<()> {
    let acc = acc
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("acc must be a C-contiguous 1-D array"))?;
    if acc.len() != sums::SIZE {
        return Err(PyValueError::new_err(format!(
            "acc must have {} elements, got {}",
            sums::SIZE,
            acc.len()
        )));
    }
    sums::normalize(acc);
    Ok(())
}

/// Accumulator of the binary log loss sum (weights of length 0: unit weights).
#[pyfunction]
#[pyo3(signature = (labels, proba, weights, eps, n_chunks, carry_every = sums::CARRY_EVERY))]
fn binary_log_loss_exact<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'py, i8>,
    proba: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    eps: f64,
    n_chunks: usize,
    carry_every: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (l, p, w) = (
        slice(&labels, "labels")?,
        slice(&proba, "proba")?,
        slice(&weights, "weights")?,
    );
    same_length(
        "binary_log_loss_exact",
        &[("labels", l.len()), ("proba", p.len())],
    )?;
    if !w.is_empty() {
        same_length(
            "binary_log_loss_exact",
            &[("labels", l.len()), ("weights", w.len())],
        )?;
    }
    let acc = py.detach(|| sums::binary_log_loss_exact(l, p, w, eps, n_chunks, carry_every));
    Ok(acc.to_vec().into_pyarray(py))
}

/// Accumulator of the multiclass log loss sum: `-w ln(clip(proba[i, codes[i]]))`.
#[pyfunction]
fn multiclass_log_loss_exact<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i64>,
    proba: PyReadonlyArray2<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    eps: f64,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (c, w) = (slice(&codes, "codes")?, slice(&weights, "weights")?);
    let shape = proba.shape();
    let (n, k) = (shape[0], shape[1]);
    if !proba.is_c_contiguous() {
        // as_slice() also takes a Fortran-ordered array, whose rows it would misread
        return Err(PyValueError::new_err(
            "proba must be a C-contiguous 2-D array",
        ));
    }
    let p = proba
        .as_slice()
        .map_err(|_| PyValueError::new_err("proba must be a C-contiguous 2-D array"))?;
    same_length(
        "multiclass_log_loss_exact",
        &[("codes", c.len()), ("proba", n)],
    )?;
    if !w.is_empty() {
        same_length(
            "multiclass_log_loss_exact",
            &[("codes", c.len()), ("weights", w.len())],
        )?;
    }
    if c.iter().any(|&x| x < 0 || x as usize >= k) {
        return Err(PyValueError::new_err(format!(
            "multiclass_log_loss_exact: codes must lie in [0, {k})"
        )));
    }
    let acc = py.detach(|| sums::multiclass_log_loss_exact(c, p, k, w, eps, n_chunks));
    Ok(acc.to_vec().into_pyarray(py))
}

// ------------------------------------------------------------------ AUC
type Array<'py> = Bound<'py, PyArray1<f64>>;
type Ints<'py> = Bound<'py, PyArray1<i64>>;

/// Scores of the rows labelled 1 and of the others.
#[pyfunction]
fn split_by_label<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray1<'py, f64>,
    labels: PyReadonlyArray1<'py, i8>,
) -> PyResult<(Array<'py>, Array<'py>)> {
    let (s, l) = (slice(&scores, "scores")?, slice(&labels, "labels")?);
    same_length(
        "split_by_label",
        &[("scores", s.len()), ("labels", l.len())],
    )?;
    let (pos, neg) = py.detach(|| auc::split_by_label(s, l));
    Ok((pos.into_pyarray(py), neg.into_pyarray(py)))
}

/// Split by label with weights; rows of weight zero are left out.
#[pyfunction]
fn split_by_label_weighted<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray1<'py, f64>,
    labels: PyReadonlyArray1<'py, i8>,
    weights: PyReadonlyArray1<'py, f64>,
) -> PyResult<(Array<'py>, Array<'py>, Array<'py>, Array<'py>)> {
    let (s, l, w) = (
        slice(&scores, "scores")?,
        slice(&labels, "labels")?,
        slice(&weights, "weights")?,
    );
    same_length(
        "split_by_label_weighted",
        &[
            ("scores", s.len()),
            ("labels", l.len()),
            ("weights", w.len()),
        ],
    )?;
    let (p, pw, n, nw) = py.detach(|| auc::split_by_label_weighted(s, l, w));
    Ok((
        p.into_pyarray(py),
        pw.into_pyarray(py),
        n.into_pyarray(py),
        nw.into_pyarray(py),
    ))
}

/// Twice the Mann-Whitney U of ascending `pos` against ascending `neg`.
#[pyfunction]
fn pair_count_sorted(
    py: Python<'_>,
    pos: PyReadonlyArray1<'_, f64>,
    neg: PyReadonlyArray1<'_, f64>,
) -> PyResult<i64> {
    let (p, n) = (slice(&pos, "pos")?, slice(&neg, "neg")?);
    Ok(py.detach(|| auc::pair_count_sorted(p, n)))
}

/// Weighted U of ascending `pos` against ascending `neg`.
#[pyfunction]
fn pair_weight_sorted(
    py: Python<'_>,
    pos: PyReadonlyArray1<'_, f64>,
    pos_w: PyReadonlyArray1<'_, f64>,
    neg: PyReadonlyArray1<'_, f64>,
    neg_w: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let (p, pw) = (slice(&pos, "pos")?, slice(&pos_w, "pos_w")?);
    let (n, nw) = (slice(&neg, "neg")?, slice(&neg_w, "neg_w")?);
    same_length(
        "pair_weight_sorted",
        &[("pos", p.len()), ("pos_w", pw.len())],
    )?;
    same_length(
        "pair_weight_sorted",
        &[("neg", n.len()), ("neg_w", nw.len())],
    )?;
    Ok(py.detach(|| auc::pair_weight_sorted(p, pw, n, nw)))
}

/// `(thresholds, tps, fps)` of ascending `pos` and `neg`, thresholds descending.
#[pyfunction]
fn threshold_counts_sorted<'py>(
    py: Python<'py>,
    pos: PyReadonlyArray1<'py, f64>,
    neg: PyReadonlyArray1<'py, f64>,
) -> PyResult<(Array<'py>, Array<'py>, Array<'py>)> {
    let (p, n) = (slice(&pos, "pos")?, slice(&neg, "neg")?);
    let (t, tp, fp) = py.detach(|| auc::threshold_counts_sorted(p, None, n, None));
    Ok((t.into_pyarray(py), tp.into_pyarray(py), fp.into_pyarray(py)))
}

/// Weighted twin of `threshold_counts_sorted`.
#[pyfunction]
fn threshold_counts_sorted_weighted<'py>(
    py: Python<'py>,
    pos: PyReadonlyArray1<'py, f64>,
    pos_w: PyReadonlyArray1<'py, f64>,
    neg: PyReadonlyArray1<'py, f64>,
    neg_w: PyReadonlyArray1<'py, f64>,
) -> PyResult<(Array<'py>, Array<'py>, Array<'py>)> {
    let (p, pw) = (slice(&pos, "pos")?, slice(&pos_w, "pos_w")?);
    let (n, nw) = (slice(&neg, "neg")?, slice(&neg_w, "neg_w")?);
    same_length(
        "threshold_counts_sorted_weighted",
        &[("pos", p.len()), ("pos_w", pw.len())],
    )?;
    same_length(
        "threshold_counts_sorted_weighted",
        &[("neg", n.len()), ("neg_w", nw.len())],
    )?;
    let (t, tp, fp) = py.detach(|| auc::threshold_counts_sorted(p, Some(pw), n, Some(nw)));
    Ok((t.into_pyarray(py), tp.into_pyarray(py), fp.into_pyarray(py)))
}

// ------------------------------------------------------------------ score buckets
/// The buffers `gather` appends to: `(pos, pos_w, neg, neg_w, filled)`.
type GatherOut<'py> = (
    PyReadwriteArray1<'py, f64>,
    PyReadwriteArray1<'py, f64>,
    PyReadwriteArray1<'py, f64>,
    PyReadwriteArray1<'py, f64>,
    PyReadwriteArray1<'py, i64>,
);

/// Add a batch to per-bucket counts of negatives and positives (in place).
#[pyfunction]
fn add_histogram(
    scores: PyReadonlyArray1<'_, f64>,
    labels: PyReadonlyArray1<'_, i8>,
    shift: u32,
    mut neg: PyReadwriteArray1<'_, i64>,
    mut pos: PyReadwriteArray1<'_, i64>,
) -> PyResult<()> {
    let (s, l) = (slice(&scores, "scores")?, slice(&labels, "labels")?);
    same_length("add_histogram", &[("scores", s.len()), ("labels", l.len())])?;
    let size = 1usize << (64 - shift.min(63));
    let bad = || PyValueError::new_err(format!("neg and pos must be contiguous of length {size}"));
    let neg = neg.as_slice_mut().map_err(|_| bad())?;
    let pos = pos.as_slice_mut().map_err(|_| bad())?;
    if neg.len() < size || pos.len() < size {
        return Err(bad());
    }
    scan::add_histogram(s, l, shift, neg, pos);
    Ok(())
}

/// Append the rows of `buckets` (`(first, last)`, both included) to `pos` / `neg`
/// (and their weights):
/// `out` is `(pos, pos_w, neg, neg_w, filled)`, `filled` (int64, 2) how many of
/// each are written.
#[pyfunction]
fn gather(
    scores: PyReadonlyArray1<'_, f64>,
    labels: PyReadonlyArray1<'_, i8>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    shift: u32,
    buckets: (usize, usize),
    out: GatherOut<'_>,
) -> PyResult<()> {
    let (mut pos, mut pos_w, mut neg, mut neg_w, mut filled) = out;
    let (s, l) = (slice(&scores, "scores")?, slice(&labels, "labels")?);
    let w = match &weights {
        Some(w) => Some(slice(w, "weights")?),
        None => None,
    };
    same_length("gather", &[("scores", s.len()), ("labels", l.len())])?;
    if let Some(w) = w {
        same_length("gather", &[("scores", s.len()), ("weights", w.len())])?;
    }
    let bad =
        |name: &str| PyValueError::new_err(format!("{name} must be a C-contiguous 1-D array"));
    let pos = pos.as_slice_mut().map_err(|_| bad("pos"))?;
    let pos_w = pos_w.as_slice_mut().map_err(|_| bad("pos_w"))?;
    let neg = neg.as_slice_mut().map_err(|_| bad("neg"))?;
    let neg_w = neg_w.as_slice_mut().map_err(|_| bad("neg_w"))?;
    let filled = filled.as_slice_mut().map_err(|_| bad("filled"))?;
    if filled.len() != 2 {
        return Err(PyValueError::new_err("filled must have 2 elements"));
    }
    if w.is_some() && (pos_w.len() < pos.len() || neg_w.len() < neg.len()) {
        return Err(PyValueError::new_err(
            "pos_w and neg_w must be as long as pos and neg",
        ));
    }
    let mut counts = [filled[0], filled[1]];
    let out = scan::Gathered {
        pos,
        pos_w,
        neg,
        neg_w,
    };
    let ok = scan::gather(s, l, w, shift, buckets.0..=buckets.1, out, &mut counts);
    filled.copy_from_slice(&counts);
    if !ok {
        return Err(PyValueError::new_err(
            "gather: more rows in the range than room in pos/neg",
        ));
    }
    Ok(())
}

// ------------------------------------------------------------------ GAUC
fn check_codes(func: &str, codes: &[i32], n_groups: usize) -> PyResult<()> {
    if codes.iter().any(|&g| g < 0 || g as usize >= n_groups) {
        return Err(PyValueError::new_err(format!(
            "{func}: codes must lie in [0, {n_groups})"
        )));
    }
    Ok(())
}

/// Rows and positives of each group.
#[pyfunction]
fn group_counts<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
    labels: PyReadonlyArray1<'py, i8>,
) -> PyResult<(Ints<'py>, Ints<'py>)> {
    let (c, l) = (slice(&codes, "codes")?, slice(&labels, "labels")?);
    same_length("group_counts", &[("codes", c.len()), ("labels", l.len())])?;
    check_codes("group_counts", c, n_groups)?;
    let (rows, pos) = py.detach(|| gauc::group_counts(c, n_groups, l));
    Ok((rows.into_pyarray(py), pos.into_pyarray(py)))
}

/// CSR `(offsets, scores)` of the minority-class rows by group.
#[pyfunction]
fn gather_minority<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
    labels: PyReadonlyArray1<'py, i8>,
    scores: PyReadonlyArray1<'py, f64>,
    minority: i8,
    counts: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Ints<'py>, Array<'py>)> {
    let (c, l, s) = (
        slice(&codes, "codes")?,
        slice(&labels, "labels")?,
        slice(&scores, "scores")?,
    );
    let k = slice(&counts, "counts")?;
    same_length(
        "gather_minority",
        &[("codes", c.len()), ("labels", l.len()), ("scores", s.len())],
    )?;
    if k.len() != n_groups {
        return Err(PyValueError::new_err(
            "gather_minority: counts must have n_groups elements",
        ));
    }
    check_codes("gather_minority", c, n_groups)?;
    let (offsets, out) = py.detach(|| gauc::gather_minority(c, l, s, minority, k));
    Ok((offsets.into_pyarray(py), out.into_pyarray(py)))
}

/// Sort each CSR segment of `values` in place.
#[pyfunction]
fn sort_segments(
    py: Python<'_>,
    mut values: PyReadwriteArray1<'_, f64>,
    offsets: PyReadonlyArray1<'_, i64>,
) -> PyResult<()> {
    let o = slice(&offsets, "offsets")?;
    let v = values
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("values must be a C-contiguous 1-D array"))?;
    let valid = !o.is_empty()
        && o[0] == 0
        && o.windows(2).all(|w| w[0] <= w[1])
        && o[o.len() - 1] as usize == v.len();
    if !valid {
        return Err(PyValueError::new_err(
            "sort_segments: offsets must run from 0 to len(values)",
        ));
    }
    py.detach(|| gauc::sort_segments(v, o));
    Ok(())
}

/// Twice the Mann-Whitney U of each group, streaming the majority rows.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn stream_pair_counts<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
    labels: PyReadonlyArray1<'py, i8>,
    scores: PyReadonlyArray1<'py, f64>,
    minority: i8,
    offsets: PyReadonlyArray1<'py, i64>,
    seg: PyReadonlyArray1<'py, f64>,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (c, l, s) = (
        slice(&codes, "codes")?,
        slice(&labels, "labels")?,
        slice(&scores, "scores")?,
    );
    let (o, g) = (slice(&offsets, "offsets")?, slice(&seg, "seg")?);
    same_length(
        "stream_pair_counts",
        &[("codes", c.len()), ("labels", l.len()), ("scores", s.len())],
    )?;
    check_codes("stream_pair_counts", c, n_groups)?;
    if o.len() != n_groups + 1 || o[n_groups] as usize != g.len() {
        return Err(PyValueError::new_err(
            "stream_pair_counts: offsets do not match seg",
        ));
    }
    let out = py.detach(|| {
        let minority = gauc::Minority {
            label: minority,
            offsets: o,
            scores: g,
        };
        gauc::stream_pair_counts(c, n_groups, l, s, minority, n_chunks)
    });
    Ok(out.into_pyarray(py))
}

/// Per group: weighted U, weighted positives and weighted negatives.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn weighted_group_aucs<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
    labels: PyReadonlyArray1<'py, i8>,
    scores: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    rows: PyReadonlyArray1<'py, i64>,
    positives: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Array<'py>, Array<'py>, Array<'py>)> {
    let (c, l, s) = (
        slice(&codes, "codes")?,
        slice(&labels, "labels")?,
        slice(&scores, "scores")?,
    );
    let (w, r, p) = (
        slice(&weights, "weights")?,
        slice(&rows, "rows")?,
        slice(&positives, "positives")?,
    );
    same_length(
        "weighted_group_aucs",
        &[
            ("codes", c.len()),
            ("labels", l.len()),
            ("scores", s.len()),
            ("weights", w.len()),
        ],
    )?;
    same_length(
        "weighted_group_aucs",
        &[("rows", r.len()), ("positives", p.len())],
    )?;
    check_codes("weighted_group_aucs", c, n_groups)?;
    if r.len() != n_groups {
        return Err(PyValueError::new_err(
            "weighted_group_aucs: rows must have n_groups elements",
        ));
    }
    let (a, wp, wn) = py.detach(|| gauc::weighted_group_aucs(c, n_groups, l, s, w, r, p));
    Ok((a.into_pyarray(py), wp.into_pyarray(py), wn.into_pyarray(py)))
}

// ------------------------------------------------------------------ id encoding
fn check_range(func: &str, values: &[i64], lo: i64, span: usize) -> PyResult<()> {
    if values
        .iter()
        .any(|&v| v < lo || (v - lo) as u64 >= span as u64)
    {
        return Err(PyValueError::new_err(format!(
            "{func}: values must lie in [lo, lo + span)"
        )));
    }
    Ok(())
}

/// Codes in order of first appearance of ids in `[lo, lo + span)`, and the first row
/// of each code.
#[pyfunction]
fn factorize_dense<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, i64>,
    lo: i64,
    span: usize,
) -> PyResult<(Bound<'py, PyArray1<i32>>, Ints<'py>)> {
    let v = slice(&values, "values")?;
    check_range("factorize_dense", v, lo, span)?;
    let (codes, first) = py.detach(|| encode::factorize_dense(v, lo, span));
    Ok((codes.into_pyarray(py), first.into_pyarray(py)))
}

/// Codes in ascending order of the ids in `[lo, lo + span)`, and the distinct ids.
#[pyfunction]
fn factorize_dense_sorted<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, i64>,
    lo: i64,
    span: usize,
    n_chunks: usize,
) -> PyResult<(Bound<'py, PyArray1<i32>>, Ints<'py>)> {
    let v = slice(&values, "values")?;
    check_range("factorize_dense_sorted", v, lo, span)?;
    let (codes, uniques) = py.detach(|| encode::factorize_dense_sorted(v, lo, span, n_chunks));
    Ok((codes.into_pyarray(py), uniques.into_pyarray(py)))
}

/// Runs of equal neighbours: start offsets (plus the length) and values.
#[pyfunction]
fn runs<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Ints<'py>, Ints<'py>)> {
    let v = slice(&values, "values")?;
    let (offsets, heads) = py.detach(|| encode::runs(v));
    Ok((offsets.into_pyarray(py), heads.into_pyarray(py)))
}

/// The number of threads the kernels use (`RECEVAL_NUM_THREADS` or the available cores).
#[pyfunction]
fn num_threads() -> usize {
    threads::num_threads()
}

/// The error of an invalid `RECEVAL_NUM_THREADS` (a message), or None.
#[pyfunction]
fn threads_setting_error() -> Option<String> {
    threads::setting().err()
}

/// How often a long kernel lets Python see a signal (Ctrl-C).
const POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Run `f(stop)` without the GIL, taking it back every 50 ms to let Python handle
/// its signals: Ctrl-C (or any handler that raises) sets `stop`, which `f` checks
/// to return early, and the exception is raised once `f` has returned.
pub(crate) fn detach_interruptible<R, F>(py: Python<'_>, f: F) -> PyResult<R>
where
    R: Send,
    F: FnOnce(&std::sync::atomic::AtomicBool) -> R + Send,
{
    py.detach(|| threads::interruptible(POLL, f, || Python::attach(|py| py.check_signals())))
}

/// A `MemoryError` saying how much could not be allocated, for `what`, and the fix.
pub(crate) fn memory_error(e: crate::pages::OutOfMemory, what: &str, fix: &str) -> PyErr {
    pyo3::exceptions::PyMemoryError::new_err(format!("{e} for {what}; {fix}."))
}

/// The compiled kernels of receval.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SIZE", sums::SIZE)?;
    m.add("N_LIMBS", sums::N_LIMBS)?;
    m.add("NAN", sums::NAN)?;
    m.add("POS_INF", sums::POS_INF)?;
    m.add("NEG_INF", sums::NEG_INF)?;
    m.add_function(wrap_pyfunction!(exact_sum, m)?)?;
    m.add_function(wrap_pyfunction!(exact_dot, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(binary_log_loss_exact, m)?)?;
    m.add_function(wrap_pyfunction!(multiclass_log_loss_exact, m)?)?;
    m.add_function(wrap_pyfunction!(split_by_label, m)?)?;
    m.add_function(wrap_pyfunction!(split_by_label_weighted, m)?)?;
    m.add_function(wrap_pyfunction!(pair_count_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(pair_weight_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(threshold_counts_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(threshold_counts_sorted_weighted, m)?)?;
    m.add_function(wrap_pyfunction!(add_histogram, m)?)?;
    m.add_function(wrap_pyfunction!(gather, m)?)?;
    m.add_function(wrap_pyfunction!(group_counts, m)?)?;
    m.add_function(wrap_pyfunction!(gather_minority, m)?)?;
    m.add_function(wrap_pyfunction!(sort_segments, m)?)?;
    m.add_function(wrap_pyfunction!(stream_pair_counts, m)?)?;
    m.add_function(wrap_pyfunction!(weighted_group_aucs, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_dense, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_dense_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(runs, m)?)?;
    m.add_function(wrap_pyfunction!(num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(threads_setting_error, m)?)?;
    checked::register(m)?;
    ranking::register(m)?;
    codes::register(m)?;
    lists::register(m)?;
    retention::register(m)?;
    stats::register(m)?;
    trec::register(m)?;
    columns::register(m)?;
    Ok(())
}
