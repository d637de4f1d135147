"""A run's numbers per group of rows: statuses, the grade ladder, and percentiles of search effort
and rating, for each value of a column (``summarize --by COLUMN``, the summary's ``by_input``,
the report).

The numbers are those of the whole-run summary, computed with polars over the rows of each
group: percentiles are nearest-rank, as ``pipeline.summary.percentile`` (the smallest value that
at least p percent of the values do not exceed), so the groups of a run of one group have
exactly the run's numbers.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pyarrow as pa

from pipeline.errors import PipelineError
from pipeline.part import read_columns
from pipeline.stats import PERCENTILES
from solver.vocabulary import GRADES, STATUSES

# The result columns a grouped summary is computed from (the grouping column comes on top).
GROUPED_COLUMNS = ("source", "status", "grade", "search_nodes", "rating")
FIRST_ROW = "_first_row"  # a row's position in the run, so groups come in order of first appearance


def group_key(column: str) -> pl.Expr:
    """The group of a row: its value of ``column`` as text. A row whose input has no such
    column (null there: with several inputs, the columns of all of them are kept) is grouped by
    the name of its input file, so ``--by level`` on Radcliffe's set and top1465 gives the five
    levels and top1465.txt."""
    return pl.coalesce(pl.col(column).cast(pl.String), input_name()).alias("group")


def input_name() -> pl.Expr:
    """The name of a row's input file (the end of its ``source``)."""
    return pl.col("source").str.split("/").list.last()


def group_summaries(rows: pl.LazyFrame | pl.DataFrame, by: str) -> dict[str, dict[str, Any]]:
    """For each group of ``rows`` by column ``by`` (see ``group_key``), in order of first
    appearance: ``rows``, ``status`` (rows per status, all seven), ``grade_ladder`` (rows per
    rung), ``search_nodes`` (p50, p90, p99, max) and ``rating`` (rows, p50, p90, p99, max)."""
    rows = check_column(rows.lazy(), by)
    numbers = (
        rows.with_row_index(FIRST_ROW)
        .group_by(group_key(by))
        .agg(pl.col(FIRST_ROW).min(), pl.len().alias("rows"), *_count_columns(),
             *_percentile_columns("search_nodes"), *_percentile_columns("rating"),
             pl.col("rating").count().alias("rating:rows"))
        .sort(FIRST_ROW)
        .collect()
    )
    return {record["group"]: _nested(record) for record in numbers.iter_rows(named=True)}


def check_column(rows: pl.LazyFrame, column: str) -> pl.LazyFrame:
    """``rows``, after checking it has ``column`` (a ``PipelineError`` naming those it has)."""
    names = rows.collect_schema().names()
    if column not in names:
        raise PipelineError(f"the run has no column {column!r}; it has: {', '.join(names)}")
    return rows


def nearest_rank(column: str, p: float) -> pl.Expr:
    """The nearest-rank ``p``-th percentile of ``column``'s non-null values (null when none)."""
    values = pl.col(column)
    rank = (values.count() * p / 100).ceil().cast(pl.Int64)
    return values.drop_nulls().sort().get((rank - 1).clip(0), null_on_oob=True)


def read_rows(part_paths: list[str], columns: list[str]) -> pl.DataFrame:
    """``columns`` of the parts ``part_paths`` (paths or URLs), in that order, as one frame."""
    tables = [read_columns(path, columns).replace_schema_metadata(None) for path in part_paths]
    return pl.from_arrow(pa.concat_tables(tables)) if tables else pl.DataFrame(
        schema={name: pl.String for name in columns})


def _count_columns() -> list[pl.Expr]:
    statuses = [(pl.col("status") == name).sum().alias(f"status:{name}") for name in STATUSES]
    grades = [(pl.col("grade") == name).sum().alias(f"grade_ladder:{name}") for name in GRADES]
    return statuses + grades


def _percentile_columns(column: str) -> list[pl.Expr]:
    return [*(nearest_rank(column, p).alias(f"{column}:p{p}") for p in PERCENTILES),
            pl.col(column).max().alias(f"{column}:max")]


def _nested(record: dict[str, Any]) -> dict[str, Any]:
    """{"status:unique": 3, ...} as {"status": {"unique": 3}, ...}, in the summary's key order."""
    nested: dict[str, Any] = {"rows": record["rows"]}
    for name, value in record.items():
        if ":" in name:
            section, key = name.split(":", 1)
            nested.setdefault(section, {})[key] = value
    rating = nested["rating"]
    nested["rating"] = {"rows": rating.pop("rows"), **rating}
    return nested
