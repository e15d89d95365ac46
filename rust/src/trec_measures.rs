//! trec_eval's measures (and ir_measures' ERR, nERR and Judged) of one user.
//!
//! Every function takes one user's list as trec_eval sees it ([`UserGrades`]): the
//! grade of each ranked item in the metric's order, after the depth (`-M`) and
//! judged-only (`-J`) rules, and the user's judged grades sorted descending. A grade
//! tells the three kinds of items of trec_eval apart:
//!
//! - `-inf`: the item is absent from the user's qrels (trec_eval's "not in the pool",
//!   level -1);
//! - a finite grade below 0: the item is in the qrels but unjudged (level -2, e.g.
//!   the unsampled part of an infAP pool); such an item counts neither as relevant
//!   nor as non-relevant, nor among the user's judged items;
//! - a grade of 0 or more: judged, relevant from the relevance level (`threshold`,
//!   trec_eval's `-l`) on.
//!
//! Each value is computed with the same floating-point operations, in the same
//! order, as trec_eval 10.0 (divisions by `log2(rank + 1)`, not products with a table
//! of discounts), so values agree to the last printed digit. Gains of the nDCG-like
//! measures follow trec_eval: the grade by default, or a table of (grade, gain)
//! pairs (`-m ndcg.1=3,2=9`); the ideal list takes the user's judged items by
//! decreasing gain as trec_eval orders them (see [`GainTable`]).

use crate::ranking::{DCG, IDCG};

// metric kinds of `specs` computed here (mirrored in receval/_kernels/_topk_codes.py)
/// retrieved items
pub const NUM_RET: i64 = 14;
/// relevant items of the user
pub const NUM_REL: i64 = 15;
/// relevant items retrieved
pub const NUM_REL_RET: i64 = 16;
/// judged non-relevant items retrieved
pub const NUM_NONREL_JUDGED_RET: i64 = 17;
/// 1 for every user evaluated
pub const NUM_Q: i64 = 18;
/// binary preference (P0 = 1: ranx's reading, negative grades judged non-relevant)
pub const BPREF: i64 = 19;
/// inferred average precision
pub const INFAP: i64 = 20;
/// interpolated precision at a recall level (P0)
pub const IPREC_AT_RECALL: i64 = 21;
/// interpolated precision averaged over recall levels (P0: count, 0 = 11 levels)
pub const IPREC_AVG: i64 = 22;
/// precision at a multiple (P0) of R
pub const RPREC_MULT: i64 = 23;
/// set utility (P0..P3: the gains a, b, c, d; P4: documents in the collection)
pub const UTILITY: i64 = 24;
/// binary G
pub const BIN_G: i64 = 25;
/// normalized gain G
pub const G: i64 = 26;
/// nDCG averaged over the relevant items
pub const NDCG_REL: i64 = 27;
/// nDCG averaged at the R levels
pub const R_NDCG: i64 = 28;
/// relative precision (at k)
pub const RELATIVE_PRECISION: i64 = 29;
/// set precision
pub const SET_PRECISION: i64 = 30;
/// set relative precision
pub const SET_RELATIVE_PRECISION: i64 = 31;
/// set recall
pub const SET_RECALL: i64 = 32;
/// set average precision
pub const SET_AP: i64 = 33;
/// set F (P0: beta)
pub const SET_F: i64 = 34;
/// rank-biased precision (P0: persistence; P1 = 0: trec_eval's graded gains, 1: binary
/// gains at the threshold, 2: the grades themselves, ranx's; the graded variants earn from
/// the spec's gain threshold on)
pub const RBP: i64 = 35;
/// residual of rank-biased precision (P0: persistence)
pub const RBP_RESID: i64 = 36;
/// share of unjudged items in the top k (trec_eval's unj)
pub const UNJUDGED: i64 = 37;
/// share of judged items in the top k (ir_measures' Judged)
pub const JUDGED: i64 = 38;
/// expected reciprocal rank (gdeval's ERR; P0: the largest grade, 0 = 4)
pub const ERR: i64 = 39;
/// ndeval's nERR of one intent (P0: alpha, 0 = 0.5)
pub const NERR: i64 = 40;
/// first kind computed here
pub const FIRST_KIND: i64 = NUM_RET;
/// last kind computed here
pub const LAST_KIND: i64 = NERR;

/// float parameters of a metric (columns `S_PARAMS..S_PARAMS + N_PARAMS` of `specs`)
pub const N_PARAMS: usize = 16;
/// (grade, gain) pairs of a custom gain table (P0 = count, then grade, gain, ...)
pub const MAX_GAIN_PAIRS: usize = 7;

/// infAP's smoothing of the relevant share of the judged items above an item
pub const INFAP_EPSILON: f64 = 0.00001;
const DEFAULT_ERR_MAX_GRADE: f64 = 4.0;

/// Whether the kind is computed by this module.
#[inline]
pub fn is_trec_kind(kind: i64) -> bool {
    (FIRST_KIND..=LAST_KIND).contains(&kind)
}

/// Whether the kind is a count, which the rules for users without a relevant item
/// leave alone.
#[inline]
pub fn is_count_kind(kind: i64) -> bool {
    matches!(
        kind,
        NUM_RET | NUM_REL | NUM_REL_RET | NUM_NONREL_JUDGED_RET | NUM_Q
    )
}

/// One user's list as trec_eval sees it.
#[derive(Clone, Copy)]
pub struct UserGrades<'a> {
    /// grade of each ranked item in the metric's order (`-inf`: absent from the
    /// qrels; below 0: in the qrels, unjudged)
    pub ranked: &'a [f64],
    /// the user's judged grades, descending (negative ones included)
    pub judged: &'a [f64],
    /// relevance level: a judged grade at least this is relevant
    pub threshold: f64,
}

/// trec_eval's level of a grade: the grade, -1 when absent from the qrels, -2 when
/// in the qrels with a negative grade.
#[inline]
pub fn level(grade: f64) -> f64 {
    if grade >= 0.0 {
        grade
    } else if grade == f64::NEG_INFINITY {
        -1.0
    } else {
        -2.0
    }
}

impl UserGrades<'_> {
    #[inline]
    pub fn is_rel(&self, grade: f64) -> bool {
        level(grade) >= self.threshold
    }

    /// Relevant items of the user: judged grades (0 or more) from the threshold on.
    pub fn num_rel(&self) -> i64 {
        self.judged
            .iter()
            .take_while(|&&g| g >= 0.0)
            .filter(|&&g| g >= self.threshold)
            .count() as i64
    }

    /// Judged grades (0 or more) below the threshold.
    fn num_nonrel(&self) -> i64 {
        self.judged
            .iter()
            .take_while(|&&g| g >= 0.0)
            .filter(|&&g| g < self.threshold)
            .count() as i64
    }

    fn num_rel_ret(&self) -> i64 {
        self.ranked.iter().filter(|&&g| self.is_rel(g)).count() as i64
    }
}

/// Retrieved items.
pub fn num_ret(u: &UserGrades<'_>) -> f64 {
    u.ranked.len() as f64
}

/// Relevant items of the user.
pub fn num_rel(u: &UserGrades<'_>) -> f64 {
    u.num_rel() as f64
}

/// Relevant items retrieved.
pub fn num_rel_ret(u: &UserGrades<'_>) -> f64 {
    u.num_rel_ret() as f64
}

/// Retrieved items judged non-relevant: the retrieved ones less those absent from
/// the qrels, those unjudged and the relevant ones.
pub fn num_nonrel_judged_ret(u: &UserGrades<'_>) -> f64 {
    let absent = u.ranked.iter().filter(|&&g| g == f64::NEG_INFINITY).count() as i64;
    let unjudged = u
        .ranked
        .iter()
        .filter(|&&g| g < 0.0 && g > f64::NEG_INFINITY)
        .count() as i64;
    (u.ranked.len() as i64 - absent - unjudged - u.num_rel_ret()) as f64
}

/// Binary preference: each relevant item retrieved scores 1 less the share of the
/// first R judged non-relevant items retrieved above it, over R.
pub fn bpref(u: &UserGrades<'_>) -> f64 {
    let n_rel = u.num_rel();
    let n_nonrel = u.num_nonrel();
    let mut nonrel_above = 0i64;
    let mut sum = 0.0;
    for &g in u.ranked {
        if g < 0.0 {
            continue; // absent or unjudged
        }
        if g < u.threshold {
            nonrel_above += 1;
        } else if nonrel_above > 0 {
            sum += 1.0 - (nonrel_above.min(n_rel) as f64) / (n_nonrel.min(n_rel) as f64);
        } else {
            sum += 1.0;
        }
    }
    if n_rel > 0 {
        sum / n_rel as f64
    } else {
        sum
    }
}

/// Binary preference as ranx reads grades: every grade in the qrels is a judgment, a
/// negative one judged non-relevant (counted among the N non-relevant items and, when
/// retrieved, ranked above the relevant items below it); only items absent from the
/// qrels are skipped. Where N is 0 a relevant item scores 1, as in trec_eval (ranx
/// divides 0 by 0 there and returns nan).
pub fn bpref_raw(u: &UserGrades<'_>) -> f64 {
    let n_rel = u.judged.iter().filter(|&&g| g >= u.threshold).count() as i64;
    let n_nonrel = u.judged.len() as i64 - n_rel;
    let mut nonrel_above = 0i64;
    let mut sum = 0.0;
    for &g in u.ranked {
        if g == f64::NEG_INFINITY {
            continue; // absent from the qrels
        }
        if g < u.threshold {
            nonrel_above += 1;
        } else if nonrel_above > 0 {
            sum += 1.0 - (nonrel_above.min(n_rel) as f64) / (n_nonrel.min(n_rel) as f64);
        } else {
            sum += 1.0;
        }
    }
    if n_rel > 0 {
        sum / n_rel as f64
    } else {
        sum
    }
}

/// Inferred AP (Yilmaz and Aslam): the precision above each relevant item estimated
/// from the judged items above it, items absent from the qrels counting as
/// non-relevant and unjudged pool items as relevant in the judged proportion.
pub fn infap(u: &UserGrades<'_>) -> f64 {
    let (mut rel, mut nonrel, mut unjudged) = (0i64, 0i64, 0i64);
    let mut sum = 0.0;
    for (j, &g) in u.ranked.iter().enumerate() {
        if g == f64::NEG_INFINITY {
            continue;
        }
        if g < 0.0 {
            unjudged += 1;
            continue;
        }
        if g < u.threshold {
            nonrel += 1;
            continue;
        }
        rel += 1;
        if j == 0 {
            sum += 1.0;
        } else {
            let fj = j as f64;
            let judged_above = (rel - 1 + nonrel + unjudged) as f64 / fj;
            let rel_share = ((rel - 1) as f64 + INFAP_EPSILON)
                / ((rel - 1 + nonrel) as f64 + 2.0 * INFAP_EPSILON);
            sum += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * judged_above * rel_share;
        }
    }
    let n_rel = u.num_rel();
    if n_rel > 0 {
        sum / n_rel as f64
    } else {
        sum
    }
}

/// Interpolated precision at recall levels, summed: for each level (ascending in
/// `levels`), the largest precision at or below the rank where the recall reaches
/// `round(level * R)` relevant items, 0 for levels beyond the relevant retrieved.
/// Returns the sum of the values (in trec_eval's order of addition: highest level
/// first).
fn iprec_sum(u: &UserGrades<'_>, levels: &[f64]) -> f64 {
    let n = u.ranked.len();
    let n_rel = u.num_rel();
    if n == 0 {
        // trec_eval's 0 / 0 (a list emptied by judged-only): nan at the levels of 0
        // relevant items, 0 at the others
        return levels
            .iter()
            .map(|&l| {
                if (l * n_rel as f64).round() as i64 <= 0 {
                    f64::NAN
                } else {
                    0.0
                }
            })
            .sum();
    }
    let rel_ret = u.num_rel_ret();
    let mut cut = [0i64; N_PARAMS];
    for (c, &l) in cut.iter_mut().zip(levels) {
        *c = (l * n_rel as f64).round() as i64;
    }
    let cut = &cut[..levels.len()];
    // levels whose count of relevant items is never reached are 0
    let mut next = cut.len();
    while next > 0 && cut[next - 1] > rel_ret {
        next -= 1;
    }
    let mut sum = 0.0;
    let mut best = rel_ret as f64 / n as f64;
    let mut rel_left = rel_ret;
    let mut i = n;
    while i > 0 && rel_left > 0 {
        let p = rel_left as f64 / i as f64;
        if best < p {
            best = p;
        }
        if u.is_rel(u.ranked[i - 1]) {
            while next > 0 && cut[next - 1] == rel_left {
                sum += best;
                next -= 1;
            }
            rel_left -= 1;
        }
        i -= 1;
    }
    for _ in 0..next {
        sum += best;
    }
    sum
}

/// Interpolated precision at one recall level.
pub fn iprec_at_recall(u: &UserGrades<'_>, recall: f64) -> f64 {
    iprec_sum(u, &[recall])
}

/// trec_eval's 11 recall levels of 11pt_avg.
pub const ELEVEN_LEVELS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// Interpolated precision averaged over recall levels (`levels` empty: the 11
/// levels 0.0, 0.1, ..., 1.0); the levels are sorted first, as trec_eval does.
pub fn iprec_avg(u: &UserGrades<'_>, levels: &[f64]) -> f64 {
    let mut sorted = [0.0f64; N_PARAMS];
    let levels: &[f64] = if levels.is_empty() {
        &ELEVEN_LEVELS
    } else {
        let m = levels.len().min(N_PARAMS);
        sorted[..m].copy_from_slice(&levels[..m]);
        sorted[..m].sort_by(|a, b| a.total_cmp(b));
        &sorted[..m]
    };
    iprec_sum(u, levels) / levels.len() as f64
}

/// Precision at rank `trunc(multiple * R + 0.9)`; beyond the list, the relevant
/// retrieved over that rank.
pub fn rprec_mult(u: &UserGrades<'_>, multiple: f64) -> f64 {
    let n = u.ranked.len() as i64;
    let cut = (multiple * u.num_rel() as f64 + 0.9) as i64;
    if cut > n {
        return u.num_rel_ret() as f64 / cut as f64;
    }
    if cut <= 0 {
        return 0.0;
    }
    let hits = u.ranked[..cut as usize]
        .iter()
        .filter(|&&g| u.is_rel(g))
        .count();
    hits as f64 / cut as f64
}

/// Set utility `a * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret`
/// with `params = [a, b, c, d, docs_in_collection]` (the last, trec_eval's `-N`,
/// 0 by default).
pub fn utility(u: &UserGrades<'_>, params: &[f64]) -> f64 {
    let n = u.ranked.len() as i64;
    let n_rel = u.num_rel();
    let a = u.num_rel_ret();
    let docs = params[4] as i64;
    params[0] * a as f64
        + params[1] * (n - a) as f64
        + params[2] * (n_rel - a) as f64
        + params[3] * (docs + a - n - n_rel) as f64
}

/// Binary G: each relevant item retrieved earns `1 / log2(2 + non-relevant above
/// it)`, over R.
pub fn bin_g(u: &UserGrades<'_>) -> f64 {
    let mut rel = 0i64;
    let mut sum = 0.0;
    for (i, &g) in u.ranked.iter().enumerate() {
        if u.is_rel(g) {
            rel += 1;
            sum += 1.0 / ((3 + i as i64 - rel) as f64).log2();
        }
    }
    if rel > 0 {
        sum / u.num_rel() as f64
    } else {
        0.0
    }
}

/// Relative precision at k: relevant in the top k over min(k, R) (without k: over
/// the whole list); 0 without a relevant item.
pub fn relative_precision(u: &UserGrades<'_>, k: i64) -> f64 {
    let n_rel = u.num_rel();
    if n_rel == 0 {
        return 0.0;
    }
    let n = u.ranked.len();
    let (top, den) = if k > 0 {
        ((k as usize).min(n), k.min(n_rel))
    } else {
        (n, (n as i64).min(n_rel))
    };
    if den == 0 {
        return 0.0;
    }
    let hits = u.ranked[..top].iter().filter(|&&g| u.is_rel(g)).count();
    hits as f64 / den as f64
}

/// Set precision: relevant retrieved over retrieved.
pub fn set_precision(u: &UserGrades<'_>) -> f64 {
    let n = u.ranked.len();
    if n == 0 {
        return 0.0;
    }
    u.num_rel_ret() as f64 / n as f64
}

/// Set relative precision: relevant retrieved over min(retrieved, R).
pub fn set_relative_precision(u: &UserGrades<'_>) -> f64 {
    let n = u.ranked.len() as i64;
    let n_rel = u.num_rel();
    if n == 0 || n_rel == 0 {
        return 0.0;
    }
    u.num_rel_ret() as f64 / n.min(n_rel) as f64
}

/// Set recall: relevant retrieved over R.
pub fn set_recall(u: &UserGrades<'_>) -> f64 {
    let n_rel = u.num_rel();
    if n_rel == 0 {
        return 0.0;
    }
    u.num_rel_ret() as f64 / n_rel as f64
}

/// Set AP: relevant retrieved squared over (retrieved * R).
pub fn set_ap(u: &UserGrades<'_>) -> f64 {
    let n = u.ranked.len();
    let n_rel = u.num_rel();
    if n == 0 || n_rel == 0 {
        return 0.0;
    }
    let a = u.num_rel_ret() as f64;
    (a * a) / (n as f64 * n_rel as f64)
}

/// Set F: `(beta + 1) P R / (beta P + R)`, 0 without a relevant retrieved.
pub fn set_f(u: &UserGrades<'_>, beta: f64) -> f64 {
    let a = u.num_rel_ret();
    if a == 0 {
        return 0.0;
    }
    let p = a as f64 / u.ranked.len() as f64;
    let r = a as f64 / u.num_rel() as f64;
    (beta + 1.0) * p * r / (beta * p + r)
}

/// Residual of RBP: the weight of the unjudged items (absent or negative grade)
/// plus that of the ranks beyond the list, `p^n + (1 - p) sum p^i`; 0 when every
/// item is judged.
pub fn rbp_resid(u: &UserGrades<'_>, p: f64) -> f64 {
    let mut weight = 1.0;
    let mut sum = 0.0;
    let mut unjudged = 0;
    for &g in u.ranked {
        if g < 0.0 {
            unjudged += 1;
            sum += weight;
        }
        weight *= p;
    }
    if unjudged > 0 {
        weight + (1.0 - p) * sum
    } else {
        0.0
    }
}

/// Share of unjudged items (absent from the qrels or with a negative grade) in the
/// top k, over k (trec_eval's unj: ranks beyond the list count as judged); without
/// k, over the whole list.
pub fn unjudged(u: &UserGrades<'_>, k: i64) -> f64 {
    let n = u.ranked.len();
    let (top, den) = if k > 0 {
        ((k as usize).min(n), k as f64)
    } else {
        (n, n as f64)
    };
    if top == 0 {
        return 0.0;
    }
    let count = u.ranked[..top].iter().filter(|&&g| g < 0.0).count();
    count as f64 / den
}

/// Share of the top min(k, n) items present in the qrels (ir_measures' Judged@k,
/// any grade, negative included); without k, of the whole list.
pub fn judged(u: &UserGrades<'_>, k: i64) -> f64 {
    let n = u.ranked.len();
    let top = if k > 0 { (k as usize).min(n) } else { n };
    if top == 0 {
        return 0.0;
    }
    let count = u.ranked[..top]
        .iter()
        .filter(|&&g| g > f64::NEG_INFINITY)
        .count();
    count as f64 / top as f64
}

/// Stopping probability of gdeval's ERR: `(2^g - 1) / 2^max_grade` for g > 0.
#[inline]
pub fn err_gain(grade: f64, max_grade: f64) -> f64 {
    if grade > 0.0 {
        (2.0f64.powf(grade) - 1.0) / 2.0f64.powf(max_grade)
    } else {
        0.0
    }
}

fn err_of<I: Iterator<Item = f64>>(grades: I, max_grade: f64) -> f64 {
    let mut score = 0.0;
    let mut decay = 1.0;
    for (i, g) in grades.enumerate() {
        let r = err_gain(g, max_grade);
        score += r * decay / (i + 1) as f64;
        decay *= 1.0 - r;
    }
    score
}

pub fn err_max_grade(p0: f64) -> f64 {
    if p0 > 0.0 {
        p0
    } else {
        DEFAULT_ERR_MAX_GRADE
    }
}

/// Expected reciprocal rank (Chapelle et al.; gdeval, ir_measures' ERR): the user
/// stops at rank i with probability `(2^g - 1) / 2^max_grade` and earns `1 / i`.
/// Relevance levels play no part: every positive grade is a gain.
pub fn err(u: &UserGrades<'_>, max_grade: f64) -> f64 {
    err_of(u.ranked.iter().copied(), err_max_grade(max_grade))
}

/// ndeval's default stopping parameter of nERR (`alpha`).
pub const DEFAULT_NERR_ALPHA: f64 = 0.5;

/// nERR as ndeval computes it for one intent (ir_measures' nERR_IA@k on ordinary
/// qrels): relevance is binary (a judged grade from the threshold on), the j-th
/// relevant item of the list earns `(1 - alpha)^(j-1) / rank`, and the sum is
/// divided by that of the ideal list (the R relevant items first, cut at k when k >
/// 0); 0 without a relevant item in the list. `alpha` <= 0: ndeval's 0.5.
pub fn nerr(u: &UserGrades<'_>, k: i64, alpha: f64) -> f64 {
    let a = if alpha > 0.0 {
        alpha
    } else {
        DEFAULT_NERR_ALPHA
    };
    let mut got = 0.0;
    let mut weight = 1.0;
    for (i, &g) in u.ranked.iter().enumerate() {
        if u.is_rel(g) {
            got += weight / (i + 1) as f64;
            weight *= 1.0 - a;
        }
    }
    if got == 0.0 {
        return 0.0;
    }
    let n_rel = u.num_rel();
    let depth = if k > 0 { n_rel.min(k) } else { n_rel };
    let mut ideal = 0.0;
    let mut weight = 1.0;
    for j in 0..depth {
        ideal += weight / (j + 1) as f64;
        weight *= 1.0 - a;
    }
    got / ideal
}

/// A level of a gain table: its grade, its gain and how many judged items have it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Level {
    grade: f64,
    gain: f64,
    count: i64,
}

/// trec_eval's gain table of one user: the (grade, gain) pairs given, then every
/// grade from 0 to the largest judged grade not among them with its grade as gain
/// (without pairs, only the grades judged: the others have no item), each with the
/// number of judged items of that grade; sorted by increasing gain the way
/// trec_eval's sort does it (a stable merge sort comparing `(int)(gain_a -
/// gain_b)`: gains less than 1 apart compare equal). The ideal list takes the
/// levels from the last one down, each as many times as it has items, until a gain
/// is not positive.
#[derive(Default)]
pub struct GainTable {
    levels: Vec<Level>,
    tmp: Vec<Level>,
    custom: bool,
    /// rbp's normalisation to [0, 1]: (min, max) when applied
    scale: Option<(f64, f64)>,
}

fn gain_cmp(a: &Level, b: &Level) -> i64 {
    (a.gain - b.gain) as i32 as i64
}

/// glibc's merge sort: halves of n / 2 and n - n / 2, the first half wins ties.
fn merge_sort(v: &mut [Level], tmp: &mut Vec<Level>) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    merge_sort(&mut v[..n1], tmp);
    merge_sort(&mut v[n1..], tmp);
    tmp.clear();
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if gain_cmp(&v[i], &v[j]) <= 0 {
            tmp.push(v[i]);
            i += 1;
        } else {
            tmp.push(v[j]);
            j += 1;
        }
    }
    tmp.extend_from_slice(&v[i..n1]);
    let done = tmp.len();
    v[..done].copy_from_slice(&tmp[..done]);
}

/// The gains of the ideal list, level by level (trec_eval's walk down the table).
struct IdealWalk {
    /// index + 1 of the current level (0: past the last)
    cur: usize,
    taken: i64,
    gain: f64,
}

impl IdealWalk {
    fn new(t: &GainTable) -> Self {
        let cur = t.levels.len();
        IdealWalk {
            cur,
            taken: 0,
            gain: if cur > 0 { t.levels[cur - 1].gain } else { 0.0 },
        }
    }

    /// The next item of the ideal list: its gain is then `self.gain`.
    fn step(&mut self, t: &GainTable) {
        self.taken += 1;
        while self.cur > 0 && self.taken > t.levels[self.cur - 1].count {
            self.taken = 1;
            self.cur -= 1;
            self.gain = if self.cur > 0 {
                t.levels[self.cur - 1].gain
            } else {
                0.0
            };
        }
    }
}

impl GainTable {
    /// The table of a user with judged grades `judged` (descending) and the custom
    /// `pairs` (grade, gain) (empty: every grade is its own gain).
    pub fn build(&mut self, judged: &[f64], pairs: &[(f64, f64)]) {
        self.levels.clear();
        self.custom = !pairs.is_empty();
        self.scale = None;
        let nonneg = judged.iter().take_while(|&&g| g >= 0.0).count();
        let count_of = |grade: f64| judged[..nonneg].iter().filter(|&&g| g == grade).count() as i64;
        for &(grade, gain) in pairs {
            self.levels.push(Level {
                grade,
                gain,
                count: if grade >= 0.0 { count_of(grade) } else { 0 },
            });
        }
        let n_pairs = self.levels.len();
        let in_pairs =
            |levels: &[Level], grade: f64| levels[..n_pairs].iter().any(|l| l.grade == grade);
        // the judged grades (ascending, distinct) and, with pairs, the integers between
        let mut t = nonneg;
        let mut next_int = 0.0f64;
        while t > 0 {
            // the run of grades equal to judged[t - 1]
            let grade = judged[t - 1];
            let mut s = t - 1;
            while s > 0 && judged[s - 1] == grade {
                s -= 1;
            }
            if self.custom {
                while next_int < grade {
                    if !in_pairs(&self.levels, next_int) {
                        self.levels.push(Level {
                            grade: next_int,
                            gain: next_int,
                            count: 0,
                        });
                    }
                    next_int += 1.0;
                }
                if next_int == grade {
                    next_int += 1.0;
                }
            }
            if !in_pairs(&self.levels, grade) {
                self.levels.push(Level {
                    grade,
                    gain: grade,
                    count: (t - s) as i64,
                });
            }
            t = s;
        }
        let mut tmp = std::mem::take(&mut self.tmp);
        merge_sort(&mut self.levels, &mut tmp);
        self.tmp = tmp;
    }

    /// Normalise the gains to [0, 1] when some lies outside (rbp): `(g - min) / (max -
    /// min)`, with min and max over the table and the grade 0 (always a level of
    /// trec_eval's table).
    pub fn normalise(&mut self) {
        let mut lo = 0.0f64;
        let mut hi = f64::NEG_INFINITY;
        for l in &self.levels {
            lo = lo.min(l.gain);
            hi = hi.max(l.gain);
        }
        if !self.custom {
            hi = hi.max(0.0);
        }
        if lo < 0.0 || hi > 1.0 {
            self.scale = Some((lo, hi));
        }
    }

    /// Gain of a ranked item's grade.
    #[inline]
    pub fn gain(&self, grade: f64) -> f64 {
        let lv = level(grade);
        let g = if !self.custom {
            // every judged grade >= 0 is a level with itself as gain
            if lv >= 0.0 {
                lv
            } else {
                return 0.0;
            }
        } else {
            match self.levels.iter().find(|l| l.grade == lv) {
                Some(l) => l.gain,
                None => return 0.0,
            }
        };
        match self.scale {
            Some((lo, hi)) => (g - lo) / (hi - lo),
            None => g,
        }
    }
}

/// (DCG, ideal DCG) with trec_eval's gains, both cut at k when k > 0: the gain of
/// the item at rank i (from 1) over `log2(i + 1)`.
pub fn dcg_pair(u: &UserGrades<'_>, k: i64, t: &GainTable) -> (f64, f64) {
    dcg_pair_by(u.ranked.len(), k, |i| t.gain(u.ranked[i]), t)
}

/// [`dcg_pair`] of a list of `n` items whose gain at rank i (from 0) is `gain_at(i)`
/// (the grades' gains, or their expected values over the orders of tied items).
pub fn dcg_pair_by<F: Fn(usize) -> f64>(n: usize, k: i64, gain_at: F, t: &GainTable) -> (f64, f64) {
    let top = if k > 0 { (k as usize).min(n) } else { n };
    let mut dcg = 0.0;
    for i in 0..top {
        let gain = gain_at(i);
        if gain != 0.0 {
            dcg += gain / ((i + 2) as f64).log2();
        }
    }
    let mut ideal = 0.0;
    let mut walk = IdealWalk::new(t);
    let mut i = 0usize;
    while walk.gain > 0.0 && (k <= 0 || (i as i64) < k) {
        walk.step(t);
        if walk.gain > 0.0 {
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    (dcg, ideal)
}

/// nDCG with trec_eval's gains (custom gain tables), cut at k when k > 0.
pub fn ndcg(u: &UserGrades<'_>, k: i64, t: &GainTable) -> f64 {
    let (dcg, ideal) = dcg_pair(u, k, t);
    if ideal > 0.0 {
        dcg / ideal
    } else {
        0.0
    }
}

/// G (trec_eval's normalized gain): the item at rank i earns its gain over
/// `log2(2 + ideal gain so far - gain so far)`, the ideal cost counting at least 1
/// per rank; normalised by the total ideal gain.
pub fn g(u: &UserGrades<'_>, t: &GainTable) -> f64 {
    let (costs, ideal) = g_costs(u.ranked.len(), t);
    let (mut value, mut got) = (0.0, 0.0);
    for (&grade, &cost) in u.ranked.iter().zip(&costs) {
        let gain = t.gain(grade);
        got += gain;
        if gain != 0.0 {
            value += gain / (2.0 + cost - got).log2();
        }
    }
    if ideal > 0.0 {
        value / ideal
    } else {
        0.0
    }
}

/// G's ideal cost accumulated at each of the first `n` ranks (the ideal gain there,
/// at least 1 per rank), and the total ideal gain.
pub fn g_costs(n: usize, t: &GainTable) -> (Vec<f64>, f64) {
    let min_cost = 1.0;
    let (mut ideal, mut cost) = (0.0, 0.0);
    let mut costs = Vec::with_capacity(n);
    let mut walk = IdealWalk::new(t);
    for _ in 0..n {
        if walk.gain > 0.0 {
            walk.step(t);
            if walk.gain > 0.0 {
                ideal += walk.gain;
            }
            cost += if walk.gain >= min_cost {
                walk.gain
            } else {
                min_cost
            };
        } else {
            cost += min_cost;
        }
        costs.push(cost);
    }
    while walk.gain > 0.0 {
        walk.step(t);
        if walk.gain > 0.0 {
            ideal += walk.gain;
        }
    }
    (costs, ideal)
}

/// nDCG averaged over the items of positive ideal gain: at each retrieved item of
/// positive gain, the nDCG there; each one not retrieved, the nDCG at the end.
pub fn ndcg_rel(u: &UserGrades<'_>, t: &GainTable) -> f64 {
    let n = u.ranked.len();
    let (mut dcg, mut ideal, mut sum) = (0.0, 0.0, 0.0);
    let (mut n_pos, mut n_pos_ret) = (0i64, 0i64);
    let mut walk = IdealWalk::new(t);
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let gain = t.gain(u.ranked[i]);
        let disc = ((i + 2) as f64).log2();
        if gain != 0.0 {
            dcg += gain / disc;
        }
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / disc;
        }
        if gain > 0.0 {
            sum += dcg / ideal;
            n_pos_ret += 1;
        }
        i += 1;
    }
    while i < n {
        let gain = t.gain(u.ranked[i]);
        if gain != 0.0 {
            dcg += gain / ((i + 2) as f64).log2();
        }
        if gain > 0.0 {
            sum += dcg / ideal;
            n_pos_ret += 1;
        }
        i += 1;
    }
    while walk.gain > 0.0 {
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    sum += (n_pos - n_pos_ret) as f64 * dcg / ideal;
    if sum > 0.0 {
        sum / n_pos as f64
    } else {
        0.0
    }
}

/// [`ndcg_rel`]'s ideal DCG at each of the first `n` ranks into `out` (constant once
/// the positive ideal gains are spent), and (the number of positive ideal gains, the
/// ideal DCG of them all).
pub fn ndcg_rel_ideal(t: &GainTable, n: usize, out: &mut Vec<f64>) -> (i64, f64) {
    out.clear();
    let (mut ideal, mut n_pos) = (0.0, 0i64);
    let mut walk = IdealWalk::new(t);
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let disc = ((i + 2) as f64).log2();
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / disc;
        }
        out.push(ideal);
        i += 1;
    }
    out.resize(n, ideal);
    i = i.max(n);
    while walk.gain > 0.0 {
        walk.step(t);
        if walk.gain > 0.0 {
            n_pos += 1;
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    (n_pos, ideal)
}

/// nDCG averaged at the R levels: at each rank where the ideal gain changes (and at
/// the end of the list once the ideal gains are spent), the nDCG of the ranks above.
/// 0 without a relevant item.
pub fn r_ndcg(u: &UserGrades<'_>, t: &GainTable) -> f64 {
    r_ndcg_by(u.num_rel(), u.ranked.len(), |i| t.gain(u.ranked[i]), t)
}

/// [`r_ndcg`] of a list of `n` items whose gain at rank i (from 0) is `gain_at(i)`,
/// for a user with `n_rel` relevant items.
pub fn r_ndcg_by<F: Fn(usize) -> f64>(n_rel: i64, n: usize, gain_at: F, t: &GainTable) -> f64 {
    if n_rel == 0 {
        return 0.0;
    }
    let (mut dcg, mut ideal, mut sum) = (0.0, 0.0, 0.0);
    let mut changes = 0i64;
    let mut walk = IdealWalk::new(t);
    let mut last = walk.gain;
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let gain = gain_at(i);
        walk.step(t);
        if last != walk.gain {
            if ideal > 0.0 {
                sum += dcg / ideal;
                changes += 1;
            }
            last = walk.gain;
        }
        let disc = ((i + 2) as f64).log2();
        if gain != 0.0 {
            dcg += gain / disc;
        }
        if walk.gain > 0.0 {
            ideal += walk.gain / disc;
        }
        i += 1;
    }
    if i < n {
        while i < n {
            let gain = gain_at(i);
            if gain != 0.0 {
                dcg += gain / ((i + 2) as f64).log2();
            }
            i += 1;
        }
        if ideal > 0.0 {
            sum += dcg / ideal;
            changes += 1;
        }
    }
    while walk.gain > 0.0 {
        walk.step(t);
        if last != walk.gain {
            if ideal > 0.0 {
                sum += dcg / ideal;
                changes += 1;
            }
            last = walk.gain;
        }
        if walk.gain > 0.0 {
            ideal += walk.gain / ((i + 2) as f64).log2();
        }
        i += 1;
    }
    sum / changes as f64
}

/// Rank-biased precision (Moffat and Zobel): `(1 - p) sum gain_i p^(i-1)`, gains the
/// grades normalised to [0, 1] when some lies outside, earned from the threshold on
/// (trec_eval's every grade from 1 on, with the threshold at 1).
pub fn rbp(u: &UserGrades<'_>, p: f64, t: &mut GainTable) -> f64 {
    t.normalise();
    let mut sum = 0.0;
    let mut weight = 1.0;
    for &g in u.ranked {
        let gain = rbp_gain(g, u.threshold, t);
        if gain != 0.0 {
            sum += gain * weight;
        }
        weight *= p;
    }
    (1.0 - p) * sum
}

/// The graded gain of [`rbp`]: the table's (normalised) gain of a grade from the
/// threshold on, else 0.
#[inline]
pub fn rbp_gain(grade: f64, threshold: f64, t: &GainTable) -> f64 {
    if level(grade) >= threshold {
        t.gain(grade)
    } else {
        0.0
    }
}

/// Whether an item is relevant for [`rbp_binary`]: judged, its grade (a negative one
/// read as 0) at least the threshold, as cwl_eval reads ir_measures' `RBP(rel=...)`.
#[inline]
pub fn rbp_binary_rel(grade: f64, threshold: f64) -> bool {
    grade > f64::NEG_INFINITY && grade.max(0.0) >= threshold
}

/// Rank-biased precision with binary gains: `(1 - p) sum p^(i-1)` over the relevant
/// items (ir_measures' RBP(rel=threshold), cwl_eval's binary gains; see
/// [`rbp_binary_rel`]).
pub fn rbp_binary(u: &UserGrades<'_>, p: f64) -> f64 {
    let mut sum = 0.0;
    let mut weight = 1.0;
    for &g in u.ranked {
        if rbp_binary_rel(g, u.threshold) {
            sum += weight;
        }
        weight *= p;
    }
    (1.0 - p) * sum
}

/// Rank-biased precision with the grades themselves as gains: `(1 - p) sum g_i p^(i-1)`
/// over the items graded from the threshold on (ranx's graded RBP).
pub fn rbp_raw(u: &UserGrades<'_>, p: f64) -> f64 {
    let mut sum = 0.0;
    let mut weight = 1.0;
    for &g in u.ranked {
        if g >= u.threshold {
            sum += g * weight;
        }
        weight *= p;
    }
    (1.0 - p) * sum
}

/// The (grade, gain) pairs of a custom gain table: `params[0]` pairs (at most
/// [`MAX_GAIN_PAIRS`]) from `params[1..]`.
pub fn gain_pairs(params: &[f64]) -> ([(f64, f64); MAX_GAIN_PAIRS], usize) {
    let mut pairs = [(0.0, 0.0); MAX_GAIN_PAIRS];
    let m = (params[0].max(0.0) as usize).min(MAX_GAIN_PAIRS);
    for (j, pair) in pairs.iter_mut().enumerate().take(m) {
        *pair = (params[1 + 2 * j], params[2 + 2 * j]);
    }
    (pairs, m)
}

/// The value of a trec kind for one user. `u.ranked` is the list in the metric's
/// order after depth and judged-only; k > 0 cuts it (relative precision, unjudged
/// and judged divide by k as their peers do); `custom` says whether
/// `params` hold a custom gain table (the nDCG-like kinds). `table` is scratch.
pub fn user_measure(
    kind: i64,
    u: &UserGrades<'_>,
    k: i64,
    custom: bool,
    params: &[f64],
    table: &mut GainTable,
) -> f64 {
    match kind {
        RELATIVE_PRECISION => return relative_precision(u, k),
        UNJUDGED => return unjudged(u, k),
        JUDGED => return judged(u, k),
        _ => {}
    }
    let n = u.ranked.len();
    let top = if k > 0 { (k as usize).min(n) } else { n };
    let u = &UserGrades {
        ranked: &u.ranked[..top],
        ..*u
    };
    let gains = |table: &mut GainTable| {
        if custom {
            let (pairs, m) = gain_pairs(params);
            table.build(u.judged, &pairs[..m]);
        } else {
            table.build(u.judged, &[]);
        }
    };
    match kind {
        NUM_RET => num_ret(u),
        NUM_REL => num_rel(u),
        NUM_REL_RET => num_rel_ret(u),
        NUM_NONREL_JUDGED_RET => num_nonrel_judged_ret(u),
        NUM_Q => 1.0,
        BPREF if params[0] == 1.0 => bpref_raw(u),
        BPREF => bpref(u),
        INFAP => infap(u),
        IPREC_AT_RECALL => iprec_at_recall(u, params[0]),
        IPREC_AVG => {
            let m = (params[0].max(0.0) as usize).min(N_PARAMS - 1);
            iprec_avg(u, &params[1..1 + m])
        }
        RPREC_MULT => rprec_mult(u, params[0]),
        UTILITY => utility(u, params),
        BIN_G => bin_g(u),
        G => {
            gains(table);
            g(u, table)
        }
        NDCG_REL => {
            gains(table);
            ndcg_rel(u, table)
        }
        R_NDCG => {
            gains(table);
            r_ndcg(u, table)
        }
        SET_PRECISION => set_precision(u),
        SET_RELATIVE_PRECISION => set_relative_precision(u),
        SET_RECALL => set_recall(u),
        SET_AP => set_ap(u),
        SET_F => set_f(u, params[0]),
        RBP if params[1] == 1.0 => rbp_binary(u, params[0]),
        RBP if params[1] == 2.0 => rbp_raw(u, params[0]),
        RBP => {
            table.build(u.judged, &[]);
            rbp(u, params[0], table)
        }
        RBP_RESID => rbp_resid(u, params[0]),
        ERR => err(u, params[0]),
        NERR => nerr(u, k, params[0]),
        _ => f64::NAN,
    }
}

/// DCG, ideal DCG or nDCG (`kind`) with a custom gain table in `params`, cut at k.
pub fn custom_dcg(
    kind: i64,
    u: &UserGrades<'_>,
    k: i64,
    params: &[f64],
    table: &mut GainTable,
) -> f64 {
    let (pairs, m) = gain_pairs(params);
    table.build(u.judged, &pairs[..m]);
    let (dcg, ideal) = dcg_pair(u, k, table);
    match kind {
        DCG => dcg,
        IDCG => ideal,
        _ => {
            if ideal > 0.0 {
                dcg / ideal
            } else {
                0.0
            }
        }
    }
}

/// The value of a trec kind for a user absent from the run, as trec_eval's `-c`
/// computes it: on a list of one item absent from the qrels (none with
/// judged-only), then 0 for the retrieved count, utility, unjudged and the RBP
/// residual.
#[allow(clippy::too_many_arguments)]
pub fn missing_user_measure(
    kind: i64,
    judged: &[f64],
    threshold: f64,
    k: i64,
    judged_only: bool,
    custom: bool,
    params: &[f64],
    table: &mut GainTable,
) -> f64 {
    let absent = [f64::NEG_INFINITY];
    let u = UserGrades {
        ranked: if judged_only { &absent[..0] } else { &absent },
        judged,
        threshold,
    };
    match kind {
        NUM_RET | UTILITY | UNJUDGED | RBP_RESID => 0.0,
        _ => user_measure(kind, &u, k, custom, params, table),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ABSENT: f64 = f64::NEG_INFINITY;

    fn user<'a>(ranked: &'a [f64], judged: &'a [f64], threshold: f64) -> UserGrades<'a> {
        UserGrades {
            ranked,
            judged,
            threshold,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    // two relevant (grade 1) and three judged non-relevant (grade 0) items; ranked:
    // relevant, non-relevant, absent, relevant, non-relevant
    const JUDGED_B: [f64; 5] = [1.0, 1.0, 0.0, 0.0, 0.0];
    const RANKED_B: [f64; 5] = [1.0, 0.0, ABSENT, 1.0, 0.0];

    #[test]
    fn counts_tell_absent_unjudged_and_judged_apart() {
        // judged grades 2, 1, 1, 0 and -1 (in the qrels, unjudged)
        let judged = [2.0, 1.0, 1.0, 0.0, -1.0];
        let ranked = [0.0, ABSENT, 2.0, -1.0, 1.0];
        let u = user(&ranked, &judged, 1.0);
        assert_eq!(num_ret(&u), 5.0);
        assert_eq!(num_rel(&u), 3.0);
        assert_eq!(num_rel_ret(&u), 2.0);
        assert_eq!(num_nonrel_judged_ret(&u), 1.0);
        // threshold 0: every judged grade >= 0 is relevant, the negative one is not
        let u0 = user(&ranked, &judged, 0.0);
        assert_eq!(num_rel(&u0), 4.0);
        assert_eq!(num_rel_ret(&u0), 3.0);
        assert_eq!(num_nonrel_judged_ret(&u0), 0.0);
        let empty = user(&[], &judged, 1.0);
        assert_eq!(num_ret(&empty), 0.0);
        assert_eq!(num_rel_ret(&empty), 0.0);
    }

    #[test]
    fn bpref_counts_judged_non_relevant_above() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        // first relevant: 1; second: 1 - min(1, R) / min(N, R) = 1 - 1/2
        assert_eq!(bpref(&u), (1.0 + 0.5) / 2.0);
        // no relevant item: 0
        assert_eq!(bpref(&user(&[0.0, ABSENT, 0.0], &[0.0, 0.0], 1.0)), 0.0);
        // unjudged items (absent, negative grade) are skipped
        let ranked = [ABSENT, -1.0, 1.0];
        assert_eq!(bpref(&user(&ranked, &[1.0, -1.0], 1.0)), 1.0);
    }

    #[test]
    fn bpref_raw_judges_negative_grades_non_relevant() {
        // trec_eval skips the grade -1 item; ranx counts it non-relevant, above the relevant
        let ranked = [ABSENT, -1.0, 1.0];
        let judged = [1.0, 0.0, -1.0];
        let u = user(&ranked, &judged, 1.0);
        assert_eq!(bpref(&u), 1.0);
        // R = 1, N = 2: 1 - min(1, 1) / min(1, 2)
        assert_eq!(bpref_raw(&u), 0.0);
        let mut t = GainTable::default();
        let mut params = [0.0; N_PARAMS];
        params[0] = 1.0;
        assert_eq!(user_measure(BPREF, &u, 0, false, &params, &mut t), 0.0);
        // the same as trec_eval's without negative grades
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        assert_eq!(bpref_raw(&u), bpref(&u));
        // no judged non-relevant item: 1 for each relevant retrieved, over R
        assert_eq!(bpref_raw(&user(&[1.0, ABSENT], &[2.0, 1.0], 1.0)), 0.5);
        assert_eq!(bpref_raw(&user(&[0.0, -3.0], &[0.0, -3.0], 1.0)), 0.0);
    }

    #[test]
    fn infap_counts_pooled_items_above() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        // rank 4: 1/4 + 3/4 * (2 pooled of 3 above) * (1 + e) / (2 + 2e)
        assert!(close(infap(&u), (1.0 + 0.5) / 2.0));
        // an unjudged pool item above counts as pooled, not as judged
        let ranked = [1.0, 0.0, -1.0, 1.0];
        let judged = [1.0, 1.0, 0.0, -1.0];
        assert!(close(
            infap(&user(&ranked, &judged, 1.0)),
            (1.0 + 0.625) / 2.0
        ));
        assert_eq!(infap(&user(&[], &judged, 1.0)), 0.0);
    }

    #[test]
    fn interpolated_precision() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        // precision at ranks 1..5: 1, 1/2, 1/3, 1/2, 2/5
        assert_eq!(iprec_at_recall(&u, 0.0), 1.0);
        assert_eq!(iprec_at_recall(&u, 0.5), 1.0);
        assert_eq!(iprec_at_recall(&u, 0.3), 1.0); // round(0.6) = 1 relevant
        assert_eq!(iprec_at_recall(&u, 1.0), 0.5);
        // 8 of the 11 levels need at most 1 relevant item, 3 need 2
        assert!(close(iprec_avg(&u, &[]), 9.5 / 11.0));
        // levels are sorted first
        assert!(close(iprec_avg(&u, &[1.0, 0.0]), 0.75));
        // a relevant count never reached: 0
        let none = [0.0, 0.0];
        assert_eq!(iprec_at_recall(&user(&none, &JUDGED_B, 1.0), 0.5), 0.0);
        assert_eq!(iprec_at_recall(&user(&none, &JUDGED_B, 1.0), 0.0), 0.0);
        // an empty list: trec_eval's 0 / 0 at level 0
        assert!(iprec_at_recall(&user(&[], &JUDGED_B, 1.0), 0.0).is_nan());
        assert_eq!(iprec_at_recall(&user(&[], &JUDGED_B, 1.0), 1.0), 0.0);
    }

    #[test]
    fn precision_at_multiples_of_r() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        assert_eq!(rprec_mult(&u, 1.0), 0.5); // rank trunc(2.9) = 2
        assert_eq!(rprec_mult(&u, 0.2), 1.0); // rank trunc(1.3) = 1
        assert_eq!(rprec_mult(&u, 3.0), 2.0 / 6.0); // rank 6, past the list
        assert_eq!(rprec_mult(&user(&RANKED_B, &[0.0], 1.0), 1.0), 0.0); // rank 0
    }

    #[test]
    fn utility_weighs_the_contingency_table() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        assert_eq!(utility(&u, &[1.0, -1.0, 0.0, 0.0, 0.0]), -1.0);
        // 2 * 2 - 1 * 3 - 0.5 * 0 + 0.25 * (10 + 2 - 5 - 2)
        assert_eq!(utility(&u, &[2.0, -1.0, -0.5, 0.25, 10.0]), 2.25);
        // nothing retrieved: the relevant ones are missed
        assert_eq!(
            utility(&user(&[], &JUDGED_B, 1.0), &[1.0, -1.0, -2.0, 0.0, 0.0]),
            -4.0
        );
    }

    #[test]
    fn bin_g_discounts_by_non_relevant_above() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        // 1 / log2(2) + 1 / log2(2 + 2), over R = 2
        assert_eq!(bin_g(&u), 0.75);
        assert_eq!(bin_g(&user(&[0.0, ABSENT], &JUDGED_B, 1.0)), 0.0);
    }

    #[test]
    fn set_measures_and_relative_precision() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        assert_eq!(relative_precision(&u, 1), 1.0);
        assert_eq!(relative_precision(&u, 3), 0.5);
        assert_eq!(relative_precision(&u, 10), 1.0);
        assert_eq!(relative_precision(&u, 0), 1.0);
        assert_eq!(relative_precision(&user(&RANKED_B, &[0.0], 1.0), 3), 0.0);
        assert_eq!(set_precision(&u), 0.4);
        assert_eq!(set_relative_precision(&u), 1.0);
        assert_eq!(set_recall(&u), 1.0);
        assert_eq!(set_ap(&u), 4.0 / 10.0);
        assert_eq!(set_f(&u, 1.0), 2.0 * 0.4 / 1.4);
        let empty = user(&[], &JUDGED_B, 1.0);
        for f in [set_precision, set_relative_precision, set_recall, set_ap] {
            assert_eq!(f(&empty), 0.0);
        }
        assert_eq!(set_f(&empty, 1.0), 0.0);
    }

    #[test]
    fn unjudged_judged_and_the_rbp_residual() {
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        assert_eq!(unjudged(&u, 0), 0.2);
        assert_eq!(unjudged(&u, 2), 0.0);
        assert_eq!(unjudged(&u, 10), 0.1); // trec_eval: ranks past the list are judged
        assert_eq!(judged(&u, 0), 0.8);
        assert_eq!(judged(&u, 10), 0.8); // ir_measures: over the list's length
        assert_eq!(judged(&u, 3), 2.0 / 3.0);
        // a negative grade is unjudged for trec_eval, judged (in the qrels) for ir_measures
        let neg = [-1.0, 1.0];
        assert_eq!(unjudged(&user(&neg, &JUDGED_B, 1.0), 0), 0.5);
        assert_eq!(judged(&user(&neg, &JUDGED_B, 1.0), 0), 1.0);
        // p^5 + (1 - p) p^2 for the absent item at rank 3
        assert_eq!(rbp_resid(&u, 0.5), 0.03125 + 0.125);
        assert_eq!(rbp_resid(&user(&[1.0, 0.0], &JUDGED_B, 1.0), 0.5), 0.0);
        assert_eq!(unjudged(&user(&[], &JUDGED_B, 1.0), 5), 0.0);
        assert_eq!(judged(&user(&[], &JUDGED_B, 1.0), 5), 0.0);
    }

    #[test]
    fn rbp_normalises_grades_above_one() {
        let judged = [3.0, 1.0, 0.0];
        let mut t = GainTable::default();
        t.build(&judged, &[]);
        // gains 1/3 and 3/3
        let v = rbp(&user(&[1.0, 3.0, ABSENT], &judged, 1.0), 0.5, &mut t);
        assert!(close(v, 0.5 * (1.0 / 3.0 + 0.5)));
        let binary = [1.0, 0.0];
        t.build(&binary, &[]);
        assert_eq!(rbp(&user(&[0.0, 1.0], &binary, 1.0), 0.5, &mut t), 0.25);
        // from threshold 2 on: the grade 1 earns nothing, the grade 3 still 3/3
        t.build(&judged, &[]);
        let v = rbp(&user(&[1.0, 3.0, ABSENT], &judged, 2.0), 0.5, &mut t);
        assert!(close(v, 0.5 * 0.5));
    }

    #[test]
    fn rbp_with_raw_grades() {
        let judged = [3.0, 1.0, 0.0, -1.0];
        let u = user(&[1.0, 3.0, ABSENT, -1.0, 0.0], &judged, 1.0);
        // gains 1 and 3 at ranks 1 and 2, unscaled
        assert_eq!(rbp_raw(&u, 0.5), 0.5 * (1.0 + 3.0 * 0.5));
        let mut t = GainTable::default();
        let mut params = [0.0; N_PARAMS];
        params[..2].copy_from_slice(&[0.5, 2.0]);
        assert_eq!(user_measure(RBP, &u, 0, false, &params, &mut t), 1.25);
        // below the threshold no gain
        assert_eq!(
            rbp_raw(&user(&[1.0, 3.0], &judged, 2.0), 0.5),
            0.5 * 3.0 * 0.5
        );
        assert_eq!(rbp_raw(&user(&[], &judged, 1.0), 0.5), 0.0);
    }

    #[test]
    fn rbp_with_binary_gains() {
        let judged = [3.0, 1.0, 0.0];
        let u = user(&[1.0, 3.0, ABSENT, 0.0], &judged, 2.0);
        // only the grade 3 (rank 2) is relevant at threshold 2
        assert_eq!(rbp_binary(&u, 0.5), 0.5 * 0.5);
        let mut t = GainTable::default();
        let mut params = [0.0; N_PARAMS];
        params[..2].copy_from_slice(&[0.5, 1.0]);
        assert_eq!(user_measure(RBP, &u, 0, false, &params, &mut t), 0.25);
        assert_eq!(rbp_binary(&user(&[], &judged, 1.0), 0.5), 0.0);
        // cwl_eval: a negative grade is read as 0, an absent item is never relevant
        let u = user(&[-1.0, ABSENT, 0.0], &[0.0, -1.0], 0.0);
        assert_eq!(rbp_binary(&u, 0.5), 0.5 * (1.0 + 0.25));
        let u = user(&[-1.0, ABSENT, 0.0], &[0.0, -1.0], -1.0);
        assert_eq!(rbp_binary(&u, 0.5), 0.5 * (1.0 + 0.25));
    }

    #[test]
    fn err_and_nerr() {
        let judged = [4.0, 2.0, 0.0];
        let u = user(&[2.0, 0.0, 4.0], &judged, 1.0);
        // 3/16 + (15/16) (13/16) / 3
        assert_eq!(err(&u, 0.0), 0.44140625);
        assert_eq!(err(&user(&[ABSENT, -1.0], &judged, 1.0), 0.0), 0.0);
        // the largest grade: 3
        assert_eq!(err(&user(&[3.0], &judged, 1.0), 3.0), 7.0 / 8.0);
        // nERR: relevant at ranks 1 and 3, weights 1 and 1/2; ideal ranks 1 and 2
        assert_eq!(nerr(&u, 0, 0.5), (1.0 + 0.5 / 3.0) / (1.0 + 0.5 / 2.0));
        // cut at 1: the ideal list is cut too
        let cut = user(&u.ranked[..1], &judged, 1.0);
        assert_eq!(nerr(&cut, 1, 0.0), 1.0);
        // threshold 3: one relevant item, at rank 3
        assert_eq!(nerr(&user(u.ranked, &judged, 3.0), 0, 0.5), 1.0 / 3.0);
        assert_eq!(nerr(&user(&[0.0, ABSENT], &judged, 1.0), 0, 0.5), 0.0);
        assert_eq!(nerr(&user(&[0.0, -1.0], &[0.0, -1.0], 1.0), 0, 0.5), 0.0);
    }

    #[test]
    fn custom_gains_and_ndcg() {
        let judged = [2.0, 1.0, 0.0];
        let mut t = GainTable::default();
        t.build(&judged, &[(1.0, 3.0), (2.0, 9.0)]);
        let u = user(&[1.0, ABSENT, 2.0], &judged, 1.0);
        let (dcg, ideal) = dcg_pair(&u, 0, &t);
        assert_eq!(dcg, 3.0 + 9.0 / 2.0);
        assert_eq!(ideal, 9.0 + 3.0 / 3f64.log2());
        assert_eq!(ndcg(&u, 0, &t), dcg / ideal);
        // cut at 1: 3 over 9
        assert_eq!(ndcg(&u, 1, &t), 3.0 / 9.0);
        // default gains: the grades
        t.build(&judged, &[]);
        assert_eq!(dcg_pair(&u, 0, &t), (1.0 + 1.0, 2.0 + 1.0 / 3f64.log2()));
    }

    #[test]
    fn gain_table_sorts_like_trec_eval() {
        // trec_eval compares (int)(gain_a - gain_b): 4.5 and 4 are "equal", so the
        // pair (1, 4.5) stays below the level 4 and the ideal list is 4, then 4.5
        let judged = [4.0, 1.0];
        let mut t = GainTable::default();
        t.build(&judged, &[(1.0, 4.5)]);
        let gains: Vec<f64> = t.levels.iter().map(|l| l.gain).collect();
        assert_eq!(gains, vec![0.0, 2.0, 3.0, 4.5, 4.0]);
        let u = user(&[4.0, 1.0], &judged, 1.0);
        assert_eq!(ndcg(&u, 0, &t), 1.0);
        let swapped = user(&[1.0, 4.0], &judged, 1.0);
        assert!(ndcg(&swapped, 0, &t) > 1.0);
    }

    #[test]
    fn g_ndcg_rel_and_r_ndcg() {
        // judged grades 2, 1, 0; ranked: 1, absent, 2
        let judged = [2.0, 1.0, 0.0];
        let mut t = GainTable::default();
        t.build(&judged, &[]);
        let u = user(&[1.0, ABSENT, 2.0], &judged, 1.0);
        // G: ideal gains 2, 1; costs 2, 1, 1 (at least 1 a rank)
        let want = 1.0 / (2.0 + 2.0 - 1.0f64).log2() + 2.0 / (2.0 + 4.0 - 3.0f64).log2();
        assert!(close(g(&u, &t), want / 3.0));
        // ndcg_rel: at rank 1 dcg 1 / idcg 2, at rank 3 (1 + 2/2) / (2 + 1/log2 3)
        let idcg2 = 2.0 + 1.0 / 3f64.log2();
        let want = (1.0 / 2.0 + 2.0 / idcg2) / 2.0;
        assert!(close(ndcg_rel(&u, &t), want));
        // Rndcg: levels change after rank 1 (2 -> 1) and rank 2 (1 -> 0)
        let want = (1.0 / 2.0 + 1.0 / idcg2) / 2.0;
        assert!(close(r_ndcg(&u, &t), want));
        // no relevant item: 0
        let none = user(&[0.0], &[0.0], 1.0);
        t.build(&[0.0], &[]);
        assert_eq!(r_ndcg(&none, &t), 0.0);
        assert_eq!(g(&none, &t), 0.0);
        assert_eq!(ndcg_rel(&none, &t), 0.0);
    }

    #[test]
    fn dispatch_cuts_at_k_and_reads_params() {
        let mut t = GainTable::default();
        let u = user(&RANKED_B, &JUDGED_B, 1.0);
        let mut params = [0.0; N_PARAMS];
        assert_eq!(user_measure(NUM_RET, &u, 3, false, &params, &mut t), 3.0);
        assert_eq!(user_measure(NUM_REL, &u, 3, false, &params, &mut t), 2.0);
        assert_eq!(user_measure(NUM_Q, &u, 3, false, &params, &mut t), 1.0);
        assert_eq!(user_measure(UNJUDGED, &u, 10, false, &params, &mut t), 0.1);
        params[0] = 1.0;
        assert_eq!(user_measure(RPREC_MULT, &u, 0, false, &params, &mut t), 0.5);
        // custom gains for G: P0 pairs, then grade, gain
        params[..3].copy_from_slice(&[1.0, 1.0, 5.0]);
        let plain = user_measure(G, &u, 0, false, &params, &mut t);
        let custom = user_measure(G, &u, 0, true, &params, &mut t);
        assert!(close(plain, custom)); // one gain level: G does not depend on its size
        assert!(user_measure(99, &u, 0, false, &params, &mut t).is_nan());
    }

    #[test]
    fn missing_users_are_one_absent_item() {
        let mut t = GainTable::default();
        let params = [
            0.9, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        ];
        let m = |kind, judged_only, t: &mut GainTable| {
            missing_user_measure(kind, &JUDGED_B, 1.0, 0, judged_only, false, &params, t)
        };
        assert_eq!(m(NUM_REL, false, &mut t), 2.0);
        assert_eq!(m(NUM_Q, false, &mut t), 1.0);
        assert_eq!(m(NUM_RET, false, &mut t), 0.0);
        assert_eq!(m(RBP_RESID, false, &mut t), 0.0);
        assert_eq!(m(UNJUDGED, false, &mut t), 0.0);
        assert_eq!(m(SET_PRECISION, false, &mut t), 0.0);
        // one absent item: 0 / 1; judged-only: an empty list, trec_eval's 0 / 0
        assert_eq!(m(IPREC_AT_RECALL, false, &mut t), 0.0);
        assert!(m(IPREC_AVG, true, &mut t).is_nan());
    }
}
