//! Python bindings of the retention kernels (retention.rs).

use pyo3::prelude::*;

/// Add this family's functions to `receval._core`.
pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
