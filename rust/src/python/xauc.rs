//! XAUC: distinct keys of the rows, pair counts per group.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice, Floats, Ints};
use crate::xauc;

/// A uint64 array handed back to Python.
type Counts<'py> = Bound<'py, PyArray1<u64>>;

/// The distinct `(code, y, s, w)` of the rows with their summed counts, in the
/// canonical order (code and target ascending, score descending, weight ascending).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn xauc_distinct<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i64>,
    y: PyReadonlyArray1<'py, f64>,
    s: PyReadonlyArray1<'py, f64>,
    w: PyReadonlyArray1<'py, f64>,
    count: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Ints<'py>, Floats<'py>, Floats<'py>, Floats<'py>, Ints<'py>)> {
    let (c, y, s, w, n) = (
        slice(&codes, "codes")?,
        slice(&y, "y")?,
        slice(&s, "s")?,
        slice(&w, "w")?,
        slice(&count, "count")?,
    );
    same_length(
        "xauc_distinct",
        &[
            ("y", y.len()),
            ("codes", c.len()),
            ("s", s.len()),
            ("w", w.len()),
            ("count", n.len()),
        ],
    )?;
    let keys = py.detach(|| xauc::distinct(c, y, s, w, n));
    Ok((
        keys.codes.into_pyarray(py),
        keys.y.into_pyarray(py),
        keys.s.into_pyarray(py),
        keys.w.into_pyarray(py),
        keys.count.into_pyarray(py),
    ))
}

/// Group bounds as offsets, checked against the number of keys.
fn bounds(starts: &[i64], n: usize) -> PyResult<Vec<usize>> {
    let ok = starts.first() == Some(&0)
        && starts.last() == Some(&(n as i64))
        && starts.windows(2).all(|p| p[0] <= p[1]);
    if !ok {
        return Err(PyValueError::new_err(format!(
            "xauc pairs: starts must rise from 0 to the number of keys ({n})"
        )));
    }
    Ok(starts.iter().map(|&x| x as usize).collect())
}

/// Per group: twice the pairs ordered alike plus the tied scores, and the pairs of
/// different targets (integer counts of rows).
#[pyfunction]
fn xauc_pairs_counted<'py>(
    py: Python<'py>,
    starts: PyReadonlyArray1<'py, i64>,
    y: PyReadonlyArray1<'py, f64>,
    s: PyReadonlyArray1<'py, f64>,
    count: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Counts<'py>, Counts<'py>)> {
    let (y, s, n) = (slice(&y, "y")?, slice(&s, "s")?, slice(&count, "count")?);
    same_length(
        "xauc_pairs_counted",
        &[("y", y.len()), ("s", s.len()), ("count", n.len())],
    )?;
    let b = bounds(slice(&starts, "starts")?, y.len())?;
    let (t, p) = py.detach(|| xauc::pairs_counted(&b, y, s, n));
    Ok((t.into_pyarray(py), p.into_pyarray(py)))
}

/// [`xauc_pairs_counted`] with a float weight per key.
#[pyfunction]
fn xauc_pairs_weighted<'py>(
    py: Python<'py>,
    starts: PyReadonlyArray1<'py, i64>,
    y: PyReadonlyArray1<'py, f64>,
    s: PyReadonlyArray1<'py, f64>,
    weight: PyReadonlyArray1<'py, f64>,
) -> PyResult<(Floats<'py>, Floats<'py>)> {
    let (y, s, w) = (slice(&y, "y")?, slice(&s, "s")?, slice(&weight, "weight")?);
    same_length(
        "xauc_pairs_weighted",
        &[("y", y.len()), ("s", s.len()), ("weight", w.len())],
    )?;
    let b = bounds(slice(&starts, "starts")?, y.len())?;
    let (t, p) = py.detach(|| xauc::pairs_weighted(&b, y, s, w));
    Ok((t.into_pyarray(py), p.into_pyarray(py)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(xauc_distinct, m)?)?;
    m.add_function(wrap_pyfunction!(xauc_pairs_counted, m)?)?;
    m.add_function(wrap_pyfunction!(xauc_pairs_weighted, m)?)?;
    Ok(())
}
