//! A least-significant-digit radix sort of `u64` keys over the bits in which they
//! differ: one pass finds those bits (the low 29 bits of float32 scores widened to
//! float64 keys, and the high bits of scores in a narrow range, are shared by all
//! keys), then digits of at most 11 bits cover them in as few passes as can be (27
//! bits: three passes of 9), one more pass counting every digit.

/// The widest digit (2048 counters a pass).
const MAX_BITS: u32 = 11;

/// Below this many keys a comparison sort is faster.
const SMALL: usize = 1 << 10;

/// Sort `keys` ascending; `tmp` is scratch memory (grown to `keys.len()`, kept for
/// the next call).
pub fn sort_u64(keys: &mut [u64], tmp: &mut Vec<u64>) {
    let n = keys.len();
    if n <= SMALL {
        keys.sort_unstable();
        return;
    }
    let (any, all) = keys
        .iter()
        .fold((0u64, u64::MAX), |(o, a), &k| (o | k, a & k));
    let varying = any ^ all;
    if varying == 0 {
        return; // every key is the same
    }
    let low = varying.trailing_zeros();
    let bits = 64 - varying.leading_zeros() - low;
    let passes = bits.div_ceil(MAX_BITS);
    let width = bits.div_ceil(passes);
    let digits = 1usize << width;
    let mask = (digits - 1) as u64;
    let shifts: Vec<u32> = (0..passes).map(|p| low + p * width).collect();
    let mut counts = vec![vec![0usize; digits]; passes as usize];
    for &k in keys.iter() {
        for (c, &shift) in counts.iter_mut().zip(&shifts) {
            c[((k >> shift) & mask) as usize] += 1;
        }
    }
    if tmp.len() < n {
        *tmp = Vec::with_capacity(n);
        crate::pages::advise_huge(tmp);
        tmp.resize(n, 0);
    }
    let tmp = &mut tmp[..n];
    let mut in_tmp = false; // where the keys of the last pass are
    for (c, &shift) in counts.iter_mut().zip(&shifts) {
        if c.contains(&n) {
            continue; // every key has this digit
        }
        let mut at = 0;
        for x in c.iter_mut() {
            let here = *x;
            *x = at;
            at += here;
        }
        let (src, dst): (&[u64], &mut [u64]) = if in_tmp {
            (&*tmp, &mut *keys)
        } else {
            (&*keys, &mut *tmp)
        };
        for &k in src {
            let d = ((k >> shift) & mask) as usize;
            dst[c[d]] = k;
            c[d] += 1;
        }
        in_tmp = !in_tmp;
    }
    if in_tmp {
        keys.copy_from_slice(tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_sort() {
        let mut seed = 9;
        let mut tmp = Vec::new();
        for (n, shift, mask) in [
            (5000, 0, u64::MAX),
            (70_000, 29, (1 << 35) - 1),
            (3000, 40, 7),
            (20_000, 3, (1 << 22) - 1),
        ] {
            let mut keys: Vec<u64> = (0..n)
                .map(|_| {
                    let mut draw = || crate::sort::testing::lcg(&mut seed);
                    ((draw() << 33 | draw() << 2 | draw()) & mask) << shift
                })
                .collect();
            let mut want = keys.clone();
            want.sort_unstable();
            sort_u64(&mut keys, &mut tmp);
            assert_eq!(keys, want);
        }
        let mut same = vec![42u64; 4000];
        sort_u64(&mut same, &mut tmp);
        assert_eq!(same, vec![42u64; 4000]);
    }
}
