"""The board of the compiled Sudoku Explainer rating (SPEC 5.4): the tables its rules scan, as
numpy arrays, and the board state they read and change.

The tables are made from ``solver.reference.se_grid``'s tuples, so that the region orders (which
decide which hint is found first, docs/se-notes.md) cannot drift from the reference:

    regions[r]        the 9 cells of region r in SE's order (blocks 0-8, rows 9-17, columns
                      18-26; a block reads row by row)
    regions_of[c]     the block, row and column of cell c (region ids)
    index_in[c, k]    where cell c stands in regions_of[c, k]
    house[c]          the 20 cells c sees: its block, then its row, then its column, each in
                      region order, no repeats (SE's house order)
    sees[c, o]        whether o is in house[c]
    inside[r1, r2]    where r2 lies inside r1: a mask of r1's indexes (0 when they do not cross)
    scan              the region order of hidden singles, subsets and generalized intersections:
                      blocks, columns, rows

The state is two arrays: ``values`` int8[81] (0 for an empty cell) and ``cands`` int32[81] (bit d
for digit d, 0 for a filled cell), as the reference's ``Grid`` holds them; int32 is the dtype the
chain rules take too. Nothing here compiles on import.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.jit import compiled
from solver.reference import se_grid

ALL = se_grid.ALL  # digits 1..9


class Board(NamedTuple):
    """The constant tables of the 9 x 9 board (see the module docstring)."""

    regions: np.ndarray  # (27, 9) int32
    regions_of: np.ndarray  # (81, 3) int32
    index_in: np.ndarray  # (81, 3) int32
    house: np.ndarray  # (81, 20) int32
    sees: np.ndarray  # (81, 81) bool
    inside: np.ndarray  # (27, 27) int32
    scan: np.ndarray  # (27,) int32
    peers: np.ndarray  # (81, 2) uint64: ``sees`` as cell sets (``kernels.add_to_set``'s)


def board() -> Board:
    """The tables, built from the reference's tuples."""
    regions = np.array(se_grid.REGIONS, dtype=np.int32)
    regions_of = np.array(se_grid.REGIONS_OF, dtype=np.int32)
    index_in = np.array([[se_grid.INDEX_IN[c][r] for r in se_grid.REGIONS_OF[c]]
                         for c in range(81)], dtype=np.int32)
    house = np.array(se_grid.HOUSE, dtype=np.int32)
    sees = np.zeros((81, 81), dtype=np.bool_)
    for c in range(81):
        sees[c, house[c]] = True
    inside = np.array([[sum(1 << i for i, c in enumerate(se_grid.REGIONS[r1])
                            if c in se_grid.REGIONS[r2]) for r2 in range(27)]
                       for r1 in range(27)], dtype=np.int32)
    scan = np.array([*se_grid.BLOCK_IDS, *se_grid.COLUMN_IDS, *se_grid.ROW_IDS], dtype=np.int32)
    return Board(regions, regions_of, index_in, house, sees, inside, scan, cell_sets(sees))


def cell_sets(rows: np.ndarray) -> np.ndarray:
    """Each row of a (n, 81) bool matrix as a cell set of two uint64 words."""
    bits = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
    sets = np.zeros((rows.shape[0], 2), dtype=np.uint64)
    sets[:, 0] = np.bitwise_or.reduce(np.where(rows[:, :64], bits, np.uint64(0)), axis=1)
    sets[:, 1] = np.bitwise_or.reduce(np.where(rows[:, 64:], bits[:17], np.uint64(0)), axis=1)
    return sets


BOARD = board()


def from_puzzle(puzzle: str) -> tuple[np.ndarray, np.ndarray]:
    """``values`` and ``cands`` of a puzzle as the reference's ``Grid.from_puzzle`` makes them
    (the same checks: a puzzle it refuses, it refuses with the reference's error)."""
    digits = np.frombuffer(puzzle.encode("ascii", "replace"), np.uint8).astype(np.int8) - 48
    digits[digits == ord(".") - 48] = 0
    if digits.shape[0] != 81 or ((digits < 0) | (digits > 9)).any():
        return to_arrays(se_grid.Grid.from_puzzle(puzzle))  # raises the reference's error
    cands = np.empty(81, np.int32)
    fill_candidates(digits, cands, BOARD)
    return digits, cands


def to_arrays(grid: se_grid.Grid) -> tuple[np.ndarray, np.ndarray]:
    return np.array(grid.values, dtype=np.int8), np.array(grid.cands, dtype=np.int32)


def to_grid(values: np.ndarray, cands: np.ndarray) -> se_grid.Grid:
    """The reference's ``Grid`` of a state (a copy)."""
    return se_grid.Grid([int(v) for v in values], [int(m) for m in cands])


def apply_hint(hint: se_grid.Hint, values: np.ndarray, cands: np.ndarray) -> None:
    """Apply a reference ``Hint`` to a state: its removals, then its placement (SE's order)."""
    for cell, mask in hint.removals.items():
        cands[cell] &= ~mask
    if hint.placement is not None:
        cell, digit = hint.placement
        values[cell] = digit
        cands[cell] = 0
        cands[BOARD.house[cell]] &= ~(1 << digit)


# -- compiled helpers ------------------------------------------------------------------------------


@compiled
def fill_candidates(values, cands, board):
    """Every digit is a candidate of an empty cell unless a given of its house holds it (SE's
    ``rebuildPotentialValues``)."""
    for c in range(81):
        cands[c] = 0 if values[c] else ALL
    for c in range(81):
        if values[c]:
            bit = ~(1 << values[c])
            for i in range(20):
                cands[board.house[c, i]] &= bit


@compiled(borrows=True)
def lowest(m):
    """The smallest digit (bit index) of a non-empty mask."""
    d = 0
    while not (m >> d) & 1:
        d += 1
    return d


@compiled(borrows=True)
def next_pattern(value):
    """The next larger integer with as many bits set (Gosper's hack): SE's order of tuples."""
    smallest = value & -value
    ripple = value + smallest
    return ripple | (((value ^ ripple) >> 2) // smallest)


@compiled(borrows=True)
def place(values, cands, cell, digit, board):
    """Set a value and remove it from the candidates of every cell the cell sees."""
    values[cell] = digit
    cands[cell] = 0
    bit = ~(1 << digit)
    for i in range(20):
        cands[board.house[cell, i]] &= bit


@compiled(borrows=True)
def positions(cands, region, digit, board):
    """Where ``digit`` is a candidate in ``region``: a mask of indexes in the region's order."""
    m = 0
    for i in range(9):
        if (cands[board.regions[region, i]] >> digit) & 1:
            m |= 1 << i
    return m


@compiled(borrows=True)
def position_table(cands, table, board):
    """``table[r, d]`` = ``positions(cands, r, d)`` for every region and digit, in one pass."""
    table[:, :] = 0
    for c in range(81):
        m = cands[c]
        if m == 0:
            continue
        for k in range(3):
            bit = 1 << board.index_in[c, k]
            r = board.regions_of[c, k]
            for d in range(1, 10):
                if (m >> d) & 1:
                    table[r, d] |= bit


@compiled(borrows=True)
def empty_count(values, region, board):
    n = 0
    for i in range(9):
        if values[board.regions[region, i]] == 0:
            n += 1
    return n


@compiled(borrows=True)
def is_solved(values):
    for c in range(81):
        if values[c] == 0:
            return False
    return True
