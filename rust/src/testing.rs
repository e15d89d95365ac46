//! Fixed streams of values for the crate's tests (no crate for randomness): the
//! same values on every run and machine.

/// xorshift64: a stream of 64-bit words from `seed` (not 0).
pub(crate) fn stream(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// A linear congruential generator: the next 31-bit draw (the high bits of the
/// state, which `seed` holds).
pub(crate) fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

/// Floats of every magnitude from a stream of words: random bits, subnormals,
/// values near 1, integers (never infinite or NaN).
pub(crate) fn any_float(next: &mut impl FnMut() -> u64) -> f64 {
    let r = next();
    let x = match r % 4 {
        0 => f64::from_bits(next()),
        1 => f64::from_bits(next() >> 12) * if r & 8 == 0 { 1.0 } else { -1.0 },
        2 => (next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5,
        _ => (next() % 1000) as f64 - 500.0,
    };
    if x.is_finite() {
        x
    } else {
        1.5
    }
}
