"""The canonical ("minlex") form of a puzzle by walking every cell symmetry: the oracle for
``solver.compiled.canonical``.

SPEC section 6: "The Sudoku symmetries: transpose or not; permute the three bands, the rows within
each band, the three stacks, the columns within each stack (2 x 6^8 = 3,359,232 cell symmetries);
relabel the nine digits (blanks stay blank).  A puzzle's pattern is its string with givens
written 1 and blanks 0.  `canonical` (the community's "minlex" form): over all cell symmetries,
take those that give the lexicographically least pattern (the most leading blanks first); over
those, with digits renamed 1, 2, 3, ... in order of first appearance, the lexicographically least
digit string."

That is: the least pair (pattern, renamed digits) over all 3,359,232 images of the grid.  The
images are made with numpy, 46,656 at a time (one transposition, 36 row orders, every column
order); about half a second a puzzle.
"""

from __future__ import annotations

from itertools import permutations, product

import numpy as np

from solver.grid import parse_error, strip_line_ending
from solver.vocabulary import BLANKS


def line_orders() -> np.ndarray:
    """The 1,296 orders of 9 lines that keep bands together: an order of the three bands, and
    an order of the three lines within each band.  (They serve for rows and for columns.)"""
    orders = []
    for bands in permutations(range(3)):
        for within in product(permutations(range(3)), repeat=3):
            orders.append([3 * band + line for band, lines in zip(bands, within, strict=True)
                           for line in lines])
    return np.array(orders)


LINE_ORDERS = line_orders()  # (1296, 9)


def images(grid: np.ndarray, transposed: bool, row_orders: np.ndarray) -> np.ndarray:
    """The grid under every cell symmetry with the given transposition and row orders, and any
    column order: cell (r, c) of an image is cell (row_order[r], col_order[c]) of the grid,
    transposed first if so.  Shape (1296 * len(row_orders), 81)."""
    square = grid.reshape(9, 9)
    if transposed:
        square = square.T
    by_column_order = square[:, LINE_ORDERS].transpose(1, 0, 2)  # (col order, row, col)
    return np.take(by_column_order, row_orders, axis=1).reshape(-1, 81)  # (col o., row o., r, c)


def least(matrix: np.ndarray) -> np.ndarray:
    """The indexes of the lexicographically least rows of a 2-D array (all of them, if tied)."""
    alive = np.arange(len(matrix))
    for column in range(matrix.shape[1]):
        values = matrix[alive, column]
        alive = alive[values == values.min()]
    return alive


def renamed_by_first_appearance(grids: np.ndarray) -> np.ndarray:
    """Each grid (a row of 81 values, 0 blank) with its digits renamed 1, 2, 3, ... in order
    of first appearance."""
    n = len(grids)
    first_seen = np.full((n, 10), 81)
    for digit in range(1, 10):
        here = grids == digit
        first_seen[:, digit] = np.where(here.any(axis=1), here.argmax(axis=1), 81)
    in_order = first_seen[:, 1:].argsort(axis=1, kind="stable") + 1  # digits, first seen first
    name = np.zeros((n, 10), np.uint8)  # name[i, digit]; blank (0) stays 0
    name[np.arange(n)[:, None], in_order] = np.arange(1, 10, dtype=np.uint8)
    return np.take_along_axis(name, grids.astype(np.intp), axis=1)


def parse(puzzle: str) -> np.ndarray:
    """81 characters, digits ``1``-``9`` and blanks ``.0 -_`` -> 81 values, 0 for blanks."""
    puzzle = strip_line_ending(puzzle)
    error = parse_error(puzzle)
    if error is not None:
        raise ValueError(f"not a puzzle: {error}")
    return np.array([0 if ch in BLANKS else int(ch) for ch in puzzle], np.uint8)


def canonical_reference(puzzle: str) -> str:
    """The least (pattern, renamed digit string) over all 3,359,232 cell symmetries of the
    puzzle, written as 81 characters with ``.`` for blanks."""
    grid = parse(puzzle)
    best = None
    for transposed in (False, True):
        for row_orders in np.split(LINE_ORDERS, 36):
            found = images(grid, transposed, row_orders)
            least_pattern = found[least(found > 0)]
            renamed = renamed_by_first_appearance(least_pattern)
            digits = renamed[least(renamed)[0]]
            candidate = ((digits > 0).tobytes(), digits.tobytes())
            if best is None or candidate < best:
                best = candidate
    digits = np.frombuffer(best[1], np.uint8)
    return "".join("." if d == 0 else str(d) for d in digits)
