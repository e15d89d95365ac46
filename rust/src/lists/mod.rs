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
//! Here: the lists' counts, pairs and means; `similarity`: intra-list similarity
//! of feature vectors or of a similarity matrix, and the mean cosine of items with
//! a user's history.

use rayon::prelude::*;

use crate::threads;

mod similarity;

pub use similarity::{
    history_cosine_means, intra_list_similarity_csr, intra_list_similarity_matrix_csr,
    inverse_norms, Features, Histories,
};

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
}
