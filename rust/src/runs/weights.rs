//! Weights per distinct score held exactly: integers in units of `2^quantum`, the
//! lowest bit of any weight held, so that every sum is the same for any split and
//! merge order while they span at most 126 bits.

use super::{Run, Runs};
use crate::sort::order_key;

/// `(m, e)` with `x = m 2^e` and `m` odd (x > 0, finite); `(0, 0)` for zero.
#[inline(always)]
pub fn odd_parts(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), exp - 1075)
    };
    if m == 0 {
        return (0, 0);
    }
    let tz = m.trailing_zeros();
    (m >> tz, e + tz as i32)
}

/// Bits of `x` (0 for 0).
#[inline(always)]
fn bit_length(x: u128) -> i32 {
    (128 - x.leading_zeros()) as i32
}

/// `m 2^shift` rounded to an integer (half to even), for `shift` of any sign.
#[inline(always)]
fn scaled(m: u128, shift: i32) -> u128 {
    if shift >= 0 {
        m << shift
    } else if shift <= -128 {
        0
    } else {
        let s = (-shift) as u32;
        let q = m >> s;
        let rem = m - (q << s);
        let half = 1u128 << (s - 1);
        if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        }
    }
}

/// [`scaled`], but a count that is not zero stays at least one unit (a class of tiny
/// weights beside huge ones keeps its rows).
#[inline(always)]
fn scaled_kept(m: u128, shift: i32) -> u128 {
    if m == 0 {
        0
    } else {
        scaled(m, shift).max(1)
    }
}

/// The units of a weight `m 2^shift` (`m` odd, below 2^53, as [`odd_parts`] gives it)
/// as one word below 2^61: [`scaled_kept`]'s integer when `shift` is negative (below
/// 2^53), else `m` in bits 0-52 and `shift` in bits 53-59 (a shift of at most 124:
/// the units of one weight have at most [`WIDTH`] bits).
#[inline(always)]
fn packed_units(m: u64, shift: i32) -> u64 {
    if shift < 0 {
        scaled_kept(u128::from(m), shift) as u64
    } else {
        debug_assert!(m < 1 << 53 && shift < 128);
        m | (shift as u64) << 53
    }
}

/// The units of a word of [`packed_units`] (bits 61-63 are not read).
#[inline(always)]
fn unpacked_units(word: u64) -> u128 {
    u128::from(word & ((1 << 53) - 1)) << ((word >> 53) & 127)
}

/// The lowest bit of the weights that are not zero, the bound above their highest
/// bits and their number: None when every weight is zero.
pub fn span(weights: impl Iterator<Item = f64>) -> Option<(i32, i32, u128)> {
    let (mut low, mut high, mut n) = (i32::MAX, i32::MIN, 0u128);
    for w in weights {
        let (m, e) = odd_parts(w);
        if m != 0 {
            low = low.min(e);
            high = high.max(e + 64 - m.leading_zeros() as i32);
            n += 1;
        }
    }
    (n > 0).then_some((low, high, n))
}

/// The rows `(score, positive, weight)` of a weight that is not zero (`n` of them)
/// sorted by score, each as its [`order_key`] and one word of its label (the top
/// bit) and its units of `2^q` ([`packed_units`], rounded as [`scaled_kept`]): 16
/// bytes a row, half the memory to fill and to sort of a key, a label and a `u128`.
pub fn sorted_rows(
    rows: impl Iterator<Item = (f64, bool, f64)>,
    n: usize,
    q: i32,
) -> Vec<(u64, u64)> {
    let mut items: Vec<(u64, u64)> = Vec::with_capacity(n);
    for (score, positive, w) in rows {
        let (m, e) = odd_parts(w);
        if m != 0 {
            items.push((
                order_key(score),
                packed_units(m, e - q) | u64::from(positive) << 63,
            ));
        }
    }
    if items.len() > 1 << 16 {
        use rayon::slice::ParallelSliceMut;
        items.par_sort_unstable_by_key(|x| x.0);
    } else {
        items.sort_unstable_by_key(|x| x.0);
    }
    items
}

/// The units of each label `(positive, negative)` per distinct key of rows of
/// [`sorted_rows`], in order.
pub fn key_counts(items: &[(u64, u64)]) -> impl Iterator<Item = (u128, u128)> + '_ {
    items.chunk_by(|a, b| a.0 == b.0).map(|rows| {
        rows.iter().fold((0, 0), |(p, n), &(_, word)| {
            let units = unpacked_units(word);
            if word >> 63 == 1 {
                (p + units, n)
            } else {
                (p, n + units)
            }
        })
    })
}

/// Exact weights per distinct score and label, in units of `2^quantum`.
#[derive(Clone, Debug)]
pub struct WeightRuns {
    pub runs: Runs<Run<u128>>,
    /// The exponent of a unit (meaningful once a weight is held).
    pub quantum: i32,
    /// Units held in all (the sum of every count).
    pub total: u128,
    /// No weight's bits were rounded off.
    pub exact: bool,
}

/// The bits a sum of counts may use (one more is left for the carries of merges).
const WIDTH: i32 = 126;
/// Bits given up at once when the counts must be held in a coarser unit.
const SLACK: i32 = 32;

impl Default for WeightRuns {
    fn default() -> Self {
        WeightRuns {
            runs: Runs::default(),
            quantum: 0,
            total: 0,
            exact: true,
        }
    }
}

impl Run<u128> {
    /// The sum of every count.
    pub fn total(&self) -> u128 {
        self.entries.iter().map(|e| e.pos + e.neg).sum()
    }
}

impl WeightRuns {
    /// Hold the counts in units of `2^quantum` (rounded if it is a coarser unit).
    fn rescale(&mut self, quantum: i32) {
        if self.total == 0 {
            self.quantum = quantum;
            return;
        }
        let by = self.quantum - quantum;
        if by == 0 {
            return;
        }
        if by < 0 {
            self.exact = false;
        }
        self.runs.map_counts(|c| scaled_kept(c, by));
        self.total = self.runs.stack.iter().map(Run::total).sum();
        self.quantum = quantum;
    }

    /// The unit that holds both the counts held and `n` more values with lowest bit
    /// `2^low` and highest below `2^high`: the finest whose sums fit [`WIDTH`] bits.
    fn unit_for(&self, low: i32, high: i32, n: u128) -> i32 {
        let mut q = if self.total == 0 {
            low
        } else {
            low.min(self.quantum)
        };
        // bits of the largest possible sum above the unit
        let held = if self.total == 0 {
            i32::MIN
        } else {
            bit_length(self.total) + self.quantum
        };
        let top = held.max(high) + bit_length(n) + 1;
        if top - q > WIDTH {
            // coarser by SLACK bits more than needed: weights that keep growing (a
            // decayed state) round the counts held once every SLACK bits of growth
            q = top - WIDTH + SLACK;
        }
        q
    }

    /// The unit of a batch's weights alone ([`span`] of them): the finest whose sums
    /// fit [`WIDTH`] bits, as a new state takes it.
    pub fn batch_unit((low, high, n): (i32, i32, u128)) -> i32 {
        WeightRuns::default().unit_for(low, high, n)
    }

    /// Add a batch of rows of positive finite weights (rows of weight 0 left out).
    pub fn add(&mut self, labels: &[i8], scores: &[f64], weights: &[f64]) {
        let Some((low, high, n)) = span(weights.iter().copied()) else {
            return;
        };
        let q = self.unit_for(low, high, n);
        if q > low {
            self.exact = false;
        }
        self.rescale(q);
        let rows = (0..labels.len()).map(|i| (scores[i], labels[i] == 1, weights[i]));
        let items = sorted_rows(rows, n as usize, q);
        let rows = items
            .iter()
            .map(|&(key, word)| (key, word >> 63 == 1, unpacked_units(word)));
        let run = Run::from_sorted(rows, items.len());
        self.total += run.total();
        self.runs.push(run);
    }

    /// Divide every weight held by `2^by` (exact: only the unit changes).
    pub fn scale_down(&mut self, by: i32) {
        self.quantum -= by;
    }

    /// Add another state's counts (their unit aligned with this one's).
    pub fn absorb(&mut self, other: &WeightRuns) {
        if other.total == 0 {
            return;
        }
        let q = self.unit_for(other.quantum, bit_length(other.total) + other.quantum, 1);
        self.rescale(q);
        self.exact &= other.exact && q <= other.quantum;
        let by = other.quantum - q;
        for mut run in other.runs.clone().into_runs() {
            if by != 0 {
                for e in &mut run.entries {
                    e.pos = scaled_kept(e.pos, by);
                    e.neg = scaled_kept(e.neg, by);
                }
            }
            self.total += run.total();
            self.runs.push(run);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::auc_of;
    use super::*;

    fn data(seed: &mut u64, n: usize) -> (Vec<i8>, Vec<f64>, Vec<f64>) {
        super::super::tests::data(seed, n)
    }

    #[test]
    fn weights_any_split_and_merge_order_are_equal() {
        let mut seed = 11;
        let (labels, scores, mut weights) = data(&mut seed, 2000);
        weights[5] = 1e6;
        weights[9] = 3e-9;
        let mut whole = WeightRuns::default();
        whole.add(&labels, &scores, &weights);
        let mut parts: Vec<WeightRuns> = Vec::new();
        for chunk in (0..2000).step_by(333) {
            let end = (chunk + 333).min(2000);
            let mut part = WeightRuns::default();
            part.add(
                &labels[chunk..end],
                &scores[chunk..end],
                &weights[chunk..end],
            );
            parts.push(part);
        }
        let mut merged = WeightRuns::default();
        for part in parts.iter().rev() {
            merged.absorb(part);
        }
        let a = whole.runs.compact().clone();
        let b = merged.runs.compact().clone();
        assert_eq!(whole.quantum, merged.quantum);
        assert_eq!(a, b);
        assert!(whole.exact && merged.exact);
    }

    #[test]
    fn weights_beyond_the_width_are_rounded_and_said_so() {
        let mut w = WeightRuns::default();
        w.add(&[1, 0], &[0.5, 0.25], &[1e300, 3e-310]);
        assert!(!w.exact);
        let (two_u, p, n) = w.runs.compact().pair_sum();
        assert_eq!(auc_of(two_u, p, n), 1.0);
        let mut tiny = WeightRuns::default();
        tiny.add(&[1, 0, 0], &[0.5, 0.25, 0.75], &[1e-300, 1e-300, 2e-300]);
        assert!(tiny.exact);
        let (two_u, p, n) = tiny.runs.compact().pair_sum();
        assert!((auc_of(two_u, p, n) - 1.0 / 3.0).abs() < 1e-15);
        let mut huge = WeightRuns::default();
        huge.add(&[1, 0, 0], &[0.5, 0.25, 0.75], &[1e300, 1e300, 2e300]);
        assert!(huge.exact);
        let (two_u, p, n) = huge.runs.compact().pair_sum();
        assert!((auc_of(two_u, p, n) - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn scaled_rounds_half_to_even() {
        assert_eq!(scaled(5, -1), 2);
        assert_eq!(scaled(7, -1), 4);
        assert_eq!(scaled(6, -2), 2);
        assert_eq!(scaled(3, 2), 12);
        assert_eq!(scaled(u128::MAX, -200), 0);
        assert_eq!(odd_parts(12.0), (3, 2));
        assert_eq!(odd_parts(f64::from_bits(1)), (1, -1074));
    }

    #[test]
    fn packed_units_keep_every_bit_and_leave_the_top_ones() {
        let top = (1u64 << 53) - 1;
        for (m, shift) in [
            (1, 0),
            (top, 0),
            (top, 124),
            (3, 73),
            (5, -1),
            (top, -1),
            (7, -200),
        ] {
            let word = packed_units(m, shift);
            assert!(word < 1 << 61, "{m} {shift}");
            assert_eq!(unpacked_units(word), scaled_kept(u128::from(m), shift));
            assert_eq!(unpacked_units(word | 1 << 63), unpacked_units(word));
        }
    }
}
