//! The value of one top-K metric for one user: from every position of the list
//! ([`user_metric`], which also averages over tied blocks) or from the positions of
//! the hits only ([`metric_from_hits`]).

use crate::sort::quicksort;
use crate::spec::{
    ApNorm, Gain, Ideal, PrecisionNorm, RecallNorm, Spec, Ties, AP, CG, DCG, F1, HIT_RATIO, IDCG,
    NDCG, PRECISION, RECALL, RR, R_PRECISION, SUCCESS,
};
use crate::ties::{block_precision_sum, expected_first_hit, hypergeometric, tied_block_end};

/// One metric as one user's list computes it: the kind, cut-off and AP normalisation
/// after [`normalized_form`], the spec's thresholds and conventions.
#[derive(Clone, Copy, Debug)]
pub struct UserMetric {
    /// metric kind
    pub kind: i64,
    /// cut-off (<= 0: none)
    pub k: i64,
    /// relevance threshold
    pub threshold: f64,
    /// threshold from which gains are earned
    pub gain_threshold: f64,
    /// gain convention
    pub gain: Gain,
    /// AP normalisation
    pub ap_norm: ApNorm,
    /// ideal order of the IDCG
    pub ideal: Ideal,
    /// tie rule
    pub ties: Ties,
    /// the power of two every gain is multiplied by: 1, or 2**-64 where a sum of gains
    /// (each finite) overflows float64 (exact: NDCG, their ratio, is the same)
    pub gain_scale: f64,
}

/// The scale of the gains of a user whose DCG or ideal DCG overflows: sums of at most
/// 2**63 finite gains times it stay finite.
const OVERFLOW_SCALE: f64 = 1.0 / 18_446_744_073_709_551_616.0;

impl UserMetric {
    /// The gain of `grade` ([`gain`]), times the metric's `gain_scale`.
    #[inline(always)]
    fn gain_of(&self, grade: f64) -> f64 {
        gain(grade, self.gain_threshold, self.gain) * self.gain_scale
    }

    /// NDCG of a DCG and an ideal DCG that overflow float64 (every gain finite) is their
    /// ratio at a smaller scale: the metric to compute again, or None where it is already.
    fn rescaled(&self, dcg: f64, ideal_dcg: f64) -> Option<UserMetric> {
        let overflowed = dcg.is_infinite() || ideal_dcg.is_infinite();
        (overflowed && self.gain_scale == 1.0).then_some(UserMetric {
            gain_scale: OVERFLOW_SCALE,
            ..*self
        })
    }
}

/// One user's list: `grades` of the ranked items (-inf if unjudged) in the metric's
/// order, their `scores` (best first), and `judged`, the user's judged grades
/// descending.
#[derive(Clone, Copy, Debug)]
pub struct UserList<'a> {
    /// grade of each ranked item
    pub grades: &'a [f64],
    /// score of each ranked item, aligned with `grades`
    pub scores: &'a [f64],
    /// the user's judged grades, descending
    pub judged: &'a [f64],
}

/// Gain of a grade: 0 below `threshold`, else 1, `2^grade - 1` or the grade.
#[inline(always)]
pub fn gain(grade: f64, threshold: f64, gain: Gain) -> f64 {
    if grade < threshold {
        return 0.0;
    }
    if gain == Gain::Binary {
        return 1.0;
    }
    if gain == Gain::Exponential {
        return 2.0f64.powf(grade) - 1.0;
    }
    grade
}

/// DCG of the ideal order, gains earned from `m.gain_threshold` on: the ranked
/// candidates' grades sorted (`Ideal::Candidates`, depth `k_eff`) or the user's
/// judged grades (already descending; depth k, or all of them without a cut-off).
/// `cand` is scratch of at least the list's length.
pub fn idcg(
    m: &UserMetric,
    k_eff: i64,
    list: &UserList<'_>,
    cand: &mut [f64],
    disc: &[f64],
) -> f64 {
    let mut idcg = 0.0;
    if m.ideal == Ideal::Candidates {
        let n = list.grades.len();
        cand[..n].copy_from_slice(list.grades);
        quicksort(&mut cand[..n]);
        let depth = (k_eff.max(0) as usize).min(n);
        for (j, &d) in disc[..depth].iter().enumerate() {
            idcg += m.gain_of(cand[n - 1 - j]) * d;
        }
    } else {
        let judged = list.judged.len();
        let depth = if m.k <= 0 {
            judged
        } else {
            (m.k as usize).min(judged)
        };
        for (j, &d) in disc[..depth].iter().enumerate() {
            idcg += m.gain_of(list.judged[j]) * d;
        }
    }
    idcg
}

/// Average precision's expected value over every order of the tied blocks of
/// `scores` (each order of a block equally likely): the sum of precision at the
/// relevant positions within `top`, divided by `fixed` (the relevant items, or
/// min(R, k)) or, when None, by the relevant items ranked within `top`. The sum is
/// linear in the orders; the ratio by the hits is not when a block straddles `top`,
/// so there the number of its relevant items within `top` is conditioned on
/// (hypergeometric). Exact, no enumeration.
pub(crate) fn expected_ap(
    grades: &[f64],
    scores: &[f64],
    top: usize,
    threshold: f64,
    fixed: Option<f64>,
) -> f64 {
    let n = scores.len();
    let mut sum = 0.0;
    let mut c = 0usize; // relevant items of the blocks wholly within top
    let mut t = 0;
    while t < n && t < top {
        let e = tied_block_end(scores, t);
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

/// AP's denominator: R, min(R, k) or the hits.
#[inline]
fn ap_norm_of(m: &UserMetric, n_rel: i64, k_eff: i64, hits: f64) -> f64 {
    match m.ap_norm {
        ApNorm::Relevant => n_rel as f64,
        ApNorm::MinK if m.k > 0 => n_rel.min(k_eff) as f64,
        ApNorm::MinK => n_rel as f64,
        _ => hits,
    }
}

/// `(value, R)` of one metric for one user, walking every position.
///
/// Relevance is `grade >= m.threshold` and gains are earned from `m.gain_threshold`
/// on; with `m.ties == Ties::Average` relevance and gain are averaged over the tied
/// blocks of `list.scores`. R is the user's number of relevant items. `rel`,
/// `gains`, `cand` are scratch (at least the list's length); `disc[j]` is
/// `1 / log2(j + 2)`.
pub fn user_metric(
    m: &UserMetric,
    list: &UserList<'_>,
    rel: &mut [f64],
    gains: &mut [f64],
    cand: &mut [f64],
    disc: &[f64],
) -> (f64, f64) {
    let (kind, k, threshold) = (m.kind, m.k, m.threshold);
    let (grades, scores) = (list.grades, list.scores);
    let n = grades.len();
    let n_rel = list.judged.iter().filter(|&&g| g >= threshold).count() as i64;
    let k_eff = effective_k(kind, k, n_rel, n);
    let top = top_of(k_eff, n);
    let average = m.ties == Ties::Average;

    // per-position relevance and gain, averaged over tied blocks when asked
    rel[..top].fill(0.0);
    gains[..top].fill(0.0);
    if average {
        let mut t = 0;
        while t < n && t < top {
            let e = tied_block_end(scores, t);
            let mut r_sum = 0.0;
            let mut g_sum = 0.0;
            for &g in &grades[t..e] {
                if g >= threshold {
                    r_sum += 1.0;
                }
                g_sum += m.gain_of(g);
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
            gains[j] = m.gain_of(grades[j]);
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
            let ideal_dcg = idcg(m, k_eff, list, cand, disc);
            if kind == IDCG {
                return (ideal_dcg, aux);
            }
            if let Some(scaled) = m.rescaled(dcg, ideal_dcg) {
                return user_metric(&scaled, list, rel, gains, cand, disc);
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
            if !average {
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
                let e = tied_block_end(scores, t);
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
        AP if average => {
            let fixed = match m.ap_norm {
                ApNorm::Relevant | ApNorm::MinK => Some(ap_norm_of(m, n_rel, k_eff, 0.0)),
                _ => None,
            };
            (expected_ap(grades, scores, top, threshold, fixed), aux)
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
            let norm = ap_norm_of(m, n_rel, k_eff, hits);
            (if norm > 0.0 { s / norm } else { 0.0 }, aux)
        }
        _ => (f64::NAN, aux),
    }
}

/// Value of one metric for one user from the positions of its relevant items.
///
/// `hit_pos` are the ranks (0-based, ascending) of the listed items whose grade is
/// at least `m.gain_threshold` and `hit_grades` their grades: every metric here
/// only sums over those, so a user costs O(hits), not O(k). Terms are added in rank
/// order, so sums equal a walk over every position. Kinds other than the ones
/// named are computed as the DCG family (as in the reference kernel).
pub fn metric_from_hits(
    m: &UserMetric,
    list: &UserList<'_>,
    (hit_pos, hit_grades): (&[usize], &[f64]),
    n_rel: i64,
    cand: &mut [f64],
    disc: &[f64],
) -> f64 {
    let kind = m.kind;
    let n = list.grades.len();
    let k_eff = effective_k(kind, m.k, n_rel, n);
    let top = top_of(k_eff, n);
    let h = hit_pos.len();
    let mut hits = 0usize;
    while hits < h && hit_pos[hits] < top {
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
                1.0 / (hit_pos[0] + 1) as f64
            } else {
                0.0
            }
        }
        AP => {
            let mut s = 0.0;
            for (i, &p) in hit_pos[..hits].iter().enumerate() {
                s += (i as f64 + 1.0) / (p + 1) as f64;
            }
            let norm = ap_norm_of(m, n_rel, k_eff, hits as f64);
            return if norm > 0.0 { s / norm } else { 0.0 };
        }
        CG => {
            let mut s = 0.0;
            for &g in &hit_grades[..hits] {
                s += m.gain_of(g);
            }
            return s;
        }
        _ => {}
    }
    // DCG, IDCG, NDCG
    let mut dcg = 0.0;
    for i in 0..hits {
        dcg += m.gain_of(hit_grades[i]) * disc[hit_pos[i]];
    }
    if kind == DCG {
        return dcg;
    }
    let ideal_dcg = idcg(m, k_eff, list, cand, disc);
    if kind == IDCG {
        return ideal_dcg;
    }
    if let Some(scaled) = m.rescaled(dcg, ideal_dcg) {
        return metric_from_hits(&scaled, list, (hit_pos, hit_grades), n_rel, cand, disc);
    }
    if ideal_dcg > 0.0 {
        dcg / ideal_dcg
    } else {
        0.0
    }
}

/// The kind, cut-off and AP normalisation that compute a spec's metric under the
/// normalisers of `precision_norm`, `recall_norm` and `ApNorm::MinRetrieved`, for a
/// user with `n_rel` relevant items and a list of `len` items: precision over
/// min(k, len) is precision at the cut-off min(k, len) (the list holds no more);
/// recall over min(R, k) is precision@k when R > k, else recall@k; AP over
/// min(R, retrieved) is AP over min(R, k') at the cut-off k' = min(k, len) (`len`
/// without a cut-off). The same hits, so the same float as a direct formula.
pub fn normalized_form(spec: &Spec, n_rel: i64, len: usize) -> (i64, i64, ApNorm) {
    let (kind, k, ap_norm) = (spec.kind, spec.k, spec.ap_norm);
    let len = len as i64;
    if kind == PRECISION && spec.precision_norm == PrecisionNorm::Retrieved && k > len {
        return (kind, len, ap_norm);
    }
    if kind == RECALL && spec.recall_norm == RecallNorm::MinK && k > 0 && n_rel > k {
        return (PRECISION, k, ap_norm);
    }
    if kind == AP && ap_norm == ApNorm::MinRetrieved {
        let k = if k > 0 { k.min(len) } else { len };
        return (kind, k, ApNorm::MinK);
    }
    (kind, k, ap_norm)
}
