"""The kernel library every compiled part of the solver shares, for every box size: Bird's
propagation on masks of N bits (SPEC sections 2, 3 and 7).

- a matrix of choices is C = N * N masks (``int32``), bit ``d - 1`` set while digit ``d`` is
  possible; a unit's N cells and a cell's peers come from ``solver.grid.tables(boxsize)``;
- ``seed_root`` computes ``fix prune`` at the root by sweeps of per-unit masks of placed
  digits; ``propagate_fixpoint`` carries a matrix to the closure of naked singles (and, when
  asked, hidden singles) from a queue of new singletons; hidden singles are looked for only in
  the units marked dirty (an array of flags: 3N units may be more than 64);
- ``prune_once`` is Bird's pass, literally: rows, then columns, then boxes;
- ``propagate`` is step 1 of a search node, ``pick_cell`` SPEC section 2's choice of the cell
  to expand;
- ``lowest_bit_index`` and the clock are single machine instructions or calls.

``solver.compiled.search``, ``grade``, ``measures`` and ``generate`` build on these (9 x 9 has
a measured specialisation beside them, ``solver.compiled.kernels_9x9``); ``solver.jit`` keys
each module's cache to the source of the modules it imports, so an edit here recompiles every
module built on it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from solver.jit import compiled

# clock_gettime(CLOCK_MONOTONIC) through the C library by symbol name: ~20 ns a call, and unlike
# a ctypes pointer it keeps the functions cacheable.
_clock_gettime = types.ExternalFunction("clock_gettime", types.int32(types.int32, types.voidptr))
CLOCK_MONOTONIC = 1


@intrinsic
def _as_voidptr(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@compiled
def now_ns(timespec):
    _clock_gettime(CLOCK_MONOTONIC, _as_voidptr(timespec.ctypes.data))
    return timespec[0] * 1_000_000_000 + timespec[1]



@intrinsic
def lowest_bit_index(typingctx, x):
    """The index of the lowest set bit of a nonzero int64 (LLVM's cttz)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], cgutils.true_bit)  # true: x = 0 is never asked

    return types.int64(types.int64), codegen


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
def prune_once(matrix, units):
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
def propagate(grid, matrix, seed, work, prune_once_only, hidden_singles, units, peers, unit_of,
              full):
    """Step 1 of a node: ``prune`` once, or to the fixpoint from the root's ``grid`` (``seed``
    < 0) or from a child's one newly fixed cell ``seed``. Returns blocked; a fixpoint root sets
    ``work.root_open[0]`` to the cells ``fix prune`` alone left open (-1: blocked)."""
    if prune_once_only:
        if seed < 0:
            load_choices(grid, matrix, full)
        return prune_once(matrix, units)
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
