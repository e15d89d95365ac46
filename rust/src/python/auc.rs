//! The AUC: rows split by label, pair counts of sorted scores, thresholds, and the
//! score buckets of the out-of-core exact AUC.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::runs::{labels_rounded, LabelsRounded};
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

/// Scores of one label: float64, or float32 (gathered from a float32 column).
#[derive(FromPyObject)]
enum Scores<'py> {
    F64(PyReadonlyArray1<'py, f64>),
    F32(PyReadonlyArray1<'py, f32>),
}

/// Apply `$f` to the slices of two [`Scores`] of one float type, or raise.
macro_rules! same_floats {
    ($func:literal, $pos:expr, $neg:expr, |$p:ident, $n:ident| $body:expr) => {
        match (&$pos, &$neg) {
            (Scores::F64(a), Scores::F64(b)) => {
                let ($p, $n) = (slice(a, "pos")?, slice(b, "neg")?);
                $body
            }
            (Scores::F32(a), Scores::F32(b)) => {
                let ($p, $n) = (slice(a, "pos")?, slice(b, "neg")?);
                $body
            }
            _ => {
                return Err(PyValueError::new_err(concat!(
                    $func,
                    ": pos and neg must both be float64 or both float32"
                )))
            }
        }
    };
}

/// Twice the Mann-Whitney U of ascending `pos` against ascending `neg` (float64 or
/// float32, both alike).
#[pyfunction]
fn pair_count_sorted(py: Python<'_>, pos: Scores<'_>, neg: Scores<'_>) -> PyResult<i64> {
    same_floats!("pair_count_sorted", pos, neg, |p, n| Ok(
        py.detach(|| auc::pair_count_sorted(p, n))
    ))
}

/// `((pos_quantum, neg_quantum), positives, negatives, two_u, low, high, rounded)` of
/// [`weighted_range`].
type RangeSums<'py> = (
    (i32, i32),
    u128,
    u128,
    Bound<'py, PyAny>,
    f64,
    f64,
    LabelsRounded,
);

/// The exact sums of one weighted score range (`pos` and `neg` in any order, float64
/// or float32 alike): `((pos_quantum, neg_quantum), positives, negatives, two_u, low,
/// high, rounded)`: the units of the positives' weights `2**pos_quantum` and of the
/// negatives' `2**neg_quantum`, `two_u` an integer below `2**256` in units of their
/// product, `low` and `high` the smallest and largest score of a row of weight other
/// than 0 (NaN for none), and each label's `(span, share)` where its weights were
/// rounded ([`LabelsRounded`]).
#[pyfunction]
fn weighted_range<'py>(
    py: Python<'py>,
    pos: Scores<'py>,
    pos_w: PyReadonlyArray1<'py, f64>,
    neg: Scores<'py>,
    neg_w: PyReadonlyArray1<'py, f64>,
) -> PyResult<RangeSums<'py>> {
    let (pw, nw) = (slice(&pos_w, "pos_w")?, slice(&neg_w, "neg_w")?);
    let r = same_floats!("weighted_range", pos, neg, |p, n| {
        same_length("weighted_range", &[("pos", p.len()), ("pos_w", pw.len())])?;
        same_length("weighted_range", &[("neg", n.len()), ("neg_w", nw.len())])?;
        py.detach(|| auc::weighted_range(p, pw, n, nw))
    });
    let (s, shift) = (&r.sums, 128u32.into_pyobject(py)?);
    let two_u = s
        .two_u
        .hi
        .into_pyobject(py)?
        .lshift(shift)?
        .add(s.two_u.lo)?;
    let quantum = (s.quantum.pos, s.quantum.neg);
    let rounded = labels_rounded(s.rounded());
    Ok((
        quantum,
        s.total.pos,
        s.total.neg,
        two_u,
        r.low,
        r.high,
        rounded,
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

/// The `out` argument of [`gather`]: `(pos, pos_w, neg, neg_w, filled)`, `pos` and
/// `neg` float64 or float32 arrays.
type GatherArgs<'py> = (
    Bound<'py, PyAny>,
    PyReadwriteArray1<'py, f64>,
    Bound<'py, PyAny>,
    PyReadwriteArray1<'py, f64>,
    PyReadwriteArray1<'py, i64>,
);

/// Append the rows of `buckets` (`(first, last)`, both included) to `pos` / `neg`
/// (and their weights):
/// `out` is `(pos, pos_w, neg, neg_w, filled)`, `filled` (int64, 2) how many of
/// each are written; `pos` and `neg` are float64, or float32 where every score is a
/// float32 value (another raises).
#[pyfunction]
fn gather(
    py: Python<'_>,
    scores: PyReadonlyArray1<'_, f64>,
    labels: PyReadonlyArray1<'_, i8>,
    weights: Option<PyReadonlyArray1<'_, f64>>,
    shift: u32,
    buckets: (usize, usize),
    out: GatherArgs<'_>,
) -> PyResult<()> {
    let (pos, pos_w, neg, neg_w, filled) = out;
    let input = (&scores, &labels, &weights, shift, buckets);
    if let (Ok(p), Ok(n)) = (
        pos.extract::<PyReadwriteArray1<'_, f32>>(),
        neg.extract::<PyReadwriteArray1<'_, f32>>(),
    ) {
        return gather_into(py, input, (p, pos_w, n, neg_w, filled));
    }
    let (p, n) = (pos.extract()?, neg.extract()?);
    gather_into::<f64>(py, input, (p, pos_w, n, neg_w, filled))
}

/// What [`gather`] reads: `(scores, labels, weights, shift, buckets)`.
type GatherIn<'a, 'py> = (
    &'a PyReadonlyArray1<'py, f64>,
    &'a PyReadonlyArray1<'py, i8>,
    &'a Option<PyReadonlyArray1<'py, f64>>,
    u32,
    (usize, usize),
);

/// The buffers [`gather`] appends to: `(pos, pos_w, neg, neg_w, filled)`.
type GatherOut<'py, T> = (
    PyReadwriteArray1<'py, T>,
    PyReadwriteArray1<'py, f64>,
    PyReadwriteArray1<'py, T>,
    PyReadwriteArray1<'py, f64>,
    PyReadwriteArray1<'py, i64>,
);

/// [`gather`] into buffers of scores of type `T`.
fn gather_into<T: scan::ScoreFloat + numpy::Element>(
    py: Python<'_>,
    input: GatherIn<'_, '_>,
    out: GatherOut<'_, T>,
) -> PyResult<()> {
    let (scores, labels, weights, shift, buckets) = input;
    let (mut pos, mut pos_w, mut neg, mut neg_w, mut filled) = out;
    let (s, l) = (slice(scores, "scores")?, slice(labels, "labels")?);
    let w = match weights {
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
    let done = py.detach(|| scan::gather(s, l, w, shift, range, out, &mut counts));
    filled.copy_from_slice(&counts);
    match done {
        Ok(()) => Ok(()),
        Err(scan::Refused::Full) => Err(PyValueError::new_err(
            "gather: more rows in the range than room in pos/neg",
        )),
        Err(scan::Refused::Inexact) => Err(PyValueError::new_err(
            "gather: a score is not a float32 value; gather it into float64 buffers",
        )),
    }
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
