//! `(2U, P, N)` of several runs at once, without merging them.
//!
//! A merge of `k` runs picks the least of `k` heads at every entry, a branch the CPU
//! cannot predict. Twice the Mann-Whitney U is instead a sum over the entries of the
//! rarer label alone: over positives, `pos * (2 * negatives below + negatives at the
//! score)`, which adds up run by run. The rarer label's entries of every run are
//! gathered and merged (a fraction of the rows in CTR data), then walked once
//! against each run: `k` walks of that fraction plus one pass over every entry, each
//! step a comparison that stays the same for long stretches. The integer sum is the
//! one the merged walk gives; where it would pass 2**128 (weights), the runs are
//! walked merged, as [`pair_sum_of`] sums the merged entries in 256 bits.

use super::{pair_sum_of, Count, Entry, Run, U256};

/// `(2U, P, N)` of the runs (any number), as [`pair_sum_of`] of their merge.
pub fn pair_sum_runs<C: Count>(runs: &[Run<C>]) -> (U256, u128, u128) {
    let heads: Vec<&[Entry<C>]> = runs.iter().map(|r| &r.entries[..]).collect();
    // the rarer label, told from every 64th entry (either choice gives the same sum)
    let (mut with_pos, mut with_neg) = (0, 0);
    for e in heads.iter().flat_map(|h| h.iter().step_by(64)) {
        with_pos += ({ e.pos } != C::default()) as usize;
        with_neg += ({ e.neg } != C::default()) as usize;
    }
    let walked = if with_pos <= with_neg {
        rare_walk(&heads, |e| e.pos, |e| e.neg, false)
    } else {
        rare_walk(&heads, |e| e.neg, |e| e.pos, true).map(|(two_u, neg, pos)| (two_u, pos, neg))
    };
    match walked {
        Some((two_u, total_pos, total_neg)) => (U256::from(two_u), total_pos, total_neg),
        None => pair_sum_of(Joined::new(heads)),
    }
}

/// `a * b`, None past 2**128 (a single multiply where both fit in 64 bits).
#[inline(always)]
fn product(a: u128, b: u128) -> Option<u128> {
    if (a | b) >> 64 == 0 {
        Some(a * b)
    } else {
        a.checked_mul(b)
    }
}

/// 2U from the entries of the rarer label (`rare` of an entry; `other`, the other
/// label): each counts its pairs with the other label's entries of every run, twice
/// those ordered right and once those tied. Positives are ordered right above the
/// negatives (walked up); negatives below the positives (`down`: walked down).
/// `(2U, rare total, other total)`, or None past 2**128.
fn rare_walk<C: Count>(
    heads: &[&[Entry<C>]],
    rare: impl Fn(&Entry<C>) -> C,
    other: impl Fn(&Entry<C>) -> C,
    down: bool,
) -> Option<(u128, u128, u128)> {
    let zero = C::default();
    let (mut rare_total, mut other_total) = (0u128, 0u128);
    // the rare entries of every run, merged into one list of increasing keys
    let mut merged: Vec<(u64, u128)> = Vec::new();
    let mut part: Vec<(u64, u128)> = Vec::new();
    let mut out: Vec<(u64, u128)> = Vec::new();
    for h in heads {
        part.clear();
        for e in h.iter() {
            other_total += other(e).wide();
            if rare(e) != zero {
                rare_total += rare(e).wide();
                part.push((e.key, rare(e).wide()));
            }
        }
        out.clear();
        out.reserve(merged.len() + part.len());
        let (mut i, mut j) = (0, 0);
        while i < merged.len() && j < part.len() {
            let take = merged[i].0 <= part[j].0;
            out.push(if take { merged[i] } else { part[j] });
            i += take as usize;
            j += !take as usize;
        }
        out.extend_from_slice(&merged[i..]);
        out.extend_from_slice(&part[j..]);
        std::mem::swap(&mut merged, &mut out);
    }
    let mut sum: u128 = 0;
    for h in heads {
        // `beyond`: the other label's count strictly on the ordered-right side
        let mut beyond: u128 = 0;
        if down {
            let mut j = h.len();
            for &(key, count) in merged.iter().rev() {
                while j > 0 && h[j - 1].key > key {
                    j -= 1;
                    beyond += other(&h[j]).wide();
                }
                let tied = if j > 0 && h[j - 1].key == key {
                    other(&h[j - 1]).wide()
                } else {
                    0
                };
                sum = sum.checked_add(product(count, 2 * beyond + tied)?)?;
            }
        } else {
            let mut j = 0;
            for &(key, count) in &merged {
                while j < h.len() && h[j].key < key {
                    beyond += other(&h[j]).wide();
                    j += 1;
                }
                let tied = if j < h.len() && h[j].key == key {
                    other(&h[j]).wide()
                } else {
                    0
                };
                sum = sum.checked_add(product(count, 2 * beyond + tied)?)?;
            }
        }
    }
    Some((sum, rare_total, other_total))
}

/// The counts of several runs in the order of their keys, a key's counts summed
/// over the runs (a merge that writes nothing): the least key is found by a scan of
/// the heads' keys, held side by side (`u64::MAX` for a run walked to its end;
/// `live` counts the others).
#[derive(Clone)]
struct Joined<'a, C> {
    heads: Vec<&'a [Entry<C>]>,
    keys: Vec<u64>,
    live: usize,
}

impl<'a, C: Count> Joined<'a, C> {
    fn new(runs: Vec<&'a [Entry<C>]>) -> Self {
        let heads: Vec<&[Entry<C>]> = runs.into_iter().filter(|r| !r.is_empty()).collect();
        let keys = heads.iter().map(|r| r[0].key).collect();
        let live = heads.len();
        Joined { heads, keys, live }
    }
}

impl<C: Count> Iterator for Joined<'_, C> {
    type Item = (u128, u128);

    fn next(&mut self) -> Option<(u128, u128)> {
        if self.live == 0 {
            return None;
        }
        let key = self.keys.iter().copied().fold(u64::MAX, u64::min);
        let (mut pos, mut neg) = (0u128, 0u128);
        for (h, k) in self.heads.iter_mut().zip(self.keys.iter_mut()) {
            if *k != key {
                continue;
            }
            if let Some((e, rest)) = h.split_first() {
                pos += e.pos.wide();
                neg += e.neg.wide();
                *h = rest;
                match rest.first() {
                    Some(next) => *k = next.key,
                    None => {
                        *k = u64::MAX;
                        self.live -= 1;
                    }
                }
            }
        }
        Some((pos, neg))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(seed: &mut u64, k: usize, n: usize, pos_every: u64) -> Vec<Run<u64>> {
        (0..k)
            .map(|_| {
                let mut keys: Vec<u64> = (0..n).map(|_| crate::testing::lcg(seed) % 50).collect();
                keys.sort_unstable();
                let labels: Vec<bool> = (0..n)
                    .map(|_| crate::testing::lcg(seed).is_multiple_of(pos_every))
                    .collect();
                Run::from_sorted(keys.iter().zip(&labels).map(|(&k, &l)| (k, l, 1u64)), n)
            })
            .collect()
    }

    #[test]
    fn the_walk_of_the_rarer_label_is_the_merged_walk() {
        let mut seed = 11;
        // positives rarer, negatives rarer, even, one label only, empty runs
        for (k, n, every) in [
            (5, 300, 9),
            (3, 200, 1),
            (4, 100, 2),
            (2, 50, 1),
            (6, 40, 3),
        ] {
            let mut runs = runs_of(&mut seed, k, n, every);
            if every == 3 {
                runs.push(Run::default());
                for r in &mut runs[..2] {
                    for e in &mut r.entries {
                        (e.pos, e.neg) = (e.neg, e.pos); // negatives rarer in some runs
                    }
                }
            }
            let heads: Vec<&[Entry<u64>]> = runs.iter().map(|r| &r.entries[..]).collect();
            let want = pair_sum_of(Joined::new(heads));
            assert_eq!(pair_sum_runs(&runs), want, "{k} runs, every {every}");
            let mut whole = Run::default();
            for r in &runs {
                whole = Run::merge(&whole, r);
            }
            assert_eq!(whole.pair_sum(), want);
        }
    }

    #[test]
    fn weights_past_2_128_walk_the_merge() {
        let big = 1u128 << 100;
        let run = |keys: &[u64], pos: u128, neg: u128| Run::<u128> {
            entries: keys.iter().map(|&key| Entry { key, pos, neg }).collect(),
        };
        let runs = [run(&[1, 3], big, big), run(&[2, 3], big, 1)];
        let heads: Vec<&[Entry<u128>]> = runs.iter().map(|r| &r.entries[..]).collect();
        assert_eq!(pair_sum_runs(&runs), pair_sum_of(Joined::new(heads)));
        let small = [run(&[1, 3], 3, 5), run(&[2, 3], 7, 1)];
        let heads: Vec<&[Entry<u128>]> = small.iter().map(|r| &r.entries[..]).collect();
        assert_eq!(pair_sum_runs(&small), pair_sum_of(Joined::new(heads)));
    }
}
