//! XAUC: the pairs of rows that scores order as continuous targets are, counted in
//! O(n log n) per group (never the O(n^2) pair loop).
//!
//! The rows are first reduced to distinct `(group, target, score, weight)` keys with
//! their row counts, in one canonical order ([`distinct`]); the pairs are then
//! counted over the keys of each group ([`pairs_counted`], [`pairs_weighted`]) by a
//! merge sort of the keys (targets ascending) by score.

use crate::sums::{rounded, Adder};
use crate::threads;
use rayon::prelude::*;

/// Distinct keys of one state and their counts, in the canonical order.
pub struct Keys {
    /// Group code of each key (ascending).
    pub codes: Vec<i64>,
    /// Target of each key (ascending within a group).
    pub y: Vec<f64>,
    /// Score of each key (descending within a target).
    pub s: Vec<f64>,
    /// Weight of each key's rows (ascending within a score).
    pub w: Vec<f64>,
    /// Rows of each key.
    pub count: Vec<i64>,
}

/// An order-preserving integer key of a float (by its total order; `-0.0` read as
/// `0.0`).
fn key(x: f64) -> u64 {
    let b = (x + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// The distinct `(code, y, s, w)` of the rows (each standing for `count` rows),
/// their counts summed, in the canonical order: code ascending, target ascending,
/// score descending, weight ascending (floats by their total order; `-0.0` is read
/// as `0.0`). All slices have one length.
pub fn distinct(codes: &[i64], y: &[f64], s: &[f64], w: &[f64], count: &[i64]) -> Keys {
    let n = y.len();
    // the keys side by side: the sort reads memory in order
    let mut rows: Vec<(i64, u64, u64, u64, usize)> = (0..n)
        .map(|i| (codes[i], key(y[i]), !key(s[i]), key(w[i]), i))
        .collect();
    if n >= threads::PARALLEL_ROWS {
        threads::install(|| rows.par_sort_unstable());
    } else {
        rows.sort_unstable();
    }
    let mut keys = Keys {
        codes: Vec::new(),
        y: Vec::new(),
        s: Vec::new(),
        w: Vec::new(),
        count: Vec::new(),
    };
    let mut last: Option<(i64, u64, u64, u64)> = None;
    for &(c, ky, ks, kw, i) in &rows {
        if last == Some((c, ky, ks, kw)) {
            if let Some(total) = keys.count.last_mut() {
                *total += count[i];
            }
            continue;
        }
        keys.codes.push(c);
        keys.y.push(y[i] + 0.0);
        keys.s.push(s[i] + 0.0);
        keys.w.push(w[i]);
        keys.count.push(count[i]);
        last = Some((c, ky, ks, kw));
    }
    keys
}

/// A weight: integer counts or floats.
trait Weight:
    Copy + Default + std::ops::AddAssign + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    fn two() -> Self;
}

impl Weight for u64 {
    fn two() -> Self {
        2
    }
}

impl Weight for f64 {
    fn two() -> Self {
        2.0
    }
}

/// One group's keys (targets ascending, scores descending within a target): each key
/// with `visit(weight, twice)`, `twice` the weight of the keys of smaller targets
/// whose score is smaller, twice, plus those whose score is equal; and the weight of
/// all keys of smaller targets as `pair(weight, below)`. A bottom-up merge sort by
/// score: each key of a right half meets the left half's keys in score order, memory
/// read in order.
fn walk<T: Weight, V: FnMut(T, T), P: FnMut(T, T)>(
    y: &[f64],
    s: &[f64],
    w: &[T],
    mut visit: V,
    mut pair: P,
) {
    // keys of one (target, score) merged: within a target the scores then fall
    // strictly, so a left key of the same target as a right one is never counted
    let mut cur: Vec<(f64, T)> = Vec::with_capacity(y.len());
    let mut below = T::default();
    let mut in_level = T::default();
    for j in 0..y.len() {
        let same_target = j > 0 && y[j] == y[j - 1];
        if same_target && s[j] == s[j - 1] {
            if let Some(last) = cur.last_mut() {
                last.1 += w[j];
            }
        } else {
            if !same_target {
                below += in_level;
                in_level = T::default();
            }
            cur.push((s[j], w[j]));
        }
        in_level += w[j];
        pair(w[j], below);
    }
    let n = cur.len();
    let mut next: Vec<(f64, T)> = vec![(0.0, T::default()); n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (left, right) = (&cur[start..mid], &cur[mid..end]);
            let (mut i, mut j, mut k) = (0, 0, start);
            let mut taken = T::default(); // weight of the left keys of smaller scores
            while j < right.len() {
                if i < left.len() && left[i].0 < right[j].0 {
                    taken += left[i].1;
                    next[k] = left[i];
                    i += 1;
                    k += 1;
                    continue;
                }
                // the left keys of right[j]'s score
                let mut equal = T::default();
                let mut e = i;
                while e < left.len() && left[e].0 == right[j].0 {
                    equal += left[e].1;
                    e += 1;
                }
                let score = right[j].0;
                while j < right.len() && right[j].0 == score {
                    visit(right[j].1, T::two() * taken + equal);
                    next[k] = right[j];
                    j += 1;
                    k += 1;
                }
                while i < e {
                    taken += left[i].1;
                    next[k] = left[i];
                    i += 1;
                    k += 1;
                }
            }
            next[k..end].copy_from_slice(&left[i..]);
            start = end;
        }
        std::mem::swap(&mut cur, &mut next);
        width *= 2;
    }
}

/// Per group (keys `starts[g]..starts[g + 1]`, canonical order): twice the count of
/// the pairs of different targets that the scores order alike plus the pairs of equal
/// scores, and the count of the pairs of different targets. Integer counts; the
/// caller keeps them below 2^62 (fewer than 2^31 rows).
pub fn pairs_counted(
    starts: &[usize],
    y: &[f64],
    s: &[f64],
    count: &[i64],
) -> (Vec<u64>, Vec<u64>) {
    let one = |g: usize| {
        let (a, b) = (starts[g], starts[g + 1]);
        let c: Vec<u64> = count[a..b].iter().map(|&n| n as u64).collect();
        let (mut twice, mut pairs) = (0u64, 0u64);
        walk(
            &y[a..b],
            &s[a..b],
            &c,
            |n, t| twice += n * t,
            |n, below| pairs += n * below,
        );
        (twice, pairs)
    };
    per_group(starts, y.len(), one)
}

/// [`pairs_counted`] with a float weight per key (its rows' weight times their
/// count, scaled by the caller so that no sum overflows): the sums of the rounded
/// products are exact, rounded once.
pub fn pairs_weighted(
    starts: &[usize],
    y: &[f64],
    s: &[f64],
    weight: &[f64],
) -> (Vec<f64>, Vec<f64>) {
    let one = |g: usize| {
        let (a, b) = (starts[g], starts[g + 1]);
        let (mut twice, mut pairs) = (Adder::default(), Adder::default());
        let (mut n_twice, mut n_pairs) = (0usize, 0usize);
        walk(
            &y[a..b],
            &s[a..b],
            &weight[a..b],
            |w, t| {
                twice.add(w * t);
                n_twice += 1;
                if n_twice % (1 << 24) == 0 {
                    twice.carry();
                }
            },
            |w, below| {
                pairs.add(w * below);
                n_pairs += 1;
                if n_pairs % (1 << 24) == 0 {
                    pairs.carry();
                }
            },
        );
        (rounded(&twice.finish()), rounded(&pairs.finish()))
    };
    per_group(starts, y.len(), one)
}

/// `one(g)` for every group, in parallel over groups when the rows are many.
fn per_group<T: Send, F: Fn(usize) -> (T, T) + Sync>(
    starts: &[usize],
    n: usize,
    one: F,
) -> (Vec<T>, Vec<T>) {
    let groups = starts.len().saturating_sub(1);
    let results: Vec<(T, T)> = if groups > 1 && n >= threads::PARALLEL_ROWS {
        threads::install(|| (0..groups).into_par_iter().map(&one).collect())
    } else {
        (0..groups).map(&one).collect()
    };
    results.into_iter().unzip()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The O(n^2) pair loop over rows.
    fn brute(y: &[f64], s: &[f64]) -> (u64, u64) {
        let (mut twice, mut pairs) = (0, 0);
        for i in 0..y.len() {
            for j in 0..y.len() {
                if y[i] < y[j] {
                    pairs += 1;
                    twice += if s[i] < s[j] {
                        2
                    } else if s[i] == s[j] {
                        1
                    } else {
                        0
                    };
                }
            }
        }
        (twice, pairs)
    }

    fn counted(y: &[f64], s: &[f64]) -> (u64, u64) {
        let n = y.len();
        let keys = distinct(&vec![0; n], y, s, &vec![1.0; n], &vec![1; n]);
        let (t, p) = pairs_counted(&[0, keys.y.len()], &keys.y, &keys.s, &keys.count);
        (t[0], p[0])
    }

    #[test]
    fn counts_equal_the_pair_loop_with_ties() {
        let y = [3.0, 1.0, 2.0, 2.0, 0.0, 3.0, 1.0, -0.0];
        let s = [0.5, 0.5, 0.1, 0.9, 0.5, 0.2, 0.7, 0.5];
        assert_eq!(counted(&y, &s), brute(&y, &s));
    }

    #[test]
    fn weighted_equals_repetition() {
        let y = [1.0, 2.0, 2.0, 3.0];
        let s = [0.4, 0.4, 0.8, 0.1];
        let w = [2.0, 1.0, 3.0, 1.0];
        let keys = distinct(&[0; 4], &y, &s, &w, &[1; 4]);
        let (t, p) = pairs_weighted(&[0, 4], &keys.y, &keys.s, &keys.w);
        let (mut ry, mut rs) = (Vec::new(), Vec::new());
        for i in 0..4 {
            for _ in 0..w[i] as usize {
                ry.push(y[i]);
                rs.push(s[i]);
            }
        }
        let (bt, bp) = brute(&ry, &rs);
        assert_eq!((t[0], p[0]), (bt as f64, bp as f64));
    }

    #[test]
    fn groups_are_counted_apart() {
        let codes = [1, 0, 1, 0];
        let y = [1.0, 1.0, 2.0, 2.0];
        let s = [0.9, 0.1, 0.1, 0.9];
        let keys = distinct(&codes, &y, &s, &[1.0; 4], &[1; 4]);
        assert_eq!(keys.codes, vec![0, 0, 1, 1]);
        let (t, p) = pairs_counted(&[0, 2, 4], &keys.y, &keys.s, &keys.count);
        assert_eq!((t, p), (vec![2, 0], vec![1, 1]));
    }
}
