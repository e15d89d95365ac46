//! Train/test splits (`receval.split`): the counts of what each part holds.

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice};
use crate::split;

/// The counts of a split of rows into `train` and `test` (disjoint masks): rows,
/// users of each part, users dropped, without test and cold, cold items and the test
/// rows that hold them, in that order. `items` None: no item counts (zeros).
#[pyfunction]
#[pyo3(signature = (users, n_users, items, n_items, train, test))]
fn split_counts(
    py: Python<'_>,
    users: PyReadonlyArray1<'_, i32>,
    n_users: usize,
    items: Option<PyReadonlyArray1<'_, i32>>,
    n_items: usize,
    train: PyReadonlyArray1<'_, bool>,
    test: PyReadonlyArray1<'_, bool>,
) -> PyResult<[u64; 9]> {
    let (u, a, b) = (
        slice(&users, "users")?,
        slice(&train, "train")?,
        slice(&test, "test")?,
    );
    let i = items.as_ref().map(|i| slice(i, "items")).transpose()?;
    let mut lengths = vec![("users", u.len()), ("train", a.len()), ("test", b.len())];
    lengths.extend(i.map(|i| ("items", i.len())));
    same_length("split_counts", &lengths)?;
    py.detach(|| split::split_counts(u, n_users, i.map(|i| (i, n_items)), a, b))
        .map(|c| c.to_array())
        .map_err(|row| {
            PyValueError::new_err(format!(
                "split_counts: the user or item code of row {row} is out of range"
            ))
        })
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(split_counts, m)?)?;
    Ok(())
}
