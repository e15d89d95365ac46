"""``receval trec-eval``'s notes on stderr: what trec_eval leaves out silently is
counted and said, stdout staying trec_eval's, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from receval.cli import app
from tests.cli._helpers import make_runner

QRELS = "q1 0 d1 1\nq1 0 d2 0\n"
RUN = "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.4 r\n"
# q9 and q8: queries of the run that the qrels do not judge
RUN_ONLY = RUN + "q9 Q0 d1 1 0.3 r\nq8 Q0 d3 1 0.2 r\nq8 Q0 d1 2 0.1 r\n"


def _invoke(tmp_path: Path, run: str, *options: str, qrels: str = QRELS):
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    argv = ["trec-eval", "-m", "map", *options, str(tmp_path / "qrels"), str(tmp_path / "run")]
    return make_runner().invoke(app, argv)


@pytest.mark.parametrize("options", [(), ("-q",), ("-M", "0"), ("-c", "-J")])
def test_run_queries_absent_from_the_qrels_are_noted(tmp_path, options):
    result = _invoke(tmp_path, RUN_ONLY, *options)
    assert result.exit_code == 0
    assert result.stdout == _invoke(tmp_path, RUN, *options).stdout  # as trec_eval: ignored
    assert result.stderr == (
        f"note: {tmp_path / 'run'}: 2 run queries are not in the qrels (ignored, as "
        f"trec_eval ignores them).\n"
    )


def test_no_note_when_every_run_query_is_judged(tmp_path):
    result = _invoke(tmp_path, RUN)
    assert result.exit_code == 0 and result.stderr == ""


def test_the_note_of_judgment_groups_and_a_run_from_standard_input(tmp_path):
    (tmp_path / "qrels").write_text("q1 amy d1 1\nq1 bob d2 1\n")
    argv = ["trec-eval", "-R", "qrels_jg", "-m", "map_avgjg", str(tmp_path / "qrels"), "-"]
    result = make_runner().invoke(app, argv, input=RUN_ONLY)
    assert result.exit_code == 0 and result.stdout.startswith("map_avgjg")
    assert result.stderr == (
        "note: <stdin>: 2 run queries are not in the qrels (ignored, as trec_eval ignores them).\n"
    )
