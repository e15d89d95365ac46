//! The paired randomization test and the paired bootstrap.
//!
//! Both kernels read a row-major table `x` of `n` users by `m` columns holding
//! `w_i d_ij` (0 where user i is undefined for column j), so one pass over the users
//! serves every column: the same sign flips, or the same resampled users, for all
//! of them.
//!
//! Random numbers come from SplitMix64 used as a counter-based generator.
//! Replicate `b` (a permutation or a resample) has its own stream, whose starting
//! state is a hash of `(seed, use, b)`; the t-th word of a stream is
//! `mix64(start + (t + 1) * GAMMA)`, computable from `t` alone. Replicates are cut
//! into contiguous chunks run in parallel, and every replicate is computed by one
//! thread in a fixed order, so the results depend on the seed only, not on the
//! number of threads or the chunking. All the arithmetic on words wraps modulo
//! 2^64.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::threads;

/// SplitMix64's increment (Steele, Lea and Flood, OOPSLA 2014; Vigna's splitmix64.c).
pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
const MUL1: u64 = 0xBF58_476D_1CE4_E5B9;
const MUL2: u64 = 0x94D0_49BB_1331_11EB;
/// Odd multiplier that spreads the stream index before hashing it into a start state.
const STREAM: u64 = 0xD1B5_4A32_D192_ED03;
/// Domain of the seed for the sign flips of the randomization test.
pub const FLIPS: u64 = 0x243F_6A88_85A3_08D3;
/// Domain of the seed for the resamples of the bootstrap.
pub const RESAMPLES: u64 = 0x1319_8A2E_0370_7344;
const LOW32: u64 = 0xFFFF_FFFF;
/// Draws of a resample computed together, then gathered.
pub const DRAW_BLOCK: usize = 256;

/// SplitMix64's output function: a bijection of u64 with good avalanche.
#[inline(always)]
pub fn mix64(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(MUL1);
    let z = (z ^ (z >> 27)).wrapping_mul(MUL2);
    z ^ (z >> 31)
}

/// Key of a seed for one use ([`FLIPS`] or [`RESAMPLES`]), so the sign flips and
/// the resamples of a seed are unrelated.
pub fn seed_key(seed: u64, domain: u64) -> u64 {
    mix64(mix64(seed.wrapping_add(GAMMA)).wrapping_add(domain))
}

/// Starting state of the stream of replicate `b`.
#[inline(always)]
pub fn stream_start(key: u64, b: u64) -> u64 {
    mix64(key ^ b.wrapping_add(1).wrapping_mul(STREAM))
}

/// Word `t` (0-based) of the SplitMix64 stream that starts at `start`.
#[inline(always)]
pub fn stream_word(start: u64, t: u64) -> u64 {
    mix64(start.wrapping_add(t.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// Run `f(lo, hi, rows lo..hi of out)` over the chunks of `n_rows` rows of `m`
/// values: in parallel when there are several chunks, on the calling thread (no
/// pool woken) when there is one. Every row is written by one call, so the result
/// does not depend on the chunks.
fn by_chunks<F>(out: &mut [f64], n_rows: usize, m: usize, n_chunks: usize, f: F)
where
    F: Fn(usize, usize, &mut [f64]) + Sync,
{
    let n_chunks = n_chunks.clamp(1, n_rows.max(1));
    if n_chunks == 1 {
        f(0, n_rows, out);
        return;
    }
    let rows: Vec<usize> = (0..=n_chunks).map(|c| n_rows * c / n_chunks).collect();
    let bounds: Vec<usize> = rows.iter().map(|r| r * m).collect();
    let parts = threads::split_at_bounds(out, &bounds);
    threads::install(|| {
        parts
            .into_par_iter()
            .zip(rows.par_windows(2))
            .for_each(|(part, w)| f(w[0], w[1], part))
    });
}

/// A row-major table of `n` users by `m` columns: `x[i * m + j]`.
#[derive(Clone, Copy)]
pub struct Table<'a> {
    pub x: &'a [f64],
    pub n: usize,
    pub m: usize,
}

// ------------------------------------------------------------------ randomization
/// Signed sums of every sign pattern of each byte of users `i0..i1` (at most 64)
/// of the row-major `x` (`m` columns) into `table` (8 x 256 x `m`, row-major).
///
/// `table[g, v, j] = sum_k s_k x[i0 + 8 g + k, j]` with `s_k = -1` where bit k of v
/// is set, +1 otherwise (users past `i1` count 0). Each entry is the entry without
/// v's lowest set bit, minus twice that user's value: 255 m subtractions per byte.
pub fn flip_tables(x: &[f64], m: usize, i0: usize, i1: usize, table: &mut [f64]) {
    flip_tables_body(x, m, i0, i1, table);
}

#[inline(always)]
fn flip_tables_body(x: &[f64], m: usize, i0: usize, i1: usize, table: &mut [f64]) {
    let table = &mut table[..8 * 256 * m];
    for g in 0..8 {
        let a = i0 + 8 * g;
        let byte = &mut table[g * 256 * m..(g + 1) * 256 * m];
        let (first, _) = byte.split_at_mut(m);
        first.fill(0.0);
        for k in 0..8 {
            if a + k < i1 {
                let row = &x[(a + k) * m..(a + k + 1) * m];
                for (t, &v) in first.iter_mut().zip(row) {
                    *t += v;
                }
            }
        }
        for v in 1..256usize {
            let k = v.trailing_zeros() as usize;
            let u = v & (v - 1);
            // u < v: entry u is in the part before entry v
            let (done, todo) = byte.split_at_mut(v * m);
            let from = &done[u * m..(u + 1) * m];
            let to = &mut todo[..m];
            if a + k < i1 {
                let row = &x[(a + k) * m..(a + k + 1) * m];
                for ((t, &f), &r) in to.iter_mut().zip(from).zip(row) {
                    *t = f - 2.0 * r;
                }
            } else {
                to.copy_from_slice(from);
            }
        }
    }
}

/// Signed sums of permutations `lo..hi` into `out` (rows `lo..hi`, `m` columns).
///
/// Permutation b flips user i when bit i % 64 of word i / 64 of stream b is set.
/// The users are walked 64 at a time; for each block the signed sums of the 256
/// sign patterns of each of its 8 bytes of users are tabulated once, and every
/// permutation of the range then adds 8 table rows (one per byte of its word),
/// in a fixed tree order.
fn sign_flip_range(
    x: Table<'_>,
    key: u64,
    lo: usize,
    hi: usize,
    out: &mut [f64],
    stop: &AtomicBool,
) {
    // a few columns: the same code with `m` a constant (unrolled, no inner loops)
    match x.m {
        1 => sign_flip_range_body(Table { m: 1, ..x }, key, lo, hi, out, stop),
        2 => sign_flip_range_body(Table { m: 2, ..x }, key, lo, hi, out, stop),
        3 => sign_flip_range_body(Table { m: 3, ..x }, key, lo, hi, out, stop),
        4 => sign_flip_range_body(Table { m: 4, ..x }, key, lo, hi, out, stop),
        _ => sign_flip_range_body(x, key, lo, hi, out, stop),
    }
}

#[inline(always)]
fn sign_flip_range_body(
    table: Table<'_>,
    key: u64,
    lo: usize,
    hi: usize,
    out: &mut [f64],
    stop: &AtomicBool,
) {
    let Table { x, n, m } = table;
    let n_words = n.div_ceil(64);
    let mut table = vec![0.0f64; 8 * 256 * m];
    let starts: Vec<u64> = (lo..hi).map(|b| stream_start(key, b as u64)).collect();
    out.fill(0.0);
    for t in 0..n_words {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let i0 = 64 * t;
        flip_tables_body(x, m, i0, n.min(i0 + 64), &mut table);
        for (row, &start) in out.chunks_exact_mut(m).zip(&starts) {
            let word = stream_word(start, t as u64);
            let r = |g: usize| {
                let v = ((word >> (8 * g)) & 255) as usize;
                &table[(g * 256 + v) * m..(g * 256 + v + 1) * m]
            };
            let (t0, t1, t2, t3) = (r(0), r(1), r(2), r(3));
            let (t4, t5, t6, t7) = (r(4), r(5), r(6), r(7));
            for j in 0..m {
                row[j] += ((t0[j] + t1[j]) + (t2[j] + t3[j])) + ((t4[j] + t5[j]) + (t6[j] + t7[j]));
            }
        }
    }
}

/// Signed sums `sum_i s_bi x[i, j]` of every random sign vector b of the table `x`
/// (`n` users, `m` columns): row-major, `n_permutations` x `m`. The same sign
/// vectors serve every column; the permutations are cut into `n_chunks` chunks run
/// in parallel (one chunk: on the calling thread), which do not change the result.
///
/// The work returns early, its output unfinished, once `stop` is set (checked
/// every 64 users). An output that cannot be allocated is an error that says its size.
pub fn sign_flip_sums(
    x: Table<'_>,
    n_permutations: usize,
    seed: u64,
    n_chunks: usize,
    stop: &AtomicBool,
) -> Result<Vec<f64>, crate::pages::OutOfMemory> {
    let mut out = crate::pages::try_zeros::<f64>(n_permutations, x.m)?;
    if x.m == 0 || x.n == 0 || n_permutations == 0 {
        return Ok(out);
    }
    let key = seed_key(seed, FLIPS);
    by_chunks(&mut out, n_permutations, x.m, n_chunks, |lo, hi, part| {
        sign_flip_range(x, key, lo, hi, part, stop)
    });
    Ok(out)
}

// ------------------------------------------------------------------ bootstrap
/// Draws `k0..k0 + idx.len()` of the stream that starts at `start`, mapped to
/// `[0, n)` (`n < 2^32`), into `idx`.
///
/// Draw k is `floor(word_k * n / 2^64)` (a 64 x 32-bit multiply-high): uniform on
/// `[0, n)` up to a relative bias below `n / 2^64`. Only the low 32 bits of `n` are
/// used.
#[inline(always)]
pub fn draw_block(start: u64, k0: u64, n: u64, idx: &mut [usize]) {
    let mut state = start.wrapping_add(k0.wrapping_mul(GAMMA));
    let n32 = n & LOW32;
    for slot in idx.iter_mut() {
        state = state.wrapping_add(GAMMA);
        let word = mix64(state);
        let high = (word >> 32) * n32;
        let low = (word & LOW32) * n32;
        *slot = ((high + (low >> 32)) >> 32) as usize;
    }
}

/// Independent partial sums of a block's draws (draw q adds to lane q % LANES).
const LANES: usize = 4;

/// `acc[j] += sum_q x[idx[q], j]` for every column j of the row-major `x` (`m`
/// columns), in a fixed order: draw q adds to lane q % 4 of the column (in the
/// scratch `lanes`, at least 4 m long), each lane summed from 0 in draw order, and
/// `(lane 0 + lane 1) + (lane 2 + lane 3)` is added to `acc[j]`. The lanes are
/// independent chains of additions (the sum of one column is not bound by the
/// latency of one addition).
#[inline(always)]
fn gather_add(x: &[f64], m: usize, idx: &[usize], acc: &mut [f64], lanes: &mut [f64]) {
    match m {
        0 => return,
        1 => return gather_add_fixed::<1>(x, idx, acc),
        2 => return gather_add_fixed::<2>(x, idx, acc),
        3 => return gather_add_fixed::<3>(x, idx, acc),
        4 => return gather_add_fixed::<4>(x, idx, acc),
        _ => {}
    }
    let lanes = &mut lanes[..LANES * m];
    lanes.fill(0.0);
    let (l01, l23) = lanes.split_at_mut(2 * m);
    let (l0, l1) = l01.split_at_mut(m);
    let (l2, l3) = l23.split_at_mut(m);
    let mut quads = idx.chunks_exact(LANES);
    for q in &mut quads {
        for (lane, &i) in [&mut *l0, &mut *l1, &mut *l2, &mut *l3].into_iter().zip(q) {
            let row = &x[i * m..(i + 1) * m];
            for (s, &v) in lane.iter_mut().zip(row) {
                *s += v;
            }
        }
    }
    for (lane, &i) in [&mut *l0, &mut *l1, &mut *l2]
        .into_iter()
        .zip(quads.remainder())
    {
        let row = &x[i * m..(i + 1) * m];
        for (s, &v) in lane.iter_mut().zip(row) {
            *s += v;
        }
    }
    for j in 0..m {
        acc[j] += (l0[j] + l1[j]) + (l2[j] + l3[j]);
    }
}

/// [`gather_add`] for `M` columns, the lanes in registers (the same additions in
/// the same order).
#[inline(always)]
fn gather_add_fixed<const M: usize>(x: &[f64], idx: &[usize], acc: &mut [f64]) {
    let mut lanes = [[0.0f64; M]; LANES];
    let add = |lane: &mut [f64; M], i: usize| {
        let row = &x[i * M..(i + 1) * M];
        for j in 0..M {
            lane[j] += row[j];
        }
    };
    let mut quads = idx.chunks_exact(LANES);
    for q in &mut quads {
        for (lane, &i) in lanes.iter_mut().zip(q) {
            add(lane, i);
        }
    }
    for (lane, &i) in lanes.iter_mut().zip(quads.remainder()) {
        add(lane, i);
    }
    for j in 0..M {
        acc[j] += (lanes[0][j] + lanes[1][j]) + (lanes[2][j] + lanes[3][j]);
    }
}

/// Weighted means of resamples `lo..hi` of the table `x` into `out` (rows
/// `lo..hi`, `m` columns).
///
/// Resample b draws `n` users uniformly with replacement: draw k is word k of
/// stream b mapped to `[0, n)` by [`draw_block`]. The table `w` (`n` users, `mw`
/// columns) holds the denominators: `mw = 0` means every user counts 1 in every
/// column, `mw = 1` one weight per user shared by the columns, `mw = m` one per
/// user and column. A resample whose denominator is 0 gives NaN.
///
/// On x86-64 CPUs with AVX2 the same code is compiled for AVX2 too (the draws are
/// integer arithmetic, hashed 4 at a time, and no addition is reordered: the
/// results are the same bits).
fn resample_range(
    x: Table<'_>,
    w: Table<'_>,
    key: u64,
    lo: usize,
    hi: usize,
    out: &mut [f64],
    stop: &AtomicBool,
) {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        unsafe { resample_range_avx2(x, w, key, lo, hi, out, stop) };
        return;
    }
    resample_range_body(x, w, key, lo, hi, out, stop);
}

/// [`resample_range`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn resample_range_avx2(
    x: Table<'_>,
    w: Table<'_>,
    key: u64,
    lo: usize,
    hi: usize,
    out: &mut [f64],
    stop: &AtomicBool,
) {
    resample_range_body(x, w, key, lo, hi, out, stop);
}

#[inline(always)]
fn resample_range_body(
    x: Table<'_>,
    w: Table<'_>,
    key: u64,
    lo: usize,
    hi: usize,
    out: &mut [f64],
    stop: &AtomicBool,
) {
    let (Table { x, n, m }, Table { x: wm, m: mw, .. }) = (x, w);
    let mut num = vec![0.0f64; m];
    let mut den = vec![0.0f64; mw.max(1)];
    let mut lanes = vec![0.0f64; LANES * m.max(mw)];
    let mut idx = [0usize; DRAW_BLOCK];
    for (b, row) in (lo..hi).zip(out.chunks_exact_mut(m)) {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        num.fill(0.0);
        den.fill(0.0);
        let start = stream_start(key, b as u64);
        for k0 in (0..n).step_by(DRAW_BLOCK) {
            let draws = &mut idx[..DRAW_BLOCK.min(n - k0)];
            draw_block(start, k0 as u64, n as u64, draws);
            gather_add(x, m, draws, &mut num, &mut lanes);
            gather_add(wm, mw, draws, &mut den, &mut lanes);
        }
        if mw == 0 {
            den[0] = n as f64;
        }
        for j in 0..m {
            let d = if mw > 1 { den[j] } else { den[0] };
            row[j] = if d > 0.0 { num[j] / d } else { f64::NAN };
        }
    }
}

/// Weighted mean of every column of the table `x` (`n` users, `m` columns) in
/// every resample of the users, denominators from the table `w` (`n` x `mw`, `mw`
/// 0, 1 or `m`; see [`resample_range`]): row-major, `n_resamples` x `m`. The same resampled
/// users serve every column; the resamples are cut into `n_chunks` chunks run in
/// parallel (one chunk: on the calling thread), which do not change the result.
/// The caller guarantees `n < 2^32`. As [`sign_flip_sums`], the work returns early
/// once `stop` is set (checked every resample), and an output that cannot be
/// allocated is an error.
pub fn bootstrap_means(
    x: Table<'_>,
    w: Table<'_>,
    n_resamples: usize,
    seed: u64,
    n_chunks: usize,
    stop: &AtomicBool,
) -> Result<Vec<f64>, crate::pages::OutOfMemory> {
    let mut out = crate::pages::try_zeros::<f64>(n_resamples, x.m)?;
    if x.m == 0 {
        return Ok(out);
    }
    let key = seed_key(seed, RESAMPLES);
    by_chunks(&mut out, n_resamples, x.m, n_chunks, |lo, hi, part| {
        resample_range(x, w, key, lo, hi, part, stop)
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flips(x: &[f64], n: usize, m: usize, b: usize, seed: u64, chunks: usize) -> Vec<f64> {
        let x = Table { x, n, m };
        sign_flip_sums(x, b, seed, chunks, &AtomicBool::new(false)).unwrap()
    }

    /// [`bootstrap_means`] of `x` (`n` x `m`) weighted by `wm` (`n` x `mw`).
    fn means(
        (x, wm): (&[f64], &[f64]),
        (n, m, mw): (usize, usize, usize),
        b: usize,
        seed: u64,
        chunks: usize,
    ) -> Vec<f64> {
        let (x, w) = (Table { x, n, m }, Table { x: wm, n, m: mw });
        bootstrap_means(x, w, b, seed, chunks, &AtomicBool::new(false)).unwrap()
    }

    #[test]
    fn stopped_kernels_return_early_and_huge_outputs_are_errors() {
        let x = vec![1.0; 64 * 4];
        let stop = AtomicBool::new(true);
        // stopped before the first block of users: nothing is added
        let table = |m| Table { x: &x, n: 256, m };
        let none = Table {
            x: &[],
            n: 256,
            m: 0,
        };
        let flipped = sign_flip_sums(table(1), 10, 1, 2, &stop).unwrap();
        assert!(flipped.iter().all(|&v| v == 0.0));
        let resampled = bootstrap_means(table(1), none, 10, 1, 2, &stop).unwrap();
        assert!(resampled.iter().all(|&v| v == 0.0));
        let go = AtomicBool::new(false);
        let err = sign_flip_sums(table(1), usize::MAX / 4, 1, 1, &go).unwrap_err();
        assert!(err.to_string().contains("bytes"), "{err}");
        assert!(bootstrap_means(table(3), none, usize::MAX / 2, 1, 1, &go).is_err());
    }

    #[test]
    fn mix64_matches_splitmix64() {
        // the first outputs of Vigna's splitmix64.c seeded with 0
        let mut state = 0u64;
        let mut next = || {
            state = state.wrapping_add(GAMMA);
            mix64(state)
        };
        assert_eq!(next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(next(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(next(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn words_are_counter_based() {
        let key = seed_key(42, FLIPS);
        assert_ne!(key, seed_key(42, RESAMPLES));
        let start = stream_start(key, 3);
        let mut state = start;
        for t in 0..10 {
            state = state.wrapping_add(GAMMA);
            assert_eq!(stream_word(start, t), mix64(state));
        }
        let mut all = [0usize; 300];
        draw_block(start, 0, 1000, &mut all);
        let mut tail = [0usize; 100];
        draw_block(start, 200, 1000, &mut tail);
        assert_eq!(&all[200..], &tail[..]);
        assert!(all.iter().all(|&i| i < 1000));
        for (t, &i) in all.iter().enumerate() {
            let word = stream_word(start, t as u64) as u128;
            assert_eq!(i as u128, (word * 1000) >> 64);
        }
    }

    #[test]
    fn flip_tables_sum_every_sign_pattern() {
        let (n, m) = (13, 2);
        let x: Vec<f64> = (0..n * m).map(|i| (i as f64) * 0.25 - 3.0).collect();
        let mut table = vec![f64::NAN; 8 * 256 * m];
        flip_tables(&x, m, 0, n, &mut table);
        for g in 0..8 {
            for v in [0usize, 1, 5, 128, 255] {
                for j in 0..m {
                    let mut want = 0.0;
                    for k in 0..8 {
                        let i = 8 * g + k;
                        if i < n {
                            let s = if (v >> k) & 1 == 1 { -1.0 } else { 1.0 };
                            want += s * x[i * m + j];
                        }
                    }
                    assert_eq!(table[(g * 256 + v) * m + j], want);
                }
            }
        }
    }

    fn sign_flip_reference(x: &[f64], n: usize, m: usize, b_count: usize, seed: u64) -> Vec<f64> {
        let key = seed_key(seed, FLIPS);
        let mut out = vec![0.0; b_count * m];
        for b in 0..b_count {
            let start = stream_start(key, b as u64);
            for j in 0..m {
                let mut total = 0.0;
                for i in 0..n {
                    let word = stream_word(start, (i / 64) as u64);
                    let s = if (word >> (i % 64)) & 1 == 1 {
                        -1.0
                    } else {
                        1.0
                    };
                    total += s * x[i * m + j];
                }
                out[b * m + j] = total;
            }
        }
        out
    }

    #[test]
    fn sign_flips_are_signed_sums_and_ignore_chunks() {
        // integers: every order of the additions gives the same sums
        let (n, m) = (150, 3);
        let x: Vec<f64> = (0..n * m)
            .map(|i| ((i * 7919) % 23) as f64 - 11.0)
            .collect();
        let want = sign_flip_reference(&x, n, m, 97, 5);
        for chunks in [1, 2, 7, 200] {
            assert_eq!(flips(&x, n, m, 97, 5, chunks), want);
        }
        assert_ne!(flips(&x, n, m, 97, 6, 1), want);
        assert!(flips(&x, 0, m, 4, 5, 1).iter().all(|&v| v == 0.0));
        assert!(flips(&x, n, m, 0, 5, 3).is_empty());
    }

    #[test]
    fn bootstrap_means_are_resampled_means_and_ignore_chunks() {
        crate::simd::for_each_path(|_| {
            bootstrap_means_are_resampled_means_and_ignore_chunks_on_this_path()
        });
    }

    fn bootstrap_means_are_resampled_means_and_ignore_chunks_on_this_path() {
        let (n, m) = (600, 2);
        let x: Vec<f64> = (0..n * m).map(|i| ((i * 31) % 17) as f64).collect();
        let w: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
        let key = seed_key(9, RESAMPLES);
        let unit = means((&x, &[]), (n, m, 0), 5, 9, 1);
        let shared = means((&x, &w), (n, m, 1), 5, 9, 1);
        for b in 0..5 {
            let mut draws = vec![0usize; n];
            draw_block(stream_start(key, b as u64), 0, n as u64, &mut draws);
            let den: f64 = draws.iter().map(|&i| w[i]).sum();
            for j in 0..m {
                let num: f64 = draws.iter().map(|&i| x[i * m + j]).sum();
                assert_eq!(unit[b * m + j], num / n as f64);
                assert_eq!(shared[b * m + j], num / den);
            }
        }
        for chunks in [2, 3, 64] {
            assert_eq!(means((&x, &[]), (n, m, 0), 5, 9, chunks), unit);
            assert_eq!(means((&x, &w), (n, m, 1), 5, 9, chunks), shared);
        }
    }

    #[test]
    fn bootstrap_zero_denominators_give_nan() {
        crate::simd::for_each_path(|_| bootstrap_zero_denominators_give_nan_on_this_path());
    }

    fn bootstrap_zero_denominators_give_nan_on_this_path() {
        let x = [1.0, 2.0, 3.0, 4.0];
        let wm = [0.0, 1.0, 0.0, 0.0]; // column 0 never weighted
        let out = means((&x, &wm), (2, 2, 2), 3, 1, 1);
        assert!(out.chunks(2).all(|r| r[0].is_nan()));
        assert!(means((&[], &[]), (0, 1, 0), 2, 1, 1)
            .iter()
            .all(|v| v.is_nan()));
    }
}
