//! The exact AUC's streaming state as a Python object (`AucRuns`): batches in, the
//! counts per distinct score and the AUC out.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBool;

use super::checked::{auc_refusal, refused, Column};
use super::{same_length, slice, Floats};
use crate::runs::{
    auc_of, Count, Entry, PerLabel, Rounded, Rounding, RowRuns, Run, WeightRuns, BUFFER_ROWS,
};
use crate::sort::{key_score, order_key};

#[derive(Clone)]
enum Held {
    Rows(Box<RowRuns>),
    Weights(Box<WeightRuns>),
}

/// The rows buffered before a sort: `RECEVAL_AUC_BUFFER_ROWS` sets them (tests use
/// a few, to cross the buffer's end).
fn buffer_rows() -> usize {
    std::env::var("RECEVAL_AUC_BUFFER_ROWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(BUFFER_ROWS)
}

/// Rows (or weights) per distinct score and label, held as sorted runs merged in
/// linear time; exact counts.
#[pyclass(name = "AucRuns", module = "receval._core")]
#[derive(Clone)]
pub struct AucRuns {
    held: Held,
}

type Table<'py> = (Floats<'py>, Floats<'py>, Floats<'py>, i64);

/// One label's [`Rounding`] as Python holds it: the lowest set bit of any of its
/// weights (None: no weight held) and the units by which its counts moved.
type LabelRounding = (Option<i32>, u128);

/// [`exact_arrays`](AucRuns::exact_arrays)' answer: scores, the two labels' counts,
/// their quanta and their roundings.
type ExactArrays<'py> = (
    Floats<'py>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    (i32, i32),
    (LabelRounding, LabelRounding),
);

/// [`LabelRounding`] of a label's [`Rounding`].
fn rounding_out(r: Rounding) -> LabelRounding {
    ((r.low != i32::MAX).then_some(r.low), r.lost)
}

/// The [`Rounding`] of a [`LabelRounding`].
fn rounding_in((low, lost): LabelRounding) -> Rounding {
    Rounding {
        low: low.unwrap_or(i32::MAX),
        lost,
    }
}

/// The table of a run whose negatives' unit is `2**shift` positive units.
fn run_table<'py, C: Count>(py: Python<'py>, run: &Run<C>, shift: i64) -> Table<'py> {
    let scores: Vec<f64> = run.entries.iter().map(|e| key_score(e.key)).collect();
    let pos: Vec<f64> = run.entries.iter().map(|e| e.pos.as_f64()).collect();
    let neg: Vec<f64> = run.entries.iter().map(|e| e.neg.as_f64()).collect();
    (
        scores.into_pyarray(py),
        pos.into_pyarray(py),
        neg.into_pyarray(py),
        shift,
    )
}

fn halves(counts: impl ExactSizeIterator<Item = u128>) -> Array2<u64> {
    let mut out = Array2::<u64>::zeros((counts.len(), 2));
    for (i, c) in counts.enumerate() {
        out[[i, 0]] = c as u64;
        out[[i, 1]] = (c >> 64) as u64;
    }
    out
}

fn keys_of(scores: &[f64]) -> PyResult<Vec<u64>> {
    let keys: Vec<u64> = scores.iter().map(|&s| order_key(s)).collect();
    if scores.iter().any(|s| !s.is_finite()) {
        return Err(PyValueError::new_err("scores must be finite"));
    }
    if keys.windows(2).any(|w| w[0] >= w[1]) {
        return Err(PyValueError::new_err("scores must be sorted and distinct"));
    }
    Ok(keys)
}

fn entries<C: Count>(
    keys: Vec<u64>,
    pos: impl Iterator<Item = C>,
    neg: impl Iterator<Item = C>,
) -> Vec<Entry<C>> {
    keys.into_iter()
        .zip(pos.zip(neg))
        .map(|(key, (pos, neg))| Entry { key, pos, neg })
        .collect()
}

#[pymethods]
impl AucRuns {
    /// An empty state of rows (`weighted=False`) or of weights.
    #[new]
    fn new(weighted: bool) -> Self {
        let held = if weighted {
            Held::Weights(Box::default())
        } else {
            Held::Rows(Box::new(RowRuns::with_buffer(buffer_rows())))
        };
        AucRuns { held }
    }

    /// Whether the state holds weights.
    #[getter]
    fn weighted(&self) -> bool {
        matches!(self.held, Held::Weights(_))
    }

    /// `(positives, negatives)`: for a label whose weights' lowest bits were rounded
    /// off (its weights spanning more than 2**126 in one state), `(span, share)`
    /// ([`crate::runs::Rounded`]), else None.
    #[getter]
    fn rounded(&self) -> LabelsRounded {
        match &self.held {
            Held::Rows(_) => (None, None),
            Held::Weights(w) => labels_rounded(w.rounded()),
        }
    }

    /// Keys held over all runs (a score in two runs, or with rows of both labels in a
    /// state of rows, counts twice), plus the rows not yet sorted into a run.
    #[getter]
    fn entries(&self) -> usize {
        match &self.held {
            Held::Rows(r) => r.entries(),
            Held::Weights(w) => w.runs.entries(),
        }
    }

    /// Bytes of the runs held and of the memory kept for the next merge.
    #[getter]
    fn nbytes(&self) -> usize {
        match &self.held {
            Held::Rows(r) => r.bytes(),
            Held::Weights(w) => w.runs.bytes(),
        }
    }

    /// Add validated rows: 0/1 labels, finite scores, and (a weighted state only)
    /// finite weights >= 0; rows of weight 0 are left out.
    #[pyo3(signature = (labels, scores, weights=None))]
    fn add(
        &mut self,
        py: Python<'_>,
        labels: PyReadonlyArray1<'_, i8>,
        scores: PyReadonlyArray1<'_, f64>,
        weights: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<()> {
        let (l, s) = (slice(&labels, "labels")?, slice(&scores, "scores")?);
        same_length("AucRuns.add", &[("labels", l.len()), ("scores", s.len())])?;
        match (&mut self.held, weights) {
            (Held::Rows(runs), None) => py.detach(|| runs.add(l, s)),
            (Held::Weights(state), Some(w)) => {
                let w = slice(&w, "weights")?;
                same_length("AucRuns.add", &[("labels", l.len()), ("weights", w.len())])?;
                py.detach(|| state.add(l, s, w));
            }
            (Held::Weights(state), None) => {
                let ones = vec![1.0; l.len()];
                py.detach(|| state.add(l, s, &ones));
            }
            (Held::Rows(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "AucRuns.add: weights given to a state of rows",
                ))
            }
        }
        Ok(())
    }

    /// Add a batch of 0/1 labels (any dtype) and finite float64 or float32 scores of a
    /// state of rows, checked here: True; a refusal of the labels (argument 0) or the
    /// scores (1) as the exact AUC's checks word it ([`auc_refusal`]); or False (nothing
    /// added) for other input.
    fn add_checked<'py>(
        &mut self,
        py: Python<'py>,
        y_true: &Bound<'py, PyAny>,
        y_score: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let added = |added: bool| Ok(PyBool::new(py, added).to_owned().into_any());
        let Held::Rows(runs) = &mut self.held else {
            return added(false);
        };
        let (Some(labels), Some(scores)) = (Column::of(y_true), Column::of(y_score)) else {
            return added(false);
        };
        let (Some(labels), Some(scores)) = (labels.values(), scores.values()) else {
            return added(false);
        };
        if labels.len() != scores.len() {
            return added(false);
        }
        let answer = py.detach(|| {
            let (Some(l), Some(s)) = (labels.labels01(), scores.finite_scores()) else {
                return auc_refusal(labels, scores).map(Err);
            };
            runs.add(&l, &s);
            Some(Ok(()))
        });
        match answer {
            Some(Ok(())) => added(true),
            Some(Err(refusal)) => refused(py, refusal),
            None => added(false),
        }
    }

    /// Add another state's counts (in place).
    fn absorb(&mut self, py: Python<'_>, other: &AucRuns) -> PyResult<()> {
        match (&mut self.held, &other.held) {
            (Held::Rows(a), Held::Rows(b)) => py.detach(|| a.absorb(b)),
            (Held::Weights(a), Held::Weights(b)) => py.detach(|| a.absorb(b)),
            _ => {
                return Err(PyValueError::new_err(
                    "AucRuns.absorb: a state of rows and one of weights",
                ))
            }
        }
        Ok(())
    }

    /// Divide every weight held by `2**by` (exact, O(1): the unit changes), so that
    /// weights that keep growing (a decayed state) stay far from overflow.
    fn scale_down(&mut self, by: i32) -> PyResult<()> {
        match &mut self.held {
            Held::Weights(w) => {
                w.scale_down(by);
                Ok(())
            }
            Held::Rows(_) => Err(PyValueError::new_err(
                "AucRuns.scale_down: a state of rows has no weights",
            )),
        }
    }

    /// A copy (the runs are copied).
    fn copy(&self) -> AucRuns {
        self.clone()
    }

    /// Merge every run into one.
    fn compact(&mut self, py: Python<'_>) {
        match &mut self.held {
            Held::Rows(r) => py.detach(|| r.compact()),
            Held::Weights(w) => {
                py.detach(|| {
                    w.runs.compact();
                });
            }
        }
    }

    /// ROC AUC of the rows held (ties count one half); NaN without both labels.
    fn auc(&mut self, py: Python<'_>) -> f64 {
        py.detach(|| {
            let (two_u, p, n) = match &mut self.held {
                Held::Rows(r) => r.pair_sum(),
                Held::Weights(w) => w.runs.pair_sum(),
            };
            auc_of(two_u, p, n)
        })
    }

    /// `(scores, pos, neg, shift)`: the distinct scores, increasing, and the rows
    /// (weights, each label's in units of its own) of each label there, as floats; a
    /// negatives' unit is `2**shift` positives' units (0 for rows, or without both
    /// labels).
    fn table<'py>(&mut self, py: Python<'py>) -> Table<'py> {
        match &mut self.held {
            Held::Rows(r) => run_table(py, &r.run(), 0),
            Held::Weights(w) => {
                let shift = w.shift();
                run_table(py, w.runs.compact(), shift)
            }
        }
    }

    /// `(scores, pos, neg, (pos_quantum, neg_quantum), (pos_rounding, neg_rounding))`
    /// with exact counts: int64 rows (quantum 0), or weight units of `2**pos_quantum`
    /// and `2**neg_quantum` as `(n, 2)` uint64 arrays of the low and high 64 bits; each
    /// label's rounding `(low, lost)`: the lowest set bit of any of its weights (None
    /// for none) and the units its counts moved where they were rounded (0: none).
    fn exact_arrays<'py>(&mut self, py: Python<'py>) -> ExactArrays<'py> {
        match &mut self.held {
            Held::Rows(r) => {
                let run = r.run();
                let scores: Vec<f64> = run.entries.iter().map(|e| key_score(e.key)).collect();
                let pos: Vec<i64> = run.entries.iter().map(|e| e.pos as i64).collect();
                let neg: Vec<i64> = run.entries.iter().map(|e| e.neg as i64).collect();
                (
                    scores.into_pyarray(py),
                    pos.into_pyarray(py).into_any(),
                    neg.into_pyarray(py).into_any(),
                    (0, 0),
                    ((None, 0), (None, 0)),
                )
            }
            Held::Weights(w) => {
                let (quantum, rounding) = (w.quantum, w.rounding);
                let run = w.runs.compact();
                let scores: Vec<f64> = run.entries.iter().map(|e| key_score(e.key)).collect();
                (
                    scores.into_pyarray(py),
                    halves(run.entries.iter().map(|e| e.pos))
                        .into_pyarray(py)
                        .into_any(),
                    halves(run.entries.iter().map(|e| e.neg))
                        .into_pyarray(py)
                        .into_any(),
                    (quantum.pos, quantum.neg),
                    (rounding_out(rounding.pos), rounding_out(rounding.neg)),
                )
            }
        }
    }

    /// The state of rows held as `exact_arrays` gives them (a `ValueError` names what is
    /// wrong).
    #[staticmethod]
    fn from_rows(
        scores: PyReadonlyArray1<'_, f64>,
        pos: PyReadonlyArray1<'_, i64>,
        neg: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<AucRuns> {
        let s = slice(&scores, "scores")?;
        let (p, n) = (slice(&pos, "pos")?, slice(&neg, "neg")?);
        same_length(
            "AucRuns",
            &[("scores", s.len()), ("pos", p.len()), ("neg", n.len())],
        )?;
        if p.iter().chain(n.iter()).any(|&c| c < 0) {
            return Err(PyValueError::new_err("counts must be >= 0"));
        }
        let run = Run {
            entries: entries(
                keys_of(s)?,
                p.iter().map(|&c| c as u64),
                n.iter().map(|&c| c as u64),
            ),
        };
        Ok(AucRuns {
            held: Held::Rows(Box::new(RowRuns::of_run(&run, buffer_rows()))),
        })
    }

    /// The state of weights held as `exact_arrays` gives them (`rounding`: each
    /// label's `(low, lost)`, a lost unit only beside a lowest bit).
    #[staticmethod]
    fn from_weights(
        scores: PyReadonlyArray1<'_, f64>,
        pos: PyReadonlyArray2<'_, u64>,
        neg: PyReadonlyArray2<'_, u64>,
        quantum: (i32, i32),
        rounding: (LabelRounding, LabelRounding),
    ) -> PyResult<AucRuns> {
        if [rounding.0, rounding.1]
            .iter()
            .any(|&(low, lost)| low.is_none() && lost > 0)
        {
            return Err(PyValueError::new_err(
                "rounding must give a lowest bit where counts moved",
            ));
        }
        let s = slice(&scores, "scores")?;
        let wide = |a: &PyReadonlyArray2<'_, u64>| -> PyResult<Vec<u128>> {
            let a = a.as_array();
            if a.ncols() != 2 || a.nrows() != s.len() {
                return Err(PyValueError::new_err(format!(
                    "counts must have shape ({}, 2)",
                    s.len()
                )));
            }
            Ok(a.rows()
                .into_iter()
                .map(|r| r[0] as u128 | ((r[1] as u128) << 64))
                .collect())
        };
        let (p, n) = (wide(&pos)?, wide(&neg)?);
        // each label's units sum below 2**126
        let total = |counts: &[u128]| -> PyResult<u128> {
            counts.iter().try_fold(0u128, |total, &c| {
                total
                    .checked_add(c)
                    .filter(|t| *t < 1 << 126)
                    .ok_or_else(|| PyValueError::new_err("counts must sum below 2**126"))
            })
        };
        let mut state = WeightRuns {
            quantum: PerLabel {
                pos: quantum.0,
                neg: quantum.1,
            },
            total: PerLabel {
                pos: total(&p)?,
                neg: total(&n)?,
            },
            rounding: PerLabel {
                pos: rounding_in(rounding.0),
                neg: rounding_in(rounding.1),
            },
            ..WeightRuns::default()
        };
        state.runs.push(Run {
            entries: entries(keys_of(s)?, p.into_iter(), n.into_iter()),
        });
        Ok(AucRuns {
            held: Held::Weights(Box::new(state)),
        })
    }
}

/// `(span, share)` of each label whose weights were rounded, None for the others:
/// how the core tells the Python layer, for a state, a score range and a group alike.
pub(crate) type LabelsRounded = (Option<(i32, f64)>, Option<(i32, f64)>);

/// [`LabelsRounded`] of the core's per-label rounding.
pub(crate) fn labels_rounded(r: PerLabel<Option<Rounded>>) -> LabelsRounded {
    let pair = |r: Option<Rounded>| r.map(|r| (r.span, r.share));
    (pair(r.pos), pair(r.neg))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AucRuns>()
}
