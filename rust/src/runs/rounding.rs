//! How far a label's weight counts are from its weights: where one label's weights
//! span more than the 126 bits its counts hold, its unit is coarser than the lowest
//! bit of some weights and their counts are rounded ([`super::weights`]); a bound on
//! the units they moved is carried through every rescaling and merge, so that the
//! sums tell the Python layer which label was rounded, how far its weights span and
//! by how much the AUC may have moved.

use super::PerLabel;

/// How far one label's counts are from its weights: the lowest set bit of any of its
/// weights (`i32::MAX` for none) and a bound on the units by which its counts moved
/// where a unit coarser than that bit rounded them (0: every bit kept).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounding {
    pub low: i32,
    pub lost: u128,
}

impl Default for Rounding {
    fn default() -> Self {
        Rounding {
            low: i32::MAX,
            lost: 0,
        }
    }
}

impl Rounding {
    /// This label's rounding and that of more weights of it (`low`, `lost` units).
    pub(super) fn and(self, low: i32, lost: u128) -> Rounding {
        Rounding {
            low: self.low.min(low),
            lost: self.lost.saturating_add(lost),
        }
    }
}

/// One label's weights where their counts were rounded: the bits they span, from the
/// lowest set bit of the smallest to the top of their sum, and a bound on the share
/// of their sum that the rounding moved (the AUC moves by at most the sum of the two
/// labels' shares).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rounded {
    pub span: i32,
    pub share: f64,
}

/// [`Rounded`] of each label held in units of `2^quantum`, `total` of them, None for
/// a label whose counts kept every bit. The one report of rounded weights, of a
/// state and of the sums of a score range or a group alike.
pub fn rounded_labels(
    quantum: PerLabel<i32>,
    total: PerLabel<u128>,
    rounding: PerLabel<Rounding>,
) -> PerLabel<Option<Rounded>> {
    rounding.map(|positive, r| {
        let total = total.of(positive);
        (r.lost > 0 && total > 0).then(|| Rounded {
            span: (128 - total.leading_zeros()) as i32 + quantum.of(positive) - r.low,
            // a bound: the quotient of two roundings, rounded up by a few ulps
            share: (r.lost as f64 / total as f64 * (1.0 + 4.0 * f64::EPSILON)).min(1.0),
        })
    })
}

/// `lost` units of `2^q` as units of `2^(q - by)`, rounded up (`by` of any sign).
pub(super) fn lost_in(lost: u128, by: i32) -> u128 {
    match by {
        128.. => u128::MAX * u128::from(lost > 0),
        0.. => lost.saturating_mul(1 << by),
        ..=-128 => u128::from(lost > 0),
        _ => lost.div_ceil(1 << -by),
    }
}

/// Whether `count` loses a bit when `by` is negative (scaled by `2^by`).
pub(super) fn loses_bits(count: u128, by: i32) -> bool {
    count != 0 && by < 0 && (by <= -128 || count & ((1 << -by) - 1) != 0)
}

#[cfg(test)]
mod tests {
    use super::super::{weighted_sums, WeightRuns};
    use super::*;

    /// [`weighted_sums`] of positives of `pos` weights and negatives of `neg`, each
    /// row at its own score.
    fn sums_of(pos: &[f64], neg: &[f64]) -> super::super::WeightedSums {
        let label = |positive: bool| move |(i, &w): (usize, &f64)| (i as f64, positive, w);
        let rows = pos.iter().enumerate().map(label(true));
        weighted_sums(
            rows.chain(neg.iter().enumerate().map(label(false))),
            &mut Vec::new(),
        )
    }

    #[test]
    fn the_sums_say_which_label_was_rounded_and_by_how_much() {
        // two positives 1 and 2^-122: their sum (below 2^1) and its count (2 rows, 2
        // bits more, and one for the carries) fit 126 bits: every bit kept
        let fits = sums_of(&[1.0, 2f64.powi(-122)], &[3.0]);
        assert!(fits.exact());
        assert_eq!(
            fits.rounded(),
            PerLabel {
                pos: None,
                neg: None
            }
        );
        // 2^-123 does not: the unit coarsened to 2^-90, the tiny weight one unit,
        // moved by less than one of the 2^90 + 1 units held; 124 bits from 2^-123 to
        // the top of the sum, 2^1
        let over = sums_of(&[1.0, 2f64.powi(-123)], &[3.0]);
        assert!(!over.exact());
        assert_eq!(over.quantum.pos, -90);
        assert_eq!(over.rounding.pos, Rounding { low: -123, lost: 1 });
        let rounded = over.rounded();
        let pos = rounded.pos.unwrap();
        assert_eq!((pos.span, rounded.neg), (124, None));
        let share = 1.0 / (2f64.powi(90) + 1.0);
        assert!(pos.share >= share && pos.share < share * (1.0 + 1e-15));
        // the negatives as far apart: both labels said so
        // (2^-900 to the top of 2^900 + 2^-900, 2^901; 2^-200 to the top of 6 + 2^-200)
        let (big, tiny) = (2f64.powi(900), 2f64.powi(-900));
        let both = sums_of(&[big, tiny], &[1.0, 2f64.powi(-200), 5.0]);
        let r = both.rounded();
        assert!(r.pos.is_some_and(|p| p.span == 901 + 900 && p.share > 0.0));
        assert!(r.neg.is_some_and(|n| n.span == 3 + 200 && n.share < 1e-20));
        // the AUC moves by at most the share: the tiny positive, below every negative,
        // weighs 2^-1800 of the positives, rounded up to a unit of 2^810 (2^-90 of them)
        let rows = [(-10.0, true, tiny), (10.0, true, big), (0.0, false, 1.0)];
        let moved = weighted_sums(rows.into_iter(), &mut Vec::new());
        let share = moved.rounded().pos.unwrap().share;
        assert_eq!(moved.quantum.pos, 810);
        assert!(share >= 2f64.powi(-90) / (1.0 + 2f64.powi(-90)) && share < 2f64.powi(-89));
        let (exact, held) = (1.0 - 2f64.powi(-1800), 1.0 - 2f64.powi(-90));
        assert!((held - exact).abs() <= share);
    }

    #[test]
    fn a_state_carries_its_rounding_through_rescales_and_merges() {
        // the first batch fits; the second spans 1900 bits more: the counts held are
        // rescaled (each count losing bits moves by less than a unit), then the batch's
        // tiny weight rounded
        let mut w = WeightRuns::default();
        w.add(&[1, 0], &[0.5, 0.25], &[3.0 * 2f64.powi(-900), 1.0]);
        assert!(w.exact());
        w.add(&[1, 1], &[0.75, 0.1], &[2f64.powi(1000), 2f64.powi(-1000)]);
        assert!(!w.exact());
        let r = w.rounded();
        assert!(r.neg.is_none());
        let pos = r.pos.unwrap();
        assert_eq!(pos.span, 1001 + 1000);
        // two counts rounded (3 2^-900 and 2^-1000), one unit each at most, of the
        // units held
        assert_eq!(w.rounding.pos.lost, 2);
        assert_eq!(pos.share, {
            let share = 2.0 / w.total.pos as f64;
            (share * (1.0 + 4.0 * f64::EPSILON)).min(1.0)
        });
        // merged into an exact state, and an exact state merged into it: the rounding
        // stays told, in the merged state's units
        let mut exact = WeightRuns::default();
        exact.add(&[1, 0], &[0.3, 0.2], &[1.0, 1.0]);
        let mut into = exact.clone();
        into.absorb(&w);
        let mut from = w.clone();
        from.absorb(&exact);
        for merged in [&into, &from] {
            assert!(!merged.exact());
            assert_eq!(merged.rounded().pos.unwrap().span, 1001 + 1000);
            assert!(merged.rounded().neg.is_none());
        }
        // halved by a decay: the span and the share are the same
        let mut halved = w.clone();
        halved.scale_down(1);
        assert_eq!(halved.rounded(), w.rounded());
    }

    #[test]
    fn lost_units_are_rounded_up_into_a_coarser_unit() {
        assert_eq!(lost_in(5, -1), 3);
        assert_eq!(lost_in(4, -2), 1);
        assert_eq!(lost_in(3, 2), 12);
        assert_eq!(lost_in(3, -300), 1);
        assert_eq!(lost_in(0, -300), 0);
        assert_eq!(lost_in(1, 200), u128::MAX);
        assert!(loses_bits(5, -1) && !loses_bits(4, -2) && loses_bits(1, -200));
        assert!(!loses_bits(0, -5) && !loses_bits(3, 2));
    }
}
