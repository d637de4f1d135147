"""The public face of the solver: parse a puzzle, solve one or a batch, get SPEC section 3 numbers.

``solve`` takes one puzzle string; ``solve_ascii`` takes a batch as an (n, 81) array of ASCII
bytes (what the pipeline holds); ``solve_strings`` takes a sequence of strings.  All three run
either engine: ``"fast"`` (numba, ``solver.fast``, imported on first use) or ``"reference"``
(Bird's equations, ``solver.bird``); both give the same numbers, to the node.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solver import bird
from solver.grid import ascii_rows, contradiction, grids_from_ascii, parse_error, text_of
from solver.records import SearchColumns
from solver.vocabulary import (
    DEFAULT_MAX_NODES,
    SOLVER_ENGINES,
    STATUSES,
    SearchOptions,
    check_choice,
)


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


def solve_grids(grids: np.ndarray, *, max_solutions: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
                prune: str = "fixpoint", cell: str = "smallest", rules: str = "bird",
                engine: str = "fast") -> SearchColumns:
    """Search well-formed grids ((n, 81) values 0..9): what the search found, per row."""
    options = SearchOptions(max_solutions, max_nodes, prune, cell, rules)
    check_choice("engine", engine, SOLVER_ENGINES)
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, 81)
    if engine == "reference":
        return _reference_grids(grids, options)
    from solver import fast

    return fast.solve_grids(grids, options)


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
    found = solve_grids(grids, max_solutions=max_solutions, max_nodes=max_nodes, prune=prune,
                        cell=cell, rules=rules, engine=engine)
    status = statuses(bad, found.contradictory, found.budget_exceeded, found.n_solutions,
                      max_solutions)
    for i in np.flatnonzero(status == STATUSES.index("contradictory")):
        error[i] = contradiction(grids[i])
    return BatchResult(
        status=status, error=error, valid=~bad, givens=found.givens, n_solutions=found.n_solutions,
        solutions_capped=found.n_solutions >= max_solutions, prune_solvable=found.prune_solvable,
        singles_solvable=found.singles_solvable, search_depth=found.search_depth,
        search_nodes=found.search_nodes, first_solution=found.first_solution,
        has_solution=(found.n_solutions > 0) & ~bad, solve_us=found.solve_ns / 1000.0,
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


def _reference_grids(grids: np.ndarray, options: SearchOptions) -> SearchColumns:
    """``SearchColumns`` computed with Bird's equations, one puzzle at a time."""
    out = SearchColumns.empty(len(grids))
    for i, grid in enumerate(grids):
        start = time.perf_counter_ns()
        g = bird.read_mat(text_of(grid))
        stats = bird.Stats(max_nodes=options.max_nodes)
        sols = bird.solutions(g, stats, max_solutions=options.max_solutions,
                              prune_variant=options.prune, cell=options.cell, rules=options.rules)
        out.contradictory[i] = contradiction(grid) is not None
        out.givens[i] = np.count_nonzero(grid)
        out.n_solutions[i], out.search_nodes[i], out.search_depth[i] = (
            len(sols), stats.nodes, stats.depth)
        out.budget_exceeded[i] = stats.budget_exceeded
        if sols:
            out.first_solution[i] = np.frombuffer(bird.show_mat(sols[0]).encode(), np.uint8)
        out.prune_solvable[i] = bird.prune_solvable(g)
        out.singles_solvable[i] = bird.singles_solvable(g)
        out.solve_ns[i] = time.perf_counter_ns() - start
    return out
