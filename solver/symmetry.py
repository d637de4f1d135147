"""The Sudoku symmetries: relabel digits, permute rows in a band, bands, columns in a stack,
stacks, and transpose.  Each maps puzzles to puzzles with the same number of solutions.

A symmetry is a cell permutation (81 indexes) and a digit relabelling (10 entries, blank 0 fixed):
``relabel[grid[..., cells]]`` applies it to one grid or to an (n, 81) batch at once.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np


def cell_permutation(row_order, col_order, transpose: bool) -> np.ndarray:
    """Cell ``r * N + c`` of the result is cell ``row_order[r] * N + col_order[c]`` of the
    input (after transposing it, if asked); N = len(row_order)."""
    n = len(row_order)
    rows, cols = np.meshgrid(np.asarray(row_order), np.asarray(col_order), indexing="ij")
    if transpose:
        rows, cols = cols, rows
    return (rows * n + cols).reshape(n * n)


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


@functools.cache
def perms(b: int) -> tuple[tuple[int, ...], ...]:
    """PERM_b: the b! permutations of 0..b-1 in lexicographic order (PERM_3 is SPEC 5.2's)."""
    return tuple(itertools.permutations(range(b)))


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


def drawn_symmetry(x: int, b: int = 3) -> np.ndarray:
    """The cell symmetry SPEC 5.2 (for box size b, SPEC 7) decodes from the 64-bit number
    ``x``, as a cell permutation; with P = b! and PERM_b = ``perms(b)``:

        t = x % 2;  x //= 2
        bands  = PERM_b[x % P]; x //= P;  for k in 0..b-1: rows_k = PERM_b[x % P]; x //= P
        stacks = PERM_b[x % P]; x //= P;  for k in 0..b-1: cols_k = PERM_b[x % P]; x //= P
        G = the puzzle as an N x N grid, transposed when t = 1
        copy[b*k+j][b*k'+j'] = G[b*bands[k] + rows_k[j]][b*stacks[k'] + cols_k'[j']]

    (Once x reaches 0 the remaining permutations are the identity.)
    """
    table = perms(b)
    size = len(table)
    transpose = x % 2
    x //= 2
    orders = []
    for _ in ("rows", "columns"):
        outer = table[x % size]
        x //= size
        inner = []
        for _k in range(b):
            inner.append(table[x % size])
            x //= size
        orders.append([b * outer[k] + inner[k][j] for k in range(b) for j in range(b)])
    row_order, col_order = orders
    return cell_permutation(row_order, col_order, bool(transpose))


def rating_copies(samples: int, b: int = 3) -> np.ndarray:
    """(samples, C) int16: row i holds, for each cell of copy i, the puzzle cell it is read
    from (copy i is the symmetry drawn from splitmix64(i); ``grid[copies[i]]`` is that copy)."""
    return np.array([drawn_symmetry(splitmix64(i), b) for i in range(samples)],
                    np.int16).reshape(samples, b**4)
