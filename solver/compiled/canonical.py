"""The canonical ("minlex") form of a Sudoku puzzle (SPEC section 6), compiled with numba.

SPEC section 6: "over all cell symmetries, take those that give the lexicographically least
pattern (the most leading blanks first); over those, with digits renamed 1, 2, 3, ... in order of
first appearance, the lexicographically least digit string.  Written as 81 characters with `.` for
blanks."  ``solver.reference.canonical`` walks the 3,359,232 cell symmetries one by one; this
module reaches the same string without visiting them:

- **the pattern, row by row.**  A cell symmetry is a transposition, an order of the 9 source
  rows (bands kept together) and an order of the 9 source columns (stacks kept together).  The
  canonical pattern is built one row at a time.  A *candidate* is a transposition and the source
  rows of the canonical rows placed so far, together with the set of column orders that give
  those rows their least pattern.  That set is always "tied groups": the stacks in an order
  where neighbours may be tied (still interchangeable), and within each stack its three columns
  in an order where neighbours may be tied.  Placing a source row under a candidate sorts every
  tied group, blanks first, and splits the groups where a blank meets a given: one table look-up
  per stack, one for the stacks.  All candidates are extended by every allowed source row, and
  only those reaching the least row seen at this depth survive (breadth first: nothing deeper is
  ever built for a prefix that loses).
- **the digits, only among the survivors.**  After row 9 the survivors are exactly the cell
  symmetries giving the least pattern, as (transposition, row order, tied column groups).  For
  each column order the groups allow, the givens are read in canonical order and renamed by first
  appearance; the reading stops at the first given that is worse than the best string so far.
  Most puzzles leave one survivor and one column order; a symmetric pattern leaves more (the
  pattern of every ``serg_benchmark.txt`` puzzle has 720 least symmetries).
- **dense grids** (a solved grid: 2,592 survivors, 3,359,232 symmetries, every one reading
  ``123456789`` first) are read column order first: survivors sharing their first rows are
  neighbours, and a reading that loses at row r under a column order loses for all of them.

Glossary: ``tr`` transposed (0 or 1); ``t`` the tables; ``mask`` a source row's pattern, bit
``8 - c`` for column ``c``; ``raw`` a stack's three bits of a mask; ``q`` an order of three things
(an index into ``PERMS3``: position ``i`` holds thing ``PERMS3[q][i]``); ``g`` the ties of three
positions (bit 0: positions 0 and 1 are separated, bit 1: positions 1 and 2); a stack's *state* is
``q * 4 + g`` for its columns; ``h`` (``tie``) the ties of the three stack slots.

Nothing is compiled at import: numba compiles (or loads from its cache) on the first call.
"""

from __future__ import annotations

from itertools import permutations
from typing import NamedTuple

import numpy as np

from solver import symmetry
from solver.grid import CELL_OF_BYTE, parse_error, strip_line_ending
from solver.jit import compiled

PERMS3 = np.array(list(permutations(range(3))), np.int8)  # index 0 is the identity
MAX_CANDIDATES = 2 * 1296  # transpositions x row orders: candidates are distinct prefixes of these


class Tables(NamedTuple):
    """Constant tables the compiled code reads (passed in, so numba's cache works)."""

    perms3: np.ndarray  # (6, 3) the orders of three things
    best_triple: np.ndarray  # (24 * 8,) state, raw -> least triple | new state << 3
    best_stacks: np.ndarray  # (4 * 512,) h, three triples -> row | slot order << 9 | new h << 12
    arrangements: np.ndarray  # (24, 6) the column orders a stack state allows (states, g = 3)
    n_arrangements: np.ndarray  # (24,)
    slot_orders: np.ndarray  # (4, 6) the slot orders ties h allow
    n_slot_orders: np.ndarray  # (4,)
    order_cols: np.ndarray  # (1296, 9) the source columns of each numbered column order
    same_run: np.ndarray  # (4, 3, 3) slots j and j' tied under ties h
    allows_order: np.ndarray  # (24, 6) a stack state allows its columns in order q


def _groups(ties: int) -> list[list[int]]:
    """The runs of tied positions among three: ``ties`` bit j separates positions j and j + 1."""
    groups = [[0]]
    for j in (1, 2):
        if (ties >> (j - 1)) & 1:
            groups.append([j])
        else:
            groups[-1].append(j)
    return groups


def _sort_tied(values: list[int], ties: int) -> tuple[list[int], int]:
    """The least order of three values that only moves values within their tied runs (stable),
    and the ties left: neighbours stay tied when their values are equal."""
    order = [i for group in _groups(ties) for i in sorted(group, key=lambda i: values[i])]
    left = ties
    for j in (0, 1):
        if values[order[j]] != values[order[j + 1]]:
            left |= 1 << j
    return order, left


def _perm_index(order) -> int:
    return [tuple(p) for p in PERMS3.tolist()].index(tuple(int(i) for i in order))


PERMS = PERMS3.tolist()


def _best_triple_table() -> np.ndarray:
    """state (q, g), raw bits -> the least triple the tied runs allow | the new state << 3."""
    table = np.zeros(24 * 8, np.int16)
    for q in range(6):
        for g in range(4):
            for raw in range(8):
                bits = [(raw >> (2 - PERMS[q][i])) & 1 for i in range(3)]
                order, left = _sort_tied(bits, g)
                least = sum(bits[order[i]] << (2 - i) for i in range(3))
                q_new = _perm_index([PERMS[q][order[i]] for i in range(3)])
                table[(q * 4 + g) * 8 + raw] = least | (q_new * 4 + left) << 3
    return table


def _best_stacks_table() -> np.ndarray:
    """ties h, the three slots' least triples -> the row | slot order << 9 | new h << 12."""
    table = np.zeros(4 * 512, np.int16)
    for h in range(4):
        for key in range(512):
            triples = [key >> 6, (key >> 3) & 7, key & 7]
            order, left = _sort_tied(triples, h)
            row = sum(triples[order[i]] << (6 - 3 * i) for i in range(3))
            table[h * 512 + key] = row | _perm_index(order) << 9 | left << 12
    return table


def _allowed_orders(ties: int) -> list[int]:
    """The orders of three things that only move things within tied runs."""
    return [p for p in range(6)
            if all({PERMS[p][i] for i in group} == set(group) for group in _groups(ties))]


def _tables() -> Tables:
    arrangements = np.zeros((24, 6), np.int8)
    n_arrangements = np.zeros(24, np.int8)
    slot_orders = np.zeros((4, 6), np.int8)
    n_slot_orders = np.zeros(4, np.int8)
    allows_order = np.zeros((24, 6), np.bool_)
    for g in range(4):
        allowed = _allowed_orders(g)
        slot_orders[g, :len(allowed)] = allowed
        n_slot_orders[g] = len(allowed)
        for q in range(6):
            orders = [_perm_index([PERMS[q][PERMS[p][i]] for i in range(3)]) for p in allowed]
            arrangements[q * 4 + g, :len(orders)] = [order * 4 + 3 for order in orders]
            n_arrangements[q * 4 + g] = len(orders)
            allows_order[q * 4 + g, orders] = True
    # Column order number o = stack order * 216 + q0 * 36 + q1 * 6 + q2: slot j holds stack
    # PERMS[stack order][j], its columns in order PERMS[q_j].
    order_cols = np.zeros((1296, 9), np.int8)
    for o in range(1296):
        stack_order, within = PERMS[o // 216], (o // 36 % 6, o // 6 % 6, o % 6)
        order_cols[o] = [3 * stack_order[j] + PERMS[within[j]][i] for j in range(3)
                         for i in range(3)]
    same_run = np.zeros((4, 3, 3), np.bool_)
    for h in range(4):
        for group in _groups(h):
            for j in group:
                same_run[h, j, group] = True
    return Tables(PERMS3, _best_triple_table(), _best_stacks_table(), arrangements,
                  n_arrangements, slot_orders, n_slot_orders, order_cols, same_run, allows_order)


TABLES = _tables()


class Work(NamedTuple):
    """The scratch arrays of ``_canonical_one`` (``_work``), allocated once per batch."""

    sources: np.ndarray  # (2, 81) uint8: the grid, and transposed
    masks: np.ndarray  # (2, 9) int32: each source row's pattern
    rows: np.ndarray  # (9, MAX_CANDIDATES) int8: the source row each candidate placed, by depth
    parents: np.ndarray  # (9, MAX_CANDIDATES) int16: the candidate each one extends, by depth
    stacks: np.ndarray  # (2, MAX_CANDIDATES, 3) int8: the source stack in each slot
    states: np.ndarray  # (2, MAX_CANDIDATES, 3) int8: each slot's column state
    ties: np.ndarray  # (2, MAX_CANDIDATES) int8: the slots' ties
    flip: np.ndarray  # (2, MAX_CANDIDATES) int8: transposed
    used: np.ndarray  # (2, MAX_CANDIDATES) int16: the source rows placed
    pattern: np.ndarray  # (9,) int32: the least pattern, row by row
    given_row: np.ndarray  # (81,) int32: the canonical row of each given of the pattern
    given_col: np.ndarray  # (81,) int32: its canonical column
    best: np.ndarray  # (81,) int32: the least renamed givens so far
    name: np.ndarray  # (10,) int32: each digit's new name in the current reading
    seen: np.ndarray  # (10,) int64: the reading that named each digit (``_read_givens``)
    cols: np.ndarray  # (9,) int32: one column order
    found_cols: np.ndarray  # (9,) int32: the column order of the best so far
    row_starts: np.ndarray  # (MAX_CANDIDATES, 9) int32: where each survivor's rows start
    block_end: np.ndarray  # (9, MAX_CANDIDATES) int32: see ``_digits_by_column_order``


# -- the pattern ----------------------------------------------------------------------------------
# (The compiled functions take the tables out of ``t`` once, before their loops: read through the
# tuple inside a loop that branches, every access costs numba a reference count update.)


@compiled(inline="always")
def _place_row(mask, slot_stacks, slot_states, tie, best_triple, best_stacks):
    """The least canonical row the source row ``mask`` can become under a candidate's column
    groups (``slot_stacks``: the source stack in each slot, ``slot_states``: each slot's column
    state, ``tie``: the slots' ties), and how the groups split: (row, slot order, new ties, and
    the three new slot states packed 5 bits each, in the old slot order)."""
    stack0, stack1, stack2 = slot_stacks
    state0, state1, state2 = slot_states
    a0 = best_triple[state0 * 8 + ((mask >> (6 - 3 * stack0)) & 7)]
    a1 = best_triple[state1 * 8 + ((mask >> (6 - 3 * stack1)) & 7)]
    a2 = best_triple[state2 * 8 + ((mask >> (6 - 3 * stack2)) & 7)]
    sorted_stacks = best_stacks[tie * 512 + (a0 & 7) * 64 + (a1 & 7) * 8 + (a2 & 7)]
    new_states = (a0 >> 3) | (a1 >> 3) << 5 | (a2 >> 3) << 10
    return sorted_stacks & 511, (sorted_stacks >> 9) & 7, sorted_stacks >> 12, new_states


@compiled(inline="always")
def _least_pattern(work, t):
    """Breadth first over the canonical rows 0..8: ``pattern[k]`` becomes the least row k of
    any cell symmetry whose rows 0..k-1 are least, and the returned count of candidates (in
    buffer 8 % 2 = 0) are all the ways to reach the least whole pattern: the *survivors*.

    Buffers: ``stacks``, ``states``, ``ties``, ``flip`` (transposed) and ``used`` (source rows
    placed) are double-buffered by depth parity; ``rows`` and ``parents`` keep every depth, so
    a survivor's row order can be read back.
    """
    best_triple, best_stacks, perms3 = t.best_triple, t.best_stacks, t.perms3
    masks, rows, parents, pattern = work.masks, work.rows, work.parents, work.pattern
    stacks, states, ties, flip, used = work.stacks, work.states, work.ties, work.flip, work.used
    n = 0
    for depth in range(9):
        now, before = depth % 2, 1 - depth % 2
        least = 512
        n_new = 0
        for i in range(2 if depth == 0 else n):
            if depth == 0:  # the two roots: nothing placed, every column tied
                tr, placed, tie = i, 0, 0
                stack0, stack1, stack2 = 0, 1, 2
                state0, state1, state2 = 0, 0, 0
            else:
                tr, placed, tie = flip[before, i], used[before, i], ties[before, i]
                stack0, stack1, stack2 = stacks[before, i, 0], stacks[before, i, 1], \
                    stacks[before, i, 2]
                state0, state1, state2 = states[before, i, 0], states[before, i, 1], \
                    states[before, i, 2]
            if depth % 3 == 0:  # a new band: any row of a band not used yet
                first, last = 0, 9
            else:  # the rest of the current band
                first = 3 * (rows[depth - 1, i] // 3)
                last = first + 3
            for r in range(first, last):
                if (placed >> r) & 1 or (depth % 3 == 0 and (placed >> (r - r % 3)) & 7):
                    continue
                row, order, new_ties, new_states = _place_row(
                    masks[tr, r], (stack0, stack1, stack2), (state0, state1, state2), tie,
                    best_triple, best_stacks)
                if row > least:
                    continue
                if row < least:
                    least = row
                    n_new = 0
                k = n_new
                n_new += 1
                rows[depth, k] = r
                parents[depth, k] = i
                flip[now, k] = tr
                used[now, k] = placed | (1 << r)
                ties[now, k] = new_ties
                for slot in range(3):
                    old = perms3[order, slot]
                    stacks[now, k, slot] = stack0 if old == 0 else (stack1 if old == 1 else stack2)
                    states[now, k, slot] = (new_states >> (5 * old)) & 31
        pattern[depth] = least
        n = n_new
    return n


# -- the digits -----------------------------------------------------------------------------------


@compiled(inline="always")
def _read_givens(source, row_start, cols, n_givens, read, improved, work):
    """Rename the givens of one cell symmetry by first appearance and compare them with
    ``work.best``; when they are less, or ``improved`` already, write them into it.  Canonical
    cell (r, c) is cell ``row_start[r] + cols[c]`` of ``source`` (the grid, transposed or not).

    Returns (1 when ``best`` changed, 0 when equal, -1 when worse; the given where it was worse).
    ``seen[d] == read`` marks the digits named in this reading (``read`` is new every time), so
    nothing is cleared between readings, most of which stop after a few givens.
    """
    given_row, given_col, best, name, seen = work.given_row, work.given_col, work.best, \
        work.name, work.seen
    next_name = 1
    status = 1 if improved else 0
    for k in range(n_givens):
        d = source[row_start[given_row[k]] + cols[given_col[k]]]
        if seen[d] != read:
            seen[d] = read
            name[d] = next_name
            next_name += 1
        if status == 0:
            if name[d] > best[k]:
                return -1, k
            if name[d] < best[k]:
                status = 1
        if status == 1:
            best[k] = name[d]
    return status, n_givens


@compiled(inline="always")
def _write_symmetry(symmetry, tr, row_starts, i, cols):
    symmetry[0] = tr
    for j in range(9):
        symmetry[1 + j] = row_starts[i, j] // 9
        symmetry[10 + j] = cols[j]


@compiled(inline="always")
def _fill_row_starts(n, rows, parents, row_starts):
    """``row_starts[i, r]``: where canonical row r of survivor i starts in the source grid."""
    for i in range(n):
        k = i
        for depth in range(8, -1, -1):
            row_starts[i, depth] = 9 * rows[depth, k]
            k = parents[depth, k]


@compiled(inline="always")
def _n_symmetries(n, states, ties, t):
    """How many cell symmetries the ``n`` survivors stand for (column orders included)."""
    n_slot_orders, n_arrangements = t.n_slot_orders, t.n_arrangements
    total = 0
    for i in range(n):
        orders = n_slot_orders[ties[0, i]]
        for slot in range(3):
            orders *= n_arrangements[states[0, i, slot]]
        total += orders
    return total


@compiled(inline="always")
def _digits_by_survivor(n, n_givens, symmetry, work, t):
    """The least renamed givens: every column order of every survivor, read in turn."""
    perms3, arrangements, n_arrangements = t.perms3, t.arrangements, t.n_arrangements
    slot_orders, n_slot_orders = t.slot_orders, t.n_slot_orders
    sources, stacks, states, ties, flip = work.sources, work.stacks, work.states, work.ties, \
        work.flip
    row_starts, seen, cols, found_cols = work.row_starts, work.seen, work.cols, work.found_cols
    improved = True  # nothing to compare with yet: the first symmetry read is the best so far
    read = seen[0]
    found = 0
    for i in range(n):
        tr, tie = flip[0, i], ties[0, i]
        source, row_start = sources[tr], row_starts[i]
        for a in range(n_slot_orders[tie]):
            slot_order = slot_orders[tie, a]
            s0, s1, s2 = perms3[slot_order, 0], perms3[slot_order, 1], perms3[slot_order, 2]
            state0, state1, state2 = states[0, i, s0], states[0, i, s1], states[0, i, s2]
            base0, base1, base2 = 3 * stacks[0, i, s0], 3 * stacks[0, i, s1], 3 * stacks[0, i, s2]
            for b0 in range(n_arrangements[state0]):
                q0 = arrangements[state0, b0] // 4
                for j in range(3):
                    cols[j] = base0 + perms3[q0, j]
                for b1 in range(n_arrangements[state1]):
                    q1 = arrangements[state1, b1] // 4
                    for j in range(3):
                        cols[3 + j] = base1 + perms3[q1, j]
                    for b2 in range(n_arrangements[state2]):
                        q2 = arrangements[state2, b2] // 4
                        for j in range(3):
                            cols[6 + j] = base2 + perms3[q2, j]
                        read += 1
                        status, _ = _read_givens(source, row_start, cols, n_givens, read,
                                                 improved, work)
                        improved = False
                        if status == 1:  # (written out: a call here slows the whole loop)
                            found = i
                            for j in range(9):
                                found_cols[j] = cols[j]
    seen[0] = read  # a batch's readings never reuse a number (seen[0] is no digit's mark)
    _write_symmetry(symmetry, flip[0, found], row_starts, found, found_cols)


@compiled(inline="always")
def _allows(stacks, states, ties, i, order, t):
    """Column order number ``order`` is one of those survivor ``i``'s tied groups allow: each
    slot holds a stack tied to that slot, its columns in an order the stack's ties allow."""
    perms3, same_run, allows_order = t.perms3, t.same_run, t.allows_order
    stack_order = order // 216
    for j in range(3):
        wanted = perms3[stack_order, j]
        home = 0
        while stacks[0, i, home] != wanted:
            home += 1
        within = order // 36 % 6 if j == 0 else (order // 6 % 6 if j == 1 else order % 6)
        if not same_run[ties[0, i], j, home] or not allows_order[states[0, i, home], within]:
            return False
    return True


@compiled(inline="always")
def _same_rows(flip, row_starts, i, j, depth):
    """Survivors i and j agree on the transposition and rows 0..depth."""
    if flip[0, i] != flip[0, j]:
        return False
    for r in range(depth + 1):
        if row_starts[i, r] != row_starts[j, r]:
            return False
    return True


@compiled(inline="always")
def _digits_by_column_order(n, n_givens, symmetry, work, t):
    """The least renamed givens when the survivors stand for many symmetries (dense grids: a
    solved grid has all 3,359,232): for each of the 1,296 column orders, the survivors in turn.

    Survivors sharing their first rows are neighbours (breadth first keeps a parent's children
    together), and a reading that loses at row r loses for every survivor with the same rows
    0..r under the same column order: those are skipped, ``block_end[r, i]`` being the first
    survivor after ``i`` whose rows 0..r differ.
    """
    order_cols = t.order_cols
    sources, stacks, states, ties, flip = work.sources, work.stacks, work.states, work.ties, \
        work.flip
    row_starts, block_end, given_row, seen = work.row_starts, work.block_end, work.given_row, \
        work.seen
    for depth in range(9):
        end = n
        for i in range(n - 1, -1, -1):
            block_end[depth, i] = end
            if i > 0 and not _same_rows(flip, row_starts, i - 1, i, depth):
                end = i
    improved = True
    read = seen[0]
    found, found_order = 0, 0
    for order in range(1296):
        i = 0
        while i < n:
            if not _allows(stacks, states, ties, i, order, t):
                i += 1
                continue
            tr = flip[0, i]
            read += 1
            status, lost_at = _read_givens(sources[tr], row_starts[i], order_cols[order],
                                           n_givens, read, improved, work)
            improved = False
            if status == 1:
                found, found_order = i, order
            if status < 0:
                i = block_end[given_row[lost_at], i]
            else:
                i += 1
    seen[0] = read
    _write_symmetry(symmetry, flip[0, found], row_starts, found, order_cols[found_order])


@compiled(borrows=True)
def _canonical_one(grid, out, symmetry, work, t):
    """Write the canonical form of ``grid`` (81 values 0..9) into ``out`` (81 ASCII bytes) and
    the cell symmetry reaching it into ``symmetry``: transposed, the 9 source rows, the 9 source
    columns (canonical cell (r, c) is source cell (rows[r], cols[c]) of the grid, transposed if
    so)."""
    sources, masks, pattern, given_row, given_col, best = work.sources, work.masks, \
        work.pattern, work.given_row, work.given_col, work.best
    for cell in range(81):
        d = grid[cell]
        sources[0, cell] = d
        sources[1, (cell % 9) * 9 + cell // 9] = d
    for tr in range(2):
        for r in range(9):
            m = 0
            for c in range(9):
                if sources[tr, r * 9 + c]:
                    m |= 1 << (8 - c)
            masks[tr, r] = m
    n = _least_pattern(work, t)
    _fill_row_starts(n, work.rows, work.parents, work.row_starts)

    n_givens = 0
    for cell in range(81):
        if (pattern[cell // 9] >> (8 - cell % 9)) & 1:
            given_row[n_givens] = cell // 9
            given_col[n_givens] = cell % 9
            n_givens += 1
    if n_givens == 0:  # every symmetry gives 81 blanks; name the first
        _write_symmetry(symmetry, work.flip[0, 0], work.row_starts, 0, t.order_cols[0])
    # Survivor by survivor, every symmetry is read (a reading rarely goes past a dozen givens);
    # column order first, every survivor is checked once per column order at most.
    elif _n_symmetries(n, work.states, work.ties, t) * min(n_givens, 12) <= 1296 * n:
        _digits_by_survivor(n, n_givens, symmetry, work, t)
    else:
        _digits_by_column_order(n, n_givens, symmetry, work, t)
    for cell in range(81):
        out[cell] = 46  # '.'
    for k in range(n_givens):
        out[given_row[k] * 9 + given_col[k]] = 48 + best[k]


@compiled
def _work():
    """A ``Work``, allocated once per batch."""
    candidates = MAX_CANDIDATES
    return Work(np.zeros((2, 81), np.uint8), np.zeros((2, 9), np.int32),
                np.zeros((9, candidates), np.int8), np.zeros((9, candidates), np.int16),
                np.zeros((2, candidates, 3), np.int8), np.zeros((2, candidates, 3), np.int8),
                np.zeros((2, candidates), np.int8), np.zeros((2, candidates), np.int8),
                np.zeros((2, candidates), np.int16), np.zeros(9, np.int32),
                np.zeros(81, np.int32), np.zeros(81, np.int32), np.zeros(81, np.int32),
                np.zeros(10, np.int32), np.zeros(10, np.int64), np.zeros(9, np.int32),
                np.zeros(9, np.int32), np.zeros((candidates, 9), np.int32),
                np.zeros((9, candidates), np.int32))


@compiled
def canonical_batch(grids, out, symmetries, t):
    """``_canonical_one`` for every row of ``grids`` ((n, 81) values 0..9; rows holding
    ``INVALID_BYTE`` are left as zero bytes)."""
    work = _work()
    for i in range(grids.shape[0]):
        bad = False
        for cell in range(81):
            if grids[i, cell] > 9:
                bad = True
        if bad:
            out[i, :] = 0
            symmetries[i, :] = 0
        else:
            _canonical_one(grids[i], out[i], symmetries[i], work, t)


@compiled
def _cells_of_ascii(rows, cell_of_byte):
    grids = np.empty(rows.shape, np.uint8)
    for i in range(rows.shape[0]):
        for cell in range(81):
            grids[i, cell] = cell_of_byte[rows[i, cell]]
    return grids


# -- the Python face ------------------------------------------------------------------------------


def canonical_grids(grids: np.ndarray) -> np.ndarray:
    """The canonical forms of an (n, 81) array of cell values (0 blank, 1..9 given), as an
    (n, 81) uint8 array of ASCII bytes (``.`` for blanks), in one compiled call.

    Contradictory grids (a digit repeated in a unit) have a canonical form like any other.
    """
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, 81)
    if (grids > 9).any():
        raise ValueError("cell values must be 0 (blank) to 9")
    out = np.zeros(grids.shape, np.uint8)
    canonical_batch(grids, out, np.zeros((len(grids), 19), np.int8), TABLES)
    return out


def canonical_ascii(rows: np.ndarray) -> np.ndarray:
    """The canonical forms of an (n, 81) array of puzzles as ASCII bytes (digits ``1``-``9``,
    blanks any of ``.0 -_``), as (n, 81) ASCII bytes, ``.`` for blanks.

    A row holding any other byte is not a puzzle: its output row is 81 zero bytes (never a
    canonical form, which holds only ``.`` and digits), for the caller to mark invalid (SPEC:
    null for invalid rows).
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint8).reshape(-1, 81)
    out = np.zeros(rows.shape, np.uint8)
    grids = _cells_of_ascii(rows, CELL_OF_BYTE)
    canonical_batch(grids, out, np.zeros((len(rows), 19), np.int8), TABLES)
    return out


def _grid_of(puzzle: str) -> np.ndarray:
    """One puzzle string (SPEC section 1: a line ending is no part of it) -> 81 cell values;
    ValueError naming what is wrong."""
    if not isinstance(puzzle, str):
        raise ValueError(f"a puzzle is a string of 81 characters, got {type(puzzle).__name__}")
    puzzle = strip_line_ending(puzzle)
    error = parse_error(puzzle)
    if error is not None:
        raise ValueError(f"not a puzzle: {error} (digits 1-9 are givens, '.0 -_' blanks)")
    return CELL_OF_BYTE[np.frombuffer(puzzle.encode("ascii"), np.uint8)]


def canonical(puzzle: str) -> str:
    """The canonical form of one puzzle (81 characters: digits, blanks ``.0 -_``), SPEC section 6.

    >>> canonical("." * 80 + "5")
    '................................................................................1'
    """
    return canonical_with_symmetry(puzzle)[0]


def canonical_with_symmetry(puzzle: str) -> tuple[str, np.ndarray, np.ndarray]:
    """(canonical form, cells, relabel): a symmetry taking ``puzzle`` to its canonical form, in
    ``solver.symmetry``'s terms: ``symmetry.apply(grid, cells, relabel)`` is the canonical grid.
    Digits absent from the puzzle get the labels left over, in increasing order."""
    grid = _grid_of(puzzle)
    out = np.zeros((1, 81), np.uint8)
    found = np.zeros((1, 19), np.int8)
    canonical_batch(grid.reshape(1, 81), out, found, TABLES)
    transposed, src_rows, src_cols = bool(found[0, 0]), found[0, 1:10], found[0, 10:19]
    cells = symmetry.cell_permutation(src_rows.astype(np.intp), src_cols.astype(np.intp),
                                      transposed)
    relabel = np.zeros(10, np.uint8)
    text = out[0].tobytes().decode()
    for source, image in zip(grid[cells], text, strict=True):
        if image != ".":
            relabel[source] = int(image)
    spare = iter(sorted(set(range(1, 10)) - set(relabel[1:].tolist())))
    for d in range(1, 10):
        if relabel[d] == 0:
            relabel[d] = next(spare)
    return text, cells, relabel
