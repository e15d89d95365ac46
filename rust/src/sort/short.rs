//! Sorting up to 128 `u32` words with AVX2: a bitonic network over registers of
//! eight lanes, no branches on the data.
//!
//! The words fill eight or sixteen registers (the caller pads with `u32::MAX`).
//! A sorting network across the registers of each group of eight sorts every lane
//! (column), a transpose turns the columns into sorted runs of eight, and bitonic
//! merges join the runs: the second run reversed, half-cleaners between registers,
//! then the last three levels inside each register (lane distances 4, 2, 1).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Whether [`sort`] can run here ([`crate::simd::avx2`]).
pub fn available() -> bool {
    crate::simd::avx2()
}

/// Sort `v[..n]` ascending, `n <= 128`, where [`available`] (false otherwise,
/// and `v` is left as it was). `v[n..]` is overwritten with padding.
pub fn sort(v: &mut [u32; 128], n: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    if n <= 128 && available() {
        v[n..].fill(u32::MAX);
        // SAFETY: the CPU supports AVX2, checked just above.
        unsafe {
            if n <= 64 {
                sort_registers::<8>(v);
            } else {
                sort_registers::<16>(v);
            }
        }
        return true;
    }
    let _ = (v, n);
    false
}

/// Bits of a list position in the words of [`ranked_words`].
pub const POSITION_BITS: u32 = 7;

/// Largest bucket of [`ranked_words`].
const TOP_BUCKET: u32 = (1 << (32 - POSITION_BITS)) - 1;

/// The words of a list of at most 128 keys, sorted: each key's bucket (its
/// distance below the largest key, scaled to `[0, 2^25)`, which never orders two
/// keys against their order) above its position. Sorted words give the keys
/// descending, equal keys in input order, except that keys in one bucket are in
/// input order whatever their values: the caller checks neighbours that share a
/// bucket. False (and nothing written) where [`available`] is false or the list is
/// longer than 128.
pub fn ranked_words(keys: &[f64], v: &mut [u32; 128]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if keys.len() <= 128 && available() {
        // SAFETY: the CPU supports AVX2, checked just above.
        unsafe { ranked_words_avx2(keys, v) };
        return true;
    }
    let _ = (keys, v);
    false
}

/// [`ranked_words`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn ranked_words_avx2(keys: &[f64], v: &mut [u32; 128]) {
    let n = keys.len();
    let (mut lo, mut hi) = match keys.first() {
        Some(&k) => (k, k),
        None => (0.0, 0.0),
    };
    for &x in keys {
        lo = if x < lo { x } else { lo };
        hi = if x > hi { x } else { hi };
    }
    // monotone steps only (a subtraction, a product by a positive scale, rounding):
    // a larger key never lands in a larger bucket; without a range, one bucket
    let scale = TOP_BUCKET as f64 / (hi - lo);
    let scale = if hi > lo && scale.is_finite() {
        scale
    } else {
        0.0
    };
    const ROUND: f64 = (1u64 << 52) as f64; // adding it rounds [0, 2^52) to integers
    for ((w, &x), t) in v.iter_mut().zip(keys).zip(0u32..) {
        let bucket = (((hi - x) * scale + ROUND).to_bits() as u32).min(TOP_BUCKET);
        *w = (bucket << POSITION_BITS) | t;
    }
    v[n..].fill(u32::MAX);
    if n <= 64 {
        sort_registers::<8>(v);
    } else {
        sort_registers::<16>(v);
    }
}

/// The lanes of a register in reverse order.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn reversed(a: __m256i) -> __m256i {
    _mm256_permutevar8x32_epi32(a, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0))
}

/// A register holding a bitonic sequence, sorted (lane distances 4, 2, 1).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn merge_lanes(a: __m256i) -> __m256i {
    let s = _mm256_permute2x128_si256::<0x01>(a, a);
    let a = _mm256_blend_epi32::<0b1111_0000>(_mm256_min_epu32(a, s), _mm256_max_epu32(a, s));
    let s = _mm256_shuffle_epi32::<0b01_00_11_10>(a);
    let a = _mm256_blend_epi32::<0b1100_1100>(_mm256_min_epu32(a, s), _mm256_max_epu32(a, s));
    let s = _mm256_shuffle_epi32::<0b10_11_00_01>(a);
    _mm256_blend_epi32::<0b1010_1010>(_mm256_min_epu32(a, s), _mm256_max_epu32(a, s))
}

/// Eight registers as an 8x8 matrix, transposed (column c becomes register c).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose(r: &mut [__m256i]) {
    let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
    let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
    let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    let t4 = _mm256_unpacklo_epi32(r[4], r[5]);
    let t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    let t6 = _mm256_unpacklo_epi32(r[6], r[7]);
    let t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    let u0 = _mm256_unpacklo_epi64(t0, t2);
    let u1 = _mm256_unpackhi_epi64(t0, t2);
    let u2 = _mm256_unpacklo_epi64(t1, t3);
    let u3 = _mm256_unpackhi_epi64(t1, t3);
    let u4 = _mm256_unpacklo_epi64(t4, t6);
    let u5 = _mm256_unpackhi_epi64(t4, t6);
    let u6 = _mm256_unpacklo_epi64(t5, t7);
    let u7 = _mm256_unpackhi_epi64(t5, t7);
    r[0] = _mm256_permute2x128_si256::<0x20>(u0, u4);
    r[1] = _mm256_permute2x128_si256::<0x20>(u1, u5);
    r[2] = _mm256_permute2x128_si256::<0x20>(u2, u6);
    r[3] = _mm256_permute2x128_si256::<0x20>(u3, u7);
    r[4] = _mm256_permute2x128_si256::<0x31>(u0, u4);
    r[5] = _mm256_permute2x128_si256::<0x31>(u1, u5);
    r[6] = _mm256_permute2x128_si256::<0x31>(u2, u6);
    r[7] = _mm256_permute2x128_si256::<0x31>(u3, u7);
}

/// The 19 comparators of an optimal sorting network of eight inputs.
const NETWORK8: [(usize, usize); 19] = [
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (2, 4),
    (3, 5),
    (1, 4),
    (3, 6),
    (1, 2),
    (3, 4),
    (5, 6),
];

/// Registers `i` and `j` (i < j) ordered: the smaller words in `i`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn exchange_at<const R: usize>(r: &mut [__m256i; R], i: usize, j: usize) {
    let (a, b) = (r[i], r[j]);
    r[i] = _mm256_min_epu32(a, b);
    r[j] = _mm256_max_epu32(a, b);
}

/// Merge neighbouring sorted runs of `width` registers into runs of `2 * width`.
/// Inlined with a constant `width`, every loop unrolls and `r` stays in registers.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn merge_runs<const R: usize>(r: &mut [__m256i; R], width: usize) {
    let mut start = 0;
    while start < R {
        // the second run reversed: the block is bitonic
        for i in 0..width / 2 {
            r.swap(start + width + i, start + 2 * width - 1 - i);
        }
        for reg in r[start + width..start + 2 * width].iter_mut() {
            *reg = reversed(*reg);
        }
        // half-cleaners between registers, then inside each register
        let mut d = width;
        while d >= 1 {
            let mut b = start;
            while b < start + 2 * width {
                for i in b..b + d {
                    exchange_at(r, i, i + d);
                }
                b += 2 * d;
            }
            d /= 2;
        }
        for reg in r[start..start + 2 * width].iter_mut() {
            *reg = merge_lanes(*reg);
        }
        start += 2 * width;
    }
}

/// Sort the `8 * R` words of `v` (R = 8 or 16 registers).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sort_registers<const R: usize>(v: &mut [u32; 128]) {
    let mut r = [_mm256_setzero_si256(); R];
    for (i, reg) in r.iter_mut().enumerate() {
        *reg = _mm256_loadu_si256(v.as_ptr().add(8 * i) as *const __m256i);
    }
    // runs of eight: every lane sorted across a group's registers, then transposed
    for g in (0..R).step_by(8) {
        for &(a, b) in NETWORK8.iter() {
            exchange_at(&mut r, g + a, g + b);
        }
        transpose(&mut r[g..g + 8]);
    }
    merge_runs(&mut r, 1);
    merge_runs(&mut r, 2);
    merge_runs(&mut r, 4);
    if R > 8 {
        merge_runs(&mut r, 8);
    }
    for (i, reg) in r.iter().enumerate() {
        _mm256_storeu_si256(v.as_mut_ptr().add(8 * i) as *mut __m256i, *reg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcg;

    /// `sort` sorts on the SIMD path and leaves `v` as it was on the scalar path
    /// (where the caller sorts).
    fn check_sort(v: &mut [u32; 128], n: usize, simd: bool) {
        let before = *v;
        let mut want = v[..n].to_vec();
        want.sort_unstable();
        assert_eq!(sort(v, n), simd);
        if simd {
            assert_eq!(v[..n].to_vec(), want, "n {n}");
        } else {
            assert_eq!(*v, before, "n {n}");
        }
    }

    #[test]
    fn sorts_every_length_as_the_standard_sort() {
        crate::simd::for_each_path(sorts_every_length_on);
    }

    fn sorts_every_length_on(simd: bool) {
        let mut seed = 1;
        for n in 0..=128usize {
            // distinct words, many repeats, and values at both ends of the range
            for spread in [u32::MAX as u64, 5, 1 << 20] {
                let mut v = [0u32; 128];
                for x in v[..n].iter_mut() {
                    *x = match lcg(&mut seed) % 10 {
                        0 => u32::MAX,
                        1 => 0,
                        _ => (lcg(&mut seed) % spread) as u32,
                    };
                }
                check_sort(&mut v, n, simd);
            }
        }
    }

    #[test]
    fn sorts_reversed_and_sorted_input() {
        crate::simd::for_each_path(sorts_reversed_and_sorted_on);
    }

    fn sorts_reversed_and_sorted_on(simd: bool) {
        for n in [1usize, 8, 9, 64, 65, 127, 128] {
            for descending in [false, true] {
                let mut v = [0u32; 128];
                for (i, x) in v[..n].iter_mut().enumerate() {
                    *x = if descending { (n - i) as u32 } else { i as u32 };
                }
                check_sort(&mut v, n, simd);
            }
        }
    }
}
