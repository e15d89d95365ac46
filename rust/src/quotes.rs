//! The quotes of CSV text read in ranges: where a range ends, and whether it may be
//! cut at any line end.
//!
//! A plain CSV file is read a range of lines at a time, each by Arrow's threaded
//! reader, which cuts its blocks on every core when told that no quoted value holds
//! a line end, and on one thread otherwise. [`range_end`] finds where a range ends
//! (a line end outside quotes: the quotes before it even in number) and says how
//! the range must be read ([`Cut`]): the fast way when each quote opens or closes a
//! quoted value as Arrow's reader reads it and no line end lies between an opening
//! quote and its closing one; by its quotes otherwise; and from its start by a
//! reader of its quotes where a quote stands within a field, which a count of the
//! quotes does not follow (neither the range's end nor its line ends may be told
//! by counting then). The text is read 64 bytes at a time (bit masks, the quotes'
//! running parity by shifts), in one pass at the speed of reading it.

/// How a range of CSV text must be read ([`range_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Cut at any line end: none lies inside quotes.
    AnyLineEnd = 0,
    /// Cut by its quotes: a line end lies inside quotes, or a quote is left open at
    /// the end.
    ByQuotes = 1,
    /// Read from its start by a reader of its quotes: a quote stands where Arrow's
    /// reader would not read it as the edge of a quoted value (an opening quote not
    /// at a field's start, a closing one not at its end).
    FromStart = 2,
}

/// Where a range of CSV `text` (beginning at a line's start, outside quotes;
/// fields separated by `delimiter`) ends, and how it must be read: the end is just
/// past the first line end (`\n`) at or after byte `at` whose quotes before it are
/// even in number (`header`: past the first such line end too, the header's), None
/// when the text has none; the [`Cut`] is that of the text up to the end (all of
/// it when there is none), [`Cut::FromStart`] as soon as a quote out of place is
/// read (the end is then None: the count that finds it is not Arrow's reading).
///
/// A quote inside a quoted value is written twice: the pair closes and opens again,
/// so the quotes before a line end outside quotes are even in number, and a quote
/// may stand just before or after another.
///
/// ```
/// use _core::quotes::{range_end, Cut};
/// let text = b"\"u-1\",\"a,b\"\n\"u-2\",\"say \"\"hi\"\"\"\nu-3,c\n";
/// assert_eq!(range_end(text, 1, false, b','), (Some(12), Cut::AnyLineEnd));
/// assert_eq!(range_end(text, 1, true, b','), (Some(31), Cut::AnyLineEnd));
/// assert_eq!(range_end(b"\"u\",\"two\nlines\"\nx\n", 1, false, b','), (Some(16), Cut::ByQuotes));
/// assert_eq!(range_end(b"u,\"open\n", 1, false, b','), (None, Cut::ByQuotes));
/// assert_eq!(range_end(b"u\"1,\"x\ny\",z\"\n", 1, false, b','), (None, Cut::FromStart));
/// ```
pub fn range_end(text: &[u8], at: usize, header: bool, delimiter: u8) -> (Option<usize>, Cut) {
    let mut reading = Reading {
        state: State {
            inside: 0,
            edge_before: true,
            inside_line_end: false,
        },
        least: (!header).then(|| at.saturating_sub(1)),
        at,
    };
    let blocks = text.chunks_exact(64);
    let tail = blocks.remainder();
    for (k, block) in blocks.enumerate() {
        let block: &[u8; 64] = block.try_into().unwrap_or(&[0; 64]);
        let next_edge = text
            .get(64 * (k + 1))
            .is_none_or(|&b| is_edge(b, delimiter));
        if let Some(found) = reading.block(masks(block, delimiter), 64 * k, u64::MAX, next_edge) {
            return found;
        }
    }
    if !tail.is_empty() {
        let mut block = [0u8; 64];
        block[..tail.len()].copy_from_slice(tail);
        let real = below(tail.len());
        if let Some(found) = reading.block(
            masks(&block, delimiter),
            text.len() - tail.len(),
            real,
            true,
        ) {
            return found;
        }
    }
    (None, reading.state.cut())
}

/// A range's text read a block at a time ([`range_end`]).
struct Reading {
    state: State,
    /// The first byte a line end ending the range may lie at (None before the
    /// header's line end is read).
    least: Option<usize>,
    at: usize,
}

impl Reading {
    /// Read the block of masks `m` from byte `first` (`real` and `next_edge` as
    /// [`State::out_of_place`] takes them): the range's end and cut once found.
    #[inline(always)]
    fn block(
        &mut self,
        m: Masks,
        first: usize,
        mut real: u64,
        next_edge: bool,
    ) -> Option<(Option<usize>, Cut)> {
        // the line ends outside quotes (the quotes up to each even in number)
        let outside = m.lf & real & !(prefix_xor(m.quote & real) ^ self.state.inside);
        let mut end = None;
        if outside != 0 {
            if self.least.is_none() {
                let header = first + outside.trailing_zeros() as usize;
                self.least = Some((header + 1).max(self.at.saturating_sub(1)));
            }
            if let Some(least) = self.least {
                let after = outside & !below(least.saturating_sub(first));
                end = (after != 0).then(|| first + after.trailing_zeros() as usize + 1);
            }
        }
        if let Some(e) = end {
            real &= below(e - first); // the last byte read, a line end, ends a field
        }
        if self.state.out_of_place(&m, real, next_edge) {
            return Some((None, Cut::FromStart));
        }
        end.map(|e| (Some(e), self.state.cut()))
    }
}

/// The bits below bit `n` (all for `n >= 64`).
#[inline(always)]
fn below(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The quotes of the blocks of a text read so far ([`range_end`]).
struct State {
    /// All ones while inside quotes at the end of the blocks read.
    inside: u64,
    /// Whether the last byte read is at a field's edge (as the start of the text is).
    edge_before: bool,
    /// Whether a line end read lies inside quotes.
    inside_line_end: bool,
}

impl State {
    /// Read the next block (its `m`asks; `real`: its bytes read, the low bits;
    /// `next_edge`: whether the byte after them is at a field's edge, as the end of
    /// the text is): true when a quote of the block is out of place.
    #[inline(always)]
    fn out_of_place(&mut self, m: &Masks, real: u64, next_edge: bool) -> bool {
        let (quote, end) = (m.quote & real, (m.lf | m.cr) & real);
        // a byte at a field's edge: a delimiter, a line end or a quote (of a pair);
        // past the bytes read, their end
        let edge = m.delimiter | m.lf | m.cr | m.quote | !real;
        let open = prefix_xor(quote) ^ self.inside; // bit i: inside quotes after byte i
        let (opening, closing) = (quote & open, quote & !open);
        let before = (edge << 1) | u64::from(self.edge_before);
        let after = (edge >> 1) | (u64::from(next_edge) << 63);
        self.inside = 0u64.wrapping_sub(open >> 63);
        self.edge_before = (edge >> 63) != 0;
        self.inside_line_end |= (open & end) != 0;
        (opening & !before) != 0 || (closing & !after) != 0
    }

    /// The cut of the text read, its quotes all in place.
    fn cut(&self) -> Cut {
        if self.inside_line_end || self.inside != 0 {
            Cut::ByQuotes
        } else {
            Cut::AnyLineEnd
        }
    }
}

/// Whether byte `b` may stand beside a quote at a field's edge.
#[inline(always)]
fn is_edge(b: u8, delimiter: u8) -> bool {
    b == b'"' || b == b'\n' || b == b'\r' || b == delimiter
}

/// Bit `i` set where byte `i` of a block is a quote, a line feed, a carriage
/// return, the delimiter.
struct Masks {
    quote: u64,
    lf: u64,
    cr: u64,
    delimiter: u64,
}

/// Bit `i` of the result: the parity of the set bits `0..=i` of `x`.
#[inline(always)]
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// The [`Masks`] of a block of 64 bytes: 16 bytes at a time with SSE2 (every
/// x86_64 CPU has it), else a byte at a time ([`masks_bytewise`], the same masks).
#[inline(always)]
fn masks(block: &[u8; 64], delimiter: u8) -> Masks {
    #[cfg(target_arch = "x86_64")]
    {
        masks_sse2(block, delimiter)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        masks_bytewise(block, delimiter)
    }
}

/// [`masks`] a byte at a time.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn masks_bytewise(block: &[u8; 64], delimiter: u8) -> Masks {
    let bits = |of: u8| {
        block
            .iter()
            .enumerate()
            .fold(0u64, |m, (i, &b)| m | (u64::from(b == of) << i))
    };
    Masks {
        quote: bits(b'"'),
        lf: bits(b'\n'),
        cr: bits(b'\r'),
        delimiter: bits(delimiter),
    }
}

/// [`masks`] 16 bytes at a time (SSE2).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn masks_sse2(block: &[u8; 64], delimiter: u8) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let mut m = Masks {
        quote: 0,
        lf: 0,
        cr: 0,
        delimiter: 0,
    };
    // SAFETY: SSE2 is part of x86_64; each load reads 16 of the block's 64 bytes
    unsafe {
        let byte = |b: u8| _mm_set1_epi8(b as i8);
        let (quote, lf, cr, delim) = (byte(b'"'), byte(b'\n'), byte(b'\r'), byte(delimiter));
        for k in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(16 * k) as *const __m128i);
            let bits = |of: __m128i| {
                u64::from(_mm_movemask_epi8(_mm_cmpeq_epi8(v, of)) as u16) << (16 * k)
            };
            m.quote |= bits(quote);
            m.lf |= bits(lf);
            m.cr |= bits(cr);
            m.delimiter |= bits(delim);
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cut of `text` read a byte at a time: a quote opens a value at a field's
    /// start (else it is out of place), a pair inside a value is a quote, a quote
    /// closes a value before a delimiter, a line end or the end (else out of place).
    fn cut_oracle(text: &[u8], delimiter: u8) -> Cut {
        let (mut inside, mut i, mut line_end) = (false, 0, false);
        let edge = |j: usize| j >= text.len() || is_edge(text[j], delimiter);
        while i < text.len() {
            let b = text[i];
            if inside {
                match b {
                    b'"' if text.get(i + 1) == Some(&b'"') => i += 1,
                    b'"' if edge(i + 1) => inside = false,
                    b'"' => return Cut::FromStart,
                    b'\n' | b'\r' => line_end = true,
                    _ => {}
                }
            } else if b == b'"' {
                let start =
                    i == 0 || matches!(text[i - 1], b'\n' | b'\r') || text[i - 1] == delimiter;
                if !start {
                    return Cut::FromStart;
                }
                inside = true;
            }
            i += 1;
        }
        if line_end || inside {
            Cut::ByQuotes
        } else {
            Cut::AnyLineEnd
        }
    }

    /// [`range_end`] a byte at a time: the end by a count of the quotes, the cut of
    /// the text up to it.
    fn oracle(text: &[u8], at: usize, header: bool, delimiter: u8) -> (Option<usize>, Cut) {
        let (mut quotes, mut header, mut end) = (0, header, None);
        let mut least = at.saturating_sub(1);
        for (i, &b) in text.iter().enumerate() {
            quotes += usize::from(b == b'"');
            if b == b'\n' && quotes % 2 == 0 {
                if header {
                    header = false;
                    least = (i + 1).max(at.saturating_sub(1));
                } else if i >= least {
                    end = Some(i + 1);
                    break;
                }
            }
        }
        match cut_oracle(&text[..end.unwrap_or(text.len())], delimiter) {
            Cut::FromStart => (None, Cut::FromStart),
            cut => (end, cut),
        }
    }

    /// Texts of the bytes that matter, of every length across a block's edge.
    fn texts(seed: u64) -> Vec<Vec<u8>> {
        let alphabet = [b'"', b',', b'\t', b'\n', b'\r', b'a', b'b', b'"', b'\n'];
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        (0..3000)
            .map(|_| {
                let n = next() % 300;
                (0..n).map(|_| alphabet[next() % alphabet.len()]).collect()
            })
            .collect()
    }

    #[test]
    fn matches_a_reading_byte_by_byte() {
        for (seed, delimiter) in [(1, b','), (2, b'\t'), (3, b',')] {
            for (k, text) in texts(seed).into_iter().enumerate() {
                let (at, header) = (k % 150, k % 3 == 0);
                assert_eq!(
                    range_end(&text, at, header, delimiter),
                    oracle(&text, at, header, delimiter),
                    "{:?} at {at} header {header}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    #[test]
    fn well_quoted_rows_of_every_length_end_at_a_line_end() {
        // rows of quoted ids whose quotes fall at every offset of a block
        for pad in 0..70 {
            let mut text = b"\"user\",\"item\"\n".to_vec();
            for row in 0..20 {
                let id = "x".repeat((pad + row) % 13);
                text.extend_from_slice(
                    format!("\"u-{id}\",\"a \"\"{row}\"\",b\",0.5\n").as_bytes(),
                );
            }
            let whole = range_end(&text, text.len(), false, b',');
            assert_eq!(whole, (Some(text.len()), Cut::AnyLineEnd));
            let (end, cut) = range_end(&text, 100, true, b',');
            assert_eq!(cut, Cut::AnyLineEnd);
            let end = end.unwrap();
            assert!(
                end >= 100
                    && text[end - 1] == b'\n'
                    && text[..end].iter().filter(|&&b| b == b'"').count() % 2 == 0
            );
            // a line end inside the last value; a quote left open; one out of place
            let with = |row: &[u8]| [&text[..], row].concat();
            let n = text.len() + 2;
            assert_eq!(
                range_end(&with(b"\"u\",\"a\nb\",1\n"), n, false, b','),
                (Some(n + 10), Cut::ByQuotes)
            );
            assert_eq!(
                range_end(&with(b"\"u,1\n"), n, false, b','),
                (None, Cut::ByQuotes)
            );
            let late = with(b"\"u\",\"a\nb\",1\nu\"2,\"a\",0\n");
            assert_eq!(
                range_end(&late, late.len(), false, b','),
                (None, Cut::FromStart)
            );
        }
    }

    #[test]
    fn the_sse2_masks_are_the_bytewise_ones() {
        for text in texts(4) {
            let mut block = [b'a'; 64];
            let n = text.len().min(64);
            block[..n].copy_from_slice(&text[..n]);
            let (a, b) = (masks(&block, b','), masks_bytewise(&block, b','));
            assert_eq!(
                (a.quote, a.lf, a.cr, a.delimiter),
                (b.quote, b.lf, b.cr, b.delimiter)
            );
        }
    }
}
