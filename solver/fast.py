"""The fast engine: Bird's search on bit masks, compiled with numba, a whole batch per call.

It visits exactly the nodes of ``solver.bird.search`` (SPEC section 2) and reports the same numbers;
only the representation differs:

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

Everything is compiled with ``cache=True`` so a machine pays the compilation once, ever, and
lazily: importing this module compiles nothing. The batch entry point releases the GIL
(``nogil=True``), so other threads of the process (a worker's heartbeat) run while it solves.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from solver.grid import TABLES, Tables
from solver.records import SearchColumns
from solver.vocabulary import SearchOptions

__all__ = ["ALL", "TABLES", "SearchColumns", "Tables", "solve_grids"]

ALL = 0x1FF  # the nine digits
ALL_UNITS = (1 << 27) - 1
STACK_DEPTH = 83  # at most 81 open cells, plus the root, plus the child being entered
QUEUE_LENGTH = 256  # a singleton is queued at most once per cell between two expansions


def solve_grids(grids: np.ndarray, options: SearchOptions) -> SearchColumns:
    """Search every row of ``grids`` ((n, 81) uint8, 0 = blank, 1..9 = given) in one compiled
    call, with the variant and caps of ``options``."""
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, 81)
    found = SearchColumns.empty(len(grids))
    _solve_batch(grids, found, options.max_solutions, options.max_nodes, options.prune_once,
                 options.first_cell, options.hidden_singles, TABLES)
    return found


# clock_gettime(CLOCK_MONOTONIC) through the C library by symbol name: ~20 ns a call, and unlike
# a ctypes pointer it keeps the functions cacheable.
_clock_gettime = types.ExternalFunction("clock_gettime", types.int32(types.int32, types.voidptr))
CLOCK_MONOTONIC = 1


@intrinsic
def _as_voidptr(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@njit(cache=True)
def _now_ns(timespec):
    _clock_gettime(CLOCK_MONOTONIC, _as_voidptr(timespec.ctypes.data))
    return timespec[0] * 1_000_000_000 + timespec[1]


# -- propagation ----------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _eliminate(matrix, queue, head, tail, dirty, hidden_singles, tables):
    """Take each queued singleton's digit out of its peers until the queue is empty.

    Returns (blocked, tail, dirty).  A peer that already is that singleton makes the matrix
    unsafe; a peer left with one digit joins the queue; ``dirty`` gains the units of every cell
    that changed (only those can hold a new hidden single; tracked only for ``hidden_singles``).
    """
    while head < tail:
        cell = queue[head]
        head += 1
        bit = np.int32(matrix[cell])
        for k in range(20):
            peer = tables.peers[cell, k]
            peer_choices = np.int32(matrix[peer])
            if peer_choices & bit:
                if peer_choices == bit:
                    return True, tail, dirty
                peer_choices &= ~bit
                matrix[peer] = peer_choices
                if hidden_singles:
                    dirty |= tables.unit_bits[peer]
                if tables.popcount[peer_choices] == 1:
                    queue[tail] = peer
                    tail += 1
    return False, tail, dirty


@njit(cache=True, inline="always")
def _hidden_singles(matrix, queue, tail, dirty, tables):
    """Hidden singles in the ``dirty`` units.  Returns (blocked, tail, dirty): the new singletons
    are queued, and ``dirty`` is left with the units of the cells they changed.

    Per unit: ``seen`` holds the digits seen at least once, ``seen_twice`` those seen twice or
    more, so ``seen & ~seen_twice`` are the digits with exactly one home.  A digit with no home
    blocks the matrix, and so does a cell that is the only home of two digits (whichever it
    takes, the other has none).
    """
    changed = 0
    for unit in range(27):
        if not (dirty >> unit) & 1:
            continue
        seen = 0
        seen_twice = 0
        for k in range(9):
            cell_choices = np.int32(matrix[tables.units[unit, k]])
            seen_twice |= seen & cell_choices
            seen |= cell_choices
        if seen != ALL:
            return True, tail, 0
        one_home = seen & ~seen_twice
        if one_home == 0:
            continue
        for k in range(9):
            cell = tables.units[unit, k]
            cell_choices = np.int32(matrix[cell])
            hit = cell_choices & one_home
            if hit and tables.popcount[cell_choices] > 1:
                if tables.popcount[hit] > 1:
                    return True, tail, 0
                matrix[cell] = hit
                changed |= tables.unit_bits[cell]
                queue[tail] = cell
                tail += 1
    return False, tail, changed


@njit(cache=True, inline="always")
def _propagate_fixpoint(matrix, queue, tail, dirty, hidden_singles, tables):
    """``fix prune`` (and, with ``hidden_singles``, hidden singles too) of a matrix whose
    unpropagated singletons are ``queue[:tail]`` and whose ``dirty`` units may hold hidden
    singles.  Returns blocked."""
    head = 0
    while True:
        blocked, tail, dirty = _eliminate(matrix, queue, head, tail, dirty, hidden_singles, tables)
        if blocked:
            return True
        if not hidden_singles:
            return False
        head = tail
        blocked, tail, dirty = _hidden_singles(matrix, queue, tail, dirty, tables)
        if blocked:
            return True
        if tail == head:
            return False


@njit(cache=True, inline="always")
def _seed_root(grid, matrix, blanks, tables):
    """``fix prune (choices grid)`` for the root, by sweeps over the blank cells; returns the
    number of cells it leaves open, or -1 when the root is blocked.

    ``placed[u]`` holds the digits of the singletons of unit ``u``; a blank may hold what none of
    its three units has placed, and one left with a single digit is placed in turn, until a
    sweep places nothing.  That is the closure of naked-single elimination, the fixpoint of
    ``prune``, reached without visiting peers one by one (most puzzles of a dataset are settled
    here).  A given repeated in a unit, or a blank with nothing left, blocks the root.
    """
    placed = np.zeros(27, np.int32)
    n_blanks = 0
    for cell in range(81):
        digit = grid[cell]
        if digit:
            bit = 1 << (digit - 1)
            matrix[cell] = bit
            for k in range(3):
                unit = tables.unit_of[cell, k]
                if placed[unit] & bit:
                    return -1
                placed[unit] |= bit
        else:
            blanks[n_blanks] = cell
            n_blanks += 1
    progress = True
    while progress:
        progress = False
        still_open = 0
        for j in range(n_blanks):
            cell = blanks[j]
            units = tables.unit_of[cell]
            left = ALL & ~(placed[units[0]] | placed[units[1]] | placed[units[2]])
            matrix[cell] = left
            if left == 0:
                return -1
            if tables.popcount[left] == 1:
                placed[units[0]] |= left
                placed[units[1]] |= left
                placed[units[2]] |= left
                progress = True
            else:
                blanks[still_open] = cell
                still_open += 1
        n_blanks = still_open
    return n_blanks


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _propagate(grid, matrix, seed, queue, root_open, prune_once, hidden_singles, tables):
    """Step 1 of a node: ``prune`` once, or to the fixpoint from the root's ``grid`` (``seed``
    < 0) or from a child's one newly fixed cell ``seed``.  Returns blocked.

    A fixpoint root also sets ``root_open[0]`` to the cells ``fix prune`` alone left open (-1:
    blocked); when it left none, hidden singles have nothing to do.
    """
    if prune_once:
        if seed < 0:
            _load_choices(grid, matrix)
        return _prune_once(matrix, tables)
    if seed < 0:
        still_open = _seed_root(grid, matrix, queue, tables)
        root_open[0] = still_open
        if still_open <= 0:
            return still_open < 0
        tail = 0
        dirty = ALL_UNITS
    else:
        queue[0] = seed
        tail = 1
        dirty = tables.unit_bits[seed]
    return _propagate_fixpoint(matrix, queue, tail, dirty, hidden_singles, tables)


@njit(cache=True, inline="always")
def _pick_cell(matrix, first_cell, tables):
    """The cell to expand: the first open cell, or the first with the fewest choices; -1 when
    every cell is a singleton (complete)."""
    best = -1
    fewest = 10
    for cell in range(81):
        n = tables.popcount[matrix[cell]]
        if n > 1 and n < fewest:
            best = cell
            fewest = n
            if first_cell or n == 2:
                break
    return best


# -- the search -----------------------------------------------------------------------------------


@njit(cache=True)
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


@njit(cache=True)
def _load_choices(grid, matrix):
    """choices: a blank is every digit, a given d is {d}."""
    for cell in range(81):
        digit = grid[cell]
        matrix[cell] = ALL if digit == 0 else (1 << (digit - 1))


@njit(cache=True)
def _solvable_by_propagation(grid, scratch, queue, root_open, hidden_singles, tables):
    """``fix prune (choices g)`` (with ``hidden_singles``: and hidden singles) is complete and
    unblocked."""
    if _propagate(grid, scratch, -1, queue, root_open, False, hidden_singles, tables):
        return False
    return _pick_cell(scratch, True, tables) < 0


@njit(cache=True, inline="always")
def _search(grid, stack, untried, chosen, queue, root_open, solution, max_solutions, max_nodes,
            prune_once, first_cell, hidden_singles, tables):
    """Depth-first search from ``choices grid``, as SPEC section 2.

    ``untried[d]`` holds the digits not yet tried at the cell ``chosen[d]`` expanded at depth
    ``d``. Returns (n_solutions, nodes, max_depth, budget_exceeded, root_complete).
    """
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
        if not _propagate(grid, matrix, seed, queue, root_open, prune_once, hidden_singles,
                          tables):
            cell = _pick_cell(matrix, first_cell, tables)
            if cell < 0:
                if depth == 0:
                    root_complete = True
                n_solutions += 1
                if n_solutions == 1:
                    for c in range(81):
                        solution[c] = tables.digit_of[matrix[c]] + 48  # ASCII digits
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
        stack[depth + 1, :] = stack[depth, :]
        stack[depth + 1, cell] = bit
        depth += 1
        seed = cell
    return n_solutions, nodes, max_depth, budget_exceeded, root_complete


@njit(cache=True, nogil=True)  # a worker's heartbeat thread runs while a batch is solved
def _solve_batch(grids, out, max_solutions, max_nodes, prune_once, first_cell, hidden_singles,
                 tables):
    """Fill the ``SearchColumns`` ``out`` for every row of ``grids``."""
    stack = np.empty((STACK_DEPTH, 81), np.uint16)
    untried = np.empty(STACK_DEPTH, np.uint16)
    chosen = np.empty(STACK_DEPTH, np.int16)
    queue = np.empty(QUEUE_LENGTH, np.int16)
    root_open = np.empty(1, np.int32)
    scratch = np.empty(81, np.uint16)
    timespec = np.zeros(2, np.int64)

    for i in range(grids.shape[0]):
        start = _now_ns(timespec)
        grid = grids[i]
        givens = 0
        for c in range(81):
            if grid[c]:
                givens += 1
        out.givens[i] = givens
        found, visited, deepest, budget_hit, root_complete = _search(
            grid, stack, untried, chosen, queue, root_open, out.first_solution[i], max_solutions,
            max_nodes, prune_once, first_cell, hidden_singles, tables)
        # Repeated givens block the root, so only a one-node, no-solution search needs the check.
        out.contradictory[i] = visited == 1 and found == 0 and _contradictory(grid, tables)
        out.n_solutions[i] = found
        out.search_nodes[i] = visited
        out.search_depth[i] = deepest
        out.budget_exceeded[i] = budget_hit
        # A fixpoint root computes ``fix prune (choices g)`` first (then, under singles, goes
        # on with hidden singles); the ``once`` root is one pass, so propagate again to classify.
        if prune_once:
            prune_ok = _solvable_by_propagation(grid, scratch, queue, root_open, False, tables)
        else:
            prune_ok = root_open[0] == 0
        out.prune_solvable[i] = prune_ok
        if prune_ok:
            out.singles_solvable[i] = True
        elif hidden_singles and not prune_once:
            out.singles_solvable[i] = root_complete
        else:
            out.singles_solvable[i] = _solvable_by_propagation(grid, scratch, queue, root_open,
                                                               True, tables)
        out.solve_ns[i] = _now_ns(timespec) - start
