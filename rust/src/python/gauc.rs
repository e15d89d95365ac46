//! The per-group AUC (GAUC): group counts, the minority class by group, pair counts.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice, Floats, Ints};
use crate::gauc;

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
) -> PyResult<(Ints<'py>, Floats<'py>)> {
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
) -> PyResult<(Floats<'py>, Floats<'py>, Floats<'py>)> {
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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(group_counts, m)?)?;
    m.add_function(wrap_pyfunction!(gather_minority, m)?)?;
    m.add_function(wrap_pyfunction!(sort_segments, m)?)?;
    m.add_function(wrap_pyfunction!(stream_pair_counts, m)?)?;
    m.add_function(wrap_pyfunction!(weighted_group_aucs, m)?)?;
    Ok(())
}
