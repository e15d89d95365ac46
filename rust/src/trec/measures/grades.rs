//! One user's list as trec_eval sees it ([`UserGrades`]), and the measures that
//! count relevant, non-relevant and unjudged items in it (precision-like, set,
//! bpref, infAP, interpolated precision, utility, ERR, nERR).

use crate::spec::{RecallRounding, N_PARAMS};

/// infAP's smoothing of the relevant share of the judged items above an item
pub const INFAP_EPSILON: f64 = 0.00001;
const DEFAULT_ERR_MAX_GRADE: f64 = 4.0;

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
/// the level's count of relevant items (`rounding`: `round(level * R)` in trec_eval
/// 10.0, `trunc(level * R + 0.9)` before), 0 for levels beyond the relevant
/// retrieved. Returns the sum of the values (in trec_eval's order of addition:
/// highest level first).
fn iprec_sum(u: &UserGrades<'_>, levels: &[f64], rounding: RecallRounding) -> f64 {
    let n = u.ranked.len();
    let n_rel = u.num_rel();
    if n == 0 {
        // trec_eval's 0 / 0 (a list emptied by judged-only): nan at the levels of 0
        // relevant items, 0 at the others
        return levels
            .iter()
            .map(|&l| {
                if rounding.relevant_count(l, n_rel) <= 0 {
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
        *c = rounding.relevant_count(l, n_rel);
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
pub fn iprec_at_recall(u: &UserGrades<'_>, recall: f64, rounding: RecallRounding) -> f64 {
    iprec_sum(u, &[recall], rounding)
}

/// trec_eval's 11 recall levels of 11pt_avg.
pub const ELEVEN_LEVELS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];

/// Interpolated precision averaged over recall levels (`levels` empty: the 11
/// levels 0.0, 0.1, ..., 1.0); the levels are sorted first, as trec_eval does.
pub fn iprec_avg(u: &UserGrades<'_>, levels: &[f64], rounding: RecallRounding) -> f64 {
    let mut sorted = [0.0f64; N_PARAMS];
    let levels: &[f64] = if levels.is_empty() {
        &ELEVEN_LEVELS
    } else {
        let m = levels.len().min(N_PARAMS);
        sorted[..m].copy_from_slice(&levels[..m]);
        sorted[..m].sort_by(|a, b| a.total_cmp(b));
        &sorted[..m]
    };
    iprec_sum(u, levels, rounding) / levels.len() as f64
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

/// Stopping probability of gdeval's ERR: `(2^g - 1) / 2^max_grade` for g > 0; past
/// `max_grade` 1023, where `2^max_grade` overflows (inf / inf), as
/// `2^(g - max_grade) - 2^-max_grade`.
#[inline]
pub fn err_gain(grade: f64, max_grade: f64) -> f64 {
    let scale = 2.0f64.powf(max_grade);
    if grade > 0.0 && scale.is_finite() {
        (2.0f64.powf(grade) - 1.0) / scale
    } else if grade > 0.0 {
        2.0f64.powf(grade - max_grade) - 2.0f64.powf(-max_grade)
    } else {
        0.0
    }
}

/// Stopping probability of CatBoost's ERR and PFound: the grade itself (a target in
/// [0, 1]); 0 for an item absent from the qrels or with a negative grade.
#[inline]
pub fn stop_probability(grade: f64) -> f64 {
    grade.max(0.0)
}

/// The stopping probability of an ERR spec's parameters: `(2^g - 1) / 2^P0` (gdeval's),
/// or the grade itself when P1 = 1 (CatBoost's).
pub fn err_stop(params: &[f64]) -> impl Fn(f64) -> f64 {
    let (max_grade, grade_is_probability) = (err_max_grade(params[0]), params[1] == 1.0);
    move |g| {
        if grade_is_probability {
            stop_probability(g)
        } else {
            err_gain(g, max_grade)
        }
    }
}

/// The cascade of ERR and PFound: the user looks at rank i with the product of `1 - y`
/// of the items above (times `look(i)`), stops there with probability `y` and earns
/// `weight(i)` (ranks from 0).
pub fn cascade<I, Y, W>(grades: I, stop: Y, weight: W) -> f64
where
    I: Iterator<Item = f64>,
    Y: Fn(f64) -> f64,
    W: Fn(usize) -> f64,
{
    let mut score = 0.0;
    let mut decay = 1.0;
    for (i, g) in grades.enumerate() {
        let r = stop(g);
        score += r * decay * weight(i);
        decay *= 1.0 - r;
    }
    score
}

/// The weight of rank `i` (from 0) in ERR: `1 / (i + 1)`.
#[inline]
pub fn err_weight(i: usize) -> f64 {
    1.0 / (i + 1) as f64
}

pub fn err_max_grade(p0: f64) -> f64 {
    if p0 > 0.0 {
        p0
    } else {
        DEFAULT_ERR_MAX_GRADE
    }
}

/// Expected reciprocal rank (Chapelle et al.; gdeval, ir_measures' ERR): the user
/// stops at rank i with probability `(2^g - 1) / 2^max_grade` (P0), or the grade itself
/// (P1 = 1: CatBoost's ERR of targets in [0, 1]), and earns `1 / i`. Relevance levels
/// play no part: every positive grade is a gain.
pub fn err(u: &UserGrades<'_>, params: &[f64]) -> f64 {
    cascade(u.ranked.iter().copied(), err_stop(params), err_weight)
}

/// PFound's default decay of the chance of looking on (CatBoost's `decay`).
pub const DEFAULT_PFOUND_DECAY: f64 = 0.85;

/// The weight of rank `i` (from 0) in PFound: `decay^i`.
pub fn pfound_weight(decay: f64) -> impl Fn(usize) -> f64 {
    let d = if decay > 0.0 {
        decay
    } else {
        DEFAULT_PFOUND_DECAY
    };
    move |i| d.powi(i as i32)
}

/// CatBoost's PFound: the user looks at the first item, finds it with probability its
/// grade (a target in [0, 1]), and else looks on with probability `decay` (P0; 0:
/// 0.85): the sum over ranks of the grade times the chance of looking there.
pub fn pfound(u: &UserGrades<'_>, decay: f64) -> f64 {
    cascade(
        u.ranked.iter().copied(),
        stop_probability,
        pfound_weight(decay),
    )
}

/// CatBoost's AverageGain: the mean grade of the top min(k, n) items (an item absent
/// from the qrels or with a negative grade: 0); 0 for an empty list.
pub fn average_gain(u: &UserGrades<'_>) -> f64 {
    if u.ranked.is_empty() {
        return 0.0;
    }
    let sum: f64 = u.ranked.iter().map(|&g| stop_probability(g)).sum();
    sum / u.ranked.len() as f64
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
