//! The log loss kernels: the exact sum of the per-row losses, each `-ln` of a
//! vectorized log ([`crate::ln::ln`]) of the clipped probability of the row's class.
//!
//! Rows go by blocks, in one pass: each row's chosen probability, its loss, and the
//! loss split into three integers (exact) whose block sums enter the [`Adder`]'s lane
//! at once; losses outside the lane (large or negative weights, infinities, NaN) are
//! added one by one. The sum is the accumulator of the per-row losses on every path
//! (scalar or SIMD, any chunks, any carries).

use std::ops::Range;

use crate::checks::Label;
use crate::sums::{
    add, chunked, chunked_checked, Acc, Adder, CARRY_EVERY, LANE_BIAS, LANE_MAX_SHIFT,
};

/// Accumulator of the sum of `-w ln(clip(p))` over positives and `-w ln(1 - clip(p))`
/// over negatives (labels other than 1), `clip(p) = min(max(p, eps), 1 - eps)`; an
/// empty `weights` means unit weights.
pub fn binary_log_loss_exact(
    labels: &[i8],
    proba: &[f64],
    weights: &[f64],
    eps: f64,
    n_chunks: usize,
    carry_every: usize,
) -> Acc {
    let sum_rows = |rows: Range<usize>| {
        let (l, p) = (&labels[rows.clone()], &proba[rows.clone()]);
        if weights.is_empty() {
            loss_rows::<i8, f64, false, false>(l, p, &[], eps)
        } else {
            loss_rows::<i8, f64, false, true>(l, p, &weights[rows], eps)
        }
    };
    chunked_checked(labels.len(), n_chunks, carry_every, sum_rows).expect("rows are not checked")
}

/// The binary log loss accumulator of rows that pass the checks of the Python
/// layer (labels 0 or 1, probabilities in [0, 1], NaN refused), checked and summed
/// in one pass, or None when one does not: the caller then validates again,
/// slowly, to name the bad value. Float32 probabilities are read as float64; an
/// empty `weights` means unit weights.
pub fn binary_log_loss_checked<L: Label, P: Proba>(
    labels: &[L],
    proba: &[P],
    weights: &[f64],
    eps: f64,
    n_chunks: usize,
) -> Option<Acc> {
    chunked_checked(labels.len(), n_chunks, CARRY_EVERY, |rows| {
        let (l, p) = (&labels[rows.clone()], &proba[rows.clone()]);
        if weights.is_empty() {
            loss_rows::<L, P, true, false>(l, p, &[], eps)
        } else {
            loss_rows::<L, P, true, true>(l, p, &weights[rows], eps)
        }
    })
}

/// A probability dtype: float64, or float32 (read exactly as float64).
pub trait Proba: Copy + Sync + Into<f64> {}
impl Proba for f64 {}
impl Proba for f32 {}

/// Rows per block of the log loss kernel.
const BLOCK: usize = 1024;
/// `1.5 * 2^32`, `1.5 * 2^-20`, `1.5 * 2^-53`: a lane value `v` plus the first is `v`
/// rounded to units of 2^-20 (the difference of their bits counts them); what is
/// left, plus the second, in units of 2^-72; the rest, plus the third, in units of
/// 2^-105, the lane's. The three parts are exact.
const SPLIT: [f64; 3] = [
    6_442_450_944.0,
    1.430_511_474_609_375e-6,
    1.665_334_536_937_734_8e-16,
];

/// The accumulator of the log losses of `labels` and `proba` (and `weights` when
/// `W`); when `CHECK`, None as soon as a label is not 0 or 1 or a probability not in
/// [0, 1]. The losses are `-ln` of [`crate::ln::ln`], which vectorizes: the same
/// bits on the scalar and the SIMD paths.
fn loss_rows<L: Label, P: Proba, const CHECK: bool, const W: bool>(
    labels: &[L],
    proba: &[P],
    weights: &[f64],
    eps: f64,
) -> Option<Acc> {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx512() {
        // SAFETY: the CPU supports these AVX-512 extensions, checked just above.
        return unsafe { loss_rows_avx512::<L, P, CHECK, W>(labels, proba, weights, eps) };
    }
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { loss_rows_avx2::<L, P, CHECK, W>(labels, proba, weights, eps) };
    }
    loss_rows_body::<L, P, CHECK, W>(labels, proba, weights, eps)
}

/// [`loss_rows`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn loss_rows_avx2<L: Label, P: Proba, const CHECK: bool, const W: bool>(
    labels: &[L],
    proba: &[P],
    weights: &[f64],
    eps: f64,
) -> Option<Acc> {
    loss_rows_body::<L, P, CHECK, W>(labels, proba, weights, eps)
}

/// [`loss_rows`] compiled for AVX-512 (eight rows a vector, and 32 registers: the
/// log, the split and the row's checks fit in them at once).
///
/// # Safety
/// The CPU must support [`crate::simd::avx512`]'s extensions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
unsafe fn loss_rows_avx512<L: Label, P: Proba, const CHECK: bool, const W: bool>(
    labels: &[L],
    proba: &[P],
    weights: &[f64],
    eps: f64,
) -> Option<Acc> {
    loss_rows_body::<L, P, CHECK, W>(labels, proba, weights, eps)
}

/// The probability of a row's class, `clip(p)` for label 1 and `1 - clip(p)` for
/// others, and whether the row is bad (a label not 0 or 1, `p` not in [0, 1]).
#[inline(always)]
fn chosen<L: Label>(label: L, p: f64, eps: f64) -> (f64, bool) {
    let class = label.class().unwrap_or(2);
    let bad = (class > 1) | !(0.0..=1.0).contains(&p);
    let p = if p < eps {
        eps
    } else if p > 1.0 - eps {
        1.0 - eps
    } else {
        p
    };
    (if class == 1 { p } else { 1.0 - p }, bad)
}

/// The loss of a row of chosen probability `q` and weight `w` (when `W`).
#[inline(always)]
fn loss_of<const W: bool>(q: f64, w: f64) -> f64 {
    let loss = -crate::ln::ln(q);
    if W {
        loss * w
    } else {
        loss
    }
}

/// One pass over the rows, block by block: each row's chosen probability, its loss
/// and the loss's three parts in one loop (no buffer between them), the block's
/// checks and parts read once at its end.
#[inline(always)]
fn loss_rows_body<L: Label, P: Proba, const CHECK: bool, const W: bool>(
    labels: &[L],
    proba: &[P],
    weights: &[f64],
    eps: f64,
) -> Option<Acc> {
    let mut adder = Adder::default();
    let [c0, c1, c2] = SPLIT;
    let bits = SPLIT.map(|c| c.to_bits() as i64);
    for start in (0..labels.len()).step_by(BLOCK) {
        let end = (start + BLOCK).min(labels.len());
        let (l, p) = (&labels[start..end], &proba[start..end]);
        let w = if W { &weights[start..end] } else { &[][..] };
        let weight = |i: usize| if W { w[i] } else { 1.0 };
        // the lane's values as three integers; the others counted, added below
        let (mut units, mut outside, mut bad) = ([0i64; 3], 0u32, false);
        for (i, (&label, &p)) in l.iter().zip(p).enumerate() {
            let (q, is_bad) = chosen(label, p.into(), eps);
            bad |= is_bad;
            let loss = loss_of::<W>(q, weight(i));
            let inside = (loss.to_bits() >> 52).wrapping_sub(LANE_BIAS) <= LANE_MAX_SHIFT;
            outside += !inside as u32;
            let v = if inside { loss } else { 0.0 };
            let t = v + c0;
            units[0] += t.to_bits() as i64 - bits[0];
            let r = v - (t - c0);
            let t = r + c1;
            units[1] += t.to_bits() as i64 - bits[1];
            let r = r - (t - c1);
            units[2] += (r + c2).to_bits() as i64 - bits[2];
        }
        if CHECK && bad {
            return None;
        }
        let total = ((units[0] as i128) << 85) + ((units[1] as i128) << 33) + units[2] as i128;
        adder.add_lane_sum(total as u128, l.len() as u32);
        if outside > 0 {
            for (i, (&label, &p)) in l.iter().zip(p).enumerate() {
                let loss = loss_of::<W>(chosen(label, p.into(), eps).0, weight(i));
                if (loss.to_bits() >> 52).wrapping_sub(LANE_BIAS) > LANE_MAX_SHIFT {
                    add(&mut adder.acc, loss);
                }
            }
        }
    }
    Some(adder.finish())
}

/// Accumulator of the sum of `-w ln(clip(p[i, code_i]))` over the rows of the
/// row-major `proba` (`n_classes` columns); an empty `weights` means unit weights.
pub fn multiclass_log_loss_exact(
    codes: &[i64],
    proba: &[f64],
    n_classes: usize,
    weights: &[f64],
    eps: f64,
    n_chunks: usize,
) -> Acc {
    let top = 1.0 - eps;
    let has_w = !weights.is_empty();
    chunked(codes.len(), n_chunks, CARRY_EVERY, |i| {
        let q = proba[i * n_classes + codes[i] as usize].clamp(eps, top);
        let loss = -q.ln();
        if has_w {
            loss * weights[i]
        } else {
            loss
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::tests::reference;
    use crate::testing::{any_float, stream};

    #[test]
    fn log_loss_is_the_exact_sum_of_the_row_losses_on_every_path() {
        // losses in and out of the lane (weights zero, negative, huge, tiny, NaN,
        // infinite), more rows than a block and than the lane holds between emptyings
        let mut next = stream(5);
        let n = 300_000;
        let labels: Vec<i8> = (0..n).map(|_| (next() % 2) as i8).collect();
        let proba: Vec<f64> = (0..n)
            .map(|i| match i % 7 {
                0 => 0.0,
                1 => 1.0,
                2 => f64::from_bits(next() % (1 << 52)), // subnormal
                _ => (next() >> 11) as f64 / (1u64 << 53) as f64,
            })
            .collect();
        let weights: Vec<f64> = (0..n)
            .map(|i| match i % 11 {
                0 => any_float(&mut next),
                1 => 0.0,
                2 => -2.5,
                3 => 1e-300,
                4 if i % 5 == 0 => f64::NAN,
                4 => f64::INFINITY,
                _ => (next() >> 11) as f64 / (1u64 << 50) as f64,
            })
            .collect();
        for eps in [f64::EPSILON, f32::EPSILON as f64, 0.0] {
            let loss = |i: usize, w: f64| loss_of::<true>(chosen(labels[i], proba[i], eps).0, w);
            let plain: Vec<f64> = (0..n).map(|i| loss(i, 1.0)).collect();
            let weighted: Vec<f64> = (0..n).map(|i| loss(i, weights[i])).collect();
            let (want, want_w) = (reference(&plain), reference(&weighted));
            crate::simd::for_each_path(|_| {
                for (chunks, carry) in [(1, CARRY_EVERY), (3, 5000), (4, 7)] {
                    let got = binary_log_loss_exact(&labels, &proba, &[], eps, chunks, carry);
                    assert_eq!(got, want, "eps {eps:e}");
                    let got = binary_log_loss_exact(&labels, &proba, &weights, eps, chunks, carry);
                    assert_eq!(got, want_w, "eps {eps:e}");
                }
            });
        }
        // the row loss is -ln of the clipped probability of the row's class
        let eps = f64::EPSILON;
        for (label, p, q) in [
            (1i8, 0.25, 0.25),
            (0, 0.25, 0.75),
            (1, 0.0, eps),
            (0, 1.0, eps),
        ] {
            assert_eq!(
                loss_of::<false>(chosen(label, p, eps).0, 1.0),
                -crate::ln::ln(q)
            );
        }
    }

    #[test]
    fn checked_log_loss_is_the_log_loss_or_none() {
        let labels = [0i64, 1, 1, 0, 1];
        let proba = [0.2, 0.9, 1.0, 0.0, 0.5];
        let eps = f64::EPSILON;
        let want = binary_log_loss_exact(&[0, 1, 1, 0, 1], &proba, &[], eps, 1, CARRY_EVERY);
        for chunks in [1, 2, 4] {
            assert_eq!(
                binary_log_loss_checked(&labels, &proba, &[], eps, chunks),
                Some(want)
            );
            let bools = [false, true, true, false, true];
            assert_eq!(
                binary_log_loss_checked(&bools, &proba, &[], eps, chunks),
                Some(want)
            );
            assert_eq!(
                binary_log_loss_checked(&[0, 2, 1, 0, 1], &proba, &[], eps, chunks),
                None
            );
            let bad = [0.2, 0.9, f64::NAN, 0.0, 0.5];
            assert_eq!(
                binary_log_loss_checked(&labels, &bad, &[], eps, chunks),
                None
            );
            let bad = [0.2, 0.9, 1.0, -0.1, 0.5];
            assert_eq!(
                binary_log_loss_checked(&labels, &bad, &[], eps, chunks),
                None
            );
            // float32 probabilities: the loss of the same values read as float64
            let narrow = [0.2f32, 0.9, 1.0, 0.0, 0.5];
            let wide = narrow.map(f64::from);
            let eps32 = f32::EPSILON as f64;
            let want32 = binary_log_loss_exact(&[0, 1, 1, 0, 1], &wide, &[], eps32, 1, 7);
            assert_eq!(
                binary_log_loss_checked(&labels, &narrow, &[], eps32, chunks),
                Some(want32)
            );
            let w = [0.5, 2.0, 0.0, 1.5, 3.0];
            let want_w = binary_log_loss_exact(&[0, 1, 1, 0, 1], &proba, &w, eps, 1, 7);
            assert_eq!(
                binary_log_loss_checked(&labels, &proba, &w, eps, chunks),
                Some(want_w)
            );
            let bad = [0.2f32, f32::NAN, 1.0, 0.0, 0.5];
            assert_eq!(
                binary_log_loss_checked(&labels, &bad, &[], eps32, chunks),
                None
            );
        }
    }
}
