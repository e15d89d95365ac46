"""The registry's schema: one :class:`MetricEntry` per metric of every family, its
typed :class:`Param` parameters, and how a parameter's value is written in a metric
string (:func:`format_number`, :func:`format_value`).

The rows themselves are data, by family: :mod:`receval.registry.ranking` (the
metrics of :func:`receval.evaluate`, run by the ranking kernel) and
:mod:`receval.registry.rows` (pointwise, grouped, list, off-policy, retention).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._kernels import codes as _core_codes

__all__ = [
    "FAMILIES",
    "MAX_GAINS",
    "MAX_LEVELS",
    "PARAM_KINDS",
    "TREC_LEVELS",
    "MetricEntry",
    "Param",
    "family_words",
    "format_number",
    "format_value",
]

FAMILIES = ("pointwise", "grouped", "ranking", "list", "retention", "off_policy")


def family_words(*families: str) -> str:
    """Families in words, after their article, as a message names them (``off_policy``
    is off-policy).

    Examples
    --------
    >>> family_words("off_policy"), family_words("pointwise", "grouped")
    ('an off-policy', 'a pointwise or grouped')
    """
    words = " or ".join(f.replace("_", "-") for f in families)
    return ("an " if words[:1] in ("a", "e", "i", "o", "u") else "a ") + words


#: trec_eval's recall levels of ``iprec_at_recall`` and ``11pt_avg``
TREC_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: most values a list parameter holds, and most pairs of a gain table (the
#: kernel's 16 float parameters: a count, then the values)
MAX_LEVELS = _core_codes().N_PARAMS - 1
MAX_GAINS = _core_codes().MAX_GAIN_PAIRS

#: A parameter's type: a number (``float``, ``int``), ``bool``, one word of
#: ``choices`` (``choice``), a list of numbers (``levels``), a table grade -> gain
#: (``gains``), or a Python object given as a keyword only (``object``: a mapping,
#: a pair, a label).
PARAM_KINDS = ("float", "int", "bool", "choice", "levels", "gains", "object")


@dataclass(frozen=True)
class Param:
    """A metric-specific parameter (``p`` of ``rbp(p=0.9)``, ``weighting`` of ``gauc``).

    Attributes
    ----------
    name : str
        Its key inside the parentheses of a metric string, and its keyword.
    kind : str
        One of :data:`PARAM_KINDS`.
    meaning : str
        One line.
    default : object
        Its value when not given.
    low, high : float
        The range of a number (of each number of a list).
    low_open, high_open : bool
        Whether the bounds themselves are excluded.
    required : bool
        Whether it must be given (it has no default).
    choices : tuple of str
        The words a ``choice`` takes; for a number, the words it takes besides
        numbers (``eps="auto"``).
    """

    name: str
    kind: str
    meaning: str
    default: Any = None
    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False
    required: bool = False
    choices: tuple[str, ...] = ()

    def range_text(self) -> str:
        """The values it takes in words: ``"in (0, 1)"``, ``"> 0"``, ``"one of [...]"``.

        Examples
        --------
        >>> from receval.registry import ENTRIES
        >>> [p.range_text() for name in ("rbp", "rprec_mult", "set_f", "gauc")
        ...  for p in ENTRIES[name].params][:4]
        ['in (0, 1)', '> 0', '>= 0', "one of ['clicks', 'impressions', 'uniform']"]
        >>> ENTRIES["gauc"].params[-1].range_text()  # pos_label: any label, by keyword
        'given as a keyword argument'
        """
        if self.kind == "choice":
            return f"one of {sorted(self.choices)!r}"
        if self.kind == "bool":
            return "true or false"
        if self.kind == "object":
            return "given as a keyword argument"
        low, high = math.isfinite(self.low), math.isfinite(self.high)
        if low and high:
            left = "(" if self.low_open else "["
            right = ")" if self.high_open else "]"
            text = f"in {left}{format_number(self.low)}, {format_number(self.high)}{right}"
        elif low:
            text = f"{'>' if self.low_open else '>='} {format_number(self.low)}"
        elif high:
            text = f"{'<' if self.high_open else '<='} {format_number(self.high)}"
        else:
            text = "a finite number"
        if self.kind == "int":
            text = f"an integer {text}" if text != "a finite number" else "an integer"
        if self.choices:
            text += " or " + " or ".join(repr(c) for c in self.choices)
        return text

    def describe(self) -> str:
        """One line: name, meaning, values and default.

        Examples
        --------
        >>> from receval.registry import ENTRIES
        >>> ENTRIES["rbp"].params[0].describe()
        'p: persistence, in (0, 1), default 0.8'
        """
        if self.kind == "gains":
            what = "grade:gain pairs separated by ';'"
        elif self.kind == "levels":
            what = f"numbers {self.range_text()} separated by ';'"
        else:
            what = self.range_text()
        if self.required:
            default = "required"
        elif self.kind == "gains" and not self.default:
            default = "default: none (each grade is its gain)"
        elif self.default is None or self.kind == "object":
            default = f"default {self.default!r}"
        else:
            default = f"default {format_value(self, self.default)}"
        return f"{self.name}: {self.meaning}, {what}, {default}"

    def in_range(self, x: float) -> bool:
        """Whether the number ``x`` is in the parameter's range."""
        if x < self.low or x > self.high:
            return False
        return not ((self.low_open and x == self.low) or (self.high_open and x == self.high))


@dataclass(frozen=True)
class MetricEntry:
    """What the registry knows of one metric: one row, for every family.

    Attributes
    ----------
    name : str
        Canonical name: the metric string's name (``"ndcg"``, ``"gauc"``).
    family : str
        One of :data:`FAMILIES`.
    description : str
        One-line definition.
    aliases : tuple of str
        Other names it is known by (receval's short names, other libraries'
        spellings as they write them: trec_eval's ``P_10``, ir_measures' ``nDCG``).
        Names are matched case-insensitively; no name means two metrics.
    higher_is_better : bool or None
        The direction: None where neither is better (PCOC and COPC: 1 is best;
        the intersection of two runs).
    inputs : tuple of str
        Its data arguments, in order (those of its definition's ``update``
        where it has a definition).
    partitionings : tuple of str
        How its rows may be split across batches, partitions or workers:
        ``"any"``, ``"groups"`` (whole groups or users), ``"ranges"`` (disjoint
        score ranges); empty when it needs all the rows at once. A metric with a
        partitioning has a definition (:func:`receval.metric`).
    function_path : str
        Where its public function lives, ``"module:name"``.
    definition_path : str
        Where its engine definition lives, ``"module:name"``; empty when it has
        none (it needs all the rows at once, or is computed by ``evaluate``).
    accepts_k : bool
        Whether it takes an ``@k`` cut-off.
    source : str
        The definition it follows (``"trec_eval 10.0"``, ``"scikit-learn"``, ...).
    params : tuple of Param
        Its own typed parameters, in canonical order.
    conventions : tuple of str
        The conventions of :func:`receval.evaluate` that change its value; its
        metric string takes these and its parameters only.
    kind : int or None
        The ranking kernel's code of the metric (None: not a kernel metric).
    bounded : bool
        Kernel metrics: whether its values lie in [0, 1].
    mean : str
        Kernel metrics: how per-user values combine: ``"users"`` (mean over
        users), ``"pooled"`` (sum of numerators over sum of denominators),
        ``"sum"`` (counts), ``"geometric"`` (trec_eval's geometric mean, each
        value floored at 1e-5).
    choices : tuple of (str, tuple of str)
        Conventions of which it reads only some values.
    needs : str
        Kernel metrics: besides the run, ``"qrels"`` (judgments),
        ``"similarity"``, ``"popularity"``, ``"history"`` (train=) or
        ``"categories"`` (train= and item_categories=).
    """

    name: str
    family: str
    description: str
    aliases: tuple[str, ...] = ()
    higher_is_better: bool | None = True
    inputs: tuple[str, ...] = ("y_true", "y_score")
    partitionings: tuple[str, ...] = ("any",)
    function_path: str = ""
    definition_path: str = ""
    accepts_k: bool = False
    source: str = "receval"
    params: tuple[Param, ...] = ()
    conventions: tuple[str, ...] = ()
    kind: int | None = None
    bounded: bool = True
    mean: str = "users"
    choices: tuple[tuple[str, tuple[str, ...]], ...] = ()
    needs: str = ""

    @property
    def function(self) -> str:
        """The public function's name (``receval.<function>``): ``"evaluate"`` for a
        metric string of :func:`receval.evaluate`."""
        return self.function_path.rpartition(":")[2]

    @property
    def parameters(self) -> tuple[str, ...]:
        """Its parameters, one line each (``"p: persistence, in (0, 1), default 0.8"``)."""
        return tuple(p.describe() for p in self.params)

    @property
    def options(self) -> list[str]:
        """Every key its metric string takes: its parameters, then its conventions.

        Examples
        --------
        >>> from receval.registry import ENTRIES
        >>> ENTRIES["num_rel"].options
        ['estimator', 'missing_users', 'rel_threshold']
        >>> ENTRIES["rbp"].options[:5]
        ['p', 'depth', 'empty_users', 'estimator', 'gain']
        >>> ENTRIES["gauc"].options
        ['weighting', 'pos_label']
        """
        return [p.name for p in self.params] + sorted(self.conventions)

    def values_of(self, convention: str) -> tuple[str, ...] | None:
        """The values of ``convention`` it takes, or None for every value."""
        return dict(self.choices).get(convention)


def format_number(x: float) -> str:
    """The canonical spelling of a number in a metric string.

    Whole numbers without a decimal point, others as Python's shortest
    ``repr``, so that parsing the text gives the same float.

    Parameters
    ----------
    x : float

    Returns
    -------
    text : str

    Examples
    --------
    >>> from receval.registry.schema import format_number
    >>> format_number(0.80), format_number(2.0), format_number(-0.0), format_number(1e-5)
    ('0.8', '2', '0', '1e-05')
    """
    x = float(x)
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


def format_value(param: Param, value: Any) -> str:
    """The canonical spelling of a parameter's value: a number, a word, a list, a gain table.

    Parameters
    ----------
    param : Param
        The parameter, whose ``kind`` says how to write the value.
    value : object
        As :class:`receval.MetricSpec` holds it.

    Returns
    -------
    text : str

    Examples
    --------
    >>> from receval.registry import ENTRIES
    >>> from receval.registry.schema import format_value
    >>> levels, = ENTRIES["iprec_avg"].params
    >>> format_value(levels, (0.2, 0.5))
    '0.2;0.5'
    >>> gains, = ENTRIES["ndcg"].params
    >>> format_value(gains, ((1, 3.0), (2, 4.5)))
    '1:3;2:4.5'
    """
    if param.kind == "levels":
        return ";".join(format_number(v) for v in value)
    if param.kind == "gains":
        return ";".join(f"{g}:{format_number(v)}" for g, v in value)
    if param.kind == "bool":
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if param.kind == "int":
        return str(int(value))
    return format_number(value)
