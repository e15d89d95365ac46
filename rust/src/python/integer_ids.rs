//! Python binding of the integer ids of text files (`integer_ids`).

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{slice, Ints};
use crate::integer_ids;

/// The ids of an Arrow string array (its `offsets`, from its first row, and its
/// `data`) as int64 when every id is an integer written as its canonical decimal
/// digits (`0`, `7`, `-12`; not `007`, `+7`, `-0`), else None.
#[pyfunction]
fn canonical_integers<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i32>,
    data: PyReadonlyArray1<'py, u8>,
) -> PyResult<Option<Ints<'py>>> {
    let (o, d) = (slice(&offsets, "offsets")?, slice(&data, "data")?);
    let ascending = o.first().is_none_or(|&f| f >= 0)
        && o.windows(2).all(|w| w[0] <= w[1])
        && o.last().is_none_or(|&l| l as usize <= d.len());
    if !ascending {
        return Err(PyValueError::new_err(
            "canonical_integers: offsets must ascend from 0 or more to at most len(data)",
        ));
    }
    let ints = py.detach(|| integer_ids::canonical_integers(o, d));
    Ok(ints.map(|v| v.into_pyarray(py)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(canonical_integers, m)?)?;
    Ok(())
}
