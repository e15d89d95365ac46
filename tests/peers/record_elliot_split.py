"""Record Elliot's train/test splits for receval's tests.

Elliot pins old libraries (numpy 1.18, pandas 1.1.5: its temporal hold-out calls
``groupby(...).rank(axis=1)``, which later pandas refuse) and is not on the
package index, so its splitter runs unchanged from a source checkout, in an
environment with its pinned numpy and pandas: this script copies
``elliot/splitter/base_splitter.py`` and ``elliot/utils/folder.py`` (all that
the splitter imports) into a temporary package whose ``__init__`` files are
empty and calls ``Splitter(data, namespace, random_seed=42).process_splitting()``
as Elliot's data loader does. The script itself runs in receval's environment
and starts the Elliot one for each log (``--worker``). From the repository root::

    git clone https://github.com/sisinflab/elliot /tmp/elliot
    git -C /tmp/elliot checkout fc27efedaddf4a57294db14b4bcaa5553a0015d2
    python3.8 -m venv /tmp/elliot-venv
    /tmp/elliot-venv/bin/pip install numpy==1.18.0 pandas==1.1.5
    python tests/peers/record_elliot_split.py /tmp/elliot /tmp/elliot-venv/bin/python

A tree without git (``git archive`` of that commit) takes the commit as a third
argument. pytest collects no test from this file.

What is recorded
----------------
The logs are those of ``record_split_peers.py`` (read from
``data/recorded_split_peers.json``, whose ``cases`` gain an ``elliot`` section):
for each of Elliot's test splittings in ``SPLITS``, the 0-based rows of the log
in the test part (a list per fold for the cross-validation). ``ml100k``: the
same splittings of MovieLens-100k (from a RecBole wheel installed beside, as
``record_split_peers.py`` finds it) as counts, with the rows on which receval's
equal split agrees.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "data" / "recorded_split_peers.json"
SRC = Path(__file__).resolve().parents[2] / "src"
FILES = ["elliot/splitter/base_splitter.py", "elliot/utils/folder.py"]
PACKAGES = ["elliot", "elliot/splitter", "elliot/utils"]

#: Elliot's ``test_splitting`` namespaces, by the name the record keeps
#: (``timestamp`` of ``fixed_timestamp`` is the log's: 10 for the cases)
SPLITS = {
    "fixed_timestamp": {"strategy": "fixed_timestamp"},
    "temporal_hold_out test_ratio=0.2": {"strategy": "temporal_hold_out", "test_ratio": 0.2},
    "temporal_hold_out test_ratio=0.3": {"strategy": "temporal_hold_out", "test_ratio": 0.3},
    "temporal_hold_out leave_n_out=1": {"strategy": "temporal_hold_out", "leave_n_out": 1},
    "temporal_hold_out leave_n_out=2": {"strategy": "temporal_hold_out", "leave_n_out": 2},
    "random_subsampling test_ratio=0.2": {"strategy": "random_subsampling", "test_ratio": 0.2},
    "random_subsampling leave_n_out=1": {"strategy": "random_subsampling", "leave_n_out": 1},
    "random_cross_validation folds=3": {"strategy": "random_cross_validation", "folds": 3},
}
#: MovieLens-100k's fixed timestamp (its times run from 874724710 to 893286638)
ML100K_TIMESTAMP = 890000000


def worker(tree: str, path_in: str, path_out: str) -> None:
    """Run Elliot's splitter (in Elliot's environment) on the log of ``path_in``."""
    import contextlib
    import io
    from types import SimpleNamespace

    import numpy as np
    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        for package in PACKAGES:
            (Path(tmp) / package).mkdir(parents=True, exist_ok=True)
            (Path(tmp) / package / "__init__.py").write_text("")
        for name in FILES:
            shutil.copy(Path(tree) / name, Path(tmp) / name)
        sys.path.insert(0, tmp)
        from elliot.splitter.base_splitter import Splitter

        task = json.loads(Path(path_in).read_text())
        log = task["log"]
        out = {}
        for name, spec in SPLITS.items():
            spec = dict(spec)
            if spec["strategy"] == "fixed_timestamp":
                spec["timestamp"] = str(task["timestamp"])
            data = pd.DataFrame(
                {
                    "userId": log["user"],
                    "itemId": log["item"],
                    "timestamp": log["timestamp"],
                    "row": np.arange(len(log["user"])),
                }
            )
            namespace = SimpleNamespace(test_splitting=SimpleNamespace(**spec))
            with contextlib.redirect_stdout(io.StringIO()):  # it prints its progress
                folds = Splitter(data, namespace, random_seed=42).process_splitting()
            tests = [sorted(int(r) for r in test["row"]) for _, test in folds]
            out[name] = tests if len(tests) > 1 else tests[0]
    versions = {"numpy": np.__version__, "pandas": pd.__version__}
    versions["python"] = sys.version.split()[0]
    Path(path_out).write_text(json.dumps({"splits": out, "versions": versions}))


def run_elliot(python: str, tree: str, log: dict, timestamp: int) -> dict:
    """Elliot's splits of ``log``, from its own interpreter ``python``."""
    with tempfile.TemporaryDirectory() as tmp:
        path_in, path_out = Path(tmp) / "in.json", Path(tmp) / "out.json"
        path_in.write_text(json.dumps({"log": log, "timestamp": timestamp}))
        command = [python, __file__, "--worker", tree, str(path_in), str(path_out)]
        subprocess.run(command, check=True)
        result: dict = json.loads(path_out.read_text())
    return result


def receval_splits(log: dict, timestamp: int) -> dict:
    """receval's splits equal to Elliot's, as sets of test rows (by Elliot's name)."""
    import pandas as pd

    sys.path.insert(0, str(SRC))
    from receval import split

    df = pd.DataFrame(log)

    def rows(result) -> set[int]:
        return set(result.test.index.tolist())

    return {
        "fixed_timestamp": rows(split.temporal(df, cutoff=timestamp)),
        "temporal_hold_out test_ratio=0.2": rows(
            split.ratio(df, train_fraction=1 - 0.2, rounding="floor")
        ),
        "temporal_hold_out test_ratio=0.3": rows(
            split.ratio(df, train_fraction=1 - 0.3, rounding="floor")
        ),
        # ties: Elliot ranks the times descending, the first row of a tie first
        "temporal_hold_out leave_n_out=1": rows(split.leave_last_out(df[::-1], short="test")),
        "temporal_hold_out leave_n_out=2": rows(split.leave_last_out(df[::-1], n=2, short="test")),
        "random_subsampling test_ratio=0.2": rows(
            split.random_holdout(
                df, train_fraction=1 - 0.2, seed=42, stream="shuffle", rounding="floor"
            )
        ),
        "random_subsampling leave_n_out=1": rows(
            split.random_holdout(df, n=1, seed=42, stream="shuffle")
        ),
    }


def ml100k_counts(python: str, tree: str) -> dict | None:
    """Counts of Elliot's splits of MovieLens-100k and receval's agreement."""
    from record_split_peers import ml100k_log

    log = ml100k_log()
    if log is None:
        return None
    theirs = run_elliot(python, tree, log, ML100K_TIMESTAMP)["splits"]
    ours = receval_splits(log, ML100K_TIMESTAMP)
    out: dict = {}
    for name, rows in theirs.items():
        if name not in ours:
            out[name] = {"test_rows": [len(fold) for fold in rows]}
            continue
        peer, mine = set(rows), ours[name]
        out[name] = {
            "test_rows": len(peer),
            "rows_in_both": len(mine & peer),
            "rows_only_receval": len(mine - peer),
            "rows_only_peer": len(peer - mine),
        }
    return out


def main(tree: str, python: str, commit: str | None = None) -> None:
    from record_split_peers import compact

    if commit is None:  # a git checkout names its commit; an exported tree is given one
        commit = subprocess.run(
            ["git", "-C", tree, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    data = json.loads(OUT.read_text())
    versions: dict = {}
    for case in data["cases"].values():
        recorded = run_elliot(python, tree, case["log"], 10)
        case["elliot"], versions = recorded["splits"], recorded["versions"]
    data["versions"]["elliot"] = {"elliot": commit, **versions}
    counts = ml100k_counts(python, tree)
    if counts is not None:
        data.setdefault("ml100k", {})["elliot"] = counts
    OUT.write_text(compact(json.dumps(data, indent=1, sort_keys=True)) + "\n")
    print(f"recorded Elliot {commit[:8]} into {OUT}")


if __name__ == "__main__":
    if sys.argv[1] == "--worker":
        worker(*sys.argv[2:5])
    else:
        sys.path.insert(0, str(HERE))
        main(*sys.argv[1:4])
