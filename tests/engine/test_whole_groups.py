"""The batches of whole groups a scan gives a grouped metric (``whole_groups``): every
row once, in the file's order, each group in one batch, whatever the batch size and
the groups' sizes (a group longer than several batches included), with each
batch's origin naming its rows of the file."""

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.data.scan import scan
from receval.engine.sources import whole_groups


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 25), min_size=1, max_size=12),
    st.integers(1, 9),
    st.sampled_from(["parquet", "csv"]),
)
def test_batches_hold_whole_groups_and_every_row_once(tmp_path_factory, sizes, rows, kind):
    groups = np.repeat(np.arange(len(sizes)) * 7 + 3, sizes)
    order = np.arange(len(groups), dtype=np.float64)
    table = pa.table({"g": groups, "x": order})
    path = tmp_path_factory.mktemp("groups") / f"rows.{kind}"
    if kind == "parquet":
        pq.write_table(table, path, row_group_size=5)
    else:
        pcsv.write_csv(table, path)
    s = scan(str(path), batch_rows=rows)
    got = list(
        whole_groups(s, ["g", "x"], "g", ids=["g"], floats=["x"], func="f", what="group",
                     description="f")
    )  # fmt: skip
    assert all(len(b["x"]) for b in got)  # no empty batch
    assert np.concatenate([np.asarray(b["x"]) for b in got]).tolist() == order.tolist()
    seen: set[str] = set()
    for b in got:
        ids = {str(g) for g in np.asarray(b["g"]).tolist()}
        assert not ids & seen  # a group in one batch only
        seen |= ids
    assert seen == {str(g) for g in set(groups.tolist())}
    at = 0  # each batch's origin names its rows of the file, in order
    for b in got:
        assert len(b.origin) == len(b["x"])
        for _, first, n in b.origin.pieces:
            assert first == at
            at += n
    assert at == len(groups)


def test_only_the_rows_of_a_carried_group_are_copied(tmp_path, monkeypatch):
    # a batch's last group is read out with the next batch's first rows that go on
    # with it; the rest of the next batch is not copied (it was joined to the group)
    from receval.engine import sources

    copied = []
    concat = sources.concat_columns

    def counting(parts, name):
        copied.append(sum(len(p) for p in parts))
        return concat(parts, name)

    monkeypatch.setattr(sources, "concat_columns", counting)
    groups = np.repeat(np.arange(100), 10)  # groups of 10 rows, batches of 64
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"g": groups, "x": np.arange(1000.0)}), path, row_group_size=64)
    got = list(
        whole_groups(scan(str(path), batch_rows=64), ["g", "x"], "g", ids=["g"], floats=["x"],
                     func="f", what="group", description="f")
    )  # fmt: skip
    assert np.concatenate([np.asarray(b["x"]) for b in got]).tolist() == list(range(1000))
    boundaries = 1000 // 64
    # each boundary: the group's last id against the next first id (2 rows), and the
    # group's 10 rows joined, once per column (2)
    assert sum(copied) <= boundaries * (2 + 2 * 10)


@pytest.mark.parametrize(
    ("groups", "again"),
    [
        (["1", "1", "2", "2", "1"], 5),  # integers' spellings: held as integers
        (["1", "1", "2", "x", "x", "1"], 6),  # then text: the integers held as text
        (["1", "2", "007", "7", "2"], 5),  # 007 and 7 are two ids
        (["x", "1", "2", "1"], 4),
    ],
)
@pytest.mark.parametrize("rows", [1, 2, 100])
def test_a_group_of_a_csv_file_again_is_named_as_its_text(tmp_path, groups, again, rows):
    from receval import InputValidationError

    path = tmp_path / "rows.csv"
    path.write_text("g,x\n" + "".join(f"{g},{i}\n" for i, g in enumerate(groups)))
    s = scan(str(path), batch_rows=rows)
    with pytest.raises(InputValidationError) as info:
        list(
            whole_groups(s, ["g", "x"], "g", ids=["g"], floats=["x"], func="f", what="group",
                         description="f")
        )  # fmt: skip
    bad = groups[again - 1]
    assert f"{path}:{again + 1}: f: " in str(info.value)
    assert f"Got group {bad!r} again" in str(info.value)
