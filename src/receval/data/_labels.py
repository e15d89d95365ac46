"""Labels (segments, item groups) encoded as ids, given back in the type they were given."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._encode import factorize


def label_kind(labels: Any) -> str | None:
    """``"b"`` for boolean labels, ``"f"`` for float labels, else None.

    A NumPy, pandas, polars or Arrow column of a boolean or float type, or a list or
    tuple of bools or of floats.

    Examples
    --------
    >>> import numpy as np
    >>> label_kind([True, False]), label_kind(np.array([1.0, 2.5])), label_kind([1, 2])
    ('b', 'f', None)
    """
    kind = getattr(labels, "dtype", None)
    if kind is None:
        kind = getattr(labels, "type", None)  # an Arrow array
    if kind is not None:
        text = str(kind).lower()
        if text in ("bool", "boolean"):
            return "b"
        return "f" if text.startswith(("float", "double", "halffloat")) else None
    if isinstance(labels, (list, tuple)) and labels:
        types = set(map(type, labels))  # one pass over the rows; the rest is per type
        if all(issubclass(t, (bool, np.bool_)) for t in types):
            return "b"
        if all(issubclass(t, (float, np.floating)) for t in types):
            return "f"
    return None


def factorize_labels(labels: Any, name: str, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``labels`` in order of first appearance, and the distinct labels of the
    type given: :func:`~receval.data._encode.factorize` reads booleans and whole floats
    as the integers they equal (ids that match), and a label is given back as it was
    (``True``, ``1.0``), not as ``1``.

    Examples
    --------
    >>> codes, labels = factorize_labels([2.0, 1.0, 2.0], "by", "by_segment")
    >>> codes.tolist(), labels.tolist()
    ([0, 1, 0], [2.0, 1.0])
    """
    codes, uniques = factorize(labels, name, func)
    codes, uniques = np.asarray(codes), np.asarray(uniques)
    kind = label_kind(labels)
    if uniques.dtype.kind in "iu" and kind is not None:
        uniques = uniques.astype(bool if kind == "b" else np.float64)
    return codes, uniques
