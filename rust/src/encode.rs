//! Dense codes for integer ids over a compact range (a direct-address table), and
//! the runs of equal neighbours of an id column.
//!
//! An id column read in chunks (the row groups of a Parquet file) is encoded in two
//! steps: each chunk's ids are written as `id - anchor` into the caller's `i32`
//! array ([`shift_ids`], which also returns the chunk's range), and once every chunk
//! is in, those offsets are turned into dense codes in place ([`dense_first_in_place`],
//! [`dense_sorted_in_place`]). The codes equal those of [`factorize_dense`] and
//! [`factorize_dense_sorted`] on the whole column.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU8, Ordering};

use crate::threads;
use crate::threads::PARALLEL_ROWS;
use crate::trec::ids::short_bits;

/// Codes (in order of first appearance) of ids in `[lo, lo + span)`, and the index
/// of the first row of each code. The caller guarantees the range.
pub fn factorize_dense(values: &[i64], lo: i64, span: usize) -> (Vec<i32>, Vec<i64>) {
    let mut table = vec![-1i32; span];
    let mut codes = Vec::with_capacity(values.len());
    let mut first = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        let slot = (v - lo) as usize;
        let mut c = table[slot];
        if c < 0 {
            c = first.len() as i32;
            table[slot] = c;
            first.push(i as i64);
        }
        codes.push(c);
    }
    (codes, first)
}

/// The offsets of an Arrow string column: `i32` (`string`) or `i64` (`large_string`).
pub trait Offset: Copy + Send + Sync {
    /// The offset as an index into the data.
    fn at(self) -> usize;
}

impl Offset for i32 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

impl Offset for i64 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

/// Codes (in order of first appearance) of the strings of an Arrow string column,
/// given by its `offsets` (row `i` is `data[offsets[i]..offsets[i + 1]]`, as many
/// offsets as rows plus one) and its `data`, and the first row of each code. The
/// caller guarantees offsets that are ascending and within `data`.
///
/// A row equal to the row before it (a grouped column: the rows of a user) takes
/// that row's code without a lookup. Strings of at most 7 or 15 bytes (most ids)
/// are held in the table as one integer (bytes and length), so a lookup reads no
/// string; longer ones as slices of `data`. Columns of many rows are cut into
/// `n_chunks` parts encoded in parallel (see [`factorize_rows`]).
pub fn factorize_bytes<O: Offset>(
    offsets: &[O],
    data: &[u8],
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>) {
    let longest = offsets
        .windows(2)
        .map(|w| w[1].at() - w[0].at())
        .max()
        .unwrap_or(0);
    let n = offsets.len().saturating_sub(1);
    let bounds = |i: usize| (offsets[i].at(), offsets[i + 1].at());
    // the TREC reader's one-integer form of an id; at most 7 bytes fit a u64 with
    // the length (a table of half the size)
    let short = |i: usize| {
        let (a, b) = bounds(i);
        short_bits(data, a, b).unwrap_or(0)
    };
    if longest <= 7 {
        let word = |k: u128| k as u64 | ((k >> 120) as u64) << 56;
        factorize_rows(|i| word(short(i)), n, n_chunks)
    } else if longest <= 15 {
        factorize_rows(short, n, n_chunks)
    } else {
        factorize_rows(
            |i| {
                let (a, b) = bounds(i);
                &data[a..b]
            },
            n,
            n_chunks,
        )
    }
}

/// A key of a [`Codes`] table: an id as one integer, or its bytes.
pub trait Key: Copy + Eq + Default + Send + Sync {
    /// A hash whose low bits are well mixed (they pick the slot).
    fn hash(self) -> u64;
}

/// One multiply, both halves of the product folded.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let r = (a as u128) * (b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

impl Key for u64 {
    #[inline(always)]
    fn hash(self) -> u64 {
        fold(self ^ 0x243f_6a88_85a3_08d3, 0x9e37_79b9_7f4a_7c15)
    }
}

impl Key for u128 {
    #[inline(always)]
    fn hash(self) -> u64 {
        let h = fold(self as u64 ^ 0x243f_6a88_85a3_08d3, 0x9e37_79b9_7f4a_7c15);
        fold(h ^ (self >> 64) as u64, 0x1319_8a2e_0370_7345)
    }
}

impl Key for &[u8] {
    #[inline(always)]
    fn hash(self) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(self)
    }
}

/// Codes of keys: open addressing with linear probing, at most 3/4 full; a slot
/// holds its key and its code plus one (0: empty), so a lookup of a short key
/// reads one slot, which [`Codes::prefetch`] fetches some rows before.
struct Codes<K> {
    slots: Vec<(K, u32)>,
    len: usize,
}

impl<K: Key> Codes<K> {
    fn new() -> Self {
        Codes {
            slots: vec![(K::default(), 0); 16],
            len: 0,
        }
    }

    #[inline(always)]
    fn prefetch(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let i = hash as usize & (self.slots.len() - 1);
            // SAFETY: a prefetch of a slot of the table (a hint; it reads nothing)
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch(self.slots.as_ptr().add(i) as *const i8, _MM_HINT_T0);
            }
        }
    }

    /// The code of `key`, or `next` (and true) when the table did not hold it.
    #[inline(always)]
    fn code(&mut self, key: K, hash: u64, next: u32) -> (u32, bool) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let (k, c) = self.slots[i];
            if c == 0 {
                break;
            }
            if k == key {
                return (c - 1, false);
            }
            i = (i + 1) & mask;
        }
        self.slots[i] = (key, next + 1);
        self.len += 1;
        if 4 * self.len > 3 * self.slots.len() {
            self.grow();
        }
        (next, true)
    }

    #[cold]
    fn grow(&mut self) {
        let size = 2 * self.slots.len();
        let old = std::mem::replace(&mut self.slots, vec![(K::default(), 0); size]);
        let mask = self.slots.len() - 1;
        for (k, c) in old.into_iter().filter(|s| s.1 != 0) {
            let mut i = k.hash() as usize & mask;
            while self.slots[i].1 != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = (k, c);
        }
    }
}

/// Codes (in order of first appearance) of the `keys` of the rows (equal keys for
/// equal ids only; `n` of them, a capacity), and the first row of each code; a key
/// equal to the row before's takes its code without a lookup.
pub fn factorize_keys<K: Key>(keys: impl Iterator<Item = K>, n: usize) -> (Vec<i32>, Vec<i64>) {
    let mut codes = Vec::with_capacity(n);
    let first = factorize_into(keys, 0, |c| codes.push(c));
    (codes, first)
}

/// The codes of `keys` given to `out` row by row, and the first row of each code
/// (rows counted from `start`).
///
/// The keys and their hashes are made a block of rows at a time, then looked up in
/// a loop that does nothing else, each slot fetched some rows before its lookup: the
/// lookups of a block (cache misses, in a table of many ids) then overlap.
fn factorize_into<K: Key>(
    mut keys: impl Iterator<Item = K>,
    start: usize,
    mut out: impl FnMut(i32),
) -> Vec<i64> {
    const BLOCK: usize = 1024;
    const AHEAD: usize = 8;
    let mut table = Codes::new();
    let mut first = Vec::new();
    // a key, its hash, and whether it equals the key before it (then neither hashed
    // nor looked up: it takes the code before)
    let mut block: Vec<(K, u64, bool)> = Vec::with_capacity(BLOCK);
    let mut before: Option<K> = None;
    let mut code = 0u32;
    let mut row = start;
    loop {
        block.clear();
        block.extend(keys.by_ref().take(BLOCK).map(|k| {
            let same = before == Some(k);
            before = Some(k);
            (k, if same { 0 } else { k.hash() }, same)
        }));
        if block.is_empty() {
            return first;
        }
        for (j, &(k, h, same)) in block.iter().enumerate() {
            if let Some(&(_, ahead, _)) = block.get(j + AHEAD) {
                table.prefetch(ahead);
            }
            if !same {
                let new;
                (code, new) = table.code(k, h, first.len() as u32);
                if new {
                    first.push(row as i64);
                }
            }
            out(code as i32);
            row += 1;
        }
    }
}

/// Codes (in order of first appearance) of the `n` rows whose keys `key` gives, and
/// the first row of each code. Past [`PARALLEL_ROWS`] rows the column is cut into
/// `n_chunks` parts, each encoded alone into its part of the codes; the parts' ids
/// are then numbered in order (part by part, each in its order of first
/// appearance: the order of first appearance of the column) and each part's codes
/// renumbered.
pub fn factorize_rows<K: Key>(
    key: impl Fn(usize) -> K + Sync,
    n: usize,
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>) {
    let parts = if n >= PARALLEL_ROWS {
        n_chunks.max(1)
    } else {
        1
    };
    if parts == 1 {
        return factorize_keys((0..n).map(&key), n);
    }
    let size = n.div_ceil(parts);
    let mut codes = crate::pages::zeroed::<i32>(n);
    let firsts: Vec<Vec<i64>> = threads::install(|| {
        codes
            .par_chunks_mut(size)
            .enumerate()
            .map(|(p, out)| {
                let (a, len) = (p * size, out.len());
                let mut at = out.iter_mut();
                factorize_into((a..a + len).map(&key), a, |c| {
                    if let Some(o) = at.next() {
                        *o = c;
                    }
                })
            })
            .collect()
    });
    let mut table = Codes::new();
    let mut first = Vec::new();
    let maps: Vec<Vec<i32>> = firsts
        .iter()
        .map(|rows| {
            rows.iter()
                .map(|&r| {
                    let k = key(r as usize);
                    let (c, new) = table.code(k, k.hash(), first.len() as u32);
                    if new {
                        first.push(r);
                    }
                    c as i32
                })
                .collect()
        })
        .collect();
    // the first part's codes are the column's already
    threads::install(|| {
        codes
            .par_chunks_mut(size)
            .zip(maps.par_iter())
            .skip(1)
            .for_each(|(out, map)| out.iter_mut().for_each(|c| *c = map[*c as usize]))
    });
    (codes, first)
}

/// Codes in ascending order of the ids in `[lo, lo + span)`, and the distinct ids
/// ascending: mark the ids present, number them in a scan, map every row (the two
/// passes over the rows in parallel over `n_chunks` chunks).
pub fn factorize_dense_sorted(
    values: &[i64],
    lo: i64,
    span: usize,
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>) {
    let n = values.len();
    let n_chunks = n_chunks.max(1);
    let present: Vec<AtomicU8> = (0..span).map(|_| AtomicU8::new(0)).collect();
    let mark = |c: usize| {
        for &v in &values[n * c / n_chunks..n * (c + 1) / n_chunks] {
            let p = &present[(v - lo) as usize];
            if p.load(Ordering::Relaxed) == 0 {
                p.store(1, Ordering::Relaxed);
            }
        }
    };
    threads::install(|| (0..n_chunks).into_par_iter().for_each(mark));
    let mut code_of = vec![0i32; span];
    let mut uniques = Vec::new();
    for s in 0..span {
        code_of[s] = uniques.len() as i32;
        if present[s].load(Ordering::Relaxed) != 0 {
            uniques.push(lo + s as i64);
        }
    }
    let mut codes = crate::pages::zeroed::<i32>(n);
    threads::install(|| {
        codes
            .par_chunks_mut((n / n_chunks).max(1))
            .zip(values.par_chunks((n / n_chunks).max(1)))
            .for_each(|(out, vals)| {
                for (o, &v) in out.iter_mut().zip(vals) {
                    *o = code_of[(v - lo) as usize];
                }
            })
    });
    (codes, uniques)
}

/// Write `id - anchor` of every id into `out` (as long as `values`) and return the
/// smallest and largest id (`(i64::MAX, i64::MIN)` for no id); None when an id lies
/// too far from `anchor` for an `i32` (what `out` holds is then unspecified).
pub fn shift_ids(values: &[i64], anchor: i64, out: &mut [i32]) -> Option<(i64, i64)> {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { shift_ids_avx2(values, anchor, out) };
    }
    shift_ids_body(values, anchor, out)
}

/// [`shift_ids`] compiled for AVX2 (64-bit compares in vectors).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn shift_ids_avx2(values: &[i64], anchor: i64, out: &mut [i32]) -> Option<(i64, i64)> {
    shift_ids_body(values, anchor, out)
}

#[inline(always)]
fn shift_ids_body(values: &[i64], anchor: i64, out: &mut [i32]) -> Option<(i64, i64)> {
    let (mut lo, mut hi, mut far) = (i64::MAX, i64::MIN, false);
    for (o, &v) in out.iter_mut().zip(values) {
        let d = v.wrapping_sub(anchor);
        // no short-circuit: the loop vectorizes
        far |= ((d as i32) as i64 != d) | ((v < anchor) != (d < 0));
        *o = d as i32;
        lo = lo.min(v);
        hi = hi.max(v);
    }
    (!far).then_some((lo, hi))
}

/// The table slot of an offset `code` (an id minus the anchor) in a table whose first
/// slot is the offset `base`; None outside `[0, span)`.
#[inline(always)]
fn slot(code: i32, base: i64, span: usize) -> Option<usize> {
    let s = (code as i64).wrapping_sub(base);
    (s >= 0 && (s as u64) < span as u64).then_some(s as usize)
}

/// [`factorize_dense`] of ids held as offsets from `anchor` (see [`shift_ids`]), in
/// place: every offset lies in `[base, base + span)` and becomes its code (order of
/// first appearance). Returns the ids of the codes, or None (and `codes` partly
/// rewritten) when an offset lies outside the range.
pub fn dense_first_in_place(
    codes: &mut [i32],
    base: i64,
    span: usize,
    anchor: i64,
) -> Option<Vec<i64>> {
    let mut table = vec![-1i32; span];
    let mut ids = Vec::new();
    for c in codes.iter_mut() {
        let s = slot(*c, base, span)?;
        let mut code = table[s];
        if code < 0 {
            code = ids.len() as i32;
            table[s] = code;
            ids.push(anchor + base + s as i64);
        }
        *c = code;
    }
    Some(ids)
}

/// [`factorize_dense_sorted`] of ids held as offsets from `anchor`, in place: codes
/// in ascending order of the ids, and the distinct ids ascending (both passes over
/// the codes in parallel over `n_chunks` chunks). None, with `codes` untouched, when
/// an offset lies outside `[base, base + span)`.
pub fn dense_sorted_in_place(
    codes: &mut [i32],
    base: i64,
    span: usize,
    anchor: i64,
    n_chunks: usize,
) -> Option<Vec<i64>> {
    let n = codes.len();
    let size = n.div_ceil(n_chunks.max(1)).max(1);
    let present: Vec<AtomicU8> = (0..span).map(|_| AtomicU8::new(0)).collect();
    let mark = |part: &[i32]| {
        part.iter().all(|&c| match slot(c, base, span) {
            Some(s) => {
                let p = &present[s];
                if p.load(Ordering::Relaxed) == 0 {
                    p.store(1, Ordering::Relaxed);
                }
                true
            }
            None => false,
        })
    };
    let inside = if n >= PARALLEL_ROWS {
        threads::install(|| codes.par_chunks(size).all(mark))
    } else {
        mark(codes)
    };
    if !inside {
        return None;
    }
    let mut code_of = vec![0i32; span];
    let mut ids = Vec::new();
    for s in 0..span {
        code_of[s] = ids.len() as i32;
        if present[s].load(Ordering::Relaxed) != 0 {
            ids.push(anchor + base + s as i64);
        }
    }
    // every id of the range present: a code is its offset from the smallest id
    // (nothing to do when that is the anchor); a lookup in the table otherwise
    let shift = (ids.len() == span).then_some(base as i32);
    if shift == Some(0) {
        return Some(ids);
    }
    let map = |part: &mut [i32]| match shift {
        Some(d) => part.iter_mut().for_each(|c| *c -= d),
        None => {
            for c in part.iter_mut() {
                *c = code_of[((*c as i64) - base) as usize];
            }
        }
    };
    if n >= PARALLEL_ROWS {
        threads::install(|| codes.par_chunks_mut(size).for_each(map));
    } else {
        map(codes);
    }
    Some(ids)
}

/// Runs of equal neighbours: their start offsets (plus `values.len()`) and values.
pub fn runs(values: &[i64]) -> (Vec<i64>, Vec<i64>) {
    #[cfg(target_arch = "x86_64")]
    if crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { runs_avx2(values) };
    }
    runs_body(values)
}

/// [`runs`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn runs_avx2(values: &[i64]) -> (Vec<i64>, Vec<i64>) {
    runs_body(values)
}

#[inline(always)]
fn runs_body(values: &[i64]) -> (Vec<i64>, Vec<i64>) {
    const BLOCK: usize = 16;
    let mut offsets = Vec::new();
    let mut heads = Vec::new();
    let mut push = |i: usize| {
        if i == 0 || values[i] != values[i - 1] {
            offsets.push(i as i64);
            heads.push(values[i]);
        }
    };
    // a block whose rows all equal the row before it (most blocks, in long runs)
    // is passed by one compare of vectors
    let mut i = 0;
    while i < values.len() {
        let end = (i + BLOCK).min(values.len());
        if i == 0 || end - i < BLOCK {
            (i..end).for_each(&mut push);
        } else {
            let same = values[i - 1..end - 1]
                .iter()
                .zip(&values[i..end])
                .fold(true, |all, (a, b)| all & (a == b));
            if !same {
                (i..end).for_each(&mut push);
            }
        }
        i = end;
    }
    offsets.push(values.len() as i64);
    (offsets, heads)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle of [`factorize_bytes`]: a map of owned strings, row by row.
    fn naive_bytes(strings: &[Vec<u8>]) -> (Vec<i32>, Vec<i64>) {
        let mut seen = std::collections::HashMap::new();
        let (mut codes, mut first) = (vec![], vec![]);
        for (i, s) in strings.iter().enumerate() {
            let next = first.len() as i32;
            let c = *seen.entry(s.clone()).or_insert(next);
            if c == next {
                first.push(i as i64);
            }
            codes.push(c);
        }
        (codes, first)
    }

    /// Offsets (both widths) and data of `strings`, the data with `pad` bytes after.
    fn arrow(strings: &[Vec<u8>], pad: usize) -> (Vec<i32>, Vec<i64>, Vec<u8>) {
        let mut data = vec![];
        let mut offsets = vec![0i64];
        for s in strings {
            data.extend_from_slice(s);
            offsets.push(data.len() as i64);
        }
        data.extend(std::iter::repeat_n(0xAB, pad));
        let narrow = offsets.iter().map(|&o| o as i32).collect();
        (narrow, offsets, data)
    }

    #[test]
    fn factorize_bytes_numbers_strings_in_order_of_first_appearance() {
        let data = b"bazfoobarfoo";
        let offsets = [0i64, 3, 6, 6, 9, 12, 15];
        let data = [&data[..], b"baz"].concat();
        let (codes, first) = factorize_bytes(&offsets, &data, 4);
        assert_eq!(codes, vec![0, 1, 2, 3, 1, 0]);
        assert_eq!(first, vec![0, 1, 2, 3]);
        assert_eq!(factorize_bytes::<i64>(&[0], b"", 4), (vec![], vec![]));
        assert_eq!(factorize_bytes::<i32>(&[], b"", 4), (vec![], vec![]));
    }

    #[test]
    fn factorize_bytes_matches_a_map_of_strings_for_every_length() {
        // short (one word), middle (two words) and long (slices) strings; runs of
        // equal rows, the same string again after a run, empty strings, strings
        // that differ only in trailing zero bytes, non-ASCII bytes
        let mut seed = 3u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for longest in [0usize, 1, 7, 8, 15, 16, 40] {
            let alphabet: [&[u8]; 4] = [b"a", b"\0", "é".as_bytes(), b"7"];
            let mut pool: Vec<Vec<u8>> = (0..30)
                .map(|_| {
                    let len = if longest == 0 {
                        0
                    } else {
                        next() % (longest + 1)
                    };
                    let mut s = vec![];
                    while s.len() < len {
                        s.extend_from_slice(alphabet[next() % 4]);
                    }
                    s.truncate(len);
                    s
                })
                .collect();
            pool.push(vec![]);
            pool.push(vec![0; longest.min(3)]);
            let mut strings = vec![];
            for _ in 0..400 {
                let s = &pool[next() % pool.len()];
                (0..1 + next() % 4).for_each(|_| strings.push(s.clone()));
            }
            let want = naive_bytes(&strings);
            for pad in [0, 16] {
                let (narrow, wide, data) = arrow(&strings, pad);
                assert_eq!(factorize_bytes(&wide, &data, 1), want, "longest {longest}");
                assert_eq!(
                    factorize_bytes(&narrow, &data, 1),
                    want,
                    "longest {longest}"
                );
                // a slice of the column: offsets that do not start at 0
                let (from, to) = (5, strings.len() - 3);
                let part = naive_bytes(&strings[from..to]);
                assert_eq!(factorize_bytes(&wide[from..=to], &data, 1), part);
            }
        }
    }

    #[test]
    fn factorize_bytes_in_parts_numbers_as_in_one() {
        // a column long enough to be cut into parts: ids first seen in a later part,
        // ids of every part, runs that cross a part's boundary; short and long keys
        let mut seed = 11u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for width in [3usize, 12, 20] {
            let mut strings = vec![];
            while strings.len() < PARALLEL_ROWS + 5000 {
                // the pool of ids widens along the column
                let id = next() % (50 + strings.len() / 20);
                let s = format!("{id:0width$}").into_bytes();
                (0..1 + next() % 5).for_each(|_| strings.push(s.clone()));
            }
            let want = naive_bytes(&strings);
            let (narrow, wide, data) = arrow(&strings, 0);
            for n_chunks in [1, 2, 3, 8] {
                assert_eq!(factorize_bytes(&wide, &data, n_chunks), want, "{width}");
                assert_eq!(factorize_bytes(&narrow, &data, n_chunks), want, "{width}");
            }
        }
    }

    #[test]
    fn codes_follow_first_appearance_or_the_ids() {
        let v = [7, 3, 7, 5, 3];
        assert_eq!(
            factorize_dense(&v, 3, 5),
            (vec![0, 1, 0, 2, 1], vec![0, 1, 3])
        );
        assert_eq!(
            factorize_dense_sorted(&v, 3, 5, 3),
            (vec![2, 0, 2, 1, 0], vec![3, 5, 7])
        );
        assert_eq!(runs(&[1, 1, 2, 1]), (vec![0, 2, 3, 4], vec![1, 2, 1]));
    }

    #[test]
    fn runs_of_long_columns_match_a_naive_scan() {
        // runs of 1..40 rows (shorter and longer than a block), starting anywhere
        let mut seed = 9u64;
        let mut values = Vec::new();
        for r in 0..400i64 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = 1 + (seed >> 33) % 40;
            // a value may come back later: runs, not distinct values
            values.extend(std::iter::repeat_n(r % 7, len as usize));
        }
        for cut in [0, 1, 15, 16, 17, values.len() - 3] {
            let v = &values[cut..];
            let mut want = (vec![], vec![]);
            for i in 0..v.len() {
                if i == 0 || v[i] != v[i - 1] {
                    want.0.push(i as i64);
                    want.1.push(v[i]);
                }
            }
            want.0.push(v.len() as i64);
            assert_eq!(runs(v), want, "cut {cut}");
        }
        assert_eq!(runs(&[]), (vec![0], vec![]));
    }

    /// Encode `values` cut into chunks at `cuts` through the chunked kernels.
    fn chunked(values: &[i64], cuts: &[usize], sorted: bool) -> Option<(Vec<i32>, Vec<i64>)> {
        chunked_from(values, cuts, sorted, values.first().copied().unwrap_or(0))
    }

    /// [`chunked`] with ids held as offsets from `anchor`.
    fn chunked_from(
        values: &[i64],
        cuts: &[usize],
        sorted: bool,
        anchor: i64,
    ) -> Option<(Vec<i32>, Vec<i64>)> {
        let mut codes = vec![0i32; values.len()];
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut bounds = vec![0];
        bounds.extend_from_slice(cuts);
        bounds.push(values.len());
        for w in bounds.windows(2) {
            let (a, b) = (w[0], w[1]);
            let (l, h) = shift_ids(&values[a..b], anchor, &mut codes[a..b])?;
            lo = lo.min(l);
            hi = hi.max(h);
        }
        if values.is_empty() {
            return Some((codes, vec![]));
        }
        let (base, span) = (lo - anchor, (hi - lo + 1) as usize);
        let ids = if sorted {
            dense_sorted_in_place(&mut codes, base, span, anchor, 3)?
        } else {
            dense_first_in_place(&mut codes, base, span, anchor)?
        };
        Some((codes, ids))
    }

    #[test]
    fn chunked_codes_do_not_depend_on_the_anchor() {
        // every id of the range present (codes are offsets from the smallest),
        // or a gap in it (codes through the table); anchors below, at, inside and
        // above the range
        for gap in [false, true] {
            let v: Vec<i64> = (0..3000)
                .map(|i| (i * 7919 % 613) as i64 + 50)
                .filter(|&x| !gap || x != 400)
                .collect();
            let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
            let want = factorize_dense_sorted(&v, lo, (hi - lo + 1) as usize, 3);
            assert_eq!(want.1.len(), if gap { 612 } else { 613 });
            for anchor in [lo - 1000, lo, v[0], lo + 300, hi, hi + 7] {
                for sorted in [false, true] {
                    let got = chunked_from(&v, &[10, 2000], sorted, anchor).unwrap();
                    if sorted {
                        assert_eq!(got, want, "anchor {anchor}");
                    } else {
                        assert_eq!(got, chunked(&v, &[], false).unwrap(), "anchor {anchor}");
                    }
                }
            }
        }
    }

    #[test]
    fn chunked_codes_equal_the_whole_column_codes() {
        let v: Vec<i64> = (0..5000).map(|i| (i * 7919 % 613) as i64 - 300).collect();
        let (lo, hi) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
        let span = (hi - lo + 1) as usize;
        let (codes, first) = factorize_dense(&v, lo, span);
        let ids: Vec<i64> = first.iter().map(|&i| v[i as usize]).collect();
        let sorted = factorize_dense_sorted(&v, lo, span, 4);
        // chunk boundaries anywhere, empty chunks, one chunk
        for cuts in [
            vec![],
            vec![1, 1, 2500, 2500, 4999],
            vec![0, 5000],
            vec![17, 4000],
        ] {
            assert_eq!(
                chunked(&v, &cuts, false),
                Some((codes.clone(), ids.clone()))
            );
            assert_eq!(chunked(&v, &cuts, true), Some(sorted.clone()));
        }
        // the parallel passes of a long column
        let long: Vec<i64> = (0..200_000)
            .map(|i| (i * 31 % 9973) as i64 + 1_000)
            .collect();
        let (l, h) = (1_000, 1_000 + 9972);
        let expect = factorize_dense_sorted(&long, l, (h - l + 1) as usize, 7);
        assert_eq!(chunked(&long, &[65_536, 65_537], true), Some(expect));
        assert_eq!(chunked(&[], &[], true), Some((vec![], vec![])));
    }

    #[test]
    fn ids_too_far_from_the_anchor_or_outside_the_range_are_refused() {
        let mut out = [0i32; 3];
        assert_eq!(shift_ids(&[5, -2, 9], 5, &mut out), Some((-2, 9)));
        assert_eq!(out, [0, -7, 4]);
        assert_eq!(shift_ids(&[], 5, &mut []), Some((i64::MAX, i64::MIN)));
        assert_eq!(shift_ids(&[5, 5 + (1 << 31)], 5, &mut out[..2]), None);
        assert_eq!(shift_ids(&[5, 4 - (1 << 31)], 5, &mut out[..2]), None);
        assert_eq!(shift_ids(&[i64::MIN, 0], i64::MAX, &mut out[..2]), None);
        assert_eq!(shift_ids(&[i64::MAX], i64::MIN, &mut out[..1]), None);
        assert!(shift_ids(
            &[5 + i32::MAX as i64, 5 + i32::MIN as i64],
            5,
            &mut out[..2]
        )
        .is_some());
        let mut codes = vec![0, 3, 9];
        assert_eq!(dense_first_in_place(&mut codes, 0, 9, 100), None);
        let mut codes = vec![0, 3, -1];
        assert_eq!(dense_sorted_in_place(&mut codes, 0, 9, 100, 2), None);
        assert_eq!(codes, vec![0, 3, -1]);
        let mut codes = vec![-1, 3, -1];
        assert_eq!(
            dense_sorted_in_place(&mut codes, -1, 5, 100, 2),
            Some(vec![99, 103])
        );
        assert_eq!(codes, vec![0, 1, 0]);
    }

    #[test]
    fn the_encoders_give_the_same_on_every_path() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as i64
        };
        // long runs, short runs, and ids at both ends of an i32 offset
        let values: Vec<i64> = (0..1000)
            .map(|i| match i % 7 {
                0 => i64::from(i32::MAX) + 5,
                1..=3 => (i / 40) as i64,
                _ => next() % 50,
            })
            .collect();
        let mut results = Vec::new();
        crate::simd::for_each_path(|_| {
            let mut out = vec![0i32; values.len()];
            let shifted = shift_ids(&values, 5, &mut out);
            let far = shift_ids(&values, -(1i64 << 40), &mut out.clone());
            let runs = runs(&values);
            // the oracle: runs of equal neighbours
            let mut want = vec![0i64];
            for i in 1..values.len() {
                if values[i] != values[i - 1] {
                    want.push(i as i64);
                }
            }
            want.push(values.len() as i64);
            assert_eq!(runs.0, want);
            assert_eq!(shifted, Some((0, i64::from(i32::MAX) + 5)));
            assert!(out.iter().zip(&values).all(|(&o, &v)| o as i64 == v - 5));
            assert_eq!(far, None);
            results.push((out, runs));
        });
        assert!(results.windows(2).all(|w| w[0] == w[1]));
    }
}
