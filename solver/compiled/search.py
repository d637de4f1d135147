"""Bird's search, compiled with numba, a whole batch of one box size per call (SPEC sections 2,
3 and 7).

It visits exactly the nodes of ``solver.reference.bird.search`` and reports the same numbers;
only the representation differs (``solver.compiled.kernels``: masks, propagation by a queue
of new singletons, hidden singles in the units that changed). 9 x 9 puzzles have a measured
specialisation beside it, ``solver.compiled.search_9x9`` (BENCHMARKS.md says by how much):

- ``fix prune`` at the root is computed by sweeps of per-unit masks of placed digits, and below
  the root by a queue of new singletons. Both reach the closure of naked-single elimination,
  the same matrix Bird's passes reach whenever the node is not blocked, and a blocked node is
  blocked either way. Under ``singles`` the root computes that closure first, so
  ``prune_solvable`` costs no second pass, and a grid it completes (most of an easy dataset)
  skips the hidden-single sweep;
- ``prune`` once (variant ``once``) is Bird's pass, literally;
- the search is an explicit depth-first loop over a preallocated stack of C + 2 matrices: no
  allocation per node, nothing per node but a copy of C masks.

Everything is compiled lazily (importing this module compiles nothing), with ``solver.jit``'s
on-disk cache. Like every kernel, the batch entry point releases the GIL, so other threads of
the process (a worker's heartbeat) run while it solves.
"""

from __future__ import annotations

import numpy as np

from solver.compiled import search_9x9
from solver.compiled.kernels import (
    contradictory,
    copy,
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


def solve_grids(grids: np.ndarray, options: SolveOptions, boxsize: int,
                specialised: bool = True) -> SearchColumns:
    """Search every row of ``grids`` ((n, C) uint8 values, 0 = blank) of box size ``boxsize``
    in one compiled call, with the variant and caps of ``options``; 9 x 9 grids with
    ``search_9x9`` unless not ``specialised``."""
    if boxsize == 3 and specialised:
        return search_9x9.solve_grids(grids, options)
    shape = tables(boxsize)
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, shape.cells)
    found = SearchColumns.empty(len(grids), shape.cells)
    _solve_batch(grids, found, options.limits, shape)
    return found


@compiled
def solvable_by_propagation(grid, matrix, work, hidden_singles, tables):
    """``fix prune (choices g)`` (with ``hidden_singles``: and hidden singles) is complete and
    unblocked."""
    if propagate(grid, matrix, -1, work, False, hidden_singles, tables):
        return False
    return pick_cell(matrix, True) < 0


@compiled(inline="always")
def search(grid, work, solution, limits, tables):
    """Depth-first search from ``choices grid``, as SPEC section 2; the first solution's digits
    into ``solution``. Returns (n_solutions, nodes, max_depth, budget_exceeded,
    root_complete).

    ``work.untried[d]`` holds the digits not yet tried at the cell ``work.chosen[d]`` expanded
    at depth ``d``.
    """
    stack, untried, chosen = work.stack, work.untried, work.chosen
    n_solutions = 0
    nodes = 0
    max_depth = 0
    budget_exceeded = False
    root_complete = False
    depth = 0
    seed = -1
    while True:
        # Visit the node at ``depth``.
        if nodes >= limits.max_nodes:
            budget_exceeded = True
            break
        nodes += 1
        if depth > max_depth:
            max_depth = depth
        matrix = stack[depth]
        untried[depth] = 0
        if not propagate(grid, matrix, seed, work, limits.prune_once, limits.hidden_singles,
                         tables):
            cell = pick_cell(matrix, limits.first_cell)
            if cell < 0:
                if depth == 0:
                    root_complete = True
                n_solutions += 1
                if n_solutions == 1:
                    for c in range(matrix.shape[0]):
                        solution[c] = lowest_bit_index(np.int64(matrix[c])) + 1
                if n_solutions >= limits.max_solutions:
                    break
            else:
                chosen[depth] = cell
                untried[depth] = matrix[cell]
        # Move to the next child: the smallest untried digit of the nearest open level.
        while depth >= 0 and untried[depth] == 0:
            depth -= 1
        if depth < 0:
            break
        rest = np.int32(untried[depth])
        bit = rest & -rest
        untried[depth] = rest & ~bit
        cell = chosen[depth]
        copy(stack[depth + 1], stack[depth])
        stack[depth + 1, cell] = bit
        depth += 1
        seed = cell
    return n_solutions, nodes, max_depth, budget_exceeded, root_complete


@compiled
def _solve_batch(grids, out, limits, tables):
    """Fill the ``SearchColumns`` ``out`` for every row of ``grids``."""
    work = work_arrays(tables)
    scratch = np.empty(grids.shape[1], tables.masks.dtype)
    # bools, not the literals False and True: numba would compile the propagation once for each
    naked_only, with_hidden = np.bool_(False), np.bool_(True)
    timespec = np.zeros(2, np.int64)
    for i in range(grids.shape[0]):
        start = now_ns(timespec)
        grid = grids[i]
        givens = 0
        for c in range(grid.shape[0]):
            if grid[c]:
                givens += 1
        out.givens[i] = givens
        found, visited, deepest, budget_hit, root_complete = search(
            grid, work, out.first_solution[i], limits, tables)
        # Repeated givens block the root, so only a one-node, no-solution search needs the check.
        out.contradictory[i] = visited == 1 and found == 0 and contradictory(grid, tables)
        out.n_solutions[i] = found
        out.search_nodes[i] = visited
        out.search_depth[i] = deepest
        out.budget_exceeded[i] = budget_hit
        # A fixpoint root computes ``fix prune (choices g)`` first (then, under singles, goes
        # on with hidden singles); the ``once`` root is one pass, so propagate again to classify.
        if limits.prune_once:
            prune_ok = solvable_by_propagation(grid, scratch, work, naked_only, tables)
        else:
            prune_ok = work.root_open[0] == 0
        out.prune_solvable[i] = prune_ok
        if prune_ok:
            out.singles_solvable[i] = True
        elif limits.hidden_singles and not limits.prune_once:
            out.singles_solvable[i] = root_complete
        else:
            out.singles_solvable[i] = solvable_by_propagation(grid, scratch, work, with_hidden, tables)
        out.solve_ns[i] = now_ns(timespec) - start
