//! Ids of a text file (CSV, TSV) that are integers: an id column is int64 when every
//! id is written as its integer's decimal digits, so that ids such as `007` keep
//! their spelling as text.

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

/// The ids `data[offsets[i]..offsets[i + 1]]` (an Arrow string array's buffers) as
/// int64 when every one is the canonical spelling of an integer
/// ([`canonical_integer`]), else None. Offsets must ascend within `data`.
pub fn canonical_integers(offsets: &[i32], data: &[u8]) -> Option<Vec<i64>> {
    let mut out = Vec::with_capacity(offsets.len().saturating_sub(1));
    for w in offsets.windows(2) {
        out.push(canonical_integer(&data[w[0] as usize..w[1] as usize])?);
    }
    Some(out)
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

    #[test]
    fn a_column_is_integers_when_every_id_is() {
        let data = b"7-120";
        assert_eq!(
            canonical_integers(&[0, 1, 4, 5], data),
            Some(vec![7, -12, 0])
        );
        assert_eq!(
            canonical_integers(&[0, 1, 3, 5], data),
            Some(vec![7, -1, 20])
        );
        assert_eq!(canonical_integers(&[0, 2, 5], data), None); // "7-"
        assert_eq!(canonical_integers(&[0], data), Some(vec![]));
        assert_eq!(canonical_integers(&[0, 0], data), None); // an empty id
    }
}
