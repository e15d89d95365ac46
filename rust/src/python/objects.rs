//! The text of `str` objects (the ids of a NumPy object array): through the C API
//! on the thread that holds the GIL ([`text`], [`text_at`]), or, for the compact
//! ASCII strings that almost every id is, where it lies in the object, by any
//! thread while the calling thread holds the GIL ([`AsciiRows`]).
//!
//! The stable ABI gives a `str`'s text only through `PyUnicode_AsUTF8AndSize`,
//! which only the GIL's holder may call: a column of 10M objects read so costs
//! about the time of a whole evaluation of integer ids, on one thread. A compact
//! ASCII `str` holds its text right after its header, as UTF-8 (ASCII is), with its
//! length and kind in the header; [`layout`] finds where, once a process, from
//! strings whose text it also reads through the C API, and is None (every object
//! then read through the C API) unless every check agrees.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyString;
use pyo3::PyTypeInfo;

use crate::encode::table::{short_bits, SHORT_BYTES};
use crate::encode::{fetch_blocks_ahead, Chunk, Rows};

/// The text of a str (not of a subclass), None for anything else or a str that is not
/// UTF-8 (a lone surrogate).
pub(crate) fn text<'a>(py: Python<'a>, obj: &'a Py<PyAny>) -> Option<&'a str> {
    obj.bind(py).cast_exact::<PyString>().ok()?.to_str().ok()
}

/// [`text`] of the `i`-th of `objects` read in order, the object [`AHEAD`] places
/// on fetched ([`fetch`]).
#[inline(always)]
pub(crate) fn text_at<'a>(py: Python<'a>, objects: &'a [Py<PyAny>], i: usize) -> Option<&'a str> {
    fetch_ahead(objects, i);
    text(py, &objects[i])
}

/// Fetch the object [`AHEAD`] places after the `i`-th of `objects` ([`fetch`]), if any:
/// a loop that reads objects in order calls it before it reads the `i`-th.
#[inline(always)]
fn fetch_ahead(objects: &[Py<PyAny>], i: usize) {
    if let Some(ahead) = objects.get(i + AHEAD) {
        fetch(ahead);
    }
}

/// How many objects before it is read a loop over objects fetches one ([`fetch`]).
pub(crate) const AHEAD: usize = 64;

/// Fetch the first 64 bytes of an object into the second-level cache (a hint; it
/// reads nothing): two cache lines where the object does not begin one (Python's
/// allocator places a short `str` 48 bytes into a line: its type in that line, its
/// length and text in the next). The objects of a column lie anywhere in memory once
/// its rows have been reordered (a frame sorted or sampled after its strings were
/// made), and a loop that waits on each object's cache misses in turn is bound by
/// them: 10M rows of shuffled `str` objects read in 0.68 s, 0.30 s with each
/// fetched 16 rows ahead. Fetched into the first-level cache, the lines of more rows
/// ahead than that wait on its few outstanding misses; into the second, [`AHEAD`]
/// rows ahead (64: as fast as 128): the 10M items of the benchmark's run, shuffled,
/// coded in 151 -> 105 ms (users' runs 75 -> 43 ms; in address order, 114 -> 95 ms).
#[inline(always)]
pub(crate) fn fetch(obj: &Py<PyAny>) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch of an address (a hint: it reads and faults nothing)
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
        let at = obj.as_ptr() as *const i8;
        _mm_prefetch(at, _MM_HINT_T1);
        _mm_prefetch(at.wrapping_add(63), _MM_HINT_T1);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = obj;
}

/// Where a compact ASCII `str` of this interpreter keeps what [`ascii`] reads: its
/// type (a `PyObject`'s second word), its length (the word after) and the bits of
/// its kind (the word after its hash) as in every CPython from 3.10 to 3.14, its
/// text at `text` bytes from its start (48 up to 3.11, 40 from 3.12).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    /// The address of the `str` type.
    str_type: usize,
    /// Where the text begins.
    text: usize,
}

/// The byte of a `PyObject` at which its type's address is.
const TYPE_AT: usize = 8;
/// The byte of a `str` at which its length (code points) is.
const LENGTH_AT: usize = 16;
/// The byte of a `str` at which the bits of its kind are (a 32-bit word).
const STATE_AT: usize = 32;
/// The bits of the state word [`ascii`] looks at: the kind (3 bits from bit 2),
/// compact (bit 5) and ascii (bit 6); the two interned bits below and the rest above
/// vary.
const KIND_BITS: u32 = 0b111_1100;
/// Those bits of a compact ASCII string: kind 1 (one byte a code point), compact,
/// ascii.
const COMPACT_ASCII: u32 = 0b110_0100;

/// The text of the object at `obj` when it is a compact ASCII `str` (not of a
/// subclass), else None.
///
/// # Safety
/// `obj` points to a live Python object that no thread may change or free while the
/// text is read: the caller holds the GIL (or is a thread the holder waits on, the
/// holder keeping the objects alive), and `layout` is [`layout`]'s.
#[inline(always)]
unsafe fn ascii<'a>(obj: *const u8, layout: Layout) -> Option<&'a [u8]> {
    // SAFETY: every object begins with its reference count and type; a `str`'s
    // header (read only once its type is known) holds its length and state, and a
    // compact ASCII one its text after it (and a NUL)
    unsafe {
        if obj.add(TYPE_AT).cast::<usize>().read() != layout.str_type {
            return None;
        }
        let state = obj.add(STATE_AT).cast::<u32>().read();
        if state & KIND_BITS != COMPACT_ASCII {
            return None;
        }
        let len = obj.add(LENGTH_AT).cast::<isize>().read();
        Some(std::slice::from_raw_parts(
            obj.add(layout.text),
            usize::try_from(len).ok()?,
        ))
    }
}

/// The [`Layout`] of this interpreter's `str`, found once: None (every object read
/// through the C API) on a Python other than CPython 3.10 to 3.14 on a 64-bit
/// machine, or when the text [`ascii`] reads of each of a set of strings differs
/// from the C API's (of an ASCII one) or is not None (of one that is not ASCII).
pub(crate) fn layout(py: Python<'_>) -> Option<Layout> {
    // (a lock that lets go of the GIL while it waits: another thread looking while
    // this one calls Python does not hold the GIL this one needs back)
    static FOUND: PyOnceLock<Option<Layout>> = PyOnceLock::new();
    *FOUND.get_or_init(py, || found(py))
}

/// [`layout`], looked for.
fn found(py: Python<'_>) -> Option<Layout> {
    let version = py.version_info();
    let cpython = py
        .import("sys")
        .and_then(|sys| {
            sys.getattr("implementation")?
                .getattr("name")?
                .extract::<String>()
        })
        .is_ok_and(|name| name == "cpython");
    let known = usize::BITS == 64 && version.major == 3 && (10..15).contains(&version.minor);
    if !cpython || !known {
        return None;
    }
    let str_type = PyString::type_object_raw(py) as usize;
    let long = "an id of more than sixty-four characters, to be read where it lies in its str";
    let ascii_probes = ["", "a", "0", "u0012345", "0123456789abcde", long];
    let other_probes = [
        "\u{e9}",
        "a\u{e9}",
        "\u{20ac}",
        "\u{1f600}",
        "\u{65e5}\u{672c}",
    ];
    let first = PyString::new(py, ascii_probes[1]);
    let at = first.to_str().ok()?.as_ptr() as usize;
    let text = at.checked_sub(first.as_ptr() as usize)?;
    // after a header of 5 words (6, with a pointer to wide characters, up to 3.11)
    if text != if version.minor < 12 { 48 } else { 40 } {
        return None;
    }
    let layout = Layout { str_type, text };
    let read = |s: &Bound<'_, PyString>| {
        // SAFETY: a live str, this thread holding the GIL
        unsafe { ascii(s.as_ptr() as *const u8, layout) }.map(<[u8]>::to_vec)
    };
    for probe in ascii_probes {
        let s = PyString::new(py, probe);
        let api = s.to_str().ok()?;
        if read(&s).as_deref() != Some(api.as_bytes()) || api != probe {
            return None;
        }
    }
    for probe in other_probes {
        if read(&PyString::new(py, probe)).is_some() {
            return None;
        }
    }
    Some(layout)
}

/// The texts of `objects` read where they lie ([`ascii`]) on this thread, which
/// holds the GIL; None when one is not a compact ASCII `str`, or this interpreter's
/// [`layout`] is not known (the caller reads them through the C API).
pub(crate) fn ascii_texts<'a>(py: Python<'a>, objects: &'a [Py<PyAny>]) -> Option<Vec<&'a [u8]>> {
    let layout = layout(py)?;
    (0..objects.len())
        .map(|i| {
            fetch_ahead(objects, i);
            // SAFETY: the objects of an array the caller holds, the GIL held (`py`)
            unsafe { ascii(objects[i].as_ptr() as *const u8, layout) }
        })
        .collect()
}

/// The rows of an object array whose elements are compact ASCII `str` objects (most
/// id columns), each read where it lies ([`ascii`]), by any thread (the caller keeps
/// the GIL, and with it the objects, until every thread is done: it never releases
/// it around their work). A row that is not such a string, or longer than the
/// width the rows were made for, reads as empty and is told by [`Met`]: the codes
/// are then of no use, and the column is read again, or otherwise.
#[derive(Clone, Copy)]
pub(crate) struct AsciiRows<'a> {
    objects: &'a [Py<PyAny>],
    layout: Layout,
    /// The longest row read (usize::MAX: any).
    limit: usize,
    /// [`Rows::width`]
    width: usize,
    /// What the rows met that they were not made for, shared by their parts.
    met: &'a Met,
}

/// What [`AsciiRows`] met that they were not made for.
#[derive(Default)]
struct Met {
    /// A row that is not a compact ASCII `str`.
    other: AtomicBool,
    /// The longest row longer than the rows' width (0: none).
    longer: AtomicUsize,
}

impl<'a> AsciiRows<'a> {
    /// The rows of `objects`, made for rows of `longest` bytes (those of the first
    /// rows, read otherwise; usize::MAX: any): none longer than the width that
    /// picks ([`Rows::width`]); `met` tells a row that is, or that is not a compact
    /// ASCII `str`.
    ///
    /// # Safety
    /// The calling thread holds the GIL for as long as the rows are read, by it and by
    /// any thread it waits on.
    unsafe fn new(objects: &'a [Py<PyAny>], layout: Layout, longest: usize, met: &'a Met) -> Self {
        let width = crate::encode::width_of(longest);
        let limit = if width > SHORT_BYTES {
            usize::MAX
        } else {
            width
        };
        AsciiRows {
            objects,
            layout,
            limit,
            width,
            met,
        }
    }
}

impl Chunk for AsciiRows<'_> {
    #[inline(always)]
    fn rows(&self) -> usize {
        self.objects.len()
    }
    fn part(&self, a: usize, b: usize) -> Self {
        AsciiRows {
            objects: &self.objects[a..b],
            ..*self
        }
    }
}

impl Rows for AsciiRows<'_> {
    #[inline(always)]
    fn row(&self, i: usize) -> (&[u8], usize, usize) {
        fetch_ahead(self.objects, i);
        // SAFETY: the objects of an array the caller holds, the GIL held (`new`)
        match unsafe { ascii(self.objects[i].as_ptr() as *const u8, self.layout) } {
            Some(t) if t.len() <= self.limit => (t, 0, t.len()),
            Some(t) => {
                self.met.longer.fetch_max(t.len(), Ordering::Relaxed);
                (&[], 0, 0)
            }
            None => {
                self.met.other.store(true, Ordering::Relaxed);
                (&[], 0, 0)
            }
        }
    }
    /// Each row's key ([`short_bits`]), the objects of the rows some blocks ahead
    /// fetched (their addresses: each object is fetched [`AHEAD`] rows before it
    /// is read).
    fn shorts(&self, a: usize, out: &mut [u128]) {
        fetch_blocks_ahead(self.objects, a, out.len());
        for (j, k) in out.iter_mut().enumerate() {
            let (d, s, e) = self.row(a + j);
            *k = short_bits(d, s, e).unwrap_or(0);
        }
    }
    fn width(&self) -> usize {
        self.width
    }
    /// Rows that are the object of the row before them (the rows of a user in a
    /// column from pandas' CSV reader, which makes one object a distinct string),
    /// or compact ASCII strings of its text (a copy a row, as `astype(object)`
    /// makes them): the block's texts compared with the row before's as they are
    /// read, without a key made of each (the run's 10M users, two threads, Intel
    /// Xeon: 41 -> 36 ms).
    fn repeats(&self, a: usize, b: usize) -> bool {
        let at = self.objects[a - 1].as_ptr();
        if self.objects[a..b].iter().all(|o| o.as_ptr() == at) {
            return true;
        }
        // SAFETY: the objects of an array the caller holds, the GIL held (`new`)
        let Some(before) = (unsafe { ascii(at as *const u8, self.layout) }) else {
            return false;
        };
        (a..b).all(|i| {
            fetch_ahead(self.objects, i);
            // SAFETY: as above
            let row = unsafe { ascii(self.objects[i].as_ptr() as *const u8, self.layout) };
            row == Some(before)
        })
    }
}

/// `work` of the rows of each of `columns` read where they lie ([`AsciiRows`]),
/// made for rows of `longest` bytes and, should a row be longer, again for rows as
/// long as the longest met (at most three times: for ids of at most 11 bytes, of
/// 15, of any length); None when a row is not a compact ASCII `str`, or this
/// interpreter's [`layout`] is not known (the caller reads the objects through the
/// C API).
///
/// The calling thread keeps the GIL while `work` runs: `work` is `Send`, so that it
/// holds no GIL token (`Python`, `Bound`) with which to release it.
pub(crate) fn with_ascii_rows<T>(
    py: Python<'_>,
    columns: &[&[Py<PyAny>]],
    longest: usize,
    work: impl Fn(&[AsciiRows<'_>]) -> T + Send,
) -> Option<T> {
    let layout = layout(py)?;
    let mut longest = longest;
    loop {
        let met = Met::default();
        let rows: Vec<AsciiRows<'_>> = columns
            .iter()
            // SAFETY: `py`: the GIL is held, and `work` holds no token to release
            // it with
            .map(|c| unsafe { AsciiRows::new(c, layout, longest, &met) })
            .collect();
        let done = work(&rows);
        if met.other.load(Ordering::Relaxed) {
            return None;
        }
        match met.longer.load(Ordering::Relaxed) {
            0 => return Some(done),
            longer => longest = longer,
        }
    }
}

/// Where this interpreter's compact ASCII `str` objects hold their text (bytes from
/// the object's start), None where their text is read through the C API only.
#[pyfunction]
fn ascii_text_at(py: Python<'_>) -> Option<usize> {
    layout(py).map(|l| l.text)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(ascii_text_at, m)?)?;
    Ok(())
}
