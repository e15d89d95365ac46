//! TREC qrels and run text, parsed in parallel over chunks of lines, with the user
//! and item ids encoded to dense codes (in order of first appearance) while parsing.
//!
//! Lines are split on ASCII whitespace; blank lines and lines starting with `#` are
//! skipped. A qrels line has exactly 4 fields (`user iteration item grade`), a run
//! line at least 6 (`user Q0 item rank score tag`; fields after the tag are ignored,
//! as trec_eval ignores them). Errors name the 1-based line; when a file has several
//! problems the first line with a wrong number of fields wins, then the first value
//! that is not a number, then the first score that is not finite.

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use crate::threads;

/// What a file holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `user iteration item grade`
    Qrels,
    /// `user Q0 item rank score tag`
    Run,
}

/// Why a file was refused, and where.
#[derive(Clone, PartialEq, Debug)]
pub enum TrecError {
    /// A line with another number of fields: (line, fields found, the line's text).
    Fields(usize, usize, Vec<u8>),
    /// A grade or score that does not parse: (line, the value's text).
    Number(usize, Vec<u8>),
    /// A score that parses but is not finite: (line, value).
    NotFinite(usize, f64),
}

impl TrecError {
    fn rank(&self) -> (u8, usize) {
        match self {
            TrecError::Fields(line, ..) => (0, *line),
            TrecError::Number(line, _) => (1, *line),
            TrecError::NotFinite(line, _) => (2, *line),
        }
    }
}

/// A parsed file: codes of the rows, the distinct ids in order of first appearance,
/// the grades (qrels) or scores (run), and the first run tag.
#[derive(Default, Debug)]
pub struct Parsed {
    /// User code of each row.
    pub users: Vec<u32>,
    /// Item code of each row.
    pub items: Vec<u32>,
    /// Distinct user ids (bytes), by code.
    pub user_ids: Vec<Vec<u8>>,
    /// Distinct item ids (bytes), by code.
    pub item_ids: Vec<Vec<u8>>,
    /// Grades of a qrels file.
    pub grades: Vec<i64>,
    /// Scores of a run file.
    pub scores: Vec<f64>,
    /// The tag of the first run line.
    pub tag: Option<Vec<u8>>,
}

struct Chunk<'a> {
    users: Vec<u32>,
    items: Vec<u32>,
    user_ids: Vec<&'a [u8]>,
    item_ids: Vec<&'a [u8]>,
    grades: Vec<i64>,
    scores: Vec<f64>,
    tag: Option<&'a [u8]>,
    lines: usize,
    error: Option<TrecError>,
}

/// Dense codes of ids in order of first appearance. Ids of at most 15 bytes are keys
/// held in the table itself: a lookup then reads the table only, not the file at the
/// id's line (a random access into a large buffer costs a cache and a TLB miss).
struct IdCodes<'a> {
    short: HashMap<[u8; 16], u32>,
    long: HashMap<&'a [u8], u32>,
    ids: Vec<&'a [u8]>,
}

impl<'a> IdCodes<'a> {
    fn new() -> Self {
        IdCodes {
            short: HashMap::default(),
            long: HashMap::default(),
            ids: Vec::new(),
        }
    }

    #[inline]
    fn code(&mut self, id: &'a [u8]) -> u32 {
        let next = self.ids.len() as u32;
        let code = if id.len() < 16 {
            let mut key = [0u8; 16];
            key[..id.len()].copy_from_slice(id);
            key[15] = id.len() as u8;
            *self.short.entry(key).or_insert(next)
        } else {
            *self.long.entry(id).or_insert(next)
        };
        if code == next {
            self.ids.push(id);
        }
        code
    }
}

fn keep_first(slot: &mut Option<TrecError>, e: TrecError) {
    if slot.as_ref().is_none_or(|old| e.rank() < old.rank()) {
        *slot = Some(e);
    }
}

fn parse_chunk(data: &[u8], kind: Kind) -> Chunk<'_> {
    let mut c = Chunk {
        users: vec![],
        items: vec![],
        user_ids: vec![],
        item_ids: vec![],
        grades: vec![],
        scores: vec![],
        tag: None,
        lines: 0,
        error: None,
    };
    let (mut users, mut items) = (IdCodes::new(), IdCodes::new());
    let n_fields = if kind == Kind::Qrels { 4 } else { 6 };
    let mut fields: Vec<&[u8]> = Vec::with_capacity(8);
    for raw in data.split(|&b| b == b'\n') {
        c.lines += 1;
        let line_no = c.lines;
        fields.clear();
        fields.extend(
            raw.split(|b| b.is_ascii_whitespace())
                .filter(|f| !f.is_empty()),
        );
        if fields.is_empty() || fields[0][0] == b'#' {
            continue;
        }
        let wrong = match kind {
            Kind::Qrels => fields.len() != n_fields,
            Kind::Run => fields.len() < n_fields,
        };
        if wrong {
            let text = raw.strip_suffix(b"\r").unwrap_or(raw).to_vec();
            keep_first(&mut c.error, TrecError::Fields(line_no, fields.len(), text));
            continue;
        }
        if c.error.as_ref().is_some_and(|e| e.rank().0 == 0) {
            continue; // a line with the wrong fields came first: nothing else is reported
        }
        c.users.push(users.code(fields[0]));
        c.items.push(items.code(fields[2]));
        let text = fields[if kind == Kind::Qrels { 3 } else { 4 }];
        let parsed = std::str::from_utf8(text).ok();
        match kind {
            Kind::Qrels => match parsed.and_then(|s| s.parse::<i64>().ok()) {
                Some(g) => c.grades.push(g),
                None => {
                    keep_first(&mut c.error, TrecError::Number(line_no, text.to_vec()));
                    c.grades.push(0);
                }
            },
            Kind::Run => {
                if c.tag.is_none() {
                    c.tag = Some(fields[5]);
                }
                match parsed.and_then(|s| s.parse::<f64>().ok()) {
                    Some(s) => {
                        if !s.is_finite() {
                            keep_first(&mut c.error, TrecError::NotFinite(line_no, s));
                        }
                        c.scores.push(s);
                    }
                    None => {
                        keep_first(&mut c.error, TrecError::Number(line_no, text.to_vec()));
                        c.scores.push(0.0);
                    }
                }
            }
        }
    }
    if data.last() == Some(&b'\n') {
        c.lines -= 1; // the empty piece after the last newline is not a line
    }
    c.user_ids = users.ids;
    c.item_ids = items.ids;
    c
}

/// Cut `data` into about `n` pieces at line ends.
fn pieces(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let mut cut = (data.len() * k / n).max(start);
        while cut < data.len() && data[cut] != b'\n' {
            cut += 1;
        }
        if cut >= data.len() {
            break;
        }
        out.push(&data[start..=cut]);
        start = cut + 1;
    }
    out.push(&data[start..]);
    out
}

/// The bytes of a file, decompressed when it is gzip (by its magic number).
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;

    let raw = std::fs::read(path)?;
    if raw.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(raw.len() * 4);
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out)?;
        return Ok(out);
    }
    Ok(raw)
}

/// Parse a whole TREC text (already decompressed).
pub fn parse(data: &[u8], kind: Kind) -> Result<Parsed, TrecError> {
    let n = if data.len() < 1 << 22 {
        1
    } else {
        (threads::num_threads() * 4).min(data.len() >> 20).max(1)
    };
    let parts = pieces(data, n);
    let chunks: Vec<Chunk> = if parts.len() == 1 {
        vec![parse_chunk(parts[0], kind)]
    } else {
        threads::install(|| parts.par_iter().map(|p| parse_chunk(p, kind)).collect())
    };
    // the first error of the file, by kind then line (line numbers made global)
    let mut error: Option<TrecError> = None;
    let mut before = 0;
    for c in &chunks {
        if let Some(e) = &c.error {
            let e = match e.clone() {
                TrecError::Fields(l, k, t) => TrecError::Fields(l + before, k, t),
                TrecError::Number(l, t) => TrecError::Number(l + before, t),
                TrecError::NotFinite(l, v) => TrecError::NotFinite(l + before, v),
            };
            keep_first(&mut error, e);
        }
        before += c.lines;
    }
    if let Some(e) = error {
        return Err(e);
    }
    // global codes in order of first appearance: chunk order, then each chunk's order
    let mut out = Parsed::default();
    let (mut users, mut items) = (IdCodes::new(), IdCodes::new());
    let (mut ulocal, mut ilocal) = (Vec::new(), Vec::new());
    for c in &chunks {
        ulocal.push(
            c.user_ids
                .iter()
                .map(|id| users.code(id))
                .collect::<Vec<u32>>(),
        );
        ilocal.push(
            c.item_ids
                .iter()
                .map(|id| items.code(id))
                .collect::<Vec<u32>>(),
        );
    }
    let total: usize = chunks.iter().map(|c| c.users.len()).sum();
    out.users.reserve(total);
    out.items.reserve(total);
    for (k, c) in chunks.iter().enumerate() {
        out.users
            .extend(c.users.iter().map(|&u| ulocal[k][u as usize]));
        out.items
            .extend(c.items.iter().map(|&i| ilocal[k][i as usize]));
        out.grades.extend_from_slice(&c.grades);
        out.scores.extend_from_slice(&c.scores);
        if out.tag.is_none() {
            out.tag = c.tag.map(|t| t.to_vec());
        }
    }
    out.user_ids = users.ids.into_iter().map(|s| s.to_vec()).collect();
    out.item_ids = items.ids.into_iter().map(|s| s.to_vec()).collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qrels_codes_follow_first_appearance() {
        let text = b"q1 0 d1 1\n# comment\n\nq2 0 d2 0\nq1 0 d2 2\n";
        let p = parse(text, Kind::Qrels).unwrap();
        assert_eq!(p.users, vec![0, 1, 0]);
        assert_eq!(p.items, vec![0, 1, 1]);
        assert_eq!(p.user_ids, vec![b"q1".to_vec(), b"q2".to_vec()]);
        assert_eq!(p.grades, vec![1, 0, 2]);
    }

    #[test]
    fn short_and_long_ids_get_one_code_each() {
        let long = "d".repeat(16);
        let text = format!(
            "q 0 {long} 1\nq 0 ddddddddddddddd 1\nq 0 {long}x 0\nr 0 {long} 2\nr 0 ddddddddddddddd 0\n"
        );
        let p = parse(text.as_bytes(), Kind::Qrels).unwrap();
        assert_eq!(p.items, vec![0, 1, 2, 0, 1]);
        assert_eq!(p.item_ids[0], long.as_bytes().to_vec());
        assert_eq!(p.item_ids[1].len(), 15);
        assert_eq!(p.users, vec![0, 0, 0, 1, 1]);
    }

    #[test]
    fn runs_keep_the_first_tag_and_ignore_extra_fields() {
        let text = b"q1 Q0 d1 1 0.5 tagA extra\r\nq1 Q0 d2 2 0.25 tagB\n";
        let p = parse(text, Kind::Run).unwrap();
        assert_eq!(p.scores, vec![0.5, 0.25]);
        assert_eq!(p.tag, Some(b"tagA".to_vec()));
    }

    #[test]
    fn errors_name_the_first_line_of_the_first_kind() {
        let text = b"q1 Q0 d1 1 inf t\nq1 Q0 d1 1 x t\nq1 Q0 d1\n";
        assert_eq!(
            parse(text, Kind::Run).unwrap_err(),
            TrecError::Fields(3, 3, b"q1 Q0 d1".to_vec())
        );
        let text = b"q1 Q0 d1 1 inf t\nq1 Q0 d1 1 x t\n";
        assert_eq!(
            parse(text, Kind::Run).unwrap_err(),
            TrecError::Number(2, b"x".to_vec())
        );
        assert!(matches!(
            parse(b"q Q0 d 1 -inf t", Kind::Run),
            Err(TrecError::NotFinite(1, _))
        ));
    }

    #[test]
    fn pieces_cut_at_line_ends_and_cover_everything() {
        let text = b"a\nbb\nccc\ndddd\n";
        for n in 1..6 {
            let p = pieces(text, n);
            assert_eq!(p.concat(), text.to_vec());
            assert!(p[..p.len() - 1].iter().all(|s| s.last() == Some(&b'\n')));
        }
    }
}
