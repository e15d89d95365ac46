//! The beyond-accuracy kernels: they read a run's lists as a CSR.
//!
//! Every kernel takes the run's `items` (item codes of each user's list, in ranked
//! order), its `offsets` (n_users + 1) and a depth `k`: only the first
//! `min(len, k)` items of each list count. Item-level inputs (feature rows,
//! popularity) are indexed by the item codes; `NaN` means undefined.
//!
//! Per-user kernels split the users into `n_chunks` contiguous ranges run in
//! parallel, each with its own scratch memory (bounded by the longest list, never
//! by the catalogue). Every user's value is computed by one thread in a fixed
//! order, so the results do not depend on the chunks or the threads.
//!
//! Cosine similarities of feature vectors sum products over the features in one
//! fixed order ([`fused_dot`]): fused multiply-adds in 4 lanes, 4 ways unrolled,
//! then a 4-lane pass and a sequential tail (the order a compiler allowed to
//! reassociate and contract picks on x86-64 CPUs with AVX2 and FMA), fixed here:
//! the result is the same float on every machine.

use rayon::prelude::*;

use crate::threads;

/// Lists longer than this use `||sum x||^2 - sum ||x||^2` (O(m d)) instead of the
/// m (m - 1) / 2 dot products (O(m^2 d)).
pub const PAIRWISE_MAX: usize = 32;

/// A feature or similarity value: read as `f64`.
pub trait Real: Copy + Into<f64> + Send + Sync {}
impl Real for f32 {}
impl Real for f64 {}

/// Items counted in list `u`: `min(len, k)` (0 for a negative `k`).
#[inline]
fn depth(offsets: &[i64], u: usize, k: i64) -> usize {
    let n = offsets[u + 1] - offsets[u];
    n.min(k).max(0) as usize
}

/// The top-`k` item codes of list `u`.
#[inline]
fn top<'a>(items: &'a [i32], offsets: &[i64], u: usize, k: i64) -> &'a [i32] {
    let a = offsets[u] as usize;
    &items[a..a + depth(offsets, u, k)]
}

/// Run `f(first_user, values)` over `n_chunks` contiguous ranges of `out` in
/// parallel (on the calling thread for one chunk).
fn by_ranges<F>(out: &mut [f64], n_chunks: usize, f: F)
where
    F: Fn(usize, &mut [f64]) + Sync,
{
    let n = out.len();
    if n_chunks <= 1 || n < 2 {
        f(0, out);
        return;
    }
    let size = n.div_ceil(n_chunks);
    threads::install(|| {
        out.par_chunks_mut(size)
            .enumerate()
            .for_each(|(c, part)| f(c * size, part))
    });
}

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

// ------------------------------------------------------------------ exposure
/// How many lists hold each item in their top `k` (length `n_items`).
pub fn item_counts_csr(items: &[i32], offsets: &[i64], k: i64, n_items: usize) -> Vec<i64> {
    let mut counts = vec![0i64; n_items];
    for u in 0..offsets.len().saturating_sub(1) {
        for &c in top(items, offsets, u, k) {
            counts[c as usize] += 1;
        }
    }
    counts
}

/// Gini index of non-negative integer counts sorted ascending:
/// `sum_j (2 j - n - 1) c_j / (n sum_j c_j)` (j = 1..n), the numerator and the
/// total exact integer sums divided once; NaN if every count is 0.
pub fn gini_sorted(counts: &[i64]) -> f64 {
    let n = counts.len() as i64;
    let mut num = 0i64;
    let mut total = 0i64;
    for (j, &c) in counts.iter().enumerate() {
        let coef = 2 * (j as i64 + 1) - n - 1;
        num = num.wrapping_add(coef.wrapping_mul(c));
        total = total.wrapping_add(c);
    }
    if total == 0 {
        return f64::NAN;
    }
    num as f64 / (n as f64 * total as f64)
}

// ------------------------------------------------------------------ intra-list similarity
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

/// A list's items as feature rows and their inverse norms.
struct Features<'a, T> {
    items: &'a [i32],
    offsets: &'a [i64],
    k: i64,
    rows: &'a [i32],
    features: &'a [T],
    d: usize,
    inv_norm: &'a [f64],
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
                x.scaled(c, &mut buf[i * d..(i + 1) * d]);
            }
            let mut total = 0.0;
            for i in 0..m - 1 {
                let bi = &buf[i * d..(i + 1) * d];
                for j in i + 1..m {
                    total += dot::<AVX>(0.0, bi, &buf[j * d..(j + 1) * d]);
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
/// pairs of distinct positions (NaN below 2 items). `rows[c]` is the feature row of
/// item code `c` (row-major, `d` columns) and `inv_norm[c]` its inverse norm.
///
/// Short lists (at most [`PAIRWISE_MAX`] items) are scaled once into a small
/// buffer and every pair's dot product is taken there; longer ones use
/// `sum_{i != j} <x_i, x_j> = ||sum_i x_i||^2 - sum_i ||x_i||^2`.
#[allow(clippy::too_many_arguments)]
pub fn intra_list_similarity_csr<T: Real>(
    items: &[i32],
    offsets: &[i64],
    k: i64,
    rows: &[i32],
    features: &[T],
    d: usize,
    inv_norm: &[f64],
    n_chunks: usize,
) -> Vec<f64> {
    let n_users = offsets.len().saturating_sub(1);
    let x = Features {
        items,
        offsets,
        k,
        rows,
        features,
        d,
        inv_norm,
    };
    let mut out = vec![0.0f64; n_users];
    by_ranges(&mut out, n_chunks, |lo, part| {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { ils_features_range_fma(&x, lo, part) };
            return;
        }
        ils_features_range::<T, false>(&x, lo, part)
    });
    out
}

/// Per-user intra-list similarity from a similarity matrix (`n` x `n`, row-major):
/// the sum of `S[i, j] + S[j, i]` over pairs of positions i < j, in order, over
/// m (m - 1); NaN below 2 items. The value is the same for the transposed matrix.
#[allow(clippy::too_many_arguments)]
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

/// Every unordered pair of each top-`k` list as `lo * n_items + hi` (item codes),
/// and the CSR offsets of each user's pairs.
pub fn pair_keys_csr(items: &[i32], offsets: &[i64], k: i64, n_items: i64) -> (Vec<i64>, Vec<i64>) {
    let n_users = offsets.len().saturating_sub(1);
    let mut pair_offsets = vec![0i64; n_users + 1];
    for u in 0..n_users {
        let m = depth(offsets, u, k) as i64;
        pair_offsets[u + 1] = pair_offsets[u] + m * (m - 1) / 2;
    }
    let mut keys = Vec::with_capacity(pair_offsets[n_users] as usize);
    for u in 0..n_users {
        let list = top(items, offsets, u, k);
        for (i, &ci) in list.iter().enumerate() {
            let ci = ci as i64;
            for &cj in &list[i + 1..] {
                let cj = cj as i64;
                let (a, b) = if ci < cj { (ci, cj) } else { (cj, ci) };
                keys.push(a.wrapping_mul(n_items).wrapping_add(b));
            }
        }
    }
    (keys, pair_offsets)
}

/// Mean of each user's pair values, summed in order (NaN for a user without pairs).
pub fn pair_means_csr(values: &[f64], pair_offsets: &[i64], n_chunks: usize) -> Vec<f64> {
    let n_users = pair_offsets.len().saturating_sub(1);
    let mut out = vec![0.0f64; n_users];
    by_ranges(&mut out, n_chunks, |lo, part| {
        for (u, o) in (lo..).zip(part.iter_mut()) {
            let (a, b) = (pair_offsets[u] as usize, pair_offsets[u + 1] as usize);
            let mut total = 0.0f64;
            for &v in &values[a..b] {
                total += v;
            }
            *o = if b > a {
                total / (b - a) as f64
            } else {
                f64::NAN
            };
        }
    });
    out
}

// ------------------------------------------------------------------ personalization
/// Sum of cos(L_u, L_v) over ordered pairs of distinct users, in O(rows).
///
/// With x_ui = 1 if item i is in user u's top-k list and n_u = |L_u|,
/// `sum_{u != v} cos = sum_i [(sum_u x_ui / sqrt(n_u))^2 - sum_u x_ui / n_u]`.
/// When every list has the same length m this is `sum_i c_i (c_i - 1) / m` with
/// c_i the lists holding item i: an exact integer sum divided once.
pub fn personalization_csr(items: &[i32], offsets: &[i64], k: i64, n_items: usize) -> f64 {
    let n_users = offsets.len().saturating_sub(1);
    let m0 = if n_users > 0 { depth(offsets, 0, k) } else { 0 };
    if (0..n_users).all(|u| depth(offsets, u, k) == m0) {
        let counts = item_counts_csr(items, offsets, k, n_items);
        let mut pairs = 0i64;
        for c in counts {
            pairs = pairs.wrapping_add(c.wrapping_mul(c - 1));
        }
        return if m0 > 0 {
            pairs as f64 / m0 as f64
        } else {
            0.0
        };
    }
    let mut root = vec![0.0f64; n_items];
    let mut inv = vec![0.0f64; n_items];
    for u in 0..n_users {
        let list = top(items, offsets, u, k);
        if list.is_empty() {
            continue;
        }
        let m = list.len() as f64;
        let w = 1.0 / m.sqrt();
        let w2 = 1.0 / m;
        for &c in list {
            root[c as usize] += w;
            inv[c as usize] += w2;
        }
    }
    let mut total = 0.0f64;
    for (r, i) in root.iter().zip(&inv) {
        total += r * r - i;
    }
    total
}

// ------------------------------------------------------------------ novelty
/// Distinct users of each item in an interaction log (repeated pairs count once):
/// a counting sort of the rows by item, then one stamp table over users.
pub fn distinct_users_per_item(
    user_codes: &[i32],
    item_codes: &[i32],
    n_users: usize,
    n_items: usize,
) -> Vec<i64> {
    let mut starts = vec![0usize; n_items + 1];
    for &c in item_codes {
        starts[c as usize + 1] += 1;
    }
    for c in 0..n_items {
        starts[c + 1] += starts[c];
    }
    let mut cursor = starts[..n_items].to_vec();
    let mut users = vec![0i32; item_codes.len()];
    for (&c, &u) in item_codes.iter().zip(user_codes) {
        users[cursor[c as usize]] = u;
        cursor[c as usize] += 1;
    }
    let mut stamp = vec![usize::MAX; n_users];
    let mut out = vec![0i64; n_items];
    for c in 0..n_items {
        for &u in &users[starts[c]..starts[c + 1]] {
            if stamp[u as usize] != c {
                stamp[u as usize] = c;
                out[c] += 1;
            }
        }
    }
    out
}

/// Per-user mean of `values[item]` over the top-`k` list, in order, skipping NaN
/// values (NaN when nothing is left).
pub fn list_means_csr(
    values: &[f64],
    items: &[i32],
    offsets: &[i64],
    k: i64,
    n_chunks: usize,
) -> Vec<f64> {
    let n_users = offsets.len().saturating_sub(1);
    let mut out = vec![0.0f64; n_users];
    by_ranges(&mut out, n_chunks, |lo, part| {
        for (u, o) in (lo..).zip(part.iter_mut()) {
            let mut total = 0.0f64;
            let mut count = 0usize;
            for &c in top(items, offsets, u, k) {
                let x = values[c as usize];
                if !x.is_nan() {
                    total += x;
                    count += 1;
                }
            }
            *o = if count > 0 {
                total / count as f64
            } else {
                f64::NAN
            };
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // lists [0, 1, 2], [1], [], [2, 0]
    const ITEMS: [i32; 6] = [0, 1, 2, 1, 2, 0];
    const OFFSETS: [i64; 5] = [0, 3, 4, 4, 6];

    #[test]
    fn counts_gini_and_means() {
        assert_eq!(item_counts_csr(&ITEMS, &OFFSETS, 10, 4), vec![2, 2, 2, 0]);
        assert_eq!(item_counts_csr(&ITEMS, &OFFSETS, 1, 3), vec![1, 1, 1]);
        assert_eq!(gini_sorted(&[0, 1, 2]), 4.0 / 9.0);
        assert!(gini_sorted(&[0, 0]).is_nan() && gini_sorted(&[]).is_nan());
        let info = [1.0, f64::NAN, 4.0];
        for chunks in [1, 3] {
            let means = list_means_csr(&info, &ITEMS, &OFFSETS, 10, chunks);
            assert_eq!(means[0], 2.5);
            assert!(means[1].is_nan() && means[2].is_nan());
            assert_eq!(means[3], 2.5);
        }
    }

    #[test]
    fn pairs_and_personalization() {
        let (keys, offsets) = pair_keys_csr(&ITEMS, &OFFSETS, 10, 3);
        assert_eq!(keys, vec![1, 2, 5, 2]);
        assert_eq!(offsets, vec![0, 3, 3, 3, 4]);
        let means = pair_means_csr(&[1.0, 2.0, 4.0, 0.5], &offsets, 2);
        assert_eq!(means[0], 7.0 / 3.0);
        assert!(means[1].is_nan());
        assert_eq!(means[3], 0.5);
        // identical lists: 0; disjoint ones: exactly 0 too (no shared item)
        let same = personalization_csr(&[0, 1, 1, 0], &[0, 2, 4], 10, 2);
        assert_eq!(same, 2.0); // cos = 1 for both ordered pairs
        assert_eq!(personalization_csr(&[0, 1], &[0, 1, 2], 10, 2), 0.0);
        let uneven = personalization_csr(&[0, 0, 1], &[0, 1, 3], 10, 2);
        assert!((uneven - 2.0 / 2f64.sqrt()).abs() < 1e-15);
    }

    #[test]
    fn distinct_users_count_pairs_once() {
        let users = [0, 0, 1, 2, 1];
        let items = [1, 1, 1, 0, 0];
        assert_eq!(distinct_users_per_item(&users, &items, 3, 3), vec![2, 2, 0]);
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
                let got = intra_list_similarity_csr(
                    &items,
                    &[0, m as i64],
                    m as i64,
                    &rows,
                    &feats,
                    2,
                    &inv,
                    1,
                );
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
            let ils =
                intra_list_similarity_csr(&items, &offsets, 10, &rows, &feats, 2, &inv, chunks);
            assert_eq!(ils[0], 0.0);
            assert!((ils[1] - 0.5f64.sqrt()).abs() < 1e-15);
            assert!(ils[2].is_nan());
        }
        // short and long lists (the sum formula) agree with the pairs' cosines
        let cos = |a: i32, b: i32| match (a.min(b), a.max(b)) {
            (x, y) if x == y => 1.0,
            (0, 1) => 0.0,
            _ => 0.5f64.sqrt(),
        };
        let long: Vec<i32> = (0..40).map(|i| i % 3).collect();
        for m in [30, 40] {
            let got = intra_list_similarity_csr(&long, &[0, 40], m, &rows, &feats, 2, &inv, 1);
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
