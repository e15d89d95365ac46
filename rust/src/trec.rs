//! TREC qrels and run text, read in windows and parsed in parallel pieces, with the
//! user and item ids encoded to dense codes (in order of first appearance) while
//! parsing.
//!
//! Lines are split on ASCII whitespace; blank lines and lines starting with `#` are
//! skipped. A qrels line has exactly 4 fields (`user iteration item grade`), a run
//! line at least 6 (`user Q0 item rank score tag`; fields after the tag are ignored,
//! as trec_eval ignores them). Errors name the 1-based line; when a file has several
//! problems the first line with a wrong number of fields wins, then the first value
//! that is not a number, then the first score that is not finite.
//!
//! The text is parsed in windows of whole lines: a plain file is mapped into memory
//! and each window parsed is dropped from the map; gzip is decompressed into
//! windows by a thread of its own while the previous window is parsed. Memory
//! holds a window or two of text next to the output, never the whole file. A
//! window is cut into pieces at line ends, parsed in parallel: each piece looks its
//! ids up in the codes of the windows before (read only) and numbers the ids it is
//! the first to see in a table of its own; the pieces' new ids then get their codes
//! in file order, and the rows are written to the output with the final codes. The
//! result does not depend on the sizes of windows and pieces, nor on the threads.

use std::hash::BuildHasher;
use std::io::{self, Read};

use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::FxBuildHasher;

use crate::threads;

/// What a file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `user iteration item grade`
    Qrels,
    /// `user Q0 item rank score tag`
    Run,
}

/// Why a file was refused, and where.
#[derive(Clone, PartialEq, Debug)]
pub enum TrecError {
    /// A line with another number of fields: (line, fields found, the line's text).
    Fields(usize, usize, Vec<u8>),
    /// A grade or score that does not parse: (line, the value's text).
    Number(usize, Vec<u8>),
    /// A score that parses but is not finite: (line, value).
    NotFinite(usize, f64),
}

impl TrecError {
    fn rank(&self) -> (u8, usize) {
        match self {
            TrecError::Fields(line, ..) => (0, *line),
            TrecError::Number(line, _) => (1, *line),
            TrecError::NotFinite(line, _) => (2, *line),
        }
    }

    fn shifted(self, lines: usize) -> Self {
        match self {
            TrecError::Fields(l, k, t) => TrecError::Fields(l + lines, k, t),
            TrecError::Number(l, t) => TrecError::Number(l + lines, t),
            TrecError::NotFinite(l, v) => TrecError::NotFinite(l + lines, v),
        }
    }
}

fn keep_first(slot: &mut Option<TrecError>, e: TrecError) {
    if slot.as_ref().is_none_or(|old| e.rank() < old.rank()) {
        *slot = Some(e);
    }
}

/// Distinct ids, by code: their bytes one after another.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Ids {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Ids {
    /// The number of ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no id.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The id of `code`.
    pub fn get(&self, code: usize) -> &[u8] {
        let start = if code == 0 { 0 } else { self.ends[code - 1] };
        &self.bytes[start..self.ends[code]]
    }

    /// The ids in code order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> {
        (0..self.len()).map(|c| self.get(c))
    }

    fn push(&mut self, id: &[u8]) {
        self.bytes.extend_from_slice(id);
        self.ends.push(self.bytes.len());
    }
}

/// The user of each row: CSR offsets when the rows are grouped by user in code order
/// (the rows of user `u` are `offsets[u]..offsets[u + 1]`), else a code per row.
#[derive(Debug, Clone, PartialEq)]
pub enum Users {
    /// `n_users + 1` offsets (grouped rows).
    Offsets(Vec<i64>),
    /// One code per row.
    Codes(Vec<i32>),
}

impl Users {
    /// The code of every row.
    pub fn codes(&self) -> Vec<i32> {
        match self {
            Users::Codes(c) => c.clone(),
            Users::Offsets(o) => {
                let mut out = Vec::with_capacity(*o.last().unwrap_or(&0) as usize);
                for (u, w) in o.windows(2).enumerate() {
                    out.resize(w[1] as usize, u as i32);
                }
                out
            }
        }
    }

    /// Append `n` rows of user `code`.
    fn push_run(&mut self, code: u32, n: usize) {
        if let Users::Offsets(o) = self {
            let users = o.len() - 1;
            let end = o[users];
            if users > 0 && code as usize == users - 1 {
                o[users] = end + n as i64; // the last user goes on
                return;
            }
            if code as usize == users {
                o.push(end + n as i64); // the next new user
                return;
            }
            *self = Users::Codes(self.codes()); // a user seen before: not grouped
        }
        if let Users::Codes(c) = self {
            c.resize(c.len() + n, code as i32);
        }
    }
}

/// A parsed file: the user and item of each row, the distinct ids in order of first
/// appearance, the grades (qrels) or scores (run), and the first run tag.
#[derive(Debug)]
pub struct Parsed {
    /// User of each row.
    pub users: Users,
    /// Item code of each row.
    pub items: Vec<i32>,
    /// Distinct user ids, by code.
    pub user_ids: Ids,
    /// Distinct item ids, by code.
    pub item_ids: Ids,
    /// Grades of a qrels file.
    pub grades: Vec<i64>,
    /// Scores of a run file.
    pub scores: Vec<f64>,
    /// The tag of the first run line.
    pub tag: Option<Vec<u8>>,
}

// ------------------------------------------------------------------ ids
/// An id as the tables look it up: at most 15 bytes as one integer (its bytes and
/// its length), so that a lookup reads the table only, not the text at the id (a
/// random access into a large buffer costs a cache and a TLB miss), and its hash.
#[derive(Clone, Copy)]
struct Key {
    short: Option<u128>,
    hash: u64,
}

/// One multiply, both halves of the product folded.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let r = (a as u128) * (b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

impl Key {
    #[inline(always)]
    fn new(data: &[u8], start: usize, end: usize) -> Key {
        match short_bits(data, start, end) {
            Some(k) => Key {
                short: Some(k),
                hash: short_hash(k),
            },
            None => Key {
                short: None,
                hash: FxBuildHasher.hash_one(&data[start..end]),
            },
        }
    }
}

/// `LOW_BYTES[n]`: the lowest `n` bytes of a u128 set.
const LOW_BYTES: [u128; 16] = {
    let mut out = [0u128; 16];
    let mut n = 1;
    while n < 16 {
        out[n] = (1u128 << (8 * n)) - 1;
        n += 1;
    }
    out
};

/// The id `data[start..end]` as one integer (its bytes, its length in the top
/// byte) when it has at most 15 bytes.
#[inline(always)]
fn short_bits(data: &[u8], start: usize, end: usize) -> Option<u128> {
    let len = end - start;
    if len >= 16 {
        return None;
    }
    let raw = match data.get(start..start + 16) {
        Some(b) => u128::from_le_bytes(b.try_into().unwrap_or([0; 16])),
        None => {
            let mut b = [0u8; 16];
            b[..len].copy_from_slice(&data[start..end]);
            u128::from_le_bytes(b)
        }
    };
    Some((raw & LOW_BYTES[len]) | ((len as u128) << 120))
}

#[inline(always)]
fn short_hash(k: u128) -> u64 {
    let h = fold(k as u64 ^ 0x243f_6a88_85a3_08d3, 0x9e37_79b9_7f4a_7c15);
    fold(h ^ (k >> 64) as u64, 0x1319_8a2e_0370_7345)
}

/// A slot of a [`ShortCodes`] table: a short key (0: empty) and its code.
trait Slot: Copy + Default {
    fn new(key: u128, code: u32) -> Self;
    fn key(self) -> u128;
    fn code(self) -> u32;
}

/// Bits 88..120 of a short key: zero for ids of at most 11 bytes.
const PACKED_CODE: u128 = (u32::MAX as u128) << 88;

/// Ids of at most 11 bytes leave the bytes 11 to 14 of their key zero: the code
/// goes there, and a slot is 16 bytes, four to a cache line.
impl Slot for u128 {
    #[inline(always)]
    fn new(key: u128, code: u32) -> Self {
        key | (code as u128) << 88
    }
    #[inline(always)]
    fn key(self) -> u128 {
        self & !PACKED_CODE
    }
    #[inline(always)]
    fn code(self) -> u32 {
        (self >> 88) as u32
    }
}

/// A slot of an id of 12 to 15 bytes: 32 bytes, two to a cache line.
#[derive(Clone, Copy, Default)]
struct Wide {
    key: u128,
    code: u32,
}

impl Slot for Wide {
    #[inline(always)]
    fn new(key: u128, code: u32) -> Self {
        Wide { key, code }
    }
    #[inline(always)]
    fn key(self) -> u128 {
        self.key
    }
    #[inline(always)]
    fn code(self) -> u32 {
        self.code
    }
}

/// Codes of short keys: open addressing with linear probing, at most 3/4 full, so
/// that a lookup mostly reads one cache line, which the parser fetches some rows
/// before it needs it.
struct ShortCodes<S> {
    slots: Vec<S>,
    len: usize,
}

impl<S: Slot> Default for ShortCodes<S> {
    fn default() -> Self {
        ShortCodes {
            slots: vec![S::default(); 16],
            len: 0,
        }
    }
}

impl<S: Slot> ShortCodes<S> {
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

    #[inline(always)]
    fn get(&self, key: u128, hash: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            if s.key() == key {
                return Some(s.code());
            }
            if s.key() == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }

    /// Empty the table (keeping its size).
    fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill(S::default());
            self.len = 0;
        }
    }

    /// Add a key that the table does not hold.
    fn insert(&mut self, key: u128, hash: u64, code: u32) {
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            let bigger = vec![S::default(); 2 * self.slots.len()];
            let old = std::mem::replace(&mut self.slots, bigger);
            self.len = 0;
            for s in old.into_iter().filter(|s| s.key() != 0) {
                self.insert(s.key(), short_hash(s.key()), s.code());
            }
        }
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i].key() != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = S::new(key, code);
        self.len += 1;
    }
}

/// Whether a short key is of an id of at most 11 bytes (a packed slot).
#[inline(always)]
fn packs(key: u128) -> bool {
    (key >> 120) <= 11
}

/// The codes of the ids of the windows read so far (owns the ids).
#[derive(Default)]
struct IdCodes {
    packed: ShortCodes<u128>,
    wide: ShortCodes<Wide>,
    long: HashTable<(u64, u32)>,
    ids: Ids,
}

impl IdCodes {
    /// Fetch the slot of a short key into the cache.
    #[inline(always)]
    fn prefetch(&self, key: &Key) {
        match key.short {
            Some(k) if packs(k) => self.packed.prefetch(key.hash),
            Some(_) => self.wide.prefetch(key.hash),
            None => {}
        }
    }

    #[inline(always)]
    fn get(&self, id: &[u8], key: &Key) -> Option<u32> {
        match key.short {
            Some(k) if packs(k) => self.packed.get(k, key.hash),
            Some(k) => self.wide.get(k, key.hash),
            None => self
                .long
                .find(key.hash, |&(h, c)| {
                    h == key.hash && self.ids.get(c as usize) == id
                })
                .map(|&(_, c)| c),
        }
    }

    /// The code of `id` (of key `key`), a new one if it is new.
    #[inline(never)]
    fn code(&mut self, id: &[u8], key: &Key) -> io::Result<u32> {
        if let Some(c) = self.get(id, key) {
            return Ok(c);
        }
        let c = self.ids.len();
        if c >= LOCAL as usize {
            return Err(too_many_ids());
        }
        let c = c as u32;
        match key.short {
            Some(k) if packs(k) => self.packed.insert(k, key.hash, c),
            Some(k) => self.wide.insert(k, key.hash, c),
            None => {
                self.long
                    .insert_unique(key.hash, (key.hash, c), |&(h, _)| h);
            }
        }
        self.ids.push(id);
        Ok(c)
    }
}

fn too_many_ids() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "more than 2^31 - 1 distinct ids",
    )
}

/// Tag of a code local to a piece (an id the codes so far do not hold).
const LOCAL: u32 = 1 << 31;

/// The ids a piece sees first, numbered in order of first appearance: their bounds
/// in the piece's text and their keys.
#[derive(Default)]
struct NewIds {
    packed: ShortCodes<u128>,
    wide: ShortCodes<Wide>,
    long: HashTable<(u64, u32)>,
    ids: Vec<(usize, usize, Key)>,
}

impl NewIds {
    fn clear(&mut self) {
        self.packed.clear();
        self.wide.clear();
        self.long.clear();
        self.ids.clear();
    }
}

/// Where the ids of a piece that the codes so far do not hold get their codes.
trait NewCodes {
    /// Fetch the table slot of `key` into the cache.
    fn prefetch(&self, key: &Key);
    /// The code of the id `data[start..end]` (of key `key`).
    fn code(&mut self, data: &[u8], start: usize, end: usize, key: &Key) -> u32;
}

/// A piece parsed alone: its new ids get their final codes at once (the codes
/// "so far" it is given are then empty).
struct Direct<'t> {
    table: &'t mut IdCodes,
    full: bool,
}

impl NewCodes for Direct<'_> {
    #[inline(always)]
    fn prefetch(&self, key: &Key) {
        self.table.prefetch(key);
    }

    #[inline(always)]
    fn code(&mut self, data: &[u8], start: usize, end: usize, key: &Key) -> u32 {
        let id = &data[start..end];
        if let Some(c) = self.table.get(id, key) {
            return c;
        }
        self.table.code(id, key).unwrap_or_else(|_| {
            self.full = true;
            0
        })
    }
}

/// A piece parsed next to others: codes tagged [`LOCAL`] for the ids it sees first.
impl NewCodes for NewIds {
    #[inline(always)]
    fn prefetch(&self, _: &Key) {}

    #[inline(never)]
    fn code(&mut self, data: &[u8], start: usize, end: usize, key: &Key) -> u32 {
        let id = &data[start..end];
        let found = match key.short {
            Some(k) if packs(k) => self.packed.get(k, key.hash),
            Some(k) => self.wide.get(k, key.hash),
            None => {
                let ids = &self.ids;
                let same = |&(h, c): &(u64, u32)| {
                    let (s, e, _) = ids[(c ^ LOCAL) as usize];
                    h == key.hash && &data[s..e] == id
                };
                self.long.find(key.hash, same).map(|&(_, c)| c)
            }
        };
        if let Some(c) = found {
            return c;
        }
        let c = self.ids.len() as u32 | LOCAL;
        match key.short {
            Some(k) if packs(k) => self.packed.insert(k, key.hash, c),
            Some(k) => self.wide.insert(k, key.hash, c),
            None => {
                self.long
                    .insert_unique(key.hash, (key.hash, c), |&(h, _)| h);
            }
        }
        self.ids.push((start, end, *key));
        c
    }
}

// ------------------------------------------------------------------ fields
/// The first fields of a line (bounds in the piece) and how many it has.
struct Fields {
    n: usize,
    at: [(usize, usize); 6],
}

#[inline(always)]
fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace()
}

/// Fields of `data[start..end]`, byte by byte.
fn fields_scalar(data: &[u8], start: usize, end: usize) -> Fields {
    let mut f = Fields {
        n: 0,
        at: [(0, 0); 6],
    };
    let mut i = start;
    loop {
        while i < end && is_space(data[i]) {
            i += 1;
        }
        if i == end {
            return f;
        }
        let s = i;
        while i < end && !is_space(data[i]) {
            i += 1;
        }
        if f.n < 6 {
            f.at[f.n] = (s, i);
        }
        f.n += 1;
    }
}

/// Bits of `block` that are ASCII whitespace other than newlines, and newlines.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; the loads read the 64 bytes of `block`
    unsafe {
        let space = _mm_set1_epi8(b' ' as i8);
        let tab = _mm_set1_epi8(b'\t' as i8);
        let cr = _mm_set1_epi8(b'\r' as i8);
        let ff = _mm_set1_epi8(0x0c);
        let nl = _mm_set1_epi8(b'\n' as i8);
        let (mut spaces, mut newlines) = (0u64, 0u64);
        for j in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * j) as *const __m128i);
            let m = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, ff)),
            );
            spaces |= (_mm_movemask_epi8(m) as u32 as u64) << (16 * j);
            newlines |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u32 as u64) << (16 * j);
        }
        (spaces, newlines)
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    let (mut spaces, mut newlines) = (0u64, 0u64);
    for (i, &b) in block.iter().enumerate() {
        spaces |= ((b != b'\n' && is_space(b)) as u64) << i;
        newlines |= ((b == b'\n') as u64) << i;
    }
    (spaces, newlines)
}

/// Fields of a line of `len < 64` bytes at `start` from its whitespace bits.
#[inline(always)]
fn fields_of_mask(spaces: u64, start: usize, len: usize) -> Fields {
    let spaces = spaces | (!0u64 << len);
    let words = !spaces;
    let mut starts = words & !(words << 1);
    let mut ends = spaces & (words << 1);
    let mut f = Fields {
        n: starts.count_ones() as usize,
        at: [(0, 0); 6],
    };
    // six steps whatever the count (a loop of constant length is unrolled); the
    // steps past the last field write 64, never read
    for at in f.at.iter_mut() {
        let (s, e) = (starts.trailing_zeros(), ends.trailing_zeros());
        *at = (start + s as usize, start + e as usize);
        starts &= starts.wrapping_sub(1);
        ends &= ends.wrapping_sub(1);
    }
    f
}

/// The end of the line at `start` (its newline, or the end of `data`) and its fields:
/// from whitespace and newline bit masks when the line has fewer than 64 bytes,
/// byte by byte otherwise.
#[inline(always)]
fn line_fields(data: &[u8], start: usize) -> (usize, Fields) {
    if let Some(b) = data.get(start..start + 64) {
        let (spaces, newlines) = masks(b.try_into().unwrap_or(&[0; 64]));
        if newlines != 0 {
            let len = newlines.trailing_zeros() as usize;
            return (start + len, fields_of_mask(spaces, start, len));
        }
    }
    let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
    (end, fields(data, start, end))
}

/// Fields of the line `data[start..end]`.
fn fields(data: &[u8], start: usize, end: usize) -> Fields {
    let len = end - start;
    if len >= 64 {
        return fields_scalar(data, start, end);
    }
    let mut b = [0u8; 64];
    b[..len].copy_from_slice(&data[start..end]);
    fields_of_mask(masks(&b).0, start, len)
}

// ------------------------------------------------------------------ numbers
/// Powers of ten that are exact in a float64.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A score as Rust's `str::parse::<f64>` reads it (correctly rounded).
///
/// Plain decimals (`[+-]digits[.digits]`) whose digits make an integer of at most
/// 2^53 with at most 22 after the point take the exact path of every correctly
/// rounding parser: that integer and the power of ten are exact float64s, so one
/// division (correctly rounded by IEEE 754) gives the correctly rounded value.
/// Everything else (exponents, more digits, inf, nan, errors) goes to fast-float2.
#[inline(always)]
fn parse_score(text: &[u8]) -> Result<f64, fast_float2::Error> {
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut mantissa = 0u64;
    let mut point = None;
    let mut n = 0; // digits
    for (i, &b) in digits.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d < 10 {
            if n == 19 {
                return fast_float2::parse(text);
            }
            mantissa = mantissa * 10 + d as u64;
            n += 1;
        } else if b == b'.' && point.is_none() {
            point = Some(i);
        } else {
            return fast_float2::parse(text);
        }
    }
    let after = point.map_or(0, |p| digits.len() - p - 1);
    if n == 0 || mantissa > 1 << 53 || after > 22 {
        return fast_float2::parse(text);
    }
    let value = mantissa as f64 / EXACT_POWERS[after];
    Ok(if negative { -value } else { value })
}

// ------------------------------------------------------------------ pieces
/// The rows of a piece, its codes tagged [`LOCAL`] where the piece saw an id first.
#[derive(Default)]
struct Rows {
    /// (user code, rows) of each run of rows of one user
    runs: Vec<(u32, u32)>,
    items: Vec<u32>,
    grades: Vec<i64>,
    scores: Vec<f64>,
    /// bounds of the first run tag
    tag: Option<(usize, usize)>,
    lines: usize,
    error: Option<TrecError>,
}

/// A piece's rows and the ids it saw first (kept from window to window, so that
/// their buffers are allocated once).
#[derive(Default)]
struct Piece {
    rows: Rows,
    new_users: NewIds,
    new_items: NewIds,
}

/// Rows between the fetch of an item's slot and its lookup.
const AHEAD: usize = 8;

/// Parse the lines of `data` into `p` (emptied first): the codes of ids in `users`
/// and `items` (the windows before), of the others from `new_users`, `new_items`.
///
/// The tables looked up on every row are arguments of their own (not fields of a
/// struct passed by reference), so that the compiler keeps their addresses in
/// registers across the writes of the rows.
#[inline(never)]
fn parse_piece(
    p: &mut Rows,
    data: &[u8],
    kind: Kind,
    (users, new_users): (&IdCodes, &mut impl NewCodes),
    (items, new_items): (&IdCodes, &mut impl NewCodes),
) {
    p.runs.clear();
    p.items.clear();
    p.grades.clear();
    p.scores.clear();
    p.tag = None;
    p.lines = 0;
    p.error = None;
    let rows = data.len() / 24;
    p.items.reserve(rows);
    match kind {
        Kind::Qrels => p.grades.reserve(rows),
        Kind::Run => p.scores.reserve(rows),
    }
    let mut last_user: (Option<u128>, &[u8]) = (None, &[]);
    let none = Key {
        short: None,
        hash: 0,
    };
    let mut pending: [(usize, usize, usize, Key); AHEAD] = [(0, 0, 0, none); AHEAD];
    let mut start = 0;
    while start < data.len() {
        let (end, f) = line_fields(data, start);
        p.lines += 1;
        let line_start = start;
        start = end + 1;
        if f.n == 0 || data[f.at[0].0] == b'#' {
            continue;
        }
        let wrong = match kind {
            Kind::Qrels => f.n != 4,
            Kind::Run => f.n < 6,
        };
        if wrong {
            let raw = &data[line_start..end];
            let text = raw.strip_suffix(b"\r").unwrap_or(raw).to_vec();
            keep_first(&mut p.error, TrecError::Fields(p.lines, f.n, text));
            continue;
        }
        if p.error.as_ref().is_some_and(|e| e.rank().0 == 0) {
            continue; // a line with the wrong fields came first: nothing else is reported
        }
        let (us, ue) = f.at[0];
        let user = (short_bits(data, us, ue), &data[us..ue]);
        let same = match user.0 {
            Some(k) => last_user.0 == Some(k),
            None => last_user.0.is_none() && last_user.1 == user.1,
        };
        match p.runs.last_mut() {
            Some(run) if same => run.1 += 1,
            _ => {
                let key = Key::new(data, us, ue);
                let code = match users.get(user.1, &key) {
                    Some(c) => c,
                    None => new_users.code(data, us, ue, &key),
                };
                match p.runs.last_mut() {
                    Some(run) if run.0 == code => run.1 += 1,
                    _ => p.runs.push((code, 1)),
                }
                last_user = user;
            }
        }
        // the item's slot is fetched now and looked up AHEAD rows later
        let (is, ie) = f.at[2];
        let key = Key::new(data, is, ie);
        items.prefetch(&key);
        new_items.prefetch(&key);
        let row = p.items.len();
        p.items.push(0);
        let slot = &mut pending[row % AHEAD];
        if row >= AHEAD {
            let (r, s, e, k) = *slot;
            p.items[r] = match items.get(&data[s..e], &k) {
                Some(c) => c,
                None => new_items.code(data, s, e, &k),
            };
        }
        *slot = (row, is, ie, key);
        match kind {
            Kind::Qrels => {
                let text = &data[f.at[3].0..f.at[3].1];
                match std::str::from_utf8(text)
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
                {
                    Some(g) => p.grades.push(g),
                    None => {
                        keep_first(&mut p.error, TrecError::Number(p.lines, text.to_vec()));
                        p.grades.push(0);
                    }
                }
            }
            Kind::Run => {
                if p.tag.is_none() {
                    p.tag = Some(f.at[5]);
                }
                let text = &data[f.at[4].0..f.at[4].1];
                match parse_score(text) {
                    Ok(s) => {
                        if !s.is_finite() {
                            keep_first(&mut p.error, TrecError::NotFinite(p.lines, s));
                        }
                        p.scores.push(s);
                    }
                    Err(_) => {
                        keep_first(&mut p.error, TrecError::Number(p.lines, text.to_vec()));
                        p.scores.push(0.0);
                    }
                }
            }
        }
    }
    // the items still pending, in order (local codes follow the rows)
    let n = p.items.len();
    for row in n.saturating_sub(AHEAD)..n {
        let (r, s, e, k) = pending[row % AHEAD];
        p.items[r] = match items.get(&data[s..e], &k) {
            Some(c) => c,
            None => new_items.code(data, s, e, &k),
        };
    }
}

/// Cut `data` into about `n` pieces at line ends.
fn pieces(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let cut = (data.len() * k / n).max(start);
        let Some(at) = memchr::memchr(b'\n', &data[cut..]) else {
            break;
        };
        out.push(&data[start..=cut + at]);
        start = cut + at + 1;
        if start >= data.len() {
            break;
        }
    }
    if start < data.len() || out.is_empty() {
        out.push(&data[start..]);
    }
    out
}

// ------------------------------------------------------------------ windows
/// Sizes of the reading: a first window of one piece (small, so that the pieces
/// of the next windows find most ids among its codes), then windows of twice as
/// many pieces each time, up to `max_pieces`.
///
/// A window whose rows bring more than `alone` new ids each (on average) has the
/// next window parsed as one piece: pieces in parallel number their new ids twice
/// (on their own, then in file order), which does not pay when most rows bring
/// one (qrels, where most judged items appear once).
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// Bytes of the first window.
    pub first: usize,
    /// Bytes of a piece.
    pub piece: usize,
    /// Pieces of a window at most.
    pub max_pieces: usize,
    /// New ids per row above which the next window is parsed as one piece.
    pub alone: f64,
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            first: 1 << 20,
            piece: 4 << 20,
            max_pieces: (2 * threads::num_threads()).max(8),
            alone: 0.5,
        }
    }
}

impl Sizes {
    /// Pieces of window `k` (the first is window 0).
    fn pieces(&self, k: usize) -> usize {
        1usize
            .checked_shl(k.min(63) as u32)
            .unwrap_or(usize::MAX)
            .min(self.max_pieces.max(1))
    }

    /// Bytes of window `k`.
    fn bytes(&self, k: usize) -> usize {
        if k == 0 {
            self.first.max(1)
        } else {
            self.pieces(k).saturating_mul(self.piece.max(1))
        }
    }
}

/// Everything read so far.
struct State {
    kind: Kind,
    users: IdCodes,
    items: IdCodes,
    rows: Users,
    item_codes: Vec<i32>,
    grades: Vec<i64>,
    scores: Vec<f64>,
    tag: Option<Vec<u8>>,
    lines: usize,
    error: Option<TrecError>,
    /// the pieces of the last window, reused
    pieces: Vec<Piece>,
    /// whether the next window is parsed as one piece
    direct: bool,
    /// new ids per row above which it is (see [`Sizes`])
    alone: f64,
}

impl State {
    fn new(kind: Kind, alone: f64) -> Self {
        State {
            kind,
            users: IdCodes::default(),
            items: IdCodes::default(),
            rows: Users::Offsets(vec![0]),
            item_codes: Vec::new(),
            grades: Vec::new(),
            scores: Vec::new(),
            tag: None,
            lines: 0,
            error: None,
            pieces: Vec::new(),
            direct: true,
            alone,
        }
    }

    /// Parse a window of whole lines (the last one may lack its newline) in
    /// `n_pieces` pieces.
    fn window(&mut self, data: &[u8], n_pieces: usize) -> io::Result<()> {
        if self.error.as_ref().is_some_and(|e| e.rank().0 == 0) {
            return Ok(()); // nothing after a line with the wrong fields is reported
        }
        let alone = n_pieces == 1 || self.direct;
        let parts = if alone {
            vec![data]
        } else {
            pieces(data, n_pieces)
        };
        if self.pieces.len() < parts.len() {
            self.pieces.resize_with(parts.len(), Piece::default);
        }
        let kind = self.kind;
        let parsed = &mut self.pieces[..parts.len()];
        let before = self.users.ids.len() + self.items.ids.len();
        if alone {
            // the ids get their final codes at once (no codes "so far" to look up)
            let none = IdCodes::default();
            let mut users = Direct {
                table: &mut self.users,
                full: false,
            };
            let mut items = Direct {
                table: &mut self.items,
                full: false,
            };
            let p = &mut parsed[0];
            p.new_users.clear();
            p.new_items.clear();
            let (users_, items_) = ((&none, &mut users), (&none, &mut items));
            parse_piece(&mut p.rows, data, kind, users_, items_);
            if users.full || items.full {
                return Err(too_many_ids());
            }
        } else {
            let (users, items) = (&self.users, &self.items);
            threads::install(|| {
                parsed.par_iter_mut().zip(&parts).for_each(|(p, d)| {
                    p.new_users.clear();
                    p.new_items.clear();
                    let (users_, items_) = ((users, &mut p.new_users), (items, &mut p.new_items));
                    parse_piece(&mut p.rows, d, kind, users_, items_);
                })
            });
        }
        let parsed = &parsed[..];
        // the new ids get their codes in file order: piece by piece, each in its order
        let mut user_maps = Vec::with_capacity(parts.len());
        let mut item_maps = Vec::with_capacity(parts.len());
        for (p, d) in parsed.iter().zip(&parts) {
            if let Some(e) = &p.rows.error {
                keep_first(&mut self.error, e.clone().shifted(self.lines));
            }
            self.lines += p.rows.lines;
            if self.tag.is_none() {
                self.tag = p.rows.tag.map(|(s, e)| d[s..e].to_vec());
            }
            let codes = |known: &mut IdCodes, new: &NewIds| -> io::Result<Vec<u32>> {
                let mut out = Vec::with_capacity(new.ids.len());
                for (j, (s, e, k)) in new.ids.iter().enumerate() {
                    if let Some((_, _, ahead)) = new.ids.get(j + AHEAD) {
                        known.prefetch(ahead);
                    }
                    out.push(known.code(&d[*s..*e], k)?);
                }
                Ok(out)
            };
            user_maps.push(codes(&mut self.users, &p.new_users)?);
            item_maps.push(codes(&mut self.items, &p.new_items)?);
        }
        // a window where most rows bring a new id: the next one is parsed alone (the
        // pieces would number their new ids twice, once on their own, once here)
        let rows: usize = parsed.iter().map(|p| p.rows.items.len()).sum();
        let new = self.users.ids.len() + self.items.ids.len() - before;
        self.direct = new as f64 > self.alone * rows as f64;
        if self.error.is_some() {
            return Ok(()); // the rows are not needed
        }
        for (p, map) in parsed.iter().zip(&user_maps) {
            for &(c, n) in &p.rows.runs {
                self.rows.push_run(global(c, map), n as usize);
            }
        }
        // items and values of the pieces, written in parallel with their final codes
        let lengths = |f: fn(&Rows) -> usize| parsed.iter().map(|p| f(&p.rows)).collect::<Vec<_>>();
        let item_out = grow(&mut self.item_codes, &lengths(|p| p.items.len()));
        let grade_out = grow(&mut self.grades, &lengths(|p| p.grades.len()));
        let score_out = grow(&mut self.scores, &lengths(|p| p.scores.len()));
        let jobs: Vec<_> = parsed
            .iter()
            .map(|p| &p.rows)
            .zip(&item_maps)
            .zip(item_out.into_iter().zip(grade_out).zip(score_out))
            .collect();
        let work = |((p, map), ((items, grades), scores)): Job| {
            for (o, &c) in items.iter_mut().zip(&p.items) {
                *o = global(c, map) as i32;
            }
            grades.copy_from_slice(&p.grades);
            scores.copy_from_slice(&p.scores);
        };
        if jobs.len() > 1 {
            threads::install(|| jobs.into_par_iter().for_each(work));
        } else {
            jobs.into_iter().for_each(work);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Parsed, TrecError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.item_codes.shrink_to_fit();
        self.grades.shrink_to_fit();
        self.scores.shrink_to_fit();
        Ok(Parsed {
            users: self.rows,
            items: self.item_codes,
            user_ids: self.users.ids,
            item_ids: self.items.ids,
            grades: self.grades,
            scores: self.scores,
            tag: self.tag,
        })
    }
}

/// The final code of a piece's code (`map`: the final codes of its new ids).
#[inline(always)]
fn global(c: u32, map: &[u32]) -> u32 {
    if c & LOCAL != 0 {
        map[(c ^ LOCAL) as usize]
    } else {
        c
    }
}

/// A piece, its map of new item codes, and where its items, grades and scores go.
type Job<'p, 'o> = (
    (&'p Rows, &'p Vec<u32>),
    ((&'o mut [i32], &'o mut [i64]), &'o mut [f64]),
);

/// Append `lengths.iter().sum()` elements to `v`, as one slice per length.
fn grow<'o, T: Copy + Default>(v: &'o mut Vec<T>, lengths: &[usize]) -> Vec<&'o mut [T]> {
    let base = v.len();
    v.resize(base + lengths.iter().sum::<usize>(), T::default());
    let mut rest = &mut v[base..];
    let mut out = Vec::with_capacity(lengths.len());
    for &n in lengths {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(n);
        out.push(head);
        rest = tail;
    }
    out
}

/// Fill `buf` from `reader` up to `want` bytes (or the end of the input); false at
/// the end of the input.
fn fill<R: Read>(reader: &mut R, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    if buf.capacity() < want {
        buf.reserve(want - buf.len());
    }
    while buf.len() < want {
        let n = reader
            .by_ref()
            .take((want - buf.len()) as u64)
            .read_to_end(buf)?;
        if n == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A window of whole lines from `reader`: `carry` (the partial line the previous
/// window left) then new bytes up to about `size`, cut after the last newline (the
/// bytes after it go back to `carry`), and whether it reaches the end of the input;
/// None past the end.
fn next_window<R: Read>(
    reader: &mut R,
    mut buf: Vec<u8>,
    carry: &mut Vec<u8>,
    size: usize,
) -> io::Result<Option<(Vec<u8>, bool)>> {
    buf.clear();
    buf.extend_from_slice(carry);
    carry.clear();
    let mut want = size.max(buf.len() + 1);
    loop {
        let more = fill(reader, &mut buf, want)?;
        if !more {
            return Ok((!buf.is_empty()).then_some((buf, true)));
        }
        if let Some(at) = memchr::memrchr(b'\n', &buf) {
            carry.extend_from_slice(&buf[at + 1..]);
            buf.truncate(at + 1);
            return Ok(Some((buf, false)));
        }
        want = buf.len() * 2; // a line longer than the window
    }
}

/// Parse a TREC text from `reader` (already decompressed) in windows of `sizes`.
pub fn parse_reader<R: Read + Send>(
    mut reader: R,
    kind: Kind,
    sizes: Sizes,
) -> io::Result<Result<Parsed, TrecError>> {
    let mut state = State::new(kind, sizes.alone);
    let mut carry = Vec::new();
    let Some((first, last)) = next_window(&mut reader, Vec::new(), &mut carry, sizes.bytes(0))?
    else {
        return Ok(state.finish());
    };
    state.window(&first, 1)?;
    if last {
        return Ok(state.finish());
    }
    std::thread::scope(|scope| {
        // the reader fills the next window while this thread parses the last one
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(0);
        let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        empty_tx.send(first).ok();
        empty_tx.send(Vec::new()).ok(); // a second buffer: one parsed, one filled
        scope.spawn(move || {
            for k in 1.. {
                let Ok(buf) = empty_rx.recv() else {
                    return;
                };
                let (window, last) = match next_window(&mut reader, buf, &mut carry, sizes.bytes(k))
                {
                    Ok(Some(w)) => w,
                    Ok(None) => return,
                    Err(e) => {
                        full_tx.send(Err(e)).ok();
                        return;
                    }
                };
                if full_tx.send(Ok(window)).is_err() || last {
                    return;
                }
            }
        });
        for (k, window) in (1..).zip(full_rx) {
            let window = window?;
            state.window(&window, sizes.pieces(k))?;
            empty_tx.send(window).ok();
        }
        Ok::<(), io::Error>(())
    })?;
    Ok(state.finish())
}

/// Parse a TREC text held in memory (or mapped) in windows of `sizes`; `done(end)`
/// is called once the bytes before `end` are no longer needed.
pub fn parse_slice(
    data: &[u8],
    kind: Kind,
    sizes: Sizes,
    mut done: impl FnMut(usize),
) -> io::Result<Result<Parsed, TrecError>> {
    let mut state = State::new(kind, sizes.alone);
    let mut start = 0;
    for k in 0.. {
        if start >= data.len() {
            break;
        }
        let mut end = start.saturating_add(sizes.bytes(k)).min(data.len());
        if end < data.len() {
            end = match memchr::memrchr(b'\n', &data[start..end]) {
                Some(at) => start + at + 1,
                None => memchr::memchr(b'\n', &data[end..]).map_or(data.len(), |at| end + at + 1),
            };
        }
        state.window(&data[start..end], sizes.pieces(k))?;
        done(end);
        start = end;
    }
    Ok(state.finish())
}

/// Parse a TREC text held in memory.
pub fn parse(data: &[u8], kind: Kind) -> Result<Parsed, TrecError> {
    match parse_slice(data, kind, Sizes::default(), |_| {}) {
        Ok(r) => r,
        Err(_) => unreachable!("parsing memory does not fail"),
    }
}

/// Read and parse a TREC file, decompressed when it is gzip (by its magic number).
///
/// A plain file is mapped into memory (no copy), and the windows parsed are
/// dropped from the mapping as it goes, so that it never holds the whole file;
/// gzip is decompressed into windows by a thread of its own.
pub fn read_file(path: &std::path::Path, kind: Kind) -> io::Result<Result<Parsed, TrecError>> {
    let mut file = std::fs::File::open(path)?;
    let mut magic = Vec::with_capacity(2);
    (&mut file).take(2).read_to_end(&mut magic)?;
    let sizes = Sizes::default();
    // the bytes read so far, then the rest (pipes cannot seek back)
    let input = io::Cursor::new(magic.clone()).chain(&file);
    if magic == [0x1f, 0x8b] {
        let input = io::BufReader::with_capacity(1 << 20, input);
        return parse_reader(flate2::read::MultiGzDecoder::new(input), kind, sizes);
    }
    if file.metadata()?.is_file() && file.metadata()?.len() > 0 {
        // SAFETY: the map is read only; a file truncated by another process while it
        // is read would raise SIGBUS, as for every reader of a mapped file
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            #[cfg(unix)]
            map.advise(memmap2::Advice::Sequential).ok();
            let mut dropped = 0;
            return parse_slice(&map, kind, sizes, |end| {
                #[cfg(unix)]
                {
                    // SAFETY: pages of a read-only file map, read again from the file
                    // if touched (only the page at `end` may be)
                    let advice = memmap2::UncheckedAdvice::DontNeed;
                    unsafe { map.unchecked_advise_range(advice, dropped, end - dropped) }.ok();
                }
                dropped = end;
            });
        }
    }
    parse_reader(input, kind, sizes)
}

#[cfg(test)]
#[path = "trec_tests.rs"]
mod tests;
