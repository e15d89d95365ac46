"""Timing and peak-memory helpers shared by the benchmark scripts.

Peak memory is measured in-process on Linux: writing ``5`` to
``/proc/self/clear_refs`` resets the kernel's high-water mark of resident
memory (VmHWM), so ``VmHWM - VmRSS(before)`` after a call is the peak extra
memory of that call, whatever allocated it (NumPy, numba, Arrow, polars).
``malloc_trim(0)`` first returns pages that earlier calls freed but glibc kept,
which would otherwise be reused without raising the resident size.
"""

from __future__ import annotations

import ctypes
import gc
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def _status_mib(key: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    raise KeyError(key)


def _trim() -> None:
    """Give freed heap pages back to the OS, so the next call's pages count as new."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


@dataclass
class Measurement:
    seconds: float
    peak_extra_mib: float
    value: Any


def _one(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    gc.collect()
    _trim()
    base = _status_mib("VmRSS")
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    start = time.perf_counter()
    value = fn()
    elapsed = time.perf_counter() - start
    return elapsed, _status_mib("VmHWM") - base, value


def measure(fn: Callable[[], Any], repeat: int = 1) -> Measurement:
    """Best wall time over ``repeat`` runs and the largest peak extra memory."""
    best = float("inf")
    peak = 0.0
    value = None
    for _ in range(repeat):
        elapsed, extra, value = _one(fn)
        peak = max(peak, extra)
        best = min(best, elapsed)
    return Measurement(best, peak, value)


@dataclass
class Interleaved:
    """Runs of one case among others taken in turn: median time, largest peak."""

    seconds: float
    peak_extra_mib: float
    value: Any
    runs: list[float]
    load: tuple[float, float]  # 1-minute load average before and after the whole round


def interleaved(fns: list[Callable[[], Any]], runs: int = 3) -> list[Interleaved]:
    """Time several cases the same way: A B C A B C ... (``runs`` rounds), the median
    of each, its largest peak extra memory, and the load average around the rounds.

    Every case gets the same number of runs in the same conditions, so a ratio
    of two medians compares like with like (a warm-up call of each comes first)."""
    for fn in fns:
        fn()  # warm-up: compilation, caches, lazy imports
    load_before = os.getloadavg()[0]
    times: list[list[float]] = [[] for _ in fns]
    peaks = [0.0 for _ in fns]
    values: list[Any] = [None for _ in fns]
    for _ in range(runs):
        for i, fn in enumerate(fns):
            t, peak, values[i] = _one(fn)
            times[i].append(t)
            peaks[i] = max(peaks[i], peak)
    load_after = os.getloadavg()[0]
    out = []
    for i in range(len(fns)):
        ordered = sorted(times[i])
        median = (
            ordered[len(ordered) // 2]
            if runs % 2
            else sum(ordered[runs // 2 - 1 : runs // 2 + 1]) / 2
        )
        out.append(Interleaved(median, peaks[i], values[i], times[i], (load_before, load_after)))
    return out


def environment() -> str:
    import numpy

    try:
        from receval._kernels import num_threads

        threads = f"receval kernels: {num_threads()} threads"
    except ImportError:  # pragma: no cover
        threads = "receval kernels: ?"
    lines = [
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"{_cpu_model()}, {_mem_total_gib():.0f} GiB RAM",
        f"- Python {platform.python_version()}, NumPy {numpy.__version__}; {threads}",
    ]
    try:
        import numba

        lines.append(
            f"- numba {numba.__version__} (the peers' kernels; {numba.get_num_threads()} threads)"
        )
    except ImportError:
        pass
    for name in ("sklearn", "polars", "pandas", "pyarrow"):
        try:
            module = __import__(name)
            lines.append(f"- {name} {module.__version__}")
        except ImportError:
            pass
    return "\n".join(lines)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _mem_total_gib() -> float:
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024**2
    return float("nan")


def replace_section(path: str, name: str, body: str) -> None:
    """Replace the text between ``<!-- name:start -->`` and ``<!-- name:end -->``."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    block = f"{start}\n{body.rstrip()}\n{end}"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        _, tail = rest.split(end, 1)
        text = head + block + tail
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    with open(path, "w") as fh:
        fh.write(text)
