//! Python bindings of the list-wise (beyond-accuracy) kernels (lists.rs).

use pyo3::prelude::*;

/// Add this family's functions to `receval._core`.
pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
