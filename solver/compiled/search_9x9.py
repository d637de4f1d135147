"""The fast implementation: Bird's search on bit masks, compiled with numba, a whole batch per call.

It visits exactly the nodes of ``solver.reference.bird.search`` (SPEC section 2) and reports the
same numbers; only the representation differs:

- a matrix of choices is 81 ``uint16`` masks, bit ``d - 1`` set when digit ``d`` is still possible;
- ``fix prune`` at the root is computed by sweeps of per-unit masks of placed digits, and below
  the root by a queue of new singletons (each cell's digit is taken out of its 20 peers once).
  Both reach the closure of naked-single elimination, the same matrix Bird's passes reach
  whenever the node is not blocked, and a blocked node is blocked either way. Under ``singles``
  the root computes that closure first, so ``prune_solvable`` costs no second pass, and a grid
  it completes (most of an easy dataset) skips the hidden-single sweep;
- ``prune`` once (variant ``once``) is Bird's pass, literally: rows, then columns, then boxes, each
  unit reduced by the singletons it held before its own reduction;
- hidden singles (rule set ``singles``) are found a unit at a time with two masks: digits seen at
  least once and digits seen more than once, in the units where some cell changed;
- the search is an explicit depth-first loop over a preallocated stack of 83 matrices: no
  allocation per node, nothing per node but a copy of 81 masks.

The propagation kernels are ``solver.compiled.kernels_9x9``'. Everything is compiled with an on-disk
cache (``solver.jit``) so a machine pays the compilation once per version of the source, and lazily:
importing this module compiles nothing. Like every kernel, the batch entry point releases the GIL,
so other threads of the process (a worker's heartbeat) run while it solves.
"""

from __future__ import annotations

import numpy as np

from solver.compiled.kernels import Work, now_ns
from solver.compiled.kernels_9x9 import (
    ALL,
    ALL_UNITS,
    BIT_TABLES,
    QUEUE_LENGTH,
    STACK_DEPTH,
    copy_matrix,
    pick_cell,
    propagate_fixpoint,
    seed_root,
)
from solver.jit import compiled
from solver.options import Limits, SolveOptions
from solver.records import SearchColumns

__all__ = ["solve_grids"]


def solve_grids(grids: np.ndarray, options: SolveOptions) -> SearchColumns:
    """Search every row of ``grids`` ((n, 81) uint8, 0 = blank, 1..9 = given) in one compiled
    call, with the variant and caps of ``options``."""
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, 81)
    found = SearchColumns.empty(len(grids))
    _solve_batch(grids, found, options.limits, BIT_TABLES)
    return found


# The search takes ``options.Limits`` and ``kernels.Work`` as the any-size search does, and takes
# the arrays out of ``work`` once a puzzle, before its loop over the nodes: read through the
# record at every node, each access costs numba a reference count update. So taken, the
# records cost nothing measurable (BENCHMARKS.md, issue 30).

# -- propagation ----------------------------------------------------------------------------------


@compiled(inline="always")
def _prune_once(matrix, tables):
    """Bird's ``prune`` (one pass): rows, then columns, then boxes; returns ``blocked``."""
    for unit in range(27):
        ones = 0
        for k in range(9):
            cell_choices = np.int32(matrix[tables.units[unit, k]])
            if tables.popcount[cell_choices] == 1:
                ones |= cell_choices
        for k in range(9):
            cell = tables.units[unit, k]
            cell_choices = np.int32(matrix[cell])
            if tables.popcount[cell_choices] > 1:
                matrix[cell] = cell_choices & ~ones
    return _blocked(matrix, tables)


@compiled(inline="always")
def _blocked(matrix, tables):
    """blocked m = void m || not (safe m)"""
    for cell in range(81):
        if matrix[cell] == 0:
            return True
    for unit in range(27):
        seen = 0
        for k in range(9):
            cell_choices = np.int32(matrix[tables.units[unit, k]])
            if tables.popcount[cell_choices] == 1:
                if seen & cell_choices:
                    return True
                seen |= cell_choices
    return False


@compiled(inline="always")
def _propagate(grid, matrix, seed, queue, root_open, limits, tables):
    """Step 1 of a node: ``prune`` once, or to the fixpoint from the root's ``grid`` (``seed``
    < 0) or from a child's one newly fixed cell ``seed``, as ``limits`` say.  Returns blocked.

    A fixpoint root also sets ``root_open[0]`` to the cells ``fix prune`` alone left open (-1:
    blocked); when it left none, hidden singles have nothing to do.
    """
    if limits.prune_once:
        if seed < 0:
            _load_choices(grid, matrix)
        return _prune_once(matrix, tables)
    if seed < 0:
        still_open = seed_root(grid, matrix, queue, tables)
        root_open[0] = still_open
        if still_open <= 0:
            return still_open < 0
        tail = 0
        dirty = ALL_UNITS
    else:
        queue[0] = seed
        tail = 1
        dirty = tables.unit_bits[seed]
    return propagate_fixpoint(matrix, queue, tail, dirty, limits.hidden_singles, tables)




# -- the search -----------------------------------------------------------------------------------


@compiled(borrows=True)
def _contradictory(grid, tables):
    """Givens repeat a digit in some unit."""
    for unit in range(27):
        seen = 0
        for k in range(9):
            digit = grid[tables.units[unit, k]]
            if digit:
                bit = 1 << (digit - 1)
                if seen & bit:
                    return True
                seen |= bit
    return False


@compiled(borrows=True)
def _load_choices(grid, matrix):
    """choices: a blank is every digit, a given d is {d}."""
    for cell in range(81):
        digit = grid[cell]
        matrix[cell] = ALL if digit == 0 else (1 << (digit - 1))


@compiled
def _solvable_by_propagation(grid, scratch, work, hidden_singles, tables):
    """``fix prune (choices g)`` (with ``hidden_singles``: and hidden singles) is complete and
    unblocked."""
    fixpoint = Limits(1, 1, False, False, hidden_singles)  # the caps play no part in propagating
    if _propagate(grid, scratch, -1, work.queue, work.root_open, fixpoint, tables):
        return False
    return pick_cell(scratch, True, tables) < 0


@compiled(inline="always")
def _search(grid, work, solution, limits, tables):
    """Depth-first search from ``choices grid``, as SPEC section 2.

    ``untried[d]`` holds the digits not yet tried at the cell ``chosen[d]`` expanded at depth
    ``d``. Returns (n_solutions, nodes, max_depth, budget_exceeded, root_complete).
    """
    stack, untried, chosen, queue, root_open = work.stack, work.untried, work.chosen, \
        work.queue, work.root_open
    max_solutions, max_nodes, first_cell = limits.max_solutions, limits.max_nodes, \
        limits.first_cell
    n_solutions = 0
    nodes = 0
    max_depth = 0
    budget_exceeded = False
    root_complete = False
    depth = 0
    seed = -1
    while True:
        # Visit the node at ``depth``.
        if nodes >= max_nodes:
            budget_exceeded = True
            break
        nodes += 1
        if depth > max_depth:
            max_depth = depth
        matrix = stack[depth]
        untried[depth] = 0
        if not _propagate(grid, matrix, seed, queue, root_open, limits, tables):
            cell = pick_cell(matrix, first_cell, tables)
            if cell < 0:
                if depth == 0:
                    root_complete = True
                n_solutions += 1
                if n_solutions == 1:
                    for c in range(81):
                        solution[c] = tables.digit_of[matrix[c]]
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
        rest = np.int32(untried[depth])
        bit = rest & -rest
        untried[depth] = rest & ~bit
        cell = chosen[depth]
        copy_matrix(stack[depth + 1], stack[depth])
        stack[depth + 1, cell] = bit
        depth += 1
        seed = cell
    return n_solutions, nodes, max_depth, budget_exceeded, root_complete


@compiled
def _solve_batch(grids, out, limits, tables):
    """Fill the ``SearchColumns`` ``out`` for every row of ``grids``."""
    work = Work(np.empty((STACK_DEPTH, 81), np.uint16), np.empty(STACK_DEPTH, np.uint16),
                np.empty(STACK_DEPTH, np.int16), np.empty(QUEUE_LENGTH, np.int16),
                np.empty(27, np.int32), np.empty(27, np.uint8), np.empty(1, np.int64))
    scratch = np.empty(81, np.uint16)
    prune_once, hidden_singles = limits.prune_once, limits.hidden_singles
    # bools, not the literals False and True: numba would compile the propagation once for each
    naked_only, with_hidden = np.bool_(False), np.bool_(True)
    timespec = np.zeros(2, np.int64)

    for i in range(grids.shape[0]):
        start = now_ns(timespec)
        grid = grids[i]
        givens = 0
        for c in range(81):
            if grid[c]:
                givens += 1
        out.givens[i] = givens
        found, visited, deepest, budget_hit, root_complete = _search(
            grid, work, out.first_solution[i], limits, tables)
        # Repeated givens block the root, so only a one-node, no-solution search needs the check.
        out.contradictory[i] = visited == 1 and found == 0 and _contradictory(grid, tables)
        out.n_solutions[i] = found
        out.search_nodes[i] = visited
        out.search_depth[i] = deepest
        out.budget_exceeded[i] = budget_hit
        # A fixpoint root computes ``fix prune (choices g)`` first (then, under singles, goes
        # on with hidden singles); the ``once`` root is one pass, so propagate again to classify.
        if prune_once:
            prune_ok = _solvable_by_propagation(grid, scratch, work, naked_only, tables)
        else:
            prune_ok = work.root_open[0] == 0
        out.prune_solvable[i] = prune_ok
        if prune_ok:
            out.singles_solvable[i] = True
        elif hidden_singles and not prune_once:
            out.singles_solvable[i] = root_complete
        else:
            out.singles_solvable[i] = _solvable_by_propagation(grid, scratch, work, with_hidden,
                                                               tables)
        out.solve_ns[i] = now_ns(timespec) - start
