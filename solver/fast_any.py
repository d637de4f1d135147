"""The fast search for any box size (SPEC section 7): Bird's search on masks of N bits, compiled
with numba, a whole batch of one box size per call.

It visits exactly the nodes of ``solver.bird.search`` and reports the same numbers, as
``solver.fast`` does for 9 x 9 puzzles (which keeps its own kernels, tuned to 81 cells of 9-bit
masks; this module serves 4 x 4, 16 x 16 and 25 x 25, and is tested on 9 x 9 against both):

- a matrix of choices is C = N * N masks (``int32``), bit ``d - 1`` set while digit ``d`` is
  possible; a unit's N cells and a cell's peers come from ``solver.grid.tables(boxsize)``;
- ``fix prune`` at the root is computed by sweeps of per-unit masks of placed digits, below the
  root by a queue of new singletons; hidden singles (rule set ``singles``) are found in the units
  marked dirty (an array of flags: 3N units may be more than 64);
- ``prune`` once is Bird's pass, literally: rows, then columns, then boxes;
- the search is an explicit depth-first loop over a preallocated stack of C + 2 matrices.

Everything is compiled lazily, with ``solver.jit``'s on-disk cache.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.grid import tables
from solver.jit import compiled
from solver.kernels import lowest_bit_index, now_ns
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


# -- bits -------------------------------------------------------------------------------------


@compiled(inline="always")
def popcount(x):
    """The number of set bits of a mask of up to 32 bits."""
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@compiled(inline="always")
def single(x):
    """A mask of exactly one digit."""
    return x != 0 and (x & (x - 1)) == 0


# -- propagation ----------------------------------------------------------------------------------


@compiled(inline="always")
def _mark(dirty, unit_of, cell):
    dirty[unit_of[cell, 0]] = 1
    dirty[unit_of[cell, 1]] = 1
    dirty[unit_of[cell, 2]] = 1


@compiled(inline="always")
def eliminate(matrix, queue, head, tail, dirty, track, peers, unit_of):
    """Take each queued singleton's digit out of its peers until the queue is empty. Returns
    (blocked, tail): a peer that already is that singleton makes the matrix unsafe; a peer
    left with one digit joins the queue; with ``track``, the units of every changed cell are
    marked ``dirty`` (only those can hold a new hidden single)."""
    n_peers = peers.shape[1]
    while head < tail:
        cell = queue[head]
        head += 1
        bit = np.int64(matrix[cell])
        for k in range(n_peers):
            peer = peers[cell, k]
            choices = np.int64(matrix[peer])
            if choices & bit:
                if choices == bit:
                    return True, tail
                choices &= ~bit
                matrix[peer] = choices
                if track:
                    _mark(dirty, unit_of, peer)
                if (choices & (choices - 1)) == 0:
                    queue[tail] = peer
                    tail += 1
    return False, tail


@compiled(inline="always")
def find_hidden_singles(matrix, queue, tail, dirty, units, unit_of, full):
    """Hidden singles in the ``dirty`` units (each unit unmarked as it is looked at; the units
    of a cell made single marked again). Returns (blocked, tail), the singles queued. A digit
    with no home blocks the matrix, and so does a cell that is the only home of two digits."""
    n = units.shape[1]
    for unit in range(units.shape[0]):
        if not dirty[unit]:
            continue
        dirty[unit] = 0
        seen = np.int64(0)
        seen_twice = np.int64(0)
        for k in range(n):
            choices = np.int64(matrix[units[unit, k]])
            seen_twice |= seen & choices
            seen |= choices
        if seen != full:
            return True, tail
        one_home = seen & ~seen_twice
        if one_home == 0:
            continue
        for k in range(n):
            cell = units[unit, k]
            choices = np.int64(matrix[cell])
            hit = choices & one_home
            if hit and not single(choices):
                if not single(hit):
                    return True, tail
                matrix[cell] = hit
                _mark(dirty, unit_of, cell)
                queue[tail] = cell
                tail += 1
    return False, tail


@compiled(inline="always")
def propagate_fixpoint(matrix, queue, tail, dirty, hidden_singles, units, peers, unit_of, full):
    """``fix prune`` (and, with ``hidden_singles``, hidden singles too) of a matrix whose
    unpropagated singletons are ``queue[:tail]`` and whose ``dirty`` units may hold hidden
    singles. Returns blocked."""
    head = 0
    while True:
        blocked, tail = eliminate(matrix, queue, head, tail, dirty, hidden_singles, peers, unit_of)
        if blocked:
            return True
        if not hidden_singles:
            return False
        head = tail
        blocked, tail = find_hidden_singles(matrix, queue, tail, dirty, units, unit_of, full)
        if blocked:
            return True
        if tail == head:
            return False


@compiled(inline="always")
def seed_root(grid, matrix, blanks, placed, units, unit_of, full):
    """``fix prune (choices grid)`` by sweeps over the blank cells; the number of cells left
    open, or -1 when the root is blocked (a given repeated in a unit, or a blank with nothing
    left). ``placed[u]`` holds the digits of the singletons of unit ``u``."""
    for unit in range(units.shape[0]):
        placed[unit] = 0
    n_blanks = 0
    for cell in range(grid.shape[0]):
        digit = grid[cell]
        if digit:
            bit = np.int64(1) << (digit - 1)
            matrix[cell] = bit
            for k in range(3):
                unit = unit_of[cell, k]
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
            left = full & ~(placed[unit_of[cell, 0]] | placed[unit_of[cell, 1]]
                            | placed[unit_of[cell, 2]])
            matrix[cell] = left
            if left == 0:
                return -1
            if single(left):
                placed[unit_of[cell, 0]] |= left
                placed[unit_of[cell, 1]] |= left
                placed[unit_of[cell, 2]] |= left
                progress = True
            else:
                blanks[still_open] = cell
                still_open += 1
        n_blanks = still_open
    return n_blanks


@compiled(inline="always")
def blocked(matrix, units):
    """blocked m = void m || not (safe m)"""
    for cell in range(matrix.shape[0]):
        if matrix[cell] == 0:
            return True
    for unit in range(units.shape[0]):
        seen = np.int64(0)
        for k in range(units.shape[1]):
            choices = np.int64(matrix[units[unit, k]])
            if single(choices):
                if seen & choices:
                    return True
                seen |= choices
    return False


@compiled(inline="always")
def _prune_once(matrix, units):
    """Bird's ``prune`` (one pass): rows, then columns, then boxes; returns ``blocked``."""
    for unit in range(units.shape[0]):
        ones = np.int64(0)
        for k in range(units.shape[1]):
            choices = np.int64(matrix[units[unit, k]])
            if single(choices):
                ones |= choices
        for k in range(units.shape[1]):
            cell = units[unit, k]
            choices = np.int64(matrix[cell])
            if not single(choices):
                matrix[cell] = choices & ~ones
    return blocked(matrix, units)


@compiled(inline="always")
def load_choices(grid, matrix, full):
    """choices: a blank is every digit, a given d is {d}."""
    for cell in range(grid.shape[0]):
        digit = grid[cell]
        matrix[cell] = full if digit == 0 else (np.int64(1) << (digit - 1))


@compiled(inline="always")
def pick_cell(matrix, first_cell):
    """The cell to expand: the first open cell, or the first with the fewest choices; -1 when
    every cell is a singleton (complete)."""
    best = -1
    fewest = 64
    for cell in range(matrix.shape[0]):
        n = popcount(np.int64(matrix[cell]))
        if n > 1 and n < fewest:
            best = cell
            fewest = n
            if first_cell or n == 2:
                break
    return best


@compiled(inline="always")
def propagate(grid, matrix, seed, work, prune_once, hidden_singles, units, peers, unit_of, full):
    """Step 1 of a node: ``prune`` once, or to the fixpoint from the root's ``grid`` (``seed``
    < 0) or from a child's one newly fixed cell ``seed``. Returns blocked; a fixpoint root sets
    ``work.root_open[0]`` to the cells ``fix prune`` alone left open (-1: blocked)."""
    if prune_once:
        if seed < 0:
            load_choices(grid, matrix, full)
        return _prune_once(matrix, units)
    dirty = work.dirty
    if seed < 0:
        still_open = seed_root(grid, matrix, work.queue, work.placed, units, unit_of, full)
        work.root_open[0] = still_open
        if still_open <= 0:
            return still_open < 0
        tail = 0
        for unit in range(units.shape[0]):
            dirty[unit] = 1
    else:
        for unit in range(units.shape[0]):
            dirty[unit] = 0
        work.queue[0] = seed
        tail = 1
        _mark(dirty, unit_of, seed)
    return propagate_fixpoint(matrix, work.queue, tail, dirty, hidden_singles, units, peers,
                              unit_of, full)


# -- the search -----------------------------------------------------------------------------------


@compiled
def contradictory(grid, units):
    """Givens repeat a digit in some unit."""
    for unit in range(units.shape[0]):
        seen = np.int64(0)
        for k in range(units.shape[1]):
            digit = grid[units[unit, k]]
            if digit:
                bit = np.int64(1) << (digit - 1)
                if seen & bit:
                    return True
                seen |= bit
    return False


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


class Work(NamedTuple):
    """The arrays a search works in, allocated once per batch (``work_arrays``)."""

    stack: np.ndarray  # (C + 2, C) int32: the matrix of each depth
    untried: np.ndarray  # (C + 2,) int32: the digits not yet tried at each depth
    chosen: np.ndarray  # (C + 2,) int32: the cell expanded at each depth
    queue: np.ndarray  # (2C + 2,) int32: singletons to propagate (a cell once per node)
    placed: np.ndarray  # (3N,) int64: the digits placed in each unit (the root's sweeps)
    dirty: np.ndarray  # (3N,) uint8: the units that may hold a hidden single
    root_open: np.ndarray  # (1,) int64: the cells the root's ``fix prune`` left open


@compiled
def work_arrays(cells, n_units):
    return Work(np.empty((cells + 2, cells), np.int32), np.empty(cells + 2, np.int32),
                np.empty(cells + 2, np.int32), np.empty(2 * cells + 2, np.int32),
                np.empty(n_units, np.int64), np.zeros(n_units, np.uint8),
                np.zeros(1, np.int64))


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
