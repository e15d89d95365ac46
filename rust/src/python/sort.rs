//! The core's sorts, for the Python layer's sorts where NumPy's are slow.

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::sort::{sort_floats, sort_ints};

/// Sort `a` in place by `sort` when it is an array of `T` (true); false when it holds
/// another type; an error when it is not writable and C-contiguous (`bad`).
fn sorted_as<T: numpy::Element + Send>(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    sort: fn(&mut [T]),
    bad: fn() -> PyErr,
) -> PyResult<bool> {
    let Ok(a) = a.cast::<PyArray1<T>>() else {
        return Ok(false);
    };
    let mut a = a.try_readwrite().map_err(|_| bad())?;
    let s = a.as_slice_mut().map_err(|_| bad())?;
    py.detach(|| sort(s));
    Ok(true)
}

/// Sort a float64, float32 or int64 array in place, ascending (floats NaN last), by
/// the core's radix sort.
#[pyfunction]
fn sort_numbers(py: Python<'_>, a: &Bound<'_, PyAny>) -> PyResult<()> {
    let bad = || {
        PyValueError::new_err(
            "a must be a writable C-contiguous 1-D float64, float32 or int64 array",
        )
    };
    let sorted = sorted_as(py, a, sort_floats::<f64>, bad)?
        || sorted_as(py, a, sort_floats::<f32>, bad)?
        || sorted_as(py, a, sort_ints, bad)?;
    if sorted {
        Ok(())
    } else {
        Err(bad())
    }
}

/// Whether NumPy's AVX-512 sorts are slow on this CPU (AMD Zen 4).
#[pyfunction]
fn slow_compress_store() -> bool {
    crate::simd::slow_compress_store()
}

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sort_numbers, m)?)?;
    m.add_function(wrap_pyfunction!(slow_compress_store, m)?)?;
    Ok(())
}
