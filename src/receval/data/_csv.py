"""Reading the named columns of a CSV or TSV file, id columns of integers as int64."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_has_columns
from ._open import arrow_input

__all__ = ["read_csv"]

#: pyarrow's default CSV block (1 MiB): a row must fit in one block
_CSV_BLOCK = 1 << 20


def read_csv(path: str, columns: Sequence[str], fmt: str, id_columns: Sequence[str]) -> Any:
    """The named columns of a CSV/TSV file; only they are converted (a wide file's
    other columns are skipped), and a row longer than a block (a field of several
    MiB) retries with blocks large enough. An id column (``id_columns``) is int64
    when every id is an integer written as its digits, else strings
    (:func:`_integer_ids`)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    parse = pcsv.ParseOptions(delimiter="\t" if fmt == "tsv" else ",")
    block = _CSV_BLOCK
    while True:
        read = pcsv.ReadOptions(block_size=block)
        try:
            with arrow_input(path) as stream:
                reader = pcsv.open_csv(stream, read_options=read, parse_options=parse)
                check_has_columns(path, columns, reader.schema.names)
            convert = pcsv.ConvertOptions(
                column_types={c: pa.string() for c in id_columns if c in columns},
                include_columns=list(columns),
            )
            with arrow_input(path) as stream:
                return _with_integer_ids(  # the table is its own: its strings go as cast
                    pcsv.read_csv(
                        stream, read_options=read, parse_options=parse, convert_options=convert
                    ),
                    [c for c in id_columns if c in columns],
                )
        except pa.ArrowInvalid as exc:
            # a row (or the header) longer than the block: grow it, up to the file
            if "straddling" not in str(exc) or block >= max(os.path.getsize(path), 1) * 4:
                raise
            block *= 8


def _with_integer_ids(table: Any, id_columns: Sequence[str]) -> Any:
    """``table`` with each of its string ``id_columns`` that holds only canonical
    integers (:func:`_integer_ids`) as int64; the others as they are."""
    import pyarrow as pa

    for name in dict.fromkeys(id_columns):
        at = table.schema.get_field_index(name)
        if not pa.types.is_string(table.schema.field(at).type):
            continue
        chunks = table.column(at).chunks
        table = table.remove_column(at)  # the column's strings go as they are cast
        table = table.add_column(at, name, _integer_ids(chunks))
    return table


def _integer_ids(chunks: list[Any]) -> Any:
    """The string chunks of a CSV id column (no nulls) as one int64 column when
    every id is an integer in its canonical decimal spelling (``0``, or an optional
    ``-`` and digits not starting with ``0``, within int64), else as strings: ids
    such as ``007``, ``+7``, ``-0``, ``7.0``, `` 7`` or ``0x7`` keep their spelling.

    The chunks are cast one at a time and each is let go of once cast (``chunks``
    is emptied), so the column is never held twice; a column found not to hold
    integers gets the strings of the chunks cast already back (their canonical
    spelling is their text).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    ints: list[Any] = []
    zero, minus, plus = ord("0"), ord("-"), ord("+")
    chunks.reverse()  # popped from the end, in order
    while chunks:
        chunk = chunks[-1]
        canonical = True
        if len(chunk):
            offsets = np.frombuffer(chunk.buffers()[1], np.int32, len(chunk) + 1, 4 * chunk.offset)
            lengths = offsets[1:] - offsets[:-1]
            canonical = bool(lengths.all())  # an empty id is a string
        if len(chunk) and canonical:
            data = _bytes_of(chunk.buffers()[2])
            starts = offsets[:-1]
            first = data[starts]
            long = lengths > 1
            # Arrow's cast takes '007', '-0' and hexadecimal '0x7' as numbers too: a
            # leading '+', or a leading '0' (after a '-' too) that is not the whole
            # id, is a spelling an int would lose ('-' alone fails the cast)
            negative = np.flatnonzero(long & (first == minus))
            canonical = not (
                (first == plus).any()
                or (long & (first == zero)).any()
                or (data[starts[negative] + 1] == zero).any()
            )
        try:
            cast = pc.cast(chunk, pa.int64()) if canonical else None
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            cast = None
        if cast is None:
            chunks.reverse()
            strings = [pc.cast(i, pa.string()) for i in ints]
            return pa.chunked_array(strings + chunks, pa.string())
        ints.append(cast)
        chunks.pop()
        del chunk
    return pa.chunked_array(ints, pa.int64())


def _bytes_of(buffer: Any) -> np.ndarray:
    """An Arrow buffer as a NumPy view of its bytes (empty for no buffer)."""
    return np.empty(0, np.uint8) if buffer is None else np.frombuffer(buffer, np.uint8)
