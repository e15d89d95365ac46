//! Python bindings of the TREC reader (`trec`).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::objects::text_at;
use super::ranking::RankingSpec;
use crate::encode::TextIds;
use crate::spec::Spec;
use crate::trec::{self, Kind, TrecError, Users};
use crate::trec_eval::Refused;

/// Read a TREC qrels (`kind="qrels"`) or run (`kind="run"`) file, gzip or not; or,
/// given `stream` (a binary file object of the file's decompressed bytes: bzip2, xz
/// and Zstandard, which the caller decompresses), the text read from it.
///
/// Returns `(True, user_offsets, user_codes, item_codes, user_ids, item_ids, values,
/// tag)`: the rows' users as int64 CSR offsets when the rows are grouped by user in
/// order of first appearance (`user_codes` is then None), else as int32 codes
/// (`user_offsets` None); int32 item codes in order of first appearance, the
/// distinct ids as object arrays of str, int64 grades or float64 scores (finite),
/// and the run tag of the last line (or None). For a file that does not parse: `(False, what,
/// line, fields, text)`, where `what` is `"fields"` (`fields` found, the line's
/// `text` as bytes), `"number"` (`text`: the value) or `"not_finite"` (`text`: the
/// value's repr) or `"utf8"` (`text`: an id that is not UTF-8; `line` 0).
///
/// Raises MemoryError (how many bytes could not be had, and the file) when the
/// memory of the rows or ids cannot be had, never aborting the process.
#[pyfunction]
#[pyo3(signature = (path, kind, stream=None))]
fn read_trec(
    py: Python<'_>,
    path: std::path::PathBuf,
    kind: &str,
    stream: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    let kind = match kind {
        "qrels" => Kind::Qrels,
        "run" => Kind::Run,
        _ => return Err(PyValueError::new_err("kind must be 'qrels' or 'run'")),
    };
    crate::pages::rearm();
    let parsed = match py.detach(|| read_source(&path, stream.as_ref(), kind)) {
        Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => {
            return Err(PyMemoryError::new_err(format!(
                "{e} for reading {}.",
                path.display()
            )))
        }
        Err(e) => return Err(PyOSError::new_err(format!("{}: {e}", path.display()))),
        Ok(Err(e)) => {
            let out = match e {
                TrecError::Fields(line, k, text) => {
                    (false, "fields", line, k, PyBytes::new(py, &text)).into_pyobject(py)?
                }
                TrecError::Number(line, text) => {
                    (false, "number", line, 0usize, PyBytes::new(py, &text)).into_pyobject(py)?
                }
                TrecError::NotFinite(line, v) => {
                    let text = format!("{v}");
                    (
                        false,
                        "not_finite",
                        line,
                        0usize,
                        PyBytes::new(py, text.as_bytes()),
                    )
                        .into_pyobject(py)?
                }
            };
            return Ok(out.into_any().unbind());
        }
        Ok(Ok(p)) => p,
    };
    // ids are text: an id that is not UTF-8 is an error (decoding it lossily would
    // merge distinct ids); Python finds its line
    let bad = parsed
        .user_ids
        .iter()
        .chain(parsed.item_ids.iter())
        .find(|s| std::str::from_utf8(s).is_err());
    if let Some(s) = bad {
        let out = (false, "utf8", 0usize, 0usize, PyBytes::new(py, s)).into_pyobject(py)?;
        return Ok(out.into_any().unbind());
    }
    // the distinct ids as the offsets (int64) and data of an Arrow large_string array
    let ids = |v: TextIds| {
        let (offsets, data) = v.into_arrow_texts();
        (offsets.into_pyarray(py), data.into_pyarray(py))
    };
    let (offsets, codes) = match parsed.users {
        Users::Offsets(o) => (Some(o.into_pyarray(py)), None),
        Users::Codes(c) => (None, Some(c.into_pyarray(py))),
    };
    let values = if kind == Kind::Qrels {
        parsed.grades.into_pyarray(py).into_any()
    } else {
        parsed.scores.into_pyarray(py).into_any()
    };
    let tag = parsed.tag.map(|t| String::from_utf8_lossy(&t).into_owned());
    let out = (
        true,
        offsets,
        codes,
        parsed.items.into_pyarray(py),
        ids(parsed.user_ids),
        ids(parsed.item_ids),
        values,
        tag,
    )
        .into_pyobject(py)?;
    Ok(out.into_any().unbind())
}

/// The rank (as float64) of each of `ids`, an object array of str, in code point
/// order, equal ids in array order: NumPy's stable argsort of the ids as a str
/// array. None when an element is not a str, is not UTF-8 or holds a NUL (a NumPy
/// str array drops trailing NULs): the caller sorts those itself.
#[pyfunction]
fn str_ranks<'py>(
    py: Python<'py>,
    ids: PyReadonlyArray1<'py, Py<PyAny>>,
) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
    let ids = ids
        .as_slice()
        .map_err(|_| PyValueError::new_err("str_ranks: ids must be C-contiguous"))?;
    let mut strs = Vec::with_capacity(ids.len());
    for i in 0..ids.len() {
        match text_at(py, ids, i) {
            Some(t) if !t.as_bytes().contains(&0) => strs.push(t.as_bytes()),
            _ => return Ok(None),
        }
    }
    // UTF-8 bytes sort as their code points. Sorted by their first 16 bytes (as a
    // big-endian integer, zero-padded: no id holds a NUL, so a shorter id sorts
    // first; most ids whole), then the rest, then the position (equal ids in
    // array order)
    let prefix = |s: &[u8]| {
        let mut b = [0u8; 16];
        let n = s.len().min(16);
        b[..n].copy_from_slice(&s[..n]);
        u128::from_be_bytes(b)
    };
    let mut order: Vec<(u128, usize)> = strs.iter().map(|s| prefix(s)).zip(0..).collect();
    order.sort_unstable_by(|a, b| {
        let rest = |i: usize| strs[i].get(16..).unwrap_or(&[]);
        (a.0.cmp(&b.0))
            .then_with(|| rest(a.1).cmp(rest(b.1)))
            .then(a.1.cmp(&b.1))
    });
    let mut rank = vec![0.0f64; strs.len()];
    for (j, &(_, i)) in order.iter().enumerate() {
        rank[i] = j as f64;
    }
    Ok(Some(rank.into_pyarray(py)))
}

/// trec_eval's values of every query of the qrels file against the run file (see
/// `crate::trec_eval`): `specs` are the ranking kernel's (`RankingSpec`, one per
/// printed value, built by `receval.registry.trec_eval`), `relstring` (length, bare,
/// -M (None: all; 0: none), -J) or None.
///
/// Returns `(queries, in_run, columns, relstrings, tag, positive_grades, matching,
/// examples, run_only)`: the query ids in byte order, whether the run holds each, one
/// list of values per spec, each query's relstring (empty without `relstring`), the
/// run's tag (its last line's, as bytes), the qrels' grades above 0, how the ids match
/// (qrels queries, those in the run, run documents judged, run documents, qrels
/// documents), the smallest ids
/// of each in byte order (qrels queries, run queries, qrels documents, run documents;
/// as `receval.data.seen.smallest_ids` orders them) and the run's
/// queries absent from the qrels (trec_eval ignores them). For a file
/// the core does not evaluate as it is (it does not parse, repeats a pair, has no
/// line, an id that is not UTF-8, or cannot be read), returns `"qrels"` or `"run"`:
/// the caller reads that file for the message. `streams`: the binary file
/// objects of the qrels' and run's decompressed bytes, where the caller decompresses
/// them (as `read_trec`'s `stream`), else None.
#[pyfunction]
#[pyo3(signature = (qrels, run, specs, relstring, streams=(None, None)))]
fn trec_eval_table(
    py: Python<'_>,
    qrels: std::path::PathBuf,
    run: std::path::PathBuf,
    specs: Vec<Bound<'_, RankingSpec>>,
    relstring: Option<(usize, bool, Option<usize>, bool)>,
    streams: Streams,
) -> PyResult<Py<PyAny>> {
    use crate::trec_eval::{evaluate, Relstring};
    let specs: Vec<Spec> = specs.iter().map(|s| s.get().0).collect();
    let relstring = relstring.map(|(length, bare, depth, judged_only)| Relstring {
        length,
        bare,
        depth,
        judged_only,
    });
    crate::pages::rearm();
    let files = (
        (qrels.as_path(), streams.0.as_ref()),
        (run.as_path(), streams.1.as_ref()),
    );
    let done = with_files(py, files, |q, r| evaluate(q, r, &specs, relstring))?;
    let t = match done {
        Err(refused) => return Ok(refused.into_pyobject(py)?.into_any().unbind()),
        Ok(t) => t,
    };
    let text = |s: &[u8]| String::from_utf8_lossy(s).into_owned(); // ids: UTF-8, checked
    let queries: Vec<String> = t.queries.iter().map(|s| text(s)).collect();
    // the tag's bytes as the file holds them (trec_eval prints them so; not checked)
    let tag = t.tag.as_deref().map(|b| PyBytes::new(py, b));
    let examples = t
        .examples
        .map(|ids| ids.iter().map(|s| text(s)).collect::<Vec<String>>());
    let out = (
        queries,
        t.in_run,
        t.columns,
        t.relstrings,
        tag,
        t.positive_grades,
        t.matching,
        examples,
        t.run_only,
    )
        .into_pyobject(py)?;
    Ok(out.into_any().unbind())
}

/// What `receval rank` reads from a TREC qrels file and run file (see
/// `crate::trec_eval::evaluate_users`): `specs` are the ranking kernel's, one per
/// metric and one per metric under `ties="average"` as the caller asks; `single`:
/// tied scores are those equal in single precision.
///
/// Returns `(queries, in_run, tied, columns, aux, run_size, matching)`: the qrels'
/// query ids in the qrels' order, whether the run holds each, whether its list holds
/// tied scores, one list of values per spec and one of auxiliary values (each query's
/// relevant documents), the run's queries and lines, and how the ids match (as
/// `trec_eval_table`). For a file the core does not evaluate as it is, returns
/// `"qrels"` or `"run"`, and reads `streams`, as `trec_eval_table` does.
#[pyfunction]
#[pyo3(signature = (qrels, run, specs, single, streams=(None, None)))]
fn trec_rank_table(
    py: Python<'_>,
    qrels: std::path::PathBuf,
    run: std::path::PathBuf,
    specs: Vec<Bound<'_, RankingSpec>>,
    single: bool,
    streams: Streams,
) -> PyResult<Py<PyAny>> {
    use crate::trec_eval::evaluate_users;
    let specs: Vec<Spec> = specs.iter().map(|s| s.get().0).collect();
    crate::pages::rearm();
    let files = (
        (qrels.as_path(), streams.0.as_ref()),
        (run.as_path(), streams.1.as_ref()),
    );
    let done = with_files(py, files, |q, r| evaluate_users(q, r, &specs, single))?;
    let t = match done {
        Err(refused) => return Ok(refused.into_pyobject(py)?.into_any().unbind()),
        Ok(t) => t,
    };
    let text = |s: &[u8]| String::from_utf8_lossy(s).into_owned(); // ids: UTF-8, checked
    let queries: Vec<String> = t.queries.iter().map(|s| text(s)).collect();
    let out = (
        queries, t.in_run, t.tied, t.columns, t.aux, t.run_size, t.matching,
    )
        .into_pyobject(py)?;
    Ok(out.into_any().unbind())
}

/// `compute` of the qrels and run files read, outside the interpreter's lock; or the
/// file the core does not take as it is (`"qrels"` or `"run"`), for the caller to
/// take over. Raises MemoryError when the memory of the
/// files' rows cannot be had, never aborting the process.
fn with_files<T: Send>(
    py: Python<'_>,
    files: (Source<'_>, Source<'_>),
    compute: impl FnOnce(&trec::Parsed, &trec::Parsed) -> Result<T, Refused> + Send,
) -> PyResult<Result<T, &'static str>> {
    let ((qrels, q_stream), (run, r_stream)) = files;
    let read = |(path, stream): Source<'_>, kind: Kind, which: &'static str| match read_source(
        path, stream, kind,
    ) {
        Ok(Ok(p)) => Ok(p),
        Err(_) | Ok(Err(_)) => Err(which),
    };
    let done = py.detach(|| {
        let q = read((qrels, q_stream), Kind::Qrels, "qrels").map_err(Ok)?;
        let r = read((run, r_stream), Kind::Run, "run").map_err(Ok)?;
        compute(&q, &r).map_err(|e| match e {
            Refused::Qrels => Ok("qrels"),
            Refused::Run => Ok("run"),
            Refused::Memory(e) => Err(e),
        })
    });
    match done {
        Ok(t) => Ok(Ok(t)),
        Err(Ok(declined)) => Ok(Err(declined)),
        Err(Err(e)) => Err(super::memory_error(
            e,
            &format!("the rows of {} and {}", run.display(), qrels.display()),
            "evaluate fewer queries at a time (both files split by query)",
        )),
    }
}

/// The binary file objects of the decompressed bytes of a qrels file and a run
/// file, each None where the core reads the file itself.
type Streams = (Option<Py<PyAny>>, Option<Py<PyAny>>);

/// A TREC file: its path, and the binary file object of its decompressed bytes
/// where the caller decompresses it.
type Source<'a> = (&'a std::path::Path, Option<&'a Py<PyAny>>);

/// The TREC text of `path` parsed, or of `stream` (the file's decompressed bytes)
/// when given; called outside the interpreter's lock.
fn read_source(
    path: &std::path::Path,
    stream: Option<&Py<PyAny>>,
    kind: Kind,
) -> std::io::Result<Result<trec::Parsed, TrecError>> {
    match stream {
        None => trec::read_file(path, kind),
        Some(stream) => trec::parse_reader(PyStream(stream), kind, trec::Sizes::default()),
    }
}

/// A Python binary file object read as `std::io::Read` (its `read(n)`, which
/// returns bytes), the interpreter's lock taken for each read; its errors are
/// `io::Error`s of their message.
struct PyStream<'a>(&'a Py<PyAny>);

impl std::io::Read for PyStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Python::attach(|py| {
            let mut read = || -> PyResult<usize> {
                let data = self.0.bind(py).call_method1("read", (buf.len(),))?;
                let data = data.cast::<PyBytes>()?.as_bytes();
                if data.len() > buf.len() {
                    return Err(PyValueError::new_err("read(n) returned more than n bytes"));
                }
                buf[..data.len()].copy_from_slice(data);
                Ok(data.len())
            };
            read().map_err(|e| std::io::Error::other(e.value(py).to_string()))
        })
    }
}

/// Add the reader to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::pages::rearm(); // the core's reserve of address space (pages::Guarded)
    m.add_function(wrap_pyfunction!(read_trec, m)?)?;
    m.add_function(wrap_pyfunction!(str_ranks, m)?)?;
    m.add_function(wrap_pyfunction!(trec_eval_table, m)?)?;
    m.add_function(wrap_pyfunction!(trec_rank_table, m)?)?;
    Ok(())
}
