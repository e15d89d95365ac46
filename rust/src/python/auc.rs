//! The AUC: rows split by label, pair counts of sorted scores, thresholds, and the
//! score buckets of the out-of-core exact AUC.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice, Floats};
use crate::{auc, scan};

/// Scores of the rows labelled 1 and of the others.
#[pyfunction]
fn split_by_label<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray1<'py, f64>,
    labels: PyReadonlyArray1<'py, i8>,
) -> PyResult<(Floats<'py>, Floats<'py>)> {
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
) -> PyResult<(Floats<'py>, Floats<'py>, Floats<'py>, Floats<'py>)> {
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

/// The exact sums of one weighted score range (ascending `pos` and `neg`) above
/// `below` negative units of `2**below_quantum`: `(quantum, positives, negatives,
/// two_u, products, exact)`, `two_u` an integer below `2**256`, `products` an
/// exact-sum accumulator.
#[pyfunction]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
fn weighted_range<'py>(
    py: Python<'py>,
    pos: PyReadonlyArray1<'py, f64>,
    pos_w: PyReadonlyArray1<'py, f64>,
    neg: PyReadonlyArray1<'py, f64>,
    neg_w: PyReadonlyArray1<'py, f64>,
    below: u128,
    below_quantum: i32,
) -> PyResult<(
    i32,
    u128,
    u128,
    Bound<'py, PyAny>,
    Bound<'py, PyArray1<i64>>,
    bool,
)> {
    let (p, pw) = (slice(&pos, "pos")?, slice(&pos_w, "pos_w")?);
    let (n, nw) = (slice(&neg, "neg")?, slice(&neg_w, "neg_w")?);
    same_length("weighted_range", &[("pos", p.len()), ("pos_w", pw.len())])?;
    same_length("weighted_range", &[("neg", n.len()), ("neg_w", nw.len())])?;
    let r = py.detach(|| auc::weighted_range(p, pw, n, nw, below, below_quantum));
    let (lo, hi) = r.two_u;
    let shift = 128u32.into_pyobject(py)?;
    let two_u = hi.into_pyobject(py)?.lshift(shift)?.add(lo)?;
    Ok((
        r.quantum,
        r.positives,
        r.negatives,
        two_u,
        r.products.to_vec().into_pyarray(py),
        r.exact,
    ))
}

/// `(thresholds, tps, fps)` of ascending `pos` and `neg`, thresholds descending.
#[pyfunction]
fn threshold_counts_sorted<'py>(
    py: Python<'py>,
    pos: PyReadonlyArray1<'py, f64>,
    neg: PyReadonlyArray1<'py, f64>,
) -> PyResult<(Floats<'py>, Floats<'py>, Floats<'py>)> {
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
) -> PyResult<(Floats<'py>, Floats<'py>, Floats<'py>)> {
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
    py: Python<'_>,
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
    py.detach(|| scan::add_histogram(s, l, shift, neg, pos));
    Ok(())
}

/// Append the rows of `buckets` (`(first, last)`, both included) to `pos` / `neg`
/// (and their weights):
/// `out` is `(pos, pos_w, neg, neg_w, filled)`, `filled` (int64, 2) how many of
/// each are written.
#[pyfunction]
fn gather(
    py: Python<'_>,
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
    let range = buckets.0..=buckets.1;
    let ok = py.detach(|| scan::gather(s, l, w, shift, range, out, &mut counts));
    filled.copy_from_slice(&counts);
    if !ok {
        return Err(PyValueError::new_err(
            "gather: more rows in the range than room in pos/neg",
        ));
    }
    Ok(())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(split_by_label, m)?)?;
    m.add_function(wrap_pyfunction!(split_by_label_weighted, m)?)?;
    m.add_function(wrap_pyfunction!(pair_count_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(weighted_range, m)?)?;
    m.add_function(wrap_pyfunction!(threshold_counts_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(threshold_counts_sorted_weighted, m)?)?;
    m.add_function(wrap_pyfunction!(add_histogram, m)?)?;
    m.add_function(wrap_pyfunction!(gather, m)?)?;
    Ok(())
}
