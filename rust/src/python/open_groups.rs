//! Binding of [`crate::gauc::open`]: GAUC's rows of groups split across updates and
//! accumulators, held until the end. Group ids come in as an int64 array or a list
//! of str (as those of [`super::open`]); every code, label, score and weight is
//! checked before a row is added (a bad one raises `ValueError` naming it, the rows
//! unchanged).

use numpy::{IntoPyArray, Ix1, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use pyo3::types::PyBool;

use super::checked::{
    checked_gauc_batch, refused as refusal_tuple, with_gauc_batch, Values as Given,
};
use super::open::{given, ids_out, values_out};
use super::{same_length, slice, FloatArray};
use crate::gauc::open::{Batch, GroupedScores, OpenGroups as Rows, Scores};
use crate::held::{Chunked, Values, Widened};

fn refused(message: String) -> PyErr {
    PyValueError::new_err(message)
}

/// Scores given as a float32 or a float64 array (a `ValueError` naming `where_` for
/// anything else).
fn given_scores<'py>(scores: &Bound<'py, PyAny>, where_: &str) -> PyResult<FloatArray<'py, Ix1>> {
    FloatArray::of(scores).ok_or_else(|| {
        refused(format!(
            "{where_}.scores must be a float32 or float64 array"
        ))
    })
}

/// The values of scores given as a float32 or a float64 array.
fn scores_of<'a>(given: &'a FloatArray<'_, Ix1>) -> PyResult<Scores<'a>> {
    Ok(match given {
        FloatArray::F32(a) => Scores::F32(slice(a, "scores")?),
        FloatArray::F64(a) => Scores::F64(slice(a, "scores")?),
    })
}

/// A `ValueError` naming `field` of `where_` unless every value is finite and >= 0.
fn check_weights(where_: &str, field: &str, w: &[f64]) -> PyResult<()> {
    if w.iter().all(|&x| x.is_finite() && x >= 0.0) {
        return Ok(());
    }
    Err(refused(format!("{where_}.{field} must be finite and >= 0")))
}

/// A `ValueError` unless the labels are 0 or 1 and the scores finite.
fn check_rows(where_: &str, labels: &[i8], scores: Scores<'_>) -> PyResult<()> {
    if labels.iter().any(|&l| l != 0 && l != 1) {
        return Err(refused(format!("{where_}.labels must be 0 or 1")));
    }
    let finite = match scores {
        Scores::F32(s) => s.iter().all(|x| x.is_finite()),
        Scores::F64(s) => s.iter().all(|x| x.is_finite()),
    };
    if !finite {
        return Err(refused(format!("{where_}.scores must be finite")));
    }
    Ok(())
}

/// GAUC's rows of every update: a table of the group ids, and per row its group
/// code, label, score (f32 while every score is one exactly) and weight (once an
/// update gives weights); the per-row `weighting` of each group.
#[pyclass(name = "OpenGroups", module = "receval._core")]
#[derive(Clone, Default)]
pub struct OpenGroups {
    rows: Rows,
}

#[pymethods]
impl OpenGroups {
    #[new]
    fn new() -> Self {
        OpenGroups::default()
    }

    /// Add an update's rows: each row's code into `ids` (its distinct group ids),
    /// label (0 or 1), score (float32 or float64) and sample weight (None: 1 each),
    /// and the per-row `weighting`'s weight of each id (None: not given).
    #[pyo3(signature = (ids, codes, labels, scores, weights = None, group_weight = None))]
    fn add(
        &mut self,
        ids: &Bound<'_, PyAny>,
        codes: PyReadonlyArray1<'_, i32>,
        labels: PyReadonlyArray1<'_, i8>,
        scores: &Bound<'_, PyAny>,
        weights: Option<PyReadonlyArray1<'_, f64>>,
        group_weight: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<()> {
        let where_ = "OpenGroups.add";
        let ids = given(ids, &format!("{where_}.ids"))?;
        let (codes, labels) = (slice(&codes, "codes")?, slice(&labels, "labels")?);
        let given_scores = given_scores(scores, where_)?;
        let scores = scores_of(&given_scores)?;
        let weights = weights.as_ref().map(|w| slice(w, "weights")).transpose()?;
        let group_weight = group_weight
            .as_ref()
            .map(|w| slice(w, "group_weight"))
            .transpose()?;
        let mut lengths = vec![
            ("codes", codes.len()),
            ("labels", labels.len()),
            ("scores", scores.len()),
        ];
        lengths.extend(weights.map(|w| ("weights", w.len())));
        same_length(where_, &lengths)?;
        let n_ids = ids.len();
        if codes.iter().any(|&c| c < 0 || c as usize >= n_ids) {
            return Err(refused(format!("{where_}.codes must lie in [0, len(ids))")));
        }
        if let Some(gw) = group_weight {
            same_length(where_, &[("ids", n_ids), ("group_weight", gw.len())])?;
            check_weights(where_, "group_weight", gw)?;
        }
        if let Some(w) = weights {
            check_weights(where_, "weights", w)?;
        }
        check_rows(where_, labels, scores)?;
        let table = ids.codes(&mut self.rows.ids)?;
        let batch = Batch {
            codes,
            labels,
            scores,
            weights,
            group_weight,
        };
        self.rows.add(&table, batch);
        Ok(())
    }

    /// Add a batch of plain NumPy labels (any dtype), float scores and integer group
    /// ids, checked here and the ids coded straight into this table (no sample
    /// weights, no per-row weighting): True; a refusal of the labels (argument 0) or
    /// the scores (1), as the full path's checks word it, the rows unchanged; or
    /// False (nothing added) for other input (float, bool or wider ids, arrays that
    /// are not C-contiguous, an empty batch, lengths that differ).
    fn add_checked<'py>(
        &mut self,
        py: Python<'py>,
        y_true: &Bound<'py, PyAny>,
        y_score: &Bound<'py, PyAny>,
        groups: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let added = |added: bool| Ok(PyBool::new(py, added).to_owned().into_any());
        let rows = &mut self.rows;
        let answer = with_gauc_batch(y_true, y_score, groups, |labels, scores, ids| {
            py.detach(|| {
                let batch = checked_gauc_batch(labels, scores, |s| match s {
                    Given::F32(s) => s.iter().all(|x| x.is_finite()).then_some(Scores::F32(s)),
                    Given::F64(s) => s.iter().all(|x| x.is_finite()).then_some(Scores::F64(s)),
                    _ => None,
                });
                match batch? {
                    Err(refusal) => Some(Err(refusal)),
                    Ok((labels01, finite)) => {
                        let ids = ids.ids()?;
                        Some(Ok(rows.add_ids(&ids, &labels01, finite).is_ok()))
                    }
                }
            })
        });
        match answer {
            Some(Ok(true)) => added(true),
            Some(Err(refusal)) => refusal_tuple(py, refusal),
            _ => added(false),
        }
    }

    /// Add another's rows after these (its ids coded in this table).
    fn absorb(&mut self, other: PyRef<'_, OpenGroups>) -> PyResult<()> {
        self.rows
            .absorb(&other.rows)
            .map_err(|_| refused(format!("more than {} distinct ids", crate::encode::MAX_IDS)))
    }

    /// A copy.
    fn copy(&self) -> OpenGroups {
        self.clone()
    }

    /// Bytes held (the capacity allocated).
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.rows.memory_bytes()
    }

    /// Rows held.
    #[getter]
    fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// Groups held.
    #[getter]
    fn n_groups(&self) -> usize {
        self.rows.ids.len()
    }

    /// The group ids in code order: an int64 array, or (UCS-4 bytes, width) of a
    /// str array.
    fn ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ids_out(py, &self.rows.ids)
    }

    /// The per-row `weighting`s given: each group's weight in code order (NaN where
    /// none given; None: no update gave one), whether some update gave none, and
    /// the codes of the groups given two different weights.
    #[allow(clippy::type_complexity)]
    fn group_weights<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Option<Bound<'py, PyArray1<f64>>>,
        bool,
        Bound<'py, PyArray1<u32>>,
    ) {
        (
            self.rows.group_weights().map(|w| w.into_pyarray(py)),
            self.rows.custom.without,
            self.rows.differ().into_pyarray(py),
        )
    }

    /// Each row's group code, label, score and weight (None: no update gave
    /// weights), as held (float32, or float64 once one is not a float32).
    #[allow(clippy::type_complexity)]
    fn rows<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<i8>>,
        Bound<'py, PyAny>,
        Option<Bound<'py, PyAny>>,
    ) {
        (
            self.rows.group.to_vec().into_pyarray(py),
            self.rows.label.to_vec().into_pyarray(py),
            values_out(py, &self.rows.scores),
            self.rows.weights.as_ref().map(|w| values_out(py, w)),
        )
    }

    /// The rows grouped by group code: each position's code (int32), label, score
    /// (float32 while every one held is a float32, else float64) and weight (float64;
    /// None: no update gave weights).
    #[allow(clippy::type_complexity)]
    fn grouped<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<i32>>,
        Bound<'py, PyArray1<i8>>,
        Bound<'py, PyAny>,
        Option<Bound<'py, PyArray1<f64>>>,
    ) {
        let g = py.detach(|| self.rows.grouped());
        let scores = match g.scores {
            GroupedScores::F32(s) => s.into_pyarray(py).into_any(),
            GroupedScores::F64(s) => s.into_pyarray(py).into_any(),
        };
        (
            g.codes.into_pyarray(py),
            g.labels.into_pyarray(py),
            scores,
            g.weights.map(|w| w.into_pyarray(py)),
        )
    }

    /// Rows from the arrays of `ids` (distinct) and `rows` (each row's group code,
    /// label, score and weight), and the groups' weights
    /// (None, or one per id), each checked: a `ValueError` naming the field.
    #[staticmethod]
    #[pyo3(signature = (ids, codes, labels, scores, weights = None, group_weight = None))]
    fn from_rows(
        ids: &Bound<'_, PyAny>,
        codes: PyReadonlyArray1<'_, u32>,
        labels: PyReadonlyArray1<'_, i8>,
        scores: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        group_weight: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<OpenGroups> {
        let where_ = "OpenGroups";
        let mut rows = Rows::default();
        given(ids, "OpenGroups.ids")?.distinct_codes(&mut rows.ids, "OpenGroups.ids")?;
        let (codes, labels) = (slice(&codes, "codes")?, slice(&labels, "labels")?);
        let given_scores = given_scores(scores, where_)?;
        let scores = scores_of(&given_scores)?;
        let weights = weights
            .map(|w| FloatArray::of(w).ok_or_else(|| weights_kind(where_)))
            .transpose()?;
        let weight_values = weights.as_ref().map(scores_of).transpose()?;
        let mut lengths = vec![
            ("codes", codes.len()),
            ("labels", labels.len()),
            ("scores", scores.len()),
        ];
        lengths.extend(weight_values.map(|w| ("weights", w.len())));
        same_length(where_, &lengths)?;
        let n_ids = rows.ids.len();
        if codes.iter().any(|&g| g as usize >= n_ids) {
            return Err(refused(format!(
                "{where_}.codes must lie in [0, {n_ids}), the ids held"
            )));
        }
        check_rows(where_, labels, scores)?;
        rows.group.extend_from_slice(codes);
        rows.label.extend_from_slice(labels);
        rows.scores = held(scores);
        if let Some(w) = weight_values {
            let w = held(w);
            let ok = match &w {
                Values::Single(v) => v.iter().all(|x| x.is_finite() && x >= 0.0),
                Values::Double(v) => v.iter().all(|x| x.is_finite() && x >= 0.0),
            };
            if !ok {
                return Err(refused(format!("{where_}.weights must be finite and >= 0")));
            }
            rows.weights = Some(w);
        }
        let n = rows.len();
        match group_weight {
            Some(gw) => {
                let gw = slice(&gw, "group_weight")?;
                same_length(where_, &[("ids", n_ids), ("group_weight", gw.len())])?;
                check_weights(where_, "group_weight", gw)?;
                rows.custom.given = true;
                rows.custom.weight = gw.to_vec();
            }
            None => rows.custom.without = n > 0,
        }
        Ok(OpenGroups { rows })
    }
}

fn weights_kind(where_: &str) -> PyErr {
    refused(format!(
        "{where_}.weights must be None or a float32 or float64 array"
    ))
}

/// Values as given (float32: as held; float64: widened).
fn held(values: Scores<'_>) -> Values {
    match values {
        Scores::F32(s) => {
            let mut v = Chunked::default();
            v.extend_from_slice(s);
            Values::Single(v)
        }
        Scores::F64(s) => {
            let mut v = Widened::default();
            v.wide.extend_from_slice(s);
            Values::Double(v)
        }
    }
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<OpenGroups>()
}
