"""Timing and peak-memory helpers shared by the benchmark scripts.

Peak memory is measured in-process on Linux: writing ``5`` to
``/proc/self/clear_refs`` resets the kernel's high-water mark of resident
memory (VmHWM), so ``VmHWM - VmRSS(before)`` after a call is the peak extra
memory of that call, whatever allocated it (NumPy, receval's compiled core,
Arrow, polars, a peer's own kernels). ``malloc_trim(0)`` first returns pages
that earlier calls freed but glibc kept, and Arrow's memory pool releases the
pages it keeps, which would otherwise be reused without raising the resident
size.
"""

from __future__ import annotations

import ctypes
import gc
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def status_mib(key: str) -> float:
    """A memory figure of this process from ``/proc/self/status`` (``VmRSS``, ``VmHWM``), MiB."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    raise KeyError(key)


def _trim() -> None:
    """Give freed heap pages back to the OS, so the next call's pages count as new:
    glibc's heap, and Arrow's pool (mimalloc or jemalloc) when pyarrow is loaded."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()


def _one(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    gc.collect()
    _trim()
    base = status_mib("VmRSS")
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")
    start = time.perf_counter()
    value = fn()
    elapsed = time.perf_counter() - start
    return elapsed, status_mib("VmHWM") - base, value


class Forked:
    """A case of :func:`interleaved` whose every timed call runs in its own forked child.

    A peer that runs out of memory then ends only its child (the case reports
    why, the other cases go on), and the memory it took is returned in full after
    each call. Time and peak extra memory are measured inside the child, around
    ``fn()`` alone; ``finish(value)`` runs in the child after the clock stops and
    its result (which must pickle) is what comes back.
    """

    def __init__(self, fn: Callable[[], Any], finish: Callable[[Any], Any] | None = None):
        self.fn = fn
        self.finish = finish

    def __call__(self) -> tuple[float, float, Any]:
        import multiprocessing as mp

        ctx = mp.get_context("fork")
        recv, send = ctx.Pipe(duplex=False)

        def target() -> None:
            try:
                elapsed, peak, value = _one(self.fn)
                if self.finish is not None:
                    value = self.finish(value)
                send.send(("ok", (elapsed, peak, value)))
            except BaseException as exc:
                send.send(("error", f"{type(exc).__name__}: {exc}"))
            finally:
                send.close()

        proc = ctx.Process(target=target)
        proc.start()
        send.close()
        try:
            status, payload = recv.recv()
        except EOFError:
            status, payload = "killed", None
        proc.join()
        if status == "ok":
            return payload
        if status == "error":
            raise ForkedCaseError(f"failed: {payload}")
        raise ForkedCaseError(f"failed: killed (exit code {proc.exitcode}; out of memory?)")


class ForkedCaseError(RuntimeError):
    """A :class:`Forked` call failed or its child was killed; the message says how."""


@dataclass
class Interleaved:
    """Runs of one case among others taken in turn: median time, largest peak.

    ``values`` holds the value of every run (``value`` is the last one's), or the
    last one's only where :func:`interleaved` was told not to keep them; ``error``
    says why a :class:`Forked` case stopped (then ``seconds`` is nan and the runs
    before the failure are kept)."""

    seconds: float
    peak_extra_mib: float
    value: Any
    runs: list[float]
    load: tuple[float, float]  # 1-minute load average before and after the whole round
    values: list[Any] = field(default_factory=list)
    error: str | None = None

    @property
    def median_index(self) -> int:
        """The run whose time is the median (the lower middle one for an even count)."""
        order = sorted(range(len(self.runs)), key=self.runs.__getitem__)
        return order[(len(order) - 1) // 2]

    @property
    def median_value(self) -> Any:
        """The value of the run whose time is the median."""
        if len(self.values) != len(self.runs):
            raise ValueError("median_value: the values of every run were not kept (keep_values)")
        return self.values[self.median_index]


def median(xs: list[float]) -> float:
    """The median of ``xs`` (the mean of the two middle values for an even count)."""
    ys = sorted(xs)
    n = len(ys)
    if n == 0:
        return float("nan")
    return ys[n // 2] if n % 2 else (ys[n // 2 - 1] + ys[n // 2]) / 2


def interleaved(
    fns: list[Callable[[], Any]],
    runs: int = 3,
    *,
    warmup: bool = True,
    long_s: float | None = None,
    keep_values: bool = True,
) -> list[Interleaved]:
    """Time several cases the same way: A B C, B C A, C A B ... (``runs`` rounds, each
    begun by the next case), the median of each, its largest peak extra memory, and
    the load average around the rounds.

    Every case gets the same number of runs in the same conditions, so a ratio
    of two medians compares like with like; each case takes each place in a round in
    turn. Within a round a case follows the one listed before it (the first, the
    last of the round before): a case after one that freed much memory finds its
    pages to fault in again.
    With ``warmup`` a call of each case comes first, untimed (compilation, caches,
    lazy imports); without it the caller warms them up on a small input. With
    ``long_s``, when any case of the first round took longer than ``long_s``
    seconds, the rounds stop there: every case then has one run. A :class:`Forked`
    case is called in a child process each time; if it fails, its result carries
    ``error`` and it leaves the rounds. Without ``keep_values`` only the last run's
    value is kept, each dropped before the case runs again: a case whose value is
    large (the codes of a column) would otherwise grow the process by a value a run,
    and every run would write memory the process never had, which a machine whose
    memory is backed on first use (a virtual machine) gives at a fraction of the
    speed of memory freed and taken again.
    """
    errors: list[str | None] = [None for _ in fns]
    if warmup:
        for i, fn in enumerate(fns):
            try:
                fn()  # warm-up: compilation, caches, lazy imports
            except ForkedCaseError as exc:
                errors[i] = str(exc)
    load_before = os.getloadavg()[0]
    times: list[list[float]] = [[] for _ in fns]
    peaks = [0.0 for _ in fns]
    values: list[list[Any]] = [[] for _ in fns]
    for round_ in range(runs):
        for k in range(len(fns)):
            i = (round_ + k) % len(fns)
            fn = fns[i]
            if errors[i] is not None:
                continue
            if not keep_values:
                values[i].clear()
            try:
                t, peak, value = fn() if isinstance(fn, Forked) else _one(fn)
            except ForkedCaseError as exc:
                errors[i] = str(exc)
                continue
            times[i].append(t)
            values[i].append(value)
            del value  # held by values[i] alone (dropped there before the next run)
            peaks[i] = max(peaks[i], peak)
        if round_ == 0 and long_s is not None and any(t and t[0] > long_s for t in times):
            break
    load_after = os.getloadavg()[0]
    out = []
    for i in range(len(fns)):
        out.append(
            Interleaved(
                median(times[i]) if errors[i] is None else float("nan"),
                peaks[i],
                values[i][-1] if values[i] else None,
                times[i],
                (load_before, load_after),
                values[i],
                errors[i],
            )
        )
    return out


def row_load(m: Interleaved) -> str:
    """The 1-minute load average before and after a row's rounds, for a table cell."""
    return f"{m.load[0]:.1f} / {m.load[1]:.1f}"


def load_line(before: tuple[float, ...], after: tuple[float, ...]) -> str:
    """The load average (1, 5, 15 min) at the start and at the end of a script."""

    def fmt(load: tuple[float, ...]) -> str:
        return "/".join(f"{x:.2f}" for x in load)

    return (
        f"- load average (1, 5, 15 min) {fmt(before)} at the start and {fmt(after)} "
        f"at the end of the run ({os.cpu_count()} cores; other work on the machine "
        "inflates the times)"
    )


def environment() -> str:
    """One line naming where and when a section was measured: the date, the CPU
    and its widest vector extension, receval's compiled core and its threads.

    The machine in full (every extension, memory, OS, library versions) is the
    header that ``benchmarks/run_all.py`` writes at the top of the page
    (:func:`machine`); this line lets a reader see that a section re-run alone
    came from the same machine, or not.
    """
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    widest = vector_extensions()[-1:] or ["no vector extension listed"]
    return (
        f"- measured {when} on {_cpu_model()} ({os.cpu_count()} cores, "
        f"{widest[0]}); receval {_receval_core()}"
    )


# The vector extensions that decide which kernels run, in the order of their width;
# /proc/cpuinfo's "flags" (x86) or "Features" (Arm) names them.
VECTOR_FLAGS = (
    "sse4_2",
    "avx",
    "fma",
    "avx2",
    "avx512f",
    "avx512dq",
    "avx512cd",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "asimd",
    "sve",
    "sve2",
)


def cpu_flags() -> set[str]:
    """The feature flags of the first CPU in ``/proc/cpuinfo`` (empty elsewhere)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                key = line.split(":", 1)[0].strip()
                if key in ("flags", "Features"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def vector_extensions() -> list[str]:
    """The vector extensions of :data:`VECTOR_FLAGS` this CPU has, narrowest first."""
    flags = cpu_flags()
    return [flag for flag in VECTOR_FLAGS if flag in flags]


#: The CPU flags of the core's AVX-512 kernels (``rust/src/simd.rs``).
AVX512 = {"avx2", "avx512f", "avx512bw", "avx512dq", "avx512vl"}


def core_paths() -> str:
    """Which of the compiled core's SIMD paths run on this machine.

    The core chooses at run time (``rust/src/simd.rs``): its AVX2 kernels where
    the CPU has AVX2, its AVX + FMA kernels where it has both, its AVX-512 kernels
    (the log loss's) where it has AVX-512 F, BW, DQ and VL with AVX2, the scalar twin
    of each otherwise or when ``RECEVAL_FORCE_SCALAR`` is set (not empty, not ``0``).
    The compiler vectorizes the rest for the baseline target (SSE2 on x86-64).
    """
    forced = os.environ.get("RECEVAL_FORCE_SCALAR", "") not in ("", "0")
    if forced:
        return "scalar paths (RECEVAL_FORCE_SCALAR is set)"
    flags = cpu_flags()
    paths = []
    if "avx2" in flags:
        paths.append("AVX2")
    if "avx" in flags and "fma" in flags:
        paths.append("AVX + FMA")
    if not paths:
        return "scalar paths (the CPU has neither AVX2 nor AVX + FMA)"
    if AVX512 <= flags:
        return " and ".join(paths) + " and AVX-512 paths (chosen at run time; AVX-512: log loss)"
    return " and ".join(paths) + " paths (chosen at run time; the CPU lacks the core's AVX-512)"


def numpy_simd() -> str:
    """NumPy's run-time SIMD dispatch: the widest target it found on this CPU."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as found
    except ImportError:  # NumPy 1.x
        try:
            from numpy.core._multiarray_umath import __cpu_features__ as found
        except ImportError:
            return "unknown"
    have = [name for name, on in found.items() if on]
    wide = [name for name in have if name.startswith(("AVX512", "X86_V", "SVE", "ASIMD"))]
    return ", ".join(wide or have[-3:]) or "none"


def score_sorts() -> str:
    """Which sort orders the binary metrics' classes on this CPU
    (``receval._kernels.sort_numbers``)."""
    from receval._kernels import numpy_sort_is_slow

    if numpy_sort_is_slow():
        return (
            "receval's radix sort (NumPy's AVX-512 sort is several times slower than "
            "its AVX2 sort on this CPU: AMD Zen 4)"
        )
    return "NumPy's"


# Libraries whose versions the page records (distribution names).
LIBRARIES = (
    "numpy",
    "pyarrow",
    "pandas",
    "polars",
    "scikit-learn",
    "scipy",
    "pytrec-eval-terrier",
    "ranx",
    "numba",
    "pyspark",
    "torchmetrics",
)


def machine() -> list[str]:
    """The machine in full, one Markdown list item per line: CPU, vector
    extensions, what receval's core and NumPy dispatch to, memory, OS, versions."""
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    extensions = vector_extensions()
    avx512 = any(flag.startswith("avx512") for flag in extensions)
    return [
        f"- CPU: {_cpu_model()}, {platform.machine()}, {os.cpu_count()} cores "
        f"(the ones this process may use: {len(os.sched_getaffinity(0))})",
        f"- vector extensions (`/proc/cpuinfo`): {', '.join(extensions) or 'none listed'}"
        + ("" if avx512 or platform.machine() != "x86_64" else " (no AVX-512)"),
        f"- receval's compiled core: {core_paths()}",
        f"- NumPy's SIMD dispatch on this CPU: {numpy_simd()}",
        f"- sorts of float scores (the AUC family's classes): {score_sorts()}",
        f"- memory: {_mem_total_gib():.0f} GiB; OS: {platform.platform()}",
        f"- Python {platform.python_version()}; receval {_receval_core()}",
        f"- libraries: {', '.join(versions)}",
    ]


def command_line() -> str:
    """The command that ran this script, as typed from the repository root (for the
    section's "Reproduce" line: the scale the figures were measured at)."""
    import shlex

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = "benchmarks/" + os.path.basename(sys.argv[0])
    args = [
        os.path.relpath(a, root) if os.path.isabs(a) and a.startswith(root + os.sep) else a
        for a in sys.argv[1:]
    ]
    return shlex.join(["python", script, *args])


def peer_versions(*names: str) -> str:
    """A line naming the installed versions of peers (distribution names); ranx's
    kernels are numba's, whose version is added when ranx is named."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in names:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} (not installed)")
    if "ranx" in names:
        try:
            found[names.index("ranx")] += f" (its kernels: numba {version('numba')})"
        except PackageNotFoundError:
            pass
    return "- peers: " + ", ".join(found)


def _receval_core() -> str:
    try:
        import receval
        from receval._kernels import compiled, num_threads
    except ImportError:  # pragma: no cover
        return "(not importable)"
    version = getattr(receval, "__version__", "?")
    try:
        compiled()
    except ImportError:
        return f"{version}, compiled core not built"
    env = os.environ.get("RECEVAL_NUM_THREADS")
    source = f"RECEVAL_NUM_THREADS={env}" if env else "the cores available"
    return f"{version}, compiled Rust core `receval._core`, {num_threads()} threads ({source})"


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


def compile_package() -> None:
    """Write receval's bytecode, as an installed package has it.

    With ``PYTHONDONTWRITEBYTECODE`` set, every process a benchmark starts would
    compile the checkout's modules anew and time the compiler, not the start-up.
    """
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("receval")
    assert spec is not None and spec.submodule_search_locations
    compileall.compile_dir(spec.submodule_search_locations[0], quiet=1)


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


def write_section(
    name: str,
    title: str,
    text: str,
    table: list[str],
    *,
    peers: tuple[str, ...] = (),
    load: tuple[tuple[float, ...], tuple[float, ...]],
    after: str = "",
    out: str | None = None,
    print_only: bool = False,
) -> None:
    """Rewrite a script's section ``name`` of ``docs/benchmarks.md`` (or ``out``).

    The section is the ``## title``, the command that reproduces it followed by
    ``text`` (what was measured, how), the machine (:func:`environment`), the
    peers' versions (:func:`peer_versions`), the load average at the start and
    the end (``load``), the ``table`` lines and ``after``. ``print_only`` (a
    ``--quick`` run): the section is printed, the page left as it is.
    """
    lines = [environment()]
    if peers:
        lines.append(peer_versions(*peers))
    lines.append(load_line(*load))
    body = "\n\n".join(
        part
        for part in [
            f"## {title}",
            f"Reproduce: `{command_line()}` {text.strip()}",
            "\n".join(lines),
            "\n".join(table),
            after.strip(),
        ]
        if part
    )
    if print_only:
        print(body)
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = out or os.path.join(root, "docs", "benchmarks.md")
    replace_section(path, name, body + "\n")
    print(f"wrote {path}")
