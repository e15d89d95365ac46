//! Python bindings of the kernels that read a column chunk by chunk (the row groups
//! of a Parquet file, each a zero-copy view of an Arrow buffer): ids shifted into
//! the caller's `i32` array, then turned into dense codes in place (encode.rs), and
//! scores ranked from a chunk straight into the caller's output (csr.rs). Every
//! index is checked before the work; a bad argument raises `ValueError`.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::slice;
use crate::{csr, encode};

fn slice_mut<'a, T: numpy::Element>(
    a: &'a mut PyReadwriteArray1<'_, T>,
    name: &str,
) -> PyResult<&'a mut [T]> {
    a.as_slice_mut()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a C-contiguous 1-D array")))
}

fn error(msg: String) -> PyErr {
    PyValueError::new_err(msg)
}

/// Write `id - anchor` of every id (`values`: int64 ids, or int32 or uint32 codes
/// read as they are) into `out` (as long as `values`): `(ok, lo, hi)`, the smallest
/// and largest id; `ok` is False when an id lies too far from `anchor` for an
/// `int32`.
#[pyfunction]
fn shift_ids(
    py: Python<'_>,
    values: &Bound<'_, PyAny>,
    anchor: i64,
    mut out: PyReadwriteArray1<'_, i32>,
) -> PyResult<(bool, i64, i64)> {
    let o = slice_mut(&mut out, "out")?;
    let refusal = "shift_ids: values must be a 1-D int64, int32 or uint32 array";
    let shifted = with_slice!(values, "values", [i64, i32, u32], refusal, |v| {
        shift_into(py, v, anchor, o)
    })?;
    Ok(shifted.map_or((false, 0, 0), |(lo, hi)| (true, lo, hi)))
}

/// [`shift_ids`] of one kind of id, the lengths checked first.
fn shift_into<T: encode::Id>(
    py: Python<'_>,
    v: &[T],
    anchor: i64,
    o: &mut [i32],
) -> PyResult<Option<(i64, i64)>> {
    if o.len() != v.len() {
        return Err(error(format!(
            "shift_ids: out must have as many elements as values ({}). Got {}.",
            v.len(),
            o.len()
        )));
    }
    Ok(py.detach(|| encode::shift_ids(v, anchor, o)))
}

/// Dense codes, in place, of ids held as offsets from `anchor` that lie in
/// `[base, base + span)`: in ascending order of the ids (`ascending`, in parallel
/// over `n_chunks` chunks) or of first appearance. Returns the ids of the codes.
#[pyfunction]
fn dense_codes_in_place<'py>(
    py: Python<'py>,
    mut codes: PyReadwriteArray1<'py, i32>,
    base: i64,
    span: usize,
    anchor: i64,
    ascending: bool,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let c = slice_mut(&mut codes, "codes")?;
    let ids = py.detach(|| {
        if ascending {
            encode::dense_sorted_in_place(c, base, span, anchor, n_chunks)
        } else {
            encode::dense_first_in_place(c, base, span, anchor)
        }
    });
    match ids {
        Some(ids) => Ok(ids.into_pyarray(py)),
        None => Err(error(
            "dense_codes_in_place: codes must lie in [base, base + span)".to_string(),
        )),
    }
}

/// Fault in the pages of a new output array at once (see `pages::populate`); a
/// hint, without effect where the system lacks it. `a`: the array's bytes.
#[pyfunction]
fn populate(py: Python<'_>, mut a: PyReadwriteArray1<'_, u8>) -> PyResult<()> {
    let s = slice_mut(&mut a, "a")?;
    py.detach(|| crate::pages::populate(s));
    Ok(())
}

/// Rank the segments of `offsets` (positions in `keys`) into `out_keys`, reordering
/// `items` (their codes, in `[0, n_items)`) in place; `items` and `out_keys` hold the
/// rows `offsets[0]..offsets[-1]`. Returns the first segment (an index into
/// `offsets`) with a repeated item, or -1, and whether those rows' keys are all
/// finite (the caller raises otherwise: the output is then meaningless).
#[pyfunction]
fn rank_rows_into(
    py: Python<'_>,
    offsets: PyReadonlyArray1<'_, i64>,
    mut items: PyReadwriteArray1<'_, i32>,
    keys: PyReadonlyArray1<'_, f64>,
    mut out_keys: PyReadwriteArray1<'_, f64>,
    n_items: usize,
    n_chunks: usize,
) -> PyResult<(i64, bool)> {
    let f = "rank_rows_into";
    let (o, k) = (slice(&offsets, "offsets")?, slice(&keys, "keys")?);
    let it = slice_mut(&mut items, "items")?;
    let ok = slice_mut(&mut out_keys, "out_keys")?;
    let (first, last) = match (o.first(), o.last()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => return Err(error(format!("{f}: offsets must not be empty"))),
    };
    let sorted = first >= 0 && o.windows(2).all(|w| w[0] <= w[1]);
    if !sorted || last as u64 > k.len() as u64 {
        return Err(error(format!(
            "{f}: offsets must never decrease and lie in [0, {}]",
            k.len()
        )));
    }
    let n = (last - first) as usize;
    if it.len() != n || ok.len() != n {
        return Err(error(format!(
            "{f}: items and out_keys must hold the {n} rows the offsets cover"
        )));
    }
    let found = py.detach(|| csr::rank_rows_into(o, it, k, ok, n_items, n_chunks));
    if !found.codes_ok {
        return Err(error(format!("{f}: items must lie in [0, {n_items})")));
    }
    Ok((found.dup, found.finite))
}

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(shift_ids, m)?)?;
    m.add_function(wrap_pyfunction!(dense_codes_in_place, m)?)?;
    m.add_function(wrap_pyfunction!(rank_rows_into, m)?)?;
    m.add_function(wrap_pyfunction!(populate, m)?)?;
    Ok(())
}
