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
///
/// Without weights, blocks with room for every row in both buffers run without
/// branches: each score is written at both cursors and only the cursor of its
/// class moves, when its bucket is in range (a third of the rows per range is
/// usual, which a branch would mispredict).
pub fn gather(
    scores: &[f64],
    labels: &[i8],
    weights: Option<&[f64]>,
    shift: u32,
    buckets: RangeInclusive<usize>,
    out: Gathered<'_>,
    filled: &mut [i64; 2],
) -> bool {
    const BLOCK: usize = 1024;
    let Gathered {
        pos,
        pos_w,
        neg,
        neg_w,
    } = out;
    let (lo, hi) = (*buckets.start(), *buckets.end());
    let (mut n_pos, mut n_neg) = (filled[0] as usize, filled[1] as usize);
    let mut ok = true;
    for start in (0..scores.len()).step_by(BLOCK) {
        let end = (start + BLOCK).min(scores.len());
        let (s, l) = (&scores[start..end], &labels[start..end]);
        let room = n_pos + s.len() <= pos.len() && n_neg + s.len() <= neg.len();
        if weights.is_none() && room {
            for (&x, &y) in s.iter().zip(l) {
                let b = bucket(x, shift);
                let inside = (b >= lo) & (b <= hi);
                let x = if x == 0.0 { 0.0 } else { x };
                let is_pos = y == 1;
                pos[n_pos] = x;
                neg[n_neg] = x;
                n_pos += usize::from(inside & is_pos);
                n_neg += usize::from(inside & !is_pos);
            }
            continue;
        }
        for i in start..end {
            let w = weights.map_or(1.0, |w| w[i]);
            if w == 0.0 {
                continue;
            }
            let mut x = scores[i];
            if !buckets.contains(&bucket(x, shift)) {
                continue;
            }
            if x == 0.0 {
                x = 0.0;
            }
            let (buf, buf_w, n) = if labels[i] == 1 {
                (&mut *pos, &mut *pos_w, &mut n_pos)
            } else {
                (&mut *neg, &mut *neg_w, &mut n_neg)
            };
            if *n >= buf.len() {
                ok = false;
                break;
            }
            buf[*n] = x;
            if weights.is_some() {
                buf_w[*n] = w;
            }
            *n += 1;
        }
        if !ok {
            break;
        }
    }
    filled[0] = n_pos as i64;
    filled[1] = n_neg as i64;
    ok
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

    #[test]
    fn gather_fills_exact_buffers_and_refuses_short_ones() {
        let n = 5000;
        let scores: Vec<f64> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f64 / 999.0 - 0.0)
            .collect();
        let labels: Vec<i8> = (0..n).map(|i| ((i * 31) % 7 == 0) as i8).collect();
        let shift = 44;
        let (lo, hi) = (bucket(0.25, shift), bucket(0.75, shift));
        let want = |p: bool| -> Vec<f64> {
            let mut v: Vec<f64> = scores
                .iter()
                .zip(&labels)
                .filter(|(&s, &l)| (l == 1) == p && (lo..=hi).contains(&bucket(s, shift)))
                .map(|(&s, _)| s)
                .collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let (wp, wn) = (want(true), want(false));
        let (mut pos, mut neg) = (vec![0.0; wp.len()], vec![0.0; wn.len()]);
        let mut filled = [0i64; 2];
        let out = Gathered {
            pos: &mut pos,
            pos_w: &mut [],
            neg: &mut neg,
            neg_w: &mut [],
        };
        assert!(gather(
            &scores,
            &labels,
            None,
            shift,
            lo..=hi,
            out,
            &mut filled
        ));
        assert_eq!(filled, [wp.len() as i64, wn.len() as i64]);
        pos.sort_by(f64::total_cmp);
        neg.sort_by(f64::total_cmp);
        assert_eq!((pos, neg), (wp.clone(), wn));
        let mut short = vec![0.0; wp.len() - 1];
        let mut neg = vec![0.0; n];
        let mut filled = [0i64; 2];
        let out = Gathered {
            pos: &mut short,
            pos_w: &mut [],
            neg: &mut neg,
            neg_w: &mut [],
        };
        assert!(!gather(
            &scores,
            &labels,
            None,
            shift,
            lo..=hi,
            out,
            &mut filled
        ));
        assert_eq!(filled[0], wp.len() as i64 - 1);
    }
}
