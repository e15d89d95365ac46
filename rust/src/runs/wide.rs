//! Exact integers below 2**256 (twice a weighted U in weight units, and the pairs
//! `P N`) and their quotient rounded once to a float.

/// An unsigned integer below 2**256, as its low and high 128 bits: an exact sum of
/// products of two `u128`s (twice a weighted U in weight units).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct U256 {
    pub lo: u128,
    pub hi: u128,
}

impl From<u128> for U256 {
    fn from(lo: u128) -> Self {
        U256 { lo, hi: 0 }
    }
}

impl U256 {
    /// `a * b`, exact.
    pub fn product(a: u128, b: u128) -> Self {
        let (lo, hi) = wide_mul(a, b);
        U256 { lo, hi }
    }

    /// Bits of the value (0 for 0).
    fn bits(self) -> u32 {
        if self.hi != 0 {
            256 - self.hi.leading_zeros()
        } else {
            128 - self.lo.leading_zeros()
        }
    }

    /// The value times `2^s` (`s` below 256), its bits past 2**256 dropped.
    fn shl(self, s: u32) -> Self {
        match s {
            0 => self,
            1..=127 => U256 {
                lo: self.lo << s,
                hi: (self.hi << s) | (self.lo >> (128 - s)),
            },
            _ => U256 {
                lo: 0,
                hi: self.lo << (s - 128),
            },
        }
    }

    /// `self >= other`.
    fn at_least(self, other: Self) -> bool {
        (self.hi, self.lo) >= (other.hi, other.lo)
    }

    /// `self - other` modulo 2**256.
    fn wrapping_sub(self, other: Self) -> Self {
        let (lo, borrow) = self.lo.overflowing_sub(other.lo);
        U256 {
            lo,
            hi: self
                .hi
                .wrapping_sub(other.hi)
                .wrapping_sub(u128::from(borrow)),
        }
    }

    /// Add `a * b` (the sum must stay below 2**256).
    #[inline(always)]
    pub fn add_product(&mut self, a: u128, b: u128) {
        let (plo, phi) = if (a | b) >> 64 == 0 {
            (a * b, 0) // both below 2**64: one multiply
        } else {
            wide_mul(a, b)
        };
        let (sum, carry) = self.lo.overflowing_add(plo);
        self.lo = sum;
        self.hi += phi + u128::from(carry);
    }

    /// The value rounded to the nearest float (ties to even), as Python's
    /// `float(int)` rounds it.
    pub fn to_f64(self) -> f64 {
        if self.hi == 0 {
            return self.lo as f64;
        }
        let lz = self.hi.leading_zeros();
        // the top 128 bits, and whether any bit below them is set (a sticky bit far
        // below the rounding position: the same rounding as the whole integer's)
        let (top, rest) = if lz == 0 {
            (self.hi, self.lo)
        } else {
            ((self.hi << lz) | (self.lo >> (128 - lz)), self.lo << lz)
        };
        let scale = f64::from_bits(u64::from(1023 + 128 - lz) << 52); // 2**(128 - lz)
        (top | u128::from(rest != 0)) as f64 * scale
    }
}

/// `num / den` rounded once to the nearest float (ties to even), as Python's
/// `float(Fraction(num, den))` rounds it (`den` not zero; a quotient from 2**-700 to
/// 2**700, as any of two integers below 2**256 is).
///
/// The two integers are aligned to one bit length, so that their quotient lies in
/// (1/2, 2); 56 bits of it are taken by long division, and the remainder left, if
/// not zero, sets the lowest bit (a sticky bit two places or more below the last
/// bit a float keeps): the conversion of those 56 bits to a float is then the one
/// rounding of the exact quotient, and the power of two that scales it is exact.
pub fn ratio(num: U256, den: U256) -> f64 {
    assert!(den != U256::default(), "ratio: a zero denominator");
    if num == U256::default() {
        return 0.0;
    }
    let (nb, db) = (num.bits(), den.bits());
    let (mut r, d) = if nb >= db {
        (num, den.shl(nb - db))
    } else {
        (num.shl(db - nb), den)
    };
    // r < 2d throughout: a bit of the quotient is r >= d (with the carry out of r's
    // doubling, r is past 2**256 and so above d), then r - d < d is doubled
    let mut q: u64 = 0;
    let mut carry = false;
    for _ in 0..56 {
        let bit = carry || r.at_least(d);
        if bit {
            r = r.wrapping_sub(d);
        }
        q = q << 1 | u64::from(bit);
        carry = r.hi >> 127 == 1;
        r = r.shl(1);
    }
    let sticky = u64::from(carry || r != U256::default());
    // the quotient is q 2^(nb - db - 55), its remainder below the lowest bit of q
    let exponent = nb as i32 - db as i32 - 55;
    let scale = f64::from_bits(((1023 + exponent) as u64) << 52);
    (q | sticky) as f64 * scale
}

/// `a * b` as the low and high 128 bits.
pub fn wide_mul(a: u128, b: u128) -> (u128, u128) {
    const LOW: u128 = (1 << 64) - 1;
    let (a0, a1, b0, b1) = (a & LOW, a >> 64, b & LOW, b >> 64);
    let (low, mid1, mid2, high) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (low >> 64) + (mid1 & LOW) + (mid2 & LOW);
    let lo = (low & LOW) | (mid << 64);
    let hi = high + (mid1 >> 64) + (mid2 >> 64) + (mid >> 64);
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_products_carry() {
        let max = u128::MAX;
        assert_eq!(wide_mul(max, max), (1, max - 1));
        assert_eq!(wide_mul(1 << 100, 1 << 100), (0, 1 << 72));
        assert_eq!(wide_mul(3, 5), (15, 0));
        let mut sum = U256::default();
        sum.add_product(max, 1);
        sum.add_product(1, 1); // carries into the high half
        assert_eq!((sum.lo, sum.hi), (0, 1));
    }

    #[test]
    fn wide_sums_round_once_to_nearest_even() {
        let f = |lo: u128, hi: u128| U256 { lo, hi }.to_f64();
        assert_eq!(f(5, 0), 5.0);
        assert_eq!(f(0, 1), 2f64.powi(128));
        assert_eq!(f(0, 1 << 100), 2f64.powi(228));
        assert_eq!(f(u128::MAX, u128::MAX), 2f64.powi(256));
        // 2**128 + 2**75 is halfway between two floats: to even (down); a bit far
        // below breaks the tie (up), which rounding the high half alone would miss
        let ulp = 2f64.powi(128 - 52);
        assert_eq!(f(1 << 75, 1), 2f64.powi(128));
        assert_eq!(f((1 << 75) | 1, 1), 2f64.powi(128) + ulp);
        assert_eq!(f(3 << 75, 1), 2f64.powi(128) + 2.0 * ulp);
        // a high half shifted by any amount
        for k in 0..128 {
            let hi = 1u128 << k;
            assert_eq!(f(1 << 127, hi), 2f64.powi(128 + k) + 2f64.powi(127), "{k}");
        }
    }

    #[test]
    fn ratios_round_once_to_nearest_even() {
        let wide = |x: u128| U256::from(x);
        // integers below 2**53 are floats: their quotient is the float division's, and
        // so is that of both times any common factor (up to 2**128: past 2**256)
        let mut seed = 17;
        for _ in 0..20_000 {
            let mut next = || crate::testing::lcg(&mut seed);
            let (a, b) = (
                next() >> (11 + next() % 53),
                (next() >> (11 + next() % 53)).max(1),
            );
            let c = ((u128::from(next()) << 64 | u128::from(next())) >> (next() % 128)).max(1);
            let want = a as f64 / b as f64;
            assert_eq!(ratio(wide(a.into()), wide(b.into())), want, "{a} / {b}");
            let (ac, bc) = (U256::product(a.into(), c), U256::product(b.into(), c));
            assert_eq!(ratio(ac, bc), want, "{a} c / {b} c, c = {c}");
        }
        // (2**53 + 1) / 2 and (2**53 + 3) / 2 are halfway between two floats: to even
        let top = 1u128 << 53;
        assert_eq!(ratio(wide(top + 1), wide(2)), 2f64.powi(52));
        assert_eq!(ratio(wide(top + 3), wide(2)), 2f64.powi(52) + 2.0);
        // a remainder far below breaks the tie upwards
        let past = U256::product(top + 1, 1 << 100);
        let above = U256 {
            lo: past.lo + 1,
            hi: past.hi,
        };
        assert_eq!(ratio(past, wide(1 << 101)), 2f64.powi(52));
        assert_eq!(ratio(above, wide(1 << 101)), 2f64.powi(52) + 1.0);
        // 1/3 and 2/3 of 2**255-wide integers; numerators past 2**255 (a carry out of
        // the remainder's doubling)
        let third = U256::product(u128::MAX, u128::MAX / 3);
        let whole = U256::product(u128::MAX, u128::MAX);
        assert_eq!(ratio(third, whole), 1.0 / 3.0);
        assert_eq!(ratio(whole, third), 3.0);
        assert_eq!(ratio(whole, whole), 1.0);
        let less = U256 {
            lo: whole.lo - 1,
            hi: whole.hi,
        };
        assert_eq!(ratio(less, whole), 1.0);
        assert_eq!(
            ratio(wide(1), whole),
            2f64.powi(-256) * (1.0 + 2f64.powi(-127))
        );
        assert_eq!(ratio(U256::default(), whole), 0.0);
    }
}
