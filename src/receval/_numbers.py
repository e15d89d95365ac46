"""Numbers held as Python objects (an object array of ``Decimal``, as SQL and Spark
write them, or of ints and floats) read as float64."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np


def object_floats(x: np.ndarray) -> np.ndarray:
    """The object array ``x`` as float64, each value as ``float()`` reads it (a
    ``Decimal`` to the nearest float); a signalling ``Decimal('sNaN')``, which
    ``float()`` refuses, is a NaN, as a quiet ``Decimal('NaN')`` is.

    Raises ``TypeError`` or ``ValueError`` for a value ``float()`` does not read.

    Examples
    --------
    >>> object_floats(np.array([Decimal("0.1"), Decimal("sNaN"), 2], dtype=object))
    array([0.1, nan, 2. ])
    """
    try:
        return x.astype(np.float64)
    except ValueError:
        quiet = np.empty(x.size, dtype=object)
        quiet[:] = [
            math.nan if isinstance(e, Decimal) and e.is_snan() else e for e in x.ravel().tolist()
        ]
        return quiet.reshape(x.shape).astype(np.float64)
