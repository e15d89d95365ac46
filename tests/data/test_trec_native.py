"""The compiled TREC reader against the Arrow reader on fuzzed files: the same
containers, or the same error (file:line and message)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import receval._kernels as kernels
from receval.data._ranked import Qrels, Run
from receval.exceptions import InputValidationError

pytestmark = pytest.mark.skipif(kernels.compiled() is None, reason="receval._core is not built")

WORDS = ["q1", "q2", "Q0", "d1", "d2", "d10", "007", "7", "a-b", "x.y", "é"]
NUMBERS = ["0", "1", "2", "-1", "+3", "1.5", "0.25", "-0.0", "1e3", ".5", "5.", "inf", "-inf",
           "nan", "NaN", "x", "1,5", "1e", "--1", "0x10"]  # fmt: skip
SPACES = [" ", "  ", "\t", " \t "]


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


def _read(cls, path, native, monkeypatch):
    with monkeypatch.context() as m:
        if not native:
            m.setattr(kernels, "compiled", lambda: None)
        try:
            return cls.from_trec(path)
        except InputValidationError as exc:
            return str(exc)


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
def test_native_reader_equals_the_arrow_reader(tmp_path, monkeypatch, seed, kind):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    lines = [_line(rng, kind) for _ in range(n)]
    eol = "\r\n" if seed % 5 == 0 else "\n"
    text = eol.join(lines) + (eol if rng.random() < 0.7 else "")
    path = tmp_path / (f"{kind}.txt.gz" if seed % 4 == 0 else f"{kind}.txt")
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if seed % 4 == 0 else data)
    cls = Qrels if kind == "qrels" else Run
    _same(_read(cls, path, True, monkeypatch), _read(cls, path, False, monkeypatch))


def test_native_reader_on_the_trec_eval_test_files(monkeypatch):
    base = "tests/peers/data/trec_eval/"
    for cls, name in [(Qrels, "qrels.test"), (Qrels, "qrels.123.gz"), (Run, "results.test")]:
        _same(
            _read(cls, base + name, True, monkeypatch), _read(cls, base + name, False, monkeypatch)
        )


def test_native_reader_names_a_missing_file(tmp_path):
    with pytest.raises(InputValidationError, match="no such file"):
        Qrels.from_trec(tmp_path / "absent.txt")


@pytest.mark.parametrize("seed", range(20))
def test_small_lookup_equals_the_arrow_lookup(monkeypatch, seed):
    """String ids (and int ids against string ids, compared as decimal strings)."""
    from receval.data import _encode

    rng = np.random.default_rng(seed)

    def ids(n, kind):
        if kind == "int":
            return rng.choice([7, 8, 100, 0], n).astype(np.int64)
        return np.array(rng.choice(["7", "07", "a", "b", "100", "é"], n), dtype=object)

    kinds = [("str", "str"), ("int", "str"), ("str", "int")][seed % 3]
    values, dictionary = ids(30, kinds[0]), ids(int(rng.integers(1, 9)), kinds[1])
    small = _encode.lookup(values, dictionary)
    monkeypatch.setattr(_encode, "_lookup_small", lambda v, d: None)
    assert np.array_equal(small, _encode.lookup(values, dictionary))
