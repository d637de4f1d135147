"""SPEC 5.1's ``grade`` for any box size, compiled with numba: the first rung of the ladder whose
closure solves the puzzle, the same as ``solver.reference.ladder.grade``.

A matrix of choices is C masks of N bits (``solver.compiled.search``'s propagation does the naked and
hidden singles). What this module adds, each rule an elimination pass over the matrix:

- **L**, locked candidates, over every place a box meets a line (b shared cells, the box's other
  N - b cells, the line's other N - b cells): a digit of the shared cells that the rest of the
  box lacks leaves the rest of the line (pointing), and one the rest of the line lacks leaves
  the rest of the box (claiming);
- **S**, subsets, per unit as a matching: the cells and digits of a unit form a bipartite graph,
  and SPEC's rule (k cells allowing exactly k digits between them, 1 <= k <= N - 1: those
  digits leave the unit's other cells) removes exactly the edges that lie in no perfect
  matching (Hall's theorem: an edge (c, d) in no perfect matching leaves a set of cells
  without c whose digits, d among them, are as many as they are). So one perfect matching and
  the cells each cell can reach by alternating paths give every elimination of every subset at
  once, in polynomial time, and a unit with no perfect matching is blocked (k cells allowing
  fewer than k digits). ``solver.reference.ladder`` enumerates the subsets, literally; the tests hold the
  two equal.

- **F**, fish, per digit and orientation on N-bit masks of the cover lines of each base line;
  only lines with at most k homes can be in a base of k lines, so only those are combined;
- **W**, wings, at the fixpoint of the rules below, where only the XY-wing and XYZ-wing can
  remove anything (``wings_pass`` says why): a pivot of 2 or 3 digits and two pincers of 2;
- **T1** and **T2**, trials: a copy of the matrix with one cell set, carried to its closure of
  N + H (T1) or N + H + T1 (T2) by the singles propagation, then asked for the rest of SPEC
  5.1's blocked (``stuck``: a crowded unit, a fish-blocked digit) on what the trial changed.

Speedups that never change a closure: each rung goes on from the closure of the one before;
cheap rules run first, and whatever a rule removes is propagated by singles before anything else
runs; a rung stops when its matrix is complete or blocked; S and F skip the units and digits
that are as they were when they last found nothing there (each rung from S up runs them again
after every change, mostly on what did not change); a trial stops at its first
contradiction; only open candidates are tried; and a trial
whose closure is not blocked tells that every digit it fixes is not blocked either
(monotonicity: that closure lies within the matrix with such a cell set), so those trials are
skipped until the matrix changes. The trials add three. Before T1, a search from the
puzzle's matrix (``_one_solution``) answers `search` at once when it finds no solution or two
(every closure holds every solution); otherwise T1 and T2 skip the trials of the solution's
digits in the puzzle's matrix, which never block. Each candidate's closure of singles (its
image, ``take_images``) blocks at once every trial inside T2's that it leaves a cell empty.
And T1 does not run on the puzzle's matrix
at the rung T2: a T1 trial that blocks is the first step of T2's trial of the same digit, which
blocks there too, so the closure is the same without the T1 passes, which find nothing on a
hard puzzle (every candidate's closure of singles, taken again after each T2 elimination).
The last T1 pass below T2 keeps its closures as the images (T2 starts on that pass's matrix),
and a T2 trial starts from its candidate's image (no propagation when the matrix has not
changed since).
On forum_hardest_1905 a puzzle took some 1,100 closures of singles, 430 of them these
repeats: the grade there runs in about 0.7 of the time it took (BENCHMARKS). Last, before
each T1 pass of the puzzle's matrix, every unit's perfect matching (``match_units``): a
trial's closure can crowd only the units where an open cell lost its matched digit, so only
those are scanned (about half of the units a trial touches; the rung `trial` in 0.8 of its
time on forum_hardest_1905). A trial with an image starts from the matrix & the image and
propagates only from the cells the matrix took digits from (``_blocked_within``: the same
closure). And a T2 pass puts off the trials that propagation alone does not block, whose whole
test costs most, to a pass that finds nothing else (``t2_pass``).

One implementation serves every box size, 9 x 9 included: on the old four rungs a 9 x 9
kernel of ``uint16`` masks graded about twice as fast (33,000 against 17,000 top1465 puzzles/s),
but the trials are nearly all of the grade's time now (about 1,000 puzzles/s). Everything is
compiled lazily, with ``solver.jit``'s on-disk cache.

Which functions are inlined (``inline="always"``) is chosen for the time to compile: numba links
every compiled function's callees into its own module and optimizes them again there, so each
level of calls compiles the code below it once more. The steps with one caller on the way down
(``_grade``, ``_close_rung``, ``_one_solution``, ``_singles_closure_blocked``, ``stuck``,
``_crowded``) are inlined: the grade compiles in about 0.77 of the time, and runs faster too
(BENCHMARKS). Inlining the other single-caller passes as well made ``_grade_batch`` one function
too large for LLVM: slower to compile than before.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.compiled.kernels import (
    add_to_set,
    clear,
    close_singles,
    copy,
    lowest_bit_index,
    mark,
    pick_cell,
    popcount,
    propagate_fixpoint,
    seed_root,
    settle,
    single,
    work_arrays,
)
from solver.grid import tables
from solver.jit import compiled
from solver.vocabulary import DEFAULT_GRADE_LIMIT, GRADES

PRUNE, SINGLES, INTERSECTIONS, SUBSETS, FISH, WINGS, TRIAL, TRIAL2, SEARCH = range(len(GRADES))


def grades(grids: np.ndarray, boxsize: int, limit: str = DEFAULT_GRADE_LIMIT,
           solutions: np.ndarray | None = None) -> np.ndarray:
    """SPEC 5.1 for every row of ``grids`` ((n, C) values, 0 = blank), the rungs up to ``limit``
    tried: int8 indexes into ``GRADES`` ("search" for a puzzle none of them solves, a blocked
    one included).

    ``solutions`` ((n, C) values), where given, holds a row's only solution when a search has
    shown it unique (a row of zeros where that is not known): the grade then skips its own
    search for it (``_one_solution``), a sixth of its time on forum_hardest_1905."""
    grids = np.ascontiguousarray(grids, dtype=np.uint8).reshape(-1, boxsize**4)
    if solutions is None:
        solutions = np.zeros_like(grids)
    solutions = np.ascontiguousarray(solutions, dtype=np.uint8).reshape(grids.shape)
    out = np.empty(len(grids), np.int8)
    _grade_batch(grids, solutions, out, tables(boxsize), GRADES.index(limit))
    return out


@compiled(inline="always")
def fish_limit(tables):
    """The largest fish F looks for: k base lines, k at most 4 and at most N / 2."""
    return min(4, tables.size // 2)


# -- the closure ------------------------------------------------------------------------------


@compiled(borrows=True)
def lock_pass(matrix, tables):
    """One pass of L over the box/line meetings; returns (blocked, changed)."""
    meetings, b = tables.meetings, tables.boxsize
    n_rest = meetings.shape[1] - b
    rest = n_rest // 2
    changed = False
    for meeting in range(meetings.shape[0]):
        cells = meetings[meeting]
        shared = np.int64(0)
        for k in range(b):
            shared |= matrix[cells[k]]
        box_rest = np.int64(0)
        line_rest = np.int64(0)
        for k in range(rest):
            box_rest |= matrix[cells[b + k]]
            line_rest |= matrix[cells[b + rest + k]]
        pointing = shared & ~box_rest & line_rest
        claiming = shared & ~line_rest & box_rest
        for k in range(rest):
            for side in range(2):  # pointing takes from the line's rest, claiming the box's
                digits = pointing if side == 0 else claiming
                if digits:
                    cell = cells[b + k + (rest if side == 0 else 0)]
                    after = np.int64(matrix[cell]) & ~digits
                    if after != matrix[cell]:
                        matrix[cell] = after
                        changed = True
                        if after == 0:
                            return True, changed
    return False, changed


@compiled(borrows=True)
def subsets_pass(matrix, tables, match, owner, reach, quiet):
    """One pass of S over every unit, as a matching (see the module); returns (blocked,
    changed). ``match``, ``owner`` and ``reach`` are work arrays of N entries.

    What S does in a unit depends on its cells alone, so a unit whose cells are as they were
    when S last found nothing in it (``quiet[unit]``, -1 when never) is skipped: each rung
    from S up runs S again after anything changes anywhere, mostly on units it left alone."""
    units = tables.units
    n = tables.size
    changed = False
    for unit in range(units.shape[0]):
        if _unchanged(matrix, units[unit], quiet[unit]):
            continue
        if not _perfect_matching(matrix, units[unit], match, owner):
            return True, changed
        # reach[i]: the cells (bits) cell i reaches by alternating paths: i allows digit d, d is
        # matched to cell owner[d], and so on.
        for i in range(n):
            allowed = np.int64(matrix[units[unit, i]]) & ~(np.int64(1) << match[i])
            step = np.int64(0)
            while allowed:
                d = lowest_bit_index(allowed)
                allowed &= allowed - 1
                step |= np.int64(1) << owner[d]
            reach[i] = step
        for k in range(n):  # transitive closure, a cell at a time (Floyd-Warshall on bits)
            through = np.int64(1) << k
            for i in range(n):
                if reach[i] & through:
                    reach[i] |= reach[k]
        for i in range(n):
            cell = units[unit, i]
            choices = np.int64(matrix[cell])
            keep = np.int64(1) << match[i]
            others = choices & ~keep
            while others:
                d = lowest_bit_index(others)
                others &= others - 1
                if (reach[owner[d]] >> i) & 1:  # a cycle i -> owner[d] -> ... -> i
                    keep |= np.int64(1) << d
            if keep != choices:
                matrix[cell] = keep
                changed = True
                quiet[unit, 0] = -1
    return False, changed


@compiled(inline="always")
def _unchanged(matrix, cells, quiet):
    """Whether ``cells`` hold ``quiet`` (their masks when a pass last found nothing there);
    they are stored meanwhile, for the pass to forget (``quiet[0] = -1``) if it finds
    something."""
    same = True
    for k in range(cells.shape[0]):
        if quiet[k] != matrix[cells[k]]:
            same = False
            quiet[k] = matrix[cells[k]]
    return same


@compiled(borrows=True)
def _perfect_matching(matrix, cells, match, owner):
    """A matching of every cell of the unit ``cells`` to a digit it allows, each digit once
    (augmenting paths); False when there is none."""
    n = cells.shape[0]
    for d in range(n):
        owner[d] = -1
    for i in range(n):
        match[i] = -1
    for i in range(n):
        if not _augment(matrix, cells, i, match, owner, np.int64(0)):
            return False
    return True


@compiled(borrows=True)
def _augment(matrix, cells, i, match, owner, visited):
    """Find a digit for cell ``i``, moving other cells to other digits as needed (depth-first;
    ``visited`` holds the digits seen on this path, as bits). Recursion depth is at most N."""
    allowed = np.int64(matrix[cells[i]]) & ~visited
    while allowed:
        d = lowest_bit_index(allowed)
        allowed &= allowed - 1
        visited |= np.int64(1) << d
        if owner[d] < 0 or _augment(matrix, cells, owner[d], match, owner, visited):
            owner[d] = i
            match[i] = d
            return True
    return False


@compiled(borrows=True)
def complete(matrix):
    for cell in range(matrix.shape[0]):
        if not single(np.int64(matrix[cell])):
            return False
    return True


@compiled
def _grade_batch(grids, solutions, out, tables, limit):
    """``out[i]``: the index in GRADES of row i's grade, trying the rungs up to ``limit``
    (``solutions[i]``: row i's only solution, or zeros: ``grades``)."""
    cells = grids.shape[1]
    work = work_arrays(tables)
    trials = trial_arrays(tables)
    matrix = np.empty(cells, np.int32)
    for i in range(grids.shape[0]):
        out[i] = _grade(grids[i], solutions[i], matrix, work, trials, tables, limit)


@compiled(inline="always")
def _grade(grid, solution, matrix, work, trials, tables, limit):
    """The first rung up to ``limit`` whose closure is complete and unblocked; each rung goes on
    from the closure of the one before (any order of the rules reaches the same closure)."""
    first = _root(grid, matrix, work, tables, limit)
    if first >= 0:
        return first
    trials.quiet_units[:, :] = -1  # nothing known of this puzzle's units and digits yet
    trials.quiet_fish[:, :] = -1
    trials.imaged[:] = 0
    trials.stamp[0] = 1  # the puzzle's matrix as it is now (``Trials.stamp``)
    trials.stamp[1] = 0
    trials.solution[0] = -1  # not looked for, unless a search found it the only one
    if solution[0]:
        for cell in range(solution.shape[0]):
            trials.solution[cell] = np.int32(1) << (solution[cell] - 1)
    for rung in range(INTERSECTIONS, limit + 1):
        if _close_rung(matrix, rung, work, trials, tables):
            return SEARCH
        if complete(matrix):
            return rung
    return SEARCH


@compiled(borrows=True)
def _root(grid, matrix, work, tables, limit):
    """The first two rungs: PRUNE or SINGLES where their closure completes, SEARCH where it is
    blocked or ``limit`` stops below singles, else -1 (``matrix`` at the closure of N + H).
    Compiled on its own, not inlined, so that ``_grade_batch``, which compiles last, after
    both processes' halves (``compile_passes``), compiles 1.1 s less of it."""
    still_open = seed_root(grid, matrix, work.queue, work.placed, tables)
    if still_open < 0:
        return SEARCH
    if still_open == 0:
        return PRUNE
    if limit < SINGLES:
        return SEARCH
    for unit in range(work.dirty.shape[0]):
        work.dirty[unit] = 1
    if propagate_fixpoint(matrix, work.queue, 0, work.dirty, True, tables):
        return SEARCH
    if complete(matrix):
        return SINGLES
    return -1


@compiled(inline="always")
def _close_rung(matrix, rung, work, trials, tables):
    """Carry ``matrix`` from the closure of the rung below to the closure of ``rung``; returns
    True when no closure can complete from here: blocked, or (``_one_solution``) the matrix holds
    no solution or several. Cheap rules first: a rule runs only when the ones before it change
    nothing, and whatever it removes is propagated by singles before anything else runs."""
    while True:
        blocked, changed = lock_pass(matrix, tables)
        if not blocked and not changed and rung >= SUBSETS:
            blocked, changed = subsets_pass(matrix, tables, trials.match, trials.owner,
                                            trials.reach, trials.quiet_units)
        if not blocked and not changed and rung >= FISH:
            blocked, changed = fish_pass(matrix, tables, trials)
        if not blocked and not changed and rung >= WINGS:
            changed = wings_pass(matrix, tables)
        if not blocked and not changed and rung >= TRIAL and not _one_solution(matrix, work,
                                                                               tables, trials):
            return True
        if not blocked and not changed and rung == TRIAL:  # T2 finds what T1 finds: not above
            trials.stamp[1] = 1  # its closures are kept as images, its units' matchings used
            match_units(matrix, tables, trials)
            blocked, changed = t1_pass(matrix, work, tables, trials)
            trials.stamp[1] = 0
        if not blocked and not changed and rung >= TRIAL2:
            take_images(matrix, work, tables, trials)
            blocked, changed = t2_pass(matrix, work, tables, trials)
        if blocked:
            return True
        if not changed:
            return False
        trials.stamp[0] += 1
        if close_singles(matrix, work, tables):
            return True
        if complete(matrix):
            return False


# -- F: fish ----------------------------------------------------------------------------------


@compiled(borrows=True)
def fish_pass(matrix, tables, trials):
    """One pass of F, both orientations: for each digit, ``lines[i]`` holds the cover lines where
    base line i allows it; a base of k lines whose union is k cover lines takes the digit out of
    the cover lines' other cells, and one whose union is smaller blocks the matrix (SPEC 5.1).
    Returns (blocked, changed).

    Only lines of 2 to k homes can matter in such a base: the pass runs where singles are at
    their fixpoint (each rung's loop propagates them before anything else runs), and there a
    line with one home holds the digit placed, alone in its cover line too, so a base with it
    is the smaller base of the others plus that line (the same eliminations, the same
    block; as ``_fish_blocked_at_fixpoint``). Mid-pass, after an elimination, that may
    miss a fish, which the pass after the singles' propagation finds (the rung repeats
    until a pass changes nothing). And what F does with a digit depends on the digit's
    homes alone, so a digit whose homes row by row are as they were when F last found
    nothing for it (``quiet[d]``, -1 when never) is skipped: the rungs from F up run it
    again after every change elsewhere."""
    n, kmax = tables.size, fish_limit(tables)
    lines, small, picks, quiet = trials.lines, trials.small, trials.picks, trials.quiet_fish
    changed = False
    for d in range(n):
        bit = np.int64(1) << d
        same = True
        for i in range(n):  # the rows' homes, compared with quiet and stored there meanwhile
            homes = _homes(matrix, i, n, 0, bit)
            if homes != quiet[d, i]:
                same = False
                quiet[d, i] = homes
        if same:
            continue
        for across in range(2):
            for i in range(n):
                lines[i] = _homes(matrix, i, n, across, bit)
            for k in range(2, kmax + 1):
                n_small = 0
                for i in range(n):
                    if 2 <= popcount(lines[i]) <= k:
                        small[n_small] = i
                        n_small += 1
                if n_small < k:
                    continue
                for j in range(k):  # the first k-subset of small, as indexes into it
                    picks[j] = j
                while True:
                    cover = np.int64(0)
                    for j in range(k):
                        cover |= lines[small[picks[j]]]
                    size = popcount(cover)
                    if size < k:
                        return True, changed
                    if size == k and _take_fish(matrix, n, across, bit, cover, k, trials):
                        changed = True
                        quiet[d, 0] = -1
                    if not _next_subset(picks, k, n_small):
                        break
    return False, changed


@compiled(inline="always")
def _homes(matrix, i, n, across, bit):
    """The cover lines where line i (row i, or column i when ``across``) allows ``bit``."""
    homes = np.int64(0)
    for j in range(n):
        if np.int64(matrix[_line_cell(i, j, n, across)]) & bit:
            homes |= np.int64(1) << j
    return homes


@compiled(inline="always")
def _line_cell(i, j, n, across):
    """Cell j of row i, or of column i when ``across``."""
    return j * n + i if across else i * n + j


@compiled(borrows=True)
def _take_fish(matrix, n, across, bit, cover, k, trials):
    """``bit`` leaves the cells of the ``cover`` lines outside the base lines (``trials.small``
    picked by ``trials.picks``); returns changed."""
    small, picks = trials.small, trials.picks
    base = np.int64(0)
    for j in range(k):
        base |= np.int64(1) << small[picks[j]]
    changed = False
    for i in range(n):
        if (base >> i) & 1:
            continue
        rest = cover
        while rest:
            j = lowest_bit_index(rest)
            rest &= rest - 1
            cell = _line_cell(i, j, n, across)
            if np.int64(matrix[cell]) & bit:
                matrix[cell] = np.int64(matrix[cell]) & ~bit
                changed = True
    return changed


@compiled(inline="always")
def _next_subset(picks, k, n):
    """The next k-subset of 0..n-1 in lexicographic order, in place; False after the last."""
    j = k - 1
    while j >= 0 and picks[j] == n - k + j:
        j -= 1
    if j < 0:
        return False
    picks[j] += 1
    for i in range(j + 1, k):
        picks[i] = picks[i - 1] + 1
    return True


# -- W: wings ---------------------------------------------------------------------------------


@compiled(inline="always")
def _sees(a, b, unit_of):
    """Two different cells sharing a row, a column or a box."""
    return a != b and (unit_of[a, 0] == unit_of[b, 0] or unit_of[a, 1] == unit_of[b, 1]
                       or unit_of[a, 2] == unit_of[b, 2])


@compiled(borrows=True)
def wings_pass(matrix, tables):
    """One pass of W at the fixpoint of N, H, L, S and F; returns changed.

    There, only the XY-wing and the XYZ-wing can remove anything: a pincer A_v allowing one digit
    would be a singleton whose digit P (or the cells seeing it) lost already, a cell P of two
    digits with z among them makes a naked pair with its pincer (S), a singleton P is N's. So
    P has two or three digits and two pincers of two digits each, A_x = {x, z} and A_y = {y, z}:
    z is the digit they share, and the others are P's (with z too, for an XYZ-wing).
    """
    changed = False
    peers = tables.peers
    n_peers = peers.shape[1]
    for p in range(matrix.shape[0]):
        pivot = np.int64(matrix[p])
        size = popcount(pivot)
        if size < 2 or size > 3:
            continue
        for i in range(n_peers):
            a = peers[p, i]
            first = np.int64(matrix[a])
            if popcount(first) != 2:
                continue
            for j in range(i + 1, n_peers):
                b = peers[p, j]
                second = np.int64(matrix[b])
                if popcount(second) != 2 or second == first:
                    continue
                z = first & second
                if not single(z) or (pivot & ~z) != ((first | second) & ~z):
                    continue
                if popcount(pivot & ~z) != 2:
                    continue
                if _take_wing(matrix, p, a, b, z, (pivot & z) != 0, tables):
                    changed = True
    return changed


@compiled(borrows=True)
def _take_wing(matrix, p, a, b, z, with_pivot, tables):
    """``z`` leaves every cell but P that sees both pincers (and P too, ``with_pivot``)."""
    peers, unit_of = tables.peers, tables.unit_of
    changed = False
    for k in range(peers.shape[1]):
        t = peers[a, k]
        if t == p or t == b or not (np.int64(matrix[t]) & z):
            continue
        if _sees(t, b, unit_of) and (not with_pivot or _sees(t, p, unit_of)):
            matrix[t] = np.int64(matrix[t]) & ~z
            changed = True
    return changed


# -- T1 and T2: trials ------------------------------------------------------------------------


class Trials(NamedTuple):
    """The work arrays of the rules past W (allocated once per batch); per depth, index 0 is
    T1's (a T1 trial of the matrix, or of a T2 trial's), index 1 is T2's."""

    tried: np.ndarray  # (2, C) int32: per depth, a trial's matrix
    known: np.ndarray  # (2, C) int32: per depth, the digits whose trial is known not to block
    images: np.ndarray  # (C * N, C) int32: per candidate (cell * N + digit), its image
    imaged: np.ndarray  # (C * N,) int64: the stamp of the matrix each image is of, 0 none
    # (5,) int64: the puzzle's matrix's stamp, 1 while T1 runs on it, 1 while a T2 trial's
    # closures are blocked by propagation only (``_t1_trial_blocked``), 1 while a T2 pass
    # puts off the trials that need the whole test, and how many it put off (``t2_pass``)
    stamp: np.ndarray
    matched: np.ndarray  # (C, 3) int64: per cell, the digit (bit) matched to it in each of its units
    broken: np.ndarray  # (3N,) uint8: the units where a trial took a cell's matched digit
    solution: np.ndarray  # (C,) int32: a solution's masks; [0] = -1 not looked for, 0 none
    lines: np.ndarray  # (N,) int64: a digit's homes, line by line (fish)
    small: np.ndarray  # (N,) int64: the lines of few homes (fish)
    picks: np.ndarray  # (4,) int64: a subset of them (fish)
    match: np.ndarray  # (N,) int64: a unit's matching (subsets, crowded)
    owner: np.ndarray  # (N,) int64
    reach: np.ndarray  # (N,) int64
    touched: np.ndarray  # (3N,) uint8: the units where a trial changed a cell
    open_cells: np.ndarray  # (N,) int16: a unit's open cells
    homes: np.ndarray  # (2, N, N) int64: per orientation, digit and line, the cover lines
    quiet_units: np.ndarray  # (3N, N) int32: per unit, its cells when S last found nothing
    quiet_fish: np.ndarray  # (N, N) int64: per digit, its rows' homes when F last found nothing
    unit_sets: np.ndarray  # (3N, W) uint64: each unit's cells (``kernels.add_to_set``'s sets)
    at_most: np.ndarray  # (N + 1, W) uint64: the open cells of at most so many digits (stuck)


@compiled
def trial_arrays(tables):
    cells, n = tables.unit_of.shape[0], tables.size
    words = (cells + 63) >> 6
    unit_sets = np.zeros((3 * n, words), np.uint64)
    for unit in range(3 * n):
        for k in range(n):
            add_to_set(unit_sets[unit], tables.units[unit, k])
    return Trials(np.empty((2, cells), np.int32), np.empty((2, cells), np.int32),
                  np.empty((cells * n, cells), np.int32), np.zeros(cells * n, np.int64),
                  np.zeros(5, np.int64), np.zeros((cells, 3), np.int64), np.zeros(3 * n, np.uint8),
                  np.full(cells, -1, np.int32),
                  np.empty(n, np.int64), np.empty(n, np.int64), np.empty(4, np.int64),
                  np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
                  np.empty(3 * n, np.uint8), np.empty(n, np.int16),
                  np.empty((2, n, n), np.int64),
                  np.full((3 * n, n), -1, np.int32), np.full((n, n), -1, np.int64),
                  unit_sets, np.empty((n + 1, words), np.uint64))


@compiled(inline="always")
def stuck(matrix, start, tables, trials):
    """The rest of SPEC 5.1's blocked, past what propagation finds, for a matrix at the N + H
    fixpoint: k cells of a unit allowing fewer than k digits, or a fish-blocked digit.

    ``matrix`` came from ``start`` (a matrix known not to be blocked) by removing digits, so
    only the units where a cell changed, and the digits that left some cell, can be blocked
    now.
    """
    units, unit_of = tables.units, tables.unit_of
    n, kmax = tables.size, fish_limit(tables)
    changed_digits = np.int64(0)
    touched, at_most = trials.touched, trials.at_most
    for unit in range(units.shape[0]):
        touched[unit] = 0
    for size in range(n + 1):
        for w in range(at_most.shape[1]):
            at_most[size, w] = 0
    homes = trials.homes  # of every digit, for ``_fish_blocked_at_fixpoint``, in the same pass
    for across in range(2):
        for d in range(n):
            for i in range(n):
                homes[across, d, i] = 0
    for cell in range(matrix.shape[0]):
        choices = np.int64(matrix[cell])
        add_to_set(at_most[popcount(choices)], cell)
        if not single(choices):
            r, c = cell // n, cell % n
            rest = choices
            while rest:
                d = lowest_bit_index(rest)
                rest &= rest - 1
                homes[0, d, r] |= np.int64(1) << c
                homes[1, d, c] |= np.int64(1) << r
        if choices != start[cell]:
            changed_digits |= np.int64(start[cell]) & ~choices
            touched[unit_of[cell, 0]] = 1
            touched[unit_of[cell, 1]] = 1
            touched[unit_of[cell, 2]] = 1
    for size in range(3, n + 1):  # open cells only: of 2 digits and up
        for w in range(at_most.shape[1]):
            at_most[size, w] |= at_most[size - 1, w]
    matched = trials.stamp[1] == 1  # T1 on the puzzle's matrix: ``match_units`` of it
    if matched:
        _broken_units(matrix, unit_of, trials)
    for unit in range(units.shape[0]):
        if (touched[unit] and (not matched or trials.broken[unit])
                and _may_crowd(trials.unit_sets[unit], at_most, n)
                and _crowded(matrix, units[unit], n, trials)):
            return True
    return _fish_blocked_at_fixpoint(n, kmax, changed_digits, trials)


@compiled(borrows=True)
def match_units(matrix, tables, trials):
    """A perfect matching of each unit of ``matrix`` (``_perfect_matching``), as the digit
    matched to each cell in each of its units (``trials.matched``). A trial's closure of a
    matrix within ``matrix`` whose open cells of a unit all keep their matched digits is not
    crowded there: those digits are a matching of them (``_broken_units``). ``matrix`` is not
    blocked, so every unit has one; a unit without one would get no digits, and so be checked
    in full after every trial."""
    units, n = tables.units, tables.size
    for unit in range(units.shape[0]):
        found = _perfect_matching(matrix, units[unit], trials.match, trials.owner)
        for k in range(n):
            digit = np.int64(1) << trials.match[k] if found else np.int64(0)
            trials.matched[units[unit, k], unit // n] = digit


@compiled(inline="always")
def _broken_units(matrix, unit_of, trials):
    """Mark (``trials.broken``) the units of ``matrix`` where an open cell lost the digit
    ``match_units`` matched to it there: only those can be crowded."""
    broken = trials.broken
    for unit in range(broken.shape[0]):
        broken[unit] = 0
    for cell in range(matrix.shape[0]):
        choices = np.int64(matrix[cell])
        if single(choices):
            continue
        for j in range(3):
            if not choices & trials.matched[cell, j]:
                broken[unit_of[cell, j]] = 1


@compiled(inline="always")
def _may_crowd(unit_set, at_most, n):
    """Whether some k cells of a unit may allow fewer than k digits, at the N + H fixpoint
    (``_crowded`` tells): the unit's cells as a set (``unit_set``), ``at_most`` as ``stuck``
    makes it.

    There a singleton's digit is in no other cell of the unit, so such a set of cells, taken
    smallest, is k open cells allowing k - 1 digits (drop a singleton and its digit: still
    crowded); the unit's m open cells allow its m missing digits, each digit in two cells at
    least (else a hidden single), so the m - k + 1 digits the set lacks live in the m - k other
    open cells: m - k >= 2, and k >= 3 (two open cells allow two digits). So some k of 3 ..
    m - 2 has k open cells of at most k - 1 digits. Read off the sets, a unit costs a few
    words; 62 % of the units trials touch fail it (forum_hardest_1905).
    """
    m = 0
    for w in range(unit_set.shape[0]):
        m += popcount(unit_set[w] & at_most[n, w])
    for k in range(3, m - 1):
        fewer = 0
        for w in range(unit_set.shape[0]):
            fewer += popcount(unit_set[w] & at_most[k - 1, w])
        if fewer >= k:
            return True
    return False


@compiled(inline="always")
def _crowded(matrix, cells, n, trials):
    """Some k cells of the unit ``cells`` allow fewer than k digits (Hall: no perfect matching
    of its open cells to digits); asked where ``_may_crowd`` says they may."""
    m = 0
    for k in range(cells.shape[0]):
        if not single(np.int64(matrix[cells[k]])):
            trials.open_cells[m] = cells[k]
            m += 1
    # A perfect matching: each cell takes a free digit if it has one, else augments.
    owner, match = trials.owner, trials.match
    for d in range(n):
        owner[d] = -1
    used = np.int64(0)
    unplaced = 0
    for i in range(m):
        free = np.int64(matrix[trials.open_cells[i]]) & ~used
        if free:
            d = lowest_bit_index(free)
            owner[d] = i
            match[i] = d
            used |= free & -free
        else:
            match[i] = -1
            unplaced += 1
    if unplaced == 0:
        return False
    open_cells = trials.open_cells[:m]
    for i in range(m):
        if match[i] < 0 and not _augment(matrix, open_cells, i, match, owner, np.int64(0)):
            return True
    return False


@compiled(borrows=True)
def _fish_blocked_at_fixpoint(n, kmax, digits, trials):
    """F's blocked for the ``digits`` (bits), at the N + H fixpoint: k base lines whose cells
    allowing d lie in fewer than k cover lines, read off ``trials.homes`` (``stuck`` fills it
    in its pass over the cells: a pass of its own cost the grade 3 to 5 % more on
    forum_hardest).

    There every line has a home for d, and a line with one home holds d placed, alone in its
    cover line too: drop it from such a base and the rest is one (of k - 1 >= 2 lines, or of one
    line with no home, which propagation finds). So only lines of 2 .. k - 1 homes are
    combined, read off the open cells only.
    """
    homes = trials.homes  # (2, N, N): per orientation, digit and line, the cover lines
    small, picks = trials.small, trials.picks
    for across in range(2):
        for d in range(n):
            if not (digits >> d) & 1:
                continue
            lines = homes[across, d]
            for k in range(3, kmax + 1):
                n_small = 0
                for i in range(n):
                    size = popcount(lines[i])
                    if size >= 2 and size < k:
                        small[n_small] = i
                        n_small += 1
                if n_small < k:
                    continue
                for j in range(k):
                    picks[j] = j
                while True:
                    cover = np.int64(0)
                    for j in range(k):
                        cover |= lines[small[picks[j]]]
                    if popcount(cover) < k:
                        return True
                    if not _next_subset(picks, k, n_small):
                        break
    return False


@compiled(borrows=True)
def _blocked_within(trial, cut, closed, start, work, tables, trials):
    """``trial`` = the closure of N + H of ``cut & closed``, where ``closed`` is at that
    fixpoint and ``cut`` leaves no cell of it empty; then the rest of SPEC 5.1's blocked
    (``stuck``, against ``start``: a matrix known not to be blocked that ``trial`` lies
    within), but not while a T2 trial runs on propagation only (``_t1_trial_blocked``);
    returns blocked. ``trial`` may be ``cut``.

    Only the cells ``cut`` takes digits from can start anything: they alone are queued (when
    left single) and their units marked. That serves a trial (``cut``: the matrix with a cell
    set), an elimination (``cut``: the matrix without the digit), and a trial with an image
    (``cut``: the matrix, ``closed``: the image, ``_singles_closure_blocked``), whose
    propagation is then the rest of the trial's, not all of it."""
    tail = 0
    for cell in range(trial.shape[0]):
        was = np.int64(closed[cell])
        now = np.int64(cut[cell]) & was
        trial[cell] = now
        if now != was:
            mark(work.dirty, tables, cell)
            if single(now):
                work.queue[tail] = cell
                tail += 1
    if propagate_fixpoint(trial, work.queue, tail, work.dirty, True, tables):
        clear(work.dirty)
        return True
    return trials.stamp[2] == 0 and stuck(trial, start, tables, trials)


@compiled(borrows=True)
def _note_fixed(matrix, closed, known):
    """The open cells of ``matrix`` that ``closed`` (an unblocked trial's closure) fixes: their
    trials are not blocked either (the closure of ``matrix`` with such a cell set lies above
    ``closed``)."""
    for cell in range(matrix.shape[0]):
        if single(np.int64(closed[cell])) and not single(np.int64(matrix[cell])):
            known[cell] |= closed[cell]


@compiled(inline="always")
def _trials_pass(matrix, depth, blocked_by_trial, work, tables, trials):
    """One pass of the trials of ``depth`` (1: T1, 2: T2) over the open candidates of
    ``matrix`` (at the fixpoint of N + H, and for T2 of T1 too), each tried by
    ``blocked_by_trial`` into ``trials.tried[depth - 1]``; returns (blocked, changed).

    A digit whose trial blocks leaves its cell at once, and singles are propagated; trials known
    not to block (``_note_fixed``) are skipped until the matrix changes. The pass goes on after
    an elimination (singles propagated, nothing known any more) rather than going back to the
    cheaper rules at once: on forum_hardest that ran about three times faster for T2 (115
    against 31 puzzles/s, one sitting).

    The cells are tried in their order: trying those of fewest digits first graded
    forum_hardest_1905 about a third slower (one sitting, its first 60 puzzles).

    T1 and T2 differ only in their ``blocked_by_trial``, a compiled function handed in (each
    pass is compiled for its own): T2's runs T1's passes, so one compiled function serving both
    depths would call itself, which numba's on-disk cache cannot load back.
    """
    cells = matrix.shape[0]
    known = trials.known[depth - 1]
    if depth == 1:  # T2's: ``t2_pass``
        _forget(known, depth, trials)
    changed = False
    for cell in range(cells):
        untried = np.int64(matrix[cell])
        while untried and not single(np.int64(matrix[cell])):
            bit = untried & -untried
            untried &= untried - 1
            if np.int64(known[cell]) & bit:
                continue
            if not blocked_by_trial(matrix, cell, bit, work, tables, trials):
                if depth == 2 and trials.stamp[3]:  # put off: nothing is known of it yet
                    trials.stamp[4] += 1
                    continue
                _note_fixed(matrix, trials.tried[depth - 1], known)
                if depth == 1 and trials.stamp[1]:  # the puzzle's matrix: an image
                    candidate = cell * tables.size + lowest_bit_index(bit)
                    copy(trials.images[candidate], trials.tried[0])
                    trials.imaged[candidate] = trials.stamp[0]
                continue
            changed = True
            # depth as an int64, not the literal 1 or 2: one compile serves both passes
            if _eliminate_tried(matrix, cell, bit, np.int64(depth), work, tables, trials):
                return True, True
            untried = np.int64(matrix[cell]) & ~(bit - 1)  # on from here; the rest later
    return False, changed


@compiled(inline="always")
def _forget(known, depth, trials):
    """Nothing known of the trials of a matrix that changed, but that the trials of a solution's
    digits in the puzzle's matrix do not block (``_one_solution``): T2's, and T1's while it
    runs on the puzzle's matrix (``Trials.stamp``)."""
    solved = (depth == 2 or trials.stamp[1] == 1) and trials.solution[0] > 0
    for cell in range(known.shape[0]):
        known[cell] = trials.solution[cell] if solved else 0


@compiled(inline="always")
def _one_solution(matrix, work, tables, trials):
    """Whether ``matrix`` (the puzzle's, at the fixpoint of the rules below T1) holds one
    solution, looked for the first time only (into ``trials.solution``), and not at all when
    the caller's search found the puzzle's only one (``grades``: the rules keep every solution,
    so the matrix holds that one and no other); when it holds none
    or several, no rung solves the puzzle (a complete unblocked closure is its only solution:
    SPEC 5.1).

    That is how most puzzles beyond T2 are known at once: a closure holds every solution, so
    two of them keep it open, and T2 would otherwise run to exhaustion to say so; and puzzles
    of several solutions skip T1 too. And a trial of a solution's digit in the puzzle's matrix
    never blocks (its closure holds that solution, and a matrix holding a solution is not
    blocked), so those are known not to block at every T1 and T2 pass of the puzzle's matrix
    (``_forget``): the matrix only loses digits no solution has. T2's are its dearest trials
    (T1 runs to its fixpoint there, where a trial that blocks mostly stops early), and T1's are
    a third of its trials. The search starts from ``matrix``, where the rules below T1 left
    little open: a few nodes."""
    if trials.solution[0] < 0:
        return _solutions(matrix, work, tables, trials.solution) == 1
    return True


@compiled(borrows=True)
def _solutions(matrix, work, tables, solution):
    """How many solutions ``matrix`` (at the fixpoint of N + H, not blocked) holds, up to two,
    the first as masks into ``solution``: a depth-first search on ``work``'s stack."""
    stack, untried, chosen = work.stack, work.untried, work.chosen
    copy(stack[0], matrix)
    chosen[0] = pick_cell(stack[0], False)
    if chosen[0] < 0:
        copy(solution, stack[0])
        return 1
    untried[0] = stack[0, chosen[0]]
    found = 0
    depth = 0
    while depth >= 0:
        rest = np.int64(untried[depth])
        if rest == 0:
            depth -= 1
            continue
        bit = rest & -rest
        untried[depth] = rest & ~bit
        child, cell = stack[depth + 1], chosen[depth]
        copy(child, stack[depth])
        child[cell] = bit
        if settle(child, cell, work, tables):
            continue
        chosen[depth + 1] = pick_cell(child, False)
        if chosen[depth + 1] >= 0:
            depth += 1
            untried[depth] = child[chosen[depth]]
            continue
        found += 1
        if found == 2:
            return 2
        copy(solution, child)
    return found


@compiled(borrows=True)
def t1_pass(matrix, work, tables, trials):
    """One pass of T1 (``_trials_pass``); returns (blocked, changed)."""
    return _trials_pass(matrix, 1, _singles_trial_blocked, work, tables, trials)


@compiled(borrows=True)
def t2_pass(matrix, work, tables, trials):
    """One pass of T2 (``_trials_pass``); returns (blocked, changed).

    The pass first puts off each trial that propagation alone does not block
    (``_t1_trial_blocked``): its whole test (``stuck`` after every closure of its T1 trials)
    costs several times a trial that blocks, and the eliminations of the others often fix its
    cell or make it block on propagation in a later pass. Only a pass that puts some off and
    finds nothing runs again with the whole test, to the fixpoint SPEC 5.1 defines (any order
    of the rules reaches the same closure). forum_hardest_1106 graded in 0.7 of the time,
    forum_hardest_1905 in 0.9 (one sitting, the trees in turns)."""
    _forget(trials.known[1], np.int64(2), trials)  # once: a pass run again changed nothing
    for whole in range(2):
        trials.stamp[3] = 1 - whole
        trials.stamp[4] = 0
        blocked, changed = _trials_pass(matrix, 2, _t1_trial_blocked, work, tables, trials)
        if blocked or changed or trials.stamp[4] == 0:
            break
    trials.stamp[3] = 0
    return blocked, changed


@compiled(borrows=True)
def _singles_trial_blocked(matrix, cell, bit, work, tables, trials):
    """T1's test: whether the closure of N + H of ``matrix`` with ``cell`` set to ``bit`` is
    blocked (that closure in ``trials.tried[0]``)."""
    return _singles_closure_blocked(matrix, cell, bit, trials.tried[0], work, tables, trials)


@compiled(borrows=True)
def _t1_trial_blocked(matrix, cell, bit, work, tables, trials):
    """T2's test: whether the closure of N + H + T1 of ``matrix`` with ``cell`` set to ``bit``
    is blocked (that closure in ``trials.tried[1]``, its own T1 trials in ``trials.tried[0]``)."""
    trial = trials.tried[1]
    trials.stamp[2] = 1  # propagation only, its first closure too: ``stuck`` below checks all
    # From its image, when the matrix has not changed since it was taken: nothing to propagate
    blocked = (_singles_closure_blocked(matrix, cell, bit, trial, work, tables, trials)
               or _t1_closure_blocked(trial, work, tables, trials))
    trials.stamp[2] = 0
    if blocked or trials.stamp[3]:  # blocked, or its whole test put off (``t2_pass``)
        return blocked
    return stuck(trial, matrix, tables, trials) or _t1_closure_blocked(trial, work, tables,
                                                                        trials)


@compiled(inline="always")
def _t1_closure_blocked(trial, work, tables, trials):
    """Carry ``trial`` (at the N + H fixpoint) to the closure of N + H + T1; returns blocked.

    A T2 trial first runs it with a blocked of propagation only (``Trials.stamp[2]``): a T1
    trial blocked so is blocked by SPEC 5.1's whole test too, so what it removes is removed
    by T1 as well, and blocked is kept when digits go, so a trial blocked on propagation only
    is blocked. Most T2 trials that block do so there (forum_hardest_1905), without the rest
    of blocked (``stuck``) after each of their T1 trials' closures. One that does not is
    checked whole (``stuck``, against the matrix it came from), then carried on with the whole
    test: any order of the rules reaches the same closure (SPEC 5.1)."""
    while not complete(trial):
        blocked, changed = _images_pass(trial, work, tables, trials)
        if not blocked and not changed:
            blocked, changed = t1_pass(trial, work, tables, trials)
        if blocked:
            return True
        if not changed:
            return False
    return False


@compiled(borrows=True)
def _images_pass(matrix, work, tables, trials):
    """The T1 eliminations the images find in ``matrix`` (``_empties``: no trial run), each
    propagated at once; returns (blocked, changed). Run to its fixpoint before each T1 pass
    inside a T2 trial: most T2 trials that block are blocked by these alone, before a T1 pass
    runs a closure of singles for every candidate left."""
    n = tables.size
    changed = False
    for cell in range(matrix.shape[0]):
        untried = np.int64(matrix[cell])
        while untried and not single(np.int64(matrix[cell])):
            bit = untried & -untried
            untried &= untried - 1
            candidate = cell * n + lowest_bit_index(bit)
            if trials.imaged[candidate] and _empties(matrix, trials.images[candidate]):
                changed = True
                if _eliminate_tried(matrix, cell, bit, np.int64(1), work, tables, trials):
                    return True, True
    return False, changed


@compiled(inline="always")
def _singles_closure_blocked(matrix, cell, bit, trial, work, tables, trials):
    """The closure of N + H of ``matrix`` (at that fixpoint) with ``cell`` set to ``bit``, into
    ``trial``, then the rest of SPEC 5.1's blocked; returns blocked. Blocked at once when the
    candidate's image (``take_images``) leaves a cell of ``matrix`` empty."""
    candidate = cell * tables.size + lowest_bit_index(bit)
    if not trials.imaged[candidate]:
        copy(trial, matrix)
        trial[cell] = bit
        return _blocked_within(trial, trial, matrix, matrix, work, tables, trials)
    # The closure of ``matrix`` with c set to {d} is that of ``matrix & image``: it lies
    # within both (a closure keeps the order of matrices), and ``matrix & image`` lies within
    # ``matrix`` with c set to {d}.
    image = trials.images[candidate]
    if _empties(matrix, image):
        return True
    return _blocked_within(trial, matrix, image, matrix, work, tables, trials)


@compiled(inline="always")
def _empties(matrix, image):
    """Some cell of ``matrix`` allows none of the digits ``image`` allows there. Every cell is
    read, without a branch (most images leave none empty): the loop is vectorized."""
    empty = False
    for cell in range(matrix.shape[0]):
        empty |= (np.int64(matrix[cell]) & np.int64(image[cell])) == 0
    return empty


@compiled(borrows=True)
def take_images(matrix, work, tables, trials):
    """The image of each open candidate (c, d) of ``matrix``, which T2 is about to try: the
    closure Y of N + H of ``matrix`` with c set to {d}, where propagation does not block it (a
    T2 trial starting from Y checks the rest of blocked itself: ``_t1_trial_blocked``).

    Every matrix the trials meet from here on (this puzzle's, T2's trials and their T1 trials)
    lies within ``matrix``, so the closure of N + H of such a matrix A with c set to {d} lies
    within Y (a closure keeps the order of matrices): when A & Y leaves a cell empty, the trial
    of (c, d) in A blocks, found without propagating (``_empties``). Inside a T2 trial most
    T1 eliminations are of that kind. The images are taken again at each T2 pass, from the
    smaller matrix (the closer they are, the more they block), but for those of the matrix as
    it is (``Trials.stamp``): the T1 pass that ended the rung below kept its closures."""
    n = tables.size
    imaged, stamp = trials.imaged, trials.stamp[0]
    for cell in range(matrix.shape[0]):
        choices = np.int64(matrix[cell])
        if single(choices):
            continue
        while choices:
            digit = lowest_bit_index(choices)
            choices &= choices - 1
            candidate = cell * n + digit
            if imaged[candidate] == stamp:
                continue
            image = trials.images[candidate]
            copy(image, matrix)
            image[cell] = np.int64(1) << digit
            # blocked on propagation only: what ``_empties`` and T2 need
            imaged[candidate] = 0 if settle(image, cell, work, tables) else stamp


@compiled(borrows=True)
def _eliminate_tried(matrix, cell, bit, depth, work, tables, trials):
    """A trial of ``depth`` blocked: ``bit`` leaves ``cell``, singles are propagated, and nothing
    is known of the trials of the changed matrix any more; returns blocked.

    The matrix is copied into the blocked trial's array first (free now): it is not blocked
    (each change of a pass is checked), so ``stuck`` looks only at what the elimination
    changed, not at every unit and digit."""
    before = trials.tried[depth - 1]
    copy(before, matrix)
    _forget(trials.known[depth - 1], depth, trials)
    if depth == 2 or trials.stamp[1]:  # the puzzle's matrix changes
        trials.stamp[0] += 1
    matrix[cell] = np.int64(matrix[cell]) & ~bit
    if matrix[cell] == 0:
        return True
    return _blocked_within(matrix, matrix, before, before, work, tables, trials)


# -- compiling in two processes ---------------------------------------------------------------


def compile_passes(half: int) -> None:
    """Compile (the first time; else load) one half of the passes ``_close_rung`` calls, for the
    types it calls them with, so that two processes compile the grade side by side (a fresh
    machine's first run waits for it); ``_grade_batch`` then compiles alone, every pass loaded
    from the cache. Half 0 is T1's pass then T2's, which calls T1's (``_t1_closure_blocked``):
    in one process, one after the other, so that neither is compiled twice; then the images.
    Half 1 is the first two rungs (``_root``), the rules below the trials, the closure of
    singles and the grade's arrays, for the process that compiles the search first;
    ``complete`` first, which T2's pass calls too.
    The arguments are built by the arrays' Python functions: half 0 compiles no more than its
    passes. The slow test of the warm-up checks that ``_grade_batch`` compiles none of them
    again: arguments changed in ``_close_rung`` must be changed here too."""
    import numba

    table = tables(3)  # one type of tables serves every box size
    work, trials = work_arrays.py_func(table), trial_arrays.py_func(table)
    matrix = np.empty(table.unit_of.shape[0], np.int32)
    state = (matrix, work, table, trials)
    calls = [
        ((t1_pass, state), (t2_pass, state), (take_images, state)),
        ((complete, (matrix,)), (lock_pass, (matrix, table)),
         (subsets_pass, (matrix, table, trials.match, trials.owner, trials.reach,
                         trials.quiet_units)),
         (fish_pass, (matrix, table, trials)), (wings_pass, (matrix, table)),
         (_solutions, (matrix, work, table, trials.solution)),
         (match_units, (matrix, table, trials)), (close_singles, (matrix, work, table)),
         (work_arrays, (table,)), (trial_arrays, (table,)),
         (_root, (np.zeros(matrix.shape[0], np.uint8), matrix, work, table, 8))),
    ][half]
    for function, arguments in calls:
        function.compile(tuple(numba.typeof(argument) for argument in arguments))
