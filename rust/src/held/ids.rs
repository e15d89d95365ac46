//! Tables of distinct ids, numbered in order of first appearance.
//!
//! Integer ids are coded by a direct-address table of pages of 4,096 codes while
//! that costs at most what a hash table would (ids over a compact range: 4 bytes
//! an id), else by an open-addressing table of codes and hash tags (8 bytes a
//! slot, at most 3/4 full: a probe reads an id only when its tag agrees) beside
//! the ids (8 bytes an id); when it doubles, its codes move
//! into the new table a few at each new id (no update pays for the whole
//! table), the old table answering for those not yet moved. String ids: the
//! project's table of texts ([`TextIds`]).

use super::Chunked;
use crate::encode::{Key, NoCode, TextIds, MAX_IDS};

/// Codes per page of the direct-address table.
const PAGE: usize = 1 << 12;

/// The codes of integer ids: a direct-address table of pages (code + 1 per id of
/// the page; 0: none), or an open-addressing table of codes + 1 (and hash tags)
/// beside the ids.
#[derive(Clone)]
pub(super) enum IntCodes {
    Pages {
        /// page number of `pages[0]` (an id's page: `id >> 12`)
        first: i64,
        pages: Vec<Option<Box<[u32]>>>,
        allocated: usize,
    },
    Hashed {
        /// per slot: code + 1 (0: empty) in the low half, the high half of the
        /// id's hash in the high half (a probe reads an id only when they agree)
        slots: Vec<u64>,
        ids: Chunked<i64>,
        /// the table before the last doubling while its codes move into `slots`
        /// (empty once all have): codes `moved..` of it are not yet in `slots`
        old: Vec<u64>,
        /// codes below this are in `slots`; those from it to `old`'s count not yet
        moved: usize,
        /// the codes `old` holds (0 when no move is under way)
        in_old: usize,
    },
}

/// Codes moved from the table before a doubling into the new one at each new id:
/// the move ends long before the new table must double in turn (it holds 3/8 of
/// its slots at the doubling and must move them in 3/32 of its slots' new ids).
pub(super) const MOVES: usize = 4;

impl Default for IntCodes {
    fn default() -> Self {
        IntCodes::Pages {
            first: 0,
            pages: Vec::new(),
            allocated: 0,
        }
    }
}

#[inline(always)]
fn int_hash(key: i64) -> u64 {
    let r = (key as u64 as u128) * 0x9e37_79b9_7f4a_7c15;
    (r as u64) ^ ((r >> 64) as u64)
}

impl IntCodes {
    /// The code of `id` in the hashed table (None: not held) and its slot.
    #[inline(always)]
    fn find(slots: &[u64], ids: &Chunked<i64>, id: i64) -> (Option<u32>, usize) {
        let mask = slots.len() - 1;
        let hash = int_hash(id);
        let tag = hash >> 32;
        let mut i = hash as usize & mask;
        loop {
            let s = slots[i];
            let c = s as u32;
            if c == 0 {
                return (None, i);
            }
            if s >> 32 == tag && ids.get(c as usize - 1) == id {
                return (Some(c - 1), i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The slot of code `c` of an id of hash `hash`.
    #[inline(always)]
    fn slot(hash: u64, c: u32) -> u64 {
        (hash >> 32 << 32) | (c as u64 + 1)
    }

    /// Add code `c` of `id` (not held) to a table with room for it.
    #[inline(always)]
    fn put(slots: &mut [u64], id: i64, c: u32) {
        let mask = slots.len() - 1;
        let hash = int_hash(id);
        let mut j = hash as usize & mask;
        while slots[j] != 0 {
            j = (j + 1) & mask;
        }
        slots[j] = Self::slot(hash, c);
    }

    /// The code of `id`, or `next` (then added).
    #[inline(always)]
    fn code(&mut self, id: i64, next: u32) -> u32 {
        match self {
            IntCodes::Pages {
                first,
                pages,
                allocated,
            } => {
                let page = id >> 12;
                let at = (id & (PAGE as i64 - 1)) as usize;
                let p = page.wrapping_sub(*first);
                if (0..pages.len() as i64).contains(&p) {
                    if let Some(codes) = &mut pages[p as usize] {
                        let c = codes[at];
                        if c != 0 {
                            return c - 1;
                        }
                        codes[at] = next + 1;
                        return next;
                    }
                }
                // a new page (before, after or among those held): while the pages
                // cost at most what a hash table of the ids would
                let span = if pages.is_empty() {
                    1
                } else {
                    (page.max(*first + pages.len() as i64 - 1) - page.min(*first) + 1) as u128
                };
                let cost = (*allocated as u128 + 1) * PAGE as u128 * 4 + span * 8;
                if cost > 16 * (next as u128 + 1) + 64 * PAGE as u128 {
                    *self = IntCodes::hashed(self.ids(next as usize));
                    return self.code(id, next);
                }
                if pages.is_empty() {
                    *first = page;
                    pages.push(None);
                } else if page < *first {
                    let more = (*first - page) as usize;
                    pages.splice(0..0, std::iter::repeat_n(None, more));
                    *first = page;
                } else if page - *first >= pages.len() as i64 {
                    let more = (page - *first) as usize + 1 - pages.len();
                    pages.extend(std::iter::repeat_n(None, more));
                }
                let mut codes = vec![0u32; PAGE].into_boxed_slice();
                codes[at] = next + 1;
                pages[(page - *first) as usize] = Some(codes);
                *allocated += 1;
                next
            }
            IntCodes::Hashed {
                slots,
                ids,
                old,
                moved,
                in_old,
            } => {
                let (found, i) = Self::find(slots, ids, id);
                if let Some(c) = found {
                    return c;
                }
                if !old.is_empty() {
                    if let (Some(c), _) = Self::find(old, ids, id) {
                        return c;
                    }
                }
                slots[i] = Self::slot(int_hash(id), next);
                ids.extend([id]);
                // a bounded share of the move from the table before the doubling
                // (no new id pays for the whole table)
                if !old.is_empty() {
                    let end = (*moved + MOVES).min(*in_old);
                    for c in *moved..end {
                        Self::put(slots, ids.get(c), c as u32);
                    }
                    *moved = end;
                    if end == *in_old {
                        *old = Vec::new();
                        *in_old = 0;
                    }
                }
                if 4 * ids.len() > 3 * slots.len() {
                    debug_assert!(old.is_empty());
                    let bigger = vec![0u64; 2 * slots.len()];
                    *old = std::mem::replace(slots, bigger);
                    *moved = 0;
                    *in_old = ids.len();
                }
                next
            }
        }
    }

    /// The ids in code order (`n` of them).
    fn ids(&self, n: usize) -> Vec<i64> {
        match self {
            IntCodes::Pages { first, pages, .. } => {
                let mut out = vec![0i64; n];
                for (p, codes) in pages.iter().enumerate() {
                    if let Some(codes) = codes {
                        let base = (first + p as i64) << 12;
                        for (at, &c) in codes.iter().enumerate() {
                            if c != 0 {
                                out[c as usize - 1] = base | at as i64;
                            }
                        }
                    }
                }
                out
            }
            IntCodes::Hashed { ids, .. } => ids.to_vec(),
        }
    }

    /// The same codes in a hashed table.
    fn hashed(ids: Vec<i64>) -> IntCodes {
        let mut slots = 16;
        while 4 * ids.len() > 3 * slots {
            slots *= 2;
        }
        let mut out = IntCodes::Hashed {
            slots: vec![0u64; slots],
            ids: Chunked::default(),
            old: Vec::new(),
            moved: 0,
            in_old: 0,
        };
        for (c, id) in ids.into_iter().enumerate() {
            out.code(id, c as u32);
        }
        out
    }

    fn memory_bytes(&self) -> usize {
        match self {
            IntCodes::Pages {
                pages, allocated, ..
            } => allocated * PAGE * 4 + pages.capacity() * 8,
            IntCodes::Hashed {
                slots, ids, old, ..
            } => (slots.capacity() + old.capacity()) * 8 + ids.memory_bytes(),
        }
    }
}

/// Distinct ids, numbered in order of first appearance: integers, or strings
/// (the bytes of their UTF-8 text).
#[derive(Default, Clone)]
pub struct Ids {
    strings: bool,
    n_ints: usize,
    pub(super) ints: IntCodes,
    texts: TextIds,
}

/// Too many distinct ids.
#[derive(Debug)]
pub struct TooMany;

impl Ids {
    /// The number of ids.
    pub fn len(&self) -> usize {
        if self.strings {
            self.texts.len()
        } else {
            self.n_ints
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the ids are strings (an empty table holds integers).
    pub fn strings(&self) -> bool {
        self.strings
    }

    /// The integer ids in code order (empty when they are strings).
    pub fn ints(&self) -> Vec<i64> {
        if self.strings {
            Vec::new()
        } else {
            self.ints.ids(self.n_ints)
        }
    }

    /// The string ids in code order as the offsets (int64) and data of an Arrow
    /// `large_string` array.
    pub fn arrow_texts(&self) -> (Vec<i64>, Vec<u8>) {
        self.texts.arrow_texts()
    }

    /// The text of string id `code`.
    pub fn text(&self, code: usize) -> &[u8] {
        self.texts.text(code)
    }

    /// The code of integer id `id` (a new one if new); the ids must be integers.
    #[inline(always)]
    pub fn code_int(&mut self, id: i64) -> Result<u32, TooMany> {
        debug_assert!(!self.strings);
        let c = self.n_ints;
        if c >= MAX_IDS {
            return Err(TooMany);
        }
        let code = self.ints.code(id, c as u32);
        if code as usize == c {
            self.n_ints += 1;
        }
        Ok(code)
    }

    /// The code of string id `id` (a new one if new); integers held so far turn into
    /// their decimal text first.
    #[inline(always)]
    pub fn code_text(&mut self, id: &[u8]) -> Result<u32, TooMany> {
        self.code_key(id, &Key::new(id, 0, id.len()))
    }

    /// [`Ids::code_text`] of `id` and its key (for an id of at most 15 bytes, the
    /// key alone tells the id: `id` is not read).
    #[inline(always)]
    pub fn code_key(&mut self, id: &[u8], key: &Key) -> Result<u32, TooMany> {
        if !self.strings {
            self.ints_as_text();
        }
        self.texts.code(id, key).map_err(|e| match e {
            NoCode::TooMany => TooMany,
            // as where the allocator fails: a panic that says what was asked for,
            // which the Python layer raises as an exception
            NoCode::Memory(m) => panic!("{m}"),
        })
    }

    /// Fetch the slot of the string id of key `key` into the cache (a hint: a loop
    /// over many ids fetches an id's slot some rows before it looks it up).
    #[inline(always)]
    pub fn prefetch_key(&self, key: &Key) {
        self.texts.prefetch(key);
    }

    /// The code of integer id `id` in a table of either kind.
    #[inline(always)]
    pub fn code_any_int(&mut self, id: i64) -> Result<u32, TooMany> {
        if self.strings {
            self.code_text(id.to_string().as_bytes())
        } else {
            self.code_int(id)
        }
    }

    /// The code here of each id of `other` (new ones for new ids), in `other`'s
    /// code order: a merge codes the other's distinct ids in one pass.
    pub fn codes_of(&mut self, other: &Ids) -> Result<Vec<u32>, TooMany> {
        if other.strings() {
            (0..other.len())
                .map(|c| self.code_text(other.text(c)))
                .collect()
        } else {
            other
                .ints()
                .iter()
                .map(|&id| self.code_any_int(id))
                .collect()
        }
    }

    /// Integer ids as their decimal text, codes kept.
    fn ints_as_text(&mut self) {
        let ints = self.ints.ids(self.n_ints);
        self.ints = IntCodes::default();
        self.n_ints = 0;
        self.strings = true;
        for id in ints {
            // distinct integers have distinct texts: codes stay in order
            let _ = self.code_text(id.to_string().as_bytes());
        }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.ints.memory_bytes() + self.texts.memory_bytes()
    }
}
