//! Codes of string ids (in order of first appearance), hashed: an Arrow string
//! column's offsets and data read where they lie, chunk by chunk, ids of at most
//! 15 bytes held in the table as one integer, long columns in parallel parts.

use rayon::prelude::*;

use crate::threads;
use crate::threads::PARALLEL_ROWS;
use crate::trec::ids::short_bits;

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
/// given in chunks, each by its `offsets` (row `i` is `data[offsets[i]..offsets[i + 1]]`,
/// as many offsets as rows plus one) and its `data`, and the first row of each code
/// (rows counted across the chunks). The caller guarantees offsets that are
/// ascending and within their `data`.
///
/// A row equal to the row before it (a grouped column: the rows of a user) takes
/// that row's code without a lookup. Strings of at most 7 or 15 bytes (most ids)
/// are held in the table as one integer (bytes and length), so a lookup reads no
/// string; longer ones as slices of `data`. The chunks of a column are never copied
/// into one: they are read in turn, or, when a column of many rows comes in at most
/// `n_chunks` pieces of at least [`PARALLEL_ROWS`] rows (a chunk cut so), encoded
/// in parallel (see [`factorize_parts`]).
pub fn factorize_bytes<O: Offset>(
    chunks: &[(&[O], &[u8])],
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>) {
    let rows = |o: &[O]| o.len().saturating_sub(1);
    let n: usize = chunks.iter().map(|c| rows(c.0)).sum();
    let size = n.div_ceil(n_chunks.max(1)).max(PARALLEL_ROWS);
    // the parts: pieces of at most `size` rows of each chunk (offsets are positions in
    // the chunk's data, so a piece's offsets are a slice of the chunk's)
    let mut parts: Vec<(&[O], &[u8])> = Vec::new();
    for &(offsets, data) in chunks {
        let m = rows(offsets);
        let pieces = m.div_ceil(size).max(1);
        for k in 0..pieces {
            let (a, b) = (m * k / pieces, m * (k + 1) / pieces);
            if b > a {
                parts.push((&offsets[a..=b], data));
            }
        }
    }
    let longest = parts
        .iter()
        .flat_map(|p| p.0.windows(2).map(|w| w[1].at() - w[0].at()))
        .max()
        .unwrap_or(0);
    let lens: Vec<usize> = parts.iter().map(|p| rows(p.0)).collect();
    let bounds = |p: usize, i: usize| {
        let (o, d) = parts[p];
        (d, o[i].at(), o[i + 1].at())
    };
    // the TREC reader's one-integer form of an id; at most 7 bytes fit a u64 with
    // the length (a table of half the size)
    let short = |p: usize, i: usize| {
        let (d, a, b) = bounds(p, i);
        short_bits(d, a, b).unwrap_or(0)
    };
    if longest <= 7 {
        let word = |k: u128| k as u64 | ((k >> 120) as u64) << 56;
        factorize_parts(|p, i| word(short(p, i)), &lens, n_chunks)
    } else if longest <= 15 {
        factorize_parts(short, &lens, n_chunks)
    } else {
        factorize_parts(
            |p, i| {
                let (d, a, b) = bounds(p, i);
                &d[a..b]
            },
            &lens,
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

/// Codes (in order of first appearance) of a column given in parts of `lens` rows,
/// whose keys `key` gives (the key of row `i` of part `p`), and the first row of
/// each code (counted across the parts). With at most `n_chunks` parts (and more
/// than one), each part is encoded alone, in parallel,
/// into its place in the codes; the parts' ids are then numbered in order (part by
/// part, each in its order of first appearance: the order of first appearance of
/// the column) and each part's codes renumbered.
pub fn factorize_parts<K: Key>(
    key: impl Fn(usize, usize) -> K + Sync,
    lens: &[usize],
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>) {
    let n: usize = lens.iter().sum();
    if lens.len() <= 1 || lens.len() > n_chunks {
        // one part, or more parts than threads (a table each would cost more than
        // it saves): one pass over every part in turn
        let keys = (0..lens.len()).flat_map(|p| (0..lens[p]).map(move |i| (p, i)));
        return factorize_keys(keys.map(|(p, i)| key(p, i)), n);
    }
    let starts: Vec<usize> = lens
        .iter()
        .scan(0, |at, &l| {
            *at += l;
            Some(*at - l)
        })
        .collect();
    let mut codes = crate::pages::zeroed::<i32>(n);
    let mut outs: Vec<&mut [i32]> = Vec::with_capacity(lens.len());
    let mut rest = &mut codes[..];
    for &l in lens {
        let (out, tail) = rest.split_at_mut(l);
        outs.push(out);
        rest = tail;
    }
    let firsts: Vec<Vec<i64>> = threads::install(|| {
        outs.par_iter_mut()
            .enumerate()
            .map(|(p, out)| {
                let len = out.len();
                let mut at = out.iter_mut();
                factorize_into((0..len).map(|i| key(p, i)), starts[p], |c| {
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
        .enumerate()
        .map(|(p, rows)| {
            rows.iter()
                .map(|&r| {
                    let k = key(p, r as usize - starts[p]);
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
        outs.par_iter_mut()
            .zip(maps.par_iter())
            .skip(1)
            .for_each(|(out, map)| out.iter_mut().for_each(|c| *c = map[*c as usize]))
    });
    (codes, first)
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
        let (codes, first) = factorize_bytes(&[(&offsets[..], &data[..])], 4);
        assert_eq!(codes, vec![0, 1, 2, 3, 1, 0]);
        assert_eq!(first, vec![0, 1, 2, 3]);
        assert_eq!(factorize_bytes::<i64>(&[(&[0], b"")], 4), (vec![], vec![]));
        assert_eq!(factorize_bytes::<i32>(&[], 4), (vec![], vec![]));
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
                assert_eq!(
                    factorize_bytes(&[(&wide[..], &data[..])], 1),
                    want,
                    "longest {longest}"
                );
                assert_eq!(
                    factorize_bytes(&[(&narrow[..], &data[..])], 1),
                    want,
                    "longest {longest}"
                );
                // a slice of the column: offsets that do not start at 0
                let (from, to) = (5, strings.len() - 3);
                let part = naive_bytes(&strings[from..to]);
                assert_eq!(factorize_bytes(&[(&wide[from..=to], &data[..])], 1), part);
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
                let whole = factorize_bytes(&[(&wide[..], &data[..])], n_chunks);
                assert_eq!(whole, want, "{width}");
                assert_eq!(factorize_bytes(&[(&narrow[..], &data[..])], n_chunks), want);
                // in chunks (of the same data), one of them empty
                let cut = [5000, 5000, 40_000];
                let chunks = [
                    (&wide[..=cut[0]], &data[..]),
                    (&wide[cut[1]..=cut[1]], &data[..]),
                    (&wide[cut[1]..=cut[2]], &data[..]),
                    (&wide[cut[2]..], &data[..]),
                ];
                assert_eq!(factorize_bytes(&chunks, n_chunks), want, "{width}");
            }
        }
    }
}
