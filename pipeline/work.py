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

from pipeline.arrow import ascii_grid, byte_lengths, text_array
from pipeline.columns import Solved, normal_bytes, result_arrays
from pipeline.part import Footer, PartInfo, write_part
from pipeline.provenance import installed
from pipeline.read import InputFile, read_range
from pipeline.stats import Stats
from solver.grid import boxsize_of, length_error
from solver.options import SolveOptions

MISSING_PUZZLE = "missing puzzle (null)"


@dataclass(frozen=True)
class Unit:
    """One batch of work, as plain data that pickles small.

    ``part`` says which rows these are; ``batch`` is the rows as an Arrow IPC stream (a pickled
    Arrow slice would drag its whole parent buffer along), or None when the worker reads them
    itself from ``source`` (a Parquet file: ``pipeline.read.worker_batches``), sparing the
    run's process the reading and the hand-over; ``schema`` is the output schema,
    metadata included; ``options`` are how the solver solves them (the run's settings);
    ``record`` is what the part's footer says of its run (``RunRecord.part_record``);
    ``path`` is where the part goes.
    """

    part: PartInfo
    batch: bytes | None
    puzzle_column: str
    solution_column: str | None
    schema: pa.Schema
    options: SolveOptions
    record: dict[str, Any]
    compression: str
    path: str
    source: InputFile | None = None

    @property
    def rows(self) -> int:
        return self.part.rows

    def table(self) -> pa.Table:
        """The unit's input rows."""
        if self.batch is not None:
            return pa.ipc.open_stream(self.batch).read_all()
        assert self.source is not None
        return read_range(self.source, self.part.first_row, self.part.rows)

    def holds(self, footer: Footer, stats: Stats) -> bool:
        """Whether a part whose footer reads ``footer``, of a unit that returned ``stats``,
        is this unit's: its rows, all of them."""
        return footer.info == self.part and footer.num_rows == self.rows == stats.rows


def to_ipc(table: pa.Table) -> bytes:
    """A table as an Arrow IPC stream (only the rows of a slice are copied)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def solve_part(unit: Unit) -> Stats:
    """Solve one batch, write it as one Parquet part (atomically), return its stats."""
    started = time.perf_counter()
    output = solve_table(unit.table(), schema=unit.schema, puzzle_column=unit.puzzle_column,
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
    them: rows ``first_row``, ``first_row + 1``, ... of ``source``. Rows of each box size
    (SPEC 7) are solved together; a batch of one (the usual case) as it is."""
    import solver

    puzzles = text_array(table.column(puzzle_column))
    numbers = np.arange(table.num_rows, dtype=np.int64) + first_row
    pieces = []
    for group in boxsize_groups(puzzles, options, solver.parse_error):
        result = solver.solve_ascii(group.grid, options, errors=group.errors)
        rows = slice(None) if group.rows is None else group.rows
        part = table if group.rows is None else table.take(group.rows)
        normal = normal_bytes(group.boxsize, options.alphabet_of(group.boxsize))
        pieces.append((group.rows, result_arrays(Solved(part, group.grid, result, solution_column,
                                                        normal, source, numbers[rows]))))
    columns = _in_row_order(pieces, table.num_rows)
    # By position, looked up once: a name looked up in the table's list of names per field
    # made a file of many columns cost quadratic time (100,000 columns: minutes).
    given = {name: i for i, name in enumerate(table.column_names)}
    arrays = []
    for field in schema:
        if field.name in columns:
            arrays.append(columns[field.name])
        elif field.name in given:
            arrays.append(table.column(given[field.name]))
        else:  # a column that only other input files have
            arrays.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


@dataclass(frozen=True)
class Group:
    """The rows of a batch of one box size: which (None: all, in order), their puzzles as
    (n, C) bytes, and the errors of rows known invalid (None: no such row). The rows that fit
    no box size (``misfits``) are a group of their own, with the default box size's width."""

    boxsize: int
    rows: np.ndarray | None
    grid: np.ndarray
    errors: list[str | None] | None
    misfits: bool = False


def boxsize_groups(puzzles: pa.Array, options: SolveOptions, parse_error) -> list[Group]:
    """The rows of ``puzzles`` in groups of one box size (``options.boxsize``, or by length
    under "auto"), with the rows that fit none (their error said) last. A row that fits once
    its line ending is removed (SPEC: nothing is trimmed but line endings) fits; one Python
    step per such row only."""
    lengths = byte_lengths(puzzles)
    sizes = np.zeros(len(puzzles), np.int8)
    for boxsize in options.boxsizes:
        sizes[lengths == boxsize**4] = boxsize
    if not len(puzzles):
        fallback = options.boxsizes[0] if len(options.boxsizes) == 1 else 3
        return [Group(fallback, None, np.zeros((0, fallback**4), np.uint8), None)]
    if (sizes == sizes[0]).all() and sizes[0]:  # one box size, every row fits: no copy
        grid, _ = ascii_grid(puzzles, int(sizes[0]) ** 4)
        return [Group(int(sizes[0]), None, grid, None)]
    texts: dict[int, str] = {}
    errors: dict[int, str] = {}
    for i in np.flatnonzero(sizes == 0).tolist():
        text = puzzles[i].as_py()
        if text is None:
            errors[i] = MISSING_PUZZLE
            continue
        text = text.rstrip("\r\n")
        size = boxsize_of(text, options.boxsize)
        if size is not None and len(text.encode("utf-8", "surrogateescape")) == len(text):
            sizes[i] = size
            texts[i] = text
        else:
            errors[i] = parse_error(text, options.boxsize, options.alphabet) or length_error(
                len(text), options.boxsize)
    groups = []
    for boxsize in sorted(set(sizes.tolist()) - {0}):
        rows = np.flatnonzero(sizes == boxsize)
        grid, fits = ascii_grid(puzzles.take(pa.array(rows)), boxsize**4)
        for j in np.flatnonzero(~fits).tolist():
            grid[j] = np.frombuffer(texts[int(rows[j])].encode(), np.uint8)
        groups.append(Group(boxsize, rows, grid, None))
    misfits = np.flatnonzero(sizes == 0)
    if len(misfits):
        width = (3 if options.boxsize == "auto" else options.boxsize) ** 4
        groups.append(Group(3 if options.boxsize == "auto" else options.boxsize, misfits,
                            np.zeros((len(misfits), width), np.uint8),
                            [errors[i] for i in misfits.tolist()], misfits=True))
    return groups


def _in_row_order(pieces: list[tuple[np.ndarray | None, dict[str, pa.Array]]],
                  n: int) -> dict[str, pa.Array]:
    """The columns of the groups' rows, put back in the batch's row order."""
    if len(pieces) == 1 and pieces[0][0] is None:
        return pieces[0][1]
    order = np.empty(n, np.int64)
    order[np.concatenate([rows for rows, _ in pieces])] = np.arange(n)
    return {name: pa.concat_arrays([columns[name] for _, columns in pieces]).take(
                pa.array(order))
            for name in pieces[0][1]}
