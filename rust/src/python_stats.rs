//! Python bindings of the significance-test and bootstrap kernels (stats.rs).

use pyo3::prelude::*;

/// Add this family's functions to `receval._core`.
pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
