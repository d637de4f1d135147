"""The kernel library every compiled part of the solver shares: Bird's propagation on bit masks,
for every box size.

A matrix of choices is C = N * N masks, bit ``d - 1`` set while digit ``d`` is still possible;
the masks are of the type ``tables.masks`` names (``int32`` for every box size), and every
function takes the tables of the box size as one record (``solver.grid.Tables``), so numba
compiles each once, from one source, for every box size:

- ``seed_root`` computes ``fix prune (choices grid)`` by sweeps of per-unit masks of placed
  digits (most puzzles of a dataset are settled there);
- ``propagate_fixpoint`` carries a matrix to the closure of naked singles (and, when asked,
  hidden singles) from a queue of new singletons: each cell's digit is taken out of its peers
  once; hidden singles are looked for only in the units marked dirty (an array of flags:
  3N units may be more than 64);
- ``prune_once`` is Bird's pass, literally: rows, then columns, then boxes;
- ``propagate`` is step 1 of a search node, ``pick_cell`` SPEC section 2's choice of the cell
  to expand;
- ``popcount``, ``lowest_bit_index`` and the clock are single machine instructions or calls.

``solver.compiled.search``, ``grade``, ``measures`` and ``generate`` build on these, through this
module only; ``solver.jit`` keys each module's cache to this file's source too, so an edit here
can never leave another module's cached code running the old kernels.
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


@compiled(borrows=True)
def now_ns(timespec):
    _clock_gettime(CLOCK_MONOTONIC, _as_voidptr(timespec.ctypes.data))
    return timespec[0] * 1_000_000_000 + timespec[1]


# -- bits -------------------------------------------------------------------------------------


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of an integer (LLVM's ctpop: one instruction)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@intrinsic
def lowest_bit_index(typingctx, x):
    """The index of the lowest set bit of a nonzero int64 (LLVM's cttz)."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], cgutils.true_bit)  # true: x = 0 is never asked

    return types.int64(types.int64), codegen


@compiled(inline="always")
def add_to_set(words, cell):
    """Cell ``cell`` into a cell set: uint64 words, the cell's bit ``cell & 63`` of word
    ``cell >> 6``."""
    words[cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)


@compiled(inline="always")
def drop_from_set(words, cell):
    words[cell >> 6] &= ~(np.uint64(1) << np.uint64(cell & 63))


@compiled(inline="always")
def in_set(words, cell):
    return (words[cell >> 6] >> np.uint64(cell & 63)) & np.uint64(1) != 0


@compiled(inline="always")
def single(x):
    """A mask of exactly one digit."""
    return x != 0 and (x & (x - 1)) == 0


# -- the work arrays of a search ----------------------------------------------------------------


class Work(NamedTuple):
    """The arrays a search works in, allocated once per batch (``work_arrays``)."""

    stack: np.ndarray  # (C + 2, C) masks: the matrix of each depth
    untried: np.ndarray  # (C + 2,) masks: the digits not yet tried at each depth
    chosen: np.ndarray  # (C + 2,) int16: the cell expanded at each depth
    queue: np.ndarray  # (2C + 2,) int16: singletons to propagate (a cell once per node)
    placed: np.ndarray  # (3N,) int32: the digits placed in each unit (the root's sweeps)
    dirty: np.ndarray  # (3N,) uint8: the units that may hold a hidden single
    root_open: np.ndarray  # (1,) int64: the cells the root's ``fix prune`` left open


@compiled
def work_arrays(tables):
    """The ``Work`` of a box size; a matrix holds C + 2 levels: at most C open cells, the
    root, and the child being entered."""
    cells = tables.unit_of.shape[0]
    n_units = tables.units.shape[0]
    masks = tables.masks.dtype
    return Work(np.empty((cells + 2, cells), masks), np.empty(cells + 2, masks),
                np.empty(cells + 2, np.int16), np.empty(2 * cells + 2, np.int16),
                np.empty(n_units, np.int32), np.zeros(n_units, np.uint8),
                np.zeros(1, np.int64))


# -- propagation ----------------------------------------------------------------------------------


@compiled(inline="always")
def unsigned(index):
    """``index`` (never negative) as an unsigned integer. numba reads an array at a signed
    index through a wrap-around for negative ones: three more instructions at every read in
    the propagation's inner loops, where the grade ran in 0.86 to 0.89 of its time without
    them (BENCHMARKS.md)."""
    return np.uint32(index)


@compiled(inline="always")
def mark(dirty, tables, cell):
    """The three units of ``cell`` may hold a hidden single now."""
    dirty[unsigned(tables.unit_of[cell, 0])] = 1
    dirty[unsigned(tables.unit_of[cell, 1])] = 1
    dirty[unsigned(tables.unit_of[cell, 2])] = 1


@compiled(inline="always")
def eliminate(matrix, queue, head, tail, dirty, track, tables):
    """Take each queued singleton's digit out of its peers until the queue is empty. Returns
    (blocked, tail): a peer that already is that singleton makes the matrix unsafe; a peer
    left with one digit joins the queue; with ``track``, the units of every changed cell are
    marked ``dirty`` (only those can hold a new hidden single)."""
    peers = tables.peers
    n_peers = peers.shape[1]
    while head < tail:
        cell = unsigned(queue[head])
        head += 1
        bit = np.int32(matrix[cell])
        for k in range(n_peers):
            peer = unsigned(peers[cell, k])
            choices = np.int32(matrix[peer])
            if choices & bit:
                if choices == bit:
                    return True, tail
                choices &= ~bit
                matrix[peer] = choices
                if track:
                    mark(dirty, tables, peer)
                if (choices & (choices - 1)) == 0:
                    queue[tail] = peer
                    tail += 1
    return False, tail


@compiled(inline="always")
def find_hidden_singles(matrix, queue, tail, dirty, tables):
    """Hidden singles in the ``dirty`` units (each unit unmarked as it is looked at; the units
    of a cell made single marked again). Returns (blocked, tail), the singles queued.

    Per unit: ``seen`` holds the digits seen at least once, ``seen_twice`` those seen twice or
    more, so ``seen & ~seen_twice`` are the digits with exactly one home. A digit with no home
    blocks the matrix, and so does a cell that is the only home of two digits (whichever it
    takes, the other has none).
    """
    units = tables.units
    n = units.shape[1]
    for unit in range(units.shape[0]):
        if not dirty[unit]:
            continue
        dirty[unit] = 0
        seen = np.int32(0)
        seen_twice = np.int32(0)
        for k in range(n):
            choices = np.int32(matrix[unsigned(units[unit, k])])
            seen_twice |= seen & choices
            seen |= choices
        if seen != tables.full:
            return True, tail
        one_home = seen & ~seen_twice
        if one_home == 0:
            continue
        for k in range(n):
            cell = unsigned(units[unit, k])
            choices = np.int32(matrix[cell])
            hit = choices & one_home
            if hit and not single(choices):
                if not single(hit):
                    return True, tail
                matrix[cell] = hit
                mark(dirty, tables, cell)
                queue[tail] = cell
                tail += 1
    return False, tail


@compiled(inline="always")
def propagate_fixpoint(matrix, queue, tail, dirty, hidden_singles, tables):
    """``fix prune`` (and, with ``hidden_singles``, hidden singles too) of a matrix whose
    unpropagated singletons are ``queue[:tail]`` and whose ``dirty`` units may hold hidden
    singles. Returns blocked; the dirty flags are all clear after an unblocked closure."""
    head = 0
    while True:
        blocked, tail = eliminate(matrix, queue, head, tail, dirty, hidden_singles, tables)
        if blocked:
            return True
        if not hidden_singles:
            return False
        head = tail
        blocked, tail = find_hidden_singles(matrix, queue, tail, dirty, tables)
        if blocked:
            return True
        if tail == head:
            return False


@compiled(inline="always")
def place_givens(grid, matrix, blanks, placed, tables):
    """The givens of ``grid`` into ``matrix`` and ``placed`` (the digits of each unit), the
    blank cells into ``blanks``; returns how many, or -1 when a given repeats in a unit."""
    for unit in range(placed.shape[0]):
        placed[unit] = 0
    n_blanks = 0
    for cell in range(grid.shape[0]):
        digit = grid[cell]
        if digit:
            bit = np.int32(1) << (digit - 1)
            matrix[cell] = bit
            for k in range(3):
                unit = tables.unit_of[cell, k]
                if placed[unit] & bit:
                    return -1
                placed[unit] |= bit
        else:
            blanks[n_blanks] = cell
            n_blanks += 1
    return n_blanks


@compiled(inline="always")
def sweep(matrix, blanks, n_blanks, placed, tables):
    """``fix prune`` of the ``blanks`` by sweeps: a blank may hold what none of its three units
    has placed (``placed[u]``), and one left with a single digit is placed in turn, until a
    sweep places nothing. Returns the number of cells left open, or -1 when a blank has
    nothing left. That is the closure of naked-single elimination, reached without visiting
    peers one by one."""
    unit_of = tables.unit_of
    progress = True
    while progress:
        progress = False
        still_open = 0
        for j in range(n_blanks):
            cell = blanks[j]
            row, column, box = unit_of[cell, 0], unit_of[cell, 1], unit_of[cell, 2]
            left = tables.full & ~(placed[row] | placed[column] | placed[box])
            matrix[cell] = left
            if left == 0:
                return -1
            if single(left):
                placed[row] |= left
                placed[column] |= left
                placed[box] |= left
                progress = True
            else:
                blanks[still_open] = cell
                still_open += 1
        n_blanks = still_open
    return n_blanks


@compiled(inline="always")
def seed_root(grid, matrix, blanks, placed, tables):
    """``fix prune (choices grid)``: the number of cells it leaves open, or -1 when the root is
    blocked (a given repeated in a unit, or a blank with nothing left)."""
    n_blanks = place_givens(grid, matrix, blanks, placed, tables)
    if n_blanks < 0:
        return -1
    return sweep(matrix, blanks, n_blanks, placed, tables)


@compiled(inline="always")
def blocked(matrix, tables):
    """blocked m = void m || not (safe m)"""
    for cell in range(matrix.shape[0]):
        if matrix[cell] == 0:
            return True
    return unsafe(matrix, tables, False)


@compiled(inline="always")
def unsafe(cells, tables, digits):
    """not (safe m): some unit holds two cells fixed to the same digit. ``cells`` is the
    matrix m (masks of choices), or with ``digits`` a grid g (0 = blank) read as m = choices g."""
    units = tables.units
    for unit in range(units.shape[0]):
        seen = np.int32(0)
        for k in range(units.shape[1]):
            value = cells[units[unit, k]]
            if digits:
                choices = np.int32(1) << np.int32(value - 1) if value else np.int32(0)
            else:
                choices = np.int32(value)
            if single(choices):
                if seen & choices:
                    return True
                seen |= choices
    return False


@compiled(inline="always")
def prune_once(matrix, tables):
    """Bird's ``prune`` (one pass): rows, then columns, then boxes, each unit reduced by the
    singletons it held before its own reduction; returns ``blocked``."""
    units = tables.units
    for unit in range(units.shape[0]):
        ones = np.int32(0)
        for k in range(units.shape[1]):
            choices = np.int32(matrix[units[unit, k]])
            if single(choices):
                ones |= choices
        for k in range(units.shape[1]):
            cell = units[unit, k]
            choices = np.int32(matrix[cell])
            if not single(choices):
                matrix[cell] = choices & ~ones
    return blocked(matrix, tables)


@compiled(inline="always")
def load_choices(grid, matrix, tables):
    """choices: a blank is every digit, a given d is {d}."""
    for cell in range(grid.shape[0]):
        digit = grid[cell]
        matrix[cell] = tables.full if digit == 0 else (np.int32(1) << (digit - 1))


@compiled(inline="always")
def pick_cell(matrix, first_cell):
    """The cell to expand: the first open cell, or the first with the fewest choices; -1 when
    every cell is a singleton (complete)."""
    best = -1
    fewest = 64
    for cell in range(matrix.shape[0]):
        n = popcount(np.int32(matrix[cell]))
        if n > 1 and n < fewest:
            best = cell
            fewest = n
            if first_cell or n == 2:
                break
    return best


@compiled(inline="always")
def complete(matrix):
    """Every cell is a singleton (after an unblocked propagation: the solution)."""
    return pick_cell(matrix, True) < 0


@compiled(inline="always")
def clear(dirty):
    for unit in range(dirty.shape[0]):
        dirty[unit] = 0


@compiled(inline="always")
def propagate(grid, matrix, seed, work, prune_once_only, hidden_singles, tables):
    """Step 1 of a node: ``prune`` once (``prune_once_only``), or to the fixpoint from the
    root's ``grid`` (``seed`` < 0) or from a child's one newly fixed cell ``seed``. Returns
    blocked; a fixpoint root sets ``work.root_open[0]`` to the cells ``fix prune`` alone left
    open (-1: blocked): when it left none, hidden singles have nothing to do."""
    if prune_once_only:
        if seed < 0:
            load_choices(grid, matrix, tables)
        return prune_once(matrix, tables)
    dirty = work.dirty
    if seed < 0:
        still_open = seed_root(grid, matrix, work.queue, work.placed, tables)
        work.root_open[0] = still_open
        if still_open <= 0:
            return still_open < 0
        tail = 0
        if hidden_singles:
            for unit in range(dirty.shape[0]):
                dirty[unit] = 1
    else:
        work.queue[0] = seed
        tail = 1
        if hidden_singles:
            mark(dirty, tables, seed)
    if propagate_fixpoint(matrix, work.queue, tail, dirty, hidden_singles, tables):
        if hidden_singles:
            clear(dirty)  # a blocked closure may leave flags set
        return True
    return False


@compiled(inline="always")
def settle(matrix, cell, work, tables):
    """Propagate naked and hidden singles after ``cell`` changed in a matrix at their fixpoint
    (its units may hold a hidden single; if it is a singleton, its digit leaves its peers);
    returns blocked, with the dirty flags all clear again."""
    tail = 0
    if single(np.int32(matrix[cell])):
        work.queue[0] = cell
        tail = 1
    mark(work.dirty, tables, cell)
    if propagate_fixpoint(matrix, work.queue, tail, work.dirty, True, tables):
        clear(work.dirty)
        return True
    return False


@compiled(borrows=True)
def close_singles(matrix, work, tables):
    """Naked and hidden singles to their fixpoint from any matrix (every singleton queued,
    every unit looked at); returns blocked, with the dirty flags all clear again."""
    tail = 0
    for cell in range(matrix.shape[0]):
        if single(np.int32(matrix[cell])):
            work.queue[tail] = cell
            tail += 1
    for unit in range(work.dirty.shape[0]):
        work.dirty[unit] = 1
    if propagate_fixpoint(matrix, work.queue, tail, work.dirty, True, tables):
        clear(work.dirty)
        return True
    return False


@compiled(borrows=True)
def contradictory(grid, tables):
    """Givens repeat a digit in some unit: not (safe (choices grid)), a blank being no fixed
    cell."""
    return unsafe(grid, tables, True)


@compiled(inline="always")
def copy(target, source):
    """target[:] = source, without the shape check whose error message numba compiles slowly."""
    for cell in range(source.shape[0]):
        target[cell] = source[cell]
