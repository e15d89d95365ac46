"""A pipe as a path, for the readers' tests of ``<(...)`` inputs."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def pipe_of(data: bytes) -> Iterator[str]:
    """``/dev/fd/N``, as bash's ``<(...)`` gives it: the read end of a pipe that a
    thread writes ``data`` into (a reader that stops early closes it)."""
    read, write = os.pipe()

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(write, "wb", buffering=0) as fh:
            fh.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        yield f"/dev/fd/{read}"
    finally:
        os.close(read)
        writer.join()
