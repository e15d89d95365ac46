//! The text of a TREC line: its fields, from whitespace bit masks, and
//! its score, read as Rust's `str::parse::<f64>` reads it; and the text as a whole:
//! its byte-order mark, `\r` line ends, and compressions not read as text.

/// The first fields of a line (bounds in the piece) and how many it has.
pub(super) struct Fields {
    pub(super) n: usize,
    pub(super) at: [(usize, usize); 6],
}

#[inline(always)]
fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace()
}

/// Fields of `data[start..end]`, byte by byte.
pub(super) fn fields_scalar(data: &[u8], start: usize, end: usize) -> Fields {
    let mut f = Fields {
        n: 0,
        at: [(0, 0); 6],
    };
    let mut i = start;
    loop {
        while i < end && is_space(data[i]) {
            i += 1;
        }
        if i == end {
            return f;
        }
        let s = i;
        while i < end && !is_space(data[i]) {
            i += 1;
        }
        if f.n < 6 {
            f.at[f.n] = (s, i);
        }
        f.n += 1;
    }
}

/// Bits of `block` that are ASCII whitespace other than newlines, and newlines.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; the loads read the 64 bytes of `block`
    unsafe {
        let space = _mm_set1_epi8(b' ' as i8);
        let tab = _mm_set1_epi8(b'\t' as i8);
        let cr = _mm_set1_epi8(b'\r' as i8);
        let ff = _mm_set1_epi8(0x0c);
        let nl = _mm_set1_epi8(b'\n' as i8);
        let (mut spaces, mut newlines) = (0u64, 0u64);
        for j in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * j) as *const __m128i);
            let m = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, ff)),
            );
            spaces |= (_mm_movemask_epi8(m) as u32 as u64) << (16 * j);
            newlines |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) as u32 as u64) << (16 * j);
        }
        (spaces, newlines)
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn masks(block: &[u8; 64]) -> (u64, u64) {
    let (mut spaces, mut newlines) = (0u64, 0u64);
    for (i, &b) in block.iter().enumerate() {
        spaces |= ((b != b'\n' && is_space(b)) as u64) << i;
        newlines |= ((b == b'\n') as u64) << i;
    }
    (spaces, newlines)
}

/// Fields of a line of `len < 64` bytes at `start` from its whitespace bits.
#[inline(always)]
fn fields_of_mask(spaces: u64, start: usize, len: usize) -> Fields {
    let spaces = spaces | (!0u64 << len);
    let words = !spaces;
    let mut starts = words & !(words << 1);
    let mut ends = spaces & (words << 1);
    let mut f = Fields {
        n: starts.count_ones() as usize,
        at: [(0, 0); 6],
    };
    // six steps whatever the count (a loop of constant length is unrolled); the
    // steps past the last field write 64, never read
    for at in f.at.iter_mut() {
        let (s, e) = (starts.trailing_zeros(), ends.trailing_zeros());
        *at = (start + s as usize, start + e as usize);
        starts &= starts.wrapping_sub(1);
        ends &= ends.wrapping_sub(1);
    }
    f
}

/// The end of the line at `start` (its newline, or the end of `data`) and its fields:
/// from whitespace and newline bit masks when the line has fewer than 64 bytes,
/// byte by byte otherwise.
#[inline(always)]
pub(super) fn line_fields(data: &[u8], start: usize) -> (usize, Fields) {
    if let Some(b) = data.get(start..start + 64) {
        let (spaces, newlines) = masks(b.try_into().unwrap_or(&[0; 64]));
        if newlines != 0 {
            let len = newlines.trailing_zeros() as usize;
            return (start + len, fields_of_mask(spaces, start, len));
        }
    }
    let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |i| start + i);
    (end, fields(data, start, end))
}

/// Fields of the line `data[start..end]`.
pub(super) fn fields(data: &[u8], start: usize, end: usize) -> Fields {
    let len = end - start;
    if len >= 64 {
        return fields_scalar(data, start, end);
    }
    let mut b = [0u8; 64];
    b[..len].copy_from_slice(&data[start..end]);
    fields_of_mask(masks(&b).0, start, len)
}

// ------------------------------------------------------------------ numbers
/// Powers of ten that are exact in a float64.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A score as Rust's `str::parse::<f64>` reads it (correctly rounded).
///
/// Plain decimals (`[+-]digits[.digits]`) whose digits make an integer of at most
/// 2^53 with at most 22 after the point take the exact path of every correctly
/// rounding parser: that integer and the power of ten are exact float64s, so one
/// division (correctly rounded by IEEE 754) gives the correctly rounded value.
/// Everything else (exponents, more digits, inf, nan, errors) goes to fast-float2,
/// and so does a text of more than 17 bytes without a look at its digits (16
/// significant digits or more: mostly more than 2^53, as the 17 of a float's
/// shortest text, which fast-float2 reads 8 digits at a time).
#[inline(always)]
pub(super) fn parse_score(text: &[u8]) -> Result<f64, fast_float2::Error> {
    if text.len() > 17 {
        return fast_float2::parse(text);
    }
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut mantissa = 0u64;
    let mut point = None;
    let mut n = 0; // digits
    for (i, &b) in digits.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d < 10 {
            if n == 19 {
                return fast_float2::parse(text);
            }
            mantissa = mantissa * 10 + d as u64;
            n += 1;
        } else if b == b'.' && point.is_none() {
            point = Some(i);
        } else {
            return fast_float2::parse(text);
        }
    }
    let after = point.map_or(0, |p| digits.len() - p - 1);
    if n == 0 || mantissa > 1 << 53 || after > 22 {
        return fast_float2::parse(text);
    }
    let value = mantissa as f64 / EXACT_POWERS[after];
    Ok(if negative { -value } else { value })
}

// ------------------------------------------------------------------ the text
/// The UTF-8 byte-order mark, skipped at the start of a text.
pub(super) const BOM: &[u8] = b"\xef\xbb\xbf";

/// Whether `text` has old Mac OS line ends: a `\r` and no `\n` at all.
pub(super) fn carriage_returns_only(text: &[u8]) -> bool {
    memchr::memchr(b'\n', text).is_none() && memchr::memchr(b'\r', text).is_some()
}

/// `text` with each `\r` made a `\n` (its lines ended by `\r` alone).
pub(super) fn lines_of_carriage_returns(text: &mut [u8]) {
    for b in text.iter_mut().filter(|b| **b == b'\r') {
        *b = b'\n';
    }
}

/// The message of a file whose first bytes, `head`, are those of a Parquet file
/// (`PAR1`): binary, never parsed as text; None for any other file.
pub(super) fn parquet(head: &[u8]) -> Option<&'static str> {
    head.starts_with(b"PAR1")
        .then_some("the file is Parquet (it starts with 'PAR1'), not TREC text")
}

/// The compression other than gzip that `head` (a file's first bytes) shows:
/// bzip2, xz or Zstandard, which this reader does not decompress.
pub(super) fn other_compression(head: &[u8]) -> Option<(&'static str, &'static str)> {
    let bzip2_block = head
        .get(4..10)
        .is_some_and(|b| b == b"1AY&SY".as_slice() || b == b"\x17\x72\x45\x38\x50\x90".as_slice());
    if head.starts_with(b"BZh") && head.get(3).is_some_and(u8::is_ascii_digit) && bzip2_block {
        Some(("bzip2", "bzip2 -dc"))
    } else if head.starts_with(b"\xfd7zXZ\x00") {
        Some(("xz", "xz -dc"))
    } else if head.starts_with(b"\x28\xb5\x2f\xfd") {
        Some(("Zstandard", "zstd -dc"))
    } else {
        None
    }
}
