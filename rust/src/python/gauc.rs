//! The per-group AUC (GAUC): group counts, each group's AUC unweighted and weighted.

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::runs::labels_rounded;
use super::{same_length, slice, Floats, Ints};
use crate::gauc;

fn check_codes(func: &str, codes: &[i32], n_groups: usize) -> PyResult<()> {
    if codes.iter().any(|&g| g < 0 || g as usize >= n_groups) {
        return Err(PyValueError::new_err(format!(
            "{func}: codes must lie in [0, {n_groups})"
        )));
    }
    Ok(())
}

/// Rows and positives of each group.
#[pyfunction]
fn group_counts<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
    labels: PyReadonlyArray1<'py, i8>,
) -> PyResult<(Ints<'py>, Ints<'py>)> {
    let (c, l) = (slice(&codes, "codes")?, slice(&labels, "labels")?);
    same_length("group_counts", &[("codes", c.len()), ("labels", l.len())])?;
    check_codes("group_counts", c, n_groups)?;
    let (rows, pos) = py.detach(|| gauc::group_counts(c, n_groups, l));
    Ok((rows.into_pyarray(py), pos.into_pyarray(py)))
}

/// Per group: its rows, its positives and its AUC, NaN without both classes
/// ([`gauc::pair_aucs`]; float32 or float64 scores).
#[pyfunction]
fn pair_aucs<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
    labels: PyReadonlyArray1<'py, i8>,
    scores: &Bound<'py, PyAny>,
) -> PyResult<(Ints<'py>, Ints<'py>, Floats<'py>)> {
    let (c, l) = (slice(&codes, "codes")?, slice(&labels, "labels")?);
    check_codes("pair_aucs", c, n_groups)?;
    let refusal = "pair_aucs: scores must be a float32 or float64 array";
    let (rows, pos, aucs) = with_slice!(scores, "scores", [f64, f32], refusal, |s| {
        counted(py, c, n_groups, l, s)?
    });
    Ok((
        rows.into_pyarray(py),
        pos.into_pyarray(py),
        aucs.into_pyarray(py),
    ))
}

/// [`gauc::pair_aucs`] of checked codes and rows of one length.
fn counted<S: gauc::Score>(
    py: Python<'_>,
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[S],
) -> PyResult<(Vec<i64>, Vec<i64>, Vec<f64>)> {
    same_length(
        "pair_aucs",
        &[
            ("codes", codes.len()),
            ("labels", labels.len()),
            ("scores", scores.len()),
        ],
    )?;
    Ok(py.detach(|| gauc::pair_aucs(codes, n_groups, labels, scores)))
}

/// Per group: its weighted AUC (NaN without a weight of each label), weighted
/// positives and weighted negatives, and `(code, positives, negatives)` of each group
/// whose weights were rounded ([`gauc::weighted_group_aucs`], [`LabelsRounded`]).
#[pyfunction]
fn weighted_group_aucs<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
    labels: PyReadonlyArray1<'py, i8>,
    scores: PyReadonlyArray1<'py, f64>,
    weights: PyReadonlyArray1<'py, f64>,
) -> PyResult<GroupAucs<'py>> {
    let (c, l, s, w) = (
        slice(&codes, "codes")?,
        slice(&labels, "labels")?,
        slice(&scores, "scores")?,
        slice(&weights, "weights")?,
    );
    same_length(
        "weighted_group_aucs",
        &[
            ("codes", c.len()),
            ("labels", l.len()),
            ("scores", s.len()),
            ("weights", w.len()),
        ],
    )?;
    check_codes("weighted_group_aucs", c, n_groups)?;
    let (a, wp, wn, rounded) = py.detach(|| gauc::weighted_group_aucs(c, n_groups, l, s, w));
    let rounded = rounded
        .into_iter()
        .map(|(g, r)| {
            let (pos, neg) = labels_rounded(r);
            (g, pos, neg)
        })
        .collect();
    Ok((
        a.into_pyarray(py),
        wp.into_pyarray(py),
        wn.into_pyarray(py),
        rounded,
    ))
}

/// The groups' AUCs, weighted positives and negatives, and `(code, positives,
/// negatives)` of the groups whose weights were rounded.
type GroupAucs<'py> = (
    Floats<'py>,
    Floats<'py>,
    Floats<'py>,
    Vec<(usize, Option<(i32, f64)>, Option<(i32, f64)>)>,
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(group_counts, m)?)?;
    m.add_function(wrap_pyfunction!(pair_aucs, m)?)?;
    m.add_function(wrap_pyfunction!(weighted_group_aucs, m)?)?;
    Ok(())
}
