"""Matrices of embeddings read block by block of rows, as float32.

A matrix is a NumPy array (a ``np.memmap`` too), the path of a ``.npy`` file (read
block by block from disk, only the block in memory), a torch tensor (bfloat16 too: each block is
converted on its own), a JAX or CuPy array (through DLPack: one on a GPU copied to
the host whole), an Arrow fixed-size-list array or column, or a Parquet
file with one fixed-size-list column, read in batches. Every block comes back as
a C-contiguous float32 array: float16 and bfloat16 values are exact in float32,
and integers of magnitude up to 2**24 (larger ones, which float32 would round,
are refused); float64 values are rounded to it (the scores are float32 products).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._parameters import counted
from ..data._arrow import take_at, to_numpy
from ..data._open import sentence
from ..engine.loop.tensors import on_host
from ..exceptions import InputValidationError

__all__ = ["Vectors", "as_vectors"]

#: The largest magnitude up to which float32 holds every integer.
EXACT_INTEGER = 2**24


class Vectors:
    """A matrix of ``n_rows`` vectors of ``dim`` numbers, read by blocks of rows."""

    def __init__(self, name: str, func: str, n_rows: int, dim: int) -> None:
        self.name, self.func = name, func
        self.n_rows, self.dim = n_rows, dim

    def _read(self, start: int, stop: int) -> Any:  # pragma: no cover - each kind has its own
        raise NotImplementedError

    def blocks(self, size: int, unit: bool = False) -> Iterator[tuple[int, np.ndarray]]:
        """``(first row, rows)`` of consecutive blocks of at most ``size`` rows (scaled
        to unit length with ``unit``: a cosine's)."""
        for start in range(0, self.n_rows, size):
            stop = min(start + size, self.n_rows)
            yield start, self._checked(start, self._read(start, stop), unit=unit)

    def take(self, rows: np.ndarray, unit: bool = False) -> np.ndarray:
        """The given rows (any order, repeats allowed) as float32 (as ``blocks``)."""
        raise InputValidationError(
            f"{self.func}: candidates need {self.name} that can be read row by row (an array, "
            f"a memmap, a tensor or an Arrow array). Got a Parquet file; load it first."
        )

    def _checked(self, start: int, block: Any, rows: Any = None,
                 unit: bool = False) -> np.ndarray:  # fmt: skip
        """``block`` (rows from ``start``, or the given ``rows``) as float32, checked,
        scaled to unit length with ``unit``."""
        block = np.asarray(block)
        if block.dtype.kind in "iu" and block.size:
            self._check_exact(start, block, rows)
        with np.errstate(over="ignore"):  # a value beyond float32's range raises below
            out = np.ascontiguousarray(block, dtype=np.float32)
        finite = np.isfinite(out).all(axis=1)
        if not finite.all():
            i = int(np.flatnonzero(~finite)[0])
            row = start + i if rows is None else int(rows[i])
            wide = block.dtype.kind == "f" and block.dtype.itemsize > 4
            if wide and np.isfinite(block[i]).all():
                largest = float(np.abs(block[i]).max())
                raise InputValidationError(
                    f"{self.func}: {self.name} must hold values within float32's range "
                    f"(magnitudes up to 3.4e38). Got {largest:.3g} in row {row}; scale the "
                    f"vectors down (a cosine does not change)."
                )
            raise InputValidationError(
                f"{self.func}: {self.name} contains NaN or infinity (row {row})."
            )
        return self._unit(out, block, start, rows) if unit else out

    def _unit(self, out: np.ndarray, block: np.ndarray, start: int, rows: Any) -> np.ndarray:
        """Rows scaled to unit length (cosine); a zero vector has no direction. The
        norms are taken in float64, where the squares of float32 values neither
        underflow nor overflow (``[1e-30, 1e-30]`` has a norm, as has ``[1e30, 1e30]``)."""
        wide = np.asarray(out, dtype=np.float64)
        norms = np.sqrt(np.einsum("ij,ij->i", wide, wide))
        if not norms.all():
            i = int(np.flatnonzero(norms == 0)[0])
            row = start + i if rows is None else int(rows[i])
            if block[i].any():  # not zero as given: too small for float32
                largest = float(np.abs(block[i].astype(np.float64)).max())
                raise InputValidationError(
                    f"{self.func}: row {row} of {self.name} underflows to a zero vector in "
                    f"float32 (its largest magnitude is {largest:.3g}), whose cosine is "
                    f"undefined; scale the vectors up (a cosine does not change), e.g. "
                    f"divide each row by its largest magnitude."
                )
            raise InputValidationError(
                f"{self.func}: row {row} of {self.name} is a zero vector, whose cosine is "
                f"undefined; use metric='dot' or drop it."
            )
        return np.ascontiguousarray(wide / norms[:, None], dtype=np.float32)

    def _no_null_vector(self, a: Any, start: int) -> None:
        """An error for a null vector of an Arrow array (rows from ``start``)."""
        if a.null_count:
            import pyarrow.compute as pc

            row = start + int(np.flatnonzero(np.asarray(pc.is_null(a)))[0])
            raise InputValidationError(
                f"{self.func}: {self.name} must have a vector in every row. Got "
                f"{counted(a.null_count, 'null vector')}, the first in row {row}; drop those rows "
                f"or give them vectors."
            )

    def _values(self, a: Any, start: int, rows: Any = None) -> np.ndarray:
        """The numbers of a (chunked) fixed-size-list array without a null vector, as
        rows of ``dim``; an error for a null number (rows from ``start``, or ``rows``)."""
        import pyarrow as pa

        if isinstance(a, pa.ChunkedArray):
            a = a.combine_chunks()
        flat = a.flatten()
        if flat.null_count:
            import pyarrow.compute as pc

            i = int(np.flatnonzero(np.asarray(pc.is_null(flat)))[0]) // self.dim
            row = start + i if rows is None else int(rows[i])
            raise InputValidationError(
                f"{self.func}: {self.name} must hold a number in every place. Got a null "
                f"in row {row}; fill it (e.g. pc.fill_null) or drop the row."
            )
        return np.asarray(to_numpy(flat)).reshape(len(a), self.dim)

    def _check_exact(self, start: int, block: np.ndarray, rows: Any) -> None:
        """An error for integers that float32 would round (beyond 2**24)."""
        far = (block > EXACT_INTEGER) | (block < -EXACT_INTEGER)
        if far.any():
            i = int(np.flatnonzero(far.any(axis=1))[0])
            row = start + i if rows is None else int(rows[i])
            largest = max(int(block.max()), -int(block.min()))
            raise InputValidationError(
                f"{self.func}: {self.name} must hold integers of magnitude at most 2**24 "
                f"({EXACT_INTEGER}), which float32 holds exactly. Got {largest} (first in row "
                f"{row}); scale them down, or convert them to float32 (rounded) yourself."
            )


class _Array(Vectors):
    """A NumPy array (a memmap too), or an ml_dtypes bfloat16 one."""

    def __init__(self, a: np.ndarray, name: str, func: str) -> None:
        kind = a.dtype.kind
        if not (kind in "fiu" or a.dtype.name == "bfloat16"):
            rows = kind == "O" and a.ndim == 1 and a.size > 0 and np.ndim(a[0]) == 1
            fix = (
                ", one array per row; stack them into a matrix first, e.g. "
                "np.stack(series.to_numpy()) for a pandas Series of arrays"
                if rows
                else ""
            )
            raise InputValidationError(
                f"{func}: {name} must hold numbers (float32, float16, bfloat16, float64 or "
                f"integers). Got dtype {a.dtype}{fix}."
            )
        super().__init__(name, func, *_shape(a.shape, name, func))
        self.a = a

    def _read(self, start: int, stop: int) -> Any:
        return self.a[start:stop]

    def take(self, rows: np.ndarray, unit: bool = False) -> np.ndarray:
        return self._checked(0, self.a[rows], rows, unit)


class _NpyFile(Vectors):
    """A ``.npy`` file read block by block with plain reads: only the block is in
    memory (a memmap would keep every page it touched mapped in the process)."""

    def __init__(self, path: str, name: str, func: str) -> None:
        with open(path, "rb") as fh:
            fmt = np.lib.format
            try:
                version = fmt.read_magic(fh)
                read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                shape, fortran, dtype = read(fh)
            except ValueError as exc:  # NumPy's: not a .npy file, or its header cut short
                raise InputValidationError(
                    f"{func}: {name} file {path!r} is not a .npy file as numpy.save writes "
                    f"one: {sentence(exc)} Write the vectors with numpy.save, or pass a "
                    f"Parquet file."
                ) from None
            self.offset = fh.tell()
        self.path, self.dtype = path, np.dtype(dtype)
        _Array(np.empty((0, 1), dtype=self.dtype), name, func)  # the same dtype check
        super().__init__(name, func, *_shape(tuple(shape), name, func))
        self.fortran = bool(fortran)
        needed = self.offset + self.n_rows * self.dim * self.dtype.itemsize
        size = os.path.getsize(path)
        if size < needed:  # a block past its end would come back short, or fail to reshape
            raise InputValidationError(
                f"{func}: {name} file {path!r} is cut short: its header announces "
                f"{self.n_rows} x {self.dim} {self.dtype} values ({needed} bytes with the "
                f"header), and it has {size} bytes; write the file again (numpy.save)."
            )

    def _read(self, start: int, stop: int) -> Any:
        if self.fortran:  # column-major: rows are not contiguous on disk
            return np.load(self.path, mmap_mode="r")[start:stop]
        row = self.dim * self.dtype.itemsize
        count = (stop - start) * self.dim
        block = np.fromfile(self.path, dtype=self.dtype, count=count,
                            offset=self.offset + start * row)  # fmt: skip
        return block.reshape(stop - start, self.dim)

    def take(self, rows: np.ndarray, unit: bool = False) -> np.ndarray:
        return self._checked(0, np.load(self.path, mmap_mode="r")[rows], rows, unit)


class _Tensor(Vectors):
    """A torch tensor, converted to float32 on the host block by block."""

    def __init__(self, t: Any, name: str, func: str) -> None:
        if t.device.type == "meta":
            raise InputValidationError(
                f"{func}: {name} is a tensor on the device 'meta', which holds no values; "
                f"pass a tensor that holds its values (on the CPU or a GPU)."
            )
        super().__init__(name, func, *_shape(tuple(t.shape), name, func))
        self.t = t.detach()

    def _read(self, start: int, stop: int) -> Any:
        return _host(self.t[start:stop])

    def take(self, rows: np.ndarray, unit: bool = False) -> np.ndarray:
        torch = sys.modules["torch"]
        index = torch.from_numpy(np.asarray(rows, dtype=np.int64)).to(self.t.device)
        return self._checked(0, _host(self.t[index]), rows, unit)


def _host(t: Any) -> np.ndarray:
    """Rows of a tensor on the host: floats as float32 (NumPy has no bfloat16),
    integers as they are (checked before they become float32)."""
    torch = sys.modules["torch"]
    t = t.to(device="cpu")
    out: np.ndarray = (t.to(dtype=torch.float32) if t.is_floating_point() else t).numpy()
    return out


class _Arrow(Vectors):
    """An Arrow fixed-size-list array or chunked array (one row per vector)."""

    def __init__(self, a: Any, name: str, func: str) -> None:
        import pyarrow as pa

        if isinstance(a, pa.Table):
            a = _one_column(a.schema, name, func, a)
        dim = _list_size(a.type, name, func)
        super().__init__(name, func, len(a), dim)
        self._no_null_vector(a, 0)  # at once: the metadata counts them
        self.a = a

    def _read(self, start: int, stop: int) -> Any:
        return self._values(self.a.slice(start, stop - start), start)

    def take(self, rows: np.ndarray, unit: bool = False) -> np.ndarray:
        rows = np.asarray(rows, np.int64)
        return self._checked(0, self._values(take_at(self.a, rows), 0, rows), rows, unit)


class _Parquet(Vectors):
    """A Parquet file with one fixed-size-list column, read in batches (never whole)."""

    def __init__(self, path: str, name: str, func: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            self.file = pq.ParquetFile(path)
        except (pa.ArrowException, OSError) as exc:  # not Parquet, empty, cut short
            raise InputValidationError(
                f"{func}: {name} file {path!r} is not a Parquet file: {sentence(exc)} Write "
                f"the vectors with pyarrow.parquet.write_table (one fixed-size-list column), "
                f"or pass a .npy file."
            ) from None
        schema = self.file.schema_arrow
        self.column = _one_column(schema, name, func, None)
        dim = _list_size(schema.field(self.column).type, name, func)
        super().__init__(name, func, self.file.metadata.num_rows, dim)

    def blocks(self, size: int, unit: bool = False) -> Iterator[tuple[int, np.ndarray]]:
        start = 0
        for batch in self.file.iter_batches(batch_size=size, columns=[self.column]):
            column = batch.column(0)
            self._no_null_vector(column, start)
            yield start, self._checked(start, self._values(column, start), unit=unit)
            start += len(column)


def _shape(shape: tuple[int, ...], name: str, func: str) -> tuple[int, int]:
    if len(shape) != 2:
        raise InputValidationError(
            f"{func}: {name} must be a 2-D matrix (one row per vector). Got shape {tuple(shape)}."
        )
    if shape[1] == 0:
        raise InputValidationError(f"{func}: {name} has vectors of length 0.")
    return int(shape[0]), int(shape[1])


def _one_column(schema: Any, name: str, func: str, table: Any) -> Any:
    """The only column of a table or file (its name for a file, the column for a table)."""
    if len(schema.names) != 1:
        raise InputValidationError(
            f"{func}: {name} must have exactly one column, of fixed-size lists. Got columns "
            f"{schema.names[:5]}; select the vector column first."
        )
    return schema.names[0] if table is None else table.column(0)


def _list_size(t: Any, name: str, func: str) -> int:
    import pyarrow as pa

    if not pa.types.is_fixed_size_list(t) or not (
        pa.types.is_floating(t.value_type) or pa.types.is_integer(t.value_type)
    ):
        raise InputValidationError(
            f"{func}: {name} must be fixed-size lists of numbers. Got type {t}; cast it, e.g. "
            f"to pa.list_(pa.float32(), dim)."
        )
    if t.list_size == 0:
        raise InputValidationError(f"{func}: {name} has vectors of length 0.")
    return int(t.list_size)


def as_vectors(data: Any, name: str, func: str) -> Vectors:
    """``data`` as a :class:`Vectors`; an ``InputValidationError`` naming ``name``."""
    if isinstance(data, Vectors):
        return data
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        if not os.path.exists(path):
            raise InputValidationError(f"{func}: {name} file {path!r} does not exist.")
        if path.endswith(".npy"):
            return _NpyFile(path, name, func)
        if path.endswith((".parquet", ".pq")):
            return _Parquet(path, name, func)
        raise InputValidationError(f"{func}: {name} must be a .npy or .parquet file. Got {path!r}.")
    module = type(data).__module__
    if module.startswith("torch") and hasattr(data, "detach"):
        return _Tensor(data, name, func)
    if module.startswith("pyarrow"):
        return _Arrow(data, name, func)
    if isinstance(data, np.ndarray):
        return _Array(data, name, func)
    if hasattr(data, "__dlpack__") and hasattr(data, "__dlpack_device__"):  # JAX, CuPy
        return _Array(on_host(data, func, name), name, func)  # one on a GPU copied to the host
    if hasattr(data, "__array__") or isinstance(data, (list, tuple)):
        try:
            array = np.asarray(data)
        except ValueError:  # rows of different lengths
            raise InputValidationError(
                f"{func}: {name} must be a 2-D matrix: rows of the same length."
            ) from None
        return _Array(array, name, func)
    raise InputValidationError(
        f"{func}: {name} must be a 2-D array, a tensor, an Arrow fixed-size-list array, or a "
        f".npy or .parquet file. Got {type(data).__name__}."
    )
