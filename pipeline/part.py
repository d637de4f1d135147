"""A part: one batch of input rows, solved, as one Parquet file. This module owns its format.

- its **name**, ``part-FFFFF-BBBBBB.parquet`` (input file, batch within it), which sorts into
  input order; ``part_name`` writes it and ``parse_part_name`` reads it, nothing else does. A
  generated batch not placed yet (a worker's candidates) is ``part-FFFFF-BBBBBB.candidates``,
  a name no reader's ``*.parquet`` takes for rows of the run (``is_candidates``);
- its **schema**: the input columns (all nullable), then the result columns
  (``pipeline.columns.RESULT_COLUMNS``);
- its **metadata**: ``sudoku_pipeline`` (the run's identity, its settings, the input its rows
  come from with that input's SHA-256, and the versions of the code and libraries that wrote
  this part: a few hundred bytes, however many inputs the run has; the run record itself is
  kept once, in the manifest) and ``sudoku_pipeline.part`` (``PartInfo``: which rows of which
  input it holds);
- how it is **written** (complete or absent: ``pipeline.storage.write_atomically``) and how its
  **footer** is read back (``read_footer``), which is how a part is trusted: by the engines
  before a result counts, by resume before a part is kept, by summarize;
- the run's **records** beside the parts (``write_record``): the manifest and the summary are
  Parquet files of no rows with the parts' schema, their JSON in the metadata, so that the
  output directory is one dataset to polars, pyarrow and DuckDB.
"""

from __future__ import annotations

import contextlib
import functools
import json
import re
import sys
from dataclasses import asdict, dataclass
from typing import Any

import pyarrow as pa

from pipeline import storage
from pipeline.columns import RESULT_FIELDS
from pipeline.errors import PipelineError, one_line

RUN_KEY = b"sudoku_pipeline"
PART_KEY = b"sudoku_pipeline.part"
SUMMARY_KEY = b"sudoku_pipeline.summary"
# What a failure to write a part, or to read one back, adds to its message mid-run.
PARTS_KEPT = ("; the parts already written are kept: rerun the same command once this is "
              "fixed, to continue")
_NAME = re.compile(r"part-(\d{5,})-(\d{6,})\.parquet")
_CANDIDATES = re.compile(r"part-\d{5,}-\d{6,}\.candidates")



@dataclass(frozen=True, slots=True)
class PartInfo:
    """Which rows a part holds: rows ``first_row`` .. ``first_row + rows - 1`` of ``source``,
    the input at position ``file_index``, batch ``batch_index`` of it; ``last`` when they end
    the input (so the parts alone tell whether a run is complete).

    A part of a generated run (SPEC 8) holds what it kept of draws ``first_draw`` ..
    ``first_draw + draws - 1``; its ``first_row`` is -1 until the run has selected it, in draw
    order (``placed``): a part not placed is a worker's candidates, not yet rows of the run."""

    source: str
    file_index: int
    batch_index: int
    first_row: int
    rows: int
    last: bool
    first_draw: int = 0
    draws: int = 0

    @property
    def placed(self) -> bool:
        return self.first_row >= 0

    def to_dict(self) -> dict[str, Any]:
        """The footer's record of it: a part of inputs without the draws (as before them)."""
        found = asdict(self)
        if not self.draws:
            del found["first_draw"], found["draws"]
        return found

    @property
    def name(self) -> str:
        """Its file name; a generated batch not placed yet has its candidates' name."""
        name = part_name(self.file_index, self.batch_index)
        return name.removesuffix(".parquet") + ".candidates" if self.draws and not self.placed \
            else name

    @property
    def key(self) -> tuple[int, int]:
        return self.file_index, self.batch_index

    def describe(self) -> str:
        """'rows 100-149 of in.csv', for messages."""
        return f"rows {self.first_row}-{self.first_row + self.rows - 1} of {self.source}"


@dataclass(frozen=True, slots=True)
class Footer:
    """What a part's footer says: the identity of its run and the versions that wrote it (None
    when absent or unreadable), its ``PartInfo`` (likewise), and how many rows it holds."""

    run: str | None
    written_by: dict[str, str] | None
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


def is_candidates(name: str) -> bool:
    """Whether ``name`` is that of a generated batch's candidates, not placed yet."""
    return _CANDIDATES.fullmatch(name) is not None


def output_schema(input_schema: pa.Schema) -> pa.Schema:
    """The input columns (all nullable), then the result columns."""
    fields = [field.with_nullable(True) for field in input_schema] + list(RESULT_FIELDS)
    return pa.schema(fields)


def write_part(
    table: pa.Table, info: PartInfo, path: str, *, record: dict[str, Any], compression: str,
    plain_columns: list[str | None]
) -> None:
    """Write ``table``, with ``info`` and the part's ``record`` (``run``: its run's identity;
    ``written_by``: versions; the settings and its input) in its metadata, to ``path`` so that the
    part is complete or absent, even after a power cut or on an object store. ``plain_columns``
    (long, distinct strings) are not dictionary-encoded."""
    import pyarrow.parquet as pq

    table = table.replace_schema_metadata({
        RUN_KEY: json.dumps(record, sort_keys=True).encode(),
        PART_KEY: json.dumps(info.to_dict()).encode(),
    })
    plain = {name for name in plain_columns if name}

    def write(file) -> None:
        pq.write_table(
            table,
            file,
            compression=None if compression == "none" else compression,
            use_dictionary=[name for name in table.column_names if name not in plain],
            row_group_size=max(table.num_rows, 1),
        )

    # The run removes its directory's leftover temporaries at its start and end: not each part.
    storage.write_atomically(path, write, hint=PARTS_KEPT, leftovers=False)


def read_footer(path: str) -> Footer:
    """The footer of the part at ``path``; ``FileNotFoundError`` when it is not there,
    ``PipelineError`` when it is not a readable Parquet file."""
    metadata = _read_metadata(path)
    keys = metadata.metadata or {}
    return Footer(*_run_of(keys.get(RUN_KEY)), _part_info(keys.get(PART_KEY)), metadata.num_rows)


def _run_of(raw: bytes | None) -> tuple[str | None, dict[str, str] | None]:
    """A footer's run identity and versions; a run's parts share one copy of them, which no
    one changes (the footers of 20,000 parts held 20,000 copies of the same: 33 MiB)."""
    record = _json_object(raw)
    run, versions = record.get("run"), record.get("written_by")
    if not isinstance(versions, dict):
        versions = None
    else:
        with contextlib.suppress(TypeError):  # a value that cannot be hashed: kept as read
            versions = _shared_versions(tuple(versions.items()))
    return (sys.intern(run) if isinstance(run, str) else None), versions


@functools.lru_cache(maxsize=8)
def _shared_versions(items: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    return dict(items)


def write_record(path: str, schema: pa.Schema, records: dict[bytes, bytes]) -> None:
    """A Parquet file of no rows, with the parts' ``schema`` and ``records`` in its metadata:
    how a run's manifest and summary sit among its parts, so that every file of the output
    directory is Parquet of one schema and the directory reads as one dataset (polars reads a
    directory only when that holds)."""
    import pyarrow.parquet as pq

    table = schema.empty_table().replace_schema_metadata(records)
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


def _json_object(raw: bytes | None) -> dict[str, Any]:
    """The JSON object ``raw`` holds; empty when there is none or it is not one."""
    try:
        found = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
