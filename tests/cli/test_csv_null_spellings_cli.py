"""The commands read a CSV file's ids and segment labels ``NA``, ``null``, ``NaN``,
``N/A``, ``None`` as the text they are: each command's output equals that of the same
files with those ids renamed; only an empty field is a missing id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ._helpers import invoke, make_runner

SPELLINGS = ["NA", "N/A", "#N/A", "null", "NULL", "NaN", "nan", "-NaN", "None"]
RENAMED = {s: f"id{k}" for k, s in enumerate(SPELLINGS)}
ITEMS = ["NA", "null", "NaN", "x"]


def _files(folder: Path, rename: bool) -> dict[str, Path]:
    """Qrels, a run, a log of clicks and a file of segments, their ids spelled (or
    renamed)."""
    name = (lambda s: RENAMED.get(s, s)) if rename else (lambda s: s)
    users = [name(u) for u in SPELLINGS]
    items = [name(i) for i in ITEMS]
    texts = {
        "qrels": "user,item,grade\n" + "".join(f"{u},{items[k % 4]},1\n"
                                               for k, u in enumerate(users)),
        "run": "user,item,score\n" + "".join(f"{u},{i},{(k * 7 + j) % 5}\n"
                                             for k, u in enumerate(users)
                                             for j, i in enumerate(items)),
        "log": "user,click,s,seg\n" + "".join(f"{u},{(k + j) % 2},{(k * 3 + j) % 7},"
                                              f"{name(SPELLINGS[k % 3])}\n"
                                              for k, u in enumerate(users) for j in range(3)),
        "seg": "user,segment\n" + "".join(f"{u},{name(SPELLINGS[k % 3])}\n"
                                          for k, u in enumerate(users)),
    }  # fmt: skip
    folder.mkdir()
    for key, text in texts.items():
        (folder / f"{key}.csv").write_text(text)
    return {key: folder / f"{key}.csv" for key in texts}


def _back(records: object) -> object:
    """The records of the renamed files, each renamed id spelled as in the other."""
    names = {v: k for k, v in RENAMED.items()}
    if isinstance(records, dict):
        return {k: _back(v) for k, v in records.items()}
    if isinstance(records, list):
        return [_back(v) for v in records]
    return names.get(records, records) if isinstance(records, str) else records


def _outputs(tmp_path: Path, command: list[str]) -> tuple[object, object]:
    outputs = []
    for rename in (False, True):
        files = _files(tmp_path / str(rename), rename)
        args = [files[a[1:]] if a.startswith("@") else a for a in command]
        outputs.append(json.loads(invoke(make_runner(), *args, "-q", "-f", "json").stdout))
    return outputs[0], _back(outputs[1])


def _sorted(records: object) -> object:
    assert isinstance(records, list)
    return sorted(records, key=lambda r: json.dumps(r, sort_keys=True))


def test_rank_by_reads_the_spellings_as_ids_and_labels(tmp_path):
    files = ["--qrels", "@qrels", "--run", "@run", "--by", "@seg"]
    spelled, renamed = _outputs(tmp_path, ["rank", *files, "-m", "mrr", "-m", "ndcg@2"])
    assert _sorted(spelled) == _sorted(renamed)
    segments = {r["segment"]: r["n_users"] for r in spelled}  # type: ignore[union-attr]
    assert segments == {"NA": 3, "N/A": 3, "#N/A": 3, "(all)": 9}


def test_ctr_reads_the_spellings_as_groups_and_labels(tmp_path):
    columns = ["--label", "click", "--score", "s", "--group", "user", "--by", "seg"]
    spelled, renamed = _outputs(tmp_path, ["ctr", "@log", *columns])
    assert _sorted(spelled) == _sorted(renamed)
    assert {r["segment"] for r in spelled} >= {"NA", "N/A", "#N/A"}  # type: ignore[union-attr]


def test_split_reads_the_spellings_as_users_and_items(tmp_path):
    written = []
    for rename in (False, True):
        files = _files(tmp_path / str(rename), rename)
        test = tmp_path / f"test-{rename}.csv"
        args = ["split", files["run"], "--time", "score", "-o", tmp_path / f"train-{rename}.csv",
                "-O", test]  # fmt: skip
        summary = json.loads(invoke(make_runner(), *args, "-f", "json").stdout)
        del summary["train"], summary["test"]  # the files' paths
        written.append((summary, test.read_text()))
    (summary, test), (twin_summary, twin_test) = written
    assert summary == twin_summary and summary["n_test_users"] == len(SPELLINGS)
    for spelling, renamed in RENAMED.items():
        twin_test = twin_test.replace(f'"{renamed}"', f'"{spelling}"')
    assert test == twin_test and '"NA"' in test


@pytest.mark.parametrize("empty", ["", '""'])
def test_an_empty_user_is_still_refused_at_its_line(tmp_path, empty):
    files = _files(tmp_path / "f", False)
    files["run"].write_text("user,item,score\nNA,x,1\n" + empty + ",x,2\n")
    result = invoke(make_runner(), "rank", "--qrels", files["qrels"], "--run", files["run"],
                    "-m", "mrr", code=2)  # fmt: skip
    assert result.stderr.startswith(f"error: {files['run']}:3: ")
    assert "has no id in this row (an empty field)" in result.stderr
