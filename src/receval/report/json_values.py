"""Values as JSON writes them, for every JSON document receval writes (the command
line's ``--format json``, :meth:`HTMLReport.to_json <receval.report.HTMLReport.to_json>`,
the audit's and the gate's ``to_json``).

NumPy is not imported here: a NumPy value can only come from a program that loaded it.
"""

from __future__ import annotations

import datetime as _dt
import math
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["dumps", "json_value", "plain_value"]


def plain_value(value: Any) -> Any:
    """A NumPy scalar, ``datetime64`` or date as a plain Python value; anything else as given.

    A ``datetime64`` is written as its day (``"2024-01-02"``), a ``datetime.date``
    or ``datetime.datetime`` in ISO 8601, a NumPy float as a Python float, any other
    NumPy scalar as its ``item()``.

    Examples
    --------
    >>> import numpy as np
    >>> from receval.report.json_values import plain_value
    >>> plain_value(np.int64(2)), plain_value(np.datetime64("2024-01-02T10:00"))
    (2, '2024-01-02')
    """
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.datetime64):
        return str(np.datetime_as_string(value, unit="D"))
    if np is not None and isinstance(value, np.floating):  # a long double has no item()
        return float(value)
    if np is not None and isinstance(value, np.generic):
        return value.item()
    if isinstance(value, _dt.date):  # a datetime too
        return value.isoformat()
    return value


def json_value(value: Any) -> Any:
    """``value`` as plain values that ``json.dumps(..., allow_nan=False)`` accepts.

    Mappings become dicts with ``str`` keys; lists, tuples and NumPy arrays become
    lists; scalars and dates are read by :func:`plain_value`. JSON has no nan and no
    infinity, so a float that is not finite is written as:

    - nan: ``None`` (JSON ``null``): the value is undefined;
    - ``+inf``: the string ``"Infinity"``, ``-inf``: the string ``"-Infinity"``
      (the spelling of the proto3 JSON mapping for float fields), so the sign of
      an infinite value is kept.

    Every other float, ``-0.0`` and subnormals included, is written as Python's
    ``repr`` writes it (it reads back as the same float).

    Parameters
    ----------
    value : object
        A scalar, date, NumPy scalar or array, or a mapping, list or tuple of them,
        nested to any depth.

    Returns
    -------
    plain : object
        ``value`` with the replacements above; other objects (str, int, bool, None)
        as given.

    Examples
    --------
    >>> import numpy as np
    >>> from receval.report.json_values import json_value
    >>> json_value({"a": np.float64("nan"), "b": [np.int64(2), 0.5], "c": -np.inf})
    {'a': None, 'b': [2, 0.5], 'c': '-Infinity'}
    """
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        return [json_value(v) for v in value] if value.ndim else json_value(value[()])
    value = plain_value(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def dumps(
    value: Any,
    *,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    ensure_ascii: bool = True,
) -> str:
    """``value`` as JSON text: :func:`json_value` of it, written by :func:`json.dumps`.

    Parameters
    ----------
    value : object
        As for :func:`json_value`.
    indent, separators, ensure_ascii
        As for :func:`json.dumps`.

    Returns
    -------
    text : str
        Valid JSON (never ``NaN`` or ``Infinity`` as a bare token).

    Examples
    --------
    >>> from receval.report.json_values import dumps
    >>> dumps([float("nan"), float("inf"), -0.0])
    '[null, "Infinity", -0.0]'
    """
    import json  # here: the command line's help and its other formats do not need it

    return json.dumps(
        json_value(value),
        allow_nan=False,
        indent=indent,
        separators=separators,
        ensure_ascii=ensure_ascii,
    )
