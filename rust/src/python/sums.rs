//! The exact sums: accumulators of `sum(x)`, `sum(x * w)` and the log losses.

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice, Ints};
use crate::{calibration, loss, sums};

/// Accumulator (int64, length SIZE) of `sum(x)`.
#[pyfunction]
#[pyo3(signature = (x, n_chunks, carry_every = sums::CARRY_EVERY))]
fn exact_sum<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    n_chunks: usize,
    carry_every: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let x = slice(&x, "x")?;
    let acc = py.detach(|| sums::exact_sum(x, n_chunks, carry_every));
    Ok(acc.to_vec().into_pyarray(py))
}

/// Accumulator of `sum(x * w)`, each product rounded first.
#[pyfunction]
#[pyo3(signature = (x, w, n_chunks, carry_every = sums::CARRY_EVERY))]
fn exact_dot<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    w: PyReadonlyArray1<'py, f64>,
    n_chunks: usize,
    carry_every: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (x, w) = (slice(&x, "x")?, slice(&w, "w")?);
    same_length("exact_dot", &[("x", x.len()), ("w", w.len())])?;
    let acc = py.detach(|| sums::exact_dot(x, w, n_chunks, carry_every));
    Ok(acc.to_vec().into_pyarray(py))
}

/// Accumulator of `sum(x * y)` (times `w` when given), each product split into two
/// float64 parts that add up to it exactly (Dekker's product): an exact sum; and a
/// bound on what products outside the range of exact parts lost (0.0: none).
#[pyfunction]
#[pyo3(signature = (x, y, w, n_chunks, carry_every = sums::CARRY_EVERY))]
fn exact_products<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    w: Option<PyReadonlyArray1<'py, f64>>,
    n_chunks: usize,
    carry_every: usize,
) -> PyResult<(Bound<'py, PyArray1<i64>>, f64)> {
    let (x, y) = (slice(&x, "x")?, slice(&y, "y")?);
    same_length("exact_products", &[("x", x.len()), ("y", y.len())])?;
    let w = match &w {
        Some(w) => {
            let w = slice(w, "w")?;
            same_length("exact_products", &[("x", x.len()), ("w", w.len())])?;
            Some(w)
        }
        None => None,
    };
    let (acc, lost) = py.detach(|| sums::exact_products(x, y, w, n_chunks, carry_every));
    Ok((acc.to_vec().into_pyarray(py), lost))
}

/// One term of `exact_sums`: `sum(f(x) * w)`, each value and product rounded first.
type Term<'py> = (
    PyReadonlyArray1<'py, f64>,
    Option<PyReadonlyArray1<'py, f64>>,
    String,
);

/// The weighted binary log loss of `exact_sums`: labels, probabilities, weights, eps.
type LossTerm<'py> = (
    PyReadonlyArray1<'py, i8>,
    PyReadonlyArray1<'py, f64>,
    PyReadonlyArray1<'py, f64>,
    f64,
);

/// Accumulators (one row each, int64 `(k, SIZE)`) of several exact sums in one call:
/// a row per term `(x, w, f)`, the sum of `f(x)` (`f` one of "value", "square",
/// "abs") times `w` (None: no weight), each value and product rounded first, as
/// `exact_dot(f(x), w)`; then, when given, a row of the binary log loss sum of
/// `log_loss = (labels, proba, weights, eps)` as `binary_log_loss_exact`.
#[pyfunction]
#[pyo3(signature = (terms, log_loss = None))]
fn exact_sums<'py>(
    py: Python<'py>,
    terms: Vec<Term<'py>>,
    log_loss: Option<LossTerm<'py>>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let mut parts = Vec::with_capacity(terms.len());
    for (x, w, form) in &terms {
        let x = slice(x, "x")?;
        let w = match w {
            Some(w) => {
                let w = slice(w, "w")?;
                same_length("exact_sums", &[("x", x.len()), ("w", w.len())])?;
                Some(w)
            }
            None => None,
        };
        let form = match form.as_str() {
            "value" => sums::Form::Value,
            "square" => sums::Form::Square,
            "abs" => sums::Form::Abs,
            other => {
                return Err(PyValueError::new_err(format!(
                    "exact_sums: a term's form must be 'value', 'square' or 'abs', got {other:?}"
                )))
            }
        };
        parts.push((x, w, form));
    }
    let loss = match &log_loss {
        Some((labels, proba, weights, eps)) => {
            let (l, p, w) = (
                slice(labels, "labels")?,
                slice(proba, "proba")?,
                slice(weights, "weights")?,
            );
            same_length("exact_sums", &[("labels", l.len()), ("proba", p.len())])?;
            if !w.is_empty() {
                same_length("exact_sums", &[("labels", l.len()), ("weights", w.len())])?;
            }
            Some((l, p, w, *eps))
        }
        None => None,
    };
    let rows = py.detach(|| {
        let mut rows: Vec<sums::Acc> = parts
            .iter()
            .map(|&(x, w, form)| {
                let n_chunks = sums::chunks_for(x.len());
                sums::exact_form(x, w, form, n_chunks, sums::CARRY_EVERY)
            })
            .collect();
        if let Some((l, p, w, eps)) = loss {
            let n_chunks = sums::chunks_for(l.len());
            rows.push(loss::binary_log_loss_exact(
                l,
                p,
                w,
                eps,
                n_chunks,
                sums::CARRY_EVERY,
            ));
        }
        rows
    });
    let flat: Vec<i64> = rows.iter().flatten().copied().collect();
    let out = numpy::ndarray::Array2::from_shape_vec((rows.len(), sums::SIZE), flat)
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    Ok(out.into_pyarray(py))
}

/// Accumulators (one row each, int64 `(k, SIZE)`) of the sums of the `k` groups of
/// `x`: group `i` the values `x[offsets[i]..offsets[i + 1]]` (`offsets`: `k + 1`
/// nondecreasing positions in `x`), each as `exact_sum` gives it. The exact sums of
/// many groups (the users of each segment) in one call, of one array: a term of
/// `exact_sums` a group would borrow a view of `x` each, whose checks against the
/// views borrowed before grow with their number.
#[pyfunction]
fn exact_group_sums<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (x, offsets) = (slice(&x, "x")?, slice(&offsets, "offsets")?);
    let within = |&o: &i64| usize::try_from(o).is_ok_and(|o| o <= x.len());
    if !offsets.iter().all(within) || offsets.windows(2).any(|w| w[0] > w[1]) {
        return Err(PyValueError::new_err(
            "exact_group_sums: offsets must be nondecreasing positions in x",
        ));
    }
    let groups = offsets.len().saturating_sub(1);
    let flat = py.detach(|| {
        let mut flat = Vec::with_capacity(groups * sums::SIZE);
        for w in offsets.windows(2) {
            let part = &x[w[0] as usize..w[1] as usize];
            let n_chunks = sums::chunks_for(part.len());
            flat.extend_from_slice(&sums::exact_sum(part, n_chunks, sums::CARRY_EVERY));
        }
        flat
    });
    let out = numpy::ndarray::Array2::from_shape_vec((groups, sums::SIZE), flat)
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    Ok(out.into_pyarray(py))
}

/// The running sums of `x` restarted at each of `starts` (nondecreasing positions in
/// `x`; a sum also starts at 0): each group's `np.cumsum`, its additions in the same
/// order. A running sum of every row less the total of the groups before (one
/// `np.cumsum`) would cancel the bits of a group of small values after large ones.
#[pyfunction]
fn group_cumsum<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, f64>,
    starts: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (x, starts) = (slice(&x, "x")?, slice(&starts, "starts")?);
    let within = |&o: &i64| usize::try_from(o).is_ok_and(|o| o <= x.len());
    if !starts.iter().all(within) || starts.windows(2).any(|w| w[0] > w[1]) {
        return Err(PyValueError::new_err(
            "group_cumsum: starts must be nondecreasing positions in x",
        ));
    }
    let starts: Vec<usize> = starts.iter().map(|&s| s as usize).collect();
    let out = py.detach(|| sums::group_cumsum(x, &starts));
    Ok(out.into_pyarray(py))
}

/// The value of an accumulator (int64, length SIZE) rounded once to the nearest
/// float64, ties to even: nan if it counted a nan or both infinities, an infinity if
/// it counted one, an infinity beyond the float range.
#[pyfunction]
fn rounded_sum(acc: PyReadonlyArray1<'_, i64>) -> PyResult<f64> {
    let acc: &sums::Acc = slice(&acc, "acc")?.try_into().map_err(|_| {
        PyValueError::new_err(format!(
            "rounded_sum: an accumulator must have {} elements",
            sums::SIZE
        ))
    })?;
    Ok(sums::rounded(acc))
}

/// The sums `a[i] + b[i]` of pairs of accumulators (normalized), one row each
/// (int64 `(k, SIZE)`): a state's exact sums merged in one call.
#[pyfunction]
fn add_exact<'py>(
    py: Python<'py>,
    a: Vec<PyReadonlyArray1<'py, i64>>,
    b: Vec<PyReadonlyArray1<'py, i64>>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    same_length("add_exact", &[("a", a.len()), ("b", b.len())])?;
    let mut out = numpy::ndarray::Array2::<i64>::zeros((a.len(), sums::SIZE));
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        let (x, y) = (slice(x, "a")?, slice(y, "b")?);
        if x.len() != sums::SIZE || y.len() != sums::SIZE {
            return Err(PyValueError::new_err(format!(
                "add_exact: accumulators must have {} elements, got {} and {}",
                sums::SIZE,
                x.len(),
                y.len()
            )));
        }
        let mut row = [0i64; sums::SIZE];
        for j in 0..sums::SIZE {
            row[j] = x[j] + y[j];
        }
        sums::normalize(&mut row);
        out.row_mut(i)
            .assign(&numpy::ndarray::ArrayView1::from(&row[..]));
    }
    Ok(out.into_pyarray(py))
}

/// Carry the digits of an accumulator in place.
#[pyfunction]
fn normalize(mut acc: PyReadwriteArray1<'_, i64>) -> PyResult<()> {
    let acc = acc
        .as_slice_mut()
        .map_err(|_| PyValueError::new_err("acc must be a C-contiguous 1-D array"))?;
    if acc.len() != sums::SIZE {
        return Err(PyValueError::new_err(format!(
            "acc must have {} elements, got {}",
            sums::SIZE,
            acc.len()
        )));
    }
    sums::normalize(acc);
    Ok(())
}

/// Accumulator of the binary log loss sum (weights of length 0: unit weights).
#[pyfunction]
#[pyo3(signature = (labels, proba, weights, eps, n_chunks, carry_every = sums::CARRY_EVERY))]
fn binary_log_loss_exact<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'py, i8>,
    proba: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    eps: f64,
    n_chunks: usize,
    carry_every: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (l, p, w) = (
        slice(&labels, "labels")?,
        slice(&proba, "proba")?,
        slice(&weights, "weights")?,
    );
    same_length(
        "binary_log_loss_exact",
        &[("labels", l.len()), ("proba", p.len())],
    )?;
    if !w.is_empty() {
        same_length(
            "binary_log_loss_exact",
            &[("labels", l.len()), ("weights", w.len())],
        )?;
    }
    let acc = py.detach(|| loss::binary_log_loss_exact(l, p, w, eps, n_chunks, carry_every));
    Ok(acc.to_vec().into_pyarray(py))
}

/// Accumulator of the multiclass log loss sum: `-w ln(clip(proba[i, codes[i]]))`.
#[pyfunction]
fn multiclass_log_loss_exact<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i64>,
    proba: PyReadonlyArray2<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    eps: f64,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (c, w) = (slice(&codes, "codes")?, slice(&weights, "weights")?);
    let shape = proba.shape();
    let (n, k) = (shape[0], shape[1]);
    if !proba.is_c_contiguous() {
        // as_slice() also takes a Fortran-ordered array, whose rows it would misread
        return Err(PyValueError::new_err(
            "proba must be a C-contiguous 2-D array",
        ));
    }
    let p = proba
        .as_slice()
        .map_err(|_| PyValueError::new_err("proba must be a C-contiguous 2-D array"))?;
    same_length(
        "multiclass_log_loss_exact",
        &[("codes", c.len()), ("proba", n)],
    )?;
    if !w.is_empty() {
        same_length(
            "multiclass_log_loss_exact",
            &[("codes", c.len()), ("weights", w.len())],
        )?;
    }
    if c.iter().any(|&x| x < 0 || x as usize >= k) {
        return Err(PyValueError::new_err(format!(
            "multiclass_log_loss_exact: codes must lie in [0, {k})"
        )));
    }
    let acc = py.detach(|| loss::multiclass_log_loss_exact(c, p, k, w, eps, n_chunks));
    Ok(acc.to_vec().into_pyarray(py))
}

/// The bins of the probabilities that hold rows (ascending) and each one's
/// accumulator of `sum(w (y - p))` (one row each); weights of length 0: unit weights.
#[pyfunction]
fn binned_gaps<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'py, i8>,
    proba: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
    edges: PyReadonlyArray1<'py, f64>,
    upper: bool,
) -> PyResult<(Ints<'py>, Bound<'py, PyArray2<i64>>)> {
    let (l, p, w, e) = (
        slice(&labels, "labels")?,
        slice(&proba, "proba")?,
        slice(&weights, "weights")?,
        slice(&edges, "edges")?,
    );
    same_length("binned_gaps", &[("labels", l.len()), ("proba", p.len())])?;
    if !w.is_empty() {
        same_length("binned_gaps", &[("labels", l.len()), ("weights", w.len())])?;
    }
    check_edges("binned_gaps", e)?;
    let (bins, gaps) = py.detach(|| calibration::binned_gaps(l, p, w, e, upper));
    let rows = gaps.len();
    let flat: Vec<i64> = gaps.into_iter().flatten().collect();
    let gaps = numpy::ndarray::Array2::from_shape_vec((rows, sums::SIZE), flat)
        .map_err(|err| PyValueError::new_err(err.to_string()))?;
    Ok((bins.into_pyarray(py), gaps.into_pyarray(py)))
}

fn check_edges(func: &str, e: &[f64]) -> PyResult<()> {
    if e.len() < 2 || e.iter().any(|x| x.is_nan()) || e.windows(2).any(|x| x[0] > x[1]) {
        return Err(PyValueError::new_err(format!(
            "{func}: edges must be at least 2 sorted numbers"
        )));
    }
    Ok(())
}

/// Each probability's bin among the sorted `edges`, by the rule of `binned_gaps`.
#[pyfunction]
fn probability_bins<'py>(
    py: Python<'py>,
    proba: PyReadonlyArray1<'py, f64>,
    edges: PyReadonlyArray1<'py, f64>,
    upper: bool,
) -> PyResult<Ints<'py>> {
    let (p, e) = (slice(&proba, "proba")?, slice(&edges, "edges")?);
    check_edges("probability_bins", e)?;
    let bins: Vec<i64> = py.detach(|| {
        p.iter()
            .map(|&x| calibration::bin_of(x, e, upper) as i64)
            .collect()
    });
    Ok(bins.into_pyarray(py))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SIZE", sums::SIZE)?;
    m.add("N_LIMBS", sums::N_LIMBS)?;
    m.add("NAN", sums::NAN)?;
    m.add("POS_INF", sums::POS_INF)?;
    m.add("NEG_INF", sums::NEG_INF)?;
    m.add_function(wrap_pyfunction!(exact_sum, m)?)?;
    m.add_function(wrap_pyfunction!(exact_dot, m)?)?;
    m.add_function(wrap_pyfunction!(exact_products, m)?)?;
    m.add_function(wrap_pyfunction!(exact_sums, m)?)?;
    m.add_function(wrap_pyfunction!(exact_group_sums, m)?)?;
    m.add_function(wrap_pyfunction!(group_cumsum, m)?)?;
    m.add_function(wrap_pyfunction!(rounded_sum, m)?)?;
    m.add_function(wrap_pyfunction!(add_exact, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(binary_log_loss_exact, m)?)?;
    m.add_function(wrap_pyfunction!(multiclass_log_loss_exact, m)?)?;
    m.add_function(wrap_pyfunction!(binned_gaps, m)?)?;
    m.add_function(wrap_pyfunction!(probability_bins, m)?)?;
    Ok(())
}
