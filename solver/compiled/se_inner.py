"""The rules a stalled dynamic forcing chain (+) calls on its reduced grid, compiled with numba:
SE's pointing and claiming with the generalized intersection, hidden pair, naked pair and
X-wing (``solver.reference.se_rules``), each with its "rule parents" (the candidates removed
since the chain started that the hint relied on), as ``solver.reference.se_chains.Chaining
.advanced`` uses them.

``inner_hints`` runs them in that order and stops after the first that has a hint with parents;
it writes every such hint of that rule, in the rule's order, into ``out`` as
``[n_parents, parent keys..., n_removals, removal keys...]`` (key = cell * 20 + digit * 2, the
"off" key of ``solver.compiled.se_chains``; parents in the reference's order, removals by cell,
then digit). The grid: ``cands`` (current), ``pos[region, digit]`` (current places, 9-bit, SE's
region order), ``cands0`` (when the chain started), ``counts`` (the digits' placed counts 0..9,
then the regions' empty cell counts 10..36: the grid's values do not change in a chain).
"""

from __future__ import annotations

import numpy as np

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


@compiled(inline="always")
def _two_or_more(m):
    return m & (m - 1) != 0


@compiled(inline="always")
def popcount(m):
    """The number of set bits of a mask (inlined: the chains call it in their inner loops)."""
    count = 0
    while m:
        m &= m - 1
        count += 1
    return count


@compiled(inline="always")
def _removed(cands, cands0, cell, digit):
    return (cands0[cell] >> digit) & 1 and not (cands[cell] >> digit) & 1


@compiled
def _write(out, used, parents, n_parents, removals, n_removals):
    """One hint into ``out`` at ``used``; the new length, or -1 when it does not fit."""
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


@compiled(inline="always")
def _removal_keys(mask_of, removals):
    """The removals (per-cell digit masks, cleared on the way) as keys by cell, then digit."""
    n = 0
    for c in range(81):
        m = mask_of[c]
        if m:
            for d in range(1, 10):
                if (m >> d) & 1:
                    removals[n] = c * 20 + d * 2
                    n += 1
            mask_of[c] = 0
    return n


@compiled
def _locking(r1, r2, d, generalized, cands, cands0, out, used, mask_of, parents, removals):
    """A pointing or claiming (or generalized intersection) hint of ``d`` locked in ``r1``
    where it meets ``r2``, written if it removes something with parents."""
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
    n_removals = _removal_keys(mask_of, removals)
    if n_parents == 0:
        return used
    return _write(out, used, parents, n_parents, removals, n_removals)


@compiled
def _intersections(cands, pos, cands0, out, used, mask_of, parents, removals):
    for k in range(LOCKING.shape[0]):
        r1, r2 = LOCKING[k, 0], LOCKING[k, 1]
        inside = INSIDE_MASKS[r1, r2]
        for d in range(1, 10):
            p = pos[r1, d]
            if _two_or_more(p) and not p & ~inside:
                used = _locking(r1, r2, d, False, cands, cands0, out, used, mask_of, parents,
                                removals)
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
                    used = _locking(r, r2, d, True, cands, cands0, out, used, mask_of,
                                    parents, removals)
                    if used < 0:
                        return -1
                    break
    return used


@compiled
def _hidden_pairs(cands, pos, cands0, counts, out, used, mask_of, parents, removals):
    for k in range(27):
        r = SCAN_ORDER[k]
        if counts[EMPTY + r] <= 4:
            continue
        for j in range(PAIRS.shape[0]):
            v1, v2 = PAIRS[j, 0] + 1, PAIRS[j, 1] + 1
            p1, p2 = pos[r, v1], pos[r, v2]
            if not (_two_or_more(p1) and _two_or_more(p2)) or popcount(p1 | p2) != 2:
                continue
            common = p1 | p2
            values = (1 << v1) | (1 << v2)
            any_removal = False
            for i in range(9):
                if (common >> i) & 1:
                    c = REGION_CELLS[r, i]
                    if cands[c] & ~values:
                        mask_of[c] = cands[c] & ~values
                        any_removal = True
            if not any_removal:
                continue
            n_parents = 0
            for i in range(9):
                if not (common >> i) & 1:
                    c = REGION_CELLS[r, i]
                    for v in (v1, v2):
                        if (cands0[c] >> v) & 1:
                            parents[n_parents] = c * 20 + v * 2
                            n_parents += 1
            n_removals = _removal_keys(mask_of, removals)
            if n_parents:
                used = _write(out, used, parents, n_parents, removals, n_removals)
                if used < 0:
                    return -1
    return used


@compiled
def _naked_pairs(cands, cands0, counts, out, used, mask_of, parents, removals):
    for k in range(27):
        r = SCAN_ORDER[k]
        if counts[EMPTY + r] < 4:
            continue
        for j in range(PAIRS.shape[0]):
            c1, c2 = REGION_CELLS[r, PAIRS[j, 0]], REGION_CELLS[r, PAIRS[j, 1]]
            m1, m2 = cands[c1], cands[c2]
            if not (_two_or_more(m1) and _two_or_more(m2)) or popcount(m1 | m2) != 2:
                continue
            common = m1 | m2
            any_removal = False
            for i in range(9):
                c = REGION_CELLS[r, i]
                if c != c1 and c != c2 and cands[c] & common:
                    mask_of[c] = cands[c] & common
                    any_removal = True
            if not any_removal:
                continue
            n_parents = 0
            for c in (c1, c2):
                for v in range(1, 10):
                    if (cands0[c] >> v) & 1 and not (common >> v) & 1:
                        parents[n_parents] = c * 20 + v * 2
                        n_parents += 1
            n_removals = _removal_keys(mask_of, removals)
            if n_parents:
                used = _write(out, used, parents, n_parents, removals, n_removals)
                if used < 0:
                    return -1
    return used


@compiled
def _x_wings(cands, pos, cands0, counts, out, used, mask_of, parents, removals):
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
                p1, p2 = pos[b1, d], pos[b2, d]
                if not (_two_or_more(p1) and _two_or_more(p2)) or popcount(p1 | p2) != 2:
                    continue
                common = p1 | p2
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
                n_removals = _removal_keys(mask_of, removals)
                if n_parents:
                    used = _write(out, used, parents, n_parents, removals, n_removals)
                    if used < 0:
                        return -1
    return used


SPACE = 81 + 2 * 81 * 9  # the length of ``inner_hints``'s work space


@compiled
def inner_hints(cands, pos, cands0, counts, out, space):
    """The hints with parents of the first inner rule that has one (see the module's
    docstring); the length of ``out`` used (0: none), -1 when ``out`` is too small. ``space``:
    ``SPACE`` int64 whose first 81 are zero (left so)."""
    mask_of = space[:81]
    parents = space[81:81 + 729]
    removals = space[81 + 729:]
    used = _intersections(cands, pos, cands0, out, 0, mask_of, parents, removals)
    if used != 0:
        return used
    used = _hidden_pairs(cands, pos, cands0, counts, out, 0, mask_of, parents, removals)
    if used != 0:
        return used
    used = _naked_pairs(cands, cands0, counts, out, 0, mask_of, parents, removals)
    if used != 0:
        return used
    return _x_wings(cands, pos, cands0, counts, out, 0, mask_of, parents, removals)
