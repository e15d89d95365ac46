//! Python binding of the integer ids of string columns (`integer_ids`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

use super::encode::{on_offset_rows, OnOffsetRows};
use super::{slice, Ints};
use crate::encode;
use crate::integer_ids;

/// [`integer_ids::canonical_integers`] of the chunks, the GIL released.
struct Integers<'py>(Python<'py>);

impl OnOffsetRows for Integers<'_> {
    type Out = Option<Vec<i64>>;
    fn run<O: encode::Offset>(self, chunks: &[encode::OffsetRows<'_, O>]) -> Self::Out {
        self.0.detach(|| integer_ids::canonical_integers(chunks))
    }
    /// A column whose first id is not an integer (most string columns) is not one of
    /// integers.
    fn first_row_answer(&self, first: &[u8]) -> Option<Self::Out> {
        integer_ids::canonical_integer(first)
            .is_none()
            .then_some(None)
    }
}

/// The ids of an Arrow string column in chunks (each chunk's `offsets`, int32 in
/// every chunk or int64 in every chunk, from the chunk's first row, and its `data`)
/// as int64 when every id is an integer written as its canonical decimal digits
/// (`0`, `7`, `-12`; not `007`, `+7`, `-0`), else None.
#[pyfunction]
fn canonical_integers<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    data: Vec<PyReadonlyArray1<'py, u8>>,
) -> PyResult<Option<Ints<'py>>> {
    let ints = on_offset_rows(offsets, &data, Integers(py))?;
    Ok(ints.map(|v| v.into_pyarray(py)))
}

/// The canonical decimal spelling of each of `values` (int64), as the offsets
/// (int64) and data of an Arrow `large_string` array.
#[pyfunction]
fn integer_texts<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Ints<'py>, Bound<'py, PyArray1<u8>>)> {
    let v = slice(&values, "values")?;
    let (offsets, data) = py.detach(|| integer_ids::integer_texts(v));
    Ok((offsets.into_pyarray(py), data.into_pyarray(py)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(canonical_integers, m)?)?;
    m.add_function(wrap_pyfunction!(integer_texts, m)?)?;
    Ok(())
}
