//! A piece of a window of text, parsed on one thread: its rows, and the ids it is
//! the first to see.

use crate::pages::{try_reserve, OutOfMemory};

use super::ids::{NewCodes, NewIds};
use super::parsed::{keep_first, Kind, TrecError};
use super::text::{line_fields, parse_score};
use crate::encode::table::short_bits;
use crate::encode::{Key, TextIds};

// ------------------------------------------------------------------ pieces
/// The rows of a piece, its codes tagged [`LOCAL`](super::ids::LOCAL) where the
/// piece saw an id first.
#[derive(Default)]
pub(super) struct Rows {
    /// (user code, rows) of each run of rows of one user
    pub(super) runs: Vec<(u32, u32)>,
    pub(super) items: Vec<u32>,
    pub(super) grades: Vec<i64>,
    pub(super) scores: Vec<f64>,
    /// bounds of the run tag of the piece's last line
    pub(super) tag: Option<(usize, usize)>,
    pub(super) lines: usize,
    pub(super) error: Option<TrecError>,
}

/// A piece's rows and the ids it saw first (kept from window to window, so that
/// their buffers are allocated once).
#[derive(Default)]
pub(super) struct Piece {
    pub(super) rows: Rows,
    pub(super) new_users: NewIds,
    pub(super) new_items: NewIds,
}

/// Rows between the fetch of an item's slot and its lookup.
pub(super) const AHEAD: usize = 8;

/// Parse the lines of `data` into `p` (emptied first): the codes of ids in `users`
/// and `items` (the windows before), of the others from `new_users`, `new_items`.
///
/// The tables looked up on every row are arguments of their own (not fields of a
/// struct passed by reference), so that the compiler keeps their addresses in
/// registers across the writes of the rows.
///
/// The rows' vectors grow in bulk, fallibly: an error when the memory cannot be had
/// (the ids' tables note theirs in `new_users` and `new_items`).
#[inline(never)]
pub(super) fn parse_piece(
    p: &mut Rows,
    data: &[u8],
    kind: Kind,
    (users, new_users): (&TextIds, &mut impl NewCodes),
    (items, new_items): (&TextIds, &mut impl NewCodes),
) -> Result<(), OutOfMemory> {
    p.runs.clear();
    p.items.clear();
    p.grades.clear();
    p.scores.clear();
    p.tag = None;
    p.lines = 0;
    p.error = None;
    grow(p, kind, data.len() / 24)?;
    let mut last_user: (Option<u128>, &[u8]) = (None, &[]);
    let none = Key {
        short: None,
        hash: 0,
    };
    let mut pending: [(usize, usize, usize, Key); AHEAD] = [(0, 0, 0, none); AHEAD];
    let mut start = 0;
    while start < data.len() {
        let (end, f) = line_fields(data, start);
        p.lines += 1;
        let line_start = start;
        start = end + 1;
        if f.n == 0 {
            continue;
        }
        // '#' starts a comment: anywhere in a run line's first field, as trec_eval's run
        // reader skips white space first; only as a qrels line's first character, as its
        // qrels reader (after white space it reads a query "#..."): such a line is refused
        let hash = data[f.at[0].0] == b'#';
        if hash && (kind == Kind::Run || f.at[0].0 == line_start) {
            continue;
        }
        let wrong = match kind {
            Kind::Qrels => f.n != 4 || hash,
            Kind::Run => f.n < 6,
        };
        if wrong {
            let raw = &data[line_start..end];
            let text = raw.strip_suffix(b"\r").unwrap_or(raw).to_vec();
            keep_first(&mut p.error, TrecError::Fields(p.lines, f.n, text));
            continue;
        }
        if p.error.as_ref().is_some_and(|e| e.rank().0 == 0) {
            continue; // a line with the wrong fields came first: nothing else is reported
        }
        if full(p, kind) {
            // room for as many rows again: the pushes below stay within capacity
            grow(p, kind, p.items.len().max(1024))?;
        }
        let (us, ue) = f.at[0];
        let user = (short_bits(data, us, ue), &data[us..ue]);
        let same = match user.0 {
            Some(k) => last_user.0 == Some(k),
            None => last_user.0.is_none() && last_user.1 == user.1,
        };
        match p.runs.last_mut() {
            Some(run) if same => run.1 += 1,
            _ => {
                let key = Key::of(user.0, user.1);
                let code = match users.get(user.1, &key) {
                    Some(c) => c,
                    None => new_users.code(data, us, ue, &key),
                };
                match p.runs.last_mut() {
                    Some(run) if run.0 == code => run.1 += 1,
                    _ => p.runs.push((code, 1)),
                }
                last_user = user;
            }
        }
        // the item's slot is fetched now and looked up AHEAD rows later
        let (is, ie) = f.at[2];
        let key = Key::new(data, is, ie);
        items.prefetch(&key);
        new_items.prefetch(&key);
        let row = p.items.len();
        p.items.push(0);
        let slot = &mut pending[row % AHEAD];
        if row >= AHEAD {
            let (r, s, e, k) = *slot;
            p.items[r] = match items.get(&data[s..e], &k) {
                Some(c) => c,
                None => new_items.code(data, s, e, &k),
            };
        }
        *slot = (row, is, ie, key);
        match kind {
            Kind::Qrels => {
                let text = &data[f.at[3].0..f.at[3].1];
                match std::str::from_utf8(text)
                    .ok()
                    .and_then(|s| s.parse::<i64>().ok())
                {
                    Some(g) => p.grades.push(g),
                    None => {
                        keep_first(&mut p.error, TrecError::Number(p.lines, text.to_vec()));
                        p.grades.push(0);
                    }
                }
            }
            Kind::Run => {
                p.tag = Some(f.at[5]);
                let text = &data[f.at[4].0..f.at[4].1];
                match parse_score(text) {
                    Ok(s) => {
                        if !s.is_finite() {
                            keep_first(&mut p.error, TrecError::NotFinite(p.lines, s));
                        }
                        p.scores.push(s);
                    }
                    Err(_) => {
                        keep_first(&mut p.error, TrecError::Number(p.lines, text.to_vec()));
                        p.scores.push(0.0);
                    }
                }
            }
        }
    }
    // the items still pending, in order (local codes follow the rows)
    let n = p.items.len();
    for row in n.saturating_sub(AHEAD)..n {
        let (r, s, e, k) = pending[row % AHEAD];
        p.items[r] = match items.get(&data[s..e], &k) {
            Some(c) => c,
            None => new_items.code(data, s, e, &k),
        };
    }
    Ok(())
}

/// Whether a vector of the rows has no room for one more row.
#[inline(always)]
pub(super) fn full(p: &Rows, kind: Kind) -> bool {
    let values = match kind {
        Kind::Qrels => p.grades.len() == p.grades.capacity(),
        Kind::Run => p.scores.len() == p.scores.capacity(),
    };
    values || p.items.len() == p.items.capacity() || p.runs.len() == p.runs.capacity()
}

/// Room for `rows` more rows in each vector of the rows.
#[cold]
pub(super) fn grow(p: &mut Rows, kind: Kind, rows: usize) -> Result<(), OutOfMemory> {
    try_reserve(&mut p.items, rows)?;
    let runs = rows.min(p.runs.len().max(1024));
    try_reserve(&mut p.runs, runs)?;
    match kind {
        Kind::Qrels => try_reserve(&mut p.grades, rows),
        Kind::Run => try_reserve(&mut p.scores, rows),
    }
}

/// Cut `data` into about `n` pieces at line ends.
pub(super) fn pieces(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for k in 1..n {
        let cut = (data.len() * k / n).max(start);
        let Some(at) = memchr::memchr(b'\n', &data[cut..]) else {
            break;
        };
        out.push(&data[start..=cut + at]);
        start = cut + at + 1;
        if start >= data.len() {
            break;
        }
    }
    if start < data.len() || out.is_empty() {
        out.push(&data[start..]);
    }
    out
}
