"""What every Spark entry point shares: argument checks and the partition pass.

A pass runs a function on the rows of every partition of a DataFrame (through
``mapInArrow``, one Arrow table per partition) and brings back only its result,
a small pickled state, one per non-empty partition. Errors of receval's own
checks raised inside a partition come back as states too and are raised again
on the driver, with their own class and message (less the position and count
of the offending values, which are the partition's); the counts of a check that
every partition's error states in full (a ``tally``) are added up instead.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import reduce
from typing import Any

from ..engine.kinds import no_pos_label_by_parts
from ..exceptions import InputValidationError, InvalidParameterError, RecevalError

_INSTALL = "pip install 'receval[spark]'"
#: The function an :class:`InvalidParameterError` names: ``The 'pos_label' parameter of
#: log_loss`` (one of receval.spark's named already).
_PARAMETER_OF = re.compile(r"^(The '\w+' parameter of )(?!receval\.spark\.)[\w.]+")


def require_pyspark(func: str) -> Any:
    """The ``pyspark.sql.functions`` module, or a clear ImportError."""
    try:
        from pyspark.sql import functions
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"receval.spark.{func} needs pyspark >= 4, which is not installed; "
            f"install it with {_INSTALL}."
        ) from exc
    return functions


def check_frame(df: Any, name: str, func: str) -> None:
    """``df`` must be a Spark DataFrame (classic or Spark Connect)."""
    require_pyspark(func)
    if not (hasattr(df, "mapInArrow") and hasattr(df, "columns") and hasattr(df, "schema")):
        raise InvalidParameterError(
            f"The '{name}' parameter of receval.spark.{func} must be a Spark DataFrame. "
            f"Got {type(df).__name__} instead; for data in memory use receval.{func}."
        )


def id_key(df: Any, column: str) -> Any:
    """The key that brings a user's rows of every DataFrame to one partition, whatever
    type its ids have in each: the ids, of numbers or of strings that Spark reads as
    numbers, as the text of their value rounded down (``17``, ``17.0``, ``"17"`` and
    ``17.5`` share the key ``"17"``; values from ``2**53`` on, where every double is
    whole, their own text), other strings themselves, other types their text.

    Ids that :func:`receval.evaluate` takes as one (an integer and the string of its
    decimal digits, a whole float and that integer, a float and its text) share
    their key; the partitions then match the ids, each column as its DataFrame
    holds it, by the rule of :func:`receval.evaluate` itself (ids of one key that
    it tells apart stay apart there).
    """
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType, CharType, NumericType, StringType, VarcharType

    ids, data_type = F.col(column), df.schema[column].dataType
    text = isinstance(data_type, (StringType, VarcharType, CharType))
    if text:
        number = ids.try_cast("double")
    elif isinstance(data_type, (NumericType, BooleanType)):
        number = ids.cast("double")
    else:
        return ids.cast("string")
    # floor() of a double past the longs overflows: such doubles are whole already
    key = F.when(F.abs(number) < float(2**53), F.floor(number).cast("string"))
    key = key.otherwise(number.cast("string"))
    return F.coalesce(key, ids) if text else key


#: The column of :func:`id_key`, by which the rows of a user are partitioned.
KEY = "__receval_key"


def id_columns(df: Any, side: int, user: str, item: str | None = None) -> list[Any]:
    """The user key of ``df`` (:func:`id_key`) and its user (and item) columns, as it
    holds them, under the names of its ``side`` (a number per DataFrame): each
    side's ids reach the partitions in their own type (:func:`side_ids`)."""
    from pyspark.sql import functions as F

    columns = [id_key(df, user).alias(KEY), F.col(user).alias(f"__receval_user{side}")]
    if item is not None:
        columns.append(F.col(item).alias(f"__receval_item{side}"))
    return columns


def float_sides(df: Any, side: int, user: str, item: str | None = None) -> frozenset[str]:
    """The names (of :func:`id_columns`) of ``df``'s id columns of floats that
    :func:`receval.evaluate` keeps as floats: those that hold a fraction or a float
    from ``2**53`` on (NaN and infinity, refused anyway, too). Memory decides so per
    column (whole floats below ``2**53`` are integers only where every id of the
    column is one), so Spark decides once, on the driver, over the whole column (one
    job, only where an id column holds floats), never by the ids that share a
    partition; :func:`side_ids` then keeps them floats."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import DoubleType, FloatType

    names = {f"__receval_user{side}": user}
    if item is not None:
        names[f"__receval_item{side}"] = item
    floats = {alias: c for alias, c in names.items()
              if isinstance(df.schema[c].dataType, (DoubleType, FloatType))}  # fmt: skip
    if not floats:
        return frozenset()

    def kept(ids: Any) -> Any:  # (floor() of a double past the longs overflows)
        return F.when(F.abs(ids) >= float(2**53), True).otherwise(ids != F.floor(ids))

    held = df.agg(*(F.max(kept(F.col(c)).cast("int")).alias(a) for a, c in floats.items()))
    held = held.first()
    return frozenset(a for a in floats if held is not None and held[a])


def side_users(table: Any, side: int, floats: frozenset[str] = frozenset(),
               func: str = "Qrels") -> Any:  # fmt: skip
    """A partition's user ids of one ``side`` of :func:`id_columns`, as :func:`column`
    reads them (each side's in its own type: the memory rule of
    :func:`receval.evaluate` matches them); those of a column of :func:`float_sides`
    encoded as floats (:func:`~receval.data._encode.float_ids`; ``func`` names the
    container in its errors)."""
    return _ids(table, f"__receval_user{side}", "users", floats, func)


def side_ids(table: Any, side: int, floats: frozenset[str] = frozenset(),
             func: str = "Qrels") -> tuple[Any, Any]:  # fmt: skip
    """A partition's user and item ids of one ``side``, as :func:`side_users`."""
    return (side_users(table, side, floats, func),
            _ids(table, f"__receval_item{side}", "items", floats, func))  # fmt: skip


def _ids(table: Any, name: str, kind: str, floats: frozenset[str], func: str) -> Any:
    from ..data._encode import float_ids

    ids = column(table, name)
    return float_ids(ids, kind, func) if name in floats else ids


#: The data arguments whose columns hold numbers (booleans too), as their arrays must
#: in memory: scores, probabilities, predictions, weights, a run's scores or ranks.
NUMERIC_ARGUMENTS = frozenset({"y_score", "y_pred", "y_prob", "sample_weight", "score", "rank"})


def check_columns(df: Any, func: str, frame: str, **columns: str | None) -> None:
    """Every named column (argument -> column name) must be a column of ``df``, and
    one of :data:`NUMERIC_ARGUMENTS` a column of numbers: told from the schema, before
    any job runs (a cast on the executors would fail with Spark's own error)."""
    from pyspark.sql.types import BooleanType, NumericType

    present = list(df.columns)
    for argument, column in columns.items():
        if column is None:
            continue
        if not isinstance(column, str):
            raise InvalidParameterError(
                f"The '{argument}' parameter of receval.spark.{func} must be a column name "
                f"(str). Got {column!r} instead."
            )
        if column not in present:
            raise InputValidationError(
                f"receval.spark.{func}: {frame} has no column {column!r} (the '{argument}' "
                f"argument). Its columns are {present}; pass {argument}= the right name."
            )
        kind = df.schema[column].dataType
        if argument in NUMERIC_ARGUMENTS and not isinstance(kind, (NumericType, BooleanType)):
            raise InputValidationError(
                f"receval.spark.{func}: {argument} must be a column of numbers. Got the "
                f"column {column!r} of {frame}, of type {kind.simpleString()}; pass the "
                f"column of numbers, or cast this one first, e.g. {frame}.withColumn("
                f"{column!r}, F.col({column!r}).cast('double'))."
            )


def grade_column(qrels: Any, func: str, user: str, item: str, grade: str | None) -> Any:
    """The grades of the Spark DataFrame ``qrels``, checked with its ``user`` and
    ``item`` columns, as a column: ``grade``'s, or 1 in every row (computed on the
    executors) with ``grade=None`` or where the qrels have no column ``grade`` (the
    default name) and hold ids and times alone (:func:`receval.data.io.gradeless`,
    which refuses qrels with another column)."""
    from pyspark.sql import functions as F

    from ..data.io import gradeless

    where = f"receval.spark.{func}: qrels"
    if isinstance(grade, str) and gradeless(qrels.columns, where, user, item, grade):
        grade = None
    check_columns(qrels, func, "qrels", user=user, item=item, grade=grade)
    return F.col(grade) if grade is not None else F.lit(1)


def check_partitions(num_partitions: int | None, func: str) -> None:
    """``num_partitions`` must be None or a positive int."""
    if num_partitions is not None and (
        isinstance(num_partitions, bool)
        or not isinstance(num_partitions, int)
        or num_partitions < 1
    ):
        raise InvalidParameterError(
            f"The 'num_partitions' parameter of receval.spark.{func} must be a positive int "
            f"or None. Got {num_partitions!r} instead."
        )


def select(
    df: Any, func: str, num_partitions: int | None, **columns: str | None
) -> tuple[Any, Any]:
    """The named columns of the checked DataFrame ``df``, and ``pyspark.sql.functions``."""
    check_frame(df, "df", func)
    check_columns(df, func, "df", **columns)
    check_partitions(num_partitions, func)
    names = list(dict.fromkeys(c for c in columns.values() if c is not None))
    return df.select(*names), require_pyspark(func)


def repartition(
    data: Any, num_partitions: int | None, column: str, *, by_range: bool = False
) -> Any:
    """``data`` partitioned by ``column`` (hashed, or in ranges of its values) into
    ``num_partitions`` (None: ``spark.sql.shuffle.partitions``)."""
    count = [] if num_partitions is None else [num_partitions]
    return (data.repartitionByRange if by_range else data.repartition)(*count, column)


def _limit_threads() -> None:
    """The kernels run on the task's cores (``spark.task.cpus``), not all the executor's:
    ``RECEVAL_NUM_THREADS`` for the compiled core (read on its first use in the worker,
    unless the user set it)."""
    import os

    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        cpus = max(1, int(ctx.cpus()) if ctx is not None else 1)
        os.environ.setdefault("RECEVAL_NUM_THREADS", str(cpus))
    except Exception:  # pragma: no cover - threads are an optimisation only
        pass


def partition_states(df: Any, compute: Callable[[Any], Any]) -> list[Any]:
    """``compute(table)`` on the Arrow table of each non-empty partition, gathered.

    Only the pickled results travel to the driver. A :class:`RecevalError`
    raised by ``compute`` is raised again here (those of several partitions as one,
    :func:`_whole`).
    """

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        kept = [b for b in batches if b.num_rows]
        if not kept:
            return
        _limit_threads()
        table = pa.Table.from_batches(kept)
        try:
            result: tuple[str, Any] = ("ok", compute(table))
        except RecevalError as exc:
            result = ("error", exc)
        del table, kept, batches
        from pyspark import cloudpickle  # states of metrics defined in a notebook travel too

        payload = pa.array(
            [cloudpickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)], pa.binary()
        )
        yield pa.RecordBatch.from_arrays([payload], names=["state"])

    rows = df.mapInArrow(run, "state binary").collect()
    states: list[Any] = []
    errors: list[RecevalError] = []
    for row in rows:
        kind, value = pickle.loads(row["state"])
        (errors if kind == "error" else states).append(value)
    if errors:
        raise unplaced(_whole(errors))
    return states


def _whole(errors: list[RecevalError]) -> RecevalError:
    """The error of the whole DataFrame of its partitions' ``errors``: the first that
    counts nothing a partition can add to (a partition that raised one may have held
    values another check counts, unchecked); else, every error stating what a check
    refused in its partition (its ``tally``), their tallies merged: the count of all
    the partitions (e.g. the relevant pairs of all the qrels without a propensity)."""
    tallies: list[Any] = [getattr(error, "tally", None) for error in errors]
    plain = [error for error, tally in zip(errors, tallies, strict=True) if tally is None]
    if plain:
        return plain[0]
    whole: RecevalError = reduce(lambda a, b: a.merge(b), tallies).error()
    return whole


def unplaced(error: RecevalError) -> RecevalError:
    """A partition's error as of the whole DataFrame: the position and the count of
    the offending values it states are the partition's, so an
    :class:`InputValidationError` that states them states neither (its ``row`` None);
    other errors as they are."""
    if not isinstance(error, InputValidationError) or error.row is None:
        return error
    whole = error.moved(0).restated("in one of the DataFrame's partitions")
    whole.row = None
    return whole


@contextmanager
def spark_words(by: str, said: str) -> Iterator[None]:
    """Within it, a data error whose message begins with ``said`` (what ran the check:
    the reader ``Qrels`` or ``Run``, a partition's ``Accumulator.update of 'log_loss'``,
    the in-memory function ``roc_auc_score``) names ``by`` instead, the function called
    (``receval.spark.log_loss``) or its argument (``receval.spark.evaluate: run``), as
    the in-memory functions name theirs; two labels without ``pos_label``, which a whole
    column takes (the greater positive), are refused saying why a partition cannot, and
    how to pass it. A parameter that the data refuse (``pos_label`` that is neither
    label of ``y_true``) is said to be one of the function called, ``by``'s."""
    try:
        yield
    except InvalidParameterError as exc:
        func = by.partition(": ")[0]
        named = _PARAMETER_OF.sub(lambda m: m[1] + func, str(exc), count=1)
        if named == str(exc):
            raise
        raise type(exc)(named) from None
    except InputValidationError as exc:
        renamed = exc.named_reader(said, f"{by}: ")
        fix = f"to {by}, e.g. pos_label={{label}}"
        refused = no_pos_label_by_parts(renamed, "a partition", "another partition", fix)
        if refused is not None:
            raise refused from None
        if renamed is exc:
            raise
        raise renamed from None


def partition_qrels(table: Any, floats: frozenset[str], where: str, grade: str) -> Any:
    """The :class:`~receval.Qrels` of a partition's qrels rows (side 0 of
    :func:`id_columns`, grades in the column ``grade``), refused as the qrels given to
    the in-memory function are, naming ``where`` (``receval.spark.evaluate: qrels``):
    a null grade is a missing value."""
    from .._validation import check_no_nulls
    from ..data._ranked import Qrels

    with spark_words(where, "Qrels"):
        check_no_nulls(table.column(grade), "grades", "Qrels")
        return Qrels(*side_ids(table, 0, floats, where), column(table, grade))


def column(table: Any, name: str) -> Any:
    """A column of a partition's Arrow table as NumPy (strings stay Arrow, as in memory)."""
    from ..data.io import column_array

    return column_array(table.column(name))
