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

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.part import PartInfo, write_part
from pipeline.stats import Stats
from solver.options import SolveOptions
from solver.vocabulary import BLANKS

MISSING_PUZZLE = "missing puzzle (null)"
# A puzzle's bytes as the ``grid`` column writes them: digits as they are, every blank
# convention as ".", so that one column holds every input's puzzles alike.
NORMAL_BYTE = np.zeros(256, np.uint8)
NORMAL_BYTE[np.frombuffer(b"123456789", np.uint8)] = np.frombuffer(b"123456789", np.uint8)
NORMAL_BYTE[np.frombuffer(BLANKS.encode(), np.uint8)] = ord(".")


@dataclass(frozen=True)
class Unit:
    """One batch of work, as plain data that pickles small.

    ``part`` says which rows these are; ``batch`` is the rows as an Arrow IPC stream (a pickled
    Arrow slice would drag its whole parent buffer along); ``schema`` is the output schema,
    metadata included; ``options`` are how the solver solves them (the run's settings);
    ``path`` is where the part goes.
    """

    part: PartInfo
    batch: bytes
    puzzle_column: str
    solution_column: str | None
    schema: pa.Schema
    options: SolveOptions
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
    status = np.asarray(result.status)
    valid = np.asarray(result.valid, dtype=bool)
    has_solution = np.asarray(result.has_solution, dtype=bool) & valid
    solution_grid = np.asarray(result.first_solution, dtype=np.uint8)
    null = None if valid.all() else ~valid

    columns = {
        "grid": digits_array(NORMAL_BYTE[grid], valid),
        "status": _labels(status, solver.STATUSES),
        "error": pa.array(result.error, pa.string()),
        "givens": pa.array(result.givens, pa.int8(), mask=null),
        "n_solutions": pa.array(result.n_solutions, pa.int32(), mask=null),
        "solutions_capped": pa.array(result.solutions_capped, pa.bool_(), mask=null),
        "prune_solvable": pa.array(result.prune_solvable, pa.bool_(), mask=null),
        "singles_solvable": pa.array(result.singles_solvable, pa.bool_(), mask=null),
        "search_depth": pa.array(result.search_depth, pa.int32(), mask=null),
        "search_nodes": pa.array(result.search_nodes, pa.int64(), mask=null),
        "first_solution": digits_array(solution_grid, has_solution),
        "solution_matches": _solution_matches(table, solution_column, solution_grid,
                                              has_solution, valid),
        "grade": _labels(result.grade, solver.GRADES),
        "rating": pa.array(result.rating, pa.float64(), mask=np.isnan(result.rating)),
        "backdoor_size": pa.array(result.backdoor_size, pa.int8(), mask=result.backdoor_size < 0),
        "canonical": digits_array(result.canonical, result.canonical[:, 0] != 0),
        "solve_us": pa.array(result.solve_us, pa.float64()),
        "source": pa.repeat(pa.scalar(source, pa.string()), table.num_rows),
        "row": pa.array(np.arange(table.num_rows, dtype=np.int64) + first_row),
    }
    arrays = []
    for field in schema:
        if field.name in columns:
            arrays.append(columns[field.name])
        elif field.name in table.column_names:
            arrays.append(table.column(field.name))
        else:  # a column that only other input files have
            arrays.append(pa.nulls(table.num_rows, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _labels(codes: np.ndarray, names: tuple[str, ...]) -> pa.Array:
    """Codes into ``names`` as a string array (a negative code is null), without a Python
    object per row."""
    codes = np.asarray(codes).astype(np.int8)
    missing = codes < 0
    indices = pa.array(codes, mask=missing if missing.any() else None)
    return pa.DictionaryArray.from_arrays(indices, pa.array(names, pa.string())).dictionary_decode()


def text_array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A text column as one contiguous ``string`` or ``large_string`` array."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type) or pa.types.is_string_view(column.type):
        column = column.cast(pa.string())
    return column


def ascii_grid(puzzles: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The raw bytes of each 81-byte string as a row of an (n, 81) uint8 matrix, and a mask
    of the rows that fit (not null, exactly 81 bytes); rows that do not fit are zeros.

    Zero-copy when every row fits and the strings are contiguous (the common case).
    """
    n = len(puzzles)
    offset_type = np.int64 if pa.types.is_large_string(puzzles.type) else np.int32
    _, offsets_buffer, data_buffer = puzzles.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[puzzles.offset : puzzles.offset + n + 1]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    )
    fits = np.diff(offsets) == 81
    if puzzles.null_count:
        fits &= puzzles.is_valid().to_numpy(zero_copy_only=False)
    if fits.all() and offsets[-1] - offsets[0] == 81 * n:
        return data[offsets[0] : offsets[-1]].reshape(n, 81), fits
    grid = np.zeros((n, 81), dtype=np.uint8)
    starts = offsets[:-1][fits]
    grid[fits] = data[starts[:, None] + np.arange(81)]
    return grid, fits


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


def digits_array(grid: np.ndarray, present: np.ndarray) -> pa.Array:
    """An Arrow string array of the rows of an (n, 81) ASCII matrix; null where not
    ``present``. Built from buffers, without a per-row Python object."""
    n = len(grid)
    offsets = np.arange(0, 81 * (n + 1), 81, dtype=np.int32)
    nulls = int(n - np.count_nonzero(present))
    validity = pa.py_buffer(np.packbits(present, bitorder="little")) if nulls else None
    return pa.StringArray.from_buffers(
        n,
        pa.py_buffer(offsets),
        pa.py_buffer(np.ascontiguousarray(grid, dtype=np.uint8)),
        validity,
        nulls,
    )


def _solution_matches(
    table: pa.Table,
    solution_column: str | None,
    solution_grid: np.ndarray,
    has_solution: np.ndarray,
    valid: np.ndarray,
) -> pa.Array:
    """Whether first_solution equals the published solution (blank conventions ignored).

    Null when there is no solution column, the row's published solution is null or empty,
    or the puzzle is invalid; false when no solution was found.
    """
    n = table.num_rows
    if solution_column is None:
        return pa.nulls(n, pa.bool_())
    published = text_array(table.column(solution_column))
    published_grid, fits = ascii_grid(published)
    # A solution found is 81 digits, so a published one with any blank (whatever its
    # convention) cannot equal it: comparing the raw bytes ignores blank conventions.
    equal = _rows_as_bytes(published_grid) == _rows_as_bytes(solution_grid)
    matches = fits & has_solution & equal
    lengths = pc.binary_length(published).to_numpy(zero_copy_only=False)
    unknown = published.is_null().to_numpy(zero_copy_only=False) | (lengths == 0) | ~valid
    return pa.array(matches, pa.bool_(), mask=unknown if unknown.any() else None)


def _rows_as_bytes(grid: np.ndarray) -> np.ndarray:
    """An (n, 81) uint8 matrix as n 81-byte strings, compared with one memcmp per row."""
    return np.ascontiguousarray(grid).view(np.dtype((np.void, 81))).reshape(-1)
