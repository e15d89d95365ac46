"""Streaming metrics: :func:`metric` returns an accumulator for any mergeable metric,
:func:`compute` runs one on some rows."""

from __future__ import annotations

from typing import Any

from ..exceptions import InvalidParameterError
from ..registry import ENTRIES, definition, metric_options, resolve
from .metric import MetricDefinition, is_option_value, without_no_weights
from .run import Accumulator, check_arguments
from .sources import run_definition
from .window import check_decay, check_window

__all__ = ["Accumulator", "compute", "metric"]


def metric(
    name: str,
    *,
    window: int | None = None,
    window_unit: str = "batches",
    whole_groups: bool | None = None,
    background: bool = False,
    decay: float | None = None,
    **options: Any,
) -> Accumulator:
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
        ``"gauc"``, any ranking metric string of :func:`receval.evaluate`
        (``"ndcg@10"``, ``"map(ap_normalizer=min_k)@100"``), or a popularity
        metric over the whole run (``"pop_rsp"``, ``"pop_reo"``,
        ``"shannon_entropy"``, ``"distributional_coverage"``, ``"item_coverage"``;
        batches of whole users, options as their functions' keywords), or an
        off-policy estimate (``"ips"``, ``"snips"``, ``"dr"``: ``update(reward,
        pscore, action_dist=..., action=..., position=...)``, ``clip=`` option),
        or ``"retention"`` (``update(events, signup=None)`` per table of events
        of whole users; options as :func:`receval.retention`'s keywords, and
        ``compute()`` its report).
    window : int, default=None
        Also keep a window of the last ``window`` batches (or rows): its value is
        ``compute_window()``, beside the lifetime value ``compute()`` (TorchRec's
        window and lifetime metrics), and equals the metric's function on exactly
        those rows. The window keeps each batch's own state (with
        ``window_unit="rows"``, also its rows, so that the batch the window cuts
        counts from the cut on).
    window_unit : {"batches", "rows"}, default="batches"
        What ``window`` counts. Metrics over groups (``gauc``, ranking) take
        batches only.
    whole_groups : bool, default=None
        For ``gauc`` and ranking metrics: None or False (the default) takes a
        group's (user's) rows in any number of updates and on any number of
        merged accumulators, holding the rows until ``compute()`` (see Notes);
        True promises that each update holds whole groups, which are reduced
        to exact sums at once (a group given again raises). Other metrics over
        whole users (popularity metrics, ``retention``) always need whole users
        per update; True changes nothing for them.
    background : bool, default=False
        Run updates on a background thread (as TorchRec offloads its metrics):
        ``update`` converts or copies the batch (a CUDA tensor's copy to the
        host is only queued) and returns; the thread validates and adds it.
        ``compute``, ``merge``, ``sync``, ``state_dict`` and pickling wait for
        the batches queued; an update that fails raises at the next call, naming
        its batch (the batch of an ``update`` that raises so is queued and counts).
    decay : float in (0, 1), default=None
        Exact ``roc_auc`` only: ``compute()`` is the exponentially decayed AUC
        (TorchEasyRec's ``DecayAUC``, exact instead of on 200 bins). After T
        updates, the rows of update t count with weight ``decay**(T-1)`` (t = 1)
        or ``(1 - decay) * decay**(T-t)`` (t >= 2) times their own: the counts are
        ``decay * counts + (1 - decay) * batch`` after each update after the first.
        The new rows are weighed more instead of the old less: update t's by a
        float factor, ``1`` (t = 1) or ``(1 - decay) * decay**-(t-1)``, rounded once
        per update (so within about t ulps of those ratios, not exactly them), each
        weight times it rounded once to 53 bits. The value is the exact weighted
        ``roc_auc_score`` of every row seen with those weights, which may differ in
        the last bits from the function given the formula's weights as floats. An
        update costs what it costs without decay. Not with ``window``; decayed
        accumulators merge and ``sync`` only at the same update (workers in step).
    **options
        The metric's options (also written in ``name``: ``"gauc(weighting=clicks)"``,
        checked against its registry row: :func:`receval.metric_info` lists them):
        ``eps`` (log loss, NE); ``weighting`` (gauc);
        ``bins`` and ``range`` (roc_auc: binned, in constant memory, with
        ``compute()`` returning a ``BinnedAUC(value, error_bound)``); for ranking
        metrics ``profile`` and the convention keywords of :func:`receval.evaluate`,
        and ``popularity`` or ``train`` for ``arp@k`` and the other popularity
        metrics (read once; ``update(None, run)`` then takes batches of whole users),
        and ``propensities``, ``propensity_gamma``, ``propensity_clip`` for the
        propensity-weighted metrics (resolved once, as :func:`receval.evaluate`
        takes them; ``skipped()`` counts the pairs the clip raised), and
        ``candidates``, ``correction``, ``catalog_size`` and ``gamma`` for sampled
        evaluation (checked once, with :func:`receval.evaluate`'s messages; the
        candidate sets are one table, a :class:`receval.Candidates`, a frame or a
        dict, given here as to ``evaluate``: each user's list is restricted to its
        set, and ``correction`` replaces its value by the corrected metric; the
        worst least-squares problem of every update and merge is warned of once, at
        ``compute()``; ``skipped()`` counts what the restriction left out, as the
        report's ``sampling``), and
        ``min_match`` and ``allow_unmatched`` (``compute()`` checks the ids of
        every update and merge as :func:`receval.evaluate` does: a run whose
        users or items match none of the qrels' raises ``InputValidationError``,
        fewer than ``min_match`` warn), and
        ``item_vectors`` (with ``item_ids``, ``metric``, ``k``, ``exclude`` as
        :func:`receval.evaluate_embeddings` takes them) to retrieve from
        embeddings: ``update(qrels, user_vectors, user_ids=...)`` then takes
        batches of users and ranks the item matrix for them (see the guide to
        retrieval), the qrels' items then matched with ``item_ids``.

    Returns
    -------
    accumulator : Accumulator

    Raises
    ------
    InvalidParameterError
        Unknown metric (with the closest name) or option.

    Notes
    -----
    Memory (``Accumulator.memory_bytes`` reports it): exact ``roc_auc`` keeps
    one count per distinct score (compacted as batches arrive), the others a few
    exact sums. ``gauc`` and ranking metrics cannot tell when a group is
    finished, so by default they hold every row until ``compute()``, compactly,
    in the compiled core: ``gauc`` its group code into a table of the group ids,
    its int8 label and its score (9 bytes a row, 13 with float64 scores; 4 or 8
    more with ``sample_weight``), ranking metrics every qrels and run row (its
    user and item codes into id tables, and its grade or score: 12 bytes a row,
    16 with float64 values), each value a float32 while every one is one
    exactly; the id tables are grown by each update and merge, which code their
    distinct ids only (ints, strings). Both group the rows in a counting sort at
    ``compute()`` and run the function's kernels once on all of them, so a
    group split across updates or workers counts once, and more updates may
    follow. With ``whole_groups=True`` they keep an exact sum and the ids of
    the groups seen (8 bytes a group, ints). Inputs: NumPy arrays, lists,
    pandas/polars/Arrow columns, torch tensors of any dtype on the CPU (read in
    place) or a GPU (one copy to the host), and any object with ``__array__`` or
    ``__dlpack__`` (JAX, CuPy), without importing their library.

    With ``torch.distributed``, ``acc.sync()`` on every rank merges every rank's
    state (see :meth:`Accumulator.sync`); ``acc.state_dict()`` and
    ``acc.load_state_dict(d)`` checkpoint it (see the guide to training loops).
    To merge across other processes, send the pickled accumulators to one
    process and ``merge`` them there; on Spark,
    ``rdd.mapPartitions(lambda rows: [receval.metric("auc").update(...)])
    .reduce(lambda a, b: a.merge(b))``. Unpickling runs code: unpickle
    accumulators only from sources you trust. A loaded accumulator is
    checked (its metric is receval's, its state is what that metric makes:
    classes, array shapes, counts >= 0, sorted scores) and a tampered one
    raises ``InputValidationError`` naming the field.

    What the metric's function refuses in one call, the accumulator refuses
    across updates and merges: binary labels {-1, 1} in one batch and {0, 1}
    in another (the function refuses {-1, 0, 1}), group ids of both types (the
    int 1 and the str "1"), ``sample_weight`` in some updates only (a batch of
    no row tells nothing; ``reset()`` forgets it). Its state holds the labels
    and the id type seen (the accumulator whether its rows had weights),
    through ``merge``, ``sync``, pickles and ``state_dict``
    (:mod:`receval.engine.kinds`). One refusal is the accumulator's own: labels
    other than {0, 1}, bools and {-1, 1} need ``pos_label`` (``metric("roc_auc",
    pos_label=2)``) even where the function takes the greater of two labels as
    the positive one (``roc_auc_score``, ``log_loss``), for a batch cannot tell
    which of its labels is the greater of the stream's: a later batch may hold
    another (0s and 2s, then 2s and 5s).

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
    >>> recent = receval.metric("log_loss", window=2)  # the last two batches
    >>> for y, p in [([1], [0.1]), ([1, 0], [0.9, 0.2]), ([0], [0.3])]:
    ...     _ = recent.update(y, p)
    >>> recent.compute_window() == receval.log_loss([1, 0, 0], [0.9, 0.2, 0.3])
    True
    >>> gauc = receval.metric("gauc")  # user "a" and user "b" in both batches
    >>> _ = gauc.update([1, 0], [0.9, 0.2], groups=["a", "b"])
    >>> _ = gauc.update([0, 1], [0.4, 0.7], groups=["a", "b"])
    >>> gauc.compute() == receval.gauc_score([1, 0, 0, 1], [0.9, 0.2, 0.4, 0.7],
    ...                                      groups=["a", "b", "a", "b"])
    True
    >>> decayed = receval.metric("roc_auc", decay=0.8)
    >>> _ = decayed.update([1, 0], [0.2, 0.6]).update([1, 0], [0.9, 0.3])
    >>> decayed.compute()  # update 1's rows weigh 0.8, update 2's 0.2: 0.2 * (0.8 + 0.2)
    0.2
    >>> ndcg = receval.metric("ndcg@10")
    >>> _ = ndcg.update({"u": {"a": 1}}, {"u": {"a": 0.9, "b": 0.1}})
    >>> _ = ndcg.update({"v": {"b": 1}}, {"v": {"a": 0.9, "b": 0.1}})
    >>> round(ndcg.compute(), 4)
    0.8155
    >>> sets = receval.Candidates.from_dict({"u": ["a", "c"], "v": ["b", "c"]}, catalog_size=10)
    >>> sampled = receval.metric("recall@1", candidates=sets, correction="rank")
    >>> _ = sampled.update({"u": {"a": 1}}, {"u": {"b": 0.9, "a": 0.5, "c": 0.1}})
    >>> _ = sampled.update({"v": {"b": 1}}, {"v": {"c": 0.9, "b": 0.1}})
    >>> sampled.compute()  # b is not u's candidate: a ranks first among them
    0.5
    """
    defn = definition(name, options)
    span = check_window(defn, name, window, window_unit)
    split = _whole_groups(defn, name, whole_groups)
    params = _checked(defn, name, options, split, f"receval.metric({name!r})")
    rate = check_decay(name, decay, window, params, defn.name)
    if rate is not None:  # the definition's update weighs each update's rows by its age
        params = {**params, "decay": rate}
    if not isinstance(background, bool):
        raise InvalidParameterError(
            f"The 'background' parameter of metric must be a bool. Got {background!r} instead."
        )
    return Accumulator(name, defn, params, span, background)


def whole_group_params(
    defn: MetricDefinition, name: str, options: dict[str, Any], func: str
) -> dict[str, Any]:
    """The metric's options checked for batches of whole groups (one call's rows, a
    scan's batches, Spark's partitions), their errors naming ``func``, the function
    called (``receval.compute('log_loss')``, ``receval.spark.compute``)."""
    return _checked(defn, name, options, _whole_groups(defn, name, True), func)


def _checked(
    defn: MetricDefinition, name: str, options: dict[str, Any], split: dict[str, bool], func: str
) -> dict[str, Any]:
    """The metric's options checked (``split``: its ``whole_groups``), their errors
    naming ``func``, the function called (``receval.metric('ndcg@10')``)."""
    if defn.name == "ranking":
        return defn.check_params(name, func, **options, **split)
    if defn.name in ENTRIES:  # the string's parameters and the keywords, checked by the row
        spec = resolve(name, supplied=options)
        return defn.checked(func, **metric_options(spec, options, func), **split)
    return defn.checked(func, **options, **split)


def _whole_groups(defn: Any, name: str, whole_groups: bool | None) -> dict[str, bool]:
    """The ``whole_groups`` option of a metric that takes groups split across updates
    (``{}`` for the others, which need no option or always whole groups)."""
    if whole_groups is not None and not isinstance(whole_groups, bool):
        raise InvalidParameterError(
            f"The 'whole_groups' parameter of metric must be a bool or None. Got "
            f"{whole_groups!r} instead."
        )
    if defn.splits_groups:
        return {"whole_groups": bool(whole_groups)}
    if whole_groups is False and defn.partitioning == "groups":
        raise InvalidParameterError(
            f"metric({name!r}, whole_groups=False): this metric needs whole users (groups) "
            f"per update; group the rows before cutting batches."
        )
    return {}


def compute(name: str, *data: Any, **options: Any) -> Any:
    """Compute any metric of the engine on some rows: one update of an accumulator.

    The generic form of every mergeable metric's function, for metrics that have
    none of their own (a metric registered with
    :func:`receval.engine.metric.register`): what the metric's function runs, in
    memory or on the columns of a :func:`receval.scan` (batch by batch; by whole
    groups for a grouped metric, whose rows must be contiguous in the file).

    Parameters
    ----------
    name : str
        A metric of :func:`receval.metric`.
    *data
        Its data arguments, as for ``Accumulator.update`` (arrays, or columns of
        one scan).
    **options
        Keyword data arguments (``sample_weight=``, ``groups=``) and the metric's
        options. A keyword that is both (gauc's ``weighting``) is the option when it
        holds a name or a mapping (``weighting="clicks"``, as :func:`receval.gauc_score`
        takes it), data when it holds a value per row.

    Examples
    --------
    >>> import receval
    >>> receval.compute("pcoc", [1, 0, 0, 1], [0.6, 0.2, 0.3, 0.5])
    0.8
    """
    import inspect

    defn = definition(name, options)
    # the accumulator's own options (a window, a decay, ...) tell nothing of one call's rows
    own_options = [p.name for p in inspect.signature(metric).parameters.values()
                   if p.kind is p.KEYWORD_ONLY]  # fmt: skip
    held = next((k for k in own_options if k in options), None)
    if held is not None:
        raise InvalidParameterError(
            f"receval.compute({name!r}) takes no option {held!r}: it computes the metric on "
            f"the rows given, at once; pass {held}= to receval.metric({name!r}, ...) to "
            f"accumulate batches with it."
        )
    data_names = {*defn.inputs, "sample_weight"}  # weights a metric takes none of: refused
    own = inspect.signature(defn.check_params).parameters  # an option that is also data:
    kwargs = {  # its value (gauc's weighting="clicks") is the option, per-row values data
        k: options.pop(k)
        for k in list(options)
        if k in data_names and not (k in own and is_option_value(options[k]))
    }
    kwargs = without_no_weights(defn, kwargs)
    given = dict(zip(defn.inputs, data, strict=False)) | kwargs
    func = f"receval.compute({name!r})"
    # a scan is cut into batches of whole groups: their states need no rows kept
    params = whole_group_params(defn, name, options, func)
    check_arguments(name, defn, params, data, kwargs, func)  # missing, too many
    return run_definition(defn, params, given, func=func)
