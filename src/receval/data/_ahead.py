"""Batches of a scan read one ahead in a thread, and where a call's time went.

The reader thread decodes and converts the next batch (pyarrow and the core
release the GIL) while the metric works on the current one, so a scan takes
about the longer of reading and computing rather than their sum. At most one
batch waits in the queue: the memory is a batch more than reading in turn.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

from .._parameters import counted
from ._origin import Batch

__all__ = ["ScanTimings", "read_ahead"]


@dataclass
class ScanTimings:
    """Where the last metric call on a :class:`~receval.data.scan.Scan` spent its time.

    ``scan.timings`` after ``receval.roc_auc_score(s["click"], s["score"])``
    (or any metric, or :func:`receval.evaluate`, on a scan).

    Attributes
    ----------
    read : float
        Seconds spent reading, decoding and converting batches (in the reader
        thread, while the metric works on the batch before).
    compute : float
        Seconds the metric spent on batches and on its result: ``wall`` less the
        time it waited for a batch.
    wall : float
        Seconds the call took.
    passes : int
        Reads of the file (the exact AUC of a file larger than its memory reads it
        more than once).
    rows : int
        Rows read, over every pass.
    """

    read: float = 0.0
    compute: float = 0.0
    wall: float = 0.0
    passes: int = 0
    rows: int = 0

    def __str__(self) -> str:
        return (
            f"read {self.read:.3f} s, compute {self.compute:.3f} s, wall {self.wall:.3f} s "
            f"({counted(self.passes, 'pass', 'passes')}, {counted(self.rows, 'row')})"
        )


class Clock:
    """The timings of one call, filled as its passes read."""

    def __init__(self) -> None:
        self.timings = ScanTimings()
        self.waited = 0.0
        self.readers: list[Generator[Batch, None, None]] = []
        self._start = time.perf_counter()

    def stop(self) -> ScanTimings:
        """The call's timings, with ``wall`` and ``compute`` up to now; its readers
        are closed (a consumer that raised leaves its generator to the collector,
        which would keep the reader thread waiting with a batch)."""
        for reader in self.readers:
            reader.close()
        self.readers.clear()
        t = self.timings
        t.wall = time.perf_counter() - self._start
        t.compute = max(t.wall - self.waited, 0.0)
        return t


_END = object()


def read_ahead(
    source: Iterator[Batch], clock: Clock, *, in_thread: bool = True
) -> Generator[Batch, None, None]:
    """The batches of ``source``, produced one ahead in a thread (``in_thread=False``:
    in turn, for a read of one batch, which has nothing to overlap).

    An error of ``source`` is raised here, where the batch it would have been was
    due. When the consumer stops early (an error in a metric), the thread is
    stopped and ``source`` closed before this generator returns.
    """
    timings = clock.timings
    timings.passes += 1
    if not in_thread:
        while True:
            t0 = time.perf_counter()
            item = next(source, None)
            took = time.perf_counter() - t0
            timings.read += took
            clock.waited += took
            if item is None:
                return
            timings.rows += len(item.origin)
            yield item
    ready: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def work() -> None:
        try:
            while not stop.is_set():
                t0 = time.perf_counter()
                item = next(source, _END)
                timings.read += time.perf_counter() - t0
                ready.put((True, item))
                if item is _END:
                    return
        except BaseException as exc:  # handed to the consumer, raised there
            ready.put((False, exc))

    thread = threading.Thread(target=work, name="receval-scan-reader", daemon=True)
    thread.start()
    try:
        while True:
            t0 = time.perf_counter()
            ok, item = ready.get()
            clock.waited += time.perf_counter() - t0
            if not ok:
                raise item
            if item is _END:
                return
            timings.rows += len(item.origin)
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # free the queue so that a blocked put returns
            try:
                ready.get(timeout=0.01)
            except queue.Empty:
                pass
        thread.join()
        close = getattr(source, "close", None)
        if close is not None:
            close()
