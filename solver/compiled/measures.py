"""SPEC 5.2's ``rating`` and 5.3's ``backdoor_size`` for every box size (SPEC 7), with the
search of ``solver.compiled.search``; 9 x 9 puzzles go to their specialisation,
``solver.compiled.measures_9x9`` (its search holds matrices as digit bands).

Both are searches of whole batches: a rating searches the puzzle's K symmetric copies, each
with ``rules = "singles"`` and ``max_solutions = 2``; a backdoor of k cells is found by
filling k blank cells from the solution, every choice at once as one batch, and asking which
grids singles solve (the root of a ``singles`` search of one node says so).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from solver.compiled import measures_9x9, search
from solver.options import SolveOptions
from solver.symmetry import rating_copies

NO_BACKDOOR = -1  # larger than the cells searched (SPEC 5.3: null)


def ratings(grids: np.ndarray, boxsize: int, samples: int, max_nodes: int) -> np.ndarray:
    """SPEC 5.2 and 7 for every row of ``grids`` ((n, C) values): the mean ``singles`` search
    depth over copies 0 .. samples-1; NaN where some copy hits ``max_nodes``."""
    if boxsize == 3:
        return measures_9x9.ratings(grids, samples, max_nodes)
    copies = rating_copies(samples, boxsize).astype(np.intp)
    options = SolveOptions(max_solutions=2, max_nodes=max_nodes, rules="singles",
                           boxsize=boxsize)
    out = np.empty(len(grids), np.float64)
    for i, grid in enumerate(grids):
        found = search.solve_grids(grid[copies], options, boxsize)
        out[i] = np.nan if found.budget_exceeded.any() else found.search_depth.mean()
    return out


def backdoor_sizes(grids: np.ndarray, solutions: np.ndarray, boxsize: int) -> np.ndarray:
    """SPEC 5.3 and 7 for every row, given its solution ((n, C) values): the least number of its
    cells that make the puzzle singles-solvable, searched up to 3 cells for box sizes up to 3
    and up to 1 beyond; -1 when more."""
    if boxsize == 3:
        return measures_9x9.backdoor_sizes(grids, solutions)
    largest = 3 if boxsize <= 3 else 1
    options = SolveOptions(max_solutions=1, max_nodes=1, rules="singles", boxsize=boxsize)
    out = np.full(len(grids), NO_BACKDOOR, np.int8)
    for i, (grid, solution) in enumerate(zip(grids, solutions, strict=True)):
        blanks = np.flatnonzero(grid == 0)
        for size in range(1, largest + 1):
            chosen = np.array(list(combinations(blanks, size)), np.intp).reshape(-1, size)
            filled = np.repeat(grid[None, :], len(chosen), axis=0)
            rows = np.arange(len(chosen))[:, None]
            filled[rows, chosen] = solution[chosen]
            if search.solve_grids(filled, options, boxsize).singles_solvable.any():
                out[i] = size
                break
    return out
