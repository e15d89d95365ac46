//! A natural log that vectorizes: fdlibm's `log` (the reduction to
//! `[sqrt(2)/2, sqrt(2))` and the rational approximation of `ln(1 + f)`, error below
//! 1 ulp), written without branches so that a loop of it compiles to SIMD code.
//!
//! It uses no fused multiply-add, so the scalar and the SIMD paths give the same
//! bits on every CPU; it differs from the platform's `f64::ln` by at most 1 ulp.

// fdlibm's constants, by their bits: ln 2 in two parts, the first with 11 trailing
// zero bits (k * LN2_HI is exact), and the coefficients of the approximation
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LG1: f64 = f64::from_bits(0x3fe5_5555_5555_5593);
const LG2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04);
const LG3: f64 = f64::from_bits(0x3fd2_4924_9422_9359);
const LG4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af);
const LG5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de);
const LG6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f);
const LG7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244);

/// Bits of the least positive normal float.
const MIN_NORMAL: u64 = 0x0010_0000_0000_0000;
/// Bits of +inf.
const INF: u64 = 0x7FF0_0000_0000_0000;
/// 2^52 + 1023: turns the biased exponent, read as the low bits of 2^52, into `k`.
const EXP_BIAS: f64 = 4_503_599_627_371_519.0;

/// `ln(x)`: `-inf` for zero, NaN for negative values and NaN, `+inf` for `+inf`.
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    // positive subnormals are scaled up by 2^54 (exact) and k lowered by 54
    let subnormal = bits.wrapping_sub(1) < MIN_NORMAL - 1;
    let y = if subnormal {
        x * 18_014_398_509_481_984.0
    } else {
        x
    };
    let b = y.to_bits();
    // the high word moved so that its exponent field is k + 1023 for the mantissa
    // in [sqrt(2)/2, sqrt(2))
    let hx = (b >> 32).wrapping_add(0x3ff0_0000 - 0x3fe6_a09e);
    let biased = (hx >> 20) & 0x7FF;
    let k = f64::from_bits(0x4330_0000_0000_0000 | biased)
        - EXP_BIAS
        - if subnormal { 54.0 } else { 0.0 };
    let m = f64::from_bits((((hx & 0x000f_ffff) + 0x3fe6_a09e) << 32) | (b & 0xffff_ffff));
    let f = m - 1.0;
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG2 + w * (LG4 + w * LG6));
    let t2 = z * (LG1 + w * (LG3 + w * (LG5 + w * LG7)));
    let r = t2 + t1;
    let value = s * (hfsq + r) + k * LN2_LO - hfsq + f + k * LN2_HI;
    // zero, negative values, infinities and NaN
    let special = if x == 0.0 {
        f64::NEG_INFINITY
    } else if bits == INF {
        f64::INFINITY
    } else {
        f64::NAN
    };
    if bits.wrapping_sub(1) < INF - 1 {
        value
    } else {
        special
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance in ulps between two finite floats of the same sign.
    fn ulps(a: f64, b: f64) -> u64 {
        let key = |x: f64| {
            let b = x.to_bits() as i64;
            if b < 0 {
                i64::MIN - b
            } else {
                b
            }
        };
        key(a).abs_diff(key(b))
    }

    fn check(x: f64) {
        let (got, want) = (ln(x), x.ln());
        if want.is_nan() {
            assert!(got.is_nan(), "ln({x:e}) = {got:e}, want NaN");
        } else if want.is_infinite() || want == 0.0 {
            assert_eq!(got.to_bits(), want.to_bits(), "ln({x:e})");
        } else {
            assert!(ulps(got, want) <= 1, "ln({x:e}) = {got:e}, libm {want:e}");
        }
    }

    #[test]
    fn edge_values_are_within_one_ulp_of_libm() {
        let tiny = f64::from_bits(1);
        let mut xs = vec![
            0.0,
            -0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            tiny,
            f64::from_bits(MIN_NORMAL - 1),
            f64::MIN_POSITIVE,
            1e-300,
            1e-310,
            f64::EPSILON,
            f64::EPSILON / 2.0,
            0.5,
            1.0,
            1.0 - f64::EPSILON,
            1.0 - f64::EPSILON / 2.0,
            1.0 + f64::EPSILON,
            std::f64::consts::SQRT_2,
            std::f64::consts::FRAC_1_SQRT_2,
            std::f64::consts::E,
            f64::MAX,
            f32::EPSILON as f64,
            1.0 - f32::EPSILON as f64,
        ];
        // the floats around every power of two and around sqrt(2) times it
        for e in -1074i64..=1023 {
            let p = if e >= -1022 {
                f64::from_bits(((e + 1023) as u64) << 52)
            } else {
                f64::from_bits(1 << (e + 1074))
            };
            let b = p.to_bits();
            xs.extend([p, f64::from_bits(b + 1), f64::from_bits(b - 1)]);
            let r = p * std::f64::consts::SQRT_2;
            if r.is_finite() && r > 0.0 {
                let b = r.to_bits();
                xs.extend([r, f64::from_bits(b + 1), f64::from_bits(b - 1)]);
            }
        }
        for x in xs {
            check(x);
        }
    }

    #[test]
    fn random_values_are_within_one_ulp_of_libm() {
        let mut next = crate::testing::stream(0x2545_F491_4F6C_DD1D);
        for i in 0..3_000_000u64 {
            let x = match i % 3 {
                0 => f64::from_bits(next() >> 1), // any positive float
                1 => (next() >> 11) as f64 / (1u64 << 53) as f64, // [0, 1)
                _ => 1.0 - (next() >> 11) as f64 / (1u64 << 60) as f64, // near 1
            };
            check(x);
        }
    }
}
