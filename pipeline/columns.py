"""The result columns of a part, each declared once: its name, Arrow type, whether it may be
null, what it means, and how a solved batch fills it.

The part's schema (``pipeline.part.RESULT_FIELDS``) and the conversion of a solved batch into
those columns (``result_arrays``) are generated from ``RESULT_COLUMNS``, and a test checks the
manual's column table against it: a new measure is one entry here and its solver function.
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


def _metric(name: str, kind: pa.DataType) -> Callable[[Solved], pa.Array]:
    """A number of the solver's result, null where the puzzle is invalid."""
    return lambda solved: pa.array(getattr(solved.result, name), kind, mask=solved.null)


def _decimal(name: str) -> Callable[[Solved], pa.Array]:
    """A float column of the solver's result, null where NaN."""
    def fill(solved: Solved) -> pa.Array:
        values = getattr(solved.result, name)
        return pa.array(values, pa.float64(), mask=np.isnan(values))
    return fill


SE_TECHNIQUES_TYPE = pa.struct([pa.field(name, pa.int16()) for name in SE_TECHNIQUES])


def _se_techniques(solved: Solved) -> pa.Array:
    """The ``se_techniques`` struct: a field of int16 counts per technique family, the row
    null where ``se`` is (so ``se_techniques.x_wing > 0`` asks only of rated puzzles)."""
    counts = solved.result.se_techniques
    fields = [pa.array(np.ascontiguousarray(counts[:, k]), pa.int16())
              for k in range(len(SE_TECHNIQUES))]
    return pa.StructArray.from_arrays(fields, fields=list(SE_TECHNIQUES_TYPE),
                                      mask=pa.array(np.isnan(solved.result.se)))


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


RESULT_COLUMNS = (
    Column("grid", pa.string(), "the puzzle, N * N characters (81 for Sudoku) with `.` for every "
           "blank convention, letters in upper case, whatever the input column was called (null "
           "when invalid)", lambda s: digits_array(translate(s.grid, s.normal), s.valid)),
    Column("status", pa.string(), "`invalid`, `contradictory`, `budget_exceeded`, `unsolvable`, "
           "`solved`, `unique`, `multiple` (SPEC 3: the first that applies)",
           lambda s: labels(s.result.status, STATUSES), nullable=False),
    Column("error", pa.string(), "why a puzzle is `invalid` or `contradictory`, else null",
           lambda s: pa.array(s.result.error, pa.string())),
    Column("boxsize", pa.int8(), "the box size b of the puzzle, N = b * b (SPEC 7: 3 for Sudoku; "
           "null for an invalid row under boxsize auto)",
           lambda s: pa.array(s.result.boxsize, pa.int8(), mask=s.result.boxsize == 0)),
    Column("givens", pa.int16(), "given digits (null when invalid)",
           _metric("givens", pa.int16())),
    Column("n_solutions", pa.int32(), "solutions found, at most `max_solutions`",
           _metric("n_solutions", pa.int32())),
    Column("solutions_capped", pa.bool_(), "the count stopped at `max_solutions`",
           _metric("solutions_capped", pa.bool_())),
    Column("prune_solvable", pa.bool_(), "Bird's pruning alone solves it",
           _metric("prune_solvable", pa.bool_())),
    Column("singles_solvable", pa.bool_(), "naked and hidden singles solve it",
           _metric("singles_solvable", pa.bool_())),
    Column("search_depth", pa.int32(), "deepest search node", _metric("search_depth", pa.int32())),
    Column("search_nodes", pa.int64(), "search nodes visited, root included",
           _metric("search_nodes", pa.int64())),
    Column("first_solution", pa.string(), "the first solution found, N * N symbols, else null",
           lambda s: digits_array(s.result.first_solution, s.has_solution)),
    Column("solution_matches", pa.bool_(), "first solution = published solution; null without "
           "one", _solution_matches),
    Column("grade", pa.string(), "the first rung of SPEC 5.1's ladder that solves it (always "
           "computed; null unless `unique` or `solved`)", lambda s: labels(s.result.grade, GRADES)),
    Column("rating", pa.float64(), "SPEC 5.2: the mean search depth over symmetric copies "
           "(`--measures rating`; null unless `unique`)",
           lambda s: pa.array(s.result.rating, pa.float64(), mask=np.isnan(s.result.rating))),
    Column("backdoor_size", pa.int8(), "SPEC 5.3: the fewest solution cells singles need "
           "(`--measures backdoor`; null unless `unique`, or above 3)",
           lambda s: pa.array(s.result.backdoor_size, pa.int8(), mask=s.result.backdoor_size < 0)),
    Column("se", pa.float64(), "SPEC 5.4: the Sudoku Explainer rating (ER: the hardest step of "
           "serate's path, 1.0 to about 12; `--measures se`, 9 x 9 only; null unless `unique`, "
           "and over the SE work budget `se_budget`)", _decimal("se")),
    Column("se_ep", pa.float64(), "SPEC 5.4: EP, the hardest step up to the first placement "
           "(null as `se`)", _decimal("se_ep")),
    Column("se_ed", pa.float64(), "SPEC 5.4: ED, the first step's difficulty (null as `se`)",
           _decimal("se_ed")),
    Column("se_techniques", SE_TECHNIQUES_TYPE, "SPEC 5.4: how many hints of each technique "
           "family serate's path applies, a struct of int16 fields (`hidden_single`, `x_wing`, "
           "..., `nested_forcing_chains`; docs/measures.md); null as `se`",
           _se_techniques),
    Column("canonical", pa.string(), "SPEC 6: the minlex form up to the Sudoku symmetries "
           "(`--measures canonical`; null when invalid)",
           lambda s: digits_array(s.result.canonical, s.result.canonical[:, 0] != 0)),
    Column("solve_us", pa.float64(), "microseconds of this puzzle's search (its grade and "
           "measures not included; the only non-deterministic column)",
           lambda s: pa.array(s.result.solve_us, pa.float64()), nullable=False),
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
