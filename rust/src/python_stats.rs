//! Python bindings of the significance-test and bootstrap kernels (stats.rs).

use numpy::ndarray::Array2;
use numpy::{
    IntoPyArray, PyArray2, PyReadonlyArray2, PyReadwriteArray1, PyReadwriteArray3,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::stats;

/// A seed as the numba kernels take it: an int64 (a negative one wraps modulo 2^64)
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

/// SplitMix64's output function.
#[pyfunction]
fn mix64(z: u64) -> u64 {
    stats::mix64(z)
}

/// Key of a seed for one use (`FLIPS` or `RESAMPLES`).
#[pyfunction]
fn seed_key(seed: &Bound<'_, PyAny>, domain: u64) -> PyResult<u64> {
    Ok(stats::seed_key(seed_bits(seed)?, domain))
}

/// Starting state of the stream of replicate `b`.
#[pyfunction]
fn stream_start(key: u64, b: u64) -> u64 {
    stats::stream_start(key, b)
}

/// Word `t` of the stream that starts at `start`.
#[pyfunction]
fn stream_word(start: u64, t: u64) -> u64 {
    stats::stream_word(start, t)
}

/// Draws `k0..k0 + count` of a stream, mapped to `[0, n)`, into `idx[:count]`.
#[pyfunction]
fn draw_block(
    start: u64,
    k0: u64,
    count: usize,
    n: u64,
    mut idx: PyReadwriteArray1<'_, i64>,
) -> PyResult<()> {
    let idx = idx
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("idx must be a C-contiguous 1-D array"))?;
    if count > idx.len() {
        return Err(PyValueError::new_err(format!(
            "draw_block: count is {count} but idx has {} elements",
            idx.len()
        )));
    }
    if n >= 1 << 32 {
        return Err(PyValueError::new_err("draw_block: n must be below 2**32"));
    }
    let mut draws = vec![0usize; count];
    stats::draw_block(start, k0, n, &mut draws);
    for (slot, &d) in idx.iter_mut().zip(&draws) {
        *slot = d as i64;
    }
    Ok(())
}

/// Signed sums of every sign pattern of each byte of users `i0..i1` into `table`
/// (8 x 256 x n_columns).
#[pyfunction]
fn flip_tables(
    x: PyReadonlyArray2<'_, f64>,
    i0: usize,
    i1: usize,
    mut table: PyReadwriteArray3<'_, f64>,
) -> PyResult<()> {
    let (n, m, x) = rows_of(&x, "x")?;
    let shape = table.shape().to_vec();
    if shape != [8, 256, m] {
        return Err(PyValueError::new_err(format!(
            "flip_tables: table must have shape (8, 256, {m}), got {shape:?}"
        )));
    }
    if i0 > i1 || i1 > n || i1 - i0 > 64 {
        return Err(PyValueError::new_err(format!(
            "flip_tables: users i0..i1 must be at most 64 rows of x, got {i0}..{i1} of {n}"
        )));
    }
    if !table.is_c_contiguous() {
        return Err(PyValueError::new_err(
            "table must be a C-contiguous 3-D array",
        ));
    }
    let t = table
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("table must be a C-contiguous 3-D array"))?;
    stats::flip_tables(x, m, i0, i1, t);
    Ok(())
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
        stats::sign_flip_sums(x, n, m, n_permutations, seed, n_chunks, stop)
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
        stats::bootstrap_means(x, wm, n, m, mw, n_resamples, seed, n_chunks, stop)
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

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FLIPS", stats::FLIPS)?;
    m.add("RESAMPLES", stats::RESAMPLES)?;
    m.add_function(wrap_pyfunction!(mix64, m)?)?;
    m.add_function(wrap_pyfunction!(seed_key, m)?)?;
    m.add_function(wrap_pyfunction!(stream_start, m)?)?;
    m.add_function(wrap_pyfunction!(stream_word, m)?)?;
    m.add_function(wrap_pyfunction!(draw_block, m)?)?;
    m.add_function(wrap_pyfunction!(flip_tables, m)?)?;
    m.add_function(wrap_pyfunction!(sign_flip_sums, m)?)?;
    m.add_function(wrap_pyfunction!(bootstrap_means, m)?)?;
    Ok(())
}
