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


# -- the fixed copies behind ``rating`` (SPEC section 5.2) -----------------------------------------

MASK64 = (1 << 64) - 1
PERM3 = ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))


def splitmix64(i: int) -> int:
    """SPEC 5.2: z = i + 0x9E3779B97F4A7C15; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB; return z ^ (z >> 31), all mod 2^64.

    >>> hex(splitmix64(0))
    '0xe220a8397b1dcdaf'
    """
    z = (i + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def drawn_symmetry(x: int) -> np.ndarray:
    """The cell symmetry SPEC 5.2 decodes from the 64-bit number ``x``, as a cell permutation:

        t = x % 2;  x //= 2
        bands  = PERM3[x % 6]; x //= 6;  for k in 0,1,2: rows_k = PERM3[x % 6]; x //= 6
        stacks = PERM3[x % 6]; x //= 6;  for k in 0,1,2: cols_k = PERM3[x % 6]; x //= 6
        G = the puzzle as a 9x9 grid, transposed when t = 1
        copy[3k+j][3k'+j'] = G[3*bands[k] + rows_k[j]][3*stacks[k'] + cols_k'[j']]
    """
    transpose = x % 2
    x //= 2
    orders = []
    for _ in ("rows", "columns"):
        outer = PERM3[x % 6]
        x //= 6
        inner = []
        for _k in range(3):
            inner.append(PERM3[x % 6])
            x //= 6
        orders.append([3 * outer[k] + inner[k][j] for k in range(3) for j in range(3)])
    row_order, col_order = orders
    return cell_permutation(row_order, col_order, bool(transpose))


def rating_copies(samples: int) -> np.ndarray:
    """(samples, 81) int16: row i holds, for each cell of copy i, the puzzle cell it is read from
    (copy i is the symmetry drawn from splitmix64(i); ``grid[copies[i]]`` is that copy)."""
    return np.array([drawn_symmetry(splitmix64(i)) for i in range(samples)], np.int16).reshape(
        samples, 81)
