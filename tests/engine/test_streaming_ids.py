"""Group ids of every integer width in the streaming and scanned GAUC: uint64 ids
from 2**63 up (beyond int64) are held without an int64 cast."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import receval as rv
from receval.exceptions import InputValidationError

GROUPS = np.array([2**63, 2**63, 2**64 - 1, 2**64 - 1, 5, 5, 2**63 + 7, 2**63 + 7], np.uint64)
Y = np.array([1, 0, 1, 0, 0, 1, 1, 0])
S = np.array([0.9, 0.1, 0.2, 0.8, 0.3, 0.7, 0.6, 0.4])


def test_streaming_gauc_takes_uint64_ids_beyond_int64():
    expected = rv.gauc_score(Y, S, groups=GROUPS)
    assert expected == 0.75
    acc = rv.metric("gauc")
    for i in range(0, 8, 2):
        acc.update(Y[i : i + 2], S[i : i + 2], groups=GROUPS[i : i + 2])
    assert acc.compute() == expected

    def parts():
        a, b, c = rv.metric("gauc"), rv.metric("gauc"), rv.metric("gauc")
        a.update(Y[:4], S[:4], groups=GROUPS[:4])
        b.update(Y[4:], S[4:], groups=GROUPS[4:])
        c.update([1, 0], [0.6, 0.4], groups=[7, 7])  # Python ints, held as int64
        return a, b, c

    a, b, _ = parts()
    assert a.merge(b).compute() == expected
    groups = np.concatenate([GROUPS, np.array([7, 7], np.uint64)])
    want = rv.gauc_score(np.r_[Y, 1, 0], np.r_[S, 0.6, 0.4], groups=groups)
    a, b, c = parts()
    assert a.merge(b).merge(c).compute() == want
    a, b, c = parts()
    assert c.merge(a.merge(b)).compute() == want


def test_streaming_gauc_of_whole_groups_still_refuses_a_repeated_uint64_id():
    acc = rv.metric("gauc", whole_groups=True)
    acc.update(Y[:2], S[:2], groups=GROUPS[:2])
    with pytest.raises(InputValidationError, match=r"\[9223372036854775808\]"):
        acc.update(Y[:2], S[:2], groups=GROUPS[:2])
    a, b = rv.metric("gauc", whole_groups=True), rv.metric("gauc", whole_groups=True)
    a.update(Y[:2], S[:2], groups=GROUPS[:2])
    b.update(Y[:2], S[:2], groups=GROUPS[:2])
    with pytest.raises(InputValidationError, match="given twice"):
        a.merge(b)


def test_scanned_gauc_takes_uint64_ids_beyond_int64(tmp_path):
    path = tmp_path / "g.parquet"
    pq.write_table(pa.table({"label": Y, "score": S, "user": GROUPS}), path, row_group_size=2)
    scan = rv.scan(path, batch_rows=2, progress=False)
    assert rv.gauc_score(scan["label"], scan["score"], groups=scan["user"]) == 0.75
