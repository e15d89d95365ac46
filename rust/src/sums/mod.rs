//! Exact float sums: a fixed-point accumulator of 2^-1074 units.
//!
//! Every finite `f64` is an integer multiple of 2^-1074 (the smallest subnormal):
//! `x = m * 2^(e - 1074)` with `m < 2^53` and `0 <= e <= 2045`. An accumulator
//! holds such a sum exactly in [`N_LIMBS`] signed 64-bit digits of base 2^32
//! (digit `k` weighs `2^(32 k - 1074)`), plus counts of NaN, +inf and -inf.
//! Adding `x` adds `m << (e mod 32)` (85 bits) to digits `e / 32` to `e / 32 + 2`,
//! each part below 2^32, so a digit cannot overflow in fewer than 2^31 additions;
//! [`normalize`] carries every digit into `[0, 2^32)` (the last keeps the sign) and
//! runs every `carry_every` additions. An [`Adder`] first sums the values of
//! `[2^-53, 2^6)` (probabilities, losses, AUCs) in one 128-bit integer, which
//! costs less than three digit updates.
//!
//! Accumulators of parts add up digit by digit to the accumulator of the whole,
//! whatever the split and the order: the sum is exact, rounded once ([`rounded`]).

use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

mod shared;
pub use shared::SHARED_ROWS;

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

/// An accumulator being filled: values in `[2^-53, 2^6)` (probabilities, log
/// losses, AUCs) add as integers of 2^-105 units into one `u128` in registers,
/// emptied into the digits every 2^17 of them (their sum stays below 2^128);
/// other values go to the digits directly. The sum is the same exact one.
pub struct Adder {
    pub(crate) acc: Acc,
    lane: u128,
    in_lane: u32,
}

/// Biased exponent of 2^-53, the least value of the lane.
pub(crate) const LANE_BIAS: u64 = 970;
/// Shift of the largest values of the lane (below 2^6): 53 + 58 = 111 bits.
pub(crate) const LANE_MAX_SHIFT: u64 = 58;
/// Values in the lane between two emptyings: 2^17 values below 2^111 units.
const LANE_ROWS: u32 = 1 << 17;

impl Default for Adder {
    fn default() -> Self {
        Adder {
            acc: [0; SIZE],
            lane: 0,
            in_lane: 0,
        }
    }
}

impl Adder {
    /// Add `x` (any float, NaN and infinities counted).
    #[inline(always)]
    pub fn add(&mut self, x: f64) {
        let b = x.to_bits();
        // negative values, NaN and infinities have a shift beyond the lane's
        let shift = (b >> 52).wrapping_sub(LANE_BIAS);
        if shift <= LANE_MAX_SHIFT {
            self.lane += (((b & FRACTION) | HIDDEN) as u128) << shift;
            self.in_lane += 1;
            if self.in_lane == LANE_ROWS {
                self.empty_lane();
            }
        } else {
            add(&mut self.acc, x);
        }
    }

    /// Move the lane into the digits: its unit 2^-105 is bit 9 of digit 30.
    fn empty_lane(&mut self) {
        let mut v = self.lane;
        self.acc[30] += ((v as u64 & ((1 << 23) - 1)) << 9) as i64;
        v >>= 23;
        for digit in &mut self.acc[31..35] {
            *digit += (v as u64 & LOW32) as i64;
            v >>= 32;
        }
        self.lane = 0;
        self.in_lane = 0;
    }

    /// Add `total`, the sum in units of 2^-105 of `n` values of the lane.
    #[inline(always)]
    pub(crate) fn add_lane_sum(&mut self, total: u128, n: u32) {
        if self.in_lane + n > LANE_ROWS {
            self.empty_lane();
        }
        self.lane += total;
        self.in_lane += n;
    }

    /// Carry the digits (after at most 2^30 additions since the last carry).
    pub fn carry(&mut self) {
        self.empty_lane();
        normalize(&mut self.acc);
    }

    /// The accumulator, carried.
    pub fn finish(mut self) -> Acc {
        self.carry();
        self.acc
    }
}

/// The accumulator of `f(i)` over `i` in `0..n`, cut into `n_chunks` chunks that
/// run in parallel; the chunks (not the threads) fix the result.
pub(crate) fn chunked<F>(n: usize, n_chunks: usize, carry_every: usize, f: F) -> Acc
where
    F: Fn(usize) -> f64 + Sync,
{
    chunked_rows(n, n_chunks, carry_every, |i, adder| adder.add(f(i)))
}

/// The accumulator of what `add_row(i, adder)` adds for each `i` in `0..n` (at most
/// `carry_every` additions every `carry_every / per_row` rows: the caller passes
/// that many rows), cut into `n_chunks` chunks as [`chunked`].
fn chunked_rows<F>(n: usize, n_chunks: usize, carry_rows: usize, add_row: F) -> Acc
where
    F: Fn(usize, &mut Adder) + Sync,
{
    let n_chunks = n_chunks.max(1);
    let carry_rows = carry_rows.max(1);
    let run = |c: usize| {
        let mut adder = Adder::default();
        let lo = c * n / n_chunks;
        let hi = (c + 1) * n / n_chunks;
        let mut start = lo;
        while start < hi {
            let end = (start + carry_rows).min(hi);
            for i in start..end {
                add_row(i, &mut adder);
            }
            adder.carry();
            start = end;
        }
        adder.finish()
    };
    let parts: Vec<Acc> = if n_chunks == 1 {
        vec![run(0)]
    } else {
        crate::threads::install(|| (0..n_chunks).into_par_iter().map(run).collect())
    };
    merge_rows(&parts)
}

/// Dekker's split of a float64 into two 26-bit halves: `2^27 + 1`.
const SPLITTER: f64 = 134_217_729.0;
/// Factors beyond `2^995` in magnitude overflow the split: their products are rounded.
const SPLIT_MAX: f64 = f64::from_bits((995 + 1023) << 52); // 2^995

/// `(p, e)` with `p = fl(a b)` and `p + e = a b` exactly (Dekker's product: no fused
/// multiply-add, so the same parts on every machine), where neither factor is beyond
/// `2^995` and the product neither overflows nor underflows; `e = 0` where a factor
/// is beyond `2^995` or `p` is not finite (the product rounded), and a product below
/// `2^-1022` has an `e` that is not exact.
#[inline(always)]
pub fn two_product(a: f64, b: f64) -> (f64, f64) {
    let (p, e, _) = checked_product(a, b);
    (p, e)
}

/// [`two_product`]'s `(p, e)` and whether they are exact on its first test (factors
/// within the split, and `|p|` from 2^-969 to the largest float or a factor 0): where
/// not, they may still be ([`product_loss`] tells).
#[inline(always)]
fn checked_product(a: f64, b: f64) -> (f64, f64, bool) {
    let p = a * b;
    if !(a.abs() <= SPLIT_MAX && b.abs() <= SPLIT_MAX && p.is_finite()) {
        return (p, 0.0, false);
    }
    let (ca, cb) = (SPLITTER * a, SPLITTER * b);
    let (ah, bh) = (ca - (ca - a), cb - (cb - b));
    let (al, bl) = (a - ah, b - bh);
    (
        p,
        ((ah * bh - p) + ah * bl + al * bh) + al * bl,
        p.abs() >= EXACT_FROM || a == 0.0 || b == 0.0,
    )
}

/// Products at least this large have an error part [`two_product`] makes exactly: its
/// lowest bit, that of `a b`'s 106, is not below 2^-1074.
const EXACT_FROM: f64 = f64::from_bits((1023 - 969) << 52); // 2^-969

/// The exponent of the lowest set bit of a finite, non-zero `x`.
#[inline]
fn lowest_bit(x: f64) -> i64 {
    let b = x.to_bits();
    let e = ((b >> 52) & 0x7FF) as i64;
    let m = (b & FRACTION) | if e > 0 { HIDDEN } else { 0 };
    e.max(1) - 1075 + i64::from(m.trailing_zeros())
}

/// A bound on `|a b - p - e|` for [`two_product`]'s `(p, e)` of `a` and `b`: 0 where
/// the parts are exact (a zero factor, or no bit of `a b` below 2^-1074, within the
/// split), else half an ulp of a rounded product and 16 units of 2^-1074 for the
/// operations of a split below 2^-969 (each rounds by at most half a unit).
#[inline(always)]
fn product_loss(a: f64, b: f64, p: f64) -> f64 {
    let within = p.abs() <= f64::MAX && a.abs() <= SPLIT_MAX && b.abs() <= SPLIT_MAX;
    if within && (p.abs() >= EXACT_FROM || exact_below(a, b)) {
        0.0
    } else {
        p.abs() * f64::EPSILON + 16.0 * f64::from_bits(1)
    }
}

/// Whether `a b`, below 2^-969, still has no bit below 2^-1074 (or is 0).
fn exact_below(a: f64, b: f64) -> bool {
    a == 0.0 || b == 0.0 || lowest_bit(a) + lowest_bit(b) >= -1074
}

/// Accumulator of `sum(x * y)` (times `w` when given), each product split into the
/// parts [`two_product`] makes of it (of `x y`, then of `w` times each part), so that
/// the sum is exact: the second moments behind the Brier score and R². Also a bound
/// on what the parts could not hold (products below 2^-969, whose error parts fall
/// below 2^-1074, or beyond 2^995): 0 where the sum is the exact one, computed in a
/// second pass only where a product was found in that range.
pub fn exact_products(
    x: &[f64],
    y: &[f64],
    w: Option<&[f64]>,
    n_chunks: usize,
    carry_every: usize,
) -> (Acc, f64) {
    let n = x.len();
    let inexact = AtomicBool::new(false);
    let acc = match w {
        None => chunked_rows(n, n_chunks, carry_every / 2, |i, adder| {
            let (p, e, exact) = checked_product(x[i], y[i]);
            if !exact && product_loss(x[i], y[i], p) != 0.0 {
                inexact.store(true, Ordering::Relaxed);
            }
            adder.add(p);
            adder.add(e);
        }),
        Some(w) => chunked_rows(n, n_chunks, carry_every / 4, |i, adder| {
            let (p, e, exact) = checked_product(x[i], y[i]);
            let (p1, e1, exact1) = checked_product(w[i], p);
            let (p2, e2, exact2) = checked_product(w[i], e);
            if !(exact && exact1 && exact2)
                && product_loss(x[i], y[i], p)
                    + product_loss(w[i], p, p1)
                    + product_loss(w[i], e, p2)
                    != 0.0
            {
                inexact.store(true, Ordering::Relaxed);
            }
            adder.add(p1);
            adder.add(e1);
            adder.add(p2);
            adder.add(e2);
        }),
    };
    if !inexact.into_inner() {
        return (acc, 0.0);
    }
    // the rows' bounds: w times the first product's, plus the two of w's products
    let lost: f64 = (0..n)
        .map(|i| {
            let (p, e) = two_product(x[i], y[i]);
            match w {
                None => product_loss(x[i], y[i], p),
                Some(w) => {
                    let wi = w[i].abs();
                    wi * product_loss(x[i], y[i], p)
                        + product_loss(w[i], p, w[i] * p)
                        + product_loss(w[i], e, w[i] * e)
                }
            }
        })
        .sum();
    // the float sum of the bounds, rounded up past its own rounding
    (
        acc,
        lost * (1.0 + n as f64 * f64::EPSILON) + f64::from_bits(1),
    )
}

/// The running sums of `x` restarted at each of `starts` (nondecreasing positions in
/// `x`; a sum also starts at 0), each group's additions in order (as `np.cumsum` of
/// the group alone).
pub fn group_cumsum(x: &[f64], starts: &[usize]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    let mut next = starts.iter().copied().peekable();
    let mut acc = 0.0;
    for (i, &v) in x.iter().enumerate() {
        let mut restart = i == 0;
        while next.next_if(|&s| s <= i).is_some() {
            restart = true;
        }
        acc = if restart { v } else { acc + v };
        out.push(acc);
    }
    out
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

/// Chunks of an exact sum of `n` values (the Python layer's `chunks_for`): one
/// below 64Ki values, so no thread is woken; at most two per thread. The sum does
/// not depend on them.
pub fn chunks_for(n: usize) -> usize {
    (crate::threads::num_threads() * 2)
        .min(n / 65536 + 1)
        .max(1)
}

/// The value of an accumulator rounded once to the nearest `f64`, ties to even (the
/// Python layer's `ExactSum.value`): NaN if it counted a NaN or both infinities, an
/// infinity if it counted one, an infinity beyond the float range, +0.0 for zero.
pub fn rounded(acc: &Acc) -> f64 {
    if acc[NAN] != 0 || (acc[POS_INF] != 0 && acc[NEG_INF] != 0) {
        return f64::NAN;
    }
    if acc[POS_INF] != 0 {
        return f64::INFINITY;
    }
    if acc[NEG_INF] != 0 {
        return f64::NEG_INFINITY;
    }
    let mut d = [0i64; N_LIMBS];
    d.copy_from_slice(&acc[..N_LIMBS]);
    normalize(&mut d);
    let negative = d[N_LIMBS - 1] < 0;
    if negative {
        d.iter_mut().for_each(|x| *x = -*x);
        normalize(&mut d); // every digit in [0, 2^32) but the last, now >= 0
    }
    let Some(top) = d.iter().rposition(|&x| x != 0) else {
        return 0.0;
    };
    // the top three digits (the last may exceed 32 bits, never 64) and whether any
    // digit below them is not zero
    let low = top.saturating_sub(2);
    let m = d[low..=top]
        .iter()
        .rev()
        .fold(0u128, |m, &x| (m << 32) | x as u128);
    let sticky = d[..low].iter().any(|&x| x != 0);
    // the value is (m + a fraction below 1 when sticky) * 2^k
    let mut k = 32 * low as i64 - 1074;
    let bits = 128 - m.leading_zeros() as i64;
    let shift = (bits - 53).max(0) as u32; // 0 when m has no digit below `low`
    let mut q = (m >> shift) as u64;
    if shift > 0 {
        let rest = m & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rest > half || (rest == half && (sticky || q & 1 == 1)) {
            q += 1;
        }
    }
    k += shift as i64;
    if q == 1 << 53 {
        q >>= 1;
        k += 1;
    }
    // q < 2^52 only for a subnormal (k = -1074): its bits are q itself
    let magnitude = if q >= HIDDEN {
        let biased = k + 1075;
        if biased >= 0x7FF {
            f64::INFINITY
        } else {
            f64::from_bits(((biased as u64) << 52) | (q & FRACTION))
        }
    } else {
        f64::from_bits(q)
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// Accumulator of `sum(x)`.
pub fn exact_sum(x: &[f64], n_chunks: usize, carry_every: usize) -> Acc {
    exact_form(x, None, Form::Value, n_chunks, carry_every)
}

/// Accumulator of `sum(x * w)`, each product rounded to `f64` first.
pub fn exact_dot(x: &[f64], w: &[f64], n_chunks: usize, carry_every: usize) -> Acc {
    exact_form(x, Some(w), Form::Value, n_chunks, carry_every)
}

/// What a term of [`exact_form`] adds of each value `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `x`
    Value,
    /// `x * x`, rounded
    Square,
    /// `|x|`
    Abs,
}

/// Accumulator of `sum(f(x) * w)` (`w` None: `sum(f(x))`), `f` given by `form`, each
/// `f(x)` and each product rounded to `f64` first: `exact_dot(f(x), w)`.
pub fn exact_form(
    x: &[f64],
    w: Option<&[f64]>,
    form: Form,
    n_chunks: usize,
    carry_every: usize,
) -> Acc {
    let n = x.len();
    // one loop per form and weighting, so that each is compiled without a branch
    match (form, w) {
        (Form::Value, None) => chunked(n, n_chunks, carry_every, |i| x[i]),
        (Form::Square, None) => chunked(n, n_chunks, carry_every, |i| x[i] * x[i]),
        (Form::Abs, None) => chunked(n, n_chunks, carry_every, |i| x[i].abs()),
        (Form::Value, Some(w)) => chunked(n, n_chunks, carry_every, |i| x[i] * w[i]),
        (Form::Square, Some(w)) => chunked(n, n_chunks, carry_every, |i| (x[i] * x[i]) * w[i]),
        (Form::Abs, Some(w)) => chunked(n, n_chunks, carry_every, |i| x[i].abs() * w[i]),
    }
}

/// The sum of the accumulators that `sum_rows` makes of ranges of at most
/// `carry_every` rows of `n_chunks` chunks, or None as soon as it answers None.
pub(crate) fn chunked_checked<F>(
    n: usize,
    n_chunks: usize,
    carry_every: usize,
    sum_rows: F,
) -> Option<Acc>
where
    F: Fn(Range<usize>) -> Option<Acc> + Sync,
{
    let n_chunks = n_chunks.max(1);
    let carry_every = carry_every.clamp(1, CARRY_EVERY);
    let run = |c: usize| {
        let (lo, hi) = (c * n / n_chunks, (c + 1) * n / n_chunks);
        if hi - lo <= carry_every {
            return sum_rows(lo..hi);
        }
        let ranges = (lo..hi).step_by(carry_every);
        let parts: Option<Vec<Acc>> = ranges
            .map(|start| sum_rows(start..(start + carry_every).min(hi)))
            .collect();
        parts.map(|parts| merge_rows(&parts))
    };
    if n_chunks == 1 {
        if n >= SHARED_ROWS && carry_every >= n && crate::threads::num_threads() > 1 {
            return shared::shared_checked(n, &sum_rows);
        }
        return run(0);
    }
    let parts: Option<Vec<Acc>> =
        crate::threads::install(|| (0..n_chunks).into_par_iter().map(run).collect());
    parts.map(|parts| merge_rows(&parts))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testing::{any_float, stream};

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
    fn group_cumsums_restart_at_each_start_without_the_groups_before() {
        let x = [1.0, 2.0, 1e-17, 1.0, 4.0, -0.0];
        let sums = group_cumsum(&x, &[0, 2, 2, 4, 6]);
        assert_eq!(sums, vec![1.0, 3.0, 1e-17, 1.0 + 1e-17, 4.0, 4.0]);
        assert_eq!(group_cumsum(&x, &[]), group_cumsum(&x, &[0]));
        assert_eq!(
            group_cumsum(&[-0.0], &[0])[0].to_bits(),
            (-0.0f64).to_bits()
        );
        assert!(group_cumsum(&[], &[0]).is_empty());
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
    fn products_are_exact_and_chunks_do_not_change_them() {
        // (1 + 2^-30)^2 - 1 = 2^-29 + 2^-60: the rounded products would lose 2^-60
        let x = [1.0 + 2f64.powi(-30), 1.0];
        let y = [1.0 + 2f64.powi(-30), -1.0];
        let want = exact_sum(&[2f64.powi(-29), 2f64.powi(-60)], 1, CARRY_EVERY);
        assert_eq!(exact_products(&x, &y, None, 1, CARRY_EVERY), (want, 0.0));
        let w = [3.0, 3.0];
        let want_w = exact_sum(
            &[3.0 * 2f64.powi(-29), 3.0 * 2f64.powi(-60)],
            1,
            CARRY_EVERY,
        );
        assert_eq!(
            exact_products(&x, &y, Some(&w), 1, CARRY_EVERY),
            (want_w, 0.0)
        );
        let x: Vec<f64> = (0..3000)
            .map(|i| ((i * 7919) % 1013) as f64 * 0.37 - 150.0)
            .collect();
        let y: Vec<f64> = (0..3000).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let one = exact_products(&x, &y, Some(&y), 1, CARRY_EVERY);
        assert_eq!(one.1, 0.0);
        for (chunks, carry) in [(2, 4), (3, 9), (7, CARRY_EVERY)] {
            assert_eq!(exact_products(&x, &y, Some(&y), chunks, carry), one);
        }
    }

    #[test]
    fn products_below_the_exact_range_are_bounded() {
        // 2^-600 squared is 2^-1200: lost whole, and the bound covers it
        let tiny = 2f64.powi(-600);
        let (acc, lost) = exact_products(&[tiny, 1.0], &[tiny, 1.0], None, 1, CARRY_EVERY);
        assert_eq!(acc, exact_sum(&[1.0], 1, CARRY_EVERY));
        assert!(lost > 0.0 && lost < 1e-300);
        // a weight of 2^-1000 times (1 + 2^-52)^2: its error part 2^-104 falls below 2^-1074
        let a = 1.0 + 2f64.powi(-52);
        let (_, lost) = exact_products(&[a], &[a], Some(&[2f64.powi(-1000)]), 1, CARRY_EVERY);
        assert!(lost > 0.0);
        // small products of few bits are exact: 2^-1000 * 3 and the subnormal 2^-1070 * 5
        let x = [2f64.powi(-1000), 2f64.powi(-1070)];
        let (acc, lost) = exact_products(&x, &[3.0, 5.0], None, 1, CARRY_EVERY);
        assert_eq!(lost, 0.0);
        assert_eq!(acc, exact_sum(&[3.0 * x[0], 5.0 * x[1]], 1, CARRY_EVERY));
        assert_eq!(lowest_bit(1.0), 0);
        assert_eq!(lowest_bit(f64::from_bits(1)), -1074);
        assert_eq!(lowest_bit(1.5), -1);
        // every product in range: no bound, with or without weights
        let x = [3.0, -2.0e-100, 0.0];
        assert_eq!(
            exact_products(&x, &x, Some(&[2.0, 1e-50, 0.0]), 2, 2).1,
            0.0
        );
    }

    #[test]
    fn products_beyond_the_split_are_rounded() {
        assert_eq!(SPLIT_MAX, 2f64.powi(995));
        assert_eq!(
            two_product(2f64.powi(996), 1.5),
            (1.5 * 2f64.powi(996), 0.0)
        );
        assert_eq!(two_product(1e300, 1e300), (f64::INFINITY, 0.0));
        let (p, e) = two_product(f64::NAN, 1.0);
        assert!(p.is_nan() && e == 0.0);
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

    #[test]
    fn a_form_adds_what_exact_dot_adds_of_its_values() {
        let mut next = stream(7);
        let x: Vec<f64> = (0..3000).map(|_| any_float(&mut next)).collect();
        let w: Vec<f64> = (0..3000).map(|_| any_float(&mut next).abs()).collect();
        let ones = vec![1.0; x.len()];
        for (form, f) in [
            (Form::Value, (|v: f64| v) as fn(f64) -> f64),
            (Form::Square, |v: f64| v * v),
            (Form::Abs, f64::abs),
        ] {
            let fx: Vec<f64> = x.iter().map(|&v| f(v)).collect();
            let dot = exact_dot(&fx, &w, 1, CARRY_EVERY);
            assert_eq!(exact_form(&x, Some(&w), form, 3, 7), dot);
            assert_eq!(
                exact_form(&x, None, form, 2, CARRY_EVERY),
                exact_dot(&fx, &ones, 1, 5)
            );
        }
    }

    /// Plain `add` of every value, carried: the reference for `Adder`.
    pub(crate) fn reference(x: &[f64]) -> Acc {
        let mut acc = [0i64; SIZE];
        for &v in x {
            add(&mut acc, v);
        }
        normalize(&mut acc);
        acc
    }

    #[test]
    fn rounded_sum_of_two_floats_is_their_float_sum() {
        // IEEE addition rounds the exact sum once, to nearest, ties to even
        let mut next = stream(0x9E37_79B9_7F4A_7C15);
        for _ in 0..200_000 {
            let (a, b) = (any_float(&mut next), any_float(&mut next));
            let (a, b) = if next().is_multiple_of(3) {
                (a, -a * 0.75)
            } else {
                (a, b)
            };
            let got = rounded(&exact_sum(&[a, b], 1, CARRY_EVERY));
            let want = a + b;
            if want == 0.0 {
                assert_eq!(got.to_bits(), 0, "{a:e} + {b:e}"); // +0.0, as the Python layer
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{a:e} + {b:e}");
            }
        }
    }

    #[test]
    fn rounded_ties_go_to_even() {
        let one = 1.0f64;
        let half_ulp = f64::EPSILON / 2.0;
        let acc = exact_sum(&[one, half_ulp], 1, CARRY_EVERY);
        assert_eq!(rounded(&acc), 1.0);
        let acc = exact_sum(&[one + f64::EPSILON, half_ulp], 1, CARRY_EVERY);
        assert_eq!(rounded(&acc), 1.0 + 2.0 * f64::EPSILON);
        // a tie broken by a digit far below: rounds up
        let acc = exact_sum(&[one, half_ulp, 1e-300], 1, CARRY_EVERY);
        assert_eq!(rounded(&acc), 1.0 + f64::EPSILON);
        let acc = exact_sum(&[-one, -half_ulp, -1e-300], 1, CARRY_EVERY);
        assert_eq!(rounded(&acc), -1.0 - f64::EPSILON);
    }

    #[test]
    fn rounded_specials_and_extremes() {
        let max = f64::MAX;
        assert_eq!(
            rounded(&exact_sum(&[max, max], 1, CARRY_EVERY)),
            f64::INFINITY
        );
        assert_eq!(
            rounded(&exact_sum(&[-max, -max], 1, CARRY_EVERY)),
            f64::NEG_INFINITY
        );
        assert_eq!(rounded(&exact_sum(&[max, max, -max], 1, CARRY_EVERY)), max);
        let tiny = f64::from_bits(1);
        assert_eq!(
            rounded(&exact_sum(&[tiny, tiny], 1, CARRY_EVERY)),
            2.0 * tiny
        );
        assert_eq!(rounded(&exact_sum(&[-0.0], 1, CARRY_EVERY)).to_bits(), 0);
        assert!(rounded(&exact_sum(&[1.0, f64::NAN], 1, CARRY_EVERY)).is_nan());
        let both = exact_sum(&[f64::INFINITY, f64::NEG_INFINITY], 1, CARRY_EVERY);
        assert!(rounded(&both).is_nan());
        assert_eq!(
            rounded(&exact_sum(&[f64::INFINITY, 1.0], 1, CARRY_EVERY)),
            f64::INFINITY
        );
    }

    #[test]
    fn rounded_of_many_values_is_the_correctly_rounded_sum() {
        // integers and halves: the exact sum is known in i128, and i128 -> f64
        // rounds to nearest, ties to even
        let mut next = stream(7);
        for _ in 0..2000 {
            let x: Vec<f64> = (0..1 + next() % 50)
                .map(|_| ((next() >> 8) as i64 - (1i64 << 55)) as f64 * 0.5)
                .collect();
            let twice: i128 = x.iter().map(|&v| (v * 2.0) as i128).sum();
            let want = twice as f64 / 2.0;
            assert_eq!(rounded(&exact_sum(&x, 1, CARRY_EVERY)), want);
        }
    }

    #[test]
    fn the_adder_lane_keeps_the_sum_exact() {
        // values in and out of the lane, more than 2^17 in it (emptied on the way)
        let mut next = stream(11);
        let x: Vec<f64> = (0..300_000)
            .map(|i| match i % 5 {
                0 => any_float(&mut next),
                1 => 63.999_999_999_999_99,
                2 => f64::from_bits(0x3CA0_0000_0000_0000), // 2^-53, the lane's least
                _ => (next() >> 11) as f64 / (1u64 << 53) as f64 * 64.0,
            })
            .collect();
        let want = reference(&x);
        let mut adder = Adder::default();
        x.iter().for_each(|&v| adder.add(v));
        assert_eq!(adder.finish(), want);
        for chunks in [1, 3] {
            for carry in [7, CARRY_EVERY] {
                assert_eq!(exact_sum(&x, chunks, carry), want);
            }
        }
    }
}
