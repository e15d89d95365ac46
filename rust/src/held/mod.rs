//! Rows held until the end of an accumulator whose groups (users) may be split
//! across updates and accumulators: tables of distinct ids grown by every update
//! ([`Ids`]: an update codes its distinct ids only), rows in chunks ([`Chunked`]:
//! appending copies nothing held) and values held as f32 while every one is an
//! f32 exactly ([`Values`]). The rows of the ranking accumulators (`ranking::open`)
//! and of GAUC (`gauc::open`) are built of them.

mod ids;
mod values;

pub use ids::{Ids, TooMany};
pub use values::{Values, Widened};

/// Rows of a chunk.
pub const CHUNK: usize = 1 << 16;

/// Rows in chunks of [`CHUNK`] (the first grows as a `Vec` up to it): appending
/// never copies what is held.
#[derive(Clone)]
pub struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

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

    /// Append the items of `values` (a chunk's room reserved from their count when
    /// the iterator knows it).
    pub fn extend(&mut self, values: impl IntoIterator<Item = T>) {
        let mut values = values.into_iter();
        while let Some(x) = values.next() {
            let last = self.room();
            if last.len() == last.capacity() {
                let more = values.size_hint().0 + 1;
                Self::reserve(last, more.min(CHUNK - last.len()));
            }
            last.push(x);
            self.len += 1;
        }
    }

    /// The last chunk, a new one when it is full.
    fn room(&mut self) -> &mut Vec<T> {
        if self.chunks.len() * CHUNK == self.len {
            let cap = if self.chunks.is_empty() { 0 } else { CHUNK };
            self.chunks.push(Vec::with_capacity(cap));
        }
        let last = self.chunks.len() - 1;
        &mut self.chunks[last]
    }

    /// Room for `more` items in `chunk`: the first chunk grows as a `Vec` would
    /// (doubling), never past a chunk.
    fn reserve(chunk: &mut Vec<T>, more: usize) {
        let need = chunk.len() + more;
        if need > chunk.capacity() {
            let cap = need.max(2 * chunk.capacity()).min(CHUNK);
            chunk.reserve_exact(cap - chunk.len());
        }
    }

    /// Append the items of a slice (a chunk at a time).
    pub fn extend_from_slice(&mut self, mut values: &[T]) {
        while !values.is_empty() {
            let last = self.room();
            let take = (CHUNK - last.len()).min(values.len());
            Self::reserve(last, take);
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
