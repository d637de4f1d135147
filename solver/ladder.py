"""Difficulty beyond Bird's search (SPEC section 5), in Bird's style: the oracle for
``solver.fast_ladder``.

Each elimination rule of SPEC 5.1 is a function from a matrix of choices to a matrix of choices,
like Bird's ``prune``, and ``closure`` applies a list of them until none changes anything:

    N  prune     Bird's own (``solver.bird.prune``)
    H  hide      hidden singles, ``hiddenBy boxs . hiddenBy cols . hiddenBy rows``
    L  lock      locked candidates, ``lockBy cols . lockBy rows`` on the 54 box/line meetings
    S  subsets   k cells of a unit with k digits between them, ``excludeBy`` every unit

``grade`` is the first rung of the ladder whose closure solves the puzzle; ``rating`` averages the
depth of the ``singles`` search over SPEC 5.2's fixed symmetric copies; ``backdoor_size`` counts
the cells of the solution singles need.  Nothing here is optimised: the rules read as SPEC states
them, and the fast implementation is tested against them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from itertools import combinations
from math import isqrt

from solver import bird, symmetry
from solver.bird import (
    boxs,
    choices,
    cols,
    complete,
    digits_for,
    group,
    hidden,
    prune,
    prune_by,
    rows,
    single,
    ungroup,
)
from solver.vocabulary import DEFAULT_MAX_NODES, DEFAULT_RATING_SAMPLES

Matrix = list[list[str]]
Rule = Callable[[Matrix], Matrix]

LARGEST_BACKDOOR = 3  # SPEC 5.3: "searched up to 3" (and SPEC 7: up to 1 beyond 9 x 9)


def largest_backdoor(n: int) -> int:
    """SPEC 7: the backdoor is searched up to 3 cells for box sizes up to 3 (N <= 9), up to 1
    beyond."""
    return LARGEST_BACKDOOR if n <= 9 else 1


def without(ds: Collection[str], xs: str) -> str:
    """The choices ``xs`` less the digits ``ds`` (a singleton too: the rules below may void a
    cell, which blocks the matrix, where Bird's ``remove`` keeps it)."""
    return "".join(d for d in xs if d not in ds)


# -- H: hidden singles -----------------------------------------------------------------------------


def hide(m: Matrix) -> Matrix:
    """H: "a digit allowed in exactly one cell of a unit makes that cell that digit".

    hide = hiddenBy boxs . hiddenBy cols . hiddenBy rows  where hiddenBy f = f . map hidden . f
    """
    return prune_by(boxs, hidden, prune_by(cols, hidden, prune_by(rows, hidden, m)))


# -- L: locked candidates --------------------------------------------------------------------------


def lock_band(band: list[list[list[str]]], digits: str) -> list[list[list[str]]]:
    """L on one band of b rows, each row cut into its b segments (``band[i][j]`` is where row
    i meets box j of the band; b = 3 for Sudoku):

    "If every cell of the box that allows digit d lies in that intersection (and at least one
    does), d leaves the line's other cells (pointing); if every cell of the line that allows d
    lies in the intersection (and at least one does), d leaves the box's other cells (claiming)."
    """
    band = [[list(segment) for segment in row] for row in band]
    size = len(band)

    def allows(d: str, i: int, b: int) -> bool:
        return any(d in xs for xs in band[i][b])

    def take(d: str, i: int, b: int) -> None:
        band[i][b] = [without(d, xs) for xs in band[i][b]]

    for d in digits:
        for i in range(size):
            for b in range(size):
                if not allows(d, i, b):
                    continue
                if not any(allows(d, j, b) for j in range(size) if j != i):  # pointing
                    for c in range(size):
                        if c != b:
                            take(d, i, c)
                if not any(allows(d, i, c) for c in range(size) if c != b):  # claiming
                    for j in range(size):
                        if j != i:
                            take(d, j, b)
    return band


def lock_rows(m: Matrix) -> Matrix:
    """L on the places where a row meets a box (27 in Sudoku): group the rows into bands and
    each row into segments of b cells (Bird's ``group``), lock every band, and ``ungroup``
    back."""
    b = isqrt(len(m))
    bands = group([group(row, b) for row in m], b)
    return ungroup([[ungroup(row) for row in lock_band(band, digits_for(m))] for band in bands])


def lock(m: Matrix) -> Matrix:
    """L on all 54 box/line intersections: lock = lockBy cols . lockBy rows, where
    lockBy f = f . lockRows . f (``cols`` maps boxes to boxes, so the places where a column meets
    a box become places where a row meets a box, and ``cols . cols = id``)."""
    return cols(lock_rows(cols(lock_rows(m))))


# -- S: subsets ------------------------------------------------------------------------------------


def union(xss: Sequence[str]) -> set[str]:
    """The digits some of the cells allow."""
    return set().union(*xss)


# Units of up to this many cells are searched subset by subset, as SPEC words the rules; a larger
# unit (16 x 16, 25 x 25: 2^16 and 2^25 subsets) by Hall's theorem, which gives the same answer
# (a test holds the two equal on 4- and 9-cell units).
LITERAL_UNIT = 9


def exclude(row: list[str]) -> list[str]:
    """S on one unit: "for any set of k cells of a unit (1 <= k <= N - 1) that together allow
    exactly k digits, those digits leave the unit's other cells"."""
    if len(row) > LITERAL_UNIT:
        return exclude_by_matching(row)
    return exclude_by_subsets(row)


def exclude_by_subsets(row: list[str]) -> list[str]:
    """``exclude``, every set of cells tried in turn."""
    row = list(row)
    for k in range(1, len(row)):
        for cells in combinations(range(len(row)), k):
            ds = union([row[i] for i in cells])
            if len(ds) == k:
                row = [xs if i in cells else without(ds, xs) for i, xs in enumerate(row)]
    return row


def subsets(m: Matrix) -> Matrix:
    """S on every unit: excludeBy boxs . excludeBy cols . excludeBy rows."""
    return prune_by(boxs, exclude, prune_by(cols, exclude, prune_by(rows, exclude, m)))


# -- closures and blocked matrices -----------------------------------------------------------------


def crowded(row: list[str]) -> bool:
    """Some k cells of the unit allow fewer than k digits between them."""
    if len(row) > LITERAL_UNIT:
        return matching(row) is None
    return crowded_by_subsets(row)


def crowded_by_subsets(row: list[str]) -> bool:
    """``crowded``, every set of cells tried in turn."""
    return any(len(union(xss)) < k
               for k in range(1, len(row) + 1) for xss in combinations(row, k))


# -- the same two rules by Hall's theorem, for large units -----------------------------------------
#
# Cells and digits of a unit form a bipartite graph (a cell allows a digit). Hall: every cell can
# get a digit of its own (a perfect matching) exactly when no k cells allow fewer than k digits,
# so ``crowded`` is "no perfect matching". And an edge (c, d) lies in no perfect matching exactly
# when some k cells without c allow exactly k digits, d among them (remove c and d: the rest has
# no perfect matching, so by Hall some k cells allow at most k digits there, hence exactly k with
# d in the whole unit): S removes exactly the edges that lie in no perfect matching.


def matching(row: list[str]) -> dict[int, str] | None:
    """A digit for every cell of the unit, each digit once (augmenting paths), or None."""
    owner: dict[str, int] = {}

    def place(cell: int, seen: set[str]) -> bool:
        for d in row[cell]:
            if d not in seen:
                seen.add(d)
                if d not in owner or place(owner[d], seen):
                    owner[d] = cell
                    return True
        return False

    if not all(place(cell, set()) for cell in range(len(row))):
        return None
    return {cell: d for d, cell in owner.items()}


def exclude_by_matching(row: list[str]) -> list[str]:
    """``exclude`` as the edges in some perfect matching: a cell keeps its matched digit, and a
    digit d whose matched cell reaches it back along alternating paths (c allows d', d' is
    matched to c', c' allows ...): the cycle is another perfect matching using (c, d)."""
    matched = matching(row)
    if matched is None:
        return list(row)  # crowded: blocked, whatever S would do
    owner = {d: cell for cell, d in matched.items()}

    def reaches(start: int) -> set[int]:
        found, todo = {start}, [start]
        while todo:
            cell = todo.pop()
            for d in row[cell]:
                if d != matched[cell] and owner[d] not in found:
                    found.add(owner[d])
                    todo.append(owner[d])
        return found

    reach = [reaches(cell) for cell in range(len(row))]
    return ["".join(d for d in xs if d == matched[cell] or cell in reach[owner[d]])
            for cell, xs in enumerate(row)]


def blocked(m: Matrix) -> bool:
    """SPEC 5.1's blocked: a cell with no digit, two equal singletons in a unit, a digit with no
    cell in a unit (Bird's ``blocked`` and ``missing``), or k cells of a unit that allow fewer than
    k digits."""
    return bird.blocked(m) or bird.missing(m) or any(crowded(u) for u in rows(m) + cols(m) + boxs(m))


def solved(m: Matrix) -> bool:
    """complete and unblocked: the only solution, written as a matrix of choices."""
    return complete(m) and not blocked(m)


def closure(rules: Sequence[Rule], m: Matrix) -> Matrix:
    """The fixpoint of applying ``rules`` to ``m`` until none changes anything.

    Each rule only removes digits, so any order of application ends in the same matrix or in a
    blocked one (SPEC 5.1); this one applies the first rule that changes anything, then starts
    again from the first, so the cheap rules do most of the work.
    """
    while True:
        for rule in rules:
            after = rule(m)
            if after != m:
                m = after
                break
        else:
            return m


# SPEC 5.1's table: each rung and the rules whose closure it is ("search" is the rung of none).
SINGLES = (prune, hide)
RUNGS = {
    "prune": (prune,),
    "singles": SINGLES,
    "intersections": (prune, hide, lock),
    "subsets": (prune, hide, lock, subsets),
}


# -- 5.1 grade -------------------------------------------------------------------------------------


def grade(g: Matrix) -> str:
    """SPEC 5.1: the first rung whose closure of ``choices g`` is complete and unblocked, else
    "search" (N: prune; singles: N + H; intersections: N + H + L; subsets: N + H + L + S)."""
    for name, rules in RUNGS.items():
        if solved(closure(rules, choices(g))):
            return name
    return "search"


# -- 5.2 rating ------------------------------------------------------------------------------------


def symmetric_copy(g: Matrix, cells: Sequence[int]) -> Matrix:
    """The grid whose cell j is cell ``cells[j]`` of ``g`` (cells in row-major order)."""
    flat = ungroup(g)
    return group([flat[c] for c in cells], len(g))


def rating(g: Matrix, samples: int = DEFAULT_RATING_SAMPLES,
           max_nodes: int = DEFAULT_MAX_NODES) -> float | None:
    """SPEC 5.2: the mean ``search_depth`` of the ``singles`` search, ``max_solutions = 2``, over
    copies 0 .. samples-1 (copy i is the cell symmetry drawn from splitmix64(i)); None when some
    copy's search hits ``max_nodes``.  (Meant for a puzzle whose status is ``unique``.)"""
    depths = []
    for cells in symmetry.rating_copies(samples, isqrt(len(g))):
        stats = bird.Stats(max_nodes=max_nodes)
        bird.solutions(symmetric_copy(g, cells), stats, max_solutions=2, rules="singles")
        if stats.budget_exceeded:
            return None
        depths.append(stats.depth)
    return sum(depths) / samples


# -- 5.3 backdoor size -----------------------------------------------------------------------------


def fill(m: Matrix, cells: Sequence[tuple[int, int]], solution: Matrix) -> Matrix:
    """``m`` with each of ``cells`` (row, column) set to its digit in ``solution``."""
    m = [list(row) for row in m]
    for r, c in cells:
        m[r][c] = solution[r][c]
    return m


def backdoor_size(g: Matrix, solution: Matrix, largest: int = LARGEST_BACKDOOR) -> int | None:
    """SPEC 5.3: the least k such that ``g`` with k more cells filled in from ``solution`` is
    singles-solvable; None when that takes more than ``largest`` cells.

    Two facts keep the search small.  Filling cells commutes with the closure: the closure of
    the filled puzzle is the closure of (the puzzle's closure, with those cells filled), since
    every elimination of the first closure stays valid.  And filling a cell the closure has
    already fixed changes nothing, so only the cells it leaves open are candidates.
    """
    start = closure(SINGLES, choices(g))
    if solved(start):
        return 0
    open_cells = [(r, c) for r, row in enumerate(start) for c, xs in enumerate(row)
                  if not single(xs)]
    for k in range(1, largest + 1):
        for cells in combinations(open_cells, k):
            if solved(closure(SINGLES, fill(start, cells, solution))):
                return k
    return None
