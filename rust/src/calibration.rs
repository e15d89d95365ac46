//! Expected calibration error: per bin of the predicted probability, the exact sum
//! of `w (y - p)`, in one pass over the rows.
//!
//! A row's bin is found by arithmetic (`p * n_bins`) and checked against the two
//! edges around it, with the convention of NumPy's `searchsorted` on the edges
//! (a binary search where the guess misses, as for percentile edges). Each bin
//! holds two exact accumulators, `sum(w y)` and `sum(w p)` (both >= 0, so the
//! probabilities add in the [`Adder`]'s integer lane); their difference is the bin's
//! exact gap. Beyond [`DIRECT_BINS`] bins the rows are counting-sorted by bin first,
//! so only the bins that hold rows have accumulators.

use crate::sums::{self, normalize, Acc, Adder, CARRY_EVERY, NAN, NEG_INF, N_LIMBS, POS_INF, SIZE};
use rayon::prelude::*;
use std::ops::Range;

/// Bins that hold rows (ascending) and each one's accumulator.
pub type Gaps = (Vec<i64>, Vec<Acc>);

/// Bins up to which every bin keeps its accumulators while the rows pass (two
/// accumulators of 600 bytes a bin).
pub const DIRECT_BINS: usize = 4096;

/// The bin of `p` among the sorted `edges` (`n_bins + 1` of them): with `upper`
/// false, the number of inner edges below `p` (`searchsorted(edges[1:-1], p,
/// "left")`: a probability on an inner edge goes to the lower bin); with `upper`,
/// the number of edges after the first at or below `p` (`searchsorted(edges[1:], p,
/// "right")`: on an edge, the upper bin; `p = 1`, bin `n_bins`).
#[inline(always)]
pub fn bin_of(p: f64, edges: &[f64], upper: bool) -> usize {
    let n = edges.len() - 1;
    let guess = ((p * n as f64) as usize).min(n); // saturating: NaN and p < 0 give 0
    if upper {
        // bin b: edges[b] <= p (b >= 1) and p < edges[b + 1] (b < n)
        if (guess == 0 || edges[guess] <= p) && (guess == n || p < edges[guess + 1]) {
            return guess;
        }
        edges[1..].partition_point(|&e| e <= p)
    } else {
        // bin b: edges[b] < p (b >= 1) and p <= edges[b + 1] (b + 1 < n)
        let g = guess.min(n - 1);
        if (g == 0 || edges[g] < p) && (g + 1 >= n || p <= edges[g + 1]) {
            return g;
        }
        edges[1..n].partition_point(|&e| e < p)
    }
}

/// The exact `sum(w y) - sum(w p)` of a bin, carried.
fn difference(y: &Acc, p: &Acc) -> Acc {
    let mut out = [0i64; SIZE];
    for j in 0..N_LIMBS {
        out[j] = y[j] - p[j];
    }
    out[NAN] = y[NAN] + p[NAN];
    out[POS_INF] = y[POS_INF] + p[NEG_INF];
    out[NEG_INF] = y[NEG_INF] + p[POS_INF];
    normalize(&mut out);
    out
}

/// The rows: 0/1 labels, probabilities and weights (empty: unit weights).
struct Rows<'a> {
    labels: &'a [i8],
    proba: &'a [f64],
    weights: &'a [f64],
}

/// A bin's two sums: `sum(w y)` and `sum(w p)`; without weights, `sum(y)` is counted
/// as an integer and added at each carry.
#[derive(Default)]
struct Sums {
    y: Adder,
    p: Adder,
    positives: u64,
}

impl Sums {
    /// Add row `i`: `w y` (only where `y = 1`) and `w p`, each product rounded once.
    #[inline(always)]
    fn add(&mut self, rows: &Rows<'_>, i: usize) {
        let Rows {
            labels,
            proba,
            weights,
        } = *rows;
        if weights.is_empty() {
            self.positives += (labels[i] != 0) as u64;
            self.p.add(proba[i]);
        } else {
            if labels[i] != 0 {
                self.y.add(weights[i]);
            }
            // w p in two parts whose sum is exact (Dekker's product): the bin's sum of
            // w p is exact as its sum of w is, not a sum of rounded products
            let (product, error) = sums::two_product(proba[i], weights[i]);
            self.p.add(product);
            self.p.add(error);
        }
    }

    /// Carry both sums (after at most `CARRY_EVERY` rows: the count is exact in f64).
    fn carry(&mut self) {
        self.y.add(self.positives as f64);
        self.positives = 0;
        self.y.carry();
        self.p.carry();
    }

    fn gap(mut self) -> Acc {
        self.carry();
        difference(&self.y.finish(), &self.p.finish())
    }
}

/// The bins that hold rows (ascending) and each one's exact `sum(w (y - p))`, for
/// 0/1 `labels`, probabilities `proba`, `weights` (empty: unit weights) and the
/// sorted bin `edges` (see [`bin_of`]; `n_bins + 1` bins with `upper`).
pub fn binned_gaps(
    labels: &[i8],
    proba: &[f64],
    weights: &[f64],
    edges: &[f64],
    upper: bool,
) -> Gaps {
    let n_bins = edges.len().saturating_sub(1);
    if n_bins == 0 {
        return (Vec::new(), Vec::new());
    }
    let n_out = if upper { n_bins + 1 } else { n_bins };
    let data = Rows {
        labels,
        proba,
        weights,
    };
    let rows = proba.len();
    if n_out <= DIRECT_BINS {
        // chunks of rows in parallel, each with its own bins (the sums are exact: any
        // split gives the same)
        let n_chunks = sums::chunks_for(rows);
        let run = |c: usize| {
            let part = c * rows / n_chunks..(c + 1) * rows / n_chunks;
            direct(&data, edges, upper, n_out, part)
        };
        let parts: Vec<Gaps> = if n_chunks == 1 {
            vec![run(0)]
        } else {
            crate::threads::install(|| (0..n_chunks).into_par_iter().map(run).collect())
        };
        return parts.into_iter().fold((Vec::new(), Vec::new()), merge);
    }
    // many bins: the rows of each block counting-sorted by bin, the blocks merged
    let mut out: Gaps = (Vec::new(), Vec::new());
    let mut count = vec![0u32; n_out + 1];
    for start in (0..rows).step_by(CARRY_EVERY) {
        let block = start..(start + CARRY_EVERY).min(rows);
        let ids: Vec<u32> = block
            .clone()
            .map(|i| bin_of(proba[i], edges, upper) as u32)
            .collect();
        count.iter_mut().for_each(|c| *c = 0);
        ids.iter().for_each(|&b| count[b as usize + 1] += 1);
        for b in 0..n_out {
            count[b + 1] += count[b]; // count[b]: where bin b starts
        }
        let mut next = count.clone();
        let mut order = vec![0u32; ids.len()];
        for (k, &b) in ids.iter().enumerate() {
            order[next[b as usize] as usize] = k as u32;
            next[b as usize] += 1;
        }
        let mut part: Gaps = (Vec::new(), Vec::new());
        for b in 0..n_out {
            let (lo, hi) = (count[b] as usize, count[b + 1] as usize);
            if lo < hi {
                let mut s = Sums::default();
                for &k in &order[lo..hi] {
                    s.add(&data, start + k as usize);
                }
                part.0.push(b as i64);
                part.1.push(s.gap());
            }
        }
        out = merge(out, part);
    }
    out
}

/// [`binned_gaps`] of the rows `part`, every one of the `n_out` bins keeping its sums
/// while the rows pass.
fn direct(rows: &Rows<'_>, edges: &[f64], upper: bool, n_out: usize, part: Range<usize>) -> Gaps {
    let (lo, hi) = (part.start, part.end);
    let mut count = vec![0u64; n_out];
    let mut sums: Vec<Sums> = (0..n_out).map(|_| Sums::default()).collect();
    for start in (lo..hi).step_by(CARRY_EVERY) {
        for i in start..(start + CARRY_EVERY).min(hi) {
            let b = bin_of(rows.proba[i], edges, upper);
            count[b] += 1;
            sums[b].add(rows, i);
        }
        sums.iter_mut().for_each(Sums::carry);
    }
    let held = sums.into_iter().enumerate().filter(|(b, _)| count[*b] > 0);
    held.map(|(b, s)| (b as i64, s.gap())).unzip()
}

/// The union of two lists of ascending bins, the sums of a bin in both added.
fn merge(a: Gaps, b: Gaps) -> Gaps {
    if a.0.is_empty() {
        return b;
    }
    let mut out = (Vec::new(), Vec::new());
    let mut left = a.0.into_iter().zip(a.1).peekable();
    let mut right = b.0.into_iter().zip(b.1).peekable();
    loop {
        let next = match (left.peek(), right.peek()) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                let ((bin, mut acc), (_, other)) = (left.next().unwrap(), right.next().unwrap());
                acc.iter_mut().zip(other).for_each(|(d, e)| *d += e);
                normalize(&mut acc);
                (bin, acc)
            }
            (Some(x), Some(y)) if x.0 < y.0 => left.next().unwrap(),
            (Some(_), None) => left.next().unwrap(),
            (_, Some(_)) => right.next().unwrap(),
            (None, None) => return out,
        };
        out.0.push(next.0);
        out.1.push(next.1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sums::exact_sum;

    /// `searchsorted` of NumPy on the edges: the definition `bin_of` follows.
    fn searched(p: f64, edges: &[f64], upper: bool) -> usize {
        let n = edges.len() - 1;
        if upper {
            edges[1..].iter().filter(|&&e| e <= p).count()
        } else {
            edges[1..n].iter().filter(|&&e| e < p).count()
        }
    }

    #[test]
    fn bins_follow_searchsorted_on_and_beside_every_edge() {
        for n in [1usize, 2, 3, 7, 10, 100] {
            let uniform: Vec<f64> = (0..=n).map(|i| i as f64 / n as f64).collect();
            let skewed: Vec<f64> = (0..=n).map(|i| (i as f64 / n as f64).powi(3)).collect();
            let repeated: Vec<f64> = (0..=n).map(|i| if i < n { 0.25 } else { 1.0 }).collect();
            for edges in [&uniform, &skewed, &repeated] {
                let mut ps = vec![0.0, 1.0, 0.5, f64::MIN_POSITIVE, 1.0 - f64::EPSILON / 2.0];
                for &e in edges.iter() {
                    ps.extend([e, e.next_down_or(e), e.next_up_or(e)]);
                }
                for upper in [false, true] {
                    for &p in ps.iter().filter(|p| (0.0..=1.0).contains(*p)) {
                        assert_eq!(
                            bin_of(p, edges, upper),
                            searched(p, edges, upper),
                            "{p} {n}"
                        );
                    }
                }
            }
        }
    }

    trait Adjacent {
        fn next_down_or(self, x: f64) -> f64;
        fn next_up_or(self, x: f64) -> f64;
    }
    impl Adjacent for f64 {
        fn next_down_or(self, x: f64) -> f64 {
            if self > 0.0 {
                f64::from_bits(self.to_bits() - 1)
            } else {
                x
            }
        }
        fn next_up_or(self, x: f64) -> f64 {
            if self < 1.0 {
                f64::from_bits(self.to_bits() + 1)
            } else {
                x
            }
        }
    }

    /// Each bin's gap against the exact sum of its rows' terms, both paths.
    #[test]
    fn gaps_are_the_exact_sums_of_their_rows() {
        let mut next = crate::testing::stream(7);
        let rows = 3000;
        let proba: Vec<f64> = (0..rows)
            .map(|_| (next() >> 11) as f64 / (1u64 << 53) as f64)
            .collect();
        let labels: Vec<i8> = (0..rows).map(|_| (next() & 1) as i8).collect();
        let weights: Vec<f64> = (0..rows).map(|_| (next() >> 40) as f64 * 1e-3).collect();
        for n_bins in [1usize, 10, DIRECT_BINS, DIRECT_BINS + 1, 20_000] {
            let edges: Vec<f64> = (0..=n_bins).map(|i| i as f64 / n_bins as f64).collect();
            for w in [&weights[..0], &weights[..]] {
                for upper in [false, true] {
                    let (bins, gaps) = binned_gaps(&labels, &proba, w, &edges, upper);
                    let mut expected: Vec<(i64, Vec<f64>)> = Vec::new();
                    for i in 0..rows {
                        let b = searched(proba[i], &edges, upper) as i64;
                        let wi = if w.is_empty() { 1.0 } else { w[i] };
                        // w p exactly: Dekker's two parts (w = 1 without weights)
                        let (product, error) = sums::two_product(proba[i], wi);
                        let terms = [if labels[i] != 0 { wi } else { 0.0 }, -product, -error];
                        match expected.iter_mut().find(|(x, _)| *x == b) {
                            Some((_, t)) => t.extend(terms),
                            None => expected.push((b, terms.to_vec())),
                        }
                    }
                    expected.sort_by_key(|(b, _)| *b);
                    assert_eq!(bins, expected.iter().map(|(b, _)| *b).collect::<Vec<_>>());
                    let n_out = if upper { n_bins + 1 } else { n_bins };
                    for n_chunks in [2, 7].into_iter().filter(|_| n_out <= DIRECT_BINS) {
                        let parts = (0..n_chunks).map(|c| {
                            let data = Rows {
                                labels: &labels,
                                proba: &proba,
                                weights: w,
                            };
                            let part = c * rows / n_chunks..(c + 1) * rows / n_chunks;
                            direct(&data, &edges, upper, n_out, part)
                        });
                        let chunked = parts.fold((Vec::new(), Vec::new()), merge);
                        assert_eq!(chunked, (bins.clone(), gaps.clone()));
                    }
                    for (gap, (_, terms)) in gaps.iter().zip(&expected) {
                        assert_eq!(*gap, exact_sum(terms, 1, CARRY_EVERY));
                    }
                }
            }
        }
    }

    #[test]
    fn sorted_blocks_merge_by_bin() {
        let acc = |x: f64| exact_sum(&[x], 1, CARRY_EVERY);
        let a = (vec![1, 4], vec![acc(1.0), acc(2.0)]);
        let b = (vec![0, 4, 9], vec![acc(3.0), acc(-0.5), acc(5.0)]);
        let (bins, gaps) = merge(a, b);
        assert_eq!(bins, vec![0, 1, 4, 9]);
        assert_eq!(gaps, vec![acc(3.0), acc(1.0), acc(1.5), acc(5.0)]);
    }
}
