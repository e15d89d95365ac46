//! Per-group AUC (GAUC) without sorting the majority class.
//!
//! Rows carry a dense group code. Only the rows of the globally rarer class are
//! gathered per group and sorted; every row of the other class is streamed in input
//! order and binary-searched in its group's sorted segment: exact integer counts
//! (ties count one half), O(n log m_g).
//!
//! With sample weights each group's rows are put in an order that depends on the
//! rows alone (by score, then weight) and summed in it, so a group's weighted AUC is
//! the same float in any split of the groups and any row order.

use rayon::prelude::*;
use std::cmp::Ordering;

use crate::auc::pair_weight_sorted;
use crate::threads;

/// Rows and positives of each group.
pub fn group_counts(codes: &[i32], n_groups: usize, labels: &[i8]) -> (Vec<i64>, Vec<i64>) {
    let mut rows = vec![0i64; n_groups];
    let mut positives = vec![0i64; n_groups];
    for (&g, &l) in codes.iter().zip(labels) {
        rows[g as usize] += 1;
        positives[g as usize] += l as i64;
    }
    (rows, positives)
}

/// CSR of the minority-class scores by group (`counts`: minority rows per group).
pub fn gather_minority(
    codes: &[i32],
    labels: &[i8],
    scores: &[f64],
    minority: i8,
    counts: &[i64],
) -> (Vec<i64>, Vec<f64>) {
    let n_groups = counts.len();
    let mut offsets = vec![0i64; n_groups + 1];
    for g in 0..n_groups {
        offsets[g + 1] = offsets[g] + counts[g];
    }
    let mut cursor: Vec<i64> = offsets[..n_groups].to_vec();
    let mut out = vec![0.0f64; offsets[n_groups] as usize];
    for i in 0..codes.len() {
        if labels[i] == minority {
            let g = codes[i] as usize;
            out[cursor[g] as usize] = scores[i];
            cursor[g] += 1;
        }
    }
    (offsets, out)
}

fn float_order(a: &f64, b: &f64) -> Ordering {
    a.partial_cmp(b).unwrap_or(Ordering::Equal)
}

/// Sort each segment `values[offsets[g]..offsets[g + 1]]` ascending, in parallel
/// over groups when there are many rows.
pub fn sort_segments(values: &mut [f64], offsets: &[i64]) {
    let mut segments = Vec::with_capacity(offsets.len().saturating_sub(1));
    let mut rest = values;
    for w in offsets.windows(2) {
        let (seg, tail) = rest.split_at_mut((w[1] - w[0]) as usize);
        segments.push(seg);
        rest = tail;
    }
    if segments.len() > 1 && offsets[offsets.len() - 1] >= 1 << 16 {
        threads::install(|| {
            segments
                .par_iter_mut()
                .for_each(|s| s.sort_unstable_by(float_order))
        });
    } else {
        segments
            .iter_mut()
            .for_each(|s| s.sort_unstable_by(float_order));
    }
}

#[inline(always)]
fn lower_bound(seg: &[f64], x: f64) -> usize {
    seg.partition_point(|&v| v < x)
}

#[inline(always)]
fn upper_bound(seg: &[f64], x: f64) -> usize {
    seg.partition_point(|&v| v <= x)
}

/// Twice the Mann-Whitney U of each group, streaming the majority rows in
/// `n_chunks` chunks (integers: the chunks do not change the result).
#[allow(clippy::too_many_arguments)]
pub fn stream_pair_counts(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[f64],
    minority: i8,
    offsets: &[i64],
    seg: &[f64],
    n_chunks: usize,
) -> Vec<i64> {
    let n = codes.len();
    let n_chunks = n_chunks.max(1);
    let run = |c: usize| {
        let mut acc = vec![0i64; n_groups];
        for i in n * c / n_chunks..n * (c + 1) / n_chunks {
            if labels[i] == minority {
                continue;
            }
            let g = codes[i] as usize;
            let (a, b) = (offsets[g] as usize, offsets[g + 1] as usize);
            let m = b - a;
            if m == 0 {
                continue;
            }
            let s = &seg[a..b];
            let x = scores[i];
            let below = lower_bound(s, x);
            let below_eq = if below < m && s[below] == x {
                below + upper_bound(&s[below..], x)
            } else {
                below
            };
            let ties = (below_eq - below) as i64;
            acc[g] += if minority == 1 {
                2 * (m - below_eq) as i64 + ties // a negative: positives above it win
            } else {
                2 * below as i64 + ties // a positive: negatives below it lose
            };
        }
        acc
    };
    let parts: Vec<Vec<i64>> = if n_chunks == 1 {
        vec![run(0)]
    } else {
        threads::install(|| (0..n_chunks).into_par_iter().map(run).collect())
    };
    let mut out = vec![0i64; n_groups];
    for part in parts {
        for (o, p) in out.iter_mut().zip(part) {
            *o += p;
        }
    }
    out
}

/// `(values, weights)` sorted by value, then by weight within equal values: an
/// order that depends on the pairs only.
pub fn canonical(values: &[f64], weights: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut pairs: Vec<(f64, f64)> = values
        .iter()
        .copied()
        .zip(weights.iter().copied())
        .collect();
    pairs.sort_by(|a, b| float_order(&a.0, &b.0).then_with(|| float_order(&a.1, &b.1)));
    pairs.into_iter().unzip()
}

/// Per group: weighted U, weighted positives and weighted negatives, each group in
/// its canonical order (parallel over groups; a group's floats depend on its rows only).
pub fn weighted_group_aucs(
    codes: &[i32],
    n_groups: usize,
    labels: &[i8],
    scores: &[f64],
    weights: &[f64],
    rows: &[i64],
    positives: &[i64],
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = codes.len();
    let mut offsets = vec![0usize; n_groups + 1];
    for g in 0..n_groups {
        offsets[g + 1] = offsets[g] + rows[g] as usize;
    }
    let mut cursor: Vec<usize> = offsets[..n_groups].to_vec();
    let mut by_group = vec![0usize; n];
    for (i, &g) in codes.iter().enumerate() {
        by_group[cursor[g as usize]] = i;
        cursor[g as usize] += 1;
    }
    let one = |g: usize| {
        let n_pos = positives[g] as usize;
        let n_neg = rows[g] as usize - n_pos;
        let (mut ps, mut pw) = (Vec::with_capacity(n_pos), Vec::with_capacity(n_pos));
        let (mut ns, mut nw) = (Vec::with_capacity(n_neg), Vec::with_capacity(n_neg));
        for &i in &by_group[offsets[g]..offsets[g + 1]] {
            if labels[i] == 1 {
                ps.push(scores[i]);
                pw.push(weights[i]);
            } else {
                ns.push(scores[i]);
                nw.push(weights[i]);
            }
        }
        let (ps, pw) = canonical(&ps, &pw);
        let (ns, nw) = canonical(&ns, &nw);
        let area = pair_weight_sorted(&ps, &pw, &ns, &nw);
        let w_pos = pw.iter().fold(0.0, |s, &w| s + w);
        let w_neg = nw.iter().fold(0.0, |s, &w| s + w);
        (area, w_pos, w_neg)
    };
    let per_group: Vec<(f64, f64, f64)> = if n >= 1 << 16 && n_groups > 1 {
        threads::install(|| (0..n_groups).into_par_iter().map(one).collect())
    } else {
        (0..n_groups).map(one).collect()
    };
    let mut area = Vec::with_capacity(n_groups);
    let mut w_pos = Vec::with_capacity(n_groups);
    let mut w_neg = Vec::with_capacity(n_groups);
    for (a, p, q) in per_group {
        area.push(a);
        w_pos.push(p);
        w_neg.push(q);
    }
    (area, w_pos, w_neg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_counts_of_two_groups() {
        // group 0: pos 0.9, neg 0.1, 0.9 -> 2U = 2 + 1 = 3; group 1: pos 0.2, neg 0.5 -> 0
        let codes = [0, 0, 0, 1, 1];
        let labels = [1, 0, 0, 1, 0];
        let scores = [0.9, 0.1, 0.9, 0.2, 0.5];
        let (rows, pos) = group_counts(&codes, 2, &labels);
        assert_eq!((rows.clone(), pos.clone()), (vec![3, 2], vec![1, 1]));
        let (offsets, mut seg) = gather_minority(&codes, &labels, &scores, 1, &pos);
        sort_segments(&mut seg, &offsets);
        for chunks in [1, 2, 5] {
            let two_u = stream_pair_counts(&codes, 2, &labels, &scores, 1, &offsets, &seg, chunks);
            assert_eq!(two_u, vec![3, 0]);
        }
    }

    #[test]
    fn canonical_order_ignores_the_input_order() {
        let a = canonical(&[0.5, 0.1, 0.5], &[2.0, 1.0, 1.0]);
        let b = canonical(&[0.5, 0.5, 0.1], &[1.0, 2.0, 1.0]);
        assert_eq!(a, b);
        assert_eq!(a.1, vec![1.0, 1.0, 2.0]);
    }
}
