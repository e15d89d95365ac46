//! The table of codes of ids, written once for every reader of ids (an Arrow
//! string column, a TREC text): open addressing with linear probing, at most 3/4
//! full. An id of at most 15 bytes is held as one integer (its bytes and its
//! length), so a lookup reads the table only, not the text at the id (a random
//! access into a large buffer costs a cache and a TLB miss); an id of at most 11
//! bytes shares a 16-byte slot with its code (four to a cache line). The caller
//! fetches a slot some rows before its lookup ([`Table::prefetch`]).

use crate::pages::OutOfMemory;

/// The prefetch hints of [`Table`]'s fetches: into the first-level cache, into the
/// second (x86's `_MM_HINT_T0`, `_MM_HINT_T1`; nothing is fetched elsewhere).
const HINT_T0: i32 = 3;
const HINT_T1: i32 = 2;
#[cfg(target_arch = "x86_64")]
const _: () =
    assert!(HINT_T0 == std::arch::x86_64::_MM_HINT_T0 && HINT_T1 == std::arch::x86_64::_MM_HINT_T1);

/// One multiply, both halves of the product folded.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let r = (a as u128) * (b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

/// `LOW_BYTES[n]`: the lowest `n` bytes of a u128 set.
pub(crate) const LOW_BYTES: [u128; 16] = {
    let mut out = [0u128; 16];
    let mut n = 1;
    while n < 16 {
        out[n] = (1u128 << (8 * n)) - 1;
        n += 1;
    }
    out
};

/// The longest id held as one integer, its short key ([`short_bits`]): the ids of a
/// [`Wide`] slot.
pub(crate) const SHORT_BYTES: usize = 15;

/// The longest id a [`Packed`] slot holds (its short key and its code in 16 bytes).
pub(crate) const PACKED_BYTES: usize = 11;

/// The id `data[start..end]` as one integer (its bytes, its length in the top
/// byte) when it has at most [`SHORT_BYTES`] bytes.
#[inline(always)]
pub(crate) fn short_bits(data: &[u8], start: usize, end: usize) -> Option<u128> {
    let len = end - start;
    if len > SHORT_BYTES {
        return None;
    }
    Some(match data.get(start..start + 16) {
        Some(b) => as_u128(key_of(load16(b), len)),
        None => last_bits(&data[start..end]) | ((len as u128) << 120),
    })
}

/// `*out = short_bits(data, start, end).unwrap_or(0)`, the key made in a vector
/// register and stored at once ([`store_short`]) where 16 bytes can be read at
/// `start` (most rows): a key made in two general registers took twice the
/// instructions (the keys of 10M Arrow `string` rows of about 10 bytes, one thread,
/// Intel Xeon: 39 -> 17 ms, with the check of a block's last row of
/// `OffsetRows::shorts` in place of each row's).
#[inline(always)]
pub(crate) fn put_short(data: &[u8], start: usize, end: usize, out: &mut u128) {
    match data.get(start..start + 16) {
        Some(b) => store_short(load16(b), end - start, out),
        None => *out = short_bits(data, start, end).unwrap_or(0),
    }
}

/// 16 bytes as one vector (x86_64) or one integer (elsewhere).
#[cfg(target_arch = "x86_64")]
pub(crate) type Bytes16 = std::arch::x86_64::__m128i;
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type Bytes16 = u128;

/// The first 16 bytes of `b` (it holds 16 or more) as [`Bytes16`].
#[inline(always)]
pub(crate) fn load16(b: &[u8]) -> Bytes16 {
    assert!(b.len() >= 16);
    // SAFETY: `b` holds 16 bytes (asserted)
    unsafe { load16_at(b.as_ptr()) }
}

/// The 16 bytes at `p` as [`Bytes16`].
///
/// # Safety
/// 16 bytes from `p` on are readable.
#[inline(always)]
pub(crate) unsafe fn load16_at(p: *const u8) -> Bytes16 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the caller's; SSE2 is in every x86_64
    unsafe {
        std::arch::x86_64::_mm_loadu_si128(p.cast())
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's
    unsafe {
        u128::from_le(std::ptr::read_unaligned(p.cast()))
    }
}

/// The bytes of a `string_view` view after its length (4 bytes): its first 12.
#[inline(always)]
pub(crate) fn after_length(view: Bytes16) -> Bytes16 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is in every x86_64
    unsafe {
        std::arch::x86_64::_mm_srli_si128::<4>(view)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        view >> 32
    }
}

/// The short key ([`short_bits`]) of an id of `len` bytes (at most
/// [`SHORT_BYTES`]), the low bytes of `raw` (those after them any).
#[inline(always)]
fn key_of(raw: Bytes16, len: usize) -> Bytes16 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is in every x86_64; `KEEP[len & 15]` holds 16 bytes
    unsafe {
        use std::arch::x86_64::*;
        let keep = _mm_loadu_si128(KEEP[len & 15].as_ptr().cast());
        let top = _mm_slli_si128::<15>(_mm_cvtsi32_si128(len as i32));
        _mm_or_si128(_mm_and_si128(raw, keep), top)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        raw & LOW_BYTES[len & 15] | ((len as u128) << 120)
    }
}

/// [`Bytes16`] as one integer.
#[inline(always)]
fn as_u128(b: Bytes16) -> u128 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: both are 16 bytes of plain data
    unsafe {
        std::mem::transmute::<Bytes16, u128>(b)
    }
    #[cfg(not(target_arch = "x86_64"))]
    b
}

/// The short key ([`key_of`]) of an id of `len` bytes, the low bytes of `raw`, or 0
/// when `len` is more than [`SHORT_BYTES`], to `out`: one store of a vector register.
#[inline(always)]
pub(crate) fn store_short(raw: Bytes16, len: usize, out: &mut u128) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is in every x86_64; `out` holds 16 bytes
    unsafe {
        use std::arch::x86_64::*;
        let key = if len <= SHORT_BYTES {
            key_of(raw, len)
        } else {
            _mm_setzero_si128()
        };
        _mm_storeu_si128((out as *mut u128).cast(), key);
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *out = if len <= SHORT_BYTES {
            key_of(raw, len)
        } else {
            0
        };
    }
}

/// `KEEP[n]`: the bytes of [`LOW_BYTES`]`[n]`.
#[cfg(target_arch = "x86_64")]
static KEEP: [[u8; 16]; 16] = {
    let mut out = [[0u8; 16]; 16];
    let mut n = 0;
    while n < 16 {
        out[n] = LOW_BYTES[n].to_le_bytes();
        n += 1;
    }
    out
};

/// The bytes of an id of at most 15 bytes that ends its buffer, as one integer:
/// two loads that overlap (of 8 or of 4 bytes), not a copy into a buffer.
#[inline(always)]
fn last_bits(b: &[u8]) -> u128 {
    let n = b.len();
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let half = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or([0; 4])) as u64;
    match n {
        9.. => word(0) as u128 | ((word(n - 8) >> (8 * (16 - n))) as u128) << 64,
        8 => word(0) as u128,
        4.. => (half(0) | half(n - 4) << (8 * (n - 4))) as u128,
        _ => b.iter().rev().fold(0, |k, &x| k << 8 | x as u128),
    }
}

/// The hash of a short key (see [`short_bits`]); its low bits pick the slot. One
/// multiply of its two halves, each offset by a constant: the high half is never
/// its constant (its top byte is a length below 16, the constant's is 0x9e).
#[inline(always)]
pub(crate) fn short_hash(k: u128) -> u64 {
    fold(
        k as u64 ^ 0x243f_6a88_85a3_08d3,
        (k >> 64) as u64 ^ 0x9e37_79b9_7f4a_7c15,
    )
}

/// Whether a short key is of an id of at most [`PACKED_BYTES`] (a [`Packed`] slot).
#[inline(always)]
pub(crate) fn packs(key: u128) -> bool {
    (key >> 120) <= PACKED_BYTES as u128
}

/// A slot of a [`Table`]: a key and its code, or nothing.
pub(crate) trait Slot: Copy + Default + Send {
    type Key: Copy + PartialEq + Default + Send;
    fn new(key: Self::Key, code: u32) -> Self;
    fn key(self) -> Self::Key;
    /// The code plus one, 0 for an empty slot.
    fn tag(self) -> u32;
    /// The code, None for an empty slot.
    #[inline(always)]
    fn code(self) -> Option<u32> {
        self.tag().checked_sub(1)
    }
    /// A hash whose low bits are well mixed (they pick the slot).
    fn hash(key: Self::Key) -> u64;
}

/// The bytes of a short key (see [`short_bits`]) to `data`.
#[inline(always)]
pub(crate) fn append_short(key: u128, data: &mut Vec<u8>) {
    data.extend_from_slice(&key.to_le_bytes()[..(key >> 120) as usize]);
}

/// Bits 88..120 of a short key: zero for ids of at most 11 bytes.
const PACKED_CODE: u128 = (u32::MAX as u128) << 88;

/// The slot of an id of at most 11 bytes: its short key with the code plus one
/// (0: empty) in the bytes 11 to 14 the key leaves zero; 16 bytes.
#[derive(Clone, Copy, Default)]
pub(crate) struct Packed(u128);

impl Slot for Packed {
    type Key = u128;
    #[inline(always)]
    fn new(key: u128, code: u32) -> Self {
        Packed(key | ((code as u128 + 1) << 88))
    }
    #[inline(always)]
    fn key(self) -> u128 {
        self.0 & !PACKED_CODE
    }
    #[inline(always)]
    fn tag(self) -> u32 {
        (self.0 >> 88) as u32
    }
    #[inline(always)]
    fn hash(key: u128) -> u64 {
        short_hash(key)
    }
}

/// The slot of an id of 12 to 15 bytes: its short key and its code plus one
/// (0: empty); 32 bytes.
#[derive(Clone, Copy, Default)]
pub(crate) struct Wide {
    key: u128,
    code: u32,
}

impl Slot for Wide {
    type Key = u128;
    #[inline(always)]
    fn new(key: u128, code: u32) -> Self {
        Wide {
            key,
            code: code + 1,
        }
    }
    #[inline(always)]
    fn key(self) -> u128 {
        self.key
    }
    #[inline(always)]
    fn tag(self) -> u32 {
        self.code
    }
    #[inline(always)]
    fn hash(key: u128) -> u64 {
        short_hash(key)
    }
}

/// The slot of a longer id: its bytes (a slice of the text) and its code plus one.
#[derive(Clone, Copy, Default)]
pub(crate) struct Bytes<'a> {
    key: &'a [u8],
    code: u32,
}

impl<'a> Slot for Bytes<'a> {
    type Key = &'a [u8];
    #[inline(always)]
    fn new(key: &'a [u8], code: u32) -> Self {
        Bytes {
            key,
            code: code + 1,
        }
    }
    #[inline(always)]
    fn key(self) -> &'a [u8] {
        self.key
    }
    #[inline(always)]
    fn tag(self) -> u32 {
        self.code
    }
    #[inline(always)]
    fn hash(key: &'a [u8]) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(key)
    }
}

/// `n` empty slots, a large table's on huge pages where the system offers them (a
/// lookup is a random access: one TLB entry covers 2 MiB of slots, not 4 KiB), or
/// the memory that could not be had.
fn try_empty<S: Slot>(n: usize) -> Result<Vec<S>, OutOfMemory> {
    let mut slots = Vec::new();
    crate::pages::try_reserve_exact(&mut slots, n)?;
    crate::pages::advise_huge(&mut slots);
    slots.resize(n, S::default());
    Ok(slots)
}

/// [`try_empty`], or a panic that says what was asked for (which the Python layer
/// raises as an exception), as where the allocator fails.
fn empty<S: Slot>(n: usize) -> Vec<S> {
    try_empty(n).unwrap_or_else(|e| panic!("{e}"))
}

/// Fetch the memory of `items` into the first-level cache (hints: they read and
/// fault nothing), a cache line at a time.
#[inline(always)]
pub(crate) fn fetch_lines<T>(items: &[T]) {
    #[cfg(target_arch = "x86_64")]
    if !items.is_empty() {
        let start = items.as_ptr() as usize;
        let end = start + std::mem::size_of_val(items);
        for line in (start & !63..end).step_by(64) {
            // SAFETY: a prefetch of an address (a hint: it reads and faults nothing)
            unsafe { std::arch::x86_64::_mm_prefetch::<HINT_T0>(line as *const i8) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}

/// Codes of keys: open addressing with linear probing, at most 3/4 full.
#[derive(Clone)]
pub(crate) struct Table<S> {
    slots: Vec<S>,
    len: usize,
}

impl<S: Slot> Default for Table<S> {
    fn default() -> Self {
        Table {
            slots: vec![S::default(); 16],
            len: 0,
        }
    }
}

impl<S: Slot> Table<S> {
    /// An empty table with room for `n` keys before it grows.
    pub(crate) fn with_room(n: usize) -> Self {
        Table {
            slots: empty((n.saturating_mul(4) / 3 + 1).next_power_of_two().max(16)),
            len: 0,
        }
    }

    /// Make room for `n` keys in all before the table grows (one rehash into the
    /// size that holds them; nothing when it already does).
    pub(crate) fn reserve(&mut self, n: usize) {
        let size = (n.saturating_mul(4) / 3 + 1).next_power_of_two();
        if size > self.slots.len() {
            self.rehash(empty(size));
        }
    }

    /// Fetch the slot of `hash` into the cache (a hint), for a lookup some rows later.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        self.fetch::<{ HINT_T0 }>(hash);
    }

    /// The hash of each of `keys` to `hashes`, each key's slot fetched into the
    /// second-level cache: a block of keys made ready before any is looked up, so that
    /// their cache misses overlap. A block fetches more slots at once than the
    /// first-level cache keeps misses outstanding (the benchmark's 10M run items, Arrow
    /// `large_string`, medians of 15 calls in two runs: 76 -> 64 and 78 -> 70 ms;
    /// fetched into the first). One slot fetched a few rows ahead
    /// ([`Table::prefetch`]: a TREC file's, a CSV block's) is better in the first (a
    /// CSV file's 10M item ids in blocks: 206 -> 223 ms in the second).
    #[inline(always)]
    pub(crate) fn hash_and_fetch(&self, keys: &[S::Key], hashes: &mut [u64]) {
        for (h, &k) in hashes.iter_mut().zip(keys) {
            *h = S::hash(k);
            self.fetch::<{ HINT_T1 }>(*h);
        }
    }

    /// Fetch the slot of `hash` with the prefetch hint `HINT` (a hint; it reads nothing).
    #[inline(always)]
    fn fetch<const HINT: i32>(&self, hash: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let i = hash as usize & (self.slots.len() - 1);
            // SAFETY: a prefetch of a slot of the table (a hint; it reads nothing)
            unsafe {
                std::arch::x86_64::_mm_prefetch::<HINT>(self.slots.as_ptr().add(i) as *const i8);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = hash;
    }

    /// The code of `key` (of hash `hash`) and true when the key lies in its own slot
    /// (the first of its probe chain; most keys of a table at most 3/4 full), else
    /// false (and any code): a lookup without a branch, which a loop over many keys
    /// runs without waiting on each (see `factorize_into`).
    #[inline(always)]
    pub(crate) fn at_home(&self, key: S::Key, hash: u64) -> (u32, bool) {
        let s = self.slots[hash as usize & (self.slots.len() - 1)];
        let tag = s.tag();
        (tag.wrapping_sub(1), (tag != 0) & (s.key() == key))
    }

    /// The code of `key` (of hash `hash`), None when the table does not hold it.
    #[inline(always)]
    pub(crate) fn get(&self, key: S::Key, hash: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            let code = s.code()?;
            if s.key() == key {
                return Some(code);
            }
            i = (i + 1) & mask;
        }
    }

    /// The code of `key`, or `next` (and true) when the table did not hold it:
    /// `next` is then its code.
    #[inline(always)]
    pub(crate) fn code(&mut self, key: S::Key, hash: u64, next: u32) -> (u32, bool) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let s = self.slots[i];
            match s.code() {
                None => break,
                Some(c) if s.key() == key => return (c, false),
                Some(_) => i = (i + 1) & mask,
            }
        }
        self.slots[i] = S::new(key, next);
        self.len += 1;
        if 4 * self.len > 3 * self.slots.len() {
            self.rehash(empty(2 * self.slots.len()));
        }
        (next, true)
    }

    /// Add a key that the table does not hold (an error, and the table as it was,
    /// when it must grow and the memory cannot be had).
    pub(crate) fn insert(&mut self, key: S::Key, hash: u64, code: u32) -> Result<(), OutOfMemory> {
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            let bigger = try_empty(2 * self.slots.len())?;
            self.rehash(bigger);
        }
        self.put(key, hash, code);
        Ok(())
    }

    /// Bytes of its slots.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<S>()
    }

    /// Empty the table (keeping its size).
    pub(crate) fn clear(&mut self) {
        if self.len > 0 {
            self.slots.fill(S::default());
            self.len = 0;
        }
    }

    #[cold]
    fn rehash(&mut self, bigger: Vec<S>) {
        let old = std::mem::replace(&mut self.slots, bigger);
        self.len = 0;
        for s in old {
            if let Some(c) = s.code() {
                self.put(s.key(), S::hash(s.key()), c);
            }
        }
    }

    /// Add a key that the table does not hold, in a table with room for it.
    #[inline(always)]
    fn put(&mut self, key: S::Key, hash: u64, code: u32) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i].code().is_some() {
            i = (i + 1) & mask;
        }
        self.slots[i] = S::new(key, code);
        self.len += 1;
    }
}

/// The distinct ids of a column, in the order of their codes, as the table that
/// numbered them took them (not read from the rows where they first appear, which
/// lie anywhere in the column). Ids of at most 15 bytes stay short keys until
/// their texts are asked for; longer ones (slices of the column) are copied out at
/// once.
pub struct Distinct(Held);

/// Short keys, or the ids already as texts.
enum Held {
    Shorts(Vec<u128>),
    Texts(Vec<i64>, Vec<u8>),
}

impl From<Vec<u128>> for Distinct {
    fn from(keys: Vec<u128>) -> Self {
        Distinct(Held::Shorts(keys))
    }
}

impl<'a> From<Vec<&'a [u8]>> for Distinct {
    fn from(keys: Vec<&'a [u8]>) -> Self {
        let (offsets, data) = texts_of(&keys, |k, data| data.extend_from_slice(k));
        Distinct(Held::Texts(offsets, data))
    }
}

/// `keys` one after the other (each written by `append`) and their offsets.
fn texts_of<K: Copy>(keys: &[K], append: impl Fn(K, &mut Vec<u8>)) -> (Vec<i64>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(keys.len() + 1);
    offsets.push(0i64);
    let mut data = Vec::new();
    for &k in keys {
        append(k, &mut data);
        offsets.push(data.len() as i64);
    }
    (offsets, data)
}

impl Distinct {
    /// The ids in the order of their codes, one after the other: the offsets
    /// (int64) and data of an Arrow `large_string` array.
    pub fn texts(self) -> (Vec<i64>, Vec<u8>) {
        match self.0 {
            Held::Shorts(keys) => texts_of(&keys, append_short),
            Held::Texts(offsets, data) => (offsets, data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_id_at_the_end_of_its_buffer_has_the_key_of_one_inside_it() {
        let text: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
        for start in 0..16 {
            for len in 0..16 {
                let inside = short_bits(&text, start, start + len);
                let at_end = short_bits(&text[..start + len], start, start + len);
                assert_eq!(inside, at_end, "{start} {len}");
                let k = inside.unwrap_or_default();
                assert_eq!(k >> 120, len as u128);
                assert_eq!(&k.to_le_bytes()[..len], &text[start..start + len]);
            }
        }
    }

    #[test]
    fn every_slot_kind_keeps_its_codes_through_growth() {
        let ids: Vec<String> = (0..5000)
            .map(|i| format!("{:0w$}", i, w = 1 + i % 20))
            .collect();
        let mut packed = Table::<Packed>::default();
        let mut wide = Table::<Wide>::default();
        let mut long = Table::<Bytes>::default();
        for round in 0..2 {
            for (c, id) in ids.iter().enumerate() {
                let b = id.as_bytes();
                let want = (c as u32, round == 0);
                match short_bits(b, 0, b.len()) {
                    Some(k) if packs(k) => {
                        assert_eq!(packed.code(k, short_hash(k), c as u32), want)
                    }
                    Some(k) => assert_eq!(wide.code(k, short_hash(k), c as u32), want),
                    None => assert_eq!(long.code(b, Bytes::hash(b), c as u32), want),
                }
            }
        }
        // keys of one hash (every key in one probe chain; a table with room for
        // them, which does not grow: growth places keys by their own hash) keep
        // their own codes: a slot is taken for its key, never for its hash
        for hash in [0u64, u64::MAX] {
            let keys: Vec<Vec<u8>> = (0..300)
                .map(|i| format!("{i:0w$}", w = 12 + i % 8).into_bytes())
                .collect();
            let mut t = Table::<Packed>::with_room(keys.len());
            let mut w = Table::<Wide>::with_room(keys.len());
            let mut b = Table::<Bytes>::with_room(keys.len());
            for round in 0..2 {
                for (c, k) in keys.iter().enumerate() {
                    let c = c as u32;
                    assert_eq!(t.code(c as u128, hash, c), (c, round == 0));
                    assert_eq!(b.code(k, hash, c), (c, round == 0));
                    if let Some(s) = short_bits(k, 0, k.len()) {
                        assert_eq!(w.code(s, hash, c), (c, round == 0));
                        assert_eq!(w.get(s, hash), Some(c));
                    }
                    assert_eq!(t.get(c as u128, hash), Some(c));
                    // only the first key of the chain lies in its own slot
                    let home = t.at_home(c as u128, hash);
                    assert_eq!(home.1, c == 0);
                    assert!(!home.1 || home.0 == c);
                }
            }
            assert!(!t.at_home(300, hash).1);
            assert_eq!(t.get(300, hash), None);
        }
        // a table made with room for n keys holds them without growing
        for n in [0, 1, 11, 12, 13, 100, 3000] {
            let mut t = Table::<Packed>::with_room(n);
            let size = t.slots.len();
            for c in 0..n as u32 {
                let k = c as u128;
                assert_eq!(t.code(k, short_hash(k), c), (c, true));
            }
            assert_eq!(t.slots.len(), size, "{n}");
            assert_eq!(t.code(7, short_hash(7), 0).1, n <= 7);
        }
        // a table given room for more keys keeps those it holds, and then holds
        // that many without growing
        let mut t = Table::<Packed>::default();
        (0..10u32).for_each(|c| assert!(t.code(c as u128, short_hash(c as u128), c).1));
        for n in [5, 3000] {
            t.reserve(n);
            let size = t.slots.len();
            assert!(size >= 16 && 4 * n <= 3 * size, "{n}");
            for c in 0..n.max(10) as u32 {
                let k = c as u128;
                assert_eq!(t.code(k, short_hash(k), c), (c, c >= 10 && n > 10));
            }
            assert_eq!(t.slots.len(), size);
            for c in 0..n.max(10) as u32 {
                assert_eq!(t.get(c as u128, short_hash(c as u128)), Some(c));
            }
        }
        // the empty id is a key like any other; code 0 is a code like any other
        let mut t = Table::<Packed>::default();
        let k = short_bits(b"", 0, 0).unwrap_or(1);
        assert_eq!(t.get(k, short_hash(k)), None);
        assert!(t.insert(k, short_hash(k), 0).is_ok());
        assert_eq!(t.get(k, short_hash(k)), Some(0));
        assert_eq!(t.len, 1);
        t.clear();
        assert_eq!(t.get(k, short_hash(k)), None);
    }
}
