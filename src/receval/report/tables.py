"""Escaping and formatting of table cells for Markdown, LaTeX and HTML (reports and the CLI)."""

from __future__ import annotations

import math
import re

#: p-values below this are written ``< 1e-4`` (:func:`format_p_value`).
P_VALUE_FLOOR = 1e-4

_LATEX = {
    "\\": "\\textbackslash{}",
    "&": "\\&",
    "%": "\\%",
    "_": "\\_",
    "#": "\\#",
    "$": "\\$",
    "{": "\\{",
    "}": "\\}",
    "~": "\\textasciitilde{}",
    "^": "\\textasciicircum{}",
    "<": "\\textless{}",
    ">": "\\textgreater{}",
    # a cell starting with "[" after a row's "\\" would be read as its optional length
    "[": "{[}",
    "]": "{]}",
}


#: Control characters other than a tab and line breaks: written as Python writes them
#: in a string (``\x1b``) in a table's text, so that none reaches a terminal or a file raw.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _visible(text: object) -> str:
    return _CONTROL.sub(lambda found: repr(found[0])[1:-1], str(text))


def latex_escape(text: object) -> str:
    r"""``text`` with LaTeX's special characters escaped, one character at a time,
    each line break a space (a blank line would end a paragraph inside a table), and
    control characters written as Python writes them (``\x1b``).

    Examples
    --------
    >>> print(latex_escape("[1cm] 50% a_b\n\nc\x1b"))
    {[}1cm{]} 50\% a\_b  c\textbackslash{}x1b
    """
    text = re.sub(r"\r\n?|\n", " ", _visible(text))
    return "".join(_LATEX.get(ch, ch) for ch in text)


#: What Markdown reads as inline syntax in a cell (emphasis, code, links and images,
#: strikethrough) or as a cell's end; ``_`` only where it can open or close emphasis:
#: not between two letters or digits (``model_a`` stays as it is).
_MARKDOWN_SYNTAX = re.compile(r"[|*`\[\]~]|(?<![^\W_])_|_(?![^\W_])")


def markdown_escape(text: object) -> str:
    r"""``text`` safe inside a Markdown table cell: no raw HTML (Markdown renders it),
    no inline syntax (``*``, ``_``, a backtick, ``[``, ``]``, ``~`` and ``|`` written
    with a backslash, and backslashes doubled), and a line break written ``<br>``, not
    a break of the row; control characters are written as Python writes them (``\x1b``).

    Examples
    --------
    >>> print(markdown_escape("a|b\\c <i>\r\nd"))
    a\|b\\c &lt;i&gt;<br>d
    >>> print(markdown_escape("__init__ *x* ![i](u) model_a"))
    \_\_init\_\_ \*x\* !\[i\](u) model_a
    """
    import html  # here: the CLI's start-up does not need it

    text = html.escape(_visible(text), quote=False).replace("\\", "\\\\")
    text = _MARKDOWN_SYNTAX.sub(lambda found: "\\" + found[0], text)
    return re.sub(r"\r\n?|\n", "<br>", text)


def flatten_counts(counts: dict[str, object]) -> dict[str, object]:
    """Counts with a nested dict's keys spelled ``name:key`` (``{"gauc": {"n_groups": 3}}``
    becomes ``{"gauc:n_groups": 3}``, and a dict nested deeper ``name:key:key``), for
    one line of text or extra table columns."""
    out: dict[str, object] = {}
    for key, value in counts.items():
        if isinstance(value, dict):
            out.update({f"{key}:{k}": v for k, v in flatten_counts(value).items()})
        else:
            out[key] = value
    return out


#: The plural nouns of counts' keys, as one of them says them (``1 user missing``).
_ONE = re.compile(r"\b(user|group|item|row|pair|event|segment|candidate|negative|model)s\b")


def _words(key: str, n: object = None) -> str:
    """A count's key as words: ``n_users_skipped`` -> ``users skipped`` (``user
    skipped`` for ``n`` = 1)."""
    words = key.removeprefix("n_").replace("_", " ")
    return _ONE.sub(r"\1", words, count=1) if n == 1 and not isinstance(n, bool) else words


def counts_sentence(
    counts: dict[str, object], values: dict[str, object] | None = None, digits: int = 4
) -> str:
    """The non-zero counts of a result as one sentence, thousands separated, each group
    of users said once.

    A count nested under a metric (``{"n_users_skipped": {"mrr": 3}}``) names the
    metric after it, and the metrics with the same count are named together; counts
    nested under a metric's name (``{"gauc": {"n_groups": 3}}``) follow the name. A
    count's breakdown by rule (``n_users_skipped_by``) is said with it, and a count
    of users that a rule of it already names (``n_users_empty``, the users skipped as
    ``empty_users``) is not said again. A non-integer number (``mean_ties_average``)
    is shown only where it differs from the metric's value in ``values``.

    Examples
    --------
    >>> from receval.report.tables import counts_sentence
    >>> counts_sentence({"n_users": 20381, "n_users_missing": 0,
    ...                  "n_users_skipped": {"ndcg@10": 2, "mrr": 0}})
    '20,381 users, 2 users skipped (ndcg@10)'
    >>> counts_sentence({"gauc": {"n_groups": 1200, "n_groups_skipped": 0}})
    'gauc: 1,200 groups'
    >>> counts_sentence({"n_users_skipped": {"mrr": 3, "map": 3},
    ...                  "n_users_skipped_by": {"mrr": {"empty_users": 2, "zero_users": 1},
    ...                                         "map": {"empty_users": 2, "zero_users": 1}},
    ...                  "n_users_empty": {"mrr": 2, "map": 2}})
    '3 users skipped: 2 empty users and 1 zero user (mrr, map)'
    >>> counts_sentence({"n_users_skipped_by": {"mrr": {"empty_users": 2, "zero_users": 0}}})
    '2 users skipped by empty users (mrr)'
    """
    known = values or {}
    parts: list[str] = []
    for key, value in counts.items():
        if not isinstance(value, dict):
            phrase = _count_phrase(key, value, None, digits)
            parts += [phrase] if phrase else []
            continue
        if all(str(k).startswith("n_") for k in value):
            inner = counts_sentence(value, None, digits)
            parts += [f"{key}: {inner}"] if inner else []
            continue
        if key.endswith("_by") and isinstance(counts.get(key.removesuffix("_by")), dict):
            continue  # said with the count it breaks down
        metrics: dict[str, list[str]] = {}  # each phrase, with the metrics it is said of
        for metric, v in value.items():
            # a metric's counts by rule with no total beside them: one phrase each
            phrases = (
                [_count_phrase(f"{key}_{k}", n, None, digits) for k, n in v.items()]
                if isinstance(v, dict)
                else [_count_phrase(key, v, known.get(metric), digits)]
            )
            if not isinstance(v, dict) and phrases[0]:
                if _named_by_a_rule(counts, key, metric, v):
                    continue
                phrases[0] += _rules(counts.get(f"{key}_by"), metric)
            for phrase in phrases:
                if phrase:
                    metrics.setdefault(phrase, []).append(str(metric))
        parts += [f"{phrase} ({', '.join(names)})" for phrase, names in metrics.items()]
    return ", ".join(parts)


def _rules(by: object, metric: str) -> str:
    """The rules that left out a metric's count (``n_users_skipped_by``), as words:
    ``": 2 empty users and 1 zero user"``, or ``""`` where none is known."""
    rules = by.get(metric) if isinstance(by, dict) else None
    if not isinstance(rules, dict):
        return ""
    said = [f"{n:,} {_words(k, n)}" for k, n in rules.items() if isinstance(n, int) and n]
    return ": " + " and ".join(said) if said else ""


def _named_by_a_rule(counts: dict[str, object], key: str, metric: str, n: object) -> bool:
    """Whether ``n`` of ``key`` (``n_users_empty``) are the users a rule of the metric
    left out, already said as such (``n_users_skipped_by``'s ``empty_users``)."""
    found = re.fullmatch(r"n_([a-z]+?)_([a-z]+)", key)
    if found is None or found[2] == "skipped":
        return False
    by = counts.get(f"n_{found[1]}_skipped_by")
    rules = by.get(metric) if isinstance(by, dict) else None
    return isinstance(rules, dict) and rules.get(f"{found[2]}_{found[1]}") == n


def _count_phrase(key: str, value: object, shown: object, digits: int) -> str:
    if isinstance(value, bool) or value is None or value == 0:
        return ""
    if isinstance(value, int):
        return f"{value:,} {_words(key, value)}"
    if isinstance(value, float):
        if shown is not None and (value == shown or (math.isnan(value) and shown != shown)):
            return ""
        return f"{_words(key)} {format_float(value, digits, thousands=True)}"
    return f"{_words(key)} {value}"


#: From this magnitude on, a number is written in exponent form: its fixed form would
#: print digits past a float's precision (1.25e299 as 300 digits).
EXPONENT_FROM = 1e16


def format_float(value: float, digits: int, *, thousands: bool = False) -> str:
    """A float rounded to ``digits`` decimals, in exponent form from 1e16 on
    (:data:`EXPONENT_FROM`); ``thousands``: with thousands separated by commas.

    Examples
    --------
    >>> from receval.report.tables import format_float
    >>> format_float(1234.5678, 2, thousands=True), format_float(-1.25e299, 3)
    ('1,234.57', '-1.250e+299')
    """
    form = "e" if abs(value) >= EXPONENT_FROM else "f"
    return f"{value:{',' if thousands else ''}.{digits}{form}}"


def format_p_value(p: float) -> str:
    """A p-value as text: ``"< 1e-4"`` below 1e-4, else 4 significant digits.

    Parameters
    ----------
    p : float
        The p-value, in [0, 1] or nan.

    Returns
    -------
    text : str
        ``"< 1e-4"``, ``"nan"`` or ``f"{p:.4g}"``.

    Examples
    --------
    >>> from receval.report.tables import format_p_value
    >>> format_p_value(3e-7), format_p_value(0.0001), format_p_value(0.04567), format_p_value(1.0)
    ('< 1e-4', '0.0001', '0.04567', '1')
    """
    value = float(p)
    if math.isnan(value):
        return "nan"
    if value < P_VALUE_FLOOR:
        return "< 1e-4"
    return f"{value:.4g}"
