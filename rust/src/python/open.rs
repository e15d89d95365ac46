//! Binding of [`crate::ranking::open`]: the rows of a ranking accumulator held until
//! its end. Ids come in as an int64 array or a list of str; every code and offset is
//! checked before a row is added (a bad one raises `ValueError`, the rows unchanged).

use numpy::{IntoPyArray, Ix1, PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use super::{same_length, slice, FloatArray};
use crate::encode::MAX_IDS;
use crate::held::{Chunked, Ids, TooMany, Values, Widened};
use crate::ranking::open::OpenRows as Rows;

pub(super) fn too_many(_: TooMany) -> PyErr {
    PyValueError::new_err(format!("more than {} distinct ids", MAX_IDS))
}

/// Ids as given: an int64 array or a list of str (read, not yet coded).
pub(super) enum Given<'py> {
    Ints(PyReadonlyArray1<'py, i64>),
    Texts(Vec<Bound<'py, PyString>>),
}

/// Read `ids` (an int64 array or a list of str), or a `ValueError` naming them
/// (`what`: the argument, with its call where the caller's own message does not
/// name one).
pub(super) fn given<'py>(ids: &Bound<'py, PyAny>, what: &str) -> PyResult<Given<'py>> {
    if let Ok(a) = ids.extract::<PyReadonlyArray1<'py, i64>>() {
        slice(&a, what)?;
        return Ok(Given::Ints(a));
    }
    let list = ids.cast::<PyList>().map_err(|_| {
        PyValueError::new_err(format!("{what} must be an int64 array or a list of str"))
    })?;
    let mut out = Vec::with_capacity(list.len());
    for x in list.iter() {
        let s = x
            .cast_into_exact::<PyString>()
            .map_err(|_| PyValueError::new_err(format!("{what} must hold str only")))?;
        s.to_str()?; // UTF-8 (no lone surrogate)
        out.push(s);
    }
    Ok(Given::Texts(out))
}

impl Given<'_> {
    pub(super) fn len(&self) -> usize {
        match self {
            Given::Ints(a) => a.len().unwrap_or(0),
            Given::Texts(t) => t.len(),
        }
    }

    /// The codes of the ids in `table` (new ones for new ids).
    pub(super) fn codes(&self, table: &mut Ids) -> PyResult<Vec<u32>> {
        let out: Result<Vec<u32>, TooMany> = match self {
            Given::Ints(a) => a
                .as_slice()
                .unwrap_or(&[])
                .iter()
                .map(|&id| table.code_any_int(id))
                .collect(),
            Given::Texts(t) => t
                .iter()
                .map(|s| table.code_text(s.to_str().unwrap_or("").as_bytes()))
                .collect(),
        };
        out.map_err(too_many)
    }

    /// Code the ids into the empty `table`, or a `ValueError` naming them (`what`)
    /// unless they are distinct (each then takes its position as its code).
    pub(super) fn distinct_codes(&self, table: &mut Ids, what: &str) -> PyResult<()> {
        let codes = self.codes(table)?;
        if codes.iter().enumerate().any(|(i, &c)| c as usize != i) {
            return Err(PyValueError::new_err(format!("{what} must be distinct")));
        }
        Ok(())
    }
}

/// Values as held (float32 or float64) as a NumPy array.
pub(super) fn values_out<'py>(py: Python<'py>, values: &Values) -> Bound<'py, PyAny> {
    match values {
        Values::Single(v) => v.to_vec().into_pyarray(py).into_any(),
        Values::Double(v) => v.to_vec().into_pyarray(py).into_any(),
    }
}

/// Ids in code order: an int64 array, or the UCS-4 bytes of a str array and its width.
pub(super) fn ids_out<'py>(py: Python<'py>, ids: &Ids) -> PyResult<Bound<'py, PyAny>> {
    if !ids.strings() {
        return Ok(ids.ints().into_pyarray(py).into_any());
    }
    let texts: Vec<&str> = (0..ids.len())
        .map(|c| std::str::from_utf8(ids.text(c)).unwrap_or(""))
        .collect();
    let width = texts
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut out = vec![0u8; texts.len() * width * 4];
    for (i, t) in texts.iter().enumerate() {
        for (j, ch) in t.chars().enumerate() {
            let at = (i * width + j) * 4;
            out[at..at + 4].copy_from_slice(&(ch as u32).to_le_bytes());
        }
    }
    Ok((PyBytes::new(py, &out), width)
        .into_pyobject(py)?
        .into_any())
}

/// The rows of one side (qrels or run) of a ranking accumulator whose users may be
/// split across updates: an id table of users and one of items, and per row its
/// user and item codes and its value (f32 while every value is one exactly).
#[pyclass(name = "OpenRows", module = "receval._core")]
#[derive(Clone, Default)]
pub struct OpenRows {
    rows: Rows,
}

#[pymethods]
impl OpenRows {
    #[new]
    fn new() -> Self {
        OpenRows::default()
    }

    /// Add an update's rows given as a CSR over its users: `offsets` (n_users + 1),
    /// each row's item code (into `item_ids`) and value.
    fn add(
        &mut self,
        user_ids: &Bound<'_, PyAny>,
        item_ids: &Bound<'_, PyAny>,
        offsets: PyReadonlyArray1<'_, i64>,
        items: PyReadonlyArray1<'_, i32>,
        values: PyReadonlyArray1<'_, f64>,
    ) -> PyResult<()> {
        let (offsets, items) = (slice(&offsets, "offsets")?, slice(&items, "items")?);
        let values = slice(&values, "values")?;
        same_length(
            "OpenRows.add",
            &[("items", items.len()), ("values", values.len())],
        )?;
        let user_ids = given(user_ids, "OpenRows.add.user_ids")?;
        let item_ids = given(item_ids, "OpenRows.add.item_ids")?;
        let n_items = item_ids.len();
        let ok = offsets.len() == user_ids.len() + 1
            && offsets[0] == 0
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets[offsets.len() - 1] as usize == items.len()
            && items.iter().all(|&i| i >= 0 && (i as usize) < n_items)
            && values.iter().all(|v| v.is_finite());
        if !ok {
            return Err(PyValueError::new_err(
                "OpenRows.add: offsets must run from 0 to len(items) over the users, item codes \
                 lie in [0, len(item_ids)) and values be finite",
            ));
        }
        let rows = &mut self.rows;
        let users = user_ids.codes(&mut rows.users)?;
        let item_codes = item_ids.codes(&mut rows.items)?;
        let items: Vec<u32> = items.iter().map(|&i| item_codes[i as usize]).collect();
        let per_row = offsets
            .windows(2)
            .zip(&users)
            .flat_map(|(w, &u)| std::iter::repeat_n(u, (w[1] - w[0]) as usize));
        rows.push(per_row, &items, values);
        Ok(())
    }

    /// Add another's rows after these (its ids coded in these tables).
    fn absorb(&mut self, other: PyRef<'_, OpenRows>) -> PyResult<()> {
        self.rows.absorb(&other.rows).map_err(too_many)
    }

    /// A copy.
    fn copy(&self) -> OpenRows {
        self.clone()
    }

    /// Bytes held.
    #[getter]
    fn memory_bytes(&self) -> usize {
        self.rows.memory_bytes()
    }

    /// Rows held.
    #[getter]
    fn n_rows(&self) -> usize {
        self.rows.user.len()
    }

    /// Users held (with rows or not).
    #[getter]
    fn n_users(&self) -> usize {
        self.rows.users.len()
    }

    /// The user ids in code order (see `ids_out`).
    fn user_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ids_out(py, &self.rows.users)
    }

    /// The item ids in code order.
    fn item_ids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        ids_out(py, &self.rows.items)
    }

    /// Each row's user code, item code and value (float32 or float64), as held.
    #[allow(clippy::type_complexity)]
    fn rows<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyAny>,
    ) {
        (
            self.rows.user.to_vec().into_pyarray(py),
            self.rows.item.to_vec().into_pyarray(py),
            values_out(py, &self.rows.values),
        )
    }

    /// The rows grouped by user: the users' codes in order (first row, then those
    /// without rows), CSR offsets, each position's item code and value.
    #[allow(clippy::type_complexity)]
    fn grouped<'py>(
        &self,
        py: Python<'py>,
    ) -> (
        Bound<'py, PyArray1<u32>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i32>>,
        Bound<'py, PyArray1<f64>>,
    ) {
        let g = py.detach(|| self.rows.grouped());
        (
            g.order.into_pyarray(py),
            g.offsets.into_pyarray(py),
            g.items.into_pyarray(py),
            g.values.into_pyarray(py),
        )
    }

    /// Rows from the arrays of `user_ids`, `item_ids` and `rows`: the ids must be
    /// distinct, the codes in range and the values finite.
    #[staticmethod]
    fn from_rows(
        user_ids: &Bound<'_, PyAny>,
        item_ids: &Bound<'_, PyAny>,
        users: PyReadonlyArray1<'_, u32>,
        items: PyReadonlyArray1<'_, u32>,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<OpenRows> {
        let mut rows = Rows::default();
        for (table, ids, name) in [
            (&mut rows.users, user_ids, "user_ids"),
            (&mut rows.items, item_ids, "item_ids"),
        ] {
            given(ids, name)?.distinct_codes(table, name)?;
        }
        let (users, items) = (slice(&users, "users")?, slice(&items, "items")?);
        let (nu, ni) = (rows.users.len(), rows.items.len());
        if users.iter().any(|&u| u as usize >= nu) || items.iter().any(|&i| i as usize >= ni) {
            return Err(PyValueError::new_err(
                "users and items must be codes in [0, len(user_ids)) and [0, len(item_ids))",
            ));
        }
        let mut values = match FloatArray::<Ix1>::of(values) {
            Some(FloatArray::F32(a)) => {
                let mut v = Chunked::default();
                v.extend(slice(&a, "values")?.iter().copied());
                Values::Single(v)
            }
            Some(FloatArray::F64(a)) => {
                Values::Double(Widened::new(slice(&a, "values")?.iter().copied()))
            }
            None => {
                return Err(PyValueError::new_err(
                    "OpenRows.from_rows.values must be a float32 or float64 array",
                ))
            }
        };
        same_length(
            "OpenRows.from_rows",
            &[
                ("users", users.len()),
                ("items", items.len()),
                ("values", values.len()),
            ],
        )?;
        let finite = match &values {
            Values::Single(v) => v.iter().all(|x| x.is_finite()),
            Values::Double(v) => v.iter().all(|x: f64| x.is_finite()),
        };
        if !finite {
            return Err(PyValueError::new_err("values must be finite"));
        }
        rows.user.extend(users.iter().copied());
        rows.item.extend(items.iter().copied());
        rows.values = std::mem::take(&mut values);
        Ok(OpenRows { rows })
    }
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<OpenRows>()
}
