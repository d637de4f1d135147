"""Generating puzzles (SPEC section 8): each candidate a pure function of (seed, draw, boxsize,
symmetry, minimal), compiled with numba, a batch of draws per call.

Draw j of seed s: a random number generator seeded from (s, j) (splitmix64, as SPEC 5.2's
copies are drawn) fills a complete grid by a randomised search (Bird's search with singles,
the digits of each expanded cell tried in a random order), then blanks the cells in a random
order, a whole orbit of the pattern symmetry at a time, keeping each blank only while the
solution stays unique (a search for a second solution). With ``minimal`` every orbit is tried
once, which leaves no given (no orbit) that could go: a removal that failed fails for every
smaller puzzle too. Without it the removal stops at the first orbit that cannot go.

Nothing here depends on the batch a draw is in, the workers, or the engine: a run of the same
seed gives the same puzzles whatever cuts its draws into batches. The uniqueness check has a
node budget of its own (``CHECK_NODES``), fixed, so that no setting changes a draw.

9 x 9 draws, the common case, have kernels of their own on 9-bit masks (the end of this
module): the same searches to the node, and a blanking that leaves another solution visible
in the solution itself (a "swap set" without a given) refused without a search; the other
sizes run the kernels of ``solver.compiled.search``. The tests hold the two equal on 9 x 9.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from solver.compiled import kernels_9x9
from solver.compiled.kernels import (
    add_to_set,
    copy,
    drop_from_set,
    lowest_bit_index,
    pick_cell,
    propagate,
    propagate_fixpoint,
    seed_root,
    single,
    work_arrays,
)
from solver.compiled.kernels_9x9 import ALL, ALL_UNITS, BIT_TABLES, QUEUE_LENGTH, STACK_DEPTH
from solver.grid import tables
from solver.jit import compiled
from solver.vocabulary import SYMMETRIES

# A removal whose uniqueness check needs more nodes than this is refused (the orbit stays):
# no 9 x 9 check comes near it; on sparse 25 x 25 grids it bounds the time a draw can take.
CHECK_NODES = 200_000


@functools.cache
def orbits(boxsize: int, symmetry: str) -> np.ndarray:
    """(orbits, 4) int32: the cells of each orbit of ``symmetry`` (-1 padding), in row-major
    order of their first cell: the cells a pattern with that symmetry gives or blanks
    together."""
    n = boxsize * boxsize

    def images(cell: int) -> list[int]:
        r, c = divmod(cell, n)
        moves = {
            "none": [],
            "rotate180": [(n - 1 - r, n - 1 - c)],
            "rotate90": [(c, n - 1 - r), (n - 1 - r, n - 1 - c), (n - 1 - c, r)],
            "mirror": [(r, n - 1 - c)],
            "diagonal": [(c, r)],
        }[symmetry]
        return [cell, *(row * n + col for row, col in moves)]

    seen: set[int] = set()
    found = []
    for cell in range(n * n):
        if cell not in seen:
            orbit = sorted(set(images(cell)))
            seen.update(orbit)
            found.append(orbit + [-1] * (4 - len(orbit)))
    return np.array(found, np.int32)


def candidates(seed: int, first: int, count: int, boxsize: int, symmetry: str = "none",
               minimal: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Draws ``first`` .. ``first + count - 1`` of ``seed``: (puzzles, solutions), each (count,
    C) uint8 values (0 = blank in a puzzle). Every puzzle has exactly one solution."""
    if symmetry not in SYMMETRIES:
        raise ValueError(f"symmetry must be one of {', '.join(SYMMETRIES)}; got {symmetry!r}")
    cells = boxsize**4
    puzzles = np.zeros((count, cells), np.uint8)
    solutions = np.zeros((count, cells), np.uint8)
    seed = np.uint64(seed % 2**64)
    if boxsize == 3:
        _candidates9(seed, first, puzzles, solutions, orbits(3, symmetry), minimal, BIT_TABLES)
        return puzzles, solutions
    _candidates(seed, first, puzzles, solutions, orbits(boxsize, symmetry), minimal,
                tables(boxsize))
    return puzzles, solutions


# -- random numbers ---------------------------------------------------------------------------


@compiled(inline="always")
def _mix(z):
    """splitmix64's finaliser: z a uint64."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@compiled(inline="always")
def _next(state):
    """The next number of the generator whose state is ``state[0]`` (splitmix64)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    return _mix(state[0])


@compiled(inline="always")
def _below(state, n):
    """A number from 0 to n - 1."""
    return np.int64(_next(state) % np.uint64(n))


@compiled(inline="always")
def _shuffled(state, n):
    """0 .. n - 1 in a random order (Fisher-Yates)."""
    order = np.arange(n)
    for i in range(n - 1, 0, -1):
        j = _below(state, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@compiled(inline="always")
def _nth_bit(bits, n):
    """The ``n``-th lowest set bit of ``bits`` (n from 0)."""
    bit = bits
    for _ in range(n + 1):
        bit = bits & -bits
        bits &= bits - 1
    return bit


# -- the searches' moves (both halves: numba compiles them for each) --------------------------


@compiled(inline="always")
def _enter_child(stack, untried, chosen, depth, bit):
    """Try digit ``bit`` at the cell expanded at ``depth``: the matrix of depth + 1 is that of
    ``depth`` with the cell fixed to it. Returns the cell."""
    untried[depth] = np.int64(untried[depth]) & ~bit
    cell = chosen[depth]
    copy(stack[depth + 1], stack[depth])
    stack[depth + 1, cell] = bit
    return cell


@compiled(inline="always")
def _own_digit_first(untried, digit):
    """The digit of ``untried`` a uniqueness check tries next: the solution's own ``digit``
    while untried (another solution differs from it in few cells, an unavoidable set, so
    following it finds one in a few nodes), else the smallest."""
    rest = np.int64(untried)
    bit = np.int64(1) << (digit - 1)
    return bit if rest & bit else rest & -rest


# -- a complete grid ----------------------------------------------------------------------------


@compiled
def _random_grid(state, work, grid, solution, tables):
    """A complete grid into ``solution``: a depth-first search from the blank grid, propagating
    naked and hidden singles at every node, expanding the first cell with the fewest choices
    and trying its digits in a random order; the first complete grid found."""
    cells = grid.shape[0]
    for cell in range(cells):
        grid[cell] = 0
    stack, untried, chosen = work.stack, work.untried, work.chosen
    depth = 0
    seed = -1
    while True:
        matrix = stack[depth]
        untried[depth] = 0
        if not propagate(grid, matrix, seed, work, False, True, tables):
            best = -1
            fewest = 64
            for cell in range(cells):
                choices = np.int64(matrix[cell])
                count = 0
                while choices:
                    choices &= choices - 1
                    count += 1
                if 1 < count < fewest:
                    best = cell
                    fewest = count
                    if count == 2:
                        break
            if best < 0:
                for cell in range(cells):
                    digit = 0
                    choices = np.int64(matrix[cell])
                    while choices > 1:
                        choices >>= 1
                        digit += 1
                    solution[cell] = digit + 1
                return
            chosen[depth] = best
            untried[depth] = matrix[best]
        while untried[depth] == 0:
            depth -= 1
        rest = np.int64(untried[depth])
        count = 0
        bits = rest
        while bits:
            bits &= bits - 1
            count += 1
        seed = _enter_child(stack, untried, chosen, depth, _nth_bit(rest, _below(state, count)))
        depth += 1


# -- blanking cells while the solution stays unique ---------------------------------------------


# Inlined into its one caller: compiled on its own it would link in and optimize the search below
# it once more (``solver.compiled.grade``'s docstring says why that costs compile time).
@compiled(inline="always")
def _reduce(state, work, puzzle, solution, placed, orbits, minimal, tables):
    """Blank the orbits of ``puzzle`` (the solution, to start) in a random order while the
    solution stays unique; with ``minimal`` every orbit is tried, else until one cannot go."""
    n_orbits = orbits.shape[0]
    order = _shuffled(state, n_orbits)
    for cell in range(puzzle.shape[0]):
        puzzle[cell] = solution[cell]
    # ``placed``: the digits given in each unit, kept up to date as cells go and come back
    # (``work.placed`` is the root's scratch). It comes allocated once a batch, this module's one
    # 8th parameter: allocated here, once a draw, 4 x 4 draws measured 1.05 times main's time,
    # passed in 1.02 (BENCHMARKS.md, issue 30).
    unit_of = tables.unit_of
    for unit in range(placed.shape[0]):
        placed[unit] = tables.full
    for k in range(n_orbits):
        orbit = orbits[order[k]]
        for m in range(4):
            if orbit[m] >= 0:
                _set(puzzle, placed, unit_of, orbit[m], 0, solution)
        if _forced(puzzle, solution, orbit, placed, tables.full, tables):
            continue
        if _another_solution(puzzle, solution, orbit, work, tables):
            for m in range(4):
                if orbit[m] >= 0:
                    _set(puzzle, placed, unit_of, orbit[m], solution[orbit[m]], solution)
            if not minimal:
                return


@compiled(inline="always")
def _set(puzzle, placed, unit_of, cell, value, solution):
    """Blank ``cell`` (``value`` 0) or give it back its digit, keeping ``placed`` in step."""
    bit = np.int64(1) << (solution[cell] - 1)
    puzzle[cell] = value
    for k in range(3):
        if value:
            placed[unit_of[cell, k]] |= bit
        else:
            placed[unit_of[cell, k]] &= ~bit


@compiled(inline="always")
def _forced(puzzle, solution, orbit, placed, full, tables):
    """Whether the givens alone force every blanked cell of ``orbit`` back to its digit, each as
    a naked single (its units' givens leave it one digit) or a hidden single (no other blank
    of one of its units may take the digit): then the puzzle says all the one before said,
    and its solution stays unique without a search. (Most removals of a full grid pass; this
    check is a few dozen operations where the search propagates the whole grid.) ``full``:
    the mask of every digit; the 9 x 9 half calls it too."""
    units, unit_of = tables.units, tables.unit_of
    for m in range(orbit.shape[0]):
        cell = orbit[m]
        if cell < 0:
            continue
        bit = np.int64(1) << (solution[cell] - 1)
        left = full & ~(placed[unit_of[cell, 0]] | placed[unit_of[cell, 1]]
                        | placed[unit_of[cell, 2]])
        if left == bit:
            continue
        hidden = False
        for k in range(3):
            unit = unit_of[cell, k]
            elsewhere = False
            for j in range(units.shape[1]):
                other = units[unit, j]
                if other != cell and puzzle[other] == 0 and not (
                        (placed[unit_of[other, 0]] | placed[unit_of[other, 1]]
                         | placed[unit_of[other, 2]]) & bit):
                    elsewhere = True
                    break
            if not elsewhere:
                hidden = True
                break
        if not hidden:
            return False
    return True


@compiled
def _another_solution(puzzle, solution, orbit, work, tables):
    """Whether ``puzzle``, whose only solution was ``solution`` before the cells of ``orbit``
    were blanked, now has another (or the check ran out of ``CHECK_NODES``).

    Another solution differs from ``solution`` in some cell of the orbit (else it would solve
    the puzzle before the blanking), so it is looked for with each orbit cell in turn denied
    its digit: a search for one solution, which usually ends at its root in a contradiction
    (far fewer nodes than counting solutions to 2)."""
    stack, untried, chosen = work.stack, work.untried, work.chosen
    nodes = 0
    for m in range(orbit.shape[0]):
        cell = orbit[m]
        if cell < 0:
            continue
        blocked = _denied_root(puzzle, stack[1], cell, solution[cell], work, tables)
        depth = 1
        seed = cell
        fresh = False  # level 1 is propagated already
        while True:
            nodes += 1
            if nodes > CHECK_NODES:
                return True
            matrix = stack[depth]
            untried[depth] = 0
            if fresh:
                blocked = propagate(puzzle, matrix, seed, work, False, True, tables)
            fresh = True
            if not blocked:
                best = pick_cell(matrix, False)
                if best < 0:
                    return True
                chosen[depth] = best
                untried[depth] = matrix[best]
            while depth >= 1 and untried[depth] == 0:
                depth -= 1
            if depth < 1:
                break
            bit = _own_digit_first(untried[depth], solution[chosen[depth]])
            seed = _enter_child(stack, untried, chosen, depth, bit)
            depth += 1
    return False


@compiled(inline="always")
def _denied_root(puzzle, matrix, cell, digit, work, tables):
    """The root of ``puzzle`` with ``cell`` denied ``digit``, propagated (naked and hidden
    singles) into ``matrix``; returns blocked. The naked singles of the givens are swept
    first, then the digit denied: what the sweeps found holds in every solution, so it holds
    in those without the digit there too."""
    if seed_root(puzzle, matrix, work.queue, work.placed, tables) < 0:
        return True
    rest = np.int64(matrix[cell]) & ~(np.int64(1) << (digit - 1))
    if rest == 0:
        return True
    matrix[cell] = rest
    tail = 0
    if single(rest):
        work.queue[0] = cell
        tail = 1
    for unit in range(work.dirty.shape[0]):
        work.dirty[unit] = 1
    return propagate_fixpoint(matrix, work.queue, tail, work.dirty, True, tables)


@compiled
def _candidates(seed, first, puzzles, solutions, orbits, minimal, tables):
    cells = puzzles.shape[1]
    work = work_arrays(tables)
    grid = np.zeros(cells, np.uint8)
    state = np.zeros(1, np.uint64)
    placed = np.zeros(tables.units.shape[0], np.int64)
    for i in range(puzzles.shape[0]):
        state[0] = _mix(seed ^ _mix(np.uint64(first + i) + np.uint64(0x9E3779B97F4A7C15)))
        _random_grid(state, work, grid, solutions[i], tables)
        _reduce(state, work, puzzles[i], solutions[i], placed, orbits, minimal, tables)


# -- 9 x 9: the same draws on 9-bit masks ---------------------------------------------------------
#
# The kernels above, on ``solver.compiled.kernels_9x9``' 9 x 9 propagation (``uint16`` masks, the
# dirty units as the bits of one integer): the same searches to the node, so the same puzzles, the
# node budget included. Two things are added: the root of each uniqueness check is swept from the
# digits given in each unit, kept up to date as cells go and come back, rather than from the puzzle;
# and a blanking that leaves some "swap set" without a given is refused without a search
# (``swap_sets``).

MAX_SWAP_SETS = 36 * 4  # a part holds two rows at least (a's column has b in another row)


@compiled
def swap_sets(solution, sets):
    """The swap sets of the complete grid ``solution`` into ``sets`` (each an 81-bit mask as two
    words, cells 0-63 and 64-80); returns how many.

    For two digits a and b, link the cell of a and the cell of b in each row, column and box:
    a connected part of the 18 cells of a and b may swap its two digits and stay a grid, a
    second solution of every puzzle that gives none of its cells. So a blanking that leaves
    such a part without a given leaves another solution, which the search would have found:
    that uniqueness check is refused at once (about 9 of the 24 refused a draw, measured)."""
    where = np.empty((9, 27), np.int16)  # where[d, unit]: the cell of digit d + 1 in the unit
    for cell in range(81):
        for k in range(3):
            where[solution[cell] - 1, BIT_TABLES.unit_of[cell, k]] = cell
    links = np.empty(9, np.int64)
    found = 0
    for a in range(9):
        for b in range(a + 1, 9):
            found = _swap_parts(where, a, b, links, sets, found)
    return found


@compiled(inline="always")
def _swap_parts(where, a, b, links, sets, found):
    """The parts of digits a and b into ``sets`` from ``found`` on; returns the new count. A row
    holds one cell of a and one of b, linked: the 18 cells are 9 nodes, by their row, which
    the columns and boxes link further (``links``: 9-bit masks of rows)."""
    links[:] = 0
    for unit in range(9, 27):
        i, j = where[a, unit] // 9, where[b, unit] // 9
        links[i] |= np.int64(1) << j
        links[j] |= np.int64(1) << i
    remaining = np.int64(0x1FF)
    while remaining:
        part = remaining & -remaining
        frontier = part
        sets[found, 0] = 0
        sets[found, 1] = 0
        while frontier:
            row = lowest_bit_index(frontier)
            frontier &= frontier - 1
            new = links[row] & ~part
            part |= new
            frontier |= new
            add_to_set(sets[found], where[a, row])
            add_to_set(sets[found], where[b, row])
        remaining &= ~part
        found += 1
    return found


@compiled(inline="always")
def _ungiven_set(sets, n_sets, given):
    """Whether one of the swap sets has no cell in ``given`` (a mask as ``swap_sets``')."""
    for k in range(n_sets):
        if not (sets[k, 0] & given[0]) and not (sets[k, 1] & given[1]):
            return True
    return False


class Work9(NamedTuple):
    """The arrays a 9 x 9 batch of draws works in (``work9``)."""

    stack: np.ndarray  # (STACK_DEPTH, 81) uint16: the matrix of each depth
    untried: np.ndarray  # (STACK_DEPTH,) uint16: the digits not yet tried at each depth
    chosen: np.ndarray  # (STACK_DEPTH,) int16: the cell expanded at each depth
    queue: np.ndarray  # (QUEUE_LENGTH,) int16: singletons to propagate
    blanks: np.ndarray  # (81,) int16: the blanks a root's sweeps look at
    placed: np.ndarray  # (27,) int32: the digits given in each unit
    swept: np.ndarray  # (27,) int32: the digits a root's sweeps placed in each unit
    given: np.ndarray  # (2,) uint64: the cells given, as ``swap_sets``' masks
    sets: np.ndarray  # (MAX_SWAP_SETS, 2) uint64: the swap sets of the solution


@compiled
def work9():
    return Work9(np.empty((STACK_DEPTH, 81), np.uint16), np.empty(STACK_DEPTH, np.uint16),
                 np.empty(STACK_DEPTH, np.int16), np.empty(QUEUE_LENGTH, np.int16),
                 np.empty(81, np.int16), np.empty(27, np.int32), np.empty(27, np.int32),
                 np.empty(2, np.uint64), np.empty((MAX_SWAP_SETS, 2), np.uint64))


@compiled
def _candidates9(seed, first, puzzles, solutions, orbits, minimal, tables):
    work = work9()
    state = np.zeros(1, np.uint64)
    for i in range(puzzles.shape[0]):
        state[0] = _mix(seed ^ _mix(np.uint64(first + i) + np.uint64(0x9E3779B97F4A7C15)))
        _random_grid9(state, work, solutions[i], tables)
        _reduce9(state, work, puzzles[i], solutions[i], orbits, minimal, tables)


@compiled(borrows=True)
def _random_grid9(state, work, solution, tables):
    """``_random_grid`` on 9-bit masks: the same nodes, the same random numbers."""
    stack, untried, chosen, queue = work.stack, work.untried, work.chosen, work.queue
    for cell in range(81):
        stack[0, cell] = ALL  # the blank grid: propagation finds nothing at the root
    depth = 0
    seed = -1
    while True:
        matrix = stack[depth]
        untried[depth] = 0
        blocked = False
        if seed >= 0:
            queue[0] = seed
            blocked = kernels_9x9.propagate_fixpoint(matrix, queue, 1, tables.unit_bits[seed], True,
                                                 tables)
        if not blocked:
            best = kernels_9x9.pick_cell(matrix, False, tables)
            if best < 0:
                for cell in range(81):
                    solution[cell] = tables.digit_of[matrix[cell]]
                return
            chosen[depth] = best
            untried[depth] = matrix[best]
        while untried[depth] == 0:
            depth -= 1
        rest = np.int64(untried[depth])
        seed = _enter_child(stack, untried, chosen, depth,
                            _nth_bit(rest, _below(state, tables.popcount[rest])))
        depth += 1


# Inlined into its one caller: compiled on its own it would link in and optimize the search below
# it once more (``solver.compiled.grade``'s docstring says why that costs compile time).
@compiled(inline="always")
def _reduce9(state, work, puzzle, solution, orbits, minimal, tables):
    """``_reduce`` on 9-bit masks, refusing at once a blanking that leaves a swap set ungiven."""
    n_orbits = orbits.shape[0]
    order = _shuffled(state, n_orbits)
    for cell in range(81):
        puzzle[cell] = solution[cell]
    placed = work.placed
    for unit in range(27):
        placed[unit] = ALL
    work.given[0] = np.uint64(0xFFFFFFFFFFFFFFFF)
    work.given[1] = np.uint64((1 << 17) - 1)
    n_sets = swap_sets(solution, work.sets)
    for k in range(n_orbits):
        orbit = orbits[order[k]]
        for m in range(4):
            if orbit[m] >= 0:
                _set9(puzzle, work, orbit[m], 0, solution, tables)
        if _forced(puzzle, solution, orbit, placed, ALL, tables):
            continue
        if (_ungiven_set(work.sets, n_sets, work.given)
                or _another_solution9(puzzle, solution, orbit, work, tables)):
            for m in range(4):
                if orbit[m] >= 0:
                    _set9(puzzle, work, orbit[m], solution[orbit[m]], solution, tables)
            if not minimal:
                return


@compiled(inline="always")
def _set9(puzzle, work, cell, value, solution, tables):
    """Blank ``cell`` (``value`` 0) or give it back its digit, keeping ``work.placed`` and
    ``work.given`` in step."""
    bit = np.int32(1) << (solution[cell] - 1)
    puzzle[cell] = value
    for k in range(3):
        unit = tables.unit_of[cell, k]
        if value:
            work.placed[unit] |= bit
        else:
            work.placed[unit] &= ~bit
    if value:
        add_to_set(work.given, cell)
    else:
        drop_from_set(work.given, cell)


@compiled(borrows=True)
def _another_solution9(puzzle, solution, orbit, work, tables):
    """``_another_solution`` on 9-bit masks: the same nodes, the same budget."""
    stack, untried, chosen, queue = work.stack, work.untried, work.chosen, work.queue
    nodes = 0
    for m in range(orbit.shape[0]):
        cell = orbit[m]
        if cell < 0:
            continue
        blocked = _denied_root9(puzzle, stack[1], cell, solution[cell], work, tables)
        depth = 1
        seed = cell
        fresh = False  # level 1 is propagated already
        while True:
            nodes += 1
            if nodes > CHECK_NODES:
                return True
            matrix = stack[depth]
            untried[depth] = 0
            if fresh:
                queue[0] = seed
                blocked = kernels_9x9.propagate_fixpoint(matrix, queue, 1, tables.unit_bits[seed], True,
                                              tables)
            fresh = True
            if not blocked:
                best = kernels_9x9.pick_cell(matrix, False, tables)
                if best < 0:
                    return True
                chosen[depth] = best
                untried[depth] = matrix[best]
            while depth >= 1 and untried[depth] == 0:
                depth -= 1
            if depth < 1:
                break
            bit = _own_digit_first(untried[depth], solution[chosen[depth]])
            seed = _enter_child(stack, untried, chosen, depth, bit)
            depth += 1
    return False


@compiled(inline="always")
def _denied_root9(puzzle, matrix, cell, digit, work, tables):
    """``_denied_root`` on 9-bit masks, its sweeps starting from ``work.placed``."""
    if _sweep_givens(puzzle, matrix, work, tables) < 0:
        return True
    rest = np.int32(matrix[cell]) & ~(np.int32(1) << (digit - 1))
    if rest == 0:
        return True
    matrix[cell] = rest
    tail = 0
    if tables.popcount[rest] == 1:
        work.queue[0] = cell
        tail = 1
    return kernels_9x9.propagate_fixpoint(matrix, work.queue, tail, ALL_UNITS, True, tables)


@compiled(inline="always")
def _sweep_givens(puzzle, matrix, work, tables):
    """``fix prune (choices puzzle)`` by ``kernels_9x9.sweep``, from the digits given in each
    unit (``work.placed``, so no unit is built again); the cells left open, or -1 when
    blocked."""
    swept, blanks = work.swept, work.blanks
    for unit in range(27):
        swept[unit] = work.placed[unit]
    n_blanks = 0
    for cell in range(81):
        digit = puzzle[cell]
        if digit:
            matrix[cell] = np.int32(1) << (digit - 1)
        else:
            blanks[n_blanks] = cell
            n_blanks += 1
    return kernels_9x9.sweep(matrix, blanks, n_blanks, swept, tables)
