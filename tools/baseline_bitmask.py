"""The yardstick of the box-size benchmark (issue 19): SPEC section 2, written plainly in numba
over N-bit masks, for any box size.

A matrix of choices is C = N * N masks (bit d - 1: digit d allowed). Every node copies its
parent's matrix, runs ``prune`` (reduce all rows, then all columns, then all boxes, each unit
against its singletons as it stood before the reduction) until nothing changes, then tests
``blocked`` and ``complete`` by scanning, and expands the first cell with the fewest choices,
its digits in ascending order: Bird's search, node for node (so it visits the same nodes as the
project's solver under the default variant, which ``tools/bench_boxsize.py`` checks), with none
of the project's incremental propagation. Not used by the pipeline.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def _prune_once(m, units):
    """One ``prune`` pass; returns whether anything changed."""
    changed = False
    for u in range(units.shape[0]):
        ones = np.int64(0)
        for cell in units[u]:
            x = np.int64(m[cell])
            if x != 0 and (x & (x - 1)) == 0:
                ones |= x
        for cell in units[u]:
            x = np.int64(m[cell])
            if x & (x - 1):
                y = x & ~ones
                if y != x:
                    m[cell] = y
                    changed = True
    return changed


@numba.njit(cache=True)
def _blocked(m, units):
    """A void cell, or two equal singletons in a unit."""
    for u in range(units.shape[0]):
        seen = np.int64(0)
        for cell in units[u]:
            x = np.int64(m[cell])
            if x == 0:
                return True
            if (x & (x - 1)) == 0:
                if seen & x:
                    return True
                seen |= x
    return False


@numba.njit(cache=True)
def _fewest(m):
    """The first cell with the fewest choices among those with more than one; -1 if none."""
    best, fewest = -1, 64
    for cell in range(m.shape[0]):
        x = np.int64(m[cell])
        count = 0
        while x:
            x &= x - 1
            count += 1
        if 1 < count < fewest:
            best, fewest = cell, count
    return best


@numba.njit(cache=True)
def search(grid, units, n, max_solutions, max_nodes):
    """(solutions, nodes, depth) of Bird's search from ``choices grid`` (values 0..n)."""
    cells = grid.shape[0]
    full = (np.int64(1) << n) - 1
    stack = np.zeros((cells + 1, cells), np.int64)
    digits = np.zeros(cells + 1, np.int64)  # the digits of a level's cell still to try
    chosen = np.zeros(cells + 1, np.int64)
    for cell in range(cells):
        stack[0, cell] = full if grid[cell] == 0 else np.int64(1) << (grid[cell] - 1)
    solutions, nodes, deepest, depth = 0, 0, 0, 0
    fresh = True  # stack[depth] is a node not yet visited
    while depth >= 0:
        if fresh:
            if nodes >= max_nodes:
                break
            nodes += 1
            deepest = max(deepest, depth)
            m = stack[depth]
            while _prune_once(m, units):
                pass
            digits[depth] = 0
            if not _blocked(m, units):
                cell = _fewest(m)
                if cell < 0:
                    solutions += 1
                    if solutions >= max_solutions:
                        break
                else:
                    chosen[depth] = cell
                    digits[depth] = m[cell]
        if digits[depth] == 0:
            depth -= 1
            fresh = False
            continue
        bit = digits[depth] & -digits[depth]
        digits[depth] &= digits[depth] - 1
        stack[depth + 1, :] = stack[depth, :]
        stack[depth + 1, chosen[depth]] = bit
        depth += 1
        fresh = True
    return solutions, nodes, deepest


@numba.njit(cache=True)
def solve_all(grids, units, n, max_solutions, max_nodes, out):
    """``search`` every row of ``grids``; ``out[i]`` = (solutions, nodes, depth)."""
    for i in range(grids.shape[0]):
        out[i, 0], out[i, 1], out[i, 2] = search(grids[i], units, n, max_solutions, max_nodes)
