"""Updates on a background thread: the caller's step hands a batch over and goes on.

One thread per accumulator takes the batches from a bounded queue, in order (a
full queue makes the caller wait: memory stays bounded). An update that fails
in the thread raises at the accumulator's next call (after that call's own
batch is queued, as every later batch is: they count; ``reset`` forgets it
instead), its message prefixed with the failed batch's number, counted from 1
over the batches queued since the accumulator was made (or unpickled) or reset,
and those of any other batch that failed since. The thread ends when its
accumulator is collected.
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["Worker", "prefixed"]

_STOP = object()


def _serve(tasks: queue.Queue[Any], errors: list[tuple[int, BaseException]]) -> None:
    while True:
        task = tasks.get()
        try:
            if task is _STOP:
                return
            number, run = task
            try:
                run()
            except BaseException as exc:  # raised in the caller's thread at its next call
                errors.append((number, exc))
        finally:
            tasks.task_done()


class Worker:
    """A thread that runs an accumulator's updates in order.

    Parameters
    ----------
    depth : int
        Batches that may wait in the queue before ``submit`` blocks.
    func : str
        The caller, as the errors name it (``Accumulator.update of 'roc_auc'``).
    """

    def __init__(self, depth: int, func: str) -> None:
        self.depth = depth
        self.func = func
        #: batches queued since the worker was made or ``restart`` was called
        self.n_submitted = 0
        self._tasks: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._errors: list[tuple[int, BaseException]] = []
        self._thread: threading.Thread | None = None

    def submit(self, task: Callable[[], None]) -> None:
        """Queue ``task``, then raise the error of an earlier one that failed, if any."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=_serve, args=(self._tasks, self._errors), name="receval-update",
                daemon=True,
            )  # fmt: skip
            self._thread.start()
            weakref.finalize(self, self._tasks.put, _STOP)
        self.n_submitted += 1
        self._tasks.put((self.n_submitted, task))
        self.raise_error(queued=self.n_submitted)

    def wait(self) -> None:
        """Return once every queued task has run; raise the error of one that failed."""
        if self._thread is not None:
            self._tasks.join()
        self.raise_error()

    def restart(self) -> None:
        """Wait for the queued tasks, forget the failures not yet raised (their batches
        did not count), then count batches from 1 again."""
        if self._thread is not None:
            self._tasks.join()
        self._errors.clear()
        self.n_submitted = 0

    def raise_error(self, queued: int | None = None) -> None:
        """Raise (once) the error of the first task that failed since the last raise,
        its message naming that batch (and any other that failed since); ``queued``:
        the number of the batch that the raising call has just queued."""
        if not self._errors:
            return
        failed = [self._errors.pop(0) for _ in range(len(self._errors))]
        number, exc = failed[0]
        others = [n for n, _ in failed[1:]]
        also = "" if not others else f" (batches {others} failed too and did not count)"
        this = "" if queued is None else (
            f"; the batch of this call (batch {queued}) is queued and counts: do not pass "
            f"it again"
        )  # fmt: skip
        raise prefixed(
            exc,
            f"{self.func} on the background thread: batch {number} failed and did not "
            f"count{also}{this}. The error: ",
            said=f"{self.func}: ",
        )


def prefixed(exc: BaseException, prefix: str, said: str = "") -> BaseException:
    """``exc``, its message (where it is a string) prefixed with ``prefix``, in place of
    ``said`` where it begins so (the caller that ``prefix`` names already)."""
    if exc.args and isinstance(exc.args[0], str):
        message = exc.args[0]
        message = message[len(said) :] if said and message.startswith(said) else message
        exc.args = (prefix + message, *exc.args[1:])
    return exc
