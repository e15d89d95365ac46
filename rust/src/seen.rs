//! Seen-item masking: which rows of ranked lists hold an item their user has seen
//! (the training items that full-ranking evaluation removes before the cut at k).
//!
//! The seen items are a CSR table, each user's item codes ascending; the lists are
//! a run's (or qrels') CSR rows, read through two maps from their codes to the
//! table's. One pass over the rows, a binary search in the user's seen items each.

use std::ops::Range;

use rayon::prelude::*;

use crate::threads::{self, PARALLEL_ROWS};

/// The seen items of every user of a log.
pub struct Seen<'a> {
    /// User `s`'s items are `items[offsets[s]..offsets[s + 1]]`.
    pub offsets: &'a [i64],
    /// Item codes, ascending within each user.
    pub items: &'a [i32],
}

/// Lists of item codes and how their codes read in a [`Seen`] table.
pub struct Lists<'a> {
    /// List `u`'s rows are `offsets[u]..offsets[u + 1]` (from 0).
    pub offsets: &'a [i64],
    /// The item code of each row.
    pub items: &'a [i32],
    /// Each list's user in the table (negative: absent).
    pub user_map: &'a [i32],
    /// Each item code's code in the table (negative: absent).
    pub item_map: &'a [i32],
}

/// Whether each row of `lists` holds an item its list's user has seen, and how many
/// rows of each list do.
///
/// Lists are split into chunks of whole lists, run in parallel above
/// `PARALLEL_ROWS` rows; the result does not depend on the chunks. The caller
/// checks the inputs: offsets ascending from 0 to the rows, codes within the maps
/// and the table.
pub fn seen_rows(lists: &Lists, seen: &Seen) -> (Vec<bool>, Vec<i64>) {
    let n_rows = lists.items.len();
    let n_lists = lists.offsets.len().saturating_sub(1);
    let mut out = vec![false; n_rows];
    let mut counts = vec![0i64; n_lists];
    if n_rows >= PARALLEL_ROWS && n_lists > 1 {
        let n_chunks = (threads::num_threads() * 4).min(n_lists);
        let mut parts = Vec::with_capacity(n_chunks);
        let (mut rest, mut rest_counts) = (out.as_mut_slice(), counts.as_mut_slice());
        for c in 0..n_chunks {
            let range = n_lists * c / n_chunks..n_lists * (c + 1) / n_chunks;
            let rows = (lists.offsets[range.end] - lists.offsets[range.start]) as usize;
            let (head, tail) = rest.split_at_mut(rows);
            let (head_counts, tail_counts) = rest_counts.split_at_mut(range.len());
            parts.push((range, head, head_counts));
            (rest, rest_counts) = (tail, tail_counts);
        }
        threads::install(|| {
            parts
                .into_par_iter()
                .for_each(|(range, part, part_counts)| mark(lists, seen, range, part, part_counts))
        });
    } else {
        mark(lists, seen, 0..n_lists, &mut out, &mut counts);
    }
    (out, counts)
}

/// [`seen_rows`] of the lists `range`, into `out` (their rows) and `counts` (theirs).
fn mark(lists: &Lists, seen: &Seen, range: Range<usize>, out: &mut [bool], counts: &mut [i64]) {
    let base = lists.offsets[range.start] as usize;
    let first = range.start;
    for u in range {
        let s = lists.user_map[u];
        if s < 0 {
            continue;
        }
        let s = s as usize;
        let held = &seen.items[seen.offsets[s] as usize..seen.offsets[s + 1] as usize];
        if held.is_empty() {
            continue;
        }
        let mut n = 0i64;
        for r in lists.offsets[u] as usize..lists.offsets[u + 1] as usize {
            let code = lists.item_map[lists.items[r] as usize];
            let hit = code >= 0 && held.binary_search(&code).is_ok();
            out[r - base] = hit;
            n += i64::from(hit);
        }
        counts[u - first] = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_seen_rows_of_each_list() {
        // table: user 0 saw items 1, 4; user 1 saw item 0
        let seen = Seen {
            offsets: &[0, 2, 3],
            items: &[1, 4, 0],
        };
        // lists: list 0 is table user 1, list 1 absent, list 2 is table user 0
        let lists = Lists {
            offsets: &[0, 2, 3, 6],
            items: &[0, 1, 0, 2, 1, 0],
            user_map: &[1, -1, 0],
            // list item codes 0, 1, 2 are table items 4, 0, absent
            item_map: &[4, 0, -1],
        };
        let (got, counts) = seen_rows(&lists, &seen);
        assert_eq!(got, vec![false, true, false, false, false, true]);
        assert_eq!(counts, vec![1, 0, 1]);
    }

    #[test]
    fn chunks_agree_with_one_pass() {
        let n_lists = 3000usize;
        let per = 40usize;
        let offsets: Vec<i64> = (0..=n_lists).map(|u| (u * per) as i64).collect();
        let items: Vec<i32> = (0..n_lists * per)
            .map(|r| ((r * 7919) % 500) as i32)
            .collect();
        let user_map: Vec<i32> = (0..n_lists)
            .map(|u| if u % 5 == 0 { -1 } else { (u % 100) as i32 })
            .collect();
        let item_map: Vec<i32> = (0..500)
            .map(|i| if i % 7 == 0 { -1 } else { i / 2 })
            .collect();
        let seen_offsets: Vec<i64> = (0..=100).map(|s| (s * 30) as i64).collect();
        let seen_items: Vec<i32> = (0..100)
            .flat_map(|s| (0..30).map(move |j| s + j * 8))
            .collect();
        let seen = Seen {
            offsets: &seen_offsets,
            items: &seen_items,
        };
        let lists = Lists {
            offsets: &offsets,
            items: &items,
            user_map: &user_map,
            item_map: &item_map,
        };
        let (got, counts) = seen_rows(&lists, &seen);
        let mut want = vec![false; items.len()];
        let mut want_counts = vec![0i64; n_lists];
        mark(&lists, &seen, 0..n_lists, &mut want, &mut want_counts);
        assert_eq!(got, want);
        assert_eq!(counts, want_counts);
        let per_list: Vec<i64> = (0..n_lists)
            .map(|u| got[u * per..(u + 1) * per].iter().filter(|&&x| x).count() as i64)
            .collect();
        assert_eq!(counts, per_list);
        assert!(got.iter().any(|&x| x) && got.iter().any(|&x| !x));
    }
}
