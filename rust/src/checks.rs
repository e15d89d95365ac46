//! The checks of the one-pass paths: input that the Python layer would accept
//! as it is, read in any NumPy dtype it takes.
//!
//! Each check answers `None` for a value the Python layer would refuse or convert
//! in a way these do not. A `Some` holds the same values the full path computes
//! with (0/1 labels as `i8`, scores as `f64`, integer group ids as `i64`). Where a
//! check refused a value that the Python layer refuses, the `*_refusal` functions
//! say why, in the order of the Python layer's checks: a [`Refusal`], which the
//! Python layer turns into its message (`_validation.refused`).

use std::borrow::Cow;

/// A label dtype: 0/1 labels (and bools) read as `i8`.
pub trait Label: Copy + Sync {
    /// 0 or 1, or None for any other value.
    fn class(self) -> Option<i8>;
    /// Whether the value is a missing one (a float NaN).
    #[inline(always)]
    fn missing(self) -> bool {
        false
    }
}

macro_rules! integer_label {
    ($($t:ty),*) => {$(
        impl Label for $t {
            #[inline(always)]
            fn class(self) -> Option<i8> {
                match self {
                    0 => Some(0),
                    1 => Some(1),
                    _ => None,
                }
            }
        }
    )*};
}
integer_label!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Label for bool {
    #[inline(always)]
    fn class(self) -> Option<i8> {
        Some(self as i8)
    }
}

macro_rules! float_label {
    ($($t:ty),*) => {$(
        impl Label for $t {
            #[inline(always)]
            fn class(self) -> Option<i8> {
                if self == 0.0 {
                    Some(0) // -0.0 too
                } else if self == 1.0 {
                    Some(1)
                } else {
                    None
                }
            }
            #[inline(always)]
            fn missing(self) -> bool {
                self.is_nan()
            }
        }
    )*};
}
float_label!(f32, f64);

/// 0/1 labels as `i8`, or None when one is neither.
pub fn labels01<L: Label>(labels: &[L]) -> Option<Vec<i8>> {
    labels.iter().map(|&l| l.class()).collect()
}

/// A score dtype: read as `f64` (exactly: `f32` widens without rounding).
pub trait Score: Copy {
    /// The `f64` of the value.
    fn to_f64(self) -> f64;
    /// The values as `f64`, borrowed when they are `f64` already.
    fn as_f64(values: &[Self]) -> Cow<'_, [f64]>;
}

impl Score for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    fn as_f64(values: &[f64]) -> Cow<'_, [f64]> {
        Cow::Borrowed(values)
    }
}

impl Score for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn as_f64(values: &[f32]) -> Cow<'_, [f64]> {
        Cow::Owned(values.iter().map(|&x| x as f64).collect())
    }
}

/// Finite scores as `f64`, or None when one is NaN or infinite.
pub fn finite<S: Score>(scores: &[S]) -> Option<Cow<'_, [f64]>> {
    if scores.iter().all(|&s| s.to_f64().is_finite()) {
        Some(S::as_f64(scores))
    } else {
        None
    }
}

/// Sample weights the full path uses unchanged: finite, non-negative, the largest
/// in `[2^-64, 2^64]` (outside it the full path rescales them by a power of two).
/// One pass of the smallest, the largest and whether a NaN, in eight lanes without
/// a branch a row (it vectorizes).
pub fn plain_weights(weights: &[f64]) -> bool {
    const LANES: usize = 8;
    let (mut lo, mut hi, mut nan) = ([0.0f64; LANES], [0.0f64; LANES], [0u64; LANES]);
    let step = |lo: &mut f64, hi: &mut f64, nan: &mut u64, w: f64| {
        *lo = if w < *lo { w } else { *lo };
        *hi = if w > *hi { w } else { *hi };
        *nan |= w.is_nan() as u64;
    };
    let mut lanes = weights.chunks_exact(LANES);
    for chunk in &mut lanes {
        for (((lo, hi), nan), &w) in lo.iter_mut().zip(&mut hi).zip(&mut nan).zip(chunk) {
            step(lo, hi, nan, w);
        }
    }
    for (((lo, hi), nan), &w) in lo
        .iter_mut()
        .zip(&mut hi)
        .zip(&mut nan)
        .zip(lanes.remainder())
    {
        step(lo, hi, nan, w);
    }
    let lo = lo.iter().fold(0.0f64, |a, &b| a.min(b));
    let hi = hi.iter().fold(0.0f64, |a, &b| a.max(b));
    // -0.0 is not below 0.0; an infinity is the largest or the smallest
    nan.iter().all(|&n| n == 0) && lo >= 0.0 && (2f64.powi(-64)..=2f64.powi(64)).contains(&hi)
}

/// How many values a [`Refusal`] shows at most: one more than the Python layer's
/// messages show, which then end their list with "...".
pub const SHOWN: usize = 6;

/// Which check of the Python layer refuses a column (`_validation.py` names each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Labels holding a NaN (`check_no_missing`): `count` of them, the first at `row`.
    Missing,
    /// Labels other than 0 and 1 (`check_binary01`), the first at `row`; no
    /// `values`: the message shows the distinct labels as NumPy's `unique` gives
    /// them, whose sign of a zero (0.0 or -0.0) its sort decides.
    Binary01,
    /// A NaN or an infinity (`check_finite`), the first at `row`.
    Finite,
    /// Probabilities outside [0, 1] (`check_probabilities`): `values` the smallest
    /// distinct of them, the first at `row`.
    Probability,
    /// Negative weights (`check_sample_weight`): `values` the smallest distinct of
    /// them, the first at `row`.
    Negative,
}

impl Kind {
    /// The name the Python layer reads.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Missing => "missing",
            Kind::Binary01 => "binary01",
            Kind::Finite => "finite",
            Kind::Probability => "probability",
            Kind::Negative => "negative",
        }
    }
}

/// Why the Python layer refuses a column: the check, the argument (its position
/// among the call's data arguments), the first bad row, how many rows are bad
/// ([`Kind::Missing`]; else 0) and the values shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub kind: Kind,
    pub argument: usize,
    pub row: usize,
    pub count: usize,
    pub values: Vec<f64>,
}

impl Refusal {
    fn at(kind: Kind, argument: usize, row: usize) -> Self {
        Refusal {
            kind,
            argument,
            row,
            count: 0,
            values: Vec::new(),
        }
    }
}

/// The [`SHOWN`] smallest distinct values, in order, in one pass that keeps at most
/// [`SHOWN`] of them (no sort of them all): the examples a message shows, the same
/// whatever the order of `values`. For floats (without a zero: NumPy's sort decides
/// the sign of a zero it shows) as NumPy's `unique` gives them; for byte strings in
/// byte order, which for UTF-8 text is Python's order of `str`
/// (`receval.data.seen.smallest_ids`).
pub fn smallest_distinct<T: PartialOrd + Copy>(values: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(SHOWN + 1);
    for v in values {
        if out.len() == SHOWN && v >= out[SHOWN - 1] {
            continue;
        }
        match out.iter().position(|o| *o >= v) {
            Some(i) if out[i] == v => {}
            Some(i) => {
                out.insert(i, v);
                out.truncate(SHOWN);
            }
            None => out.push(v),
        }
    }
    out
}

/// Why labels that [`labels01`] refuses are refused (`argument`: their position):
/// NaN first, then values other than 0 and 1; None when every label is 0 or 1.
pub fn labels_refusal<L: Label>(labels: &[L], argument: usize) -> Option<Refusal> {
    let row = labels.iter().position(|&l| l.class().is_none())?;
    if let Some(first) = labels.iter().position(|&l| l.missing()) {
        let mut refusal = Refusal::at(Kind::Missing, argument, first);
        refusal.count = labels.iter().filter(|&&l| l.missing()).count();
        return Some(refusal);
    }
    Some(Refusal::at(Kind::Binary01, argument, row))
}

/// Why scores that [`finite`] refuses are refused: the first NaN or infinity.
pub fn finite_refusal<S: Score>(scores: &[S], argument: usize) -> Option<Refusal> {
    let row = scores.iter().position(|&s| !s.to_f64().is_finite())?;
    Some(Refusal::at(Kind::Finite, argument, row))
}

/// Why probabilities are refused: a NaN or infinity first, then values outside
/// [0, 1]; None when every one is in [0, 1].
pub fn probabilities_refusal<S: Score>(proba: &[S], argument: usize) -> Option<Refusal> {
    if let Some(refusal) = finite_refusal(proba, argument) {
        return Some(refusal);
    }
    let outside = |&s: &S| !(0.0..=1.0).contains(&s.to_f64());
    let row = proba.iter().position(outside)?;
    let mut refusal = Refusal::at(Kind::Probability, argument, row);
    let values = proba.iter().filter(|s| outside(s));
    refusal.values = smallest_distinct(values.map(|&s| s.to_f64()));
    Some(refusal)
}

/// Why sample weights are refused: a NaN or infinity first, then negative weights;
/// None when all are finite and non-negative (whatever their scale).
pub fn weights_refusal(weights: &[f64], argument: usize) -> Option<Refusal> {
    if let Some(refusal) = finite_refusal(weights, argument) {
        return Some(refusal);
    }
    let row = weights.iter().position(|&w| w < 0.0)?;
    let mut refusal = Refusal::at(Kind::Negative, argument, row);
    let values = weights.iter().filter(|&&w| w < 0.0);
    refusal.values = smallest_distinct(values.copied());
    Some(refusal)
}

/// A group id dtype: whole numbers read as `i64`.
pub trait GroupId: Copy {
    /// The id as `i64`, or None for an id the full path encodes otherwise
    /// (a float that is not a whole number below 2^53, an integer from 2^63 on).
    fn id(self) -> Option<i64>;
    /// The ids as `i64`, borrowed when they are `i64` already; None when one has no
    /// `i64` id.
    fn ids(values: &[Self]) -> Option<Cow<'_, [i64]>> {
        values
            .iter()
            .map(|&v| v.id())
            .collect::<Option<Vec<i64>>>()
            .map(Cow::Owned)
    }
}

impl GroupId for i64 {
    #[inline(always)]
    fn id(self) -> Option<i64> {
        Some(self)
    }
    fn ids(values: &[i64]) -> Option<Cow<'_, [i64]>> {
        Some(Cow::Borrowed(values))
    }
}

macro_rules! integer_id {
    ($($t:ty),*) => {$(
        impl GroupId for $t {
            #[inline(always)]
            fn id(self) -> Option<i64> {
                i64::try_from(self).ok()
            }
        }
    )*};
}
integer_id!(i8, i16, i32, u8, u16, u32, u64);

impl GroupId for bool {
    #[inline(always)]
    fn id(self) -> Option<i64> {
        Some(self as i64)
    }
}

macro_rules! float_id {
    ($($t:ty),*) => {$(
        impl GroupId for $t {
            #[inline(always)]
            fn id(self) -> Option<i64> {
                // NaN and infinity fail both tests
                if self == self.floor() && self.abs() < 9_007_199_254_740_992.0 {
                    Some(self as i64)
                } else {
                    None
                }
            }
        }
    )*};
}
float_id!(f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smallest_distinct_keeps_the_smallest_whatever_the_order() {
        let ids: [&[u8]; 9] = [
            b"u9", b"u8", b"u10", b"u7", b"u8", b"U1", b"u2", b"u10", b"u3",
        ];
        let expected: Vec<&[u8]> = vec![b"U1", b"u10", b"u2", b"u3", b"u7", b"u8"];
        assert_eq!(smallest_distinct(ids), expected);
        assert_eq!(smallest_distinct(ids.iter().rev().copied()), expected);
        assert_eq!(smallest_distinct([3.0, 1.0, 3.0]), vec![1.0, 3.0]);
    }

    #[test]
    fn labels_of_every_dtype() {
        assert_eq!(labels01(&[0i64, 1, 1]), Some(vec![0, 1, 1]));
        assert_eq!(labels01(&[true, false]), Some(vec![1, 0]));
        assert_eq!(labels01(&[-0.0f64, 1.0]), Some(vec![0, 1]));
        assert_eq!(labels01(&[0u8, 2]), None);
        assert_eq!(labels01(&[-1i32, 1]), None);
        assert_eq!(labels01(&[0.5f32, 1.0]), None);
        assert_eq!(labels01(&[f64::NAN]), None);
    }

    #[test]
    fn scores_must_be_finite() {
        assert_eq!(finite(&[0.5f32, -2.0]).unwrap().as_ref(), &[0.5, -2.0]);
        assert!(finite(&[0.5, f64::NAN]).is_none());
        assert!(finite(&[f32::INFINITY]).is_none());
    }

    #[test]
    fn weights_the_full_path_keeps() {
        assert!(plain_weights(&[0.0, 1.0, 3.5]));
        assert!(!plain_weights(&[0.0, 0.0])); // all zero
        assert!(!plain_weights(&[1.0, -1.0]));
        assert!(!plain_weights(&[1.0, f64::NAN]));
        assert!(!plain_weights(&[1e30])); // rescaled by the full path
        assert!(plain_weights(&[2f64.powi(64)]));
    }

    #[test]
    fn plain_weights_in_every_lane() {
        for n in 1..20 {
            for bad in 0..n {
                let mut w = vec![1.0; n];
                w[bad] = f64::NAN;
                assert!(!plain_weights(&w));
                w[bad] = -0.5;
                assert!(!plain_weights(&w));
                w[bad] = f64::INFINITY;
                assert!(!plain_weights(&w));
                w[bad] = 1e30; // the largest decides the scale
                assert!(!plain_weights(&w));
                w[bad] = 3.0;
                assert!(plain_weights(&w));
            }
        }
        assert!(plain_weights(&[-0.0, 1.0]));
    }

    #[test]
    fn refusals_say_which_check_and_where() {
        assert_eq!(labels_refusal(&[0i64, 1, 1], 0), None);
        let r = labels_refusal(&[0i64, 1, 7, 2, 7, -3], 0).unwrap();
        assert_eq!((r.kind, r.row, r.values.len()), (Kind::Binary01, 2, 0));
        assert_eq!(labels_refusal(&[1, u64::MAX], 0).unwrap().row, 1);
        // NaN before any other bad label
        let r = labels_refusal(&[0.0, 2.0, f64::NAN, 1.0, f64::NAN], 0).unwrap();
        assert_eq!((r.kind, r.row, r.count), (Kind::Missing, 2, 2));
        let r = labels_refusal(&[-0.0f32, 0.5, 0.0], 1).unwrap();
        assert_eq!((r.kind, r.argument, r.row), (Kind::Binary01, 1, 1));
        let many: Vec<f64> = (0..20).map(|i| -(i as f64)).collect();
        let r = weights_refusal(&many, 2).unwrap();
        let smallest: Vec<f64> = (14..20).rev().map(|i| -(i as f64)).collect();
        assert_eq!((r.row, r.values), (1, smallest));

        let r = probabilities_refusal(&[0.5, 1.5, f64::INFINITY], 1).unwrap();
        assert_eq!((r.kind, r.row), (Kind::Finite, 2));
        let r = probabilities_refusal(&[0.5f32, 1.5, -1.0, 1.5], 1).unwrap();
        assert_eq!((r.kind, r.row), (Kind::Probability, 1));
        assert_eq!(r.values, [-1.0, 1.5]);
        assert_eq!(probabilities_refusal(&[0.0, 1.0, -0.0], 1), None);

        let r = weights_refusal(&[1.0, -2.0, -1.0, -2.0], 2).unwrap();
        assert_eq!((r.kind, r.row), (Kind::Negative, 1));
        assert_eq!(r.values, [-2.0, -1.0]);
        let r = weights_refusal(&[-1.0, f64::NAN], 2).unwrap();
        assert_eq!((r.kind, r.row), (Kind::Finite, 1));
        assert_eq!(weights_refusal(&[0.0, 0.0, 1e300], 2), None);
    }

    #[test]
    fn group_ids() {
        assert_eq!(
            GroupId::ids(&[3.0f64, -0.0, 7.0]).unwrap().as_ref(),
            &[3, 0, 7]
        );
        assert!(GroupId::ids(&[0.5f64]).is_none());
        assert!(GroupId::ids(&[f64::NAN]).is_none());
        assert!(GroupId::ids(&[9_007_199_254_740_992.0f64]).is_none());
        assert!(GroupId::ids(&[u64::MAX]).is_none());
        assert_eq!(GroupId::ids(&[u64::MAX >> 1]).unwrap()[0], i64::MAX);
        assert_eq!(GroupId::ids(&[true, false]).unwrap().as_ref(), &[1, 0]);
    }
}
