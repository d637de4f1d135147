"""SPEC 5.1's ``grade`` for any box size, compiled with numba: the first rung of the ladder whose
closure solves the puzzle, the same as ``solver.ladder.grade``.

A matrix of choices is C masks of N bits (``solver.fast_any``'s propagation does the naked and
hidden singles). What this module adds, each rule an elimination pass over the matrix:

- **L**, locked candidates, over every place a box meets a line (b shared cells, the box's other
  N - b cells, the line's other N - b cells): a digit of the shared cells that the rest of the
  box lacks leaves the rest of the line (pointing), and one the rest of the line lacks leaves
  the rest of the box (claiming);
- **S**, subsets, per unit as a matching: the cells and digits of a unit form a bipartite graph,
  and SPEC's rule (k cells allowing exactly k digits between them, 1 <= k <= N - 1: those
  digits leave the unit's other cells) removes exactly the edges that lie in no perfect
  matching (Hall's theorem: an edge (c, d) in no perfect matching leaves a set of cells
  without c whose digits, d among them, are as many as they are). So one perfect matching and
  the cells each cell can reach by alternating paths give every elimination of every subset at
  once, in polynomial time, and a unit with no perfect matching is blocked (k cells allowing
  fewer than k digits). ``solver.ladder`` enumerates the subsets, literally; the tests hold the
  two equal.

Each rung goes on from the closure of the one before; cheap rules run first, and whatever a rule
removes is propagated by singles before anything else runs. Everything is compiled lazily, with
``solver.jit``'s on-disk cache.
"""

from __future__ import annotations

import functools

import numpy as np

from solver.fast_any import propagate_fixpoint, seed_root, single, work_arrays
from solver.grid import tables
from solver.jit import compiled
from solver.kernels import lowest_bit_index
from solver.vocabulary import GRADES

PRUNE, SINGLES, INTERSECTIONS, SUBSETS = (GRADES.index(rung) for rung in
                                          ("prune", "singles", "intersections", "subsets"))
SEARCH = GRADES.index("search")


@functools.cache
def meetings(boxsize: int) -> np.ndarray:
    """(2N * b, 2N - b): for each place a box meets a row or a column, its b shared cells,
    then the box's N - b other cells, then the line's N - b other cells."""
    shape = tables(boxsize)
    n = boxsize * boxsize
    rows = []
    for box in range(2 * n, 3 * n):
        for line in range(2 * n):
            shared = sorted(set(shape.units[box].tolist()) & set(shape.units[line].tolist()))
            if len(shared) == boxsize:
                box_rest = [c for c in shape.units[box].tolist() if c not in shared]
                line_rest = [c for c in shape.units[line].tolist() if c not in shared]
                rows.append(shared + box_rest + line_rest)
    return np.array(rows, np.int16)


def grades(grids: np.ndarray, boxsize: int) -> np.ndarray:
    """SPEC 5.1 for every row of ``grids`` ((n, C) values, 0 = blank): int8 indexes into
    ``GRADES`` ("search" for a puzzle no closure solves, a blocked one included)."""
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, boxsize**4)
    out = np.empty(len(grids), np.int8)
    shape = tables(boxsize)
    _grade_batch(grids, out, shape.units, shape.peers, shape.unit_of, meetings(boxsize))
    return out


# -- the closure ------------------------------------------------------------------------------


@compiled
def close_singles(matrix, work, units, peers, unit_of, full):
    """Naked and hidden singles to their fixpoint from any matrix (every singleton queued,
    every unit looked at); returns blocked."""
    tail = 0
    for cell in range(matrix.shape[0]):
        if single(np.int64(matrix[cell])):
            work.queue[tail] = cell
            tail += 1
    for unit in range(units.shape[0]):
        work.dirty[unit] = 1
    return propagate_fixpoint(matrix, work.queue, tail, work.dirty, True, units, peers, unit_of,
                              full)


@compiled
def lock_pass(matrix, meetings, b):
    """One pass of L over the box/line meetings; returns (blocked, changed)."""
    n_rest = meetings.shape[1] - b
    rest = n_rest // 2
    changed = False
    for meeting in range(meetings.shape[0]):
        cells = meetings[meeting]
        shared = np.int64(0)
        for k in range(b):
            shared |= matrix[cells[k]]
        box_rest = np.int64(0)
        line_rest = np.int64(0)
        for k in range(rest):
            box_rest |= matrix[cells[b + k]]
            line_rest |= matrix[cells[b + rest + k]]
        pointing = shared & ~box_rest & line_rest
        claiming = shared & ~line_rest & box_rest
        for k in range(rest):
            if pointing:
                cell = cells[b + rest + k]
                after = np.int64(matrix[cell]) & ~pointing
                if after != matrix[cell]:
                    matrix[cell] = after
                    changed = True
                    if after == 0:
                        return True, changed
            if claiming:
                cell = cells[b + k]
                after = np.int64(matrix[cell]) & ~claiming
                if after != matrix[cell]:
                    matrix[cell] = after
                    changed = True
                    if after == 0:
                        return True, changed
    return False, changed


@compiled
def subsets_pass(matrix, units, match, owner, reach):
    """One pass of S over every unit, as a matching (see the module); returns (blocked,
    changed). ``match``, ``owner`` and ``reach`` are work arrays of N entries."""
    n = units.shape[1]
    changed = False
    for unit in range(units.shape[0]):
        if not _perfect_matching(matrix, units[unit], match, owner):
            return True, changed
        # reach[i]: the cells (bits) cell i reaches by alternating paths: i allows digit d, d is
        # matched to cell owner[d], and so on.
        for i in range(n):
            allowed = np.int64(matrix[units[unit, i]]) & ~(np.int64(1) << match[i])
            step = np.int64(0)
            while allowed:
                d = lowest_bit_index(allowed)
                allowed &= allowed - 1
                step |= np.int64(1) << owner[d]
            reach[i] = step
        for k in range(n):  # transitive closure, a cell at a time (Floyd-Warshall on bits)
            through = np.int64(1) << k
            for i in range(n):
                if reach[i] & through:
                    reach[i] |= reach[k]
        for i in range(n):
            cell = units[unit, i]
            choices = np.int64(matrix[cell])
            keep = np.int64(1) << match[i]
            others = choices & ~keep
            while others:
                d = lowest_bit_index(others)
                others &= others - 1
                if (reach[owner[d]] >> i) & 1:  # a cycle i -> owner[d] -> ... -> i
                    keep |= np.int64(1) << d
            if keep != choices:
                matrix[cell] = keep
                changed = True
    return False, changed


@compiled
def _perfect_matching(matrix, cells, match, owner):
    """A matching of every cell of the unit ``cells`` to a digit it allows, each digit once
    (augmenting paths); False when there is none."""
    n = cells.shape[0]
    for d in range(n):
        owner[d] = -1
    for i in range(n):
        match[i] = -1
    for i in range(n):
        if not _augment(matrix, cells, i, match, owner, np.int64(0)):
            return False
    return True


@compiled
def _augment(matrix, cells, i, match, owner, visited):
    """Find a digit for cell ``i``, moving other cells to other digits as needed (depth-first;
    ``visited`` holds the digits seen on this path, as bits). Recursion depth is at most N."""
    allowed = np.int64(matrix[cells[i]]) & ~visited
    while allowed:
        d = lowest_bit_index(allowed)
        allowed &= allowed - 1
        visited |= np.int64(1) << d
        if owner[d] < 0 or _augment(matrix, cells, owner[d], match, owner, visited):
            owner[d] = i
            match[i] = d
            return True
    return False


@compiled
def complete(matrix):
    for cell in range(matrix.shape[0]):
        if not single(np.int64(matrix[cell])):
            return False
    return True


@compiled
def _grade_batch(grids, out, units, peers, unit_of, meetings):
    """``out[i]``: the index in GRADES of row i's grade."""
    cells = grids.shape[1]
    n = units.shape[1]
    b = 2 * n - meetings.shape[1]  # a meeting holds b shared cells and twice N - b others
    work = work_arrays(cells, units.shape[0])
    matrix = np.empty(cells, np.int32)
    match = np.empty(n, np.int64)
    owner = np.empty(n, np.int64)
    reach = np.empty(n, np.int64)
    full = (np.int64(1) << n) - 1
    for i in range(grids.shape[0]):
        out[i] = _grade(grids[i], matrix, work, match, owner, reach, units, peers, unit_of,
                        meetings, b, full)


@compiled
def _grade(grid, matrix, work, match, owner, reach, units, peers, unit_of, meetings, b, full):
    """The first rung whose closure is complete and unblocked; each rung goes on from the
    closure of the one before (any order of the rules reaches the same closure)."""
    still_open = seed_root(grid, matrix, work.queue, work.placed, units, unit_of, full)
    if still_open < 0:
        return SEARCH
    if still_open == 0:
        return PRUNE
    for unit in range(units.shape[0]):
        work.dirty[unit] = 1
    if propagate_fixpoint(matrix, work.queue, 0, work.dirty, True, units, peers, unit_of, full):
        return SEARCH
    if complete(matrix):
        return SINGLES
    for rung in (INTERSECTIONS, SUBSETS):
        while True:
            blocked, changed = lock_pass(matrix, meetings, b)
            if not blocked and not changed and rung >= SUBSETS:
                blocked, changed = subsets_pass(matrix, units, match, owner, reach)
            if blocked:
                return SEARCH
            if not changed:
                break
            if close_singles(matrix, work, units, peers, unit_of, full):
                return SEARCH
        if complete(matrix):
            return rung
    return SEARCH

