"""Sources cut rows and hand them to a definition: here, :func:`receval.scan` batches.

A metric whose rows may be split anyway (``partitioning="any"``) is computed out
of core by one accumulator fed batch by batch: the same definition, so the same
checks, messages, exact sums and final value as in memory and in a training loop.
"""

from __future__ import annotations

from typing import Any

from .run import metric

__all__ = ["scan_compute"]


def scan_compute(
    name: str, columns: dict[str, Any], floats: tuple[str, ...], **options: Any
) -> Any:
    """The metric ``name`` of the rows of scan columns, read batch by batch.

    Parameters
    ----------
    name : str
        A metric of the engine whose rows may be split anyway.
    columns : dict of str to ScanColumn or None
        The metric's data arguments by name (``y_true``, ``y_prob``,
        ``sample_weight``), columns of one scan; None for an absent argument.
    floats : tuple of str
        The arguments read as float64.
    **options
        The metric's options.
    """
    from .._validation import check_not_empty

    acc = metric(name, **options)
    given = {arg: col for arg, col in columns.items() if col is not None}
    scan = next(iter(given.values())).scan
    names = list(dict.fromkeys(col.name for col in given.values()))
    float_names = [given[a].name for a in floats if a in given]
    n_rows = 0
    for batch in scan.batches(names, floats=float_names, description=name):
        data = {arg: batch[col.name] for arg, col in given.items()}
        n_rows += len(next(iter(data.values())))
        acc.update(**data)
    check_not_empty(n_rows, "y_true", name)
    return acc.compute()
