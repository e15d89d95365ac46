"""The errors of TREC text (qrels, runs, judgment groups, preferences): a line with
the wrong number of fields, a grade or score that is not a number, an id that is
not UTF-8, a file without lines; each names the file and line, what was expected,
what was given and the fix."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..exceptions import InputValidationError
from ._open import compression_of, open_input

if TYPE_CHECKING:
    from decimal import Decimal


def numbered_lines(path: str) -> Iterator[tuple[int, bytes]]:
    """The lines of a text file (compression detected), numbered from 1: a text of
    ``\r`` line ends, which comes as one "line", as its pieces."""
    import gzip
    from io import BytesIO

    codec = compression_of(path)
    if codec is None:
        f: Any = open(path, "rb")
    elif codec == "gzip":
        f = gzip.open(path, "rb")
    else:  # bzip2, xz, Zstandard (Arrow's codecs): on the path of an error only
        f = BytesIO(open_input(path).read())
    number = 0
    with f:
        for raw in f:
            for piece in raw.split(b"\r") if b"\r" in raw.rstrip(b"\r\n") else [raw]:
                number += 1
                yield number, piece


def not_utf8(path: str, line: int | str, text: bytes) -> InputValidationError:
    """The error of an id ``text`` on line ``line`` of a text file that is not UTF-8."""
    return InputValidationError(
        f"{path}:{line}: the id {text!r} is not UTF-8 text; receval reads ids as text, so "
        f"save the file as UTF-8 (or rewrite the id)."
    )


def first_not_utf8(path: str) -> InputValidationError:
    """:func:`not_utf8` of the first field of a text file that is not UTF-8."""
    for number, line in numbered_lines(path):
        for field in line.split():
            try:
                field.decode("utf-8")
            except UnicodeDecodeError:
                return not_utf8(path, number, field)
    return InputValidationError(f"{path}: cannot be read as text: it is not UTF-8.")


def line_holding(path: str, field: bytes) -> int | str:
    """The first line (1-based) of a text file with the whitespace-separated field
    ``field``; ``"?"`` if none."""
    return next((n for n, line in numbered_lines(path) if field in line.split()), "?")


def field_on_line(path: str, line: int, index: int) -> str | None:
    """Field ``index`` (0-based) of line ``line`` (1-based, counted as
    :func:`line_holding` counts them) of a text file; None if the file has no such
    line or field, or is not UTF-8 there."""
    fields = next((text.split() for n, text in numbered_lines(path) if n == line), [])
    try:
        return fields[index].decode("utf-8") if index < len(fields) else None
    except UnicodeDecodeError:
        return None


#: The fields of a TREC file's lines: how many, and their names.
TREC_FIELDS = {
    "qrels": ("4", "user iteration item grade"),
    "run": ("at least 6", "user Q0 item rank score tag"),
}


def wrong_fields(
    path: str | os.PathLike[str],
    line: int,
    n_fields: int,
    extra_fields: bool,
    fields: str,
    count: int,
    text: str,
    tables: bool = False,
) -> InputValidationError:
    """The error of line ``line`` (its ``text``) of a whitespace-separated file with
    ``count`` fields where ``n_fields`` (or more, with ``extra_fields``) are wanted, the
    fields named by ``fields``; the fix tells when the line is the other TREC kind's
    (a qrels file given as the run, or a run as the qrels), or a CSV or TSV file's:
    then, where the reader also reads tables (``tables``), the ``file_format`` to pass,
    else the TREC fields' fix. A TREC line may separate its fields by tabs: a line is
    taken for a TSV line only where its tab-separated fields form no TREC line (fewer
    than 4, or none of them a number, as in a header). A line whose first non-blank
    character is ``#`` after white space is said not to be a comment.

    Examples
    --------
    >>> print(wrong_fields("run", 1, 6, True, "user Q0 item rank score tag", 1,
    ...                    "user,item,score", tables=True))
    run:1: expected at least 6 whitespace-separated fields (user Q0 item rank score tag),
    got 1: 'user,item,score'; it looks like a line of a CSV file (3 fields separated by
    commas), so pass file_format='csv'.
    >>> print(wrong_fields("qrels", 1, 4, False, "user iteration item grade", 3,
    ...                    "user\\titem\\tgrade", tables=True))
    qrels:1: expected 4 whitespace-separated fields (user iteration item grade), got 3:
    'user\\titem\\tgrade'; it looks like a line of a TSV file (3 fields separated by
    tabs), so pass file_format='tsv'.
    """
    if text.lstrip().startswith("#"):
        return InputValidationError(
            f"{os.fspath(path)}:{line}: a comment line begins with '#', got white space "
            f"before it: {text!r}; trec_eval's qrels readers take '#' for a comment only "
            f"as a line's first character (here they read a query {text.split()[0]!r} or "
            f"a malformed line): remove the white space before '#'."
        )
    expected = f"at least {n_fields}" if extra_fields else f"{n_fields}"
    n_csv, tsv = len(text.split(",")), text.strip("\r\n").split("\t")
    tell = "give every line these fields, separated by spaces or tabs"
    table = None
    if n_csv > 1 and n_csv >= count:  # commas, not whitespace, separate its fields
        table = ("CSV", "csv", n_csv, "commas")
    elif len(tsv) >= max(count, 2) and (
        len(tsv) < 4 or not any(reads_as_number(f.strip(), False) for f in tsv)
    ):  # tabs separate fields that form no TREC line
        table = ("TSV", "tsv", len(tsv), "tabs")
    if extra_fields and count == 4:
        fix = (
            "it has the 4 fields of a qrels line: check that the qrels file is not given as the run"
        )
    elif not extra_fields and n_fields == 4 and count >= 6:
        fix = (
            f"it has the {count} fields of a run line: check that the run is not given as the qrels"
        )
    elif table is not None:
        name, fmt, n, by = table
        looks = f"it looks like a line of a {name} file ({n} fields separated by {by})"
        fix = (
            f"{looks}, so pass file_format={fmt!r}" if tables else f"{looks}, not TREC text: {tell}"
        )
    else:
        fix = tell
    return InputValidationError(
        f"{os.fspath(path)}:{line}: expected {expected} whitespace-separated fields "
        f"({fields}), got {count}: {text!r}; {fix}."
    )


#: A whole number as a TREC qrels file writes its grades.
_INTEGER = re.compile(r"[+-]?[0-9]+")


def reads_as_number(text: str, integer: bool) -> bool:
    """Whether a TREC field reads as a grade (an int64, ``integer``) or a score (a
    decimal number, or infinity or nan, which are refused later as not finite)."""
    if integer:
        return bool(_INTEGER.fullmatch(text)) and -(2**63) <= int(text) < 2**63
    word = text.lstrip("+-").lower()
    return bool(_DECIMAL.fullmatch(text)) or word in ("inf", "infinity", "nan")


def bad_number(
    path: str | os.PathLike[str], line: int, what: str, text: str, integer: bool
) -> InputValidationError:
    """The error of the field ``text`` (the ``what``: grade, score, level) on line
    ``line`` of a TREC file that is not an integer (``integer``) or a number, with
    its fix: an integer written otherwise (``2.0``, ``1e1``: written as one), a real
    number or one out of int64 where an integer grade goes, a hexadecimal one (which
    C's ``atof`` reads), or a field of another column.

    Examples
    --------
    >>> print(bad_number("qrels.txt", 2, "grade", "1e1", True))
    qrels.txt:2: the grade '1e1' is not an integer; it is 10 written in exponent
    notation: write it as the integer 10 (trec_eval's atol reads '1e1' as 1).
    >>> print(bad_number("qrels.txt", 2, "grade", "2.5", True))  # doctest: +ELLIPSIS
    qrels.txt:2: the grade '2.5' is not an integer; TREC qrels hold integer grades, ...
    """
    value = text.strip()
    whole = _whole(value) if integer else None
    if integer and (_INTEGER.fullmatch(value) or (whole is not None and not _in_int64(whole))):
        fix = "; grades are 64-bit integers, at most 9223372036854775807 in magnitude"
    elif whole is not None:  # 2.0, 1e1: an integer in another notation, which atol misreads
        from ..registry.trec_eval import atol

        notation = "in exponent notation" if "e" in value.lower() else "with a decimal point"
        fix = (
            f"; it is {int(whole)} written {notation}: write it as the integer {int(whole)} "
            f"(trec_eval's atol reads {value!r} as {atol(value)})"
        )
    elif integer and _DECIMAL.fullmatch(value):
        fix = (
            "; TREC qrels hold integer grades, as trec_eval reads them: give real-valued "
            "grades (probabilities) in a CSV, TSV or Parquet file"
        )
    elif re.match(r"[+-]?0[xX][0-9a-fA-F.]", value) and _hex_value(value) is not None:
        fix = f"; write it in decimal ({_hex_value(value)}), receval does not read hexadecimal"
    else:
        example = "integers such as 0, 1 or 2" if integer else "decimal numbers such as 0.25"
        fix = f"; write {what}s as {example} (is a column missing or out of order?)"
    kind = "an integer" if integer else "a number"
    return InputValidationError(
        f"{os.fspath(path)}:{line}: the {what} {text!r} is not {kind}{fix}."
    )


def _whole(text: str) -> Decimal | None:
    """The integer that a decimal number such as ``2.0`` or ``1e1`` writes exactly
    (a ``Decimal``: ``1e999999999`` is not expanded); None for any other text."""
    from decimal import Decimal

    if not _DECIMAL.fullmatch(text):
        return None
    number = Decimal(text)
    return number if number == number.to_integral_value() else None


def _in_int64(number: Decimal) -> bool:
    """Whether an integer is within int64, where grades are."""
    return -(2**63) <= number < 2**63


def _hex_value(text: str) -> str | None:
    """A hexadecimal number (C's ``0x1p-2``) in decimal; None if it is none."""
    try:
        value = float.fromhex(text)
    except (ValueError, OverflowError):
        return None
    return str(int(value)) if value.is_integer() and abs(value) < 2**63 else repr(value)


#: A real number as a TREC file writes one: decimal digits, a point and an exponent
#: (not Python's underscores, ``inf``, ``nan`` or Unicode digits, which ``float`` also takes).
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def check_trec_rows(path: str | os.PathLike[str], n_rows: int, kind: str) -> None:
    """Refuse a TREC ``kind`` file (``"qrels"`` or ``"run"``) that holds no line of
    data: an empty file, or one of blank and ``#`` comment lines only."""
    if n_rows == 0:
        count, fields = TREC_FIELDS[kind]
        raise InputValidationError(
            f"{os.fspath(path)}: expected lines of {count} whitespace-separated fields "
            f"({fields}); the {kind} file has none (it is empty, or holds only blank and "
            f"'#' comment lines)."
        )


def not_finite_score(path: str | os.PathLike[str], line: int, text: str) -> InputValidationError:
    """The error of a run's score that is not finite, ``text`` as the file writes
    it: a number too large for float64, or infinity or nan."""
    why = (
        "overflows float64 (its magnitude is above 1.8e308)"
        if _DECIMAL.fullmatch(text)
        else "is not finite"
    )
    return InputValidationError(
        f"{os.fspath(path)}:{line}: the score {text!r} {why}; scores must be finite numbers."
    )
