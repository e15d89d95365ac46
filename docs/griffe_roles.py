"""Griffe extension: the reStructuredText roles of receval's docstrings as Markdown.

The docstrings are numpydoc, read by Sphinx-minded tools too: ``:func:`x```,
``:class:`x```, ``:math:`x``` and ``.. math::`` blocks. For the MkDocs site,
a role naming a documented public object becomes a link to it, any other role
target becomes code (in a parameter's type line: the bare name), math becomes
arithmatex's ``\\( \\)`` and ``$$`` blocks (MathML in the built site, docs/hooks.py),
and ``.. [1]`` citations plain ``[1]``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(func|class|meth|attr|mod|data|obj):`~?([^`]+)`")
_MATH = re.compile(r":math:`([^`]+)`")
_BLOCK = re.compile(r"^(\s*)\.\. math::[ \t]*(.*)$")
_CITATION = re.compile(r"^(\s*)\.\. \[(\w+)\]", re.MULTILINE)
_HEADER = re.compile(r"^\s*\**[\w, ]+ : \S")
_PLACE = re.compile(r"^\s*\{\w+\}$", re.MULTILINE)


def _runtime_doc(path: str) -> str | None:
    """The docstring of the object at ``path`` once imported (None: not found)."""
    module, _, name = path.rpartition(".")
    try:
        return inspect.getdoc(getattr(importlib.import_module(module), name))
    except (ImportError, AttributeError):
        return None


def _public() -> set[str]:
    import receval
    import receval.plot
    import receval.spark

    names = {f"receval.{n}" for n in receval.__all__}
    names |= {f"receval.plot.{n}" for n in receval.plot.__all__}
    return names | {f"receval.spark.{n}" for n in receval.spark.__all__}


def _role(match: re.Match[str], public: set[str]) -> str:
    target = match.group(2).strip()
    for candidate in (target, f"receval.{target}"):
        if candidate in public:
            return f"[`{target}`][{candidate}]"
    return f"`{target}`"


def _math_blocks(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = _BLOCK.match(lines[i])
        if not match:
            out.append(lines[i])
            i += 1
            continue
        indent = match.group(1)
        body = [match.group(2)] if match.group(2) else []
        i += 1
        while i < len(lines) and (
            (not lines[i].strip() and not body)
            or len(lines[i]) - len(lines[i].lstrip()) > len(indent)
        ):
            if lines[i].strip():
                body.append(lines[i].strip())
            i += 1
        out += ["", f"{indent}$$", *(indent + b for b in body), f"{indent}$$", ""]
    return "\n".join(out)


def rewrite(text: str, public: set[str]) -> str:
    """Rewrite a docstring's reStructuredText roles as Markdown.

    Parameters
    ----------
    text : str
        A docstring.
    public : set of str
        The documented objects' full names; roles naming one become links.

    Returns
    -------
    str
        The docstring for mkdocstrings.
    """
    text = _math_blocks(text)
    text = _MATH.sub(lambda m: f"\\({m.group(1)}\\)", text)
    text = _CITATION.sub(r"\1[\2]", text)
    lines = [
        # a parameter's type line is shown as code: name the target only
        _ROLE.sub(lambda m: m.group(2).strip(), line)
        if _HEADER.match(line)
        else _ROLE.sub(lambda m: _role(m, public), line)
        for line in text.split("\n")
    ]
    return "\n".join(lines)


class RstRoles(griffe.Extension):
    """Rewrite every docstring's roles once its object is loaded."""

    def __init__(self) -> None:
        self._names: set[str] | None = None

    def on_instance(self, *, obj: Any, **kwargs: Any) -> None:
        """Rewrite the docstring of a loaded object.

        Parameters
        ----------
        obj : griffe.Object
            The object griffe loaded.
        **kwargs : Any
            Unused.
        """
        if obj.docstring is None:
            return
        if self._names is None:
            self._names = _public()
        value = obj.docstring.value
        if _PLACE.search(value):  # shared paragraphs are filled in at import
            value = _runtime_doc(obj.path) or value
        obj.docstring.value = rewrite(value, self._names)
