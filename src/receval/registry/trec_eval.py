"""trec_eval 10.0's measures as receval metrics: the table in trec_eval's order with
each measure's parameters and printing, its nicknames, and how ``-m name.params``
selects and names the values (``P.5,10`` prints ``P_5`` and ``P_10``, the metrics
``precision@5`` and ``precision@10``).

``receval trec-eval`` hands the compiled core one kernel spec per value, of the
kernel of its metric (:attr:`MeasureValue.kind`), so the core names no measure itself.

Shared by :mod:`receval.trec.trec_eval` (the command) and the metric-string parser
(:func:`receval.parse_metrics` reads ``P.5,10``); it imports no evaluation code.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from .._parameters import counted
from ..exceptions import InvalidParameterError
from .kinds import kind_of

#: trec_eval's floor of a value before its logarithm in a geometric mean (gm_map, gm_bpref)
GEOMETRIC_FLOOR = 1e-5

__all__ = [
    "GEOMETRIC_FLOOR",
    "GROUP_FIELDS",
    "GROUP_MEASURES",
    "MEASURES",
    "NICKNAMES",
    "PREFS_COUNTS",
    "PREFS_MEASURES",
    "UNSUPPORTED",
    "MeasureValue",
    "TrecMeasure",
    "atof",
    "atol",
    "measure_values",
    "select_measures",
    "split_list",
    "trec_eval_metrics",
]

# ------------------------------------------------------------------ the measures
_CUTS = "5,10,15,20,30,100,200,500,1000"
_RECALLS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
_MULTS = "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0"


def _num(x: float) -> str:
    """A float parameter as receval's metric strings write it."""
    return repr(float(x)) if x != int(x) else str(int(x)) if abs(x) < 1e15 else repr(x)


def _gains(pairs: list[tuple[str, float]]) -> str:
    """``(gains=...)`` of a trec_eval ``level=gain`` list (none: the default gains)."""
    if not pairs:
        return ""
    text = ";".join(f"{atol(level)}:{_num(gain)}" for level, gain in pairs)
    return f"(gains={text})"


#: The ``prefs_*`` measures of preference judgments (:mod:`receval.trec.prefs`) in trec_eval's
#: order (the order of its output).
PREFS_MEASURES: tuple[str, ...] = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
    "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
    "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)  # fmt: skip

#: The measures that are counts (printed as integers, summed over queries).
PREFS_COUNTS = frozenset(PREFS_MEASURES[:3])

#: trec_eval's measures of judgment groups (``-R qrels_jg``).
GROUP_MEASURES: tuple[str, ...] = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")

#: The fields of a line of judgment groups.
GROUP_FIELDS = "query group document grade"


class TrecMeasure(NamedTuple):
    """One trec_eval measure.

    Attributes
    ----------
    name : str
        trec_eval's name (``P``, ``ndcg_cut``, ``iprec_at_recall``).
    params : str
        How ``-m name.params`` reads its parameters: ``""`` (none), ``"cuts"``
        (positive integer cut-offs, one value each: ``P_5``, ``P_10``),
        ``"levels"`` (real cut-offs, one value each, named with two decimals:
        ``iprec_at_recall_0.10``), ``"reals"`` (one value from a list of reals:
        ``utility``, ``11pt_avg``, ``set_F``) or ``"pairs"`` (one value from
        ``name=real`` pairs: ``ndcg.1=3,2=9``).
    default : str
        The parameters when ``-m`` gives none.
    printed : str
        ``"real"`` (``%6.4f``), ``"count"`` (an integer), ``"summary"`` (only in the
        summary: ``gm_map``, ``num_q``), ``"runid"``, or ``"relstring"`` (only
        per query).
    metric : callable
        The receval metric string of one value, from its parameter (a cut-off, a
        level as metric strings write it, the list of reals or of pairs); ``""``
        for a value that is not a receval metric.
    """

    name: str
    params: str
    default: str
    printed: str
    metric: Callable[[Any], str]


def _fixed(text: str) -> Callable[[Any], str]:
    return lambda _: text


#: utility's coefficients
_UTILITY = ("a", "b", "c", "d")


def _check_count(name: str, keys: tuple[str, ...], n: int) -> None:
    """Refuse ``n`` numbers of ``-m name`` where it takes one of each of ``keys``."""
    if n != len(keys):
        raise InvalidParameterError(
            f"-m {name}: expected {counted(len(keys), 'comma-separated number')} "
            f"({', '.join(keys)}). Got {n}."
        )


def _reals(name: str, keys: tuple[str, ...]) -> Callable[[Any], str]:
    def build(values: list[float]) -> str:
        _check_count(name, keys, len(values))
        return (
            f"{name}(" + ",".join(f"{k}={_num(x)}" for k, x in zip(keys, values, strict=True)) + ")"
        )

    return build


def _pair_metric(name: str) -> Callable[[Any], str]:
    return lambda pairs: name + _gains(pairs)


def _rbp_persistence(name: str, pairs: list[tuple[str, float]]) -> float:
    """The persistence ``p`` of ``-m rbp.p=0.95`` (trec_eval's default: 0.9)."""
    p = 0.9
    for key, value in pairs:
        if key != "p":
            raise InvalidParameterError(
                f"-m {name}: the only parameter is p (e.g. -m {name}.p=0.95). Got {key!r}."
            )
        p = value
    return p


def _rbp(name: str) -> Callable[[Any], str]:
    return lambda pairs: f"{name}(p={_num(_rbp_persistence(name, pairs))})"


#: trec_eval's 11 recall levels (11pt_avg's default)
_ELEVEN = [float(x) for x in _RECALLS.split(",")]


def _levels(values: list[float]) -> str:
    if values == _ELEVEN:
        return "iprec_avg"
    return "iprec_avg(levels=" + ";".join(_num(x) for x in values) + ")"


#: trec_eval 10.0's measures in its order (the order of its output), each with the
#: receval metric of its values (the judgment-group measures: the metric of each
#: (query, group), averaged over the query's groups; none for the ``prefs_*``
#: measures). Not computed: ``yaap`` (see :data:`UNSUPPORTED`).
MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", "", "", "runid", _fixed("")),
    TrecMeasure("num_q", "", "", "summary", _fixed("num_q")),
    TrecMeasure("num_ret", "", "", "count", _fixed("num_ret")),
    TrecMeasure("num_rel", "", "", "count", _fixed("num_rel")),
    TrecMeasure("num_rel_ret", "", "", "count", _fixed("num_rel_ret")),
    TrecMeasure("map", "", "", "real", _fixed("map")),
    TrecMeasure("gm_map", "", "", "summary", _fixed("gm_map")),
    TrecMeasure("Rprec", "", "", "real", _fixed("r_precision")),
    TrecMeasure("bpref", "", "", "real", _fixed("bpref")),
    TrecMeasure("recip_rank", "", "", "real", _fixed("mrr")),
    TrecMeasure("iprec_at_recall", "levels", _RECALLS, "real", lambda x: f"iprec(recall={x})"),
    TrecMeasure("P", "cuts", _CUTS, "real", lambda k: f"precision@{k}"),
    TrecMeasure("relstring", "reals", "10", "relstring", _fixed("")),
    TrecMeasure("recall", "cuts", _CUTS, "real", lambda k: f"recall@{k}"),
    TrecMeasure("infAP", "", "", "real", _fixed("infap")),
    TrecMeasure("gm_bpref", "", "", "summary", _fixed("gm_bpref")),
    TrecMeasure("Rprec_mult", "levels", _MULTS, "real", lambda x: f"rprec_mult(mult={x})"),
    TrecMeasure("utility", "reals", "1,-1,0,0", "real", _reals("utility", _UTILITY)),
    TrecMeasure("11pt_avg", "reals", _RECALLS, "real", _levels),
    TrecMeasure("binG", "", "", "real", _fixed("bin_g")),
    TrecMeasure("G", "pairs", "", "real", _pair_metric("g")),
    TrecMeasure("dcg", "pairs", "", "real", _pair_metric("dcg")),
    TrecMeasure("ideal_dcg", "pairs", "", "real", _pair_metric("idcg")),
    TrecMeasure("ndcg", "pairs", "", "real", _pair_metric("ndcg")),
    TrecMeasure("ndcg_rel", "pairs", "", "real", _pair_metric("ndcg_rel")),
    TrecMeasure("Rndcg", "pairs", "", "real", _pair_metric("r_ndcg")),
    TrecMeasure("ndcg_cut", "cuts", _CUTS, "real", lambda k: f"ndcg@{k}"),
    TrecMeasure("map_cut", "cuts", _CUTS, "real", lambda k: f"map@{k}"),
    TrecMeasure("relative_P", "cuts", _CUTS, "real", lambda k: f"relative_precision@{k}"),
    TrecMeasure("success", "cuts", "1,5,10", "real", lambda k: f"success@{k}"),
    TrecMeasure("set_P", "", "", "real", _fixed("set_precision")),
    TrecMeasure("set_relative_P", "", "", "real", _fixed("set_relative_precision")),
    TrecMeasure("set_recall", "", "", "real", _fixed("set_recall")),
    TrecMeasure("set_map", "", "", "real", _fixed("set_ap")),
    TrecMeasure("set_F", "reals", "1.0", "real", lambda v: f"set_f(beta={_num(v[0])})"),
    TrecMeasure("num_nonrel_judged_ret", "", "", "count", _fixed("num_nonrel_judged_ret")),
    # preference measures (-R prefs, -R qrels_prefs): not receval metrics, see _trec_prefs
    *(
        TrecMeasure(name, "", "", "count" if name in PREFS_COUNTS else "real", _fixed(""))
        for name in PREFS_MEASURES
    ),
    TrecMeasure("map_avgjg", "", "", "real", _fixed("map")),
    TrecMeasure("P_avgjg", "cuts", _CUTS, "real", lambda k: f"precision@{k}"),
    TrecMeasure("Rprec_mult_avgjg", "levels", _MULTS, "real", lambda x: f"rprec_mult(mult={x})"),
    TrecMeasure("rbp", "pairs", "", "real", _rbp("rbp")),
    TrecMeasure("rbp_resid", "pairs", "", "real", _rbp("rbp_resid")),
    TrecMeasure("unj", "cuts", "5,10,20", "real", lambda k: f"unjudged@{k}"),
)

#: trec_eval measures receval does not compute, with what they are.
UNSUPPORTED: dict[str, str] = {
    "yaap": "trec_eval's yet another average precision (Robertson, ECIR 2012)",
}  # fmt: skip

#: Where the measures receval computes are listed, for messages.
_LISTED = "`receval trec-eval -h` lists the measures receval computes"

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
             "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")  # fmt: skip

#: trec_eval's nicknames of sets of measures.
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": _OFFICIAL,
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": (*_OFFICIAL, "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult",
                 "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P",
                 "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q", *PREFS_MEASURES),
    "prefs": ("runid", "num_q", *PREFS_MEASURES[:6]),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}  # fmt: skip

_BY_NAME = {m.name: m for m in MEASURES}


def atol(text: str) -> int:
    """C's ``atol``: the leading integer of ``text`` (0 when there is none); C reads
    ASCII digits only, so ``'\u0661'`` (Arabic-Indic one) is 0."""
    found = _C_INTEGER.match(text)
    return int(found.group()) if found else 0


def atof(text: str) -> float:
    """C's ``atof`` (glibc's ``strtod``): the leading real number of ``text`` (0.0
    when there is none), in ASCII digits only (not Python's ``float`` with its
    underscores and Unicode digits): a decimal one, a hexadecimal one (``0x10`` is 16,
    ``-0X1.8P1`` is -3.0; ``0x`` alone reads its ``0``), or ``inf``, ``infinity`` or
    ``nan`` (``nan(chars)`` too) in any case; one too large is an infinity.

    Examples
    --------
    >>> [atof(t) for t in ("0x1p-2", " 1.5e2x", "0xg", "-Infinity", "1e999")]
    [0.25, 150.0, 0.0, -inf, inf]
    """
    found = _C_REAL.match(text)
    if found is None:
        return 0.0
    sign, number = found.group("sign", "number")
    if found.group("hex") is None:
        value = float(number.partition("(")[0])  # nan(chars): a nan
        return math.copysign(value, -1.0 if sign == "-" else 1.0)  # -nan: its sign kept
    try:
        return float.fromhex(sign + number)  # correctly rounded, as strtod
    except OverflowError:
        return math.copysign(math.inf, -1.0 if sign == "-" else 1.0)


#: What C's ``atol`` reads: leading C white space, a sign and ASCII digits.
_C_INTEGER = re.compile(r"[ \t\n\v\f\r]*[+-]?[0-9]+")
#: A grade of a gain table as trec_eval's gain_init.c takes it (valid_int): a sign, then digits
_GRADE = re.compile(r"[+-]?[0-9]+")
#: What C's ``strtod`` reads (its longest prefix of this form): leading C white space,
#: a sign, then a hexadecimal number, a decimal one, an infinity or a nan.
_C_REAL = re.compile(
    r"[ \t\n\v\f\r]*(?P<sign>[+-]?)(?P<number>"
    r"(?P<hex>0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?)"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?"
    r"|inf(?:inity)?|nan(?:\([0-9a-z_]*\))?)",
    re.IGNORECASE | re.ASCII,
)


# ------------------------------------------------------------------ selection
class MeasureValue(NamedTuple):
    """One printed value of a measure: its trec_eval name and receval metric, and its
    parameter as the ranking kernel reads it (``k``: a cut-off; ``args``: the kernel
    spec's parameters: a level, a persistence, set_F's beta, utility's four gains
    (the collection's size, ``-N``, follows them), 11pt_avg's levels (0 for
    trec_eval's 11, else their count then the levels ascending) or a gain table (its
    pairs, then each grade and gain by grade); ``custom_gains``: a gain table is
    given)."""

    measure: TrecMeasure
    name: str
    metric: str
    k: int = 0
    args: tuple[float, ...] = ()
    custom_gains: bool = False

    @property
    def kind(self) -> int | None:
        """The ranking kernel's code of the value's metric (:func:`~.kinds.kind_of`),
        which the compiled core computes for ``receval trec-eval -R qrels`` (and
        :mod:`receval.trec.jg` per judgment group for ``-R qrels_jg``); None for a
        value that is not a receval metric (``runid``, ``relstring``, ``prefs_*``)."""
        if not self.metric:
            return None
        return kind_of(self.metric.partition("(")[0].partition("@")[0])


def split_list(text: str) -> list[str]:
    return text.split(",")


def select_measures(requests: Sequence[str]) -> list[tuple[TrecMeasure, str | None]]:
    """The measures named by ``-m`` arguments, in trec_eval's order, each with the
    parameters of the first ``-m`` that gave it some (None: the default)."""
    marked: set[str] = set()
    params: dict[str, str] = {}
    for request in requests or ["official"]:
        name, dot, param = request.partition(".")
        if dot:
            if not param:
                raise InvalidParameterError(
                    f"trec-eval -m {request}: nothing after the '.'; give parameters "
                    f"(e.g. -m P.5,10) or none (-m P)."
                )
            params.setdefault(name, param)
        if name in NICKNAMES:
            names = NICKNAMES[name]
            bad = [n for n in names if n in UNSUPPORTED]
            if bad:
                raise InvalidParameterError(
                    f"trec-eval -m {name}: receval does not compute {bad[-1]!r}, "
                    f"{UNSUPPORTED[bad[-1]]}; {_LISTED}."
                )
            marked.update(names)
        elif name in UNSUPPORTED:
            raise InvalidParameterError(
                f"trec-eval -m {request}: receval does not compute {name!r}, "
                f"{UNSUPPORTED[name]}; {_LISTED}."
            )
        elif name in _BY_NAME:
            marked.add(name)
        else:
            import difflib

            known = [m.name for m in MEASURES] + list(NICKNAMES)
            cased = {k.lower(): k for k in known}.get(name.lower())
            base, _, param = name.rpartition("_")
            if cased is not None:  # trec_eval reads names in their case only
                hint = f" Did you mean {cased!r} (measure names are case-sensitive)?"
            elif base in _BY_NAME and _BY_NAME[base].params and param:
                # an output name such as P_10: trec_eval takes its parameters after a dot
                hint = f" Did you mean '{base}.{param}' (-m {base}.{param})?"
            else:
                close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
                hint = f" Did you mean {close[0]!r}?" if close else ""
            raise InvalidParameterError(
                f"trec-eval -m {request}: unknown measure {name!r}.{hint} {_LISTED}."
            )
    return [(m, params.get(m.name)) for m in MEASURES if m.name in marked]


def measure_values(measure: TrecMeasure, given: str | None) -> list[MeasureValue]:
    """The values a measure prints, named as trec_eval names them."""
    text = measure.default if given is None else given
    kind = measure.params
    if kind == "cuts":
        cuts = sorted(_cut_off(measure.name, text, x) for x in split_list(text))
        twice = [k for k, after in itertools.pairwise(cuts) if k == after]
        if twice:
            raise InvalidParameterError(
                f"trec-eval -m {measure.name}.{text}: the cut-off {twice[0]} is given twice; "
                f"cut-offs must be distinct (e.g. -m {measure.name}.5,10)."
            )
        return [MeasureValue(measure, f"{measure.name}_{k}", measure.metric(k), k=k) for k in cuts]
    if kind == "levels":
        levels = sorted(_real(measure.name, text, x) for x in split_list(text))
        if len(set(levels)) != len(levels):
            raise InvalidParameterError(
                f"trec-eval -m {measure.name}.{text}: the levels must be distinct."
            )
        return [
            MeasureValue(measure, f"{measure.name}_{x:3.2f}", measure.metric(_num(x)), args=(x,))
            for x in levels
        ]
    # trec_eval names a value by its parameters only where the measure takes some; a
    # measure without parameters ignores those given (``-m map.5`` prints ``map``)
    name = measure.name if given is None or not kind else f"{measure.name}_{given}"
    if kind == "reals":
        if measure.name == "utility":  # trec_eval reads any number (atof), then their count
            _check_count(measure.name, _UTILITY, len(split_list(text)))
        reals = [_real(measure.name, text, x) for x in split_list(text)]
        args: tuple[float, ...] = tuple(reals)
        if measure.name == "11pt_avg":
            args = (0.0,) if reals == _ELEVEN else (float(len(reals)), *sorted(reals))
        elif measure.name == "set_F":
            args = args[:1]
        return [MeasureValue(measure, name, measure.metric(reals), args=args)]
    if kind == "pairs":
        pairs = []
        gain_table = not measure.name.startswith("rbp")
        for part in split_list(text) if text else []:
            key, eq, value = part.partition("=")
            if gain_table and eq and not _GRADE.fullmatch(key):
                continue  # not a grade: trec_eval's gain_init.c skips it (valid_int)
            if not eq or not key:
                raise InvalidParameterError(
                    f"trec-eval -m {measure.name}.{text}: expected name=value pairs separated "
                    f"by commas (e.g. -m {measure.name}.1=3,2=9). Got {part!r}."
                )
            pairs.append((key, _real(measure.name, text, value)))
        metric = measure.metric(pairs)
        if measure.name.startswith("rbp"):
            return [
                MeasureValue(measure, name, metric, args=(_rbp_persistence(measure.name, pairs),))
            ]
        # a gain table: its (grade, gain) pairs by grade (stable)
        table = sorted(((float(atol(key)), gain) for key, gain in pairs), key=lambda p: p[0])
        args = (float(len(table)), *(x for p in table for x in p))
        return [MeasureValue(measure, name, metric, args=args, custom_gains=bool(table))]
    return [MeasureValue(measure, name, measure.metric(None))]


def _real(name: str, text: str, part: str) -> float:
    """One number of ``-m name.text`` as trec_eval reads it (``atof``), refused where
    it reads as an infinity or a nan (``inf``, ``nan``, ``1e999``), which trec_eval
    computes with and receval does not."""
    value = atof(part)
    if math.isfinite(value):
        return value
    raise InvalidParameterError(
        f"trec-eval -m {name}.{text}: {part!r} reads as {value} (C's atof), not a finite "
        f"number; give finite numbers such as 0.5."
    )


def _cut_off(name: str, text: str, part: str) -> int:
    """One cut-off of ``-m name.text`` as trec_eval reads it (``atol``: its leading
    integer), refused where trec_eval refuses it (not above 0): a part with no
    leading integer, which ``atol`` reads as 0, is said not to be an integer."""
    k = atol(part)
    if k > 0:
        return k
    what = "is not positive" if _C_INTEGER.match(part) else "is not an integer"
    raise InvalidParameterError(
        f"trec-eval -m {name}.{text}: the cut-off {part!r} {what}; give positive integers "
        f"separated by commas (e.g. -m {name}.5,10)."
    )


def trec_eval_metrics(measures: Sequence[str] = ("official",)) -> dict[str, str]:
    """The receval metric string of every value trec_eval prints for ``-m`` arguments.

    Parameters
    ----------
    measures : sequence of str, default=("official",)
        trec_eval's ``-m`` arguments: names, names with parameters (``P.5,10``) or
        nicknames (``official``, ``all_trec``, ``set``).

    Returns
    -------
    dict of str to str
        Each printed name (``P_5``) to its metric string (``precision@5``), in
        trec_eval's order; ``runid`` and ``relstring``, which are not numbers, and
        the ``prefs_*`` measures, which are not receval metrics, are left out.
        Evaluate them with ``receval.evaluate(..., profile="trec_eval",
        ties="id_descending")`` (trec_eval 10.0 compares scores as doubles); the
        judgment-group measures (``map_avgjg``, ``P_avgjg_5``) are the metric of each
        (query, group), averaged over the query's groups (``-R qrels_jg``).

    Raises
    ------
    InvalidParameterError
        An unknown measure or bad parameters, as ``receval trec-eval -m`` reports them.

    Examples
    --------
    >>> from receval.trec.trec_eval import trec_eval_metrics
    >>> for name, metric in trec_eval_metrics(["P.5,10", "gm_map", "iprec_at_recall.0.1"]).items():
    ...     print(name, metric)
    gm_map gm_map
    iprec_at_recall_0.10 iprec(recall=0.1)
    P_5 precision@5
    P_10 precision@10
    """
    return {
        v.name: v.metric
        for m, g in select_measures(measures)
        for v in measure_values(m, g)
        if v.metric
    }
