"""What the grouped metrics count as left out (``n_groups``, ``n_groups_skipped``,
``n_rows_skipped``) on each path: an accumulator's updates, merges and pickles, a scan,
and ``receval ctr``'s JSON and note."""

from __future__ import annotations

import itertools
import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import receval
from receval.registry import resolve
from receval.registry.pointwise import pointwise_adapter
from tests.cli._helpers import invoke, make_runner


def counts(acc: Any) -> dict[str, Any]:
    """An accumulator's counts of what it left out, without the rule."""
    return {k: x for k, x in acc.skipped().items() if k != "why"}


def accumulated(name: str, rows: tuple[np.ndarray, ...], cuts: list[int]) -> list[dict[str, Any]]:
    """The counts of ``name`` over ``rows`` (y, s, groups, weights): in one call, from
    the accumulators of the pieces at ``cuts`` pickled and merged, and from one
    accumulator updated piece by piece and pickled after each."""
    y, s, g, w = rows
    _, once, _ = pointwise_adapter(resolve(name)).counted(y, s, groups=g, sample_weight=w)
    bounds = [0, *sorted(min(c, len(y)) for c in cuts), len(y)]
    parts = [receval.metric(name).update(y[a:b], s[a:b], groups=g[a:b], sample_weight=w[a:b])
             for a, b in itertools.pairwise(bounds)]  # fmt: skip
    merged = pickle.loads(pickle.dumps(parts[0]))
    for part in parts[1:]:
        merged.merge(pickle.loads(pickle.dumps(part)))
    one = receval.metric(name)
    for a, b in itertools.pairwise(bounds):
        one = pickle.loads(pickle.dumps(one.update(y[a:b], s[a:b], groups=g[a:b],
                                                   sample_weight=w[a:b])))  # fmt: skip
    return [once, counts(merged), counts(one)]


def scanned(tmp_path: Path, name: str, rows: tuple[np.ndarray, ...]) -> dict[str, Any]:
    """The counts of ``name`` over ``rows`` written to a Parquet file, scanned two rows a
    batch."""
    path = tmp_path / "log.parquet"
    pq.write_table(pa.table(dict(zip("ysgw", rows, strict=True))), path)
    scan = receval.scan(path, batch_rows=2)
    _, found, _ = pointwise_adapter(resolve(name)).counted(
        scan["y"], scan["s"], groups=scan["g"], sample_weight=scan["w"]
    )
    return found


def ctr(tmp_path: Path, names: list[str], rows: tuple[np.ndarray, ...]) -> tuple[Any, str]:
    """``receval ctr -f json`` of ``names`` over ``rows`` in a CSV file: its record and
    its standard error."""
    path = tmp_path / "log.csv"
    lines = zip(*(a.tolist() for a in rows), strict=True)
    path.write_text("click,score,user,w\n" + "".join(f"{a},{b},{c},{d}\n" for a, b, c, d in lines))
    args = [x for name in names for x in ("-m", name)]
    result = invoke(make_runner(), "ctr", path, "--label", "click", "--score", "score",
                    "--group", "user", "--weight", "w", *args, "-f", "json")  # fmt: skip
    (record,) = json.loads(result.stdout)
    return record, result.stderr
