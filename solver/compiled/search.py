"""Bird's search for any box size (SPEC sections 2 and 7), compiled with numba, a whole batch
of one box size per call, on the kernels of ``solver.compiled.kernels``.

It visits exactly the nodes of ``solver.reference.bird.search`` and reports the same numbers, as
``solver.compiled.search_9x9`` does for 9 x 9 puzzles (its measured specialisation, on 9-bit
masks; this module serves 4 x 4, 16 x 16 and 25 x 25, and is tested on 9 x 9 against both).
The search is an explicit depth-first loop over a preallocated stack of C + 2 matrices.

Everything is compiled lazily, with ``solver.jit``'s on-disk cache.
"""

from __future__ import annotations

import numpy as np

from solver.compiled.kernels import (
    contradictory,
    lowest_bit_index,
    now_ns,
    pick_cell,
    propagate,
    work_arrays,
)
from solver.grid import tables
from solver.jit import compiled
from solver.options import SolveOptions
from solver.records import SearchColumns

__all__ = ["solve_grids"]


def solve_grids(grids: np.ndarray, options: SolveOptions, boxsize: int) -> SearchColumns:
    """Search every row of ``grids`` ((n, C) uint8 values, 0 = blank) of box size ``boxsize``
    in one compiled call, with the variant and caps of ``options``."""
    cells = boxsize**4
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, cells)
    found = SearchColumns.empty(len(grids), cells)
    shape = tables(boxsize)
    _solve_batch(grids, found, options.max_solutions, options.max_nodes, options.prune_once,
                 options.first_cell, options.hidden_singles, shape.units, shape.peers,
                 shape.unit_of)
    return found


@compiled
def _solvable_by_propagation(grid, scratch, work, hidden_singles, units, peers, unit_of, full):
    """``fix prune (choices g)`` (with ``hidden_singles``: and hidden singles) is complete and
    unblocked."""
    if propagate(grid, scratch, -1, work, False, hidden_singles, units, peers, unit_of, full):
        return False
    return pick_cell(scratch, True) < 0


@compiled
def search(grid, work, solution, max_solutions, max_nodes, prune_once, first_cell,
            hidden_singles, units, peers, unit_of, full):
    """Depth-first search from ``choices grid``, as SPEC section 2. Returns (n_solutions,
    nodes, max_depth, budget_exceeded, root_complete)."""
    stack, untried, chosen = work.stack, work.untried, work.chosen
    n_solutions = 0
    nodes = 0
    max_depth = 0
    budget_exceeded = False
    root_complete = False
    depth = 0
    seed = -1
    while True:
        if nodes >= max_nodes:
            budget_exceeded = True
            break
        nodes += 1
        if depth > max_depth:
            max_depth = depth
        matrix = stack[depth]
        untried[depth] = 0
        if not propagate(grid, matrix, seed, work, prune_once, hidden_singles, units, peers,
                          unit_of, full):
            cell = pick_cell(matrix, first_cell)
            if cell < 0:
                if depth == 0:
                    root_complete = True
                n_solutions += 1
                if n_solutions == 1:
                    for c in range(matrix.shape[0]):
                        solution[c] = lowest_bit_index(np.int64(matrix[c])) + 1
                if n_solutions >= max_solutions:
                    break
            else:
                chosen[depth] = cell
                untried[depth] = matrix[cell]
        # Move to the next child: the smallest untried digit of the nearest open level.
        while depth >= 0 and untried[depth] == 0:
            depth -= 1
        if depth < 0:
            break
        rest = np.int64(untried[depth])
        bit = rest & -rest
        untried[depth] = rest & ~bit
        cell = chosen[depth]
        stack[depth + 1, :] = stack[depth, :]
        stack[depth + 1, cell] = bit
        depth += 1
        seed = cell
    return n_solutions, nodes, max_depth, budget_exceeded, root_complete



@compiled
def _solve_batch(grids, out, max_solutions, max_nodes, prune_once, first_cell, hidden_singles,
                 units, peers, unit_of):
    """Fill the ``SearchColumns`` ``out`` for every row of ``grids``."""
    work = work_arrays(grids.shape[1], units.shape[0])
    scratch = np.empty(grids.shape[1], np.int32)
    timespec = np.zeros(2, np.int64)
    full = (np.int64(1) << units.shape[1]) - 1
    for i in range(grids.shape[0]):
        start = now_ns(timespec)
        grid = grids[i]
        givens = 0
        for c in range(grid.shape[0]):
            if grid[c]:
                givens += 1
        out.givens[i] = givens
        found, visited, deepest, budget_hit, root_complete = search(
            grid, work, out.first_solution[i], max_solutions, max_nodes, prune_once, first_cell,
            hidden_singles, units, peers, unit_of, full)
        out.contradictory[i] = visited == 1 and found == 0 and contradictory(grid, units)
        out.n_solutions[i] = found
        out.search_nodes[i] = visited
        out.search_depth[i] = deepest
        out.budget_exceeded[i] = budget_hit
        if prune_once:
            prune_ok = _solvable_by_propagation(grid, scratch, work, False, units, peers,
                                                unit_of, full)
        else:
            prune_ok = work.root_open[0] == 0
        out.prune_solvable[i] = prune_ok
        if prune_ok:
            out.singles_solvable[i] = True
        elif hidden_singles and not prune_once:
            out.singles_solvable[i] = root_complete
        else:
            out.singles_solvable[i] = _solvable_by_propagation(grid, scratch, work, True, units,
                                                               peers, unit_of, full)
        out.solve_ns[i] = now_ns(timespec) - start
