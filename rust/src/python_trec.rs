//! Python bindings of the TREC reader (trec.rs).

use numpy::IntoPyArray;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::trec::{self, Kind, TrecError};

/// Read a TREC qrels (`kind="qrels"`) or run (`kind="run"`) file, gzip or not.
///
/// Returns `(True, user_codes, item_codes, user_ids, item_ids, values, tag)` with
/// int32 codes in order of first appearance, the distinct ids as lists of str,
/// int64 grades or float64 scores, and the first run tag (or None); or, for a file
/// that does not parse, `(False, what, line, fields, text)`: `what` is `"fields"`
/// (`fields` found, the line's `text` as bytes), `"number"` (`text`: the value) or
/// `"not_finite"` (`text`: the value's repr).
#[pyfunction]
fn read_trec(py: Python<'_>, path: std::path::PathBuf, kind: &str) -> PyResult<Py<PyAny>> {
    let kind = match kind {
        "qrels" => Kind::Qrels,
        "run" => Kind::Run,
        _ => return Err(PyValueError::new_err("kind must be 'qrels' or 'run'")),
    };
    let result = py.detach(|| trec::read_file(&path).map(|data| trec::parse(&data, kind)));
    let parsed = match result {
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
    let ids = |v: &[Vec<u8>]| -> PyResult<Bound<'_, PyList>> {
        PyList::new(
            py,
            v.iter().map(|s| String::from_utf8_lossy(s).into_owned()),
        )
    };
    let users: Vec<i32> = parsed.users.iter().map(|&u| u as i32).collect();
    let items: Vec<i32> = parsed.items.iter().map(|&i| i as i32).collect();
    let values = if kind == Kind::Qrels {
        parsed.grades.into_pyarray(py).into_any()
    } else {
        parsed.scores.into_pyarray(py).into_any()
    };
    let tag = parsed.tag.map(|t| String::from_utf8_lossy(&t).into_owned());
    let out = (
        true,
        users.into_pyarray(py),
        items.into_pyarray(py),
        ids(&parsed.user_ids)?,
        ids(&parsed.item_ids)?,
        values,
        tag,
    )
        .into_pyobject(py)?;
    Ok(out.into_any().unbind())
}

/// Add the reader to `receval._core`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_trec, m)?)?;
    Ok(())
}
