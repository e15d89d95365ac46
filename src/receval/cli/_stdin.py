"""Standard input as an input file of the commands: ``-`` for one ``FILE`` parameter;
a pipe (bash's ``<(...)``) for any.

A command's input file parameters (metavar ``FILE``, other than ``--out`` and
``--output``) get a callback (:func:`accept_stdin`, from the command class in
``_params.py``) that turns ``-`` into a temporary copy of standard input, and a
pipe into a copy of its bytes (the readers map files, read some twice, and tell
Parquet by its first bytes); messages and titles name the copy ``<stdin>``, or
the pipe as given (:func:`displayed`).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

__all__ = ["STDIN_NAME", "accept_stdin", "displayed", "stdin_input"]

#: How messages name standard input.
STDIN_NAME = "<stdin>"
#: The temporary copies of standard input and pipes made for this process's commands,
#: and the name messages give each (``<stdin>``, or the pipe's path as given).
_STDIN_COPIES: dict[str, str] = {}


#: The control characters a terminal would act on (a line feed aside): C0, DEL and C1.
_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def displayed(text: str) -> str:
    r"""``text`` with the temporary copies of standard input and pipes (see
    :func:`stdin_input`) named ``<stdin>`` or as given, for messages and titles,
    and each control character but a line feed written as Python writes it in a
    string (``\x1b``, ``\t``), so that none reaches the terminal.

    Examples
    --------
    >>> print(displayed("\x1b[31mred\tx"))
    \x1b[31mred\tx
    """
    for copy, name in _STDIN_COPIES.items():
        text = text.replace(copy, name)
    return _CONTROL.sub(lambda m: repr(m[0])[1:-1], text)


def accept_stdin(params: list[Any]) -> list[Any]:
    """Let each input file parameter of a command (metavar ``FILE``, not an output)
    take ``-`` for standard input (see :func:`stdin_input`); returns ``params``."""
    for param in params:
        opts = getattr(param, "opts", ())
        if getattr(param, "metavar", None) != "FILE" or {"--out", "--output"} & set(opts):
            continue
        if getattr(param, "_reads_stdin", False):
            continue
        given = param.callback

        def callback(ctx: Any, p: Any, value: Any, given: Any = given) -> Any:
            value = stdin_input(ctx, p, value)
            return value if given is None else given(ctx, p, value)

        param.callback = callback
        param._reads_stdin = True
    return params


def stdin_input(ctx: Any, param: Any, value: Any) -> Any:
    """``-`` as the value of an input file parameter: standard input, copied to a
    temporary file (the readers map files and read some twice) removed when the
    command ends; a pipe (:func:`receval.data._open.is_stream`) likewise. The copy's
    suffix tells its format where no format option does: ``.parquet`` for Parquet
    bytes (``PAR1``); none for a qrels or run text (read as TREC); ``.tsv`` for
    another text whose first line holds a tab, else ``.csv``. One input at most
    comes from standard input; messages name it ``<stdin>``, and a pipe as given."""
    if isinstance(value, (list, tuple)):
        return type(value)(stdin_input(ctx, param, v) for v in value)
    from ..data._open import is_parquet, is_stream

    if value != "-" and not (isinstance(value, str) and is_stream(value)):
        return value
    import shutil
    import tempfile

    root = ctx.find_root()
    option = (param.opts or [param.human_readable_name])[0]
    first = root.meta.get("receval.stdin") if value == "-" else None
    if first is not None:
        import typer

        raise typer.BadParameter(
            f"standard input ('-') is already read by {first}; only one input can come "
            f"from standard input.",
            ctx=ctx,
            param=param,
        )
    if value == "-":
        root.meta["receval.stdin"] = option
    directory = tempfile.mkdtemp(prefix="receval-stdin-")
    root.call_on_close(lambda: shutil.rmtree(directory, ignore_errors=True))
    path = os.path.join(directory, "stdin" if value == "-" else os.path.basename(value))
    with open(path, "wb") as out:
        if value == "-":
            shutil.copyfileobj(sys.stdin.buffer, out)
        else:
            with open(value, "rb") as source:
                shutil.copyfileobj(source, out)
    with open(path, "rb") as f:
        head = f.readline(1 << 16)
    if is_parquet(head):
        suffix = ".parquet"
    elif option in ("--qrels", "--run"):
        suffix = ""
    else:  # an impression or event log, a table of items
        suffix = ".tsv" if b"\t" in head else ".csv"
    if suffix:
        os.rename(path, path + suffix)
        path += suffix
    _STDIN_COPIES[path] = STDIN_NAME if value == "-" else value
    return path
