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
/// binary preference
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
/// rank-biased precision (P0: persistence)
pub const RBP: i64 = 35;
/// residual of rank-biased precision (P0: persistence)
pub const RBP_RESID: i64 = 36;
/// share of unjudged items in the top k (trec_eval's unj)
pub const UNJUDGED: i64 = 37;
/// share of judged items in the top k (ir_measures' Judged)
pub const JUDGED: i64 = 38;
/// expected reciprocal rank (gdeval's ERR; P0: the largest grade, 0 = 4)
pub const ERR: i64 = 39;
/// ERR over the ERR of the ideal list (P0: the largest grade, 0 = 4)
pub const NERR: i64 = 40;
/// first kind computed here
pub const FIRST_KIND: i64 = NUM_RET;
/// last kind computed here
pub const LAST_KIND: i64 = NERR;

/// float parameters of a metric (columns `S_PARAMS..S_PARAMS + N_PARAMS` of `specs`)
pub const N_PARAMS: usize = 16;
/// (grade, gain) pairs of a custom gain table (P0 = count, then grade, gain, ...)
pub const MAX_GAIN_PAIRS: usize = 7;

const INFAP_EPSILON: f64 = 0.00001;
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
    fn is_rel(&self, grade: f64) -> bool {
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
fn err_gain(grade: f64, max_grade: f64) -> f64 {
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

fn err_max_grade(p0: f64) -> f64 {
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

/// ERR over the ERR of the ideal list (the user's judged grades descending, cut at
/// k when k > 0); 0 when the ideal ERR is 0.
pub fn nerr(u: &UserGrades<'_>, k: i64, max_grade: f64) -> f64 {
    let m = err_max_grade(max_grade);
    let depth = if k > 0 {
        (k as usize).min(u.judged.len())
    } else {
        u.judged.len()
    };
    let ideal = err_of(u.judged[..depth].iter().copied(), m);
    if ideal > 0.0 {
        err_of(u.ranked.iter().copied(), m) / ideal
    } else {
        0.0
    }
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
    fn normalise(&mut self) {
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
    fn gain(&self, grade: f64) -> f64 {
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
    let n = u.ranked.len();
    let top = if k > 0 { (k as usize).min(n) } else { n };
    let mut dcg = 0.0;
    for (i, &g) in u.ranked[..top].iter().enumerate() {
        let gain = t.gain(g);
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
    let n = u.ranked.len();
    let (mut value, mut got, mut ideal, mut cost) = (0.0, 0.0, 0.0, 0.0);
    let min_cost = 1.0;
    let mut walk = IdealWalk::new(t);
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let gain = t.gain(u.ranked[i]);
        got += gain;
        walk.step(t);
        if walk.gain > 0.0 {
            ideal += walk.gain;
        }
        cost += if walk.gain >= min_cost {
            walk.gain
        } else {
            min_cost
        };
        if gain != 0.0 {
            value += gain / (2.0 + cost - got).log2();
        }
        i += 1;
    }
    while i < n {
        let gain = t.gain(u.ranked[i]);
        got += gain;
        cost += min_cost;
        if gain != 0.0 {
            value += gain / (2.0 + cost - got).log2();
        }
        i += 1;
    }
    while walk.gain > 0.0 {
        walk.step(t);
        if walk.gain > 0.0 {
            ideal += walk.gain;
        }
    }
    if ideal > 0.0 {
        value / ideal
    } else {
        0.0
    }
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

/// nDCG averaged at the R levels: at each rank where the ideal gain changes (and at
/// the end of the list once the ideal gains are spent), the nDCG of the ranks above.
/// 0 without a relevant item.
pub fn r_ndcg(u: &UserGrades<'_>, t: &GainTable) -> f64 {
    if u.num_rel() == 0 {
        return 0.0;
    }
    let n = u.ranked.len();
    let (mut dcg, mut ideal, mut sum) = (0.0, 0.0, 0.0);
    let mut changes = 0i64;
    let mut walk = IdealWalk::new(t);
    let mut last = walk.gain;
    let mut i = 0;
    while i < n && walk.gain > 0.0 {
        let gain = t.gain(u.ranked[i]);
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
            let gain = t.gain(u.ranked[i]);
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
/// grades normalised to [0, 1] when some lies outside.
pub fn rbp(u: &UserGrades<'_>, p: f64, t: &mut GainTable) -> f64 {
    t.normalise();
    let mut sum = 0.0;
    let mut weight = 1.0;
    for &g in u.ranked {
        let gain = t.gain(g);
        if gain != 0.0 {
            sum += gain * weight;
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
        NERR => {
            let n = u.ranked.len();
            let top = if k > 0 { (k as usize).min(n) } else { n };
            let cut = UserGrades {
                ranked: &u.ranked[..top],
                ..*u
            };
            return nerr(&cut, k, params[0]);
        }
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
        RBP => {
            table.build(u.judged, &[]);
            rbp(u, params[0], table)
        }
        RBP_RESID => rbp_resid(u, params[0]),
        ERR => err(u, params[0]),
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
