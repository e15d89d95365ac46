//! The mathematics of tied scores: every order of a block of equal scores equally
//! likely, the laws of what lands where within the block.
//!
//! A leaf: the top-K kernel (`ranking`) and trec_eval's measures (`trec::ties`) both
//! use it, and it imports nothing of the crate.

/// End of the tied block of `scores` starting at `t` (exact equality): the first
/// position after `t` whose score differs, or `scores.len()`.
#[inline]
pub fn tied_block_end(scores: &[f64], t: usize) -> usize {
    let mut e = t + 1;
    while e < scores.len() && scores[e] == scores[t] {
        e += 1;
    }
    e
}

/// P(the first relevant item of a tied block of `m` items, `h` of them relevant,
/// is at offset j) for j < t (a uniformly random order of the block).
pub fn expected_first_hit(m: i64, h: i64, t: i64) -> Vec<f64> {
    let mut out = vec![0.0; t.max(0) as usize];
    if h == 0 {
        return out;
    }
    let mut none_before = 1.0;
    for j in 0..t.min(m - h + 1).max(0) {
        out[j as usize] = none_before * h as f64 / (m - j) as f64;
        none_before *= (m - h - j) as f64 / (m - j) as f64;
    }
    out
}

/// Expected sum of precision at the relevant positions j < `top` over the positions
/// `t..t + q` of a tied block of `size` items, `r` of them relevant, every order of
/// the block equally likely, with `c` relevant items ranked before it: the item at
/// offset i is relevant with probability r / size and, given that, has on average
/// i (r - 1) / (size - 1) relevant items before it in the block (McSherry and Najork).
pub fn block_precision_sum(t: usize, q: usize, size: usize, r: f64, c: f64) -> f64 {
    let p = r / size as f64;
    let inside = if size > 1 {
        (r - 1.0) / (size - 1) as f64
    } else {
        0.0
    };
    (0..q)
        .map(|i| p * (c + 1.0 + i as f64 * inside) / (t + i + 1) as f64)
        .sum()
}

/// Probabilities of m = lo..=hi relevant items among the first `q` of a tied block of
/// `size` items, `r` relevant (hypergeometric), by the ratio of consecutive terms.
/// The terms are built outwards from the mode (set to 1) and then normalised, so a
/// large block's tail underflows to 0 instead of the whole law.
pub fn hypergeometric(size: usize, r: usize, q: usize) -> (usize, Vec<f64>) {
    let lo = q.saturating_sub(size - r);
    let hi = r.min(q);
    let mode = ((q + 1) * (r + 1) / (size + 2)).clamp(lo, hi);
    // p(m + 1) / p(m)
    let up = |m: usize| ((r - m) * (q - m)) as f64 / ((m + 1) * (size + m + 1 - r - q)) as f64;
    let mut out = vec![0.0; hi - lo + 1];
    out[mode - lo] = 1.0;
    let mut p = 1.0;
    for m in mode..hi {
        p *= up(m);
        out[m + 1 - lo] = p;
    }
    p = 1.0;
    for m in (lo..mode).rev() {
        p /= up(m);
        out[m - lo] = p;
    }
    let total: f64 = out.iter().sum();
    out.iter_mut().for_each(|x| *x /= total);
    (lo, out)
}

/// The law of a sampled rank: row `i` holds, for `j = 0..=n`, the probability that `j`
/// of `n` negatives drawn without replacement from the `size - 1` items other than one
/// of full rank `r = first + i` lie among the `r - 1` ranked above it
/// ([`hypergeometric`]`(size - 1, r - 1, n)`; 0 where `j` cannot be), for the ranks
/// `first..=last` (`1 <= first <= last <= size`, `n < size`).
pub fn sampled_rank_law(size: usize, n: usize, first: usize, last: usize) -> Vec<f64> {
    use rayon::prelude::*;
    let mut out = vec![0.0; (last + 1 - first) * (n + 1)];
    crate::threads::install(|| {
        out.par_chunks_mut(n + 1).enumerate().for_each(|(i, row)| {
            let (lo, p) = hypergeometric(size - 1, first + i - 1, n);
            row[lo..lo + p.len()].copy_from_slice(&p);
        })
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tied_block_ends_at_the_first_other_score() {
        let scores = [0.5, 0.5, 0.4, 0.4, 0.4, 0.1];
        assert_eq!(tied_block_end(&scores, 0), 2);
        assert_eq!(tied_block_end(&scores, 2), 5);
        assert_eq!(tied_block_end(&scores, 3), 5);
        assert_eq!(tied_block_end(&scores, 5), 6);
    }

    #[test]
    fn a_sampled_rank_law_is_the_hypergeometric_of_the_items_above() {
        // 5 items, 2 negatives drawn of the 4 others; rank 3 has 2 above: C(2,j) C(2,2-j) / 6
        let law = sampled_rank_law(5, 2, 1, 5);
        assert_eq!(law.len(), 5 * 3);
        assert_eq!(&law[0..3], &[1.0, 0.0, 0.0]); // rank 1: nothing above
        for (j, want) in [1.0 / 6.0, 4.0 / 6.0, 1.0 / 6.0].iter().enumerate() {
            assert!((law[2 * 3 + j] - want).abs() < 1e-15);
        }
        assert_eq!(&law[12..15], &[0.0, 0.0, 1.0]); // rank 5: every other item above
                                                    // every negative drawn: the sampled rank is the full rank
        let all = sampled_rank_law(4, 3, 2, 3);
        assert_eq!(all, vec![0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn hypergeometric_sums_to_one() {
        for (size, r, q) in [(10, 3, 4), (5, 5, 2), (7, 0, 3), (6, 2, 6), (40, 17, 23)] {
            let (lo, p) = hypergeometric(size, r, q);
            assert!(
                (p.iter().sum::<f64>() - 1.0).abs() < 1e-12,
                "{size} {r} {q}"
            );
            assert_eq!(lo, q.saturating_sub(size - r));
        }
        // a block whose least likely counts underflow: the law keeps its mass and its
        // mean q r / size (its first term, C(1000, 0) C(1000, 1000) / C(2000, 1000), is
        // below the smallest double)
        let (lo, p) = hypergeometric(2000, 1000, 1000);
        let mean: f64 = p.iter().enumerate().map(|(i, x)| (lo + i) as f64 * x).sum();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((mean - 500.0).abs() < 1e-9, "{mean}");
        // exact small case: 3 relevant of 5, 2 drawn: C(3,m) C(2,2-m) / C(5,2)
        let (lo, p) = hypergeometric(5, 3, 2);
        assert_eq!(lo, 0);
        for (m, want) in [0.1, 0.6, 0.3].iter().enumerate() {
            assert!((p[m] - want).abs() < 1e-15, "{m}: {}", p[m]);
        }
    }

    #[test]
    fn expected_first_hit_sums_to_one() {
        let p = expected_first_hit(4, 2, 4);
        assert_eq!(p.len(), 4);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        assert_eq!(p[3], 0.0);
        assert_eq!(expected_first_hit(3, 0, 2), vec![0.0, 0.0]);
    }
}
