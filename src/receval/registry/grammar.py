"""The grammar of metric strings, for every family: ``name(param=value, ...)@k``.

A metric string is ``name``, optionally followed by parameters and conventions
in parentheses and a cut-off: ``"ndcg@10"``, ``"ndcg(gain=exponential)@10"``,
``"map(ap_normalizer=min_k, rel_threshold=2)@100"``, ``"rbp(p=0.9)"``,
``"gauc(weighting=clicks)"``, ``"log_loss(eps=1e-7)"``. Names are
case-insensitive; aliases and the spellings of trec_eval, ir_measures and ranx
(``auc``, ``P_10``, ``nDCG@10``, ``recip_rank``, ``IPrec@0.1``, ``rbp.95``) are
read through one table, :data:`~receval.registry.peers.SPELLINGS`.
``str(parse_metric(s))`` is the canonical form, and parsing it again gives the
same metric.

Parameter values: numbers as Python writes floats (``0.8``, ``.5``, ``1e-3``;
canonical: the shortest form, ``p=0.80`` is ``p=0.8`` and ``a=2.0`` is ``a=2``);
words of a choice (``weighting=clicks``); ``true`` or ``false``;
lists of numbers separated by ``;`` (``levels=0.2;0.5;0.8``, or in brackets
``levels=[0.2,0.5,0.8]``); tables of ``grade:gain`` pairs separated by ``;``
(``gains=0:0;1:1;2:3``, or in braces ``gains={0:0,1:1,2:3}``). A parameter at
its default is left out of the canonical string.
"""

from __future__ import annotations

import difflib
import functools
import math
import os
import re
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from ..conventions import CHOICES, FIELDS
from ..exceptions import InvalidParameterError, UnknownMetricError, warn
from .peers import SPELLINGS, Spelling, catboost_metric, objective
from .schema import MAX_GAINS, MAX_LEVELS, MetricEntry, Param, format_value
from .table import ENTRIES

__all__ = [
    "MetricSpec",
    "check_value",
    "not_an_option",
    "parse_metric",
    "parse_metrics",
    "parse_with",
]


_LITERALS: dict[str, Spelling] = {}
for _row in SPELLINGS:
    if not _row.pattern:
        _LITERALS.setdefault(_row.spelling.lower(), _row)
_PATTERNS = [(re.compile(s.spelling, re.IGNORECASE), s) for s in SPELLINGS if s.pattern]
#: spellings that mean another metric with rel= and whose lower case is a canonical
#: name: matched exactly (``RBP(rel=2)`` is ir_measures' binary RBP, ``rbp(rel=2)``
#: receval's graded one)
_WITH_REL = {
    s.spelling: s
    for s in SPELLINGS
    if s.with_rel and not s.pattern and s.spelling.lower() in ENTRIES
}


#: Keys of other libraries inside the parentheses: ir_measures' ``rel`` is
#: ``rel_threshold``; its ``dcg`` names the gain
_KEYS = {"rel": "rel_threshold"}
_SETS_REL = re.compile(r"(?:^|,)\s*rel(?:_threshold)?\s*=", re.IGNORECASE)
_SETS_RELATIVE = re.compile(r"(?:^|,)\s*relative\s*=\s*true\s*(?:,|$)", re.IGNORECASE)
#: ir_measures' relative=True/False of SetP, read by the spelling (SetRelP when true)
_RELATIVE_OF = {"set_precision": "false", "set_relative_precision": "true"}
_DCG = {"log2": "linear", "exp-log2": "exponential"}


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric string: name, cut-off, conventions and metric parameters.

    Attributes
    ----------
    name : str
        Canonical name (a key of :data:`~receval.registry.ENTRIES`).
    k : int or None
        The cut-off.
    params : tuple of (str, object)
        Conventions written in the string, sorted by key.
    args : tuple of (str, object)
        Metric parameters that differ from their defaults (and the required
        ones), in the order the metric declares them: floats, tuples of floats
        (``levels``), tuples of (grade, gain) pairs (``gains``).
    written : frozenset of str
        The metric parameters the string sets, a default included
        (``gauc(weighting=impressions)`` sets ``weighting``): the string's choice,
        which a caller-wide setting does not override (see :attr:`given`). Not
        compared: a parameter written at its default is the same metric.
    """

    name: str
    k: int | None = None
    params: tuple[tuple[str, object], ...] = field(default=())
    args: tuple[tuple[str, object], ...] = field(default=())
    written: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @property
    def info(self) -> MetricEntry:
        """The registry's row of the metric."""
        return ENTRIES[self.name]

    @property
    def given(self) -> dict[str, Any]:
        """The metric parameters the string sets, at their values (its defaults too).

        What a caller-wide setting (the gate's ``weighting``) fills in only where
        it is missing: :attr:`args` leaves out a parameter written at its default.

        Examples
        --------
        >>> from receval import parse_metric
        >>> spec = parse_metric("gauc(weighting=impressions)")
        >>> spec.args, spec.given
        ((), {'weighting': 'impressions'})
        >>> spec == parse_metric("gauc")
        True
        """
        return {name: self.arg(name) for name in self.written} | dict(self.args)

    def filled(self, **settings: Any) -> MetricSpec:
        """The metric with caller-wide ``settings`` for the parameters it takes and its
        string does not set (the gate's ``weighting``): a parameter written in the
        string, at its default or not, keeps its value.

        Examples
        --------
        >>> from receval import parse_metric
        >>> str(parse_metric("gauc").filled(weighting="clicks"))
        'gauc(weighting=clicks)'
        >>> str(parse_metric("gauc(weighting=impressions)").filled(weighting="clicks"))
        'gauc'
        >>> str(parse_metric("ndcg@10").filled(weighting="clicks"))
        'ndcg@10'
        """
        own = [p for p in self.info.params if p.name in settings and p.name not in self.written]
        if not own:
            return self
        given = {p.name: settings[p.name] for p in own} | self.given
        args = tuple(
            (p.name, given[p.name])
            for p in self.info.params
            if p.name in given and given[p.name] != p.default
        )
        return replace(self, args=args, written=self.written | {p.name for p in own})

    def arg(self, name: str) -> Any:
        """The value of a metric parameter: as written, else its default."""
        given = dict(self.args)
        if name in given:
            return given[name]
        for param in self.info.params:
            if param.name == name:
                return param.default
        raise KeyError(name)

    def float_params(self) -> tuple[float, ...]:
        """The metric parameters as the kernel's float columns P0, P1, ...

        Numbers one each (``true``: 1), in declaration order; a list as its length then its
        values (length 0 for the default, trec_eval's 11 levels); a gain table as
        its number of pairs then grade, gain of each pair.

        Examples
        --------
        >>> from receval import parse_metric
        >>> parse_metric("utility(a=2)").float_params()
        (2.0, -1.0, 0.0, 0.0, 0.0)
        >>> parse_metric("iprec_avg").float_params()
        (0.0,)
        >>> parse_metric("ndcg(gains=1:3;2:9)").float_params()
        (2.0, 1.0, 3.0, 2.0, 9.0)
        """
        given = dict(self.args)
        out: list[float] = []
        for param in self.info.params:
            value: Any = given.get(param.name, param.default)
            if param.kind in ("float", "bool"):
                out.append(float(value))
            elif param.kind == "levels":
                out += [0.0] if param.name not in given else [float(len(value)), *value]
            else:
                out.append(float(len(value)))
                for grade, gain in value:
                    out += [float(grade), float(gain)]
        return tuple(out)

    def __str__(self) -> str:
        text = self.name
        parts = [f"{key}={format_value(self._param(key), value)}" for key, value in self.args]
        parts += [f"{key}={value}" for key, value in self.params]
        if parts:
            text += "(" + ",".join(parts) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text

    def _param(self, key: str) -> Param:
        return next(p for p in self.info.params if p.name == key)


_PATTERN = re.compile(
    r"^\s*(?P<name>[^\s()@]+)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<k>[^\s]+))?\s*$"
)
_NAME = re.compile(r"^[a-z0-9_.\-]*[a-z][a-z0-9_.\-]*$")
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?$", re.IGNORECASE)
_INTEGER = re.compile(r"^[+-]?[0-9]+$")

_MAX_K = 2**63 - 1


def _grade(value: str, whole: str) -> int | float:
    """A grade written in a metric string (``rel_threshold``): a finite number, an int
    when it is whole (``2.0`` reads as ``2``)."""
    number = float(value) if _NUMBER.match(value.strip()) else math.nan
    if not math.isfinite(number):
        raise InvalidParameterError(
            f"Metric {whole!r}: rel_threshold must be a number. Got {value!r} instead."
        )
    return int(number) if number.is_integer() else number


def _unknown(name: str, ranking: bool) -> InvalidParameterError:
    """The error for a name no row reads, with the closest spelling; for a name that
    looks like a ranking metric's (written with ``@k``, or a mean over users:
    ``mean_...``), the closest ranking metric's when one is close too
    (``average_precison@10``: MAP, not the pointwise ``average_precision``); for a
    peer's training objective, the metric to write instead."""
    trained = objective(name)
    if trained is not None:
        return _objective_refused(name, *trained)
    # every spelling a user may type, canonical names first: lower case -> (as shown,
    # the family of the metric it means)
    shown: dict[str, tuple[str, str]] = {}
    for candidate in ENTRIES:
        shown.setdefault(candidate, (candidate, ENTRIES[candidate].family))
    for row in SPELLINGS:
        family = ENTRIES[re.split(r"[(@]", row.metric, maxsplit=1)[0]].family
        shown.setdefault(row.shown.lower(), (row.shown, family))
    close = difflib.get_close_matches(name.lower(), list(shown), n=1, cutoff=0.5)
    if ranking:  # a ranking metric that is close too, before a closer one of another family
        near = difflib.get_close_matches(name.lower(), list(shown), n=5, cutoff=0.7)
        close = [c for c in near if shown[c][1] == "ranking"][:1] or close
    hint = f" Did you mean {shown[close[0]][0]!r}?" if close else ""
    return UnknownMetricError(f"Unknown metric {name!r}.{hint} See receval.list_metrics().")


def _objective_refused(name: str, peer: str, metric: str) -> UnknownMetricError:
    """The error for a peer's training objective given as a metric: the metric the peer
    evaluates it with (a ranking metric with @k and the peer's profile), or where
    receval computes none, where to find one."""
    said = f"{name!r} is {peer}'s training objective, not an evaluation metric"
    if not metric:
        return UnknownMetricError(
            f"{said}; receval does not compute the metric {peer} evaluates it with by "
            f"default: write the metric to evaluate its model with. See receval.list_metrics()."
        )
    if ENTRIES[metric].family != "ranking":
        return UnknownMetricError(f"{said}; {peer} evaluates it with {metric!r}: write {metric!r}.")
    return UnknownMetricError(
        f"{said}; {peer} evaluates it with {metric!r}: write e.g. '{metric}@10' (or "
        f"{metric!r}, the whole list) with profile={peer.lower()!r} for {peer}'s values."
    )


def _malformed(text: str) -> InvalidParameterError:
    return UnknownMetricError(
        f"Cannot parse metric {text!r}; expected name[(convention=value, ...)][@k], "
        f"e.g. 'ndcg@10' or 'map(ap_normalizer=min_k)@100'."
    )


def parse_metric(text: str) -> MetricSpec:
    """Parse a metric string such as ``"ndcg@10"`` into a :class:`MetricSpec`.

    Parameters
    ----------
    text : str
        ``name[(key=value, ...)][@k]``, case-insensitive; the keys are the
        metric's parameters (``p`` of ``rbp``) and the conventions. A peer's
        spelling (``P_10``, ``nDCG@10``, ``IPrec@0.1``, ``rbp.95``) reads as the
        receval metric it means (see :data:`SPELLINGS`).

    Returns
    -------
    spec : MetricSpec
        ``str(spec)`` is the canonical string.

    Raises
    ------
    InvalidParameterError
        Unknown metric (with the closest spelling), malformed string, bad k, a
        convention or parameter that is unknown or has a bad value, or a
        required parameter left out.

    Examples
    --------
    >>> from receval import parse_metric
    >>> str(parse_metric("NDCG@10"))
    'ndcg@10'
    >>> str(parse_metric("hit_rate@5"))
    'success@5'
    >>> str(parse_metric("ndcg_burges@10"))
    'ndcg(gain=exponential)@10'
    >>> str(parse_metric("map( rel_threshold=2 , ap_normalizer=min_k )@100"))
    'map(ap_normalizer=min_k,rel_threshold=2)@100'
    >>> str(parse_metric("P_10")), str(parse_metric("RBP(rel=2, p=0.90)"))
    ('precision@10', 'rbp(p=0.9,gain=binary,rel_threshold=2)')
    >>> str(parse_metric("iprec_at_recall_0.10")), str(parse_metric("rbp(p=0.8)"))
    ('iprec(recall=0.1)', 'rbp')
    """
    return parse_with(text, frozenset())


def parse_with(text: str, supplied: frozenset[str] | None) -> MetricSpec:
    """:func:`parse_metric`, where the parameters named in ``supplied`` come as keyword
    arguments (a required one may be left out of the string); None: any may be left out
    (a look-up of the metric's row)."""
    if not isinstance(text, str):
        raise InvalidParameterError(
            f"A metric must be a string such as 'ndcg@10'. Got {text!r} instead."
        )
    return _parse(text, supplied)


@functools.lru_cache(maxsize=4096)
def _parse(text: str, supplied: frozenset[str] | None) -> MetricSpec:
    """:func:`parse_with` of a string (specs are immutable: each string is parsed once)."""
    dotted = _trec_eval_form(text)
    if isinstance(dotted, InvalidParameterError):
        try:
            return _parse_other(text, supplied)
        except UnknownMetricError:  # no other form reads it: trec_eval's reason
            raise dotted from None
    if dotted is not None:
        if len(dotted) == 1:
            return parse_with(next(iter(dotted.values())), supplied)
        raise InvalidParameterError(
            f"Metric {text!r} stands for {len(dotted)} metrics ({', '.join(dotted)}); name "
            f"one of them, e.g. {next(iter(dotted))!r}. receval.parse_metrics({text!r}), "
            f"evaluate and compare take them all, each under its trec_eval name."
        )
    return _parse_other(text, supplied)


def _parse_other(text: str, supplied: frozenset[str] | None) -> MetricSpec:
    """:func:`_parse` of a string that is not trec_eval's ``-m`` form."""
    trained = objective(text)  # XGBoost's rank:ndcg, not CatBoost's Name:param
    if trained is not None:
        raise _objective_refused(text.strip().lower(), *trained)
    catboost = catboost_metric(text)  # NDCG:top=10;type=Exp
    if catboost is not None:
        return parse_with(catboost, supplied)
    match = _PATTERN.match(text)
    if match is None or not _NAME.match(match["name"].lower()):
        raise _malformed(text)
    written, k_text = match["name"], match["k"]
    name = written.lower()
    base = None
    if name not in ENTRIES:
        base, k_text = _spelling(written, match["params"], k_text, text)
    elif k_text is not None:  # IPrec@0.1 reads as a recall level, not a cut-off
        at, rest = _at_spelling(written, k_text, text)
        if at is not None:
            base, k_text = at, rest
    row = _WITH_REL.get(written)  # ir_measures' RBP(rel=2), exactly as it writes it
    if base is None and row is not None and _SETS_REL.search(match["params"] or ""):
        base = _target(replace(row, metric=row.with_rel), {}, text)
    if base is None:
        base = MetricSpec(name)
    return _complete(base, match["params"], k_text, text, supplied=supplied)


_DOTTED = re.compile(r"^\s*(?P<name>[A-Za-z0-9_]+)\.\S+\s*$")
_BARE = re.compile(r"^\s*(?P<name>[A-Za-z0-9_]+)\s*$")


def _trec_eval_form(text: str) -> dict[str, str] | InvalidParameterError | None:
    """trec_eval's ``-m name.params`` (``P.5,10``), or the bare name of one of its
    families of cut-offs or levels (``P``: ``P_5`` … ``P_1000``, as ``-m P`` prints
    them): each printed name to its metric string, or None when ``text`` is not one
    (ranx's ``rbp.95`` is read as ranx's). A family whose name is also a receval
    metric (``recall``, ``success``: the whole list) is that metric. A measure of
    trec_eval's with parameters it refuses (``P.5,5``): the error that says why, for
    a string that no other form reads."""
    from .trec_eval import MEASURES, trec_eval_metrics

    found = _DOTTED.match(text)
    if found is not None:
        # a measure's name in any case (``p.10``: ``P.10``), as every other form is read
        name = {m.name.lower(): m.name for m in MEASURES}.get(found["name"].lower())
        if name is None:
            return None
        try:
            metrics = trec_eval_metrics([name + text.strip()[len(found["name"]) :]])
        except InvalidParameterError as error:
            # parameters trec_eval refuses (``P.5,5``): the string may still be another
            # form (ranx's ``rbp.95``, whose own errors say why it is refused), else
            # the error says trec_eval's reason
            reason = str(error).partition(": ")[2]
            return InvalidParameterError(
                f"Metric {text.strip()!r} (trec_eval's -m {text.strip()}): {reason}"
            )
        return metrics or None
    found = _BARE.match(text)
    if found is None or found["name"].lower() in ENTRIES:
        return None
    family = _families().get(found["name"].lower())
    return None if family is None else trec_eval_metrics([family])


@functools.cache
def _families() -> dict[str, str]:
    """trec_eval's measures of several default cut-offs or levels, by lower-case name
    (the judgment-group ones left out: they need groups)."""
    from .trec_eval import MEASURES

    return {
        m.name.lower(): m.name
        for m in MEASURES
        if m.params in ("cuts", "levels") and "," in m.default and not m.name.endswith("avgjg")
    }


def parse_metrics(text: str) -> dict[str, MetricSpec]:
    """The metrics a string stands for, by name: the string itself for most, one
    metric per parameter for trec_eval's ``-m`` form with several (``"P.5,10"``) and
    for the bare name of a trec_eval family (``"P"``: ``P_5`` … ``P_1000``).

    Parameters
    ----------
    text : str
        A metric string of :func:`parse_metric`, or trec_eval's ``name.params``.

    Returns
    -------
    dict of str to MetricSpec
        ``{text: spec}``, or each value trec_eval would print (``P_5``, ``P_10``)
        to its metric.

    Examples
    --------
    >>> from receval import parse_metrics
    >>> {k: str(v) for k, v in parse_metrics("P.5,10").items()}
    {'P_5': 'precision@5', 'P_10': 'precision@10'}
    >>> {k: str(v) for k, v in parse_metrics("nDCG@10").items()}
    {'nDCG@10': 'ndcg@10'}
    """
    dotted = _trec_eval_form(text) if isinstance(text, str) else None
    if not isinstance(dotted, dict) or len(dotted) == 1:
        return {text: parse_metric(text)}
    return {name: parse_metric(metric) for name, metric in dotted.items()}


def _target(row: Spelling, groups: dict[str, str], whole: str) -> MetricSpec:
    target = row.metric.format(**groups)
    match = _PATTERN.match(target)
    assert match is not None and match["name"] in ENTRIES  # the table is well formed
    return _complete(MetricSpec(match["name"]), match["params"], match["k"], whole, final=False)


def _at_spelling(written: str, k_text: str, whole: str) -> tuple[MetricSpec | None, str | None]:
    for regex, row in _PATTERNS:
        found = regex.fullmatch(f"{written}@{k_text}")
        if found:
            return _target(row, found.groupdict(), whole), None
    return None, k_text


def _spelling(
    written: str, params_text: str | None, k_text: str | None, whole: str
) -> tuple[MetricSpec, str | None]:
    if k_text is not None:
        at, rest = _at_spelling(written, k_text, whole)
        if at is not None:
            return at, rest
    row = _LITERALS.get(written.lower())
    if row is not None:
        if row.with_rel and _SETS_REL.search(params_text or ""):
            row = replace(row, metric=row.with_rel)
        if row.with_relative and _SETS_RELATIVE.search(params_text or ""):
            row = replace(row, metric=row.with_relative)
        if row.meant:
            _warn_changed(row)
        return _target(row, {}, whole), k_text
    for regex, row in _PATTERNS:
        found = regex.fullmatch(written)
        if found:
            return _target(row, found.groupdict(), whole), k_text
    ranking = k_text is not None or written.lower().startswith("mean")
    raise _unknown(written.lower(), ranking)


@functools.cache
def _warn_changed(row: Spelling) -> None:
    """Once per process: ``row.spelling`` now means ``row.metric``, not ``row.meant``."""
    warn(
        f"The metric name {row.spelling!r} means {row.metric} (the share of users with a "
        f"relevant item in the top k: the HR@k of NCF, RecBole and most papers); it meant "
        f"{row.meant} (hits over relevant items, pooled over users) before. Write "
        f"{row.metric!r} or {row.meant!r} to say which you mean and silence this warning.",
        FutureWarning,
    )


def _outside_receval() -> int:
    """The stack level of the first caller outside the package (the user's line)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def _complete(
    base: MetricSpec,
    params_text: str | None,
    k_text: str | None,
    whole: str,
    final: bool = True,
    supplied: frozenset[str] | None = frozenset(),
) -> MetricSpec:
    """``base`` with the parameters and conventions of ``params_text`` and the cut-off."""
    info = base.info
    args, conventions = _parse_params(params_text, whole, info)
    written = base.written | frozenset(args)
    args = {**dict(base.args), **args}
    conventions = {**dict(base.params), **conventions}
    k = base.k
    if k_text is not None:
        if k is not None:
            raise InvalidParameterError(
                f"Metric {whole!r}: the cut-off is given twice ({base} and @{k_text}); "
                f"write {base.name}@{k_text}."
            )
        if not info.accepts_k:
            raise InvalidParameterError(f"Metric {whole!r}: {info.name} takes no @k cut-off.")
        try:
            k = int(k_text)
        except ValueError:
            k = 0
        if k < 1 or str(k) != k_text.lstrip("+"):
            raise InvalidParameterError(
                f"Metric {whole!r}: the cut-off must be a positive integer. Got {k_text!r} instead."
            )
        if k > _MAX_K:  # the kernels take k as an int64
            raise InvalidParameterError(
                f"Metric {whole!r}: the cut-off must be at most {_MAX_K}. Got {k_text!r} instead."
            )
    kept = []
    for param in info.params:
        if param.name in args:
            if args[param.name] != param.default:
                kept.append((param.name, args[param.name]))
        elif param.required and final and supplied is not None and param.name not in supplied:
            raise InvalidParameterError(
                f"Metric {whole!r}: {info.name} needs the parameter {param.name} "
                f"({param.meaning}, {param.range_text()}); e.g. "
                f"'{info.name}({param.name}={_example(param)})'."
            )
    return MetricSpec(info.name, k, tuple(sorted(conventions.items())), tuple(kept), written)


def _example(param: Param) -> str:
    if param.kind == "levels":
        return "0.2;0.5;0.8"
    if param.kind == "gains":
        return "1:1;2:3"
    return "0.5" if param.in_range(0.5) else "1"


def _split(text: str) -> list[str]:
    """Split at the commas outside brackets and braces."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _parse_params(
    text: str | None, whole: str, info: MetricEntry
) -> tuple[dict[str, Any], dict[str, object]]:
    args: dict[str, Any] = {}
    out: dict[str, object] = {}
    if not text or not text.strip():
        return args, out
    own = {p.name: p for p in info.params}
    for part in _split(text):
        key, sep, value = (s.strip() for s in part.partition("="))
        key = key.lower()
        value = value.strip("'\"")
        if not sep or not key or not value:
            raise InvalidParameterError(
                f"Metric {whole!r}: expected convention=value inside the parentheses. "
                f"Got {part.strip()!r} instead."
            )
        key = _KEYS.get(key, key)
        if key == "dcg" and value.lower() in _DCG:  # ir_measures' nDCG(dcg=exp-log2)
            key, value = "gain", _DCG[value.lower()]
        if key in own:
            args[key] = _param_value(own[key], value, whole)
            continue
        if key == "relative" and info.name in _RELATIVE_OF:
            if value.lower() != _RELATIVE_OF[info.name]:
                raise InvalidParameterError(
                    f"Metric {whole!r}: relative={value} does not fit {info.name}; ir_measures' "
                    f"SetP(relative=True) is set_relative_precision."
                )
            continue
        if key not in info.conventions:
            raise not_an_option(f"Metric {whole!r}", info, key)
        if key == "depth":
            try:
                out[key] = int(value)
            except ValueError:
                raise InvalidParameterError(
                    f"Metric {whole!r}: {key} must be an integer. Got {value!r} instead."
                ) from None
        elif key == "rel_threshold":
            out[key] = _grade(value, whole)
        elif key == "judged_only":
            if value.lower() not in ("true", "false"):
                raise InvalidParameterError(
                    f"Metric {whole!r}: judged_only must be true or false. Got {value!r} instead."
                )
            out[key] = value.lower() == "true"
        else:
            value = value.lower()
            if value not in CHOICES[key]:
                raise InvalidParameterError(
                    f"Metric {whole!r}: {key} must be one of {sorted(CHOICES[key])!r}. "
                    f"Got {value!r} instead."
                )
            check_value(f"Metric {whole!r}", info, key, value)
            out[key] = value
    if "gains" in args and "gain" in out:
        raise InvalidParameterError(
            f"Metric {whole!r}: gains (a table of gains) and gain={out['gain']} cannot both "
            f"be given; drop one."
        )
    return args, out


def not_an_option(where: str, info: MetricEntry, key: str) -> InvalidParameterError:
    """The error for a key that ``info``'s metric does not take: unknown (with the
    closest option), or a convention that does not change its value.

    Examples
    --------
    >>> from receval.registry import ENTRIES
    >>> from receval.registry.grammar import not_an_option
    >>> error = not_an_option("Metric 'num_q(gain=binary)'", ENTRIES["num_q"], "gain")
    >>> print(error)
    Metric 'num_q(gain=binary)': num_q does not use the convention 'gain' (it changes no
    value of num_q); its options are ['estimator', 'missing_users'].
    """
    options = info.options
    if key in FIELDS:
        what = (
            f"{info.name} does not use the convention {key!r} (it changes no value of {info.name})"
        )
    else:
        close = difflib.get_close_matches(key, options, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        what = f"unknown option {key!r}{hint}"
    listed = f"its options are {options!r}" if options else f"{info.name} takes no option"
    return InvalidParameterError(f"{where}: {what}; {listed}.")


def check_value(where: str, info: MetricEntry, key: str, value: object) -> None:
    """Refuse a value of the convention ``key`` that ``info``'s metric does not take
    (``rbp``'s gain is linear or binary)."""
    allowed = info.values_of(key)
    if allowed is not None and value not in allowed:
        raise InvalidParameterError(
            f"{where}: {info.name} takes {key} {' or '.join(map(repr, allowed))}. "
            f"Got {value!r} instead."
        )


def _number(param: Param, text: str, whole: str, what: str) -> float:
    x = float(text) if _NUMBER.match(text) else math.nan
    if not math.isfinite(x) or not param.in_range(x):
        values = param.range_text()  # "> 0", or "a finite number" without bounds
        values = values if values.startswith("a ") else f"a number {values}"
        raise InvalidParameterError(
            f"Metric {whole!r}: {what} must be {values}. Got {text!r} instead."
        )
    return x + 0.0  # -0.0 is 0.0


def _param_value(param: Param, text: str, whole: str) -> Any:
    if param.kind == "float":
        word = text.lower()
        if word in param.choices:  # a word it takes besides numbers (eps=auto, clip=inf)
            return math.inf if word == "inf" else word
        return _number(param, text, whole, param.name)
    if param.kind == "int":
        if not _INTEGER.match(text) or not param.in_range(int(text)) or abs(int(text)) > _MAX_K:
            raise InvalidParameterError(
                f"Metric {whole!r}: {param.name} must be {param.range_text()}. "
                f"Got {text!r} instead."
            )
        return int(text)
    if param.kind in ("bool", "choice"):
        words = ("false", "true") if param.kind == "bool" else param.choices
        if text.lower() not in words:
            raise InvalidParameterError(
                f"Metric {whole!r}: {param.name} must be one of {sorted(words)!r}. "
                f"Got {text!r} instead."
            )
        return text.lower() == "true" if param.kind == "bool" else text.lower()
    if param.kind == "object":
        raise InvalidParameterError(
            f"Metric {whole!r}: {param.name} ({param.meaning}) is not written in a metric "
            f"string; pass it as the keyword argument {param.name}=."
        )
    inner = text
    if len(text) >= 2 and (text[0], text[-1]) in (("[", "]"), ("{", "}")):
        inner = text[1:-1]
    items = [s.strip() for s in re.split(r"[;,]", inner)]
    if param.kind == "levels":
        if inner.strip() == "" or "" in items:
            items = []
        values = sorted(_number(param, s, whole, f"each of {param.name}") for s in items)
        if not values or len(values) > MAX_LEVELS or len(set(values)) < len(values):
            raise InvalidParameterError(
                f"Metric {whole!r}: {param.name} must be 1 to {MAX_LEVELS} distinct numbers "
                f"separated by ';', e.g. {param.name}=0.2;0.5;0.8. Got {text!r} instead."
            )
        return tuple(values)
    pairs: dict[int, float] = {}
    free = Param(param.name, "float", param.meaning)
    for item in items:
        grade, sep, gain = (s.strip() for s in item.partition(":"))
        if not sep or not _INTEGER.match(grade) or int(grade) in pairs:
            raise InvalidParameterError(
                f"Metric {whole!r}: {param.name} must be distinct integer grades with their "
                f"gains, grade:gain separated by ';', e.g. {param.name}=1:1;2:3. "
                f"Got {text!r} instead."
            )
        if abs(int(grade)) > _MAX_K:
            raise InvalidParameterError(
                f"Metric {whole!r}: the grades of {param.name} must be at most {_MAX_K} in "
                f"absolute value. Got {grade!r} instead."
            )
        pairs[int(grade)] = _number(free, gain, whole, f"the gain of grade {int(grade)}")
    if not pairs or len(pairs) > MAX_GAINS:
        raise InvalidParameterError(
            f"Metric {whole!r}: {param.name} must hold 1 to {MAX_GAINS} grade:gain pairs. "
            f"Got {text!r} instead."
        )
    return tuple(sorted(pairs.items()))
