//! The codes of ids while a TREC text is read: the ids of the windows read so
//! far ([`TextIds`]), and the ids a piece sees first.

use crate::encode::{Key, KeyCodes, TextIds};
use crate::pages::OutOfMemory;

/// Tag of a code local to a piece (an id the codes so far do not hold).
pub(super) const LOCAL: u32 = 1 << 31;

/// The ids a piece sees first, numbered in order of first appearance: their bounds
/// in the piece's text and their keys.
#[derive(Default)]
pub(super) struct NewIds {
    keys: KeyCodes,
    pub(super) ids: Vec<(usize, usize, Key)>,
    /// The memory a new id could not get (its code is then wrong: the piece is
    /// not used)
    pub(super) failed: Option<OutOfMemory>,
}

impl NewIds {
    pub(super) fn clear(&mut self) {
        self.keys.clear();
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
    pub(super) table: &'t mut TextIds,
    /// Why a new id got no code (too many ids, no memory): the piece is not used.
    pub(super) failed: Option<std::io::Error>,
}

impl NewCodes for Direct<'_> {
    #[inline(always)]
    fn prefetch(&self, key: &Key) {
        self.table.prefetch(key);
    }

    #[inline(always)]
    fn code(&mut self, data: &[u8], start: usize, end: usize, key: &Key) -> u32 {
        self.table.code(&data[start..end], key).unwrap_or_else(|e| {
            self.failed.get_or_insert(e.into());
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
        let ids = &self.ids;
        let same = |c: u32| {
            let (s, e, _) = ids[(c ^ LOCAL) as usize];
            &data[s..e] == id
        };
        if let Some(c) = self.keys.get(key, same) {
            return c;
        }
        let c = self.ids.len() as u32 | LOCAL;
        let added =
            crate::pages::try_reserve(&mut self.ids, 1).and_then(|()| self.keys.insert(key, c));
        if let Err(e) = added {
            self.failed.get_or_insert(e);
            return 0;
        }
        self.ids.push((start, end, *key));
        c
    }
}
