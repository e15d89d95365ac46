"""Item data from files: popularity, histories, features, categories, the catalogue, a
reference run and candidate sets (``receval rank``; ``compare`` and ``report`` take the
first four), propensities, and the metrics computed by a function of their own rather
than by ``receval.evaluate`` (list metrics such as coverage and novelty, off-policy
estimates).

Each file is a CSV, TSV or Parquet table read by :func:`._columns.read_columns`
(``--train`` and ``--reference`` also TREC, as qrels and runs); its id columns are
``--user`` and ``--item``, as integers when the runs' items are integers.
"""

# No ``from __future__ import annotations``: Typer reads the options' annotations.

import inspect
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from ._columns import read_columns
from ._common import Messages, RankedFormat, ranked_format, read_runs
from ._ranked import format_option

__all__ = [
    "ITEM_PANEL",
    "CandidatesOption",
    "CatalogOption",
    "CorrectionOption",
    "ExcludeOption",
    "FeaturesOption",
    "ItemCategoriesOption",
    "ItemData",
    "PopularityOption",
    "ReferenceOption",
    "TrainOption",
    "read_pairs",
    "read_propensities",
    "row_value",
]


#: The help panel of the item data options: each a file of these formats (TREC: --train
#: and --reference only), with the columns its help names.
ITEM_PANEL = "Item data (CSV, TSV or Parquet files)"


def _item_data(name: str, metavar: str, text: str) -> Any:
    return typer.Option(
        name, metavar=metavar, help=text, show_default=False, rich_help_panel=ITEM_PANEL
    )


TrainOption = Annotated[
    str | None, _item_data("--train", "FILE", "Training log: TREC qrels or --user, --item.")
]
ExcludeOption = Annotated[
    str | None,
    _item_data(
        "--exclude",
        "FILE",
        "Seen items (TREC qrels or --user, --item, e.g. the --train file) removed from each "
        "list before the cut at k; counted on stderr and in --format json.",
    ),
]
PopularityOption = Annotated[
    str | None, _item_data("--popularity", "FILE", "Item popularity: columns --item, count.")
]
FeaturesOption = Annotated[
    str | None,
    _item_data("--features", "FILE", "Item vectors: --item, a column per feature."),
]
ItemCategoriesOption = Annotated[
    str | None,
    _item_data("--item-categories", "FILE", "Item categories: columns --item, category."),
]
CatalogOption = Annotated[
    str | None, _item_data("--catalog", "N|FILE", "Catalogue: its size N, or a file of --item.")
]
ReferenceOption = Annotated[
    str | None, _item_data("--reference", "FILE", "Reference run of intersection (as --run).")
]
CandidatesOption = Annotated[
    str | None, _item_data("--candidates", "FILE", "Each user's candidates: --user, --item.")
]
CorrectionOption = Annotated[
    str | None,
    _item_data(
        "--correction", "[rank|minimal_bias|bv]", "Sampled metrics' correction (--catalog N)."
    ),
]


def read_pairs(
    path: str, columns: dict[str, str | None], option: str, say: Messages, integers: bool = False
) -> tuple[Any, Any]:
    """Two columns of a CSV, TSV or Parquet file (``option``'s) as a pair of arrays:
    ``columns`` maps each to the option naming it (:func:`read_columns`), the first an
    id column (int64 when ``integers`` and every id is one)."""
    from ..data._arrow import to_numpy

    ids = (next(iter(columns)),)
    table = read_columns(path, columns, option, say, ids=ids, integers=ids if integers else ())
    first, second = (to_numpy(c) for c in table.columns)
    return first, second


def read_propensities(path: str, user: str, item: str, say: Messages) -> Any:
    """``--propensities``: a CSV, TSV or Parquet file with columns ``--user``, ``--item``
    and ``propensity`` (per user and item), or ``--item`` and ``propensity`` (per item),
    as an Arrow table with columns user, item, propensity (or item, propensity)."""
    from ..exceptions import InputValidationError

    try:
        columns = {user: "--user", item: "--item", "propensity": None}
        return read_columns(path, columns, "--propensities", say, ids=(user, item),
                            names=["user", "item", "propensity"])  # fmt: skip
    except InputValidationError as exc:
        if f"no column {user!r}" not in str(exc):
            raise
        return read_columns(path, {item: "--item", "propensity": None}, "--propensities", say,
                            ids=(item,), names=["item", "propensity"])  # fmt: skip


def _feature_columns(path: str, item: str) -> list[str]:
    """The columns of a features file other than ``item``, from its header or schema."""
    from ..data._csv import csv_header
    from ..data._open import check_file
    from ..data.io import infer_format

    check_file(path)
    if infer_format(path) == "parquet":
        import pyarrow.parquet as pq

        names = list(pq.read_schema(path).names)
    else:
        names = csv_header(path, "tsv" if infer_format(path) == "tsv" else "csv")
    return [name for name in names if name != item]


@dataclass
class ItemData:
    """The item data files of a command (``rank``: all; ``compare``, ``report``: the first
    four), read once the first run tells the ids' type (:meth:`load`)."""

    train: str | None = None
    popularity: str | None = None
    features: str | None = None
    item_categories: str | None = None
    catalog: str | None = None
    reference: str | None = None
    candidates: str | None = None
    correction: str | None = None
    exclude: str | None = None
    user: str = "user"
    item: str = "item"
    run_format: RankedFormat | None = None
    score: str = "score"
    rank: str | None = None

    def catalog_size(self) -> int | None:
        """``--catalog N``'s N (None for a file or no --catalog)."""
        text = (self.catalog or "").strip()
        if not text.lstrip("+-").isdigit():
            return None
        if int(text) < 1:
            from ..exceptions import InvalidParameterError

            raise InvalidParameterError(
                f"--catalog must be a number of items >= 1 or a file. Got {text!r}."
            )
        return int(text)

    def load(self, integers: bool, say: Messages) -> dict[str, Any]:
        """Every given input, by the name of the parameter of ``receval.evaluate`` or of
        a list metric's function that takes it; ``integers``: the runs' item ids are."""
        from ..data._arrow import to_numpy

        user, item = self.user, self.item
        # the ids read as int64 where the runs' item ids are integers
        ints, item_ints = ((user, item), (item,)) if integers else ((), ())
        data: dict[str, Any] = {}
        if self.train is not None:
            data["train"] = self._log(self.train, "--train", integers, say)
        if self.exclude is not None:  # the same file as --train: read once
            same = self.exclude == self.train
            data["exclude"] = data["train"] if same else self._log(self.exclude, "--exclude",
                                                                   integers, say)  # fmt: skip
        if self.popularity is not None:
            data["popularity"] = read_pairs(
                self.popularity, {item: "--item", "count": None}, "--popularity", say, integers
            )
        if self.features is not None:
            names = _feature_columns(self.features, item)
            columns = {item: "--item", **dict.fromkeys(names)}
            table = read_columns(self.features, columns, "--features", say, ids=(item,),
                                 integers=item_ints)  # fmt: skip
            import numpy as np

            data["feature_items"] = to_numpy(table.column(item))
            data["features"] = np.column_stack(
                [to_numpy(table.column(name)) for name in names]
            ).astype(float)
        if self.item_categories is not None:
            data["item_categories"] = read_columns(
                self.item_categories, {item: "--item", "category": None}, "--item-categories",
                say, ids=(item,), integers=item_ints, names=["item", "category"],
            )  # fmt: skip
        if self.catalog is not None:
            size = self.catalog_size()
            data["catalog"] = size
            if size is None:
                listed = read_columns(self.catalog, {item: "--item"}, "--catalog", say,
                                      ids=(item,), integers=item_ints)  # fmt: skip
                data["catalog"] = to_numpy(listed.column(0))
        if self.reference is not None:
            ((_, data["reference"]),) = read_runs(
                [self.reference], self.run_format, say, user=user, item=item, score=self.score,
                rank=self.rank,
            )  # fmt: skip
        if self.candidates is not None:
            data["candidates"] = read_columns(
                self.candidates, {user: "--user", item: "--item"}, "--candidates", say,
                ids=(user, item), integers=ints, names=["user", "item"],
            )  # fmt: skip
        if self.correction is not None:
            data["correction"] = self.correction
            data["catalog_size"] = self.catalog_size()
        return data

    def _log(self, path: str, option: str, integers: bool, say: Messages) -> Any:
        """An interaction log (``--train``, ``--exclude``): TREC qrels, or the --user and
        --item columns of a CSV, TSV or Parquet file."""
        if ranked_format(None, path) == "trec":
            from ..data._ranked import Qrels

            with format_option(None):  # no option gives its format: its suffix does
                return Qrels.from_file(path, grade=None, file_format="trec")
        ids = (self.user, self.item)
        return read_columns(path, dict(zip(ids, ("--user", "--item"), strict=True)), option,
                            say, ids=ids, integers=ids if integers else (),
                            names=["user", "item"])  # fmt: skip


#: What ``receval.evaluate`` takes of :meth:`ItemData.load`'s inputs.
EVALUATE_INPUTS = (
    "train", "exclude", "popularity", "features", "feature_items", "item_categories", "candidates",
    "correction", "catalog_size",
)  # fmt: skip

#: The inputs of a metric's function under the name :meth:`ItemData.load` gives them.
_SAME_AS = {"interactions": "train"}


def row_value(
    spec: Any, given: dict[str, Any], where: str, needed: tuple[str, ...] = (), func: Any = None
) -> Any:
    """The value of a metric computed by the function its registry row names (a list
    metric such as ``catalog_coverage@10``), or by ``func`` (what it returns: an
    off-policy estimate's report): ``given`` holds the inputs by parameter name, the
    function takes those its signature asks for; a missing one is an error naming the
    option that gives it, as is one of ``needed`` (inputs with a default that the
    command's others require: dr's ``estimated_value`` with off-policy's one target
    probability per round)."""
    from ..exceptions import InputValidationError
    from ..registry import load, metric_options
    from ._translate import OPTIONS

    call = load(spec.info.function_path) if func is None else func
    kwargs = metric_options(spec, {}, f"{where} {str(spec)!r}")
    for name, parameter in inspect.signature(call).parameters.items():
        value = given.get(_SAME_AS.get(name, name))
        if name not in kwargs and value is not None:
            kwargs[name] = value
        elif name not in kwargs and (parameter.default is inspect.Parameter.empty
                                     or name in needed):  # fmt: skip
            raise InputValidationError(
                f"{where} {str(spec)!r}: {spec.info.name} needs {OPTIONS[name]}; pass it "
                f"(see {where.split(' -m')[0]} --help)."
            )
    return call(**kwargs) if func is not None else float(call(**kwargs))
