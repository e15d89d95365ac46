//! Weights per distinct score held exactly: each label's as integers in a unit of
//! its own, `2^quantum` with `quantum` the lowest bit of any weight of that label
//! held, so that every sum is the same for any split and merge order while one
//! label's sums span at most 126 bits. The units of the two labels are apart
//! because the AUC does not depend on the scale of either label's weights: tiny
//! weights of one label beside huge ones of the other keep every bit (in one unit,
//! they were rounded to a unit each, and so made equal).

use super::rounding::{loses_bits, lost_in, rounded_labels, Rounded, Rounding};
use super::{auc_of, pair_sum_of, Run, Runs, U256};
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

/// The lowest bit of weights that are not zero, the bound above their highest bits
/// and their number, gathered a weight at a time.
#[derive(Clone, Copy)]
struct Spanning {
    low: i32,
    high: i32,
    n: u128,
}

impl Spanning {
    const NONE: Spanning = Spanning {
        low: i32::MAX,
        high: i32::MIN,
        n: 0,
    };

    #[inline(always)]
    fn include(&mut self, w: f64) {
        let (m, e) = odd_parts(w);
        if m != 0 {
            self.low = self.low.min(e);
            self.high = self.high.max(e + 64 - m.leading_zeros() as i32);
            self.n += 1;
        }
    }

    /// The lowest bit of the weights that are not zero, the bound above their highest
    /// bits and their number: None when every weight is zero.
    fn span(self) -> Option<(i32, i32, u128)> {
        (self.n > 0).then_some((self.low, self.high, self.n))
    }
}

/// One value of each label.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PerLabel<T> {
    pub pos: T,
    pub neg: T,
}

impl<T: Copy> PerLabel<T> {
    /// The positives' value or the negatives'.
    #[inline(always)]
    pub fn of(&self, positive: bool) -> T {
        if positive {
            self.pos
        } else {
            self.neg
        }
    }

    /// The positives' value or the negatives', to change.
    #[inline(always)]
    pub fn of_mut(&mut self, positive: bool) -> &mut T {
        if positive {
            &mut self.pos
        } else {
            &mut self.neg
        }
    }

    /// `f` of each label's value (the label passed first: true for the positives).
    pub fn map<U>(self, mut f: impl FnMut(bool, T) -> U) -> PerLabel<U> {
        PerLabel {
            pos: f(true, self.pos),
            neg: f(false, self.neg),
        }
    }
}

/// [`Spanning::span`] of the weights of each label (`(positive, weight)` rows), in one pass.
fn label_spans(rows: impl Iterator<Item = (bool, f64)>) -> PerLabel<Option<(i32, i32, u128)>> {
    let (mut pos, mut neg) = (Spanning::NONE, Spanning::NONE);
    for (positive, w) in rows {
        if positive {
            pos.include(w);
        } else {
            neg.include(w);
        }
    }
    PerLabel {
        pos: pos.span(),
        neg: neg.span(),
    }
}

/// The rows `(score, positive, weight)` of a weight that is not zero (`n` of them)
/// sorted by score into `items` (emptied first; its memory reused), each as its
/// [`order_key`] and one word of its label (the top bit) and its units of its
/// label's unit `2^q` ([`packed_units`], rounded as [`scaled_kept`]): 16 bytes a
/// row, half the memory to fill and to sort of a key, a label and a `u128`.
/// Returns the rows of each label whose weight was rounded (a bit below its unit),
/// each moved by less than one unit.
pub fn sorted_rows(
    rows: impl Iterator<Item = (f64, bool, f64)>,
    n: usize,
    q: PerLabel<i32>,
    items: &mut Vec<(u64, u64)>,
) -> PerLabel<u128> {
    items.clear();
    items.reserve(n);
    let mut rounded = PerLabel::<u128>::default();
    for (score, positive, w) in rows {
        let (m, e) = odd_parts(w);
        if m != 0 {
            let shift = e - q.of(positive);
            if shift < 0 {
                // m is odd: its lowest bit is below the unit
                *rounded.of_mut(positive) += 1;
            }
            items.push((
                order_key(score),
                packed_units(m, shift) | u64::from(positive) << 63,
            ));
        }
    }
    if items.len() > 1 << 16 {
        use rayon::slice::ParallelSliceMut;
        items.par_sort_unstable_by_key(|x| x.0);
    } else {
        items.sort_unstable_by_key(|x| x.0);
    }
    rounded
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

/// Exact sums of one batch of weighted rows, each label's weights in units of its own
/// `2^quantum` (as [`WeightRuns`] takes a batch into a new state).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedSums {
    /// The exponent of each label's unit (0 for a label without weight).
    pub quantum: PerLabel<i32>,
    /// Weight units of each label.
    pub total: PerLabel<u128>,
    /// Twice the weighted Mann-Whitney U in units of `2^(quantum.pos + quantum.neg)`.
    pub two_u: U256,
    /// How far each label's units are from its weights ([`Rounding`]).
    pub rounding: PerLabel<Rounding>,
}

/// The exact sums of the rows `(score, positive, weight)` (weights finite and not
/// negative; rows of weight 0 count nothing), read twice: each label's unit is the
/// lowest bit of any of its weights, coarser only where its sums would pass 126 bits
/// (told by `rounding`: the units then rounded as the in-memory state rounds them). The
/// rows are left in `items` ([`sorted_rows`]; its memory reused), sorted by score.
///
/// One implementation of the weighted AUC's sums: of a whole score range and of each
/// group of a GAUC.
pub fn weighted_sums<I>(rows: I, items: &mut Vec<(u64, u64)>) -> WeightedSums
where
    I: Iterator<Item = (f64, bool, f64)> + Clone,
{
    let spans = label_spans(rows.clone().map(|(_, positive, w)| (positive, w)));
    let quantum = spans.map(|_, s| s.map_or(0, WeightRuns::batch_unit));
    let n = spans.pos.map_or(0, |s| s.2) + spans.neg.map_or(0, |s| s.2);
    let lost = sorted_rows(rows, n as usize, quantum, items);
    let (two_u, pos, neg) = pair_sum_of(key_counts(items));
    WeightedSums {
        quantum,
        total: PerLabel { pos, neg },
        two_u,
        rounding: spans.map(|positive, s| {
            Rounding::default().and(s.map_or(i32::MAX, |s| s.0), lost.of(positive))
        }),
    }
}

impl WeightedSums {
    /// Whether every weight's bits were kept (each label's units span at most 126 bits).
    pub fn exact(&self) -> bool {
        self.rounding.pos.lost == 0 && self.rounding.neg.lost == 0
    }

    /// [`rounded_labels`] of these sums.
    pub fn rounded(&self) -> PerLabel<Option<Rounded>> {
        rounded_labels(self.quantum, self.total, self.rounding)
    }

    /// The AUC: `2U / (2 P N)` of the exact integers rounded once ([`auc_of`]); NaN
    /// without a weight of each label.
    pub fn auc(&self) -> f64 {
        auc_of(self.two_u, self.total.pos, self.total.neg)
    }

    /// The weight of each label rounded once: the exact sum of its weights where
    /// `exact`, else of its weights rounded to its unit.
    pub fn weights(&self) -> PerLabel<f64> {
        self.total
            .map(|positive, units| weight_of_units(units, self.quantum.of(positive)))
    }
}

/// `units 2^q` rounded once to the nearest float (`q` from -1074 up, as the unit of a
/// weight is): `units` rounded to 53 bits, then scaled exactly by a power of two. A
/// value below 2^-1022 is below 2^52 units, and so a float already.
fn weight_of_units(units: u128, q: i32) -> f64 {
    let scale = match q {
        ..=-1075 => unreachable!("a unit below 2^-1074"),
        -1074..=-1023 => f64::from_bits(1 << (q + 1074)),
        -1022..=1023 => f64::from_bits(((q + 1023) as u64) << 52),
        _ => f64::INFINITY,
    };
    if units == 0 {
        0.0
    } else {
        units as f64 * scale
    }
}

/// Exact weights per distinct score and label, each label's in units of its own
/// `2^quantum`.
#[derive(Clone, Debug, Default)]
pub struct WeightRuns {
    pub runs: Runs<Run<u128>>,
    /// The exponent of each label's unit (meaningful once a weight of it is held).
    pub quantum: PerLabel<i32>,
    /// Units held of each label (the sum of its counts).
    pub total: PerLabel<u128>,
    /// How far each label's counts are from its weights ([`Rounding`]).
    pub rounding: PerLabel<Rounding>,
}

/// The bits a sum of one label's counts may use (one more is left for the carries
/// of merges).
const WIDTH: i32 = 126;
/// Bits given up at once when the counts must be held in a coarser unit.
const SLACK: i32 = 32;

impl Run<u128> {
    /// The sum of each label's counts.
    pub fn totals(&self) -> PerLabel<u128> {
        let (pos, neg) = self
            .entries
            .iter()
            .fold((0, 0), |(p, n), e| (p + e.pos, n + e.neg));
        PerLabel { pos, neg }
    }
}

/// The unit of one label's counts that holds `total` units of `2^quantum` and `n`
/// more values with lowest bit `2^low` and highest below `2^high`: the finest whose
/// sums fit [`WIDTH`] bits.
fn unit_for(quantum: i32, total: u128, (low, high, n): (i32, i32, u128)) -> i32 {
    let mut q = if total == 0 { low } else { low.min(quantum) };
    // bits of the largest possible sum above the unit
    let held = if total == 0 {
        i32::MIN
    } else {
        bit_length(total) + quantum
    };
    let top = held.max(high) + bit_length(n) + 1;
    if top - q > WIDTH {
        // coarser by SLACK bits more than needed: weights that keep growing (a
        // decayed state) round the counts held once every SLACK bits of growth
        q = top - WIDTH + SLACK;
    }
    q
}

impl WeightRuns {
    /// Hold each label's counts in units of `2^quantum` of that label (rounded where
    /// it is a coarser unit).
    fn rescale(&mut self, quantum: PerLabel<i32>) {
        // by how many bits each label's counts grow (negative: shrink, rounded)
        let by = PerLabel {
            pos: self.quantum.pos - quantum.pos,
            neg: self.quantum.neg - quantum.neg,
        }
        .map(|positive, by| if self.total.of(positive) == 0 { 0 } else { by });
        self.quantum = quantum;
        if by == PerLabel::default() {
            return;
        }
        // each count that loses bits moves by less than one unit
        let mut moved = PerLabel::<u128>::default();
        self.runs.map_counts(
            |c| {
                moved.pos += u128::from(loses_bits(c, by.pos));
                scaled_kept(c, by.pos)
            },
            |c| {
                moved.neg += u128::from(loses_bits(c, by.neg));
                scaled_kept(c, by.neg)
            },
        );
        self.rounding = self.rounding.map(|positive, r| Rounding {
            low: r.low,
            lost: lost_in(r.lost, by.of(positive)) + moved.of(positive),
        });
        self.total = self.runs.stack.iter().fold(PerLabel::default(), |t, run| {
            let r = run.totals();
            PerLabel {
                pos: t.pos + r.pos,
                neg: t.neg + r.neg,
            }
        });
    }

    /// The unit of one label's weights of a batch alone ([`Spanning::span`] of them): the
    /// finest whose sums fit [`WIDTH`] bits, as a new state takes it.
    pub fn batch_unit(span: (i32, i32, u128)) -> i32 {
        unit_for(0, 0, span)
    }

    /// Add a batch of rows of positive finite weights (rows of weight 0 left out).
    pub fn add(&mut self, labels: &[i8], scores: &[f64], weights: &[f64]) {
        let spans = label_spans(labels.iter().map(|&l| l == 1).zip(weights.iter().copied()));
        if spans.pos.is_none() && spans.neg.is_none() {
            return;
        }
        let mut n = 0;
        let q = spans.map(|positive, s| {
            let held = self.quantum.of(positive);
            let Some(s) = s else {
                return held;
            };
            n += s.2;
            unit_for(held, self.total.of(positive), s)
        });
        self.rescale(q);
        let rows = (0..labels.len()).map(|i| (scores[i], labels[i] == 1, weights[i]));
        let mut items = Vec::new();
        let lost = sorted_rows(rows, n as usize, q, &mut items);
        self.rounding = self.rounding.map(|positive, r| {
            let low = spans.of(positive).map_or(i32::MAX, |s| s.0);
            r.and(low, lost.of(positive))
        });
        let rows = items
            .iter()
            .map(|&(key, word)| (key, word >> 63 == 1, unpacked_units(word)));
        let run = Run::from_sorted(rows, items.len());
        self.add_totals(run.totals());
        self.runs.push(run);
    }

    fn add_totals(&mut self, t: PerLabel<u128>) {
        self.total.pos += t.pos;
        self.total.neg += t.neg;
    }

    /// Divide every weight held by `2^by` (exact: only the units change).
    pub fn scale_down(&mut self, by: i32) {
        self.quantum.pos -= by;
        self.quantum.neg -= by;
        for positive in [true, false] {
            let low = &mut self.rounding.of_mut(positive).low;
            if *low != i32::MAX {
                *low -= by;
            }
        }
    }

    /// Whether every weight's bits were kept (each label's units span at most 126 bits).
    pub fn exact(&self) -> bool {
        self.rounding.pos.lost == 0 && self.rounding.neg.lost == 0
    }

    /// [`rounded_labels`] of this state.
    pub fn rounded(&self) -> PerLabel<Option<Rounded>> {
        rounded_labels(self.quantum, self.total, self.rounding)
    }

    /// Add another state's counts (each label's unit aligned with this one's).
    pub fn absorb(&mut self, other: &WeightRuns) {
        if other.total == PerLabel::default() {
            return;
        }
        let q = other.quantum.map(|positive, theirs| {
            let (mine, total) = (self.quantum.of(positive), other.total.of(positive));
            if total == 0 {
                return mine;
            }
            unit_for(
                mine,
                self.total.of(positive),
                (theirs, bit_length(total) + theirs, 1),
            )
        });
        self.rescale(q);
        // by how many bits the other's counts grow (a label it holds none of: 0)
        let by = other.quantum.map(|positive, theirs| {
            if other.total.of(positive) == 0 {
                0
            } else {
                theirs - q.of(positive)
            }
        });
        // the other's rounding in this state's units, and its counts that lose bits
        let mut lost = other
            .rounding
            .map(|positive, r| lost_in(r.lost, by.of(positive)));
        for mut run in other.runs.clone().into_runs() {
            if by != PerLabel::default() {
                for e in &mut run.entries {
                    lost.pos += u128::from(loses_bits(e.pos, by.pos));
                    lost.neg += u128::from(loses_bits(e.neg, by.neg));
                    e.pos = scaled_kept(e.pos, by.pos);
                    e.neg = scaled_kept(e.neg, by.neg);
                }
            }
            self.add_totals(run.totals());
            self.runs.push(run);
        }
        self.rounding = self
            .rounding
            .map(|positive, r| r.and(other.rounding.of(positive).low, lost.of(positive)));
    }

    /// How many bits a unit of the negatives is above one of the positives: a
    /// negative count `c` weighs `c 2^shift` positive units (0 without both labels).
    pub fn shift(&self) -> i64 {
        if self.total.pos == 0 || self.total.neg == 0 {
            0
        } else {
            i64::from(self.quantum.neg) - i64::from(self.quantum.pos)
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
        assert!(whole.exact() && merged.exact());
    }

    #[test]
    fn weights_beyond_the_width_are_rounded_and_said_so() {
        // one label's weights spanning more than 126 bits: its tiny ones rounded up to
        // a unit each, not to zero
        let mut w = WeightRuns::default();
        w.add(&[1, 1, 0], &[0.5, 0.25, 0.4], &[1e300, 3e-310, 1.0]);
        assert!(!w.exact());
        let (two_u, p, n) = w.runs.compact().pair_sum();
        assert_eq!(auc_of(two_u, p, n), 1.0);
        assert_eq!(w.total.neg, 1);
        let mut tiny = WeightRuns::default();
        tiny.add(&[1, 0, 0], &[0.5, 0.25, 0.75], &[1e-300, 1e-300, 2e-300]);
        assert!(tiny.exact());
        let (two_u, p, n) = tiny.runs.compact().pair_sum();
        assert!((auc_of(two_u, p, n) - 1.0 / 3.0).abs() < 1e-15);
        let mut huge = WeightRuns::default();
        huge.add(&[1, 0, 0], &[0.5, 0.25, 0.75], &[1e300, 1e300, 2e300]);
        assert!(huge.exact());
        let (two_u, p, n) = huge.runs.compact().pair_sum();
        assert!((auc_of(two_u, p, n) - 1.0 / 3.0).abs() < 1e-15);
    }

    /// The AUC of the state: `(2U, P, N)` rounded as the in-memory function rounds it.
    fn auc(w: &mut WeightRuns) -> f64 {
        let (two_u, p, n) = w.runs.compact().pair_sum();
        auc_of(two_u, p, n)
    }

    #[test]
    fn each_label_has_its_own_unit() {
        // tiny negatives beside huge positives: in one unit both negatives were one unit
        // each (equal), and the AUC 0.5; 1e50 / ((1e50 + 1) (1 + 1e-10)) rounded once is
        // 0.9999999999 (2U / (2 P N) rounded at each step was an ulp below)
        let mut w = WeightRuns::default();
        w.add(
            &[0, 1, 0, 1],
            &[0.9, 0.8, 0.7, 0.1],
            &[1e-10, 1e50, 1.0, 1.0],
        );
        assert_eq!(auc(&mut w), 0.9999999999);
        // each label within 126 bits and the labels 2^2000 apart: every bit kept, the
        // counts are the weights over each label's lowest bit
        let (big, tiny) = (2f64.powi(1000), 2f64.powi(-1000));
        let mut w = WeightRuns::default();
        w.add(
            &[1, 0, 0, 1],
            &[0.9, 0.8, 0.7, 0.1],
            &[3.0 * tiny, big, 3.0 * big, tiny],
        );
        assert!(w.exact());
        assert_eq!(
            w.quantum,
            PerLabel {
                pos: -1000,
                neg: 1000
            }
        );
        assert_eq!(w.total, PerLabel { pos: 4, neg: 4 });
        assert_eq!(w.shift(), 2000);
        // 2U = 3 (2 * 4) + 1 * 0 = 24: the AUC is 24 / (2 * 4 * 4) = 3/4
        assert_eq!(auc(&mut w), 0.75);
        // halved, the weights keep their units and every ratio
        w.scale_down(1);
        assert_eq!(
            w.quantum,
            PerLabel {
                pos: -1001,
                neg: 999
            }
        );
        assert_eq!((auc(&mut w), w.shift()), (0.75, 2000));
    }

    #[test]
    fn labels_apart_merge_in_any_order_exactly() {
        // each batch holds some rows of one label only: a label's unit comes from the
        // batches that hold it, and a state of one label takes the other's unit at merge
        let mut seed = 23;
        let (labels, scores, mut weights) = data(&mut seed, 1200);
        for (i, w) in weights.iter_mut().enumerate() {
            *w *= if labels[i] == 1 { 1e-290 } else { 1e280 };
        }
        let mut whole = WeightRuns::default();
        whole.add(&labels, &scores, &weights);
        assert!(whole.exact());
        let pos: Vec<usize> = (0..1200).filter(|&i| labels[i] == 1).collect();
        let neg: Vec<usize> = (0..1200).filter(|&i| labels[i] != 1).collect();
        let batch = |rows: &[usize]| {
            let mut part = WeightRuns::default();
            let pick = |v: &[f64]| rows.iter().map(|&i| v[i]).collect::<Vec<f64>>();
            let l: Vec<i8> = rows.iter().map(|&i| labels[i]).collect();
            part.add(&l, &pick(&scores), &pick(&weights));
            part
        };
        let parts = [batch(&pos), batch(&neg[..300]), batch(&neg[300..])];
        for order in [[0, 1, 2], [2, 1, 0], [1, 0, 2]] {
            let mut merged = WeightRuns::default();
            for k in order {
                merged.absorb(&parts[k]);
            }
            assert!(merged.exact());
            assert_eq!(merged.quantum, whole.quantum);
            assert_eq!(merged.total, whole.total);
            assert_eq!(merged.runs.compact(), whole.runs.compact());
        }
        // rows added to a state of the other label alone take the same units
        let mut added = batch(&neg);
        let l: Vec<i8> = pos.iter().map(|&i| labels[i]).collect();
        let pick = |v: &[f64]| pos.iter().map(|&i| v[i]).collect::<Vec<f64>>();
        added.add(&l, &pick(&scores), &pick(&weights));
        assert_eq!((added.quantum, added.exact()), (whole.quantum, true));
        assert_eq!(auc(&mut added), auc(&mut whole));
    }

    #[test]
    fn label_weights_are_their_exact_sums_rounded_once() {
        let sums = |labels: &[i8], weights: &[f64]| {
            let rows = labels.iter().zip(weights).map(|(&l, &w)| (0.5, l == 1, w));
            weighted_sums(rows, &mut Vec::new()).weights()
        };
        // 1 + 2^-53 + 2^-53: each float sum rounds the half ulp away, the exact one keeps it
        let half = 2f64.powi(-53);
        let w = sums(&[1, 1, 1, 0], &[1.0, half, half, 3.0]);
        assert_eq!((w.pos, w.neg), (1.0 + 2.0 * half, 3.0));
        assert_eq!(1.0 + half + half, 1.0);
        // subnormals: their sum is a float (a multiple of 2^-1074 below 2^-1022)
        let tiny = f64::from_bits(1);
        let w = sums(&[1, 1, 0], &[tiny, 3.0 * tiny, 2f64.powi(-1022)]);
        assert_eq!((w.pos, w.neg), (4.0 * tiny, 2f64.powi(-1022)));
        // past the largest float: inf; a label without weight: 0
        let w = sums(&[1, 1, 0], &[f64::MAX, f64::MAX, 0.0]);
        assert_eq!((w.pos, w.neg), (f64::INFINITY, 0.0));
        assert_eq!(weight_of_units(3, 1023), f64::INFINITY);
        assert_eq!(weight_of_units(3, -1074), 3.0 * tiny);
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
