"""The Sudoku symmetries: relabel digits, permute rows in a band, bands, columns in a stack,
stacks, and transpose.  Each maps puzzles to puzzles with the same number of solutions.

A symmetry is a cell permutation (81 indexes) and a digit relabelling (10 entries, blank 0 fixed):
``relabel[grid[..., cells]]`` applies it to one grid or to an (n, 81) batch at once.
"""

from __future__ import annotations

import numpy as np


def cell_permutation(row_order, col_order, transpose: bool) -> np.ndarray:
    """Cell ``r * 9 + c`` of the result is cell ``row_order[r] * 9 + col_order[c]`` of the input
    (after transposing it, if asked)."""
    rows, cols = np.meshgrid(np.asarray(row_order), np.asarray(col_order), indexing="ij")
    if transpose:
        rows, cols = cols, rows
    return (rows * 9 + cols).reshape(81)


def line_order(rng: np.random.Generator) -> np.ndarray:
    """A random order of 9 lines that keeps bands (or stacks) together: shuffle the three
    bands, and the three lines within each band."""
    bands = rng.permutation(3)
    return np.concatenate([3 * b + rng.permutation(3) for b in bands])


def random_symmetry(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(cells, relabel): a uniformly drawn element of the Sudoku symmetry group."""
    cells = cell_permutation(line_order(rng), line_order(rng), bool(rng.integers(2)))
    relabel = np.concatenate([[0], rng.permutation(9) + 1]).astype(np.uint8)
    return cells, relabel


def apply(grids: np.ndarray, cells: np.ndarray, relabel: np.ndarray) -> np.ndarray:
    """Apply one symmetry to a grid (81 values 0..9) or a batch of them ((n, 81))."""
    return relabel[np.asarray(grids)[..., cells]]


def solved_grid(rng: np.random.Generator) -> np.ndarray:
    """A random solved grid: the classic pattern grid under a random symmetry."""
    r, c = np.divmod(np.arange(81), 9)
    pattern = ((3 * (r % 3) + r // 3 + c) % 9 + 1).astype(np.uint8)
    return apply(pattern, *random_symmetry(rng))
