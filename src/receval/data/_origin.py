"""Where the rows of a batch of a scan come from, and the errors that name them.

A :class:`Batch` of :meth:`receval.data.scan.Scan.batches` carries the
:class:`Origin` of its rows (which rows of which file); a metric that prepares
or adds a batch inside :func:`located` has its data errors start with the file
and row (a CSV or TSV file's line), as the file readers name them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..exceptions import InputValidationError

__all__ = ["Batch", "Origin", "located"]


@dataclass(frozen=True)
class Origin:
    """Where the rows of a batch come from, for messages: runs of consecutive rows
    of files, in order, as ``(path, first row in the file (0-based), rows)``.

    ``lines``: the files are CSV/TSV text, whose rows are named by their line.
    """

    pieces: tuple[tuple[str, int, int], ...]
    lines: bool

    def __len__(self) -> int:
        return sum(n for _, _, n in self.pieces)

    def __add__(self, other: Origin) -> Origin:
        pieces = list(self.pieces)
        for path, first, n in other.pieces:
            if pieces and pieces[-1][0] == path and sum(pieces[-1][1:]) == first:
                pieces[-1] = (path, pieces[-1][1], pieces[-1][2] + n)  # one run of rows
            elif n:
                pieces.append((path, first, n))
        return Origin(tuple(pieces), self.lines)

    def slice(self, start: int, stop: int) -> Origin:
        """The origin of rows ``start:stop`` of the batch."""
        pieces, at = [], 0
        for path, first, n in self.pieces:
            lo, hi = max(start - at, 0), min(stop - at, n)
            if lo < hi:
                pieces.append((path, first + lo, hi - lo))
            at += n
        return Origin(tuple(pieces), self.lines)

    def paths(self) -> list[str]:
        """The files the rows come from, in order."""
        return list(dict.fromkeys(path for path, _, _ in self.pieces))

    def locate(self, row: int | None) -> tuple[str, int | None]:
        """``(place, row in its file)`` of row ``row`` of the batch (None: unknown):
        ``path:line`` (CSV, TSV), ``path: row N`` (Parquet), or the file(s)."""
        from ._open import place

        path, file_row = self.find(row)
        return place(path, file_row, lines=self.lines), file_row

    def find(self, row: int | None) -> tuple[str, int | None]:
        """``(file, row in it)`` of row ``row`` of the batch (0-based), or the file(s)
        and None where the row is not known."""
        at = 0
        for path, first, n in self.pieces:
            if row is not None and at <= row < at + n:
                return path, first + row - at
            at += n
        return " and ".join(self.paths()), None


class Batch(dict):  # type: ignore[type-arg]
    """Columns of a batch of a scan, ``{name: array}``, with the :class:`Origin` of
    its rows."""

    __slots__ = ("origin",)

    def __init__(self, columns: Mapping[str, Any], origin: Origin) -> None:
        super().__init__(columns)
        self.origin = origin

    def slice(self, start: int, stop: int | None = None) -> Batch:
        """Rows ``start:stop`` of every column."""
        stop = len(self.origin) if stop is None else stop
        return Batch({c: a[start:stop] for c, a in self.items()}, self.origin.slice(start, stop))


@contextmanager
def located(batch: Batch, pair: tuple[str, str] | None = None) -> Iterator[None]:
    """Put the file (and the row, where the check knows it) in front of the data
    errors raised while a metric prepares or adds a batch of a scan.

    The error keeps its type; its ``row`` becomes the row within the file
    (0-based). ``pair``: the user and item columns, to find the row where a
    repeated (user, item) pair comes again.
    """
    from ._open import file_error

    try:
        yield
    except InputValidationError as exc:
        if any(path in str(exc) for path in batch.origin.paths()):
            raise
        row = exc.row
        if row is None and exc.pair is not None and pair is not None:
            row = _second_row(batch, pair, exc.pair)
        path, file_row = batch.origin.find(row)
        moved = exc if row is None or file_row is None else exc.moved(file_row - row)
        where, said = file_error(moved, path, file_row, lines=batch.origin.lines)
        error = type(exc)(f"{where}: {said}")
        error.row, error.pair = file_row, exc.pair
        raise error from exc


def _second_row(batch: Batch, columns: tuple[str, str], pair: tuple[object, object]) -> int | None:
    """The row of the batch where the (user, item) ``pair`` appears the second time."""
    users, items = (_as_list(batch[c]) for c in columns)
    rows = [i for i, ids in enumerate(zip(users, items, strict=True)) if ids == tuple(pair)]
    return rows[1] if len(rows) > 1 else None


def _as_list(column: Any) -> list[Any]:
    values: list[Any] = column.tolist() if hasattr(column, "tolist") else column.to_pylist()
    return values
