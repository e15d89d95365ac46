//! Intra-list similarity: the mean cosine of the feature vectors of a list's items,
//! or the mean of a similarity matrix's entries over the list's pairs.
//!
//! Cosine similarities of feature vectors sum products over the features in one
//! fixed order ([`fused_dot`]): fused multiply-adds in 4 lanes, 4 ways unrolled,
//! then a 4-lane pass and a sequential tail (the order a compiler allowed to
//! reassociate and contract picks on x86-64 CPUs with AVX2 and FMA), fixed here:
//! the result is the same float on every machine.

use super::{by_ranges, top, Real};

/// Lists longer than this use `||sum x||^2 - sum ||x||^2` (O(m d)) instead of the
/// m (m - 1) / 2 dot products (O(m^2 d)).
pub const PAIRWISE_MAX: usize = 32;

#[inline(always)]
fn hsum(v: [f64; 4]) -> f64 {
    (v[0] + v[2]) + (v[1] + v[3])
}

/// `start + sum_f a[f] * b[f]` in a fixed order: blocks of 16 products go to 4 x 4
/// lanes by fused multiply-add (lane 0 of the first starts at `start`, the others
/// at -0), the lanes are added block-lane-wise and then pairwise; then blocks of 4
/// go to 4 lanes the same way (lane 0 starting at the sum so far), and the last
/// `len % 4` products are fused into the sum one by one.
#[inline(always)]
pub fn fused_dot<A: Real, B: Real>(start: f64, a: &[A], b: &[B]) -> f64 {
    let d = a.len().min(b.len());
    let (a, b) = (&a[..d], &b[..d]);
    let mut s = start;
    let mut f = 0;
    if d >= 16 {
        let mut acc = [[-0.0f64; 4]; 4];
        acc[0][0] = s;
        for (x, y) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
            for (p, lanes) in acc.iter_mut().enumerate() {
                for (l, v) in lanes.iter_mut().enumerate() {
                    let i = 4 * p + l;
                    *v = x[i].into().mul_add(y[i].into(), *v);
                }
            }
        }
        f = d - d % 16;
        let mut v = acc[0];
        for part in &acc[1..] {
            for l in 0..4 {
                v[l] += part[l];
            }
        }
        s = hsum(v);
    }
    if d - f >= 4 {
        let mut v = [s, -0.0, -0.0, -0.0];
        for (x, y) in a[f..].chunks_exact(4).zip(b[f..].chunks_exact(4)) {
            for l in 0..4 {
                v[l] = x[l].into().mul_add(y[l].into(), v[l]);
            }
        }
        f = d - (d - f) % 4;
        s = hsum(v);
    }
    for (x, y) in a[f..].iter().zip(&b[f..]) {
        s = (*x).into().mul_add((*y).into(), s);
    }
    s
}

/// [`fused_dot`] of two `f64` slices in AVX registers: the same operations on
/// the same lanes, so the same float.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
#[inline]
fn fused_dot_avx(start: f64, a: &[f64], b: &[f64]) -> f64 {
    use std::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "avx")]
    fn hsum(v: __m256d) -> f64 {
        let pairs = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
        _mm_cvtsd_f64(pairs) + _mm_cvtsd_f64(_mm_unpackhi_pd(pairs, pairs))
    }
    let d = a.len().min(b.len());
    let (a, b) = (&a[..d], &b[..d]);
    // SAFETY: every load reads 4 values at f + 4 j + 4 <= d, inside both slices.
    let load = |x: &[f64], i: usize| unsafe { _mm256_loadu_pd(x.as_ptr().add(i)) };
    let mut s = start;
    let mut f = 0;
    if d >= 16 {
        let zero = _mm256_set1_pd(-0.0);
        let mut acc = [_mm256_set_pd(-0.0, -0.0, -0.0, s), zero, zero, zero];
        while f + 16 <= d {
            for (p, v) in acc.iter_mut().enumerate() {
                let i = f + 4 * p;
                *v = _mm256_fmadd_pd(load(a, i), load(b, i), *v);
            }
            f += 16;
        }
        s = hsum(_mm256_add_pd(
            _mm256_add_pd(_mm256_add_pd(acc[0], acc[1]), acc[2]),
            acc[3],
        ));
    }
    if d - f >= 4 {
        let mut v = _mm256_set_pd(-0.0, -0.0, -0.0, s);
        while f + 4 <= d {
            v = _mm256_fmadd_pd(load(a, f), load(b, f), v);
            f += 4;
        }
        s = hsum(v);
    }
    for (x, y) in a[f..].iter().zip(&b[f..]) {
        s = x.mul_add(*y, s);
    }
    s
}

/// [`fused_dot`] of `f64` slices, in AVX registers where `AVX` (only inside
/// functions compiled for AVX and FMA, called on CPUs that have them).
#[inline(always)]
fn dot<const AVX: bool>(start: f64, a: &[f64], b: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    if AVX {
        // SAFETY: AVX is true only in the functions run after `has_fma()`.
        return unsafe { fused_dot_avx(start, a, b) };
    }
    fused_dot(start, a, b)
}

/// Whether the fused multiply-adds may run on the CPU's FMA unit (the result is
/// the same without it, only slower): [`crate::simd::avx_fma`].
#[cfg(target_arch = "x86_64")]
fn has_fma() -> bool {
    crate::simd::avx_fma()
}

/// The largest absolute value of a feature row (0 for a zero row).
#[inline(always)]
fn max_abs<T: Real>(row: &[T]) -> f64 {
    row.iter().fold(0.0f64, |m, &v| m.max(v.into().abs()))
}

/// The weight of a row of largest absolute value `m > 0` whose scaled norm
/// `||row / m||` (in [1, sqrt(d)]) is `n`: `1 / (m n)` when it is a finite number,
/// otherwise (`m` below about 5.6e-309, a subnormal row) `-1 / n`, which tells
/// [`Features::scaled`] to divide the row by `m` first.
#[inline(always)]
fn row_weight(m: f64, n: f64) -> f64 {
    let w = 1.0 / (m * n);
    if w.is_finite() {
        w
    } else {
        -1.0 / n
    }
}

#[inline(always)]
fn inverse_norms_range<T: Real>(
    features: &[T],
    d: usize,
    rows: &[i32],
    used: &[bool],
    lo: usize,
    out: &mut [f64],
) {
    for (i, o) in (lo..).zip(out.iter_mut()) {
        *o = 0.0;
        if used[i] && rows[i] >= 0 {
            let r = rows[i] as usize;
            let row = &features[r * d..(r + 1) * d];
            // the norm of row / max|row|, so that no square overflows (1e200) or
            // underflows (1e-300, subnormals): the cosine is exact at any magnitude
            let m = max_abs(row);
            if m > 0.0 && m.is_finite() {
                let mut sq = 0.0;
                for &v in row {
                    let x = v.into() / m;
                    sq = x.mul_add(x, sq);
                }
                *o = row_weight(m, sq.sqrt());
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
fn inverse_norms_range_fma<T: Real>(
    features: &[T],
    d: usize,
    rows: &[i32],
    used: &[bool],
    lo: usize,
    out: &mut [f64],
) {
    inverse_norms_range(features, d, rows, used, lo, out)
}

/// The weight that makes each feature row a unit vector, for each item code `i`
/// with `used[i]`: `1 / ||features[rows[i]]||`, computed on the row divided by its
/// largest absolute value so that it neither overflows nor underflows; for a row
/// so small that this is not a finite number, `-1 / ||row / max|row|| ||` (the
/// row is then divided by its largest absolute value before the weight applies,
/// see [`Features::scaled`]). 0 for unused items and zero vectors (whose cosine
/// with anything is then 0). `features` (finite values) is a row-major matrix of
/// `d` columns.
pub fn inverse_norms<T: Real>(
    features: &[T],
    d: usize,
    rows: &[i32],
    used: &[bool],
    n_chunks: usize,
) -> Vec<f64> {
    let mut out = vec![0.0f64; rows.len()];
    by_ranges(&mut out, n_chunks, |lo, part| {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { inverse_norms_range_fma(features, d, rows, used, lo, part) };
            return;
        }
        inverse_norms_range(features, d, rows, used, lo, part)
    });
    out
}

/// The top-`k` lists of a run (`items` cut by `offsets`) and their items' feature
/// vectors: `rows[c]` is the feature row of item code `c` in the row-major
/// `features` (`d` columns), `inv_norm[c]` its inverse norm ([`inverse_norms`]).
pub struct Features<'a, T> {
    pub items: &'a [i32],
    pub offsets: &'a [i64],
    pub k: i64,
    pub rows: &'a [i32],
    pub features: &'a [T],
    pub d: usize,
    pub inv_norm: &'a [f64],
}

impl<T: Real> Features<'_, T> {
    /// The feature row of item code `c` and its inverse norm.
    #[inline(always)]
    fn row(&self, c: i32) -> (&[T], f64) {
        let r = self.rows[c as usize] as usize;
        (
            &self.features[r * self.d..(r + 1) * self.d],
            self.inv_norm[c as usize],
        )
    }

    /// `features[rows[c]]` as a unit vector into `out`: times `inv_norm[c]`, or for
    /// a subnormal row (a negative weight, see [`inverse_norms`]) divided by its
    /// largest absolute value, then times `-inv_norm[c]`.
    #[inline(always)]
    fn scaled(&self, c: i32, out: &mut [f64]) {
        let (row, w) = self.row(c);
        if w < 0.0 {
            let m = max_abs(row);
            for (o, &x) in out.iter_mut().zip(row) {
                *o = x.into() / m * -w;
            }
        } else {
            for (o, &x) in out.iter_mut().zip(row) {
                *o = x.into() * w;
            }
        }
    }
}

#[inline(always)]
fn ils_features_range<T: Real, const AVX: bool>(x: &Features<'_, T>, lo: usize, out: &mut [f64]) {
    let d = x.d;
    let mut buf = vec![0.0f64; PAIRWISE_MAX * d];
    let mut squares = [0.0f64; PAIRWISE_MAX];
    let mut acc = vec![0.0f64; d];
    let mut row = vec![0.0f64; d];
    for (u, o) in (lo..).zip(out.iter_mut()) {
        let list = top(x.items, x.offsets, u, x.k);
        let m = list.len();
        if m < 2 {
            *o = f64::NAN;
            continue;
        }
        let mf = m as f64;
        if m <= PAIRWISE_MAX {
            for (i, &c) in list.iter().enumerate() {
                let bi = &mut buf[i * d..(i + 1) * d];
                x.scaled(c, bi);
                squares[i] = dot::<AVX>(0.0, bi, bi);
            }
            // each cosine over the norms of the unit vectors as rounded: exactly 1 for
            // equal vectors (sqrt(s * s) is s), 0 for a zero vector
            let mut total = 0.0;
            for i in 0..m - 1 {
                let bi = &buf[i * d..(i + 1) * d];
                for j in i + 1..m {
                    let norms = (squares[i] * squares[j]).sqrt();
                    if norms > 0.0 {
                        total += dot::<AVX>(0.0, bi, &buf[j * d..(j + 1) * d]) / norms;
                    }
                }
            }
            *o = 2.0 * total / (mf * (mf - 1.0));
        } else {
            acc.fill(0.0);
            let mut self_sq = 0.0;
            for &c in list {
                x.scaled(c, &mut row);
                for (a, &r) in acc.iter_mut().zip(row.iter()) {
                    *a += r;
                }
                self_sq = dot::<AVX>(self_sq, &row, &row);
            }
            let sq = dot::<AVX>(0.0, &acc, &acc);
            *o = (sq - self_sq) / (mf * (mf - 1.0));
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
fn ils_features_range_fma<T: Real>(x: &Features<'_, T>, lo: usize, out: &mut [f64]) {
    ils_features_range::<T, true>(x, lo, out)
}

/// Per-user intra-list similarity: the mean cosine of feature vectors over ordered
/// pairs of distinct positions (NaN below 2 items), in `n_chunks` chunks of users.
///
/// Short lists (at most [`PAIRWISE_MAX`] items) are scaled once into a small
/// buffer and every pair's cosine is taken there, as `x . y / sqrt(||x||^2
/// ||y||^2)` of the unit vectors as rounded (exactly 1 for equal vectors, the same
/// float for `(x, y)` and `(y, x)`); longer ones use
/// `sum_{i != j} <x_i, x_j> = ||sum_i x_i||^2 - sum_i ||x_i||^2`.
pub fn intra_list_similarity_csr<T: Real>(x: &Features<'_, T>, n_chunks: usize) -> Vec<f64> {
    let n_users = x.offsets.len().saturating_sub(1);
    let mut out = vec![0.0f64; n_users];
    by_ranges(&mut out, n_chunks, |lo, part| {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { ils_features_range_fma(x, lo, part) };
            return;
        }
        ils_features_range::<T, false>(x, lo, part)
    });
    out
}

/// Per-user intra-list similarity from a similarity matrix (`n` x `n`, row-major):
/// the sum of `S[i, j] + S[j, i]` over pairs of positions i < j, in order, over
/// m (m - 1); NaN below 2 items. The value is the same for the transposed matrix.
pub fn intra_list_similarity_matrix_csr<T: Real>(
    items: &[i32],
    offsets: &[i64],
    k: i64,
    rows: &[i32],
    matrix: &[T],
    n: usize,
    n_chunks: usize,
) -> Vec<f64> {
    let n_users = offsets.len().saturating_sub(1);
    let mut out = vec![0.0f64; n_users];
    by_ranges(&mut out, n_chunks, |lo, part| {
        for (u, o) in (lo..).zip(part.iter_mut()) {
            let list = top(items, offsets, u, k);
            let m = list.len();
            if m < 2 {
                *o = f64::NAN;
                continue;
            }
            let mut total = 0.0f64;
            for i in 0..m - 1 {
                let ri = rows[list[i] as usize] as usize;
                for &cj in &list[i + 1..] {
                    let rj = rows[cj as usize] as usize;
                    total += matrix[ri * n + rj].into() + matrix[rj * n + ri].into();
                }
            }
            let mf = m as f64;
            *o = total / (mf * (mf - 1.0));
        }
    });
    out
}

// ------------------------------------------------------------------ similarity to a history
#[inline(always)]
fn squares_range<const AVX: bool>(features: &[f64], d: usize, lo: usize, out: &mut [f64]) {
    for (r, o) in (lo..).zip(out.iter_mut()) {
        let row = &features[r * d..(r + 1) * d];
        *o = dot::<AVX>(0.0, row, row);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
fn squares_range_fma(features: &[f64], d: usize, lo: usize, out: &mut [f64]) {
    squares_range::<true>(features, d, lo, out)
}

/// Where each row looks: its feature row `left[r]` and the feature rows `rows[offsets[g]
/// .. offsets[g + 1]]` of its group `g = groups[r]` (a user's history).
pub struct Histories<'a> {
    pub left: &'a [i32],
    pub groups: &'a [i32],
    pub offsets: &'a [i64],
    pub rows: &'a [i32],
}

#[inline(always)]
fn history_means_range<const AVX: bool>(
    features: &[f64],
    d: usize,
    squares: &[f64],
    h: &Histories<'_>,
    lo: usize,
    out: &mut [f64],
) {
    for (r, o) in (lo..).zip(out.iter_mut()) {
        let i = h.left[r] as usize;
        let x = &features[i * d..(i + 1) * d];
        let g = h.groups[r] as usize;
        let held = &h.rows[h.offsets[g] as usize..h.offsets[g + 1] as usize];
        let mut total = 0.0;
        for &j in held {
            let j = j as usize;
            let norms = (squares[i] * squares[j]).sqrt();
            if norms > 0.0 {
                total += dot::<AVX>(0.0, x, &features[j * d..(j + 1) * d]) / norms;
            }
        }
        *o = total / held.len() as f64;
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,fma")]
fn history_means_range_fma(
    features: &[f64],
    d: usize,
    squares: &[f64],
    h: &Histories<'_>,
    lo: usize,
    out: &mut [f64],
) {
    history_means_range::<true>(features, d, squares, h, lo, out)
}

/// The mean cosine of each row's feature vector with those of its group (NaN for an
/// empty group), in `n_chunks` chunks of rows; `features` is row-major (`n_rows` x
/// `d`, finite values, each row scaled so that its squared norm neither overflows
/// nor underflows, e.g. by the power of two at or above its largest value).
///
/// Each cosine is `x . y / sqrt(||x||^2 ||y||^2)` from its own [`fused_dot`]s (0
/// for a zero vector): exactly 1 for two equal vectors (`sqrt(s * s)` is `s`) and
/// the same float for `(x, y)` and `(y, x)`. The cosines are added in the group's
/// order and divided once by its length.
pub fn history_cosine_means(
    (features, n_rows, d): (&[f64], usize, usize),
    h: &Histories<'_>,
    n_chunks: usize,
) -> Vec<f64> {
    let mut squares = vec![0.0f64; n_rows];
    by_ranges(&mut squares, n_chunks, |lo, part| {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { squares_range_fma(features, d, lo, part) };
            return;
        }
        squares_range::<false>(features, d, lo, part)
    });
    let squares = &squares;
    let mut out = vec![0.0f64; h.left.len()];
    by_ranges(&mut out, n_chunks, |lo, part| {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { history_means_range_fma(features, d, squares, h, lo, part) };
            return;
        }
        history_means_range::<false>(features, d, squares, h, lo, part)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`intra_list_similarity_csr`] of the lists `items` / `offsets` at `k`.
    fn ils<T: Real>(
        (items, offsets, k): (&[i32], &[i64], i64),
        rows: &[i32],
        features: &[T],
        inv_norm: &[f64],
        n_chunks: usize,
    ) -> Vec<f64> {
        let x = Features {
            items,
            offsets,
            k,
            rows,
            features,
            d: 2,
            inv_norm,
        };
        intra_list_similarity_csr(&x, n_chunks)
    }

    #[test]
    fn fused_dot_is_exact_on_small_integers_and_ordered() {
        for d in [0, 1, 3, 4, 5, 15, 16, 17, 20, 35, 64] {
            let a: Vec<f64> = (0..d).map(|i| i as f64).collect();
            let want: f64 = (0..d).map(|i| (i * i) as f64).sum();
            assert_eq!(fused_dot(0.0, &a, &a), want);
            assert_eq!(fused_dot(1.0, &a, &a), want + 1.0);
        }
        // the tail is fused: x * x rounded first would lose its 2^-60
        let x = 1.0 + 2f64.powi(-30);
        assert_eq!(fused_dot(-1.0, &[x], &[x]), 2f64.powi(-29) + 2f64.powi(-60));
    }

    /// The dot product the kernels take on the path chosen ([`crate::simd`]).
    fn dispatched_dot(start: f64, a: &[f64], b: &[f64]) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: the CPU has FMA and AVX.
            return unsafe { fused_dot_avx(start, a, b) };
        }
        fused_dot(start, a, b)
    }

    #[test]
    fn the_avx_dot_is_the_same_float() {
        let mut floats: Vec<Vec<u64>> = Vec::new();
        crate::simd::for_each_path(|_| {
            // exact on small integers, in the registers' loop and its tail
            for d in [3usize, 4, 17, 35, 64] {
                let a: Vec<f64> = (0..d).map(|i| i as f64).collect();
                let want: f64 = (0..d).map(|i| (i * i) as f64).sum();
                assert_eq!(dispatched_dot(1.0, &a, &a), want + 1.0);
            }
            floats.push(dots_of_wide_values());
        });
        assert!(floats.windows(2).all(|w| w[0] == w[1]));
    }

    fn dots_of_wide_values() -> Vec<u64> {
        let mut out = Vec::new();
        let mut x = 0.1f64;
        let mut next = || {
            x = (x * 3.7 + 0.123).fract();
            (x - 0.5) * 10f64.powi((x * 20.0) as i32 - 10)
        };
        for d in 0..70 {
            let a: Vec<f64> = (0..d).map(|_| next()).collect();
            let b: Vec<f64> = (0..d).map(|_| next()).collect();
            let start = next();
            out.push(dispatched_dot(start, &a, &b).to_bits());
        }
        out
    }

    #[test]
    fn ils_is_exact_at_any_magnitude() {
        crate::simd::for_each_path(|_| ils_is_exact_at_any_magnitude_on_this_path());
    }

    fn ils_is_exact_at_any_magnitude_on_this_path() {
        // the cosine of (1, 2) and (3, 1) is 5 / sqrt(50); scaled by 1e200 the squares
        // overflow, by 1e-300 or a subnormal 1e-310 they underflow
        let want = 5.0 / 50f64.sqrt();
        for scale in [1.0, 1e200, 1e300, 1e-300, 1e-310, 5e-324 * 4.0] {
            let feats = [1.0 * scale, 2.0 * scale, 3.0 * scale, 1.0 * scale];
            let rows = [0, 1];
            let inv = inverse_norms(&feats, 2, &rows, &[true; 2], 1);
            for m in [2usize, 40] {
                let items: Vec<i32> = (0..m as i32).map(|i| i % 2).collect();
                let got = ils((&items, &[0, m as i64], m as i64), &rows, &feats, &inv, 1);
                // m = 40: 20 copies of each, so the pairs are 380 + 380 identical and 800 cosines
                let exact = if m == 2 {
                    want
                } else {
                    (760.0 + 800.0 * want) / 1560.0
                };
                let tol = if scale < 1e-320 { 1e-2 } else { 1e-14 };
                assert!(
                    (got[0] - exact).abs() < tol,
                    "{scale} {m}: {} {exact}",
                    got[0]
                );
            }
        }
    }

    #[test]
    fn history_cosines_are_exact_for_equal_vectors() {
        crate::simd::for_each_path(|_| {
            // rows 0 and 1 equal, 2 zero, 3 the mirror of 0: cos(0, 3) = 0.55 / 0.59
            let feats = [0.1, 0.7, 0.3, 0.1, 0.7, 0.3, 0.0, 0.0, 0.0, 0.3, 0.7, 0.1];
            let h = Histories {
                left: &[0, 1, 2, 0, 3, 0],
                groups: &[0, 0, 0, 1, 2, 3],
                offsets: &[0, 2, 4, 5, 5],
                rows: &[0, 1, 3, 2, 0],
            };
            for chunks in [1, 3] {
                let got = history_cosine_means((&feats, 4, 3), &h, chunks);
                assert_eq!(got[..3], [1.0, 1.0, 0.0]);
                // the same float either way round; (1 + 0) / 2 with a zero vector
                let by_3 = history_cosine_means((&feats, 4, 3), &h, 1)[4];
                assert_eq!(got[3], (by_3 + 0.0) / 2.0);
                assert!((by_3 - 0.55 / 0.59).abs() < 1e-15);
                assert!(got[5].is_nan()); // an empty history
            }
        });
    }

    #[test]
    fn ils_of_equal_vectors_is_exactly_one() {
        crate::simd::for_each_path(|_| {
            // (1, 1) and (0.1, 0.7) as unit vectors have squared norms 1 -/+ 2^-52:
            // their dot products alone gave 0.9999999999999998
            let feats = [1.0, 1.0, 1.0, 1.0, 0.1, 0.7, 0.1, 0.7, 0.0, 0.0];
            let rows = [0, 1, 2, 3, 4];
            let inv = inverse_norms(&feats, 2, &rows, &[true; 5], 1);
            let items = [0, 1, 2, 3, 3, 2, 4];
            let got = ils((&items, &[0, 2, 4, 7], 10), &rows, &feats, &inv, 1);
            assert_eq!(got[..2], [1.0, 1.0]);
            assert_eq!(got[2], 1.0 / 3.0); // with a zero vector: (1 + 0 + 0) / 3
        });
    }

    #[test]
    fn ils_from_features_and_matrix() {
        // items 0, 1 orthogonal; 2 = 0 + 1
        let feats = [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0];
        let rows = [0, 1, 2];
        let inv = inverse_norms(&feats, 2, &rows, &[true; 3], 1);
        assert_eq!(inv[0], 1.0);
        assert_eq!(inv[2], 1.0 / 2f64.sqrt());
        let zero = inverse_norms(&[0.0f64, 0.0], 2, &[0, -1], &[true, true], 1);
        assert_eq!(zero, vec![0.0, 0.0]);
        let items = [0, 1, 0, 2, 1];
        let offsets = [0, 2, 4, 5];
        for chunks in [1, 2] {
            let got = ils((&items, &offsets, 10), &rows, &feats, &inv, chunks);
            assert_eq!(got[0], 0.0);
            assert!((got[1] - 0.5f64.sqrt()).abs() < 1e-15);
            assert!(got[2].is_nan());
        }
        // short and long lists (the sum formula) agree with the pairs' cosines
        let cos = |a: i32, b: i32| match (a.min(b), a.max(b)) {
            (x, y) if x == y => 1.0,
            (0, 1) => 0.0,
            _ => 0.5f64.sqrt(),
        };
        let long: Vec<i32> = (0..40).map(|i| i % 3).collect();
        for m in [30, 40] {
            let got = ils((&long, &[0, 40], m), &rows, &feats, &inv, 1);
            let mut want = 0.0;
            for i in 0..m as usize {
                for j in 0..m as usize {
                    if i != j {
                        want += cos(long[i], long[j]);
                    }
                }
            }
            want /= (m * (m - 1)) as f64;
            assert!((got[0] - want).abs() < 1e-13, "{m}: {} {want}", got[0]);
        }
        let sim = [1.0f64, 0.2, 0.5, 0.4, 1.0, 0.5, 0.5, 0.5, 1.0];
        let by_matrix = intra_list_similarity_matrix_csr(&items, &offsets, 10, &rows, &sim, 3, 2);
        assert_eq!(by_matrix[0], (0.2 + 0.4) / 2.0);
        assert_eq!(by_matrix[1], 1.0 / 2.0);
        assert!(by_matrix[2].is_nan());
    }
}
