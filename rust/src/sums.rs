//! Exact float sums: a fixed-point accumulator of 2^-1074 units.
//!
//! Every finite `f64` is an integer multiple of 2^-1074 (the smallest subnormal):
//! `x = m * 2^(e - 1074)` with `m < 2^53` and `0 <= e <= 2045`. An accumulator
//! holds such a sum exactly in [`N_LIMBS`] signed 64-bit digits of base 2^32
//! (digit `k` weighs `2^(32 k - 1074)`), plus counts of NaN, +inf and -inf.
//! Adding `x` adds `m << (e mod 32)` (85 bits) to digits `e / 32` to `e / 32 + 2`,
//! each part below 2^32, so a digit cannot overflow in fewer than 2^31 additions;
//! [`normalize`] carries every digit into `[0, 2^32)` (the last keeps the sign) and
//! runs every `carry_every` additions.
//!
//! Accumulators of parts add up digit by digit to the accumulator of the whole,
//! whatever the split and the order: the sum is exact, rounded once by the caller.

use rayon::prelude::*;

/// Digits of base 2^32: 70 * 32 = 2240 bits, from 2^-1074 to 2^1166.
pub const N_LIMBS: usize = 70;
/// Index of the count of NaN.
pub const NAN: usize = N_LIMBS;
/// Index of the count of +inf.
pub const POS_INF: usize = N_LIMBS + 1;
/// Index of the count of -inf.
pub const NEG_INF: usize = N_LIMBS + 2;
/// Length of an accumulator.
pub const SIZE: usize = N_LIMBS + 3;
/// Additions between two carries by default.
pub const CARRY_EVERY: usize = 1 << 30;

const FRACTION: u64 = (1 << 52) - 1;
const HIDDEN: u64 = 1 << 52;
const LOW32: u64 = 0xFFFF_FFFF;

/// One accumulator.
pub type Acc = [i64; SIZE];

/// Add the float `x` to the accumulator `acc`.
#[inline(always)]
pub fn add(acc: &mut Acc, x: f64) {
    let b = x.to_bits();
    let biased = ((b >> 52) & 0x7FF) as i64;
    if biased == 0x7FF {
        if b & FRACTION != 0 {
            acc[NAN] += 1;
        } else if b >> 63 != 0 {
            acc[NEG_INF] += 1;
        } else {
            acc[POS_INF] += 1;
        }
        return;
    }
    let mut m = b & FRACTION;
    let mut e: i64 = 0;
    if biased > 0 {
        m |= HIDDEN;
        e = biased - 1;
    }
    let k = (e >> 5) as usize;
    let s = (e & 31) as u32;
    let v = m << s; // the low 64 of the 85 bits of m << s
    let lo = (v & LOW32) as i64;
    let mid = (v >> 32) as i64;
    let hi = ((m >> 31) >> (33 - s)) as i64; // m >> (64 - s), 0 for s = 0
    let sign = 1 - 2 * ((b >> 63) as i64);
    acc[k] += sign * lo;
    acc[k + 1] += sign * mid;
    acc[k + 2] += sign * hi;
}

/// Carry every digit but the last into `[0, 2^32)`; the value is unchanged.
pub fn normalize(acc: &mut [i64]) {
    for j in 0..N_LIMBS - 1 {
        let c = acc[j] >> 32; // floor division by 2^32
        acc[j] -= c << 32;
        acc[j + 1] += c;
    }
}

/// The accumulator of `f(i)` over `i` in `0..n`, cut into `n_chunks` chunks that
/// run in parallel; the chunks (not the threads) fix the result.
fn chunked<F>(n: usize, n_chunks: usize, carry_every: usize, f: F) -> Acc
where
    F: Fn(usize) -> f64 + Sync,
{
    let n_chunks = n_chunks.max(1);
    let carry_every = carry_every.max(1);
    let run = |c: usize| {
        let mut acc = [0i64; SIZE];
        let lo = c * n / n_chunks;
        let hi = (c + 1) * n / n_chunks;
        let mut start = lo;
        while start < hi {
            let end = (start + carry_every).min(hi);
            for i in start..end {
                add(&mut acc, f(i));
            }
            normalize(&mut acc);
            start = end;
        }
        acc
    };
    let parts: Vec<Acc> = if n_chunks == 1 {
        vec![run(0)]
    } else {
        crate::threads::install(|| (0..n_chunks).into_par_iter().map(run).collect())
    };
    merge_rows(&parts)
}

/// The sum of accumulators, normalized after each one (in order).
pub fn merge_rows(parts: &[Acc]) -> Acc {
    let mut out = [0i64; SIZE];
    for part in parts {
        for j in 0..SIZE {
            out[j] += part[j];
        }
        normalize(&mut out);
    }
    out
}

/// Accumulator of `sum(x)`.
pub fn exact_sum(x: &[f64], n_chunks: usize, carry_every: usize) -> Acc {
    chunked(x.len(), n_chunks, carry_every, |i| x[i])
}

/// Accumulator of `sum(x * w)`, each product rounded to `f64` first.
pub fn exact_dot(x: &[f64], w: &[f64], n_chunks: usize, carry_every: usize) -> Acc {
    chunked(x.len(), n_chunks, carry_every, |i| x[i] * w[i])
}

/// Accumulator of the sum of `-w ln(clip(p))` over positives and `-w ln(1 - clip(p))`
/// over negatives, `clip(p) = min(max(p, eps), 1 - eps)`; an empty `weights` means
/// unit weights.
pub fn binary_log_loss_exact(
    labels: &[i8],
    proba: &[f64],
    weights: &[f64],
    eps: f64,
    n_chunks: usize,
    carry_every: usize,
) -> Acc {
    let top = 1.0 - eps;
    let has_w = !weights.is_empty();
    chunked(labels.len(), n_chunks, carry_every, |i| {
        let mut p = proba[i];
        if p < eps {
            p = eps;
        } else if p > top {
            p = top;
        }
        let loss = -(if labels[i] == 1 { p } else { 1.0 - p }).ln();
        if has_w {
            loss * weights[i]
        } else {
            loss
        }
    })
}

/// The binary log loss accumulator of rows that pass the checks of the Python
/// layer (labels 0 or 1, probabilities finite in [0, 1]), or None when one does
/// not: the caller then validates again, slowly, to name the bad value.
pub fn binary_log_loss_checked(
    labels: &[i64],
    proba: &[f64],
    eps: f64,
    n_chunks: usize,
) -> Option<Acc> {
    let valid =
        labels.iter().all(|&l| l == 0 || l == 1) && proba.iter().all(|&p| (0.0..=1.0).contains(&p));
    if !valid {
        return None;
    }
    let top = 1.0 - eps;
    Some(chunked(labels.len(), n_chunks, CARRY_EVERY, |i| {
        let mut p = proba[i];
        if p < eps {
            p = eps;
        } else if p > top {
            p = top;
        }
        -(if labels[i] == 1 { p } else { 1.0 - p }).ln()
    }))
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

    /// The accumulator's value as an exact rational test: digits below 2^32 times
    /// powers of two, compared on small integers.
    fn small_value(acc: &Acc) -> i128 {
        // the digit of 2^0 is digit 1074 / 32 = 33, bit 1074 % 32 = 18
        let mut v: i128 = 0;
        for k in (0..N_LIMBS).rev() {
            v = v * (1i128 << 32) + acc[k] as i128;
            if k == 33 {
                break;
            }
        }
        v >> 18
    }

    #[test]
    fn integers_add_exactly() {
        let x: Vec<f64> = (1..=1000).map(|i| i as f64).collect();
        assert_eq!(small_value(&exact_sum(&x, 1, CARRY_EVERY)), 500_500);
    }

    #[test]
    fn chunks_and_carries_do_not_change_the_sum() {
        let x: Vec<f64> = (0..5000)
            .map(|i| ((i * 7919) % 1013) as f64 * 0.37 - 150.0)
            .collect();
        let one = exact_sum(&x, 1, CARRY_EVERY);
        for chunks in [2, 3, 7] {
            for carry in [1, 5, CARRY_EVERY] {
                assert_eq!(exact_sum(&x, chunks, carry), one);
            }
        }
    }

    #[test]
    fn cancellation_is_exact() {
        let x = [1e300, 1.0, -1e300, 1e-300, -1e-300];
        assert_eq!(small_value(&exact_sum(&x, 2, 1)), 1);
    }

    #[test]
    fn specials_are_counted() {
        let acc = exact_sum(
            &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY],
            1,
            2,
        );
        assert_eq!((acc[NAN], acc[POS_INF], acc[NEG_INF]), (1, 2, 1));
    }
}
