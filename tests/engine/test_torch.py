"""Accumulators in a PyTorch loop: tensors of every dtype (CPU in place; CUDA copied
once: test_cuda.py), DLPack objects, ``state_dict`` through
``torch.save``/``torch.load(weights_only=True)``, and updates on a background thread --
each ``==`` the metric's function."""

from __future__ import annotations

import io
import pickle
import subprocess
import sys
import threading
import warnings
from typing import Any

import numpy as np
import pytest

import receval
from receval.engine.loop.tensors import HostCopy, as_arrays, host_array
from receval.engine.run import Accumulator
from receval.exceptions import InputValidationError

from .._dlpack import NUMPY_ASKS_A_COPY, DLPackArray

torch = pytest.importorskip("torch")

FLOATS = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
LABELS = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float32]  # fmt: skip


def _rows(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int64)
    s = rng.choice([0.1, 0.25, 0.5, 0.75, 0.875], n) + rng.integers(0, 4, n) / 64
    users = np.sort(rng.integers(0, 40, n))
    return y, s, users


# ------------------------------------------------------------------ tensors
@pytest.mark.parametrize("label_dtype", LABELS)
@pytest.mark.parametrize("score_dtype", FLOATS)
def test_every_dtype_equals_the_function(score_dtype: Any, label_dtype: Any) -> None:
    y, s, users = _rows()
    ty = torch.from_numpy(y).to(label_dtype)
    ts = torch.from_numpy(s).to(score_dtype).requires_grad_(True)  # detached by update
    exact = ts.detach().to(torch.float64).numpy()  # the scores the tensor holds
    for name, function in [
        ("roc_auc", lambda: receval.roc_auc_score(y, exact)),
        ("log_loss", lambda: receval.log_loss(y, exact)),
        ("gauc", lambda: receval.gauc_score(y, exact, groups=users)),
    ]:
        acc = receval.metric(name)
        kwargs = {"groups": torch.from_numpy(users)} if name == "gauc" else {}
        for part in np.array_split(np.unique(users), 3):  # whole users per batch
            at = torch.from_numpy(np.flatnonzero(np.isin(users, part)))
            acc.update(ty[at], ts[at], **{k: v[at] for k, v in kwargs.items()})
        assert acc.compute() == function(), name


def test_bfloat16_is_read_as_float32_exactly() -> None:
    t = torch.tensor([0.1, 0.3, 1 / 3, 0.7], dtype=torch.bfloat16)
    out = as_arrays(t, "test", "t")
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, t.to(torch.float32).numpy())
    assert as_arrays(t.to(torch.float16), "test", "t").dtype == np.float16


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.float64, torch.int64,
                                   torch.int8, torch.bool])  # fmt: skip
def test_a_cpu_tensor_is_read_in_place(dtype: Any) -> None:
    t = torch.arange(12).reshape(3, 4).to(dtype)[:, 1]  # strided: a view still
    held = t.numpy()
    out = as_arrays(t.requires_grad_(True) if dtype.is_floating_point else t, "test", "t")
    assert isinstance(out, np.ndarray) and out.dtype == held.dtype
    assert np.shares_memory(out, held)
    np.testing.assert_array_equal(out, held)


def test_an_object_with_only_dlpack_is_read() -> None:
    y, s, _ = _rows()
    acc = receval.metric("roc_auc").update(DLPackArray(y), DLPackArray(s))
    assert acc.compute() == receval.roc_auc_score(y, s)
    out = as_arrays(DLPackArray(s), "test", "s")
    assert np.shares_memory(out, s)


def test_a_dlpack_object_on_a_device_is_copied_to_the_host_or_says_how() -> None:
    if NUMPY_ASKS_A_COPY:
        copied = as_arrays(DLPackArray(np.arange(3.0), device=(2, 0), copies=True), "test", "x")
        np.testing.assert_array_equal(copied, [0.0, 1.0, 2.0])
    with pytest.raises(InputValidationError, match=r"copy it first \(cupy.asnumpy"):
        as_arrays(DLPackArray(np.arange(3.0), device=(2, 0)), "test", "x")


@pytest.mark.skipif(not NUMPY_ASKS_A_COPY, reason="NumPy asks for a host copy from 2.1 on")
def test_functions_and_containers_copy_a_device_array_to_the_host() -> None:
    y, s, users = _rows()

    def device(a: np.ndarray) -> DLPackArray:  # a CuPy or JAX array on a GPU
        return DLPackArray(a, device=(2, 0), copies=True)

    assert receval.roc_auc_score(device(y), device(s)) == receval.roc_auc_score(y, s)
    assert receval.log_loss(device(y), device(s)) == receval.log_loss(y, s)
    want = receval.gauc_score(y, s, groups=users)
    assert receval.gauc_score(device(y), device(s), groups=device(users)) == want
    items = np.arange(len(y))
    pos = y == 1
    want = receval.evaluate(receval.Qrels(users[pos], items[pos]), receval.Run(users, items, s),
                            ["ndcg@10", "map"]).mean  # fmt: skip
    qrels = receval.Qrels(device(users[pos]), device(items[pos]))
    got = receval.evaluate(qrels, receval.Run(device(users), device(items), device(s)),
                           ["ndcg@10", "map"]).mean  # fmt: skip
    assert got == want
    stuck = DLPackArray(s, device=(2, 0))  # its producer cannot copy to the host
    message = r"roc_auc_score: y_score is a DLPackArray on a device \(DLPack device \(2, 0\)\) "
    with pytest.raises(InputValidationError, match=message + "that could not be copied"):
        receval.roc_auc_score(y, stuck)
    with pytest.raises(InputValidationError, match=r"Run: items is a DLPackArray on a device"):
        receval.Run(users, DLPackArray(items, device=(2, 0)), s)


def test_a_tensor_without_values_is_refused_by_name() -> None:
    empty = torch.tensor([0.5, 0.25], device="meta")  # a shape, no data
    with pytest.raises(InputValidationError, match=r"roc_auc_score: y_score is a tensor on the "
                       r"device 'meta' that could not be copied to the host"):  # fmt: skip
        receval.roc_auc_score([0, 1], empty)
    with pytest.raises(InputValidationError, match=r"Qrels: users is a tensor on the device"):
        receval.Qrels(empty, [1, 2])
    for background in (False, True):
        acc = receval.metric("roc_auc", background=background)
        with pytest.raises(InputValidationError, match=r"^Accumulator.update of 'roc_auc': "
                           r"y_score is a tensor on the device 'meta'"):  # fmt: skip
            acc.update([0, 1], empty)
        with pytest.raises(InputValidationError, match=r"^Accumulator.update of 'roc_auc': "
                           r"sample_weight is a tensor on the device 'meta'"):  # fmt: skip
            acc.update([0, 1], [0.5, 0.25], sample_weight=empty)


def test_the_first_tensor_imports_torch_not_receval() -> None:
    code = (
        "import sys, receval\n"
        "acc = receval.metric('roc_auc').update([0, 1], [0.2, 0.7])\n"
        "acc.compute(); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_device_copy_is_read_once_its_event_has_fired() -> None:
    class Event:
        fired = False

        def synchronize(self) -> None:
            self.fired = True

    event, host = Event(), torch.tensor([0.25, 0.5])
    out = host_array(HostCopy(host, event))
    assert event.fired and np.shares_memory(out, host.numpy())


# ------------------------------------------------------------------ state_dict
def _saved_and_loaded(d: dict[str, Any]) -> dict[str, Any]:
    buffer = io.BytesIO()
    torch.save(d, buffer)
    buffer.seek(0)
    loaded: dict[str, Any] = torch.load(buffer, weights_only=True)
    return loaded


def _feed(acc: Any, name: str, rows: np.ndarray, data: tuple[np.ndarray, ...]) -> None:
    y, s, users = (x[rows] for x in data)
    if name == "gauc":
        acc.update(y, s, groups=users)
    elif name.startswith("ndcg"):
        qrels = {str(u): {f"i{i}": 1} for u, i, yy in zip(users, rows, y, strict=True) if yy}
        run: dict[str, dict[str, float]] = {}
        for u, i, ss in zip(users, rows, s, strict=True):
            run.setdefault(str(u), {})[f"i{i}"] = float(ss)
        acc.update(qrels, run)
    elif name == "rmse":
        acc.update(y.astype(float), s)
    else:
        acc.update(y, s)


RESUMED = ["roc_auc", "log_loss", "pcoc", "rmse", "gauc", "ndcg@10", "roc_auc(bins=64)", "ece"]


@pytest.mark.parametrize("window", [None, 2])
@pytest.mark.parametrize("name", RESUMED)
def test_a_resumed_run_equals_an_uninterrupted_one(name: str, window: int | None) -> None:
    data = _rows(600, seed=3)
    users = data[2]
    # batches of whole users (the grouped metrics need them)
    batches = [np.flatnonzero(np.isin(users, part)) for part in np.array_split(np.unique(users), 6)]
    whole = receval.metric(name, window=window)
    first = receval.metric(name, window=window)
    for rows in batches[:3]:
        _feed(whole, name, rows, data)
        _feed(first, name, rows, data)
    resumed = receval.metric(name, window=window)
    resumed.load_state_dict(_saved_and_loaded(first.state_dict()))
    for rows in batches[3:]:
        _feed(whole, name, rows, data)
        _feed(resumed, name, rows, data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert resumed.compute() == whole.compute()
        assert resumed.n_updates == whole.n_updates == 6
        if window is not None:
            assert resumed.compute_window() == whole.compute_window()


def test_a_state_dict_holds_only_tensors_and_plain_values() -> None:
    acc = receval.metric("gauc").update([1, 0, 1], [0.5, 0.2, 0.1], groups=["a", "a", "b"])

    def leaves(x: Any) -> list[Any]:
        if isinstance(x, dict):
            return [y for v in x.values() for y in leaves(v)]
        if isinstance(x, list):
            return [y for v in x for y in leaves(v)]
        return [x]

    kinds = {type(x) for x in leaves(acc.state_dict())}
    assert kinds <= {torch.Tensor, str, int, float, bool, type(None)}, kinds


def test_loading_checks_the_metric_and_its_options() -> None:
    d = receval.metric("log_loss", eps=0.1).update([1, 0], [0.7, 0.2]).state_dict()
    with pytest.raises(InputValidationError, match=r"the state is of 'log_loss' with options"):
        receval.metric("log_loss").load_state_dict(d)
    with pytest.raises(InputValidationError, match=r"the state is of 'log_loss'"):
        receval.metric("roc_auc").load_state_dict(d)
    with pytest.raises(InputValidationError, match=r"state_dict must be a dict of"):
        receval.metric("log_loss", eps=0.1).load_state_dict({"state": d["state"]})
    with pytest.raises(InputValidationError, match=r"the state's window is None"):
        receval.metric("log_loss", eps=0.1, window=3).load_state_dict(d)


def test_loading_another_metric_names_both_by_the_metric_asked_for() -> None:
    # the state of a ranking metric names its metric string, as the accumulator does,
    # not the definition they share; an accumulator by its own name (an alias)
    d = receval.metric("ndcg@5").state_dict()
    with pytest.raises(InputValidationError) as raised:
        receval.metric("ndcg@10").load_state_dict(d)
    options = "{{'metric': {!r}, 'conventions': {{}}, 'kind': 'users', 'whole_groups': False}}"
    assert str(raised.value) == (
        f"Accumulator.load_state_dict: the state is of 'ndcg@5' with options "
        f"{options.format('ndcg@5')}; this accumulator is 'ndcg@10' with options "
        f"{options.format('ndcg@10')}; load it into receval.metric of the same metric and "
        f"options."
    )
    d = receval.metric("pcoc").state_dict()
    with pytest.raises(InputValidationError) as raised:
        receval.metric("auc").load_state_dict(d)
    assert str(raised.value) == (
        "Accumulator.load_state_dict: the state is of 'pcoc' with options "
        "{'negative_sampling_rate': 1.0, 'pos_label': None}; this accumulator is 'auc' with "
        "options {'bins': None, 'pos_label': None}; load it into receval.metric of the same "
        "metric and options."
    )


def test_a_tampered_state_names_the_field() -> None:
    acc = receval.metric("roc_auc").update([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.3])
    d = acc.state_dict()
    counts = d["state"]["state"]["plain"]["state"]
    counts["scores"] = counts["scores"].flip(0)  # no longer sorted
    fresh = receval.metric("roc_auc")
    with pytest.raises(InputValidationError, match=r"ScoreCounts.scores must be sorted"):
        fresh.load_state_dict(d)
    assert fresh.n_updates == 0  # left as it was
    d = acc.state_dict()
    d["state"]["~"] = "os:system"
    with pytest.raises(InputValidationError, match=r"'os:system', which is not a state"):
        fresh.load_state_dict(d)
    d = acc.state_dict()
    d["state"]["~"] = "receval.exceptions:InputValidationError"
    with pytest.raises(InputValidationError, match=r"InputValidationError', which is not a state"):
        fresh.load_state_dict(d)
    d = acc.state_dict()
    d["n_updates"] = -1
    with pytest.raises(InputValidationError, match=r"n_updates must be an integer >= 0"):
        fresh.load_state_dict(d)


# ------------------------------------------------------------------ background updates
@pytest.mark.parametrize("name", ["roc_auc", "log_loss", "gauc", "ndcg@10"])
def test_background_updates_equal_foreground_ones(name: str) -> None:
    data = _rows(800, seed=5)
    users = data[2]
    parts = np.array_split(np.unique(users), 20)
    batches = [np.flatnonzero(np.isin(users, part)) for part in parts]
    fore, back = receval.metric(name), receval.metric(name, background=True)
    for rows in batches:
        _feed(fore, name, rows, data)
        _feed(back, name, rows, data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert back.compute() == fore.compute()
    assert back.n_updates == fore.n_updates == 20
    copy = pickle.loads(pickle.dumps(back))
    assert copy.background and copy.compute() == fore.compute()


def test_a_background_update_copies_the_batch_it_is_given() -> None:
    y, s, _ = _rows()
    back = receval.metric("roc_auc", background=True)
    ty, ts = torch.from_numpy(y.copy()), torch.from_numpy(s.copy())
    release = threading.Event()
    back._worker.submit(release.wait)  # the thread waits: the batch stays queued
    back.update(ty, ts)
    ts.fill_(0.5)  # the caller reuses its buffer before the update ran
    release.set()
    assert back.compute() == receval.roc_auc_score(y, s)


def test_a_background_error_is_raised_at_the_next_call() -> None:
    back = receval.metric("roc_auc", background=True)
    back.update([0, 2], [0.1, 0.2])  # a bad label: raised later, in this thread
    with pytest.raises(InputValidationError, match="y_true"):
        back.wait()
    back.update([0, 1], [0.1, 0.2])
    assert back.compute() == 1.0 and back.n_updates == 1  # the bad batch never counted


def test_a_background_error_names_its_batch_and_the_raising_call_s_batch_counts() -> None:
    # the call that reports batch 2's failure queued its own batch first: it counts
    back = receval.metric("roc_auc", background=True)
    back.update([1, 0], [0.9, 0.2])
    back.update([1, 0], [0.5, float("nan")])  # batch 2 fails on the thread
    back._worker._tasks.join()
    with pytest.raises(InputValidationError) as caught:
        back.update([0, 1], [0.3, 0.6])  # batch 3
    assert str(caught.value).startswith(
        "Accumulator.update of 'roc_auc' on the background thread: batch 2 failed and did "
        "not count; the batch of this call (batch 3) is queued and counts: do not pass it "
        "again. The error: y_score contains NaN"
    )
    back.update([1, 0, 1], [0.2, 0.5, 0.1])
    assert back.compute() == 0.5416666666666666 and back.n_updates == 3  # batches 1, 3, 4
    assert back.compute() == receval.roc_auc_score(
        [1, 0, 0, 1, 1, 0, 1], [0.9, 0.2, 0.3, 0.6, 0.2, 0.5, 0.1]
    )
    # two failures before a call: the first raises, naming the other; none is dropped
    back.reset()  # numbered from 1 again
    back.update([0, 2], [0.1, 0.2]).update([0, 1], [0.4, 0.3]).update([3, 0], [0.1, 0.2])
    with pytest.raises(InputValidationError) as both:
        back.wait()
    assert str(both.value).startswith(
        "Accumulator.update of 'roc_auc' on the background thread: batch 1 failed and did "
        "not count (batches [3] failed too and did not count). The error: y_true"
    )
    assert back.compute() == 0.0 and back.n_updates == 1


def test_a_decayed_state_dict_whose_rows_since_the_sync_come_before_it_is_refused() -> None:
    acc = receval.metric("roc_auc", decay=0.8).update([1, 0], [0.2, 0.6]).update([0, 1], [0.1, 0.9])
    d = acc.state_dict()
    d["synced"], d["synced_updates"] = d["state"], 2  # synced at update 2 ...
    d["state"] = receval.metric("roc_auc", decay=0.8).state_dict()["state"]  # ... rows at 0
    with pytest.raises(InputValidationError, match=r"decay is at an update before the synced"):
        acc.load_state_dict(d)
    assert acc.compute() == 0.35999999999999993 and acc.n_updates == 2  # left as it was


def test_a_window_of_rows_resumes_from_its_state_dict() -> None:
    y, s, _ = _rows(300, seed=9)
    whole, first = (receval.metric("log_loss", window=50, window_unit="rows") for _ in "ab")
    for part in np.array_split(np.arange(300), 7)[:4]:
        whole.update(y[part], s[part])
        first.update(y[part], s[part])
    resumed = receval.metric("log_loss", window=50, window_unit="rows")
    resumed.load_state_dict(_saved_and_loaded(first.state_dict()))
    for part in np.array_split(np.arange(300), 7)[4:5]:
        whole.update(y[part], s[part])
        resumed.update(y[part], s[part])
    assert resumed.compute_window() == whole.compute_window()
    assert resumed.compute() == whole.compute()


def test_a_pickle_written_before_sync_and_background_loads() -> None:
    acc = receval.metric("roc_auc").update([0, 1, 1], [0.3, 0.8, 0.2])
    old = acc.__getstate__()
    del old["_synced"], old["background"]
    back = Accumulator.__new__(Accumulator)
    back.__setstate__(old)
    assert back.compute() == acc.compute() and not back.background


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2])
def test_float8_is_read_as_float32_exactly(dtype: Any) -> None:
    """NumPy has no float8: its values are float32's (they were torch's raw TypeError)."""
    t = torch.tensor([0.1, 0.3, 1 / 3, 0.7]).to(dtype)
    out = as_arrays(t, "test", "t")
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, t.to(torch.float32).numpy())
    y = [0, 1, 0, 1]
    assert receval.roc_auc_score(y, t) == receval.roc_auc_score(y, out)
    assert receval.metric("roc_auc").update(torch.tensor(y), t).compute() == (
        receval.roc_auc_score(y, out)
    )


def test_a_sparse_tensor_is_refused_with_its_fix() -> None:
    sparse = torch.tensor([0.2, 0.0, 0.9]).to_sparse()
    with pytest.raises(InputValidationError) as info:
        receval.roc_auc_score([0, 1, 1], sparse)
    assert str(info.value) == (
        "roc_auc_score: y_score is a tensor of layout torch.sparse_coo; pass its dense values "
        "(y_score.to_dense())."
    )
    with pytest.raises(InputValidationError) as info:
        receval.metric("roc_auc").update([0, 1, 1], sparse)
    assert str(info.value) == (
        "Accumulator.update of 'roc_auc': y_score is a tensor of layout torch.sparse_coo; pass "
        "its dense values (y_score.to_dense())."
    )


def test_a_background_update_copies_a_pandas_batch() -> None:
    """A loop that reuses its pandas Series after update: the queued rows are those
    given (the Series was read when the thread got to it)."""
    pd = pytest.importorskip("pandas")
    y, s, _ = _rows()
    back = receval.metric("roc_auc", background=True)
    scores = pd.Series(s.copy())
    release = threading.Event()
    back._worker.submit(release.wait)  # the thread waits: the batch stays queued
    back.update(pd.Series(y), scores)
    scores.iloc[:] = 0.5  # the caller reuses its buffer before the update ran
    release.set()
    assert back.compute() == receval.roc_auc_score(y, s)
