"""The public face of the solver: parse a puzzle, solve one or a batch, get SPEC section 3 numbers.

``solve`` takes one puzzle string; ``solve_ascii`` takes a batch as an (n, 81) array of ASCII
bytes (what the pipeline holds); ``solve_strings`` takes a sequence of strings.  All three run
either engine: ``"fast"`` (numba, ``solver.fast``) or ``"reference"`` (Bird's equations,
``solver.bird``); both give the same numbers, to the node.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from solver import bird, fast

STATUSES = ("invalid", "contradictory", "budget_exceeded", "unsolvable", "solved", "unique",
            "multiple")
# Twice the largest search of any puzzle in the shared sets under the default variant (2,403,627
# nodes, a 17-clue puzzle; see BENCHMARKS.md, "Node budget"): no real puzzle hits it, and a
# pathological one costs at most about a second of one core.
DEFAULT_MAX_NODES = 5_000_000
PRUNE_VARIANTS = ("fixpoint", "once")
CELL_VARIANTS = ("smallest", "first")
RULE_SETS = ("bird", "singles")
ENGINES = ("fast", "reference")

BLANK_BYTES = b".0 -_"
UNIT_NAMES = ("row", "column", "box")

# ASCII byte -> cell value: 1..9 for digits, 0 for blanks, 255 for anything else.
_CELL_OF_BYTE = np.full(256, 255, np.uint8)
_CELL_OF_BYTE[np.frombuffer(b"123456789", np.uint8)] = np.arange(1, 10, dtype=np.uint8)
_CELL_OF_BYTE[np.frombuffer(BLANK_BYTES, np.uint8)] = 0


@dataclass(frozen=True)
class Result:
    """What solving one puzzle found (SPEC section 3); metrics are None for an invalid puzzle."""

    status: str
    error: str | None
    givens: int | None
    n_solutions: int | None
    solutions_capped: bool | None
    prune_solvable: bool | None
    singles_solvable: bool | None
    search_depth: int | None
    search_nodes: int | None
    first_solution: str | None
    solve_us: float | None


@dataclass
class BatchResult:
    """The SPEC section 3 columns for a batch, as numpy arrays of length n.

    Where ``valid`` is False (invalid rows) ``givens`` and every metric are meaningless and are to
    be written as null; ``first_solution`` rows are meaningful only where ``has_solution``.
    """

    status: np.ndarray  # uint8, index into STATUSES
    error: list[str | None]
    valid: np.ndarray  # bool
    givens: np.ndarray  # int8
    n_solutions: np.ndarray  # int32
    solutions_capped: np.ndarray  # bool
    prune_solvable: np.ndarray  # bool
    singles_solvable: np.ndarray  # bool
    search_depth: np.ndarray  # int32
    search_nodes: np.ndarray  # int64
    first_solution: np.ndarray  # (n, 81) uint8, ASCII digits
    has_solution: np.ndarray  # bool
    solve_us: np.ndarray  # float64

    def __len__(self) -> int:
        return len(self.status)

    def statuses(self) -> list[str]:
        return [STATUSES[s] for s in self.status]

    def row(self, i: int) -> Result:
        """Row ``i`` as a ``Result`` (nulls where SPEC says so)."""
        if not self.valid[i]:
            return Result(STATUSES[self.status[i]], self.error[i], *([None] * 9))
        solution = self.first_solution[i].tobytes().decode() if self.has_solution[i] else None
        return Result(
            status=STATUSES[self.status[i]],
            error=self.error[i],
            givens=int(self.givens[i]),
            n_solutions=int(self.n_solutions[i]),
            solutions_capped=bool(self.solutions_capped[i]),
            prune_solvable=bool(self.prune_solvable[i]),
            singles_solvable=bool(self.singles_solvable[i]),
            search_depth=int(self.search_depth[i]),
            search_nodes=int(self.search_nodes[i]),
            first_solution=solution,
            solve_us=float(self.solve_us[i]),
        )


# -- parsing ---------------------------------------------------------------------------------------


def strip_line_ending(text: str) -> str:
    """Nothing is trimmed but line endings (SPEC section 1)."""
    return text.rstrip("\r\n")


def parse_error(text: str) -> str | None:
    """Why ``text`` is not a puzzle (SPEC section 1), or None when it is one."""
    text = strip_line_ending(text)
    if len(text) != 81:
        return f"expected 81 cells, got {len(text)}"
    for cell, ch in enumerate(text):
        if not ("1" <= ch <= "9" or ch in ".0 -_"):
            return (f"unexpected character {ch!r} at cell {cell} "
                    f"(row {cell // 9 + 1}, column {cell % 9 + 1})")
    return None


def contradiction(grid: np.ndarray) -> str | None:
    """The first repeated given, as 'digit 5 twice in box 4' (rows, then columns, then boxes)."""
    for unit_index, unit in enumerate(fast.UNITS):
        values = grid[unit]
        counts = np.bincount(values[values > 0], minlength=10)
        repeated = np.flatnonzero(counts > 1)
        if len(repeated):
            digit = int(repeated[0])
            times = "twice" if counts[digit] == 2 else f"{counts[digit]} times"
            kind, number = UNIT_NAMES[unit_index // 9], unit_index % 9 + 1
            return f"digit {digit} {times} in {kind} {number}"
    return None


def grids_from_ascii(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, 81) ASCII bytes -> ((n, 81) cell values 0..9, bool mask of rows with a bad byte)."""
    grids = _CELL_OF_BYTE[rows]
    bad = (grids == 255).any(axis=1)
    grids[bad] = 0
    return grids, bad


def ascii_rows(puzzles: Sequence[str]) -> tuple[np.ndarray, list[str | None]]:
    """Strings -> (n, 81) ASCII bytes, with the parse error of every row that does not fit."""
    rows = np.zeros((len(puzzles), 81), np.uint8)
    errors: list[str | None] = [None] * len(puzzles)
    for i, text in enumerate(puzzles):
        text = strip_line_ending(text)
        data = text.encode("utf-8", "surrogateescape")
        if len(data) == 81 and len(text) == 81:
            rows[i] = np.frombuffer(data, np.uint8)
        errors[i] = parse_error(text)
    return rows, errors


# -- solving ---------------------------------------------------------------------------------------


def check_options(max_solutions: int, max_nodes: int, prune: str, cell: str, rules: str,
                  engine: str = "fast") -> None:
    """Raise ValueError naming the bad option and its allowed values."""
    if not isinstance(max_solutions, int) or max_solutions < 1:
        raise ValueError(f"max_solutions must be an integer >= 1, got {max_solutions!r}")
    if not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"max_nodes must be an integer >= 1, got {max_nodes!r}")
    for name, value, allowed in (("prune", prune, PRUNE_VARIANTS), ("cell", cell, CELL_VARIANTS),
                                 ("rules", rules, RULE_SETS), ("engine", engine, ENGINES)):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")


def solve_grids(grids: np.ndarray, *, max_solutions: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
                prune: str = "fixpoint", cell: str = "smallest", rules: str = "bird",
                engine: str = "fast") -> tuple:
    """Solve well-formed grids ((n, 81) values 0..9); returns ``fast.solve_grids``' columns."""
    check_options(max_solutions, max_nodes, prune, cell, rules, engine)
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, 81)
    once, first = prune == "once" and rules == "bird", cell == "first" and rules == "bird"
    if engine == "reference":
        return _reference_grids(grids, max_solutions, max_nodes, prune, cell, rules)
    return fast.solve_grids(grids, max_solutions, max_nodes, once, first, rules == "singles",
                            fast.TABLES)


def solve_ascii(rows: np.ndarray, *, max_solutions: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
                prune: str = "fixpoint", cell: str = "smallest", rules: str = "bird",
                engine: str = "fast", errors: Sequence[str | None] | None = None) -> BatchResult:
    """Solve a batch given as an (n, 81) uint8 array of the puzzles' ASCII bytes.

    A row holding any byte but a digit or a blank is ``invalid``.  ``errors`` may give a parse
    error for rows known to be invalid already (e.g. of the wrong length): those rows are invalid
    whatever their bytes.
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint8).reshape(-1, 81)
    grids, bad = grids_from_ascii(rows)
    error: list[str | None] = [None] * len(rows)
    if errors is not None:  # only then a pass over the rows in Python
        error = list(errors)
        bad |= np.array([e is not None for e in error], bool).reshape(-1)
    for i in np.flatnonzero(bad):
        error[i] = error[i] or parse_error(rows[i].tobytes().decode("utf-8", "replace"))
    columns = solve_grids(grids, max_solutions=max_solutions, max_nodes=max_nodes, prune=prune,
                          cell=cell, rules=rules, engine=engine)
    contradictory, budget, givens, found, prune_ok, singles_ok, depth, nodes, solution, ns = columns
    status = statuses(bad, contradictory, budget, found, max_solutions)
    for i in np.flatnonzero(status == STATUSES.index("contradictory")):
        error[i] = contradiction(grids[i])
    return BatchResult(
        status=status, error=error, valid=~bad, givens=givens, n_solutions=found,
        solutions_capped=found >= max_solutions, prune_solvable=prune_ok, singles_solvable=singles_ok,
        search_depth=depth, search_nodes=nodes, first_solution=solution,
        has_solution=(found > 0) & ~bad, solve_us=ns / 1000.0,
    )


def statuses(invalid: np.ndarray, contradictory: np.ndarray, budget_exceeded: np.ndarray,
             n_solutions: np.ndarray, max_solutions: int) -> np.ndarray:
    """The first status of SPEC section 3 that applies, per row (indexes into STATUSES)."""
    conditions = [invalid, contradictory, budget_exceeded, n_solutions == 0,
                  np.full(len(invalid), max_solutions == 1), n_solutions == 1]
    return np.select(conditions, range(6), default=6).astype(np.uint8)


def solve_strings(puzzles: Sequence[str], **options) -> BatchResult:
    """Solve a sequence of puzzle strings; options as ``solve_ascii``."""
    rows, errors = ascii_rows(puzzles)
    return solve_ascii(rows, errors=errors, **options)


def solve(puzzle: str, *, max_solutions: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
          prune: str = "fixpoint", cell: str = "smallest", rules: str = "bird",
          engine: str = "fast") -> Result:
    """Solve one puzzle (81 characters, blanks ``.0 -_``) and report SPEC section 3's numbers.

    >>> solve("." * 81).status
    'multiple'
    """
    batch = solve_strings([puzzle], max_solutions=max_solutions, max_nodes=max_nodes,
                          prune=prune, cell=cell, rules=rules, engine=engine)
    return batch.row(0)


# -- the reference engine behind the batch interface -----------------------------------------------


def _reference_grids(grids: np.ndarray, max_solutions: int, max_nodes: int, prune: str,
                     cell: str, rules: str) -> tuple:
    """``fast.solve_grids``' columns computed with Bird's equations, one puzzle at a time."""
    n = len(grids)
    contradictory = np.array([contradiction(grid) is not None for grid in grids], bool)
    budget = np.zeros(n, bool)
    givens = (grids > 0).sum(axis=1).astype(np.int8)
    found = np.zeros(n, np.int32)
    prune_ok = np.zeros(n, bool)
    singles_ok = np.zeros(n, bool)
    depth = np.zeros(n, np.int32)
    nodes = np.zeros(n, np.int64)
    solution = np.zeros((n, 81), np.uint8)
    ns = np.zeros(n, np.int64)
    for i, grid in enumerate(grids):
        start = time.perf_counter_ns()
        g = bird.read_mat("".join(str(v) for v in grid))
        stats = bird.Stats(max_nodes=max_nodes)
        sols = bird.solutions(g, stats, max_solutions=max_solutions, prune_variant=prune,
                              cell=cell, rules=rules)
        found[i], nodes[i], depth[i] = len(sols), stats.nodes, stats.depth
        budget[i] = stats.budget_exceeded
        if sols:
            solution[i] = np.frombuffer(bird.show_mat(sols[0]).encode(), np.uint8)
        prune_ok[i] = bird.prune_solvable(g)
        singles_ok[i] = bird.singles_solvable(g)
        ns[i] = time.perf_counter_ns() - start
    return contradictory, budget, givens, found, prune_ok, singles_ok, depth, nodes, solution, ns


RESULT_FIELDS = tuple(f.name for f in fields(Result))
