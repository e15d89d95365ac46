//! The `receval._core` module: NumPy arrays in and out, the GIL released around the
//! work. Arrays must be C-contiguous (the Python layer passes them so); a wrong
//! length or layout raises `ValueError`, never a panic.
//!
//! One file per family of kernels, each with its `register`; here the conversions
//! they share, the thread settings and the module itself.

use numpy::ndarray::Dimension;
use numpy::{PyArray1, PyReadonlyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::threads;

/// `$body` with `$v` the elements of `$array` (a C-contiguous 1-D array, named
/// `$name` in errors) as a slice of the first of the element types `[$t, ...]` it
/// holds: the one body run on each type a binding takes (int64 ids or int32 and
/// uint32 codes; float64 or float32 scores). Any other array returns a `ValueError`
/// of `$refusal` from the binding.
macro_rules! with_slice {
    ($array:expr, $name:expr, [$($t:ty),+], $refusal:expr, |$v:ident| $body:expr) => {
        'given: {
            $(
                if let Ok(a) = $array.extract::<numpy::PyReadonlyArray1<'_, $t>>() {
                    let $v = $crate::python::slice(&a, $name)?;
                    break 'given ($body);
                }
            )+
            return Err(pyo3::exceptions::PyValueError::new_err($refusal))
        }
    };
}

mod auc;
mod checked;
mod codes;
mod columns;
mod encode;
mod gauc;
mod integer_ids;
mod lists;
mod objects;
mod open;
mod open_groups;
mod quotes;
mod ranking;
mod retention;
mod runs;
mod seen;
mod sort;
mod split;
mod stats;
mod sums;
mod topk;
mod trec;
mod xauc;

/// A float64 array handed back to Python.
pub(crate) type Floats<'py> = Bound<'py, PyArray1<f64>>;

/// A float32 or float64 array of `D` dimensions given by Python, read as it is (never
/// converted: a binding runs one body on either type).
pub(crate) enum FloatArray<'py, D: Dimension> {
    F32(PyReadonlyArray<'py, f32, D>),
    F64(PyReadonlyArray<'py, f64, D>),
}

impl<'py, D: Dimension> FloatArray<'py, D> {
    /// `obj` as a float32 or float64 array, or None for any other object.
    pub(crate) fn of(obj: &Bound<'py, PyAny>) -> Option<Self> {
        if let Ok(a) = obj.extract::<PyReadonlyArray<'py, f32, D>>() {
            return Some(FloatArray::F32(a));
        }
        obj.extract::<PyReadonlyArray<'py, f64, D>>()
            .ok()
            .map(FloatArray::F64)
    }
}
/// An int64 array handed back to Python.
pub(crate) type Ints<'py> = Bound<'py, PyArray1<i64>>;

/// The elements of a C-contiguous 1-D array, or a `ValueError` naming it.
pub(crate) fn slice<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray1<'_, T>,
    name: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a C-contiguous 1-D array")))
}

/// A `ValueError` of `func` unless every named length equals the first.
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
    m.add_function(wrap_pyfunction!(num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(threads_setting_error, m)?)?;
    sums::register(m)?;
    auc::register(m)?;
    gauc::register(m)?;
    xauc::register(m)?;
    encode::register(m)?;
    objects::register(m)?;
    checked::register(m)?;
    ranking::register(m)?;
    codes::register(m)?;
    lists::register(m)?;
    retention::register(m)?;
    runs::register(m)?;
    stats::register(m)?;
    trec::register(m)?;
    columns::register(m)?;
    topk::register(m)?;
    seen::register(m)?;
    sort::register(m)?;
    split::register(m)?;
    quotes::register(m)?;
    open::register(m)?;
    integer_ids::register(m)?;
    open_groups::register(m)?;
    Ok(())
}
