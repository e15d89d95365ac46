//! Expected values of trec_eval's measures over the orders of tied scores.
//!
//! With `ties="average"` every order of a block of equal scores is equally likely,
//! and a measure takes its expected value over those orders. Each kind here has an
//! exact closed form, computed without enumerating orders:
//!
//! - measures linear in a per-position quantity (RBP, its residual's sum, R-nDCG,
//!   DCG with a gain table, counts and shares of the top k) take that quantity's
//!   mean over each tied block at each of its positions;
//! - functions of the number of items of one kind in the top k (set_F, set_map,
//!   the residual's "any unjudged") take their expectation over the hypergeometric
//!   law of that number in the block cut by k;
//! - bpref and binary G score each relevant item by the judged non-relevant (or
//!   non-relevant) items above it: within a block of m such items that number is
//!   uniform on 0..=m; in a block cut by k it is conditioned on the item's offset;
//! - ndcg_rel: the DCG at each item of positive gain is a sum of products of two
//!   items' quantities, whose means within a block are those of distinct pairs;
//! - nERR: the j-th relevant item of a block of s items, h relevant, lies at offset
//!   o with probability `C(o, j - 1) C(s - 1 - o, h - j) / C(s, h)`;
//! - ERR and PFound: the item at offset j of a block is each item with probability
//!   1/s, the j before it a uniformly random subset of the others (means of products
//!   of subsets, one grade at a time; see `expected_cascade`);
//! - AverageGain: the mean grade over each tied block at each of its positions.
//!
//! - infAP, G and interpolated precision (one level or averaged): see
//!   [`forms`].
//!
//! ndcg_rel with a negative gain has no such form (its value is clamped at 0 then):
//! [`expected_measure`] returns nan for it.

pub mod forms;

use super::measures::{self as tm, GainTable, UserGrades};
use crate::spec::{
    Gain, Spec, AVERAGE_GAIN, BIN_G, BPREF, DCG, ERR, G, IDCG, INFAP, IPREC_AT_RECALL, IPREC_AVG,
    JUDGED, NDCG_REL, NERR, NUM_NONREL_JUDGED_RET, NUM_Q, NUM_REL, NUM_REL_RET, NUM_RET, N_PARAMS,
    PFOUND, RBP, RBP_RESID, RELATIVE_PRECISION, RPREC_MULT, R_NDCG, SET_AP, SET_F, SET_PRECISION,
    SET_RECALL, SET_RELATIVE_PRECISION, UNJUDGED, UTILITY,
};
use crate::ties::{hypergeometric, tied_block_end};

/// The mean of `f` over the tied block of each position `0..top` (its expected value
/// at that position).
fn position_means<F: Fn(f64) -> f64>(ranked: &[f64], scores: &[f64], top: usize, f: F) -> Vec<f64> {
    let mut out = vec![0.0; top];
    let mut t = 0;
    while t < top {
        let e = tied_block_end(scores, t);
        let mean = ranked[t..e].iter().map(|&g| f(g)).sum::<f64>() / (e - t) as f64;
        out[t..e.min(top)].fill(mean);
        t = e;
    }
    out
}

/// The law of the number of items with `is` in the first `top` positions: `c` of
/// them in the blocks wholly above `top`, plus `lo + i` with probability `probs[i]`
/// from the block that `top` cuts (hypergeometric; `[1.0]` when none is cut).
struct CountLaw {
    c: i64,
    lo: usize,
    probs: Vec<f64>,
}

impl CountLaw {
    fn new<F: Fn(f64) -> bool>(ranked: &[f64], scores: &[f64], top: usize, is: F) -> Self {
        let mut c = 0i64;
        let mut t = 0;
        while t < top {
            let e = tied_block_end(scores, t);
            let h = ranked[t..e].iter().filter(|&&g| is(g)).count();
            if e > top {
                let (lo, probs) = hypergeometric(e - t, h, top - t);
                return CountLaw { c, lo, probs };
            }
            c += h as i64;
            t = e;
        }
        CountLaw {
            c,
            lo: 0,
            probs: vec![1.0],
        }
    }

    /// E[f(count)].
    fn expect<F: Fn(i64) -> f64>(&self, f: F) -> f64 {
        self.probs
            .iter()
            .enumerate()
            .filter(|&(_, &p)| p > 0.0)
            .map(|(i, &p)| p * f(self.c + (self.lo + i) as i64))
            .sum()
    }

    fn mean(&self) -> f64 {
        self.expect(|x| x as f64)
    }

    /// P(count = 0).
    fn none(&self) -> f64 {
        if self.c == 0 && self.lo == 0 {
            self.probs[0]
        } else {
            0.0
        }
    }
}

/// Expected sum, over the items with `is_item` in the first `top` positions, of
/// `f(items with is_other above it)`. Items with neither mark are ignored. Within a
/// block of m `is_other` items, that number for an item of the block is uniform on
/// 0..=m past those of the blocks above; in the block cut by `top`, the item at
/// offset o has above it a hypergeometric number of the block's m among o of its
/// s - 1 other items.
fn expected_above<I, O, F>(
    ranked: &[f64],
    scores: &[f64],
    top: usize,
    is_item: I,
    is_other: O,
    f: F,
) -> f64
where
    I: Fn(f64) -> bool,
    O: Fn(f64) -> bool,
    F: Fn(i64) -> f64,
{
    let mut sum = 0.0;
    let mut c = 0i64; // is_other items of the blocks above
    let mut t = 0;
    while t < top {
        let e = tied_block_end(scores, t);
        let s = e - t;
        let h = ranked[t..e].iter().filter(|&&g| is_item(g)).count();
        let m = ranked[t..e].iter().filter(|&&g| is_other(g)).count();
        if h > 0 {
            if e <= top {
                let all: f64 = (0..=m as i64).map(|y| f(c + y)).sum();
                sum += h as f64 * all / (m + 1) as f64;
            } else {
                // the item's offset o is uniform on 0..s; only o < top - t is within
                let mut within = 0.0;
                for o in 0..top - t {
                    let (lo, probs) = hypergeometric(s - 1, m, o);
                    for (i, &p) in probs.iter().enumerate() {
                        if p > 0.0 {
                            within += p * f(c + (lo + i) as i64);
                        }
                    }
                }
                sum += h as f64 * within / s as f64;
            }
        }
        c += m as i64;
        t = e;
    }
    sum
}

/// Expected nERR numerator: the j-th relevant item of the list at rank r (from 1)
/// earns `(1 - alpha)^(j - 1) / r`, summed over the first `top` positions.
fn expected_nerr_gain<F: Fn(f64) -> bool>(
    ranked: &[f64],
    scores: &[f64],
    top: usize,
    is_rel: F,
    keep: f64,
) -> f64 {
    let mut got = 0.0;
    let mut c = 0i32; // relevant items of the blocks above
    let mut t = 0;
    while t < top {
        let e = tied_block_end(scores, t);
        let s = e - t;
        let h = ranked[t..e].iter().filter(|&&g| is_rel(g)).count();
        let q = e.min(top) - t;
        // P(the j-th relevant item of the block is at offset j - 1): C(s - j, h - j) / C(s, h)
        let mut first = 1.0;
        for j in 1..=h.min(q) {
            first *= (h - j + 1) as f64 / (s - j + 1) as f64;
            let weight = keep.powi(c + j as i32 - 1);
            let mut p = first;
            let mut o = j - 1;
            let last = (s - h + j - 1).min(q - 1);
            loop {
                got += weight * p / (t + o + 1) as f64;
                if o == last {
                    break;
                }
                // C(o + 1, j - 1) / C(o, j - 1) and C(s - 2 - o, h - j) / C(s - 1 - o, h - j)
                p *= (o + 1) as f64 / (o + 2 - j) as f64;
                p *= (s - 1 - o - (h - j)) as f64 / (s - 1 - o) as f64;
                o += 1;
            }
        }
        c += h as i32;
        t = e;
    }
    got
}

/// Expected ndcg_rel with the gains of `table` (none negative): the sum of `dcg_i /
/// ideal_i` at each item of positive gain, plus `dcg / ideal` at the end for each
/// positive ideal gain not retrieved, over the number of positive ideal gains. The
/// DCG at an item multiplies its own positivity by the gains above it, so each term
/// takes the products' means: across blocks the product of the block means, within a
/// block `(sum pos * sum gain - sum pos gain) / (s (s - 1))` for two distinct items.
fn expected_ndcg_rel(ranked: &[f64], scores: &[f64], top: usize, table: &GainTable) -> f64 {
    let mut ideal_at = Vec::with_capacity(top);
    let (n_pos, ideal_end) = tm::ndcg_rel_ideal(table, top, &mut ideal_at);
    if n_pos == 0 {
        return 0.0;
    }
    // per block: (mean positivity, mean gain, mean positive gain, pair mean, positions in top)
    let mut stats = Vec::new();
    let mut t = 0;
    while t < top {
        let e = tied_block_end(scores, t);
        let s = (e - t) as f64;
        let (mut sp, mut sg, mut spg) = (0.0, 0.0, 0.0);
        for &g in &ranked[t..e] {
            let gain = table.gain(g);
            let pos = if gain > 0.0 { 1.0 } else { 0.0 };
            sp += pos;
            sg += gain;
            spg += pos * gain;
        }
        let cross = if e - t > 1 {
            (sp * sg - spg) / (s * (s - 1.0))
        } else {
            0.0
        };
        stats.push((t, e.min(top), sp / s, sg / s, spg / s, cross));
        t = e;
    }
    let pos_total: f64 = stats.iter().map(|b| b.2 * (b.1 - b.0) as f64).sum();
    let (mut sum, mut dcg_end, mut ret_dcg) = (0.0, 0.0, 0.0);
    let mut above = 0.0; // expected DCG of the blocks above
    for &(t, e, p, g, pg, cross) in &stats {
        let q = (e - t) as f64;
        let mut inside = 0.0; // sum of 1 / disc over the block's positions above
        for (i, &ideal) in ideal_at.iter().enumerate().take(e).skip(t) {
            let disc = ((i + 2) as f64).log2();
            sum += (pg / disc + p * above + cross * inside) / ideal;
            // E[retrieved positive items * gain at i]
            let with_ret = pg + (q - 1.0) * cross + (pos_total - q * p) * g;
            ret_dcg += with_ret / disc;
            dcg_end += g / disc;
            inside += 1.0 / disc;
        }
        above += g * inside;
    }
    sum += (n_pos as f64 * dcg_end - ret_dcg) / ideal_end;
    sum / n_pos as f64
}

/// Whether a gain table has a negative gain (ndcg_rel's expected value needs none).
pub fn has_negative_gain(params: &[f64]) -> bool {
    let (pairs, m) = tm::gain_pairs(params);
    pairs[..m].iter().any(|&(_, gain)| gain < 0.0)
}

/// Expected ERR (or PFound: the cascade of [`tm::cascade`]) over every order of the
/// tied blocks, exactly.
///
/// With `x = 1 - R(g)` and `y = R(g)` (R the stopping probability, `stop`), ERR sums
/// `y_r prod_{i<r} x_i w(r)`, `w` the rank's `weight` (1 / r; PFound: decay^(r - 1)). The items of earlier blocks multiply every term of a
/// block by the same product. Within a block B of `s` items, the item at offset `j`
/// is each item `c` with probability `1/s`, and the `j` items before it a uniformly
/// random `j`-subset of the others, so the expected term is
/// `(1/s) sum_c y_c m_j(B - c)`, with `m_j` the mean over `j`-subsets of the product
/// of their `x` (the elementary symmetric polynomial over the binomial coefficient,
/// built one item at a time as a convex combination). Items of one grade share
/// their `m_j`: O(distinct grades x s x positions) per block.
fn expected_cascade<Y, W>(ranked: &[f64], scores: &[f64], top: usize, stop: Y, weight: W) -> f64
where
    Y: Fn(f64) -> f64,
    W: Fn(usize) -> f64,
{
    let (mut value, mut decay, mut t) = (0.0, 1.0, 0);
    while t < top {
        let e = tied_block_end(scores, t);
        let (s, used) = (e - t, e.min(top) - t);
        let ys: Vec<f64> = ranked[t..e].iter().map(|&g| stop(g)).collect();
        // distinct stopping probabilities of the block and how many items have each
        let mut distinct: Vec<(f64, usize)> = Vec::new();
        for &y in &ys {
            match distinct.iter_mut().find(|d| d.0 == y) {
                Some(d) => d.1 += 1,
                None => distinct.push((y, 1)),
            }
        }
        let mut means = vec![0.0; used];
        for &(yc, count) in &distinct {
            // m_j over the block without one item of probability yc
            means.iter_mut().for_each(|m| *m = 0.0);
            means[0] = 1.0;
            let mut n = 0usize;
            for &(y, c) in &distinct {
                let times = if y == yc { c - 1 } else { c };
                for _ in 0..times {
                    n += 1;
                    let x = 1.0 - y;
                    for j in (1..used.min(n + 1)).rev() {
                        means[j] =
                            ((n - j) as f64 * means[j] + j as f64 * x * means[j - 1]) / n as f64;
                    }
                }
            }
            let share = count as f64 / s as f64 * yc;
            for (j, m) in means.iter().enumerate() {
                value += decay * share * m * weight(t + j);
            }
        }
        decay *= ys.iter().map(|y| 1.0 - y).product::<f64>();
        t = e;
    }
    value
}

/// The expected value of a spec's trec kind (or of DCG, IDCG and nDCG with a custom
/// gain table, [`Spec::custom_dcg`]) over every order of the tied blocks of `scores`
/// (the list's scores, best first, aligned with `u.ranked`). The spec's cut-off and
/// parameters as [`tm::user_measure`] takes them; nan for ndcg_rel with a negative
/// gain. A list without a tie gets [`tm::user_measure`]'s value itself.
pub fn expected_measure(
    spec: &Spec,
    u: &UserGrades<'_>,
    scores: &[f64],
    table: &mut GainTable,
) -> f64 {
    let (kind, k, params) = (spec.kind, spec.k, &spec.params[..]);
    let (custom, custom_dcg) = (spec.gain == Gain::Custom, spec.custom_dcg());
    let tied = scores.windows(2).any(|w| w[0] == w[1]);
    if !tied || matches!(kind, NUM_RET | NUM_REL | NUM_Q | IDCG) {
        return if custom_dcg {
            tm::custom_dcg(kind, u, k, params, table)
        } else {
            tm::user_measure(spec, u, table)
        };
    }
    let (ranked, threshold) = (u.ranked, u.threshold);
    let n = ranked.len();
    let top = if k > 0 { (k as usize).min(n) } else { n };
    let n_rel = u.num_rel();
    let is_rel = |g: f64| tm::level(g) >= threshold;
    let rel_law = || CountLaw::new(ranked, scores, top, is_rel);
    if custom_dcg {
        let (pairs, m) = tm::gain_pairs(params);
        table.build(u.judged, &pairs[..m]);
        let gains = position_means(ranked, scores, top, |g| table.gain(g));
        let (dcg, ideal) = tm::dcg_pair_by(top, k, |i| gains[i], table);
        return match kind {
            DCG => dcg,
            _ if ideal > 0.0 => dcg / ideal,
            _ => 0.0,
        };
    }
    match kind {
        NUM_REL_RET => rel_law().mean(),
        NUM_NONREL_JUDGED_RET => {
            let absent = CountLaw::new(ranked, scores, top, |g| g == f64::NEG_INFINITY).mean();
            let negative = CountLaw::new(ranked, scores, top, |g| g < 0.0 && g > f64::NEG_INFINITY);
            top as f64 - absent - negative.mean() - rel_law().mean()
        }
        UTILITY => {
            let a = rel_law().mean();
            let docs = params[4] as i64;
            let (n, r) = (top as f64, n_rel as f64);
            params[0] * a
                + params[1] * (n - a)
                + params[2] * (r - a)
                + params[3] * (docs as f64 + a - n - r)
        }
        RELATIVE_PRECISION => {
            let den = if k > 0 {
                k.min(n_rel)
            } else {
                (n as i64).min(n_rel)
            };
            if n_rel == 0 || den == 0 {
                return 0.0;
            }
            rel_law().mean() / den as f64
        }
        SET_PRECISION if top > 0 => rel_law().mean() / top as f64,
        SET_RELATIVE_PRECISION if top > 0 && n_rel > 0 => {
            rel_law().mean() / (top as i64).min(n_rel) as f64
        }
        SET_RECALL if n_rel > 0 => rel_law().mean() / n_rel as f64,
        SET_AP if top > 0 && n_rel > 0 => rel_law().expect(|a| {
            let a = a as f64;
            (a * a) / (top as f64 * n_rel as f64)
        }),
        SET_F => {
            let beta = params[0];
            rel_law().expect(|a| {
                if a == 0 {
                    return 0.0;
                }
                let p = a as f64 / top as f64;
                let r = a as f64 / n_rel as f64;
                (beta + 1.0) * p * r / (beta * p + r)
            })
        }
        SET_PRECISION | SET_RELATIVE_PRECISION | SET_RECALL | SET_AP => 0.0,
        RPREC_MULT => {
            let cut = (params[0] * n_rel as f64 + 0.9) as i64;
            if cut > top as i64 {
                rel_law().mean() / cut as f64
            } else if cut <= 0 {
                0.0
            } else {
                CountLaw::new(ranked, scores, cut as usize, is_rel).mean() / cut as f64
            }
        }
        UNJUDGED => {
            let den = if k > 0 { k as f64 } else { n as f64 };
            if top == 0 {
                return 0.0;
            }
            CountLaw::new(ranked, scores, top, |g| g < 0.0).mean() / den
        }
        JUDGED => {
            if top == 0 {
                return 0.0;
            }
            CountLaw::new(ranked, scores, top, |g| g > f64::NEG_INFINITY).mean() / top as f64
        }
        RBP => {
            let p = params[0];
            let gains = if params[1] == 1.0 {
                position_means(ranked, scores, top, |g| {
                    if tm::rbp_binary_rel(g, threshold) {
                        1.0
                    } else {
                        0.0
                    }
                })
            } else if params[1] == 2.0 {
                position_means(
                    ranked,
                    scores,
                    top,
                    |g| if g >= threshold { g } else { 0.0 },
                )
            } else {
                table.build(u.judged, &[]);
                table.normalise();
                position_means(ranked, scores, top, |g| tm::rbp_gain(g, threshold, table))
            };
            let (mut sum, mut weight) = (0.0, 1.0);
            for &gain in &gains {
                sum += gain * weight;
                weight *= p;
            }
            (1.0 - p) * sum
        }
        RBP_RESID => {
            let p = params[0];
            let unjudged = position_means(ranked, scores, top, |g| if g < 0.0 { 1.0 } else { 0.0 });
            let (mut sum, mut weight) = (0.0, 1.0);
            for &x in &unjudged {
                sum += x * weight;
                weight *= p;
            }
            let any = 1.0 - CountLaw::new(ranked, scores, top, |g| g < 0.0).none();
            weight * any + (1.0 - p) * sum
        }
        BIN_G => {
            let sum = expected_above(
                ranked,
                scores,
                top,
                is_rel,
                |g| !is_rel(g),
                |y| 1.0 / ((2 + y) as f64).log2(),
            );
            if n_rel > 0 {
                sum / n_rel as f64
            } else {
                0.0
            }
        }
        BPREF => {
            let raw = params[0] == 1.0;
            let (r, nonrel) = if raw {
                let r = u.judged.iter().filter(|&&g| g >= threshold).count() as i64;
                (r, u.judged.len() as i64 - r)
            } else {
                let judged = u.judged.iter().filter(|&&g| g >= 0.0);
                let r = judged.clone().filter(|&&g| g >= threshold).count() as i64;
                (r, judged.count() as i64 - r)
            };
            let counted = |g: f64| if raw { g > f64::NEG_INFINITY } else { g >= 0.0 };
            let score = |x: i64| {
                if x > 0 {
                    1.0 - (x.min(r) as f64) / (nonrel.min(r) as f64)
                } else {
                    1.0
                }
            };
            let sum = expected_above(
                ranked,
                scores,
                top,
                |g| counted(g) && g >= threshold,
                |g| counted(g) && g < threshold,
                score,
            );
            if r > 0 {
                sum / r as f64
            } else {
                sum
            }
        }
        INFAP => forms::expected_infap(u, scores, top),
        IPREC_AT_RECALL => {
            forms::expected_iprec_sum(u, scores, top, &params[..1], spec.recall_rounding)
        }
        IPREC_AVG => {
            let m = (params[0].max(0.0) as usize).min(N_PARAMS - 1);
            let levels = if m == 0 {
                &tm::ELEVEN_LEVELS[..]
            } else {
                &params[1..1 + m]
            };
            forms::expected_iprec_sum(u, scores, top, levels, spec.recall_rounding)
                / levels.len() as f64
        }
        G => {
            let (pairs, m) = tm::gain_pairs(params);
            table.build(u.judged, if custom { &pairs[..m] } else { &[] });
            forms::expected_g(u, scores, top, table)
        }
        ERR => expected_cascade(ranked, scores, top, tm::err_stop(params), tm::err_weight),
        PFOUND => expected_cascade(
            ranked,
            scores,
            top,
            tm::stop_probability,
            tm::pfound_weight(params[0]),
        ),
        AVERAGE_GAIN if top > 0 => {
            position_means(ranked, scores, top, tm::stop_probability)
                .iter()
                .sum::<f64>()
                / top as f64
        }
        AVERAGE_GAIN => 0.0,
        NERR => {
            let alpha = if params[0] > 0.0 {
                params[0]
            } else {
                tm::DEFAULT_NERR_ALPHA
            };
            let got = expected_nerr_gain(ranked, scores, top, is_rel, 1.0 - alpha);
            if got == 0.0 {
                return 0.0;
            }
            let depth = if k > 0 { n_rel.min(k) } else { n_rel };
            let (mut ideal, mut weight) = (0.0, 1.0);
            for j in 0..depth {
                ideal += weight / (j + 1) as f64;
                weight *= 1.0 - alpha;
            }
            got / ideal
        }
        NDCG_REL if custom && has_negative_gain(params) => f64::NAN,
        NDCG_REL => {
            let (pairs, m) = tm::gain_pairs(params);
            table.build(u.judged, if custom { &pairs[..m] } else { &[] });
            expected_ndcg_rel(ranked, scores, top, table)
        }
        R_NDCG => {
            let (pairs, m) = tm::gain_pairs(params);
            table.build(u.judged, if custom { &pairs[..m] } else { &[] });
            let gains = position_means(ranked, scores, top, |g| table.gain(g));
            tm::r_ndcg_by(n_rel, top, |i| gains[i], table)
        }
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests;
