//! Python bindings of the ranking kernels (`ranking`, `csr`): the signatures of
//! their reference kernels, every index checked before the work (a bad CSR or an
//! out-of-range code raises `ValueError`).

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::{same_length, slice};
use crate::csr::{self, Buf};
use crate::ranking::{self, Inputs, Judged, Ranked};
use crate::spec::{
    ApNorm, Discount, Empty, Gain, Ideal, Missing, PrecisionNorm, RecallNorm, RecallRounding, Spec,
    Ties, N_PARAMS,
};

type Floats<'py> = Bound<'py, PyArray1<f64>>;
type Ints<'py> = Bound<'py, PyArray1<i64>>;
type Codes<'py> = Bound<'py, PyArray1<i32>>;
type Table<'py> = Bound<'py, PyArray2<f64>>;

fn check(ok: bool, msg: impl FnOnce() -> String) -> PyResult<()> {
    if ok {
        Ok(())
    } else {
        Err(PyValueError::new_err(msg()))
    }
}

fn slice_mut<'a, T: numpy::Element>(
    a: &'a mut PyReadwriteArray1<'_, T>,
    name: &str,
) -> PyResult<&'a mut [T]> {
    a.as_slice_mut()
        .map_err(|_| PyValueError::new_err(format!("{name} must be a C-contiguous 1-D array")))
}

/// `offsets` must run from 0, never decrease, and end at `n` (when given).
fn check_offsets(func: &str, name: &str, offsets: &[i64], n: Option<usize>) -> PyResult<()> {
    let ok = !offsets.is_empty()
        && offsets[0] == 0
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && n.is_none_or(|n| offsets[offsets.len() - 1] as usize == n);
    check(ok, || match n {
        Some(n) => format!("{func}: {name} must run from 0 to {n}, never decreasing"),
        None => format!("{func}: {name} must start at 0 and never decrease"),
    })
}

/// Rows of a CSR: `offsets[-1]`.
fn csr_rows(offsets: &[i64]) -> usize {
    offsets.last().map_or(0, |&x| x as usize)
}

/// `rows` is empty (identity over `n` positions, which must be `<= len`) or holds
/// `n` indices in `[0, len)`.
fn check_rows(func: &str, rows: &[i64], n: usize, len: usize) -> PyResult<()> {
    if rows.is_empty() {
        return check(n <= len, || {
            format!("{func}: the offsets cover {n} rows but the arrays have {len}")
        });
    }
    check(rows.len() == n, || {
        format!(
            "{func}: rows has {} elements but offsets cover {n}",
            rows.len()
        )
    })?;
    check(rows.iter().all(|&r| r >= 0 && (r as usize) < len), || {
        format!("{func}: rows must lie in [0, {len})")
    })
}

fn check_codes(func: &str, name: &str, codes: &[i32], n: usize) -> PyResult<()> {
    // the range in one pass that vectorizes (no early exit)
    let (lo, hi) = codes
        .iter()
        .fold((i32::MAX, i32::MIN), |(lo, hi), &c| (lo.min(c), hi.max(c)));
    check(codes.is_empty() || (lo >= 0 && (hi as usize) < n), || {
        format!("{func}: {name} must lie in [0, {n})")
    })
}

fn longest(offsets: &[i64]) -> usize {
    offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0)
}

/// A metric of the ranking kernel: `receval._core.RankingSpec(kind, k=0,
/// threshold=0, gain_threshold=threshold, params=(), **conventions)`, with the
/// conventions by the names `receval` gives them (`ties="average"`, `gain="custom"`
/// for a gain table in `params`, `judged_only=True`, `depth=10` (None, the default:
/// the whole list; 0: no item), ...); the others
/// at their first value. Checked once, when built.
#[pyclass(name = "RankingSpec", module = "receval._core", frozen)]
pub(crate) struct RankingSpec(pub(crate) Spec);

/// Names as Python writes a list of them: `['a', 'b']`.
fn python_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The value of convention `name` given as `value`, or the error that names it.
fn convention<T: Copy>(
    name: &str,
    value: &Bound<'_, PyAny>,
    all: &[T],
    from_name: fn(&str) -> Option<T>,
    name_of: fn(T) -> &'static str,
) -> PyResult<T> {
    let names: Vec<&str> = all.iter().map(|&v| name_of(v)).collect();
    let names = python_list(&names);
    let given: Option<String> = value.extract().ok();
    given.as_deref().and_then(from_name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "The '{name}' parameter of RankingSpec must be one of {names}. Got {} instead.",
            value
                .repr()
                .map_or_else(|_| "?".to_string(), |r| r.to_string())
        ))
    })
}

/// Set the convention `key` of `spec` to `value`.
fn set_convention(spec: &mut Spec, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
    macro_rules! named {
        ($field:ident, $ty:ident) => {
            spec.$field = convention(key, value, $ty::ALL, $ty::from_name, $ty::name)?
        };
    }
    match key {
        "gain" => named!(gain, Gain),
        "ap_normalizer" => named!(ap_norm, ApNorm),
        "ideal" => named!(ideal, Ideal),
        "ties" => named!(ties, Ties),
        "missing_users" => named!(missing, Missing),
        "empty_users" => named!(empty, Empty),
        "discount" => named!(discount, Discount),
        "precision_normalizer" => named!(precision_norm, PrecisionNorm),
        "recall_normalizer" => named!(recall_norm, RecallNorm),
        "recall_rounding" => named!(recall_rounding, RecallRounding),
        "positive_scores" => spec.positive_scores = value.extract()?,
        "judged_only" => spec.judged_only = value.extract()?,
        "depth" => spec.depth = value.extract()?,
        _ => {
            return Err(PyValueError::new_err(format!(
                "RankingSpec: unknown convention '{key}'. Expected one of {}.",
                python_list(&CONVENTIONS)
            )))
        }
    }
    Ok(())
}

/// The conventions `RankingSpec` takes by keyword.
const CONVENTIONS: [&str; 13] = [
    "gain",
    "ap_normalizer",
    "ideal",
    "ties",
    "missing_users",
    "empty_users",
    "discount",
    "precision_normalizer",
    "recall_normalizer",
    "recall_rounding",
    "positive_scores",
    "judged_only",
    "depth",
];

#[pymethods]
impl RankingSpec {
    #[new]
    #[pyo3(signature = (kind, k=0, threshold=0.0, gain_threshold=None, params=Vec::new(), **conventions))]
    fn new(
        kind: i64,
        k: i64,
        threshold: f64,
        gain_threshold: Option<f64>,
        params: Vec<f64>,
        conventions: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        check(params.len() <= N_PARAMS, || {
            format!(
                "RankingSpec: params must hold at most {N_PARAMS} values. Got {} values.",
                params.len()
            )
        })?;
        let mut spec = Spec {
            kind,
            k,
            threshold,
            gain_threshold: gain_threshold.unwrap_or(threshold),
            ..Spec::default()
        };
        spec.params[..params.len()].copy_from_slice(&params);
        for (key, value) in conventions.into_iter().flat_map(|d| d.iter()) {
            set_convention(&mut spec, &key.extract::<String>()?, &value)?;
        }
        Ok(RankingSpec(spec))
    }

    fn __repr__(&self) -> String {
        let s = &self.0;
        format!(
            "RankingSpec({}, k={}, threshold={}, gain_threshold={}, gain='{}', ties='{}')",
            s.kind,
            s.k,
            s.threshold,
            s.gain_threshold,
            s.gain.name(),
            s.ties.name()
        )
    }
}

// ------------------------------------------------------------------ top-K metrics
/// Every metric (one per spec) for every qrels user: `(values, aux)`, each of
/// shape (n_users, n_metrics).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn evaluate_users<'py>(
    py: Python<'py>,
    q_offsets: PyReadonlyArray1<'py, i64>,
    q_items: PyReadonlyArray1<'py, i32>,
    q_grades: PyReadonlyArray1<'py, f64>,
    q_desc: PyReadonlyArray1<'py, f64>,
    r_offsets: PyReadonlyArray1<'py, i64>,
    r_items: PyReadonlyArray1<'py, i32>,
    r_scores: PyReadonlyArray1<'py, f64>,
    r_keys: PyReadonlyArray1<'py, f64>,
    item_map: PyReadonlyArray1<'py, i32>,
    user_map: PyReadonlyArray1<'py, i32>,
    specs: Vec<Bound<'py, RankingSpec>>,
    max_len: usize,
    n_chunks: usize,
    disc: PyReadonlyArray1<'py, f64>,
) -> PyResult<(Table<'py>, Table<'py>)> {
    let f = "evaluate_users";
    let q = Judged {
        offsets: slice(&q_offsets, "q_offsets")?,
        items: slice(&q_items, "q_items")?,
        grades: slice(&q_grades, "q_grades")?,
        desc: slice(&q_desc, "q_desc")?,
    };
    let r = Ranked {
        offsets: slice(&r_offsets, "r_offsets")?,
        items: slice(&r_items, "r_items")?,
        scores: slice(&r_scores, "r_scores")?,
        keys: slice(&r_keys, "r_keys")?,
    };
    let (item_map, user_map) = (slice(&item_map, "item_map")?, slice(&user_map, "user_map")?);
    let disc = slice(&disc, "disc")?;
    let specs: Vec<Spec> = specs.iter().map(|s| s.get().0).collect();
    same_length(
        f,
        &[
            ("q_items", q.items.len()),
            ("q_grades", q.grades.len()),
            ("q_desc", q.desc.len()),
        ],
    )?;
    same_length(
        f,
        &[("r_items", r.items.len()), ("r_scores", r.scores.len())],
    )?;
    check_offsets(f, "q_offsets", q.offsets, Some(q.items.len()))?;
    check_offsets(f, "r_offsets", r.offsets, Some(r.items.len()))?;
    let n_users = q.offsets.len() - 1;
    let n_run_users = r.offsets.len() - 1;
    same_length(
        f,
        &[
            ("q_offsets less one", n_users),
            ("user_map", user_map.len()),
        ],
    )?;
    check_codes(f, "q_items", q.items, item_map.len())?;
    check(
        user_map
            .iter()
            .all(|&u| u >= -1 && (u as i64) < n_run_users as i64),
        || format!("{f}: user_map must lie in [-1, {n_run_users})"),
    )?;
    if !r.keys.is_empty() {
        check_codes(f, "r_items", r.items, r.keys.len())?;
    }
    let (longest_run, longest_judged) = (longest(r.offsets), longest(q.offsets));
    check(max_len >= longest_run, || {
        format!("{f}: max_len must be at least the longest list ({longest_run})")
    })?;
    let depth = longest_run.max(longest_judged);
    check(disc.len() >= depth, || {
        format!("{f}: disc must have at least {depth} elements")
    })?;
    let n_metrics = specs.len();
    // NumPy's allocations (huge pages where large): cheaper to touch than a Vec's;
    // Fortran order, so that a metric's column is contiguous
    let values = PyArray2::<f64>::zeros(py, [n_users, n_metrics], true);
    let aux = PyArray2::<f64>::zeros(py, [n_users, n_metrics], true);
    {
        let (mut wv, mut wa) = (values.readwrite(), aux.readwrite());
        let (sv, sa) = (
            wv.as_slice_mut()
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
            wa.as_slice_mut()
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
        );
        let inputs = Inputs {
            judged: q,
            ranked: r,
            item_map,
            user_map,
            max_len,
            disc,
        };
        py.detach(|| ranking::evaluate_users_columns_into(&inputs, &specs, n_chunks, sv, sa));
    }
    Ok((values, aux))
}

// ------------------------------------------------------------------ containers
/// Judged items by item code with their grades, the grades descending, and the first
/// user with a repeated item (-1 if none).
#[pyfunction]
fn judged_segments<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
    item_codes: PyReadonlyArray1<'py, i32>,
    grades: PyReadonlyArray1<'py, f64>,
    n_chunks: usize,
) -> PyResult<(Codes<'py>, Floats<'py>, Floats<'py>, i64)> {
    let f = "judged_segments";
    let (o, r) = (slice(&offsets, "offsets")?, slice(&rows, "rows")?);
    let (c, g) = (slice(&item_codes, "item_codes")?, slice(&grades, "grades")?);
    same_length(f, &[("item_codes", c.len()), ("grades", g.len())])?;
    check_offsets(f, "offsets", o, None)?;
    check_rows(f, r, csr_rows(o), c.len())?;
    // NumPy's allocations of the outputs (huge pages where large): touching fresh
    // memory costs more than the sorts here
    let n = csr_rows(o);
    let items = PyArray1::<i32>::zeros(py, n, false);
    let (gr, desc) = (
        PyArray1::<f64>::zeros(py, n, false),
        PyArray1::<f64>::zeros(py, n, false),
    );
    let first = {
        let (mut wi, mut wg, mut wd) = (items.readwrite(), gr.readwrite(), desc.readwrite());
        let (si, sg, sd) = (
            slice_mut(&mut wi, "items")?,
            slice_mut(&mut wg, "grades")?,
            slice_mut(&mut wd, "desc")?,
        );
        py.detach(|| csr::judged_segments_into(o, r, c, g, n_chunks, (si, sg, sd)))
    };
    Ok((items, gr, desc, first))
}

/// The segments in which two neighbours have equal scores (in float32 if `single`).
#[pyfunction]
fn tie_segments<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray1<'_, f64>,
    offsets: PyReadonlyArray1<'_, i64>,
    single: bool,
) -> PyResult<Ints<'py>> {
    let (s, o) = (slice(&scores, "scores")?, slice(&offsets, "offsets")?);
    check_offsets("tie_segments", "offsets", o, None)?;
    check(csr_rows(o) <= s.len(), || {
        "tie_segments: offsets cover more rows than scores".to_string()
    })?;
    Ok(py
        .detach(|| csr::tie_segments(s, o, single))
        .into_pyarray(py))
}

/// True when equal codes are contiguous and ascending.
#[pyfunction]
fn is_grouped(py: Python<'_>, codes: PyReadonlyArray1<'_, i32>) -> PyResult<bool> {
    let c = slice(&codes, "codes")?;
    Ok(py.detach(|| csr::is_grouped(c)))
}

/// CSR offsets of sorted codes in `[0, n_groups)`.
#[pyfunction]
fn offsets_of_sorted<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
) -> PyResult<Ints<'py>> {
    let c = slice(&codes, "codes")?;
    check_codes("offsets_of_sorted", "codes", c, n_groups)?;
    Ok(py
        .detach(|| csr::offsets_of_sorted(c, n_groups))
        .into_pyarray(py))
}

/// Stable counting sort of rows by code: `(offsets, rows)`.
#[pyfunction]
fn group_rows<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    n_groups: usize,
) -> PyResult<(Ints<'py>, Ints<'py>)> {
    let c = slice(&codes, "codes")?;
    check_codes("group_rows", "codes", c, n_groups)?;
    let (o, r) = py.detach(|| csr::group_rows(c, n_groups));
    Ok((o.into_pyarray(py), r.into_pyarray(py)))
}

/// Checks of a ranking input: a CSR, rows, items as long as keys, codes in range.
fn check_ranking(
    f: &str,
    offsets: &[i64],
    rows: &[i64],
    items: &[i32],
    keys_len: usize,
    n_items: usize,
) -> PyResult<()> {
    same_length(f, &[("items", items.len()), ("keys", keys_len)])?;
    check_offsets(f, "offsets", offsets, None)?;
    check_rows(f, rows, csr_rows(offsets), items.len())?;
    check_codes(f, "items", items, n_items)
}

/// An input array borrowed read only, or writable (ours to overwrite).
enum Held<'py, T: numpy::Element> {
    Read(PyReadonlyArray1<'py, T>),
    Write(PyReadwriteArray1<'py, T>),
}

impl<T: numpy::Element> Held<'_, T> {
    fn buf(&mut self, name: &str) -> PyResult<Buf<'_, T>> {
        Ok(match self {
            Held::Read(a) => Buf::Read(slice(a, name)?),
            Held::Write(a) => Buf::Write(slice_mut(a, name)?),
        })
    }
}

/// Ranked lists (`csr::rank_rows`) that may reorder `items` / `keys` in place
/// (`own_items`, `own_keys`: the caller's scratch arrays): `(items, keys, first
/// duplicate)`, the given arrays themselves where ranked in place.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn rank_rows<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
    items: Codes<'py>,
    keys: Floats<'py>,
    n_items: usize,
    own_items: bool,
    own_keys: bool,
    n_chunks: usize,
) -> PyResult<(Codes<'py>, Floats<'py>, i64)> {
    let f = "rank_rows";
    let (o, r) = (slice(&offsets, "offsets")?, slice(&rows, "rows")?);
    let borrow = |e: numpy::BorrowError| PyValueError::new_err(format!("{f}: {e}"));
    let mut held_items = if own_items {
        Held::Write(items.try_readwrite().map_err(borrow)?)
    } else {
        Held::Read(items.try_readonly().map_err(borrow)?)
    };
    let mut held_keys = if own_keys {
        Held::Write(keys.try_readwrite().map_err(borrow)?)
    } else {
        Held::Read(keys.try_readonly().map_err(borrow)?)
    };
    let (bi, bk) = (held_items.buf("items")?, held_keys.buf("keys")?);
    let (it, kl) = (bi.as_slice(), bk.as_slice().len());
    check_ranking(f, o, r, it, kl, n_items)?;
    let (ni, nk, dup) = py.detach(|| csr::rank_rows(o, r, bi, bk, n_items, n_chunks));
    drop((held_items, held_keys));
    let out_items = match ni {
        Some(v) => v.into_pyarray(py),
        None => items,
    };
    let out_keys = match nk {
        Some(v) => v.into_pyarray(py),
        None => keys,
    };
    Ok((out_items, out_keys, dup))
}

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<RankingSpec>()?;
    m.add_function(wrap_pyfunction!(evaluate_users, m)?)?;
    m.add_function(wrap_pyfunction!(judged_segments, m)?)?;
    m.add_function(wrap_pyfunction!(tie_segments, m)?)?;
    m.add_function(wrap_pyfunction!(is_grouped, m)?)?;
    m.add_function(wrap_pyfunction!(offsets_of_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(group_rows, m)?)?;
    m.add_function(wrap_pyfunction!(rank_rows, m)?)?;
    Ok(())
}
