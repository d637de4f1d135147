"""Sudoku Explainer's chain rules compiled with numba: the same first hint as
``solver.reference.se_chains`` on the same grid (SPEC 5.4; docs/se-notes.md lists the quirks).

``chain_rule_hint(rule, values, cands)`` answers for the chain producer ``RULES[rule]`` of
``solver.reference.se``; ``chain_rule_search`` does the same with a work budget. Compiled here:
the forcing chains and cycles (6.5-7.0+), Nishio (7.5+), multiple (8.0+), dynamic (8.5+) and
dynamic (+) (9.0+, its inner rules in ``solver.compiled.se_inner``) forcing chains. **The nested
rules of levels 2-5 (9.5+) still run the reference** (``_reference_search``), counted and
stopped the same way.

How the reference's objects are held here:

- a candidate in a chain (SE's Potential) is a row of ``nodes``: cell, digit, on (1) or off (0),
  cause (-1 none, 0 naked, 1..3 block/row/column, 4 an inner rule's removal), and where its
  parents lie in ``parents``
  (node indexes, first parent first). Its key is ``cell * 20 + digit * 2 + on``, the
  reference's ``Node.key``. The nodes are dropped once the start cell (or start candidate, for
  the static rule) is done: only the best hint so far is kept, copied out (``_offer``);
- a dict of nodes by key (``to_on``, ``to_off`` together, their keys differ in the last bit) is
  a map slot: ``lookup[slot, key]`` (-1 when absent) and the insertion order ``order[slot]``,
  which the reference's iterations over ``dict.values()`` follow;
- the candidates are ``cands[cell]`` (bit d for digit d) and ``pos[region, digit]``, the 9-bit
  places of a digit in a region in SE's region order; the start grid stays in ``cands0``/``pos0``
  (the reference's saved grid: a dynamic chain's removed candidates are read against it).

Every chain rule of the reference collects all its hints, sorts them by (difficulty,
complexity, kind), stable, and drops repeats; the first is the hint applied. So only the least
hint found, the first among equals, is kept here, with the same floats for the difficulty.

The work counter is the reference's: one unit per candidate taken off ``pending_on`` or
``pending_off`` in ``Chaining.propagate`` (the cycles and forcing X-chains of the static rule
have their own queues and count nothing).

The hints returned carry no ``rule_parents`` (only a nested chain's inner rules use them, and
those run inside the compiled code). A search that runs out of the fixed node pools (never seen
on the test positions) answers with the reference.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from solver.compiled.se_inner import EMPTY, OCCURRENCES, SPACE, inner_hints, popcount
from solver.jit import compiled
from solver.reference import se_chains as reference
from solver.reference.se import RULES
from solver.reference.se_grid import HOUSE, REGIONS, REGIONS_OF, Grid, Hint, name, names, region_name

# -- tables, from the reference's own tuples so that the orders cannot drift ----------------------

REGION_CELLS = np.array(REGIONS, dtype=np.int64)  # [27, 9], SE's order inside each region
CELL_REGIONS = np.array(REGIONS_OF, dtype=np.int64)  # [81, 3]: block, row, column
INDEX_IN = np.array([[REGIONS[r].index(c) for r in REGIONS_OF[c]] for c in range(81)], np.int64)
HOUSES = np.array(HOUSE, dtype=np.int64)  # [81, 20]: block, row, column cells, no repeats
# The reference walks an 81-bit mask of a region's cells upwards; the tables walk a region's
# positions upwards: the same order only because every region lists its cells ascending.
assert all(list(cells) == sorted(cells) for cells in REGIONS)

KEYS = 81 * 20  # cell * 20 + digit * 2 + on
NAKED = 0
ADVANCED = 4  # removed by an inner rule of a nested chain
NO_CAUSE = -1
# The five kinds of chain hint and their rank among equals (SE's sort key; X/Y/XY for the first
# two are added in ``_sort_key``).
CYCLE, FORCING, BINARY, CELL, REGION = 0, 1, 2, 3, 4
# Modes of the compiled rules.
STATIC, NISHIO, MULTIPLE, DYNAMIC = 0, 1, 2, 3

# ctr: the counters of one call.
N_NODES, N_PARENTS, WORK, MAX_WORK, STATUS, STAMP = 0, 1, 2, 3, 4, 5
OK, OVER_BUDGET_STATUS, OVERFLOW = 0, 1, 2

# Map slots: the start cell's digits 0..8, the "off" assumption, a region's other places.
DIGIT_SLOT, OFF_SLOT, REGION_SLOT = 0, 9, 10
CYCLE_SLOT, FORCING_SLOT = 0, 1
SLOTS = 19

# best: the fields of the least hint found so far.
(HAS, KIND, X, Y, ABSURD, COMPLEXITY, SORT_KEY, PLACE_CELL, PLACE_DIGIT, SOURCE_CELL,
 SOURCE_DIGIT, SOURCE_ON, T0_CELL, T0_DIGIT, T0_ON, T1_CELL, T1_DIGIT, T1_ON, HINT_REGION,
 HINT_DIGIT, N_REMOVALS, N_LINE, N_DIGITS_MASK) = range(23)
BEST_FIELDS = 24

NODE_CAPACITY = 1 << 19
PARENT_CAPACITY = 1 << 21
QUEUE_CAPACITY = 1 << 16


# -- nodes ---------------------------------------------------------------------------------------


@compiled(inline="always")
def _lowest(m):
    """The index of the lowest set bit of a non-empty mask."""
    i = 0
    while not (m >> i) & 1:
        i += 1
    return i


@compiled(inline="always")
def _key(nodes, n):
    return nodes[n, 0] * 20 + nodes[n, 1] * 2 + nodes[n, 2]


@compiled(inline="always")
def _new_node(nodes, parents, ctr, cell, digit, on, cause, parent):
    """A node with one parent (or none: ``parent`` -1); -1 when the pool is full."""
    n = ctr[N_NODES]
    if n >= nodes.shape[0] or ctr[N_PARENTS] >= parents.shape[0]:
        ctr[STATUS] = OVERFLOW
        return -1
    nodes[n, 0] = cell
    nodes[n, 1] = digit
    nodes[n, 2] = on
    nodes[n, 3] = cause
    nodes[n, 4] = ctr[N_PARENTS]
    nodes[n, 5] = 0
    if parent >= 0:
        parents[ctr[N_PARENTS]] = parent
        ctr[N_PARENTS] += 1
        nodes[n, 5] = 1
    ctr[N_NODES] = n + 1
    return n


@compiled(inline="always")
def _add_parent(nodes, parents, ctr, n, parent):
    """One more parent of ``n``, the newest node (its parents are the last in ``parents``)."""
    if parent < 0 or ctr[N_PARENTS] >= parents.shape[0]:
        ctr[STATUS] = OVERFLOW  # a parent the reference would fail to find (KeyError)
        return
    parents[ctr[N_PARENTS]] = parent
    ctr[N_PARENTS] += 1
    nodes[n, 5] += 1


@compiled(inline="always")
def _insert(lookup, order, counts, slot, nodes, n):
    lookup[slot, _key(nodes, n)] = n
    order[slot, counts[slot]] = n
    counts[slot] += 1


@compiled(inline="always")
def _clear(lookup, order, counts, slot, nodes):
    for i in range(counts[slot]):
        lookup[slot, _key(nodes, order[slot, i])] = -1
    counts[slot] = 0


@compiled
def _reset(w):
    """Empty every map slot, then the node pool (the slots' keys are read from their nodes)."""
    nodes, ctr, lookup, order, counts = w[0], w[2], w[3], w[4], w[5]
    for slot in range(counts.shape[0]):
        _clear(lookup, order, counts, slot, nodes)
    ctr[N_NODES] = 0
    ctr[N_PARENTS] = 0


@compiled(inline="always")
def _remove(cands, pos, cell, digit):
    cands[cell] &= ~(1 << digit)
    for j in range(3):
        pos[CELL_REGIONS[cell, j], digit] &= ~(1 << INDEX_IN[cell, j])


@compiled(inline="always")
def _restore(cands, pos, cands0, pos0):
    for c in range(81):
        cands[c] = cands0[c]
    for r in range(27):
        for d in range(10):
            pos[r, d] = pos0[r, d]


# -- the implication rules (the reference's on_to_off and off_to_on) ---------------------------


@compiled(inline="always")
def _on_to_off(p, cell_rule, filtered, slot, lookup, cands, pos, nodes, parents, ctr, out):
    """What an "on" node turns off, into ``out``: the cell's other candidates (``cell_rule``),
    then the digit in the block, row and column, each cell once. ``filtered`` (a propagation):
    a candidate known off and not known on is left out. Returns the count, -1 on overflow."""
    count = 0
    cell = nodes[p, 0]
    d = nodes[p, 1]
    if cell_rule:
        m = cands[cell] & ~(1 << d)
        for v in range(1, 10):
            if (m >> v) & 1:
                k = cell * 20 + v * 2
                if filtered and lookup[slot, k] >= 0 and lookup[slot, k + 1] < 0:
                    continue
                n = _new_node(nodes, parents, ctr, cell, v, 0, NAKED, p)
                if n < 0:
                    return -1
                out[count] = n
                count += 1
    block = CELL_REGIONS[cell, 0]
    for j in range(3):
        r = CELL_REGIONS[cell, j]
        m = pos[r, d]
        for i in range(9):
            if (m >> i) & 1:
                c = REGION_CELLS[r, i]
                if c == cell or (j > 0 and CELL_REGIONS[c, 0] == block):
                    continue  # met through an earlier region: the first reason is kept
                k = c * 20 + d * 2
                if filtered and lookup[slot, k] >= 0 and lookup[slot, k + 1] < 0:
                    continue
                n = _new_node(nodes, parents, ctr, c, d, 0, j + 1, p)
                if n < 0:
                    return -1
                out[count] = n
                count += 1
    return count


@compiled(inline="always")
def _off_to_on(p, cell_rule, region_rule, dynamic, filtered, slot, lookup, cands, pos, cands0,
               pos0, nodes, parents, ctr, out):
    """What an "off" node turns on, into ``out``: the other candidate of a bivalue cell
    (``cell_rule``), the other place of a region with two (``region_rule``), each cell once.
    ``dynamic``: the candidates gone since the start (``cands0``, ``pos0``) from that cell or
    region are extra parents. ``filtered``: one known on and not known off is left out."""
    count = 0
    cell = nodes[p, 0]
    d = nodes[p, 1]
    if cell_rule:
        m = cands[cell]
        if popcount(m) == 2:
            other = _lowest(m & ~(1 << d)) if (m >> d) & 1 else _lowest(m)
            k = cell * 20 + other * 2 + 1
            if not filtered or lookup[slot, k] < 0 or lookup[slot, k - 1] >= 0:
                n = _new_node(nodes, parents, ctr, cell, other, 1, NAKED, p)
                if n < 0:
                    return -1
                if dynamic:
                    gone = cands0[cell] & ~m
                    for v in range(1, 10):
                        if (gone >> v) & 1:
                            _add_parent(nodes, parents, ctr, n, lookup[slot, cell * 20 + v * 2])
                out[count] = n
                count += 1
    if region_rule:
        found0 = -1
        found1 = -1
        for j in range(3):
            r = CELL_REGIONS[cell, j]
            m = pos[r, d]
            if popcount(m) != 2:
                continue
            me = 1 << INDEX_IN[cell, j]
            o = m ^ me if m & me else m & -m
            target = REGION_CELLS[r, _lowest(o)]
            if target == found0 or target == found1:
                continue  # the same cell through an earlier region: the first reason is kept
            if found0 < 0:
                found0 = target
            else:
                found1 = target
            k = target * 20 + d * 2 + 1
            if filtered and lookup[slot, k] >= 0 and lookup[slot, k - 1] < 0:
                continue
            n = _new_node(nodes, parents, ctr, target, d, 1, j + 1, p)
            if n < 0:
                return -1
            if dynamic:
                gone = pos0[r, d] & ~m
                for i in range(9):
                    if (gone >> i) & 1:
                        c = REGION_CELLS[r, i]
                        _add_parent(nodes, parents, ctr, n, lookup[slot, c * 20 + d * 2])
            out[count] = n
            count += 1
    if ctr[STATUS] == OVERFLOW:
        return -1
    return count


@compiled
def _propagate(slot, cell_rule, dynamic, level, board, w):
    """SE's doChaining on map ``slot`` (filled in): "on" nodes first, each queue in the order
    found; at ``level`` 1, when both queues are empty, the inner rules' removals are "off" too
    (``_advanced``). Returns 1 on a contradiction (``pair``: its on and off nodes), 0 without,
    -1 when stopped (over budget or out of room). The board is left as it was."""
    cands, pos, cands0, pos0 = board[0], board[1], board[2], board[3]
    nodes, parents, ctr, lookup, order, counts, qon, qoff, tmp, stamp, bfs, pair = w[:12]
    head_on = tail_on = head_off = tail_off = 0
    for i in range(counts[slot]):
        n = order[slot, i]
        if nodes[n, 2]:
            qon[tail_on] = n
            tail_on += 1
        else:
            qoff[tail_off] = n
            tail_off += 1
    result = 0
    while head_on < tail_on or head_off < tail_off:
        ctr[WORK] += 1
        if ctr[MAX_WORK] >= 0 and ctr[WORK] > ctr[MAX_WORK]:
            ctr[STATUS] = OVER_BUDGET_STATUS
            result = -1
            break
        if head_on < tail_on:
            p = qon[head_on]
            head_on += 1
            count = _on_to_off(p, cell_rule, True, slot, lookup, cands, pos, nodes, parents, ctr,
                               tmp)
            if count < 0:
                result = -1
                break
            for t in range(count):
                off = tmp[t]
                k = _key(nodes, off)
                if lookup[slot, k + 1] >= 0:
                    pair[0] = lookup[slot, k + 1]
                    pair[1] = off
                    result = 1
                    break
                if lookup[slot, k] < 0:
                    _insert(lookup, order, counts, slot, nodes, off)
                    qoff[tail_off] = off
                    tail_off += 1
        else:
            p = qoff[head_off]
            head_off += 1
            count = _off_to_on(p, cell_rule, True, dynamic, True, slot, lookup, cands, pos,
                               cands0, pos0, nodes, parents, ctr, tmp)
            if count < 0:
                result = -1
                break
            if dynamic:  # removed only now, after its consequences (se-notes)
                _remove(cands, pos, nodes[p, 0], nodes[p, 1])
            for t in range(count):
                on = tmp[t]
                k = _key(nodes, on)
                if lookup[slot, k - 1] >= 0:
                    pair[0] = on
                    pair[1] = lookup[slot, k - 1]
                    result = 1
                    break
                if lookup[slot, k] < 0:
                    _insert(lookup, order, counts, slot, nodes, on)
                    qon[tail_on] = on
                    tail_on += 1
        if result != 0:
            break
        if level > 0 and head_on == tail_on and head_off == tail_off:
            tail_off = _advanced(slot, board, w, tail_off)
            if tail_off < 0:
                result = -1
                break
    if dynamic:
        _restore(cands, pos, cands0, pos0)
    return result


@compiled
def _advanced(slot, board, w, tail_off):
    """The removals of the first productive inner rule on the reduced grid, "off" nodes whose
    parents are the removed candidates the rule relied on, queued unless known (the
    reference's Chaining.advanced); returns the new end of the "off" queue, -1 when out of
    room."""
    nodes, parents, ctr, lookup, order, counts, qoff, adv = w[0], w[1], w[2], w[3], w[4], w[5], \
        w[7], w[12]
    used = inner_hints(board[0], board[1], board[2], board[4], adv, w[13])
    if used < 0:
        ctr[STATUS] = OVERFLOW
        return -1
    i = 0
    while i < used:
        n_parents = adv[i]
        i += 1
        start = ctr[N_PARENTS]
        if start + n_parents > parents.shape[0]:
            ctr[STATUS] = OVERFLOW
            return -1
        for j in range(n_parents):
            parent = lookup[slot, adv[i + j]]
            if parent < 0:  # the reference would fail to find it (KeyError)
                ctr[STATUS] = OVERFLOW
                return -1
            parents[start + j] = parent
        ctr[N_PARENTS] = start + n_parents
        i += n_parents
        n_removals = adv[i]
        i += 1
        for j in range(n_removals):
            k = adv[i + j]
            n = _new_node(nodes, parents, ctr, k // 20, (k % 20) // 2, 0, ADVANCED, -1)
            if n < 0:
                return -1
            nodes[n, 4] = start  # the hint's nodes share its parents
            nodes[n, 5] = n_parents
            if lookup[slot, k] < 0:
                _insert(lookup, order, counts, slot, nodes, n)
                qoff[tail_off] = n
                tail_off += 1
        i += n_removals
    return tail_off


# -- hints ---------------------------------------------------------------------------------------


@compiled(inline="always")
def _length_bonus(complexity):
    added = 0.0
    ceiling = 4
    odd = False
    length = complexity - 2
    while length > ceiling:
        added += 0.1
        ceiling = ceiling * 4 // 3 if odd else ceiling * 3 // 2
        odd = not odd
    return added


@compiled
def _ancestors(t, w, cells, mark):
    """The number of distinct candidates (keys) ``t`` follows from, breadth first as SE's
    getChain; with ``mark``, their cells set in ``cells`` and their digits returned as a mask
    in the high bits (count | digits << 32). -1 when out of room."""
    nodes, parents, ctr, lookup, order, counts, qon, qoff, tmp, stamp, bfs, pair = w[:12]
    ctr[STAMP] += 1
    generation = ctr[STAMP]
    head = 0
    tail = 1
    bfs[0] = t
    count = 0
    digits = 0
    while head < tail:
        p = bfs[head]
        head += 1
        k = _key(nodes, p)
        if stamp[k] == generation:
            continue
        stamp[k] = generation
        count += 1
        if mark:
            cells[nodes[p, 0]] = 1
            digits |= 1 << nodes[p, 1]
        start = nodes[p, 4]
        for j in range(nodes[p, 5]):
            if tail >= bfs.shape[0]:
                ctr[STATUS] = OVERFLOW
                return -1
            bfs[tail] = parents[start + j]
            tail += 1
    return count | (digits << 32)


@compiled(inline="always")
def _sort_key(kind, x, y, absurd):
    if kind == CYCLE or kind == FORCING:
        return 4 if x and y else (3 if y else 2)
    if kind == BINARY:
        return 7 if absurd else 1
    return 5 if kind == CELL else 6


@compiled
def _offer(kind, x, y, absurd, targets, n_targets, rem, n_rem, place_cell, place_digit,
           source, region, digit, base, line, n_line, w, best, best_f, best_rem, best_cells,
           best_line):
    """A hint found: kept when it ranks before the best so far (difficulty, complexity, kind;
    the first found among equals, as the reference's stable sort)."""
    nodes = w[0]
    complexity = 0
    for i in range(1 if kind == CYCLE else n_targets):  # a cycle counts its "on" view only
        count = _ancestors(targets[i], w, best_cells, False)
        if count < 0:
            return
        complexity += count
    if kind == CYCLE:
        base = 7.0 if x and y else 6.5
    elif kind == FORCING:
        base = 7.0 if x and y else 6.6
    difficulty = base + _length_bonus(complexity)
    sort_key = _sort_key(kind, x, y, absurd)
    if best[HAS]:
        if difficulty > best_f[0]:
            return
        if difficulty == best_f[0]:
            if complexity > best[COMPLEXITY]:
                return
            if complexity == best[COMPLEXITY] and sort_key >= best[SORT_KEY]:
                return
    best[HAS] = 1
    best_f[0] = difficulty
    best[KIND] = kind
    best[X] = x
    best[Y] = y
    best[ABSURD] = absurd
    best[COMPLEXITY] = complexity
    best[SORT_KEY] = sort_key
    best[PLACE_CELL] = place_cell
    best[PLACE_DIGIT] = place_digit
    best[SOURCE_CELL] = nodes[source, 0] if source >= 0 else -1
    best[SOURCE_DIGIT] = nodes[source, 1] if source >= 0 else 0
    best[SOURCE_ON] = nodes[source, 2] if source >= 0 else 0
    t0 = targets[0]
    best[T0_CELL] = nodes[t0, 0]
    best[T0_DIGIT] = nodes[t0, 1]
    best[T0_ON] = nodes[t0, 2]
    if n_targets > 1:
        t1 = targets[1]
        best[T1_CELL] = nodes[t1, 0]
        best[T1_DIGIT] = nodes[t1, 1]
        best[T1_ON] = nodes[t1, 2]
    best[HINT_REGION] = region
    best[HINT_DIGIT] = digit
    best[N_REMOVALS] = n_rem
    for i in range(n_rem):
        best_rem[i, 0] = rem[i, 0]
        best_rem[i, 1] = rem[i, 1]
    best[N_LINE] = n_line
    for i in range(n_line):
        best_line[i] = line[i]
    for c in range(81):
        best_cells[c] = 0
    digits = 0
    for i in range(n_targets):
        found = _ancestors(targets[i], w, best_cells, True)
        if found < 0:
            return
        digits |= found >> 32
    best[N_DIGITS_MASK] = digits


# -- the static rule: cycles and forcing chains ---------------------------------------------------


@compiled
def _is_ancestor(nodes, parents, child, key):
    """Whether a node of key ``key`` is on the first-parent line above ``child``."""
    p = child
    while nodes[p, 5] > 0:
        p = parents[nodes[p, 4]]
        if _key(nodes, p) == key:
            return True
    return False


@compiled
def _cycles(source, y, x, board, w, found, n_found):
    """SE's breadth-first search for cycles back to ``source`` (length 4 or more): their last
    nodes appended to ``found``; returns the new count, -1 when out of room."""
    cands, pos, cands0, pos0 = board[0], board[1], board[2], board[3]
    nodes, parents, ctr, lookup, order, counts, qon, qoff, tmp, stamp, bfs, pair = w[:12]
    _clear(lookup, order, counts, CYCLE_SLOT, nodes)
    _insert(lookup, order, counts, CYCLE_SLOT, nodes, source)
    source_key = _key(nodes, source)
    head_on = head_off = tail_off = 0
    tail_on = 1
    qon[0] = source
    length = 0
    while head_on < tail_on or head_off < tail_off:
        length += 1
        while head_on < tail_on:
            p = qon[head_on]
            head_on += 1
            count = _on_to_off(p, y, False, CYCLE_SLOT, lookup, cands, pos, nodes, parents, ctr,
                               tmp)
            if count < 0:
                return -1
            for t in range(count):
                off = tmp[t]
                if not _is_ancestor(nodes, parents, p, _key(nodes, off)):
                    if tail_off >= qoff.shape[0]:
                        ctr[STATUS] = OVERFLOW
                        return -1
                    qoff[tail_off] = off  # repeats kept, as the reference's queue does
                    tail_off += 1
        length += 1
        while head_off < tail_off:
            p = qoff[head_off]
            head_off += 1
            count = _off_to_on(p, y, x, False, False, CYCLE_SLOT, lookup, cands, pos, cands0,
                               pos0, nodes, parents, ctr, tmp)
            if count < 0:
                return -1
            for t in range(count):
                on = tmp[t]
                k = _key(nodes, on)
                if length >= 4 and k == source_key:
                    found[n_found] = on
                    n_found += 1
                if lookup[CYCLE_SLOT, k] < 0:
                    _insert(lookup, order, counts, CYCLE_SLOT, nodes, on)
                    qon[tail_on] = on
                    tail_on += 1
    return n_found


@compiled
def _forcing_chains(start, y, board, w, chains, n_chains, taken):
    """Chains from ``start`` (the map's only node) to its own opposite, appended to ``chains``
    unless a chain of that key is there (``taken``); returns the new count, -1 when out of
    room."""
    cands, pos, cands0, pos0 = board[0], board[1], board[2], board[3]
    nodes, parents, ctr, lookup, order, counts, qon, qoff, tmp, stamp, bfs, pair = w[:12]
    _clear(lookup, order, counts, FORCING_SLOT, nodes)
    _insert(lookup, order, counts, FORCING_SLOT, nodes, start)
    source_key = _key(nodes, start)
    head_on = tail_on = head_off = tail_off = 0
    if nodes[start, 2]:
        qon[0] = start
        tail_on = 1
    else:
        qoff[0] = start
        tail_off = 1
    while head_on < tail_on or head_off < tail_off:
        while head_on < tail_on:
            p = qon[head_on]
            head_on += 1
            count = _on_to_off(p, y, False, FORCING_SLOT, lookup, cands, pos, nodes, parents,
                               ctr, tmp)
            if count < 0:
                return -1
            for t in range(count):
                off = tmp[t]
                k = _key(nodes, off)
                if k + 1 == source_key and not taken[k]:
                    taken[k] = 1
                    chains[n_chains] = off
                    n_chains += 1
                if lookup[FORCING_SLOT, k] < 0:
                    _insert(lookup, order, counts, FORCING_SLOT, nodes, off)
                    qoff[tail_off] = off
                    tail_off += 1
        while head_off < tail_off:
            p = qoff[head_off]
            head_off += 1
            count = _off_to_on(p, y, True, False, False, FORCING_SLOT, lookup, cands, pos,
                               cands0, pos0, nodes, parents, ctr, tmp)
            if count < 0:
                return -1
            for t in range(count):
                on = tmp[t]
                k = _key(nodes, on)
                if k - 1 == source_key and not taken[k]:
                    taken[k] = 1
                    chains[n_chains] = on
                    n_chains += 1
                if lookup[FORCING_SLOT, k] < 0:
                    _insert(lookup, order, counts, FORCING_SLOT, nodes, on)
                    qon[tail_on] = on
                    tail_on += 1
    return n_chains


@compiled
def _cycle_hint(dst, y, x, board, w, r, scratch):
    """The hint of the cycle ending in ``dst`` (an "on" node back at the start), if it removes
    anything: the candidates outside the cycle's cells seeing both an "on" and an "off" node of
    the same digit."""
    cands = board[0]
    nodes, parents = w[0], w[1]
    rem, line, in_cycle, forward, backward, targets = scratch
    for c in range(81):
        in_cycle[c] = 0
        forward[c] = 0
        backward[c] = 0
    n_line = 0
    p = dst
    while nodes[p, 5] > 0:  # every node but the start
        line[n_line] = p
        n_line += 1
        in_cycle[nodes[p, 0]] = 1
        p = parents[nodes[p, 4]]
    for i in range(n_line):
        p = line[i]
        bit = 1 << nodes[p, 1]
        for j in range(20):
            c = HOUSES[nodes[p, 0], j]
            if not in_cycle[c] and cands[c] & bit:
                if nodes[p, 2]:
                    forward[c] |= bit
                else:
                    backward[c] |= bit
    n_rem = 0
    for c in range(81):
        m = forward[c] & backward[c]
        if m:
            rem[n_rem, 0] = c
            rem[n_rem, 1] = m
            n_rem += 1
    if n_rem == 0:
        return
    # the cycle's cells as SE lists them: its "off" view read from the start, first seen first
    cells = backward  # free now
    n_cells = 0
    for i in range(n_line - 1, -1, -1):
        c = nodes[line[i], 0]
        if in_cycle[c] == 1:
            in_cycle[c] = 2
            cells[n_cells] = c
            n_cells += 1
    targets[0] = dst
    best, best_f, best_rem, best_cells, best_line = r
    _offer(CYCLE, x, y, False, targets, 1, rem, n_rem, -1, 0, -1, -1, 0, 0.0, cells, n_cells,
           w, best, best_f, best_rem, best_cells, best_line)


@compiled
def _static_rule(values, board, w, r, scratch):
    """Forcing chains and cycles: X-only, then Y-only, then XY, from every candidate."""
    cands = board[0]
    nodes, parents, ctr = w[0], w[1], w[2]
    rem, line, in_cycle, forward, backward, targets = scratch
    found = np.empty(QUEUE_CAPACITY, np.int32)
    chains = np.empty(4, np.int32)
    taken = np.zeros(KEYS, np.uint8)
    for kind in range(3):
        y = kind > 0
        x = kind != 1
        for cell in range(81):
            n = popcount(cands[cell])
            if values[cell] or n < 2 or (n > 2 and not x):
                continue  # Y-cycles start from bivalue cells only
            for d in range(1, 10):
                if not (cands[cell] >> d) & 1:
                    continue
                _reset(w)
                p_on = _new_node(nodes, parents, ctr, cell, d, 1, NO_CAUSE, -1)
                n_cycles = _cycles(p_on, y, x, board, w, found, 0)
                if n_cycles < 0:
                    return
                n_chains = 0
                if x:
                    n_chains = _forcing_chains(p_on, y, board, w, chains, 0, taken)
                    if n_chains < 0:
                        return
                    p_off = _new_node(nodes, parents, ctr, cell, d, 0, NO_CAUSE, -1)
                    if p_off < 0:
                        return
                    n_chains = _forcing_chains(p_off, y, board, w, chains, n_chains, taken)
                    if n_chains < 0:
                        return
                for i in range(n_cycles):
                    _cycle_hint(found[i], y, x, board, w, r, scratch)
                for i in range(n_chains):
                    t = chains[i]
                    taken[_key(nodes, t)] = 0  # for the next start
                    tc = nodes[t, 0]
                    td = nodes[t, 1]
                    rem[0, 0] = tc
                    # the cell's other candidates are kept even when there are none, as SE does
                    rem[0, 1] = cands[tc] & ~(1 << td) if nodes[t, 2] else 1 << td
                    targets[0] = t
                    _offer(FORCING, x, y, False, targets, 1, rem, 1,
                           tc if nodes[t, 2] else -1, td, -1, -1, 0, 0.0, line, 0,
                           w, r[0], r[1], r[2], r[3], r[4])
                if ctr[STATUS] != OK:
                    return


# -- Nishio, multiple and dynamic forcing chains ---------------------------------------------------


@compiled
def _removals_of(cands, nodes, p, rem):
    """What a common result removes (the reference's _removals): the cell's other candidates
    if it is on, itself if off; the count of entries (0 or 1)."""
    cell = nodes[p, 0]
    bit = 1 << nodes[p, 1]
    if nodes[p, 2]:
        m = cands[cell] & ~bit
        if m == 0:
            return 0
        rem[0, 0] = cell
        rem[0, 1] = m
        return 1
    rem[0, 0] = cell
    rem[0, 1] = bit
    return 1


@compiled
def _common_hints(kind, slots, n_slots, place_source, region, digit, base, board, w, r,
                  scratch):
    """The results shared by every map of ``slots`` (the first map's order, on nodes first),
    each a cell or region forcing chain when it removes something."""
    cands = board[0]
    nodes, lookup, order, counts = w[0], w[3], w[4], w[5]
    rem, line, in_cycle, forward, backward, targets = scratch
    first = slots[0]
    for on in (1, 0):
        for i in range(counts[first]):
            p = order[first, i]
            if nodes[p, 2] != on:
                continue
            k = _key(nodes, p)
            shared = True
            for s in range(1, n_slots):
                if lookup[slots[s], k] < 0:
                    shared = False
                    break
            if not shared:
                continue
            n_rem = _removals_of(cands, nodes, p, rem)
            if n_rem == 0:
                continue
            for s in range(n_slots):
                targets[s] = lookup[slots[s], k]
            _offer(kind, True, True, False, targets, n_slots, rem, n_rem,
                   nodes[p, 0] if on else -1, nodes[p, 1], place_source, region, digit, base,
                   line, 0, w, r[0], r[1], r[2], r[3], r[4])


@compiled
def _binary_chaining(cell, d, slot, double, contradiction, cell_rule, dynamic, level, base,
                     board, w, r, scratch):
    """Assume the candidate on (map ``slot``), then off (``OFF_SLOT``): contradictions and
    double forcing chains. Returns -1 when stopped."""
    cands = board[0]
    nodes, parents, ctr, lookup, order, counts, qon, qoff, tmp, stamp, bfs, pair = w[:12]
    rem, line, in_cycle, forward, backward, targets = scratch
    bit = 1 << d
    p_on = _new_node(nodes, parents, ctr, cell, d, 1, NO_CAUSE, -1)
    p_off = _new_node(nodes, parents, ctr, cell, d, 0, NO_CAUSE, -1)
    if p_off < 0:
        return -1
    _insert(lookup, order, counts, slot, nodes, p_on)
    found = _propagate(slot, cell_rule, dynamic, level, board, w)
    if found < 0:
        return -1
    if contradiction and found == 1:  # the candidate cannot be on
        rem[0, 0] = cell
        rem[0, 1] = bit
        targets[0] = pair[0]
        targets[1] = pair[1]
        _offer(BINARY, True, True, True, targets, 2, rem, 1, -1, d, p_on, -1, 0, base, line,
               0, w, r[0], r[1], r[2], r[3], r[4])
    _clear(lookup, order, counts, OFF_SLOT, nodes)
    _insert(lookup, order, counts, OFF_SLOT, nodes, p_off)
    found = _propagate(OFF_SLOT, cell_rule, dynamic, level, board, w)
    if found < 0:
        return -1
    if contradiction and found == 1:  # the candidate cannot be off
        m = cands[cell] & ~bit
        if m:
            rem[0, 0] = cell
            rem[0, 1] = m
            targets[0] = pair[0]
            targets[1] = pair[1]
            _offer(BINARY, True, True, True, targets, 2, rem, 1, cell, d, p_off, -1, 0, base,
                   line, 0, w, r[0], r[1], r[2], r[3], r[4])
    if double:
        for on in (1, 0):
            for i in range(counts[slot]):
                p = order[slot, i]
                if nodes[p, 2] != on:
                    continue
                q = lookup[OFF_SLOT, _key(nodes, p)]
                if q < 0:
                    continue
                if on:
                    m = cands[nodes[p, 0]] & ~(1 << nodes[p, 1])
                    if m == 0:
                        continue
                    rem[0, 0] = nodes[p, 0]
                    rem[0, 1] = m
                else:
                    rem[0, 0] = nodes[q, 0]
                    rem[0, 1] = 1 << nodes[q, 1]
                targets[0] = p
                targets[1] = q
                _offer(BINARY, True, True, False, targets, 2, rem, 1,
                       nodes[p, 0] if on else -1, nodes[p, 1], p_on if on else p_off, -1, 0,
                       base, line, 0, w, r[0], r[1], r[2], r[3], r[4])
    return 0


@compiled
def _region_chainings(cell, d, slot, multiple, cell_rule, dynamic, level, base, board, w, r,
                      scratch):
    """Region forcing chains of ``d`` from the regions where ``cell`` is its first place: every
    other place assumed on in turn. Returns -1 when stopped."""
    pos = board[1]
    nodes, parents, ctr, lookup, order, counts = w[0], w[1], w[2], w[3], w[4], w[5]
    slots = np.empty(9, np.int64)
    for j in range(3):
        rg = CELL_REGIONS[cell, j]
        places = pos[rg, d]
        count = popcount(places)
        if not (count == 2 or (multiple and count > 2)):
            continue
        if REGION_CELLS[rg, _lowest(places)] != cell:
            continue  # the region is met first from its first place
        n_slots = 0
        for i in range(9):
            if not (places >> i) & 1:
                continue
            other = REGION_CELLS[rg, i]
            if other == cell:
                slots[n_slots] = slot
            else:
                s = REGION_SLOT + n_slots - 1
                slots[n_slots] = s
                _clear(lookup, order, counts, s, nodes)
                o = _new_node(nodes, parents, ctr, other, d, 1, NO_CAUSE, -1)
                if o < 0:
                    return -1
                _insert(lookup, order, counts, s, nodes, o)
                if _propagate(s, cell_rule, dynamic, level, board, w) < 0:
                    return -1
            n_slots += 1
        _common_hints(REGION, slots, n_slots, -1, rg, d, base, board, w, r, scratch)
    return 0


@compiled
def _chaining_rule(values, mode, level, base, board, w, r, scratch):
    """Nishio, multiple or dynamic forcing chains from every start cell, in cell order."""
    cands = board[0]
    nodes, parents, ctr, lookup, order, counts = w[0], w[1], w[2], w[3], w[4], w[5]
    nishio = mode == NISHIO
    dynamic = mode != MULTIPLE
    multiple = mode != NISHIO
    cell_rule = not nishio
    double = False
    slots = np.empty(9, np.int64)
    for cell in range(81):
        n = popcount(cands[cell])
        if values[cell] or not (n > 2 or (n > 1 and dynamic)):
            continue
        _reset(w)
        double = n >= 3 and not nishio and dynamic
        n_digits = 0
        for d in range(1, 10):
            if not (cands[cell] >> d) & 1:
                continue
            slot = DIGIT_SLOT + n_digits
            slots[n_digits] = slot
            n_digits += 1
            _clear(lookup, order, counts, slot, nodes)
            if _binary_chaining(cell, d, slot, double, dynamic or nishio, cell_rule, dynamic,
                                level, base, board, w, r, scratch) < 0:
                return
            if not nishio:
                if _region_chainings(cell, d, slot, multiple, cell_rule, dynamic, level, base,
                                     board, w, r, scratch) < 0:
                    return
        if not nishio and (n == 2 or (multiple and n > 2)):
            start = _new_node(nodes, parents, ctr, cell, 0, 1, NO_CAUSE, -1)
            if start < 0:
                return
            _common_hints(CELL, slots, n_digits, start, -1, 0, base, board, w, r, scratch)
        if ctr[STATUS] != OK:
            return


@compiled
def _run(values, cands_in, mode, level, base, max_work, board, w, r, scratch):
    cands, pos, cands0, pos0 = board[0], board[1], board[2], board[3]
    ctr = w[2]
    for c in range(81):
        cands[c] = cands_in[c]
        cands0[c] = cands_in[c]
    for rg in range(27):
        for d in range(10):
            pos[rg, d] = 0
    for rg in range(27):
        for i in range(9):
            c = REGION_CELLS[rg, i]
            for d in range(1, 10):
                if (cands[c] >> d) & 1:
                    pos[rg, d] |= 1 << i
    for rg in range(27):
        for d in range(10):
            pos0[rg, d] = pos[rg, d]
    ctr[MAX_WORK] = max_work
    if mode == STATIC:
        _static_rule(values, board, w, r, scratch)
    else:
        _chaining_rule(values, mode, level, base, board, w, r, scratch)


# -- the interface -------------------------------------------------------------------------------


class ChainSearch(NamedTuple):
    """What a chain rule found on a grid: its first hint (None when it has none, or when the
    search stopped over budget), the work spent (candidates taken off the propagation queues),
    and whether it stopped because the work went over ``max_work``."""

    hint: Hint | None
    work: int
    over_budget: bool


class _Rule(NamedTuple):
    mode: int
    base: float
    prefix: str
    level: int = 0
    suffix: str = ""


# The chain producers compiled here, by their index in RULES.
COMPILED_RULES: dict[int, _Rule] = {
    RULES.index(reference.forcing_chains_and_cycles): _Rule(STATIC, 0.0, ""),
    RULES.index(reference.nishio_forcing_chains): _Rule(NISHIO, 7.5, "Nishio "),
    RULES.index(reference.multiple_forcing_chains): _Rule(MULTIPLE, 8.0, ""),
    RULES.index(reference.dynamic_forcing_chains): _Rule(DYNAMIC, 8.5, "Dynamic "),
    RULES.index(reference.dynamic_forcing_chains_plus): _Rule(DYNAMIC, 9.0, "Dynamic ", 1,
                                                              reference.nested_suffix(1)),
}
# The nested rules of levels 2-5: the reference, counted.
REFERENCE_RULES = tuple(range(RULES.index(reference.dynamic_forcing_chains_plus) + 1,
                              len(RULES)))
CHAIN_RULES = tuple(sorted(COMPILED_RULES)) + REFERENCE_RULES


def chain_rule_hint(rule: int, values: np.ndarray, cands: np.ndarray) -> Hint | None:
    """The first hint of the chain producer ``RULES[rule]`` (``solver.reference.se``) on the
    grid ``values`` (int8[81], 0 empty) and ``cands`` (int32[81], bit d for digit d): the
    reference's, same technique, difficulty, removals and placement. Compiled for the static,
    Nishio, multiple, dynamic and dynamic (+) rules; the reference for the nested levels 2-5."""
    return chain_rule_search(rule, values, cands).hint


def chain_rule_search(rule: int, values: np.ndarray, cands: np.ndarray,
                      max_work: int | None = None) -> ChainSearch:
    """``chain_rule_hint`` with its work counted, and stopped (``over_budget``, no hint) as
    soon as the work exceeds ``max_work``. The work is the reference's count: one per candidate
    taken off a queue of ``Chaining.propagate``, nested propagations included."""
    if rule not in COMPILED_RULES:
        if rule not in REFERENCE_RULES:
            raise ValueError(f"rule {rule} is not a chain rule (they are {CHAIN_RULES})")
        return _reference_search(rule, values, cands, max_work)
    spec = COMPILED_RULES[rule]
    values = np.ascontiguousarray(values, dtype=np.int8)
    cands = np.ascontiguousarray(cands, dtype=np.int32)
    board = (np.empty(81, np.int32), np.empty((27, 10), np.int32), np.empty(81, np.int32),
             np.empty((27, 10), np.int32), _placed_and_empty(values))
    ctr = np.zeros(8, np.int64)
    w = (np.empty((NODE_CAPACITY, 6), np.int32), np.empty(PARENT_CAPACITY, np.int32), ctr,
         np.full((SLOTS, KEYS), -1, np.int32), np.empty((SLOTS, KEYS), np.int32),
         np.zeros(SLOTS, np.int64), np.empty(KEYS, np.int32), np.empty(QUEUE_CAPACITY, np.int32),
         np.empty(64, np.int32), np.zeros(KEYS, np.int64), np.empty(QUEUE_CAPACITY, np.int32),
         np.empty(2, np.int32), np.empty(QUEUE_CAPACITY, np.int64), np.zeros(SPACE, np.int64))
    best = np.zeros(BEST_FIELDS, np.int64)
    r = (best, np.zeros(1, np.float64), np.empty((81, 2), np.int32), np.zeros(81, np.uint8),
         np.empty(81, np.int32))
    scratch = (np.empty((81, 2), np.int32), np.empty(81, np.int32), np.empty(81, np.uint8),
               np.empty(81, np.int32), np.empty(81, np.int32), np.empty(9, np.int32))
    _run(values, cands, spec.mode, spec.level, spec.base, -1 if max_work is None else max_work, board, w,
         r, scratch)
    work = int(ctr[WORK])
    if ctr[STATUS] == OVER_BUDGET_STATUS:
        return ChainSearch(None, work, True)
    if ctr[STATUS] == OVERFLOW:  # out of room (never seen): the reference answers
        return _reference_search(rule, values, cands, max_work)
    if not best[HAS]:
        return ChainSearch(None, work, False)
    return ChainSearch(_hint(spec, best, r), work, False)


def _placed_and_empty(values: np.ndarray) -> np.ndarray:
    """How often each digit is placed, then how many cells of each region are empty (what the
    inner rules read of the values, which a chain never changes)."""
    counts = np.zeros(EMPTY + 27, np.int64)
    counts[OCCURRENCES:OCCURRENCES + 10] = np.bincount(values, minlength=10)[:10]
    counts[EMPTY:] = (values[REGION_CELLS] == 0).sum(axis=1)
    return counts


def _says(cell: int, digit: int, on: int) -> str:
    return f"{name(cell)}{'=' if on else '<>'}{digit}"


def _hint(spec: _Rule, best: np.ndarray, r) -> Hint:
    """The reference's Hint of the best record (its detail line as the reference writes it)."""
    kind, x, y, absurd = int(best[KIND]), bool(best[X]), bool(best[Y]), bool(best[ABSURD])
    t0 = (int(best[T0_CELL]), int(best[T0_DIGIT]), int(best[T0_ON]))
    t1 = (int(best[T1_CELL]), int(best[T1_DIGIT]), int(best[T1_ON]))
    line = [int(c) for c in r[4][:best[N_LINE]]]
    if kind == CYCLE:
        technique = ("Bidirectional Cycle" if x and y else "Bidirectional Y-Cycle" if y
                     else "Generalized X-Wing" if len(line) == 4 else "Bidirectional X-Cycle")
        detail = names(line) + ("" if y else f" on {t0[1]}")
    elif kind == FORCING:
        technique = ("Forcing Chain" if x and y else "Forcing Y-Chain" if y
                     else "Turbot Fish" if best[COMPLEXITY] == 6 else "Forcing X-Chain")
        detail = f"{_says(t0[0], t0[1], not t0[2])} leads to {_says(*t0)}"
    else:
        source = (int(best[SOURCE_CELL]), int(best[SOURCE_DIGIT]), int(best[SOURCE_ON]))
        if kind == BINARY:
            what = ("Forcing" if spec.mode == NISHIO else "Contradiction Forcing" if absurd
                    else "Double Forcing")
            if absurd or spec.mode == NISHIO:
                detail = f"{_says(*source)} leads to both {_says(*t0)} and {_says(*t1)}"
            else:
                detail = (f"{name(source[0])}={source[1]} and {name(source[0])}<>{source[1]} "
                          f"both lead to {_says(*t0)}")
        elif kind == CELL:
            what = "Cell Forcing"
            detail = f"each candidate of {name(source[0])} leads to {_says(*t0)}"
        else:
            what = "Region Forcing"
            detail = (f"each place of {int(best[HINT_DIGIT])} in "
                      f"{region_name(int(best[HINT_REGION]))} leads to {_says(*t0)}")
        technique = spec.prefix + what + " Chains" + spec.suffix
    removals = {int(r[2][i, 0]): int(r[2][i, 1]) for i in range(best[N_REMOVALS])}
    placement = (int(best[PLACE_CELL]), int(best[PLACE_DIGIT])) if best[PLACE_CELL] >= 0 else None
    cells = [c for c in range(81) if r[3][c]]
    digits = [d for d in range(1, 10) if best[N_DIGITS_MASK] >> d & 1]
    return Hint(technique, float(r[1][0]), cells, digits, removals, placement, detail)


# -- the reference, counted (the rules not compiled yet) ------------------------------------------


class _OverBudget(Exception):
    pass


@contextmanager
def counted_propagation(max_work: int | None):
    """The reference's chains with their work counted: while open, every call of
    ``on_to_off``/``off_to_on`` made by ``Chaining.propagate`` (the only caller that passes the
    known candidates) is one candidate taken off its queues; past ``max_work`` the search is
    stopped (``_OverBudget``). Swaps the reference module's two functions for the time: not for
    threads running the reference at the same time."""
    counter = [0]
    on_to_off, off_to_on = reference.on_to_off, reference.off_to_on

    def count(known) -> None:
        if known is not None:
            counter[0] += 1
            if max_work is not None and counter[0] > max_work:
                raise _OverBudget

    def counted_on_to_off(board, p, cell_rule, known=None, opposite=None):
        count(known)
        return on_to_off(board, p, cell_rule, known, opposite)

    def counted_off_to_on(board, p, source, offs, cell_rule, region_rule, known=None):
        count(known)
        return off_to_on(board, p, source, offs, cell_rule, region_rule, known)

    reference.on_to_off, reference.off_to_on = counted_on_to_off, counted_off_to_on
    try:
        yield counter
    finally:
        reference.on_to_off, reference.off_to_on = on_to_off, off_to_on


def _reference_search(rule: int, values, cands, max_work: int | None) -> ChainSearch:
    grid = Grid([int(v) for v in values], [int(m) for m in cands])
    with counted_propagation(max_work) as counter:
        try:
            hint = next(iter(RULES[rule](grid)), None)
        except _OverBudget:
            return ChainSearch(None, counter[0], True)
    return ChainSearch(hint, counter[0], False)
