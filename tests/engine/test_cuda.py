"""CUDA tensors: an accumulator's update copies them to the host once, queued on their
stream (the caller is not blocked, and a later change of the tensor on that stream is
not seen); the functions, the containers, retrieval from embeddings and ``sync`` over
NCCL take them too -- each ``==`` the same call on the host's arrays.

Skipped, with the reason, where torch sees no GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import receval
from receval.engine.loop.tensors import HostCopy, as_arrays, host_array

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="no CUDA device: the GPU paths are tested on a machine with one",
)
SRC = str(Path(receval.__file__).resolve().parents[1])
# about 0.1-0.3 s of a spinning kernel on a current GPU: the copies queued behind it
# are still under way when the calls that queued them return
SPIN = 300_000_000


def _rows(n: int = 4000, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int64)
    s = (rng.choice([0.1, 0.25, 0.5, 0.75], n) + rng.integers(0, 8, n) / 64).astype(np.float32)
    users = np.sort(rng.integers(0, 300, n))
    return y, s, users


def _cuda(a: np.ndarray) -> Any:
    return torch.from_numpy(a).cuda()


def test_a_cuda_tensor_is_copied_once_without_blocking() -> None:
    y, s, users = _rows()
    ty, ts = _cuda(y), _cuda(s).to(torch.bfloat16)
    # torch's pinned-memory cache holds a block of this size now
    host_array(as_arrays(ts, "test", "ts"))
    torch.cuda._sleep(SPIN)  # the copy waits behind this kernel on the stream
    copy = as_arrays(ts, "test", "ts")
    assert isinstance(copy, HostCopy)
    assert not copy.event.query()  # queued: the call returned before the copy ran
    assert copy.tensor.is_pinned() and copy.tensor.dtype == torch.float32
    out = host_array(copy)
    assert copy.event.query()
    np.testing.assert_array_equal(out, ts.float().cpu().numpy())
    for background in (False, True):
        acc = receval.metric("roc_auc", background=background)
        for part in np.array_split(np.arange(len(y)), 4):
            acc.update(ty[part], ts[part])
        assert acc.compute() == receval.roc_auc_score(y, ts.double().cpu().numpy())
    acc = receval.metric("gauc").update(ty, ts.float(), groups=_cuda(users))
    assert acc.compute() == receval.gauc_score(y, ts.float().cpu().numpy(), groups=users)


@pytest.mark.parametrize("background", [False, True])
def test_an_update_reads_the_batch_as_it_was_when_update_returned(background: bool) -> None:
    y, s, _ = _rows(200_000, seed=1)
    ty, ts = _cuda(y), _cuda(s)
    acc = receval.metric("log_loss", background=background)
    torch.cuda._sleep(SPIN)
    acc.update(ty, ts)
    ts.fill_(0.5)  # the loop reuses its buffer: queued after the copy, on the same stream
    ty.zero_()
    assert acc.compute() == receval.log_loss(y, s)


def test_functions_and_containers_take_cuda_tensors() -> None:
    y, s, users = _rows(seed=2)
    ty, ts, tu = _cuda(y), _cuda(s), _cuda(users)
    assert receval.roc_auc_score(ty, ts) == receval.roc_auc_score(y, s)
    assert receval.log_loss(ty, ts) == receval.log_loss(y, s)
    assert receval.gauc_score(ty, ts, groups=tu) == receval.gauc_score(y, s, groups=users)
    items = np.arange(len(y))
    pos = y == 1
    metrics = ["ndcg@10", "map", "recall@5"]
    want = receval.evaluate(
        receval.Qrels(users[pos], items[pos]), receval.Run(users, items, s), metrics
    ).mean
    ti = _cuda(items)
    got = receval.evaluate(receval.Qrels(tu[ty == 1], ti[ty == 1]), receval.Run(tu, ti, ts),
                           metrics).mean  # fmt: skip
    assert got == want
    acc = receval.metric("ndcg@10").update(
        receval.Qrels(tu[ty == 1], ti[ty == 1]), receval.Run(tu, ti, ts)
    )
    assert acc.compute() == want["ndcg@10"]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_retrieval_from_cuda_embeddings(dtype: str) -> None:
    rng = np.random.default_rng(3)
    users = rng.normal(size=(300, 16)).astype(np.float32)
    items = rng.normal(size=(5000, 16)).astype(np.float32)
    ids = np.arange(300)
    qrels = {int(u): {int(i): 1 for i in rng.choice(5000, 3, replace=False)} for u in ids}
    tu = _cuda(users).to(getattr(torch, dtype))
    ti = _cuda(items).to(getattr(torch, dtype))
    # the values the tensors hold, on the host (bfloat16 rounds them)
    hu, hi = tu.float().cpu().numpy(), ti.float().cpu().numpy()
    for text in ["recall@100", "ndcg@10"]:
        want = receval.evaluate_embeddings(qrels, hu, hi, [text], user_ids=ids).mean[text]
        got = receval.evaluate_embeddings(qrels, tu, ti, [text], user_ids=ids).mean[text]
        assert got == want, text
        acc = receval.metric(text, item_vectors=ti)
        for part in np.array_split(ids, 3):
            acc.update({int(u): qrels[int(u)] for u in part}, tu[part], user_ids=part)
        assert acc.compute() == want, text


NCCL_RANK = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import torch
    import torch.distributed as dist
    import receval

    port, out, path = sys.argv[1], sys.argv[2], sys.argv[3]
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0,
                            world_size=1)
    d = np.load(path)
    y, s, users = (torch.from_numpy(d[k]).cuda() for k in ("y", "s", "users"))
    accs = {"roc_auc": receval.metric("roc_auc"), "log_loss": receval.metric("log_loss"),
            "gauc": receval.metric("gauc")}
    values = {}
    for round_, rows in enumerate(np.array_split(np.arange(len(y)), 2)):
        for part in np.array_split(rows, 3):
            accs["roc_auc"].update(y[part], s[part])
            accs["log_loss"].update(y[part], s[part])
            accs["gauc"].update(y[part], s[part], groups=users[part])
        for name, acc in accs.items():
            acc.sync()
            values[f"{name}/{round_}"] = [acc.compute(), acc.n_updates]
    values["backend"] = str(dist.get_backend())
    dist.destroy_process_group()
    json.dump(values, open(out, "w"))
    """
)


def test_sync_over_nccl(tmp_path: Path) -> None:
    from .test_torch_distributed import _free_port

    if not torch.distributed.is_nccl_available():
        pytest.skip("this torch has no NCCL")
    y, s, users = _rows(seed=4)
    np.savez(tmp_path / "data.npz", y=y, s=s, users=users)
    (tmp_path / "rank.py").write_text(NCCL_RANK)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run(
        [sys.executable, str(tmp_path / "rank.py"), str(_free_port()), str(tmp_path / "out.json"),
         str(tmp_path / "data.npz")],
        env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    got = json.loads((tmp_path / "out.json").read_text())
    assert got["backend"] == "nccl"
    for round_, stop in enumerate([len(y) // 2 + len(y) % 2, len(y)]):
        want = {
            "roc_auc": receval.roc_auc_score(y[:stop], s[:stop]),
            "log_loss": receval.log_loss(y[:stop], s[:stop]),
            "gauc": receval.gauc_score(y[:stop], s[:stop], groups=users[:stop]),
        }
        for name, value in want.items():
            assert got[f"{name}/{round_}"] == [value, 3 * (round_ + 1)], (name, round_)
