"""The accumulator that :func:`receval.metric` returns (see :mod:`receval.engine.accumulator`)."""

from __future__ import annotations

import copy
import warnings
from itertools import repeat
from typing import Any

import numpy as np

from .. import exceptions
from .._parameters import counted
from ..data._lookup import distinct
from ..exceptions import InvalidParameterError, warn
from .kinds import MERGED, NO_WEIGHTS, UPDATE, WeightKind, no_pos_label_by_parts, with_kinds
from .loop.background import Worker, prefixed
from .loop.distributed import gather_plain
from .loop.plain import (
    from_plain,
    from_tensors,
    plain_differences,
    same_plain,
    to_plain,
    to_tensors,
)
from .loop.restored import check_rows, checked_attributes, later_options
from .loop.tensors import host_array, on_host, owned
from .memory import state_bytes
from .metric import DEFINITIONS, MetricDefinition, joined, weights_refused, without_no_weights
from .states import invalid_state
from .window import UNITS, Window, batch_rows

__all__ = ["Accumulator"]


def check_arguments(
    name: str,
    defn: MetricDefinition,
    params: Any,
    data: tuple[Any, ...],
    kwargs: Any,
    func: str | None = None,
) -> None:
    """An ``InvalidParameterError`` for data arguments that the metric does not take
    (missing, unknown, too many), in the user's words rather than Python's.

    The arguments are named as :meth:`~receval.engine.metric.MetricDefinition.arguments`
    names them for ``params`` (``prepare``'s first ones renamed so). A ``prepare`` that
    takes ``*args`` and whose last input is ``sample_weight``
    (``update(y_true, second, sample_weight=None)``) is checked against those inputs:
    every one but ``sample_weight`` is required. ``func`` names the caller (default:
    ``Accumulator.update of 'name'``). Weights given to a metric that takes none are
    refused as its function refuses them (:func:`~receval.engine.metric.weights_refused`)."""
    import inspect

    caller = f"Accumulator.update of {name!r}" if func is None else func
    if "sample_weight" in kwargs and "sample_weight" not in defn.inputs:
        raise weights_refused(caller, defn.name, kwargs["sample_weight"])

    inputs = defn.arguments(params)
    named = dict(zip(defn.inputs, inputs, strict=False))  # as the accumulator names them
    kwargs = {named.get(k, k): x for k, x in kwargs.items()}
    signature = inspect.signature(defn.prepare)
    if defn.takes_caller:  # the engine's keyword, not a data argument
        own = [p for p in signature.parameters.values() if p.name != "func"]
        signature = signature.replace(parameters=own)
    kinds = {p.kind for p in signature.parameters.values()}
    if inspect.Parameter.VAR_POSITIONAL in kinds and inputs[-1:] == ("sample_weight",):
        keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD
        signature = inspect.Signature(
            [inspect.Parameter("params", keyword)]
            + [inspect.Parameter(k, keyword) for k in inputs[:-1]]
            + [inspect.Parameter("sample_weight", keyword, default=None)]
        )
    else:
        first, *rest = signature.parameters.values()
        renamed = [p.replace(name=k) for p, k in zip(rest, inputs, strict=False)]
        signature = signature.replace(parameters=[first, *renamed, *rest[len(renamed) :]])
    try:
        signature.bind(params, *data, **kwargs)
    except TypeError as e:
        raise InvalidParameterError(f"{caller} takes ({', '.join(inputs)}): {e}.") from None


def swapped(defn: MetricDefinition, data: tuple[Any, ...]) -> bool:
    """Whether a batch that a binary metric refused has its labels and scores the
    other way round: the first argument is not binary but lies in [0, 1], the second
    is of integers or booleans with two values at most (0/1, -1/1, true/false).
    Scores of a float type are never taken for labels (a batch of a few scores may
    hold two values)."""
    if defn.inputs[:1] != ("y_true",) or len(data) < 2:
        return False
    try:
        first = np.asarray(data[0], dtype=np.float64)
        second = np.asarray(data[1])
    except (TypeError, ValueError):
        return False
    return (
        first.ndim == 1
        and second.dtype.kind in "biu"
        and len(distinct(first)) > 2
        and bool(((first >= 0) & (first <= 1)).all())
        and len(distinct(second)) <= 2
    )


class Accumulator:
    """A metric accumulated batch by batch: ``update``, ``merge``, ``compute``, ``reset``.

    Made by :func:`receval.metric`; see there. ``copy.copy`` gives an accumulator
    of its own state, as ``copy.deepcopy`` does. Accumulators pickle (a worker can
    send its accumulator to another process and merge it there), ``sync`` across
    the ranks of a ``torch.distributed`` process group, and save and load their
    state as plain tensors (``state_dict``, ``load_state_dict``).

    Attributes
    ----------
    name : str
        The metric as given to :func:`receval.metric`.
    definition : MetricDefinition
        What every backend runs for this metric.
    n_updates : int
        Batches added by ``update`` (merged accumulators add theirs, and ``sync``
        every rank's); with ``background=True``, those added so far (``wait()``
        first for all).
    window : tuple of (int, str) or None
        The window's size and unit (``"batches"`` or ``"rows"``), if any.
    background : bool
        Whether updates run on a background thread.
    """

    def __init__(
        self,
        name: str,
        defn: MetricDefinition,
        params: dict[str, Any],
        window: tuple[int, str] | None = None,
        background: bool = False,
    ) -> None:
        self.name = name
        self.definition = defn
        self._params = params
        self._state = defn.empty(params)
        self.n_updates = 0
        self.window = window
        self._window = None if window is None else Window(*window)
        # the state of every rank at the last sync (the same on every rank) and the
        # updates it counts; _state then holds only the rows added since
        self._synced: tuple[Any, int] | None = None
        self.background = background
        self._worker = _worker(name, background)
        # whether the rows had sample_weight (None: no row yet), for every metric that
        # takes it: updates and merged accumulators give weights all or none
        self._weights = NO_WEIGHTS

    def update(self, *data: Any, **kwargs: Any) -> Accumulator:
        """Add one batch of rows: the data arguments of the metric's function.

        ``update(y_true, y_score, sample_weight=None)`` for ``roc_auc``,
        ``update(y_true, y_prob, sample_weight=None)`` for ``log_loss``, ``pcoc``,
        ``copc``, ``normalized_entropy``, ``update(y_true, y_pred)`` for ``rmse`` /
        ``mae``, ``update(y_true, y_score, groups=..., sample_weight=None)`` for
        ``gauc``, ``update(reward, pscore, action_dist=..., action=None,
        position=None, estimated_rewards=None)`` for ``ips``, ``snips`` and ``dr``,
        and ``update(qrels, run)`` for a ranking metric string
        (``update(qrels, user_vectors, user_ids=...)`` when made with
        ``item_vectors=``). ``gauc`` and ranking metrics take a group's (user's)
        rows in any number of updates, unless made with ``whole_groups=True``.

        Data may be NumPy arrays, lists, pandas/polars/Arrow columns, torch
        tensors (CPU tensors are read in place; a CUDA tensor is copied to the
        host once, without blocking its stream; bfloat16 is read as float32,
        exactly) and any object with ``__dlpack__`` (JAX, CuPy). With
        ``background=True`` the batch is copied (or its copy from the GPU queued)
        and the update runs on the accumulator's thread. Returns the accumulator.
        """
        kwargs = without_no_weights(self.definition, kwargs)
        # an array that cannot be brought to the host is refused naming its argument
        func = f"Accumulator.update of {self.name!r}"
        names = self.definition.arguments(self._params)
        if len(data) > len(names):  # too many (refused below), named by position
            names = (*names, *(f"argument {i + 1}" for i in range(len(names), len(data))))
        read = on_host if self._worker is None else owned
        data = tuple(map(read, data, repeat(func), names))
        if kwargs:  # a keyword as the accumulator names it (user_vectors): the definition's (run)
            inputs = dict(zip(names, self.definition.inputs, strict=False))
            kwargs = {inputs.get(k, k): read(x, func, k) for k, x in kwargs.items()}
        if self._worker is None:
            self._add(data, kwargs)
        else:
            self._worker.submit(lambda: self._add(data, kwargs, host=True))
        return self

    def _add(self, data: tuple[Any, ...], kwargs: dict[str, Any], host: bool = False) -> None:
        if host:  # on the background thread: device copies land here
            data = tuple(host_array(x) for x in data)
            kwargs = {k: host_array(x) for k, x in kwargs.items()}
        defn, func = self.definition, f"Accumulator.update of {self.name!r}"
        # refused before a row is added; an empty batch tells nothing
        weights = self._weights.join(self._weights_of(data, kwargs), UPDATE)
        try:
            # the accumulator owns its state: the batch is added in place where it can be;
            # with a window, the batch's own state joins the window and the lifetime state
            new = defn.add(self._params, self._state if self._window is None else None, data,
                           kwargs, func=func)  # fmt: skip
        except TypeError as e:
            if not isinstance(e, InvalidParameterError):  # already in the user's words
                check_arguments(self.name, defn, self._params, data, kwargs)
            raise
        except exceptions.InputValidationError as e:
            if swapped(defn, data):
                said = str(e).split("; ", 1)[0]  # what was given, without the fix for labels
                raise exceptions.InputValidationError(
                    f"{said}; the arguments look swapped: update takes the labels first "
                    f"(y_true, then the scores), as scikit-learn's functions do "
                    f"(torchmetrics' update takes the predictions first)."
                ) from None
            # what one call takes (the greater of two labels positive), a batch cannot
            fix = f"to metric, e.g. receval.metric({self.name!r}, pos_label={{label}})"
            refused = no_pos_label_by_parts(e, "a batch", "a later batch", fix)
            if refused is not None:
                raise refused from None
            raise
        if self._window is not None:
            batch = new  # absorbed in place where the state can: batch stays the window's
            new = joined(self._state, batch, func, in_place=True)
            held = (tuple(_held(x) for x in data), {k: _held(x) for k, x in kwargs.items()})
            self._window.add(batch_rows(data, kwargs), batch, held)
        self._state = new
        self._weights = weights
        self.n_updates += 1

    def _weights_of(self, data: tuple[Any, ...], kwargs: dict[str, Any]) -> WeightKind:
        """Whether a batch gives ``sample_weight``; None for a batch of no row or a
        metric that takes no weights."""
        inputs = self.definition.inputs
        if "sample_weight" not in inputs or not batch_rows(data, kwargs):
            return NO_WEIGHTS
        at = inputs.index("sample_weight")
        given = data[at] if len(data) > at else kwargs.get("sample_weight")
        return WeightKind(given is not None, f"Accumulator.update of {self.name!r}")

    def wait(self) -> Accumulator:
        """Wait for the batches queued on the background thread (none without it);
        raise the error of one whose update failed. Returns the accumulator."""
        if self._worker is not None:
            self._worker.wait()
        return self

    def merge(self, other: Accumulator) -> Accumulator:
        """Add another accumulator of the same metric and options (e.g. another worker's).

        Returns this accumulator. The result does not depend on the order of merges.

        Raises
        ------
        InvalidParameterError
            ``other`` is of another metric, options or window, or its updates gave
            ``sample_weight`` where this one's gave none (or the other way round):
            this accumulator is left as it was.
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
        if other.window != self.window:
            raise InvalidParameterError(
                f"Accumulator.merge: cannot merge an accumulator with window {other.window!r} "
                f"into one with window {self.window!r}; merge accumulators of one window."
            )
        self.wait()
        func = f"Accumulator.merge of {self.name!r}"
        given = WeightKind(other._weights.value, func)
        weights = self._weights.join(given, MERGED)
        # a new state: other's stays its own; its rows count here as rows added since a sync
        with self.definition.named_by(func):  # the checks of the rows held: named so too
            state = joined(self._state, other._every_row(func), func)
        if self._synced is not None and getattr(state, "takes_caller", False):
            self._synced[0].check_disjoint(state, func)  # a group of both: refused now
        self._state = state
        self._weights = weights
        if self._window is not None and other._window is not None:
            self._window.extend(other._window)  # its batches after this one's
        self.n_updates += other.n_updates
        return self

    def sync(self, group: Any = None) -> Accumulator:
        """Merge the states of every rank of a ``torch.distributed`` process group.

        Every rank of ``group`` (None: the default group) must call it, as any
        collective operation. Afterwards every rank holds the same state, that of
        the rows of every rank, and ``compute()`` gives the same value (``==``) on
        every rank: what the metric's function gives on all those rows. Ranks may
        have seen any number of batches; a group (user) split across ranks is
        joined where the metric's merge joins it. Syncing again later sends only
        the rows added since, and never counts a row twice. The window, if any,
        stays this rank's own last batches. Works with Gloo and NCCL (the bytes
        of the states travel on the group's device).

        Returns the accumulator.

        Raises
        ------
        InvalidParameterError
            No process group is initialised, the ranks' accumulators are not
            of one metric with the same options (the message names each rank's
            metric and the options that differ) or hold states of another kind
            (another version of receval), or decayed ones are not at the same
            update.
        InputValidationError
            The ranks' rows are of two kinds that one call of the metric's
            function refuses (two negative labels, group ids of two types),
            naming the first rank that differs: every rank raises, and none syncs.
        RecevalError
            An update on a rank's background thread failed (the error of its
            class, naming that rank): every rank raises, and none syncs.
        """
        failed: Exception | None = None
        try:  # a failed background update joins the gather, so that every rank raises
            self.wait()
        except Exception as exc:
            failed = exc
        base, n_base = self._synced if self._synced is not None else (None, 0)
        error = None if failed is None else [type(failed).__name__, str(failed)]
        mine = {"metric": self.definition.name, "options": to_plain(self._params),
                "state": to_plain(self._state), "n_updates": self.n_updates - n_base,
                "error": error, "weights": self._weights.value}  # fmt: skip
        parts = gather_plain(mine, group, "Accumulator.sync")
        _raise_failed(parts, failed)
        states, weights = [], NO_WEIGHTS
        for rank, part in enumerate(parts):
            if part["metric"] != mine["metric"] or not same_plain(part["options"], mine["options"]):
                raise InvalidParameterError(
                    f"Accumulator.sync of {self.name!r}: rank {rank} holds "
                    f"{_unlike(part, mine, self.name)}; make the accumulator "
                    f"alike on every rank (receval.metric of the same metric and options) and "
                    f"sync them in the same order."
                )
            given = WeightKind(part["weights"], f"Accumulator.sync of {self.name!r}")
            if given.invalid() is not None:
                raise invalid_state(f"rank {rank}'s weights must be None, True or False")
            states.append(self._loaded(part["state"], rank, given))
            weights = weights.join(given, f"on rank {rank}")
        clocks = [s.clock.updates for s in states] if "decay" in self._params else []
        if len(set(clocks)) > 1:
            raise InvalidParameterError(
                f"Accumulator.sync: decayed accumulators sync only at the same update (the "
                f"weights depend on it). Got updates {clocks} on ranks 0 to {len(clocks) - 1}; "
                f"sync ranks that update in step (one update each per step)."
            )
        merged, func = states[0], f"Accumulator.sync of {self.name!r}"
        with self.definition.named_by(func):  # the checks of the rows held: named so too
            for rank, state in enumerate(states[1:], 1):
                merged = _joined_from(merged, state, func, rank)
        # a decayed state's rows since the sync are weighed from the merged state's update
        self._synced = (merged if base is None else _then(base, merged, func),
                        n_base + sum(int(part["n_updates"]) for part in parts))  # fmt: skip
        fresh = getattr(merged, "fresh", None)  # a decayed AUC's clock goes on
        empty = self.definition.empty(self._params)
        self._state = with_kinds(empty, merged) if fresh is None else fresh()
        self._weights = weights
        self.n_updates = self._synced[1]
        return self

    def _loaded(self, plain: Any, rank: int, weights: WeightKind) -> Any:
        """A rank's state from its plain form, checked as a loaded one (``weights``: those
        of that rank's updates): a state of another class (another version of receval on
        that rank) is named so."""
        modules, where = ("receval", self.definition.module), f"rank {rank}'s state"
        state = from_plain(plain, modules, where)
        template = self.definition.empty(self._params)
        if type(state) is not type(template):
            raise InvalidParameterError(
                f"Accumulator.sync of {self.name!r}: rank {rank} holds a state of another "
                f"kind ({type(state).__name__}, this rank {type(template).__name__}) for the "
                f"same metric and options; run one version of receval on every rank."
            )
        check_rows(state, template, where, weights)
        return state

    def compute(self) -> Any:
        """The metric's value on every row seen (what its function returns on them).

        Before any update the value is undefined: an ``UndefinedMetricWarning`` says
        so (rather than the metric's own reason for an empty input, such as a single
        class) beside the value of no row (nan), or the metric's error where it
        refuses an empty input (``retention``).
        """
        # (the batches queued on the background thread added first)
        state = self._every_row(f"Accumulator.compute of {self.name!r}")
        func = f"receval.metric({self.name!r})"
        if self.n_updates:
            return self.definition.value(self._params, state, func=func)  # may compact in place
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", exceptions.UndefinedMetricWarning)
            value = self.definition.value(self._params, state, func=func)
        warn(
            f"Accumulator.compute of {self.name!r}: no batch has been added (update was "
            f"never called), so the value is undefined (returned as {value!r}).",
            exceptions.UndefinedMetricWarning,
        )
        return value

    def skipped(self) -> dict[str, Any]:
        """What the metric left out of :meth:`compute`'s value, for a metric that leaves
        groups out of its mean (gauc, the grouped metrics) or a ranking metric (the
        qrels users without a list, the pairs ``exclude`` or ``propensity_clip`` left
        out); ``{}`` for any other.

        Returns
        -------
        dict
            ``n_groups`` (the groups seen), ``n_groups_skipped``, ``n_rows_skipped`` (their
            input rows) and ``why``, the rule that left them out; for a ranking metric,
            ``n_users_missing``: the qrels users for whom no update gave a list in the run
            (or, retrieving from ``item_vectors``, a vector), scored 0 or left out by
            ``missing_users`` (the count of :func:`receval.evaluate`'s report, a user's
            qrels and list joined across updates and merges); retrieving from
            ``item_vectors`` with ``exclude``, ``n_exclude_unmatched``: the distinct pairs
            of ``exclude`` whose item has no vector, or whose user no update gave a vector,
            which masked nothing (the counts of :func:`receval.evaluate_embeddings`'
            report); for a propensity-weighted ranking metric with ``propensity_clip`` (once
            qrels were given), ``n_pairs_propensity_clipped``: the relevant pairs whose
            propensity the clip raised (the count of :func:`receval.evaluate`'s report);
            with ``candidates``, the counts of that report's ``sampling``:
            ``n_rows_dropped`` (run rows outside the candidates), ``n_candidates_absent``
            (candidates the run does not score), ``n_users_without_candidates`` (run
            users without a candidate set) and ``n_rows_kept`` (run rows ranked), of
            every run row given, run users absent from the qrels included.

        Examples
        --------
        >>> import receval
        >>> acc = receval.metric("grouped_auprc")
        >>> _ = acc.update([1, 0, 0, 0], [0.9, 0.2, 0.8, 0.7], groups=[1, 1, 2, 2])
        >>> acc.compute(), acc.skipped()["n_groups_skipped"], acc.skipped()["why"]
        (1.0, 1, 'without a positive')
        """
        if self.definition.grouped is not None:
            _, counts, why = self.definition.grouped(self._params, self.state)
            return {**counts, "why": why}
        if self.definition.left_out is not None:
            return self.definition.left_out(self._params, self.state)
        return {}

    def compute_window(self) -> Any:
        """The metric's value on the rows of the window: the last batches or rows seen.

        Exactly what the metric's function returns on those rows. After a
        ``merge``, the window holds this accumulator's batches, then the other's
        (the order in which workers saw their batches is not known), trimmed to
        the window's size. ``sync`` leaves it as it is: this rank's own batches.
        """
        if self._window is None:
            raise InvalidParameterError(
                f"Accumulator.compute_window: {self.name!r} has no window; make it with "
                f"receval.metric({self.name!r}, window=N)."
            )
        self.wait()
        func = f"Accumulator.compute_window of {self.name!r}"
        return self.definition.value(
            self._params, self._window.state(self.definition, self._params, func), func=func
        )

    def reset(self) -> Accumulator:
        """Forget every row (the options stay), and the error of a background batch that
        failed and has not raised yet (it did not count); returns the accumulator."""
        if self._worker is not None:
            self._worker.restart()  # background batches are numbered from 1 again
        self._state = self.definition.empty(self._params)
        self._synced = None
        self._weights = NO_WEIGHTS
        if self._window is not None:
            self._window.clear()
        self.n_updates = 0
        return self

    def state_dict(self) -> dict[str, Any]:
        """The accumulator as plain data: CPU tensors, strings, numbers, lists and dicts.

        ``torch.save`` writes it and ``torch.load(path, weights_only=True)`` reads
        it back; ``load_state_dict`` then restores the accumulator, and a run
        resumed from it computes the same value (``==``) as one never
        interrupted. In a distributed run, ``sync()`` first: the state is then
        the same on every rank, and every rank loads the same file. Needs torch.

        Returns
        -------
        state : dict
            ``metric`` and ``options`` (checked on loading), ``n_updates``,
            ``state`` (rows added since the last sync, or every row), ``synced``
            (the state at the last sync, or None), ``synced_updates``,
            ``window`` (the window's batches, or None) and ``weights`` (whether
            the updates gave ``sample_weight``; None before a row).

        Examples
        --------
        >>> import io, torch, receval
        >>> auc = receval.metric("roc_auc").update([1, 0, 1], [0.9, 0.3, 0.4])
        >>> buffer = io.BytesIO()
        >>> torch.save(auc.state_dict(), buffer)
        >>> _ = buffer.seek(0)
        >>> resumed = receval.metric("roc_auc")
        >>> _ = resumed.load_state_dict(torch.load(buffer, weights_only=True))
        >>> resumed.update([0], [0.5]).compute() == auc.update([0], [0.5]).compute()
        True
        """
        self.wait()
        synced, n_synced = self._synced if self._synced is not None else (None, 0)
        window = None
        if self._window is not None:
            window = {"size": self._window.size, "unit": self._window.unit,
                      "batches": [list(b) for b in self._window.batches]}  # fmt: skip
        plain = {
            "metric": self.definition.name,
            "options": to_plain(self._params),
            "n_updates": self.n_updates,
            "state": to_plain(self._state),
            "synced": None if synced is None else to_plain(synced),
            "synced_updates": n_synced,
            "window": None if window is None else to_plain(window),
            "weights": self._weights.value,
        }
        result: dict[str, Any] = to_tensors(plain)
        return result

    def load_state_dict(self, state_dict: dict[str, Any]) -> Accumulator:
        """Restore what ``state_dict`` returned (tensors or NumPy arrays).

        The metric and its options must be this accumulator's, and the state
        what that metric makes (classes, shapes, counts >= 0, sorted scores):
        anything else raises ``InputValidationError`` naming the field, and the
        accumulator is left as it was. Returns the accumulator.
        """
        from ..exceptions import InputValidationError

        self.wait()
        keys = {"metric", "options", "n_updates", "state", "synced", "synced_updates", "window",
                "weights"}  # fmt: skip
        # (saved before the weights were held: without them, told by the next update)
        if not isinstance(state_dict, dict) or set(state_dict) not in (keys, keys - {"weights"}):
            got = sorted(state_dict) if isinstance(state_dict, dict) else type(state_dict).__name__
            raise InputValidationError(
                f"Accumulator.load_state_dict: state_dict must be a dict of {sorted(keys)}. "
                f"Got {got}; pass what Accumulator.state_dict returned."
            )
        d = from_tensors(state_dict)
        later: dict[str, Any] = {}
        if d["metric"] == self.definition.name and isinstance(d["options"], dict):
            later = later_options(self.definition, d["options"])
            d["options"] = {**d["options"], **to_plain(later)}
        if d["metric"] != self.definition.name or not same_plain(
            d["options"], to_plain(self._params)
        ):
            raise InputValidationError(
                f"Accumulator.load_state_dict: the state is of {_named(d)!r} with options "
                f"{d['options']!r}; this accumulator is {self.name!r} with options "
                f"{to_plain(self._params)!r}; load it into receval.metric of the same metric "
                f"and options."
            )
        modules = ("receval", self.definition.module)
        window = None if d["window"] is None else from_plain(d["window"], modules, "window")
        if window is not None and not isinstance(window, dict):
            raise invalid_state(f"the window must be a dict, got {type(window).__name__}")
        if (window is None) != (self.window is None) or (
            window is not None and (window.get("size"), window.get("unit")) != self.window
        ):
            shown = None if window is None else (window.get("size"), window.get("unit"))
            raise InputValidationError(
                f"Accumulator.load_state_dict: the state's window is {shown!r}, this "
                f"accumulator's {self.window!r}; load it into an accumulator of the same window."
            )
        held = None
        if window is not None and self.window is not None:
            held = Window(*self.window)
            for i, batch in enumerate(window.get("batches", [])):
                if not (isinstance(batch, list) and len(batch) == 3):
                    raise invalid_state(f"window batch {i} must be [rows, state, data]")
                held.add(*batch)
        synced = None if d["synced"] is None else from_plain(d["synced"], modules, "synced")
        checked = checked_attributes({
            "name": self.name, "definition": self.definition, "_params": self._params,
            "_state": from_plain(d["state"], modules), "n_updates": d["n_updates"],
            "window": self.window, "_window": held, "background": self.background,
            "_synced": None if synced is None else (synced, d["synced_updates"]),
            "_weights": WeightKind(d.get("weights"), f"Accumulator.update of {self.name!r}"),
        }, gained=later)  # fmt: skip
        self.__dict__.update(checked)
        return self

    def __copy__(self) -> Accumulator:
        # an accumulator owns its state (updates add batches in place): a copy holds its
        # own, as a deep copy does, so that updating either leaves the other as it was
        return copy.deepcopy(self)

    def __getstate__(self) -> dict[str, Any]:
        # a registered definition is looked up again by its module and name (its
        # functions are not pickled); another one (a metric defined in a notebook)
        # travels by value where the pickler can (cloudpickle)
        self.wait()
        state = dict(self.__dict__)
        del state["_worker"]
        defn = self.definition
        if DEFINITIONS.get(defn.name) is defn:
            state["definition"] = (defn.module, defn.name)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # what a pickle holds is checked before it is used: a state that is not what
        # this metric makes is an error naming the field, never a silent value
        state = checked_attributes(state)
        self.__dict__.update(state)
        self._worker = _worker(self.name, self.background)

    @property
    def state(self) -> Any:
        """The merged state of every row seen (what ``compute`` finalizes)."""
        return self._every_row(f"Accumulator.state of {self.name!r}")

    def _every_row(self, func: str) -> Any:
        """:attr:`state`, ``func`` the caller that a group both synced and added since
        names."""
        self.wait()
        if self._synced is None:
            return self._state
        return _then(self._synced[0], self._state, func)

    @property
    def memory_bytes(self) -> int:
        """Bytes the accumulator's state (and window) holds in arrays: what a state
        reports of itself, else the NumPy arrays it is made of."""
        self.wait()
        return state_bytes((self._state, self._window, self._synced))

    @property
    def params(self) -> dict[str, Any]:
        """The checked options of the metric."""
        return dict(self._params)

    def __repr__(self) -> str:
        window = ""
        if self.window is not None:
            size, unit = self.window
            window = f", window of {counted(size, UNITS[unit], unit)}"
        return f"Accumulator({self.name!r}, {counted(self.n_updates, 'update')}{window})"


#: Batches that wait for the background thread before ``update`` blocks.
_QUEUE_DEPTH = 8


def _worker(name: str, background: bool) -> Worker | None:
    """The background thread of an accumulator, or None."""
    return Worker(_QUEUE_DEPTH, f"Accumulator.update of {name!r}") if background else None


def _raise_failed(parts: list[Any], failed: Exception | None) -> None:
    """Raise on every rank when a rank's background update failed before a sync: this
    rank's own error, or one naming the rank that failed and quoting its error."""
    ranks = [rank for rank, part in enumerate(parts) if part.get("error") is not None]
    if not ranks:
        return
    where = f"rank {ranks[0]}" if failed is None else "this rank"
    others = f" (updates failed on ranks {ranks})" if len(ranks) > 1 else ""
    text = (
        f"Accumulator.sync: an update on {where} failed, so no rank synced{others}; sync "
        f"again on every rank (the failed batch is not counted). The error: "
    )
    if failed is not None:
        raise prefixed(failed, text)
    kind, message = parts[ranks[0]]["error"]
    error = getattr(exceptions, kind, None)
    if not (isinstance(error, type) and issubclass(error, exceptions.RecevalError)):
        error = exceptions.RecevalError
    raise error(text + message)


def _joined_from(merged: Any, state: Any, func: str, rank: int) -> Any:
    """``merged`` (the states of the ranks before ``rank``) joined with ``rank``'s state
    in a sync, ``func`` the caller; a kind that differs (labels, id types) is refused
    as coming from that rank (``Got 0 on rank 1, -1 before``), as a sync's weights are,
    where a merge says it comes from the accumulator merged."""
    try:
        return joined(merged, state, func)
    except exceptions.InputValidationError as error:
        said = str(error)
        if type(error) is not exceptions.InputValidationError or f" {MERGED}, " not in said:
            raise
        raise exceptions.InputValidationError(
            said.replace(f" {MERGED}, ", f" on rank {rank}, ", 1)
        ) from None


def _then(base: Any, later: Any, func: str) -> Any:
    """The state at the last sync, then the rows added since (a decayed state's weights
    at the later update's scale); ``func``: the caller. A group in both raises, saying
    that the accumulator keeps the rows since until ``reset()``."""
    followed_by = getattr(base, "followed_by", None)
    try:
        return joined(base, later, func) if followed_by is None else followed_by(later)
    except exceptions.InputValidationError as error:
        raise exceptions.InputValidationError(
            f"{str(error)[:-1]}. The accumulator keeps the rows given since its last sync, "
            f"so it refuses them again at every compute, state, merge and sync: reset() it "
            f"(which forgets the synced rows too) and give its batches again."
        ) from None


def _named(saved: dict[str, Any]) -> Any:
    """The metric that a saved state's ``metric`` (its definition) and ``options``
    name, as an accumulator is named by its metric rather than its definition: the
    metric string its options hold, for a definition of many metrics (``{"metric":
    "ndcg@10", ...}`` of the ranking one), else its definition's name."""
    options = saved["options"]
    named = options.get("metric") if isinstance(options, dict) else None
    return named if isinstance(named, str) else saved["metric"]


def _unlike(part: dict[str, Any], mine: dict[str, Any], name: str) -> str:
    """How a rank's accumulator (its ``part`` of a sync) differs from this rank's
    (``mine``, made as ``name``): ``"'ndcg@5', this rank 'ndcg@10'"`` for another
    metric, else the options that differ, each side's (a ranking metric's
    ``conventions`` by their names)."""
    if _named(part) != _named(mine) or part["metric"] != mine["metric"]:
        return f"{_named(part)!r}, this rank {name!r}"
    theirs, ours = plain_differences(part["options"], mine["options"], "conventions")
    return f"{_named(part)!r} with {', '.join(theirs)}, this rank {name!r} with {', '.join(ours)}"


def _held(x: Any) -> Any:
    """A window's copy of a data argument: a NumPy array (None stays None)."""
    return None if x is None else np.asarray(x)
