//! Id encoding: dense codes of integer ids, and runs of equal neighbours.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use super::objects::{ascii_texts, fetch, text, text_at, with_ascii_rows, AsciiRows, AHEAD};
use super::{slice, Ints};
use crate::encode;
use crate::encode::table::PACKED_BYTES;
use crate::encode::{Chunk, Rows};

fn check_range(func: &str, values: &[i64], lo: i64, span: usize) -> PyResult<()> {
    if values
        .iter()
        .any(|&v| v < lo || (v - lo) as u64 >= span as u64)
    {
        return Err(PyValueError::new_err(format!(
            "{func}: values must lie in [lo, lo + span)"
        )));
    }
    Ok(())
}

/// Codes in order of first appearance of ids in `[lo, lo + span)`, and the first row
/// of each code.
#[pyfunction]
fn factorize_dense<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, i64>,
    lo: i64,
    span: usize,
) -> PyResult<(Bound<'py, PyArray1<i32>>, Ints<'py>)> {
    let v = slice(&values, "values")?;
    check_range("factorize_dense", v, lo, span)?;
    let (codes, first) = py.detach(|| encode::factorize_dense(v, lo, span));
    Ok((codes.into_pyarray(py), first.into_pyarray(py)))
}

/// Codes in order of first appearance of 64-bit integer ids of any range (int64 ids
/// as their bits), hashed, on up to `n_chunks` threads; and the first row of each
/// code.
#[pyfunction]
fn factorize_words<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, u64>,
    n_chunks: usize,
) -> PyResult<(Bound<'py, PyArray1<i32>>, Ints<'py>)> {
    let v = slice(&values, "values")?;
    let (codes, first) = py.detach(|| encode::factorize_words(v, |&w| w, n_chunks));
    Ok((codes.into_pyarray(py), first.into_pyarray(py)))
}

/// The position of each of `values` among `dictionary` (64-bit integer ids of any
/// range, int64 ids as their bits): the first of equal ids, -1 where absent.
#[pyfunction]
fn lookup_words<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, u64>,
    dictionary: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let (v, d) = (slice(&values, "values")?, slice(&dictionary, "dictionary")?);
    let found = py.detach(|| encode::lookup_words(v, d));
    Ok(found.into_pyarray(py))
}

/// `check` of each of `chunks` (of `rows(chunk)` rows), None if one fails: the
/// chunks in parallel when there are several of many rows in all (a chunk's own
/// check is parallel past 2 * PARALLEL_ROWS rows; pandas' chunks are shorter).
fn each_checked<C: Sync, R: Send>(
    chunks: &[C],
    rows: impl Fn(&C) -> usize,
    check: impl Fn(&C) -> Option<R> + Sync + Send,
) -> Option<Vec<R>> {
    let n: usize = chunks.iter().map(rows).sum();
    if chunks.len() > 1 && n >= 2 * crate::threads::PARALLEL_ROWS {
        crate::threads::install(|| chunks.par_iter().map(check).collect())
    } else {
        chunks.iter().map(check).collect()
    }
}

/// The chunks of a string column: each chunk's offsets and data, checked (the
/// offsets ascend from 0 or more to at most the length of the data).
fn chunks_of<'a, O: encode::Offset + numpy::Element>(
    offsets: &'a [PyReadonlyArray1<'_, O>],
    data: &'a [PyReadonlyArray1<'_, u8>],
) -> PyResult<Vec<encode::OffsetRows<'a, O>>> {
    let pairs = offsets
        .iter()
        .zip(data)
        .map(|(o, d)| Ok((slice(o, "offsets")?, slice(d, "data")?)))
        .collect::<PyResult<Vec<(&[O], &[u8])>>>()?;
    each_checked(
        &pairs,
        |(o, _)| o.len(),
        |&(o, d)| encode::OffsetRows::checked(o, d),
    )
    .ok_or_else(bad_offsets)
}

/// The refusal of offsets that do not ascend within their data.
fn bad_offsets() -> PyErr {
    PyValueError::new_err(
        "a string column's offsets must ascend from 0 or more to at most len(data)",
    )
}

/// An error unless there are as many offsets arrays as data arrays.
fn same_count(offsets: usize, data: usize) -> PyResult<()> {
    if offsets == data {
        return Ok(());
    }
    Err(PyValueError::new_err(
        "a string column needs as many offsets arrays as data arrays",
    ))
}

/// Work on the chunks of an Arrow string column, whatever the width of its offsets.
pub(super) trait OnOffsetRows {
    type Out;
    fn run<O: encode::Offset>(self, chunks: &[encode::OffsetRows<'_, O>]) -> Self::Out;
    /// The answer for the whole column that its first row gives alone, if any: the
    /// pass that checks every offset is then spared.
    fn first_row_answer(&self, _first: &[u8]) -> Option<Self::Out> {
        None
    }
}

/// [`OnOffsetRows::first_row_answer`] of the first row of the first chunk that has one,
/// read with its bounds checked (offsets that do not bound it: no answer, for the
/// check of every offset to refuse).
fn first_row_answer_of<W: OnOffsetRows, O: encode::Offset + numpy::Element>(
    work: &W,
    offsets: &[PyReadonlyArray1<'_, O>],
    data: &[PyReadonlyArray1<'_, u8>],
) -> Option<W::Out> {
    let (o, d) = offsets
        .iter()
        .zip(data)
        .map(|(o, d)| (o.as_slice().ok(), d.as_slice().ok()))
        .find(|(o, _)| o.is_none_or(|o| o.len() > 1))?;
    let (o, d) = (o?, d?);
    work.first_row_answer(d.get(o[0].at()..o[1].at())?)
}

/// `work` on the chunks of an Arrow string column (each chunk's `offsets`, int32 in
/// every chunk or int64 in every chunk, checked, and its `data`).
pub(super) fn on_offset_rows<'py, W: OnOffsetRows>(
    offsets: &Bound<'py, PyAny>,
    data: &[PyReadonlyArray1<'py, u8>],
    work: W,
) -> PyResult<W::Out> {
    if let Ok(o) = offsets.extract::<Vec<PyReadonlyArray1<'py, i32>>>() {
        same_count(o.len(), data.len())?;
        if let Some(out) = first_row_answer_of(&work, &o, data) {
            return Ok(out);
        }
        return Ok(work.run(&chunks_of(&o, data)?));
    }
    let o = offsets.extract::<Vec<PyReadonlyArray1<'py, i64>>>()?;
    same_count(o.len(), data.len())?;
    if let Some(out) = first_row_answer_of(&work, &o, data) {
        return Ok(out);
    }
    Ok(work.run(&chunks_of(&o, data)?))
}

/// [`encode::factorize_bytes`] of the chunks (in up to `n_chunks` parts) and the
/// distinct strings in code order, the GIL released.
struct Codes<'py>(Python<'py>, usize);

impl OnOffsetRows for Codes<'_> {
    type Out = (Vec<i32>, Vec<i64>, Vec<i64>, Vec<u8>);
    fn run<O: encode::Offset>(self, chunks: &[encode::OffsetRows<'_, O>]) -> Self::Out {
        let Codes(py, n_chunks) = self;
        py.detach(|| {
            let (codes, first, distinct) = encode::factorize_bytes(chunks, n_chunks, 0);
            let (offsets, data) = distinct.texts();
            (codes, first, offsets, data)
        })
    }
}

/// Codes in order of first appearance of the strings of an Arrow string column in
/// chunks (each chunk's `offsets`, int32 or int64 in every chunk, from the chunk's
/// first row, and its `data`), and the first row of each code; the chunks, and long
/// chunks cut in up to `n_chunks` pieces, in parallel; the distinct strings, in code
/// order, as the offsets (int64) and data of an Arrow `large_string` array (read
/// where they lie, not taken from the column by Arrow, which joins its chunks
/// first).
#[pyfunction]
fn factorize_bytes<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    data: Vec<PyReadonlyArray1<'py, u8>>,
    n_chunks: usize,
) -> PyResult<Distinct<'py>> {
    let (codes, first, offsets, data) = on_offset_rows(offsets, &data, Codes(py, n_chunks))?;
    Ok((
        codes.into_pyarray(py),
        first.into_pyarray(py),
        offsets.into_pyarray(py),
        data.into_pyarray(py),
    ))
}

/// The codes of a string column, the first row of each code, and the distinct
/// strings in code order (the offsets, int64, and data of a `large_string` array).
type Distinct<'py> = (
    Bound<'py, PyArray1<i32>>,
    Ints<'py>,
    Ints<'py>,
    Bound<'py, PyArray1<u8>>,
);

/// [`encode::lookup_rows`] of the chunks (None when they have fewer rows than the
/// dictionary's `n_dict`), the GIL released.
struct Lookup<'py>(Python<'py>, usize);

impl OnOffsetRows for Lookup<'_> {
    type Out = Option<Vec<i32>>;
    fn run<O: encode::Offset>(self, chunks: &[encode::OffsetRows<'_, O>]) -> Self::Out {
        let Lookup(py, n_dict) = self;
        let n: usize = chunks.iter().map(|c| c.rows()).sum();
        (n_dict <= n).then(|| py.detach(|| encode::lookup_rows(chunks, n_dict)))
    }
}

/// The position of each string of an Arrow string column in chunks past its first
/// `n_dict` rows (the values) among those rows (the dictionary): the first of equal
/// ids, -1 where absent. The chunks as [`factorize_bytes`] takes them.
#[pyfunction]
fn lookup_bytes<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    data: Vec<PyReadonlyArray1<'py, u8>>,
    n_dict: usize,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let found = on_offset_rows(offsets, &data, Lookup(py, n_dict))?;
    let found = found.ok_or_else(|| {
        PyValueError::new_err(format!(
            "lookup_bytes: n_dict ({n_dict}) is more than the rows"
        ))
    })?;
    Ok(found.into_pyarray(py))
}

/// The position of each of `values` in `dictionary` (the first of equal ids), -1
/// where absent, for object arrays of str (read in place, no copy: by every thread
/// where each is a compact ASCII `str`, [`with_ascii_rows`]); None when an element is
/// not a str (or not valid UTF-8): the caller compares those otherwise.
#[pyfunction]
fn lookup_str<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, Py<PyAny>>,
    dictionary: PyReadonlyArray1<'py, Py<PyAny>>,
) -> PyResult<Option<Bound<'py, PyArray1<i32>>>> {
    let (values, dictionary) = (slice(&values, "values")?, slice(&dictionary, "dictionary")?);
    let n_dict = dictionary.len();
    let look = |rows: &[AsciiRows]| encode::lookup_rows(rows, n_dict);
    let ascii = with_ascii_rows(py, &[dictionary, values], PACKED_BYTES, look);
    if let Some(found) = ascii {
        return Ok(Some(found.into_pyarray(py)));
    }
    let mut rows: Vec<&[u8]> = Vec::with_capacity(dictionary.len() + values.len());
    for objects in [dictionary, values] {
        for i in 0..objects.len() {
            match text_at(py, objects, i) {
                Some(t) => rows.push(t.as_bytes()),
                None => return Ok(None),
            }
        }
    }
    let found = encode::lookup_rows(&[encode::SliceRows::new(&rows)], dictionary.len());
    Ok(Some(found.into_pyarray(py)))
}

/// The chunks of a `string_view` column: each chunk's views (checked: 16 bytes a
/// row, each long row inside its buffer) and data buffers.
fn view_chunks<'a>(
    func: &str,
    views: &'a [PyReadonlyArray1<'_, u8>],
    bufs: &'a [Vec<&'a [u8]>],
) -> PyResult<Vec<encode::ViewRows<'a>>> {
    if views.len() != bufs.len() {
        return Err(PyValueError::new_err(format!(
            "{func}: as many views arrays as lists of buffers"
        )));
    }
    let pairs = views
        .iter()
        .zip(bufs)
        .map(|(v, b)| Ok((slice(v, "views")?, &b[..])))
        .collect::<PyResult<Vec<(&[u8], &[&[u8]])>>>()?;
    each_checked(
        &pairs,
        |(v, _)| v.len() / 16,
        |&(v, b)| encode::ViewRows::checked(v, b),
    )
    .ok_or_else(|| {
        PyValueError::new_err(format!(
            "{func}: views must be 16 bytes a row, each long row inside its buffer"
        ))
    })
}

/// The data buffers of each chunk of a `string_view` column as slices.
fn view_buffers<'a>(buffers: &'a [Vec<PyReadonlyArray1<'_, u8>>]) -> PyResult<Vec<Vec<&'a [u8]>>> {
    buffers
        .iter()
        .map(|b| b.iter().map(|d| slice(d, "buffers")).collect())
        .collect()
}

/// Codes in order of first appearance of the strings of an Arrow `string_view`
/// column in chunks (each chunk's `views`, 16 bytes a row, from the chunk's first
/// row, and its data `buffers`), and the first row of each code; the chunks, and
/// long chunks cut in up to `n_chunks` pieces, in parallel; the distinct strings,
/// in code order, as the offsets (int64) and data of an Arrow `large_string` array.
#[pyfunction]
fn factorize_views<'py>(
    py: Python<'py>,
    views: Vec<PyReadonlyArray1<'py, u8>>,
    buffers: Vec<Vec<PyReadonlyArray1<'py, u8>>>,
    n_chunks: usize,
) -> PyResult<Distinct<'py>> {
    // ids of at most 11 bytes (most ids) from their views alone, else from the
    // checked views and their buffers
    let guess =
        inline_views(&views)?.and_then(|c| py.detach(|| encode::factorize_inline(&c, n_chunks)));
    let (codes, first, distinct) = match guess {
        Some(out) => out,
        None => {
            let bufs = view_buffers(&buffers)?;
            let chunks = view_chunks("factorize_views", &views, &bufs)?;
            py.detach(|| encode::factorize_bytes(&chunks, n_chunks, 0))
        }
    };
    let (offsets, data) = py.detach(|| distinct.texts());
    Ok((
        codes.into_pyarray(py),
        first.into_pyarray(py),
        offsets.into_pyarray(py),
        data.into_pyarray(py),
    ))
}

/// A string column's runs of equal neighbours, encoded ([`encode::factorize_runs`]):
/// the first row of each run, the code of each run, and the distinct strings in
/// code order as the offsets (int64) and data of an Arrow `large_string` array.
type Runs<'py> = (
    Ints<'py>,
    Bound<'py, PyArray1<i32>>,
    Ints<'py>,
    Bound<'py, PyArray1<u8>>,
);

fn runs_of<'py, R: Rows>(py: Python<'py>, chunks: &[R], n_chunks: usize) -> Runs<'py> {
    let runs = py.detach(|| encode::factorize_runs(chunks, n_chunks));
    runs_out(py, runs)
}

/// Encoded runs as [`runs_of`] gives them.
fn runs_out(py: Python<'_>, runs: encode::Runs) -> Runs<'_> {
    let (starts, codes, _, distinct) = runs;
    let (offsets, data) = py.detach(|| distinct.texts());
    (
        starts.into_pyarray(py),
        codes.into_pyarray(py),
        offsets.into_pyarray(py),
        data.into_pyarray(py),
    )
}

/// [`runs_of`] of the chunks.
struct RunsOf<'py>(Python<'py>, usize);

impl<'py> OnOffsetRows for RunsOf<'py> {
    type Out = Runs<'py>;
    fn run<O: encode::Offset>(self, chunks: &[encode::OffsetRows<'_, O>]) -> Self::Out {
        runs_of(self.0, chunks, self.1)
    }
}

/// The runs of equal neighbours of an Arrow string column in chunks (as
/// [`factorize_bytes`] takes it), encoded: the first row of each run (counted across
/// the chunks), the code of each run in order of first appearance (only the first
/// row of a run is hashed), and the distinct strings in code order (int64 offsets
/// and data).
#[pyfunction]
fn factorize_byte_runs<'py>(
    py: Python<'py>,
    offsets: &Bound<'py, PyAny>,
    data: Vec<PyReadonlyArray1<'py, u8>>,
    n_chunks: usize,
) -> PyResult<Runs<'py>> {
    on_offset_rows(offsets, &data, RunsOf(py, n_chunks))
}

/// [`factorize_byte_runs`] of an Arrow `string_view` column in chunks (as
/// [`factorize_views`] takes it).
#[pyfunction]
fn factorize_view_runs<'py>(
    py: Python<'py>,
    views: Vec<PyReadonlyArray1<'py, u8>>,
    buffers: Vec<Vec<PyReadonlyArray1<'py, u8>>>,
    n_chunks: usize,
) -> PyResult<Runs<'py>> {
    // ids of at most 11 bytes (most ids) from their views alone, else from the
    // checked views and their buffers
    let guess = inline_views(&views)?
        .and_then(|c| py.detach(|| encode::factorize_inline_runs(&c, n_chunks)));
    if let Some(runs) = guess {
        return Ok(runs_out(py, runs));
    }
    let bufs = view_buffers(&buffers)?;
    let chunks = view_chunks("factorize_view_runs", &views, &bufs)?;
    Ok(runs_of(py, &chunks, n_chunks))
}

/// The chunks of a `string_view` column read from their views alone (see
/// [`encode::InlineViews`]), None unless each is 16 bytes a row.
fn inline_views<'a>(
    views: &'a [PyReadonlyArray1<'_, u8>],
) -> PyResult<Option<Vec<encode::InlineViews<'a>>>> {
    views
        .iter()
        .map(|v| Ok(encode::InlineViews::new(slice(v, "views")?)))
        .collect()
}

/// Codes in order of first appearance of the ids of an object array of str (read in
/// place, no copy), and the first row of each code; None when an element is not a
/// str (or a str that is not UTF-8): the caller encodes those otherwise.
///
/// Where equal strings are mostly one object (pandas' CSV reader gives each distinct
/// string one object, as Python does for interned names), the rows are first
/// numbered by the objects' addresses, in parallel and without the GIL: only each
/// distinct object is then read. Whether they are is told by the first rows (read
/// as the others are): at least half of the rows that repeat an earlier row's
/// string there are the object of that string's first row. Otherwise every row is
/// read: where each is a compact ASCII `str` (most id columns), where it lies by
/// every thread, as an Arrow column's rows are ([`with_ascii_rows`]); else a window
/// at a time under the GIL, each window coded by every thread while the next is read
/// ([`encode::factorize_read`]).
#[pyfunction]
fn factorize_str<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, Py<PyAny>>,
    n_chunks: usize,
) -> PyResult<Option<Distinct<'py>>> {
    /// The first rows, which tell whether equal strings are one object.
    const SAMPLE: usize = 1 << 16;
    let v = slice(&values, "values")?;
    let address = |i: usize| v[i].as_ptr() as usize as u64;
    let other = std::cell::Cell::new(false);
    /// The bytes of a str; none, and `other` set, for anything else.
    fn bytes<'b>(t: Option<&'b str>, other: &std::cell::Cell<bool>) -> &'b [u8] {
        t.map_or_else(
            || {
                other.set(true);
                &b""[..]
            },
            str::as_bytes,
        )
    }
    // row i, read in order of the rows
    let key = |i: usize| bytes(text_at(py, v, i), &other);
    let sample = v.len().min(SAMPLE);
    let sampled: Vec<&[u8]> =
        ascii_texts(py, &v[..sample]).unwrap_or_else(|| (0..sample).map(key).collect());
    if other.get() {
        return Ok(None);
    }
    // the rows that repeat an earlier row's string, and of those the rows that are
    // the object of the first row of that string
    let (by_string, first, _) = encode::factorize_bytes(&[encode::SliceRows::new(&sampled)], 1, 0);
    let same_string = sample - first.len();
    let same_object = by_string
        .iter()
        .enumerate()
        .filter(|&(i, &c)| {
            let at = first[c as usize] as usize;
            at != i && address(at) == address(i)
        })
        .count();
    // the longest id of the first rows picks the table (a longer one later: again)
    let width = sampled.iter().map(|t| t.len()).max().unwrap_or(0);
    let done = |codes: Vec<i32>, first: Vec<i64>, (offsets, data): (Vec<i64>, Vec<u8>)| {
        Some((
            codes.into_pyarray(py),
            first.into_pyarray(py),
            offsets.into_pyarray(py),
            data.into_pyarray(py),
        ))
    };
    if same_string == 0 || 2 * same_object < same_string {
        let read = |rows: &[AsciiRows]| encode::factorize_bytes(rows, n_chunks, 0);
        if let Some((codes, first, distinct)) = with_ascii_rows(py, &[v], width, read) {
            return Ok(done(codes, first, distinct.texts()));
        }
        let (codes, first, distinct) = encode::factorize_read(v.len(), key, width, n_chunks);
        return Ok(if other.get() {
            None
        } else {
            done(codes, first, distinct.texts())
        });
    }
    let (by_object, objects) =
        py.detach(|| encode::factorize_words(v, |o| o.as_ptr() as usize as u64, n_chunks));
    // the k-th distinct object, read in their order (each fetched as text_at fetches
    // rows read in order)
    let text_of = |k: usize| {
        if let Some(&ahead) = objects.get(k + AHEAD) {
            fetch(&v[ahead as usize]);
        }
        bytes(text(py, &v[objects[k] as usize]), &other)
    };
    let (by_text, first, distinct) =
        encode::factorize_read(objects.len(), text_of, width, n_chunks);
    if other.get() {
        return Ok(None);
    }
    let (codes, first) = py.detach(|| {
        let mut codes = by_object;
        crate::threads::install(|| {
            codes
                .par_iter_mut()
                .with_min_len(crate::threads::PARALLEL_ROWS)
                .for_each(|c| *c = by_text[*c as usize]);
        });
        let first: Vec<i64> = first.iter().map(|&k| objects[k as usize]).collect();
        (codes, first)
    });
    Ok(done(codes, first, distinct.texts()))
}

/// The runs of equal neighbours of an object array of str, encoded (as
/// [`factorize_byte_runs`]): the first row of each run, the code of each run in
/// order of first appearance and the distinct strings in code order (the offsets,
/// int64, and data of a `large_string` array); None when an element is not a str
/// (or a str that is not UTF-8). A row that is the object of the row before it is
/// not read (the rows of a user in a column from pandas' CSV reader); the others are
/// compared with the row before them, and only the first row of a run is hashed:
/// where every row is a compact ASCII `str`, in parallel as an Arrow column's rows
/// are ([`with_ascii_rows`], [`encode::factorize_runs`]), else on this thread under
/// the GIL.
#[pyfunction]
fn factorize_str_runs<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, Py<PyAny>>,
    n_chunks: usize,
) -> PyResult<Option<Runs<'py>>> {
    let v = slice(&values, "values")?;
    let runs = |rows: &[AsciiRows]| encode::factorize_runs(rows, n_chunks);
    let (starts, codes, distinct) = match with_ascii_rows(py, &[v], usize::MAX, runs) {
        Some((starts, codes, _, distinct)) => (starts, codes, distinct),
        None => {
            let (mut starts, mut heads) = (Vec::new(), Vec::new());
            let mut before: Option<(*mut pyo3::ffi::PyObject, &[u8])> = None;
            for (i, obj) in v.iter().enumerate() {
                if before.is_some_and(|(at, _)| at == obj.as_ptr()) {
                    continue;
                }
                let Some(t) = text_at(py, v, i).map(str::as_bytes) else {
                    return Ok(None);
                };
                if before.is_none_or(|(_, b)| b != t) {
                    starts.push(i as i64);
                    heads.push(t);
                }
                before = Some((obj.as_ptr(), t));
            }
            let heads = [encode::SliceRows::new(&heads)];
            let (codes, _, distinct) = encode::factorize_bytes(&heads, 1, 0);
            (starts, codes, distinct)
        }
    };
    let (offsets, data) = distinct.texts();
    Ok(Some((
        starts.into_pyarray(py),
        codes.into_pyarray(py),
        offsets.into_pyarray(py),
        data.into_pyarray(py),
    )))
}

/// Codes of string ids given a block at a time (an id column of a CSV file as it
/// is read): each new id takes the next code (in order of first appearance across
/// the blocks), and only the distinct ids are kept, never a block's rows.
#[pyclass(name = "IdCodes", module = "receval._core")]
#[derive(Default)]
struct IdCodes {
    ids: crate::held::Ids,
}

#[pymethods]
impl IdCodes {
    #[new]
    fn new() -> Self {
        IdCodes::default()
    }

    /// The codes (int32) of a block of strings: the offsets (int32, as many as rows
    /// plus one) and data of an Arrow `string` array. A row equal to the row before
    /// it (the rows of a user) takes its code without a lookup.
    ///
    /// The rows are coded a block ([`encode::BLOCK`] rows) at a time: the key of each row not equal to the
    /// one before it is made, and its slot fetched, before any is looked up, so that
    /// their cache misses overlap, and rows are told equal by their short keys (10M
    /// ids of 200,000 distinct, in calls of 16,384 rows: 361 -> 185 ms on Intel Xeon,
    /// where each row's slot was fetched 16 rows ahead, its key made twice and its
    /// bytes compared with the row before; `evaluate` from the ids benchmark's CSV
    /// files of string ids, medians of 3 calls in 2 processes of each build in turn:
    /// 1.71 -> 1.47-1.56 s).
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        offsets: PyReadonlyArray1<'py, i32>,
        data: PyReadonlyArray1<'py, u8>,
    ) -> PyResult<Bound<'py, PyArray1<i32>>> {
        let d = slice(&data, "data")?;
        let rows =
            encode::OffsetRows::checked(slice(&offsets, "offsets")?, d).ok_or_else(bad_offsets)?;
        let n = rows.rows();
        let id = |i: usize| {
            let (_, s, e) = rows.row(i);
            &d[s..e]
        };
        let mut codes: Vec<i32> = Vec::with_capacity(n);
        // the key of each row of a block, None for a row equal to the one before it
        // (told by the short keys of rows of at most 15 bytes, by the bytes of others)
        let mut keys = [None; encode::BLOCK];
        let mut shorts = [0u128; encode::BLOCK];
        let mut before: Option<Option<u128>> = None;
        for a in (0..n).step_by(encode::BLOCK) {
            let block = a..(a + encode::BLOCK).min(n);
            rows.shorts(a, &mut shorts[..block.len()]);
            for ((i, key), &k) in block.clone().zip(&mut keys).zip(&shorts) {
                let (_, s, e) = rows.row(i);
                // 0: an empty id's key, or a longer id's
                let short = if k != 0 {
                    Some(k)
                } else {
                    encode::table::short_bits(d, s, e)
                };
                let same = match (before, short) {
                    (Some(Some(b)), Some(k)) => b == k,
                    (Some(None), None) => id(i - 1) == &d[s..e],
                    _ => false,
                };
                before = Some(short);
                *key = (!same).then(|| {
                    let key = encode::Key::of(short, &d[s..e]);
                    self.ids.prefetch_key(&key);
                    key
                });
            }
            for (i, key) in block.zip(&keys) {
                let code = match key {
                    Some(key) => self
                        .ids
                        .code_key(id(i), key)
                        .map_err(super::open::too_many)? as i32,
                    None => codes[i - 1],
                };
                codes.push(code);
            }
        }
        Ok(codes.into_pyarray(py))
    }

    /// The distinct ids in code order: the offsets (int64) and data of an Arrow
    /// `large_string` array.
    fn distinct<'py>(&self, py: Python<'py>) -> (Ints<'py>, Bound<'py, PyArray1<u8>>) {
        let (offsets, data) = self.ids.arrow_texts();
        (offsets.into_pyarray(py), data.into_pyarray(py))
    }
}

/// The codes in `[0, span)` of a categorical column (`values`: int32, uint32 or int64)
/// numbered anew in ascending order (int32), and a row of each (int64): see
/// `encode::used_categories`.
#[pyfunction]
fn used_categories<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    span: usize,
    n_chunks: usize,
) -> PyResult<(Bound<'py, PyArray1<i32>>, Ints<'py>)> {
    let refusal = "used_categories: values must be a 1-D int32, uint32 or int64 array";
    let found = with_slice!(values, "values", [i32, u32, i64], refusal, |v| {
        py.detach(|| encode::used_categories(v, span, n_chunks))
    });
    match found {
        Some((codes, rows)) => Ok((codes.into_pyarray(py), rows.into_pyarray(py))),
        None => Err(PyValueError::new_err(
            "used_categories: values must lie in [0, span), fewer than 2**32 - 1 of them",
        )),
    }
}

/// Runs of equal neighbours: start offsets (plus the length) and values (int64 ids,
/// or int32 or uint32 categorical codes).
#[pyfunction]
fn runs<'py>(py: Python<'py>, values: &Bound<'py, PyAny>) -> PyResult<(Ints<'py>, Ints<'py>)> {
    let refusal = "runs: values must be a 1-D int64, int32 or uint32 array";
    let (offsets, heads) = with_slice!(values, "values", [i64, i32, u32], refusal, |v| {
        py.detach(|| encode::runs(v))
    });
    Ok((offsets.into_pyarray(py), heads.into_pyarray(py)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(factorize_dense, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_words, m)?)?;
    m.add_function(wrap_pyfunction!(lookup_words, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_views, m)?)?;
    m.add_function(wrap_pyfunction!(lookup_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(lookup_str, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_byte_runs, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_view_runs, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_str, m)?)?;
    m.add_function(wrap_pyfunction!(factorize_str_runs, m)?)?;
    m.add_class::<IdCodes>()?;
    m.add_function(wrap_pyfunction!(runs, m)?)?;
    m.add_function(wrap_pyfunction!(used_categories, m)?)?;
    Ok(())
}
