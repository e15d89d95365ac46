"""Updates on a background thread: the caller's step hands a batch over and goes on.

One thread per accumulator takes the batches from a bounded queue, in order (a
full queue makes the caller wait: memory stays bounded). An update that fails
in the thread raises at the accumulator's next call, as if that call had
raised it; later batches still count, as they would after an update that
raised in the caller. The thread ends when its accumulator is collected.
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["Worker"]

_STOP = object()


def _serve(tasks: queue.Queue[Any], errors: list[BaseException]) -> None:
    while True:
        task = tasks.get()
        try:
            if task is _STOP:
                return
            task()
        except BaseException as exc:  # raised in the caller's thread at its next call
            if not errors:
                errors.append(exc)
        finally:
            tasks.task_done()


class Worker:
    """A thread that runs an accumulator's updates in order.

    Parameters
    ----------
    depth : int
        Batches that may wait in the queue before ``submit`` blocks.
    """

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self._tasks: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._errors: list[BaseException] = []
        self._thread: threading.Thread | None = None

    def submit(self, task: Callable[[], None]) -> None:
        """Queue ``task`` (after raising the error of an earlier one, if any)."""
        self.raise_error()
        if self._thread is None:
            self._thread = threading.Thread(
                target=_serve, args=(self._tasks, self._errors), name="receval-update",
                daemon=True,
            )  # fmt: skip
            self._thread.start()
            weakref.finalize(self, self._tasks.put, _STOP)
        self._tasks.put(task)

    def wait(self) -> None:
        """Return once every queued task has run; raise the error of one that failed."""
        if self._thread is not None:
            self._tasks.join()
        self.raise_error()

    def raise_error(self) -> None:
        """Raise (once) the error of a task that failed."""
        if self._errors:
            raise self._errors.pop()
