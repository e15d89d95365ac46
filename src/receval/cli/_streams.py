"""What every command writes: standard output checked, and notes, warnings and
errors on standard error.

Free of Typer and rich, so that ``receval trec-eval`` runs without loading
them (:func:`receval.cli.main`).
"""

from __future__ import annotations

import io
import os
import re
import sys
import warnings
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from typing import Any

from .._parameters import counted
from ._stdin import displayed

__all__ = ["Messages", "checked_stdout", "displayed", "one_line"]


# ------------------------------------------------------------------ standard output
class _StdoutWriter(io.RawIOBase):
    """File descriptor 1, written in full or not at all.

    Python's buffered writer drops the rest of a write that a file-size limit
    cuts short and reports no error; here every byte is written (``os.write``
    until done), or the error is raised once as an ``OSError`` naming standard
    output (full disk, ``RLIMIT_FSIZE``, I/O error), after which the rest of the
    output is dropped. A closed pipe (``EPIPE``) ends the command quietly with
    status 141 (128 + ``SIGPIPE``), as a Unix tool that ``SIGPIPE`` stops; never 1,
    which ``gate`` gives a failed candidate.
    """

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.failed: OSError | None = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, b: Any) -> int:
        data = memoryview(b).cast("B")
        if self.failed is not None:
            return len(data)  # reported once: the rest is dropped
        done = 0
        try:
            while done < len(data):
                done += os.write(self._fd, data[done:])
        except BrokenPipeError:
            self.failed = BrokenPipeError()
            _silence(self._fd)
            raise SystemExit(CLOSED_PIPE) from None
        except OSError as exc:
            self.failed = OSError(exc.errno, exc.strerror or str(exc), "standard output")
            raise self.failed from None
        return done


#: The status of a command whose standard output was closed: 128 + SIGPIPE, as the
#: shell reports a tool that SIGPIPE stopped.
CLOSED_PIPE = 141


def _silence(fd: int) -> None:
    """Point ``fd`` at /dev/null, so that nothing more is written where it failed."""
    with suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


@contextmanager
def checked_stdout() -> Iterator[None]:
    """Run a command with every write to standard output checked.

    A write that fails (full disk, a file-size limit) prints ``error: standard
    output: <reason>.`` on stderr and exits with status 2 instead of exiting 0
    with the results cut; a closed pipe (``receval ... | head``) exits with
    status 141 (:data:`CLOSED_PIPE`) and prints nothing. Standard output is written through
    :class:`_StdoutWriter` meanwhile (same encoding, same line buffering).
    """
    original = sys.stdout
    try:
        fd = original.fileno()
    except (AttributeError, OSError, ValueError):  # not a file: nothing to check
        yield
        return
    original.flush()
    writer = _StdoutWriter(fd)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(writer),
        encoding=original.encoding,
        errors=original.errors,
        line_buffering=bool(original.line_buffering),
    )
    try:
        try:
            yield
        finally:
            sys.stdout.flush()
    except OSError as exc:
        if exc is not writer.failed:
            raise
        sys.stderr.write(f"error: {exc.filename}: {exc.strerror}.\n")
        raise SystemExit(2) from None


# ------------------------------------------------------------------ messages and errors
def _to_stderr(line: str) -> None:
    """Write a line on stderr after what stdout holds, so that piped into one stream
    (``2>&1 | less``) a message comes where it came on a terminal."""
    sys.stdout.flush()
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


class Messages:
    """Notes, warnings, progress and errors on stderr; ``quiet`` silences all but errors.

    Library messages are put in the words of the running command (its options
    and the other commands: :func:`receval.cli._translate.cli_text`), unless
    ``translate`` is false (``trec-eval`` speaks trec_eval's options, ``-M``,
    ``-J``, to which the library's names do not map). ``command``: the running
    command's name, where no click context tells it (a command run before Typer
    is loaded).
    """

    def __init__(self, quiet: bool, *, translate: bool = True, command: str | None = None) -> None:
        self.quiet = quiet
        self.translate = translate
        self.command = command

    def note(self, text: str) -> None:
        if not self.quiet:
            _to_stderr(f"note: {displayed(text)}")

    def warning(self, text: str) -> None:
        if not self.quiet:
            _to_stderr(f"warning: {displayed(text)}")

    @staticmethod
    def error(text: str) -> None:
        _to_stderr(f"error: {displayed(text)}")

    def fail(self, text: str) -> SystemExit:
        """Print ``error: text`` and return the exit (status 2) to raise."""
        self.error(text)
        return SystemExit(2)

    @staticmethod
    def sized(path: str) -> str:
        """``path (12.3 MB)``: a file named in a progress line with its size."""
        try:
            size = float(os.path.getsize(path))
        except OSError:
            return path
        if size < 1000:
            return f"{path} ({counted(int(size), 'byte')})"
        for unit in ("kB", "MB", "GB"):
            size /= 1000
            if size < 1000 or unit == "GB":
                break
        return f"{path} ({size:.1f} {unit})"

    def progress(self, text: str) -> AbstractContextManager[Any]:
        """A spinner on stderr, only when stderr is a terminal and not quiet."""
        stream = sys.stderr
        if self.quiet or not (hasattr(stream, "isatty") and stream.isatty()):
            return nullcontext()
        from rich.console import Console

        status: AbstractContextManager[Any] = Console(file=stream).status(text)
        return status

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Turn receval, file and Arrow errors into ``error: <message>`` and exit 2.

        Warnings raised meanwhile (e.g. ``UndefinedMetricWarning``) are printed
        as ``warning: <message>`` lines, once each; a receval warning that a filter
        made an error (``python -W error``) is an ``error:`` line like the others.
        """
        from ..exceptions import RecevalError, RecevalWarning, UndefinedMetricWarning

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UndefinedMetricWarning)
            try:
                yield
            except (KeyboardInterrupt, SystemExit, GeneratorExit):
                raise
            except MemoryError as exc:  # not bad input: exit 1, with what could not be had
                self._warnings(caught)
                text = str(exc).strip()
                self.error(
                    f"out of memory{': ' + one_line(exc) if text else '.'} Free memory, raise "
                    f"the process's memory limit (ulimit -v), or evaluate fewer rows at a time."
                )
                raise SystemExit(1) from None
            except BaseException as exc:
                known: tuple[type[BaseException], ...] = (
                    RecevalError,
                    RecevalWarning,
                    *_reader_errors(),
                )
                if not isinstance(exc, known) and not _panic(exc):
                    raise
                self._warnings(caught)
                raise self.fail(self.in_cli_words(one_line(exc))) from None
        self._warnings(caught)

    def _warnings(self, caught: list[warnings.WarningMessage]) -> None:
        seen: set[str] = set()
        for w in caught:
            text = self.in_cli_words(one_line(w.message))
            if text not in seen:
                seen.add(text)
                self.warning(text)
        caught.clear()

    def in_cli_words(self, text: str) -> str:
        """``text`` in the words of the running command, if translated."""
        if not self.translate:
            return text
        from ._translate import cli_text

        if self.command is not None:
            return cli_text(text, self.command)
        from ._params import CLICK

        ctx = CLICK.globals.get_current_context(silent=True)
        return cli_text(text, ctx.info_name if ctx is not None else None)

    def error_words(self, exc: BaseException, weight: str | None = None) -> str:
        """A library error in the command's words (:meth:`in_cli_words`, on one line);
        labels that are not two classes are the ``--label`` column's, whatever the
        function would take instead (``multi_class=``, ``pos_label=``), as are the
        labels the message names ``y_true``, and the sample weights are the
        ``--weight`` column's (``weight``: its name)."""
        classes = getattr(exc, "classes", None)
        if classes is None or not self.translate:
            text = one_line(exc)
            if weight is not None and self.translate:
                text = weight_words(text, weight)
            if self.translate:
                text = re.sub(r"\by_true\b", "--label", text)
            return self.in_cli_words(text)
        from .._parameters import format_values

        return (
            f"--label must hold binary labels (0/1, -1/1 or true/false). Got values "
            f"{format_values(classes)}; make the column 0/1 first (e.g. clicks > 0)."
        )


def _reader_errors() -> tuple[type[BaseException], ...]:
    """What a file reader can raise on a broken or unreadable file: OS errors,
    undecodable text, truncated compressed streams, and Arrow's and polars' errors
    once they are loaded (none can be raised before)."""
    import zlib

    found: list[type[BaseException]] = [OSError, UnicodeError, EOFError, zlib.error]
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        found.append(pa.ArrowException)
    pl = sys.modules.get("polars")
    if pl is not None:
        found.append(pl.exceptions.PolarsError)
    return tuple(found)


def _panic(exc: BaseException) -> bool:
    """A native reader's panic (PyO3's ``PanicException``, a ``BaseException``)."""
    return type(exc).__name__ == "PanicException"


def one_line(exc: BaseException | Warning | str) -> str:
    text = " ".join(str(exc).split("\n")).strip()
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}."
    return displayed(text) or type(exc).__name__


#: The sample weights a library message names: its subject (``log_loss: sample_weight
#: must ...``, the function's name dropped) or a word of it (``every sample weight``).
_SAMPLE_WEIGHT = re.compile(r"^(?:[\w.]+: )?sample_weight\b|\bsample[ _]weight\b")


def weight_words(text: str, weight: str) -> str:
    r"""``text``, a library message, with its sample weights said as the ``--weight``
    column ``weight``.

    Examples
    --------
    >>> weight_words("log_loss: sample_weight must be non-negative.", "w")
    '--weight w must be non-negative.'
    >>> print(weight_words("log_loss: every sample weight is zero.", r"w\d"))
    log_loss: every --weight w\d is zero.
    """
    return _SAMPLE_WEIGHT.sub(lambda _: f"--weight {weight}", text)
