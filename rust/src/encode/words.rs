//! Integer ids of a wide range (64-bit hashed or snowflake ids, packed pairs) as
//! 64-bit words, hashed in the tables that code string ids ([`super::strings`]): each
//! word held as the short key of its eight bytes.

use super::rows::fetch_blocks_ahead;
use super::strings::{factorize_parts, lookup_keys};
use super::table::Packed;
use crate::threads;
use crate::threads::PARALLEL_ROWS;

/// Codes (in order of first appearance) of the 64-bit words of `values` (`word(v)`:
/// the word of a value), and the first row of each code, on up to `n_chunks` threads
/// (as [`super::factorize_bytes`]; the values of the rows some blocks ahead fetched
/// as a string column's offsets are: the 10M run items of the ids benchmark spread
/// over 63 bits, two threads: 76 -> 58 ms).
pub fn factorize_words<T: Sync>(
    values: &[T],
    word: impl Fn(&T) -> u64 + Sync,
    n_chunks: usize,
) -> (Vec<i32>, Vec<i64>) {
    let fill = |_: usize, a: usize, out: &mut [u128]| {
        fetch_blocks_ahead(values, a, out.len());
        for (k, v) in out.iter_mut().zip(&values[a..]) {
            *k = word_key(word(v));
        }
    };
    let (codes, first, _) = factorize_parts::<Packed>(fill, &[values.len()], n_chunks, 0);
    (codes, first)
}

/// A 64-bit word as the short key of its eight bytes.
#[inline(always)]
fn word_key(word: u64) -> u128 {
    u128::from(word) | (8 << 120)
}

/// The position of each of `values` among `dictionary` (64-bit words): the first of
/// equal words, -1 where absent; as [`super::lookup_rows`] looks up ids (a long `values`
/// in parallel parts that share one table).
pub fn lookup_words(values: &[u64], dictionary: &[u64]) -> Vec<i32> {
    let n_parts = if values.len() >= 2 * PARALLEL_ROWS {
        threads::num_threads()
    } else {
        1
    };
    let parts: Vec<&[u64]> = values
        .chunks(values.len().div_ceil(n_parts).max(1))
        .collect();
    let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    let keys = |parts: &[&[u64]], p: usize, a: usize, out: &mut [u128]| {
        fetch_blocks_ahead(parts[p], a, out.len());
        for (k, &w) in out.iter_mut().zip(&parts[p][a..]) {
            *k = word_key(w);
        }
    };
    lookup_keys::<Packed>(
        |p, a, out| keys(&[dictionary], p, a, out),
        &[dictionary.len()],
        |p, a, out| keys(&parts, p, a, out),
        &lens,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_numbered_in_order_of_first_appearance_in_any_number_of_parts() {
        let mut next = crate::testing::stream(0x2545_f491_4f6c_dd1d);
        let words: Vec<u64> = (0..300_000)
            .map(|i| {
                let x = next();
                // addresses of a few thousand objects, and the extreme words
                match i % 1000 {
                    0 => 0,
                    1 => u64::MAX,
                    _ => (x % 5000) * 16 + 0x7f00_0000_0000,
                }
            })
            .collect();
        let mut seen = std::collections::HashMap::new();
        let mut want_first = Vec::new();
        let want: Vec<i32> = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                *seen.entry(*w).or_insert_with(|| {
                    want_first.push(i as i64);
                    want_first.len() as i32 - 1
                })
            })
            .collect();
        for n_chunks in [1, 2, 7] {
            let (codes, first) = factorize_words(&words, |&w| w, n_chunks);
            assert_eq!(codes, want, "{n_chunks} chunks");
            assert_eq!(first, want_first);
        }
        assert_eq!(factorize_words(&words[..0], |&w| w, 4), (vec![], vec![]));
    }

    #[test]
    fn lookup_words_finds_the_first_dictionary_position_of_each_word_as_a_map_would() {
        // words of every bit pattern (all 64 bits, packed pairs, the extremes), a
        // dictionary with repeated words, values of which some are absent; enough values
        // to be looked up in parallel parts, and few
        let mut stream = crate::testing::stream(0x2545_f491_4f6c_dd1d);
        let pool: Vec<u64> = (0..6000)
            .map(|k| match k % 4 {
                0 => stream(),
                1 => (stream() % 2000) * 100_000 + stream() % 100_000,
                2 => u64::MAX - stream() % 3,
                _ => stream() % 3,
            })
            .collect();
        let dictionary: Vec<u64> = (0..4000)
            .map(|_| pool[(stream() % 3000) as usize])
            .collect();
        let mut at = std::collections::HashMap::new();
        for (i, d) in dictionary.iter().enumerate() {
            at.entry(*d).or_insert(i as i32);
        }
        for n_values in [300_000, 1000, 0] {
            let values: Vec<u64> = (0..n_values)
                .map(|_| pool[(stream() % 6000) as usize])
                .collect();
            let want: Vec<i32> = values.iter().map(|v| *at.get(v).unwrap_or(&-1)).collect();
            assert_eq!(lookup_words(&values, &dictionary), want, "{n_values}");
            let none = lookup_words(&values, &[]);
            assert!(none.iter().all(|&f| f == -1) && none.len() == n_values);
        }
    }
}
