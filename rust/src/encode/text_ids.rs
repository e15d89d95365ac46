//! String ids met one at a time (a TREC text, a CSV file's blocks, an
//! accumulator's batches), numbered in order of first appearance: the codes of
//! their keys ([`KeyCodes`]: ids of at most 15 bytes in the tables of short keys
//! of [`super::table`], longer ones by hash) and, for [`TextIds`], their texts one
//! after another.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::table::{append_short, packs, short_bits, short_hash, Packed, Table, Wide};
use crate::pages::{try_reserve, OutOfMemory};

/// The most distinct ids of a table (codes are handed on as i32).
pub const MAX_IDS: usize = i32::MAX as usize;

/// An id as the tables look it up: at most 15 bytes as one integer (its bytes and
/// its length), so that a lookup reads the table only, not the text at the id (a
/// random access into a large buffer costs a cache and a TLB miss), and its hash.
#[derive(Clone, Copy, Default)]
pub struct Key {
    pub short: Option<u128>,
    pub hash: u64,
}

impl Key {
    /// The key of the id `data[start..end]` (read from a buffer that goes on after
    /// the id, a short key costs no copy).
    #[inline(always)]
    pub fn new(data: &[u8], start: usize, end: usize) -> Key {
        Key::of(short_bits(data, start, end), &data[start..end])
    }

    /// The key of `id`, whose short key (`short_bits` of it) is `short`.
    #[inline(always)]
    pub fn of(short: Option<u128>, id: &[u8]) -> Key {
        match short {
            Some(k) => Key {
                short,
                hash: short_hash(k),
            },
            None => Key {
                short,
                hash: FxBuildHasher.hash_one(id),
            },
        }
    }
}

/// Why an id got no code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoCode {
    /// More than [`MAX_IDS`] distinct ids.
    TooMany,
    /// The memory a table or a text needed.
    Memory(OutOfMemory),
}

impl From<OutOfMemory> for NoCode {
    fn from(e: OutOfMemory) -> Self {
        NoCode::Memory(e)
    }
}

impl std::fmt::Display for NoCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoCode::TooMany => write!(f, "more than 2^31 - 1 distinct ids"),
            NoCode::Memory(e) => e.fmt(f),
        }
    }
}

impl From<NoCode> for std::io::Error {
    /// Too many ids: invalid data; no memory: an error of kind `OutOfMemory`.
    fn from(e: NoCode) -> Self {
        match e {
            NoCode::TooMany => std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()),
            NoCode::Memory(m) => m.into(),
        }
    }
}

/// The codes of keys: ids of at most 11 bytes (most ids) in a table of 16-byte
/// slots, of 12 to 15 bytes in one of 32-byte slots, longer ones by hash, told
/// apart by their texts, which the caller holds.
#[derive(Clone, Default)]
pub struct KeyCodes {
    packed: Table<Packed>,
    wide: Table<Wide>,
    long: HashTable<(u64, u32)>,
}

impl KeyCodes {
    /// Fetch the slot of a short key into the cache (a hint: a loop over many ids
    /// fetches an id's slot some rows before it looks it up).
    #[inline(always)]
    pub fn prefetch(&self, key: &Key) {
        match key.short {
            Some(k) if packs(k) => self.packed.prefetch(key.hash),
            Some(_) => self.wide.prefetch(key.hash),
            None => {}
        }
    }

    /// The code of `key`, None when not held; a long key's candidates (of its hash)
    /// are told apart by `same(code)`, whether the id of `code` is the key's.
    #[inline(always)]
    pub fn get(&self, key: &Key, same: impl Fn(u32) -> bool) -> Option<u32> {
        match key.short {
            Some(k) if packs(k) => self.packed.get(k, key.hash),
            Some(k) => self.wide.get(k, key.hash),
            None => self
                .long
                .find(key.hash, |&(h, c)| h == key.hash && same(c))
                .map(|&(_, c)| c),
        }
    }

    /// Add `code` for a key not held (an error, and the tables as they were, when
    /// one must grow and the memory cannot be had).
    #[inline(always)]
    pub fn insert(&mut self, key: &Key, code: u32) -> Result<(), OutOfMemory> {
        match key.short {
            Some(k) if packs(k) => self.packed.insert(k, key.hash, code),
            Some(k) => self.wide.insert(k, key.hash, code),
            None => {
                self.long
                    .try_reserve(1, |&(h, _)| h)
                    .map_err(|_| OutOfMemory {
                        bytes: (self.long.len() as u128 + 1) * 2 * 16,
                    })?;
                self.long
                    .insert_unique(key.hash, (key.hash, code), |&(h, _)| h);
                Ok(())
            }
        }
    }

    /// Forget every key (keeping the tables' sizes).
    pub fn clear(&mut self) {
        self.packed.clear();
        self.wide.clear();
        self.long.clear();
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.packed.memory_bytes() + self.wide.memory_bytes() + self.long.capacity() * 16
    }
}

/// Distinct string ids numbered in order of first appearance: the codes of their
/// keys and their texts, one after another.
#[derive(Clone, Default)]
pub struct TextIds {
    keys: KeyCodes,
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl TextIds {
    /// The number of ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no id.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The text of the id of `code`.
    #[inline(always)]
    pub fn text(&self, code: usize) -> &[u8] {
        let start = if code == 0 { 0 } else { self.ends[code - 1] };
        &self.bytes[start..self.ends[code]]
    }

    /// The ids in code order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> {
        (0..self.len()).map(|c| self.text(c))
    }

    /// The ids in code order as the offsets (int64, from 0) and data of an Arrow
    /// `large_string` array.
    pub fn arrow_texts(&self) -> (Vec<i64>, Vec<u8>) {
        let offsets = std::iter::once(0).chain(self.ends.iter().map(|&e| e as i64));
        (offsets.collect(), self.bytes.clone())
    }

    /// [`TextIds::arrow_texts`], the texts moved out.
    pub fn into_arrow_texts(self) -> (Vec<i64>, Vec<u8>) {
        let offsets = std::iter::once(0).chain(self.ends.iter().map(|&e| e as i64));
        (offsets.collect(), self.bytes)
    }

    /// Fetch the slot of `key` into the cache (a hint).
    #[inline(always)]
    pub fn prefetch(&self, key: &Key) {
        self.keys.prefetch(key);
    }

    /// The code of `id` (of key `key`), None when not held.
    #[inline(always)]
    pub fn get(&self, id: &[u8], key: &Key) -> Option<u32> {
        self.keys.get(key, |c| self.text(c as usize) == id)
    }

    /// The code of `id` (of key `key`), a new one when it is new; an id of at most
    /// 15 bytes is told by its key alone (`id` is then not read).
    #[inline(always)]
    pub fn code(&mut self, id: &[u8], key: &Key) -> Result<u32, NoCode> {
        match self.get(id, key) {
            Some(c) => Ok(c),
            None => self.add(id, key),
        }
    }

    /// Number a new id.
    #[inline(never)]
    fn add(&mut self, id: &[u8], key: &Key) -> Result<u32, NoCode> {
        let c = self.ends.len();
        if c >= MAX_IDS {
            return Err(NoCode::TooMany);
        }
        // a short key holds its id (the caller need not pass the text)
        let len = key.short.map_or(id.len(), |k| (k >> 120) as usize);
        try_reserve(&mut self.bytes, len)?;
        try_reserve(&mut self.ends, 1)?;
        self.keys.insert(key, c as u32)?;
        match key.short {
            Some(k) => append_short(k, &mut self.bytes),
            None => self.bytes.extend_from_slice(id),
        }
        self.ends.push(self.bytes.len());
        Ok(c as u32)
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.keys.memory_bytes() + self.bytes.capacity() + self.ends.capacity() * 8
    }
}

impl std::fmt::Debug for TextIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let texts = self.iter().map(String::from_utf8_lossy);
        f.debug_list().entries(texts).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_every_length_keep_their_codes_and_texts() {
        // ids of 0 to 40 bytes: packed, wide and long keys, met twice each
        let ids: Vec<Vec<u8>> = (0..4000)
            .map(|i| format!("{i:0w$}", w = i % 41).into_bytes())
            .collect();
        let mut t = TextIds::default();
        for round in 0..2 {
            for (c, id) in ids.iter().enumerate() {
                let key = Key::new(id, 0, id.len());
                if round == 0 {
                    assert_eq!(t.get(id, &key), None);
                }
                assert_eq!(t.code(id, &key), Ok(c as u32));
                assert_eq!(t.get(id, &key), Some(c as u32));
            }
        }
        assert_eq!(t.len(), ids.len());
        assert!(t.iter().eq(ids.iter().map(|i| &i[..])));
        let (offsets, data) = t.clone().into_arrow_texts();
        assert_eq!((offsets.clone(), data.clone()), t.arrow_texts());
        assert_eq!(offsets.len(), ids.len() + 1);
        assert_eq!(data, ids.concat());
        // a key read inside a longer buffer is the key of the id alone
        let text = b"xx0123456789abcdefghij";
        for (s, e) in [(2, 6), (2, 14), (2, 17), (2, 22)] {
            let inside = Key::new(text, s, e);
            let alone = Key::new(&text[s..e], 0, e - s);
            assert_eq!((inside.short, inside.hash), (alone.short, alone.hash));
        }
        // a short key alone numbers its id and keeps its text
        let mut told = TextIds::default();
        assert_eq!(told.code(&[], &Key::new(b"abc", 0, 3)), Ok(0));
        assert_eq!(told.text(0), b"abc");
        let mut keys = KeyCodes::default();
        let key = Key::new(b"a", 0, 1);
        assert!(keys.insert(&key, 7).is_ok());
        assert_eq!(keys.get(&key, |_| true), Some(7));
        keys.clear();
        assert_eq!(keys.get(&key, |_| true), None);
    }
}
