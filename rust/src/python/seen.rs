//! Seen-item masking (`receval.data.seen`): the rows of lists whose item the user has seen.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{slice, Ints};
use crate::seen::{self, Lists, Seen};

/// A `ValueError` of `seen_rows` saying what `name` must be.
fn invalid(name: &str, what: &str) -> PyErr {
    PyValueError::new_err(format!("seen_rows: {name} must {what}"))
}

/// Offsets ascending from 0 to `n` rows.
fn check_offsets(name: &str, o: &[i64], n: usize) -> PyResult<()> {
    let ok = !o.is_empty()
        && o[0] == 0
        && o[o.len() - 1] >= 0
        && o[o.len() - 1] as u64 == n as u64
        && o.windows(2).all(|w| w[0] <= w[1]);
    if ok {
        Ok(())
    } else {
        Err(invalid(name, &format!("ascend from 0 to {n}")))
    }
}

/// Codes below `n` (negative: absent, when `absent`).
fn check_codes(name: &str, codes: &[i32], n: usize, absent: bool) -> PyResult<()> {
    if codes
        .iter()
        .all(|&c| (absent || c >= 0) && (c < 0 || (c as usize) < n))
    {
        Ok(())
    } else {
        Err(invalid(name, &format!("hold codes below {n}")))
    }
}

/// Whether each row of the lists (`offsets`, `items`) holds an item its user has
/// seen, and how many rows of each list do: `user_map` / `item_map` read the lists'
/// user and item codes in the seen table (`seen_offsets`, `seen_items`: each user's
/// item codes ascending; -1: absent).
#[pyfunction]
fn seen_rows<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    items: PyReadonlyArray1<'py, i32>,
    user_map: PyReadonlyArray1<'py, i32>,
    item_map: PyReadonlyArray1<'py, i32>,
    seen_offsets: PyReadonlyArray1<'py, i64>,
    seen_items: PyReadonlyArray1<'py, i32>,
) -> PyResult<(Bound<'py, PyArray1<bool>>, Ints<'py>)> {
    let lists = Lists {
        offsets: slice(&offsets, "offsets")?,
        items: slice(&items, "items")?,
        user_map: slice(&user_map, "user_map")?,
        item_map: slice(&item_map, "item_map")?,
    };
    let table = Seen {
        offsets: slice(&seen_offsets, "seen_offsets")?,
        items: slice(&seen_items, "seen_items")?,
    };
    check_offsets("offsets", lists.offsets, lists.items.len())?;
    check_offsets("seen_offsets", table.offsets, table.items.len())?;
    if lists.user_map.len() + 1 != lists.offsets.len() {
        return Err(invalid("user_map", "hold one code per list"));
    }
    check_codes("items", lists.items, lists.item_map.len(), false)?;
    check_codes("user_map", lists.user_map, table.offsets.len() - 1, true)?;
    let (rows, counts) = py.detach(|| seen::seen_rows(&lists, &table));
    Ok((rows.into_pyarray(py), counts.into_pyarray(py)))
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(seen_rows, m)?)?;
    Ok(())
}
