"""The messages the accumulator tests compare whole."""

from __future__ import annotations


def given_twice(func: str, n: int, what: str, argument: str, examples: str) -> str:
    """The error of ``n`` groups (``what``: "groups", "users") of ``argument`` given in two
    updates, accumulators, ranks or syncs, raised by ``func``, with ``examples``."""
    one = what[:-1]
    return (
        f"{func}: {n} {one if n == 1 else what} of {argument} {'was' if n == 1 else 'were'} "
        f"given twice (in two updates, in two merged accumulators, on two ranks, or before "
        f"and after a sync), e.g. {examples}; each update, worker and rank must hold whole "
        f"{what} (all the rows of a {one}): group the rows by {one} before cutting batches or "
        f"splitting them across workers and ranks."
    )
