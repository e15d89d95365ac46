"""A mutation fuzzer over the file readers and the command line: valid TREC, CSV,
gzip and Parquet files with bytes flipped, inserted, deleted or cut off must be read
or refused with a receval error (never another exception), and the command line
must answer such files with exit 0 or 2 and at most one ``error:`` line.

Fixed seeds (hypothesis' derandomised search), a bounded number of cases."""

from __future__ import annotations

import gzip
import io
import warnings

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import receval as rv

RUN = b"".join(
    f"q{u} Q0 d{i} {r} {1.0 / (r + 1):.6f} model\n".encode()
    for u in range(3) for r, i in enumerate(range(u, u + 5))
)  # fmt: skip
QRELS = b"".join(f"q{u} 0 d{i} {i % 3}\n".encode() for u in range(3) for i in range(u, u + 4))
CSV = b"user,item,score\n" + b"".join(
    f"u{u},i{i},{0.1 * i:.3f}\n".encode() for u in range(3) for i in range(4)
)


def _parquet() -> bytes:
    sink = io.BytesIO()
    table = pa.table({"user": [1, 1, 2, 2], "item": [1, 2, 1, 3], "score": [0.5, 0.4, 0.3, 0.2]})
    pq.write_table(table, sink, row_group_size=2)
    return sink.getvalue()


SOURCES = {
    "run.txt": (RUN, rv.Run.from_file),
    "qrels.txt": (QRELS, rv.Qrels.from_file),
    "run.csv": (CSV, rv.Run.from_file),
    "run.txt.gz": (gzip.compress(RUN, mtime=0), rv.Run.from_file),
    "run.csv.gz": (gzip.compress(CSV, mtime=0), rv.Run.from_file),
    "run.parquet": (_parquet(), rv.Run.from_file),
}


@st.composite
def mutated(draw, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "byte"]))
        at = draw(st.integers(0, max(len(b) - 1, 0)))
        if kind == "flip" and b:
            b[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte" and b:
            b[at] = draw(st.sampled_from([0, 9, 10, 13, 32, 43, 45, 46, 0x80, 0xC3, 0xFF]))
        elif kind == "insert":
            b[at:at] = draw(
                st.sampled_from([b" ", b"\n", b"\t", b"x", b"1e999", b"nan", b",", b"\0"])
            )
        elif kind == "delete" and b:
            del b[at : at + draw(st.integers(1, 8))]
        elif kind == "truncate":
            del b[at:]
    return bytes(b)


@pytest.mark.parametrize("name", list(SOURCES))
def test_mutated_files_are_read_or_refused(tmp_path_factory, name):
    data, reader = SOURCES[name]
    folder = tmp_path_factory.mktemp("fuzz")

    @settings(max_examples=120, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(mutated(data))
    def check(blob):
        path = folder / name
        path.write_bytes(blob)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                reader(str(path))
            except rv.RecevalError as exc:
                assert str(exc).strip(), "an empty message"
                assert "\n" not in str(exc).strip() or name.endswith("parquet")

    check()


@pytest.mark.parametrize("name", ["run.txt", "run.csv", "run.txt.gz", "run.csv.gz"])
def test_the_command_line_answers_mutated_runs_in_one_line(tmp_path_factory, name):
    from receval.cli import app
    from tests.cli._helpers import make_runner

    data, _ = SOURCES[name]
    folder = tmp_path_factory.mktemp("cli")
    qrels = folder / "qrels.txt"
    qrels.write_bytes(QRELS)
    runner = make_runner()

    @settings(max_examples=25, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(mutated(data))
    def check(blob):
        path = folder / name
        path.write_bytes(blob)
        result = runner.invoke(app, ["rank", "--qrels", str(qrels), "--run", str(path),
                                     "-m", "ndcg@10", "--format", "json"])  # fmt: skip
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        assert result.exit_code in (0, 2), result.stderr
        errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == (result.exit_code == 2)

    check()
