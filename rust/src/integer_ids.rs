//! String ids that are integers written in their canonical spelling: a CSV or TSV
//! id column is int64 when every id is (so that ids such as `007` keep their
//! spelling as text), and a string column of such ids is coded, and looked up, as
//! its integers.

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

/// [`canonical_integer`] of `data[start..end]`, eight digits at a time: the eight
/// bytes that end the id (or each half of an id of 9 to 16 digits) read as one
/// word, the bytes before its first digit taken as `0`s, every byte checked to be
/// a digit and the digits summed by three multiplications (no branch on each
/// digit). Ids of one digit or more than 16, and ids that end within the first 16
/// bytes of `data` (too few bytes before them for the words), are read a digit at
/// a time.
#[inline(always)]
pub fn canonical_integer_at(data: &[u8], start: usize, end: usize) -> Option<i64> {
    let negative = start < end && data[start] == b'-';
    let first = start + negative as usize;
    let n = end.saturating_sub(first);
    if !(2..=16).contains(&n) || end < 16 {
        // one digit, none, many, or too near the start: the plain reading
        return canonical_integer(&data[start..end]);
    }
    if data[first] == b'0' {
        return None; // a leading zero
    }
    let word = |at: usize| u64::from_le_bytes(data[at - 8..at].try_into().expect("8 bytes"));
    let value = if n <= 8 {
        eight_digits(word(end), n)?
    } else {
        eight_digits(word(end - 8), n - 8)? * 100_000_000 + eight_digits(word(end), 8)?
    };
    if negative {
        Some(-(value as i64))
    } else {
        Some(value as i64)
    }
}

/// The number written by the last `n` bytes (1 to 8) of the eight of `word` (read
/// little-endian: its last byte is the last digit), None unless they are all
/// decimal digits.
#[inline(always)]
fn eight_digits(word: u64, n: usize) -> Option<u64> {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    // the bytes before the id's: '0's (the first 8 - n bytes are the low ones)
    let before = if n == 8 { 0 } else { u64::MAX >> (8 * n) };
    let w = (word & !before) | (ZEROS & before);
    // every byte 0x30..=0x39: its high nibble 3, and still 3 after adding 6
    if w & HIGH != ZEROS || w.wrapping_add(0x0606_0606_0606_0606) & HIGH != ZEROS {
        return None;
    }
    let mut v = w - ZEROS; // a digit in each byte, the first in the lowest
    v = (v * 10 + (v >> 8)) & 0x00FF_00FF_00FF_00FF; // pairs of digits
    v = (v * 100 + (v >> 16)) & 0x0000_FFFF_0000_FFFF; // fours
    Some((v * 10_000 + (v >> 32)) & 0xFFFF_FFFF) // eight
}

/// The ids of a string column given in chunks (rows counted across the chunks) as
/// int64 when every one is the canonical spelling of an integer
/// ([`canonical_integer`]), else None: pieces of the rows in parallel, every piece
/// stopping at the first row that is not (a column of other ids costs a row a
/// piece). Canonical spellings and integers are one to one, so the integers tell
/// the same rows apart as the strings do. A column whose first id is not one (most
/// string columns) is told apart by the caller before its offsets are checked and
/// this output made (the Python binding's `first_row_answer`).
pub fn canonical_integers<R: Rows>(chunks: &[R]) -> Option<Vec<i64>> {
    let n: usize = chunks.iter().map(|c| c.rows()).sum();
    let mut out = crate::pages::zeroed::<i64>(n);
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
            match canonical_integer_at(data, start, end) {
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
    fn eight_digits_at_a_time_read_as_one_digit_at_a_time() {
        // ids of 0 to 21 bytes, of digits and the bytes either side of them ('/' and
        // ':'), signs, a space, a letter, at every place in a buffer (the first 16
        // bytes too): the word reading equals the byte reading
        let mut next = crate::testing::stream(0x9E37_79B9_7F4A_7C15);
        let alphabet = b"0123456789-+ a/:";
        let mut data = Vec::new();
        let mut rows = Vec::new();
        for k in 0..200_000usize {
            let start = data.len();
            let len = (next() % 22) as usize;
            for i in 0..len {
                let r = next();
                // mostly digits, a sign first now and then, other bytes rarely
                let b = if i == 0 && r.is_multiple_of(5) {
                    b'-'
                } else if r.is_multiple_of(13) {
                    alphabet[(r >> 8) as usize % alphabet.len()]
                } else {
                    b'0' + ((r >> 8) % 10) as u8
                };
                data.push(b);
            }
            if k.is_multiple_of(7) {
                // the canonical spelling of an integer of any size
                data.truncate(start);
                let v = next() as i64 >> (next() % 64);
                data.extend_from_slice(v.to_string().as_bytes());
            }
            rows.push((start, data.len()));
        }
        let mut integers = 0;
        for &(start, end) in &rows {
            let want = canonical_integer(&data[start..end]);
            assert_eq!(
                canonical_integer_at(&data, start, end),
                want,
                "{:?}",
                std::str::from_utf8(&data[start..end])
            );
            integers += want.is_some() as usize;
        }
        assert!(integers > rows.len() / 5, "{integers}");
        for text in ["9999999999999999", "-9999999999999999", "1000000000000000"] {
            let mut d = b"0123456789abcdef".to_vec();
            d.extend_from_slice(text.as_bytes());
            assert_eq!(canonical_integer_at(&d, 16, d.len()), text.parse().ok());
        }
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
