"""Inputs that imply absurd work or memory are refused or bounded before the work
starts, and an allocation that fails is a MemoryError with a message, never an
abort of the process."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest

import receval as rv
from receval.exceptions import InvalidParameterError

resource = pytest.importorskip("resource")


def test_absurd_permutation_steps_are_refused_before_the_work():
    d = np.random.default_rng(0).normal(0.0, 1.0, 1_000_000)
    start = time.perf_counter()
    message = (
        "paired_pvalues: n_permutations x users = 10_000_000 x 1_000_000 = 1.00e+13 steps, "
        "over the limit of 1e+12 (hours of work). Got n_permutations=10_000_000; lower "
        "n_permutations (10_000 resolves a p-value to 1e-4) or test a random sample of the users."
    )
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        rv.paired_pvalues(d, n_permutations=10**7)
    with pytest.raises(InvalidParameterError, match=r"^bootstrap_intervals: n_resamples x users"):
        rv.bootstrap_intervals(d, n_resamples=10**7)
    assert time.perf_counter() - start < 5.0


def test_the_step_limit_itself_is_accepted():
    # 10**6 users x 10**6 replicates is exactly the limit: refused only above it
    from receval.comparison.paired import MAX_STEPS, check_steps

    check_steps(10**6, MAX_STEPS // 10**6, "n_permutations", "paired_pvalues")
    with pytest.raises(InvalidParameterError):
        check_steps(10**6, MAX_STEPS // 10**6 + 1, "n_permutations", "paired_pvalues")


def test_a_catalog_of_2_31_items_costs_no_memory():
    lists = [["a", "b", "c"], ["a", "d", "b"]]
    n = 2**31 - 1
    tracemalloc.start()
    try:
        coverage = rv.catalog_coverage(lists, catalog=n)
        gini = rv.gini_index(lists, catalog=n)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10 << 20, peak  # a catalogue-sized int64 array would be 16 GiB
    assert coverage == 4 / n
    # exposures 2, 2, 1, 1 and n - 4 zeros: sum_j (2j - n - 1) c_j / (n * 6)
    top = [1, 1, 2, 2]
    num = sum((2 * (n - 4 + i) - n - 1) * c for i, c in enumerate(top, start=1))
    assert gini == pytest.approx(num / (n * 6), rel=1e-15)


def test_a_given_catalog_size_equals_the_padded_exposures():
    lists = [["a", "b"], ["a", "c"], ["a", "b"]]
    for size in (3, 4, 10):
        ids = ["a", "b", "c"] + [f"x{i}" for i in range(size - 3)]
        assert rv.gini_index(lists, catalog=size) == pytest.approx(
            rv.gini_index(lists, catalog=ids), rel=1e-15
        )
        assert rv.catalog_coverage(lists, catalog=size) == rv.catalog_coverage(lists, catalog=ids)


LIMITED = """
import resource, sys
size = 3 << 30
resource.setrlimit(resource.RLIMIT_AS, (size, size))
import numpy as np
import receval as rv
d = np.random.default_rng(0).normal(0.0, 1.0, (50, 200))
try:
    {call}
except MemoryError as exc:
    print("MemoryError:", exc)
"""


@pytest.mark.parametrize(
    "call, message",
    [
        (
            "rv.paired_pvalues(d, n_permutations=10**7)",
            "MemoryError: could not allocate 16000000000 bytes (14.9 GiB) for the sign-flip sums "
            "(n_permutations x columns); lower n_permutations or test fewer columns at a time.",
        ),
        (
            "rv.bootstrap_intervals(d, n_resamples=10**7)",
            "MemoryError: could not allocate 16000000000 bytes (14.9 GiB) for the bootstrap means "
            "(n_resamples x columns); lower n_resamples or test fewer columns at a time.",
        ),
    ],
)
def test_a_failed_allocation_is_a_memory_error_not_an_abort(call, message):
    out = subprocess.run(
        [sys.executable, "-c", LIMITED.format(call=call)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == message


def test_cli_out_of_memory_is_an_error_line_not_an_abort(tmp_path):
    rng = np.random.default_rng(0)
    n_users, k = 200, 10
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"u{u} 0 i{u % 30} 1\n" for u in range(n_users)))
    runs = []
    for name in "abc":
        scores = rng.random((n_users, k))
        runs += ["--run", str(tmp_path / f"{name}.run")]
        (tmp_path / f"{name}.run").write_text(
            "".join(
                f"u{u} Q0 i{(u + j) % 30} {j + 1} {scores[u, j]:.5f} {name}\n"
                for u in range(n_users) for j in range(k)
            )
        )  # fmt: skip
    metrics = [x for m in ("ndcg@10", "map", "mrr", "recall@10", "precision@5") for x in ("-m", m)]
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "from receval.cli import main; sys.argv = ['receval'] + sys.argv[1:]; main()"
    )
    # 10**7 permutations x 15 columns of float64: 1.2 GB, over the 1 GiB limit
    out = subprocess.run(
        [sys.executable, "-c", code, "compare", "--qrels", str(qrels), *runs, *metrics,
         "--permutations", "10000000"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr[-2000:]
    assert out.stderr.startswith(
        "error: out of memory: could not allocate 1200000000 bytes (1.1 GiB) for the sign-flip "
        "sums (n_permutations x columns); lower n_permutations or test fewer columns at a time. "
        "Free memory, raise the process's memory limit (ulimit -v), or evaluate fewer rows at "
        "a time."
    ), out.stderr[-2000:]
    assert "Traceback" not in out.stderr


def test_compare_refuses_absurd_permutation_steps_naming_itself():
    n_users, k = 200_000, 5
    users = np.repeat(np.arange(n_users), k)
    items = np.tile(np.arange(k), n_users)
    rng = np.random.default_rng(0)
    qrels = rv.Qrels(users[::k], items[::k])
    runs = {name: rv.Run(users, items, rng.random(len(users))) for name in "ab"}
    with pytest.raises(
        InvalidParameterError,
        match=re.escape(
            "compare: n_permutations x users = 10_000_000 x 200_000 = 2.00e+12 steps, over the "
            "limit of 1e+12"
        ),
    ):
        rv.compare(qrels, runs, ["ndcg@5"], n_permutations=10**7)
