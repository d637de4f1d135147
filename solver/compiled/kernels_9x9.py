"""The 9 x 9 specialisation of ``solver.compiled.kernels``: Bird's propagation on 9-bit masks
with bit tables (``BIT_TABLES``: popcount, digit and unit bits of 81 cells).

A matrix of choices is 81 ``uint16`` masks, bit ``d - 1`` set when digit ``d`` is still possible.
``seed_root`` computes ``fix prune (choices grid)`` by sweeps of per-unit masks of placed
digits (``sweep``; the generator sweeps from the digits it keeps placed);
``propagate_fixpoint`` carries a matrix to the closure of naked singles (and, when asked, hidden
singles) from a queue of new singletons; ``pick_cell`` is SPEC section 2's choice of the cell
to expand. ``solver.compiled.search_9x9`` (the search), ``solver.compiled.measures_9x9`` (rating
and backdoor) and ``solver.compiled.generate`` build on them, through this module only; ``solver.jit``
keys each module's cache to the source of the modules it imports, so an edit here can never
leave another module's cached code running the old kernels.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.grid import tables
from solver.jit import compiled

ALL = 0x1FF  # the nine digits
ALL_UNITS = (1 << 27) - 1
STACK_DEPTH = 83  # at most 81 open cells, plus the root, plus the child being entered
QUEUE_LENGTH = 256  # a singleton is queued at most once per cell between two expansions


class BitTables(NamedTuple):
    """The 9 x 9 tables the kernels here take: ``solver.grid.tables(3)``'s and bit tables."""

    units: np.ndarray  # (27, 9) cells of each unit: rows, then columns, then boxes
    peers: np.ndarray  # (81, 20) the cells sharing a unit with each cell
    unit_of: np.ndarray  # (81, 3) the row, column and box of each cell
    unit_bits: np.ndarray  # (81,) int32: the same three units as bits of the 27
    popcount: np.ndarray  # (512,) int8: the number of digits in a mask
    digit_of: np.ndarray  # (512,) uint8: the digit of a one-digit mask


def bit_tables() -> BitTables:
    shape = tables(3)
    popcount = np.array([bin(m).count("1") for m in range(512)], np.int8)
    digit_of = np.zeros(512, np.uint8)
    for d in range(1, 10):
        digit_of[1 << (d - 1)] = d
    unit_bits = np.array([sum(1 << int(u) for u in units3) for units3 in shape.unit_of],
                         np.int32)
    return BitTables(shape.units, shape.peers, shape.unit_of, unit_bits, popcount, digit_of)


BIT_TABLES = bit_tables()



@compiled(inline="always")
def eliminate(matrix, queue, head, tail, dirty, hidden_singles, tables):
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


@compiled(inline="always")
def find_hidden_singles(matrix, queue, tail, dirty, tables):
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


@compiled(inline="always")
def propagate_fixpoint(matrix, queue, tail, dirty, hidden_singles, tables):
    """``fix prune`` (and, with ``hidden_singles``, hidden singles too) of a matrix whose
    unpropagated singletons are ``queue[:tail]`` and whose ``dirty`` units may hold hidden
    singles.  Returns blocked."""
    head = 0
    while True:
        blocked, tail, dirty = eliminate(matrix, queue, head, tail, dirty, hidden_singles, tables)
        if blocked:
            return True
        if not hidden_singles:
            return False
        head = tail
        blocked, tail, dirty = find_hidden_singles(matrix, queue, tail, dirty, tables)
        if blocked:
            return True
        if tail == head:
            return False


@compiled(inline="always")
def copy_matrix(target, source):
    """target[:] = source for a 9 x 9 matrix, without the shape check whose error message
    numba compiles slowly (seconds of each first compile)."""
    for cell in range(81):
        target[cell] = source[cell]


@compiled(inline="always")
def seed_root(grid, matrix, blanks, tables):
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
    return sweep(matrix, blanks, n_blanks, placed, tables)


@compiled(inline="always")
def sweep(matrix, blanks, n_blanks, placed, tables):
    """The sweeps of ``seed_root`` from ``placed`` (the digits placed in each unit, updated):
    each of the ``n_blanks`` cells of ``blanks`` may hold what its units have not placed, and
    one left with a single digit is placed in turn, until a sweep places nothing. Returns the
    number of cells left open (first in ``blanks``), or -1 when a cell has nothing left."""
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


@compiled(inline="always")
def pick_cell(matrix, first_cell, tables):
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
