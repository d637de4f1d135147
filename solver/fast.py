"""The fast engine: Bird's search on bit masks, compiled with numba, a whole batch per call.

It visits exactly the nodes of ``solver.bird.search`` (SPEC section 2) and reports the same numbers;
only the representation differs:

- a matrix of choices is 81 ``uint16`` masks, bit ``d - 1`` set when digit ``d`` is still possible;
- ``fix prune`` is computed by a queue of new singletons (each cell's digit is taken out of its 20
  peers once).  Its fixpoint is the closure of naked-single elimination, the same matrix Bird's
  passes reach whenever the node is not blocked, and a blocked node is blocked either way;
- ``prune`` once (variant ``once``) is Bird's pass, literally: rows, then columns, then boxes, each
  unit reduced by the singletons it held before its own reduction;
- hidden singles (rule set ``singles``) are found a unit at a time with two masks: digits seen at
  least once and digits seen more than once;
- the search is an explicit depth-first loop over a preallocated stack of 82 matrices: no
  allocation per node, nothing per puzzle but a copy of 81 masks per node.

Everything is compiled with ``cache=True`` so a process pays the compilation once, ever.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

ALL = 0x1FF  # the nine digits


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Units (27 x 9: rows, columns, boxes), peers (81 x 20), each cell's 3 units, popcount and
    digit-of-bit tables."""
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
    return units, peers, unit_of, popcount, digit_of


UNITS, PEERS, UNIT_OF, POPCOUNT, DIGIT_OF = _tables()

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


@njit(cache=True)
def _eliminate(m, queue, head, tail, peers, popcount):
    """Take each queued singleton's digit out of its peers until the queue is empty.

    Returns (blocked, tail).  A peer that already is that singleton makes the matrix unsafe; a
    peer left with one digit joins the queue.
    """
    while head < tail:
        cell = queue[head]
        head += 1
        bit = np.int32(m[cell])
        for k in range(20):
            p = peers[cell, k]
            mp = np.int32(m[p])
            if mp & bit:
                if mp == bit:
                    return True, tail
                mp &= ~bit
                m[p] = mp
                if popcount[mp] == 1:
                    queue[tail] = p
                    tail += 1
    return False, tail


@njit(cache=True)
def _hidden_singles(m, queue, tail, units, popcount):
    """One sweep of the 27 units for hidden singles.  Returns (blocked, tail).

    Per unit: ``once`` holds the digits seen at least once, ``more`` those seen twice or more, so
    ``once & ~more`` are the digits with exactly one home.  A digit with no home blocks the matrix,
    and so does a cell that is the only home of two digits (whichever it takes, the other has none).
    """
    for u in range(27):
        once = 0
        more = 0
        for k in range(9):
            mc = np.int32(m[units[u, k]])
            more |= once & mc
            once |= mc
        if once != ALL:
            return True, tail
        exactly = once & ~more
        if exactly == 0:
            continue
        for k in range(9):
            cell = units[u, k]
            mc = np.int32(m[cell])
            hit = mc & exactly
            if hit and popcount[mc] > 1:
                if popcount[hit] > 1:
                    return True, tail
                m[cell] = hit
                queue[tail] = cell
                tail += 1
    return False, tail


@njit(cache=True)
def _propagate_fixpoint(m, queue, tail, peers, units, popcount, singles):
    """``fix prune`` (and, with ``singles``, hidden singles too) of a matrix whose unpropagated
    singletons are ``queue[:tail]``.  Returns blocked."""
    head = 0
    while True:
        blocked, tail = _eliminate(m, queue, head, tail, peers, popcount)
        if blocked:
            return True
        if not singles:
            return False
        head = tail
        blocked, tail = _hidden_singles(m, queue, tail, units, popcount)
        if blocked:
            return True
        if tail == head:
            return False


@njit(cache=True)
def _seed_root(grid, m, queue, unit_of, popcount):
    """``choices grid`` with every given's digit already taken out of its peers.

    Returns (blocked, tail): ``queue[:tail]`` are the blanks left with one digit, the only
    singletons still to propagate.  Equal to queueing every given, cheaper for the thousands of
    easy puzzles that never branch: a given repeated in a unit, or a blank with no digit left,
    blocks the root either way.
    """
    seen = np.zeros(27, np.int32)
    for cell in range(81):
        d = grid[cell]
        if d:
            bit = 1 << (d - 1)
            for k in range(3):
                u = unit_of[cell, k]
                if seen[u] & bit:
                    return True, 0
                seen[u] |= bit
    tail = 0
    for cell in range(81):
        d = grid[cell]
        if d:
            m[cell] = 1 << (d - 1)
        else:
            left = ALL & ~(seen[unit_of[cell, 0]] | seen[unit_of[cell, 1]] | seen[unit_of[cell, 2]])
            m[cell] = left
            if left == 0:
                return True, 0
            if popcount[left] == 1:
                queue[tail] = cell
                tail += 1
    return False, tail


@njit(cache=True)
def _prune_once(m, units, popcount):
    """Bird's ``prune`` (one pass): rows, then columns, then boxes; returns ``blocked``."""
    for u in range(27):
        ones = 0
        for k in range(9):
            mc = np.int32(m[units[u, k]])
            if popcount[mc] == 1:
                ones |= mc
        for k in range(9):
            cell = units[u, k]
            mc = np.int32(m[cell])
            if popcount[mc] > 1:
                m[cell] = mc & ~ones
    return _blocked(m, units, popcount)


@njit(cache=True)
def _blocked(m, units, popcount):
    """blocked m = void m || not (safe m)"""
    for cell in range(81):
        if m[cell] == 0:
            return True
    for u in range(27):
        seen = 0
        for k in range(9):
            mc = np.int32(m[units[u, k]])
            if popcount[mc] == 1:
                if seen & mc:
                    return True
                seen |= mc
    return False


@njit(cache=True)
def _propagate(grid, m, seed, queue, peers, units, unit_of, popcount, once, singles):
    """Step 1 of a node: ``prune`` once, or to the fixpoint from the root's ``grid`` (``seed``
    < 0) or from a child's one newly fixed cell ``seed``.  Returns blocked."""
    if once:
        if seed < 0:
            _load_choices(grid, m)
        return _prune_once(m, units, popcount)
    if seed < 0:
        blocked, tail = _seed_root(grid, m, queue, unit_of, popcount)
        if blocked:
            return True
    else:
        queue[0] = seed
        tail = 1
    return _propagate_fixpoint(m, queue, tail, peers, units, popcount, singles)


@njit(cache=True)
def _pick_cell(m, popcount, first):
    """The cell to expand: the first open cell, or the first with the fewest choices; -1 when
    every cell is a singleton (complete)."""
    best = -1
    fewest = 10
    for cell in range(81):
        n = popcount[m[cell]]
        if n > 1 and n < fewest:
            best = cell
            fewest = n
            if first or n == 2:
                break
    return best


# -- the search ------------------------------------------------------------------------------------


@njit(cache=True)
def _contradictory(grid, units):
    """Givens repeat a digit in some unit."""
    for u in range(27):
        seen = 0
        for k in range(9):
            d = grid[units[u, k]]
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
def _solvable_by_propagation(grid, scratch, queue, peers, units, unit_of, popcount, singles):
    """``fix prune (choices g)`` (with ``singles``: and hidden singles) is complete, unblocked."""
    if _propagate(grid, scratch, -1, queue, peers, units, unit_of, popcount, False, singles):
        return False
    return _pick_cell(scratch, popcount, True) < 0


@njit(cache=True)
def _search(grid, stack, cand, chosen, queue, solution, max_solutions, max_nodes,
            once, first, singles, peers, units, unit_of, popcount, digit_of):
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
        if not _propagate(grid, m, seed, queue, peers, units, unit_of, popcount, once, singles):
            cell = _pick_cell(m, popcount, first)
            if cell < 0:
                if depth == 0:
                    root_complete = True
                n_solutions += 1
                if n_solutions == 1:
                    for c in range(81):
                        solution[c] = digit_of[m[c]]
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
def solve_grids(grids, max_solutions, max_nodes, once, first, singles,
                peers, units, unit_of, popcount, digit_of):
    """Solve every row of ``grids`` ((n, 81) uint8, 0 = blank, 1..9 = given) in one call.

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
    solution = np.empty(81, np.uint8)
    scratch = np.empty(81, np.uint16)
    timespec = np.zeros(2, np.int64)
    ascii_zero = np.uint8(48)

    for i in range(n):
        start = _now_ns(timespec)
        grid = grids[i]
        count = 0
        for c in range(81):
            if grid[c]:
                count += 1
        givens[i] = count
        found, visited, deepest, budget_hit, root_complete = _search(
            grid, stack, cand, chosen, queue, solution, max_solutions, max_nodes,
            once, first, singles, peers, units, unit_of, popcount, digit_of)
        # Repeated givens block the root, so only a one-node, no-solution search needs the check.
        contradictory[i] = visited == 1 and found == 0 and _contradictory(grid, units)
        n_solutions[i] = found
        nodes[i] = visited
        depth[i] = deepest
        budget_exceeded[i] = budget_hit
        if found > 0:
            for c in range(81):
                first_solution[i, c] = solution[c] + ascii_zero
        # The search's root is ``fix prune (choices g)`` only for bird + fixpoint, and the
        # singles fixpoint only under ``singles``; otherwise propagate once more to classify.
        if once or singles:
            prune_ok[i] = _solvable_by_propagation(grid, scratch, queue, peers, units,
                                                   unit_of, popcount, False)
        else:
            prune_ok[i] = root_complete
        if prune_ok[i]:
            singles_ok[i] = True
        elif singles and not once:
            singles_ok[i] = root_complete
        else:
            singles_ok[i] = _solvable_by_propagation(grid, scratch, queue, peers, units,
                                                     unit_of, popcount, True)
        solve_ns[i] = _now_ns(timespec) - start
    return (contradictory, budget_exceeded, givens, n_solutions, prune_ok, singles_ok, depth, nodes,
            first_solution, solve_ns)
