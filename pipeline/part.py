"""A part: one batch of input rows, solved, as one Parquet file. This module owns its format.

- its **name**, ``part-FFFFF-BBBBBB.parquet`` (input file, batch within it), which sorts into
  input order; ``part_name`` writes it and ``parse_part_name`` reads it, nothing else does;
- its **schema**: the input columns (all nullable), then the result columns (``RESULT_FIELDS``);
- its **metadata**: ``sudoku_pipeline`` (the run record: versions, settings, inputs) and
  ``sudoku_pipeline.part`` (``PartInfo``: which rows of which input it holds);
- how it is **written** (complete or absent: ``pipeline.storage.write_atomically``) and how its
  **footer** is read back (``read_footer``), which is how a part is trusted: by the engines
  before a result counts, by resume before a part is kept, by summarize;
- the run's **records** beside the parts (``write_record``): the manifest and the summary are
  Parquet files of no rows with the parts' schema, their JSON in the metadata, so that the
  output directory is one dataset to polars, pyarrow and DuckDB.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any

import pyarrow as pa

from pipeline import storage
from pipeline.errors import PipelineError, one_line

RUN_KEY = b"sudoku_pipeline"
PART_KEY = b"sudoku_pipeline.part"
SUMMARY_KEY = b"sudoku_pipeline.summary"
_NAME = re.compile(r"part-(\d{5,})-(\d{6,})\.parquet")

# The SPEC section 3 columns, appended after the input columns, with their Arrow types.
RESULT_FIELDS = (
    pa.field("grid", pa.string()),  # the puzzle, 81 characters, blanks as "."; null if invalid
    pa.field("status", pa.string(), nullable=False),
    pa.field("error", pa.string()),
    pa.field("givens", pa.int8()),
    pa.field("n_solutions", pa.int32()),
    pa.field("solutions_capped", pa.bool_()),
    pa.field("prune_solvable", pa.bool_()),
    pa.field("singles_solvable", pa.bool_()),
    pa.field("search_depth", pa.int32()),
    pa.field("search_nodes", pa.int64()),
    pa.field("first_solution", pa.string()),
    pa.field("solution_matches", pa.bool_()),
    pa.field("grade", pa.string()),  # SPEC 5.1, always computed
    pa.field("rating", pa.float64()),  # SPEC 5.2, with --measures rating
    pa.field("backdoor_size", pa.int8()),  # SPEC 5.3, with --measures backdoor
    pa.field("canonical", pa.string()),  # SPEC 6, with --measures canonical
    pa.field("solve_us", pa.float64(), nullable=False),
    pa.field("source", pa.string(), nullable=False),
    pa.field("row", pa.int64(), nullable=False),
)
RESULT_COLUMNS = tuple(field.name for field in RESULT_FIELDS)


@dataclass(frozen=True)
class PartInfo:
    """Which rows a part holds: rows ``first_row`` .. ``first_row + rows - 1`` of ``source``,
    the input at position ``file_index``, batch ``batch_index`` of it; ``last`` when they end
    the input (so the parts alone tell whether a run is complete)."""

    source: str
    file_index: int
    batch_index: int
    first_row: int
    rows: int
    last: bool

    @property
    def name(self) -> str:
        return part_name(self.file_index, self.batch_index)

    @property
    def key(self) -> tuple[int, int]:
        return self.file_index, self.batch_index

    def describe(self) -> str:
        """'rows 100-149 of in.csv', for messages."""
        return f"rows {self.first_row}-{self.first_row + self.rows - 1} of {self.source}"


@dataclass(frozen=True)
class Footer:
    """What a part's footer says: its run record (raw JSON bytes), its ``PartInfo`` (None when
    absent or unreadable), and how many rows the file holds."""

    run: bytes | None
    info: PartInfo | None
    num_rows: int


def part_name(file_index: int, batch_index: int) -> str:
    """The file name of a part: sorting the names sorts the rows into input order."""
    return f"part-{file_index:05d}-{batch_index:06d}.parquet"


def parse_part_name(name: str) -> tuple[int, int] | None:
    """(file index, batch index) of a part's name; None for any name ``part_name`` never writes."""
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    key = int(match.group(1)), int(match.group(2))
    return key if part_name(*key) == name else None


def output_schema(input_schema: pa.Schema, run: dict[str, Any]) -> pa.Schema:
    """The input columns (all nullable), then the result columns, with the run's metadata."""
    fields = [field.with_nullable(True) for field in input_schema] + list(RESULT_FIELDS)
    return pa.schema(fields, metadata=run_metadata(run))


def run_metadata(run: dict[str, Any]) -> dict[bytes, bytes]:
    """Parquet key-value metadata for a run (package version, settings, inputs)."""
    return {RUN_KEY: json.dumps(run, sort_keys=True).encode()}


def write_part(
    table: pa.Table, info: PartInfo, path: str, *, compression: str, plain_columns: list[str | None]
) -> None:
    """Write ``table``, with ``info`` in its metadata, to ``path`` so that the part is complete or
    absent, even after a power cut or on an object store. ``plain_columns`` (long, distinct
    strings) are not dictionary-encoded."""
    import pyarrow.parquet as pq

    metadata = dict(table.schema.metadata or {})
    metadata[PART_KEY] = json.dumps(asdict(info)).encode()
    table = table.replace_schema_metadata(metadata)
    plain = {name for name in plain_columns if name}

    def write(file) -> None:
        pq.write_table(
            table,
            file,
            compression=None if compression == "none" else compression,
            use_dictionary=[name for name in table.column_names if name not in plain],
            row_group_size=max(table.num_rows, 1),
        )

    storage.write_atomically(
        path,
        write,
        hint="; the parts already written are kept: rerun the same command once this is "
        "fixed, to continue",
    )


def read_footer(path: str) -> Footer:
    """The footer of the part at ``path``; ``FileNotFoundError`` when it is not there,
    ``PipelineError`` when it is not a readable Parquet file."""
    metadata = _read_metadata(path)
    keys = metadata.metadata or {}
    return Footer(keys.get(RUN_KEY), _part_info(keys.get(PART_KEY)), metadata.num_rows)


def write_record(path: str, schema: pa.Schema, records: dict[bytes, bytes]) -> None:
    """A Parquet file of no rows, with the parts' ``schema`` and ``records`` in its metadata:
    how a run's manifest and summary sit among its parts, so that every file of the output
    directory is Parquet of one schema and the directory reads as one dataset (polars reads a
    directory only when that holds)."""
    import pyarrow.parquet as pq

    table = schema.empty_table().replace_schema_metadata({**(schema.metadata or {}), **records})
    storage.write_atomically(path, lambda file: pq.write_table(table, file))


def read_record(path: str, key: bytes) -> tuple[pa.Schema, bytes | None]:
    """The schema of a file ``write_record`` wrote, and its record under ``key`` (None when it
    has none); ``FileNotFoundError`` when the file is not there."""
    metadata = _read_metadata(path)
    return metadata.schema.to_arrow_schema(), (metadata.metadata or {}).get(key)


def _read_metadata(path: str):
    import pyarrow.parquet as pq

    try:
        with storage.arrow_source(path) as source:
            return pq.read_metadata(source)
    except FileNotFoundError:
        raise
    except (OSError, pa.ArrowException) as err:
        raise PipelineError(f"cannot read {path}: {one_line(err)}") from None


def read_columns(path: str, columns: list[str]) -> pa.Table:
    """Some columns of a part (``PipelineError`` when it cannot be read)."""
    import pyarrow.parquet as pq

    try:
        with storage.arrow_source(path) as source:
            return pq.read_table(source, columns=columns)
    except (OSError, pa.ArrowException) as err:
        raise PipelineError(f"cannot read part {path}: {one_line(err)}") from None


def _part_info(raw: bytes | None) -> PartInfo | None:
    try:
        return PartInfo(**json.loads(raw)) if raw else None
    except (ValueError, TypeError):
        return None
