"""Building DataFrames for results, with pandas or polars imported only when asked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._validation import check_option


def make_frame(columns: Mapping[str, Any], backend: str | None = None) -> Any:
    """A pandas (default when installed) or polars DataFrame from equal-length columns."""
    if backend is not None:
        check_option(backend, "backend", "to_frame", ["pandas", "polars"])
    if backend in (None, "pandas"):
        try:
            import pandas as pd
        except ImportError:
            if backend == "pandas":
                raise ImportError(
                    "to_frame(backend='pandas') needs pandas; pip install 'receval[pandas]'."
                ) from None
        else:
            return pd.DataFrame(columns)
    try:
        import polars as pl
    except ImportError:
        raise ImportError(
            "to_frame needs pandas or polars; pip install 'receval[pandas]' or 'receval[polars]'."
        ) from None
    return pl.DataFrame({k: (v.tolist() if v.dtype == object else v) for k, v in columns.items()})
