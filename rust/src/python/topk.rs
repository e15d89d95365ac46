//! Python bindings of the exact top-k of inner products (topk/).
//!
//! The running top-k of a block of rows lives in three arrays the caller owns:
//! `heap_scores` (float32) and `heap_items` (int32), `k` slots per row, and
//! `heap_len` (int64), the slots used per row. Wrong lengths, offsets or item
//! indices raise `ValueError`, never a panic.

use numpy::{
    IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::slice;
use crate::topk;

fn error(func: &str, what: &str) -> PyErr {
    PyValueError::new_err(format!("{func}: {what}"))
}

/// The caller's heaps, checked: `k` slots per row, lengths at most `k`, kept items
/// inside `[0, n_keys)`.
fn heaps<'a>(
    func: &str,
    scores: &'a mut PyReadwriteArray1<'_, f32>,
    items: &'a mut PyReadwriteArray1<'_, i32>,
    len: &'a mut PyReadwriteArray1<'_, i64>,
    k: usize,
    n_keys: usize,
) -> PyResult<topk::Heaps<'a>> {
    let bad = |name: &str| error(func, &format!("{name} must be a C-contiguous 1-D array"));
    let scores = scores.as_slice_mut().map_err(|_| bad("heap_scores"))?;
    let items = items.as_slice_mut().map_err(|_| bad("heap_items"))?;
    let len = len.as_slice_mut().map_err(|_| bad("heap_len"))?;
    let rows = len.len();
    if scores.len() != rows * k || items.len() != rows * k {
        return Err(error(
            func,
            "heap_scores and heap_items must hold k slots per row",
        ));
    }
    for (r, &n) in len.iter().enumerate() {
        if n < 0 || n as usize > k {
            return Err(error(func, "heap_len must lie in [0, k]"));
        }
        let kept = &items[r * k..r * k + n as usize];
        if kept.iter().any(|&i| i < 0 || i as usize >= n_keys) {
            return Err(error(func, "heap_items must lie in [0, len(keys))"));
        }
    }
    Ok(topk::Heaps {
        scores,
        items,
        len,
        k,
    })
}

/// The numbers of a C-contiguous 2-D array, row by row.
fn matrix<'a>(func: &str, a: &'a PyReadonlyArray2<'_, f32>, name: &str) -> PyResult<&'a [f32]> {
    let bad = || error(func, &format!("{name} must be a C-contiguous 2-D array"));
    if !a.is_c_contiguous() {
        return Err(bad());
    }
    a.as_slice().map_err(|_| bad())
}

/// The inner product of each row of C-contiguous float32 `a` with the same row of
/// `b` (float32), as `topk_scan` scores a user and an item (see `topk::row_dots`).
#[pyfunction]
fn row_dots<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, f32>,
    b: PyReadonlyArray2<'py, f32>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let func = "row_dots";
    if a.shape() != b.shape() {
        return Err(error(func, "a and b must have the same shape"));
    }
    let (rows, dim) = (a.shape()[0], a.shape()[1]);
    let (x, y) = (matrix(func, &a, "a")?, matrix(func, &b, "b")?);
    let mut out = vec![0f32; rows];
    py.detach(|| topk::row_dots(x, y, dim, &mut out));
    Ok(out.into_pyarray(py))
}

/// Score C-contiguous float32 `users` (rows x dim) against `items` (width x dim;
/// item row `j` is item `col0 + j`) and merge the scores into the rows' heaps,
/// skipping each row's masked items (`masked_offsets`, rows + 1, into
/// `masked_items`, sorted per row). Ties are broken by `keys[item]`, smaller
/// first. Returns whether a score was NaN.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn topk_scan(
    py: Python<'_>,
    users: PyReadonlyArray2<'_, f32>,
    items: PyReadonlyArray2<'_, f32>,
    col0: usize,
    keys: PyReadonlyArray1<'_, u32>,
    masked_offsets: PyReadonlyArray1<'_, i64>,
    masked_items: PyReadonlyArray1<'_, i32>,
    mut heap_scores: PyReadwriteArray1<'_, f32>,
    mut heap_items: PyReadwriteArray1<'_, i32>,
    mut heap_len: PyReadwriteArray1<'_, i64>,
    k: usize,
) -> PyResult<bool> {
    let func = "topk_scan";
    let (rows, dim) = (users.shape()[0], users.shape()[1]);
    let width = items.shape()[0];
    if items.shape()[1] != dim {
        return Err(error(
            func,
            "users and items must have the same number of columns",
        ));
    }
    let users = matrix(func, &users, "users")?;
    let items = matrix(func, &items, "items")?;
    let keys = slice(&keys, "keys")?;
    if col0 + width > keys.len() {
        return Err(error(func, "keys must cover every item of the block"));
    }
    let offsets = slice(&masked_offsets, "masked_offsets")?;
    let masked = slice(&masked_items, "masked_items")?;
    let valid = offsets.len() == rows + 1
        && offsets[0] >= 0
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets[rows] as u64 <= masked.len() as u64;
    if !valid {
        return Err(error(
            func,
            "masked_offsets must hold rows + 1 non-decreasing offsets into masked_items",
        ));
    }
    let n_keys = keys.len();
    let heaps = heaps(
        func,
        &mut heap_scores,
        &mut heap_items,
        &mut heap_len,
        k,
        n_keys,
    )?;
    if heaps.len.len() != rows {
        return Err(error(func, "heap_len must have one entry per row of users"));
    }
    let block = topk::Block {
        users,
        items,
        dim,
        col0,
    };
    let masked = topk::Masked {
        offsets,
        items: masked,
    };
    Ok(py.detach(|| topk::scan_block(&block, keys, &masked, heaps)))
}

/// Sort each row's kept items best first (score descending, `keys[item]`
/// ascending), in place.
#[pyfunction]
fn topk_finish(
    py: Python<'_>,
    mut heap_scores: PyReadwriteArray1<'_, f32>,
    mut heap_items: PyReadwriteArray1<'_, i32>,
    mut heap_len: PyReadwriteArray1<'_, i64>,
    k: usize,
    keys: PyReadonlyArray1<'_, u32>,
) -> PyResult<()> {
    let keys = slice(&keys, "keys")?;
    let heaps = heaps(
        "topk_finish",
        &mut heap_scores,
        &mut heap_items,
        &mut heap_len,
        k,
        keys.len(),
    )?;
    py.detach(|| topk::finish(heaps, keys));
    Ok(())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(row_dots, m)?)?;
    m.add_function(wrap_pyfunction!(topk_scan, m)?)?;
    m.add_function(wrap_pyfunction!(topk_finish, m)?)?;
    Ok(())
}
