"""Sudoku Explainer's chain rules compiled with numba: the same first hint as
``solver.reference.se_chains`` on the same grid (SPEC 5.4; docs/se-notes.md lists the quirks).

``chain_rule_hint(rule, values, cands)`` answers for the chain producer ``RULES[rule]`` of
``solver.reference.se``; ``chain_rule_search`` does the same with a work budget. Compiled here:
the forcing chains and cycles (6.5-7.0+), Nishio (7.5+), multiple (8.0+), dynamic (8.5+),
dynamic (+) (9.0+, its inner rules in ``solver.compiled.se_inner``) and nested (9.5-11.0+)
forcing chains. A nested chain's stalled propagation runs whole chain rules on its reduced grid
(``_inner_chain_removals``, with a search of its own: ``Below``), collecting every hint they have
(``Collected``) as the reference's ``Chaining.advanced`` reads them; the searches of levels 2-4
and of level 5 are compiled copies of the search (``compiled_copies``, at the end).

How the reference's objects are held here (the compiled functions take them as records: the
rule's ``Chaining``, the grid's ``ChainGrid``, the nodes' ``Arena``, the maps' and queues'
``Work``, the hints' ``Hints``):

- a candidate in a chain (SE's Potential) is a row of ``Arena.nodes``: cell, digit, on (1) or
  off (0), cause (-1 none, 0 naked, 1..3 block/row/column, 4 an inner rule's removal), and where
  its parents lie in ``Arena.parents`` (node indexes, first parent first). Its key is
  ``cell * 20 + digit * 2 + on``, the reference's ``Node.key``. The nodes of a start candidate
  of the static rule are dropped once it is done, and only the best hint so far is kept, copied
  out (``_offer``); those of the other rules stay while the pools have room, for the cache
  below;
- a dict of nodes by key (``to_on``, ``to_off`` together, their keys differ in the last bit) is
  a map slot: ``Maps.lookup[slot, key]`` (-1 when absent) and the insertion order ``order[slot]``,
  which the reference's iterations over ``dict.values()`` follow;
- the candidates are ``ChainGrid.cands[cell]`` (bit d for digit d) and ``pos[region, digit]``,
  the 9-bit places of a digit in a region in SE's region order; the start grid stays in
  ``cands0``/``pos0`` (the reference's saved grid: a dynamic chain's removed candidates are read
  against it).

Every chain rule of the reference collects all its hints, sorts them by (difficulty,
complexity, kind), stable, and drops repeats; the first is the hint applied. So only the least
hint found, the first among equals, is kept here, with the same floats for the difficulty.

The reference propagates a candidate assumed "on" once for its own cell and again for every
region chain that assumes it (about half of its propagations, in cell order, and the region's
other places come later); the grid is the same each time, and so is what the propagation gives.
So the first one is cached (``_propagation_of``: a map slot kept with its nodes until the pools
or the cache fill) and the others take its map and result, their work counted again.

The work counter is the reference's: one unit per candidate taken off ``pending_on`` or
``pending_off`` in ``Chaining.propagate`` and ``Chaining.forcing_chains``, and per candidate
``Chaining.cycles`` reaches. The static rule (cycles and forcing chains) counts it without
searching where no search of a start can find anything (``_static_kind``): what a start
reaches is read from the graph's closure, computed once for all starts (``Reach``); the
multiple forcing chains, not dynamic either, do the same for each start cell (``_quiet_work``),
and Nishio's one-digit propagations are followed as masks first (``_nishio_quiet``).

The hints returned carry no ``rule_parents`` (only a nested chain's inner rules use them, and
those run inside the compiled code). A search that runs out of the fixed node pools (never seen
on the test positions) answers with the reference (``_reference_search``), counted and stopped
the same way.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from solver.compiled.kernels import lowest_bit_index, popcount
from solver.compiled.se_board import BOARD, cell_sets
from solver.compiled.se_inner import (
    EMPTY,
    OCCURRENCES,
    ChainGrid,
    InnerWork,
    inner_hints,
    inner_work,
)
from solver.jit import compiled, compiled_copies
from solver.reference import se_chains as reference
from solver.reference.se import RULES
from solver.reference.se_grid import HOUSE, REGIONS, REGIONS_OF, Grid, Hint, name, names, region_name

# -- tables, from the reference's own tuples so that the orders cannot drift ----------------------

REGION_CELLS = np.array(REGIONS, dtype=np.int64)  # [27, 9], SE's order inside each region
CELL_REGIONS = np.array(REGIONS_OF, dtype=np.int64)  # [81, 3]: block, row, column
INDEX_IN = np.array([[REGIONS[r].index(c) for r in REGIONS_OF[c]] for c in range(81)], np.int64)
HOUSES = np.array(HOUSE, dtype=np.int64)  # [81, 20]: block, row, column cells, no repeats


# The board's cell sets (``se_board.cell_sets``: cells 0-63, then 64-80), as int64 words for
# the Nishio masks below: the cells each cell sees, and each region's cells.
PEER_SETS = BOARD.peers.view(np.int64)
REGION_SETS = cell_sets(np.array([[c in cells for c in range(81)] for cells in REGIONS]))\
    .view(np.int64)
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

# Arena.counters: the counters of one search.
N_NODES, N_PARENTS, WORK, MAX_WORK, STATUS, STAMP, N_NESTED = 0, 1, 2, 3, 4, 5, 6
OK, OVER_BUDGET_STATUS, OVERFLOW = 0, 1, 2

# Map slots: the start cell's digits 0..8, the "off" assumption, a region's other places;
# then the cached propagations of candidates assumed "on" (``_propagation_of``).
DIGIT_SLOT, OFF_SLOT, REGION_SLOT = 0, 9, 10
FORCING_SLOT = 1
SLOTS = 19
CACHE_SLOTS = 320  # more than the candidates of most grids a forcing chain rule runs on
# Work.cache: a cached propagation's work, result and contradiction pair.
C_WORK, C_RESULT, C_PAIR = 0, 1, 2

# Hints.best: the fields of the least hint found so far (a node's cell, digit and on together).
(HAS, KIND, X, Y, ABSURD, COMPLEXITY, SORT_KEY, PLACE_CELL, PLACE_DIGIT, PLACE_ON, SOURCE_CELL,
 SOURCE_DIGIT, SOURCE_ON, T0_CELL, T0_DIGIT, T0_ON, T1_CELL, T1_DIGIT, T1_ON, HINT_REGION,
 HINT_DIGIT, N_REMOVALS, N_LINE, N_DIGITS_MASK) = range(24)
BEST_FIELDS = 24

NODES = 2 * 729  # the static rule's graph: every candidate, "off" and "on"
WORDS = (NODES + 63) // 64
NODE_CAPACITY = 1 << 19
PARENT_CAPACITY = 1 << 21
QUEUE_CAPACITY = 1 << 16
NESTED_CAPACITY = 1 << 16  # nested hints behind the nodes of one start
COLLECT_CAPACITY = 1 << 14  # the hints of an inner chain rule on one grid
COLLECT_DATA = 1 << 22  # their removals and rule parents
MEMO_ENTRIES = 1 << 13  # the reduced grids one nested search remembers
MEMO_DATA = 1 << 23  # what they gave
M_LEVEL, M_WORK, M_FIRST, M_END = range(4)  # Memo.meta's fields
# Collected.meta's fields: a collected hint's complexity, sort key, identity (a hash of its
# chains), where its removals and rule parents start in ``data``, how many of each.
C_COMPLEXITY, C_SORT_KEY, C_IDENTITY, C_OFFSET, C_REMOVALS, C_PARENTS = range(6)


# -- the records the compiled functions take ------------------------------------------------------


class Chaining(NamedTuple):
    """How a compiled rule chains (from its ``_Rule``)."""

    mode: int  # STATIC, NISHIO, MULTIPLE or DYNAMIC
    level: int  # 1: dynamic (+), whose stalled propagations call the inner rules; 2-5 nested
    base: float  # the difficulty of its hints before the length bonus (not the static rule's)
    below: object  # levels 2-5: the ``Below`` its inner chain rules run on; None for the others


class Links(NamedTuple):
    """The implications a search follows, and what filters them (made in the compiled code:
    ``_propagate``, the static rule's searches)."""

    cell: bool  # in a cell: "on" turns the other candidates off, "off" of two the other on
    region: bool  # in a region: "off" of a digit's two places turns the other on
    dynamic: bool  # what was removed since the start is a parent of what turns on
    known: int  # the map slot of the nodes known so far, left out (SE's ``known``); -1 none


class Arena(NamedTuple):
    """The nodes of the chains from one start (SE's Potentials), and the counters of the
    search."""

    nodes: np.ndarray  # (NODE_CAPACITY, 6) int32: cell, digit, on, cause, first parent, parents
    parents: np.ndarray  # (PARENT_CAPACITY,) int32: the parents' node indexes, a node's together
    counters: np.ndarray  # (8,) int64: N_NODES, N_PARENTS, WORK, MAX_WORK, STATUS, STAMP, N_NESTED
    nested: np.ndarray  # (NESTED_CAPACITY, 2) int64: an inner chain hint's complexity, identity
    # The row of ``nested`` of the inner chain hint that removed a node, -1 for a simple rule's;
    # set (and read) for the nodes of cause ADVANCED only: the others need no extra write.
    nested_of: np.ndarray  # (NODE_CAPACITY,) int32


class Maps(NamedTuple):
    """SE's dicts of nodes by key (``to_on`` and ``to_off`` together), one a slot."""

    lookup: np.ndarray  # (SLOTS + CACHE_SLOTS, KEYS) int32: a map's node of each key, -1
    order: np.ndarray  # (SLOTS + CACHE_SLOTS, KEYS) int32: a map's nodes in insertion order
    sizes: np.ndarray  # (SLOTS + CACHE_SLOTS,) int64: how many nodes each map holds


class Reach(NamedTuple):
    """The static rule's implications on one grid as a graph, a node for each candidate "off"
    (``2 i``) and "on" (``2 i + 1``), and what each node reaches in it: a bit set for each
    strongly connected component (``_closure``)."""

    index: np.ndarray  # (KEYS,) int32: a key's node, -1
    keys: np.ndarray  # (NODES,) int32: a node's key
    first: np.ndarray  # (NODES + 1,) int32: where a node's successors start in ``succ``
    succ: np.ndarray  # (NODES * 16,) int32: the nodes each node implies, in the searches' order
    cause: np.ndarray  # (NODES * 16,) int32: each link's cause (NAKED, a region 1..3)
    order: np.ndarray  # (NODES,) int32: when Tarjan's walk met a node, -1 not yet
    low: np.ndarray  # (NODES,) int32: the earliest node met that a node's walk reached
    comp: np.ndarray  # (NODES,) int32: a node's component, -1 while the walk holds it
    stack: np.ndarray  # (NODES,) int32: the nodes held
    calls: np.ndarray  # (NODES, 2) int32: the walk's path: a node, its next successor
    sets: np.ndarray  # (NODES, WORDS) int64: what a component's nodes reach, themselves too
    sizes: np.ndarray  # (NODES,) int64: how many nodes that is
    ons: np.ndarray  # (NODES,) int64: how many of a component's nodes are "on"
    common: np.ndarray  # (2, WORDS) int64: what several nodes all reach (``_quiet_work``)
    count: np.ndarray  # (1,) int64: the nodes numbered
    # ``_cycle_walk``'s: the walk's stamp, and for each "on" node it met (``seen``), the "on"
    # node and the two links it was met by, its layer's queue, and its node once made
    stamp: np.ndarray  # (1,) int64
    seen: np.ndarray  # (NODES,) int64
    parent: np.ndarray  # (NODES,) int32
    via: np.ndarray  # (NODES, 2) int32
    queue: np.ndarray  # (NODES,) int32
    line: np.ndarray  # (NODES,) int32
    made: np.ndarray  # (NODES,) int32
    made_at: np.ndarray  # (NODES,) int64


class Work(NamedTuple):
    """The maps, queues and scratch arrays of a search."""

    maps: Maps
    on: np.ndarray  # (KEYS,) int32: a propagation's "on" nodes to take
    off: np.ndarray  # (QUEUE_CAPACITY + KEYS,) int32: its "off" nodes; the static rule's queue
    implied: np.ndarray  # (64,) int32: what one node implies
    stamp: np.ndarray  # (KEYS,) int64: the walk of ``_ancestors`` that last met each key
    bfs: np.ndarray  # (QUEUE_CAPACITY,) int32: the queue of ``_ancestors``
    pair: np.ndarray  # (2,) int32: a contradiction's "on" and "off" nodes
    inner: InnerWork  # the inner rules' hints (dynamic (+))
    cycle_ends: np.ndarray  # (QUEUE_CAPACITY,) int32: the cycles from one start, by last node
    chains: np.ndarray  # (4,) int32: the forcing chains from one start, by last node
    taken: np.ndarray  # (KEYS,) uint8: the keys of those chains' last nodes
    cycle: np.ndarray  # (81,) int32: the nodes of one cycle
    in_cycle: np.ndarray  # (81,) uint8: its cells
    forward: np.ndarray  # (81,) int32: the digits its "on" nodes' cells see, by cell
    backward: np.ndarray  # (81,) int32: the same of its "off" nodes
    identities: np.ndarray  # (NESTED_CAPACITY,) int64: the nested hints a hint's chains hold
    cached: np.ndarray  # (KEYS,) int32: the cache slot of a candidate's "on" propagation, -1
    cache: np.ndarray  # (CACHE_SLOTS, 4) int64: C_WORK, C_RESULT, C_PAIR (two nodes)
    cache_used: np.ndarray  # (1,) int64: the cache slots taken
    reach: Reach  # the static rule's graph and what each node of it reaches


class Hints(NamedTuple):
    """The hint being offered (its arrays) and the least hint found so far."""

    targets: np.ndarray  # (9,) int32: the nodes it follows from (its chains' last nodes)
    removals: np.ndarray  # (81, 2) int32: cell, digits removed
    line: np.ndarray  # (81,) int32: a cycle's cells, as SE lists them
    best: np.ndarray  # (BEST_FIELDS,) int64: the least hint's fields (HAS ... N_DIGITS_MASK)
    difficulty: np.ndarray  # (1,) float64: its difficulty
    best_removals: np.ndarray  # (81, 2) int32
    best_cells: np.ndarray  # (81,) uint8: the cells of its chains
    best_line: np.ndarray  # (81,) int32
    collected: Collected  # every hint, when the rule runs inside a nested chain


class Collected(NamedTuple):
    """Every hint of a chain rule run inside a nested chain (``on[0]`` 1), as the outer chain
    reads them (the reference's ``Chaining.advanced``): ranked, removals, rule parents (the
    candidates removed since the outer chain's start, ``initial``, down to the grid the rule
    ran on, ``current``, that the hint's "on" steps relied on), complexity and identity."""

    on: np.ndarray  # (1,) int64: 1 to collect every hint offered, 0 to keep the least
    counts: np.ndarray  # (3,) int64: hints, numbers used in ``data``, the stamp's generation
    meta: np.ndarray  # (COLLECT_CAPACITY, 6) int64: C_COMPLEXITY ... C_PARENTS
    difficulty: np.ndarray  # (COLLECT_CAPACITY,) float64
    data: np.ndarray  # (COLLECT_DATA,) int64: removals (cell, mask pairs), then parents' keys
    initial: np.ndarray  # (81,) int32
    current: np.ndarray  # (81,) int32
    stamp: np.ndarray  # (KEYS,) int64: the rule parents met, by "off" key ((1,) unused)
    first: np.ndarray  # (COLLECT_CAPACITY,) int64: a hint's slot in ``table``'s probe
    table: np.ndarray  # (2 * COLLECT_CAPACITY,) int64: the kept hints by removals' hash, -1


class Memo(NamedTuple):
    """The reduced grids a nested search ran its inner rules on, and what they gave: the
    removals (``_records_of``'s records) and the work. Keyed by the level and the grids at the
    propagation's start and now: the inner rules' hints depend on the grid, their rule parents
    on both."""

    slots: np.ndarray  # (2 * MEMO_ENTRIES,) int64: the entries by hash (open addressing), -1
    grids: np.ndarray  # (MEMO_ENTRIES, 162) int32: an entry's start and reduced candidates
    meta: np.ndarray  # (MEMO_ENTRIES, 4) int64: M_LEVEL, M_WORK, M_FIRST, M_END
    records: np.ndarray  # (MEMO_DATA,) int64
    counts: np.ndarray  # (2,) int64: entries, records used


class Below(NamedTuple):
    """What the inner chain rules of a nested chain run on: the grid's values, and a search's
    own grid, nodes, work and hints (the outer search's stay as they are)."""

    values: np.ndarray  # (81,) int8
    grid: ChainGrid
    arena: Arena
    work: Work
    hints: Hints
    memo: Memo
    below: object  # the ``Below`` of its own inner chain rules (level 5's level 2), else None


class Found(NamedTuple):
    """A hint a rule found, as ``_offer`` ranks it (made in the compiled code); its nodes and
    removals are the first of ``Hints.targets``, ``Hints.removals`` and ``Hints.line``."""

    kind: int  # CYCLE, FORCING, BINARY, CELL or REGION
    x: bool  # a cycle's or forcing chain's links: a digit's places (X), a cell's (Y), or both
    y: bool
    absurd: bool  # a binary chain's contradiction
    base: float  # the rule's difficulty (the cycles and forcing chains have their own)
    n_targets: int
    n_removals: int
    n_line: int
    place: int  # the "on" node whose candidate is placed, -1 for none
    source: int  # the node assumed (binary chains) or the start cell's (cell chains), -1
    region: int  # region chains: the region and digit; -1 and 0 for the other kinds
    digit: int


# -- nodes ---------------------------------------------------------------------------------------
# The helpers inlined into the searches' loops take the few arrays they use and read a record's
# fields where they use them: numba counts a reference for every array an inlined call binds,
# at every call.


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
def _new_node(arena, cell, digit, on, cause, parent):
    """A node with one parent (or none: ``parent`` -1); -1 when the pool is full."""
    n = arena.counters[N_NODES]
    first_parent = arena.counters[N_PARENTS]
    if n >= arena.nodes.shape[0] or first_parent >= arena.parents.shape[0]:
        arena.counters[STATUS] = OVERFLOW
        return -1
    arena.nodes[n, 0] = cell
    arena.nodes[n, 1] = digit
    arena.nodes[n, 2] = on
    arena.nodes[n, 3] = cause
    arena.nodes[n, 4] = first_parent
    arena.nodes[n, 5] = 0
    if parent >= 0:
        arena.parents[first_parent] = parent
        arena.counters[N_PARENTS] = first_parent + 1
        arena.nodes[n, 5] = 1
    arena.counters[N_NODES] = n + 1
    return n


@compiled(inline="always")
def _add_parent(arena, n, parent):
    """One more parent of ``n``, the newest node (its parents are the last in ``parents``)."""
    last = arena.counters[N_PARENTS]
    if parent < 0 or last >= arena.parents.shape[0]:
        arena.counters[STATUS] = OVERFLOW  # a parent the reference would fail to find (KeyError)
        return
    arena.parents[last] = parent
    arena.counters[N_PARENTS] = last + 1
    arena.nodes[n, 5] += 1


@compiled(inline="always")
def _insert(maps, slot, n, k):
    """Node ``n`` of key ``k`` into map ``slot``, which does not hold that key."""
    maps.lookup[slot, k] = n
    maps.order[slot, maps.sizes[slot]] = n
    maps.sizes[slot] += 1


@compiled(inline="always")
def _clear(maps, nodes, slot):
    for i in range(maps.sizes[slot]):
        maps.lookup[slot, _key(nodes, maps.order[slot, i])] = -1
    maps.sizes[slot] = 0


@compiled(borrows=True)
def _reset(arena, work):
    """Empty every map slot and the cache, then the node pool (the slots' keys are read from
    their nodes)."""
    maps = work.maps
    for slot in range(SLOTS + work.cache_used[0]):
        if slot >= SLOTS:
            work.cached[_key(arena.nodes, maps.order[slot, 0])] = -1  # its start node
        _clear(maps, arena.nodes, slot)
    work.cache_used[0] = 0
    arena.counters[N_NODES] = 0
    arena.counters[N_PARENTS] = 0
    arena.counters[N_NESTED] = 0


@compiled(borrows=True)
def _next_start(arena, work):
    """Before the propagations from a start cell: the maps of the last start emptied, and the
    cached propagations kept while the pools are at most a quarter used and the cache has a
    free slot; else everything emptied."""
    ctr = arena.counters
    if (ctr[N_NODES] > arena.nodes.shape[0] // 4 or ctr[N_PARENTS] > arena.parents.shape[0] // 4
            or ctr[N_NESTED] > arena.nested.shape[0] // 4
            or work.cache_used[0] == CACHE_SLOTS):
        _reset(arena, work)
        return
    for slot in range(SLOTS):
        _clear(work.maps, arena.nodes, slot)


@compiled(inline="always")
def _remove(cands, pos, cell, digit):
    cands[cell] &= ~(1 << digit)
    for j in range(3):
        pos[CELL_REGIONS[cell, j], digit] &= ~(1 << INDEX_IN[cell, j])


@compiled(inline="always")
def _restore(grid):
    for c in range(81):
        grid.cands[c] = grid.cands0[c]
    for r in range(27):
        for d in range(10):
            grid.pos[r, d] = grid.pos0[r, d]


# -- the implication rules (the reference's on_to_off and off_to_on) ---------------------------


@compiled(inline="always")
def _charge(ctr, work):
    """Add ``work`` to the search's counters; True (and the status says so) when that takes it
    over its budget."""
    ctr[WORK] += work
    if ctr[MAX_WORK] >= 0 and ctr[WORK] > ctr[MAX_WORK]:
        ctr[STATUS] = OVER_BUDGET_STATUS
        return True
    return False


@compiled(inline="always")
def _on_to_off(p, links, cands, pos, lookup, arena, out):
    """What an "on" node turns off, into ``out``: the cell's other candidates (``links.cell``),
    then the digit in the block, row and column, each cell once; a candidate known off and not
    known on (``links.known``, ``lookup``) is left out. Returns the count, -1 on overflow."""
    known = links.known
    count = 0
    cell = arena.nodes[p, 0]
    d = arena.nodes[p, 1]
    if links.cell:
        m = cands[cell] & ~(1 << d)
        for v in range(1, 10):
            if (m >> v) & 1:
                k = cell * 20 + v * 2
                if known >= 0 and lookup[known, k] >= 0 and lookup[known, k + 1] < 0:
                    continue
                n = _new_node(arena, cell, v, 0, NAKED, p)
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
                if known >= 0 and lookup[known, k] >= 0 and lookup[known, k + 1] < 0:
                    continue
                n = _new_node(arena, c, d, 0, j + 1, p)
                if n < 0:
                    return -1
                out[count] = n
                count += 1
    return count


@compiled(inline="always")
def _off_to_on(p, links, grid, lookup, arena, out):
    """What an "off" node turns on, into ``out``: the other candidate of a bivalue cell
    (``links.cell``), the other place of a region with two (``links.region``), each cell once;
    one known on and not known off is left out. ``links.dynamic``: the candidates gone since
    the start (``grid.cands0``, ``grid.pos0``) from that cell or region are extra parents."""
    known = links.known
    count = 0
    cell = arena.nodes[p, 0]
    d = arena.nodes[p, 1]
    if links.cell:
        m = grid.cands[cell]
        if popcount(m) == 2:
            other = _lowest(m & ~(1 << d)) if (m >> d) & 1 else _lowest(m)
            k = cell * 20 + other * 2 + 1
            if known < 0 or lookup[known, k] < 0 or lookup[known, k - 1] >= 0:
                n = _new_node(arena, cell, other, 1, NAKED, p)
                if n < 0:
                    return -1
                if links.dynamic:
                    gone = grid.cands0[cell] & ~m
                    for v in range(1, 10):
                        if (gone >> v) & 1:
                            _add_parent(arena, n, lookup[known, cell * 20 + v * 2])
                out[count] = n
                count += 1
    if links.region:
        found0 = -1
        found1 = -1
        for j in range(3):
            r = CELL_REGIONS[cell, j]
            m = grid.pos[r, d]
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
            if known >= 0 and lookup[known, k] >= 0 and lookup[known, k - 1] < 0:
                continue
            n = _new_node(arena, target, d, 1, j + 1, p)
            if n < 0:
                return -1
            if links.dynamic:
                gone = grid.pos0[r, d] & ~m
                for i in range(9):
                    if (gone >> i) & 1:
                        c = REGION_CELLS[r, i]
                        _add_parent(arena, n, lookup[known, c * 20 + d * 2])
            out[count] = n
            count += 1
    if arena.counters[STATUS] == OVERFLOW:
        return -1
    return count


@compiled(borrows=True)
def _propagate(slot, rule, grid, arena, work):
    """SE's doChaining on map ``slot`` (filled in): "on" nodes first, each queue in the order
    found; at level 1, when both queues are empty, the inner rules' removals are "off" too
    (``_advanced``). Returns 1 on a contradiction (``work.pair``: its on and off nodes), 0
    without, -1 when stopped (over budget or out of room). The grid is left as it was."""
    cands, pos, nodes, ctr = grid.cands, grid.pos, arena.nodes, arena.counters
    maps, qon, qoff, implied, pair = work.maps, work.on, work.off, work.implied, work.pair
    lookup, order = maps.lookup, maps.order
    dynamic = rule.mode != MULTIPLE
    links = Links(rule.mode != NISHIO, True, dynamic, slot)
    head_on = tail_on = head_off = tail_off = 0
    for i in range(maps.sizes[slot]):
        n = order[slot, i]
        if nodes[n, 2]:
            qon[tail_on] = n
            tail_on += 1
        else:
            qoff[tail_off] = n
            tail_off += 1
    result = 0
    while head_on < tail_on or head_off < tail_off:
        if _charge(ctr, 1):
            result = -1
            break
        taking_on = head_on < tail_on
        if taking_on:
            p = qon[head_on]
            head_on += 1
            count = _on_to_off(p, links, cands, pos, lookup, arena, implied)
        else:
            p = qoff[head_off]
            head_off += 1
            count = _off_to_on(p, links, grid, lookup, arena, implied)
            if dynamic:  # removed only now, after its consequences (se-notes)
                _remove(cands, pos, nodes[p, 0], nodes[p, 1])
        if count < 0:
            result = -1
            break
        for t in range(count):
            n = implied[t]
            k = _key(nodes, n)
            opposite = lookup[slot, k ^ 1]
            if opposite >= 0:
                pair[0] = opposite if taking_on else n
                pair[1] = n if taking_on else opposite
                result = 1
                break
            if lookup[slot, k] >= 0:
                continue
            _insert(maps, slot, n, k)
            if taking_on:
                qoff[tail_off] = n
                tail_off += 1
            else:
                qon[tail_on] = n
                tail_on += 1
        if result != 0:
            break
        if rule.level > 0 and head_on == tail_on and head_off == tail_off:
            tail_off = _advanced(slot, rule, grid, arena, work, tail_off)
            if tail_off < 0:
                result = -1
                break
    if dynamic:
        _restore(grid)
    return result


@compiled(borrows=True)
def _advanced(slot, rule, grid, arena, work, tail_off):
    """The removals of the first productive inner rule on the reduced grid, "off" nodes whose
    parents are the removed candidates the rule relied on, queued unless known (the
    reference's Chaining.advanced); returns the new tail of the "off" queue, -1 when stopped.
    From level 2 on, when the four simple rules have nothing, the inner chain rules are asked
    (``_nested_removals``)."""
    nodes, ctr = arena.nodes, arena.counters
    maps, queue, out = work.maps, work.off, work.inner.out
    used = inner_hints(grid, work.inner)
    if used < 0:
        ctr[STATUS] = OVERFLOW
        return -1
    if used == 0 and rule.level >= 2:
        return _nested_removals(slot, rule, grid, arena, work, tail_off)
    i = 0
    while i < used:
        n_parents = out[i]
        i += 1
        start = _rule_parent_nodes(slot, arena, maps, out, i, n_parents)
        if start < 0:
            return -1
        i += n_parents
        n_removals = out[i]
        i += 1
        for j in range(n_removals):
            k = out[i + j]
            n = _new_node(arena, k // 20, (k % 20) // 2, 0, ADVANCED, -1)
            if n < 0:
                return -1
            nodes[n, 4] = start  # the hint's nodes share its parents
            nodes[n, 5] = n_parents
            arena.nested_of[n] = -1  # a simple rule's: no nested complexity
            if maps.lookup[slot, k] < 0:
                _insert(maps, slot, n, k)
                queue[tail_off] = n
                tail_off += 1
        i += n_removals
    return tail_off


@compiled(inline="always")
def _rule_parent_nodes(slot, arena, maps, keys, first, n_parents):
    """The "off" nodes of map ``slot`` whose keys are ``keys[first:first + n_parents]`` (an
    inner hint's rule parents), as the parents of the nodes made next: where they start in
    ``arena.parents``, -1 when out of room or when one is not there (the reference would fail
    to find it, a KeyError)."""
    ctr, parents = arena.counters, arena.parents
    start = ctr[N_PARENTS]
    if start + n_parents > parents.shape[0]:
        ctr[STATUS] = OVERFLOW
        return -1
    for q in range(n_parents):
        parent = maps.lookup[slot, keys[first + q]]
        if parent < 0:
            ctr[STATUS] = OVERFLOW
            return -1
        parents[start + q] = parent
    ctr[N_PARENTS] = start + n_parents
    return start


@compiled(borrows=True)
def _nested_removals(slot, rule, grid, arena, work, tail_off):
    """Levels 0 and 1 have no inner chain rules: the copies of the search for levels 2-5 (at
    the end of the module) bind ``_inner_chain_removals`` under this name."""
    return tail_off


def _inner_rule_table():
    """The inner chain rules of each level (the reference's ``Chaining.inner_rules`` after the
    four simple ones), in order: mode, level and base difficulty; mode -1 after the last."""
    modes = np.full((6, 2), -1, np.int64)
    levels = np.zeros((6, 2), np.int64)
    bases = np.zeros((6, 2), np.float64)
    rules = {2: [(STATIC, 0, 0.0)], 3: [(STATIC, 0, 0.0), (MULTIPLE, 0, 8.0)],
             4: [(DYNAMIC, 0, 8.5)], 5: [(DYNAMIC, 0, 8.5), (DYNAMIC, 2, 9.5)]}
    for level, inner in rules.items():
        for i, (mode, inner_level, base) in enumerate(inner):
            modes[level, i], levels[level, i], bases[level, i] = mode, inner_level, base
    return modes, levels, bases


INNER_MODES, INNER_LEVELS, INNER_BASES = _inner_rule_table()


@compiled(borrows=True)
def _inner_chain_removals(slot, rule, grid, arena, work, tail_off):
    """The reference's ``Chaining.advanced`` past the four simple rules: each inner chain rule
    of ``rule.level`` in turn runs on the reduced grid (``rule.below``'s search, its work the
    search's), every hint it has is collected, and the removals of those with rule parents
    become "off" nodes; the first rule with removals ends it (``_memo_fill``). A reduced grid
    met again in the same search (one candidate's propagation from a region chain, then from its
    own cell) gives the same: what it gave is replayed, nodes and work (``Memo``). Returns the
    new tail of the "off" queue, -1 when stopped."""
    ctr, memo = arena.counters, rule.below.memo
    entry = _memo_find(memo, rule.level, grid)
    if entry < 0:
        entry = _memo_fill(rule, grid, ctr)
        inner = rule.below.arena.counters
        if entry < 0:
            ctr[WORK] = inner[WORK]
            ctr[STATUS] = inner[STATUS]
            return -1
    if _charge(ctr, memo.meta[entry, M_WORK]):
        return -1
    return _record_nodes(slot, arena, work, memo.records, memo.meta[entry, M_FIRST],
                         memo.meta[entry, M_END], tail_off)


@compiled(borrows=True)
def _memo_hash(level, grid):
    digest = (IDENTITY_SEED ^ level) * IDENTITY_PRIME
    for c in range(81):
        digest = (digest ^ grid.cands0[c]) * IDENTITY_PRIME
        digest = (digest ^ grid.cands[c]) * IDENTITY_PRIME
    return digest


@compiled(borrows=True)
def _memo_find(memo, level, grid):
    """The entry of this level, start grid and reduced grid, -1 if none."""
    mask = memo.slots.shape[0] - 1
    slot = _memo_hash(level, grid) & mask
    while memo.slots[slot] >= 0:
        entry = memo.slots[slot]
        if memo.meta[entry, M_LEVEL] == level:
            same = True
            for c in range(81):
                if (memo.grids[entry, c] != grid.cands0[c]
                        or memo.grids[entry, 81 + c] != grid.cands[c]):
                    same = False
                    break
            if same:
                return entry
        slot = (slot + 1) & mask
    return -1


@compiled
def _memo_fill(rule, grid, ctr):
    """Run the inner chain rules of ``rule.level`` on the reduced grid, within the budget left
    by the search's counters ``ctr``, and keep in a new entry of ``rule.below.memo`` the removals
    first productive one gives (``_records_of``) and the work of all that ran; the entry, -1
    when the search stopped (``below.arena``'s counters say why and the work done)."""
    below = rule.below
    memo, inner, collected = below.memo, below.arena.counters, below.hints.collected
    if (memo.counts[0] == memo.meta.shape[0]
            or memo.counts[1] + COLLECT_DATA + 3 * COLLECT_CAPACITY > memo.records.shape[0]):
        memo.counts[0] = 0  # full: start again
        memo.counts[1] = 0
        memo.slots[:] = -1
    entry, first = memo.counts[0], memo.counts[1]
    collected.on[0] = 1
    collected.initial[:] = grid.cands0
    collected.current[:] = grid.cands
    inner[WORK] = ctr[WORK]
    inner[MAX_WORK] = ctr[MAX_WORK]
    end = first
    for i in range(INNER_MODES.shape[1]):
        mode = INNER_MODES[rule.level, i]
        if mode < 0:
            break
        collected.counts[0] = 0
        collected.counts[1] = 0
        inner[STATUS] = OK
        _inner_run(below.values, grid.cands,
                   Chaining(mode, INNER_LEVELS[rule.level, i], INNER_BASES[rule.level, i],
                            below.below),
                   below.grid, below.arena, below.work, below.hints)
        if inner[STATUS] != OK:
            return -1
        end = _records_of(collected, memo.records, first)
        if end > first:
            break
    memo.grids[entry, :81] = grid.cands0
    memo.grids[entry, 81:] = grid.cands
    memo.meta[entry, M_LEVEL] = rule.level
    memo.meta[entry, M_WORK] = inner[WORK] - ctr[WORK]
    memo.meta[entry, M_FIRST] = first
    memo.meta[entry, M_END] = end
    memo.counts[0] = entry + 1
    memo.counts[1] = end
    mask = memo.slots.shape[0] - 1
    slot = _memo_hash(rule.level, grid) & mask
    while memo.slots[slot] >= 0:
        slot = (slot + 1) & mask
    memo.slots[slot] = entry
    return entry


@compiled
def _ranked(collected):
    """The collected hints' indexes by rank (difficulty, complexity, kind), the first found
    first among equals: the reference's stable sort, as three stable sorts."""
    n = collected.counts[0]
    meta = collected.meta
    order = np.argsort(meta[:n, C_SORT_KEY], kind="mergesort")
    order = order[np.argsort(meta[order, C_COMPLEXITY], kind="mergesort")]
    return order[np.argsort(collected.difficulty[order], kind="mergesort")]


@compiled(borrows=True)
def _seen_removals(collected, h):
    """Whether a hint kept before ``h`` removes the same (the reference drops it); if not,
    ``h`` is kept. ``collected.table``: the kept hints, open addressing by removals' hash."""
    meta, data, table = collected.meta, collected.data, collected.table
    off, n = meta[h, C_OFFSET], meta[h, C_REMOVALS]
    digest = IDENTITY_SEED
    for e in range(2 * n):
        digest = (digest ^ data[off + e]) * IDENTITY_PRIME
    mask = table.shape[0] - 1
    slot = digest & mask
    while table[slot] >= 0:
        other = table[slot]
        if meta[other, C_REMOVALS] == n:
            o = meta[other, C_OFFSET]
            same = True
            for e in range(2 * n):
                if data[o + e] != data[off + e]:
                    same = False
                    break
            if same:
                return True
        slot = (slot + 1) & mask
    table[slot] = h
    return False


@compiled
def _records_of(collected, records, first):
    """The collected hints with rule parents and removals, in rank order, repeats (the same
    removals as a hint before) out, written from ``first`` as [parents, their "off" keys...,
    removals, (cell, mask)..., complexity, identity]; the new end, ``first`` when none removes
    a candidate."""
    meta, data = collected.meta, collected.data
    collected.table[:] = -1
    order = _ranked(collected)
    end = first
    removes = False
    for j in range(order.shape[0]):
        h = order[j]
        if _seen_removals(collected, h) or meta[h, C_PARENTS] == 0:
            continue
        off, n_removals, n_parents = meta[h, C_OFFSET], meta[h, C_REMOVALS], meta[h, C_PARENTS]
        records[end] = n_parents
        records[end + 1:end + 1 + n_parents] = data[off + 2 * n_removals:
                                                     off + 2 * n_removals + n_parents]
        end += 1 + n_parents
        records[end] = n_removals
        records[end + 1:end + 1 + 2 * n_removals] = data[off:off + 2 * n_removals]
        for e in range(n_removals):
            removes = removes or data[off + 2 * e + 1] != 0
        end += 1 + 2 * n_removals
        records[end] = meta[h, C_COMPLEXITY]
        records[end + 1] = meta[h, C_IDENTITY]
        end += 2
    return end if removes else first


@compiled(borrows=True)
def _record_nodes(slot, arena, work, records, first, end, tail_off):
    """The removals of ``records[first:end]`` (``_records_of``): "off" nodes caused by an inner
    rule, whose parents are the rule parents' "off" nodes and which carry the hint's complexity
    and identity (a row of ``arena.nested``), queued unless known. Returns the new tail of the
    "off" queue, -1 when out of room."""
    nodes, ctr, nested = arena.nodes, arena.counters, arena.nested
    maps, queue = work.maps, work.off
    i = first
    while i < end:
        n_parents = records[i]
        keys = i + 1
        i = keys + n_parents
        n_removals = records[i]
        removals = i + 1
        i = removals + 2 * n_removals
        row = ctr[N_NESTED]
        if row >= nested.shape[0]:
            ctr[STATUS] = OVERFLOW
            return -1
        start = _rule_parent_nodes(slot, arena, maps, records, keys, n_parents)
        if start < 0:
            return -1
        nested[row, 0] = records[i]
        nested[row, 1] = records[i + 1]
        i += 2
        ctr[N_NESTED] = row + 1
        for e in range(n_removals):
            cell, mask = records[removals + 2 * e], records[removals + 2 * e + 1]
            for d in range(1, 10):
                if not (mask >> d) & 1:
                    continue
                n = _new_node(arena, cell, d, 0, ADVANCED, -1)
                if n < 0:
                    return -1
                nodes[n, 4] = start  # the hint's nodes share its parents
                nodes[n, 5] = n_parents
                arena.nested_of[n] = row
                k = cell * 20 + d * 2
                if maps.lookup[slot, k] < 0:
                    _insert(maps, slot, n, k)
                    queue[tail_off] = n
                    tail_off += 1
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


@compiled(inline="always")
def _chain_of(t, arena, work):
    """The distinct candidates (keys) ``t`` follows from, breadth first as SE's getChain, into
    ``work.bfs[:count]`` (the queue, compacted as it is read); the count, -1 when out of room."""
    nodes, parents, ctr = arena.nodes, arena.parents, arena.counters
    stamp, bfs = work.stamp, work.bfs
    ctr[STAMP] += 1
    generation = ctr[STAMP]
    head = 0
    tail = 1
    bfs[0] = t
    count = 0
    while head < tail:
        p = bfs[head]
        head += 1
        k = _key(nodes, p)
        if stamp[k] == generation:
            continue
        stamp[k] = generation
        bfs[count] = p  # count < head: that entry is read already
        count += 1
        start = nodes[p, 4]
        for j in range(nodes[p, 5]):
            if tail >= bfs.shape[0]:
                ctr[STATUS] = OVERFLOW
                return -1
            bfs[tail] = parents[start + j]
            tail += 1
    return count


@compiled(borrows=True)
def _ancestors(t, arena, work, cells, mark):
    """The number of distinct candidates (keys) ``t`` follows from (``_chain_of``); with
    ``mark``, their cells set in ``cells`` and their digits returned as a mask in the high bits
    (count | digits << 32). -1 when out of room."""
    count = _chain_of(t, arena, work)
    if count < 0 or not mark:
        return count
    digits = 0
    for i in range(count):
        p = work.bfs[i]
        cells[arena.nodes[p, 0]] = 1
        digits |= 1 << arena.nodes[p, 1]
    return count | (digits << 32)


@compiled(inline="always")
def _sort_key(kind, x, y, absurd):
    if kind == CYCLE or kind == FORCING:
        return 4 if x and y else (3 if y else 2)
    if kind == BINARY:
        return 7 if absurd else 1
    return 5 if kind == CELL else 6


@compiled(borrows=True)
def _nested_complexity(n_targets, arena, work, hints):
    """SE's nested complexity of a hint: the complexities of the inner chain hints its chains
    follow from (their removals' ``arena.nested`` rows), each identity once; -1 when out of
    room."""
    nodes, nested, seen = arena.nodes, arena.nested, work.identities
    n_seen = 0
    total = 0
    for t in range(n_targets):
        count = _chain_of(hints.targets[t], arena, work)
        if count < 0:
            return -1
        for i in range(count):
            p = work.bfs[i]
            row = arena.nested_of[p] if nodes[p, 3] == ADVANCED else -1
            if row < 0:
                continue
            identity = nested[row, 1]
            known = False
            for q in range(n_seen):
                if seen[q] == identity:
                    known = True
                    break
            if not known:
                seen[n_seen] = identity
                n_seen += 1
                total += nested[row, 0]
    return total


@compiled(inline="always")
def _rule_parents_of(cell, digit, cause, collected, mark, end):
    """The candidates an "on" step of cause ``cause`` relied on that were removed between the
    outer chain's start and the grid the inner rule ran on (the reference's
    collectRuleParents), appended to ``collected.data`` from ``end`` unless met; the new end."""
    initial, current, data, stamp = (collected.initial, collected.current, collected.data,
                                     collected.stamp)
    if cause == NAKED:
        gone = initial[cell] & ~current[cell]
        for v in range(1, 10):
            if (gone >> v) & 1 and stamp[cell * 20 + v * 2] != mark:
                stamp[cell * 20 + v * 2] = mark
                data[end] = cell * 20 + v * 2
                end += 1
    else:
        region = CELL_REGIONS[cell, cause - 1]
        bit = 1 << digit
        for i in range(9):
            c = REGION_CELLS[region, i]
            if initial[c] & bit and not current[c] & bit and stamp[c * 20 + digit * 2] != mark:
                stamp[c * 20 + digit * 2] = mark
                data[end] = c * 20 + digit * 2
                end += 1
    return end


IDENTITY_SEED, IDENTITY_PRIME = 1469598103934665603, 1099511628211  # FNV-1a, 64 bits


@compiled(borrows=True)
def _collect(found, complexity, difficulty, sort_key, arena, work, hints):
    """A hint of a rule run inside a nested chain, into ``hints.collected``: its rank, removals,
    rule parents and identity (a hash of the keys of each chain, breadth first as SE's
    getChain: SE's FullChain equality, a cycle's second chain, its first read backwards,
    implied)."""
    collected = hints.collected
    nodes, parents, ctr, data = arena.nodes, arena.parents, arena.counters, collected.data
    i, off = collected.counts[0], collected.counts[1]
    if i >= collected.meta.shape[0] or off + 2 * found.n_removals + KEYS > data.shape[0]:
        ctr[STATUS] = OVERFLOW
        return
    for e in range(found.n_removals):
        data[off + 2 * e] = hints.removals[e, 0]
        data[off + 2 * e + 1] = hints.removals[e, 1]
    end = off + 2 * found.n_removals
    collected.counts[2] += 1
    mark = collected.counts[2]
    # A chain's start has no cause: a cell chain's is the cell's, a region chain's the region's.
    region_cause = 1 + found.region // 9 if found.kind == REGION else NO_CAUSE
    start_cause = NAKED if found.kind == CELL else region_cause
    identity = IDENTITY_SEED
    for t in range(found.n_targets):
        count = _chain_of(hints.targets[t], arena, work)
        if count < 0:
            return
        for j in range(count):
            p = work.bfs[j]
            identity = (identity ^ (_key(nodes, p) + 1)) * IDENTITY_PRIME
            if nodes[p, 2]:
                cause = nodes[p, 3] if nodes[p, 3] != NO_CAUSE else start_cause
                if NAKED <= cause < ADVANCED:
                    end = _rule_parents_of(nodes[p, 0], nodes[p, 1], cause, collected, mark,
                                           end)
        identity = (identity ^ KEYS) * IDENTITY_PRIME
    if found.kind == CYCLE:
        # The cycle's "off" view: its line from the start on, every state flipped, so its "on"
        # steps are the line's "off" ones, their causes kept (the start's has none).
        identity = (identity ^ (KEYS + 1)) * IDENTITY_PRIME
        line = work.cycle
        n_line = 0
        p = hints.targets[0]
        while nodes[p, 5] > 0:  # every node but the start
            line[n_line] = p
            n_line += 1
            p = parents[nodes[p, 4]]
        for q in range(n_line - 1, 0, -1):  # the last is the start's key again
            p = line[q]
            if not nodes[p, 2]:
                end = _rule_parents_of(nodes[p, 0], nodes[p, 1], nodes[p, 3], collected, mark,
                                       end)
    meta = collected.meta
    meta[i, C_COMPLEXITY] = complexity
    meta[i, C_SORT_KEY] = sort_key
    meta[i, C_IDENTITY] = identity
    meta[i, C_OFFSET] = off
    meta[i, C_REMOVALS] = found.n_removals
    meta[i, C_PARENTS] = end - off - 2 * found.n_removals
    collected.difficulty[i] = difficulty
    collected.counts[0] = i + 1
    collected.counts[1] = end


@compiled(borrows=True)
def _offer(found, arena, work, hints):
    """A hint found: kept when it ranks before the best so far (difficulty, complexity, kind;
    the first found among equals, as the reference's stable sort); inside a nested chain,
    collected with every other (``_collect``)."""
    best, best_difficulty = hints.best, hints.difficulty
    complexity = 0
    for i in range(1 if found.kind == CYCLE else found.n_targets):  # a cycle: its "on" view
        count = _ancestors(hints.targets[i], arena, work, hints.best_cells, False)
        if count < 0:
            return
        complexity += count
    if arena.counters[N_NESTED] > 0:
        count = _nested_complexity(found.n_targets, arena, work, hints)
        if count < 0:
            return
        complexity += count
    base = found.base
    if found.kind == CYCLE:
        base = 7.0 if found.x and found.y else 6.5
    elif found.kind == FORCING:
        base = 7.0 if found.x and found.y else 6.6
    difficulty = base + _length_bonus(complexity)
    sort_key = _sort_key(found.kind, found.x, found.y, found.absurd)
    if hints.collected.on[0]:
        _collect(found, complexity, difficulty, sort_key, arena, work, hints)
        return
    if best[HAS]:
        if difficulty > best_difficulty[0]:
            return
        if difficulty == best_difficulty[0]:
            if complexity > best[COMPLEXITY]:
                return
            if complexity == best[COMPLEXITY] and sort_key >= best[SORT_KEY]:
                return
    best_difficulty[0] = difficulty
    best[COMPLEXITY] = complexity
    best[SORT_KEY] = sort_key
    _keep(found, arena, work, hints)


@compiled(inline="always")
def _node_fields(nodes, n, field, best):
    """A node's cell, digit and on into ``best`` from ``field`` on (cell -1 for no node)."""
    best[field] = nodes[n, 0] if n >= 0 else -1
    best[field + 1] = nodes[n, 1] if n >= 0 else 0
    best[field + 2] = nodes[n, 2] if n >= 0 else 0


@compiled
def _keep(found, arena, work, hints):
    """The best hint's fields, removals, line, cells and digits, from ``found``."""
    nodes, best = arena.nodes, hints.best
    best[HAS] = 1
    best[KIND] = found.kind
    best[X] = found.x
    best[Y] = found.y
    best[ABSURD] = found.absurd
    _node_fields(nodes, found.place, PLACE_CELL, best)
    _node_fields(nodes, found.source, SOURCE_CELL, best)
    _node_fields(nodes, hints.targets[0], T0_CELL, best)
    if found.n_targets > 1:
        _node_fields(nodes, hints.targets[1], T1_CELL, best)
    best[HINT_REGION] = found.region
    best[HINT_DIGIT] = found.digit
    best[N_REMOVALS] = found.n_removals
    hints.best_removals[:found.n_removals] = hints.removals[:found.n_removals]
    best[N_LINE] = found.n_line
    hints.best_line[:found.n_line] = hints.line[:found.n_line]
    hints.best_cells[:] = 0
    digits = 0
    for i in range(found.n_targets):
        marked = _ancestors(hints.targets[i], arena, work, hints.best_cells, True)
        if marked < 0:
            return
        digits |= marked >> 32
    best[N_DIGITS_MASK] = digits


# -- the static rule: cycles and forcing chains ---------------------------------------------------
# The reference's two searches drain a queue of "on" nodes, then one of "off" nodes, in turn; as
# an "on" node implies only "off" ones and back, that takes the nodes layer by layer, each in
# the order found: the order of one queue, which these searches keep in ``work.off``.


@compiled(inline="always")
def _start(maps, nodes, slot, start, queue):
    """Map ``slot`` and ``queue`` hold ``start`` alone; returns its key."""
    _clear(maps, nodes, slot)
    key = _key(nodes, start)
    _insert(maps, slot, start, key)
    queue[0] = start
    return key


@compiled(borrows=True)
def _cycle_walk(p_on, arena, work):
    """SE's breadth-first search for cycles back to the candidate of ``p_on`` (length 4 or
    more), on the graph of ``work.reach`` (the kind's links, in the order the reference finds
    them): the same layers in the same order, an "on" candidate taken once and an "off" one
    again for each "on" one that implies it and is not below it on its first-parent line. Only
    the "on" candidates met are kept, with the links they were met by; a cycle's nodes are made
    when it is found (``_cycle_end``). Their last nodes go into ``work.cycle_ends``; returns
    their count, -1 when out of room. Its work is charged before (``_static_kind``)."""
    reach = work.reach
    first, succ, seen, parent, via, queue = (reach.first, reach.succ, reach.seen, reach.parent,
                                             reach.via, reach.queue)
    stamp = reach.stamp[0] + 1
    reach.stamp[0] = stamp
    source = reach.index[_key(arena.nodes, p_on)]
    seen[source] = stamp
    parent[source] = -1
    reach.made[source] = p_on
    reach.made_at[source] = stamp
    queue[0] = source
    head, tail, layer_end = 0, 1, 1
    deep = False  # past the first layer: a way back to the source is a cycle of length 4+
    n_found = 0
    while head < tail:
        if head == layer_end:
            layer_end = tail
            deep = True
        u = queue[head]
        head += 1
        for e1 in range(first[u], first[u + 1]):
            v = succ[e1]
            if _on_line(u, v, reach):
                continue
            for e2 in range(first[v], first[v + 1]):
                w = succ[e2]
                if w == source:
                    if deep:
                        end = _cycle_end(u, e1, e2, arena, reach)
                        if end < 0:
                            return -1
                        work.cycle_ends[n_found] = end
                        n_found += 1
                elif seen[w] != stamp:
                    seen[w] = stamp
                    parent[w] = u
                    via[w, 0] = e1
                    via[w, 1] = e2
                    queue[tail] = w
                    tail += 1
    return n_found


@compiled(inline="always")
def _on_line(u, v, reach):
    """Whether "off" node ``v`` is on the first-parent line above "on" node ``u``."""
    while reach.parent[u] >= 0:
        if reach.succ[reach.via[u, 0]] == v:
            return True
        u = reach.parent[u]
    return False


@compiled(borrows=True)
def _cycle_end(u, e1, e2, arena, reach):
    """The nodes of a cycle found: "on" node ``u`` and its line (``_made``), the "off" node it
    implies by link ``e1`` and the start again by link ``e2``; returns the last, -1 when out of
    room."""
    made = _made(u, arena, reach)
    if made < 0:
        return -1
    off = _graph_node(reach.succ[e1], reach.cause[e1], made, arena, reach)
    if off < 0:
        return -1
    return _graph_node(reach.succ[e2], reach.cause[e2], off, arena, reach)


@compiled(borrows=True)
def _made(u, arena, reach):
    """The node of "on" node ``u`` of the walk, made with the rest of its line the first time."""
    stamp = reach.stamp[0]
    depth = 0
    x = u
    while reach.made_at[x] != stamp:
        reach.line[depth] = x
        depth += 1
        x = reach.parent[x]
    node = reach.made[x]
    for i in range(depth - 1, -1, -1):
        w = reach.line[i]
        e1, e2 = reach.via[w, 0], reach.via[w, 1]
        off = _graph_node(reach.succ[e1], reach.cause[e1], node, arena, reach)
        if off < 0:
            return -1
        node = _graph_node(w, reach.cause[e2], off, arena, reach)
        if node < 0:
            return -1
        reach.made[w] = node
        reach.made_at[w] = stamp
    return node


@compiled(inline="always")
def _graph_node(v, cause, parent, arena, reach):
    """A node for graph node ``v``, of one parent; -1 when the pool is full."""
    k = reach.keys[v]
    return _new_node(arena, k // 20, (k % 20) // 2, k & 1, cause, parent)


@compiled(borrows=True)
def _forcing_chains(start, y, n_chains, grid, arena, work):
    """Chains from ``start`` to its own opposite, appended to ``work.chains`` (``n_chains``
    there) unless a chain of that key is there (``work.taken``); returns the new count, -1
    when out of room. Its work is charged before (``_static_kind``)."""
    cands, pos, nodes = grid.cands, grid.pos, arena.nodes
    maps, queue, implied, chains, taken = work.maps, work.off, work.implied, work.chains, \
        work.taken
    lookup = maps.lookup
    links = Links(y, True, False, -1)
    opposite = _start(maps, nodes, FORCING_SLOT, start, queue) ^ 1
    head, tail = 0, 1
    while head < tail:
        p = queue[head]
        head += 1
        count = (_on_to_off(p, links, cands, pos, lookup, arena, implied) if nodes[p, 2]
                 else _off_to_on(p, links, grid, lookup, arena, implied))
        if count < 0:
            return -1
        for t in range(count):
            n = implied[t]
            k = _key(nodes, n)
            if k == opposite and not taken[k]:
                taken[k] = 1
                chains[n_chains] = n
                n_chains += 1
            if lookup[FORCING_SLOT, k] < 0:  # each key once: room enough
                _insert(maps, FORCING_SLOT, n, k)
                queue[tail] = n
                tail += 1
    return n_chains


@compiled(borrows=True)
def _cycle_hint(dst, y, x, grid, arena, work, hints):
    """The hint of the cycle ending in ``dst`` (an "on" node back at the start), if it removes
    anything: the candidates outside the cycle's cells seeing both an "on" and an "off" node of
    the same digit."""
    cands = grid.cands
    nodes, parents = arena.nodes, arena.parents
    cycle, in_cycle, forward, backward = work.cycle, work.in_cycle, work.forward, work.backward
    rem, cells = hints.removals, hints.line
    in_cycle[:] = 0
    forward[:] = 0
    backward[:] = 0
    n_nodes = 0
    p = dst
    while nodes[p, 5] > 0:  # every node but the start
        cycle[n_nodes] = p
        n_nodes += 1
        in_cycle[nodes[p, 0]] = 1
        p = parents[nodes[p, 4]]
    for i in range(n_nodes):
        p = cycle[i]
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
    n_cells = 0
    for i in range(n_nodes - 1, -1, -1):
        c = nodes[cycle[i], 0]
        if in_cycle[c] == 1:
            in_cycle[c] = 2
            cells[n_cells] = c
            n_cells += 1
    hints.targets[0] = dst
    _offer(Found(CYCLE, x, y, False, 0.0, 1, n_rem, n_cells, -1, -1, -1, 0), arena, work, hints)


@compiled(borrows=True)
def _forcing_hint(t, y, x, grid, arena, work, hints):
    """The hint of the forcing chain ending in ``t``, whose start's candidate is then known
    (the cell's other candidates are removed even when there are none, as SE does)."""
    nodes = arena.nodes
    cell, d, on = nodes[t, 0], nodes[t, 1], nodes[t, 2]
    hints.removals[0, 0] = cell
    hints.removals[0, 1] = grid.cands[cell] & ~(1 << d) if on else 1 << d
    hints.targets[0] = t
    _offer(Found(FORCING, x, y, False, 0.0, 1, 1, 0, t if on else -1, -1, -1, 0), arena, work,
           hints)


# The static rule's searches from most starts find nothing, and each reaches every candidate it
# can, each once (its work): so the reachability of the whole graph, as bit sets, tells which
# searches to run and what the others would charge. A forcing chain from a candidate "on" exists
# when its "off" is reached, and from its "off" when its "on" is; a cycle back to a candidate
# enters it from another candidate "off" that it reaches again, so both are in one strongly
# connected component with a third node, an "on" one (the links alternate). On top1465's chain
# positions a start's forcing chains are wanted at 2.5 % of the starts.
CYCLES, FROM_ON, FROM_OFF = 1, 2, 4


@compiled(borrows=True)
def _static_rule(values, grid, arena, work, hints):
    """Forcing chains and cycles: X-only, then Y-only, then XY, from every candidate."""
    reach = work.reach
    n = _number_candidates(grid.cands, reach)
    for kind in range(3):
        _closure(kind, n, grid, reach)
        if not _static_kind(kind, values, grid, arena, work, hints):
            break
    _forget_candidates(reach)


@compiled(borrows=True)
def _number_candidates(cands, reach):
    """The graph's nodes: each candidate's "off" then "on"; returns their count."""
    n = 0
    for c in range(81):
        for d in range(1, 10):
            if (cands[c] >> d) & 1:
                k = c * 20 + d * 2
                reach.keys[n] = k
                reach.keys[n + 1] = k + 1
                reach.index[k] = n
                reach.index[k + 1] = n + 1
                n += 2
    reach.count[0] = n
    return n


@compiled(borrows=True)
def _forget_candidates(reach):
    """The graph's keys unnumbered (``reach.index`` all -1 again)."""
    for i in range(reach.count[0]):
        reach.index[reach.keys[i]] = -1
    reach.count[0] = 0


@compiled(borrows=True)
def _links(kind, n, grid, reach):
    """The successors of the graph's ``n`` nodes, as ``_on_to_off`` and ``_off_to_on`` link
    them for ``kind`` (0 X, 1 Y, 2 XY; the cycles' and the forcing chains' graphs are one where
    both run)."""
    cands, pos = grid.cands, grid.pos
    first, succ, cause, keys, index = reach.first, reach.succ, reach.cause, reach.keys, \
        reach.index
    y = kind > 0
    x = kind != 1
    e = 0
    for v in range(n):
        first[v] = e
        k = keys[v]
        cell = k // 20
        d = (k % 20) // 2
        if k & 1:
            if y:
                m = cands[cell] & ~(1 << d)
                for other in range(1, 10):
                    if (m >> other) & 1:
                        succ[e] = index[cell * 20 + other * 2]
                        cause[e] = NAKED
                        e += 1
            for j in range(20):  # the block's cells, then the row's, then the column's
                c = HOUSES[cell, j]
                if (cands[c] >> d) & 1:
                    succ[e] = index[c * 20 + d * 2]
                    cause[e] = (1 if CELL_REGIONS[c, 0] == CELL_REGIONS[cell, 0]
                                else 2 if CELL_REGIONS[c, 1] == CELL_REGIONS[cell, 1] else 3)
                    e += 1
        else:
            if y and popcount(cands[cell]) == 2:
                succ[e] = index[cell * 20 + _lowest(cands[cell] & ~(1 << d)) * 2 + 1]
                cause[e] = NAKED
                e += 1
            if x:
                found = e
                for j in range(3):
                    r = CELL_REGIONS[cell, j]
                    m = pos[r, d]
                    if popcount(m) == 2:
                        other = index[REGION_CELLS[r, _lowest(m & ~(1 << INDEX_IN[cell, j]))]
                                      * 20 + d * 2 + 1]
                        repeated = False
                        for f in range(found, e):
                            repeated = repeated or succ[f] == other
                        if not repeated:  # the first reason is kept
                            succ[e] = other
                            cause[e] = j + 1
                            e += 1
    first[n] = e


@compiled(borrows=True)
def _closure(kind, n, grid, reach):
    """The graph of ``kind`` (``_links``) and what each of its nodes reaches: Tarjan's walk
    finishes a strongly connected component after every component it reaches, so a
    component's set is its nodes and its successors' sets (``_component``)."""
    _links(kind, n, grid, reach)
    first, succ, order, low, comp, stack, calls = (reach.first, reach.succ, reach.order,
                                                   reach.low, reach.comp, reach.stack,
                                                   reach.calls)
    order[:n] = -1
    comp[:n] = -1
    met = 0
    held = 0
    n_comp = 0
    for root in range(n):
        if order[root] >= 0:
            continue
        order[root] = met
        low[root] = met
        met += 1
        stack[held] = root
        held += 1
        top = 0
        calls[0, 0] = root
        calls[0, 1] = first[root]
        while top >= 0:
            v = calls[top, 0]
            e = calls[top, 1]
            if e < first[v + 1]:
                calls[top, 1] = e + 1
                w = succ[e]
                if order[w] < 0:
                    order[w] = met
                    low[w] = met
                    met += 1
                    stack[held] = w
                    held += 1
                    top += 1
                    calls[top, 0] = w
                    calls[top, 1] = first[w]
                elif comp[w] < 0 and order[w] < low[v]:
                    low[v] = order[w]  # held: in v's component
                continue
            top -= 1
            if top >= 0 and low[v] < low[calls[top, 0]]:
                low[calls[top, 0]] = low[v]
            if low[v] == order[v]:
                held = _component(v, n_comp, n, held, reach)
                n_comp += 1


@compiled(borrows=True)
def _component(root, c, n, held, reach):
    """Component ``c``: the nodes held down to ``root``, and its set; returns what stays held."""
    first, succ, comp, stack, sets = reach.first, reach.succ, reach.comp, reach.stack, reach.sets
    words = (n + 63) >> 6
    for k in range(words):
        sets[c, k] = 0
    end = held
    ons = 0
    while True:
        held -= 1
        w = stack[held]
        comp[w] = c
        sets[c, w >> 6] |= np.int64(1) << (w & 63)
        ons += w & 1
        if w == root:
            break
    for i in range(held, end):
        w = stack[i]
        for e in range(first[w], first[w + 1]):
            other = comp[succ[e]]
            if other != c:  # finished before
                for k in range(words):
                    sets[c, k] |= sets[other, k]
    size = 0
    for k in range(words):
        size += popcount(sets[c, k])
    reach.sizes[c] = size
    reach.ons[c] = ons
    return held


@compiled(inline="always")
def _reaches(reach, a, b):
    """Whether node ``a`` reaches node ``b``."""
    return (reach.sets[reach.comp[a], b >> 6] >> (b & 63)) & 1


@compiled(borrows=True)
def _static_kind(kind, values, grid, arena, work, hints):
    """The cycles and forcing chains of ``kind`` (``_closure`` done) from every candidate, in
    the reference's order: each search's work charged (what its start reaches), and the
    searches run where they can find something (``CYCLES``); False when stopped."""
    cands, ctr, reach = grid.cands, arena.counters, work.reach
    x = kind != 1
    for cell in range(81):
        n = popcount(cands[cell])
        if values[cell] or n < 2 or (n > 2 and not x):
            continue  # Y-cycles start from bivalue cells only
        for d in range(1, 10):
            if not (cands[cell] >> d) & 1:
                continue
            on = reach.index[cell * 20 + d * 2 + 1]
            off = on - 1
            searches = CYCLES if reach.ons[reach.comp[on]] > 1 else 0
            if _charge(ctr, reach.sizes[reach.comp[on]]):
                return False
            if x:
                if _charge(ctr, reach.sizes[reach.comp[on]]):
                    return False
                if _reaches(reach, on, off):
                    searches |= FROM_ON
                if _charge(ctr, reach.sizes[reach.comp[off]]):
                    return False
                if _reaches(reach, off, on):
                    searches |= FROM_OFF
            if searches:
                _reset(arena, work)
                p_on = _new_node(arena, cell, d, 1, NO_CAUSE, -1)
                _static_start(p_on, kind, searches, grid, arena, work, hints)
                if ctr[STATUS] != OK:
                    return False
    return True


@compiled(borrows=True)
def _static_start(p_on, kind, searches, grid, arena, work, hints):
    """The ``searches`` (``CYCLES``, ``FROM_ON``, ``FROM_OFF``) from the candidate of ``p_on``
    (the pool's only node), their hints offered; stops early when out of room."""
    nodes = arena.nodes
    y = kind > 0
    x = kind != 1
    n_cycles = 0
    if searches & CYCLES:
        n_cycles = _cycle_walk(p_on, arena, work)
        if n_cycles < 0:
            return
    n_chains = np.int64(0)  # not a literal argument: that would compile a function once more
    if searches & FROM_ON:
        n_chains = _forcing_chains(p_on, y, n_chains, grid, arena, work)
        if n_chains < 0:
            return
    if searches & FROM_OFF:
        p_off = _new_node(arena, nodes[p_on, 0], nodes[p_on, 1], 0, NO_CAUSE, -1)
        if p_off < 0:
            return
        n_chains = _forcing_chains(p_off, y, n_chains, grid, arena, work)
        if n_chains < 0:
            return
    for i in range(n_cycles):
        _cycle_hint(work.cycle_ends[i], y, x, grid, arena, work, hints)
    for i in range(n_chains):
        t = work.chains[i]
        work.taken[_key(nodes, t)] = 0  # for the next start
        _forcing_hint(t, y, x, grid, arena, work, hints)


# -- Nishio, multiple and dynamic forcing chains ---------------------------------------------------


@compiled(borrows=True)
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


@compiled(borrows=True)
def _common_hints(shared, slots, grid, arena, work, hints):
    """The results shared by the ``shared.n_targets`` maps of ``slots`` (in the first map's
    order, "on" nodes first), each a hint of ``shared``'s kind, source, region and digit when
    it removes something."""
    cands = grid.cands
    nodes, maps = arena.nodes, work.maps
    lookup, order = maps.lookup, maps.order
    targets, rem = hints.targets, hints.removals
    n_slots = shared.n_targets
    first = slots[0]
    for on in (1, 0):
        for i in range(maps.sizes[first]):
            p = order[first, i]
            if nodes[p, 2] != on:
                continue
            k = _key(nodes, p)
            everywhere = True
            for s in range(1, n_slots):
                if lookup[slots[s], k] < 0:
                    everywhere = False
                    break
            if not everywhere:
                continue
            n_rem = _removals_of(cands, nodes, p, rem)
            if n_rem == 0:
                continue
            for s in range(n_slots):
                targets[s] = lookup[slots[s], k]
            _offer(Found(shared.kind, True, True, False, shared.base, n_slots, n_rem, 0,
                         p if on else -1, shared.source, shared.region, shared.digit),
                   arena, work, hints)


@compiled
def _propagation_of(k, scratch, rule, grid, arena, work):
    """The map of the candidate of "on" key ``k`` assumed and propagated (``_propagate``), and
    the propagation's result. The reference propagates a candidate again for each region
    chain that assumes it and for its own cell; the grid is the same each time, so is all the
    propagation gives: the first one is cached (a slot past ``SLOTS``, its nodes kept with it)
    and later ones take its map and result, their work counted again. In ``scratch`` when the
    cache is full. Returns (slot, result), the result -1 when stopped."""
    maps, nodes, ctr = work.maps, arena.nodes, arena.counters
    slot = work.cached[k]
    if slot >= 0:
        entry = work.cache[slot - SLOTS]
        if _charge(ctr, entry[C_WORK]):
            return slot, -1
        work.pair[0] = entry[C_PAIR]
        work.pair[1] = entry[C_PAIR + 1]
        return slot, entry[C_RESULT]
    used = work.cache_used[0]
    slot = SLOTS + used if used < CACHE_SLOTS else scratch
    _clear(maps, nodes, slot)
    p_on = _new_node(arena, k // 20, (k % 20) // 2, 1, NO_CAUSE, -1)
    if p_on < 0:
        return slot, -1
    _insert(maps, slot, p_on, k)
    if slot >= SLOTS:  # taken before propagating: a search stopped in it still empties it
        work.cache_used[0] = used + 1
        work.cached[k] = slot
    before = ctr[WORK]
    found = _propagate(slot, rule, grid, arena, work)
    if found >= 0 and slot >= SLOTS:
        entry = work.cache[used]
        entry[C_WORK] = ctr[WORK] - before
        entry[C_RESULT] = found
        entry[C_PAIR] = work.pair[0]
        entry[C_PAIR + 1] = work.pair[1]
    return slot, found


@compiled(inline="always")
def _contradiction(first, second, cell, removed, hints):
    """The targets (``work.pair``'s nodes) and the removal of a contradiction, into ``hints``."""
    hints.targets[0] = first
    hints.targets[1] = second
    hints.removals[0, 0] = cell
    hints.removals[0, 1] = removed


@compiled
def _binary_chaining(k, scratch, rule, grid, arena, work, hints):
    """Assume the candidate of "on" key ``k`` on (``_propagation_of``, ``scratch`` if it is not
    cached), then off (``OFF_SLOT``): contradictions (Nishio and dynamic) and double forcing
    chains (dynamic, from a cell of three candidates or more). Returns the slot of the "on"
    map, -1 when stopped."""
    cands, nodes, pair = grid.cands, arena.nodes, work.pair
    cell, d = k // 20, (k % 20) // 2
    contradiction = rule.mode != MULTIPLE
    slot, found = _propagation_of(k, scratch, rule, grid, arena, work)
    if found < 0:
        return -1
    p_on = work.maps.order[slot, 0]  # the candidate assumed
    p_off = _new_node(arena, cell, d, 0, NO_CAUSE, -1)
    if p_off < 0:
        return -1
    if contradiction and found == 1:  # the candidate cannot be on
        _contradiction(pair[0], pair[1], cell, 1 << d, hints)
        _offer(Found(BINARY, True, True, True, rule.base, 2, 1, 0, -1, p_on, -1, 0), arena,
               work, hints)
    _clear(work.maps, nodes, OFF_SLOT)
    _insert(work.maps, OFF_SLOT, p_off, _key(nodes, p_off))
    found = _propagate(np.int64(OFF_SLOT), rule, grid, arena, work)  # (not a literal)
    if found < 0:
        return -1
    others = cands[cell] & ~(1 << d)
    if contradiction and found == 1 and others:  # the candidate cannot be off
        _contradiction(pair[0], pair[1], cell, others, hints)
        _offer(Found(BINARY, True, True, True, rule.base, 2, 1, 0, p_on, p_off, -1, 0), arena,
               work, hints)
    if rule.mode == DYNAMIC and popcount(cands[cell]) >= 3:  # double forcing chains
        slots = np.empty(2, np.int64)
        slots[0] = slot
        slots[1] = OFF_SLOT
        _common_hints(Found(BINARY, True, True, False, rule.base, 2, 0, 0, -1, p_on, -1, 0),
                      slots, grid, arena, work, hints)
    return slot


@compiled
def _region_chainings(k, slot, rule, grid, arena, work, hints):
    """Region forcing chains of the candidate of "on" key ``k`` (its map ``slot``) from the
    regions where its cell is the digit's first place: every other place assumed on in turn.
    Returns -1 when stopped."""
    pos = grid.pos
    cell, d = k // 20, (k % 20) // 2
    multiple = rule.mode != NISHIO
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
                s, found = _propagation_of(other * 20 + d * 2 + 1, REGION_SLOT + n_slots - 1,
                                           rule, grid, arena, work)
                if found < 0:
                    return -1
                slots[n_slots] = s
            n_slots += 1
        _common_hints(Found(REGION, True, True, False, rule.base, n_slots, 0, 0, -1, -1, rg, d),
                      slots, grid, arena, work, hints)
    return 0


# The multiple forcing chains are not dynamic: a propagation reaches what the graph of links
# (XY) lets it, each candidate once, unless it meets a contradiction (a candidate both on and
# off), where it stops. So where no propagation from a start cell meets one, the closure of the
# graph (``_closure``) tells whether a cell or region chain has a common result that removes
# something, and what the propagations would charge; they run only where one may.


@compiled(inline="always")
def _contradicts(sets, c, words):
    """Whether component ``c`` reaches a candidate both "off" (node 2 i) and "on" (2 i + 1)."""
    for k in range(words):
        m = sets[c, k]
        if m & (m >> 1) & 0x5555555555555555:
            return True
    return False


@compiled(borrows=True)
def _removes(common, words, reach, cands):
    """Whether a result in ``common`` (nodes' bits) would remove something (``_removals_of``):
    any "off" one, an "on" one of a cell with another candidate."""
    for k in range(words):
        m = common[k]
        while m:
            b = k * 64 + lowest_bit_index(m)
            m &= m - 1
            if not b & 1 or popcount(cands[reach.keys[b] // 20]) > 1:
                return True
    return False


@compiled(borrows=True)
def _quiet_work(cell, grid, reach):
    """The work of the multiple forcing chains from ``cell`` (its candidates assumed on and
    off, and the other places of the regions it is the digit's first place of assumed on) when
    none of them can find anything; -1 when one may: a propagation that meets a contradiction,
    or a common result that removes something."""
    cands, pos = grid.cands, grid.pos
    comp, sets, sizes, index = reach.comp, reach.sets, reach.sizes, reach.index
    words = (reach.count[0] + 63) >> 6
    cell_common, region_common = reach.common[0], reach.common[1]
    for k in range(words):
        cell_common[k] = -1
    work = 0
    for d in range(1, 10):
        if not (cands[cell] >> d) & 1:
            continue
        on = comp[index[cell * 20 + d * 2 + 1]]
        off = comp[index[cell * 20 + d * 2]]
        if _contradicts(sets, on, words) or _contradicts(sets, off, words):
            return -1
        work += sizes[on] + sizes[off]
        for k in range(words):
            cell_common[k] &= sets[on, k]
        for j in range(3):
            rg = CELL_REGIONS[cell, j]
            places = pos[rg, d]
            if popcount(places) < 2 or REGION_CELLS[rg, _lowest(places)] != cell:
                continue
            for k in range(words):
                region_common[k] = sets[on, k]
            for i in range(9):
                other = REGION_CELLS[rg, i]
                if not (places >> i) & 1 or other == cell:
                    continue
                c = comp[index[other * 20 + d * 2 + 1]]
                if _contradicts(sets, c, words):
                    return -1
                work += sizes[c]
                for k in range(words):
                    region_common[k] &= sets[c, k]
            if _removes(region_common, words, reach, cands):
                return -1
    if _removes(cell_common, words, reach, cands):
        return -1
    return work


# Nishio's chains follow one digit (no cell links): assuming a candidate on turns the digit off in
# its houses, and a region left with one place of it turns that on, the grid losing each "off"
# as it goes. What such a propagation reaches does not depend on its order, and it meets a
# contradiction when a region loses every place or a cell is turned both on and off. So the
# propagations of a candidate that meet none (Nishio hints are contradictions only) are
# followed as 81-bit masks of the digit's places, their work the candidates they reach.


@compiled(inline="always")
def _houses_of(cells_lo, cells_hi):
    """The cells seeing any of the cells (an 81-bit mask as two words): two of them that see
    each other are in it."""
    lo = np.int64(0)
    hi = np.int64(0)
    m = cells_lo
    while m:
        c = lowest_bit_index(m)
        m &= m - 1
        lo |= PEER_SETS[c, 0]
        hi |= PEER_SETS[c, 1]
    m = cells_hi
    while m:
        c = 64 + lowest_bit_index(m)
        m &= m - 1
        lo |= PEER_SETS[c, 0]
        hi |= PEER_SETS[c, 1]
    return lo, hi


@compiled(borrows=True)
def _nishio_work(cell, d, on, places_lo, places_hi):
    """The candidates (of digit ``d``) a Nishio propagation of ``cell``'s candidate assumed
    ``on`` (or off) reaches, -1 when it meets a contradiction."""
    b_lo = np.int64(1) << cell if cell < 64 else np.int64(0)
    b_hi = np.int64(1) << (cell - 64) if cell >= 64 else np.int64(0)
    on_lo, on_hi = (b_lo, b_hi) if on else (np.int64(0), np.int64(0))
    off_lo, off_hi = (np.int64(0), np.int64(0)) if on else (b_lo, b_hi)
    new_lo, new_hi = on_lo, on_hi
    while True:
        seen_lo, seen_hi = _houses_of(new_lo, new_hi)
        off_lo |= seen_lo & places_lo
        off_hi |= seen_hi & places_hi
        if (on_lo & off_lo) or (on_hi & off_hi):
            return -1
        left_lo, left_hi = places_lo & ~off_lo, places_hi & ~off_hi
        new_lo = np.int64(0)
        new_hi = np.int64(0)
        for r in range(27):
            all_lo, all_hi = places_lo & REGION_SETS[r, 0], places_hi & REGION_SETS[r, 1]
            if not (all_lo or all_hi):
                continue  # the digit is placed there
            x_lo, x_hi = left_lo & REGION_SETS[r, 0], left_hi & REGION_SETS[r, 1]
            n = popcount(x_lo) + popcount(x_hi)
            if n == 0:
                return -1
            if n == 1 and not (x_lo & on_lo) and not (x_hi & on_hi):
                new_lo |= x_lo
                new_hi |= x_hi
        if not (new_lo or new_hi):
            return popcount(on_lo) + popcount(on_hi) + popcount(off_lo) + popcount(off_hi)
        on_lo |= new_lo
        on_hi |= new_hi


@compiled(borrows=True)
def _digit_places(cands, places):
    """Each digit's places (its candidates' cells) as two words, into ``places[d]``."""
    places[:, :] = 0
    for c in range(81):
        for d in range(1, 10):
            if (cands[c] >> d) & 1:
                places[d, c >> 6] |= np.int64(1) << (c & 63)


@compiled(borrows=True)
def _nishio_quiet(cell, d, places):
    """The work of the Nishio propagations of ``cell``'s candidate ``d`` assumed on, then off
    (``places``: ``_digit_places`` of the grid), when neither meets a contradiction; -1 when
    one does."""
    on = _nishio_work(cell, d, True, places[d, 0], places[d, 1])
    if on < 0:
        return -1
    off = _nishio_work(cell, d, False, places[d, 0], places[d, 1])
    if off < 0:
        return -1
    return on + off


@compiled
def _chaining_rule(values, rule, grid, arena, work, hints):
    """Nishio, multiple or dynamic forcing chains from every start cell, in cell order."""
    cands, ctr = grid.cands, arena.counters
    nishio = rule.mode == NISHIO
    dynamic = rule.mode != MULTIPLE
    multiple = not nishio
    slots = np.empty(9, np.int64)
    places = np.empty((10, 2), np.int64)
    if nishio:  # the grid is the same at each start: each propagation restores it
        _digit_places(cands, places)
    _reset(arena, work)  # the cache too: the work arrays may have served another grid
    for cell in range(81):
        n = popcount(cands[cell])
        if values[cell] or not (n > 2 or (n > 1 and dynamic)):
            continue
        if not dynamic:
            quiet = _quiet_work(cell, grid, work.reach)
            if quiet >= 0:  # nothing to find from this cell: its work charged unsearched
                if _charge(ctr, quiet):
                    return
                continue
        _next_start(arena, work)
        n_digits = 0
        for d in range(1, 10):
            if not (cands[cell] >> d) & 1:
                continue
            k = cell * 20 + d * 2 + 1  # the candidate's "on" key
            if nishio:
                quiet = _nishio_quiet(cell, d, places)
                if quiet >= 0:  # no contradiction either way: nothing to find
                    if _charge(ctr, quiet):
                        return
                    continue
            slot = _binary_chaining(k, DIGIT_SLOT + n_digits, rule, grid, arena, work, hints)
            if slot < 0:
                return
            slots[n_digits] = slot
            n_digits += 1
            if not nishio and _region_chainings(k, slot, rule, grid, arena, work, hints) < 0:
                return
        if not nishio and (n == 2 or (multiple and n > 2)):
            start = _new_node(arena, cell, 0, 1, NO_CAUSE, -1)
            if start < 0:
                return
            _common_hints(Found(CELL, True, True, False, rule.base, n_digits, 0, 0, -1, start,
                                -1, 0), slots, grid, arena, work, hints)
        if ctr[STATUS] != OK:
            return


@compiled
def _run(values, cands_in, rule, grid, arena, work, hints):
    """The search of ``rule`` on the grid ``values``, ``cands_in``."""
    cands, pos, cands0, pos0 = grid.cands, grid.pos, grid.cands0, grid.pos0
    cands[:] = cands_in
    cands0[:] = cands_in
    pos[:, :] = 0
    for rg in range(27):
        for i in range(9):
            c = REGION_CELLS[rg, i]
            for d in range(1, 10):
                if (cands[c] >> d) & 1:
                    pos[rg, d] |= 1 << i
    pos0[:, :] = pos
    if rule.mode == STATIC:
        _static_rule(values, grid, arena, work, hints)
    elif rule.mode == MULTIPLE:  # not dynamic: the graph of links (XY) stays as it is
        _closure(2, _number_candidates(cands, work.reach), grid, work.reach)
        _chaining_rule(values, rule, grid, arena, work, hints)
        _forget_candidates(work.reach)
    else:
        _chaining_rule(values, rule, grid, arena, work, hints)


# -- the interface -------------------------------------------------------------------------------


class ChainSearch(NamedTuple):
    """What a chain rule found on a grid: its first hint (None when it has none, or when the
    search stopped over budget), the work spent (candidates taken off the search's queues, each
    once a search),
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
    **{RULES.index(reference.dynamic_forcing_chains_plus) + level - 1:
       _Rule(DYNAMIC, 9.5 + 0.5 * (level - 2), "Dynamic ", level, reference.nested_suffix(level))
       for level in range(2, 6)},  # the nested levels
}
CHAIN_RULES = tuple(sorted(COMPILED_RULES))
assert [RULES[r].__name__ for r in CHAIN_RULES[-4:]] == [
    f"nested_forcing_chains_{level}" for level in range(2, 6)]


def chain_rule_hint(rule: int, values: np.ndarray, cands: np.ndarray) -> Hint | None:
    """The first hint of the chain producer ``RULES[rule]`` (``solver.reference.se``) on the
    grid ``values`` (int8[81], 0 empty) and ``cands`` (int32[81], bit d for digit d): the
    reference's, same technique, difficulty, removals and placement."""
    return chain_rule_search(rule, values, cands).hint


def chain_rule_search(rule: int, values: np.ndarray, cands: np.ndarray,
                      max_work: int | None = None) -> ChainSearch:
    """``chain_rule_hint`` with its work counted, and stopped (``over_budget``, no hint) as
    soon as the work exceeds ``max_work``. The work is the reference's count: one per candidate
    taken off a queue of ``Chaining.propagate``, ``cycles`` or ``forcing_chains``, each once a
    search, nested searches included."""
    if rule not in COMPILED_RULES:
        raise ValueError(f"rule {rule} is not a chain rule (they are {CHAIN_RULES})")
    spec = COMPILED_RULES[rule]
    values = np.ascontiguousarray(values, dtype=np.int8)
    cands = np.ascontiguousarray(cands, dtype=np.int32)
    counts = _placed_and_empty(values)
    arena, work_arrays = _searching(-1 if max_work is None else max_work, spec.level >= 1)
    hints = _hints(collect=False)
    run, depth = _RUNS[min(spec.level, 5)]
    run(values, cands, Chaining(spec.mode, spec.level, spec.base, _below(values, counts, depth)),
        _grid(counts), arena, work_arrays, hints)
    counters = arena.counters
    work = int(counters[WORK])
    if counters[STATUS] == OVER_BUDGET_STATUS:
        return ChainSearch(None, work, True)
    if counters[STATUS] == OVERFLOW:  # out of room (never seen): the reference answers
        return _reference_search(rule, values, cands, max_work)
    if not hints.best[HAS]:
        return ChainSearch(None, work, False)
    return ChainSearch(_hint(spec, hints), work, False)


_THREAD = threading.local()


def _searching(max_work: int, inner_rules: bool) -> tuple[Arena, Work]:
    """This thread's node pools and work arrays for a search, made at its first and kept: a
    search touches megabytes of them (the cached propagations' nodes), and fresh arrays cost a
    page fault for each page touched, more than the search itself on most grids. The pools'
    counters start again; the ``_ancestors`` walk's stamp goes on counting (``work.stamp``
    keeps the stamps of earlier searches), and each rule empties the maps first (``_reset``),
    reading their keys from the nodes the last search left."""
    kept = _THREAD.__dict__.setdefault("searches", {})
    if inner_rules not in kept:
        kept[inner_rules] = (_arena(inner_rules), _work(inner_rules))
    arena, work = kept[inner_rules]
    counters = arena.counters
    stamp = counters[STAMP]
    counters[:] = 0
    counters[STAMP] = stamp
    counters[MAX_WORK] = max_work
    work.taken[:] = 0  # a static search stopped over budget may leave its last start's marks
    return arena, work


def _arena(inner_rules: bool) -> Arena:
    """The nodes of a search, without a budget; the room for inner rules' removals
    (``nested``, ``nested_of``) only for a search whose chains call inner rules (level 1 and
    up): most searches need none."""
    counters = np.zeros(8, np.int64)
    counters[MAX_WORK] = -1
    nested, nodes = (NESTED_CAPACITY, NODE_CAPACITY) if inner_rules else (1, 1)
    return Arena(np.empty((NODE_CAPACITY, 6), np.int32), np.empty(PARENT_CAPACITY, np.int32),
                 counters, np.empty((nested, 2), np.int64), np.empty(nodes, np.int32))


def _grid(counts: np.ndarray) -> ChainGrid:
    return ChainGrid(np.empty(81, np.int32), np.empty((27, 10), np.int32), np.empty(81, np.int32),
                     np.empty((27, 10), np.int32), counts)


def _hints(collect: bool) -> Hints:
    """The hints of a search: the least kept, or (``collect``, an inner rule's) every one."""
    room, data = (COLLECT_CAPACITY, COLLECT_DATA) if collect else (1, 1)
    collected = Collected(np.array([int(collect)], np.int64), np.zeros(3, np.int64),
                          np.empty((room, 6), np.int64), np.empty(room, np.float64),
                          np.empty(data, np.int64), np.empty(81, np.int32),
                          np.empty(81, np.int32), np.zeros(KEYS if collect else 1, np.int64),
                          np.empty(room, np.int64), np.empty(2 * room, np.int64))
    return Hints(np.empty(9, np.int32), np.empty((81, 2), np.int32), np.empty(81, np.int32),
                 np.zeros(BEST_FIELDS, np.int64), np.zeros(1, np.float64),
                 np.empty((81, 2), np.int32), np.zeros(81, np.uint8), np.empty(81, np.int32),
                 collected)


def _below(values: np.ndarray, counts: np.ndarray, depth: int) -> Below | None:
    """What the inner chain rules of a search ``depth`` levels of nesting deep run on (None for
    none): their own search's arrays, and below them their own inner rules'."""
    if depth == 0:
        return None
    memo = Memo(np.full(2 * MEMO_ENTRIES, -1, np.int64), np.empty((MEMO_ENTRIES, 162), np.int32),
                np.empty((MEMO_ENTRIES, 4), np.int64), np.empty(MEMO_DATA, np.int64),
                np.zeros(2, np.int64))
    nested = depth >= 2  # its searches' chains call inner rules (level 5's level 2)
    return Below(values, _grid(counts.copy()), _arena(nested), _work(nested),
                 _hints(collect=True), memo, _below(values, counts, depth - 1))


def _work(inner_rules: bool) -> Work:
    n_maps = SLOTS + CACHE_SLOTS
    maps = Maps(np.full((n_maps, KEYS), -1, np.int32), np.empty((n_maps, KEYS), np.int32),
                np.zeros(n_maps, np.int64))
    return Work(maps, np.empty(KEYS, np.int32), np.empty(QUEUE_CAPACITY + KEYS, np.int32),
                np.empty(64, np.int32), np.zeros(KEYS, np.int64),
                np.empty(QUEUE_CAPACITY, np.int32), np.empty(2, np.int32),
                inner_work(QUEUE_CAPACITY), np.empty(QUEUE_CAPACITY, np.int32),
                np.empty(4, np.int32), np.zeros(KEYS, np.uint8), np.empty(81, np.int32),
                np.empty(81, np.uint8), np.empty(81, np.int32), np.empty(81, np.int32),
                np.empty(NESTED_CAPACITY if inner_rules else 1, np.int64),
                np.full(KEYS, -1, np.int32), np.empty((CACHE_SLOTS, 4), np.int64),
                np.zeros(1, np.int64), _reach())


def _reach() -> Reach:
    nodes = np.empty(NODES, np.int32)
    return Reach(np.full(KEYS, -1, np.int32), nodes.copy(), np.empty(NODES + 1, np.int32),
                 np.empty(NODES * 16, np.int32), np.empty(NODES * 16, np.int32), nodes.copy(),
                 nodes.copy(), nodes.copy(), nodes.copy(), np.empty((NODES, 2), np.int32),
                 np.empty((NODES, WORDS), np.int64), np.empty(NODES, np.int64),
                 np.empty(NODES, np.int64), np.empty((2, WORDS), np.int64),
                 np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(NODES, np.int64),
                 nodes.copy(), np.empty((NODES, 2), np.int32), nodes.copy(), nodes.copy(),
                 nodes.copy(), np.zeros(NODES, np.int64))


def _placed_and_empty(values: np.ndarray) -> np.ndarray:
    """How often each digit is placed, then how many cells of each region are empty (what the
    inner rules read of the values, which a chain never changes)."""
    counts = np.zeros(EMPTY + 27, np.int64)
    counts[OCCURRENCES:OCCURRENCES + 10] = np.bincount(values, minlength=10)[:10]
    counts[EMPTY:] = (values[REGION_CELLS] == 0).sum(axis=1)
    return counts


def _says(cell: int, digit: int, on: int) -> str:
    return f"{name(cell)}{'=' if on else '<>'}{digit}"


def _hint(spec: _Rule, hints: Hints) -> Hint:
    """The reference's Hint of the best record (its detail line as the reference writes it)."""
    best = hints.best
    kind, x, y, absurd = int(best[KIND]), bool(best[X]), bool(best[Y]), bool(best[ABSURD])
    t0 = (int(best[T0_CELL]), int(best[T0_DIGIT]), int(best[T0_ON]))
    t1 = (int(best[T1_CELL]), int(best[T1_DIGIT]), int(best[T1_ON]))
    line = [int(c) for c in hints.best_line[:best[N_LINE]]]
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
    removals = {int(cell): int(mask) for cell, mask in hints.best_removals[:best[N_REMOVALS]]}
    placement = (int(best[PLACE_CELL]), int(best[PLACE_DIGIT])) if best[PLACE_CELL] >= 0 else None
    cells = [c for c in range(81) if hints.best_cells[c]]
    digits = [d for d in range(1, 10) if best[N_DIGITS_MASK] >> d & 1]
    return Hint(technique, float(hints.difficulty[0]), cells, digits, removals, placement, detail)


# -- the reference, counted (the rules not compiled yet) ------------------------------------------


@contextmanager
def counted_chain_work(max_work: int | None):
    """The reference's chains with their work counted by a meter of their own (the reference's
    ``Meter``: each search charges its work when it ends; past ``max_work`` the search that
    goes over raises ``reference.OverBudget``), as ``meter.spent``. Swaps the reference
    module's meter for the time: not for threads running the reference at the same time."""
    saved = reference.meter
    meter = reference.meter = reference.Meter(max_work)
    try:
        yield meter
    finally:
        reference.meter = saved


def _reference_search(rule: int, values, cands, max_work: int | None) -> ChainSearch:
    grid = Grid([int(v) for v in values], [int(m) for m in cands])
    with counted_chain_work(max_work) as meter:
        try:
            hint = next(iter(RULES[rule](grid)), None)
        except reference.OverBudget:
            return ChainSearch(None, meter.spent, True)
    return ChainSearch(hint, meter.spent, False)


# -- the nested levels: the search inside the search, one compiled copy a depth -----------------
# A nested chain (levels 2-5) runs whole chain rules inside its propagation (``_advanced``), and
# level 5 runs a level-2 search there, which runs its own. The functions between a rule's start
# and ``_advanced`` are compiled once more for each depth (``compiled_copies``), each copy's
# ``_nested_removals`` running the depth below: no compiled function calls itself.

# The search a depth below, which only the copies call (each binds its own): a function left
# out of the copies that called it would fail to compile, not run the wrong depth.
_inner_run = None
_SEARCH = {"_advanced": _advanced, "_propagate": _propagate, "_propagation_of": _propagation_of,
           "_binary_chaining": _binary_chaining,
           "_region_chainings": _region_chainings, "_chaining_rule": _chaining_rule,
           "_run": _run, "_nested_removals": _inner_chain_removals, "_memo_fill": _memo_fill}
_INLINED = frozenset(_SEARCH) - {"_propagate", "_run"}
_NESTED = compiled_copies(_SEARCH, "_nested", _INLINED, _inner_run=_run)  # levels 2-4
_NESTED_TWICE = compiled_copies(_SEARCH, "_nested_twice", _INLINED,
                                _inner_run=_NESTED["_run"])  # level 5
# A rule's level -> the search that runs it and how many levels of inner searches it needs.
_RUNS = {0: (_run, 0), 1: (_run, 0), 2: (_NESTED["_run"], 1), 3: (_NESTED["_run"], 1),
         4: (_NESTED["_run"], 1), 5: (_NESTED_TWICE["_run"], 2)}


def compile_nested() -> None:
    """Compile the nested levels' searches (minutes of one core), or load them, by asking
    levels 2 and 5 on a grid with nothing to search: numba compiles a function's whole call
    tree at its first call, and a rating meeting its first nested chain would stop there."""
    values = np.array([(r * 3 + r // 3 + c) % 9 + 1 for r in range(9) for c in range(9)], np.int8)
    cands = np.zeros(81, np.int32)
    cands[0] = 1 << int(values[0])
    values[0] = 0
    for level in (2, 5):
        chain_rule_search(CHAIN_RULES[-4] + level - 2, values, cands)
