//! A least-significant-digit radix sort of `u64` keys (8-bit digits): one pass
//! counts every digit, and a digit that all keys share is skipped (the low 29 bits
//! of float32 scores widened to float64 keys, the high bits of scores in a narrow
//! range), so that keys spanning few bits take few passes.

const BITS: u32 = 8;
const DIGITS: usize = 1 << BITS;
const PASSES: usize = 64_usize.div_ceil(BITS as usize);

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
    let mut counts = vec![[0usize; DIGITS]; PASSES];
    for &k in keys.iter() {
        for (p, c) in counts.iter_mut().enumerate() {
            c[((k >> (p as u32 * BITS)) as usize) & (DIGITS - 1)] += 1;
        }
    }
    if tmp.len() < n {
        *tmp = Vec::with_capacity(n);
        crate::pages::advise_huge(tmp);
        tmp.resize(n, 0);
    }
    let tmp = &mut tmp[..n];
    let mut in_tmp = false; // where the keys of the last pass are
    for (p, c) in counts.iter_mut().enumerate() {
        if c.contains(&n) {
            continue; // every key has this digit
        }
        let mut at = 0;
        for x in c.iter_mut() {
            let here = *x;
            *x = at;
            at += here;
        }
        let shift = p as u32 * BITS;
        let (src, dst): (&[u64], &mut [u64]) = if in_tmp {
            (&*tmp, &mut *keys)
        } else {
            (&*keys, &mut *tmp)
        };
        for &k in src {
            let d = ((k >> shift) as usize) & (DIGITS - 1);
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
