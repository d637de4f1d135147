"""The unit of work: one batch of input rows in, one Parquet part and its stats out.

``solve_part`` is a plain top-level function taking and returning plain data, so any
engine can run it: the local process pool or a Dask cluster (``pipeline.engines``).
The hot path has no per-row Python: puzzle strings go from the Arrow string array to an
(n, 81) byte matrix with numpy, the solver works on that matrix, and its results become
Arrow arrays built from buffers. Only rows that are invalid get a per-row call (for the
exact error message).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.arrow import ascii_grid, text_array
from pipeline.columns import Solved, result_arrays
from pipeline.part import PartInfo, write_part
from pipeline.provenance import installed
from pipeline.stats import Stats
from solver.options import SolveOptions

MISSING_PUZZLE = "missing puzzle (null)"


@dataclass(frozen=True)
class Unit:
    """One batch of work, as plain data that pickles small.

    ``part`` says which rows these are; ``batch`` is the rows as an Arrow IPC stream (a pickled
    Arrow slice would drag its whole parent buffer along); ``schema`` is the output schema,
    metadata included; ``options`` are how the solver solves them (the run's settings);
    ``record`` is what the part's footer says of its run (``RunRecord.part_record``);
    ``path`` is where the part goes.
    """

    part: PartInfo
    batch: bytes
    puzzle_column: str
    solution_column: str | None
    schema: pa.Schema
    options: SolveOptions
    record: dict[str, Any]
    compression: str
    path: str

    @property
    def rows(self) -> int:
        return self.part.rows


def to_ipc(table: pa.Table) -> bytes:
    """A table as an Arrow IPC stream (only the rows of a slice are copied)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def solve_part(unit: Unit) -> Stats:
    """Solve one batch, write it as one Parquet part (atomically), return its stats."""
    started = time.perf_counter()
    table = pa.ipc.open_stream(unit.batch).read_all()
    output = solve_table(table, schema=unit.schema, puzzle_column=unit.puzzle_column,
                         solution_column=unit.solution_column, options=unit.options,
                         source=unit.part.source, first_row=unit.part.first_row)
    write_part(
        output,
        unit.part,
        unit.path,
        record={**unit.record, "written_by": installed()},
        compression=unit.compression,
        plain_columns=[unit.puzzle_column, unit.solution_column, "grid", "first_solution",
                       "canonical"],
    )
    return Stats.of_table(output).with_worker_seconds(time.perf_counter() - started)


def solve_table(
    table: pa.Table,
    *,
    schema: pa.Schema,
    puzzle_column: str,
    solution_column: str | None,
    options: SolveOptions,
    source: str,
    first_row: int,
) -> pa.Table:
    """The rows of ``table`` with the result columns, as ``schema`` (the output schema) has
    them: rows ``first_row``, ``first_row + 1``, ... of ``source``."""
    import solver

    puzzles = text_array(table.column(puzzle_column))
    grid, fits = ascii_grid(puzzles)
    errors = None if fits.all() else _misfit_errors(puzzles, grid, fits, solver.parse_error)
    result = solver.solve_ascii(grid, options, errors=errors)
    columns = result_arrays(Solved(table, grid, result, solution_column, source, first_row))
    arrays = []
    for field in schema:
        if field.name in columns:
            arrays.append(columns[field.name])
        elif field.name in table.column_names:
            arrays.append(table.column(field.name))
        else:  # a column that only other input files have
            arrays.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _misfit_errors(puzzles: pa.Array, grid: np.ndarray, fits: np.ndarray, parse_error) -> list:
    """The parse error of each row that did not fit the grid (null, or not 81 bytes), with
    rows that fit once their line ending is removed (SPEC: nothing is trimmed but line
    endings) copied into ``grid`` after all. One Python step per misfit row only."""
    errors: list[str | None] = [None] * len(puzzles)
    for i in np.flatnonzero(~fits).tolist():
        text = puzzles[i].as_py()
        if text is None:
            errors[i] = MISSING_PUZZLE
            continue
        text = text.rstrip("\r\n")
        data = text.encode("utf-8", "surrogateescape")
        if len(data) == 81 and len(text) == 81:
            grid[i] = np.frombuffer(data, dtype=np.uint8)
            fits[i] = True
        else:
            errors[i] = parse_error(text) or f"expected 81 cells, got {len(text)}"
    return errors
