"""Every check of user input lives here; this is the only module that raises
:class:`~receval.exceptions.InputValidationError`.

The messages follow one template: they name the function and the argument,
state what was expected, show what was given (at most five values), end with a
period, and add the fix after a semicolon when it is obvious.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence, Sized
from decimal import Decimal
from typing import Any

import numpy as np

from ._numbers import object_floats
from ._parameters import MAX_SHOWN as MAX_SHOWN
from ._parameters import check_number as check_number
from ._parameters import check_option as check_option
from ._parameters import counted as counted
from ._parameters import format_values as format_values
from ._parameters import of_the as of_the
from ._parameters import verb as verb
from .data._arrow import is_arrow, to_numpy
from .data._lookup import distinct
from .engine.kinds import NO_POS_LABEL
from .engine.loop.tensors import on_host
from .engine.sums import scaled_by_shift
from .exceptions import InputValidationError, InvalidParameterError


def _distinct(x: np.ndarray, limit: int = MAX_SHOWN) -> list[Any]:
    try:
        return [u.item() if isinstance(u, np.generic) else u for u in distinct(x)[: limit + 1]]
    except (TypeError, ArithmeticError):  # mixed, unorderable (a Decimal NaN), unhashable
        seen: dict[str, Any] = {}
        for v in x.tolist():
            seen.setdefault(repr(v), v)
            if len(seen) > limit:
                break
        return list(seen.values())


# ---------------------------------------------------------------- arrays
def _has_trailing_nul(x: Any) -> bool:
    """Whether a sequence holds a str or bytes ending in NUL."""
    try:
        return any(isinstance(s, (str, bytes)) and s[-1:] in ("\x00", b"\x00") for s in x)
    except TypeError:
        return False


def _nan_among_strings(x: Sequence[Any], arr: np.ndarray) -> bool:
    """Whether the list ``x`` of strings holds a float NaN, which NumPy's conversion
    (``arr``) spells ``'nan'``: a missing value (as pandas gives one), not the text."""
    if not (arr == "nan").any():  # one vectorized pass: NaN has this spelling
        return False
    return any(type(e) is not str and e != e for e in x)


def _as_array(x: Any, name: str, func: str) -> np.ndarray:
    """``np.asarray(x)``, ragged input (a list holding a list) as a clear error."""
    try:
        return np.asarray(x)
    except ValueError as exc:
        if "inhomogeneous" not in str(exc) and "sequence" not in str(exc):
            raise
        for i, item in enumerate(x):
            if isinstance(item, (list, tuple, np.ndarray)):
                raise InputValidationError(
                    f"{func}: {name} must be a flat sequence of values. Got a "
                    f"{type(item).__name__} at position {i}; flatten it, or pass one list "
                    f"per call."
                ) from None
        raise InputValidationError(
            f"{func}: {name} must be a flat sequence of values of one shape."
        ) from None


def is_missing(value: Any) -> bool:
    """None, pandas' NA and NaT, NumPy's NaT, or a NaN (a float or a ``Decimal``)."""
    if value is None or type(value).__name__ in _MISSING_TYPE_NAMES:
        return True
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(value))
    if isinstance(value, Decimal):  # Decimal('NaN') and Decimal('sNaN'), as a float NaN
        return value.is_nan()
    return isinstance(value, (float, np.floating)) and value != value


def check_no_missing(arr: np.ndarray, name: str, func: str) -> None:
    """Raise when labels hold a missing value (None, pandas' NA or NaN in an object
    array, NaN in a float array: a null of Arrow, polars or a pandas nullable
    column) or an infinite one (no class), or, in an object array, numbers mixed
    with strings (which have no order, so no class is "the greater"). The checks of
    binary labels run it first on every backend, so that they say the same."""
    if not arr.size:
        return
    if arr.dtype == object:
        values = arr.ravel().tolist()
        missing = np.fromiter(map(is_missing, values), dtype=bool, count=len(values))
        what = "None, NA or NaN"
        if not missing.any():
            _check_one_label_type(values, name, func)
    elif arr.dtype.kind == "f":
        missing, infinite = np.isnan(arr), np.isinf(arr)
        what = "NaN"
        if infinite.any() and not missing.any():  # no class: the same error on every backend
            raise _infinite_labels(func, name, arr, infinite)
    else:
        return
    if missing.any():
        raise missing_values(func, name, missing, what)


def _infinite_labels(
    func: str, name: str, arr: np.ndarray, infinite: np.ndarray
) -> InputValidationError:
    """The error of labels of which some (``infinite``) are infinite: their count, the
    first (the error's ``row``) and its value."""
    row = int(np.argmax(infinite))
    template = f"{literal(func)}: {literal(name)} must hold labels such as 0 and 1. Got "
    template += f"{{count}} ({float(arr[row])!r}), the first {{at}}; drop those rows or fix "
    template += "their labels first."
    count = counted(int(np.count_nonzero(infinite)), "infinite value")
    return InputValidationError.positioned(template, row, count, "infinite values")


def missing_values(
    func: str, name: str, missing: Any, what: str, fix: str = "drop or fill them first"
) -> InputValidationError:
    """The error of the missing values (``what``: how they were given) of the argument
    ``name``, at the rows where ``missing`` (booleans, NumPy or Arrow) is true: their
    count and the first (the error's ``row``, which a file's readers name)."""
    flags = missing if isinstance(missing, np.ndarray) else to_numpy(missing)
    count, first = int(np.count_nonzero(flags)), int(np.argmax(flags))
    func, name, what, fix = (literal(part) for part in (func, name, what, fix))
    template = f"{func}: {name} contains {{count}} ({what}), the first {{at}}; {fix}."
    return InputValidationError.positioned(template, first, counted(count, "missing value"))


def literal(text: str) -> str:
    """``text`` as it reads once formatted by ``str.format``."""
    return text.replace("{", "{{").replace("}", "}}")


def _check_one_label_type(values: list[Any], name: str, func: str) -> None:
    """Raise when ``values`` mix numbers (or bools) and strings."""
    string = any(isinstance(v, str) for v in values)
    if string and not all(isinstance(v, str) for v in values):
        raise InputValidationError(
            f"{func}: {name} mixes numbers and strings, e.g. "
            f"{format_values(_mixed_examples(values))}; labels must be all numbers or all "
            f"strings, e.g. {name} = [str(v) for v in {name}]."
        )


def as_array(x: Any, name: str, func: str) -> np.ndarray:
    """Convert a list, array, frame, pandas/polars Series or Arrow array to a NumPy
    array of any shape; missing values (Arrow or polars nulls) and ragged lists are
    errors that name the argument."""
    if x is None:
        raise InputValidationError(f"{func}: {name} is None; pass an array of values.")
    return _as_array(_to_numpy(x, name, func), name, func)


def _to_numpy(x: Any, name: str, func: str) -> Any:
    """A pandas/polars Series or Arrow array as NumPy (no copy when possible); a tensor
    or DLPack object as :func:`~receval.engine.loop.tensors.on_host` reads it (a CPU
    tensor in place, a GPU one copied to the host); anything else as given. Arrow
    arrays of numbers without pandas (their ``to_numpy`` imports it: 0.2 s). Nulls
    among numbers or booleans, which NumPy would make NaN, are an error that says
    they are missing values (:func:`check_no_nulls`)."""
    if type(x) is np.ndarray:
        return x
    if is_arrow(x):
        import pyarrow as pa

        if isinstance(x, (pa.Array, pa.ChunkedArray)):
            check_no_nulls(x, name, func)
            return to_numpy(x)
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        check_no_nulls(x, name, func)
        try:
            return x.to_numpy()
        except (TypeError, ValueError):  # Arrow nulls: NaN or None, reported downstream
            return x.to_numpy(zero_copy_only=False)
    return on_host(x, func, name)


def check_no_nulls(x: Any, name: str, func: str, fix: str = "drop or fill them first") -> None:
    """Raise, naming the first, for the nulls of a column of numbers or booleans of
    Arrow (``null``), polars (``null``) or a pandas extension type (``NA``), before
    they become NaN, which would read as a value that is not a number. Other columns
    (strings, NumPy's own) are left to their own checks. ``fix`` ends the message.

    Examples
    --------
    >>> import pyarrow as pa
    >>> check_no_nulls(pa.array([0.5, None]), "y_score", "roc_auc_score")
    Traceback (most recent call last):
    ...
    receval.exceptions.InputValidationError: roc_auc_score: y_score contains 1 missing value
    (null), the first at position 1; drop or fill them first.
    """
    module = type(x).__module__
    if module.startswith("pyarrow"):
        import pyarrow as pa

        if not isinstance(x, (pa.Array, pa.ChunkedArray)) or not x.null_count:
            return
        kind, types = x.type, pa.types
        if not (types.is_integer(kind) or types.is_floating(kind) or types.is_boolean(kind)):
            if not types.is_decimal(kind):
                return
        flags, what = to_numpy(x.is_null()), "null"
    elif module.startswith("polars"):
        if type(x).__name__ != "Series" or not x.null_count():
            return
        import polars as pl

        if not (x.dtype.is_numeric() or x.dtype == pl.Boolean):
            return
        flags, what = x.is_null().to_numpy(), "null"
    elif module.startswith("pandas"):
        dtype = getattr(x, "dtype", None)
        if (
            dtype is None
            or isinstance(dtype, np.dtype)
            or getattr(dtype, "kind", "O") not in "biuf"
        ):
            return
        flags, what = np.asarray(x.isna(), dtype=bool), "NA"
        if not flags.any():
            return
    else:
        return
    raise missing_values(func, name, flags, what, fix)


def as_1d(x: Any, name: str, func: str) -> np.ndarray:
    """Convert a list, array, pandas/polars Series or Arrow array to a 1-D NumPy array.

    Missing values (Arrow or polars nulls, None) and ragged lists are errors that
    name the argument. A list of strings that holds a float NaN (or None) is an
    object array, the NaN kept: the caller's check of missing values refuses both
    in one message (of ids, of labels)."""
    check_column(x, name, func)
    arr = as_array(x, name, func)
    if arr.dtype.kind in "US" and not isinstance(x, np.ndarray) and _has_trailing_nul(x):
        # NumPy's fixed-width strings drop trailing NULs ("a\0" would become "a")
        arr = np.empty(len(x), dtype=object)
        arr[:] = list(x)
    elif arr.dtype.kind == "U" and isinstance(x, (list, tuple)) and _nan_among_strings(x, arr):
        # as objects, the NaN stays a missing value: refused as a None is, in its words
        arr = np.empty(len(x), dtype=object)
        arr[:] = list(x)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise InputValidationError(
            f"{func}: {name} must be 1-dimensional. Got an array of shape {arr.shape}."
        )
    return arr


def as_2d_scores(x: Any, name: str, func: str) -> np.ndarray:
    """Convert per-class scores to a float64 array of shape (n_samples, n_classes)."""
    arr = np.asarray(_to_numpy(x, name, func))
    if arr.ndim != 2:
        raise InputValidationError(
            f"{func}: {name} must be 2-dimensional (n_samples, n_classes). "
            f"Got an array of shape {arr.shape}."
        )
    return check_finite(as_float(arr, name, func), name, func)


def check_same_length(func: str, **arrays: Sized | None) -> int:
    """All given arrays have the same first dimension; return it. A value that is not
    a column of values (a generator, a scalar, a string, a set) is an error naming it."""
    present = {k: a for k, a in arrays.items() if a is not None}
    lengths = [_length(a, k, func) for k, a in present.items()]
    if len(set(lengths)) > 1:
        raise InputValidationError(
            f"{func}: {_joined(present)} must have the same length. Got lengths {lengths}."
        )
    return lengths[0] if lengths else 0


def _length(x: Any, name: str, func: str) -> int:
    """The number of values of the column ``x`` (:func:`check_column`; one without a
    length, a number, is not one either)."""
    check_column(x, name, func)
    if not hasattr(x, "__len__"):
        raise _not_a_column(x, name, func)
    return len(x)


def check_column(x: Any, name: str, func: str) -> None:
    """Raise, naming ``name``, for a value that is not a column of values though
    NumPy would make an array of it: an iterator or generator (read once, with no
    length), a str or bytes (one value), a set or a mapping (without an order)."""
    if isinstance(x, (np.ndarray, list, tuple)):  # the common columns, told at once
        return
    if isinstance(x, (str, bytes, set, frozenset, Mapping, Iterator)):
        raise _not_a_column(x, name, func)


def _not_a_column(x: Any, name: str, func: str) -> InputValidationError:
    fix = (
        f"; pass a list of them, e.g. list({name})"
        if isinstance(x, (Iterator, set, frozenset))
        else ""
    )
    return InputValidationError(
        f"{func}: {name} must be a column of values (a list, NumPy array, Series or "
        f"Arrow array), one a row. Got a value of type {type(x).__name__}{fix}."
    )


def _joined(names: Iterable[str]) -> str:
    """``"a, b and c"``."""
    *rest, last = names
    return ", ".join(rest) + " and " + last if rest else last


def check_not_empty(n: int, name: str, func: str) -> None:
    if n == 0:
        raise InputValidationError(f"{func}: {name} is empty; pass at least one sample.")


def as_float(x: np.ndarray, name: str, func: str) -> np.ndarray:
    """``x`` as float64 (no copy when it already is); numbers as objects: object_floats."""
    if x.dtype.kind == "O" and x.size:
        with contextlib.suppress(TypeError, ValueError):  # a value that is not a number
            converted = object_floats(x)
            if all(isinstance(e, (int, float, np.number, Decimal)) for e in x.flat[:1000]):
                return converted
    if x.dtype.kind == "O" and x.ndim == 1 and x.size:  # numbers and missing values
        values = x.tolist()
        missing = np.fromiter(map(is_missing, values), dtype=bool, count=len(values))
        numbers = (is_number(e) or isinstance(e, Decimal) for e in values)
        if missing.any() and all(m or n for m, n in zip(missing, numbers, strict=True)):
            raise missing_values(func, name, missing, "None, NA or NaN")
    if x.dtype.kind not in "biuf":
        error = InputValidationError(
            f"{func}: {name} must be numeric. Got dtype {x.dtype}"
            + (f" with values {format_values(_distinct(x.ravel()))}." if x.size else ".")
        )
        if x.ndim == 1:  # where the first value that is not a number is (a file's line)
            error.row = next((i for i, e in enumerate(x.tolist()) if not is_number(e)), None)
        raise error
    return np.asarray(x, dtype=np.float64)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a number (a bool, int or float, NumPy's too, or a string
    of one)."""
    if isinstance(value, (str, bytes)):
        try:
            float(value)
        except ValueError:
            return False
        return True
    return isinstance(value, _NUMBER_TYPES)


def check_finite(x: np.ndarray, name: str, func: str) -> np.ndarray:
    """Raise if a float array holds NaN or infinity (one SIMD reduction, no temporaries)."""
    if x.dtype.kind != "f" or not x.size:
        return x
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.add.reduce(x, axis=None)
    if not np.isfinite(total):
        # the sum is not finite: either a non-finite value or an overflow
        bad = ~np.isfinite(x)
        if bad.any():
            row = int(np.argmax(bad)) if x.ndim == 1 else None
            raise _not_finite(func, name, row, None if row is None else x[row])
    return x


def _not_finite(func: str, name: str, row: int | None, value: Any = None) -> InputValidationError:
    """The error of a value of ``name`` that is NaN or infinite, the first at ``row``
    (``value``; None: not known)."""
    fix = "drop those rows or replace the values with finite numbers first"
    if row is None:
        return InputValidationError(f"{func}: {name} contains NaN or infinity; {fix}.")
    func, name = literal(func), literal(name)
    template = f"{func}: {name} contains NaN or infinity, the first {{at}} "
    template += f"({float(value)!r}); {fix}."
    return InputValidationError.positioned(template, row)


def check_scores(x: Any, name: str, func: str) -> np.ndarray:
    """1-D finite float64 scores."""
    return check_finite(as_float(as_1d(x, name, func), name, func), name, func)


#: integers of larger magnitude are not all float64 values (2**53 + 1 is not)
_FLOAT_EXACT = 2**53


def _integer_values(x: np.ndarray) -> np.ndarray | None:
    """``x`` as an integer array when it holds integers (an object array of Python
    ints included, as NumPy keeps ints beyond int64), else None."""
    if x.dtype.kind in "iu":
        return x
    if x.dtype.kind == "O" and x.size:
        values = x.tolist()
        if all(type(e) is int or isinstance(e, np.integer) for e in values):
            return x
    return None


def _inexact(e: int) -> bool:
    """Whether float64 cannot hold the integer ``e`` (beyond its range included)."""
    try:
        return int(float(e)) != e
    except OverflowError:
        return True


def order_scores(x: np.ndarray, name: str, func: str, *, rank: bool = True) -> np.ndarray:
    """Finite float64 scores of a metric that uses only their order.

    Float scores and integers within +-2**53 are converted as :func:`as_float`
    converts them (the fast path). Integers beyond that which float64 cannot all
    hold (``2**53 + 1`` would become ``2**53``, a tie that is not one) are ranked
    exactly: with ``rank=True`` (every score of the metric is in ``x``) they
    become their dense ranks, which order as the integers do; a part of the
    scores (a batch: ranks of separate batches do not compare) or a function that
    returns the scores themselves (curve thresholds) passes ``rank=False``, and
    such integers raise.
    """
    ints = _integer_values(x)
    if ints is not None and ints.size:
        lo, hi = ints.min(), ints.max()
        if hi > _FLOAT_EXACT or lo < -_FLOAT_EXACT:
            big = [int(e) for e in ints.tolist() if not -_FLOAT_EXACT <= e <= _FLOAT_EXACT]
            if any(map(_inexact, big)):
                if rank:
                    inverse = np.unique(ints, return_inverse=True)[1]
                    return inverse.reshape(-1).astype(np.float64)
                shown = format_values([e for e in big if _inexact(e)])
                raise InputValidationError(
                    f"{func}: {name} holds integers beyond 2**53 that float64 cannot tell "
                    f"apart, e.g. {shown}; subtract an offset (such as their smallest "
                    f"value) so that they lie within +-2**53, or pass their ranks."
                )
    return check_finite(as_float(x, name, func), name, func)


#: The fix of predicted probabilities outside [0, 1] (a model's raw scores)
_PREDICTED = "pass predicted probabilities, e.g. apply a sigmoid to raw scores"
#: What the error of scores that are not probabilities says of them
NOT_PROBABILITIES = "must contain probabilities in [0, 1]"


def check_probabilities(x: np.ndarray, name: str, func: str, fix: str = _PREDICTED) -> np.ndarray:
    """Scores that must be probabilities in [0, 1] (``fix``: the message's fix)."""
    if x.size and (x.min() < 0.0 or x.max() > 1.0):
        outside = (x < 0.0) | (x > 1.0)
        raise _not_probabilities(func, name, _distinct(x[outside]), _first(outside), fix)
    return x


def _not_probabilities(
    func: str, name: str, values: list[Any], row: int | None, fix: str = _PREDICTED
) -> InputValidationError:
    return InputValidationError(
        f"{func}: {name} {NOT_PROBABILITIES}. Got values {format_values(values)}; {fix}.", row=row
    )


def _third_class_row(y: np.ndarray) -> int | None:
    """The first number label but -1, 0 and 1, else the first of a third label (a row)."""
    odd = _first(~np.isin(y, (-1, 0, 1))) if y.dtype.kind in "iuf" else None
    if odd is not None:
        return odd
    seen: set[Any] = set()
    for i, label in enumerate(y.tolist() if y.ndim == 1 else ()):
        seen.add(label)
        if len(seen) > 2:
            return i
    return None


def _first(bad: np.ndarray) -> int | None:
    """The position of the first True of a 1-D mask (a file's row), else None."""
    return int(np.argmax(bad)) if bad.ndim == 1 and bad.any() else None


def _held_numbers(y: np.ndarray) -> np.ndarray:
    """An object array that holds only numbers (a pandas column of dtype object) as an
    array of numbers, as :func:`as_class_labels` reads it; any other array as it is."""
    values = y.tolist() if y.dtype.kind == "O" else []
    numbers = values and all(isinstance(x, _NUMBER_TYPES) for x in values)
    return np.asarray(values) if numbers else y


def check_binary01(y: Any, func: str, name: str = "y_true") -> np.ndarray:
    """Labels that must be 0/1 (or bool); return them as int8 without a sort."""
    y = _held_numbers(as_1d(y, name, func))
    if y.dtype == np.bool_:
        result: np.ndarray = y.view(np.int8)
        return result
    ok = False
    if y.dtype.kind in "iu":
        ok = y.size == 0 or (y.min() >= 0 and y.max() <= 1)
    elif y.dtype.kind == "f":
        ok = bool(np.all((y == 0.0) | (y == 1.0)))
    if not ok:
        check_no_missing(y, name, func)
        row = _first((y != 0) & (y != 1)) if y.dtype.kind in "iuf" else None
        raise _not_binary01(func, name, _distinct(y), row)
    result = y.astype(np.int8, copy=False)
    return result


def _not_binary01(func: str, name: str, values: list[Any], row: int | None) -> InputValidationError:
    return InputValidationError(
        f"{func}: {name} must contain only 0 and 1. Got values {format_values(values)}; "
        f"binarise labels first, e.g. {name} = (clicks > 0).",
        row=row,
        classes=values,
    )


def _same_label(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def binarize_labels(
    y: np.ndarray, pos_label: Any, func: str, name: str = "y_true"
) -> tuple[np.ndarray, Any]:
    """Binary labels of any type to int8 0/1 (scikit-learn's ``pos_label`` rule) and the
    negative label among them (None: none), which an accumulator's batches must share.

    With ``pos_label=None`` the labels must be a subset of {0, 1} or {-1, 1}
    (then 1 is positive); otherwise ``pos_label`` names the positive class.
    """
    if pos_label is None:
        y = _held_numbers(y)
        if y.dtype == np.bool_:
            return y.view(np.int8), None if y.all() else 0
        if y.dtype.kind in "iuf" and y.size:
            lo, hi = y.min(), y.max()
            if lo >= 0 and hi <= 1 and (y.dtype.kind != "f" or np.all((y == 0) | (y == 1))):
                return y.astype(np.int8, copy=False), 0 if lo == 0 else None
        check_no_missing(y, name, func)  # past the 0/1 fast path, which holds no NaN
        classes = _distinct(y, limit=3)
        numeric = y.dtype.kind in "iufb"
        if numeric and len(classes) <= 2 and set(np.asarray(classes).tolist()) <= {-1, 1}:
            result: np.ndarray = (y == 1).view(np.int8)
            return result, -1 if -1 in classes else None
        if len(classes) > 2:
            raise InputValidationError(
                f"{func}: {name} must be binary. Got values {format_values(_distinct(y))}; "
                f"pass pos_label to say which value is positive.",
                row=_third_class_row(y),
                classes=_distinct(y),
            )
        # a number that no binary label without pos_label is (the first 2 beside 0/1 clicks)
        odd = _first((y != 0) & (y != 1) & (y != -1)) if numeric else None
        raise InputValidationError(
            f"{func}: {name} takes values {format_values(classes)} and {NO_POS_LABEL}; "
            f"pass pos_label, e.g. pos_label={classes[-1]!r}.",
            row=odd,
            classes=classes,
        )
    check_no_missing(y, name, func)
    classes = _distinct(y, limit=3)
    if len(classes) > 2:
        raise InputValidationError(
            f"{func}: {name} must be binary. Got values {format_values(classes)}; "
            f"pass a binary y_true or binarise it with (y_true == pos_label).",
            row=_third_class_row(y),
            classes=classes,
        )
    if len(classes) == 2 and not any(_same_label(c, pos_label) for c in classes):
        raise InvalidParameterError(
            f"The 'pos_label' parameter of {func} must be one of {format_values(classes)}, "
            f"the labels of {name}. Got {pos_label!r} instead."
        )
    mask = y == pos_label
    if not isinstance(mask, np.ndarray):  # comparison of incompatible types
        mask = np.zeros(y.shape, dtype=bool)
    return mask.view(np.int8), next((c for c in classes if not _same_label(c, pos_label)), None)


def check_sample_weight(
    sample_weight: Any, n: int, func: str, *, relative: bool = False
) -> np.ndarray | None:
    """None, or finite non-negative float64 weights of length ``n``.

    ``relative=True`` is for metrics of ratios of weights (means, rates, AUC): the
    weights are divided by :func:`~receval.engine.sums.weight_shift`'s power of two.
    """
    if sample_weight is None:
        return None
    w = as_float(as_1d(sample_weight, "sample_weight", func), "sample_weight", func)
    check_finite(w, "sample_weight", func)
    if w.size and w.min() < 0:
        raise _negative(func, "sample_weight", _distinct(w[w < 0]), _first(w < 0))
    if len(w) != n:
        raise InputValidationError(
            f"{func}: sample_weight must have one weight per sample. "
            f"Got {counted(len(w), 'weight')} for {counted(n, 'sample')}."
        )
    return scaled_by_shift(w)[0] if relative else w


def _negative(func: str, name: str, values: list[Any], row: int | None) -> InputValidationError:
    return InputValidationError(
        f"{func}: {name} must be non-negative. Got values {format_values(values)}; drop "
        f"those rows or give them a weight of 0 or more.",
        row=row,
    )


#: a refusal of the compiled core: (kind, argument, row, count, values)
Refusal = tuple[str, int, int, int, list[float]]


def refused(func: str, refusal: Refusal, columns: dict[str, Any]) -> InputValidationError:
    """The error of input that the compiled core refused, in the words of the check
    that refuses it here.

    Parameters
    ----------
    func : str
        The function named in the message.
    refusal : tuple of (str, int, int, int, list of float)
        The core's answer: which check (``kind``), which argument (its position in
        ``columns``), the first bad row, how many rows are bad (missing labels) and
        the values to show (the smallest distinct bad ones, at most one more than a
        message shows).
    columns : dict of str to array
        The arguments the core was given, by name, in its order. Labels that are not
        0/1 are shown as this module shows them (NumPy's distinct values).

    Returns
    -------
    InputValidationError
        The error, its ``row`` the first bad row.

    Examples
    --------
    >>> import numpy as np
    >>> y, p = np.array([0, 1, 1]), np.array([0.5, 0.2, np.nan])
    >>> error = refused("log_loss", ("finite", 1, 2, 0, []), {"y_true": y, "y_pred": p})
    >>> print(error)
    log_loss: y_pred contains NaN or infinity, the first at position 2 (nan); drop those rows
    or replace the values with finite numbers first.
    >>> error.row
    2
    """
    kind, argument, row, _, values = refusal  # the count of missing labels: recounted
    name, column = list(columns.items())[argument]
    if kind == "missing":
        return missing_values(func, name, np.isnan(column), "NaN")
    if kind == "binary01":
        return _not_binary01(func, name, _distinct(column), row)
    if kind == "finite":
        return _not_finite(func, name, row, column[row])
    if kind == "probability":
        return _not_probabilities(func, name, values, row)
    if kind == "negative":
        return _negative(func, name, values, row)
    raise AssertionError(f"unknown refusal {refusal!r}")


# ---------------------------------------------------------------- class labels
_NUMBER_TYPES = (bool, int, float, np.bool_, np.integer, np.floating)
_MISSING_TYPE_NAMES = ("NoneType", "NAType", "NaTType")


def _mixed_examples(values: Sequence[Any]) -> list[Any]:
    """The first non-string and the first string of ``values``, for an error message."""
    other = next((v for v in values if not isinstance(v, str)), None)
    string = next((v for v in values if isinstance(v, str)), None)
    return [other, string]


def as_class_labels(x: Any, name: str, func: str) -> np.ndarray:
    """Class labels as a 1-D array of numbers (finite) or strings (dtype ``U``).

    Lists, arrays, pandas/polars Series and Arrow arrays are accepted. Object
    arrays (pandas string columns) become ``U`` arrays when they hold only
    strings and numeric arrays when they hold only numbers; a mix of numbers and
    strings, missing values (None, NaN, NA) and 2-D label matrices raise
    ``InputValidationError``.
    """
    if x is None:
        raise InputValidationError(f"{func}: {name} is None; pass an array of labels.")
    try:
        arr = np.asarray(_to_numpy(x, name, func))
    except ValueError as exc:  # ragged nested lists
        raise InputValidationError(
            f"{func}: {name} must be 1-dimensional: one class label per sample."
        ) from exc
    if arr.ndim == 2 and arr.shape[1] != 1:
        raise InputValidationError(
            f"{func}: {name} must be 1-dimensional: one class label per sample. Got an array "
            f"of shape {arr.shape}; multilabel indicator matrices are not supported."
        )
    arr = as_1d(arr, name, func)
    kind = arr.dtype.kind
    if kind == "U" and isinstance(x, (list, tuple)):
        # NumPy silently turns [1, "a"] into ['1', 'a']: look at the original values
        _check_one_label_type(list(x), name, func)
    elif kind == "S":
        arr = arr.astype(np.str_)
    elif kind == "O":
        values = arr.tolist()
        types = set(map(type, values))
        if any(t.__name__ in _MISSING_TYPE_NAMES for t in types):
            raise InputValidationError(
                f"{func}: {name} contains missing labels (None or NA); every sample needs a "
                f"label, so drop or fill those samples first."
            )
        strings = all(issubclass(t, str) for t in types)
        numbers = all(issubclass(t, _NUMBER_TYPES) for t in types)
        if strings:
            arr = arr.astype(np.str_)
        elif numbers:
            arr = np.asarray(values)
        else:
            if all(issubclass(t, (str, *_NUMBER_TYPES)) for t in types):
                _check_one_label_type(values, name, func)  # numbers mixed with strings
            names = sorted({t.__name__ for t in types})
            raise InputValidationError(
                f"{func}: {name} must contain numbers or strings. Got values of types "
                f"{format_values(names)}."
            )
    if arr.dtype.kind not in "biufU":
        raise InputValidationError(
            f"{func}: {name} must contain numbers or strings. Got dtype {arr.dtype}."
        )
    return check_finite(arr, name, func)


def check_same_label_type(func: str, **arrays: np.ndarray) -> None:
    """All label arrays hold numbers, or all hold strings (as from ``as_class_labels``)."""
    kinds = {name: "strings" if a.dtype.kind in "US" else "numbers" for name, a in arrays.items()}
    if len(set(kinds.values())) > 1:
        got = " and ".join(
            f"{kinds[name]} {format_values(_distinct(a))} in {name}" for name, a in arrays.items()
        )
        raise InputValidationError(
            f"{func}: {_joined(arrays)} must hold labels of one type, all numbers or all strings. "
            f"Got {got}; convert them to one type first, e.g. with .astype(str)."
        )


def check_labels_parameter(labels: np.ndarray, func: str, name: str = "labels") -> np.ndarray:
    """A user-given list of class labels: not empty, no duplicates."""
    if labels.size == 0:
        raise InputValidationError(
            f"{func}: {name} is empty; pass at least one label, or {name}=None to use every "
            f"label found in the data."
        )
    uniq, counts = np.unique(labels, return_counts=True)
    if len(uniq) != len(labels):
        raise InputValidationError(
            f"{func}: {name} must not contain duplicates. Got duplicated values "
            f"{format_values(uniq[counts > 1])}."
        )
    return labels


def check_label_value(value: Any, name: str, func: str) -> Any:
    """A single class label given as a keyword argument (``pos_label``)."""
    if not isinstance(value, (str, *_NUMBER_TYPES)) or (
        isinstance(value, (float, np.floating)) and not np.isfinite(value)
    ):
        raise InvalidParameterError(
            f"The '{name}' parameter of {func} must be a number, a bool or a string. "
            f"Got {value!r} instead."
        )
    return value.item() if isinstance(value, np.generic) else value


def check_zero_division(value: Any, func: str) -> str | float:
    """``"warn"``, 0.0, 1.0 or NaN; return ``"warn"`` or the value as a float."""
    if isinstance(value, str) and value == "warn":
        return value
    number = isinstance(value, _NUMBER_TYPES) and not isinstance(value, (bool, np.bool_))
    if number and (value in (0, 1) or np.isnan(value)):
        return float(value)
    raise InvalidParameterError(
        f"The 'zero_division' parameter of {func} must be one of ['warn', 0.0, 1.0, nan]. "
        f"Got {value!r} instead."
    )
