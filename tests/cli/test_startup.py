"""What a ``receval`` process loads: only the command it runs, and no pydantic.

``receval rank`` on small TREC files is mostly interpreter start and imports, so
the command modules load on demand (:func:`receval.cli._app.main`) and option
values are coerced without pydantic (:mod:`receval.cli._params`). These tests
run the command in a fresh interpreter and read what it imported, check that
loading one command or all of them gives the same help, and check the quick
coercion against Typer's own on every option of every command.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest
import typer
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st

from receval.cli import app
from receval.cli._app import COMMANDS
from receval.cli._params import DECLINED, quick_value

TREC = Path(__file__).resolve().parents[1] / "peers" / "data" / "trec_eval"
RANK = [
    "rank", "-m", "ndcg@10", "-m", "map",
    "--qrels", str(TREC / "qrels.test"), "--run", str(TREC / "results.test"),
]  # fmt: skip

# packages ``receval rank`` on TREC files does not need (pydantic: Typer's coercion of
# option values, replaced by receval.cli._params; pyarrow: the TREC reader is native)
NOT_LOADED = {
    "pandas", "polars", "scipy", "matplotlib", "sklearn", "pyarrow", "pydantic",
    "pydantic_core", "markdown_it",
}  # fmt: skip
# modules ``receval rank`` with one run does not need (help and usage errors use
# typer.rich_utils and rich.markdown; --version reads importlib.metadata)
NOT_LOADED_MODULES = {
    "importlib.metadata", "concurrent.futures", "logging",
    "receval.data.scan", "receval.engine.sources", "receval.engine.run", "receval.trec.prefs",
    "receval.comparison.models", "receval.plot", "receval.spark", "receval.datasets",
    "receval.cli._compare", "receval.cli._ctr", "receval.cli._report", "receval.cli._retention",
    "receval.cli._metrics",
    # the HTML report's sections and figures: rank prints the records alone
    "receval.report.sections", "receval.report.html", "receval.report.figures",
    "receval.report.interactive",
    "rich.markdown", "typer.rich_utils",
}  # fmt: skip

_MAIN = (
    "import sys\n"
    "from receval.cli import main\n"
    "sys.argv = ['receval', *sys.argv[1:]]\n"
    "try:\n"
    "    main()\n"
    "finally:\n"
    "    sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)) + '\\n')\n"
)
# every command loaded first, then the same command line
_FULL = "import sys\nfrom receval.cli import app\napp(sys.argv[1:], prog_name='receval')\n"


def _run(code: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, COLUMNS="100", TERM="dumb")
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=cwd
    )


def test_rank_loads_neither_other_commands_nor_heavy_packages() -> None:
    done = _run(_MAIN, *RANK)
    assert done.returncode == 0, done.stderr
    assert "results.test" in done.stdout
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "receval.cli._rank_run" in modules and "receval.cli._rank_trec" in modules
    assert {m.split(".")[0] for m in modules} & NOT_LOADED == set()
    assert {m for m in modules if m.startswith(tuple(NOT_LOADED_MODULES))} == set()


def test_rank_loads_neither_typer_nor_rich() -> None:
    # the common options are read before Typer (receval.cli._rank_run.common_options), and
    # a table to a pipe is written without rich (receval.cli._output._plain_grid)
    done = _run(_MAIN, *RANK)
    assert done.returncode == 0, done.stderr
    assert "┃ run          ┃ ndcg@10 ┃    map ┃" in done.stdout
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert {m.split(".")[0] for m in modules} & {"typer", "rich", "click"} == set()
    cli = {"receval.cli._app", "receval.cli._root", "receval.cli._common", "receval.cli._params",
           "receval.cli._rank", "receval.cli._items", "receval.cli._retrieve"}  # fmt: skip
    assert modules & cli == set()
    # the CLI modules rank imports, counted
    assert {m for m in modules if m.startswith("receval.cli.")} == {
        "receval.cli._output", "receval.cli._rank_run", "receval.cli._rank_trec",
        "receval.cli._ranked", "receval.cli._stdin", "receval.cli._streams",
    }  # fmt: skip


def test_rank_on_trec_files_loads_no_numpy() -> None:
    # the core reads both files and computes every value (receval.cli._rank_trec); the
    # metrics' conventions and kernel specs are built without NumPy
    done = _run(_MAIN, *RANK, "-f", "json")
    assert done.returncode == 0, done.stderr
    assert '"run": "results.test"' in done.stdout
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert {"numpy", "receval.ranking.evaluation", "receval.data._ranked"} & modules == set()
    # what it loads of receval, counted (the registry's rows read their kernel codes from
    # receval.registry.kinds, which trec-eval reads without the rest of the registry;
    # receval.trec.trec_eval loads trec_eval's command line, receval.trec.options; the
    # JSON is written by receval.report.json_values)
    assert "receval.ranking.specs" in modules
    assert len({m for m in modules if m.startswith("receval")}) <= 33


def test_rank_with_another_option_runs_through_typer() -> None:
    done = _run(_MAIN, *RANK, "--permutations", "100")
    assert done.returncode == 0, done.stderr
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert {"typer", "receval.cli._rank", "receval.cli._rank_run"} <= modules


def test_rank_on_parquet_files_loads_no_pandas(tmp_path) -> None:
    # Arrow's to_numpy (and pyarrow's own Parquet reader) import pandas, 0.2 s
    import pyarrow as pa
    import pyarrow.parquet as pq

    qrels, run = tmp_path / "q.parquet", tmp_path / "r.parquet"
    pq.write_table(pa.table({"user": [1, 1, 2], "item": [5, 6, 5], "grade": [1, 0, 2]}), qrels)
    run_table = {"user": [1, 1, 2, 2], "item": [5, 7, 6, 5], "score": [0.5, 0.4, 0.9, 0.1]}
    pq.write_table(pa.table(run_table), run)
    done = _run(_MAIN, "rank", "-m", "map", "--qrels", str(qrels), "--run", str(run))
    assert done.returncode == 0, done.stderr
    assert "r.parquet" in done.stdout
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


@pytest.mark.parametrize("ids", [[1, 2, 7], ["a", "b", "x"]])
def test_rank_on_csv_files_loads_no_pandas(tmp_path, ids) -> None:
    # integer ids (cast by the core) and string ids (encoded block by block)
    u, v, w = ids
    qrels, run = tmp_path / "q.csv", tmp_path / "r.csv"
    qrels.write_text(f"user,item,grade\n{u},{w},1\n{u},{v},0\n{v},{w},2\n")
    run.write_text(f"user,item,score\n{u},{w},0.5\n{u},{u},0.4\n{v},{v},0.9\n{v},{w},0.1\n")
    done = _run(_MAIN, "rank", "-m", "map", "-f", "csv", "--qrels", str(qrels), "--run", str(run))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("r.csv,0.75,")
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


def test_rank_on_bzip2_trec_files_loads_no_pandas(tmp_path) -> None:
    # bzip2 text is read through Arrow in Python (the core reads plain and gzip text)
    import bz2

    paths = []
    for name in ("qrels.test", "results.test"):
        paths.append(tmp_path / f"{name}.bz2")
        paths[-1].write_bytes(bz2.compress((TREC / name).read_bytes()))
    done = _run(_MAIN, "rank", "-m", "map", "--qrels", str(paths[0]), "--run", str(paths[1]))
    assert done.returncode == 0, done.stderr
    assert "results.test.bz2" in done.stdout
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("users", [[3, 1, 3, 2], ["u3", "u1", "u3", "u2"]])
def test_ctr_on_files_loads_no_pandas(tmp_path, fmt, users) -> None:
    # the label, score and weight columns through their buffers (Arrow's to_numpy and
    # pq.read_table, through pyarrow.dataset, import pandas); the users' rows of a
    # segment taken in Arrow
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    table = pa.table({
        "user": users, "click": [1, 0, 0, 1], "score": [0.9, 0.2, 0.4, 0.3],
        "w": [1.0, 2.0, 1.0, 0.5], "seg": ["a", "a", "b", "b"],
    })  # fmt: skip
    path = tmp_path / f"log.{fmt}"
    (pq.write_table if fmt == "parquet" else pcsv.write_csv)(table, path)
    args = ["--label", "click", "--score", "score", "--group", "user", "--weight", "w"]
    done = _run(_MAIN, "ctr", str(path), *args, "--by", "seg", "-f", "csv", "-m", "auc")
    assert done.returncode == 0, done.stderr
    # weighted pairs: 4 of 4.5 in order
    lines = ["score,a,2,1.0,nan", "score,b,2,0.0,nan", "score,(all),4,0.8888888888888888,0"]
    assert done.stdout.splitlines()[1:] == lines
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_ctr_refuses_labels_of_words_and_loads_no_pandas(tmp_path, fmt) -> None:
    # --label holds 0/1 clicks: with words, a metric would pick the greater word as the
    # positive (the command has no way to name it), so "skip" beat "click"
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    table = pa.table({"click": ["yes", "no", "no", "yes"], "score": [0.9, 0.2, 0.4, 0.3]})
    path = tmp_path / f"log.{fmt}"
    (pq.write_table if fmt == "parquet" else pcsv.write_csv)(table, path)
    done = _run(_MAIN, "ctr", str(path), "--label", "click", "--score", "score", "-m", "auc",
                "-f", "csv")  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "--label click: the column holds string values such as 'yes', not numbers" in (
        done.stderr
    )
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


def test_rank_with_item_files_of_string_ids_loads_no_pandas(tmp_path) -> None:
    # the catalogue's, popularity's and features' item ids decoded by the core
    # (Arrow's conversion of strings imports pandas)
    files = {
        "q.csv": "user,item,grade\nu1,d1,1\nu2,d3,1\n",
        "r.csv": "user,item,score\nu1,d1,0.9\nu1,d2,0.5\nu2,d3,0.8\nu2,d1,0.1\n",
        "cat.csv": "item\nd1\nd2\nd3\nd4\n",
        "pop.csv": "item,count\nd1,5\nd2,1\nd3,2\nd4,1\n",
        "feat.csv": "item,f1,f2\nd1,0,1\nd2,1,0\nd3,1,1\nd4,0,0\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    at = {name: str(tmp_path / name) for name in files}
    done = _run(_MAIN, "rank", "--qrels", at["q.csv"], "--run", at["r.csv"], "-m", "coverage",
                "-m", "ils", "-m", "arp", "--catalog", at["cat.csv"], "--popularity",
                at["pop.csv"], "--features", at["feat.csv"], "-f", "json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (values,) = json.loads(done.stdout)
    # 3 of 4 items listed; cosines 0 (u1) and 1/sqrt(2) (u2); popularity (5+1)/2, (2+5)/2
    assert values["coverage"] == 0.75 and values["arp"] == 3.25
    assert values["ils"] == pytest.approx(0.5**0.5 / 2, rel=1e-15)
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


# pyarrow 14 (the lowest declared) writes no half floats to Parquet: no such file exists there
_PYARROW_MAJOR = int(importlib.metadata.version("pyarrow").split(".")[0])
_TRAIN_TIMES = "user,item,timestamp\nu1,i4,2024-01-01T00:01:40\nu1,i5,2024-01-01T00:01:50\n"
_TEST_TIMES = "user,item,timestamp\nu1,i1,2024-01-01T00:02:20\nu2,i2,2024-01-01T00:02:00\n"


@pytest.mark.parametrize(
    ("args", "files", "out"),
    [
        # columns to NumPy (Arrow's to_numpy imports pandas): IPS (0.25/0.5 + 0) / 2,
        # SNIPS 0.5 / (0.5 + 2)
        (["off-policy", "logged.csv", "-f", "csv"],
         {"logged.csv": "reward,pscore,target\n1,0.5,0.25\n0,0.25,0.5\n"}, "2,0.25,0.2"),
        # half floats through their buffer (Parquet holds them from pyarrow 15 on)
        pytest.param(
            ["ctr", "s.parquet", "--label", "y", "--score", "s", "-m", "auc", "-f", "csv"],
            {"s.parquet": "y,s\n1,0.5\n0,0.25\n1,0.75\n"}, "s,1.0,3",
            marks=pytest.mark.skipif(_PYARROW_MAJOR < 15, reason="no half floats in Parquet"),
        ),
        # datetimes through their buffers (days, and ns of a cut-off given as text)
        (["split", "log.csv", "-o", "tr.csv", "-O", "te.csv"],
         {"log.csv": "user,item,timestamp\nu1,i1,2024-02-01\nu1,i2,2024-02-02\n"}, ""),
        (["audit", "--train", "train.csv", "--test", "test.csv", "--cutoff",
          "2024-01-01T00:01:50", "-f", "json"],
         {"train.csv": _TRAIN_TIMES, "test.csv": _TEST_TIMES}, '"cutoff_leak"'),
        # categories read as NumPy through to_numpy
        (["rank", "--qrels", "q.csv", "--run", "r.csv", "-m", "miscalibration@10",
          "--item-categories", "cats.csv", "--train", "train.csv", "-f", "csv"],
         {"q.csv": "user,item,grade\nu1,i1,1\n", "r.csv": "user,item,score\nu1,i1,0.9\n",
          "cats.csv": "item,category\ni1,c1\ni2,c2\n", "train.csv": "user,item\nu1,i2\n"},
         "r.csv,"),
        # NumPy to Arrow over its buffers (pa.table of NumPy imports pandas), ids read
        # from text files
        (["retrieve", "--users", "u.npy", "--items", "i.npy", "--user-ids", "u.txt",
          "--item-ids", "i.txt", "--k", "1", "-o", "run.csv"],
         {"u.npy": [[1.0, 0.0]], "i.npy": [[0.0, 1.0], [2.0, 0.0]], "u.txt": "u1\n",
          "i.txt": "a\nb\n"}, ""),
    ],
)  # fmt: skip
def test_commands_on_files_load_no_pandas(tmp_path, args, files, out) -> None:
    import numpy as np
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    for name, content in files.items():
        path = tmp_path / name
        if name.endswith(".npy"):
            np.save(path, np.asarray(content, np.float32))
        elif name.endswith(".parquet"):  # a CSV's columns, the score as half floats
            table = pcsv.read_csv(pa_buffer(content))
            pq.write_table(table.set_column(1, "s", table.column("s").cast("float16")), path)
        else:
            path.write_text(content)
    done = _run(_MAIN, *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert out in done.stdout
    if args[0] == "split":  # the last day of the user in test
        assert (tmp_path / "te.csv").read_text().splitlines()[1:] == ['"u1","i2",2024-02-02']
    if args[0] == "retrieve":  # the item of the larger inner product, 2.0
        assert (tmp_path / "run.csv").read_text().splitlines()[1] == '"u1","b",2,1'
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


def pa_buffer(text: str) -> object:
    import pyarrow as pa

    return pa.BufferReader(text.encode())


@pytest.mark.parametrize("times", ["1700000000", "2023-11-14T10:00:00"])
def test_retention_on_a_csv_file_loads_no_pandas(tmp_path, times) -> None:
    # the times and their validity through their buffers (Arrow's to_numpy imports pandas)
    t0 = times.replace("1700000000", "1699956000")
    later = "1700042400" if times.isdigit() else "2023-11-15T10:00:00"
    log = tmp_path / "log.csv"
    log.write_text(f"user,ts\n1,{t0}\n2,{t0}\n1,{later}\n")
    done = _run(_MAIN, "retention", str(log), "--user", "user", "--time", "ts", "-f", "csv")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].startswith("2023-11-14,2,0.5,")  # one of two back
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


@pytest.mark.parametrize(
    ("method", "want"),
    [
        (["leave-last-out"], (4, 2)),
        (["temporal", "--cutoff", "3"], (2, 4)),
        (["ratio", "--test-fraction", "0.5"], (2, 4)),
        (["random", "--test-fraction", "0.5", "--seed", "0"], (2, 4)),
    ],
)
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_split_of_a_file_loads_no_pandas(tmp_path, method, want, fmt) -> None:
    # the rows of each part taken by Arrow positions (pa.array of a NumPy mask or of
    # positions imports pandas); a Parquet file opened by its own reader
    # (pyarrow.dataset imports pandas)
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    log = tmp_path / f"log.{fmt}"
    text = "user,item,timestamp\n1,10,1\n1,11,2\n1,12,4\n2,10,3\n2,13,5\n2,14,6\n"
    (tmp_path / "log.csv").write_text(text)
    if fmt == "parquet":
        pq.write_table(pcsv.read_csv(tmp_path / "log.csv"), log)
    train, test = tmp_path / f"train.{fmt}", tmp_path / f"test.{fmt}"
    args = ["--method", *method, "-o", str(train), "-O", str(test)]
    done = _run(_MAIN, "split", str(log), *args)
    assert done.returncode == 0, done.stderr
    rows = [pq.read_metadata(p).num_rows if fmt == "parquet" else
            len(p.read_text().splitlines()) - 1 for p in (train, test)]  # fmt: skip
    assert tuple(rows) == want
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


def test_the_check_sees_a_loaded_package() -> None:
    # the test above can fail: a command line that loads everything shows in the list
    # (a command named after the first argument loads every command)
    done = _run(_MAIN, "--version", "rank")
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert done.returncode == 0
    assert {"receval.cli._compare", "receval.cli._report", "receval.comparison.choices"} <= modules


def test_trec_eval_loads_neither_typer_nor_rich() -> None:
    # receval.cli.main runs trec-eval before it loads Typer (receval.cli._direct)
    done = _run(_MAIN, "trec-eval", str(TREC / "qrels.test"), str(TREC / "results.test"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (TREC / "out.test").read_text()
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "receval.cli._direct" in modules
    assert {m.split(".")[0] for m in modules} & {"typer", "rich", "click", *NOT_LOADED} == set()
    cli = {"receval.cli._app", "receval.cli._common", "receval.cli._output", "receval.cli._params"}
    assert modules & cli == set()
    # nor the scans, the thread pool (with logging) or the preference measures (-R prefs)
    assert {m for m in modules if m.startswith(tuple(NOT_LOADED_MODULES))} == set()


def test_trec_eval_loads_neither_numpy_nor_the_registry() -> None:
    # the compiled core reads the files and computes every value in one call
    done = _run(_MAIN, "trec-eval", str(TREC / "qrels.test"), str(TREC / "results.test"))
    assert done.returncode == 0, done.stderr
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert {"numpy", "receval.registry.grammar", "receval.ranking"} & modules == set()
    assert {m for m in modules if m.startswith("receval.registry")} == {
        "receval.registry", "receval.registry.kinds", "receval.registry.trec_eval",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("options", "qrels", "run", "expected"),
    [
        (["-m", "all_prefs", "-R", "prefs"], "prefs.test", "prefs.results.test", "out.test.prefs"),
        (["-m", "all_prefs", "-R", "qrels_prefs"], "qrels.test", "results.test",
         "out.test.qrels_prefs"),
        (["-m", "qrels_jg", "-R", "qrels_jg"], "qrels.123.gz", "results.test",
         "out.test.qrels_jg"),
    ],
)  # fmt: skip
def test_trec_eval_of_preferences_and_judgment_groups_loads_no_pandas(
    options: list[str], qrels: str, run: str, expected: str
) -> None:
    # these read their files through Arrow in Python: Arrow's to_numpy and pa.array of
    # NumPy import pandas (0.2 s of a run of a few tenths); receval reads Arrow's
    # buffers instead (receval.data._arrow)
    done = _run(_MAIN, "trec-eval", "-q", *options, str(TREC / qrels), str(TREC / run))
    assert done.returncode == 0, done.stderr
    assert done.stdout == (TREC / expected).read_text()
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "pyarrow" in modules and "pandas" not in modules


# what the help of every command needs: Typer, rich and the command modules with their
# option tables; not NumPy, the statistics of compare, the evaluation or the data readers
NOT_LOADED_BY_HELP = {
    "numpy", "receval.comparison.models", "receval.comparison.significance",
    "receval.ranking", "receval.engine", "receval.data", "receval.trec", "receval._validation",
    # the registry's grammar and table: the help names only the families
    "receval.registry.grammar", "receval.registry.table", "receval.registry.peers",
    *NOT_LOADED,
}  # fmt: skip


@pytest.mark.parametrize("args", [["--help"], ["compare", "--help"], ["rank", "--help"]])
def test_help_loads_no_numpy(args) -> None:
    done = _run(_MAIN, *args)
    assert done.returncode == 0, done.stderr
    assert "Usage: receval" in done.stdout
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert "typer" in modules
    assert {m for m in modules if m.startswith(tuple(NOT_LOADED_BY_HELP))} == set()


# the commands' modules, and the options and output they share
_COMMAND_MODULES = {f"receval.cli.{entry.module}" for entry in COMMANDS.values()}
_COMMAND_MODULES |= {"receval.cli._common", "receval.cli._output", "receval.report"}


@pytest.mark.parametrize("args", [["--help"], [], ["--version"], ["rnk"]])
def test_the_list_of_commands_loads_no_command(args) -> None:
    # the names and summaries come from the table COMMANDS, not from the commands' modules:
    # the group alone (receval.cli._root) runs
    done = _run(_MAIN, *args)
    assert "receval" in done.stdout + done.stderr
    modules = set(done.stderr.rpartition("MODULES ")[2].split())
    assert {"receval.cli._commands", "receval.cli._root"} <= modules
    assert modules & _COMMAND_MODULES == set()


def test_each_command_help_starts_with_its_summary() -> None:
    # the summary is written once, in COMMANDS: the listing and the command's page read it
    group = typer.main.get_command(app)
    for name, entry in COMMANDS.items():
        if name != "trec-eval":  # its help is trec_eval's (-h), not Typer's
            assert group.commands[name].help.startswith(entry.summary + "\n\n"), name
    done = _run(_MAIN, "rank", "--help")
    assert " ".join(done.stdout.split()).startswith(
        f"Usage: receval rank [OPTIONS] {COMMANDS['rank'].summary}"
    )


def test_output_loads_json_and_html_only_for_their_formats() -> None:
    # the help and the table format of every command load receval.cli._output: JSON
    # and the escaping of Markdown cells load with the format that writes them
    code = (
        "import sys\n"
        "from receval.cli import _output\n"
        "before = {'json', 'html'} & set(sys.modules)\n"
        "_output.render(_output.ResultTable(['a'], [['<b>']]), _output.OutputFormat.markdown)\n"
        "print(sorted(before), sorted({'json', 'html'} & set(sys.modules)))\n"
    )
    done = _run(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[] ['html']"


# the callbacks whose options Typer builds (from their signatures), printed at exit
_BUILT = (
    "import sys\n"
    "import typer.main\n"
    "real, built = typer.main.get_params_from_function, []\n"
    "def counted(func):\n"
    "    params = real(func)\n"
    "    if params:\n"
    "        built.append(func.__name__)\n"
    "    return params\n"
    "typer.main.get_params_from_function = counted\n"
    + _MAIN.replace("MODULES ' + ' '.join(sorted(sys.modules))", "BUILT ' + ' '.join(built)")
)


@pytest.mark.parametrize("args", [["--help"], ["rnk"], ["--version"]])
def test_help_builds_no_command_options(args) -> None:
    # the list of commands needs their names and help, not their options: only the
    # group's own (--version and its callback) are built
    done = _run(_BUILT, *args)
    assert "receval" in done.stdout + done.stderr
    assert set(done.stderr.rpartition("BUILT ")[2].split()) == {"_root", "_version"}
    done = _run(_BUILT, "rank", "--help")
    assert {"_root", "rank"} <= set(done.stderr.rpartition("BUILT ")[2].split())


def test_help_lists_the_tests_of_compare() -> None:
    # the names come from receval.comparison.choices, the statistics' own lists
    from receval.comparison.significance import CORRECTIONS, TESTS

    done = _run(_MAIN, "compare", "--help")
    assert done.returncode == 0, done.stderr
    assert "|".join(TESTS) in done.stdout and "|".join((*CORRECTIONS, "none")) in done.stdout


_QRELS, _RESULTS = str(TREC / "qrels.test"), str(TREC / "results.test")


@pytest.mark.parametrize(
    "args",
    [
        ["trec-eval", _QRELS, _RESULTS],
        ["trec-eval", "-h"],
        ["trec-eval", "--help"],
        ["trec-eval", "--version"],
        ["trec-eval"],
        ["trec-eval", "-x", _QRELS, _RESULTS],
        ["trec-eval", "-q", "-m", "bogus", _QRELS, _RESULTS],
        ["trec-eval", "-m", "P.5", "--", "-q", _QRELS, _RESULTS],
        ["trec-eval", "-m", "map", _QRELS, "no-such-run"],
        ["--help"],
        ["rank", "--help"],
        ["demo", "--help"],
        RANK,
        [*RANK, "-f", "json", "--per-user"],
        [*RANK, "-m", "bogus"],
        [*RANK, "--run", str(TREC / "results.trunc"), "-f", "csv", "-q"],
        [*RANK, "--run", str(TREC / "results.trunc"), "--digits", "3"],
        ["rank", "--qrels", _QRELS, "--run", "no-such-run"],
        ["rank", "--digits", "x", "--qrels", "q", "--run", "r"],
        ["rank", "-f", "xml", "--qrels", "q", "--run", "r"],
        ["ctr", "--bogus"],
        ["rnk"],
    ],
)
def test_one_command_loaded_prints_what_all_loaded_print(args) -> None:
    lazy, full = _run(_MAIN, *args), _run(_FULL, *args)
    assert lazy.returncode == full.returncode
    assert lazy.stdout == full.stdout
    assert lazy.stderr.rpartition("\nMODULES ")[0] == full.stderr


def test_help_lists_every_command_in_order() -> None:
    group = typer.main.get_command(app)
    assert list(group.commands) == list(COMMANDS)
    done = _run(_MAIN, "--help")
    listed = [
        line.split()[0]
        for line in done.stdout.splitlines()
        if line.startswith("  ") and line.split() and line.split()[0] in COMMANDS
    ]
    assert listed == list(COMMANDS)


# ------------------------------------------------------------------ quick coercion
try:  # Typer's per-parameter coercion (pydantic), which receval.cli._params stands in for
    import typer._coercion as _coercion
except ImportError:  # a Typer that coerces with click types
    _coercion = None

needs_coercion = pytest.mark.skipif(_coercion is None, reason="Typer coerces with click types")
_GROUP = typer.main.get_command(app)
_PARAMS = [
    (name, param)
    for name, command in _GROUP.commands.items()
    for param in command.get_params(typer.Context(command))
    if getattr(param, "type_descriptor", None) is not None
]


def _typer_value(param: Any, ctx: Any, value: Any) -> Any:
    """Typer's own coercion (pydantic), or the exception it raises."""
    full = _coercion.build_runtime_param(param.type_descriptor)
    try:
        return full._coerce_value(value, param=param, ctx=ctx)
    except Exception as exc:  # any failure is compared
        return exc


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b) or (math.isnan(a) and math.isnan(b))
    return a == b


def _leaf(annotation: Any) -> Any:
    return get_args(annotation)[0] if get_origin(annotation) is list else annotation


def _strings(annotation: Any) -> st.SearchStrategy[str]:
    leaf = _leaf(annotation)
    out = st.text(alphabet="0123456789-+._ eEinfa\t", max_size=10) | st.text(max_size=4)
    out |= st.integers(-(10**20), 10**20).map(str) | st.floats().map(repr)
    if isinstance(leaf, type) and issubclass(leaf, Enum):
        names = st.sampled_from([m.value for m in leaf])
        out |= names | names.map(str.upper) | names.map(lambda s: f" {s}")
    return out


@st.composite
def _cases(draw: st.DrawFn) -> tuple[str, Any, Any]:
    name, param = draw(st.sampled_from(_PARAMS))
    annotation = param.type_descriptor.annotation
    strings = _strings(annotation)
    if get_origin(annotation) is list:
        value: Any = draw(st.lists(strings, max_size=3).map(tuple))
    else:
        value = draw(strings | st.just(param.default) | st.integers() | st.floats())
    return name, param, value


@needs_coercion
@given(_cases())
def test_quick_coercion_gives_typer_value_or_declines(case) -> None:
    name, param, value = case
    ctx = typer.Context(_GROUP.commands[name])
    descriptor = param.type_descriptor
    quick = quick_value(descriptor.annotation, descriptor.parameter_info, value, ctx)
    if quick is DECLINED:  # Typer's coercion decides (and words any error)
        return
    expected = _typer_value(param, ctx, value)
    assert not isinstance(expected, Exception), (name, param.name, value, expected)
    assert _same(quick, expected), (name, param.name, value, quick, expected)


@needs_coercion
def test_quick_coercion_takes_the_usual_values() -> None:
    # every default and a usual spelling of each type: never handed to pydantic
    usual = {str: "a.run", int: "12", float: "0.05"}
    for name, param in _PARAMS:
        ctx = typer.Context(_GROUP.commands[name])
        descriptor = param.type_descriptor
        annotation, info = descriptor.annotation, descriptor.parameter_info
        leaf = _leaf(annotation)
        values = [param.default] if param.default is not None and leaf is not bool else []
        if isinstance(leaf, type) and issubclass(leaf, Enum):
            values += [m.value for m in leaf] + [m.value.upper() for m in leaf]
        elif leaf is int and info.min is not None:
            values.append(str(info.min))
        elif leaf in usual:
            values.append(usual[leaf])
        if get_origin(annotation) is list:
            values = [tuple(values), ()] if values else []
        for value in values:
            quick = quick_value(annotation, info, value, ctx)
            assert quick is not DECLINED, (name, param.name, value)
            assert _same(quick, _typer_value(param, ctx, value)), (name, param.name, value)


@needs_coercion
def test_quick_coercion_declines_what_it_does_not_know() -> None:
    info = typer.models.OptionInfo(min=0, max=17)
    assert quick_value(int, info, "18") is DECLINED  # out of bounds: Typer's message
    assert quick_value(int, info, "1e3") is DECLINED
    assert quick_value(int, info, "4") == 4
    assert quick_value(float, info, "1e-3") is DECLINED
    assert quick_value(bool, info, "yes") is DECLINED
    assert quick_value(str, info, b"bytes") is DECLINED
    assert quick_value(list[str], info, "not a list") is DECLINED


# ------------------------------------------------------------------ rank before Typer
def test_rank_run_takes_the_options_of_rank_with_their_defaults() -> None:
    # the Typer command hands its options to run_rank by name: the same names, defaults
    import inspect

    from receval.cli._rank import rank
    from receval.cli._rank_run import run_rank

    command = inspect.signature(rank).parameters.values()
    body = inspect.signature(run_rank).parameters.values()
    assert [(p.name, p.default) for p in command] == [(p.name, p.default) for p in body]


def test_the_conventions_are_keywords_of_evaluate_and_options_of_rank() -> None:
    # one table of the conventions (receval.conventions.Conventions): each is a keyword of
    # evaluate and of run_rank (so an option of rank), of the field's type or None (the
    # profile's value, else receval's); evaluate lists them together in the table's
    # order, and every other option of rank's Conventions panel is --profile
    import dataclasses
    import inspect

    from receval import evaluate
    from receval.cli._rank import rank
    from receval.cli._rank_run import run_rank
    from receval.conventions import FIELDS, Conventions

    types = {f.name: f.type for f in dataclasses.fields(Conventions)}
    assert tuple(types) == FIELDS
    for function in (evaluate, run_rank):
        params = inspect.signature(function).parameters
        for name in FIELDS:
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, (function, name)
            assert params[name].default is None, (function, name)
            assert params[name].annotation == f"{types[name]} | None", (function, name)
    names = list(inspect.signature(evaluate).parameters)
    first = names.index(FIELDS[0])
    assert tuple(names[first : first + len(FIELDS)]) == FIELDS
    options = {p.name: getattr(p.annotation, "__metadata__", [None])[0]
               for p in inspect.signature(rank).parameters.values()}  # fmt: skip
    panel = {name for name, o in options.items() if o and o.rich_help_panel == "Conventions"}
    assert panel - set(FIELDS) == {"profile"}


@pytest.mark.parametrize(
    "args",
    [
        ["--qrels", "q", "--metric=map"],  # an option and its value in one argument
        ["--qrels", "q", "-mmap"],
        ["--qrels", "q", "--run", "-"],  # standard input
        ["--qrels", "q", "-m"],
        ["--qrels", "q", "-f", "JSON"],  # Typer's case-insensitive choice
        ["--qrels", "q", "--digits", "18"],  # Typer's bounds message
        ["--qrels", "q", "--digits", "+3"],
        ["--qrels", "q", "--qrels", "r"],
        ["--qrels", "q", "-q", "-q"],
        ["--qrels", "q", "--permutations", "100"],
        ["--qrels", "q", "--qrels-format", "TREC"],  # Typer's case-insensitive choice
        ["--qrels", "q", "--ties=average"],
        ["--qrels", "q", "--depth", "-1"],
        ["--qrels", "q", "--depth", "+3"],
        ["--qrels", "q", "--rel-threshold", "1e0"],
        ["--qrels", "q", "--ties", "input", "--ties", "average"],
        ["--qrels", "q", "--help"],
        ["--qrels", "q", "extra"],
        ["--qrels", "q", "--", "--run", "r"],
        ["--run", "r"],  # no --qrels: Typer's message
        [],
    ],
)
def test_uncommon_command_lines_are_left_to_typer(args) -> None:
    from receval.cli._rank_run import common_options

    assert common_options(args) is None


_RUNS = [str(TREC / "results.test"), str(TREC / "results.trunc")]


@st.composite
def _rank_lines(draw: st.DrawFn) -> list[list[str]]:
    """A command line of rank's common options, in any order."""
    parts = [["--qrels", _QRELS]]
    for path in draw(st.sampled_from([_RUNS[:1], _RUNS[1:], _RUNS])):
        parts.append(["--run", path])
    names = ["ndcg@10", "map", "P.5,10", "mrr", "recall@100", "bogus", "auc", "catalog_coverage@10"]
    for name in draw(st.lists(st.sampled_from(names), max_size=3)):
        parts.append([draw(st.sampled_from(["-m", "--metric"])), name])
    formats = ["table", "json", "csv", "tsv", "markdown", "latex"]
    fmt = draw(st.none() | st.sampled_from(formats))
    if fmt is not None:
        parts.append([draw(st.sampled_from(["-f", "--format"])), fmt])
    digits = draw(st.none() | st.sampled_from(["0", "2", "07", "17"]))
    if digits is not None:
        parts.append(["--digits", digits])
    profile = draw(st.none() | st.sampled_from(["trec_eval", "ranx", "nope"]))
    if profile is not None:
        parts.append(["--profile", profile])
    ties = draw(st.none() | st.sampled_from(["input", "average", "trec", "bogus"]))
    if ties is not None:
        parts.append(["--ties", ties])
    gain = draw(st.none() | st.sampled_from(["linear", "exponential"]))
    if gain is not None:
        parts.append(["--gain", gain])
    depth = draw(st.none() | st.sampled_from(["0", "3", "010"]))
    if depth is not None:
        parts.append(["--depth", depth])
    threshold = draw(st.none() | st.sampled_from(["1", "2.0", "0.5"]))
    if threshold is not None:
        parts.append(["--rel-threshold", threshold])
    fmt_in = draw(st.none() | st.sampled_from(["trec", "csv"]))
    if fmt_in is not None:
        parts.append([draw(st.sampled_from(["--qrels-format", "--run-format"])), fmt_in])
    for column in ("--user", "--item", "--score", "--rank"):
        if draw(st.booleans()):
            parts.append([column, "c"])
    for flag in ("-q", "--quiet", "--per-user"):
        if draw(st.booleans()):
            parts.append([flag])
    if ["-q"] in parts and ["--quiet"] in parts:
        parts.remove(["--quiet"])
    return draw(st.permutations(parts))


def _through(runner: Any, typer_path: bool, args: list[str]) -> tuple[Any, bytes, bytes]:
    """Exit status, stdout and stderr of ``receval rank *args`` through Typer or
    through run_rank with common_options' values."""
    from receval.cli._rank_run import common_options, run_rank

    if typer_path:
        done = runner.invoke(app, ["rank", *args])
        if done.exception is not None and not isinstance(done.exception, SystemExit):
            raise done.exception
        return done.exit_code, done.stdout_bytes, done.stderr_bytes
    options = common_options(args)
    assert options is not None, args
    code: Any = 0
    with runner.isolation() as (out, err, *_):
        try:
            run_rank(**options)
        except SystemExit as exc:
            code = exc.code
        return code, out.getvalue(), err.getvalue()


@settings(max_examples=40, deadline=None)
@given(_rank_lines())
def test_common_options_print_what_typer_prints(lines) -> None:
    # every common command line: the same output, notes and status before Typer as through it
    from tests.cli._helpers import make_runner

    args = [arg for part in lines for arg in part]
    runner = make_runner()
    assert _through(runner, False, args) == _through(runner, True, args)


# ------------------------------------------------------------------ tables without rich
_ASCII = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
_CELLS = _ASCII | st.floats() | st.integers(-(10**9), 10**9) | st.none() | st.just("[b]x:y:")


@st.composite
def _tables(draw: st.DrawFn) -> Any:
    from receval.cli._output import ResultTable

    n = draw(st.integers(1, 6))
    columns = draw(st.lists(_ASCII, min_size=n, max_size=n))
    rows = draw(st.lists(st.lists(_CELLS, min_size=n, max_size=n), max_size=4))
    return ResultTable(columns, rows, title=draw(st.none() | _ASCII))


@settings(max_examples=300, deadline=None)
@given(_tables(), st.integers(0, 6))
def test_plain_tables_are_what_rich_writes_to_a_pipe(table, digits) -> None:
    # the tables written without rich, byte for byte rich's; the others left to rich
    import io

    from receval.cli import _output

    plain = io.StringIO()
    if not _output._plain_grid(table, digits, plain):
        assert plain.getvalue() == ""
        return
    drawn = io.StringIO()
    real, _output._plain_grid = _output._plain_grid, lambda *args: False
    try:
        _output._rich(table, digits, drawn)
    finally:
        _output._plain_grid = real
    assert plain.getvalue() == drawn.getvalue()


def test_a_plain_table_is_written_without_rich() -> None:
    code = (
        "import sys\n"
        "from receval.cli import _output\n"
        "table = _output.ResultTable(['run', 'map'], [['a.run', 0.25]])\n"
        "_output.render(table, _output.OutputFormat.table)\n"
        "print('rich' in sys.modules)\n"
    )
    done = _run(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False"
    assert "│ a.run │ 0.2500 │" in done.stdout


@pytest.mark.parametrize(
    ("extra", "code"), [([], 0), (["--ties", "input"], 0), (["--permutations", "100"], 2)]
)
def test_rank_without_the_cli_extra(extra, code) -> None:
    # the common options need neither Typer nor rich on a pipe; the others say what to install
    blocked = "import sys\nsys.modules['typer'] = sys.modules['rich'] = None\n"
    done = _run(blocked + _MAIN, *RANK, *extra)
    assert done.returncode == code, done.stderr
    if code:
        assert done.stderr.startswith("error: the receval command needs Typer and rich")
    else:
        assert "│ results.test │  0.3016 │ 0.1785 │" in done.stdout


@pytest.mark.parametrize(
    ("ties", "words"),
    [("input", "ordered in input order"), ("trec", "trec_eval's rule"), (None, "trec_eval's rule")],
)
def test_conventions_read_before_typer_reach_the_report(ties, words) -> None:
    # a convention on the command line is evaluate's (not the core's plain TREC report)
    from tests.cli._helpers import make_runner

    args = ["--qrels", _QRELS, "--run", _RESULTS, "-m", "map"]
    args += [] if ties is None else ["--ties", ties]
    code, _, err = _through(make_runner(), False, args)
    assert code == 0
    assert words in err.decode()


_CONVENTION_LINES = [
    [f"--{name.replace('_', '-')}", value]
    for name, values in __import__("receval.conventions", fromlist=["CHOICES"]).CHOICES.items()
    if name not in ("grades", "estimator")  # options of rank that common_options leaves to Typer
    for value in values
] + [["--depth", "0"], ["--depth", "3"], ["--rel-threshold", "2"], ["--rel-threshold", "0.5"]]


@pytest.mark.parametrize("convention", _CONVENTION_LINES, ids=" ".join)
@pytest.mark.parametrize("run", ["results.test", "results.trunc"])
def test_conventions_on_trec_files_give_the_report_of_evaluate(
    convention, run, monkeypatch
) -> None:
    # the core's report of TREC files with a convention (where it takes one) is evaluate's
    from receval.cli import _rank_trec
    from tests.cli._helpers import make_runner

    args = ["--qrels", _QRELS, "--run", str(TREC / run), "-f", "json", "--digits", "17"]
    args += ["-m", "ndcg@10", "-m", "map", "-m", "P@5", "-m", "recall@10", "-m", "mrr"]
    args += ["-m", "success@3", "--per-user", *convention]
    runner = make_runner()
    took: list[bool] = []
    real = _rank_trec.core_report

    def spy(*a: Any) -> Any:
        report = real(*a)
        took.append(report is not None)
        return report

    monkeypatch.setattr(_rank_trec, "core_report", spy)
    through_core = _through(runner, False, args)
    monkeypatch.setattr(_rank_trec, "core_report", lambda *a: None)
    assert through_core == _through(runner, False, args)
    assert took == [took[0]]
