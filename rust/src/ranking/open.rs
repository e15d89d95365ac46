//! The rows of a ranking accumulator whose users may be split across updates,
//! held until the end: one id table of users and one of items, grown by every
//! update (an update codes its distinct ids only), and per row its user code,
//! item code (u32 each) and value. Values are held as f32 while every value so
//! far is one exactly, and widened to f64 once one is not: 12 bytes a row, or 16.
//!
//! [`OpenRows::grouped`] gives the rows grouped by user in a counting sort: users
//! numbered in order of their first row (those listed without rows after them,
//! in the order they were listed), each user's rows in the order they came.

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

use crate::encode::table::{packs, short_bits, short_hash, Packed, Slot, Table, Wide};

/// The most distinct ids of a table (codes are handed on as i32).
pub const MAX_IDS: usize = i32::MAX as usize;

/// A table slot of an integer id and its code plus one (0: empty).
#[derive(Clone, Copy, Default)]
pub(crate) struct IntSlot {
    key: i64,
    code: u32,
}

impl Slot for IntSlot {
    type Key = i64;
    #[inline(always)]
    fn new(key: i64, code: u32) -> Self {
        IntSlot {
            key,
            code: code + 1,
        }
    }
    #[inline(always)]
    fn key(self) -> i64 {
        self.key
    }
    #[inline(always)]
    fn code(self) -> Option<u32> {
        self.code.checked_sub(1)
    }
    #[inline(always)]
    fn hash(key: i64) -> u64 {
        let r = (key as u64 as u128) * 0x9e37_79b9_7f4a_7c15;
        (r as u64) ^ ((r >> 64) as u64)
    }
}

/// Distinct ids, numbered in order of first appearance: integers, or strings
/// (the bytes of their UTF-8 text).
#[derive(Default)]
pub struct Ids {
    strings: bool,
    /// ids in the table of ids of at most 11 bytes, of 12 to 15 bytes
    n_packed: usize,
    n_wide: usize,
    ints: Table<IntSlot>,
    int_ids: Vec<i64>,
    packed: Table<Packed>,
    wide: Table<Wide>,
    long: HashTable<(u64, u32)>,
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// Too many distinct ids.
#[derive(Debug)]
pub struct TooMany;

impl Ids {
    /// The number of ids.
    pub fn len(&self) -> usize {
        if self.strings {
            self.ends.len()
        } else {
            self.int_ids.len()
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
    pub fn ints(&self) -> &[i64] {
        &self.int_ids
    }

    /// The text of string id `code`.
    pub fn text(&self, code: usize) -> &[u8] {
        let start = if code == 0 { 0 } else { self.ends[code - 1] };
        &self.bytes[start..self.ends[code]]
    }

    /// The code of integer id `id` (a new one if new); the ids must be integers.
    #[inline(always)]
    pub fn code_int(&mut self, id: i64) -> Result<u32, TooMany> {
        debug_assert!(!self.strings);
        let hash = IntSlot::hash(id);
        if let Some(c) = self.ints.get(id, hash) {
            return Ok(c);
        }
        let c = self.int_ids.len();
        if c >= MAX_IDS {
            return Err(TooMany);
        }
        self.ints.code(id, hash, c as u32);
        self.int_ids.push(id);
        Ok(c as u32)
    }

    /// The code of string id `id` (a new one if new); integers held so far turn into
    /// their decimal text first.
    #[inline(always)]
    pub fn code_text(&mut self, id: &[u8]) -> Result<u32, TooMany> {
        if !self.strings {
            self.to_strings();
        }
        let short = short_bits(id, 0, id.len());
        let hash = match short {
            Some(k) => short_hash(k),
            None => FxBuildHasher.hash_one(id),
        };
        let found = match short {
            Some(k) if packs(k) => self.packed.get(k, hash),
            Some(k) => self.wide.get(k, hash),
            None => {
                let (bytes, ends) = (&self.bytes, &self.ends);
                self.long
                    .find(hash, |&(h, c)| {
                        let c = c as usize;
                        let start = if c == 0 { 0 } else { ends[c - 1] };
                        h == hash && &bytes[start..ends[c]] == id
                    })
                    .map(|&(_, c)| c)
            }
        };
        if let Some(c) = found {
            return Ok(c);
        }
        let c = self.ends.len();
        if c >= MAX_IDS {
            return Err(TooMany);
        }
        let c = c as u32;
        match short {
            Some(k) if packs(k) => {
                self.packed.code(k, hash, c);
                self.n_packed += 1;
            }
            Some(k) => {
                self.wide.code(k, hash, c);
                self.n_wide += 1;
            }
            None => {
                self.long.insert_unique(hash, (hash, c), |&(h, _)| h);
            }
        }
        self.bytes.extend_from_slice(id);
        self.ends.push(self.bytes.len());
        Ok(c)
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

    /// Integer ids as their decimal text, codes kept.
    fn to_strings(&mut self) {
        let ints = std::mem::take(&mut self.int_ids);
        self.ints = Table::default();
        self.strings = true;
        for id in ints {
            // distinct integers have distinct texts: codes stay in order
            let _ = self.code_text(id.to_string().as_bytes());
        }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        let n_ints = if self.strings { 0 } else { self.int_ids.len() };
        table_bytes::<IntSlot>(n_ints)
            + table_bytes::<Packed>(self.n_packed)
            + table_bytes::<Wide>(self.n_wide)
            + self.long.capacity() * 16
            + self.int_ids.capacity() * 8
            + self.bytes.capacity()
            + self.ends.capacity() * 8
    }
}

impl Clone for Ids {
    /// The same ids and codes (the tables built anew).
    fn clone(&self) -> Self {
        let mut out = Ids::default();
        if self.strings {
            for c in 0..self.len() {
                let _ = out.code_text(self.text(c));
            }
        } else {
            for &id in &self.int_ids {
                let _ = out.code_int(id);
            }
        }
        out
    }
}

/// The bytes of a [`Table`] of `n` keys: it doubles from 16 slots when more than
/// 3/4 full.
fn table_bytes<S>(n: usize) -> usize {
    let mut slots = 16;
    while 4 * n > 3 * slots {
        slots *= 2;
    }
    slots * std::mem::size_of::<S>()
}

/// The values of the rows: f32 while every one is an f32 exactly.
#[derive(Clone)]
pub enum Values {
    Single(Vec<f32>),
    Double(Vec<f64>),
}

impl Default for Values {
    fn default() -> Self {
        Values::Single(Vec::new())
    }
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Single(v) => v.len(),
            Values::Double(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Append `values` (widening once when one is not an f32 exactly).
    pub fn extend(&mut self, values: &[f64]) {
        if let Values::Single(v) = self {
            if values.iter().all(|&x| (x as f32) as f64 == x) {
                v.extend(values.iter().map(|&x| x as f32));
                return;
            }
            let wide: Vec<f64> = v.iter().map(|&x| x as f64).collect();
            *self = Values::Double(wide);
        }
        if let Values::Double(v) = self {
            v.extend_from_slice(values);
        }
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Values::Single(v) => v[i] as f64,
            Values::Double(v) => v[i],
        }
    }

    fn memory_bytes(&self) -> usize {
        match self {
            Values::Single(v) => v.capacity() * 4,
            Values::Double(v) => v.capacity() * 8,
        }
    }
}

/// The rows of every update of one side (qrels or run) of an accumulator.
#[derive(Clone, Default)]
pub struct OpenRows {
    pub users: Ids,
    pub items: Ids,
    pub user: Vec<u32>,
    pub item: Vec<u32>,
    pub values: Values,
}

/// Rows grouped by user: the users' codes in their new order, CSR offsets, and
/// each position's item code and value.
pub struct Grouped {
    pub order: Vec<u32>,
    pub offsets: Vec<i64>,
    pub items: Vec<i32>,
    pub values: Vec<f64>,
}

impl OpenRows {
    /// Append rows: `users[r]`, `items[r]` (codes of this table) and `values[r]`.
    pub fn push(&mut self, users: impl Iterator<Item = u32>, items: &[u32], values: &[f64]) {
        self.user.extend(users);
        self.item.extend_from_slice(items);
        self.values.extend(values);
    }

    /// Add another side's rows after these, its ids coded in these tables.
    pub fn absorb(&mut self, other: &OpenRows) -> Result<(), TooMany> {
        let users = remap(&mut self.users, &other.users)?;
        let items = remap(&mut self.items, &other.items)?;
        self.user
            .extend(other.user.iter().map(|&u| users[u as usize]));
        self.item
            .extend(other.item.iter().map(|&i| items[i as usize]));
        match &other.values {
            Values::Double(v) => self.values.extend(v),
            Values::Single(v) => match &mut self.values {
                Values::Single(mine) => mine.extend_from_slice(v),
                Values::Double(mine) => mine.extend(v.iter().map(|&x| x as f64)),
            },
        }
        Ok(())
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.users.memory_bytes()
            + self.items.memory_bytes()
            + (self.user.capacity() + self.item.capacity()) * 4
            + self.values.memory_bytes()
    }

    /// The rows grouped by user (see the module).
    pub fn grouped(&self) -> Grouped {
        let n_users = self.users.len();
        let mut new = vec![u32::MAX; n_users];
        let mut next = 0u32;
        for &u in &self.user {
            let slot = &mut new[u as usize];
            if *slot == u32::MAX {
                *slot = next;
                next += 1;
            }
        }
        let mut order = vec![0u32; n_users];
        for (c, slot) in new.iter_mut().enumerate() {
            if *slot == u32::MAX {
                *slot = next;
                next += 1;
            }
            order[*slot as usize] = c as u32;
        }
        let mut offsets = vec![0i64; n_users + 1];
        for &u in &self.user {
            offsets[new[u as usize] as usize + 1] += 1;
        }
        for i in 0..n_users {
            offsets[i + 1] += offsets[i];
        }
        let n = self.user.len();
        let mut at: Vec<i64> = offsets[..n_users].to_vec();
        let mut items = vec![0i32; n];
        let mut values = vec![0f64; n];
        for (r, &u) in self.user.iter().enumerate() {
            let slot = &mut at[new[u as usize] as usize];
            let p = *slot as usize;
            *slot += 1;
            items[p] = self.item[r] as i32;
            values[p] = self.values.get(r);
        }
        Grouped {
            order,
            offsets,
            items,
            values,
        }
    }
}

/// The code in `mine` of each id of `other`, in `other`'s code order.
fn remap(mine: &mut Ids, other: &Ids) -> Result<Vec<u32>, TooMany> {
    if other.strings() {
        (0..other.len())
            .map(|c| mine.code_text(other.text(c)))
            .collect()
    } else {
        other
            .ints()
            .iter()
            .map(|&id| mine.code_any_int(id))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_turn_into_strings_keeping_codes_and_rows_group_by_first_row() {
        let mut rows = OpenRows::default();
        let u: Vec<u32> = [5i64, 7, 5]
            .iter()
            .map(|&id| rows.users.code_any_int(id).unwrap())
            .collect();
        let i: Vec<u32> = [1i64, 2, 3]
            .iter()
            .map(|&id| rows.items.code_any_int(id).unwrap())
            .collect();
        rows.push(u.into_iter(), &i, &[0.5, 0.1, 2.0]);
        assert!(matches!(rows.values, Values::Double(_)));
        assert_eq!(rows.users.code_text(b"7").unwrap(), 1);
        assert_eq!(
            rows.users
                .code_text(b"a-long-user-id-of-many-bytes")
                .unwrap(),
            2
        );
        assert_eq!(
            rows.users
                .code_text(b"a-long-user-id-of-many-bytes")
                .unwrap(),
            2
        );
        assert_eq!(rows.users.text(0), b"5");
        let g = rows.grouped();
        assert_eq!(g.order, vec![0, 1, 2]);
        assert_eq!(g.offsets, vec![0, 2, 3, 3]);
        assert_eq!(g.items, vec![0, 2, 1]);
        assert_eq!(g.values, vec![0.5, 2.0, 0.1]);
        let mut other = OpenRows::default();
        other.absorb(&rows).unwrap();
        other.absorb(&rows).unwrap();
        assert_eq!(other.user, vec![0, 1, 0, 0, 1, 0]);
        let mut f = Values::default();
        f.extend(&[1.0, 0.25]);
        assert!(matches!(f, Values::Single(_)));
    }
}
