"""The result columns of a part, each declared once: its name, Arrow type, whether it may be
null, what it means, and how a solved batch fills it.

The solver's fields (``solver.records.FIELDS``: name, meaning, numpy type and null) are the
columns between the pipeline's own (``grid``, ``solution_matches``, ``source``, ``row``): a
plain number's Arrow type and fill follow from its numpy type and null, and only the fields
that are not plain numbers have a fill here (``SPECIAL``). The part's schema
(``pipeline.part.RESULT_FIELDS``) and the conversion of a solved batch into those columns
(``result_arrays``) are generated from ``RESULT_COLUMNS``, and a test checks the manual's
column table against it: a new measure is one entry of ``FIELDS`` and its solver function.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.arrow import ascii_grid, digits_array, text_array
from solver.api import BatchResult
from solver.grid import INVALID_BYTE, symbols, translate
from solver.records import FIELDS, Field
from solver.vocabulary import GRADES, SE_TECHNIQUES, STATUSES


@functools.cache
def normal_bytes(boxsize: int, alphabet: str) -> np.ndarray:
    """A puzzle's bytes as the ``grid`` column writes them: each symbol as its alphabet writes
    it (upper case), every blank convention as ".", so that one column holds every input's
    puzzles alike."""
    written = symbols(boxsize, alphabet)
    table = np.frombuffer(("." + written.symbols).encode(), np.uint8)
    known = written.values != INVALID_BYTE
    normal = np.zeros(256, np.uint8)
    normal[known] = table[written.values[known]]
    return normal


@dataclass(frozen=True)
class Solved:
    """A batch of one box size as its result columns read it: the input rows, their puzzles as
    (n, C) bytes, what the solver found, the bytes of its symbols normalised (``normal``),
    and where the rows come from (``source``, ``rows``: each row's index in it)."""

    table: pa.Table
    grid: np.ndarray
    result: BatchResult
    solution_column: str | None
    normal: np.ndarray
    source: str
    rows: np.ndarray

    @functools.cached_property
    def valid(self) -> np.ndarray:
        return np.asarray(self.result.valid, dtype=bool)

    @functools.cached_property
    def null(self) -> np.ndarray | None:
        """The rows whose metrics are null (the invalid ones), or None when there are none."""
        return None if self.valid.all() else ~self.valid

    @functools.cached_property
    def has_solution(self) -> np.ndarray:
        return np.asarray(self.result.has_solution, dtype=bool) & self.valid


@dataclass(frozen=True)
class Column:
    """A result column: name, Arrow type, nullability, meaning (SPEC's words, shortened), and
    ``fill``, the Arrow array of a solved batch."""

    name: str
    type: pa.DataType
    meaning: str
    fill: Callable[[Solved], pa.Array]
    nullable: bool = True

    @property
    def field(self) -> pa.Field:
        return pa.field(self.name, self.type, nullable=self.nullable)


def _plain(field: Field) -> tuple[pa.DataType, Callable[[Solved], pa.Array]]:
    """A plain number of the solver's result: the Arrow type of its numpy type, and its fill,
    null where it holds its null value, or, for a number without one, where the puzzle is
    invalid (unless it is never null)."""
    kind = pa.from_numpy_dtype(np.dtype(field.dtype))

    def fill(solved: Solved) -> pa.Array:
        values = getattr(solved.result, field.name)
        if field.null is not None:
            return pa.array(values, kind, mask=field.nulls(values))
        return pa.array(values, kind, mask=solved.null if field.nullable else None)
    return kind, fill


SE_TECHNIQUES_TYPE = pa.struct([pa.field(name, pa.int16()) for name in SE_TECHNIQUES])


def _se_techniques(solved: Solved) -> pa.Array:
    """The ``se_techniques`` struct: a field of int16 counts per technique family, the row
    null where ``se`` is (so ``se_techniques.x_wing > 0`` asks only of rated puzzles)."""
    unrated = np.isnan(solved.result.se)
    if unrated.all():  # a run without se: the fields are not built, all null (and null
        # fields rather than ``pa.nulls`` of the struct: a part writes them in 8 ms, not 13)
        fields = [pa.nulls(len(unrated), field.type) for field in SE_TECHNIQUES_TYPE]
    else:
        counts = solved.result.se_techniques
        fields = [pa.array(np.ascontiguousarray(counts[:, k]), pa.int16())
                  for k in range(len(SE_TECHNIQUES))]
    return pa.StructArray.from_arrays(fields, fields=list(SE_TECHNIQUES_TYPE),
                                      mask=pa.array(unrated))


def labels(codes: np.ndarray, names: tuple[str, ...]) -> pa.Array:
    """Codes into ``names`` as a string array (a negative code is null), without a Python
    object per row."""
    codes = np.asarray(codes).astype(np.int8)
    missing = codes < 0
    indices = pa.array(codes, mask=missing if missing.any() else None)
    return pa.DictionaryArray.from_arrays(indices, pa.array(names, pa.string())).dictionary_decode()


def _solution_matches(solved: Solved) -> pa.Array:
    """Whether first_solution equals the published solution (blank conventions ignored).

    Null when there is no solution column, the row's published solution is null or empty,
    or the puzzle is invalid; false when no solution was found.
    """
    n = solved.table.num_rows
    if solved.solution_column is None:
        return pa.nulls(n, pa.bool_())
    published = text_array(solved.table.column(solved.solution_column))
    published_grid, fits = ascii_grid(published, solved.grid.shape[1])
    # A solution found has no blank, so a published one with any blank (whatever its
    # convention) cannot equal it: comparing the bytes (letters in one case) ignores blanks.
    # Where every symbol is written as it is read (digits), the bytes compare as they are.
    if not _writes_symbols_as_read(solved.normal):
        published_grid = translate(published_grid, solved.normal)
    equal = _rows_as_bytes(published_grid) == _rows_as_bytes(solved.result.first_solution)
    matches = fits & solved.has_solution & equal
    lengths = pc.binary_length(published).to_numpy(zero_copy_only=False)
    unknown = published.is_null().to_numpy(zero_copy_only=False) | (lengths == 0) | ~solved.valid
    return pa.array(matches, pa.bool_(), mask=unknown if unknown.any() else None)


def _writes_symbols_as_read(normal: np.ndarray) -> bool:
    """Whether ``normal`` (``normal_bytes``) leaves every symbol's byte as it is."""
    symbol_bytes = np.flatnonzero((normal != 0) & (normal != ord(".")))
    return bool((normal[symbol_bytes] == symbol_bytes).all())


def _rows_as_bytes(grid: np.ndarray) -> np.ndarray:
    """An (n, C) uint8 matrix as n strings of C bytes, compared with one memcmp per row."""
    grid = np.ascontiguousarray(grid, dtype=np.uint8)
    return grid.view(np.dtype((np.void, grid.shape[1]))).reshape(-1)


# The solver's fields that are not plain numbers: their Arrow type and how a solved batch fills it.
SPECIAL: dict[str, tuple[pa.DataType, Callable[[Solved], pa.Array]]] = {
    "status": (pa.string(), lambda s: labels(s.result.status, STATUSES)),
    "error": (pa.string(), lambda s: pa.array(s.result.error, pa.string())),
    "first_solution": (pa.string(), lambda s: digits_array(s.result.first_solution,
                                                           s.has_solution)),
    "grade": (pa.string(), lambda s: labels(s.result.grade, GRADES)),
    "se_techniques": (SE_TECHNIQUES_TYPE, _se_techniques),
    "canonical": (pa.string(), lambda s: digits_array(s.result.canonical,
                                                      s.result.canonical[:, 0] != 0)),
}


def solver_column(field: Field) -> Column:
    """The column of a public field of the solver's result (``solver.records.FIELDS``)."""
    kind, fill = SPECIAL.get(field.name) or _plain(field)
    return Column(field.name, kind, field.meaning, fill, field.nullable)


SOLVER_COLUMNS = tuple(solver_column(field) for field in FIELDS if field.public)
_SOLUTION = [column.name for column in SOLVER_COLUMNS].index("first_solution") + 1
RESULT_COLUMNS = (
    Column("grid", pa.string(), "the puzzle, N * N characters (81 for Sudoku) with `.` for every "
           "blank convention, letters in upper case, whatever the input column was called (null "
           "when invalid)", lambda s: digits_array(translate(s.grid, s.normal), s.valid)),
    *SOLVER_COLUMNS[:_SOLUTION],
    Column("solution_matches", pa.bool_(), "first solution = published solution; null without "
           "one", _solution_matches),
    *SOLVER_COLUMNS[_SOLUTION:],
    Column("source", pa.string(), "the input file, as named on the command line (or found in a "
           "directory)", lambda s: pa.repeat(pa.scalar(s.source, pa.string()), s.table.num_rows),
           nullable=False),
    Column("row", pa.int64(), "0-based row within that file (comment lines of a text file are "
           "not rows)", lambda s: pa.array(s.rows, pa.int64()), nullable=False),
)
RESULT_FIELDS = tuple(column.field for column in RESULT_COLUMNS)
RESULT_NAMES = tuple(column.name for column in RESULT_COLUMNS)


def result_arrays(solved: Solved) -> dict[str, pa.Array]:
    """Every result column of a solved batch, by name."""
    return {column.name: column.fill(solved) for column in RESULT_COLUMNS}
