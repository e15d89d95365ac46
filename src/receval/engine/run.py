"""Streaming metrics: :func:`metric` returns an accumulator for any mergeable metric.

An accumulator takes batches (``update``), merges with the accumulators of
other workers (``merge``), and ``compute()`` returns what the metric's function
returns on all the rows it saw, exactly: the states are integer counts and exact
sums, so any split into batches and any order of merges give the same float.
"""

from __future__ import annotations

from typing import Any

from ..exceptions import InvalidParameterError
from .metric import MetricDefinition, definition

__all__ = ["Accumulator", "compute", "metric"]


def _as_arrays(data: Any) -> Any:
    """Tensors and other array-likes as NumPy arrays, without importing their library.

    Objects with ``__array__`` (NumPy, pandas, polars, CPU torch tensors) go through
    ``numpy.asarray``; objects with only ``__dlpack__`` through ``numpy.from_dlpack``.
    Lists, Arrow arrays and DataFrame columns are left to the metric's own checks.
    """
    import numpy as np

    if data is None or isinstance(data, (list, tuple, np.ndarray, str)):
        return data
    module = type(data).__module__
    if module.startswith(("pyarrow", "pandas", "polars")):
        return data
    if hasattr(data, "__array__"):
        if hasattr(data, "detach") and hasattr(data, "cpu"):  # a torch tensor
            data = data.detach().cpu()
        return np.asarray(data)
    if hasattr(data, "__dlpack__"):
        return np.from_dlpack(data)
    return data


class Accumulator:
    """A metric accumulated batch by batch: ``update``, ``merge``, ``compute``, ``reset``.

    Made by :func:`receval.metric`; see there. Accumulators pickle (a worker can
    send its accumulator to another process and merge it there).

    Attributes
    ----------
    name : str
        The metric as given to :func:`receval.metric`.
    definition : MetricDefinition
        What every backend runs for this metric.
    n_updates : int
        Batches given to ``update`` (merged accumulators add theirs).
    """

    def __init__(self, name: str, defn: MetricDefinition, params: dict[str, Any]) -> None:
        self.name = name
        self.definition = defn
        self._params = params
        self._state = defn.empty(params)
        self.n_updates = 0

    def update(self, *data: Any, **kwargs: Any) -> Accumulator:
        """Add one batch of rows: the data arguments of the metric's function.

        ``update(y_true, y_score, sample_weight=None)`` for ``roc_auc``,
        ``update(y_true, y_prob, sample_weight=None)`` for ``log_loss``, ``pcoc``,
        ``copc``, ``normalized_entropy``, ``update(y_true, y_pred)`` for ``rmse`` /
        ``mae``, ``update(y_true, y_score, groups=..., sample_weight=None)`` for
        ``gauc`` and ``update(qrels, run)`` for a ranking metric string. Metrics
        over whole groups (``gauc``, ranking) need every group's rows in one
        update; a group given again raises. Returns the accumulator.
        """
        defn = self.definition
        data = tuple(_as_arrays(x) for x in data)
        kwargs = {k: _as_arrays(x) for k, x in kwargs.items()}
        batch = defn.prepare(self._params, *data, **kwargs)
        # the accumulator owns its state: add the batch in place where the state can
        if defn.update_into is not None:
            self._state = defn.update_into(self._params, self._state, batch)
        else:
            new = defn.update(self._params, batch)
            absorb = getattr(self._state, "absorb", None)
            self._state = absorb(new) if absorb is not None else self._state.merge(new)
        self.n_updates += 1
        return self

    def merge(self, other: Accumulator) -> Accumulator:
        """Add another accumulator of the same metric and options (e.g. another worker's).

        Returns this accumulator. The result does not depend on the order of merges.
        """
        if not isinstance(other, Accumulator):
            raise InvalidParameterError(
                f"Accumulator.merge takes an Accumulator. Got {type(other).__name__} instead."
            )
        if other.definition.name != self.definition.name or other._params != self._params:
            raise InvalidParameterError(
                f"Accumulator.merge: cannot merge {other.name!r} with options "
                f"{other._params!r} into {self.name!r} with options {self._params!r}; merge "
                f"accumulators of one metric with the same options."
            )
        self._state = self._state.merge(other._state)  # a new state: other's stays its own
        self.n_updates += other.n_updates
        return self

    def compute(self) -> Any:
        """The metric's value on every row seen (what its function returns on them)."""
        return self.definition.finalize(self._params, self._state)  # may compact in place

    def reset(self) -> Accumulator:
        """Forget every row (the options stay); returns the accumulator."""
        self._state = self.definition.empty(self._params)
        self.n_updates = 0
        return self

    def __getstate__(self) -> dict[str, Any]:
        # the definition is looked up again by name: its functions are not pickled
        state = dict(self.__dict__)
        state["definition"] = self.definition.name
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        state["definition"] = definition(state["definition"])
        self.__dict__.update(state)

    @property
    def params(self) -> dict[str, Any]:
        """The checked options of the metric."""
        return dict(self._params)

    def __repr__(self) -> str:
        return f"Accumulator({self.name!r}, {self.n_updates} updates)"


def metric(name: str, **options: Any) -> Accumulator:
    """Return an accumulator of a metric, for training and validation loops.

    The accumulator takes batches with ``update``, merges with other workers'
    accumulators with ``merge``, and ``compute()`` returns exactly what the
    metric's function returns on all the rows (``==``, for any split into
    batches and any order of merges): the states are integer counts and exact
    sums, never float running means.

    Parameters
    ----------
    name : str
        ``"roc_auc"`` (``"auc"``), ``"log_loss"`` (``"logloss"``), ``"pcoc"``,
        ``"copc"``, ``"normalized_entropy"`` (``"ne"``), ``"rmse"``, ``"mae"``,
        ``"gauc"``, or any ranking metric string of :func:`receval.evaluate`
        (``"ndcg@10"``, ``"map(ap_normalizer=min_k)@100"``).
    **options
        The metric's options: ``eps`` (log loss, NE); ``weighting`` (gauc);
        ``bins`` and ``range`` (roc_auc: binned, in constant memory, with
        ``compute()`` returning a ``BinnedAUC(value, error_bound)``); for ranking
        metrics ``profile`` and the convention keywords of :func:`receval.evaluate`.

    Returns
    -------
    accumulator : Accumulator

    Raises
    ------
    InvalidParameterError
        Unknown metric (with the closest name) or option.

    Notes
    -----
    Memory: exact ``roc_auc`` keeps one count per distinct score (compacted as
    batches arrive), ``gauc`` and ranking metrics an exact sum and the ids of
    the groups seen, the others a few exact sums. Inputs: NumPy arrays, lists,
    pandas/polars/Arrow columns, and any object with ``__array__`` or
    ``__dlpack__`` (CPU torch or JAX arrays), without importing their library.

    To merge across processes, send the pickled accumulators to one process
    and ``merge`` them there: with ``torch.distributed``,
    ``torch.distributed.all_gather_object(parts, acc)`` and then
    ``for p in parts[1:]: parts[0].merge(p)``; on Spark,
    ``rdd.mapPartitions(lambda rows: [receval.metric("auc").update(...)])
    .reduce(lambda a, b: a.merge(b))``.

    Examples
    --------
    >>> import receval
    >>> auc = receval.metric("roc_auc")
    >>> for y, s in [([1, 0], [0.9, 0.3]), ([0, 1, 0], [0.5, 0.4, 0.1])]:
    ...     _ = auc.update(y, s)
    >>> auc.compute() == receval.roc_auc_score([1, 0, 0, 1, 0], [0.9, 0.3, 0.5, 0.4, 0.1])
    True
    >>> other = receval.metric("roc_auc").update([1, 0], [0.2, 0.6])
    >>> auc.merge(other).compute()  # 7 of the 12 (positive, negative) pairs in order
    0.5833
    >>> ndcg = receval.metric("ndcg@10")
    >>> _ = ndcg.update({"u": {"a": 1}}, {"u": {"a": 0.9, "b": 0.1}})
    >>> _ = ndcg.update({"v": {"b": 1}}, {"v": {"a": 0.9, "b": 0.1}})
    >>> round(ndcg.compute(), 4)
    0.8155
    """
    defn = definition(name)
    if defn.name == "ranking":
        params = defn.check_params(name, **options)
    else:
        params = defn.check_params(**options)
    return Accumulator(name, defn, params)


def compute(name: str, *data: Any, **options: Any) -> Any:
    """Compute any metric of the engine on some rows: one update of an accumulator.

    The generic form of every mergeable metric's function, for metrics that have
    none of their own (a metric registered with
    :func:`receval.engine.metric.register`): in memory, or on the columns of a
    :func:`receval.scan` (batch by batch) for metrics whose rows split anyway.

    Parameters
    ----------
    name : str
        A metric of :func:`receval.metric`.
    *data
        Its data arguments, as for ``Accumulator.update`` (arrays, or columns of
        one scan).
    **options
        Keyword data arguments (``sample_weight=``, ``groups=``) and the metric's
        options.

    Examples
    --------
    >>> import receval
    >>> receval.compute("pcoc", [1, 0, 0, 1], [0.6, 0.2, 0.3, 0.5])
    0.8
    """
    defn = definition(name)
    data_names = set(defn.inputs)
    kwargs = {k: options.pop(k) for k in list(options) if k in data_names}
    from ..data.scan import ScanColumn

    columns = [*data, *kwargs.values()]
    if any(isinstance(c, ScanColumn) for c in columns):
        if defn.partitioning != "any":
            raise InvalidParameterError(
                f"compute({name!r}): this metric needs whole groups per batch, which a scan "
                f"does not promise; use the metric's own function on the scan."
            )
        from .sources import scan_compute

        given = dict(zip(defn.inputs, data, strict=False)) | kwargs
        floats = tuple(a for a in defn.inputs[1:] if a in given)
        return scan_compute(name, given, floats, **options)
    return metric(name, **options).update(*data, **kwargs).compute()
