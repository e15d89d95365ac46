//! Rows held until the end of an accumulator whose groups (users) may be split
//! across updates and accumulators: tables of distinct ids grown by every update
//! ([`Ids`]: an update codes its distinct ids only), rows in chunks ([`Chunked`]:
//! appending copies nothing held) and values held as f32 while every one is an
//! f32 exactly ([`Values`]). The rows of the ranking accumulators
//! ([`crate::ranking::open`]) and of GAUC ([`crate::gauc::open`]) are built of them.

mod ids;
mod values;

pub use ids::{Ids, TooMany, MAX_IDS};
pub use values::{Values, Widened};

/// Rows in chunks of [`CHUNK`] (the first grows as a `Vec` up to it): appending
/// never copies what is held.
#[derive(Clone)]
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

/// Rows of a chunk.
pub const CHUNK: usize = 1 << 16;

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Copy> Chunked<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        self.chunks[i / CHUNK][i % CHUNK]
    }

    /// Append the items of `values`.
    pub fn extend(&mut self, values: impl IntoIterator<Item = T>) {
        for x in values {
            if self.chunks.len() * CHUNK == self.len {
                let cap = if self.chunks.is_empty() { 0 } else { CHUNK };
                self.chunks.push(Vec::with_capacity(cap));
            }
            if let Some(last) = self.chunks.last_mut() {
                last.push(x);
            }
            self.len += 1;
        }
    }

    /// Append the items of a slice (a chunk at a time).
    pub fn extend_from_slice(&mut self, mut values: &[T]) {
        while !values.is_empty() {
            if self.chunks.len() * CHUNK == self.len {
                let cap = if self.chunks.is_empty() { 0 } else { CHUNK };
                self.chunks.push(Vec::with_capacity(cap));
            }
            let Some(last) = self.chunks.last_mut() else {
                return;
            };
            let take = (CHUNK - last.len()).min(values.len());
            let need = last.len() + take;
            if need > last.capacity() {
                // the first chunk grows as a `Vec` would, never past a chunk
                let cap = need.max(2 * last.capacity()).min(CHUNK);
                last.reserve_exact(cap - last.len());
            }
            last.extend_from_slice(&values[..take]);
            self.len += take;
            values = &values[take..];
        }
    }

    /// The items in chunks, in order.
    pub fn chunks(&self) -> impl Iterator<Item = &[T]> + '_ {
        self.chunks.iter().map(|c| c.as_slice())
    }

    /// The items in order.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.chunks.iter().flat_map(|c| c.iter().copied())
    }

    /// The items as one `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len);
        for c in &self.chunks {
            out.extend_from_slice(c);
        }
        out
    }

    pub fn memory_bytes(&self) -> usize {
        self.chunks.iter().map(|c| c.capacity()).sum::<usize>() * std::mem::size_of::<T>()
            + self.chunks.capacity() * std::mem::size_of::<Vec<T>>()
    }
}

#[cfg(test)]
mod tests;
