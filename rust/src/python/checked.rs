//! One-pass metrics of small calls: plain NumPy arrays of any dtype the Python layer
//! takes, checked and computed in one call. Each answers None for input it does not
//! take and for a result the Python layer must report (a warning): the caller then
//! takes the full path. A value the Python layer refuses is answered by a refusal
//! tuple `(kind, argument, row, count, values)` ([`checks::Refusal`]: which check,
//! the position of the argument among the call's data arguments, the first bad row,
//! how many, the values to show), which the Python layer turns into its message.

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;

use crate::checks::{self, GroupId, Kind, Refusal};
use crate::{auc, gauc, loss, sums};

/// A 1-D array of one of the dtypes of labels, scores and ids, borrowed.
pub(crate) enum Column<'py> {
    Bool(PyReadonlyArray1<'py, bool>),
    I8(PyReadonlyArray1<'py, i8>),
    I16(PyReadonlyArray1<'py, i16>),
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
    U8(PyReadonlyArray1<'py, u8>),
    U16(PyReadonlyArray1<'py, u16>),
    U32(PyReadonlyArray1<'py, u32>),
    U64(PyReadonlyArray1<'py, u64>),
    F32(PyReadonlyArray1<'py, f32>),
    F64(PyReadonlyArray1<'py, f64>),
}

/// The values of a C-contiguous `Column`.
#[derive(Clone, Copy)]
pub(crate) enum Values<'a> {
    Bool(&'a [bool]),
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

/// `Column` from a Python object and `Values` from a `Column`, for every dtype.
macro_rules! columns {
    ($($v:ident: $t:ty),*) => {
        impl<'py> Column<'py> {
            /// The array, or None for another object, shape or dtype (or an array
            /// borrowed for writing).
            pub(crate) fn of(obj: &Bound<'py, PyAny>) -> Option<Self> {
                $(
                    if let Ok(a) = obj.cast::<PyArray1<$t>>() {
                        return a.try_readonly().ok().map(Column::$v);
                    }
                )*
                None
            }

            /// Its values, or None when it is not C-contiguous.
            pub(crate) fn values(&self) -> Option<Values<'_>> {
                match self {
                    $(Column::$v(a) => a.as_slice().ok().map(Values::$v),)*
                }
            }
        }
    };
}
columns!(F64: f64, I64: i64, I8: i8, Bool: bool, I32: i32, F32: f32, U8: u8, I16: i16, U16: u16,
         U32: u32, U64: u64);

/// `$body` with `$s` the typed slice of `$values`.
macro_rules! with_values {
    ($values:expr, |$s:ident| $body:expr) => {
        match $values {
            Values::Bool($s) => $body,
            Values::I8($s) => $body,
            Values::I16($s) => $body,
            Values::I32($s) => $body,
            Values::I64($s) => $body,
            Values::U8($s) => $body,
            Values::U16($s) => $body,
            Values::U32($s) => $body,
            Values::U64($s) => $body,
            Values::F32($s) => $body,
            Values::F64($s) => $body,
        }
    };
}

impl Values<'_> {
    pub(crate) fn len(&self) -> usize {
        with_values!(self, |s| s.len())
    }

    pub(crate) fn labels01(&self) -> Option<Vec<i8>> {
        with_values!(self, |s| checks::labels01(s))
    }

    pub(crate) fn finite_scores(&self) -> Option<std::borrow::Cow<'_, [f64]>> {
        match self {
            Values::F64(s) => checks::finite(s),
            Values::F32(s) => checks::finite(s),
            _ => None,
        }
    }

    pub(crate) fn ids(&self) -> Option<std::borrow::Cow<'_, [i64]>> {
        with_values!(self, |s| GroupId::ids(s))
    }

    /// Why [`Values::labels01`] refuses these labels, the argument at `argument`.
    pub(crate) fn labels_refusal(&self, argument: usize) -> Option<Refusal> {
        with_values!(self, |s| checks::labels_refusal(s, argument))
    }

    /// Why [`Values::finite_scores`] refuses these float scores; None for another dtype.
    pub(crate) fn scores_refusal(&self, argument: usize) -> Option<Refusal> {
        match self {
            Values::F64(s) => checks::finite_refusal(s, argument),
            Values::F32(s) => checks::finite_refusal(s, argument),
            _ => None,
        }
    }

    /// Why these float probabilities are refused; None for another dtype.
    fn probabilities_refusal(&self, argument: usize) -> Option<Refusal> {
        match self {
            Values::F64(s) => checks::probabilities_refusal(s, argument),
            Values::F32(s) => checks::probabilities_refusal(s, argument),
            _ => None,
        }
    }
}

/// Why a batch of the log-loss family (0/1 labels, float probabilities, float64
/// weights or none) is refused, in the order of the Python layer's checks (the
/// labels, the probabilities, the weights); None when no check refuses it.
fn loss_refusal(labels: Values<'_>, proba: Values<'_>, weights: &[f64]) -> Option<Refusal> {
    if !matches!(proba, Values::F64(_) | Values::F32(_)) {
        return None; // input the full path converts first
    }
    labels
        .labels_refusal(0)
        .or_else(|| proba.probabilities_refusal(1))
        .or_else(|| checks::weights_refusal(weights, 2))
}

/// A refusal as the tuple `(kind, argument, row, count, values)`.
pub(crate) fn refused<'py>(py: Python<'py>, r: Refusal) -> PyResult<Bound<'py, PyAny>> {
    let values = pyo3::types::PyList::new(py, r.values)?;
    Ok((r.kind.name(), r.argument, r.row, r.count, values)
        .into_pyobject(py)?
        .into_any())
}

/// A checked call's answer: its value, or why the Python layer refuses the input.
pub(crate) enum Answer<T> {
    Value(T),
    Refused(Refusal),
}

impl<T> Answer<T> {
    /// The answer to Python: the value, or the refusal tuple.
    fn into_py<'py>(
        self,
        py: Python<'py>,
        value: impl FnOnce(T) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Answer::Value(v) => value(v),
            Answer::Refused(r) => refused(py, r),
        }
    }
}

/// The binary log loss mean of 0/1 labels (any dtype) and float64 or float32
/// probabilities in [0, 1] clipped to `[eps, 1 - eps]`, a refusal of the labels
/// (argument 0) or the probabilities (1), or None. `sample_weight`: float64
/// weights, checked by the caller (finite, non-negative, the largest scaled into
/// `[2^-64, 2^64]`); None where their sum is zero (the caller warns) or the loss
/// sum is not a normal float (the caller scales it).
#[pyfunction]
#[pyo3(signature = (y_true, y_pred, eps, sample_weight = None))]
fn log_loss_checked<'py>(
    py: Python<'py>,
    y_true: &Bound<'py, PyAny>,
    y_pred: &Bound<'py, PyAny>,
    eps: f64,
    sample_weight: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    log_loss_answer(py, y_true, y_pred, eps, sample_weight)
        .map(|a| a.into_py(py, |x| Ok(x.into_pyobject(py)?.into_any())))
        .transpose()
}

/// [`log_loss_checked`]'s answer.
fn log_loss_answer(
    py: Python<'_>,
    y_true: &Bound<'_, PyAny>,
    y_pred: &Bound<'_, PyAny>,
    eps: f64,
    sample_weight: Option<&Bound<'_, PyAny>>,
) -> Option<Answer<f64>> {
    let (labels, proba) = (Column::of(y_true)?, Column::of(y_pred)?);
    let weights = sample_weight.map(Column::of);
    let weights = match &weights {
        None => None,
        Some(w) => Some(w.as_ref()?.values()?),
    };
    let (labels, proba) = (labels.values()?, proba.values()?);
    let w: &[f64] = match weights {
        None => &[],
        Some(Values::F64(w)) => w,
        Some(_) => return None,
    };
    let n = labels.len();
    if n == 0 || proba.len() != n || (weights.is_some() && w.len() != n) {
        return None;
    }
    let chunks = sums::chunks_for(n);
    let answer = py.detach(|| {
        let Some(loss) = loss_sum(labels, proba, w, eps, chunks) else {
            // the weights are the caller's: not refused here
            return loss_refusal(labels, proba, &[]).map(Answer::Refused);
        };
        let total = match weights {
            None => n as f64,
            Some(_) => sums::rounded(&sums::exact_sum(w, chunks, sums::CARRY_EVERY)),
        };
        Some(Answer::Value((sums::rounded(&loss), total)))
    })?;
    let (loss, total) = match answer {
        Answer::Value(sums) => sums,
        Answer::Refused(r) => return Some(Answer::Refused(r)),
    };
    // the values the caller divides as they are (its scaled_value)
    let plain = |x: f64| x.is_finite() && x.abs() >= 2f64.powi(-1000);
    if !(plain(total) && (loss == 0.0 || plain(loss))) {
        return None;
    }
    Some(Answer::Value(loss / total))
}

/// The log loss accumulator of 0/1 labels and float probabilities (and weights
/// when not empty), or None: a bad value, or probabilities of another dtype.
fn loss_sum(
    labels: Values<'_>,
    proba: Values<'_>,
    w: &[f64],
    eps: f64,
    chunks: usize,
) -> Option<sums::Acc> {
    match proba {
        Values::F64(p) => with_values!(labels, |l| loss::binary_log_loss_checked(
            l, p, w, eps, chunks
        )),
        Values::F32(p) => with_values!(labels, |l| loss::binary_log_loss_checked(
            l, p, w, eps, chunks
        )),
        _ => None,
    }
}

/// Why the exact AUC's checks refuse labels and scores that [`Values::labels01`] or
/// [`Values::finite_scores`] refuse, where those checks are the core's: labels
/// holding a NaN (argument 0), then a NaN or an infinity among float scores (1). None
/// for labels other than 0 and 1 without a NaN, which the Python layer reads as
/// classes (-1/1) or refuses in its words of classes.
pub(crate) fn auc_refusal(labels: Values<'_>, scores: Values<'_>) -> Option<Refusal> {
    match labels.labels_refusal(0) {
        Some(r) if r.kind == Kind::Missing => Some(r),
        Some(_) => None,
        None => scores.scores_refusal(1),
    }
}

/// The exact ROC AUC of 0/1 labels (any dtype) and finite float scores; a refusal of
/// the labels (argument 0) or the scores (1) ([`auc_refusal`]); or None: other input,
/// and a single class (the AUC is undefined and the caller warns).
#[pyfunction]
fn roc_auc_checked<'py>(
    py: Python<'py>,
    y_true: &Bound<'py, PyAny>,
    y_score: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    roc_auc_answer(py, y_true, y_score)
        .map(|a| a.into_py(py, |x| Ok(x.into_pyobject(py)?.into_any())))
        .transpose()
}

/// [`roc_auc_checked`]'s answer.
fn roc_auc_answer(
    py: Python<'_>,
    y_true: &Bound<'_, PyAny>,
    y_score: &Bound<'_, PyAny>,
) -> Option<Answer<f64>> {
    let (labels, scores) = (Column::of(y_true)?, Column::of(y_score)?);
    let (labels, scores) = (labels.values()?, scores.values()?);
    if labels.len() == 0 || scores.len() != labels.len() {
        return None;
    }
    py.detach(|| {
        let (Some(l), Some(s)) = (labels.labels01(), scores.finite_scores()) else {
            return auc_refusal(labels, scores).map(Answer::Refused);
        };
        let value = auc::roc_auc(&l, &s);
        (!value.is_nan()).then_some(Answer::Value(value))
    })
}

/// The GAUC of 0/1 labels (any dtype), finite float scores, integer (or whole
/// float) group ids and optional float64 sample weights that the full path keeps
/// as they are, weighted by `weighting` (`"impressions"`, `"clicks"` or
/// `"uniform"`); for group ids it takes, a refusal of the labels (argument 0), the
/// scores (1) or the weights (3), in the order of the Python layer's checks; or None
/// (other input, weights the full path scales, and no group with both classes: the
/// caller warns).
#[pyfunction]
#[pyo3(signature = (y_true, y_score, groups, sample_weight, weighting))]
fn gauc_checked<'py>(
    py: Python<'py>,
    y_true: &Bound<'py, PyAny>,
    y_score: &Bound<'py, PyAny>,
    groups: &Bound<'py, PyAny>,
    sample_weight: Option<&Bound<'py, PyAny>>,
    weighting: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    gauc_answer(py, y_true, y_score, groups, sample_weight, weighting)
        .map(|a| a.into_py(py, |x| Ok(x.into_pyobject(py)?.into_any())))
        .transpose()
}

/// [`gauc_checked`]'s answer.
fn gauc_answer(
    py: Python<'_>,
    y_true: &Bound<'_, PyAny>,
    y_score: &Bound<'_, PyAny>,
    groups: &Bound<'_, PyAny>,
    sample_weight: Option<&Bound<'_, PyAny>>,
    weighting: &Bound<'_, PyAny>,
) -> Option<Answer<f64>> {
    let weighting = gauc::Weighting::parse(weighting.extract::<&str>().ok()?)?;
    let (labels, scores, ids) = (
        Column::of(y_true)?,
        Column::of(y_score)?,
        Column::of(groups)?,
    );
    let weights = match sample_weight {
        None => None,
        Some(w) => Some(Column::of(w)?),
    };
    let (labels, scores, ids) = (labels.values()?, scores.values()?, ids.values()?);
    let weights = match &weights {
        None => None,
        Some(w) => match w.values()? {
            Values::F64(w) => Some(w),
            _ => return None,
        },
    };
    let n = labels.len();
    if n == 0 || scores.len() != n || ids.len() != n || weights.is_some_and(|w| w.len() != n) {
        return None;
    }
    py.detach(|| {
        // the Python layer reads the group ids before the rows' values
        let ids = ids.ids()?;
        let plain = weights.is_none_or(checks::plain_weights);
        let (Some(l), Some(s), true) = (labels.labels01(), scores.finite_scores(), plain) else {
            let refusal = labels
                .labels_refusal(0)
                .or_else(|| scores.scores_refusal(1))
                .or_else(|| weights.and_then(|w| checks::weights_refusal(w, 3)));
            return refusal.map(Answer::Refused);
        };
        let (codes, distinct) = gauc::codes_of_ids(&ids)?;
        // None where weights were rounded: the Python layer computes and warns
        let value = gauc::gauc(&codes, distinct.len(), &l, &s, weights, weighting)?;
        (!value.is_nan()).then_some(Answer::Value(value))
    })
}

/// One batch of an accumulator's GAUC rows, checked as the Python layer checks them:
/// the rows' group codes (int32, in order of first appearance), the distinct ids in
/// the order of their codes (int64), the labels (int8) and the scores (float32 when
/// given so, else float64), for 0/1 labels of any dtype, finite float32 or float64
/// scores and integer group ids of one length; a refusal of the labels (argument 0)
/// or the scores (1); or None (other input).
#[pyfunction]
fn gauc_rows_checked<'py>(
    py: Python<'py>,
    y_true: &Bound<'py, PyAny>,
    y_score: &Bound<'py, PyAny>,
    groups: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    use numpy::IntoPyArray;
    let Some(answer) = gauc_rows(py, y_true, y_score, groups) else {
        return Ok(None);
    };
    answer
        .into_py(py, |(codes, distinct, labels, scores)| {
            let scores = match scores {
                Held::F32(s) => s.into_pyarray(py).into_any(),
                Held::F64(s) => s.into_pyarray(py).into_any(),
            };
            let arrays = (
                codes.into_pyarray(py),
                distinct.into_pyarray(py),
                labels.into_pyarray(py),
                scores,
            );
            Ok(arrays.into_pyobject(py)?.into_any())
        })
        .map(Some)
}

/// [`gauc_rows_checked`]'s answer.
fn gauc_rows(
    py: Python<'_>,
    y_true: &Bound<'_, PyAny>,
    y_score: &Bound<'_, PyAny>,
    groups: &Bound<'_, PyAny>,
) -> Option<Answer<GaucRows>> {
    with_gauc_batch(y_true, y_score, groups, |labels, scores, ids| {
        py.detach(|| {
            // float32 scores are held as they are: 4 bytes a row, their values exact
            let held = |s: Values<'_>| match s {
                Values::F32(s) => s
                    .iter()
                    .all(|x| x.is_finite())
                    .then(|| Held::F32(s.to_vec())),
                _ => Some(Held::F64(s.finite_scores()?.into_owned())),
            };
            match checked_gauc_batch(labels, scores, held)? {
                Err(refusal) => Some(Answer::Refused(refusal)),
                Ok((labels, scores)) => {
                    let (codes, distinct) = gauc::codes_of_ids(&ids.ids()?)?;
                    Some(Answer::Value((codes, distinct, labels, scores)))
                }
            }
        })
    })
}

/// `work` on the labels, scores and group ids of a GAUC batch given as plain NumPy
/// arrays of one length (not empty, C-contiguous, ids not float or bool: those keep
/// their dtype on the full path); None for other input.
pub(crate) fn with_gauc_batch<R>(
    y_true: &Bound<'_, PyAny>,
    y_score: &Bound<'_, PyAny>,
    groups: &Bound<'_, PyAny>,
    work: impl FnOnce(Values<'_>, Values<'_>, Values<'_>) -> Option<R>,
) -> Option<R> {
    let (labels, scores, ids) = (
        Column::of(y_true)?,
        Column::of(y_score)?,
        Column::of(groups)?,
    );
    if matches!(ids, Column::F32(_) | Column::F64(_) | Column::Bool(_)) {
        return None;
    }
    let (labels, scores, ids) = (labels.values()?, scores.values()?, ids.values()?);
    let n = labels.len();
    if n == 0 || scores.len() != n || ids.len() != n {
        return None;
    }
    work(labels, scores, ids)
}

/// A GAUC batch's 0/1 labels and its scores as `hold` takes them (None: not taken,
/// a score not finite); a refusal of the labels (argument 0) or the scores (1) as
/// the full path's checks word it; None for other values (the full path reads them).
pub(crate) fn checked_gauc_batch<'a, T>(
    labels: Values<'a>,
    scores: Values<'a>,
    hold: impl FnOnce(Values<'a>) -> Option<T>,
) -> Option<Result<(Vec<i8>, T), Refusal>> {
    let checked = || Some((labels.labels01()?, hold(scores)?));
    match checked() {
        Some(batch) => Some(Ok(batch)),
        None => labels
            .labels_refusal(0)
            .or_else(|| scores.scores_refusal(1))
            .map(Err),
    }
}

/// Scores of [`gauc_rows_checked`], in the float width given.
enum Held {
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// The codes, distinct ids, labels and scores of [`gauc_rows_checked`].
type GaucRows = (Vec<i32>, Vec<i64>, Vec<i8>, Held);

/// The exact sums of one batch of the log-loss family (`Totals`): a `(4, SIZE)`
/// int64 array of the accumulators of the weights (the rows' count without
/// `sample_weight`), the weighted losses of probabilities clipped to `[eps, 1 - eps]`
/// (zero unless `loss`), the weighted probabilities and the weighted clicks (zero
/// unless `clicks`), for 0/1 labels of any dtype, float64 or float32 probabilities
/// in [0, 1] and float64 weights (finite, >= 0, the largest in `[2^-64, 2^64]`), each
/// checked in the pass that sums it; a refusal of the labels (argument 0), the
/// probabilities (1) or the weights (2); or None (other input, or weights the Python
/// layer must scale). With `base` (the four accumulators of the rows before, in that
/// order), each row is `base`'s plus the batch's: an accumulator's update in one call.
#[pyfunction]
#[pyo3(signature = (y_true, y_prob, eps, loss, clicks, sample_weight = None, base = None))]
fn totals_checked<'py>(
    y_true: &Bound<'py, PyAny>,
    y_prob: &Bound<'py, PyAny>,
    eps: f64,
    loss: bool,
    clicks: bool,
    sample_weight: Option<&Bound<'py, PyAny>>,
    base: Option<[PyReadonlyArray1<'py, i64>; 4]>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    use numpy::IntoPyArray;
    let py = y_true.py();
    let Some(answer) = totals(y_true, y_prob, eps, loss, clicks, sample_weight, base) else {
        return Ok(None);
    };
    answer
        .into_py(py, |out| Ok(out.into_pyarray(py).into_any()))
        .map(Some)
}

/// [`totals_checked`]'s answer.
fn totals<'py>(
    y_true: &Bound<'py, PyAny>,
    y_prob: &Bound<'py, PyAny>,
    eps: f64,
    loss: bool,
    clicks: bool,
    sample_weight: Option<&Bound<'py, PyAny>>,
    base: Option<[PyReadonlyArray1<'py, i64>; 4]>,
) -> Option<Answer<numpy::ndarray::Array2<i64>>> {
    let py = y_true.py();
    let base = match &base {
        None => None,
        Some(rows) => {
            let mut out = [[0i64; sums::SIZE]; 4];
            for (row, given) in out.iter_mut().zip(rows) {
                row.copy_from_slice(given.as_slice().ok().filter(|x| x.len() == sums::SIZE)?);
            }
            Some(out)
        }
    };
    let (labels, proba) = (Column::of(y_true)?, Column::of(y_prob)?);
    let weights = match sample_weight {
        None => None,
        Some(w) => Some(Column::of(w)?),
    };
    let (labels, proba) = (labels.values()?, proba.values()?);
    let w: &[f64] = match weights.as_ref().map(|w| w.values()) {
        None => &[],
        Some(Some(Values::F64(w))) => w,
        Some(_) => return None,
    };
    let n = labels.len();
    let unweighted = weights.is_none();
    if n == 0 || proba.len() != n || (!unweighted && w.len() != n) {
        return None;
    }
    let chunks = sums::chunks_for(n);
    py.detach(|| {
        // the loss pass checks the labels and probabilities
        let loss_acc = match (unweighted || checks::plain_weights(w))
            .then(|| loss_sum(labels, proba, w, eps, chunks))
            .flatten()
        {
            Some(acc) => acc,
            None => return loss_refusal(labels, proba, w).map(Answer::Refused),
        };
        let mut out = numpy::ndarray::Array2::<i64>::zeros((4, sums::SIZE));
        if let Some(base) = &base {
            for (row, acc) in base.iter().enumerate() {
                out.row_mut(row)
                    .assign(&numpy::ndarray::ArrayView1::from(&acc[..]));
            }
        }
        let mut put = |row: usize, acc: &sums::Acc| {
            let mut sum = [0i64; sums::SIZE];
            for (s, (&a, &b)) in sum.iter_mut().zip(out.row(row).iter().zip(acc)) {
                *s = a + b;
            }
            sums::normalize(&mut sum);
            out.row_mut(row)
                .assign(&numpy::ndarray::ArrayView1::from(&sum[..]));
        };
        if unweighted {
            put(0, &sums::exact_sum(&[n as f64], 1, sums::CARRY_EVERY));
        } else {
            put(0, &sums::exact_sum(w, chunks, sums::CARRY_EVERY));
        }
        if loss {
            put(1, &loss_acc);
        }
        if clicks {
            let p = proba.finite_scores()?;
            let labels = labels.labels01()?;
            if unweighted {
                put(2, &sums::exact_sum(&p, chunks, sums::CARRY_EVERY));
                let ones = labels.iter().filter(|&&l| l == 1).count();
                put(3, &sums::exact_sum(&[ones as f64], 1, sums::CARRY_EVERY));
            } else {
                put(2, &sums::exact_dot(&p, w, chunks, sums::CARRY_EVERY));
                let clicked: Vec<f64> = (labels.iter().zip(w))
                    .filter(|(&l, _)| l == 1)
                    .map(|(_, &w)| w)
                    .collect();
                let clicked_chunks = sums::chunks_for(clicked.len());
                put(
                    3,
                    &sums::exact_sum(&clicked, clicked_chunks, sums::CARRY_EVERY),
                );
            }
        }
        Some(Answer::Value(out))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(totals_checked, m)?)?;
    m.add_function(wrap_pyfunction!(log_loss_checked, m)?)?;
    m.add_function(wrap_pyfunction!(roc_auc_checked, m)?)?;
    m.add_function(wrap_pyfunction!(gauc_checked, m)?)?;
    m.add_function(wrap_pyfunction!(gauc_rows_checked, m)?)?;
    Ok(())
}
