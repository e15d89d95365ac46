"""``receval retrieve``: each user's exact top k items from embedding files, as a run file;
and the embedding inputs ``receval rank`` retrieves a run from."""

# No ``from __future__ import annotations``: Typer reads the parameters' annotations.

import re
import sys
from contextlib import nullcontext
from typing import Annotated, Any

import typer

from .._parameters import counted
from ._common import ItemOption, QuietOption, UserOption, app
from ._params import Command
from ._streams import Messages

PANEL = "Embeddings"


def _vectors(flag: str, what: str) -> Any:
    return typer.Option(
        flag, metavar="FILE",
        help=f"{what}: a .npy file (float32, float16, float64; read block by block from "
        "disk) or a Parquet file with one fixed-size-list column (read in batches).",
        show_default=False, rich_help_panel=PANEL,
    )  # fmt: skip


def _ids(flag: str, what: str) -> Any:
    return typer.Option(
        flag, metavar="FILE",
        help=f"The id of each row of {what}: a .npy file, or a text file with one id per "
        "line. Default: the row numbers 0, 1, ...",
        show_default=False, rich_help_panel=PANEL,
    )  # fmt: skip


UserIdsOption = Annotated[str | None, _ids("--user-ids", "the user vectors")]
ItemIdsOption = Annotated[str | None, _ids("--item-ids", "the item vectors")]
VectorsOption = Annotated[
    str | None,
    typer.Option(
        metavar="FILE",
        help="The users' or the items' embeddings, .npy or Parquet: adds the run of their "
        "exact top k (receval retrieve; of --candidates if given).",
        show_default=False, rich_help_panel=PANEL,
    ),
]  # fmt: skip
RetrieveKOption = Annotated[
    int | None,
    typer.Option(
        "--k", min=1,
        help="Items retrieved per user (and ties at the k-th; default: the metrics' "
        "largest cutoff).",
        show_default=False, rich_help_panel=PANEL,
    ),
]  # fmt: skip
SimilarityOption = Annotated[
    str,
    typer.Option(
        "--similarity", metavar="[dot|cosine]", help="The score of a user and an item.",
        rich_help_panel=PANEL,
    ),
]  # fmt: skip


def read_ids(path: str | None, option: str, say: Messages) -> Any:
    """``--user-ids`` / ``--item-ids``: a .npy file or one id per line, read as the id
    columns of CSV files are: int64 when every id is an integer written as its digits,
    else the text of each line (``007``, ``1e3`` and ``true`` are ids as written)."""
    if path is None:
        return None
    import numpy as np

    from ..data._open import check_file, sentence

    with say.progress(f"Reading {say.sized(path)}…"):
        if path.endswith(".npy"):
            check_file(path)
            try:
                return np.load(path, allow_pickle=False)
            except (ValueError, EOFError) as exc:  # not a .npy file, cut short, or objects
                from ..exceptions import InputValidationError

                raise InputValidationError(
                    f"{option} {path}: expected a .npy file of ids (numbers or text) as "
                    f"numpy.save writes one. NumPy cannot read it: {sentence(exc)} Write the "
                    f"ids with numpy.save (not as objects), or one id per line in a text file."
                ) from None
        import pyarrow as pa
        import pyarrow.csv as csv

        from ..data._arrow import to_numpy
        from ..data._string_buffers import integer_strings

        check_file(path)
        table = csv.read_csv(
            path, read_options=csv.ReadOptions(column_names=["id"]),
            parse_options=csv.ParseOptions(delimiter="\x1f", ignore_empty_lines=False),
            convert_options=csv.ConvertOptions(column_types={"id": pa.string()}),
        )  # fmt: skip
        _check_no_empty_line(table.column(0), path, option)
        ints = integer_strings(table.column(0))
        return ints if ints is not None else to_numpy(table.column(0))


def _check_no_empty_line(ids: Any, path: str, option: str) -> None:
    """Refuse an id file with an empty line (an id left out would shift every id after it
    onto the wrong row of the vectors), naming the file and the line."""
    import numpy as np
    import pyarrow.compute as pc

    from ..data._arrow import to_numpy

    lengths = to_numpy(pc.utf8_length(ids))  # (a comparison with a Python 0 loads pandas)
    if len(lengths) and not lengths.all():
        from ..exceptions import InputValidationError

        line = int(np.argmin(lengths != 0)) + 1
        raise InputValidationError(
            f"{option} {path}:{line}: an empty line. Expected one id on every line (the id "
            "of each row of the vectors, in order); remove the line or write the row's id."
        )


#: The suffixes of the run files written as tables (columns user, item, score, rank);
#: any other name is a TREC run file.
TABLE_SUFFIXES = (".parquet", ".csv", ".tsv")


def check_trec_ids(ids: Any, path: str | None, option: str, output: str) -> None:
    """Refuse, before the retrieval, an id of ``--user-ids`` / ``--item-ids`` (``ids``,
    read from ``path``) that the TREC run file ``output`` cannot hold: an empty one, or
    one with a space, a tab or a line break, which would split it into other fields or
    lines (a reader would take the next field for the item, or the rank for the score)."""
    if ids is None or output.endswith(TABLE_SUFFIXES) or ids.dtype.kind not in "OUS":
        return
    import pyarrow.compute as pc

    from ..data._arrow import to_numpy

    text = _as_text(ids)
    bad = to_numpy(pc.match_substring_regex(text, r"^$|[ \t\r\n]"))
    if not bad.any():
        return
    from ..exceptions import InputValidationError

    row = int(bad.argmax())
    where = f"{path} (row {row})" if str(path).endswith(".npy") else f"{path}:{row + 1}"
    raise InputValidationError(
        f"retrieve: {option} must hold ids without spaces, tabs or line breaks, nor empty "
        f"ones, to be written to the TREC run file -o {output} (whitespace separates its "
        f"fields). Got {text[row].as_py()!r} at {where}; write the run as a .parquet, .csv "
        f"or .tsv file (-o run.parquet), or change the ids."
    )


def _as_text(ids: Any) -> Any:
    """Ids as an Arrow string array: NumPy bytes (a .npy file of ``S`` ids) as their
    UTF-8 text, as the CSV and Parquet run files and the evaluation read them."""
    import pyarrow as pa

    from ..data._arrow import to_arrow

    column = to_arrow(ids)
    if pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):
        return column.cast(pa.large_string())
    return column


def read_qrels(path: str, fmt: Any, user: str, item: str, grade: str) -> Any:
    """The qrels file of ``rank`` without ``--run``, read as ``--run`` files' qrels are
    (:func:`~receval.cli._ranked.read_qrels_runs`)."""
    from ..data._ranked import Qrels
    from ._common import ranked_format
    from ._ranked import format_option

    with format_option("--qrels-format"):
        return Qrels.from_file(path, user=user, item=item, grade=grade,
                               file_format=ranked_format(fmt, path))  # fmt: skip


def read_exclude(path: str | None, item_ids: Any, user: str, item: str, say: Messages) -> Any:
    """``retrieve --exclude``: a training log (TREC qrels or a CSV, TSV or Parquet file),
    its ids read as integers when the items' are."""
    if path is None:
        return None
    from ._items import ItemData

    integers = item_ids is None or item_ids.dtype.kind in "iu"
    return ItemData(exclude=path, user=user, item=item).load(integers, say)["exclude"]


def retrieved_run(users: str, items: str, k: int, say: Messages, *, item_ids: Any = None,
                  files: dict[str, str | None] | None = None, whole_ties: bool = False,
                  **options: Any) -> tuple[Any, dict[str, int], Any]:  # fmt: skip
    """The run of exact retrieval from the vector files (``options``: those of
    :func:`receval.retrieve`), with a progress line; ``whole_ties``: each list also
    holds every item tied with its k-th, as :func:`receval.evaluate_embeddings`
    retrieves them for an evaluation. Also the pairs of ``exclude`` and ``candidates``
    whose user or item has no vector, by the name of the report's count
    (``n_exclude_unmatched``, ``n_candidates_unmatched``; a note says how many, naming
    the option and its file in ``files``), and the ids of the items retrieved from
    (those an evaluation matches with the qrels', as
    :func:`receval.evaluate_embeddings` does)."""
    import os

    from ..retrieval.search import BLOCK_ITEMS, BLOCK_USERS, Search, catalogue

    options = {"block_users": BLOCK_USERS, "block_items": BLOCK_ITEMS, "candidates": None,
               **options}  # fmt: skip
    with say.progress(f"Retrieving the top {k} of {say.sized(items)} for {say.sized(users)}…"):
        search = Search(users, catalogue(items, item_ids, "retrieve"), k, func="retrieve",
                        whole_ties=whole_ties, **options)  # fmt: skip
        run = search.run(os.path.basename(items))
    for unmatched in search.unmatched.values():
        if unmatched.counts.n_unmatched:
            option = f"--{unmatched.argument} {(files or {}).get(unmatched.argument)}"
            say.note(say.in_cli_words(unmatched.text(option)))
    counts = {u.report_field: u.counts.n_unmatched for u in search.unmatched.values()}
    return run, counts, search.item_ids


def write_run(run: Any, path: str) -> None:
    """A run as a Parquet, CSV or TSV file (columns user, item, score, rank), or a TREC
    run file for any other suffix (``-``: on standard output), tagged with the run's
    name, each whitespace character in it written as ``_`` (the tag is one field of a
    line: ``my items.npy`` would be two)."""
    import numpy as np
    import pyarrow as pa

    lengths = np.diff(run.offsets)
    users = np.repeat(run.user_ids, lengths)
    ranks = np.arange(run.n_rows) - np.repeat(run.offsets[:-1], lengths) + 1
    from ..data._arrow import to_arrow  # NumPy str ids whole (Arrow cuts them at a NUL)

    items = run.item_ids[run.items]
    table = pa.table({"user": to_arrow(users), "item": to_arrow(items),
                      "score": to_arrow(run.scores), "rank": to_arrow(ranks)})  # fmt: skip
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        pq.write_table(table, path)
    elif path.endswith(TABLE_SUFFIXES):
        import pyarrow.csv as csv

        delimiter = "\t" if path.endswith(".tsv") else ","
        csv.write_csv(table, path, csv.WriteOptions(delimiter=delimiter))
    else:
        tag = re.sub(r"\s", "_", run.name or "receval")
        with open(path, "w", encoding="utf-8") if path != "-" else nullcontext(sys.stdout) as out:
            for u, i, r, s in zip(_as_text(users).to_pylist(), _as_text(items).to_pylist(),
                                  ranks.tolist(), run.scores.tolist(), strict=True):  # fmt: skip
                out.write(f"{u} Q0 {i} {r} {s!r} {tag}\n")


def vector_run(
    qrels: Any, users: str, items: str, metrics: list[str], k: int | None, say: Messages,
    **options: Any,
) -> tuple[tuple[Any, str, Any], dict[str, int], Any]:  # fmt: skip
    """``(qrels, name, run)`` of ``rank --user-vectors --item-vectors``: the run retrieved
    to the metrics' largest cutoff unless ``--k`` says, each tie at the k-th item whole
    (as :func:`receval.evaluate_embeddings`); and the counts of the ``--exclude`` and
    ``--candidates`` pairs that name no vector, and the ids of the items retrieved from
    (:func:`retrieved_run`). ``qrels``: read already, as are ``exclude`` and
    ``candidates`` in ``options`` (the evaluation takes the same)."""
    from ..retrieval.embeddings import metrics_depth

    depth = metrics_depth(metrics, "rank", k)
    run, unmatched, catalogue = retrieved_run(users, items, depth, say, whole_ties=True,
                                              **options)  # fmt: skip
    return (qrels, run.name, run), unmatched, catalogue


@app.command(cls=Command)
def retrieve(
    users: Annotated[str, _vectors("--users", "User vectors, one row per user")],
    items: Annotated[str, _vectors("--items", "Item vectors, one row per item")],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="The run: a .parquet, .csv or .tsv file (columns user, item, score, rank) "
            "or a TREC run file (any other name; '-': standard output), tagged with the "
            "--items file's name, each space or other whitespace in it written as '_'.",
            show_default=False,
        ),
    ],
    k: Annotated[
        int, typer.Option("--k", min=1, help="Items per user.", rich_help_panel=PANEL)
    ] = 100,
    user_ids: UserIdsOption = None,
    item_ids: ItemIdsOption = None,
    exclude: Annotated[
        str | None,
        typer.Option(
            "--exclude",
            metavar="FILE",
            help="Items never retrieved for a user, e.g. its training interactions: TREC "
            "qrels or a CSV, TSV or Parquet file with --user and --item columns.",
            show_default=False,
        ),
    ] = None,
    similarity: SimilarityOption = "dot",
    user: UserOption = "user",
    item: ItemOption = "item",
    block_users: Annotated[
        int, typer.Option(min=1, help="Users scored together.", rich_help_panel=PANEL)
    ] = 2048,
    block_items: Annotated[
        int, typer.Option(min=1, help="Items scored together.", rich_help_panel=PANEL)
    ] = 8192,
    quiet: QuietOption = False,
) -> None:
    """Scores are float32 products; tied scores are ordered by item id ascending, and
    the --exclude items of each user are removed before the cut at k. The item
    vectors are read block by block, so a .npy or Parquet file larger than memory
    works.
    """
    say = Messages(quiet)
    with say.guard():
        if output != "-":  # found before the work, not after it
            from ..report.html import check_target

            inputs = [path for path in (users, items, user_ids, item_ids, exclude) if path]
            check_target(output, inputs, "receval retrieve -o/--output")
        ids = read_ids(item_ids, "--item-ids", say)
        users_ids = read_ids(user_ids, "--user-ids", say)
        check_trec_ids(users_ids, user_ids, "--user-ids", output)
        check_trec_ids(ids, item_ids, "--item-ids", output)
        options = dict(
            user_ids=users_ids, item_ids=ids,
            exclude=read_exclude(exclude, ids, user, item, say),
            files={"exclude": exclude}, metric=similarity, block_users=block_users,
            block_items=block_items,
        )  # fmt: skip
        run, _, _ = retrieved_run(users, items, k, say, **options)
        write_run(run, output)
    where = "standard output" if output == "-" else output
    say.note(f"wrote {counted(run.n_rows, 'row')} for {counted(run.n_users, 'user')} to {where}.")
