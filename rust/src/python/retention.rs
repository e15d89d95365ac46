//! Python bindings of the retention kernels (retention.rs).
//!
//! Every function takes int32 user codes, int64
//! raw time values with a positive divisor, int32 periods, int32 cohort codes.
//! User codes, periods or cohorts out of range, offsets that do not cover the
//! values and a divisor below 1 raise `ValueError`.

use numpy::ndarray::{Ix2, Ix3};
use numpy::{IntoPyArray, PyArray, PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice, Ints};
use crate::retention;

type Flags<'py> = Bound<'py, PyArray1<bool>>;
type Counts<'py> = (
    Bound<'py, PyArray<i64, Ix2>>,
    Bound<'py, PyArray<i64, Ix2>>,
    Bound<'py, PyArray<i64, Ix3>>,
);

fn error(func: &str, what: &str) -> PyErr {
    PyValueError::new_err(format!("{func}: {what}"))
}

fn check_divisor(func: &str, divisor: i64) -> PyResult<()> {
    if divisor < 1 {
        return Err(error(
            func,
            &format!("divisor must be positive, got {divisor}"),
        ));
    }
    Ok(())
}

fn check_codes(func: &str, codes: &[i32], n_users: usize) -> PyResult<()> {
    if codes.iter().any(|&u| u < 0 || u as usize >= n_users) {
        return Err(error(func, &format!("codes must lie in [0, {n_users})")));
    }
    Ok(())
}

fn check_cohorts(func: &str, cohort: &[i32], n_periods: usize) -> PyResult<()> {
    if cohort
        .iter()
        .any(|&c| c < retention::NO_SIGNUP || (c >= 0 && c as usize >= n_periods))
    {
        return Err(error(
            func,
            &format!("cohort codes must lie in [-3, {n_periods})"),
        ));
    }
    Ok(())
}

fn check_parts(func: &str, n_parts: usize) -> PyResult<()> {
    if n_parts == 0 {
        return Err(error(func, "n_parts must be at least 1"));
    }
    Ok(())
}

/// `(new, login, table)` with a leading axis of `n_parts`.
fn counts<'py>(
    py: Python<'py>,
    (new, login, table): (Vec<i64>, Vec<i64>, Vec<i64>),
    n_parts: usize,
    n_periods: usize,
) -> PyResult<Counts<'py>> {
    Ok((
        new.into_pyarray(py).reshape([n_parts, n_periods])?,
        login.into_pyarray(py).reshape([n_parts, n_periods])?,
        table
            .into_pyarray(py)
            .reshape([n_parts, n_periods, n_periods])?,
    ))
}

/// Period index (int32) of every timestamp.
#[pyfunction]
fn periods_of_instants<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, i64>,
    divisor: i64,
    bounds: PyReadonlyArray1<'py, i64>,
    period_of_day: PyReadonlyArray1<'py, i32>,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    const FUNC: &str = "periods_of_instants";
    let (v, b) = (slice(&values, "values")?, slice(&bounds, "bounds")?);
    let p = slice(&period_of_day, "period_of_day")?;
    check_divisor(FUNC, divisor)?;
    if b.len() < 2 || p.len() + 1 < b.len() {
        return Err(error(
            FUNC,
            "bounds must hold at least 2 values and period_of_day one per day",
        ));
    }
    let out = py.detach(|| retention::periods_of_instants(v, divisor, b, p, n_chunks));
    Ok(out.into_pyarray(py))
}

/// Each user's signup second, whether the user has one, and the first row that
/// contradicts an earlier one (-1 if none).
#[pyfunction]
fn signup_per_user<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    values: PyReadonlyArray1<'py, i64>,
    divisor: i64,
    valid: PyReadonlyArray1<'py, bool>,
    n_users: usize,
) -> PyResult<(Ints<'py>, Flags<'py>, i64)> {
    const FUNC: &str = "signup_per_user";
    let (c, v) = (slice(&codes, "codes")?, slice(&values, "values")?);
    let ok = slice(&valid, "valid")?;
    same_length(
        FUNC,
        &[("codes", c.len()), ("values", v.len()), ("valid", ok.len())],
    )?;
    check_divisor(FUNC, divisor)?;
    check_codes(FUNC, c, n_users)?;
    let (seconds, has, conflict) =
        py.detach(|| retention::signup_per_user(c, v, divisor, ok, n_users));
    Ok((seconds.into_pyarray(py), has.into_pyarray(py), conflict))
}

/// Events before their user's signup: their number, a flag per user, and the
/// first such row (-1 if none).
#[pyfunction]
fn events_before_signup<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    values: PyReadonlyArray1<'py, i64>,
    divisor: i64,
    signup_seconds: PyReadonlyArray1<'py, i64>,
    has_signup: PyReadonlyArray1<'py, bool>,
    n_chunks: usize,
) -> PyResult<(i64, Flags<'py>, i64)> {
    const FUNC: &str = "events_before_signup";
    let (c, v) = (slice(&codes, "codes")?, slice(&values, "values")?);
    let s = slice(&signup_seconds, "signup_seconds")?;
    let h = slice(&has_signup, "has_signup")?;
    same_length(FUNC, &[("codes", c.len()), ("values", v.len())])?;
    same_length(
        FUNC,
        &[("signup_seconds", s.len()), ("has_signup", h.len())],
    )?;
    check_divisor(FUNC, divisor)?;
    check_codes(FUNC, c, s.len())?;
    let (count, flagged, first) =
        py.detach(|| retention::events_before_signup(c, v, divisor, s, h, n_chunks));
    Ok((count, flagged.into_pyarray(py), first))
}

/// Per user, `n_words` uint64 words with bit p set iff the user is active in
/// period p.
#[pyfunction]
fn activity_bitsets<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    periods: PyReadonlyArray1<'py, i32>,
    n_users: usize,
    n_words: usize,
    n_parts: usize,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    const FUNC: &str = "activity_bitsets";
    let (c, p) = (slice(&codes, "codes")?, slice(&periods, "periods")?);
    same_length(FUNC, &[("codes", c.len()), ("periods", p.len())])?;
    check_codes(FUNC, c, n_users)?;
    if n_users.checked_mul(n_words).is_none() {
        return Err(error(FUNC, "n_users * n_words is too large"));
    }
    if p.iter().any(|&x| x < 0 || x as u64 >= 64 * n_words as u64) {
        return Err(error(
            FUNC,
            &format!("periods must lie in [0, {})", 64 * n_words as u64),
        ));
    }
    let out = py.detach(|| retention::activity_bitsets(c, p, n_users, n_words, n_parts));
    Ok(out.into_pyarray(py))
}

/// New users, login users and the cohort x offset counts from per-user bitsets,
/// with a leading axis of `n_parts` (one slice per part of the users).
#[pyfunction]
fn accumulate_bitsets<'py>(
    py: Python<'py>,
    bits: PyReadonlyArray1<'py, u64>,
    n_words: usize,
    cohort: PyReadonlyArray1<'py, i32>,
    n_periods: usize,
    drop_before: bool,
    n_parts: usize,
) -> PyResult<Counts<'py>> {
    const FUNC: &str = "accumulate_bitsets";
    let (b, c) = (slice(&bits, "bits")?, slice(&cohort, "cohort")?);
    check_parts(FUNC, n_parts)?;
    if c.len().checked_mul(n_words) != Some(b.len()) {
        return Err(error(FUNC, "bits must hold n_words words per user"));
    }
    check_cohorts(FUNC, c, n_periods)?;
    let beyond = |w: usize, x: u64| {
        let first = w * 64; // period of bit 0 of word w
        if first >= n_periods {
            x != 0
        } else {
            n_periods - first < 64 && x >> (n_periods - first) != 0
        }
    };
    if n_words > 0
        && b.chunks(n_words)
            .any(|words| words.iter().enumerate().any(|(w, &x)| beyond(w, x)))
    {
        return Err(error(
            FUNC,
            &format!("bits must only mark periods in [0, {n_periods})"),
        ));
    }
    let out =
        py.detach(|| retention::accumulate_bitsets(b, n_words, c, n_periods, drop_before, n_parts));
    counts(py, out, n_parts, n_periods)
}

/// CSR `(offsets, values)` of each user's event periods, each segment sorted.
#[pyfunction]
fn periods_by_user<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, i32>,
    periods: PyReadonlyArray1<'py, i32>,
    n_users: usize,
    n_parts: usize,
) -> PyResult<(Ints<'py>, Bound<'py, PyArray1<i32>>)> {
    const FUNC: &str = "periods_by_user";
    let (c, p) = (slice(&codes, "codes")?, slice(&periods, "periods")?);
    same_length(FUNC, &[("codes", c.len()), ("periods", p.len())])?;
    check_codes(FUNC, c, n_users)?;
    let (offsets, values) = py.detach(|| retention::periods_by_user(c, p, n_users, n_parts.max(1)));
    Ok((offsets.into_pyarray(py), values.into_pyarray(py)))
}

/// The counts of `accumulate_bitsets` from sorted per-user segments of periods.
#[pyfunction]
fn accumulate_csr<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    values: PyReadonlyArray1<'py, i32>,
    cohort: PyReadonlyArray1<'py, i32>,
    n_periods: usize,
    drop_before: bool,
    n_parts: usize,
) -> PyResult<Counts<'py>> {
    const FUNC: &str = "accumulate_csr";
    let (o, v) = (slice(&offsets, "offsets")?, slice(&values, "values")?);
    let c = slice(&cohort, "cohort")?;
    check_parts(FUNC, n_parts)?;
    let valid = o.len() == c.len() + 1
        && o[0] >= 0
        && o.windows(2).all(|w| w[0] <= w[1])
        && o[o.len() - 1] as u64 <= v.len() as u64;
    if !valid {
        return Err(error(
            FUNC,
            "offsets must hold n_users + 1 non-decreasing values from 0 to at most len(values)",
        ));
    }
    check_cohorts(FUNC, c, n_periods)?;
    let used = &v[o[0] as usize..o[o.len() - 1] as usize];
    if used.iter().any(|&p| p < 0 || p as usize >= n_periods) {
        return Err(error(FUNC, &format!("values must lie in [0, {n_periods})")));
    }
    let out = py.detach(|| retention::accumulate_csr(o, v, c, n_periods, drop_before, n_parts));
    counts(py, out, n_parts, n_periods)
}

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("BEFORE", retention::BEFORE)?;
    m.add("AFTER", retention::AFTER)?;
    m.add("NO_SIGNUP", retention::NO_SIGNUP)?;
    m.add_function(wrap_pyfunction!(periods_of_instants, m)?)?;
    m.add_function(wrap_pyfunction!(signup_per_user, m)?)?;
    m.add_function(wrap_pyfunction!(events_before_signup, m)?)?;
    m.add_function(wrap_pyfunction!(activity_bitsets, m)?)?;
    m.add_function(wrap_pyfunction!(accumulate_bitsets, m)?)?;
    m.add_function(wrap_pyfunction!(periods_by_user, m)?)?;
    m.add_function(wrap_pyfunction!(accumulate_csr, m)?)?;
    Ok(())
}
