//! Codes of string ids (in order of first appearance), hashed: an Arrow string
//! column's rows ([`super::rows`]: offsets and data, or views) read where they lie,
//! chunk by chunk, ids of at most 15 bytes held in the table as one integer
//! ([`super::table`]), long columns looked up by every thread in one table.

use rayon::prelude::*;

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::rows::{Chunk, InlineViews, Rows};
use super::table::{
    packs, short_bits, Bytes, Distinct, Packed, Slot, Table, Wide, PACKED_BYTES, SHORT_BYTES,
};
use crate::threads;
use crate::threads::PARALLEL_ROWS;

/// Codes (in order of first appearance) of the strings of a column given in
/// chunks, and the first row of each code (rows counted across the chunks).
///
/// A row equal to the row before it (a grouped column: the rows of a user) takes
/// that row's code without a lookup. Strings of at most 15 bytes (most ids) are
/// held in the table as one integer (bytes and length), so a lookup reads no
/// string; longer ones as slices of their buffer. The chunks of a column are never
/// copied into one: they are read in turn, on up to `n_chunks` threads (see
/// [`factorize_parts`]). `room`: the distinct ids expected
/// (a hint: the table is made with room for them, and grows past it). The distinct
/// ids come with them, in the order of their codes ([`Distinct`]).
pub fn factorize_bytes<R: Rows>(
    chunks: &[R],
    n_chunks: usize,
    room: usize,
) -> (Vec<i32>, Vec<i64>, Distinct) {
    let lens: Vec<usize> = chunks.iter().map(|c| c.rows()).collect();
    let width = widest(chunks);
    factorize_picked(texts(chunks), shorts(chunks), &lens, width, n_chunks, room)
}

/// [`factorize_bytes`] of a `string_view` column whose ids all have at most 11
/// bytes (most ids; held in their views), read from the views alone: no pass to
/// check the views first (a view of a longer id points into a buffer). None (and
/// the rest of the column passed over) as soon as a longer id is met: the column is
/// then for [`factorize_bytes`] of its checked rows.
pub fn factorize_inline(
    chunks: &[InlineViews],
    n_chunks: usize,
) -> Option<(Vec<i32>, Vec<i64>, Distinct)> {
    let lens: Vec<usize> = chunks.iter().map(|c| c.rows()).collect();
    let longer = AtomicBool::new(false);
    let shorts = |p: usize, a: usize, out: &mut [u128]| {
        if longer.load(Ordering::Relaxed) || !chunks[p].keys_within(a, out) {
            // one key for the rest: the blocks left cost a pass over them
            longer.store(true, Ordering::Relaxed);
            out.fill(0);
        }
    };
    let (codes, first, keys) = factorize_parts::<Packed>(shorts, &lens, n_chunks, 0);
    (!longer.into_inner()).then(|| (codes, first, keys.into()))
}

/// The runs of equal neighbours of a string column given in chunks, encoded: the
/// first row of each run (rows counted across the chunks; a run may go on across a
/// chunk boundary), the code of each run (in order of first appearance), the
/// first run of each code and the distinct ids. Only the first row of a run is
/// hashed: a column grouped by id (the users of a run) costs one comparison of
/// neighbours a row. The rows are compared, and the runs encoded, in parallel as
/// [`factorize_bytes`] encodes rows.
pub fn factorize_runs<R: Rows>(chunks: &[R], n_chunks: usize) -> Runs {
    let Some(runs) = runs_within(chunks, n_chunks, usize::MAX) else {
        unreachable!("no id is longer than usize::MAX bytes")
    };
    runs
}

/// [`factorize_runs`] of a `string_view` column whose ids all have at most 11
/// bytes (held in their views), read from the views alone (no pass to check the
/// views first); None when an id is longer (found by the comparison of the rows,
/// before any is hashed): the column is then for [`factorize_runs`] of its checked
/// rows.
pub fn factorize_inline_runs(chunks: &[InlineViews], n_chunks: usize) -> Option<Runs> {
    runs_within(chunks, n_chunks, 11)
}

/// [`factorize_runs`], or None when an id is longer than `cap` bytes.
fn runs_within<R: Rows>(chunks: &[R], n_chunks: usize, cap: usize) -> Option<Runs> {
    let parts = cut(chunks, n_chunks);
    // the first row of each run beginning in a part (its rows counted from the part's
    // first), the short key of each (read as the row is compared) and the longest
    let heads = |p: usize| {
        let part = &parts[p];
        // the row before and its short key (0 for a long or empty id)
        let (mut before, mut before_key): (Option<&[u8]>, u128) = match p.checked_sub(1) {
            Some(q) => {
                let (d, a, b) = parts[q].row(parts[q].rows() - 1);
                (Some(&d[a..b]), short_bits(d, a, b).unwrap_or(0))
            }
            None => (None, 0),
        };
        let (mut rows, mut keys, mut longest) = (Vec::new(), Vec::new(), 0);
        // a block of rows that all equal the row before it (most blocks of a column
        // grouped by id) is passed by one check of the block
        const BLOCK: usize = 16;
        let mut block = [0u128; BLOCK];
        let m = part.rows();
        let mut i = 0;
        while i < m {
            let end = (i + BLOCK).min(m);
            if i == 0 || end - i < BLOCK || !part.repeats(i, end) {
                part.shorts(i, &mut block[..end - i]);
                for (j, &key) in (i..end).zip(&block) {
                    // a short key tells its row apart; a long or empty row, its bytes
                    let (same, len) = if key != 0 {
                        (key == before_key, (key >> 120) as usize)
                    } else {
                        let (d, a, b) = part.row(j);
                        let s = &d[a..b];
                        ((before_key == 0) & (before.replace(s) == Some(s)), b - a)
                    };
                    if !same {
                        rows.push(j);
                        keys.push(key);
                        longest = longest.max(len);
                    }
                    before_key = key;
                }
            }
            i = end;
        }
        (rows, keys, longest)
    };
    let n: usize = parts.iter().map(|p| p.rows()).sum();
    let local: Vec<(Vec<usize>, Vec<u128>, usize)> = if parts.len() > 1 && n >= PARALLEL_ROWS {
        threads::install(|| (0..parts.len()).into_par_iter().map(heads).collect())
    } else {
        (0..parts.len()).map(heads).collect()
    };
    let lens: Vec<usize> = local.iter().map(|l| l.0.len()).collect();
    let longest = local.iter().map(|l| l.2).max().unwrap_or(0);
    if longest > cap {
        return None;
    }
    // the heads' keys as read (a head's row lies far from the one before: reading
    // it again costs a cache miss)
    let shorts = |p: usize, a: usize, out: &mut [u128]| {
        out.copy_from_slice(&local[p].1[a..a + out.len()]);
    };
    // the heads' rows, for ids of 16 bytes or more
    let long = |p: usize, a: usize, out: &mut [_]| {
        for (k, &i) in out.iter_mut().zip(&local[p].0[a..]) {
            let (d, s, e) = parts[p].row(i);
            *k = &d[s..e];
        }
    };
    // a table with room for every head (the most ids there can be; for a column
    // grouped by id, as many as there are) does not grow; past ROOM heads it starts
    // at that size
    let (codes, first, distinct) = factorize_picked(long, shorts, &lens, longest, n_chunks, ROOM);
    let mut starts = Vec::with_capacity(codes.len());
    let mut base = 0;
    for (part, l) in parts.iter().zip(&local) {
        starts.extend(l.0.iter().map(|&i| (base + i) as i64));
        base += part.rows();
    }
    Some((starts, codes, first, distinct))
}

/// The runs of a column ([`factorize_runs`]): the first row of each run, the code of
/// each run, the first run of each code and the distinct ids.
pub type Runs = (Vec<i64>, Vec<i32>, Vec<i64>, Distinct);

/// The most distinct ids a table of the runs' heads is first made with room for
/// (the heads of a part, if fewer): 4 MiB of slots for ids of at most 11 bytes.
const ROOM: usize = 1 << 17;

/// The fewest distinct ids a table of a column's rows is first made with room for (a
/// column of as many rows, or more): a table of few ids that fills to 3/4 before it
/// grows leaves many keys out of their own slot (10M rows of 20 ids: 1.7x the time of
/// the same rows in a table of 2048 slots, 32 KiB), and one of a thousand or two
/// ids (too few among a column's first rows for room made at once) took up to twice
/// the time in 2,048 or 4,096 slots that it takes in 8,192 (128 KiB; 10M rows of
/// 1,500 ids, one thread: 105 -> 57 ms; of 20 ids, unchanged).
const LEAST_ROOM: usize = 1 << 12;

/// The first rows of a column, whose count of distinct ids tells whether the column
/// has many (its first window: [`factorize_parts`]).
const SAMPLE: usize = 1 << 12;

/// The most ids a table is made with room for from the ids of a column's first rows
/// (2^19 slots, 8 MiB for ids of at most 11 bytes).
const MOST_ROOM: usize = 1 << 18;

/// The ids a table of a column of `rows` rows is made with room for at once when
/// `new` of its first `seen` rows were new ids (most: else None, and the table grows
/// as it fills): twice the ids that draws of equally frequent ids would hold
/// ([`distinct_of_draws`]), at most the rows and [`MOST_ROOM`]. A table sized to the
/// ids stays in the caches nearest the core where they are few: 10M rows of 8,000
/// and 20,000 ids took 37.1 -> 31.5 and 50.6 -> 35.9 ms on two threads (2^15 and
/// 2^16 slots, not 2^19: 8 MiB, past a second-level cache of 2 MiB; Intel Xeon,
/// medians of 3 processes of each build in turn); 60,000 ids or more the same time.
/// A column whose first rows repeat more than the rest (skewed) grows its table.
fn many_new(rows: usize, new: usize, seen: usize) -> Option<usize> {
    (2 * new > seen).then(|| {
        // (a float past usize::MAX, infinity too, is cast to usize::MAX)
        let room = (2.0 * distinct_of_draws(new, seen)) as usize;
        rows.min(MOST_ROOM).min(room)
    })
}

/// The number of equally frequent ids `d` whose `seen` random draws hold `new`
/// distinct ones on average (`d (1 - (1 - 1/d)^seen) = new`, solved for `d` as
/// `d (1 - exp(-seen / d)) = new`, which rises with `d` towards `seen`); infinite
/// when every draw was new.
fn distinct_of_draws(new: usize, seen: usize) -> f64 {
    if new >= seen {
        return f64::INFINITY;
    }
    let (n, k) = (seen as f64, new as f64);
    let held = |d: f64| d * -(-n / d).exp_m1();
    // bisection of log d between k (holding fewer than k) and a bound holding more
    let (mut lo, mut hi) = (k.max(1.0), k.max(1.0));
    while held(hi) < k {
        hi *= 2.0;
    }
    for _ in 0..64 {
        let mid = (lo * hi).sqrt();
        if held(mid) < k {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The chunks of a column cut in parts: pieces of at most `n / n_chunks` rows (and at
/// least [`PARALLEL_ROWS`]) of each chunk, none empty.
fn cut<R: Chunk>(chunks: &[R], n_chunks: usize) -> Vec<R> {
    let n: usize = chunks.iter().map(|c| c.rows()).sum();
    let size = n.div_ceil(n_chunks.max(1)).max(PARALLEL_ROWS);
    let mut parts: Vec<R> = Vec::new();
    for chunk in chunks {
        let m = chunk.rows();
        let pieces = m.div_ceil(size).max(1);
        for k in 0..pieces {
            let (a, b) = (m * k / pieces, m * (k + 1) / pieces);
            if b > a {
                parts.push(chunk.part(a, b));
            }
        }
    }
    parts
}

/// The [`Rows::width`] of a column given in chunks: the widest chunk's.
fn widest<R: Rows>(chunks: &[R]) -> usize {
    chunks
        .iter()
        .map(|c| c.width())
        .max()
        .unwrap_or(PACKED_BYTES)
}

/// Codes (in order of first appearance) of the strings of parts of `lens` rows,
/// none longer than `width` bytes (as [`Rows::width`] gives it, or the longest
/// row's length), and the first row of each code (counted across the parts),
/// through the table of that width, made with `room` for as many distinct ids.
/// `shorts(p, a, out)` gives the short keys of the rows of part `p` from `a` on (as
/// [`Rows::shorts`]), `long(p, a, out)` the rows themselves (as [`texts`]).
fn factorize_picked<'a>(
    long: impl Fn(usize, usize, &mut [&'a [u8]]) + Sync,
    shorts: impl Fn(usize, usize, &mut [u128]) + Sync,
    lens: &[usize],
    width: usize,
    n_chunks: usize,
    room: usize,
) -> (Vec<i32>, Vec<i64>, Distinct) {
    if width <= PACKED_BYTES {
        held(factorize_parts::<Packed>(shorts, lens, n_chunks, room))
    } else if width <= SHORT_BYTES {
        held(factorize_parts::<Wide>(shorts, lens, n_chunks, room))
    } else {
        held(factorize_parts::<Bytes>(long, lens, n_chunks, room))
    }
}

/// The position of each row past the first `n_dict` (the values) among the first
/// `n_dict` (the dictionary): the first of equal ids, -1 where absent. The
/// dictionary's rows are hashed into a table with room for them (each id with its
/// first row); the values are only looked up in it, not added, a long column in
/// parallel parts (one a thread) that share the table.
pub fn lookup_rows<R: Rows>(chunks: &[R], n_dict: usize) -> Vec<i32> {
    let (mut dictionary, mut values) = (Vec::new(), Vec::new());
    let mut at = 0;
    for chunk in chunks {
        let (m, cut_at) = (chunk.rows(), n_dict.saturating_sub(at));
        if cut_at > 0 {
            dictionary.push(chunk.part(0, cut_at.min(m)));
        }
        if cut_at < m {
            values.push(chunk.part(cut_at.min(m), m));
        }
        at += m;
    }
    let values = cut(&values, threads::num_threads());
    let lens = |parts: &[R]| parts.iter().map(|p| p.rows()).collect::<Vec<usize>>();
    let (dict_lens, value_lens) = (lens(&dictionary), lens(&values));
    let width = widest(chunks);
    if width <= PACKED_BYTES {
        lookup_keys::<Packed>(
            shorts(&dictionary),
            &dict_lens,
            shorts(&values),
            &value_lens,
        )
    } else if width <= SHORT_BYTES {
        lookup_keys::<Wide>(
            shorts(&dictionary),
            &dict_lens,
            shorts(&values),
            &value_lens,
        )
    } else {
        lookup_keys::<Bytes>(texts(&dictionary), &dict_lens, texts(&values), &value_lens)
    }
}

/// The short keys of the rows of `parts`: `(p, a, out)` fills `out` with those of
/// part `p` from row `a` on.
fn shorts<R: Rows>(parts: &[R]) -> impl Fn(usize, usize, &mut [u128]) + Sync + '_ {
    move |p, a, out| parts[p].shorts(a, out)
}

/// [`shorts`] of rows of any length: each row as a slice of its buffer.
fn texts<'a, R: Rows>(parts: &'a [R]) -> impl Fn(usize, usize, &mut [&'a [u8]]) + Sync + 'a {
    move |p, a, out| {
        for (j, k) in out.iter_mut().enumerate() {
            let (d, s, e) = parts[p].row(a + j);
            *k = &d[s..e];
        }
    }
}

/// [`lookup_rows`] of keys: `dictionary(p, a, keys)` gives the keys of the rows of
/// the dictionary's part `p` from `a` on (as many as `keys` holds), `values` those
/// of the values' parts (of `dict_lens` and `value_lens` rows). A block of keys is
/// hashed, and the slots of its keys fetched, before any is looked up.
pub(super) fn lookup_keys<S: Slot + Sync>(
    dictionary: impl Fn(usize, usize, &mut [S::Key]),
    dict_lens: &[usize],
    values: impl Fn(usize, usize, &mut [S::Key]) + Sync,
    value_lens: &[usize],
) -> Vec<i32> {
    let mut table = Table::<S>::with_room(dict_lens.iter().sum());
    let (mut keys, mut hashes) = ([S::Key::default(); BLOCK], [0u64; BLOCK]);
    let mut row = 0;
    for (p, &len) in dict_lens.iter().enumerate() {
        for a in (0..len).step_by(BLOCK) {
            let keys = &mut keys[..BLOCK.min(len - a)];
            dictionary(p, a, keys);
            table.hash_and_fetch(keys, &mut hashes);
            for (&k, &h) in keys.iter().zip(&hashes) {
                // the first row of an id keeps it: a later one finds it held
                table.code(k, h, row);
                row += 1;
            }
        }
    }
    let bounds = starts_of(value_lens);
    let mut found = crate::pages::fresh_zeros::<i32>(bounds[value_lens.len()]);
    let mut outs: Vec<(usize, &mut [i32])> = threads::split_at_bounds(&mut found, &bounds)
        .into_iter()
        .enumerate()
        .collect();
    let table = &table;
    let look = |(p, out): &mut (usize, &mut [i32])| {
        lookup_into(table, |a, k| values(*p, a, k), out, |_, _, _| -1);
    };
    if outs.len() > 1 {
        threads::install(|| outs.par_iter_mut().for_each(look));
    } else {
        outs.iter_mut().for_each(look);
    }
    found
}

/// [`factorize_bytes`] of `n` strings that only the calling thread may read
/// (`row(i)`: the `i`-th; the `str` objects of a NumPy object array, read under the
/// GIL). Each window of rows ([`Windows`]) is read on this thread (the short key of
/// each id of at most 15 bytes, read where the string is in the cache; the longer
/// ids as they are), then coded as `factorize_bytes` codes a column, on up to
/// `n_chunks` threads, while this thread reads the next window (in a column long
/// enough to be coded in parallel): no more than two windows' keys are held.
/// `width`: the longest id of the first rows, which picks the table; a longer one
/// met later codes the rows again in the table for it (at most twice).
pub fn factorize_read<'a>(
    n: usize,
    row: impl Fn(usize) -> &'a [u8],
    width: usize,
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>, Distinct) {
    let short = |id: &[u8]| short_bits(id, 0, id.len());
    let mut width = width;
    loop {
        let coded = if width <= PACKED_BYTES {
            let packed = |id: &[u8]| short(id).filter(|&k| packs(k));
            read_parts::<Packed>(n, &row, packed, n_chunks).map(held)
        } else if width <= SHORT_BYTES {
            read_parts::<Wide>(n, &row, short, n_chunks).map(held)
        } else {
            read_parts::<Bytes>(n, &row, Some, n_chunks).map(held)
        };
        match coded {
            Ok(coded) => return coded,
            Err(longer) => width = longer,
        }
    }
}

/// [`factorize_read`] through a table of slots `S` (`key(id)`: an id's key, None
/// for an id too long for the table): the codes, or the length of the first id
/// found too long.
fn read_parts<'a, S: Slot + Sync>(
    n: usize,
    row: &impl Fn(usize) -> &'a [u8],
    key: impl Fn(&'a [u8]) -> Option<S::Key>,
    n_chunks: usize,
) -> Result<Coded<S::Key>, usize>
where
    S::Key: Sync,
{
    let mut windows = Windows::<S>::new(&[n], n_chunks, 0);
    let read = |rows: Range<usize>, keys: &mut Vec<S::Key>| -> Result<(), usize> {
        keys.clear();
        for i in rows {
            let id = row(i);
            keys.push(key(id).ok_or(id.len())?);
        }
        Ok(())
    };
    let (parallel, mut ranges) = (windows.parallel, windows.ranges().into_iter());
    let (mut keys, mut next) = (Vec::new(), Vec::new());
    let mut rows = ranges.next().unwrap_or(0..0);
    read(rows.clone(), &mut keys)?;
    loop {
        let Some(after) = ranges.next() else {
            windows.code(&window_keys(&rows, &keys));
            return Ok(windows.finish());
        };
        let mut code = || windows.code(&window_keys(&rows, &keys));
        let mut read_next = || read(after.clone(), &mut next);
        // a long column's next window read while the pool codes this one
        let ((), read) = if parallel {
            threads::beside(code, read_next)
        } else {
            (code(), read_next())
        };
        read?;
        (rows, keys, next) = (after, next, keys);
    }
}

/// The keys of a window of `rows` (`keys`, read) as [`Windows::code`] takes them.
fn window_keys<'k, K: Copy + Sync>(
    rows: &'k Range<usize>,
    keys: &'k [K],
) -> impl Fn(usize, usize, &mut [K]) + Sync + 'k {
    move |_, a, out| out.copy_from_slice(&keys[a - rows.start..][..out.len()])
}

/// Codes, the first row of each code and the distinct keys in code order.
type Coded<K> = (Vec<i32>, Vec<i64>, Vec<K>);

/// Codes, first rows and distinct keys with the keys as [`Distinct`].
fn held<K>(e: Coded<K>) -> (Vec<i32>, Vec<i64>, Distinct)
where
    Distinct: From<Vec<K>>,
{
    (e.0, e.1, e.2.into())
}

/// The codes of the keys in `table` written to `out` (one a key; `fill(a, keys)`
/// gives the keys from the `a`-th on, as many as `keys` holds): a key the table does
/// not hold takes the next code, and is pushed on `seen` with its row (`row(i)` of
/// the `i`-th key).
///
/// The keys and their hashes are made a block of rows at a time. A first loop over
/// the block then gives each key found in its own slot its code, without a branch,
/// each slot fetched some rows before its lookup: the lookups of a block (cache
/// misses, in a table of many ids) overlap. The other keys (further along their
/// probe chain, or new: in the order of their rows, so that new keys are numbered
/// in order of first appearance) are looked up, or added, in a second loop; a key
/// equal to the key before it there (a grouped column) takes that key's code
/// without a lookup.
fn factorize_into<S: Slot>(
    table: &mut Table<S>,
    seen: &mut Seen<S::Key>,
    fill: impl Fn(usize, &mut [S::Key]),
    row: impl Fn(usize) -> i64,
    out: &mut [i32],
) {
    let mut block = [S::Key::default(); BLOCK];
    let mut hashes = [0u64; BLOCK];
    let mut later = [0u16; BLOCK];
    let mut before: Option<S::Key> = None;
    let mut code = 0u32;
    for (b, out) in out.chunks_mut(BLOCK).enumerate() {
        let start = b * BLOCK;
        let keys = &mut block[..out.len()];
        fill(start, keys);
        let n_later = home_codes(table, keys, &mut hashes, out, &mut later);
        for &j in &later[..n_later] {
            let (j, k) = (usize::from(j), keys[usize::from(j)]);
            if before != Some(k) {
                let new;
                (code, new) = table.code(k, hashes[j], seen.keys.len() as u32);
                if new {
                    seen.keys.push(k);
                    seen.first.push(row(start + j));
                }
                before = Some(k);
            }
            out[j] = code as i32;
        }
    }
}

/// Codes (in order of first appearance) of a column given in parts of `lens` rows,
/// whose keys `fill` gives (`fill(p, a, keys)`: the keys of the rows of part `p`
/// from `a` on, as many as `keys` holds), and the first row of each code (counted
/// across the parts), through one table, made with `room` for as many distinct ids
/// (at least [`LEAST_ROOM`], at most the rows): [`Windows`] of the column in turn.
/// The column's distinct keys, in the order of their codes, come with the codes (the
/// table is dropped).
pub(super) fn factorize_parts<S: Slot + Sync>(
    fill: impl Fn(usize, usize, &mut [S::Key]) + Sync,
    lens: &[usize],
    n_chunks: usize,
    room: usize,
) -> Coded<S::Key> {
    let mut windows = Windows::<S>::new(lens, n_chunks, room);
    while windows.next().is_some() {
        windows.code(&fill);
    }
    windows.finish()
}

/// A column's rows coded in windows, in order, through one table
/// ([`factorize_parts`]): [`SAMPLE`] rows, then twice as many each time up to
/// [`WINDOW`]. A window of a column whose ids are still mostly new (the first, and
/// each after a window of which more than one row in [`NEW_SHARE`] held a new id) is
/// encoded on this thread ([`factorize_into`]); the others, when `n_chunks` allows
/// more than one thread and the column has at least twice [`PARALLEL_ROWS`] rows,
/// are looked up in the table by every thread at once, in pieces (the table only
/// read: one copy in the caches, shared), and the rows of the ids the table does not
/// hold yet are then added on this thread, in the order of their rows (so that new
/// ids are numbered in order of first appearance). A column of many rows of few ids
/// (a run's items) is thus encoded in parallel but for its first window; one whose
/// ids keep coming new (each in a few rows) on one thread, as where each thread kept
/// a table of its own the tables would hold the same ids and be merged.
struct Windows<S: Slot> {
    /// The first row of each part, then the rows.
    starts: Vec<usize>,
    codes: Vec<i32>,
    table: Table<S>,
    seen: Seen<S::Key>,
    /// Whether windows may be looked up by every thread (a short column is coded on
    /// this thread alone: no hand-over to the pool per window).
    parallel: bool,
    /// Whether the next window is coded on this thread.
    alone: bool,
    /// The rows of the next window, and its first.
    window: usize,
    at: usize,
}

impl<S: Slot + Sync> Windows<S> {
    fn new(lens: &[usize], n_chunks: usize, room: usize) -> Self {
        let starts = starts_of(lens);
        let n = starts[lens.len()];
        let mut codes = crate::pages::fresh_zeros::<i32>(n);
        crate::pages::populate(&mut codes);
        let room = room.max(LEAST_ROOM).min(n);
        Windows {
            starts,
            codes,
            table: Table::<S>::with_room(room),
            seen: Seen::default(),
            parallel: n_chunks > 1 && n >= 2 * PARALLEL_ROWS,
            // the first window (SAMPLE rows) on this thread: every id in it is new
            // to the table
            alone: true,
            window: SAMPLE,
            at: 0,
        }
    }

    /// The rows of the window [`Windows::code`] codes next (counted across the
    /// parts), None when every row is coded.
    fn next(&self) -> Option<std::ops::Range<usize>> {
        let n = self.codes.len();
        (self.at < n).then(|| self.at..(self.at + self.window).min(n))
    }

    /// The rows of each window left, in the order [`Windows::code`] codes them.
    fn ranges(&self) -> Vec<Range<usize>> {
        let (n, mut at, mut window) = (self.codes.len(), self.at, self.window);
        let mut ranges = Vec::new();
        while at < n {
            ranges.push(at..(at + window).min(n));
            (at, window) = ((at + window).min(n), grown(window));
        }
        ranges
    }

    /// Code the rows of the next window, whose keys `fill` gives (as
    /// [`factorize_parts`]'s); a call after the last window does nothing.
    fn code(&mut self, fill: &(impl Fn(usize, usize, &mut [S::Key]) + Sync)) {
        let Some(rows) = self.next() else { return };
        let (at, end) = (rows.start, rows.end);
        let starts = &self.starts;
        let (table, seen, codes) = (&mut self.table, &mut self.seen, &mut self.codes);
        let alone = self.alone || !self.parallel;
        let pieces = pieces_of(starts, at, end, if alone { codes.len() } else { PIECE });
        if alone {
            let before = seen.keys.len();
            for (p, a, b) in pieces {
                let row = |i: usize| (starts[p] + a + i) as i64;
                let out = &mut codes[starts[p] + a..starts[p] + b];
                factorize_into(table, seen, |i, k| fill(p, a + i, k), row, out);
            }
            // most of the first rows new ids: room for as many ids as they tell of
            // at once (at most MOST_ROOM), not grown by doubling (a copy of every
            // id each time)
            if end == SAMPLE {
                if let Some(ids) = many_new(codes.len(), seen.keys.len(), SAMPLE) {
                    table.reserve(ids);
                }
            }
            self.alone = NEW_SHARE * (seen.keys.len() - before) > end - at;
        } else {
            let bounds: Vec<usize> = pieces
                .iter()
                .map(|&(p, a, _)| starts[p] + a)
                .chain([end])
                .collect();
            let outs = threads::split_at_bounds(&mut codes[at..end], &bounds);
            let table_ref = &*table;
            // the rows (keys, hashes) of the ids the table lacks, for this thread to add
            let look = |(&(p, a, _), out): (&(usize, usize, usize), &mut [i32])| {
                let mut missed = Vec::new();
                let fill = |i, k: &mut [S::Key]| fill(p, a + i, k);
                lookup_into(table_ref, fill, out, |i, k, h| {
                    missed.push((starts[p] + a + i, k, h));
                    -1
                });
                missed
            };
            let missed: Vec<Vec<(usize, S::Key, u64)>> = threads::install(|| {
                pieces
                    .par_iter()
                    .zip(outs.into_par_iter())
                    .map(look)
                    .collect()
            });
            let mut n_missed = 0;
            for (row, key, hash) in missed.into_iter().flatten() {
                let (code, new) = table.code(key, hash, seen.keys.len() as u32);
                if new {
                    seen.keys.push(key);
                    seen.first.push(row as i64);
                }
                codes[row] = code as i32;
                n_missed += 1;
            }
            self.alone = NEW_SHARE * n_missed > end - at;
        }
        (self.at, self.window) = (end, grown(self.window));
    }

    /// The codes, the first row of each code and the distinct keys in code order.
    fn finish(self) -> Coded<S::Key> {
        (self.codes, self.seen.first, self.seen.keys)
    }
}

/// The rows of the window after one of `window` rows.
fn grown(window: usize) -> usize {
    (2 * window).min(WINDOW)
}

/// The rows a window of a column takes at a time ([`factorize_parts`]): about 1 MiB
/// of codes, a few milliseconds of lookups.
const WINDOW: usize = 1 << 18;

/// The rows of a piece of a window looked up by one thread.
const PIECE: usize = 1 << 15;

/// A window with more than one row in `NEW_SHARE` of new ids (or missed by the
/// table) makes the next one encoded on one thread ([`factorize_parts`]).
const NEW_SHARE: usize = 8;

/// The rows `at..end` of a column of parts that begin at `starts` (then the rows),
/// as pieces `(part, first row, end)` (rows counted in the part) of at most `most`
/// rows, none across two parts.
fn pieces_of(starts: &[usize], at: usize, end: usize, most: usize) -> Vec<(usize, usize, usize)> {
    let mut pieces = Vec::new();
    let first = starts.partition_point(|&s| s <= at) - 1;
    for p in first..starts.len() - 1 {
        let (a, b) = (at.max(starts[p]), end.min(starts[p + 1]));
        if a >= end {
            break;
        }
        let mut from = a;
        while from < b {
            let to = (from + most).min(b);
            pieces.push((p, from - starts[p], to - starts[p]));
            from = to;
        }
    }
    pieces
}

/// The rows of a block of keys hashed, and their slots fetched, before any is
/// looked up ([`home_codes`]; a CSV file's ids met a block at a time too).
pub(crate) const BLOCK: usize = 64;

/// The codes of a block of keys in their own slot (the first of their probe chain:
/// most keys of a table at most 3/4 full) written to `out`, without a branch, each
/// key's slot fetched some rows before its lookup ([`Table::hash_and_fetch`]: the
/// cache misses of a block overlap); the other keys (further along their chain, or
/// not held) are listed in `later` (their count returned), in order, with any code.
#[inline(always)]
fn home_codes<S: Slot>(
    table: &Table<S>,
    keys: &[S::Key],
    hashes: &mut [u64; BLOCK],
    out: &mut [i32],
    later: &mut [u16; BLOCK],
) -> usize {
    let n = keys.len().min(out.len()).min(BLOCK);
    let (keys, out, hashes) = (&keys[..n], &mut out[..n], &mut hashes[..n]);
    table.hash_and_fetch(keys, hashes);
    let mut n_later = 0;
    for j in 0..n {
        let (c, home) = table.at_home(keys[j], hashes[j]);
        out[j] = c as i32;
        // n_later <= j < BLOCK: the mask only spares the bounds check
        later[n_later & (BLOCK - 1)] = j as u16;
        n_later += usize::from(!home);
    }
    n_later
}

/// The codes in `table` (only read) of keys (`fill(a, keys)`: from the `a`-th on, as
/// many as `keys` holds) written to `out`; a key the table does not hold takes
/// `missed(i, key, hash)` (`i`: its position in `out`; `hash`: the key's, for the
/// table to add it without hashing it again). Blocks of keys as in
/// [`factorize_into`] ([`home_codes`], then the others along their probe chain).
fn lookup_into<S: Slot>(
    table: &Table<S>,
    fill: impl Fn(usize, &mut [S::Key]),
    out: &mut [i32],
    mut missed: impl FnMut(usize, S::Key, u64) -> i32,
) {
    let (mut keys, mut hashes) = ([S::Key::default(); BLOCK], [0u64; BLOCK]);
    let mut later = [0u16; BLOCK];
    for (b, out) in out.chunks_mut(BLOCK).enumerate() {
        let keys = &mut keys[..out.len()];
        fill(b * BLOCK, keys);
        let n_later = home_codes(table, keys, &mut hashes, out, &mut later);
        for &j in &later[..n_later] {
            let (j, k) = (usize::from(j), keys[usize::from(j)]);
            out[j] = match table.get(k, hashes[j]) {
                Some(c) => c as i32,
                None => missed(b * BLOCK + j, k, hashes[j]),
            };
        }
    }
}

/// The first row of each of parts of `lens` rows, then the rows of all.
fn starts_of(lens: &[usize]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lens.len() + 1);
    starts.push(0);
    for &l in lens {
        starts.push(starts[starts.len() - 1] + l);
    }
    starts
}

/// The keys a table took, in the order of their codes, and the row of each.
#[derive(Default)]
struct Seen<K> {
    keys: Vec<K>,
    first: Vec<i64>,
}

#[cfg(test)]
pub(crate) mod tests;
