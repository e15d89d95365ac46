"""A metric as a definition: check parameters, prepare a batch, update a state, merge, finalize.

Every mergeable metric is one :class:`MetricDefinition`; the sources only cut rows
(arrays in memory, :func:`receval.scan` batches, the user's own training loop
through :func:`receval.metric`) and every source runs the same definition:

==============  =============================================================
step            rule
==============  =============================================================
check_params    once, before any row: ``InvalidParameterError``
prepare         validates one batch of rows with the function's own checks and
                messages; returns the validated arrays
update          reduces a prepared batch to a state (the kernels)
merge           ``state.merge(other)``: associative and commutative, exact
finalize        the value (or nan and the warning), written once
==============  =============================================================

``partitioning`` says how rows may be split across updates: ``"any"`` (sums:
any split), ``"groups"`` (whole groups or users per update), ``"ranges"``
(disjoint score ranges); a metric that splits anyway may also offer ``ranges``
(the exact AUC: bounded memory whatever the number of distinct scores).

Each metric's definition lives in the module its registry row names and registers
itself here on import; :func:`receval.registry.definition` finds one by name.
The engine imports no metric module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from ..exceptions import InputValidationError, InvalidParameterError

__all__ = [
    "DEFINITIONS",
    "MetricDefinition",
    "data_columns",
    "joined",
    "no_options",
    "register",
    "second_and_weight",
    "weights_refused",
    "without_no_weights",
]


@dataclass(frozen=True)
class MetricDefinition:
    """One metric, as every backend runs it.

    What the metric is (family, direction, data arguments, how its rows may be
    partitioned, its one-line description) is its registry row's: a definition
    of a metric of :mod:`receval.registry` declares none of it, and
    :func:`register` reads it from the row. A metric of the user's own, which
    has no row, declares it.

    Attributes
    ----------
    name : str
        Canonical name (``"log_loss"``, ``"roc_auc"``, ...).
    check_params : callable
        ``check_params(**options) -> params`` (a dict), raising ``InvalidParameterError``
        (``check_params(func, /, **options)`` where ``checks_caller``).
    prepare : callable
        ``prepare(params, *data, **data) -> batch``: the validated arrays of one batch
        (``prepare(params, *data, func=..., **data)`` where ``takes_caller``).
    update : callable
        ``update(params, batch) -> state``; states have ``merge`` (``update(params,
        batch, func=...)`` where ``takes_caller``).
    empty : callable
        ``empty(params) -> state``: the state of no row.
    finalize : callable
        ``finalize(params, state) -> value``: what the metric's function returns
        (``finalize(params, state, func=...)`` where ``takes_caller``: see :meth:`value`).
    update_into : callable, optional
        ``update_into(params, state, batch) -> state or None``: adds a batch to a
        state it may change in place (an accumulator's own state), for states whose
        fresh copy costs more than the batch (binned AUC) or that hold rows (the
        batch's join them); None where it does not apply to ``state``, which then
        takes ``update`` of the batch (``absorb``, in place where the state has it,
        else ``merge``).
    ranges : callable, optional
        ``ranges(params, pos, neg, pos_weight, neg_weight) -> state``: the state of
        every row of one score range, given as the sorted-or-not scores of its
        positives and negatives (and their weights, or None); with weights, the
        keyword ``below`` is the merged state of every range below it when they are
        read in order (out of core), None otherwise. States of disjoint
        ranges merge, and ``finalize`` takes them. A metric with ``ranges`` may be
        partitioned by disjoint score ranges (exact AUC out of core and on Spark,
        where the distinct scores need not fit in memory).
    family : str
        ``"pointwise"``, ``"grouped"``, ``"ranking"``, ``"list"`` or ``"off_policy"``.
    partitioning : str
        How rows may be split across updates: ``"any"``, ``"groups"`` or
        ``"ranges"`` (the first of the row's partitionings).
    description : str
        One line.
    higher_is_better : bool or None
    inputs : tuple of str
        The data arguments of ``update``, in order.
    one_partition : callable, optional
        ``one_partition(params, columns) -> value or None``: ``update`` and
        ``finalize`` of one in-memory partition in one call of the compiled core,
        for plain NumPy input (``columns``: the data arguments by name). It gives
        exactly what ``prepare``, ``update`` and ``finalize`` give, or None where it
        does not apply (other input, a result that needs a warning): they then run and
        say why. A hook may raise for a value the checks refuse, in the checks' words.
    scale_free : callable, optional
        ``scale_free(params) -> bool``: whether the value is the same for the
        weights times any positive number (means, ratios, AUC). On one partition,
        weights whose largest is outside ``[2**-64, 2**64]`` are then scaled by a
        power of two first (exact), so that no sum or product of weights over- or
        underflows.
    update_plain : callable, optional
        ``update_plain(params, state, columns) -> state or None``: a batch of plain
        NumPy arrays (``columns``: the data arguments in the order of ``inputs``,
        None where not given) checked and added to a state it may change in place
        in one call of the compiled core; None where it does not apply (other
        input, a value the core refuses), and then ``prepare`` and ``update_into``
        run and say why. :meth:`add` tries it first, for every backend.
    grouped : callable, optional
        ``grouped(params, state) -> (value, counts, why)``: for a metric that leaves
        groups out of its mean, ``finalize``'s value with the counts of the groups
        (``n_groups``, ``n_groups_skipped``, ``n_rows_skipped``) and why a group is
        left out (``"without a positive"``), which the command line reports.
    left_out : callable, optional
        ``left_out(params, state) -> counts``: for a metric whose rules leave out
        rows that are not groups, what they left out by name (a ranking metric: the
        qrels users without a list, ``n_users_missing``; retrieving from
        ``item_vectors`` with ``exclude``: the pairs of
        ``exclude`` without a vector, ``n_exclude_unmatched``; with
        ``propensity_clip``: the relevant pairs whose propensity it raised,
        ``n_pairs_propensity_clipped``; with ``candidates``: the counts of the
        report's ``sampling``), which ``Accumulator.skipped()`` returns.
    splits_groups : bool, default=False
        A metric over groups whose ``check_params`` takes ``whole_groups``: False
        (what :func:`receval.metric` gives by default) makes states that take a
        group's rows in any number of updates and merges; True (what sources
        that cut whole groups give: scans, Spark) the states of whole groups.
    update_inputs : callable, optional
        ``update_inputs(params) -> names or None``: the data arguments of ``update``
        where the options change them, in the order of ``prepare``'s (a ranking
        metric made with ``item_vectors=`` takes ``qrels, user_vectors, user_ids``);
        None where they are ``inputs``. See :meth:`arguments`.
    checks_caller : bool, default=False
        ``check_params`` takes ``func`` first, positional-only (the ranking
        definition, one for every ranking metric, takes the metric's string before
        it): the caller its errors name (``receval.metric('gauc')``,
        ``receval.compute('gauc')``).
    takes_caller : bool, default=False
        ``prepare``, ``update``, ``update_into`` and ``finalize`` take the keyword
        ``func``: the caller their errors and warnings name
        (``receval.metric('ndcg@10')``, ``receval.compute('ndcg@10')``,
        ``Accumulator.update of 'ndcg@10'``), as a state whose class sets
        ``takes_caller`` is given it in a merge (:func:`joined`). A metric whose
        steps' messages name its function (``gauc_score``) leaves it False:
        :meth:`named_by` restates a batch's for the caller.
    """

    name: str
    check_params: Callable[..., dict[str, Any]]
    prepare: Callable[..., Any]
    update: Callable[..., Any]
    empty: Callable[[dict[str, Any]], Any]
    finalize: Callable[..., Any]
    update_into: Callable[..., Any] | None = None
    ranges: Callable[..., Any] | None = None
    family: str = ""
    partitioning: str = ""
    description: str = ""
    higher_is_better: bool | None = None
    inputs: tuple[str, ...] = ()
    one_partition: Callable[[dict[str, Any], Mapping[str, Any]], Any] | None = None
    scale_free: Callable[[dict[str, Any]], bool] | None = None
    update_plain: Callable[[dict[str, Any], Any, tuple[Any, ...]], Any] | None = None
    grouped: Callable[[dict[str, Any], Any], tuple[float, dict[str, int], str]] | None = None
    left_out: Callable[[dict[str, Any], Any], dict[str, int]] | None = None
    splits_groups: bool = False
    update_inputs: Callable[[dict[str, Any]], tuple[str, ...] | None] | None = None
    checks_caller: bool = False
    takes_caller: bool = False

    def arguments(self, params: dict[str, Any]) -> tuple[str, ...]:
        """The data arguments of ``update`` with these options, as errors name them:
        ``update_inputs``' where it gives them, else ``inputs``."""
        named = None if self.update_inputs is None else self.update_inputs(params)
        return self.inputs if named is None else named

    def checked(self, func: str, **options: Any) -> dict[str, Any]:
        """What ``check_params`` gives of ``options``; ``func`` is the caller, which a
        ``check_params`` that ``checks_caller`` names in its errors.

        Where the caller is passed is chosen here, once (an accumulator's options, a
        restored one's defaults, a pointwise metric's counted groups); the ranking
        definition's ``check_params``, which takes the metric's string first, is
        called as it is.

        Examples
        --------
        >>> from receval.registry import definition
        >>> definition("pcoc").checked("f")  # pcoc's check_params("f")
        {'negative_sampling_rate': 1.0, 'pos_label': None}
        >>> definition("roc_auc").checked("f", pos_label=2)  # roc_auc's takes no caller
        {'bins': None, 'pos_label': 2}
        """
        caller = (func,) if self.checks_caller else ()
        return self.check_params(*caller, **options)

    def add(
        self,
        params: dict[str, Any],
        state: Any,
        data: tuple[Any, ...] = (),
        kwargs: Mapping[str, Any] | None = None,
        *,
        func: str,
    ) -> Any:
        """``state`` with one batch of rows added; ``data`` and ``kwargs`` are the data
        arguments of ``update`` by position and by name, and ``state`` None stands for
        :attr:`empty` (the batch's own state); ``func`` is the caller (see
        :func:`joined`).

        The one way a backend adds a batch: in one call of the compiled core where
        ``update_plain`` takes it (plain NumPy arrays), else ``prepare`` (whose checks
        word what is wrong with a batch the core refused) and ``update_into``, or
        ``update`` and a merge. ``state`` may be changed in place.

        Examples
        --------
        >>> import numpy as np
        >>> from receval.registry import definition
        >>> pcoc = definition("pcoc")
        >>> params = pcoc.check_params("f")
        >>> y, p = np.array([0, 1, 1, 0]), np.array([0.2, 0.6, 0.9, 0.3])
        >>> state = pcoc.add(params, None, (y, p), func="f")  # NumPy: one call of the core
        >>> state = pcoc.add(params, state, (), {"y_true": [1], "y_prob": [0.5]}, func="f")
        >>> pcoc.value(params, state, func="f")
        0.8333333333333334
        """
        kwargs = {} if kwargs is None else kwargs
        with self.named_by(func):
            if self.update_plain is not None:
                columns = self._bound(data, kwargs)
                if columns is not None:
                    added = self.update_plain(
                        params, self.empty(params) if state is None else state, columns
                    )
                    if added is not None:
                        return added
            caller = {"func": func} if self.takes_caller else {}
            batch = self.prepare(params, *data, **kwargs, **caller)
            if state is None:
                return self.update(params, batch, **caller)
            if self.update_into is not None:
                added = self.update_into(params, state, batch, **caller)
                if added is not None:
                    return added
            return joined(state, self.update(params, batch, **caller), func, in_place=True)

    def value(self, params: dict[str, Any], state: Any, *, func: str) -> Any:
        """What ``finalize`` gives of ``state``; ``func`` is the caller, which a
        ``finalize`` that ``takes_caller`` names in its errors and warnings.

        The one way a backend finalizes a state (an accumulator's ``compute``,
        :func:`receval.compute` in memory and on a scan).

        Examples
        --------
        >>> from receval.registry import definition
        >>> pcoc = definition("pcoc")
        >>> params = pcoc.check_params("f")
        >>> state = pcoc.add(params, None, ([0, 1], [0.2, 0.6]), func="f")
        >>> pcoc.value(params, state, func="f")  # (0.2 + 0.6) / 1
        0.8
        """
        caller = {"func": func} if self.takes_caller else {}
        return self.finalize(params, state, **caller)

    @contextmanager
    def named_by(self, func: str) -> Iterator[None]:
        """Within it, the data errors of the metric's checks name ``func``, the caller
        (``receval.compute('gauc')``, ``Accumulator.update of 'gauc'``), where they name
        the metric's function (its registry row's: ``gauc_score``), which is not what was
        called; the one place the caller of a batch's checks is chosen (:meth:`add`, and
        a source that runs ``prepare`` or ``one_partition`` itself).

        Examples
        --------
        >>> from receval.registry import definition
        >>> gauc = definition("gauc")
        >>> params = gauc.check_params("f")
        >>> try:
        ...     with gauc.named_by("receval.compute('gauc')"):
        ...         gauc.prepare(params, [0, 1, 2], [0.1, 0.2, 0.3], groups=[1, 1, 1])
        ... except ValueError as exc:
        ...     print(exc)
        receval.compute('gauc'): y_true must be binary. Got values [0, 1, 2]; pass pos_label ...
        """
        try:
            yield
        except InputValidationError as exc:
            from ..registry.table import ENTRIES

            row = ENTRIES.get(self.name)
            error = exc if row is None else exc.named(f"{row.function}: ", f"{func}: ")
            if error is exc:
                raise
            raise error from None

    def _bound(self, data: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The data arguments in the order of ``inputs``, None where not given; None
        for arguments that do not bind (``prepare`` then says which)."""
        names = self.inputs
        if len(data) > len(names):
            return None
        if not kwargs:
            return data + (None,) * (len(names) - len(data))
        columns = [*data, *(None,) * (len(names) - len(data))]
        for name, value in kwargs.items():
            at = names.index(name) if name in names else -1
            if at < len(data):
                return None
            columns[at] = value
        return tuple(columns)

    @property
    def module(self) -> str:
        """The module that defines the metric (where pickles look it up again)."""
        return self.finalize.__module__


def joined(state: Any, other: Any, func: str, *, in_place: bool = False) -> Any:
    """``state`` with the rows of ``other``, a state of the same metric: its ``absorb``
    (``state`` changed in place) where ``in_place`` and the state has one, else its
    ``merge`` (a new state).

    A state whose class sets ``takes_caller`` (a state of whole groups, which refuses
    a group in both) is given ``func``, the caller its error names
    (``"Accumulator.merge of 'gauc'"``); it also has ``check_disjoint(other, func)``,
    which raises that error alone, joining nothing.
    """
    join = getattr(state, "absorb", None) if in_place else None
    join = state.merge if join is None else join
    return join(other, func) if getattr(state, "takes_caller", False) else join(other)


#: Every registered definition, by canonical name.
DEFINITIONS: dict[str, MetricDefinition] = {}

_FACTS = ("family", "partitioning", "description", "higher_is_better", "inputs")


def register(defn: MetricDefinition) -> MetricDefinition:
    """Add a definition to the engine, with the facts of its registry row; returns it.

    A metric of :mod:`receval.registry` takes its family, direction, data
    arguments, partitioning and description from its row (declaring any of them
    is an error: each fact is written once); a metric of the user's own declares
    them.
    """
    from ..registry.table import ENTRIES

    row = ENTRIES.get(defn.name)
    if row is not None:
        declared = [f for f in _FACTS if getattr(defn, f) not in ("", None, ())]
        if declared:
            raise InvalidParameterError(
                f"register: {defn.name!r} has a registry row, which gives its {declared[0]}; "
                f"declare it there only."
            )
        defn = replace(
            defn,
            family=row.family,
            partitioning=row.partitionings[0] if row.partitionings else "",
            description=row.description,
            higher_is_better=row.higher_is_better,
            inputs=row.inputs,
        )
    if defn.partitioning not in ("any", "groups", "ranges"):
        raise InvalidParameterError(
            f"register: partitioning must be one of ['any', 'groups', 'ranges']. "
            f"Got {defn.partitioning!r} instead."
        )
    DEFINITIONS[defn.name] = defn
    return defn


def always(params: dict[str, Any]) -> bool:
    """``scale_free`` of a metric whose value never depends on the scale of the weights."""
    return True


def no_options() -> dict[str, Any]:
    """``check_params`` of a metric whose registry row has no parameter: the row
    refuses any option first, in the words of the function called
    (``receval.compute('regression_auc') takes no option 'eps'; it takes none.``)."""
    return {}


def second_and_weight(
    func: str, second: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Any]:
    """``(second, sample_weight)`` of ``update(y_true, second, sample_weight=None)``, each
    given by position or keyword; an ``InvalidParameterError`` naming ``func`` when
    ``second`` is missing or an argument is not one of these."""
    takes = f"{func}: update takes y_true, {second} and sample_weight."
    if not args and second not in kwargs:
        raise InvalidParameterError(f"{takes} Got no {second}.")
    if len(args) > 2:
        raise InvalidParameterError(f"{takes} Got {len(args) + 1} positional arguments.")
    value = args[0] if args else kwargs.pop(second)
    weight = args[1] if len(args) > 1 else kwargs.pop("sample_weight", None)
    if kwargs:
        raise InvalidParameterError(f"{takes} Got {sorted(kwargs)[0]!r} too.")
    return value, weight


def without_no_weights(defn: MetricDefinition, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` less ``sample_weight=None`` where the metric takes no weights: None is
    no weights, as its function reads it (a training loop passes the same keywords to
    every metric); weights themselves are refused (:func:`weights_refused`).

    Examples
    --------
    >>> import receval
    >>> from receval.engine.metric import without_no_weights
    >>> without_no_weights(receval.metric("regression_auc").definition, {"sample_weight": None})
    {}
    """
    if "sample_weight" in defn.inputs or kwargs.get("sample_weight", 0) is not None:
        return kwargs
    return {k: x for k, x in kwargs.items() if k != "sample_weight"}


def weights_refused(
    func: str, name: str, sample_weight: Any, *, column: str = ""
) -> InvalidParameterError:
    """The error of sample weights given to a metric that takes none (``sample_weight``
    is not among its registry row's ``inputs``), in the same words on every backend:
    its function, its accumulator's ``update``, :func:`receval.compute` (in memory or
    on a scan), Spark and the CLI (which names its ``--weight`` column instead).

    Parameters
    ----------
    func : str
        The caller the message names (``regression_auc_score``,
        ``Accumulator.update of 'regression_auc'``, ``receval.spark.compute``).
    name : str
        The metric's canonical name.
    sample_weight : object
        The weights given: shown as their number, or as the value itself when it
        is one (a scalar).
    column : str, default=""
        The column the weights were mapped to (Spark), shown instead.

    Examples
    --------
    >>> print(weights_refused("f", "regression_auc", [1, 2, 1]))
    f: sample_weight is not taken by regression_auc: it counts each row once. Got 3
    weights; compute regression_auc without them (or repeat rows to weigh them).
    """
    import numpy as np

    from .._parameters import counted

    if column:
        given = f"the column {column!r}"
    elif np.ndim(sample_weight) == 0:  # one number (or an object: a scan's column)
        given = repr(np.asarray(sample_weight).item())
    else:
        given = counted(len(sample_weight), "weight")
    return InvalidParameterError(
        f"{func}: sample_weight is not taken by {name}: it counts each row once. Got "
        f"{given}; compute {name} without them (or repeat rows to weigh them)."
    )


def is_mapping(x: Any) -> bool:
    """Whether ``x`` is a mapping (a :class:`collections.abc.Mapping`, such as a dict),
    not array-like data: a pandas or polars Series, an Arrow array, a list or a NumPy
    array is per-row data, though a Series has ``items()``."""
    return isinstance(x, Mapping)


def is_option_value(x: Any) -> bool:
    """Whether a keyword that is both a data argument and an option of a metric holds
    the option's value: a name or a mapping (gauc's ``weighting="clicks"``), not data
    (per-row weights, of any array-like: :func:`is_mapping`)."""
    return isinstance(x, str) or is_mapping(x)


def data_columns(func: str, *arrays: tuple[str, Any]) -> list[Any]:
    """The named data arguments as 1-D arrays of one length; ``sample_weight`` may be
    None (it stays None), any other argument that is None is an error naming it."""
    from .. import _validation as v

    out = [
        None if a is None and name == "sample_weight" else v.as_1d(a, name, func)
        for name, a in arrays
    ]
    v.check_same_length(func, **{name: a for (name, _), a in zip(arrays, out, strict=True)})
    return out
