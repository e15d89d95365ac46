"""The ``key=value`` directories above the files of a Parquet scan (hive partitions,
as Spark and ``pyarrow.dataset`` write them), read as columns without
``pyarrow.dataset`` (it imports pandas, 0.2 s): a key's values URI-decoded, Hive's
default partition a null; its type int32 when every value is a 32-bit integer
written in its one decimal form (``7``, ``-12``, ``0``), int64 when every value is
such a 64-bit integer and one is past int32, else string, every value as written.
``pyarrow.dataset`` reads ``user=007`` and ``user=7`` as one user 7 and
``user=99999999999`` as text; here no two directories' values merge and no integer
changes."""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._arrow import to_arrow

#: the directory name of a partition whose value is null
NULL = "__HIVE_DEFAULT_PARTITION__"
#: an integer in its one decimal form: no leading zero, no "+", no "-0"
_INTEGER = re.compile(r"0|-?[1-9][0-9]*")


def partition(name: str) -> tuple[str, str] | None:
    """A directory name's key and value (as written) when it names a partition
    (``key=value``), else None."""
    key, equals, value = name.partition("=")
    return (key, value) if equals else None


def directory_keys(path: str, base: str) -> dict[str, str | None]:
    """The ``key=value`` pairs of the directories between ``base`` and the file
    ``path``, outermost first (other directories are not partitions)."""
    keys: dict[str, str | None] = {}
    for part in os.path.relpath(os.path.dirname(path), base).split(os.sep):
        if (pair := partition(part)) is not None:
            text = urllib.parse.unquote(pair[1])
            keys[pair[0]] = None if text == NULL else text
    return keys


def key_types(files: list[dict[str, str | None]]) -> dict[str, Any]:
    """The Arrow type of each key of the files' directories (in order of first
    appearance): int32 when every value is an integer in its one decimal form
    (``7``, not ``007`` nor ``+7``) that int32 holds, int64 when int64 holds them
    all, else string (every value as written, so that ``007`` and ``7`` stay two).

    Examples
    --------
    >>> key_types([{"a": "7", "b": "7", "c": "7"}, {"a": "8", "b": "007", "c": "2" * 11}])
    {'a': DataType(int32), 'b': DataType(string), 'c': DataType(int64)}
    """
    import pyarrow as pa

    values: dict[str, list[str]] = {}
    for keys in files:
        for key, value in keys.items():
            values.setdefault(key, []).extend(() if value is None else (value,))
    return {key: _key_type(texts, pa) for key, texts in values.items()}


def _key_type(texts: list[str], pa: Any) -> Any:
    """:func:`key_types` of one key's values (``pa``: the pyarrow module)."""
    if not all(_INTEGER.fullmatch(text) for text in texts):
        return pa.string()
    for kind in (np.int32, np.int64):
        info = np.iinfo(kind)
        if all(info.min <= int(text) <= info.max for text in texts):
            return pa.from_numpy_dtype(kind)
    return pa.string()


def typed(keys: dict[str, str | None], types: dict[str, Any]) -> dict[str, Any]:
    """The values of a file's keys in their types (ints for int32 and int64)."""
    import pyarrow as pa

    def value(key: str, text: str | None) -> Any:
        return int(text) if text is not None and pa.types.is_integer(types[key]) else text

    return {key: value(key, text) for key, text in keys.items()}


def repeated(value: Any, kind: Any, n: int) -> Any:
    """An Arrow array of ``n`` times ``value`` (of Arrow type ``kind``: int32, int64
    or string; None: nulls)."""
    import pyarrow as pa

    if value is None:
        return pa.nulls(n, type=kind)
    dtype = {pa.int32(): np.int32, pa.int64(): np.int64}.get(kind, object)
    one = to_arrow(np.array([value], dtype=dtype))
    return pa.repeat(one[0], n)


def with_keys(
    data: Any, keys: dict[str, Any], types: dict[str, Any], columns: Sequence[str] | None
) -> Any:
    """A file's rows with the keys of its directories as columns.

    Parameters
    ----------
    data : pyarrow.RecordBatch or pyarrow.Table
        The rows, of the columns the file holds itself.
    keys : dict
        The file's keys and their values (:func:`typed`).
    types : dict
        Every key of the scan's directories and its Arrow type (:func:`key_types`).
    columns : sequence of str or None
        The columns to give, in order: those of ``data`` or keys; None: those of
        ``data``, then every key of ``types`` it lacks (null where the file's
        directories lack it, as ``pyarrow.dataset`` reads it).

    Returns
    -------
    rows : pyarrow.RecordBatch or pyarrow.Table
        Of the type of ``data``; each key's value repeated on every row.

    Examples
    --------
    >>> import pyarrow as pa
    >>> rows = pa.table({"user": [1, 2]})
    >>> types = {"day": pa.int32(), "country": pa.string()}
    >>> with_keys(rows, {"day": 3}, types, None).to_pydict()
    {'user': [1, 2], 'day': [3, 3], 'country': [None, None]}
    >>> with_keys(rows, {"day": 3}, types, ["day", "user"]).to_pydict()
    {'day': [3, 3], 'user': [1, 2]}
    """
    own = list(data.schema.names)
    names = own + [k for k in types if k not in own] if columns is None else list(columns)
    if names == own:
        return data
    n = data.num_rows
    return type(data).from_arrays(
        [data.column(c) if c in own else repeated(keys.get(c), types[c], n) for c in names],
        names=names,
    )
