"""``Accumulator.sync`` in a real two-process ``torch.distributed`` run (Gloo on loopback).

Each rank sees half the rows (rows of one user on both ranks), in a different
number of batches, syncs, and must hold the value of the metric's function on
all the rows (``==``) -- the same float on both ranks. A second round of batches
and a second sync must count every row once. ``gauc`` and ``ndcg@10`` get users
split across ranks and batches where their accumulators join split groups
(``definition.splits_groups``), whole users per batch and rank otherwise.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

import receval

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")

SRC = str(Path(receval.__file__).resolve().parents[1])
METRICS = ["roc_auc", "log_loss", "gauc", "ndcg@10"]

WORKER = textwrap.dedent(
    """
    import json, sys, warnings
    import numpy as np
    import torch
    import torch.distributed as dist
    import receval
    from receval.exceptions import InvalidParameterError

    rank, port, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2)
    data = np.load(sys.argv[4])
    y, s, users, side = data["y"], data["s"], data["users"], data["side"]
    by_group = data["by_group"]

    def batches(mask, n):  # this rank's rows, in n batches
        return np.array_split(np.flatnonzero(mask), n)

    n_batches = 3 if rank == 0 else 5  # uneven batch counts
    accs = {name: receval.metric(name) for name in %(metrics)r}
    accs["roc_auc"] = receval.metric("roc_auc", background=True)  # sync waits for it
    recent = receval.metric("log_loss", window=2)  # sync leaves the window this rank's
    # gauc and ranking metrics that join a group's rows across updates and merges
    split = bool(getattr(accs["gauc"].definition, "splits_groups", False))
    results = {"split": split}
    for round_ in (0, 1):
        mine = (side == rank) & (data["round"] == round_)
        grouped = (by_group == rank) & (data["round"] == round_)
        for rows in batches(mine, n_batches):
            accs["roc_auc"].update(torch.from_numpy(y[rows]), torch.from_numpy(s[rows]))
            accs["log_loss"].update(torch.from_numpy(y[rows]), torch.from_numpy(s[rows]))
            recent.update(y[rows], s[rows])
        if split:  # users' rows on both ranks and in several batches: joined by merge
            parts = batches(mine, n_batches)
        else:  # whole users per batch and per rank
            parts = [np.flatnonzero(grouped & np.isin(users, u))
                     for u in np.array_split(np.unique(users[grouped]), n_batches)]
        for part in parts:
            accs["gauc"].update(y[part], s[part], groups=users[part])
            qrels, run = {}, {}
            for i in part:
                key = str(users[i])
                run.setdefault(key, {})[f"i{i}"] = float(s[i])
                if y[i]:
                    qrels.setdefault(key, {})[f"i{i}"] = 1
            accs["ndcg@10"].update(qrels, run)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, acc in accs.items():
                acc.sync()
                results[f"{name}/{round_}"] = [repr(acc.compute()), acc.n_updates]
    recent.sync()
    last = np.concatenate(batches((side == rank) & (data["round"] == 1), n_batches)[-2:])
    results[f"window/{rank}"] = [recent.compute_window() == receval.log_loss(y[last], s[last]),
                                 recent.compute() == float(results["log_loss/1"][0])]
    bad = receval.metric("log_loss", eps=0.1 if rank == 0 else 0.2)
    try:
        bad.sync()
        results["mismatch"] = "no error"
    except InvalidParameterError as exc:
        results["mismatch"] = str(exc)
    dist.destroy_process_group()
    json.dump(results, open(out, "w"))
    """
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _data(path: Path) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    n = 3000
    users = np.sort(rng.integers(0, 300, n))
    data = {
        "y": (rng.random(n) < 0.3).astype(np.int64),
        "s": rng.choice([0.1, 0.2, 0.5, 0.7, 0.9], n) * np.where(rng.random(n) < 0.5, 1, 0.99),
        "users": users,
        "side": rng.integers(0, 2, n),  # any row on either rank: users split
        "by_group": (users % 2).astype(np.int64),  # whole users per rank
        "round": (users % 4 // 2).astype(np.int64),  # users of round 1 come after a sync
    }
    np.savez(path, **data)
    return data


def _expected(data: dict[str, np.ndarray], round_: int) -> dict[str, float]:
    keep = data["round"] <= round_
    y, s, users = data["y"][keep], data["s"][keep], data["users"][keep]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in np.flatnonzero(keep):
        key = str(data["users"][i])
        run.setdefault(key, {})[f"i{i}"] = float(data["s"][i])
        if data["y"][i]:
            qrels.setdefault(key, {})[f"i{i}"] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {
            "roc_auc": receval.roc_auc_score(y, s),
            "log_loss": receval.log_loss(y, s),
            "gauc": receval.gauc_score(y, s, groups=users),
            "ndcg@10": receval.metric("ndcg@10").update(qrels, run).compute(),
        }


def run_two_ranks(script: Path, tmp_path: Path, *args: str) -> list[dict]:
    """Run ``script`` as ranks 0 and 1 of a Gloo group (argv: rank, port, the rank's JSON
    output, ``args``); what each rank wrote."""
    port = str(_free_port())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    env.update(GLOO_SOCKET_IFNAME="lo", MASTER_ADDR="127.0.0.1", OMP_NUM_THREADS="1")
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(rank), port, str(tmp_path / f"{rank}.json"), *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for rank in (0, 1)
    ]
    try:
        outputs = [p.communicate(timeout=240)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    for p, output in zip(procs, outputs, strict=True):
        assert p.returncode == 0, output
    return [json.loads((tmp_path / f"{rank}.json").read_text()) for rank in (0, 1)]


def test_two_ranks_hold_the_functions_value(tmp_path: Path) -> None:
    data = _data(tmp_path / "data.npz")
    script = tmp_path / "worker.py"
    script.write_text(WORKER % {"metrics": METRICS})
    results = run_two_ranks(script, tmp_path, str(tmp_path / "data.npz"))
    mismatch = [r.pop("mismatch") for r in results]
    windows = [r.pop(f"window/{rank}") for rank, r in enumerate(results)]
    assert windows == [[True, True], [True, True]]
    splits = getattr(receval.metric("gauc").definition, "splits_groups", False)
    assert results[0]["split"] == splits
    assert results[0] == results[1]  # the same float on both ranks
    for round_ in (0, 1):
        expected = _expected(data, round_)
        for name in METRICS:
            assert float(results[0][f"{name}/{round_}"][0]) == expected[name], (name, round_)
        assert results[0][f"roc_auc/{round_}"][1] == (3 + 5) * (round_ + 1)
    fix = "make the accumulator alike on every rank (receval.metric of the same metric"
    assert (
        "Accumulator.sync of 'log_loss': rank 1 holds 'log_loss' with eps=0.2, this rank "
        f"'log_loss' with eps=0.1; {fix}"
    ) in mismatch[0]
    assert "rank 0 holds 'log_loss' with eps=0.1, this rank 'log_loss' with eps=0.2;" in mismatch[1]


STEPS = textwrap.dedent(
    """
    import dataclasses, datetime, json, sys
    import numpy as np
    import torch.distributed as dist
    import receval
    from receval.exceptions import InputValidationError, InvalidParameterError

    rank, port, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2, timeout=datetime.timedelta(seconds=60))
    results = {}
    # a background update that failed on rank 1 only: every rank raises, none syncs
    loss = receval.metric("log_loss", background=True).update([1, 0], [0.9, 0.2])
    if rank == 1:
        loss.update([1, 0], [0.9, 2.0])
    try:
        loss.sync()
        results["failed"] = "no error"
    except InputValidationError as exc:
        results["failed"] = str(exc)
    loss.sync()  # again, on every rank: the failed batch is not counted
    results["failed/after"] = [loss.compute(), loss.n_updates]
    # decay: ranks in step sync at update 30 and 70; 0.5**-64 passes 2**64 in between
    rng = np.random.default_rng(rank)
    decayed = receval.metric("roc_auc", decay=0.5)
    for t in range(70):
        decayed.update(rng.integers(0, 2, 4), rng.random(4).round(2))
        if t in (29, 69):
            decayed.sync()
            results[f"decay/{t + 1}"] = [repr(decayed.compute()), decayed.n_updates]
    results["decay/sd"] = repr(receval.metric("roc_auc", decay=0.5).load_state_dict(
        decayed.state_dict()).compute())
    behind = receval.metric("roc_auc", decay=0.5).update([0, 1], [0.2, 0.4])
    if rank == 1:
        behind.update([0, 1], [0.3, 0.1])
    try:
        behind.sync()
        results["behind"] = "no error"
    except InvalidParameterError as exc:
        results["behind"] = str(exc)
    results["behind/after"] = [behind.compute(), behind.n_updates]
    # labels -1/1 on rank 0 and 0/1 on rank 1 (one call of both: refused); group ids of
    # both types: every rank refuses the sync, each state as it was
    labelled = receval.metric("roc_auc").update([-1, 1] if rank == 0 else [0, 1], [0.2, 0.7])
    grouped = receval.metric("grouped_auprc").update(
        [1, 0], [0.9, 0.1], groups=[1, 1] if rank == 0 else ["1", "1"])
    gauc = receval.metric("gauc").update(
        [1, 0], [0.9, 0.1], groups=["u", "u"] if rank == 0 else [1, 1])
    for key, acc in (("labels", labelled), ("ids", grouped), ("gauc ids", gauc)):
        try:
            acc.sync()
            results[key] = "no error"
        except InputValidationError as exc:
            results[key] = str(exc)
        results[f"{key}/after"] = [acc.compute(), acc.n_updates]
    # after a sync, a batch of the other labels is refused at its update
    agreed = receval.metric("brier_score").update([0, 1], [0.2, 0.7]).sync()
    try:
        agreed.update([-1, 1], [0.3, 0.6])
        results["labels/synced"] = "no error"
    except InputValidationError as exc:
        results["labels/synced"] = str(exc)
    # sample_weight on rank 0's updates only: every rank refuses the sync; after a sync
    # of weighted rows, a batch without weights is refused at its update
    loss = receval.metric("log_loss").update(
        [1, 0], [0.8, 0.3], **({"sample_weight": [2.0, 1.0]} if rank == 0 else {}))
    try:
        loss.sync()
        results["weights"] = "no error"
    except InvalidParameterError as exc:
        results["weights"] = str(exc)
    results["weights/after"] = [loss.compute(), loss.n_updates]
    # rank 1's state tampered with (3 rows of weight 2, of updates without sample_weight):
    # refused as load_state_dict refuses it, on every rank
    tampered = receval.metric("log_loss").update([1, 0], [0.8, 0.3])
    if rank == 1:
        tampered._state = dataclasses.replace(tampered._state, n_rows=3)
    try:
        tampered.sync()
        results["tampered"] = "no error"
    except InputValidationError as exc:
        results["tampered"] = str(exc)
    weighted = receval.metric("pcoc").update([1, 0], [0.8, 0.3], sample_weight=[2, 1]).sync()
    try:
        weighted.update([1, 0], [0.6, 0.1])
        results["weights/synced"] = "no error"
    except InvalidParameterError as exc:
        results["weights/synced"] = str(exc)
    dist.destroy_process_group()
    json.dump(results, open(out, "w"))
    """
)


@pytest.fixture(scope="module")
def steps(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """What each rank of STEPS wrote (one run for the tests below)."""
    tmp_path = tmp_path_factory.mktemp("steps")
    script = tmp_path / "steps.py"
    script.write_text(STEPS)
    return run_two_ranks(script, tmp_path)


def test_ranks_in_step_sync_a_decayed_accumulator(steps: list[dict]) -> None:
    # sync merged into a state at update 0 (refused: 'Got 0 and 30 updates') and
    # restarted the clock; the ranks' value is that of one accumulator fed both ranks'
    # batch t at its update t
    results = [{k: v for k, v in r.items() if k.startswith("decay/")} for r in steps]
    assert results[0] == results[1]
    after = [r["behind/after"] for r in steps]
    assert steps[0]["behind"] == steps[1]["behind"]
    one = receval.metric("roc_auc", decay=0.5)
    rngs = [np.random.default_rng(rank) for rank in (0, 1)]
    for t in range(70):
        batches = [(g.integers(0, 2, 4), g.random(4).round(2)) for g in rngs]
        one.update(*(np.concatenate(column) for column in zip(*batches, strict=True)))
        if t == 29:
            assert results[0]["decay/30"] == [repr(one.compute()), 60]
    assert results[0]["decay/70"] == [repr(one.compute()), 140]
    assert results[0]["decay/sd"] == repr(one.compute())
    assert steps[0]["behind"] == (
        "Accumulator.sync: decayed accumulators sync only at the same update (the weights "
        "depend on it). Got updates [1, 2] on ranks 0 to 1; sync ranks that update in step "
        "(one update each per step)."
    )
    assert after == [[1.0, 1], [0.5, 2]]  # refused on both ranks, each state as it was


def test_ranks_of_two_labellings_or_id_types_refuse_the_sync(steps: list[dict]) -> None:
    # before: the AUC of -1 and 0 both taken as negatives, and the groups 1 and "1"
    # joined, silently, on every rank; then refused naming the metric's function
    # ("roc_auc_score: ... Got 0 in the accumulator merged") rather than the sync and rank
    ids = "groups must hold ids of one type in every update and merge: numbers (ints or floats) "
    for rank in (0, 1):
        assert steps[rank]["labels"] == (
            "Accumulator.sync of 'roc_auc': y_true must hold one negative label beside 1 in "
            "every update and merge (the labels of one binary column). Got 0 on rank 1, -1 "
            "before; binarise the labels alike in every update, e.g. y_true = (y_true == 1)."
        )
        assert steps[rank]["ids"].startswith(
            f"Accumulator.sync of 'grouped_auprc': {ids}or strings. Got strings on rank 1, "
            "integers before;"
        )
        assert steps[rank]["gauc ids"].startswith(
            f"Accumulator.sync of 'gauc': {ids}or strings. Got integers on rank 1, strings before;"
        )
        assert steps[rank]["labels/after"] == [1.0, 1]
        assert steps[rank]["ids/after"] == steps[rank]["gauc ids/after"] == [1.0, 1]
        assert "Got -1 in this update, 0 before" in steps[rank]["labels/synced"]


def test_ranks_of_weighted_and_unweighted_updates_refuse_the_sync(steps: list[dict]) -> None:
    # before: rank 1's rows taken as rows of weight 1, silently, on every rank
    own = [receval.log_loss([1, 0], [0.8, 0.3], sample_weight=[2.0, 1.0]),
           receval.log_loss([1, 0], [0.8, 0.3])]  # fmt: skip
    for rank in (0, 1):
        assert steps[rank]["weights"] == (
            "Accumulator.sync of 'log_loss': sample_weight must be given to every update and "
            "merged accumulator or to none. Got no sample_weight on rank 1, sample_weight "
            "before; pass sample_weight=np.ones(len(y_true)) with the batches without "
            "weights, or reset() to start over."
        )
        assert steps[rank]["weights/after"] == [own[rank], 1]  # each state as it was
        synced = steps[rank]["weights/synced"]
        assert "Got no sample_weight in this update, sample_weight before" in synced


def test_a_state_that_load_state_dict_refuses_refuses_the_sync(steps: list[dict]) -> None:
    # before: rank 1's 3 rows of weight 2 merged silently (a mean loss of the wrong rows)
    for rank in (0, 1):
        assert steps[rank]["tampered"].startswith(
            "Accumulator: a loaded state is invalid: rank 1's state.n_rows must be the weight "
            "of the rows (2.0), as the updates gave no sample_weight. Got 3;"
        )


def test_a_background_update_that_failed_on_one_rank_raises_on_every_rank(
    steps: list[dict],
) -> None:
    # rank 1 raised before the gather and rank 0 waited in it until the timeout
    results = steps
    error = (
        "Accumulator.update of 'log_loss' on the background thread: batch 2 failed and did "
        "not count. The error: y_pred must contain probabilities in [0, 1]"
    )
    fix = (
        "failed, so no rank synced; sync again on every rank (the failed batch is not "
        "counted). The error: "
    )
    assert results[0]["failed"].startswith(f"Accumulator.sync: an update on rank 1 {fix}{error}")
    assert results[1]["failed"].startswith(f"Accumulator.sync: an update on this rank {fix}{error}")
    assert (
        results[0]["failed/after"]
        == results[1]["failed/after"]
        == [receval.log_loss([1, 0, 1, 0], [0.9, 0.2, 0.9, 0.2]), 2]
    )


def test_sync_without_a_process_group_says_so() -> None:
    assert not dist.is_initialized()
    acc = receval.metric("roc_auc").update([0, 1], [0.2, 0.8])
    with pytest.raises(receval.InvalidParameterError, match=r"no torch\.distributed process group"):
        acc.sync()
    assert acc.compute() == 1.0


CROSS = textwrap.dedent(
    """
    import json, sys
    import torch.distributed as dist
    import receval
    from receval.exceptions import InputValidationError

    rank, port, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=2)
    # rank 0 holds the qrels of users 0-3 and the lists of users 4-7, rank 1 the others
    mine = range(4) if rank == 0 else range(4, 8)
    acc = receval.metric("ndcg@10")
    acc.update({f"u{u}": {"a": 1} for u in mine},
               {f"u{u}": {"a": 0.9, "b": 0.5} for u in range(8) if u not in mine})
    results = {}
    try:
        results["alone"] = acc.compute()
    except InputValidationError as exc:
        results["alone"] = str(exc)
    results["synced"] = acc.sync().compute()
    dist.destroy_process_group()
    json.dump(results, open(out, "w"))
    """
)


def test_ranks_that_each_match_none_are_checked_once_synced(tmp_path: Path) -> None:
    # compute checks that the run's ids match the qrels' over the synced state
    script = tmp_path / "cross.py"
    script.write_text(CROSS)
    results = run_two_ranks(script, tmp_path)
    for r in results:
        alone = "receval.metric('ndcg@10'): none of the 4 qrels users is in the run"
        assert r["alone"].startswith(alone)
        assert r["synced"] == 1.0
