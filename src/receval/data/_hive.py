"""The ``key=value`` directories above the files of a Parquet scan (hive partitions,
as Spark and ``pyarrow.dataset`` write them), read as columns the way
``pyarrow.dataset`` reads them, without it (it imports pandas, 0.2 s): a key's values
URI-decoded, Hive's default partition a null, and its type int32 when every value is
a 32-bit integer, else string."""

from __future__ import annotations

import os
import re
import urllib.parse
from typing import Any

import numpy as np

from ._arrow import to_arrow

#: the directory name of a partition whose value is null
NULL = "__HIVE_DEFAULT_PARTITION__"
_INTEGER = re.compile(r"-?[0-9]+")


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
    appearance): int32 when every value is a 32-bit integer, else string."""
    import pyarrow as pa

    values: dict[str, list[str]] = {}
    for keys in files:
        for key, value in keys.items():
            values.setdefault(key, []).extend(() if value is None else (value,))
    return {
        key: pa.int32() if all(map(_int32, texts)) else pa.string() for key, texts in values.items()
    }


def _int32(text: str) -> bool:
    return _INTEGER.fullmatch(text) is not None and -(2**31) <= int(text) < 2**31


def typed(keys: dict[str, str | None], types: dict[str, Any]) -> dict[str, Any]:
    """The values of a file's keys in their types (ints for int32)."""
    import pyarrow as pa

    def value(key: str, text: str | None) -> Any:
        return int(text) if text is not None and types[key] == pa.int32() else text

    return {key: value(key, text) for key, text in keys.items()}


def repeated(value: Any, kind: Any, n: int) -> Any:
    """An Arrow array of ``n`` times ``value`` (of Arrow type ``kind``: int32 or
    string; None: nulls)."""
    import pyarrow as pa

    if value is None:
        return pa.nulls(n, type=kind)
    one = to_arrow(np.array([value], dtype=np.int32 if kind == pa.int32() else object))
    return pa.repeat(one[0], n)
