//! Ids of a text file (CSV, TSV) that are integers: an id column is int64 when every
//! id is written as its integer's decimal digits, so that ids such as `007` keep
//! their spelling as text.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::encode::Rows;
use crate::threads::{self, PARALLEL_ROWS};

/// The integer of `text` when `text` is its canonical decimal spelling: `0`, or an
/// optional `-` and digits not starting with `0`, within int64; None otherwise
/// (`007`, `+7`, `-0`, `7.0`, ` 7`, `0x7`, the empty text, a number out of range).
#[inline(always)]
pub fn canonical_integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    match digits {
        [] => return None,
        [b'0'] => return (!negative).then_some(0),
        [b'0', ..] => return None,
        _ if digits.len() > 19 => return None, // 10^19 > 2^63
        _ => {}
    }
    let mut value = 0u64; // 19 digits fit a u64
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        value = value * 10 + d as u64;
    }
    if negative {
        // -2^63 is the one negative number whose magnitude is not an int64
        (value <= 1 << 63).then(|| (value as i64).wrapping_neg())
    } else {
        i64::try_from(value).ok()
    }
}

/// The ids of a string column given in chunks (rows counted across the chunks) as
/// int64 when every one is the canonical spelling of an integer
/// ([`canonical_integer`]), else None: pieces of the rows in parallel, every piece
/// stopping at the first row that is not (a column of other ids costs a row a
/// piece). Canonical spellings and integers are one to one, so the integers tell
/// the same rows apart as the strings do.
pub fn canonical_integers<R: Rows>(chunks: &[R]) -> Option<Vec<i64>> {
    let n: usize = chunks.iter().map(|c| c.rows()).sum();
    let mut out = vec![0i64; n];
    let mut pieces = Vec::new();
    let mut rest = out.as_mut_slice();
    for chunk in chunks {
        let (mine, tail) = rest.split_at_mut(chunk.rows());
        rest = tail;
        for (k, piece) in mine.chunks_mut(PARALLEL_ROWS).enumerate() {
            pieces.push((chunk, k * PARALLEL_ROWS, piece));
        }
    }
    let other = AtomicBool::new(false);
    let read = |(chunk, a, piece): (&R, usize, &mut [i64])| {
        if other.load(Ordering::Relaxed) {
            return;
        }
        for (j, value) in piece.iter_mut().enumerate() {
            let (data, start, end) = chunk.row(a + j);
            match canonical_integer(&data[start..end]) {
                Some(v) => *value = v,
                None => {
                    other.store(true, Ordering::Relaxed);
                    return;
                }
            }
        }
    };
    if n < 2 * PARALLEL_ROWS {
        // a block of a file as it is read: on this thread (the reader's others are busy)
        pieces.into_iter().for_each(read);
    } else {
        threads::install(|| pieces.into_par_iter().for_each(read));
    }
    (!other.into_inner()).then_some(out)
}

/// The canonical spelling ([`canonical_integer`]) of each of `values`, as the
/// offsets (int64, one more than the values) and data of an Arrow `large_string`
/// array: the strings of integer ids coded as integers again.
pub fn integer_texts(values: &[i64]) -> (Vec<i64>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(values.len() + 1);
    let mut data = Vec::with_capacity(values.len() * 8);
    let mut digits = itoa::Buffer::new();
    offsets.push(0);
    for &v in values {
        data.extend_from_slice(digits.format(v).as_bytes());
        offsets.push(data.len() as i64);
    }
    (offsets, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_spellings_are_integers() {
        for (text, value) in [
            ("0", 0),
            ("7", 7),
            ("-12", -12),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            ("1000000000000000000", 10i64.pow(18)),
        ] {
            assert_eq!(canonical_integer(text.as_bytes()), Some(value), "{text}");
        }
    }

    #[test]
    fn other_spellings_are_not() {
        for text in [
            "",
            "-",
            "007",
            "00",
            "-0",
            "-07",
            "+7",
            "7.0",
            " 7",
            "7 ",
            "0x7",
            "1e3",
            "x",
            "9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            "99999999999999999999",
            "\u{663}", // an Arabic-Indic digit
        ] {
            assert_eq!(canonical_integer(text.as_bytes()), None, "{text:?}");
        }
    }

    /// [`canonical_integers`] of one chunk of `offsets` into `data`.
    fn of(offsets: &[i32], data: &[u8]) -> Option<Vec<i64>> {
        canonical_integers(&[crate::encode::OffsetRows::checked(offsets, data).unwrap()])
    }

    #[test]
    fn a_column_is_integers_when_every_id_is() {
        let data = b"7-120";
        assert_eq!(of(&[0, 1, 4, 5], data), Some(vec![7, -12, 0]));
        assert_eq!(of(&[0, 1, 3, 5], data), Some(vec![7, -1, 20]));
        assert_eq!(of(&[0, 2, 5], data), None); // "7-"
        assert_eq!(of(&[0], data), Some(vec![]));
        assert_eq!(of(&[0, 0], data), None); // an empty id
    }

    #[test]
    fn the_texts_of_integers_are_their_canonical_spellings() {
        let values = [0, 7, -12, i64::MAX, i64::MIN, 1_000_000, -1];
        let (offsets, data) = integer_texts(&values);
        let texts: Vec<&[u8]> = offsets
            .windows(2)
            .map(|w| &data[w[0] as usize..w[1] as usize])
            .collect();
        for (v, t) in values.iter().zip(&texts) {
            assert_eq!(*t, v.to_string().as_bytes());
            assert_eq!(canonical_integer(t), Some(*v));
        }
        assert_eq!(integer_texts(&[]), (vec![0], vec![]));
    }

    #[test]
    fn chunks_and_pieces_in_order() {
        // three chunks (64-bit offsets), the longest over several parallel pieces
        let n = 3 * PARALLEL_ROWS + 5;
        let texts: Vec<String> = (0..n).map(|i| (i as i64 - 7).to_string()).collect();
        let (mut data, mut offsets) = (Vec::new(), vec![0i64]);
        for t in &texts {
            data.extend_from_slice(t.as_bytes());
            offsets.push(data.len() as i64);
        }
        let cuts = [0, 3, 4, n];
        let chunks: Vec<_> = cuts
            .windows(2)
            .map(|w| crate::encode::OffsetRows::checked(&offsets[w[0]..=w[1]], &data).unwrap())
            .collect();
        let want: Vec<i64> = (0..n).map(|i| i as i64 - 7).collect();
        assert_eq!(canonical_integers(&chunks), Some(want));
        // one id of another spelling, in the last piece of the last chunk: None
        let mut bad = data.clone();
        let last = offsets[n - 1] as usize;
        bad[last] = b'+';
        let chunks: Vec<_> = cuts
            .windows(2)
            .map(|w| crate::encode::OffsetRows::checked(&offsets[w[0]..=w[1]], &bad).unwrap())
            .collect();
        assert_eq!(canonical_integers(&chunks), None);
    }
}
