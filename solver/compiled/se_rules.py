"""Sudoku Explainer's rules below the chains, compiled with numba (SPEC 5.4): each finds the
same first hint as its counterpart in ``solver.reference.se_rules`` / ``se_uniqueness``, in the
same scanning order (docs/se-notes.md says which orders and quirks matter).

A rule reads the board state (``values``, ``cands``: ``solver.compiled.se_board``) and, when it
has a hint, writes it to a ``HintOut`` (preallocated arrays) and returns True:

    removals[c]     the candidates removed from cell c (a mask, 0 for none)
    cells, digits   the pattern's cells and digits, in the reference Hint's order (info says how
                    many); ``more``: BUG type 3's naked-set cells
    info            integer fields (the ``I_*`` indexes): a technique code and what its name and
                    text need (placement, degree, loop size and type, regions, ...)
    difficulty[0]   computed with the reference's float expressions, so values compare exactly

``rule_hint(rule, ...)`` asks the rule of index ``rule`` in ``solver.reference.se.RULES``;
``hint_of(out)`` turns a HintOut into the reference's ``Hint`` (name, text and all). The chain
rules are not here (``IS_CHAIN``): the driver, ``solver.compiled.se``, hands them over.
Nothing compiles on import.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled.kernels import add_to_set, in_set, lowest_bit_index, popcount
from solver.compiled.se_board import empty_count, lowest, next_pattern, position_table, positions
from solver.jit import compiled
from solver.reference import se_grid, se_uniqueness

# -- the output record -----------------------------------------------------------------------------

# info fields
I_CODE = 0  # technique code (below); 0: no hint
I_CELL = 1  # placement cell, -1 for none
I_DIGIT = 2  # placement digit
I_CELLS = 3  # how many of ``cells`` are used
I_DIGITS = 4  # how many of ``digits``
I_MORE = 5  # how many of ``more``
I_REGION = 6  # the region named in the text (hidden single, locking, BUG type 3)
I_REGION2 = 7  # the second region of a locking hint
I_DEGREE = 8  # set / fish degree, loop size
I_TYPE = 9  # unique loop type
I_SET = 10  # unique loop type 3: 1 naked set, 2 hidden set
I_SET_SIZE = 11  # unique loop type 3: the set's size
I_Z = 12  # the wing's z digit, the BUG type 2 / 4 digit
INFO_SIZE = 16

# technique codes
HIDDEN_SINGLE = 1
DIRECT_POINTING = 2
DIRECT_CLAIMING = 3
DIRECT_HIDDEN_SET = 4
NAKED_SINGLE = 5
POINTING = 6
CLAIMING = 7
GENERALIZED_INTERSECTION = 8
NAKED_SET = 9
HIDDEN_SET = 10
FISH = 11
XY_WING = 12
XYZ_WING = 13
UNIQUE_LOOP = 14
BUG_1 = 15
BUG_2 = 16
BUG_3 = 17
BUG_4 = 18
ALIGNED_PAIR = 19
ALIGNED_TRIPLET = 20


class HintOut(NamedTuple):
    """One hint, as the compiled rules write it (see the module docstring)."""

    removals: np.ndarray  # (81,) int32
    cells: np.ndarray  # (81,) int32
    digits: np.ndarray  # (10,) int32
    more: np.ndarray  # (81,) int32
    info: np.ndarray  # (INFO_SIZE,) int32
    difficulty: np.ndarray  # (1,) float64


class Scratch(NamedTuple):
    """Work arrays of the rules (allocated once per rating)."""

    table: np.ndarray  # (27, 10) int32: the position table
    loop: np.ndarray  # (82,) int32: the unique loop search's path
    frames: np.ndarray  # (82, 5) int32: its frames (region kind, index, extras, allowance, kind)
    in_loop: np.ndarray  # (81,) bool
    cells: np.ndarray  # (81,) int32: a list of cells (exclusion bases, BUG cells)
    more: np.ndarray  # (81,) int32: another (excluders, BUG common cells)
    excluder_set: np.ndarray  # (81, 2) uint64: each base cell's excluders, a cell set
    excluders: np.ndarray  # (81, 20) int32: each base cell's excluders, house order
    counts: np.ndarray  # (81,) int32: how many excluders; the BUG values of each cell
    reduced: np.ndarray  # (81,) int32: BUG: the candidates without the BUG values
    found: np.ndarray  # (2,) int32: the unique loop found: its size, its two digits (a mask)
    exclusion: np.ndarray  # (32,) int32: what an aligned exclusion's excluders refuse
    trial: HintOut  # a unique loop hint before the sort


def hint_out() -> HintOut:
    return HintOut(np.zeros(81, np.int32), np.zeros(81, np.int32), np.zeros(10, np.int32),
                   np.zeros(81, np.int32), np.zeros(INFO_SIZE, np.int32), np.zeros(1, np.float64))


def scratch() -> Scratch:
    return Scratch(np.zeros((27, 10), np.int32), np.zeros(82, np.int32),
                   np.zeros((82, 5), np.int32), np.zeros(81, np.bool_), np.zeros(81, np.int32),
                   np.zeros(81, np.int32), np.zeros((81, 2), np.uint64),
                   np.zeros((81, 20), np.int32), np.zeros(81, np.int32), np.zeros(81, np.int32),
                   np.zeros(2, np.int32), np.zeros(32, np.int32), hint_out())


# The rules of solver.reference.se.RULES in its order, by the reference's function names; the
# chain rules are the driver's to hand over.
RULE_NAMES = (
    "hidden_singles", "direct_intersections", "direct_hidden_pairs", "naked_singles",
    "direct_hidden_triplets", "intersections", "naked_pairs", "x_wing", "hidden_pairs",
    "naked_triplets", "swordfish", "hidden_triplets", "xy_wings", "xyz_wings",
    "unique_rectangles_and_loops", "naked_quads", "jellyfish", "hidden_quads", "bug",
    "aligned_pair_exclusion", "forcing_chains_and_cycles", "aligned_triplet_exclusion",
    "nishio_forcing_chains", "multiple_forcing_chains", "dynamic_forcing_chains",
    "dynamic_forcing_chains_plus", "nested_forcing_chains_2", "nested_forcing_chains_3",
    "nested_forcing_chains_4", "nested_forcing_chains_5",
)
CHAIN_RULES = (20, 22, 23, 24, 25, 26, 27, 28, 29)
IS_CHAIN = np.array([r in CHAIN_RULES for r in range(len(RULE_NAMES))], dtype=np.bool_)
RULE_COUNT = len(RULE_NAMES)


# -- writing a hint --------------------------------------------------------------------------------


@compiled(borrows=True)
def begin(out, code, difficulty):
    """Clear ``out`` for a new hint."""
    out.removals[:] = 0
    out.info[:] = 0
    out.info[I_CODE] = code
    out.info[I_CELL] = -1
    out.difficulty[0] = difficulty


@compiled(borrows=True)
def add_cell(out, cell):
    out.cells[out.info[I_CELLS]] = cell
    out.info[I_CELLS] += 1


@compiled(borrows=True)
def add_digits(out, mask):
    """The digits of a mask, ascending."""
    for d in range(1, 10):
        if (mask >> d) & 1:
            out.digits[out.info[I_DIGITS]] = d
            out.info[I_DIGITS] += 1


@compiled(borrows=True)
def add_region_cells(out, board, region, mask):
    """The cells of a region at the indexes of ``mask``, in region order."""
    for i in range(9):
        if (mask >> i) & 1:
            add_cell(out, board.regions[region, i])


@compiled(borrows=True)
def set_placement(out, cell, digit):
    out.info[I_CELL] = cell
    out.info[I_DIGIT] = digit


@compiled(borrows=True)
def has_removals(out):
    for c in range(81):
        if out.removals[c]:
            return True
    return False


@compiled(borrows=True)
def single_bit(m):
    return m != 0 and (m & (m - 1)) == 0


@compiled(borrows=True)
def two_or_more(m):
    return (m & (m - 1)) != 0


# -- singles ---------------------------------------------------------------------------------------


@compiled(borrows=True)
def hidden_singles(board, values, cands, scratch, out):
    """Hidden Single: the last-cell case (1.0) over all regions first, then 1.2 / 1.5."""
    table = scratch.table
    position_table(cands, table, board)
    for step in range(2):
        last_cell = step == 0
        for j in range(27):
            r = board.scan[j]
            if (empty_count(values, r, board) == 1) != last_cell:
                continue
            for d in range(1, 10):
                pos = table[r, d]
                if single_bit(pos):
                    cell = board.regions[r, lowest(pos)]
                    difficulty = 1.0 if last_cell else 1.2 if r < 9 else 1.5
                    begin(out, HIDDEN_SINGLE, difficulty)
                    set_placement(out, cell, d)
                    add_cell(out, cell)
                    add_digits(out, 1 << d)
                    out.info[I_REGION] = r
                    return True
    return False


@compiled(borrows=True)
def naked_singles(board, values, cands, scratch, out):
    """Naked Single (2.3): a cell with one candidate left."""
    for cell in range(81):
        m = cands[cell]
        if values[cell] == 0 and single_bit(m):
            d = lowest(m)
            begin(out, NAKED_SINGLE, 2.3)
            set_placement(out, cell, d)
            add_cell(out, cell)
            add_digits(out, 1 << d)
            return True
    return False


# -- intersections ---------------------------------------------------------------------------------

# SE's locking order: (blocks, columns), (blocks, rows), (columns, blocks), (rows, blocks), as the
# first region id of each type.
LOCK_BASES = np.array([0, 0, 18, 9], dtype=np.int32)
LOCK_COVERS = np.array([18, 9, 0, 0], dtype=np.int32)


@compiled(inline="always")
def locked(table, board, r1, r2, d):
    """Whether digit d has two or more places in r1, all where r1 meets r2."""
    pos = table[r1, d]
    return two_or_more(pos) and (pos & ~board.inside[r1, r2]) == 0


@compiled(borrows=True)
def locking_removals(board, cands, r1, r2, d, out):
    """The digit leaves the cells of r2 outside r1."""
    bit = 1 << d
    kind = r1 // 9
    for i in range(9):
        c = board.regions[r2, i]
        if board.regions_of[c, kind] != r1 and cands[c] & bit:
            out.removals[c] = bit


@compiled(inline="always")
def locking_removes(table, board, r1, r2, d):
    """Whether the digit has a place in r2 outside r1."""
    return (table[r2, d] & ~board.inside[r2, r1]) != 0


@compiled(borrows=True)
def locking_hint(board, cands, table, r1, r2, d, out):
    """Removals, cells, digit and regions of a pointing or claiming hint (code and difficulty
    set by the caller)."""
    locking_removals(board, cands, r1, r2, d, out)
    add_region_cells(out, board, r1, table[r1, d])
    add_digits(out, 1 << d)
    out.info[I_REGION] = r1
    out.info[I_REGION2] = r2


@compiled(borrows=True)
def direct_locking_single(board, table, r1, r2, d):
    """The hidden single a locked digit leaves in a region of r1's type crossing r2, or -1."""
    first = (r1 // 9) * 9
    for r3 in range(first, first + 9):
        cross = board.inside[r3, r2]
        if r3 == r1 or cross == 0:
            continue
        pos3 = table[r3, d]
        if not two_or_more(pos3):
            continue
        outside = pos3 & ~cross
        if single_bit(outside):
            return board.regions[r3, lowest(outside)]
    return -1


@compiled(borrows=True)
def locking_hints(board, cands, scratch, out, direct):
    """The first Pointing (2.6) or Claiming (2.8) hint that removes something, or with
    ``direct`` the first Direct Pointing (1.7) or Direct Claiming (1.9), whose locked digit
    leaves a hidden single, into ``out``; whether there is one. Fills ``scratch.table``."""
    table = scratch.table
    position_table(cands, table, board)
    for k in range(4):
        for r1 in range(LOCK_BASES[k], LOCK_BASES[k] + 9):
            for r2 in range(LOCK_COVERS[k], LOCK_COVERS[k] + 9):
                if board.inside[r1, r2] == 0:
                    continue
                for d in range(1, 10):
                    if not locked(table, board, r1, r2, d):
                        continue
                    cell = direct_locking_single(board, table, r1, r2, d) if direct else -1
                    if direct and cell < 0:
                        continue
                    if not direct and not locking_removes(table, board, r1, r2, d):
                        continue  # most locked digits: no hint record written
                    pointing = r1 < 9
                    if direct:
                        begin(out, DIRECT_POINTING if pointing else DIRECT_CLAIMING,
                              1.7 if pointing else 1.9)
                    else:
                        begin(out, POINTING if pointing else CLAIMING, 2.6 if pointing else 2.8)
                    locking_hint(board, cands, table, r1, r2, d, out)
                    if direct:
                        set_placement(out, cell, d)
                    return True
    return False


@compiled(borrows=True)
def direct_intersections(board, values, cands, scratch, out):
    """Direct Pointing (1.7) and Direct Claiming (1.9)."""
    return locking_hints(board, cands, scratch, out, True)


@compiled(borrows=True)
def intersections(board, values, cands, scratch, out):
    """Pointing (2.6), Claiming (2.8), then Generalized Intersection (2.9)."""
    if locking_hints(board, cands, scratch, out, False):
        return True
    return generalized_intersections(board, cands, scratch.table, out)


@compiled
def generalized_intersections(board, cands, table, out):
    """Every place of a digit in a region (2 to 7) sees a cell outside it: that cell loses it."""
    holders = np.zeros((10, 2), np.uint64)  # the cells of each digit, a cell set
    for c in range(81):
        for d in range(1, 10):
            if (cands[c] >> d) & 1:
                add_to_set(holders[d], c)
    for j in range(27):
        r = board.scan[j]
        for d in range(1, 10):
            pos = table[r, d]
            n = popcount(pos)
            if n < 2 or n > 7:
                continue
            seen0, seen1 = holders[d, 0], holders[d, 1]  # the cells every place sees
            for i in range(9):
                if (pos >> i) & 1:
                    seen0 &= board.peers[board.regions[r, i], 0]
                    seen1 &= board.peers[board.regions[r, i], 1]
            if seen0 == 0 and seen1 == 0:
                continue
            seen = holders[0]  # (no digit 0)
            seen[0], seen[1] = seen0, seen1
            bit = 1 << d
            begin(out, GENERALIZED_INTERSECTION, 2.9)
            for o in range(81):
                if in_set(seen, o):
                    out.removals[o] = bit
            add_region_cells(out, board, r, pos)
            add_digits(out, bit)
            out.info[I_REGION] = r
            return True
    return False


# -- subsets ---------------------------------------------------------------------------------------


@compiled(borrows=True)
def set_union(masks_of, pattern):
    """SE's set test over the masks ``masks_of[i]`` for the indexes i of ``pattern``: each has two
    or more members; their union (the caller checks its size)."""
    union = 0
    for i in range(9):
        if (pattern >> i) & 1:
            m = masks_of[i]
            if not two_or_more(m):
                return -1
            union |= m
    return union


@compiled(borrows=True)
def direct_hidden_single(table, r, value_set, common):
    """The first digit outside a hidden set with 2+ places, one of them outside the set's cells:
    (its index in the region, the digit), or (-1, 0)."""
    for d in range(1, 10):
        pos = table[r, d]
        if (value_set >> d) & 1 or not two_or_more(pos):
            continue
        rest = pos & ~common
        if single_bit(rest):
            return lowest(rest), d
    return -1, 0


@compiled(borrows=True)
def hidden_sets(board, values, cands, scratch, out, degree, direct):
    """Hidden Pair/Triplet/Quad (3.4 / 4.0 / 5.4) and the Direct Hidden Pair/Triplet (2.0 / 2.5)."""
    table = scratch.table
    position_table(cands, table, board)
    difficulty = HIDDEN_DIFFICULTY[degree] if not direct else DIRECT_DIFFICULTY[degree]
    for j in range(27):
        r = board.scan[j]
        empty = empty_count(values, r, board)
        if not (empty > 2 * degree or (direct and empty > degree)):
            continue
        pattern = (1 << degree) - 1
        while pattern < 512:
            common = set_union(table[r, 1:], pattern)
            if common >= 0 and popcount(common) == degree:
                value_set = pattern << 1
                begin(out, DIRECT_HIDDEN_SET if direct else HIDDEN_SET, difficulty)
                out.info[I_DEGREE] = degree
                add_region_cells(out, board, r, common)
                add_digits(out, value_set)
                for i in range(9):
                    if (common >> i) & 1:
                        c = board.regions[r, i]
                        out.removals[c] = cands[c] & ~value_set
                if direct:
                    index, d = direct_hidden_single(table, r, value_set, common)
                    if index >= 0:
                        set_placement(out, board.regions[r, index], d)
                        return True
                elif has_removals(out):
                    return True
            pattern = next_pattern(pattern)
    return False


HIDDEN_DIFFICULTY = np.array([0.0, 0.0, 3.4, 4.0, 5.4])
DIRECT_DIFFICULTY = np.array([0.0, 0.0, 2.0, 2.5, 4.3])
NAKED_DIFFICULTY = np.array([0.0, 0.0, 3.0, 3.6, 5.0])
FISH_DIFFICULTY = np.array([0.0, 0.0, 3.2, 3.8, 5.2])


@compiled(borrows=True)
def naked_sets(board, values, cands, scratch, out, degree):
    """Naked Pair/Triplet/Quad (3.0 / 3.6 / 5.0)."""
    masks = scratch.more
    for j in range(27):
        r = board.scan[j]
        if empty_count(values, r, board) < 2 * degree:
            continue
        for i in range(9):
            masks[i] = cands[board.regions[r, i]]
        pattern = (1 << degree) - 1
        while pattern < 512:
            common = set_union(masks, pattern)
            if common >= 0 and popcount(common) == degree:
                begin(out, NAKED_SET, NAKED_DIFFICULTY[degree])
                for i in range(9):
                    if not (pattern >> i) & 1 and masks[i] & common:
                        out.removals[board.regions[r, i]] = masks[i] & common
                if has_removals(out):
                    out.info[I_DEGREE] = degree
                    add_region_cells(out, board, r, pattern)
                    add_digits(out, common)
                    return True
            pattern = next_pattern(pattern)
    return False


# -- fish ------------------------------------------------------------------------------------------


@compiled
def fish(board, values, cands, scratch, out, degree):
    """X-Wing, Swordfish, Jellyfish (3.2 / 3.8 / 5.2): columns as base lines first, then rows;
    tuples of lines outside, digits inside; only digits placed at most 9 - 2 * degree times."""
    table = scratch.table
    position_table(cands, table, board)
    occurrences = np.zeros(10, np.int32)
    for c in range(81):
        occurrences[values[c]] += 1
    for orientation in range(2):
        bases = 18 if orientation == 0 else 9
        covers = 9 if orientation == 0 else 18
        pattern = (1 << degree) - 1
        while pattern < 512:
            for d in range(1, 10):
                if occurrences[d] + 2 * degree > 9:
                    continue
                common = set_union(table[bases:bases + 9, d], pattern)
                if common < 0 or popcount(common) != degree:
                    continue
                begin(out, FISH, FISH_DIFFICULTY[degree])
                cover_removals(board, table, covers, pattern, common, d, out)
                if has_removals(out):
                    out.info[I_DEGREE] = degree
                    fish_cells(board, cands, covers, pattern, common, d, out)
                    return True
            pattern = next_pattern(pattern)
    return False


@compiled(borrows=True)
def cover_removals(board, table, covers, pattern, common, d, out):
    """The cover lines (indexes of ``common``) lose the digit outside the base lines."""
    for i in range(9):
        if (common >> i) & 1:
            line = covers + i
            rest = table[line, d] & ~pattern
            for k in range(9):
                if (rest >> k) & 1:
                    out.removals[board.regions[line, k]] = 1 << d


@compiled
def fish_cells(board, cands, covers, pattern, common, d, out):
    """The fish's cells, sorted, and its digit."""
    for i in range(9):
        if (common >> i) & 1:
            for k in range(9):
                c = board.regions[covers + i, k]
                if (pattern >> k) & 1 and cands[c] >> d & 1:
                    add_cell(out, c)
    out.cells[:out.info[I_CELLS]].sort()
    add_digits(out, 1 << d)


# -- wings -----------------------------------------------------------------------------------------


@compiled(borrows=True)
def wings(board, values, cands, scratch, out, xyz):
    """XY-Wing (4.2) and XYZ-Wing (4.4): pivots in row-major order, wings in house order."""
    pivot_size = 3 if xyz else 2
    for xy in range(81):
        xy_m = cands[xy]
        if popcount(xy_m) != pivot_size:
            continue
        for a in range(20):
            xz = board.house[xy, a]
            xz_m = cands[xz]
            if popcount(xz_m) != 2 or popcount(xy_m & ~xz_m) != 1:
                continue
            for b in range(20):
                yz = board.house[xy, b]
                yz_m = cands[yz]
                if popcount(yz_m) != 2:
                    continue
                union = xy_m | xz_m | yz_m
                if popcount(union) != 3 or popcount(xy_m & xz_m & yz_m) != (1 if xyz else 0):
                    continue
                if wing_hint(board, cands, xy, xz, yz, xyz, out):
                    add_digits(out, union)
                    return True
    return False


@compiled(borrows=True)
def wing_hint(board, cands, xy, xz, yz, xyz, out):
    """z leaves the cells that see both wings (and the pivot, for XYZ): whether any does."""
    z = lowest(cands[xz] & cands[yz])
    begin(out, XYZ_WING if xyz else XY_WING, 4.4 if xyz else 4.2)
    for c in range(81):
        if (cands[c] >> z) & 1 and board.sees[xz, c] and board.sees[yz, c] \
                and (not xyz or board.sees[xy, c]) and c != xy and c != xz and c != yz:
            out.removals[c] = 1 << z
    if not has_removals(out):
        return False
    add_cell(out, xy)
    add_cell(out, xz)
    add_cell(out, yz)
    out.info[I_Z] = z
    return True


# -- aligned exclusion -----------------------------------------------------------------------------


@compiled(borrows=True)
def exclusion_bases(board, cands, scratch, largest):
    """SE's base cells (2+ candidates, no single-candidate cell in their house) into
    ``scratch.cells``, each one's excluders (house cells with 2..``largest`` candidates) into
    ``scratch.excluders`` and ``scratch.excluder_set``. Returns how many bases."""
    n = 0
    for cell in range(81):
        if popcount(cands[cell]) < 2:
            continue
        count = 0
        single = False
        for i in range(20):
            other = board.house[cell, i]
            k = popcount(cands[other])
            if k == 1:
                single = True
            elif 2 <= k <= largest:
                scratch.excluders[cell, count] = other
                count += 1
        if not single and count > 0:
            scratch.cells[n] = cell
            n += 1
            scratch.counts[cell] = count
            scratch.excluder_set[cell, :] = 0
            for i in range(count):
                add_to_set(scratch.excluder_set[cell], scratch.excluders[cell, i])
    return n


@compiled(inline="always")
def exclusion_removals(board, cands, scratch, cell_list, n_cells, n_common):
    """The candidates of each of the cells (2 or 3; 0 for a pair's third) that no allowed
    combination uses: a combination is refused if two cells that see each other get one digit,
    or if it covers every candidate of a common excluder (``scratch.more[:n_common]``). The
    third cell's digits are taken at once for each digit of the first two, and a digit of the
    first is left as soon as it is allowed once and the others' digits are all allowed: more
    combinations would allow nothing new."""
    c0, c1 = cell_list[0], cell_list[1]
    c2 = cell_list[2] if n_cells == 3 else c0
    m1, m2 = cands[c1], cands[c2] if n_cells == 3 else 0
    n_three = refusals(cands, scratch, n_common)
    sees_01, sees_02, sees_12 = board.sees[c0, c1], board.sees[c0, c2], board.sees[c1, c2]
    a0 = a1 = a2 = 0
    rest0 = cands[c0]
    while rest0:
        d0 = lowest_bit_index(rest0)
        rest0 &= rest0 - 1
        rest1 = m1
        while rest1:
            d1 = lowest_bit_index(rest1)
            rest1 &= rest1 - 1
            if d0 == d1 and sees_01:
                continue
            allowed = third_digits(scratch.exclusion, n_three, m2, d0, d1, sees_02, sees_12)
            if allowed < 0 or (n_cells == 3 and allowed == 0):
                continue
            a0 |= 1 << d0
            a1 |= 1 << d1
            a2 |= allowed
            if a1 == m1 and a2 == m2:
                break
    return cands[c0] & ~a0, m1 & ~a1, m2 & ~a2


@compiled(inline="always")
def refusals(cands, scratch, n_common):
    """What the common excluders refuse, into ``scratch.exclusion``: at [d], the digits that a
    two-digit excluder holding d leaves alone once d is used (a third cell may not take them;
    a combination using both its digits covers it); from [10], the three-digit excluders (two
    of their digits used leave the third alone). Returns how many three-digit ones."""
    table = scratch.exclusion
    for d in range(10):
        table[d] = 0
    n_three = 0
    for i in range(n_common):
        m = cands[scratch.more[i]]
        if popcount(m) == 2:
            low = m & -m
            table[lowest_bit_index(low)] |= m ^ low
            table[lowest_bit_index(m ^ low)] |= low
        else:
            table[10 + n_three] = m
            n_three += 1
    return n_three


@compiled(inline="always")
def third_digits(table, n_three, m2, d0, d1, sees_02, sees_12):
    """The digits of the third cell (candidates ``m2``) that complete ``d0`` in the first and
    ``d1`` in the second to an allowed combination (-1 if the two alone cover an excluder): an
    excluder left one digit by the two refuses that digit in the third cell."""
    if d0 != d1 and (table[d0] >> d1) & 1:
        return -1  # a two-digit excluder holds d0 and d1
    used = 1 << d0 | 1 << d1
    refused = table[d0] | table[d1]
    for i in range(n_three):
        rest = table[10 + i] & ~used
        if rest & (rest - 1) == 0:
            refused |= rest
    allowed = m2 & ~refused
    if sees_02:
        allowed &= ~(1 << d0)
    if sees_12:
        allowed &= ~(1 << d1)
    return allowed


@compiled
def aligned_pairs(board, values, cands, scratch, out):
    """Aligned Pair Exclusion (6.2): pairs of base cells (0,1), (0,2), (1,2), ... sharing two or
    more bivalue excluders."""
    n = exclusion_bases(board, cands, scratch, 2)
    pair = np.zeros(3, np.int32)
    for j in range(1, n):
        for i in range(j):
            pair[0], pair[1] = scratch.cells[i], scratch.cells[j]
            if shared_excluders(scratch.excluder_set, pair[0], pair[1], pair[1]) < 2:
                continue
            if exclusion_hint(board, cands, scratch, pair, 2, ALIGNED_PAIR, out):
                return True
    return False


@compiled(inline="always")
def exclusion_hint(board, cands, scratch, cell_list, n_cells, code, out):
    n_common = common_excluders(scratch, cell_list[0], cell_list[1], cell_list[n_cells - 1])
    removed = exclusion_removals(board, cands, scratch, cell_list, n_cells, n_common)
    if removed[0] == 0 and removed[1] == 0 and removed[2] == 0:
        return False  # most combinations of cells: out is left as it is
    begin(out, code, 6.2 if n_cells == 2 else 7.5)
    for k in range(n_cells):
        out.removals[cell_list[k]] = removed[k]
        add_cell(out, cell_list[k])
    return True


@compiled(inline="always")
def common_excluders(scratch, c0, c1, c2):
    """The excluders the cells all have (``c2`` = ``c1`` for a pair), in cell order (what they
    refuse does not depend on it), into ``scratch.more``; how many."""
    sets = scratch.excluder_set
    n = 0
    for w in range(2):
        common = sets[c0, w] & sets[c1, w] & sets[c2, w]
        while common:
            bit = common & -common
            common ^= bit
            scratch.more[n] = w * 64 + lowest_bit_index(np.int64(bit))
            n += 1
    return n


@compiled(inline="always")
def shared_excluders(sets, a, b, c):
    """How many excluders the base cells a, b and c have in common."""
    return popcount(sets[a, 0] & sets[b, 0] & sets[c, 0]) + popcount(sets[a, 1] & sets[b, 1]
                                                                    & sets[c, 1])


@compiled
def aligned_triplets(board, values, cands, scratch, out):
    """Aligned Triplet Exclusion (7.5): for each pair of base cells, a third taken from their
    excluders (the first's, then the second's new ones) that is a base cell. A pair's thirds are
    first tried as cell sets, in cell order (what a triplet removes does not depend on the
    order), and in SE's order only when one removes something."""
    n = exclusion_bases(board, cands, scratch, 3)
    if n < 3:
        return False
    bases = np.zeros(2, np.uint64)
    for i in range(n):
        add_to_set(bases, scratch.cells[i])
    sets = scratch.excluder_set
    triplet = np.zeros(3, np.int32)
    for j in range(1, n):
        for i in range(j):
            c0, c1 = scratch.cells[i], scratch.cells[j]
            if shared_excluders(sets, c0, c1, c1) < 2:
                continue  # a triplet's common excluders are among its first two cells'
            triplet[0], triplet[1] = c0, c1
            if not any_third_removes(board, cands, scratch, bases, triplet):
                continue
            if triplet_from(board, cands, scratch, bases, triplet, out):
                return True
    return False


@compiled(borrows=True)
def any_third_removes(board, cands, scratch, bases, triplet):
    """Whether a third base cell among the excluders of the first two makes a triplet that
    removes something (the thirds in cell order)."""
    sets = scratch.excluder_set
    c0, c1 = triplet[0], triplet[1]
    for w in range(2):
        area = (sets[c0, w] | sets[c1, w]) & bases[w]
        while area:
            bit = area & -area
            area ^= bit
            c2 = w * 64 + lowest_bit_index(np.int64(bit))
            if c2 == c0 or c2 == c1:
                continue
            n_common = common_excluders(scratch, c0, c1, c2)
            if n_common < 2:
                continue
            triplet[2] = c2
            removed = exclusion_removals(board, cands, scratch, triplet, 3, n_common)
            if removed[0] != 0 or removed[1] != 0 or removed[2] != 0:
                return True
    return False


@compiled(borrows=True)
def triplet_from(board, cands, scratch, bases, triplet, out):
    """Try each third cell of the area of the first two."""
    c0, c1 = triplet[0], triplet[1]
    for k in range(scratch.counts[c0] + scratch.counts[c1]):
        if k < scratch.counts[c0]:
            c2 = scratch.excluders[c0, k]
        else:
            c2 = scratch.excluders[c1, k - scratch.counts[c0]]
            if in_set(scratch.excluder_set[c0], c2):
                continue  # already in the area
        if not in_set(bases, c2) or c2 == c0 or c2 == c1:
            continue
        triplet[2] = c2
        if shared_excluders(scratch.excluder_set, c0, c1, c2) < 2:
            continue
        if exclusion_hint(board, cands, scratch, triplet, 3, ALIGNED_TRIPLET, out):
            return True
    return False


# -- unique rectangles and loops -------------------------------------------------------------------

# frame fields of the loop search
F_KIND, F_INDEX, F_EXTRAS, F_ALLOWED, F_LAST = 0, 1, 2, 3, 4


@compiled(borrows=True)
def unique_loops(board, values, cands, scratch, out):
    """Unique Rectangle / Loop types 1 to 4. SE collects every hint (bivalue start cells in
    row-major order, loops in search order, each loop's types in the order 1; 2; 3 then 4) and
    sorts them by difficulty then type, stably: so the first one found with the smallest
    (difficulty, type) is the one applied. Repeats (SE drops them) are always found after the
    first of their kind, with the same difficulty and type, so they never win."""
    out.info[I_CODE] = 0
    for cell in range(81):
        m = cands[cell]
        if popcount(m) == 2:
            search_loops(board, values, cands, scratch, cell, out)
    return out.info[I_CODE] != 0


@compiled(borrows=True)
def search_loops(board, values, cands, scratch, start, out):
    """SE's depth-first search of loops through ``start`` over cells holding both its digits:
    each step changes region type; at most two cells may hold extra candidates unless all the
    extras seen so far are one digit. The extras are accumulated over every cell tried at a step
    (SE's quirk: a frame's ``extras`` grows with each cell it tries), not only along the path."""
    both = cands[start]
    loop, frames, in_loop = scratch.loop, scratch.frames, scratch.in_loop
    in_loop[:] = False
    depth = 0
    loop[0] = start
    in_loop[start] = True
    frames[0, F_KIND], frames[0, F_INDEX], frames[0, F_EXTRAS] = 0, 0, 0
    frames[0, F_ALLOWED], frames[0, F_LAST] = 2, -1
    while depth >= 0:
        kind = frames[depth, F_KIND]
        if kind == 3:
            in_loop[loop[depth]] = False
            depth -= 1
            continue
        index = frames[depth, F_INDEX]
        if kind == frames[depth, F_LAST] or index == 9:
            frames[depth, F_KIND] += 1
            frames[depth, F_INDEX] = 0
            continue
        frames[depth, F_INDEX] = index + 1
        nxt = board.regions[board.regions_of[loop[depth], kind], index]
        if nxt == start and depth >= 3:
            scratch.found[0], scratch.found[1] = depth + 1, both
            loop_hints(board, values, cands, scratch, out)
        elif not in_loop[nxt]:
            m = cands[nxt]
            if m & both == both:
                frames[depth, F_EXTRAS] |= m & ~both
                n = popcount(m)
                if n == 2 or popcount(frames[depth, F_EXTRAS]) == 1 or frames[depth, F_ALLOWED] > 0:
                    depth += 1
                    loop[depth] = nxt
                    in_loop[nxt] = True
                    frames[depth, F_KIND], frames[depth, F_INDEX] = 0, 0
                    frames[depth, F_EXTRAS] = frames[depth - 1, F_EXTRAS]
                    frames[depth, F_ALLOWED] = frames[depth - 1, F_ALLOWED] - (1 if n > 2 else 0)
                    frames[depth, F_LAST] = kind


@compiled(borrows=True)
def is_valid_loop(board, loop, size):
    """Every region the loop enters it enters once at an odd and once at an even step."""
    odd = even = 0  # region sets (27 bits)
    for i in range(size):
        for k in range(3):
            bit = 1 << board.regions_of[loop[i], k]
            if (odd if i % 2 else even) & bit:
                return False
            if i % 2:
                odd |= bit
            else:
                even |= bit
    return odd == even


loop_difficulty = compiled(se_uniqueness.loop_difficulty)  # the reference's, compiled


@compiled(borrows=True)
def loop_hints(board, values, cands, scratch, out):
    """The hints of one loop found (its cells: ``scratch.loop[:size]``), each offered to ``out``."""
    loop = scratch.loop
    size, both = scratch.found[0], scratch.found[1]
    if not is_valid_loop(board, loop, size):
        return
    n_extra = 0
    c1 = c2 = -1
    for i in range(size):
        if popcount(cands[loop[i]]) > 2:
            n_extra += 1
            if c1 < 0:
                c1 = loop[i]
            elif c2 < 0:
                c2 = loop[i]
    trial = scratch.trial
    if n_extra == 1:
        loop_trial(scratch, 1, 0.0, trial)
        trial.removals[c1] = both
        offer(trial, out)
    elif n_extra > 2:
        loop_type2(board, cands, scratch, out)
    elif n_extra == 2:
        others = (cands[c1] | cands[c2]) & ~both
        if popcount(others) == 1:
            loop_type2(board, cands, scratch, out)
        elif popcount(others) >= 2:
            loop_type3(board, values, cands, scratch, out)
        loop_type4(board, cands, scratch, out)


@compiled(borrows=True)
def loop_trial(scratch, loop_type, extra_difficulty, trial):
    """Start a unique loop hint in ``trial``: cells, digits, size, type."""
    size, both = scratch.found[0], scratch.found[1]
    begin(trial, UNIQUE_LOOP, loop_difficulty(size) + extra_difficulty)
    for i in range(size):
        add_cell(trial, scratch.loop[i])
    add_digits(trial, both)
    trial.info[I_DEGREE] = size
    trial.info[I_TYPE] = loop_type


@compiled
def offer(trial, out):
    """Keep ``trial`` in ``out`` if it removes something and sorts before what ``out`` holds."""
    if not has_removals(trial):
        return
    if out.info[I_CODE] != 0:
        if trial.difficulty[0] > out.difficulty[0]:
            return
        if trial.difficulty[0] == out.difficulty[0] and trial.info[I_TYPE] >= out.info[I_TYPE]:
            return
    out.removals[:] = trial.removals
    out.cells[:] = trial.cells
    out.digits[:] = trial.digits
    out.info[:] = trial.info
    out.difficulty[0] = trial.difficulty[0]


@compiled(borrows=True)
def loop_type2(board, cands, scratch, out):
    """Type 2: the first extra cell's extra digit leaves every cell seeing all the extra cells."""
    size, both = scratch.found[0], scratch.found[1]
    loop = scratch.loop
    first = -1
    for i in range(size):
        if popcount(cands[loop[i]]) > 2:
            first = loop[i]
            break
    value = lowest(cands[first] & ~both)
    trial = scratch.trial
    loop_trial(scratch, 2, 0.0, trial)
    for h in range(20):
        c = board.house[first, h]
        if not (cands[c] >> value) & 1:
            continue
        sees_all = True
        for i in range(size):
            e = loop[i]
            if popcount(cands[e]) > 2 and e != first and not board.sees[e, c]:
                sees_all = False
        if sees_all:
            trial.removals[c] = 1 << value
    offer(trial, out)


@compiled(borrows=True)
def extra_cells(cands, scratch):
    """The two cells of the loop with extra candidates, in loop order."""
    c1 = c2 = -1
    for i in range(scratch.found[0]):
        c = scratch.loop[i]
        if popcount(cands[c]) > 2:
            if c1 < 0:
                c1 = c
            else:
                c2 = c
    return c1, c2


@compiled(borrows=True)
def loop_type4(board, cands, scratch, out):
    """Type 4: one loop digit is locked in the two extra cells in a region they share, so the
    other leaves them."""
    both = scratch.found[1]
    c1, c2 = extra_cells(cands, scratch)
    v1 = lowest(both)
    v2 = lowest(both & ~(1 << v1))
    lock1 = lock2 = False
    for k in range(3):
        r = board.regions_of[c1, k]
        if r != board.regions_of[c2, k]:
            continue
        seen1 = seen2 = False
        for i in range(9):
            c = board.regions[r, i]
            if c != c1 and c != c2:
                seen1 |= (cands[c] >> v1) & 1 == 1
                seen2 |= (cands[c] >> v2) & 1 == 1
        lock1 |= not seen1
        lock2 |= not seen2
    if not lock1 and not lock2:
        return
    trial = scratch.trial
    loop_trial(scratch, 4, 0.0, trial)
    gone = v2 if lock1 else v1
    if not lock1:  # the digits as the hint names them: the locked one first
        trial.digits[0], trial.digits[1] = v2, v1
    trial.removals[c1] = 1 << gone
    trial.removals[c2] = 1 << gone
    offer(trial, out)


@compiled(borrows=True)
def loop_type3(board, values, cands, scratch, out):
    """Type 3: the two extra cells' extra digits act as one cell of a naked set, or the loop
    digits with others form a hidden set, in a region both cells share; for each degree from
    the number of extra digits to 7, each shared region (block, row, column), naked then
    hidden."""
    both = scratch.found[1]
    c1, c2 = extra_cells(cands, scratch)
    extra = (cands[c1] | cands[c2]) & ~both
    for degree in range(popcount(extra), 8):
        for k in range(3):
            r = board.regions_of[c1, k]
            if r != board.regions_of[c2, k]:
                continue
            empty = empty_count(values, r, board)
            if degree * 2 <= empty:
                naked_type3(board, cands, scratch, r, degree, out)
            if degree * 2 < empty:
                hidden_type3(board, cands, scratch, r, degree, out)


@compiled(borrows=True)
def naked_type3(board, cands, scratch, region, degree, out):
    """The naked sets of ``degree`` cells including c1 (standing for both extra cells), not c2."""
    both = scratch.found[1]
    c1, c2 = extra_cells(cands, scratch)
    extra = (cands[c1] | cands[c2]) & ~both
    i1 = board.index_in[c1, region // 9]
    i2 = board.index_in[c2, region // 9]
    masks = scratch.more
    for i in range(9):
        masks[i] = cands[board.regions[region, i]]
    masks[i1] = extra
    pattern = (1 << degree) - 1
    while pattern < 512:
        if (pattern >> i1) & 1 and not (pattern >> i2) & 1:
            naked = extra & cands[c1] & cands[c2]
            for i in range(9):
                if (pattern >> i) & 1 and i != i1:
                    naked |= masks[i]
            common = set_union(masks, pattern)
            if popcount(naked) == degree and common >= 0 and popcount(common) == degree:
                trial = scratch.trial
                loop_trial(scratch, 3, (popcount(common) - 1) * 0.1, trial)
                trial.info[I_SET] = 1
                trial.info[I_SET_SIZE] = popcount(common)
                for i in range(9):
                    c = board.regions[region, i]
                    if not (pattern >> i) & 1 and i != i2 and cands[c] & common:
                        trial.removals[c] = cands[c] & common
                offer(trial, out)
        pattern = next_pattern(pattern)


@compiled(borrows=True)
def hidden_type3(board, cands, scratch, region, degree, out):
    """The hidden sets of the loop digits and ``degree - 2`` others (not extra digits), c2 left
    out of the places."""
    both = scratch.found[1]
    c1, c2 = extra_cells(cands, scratch)
    extra = (cands[c1] | cands[c2]) & ~both
    rest = scratch.more
    n_rest = 0
    for d in range(1, 10):
        if not (both >> d) & 1 and not (extra >> d) & 1:
            rest[n_rest] = d
            n_rest += 1
    k = degree - 2
    if k > n_rest or n_rest == 0:
        return
    pattern = (1 << k) - 1
    while pattern < (1 << n_rest):
        hidden = both
        for i in range(n_rest):
            if (pattern >> i) & 1:
                hidden |= 1 << rest[i]
        hidden_type3_set(board, cands, scratch, region, hidden, out)
        if k == 0:
            break  # the one empty tuple
        pattern = next_pattern(pattern)


@compiled(borrows=True)
def hidden_type3_set(board, cands, scratch, region, hidden, out):
    """One hidden set candidate (the digits of ``hidden``): each digit has a place outside c2,
    the places number the set's size; the places outside the extra cells lose other digits."""
    c1, c2 = extra_cells(cands, scratch)
    i1 = board.index_in[c1, region // 9]
    i2 = board.index_in[c2, region // 9]
    union = 0
    for d in range(1, 10):
        if (hidden >> d) & 1:
            m = positions(cands, region, d, board) & ~(1 << i2)
            if m == 0:
                return
            union |= m
    if popcount(union) != popcount(hidden):
        return
    places = union & ~(1 << i1) & ~(1 << i2)
    trial = scratch.trial
    loop_trial(scratch, 3, (popcount(places) - 1) * 0.1, trial)
    trial.info[I_SET] = 2
    trial.info[I_SET_SIZE] = popcount(hidden)
    for i in range(9):
        if (places >> i) & 1:
            c = board.regions[region, i]
            if cands[c] & ~hidden:
                trial.removals[c] = cands[c] & ~hidden
    offer(trial, out)


# -- bivalue universal grave -----------------------------------------------------------------------

# scratch.more holds the BUG's common cells; scratch.cells its cells; scratch.counts each cell's
# BUG values. B_* index the small state array of the rule.
B_CELLS, B_COMMON, B_VALUES = 0, 1, 2


@compiled
def bug(board, values, cands, scratch, out):
    """BUG types 1 to 4: the cells with extra candidates (each the only such place of a digit
    with 1 or 3+ places in a region, regions in id order) leave a bivalue universal grave once
    their extras are gone; then type 1 (one cell), type 2 and type 4 (one digit), else type 4
    and type 3 (cells seen in common)."""
    state = np.zeros(3, np.int32)  # BUG cells, common cells (-1: not yet), all BUG values
    state[B_COMMON] = -1
    scratch.counts[:] = 0
    scratch.reduced[:] = cands
    if not bug_cells(board, cands, scratch, state):
        return False
    if not is_grave(board, values, scratch):
        return False
    n_cells, n_common, all_values = state[B_CELLS], state[B_COMMON], state[B_VALUES]
    if n_cells == 1:
        cell = scratch.cells[0]
        begin(out, BUG_1, 5.6)
        out.removals[cell] = cands[cell] & ~all_values
        add_cell(out, cell)
        add_digits(out, all_values)
        return True
    if popcount(all_values) == 1:
        if bug2(board, cands, scratch, state, out):
            return True
        return n_cells == 2 and bug4(board, cands, scratch, state, out)
    if n_common > 0:
        if n_cells == 2 and bug4(board, cands, scratch, state, out):
            return True
        return bug3(board, cands, scratch, state, out)
    return False


@compiled(borrows=True)
def bug_cells(board, cands, scratch, state):
    """Find the BUG cells and values, and the cells that see all BUG cells; False when the grid
    is no BUG (a digit with 1 or 3+ places without such a cell, or BUG cells with 2+ digits
    seeing no common cell)."""
    for region in range(27):
        for d in range(1, 10):
            pos = positions(cands, region, d, board)
            n = popcount(pos)
            if n == 0 or n == 2:
                continue
            n_new = 0
            cell = -1
            for i in range(9):
                c = board.regions[region, i]
                if (pos >> i) & 1 and popcount(cands[c]) >= 3:
                    n_new += 1
                    cell = c
            if n_new == 0:
                return False
            if n_new == 1:
                add_bug_value(board, scratch, state, cell, d)
                if state[B_CELLS] > 1 and popcount(state[B_VALUES]) > 1 and state[B_COMMON] == 0:
                    return False
    return True


@compiled
def add_bug_value(board, scratch, state, cell, d):
    known = False
    for i in range(state[B_CELLS]):
        known |= scratch.cells[i] == cell
    if not known:
        scratch.cells[state[B_CELLS]] = cell
        state[B_CELLS] += 1
    scratch.counts[cell] |= 1 << d
    state[B_VALUES] |= 1 << d
    scratch.reduced[cell] &= ~(1 << d)
    common = scratch.more
    if state[B_COMMON] < 0:
        common[:20] = board.house[cell]
        state[B_COMMON] = 20
    n = 0
    for i in range(state[B_COMMON]):  # keep the cells seeing ``cell`` that are no BUG cells
        c = common[i]
        if not board.sees[cell, c]:
            continue
        bug_cell = False
        for k in range(state[B_CELLS]):
            bug_cell |= scratch.cells[k] == c
        if not bug_cell:
            common[n] = c
            n += 1
    state[B_COMMON] = n


@compiled(borrows=True)
def is_grave(board, values, scratch):
    """Without the BUG values, every empty cell has two candidates and every digit 0 or 2 places
    in every region."""
    reduced = scratch.reduced
    for c in range(81):
        if values[c] == 0 and popcount(reduced[c]) != 2:
            return False
    for region in range(27):
        for d in range(1, 10):
            n = popcount(positions(reduced, region, d, board))
            if n != 0 and n != 2:
                return False
    return True


@compiled(borrows=True)
def bug2(board, cands, scratch, state, out):
    """Type 2 (5.7): one BUG digit; it leaves the cells seeing every BUG cell."""
    value = lowest(state[B_VALUES])
    begin(out, BUG_2, 5.7)
    for i in range(state[B_COMMON]):
        c = scratch.more[i]
        if (cands[c] >> value) & 1:
            out.removals[c] = 1 << value
    if not has_removals(out):
        return False
    bug_hint_cells(scratch, state, out)
    add_digits(out, 1 << value)
    out.info[I_Z] = value
    return True


@compiled(borrows=True)
def bug_hint_cells(scratch, state, out):
    for i in range(state[B_CELLS]):
        add_cell(out, scratch.cells[i])


@compiled(borrows=True)
def shared_region(board, c1, c2):
    """The first region (block, row, column) two cells share, or -1."""
    for k in range(3):
        if board.regions_of[c1, k] == board.regions_of[c2, k]:
            return board.regions_of[c1, k]
    return -1


@compiled(borrows=True)
def bug4(board, cands, scratch, state, out):
    """Type 4 (5.7): two BUG cells in one region share one digit besides the BUG values; each
    keeps only its BUG values and that digit."""
    c1, c2 = scratch.cells[0], scratch.cells[1]
    shared = cands[c1] & cands[c2] & ~state[B_VALUES]
    if popcount(shared) != 1 or shared_region(board, c1, c2) < 0:
        return False
    value = lowest(shared)
    begin(out, BUG_4, 5.7)
    out.removals[c1] = cands[c1] & ~scratch.counts[c1] & ~(1 << value)
    out.removals[c2] = cands[c2] & ~scratch.counts[c2] & ~(1 << value)
    bug_hint_cells(scratch, state, out)
    add_digits(out, 1 << value)
    out.info[I_Z] = value
    return True


@compiled
def bug3(board, cands, scratch, state, out):
    """Type 3 (5.7 + 0.1 per set digit beyond the first): the BUG values act as one cell of a
    naked set with common cells of a region all BUG cells share (regions block, row, column;
    degree 2 to 6; sets of degree - 1 common cells in SE's tuple order)."""
    region_cells = np.zeros(20, np.int32)
    for k in range(3):
        region = common_region(board, scratch, state, k)
        if region < 0:
            continue
        n = 0
        for i in range(state[B_COMMON]):
            c = scratch.more[i]
            if board.regions_of[c, k] == region:
                region_cells[n] = c
                n += 1
        for degree in range(2, 7):
            if n >= degree and bug3_sets(cands, scratch, state, region_cells[:n], degree, out):
                out.info[I_REGION] = region
                return True
    return False


@compiled(borrows=True)
def common_region(board, scratch, state, kind):
    """The region of type ``kind`` all BUG cells share, or -1."""
    region = board.regions_of[scratch.cells[0], kind]
    for i in range(1, state[B_CELLS]):
        if board.regions_of[scratch.cells[i], kind] != region:
            return -1
    return region


@compiled(borrows=True)
def bug3_sets(cands, scratch, state, region_cells, degree, out):
    n = region_cells.shape[0]
    all_values = state[B_VALUES]
    pattern = (1 << (degree - 1)) - 1
    while pattern < (1 << n):
        others = 0
        for i in range(n):
            if (pattern >> i) & 1:
                others |= cands[region_cells[i]]
        naked = -1
        if popcount(others) == degree and two_or_more(all_values):
            naked = others | all_values
            for i in range(n):
                if (pattern >> i) & 1 and not two_or_more(cands[region_cells[i]]):
                    naked = -1
        if naked >= 0 and popcount(naked) == degree:
            begin(out, BUG_3, 5.7 + (popcount(naked) - 1) * 0.1)
            for i in range(n):
                c = region_cells[i]
                if not (pattern >> i) & 1 and cands[c] & naked:
                    out.removals[c] = cands[c] & naked
            if has_removals(out):
                bug_hint_cells(scratch, state, out)
                add_digits(out, naked)
                for i in range(n):
                    if (pattern >> i) & 1:
                        out.more[out.info[I_MORE]] = region_cells[i]
                        out.info[I_MORE] += 1
                return True
        pattern = next_pattern(pattern)
    return False


# -- the rules in serate's order -------------------------------------------------------------------


@compiled(borrows=True)
def rule_hint(rule, board, values, cands, scratch, out):
    """Ask the rule of index ``rule`` in ``solver.reference.se.RULES`` (not a chain rule) for
    its first hint; whether it has one."""
    if rule == 0:
        return hidden_singles(board, values, cands, scratch, out)
    if rule == 1:
        return direct_intersections(board, values, cands, scratch, out)
    if rule == 2:
        return hidden_sets(board, values, cands, scratch, out, 2, True)
    if rule == 3:
        return naked_singles(board, values, cands, scratch, out)
    if rule == 4:
        return hidden_sets(board, values, cands, scratch, out, 3, True)
    if rule == 5:
        return intersections(board, values, cands, scratch, out)
    if rule in (6, 9, 15):
        return naked_sets(board, values, cands, scratch, out, 2 if rule == 6 else 3 if rule == 9 else 4)
    if rule in (7, 10, 16):
        return fish(board, values, cands, scratch, out, 2 if rule == 7 else 3 if rule == 10 else 4)
    if rule in (8, 11, 17):
        return hidden_sets(board, values, cands, scratch, out,
                           2 if rule == 8 else 3 if rule == 11 else 4, False)
    if rule == 12 or rule == 13:
        return wings(board, values, cands, scratch, out, rule == 13)
    if rule == 14:
        return unique_loops(board, values, cands, scratch, out)
    if rule == 18:
        return bug(board, values, cands, scratch, out)
    if rule == 19:
        return aligned_pairs(board, values, cands, scratch, out)
    if rule == 21:
        return aligned_triplets(board, values, cands, scratch, out)
    return False


# -- names and text --------------------------------------------------------------------------------

SET_NAMES = {2: "Pair", 3: "Triplet", 4: "Quad", 5: "Quintuplet", 6: "Sextuplet", 7: "Septuplet",
             8: "Octuplet"}
FISH_NAMES = {2: "X-Wing", 3: "Swordfish", 4: "Jellyfish"}
SIMPLE_NAMES = {
    HIDDEN_SINGLE: "Hidden Single", DIRECT_POINTING: "Direct Pointing",
    DIRECT_CLAIMING: "Direct Claiming", NAKED_SINGLE: "Naked Single", POINTING: "Pointing",
    CLAIMING: "Claiming", GENERALIZED_INTERSECTION: "Generalized Intersection",
    XY_WING: "XY-Wing", XYZ_WING: "XYZ-Wing", BUG_1: "BUG type 1", BUG_2: "BUG type 2",
    BUG_3: "BUG type 3", BUG_4: "BUG type 4", ALIGNED_PAIR: "Aligned Pair Exclusion",
    ALIGNED_TRIPLET: "Aligned Triplet Exclusion",
}


def technique_name(info) -> str:
    """The technique of a hint as SE names it, from its ``info`` fields."""
    code = int(info[I_CODE])
    if code in SIMPLE_NAMES:
        return SIMPLE_NAMES[code]
    degree = int(info[I_DEGREE])
    if code == DIRECT_HIDDEN_SET:
        return f"Direct Hidden {SET_NAMES[degree]}"
    if code == NAKED_SET:
        return f"Naked {SET_NAMES[degree]}"
    if code == HIDDEN_SET:
        return f"Hidden {SET_NAMES[degree]}"
    if code == FISH:
        return FISH_NAMES[degree]
    if code == UNIQUE_LOOP:
        shape = "Rectangle" if degree == 4 else "Loop"
        size = f" {degree}" if degree > 6 else ""
        kind = {0: "", 1: " (w/Naked {})", 2: " (w/Hidden {})"}[int(info[I_SET])]
        return f"Unique {shape}{size} type {int(info[I_TYPE])}" + kind.format(
            SET_NAMES.get(int(info[I_SET_SIZE])))
    raise ValueError(f"no technique of code {code}")


def hint_detail(out: HintOut) -> str:
    """The pattern as the reference's Hint text gives it (before "=>")."""
    info = out.info
    code = int(info[I_CODE])
    cells = [int(c) for c in out.cells[:info[I_CELLS]]]
    digits = [int(d) for d in out.digits[:info[I_DIGITS]]]
    listed = ",".join(map(str, digits))
    region = se_grid.region_name(int(info[I_REGION]))
    if code == HIDDEN_SINGLE or code == GENERALIZED_INTERSECTION:
        return f"{digits[0]} in {region}"
    if code in (DIRECT_POINTING, DIRECT_CLAIMING, POINTING, CLAIMING):
        return f"{digits[0]} in {region} and {se_grid.region_name(int(info[I_REGION2]))}"
    if code == NAKED_SINGLE:
        return f"{se_grid.names(cells)} holds {digits[0]}"
    if code in (DIRECT_HIDDEN_SET, NAKED_SET, HIDDEN_SET):
        return f"{listed} in {se_grid.names(cells)}"
    if code == FISH:
        return f"{digits[0]} in {se_grid.names(cells)}"
    if code in (XY_WING, XYZ_WING, BUG_2, BUG_4):
        return f"{se_grid.names(cells)} on {int(info[I_Z])}"
    if code == UNIQUE_LOOP:
        return f"{se_grid.names(cells)} on {listed}"
    if code == BUG_3:
        more = [int(c) for c in out.more[:info[I_MORE]]]
        return (f"{se_grid.names(cells)} with {se_grid.names(more)} on {listed} in {region}")
    return se_grid.names(cells)  # BUG type 1, aligned exclusions


def hint_of(out: HintOut) -> se_grid.Hint:
    """The reference's ``Hint`` of a compiled one: name, difficulty, cells, digits, removals,
    placement and text."""
    info = out.info
    removals = {int(c): int(out.removals[c]) for c in np.flatnonzero(out.removals)}
    placement = (int(info[I_CELL]), int(info[I_DIGIT])) if info[I_CELL] >= 0 else None
    digits = [] if info[I_CODE] in (ALIGNED_PAIR, ALIGNED_TRIPLET) else \
        [int(d) for d in out.digits[:info[I_DIGITS]]]
    return se_grid.Hint(technique_name(info), float(out.difficulty[0]),
                        [int(c) for c in out.cells[:info[I_CELLS]]], digits, removals,
                        placement, hint_detail(out))
