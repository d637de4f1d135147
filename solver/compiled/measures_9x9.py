"""SPEC 5.2 and 5.3 on bit masks for 9 x 9 puzzles, compiled with numba: ``rating`` and
``backdoor_size`` for a whole batch per call, the same numbers as ``solver.reference.ladder``.
(``grade``, SPEC 5.1, is ``solver.compiled.grade``'s for every box size: its trials cost far more
than anything a 9 x 9 kernel would save on the rungs below them.)

A matrix of choices is 81 ``uint16`` masks, as in ``solver.compiled.search_9x9``, whose propagation
kernels do the naked and hidden singles here too (``seed_root``, ``propagate_fixpoint``), except in
the rating's search, which holds its matrices as digit bands.  What this module adds:

- **rating**: every copy of SPEC 5.2 is a cell permutation, and the ``singles`` closure commutes
  with it, so the copies are searched in place: the root's closure is computed once, and copy i
  differs only in the order its cell choice reads the cells (row-major order in the copy).  The
  copies are searched together: a node that several copies reach by the same path is visited
  (its closure computed) once for all of them, and each goes on with the cell it expands there.
  Nothing is kept but each copy's depth, node count and solutions found.  Below the root a
  matrix is nine digits' 81-bit sets of cells (three 27-bit bands each): a closure finds the
  naked singles of a band, or the hidden singles of a digit in every unit, in a few dozen word
  operations, instead of walking the 20 peers of each new singleton and the cells of each
  changed unit; that is about four times faster, and the closures are nearly all of the time.
- **backdoor_size**: from the singles closure of the puzzle, each open cell is filled from the
  solution and propagated incrementally; the pairs and triples build on those closures, skip the
  cells already fixed, try the cells that fix the most first, and stop at the first success.

Everything is compiled lazily (importing this compiles nothing), with the on-disk cache of
``solver.jit``, which any edit of the solver's source renews: the kernels inlined here from
``solver.compiled.kernels_9x9`` can never run stale.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled.kernels import lowest_bit_index, popcount
from solver.compiled.kernels_9x9 import (
    ALL_UNITS,
    BIT_TABLES,
    QUEUE_LENGTH,
    STACK_DEPTH,
    BitTables,
    copy_matrix,
    pick_cell,
    propagate_fixpoint,
    seed_root,
)
from solver.jit import compiled
from solver.symmetry import rating_copies

NO_BACKDOOR = -1  # larger than the cells searched (SPEC 5.3: null)


# The copies of one puzzle are searched together, a group of copies per node, as bits of an int64.
GROUP_SIZE = 32


class _Copies(NamedTuple):
    """The work arrays of the copies' searches (allocated once per batch).

    Level ``d`` of the search holds a node's matrix (as digit bands, ``_close``) and its *parts*:
    the copies that reached the node, grouped by the cell each expands there; ``untried[d]``
    holds the digits of the current part's cell not yet tried.
    """

    stack: np.ndarray  # (STACK_DEPTH, BOARD_WORDS) int32: the matrix of each level
    part_cell: np.ndarray  # (STACK_DEPTH, 81) int16: the cell each part expands
    part_group: np.ndarray  # (STACK_DEPTH, 81) int64: the copies of each part, as bits
    n_parts: np.ndarray  # (STACK_DEPTH,) int16
    part_at: np.ndarray  # (STACK_DEPTH,) int16: the part being expanded
    untried: np.ndarray  # (STACK_DEPTH,) int32
    fewest_cells: np.ndarray  # (81,) int16: scratch, the open cells with the fewest choices
    part_of_cell: np.ndarray  # (81,) int16: scratch, -1 everywhere between two uses
    nodes: np.ndarray  # (GROUP_SIZE,) int64: the nodes each copy of the group visited
    depth: np.ndarray  # (GROUP_SIZE,) int32: the deepest node each copy visited
    solutions: np.ndarray  # (GROUP_SIZE,) int32: the solutions each copy found


# -- the batch functions -------------------------------------------------------------------------


def ratings(grids: np.ndarray, samples: int, max_nodes: int) -> np.ndarray:
    """SPEC 5.2 for every row: the mean ``singles`` search depth over copies 0 .. samples-1, each
    with ``max_solutions = 2`` and a budget of ``max_nodes``; NaN where some copy hits the budget.
    (Meaningful for puzzles whose status is ``unique``; a caller nulls the others.)"""
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, 81)
    out = np.empty(len(grids), np.float64)
    copies = rating_copies(samples)
    positions = np.empty_like(copies)  # the inverse permutations: where each cell goes
    np.put_along_axis(positions, copies.astype(np.intp), np.arange(81, dtype=copies.dtype), axis=1)
    _rating_batch(grids, positions, max_nodes, out, BIT_TABLES, BANDS)
    return out


def backdoor_sizes(grids: np.ndarray, solutions: np.ndarray) -> np.ndarray:
    """SPEC 5.3 for every row, given its solution ((n, 81) values 1..9): the least number of its
    cells that make the puzzle singles-solvable, -1 when more than 3 (or when the puzzle's own
    closure is blocked, which a puzzle with a solution never is)."""
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, 81)
    solutions = np.ascontiguousarray(solutions, dtype=np.uint8).reshape(-1, 81)
    out = np.empty(len(grids), np.int8)
    _backdoor_batch(grids, solutions, out, BIT_TABLES)
    return out


# -- shared pieces -------------------------------------------------------------------------------


@compiled(inline="always")
def _complete(matrix, tables):
    """Every cell is a singleton (after an unblocked propagation: the solution)."""
    return pick_cell(matrix, True, tables) < 0


# The propagation is compiled once, as a function the others call, rather than inlined into each
# caller, and always called with the same argument types (int64 counts and masks), so that numba
# compiles one version of it: that keeps the cold compilation of this module short.
@compiled(borrows=True)
def _singles(matrix, queue, tail, dirty, tables):
    """Naked and hidden singles to their fixpoint from the singletons ``queue[:tail]`` and the
    ``dirty`` units; returns blocked."""
    return propagate_fixpoint(matrix, queue, tail, dirty, True, tables)


@compiled
def _naked_closure(grid, matrix, queue, tables):
    """``fix prune (choices grid)`` into ``matrix``: the number of cells it leaves open, -1 when
    it is blocked (``solver.compiled.search_9x9.seed_root``, compiled once for every caller here)."""
    return seed_root(grid, matrix, queue, tables)


@compiled(borrows=True)
def _singles_closure(grid, matrix, queue, tables):
    """Naked and hidden singles to their fixpoint from ``choices grid``; returns blocked."""
    still_open = _naked_closure(grid, matrix, queue, tables)
    if still_open <= 0:
        return still_open < 0
    return _singles(matrix, queue, np.int64(0), np.int64(ALL_UNITS), tables)


# -- 5.2 rating ----------------------------------------------------------------------------------
#
# The copies' searches keep their matrices as digit bands: ``board[3 * d + b]`` holds, as bits
# 0..26, the cells of band ``b`` (rows 3b .. 3b + 2, row-major) that still allow digit ``d + 1``,
# and ``board[27 + b]`` the cells of band ``b`` whose digit is placed (taken out of their peers).
# A node's closure is then a few dozen word operations per pass instead of a walk over the peers
# of every new singleton: this is where the rating spends its time.

BAND = (1 << 27) - 1  # the 27 cells of a band
ROW = 0x1FF  # the 9 cells of a band's first row
ROW_STARTS = 0x40201  # the first cell of each row of a band: ``x * ROW_STARTS`` copies a row 3 times
BOARD_WORDS = 30  # 27 digit bands, then 3 masks of placed cells


class _Bands(NamedTuple):
    """The constant tables of the digit-band matrix (arguments of the compiled functions)."""

    peers: np.ndarray  # (81, 3) int32: the peers of each cell, as a mask of each band
    lone_box: np.ndarray  # (512,) int32: the boxes (3 columns each) where 9 bits have one bit
    any_box: np.ndarray  # (512,) int32: the boxes where they have some bit


def _bands(tables: BitTables) -> _Bands:
    peers = np.zeros((81, 3), np.int32)
    for cell in range(81):
        for peer in map(int, tables.peers[cell]):
            peers[cell, peer // 27] |= 1 << (peer % 27)
    lone_box = np.zeros(512, np.int32)
    any_box = np.zeros(512, np.int32)
    for columns in range(512):
        for box in range(3):
            here = (columns >> (3 * box)) & 7
            if here:
                any_box[columns] |= 7 << (3 * box)
            if here in (1, 2, 4):
                lone_box[columns] |= 7 << (3 * box)
    return _Bands(peers, lone_box, any_box)


BANDS = _bands(BIT_TABLES)


@compiled
def _rating_batch(grids, positions, max_nodes, out, tables, bands):
    """``out[i]``: row i's rating, NaN when a copy's search hits ``max_nodes``.  ``positions[k]``
    gives, for each cell of the puzzle, its position in copy k."""
    root = np.empty(81, np.uint16)
    queue = np.empty(QUEUE_LENGTH, np.int16)
    copies = _Copies(
        stack=np.empty((STACK_DEPTH, BOARD_WORDS), np.int32),
        part_cell=np.empty((STACK_DEPTH, 81), np.int16),
        part_group=np.empty((STACK_DEPTH, 81), np.int64),
        n_parts=np.empty(STACK_DEPTH, np.int16),
        part_at=np.empty(STACK_DEPTH, np.int16),
        untried=np.empty(STACK_DEPTH, np.int32),
        fewest_cells=np.empty(81, np.int16),
        part_of_cell=np.full(81, -1, np.int16),
        nodes=np.empty(GROUP_SIZE, np.int64),
        depth=np.empty(GROUP_SIZE, np.int32),
        solutions=np.empty(GROUP_SIZE, np.int32),
    )
    n_copies = positions.shape[0]
    for i in range(grids.shape[0]):
        # The root of every copy is this closure, permuted: blocked or complete, every copy
        # stops there, at depth 0.
        if _singles_closure(grids[i], root, queue, tables) or _complete(root, tables):
            out[i] = 0.0
            continue
        total = 0
        for first in range(0, n_copies, GROUP_SIZE):
            size = min(GROUP_SIZE, n_copies - first)
            if _search_copies(root, positions[first:first + size], max_nodes, copies, bands):
                total = -1
                break
            for copy in range(size):
                total += copies.depth[copy]
        out[i] = np.nan if total < 0 else total / n_copies


@compiled(borrows=True)
def _to_board(matrix, board):
    """The digit bands of an unblocked closure ``matrix`` (81 masks): its singletons are placed."""
    for word in range(BOARD_WORDS):
        board[word] = 0
    for cell in range(81):
        band, bit = cell // 27, np.int32(1) << (cell % 27)
        choices = np.int32(matrix[cell])
        for digit in range(9):
            if (choices >> digit) & 1:
                board[3 * digit + band] |= bit
        if choices & (choices - 1) == 0:
            board[27 + band] |= bit


@compiled(inline="always")
def _choices_of(board, cell):
    """The digits ``cell`` allows, as a 9-bit mask."""
    band, at = cell // 27, cell % 27
    choices = 0
    for digit in range(9):
        choices |= ((np.int64(board[3 * digit + band]) >> at) & 1) << digit
    return choices


@compiled(inline="always")
def _place(board, digit, band, cells, bands):
    """The cells ``cells`` of ``band`` hold ``digit``: it leaves their peers."""
    while cells:
        cell = 27 * band + lowest_bit_index(cells)
        cells &= cells - 1
        for other_band in range(3):
            board[3 * digit + other_band] &= ~bands.peers[cell, other_band]


@compiled(borrows=True)
def _close(board, cell, digit, bands):
    """Fix ``cell`` to ``digit`` (0..8) in the closure ``board`` and carry it to the closure of
    naked and hidden singles; returns blocked.

    Each pass finds every new single at once, for the whole grid: the naked ones (cells in one
    digit's band only, counted per band by two OR-ed masks: cells seen once, cells seen twice)
    first, then, when there are none, the hidden ones of each digit (rows, columns and boxes
    holding it once, from its three bands); each is placed, and passes go on until one finds
    nothing.  A cell left with no digit, or a unit with no cell for a digit, blocks the matrix;
    two equal singles in a unit leave one of them with no digit.
    """
    _fix(board, digit, cell // 27, np.int64(1) << (cell % 27), bands)
    while True:
        found = False
        for band in range(3):
            while True:  # a single placed here often makes another in the same band
                once = np.int64(0)
                twice = np.int64(0)
                for digit in range(9):
                    cells = np.int64(board[3 * digit + band])
                    twice |= once & cells
                    once |= cells
                if once != BAND:
                    return True
                singles = once & ~twice & ~np.int64(board[27 + band])
                if not singles:
                    break
                found = True
                board[27 + band] |= singles
                for digit in range(9):
                    mine = np.int64(board[3 * digit + band]) & singles
                    if mine:
                        _place(board, digit, band, mine, bands)
        if found:
            continue
        for digit in range(9):
            # The columns holding the digit at all, and twice or more: first the cells of a band
            # that some band, or two, holds the digit at, then over the band's three rows.
            band0 = np.int64(board[3 * digit])
            band1 = np.int64(board[3 * digit + 1])
            band2 = np.int64(board[3 * digit + 2])
            some = band0 | band1 | band2
            two = (band0 & band1) | (band2 & (band0 | band1))
            row0, row1, row2 = some & ROW, (some >> 9) & ROW, some >> 18
            once = row0 | row1 | row2
            twice = (((two | (two >> 9) | (two >> 18)) & ROW) | (row0 & row1)
                     | (row2 & (row0 | row1)))
            if once != ROW:
                return True
            lone = (once & ~twice) * ROW_STARTS
            for band in range(3):
                cells = np.int64(board[3 * digit + band])
                row0, row1, row2 = cells & ROW, (cells >> 9) & ROW, cells >> 18
                if row0 == 0 or row1 == 0 or row2 == 0:
                    return True
                columns = row0 | row1 | row2
                if bands.any_box[columns] != ROW:
                    return True
                shared = (row0 & row1) | (row0 & row2) | (row1 & row2)
                lone_here = lone | ((bands.lone_box[columns] & ~bands.any_box[shared])
                                    * ROW_STARTS)
                if row0 & (row0 - 1) == 0:
                    lone_here |= ROW
                if row1 & (row1 - 1) == 0:
                    lone_here |= ROW << 9
                if row2 & (row2 - 1) == 0:
                    lone_here |= ROW << 18
                singles = cells & lone_here & ~np.int64(board[27 + band])
                if singles:
                    found = True
                    _fix(board, digit, band, singles, bands)
        if not found:
            return False


@compiled(inline="always")
def _fix(board, digit, band, cells, bands):
    """Fix ``cells`` (of ``band``) to ``digit``: out of every other digit's band, placed."""
    for other in range(9):
        board[3 * other + band] &= ~cells
    board[3 * digit + band] |= cells
    board[27 + band] |= cells
    _place(board, digit, band, cells, bands)


@compiled(borrows=True)
def _fewest(board, cells):
    """The open cells of a closure with the fewest choices, in row-major order, into ``cells``;
    returns how many (0 when the closure is complete).

    Cells with two choices, the usual case, come from three OR-ed masks per band (cells seen
    once, twice, three times over the digits); only when there are none are choices counted.
    """
    n = 0
    open_cells = 0
    for band in range(3):
        once = np.int64(0)
        twice = np.int64(0)
        thrice = np.int64(0)
        for digit in range(9):
            here = np.int64(board[3 * digit + band])
            thrice |= twice & here
            twice |= once & here
            once |= here
        open_cells |= twice
        pairs = twice & ~thrice
        while pairs:
            cells[n] = 27 * band + lowest_bit_index(pairs)
            pairs &= pairs - 1
            n += 1
    if n or not open_cells:
        return n
    fewest = 10
    for cell in range(81):
        size = popcount(_choices_of(board, cell))
        if size > 1 and size <= fewest:
            if size < fewest:
                fewest = size
                n = 0
            cells[n] = cell
            n += 1
    return n


@compiled(borrows=True)
def _split(board, group, level, positions, copies):
    """The parts of an unblocked node at ``level`` reached by the copies in ``group``: each copy
    expands the open cell with the fewest choices that comes first in that copy (its row-major
    first, SPEC section 2).  Returns False, with no parts, when the node is complete."""
    n_fewest = _fewest(board, copies.fewest_cells)
    copies.n_parts[level] = 0
    copies.part_at[level] = 0
    copies.untried[level] = 0
    if n_fewest == 0:
        return False
    n_parts = 0
    members = group
    while members:
        copy = lowest_bit_index(members)
        members &= members - 1
        best = copies.fewest_cells[0]
        for j in range(1, n_fewest):
            cell = copies.fewest_cells[j]
            if positions[copy, cell] < positions[copy, best]:
                best = cell
        part = copies.part_of_cell[best]
        if part < 0:
            part = n_parts
            n_parts += 1
            copies.part_of_cell[best] = part
            copies.part_cell[level, part] = best
            copies.part_group[level, part] = 0
        copies.part_group[level, part] |= np.int64(1) << copy
    for part in range(n_parts):
        copies.part_of_cell[copies.part_cell[level, part]] = -1
    copies.n_parts[level] = n_parts
    copies.untried[level] = _choices_of(board, copies.part_cell[level, 0])
    return True


@compiled(borrows=True)
def _search_copies(root, positions, max_nodes, copies, bands):
    """The ``singles`` searches (``max_solutions = 2``) of the copies whose cell positions are
    ``positions`` (at most GROUP_SIZE), from the root closure ``root`` (81 masks, neither blocked
    nor complete); sets ``copies.depth`` and returns whether some copy hit ``max_nodes``.

    The searches run together: a node is visited once for all the copies whose paths reach it,
    its closure computed once, and each copy goes on with the cell it expands there.  Each copy
    still meets its nodes in its own depth-first order, so its node count, its budget and its
    stop at a second solution are its own search's; only ``search_depth`` is kept of what
    the search of ``solver.compiled.search_9x9`` reports.
    """
    n_copies = positions.shape[0]
    for copy in range(n_copies):
        copies.nodes[copy] = 1  # the root
        copies.depth[copy] = 0
        copies.solutions[copy] = 0
    finished = np.int64(0)  # copies that found their second solution
    stack, untried, part_at = copies.stack, copies.untried, copies.part_at
    _to_board(root, stack[0])
    _split(stack[0], (np.int64(1) << n_copies) - 1, np.int64(0), positions, copies)
    level = 0
    while True:
        # The next child: the smallest untried digit of the current part of the nearest level
        # that has one, or of its next part.
        while level >= 0 and untried[level] == 0:
            part_at[level] += 1
            if part_at[level] < copies.n_parts[level]:
                untried[level] = _choices_of(stack[level],
                                             copies.part_cell[level, part_at[level]])
            else:
                level -= 1
        if level < 0:
            return False
        rest = np.int64(untried[level])
        bit = rest & -rest
        untried[level] = rest & ~bit
        cell = copies.part_cell[level, part_at[level]]
        group = copies.part_group[level, part_at[level]] & ~finished
        if group == 0:
            untried[level] = 0
            continue
        # Visit it, for every copy of the group.
        members = group
        while members:
            copy = lowest_bit_index(members)
            members &= members - 1
            if copies.nodes[copy] >= max_nodes:
                return True
            copies.nodes[copy] += 1
            copies.depth[copy] = max(copies.depth[copy], level + 1)
        level += 1
        board = stack[level]
        for word in range(BOARD_WORDS):
            board[word] = stack[level - 1, word]
        untried[level] = 0
        copies.n_parts[level] = 0
        part_at[level] = 0
        if _close(board, np.int64(cell), lowest_bit_index(bit), bands):
            continue
        if not _split(board, group, np.int64(level), positions, copies):  # complete
            members = group
            while members:
                copy = lowest_bit_index(members)
                members &= members - 1
                copies.solutions[copy] += 1
                if copies.solutions[copy] >= 2:
                    finished |= np.int64(1) << copy


# -- 5.3 backdoor size ---------------------------------------------------------------------------


class _BackdoorWork(NamedTuple):
    """The arrays ``_backdoor_size`` works in, allocated once per batch."""

    start: np.ndarray  # (81,) uint16: the puzzle's closure
    with_one: np.ndarray  # (81, 81) uint16: the closure with each candidate cell filled in
    with_two: np.ndarray  # (81,) uint16: ... and a second
    with_three: np.ndarray  # (81,) uint16: ... and a third
    queue: np.ndarray  # (QUEUE_LENGTH,) int16: singletons to propagate
    candidates: np.ndarray  # (81,) int16: the cells the closure leaves open
    fixed: np.ndarray  # (81,) int16: how many cells each candidate's closure fixes
    ranked: np.ndarray  # (81,) int16: the candidates, most cells fixed first


@compiled
def _backdoor_batch(grids, solutions, out, tables):
    """``out[i]``: row i's backdoor size, -1 when it is larger than 3."""
    work = _BackdoorWork(np.empty(81, np.uint16), np.empty((81, 81), np.uint16),
                         np.empty(81, np.uint16), np.empty(81, np.uint16),
                         np.empty(QUEUE_LENGTH, np.int16), np.empty(81, np.int16),
                         np.empty(81, np.int16), np.empty(81, np.int16))
    for i in range(grids.shape[0]):
        out[i] = _backdoor_size(grids[i], solutions[i], work, tables)


@compiled(inline="always")
def _most_first(counts, n, order):
    """The indexes 0 .. n-1 ordered by ``counts``, largest first, ties in index order (an
    insertion sort: n is at most 81, and numba compiles it in no time)."""
    for j in range(n):
        k = j
        while k > 0 and counts[order[k - 1]] < counts[j]:
            order[k] = order[k - 1]
            k -= 1
        order[k] = j
    return order[:n]


@compiled(inline="always")
def _fill_in(matrix, cell, solution, queue, tables):
    """Fill ``cell`` with its digit in ``solution`` and propagate singles; returns blocked."""
    matrix[cell] = np.int64(1) << (solution[cell] - 1)
    queue[0] = cell
    return _singles(matrix, queue, np.int64(1), np.int64(tables.unit_bits[cell]), tables)


@compiled(inline="always")
def _is_fixed(matrix, cell, tables):
    return tables.popcount[matrix[cell]] == 1


@compiled(borrows=True)
def _backdoor_size(grid, solution, work, tables):
    """SPEC 5.3 for one puzzle (``solver.reference.ladder.backdoor_size`` says why starting from the
    closure and filling only the cells it leaves open loses nothing).

    ``with_one[j]`` is the closure with ``candidates[j]`` filled in; a pair or a triple goes on
    from the closure of its first cells, so each closure is one cell's propagation.  The
    candidates are taken in the order of how many cells their own closures fix, most first
    (the likeliest to finish the grid), and a pair or triple only in that order, so each set is
    tried once; a cell that its set's first cells fix already is skipped: that set is a smaller
    one, tried before.
    """
    start, with_one, with_two, with_three = work.start, work.with_one, work.with_two, \
        work.with_three
    queue, candidates, fixed, ranked = work.queue, work.candidates, work.fixed, work.ranked
    if _singles_closure(grid, start, queue, tables):
        return NO_BACKDOOR
    if _complete(start, tables):
        return 0
    n = 0
    for cell in range(81):
        if not _is_fixed(start, cell, tables):
            copy_matrix(with_one[n], start)
            if not _fill_in(with_one[n], cell, solution, queue, tables):
                if _complete(with_one[n], tables):
                    return 1
            candidates[n] = cell
            fixed[n] = 0
            for other in range(81):
                fixed[n] += _is_fixed(with_one[n], other, tables)
            n += 1
    order = _most_first(fixed, n, ranked)
    for size in (2, 3):
        for a in range(n):
            for b in range(a + 1, n):
                second = candidates[order[b]]
                if _is_fixed(with_one[order[a]], second, tables):
                    continue
                copy_matrix(with_two, with_one[order[a]])
                if _fill_in(with_two, second, solution, queue, tables):
                    continue
                if size == 2:
                    if _complete(with_two, tables):
                        return 2
                    continue
                for c in range(b + 1, n):
                    third = candidates[order[c]]
                    if _is_fixed(with_two, third, tables):
                        continue
                    copy_matrix(with_three, with_two)
                    if _fill_in(with_three, third, solution, queue, tables):
                        continue
                    if _complete(with_three, tables):
                        return 3
    return NO_BACKDOOR
