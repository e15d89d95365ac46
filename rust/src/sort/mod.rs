//! Sorting of float keys, shared by the CSR containers and the ranking kernels:
//! NumPy's float order ([`lt_floats`]), numba's quicksort ([`quicksort`]), a stable
//! descending merge sort carrying positions ([`stable_sort_desc`]), order keys that
//! sort as the floats do ([`order_key`]), and lists of up to 128 words sorted by an
//! AVX2 network ([`short`]), and floats sorted as NumPy sorts them by an in-place
//! radix sort ([`flag`], [`sort_floats`]).

pub mod flag;
pub mod short;

/// The float order of NumPy's sorts: `a < b`, NaN after everything.
#[inline(always)]
pub fn lt_floats(a: f64, b: f64) -> bool {
    a < b || (b.is_nan() && !a.is_nan())
}

fn insertion_sort(a: &mut [f64], low: usize, high: usize) {
    if high <= low {
        return;
    }
    for i in low + 1..=high {
        let v = a[i];
        let mut j = i;
        while j > low && lt_floats(v, a[j - 1]) {
            a[j] = a[j - 1];
            j -= 1;
        }
        a[j] = v;
    }
}

fn partition(a: &mut [f64], low: usize, high: usize) -> usize {
    let mid = (low + high) >> 1;
    // median of three {low, middle, high}
    if lt_floats(a[mid], a[low]) {
        a.swap(low, mid);
    }
    if lt_floats(a[high], a[mid]) {
        a.swap(high, mid);
    }
    if lt_floats(a[mid], a[low]) {
        a.swap(low, mid);
    }
    let pivot = a[mid];
    a.swap(high, mid); // stash the pivot at the end
    let mut i = low as isize;
    let mut j = high as isize - 1;
    loop {
        while i < high as isize && lt_floats(a[i as usize], pivot) {
            i += 1;
        }
        while j >= low as isize && lt_floats(pivot, a[j as usize]) {
            j -= 1;
        }
        if i >= j {
            break;
        }
        a.swap(i as usize, j as usize);
        i += 1;
        j -= 1;
    }
    a.swap(i as usize, high);
    i as usize
}

/// Sort floats ascending (NaN last) with the quicksort of numba's `ndarray.sort`
/// (median-of-three partitions, insertion sort below 16 elements), so equal keys
/// of different bits (0.0 and -0.0) land where that sort puts them.
pub fn quicksort(a: &mut [f64]) {
    if a.len() < 2 {
        return;
    }
    let mut stack: Vec<(usize, usize)> = vec![(0, a.len() - 1)];
    while let Some((mut low, mut high)) = stack.pop() {
        // partition until an insertion sort is cheaper
        while high - low >= 15 {
            let i = partition(a, low, high);
            // push the larger side, go on with the smaller
            if high - i > i - low {
                if high > i {
                    stack.push((i + 1, high));
                }
                if i == 0 {
                    break;
                }
                high = i - 1;
            } else {
                if i > low {
                    stack.push((low, i - 1));
                }
                low = i + 1;
            }
            if high < low {
                break;
            }
        }
        if high >= low {
            insertion_sort(a, low, high);
        }
    }
}

/// Sort `keys[..n]` descending, carrying `pos`, stable, through the tmp buffers:
/// insertion sort on runs of 16, then bottom-up merges.
pub fn stable_sort_desc(
    keys: &mut [f64],
    pos: &mut [i64],
    tmp_keys: &mut [f64],
    tmp_pos: &mut [i64],
    n: usize,
) {
    let run = 16;
    let mut start = 0;
    while start < n {
        let stop = (start + run).min(n);
        for i in start + 1..stop {
            let (k, p) = (keys[i], pos[i]);
            let mut j = i;
            while j > start && keys[j - 1] < k {
                keys[j] = keys[j - 1];
                pos[j] = pos[j - 1];
                j -= 1;
            }
            keys[j] = k;
            pos[j] = p;
        }
        start += run;
    }
    let mut swapped = false;
    let mut width = run;
    while width < n {
        {
            let (src_k, src_p, dst_k, dst_p): (&[f64], &[i64], &mut [f64], &mut [i64]) = if swapped
            {
                (tmp_keys, tmp_pos, keys, pos)
            } else {
                (keys, pos, tmp_keys, tmp_pos)
            };
            let mut left = 0;
            while left < n {
                let mid = (left + width).min(n);
                let right = (left + 2 * width).min(n);
                let (mut i, mut j, mut o) = (left, mid, left);
                while i < mid && j < right {
                    // strictly greater: equal keys keep their order
                    if src_k[j] > src_k[i] {
                        dst_k[o] = src_k[j];
                        dst_p[o] = src_p[j];
                        j += 1;
                    } else {
                        dst_k[o] = src_k[i];
                        dst_p[o] = src_p[i];
                        i += 1;
                    }
                    o += 1;
                }
                dst_k[o..o + mid - i].copy_from_slice(&src_k[i..mid]);
                dst_p[o..o + mid - i].copy_from_slice(&src_p[i..mid]);
                o += mid - i;
                dst_k[o..o + right - j].copy_from_slice(&src_k[j..right]);
                dst_p[o..o + right - j].copy_from_slice(&src_p[j..right]);
                left += 2 * width;
            }
        }
        swapped = !swapped;
        width *= 2;
    }
    if swapped {
        keys[..n].copy_from_slice(&tmp_keys[..n]);
        pos[..n].copy_from_slice(&tmp_pos[..n]);
    }
}

/// The order key of a score: [`RadixFloat::ascending`] of its bits, -0.0 counted
/// as 0.0 (equal floats, equal keys).
#[inline(always)]
pub fn order_key(x: f64) -> u64 {
    f64::ascending((x + 0.0).to_bits())
}

/// The score of an order key (the inverse of [`order_key`]; -0.0 is never a key).
#[inline(always)]
pub fn key_score(key: u64) -> f64 {
    f64::from_bits(f64::bits(key))
}

/// A float whose bits the radix sort orders: float64 and float32.
pub trait RadixFloat: Copy {
    /// The unsigned integer of the same width.
    type Bits: flag::Digits;
    /// The key of a float's bits in the order of `total_cmp` (ascending floats,
    /// ascending integers; a NaN by its sign and bits).
    fn ascending(bits: Self::Bits) -> Self::Bits;
    /// [`RadixFloat::ascending`], but every NaN the largest key.
    fn key(bits: Self::Bits) -> Self::Bits;
    /// The bits of the float of a key (the inverse of [`RadixFloat::ascending`]; a
    /// quiet NaN for the largest key).
    fn bits(key: Self::Bits) -> Self::Bits;
}

macro_rules! radix_float {
    ($f:ty, $u:ty) => {
        impl RadixFloat for $f {
            type Bits = $u;
            #[inline(always)]
            fn ascending(u: $u) -> $u {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                if u & SIGN != 0 {
                    !u
                } else {
                    u | SIGN
                }
            }
            #[inline(always)]
            fn key(u: $u) -> $u {
                if <$f>::from_bits(u).is_nan() {
                    <$u>::MAX
                } else {
                    Self::ascending(u)
                }
            }
            #[inline(always)]
            fn bits(k: $u) -> $u {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                if k & SIGN != 0 {
                    k & !SIGN
                } else {
                    !k
                }
            }
        }
    };
}
radix_float!(f64, u64);
radix_float!(f32, u32);

/// Sort floats ascending in place, NaN last as NumPy's sort puts them (every NaN
/// made one quiet NaN), by the in-place radix sort ([`flag::sort`]) of their keys
/// ([`RadixFloat::key`]): the sort of the binary metrics' classes where NumPy's own
/// is slow ([`crate::simd::slow_compress_store`]), and of the exact AUC's score
/// ranges, which it sorts in the memory of their rows (with at most
/// [`flag::SMALL`] keys more).
pub fn sort_floats<F: RadixFloat>(a: &mut [F]) {
    // SAFETY: a float and its `Bits` have the same size and alignment, and every bit
    // pattern is valid for both.
    let keys: &mut [F::Bits] =
        unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast::<F::Bits>(), a.len()) };
    for k in keys.iter_mut() {
        *k = F::key(*k);
    }
    flag::sort(keys);
    for k in keys.iter_mut() {
        *k = F::bits(*k);
    }
}

/// Sort integers ascending in place by the same radix sort ([`flag::sort`]) of
/// their bits with the sign bit flipped (which orders them as unsigned keys):
/// NumPy's sort of integers is as slow as its sort of floats where the latter is.
pub fn sort_ints(a: &mut [i64]) {
    const SIGN: u64 = 1 << 63;
    // SAFETY: i64 and u64 have the same size and alignment, and every bit pattern is
    // valid for both.
    let keys: &mut [u64] =
        unsafe { std::slice::from_raw_parts_mut(a.as_mut_ptr().cast::<u64>(), a.len()) };
    for k in keys.iter_mut() {
        *k ^= SIGN;
    }
    flag::sort(keys);
    for k in keys.iter_mut() {
        *k ^= SIGN;
    }
}

/// Helpers of the sorting tests here and in the modules that sort.
#[cfg(test)]
pub(crate) mod testing {
    /// Positions of `keys` sorted descending, stable: the reference ranking.
    pub fn reference_rank(keys: &[f64]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..keys.len()).collect();
        idx.sort_by(|&i, &j| keys[j].partial_cmp(&keys[i]).unwrap());
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::testing::reference_rank;
    use super::*;
    use crate::testing::lcg;

    /// Sort `$v` (a `Vec<$t>`) with [`sort_floats`]: NaN last, the rest bit for bit
    /// as `total_cmp` sorts them.
    macro_rules! sorted_in_total_order {
        ($v:expr, $t:ty, $n:expr) => {{
            let mut v: Vec<$t> = $v;
            let nans = v.iter().filter(|x| x.is_nan()).count();
            let mut want: Vec<$t> = v.iter().copied().filter(|x| !x.is_nan()).collect();
            want.sort_by(<$t>::total_cmp);
            sort_floats(&mut v);
            let (head, tail) = v.split_at(v.len() - nans);
            assert!(tail.iter().all(|x| x.is_nan()), "n={}", $n);
            let bits = |s: &[$t]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(head), bits(&want), "n={}", $n);
        }};
    }

    #[test]
    fn sort_floats_sorts_in_total_order_with_nan_last() {
        let mut seed = 11;
        let hard = [
            0.0,
            -0.0,
            f64::MIN_POSITIVE / 4.0,
            -f64::MIN_POSITIVE / 4.0,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for n in [0, 1, 2, 17, 1000, 1025, 5000, 100_000] {
            let v: Vec<f64> = (0..n)
                .map(|i| match lcg(&mut seed) % 4 {
                    0 => hard[i % hard.len()],
                    1 => (lcg(&mut seed) % 7) as f64 - 3.0,
                    _ => (lcg(&mut seed) as f64 - 1e9) * 1e-3,
                })
                .collect();
            let narrow: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            sorted_in_total_order!(v, f64, n);
            sorted_in_total_order!(narrow, f32, n);
        }
    }

    #[test]
    fn sort_ints_sorts_as_the_standard_sort() {
        let mut seed = 13;
        for n in [0, 1, 2, 1000, 100_000] {
            let v: Vec<i64> = (0..n)
                .map(|i| match i % 3 {
                    0 => lcg(&mut seed) as i64,
                    1 => (lcg(&mut seed) % 7) as i64 - 3,
                    _ => [i64::MIN, i64::MAX, 0, -1][i % 4],
                })
                .collect();
            let (mut got, mut want) = (v.clone(), v);
            sort_ints(&mut got);
            want.sort_unstable();
            assert_eq!(got, want, "n={n}");
        }
    }

    #[test]
    fn quicksort_sorts_with_nan_last() {
        let mut seed = 7;
        for n in [0, 1, 2, 15, 16, 17, 100, 1000] {
            let mut v: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 13) as f64).collect();
            if n > 3 {
                v[1] = f64::NAN;
            }
            quicksort(&mut v);
            let finite: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
            assert!(finite.windows(2).all(|w| w[0] <= w[1]));
            if n > 3 {
                assert!(v[n - 1].is_nan());
            }
        }
    }

    #[test]
    fn stable_sorts_keep_input_order_in_ties() {
        let mut seed = 3;
        for n in [0, 1, 5, 16, 17, 40, 300] {
            let keys: Vec<f64> = (0..n).map(|_| (lcg(&mut seed) % 7) as f64).collect();
            let want = reference_rank(&keys);
            let mut k = keys.clone();
            let mut p: Vec<i64> = (0..n as i64).collect();
            let (mut tk, mut tp) = (vec![0.0; n], vec![0; n]);
            stable_sort_desc(&mut k, &mut p, &mut tk, &mut tp, n);
            assert_eq!(p.iter().map(|&x| x as usize).collect::<Vec<_>>(), want);
        }
    }

    #[test]
    fn order_keys_follow_the_float_order() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.0,
            -0.5,
            -0.0,
            0.0,
            1e-300,
            0.5,
            2.0,
            1e300,
        ];
        let keys: Vec<u64> = xs.iter().map(|&x| order_key(x)).collect();
        assert!(keys.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(order_key(-0.0), order_key(0.0));
        assert!(keys.windows(2).filter(|w| w[0] == w[1]).count() == 1);
    }
}
