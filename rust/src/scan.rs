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

/// The float type a score is gathered as: `f64`, or `f32` for the scores of a
/// float32 column (half the memory), which every score must equal exactly.
pub trait ScoreFloat: Copy + Default + Send {
    /// `x` in this type, and whether it is exactly `x`.
    fn exactly(x: f64) -> (Self, bool);
}

impl ScoreFloat for f64 {
    #[inline(always)]
    fn exactly(x: f64) -> (Self, bool) {
        (x, true)
    }
}

impl ScoreFloat for f32 {
    #[inline(always)]
    fn exactly(x: f64) -> (Self, bool) {
        let y = x as f32;
        (y, f64::from(y) == x)
    }
}

/// Where [`gather`] appends the scores of the positives and of the negatives, and
/// their weights (written only when the batch has weights).
pub struct Gathered<'a, T> {
    pub pos: &'a mut [T],
    pub pos_w: &'a mut [f64],
    pub neg: &'a mut [T],
    pub neg_w: &'a mut [f64],
}

/// Why [`gather`] stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// More rows in the range than room in a buffer (nothing is written past its end).
    Full,
    /// A score that the buffers' float type does not hold exactly.
    Inexact,
}

/// Append the scores (and weights) of the rows in `buckets` to `out.pos` /
/// `out.neg` from positions `filled[0]` / `filled[1]`, which are updated; -0.0 is
/// stored as 0.0, rows of weight 0 are left out. Scores are stored as `T`, which
/// must hold each exactly (float32 buffers for the scores of a float32 column).
///
/// Without weights, blocks with room for every row in both buffers run without
/// branches: each score is written at both cursors and only the cursor of its
/// class moves, when its bucket is in range (a third of the rows per range is
/// usual, which a branch would mispredict).
pub fn gather<T: ScoreFloat>(
    scores: &[f64],
    labels: &[i8],
    weights: Option<&[f64]>,
    shift: u32,
    buckets: RangeInclusive<usize>,
    out: Gathered<'_, T>,
    filled: &mut [i64; 2],
) -> Result<(), Refused> {
    const BLOCK: usize = 1024;
    let Gathered {
        pos,
        pos_w,
        neg,
        neg_w,
    } = out;
    let (lo, hi) = (*buckets.start(), *buckets.end());
    let (mut n_pos, mut n_neg) = (filled[0] as usize, filled[1] as usize);
    let mut result = Ok(());
    for start in (0..scores.len()).step_by(BLOCK) {
        let end = (start + BLOCK).min(scores.len());
        let (s, l) = (&scores[start..end], &labels[start..end]);
        let room = n_pos + s.len() <= pos.len() && n_neg + s.len() <= neg.len();
        if weights.is_none() && room {
            let mut exact = true;
            for (&x, &y) in s.iter().zip(l) {
                let b = bucket(x, shift);
                let inside = (b >= lo) & (b <= hi);
                let (x, same) = T::exactly(if x == 0.0 { 0.0 } else { x });
                exact &= same;
                let is_pos = y == 1;
                pos[n_pos] = x;
                neg[n_neg] = x;
                n_pos += usize::from(inside & is_pos);
                n_neg += usize::from(inside & !is_pos);
            }
            if !exact {
                result = Err(Refused::Inexact);
                break;
            }
            continue;
        }
        for i in start..end {
            let w = weights.map_or(1.0, |w| w[i]);
            if w == 0.0 {
                continue;
            }
            let x = scores[i];
            if !buckets.contains(&bucket(x, shift)) {
                continue;
            }
            let (x, same) = T::exactly(if x == 0.0 { 0.0 } else { x });
            let (buf, buf_w, n) = if labels[i] == 1 {
                (&mut *pos, &mut *pos_w, &mut n_pos)
            } else {
                (&mut *neg, &mut *neg_w, &mut n_neg)
            };
            if !same || *n >= buf.len() {
                result = Err(if same {
                    Refused::Full
                } else {
                    Refused::Inexact
                });
                break;
            }
            buf[*n] = x;
            if weights.is_some() {
                buf_w[*n] = w;
            }
            *n += 1;
        }
        if result.is_err() {
            break;
        }
    }
    filled[0] = n_pos as i64;
    filled[1] = n_neg as i64;
    result
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
        assert_eq!(
            gather(&scores, &labels, None, shift, lo..=hi, out, &mut filled),
            Ok(())
        );
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
        assert_eq!(
            gather(&scores, &labels, None, shift, lo..=hi, out, &mut filled),
            Err(Refused::Full)
        );
        assert_eq!(filled[0], wp.len() as i64 - 1);
    }

    #[test]
    fn float32_buffers_take_float32_scores_and_refuse_others() {
        let scores: Vec<f64> = (0..3000).map(|i| f64::from(i as f32 / 7.0)).collect();
        let labels: Vec<i8> = (0..3000).map(|i| (i % 3 == 0) as i8).collect();
        let weights = vec![1.0; 3000];
        let gather_f32 = |scores: &[f64], w: Option<&[f64]>| {
            let (mut pos, mut neg) = (vec![0f32; 1000], vec![0f32; 2000]);
            let (mut pos_w, mut neg_w) = (vec![0.0; 1000], vec![0.0; 2000]);
            let mut filled = [0i64; 2];
            let out = Gathered {
                pos: &mut pos,
                pos_w: &mut pos_w,
                neg: &mut neg,
                neg_w: &mut neg_w,
            };
            let got = gather(scores, &labels, w, 44, 0..=usize::MAX, out, &mut filled);
            (got, filled, pos)
        };
        for w in [None, Some(&weights[..])] {
            let (got, filled, pos) = gather_f32(&scores, w);
            assert_eq!((got, filled), (Ok(()), [1000, 2000]));
            let got: Vec<f64> = pos.iter().map(|&x| f64::from(x)).collect();
            let want: Vec<f64> = scores.iter().step_by(3).copied().collect();
            assert_eq!(got, want);
            // a float64 score (0.1) that float32 does not hold: refused, not rounded
            let mut bad = scores.clone();
            bad[2500] = 0.1;
            assert_eq!(gather_f32(&bad, w).0, Err(Refused::Inexact));
        }
    }
}
