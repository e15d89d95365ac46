"""The checks of scalar parameters (:func:`check_option`, :func:`check_number`) and
how messages show values (:func:`format_values`), re-exported by
:mod:`receval._validation`; and the defaults that a metric and a plot share
(:data:`CURVE_BINS`).

Free of NumPy, so that metric strings and conventions are checked before it is
loaded, and receval.plot reads its defaults without loading the metrics: a NumPy
value (``np.int64``, an array) can only be given once NumPy is imported, and is
recognized then.
"""

from __future__ import annotations

import difflib
import inspect
import math
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from .exceptions import InvalidParameterError

__all__ = ["CURVE_BINS", "MAX_SHOWN", "check_number", "check_option", "format_values"]

MAX_SHOWN = 5

#: The bins of a reliability curve by default: scikit-learn's (its calibration_curve's
#: and CalibrationDisplay's), for calibration_curve and receval.plot.calibration alike.
CURVE_BINS = 5


def _numpy() -> Any:
    """NumPy if it is imported (else no value is one of its types), or None."""
    return sys.modules.get("numpy")


def format_values(values: Iterable[Any], limit: int = MAX_SHOWN) -> str:
    """Render at most ``limit`` values as a Python-like list: ``[0, 1, 'a', ...]``.

    Examples
    --------
    >>> format_values(["a", 1, 2.5, "b", "c", "d"])
    "['a', 1, 2.5, 'b', 'c', ...]"
    """
    np = _numpy()
    shown = []
    for i, v in enumerate(values):
        if i == limit:
            shown.append("...")
            break
        if np is not None and isinstance(v, np.generic):
            v = v.item()
        shown.append(repr(v))
    return "[" + ", ".join(shown) + "]"


def _subject(name: str, func: str, subject: str | None) -> str:
    """Who a message names: ``subject`` (a configuration file's key path), else the
    parameter ``name`` of ``func``."""
    return subject if subject is not None else f"The '{name}' parameter of {func}"


def check_option(
    value: Any, name: str, func: str, options: Sequence[Any], *, subject: str | None = None
) -> Any:
    """Return ``value`` if it is one of ``options``, else raise ``InvalidParameterError``
    naming the parameter ``name`` of ``func`` (or ``subject``, e.g. a file's key path).

    Examples
    --------
    >>> check_option("trec", "ties", "evaluate", ["trec", "average"])
    'trec'
    """
    try:
        ok = value in options
    except (TypeError, ValueError):  # unhashable; an array (its truth is ambiguous)
        ok = False
    np = _numpy()
    if not ok or (np is not None and isinstance(value, np.ndarray)):
        opts = sorted(options, key=lambda o: (o is None, str(o)))
        raise InvalidParameterError(
            f"{_subject(name, func, subject)} must be one of {opts!r}. Got {value!r} instead."
        )
    return value


def check_number(
    value: Any,
    name: str,
    func: str,
    *,
    integer: bool = False,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    subject: str | None = None,
) -> Any:
    """Check a scalar keyword argument against a type and an interval (NumPy scalars
    are taken, and returned as Python numbers); a message names the parameter ``name``
    of ``func``, or ``subject`` (e.g. a configuration file's key path).

    Examples
    --------
    >>> check_number(0.5, "min_match", "evaluate", low=0.0, high=1.0)
    0.5
    """
    kind = "an integer" if integer else "a real number"
    np = _numpy()
    ints: tuple[type, ...] = (int,) if np is None else (int, np.integer)
    reals: tuple[type, ...] = (int, float) if np is None else (int, float, np.integer, np.floating)
    bools: tuple[type, ...] = (bool,) if np is None else (bool, np.bool_)
    valid_type = isinstance(value, ints) if integer else isinstance(value, reals)
    if isinstance(value, bools):
        valid_type = False
    finite = np.isfinite if np is not None else math.isfinite
    if not valid_type or (not integer and not finite(value)):
        raise InvalidParameterError(
            f"{_subject(name, func, subject)} must be {kind}. Got {value!r} instead."
        )
    too_low = low is not None and (value < low if low_inclusive else value <= low)
    too_high = high is not None and (value > high if high_inclusive else value >= high)
    if too_low or too_high:
        lo = "-inf" if low is None else repr(low)
        hi = "inf" if high is None else "2**63 - 1" if high == MAX_SEED else repr(high)
        left = "[" if (low is not None and low_inclusive) else "("
        right = "]" if (high is not None and high_inclusive) else ")"
        raise InvalidParameterError(
            f"{_subject(name, func, subject)} must be {kind} in {left}{lo}, {hi}{right}. "
            f"Got {value!r} instead."
        )
    return value.item() if np is not None and isinstance(value, np.generic) else value


#: The greatest seed of a random generator.
MAX_SEED = 2**63 - 1


def check_seed(seed: Any, func: str, *, subject: str | None = None) -> int:
    """A random generator's seed: an integer in [0, 2**63 - 1]."""
    return int(check_number(seed, "seed", func, integer=True, low=0, high=MAX_SEED,
                            subject=subject))  # fmt: skip


def metric_strings(metrics: Any, func: str) -> list[str]:
    """The ``metrics`` argument of ``func`` as a list of metric strings: one string is a
    list of one; anything but a string or an iterable of strings is refused."""
    if isinstance(metrics, str):
        return [metrics]
    if metrics is None or not isinstance(metrics, Iterable):
        raise InvalidParameterError(
            f"The 'metrics' parameter of {func} must be a metric string or a list of "
            f"metric strings. Got {metrics!r} instead."
        )
    names = list(metrics)
    bad = [m for m in names if not isinstance(m, str)]
    if bad:
        raise InvalidParameterError(
            f"The 'metrics' parameter of {func} must hold metric strings. Got "
            f"{bad[0]!r} ({type(bad[0]).__name__}) instead."
        )
    return names


def keyword_names(function: Any) -> list[str]:
    """The keyword-only parameters of ``function``: the names ``**`` may pass to it."""
    params = inspect.signature(function).parameters.values()
    return [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]


def check_keywords(given: Any, accepted: Any, func: str) -> None:
    """Raise :class:`InvalidParameterError` on the first of the keyword names ``given``
    that is not in ``accepted``, with the closest accepted name (a typo) as the fix."""
    known = sorted(set(accepted))
    for key in given:
        if key in known:
            continue
        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        fix = f"Did you mean {close[0]!r}?" if close else "Remove it or fix its spelling."
        raise InvalidParameterError(
            f"{func}: got an unknown keyword argument {key!r}; expected one of "
            f"{format_values(known)}. {fix}"
        )


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 test user"``, ``"2,000 test users"``."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


#: The plural of the verbs that do not take the plural by dropping their final "s".
_PLURAL_VERBS = {"is": "are", "has": "have", "was": "were", "does": "do"}


def verb(n: int, singular: str) -> str:
    """The form of a verb that agrees with a count: ``"is"`` for 1, ``"are"`` otherwise.

    ``singular`` is the third-person singular ("is", "has", "leaves", "matches"); the
    plural is "are", "have", "were", "do", or the singular without its final "es" after
    a sibilant ("match"), else without its final "s" ("leave").
    """
    if n == 1:
        return singular
    if singular in _PLURAL_VERBS:
        return _PLURAL_VERBS[singular]
    if singular.endswith(("ches", "shes", "sses", "xes", "zes")):
        return singular.removesuffix("es")
    return singular.removesuffix("s")


def of_the(n: int, total: int, noun: str, plural: str | None = None, *, then: str = "") -> str:
    """``n`` of ``total`` counted things, which reads naturally when ``n`` is 0, with the
    verb ``then`` after them (its third-person singular, as :func:`verb` takes it)
    agreeing with them.

    Examples
    --------
    >>> of_the(0, 5, "qrels user", then="is")
    'none of the 5 qrels users is'
    >>> of_the(1, 5, "qrels user", then="is"), of_the(2, 1_000, "round", then="has")
    ('1 of the 5 qrels users is', '2 of the 1,000 rounds have')
    """
    text = f"{'none' if n == 0 else f'{n:,}'} of the {counted(total, noun, plural)}"
    return f"{text} {verb(n or 1, then)}" if then else text
