//! Codes of string ids read one row at a time (the `str` objects of a NumPy object
//! array, which only the thread that holds the GIL may read): read on the calling
//! thread and coded on a second one as they come, both threads coding when the
//! second falls behind ([`code_rows`]).

use rayon::prelude::*;

use super::{Ids, TooMany};
use crate::encode::table::short_bits;
use crate::encode::Key;

/// Codes, the first row of each code and the distinct ids (offsets and data).
pub type Coded = (Vec<i32>, Vec<i64>, (Vec<i64>, Vec<u8>));

/// Codes in order of first appearance of `n` strings, `row(i)` the `i`-th, the
/// first row of each code and the distinct strings in code order (offsets, int64,
/// and data). The rows are read a block at a time on the calling thread (which
/// holds the GIL throughout, so that no Python code can drop a string while it is
/// read) and handed to a second thread, which codes them into its table, so that
/// reading and hashing overlap and no slice of every row is held. When that thread
/// is behind (two blocks wait), the calling thread codes the block it read into a
/// table of its own; the two tables are merged at the end ([`Part::merge`]). A block
/// holds each row's short key (`short_bits`, read where the string is in the
/// cache), and the ids of 16 bytes or more apart: a coder reads no string of at
/// most 15 bytes.
pub fn code_rows<'a>(n: usize, row: impl Fn(usize) -> &'a [u8]) -> Result<Coded, TooMany> {
    /// Blocks in flight between the threads.
    const IN_FLIGHT: usize = 2;
    code_rows_in(n, row, IN_FLIGHT)
}

/// [`code_rows`] with `in_flight` blocks at most waiting for the second thread.
fn code_rows_in<'a>(
    n: usize,
    row: impl Fn(usize) -> &'a [u8],
    in_flight: usize,
) -> Result<Coded, TooMany> {
    use std::sync::mpsc::TrySendError;
    let mut codes = vec![0i32; n];
    let (theirs, mine) = std::thread::scope(|s| {
        let (blocks, taken) = std::sync::mpsc::sync_channel::<Block<'a, '_>>(in_flight);
        let coder = s.spawn(move || {
            let mut part = Part::new(n);
            for block in taken {
                part.code(block)?;
            }
            Ok(part)
        });
        let (mut mine, mut failed) = (Part::new(n), None);
        for (start, out) in (0..n)
            .step_by(Part::BLOCK)
            .zip(codes.chunks_mut(Part::BLOCK))
        {
            let mut longs = Vec::new();
            let mut key = |i| {
                let id: &[u8] = row(i);
                short_bits(id, 0, id.len()).unwrap_or_else(|| {
                    longs.push(id);
                    Part::LONG
                })
            };
            let keys: Vec<u128> = (start..start + out.len()).map(&mut key).collect();
            match blocks.try_send(Block {
                start,
                keys,
                longs,
                out,
            }) {
                Ok(()) => {}
                Err(TrySendError::Full(block)) => {
                    if let Err(e) = mine.code(block) {
                        failed = Some(e);
                        break;
                    }
                }
                Err(TrySendError::Disconnected(_)) => break, // the coder stopped: too many ids
            }
        }
        drop(blocks);
        (coder.join(), failed.map_or(Ok(mine), Err))
    });
    let theirs = match theirs {
        Ok(part) => part,
        Err(panic) => std::panic::resume_unwind(panic),
    };
    Part::merge(theirs?, mine?, codes)
}

/// Rows read for a coder: the first row, each row's short key (or [`Part::LONG`]),
/// the longer ids in order, and where the block's codes go.
struct Block<'a, 'c> {
    start: usize,
    keys: Vec<u128>,
    longs: Vec<&'a [u8]>,
    out: &'c mut [i32],
}

/// The blocks one thread coded: its table, the first row of each of its codes, and
/// the first row of each block it coded.
struct Part {
    ids: Ids,
    first: Vec<i64>,
    starts: Vec<usize>,
    rows: usize,
}

impl Part {
    /// Rows a block.
    const BLOCK: usize = 1 << 14;
    /// How many rows ahead a row's slot is fetched.
    const AHEAD: usize = 16;
    /// The key of a row whose id is longer (a short key's top byte is below 16).
    const LONG: u128 = u128::MAX;

    fn new(rows: usize) -> Self {
        Part {
            ids: Ids::default(),
            first: Vec::new(),
            starts: Vec::new(),
            rows,
        }
    }

    /// Code a block into this part's table: when most of the first block's ids are
    /// new, the table is made for many at once.
    fn code(&mut self, block: Block<'_, '_>) -> Result<(), TooMany> {
        let Block {
            start,
            keys,
            longs,
            out,
        } = block;
        let mut longs = longs.into_iter();
        for (j, (&k, c)) in keys.iter().zip(out.iter_mut()).enumerate() {
            if let Some(&ahead) = keys.get(j + Self::AHEAD) {
                if ahead != Self::LONG {
                    self.ids.prefetch_key(&Key::of(Some(ahead), &[]));
                }
            }
            let code = match k {
                Self::LONG => {
                    let id = longs.next().unwrap_or_default();
                    self.ids.code_key(id, &Key::of(None, id))?
                }
                // a short key tells its id
                _ => self.ids.code_key(&[], &Key::of(Some(k), &[]))?,
            };
            if code as usize == self.first.len() {
                self.first.push((start + j) as i64);
            }
            *c = code as i32;
        }
        if self.starts.is_empty() {
            self.ids
                .reserve_for(self.rows, self.first.len(), keys.len());
        }
        self.starts.push(start);
        Ok(())
    }

    /// The codes in order of first appearance of every row (`codes`: each block's
    /// codes in the table of the part that coded it), the first row of each code and
    /// the distinct ids: `mine`'s ids are coded in `theirs`'s table, each id's first
    /// row is the earlier of the two, and the codes are renumbered in that order.
    fn merge(mut theirs: Part, mine: Part, mut codes: Vec<i32>) -> Result<Coded, TooMany> {
        if mine.starts.is_empty() {
            return Ok((codes, theirs.first, theirs.ids.arrow_texts()));
        }
        let there = theirs.ids.codes_of(&mine.ids)?;
        let mut first = theirs.first;
        first.resize(theirs.ids.len(), i64::MAX);
        for (&c, &f) in there.iter().zip(&mine.first) {
            first[c as usize] = first[c as usize].min(f);
        }
        let mut order: Vec<u32> = (0..first.len() as u32).collect();
        order.sort_unstable_by_key(|&c| first[c as usize]);
        let mut rank = vec![0i32; order.len()];
        for (r, &c) in order.iter().enumerate() {
            rank[c as usize] = r as i32;
        }
        let mut by_mine = vec![false; codes.len().div_ceil(Self::BLOCK)];
        mine.starts
            .iter()
            .for_each(|&s| by_mine[s / Self::BLOCK] = true);
        let mine_ranks: Vec<i32> = there.iter().map(|&c| rank[c as usize]).collect();
        crate::threads::install(|| {
            codes
                .par_chunks_mut(Self::BLOCK)
                .enumerate()
                .for_each(|(b, out)| {
                    let to = if by_mine[b] { &mine_ranks } else { &rank };
                    out.iter_mut().for_each(|c| *c = to[*c as usize]);
                })
        });
        let mut offsets = Vec::with_capacity(order.len() + 1);
        let mut data = Vec::new();
        offsets.push(0);
        for &c in &order {
            data.extend_from_slice(theirs.ids.text(c as usize));
            offsets.push(data.len() as i64);
        }
        let first = order.iter().map(|&c| first[c as usize]).collect();
        Ok((codes, first, (offsets, data)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::naive_bytes;
    use crate::testing::lcg;

    #[test]
    fn rows_coded_on_either_thread_give_the_codes_of_first_appearance() {
        let mut seed = 11u64;
        // ids of 1-7 bytes, 8-15 (wide keys) and 16 or more, new ones all along
        let n = 5 * Part::BLOCK + 123;
        let ids: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let x = lcg(&mut seed) % (1 + i as u64 / 4);
                match x % 3 {
                    0 => format!("{x}").into_bytes(),
                    1 => format!("doc-{x:08}").into_bytes(),
                    _ => format!("a-long-document-{x}").into_bytes(),
                }
            })
            .collect();
        let (codes, first, distinct) = naive_bytes(&ids);
        // 0 blocks in flight: the calling thread codes every block the other is
        // not waiting for; many: the other codes nearly all
        for in_flight in [0, 1, 2, 64] {
            let (c, f, (offsets, data)) = code_rows_in(n, |i| &ids[i], in_flight).unwrap();
            assert_eq!(c, codes, "{in_flight}");
            assert_eq!(f, first);
            let texts: Vec<Vec<u8>> = offsets
                .windows(2)
                .map(|w| data[w[0] as usize..w[1] as usize].to_vec())
                .collect();
            assert_eq!(texts, distinct);
        }
        let (c, f, (offsets, data)) = code_rows(0, |i| &ids[i]).unwrap();
        assert!(c.is_empty() && f.is_empty() && data.is_empty() && offsets == [0]);
    }
}
