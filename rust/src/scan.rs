//! Score buckets of the out-of-core exact AUC: a score's bucket is the top bits of
//! its order key (its `f64` bits flipped so that unsigned order is float order,
//! -0.0 counted as 0.0), so buckets are consecutive ranges of the score axis.

use std::ops::RangeInclusive;

use crate::sort::order_key;

#[inline(always)]
fn bucket(score: f64, shift: u32) -> usize {
    (order_key(score) >> shift) as usize
}

/// Add the rows of a batch to per-bucket counts of negatives and positives.
pub fn add_histogram(scores: &[f64], labels: &[i8], shift: u32, neg: &mut [i64], pos: &mut [i64]) {
    for (&s, &l) in scores.iter().zip(labels) {
        let b = bucket(s, shift);
        if l == 1 {
            pos[b] += 1;
        } else {
            neg[b] += 1;
        }
    }
}

/// Where [`gather`] appends the scores of the positives and of the negatives, and
/// their weights (written only when the batch has weights).
pub struct Gathered<'a> {
    pub pos: &'a mut [f64],
    pub pos_w: &'a mut [f64],
    pub neg: &'a mut [f64],
    pub neg_w: &'a mut [f64],
}

/// Append the scores (and weights) of the rows in `buckets` to `out.pos` /
/// `out.neg` from positions `filled[0]` / `filled[1]`, which are updated; -0.0 is
/// stored as 0.0, rows of weight 0 are left out. Returns false when a buffer is too
/// short (nothing is written past its end).
pub fn gather(
    scores: &[f64],
    labels: &[i8],
    weights: Option<&[f64]>,
    shift: u32,
    buckets: RangeInclusive<usize>,
    out: Gathered<'_>,
    filled: &mut [i64; 2],
) -> bool {
    let Gathered {
        pos,
        pos_w,
        neg,
        neg_w,
    } = out;
    let (mut n_pos, mut n_neg) = (filled[0] as usize, filled[1] as usize);
    for i in 0..scores.len() {
        let w = weights.map_or(1.0, |w| w[i]);
        if w == 0.0 {
            continue;
        }
        let mut s = scores[i];
        let b = bucket(s, shift);
        if !buckets.contains(&b) {
            continue;
        }
        if s == 0.0 {
            s = 0.0;
        }
        if labels[i] == 1 {
            if n_pos >= pos.len() {
                return false;
            }
            pos[n_pos] = s;
            if weights.is_some() {
                pos_w[n_pos] = w;
            }
            n_pos += 1;
        } else {
            if n_neg >= neg.len() {
                return false;
            }
            neg[n_neg] = s;
            if weights.is_some() {
                neg_w[n_neg] = w;
            }
            n_neg += 1;
        }
        filled[0] = n_pos as i64;
        filled[1] = n_neg as i64;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_the_score_order() {
        let xs = [-1e300, -2.0, -0.5, -0.0, 0.0, 1e-300, 0.5, 2.0, 1e300];
        let keys: Vec<usize> = xs.iter().map(|&x| bucket(x, 44)).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(bucket(-0.0, 44), bucket(0.0, 44));
    }
}
