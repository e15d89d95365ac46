//! A TREC text read in windows of whole lines, each cut into pieces parsed in
//! parallel, the pieces' new ids then numbered in file order.

use std::io::{self, Read};
use std::mem::MaybeUninit;

use rayon::prelude::*;

use crate::pages::{try_reserve, try_reserve_exact, OutOfMemory};
use crate::threads;

use super::ids::{Direct, NewIds, LOCAL};
use super::parsed::{keep_first, Kind, Parsed, TrecError, Users};
use super::pieces::{parse_piece, pieces, Piece, Rows, AHEAD};
use super::text::{
    carriage_returns_only, lines_of_carriage_returns, other_compression, parquet, BOM,
};
use crate::encode::TextIds;

// ------------------------------------------------------------------ windows
/// Sizes of the reading: a first window of one piece (small, so that the pieces
/// of the next windows find most ids among its codes), then windows of twice as
/// many pieces each time, up to `max_pieces`.
///
/// A window whose rows bring more than `alone` new ids each (on average) has the
/// next window parsed as one piece: pieces in parallel number their new ids twice
/// (on their own, then in file order), which does not pay when most rows bring
/// one (qrels, where most judged items appear once).
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    /// Bytes of the first window.
    pub first: usize,
    /// Bytes of a piece.
    pub piece: usize,
    /// Pieces of a window at most.
    pub max_pieces: usize,
    /// New ids per row above which the next window is parsed as one piece.
    pub alone: f64,
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes {
            first: 1 << 20,
            piece: 4 << 20,
            max_pieces: (2 * threads::num_threads()).max(8),
            alone: 0.5,
        }
    }
}

impl Sizes {
    /// Pieces of window `k` (the first is window 0).
    fn pieces(&self, k: usize) -> usize {
        1usize
            .checked_shl(k.min(63) as u32)
            .unwrap_or(usize::MAX)
            .min(self.max_pieces.max(1))
    }

    /// Bytes of window `k`.
    fn bytes(&self, k: usize) -> usize {
        if k == 0 {
            self.first.max(1)
        } else {
            self.pieces(k).saturating_mul(self.piece.max(1))
        }
    }
}

/// Everything read so far.
struct State {
    kind: Kind,
    users: TextIds,
    items: TextIds,
    rows: Users,
    item_codes: Vec<i32>,
    grades: Vec<i64>,
    scores: Vec<f64>,
    tag: Option<Vec<u8>>,
    lines: usize,
    error: Option<TrecError>,
    /// the pieces of the last window, reused
    pieces: Vec<Piece>,
    /// whether the next window is parsed as one piece
    direct: bool,
    /// new ids per row above which it is (see [`Sizes`])
    alone: f64,
}

impl State {
    fn new(kind: Kind, alone: f64) -> Self {
        State {
            kind,
            users: TextIds::default(),
            items: TextIds::default(),
            rows: Users::Offsets(vec![0]),
            item_codes: Vec::new(),
            grades: Vec::new(),
            scores: Vec::new(),
            tag: None,
            lines: 0,
            error: None,
            pieces: Vec::new(),
            direct: true,
            alone,
        }
    }

    /// Parse a window of whole lines (the last one may lack its newline) in
    /// `n_pieces` pieces.
    fn window(&mut self, data: &[u8], n_pieces: usize) -> io::Result<()> {
        if self.error.as_ref().is_some_and(|e| e.rank().0 == 0) {
            return Ok(()); // nothing after a line with the wrong fields is reported
        }
        let alone = n_pieces == 1 || self.direct;
        let parts = if alone {
            vec![data]
        } else {
            pieces(data, n_pieces)
        };
        if self.pieces.len() < parts.len() {
            self.pieces.resize_with(parts.len(), Piece::default);
        }
        let kind = self.kind;
        let parsed = &mut self.pieces[..parts.len()];
        let before = self.users.len() + self.items.len();
        if alone {
            // the ids get their final codes at once (no codes "so far" to look up)
            let none = TextIds::default();
            let mut users = Direct {
                table: &mut self.users,
                failed: None,
            };
            let mut items = Direct {
                table: &mut self.items,
                failed: None,
            };
            let p = &mut parsed[0];
            p.new_users.clear();
            p.new_items.clear();
            let (users_, items_) = ((&none, &mut users), (&none, &mut items));
            parse_piece(&mut p.rows, data, kind, users_, items_)?;
            if let Some(e) = users.failed.or(items.failed) {
                return Err(e);
            }
        } else {
            let (users, items) = (&self.users, &self.items);
            threads::install(|| {
                parsed.par_iter_mut().zip(&parts).try_for_each(|(p, d)| {
                    p.new_users.clear();
                    p.new_items.clear();
                    let (users_, items_) = ((users, &mut p.new_users), (items, &mut p.new_items));
                    parse_piece(&mut p.rows, d, kind, users_, items_)?;
                    match p.new_users.failed.or(p.new_items.failed) {
                        Some(e) => Err(e),
                        None => Ok(()),
                    }
                })
            })?;
        }
        let parsed = &parsed[..];
        // the new ids get their codes in file order: piece by piece, each in its order
        let mut user_maps = Vec::with_capacity(parts.len());
        let mut item_maps = Vec::with_capacity(parts.len());
        for (p, d) in parsed.iter().zip(&parts) {
            if let Some(e) = &p.rows.error {
                keep_first(&mut self.error, e.clone().shifted(self.lines));
            }
            self.lines += p.rows.lines;
            if let Some((s, e)) = p.rows.tag {
                self.tag = Some(d[s..e].to_vec()); // the last line's tag wins
            }
            let codes = |known: &mut TextIds, new: &NewIds| -> io::Result<Vec<u32>> {
                let mut out = Vec::new();
                try_reserve_exact(&mut out, new.ids.len())?;
                for (j, (s, e, k)) in new.ids.iter().enumerate() {
                    if let Some((_, _, ahead)) = new.ids.get(j + AHEAD) {
                        known.prefetch(ahead);
                    }
                    out.push(known.code(&d[*s..*e], k)?);
                }
                Ok(out)
            };
            user_maps.push(codes(&mut self.users, &p.new_users)?);
            item_maps.push(codes(&mut self.items, &p.new_items)?);
        }
        // a window where most rows bring a new id: the next one is parsed alone (the
        // pieces would number their new ids twice, once on their own, once here)
        let rows: usize = parsed.iter().map(|p| p.rows.items.len()).sum();
        let new = self.users.len() + self.items.len() - before;
        self.direct = new as f64 > self.alone * rows as f64;
        if self.error.is_some() {
            return Ok(()); // the rows are not needed
        }
        for (p, map) in parsed.iter().zip(&user_maps) {
            for &(c, n) in &p.rows.runs {
                self.rows.push_run(global(c, map), n as usize)?;
            }
        }
        // items and values of the pieces, written in parallel with their final codes
        // straight into the output's spare room (its pages are first touched there,
        // by the threads, not zeroed beforehand by this one)
        let lengths = |f: fn(&Rows) -> usize| parsed.iter().map(|p| f(&p.rows)).collect::<Vec<_>>();
        let (item_n, grade_n, score_n) = (
            lengths(|p| p.items.len()),
            lengths(|p| p.grades.len()),
            lengths(|p| p.scores.len()),
        );
        let item_out = spare(&mut self.item_codes, &item_n)?;
        let grade_out = spare(&mut self.grades, &grade_n)?;
        let score_out = spare(&mut self.scores, &score_n)?;
        let jobs: Vec<_> = parsed
            .iter()
            .map(|p| &p.rows)
            .zip(&item_maps)
            .zip(item_out.into_iter().zip(grade_out).zip(score_out))
            .collect();
        let work = |((p, map), ((items, grades), scores)): Job| {
            for (o, &c) in items.iter_mut().zip(&p.items) {
                o.write(global(c, map) as i32);
            }
            for (o, &g) in grades.iter_mut().zip(&p.grades) {
                o.write(g);
            }
            for (o, &s) in scores.iter_mut().zip(&p.scores) {
                o.write(s);
            }
        };
        if jobs.len() > 1 {
            threads::install(|| jobs.into_par_iter().for_each(work));
        } else {
            jobs.into_iter().for_each(work);
        }
        // SAFETY: the slices handed out by `spare` had the lengths of the pieces'
        // vectors, and the jobs wrote every element of them
        unsafe {
            self.item_codes
                .set_len(self.item_codes.len() + item_n.iter().sum::<usize>());
            self.grades
                .set_len(self.grades.len() + grade_n.iter().sum::<usize>());
            self.scores
                .set_len(self.scores.len() + score_n.iter().sum::<usize>());
        }
        Ok(())
    }

    /// Room for the rows of the whole text, estimated from the rows of its first
    /// `seen` of `total` bytes (one allocation, backed by huge pages, instead of
    /// doubling as the windows come). A hint: when the memory cannot be had, the
    /// output grows window by window instead (and fails there if it must).
    fn expect(&mut self, seen: usize, total: usize) {
        let rows = self.item_codes.len();
        if seen == 0 || rows == 0 {
            return;
        }
        let more = (rows as f64 * (total - seen) as f64 / seen as f64 * 1.02) as usize + 64;
        if try_reserve_exact(&mut self.item_codes, more).is_err() {
            return;
        }
        crate::pages::advise_huge(&mut self.item_codes);
        let values = match self.kind {
            Kind::Qrels => try_reserve_exact(&mut self.grades, more)
                .map(|()| crate::pages::advise_huge(&mut self.grades)),
            Kind::Run => try_reserve_exact(&mut self.scores, more)
                .map(|()| crate::pages::advise_huge(&mut self.scores)),
        };
        if values.is_err() {
            self.item_codes.shrink_to_fit(); // room for the rows read so far only
        }
    }

    fn finish(mut self) -> Result<Parsed, TrecError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        self.item_codes.shrink_to_fit();
        self.grades.shrink_to_fit();
        self.scores.shrink_to_fit();
        Ok(Parsed {
            users: self.rows,
            items: self.item_codes,
            user_ids: self.users,
            item_ids: self.items,
            grades: self.grades,
            scores: self.scores,
            tag: self.tag,
        })
    }
}

/// The final code of a piece's code (`map`: the final codes of its new ids).
#[inline(always)]
fn global(c: u32, map: &[u32]) -> u32 {
    if c & LOCAL != 0 {
        map[(c ^ LOCAL) as usize]
    } else {
        c
    }
}

/// A piece, its map of new item codes, and where its items, grades and scores go.
type Job<'p, 'o> = (
    (&'p Rows, &'p Vec<u32>),
    (
        (&'o mut [MaybeUninit<i32>], &'o mut [MaybeUninit<i64>]),
        &'o mut [MaybeUninit<f64>],
    ),
);

/// Room for `lengths.iter().sum()` more elements after the end of `v`, as one
/// uninitialized slice per length (to be written, then counted with `set_len`).
fn spare<'o, T>(
    v: &'o mut Vec<T>,
    lengths: &[usize],
) -> Result<Vec<&'o mut [MaybeUninit<T>]>, OutOfMemory> {
    try_reserve(v, lengths.iter().sum())?;
    let mut rest = v.spare_capacity_mut();
    let mut out = Vec::with_capacity(lengths.len());
    for &n in lengths {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(n);
        out.push(head);
        rest = tail;
    }
    Ok(out)
}

/// Fill `buf` from `reader` up to `want` bytes (or the end of the input); false at
/// the end of the input.
fn fill<R: Read>(reader: &mut R, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    if buf.capacity() < want {
        try_reserve(buf, want - buf.len())?;
    }
    while buf.len() < want {
        let n = reader
            .by_ref()
            .take((want - buf.len()) as u64)
            .read_to_end(buf)?;
        if n == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A window of whole lines from `reader`: `carry` (the partial line the previous
/// window left) then new bytes up to about `size`, cut after the last newline (the
/// bytes after it go back to `carry`), and whether it reaches the end of the input;
/// None past the end.
fn next_window<R: Read>(
    reader: &mut R,
    mut buf: Vec<u8>,
    carry: &mut Vec<u8>,
    size: usize,
) -> io::Result<Option<(Vec<u8>, bool)>> {
    buf.clear();
    try_reserve(&mut buf, carry.len())?;
    buf.extend_from_slice(carry);
    carry.clear();
    let mut want = size.max(buf.len() + 1);
    loop {
        let more = fill(reader, &mut buf, want)?;
        if !more {
            return Ok((!buf.is_empty()).then_some((buf, true)));
        }
        if let Some(at) = memchr::memrchr(b'\n', &buf) {
            try_reserve(carry, buf.len() - at - 1)?;
            carry.extend_from_slice(&buf[at + 1..]);
            buf.truncate(at + 1);
            return Ok(Some((buf, false)));
        }
        want = buf.len() * 2; // a line longer than the window
    }
}

/// Parse a TREC text from `reader` (already decompressed) in windows of `sizes`.
pub fn parse_reader<R: Read + Send>(
    mut reader: R,
    kind: Kind,
    sizes: Sizes,
) -> io::Result<Result<Parsed, TrecError>> {
    let mut state = State::new(kind, sizes.alone);
    let mut carry = Vec::new();
    let Some((mut first, last)) = next_window(&mut reader, Vec::new(), &mut carry, sizes.bytes(0))?
    else {
        return Ok(state.finish());
    };
    if first.starts_with(BOM) {
        first.drain(..BOM.len());
    }
    // a window holds at least one line end unless it is the whole text: a first
    // window without `\n` is a text of `\r` line ends (or of one line)
    if carriage_returns_only(&first) {
        lines_of_carriage_returns(&mut first);
    }
    state.window(&first, 1)?;
    if last {
        return Ok(state.finish());
    }
    std::thread::scope(|scope| {
        // the reader fills the next window while this thread parses the last one
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(0);
        let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        empty_tx.send(first).ok();
        empty_tx.send(Vec::new()).ok(); // a second buffer: one parsed, one filled
        let reading = std::thread::Builder::new().name("receval-gunzip".into());
        let reader_thread = reading.spawn_scoped(scope, move || {
            for k in 1.. {
                let Ok(buf) = empty_rx.recv() else {
                    return;
                };
                let (window, last) = match next_window(&mut reader, buf, &mut carry, sizes.bytes(k))
                {
                    Ok(Some(w)) => w,
                    Ok(None) => return,
                    Err(e) => {
                        full_tx.send(Err(e)).ok();
                        return;
                    }
                };
                if full_tx.send(Ok(window)).is_err() || last {
                    return;
                }
            }
        });
        if let Err(e) = reader_thread {
            // a thread's stack is address space too (`ulimit -v`)
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("could not start the thread that reads the text ({e})"),
            ));
        }
        for (k, window) in (1..).zip(full_rx) {
            let window = window?;
            state.window(&window, sizes.pieces(k))?;
            empty_tx.send(window).ok();
        }
        Ok::<(), io::Error>(())
    })?;
    Ok(state.finish())
}

/// Parse a TREC text held in memory (or mapped) in windows of `sizes`; `done(end)`
/// is called once the bytes before `end` are no longer needed.
///
/// A leading byte-order mark is skipped; a text of `\r` line ends is parsed from a
/// copy with `\n` line ends.
pub fn parse_slice(
    data: &[u8],
    kind: Kind,
    sizes: Sizes,
    mut done: impl FnMut(usize),
) -> io::Result<Result<Parsed, TrecError>> {
    let skip = if data.starts_with(BOM) { BOM.len() } else { 0 };
    if carriage_returns_only(data) {
        let mut text = Vec::new();
        try_reserve_exact(&mut text, data.len() - skip)?;
        text.extend_from_slice(&data[skip..]);
        lines_of_carriage_returns(&mut text);
        let parsed = parse_windows(&text, kind, sizes, |_| {});
        done(data.len());
        return parsed;
    }
    parse_windows(&data[skip..], kind, sizes, |end| done(end + skip))
}

/// [`parse_slice`] of a text of `\n` line ends without a byte-order mark.
fn parse_windows(
    data: &[u8],
    kind: Kind,
    sizes: Sizes,
    mut done: impl FnMut(usize),
) -> io::Result<Result<Parsed, TrecError>> {
    let mut state = State::new(kind, sizes.alone);
    let mut start = 0;
    for k in 0.. {
        if start >= data.len() {
            break;
        }
        let mut end = start.saturating_add(sizes.bytes(k)).min(data.len());
        if end < data.len() {
            end = match memchr::memrchr(b'\n', &data[start..end]) {
                Some(at) => start + at + 1,
                None => memchr::memchr(b'\n', &data[end..]).map_or(data.len(), |at| end + at + 1),
            };
        }
        state.window(&data[start..end], sizes.pieces(k))?;
        if k == 0 && end < data.len() {
            state.expect(end, data.len());
        }
        done(end);
        start = end;
    }
    Ok(state.finish())
}

/// Parse a TREC text held in memory.
pub fn parse(data: &[u8], kind: Kind) -> Result<Parsed, TrecError> {
    match parse_slice(data, kind, Sizes::default(), |_| {}) {
        Ok(r) => r,
        Err(_) => unreachable!("parsing memory does not fail"),
    }
}

/// Read and parse a TREC file, decompressed when it is gzip (by its magic number).
///
/// A plain file is mapped into memory (no copy), and the windows parsed are
/// dropped from the mapping as it goes, so that it never holds the whole file;
/// gzip is decompressed into windows by a thread of its own. bzip2, xz and
/// Zstandard (by their magic numbers) are an error of kind `InvalidData` (the
/// caller decompresses those files): never parsed as text. So is a Parquet file
/// (its message says so), a pipe's too, whose bytes no caller can look at first.
pub fn read_file(path: &std::path::Path, kind: Kind) -> io::Result<Result<Parsed, TrecError>> {
    let mut file = std::fs::File::open(path)?;
    let mut magic = Vec::with_capacity(10);
    (&mut file).take(10).read_to_end(&mut magic)?;
    if let Some(message) = parquet(&magic) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, message));
    }
    if let Some((name, command)) = other_compression(&magic) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the text is compressed with {name}, which this reader does not decompress; \
                 decompress it first (e.g. {command})"
            ),
        ));
    }
    let sizes = Sizes::default();
    // the bytes read so far, then the rest (pipes cannot seek back)
    let input = io::Cursor::new(magic.clone()).chain(&file);
    if magic.starts_with(&[0x1f, 0x8b]) {
        let input = io::BufReader::with_capacity(1 << 20, input);
        return parse_reader(flate2::read::MultiGzDecoder::new(input), kind, sizes);
    }
    if file.metadata()?.is_file() && file.metadata()?.len() > 0 {
        // SAFETY: the map is read only; a file truncated by another process while it
        // is read would raise SIGBUS, as for every reader of a mapped file
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            #[cfg(unix)]
            map.advise(memmap2::Advice::Sequential).ok();
            let mut dropped = 0;
            return parse_slice(&map, kind, sizes, |end| {
                #[cfg(unix)]
                {
                    // SAFETY: pages of a read-only file map, read again from the file
                    // if touched (only the page at `end` may be)
                    let advice = memmap2::UncheckedAdvice::DontNeed;
                    unsafe { map.unchecked_advise_range(advice, dropped, end - dropped) }.ok();
                }
                dropped = end;
            });
        }
    }
    parse_reader(input, kind, sizes)
}
