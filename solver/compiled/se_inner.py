"""The rules a stalled dynamic forcing chain (+) calls on its reduced grid, compiled with numba:
SE's pointing and claiming with the generalized intersection, hidden pair, naked pair and
X-wing (``solver.reference.se_rules``), each with its "rule parents" (the candidates removed
since the chain started that the hint relied on), as ``solver.reference.se_chains.Chaining
.advanced`` uses them.

``inner_hints(grid, work)`` runs them in that order and stops after the first that has a hint
with parents; it writes every such hint of that rule, in the rule's order, into ``work.out`` as
``[n_parents, parent keys..., n_removals, removal keys...]`` (key = cell * 20 + digit * 2, the
"off" key of ``solver.compiled.se_chains``; parents in the reference's order, removals by cell,
then digit). The grid is a ``ChainGrid``: of it the rules read ``cands`` (current),
``pos[region, digit]`` (current places, 9-bit, SE's region order), ``cands0`` (when the chain
started) and ``counts`` (the digits' placed counts 0..9, then the regions' empty cell counts
10..36: the grid's values do not change in a chain).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled.kernels import popcount
from solver.jit import compiled
from solver.reference.se_grid import REGIONS
from solver.reference.se_rules import INSIDE, LOCKING_ORDER, SCAN

REGION_CELLS = np.array(REGIONS, dtype=np.int64)
INSIDE_MASKS = np.array(INSIDE, dtype=np.int64)  # [r1, r2]: where r2 lies in r1 (r1's indexes)
# Pointing (blocks onto columns, onto rows), then claiming (columns, rows onto blocks): the
# region pairs that cross, in SE's order.
LOCKING = np.array([(b, c) for bases, covers in LOCKING_ORDER for b in bases for c in covers
                    if INSIDE[b][c]], dtype=np.int64)
# For each region, the regions that share two or more of its cells (a block's rows and columns,
# a line's blocks): where two or more places of a digit can lie together; -1 after the last.
def _crossing_table() -> np.ndarray:
    table = np.full((27, 6), -1, dtype=np.int64)
    for r in range(27):
        crossing = [r2 for r2 in range(27) if r2 != r and bin(INSIDE[r][r2]).count("1") >= 2]
        table[r, :len(crossing)] = crossing
    return table


CROSSING = _crossing_table()
SCAN_ORDER = np.array([r for regions in SCAN for r in regions], dtype=np.int64)
# The pairs of 0..8 in SE's order (by increasing bit pattern): (0,1), (0,2), (1,2), (0,3) ...
PAIRS = np.array([(lo, hi) for hi in range(9) for lo in range(hi)], dtype=np.int64)
COLUMNS = np.arange(18, 27, dtype=np.int64)
ROWS = np.arange(9, 18, dtype=np.int64)
OCCURRENCES, EMPTY = 0, 10  # offsets in ``counts``


class ChainGrid(NamedTuple):
    """The grid of a chain search: what it reads and changes, and what it started from."""

    cands: np.ndarray  # (81,) int32: the candidates now, bit d for digit d
    pos: np.ndarray  # (27, 10) int32: pos[region, digit], the digit's places now (9 bits)
    cands0: np.ndarray  # (81,) int32: the candidates when the chain started
    pos0: np.ndarray  # (27, 10) int32: the places then
    counts: np.ndarray  # (37,) int64: the digits' placed counts, then the regions' empty cells


class InnerWork(NamedTuple):
    """Where the inner rules write their hints, and the arrays they build one hint in."""

    out: np.ndarray  # int64: the hints, [n_parents, parent keys..., n_removals, removal keys...]
    mask_of: np.ndarray  # (81,) int64: the digits one hint removes from each cell, zero between
    parents: np.ndarray  # (729,) int64: one hint's parent keys
    removals: np.ndarray  # (729,) int64: one hint's removal keys


def inner_work(capacity: int) -> InnerWork:
    """The ``InnerWork`` of a search: room for ``capacity`` numbers of hints."""
    return InnerWork(np.empty(capacity, np.int64), np.zeros(81, np.int64),
                     np.empty(81 * 9, np.int64), np.empty(81 * 9, np.int64))


@compiled(inline="always")
def _two_or_more(m):
    return m & (m - 1) != 0


@compiled(inline="always")
def _pair(m1, m2):
    """The union of two masks of two or more bits each, when it has exactly two; else 0."""
    if not (_two_or_more(m1) and _two_or_more(m2)) or popcount(m1 | m2) != 2:
        return 0
    return m1 | m2


@compiled(inline="always")
def _removed(cands, cands0, cell, digit):
    return (cands0[cell] >> digit) & 1 and not (cands[cell] >> digit) & 1


@compiled(borrows=True)
def _write(work, used, n_parents):
    """One hint into ``work.out`` at ``used``: its ``n_parents`` parents (``work.parents``),
    then its removals (``work.mask_of``, cleared: the same for a hint without parents, which is
    not written). The new length, or -1 when the hint does not fit."""
    out, mask_of, parents, removals = work
    n_removals = 0
    for c in range(81):  # by cell, then digit
        m = mask_of[c]
        if m:
            for d in range(1, 10):
                if (m >> d) & 1:
                    removals[n_removals] = c * 20 + d * 2
                    n_removals += 1
            mask_of[c] = 0
    if n_parents == 0:
        return used
    if used + n_parents + n_removals + 2 > out.shape[0]:
        return -1
    out[used] = n_parents
    used += 1
    for i in range(n_parents):
        out[used] = parents[i]
        used += 1
    out[used] = n_removals
    used += 1
    for i in range(n_removals):
        out[used] = removals[i]
        used += 1
    return used


@compiled(borrows=True)
def _locking(r1, r2, d, generalized, grid, work, used):
    """A pointing or claiming (or generalized intersection) hint of ``d`` locked in ``r1``
    where it meets ``r2``, written if it removes something with parents."""
    cands, cands0, mask_of, parents = grid.cands, grid.cands0, work.mask_of, work.parents
    bit = 1 << d
    inside = INSIDE_MASKS[r1, r2]
    any_removal = False
    for i in range(9):
        c = REGION_CELLS[r2, i]
        if not (INSIDE_MASKS[r2, r1] >> i) & 1 and cands[c] & bit:
            mask_of[c] |= bit
            any_removal = True
    if not any_removal:
        return used
    n_parents = 0
    for i in range(9):
        c = REGION_CELLS[r1, i]
        # pointing/claiming: outside the cover region; generalized: the whole region
        if _removed(cands, cands0, c, d) and (generalized or not (inside >> i) & 1):
            parents[n_parents] = c * 20 + d * 2
            n_parents += 1
    return _write(work, used, n_parents)


@compiled(borrows=True)
def _intersections(grid, work):
    pos = grid.pos
    used = 0
    for k in range(LOCKING.shape[0]):
        r1, r2 = LOCKING[k, 0], LOCKING[k, 1]
        inside = INSIDE_MASKS[r1, r2]
        for d in range(1, 10):
            p = pos[r1, d]
            if _two_or_more(p) and not p & ~inside:
                used = _locking(r1, r2, d, False, grid, work, used)
                if used < 0:
                    return -1
    # Generalized Intersection: every place of d in r (2 to 7) sees the cells of the region
    # crossing r that holds them all (on 9 x 9 no other cell sees them all)
    for k in range(27):
        r = SCAN_ORDER[k]
        for d in range(1, 10):
            p = pos[r, d]
            if not 1 < popcount(p) < 8:
                continue
            for j in range(CROSSING.shape[1]):
                r2 = CROSSING[r, j]
                if r2 < 0:
                    break
                if not p & ~INSIDE_MASKS[r, r2]:
                    used = _locking(r, r2, d, True, grid, work, used)
                    if used < 0:
                        return -1
                    break
    return used


@compiled(borrows=True)
def _pairs(hidden, grid, work):
    """Hidden pairs (``hidden``: in the regions of five empty cells or more) or naked pairs (of
    four or more), region by region in SE's scan order, pair by pair in SE's order."""
    used = 0
    for k in range(27):
        r = SCAN_ORDER[k]
        if grid.counts[EMPTY + r] < (5 if hidden else 4):
            continue
        for j in range(PAIRS.shape[0]):
            if hidden:
                n_parents = _hidden_pair(r, PAIRS[j, 0] + 1, PAIRS[j, 1] + 1, grid, work)
            else:
                n_parents = _naked_pair(r, REGION_CELLS[r, PAIRS[j, 0]],
                                        REGION_CELLS[r, PAIRS[j, 1]], grid, work)
            if n_parents >= 0:
                used = _write(work, used, n_parents)
                if used < 0:
                    return -1
    return used


@compiled(inline="always")
def _hidden_pair(r, v1, v2, grid, work):
    """The hidden pair of ``v1`` and ``v2`` in region ``r``: its removals marked in
    ``work.mask_of``, its parents in ``work.parents``, their count returned; -1 when there is
    no such pair or it removes nothing."""
    cands, cands0, mask_of, parents = grid.cands, grid.cands0, work.mask_of, work.parents
    common = _pair(grid.pos[r, v1], grid.pos[r, v2])
    if not common:
        return -1
    values = (1 << v1) | (1 << v2)
    any_removal = False
    for i in range(9):
        if (common >> i) & 1:
            c = REGION_CELLS[r, i]
            if cands[c] & ~values:
                mask_of[c] = cands[c] & ~values
                any_removal = True
    if not any_removal:
        return -1
    n_parents = 0
    for i in range(9):
        if not (common >> i) & 1:
            c = REGION_CELLS[r, i]
            for v in (v1, v2):
                if (cands0[c] >> v) & 1:
                    parents[n_parents] = c * 20 + v * 2
                    n_parents += 1
    return n_parents


@compiled(inline="always")
def _naked_pair(r, c1, c2, grid, work):
    """The naked pair of cells ``c1`` and ``c2`` of region ``r``, as ``_hidden_pair``."""
    cands, cands0, mask_of, parents = grid.cands, grid.cands0, work.mask_of, work.parents
    common = _pair(cands[c1], cands[c2])
    if not common:
        return -1
    any_removal = False
    for i in range(9):
        c = REGION_CELLS[r, i]
        if c != c1 and c != c2 and cands[c] & common:
            mask_of[c] = cands[c] & common
            any_removal = True
    if not any_removal:
        return -1
    n_parents = 0
    for c in (c1, c2):
        for v in range(1, 10):
            if (cands0[c] >> v) & 1 and not (common >> v) & 1:
                parents[n_parents] = c * 20 + v * 2
                n_parents += 1
    return n_parents


@compiled(borrows=True)
def _x_wings(grid, work):
    cands, pos, cands0, counts = grid.cands, grid.pos, grid.cands0, grid.counts
    mask_of, parents = work.mask_of, work.parents
    used = 0
    for side in range(2):
        base_lines = COLUMNS if side == 0 else ROWS
        cover_lines = ROWS if side == 0 else COLUMNS
        for j in range(PAIRS.shape[0]):
            i1, i2 = PAIRS[j, 0], PAIRS[j, 1]
            b1, b2 = base_lines[i1], base_lines[i2]
            base_mask = (1 << i1) | (1 << i2)
            for d in range(1, 10):
                if counts[OCCURRENCES + d] + 4 > 9:
                    continue
                common = _pair(pos[b1, d], pos[b2, d])
                if not common:
                    continue
                bit = 1 << d
                any_removal = False
                for i in range(9):
                    if (common >> i) & 1:
                        line = cover_lines[i]
                        rest = pos[line, d] & ~base_mask
                        for k in range(9):
                            if (rest >> k) & 1:
                                mask_of[REGION_CELLS[line, k]] = bit
                                any_removal = True
                if not any_removal:
                    continue
                n_parents = 0
                for b in (b1, b2):
                    for k in range(9):
                        # the base line's cell k lies on cover line k: covered when k is common
                        c = REGION_CELLS[b, k]
                        if _removed(cands, cands0, c, d) and not (common >> k) & 1:
                            parents[n_parents] = c * 20 + d * 2
                            n_parents += 1
                used = _write(work, used, n_parents)
                if used < 0:
                    return -1
    return used


@compiled(borrows=True)
def inner_hints(grid, work):
    """The hints with parents of the first inner rule that has one (see the module's
    docstring) in ``work.out``; the length used (0: none), -1 when ``work.out`` is too
    small."""
    used = _intersections(grid, work)
    if used != 0:
        return used
    used = _pairs(True, grid, work)
    if used != 0:
        return used
    used = _pairs(False, grid, work)
    if used != 0:
        return used
    return _x_wings(grid, work)
