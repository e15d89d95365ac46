//! Python bindings of the statistical kernels: the significance tests and bootstrap
//! (stats.rs) and the law of sampled ranks (ties.rs).

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::stats;
use crate::ties;

/// A seed as Python gives it: an int64 (a negative one wraps modulo 2^64)
/// or a uint64.
fn seed_bits(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    match seed.extract::<u64>() {
        Ok(s) => Ok(s),
        Err(_) => seed.extract::<i64>().map(|s| s as u64),
    }
}

/// The rows, columns and values of a C-contiguous 2-D float64 array.
fn rows_of<'a>(
    a: &'a PyReadonlyArray2<'_, f64>,
    name: &str,
) -> PyResult<(usize, usize, &'a [f64])> {
    let shape = a.shape();
    let bad = || PyValueError::new_err(format!("{name} must be a C-contiguous 2-D array"));
    // as_slice also takes Fortran order, whose values are not row-major
    if !a.is_c_contiguous() {
        return Err(bad());
    }
    let values = a.as_slice().map_err(|_| bad())?;
    Ok((shape[0], shape[1], values))
}

fn matrix(
    py: Python<'_>,
    rows: usize,
    m: usize,
    v: Vec<f64>,
) -> PyResult<Bound<'_, PyArray2<f64>>> {
    Array2::from_shape_vec((rows, m), v)
        .map(|a| a.into_pyarray(py))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Signed sums of every random sign vector: shape (n_permutations, n_columns).
#[pyfunction]
fn sign_flip_sums<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    n_permutations: usize,
    seed: &Bound<'py, PyAny>,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let seed = seed_bits(seed)?;
    let (n, m, x) = rows_of(&x, "x")?;
    let out = super::detach_interruptible(py, |stop| {
        let x = stats::Table { x, n, m };
        stats::sign_flip_sums(x, n_permutations, seed, n_chunks, stop)
    })?
    .map_err(|e| {
        super::memory_error(
            e,
            "the sign-flip sums (n_permutations x columns)",
            "lower n_permutations or test fewer columns at a time",
        )
    })?;
    matrix(py, n_permutations, m, out)
}

/// Weighted mean of every column in every resample of the users: shape
/// (n_resamples, n_columns).
#[pyfunction]
fn bootstrap_means<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    wm: PyReadonlyArray2<'py, f64>,
    n_resamples: usize,
    seed: &Bound<'py, PyAny>,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let seed = seed_bits(seed)?;
    let (n, m, x) = rows_of(&x, "x")?;
    let (nw, mw, wm) = rows_of(&wm, "wm")?;
    if nw != n {
        return Err(PyValueError::new_err(format!(
            "bootstrap_means: wm has {nw} rows but x has {n}"
        )));
    }
    if mw > 1 && mw != m {
        return Err(PyValueError::new_err(format!(
            "bootstrap_means: wm must have 0, 1 or {m} columns, got {mw}"
        )));
    }
    if n as u64 >= 1 << 32 {
        return Err(PyValueError::new_err(
            "bootstrap_means: x must have fewer than 2**32 rows",
        ));
    }
    let out = super::detach_interruptible(py, |stop| {
        let (x, w) = (stats::Table { x, n, m }, stats::Table { x: wm, n, m: mw });
        stats::bootstrap_means(x, w, n_resamples, seed, n_chunks, stop)
    })?
    .map_err(|e| {
        super::memory_error(
            e,
            "the bootstrap means (n_resamples x columns)",
            "lower n_resamples or test fewer columns at a time",
        )
    })?;
    matrix(py, n_resamples, m, out)
}

/// The law of sampled ranks (`ties::sampled_rank_law`): shape (last - first + 1, n + 1).
#[pyfunction]
fn sampled_rank_law(
    py: Python<'_>,
    size: usize,
    n: usize,
    first: usize,
    last: usize,
) -> PyResult<Bound<'_, PyArray2<f64>>> {
    if n >= size || first == 0 || first > last || last > size {
        return Err(PyValueError::new_err(format!(
            "sampled_rank_law needs n < size and 1 <= first <= last <= size; got n={n}, \
             size={size}, first={first}, last={last}"
        )));
    }
    let out = py.detach(|| ties::sampled_rank_law(size, n, first, last));
    matrix(py, last + 1 - first, n + 1, out)
}

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sign_flip_sums, m)?)?;
    m.add_function(wrap_pyfunction!(bootstrap_means, m)?)?;
    m.add_function(wrap_pyfunction!(sampled_rank_law, m)?)?;
    Ok(())
}
