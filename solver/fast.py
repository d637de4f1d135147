"""The fast engine: Bird's search on bit masks, compiled with numba, a whole batch per call.

It visits exactly the nodes of ``solver.bird.search`` (SPEC section 2) and reports the same numbers;
only the representation differs:

- a matrix of choices is 81 ``uint16`` masks, bit ``d - 1`` set when digit ``d`` is still possible;
- ``fix prune`` at the root is computed by sweeps of per-unit masks of placed digits, and below
  the root by a queue of new singletons (each cell's digit is taken out of its 20 peers once).
  Both reach the closure of naked-single elimination, the same matrix Bird's passes reach
  whenever the node is not blocked, and a blocked node is blocked either way. Under ``singles``
  the root computes that closure first, so ``prune_solvable`` costs no second pass, and a grid
  it completes (most of an easy dataset) skips the hidden-single sweep;
- ``prune`` once (variant ``once``) is Bird's pass, literally: rows, then columns, then boxes, each
  unit reduced by the singletons it held before its own reduction;
- hidden singles (rule set ``singles``) are found a unit at a time with two masks: digits seen at
  least once and digits seen more than once, in the units where some cell changed;
- the search is an explicit depth-first loop over a preallocated stack of 83 matrices: no
  allocation per node, nothing per node but a copy of 81 masks.

Everything is compiled with ``cache=True`` so a process pays the compilation once, ever.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

ALL = 0x1FF  # the nine digits


class Tables(NamedTuple):
    """The constant tables every compiled function reads (passed in, so caching works)."""

    units: np.ndarray  # (27, 9) cells of each unit: rows 0-8, columns 9-17, boxes 18-26
    peers: np.ndarray  # (81, 20) the cells sharing a unit with each cell
    unit_of: np.ndarray  # (81, 3) the row, column and box of each cell
    unit_bits: np.ndarray  # (81,) the same three units as bits of a 27-bit mask
    popcount: np.ndarray  # (512,) number of digits in a mask
    digit_of: np.ndarray  # (512,) the digit of a one-digit mask


def _tables() -> Tables:
    units = np.zeros((27, 9), np.int16)
    for i in range(9):
        units[i] = [9 * i + j for j in range(9)]
        units[9 + i] = [9 * j + i for j in range(9)]
        r0, c0 = 3 * (i // 3), 3 * (i % 3)
        units[18 + i] = [9 * (r0 + a) + c0 + b for a in range(3) for b in range(3)]
    peers = np.zeros((81, 20), np.int16)
    for cell in range(81):
        mine = {int(c) for u in units if cell in u for c in u} - {cell}
        peers[cell] = sorted(mine)
    unit_of = np.array([[c // 9, 9 + c % 9, 18 + 3 * (c // 27) + (c % 9) // 3] for c in range(81)],
                       np.int16)
    popcount = np.array([bin(m).count("1") for m in range(512)], np.int8)
    digit_of = np.zeros(512, np.uint8)
    for d in range(1, 10):
        digit_of[1 << (d - 1)] = d
    unit_bits = np.array([sum(1 << int(u) for u in units3) for units3 in unit_of], np.int32)
    return Tables(units, peers, unit_of, unit_bits, popcount, digit_of)


TABLES = _tables()
UNITS = TABLES.units
ALL_UNITS = (1 << 27) - 1

# clock_gettime(CLOCK_MONOTONIC) through the C library by symbol name: ~20 ns a call, and unlike
# a ctypes pointer it keeps the functions cacheable.
_clock_gettime = types.ExternalFunction("clock_gettime", types.int32(types.int32, types.voidptr))
CLOCK_MONOTONIC = 1


@intrinsic
def _as_voidptr(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@njit(cache=True)
def _now_ns(timespec):
    _clock_gettime(CLOCK_MONOTONIC, _as_voidptr(timespec.ctypes.data))
    return timespec[0] * 1_000_000_000 + timespec[1]


# -- propagation ----------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _eliminate(m, queue, head, tail, dirty, singles, t):
    """Take each queued singleton's digit out of its peers until the queue is empty.

    Returns (blocked, tail, dirty).  A peer that already is that singleton makes the matrix
    unsafe; a peer left with one digit joins the queue; ``dirty`` gains the units of every cell
    that changed (only those can hold a new hidden single; tracked only for ``singles``).
    """
    while head < tail:
        cell = queue[head]
        head += 1
        bit = np.int32(m[cell])
        for k in range(20):
            p = t.peers[cell, k]
            mp = np.int32(m[p])
            if mp & bit:
                if mp == bit:
                    return True, tail, dirty
                mp &= ~bit
                m[p] = mp
                if singles:
                    dirty |= t.unit_bits[p]
                if t.popcount[mp] == 1:
                    queue[tail] = p
                    tail += 1
    return False, tail, dirty


@njit(cache=True, inline="always")
def _hidden_singles(m, queue, tail, dirty, t):
    """Hidden singles in the ``dirty`` units.  Returns (blocked, tail, dirty): the new singletons
    are queued, and ``dirty`` is left with the units of the cells they changed.

    Per unit: ``once`` holds the digits seen at least once, ``more`` those seen twice or more, so
    ``once & ~more`` are the digits with exactly one home.  A digit with no home blocks the matrix,
    and so does a cell that is the only home of two digits (whichever it takes, the other has none).
    """
    changed = 0
    for u in range(27):
        if not (dirty >> u) & 1:
            continue
        once = 0
        more = 0
        for k in range(9):
            mc = np.int32(m[t.units[u, k]])
            more |= once & mc
            once |= mc
        if once != ALL:
            return True, tail, 0
        exactly = once & ~more
        if exactly == 0:
            continue
        for k in range(9):
            cell = t.units[u, k]
            mc = np.int32(m[cell])
            hit = mc & exactly
            if hit and t.popcount[mc] > 1:
                if t.popcount[hit] > 1:
                    return True, tail, 0
                m[cell] = hit
                changed |= t.unit_bits[cell]
                queue[tail] = cell
                tail += 1
    return False, tail, changed



@njit(cache=True, inline="always")
def _propagate_fixpoint(m, queue, tail, dirty, singles, t):
    """``fix prune`` (and, with ``singles``, hidden singles too) of a matrix whose unpropagated
    singletons are ``queue[:tail]`` and whose ``dirty`` units may hold hidden singles.
    Returns blocked."""
    head = 0
    while True:
        blocked, tail, dirty = _eliminate(m, queue, head, tail, dirty, singles, t)
        if blocked:
            return True
        if not singles:
            return False
        head = tail
        blocked, tail, dirty = _hidden_singles(m, queue, tail, dirty, t)
        if blocked:
            return True
        if tail == head:
            return False


@njit(cache=True, inline="always")
def _seed_root(grid, m, blanks, t):
    """``fix prune (choices grid)`` for the root, by sweeps over the blank cells; returns the
    number of cells it leaves open, or -1 when the root is blocked.

    ``placed[u]`` holds the digits of the singletons of unit ``u``; a blank may hold what none of
    its three units has placed, and one left with a single digit is placed in turn, until a
    sweep places nothing.  That is the closure of naked-single elimination, the fixpoint of
    ``prune``, reached without visiting peers one by one (most puzzles of a dataset are settled
    here).  A given repeated in a unit, or a blank with nothing left, blocks the root.
    """
    placed = np.zeros(27, np.int32)
    n_blanks = 0
    for cell in range(81):
        d = grid[cell]
        if d:
            bit = 1 << (d - 1)
            m[cell] = bit
            for k in range(3):
                u = t.unit_of[cell, k]
                if placed[u] & bit:
                    return -1
                placed[u] |= bit
        else:
            blanks[n_blanks] = cell
            n_blanks += 1
    progress = True
    while progress:
        progress = False
        still_open = 0
        for j in range(n_blanks):
            cell = blanks[j]
            units = t.unit_of[cell]
            left = ALL & ~(placed[units[0]] | placed[units[1]] | placed[units[2]])
            m[cell] = left
            if left == 0:
                return -1
            if t.popcount[left] == 1:
                placed[units[0]] |= left
                placed[units[1]] |= left
                placed[units[2]] |= left
                progress = True
            else:
                blanks[still_open] = cell
                still_open += 1
        n_blanks = still_open
    return n_blanks


@njit(cache=True, inline="always")
def _prune_once(m, t):
    """Bird's ``prune`` (one pass): rows, then columns, then boxes; returns ``blocked``."""
    for u in range(27):
        ones = 0
        for k in range(9):
            mc = np.int32(m[t.units[u, k]])
            if t.popcount[mc] == 1:
                ones |= mc
        for k in range(9):
            cell = t.units[u, k]
            mc = np.int32(m[cell])
            if t.popcount[mc] > 1:
                m[cell] = mc & ~ones
    return _blocked(m, t)


@njit(cache=True, inline="always")
def _blocked(m, t):
    """blocked m = void m || not (safe m)"""
    for cell in range(81):
        if m[cell] == 0:
            return True
    for u in range(27):
        seen = 0
        for k in range(9):
            mc = np.int32(m[t.units[u, k]])
            if t.popcount[mc] == 1:
                if seen & mc:
                    return True
                seen |= mc
    return False


@njit(cache=True, inline="always")
def _propagate(grid, m, seed, queue, root_open, once, singles, t):
    """Step 1 of a node: ``prune`` once, or to the fixpoint from the root's ``grid`` (``seed``
    < 0) or from a child's one newly fixed cell ``seed``.  Returns blocked.

    A fixpoint root also sets ``root_open[0]`` to the cells ``fix prune`` alone left open (-1:
    blocked); when it left none, hidden singles have nothing to do.
    """
    if once:
        if seed < 0:
            _load_choices(grid, m)
        return _prune_once(m, t)
    if seed < 0:
        still_open = _seed_root(grid, m, queue, t)
        root_open[0] = still_open
        if still_open <= 0:
            return still_open < 0
        tail = 0
        dirty = ALL_UNITS
    else:
        queue[0] = seed
        tail = 1
        dirty = t.unit_bits[seed]
    return _propagate_fixpoint(m, queue, tail, dirty, singles, t)


@njit(cache=True, inline="always")
def _pick_cell(m, first, t):
    """The cell to expand: the first open cell, or the first with the fewest choices; -1 when
    every cell is a singleton (complete)."""
    best = -1
    fewest = 10
    for cell in range(81):
        n = t.popcount[m[cell]]
        if n > 1 and n < fewest:
            best = cell
            fewest = n
            if first or n == 2:
                break
    return best


# -- the search -----------------------------------------------------------------------------------


@njit(cache=True)
def _contradictory(grid, t):
    """Givens repeat a digit in some unit."""
    for u in range(27):
        seen = 0
        for k in range(9):
            d = grid[t.units[u, k]]
            if d:
                bit = 1 << (d - 1)
                if seen & bit:
                    return True
                seen |= bit
    return False


@njit(cache=True)
def _load_choices(grid, m):
    """choices: a blank is every digit, a given d is {d}."""
    for cell in range(81):
        d = grid[cell]
        m[cell] = ALL if d == 0 else (1 << (d - 1))


@njit(cache=True)
def _solvable_by_propagation(grid, scratch, queue, root_open, singles, t):
    """``fix prune (choices g)`` (with ``singles``: and hidden singles) is complete, unblocked."""
    if _propagate(grid, scratch, -1, queue, root_open, False, singles, t):
        return False
    return _pick_cell(scratch, True, t) < 0


@njit(cache=True, inline="always")
def _search(grid, stack, cand, chosen, queue, root_open, solution, max_solutions, max_nodes,
            once, first, singles, t):
    """Depth-first search from ``choices grid``, as SPEC section 2.

    Returns (n_solutions, nodes, max_depth, budget_exceeded, root_complete).
    """
    n_solutions = 0
    nodes = 0
    max_depth = 0
    budget_exceeded = False
    root_complete = False
    depth = 0
    seed = -1
    while True:
        # Visit the node at ``depth``.
        if nodes >= max_nodes:
            budget_exceeded = True
            break
        nodes += 1
        if depth > max_depth:
            max_depth = depth
        m = stack[depth]
        cand[depth] = 0
        if not _propagate(grid, m, seed, queue, root_open, once, singles, t):
            cell = _pick_cell(m, first, t)
            if cell < 0:
                if depth == 0:
                    root_complete = True
                n_solutions += 1
                if n_solutions == 1:
                    for c in range(81):
                        solution[c] = t.digit_of[m[c]] + 48  # ASCII digits
                if n_solutions >= max_solutions:
                    break
            else:
                chosen[depth] = cell
                cand[depth] = m[cell]
        # Move to the next child: the smallest untried digit of the nearest open level.
        while depth >= 0 and cand[depth] == 0:
            depth -= 1
        if depth < 0:
            break
        rest = np.int32(cand[depth])
        bit = rest & -rest
        cand[depth] = rest & ~bit
        cell = chosen[depth]
        stack[depth + 1, :] = stack[depth, :]
        stack[depth + 1, cell] = bit
        depth += 1
        seed = cell
    return n_solutions, nodes, max_depth, budget_exceeded, root_complete


@njit(cache=True)
def solve_grids(grids, max_solutions, max_nodes, once, first, singles, t):
    """Solve every row of ``grids`` ((n, 81) uint8, 0 = blank, 1..9 = given) in one call, with
    the search variant given by ``once``, ``first``, ``singles`` and the ``TABLES`` as ``t``.

    Returns columns as arrays: contradictory, budget_exceeded, givens, n_solutions,
    prune_solvable, singles_solvable, search_depth, search_nodes, first_solution (ASCII digits,
    zero bytes when there is none), solve_ns.
    """
    n = grids.shape[0]
    contradictory = np.zeros(n, np.bool_)
    budget_exceeded = np.zeros(n, np.bool_)
    givens = np.zeros(n, np.int8)
    n_solutions = np.zeros(n, np.int32)
    prune_ok = np.zeros(n, np.bool_)
    singles_ok = np.zeros(n, np.bool_)
    depth = np.zeros(n, np.int32)
    nodes = np.zeros(n, np.int64)
    first_solution = np.zeros((n, 81), np.uint8)
    solve_ns = np.zeros(n, np.int64)

    stack = np.empty((83, 81), np.uint16)
    cand = np.empty(83, np.uint16)
    chosen = np.empty(83, np.int16)
    queue = np.empty(256, np.int16)
    root_open = np.empty(1, np.int32)
    scratch = np.empty(81, np.uint16)
    timespec = np.zeros(2, np.int64)

    for i in range(n):
        start = _now_ns(timespec)
        grid = grids[i]
        count = 0
        for c in range(81):
            if grid[c]:
                count += 1
        givens[i] = count
        found, visited, deepest, budget_hit, root_complete = _search(
            grid, stack, cand, chosen, queue, root_open, first_solution[i], max_solutions,
            max_nodes, once, first, singles, t)
        # Repeated givens block the root, so only a one-node, no-solution search needs the check.
        contradictory[i] = visited == 1 and found == 0 and _contradictory(grid, t)
        n_solutions[i] = found
        nodes[i] = visited
        depth[i] = deepest
        budget_exceeded[i] = budget_hit
        # A fixpoint root computes ``fix prune (choices g)`` first (then, under singles, goes
        # on with hidden singles); the ``once`` root is one pass, so propagate again to classify.
        if once:
            prune_ok[i] = _solvable_by_propagation(grid, scratch, queue, root_open, False, t)
        else:
            prune_ok[i] = root_open[0] == 0
        if prune_ok[i]:
            singles_ok[i] = True
        elif singles and not once:
            singles_ok[i] = root_complete
        else:
            singles_ok[i] = _solvable_by_propagation(grid, scratch, queue, root_open, True, t)
        solve_ns[i] = _now_ns(timespec) - start
    return (contradictory, budget_exceeded, givens, n_solutions, prune_ok, singles_ok, depth,
            nodes, first_solution, solve_ns)
