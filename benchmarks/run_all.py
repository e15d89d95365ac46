"""Re-run every section of docs/benchmarks.md on this machine, in one run.

    python benchmarks/run_all.py                        # every section; rewrites the page
    python benchmarks/run_all.py --quick                # every quick mode, prints only
    python benchmarks/run_all.py --sections core,ties   # some sections only
    python benchmarks/run_all.py --list                 # the sections, commands, expected times

Each section's script runs in a new process, one after the other, at the scale
written below (the same arguments every time, so the page says what was run).
Each script writes its own section with a one-line note of the machine; this
driver writes the machine in full at the top of the page (CPU model, cores,
vector extensions, which SIMD paths receval's core and NumPy take, memory, OS,
library versions, the load average at the start and the end) with the command,
the start and the time of the run that wrote each section (a run of some sections,
``--sections``, keeps the other sections' rows as the runs that wrote them left
them), then rewrites the figures that README.md and docs/ quote from the page
(``_claims.py``).

A section whose script is absent, or whose tool is missing (trec_eval, another
checkout for ``revisions``), is skipped with a message; the run goes on.
trec_eval is found with ``--trec-eval PATH`` or built by ``build_trec_eval.sh``
(which clones usnistgov/trec_eval), in that order. TorchRec, in the training-loop
section, runs in the Python given by ``--torchrec-python PATH`` (a virtual
environment with its own torch: see that section), or is noted as not run; RecBole,
in the retrieval section, in the Python given by ``--recbole-python PATH``, or is
not run. ``benchmarks/peer_pythons.sh`` makes both Pythons and the checkout of
``revisions`` once on a machine, in ``.cache/peers``, where this driver finds them
(``--peers DIR`` for another folder; an option given names its own).
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _claims
from _harness import compile_package, load_line, machine, replace_section

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAGE = os.path.join(ROOT, "docs", "benchmarks.md")


@dataclass(frozen=True)
class Section:
    """One section of the page: the script that writes it and how this driver calls it.

    ``full`` and ``quick`` are the script's arguments in the driver's full and
    quick runs; ``{trec_eval}`` and ``{before}`` are replaced by the paths given
    to the driver. ``minutes`` is the expected time of the full mode on a 2-core
    machine (x86-64, AVX2, load about 1), from the scales and the times of the
    last published run."""

    name: str
    script: str
    full: tuple[str, ...]
    quick: tuple[str, ...]
    minutes: float
    # "trec_eval", "before": a path without which the section is skipped; "cuda": a GPU
    needs: str = ""
    also: tuple[str, ...] = ()  # other sections of the page the script writes


SECTIONS = (
    # 10M rows (and 50M for AUC); the pandas groupby-apply GAUC peer on 5k users
    # (248 s on 100k users in an earlier run: about 12 s here; the row says its size).
    Section(
        "pointwise",
        "bench_pointwise.py",
        ("--runs", "3", "--pandas-users", "5000"),
        ("--quick",),
        3.0,
    ),
    # 10M rows: exact XAUC against sampled NumPy XAUC, recalibrated NE against NumPy.
    Section("xauc-ne", "bench_xauc_ne.py", ("--runs", "3"), ("--quick",), 2.0),
    # 100k and 1M users; a case whose slowest tool takes over 30 s (ranx, and
    # pytrec_eval at 1M users) gets one run of every tool.
    Section(
        "ranking",
        "bench_ranking.py",
        ("--users", "100000", "1000000", "--runs", "3", "--long-s", "30"),
        ("--quick", "--runs", "1"),
        5.0,
    ),
    # 100k users x 100 items; pytrec_eval on the same lists for reference.
    Section(
        "ids",
        "bench_ids.py",
        ("--users", "100000", "--runs", "5", "--processes", "5"),
        ("--quick",),
        29.0,
    ),
    # (--users N prints only.)
    Section(
        "beyond",
        "bench_beyond.py",
        ("--runs", "3"),
        ("--users", "20000", "--peer-users", "1000"),
        2.0,
    ),
    # 50M events; the pandas peer takes over 20 s, so every row of the section has one run.
    Section(
        "retention",
        "bench_retention.py",
        ("--events", "50000000", "--runs", "3", "--long-s", "20"),
        ("--quick",),
        2.0,
    ),
    # 100k users, 10,000 draws; a peer projected over 30 s runs fewer draws, its time
    # scaled (its row says so); a group where a call takes over 20 s gets one run.
    Section(
        "compare",
        "bench_compare.py",
        ("--runs", "3", "--long-s", "20", "--peer-seconds", "30"),
        ("--users", "5000", "--draws", "1000"),  # prints only
        3.0,
    ),
    # 1M users x 100 items; SciPy's kendalltau on 2,000 users, its time scaled.
    Section("lists", "bench_lists.py", ("--runs", "3"), ("--quick",), 10.0),
    # 200M rows (its text describes the passes of AUC at that size).
    Section("streaming", "bench_streaming.py", ("--rows", "200000000"), ("--quick",), 4.5),
    # 10M rows (100M rows, --rows 100000000, takes about half an hour on 2 cores).
    Section(
        "scan-read",
        "bench_scan_read.py",
        ("--rows", "10000000", "--runs", "3"),
        ("--quick",),
        2.0,
    ),
    # 20M impressions, 200k users x 100 in Spark local mode, one run of each call.
    Section(
        "spark",
        "bench_spark.py",
        ("--rows", "20000000", "--users", "200000", "--runs", "1"),
        ("--quick", "--runs", "1"),
        3.0,
    ),
    Section("accumulators", "bench_accumulators.py", ("--runs", "1"), ("--quick",), 2.5),
    # 1,000 steps of 4,096 rows against torchmetrics, 3 runs each (about 9 min); TorchRec (in
    # the Python given by --torchrec-python, its own torch) adds about 6 min, or is noted as
    # not run.
    Section(
        "training-loop",
        "bench_training_loop.py",
        ("--runs", "3", "--torchrec-python", "{torchrec_python}"),
        ("--quick", "--torchrec-python", "{torchrec_python}"),
        15.0,
    ),
    # the same loop with its tensors on a GPU (torchmetrics computing there); on a
    # machine without one the section keeps the rows of the run that wrote it
    Section(
        "training-loop-cuda",
        "bench_training_loop.py",
        ("--device", "cuda", "--runs", "3"),
        ("--device", "cuda", "--quick"),
        2.0,
        needs="cuda",
    ),
    Section(
        "core",
        "bench_core.py",
        ("--trec-eval", "{trec_eval}"),
        ("--quick", "--users", "10000"),
        3.0,
    ),
    # the trec_eval binary's row when it is found (the others without it)
    Section("startup", "bench_startup.py", ("--trec-eval", "{trec_eval}"), ("--quick",), 1.0),
    Section(
        "trec-eval",
        "bench_trec_eval.py",
        ("--trec-eval", "{trec_eval}"),
        ("--quick", "--users", "10000", "--trec-eval", "{trec_eval}"),
        2.0,
        needs="trec_eval",
    ),
    Section("fairness", "bench_fairness.py", (), ("--quick",), 3.0),
    Section("sampled", "bench_sampled.py", (), ("--quick",), 0.5),
    Section("ties", "bench_ties.py", (), ("--quick",), 0.5),
    # 100M interactions, 1M users, in memory (pandas, polars) and out of core (polars'
    # streaming engine): a row whose first run takes over 60 s runs once; about 8 GB of
    # memory at the peak.
    Section("split", "bench_split.py", ("--rows", "100000000", "--runs", "3"), ("--quick",), 15.0),
    # 100k users x 100k items x 64 against faiss and NumPy (a case whose first run takes
    # over 30 s gets one run of each tool), then 10k users x 2M items read from a .npy file;
    # then RecBole's full sort (20k users x 100k items) in the Python given by
    # --recbole-python (about 6 min more), or not run.
    Section(
        "retrieval",
        "bench_retrieval.py",
        ("--runs", "3", "--long-s", "30", "--recbole-python", "{recbole_python}"),
        ("--quick", "--recbole-python", "{recbole_python}"),
        8.0,
        also=("retrieval-recbole",),
    ),
    Section("exclude", "bench_exclude.py", (), ("--quick",), 1.0),
    Section(
        "revisions",
        "bench_revisions.py",
        ("--before", "{before}", "--label", "{label}", "--write"),
        ("--before", "{before}", "--quick"),
        4.0,
        needs="before",
    ),
)


def command(section: Section, quick: bool, paths: dict[str, str | None]) -> list[str] | str:
    """The command line of a section, or why it is skipped."""
    script = os.path.join(HERE, section.script)
    if not os.path.exists(script):
        return f"benchmarks/{section.script} does not exist in this checkout"
    args = section.quick if quick else section.full
    if section.needs and paths.get(section.needs) is None:
        return {
            "trec_eval": "no trec_eval binary (--trec-eval PATH, or build_trec_eval.sh failed)",
            "before": "no other checkout to compare with (--before PATH/src)",
            "cuda": "no CUDA device (torch.cuda.is_available() is false, or no torch)",
        }[section.needs]
    out = [sys.executable, script]
    for arg in args:
        if "{" in arg:
            key = arg.strip("{}")
            value = paths.get(key)
            if value is None:  # an optional tool: drop the option that names it
                out.pop()
                continue
            arg = value
        out.append(arg)
    return out


def find_cuda() -> str | None:
    """``"cuda"`` where torch sees a GPU (asked in a child process: this one stays light)."""
    code = "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return "cuda" if done.returncode == 0 else None


def find_trec_eval(given: str | None) -> str | None:
    """The trec_eval binary: the path given, else the one build_trec_eval.sh prints."""
    if given:
        return given if os.access(given, os.X_OK) else None
    try:
        done = subprocess.run(
            ["bash", os.path.join(HERE, "build_trec_eval.sh")],
            capture_output=True,
            text=True,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    path = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    return path if done.returncode == 0 and os.access(path, os.X_OK) else None


def peers(folder: str) -> dict[str, str]:
    """What ``peer_pythons.sh`` made in ``folder`` (each part that is there): the
    Pythons of TorchRec and RecBole, and the other checkout's source and name."""
    found = {}
    for key, name in (("torchrec_python", "torchrec"), ("recbole_python", "recbole")):
        python = os.path.join(folder, name, "bin", "python")
        if os.access(python, os.X_OK):
            found[key] = python
    before = os.path.join(folder, "before", "src")
    label = os.path.join(folder, "before.label")
    if os.path.isdir(before) and os.path.exists(label):
        found["before"] = before
        with open(label) as fh:
            found["label"] = fh.read().strip()
    return found


def shown(cmd: list[str]) -> str:
    """A command as a reader would type it from the repository root."""
    words = ["python"] + [os.path.relpath(w, ROOT) if w.startswith(ROOT) else w for w in cmd[1:]]
    return shlex.join(words)


Result = tuple[Section, str, str, float | None]  # section, command, result, seconds

#: a row of the header's table: section, command, run (its start), minutes, result
Row = tuple[str, str, str, str, str]


def rows_on_page(text: str) -> dict[str, Row]:
    """The rows of the header's table on ``text`` (the page as it is), by section.

    A row of a page written before the table had its run column is dated by the
    start of the run that wrote the header (the sentence above the table)."""
    try:
        head = _claims.section(text, "machine")
    except KeyError:  # a page the driver has not written a header to
        return {}
    began = re.search(r"started (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", head)
    rows: dict[str, Row] = {}
    for line in head.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if not line.startswith("| ") or cells[0] in ("section", "---"):
            continue
        if len(cells) == 4 and began:  # section, command, minutes, result
            cells.insert(2, began.group(1))
        if len(cells) == 5:
            rows[cells[0]] = (cells[0], cells[1], cells[2], cells[3], cells[4])
    return rows


def header(
    results: list[Result], started: str, loads: tuple, kept: dict[str, Row] | None = None
) -> str:
    """The page's first section: how the page was made, the machine in full, what ran;
    the sections this run did not run keep their rows from ``kept`` (:func:`rows_on_page`)."""
    total = sum(t for *_, t in results if t is not None)
    names = ", ".join(s.name for s, *_ in results)
    every = {s.name for s, *_ in results} >= {s.name for s in SECTIONS if s.needs != "cuda"}
    ran = (
        "every section"
        if every
        else f"sections {names}; the table gives every section the run that wrote it"
    )
    lines = [
        "## How this page was made",
        "",
        "Every section below is written by its script in `benchmarks/`; "
        "`python benchmarks/run_all.py` re-runs them all, one after the other in new "
        "processes on one machine, at the scales of the commands below, then rewrites "
        "the figures that README.md and the other pages quote from this one "
        "(`--quick` runs every quick mode and prints only; `--sections a,b` runs some; "
        "`bash benchmarks/peer_pythons.sh` first makes, once on a machine, the Pythons of "
        "the peers that cannot share this one's torch and the checkout that `revisions` "
        "compares with). "
        "Each section notes, on one line, when and on which CPU it was measured; "
        f"the last run of the driver ({ran}) "
        f"started {started} and took {total / 60:.0f} min, on this machine:",
        "",
        *machine(),
        load_line(loads[0], loads[1]),
        "",
        "| section | command | run started | time (min) | result |",
        "| --- | --- | --- | --- | --- |",
    ]
    new: dict[str, Row] = {}
    for section, cmd, result, seconds in results:
        took = f"{seconds / 60:.1f}" if seconds is not None else ""
        shown_cmd = f"`{cmd}`" if cmd else f"`benchmarks/{section.script}`"
        new[section.name] = (section.name, shown_cmd, started, took, result)
    for section in SECTIONS:
        row = new.get(section.name) or (kept or {}).get(section.name)
        if row is not None:
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def put_header(body: str) -> None:
    """Write the header section at the top of the page (below its title)."""
    text = open(PAGE).read()
    if "<!-- machine:start -->" not in text:
        title, _, rest = text.partition("\n")
        with open(PAGE, "w") as fh:
            fh.write(f"{title}\n\n<!-- machine:start -->\n<!-- machine:end -->\n{rest}")
    replace_section(PAGE, "machine", body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every quick mode; print only")
    parser.add_argument("--sections", default=None, help="comma-separated section names")
    parser.add_argument("--list", action="store_true", help="print the sections and stop")
    parser.add_argument("--trec-eval", default=None, help="the trec_eval 10.0 binary")
    parser.add_argument("--before", default=None, help="src folder of another checkout")
    parser.add_argument("--label", default="before", help="that checkout's name in its table")
    parser.add_argument(
        "--torchrec-python", default=None, help="a Python with torchrec (training-loop section)"
    )
    parser.add_argument(
        "--recbole-python", default=None, help="a Python with RecBole (retrieval section)"
    )
    parser.add_argument(
        "--peers",
        default=os.path.join(ROOT, ".cache", "peers"),
        help="the folder benchmarks/peer_pythons.sh made (default .cache/peers)",
    )
    args = parser.parse_args(argv)
    found = peers(args.peers)  # what peer_pythons.sh made, where no option names its own
    for key in ("torchrec_python", "recbole_python"):
        if getattr(args, key) is None and key in found:
            setattr(args, key, found[key])
    if args.before is None and "before" in found:
        args.before, args.label = found["before"], found["label"]

    chosen = list(SECTIONS)
    if args.sections:
        wanted = [s.strip() for s in args.sections.split(",") if s.strip()]
        known = {s.name for s in SECTIONS}
        unknown = [w for w in wanted if w not in known]
        if unknown:
            parser.error(
                f"--sections: unknown section(s) {', '.join(unknown)}; "
                f"the sections are {', '.join(s.name for s in SECTIONS)}"
            )
        chosen = [s for s in SECTIONS if s.name in wanted]
    if args.list:
        listed = {
            "trec_eval": "trec_eval",
            "cuda": "cuda",
            "before": args.before,
            "label": args.label,
            "torchrec_python": args.torchrec_python,
            "recbole_python": args.recbole_python,
        }
        total = 0.0
        for s in chosen:
            cmd = command(s, False, listed)
            line = f"skipped: {cmd}" if isinstance(cmd, str) else shown(cmd)
            total += 0.0 if isinstance(cmd, str) else s.minutes
            print(f"{s.name:13} ~{s.minutes:4.1f} min  {line}")
        print(f"expected total of the full run: ~{total:.0f} min (2 cores, AVX2, load about 1)")
        return 0

    needs_te = any(s.needs == "trec_eval" or "{trec_eval}" in s.full + s.quick for s in chosen)
    paths: dict[str, str | None] = {
        "trec_eval": find_trec_eval(args.trec_eval) if needs_te else None,
        "cuda": find_cuda() if any(s.needs == "cuda" for s in chosen) else None,
        "before": args.before,
        "label": args.label,
        "torchrec_python": args.torchrec_python,
        "recbole_python": args.recbole_python,
    }
    compile_package()  # the sections start receval processes: time them as installed
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_before = os.getloadavg()
    results: list[Result] = []
    failed = 0
    for section in chosen:
        cmd = command(section, args.quick, paths)
        if isinstance(cmd, str):
            print(f"== {section.name}: skipped: {cmd}", flush=True)
            if section.needs != "cuda":  # a GPU's section keeps the row of the run on one
                results.append((section, "", f"skipped: {cmd}", None))
            continue
        print(f"== {section.name}: {shown(cmd)}", flush=True)
        start = time.perf_counter()
        rc = subprocess.call(cmd, cwd=ROOT)
        seconds = time.perf_counter() - start
        print(f"== {section.name}: exit {rc}, {seconds:.0f} s", flush=True)
        failed += rc != 0
        results.append((section, shown(cmd), "ok" if rc == 0 else f"failed (exit {rc})", seconds))
    load_after = os.getloadavg()
    total = sum(t for *_, t in results if t is not None)
    print(f"== all: {total / 60:.1f} min; {failed} failed")
    if not args.quick:
        kept = rows_on_page(open(PAGE).read()) if os.path.exists(PAGE) else {}
        put_header(header(results, started, (load_before, load_after), kept))
        changed = _claims.refresh(ROOT)
        print("== figures quoted from the page rewritten in: " + (", ".join(changed) or "none"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
