"""Retention: receval.retention against the straightforward pandas version, in one process.

    python benchmarks/bench_retention.py                  # 50M events / 5M users, rewrites docs
    python benchmarks/bench_retention.py --quick          # 1M events / 100k users, print only
    python benchmarks/bench_retention.py --events 5000000 --out /tmp/bench.md

Daily cohorts over 60 days in America/New_York (the window holds the 23-hour
day of 2024-03-10), with day-1/3/7/30 retention and the full cohort table.
The pandas peer is ``tests/oracles/retention.py::retention_pandas``
(tz_convert, floor to the local day, drop_duplicates, groupby); every table
of both results is compared. The two tools are timed in turn (A B A B ...), the
same number of runs each (``--runs``), medians. Needs the ``bench`` extra:
pip install -e '.[bench]'.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import tempfile
from zoneinfo import ZoneInfo

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.oracles.retention import retention_pandas

import receval
from _harness import interleaved, load_line, row_load, write_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N_DAYS = 60
TZ = "America/New_York"
DAYS = (1, 3, 7, 30)
COMPARED = (
    "periods",
    "new_users",
    "login_users",
    "returning_users",
    "login_users_per_new_user",
    "cohort_counts",
    "cohort_retention",
    "day_n_retention",
)


def local_midnights() -> np.ndarray:
    """UTC second of each local midnight of the 60 days in ``TZ`` (and of the day after)."""
    zone = ZoneInfo(TZ)
    first = dt.date(2024, 2, 15)
    return np.array(
        [
            int(dt.datetime.combine(first + dt.timedelta(days=d), dt.time(), zone).timestamp())
            for d in range(N_DAYS + 1)
        ],
        dtype=np.int64,
    )


def make_events(n_events: int, n_users: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """User ids (int64) and UTC epoch seconds of an activity log, in time order.

    Each user's first day is uniform over the 60 local days; each event picks
    a user uniformly (about ``n_events / n_users`` events each) and lands a
    geometric number of days (p = 0.15) after the user's first day, wrapped
    into the days left in the window, at a uniform time of that local day (23
    hours long on 2024-03-10). User ids are a random permutation of 1..n_users.
    """
    rng = np.random.default_rng(seed)
    midnights = local_midnights()
    first = rng.integers(0, N_DAYS, n_users)
    ids = rng.permutation(n_users).astype(np.int64) + 1
    user = rng.integers(0, n_users, n_events)
    f = first[user]
    day = f + (rng.geometric(0.15, n_events) - 1) % (N_DAYS - f)
    del f
    length = midnights[day + 1] - midnights[day]
    seconds = midnights[day] + (rng.random(n_events) * length).astype(np.int64)
    del day, length
    order = np.argsort(seconds, kind="stable")
    return ids[user[order]], seconds[order]


def fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def agree(report, expected: dict) -> bool:
    for name in COMPARED:
        a, b = np.asarray(getattr(report, name)), np.asarray(expected[name])
        if a.shape != b.shape or not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
            print(f"MISMATCH in {name}", flush=True)
            return False
    return True


def run(n_events: int, n_users: int, runs: int, long_s: float) -> tuple[list[str], list[str]]:
    import pandas as pd

    users, seconds = make_events(n_events, n_users)
    frame = pd.DataFrame({"user": users, "time": pd.to_datetime(seconds, unit="s")})
    # lazy imports and first calls of both tools outside the clock, on a small input
    receval.retention(frame.iloc[:1000], tz=TZ, days=DAYS)
    retention_pandas(frame.iloc[:1000], tz=TZ, days=DAYS)

    ours, theirs = interleaved(
        [
            lambda: receval.retention(frame, tz=TZ, days=DAYS),
            lambda: retention_pandas(frame, tz=TZ, days=DAYS),
        ],
        runs,
        warmup=False,
        long_s=long_s,
    )
    print(f"receval: {ours.seconds:.3f} s, {ours.peak_extra_mib:.0f} MiB", flush=True)
    print(f"pandas:  {theirs.seconds:.3f} s, {theirs.peak_extra_mib:.0f} MiB", flush=True)
    same = agree(ours.value, theirs.value)
    report = ours.value
    del theirs.value, theirs.values, ours.values

    label = f"{n_events / 1e6:g}M events, {n_users / 1e6:g}M users"
    lines = [
        row(
            [
                f"{label}, pandas DataFrame (int64 users, datetime64 times), daily, {TZ}",
                len(ours.runs),
                fmt_s(ours.seconds),
                fmt_s(theirs.seconds),
                f"**{theirs.seconds / ours.seconds:.0f}x**",
                f"{ours.peak_extra_mib:.0f}",
                f"{theirs.peak_extra_mib:.0f}",
                "identical" if same else "**differ**",
                row_load(ours),
            ]
        )
    ]

    def alone(call):
        (m,) = interleaved([call], runs, warmup=False, long_s=long_s)
        return m

    extra = []
    events = {"user": users, "time": seconds}
    for name, call in [
        ("epoch-second arrays, daily, UTC", lambda: receval.retention(events, days=DAYS)),
        (
            f"epoch-second arrays, weekly, {TZ}",
            lambda: receval.retention(events, tz=TZ, period="week", days=(1, 2, 4)),
        ),
    ]:
        m = alone(call)
        extra.append(
            row(
                [
                    f"{label}, {name}",
                    len(m.runs),
                    fmt_s(m.seconds),
                    f"{m.peak_extra_mib:.0f}",
                    row_load(m),
                ]
            )
        )
        print(extra[-1], flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "events.parquet")
        frame.to_parquet(path, index=False)
        size = os.path.getsize(path) / 2**20
        m = alone(lambda: receval.retention(path, tz=TZ, days=DAYS))
        extra.append(
            row(
                [
                    f"{label}, Parquet file ({size:.0f} MiB, read included), daily, {TZ}",
                    len(m.runs),
                    fmt_s(m.seconds),
                    f"{m.peak_extra_mib:.0f}",
                    row_load(m),
                ]
            )
        )
        print(extra[-1], flush=True)
        m = alone(lambda: receval.retention(receval.scan(path, progress=False), tz=TZ, days=DAYS))
        if not agree(m.value, {f: getattr(report, f) for f in COMPARED}):
            raise SystemExit("retention of receval.scan(path) differs from in memory")
        extra.append(
            row(
                [
                    f"{label}, the same file through `receval.scan(path)` (out of core: "
                    f"batches of 4M events, 2 passes), daily, {TZ}",
                    len(m.runs),
                    fmt_s(m.seconds),
                    f"{m.peak_extra_mib:.0f}",
                    row_load(m),
                ]
            )
        )
        print(extra[-1], flush=True)
    summary = (
        f"day-1/3/7/30 retention of the first cohort: "
        f"{', '.join(f'{x:.3f}' for x in report.day_n_retention[0])}; "
        f"{report.n_periods} periods, {report.n_users:,} users"
    )
    print(summary, flush=True)
    return lines, [*extra, "", summary]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1M events, print only")
    parser.add_argument("--events", type=int, default=50_000_000, help="number of events")
    parser.add_argument("--users", type=int, default=None, help="default: events / 10")
    parser.add_argument("--runs", type=int, default=3, help="timed runs of every tool per row")
    parser.add_argument(
        "--long-s",
        type=float,
        default=120.0,
        help="a row where a run took longer than this has one run of every tool",
    )
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    args = parser.parse_args()
    n_events = 1_000_000 if args.quick else args.events
    n_users = args.users or max(1, n_events // 10)
    load_before = os.getloadavg()
    lines, extra = run(n_events, n_users, args.runs, args.long_s)
    load_after = os.getloadavg()
    head = [
        row(
            [
                "case",
                "runs",
                "receval (s)",
                "pandas (s)",
                "speed-up",
                "receval peak extra (MiB)",
                "pandas peak extra (MiB)",
                "tables",
                "load before / after",
            ]
        ),
        row(["---"] * 9),
    ]
    extra_head = [
        row(
            [
                "case (receval only)",
                "runs",
                "receval (s)",
                "peak extra (MiB)",
                "load before / after",
            ]
        ),
        row(["---"] * 5),
    ]
    table = "\n".join(head + lines)
    print(table)
    print(load_line(load_before, load_after))
    if args.quick:
        return
    text = f"""(needs `pip install -e '.[bench]'`;
writes this section; `--quick` runs 1M events and prints only). Both tools
start from the same pandas DataFrame in one process and compute new, login and
active users per day, day-1/3/7/30 retention and the full cohort x day table,
with days starting at local midnight in {TZ}. The two tools are timed in
turn (receval, pandas, receval, pandas, ...), the same number of runs each
({args.runs}, or 1 for both where a run took more than {args.long_s:g} s; the
"runs" column), times are the medians; both are called once on 1,000 events
first (lazy imports, first calls). The receval-only rows take the same number
of runs. Peak extra memory is the largest rise of the resident high-water mark
during a call; the load column is the 1-minute load average before and after
the row's runs. "tables" compares every array of both results exactly.

Data (`make_events` in the script, seed 0): {n_events:,} events of {n_users:,}
users over 60 days from 2024-02-15 (the window holds the 23-hour day of the
switch to daylight saving time); each user's first day is uniform, later
events fall a geometric number of days (p = 0.15) after it; rows are in time
order; user ids are int64."""
    after = f"""{chr(10).join(extra_head + extra)}

The pandas peer (`retention_pandas` in `tests/oracles/retention.py`) is the
code an analyst would write: `tz_convert` then floor to the local day,
`drop_duplicates` on (user, day), the first day per user with
`groupby().transform("min")`, and `groupby([cohort, offset]).size()`.
receval assigns local days with one pass over a table of DST-correct
midnights, encodes users to dense codes, sets one bit per (user, day) in a
per-user bitset (no sort, no hash of pairs) and counts cohorts from the bits.
"""
    write_section(
        "retention",
        "Retention",
        text,
        table.splitlines(),
        load=(load_before, load_after),
        after=after,
        out=args.out,
    )


if __name__ == "__main__":
    main()
