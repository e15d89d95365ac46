//! An in-place radix sort of unsigned keys (most significant digit first, the
//! "American flag" sort): each level counts the keys of a bucket by a digit of 8
//! bits and moves them into place by swaps, then sorts each sub-bucket; a bucket of
//! at most [`SMALL`] keys is sorted by the `radsort` crate (through a copy of it).
//! So the memory beside the keys is at most [`SMALL`] keys, where a least
//! significant digit radix sort takes a copy of them all; measured as fast on
//! float64 keys, about 1.5 times slower on float32 keys (four digits, which the
//! other sort passes in four reads).

/// Unsigned keys sorted by digits: `u64` and `u32`.
pub trait Digits: radsort::Key + Copy + Ord {
    /// The digit of [`BITS`] bits from bit `shift` up.
    fn digit(self, shift: u32) -> usize;
    /// How many low bits hold every bit where `a` and `b` differ.
    fn differ(a: Self, b: Self) -> u32;
}

impl Digits for u64 {
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & MASK) as usize
    }
    fn differ(a: Self, b: Self) -> u32 {
        u64::BITS - (a ^ b).leading_zeros()
    }
}

impl Digits for u32 {
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & MASK as u32) as usize
    }
    fn differ(a: Self, b: Self) -> u32 {
        u32::BITS - (a ^ b).leading_zeros()
    }
}

/// Bits of a digit.
const BITS: u32 = 8;
const MASK: u64 = (1 << BITS) - 1;
const RADIX: usize = 1 << BITS;

/// The largest bucket sorted through a copy (512 KiB of 8-byte keys: in L2).
pub const SMALL: usize = 1 << 16;

/// Sort `keys` ascending in place, at most [`SMALL`] keys copied at a time.
pub fn sort<K: Digits>(keys: &mut [K]) {
    sort_from(keys, SMALL);
}

/// [`sort`], buckets of at most `small` keys through a copy (tests take a small one
/// to reach deep levels with few keys).
pub(crate) fn sort_from<K: Digits>(keys: &mut [K], small: usize) {
    if keys.len() <= small {
        radsort::sort(keys);
        return;
    }
    // the first digit ends at the highest bit where two keys differ
    let (mut low, mut high) = (keys[0], keys[0]);
    for &k in keys.iter() {
        low = low.min(k);
        high = high.max(k);
    }
    let bits = K::differ(low, high);
    if bits > 0 {
        level(keys, bits.saturating_sub(BITS), small);
    }
}

/// Sort a bucket whose keys agree above bit `shift + BITS` by the digit at `shift`,
/// then each sub-bucket by the digits below.
fn level<K: Digits>(keys: &mut [K], shift: u32, small: usize) {
    if keys.len() <= small {
        radsort::sort(keys);
        return;
    }
    let mut counts = [0usize; RADIX];
    for &k in keys.iter() {
        counts[k.digit(shift)] += 1;
    }
    // the digit below (overlapping this one at the bottom: bits a bucket shares)
    let next = (shift > 0).then(|| shift.saturating_sub(BITS));
    if !counts.contains(&keys.len()) {
        let (mut heads, mut ends) = ([0usize; RADIX], [0usize; RADIX]);
        let mut at = 0;
        for d in 0..RADIX {
            heads[d] = at;
            at += counts[d];
            ends[d] = at;
        }
        for d in 0..RADIX {
            // each key read from the head of bucket d goes to the head of its own
            // bucket, whose key it displaces, until one of bucket d comes back
            while heads[d] < ends[d] {
                let mut k = keys[heads[d]];
                let mut own = k.digit(shift);
                while own != d {
                    std::mem::swap(&mut k, &mut keys[heads[own]]);
                    heads[own] += 1;
                    own = k.digit(shift);
                }
                keys[heads[d]] = k;
                heads[d] += 1;
            }
        }
    }
    if let Some(next) = next {
        let mut start = 0;
        for &c in &counts {
            if c > 1 {
                level(&mut keys[start..start + c], next, small);
            }
            start += c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::lcg;

    #[test]
    fn sorts_as_the_standard_sort_at_every_depth() {
        let mut seed = 5;
        for n in [0, 1, 2, 3, 40, 257, 1000, 5000] {
            for kind in 0..5 {
                let v: Vec<u64> = (0..n)
                    .map(|_| {
                        let r = lcg(&mut seed);
                        match kind {
                            0 => r.wrapping_mul(0x9e37_79b9_7f4a_7c15), // every bit
                            1 => r % 5,                                 // ties
                            2 => (1 << 63) | (r % 1000) << 20,          // a shared top
                            3 => u64::MAX - r % 3,                      // the top keys
                            _ => r << 40 | 7,                           // a shared bottom
                        }
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_unstable();
                for small in [1, 2, 16, SMALL] {
                    let mut got = v.clone();
                    sort_from(&mut got, small);
                    assert_eq!(got, want, "n={n} kind={kind} small={small}");
                    let mut narrow: Vec<u32> =
                        v.iter().map(|&x| (x >> 32) as u32 ^ x as u32).collect();
                    let mut want32 = narrow.clone();
                    want32.sort_unstable();
                    sort_from(&mut narrow, small);
                    assert_eq!(narrow, want32, "u32 n={n} kind={kind} small={small}");
                }
            }
        }
    }
}
