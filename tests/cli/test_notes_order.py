"""Messages on stderr come after what standard output already holds: piped into one
stream, a note follows the table printed before it, as on a terminal."""

from __future__ import annotations

import io
import sys

import pytest

from receval.cli._common import Messages


class _Buffered(io.StringIO):
    """A stream that passes its text on to ``log`` only when flushed (a pipe's buffer)."""

    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    def flush(self) -> None:
        self.log.append(self.getvalue())
        self.seek(0)
        self.truncate()


class _Direct(io.StringIO):
    def __init__(self, log: list[str]) -> None:
        super().__init__()
        self.log = log

    def write(self, text: str | bytes) -> int:  # type: ignore[override]
        self.log.append(text.decode() if isinstance(text, bytes) else text)
        return len(text)


def test_notes_warnings_and_errors_follow_earlier_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    log: list[str] = []
    monkeypatch.setattr(sys, "stdout", _Buffered(log))
    monkeypatch.setattr(sys, "stderr", _Direct(log))
    say = Messages(quiet=False)
    for i, message in enumerate((say.note, say.warning, Messages.error)):
        sys.stdout.write(f"table {i}\n")
        message(f"about table {i}")
    text = "".join(log)
    assert text == (
        "table 0\nnote: about table 0\ntable 1\nwarning: about table 1\n"
        "table 2\nerror: about table 2\n"
    )
