//! AUC-type kernels over the scores of the positive and the negative rows held
//! apart, each sorted ascending: the Mann-Whitney count of the (positive, negative)
//! pairs is one merge walk,
//!
//! `2U = sum over positives p of 2 #(neg < p) + #(neg == p)`,
//!
//! exact in integers (ties count one half) and mergeable over chunks of negatives.

use rayon::prelude::*;

/// The number of labels equal to 1.
pub fn count_positives(labels: &[i8]) -> usize {
    labels.iter().filter(|&&l| l == 1).count()
}

/// Rows above which the split and the pair count run on the kernels' pool.
const PARALLEL_MIN: usize = 1 << 18;

/// Scores of the rows labelled 1 and of the others, in input order.
///
/// Large inputs are split in blocks on the kernels' pool: each block counts its
/// positives, then writes its rows into its own ranges of the two outputs (their
/// pages are first touched by the threads that write them).
pub fn split_by_label(scores: &[f64], labels: &[i8]) -> (Vec<f64>, Vec<f64>) {
    let n = labels.len();
    let threads = crate::threads::num_threads();
    if n < PARALLEL_MIN || threads == 1 {
        let n_pos = count_positives(labels);
        let mut pos = Vec::with_capacity(n_pos);
        let mut neg = Vec::with_capacity(n - n_pos);
        for (&s, &l) in scores.iter().zip(labels) {
            if l == 1 {
                pos.push(s);
            } else {
                neg.push(s);
            }
        }
        return (pos, neg);
    }
    let block = n.div_ceil(4 * threads);
    let blocks: Vec<(&[f64], &[i8])> = scores.chunks(block).zip(labels.chunks(block)).collect();
    let counts: Vec<usize> =
        crate::threads::install(|| blocks.par_iter().map(|(_, l)| count_positives(l)).collect());
    let n_pos: usize = counts.iter().sum();
    let mut pos: Vec<f64> = Vec::with_capacity(n_pos);
    let mut neg: Vec<f64> = Vec::with_capacity(n - n_pos);
    {
        let mut pos_out = &mut pos.spare_capacity_mut()[..n_pos];
        let mut neg_out = &mut neg.spare_capacity_mut()[..n - n_pos];
        let mut jobs = Vec::with_capacity(blocks.len());
        for (&(s, l), &c) in blocks.iter().zip(&counts) {
            let (p, rest) = std::mem::take(&mut pos_out).split_at_mut(c);
            let (q, rest_n) = std::mem::take(&mut neg_out).split_at_mut(l.len() - c);
            pos_out = rest;
            neg_out = rest_n;
            jobs.push((s, l, p, q));
        }
        crate::threads::install(|| {
            jobs.into_par_iter().for_each(|(s, l, p, q)| {
                let (mut i, mut j) = (0, 0);
                for (&s, &l) in s.iter().zip(l) {
                    if l == 1 {
                        p[i].write(s);
                        i += 1;
                    } else {
                        q[j].write(s);
                        j += 1;
                    }
                }
            })
        });
    }
    // SAFETY: the blocks' ranges tile the first `n_pos` (`n - n_pos`) elements of
    // `pos` (`neg`), and each block wrote every element of its ranges
    unsafe {
        pos.set_len(n_pos);
        neg.set_len(n - n_pos);
    }
    (pos, neg)
}

/// Split by label carrying each row's weight; rows of weight zero are left out, so
/// that they cannot create a threshold.
pub fn split_by_label_weighted(
    scores: &[f64],
    labels: &[i8],
    weights: &[f64],
) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut pos, mut pos_w, mut neg, mut neg_w) = (vec![], vec![], vec![], vec![]);
    for i in 0..labels.len() {
        if weights[i] == 0.0 {
            continue;
        }
        if labels[i] == 1 {
            pos.push(scores[i]);
            pos_w.push(weights[i]);
        } else {
            neg.push(scores[i]);
            neg_w.push(weights[i]);
        }
    }
    (pos, pos_w, neg, neg_w)
}

/// Twice the Mann-Whitney U of ascending `pos` against ascending `neg` (scores, or
/// their [`order_key`]s). Large inputs are counted in parts of `pos` on the
/// kernels' pool (a part starts at a new value; integer sums, so the same count).
pub fn pair_count_sorted<T: PartialOrd + Copy + Sync>(pos: &[T], neg: &[T]) -> i64 {
    let threads = crate::threads::num_threads();
    if pos.len() + neg.len() < PARALLEL_MIN || threads == 1 || pos.len() < 2 * threads {
        return pair_count_from(pos, neg, 0);
    }
    let parts = 4 * threads;
    let mut starts: Vec<usize> = (0..parts).map(|k| k * pos.len() / parts).collect();
    for a in starts.iter_mut().skip(1) {
        while *a < pos.len() && pos[*a] == pos[*a - 1] {
            *a += 1; // a run of equal values stays in one part
        }
    }
    starts.push(pos.len());
    let ranges: Vec<(usize, usize)> = starts.windows(2).map(|w| (w[0], w[1].max(w[0]))).collect();
    crate::threads::install(|| {
        ranges
            .par_iter()
            .filter(|(a, b)| a < b)
            .map(|&(a, b)| {
                let first = pos[a];
                let j = neg.partition_point(|x| *x < first);
                pair_count_from(&pos[a..b], neg, j)
            })
            .sum()
    })
}

/// [`pair_count_sorted`] of `pos` walking `neg` from `j` (every `neg` before `j`
/// is below `pos[0]`).
fn pair_count_from<T: PartialOrd + Copy>(pos: &[T], neg: &[T], mut j: usize) -> i64 {
    let (n_pos, n_neg) = (pos.len(), neg.len());
    let mut two_u: i64 = 0;
    let mut i = 0usize;
    while i < n_pos {
        let v = pos[i];
        let mut k = i + 1;
        while k < n_pos && pos[k] == v {
            k += 1;
        }
        while j < n_neg && neg[j] < v {
            j += 1;
        }
        let mut t = j;
        while t < n_neg && neg[t] == v {
            t += 1;
        }
        two_u += ((k - i) * (2 * j + (t - j))) as i64;
        i = k;
    }
    two_u
}

/// A key of a finite score whose integer order is the order of the scores, equal
/// for equal scores (-0.0 and 0.0 included): integer keys sort faster than floats.
#[inline(always)]
pub fn order_key(score: f64) -> u64 {
    let bits = (score + 0.0).to_bits(); // -0.0 + 0.0 is 0.0; any other score is kept
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// The score of an [`order_key`] (0.0 for the key of -0.0 and 0.0).
pub fn score_of_key(key: u64) -> f64 {
    f64::from_bits(if key >> 63 == 1 {
        key & !(1 << 63)
    } else {
        !key
    })
}

/// Exact AUC of validated 0/1 labels and finite scores: twice the Mann-Whitney U
/// over twice the number of pairs (the Python layer's `auc_from_sorted`), NaN when
/// a class is absent.
pub fn roc_auc(labels: &[i8], scores: &[f64]) -> f64 {
    let n_pos = count_positives(labels);
    if n_pos == 0 || n_pos == labels.len() {
        return f64::NAN;
    }
    let mut pos = Vec::with_capacity(n_pos);
    let mut neg = Vec::with_capacity(labels.len() - n_pos);
    for (&s, &l) in scores.iter().zip(labels) {
        if l == 1 {
            pos.push(order_key(s));
        } else {
            neg.push(order_key(s));
        }
    }
    pos.sort_unstable();
    neg.sort_unstable();
    let two_u = pair_count_sorted(&pos, &neg);
    two_u as f64 / (2.0 * pos.len() as f64 * neg.len() as f64)
}

/// Exact sums of the weighted rows of one score range (see [`weighted_range`]).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedRange {
    /// Each label's unit, weight units and twice the weighted U.
    pub sums: crate::runs::WeightedSums,
    /// The smallest and largest score of the rows that count (NaN for none).
    pub low: f64,
    pub high: f64,
}

/// The exact sums of the weighted rows of one score range, positives and negatives
/// apart, in any order (scores of any float width; rows of weight 0 count nothing):
/// the weight units of each label and twice the weighted U, the exact integer that
/// the in-memory state rounds once ([`crate::runs::weighted_sums`], as a batch of
/// the state is summed), each label in its unit for its rows alone.
pub fn weighted_range<T: Copy + Into<f64>>(
    pos: &[T],
    pos_w: &[f64],
    neg: &[T],
    neg_w: &[f64],
) -> WeightedRange {
    let label = |positive: bool| move |(&s, &w): (&T, &f64)| (s.into(), positive, w);
    let rows = pos.iter().zip(pos_w).map(label(true));
    let mut items = Vec::new();
    let sums = crate::runs::weighted_sums(
        rows.chain(neg.iter().zip(neg_w).map(label(false))),
        &mut items,
    );
    // the rows sorted by score: the ends of the range are the first and the last
    let end = |row: Option<&(u64, u64)>| row.map_or(f64::NAN, |r| score_of_key(r.0));
    WeightedRange {
        sums,
        low: end(items.first()),
        high: end(items.last()),
    }
}

/// Cumulative `(thresholds, tps, fps)` at each distinct score, thresholds descending:
/// row `k` counts the positives and negatives scored at least `thresholds[k]`.
/// Without weights pass `None`: each row counts 1.
pub fn threshold_counts_sorted(
    pos: &[f64],
    pos_w: Option<&[f64]>,
    neg: &[f64],
    neg_w: Option<&[f64]>,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let cap = pos.len() + neg.len();
    let (mut thresholds, mut tps, mut fps) = (
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
        Vec::with_capacity(cap),
    );
    let (mut i, mut j) = (pos.len() as isize - 1, neg.len() as isize - 1);
    let (mut tp, mut fp) = (0.0f64, 0.0f64);
    while i >= 0 || j >= 0 {
        let v = if j < 0 || (i >= 0 && pos[i as usize] >= neg[j as usize]) {
            pos[i as usize]
        } else {
            neg[j as usize]
        };
        while i >= 0 && pos[i as usize] == v {
            tp += pos_w.map_or(1.0, |w| w[i as usize]);
            i -= 1;
        }
        while j >= 0 && neg[j as usize] == v {
            fp += neg_w.map_or(1.0, |w| w[j as usize]);
            j -= 1;
        }
        thresholds.push(v);
        tps.push(tp);
        fps.push(fp);
    }
    (thresholds, tps, fps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_count_one_half() {
        // positives 0.5, 0.9; negatives 0.1, 0.5: pairs (0.5>0.1)=2, (0.5=0.5)=1, 0.9>both=4
        assert_eq!(pair_count_sorted(&[0.5, 0.9], &[0.1, 0.5]), 7);
    }

    #[test]
    fn a_weighted_range_sums_exactly() {
        // positives 0.5 (w 0.25), 0.9 (w 3); negatives 0.1 (w 0.5), 0.5 (w 1.5): in
        // units of 2^-2, p = (1, 12); of 2^-1, n = (1, 3); 2U = 1 (2*1 + 3) + 12 (2*4)
        // = 101 units of 2^-3
        let r = weighted_range(&[0.5, 0.9], &[0.25, 3.0], &[0.1, 0.5], &[0.5, 1.5]);
        let quantum = crate::runs::PerLabel { pos: -2, neg: -1 };
        let s = &r.sums;
        assert_eq!((s.quantum, s.total.pos, s.total.neg), (quantum, 13, 4));
        assert_eq!((s.two_u.lo, s.two_u.hi), (101, 0));
        assert!(s.exact());
        assert_eq!((r.low, r.high), (0.1, 0.9));
        // the same rows as float32 scores
        let f = weighted_range(&[0.5f32, 0.9], &[0.25, 3.0], &[0.1f32, 0.5], &[0.5, 1.5]);
        assert_eq!((f.low, f.high), (f64::from(0.1f32), f64::from(0.9f32)));
        assert_eq!(
            WeightedRange {
                low: 0.1,
                high: 0.9,
                ..f
            },
            r
        );
        // no weight: nothing
        let e = weighted_range(&[0.5], &[0.0], &[], &[]);
        assert_eq!((e.sums.total.pos, e.sums.two_u.lo), (0, 0));
        assert!(e.low.is_nan() && e.high.is_nan());
        // a row of weight 0 is not an end of the range
        let z = weighted_range(&[0.5, 2.0], &[1.0, 0.0], &[-3.0, 0.1], &[0.0, 1.0]);
        assert_eq!((z.low, z.high), (0.1, 0.5));
        // the rows in any order
        let u = weighted_range(&[0.9, 0.5], &[3.0, 0.25], &[0.5, 0.1], &[1.5, 0.5]);
        assert_eq!(u, r);
    }

    #[test]
    fn a_weighted_range_sums_as_the_in_memory_state() {
        // weights spanning more than 126 bits: the unit coarsened, the units rounded
        // (half to even) as the state rounds them, exact turned false in both
        let pos = [0.5, 0.9, 0.9, 0.3];
        let neg = [0.1, 0.5, 0.95, 0.3];
        let (pw, nw) = ([1e300, 3e-310, 5.0, 0.75], [2e-300, 1e10, 7.0, 1e300]);
        let plain = ([0.25, 3.0, 1.0, 2.0], [0.5, 1.5, 4.0, 0.125]);
        for ((pw, nw), exact) in [((pw, nw), false), (plain, true)] {
            let r = weighted_range(&pos, &pw, &neg, &nw).sums;
            let mut state = crate::runs::WeightRuns::default();
            let labels = [1, 1, 1, 1, 0, 0, 0, 0];
            let scores: Vec<f64> = pos.iter().chain(&neg).copied().collect();
            let weights: Vec<f64> = pw.iter().chain(&nw).copied().collect();
            state.add(&labels, &scores, &weights);
            let (two_u, p, n) = state.runs.compact().pair_sum();
            assert_eq!((r.quantum, r.exact()), (state.quantum, exact));
            assert_eq!(state.exact(), exact);
            assert_eq!((r.two_u, r.total.pos, r.total.neg), (two_u, p, n));
        }
        // each label's weights within 126 bits, the labels 2^1900 apart: exact
        let (big, tiny) = (2f64.powi(997), 2f64.powi(-903));
        let r = weighted_range(&[0.5, 0.25], &[big, 3.0 * big], &[0.3], &[tiny]).sums;
        assert!(r.exact());
        assert_eq!((r.total.pos, r.total.neg, r.two_u.lo), (4, 1, 2));
    }

    #[test]
    fn thresholds_descend_and_count() {
        let (t, tp, fp) = threshold_counts_sorted(&[0.5, 0.9], None, &[0.1, 0.5], None);
        assert_eq!(t, vec![0.9, 0.5, 0.1]);
        assert_eq!(tp, vec![1.0, 2.0, 2.0]);
        assert_eq!(fp, vec![0.0, 1.0, 2.0]);
    }

    #[test]
    fn large_inputs_split_and_count_as_one_pass() {
        // above PARALLEL_MIN the pool splits and counts in blocks: the same vectors and
        // the same count as one serial pass, with long runs of tied scores across the
        // part boundaries
        let n = 3 * PARALLEL_MIN + 17;
        let mut next = crate::testing::stream(0x9E37_79B9_7F4A_7C15);
        let labels: Vec<i8> = (0..n).map(|_| next().is_multiple_of(7) as i8).collect();
        let scores: Vec<f64> = (0..n).map(|_| (next() % 1000) as f64 / 8.0).collect();
        let (pos, neg) = split_by_label(&scores, &labels);
        let want_pos: Vec<f64> = (0..n)
            .filter(|&i| labels[i] == 1)
            .map(|i| scores[i])
            .collect();
        let want_neg: Vec<f64> = (0..n)
            .filter(|&i| labels[i] != 1)
            .map(|i| scores[i])
            .collect();
        assert_eq!((&pos, &neg), (&want_pos, &want_neg));
        let (mut pos, mut neg) = (pos, neg);
        pos.sort_by(f64::total_cmp);
        neg.sort_by(f64::total_cmp);
        assert_eq!(
            pair_count_sorted(&pos, &neg),
            pair_count_from(&pos, &neg, 0)
        );
        // one value only: every boundary moves to the end
        let same = vec![0.5; n];
        assert_eq!(pair_count_sorted(&same, &same[..10]), 10 * n as i64);
    }

    #[test]
    fn weight_zero_rows_are_left_out() {
        let (p, pw, n, nw) =
            split_by_label_weighted(&[0.1, 0.2, 0.3], &[1, 0, 0], &[1.0, 0.0, 2.0]);
        assert_eq!((p, pw, n, nw), (vec![0.1], vec![1.0], vec![0.3], vec![2.0]));
    }
    /// Twice the Mann-Whitney U by the definition: every (positive, negative) pair.
    fn pair_loop(labels: &[i8], scores: &[f64]) -> i64 {
        let mut two_u = 0;
        for (i, &li) in labels.iter().enumerate() {
            for (j, &lj) in labels.iter().enumerate() {
                if li == 1 && lj == 0 {
                    two_u += 2 * (scores[i] > scores[j]) as i64 + (scores[i] == scores[j]) as i64;
                }
            }
        }
        two_u
    }

    #[test]
    fn order_keys_sort_as_the_scores() {
        let scores = [-1e300, -2.5, -1e-310, -0.0, 0.0, 1e-310, 0.5, 1.0, 1e300];
        for w in scores.windows(2) {
            assert_eq!(order_key(w[0]) < order_key(w[1]), w[0] < w[1], "{w:?}");
            assert_eq!(order_key(w[0]) == order_key(w[1]), w[0] == w[1], "{w:?}");
        }
        for s in scores {
            assert_eq!(score_of_key(order_key(s)), s, "{s}");
            assert_eq!(score_of_key(order_key(s)).to_bits(), (s + 0.0).to_bits());
        }
    }

    #[test]
    fn roc_auc_is_the_pair_count() {
        let mut next = crate::testing::stream(0x2545_F491_4F6C_DD1D);
        let values = [-0.0, 0.0, 0.1, 0.5, 0.5, 0.9, -3.0, 1e-310];
        for _ in 0..500 {
            let n = 2 + (next() % 60) as usize;
            let labels: Vec<i8> = (0..n).map(|_| next().is_multiple_of(3) as i8).collect();
            let scores: Vec<f64> = (0..n).map(|_| values[(next() % 8) as usize]).collect();
            let n_pos = labels.iter().filter(|&&l| l == 1).count();
            let got = roc_auc(&labels, &scores);
            if n_pos == 0 || n_pos == n {
                assert!(got.is_nan());
            } else {
                let pairs = (n_pos * (n - n_pos)) as f64;
                assert_eq!(got, pair_loop(&labels, &scores) as f64 / (2.0 * pairs));
            }
        }
    }
}
