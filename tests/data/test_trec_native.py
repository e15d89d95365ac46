"""The compiled TREC reader of qrels and runs against the whitespace-table reader of
the other TREC files (judgment groups, preferences: Arrow's string kernels) on fuzzed
files: the same containers, or the same error (file:line and message)."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import receval._kernels as kernels
from receval.data import io
from receval.data._ranked import Qrels, Run
from receval.exceptions import InputValidationError

WORDS = ["q1", "q2", "Q0", "d1", "d2", "d10", "007", "7", "a-b", "x.y", "é"]
NUMBERS = ["0", "1", "2", "-1", "+3", "1.5", "0.25", "-0.0", "1e3", ".5", "5.", "inf", "-inf",
           "nan", "NaN", "x", "1,5", "1e", "--1", "0x10"]  # fmt: skip
SPACES = [" ", "  ", "\t", " \t "]
COMPRESS = {
    "plain": lambda b: b,
    "gzip": lambda b: gzip.compress(b, 1),
    "bzip2": lambda b: bz2.compress(b, 1),
    "xz": lambda b: lzma.compress(b, preset=0),
}


def _line(rng, kind):
    n = 4 if kind == "qrels" else 6
    r = rng.random()
    if r < 0.03:
        return ""
    if r < 0.06:
        return "# a comment " + rng.choice(WORDS)
    if r < 0.08:
        n += int(rng.choice([-2, -1, 1, 2]))  # a wrong number of fields (or extra ones)
    fields = []
    for j in range(max(n, 0)):
        numeric = (kind == "qrels" and j == 3) or (kind == "run" and j in (3, 4))
        if numeric and rng.random() < 0.9:
            fields.append(str(rng.choice(NUMBERS[:7] if rng.random() < 0.85 else NUMBERS)))
        else:
            fields.append(str(rng.choice(WORDS)))
    sep = [str(rng.choice(SPACES)) for _ in fields]
    text = "".join(s + f for s, f in zip(sep, fields, strict=True))
    return text.strip() if rng.random() < 0.7 else text + " "


def _read(cls, path):
    try:
        return cls.from_trec(path)
    except InputValidationError as exc:
        return str(exc)


def _read_by_table(cls, path):
    """``cls`` (Qrels or Run) of the file's fields as the whitespace-table reader
    splits them and ``parse_numbers`` reads them, its errors named as the TREC
    readers name them; or the error's message."""
    path = str(path)
    try:
        with io.located(path, "trec"):
            return _by_table(cls, path)
    except InputValidationError as exc:
        return str(exc)


def _by_table(cls, path):
    if cls is Qrels:
        (users, _, items, grades), lines = io.read_whitespace_table(
            path, 4, "user iteration item grade"
        )
        io.check_trec_rows(path, len(lines), "qrels")
        return Qrels(users, items, io.parse_numbers(grades, path, lines, "grade", True))
    (users, _, items, _, scores, tags), lines = io.read_whitespace_table(
        path, 6, "user Q0 item rank score tag", extra_fields=True
    )
    io.check_trec_rows(path, len(lines), "run")
    s = io.parse_numbers(scores, path, lines, "score", integer=False)
    if not np.isfinite(s).all():
        i = int(np.flatnonzero(~np.isfinite(s))[0])
        raise io.not_finite_score(path, int(lines[i]), scores[i].as_py())
    return Run(users, items, s, name=tags[-1].as_py() if len(tags) else None)


def _same(a, b):
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    for name in ("user_ids", "item_ids", "offsets", "items", "grades", "scores", "name"):
        if hasattr(a, name):
            x, y = getattr(a, name), getattr(b, name)
            if isinstance(x, np.ndarray):
                assert x.dtype.kind == y.dtype.kind and np.array_equal(x, y), name
            else:
                assert x == y, name


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_native_reader_equals_the_table_reader(tmp_path, seed, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    lines = [_line(rng, kind) for _ in range(n)]
    eol = "\r\n" if seed % 5 == 0 else "\n"
    text = eol.join(lines) + (eol if rng.random() < 0.7 else "")
    codec = ["gzip", "plain", "bzip2", "plain", "xz"][seed % 5]  # read by the core, or fed to it
    path = tmp_path / f"{kind}.txt"
    path.write_bytes(COMPRESS[codec](text.encode("utf-8")))
    cls = Qrels if kind == "qrels" else Run
    _same(_read(cls, path), _read_by_table(cls, path))


def _large_text(rng, kind, n_users, grouped):
    """Lines of ``n_users`` users with 40 distinct items each; users in runs, or
    the lines shuffled (then every user comes back: not grouped)."""
    long = "clueweb09-en0000-00-"
    lines = []
    for u in range(n_users):
        uid = f"{long}{u}" if u % 5 == 0 else f"u{u}"
        items = rng.choice(30_000, 40, replace=False)
        for r, i in enumerate(items):
            iid = f"{long}{i}" if i % 3 == 0 else f"i{i}"
            if kind == "qrels":
                lines.append(f"{uid} 0 {iid} {int(rng.integers(-1, 4))}")
            else:
                digits = int(rng.integers(1, 18))
                lines.append(f"{uid} Q0 {iid} {r + 1} {rng.random():.{digits}f} t")
    if not grouped:
        rng.shuffle(lines)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("grouped", [True, False])
def test_native_reader_on_a_file_of_several_windows(tmp_path, kind, grouped):
    """Megabytes: read in windows and parallel pieces, users as offsets
    (grouped) or as codes; plain and gzip (the core's), bzip2 (fed to it)."""
    rng = np.random.default_rng(7)
    data = _large_text(rng, kind, 4_000, grouped).encode()
    assert len(data) > 2 << 20  # a first window of 1 MiB, then one in two parallel pieces
    cls = Qrels if kind == "qrels" else Run
    for codec in ("plain", "gzip", "bzip2"):
        path = tmp_path / f"big.{codec}"
        path.write_bytes(COMPRESS[codec](data))
        native = _read(cls, path)
        assert not isinstance(native, str), native
        _same(native, _read_by_table(cls, path))


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd")
@pytest.mark.parametrize("compress", [False, True])
def test_native_reader_reads_a_pipe(tmp_path, compress):
    """A pipe (``--run <(zcat run.gz)``) cannot be mapped nor seeked: it is streamed."""
    data = _large_text(np.random.default_rng(9), "run", 300, False).encode()
    raw = gzip.compress(data) if compress else data
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    read, write = os.pipe()

    def feed() -> None:
        with open(write, "wb") as fh:
            fh.write(raw)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        piped = _read(Run, f"/dev/fd/{read}")
    finally:
        writer.join()
        os.close(read)
    _same(piped, _read(Run, path))


def test_native_reader_names_the_first_bad_line_of_a_large_file(tmp_path):
    rng = np.random.default_rng(8)
    lines = _large_text(rng, "run", 4_000, True).splitlines()
    lines[150_000] = lines[150_000].replace(" t", " 1e999 t")  # not finite, late
    lines[120_000] = lines[120_000].replace(" Q0 ", " Q0 x ", 1).rsplit(" ", 3)[0]  # fields
    lines[20_000] = lines[20_000].rsplit(" ", 2)[0] + " abc t"  # not a number, early
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n")
    native = _read(Run, path)
    assert native == _read_by_table(Run, path)
    assert native.startswith(f"{path}:120001: expected at least 6")


def test_native_reader_on_the_trec_eval_test_files():
    base = "tests/peers/data/trec_eval/"
    for cls, name in [(Qrels, "qrels.test"), (Qrels, "qrels.123.gz"), (Run, "results.test")]:
        _same(_read(cls, base + name), _read_by_table(cls, base + name))


def test_native_reader_names_a_missing_file(tmp_path):
    with pytest.raises(InputValidationError, match="no such file"):
        Qrels.from_trec(tmp_path / "absent.txt")


@pytest.mark.parametrize("seed", range(20))
def test_small_lookup_equals_the_arrow_lookup(monkeypatch, seed):
    """String ids (and int ids against string ids, compared as decimal strings)."""
    from receval.data import _lookup

    rng = np.random.default_rng(seed)

    def ids(n, kind):
        if kind == "int":
            return rng.choice([7, 8, 100, 0], n).astype(np.int64)
        return np.array(rng.choice(["7", "07", "a", "b", "100", "é"], n), dtype=object)

    kinds = [("str", "str"), ("int", "str"), ("str", "int")][seed % 3]
    values, dictionary = ids(30, kinds[0]), ids(int(rng.integers(1, 9)), kinds[1])
    small = _lookup.lookup(values, dictionary)
    monkeypatch.setattr(_lookup, "_lookup_small", lambda v, d: None)
    monkeypatch.setattr(_lookup, "lookup_strings", lambda v, d: None)
    assert np.array_equal(small, _lookup.lookup(values, dictionary))


def test_grouped_ids_stand_for_their_codes():
    from receval.data._encode import EncodedIds, factorize, int_runs

    uniques = np.array(["b", "a", "c"], dtype=object)
    ids = EncodedIds(None, uniques, offsets=np.array([0, 2, 3, 6]))
    assert len(ids) == 6
    codes, got = factorize(ids, "users", "Run")
    assert codes.tolist() == [0, 0, 1, 2, 2, 2] and got is uniques
    offsets, got = int_runs(ids)
    assert offsets.tolist() == [0, 2, 3, 6] and got is uniques


@given(
    st.lists(st.text(max_size=4), max_size=40),
    st.lists(st.text(alphabet="ab7é0", max_size=3), max_size=40),
)
def test_str_lookup_of_the_core_equals_the_arrow_lookup(values, dictionary):
    """The first of equal ids, -1 where absent; None for an element that is not a
    str or not UTF-8 (a lone surrogate): the other paths compare those."""
    from receval.data._strings import lookup_strings

    def as_array(xs: list) -> np.ndarray:
        out = np.empty(len(xs), dtype=object)
        out[:] = xs
        return out

    v, d = as_array(values + dictionary[:3]), as_array(dictionary)
    found = lookup_strings(v, d)
    assert found is not None and found.dtype == np.int32
    if len(v) and len(d):
        import pyarrow as pa
        import pyarrow.compute as pc

        arrow = pc.index_in(pa.array(v.tolist()), value_set=pa.array(d.tolist()))
        assert found.tolist() == arrow.fill_null(-1).to_pylist()
    assert lookup_strings(as_array([*values, 7]), d) is None
    assert lookup_strings(as_array([*values, "\ud800"]), d) is None
    assert lookup_strings(v, as_array([*dictionary, b"x"])) is None


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "doc-", "clueweb09-en00", "aaaaaaa", "aaaaaaaa"]),
            st.text(alphabet="ab7\u00e9\U0001f600 ", max_size=3),
        ).map("".join),
        max_size=40,
    )
)
def test_str_ranks_of_the_core_equal_numpy_argsort(ids):
    """trec_eval's tie-break: the rank of each item id in string order (stable);
    ids of up to 17 characters sharing their first 8 bytes or not."""
    arr = np.empty(len(ids), dtype=object)
    arr[:] = ids
    got = kernels.compiled().str_ranks(arr)
    want = np.empty(len(ids))
    want[np.argsort(np.array(ids, dtype=str), kind="stable")] = np.arange(len(ids))
    assert got.dtype == np.float64 and got.tolist() == want.tolist()


def test_str_ranks_leave_other_ids_to_numpy():
    core = kernels.compiled()
    for ids in (["a", 7], ["a", "b\x00"], ["a", "\ud800"]):
        arr = np.empty(len(ids), dtype=object)
        arr[:] = ids
        assert core.str_ranks(arr) is None
