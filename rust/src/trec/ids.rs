//! The codes of ids while a TREC text is read: the tables of the ids of
//! the windows read so far, and of the ids a piece sees first.

use std::hash::BuildHasher;
use std::io;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::parsed::Ids;
pub(super) use crate::encode::table::short_bits;
use crate::encode::table::{packs, short_hash, Packed, Table, Wide};
use crate::pages::OutOfMemory;

/// An id as the tables look it up: at most 15 bytes as one integer (its bytes and
/// its length), so that a lookup reads the table only, not the text at the id (a
/// random access into a large buffer costs a cache and a TLB miss), and its hash.
#[derive(Clone, Copy)]
pub(super) struct Key {
    pub(super) short: Option<u128>,
    pub(super) hash: u64,
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

/// The codes of the ids of the windows read so far (owns the ids).
#[derive(Default)]
pub(super) struct IdCodes {
    packed: Table<Packed>,
    wide: Table<Wide>,
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
    packed: &mut Table<Packed>,
    wide: &mut Table<Wide>,
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
    packed: Table<Packed>,
    wide: Table<Wide>,
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
