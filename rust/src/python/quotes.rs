//! Python binding of the quotes of CSV text read in ranges (`quotes`).

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;

use super::slice;
use crate::quotes;

/// Where a range of CSV `text` (bytes from a line's start, fields separated by the
/// byte `delimiter`) ends and how it must be read ([`quotes::range_end`]): just
/// past the first line end at or after byte `at` outside quotes (`header`: past the
/// header's line end too), -1 when there is none; 0 cut at any line end, 1 by its
/// quotes, 2 from its start by a reader of its quotes (a quote out of place).
#[pyfunction]
fn range_end(
    py: Python<'_>,
    text: PyReadonlyArray1<'_, u8>,
    at: usize,
    header: bool,
    delimiter: u8,
) -> PyResult<(i64, u8)> {
    let t = slice(&text, "text")?;
    let (end, cut) = py.detach(|| quotes::range_end(t, at, header, delimiter));
    Ok((end.map_or(-1, |e| e as i64), cut as u8))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(range_end, m)?)?;
    Ok(())
}
