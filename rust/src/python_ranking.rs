//! Python bindings of the ranking kernels (ranking.rs, csr.rs): the signatures of
//! their reference kernels, every index checked before the work (a bad CSR or an
//! out-of-range code raises `ValueError`).

use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyReadwriteArray1, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{same_length, slice};
use crate::csr::{self, Buf, Source};
use crate::ranking::{self, Judged, Ranked, N_SPEC_COLUMNS};

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

fn check_bits(func: &str, seg_bits: u32, pos_bits: u32) -> PyResult<()> {
    check(seg_bits + pos_bits < 64 && pos_bits >= 1, || {
        format!("{func}: seg_bits + pos_bits must be below 64, pos_bits at least 1")
    })
}

fn longest(offsets: &[i64]) -> usize {
    offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0)
}

fn segments_in(func: &str, offsets: &[i64], g0: usize, g1: usize) -> PyResult<()> {
    check(g0 <= g1 && g1 < offsets.len(), || {
        format!(
            "{func}: segments g0..g1 must lie in [0, {})",
            offsets.len() - 1
        )
    })
}

// ------------------------------------------------------------------ top-K metrics
/// Every metric (rows of `specs`) for every qrels user: `(values, aux)`, each of
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
    specs: PyReadonlyArray2<'py, i64>,
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
    let shape = specs.shape();
    check(shape[1] == N_SPEC_COLUMNS, || {
        format!("{f}: specs must have {N_SPEC_COLUMNS} columns")
    })?;
    let specs = specs
        .as_slice()
        .map_err(|_| PyValueError::new_err("specs must be a C-contiguous 2-D array"))?;
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
    let n_metrics = shape[0];
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
        py.detach(|| {
            ranking::evaluate_users_columns_into(
                &q, &r, item_map, user_map, specs, max_len, n_chunks, disc, sv, sa,
            )
        });
    }
    Ok((values, aux))
}

/// Checks shared by the per-user metric kernels.
#[allow(clippy::too_many_arguments)]
fn check_user(
    f: &str,
    grades: &[f64],
    n: usize,
    q_desc: &[f64],
    qa: usize,
    qb: usize,
    cand: usize,
    disc: &[f64],
) -> PyResult<()> {
    check(n <= grades.len() && n <= cand, || {
        format!("{f}: grades and cand must have at least n elements")
    })?;
    check(qa <= qb && qb <= q_desc.len(), || {
        format!("{f}: qa..qb must lie in q_desc")
    })?;
    check(disc.len() >= n.max(qb - qa), || {
        format!("{f}: disc must cover the list and the judged items")
    })
}

/// `(value, R)` of one metric for one user, walking every position.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn user_metric(
    kind: i64,
    k: i64,
    threshold: f64,
    gain_threshold: f64,
    gain: i64,
    ap_norm: i64,
    ideal: i64,
    ties: i64,
    grades: PyReadonlyArray1<'_, f64>,
    scores: PyReadonlyArray1<'_, f64>,
    a: usize,
    n: usize,
    q_desc: PyReadonlyArray1<'_, f64>,
    qa: usize,
    qb: usize,
    mut rel: PyReadwriteArray1<'_, f64>,
    mut gains: PyReadwriteArray1<'_, f64>,
    mut cand: PyReadwriteArray1<'_, f64>,
    disc: PyReadonlyArray1<'_, f64>,
) -> PyResult<(f64, f64)> {
    let f = "user_metric";
    let (g, s, qd, d) = (
        slice(&grades, "grades")?,
        slice(&scores, "scores")?,
        slice(&q_desc, "q_desc")?,
        slice(&disc, "disc")?,
    );
    let (rel, gains, cand) = (
        slice_mut(&mut rel, "rel")?,
        slice_mut(&mut gains, "gains")?,
        slice_mut(&mut cand, "cand")?,
    );
    check_user(f, g, n, qd, qa, qb, cand.len(), d)?;
    check(
        a + n <= s.len() && rel.len() >= n && gains.len() >= n,
        || format!("{f}: scores must hold rows a..a+n, rel and gains n elements"),
    )?;
    Ok(ranking::user_metric(
        kind,
        k,
        threshold,
        gain_threshold,
        gain,
        ap_norm,
        ideal,
        ties,
        g,
        s,
        a,
        n,
        qd,
        qa,
        qb,
        rel,
        gains,
        cand,
        d,
    ))
}

/// Value of one metric for one user from the ranks of its relevant items.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn metric_from_hits(
    kind: i64,
    k: i64,
    threshold: f64,
    gain: i64,
    ap_norm: i64,
    ideal: i64,
    grades: PyReadonlyArray1<'_, f64>,
    n: usize,
    hpos: PyReadonlyArray1<'_, i64>,
    hgr: PyReadonlyArray1<'_, f64>,
    h: usize,
    n_rel: i64,
    q_desc: PyReadonlyArray1<'_, f64>,
    qa: usize,
    qb: usize,
    mut cand: PyReadwriteArray1<'_, f64>,
    disc: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let f = "metric_from_hits";
    let (g, hp, hg) = (
        slice(&grades, "grades")?,
        slice(&hpos, "hpos")?,
        slice(&hgr, "hgr")?,
    );
    let (qd, d) = (slice(&q_desc, "q_desc")?, slice(&disc, "disc")?);
    let cand = slice_mut(&mut cand, "cand")?;
    check_user(f, g, n, qd, qa, qb, cand.len(), d)?;
    check(h <= hp.len() && h <= hg.len(), || {
        format!("{f}: hpos and hgr must have at least h elements")
    })?;
    check(hp[..h].iter().all(|&p| p >= 0), || {
        format!("{f}: hpos must be ranks (>= 0)")
    })?;
    let hp: Vec<usize> = hp[..h].iter().map(|&p| p as usize).collect();
    Ok(ranking::metric_from_hits(
        kind, k, threshold, gain, ap_norm, ideal, g, n, &hp, hg, h, n_rel, qd, qa, qb, cand, d,
    ))
}

/// DCG of the ideal order (the candidates' grades or the judged grades).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn idcg(
    ideal: i64,
    k: i64,
    k_eff: i64,
    threshold: f64,
    gain: i64,
    grades: PyReadonlyArray1<'_, f64>,
    n: usize,
    q_desc: PyReadonlyArray1<'_, f64>,
    qa: usize,
    qb: usize,
    mut cand: PyReadwriteArray1<'_, f64>,
    disc: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let (g, qd, d) = (
        slice(&grades, "grades")?,
        slice(&q_desc, "q_desc")?,
        slice(&disc, "disc")?,
    );
    let cand = slice_mut(&mut cand, "cand")?;
    check_user("idcg", g, n, qd, qa, qb, cand.len(), d)?;
    Ok(ranking::idcg(
        ideal, k, k_eff, threshold, gain, g, n, qd, qa, qb, cand, d,
    ))
}

/// P(the first relevant item of a tied block is at offset j), j < t.
#[pyfunction]
fn expected_first_hit(py: Python<'_>, m: i64, h: i64, t: i64) -> Floats<'_> {
    ranking::expected_first_hit(m, h, t).into_pyarray(py)
}

/// The permutation of rows a..a+n that breaks score ties by item key.
#[pyfunction]
#[pyo3(signature = (scores, items, item_keys, a, n, ascending = false))]
fn trec_order<'py>(
    py: Python<'py>,
    scores: PyReadonlyArray1<'py, f64>,
    items: PyReadonlyArray1<'py, i32>,
    item_keys: PyReadonlyArray1<'py, f64>,
    a: usize,
    n: usize,
    ascending: bool,
) -> PyResult<Ints<'py>> {
    let (s, it, k) = (
        slice(&scores, "scores")?,
        slice(&items, "items")?,
        slice(&item_keys, "item_keys")?,
    );
    check(a + n <= s.len() && a + n <= it.len(), || {
        "trec_order: scores and items must hold rows a..a+n".to_string()
    })?;
    check_codes("trec_order", "items", &it[a..a + n], k.len())?;
    let rule = if ascending {
        ranking::TIES_ID_ASCENDING
    } else {
        ranking::TIES_TREC
    };
    let perm = ranking::trec_order(s, it, k, a, n, rule);
    Ok(perm
        .into_iter()
        .map(|p| p as i64)
        .collect::<Vec<_>>()
        .into_pyarray(py))
}

/// Position of `item` in the ascending `sorted_items[a:b]`, or -1.
#[pyfunction]
fn lookup(sorted_items: PyReadonlyArray1<'_, i32>, a: usize, b: usize, item: i32) -> PyResult<i64> {
    let s = slice(&sorted_items, "sorted_items")?;
    check(a <= b && b <= s.len(), || {
        "lookup: a..b must lie in sorted_items".to_string()
    })?;
    Ok(ranking::lookup(s, a, b, item))
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
        py.detach(|| csr::judged_segments_into(o, r, c, g, n_chunks, si, sg, sd))
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

/// Stable descending sort of `keys[:n]` carrying `pos`, in place.
#[pyfunction]
fn stable_sort_desc(
    mut keys: PyReadwriteArray1<'_, f64>,
    mut pos: PyReadwriteArray1<'_, i64>,
    mut tmp_keys: PyReadwriteArray1<'_, f64>,
    mut tmp_pos: PyReadwriteArray1<'_, i64>,
    n: usize,
) -> PyResult<()> {
    let (k, p) = (slice_mut(&mut keys, "keys")?, slice_mut(&mut pos, "pos")?);
    let (tk, tp) = (
        slice_mut(&mut tmp_keys, "tmp_keys")?,
        slice_mut(&mut tmp_pos, "tmp_pos")?,
    );
    check(
        n <= k.len() && n <= p.len() && n <= tk.len() && n <= tp.len(),
        || "stable_sort_desc: every buffer must have at least n elements".to_string(),
    )?;
    csr::stable_sort_desc(k, p, tk, tp, n);
    Ok(())
}

/// Packed stable descending sort of `keys[:n]` with positions; False when the
/// caller must run the exact sort (the input is then restored).
#[pyfunction]
fn packed_sort_desc(
    mut keys: PyReadwriteArray1<'_, f64>,
    mut pos: PyReadwriteArray1<'_, i64>,
    mut buf: PyReadwriteArray1<'_, u64>,
    n: usize,
) -> PyResult<bool> {
    let (k, p) = (slice_mut(&mut keys, "keys")?, slice_mut(&mut pos, "pos")?);
    let b = slice_mut(&mut buf, "buf")?;
    check(n <= k.len() && n <= p.len() && n <= b.len(), || {
        "packed_sort_desc: every buffer must have at least n elements".to_string()
    })?;
    Ok(csr::packed_sort_desc(k, p, b, n))
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

/// Per-user ranked lists (key descending, stable) and the first segment with a
/// repeated item (-1 if none).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn build_ranked<'py>(
    py: Python<'py>,
    rows: PyReadonlyArray1<'py, i64>,
    offsets: PyReadonlyArray1<'py, i64>,
    items: PyReadonlyArray1<'py, i32>,
    keys: PyReadonlyArray1<'py, f64>,
    n_items: usize,
    max_len: usize,
    n_chunks: usize,
) -> PyResult<(Codes<'py>, Floats<'py>, i64)> {
    let (r, o) = (slice(&rows, "rows")?, slice(&offsets, "offsets")?);
    let (it, k) = (slice(&items, "items")?, slice(&keys, "keys")?);
    check_ranking("build_ranked", o, r, it, k.len(), n_items)?;
    let max_len = max_len.max(longest(o));
    let (oi, ok, dup) = py.detach(|| csr::build_ranked(r, o, it, k, n_items, max_len, n_chunks));
    Ok((oi.into_pyarray(py), ok.into_pyarray(py), dup))
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

/// `build_ranked` that may reorder `items` / `keys` in place (`own_items`,
/// `own_keys`: the caller's scratch arrays): `(items, keys, first duplicate)`, the
/// given arrays themselves where ranked in place.
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

/// First segment where an item repeats, or -1.
#[pyfunction]
fn first_duplicate_segment(
    py: Python<'_>,
    offsets: PyReadonlyArray1<'_, i64>,
    rows: PyReadonlyArray1<'_, i64>,
    items: PyReadonlyArray1<'_, i32>,
    n_items: usize,
    n_chunks: usize,
) -> PyResult<i64> {
    let f = "first_duplicate_segment";
    let (o, r, it) = (
        slice(&offsets, "offsets")?,
        slice(&rows, "rows")?,
        slice(&items, "items")?,
    );
    check_offsets(f, "offsets", o, None)?;
    check_rows(f, r, csr_rows(o), it.len())?;
    check_codes(f, "items", it, n_items)?;
    Ok(py.detach(|| csr::first_duplicate_segment(o, r, it, n_items, n_chunks)))
}

/// One u64 per row: segment id, key descending (top bits), position.
#[pyfunction]
fn pack_keys<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
    key_bits: PyReadonlyArray1<'py, u64>,
    seg_bits: u32,
    pos_bits: u32,
    n_chunks: usize,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let f = "pack_keys";
    let (o, r, kb) = (
        slice(&offsets, "offsets")?,
        slice(&rows, "rows")?,
        slice(&key_bits, "key_bits")?,
    );
    check_offsets(f, "offsets", o, None)?;
    check_rows(f, r, csr_rows(o), kb.len())?;
    check_bits(f, seg_bits, pos_bits)?;
    check_packable(f, o, seg_bits, pos_bits)?;
    Ok(py
        .detach(|| csr::pack_keys(o, r, kb, seg_bits, pos_bits, n_chunks))
        .into_pyarray(py))
}

/// Segment ids and positions fit their bits.
fn check_packable(f: &str, offsets: &[i64], seg_bits: u32, pos_bits: u32) -> PyResult<()> {
    let n_seg = offsets.len() - 1;
    check(
        seg_bits == 0 || (n_seg as u128) <= 1u128 << seg_bits,
        || format!("{f}: {n_seg} segments do not fit {seg_bits} bits"),
    )?;
    check((longest(offsets) as u128) <= 1u128 << pos_bits, || {
        format!("{f}: the longest segment does not fit {pos_bits} bits")
    })
}

/// Every decoded position lies inside its segment.
fn check_positions(
    f: &str,
    packed: &[u64],
    offsets: &[i64],
    g0: usize,
    g1: usize,
    pos_bits: u32,
) -> PyResult<()> {
    let low = 1u64.checked_shl(pos_bits).unwrap_or(0).wrapping_sub(1);
    let base = offsets[g0] as usize;
    let ok = (g0..g1).all(|g| {
        let (a, b) = (offsets[g] as usize, offsets[g + 1] as usize);
        packed[a - base..b - base]
            .iter()
            .all(|&x| ((x & low) as usize) < b - a)
    });
    check(ok, || {
        format!("{f}: a packed position lies outside its segment")
    })
}

/// Decode sorted packed keys: `(items, keys, bad)`, the keys written over `packed`
/// (returned as its float64 view).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn unpack_ranked<'py>(
    py: Python<'py>,
    packed: Bound<'py, PyArray1<u64>>,
    offsets: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
    items: PyReadonlyArray1<'py, i32>,
    keys: PyReadonlyArray1<'py, f64>,
    pos_bits: u32,
    n_chunks: usize,
) -> PyResult<(Codes<'py>, Bound<'py, PyAny>, Bound<'py, PyArray1<bool>>)> {
    let f = "unpack_ranked";
    let (o, r) = (slice(&offsets, "offsets")?, slice(&rows, "rows")?);
    let (it, k) = (slice(&items, "items")?, slice(&keys, "keys")?);
    same_length(f, &[("items", it.len()), ("keys", k.len())])?;
    check_offsets(f, "offsets", o, None)?;
    check_rows(f, r, csr_rows(o), it.len())?;
    check(pos_bits < 64, || format!("{f}: pos_bits must be below 64"))?;
    let (oi, bad) = {
        let mut pk = packed
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("{f}: {e}")))?;
        let pk = slice_mut(&mut pk, "packed")?;
        check(pk.len() == csr_rows(o), || {
            format!("{f}: packed must have offsets[-1] elements")
        })?;
        check_positions(f, pk, o, 0, o.len() - 1, pos_bits)?;
        py.detach(|| csr::unpack_ranked(pk, o, r, it, k, pos_bits, n_chunks))
    };
    let view = packed.call_method1("view", (numpy::dtype::<f64>(py),))?;
    Ok((oi.into_pyarray(py), view, bad.into_pyarray(py)))
}

/// `unpack_ranked` for grouped rows, reordering `items` in place: `(keys, bad,
/// first duplicate)`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn unpack_grouped<'py>(
    py: Python<'py>,
    packed: Bound<'py, PyArray1<u64>>,
    offsets: PyReadonlyArray1<'py, i64>,
    mut items: PyReadwriteArray1<'py, i32>,
    keys: PyReadonlyArray1<'py, f64>,
    pos_bits: u32,
    n_items: usize,
    max_len: usize,
    n_chunks: usize,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyArray1<bool>>, i64)> {
    let f = "unpack_grouped";
    let (o, k) = (slice(&offsets, "offsets")?, slice(&keys, "keys")?);
    let it = slice_mut(&mut items, "items")?;
    check_offsets(f, "offsets", o, None)?;
    let n = csr_rows(o);
    check(n <= it.len() && n <= k.len(), || {
        format!("{f}: items and keys must cover the offsets")
    })?;
    check_codes(f, "items", &it[..n], n_items)?;
    check(pos_bits < 64, || format!("{f}: pos_bits must be below 64"))?;
    let max_len = max_len.max(longest(o));
    let (bad, first) = {
        let mut pk = packed
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("{f}: {e}")))?;
        let pk = slice_mut(&mut pk, "packed")?;
        check(pk.len() == n, || {
            format!("{f}: packed must have offsets[-1] elements")
        })?;
        check_positions(f, pk, o, 0, o.len() - 1, pos_bits)?;
        py.detach(|| {
            csr::unpack_grouped(pk, o, &mut it[..n], k, pos_bits, n_items, max_len, n_chunks)
        })
    };
    let view = packed.call_method1("view", (numpy::dtype::<f64>(py),))?;
    Ok((view, bad.into_pyarray(py), first))
}

/// `pack_keys` for segments g0..g1 into `buf`; returns the rows written.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn pack_block(
    py: Python<'_>,
    offsets: PyReadonlyArray1<'_, i64>,
    rows: PyReadonlyArray1<'_, i64>,
    key_bits: PyReadonlyArray1<'_, u64>,
    g0: usize,
    g1: usize,
    seg_bits: u32,
    pos_bits: u32,
    mut buf: PyReadwriteArray1<'_, u64>,
) -> PyResult<usize> {
    let f = "pack_block";
    let (o, r, kb) = (
        slice(&offsets, "offsets")?,
        slice(&rows, "rows")?,
        slice(&key_bits, "key_bits")?,
    );
    let b = slice_mut(&mut buf, "buf")?;
    check_offsets(f, "offsets", o, None)?;
    check_rows(f, r, csr_rows(o), kb.len())?;
    segments_in(f, o, g0, g1)?;
    check_bits(f, seg_bits, pos_bits)?;
    check_packable(f, &o[g0..=g1], seg_bits, pos_bits)?;
    check((o[g1] - o[g0]) as usize <= b.len(), || {
        format!("{f}: buf is shorter than the block")
    })?;
    Ok(py.detach(|| csr::pack_block(o, r, kb, g0, g1, seg_bits, pos_bits, b)))
}

/// Decode a sorted block into `out_items` / `out_keys` (which may be `items` /
/// `keys` themselves when `rows` is empty); returns the first segment with a
/// repeated item, or -1.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn unpack_block<'py>(
    py: Python<'py>,
    buf: PyReadonlyArray1<'py, u64>,
    offsets: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
    items: Codes<'py>,
    keys: Floats<'py>,
    g0: usize,
    g1: usize,
    pos_bits: u32,
    out_items: Codes<'py>,
    out_keys: Floats<'py>,
    mut bad: PyReadwriteArray1<'py, bool>,
    mut stamp: PyReadwriteArray1<'py, i64>,
    mut seg_items: PyReadwriteArray1<'py, i32>,
    mut seg_keys: PyReadwriteArray1<'py, f64>,
) -> PyResult<i64> {
    let f = "unpack_block";
    let (bf, o, r) = (
        slice(&buf, "buf")?,
        slice(&offsets, "offsets")?,
        slice(&rows, "rows")?,
    );
    let borrow = |e: numpy::BorrowError| PyValueError::new_err(format!("{f}: {e}"));
    check_offsets(f, "offsets", o, None)?;
    segments_in(f, o, g0, g1)?;
    check(pos_bits < 64, || format!("{f}: pos_bits must be below 64"))?;
    let n = csr_rows(o);
    let in_place_items = items.is(&out_items);
    let in_place_keys = keys.is(&out_keys);
    check(r.is_empty() || !(in_place_items || in_place_keys), || {
        format!("{f}: the outputs may be the inputs only with rows empty")
    })?;
    let items_ro = if in_place_items {
        None
    } else {
        Some(items.try_readonly().map_err(borrow)?)
    };
    let keys_ro = if in_place_keys {
        None
    } else {
        Some(keys.try_readonly().map_err(borrow)?)
    };
    let mut oi = out_items.try_readwrite().map_err(borrow)?;
    let mut ok = out_keys.try_readwrite().map_err(borrow)?;
    let (oi, ok) = (
        slice_mut(&mut oi, "out_items")?,
        slice_mut(&mut ok, "out_keys")?,
    );
    let src_items = match &items_ro {
        Some(x) => Source::Input(slice(x, "items")?),
        None => Source::InPlace,
    };
    let src_keys = match &keys_ro {
        Some(x) => Source::Input(slice(x, "keys")?),
        None => Source::InPlace,
    };
    let in_len = src_items.len_or(oi.len()).min(src_keys.len_or(ok.len()));
    check_rows(f, r, n, in_len)?;
    check(oi.len() >= n && ok.len() >= n, || {
        format!("{f}: out_items and out_keys must cover the offsets")
    })?;
    let (bad, stamp) = (slice_mut(&mut bad, "bad")?, slice_mut(&mut stamp, "stamp")?);
    let (si, sk) = (
        slice_mut(&mut seg_items, "seg_items")?,
        slice_mut(&mut seg_keys, "seg_keys")?,
    );
    let block_len = longest(&o[g0..=g1]);
    check(
        bad.len() >= o.len() - 1 && si.len() >= block_len && sk.len() >= block_len,
        || format!("{f}: bad must cover the segments, seg_items and seg_keys the longest"),
    )?;
    check(bf.len() >= (o[g1] - o[g0]) as usize, || {
        format!("{f}: buf is shorter than the block")
    })?;
    check_positions(f, bf, o, g0, g1, pos_bits)?;
    // the items read: in [0, len(stamp))
    let read_ok = (o[g0] as usize..o[g1] as usize).all(|t| {
        let it = match src_items {
            Source::Input(x) => x[if r.is_empty() { t } else { r[t] as usize }],
            Source::InPlace => oi[t],
        };
        it >= 0 && (it as usize) < stamp.len()
    });
    check(read_ok, || {
        format!("{f}: items must lie in [0, len(stamp))")
    })?;
    Ok(py.detach(|| {
        csr::unpack_block(
            bf, o, r, src_items, src_keys, g0, g1, pos_bits, oi, ok, bad, stamp, si, sk,
        )
    }))
}

/// Exact stable ranking of the given segments into `out_items` / `out_keys` (which
/// may be `items` / `keys` themselves when `rows` is empty).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn redo_segments<'py>(
    py: Python<'py>,
    segments: PyReadonlyArray1<'py, i64>,
    offsets: PyReadonlyArray1<'py, i64>,
    rows: PyReadonlyArray1<'py, i64>,
    items: Codes<'py>,
    keys: Floats<'py>,
    out_items: Codes<'py>,
    out_keys: Floats<'py>,
    max_len: usize,
) -> PyResult<()> {
    let f = "redo_segments";
    let (sg, o, r) = (
        slice(&segments, "segments")?,
        slice(&offsets, "offsets")?,
        slice(&rows, "rows")?,
    );
    let borrow = |e: numpy::BorrowError| PyValueError::new_err(format!("{f}: {e}"));
    check_offsets(f, "offsets", o, None)?;
    let n_seg = o.len() - 1;
    check(sg.iter().all(|&g| g >= 0 && (g as usize) < n_seg), || {
        format!("{f}: segments must lie in [0, {n_seg})")
    })?;
    let n = csr_rows(o);
    let in_place_items = items.is(&out_items);
    let in_place_keys = keys.is(&out_keys);
    check(r.is_empty() || !(in_place_items || in_place_keys), || {
        format!("{f}: the outputs may be the inputs only with rows empty")
    })?;
    let items_ro = if in_place_items {
        None
    } else {
        Some(items.try_readonly().map_err(borrow)?)
    };
    let keys_ro = if in_place_keys {
        None
    } else {
        Some(keys.try_readonly().map_err(borrow)?)
    };
    let mut oi = out_items.try_readwrite().map_err(borrow)?;
    let mut ok = out_keys.try_readwrite().map_err(borrow)?;
    let (oi, ok) = (
        slice_mut(&mut oi, "out_items")?,
        slice_mut(&mut ok, "out_keys")?,
    );
    let src_items = match &items_ro {
        Some(x) => Source::Input(slice(x, "items")?),
        None => Source::InPlace,
    };
    let src_keys = match &keys_ro {
        Some(x) => Source::Input(slice(x, "keys")?),
        None => Source::InPlace,
    };
    let in_len = src_items.len_or(oi.len()).min(src_keys.len_or(ok.len()));
    check_rows(f, r, n, in_len)?;
    check(oi.len() >= n && ok.len() >= n, || {
        format!("{f}: out_items and out_keys must cover the offsets")
    })?;
    let max_len = max_len.max(longest(o));
    py.detach(|| csr::redo_segments(sg, o, r, src_items, src_keys, oi, ok, max_len));
    Ok(())
}

/// Add this family's functions to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(evaluate_users, m)?)?;
    m.add_function(wrap_pyfunction!(user_metric, m)?)?;
    m.add_function(wrap_pyfunction!(metric_from_hits, m)?)?;
    m.add_function(wrap_pyfunction!(idcg, m)?)?;
    m.add_function(wrap_pyfunction!(expected_first_hit, m)?)?;
    m.add_function(wrap_pyfunction!(trec_order, m)?)?;
    m.add_function(wrap_pyfunction!(lookup, m)?)?;
    m.add_function(wrap_pyfunction!(judged_segments, m)?)?;
    m.add_function(wrap_pyfunction!(tie_segments, m)?)?;
    m.add_function(wrap_pyfunction!(is_grouped, m)?)?;
    m.add_function(wrap_pyfunction!(offsets_of_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(group_rows, m)?)?;
    m.add_function(wrap_pyfunction!(stable_sort_desc, m)?)?;
    m.add_function(wrap_pyfunction!(packed_sort_desc, m)?)?;
    m.add_function(wrap_pyfunction!(build_ranked, m)?)?;
    m.add_function(wrap_pyfunction!(rank_rows, m)?)?;
    m.add_function(wrap_pyfunction!(first_duplicate_segment, m)?)?;
    m.add_function(wrap_pyfunction!(pack_keys, m)?)?;
    m.add_function(wrap_pyfunction!(unpack_ranked, m)?)?;
    m.add_function(wrap_pyfunction!(unpack_grouped, m)?)?;
    m.add_function(wrap_pyfunction!(pack_block, m)?)?;
    m.add_function(wrap_pyfunction!(unpack_block, m)?)?;
    m.add_function(wrap_pyfunction!(redo_segments, m)?)?;
    Ok(())
}
