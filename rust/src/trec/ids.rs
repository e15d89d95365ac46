//! The codes of ids while a TREC text is read: the tables of the ids of
//! the windows read so far, and of the ids a piece sees first.

use std::hash::BuildHasher;
use std::io;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::parsed::Ids;
use crate::pages::OutOfMemory;

/// An id as the tables look it up: at most 15 bytes as one integer (its bytes and
/// its length), so that a lookup reads the table only, not the text at the id (a
/// random access into a large buffer costs a cache and a TLB miss), and its hash.
#[derive(Clone, Copy)]
pub(super) struct Key {
    pub(super) short: Option<u128>,
    pub(super) hash: u64,
}

/// One multiply, both halves of the product folded.
#[inline(always)]
fn fold(a: u64, b: u64) -> u64 {
    let r = (a as u128) * (b as u128);
    (r as u64) ^ ((r >> 64) as u64)
}

impl Key {
    #[inline(always)]
    pub(super) fn new(data: &[u8], start: usize, end: usize) -> Key {
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
pub(crate) fn short_bits(data: &[u8], start: usize, end: usize) -> Option<u128> {
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

    /// Add a key that the table does not hold (an error, and the table as it was,
    /// when it must grow and the memory cannot be had).
    fn insert(&mut self, key: u128, hash: u64, code: u32) -> Result<(), OutOfMemory> {
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            let bigger = crate::pages::try_zeros::<S>(2 * self.slots.len(), 1)?;
            let old = std::mem::replace(&mut self.slots, bigger);
            self.len = 0;
            for s in old.into_iter().filter(|s| s.key() != 0) {
                self.put(s.key(), short_hash(s.key()), s.code());
            }
        }
        self.put(key, hash, code);
        Ok(())
    }

    /// Add a key that the table does not hold, in a table with room for it.
    fn put(&mut self, key: u128, hash: u64, code: u32) {
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
pub(super) struct IdCodes {
    packed: ShortCodes<u128>,
    wide: ShortCodes<Wide>,
    long: HashTable<(u64, u32)>,
    pub(super) ids: Ids,
}

impl IdCodes {
    /// Fetch the slot of a short key into the cache.
    #[inline(always)]
    pub(super) fn prefetch(&self, key: &Key) {
        match key.short {
            Some(k) if packs(k) => self.packed.prefetch(key.hash),
            Some(_) => self.wide.prefetch(key.hash),
            None => {}
        }
    }

    #[inline(always)]
    pub(super) fn get(&self, id: &[u8], key: &Key) -> Option<u32> {
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
    pub(super) fn code(&mut self, id: &[u8], key: &Key) -> io::Result<u32> {
        if let Some(c) = self.get(id, key) {
            return Ok(c);
        }
        let c = self.ids.len();
        if c >= LOCAL as usize {
            return Err(too_many_ids());
        }
        let c = c as u32;
        self.ids.reserve(id.len())?;
        insert(&mut self.packed, &mut self.wide, &mut self.long, key, c)?;
        self.ids.push(id);
        Ok(c)
    }
}

/// Add `code` for a key that the tables do not hold, to the table of its kind.
#[inline(always)]
fn insert(
    packed: &mut ShortCodes<u128>,
    wide: &mut ShortCodes<Wide>,
    long: &mut HashTable<(u64, u32)>,
    key: &Key,
    code: u32,
) -> Result<(), OutOfMemory> {
    match key.short {
        Some(k) if packs(k) => packed.insert(k, key.hash, code),
        Some(k) => wide.insert(k, key.hash, code),
        None => {
            long.try_reserve(1, |&(h, _)| h).map_err(|_| OutOfMemory {
                bytes: (long.len() as u128 + 1) * 2 * 16,
            })?;
            long.insert_unique(key.hash, (key.hash, code), |&(h, _)| h);
            Ok(())
        }
    }
}

pub(super) fn too_many_ids() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "more than 2^31 - 1 distinct ids",
    )
}

/// Tag of a code local to a piece (an id the codes so far do not hold).
pub(super) const LOCAL: u32 = 1 << 31;

/// The ids a piece sees first, numbered in order of first appearance: their bounds
/// in the piece's text and their keys.
#[derive(Default)]
pub(super) struct NewIds {
    packed: ShortCodes<u128>,
    wide: ShortCodes<Wide>,
    long: HashTable<(u64, u32)>,
    pub(super) ids: Vec<(usize, usize, Key)>,
    /// The memory a new id could not get (its code is then wrong: the piece is
    /// not used)
    pub(super) failed: Option<OutOfMemory>,
}

impl NewIds {
    pub(super) fn clear(&mut self) {
        self.packed.clear();
        self.wide.clear();
        self.long.clear();
        self.ids.clear();
        self.failed = None;
    }
}

/// Where the ids of a piece that the codes so far do not hold get their codes.
pub(super) trait NewCodes {
    /// Fetch the table slot of `key` into the cache.
    fn prefetch(&self, key: &Key);
    /// The code of the id `data[start..end]` (of key `key`).
    fn code(&mut self, data: &[u8], start: usize, end: usize, key: &Key) -> u32;
}

/// A piece parsed alone: its new ids get their final codes at once (the codes
/// "so far" it is given are then empty).
pub(super) struct Direct<'t> {
    pub(super) table: &'t mut IdCodes,
    /// Why a new id got no code (too many ids, no memory): the piece is not used.
    pub(super) failed: Option<io::Error>,
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
        self.table.code(id, key).unwrap_or_else(|e| {
            self.failed.get_or_insert(e);
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
        let added = crate::pages::try_reserve(&mut self.ids, 1)
            .and_then(|()| insert(&mut self.packed, &mut self.wide, &mut self.long, key, c));
        if let Err(e) = added {
            self.failed.get_or_insert(e);
            return 0;
        }
        self.ids.push((start, end, *key));
        c
    }
}
