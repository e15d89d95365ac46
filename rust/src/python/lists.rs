//! Python bindings of the list-wise (beyond-accuracy) kernels (lists.rs).
//!
//! Every function takes a run's `items` (int32 item
//! codes) and `offsets` (int64, n_users + 1), the depth `k`, and item-level arrays
//! indexed by item code. Offsets that do not run up through `items`, item codes
//! outside the item-level arrays and feature rows outside the matrix raise
//! `ValueError`.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice, FloatArray, Floats, Ints};
use crate::lists;

fn error(func: &str, what: &str) -> PyErr {
    PyValueError::new_err(format!("{func}: {what}"))
}

/// Offsets non-decreasing from a non-negative start to at most `len(items)`, and
/// `k >= 0`.
fn check_lists(func: &str, items: &[i32], offsets: &[i64], k: i64) -> PyResult<()> {
    let valid = !offsets.is_empty()
        && offsets[0] >= 0
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets[offsets.len() - 1] as u64 <= items.len() as u64;
    if !valid {
        return Err(error(
            func,
            "offsets must be non-decreasing from 0 to at most len(items)",
        ));
    }
    if k < 0 {
        return Err(error(func, "k must be at least 0"));
    }
    Ok(())
}

/// Every item code of every top-`k` list.
fn listed<'a>(items: &'a [i32], offsets: &'a [i64], k: i64) -> impl Iterator<Item = i32> + 'a {
    offsets.windows(2).flat_map(move |w| {
        let n = (w[1] - w[0]).min(k).max(0);
        items[w[0] as usize..(w[0] + n) as usize].iter().copied()
    })
}

/// The lists are valid and every listed code lies in `[0, n_codes)`.
fn check_codes(func: &str, items: &[i32], offsets: &[i64], k: i64, n_codes: usize) -> PyResult<()> {
    check_lists(func, items, offsets, k)?;
    if listed(items, offsets, k).any(|c| c < 0 || c as usize >= n_codes) {
        return Err(error(
            func,
            &format!("the listed item codes must lie in [0, {n_codes})"),
        ));
    }
    Ok(())
}

/// The rows of every listed item lie in `[0, n_rows)`.
fn check_rows(
    func: &str,
    items: &[i32],
    offsets: &[i64],
    k: i64,
    rows: &[i32],
    n_rows: usize,
) -> PyResult<()> {
    if listed(items, offsets, k).any(|c| {
        let r = rows[c as usize];
        r < 0 || r as usize >= n_rows
    }) {
        return Err(error(
            func,
            &format!("every listed item needs a row in [0, {n_rows})"),
        ));
    }
    Ok(())
}

/// A float32 or float64 2-D array (`name` of `func` in the error).
fn matrix<'py>(obj: &Bound<'py, PyAny>, func: &str, name: &str) -> PyResult<Matrix<'py>> {
    FloatArray::of(obj).ok_or_else(|| {
        error(
            func,
            &format!("{name} must be a float32 or float64 2-D array"),
        )
    })
}

/// A float32 or float64 2-D array.
type Matrix<'py> = FloatArray<'py, numpy::Ix2>;

/// Dispatch on the dtype of a `Matrix`: `$a` is the typed array in `$body`.
macro_rules! with_matrix {
    ($m:expr, |$a:ident| $body:expr) => {
        match $m {
            FloatArray::F32($a) => $body,
            FloatArray::F64($a) => $body,
        }
    };
}

/// The rows of a C-contiguous matrix and its number of columns.
fn rows_of<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray2<'_, T>,
    func: &str,
    name: &str,
) -> PyResult<(&'a [T], usize, usize)> {
    if !a.is_c_contiguous() {
        return Err(error(
            func,
            &format!("{name} must be a C-contiguous 2-D array"),
        ));
    }
    let data = a
        .as_slice()
        .map_err(|_| error(func, &format!("{name} must be a C-contiguous 2-D array")))?;
    let shape = a.shape();
    Ok((data, shape[0], shape[1]))
}

// ------------------------------------------------------------------ exposure
/// How many lists hold each item in their top `k` (int64, length `n_items`).
#[pyfunction]
fn item_counts_csr<'py>(
    py: Python<'py>,
    items: PyReadonlyArray1<'py, i32>,
    offsets: PyReadonlyArray1<'py, i64>,
    k: i64,
    n_items: usize,
) -> PyResult<Ints<'py>> {
    let (i, o) = (slice(&items, "items")?, slice(&offsets, "offsets")?);
    check_codes("item_counts_csr", i, o, k, n_items)?;
    let out = py.detach(|| lists::item_counts_csr(i, o, k, n_items));
    Ok(out.into_pyarray(py))
}

/// Gini index of non-negative integer counts sorted ascending (nan if all are 0).
#[pyfunction]
fn gini_sorted(py: Python<'_>, counts: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
    let c = slice(&counts, "counts")?;
    Ok(py.detach(|| lists::gini_sorted(c)))
}

// ------------------------------------------------------------------ intra-list similarity
/// `1 / ||features[rows[i]]||` for each item code `i` with `used[i]` (0 otherwise
/// and for zero vectors); `features` is C-contiguous float32 or float64.
#[pyfunction]
fn inverse_norms<'py>(
    py: Python<'py>,
    features: &Bound<'py, PyAny>,
    rows: PyReadonlyArray1<'py, i32>,
    used: PyReadonlyArray1<'py, bool>,
    n_chunks: usize,
) -> PyResult<Floats<'py>> {
    const FUNC: &str = "inverse_norms";
    let (r, u) = (slice(&rows, "rows")?, slice(&used, "used")?);
    same_length(FUNC, &[("rows", r.len()), ("used", u.len())])?;
    let out = with_matrix!(matrix(features, FUNC, "features")?, |a| {
        let (f, n_rows, d) = rows_of(&a, FUNC, "features")?;
        if r.iter()
            .zip(u)
            .any(|(&x, &used)| used && x >= 0 && x as usize >= n_rows)
        {
            return Err(error(FUNC, &format!("rows must lie below {n_rows}")));
        }
        py.detach(|| lists::inverse_norms(f, d, r, u, n_chunks))
    });
    Ok(out.into_pyarray(py))
}

/// Per-user intra-list similarity with the cosine of feature vectors (nan below 2
/// items): `rows[c]` is the feature row of item code `c`, `inv_norm[c]` its
/// inverse norm.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn intra_list_similarity_csr<'py>(
    py: Python<'py>,
    items: PyReadonlyArray1<'py, i32>,
    offsets: PyReadonlyArray1<'py, i64>,
    k: i64,
    rows: PyReadonlyArray1<'py, i32>,
    features: &Bound<'py, PyAny>,
    inv_norm: PyReadonlyArray1<'py, f64>,
    n_chunks: usize,
) -> PyResult<Floats<'py>> {
    const FUNC: &str = "intra_list_similarity_csr";
    let (i, o) = (slice(&items, "items")?, slice(&offsets, "offsets")?);
    let (r, w) = (slice(&rows, "rows")?, slice(&inv_norm, "inv_norm")?);
    same_length(FUNC, &[("rows", r.len()), ("inv_norm", w.len())])?;
    check_codes(FUNC, i, o, k, r.len())?;
    let out = with_matrix!(matrix(features, FUNC, "features")?, |a| {
        let (f, n_rows, d) = rows_of(&a, FUNC, "features")?;
        check_rows(FUNC, i, o, k, r, n_rows)?;
        let x = lists::Features {
            items: i,
            offsets: o,
            k,
            rows: r,
            features: f,
            d,
            inv_norm: w,
        };
        py.detach(|| lists::intra_list_similarity_csr(&x, n_chunks))
    });
    Ok(out.into_pyarray(py))
}

/// The mean cosine of the feature row `left[r]` of each row with the feature rows
/// `rows[offsets[g] .. offsets[g + 1]]` of its group `g = groups[r]` (a user's
/// history); `features` is a C-contiguous float64 matrix whose rows are scaled so
/// that no squared norm overflows or underflows.
#[pyfunction]
fn history_cosine_means<'py>(
    py: Python<'py>,
    features: PyReadonlyArray2<'py, f64>,
    left: PyReadonlyArray1<'py, i32>,
    groups: PyReadonlyArray1<'py, i32>,
    offsets: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i32>,
    n_chunks: usize,
) -> PyResult<Floats<'py>> {
    const FUNC: &str = "history_cosine_means";
    let (l, g) = (slice(&left, "left")?, slice(&groups, "groups")?);
    let (o, r) = (slice(&offsets, "offsets")?, slice(&rows, "rows")?);
    same_length(FUNC, &[("left", l.len()), ("groups", g.len())])?;
    check_lists(FUNC, r, o, 0)?;
    let (f, n_rows, d) = rows_of(&features, FUNC, "features")?;
    let inside = |x: &[i32], n: usize| x.iter().all(|&c| c >= 0 && (c as usize) < n);
    if !inside(l, n_rows) || !inside(&r[o[0] as usize..o[o.len() - 1] as usize], n_rows) {
        return Err(error(
            FUNC,
            &format!("left and rows must lie in [0, {n_rows})"),
        ));
    }
    if !inside(g, o.len() - 1) {
        return Err(error(
            FUNC,
            &format!("groups must lie in [0, {})", o.len() - 1),
        ));
    }
    let h = lists::Histories {
        left: l,
        groups: g,
        offsets: o,
        rows: r,
    };
    let out = py.detach(|| lists::history_cosine_means((f, n_rows, d), &h, n_chunks));
    Ok(out.into_pyarray(py))
}

/// Per-user intra-list similarity from a square similarity matrix (nan below 2
/// items). The matrix is read in place when C- or Fortran-contiguous (the value is
/// the same for the transpose), copied otherwise.
#[pyfunction]
fn intra_list_similarity_matrix_csr<'py>(
    py: Python<'py>,
    items: PyReadonlyArray1<'py, i32>,
    offsets: PyReadonlyArray1<'py, i64>,
    k: i64,
    rows: PyReadonlyArray1<'py, i32>,
    matrix: &Bound<'py, PyAny>,
    n_chunks: usize,
) -> PyResult<Floats<'py>> {
    const FUNC: &str = "intra_list_similarity_matrix_csr";
    let (i, o) = (slice(&items, "items")?, slice(&offsets, "offsets")?);
    let r = slice(&rows, "rows")?;
    check_codes(FUNC, i, o, k, r.len())?;
    let out = with_matrix!(self::matrix(matrix, FUNC, "matrix")?, |a| {
        let shape = a.shape();
        let n = shape[0];
        if shape[1] != n {
            return Err(error(FUNC, "matrix must be square"));
        }
        check_rows(FUNC, i, o, k, r, n)?;
        let copy;
        let s = match a.as_slice() {
            Ok(s) => s, // row-major, or the transpose (column-major)
            Err(_) => {
                copy = a.as_array().iter().copied().collect::<Vec<_>>();
                &copy[..]
            }
        };
        py.detach(|| lists::intra_list_similarity_matrix_csr(i, o, k, r, s, n, n_chunks))
    });
    Ok(out.into_pyarray(py))
}

/// Every unordered pair of each top-`k` list as `lo * n_items + hi`, and the CSR
/// offsets of each user's pairs.
#[pyfunction]
fn pair_keys_csr<'py>(
    py: Python<'py>,
    items: PyReadonlyArray1<'py, i32>,
    offsets: PyReadonlyArray1<'py, i64>,
    k: i64,
    n_items: usize,
) -> PyResult<(Ints<'py>, Ints<'py>)> {
    let (i, o) = (slice(&items, "items")?, slice(&offsets, "offsets")?);
    check_codes("pair_keys_csr", i, o, k, n_items)?;
    let (keys, pair_offsets) = py.detach(|| lists::pair_keys_csr(i, o, k, n_items as i64));
    Ok((keys.into_pyarray(py), pair_offsets.into_pyarray(py)))
}

/// Mean of each user's pair values (nan for a user without pairs).
#[pyfunction]
fn pair_means_csr<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    pair_offsets: PyReadonlyArray1<'py, i64>,
    n_chunks: usize,
) -> PyResult<Floats<'py>> {
    let (v, o) = (
        slice(&values, "values")?,
        slice(&pair_offsets, "pair_offsets")?,
    );
    let valid = !o.is_empty()
        && o[0] >= 0
        && o.windows(2).all(|w| w[0] <= w[1])
        && o[o.len() - 1] as u64 <= v.len() as u64;
    if !valid {
        return Err(error(
            "pair_means_csr",
            "pair_offsets must be non-decreasing from 0 to at most len(values)",
        ));
    }
    let out = py.detach(|| lists::pair_means_csr(v, o, n_chunks));
    Ok(out.into_pyarray(py))
}

// ------------------------------------------------------------------ personalization
/// Sum of cos(L_u, L_v) over ordered pairs of distinct users.
#[pyfunction]
fn personalization_csr(
    py: Python<'_>,
    items: PyReadonlyArray1<'_, i32>,
    offsets: PyReadonlyArray1<'_, i64>,
    k: i64,
    n_items: usize,
) -> PyResult<f64> {
    let (i, o) = (slice(&items, "items")?, slice(&offsets, "offsets")?);
    check_codes("personalization_csr", i, o, k, n_items)?;
    Ok(py.detach(|| lists::personalization_csr(i, o, k, n_items)))
}

// ------------------------------------------------------------------ novelty
/// Distinct users of each item in an interaction log (int64, length `n_items`).
#[pyfunction]
fn distinct_users_per_item<'py>(
    py: Python<'py>,
    user_codes: PyReadonlyArray1<'py, i32>,
    item_codes: PyReadonlyArray1<'py, i32>,
    n_users: usize,
    n_items: usize,
) -> PyResult<Ints<'py>> {
    const FUNC: &str = "distinct_users_per_item";
    let (u, i) = (
        slice(&user_codes, "user_codes")?,
        slice(&item_codes, "item_codes")?,
    );
    same_length(FUNC, &[("user_codes", u.len()), ("item_codes", i.len())])?;
    if u.iter().any(|&x| x < 0 || x as usize >= n_users) {
        return Err(error(
            FUNC,
            &format!("user_codes must lie in [0, {n_users})"),
        ));
    }
    if i.iter().any(|&x| x < 0 || x as usize >= n_items) {
        return Err(error(
            FUNC,
            &format!("item_codes must lie in [0, {n_items})"),
        ));
    }
    let out = py.detach(|| lists::distinct_users_per_item(u, i, n_users, n_items));
    Ok(out.into_pyarray(py))
}

/// Per-user mean of `values[item]` over the top-`k` list, skipping nan values.
#[pyfunction]
fn list_means_csr<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    items: PyReadonlyArray1<'py, i32>,
    offsets: PyReadonlyArray1<'py, i64>,
    k: i64,
    n_chunks: usize,
) -> PyResult<Floats<'py>> {
    let v = slice(&values, "values")?;
    let (i, o) = (slice(&items, "items")?, slice(&offsets, "offsets")?);
    check_codes("list_means_csr", i, o, k, v.len())?;
    let out = py.detach(|| lists::list_means_csr(v, i, o, k, n_chunks));
    Ok(out.into_pyarray(py))
}

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(item_counts_csr, m)?)?;
    m.add_function(wrap_pyfunction!(gini_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(inverse_norms, m)?)?;
    m.add_function(wrap_pyfunction!(intra_list_similarity_csr, m)?)?;
    m.add_function(wrap_pyfunction!(intra_list_similarity_matrix_csr, m)?)?;
    m.add_function(wrap_pyfunction!(history_cosine_means, m)?)?;
    m.add_function(wrap_pyfunction!(pair_keys_csr, m)?)?;
    m.add_function(wrap_pyfunction!(pair_means_csr, m)?)?;
    m.add_function(wrap_pyfunction!(personalization_csr, m)?)?;
    m.add_function(wrap_pyfunction!(distinct_users_per_item, m)?)?;
    m.add_function(wrap_pyfunction!(list_means_csr, m)?)?;
    Ok(())
}
