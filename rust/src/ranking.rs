//! The top-K ranking metrics of every qrels user in one pass (the engine of
//! `evaluate`).
//!
//! Layout: the qrels are a CSR over users with each user's judged items sorted by
//! item code, their grades, and beside them the user's grades sorted descending
//! (for the ideal DCG). The run is a CSR over its users with the items of each user
//! in ranked order (score descending, input order within ties) and their scores.
//! [`evaluate_users`] looks up the grade of each recommended item once and computes
//! every requested metric (each a row of `specs`, columns `S_*`) from that one
//! vector of grades, cut first by the metric's depth (`S_DEPTH`) and judged-only
//! (`S_JUDGED_ONLY`) rules. trec_eval's measures (kinds 14..40) and nDCG with a
//! custom gain table are computed by [`crate::trec_measures`] from the same grades.
//!
//! Every float is computed with the operations of the reference kernels in the
//! same order (no reassociation, no fused multiply-add), and a user's values
//! depend on that user's rows only, so the results are the same for any number of
//! chunks or threads.

use rayon::prelude::*;
use std::cmp::Ordering;

use crate::sort::{lt_floats, quicksort};
use crate::threads;
use crate::trec_measures::{self, GainTable, UserGrades, N_PARAMS};
use crate::trec_ties;

// metric kinds (rows of `specs`)
/// precision@k
pub const PRECISION: i64 = 0;
/// recall@k
pub const RECALL: i64 = 1;
/// F1@k
pub const F1: i64 = 2;
/// hit ratio (hits, pooled over users by the caller)
pub const HIT_RATIO: i64 = 3;
/// success@k (a hit in the top k)
pub const SUCCESS: i64 = 4;
/// average precision
pub const AP: i64 = 5;
/// cumulative gain
pub const CG: i64 = 6;
/// discounted cumulative gain
pub const DCG: i64 = 7;
/// ideal DCG
pub const IDCG: i64 = 8;
/// normalized DCG
pub const NDCG: i64 = 9;
/// reciprocal rank
pub const RR: i64 = 10;
/// R-precision
pub const R_PRECISION: i64 = 11;

// columns of `specs`
/// metric kind
pub const S_KIND: usize = 0;
/// cut-off (<= 0: none)
pub const S_K: usize = 1;
/// relevance threshold
pub const S_THRESHOLD: usize = 2;
/// gain convention
pub const S_GAIN: usize = 3;
/// AP normalisation
pub const S_AP_NORM: usize = 4;
/// ideal order of the IDCG
pub const S_IDEAL: usize = 5;
/// tie rule
pub const S_TIES: usize = 6;
/// 1: users absent from the run are skipped
pub const S_MISSING_SKIP: usize = 7;
/// `S_MISSING_SKIP` values: a user absent from the run scores 0 on every metric
pub const MISSING_ZERO: i64 = 0;
/// ... is left out (nan)
pub const MISSING_SKIP: i64 = 1;
/// ... is evaluated as trec_eval -c evaluates it (counts still count the user)
pub const MISSING_COMPLETE: i64 = 2;
/// rule for users without a relevant item
pub const S_EMPTY: usize = 8;
/// threshold from which gains are earned
pub const S_GAIN_THRESHOLD: usize = 9;
/// 1: items scored <= 0 are never hits
pub const S_POSITIVE_SCORES: usize = 10;
/// depth (trec_eval's `-M`): only the first this many items of the list, in the
/// metric's order, count (<= 0: all)
pub const S_DEPTH: usize = 11;
/// 1: items absent from the qrels or with a negative grade are removed from the
/// list before any metric (trec_eval's `-J`, ir_measures' `judged_only`)
pub const S_JUDGED_ONLY: usize = 12;
/// rank discount of the DCG family (`DISCOUNT_*`)
pub const S_DISCOUNT: usize = 13;
/// denominator of precision at a cut-off (`PRECISION_*`)
pub const S_PRECISION_NORM: usize = 14;
/// denominator of recall at a cut-off (`RECALL_*`)
pub const S_RECALL_NORM: usize = 15;
/// first of the float parameters, each an f64 stored as its bit pattern
pub const S_PARAMS: usize = 16;
/// columns of `specs`
pub const N_SPEC_COLUMNS: usize = S_PARAMS + N_PARAMS;

// conventions
/// gain = grade
pub const GAIN_LINEAR: i64 = 0;
/// gain = 2^grade - 1
pub const GAIN_EXPONENTIAL: i64 = 1;
/// gain = 1
pub const GAIN_BINARY: i64 = 2;
/// trec_eval's gain table: (grade, gain) pairs in the parameters (P0 pairs, then
/// grade, gain, ...), every other grade its own gain (DCG family and the trec kinds)
pub const GAIN_CUSTOM: i64 = 3;
/// users without a relevant item score 0
pub const EMPTY_ZERO: i64 = 0;
/// users without a relevant item are skipped (nan)
pub const EMPTY_SKIP: i64 = 1;
/// users without a relevant item score 1
pub const EMPTY_ONE: i64 = 2;
/// AP over the relevant items
pub const AP_RELEVANT: i64 = 0;
/// AP over min(R, k)
pub const AP_MIN_K: i64 = 1;
/// AP over the hits
pub const AP_HITS: i64 = 2;
/// AP over min(R, the items retrieved in the top k) (LensKit)
pub const AP_MIN_RETRIEVED: i64 = 3;
/// the gain at rank i is divided by log2(i + 1)
pub const DISCOUNT_OFFSET: i64 = 0;
/// ... by log2(max(i, 2)): ranks 1 and 2 both undiscounted (LensKit, the original
/// definition of Jarvelin and Kekalainen)
pub const DISCOUNT_CLIPPED: i64 = 1;
/// precision@k divides by k
pub const PRECISION_K: i64 = 0;
/// ... by min(k, the length of the list) (LensKit)
pub const PRECISION_RETRIEVED: i64 = 1;
/// recall@k divides by R
pub const RECALL_RELEVANT: i64 = 0;
/// ... by min(R, k) (LensKit)
pub const RECALL_MIN_K: i64 = 1;
/// ideal DCG from the judged grades
pub const IDEAL_JUDGED: i64 = 0;
/// ideal DCG from the ranked candidates' grades
pub const IDEAL_CANDIDATES: i64 = 1;
/// ties broken by item id descending, scores compared in float32 (trec_eval)
pub const TIES_TREC: i64 = 0;
/// expected value over the orders of tied blocks
pub const TIES_AVERAGE: i64 = 1;
/// ties in input order
pub const TIES_INPUT: i64 = 2;
/// ties broken by item id ascending
pub const TIES_ID_ASCENDING: i64 = 3;
/// ties broken by item id descending, scores compared as doubles (trec_eval 10.0)
pub const TIES_ID_DESCENDING: i64 = 4;

/// Gain of a grade: 0 below `threshold`, else 1, `2^grade - 1` or the grade.
#[inline(always)]
pub fn gain(grade: f64, threshold: f64, gain: i64) -> f64 {
    if grade < threshold {
        return 0.0;
    }
    if gain == GAIN_BINARY {
        return 1.0;
    }
    if gain == GAIN_EXPONENTIAL {
        return 2.0f64.powf(grade) - 1.0;
    }
    grade
}

/// Position of `item` in `sorted_items[a..b]` (ascending), or -1; short segments
/// are scanned (the last match wins), longer ones binary-searched.
pub fn lookup(sorted_items: &[i32], a: usize, b: usize, item: i32) -> i64 {
    if b - a <= 32 {
        let mut pos = -1i64;
        for (t, &x) in sorted_items[a..b].iter().enumerate() {
            if x == item {
                pos = (a + t) as i64;
            }
        }
        return pos;
    }
    let (mut lo, mut hi) = (a, b);
    while lo < hi {
        let mid = (lo + hi) >> 1;
        if sorted_items[mid] < item {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo < b && sorted_items[lo] == item {
        lo as i64
    } else {
        -1
    }
}

fn float_cmp(a: f64, b: f64) -> Ordering {
    if lt_floats(a, b) {
        Ordering::Less
    } else if lt_floats(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// [`trec_order`] into `perm[..n]`, with a scratch buffer for the tied blocks.
#[allow(clippy::too_many_arguments)]
pub fn trec_order_into(
    scores: &[f64],
    items: &[i32],
    item_keys: &[f64],
    a: usize,
    n: usize,
    rule: i64,
    perm: &mut [usize],
    block: &mut Vec<(f64, usize)>,
) {
    for (j, p) in perm[..n].iter_mut().enumerate() {
        *p = j;
    }
    let ascending = rule == TIES_ID_ASCENDING;
    let mut t = 0;
    while t < n {
        let mut e = t + 1;
        if rule == TIES_TREC {
            while e < n && scores[a + e] as f32 == scores[a + t] as f32 {
                e += 1;
            }
        } else {
            while e < n && scores[a + e] == scores[a + t] {
                e += 1;
            }
        }
        if e - t > 1 {
            block.clear();
            for j in 0..e - t {
                let key = item_keys[items[a + t + j] as usize];
                block.push((if ascending { key } else { -key }, j));
            }
            // stable: equal keys keep their input order (a merge sort in the reference)
            block.sort_by(|x, y| float_cmp(x.0, y.0));
            for (j, &(_, inner)) in block.iter().enumerate() {
                perm[t + j] = t + inner;
            }
        }
        t = e;
    }
}

/// Permutation of rows `a..a+n` (score descending, input order in ties) that breaks
/// ties by `item_keys[items]`: `rule` is [`TIES_TREC`] (id descending, scores
/// compared in single precision, as trec_eval 9 and pytrec_eval), [`TIES_ID_DESCENDING`]
/// (id descending, scores compared as doubles, as trec_eval 10.0) or
/// [`TIES_ID_ASCENDING`] (id ascending, doubles).
pub fn trec_order(
    scores: &[f64],
    items: &[i32],
    item_keys: &[f64],
    a: usize,
    n: usize,
    rule: i64,
) -> Vec<usize> {
    let mut perm = vec![0usize; n];
    let mut block = Vec::new();
    trec_order_into(scores, items, item_keys, a, n, rule, &mut perm, &mut block);
    perm
}

/// DCG of the ideal order: the ranked candidates' grades `grades[..n]` sorted
/// (`ideal == IDEAL_CANDIDATES`, depth `k_eff`) or the user's judged grades
/// `q_desc[qa..qb]` (already descending; depth k, or all of them without a
/// cut-off). `cand` is scratch of at least n elements.
#[allow(clippy::too_many_arguments)]
pub fn idcg(
    ideal: i64,
    k: i64,
    k_eff: i64,
    threshold: f64,
    gain_code: i64,
    grades: &[f64],
    n: usize,
    q_desc: &[f64],
    qa: usize,
    qb: usize,
    cand: &mut [f64],
    disc: &[f64],
) -> f64 {
    let mut idcg = 0.0;
    if ideal == IDEAL_CANDIDATES {
        cand[..n].copy_from_slice(&grades[..n]);
        quicksort(&mut cand[..n]);
        let depth = (k_eff.max(0) as usize).min(n);
        for (j, &d) in disc[..depth].iter().enumerate() {
            idcg += gain(cand[n - 1 - j], threshold, gain_code) * d;
        }
    } else {
        let judged = qb - qa;
        let depth = if k <= 0 {
            judged
        } else {
            (k as usize).min(judged)
        };
        for (j, &d) in disc[..depth].iter().enumerate() {
            idcg += gain(q_desc[qa + j], threshold, gain_code) * d;
        }
    }
    idcg
}

/// P(the first relevant item of a tied block of `m` items, `h` of them relevant,
/// is at offset j) for j < t (a uniformly random order of the block).
pub fn expected_first_hit(m: i64, h: i64, t: i64) -> Vec<f64> {
    let mut out = vec![0.0; t.max(0) as usize];
    if h == 0 {
        return out;
    }
    let mut none_before = 1.0;
    for j in 0..t.min(m - h + 1).max(0) {
        out[j as usize] = none_before * h as f64 / (m - j) as f64;
        none_before *= (m - h - j) as f64 / (m - j) as f64;
    }
    out
}

/// Expected sum of precision at the relevant positions j < `top` over the positions
/// `t..t + q` of a tied block of `size` items, `r` of them relevant, every order of
/// the block equally likely, with `c` relevant items ranked before it: the item at
/// offset i is relevant with probability r / size and, given that, has on average
/// i (r - 1) / (size - 1) relevant items before it in the block (McSherry and Najork).
fn block_precision_sum(t: usize, q: usize, size: usize, r: f64, c: f64) -> f64 {
    let p = r / size as f64;
    let inside = if size > 1 {
        (r - 1.0) / (size - 1) as f64
    } else {
        0.0
    };
    (0..q)
        .map(|i| p * (c + 1.0 + i as f64 * inside) / (t + i + 1) as f64)
        .sum()
}

/// Probabilities of m = lo..=hi relevant items among the first `q` of a tied block of
/// `size` items, `r` relevant (hypergeometric), by the ratio of consecutive terms.
/// The terms are built outwards from the mode (set to 1) and then normalised, so a
/// large block's tail underflows to 0 instead of the whole law.
pub fn hypergeometric(size: usize, r: usize, q: usize) -> (usize, Vec<f64>) {
    let lo = q.saturating_sub(size - r);
    let hi = r.min(q);
    let mode = ((q + 1) * (r + 1) / (size + 2)).clamp(lo, hi);
    // p(m + 1) / p(m)
    let up = |m: usize| ((r - m) * (q - m)) as f64 / ((m + 1) * (size + m + 1 - r - q)) as f64;
    let mut out = vec![0.0; hi - lo + 1];
    out[mode - lo] = 1.0;
    let mut p = 1.0;
    for m in mode..hi {
        p *= up(m);
        out[m + 1 - lo] = p;
    }
    p = 1.0;
    for m in (lo..mode).rev() {
        p /= up(m);
        out[m - lo] = p;
    }
    let total: f64 = out.iter().sum();
    out.iter_mut().for_each(|x| *x /= total);
    (lo, out)
}

/// Average precision's expected value over every order of the tied blocks (each order
/// of a block equally likely): the sum of precision at the relevant positions within
/// `top`, divided by `fixed` (the relevant items, or min(R, k)) or, when None, by the
/// relevant items ranked within `top`. The sum is linear in the orders; the ratio by
/// the hits is not when a block straddles `top`, so there the number of its relevant
/// items within `top` is conditioned on (hypergeometric). Exact, no enumeration.
fn expected_ap(
    grades: &[f64],
    scores: &[f64],
    a: usize,
    n: usize,
    top: usize,
    threshold: f64,
    fixed: Option<f64>,
) -> f64 {
    let mut sum = 0.0;
    let mut c = 0usize; // relevant items of the blocks wholly within top
    let mut t = 0;
    while t < n && t < top {
        let e = block_end(scores, a, t, n);
        let size = e - t;
        let r = grades[t..e].iter().filter(|&&g| g >= threshold).count();
        let q = e.min(top) - t;
        if q < size && fixed.is_none() {
            // the cut-off splits this block: condition on its hits within top
            let (lo, probs) = hypergeometric(size, r, q);
            let mut value = 0.0;
            for (i, &prob) in probs.iter().enumerate() {
                let m = lo + i;
                let hits = c + m;
                if hits > 0 && prob > 0.0 {
                    let within = block_precision_sum(t, q, q, m as f64, c as f64);
                    value += prob * (sum + within) / hits as f64;
                }
            }
            return value;
        }
        sum += block_precision_sum(t, q, size, r as f64, c as f64);
        c += r;
        t = e;
    }
    let norm = fixed.unwrap_or(c as f64);
    if norm > 0.0 {
        sum / norm
    } else {
        0.0
    }
}

/// Effective cut-off: R-precision uses min(R, k); the others k (all n without one).
#[inline]
fn effective_k(kind: i64, k: i64, n_rel: i64, n: usize) -> i64 {
    if kind == R_PRECISION {
        if k <= 0 {
            n_rel
        } else {
            n_rel.min(k)
        }
    } else if k > 0 {
        k
    } else {
        n as i64
    }
}

#[inline]
fn top_of(k_eff: i64, n: usize) -> usize {
    (k_eff.max(0) as usize).min(n)
}

/// Extent of the tied block of scores starting at row `a + t` (exact equality).
#[inline]
fn block_end(scores: &[f64], a: usize, t: usize, n: usize) -> usize {
    let mut e = t + 1;
    while e < n && scores[a + e] == scores[a + t] {
        e += 1;
    }
    e
}

/// `(value, R)` of one metric for one user, walking every position.
///
/// `grades[..n]` is the grade of each ranked item (-inf if unjudged) in the order of
/// this metric's tie rule; relevance is `grade >= threshold` and gains are earned
/// from `gain_threshold` on; `scores[a..a+n]` are the ranked scores (for
/// `ties == TIES_AVERAGE`, which averages relevance and gain over tied blocks);
/// `q_desc[qa..qb]` the user's judged grades, descending. R is the user's number
/// of relevant items. `rel`, `gains`, `cand` are scratch (at least n elements);
/// `disc[j]` is `1 / log2(j + 2)`.
#[allow(clippy::too_many_arguments)]
pub fn user_metric(
    kind: i64,
    k: i64,
    threshold: f64,
    gain_threshold: f64,
    gain_code: i64,
    ap_norm: i64,
    ideal: i64,
    ties: i64,
    grades: &[f64],
    scores: &[f64],
    a: usize,
    n: usize,
    q_desc: &[f64],
    qa: usize,
    qb: usize,
    rel: &mut [f64],
    gains: &mut [f64],
    cand: &mut [f64],
    disc: &[f64],
) -> (f64, f64) {
    let n_rel = q_desc[qa..qb].iter().filter(|&&g| g >= threshold).count() as i64;
    let k_eff = effective_k(kind, k, n_rel, n);
    let top = top_of(k_eff, n);

    // per-position relevance and gain, averaged over tied blocks when asked
    rel[..top].fill(0.0);
    gains[..top].fill(0.0);
    if ties == TIES_AVERAGE {
        let mut t = 0;
        while t < n && t < top {
            let e = block_end(scores, a, t, n);
            let mut r_sum = 0.0;
            let mut g_sum = 0.0;
            for &g in &grades[t..e] {
                if g >= threshold {
                    r_sum += 1.0;
                }
                g_sum += gain(g, gain_threshold, gain_code);
            }
            let size = (e - t) as f64;
            for j in t..e.min(top) {
                rel[j] = r_sum / size;
                gains[j] = g_sum / size;
            }
            t = e;
        }
    } else {
        for j in 0..top {
            if grades[j] >= threshold {
                rel[j] = 1.0;
            }
            gains[j] = gain(grades[j], gain_threshold, gain_code);
        }
    }

    let mut hits = 0.0;
    for &r in &rel[..top] {
        hits += r;
    }
    let aux = n_rel as f64;
    let ratio = |num: f64, den: i64| if den > 0 { num / den as f64 } else { 0.0 };

    match kind {
        PRECISION => (ratio(hits, k_eff), aux),
        R_PRECISION | RECALL => (ratio(hits, n_rel), aux),
        F1 => (ratio(2.0 * hits, k_eff + n_rel), aux),
        HIT_RATIO => (hits, aux),
        CG => {
            let mut s = 0.0;
            for &g in &gains[..top] {
                s += g;
            }
            (s, aux)
        }
        DCG | NDCG | IDCG => {
            let mut dcg = 0.0;
            for j in 0..top {
                dcg += gains[j] * disc[j];
            }
            if kind == DCG {
                return (dcg, aux);
            }
            let ideal_dcg = idcg(
                ideal,
                k,
                k_eff,
                gain_threshold,
                gain_code,
                grades,
                n,
                q_desc,
                qa,
                qb,
                cand,
                disc,
            );
            if kind == IDCG {
                return (ideal_dcg, aux);
            }
            (
                if ideal_dcg > 0.0 {
                    dcg / ideal_dcg
                } else {
                    0.0
                },
                aux,
            )
        }
        SUCCESS | RR => {
            if ties != TIES_AVERAGE {
                for (j, &r) in rel[..top].iter().enumerate() {
                    if r > 0.0 {
                        let v = if kind == SUCCESS {
                            1.0
                        } else {
                            1.0 / (j + 1) as f64
                        };
                        return (v, aux);
                    }
                }
                return (0.0, aux);
            }
            // expected value over random orders of tied blocks
            let mut t = 0;
            let mut value = 0.0;
            while t < n && t < top {
                let e = block_end(scores, a, t, n);
                let h = grades[t..e].iter().filter(|&&g| g >= threshold).count() as i64;
                if h > 0 {
                    let first = expected_first_hit((e - t) as i64, h, (e.min(top) - t) as i64);
                    for (j, &p) in first.iter().enumerate() {
                        let w = if kind == SUCCESS {
                            1.0
                        } else {
                            1.0 / (t + j + 1) as f64
                        };
                        value += p * w;
                    }
                    return (value, aux);
                }
                t = e;
            }
            (value, aux)
        }
        AP if ties == TIES_AVERAGE => {
            let fixed = if ap_norm == AP_RELEVANT {
                Some(n_rel as f64)
            } else if ap_norm == AP_MIN_K {
                Some(if k > 0 { n_rel.min(k_eff) } else { n_rel } as f64)
            } else {
                None
            };
            (
                expected_ap(grades, scores, a, n, top, threshold, fixed),
                aux,
            )
        }
        AP => {
            let mut s = 0.0;
            let mut seen = 0.0;
            for (j, &r) in rel[..top].iter().enumerate() {
                if r > 0.0 {
                    seen += 1.0;
                    s += seen / (j + 1) as f64;
                }
            }
            let norm = if ap_norm == AP_RELEVANT {
                n_rel as f64
            } else if ap_norm == AP_MIN_K {
                if k > 0 {
                    n_rel.min(k_eff) as f64
                } else {
                    n_rel as f64
                }
            } else {
                hits
            };
            (if norm > 0.0 { s / norm } else { 0.0 }, aux)
        }
        _ => (f64::NAN, aux),
    }
}

/// Value of one metric for one user from the positions of its relevant items.
///
/// `hpos[..h]` are the ranks (0-based, ascending) of the recommended items whose
/// grade is at least `threshold` and `hgr[..h]` their grades: every metric here
/// only sums over those, so a user costs O(hits), not O(k). Terms are added in rank
/// order, so sums equal a walk over every position. Kinds other than the ones
/// named are computed as the DCG family (as in the reference kernel).
#[allow(clippy::too_many_arguments)]
pub fn metric_from_hits(
    kind: i64,
    k: i64,
    threshold: f64,
    gain_code: i64,
    ap_norm: i64,
    ideal: i64,
    grades: &[f64],
    n: usize,
    hpos: &[usize],
    hgr: &[f64],
    h: usize,
    n_rel: i64,
    q_desc: &[f64],
    qa: usize,
    qb: usize,
    cand: &mut [f64],
    disc: &[f64],
) -> f64 {
    let k_eff = effective_k(kind, k, n_rel, n);
    let top = top_of(k_eff, n);
    let mut hits = 0usize;
    while hits < h && hpos[hits] < top {
        hits += 1;
    }
    let ratio = |num: f64, den: i64| if den > 0 { num / den as f64 } else { 0.0 };
    match kind {
        PRECISION => return ratio(hits as f64, k_eff),
        R_PRECISION | RECALL => return ratio(hits as f64, n_rel),
        F1 => return ratio(2.0 * hits as f64, k_eff + n_rel),
        HIT_RATIO => return hits as f64,
        SUCCESS => return if hits > 0 { 1.0 } else { 0.0 },
        RR => {
            return if hits > 0 {
                1.0 / (hpos[0] + 1) as f64
            } else {
                0.0
            }
        }
        AP => {
            let mut s = 0.0;
            for (i, &p) in hpos[..hits].iter().enumerate() {
                s += (i as f64 + 1.0) / (p + 1) as f64;
            }
            let norm = if ap_norm == AP_RELEVANT {
                n_rel as f64
            } else if ap_norm == AP_MIN_K {
                if k > 0 {
                    n_rel.min(k_eff) as f64
                } else {
                    n_rel as f64
                }
            } else {
                hits as f64
            };
            return if norm > 0.0 { s / norm } else { 0.0 };
        }
        CG => {
            let mut s = 0.0;
            for &g in &hgr[..hits] {
                s += gain(g, threshold, gain_code);
            }
            return s;
        }
        _ => {}
    }
    // DCG, IDCG, NDCG
    let mut dcg = 0.0;
    for i in 0..hits {
        dcg += gain(hgr[i], threshold, gain_code) * disc[hpos[i]];
    }
    if kind == DCG {
        return dcg;
    }
    let ideal_dcg = idcg(
        ideal, k, k_eff, threshold, gain_code, grades, n, q_desc, qa, qb, cand, disc,
    );
    if kind == IDCG {
        return ideal_dcg;
    }
    if ideal_dcg > 0.0 {
        dcg / ideal_dcg
    } else {
        0.0
    }
}

/// The qrels CSR: per user `offsets[u]..offsets[u+1]` rows of judged `items`
/// (ascending codes) with their `grades`, and `desc`, each user's grades descending.
#[derive(Clone, Copy)]
pub struct Judged<'a> {
    /// user offsets (n_users + 1)
    pub offsets: &'a [i64],
    /// judged item codes, ascending within each user
    pub items: &'a [i32],
    /// grade of each judged item
    pub grades: &'a [f64],
    /// each user's grades, descending
    pub desc: &'a [f64],
}

/// The run CSR: per user `offsets[u]..offsets[u+1]` rows of `items` in ranked order
/// with their `scores`; `keys[item]` breaks ties for the trec and id-ascending rules
/// (may be empty when no metric needs them).
#[derive(Clone, Copy)]
pub struct Ranked<'a> {
    /// user offsets (n_users + 1)
    pub offsets: &'a [i64],
    /// ranked item codes
    pub items: &'a [i32],
    /// scores, descending within each user
    pub scores: &'a [f64],
    /// tie-break key per run item code (may be empty)
    pub keys: &'a [f64],
}

/// The judged rows of one user keyed by run item code: an open-addressing table
/// sized by the most judged items of a user, each slot stamped with its user (so
/// it is never cleared). Most recommended items are unjudged: the table is kept
/// sparse (16 slots per judged item, up to 4096 slots), so that a lookup almost
/// always ends at its first, empty slot, a branch the CPU predicts.
struct JudgedTable {
    stamp: Vec<usize>,
    key: Vec<i32>,
    row: Vec<usize>,
    shift: u32,
}

impl JudgedTable {
    fn new(max_judged: usize) -> Self {
        let sparse = (16 * max_judged).min(1 << 12);
        let size = (2 * max_judged).max(sparse).max(2).next_power_of_two();
        JudgedTable {
            stamp: vec![usize::MAX; size],
            key: vec![0; size],
            row: vec![0; size],
            shift: 64 - size.trailing_zeros(),
        }
    }

    #[inline(always)]
    fn home(&self, key: i32) -> usize {
        ((key as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Row of `key` for user `u` (a later insert of the same key wins).
    #[inline]
    fn insert(&mut self, u: usize, key: i32, row: usize) {
        let mask = self.stamp.len() - 1;
        let mut s = self.home(key);
        while self.stamp[s] == u && self.key[s] != key {
            s = (s + 1) & mask;
        }
        self.stamp[s] = u;
        self.key[s] = key;
        self.row[s] = row;
    }

    #[inline]
    fn get(&self, u: usize, key: i32) -> Option<usize> {
        let mask = self.stamp.len() - 1;
        let mut s = self.home(key);
        while self.stamp[s] == u {
            if self.key[s] == key {
                return Some(self.row[s]);
            }
            s = (s + 1) & mask;
        }
        None
    }
}

/// Per-chunk scratch of [`evaluate_users`], each buffer as long as the longest list.
struct Scratch {
    input: Vec<f64>,
    trec: Vec<f64>,
    ascending: Vec<f64>,
    descending: Vec<f64>,
    positive: Vec<f64>,
    /// a metric's list after depth and judged-only, and its scores
    view: Vec<f64>,
    view_scores: Vec<f64>,
    rel: Vec<f64>,
    gains: Vec<f64>,
    cand: Vec<f64>,
    hpos: Vec<usize>,
    hgr: Vec<f64>,
    /// positions of the judged items in the list, ascending
    jpos: Vec<usize>,
    perm: Vec<usize>,
    block: Vec<(f64, usize)>,
    levels: GainTable,
    judged: Vec<i32>,
    /// one bit per run item code below `max_judged_code + 1`: the user's judged items
    judged_bits: Vec<u64>,
    table: JudgedTable,
}

impl Scratch {
    fn new(max_len: usize, max_judged: usize, n_judged_codes: usize) -> Self {
        let m = max_len.max(1);
        Scratch {
            input: vec![0.0; m],
            trec: vec![0.0; m],
            ascending: vec![0.0; m],
            descending: vec![0.0; m],
            positive: vec![0.0; m],
            view: vec![0.0; m],
            view_scores: vec![0.0; m],
            rel: vec![0.0; m],
            gains: vec![0.0; m],
            cand: vec![0.0; m],
            hpos: vec![0; m],
            hgr: vec![0.0; m],
            jpos: Vec::with_capacity(m),
            perm: vec![0; m],
            block: Vec::new(),
            levels: GainTable::default(),
            judged: Vec::with_capacity(max_judged),
            judged_bits: vec![0; n_judged_codes.div_ceil(64)],
            table: JudgedTable::new(max_judged),
        }
    }
}

/// Which buffer holds the grades of a metric's order.
#[derive(Clone, Copy, PartialEq)]
enum Order {
    Input,
    Trec,
    Ascending,
    Descending,
}

/// The kind, cut-off and AP normalisation that compute a metric under the
/// normalisers of `S_PRECISION_NORM`, `S_RECALL_NORM` and `AP_MIN_RETRIEVED`, for a
/// user with `n_rel` relevant items and a list of `len` items: precision over
/// min(k, len) is precision at the cut-off min(k, len) (the list holds no more);
/// recall over min(R, k) is precision@k when R > k, else recall@k; AP over
/// min(R, retrieved) is AP over min(R, k') at the cut-off k' = min(k, len) (`len`
/// without a cut-off). The same hits, so the same float as a direct formula.
pub fn normalized_form(
    kind: i64,
    k: i64,
    ap_norm: i64,
    precision_norm: i64,
    recall_norm: i64,
    n_rel: i64,
    len: usize,
) -> (i64, i64, i64) {
    let len = len as i64;
    if kind == PRECISION && precision_norm == PRECISION_RETRIEVED && k > len {
        return (kind, len, ap_norm);
    }
    if kind == RECALL && recall_norm == RECALL_MIN_K && k > 0 && n_rel > k {
        return (PRECISION, k, ap_norm);
    }
    if kind == AP && ap_norm == AP_MIN_RETRIEVED {
        let k = if k > 0 { k.min(len) } else { len };
        return (kind, k, AP_MIN_K);
    }
    (kind, k, ap_norm)
}

/// The metrics of qrels users `u0..u1` into `values` and `aux` (rows of n_metrics).
#[allow(clippy::too_many_arguments)]
fn evaluate_range(
    q: &Judged<'_>,
    r: &Ranked<'_>,
    item_map: &[i32],
    user_map: &[i32],
    specs: &[i64],
    discounts: [&[f64]; 2],
    u0: usize,
    u1: usize,
    values: &mut [f64],
    aux: &mut [f64],
    s: &mut Scratch,
) {
    let n_metrics = specs.len() / N_SPEC_COLUMNS;
    let spec = |m: usize, c: usize| specs[m * N_SPEC_COLUMNS + c];
    let mut need_trec = false;
    let mut need_ascending = false;
    let mut need_descending = false;
    for m in 0..n_metrics {
        need_trec |= spec(m, S_TIES) == TIES_TREC;
        need_ascending |= spec(m, S_TIES) == TIES_ID_ASCENDING;
        need_descending |= spec(m, S_TIES) == TIES_ID_DESCENDING;
    }
    need_trec &= !r.keys.is_empty();
    need_ascending &= !r.keys.is_empty();
    need_descending &= !r.keys.is_empty();
    for (u, &ru) in user_map.iter().enumerate().take(u1).skip(u0) {
        let out = (u - u0) * n_metrics;
        let (qa, qb) = (q.offsets[u] as usize, q.offsets[u + 1] as usize);
        let (mut a, mut n) = (0usize, 0usize);
        s.judged.clear();
        if ru >= 0 {
            a = r.offsets[ru as usize] as usize;
            n = r.offsets[ru as usize + 1] as usize - a;
            // the run codes of the judged items first: independent loads from the
            // item map (a cache miss each), then the inserts
            s.judged
                .extend(q.items[qa..qb].iter().map(|&i| item_map[i as usize]));
            for (t, &ri) in (qa..qb).zip(&s.judged) {
                if ri >= 0 {
                    s.table.insert(u, ri, t);
                    s.judged_bits[ri as usize >> 6] |= 1 << (ri & 63);
                }
            }
        }
        let bits = &s.judged_bits;
        s.jpos.clear();
        for (j, (g, &item)) in s.input[..n].iter_mut().zip(&r.items[a..a + n]).enumerate() {
            // unjudged items (most of them: one bit tells) are below every threshold
            let c = item as usize;
            let judged = c < bits.len() * 64 && bits[c >> 6] & (1 << (c & 63)) != 0;
            *g = match judged.then(|| s.table.get(u, item)).flatten() {
                Some(t) => {
                    s.jpos.push(j);
                    q.grades[t]
                }
                None => f64::NEG_INFINITY,
            };
        }
        for &ri in &s.judged {
            if ri >= 0 {
                s.judged_bits[ri as usize >> 6] = 0;
            }
        }
        let scores = &r.scores[a..a + n];
        let mut trec_differs = false;
        if need_trec && n > 1 {
            // no early exit: a pass that vectorizes (ties are rare)
            trec_differs = scores
                .windows(2)
                .fold(false, |tie, w| tie | (w[1] as f32 == w[0] as f32));
            if trec_differs {
                trec_order_into(
                    r.scores,
                    r.items,
                    r.keys,
                    a,
                    n,
                    TIES_TREC,
                    &mut s.perm,
                    &mut s.block,
                );
                for j in 0..n {
                    s.trec[j] = s.input[s.perm[j]];
                }
            }
        }
        let double_ties =
            (need_ascending || need_descending) && n > 1 && scores.windows(2).any(|w| w[1] == w[0]);
        let ascending_differs = need_ascending && double_ties;
        let descending_differs = need_descending && double_ties;
        for (rule, differs) in [
            (TIES_ID_ASCENDING, ascending_differs),
            (TIES_ID_DESCENDING, descending_differs),
        ] {
            if !differs {
                continue;
            }
            trec_order_into(
                r.scores,
                r.items,
                r.keys,
                a,
                n,
                rule,
                &mut s.perm,
                &mut s.block,
            );
            let out = if rule == TIES_ID_ASCENDING {
                &mut s.ascending
            } else {
                &mut s.descending
            };
            for (o, &p) in out[..n].iter_mut().zip(&s.perm[..n]) {
                *o = s.input[p];
            }
        }
        let mut rel_threshold = 0.0; // threshold of the cached n_rel, valid when have_rel
        let mut have_rel = false;
        let mut n_rel = 0i64;
        let mut hits_threshold = 0.0; // threshold and order of the cached hit list
        let mut hits_key = (Order::Input, false, 0usize, false); // (order, positive, depth, judged only)
        let mut have_hits = false;
        let any_nonpositive = scores.iter().fold(false, |any, &x| any | (x <= 0.0));
        let mut h = 0usize;
        for m in 0..n_metrics {
            let threshold = spec(m, S_THRESHOLD) as f64;
            if !have_rel || threshold != rel_threshold {
                // the grades are sorted descending: count the leading ones
                n_rel = q.desc[qa..qb]
                    .iter()
                    .take_while(|&&g| g >= threshold)
                    .count() as i64;
                rel_threshold = threshold;
                have_rel = true;
            }
            aux[out + m] = n_rel as f64;
            let kind = spec(m, S_KIND);
            // counts (num_ret, num_rel, ...) are never skipped or set to 1
            let counts = trec_measures::is_count_kind(kind);
            let empty = if n_rel == 0 && !counts {
                spec(m, S_EMPTY)
            } else {
                EMPTY_ZERO
            };
            if (ru < 0 && spec(m, S_MISSING_SKIP) == MISSING_SKIP) || empty == EMPTY_SKIP {
                values[out + m] = f64::NAN;
                continue;
            }
            // hit_ratio is one pooled ratio: an empty user adds 0 hits and 0 items
            if empty == EMPTY_ONE && kind != HIT_RATIO {
                values[out + m] = 1.0;
                continue;
            }
            let trec_kind = trec_measures::is_trec_kind(kind);
            let gain_code = spec(m, S_GAIN);
            // the DCG family sums gains, earned from the gain threshold on
            let is_gain = kind == CG || kind == DCG || kind == IDCG || kind == NDCG;
            let custom_dcg =
                gain_code == GAIN_CUSTOM && (kind == DCG || kind == IDCG || kind == NDCG);
            let gain_threshold = if is_gain {
                spec(m, S_GAIN_THRESHOLD) as f64
            } else {
                threshold
            };
            let ties = spec(m, S_TIES);
            let mut order = Order::Input;
            if ties == TIES_TREC && trec_differs {
                order = Order::Trec;
            } else if ties == TIES_ID_ASCENDING && ascending_differs {
                order = Order::Ascending;
            } else if ties == TIES_ID_DESCENDING && descending_differs {
                order = Order::Descending;
            }
            let Scratch {
                input,
                trec,
                ascending,
                descending,
                positive: positive_buf,
                view,
                view_scores,
                rel,
                gains,
                cand,
                hpos,
                hgr,
                jpos,
                levels,
                ..
            } = &mut *s;
            let base: &[f64] = match order {
                Order::Input => input,
                Order::Trec => trec,
                Order::Ascending => ascending,
                Order::Descending => descending,
            };
            let mut grades: &[f64] = &base[..n];
            let mut list_scores: &[f64] = scores;
            // depth (-M) first, then the judged items only (-J)
            let depth = spec(m, S_DEPTH);
            let depth = if depth > 0 {
                (depth as usize).min(n)
            } else {
                n
            };
            let judged_only = spec(m, S_JUDGED_ONLY) == 1;
            if judged_only || depth < n {
                let mut w = 0;
                for (&g, &x) in base[..depth].iter().zip(&scores[..depth]) {
                    if !judged_only || g >= 0.0 {
                        view[w] = g;
                        view_scores[w] = x;
                        w += 1;
                    }
                }
                grades = &view[..w];
                list_scores = &view_scores[..w];
            }
            let len = grades.len();
            let mut positive = false;
            if spec(m, S_POSITIVE_SCORES) == 1 && any_nonpositive && !is_gain {
                // an item scored <= 0 is never a hit (torchmetrics); a tied block
                // shares its score, so the input-order scores hold for every order
                for j in 0..len {
                    positive_buf[j] = if list_scores[j] > 0.0 {
                        grades[j]
                    } else {
                        f64::NEG_INFINITY
                    };
                }
                grades = &positive_buf[..len];
                positive = true;
            }
            let k = spec(m, S_K);
            if trec_kind || custom_dcg {
                let mut params = [0.0f64; N_PARAMS];
                for (j, p) in params.iter_mut().enumerate() {
                    *p = f64::from_bits(spec(m, S_PARAMS + j) as u64);
                }
                if trec_kind && ru < 0 && spec(m, S_MISSING_SKIP) != MISSING_COMPLETE {
                    values[out + m] = 0.0; // every metric 0, the counts too
                    continue;
                }
                if trec_kind && ru < 0 {
                    values[out + m] = trec_measures::missing_user_measure(
                        kind,
                        &q.desc[qa..qb],
                        threshold,
                        k,
                        judged_only,
                        gain_code == GAIN_CUSTOM,
                        &params,
                        levels,
                    );
                    continue;
                }
                // graded RBP earns its gains from the gain threshold on (gain_grades);
                // binary RBP (P1 = 1) is relevance at the threshold
                let u = UserGrades {
                    ranked: grades,
                    judged: &q.desc[qa..qb],
                    threshold: if kind == trec_measures::RBP && params[1] != 1.0 {
                        spec(m, S_GAIN_THRESHOLD) as f64
                    } else {
                        threshold
                    },
                };
                values[out + m] = if ties == TIES_AVERAGE {
                    // nan for the kinds without a closed form (refused by the Python layer)
                    trec_ties::expected_measure(
                        kind,
                        &u,
                        list_scores,
                        k,
                        gain_code == GAIN_CUSTOM,
                        custom_dcg,
                        &params,
                        levels,
                    )
                } else if custom_dcg {
                    trec_measures::custom_dcg(kind, &u, k, &params, levels)
                } else {
                    trec_measures::user_measure(
                        kind,
                        &u,
                        k,
                        gain_code == GAIN_CUSTOM,
                        &params,
                        levels,
                    )
                };
                continue;
            }
            let (kind, k, ap_norm) = normalized_form(
                kind,
                k,
                spec(m, S_AP_NORM),
                spec(m, S_PRECISION_NORM),
                spec(m, S_RECALL_NORM),
                n_rel,
                len,
            );
            let ideal = spec(m, S_IDEAL);
            let disc = discounts[(spec(m, S_DISCOUNT) == DISCOUNT_CLIPPED) as usize];
            if ties == TIES_AVERAGE {
                let (v, _) = user_metric(
                    kind,
                    k,
                    threshold,
                    gain_threshold,
                    gain_code,
                    ap_norm,
                    ideal,
                    ties,
                    grades,
                    list_scores,
                    0,
                    len,
                    q.desc,
                    qa,
                    qb,
                    rel,
                    gains,
                    cand,
                    disc,
                );
                values[out + m] = v;
                continue;
            }
            let key = (order, positive, depth, judged_only);
            if !have_hits || gain_threshold != hits_threshold || key != hits_key {
                h = 0;
                if order == Order::Input && !judged_only && gain_threshold > f64::NEG_INFINITY {
                    // the list in input order (or its first `depth` rows, or with
                    // -inf for items scored <= 0): hits lie among the judged rows,
                    // every other row being -inf
                    for &j in jpos.iter().take_while(|&&j| j < len) {
                        let g = grades[j];
                        if g >= gain_threshold {
                            hpos[h] = j;
                            hgr[h] = g;
                            h += 1;
                        }
                    }
                } else {
                    for (j, &g) in grades.iter().enumerate() {
                        if g >= gain_threshold {
                            hpos[h] = j;
                            hgr[h] = g;
                            h += 1;
                        }
                    }
                }
                hits_threshold = gain_threshold;
                hits_key = key;
                have_hits = true;
            }
            values[out + m] = metric_from_hits(
                kind,
                k,
                gain_threshold,
                gain_code,
                ap_norm,
                ideal,
                grades,
                len,
                hpos,
                hgr,
                h,
                n_rel,
                q.desc,
                qa,
                qb,
                cand,
                disc,
            );
        }
    }
}

/// Rows (judged plus recommended) below which [`evaluate_users`] runs on the calling
/// thread.
pub const PARALLEL_ROWS: usize = 1 << 16;

/// Every metric (rows of `specs`, `N_SPEC_COLUMNS` columns each, row-major) for
/// every qrels user: `(values, aux)`, each `n_users * n_metrics` row-major, with
/// aux the user's relevant items per metric and values nan where a rule skips the
/// user.
///
/// `item_map` maps qrels item codes to run item codes (-1 when no user was
/// recommended the item); `user_map[u]` is the run user of qrels user u (-1 when
/// absent from the run). The grade of each recommended item is found through a
/// table of the user's judged items keyed by run item code (scratch bounded by the
/// most judged items of a user): O(judged + recommended) per user. Users are split
/// into `n_chunks` contiguous chunks, each with scratch buffers of `max_len` (at
/// least the longest list); `disc[j] = 1 / log2(j + 2)` covers the longest list
/// and the most judged items of a user. The values do not depend on `n_chunks`.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_users(
    q: &Judged<'_>,
    r: &Ranked<'_>,
    item_map: &[i32],
    user_map: &[i32],
    specs: &[i64],
    max_len: usize,
    n_chunks: usize,
    disc: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let n_users = q.offsets.len().saturating_sub(1);
    let n_metrics = specs.len() / N_SPEC_COLUMNS;
    let mut columns = vec![0.0; n_users * n_metrics];
    let mut aux_columns = vec![0.0; n_users * n_metrics];
    evaluate_users_columns_into(
        q,
        r,
        item_map,
        user_map,
        specs,
        max_len,
        n_chunks,
        disc,
        &mut columns,
        &mut aux_columns,
    );
    let rows = |cols: &[f64]| -> Vec<f64> {
        (0..n_users * n_metrics)
            .map(|i| cols[(i % n_metrics) * n_users + i / n_metrics])
            .collect()
    };
    (rows(&columns), rows(&aux_columns))
}

/// The sizes of a chunk's [`Scratch`]: the most judged items of a user, and the
/// bound below which the run item codes of judged items lie.
fn scratch_sizes(q: &Judged<'_>, item_map: &[i32]) -> (usize, usize) {
    let max_judged = q
        .offsets
        .windows(2)
        .map(|w| (w[1] - w[0]) as usize)
        .max()
        .unwrap_or(0);
    let n_judged_codes = item_map
        .iter()
        .map(|&c| c as i64 + 1)
        .max()
        .unwrap_or(0)
        .max(0) as usize;
    (max_judged, n_judged_codes)
}

/// Users evaluated at a time by [`evaluate_users_columns_into`] before their values
/// go to the columns.
const COLUMN_BLOCK: usize = 512;

/// The values of [`evaluate_users`] with `values` and `aux` column-major: `n_metrics`
/// columns of `n_users` values each (a metric's values contiguous, as every
/// pass over one metric reads them). Users are evaluated a block at a time into
/// row-major scratch, then copied to the columns; the values are the same.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_users_columns_into(
    q: &Judged<'_>,
    r: &Ranked<'_>,
    item_map: &[i32],
    user_map: &[i32],
    specs: &[i64],
    max_len: usize,
    n_chunks: usize,
    disc: &[f64],
    values: &mut [f64],
    aux: &mut [f64],
) {
    let n_users = q.offsets.len().saturating_sub(1);
    let n_metrics = specs.len() / N_SPEC_COLUMNS;
    if n_users == 0 || n_metrics == 0 {
        return;
    }
    let (max_judged, n_judged_codes) = scratch_sizes(q, item_map);
    // the clipped discount 1 / log2(max(i, 2)) at 0-based position j: 1, then disc[j - 1]
    let clipped: Vec<f64> =
        if (0..n_metrics).any(|m| specs[m * N_SPEC_COLUMNS + S_DISCOUNT] == DISCOUNT_CLIPPED) {
            std::iter::once(1.0)
                .chain(disc.iter().copied())
                .take(disc.len())
                .collect()
        } else {
            Vec::new()
        };
    let discounts = [disc, &clipped[..]];
    let n_chunks = n_chunks.max(1).min(n_users);
    let bounds: Vec<usize> = (0..=n_chunks).map(|c| n_users * c / n_chunks).collect();
    // each column split at the chunk bounds: a chunk holds one piece of every column
    type Pieces<'a> = Vec<&'a mut [f64]>;
    let mut parts: Vec<(usize, usize, Pieces<'_>, Pieces<'_>)> = (0..n_chunks)
        .map(|c| (bounds[c], bounds[c + 1], Vec::new(), Vec::new()))
        .collect();
    for (col_v, col_a) in values.chunks_mut(n_users).zip(aux.chunks_mut(n_users)) {
        let (mut rest_v, mut rest_a) = (col_v, col_a);
        for part in parts.iter_mut() {
            let len = part.1 - part.0;
            let (v, tv) = rest_v.split_at_mut(len);
            let (x, ta) = rest_a.split_at_mut(len);
            part.2.push(v);
            part.3.push(x);
            rest_v = tv;
            rest_a = ta;
        }
    }
    let run = |(u0, u1, mut cv, mut ca): (usize, usize, Pieces<'_>, Pieces<'_>),
               s: &mut Scratch| {
        let mut bv = vec![0.0; COLUMN_BLOCK * n_metrics];
        let mut ba = vec![0.0; COLUMN_BLOCK * n_metrics];
        let mut b0 = u0;
        while b0 < u1 {
            let b1 = (b0 + COLUMN_BLOCK).min(u1);
            let len = (b1 - b0) * n_metrics;
            let (v, x) = (&mut bv[..len], &mut ba[..len]);
            evaluate_range(q, r, item_map, user_map, specs, discounts, b0, b1, v, x, s);
            for m in 0..n_metrics {
                let (dv, da) = (&mut cv[m][b0 - u0..b1 - u0], &mut ca[m][b0 - u0..b1 - u0]);
                for (t, (ov, oa)) in dv.iter_mut().zip(da.iter_mut()).enumerate() {
                    *ov = v[t * n_metrics + m];
                    *oa = x[t * n_metrics + m];
                }
            }
            b0 = b1;
        }
    };
    let rows = q.items.len() + r.items.len();
    if n_chunks == 1 || rows < PARALLEL_ROWS {
        // one scratch for every chunk: the values do not depend on the split
        let mut s = Scratch::new(max_len, max_judged, n_judged_codes);
        for part in parts {
            run(part, &mut s);
        }
    } else {
        threads::install(|| {
            parts.into_par_iter().for_each(|part| {
                let mut s = Scratch::new(max_len, max_judged, n_judged_codes);
                run(part, &mut s);
            })
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disc(n: usize) -> Vec<f64> {
        (0..n).map(|j| 1.0 / ((j as f64) + 2.0).log2()).collect()
    }

    fn spec(kind: i64, k: i64, ties: i64) -> [i64; N_SPEC_COLUMNS] {
        let mut s = [0i64; N_SPEC_COLUMNS];
        s[S_KIND] = kind;
        s[S_K] = k;
        s[S_THRESHOLD] = 1;
        s[S_GAIN_THRESHOLD] = 1;
        s[S_TIES] = ties;
        s
    }

    #[test]
    fn gains_follow_the_conventions() {
        assert_eq!(gain(3.0, 1.0, GAIN_LINEAR), 3.0);
        assert_eq!(gain(3.0, 1.0, GAIN_EXPONENTIAL), 7.0);
        assert_eq!(gain(3.0, 1.0, GAIN_BINARY), 1.0);
        assert_eq!(gain(0.0, 1.0, GAIN_LINEAR), 0.0);
        assert_eq!(gain(f64::NEG_INFINITY, 0.0, GAIN_BINARY), 0.0);
    }

    #[test]
    fn lookup_scans_and_searches() {
        let short = [1, 3, 5];
        assert_eq!(lookup(&short, 0, 3, 3), 1);
        assert_eq!(lookup(&short, 0, 3, 4), -1);
        let long: Vec<i32> = (0..100).map(|x| 2 * x).collect();
        assert_eq!(lookup(&long, 0, 100, 88), 44);
        assert_eq!(lookup(&long, 0, 100, 89), -1);
        assert_eq!(lookup(&long, 50, 100, 10), -1);
    }

    #[test]
    fn trec_order_breaks_ties_by_key() {
        // scores 0.5, 0.5, 0.5, 0.1 with keys 0, 2, 1: descending keys 2, 1, 0
        let scores = [0.5, 0.5, 0.5, 0.1];
        let items = [0, 1, 2, 3];
        let keys = [0.0, 2.0, 1.0, 3.0];
        let order =
            |s: &[f64], k: &[f64], rule| trec_order(s, &items[..s.len()], k, 0, s.len(), rule);
        assert_eq!(order(&scores, &keys, TIES_TREC), [1, 2, 0, 3]);
        assert_eq!(order(&scores, &keys, TIES_ID_DESCENDING), [1, 2, 0, 3]);
        assert_eq!(order(&scores, &keys, TIES_ID_ASCENDING), [0, 2, 1, 3]);
        // equal in float32 only: tied for trec_eval 9's rule, not for the double rules
        let close = [1.0, 1.0 + 1e-12];
        let keys = [0.0, 1.0];
        assert_eq!(order(&close, &keys, TIES_TREC), [1, 0]);
        assert_eq!(order(&close, &keys, TIES_ID_DESCENDING), [0, 1]);
        assert_eq!(order(&close, &keys, TIES_ID_ASCENDING), [0, 1]);
    }

    #[test]
    fn expected_ap_of_one_relevant_item_in_a_tie() {
        // the relevant item at each of the 4 ranks equally often
        let grades = [1.0, 0.0, 0.0, 0.0];
        let scores = [0.5; 4];
        let want = (1.0 + 0.5 + 1.0 / 3.0 + 0.25) / 4.0;
        assert!((expected_ap(&grades, &scores, 0, 4, 4, 1.0, Some(1.0)) - want).abs() < 1e-15);
        // normalised by the hits within the top 2: 1 / rank when it is there, else 0
        let top2 = expected_ap(&grades, &scores, 0, 4, 2, 1.0, None);
        assert!((top2 - (1.0 + 0.5) / 4.0).abs() < 1e-15);
    }

    #[test]
    fn hypergeometric_sums_to_one() {
        for (size, r, q) in [(10, 3, 4), (5, 5, 2), (7, 0, 3), (6, 2, 6), (40, 17, 23)] {
            let (lo, p) = hypergeometric(size, r, q);
            assert!(
                (p.iter().sum::<f64>() - 1.0).abs() < 1e-12,
                "{size} {r} {q}"
            );
            assert_eq!(lo, q.saturating_sub(size - r));
        }
        // a block whose least likely counts underflow: the law keeps its mass and its
        // mean q r / size (its first term, C(1000, 0) C(1000, 1000) / C(2000, 1000), is
        // below the smallest double)
        let (lo, p) = hypergeometric(2000, 1000, 1000);
        let mean: f64 = p.iter().enumerate().map(|(i, x)| (lo + i) as f64 * x).sum();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((mean - 500.0).abs() < 1e-9, "{mean}");
        // exact small case: 3 relevant of 5, 2 drawn: C(3,m) C(2,2-m) / C(5,2)
        let (lo, p) = hypergeometric(5, 3, 2);
        assert_eq!(lo, 0);
        for (m, want) in [0.1, 0.6, 0.3].iter().enumerate() {
            assert!((p[m] - want).abs() < 1e-15, "{m}: {}", p[m]);
        }
    }

    #[test]
    fn expected_first_hit_sums_to_one() {
        let p = expected_first_hit(4, 2, 4);
        assert_eq!(p.len(), 4);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert_eq!(p[3], 0.0);
        assert_eq!(expected_first_hit(3, 0, 2), vec![0.0, 0.0]);
    }

    #[test]
    fn column_major_values_equal_the_rows() {
        // 2500 users (several column blocks per chunk; enough rows for threads),
        // some absent from the run, some without judged items
        let mut seed = 3u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let n_users = 2500;
        let (mut qo, mut qi, mut qg) = (vec![0i64], Vec::new(), Vec::new());
        let (mut ro, mut ri, mut rs) = (vec![0i64], Vec::new(), Vec::new());
        for _ in 0..n_users {
            let judged = next(6) as i32;
            for j in 0..judged {
                qi.push(j * 3);
                qg.push(next(3) as f64);
            }
            qo.push(qi.len() as i64);
            for t in 0..30 {
                ri.push(next(40) as i32);
                rs.push(1.0 - t as f64 / 30.0);
            }
            ro.push(ri.len() as i64);
        }
        let desc: Vec<f64> = qo
            .windows(2)
            .flat_map(|w| {
                let mut g = qg[w[0] as usize..w[1] as usize].to_vec();
                g.sort_by(|a, b| b.partial_cmp(a).unwrap());
                g
            })
            .collect();
        let q = Judged {
            offsets: &qo,
            items: &qi,
            grades: &qg,
            desc: &desc,
        };
        let r = Ranked {
            offsets: &ro,
            items: &ri,
            scores: &rs,
            keys: &[],
        };
        let item_map: Vec<i32> = (0..15)
            .map(|c| if c == 7 { -1 } else { c * 3 % 40 })
            .collect();
        let user_map: Vec<i32> = (0..n_users as i32)
            .map(|u| if u % 11 == 0 { -1 } else { u })
            .collect();
        let kinds = [PRECISION, RECALL, RR, AP, NDCG];
        let specs: Vec<i64> = kinds
            .iter()
            .flat_map(|&k| spec(k, 10, TIES_INPUT))
            .collect();
        let (n, m) = (n_users, kinds.len());
        let d = disc(30);
        let (v, x) = evaluate_users(&q, &r, &item_map, &user_map, &specs, 30, 1, &d);
        for chunks in [1, 3, 8] {
            let (mut cv, mut cx) = (vec![0.0; n * m], vec![0.0; n * m]);
            evaluate_users_columns_into(
                &q, &r, &item_map, &user_map, &specs, 30, chunks, &d, &mut cv, &mut cx,
            );
            for u in 0..n {
                for j in 0..m {
                    let (a, b) = (v[u * m + j], cv[j * n + u]);
                    assert!(a == b || (a.is_nan() && b.is_nan()), "user {u} metric {j}");
                    assert_eq!(x[u * m + j], cx[j * n + u]);
                }
            }
        }
        assert!(v.iter().any(|&a| a > 0.0) && v.contains(&0.0));
    }

    #[test]
    fn metrics_of_one_user() {
        // judged: items 0 (grade 2), 1 (grade 1), 2 (grade 0); ranked: 1, 3, 0
        let q = Judged {
            offsets: &[0, 3],
            items: &[0, 1, 2],
            grades: &[2.0, 1.0, 0.0],
            desc: &[2.0, 1.0, 0.0],
        };
        let r = Ranked {
            offsets: &[0, 3],
            items: &[1, 3, 0],
            scores: &[0.9, 0.5, 0.1],
            keys: &[],
        };
        let item_map = [0, 1, 2];
        let kinds = [PRECISION, RECALL, RR, AP, DCG, NDCG, HIT_RATIO];
        let specs: Vec<i64> = kinds.iter().flat_map(|&k| spec(k, 2, TIES_INPUT)).collect();
        let d = disc(3);
        for chunks in [1, 3] {
            let (v, x) = evaluate_users(&q, &r, &item_map, &[0], &specs, 3, chunks, &d);
            assert_eq!(v[0], 0.5);
            assert_eq!(v[1], 0.5);
            assert_eq!(v[2], 1.0);
            assert_eq!(v[3], 0.5); // one hit at rank 1 over R = 2
            assert_eq!(v[4], 1.0);
            assert_eq!(v[5], 1.0 / (2.0 + 1.0 * d[1]));
            assert_eq!(v[6], 1.0);
            assert!(x.iter().all(|&a| a == 2.0));
        }
    }

    #[test]
    fn lenskit_normalisers_and_clipped_discount() {
        // one user, 3 relevant items (grades 1), a list of 3: rel, non-rel, rel
        let q = Judged {
            offsets: &[0, 3],
            items: &[0, 1, 2],
            grades: &[1.0, 1.0, 1.0],
            desc: &[1.0, 1.0, 1.0],
        };
        let r = Ranked {
            offsets: &[0, 3],
            items: &[0, 3, 1],
            scores: &[0.9, 0.5, 0.1],
            keys: &[],
        };
        let item_map = [0, 1, -1];
        let with = |kind: i64, k: i64, col: usize, value: i64| {
            let mut s = spec(kind, k, TIES_INPUT);
            s[col] = value;
            s
        };
        let rows = [
            with(PRECISION, 10, S_PRECISION_NORM, PRECISION_RETRIEVED), // 2 / 3
            with(PRECISION, 10, S_PRECISION_NORM, PRECISION_K),         // 2 / 10
            with(RECALL, 2, S_RECALL_NORM, RECALL_MIN_K),               // 1 / min(3, 2)
            with(RECALL, 2, S_RECALL_NORM, RECALL_RELEVANT),            // 1 / 3
            with(AP, 10, S_AP_NORM, AP_MIN_RETRIEVED),                  // (1 + 2/3) / 3
            with(AP, 2, S_AP_NORM, AP_MIN_RETRIEVED),                   // 1 / min(3, 2)
            with(DCG, 0, S_DISCOUNT, DISCOUNT_CLIPPED),                 // 1 + 1 / log2(3)
        ];
        let specs: Vec<i64> = rows.iter().flatten().copied().collect();
        let d = disc(4);
        let (v, _) = evaluate_users(&q, &r, &item_map, &[0], &specs, 3, 1, &d);
        assert_eq!(v[0], 2.0 / 3.0);
        assert_eq!(v[1], 0.2);
        assert_eq!(v[2], 0.5);
        assert_eq!(v[3], 1.0 / 3.0);
        assert_eq!(v[4], (1.0 + 2.0 / 3.0) / 3.0);
        assert_eq!(v[5], 0.5);
        assert_eq!(v[6], 1.0 + 1.0 / 3f64.log2());
    }

    #[test]
    fn absent_and_empty_users_follow_the_rules() {
        let q = Judged {
            offsets: &[0, 1, 1],
            items: &[0],
            grades: &[1.0],
            desc: &[1.0],
        };
        let r = Ranked {
            offsets: &[0, 0],
            items: &[],
            scores: &[],
            keys: &[],
        };
        let mut skip = spec(PRECISION, 5, TIES_INPUT);
        skip[S_MISSING_SKIP] = 1;
        let mut one = spec(RECALL, 5, TIES_INPUT);
        one[S_EMPTY] = EMPTY_ONE;
        let specs: Vec<i64> = skip.iter().chain(one.iter()).copied().collect();
        let (v, x) = evaluate_users(&q, &r, &[-1], &[-1, 0], &specs, 1, 4, &disc(1));
        assert!(v[0].is_nan()); // absent, skipped
        assert_eq!(v[1], 0.0); // absent, scored 0
        assert_eq!(v[2], 0.0); // empty list
        assert_eq!(v[3], 1.0); // no relevant item: 1
        assert_eq!(x, vec![1.0, 1.0, 0.0, 0.0]);
    }

    #[test]
    fn average_ties_take_the_expected_value() {
        // two tied items, one relevant: RR = (1 + 1/2) / 2, precision@1 = 1/2
        let q = Judged {
            offsets: &[0, 1],
            items: &[0],
            grades: &[1.0],
            desc: &[1.0],
        };
        let r = Ranked {
            offsets: &[0, 2],
            items: &[1, 0],
            scores: &[0.5, 0.5],
            keys: &[],
        };
        let specs: Vec<i64> = [spec(RR, 0, TIES_AVERAGE), spec(PRECISION, 1, TIES_AVERAGE)]
            .iter()
            .flatten()
            .copied()
            .collect();
        let (v, _) = evaluate_users(&q, &r, &[1], &[0], &specs, 2, 1, &disc(2));
        assert_eq!(v, vec![0.75, 0.5]);
    }

    #[test]
    fn trec_kinds_depth_and_judged_only() {
        use crate::trec_measures::{BPREF, NUM_REL, NUM_REL_RET, NUM_RET, UNJUDGED};
        // user 0 judged items 0 (grade 1), 1 (grade 0), 2 (grade -1: unjudged); ranked:
        // 3 (absent), then 1 and 0 tied, then 2. trec order: the tie by key descending
        // (item 0, key 1, first). User 1 is absent from the run.
        let q = Judged {
            offsets: &[0, 3, 5],
            items: &[0, 1, 2, 0, 1],
            grades: &[1.0, 0.0, -1.0, 2.0, 1.0],
            desc: &[1.0, 0.0, -1.0, 2.0, 1.0],
        };
        let r = Ranked {
            offsets: &[0, 4],
            items: &[3, 1, 0, 2],
            scores: &[0.9, 0.5, 0.5, 0.1],
            keys: &[1.0, 0.0, 2.0, 3.0],
        };
        let row = |kind, k, ties, depth, judged_only| {
            let mut s = spec(kind, k, ties);
            s[S_DEPTH] = depth;
            s[S_JUDGED_ONLY] = judged_only;
            s[S_MISSING_SKIP] = MISSING_COMPLETE;
            s
        };
        let rows = [
            row(NUM_REL_RET, 2, TIES_TREC, 0, 0),  // absent, 1: 1
            row(NUM_REL_RET, 2, TIES_INPUT, 0, 0), // absent, 0: 0
            row(NUM_RET, 0, TIES_TREC, 3, 0),      // depth 3
            row(NUM_RET, 0, TIES_TREC, 0, 1),      // judged only: 1, 0
            row(UNJUDGED, 0, TIES_TREC, 0, 0),     // absent and -1: 2 of 4
            row(PRECISION, 1, TIES_TREC, 0, 1),    // judged only: 1 first
            row(PRECISION, 1, TIES_TREC, 1, 0),    // depth 1: the absent item
            row(BPREF, 0, TIES_TREC, 0, 1),        // the relevant item above
            row(NUM_REL, 0, TIES_TREC, 0, 0),      // user 1: 2 relevant
        ];
        let specs: Vec<i64> = rows.iter().flatten().copied().collect();
        let d = disc(4);
        let (v, _) = evaluate_users(&q, &r, &[0, 1, 2], &[0, -1], &specs, 4, 2, &d);
        assert_eq!(&v[..9], &[1.0, 0.0, 3.0, 2.0, 0.5, 1.0, 0.0, 1.0, 1.0]);
        // user 1, absent: trec_eval's -c values (missing_users="complete")
        assert_eq!(&v[9..], &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0]);
        // missing_users="zero": every metric 0, the counts too
        let zero: Vec<i64> = rows
            .iter()
            .flat_map(|r| {
                let mut r = *r;
                r[S_MISSING_SKIP] = MISSING_ZERO;
                r
            })
            .collect();
        let (v, _) = evaluate_users(&q, &r, &[0, 1, 2], &[0, -1], &zero, 4, 2, &d);
        assert_eq!(&v[9..], &[0.0; 9]);
    }
}
