//! The checks of the one-pass paths: input that the Python layer would accept
//! as it is, read in any NumPy dtype it takes.
//!
//! Each check answers `None` for a value the Python layer would refuse or convert
//! in a way these do not: the caller then takes the full path, which validates
//! again and names the bad value. A `Some` holds the same values the full path
//! computes with (0/1 labels as `i8`, scores as `f64`, integer group ids as `i64`).

use std::borrow::Cow;

/// A label dtype: 0/1 labels (and bools) read as `i8`.
pub trait Label: Copy + Sync {
    /// 0 or 1, or None for any other value.
    fn class(self) -> Option<i8>;
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
pub fn plain_weights(weights: &[f64]) -> bool {
    let mut top = 0.0f64;
    for &w in weights {
        if !(w >= 0.0 && w.is_finite()) {
            return false;
        }
        top = top.max(w);
    }
    (2f64.powi(-64)..=2f64.powi(64)).contains(&top)
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
