//! The rows of a ranking accumulator whose users may be split across updates,
//! held until the end: one id table of users and one of items, grown by every
//! update (an update codes its distinct ids only), and per row its user code,
//! item code (u32 each) and value. Values are held as f32 while every value so
//! far is one exactly; once one is not, the values after it are held as f64
//! (those before stay as they were: widening copies nothing): 12 bytes a row, or 16.
//! Rows are held in chunks of 64K (no update copies the rows before it).
//! The id tables, chunks and values are those of [`crate::held`].
//!
//! [`OpenRows::grouped`] gives the rows grouped by user in a counting sort: users
//! numbered in order of their first row (those listed without rows after them,
//! in the order they were listed), each user's rows in the order they came.

use crate::held::{Chunked, Ids, TooMany, Values};

/// The rows of every update of one side (qrels or run) of an accumulator.
#[derive(Clone, Default)]
pub struct OpenRows {
    pub users: Ids,
    pub items: Ids,
    pub user: Chunked<u32>,
    pub item: Chunked<u32>,
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
        self.item.extend(items.iter().copied());
        self.values.extend(values);
    }

    /// Add another side's rows after these, its ids coded in these tables.
    pub fn absorb(&mut self, other: &OpenRows) -> Result<(), TooMany> {
        let users = self.users.codes_of(&other.users)?;
        let items = self.items.codes_of(&other.items)?;
        self.user
            .extend(other.user.iter().map(|u| users[u as usize]));
        self.item
            .extend(other.item.iter().map(|i| items[i as usize]));
        self.values.append(&other.values);
        Ok(())
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.users.memory_bytes()
            + self.items.memory_bytes()
            + self.user.memory_bytes()
            + self.item.memory_bytes()
            + self.values.memory_bytes()
    }

    /// The rows grouped by user (see the module).
    pub fn grouped(&self) -> Grouped {
        let n_users = self.users.len();
        let mut new = vec![u32::MAX; n_users];
        let mut next = 0u32;
        for u in self.user.iter() {
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
        for u in self.user.iter() {
            offsets[new[u as usize] as usize + 1] += 1;
        }
        for i in 0..n_users {
            offsets[i + 1] += offsets[i];
        }
        let n = self.user.len();
        let mut at: Vec<i64> = offsets[..n_users].to_vec();
        let mut items = vec![0i32; n];
        let mut values = vec![0f64; n];
        let rows = self.user.iter().zip(self.item.iter());
        for (r, (u, i)) in rows.enumerate() {
            let slot = &mut at[new[u as usize] as usize];
            let p = *slot as usize;
            *slot += 1;
            items[p] = i as i32;
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

#[cfg(test)]
mod tests;
