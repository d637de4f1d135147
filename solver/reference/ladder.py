"""Difficulty beyond Bird's search (SPEC section 5), in Bird's style: the oracle for
``solver.compiled.grade`` (grade), ``solver.compiled.measures_9x9`` and ``solver.compiled.measures``
(rating, backdoor size).

Each elimination rule of SPEC 5.1 is a function from a matrix of choices to a matrix of choices,
like Bird's ``prune``, and ``closure`` applies a list of them until none changes anything:

    N  prune     Bird's own (``solver.reference.bird.prune``)
    H  hide      hidden singles, ``hiddenBy boxs . hiddenBy cols . hiddenBy rows``
    L  lock      locked candidates, ``lockBy cols . lockBy rows`` on the 54 box/line meetings
    S  subsets   k cells of a unit with k digits between them, ``excludeBy`` every unit
    F  fish      X-wing, swordfish, jellyfish: k base lines whose digit lies in k cover lines
    W  wings     XY-wing and XYZ-wing, as SPEC words them ("allows no digit but v and z")
    T1 trial     a digit leaves a cell when setting it there makes the N + H closure blocked
    T2 trial2    the same with the N + H + T1 closure

F, W, T1 and T2 work by instances (``Finding``: what was seen, in a solver's words, and what it
removes); each rule removes at once what every instance found in the matrix removes, and
``explain`` tells a puzzle's path up the ladder with them.
``grade`` is the first rung of the ladder whose closure solves the puzzle; ``rating`` averages the
depth of the ``singles`` search over SPEC 5.2's fixed symmetric copies; ``backdoor_size`` counts
the cells of the solution singles need.  Little here is optimised: the rules read as SPEC states
them, and the fast implementation is tested against them. (The trials skip what SPEC lets them
skip, said where they do: a T2 grade still takes the reference many minutes.)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from itertools import combinations, product
from math import isqrt
from typing import NamedTuple

from solver import symmetry
from solver.reference import bird
from solver.reference.bird import (
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
from solver.vocabulary import DEFAULT_GRADE_LIMIT, DEFAULT_MAX_NODES, DEFAULT_RATING_SAMPLES

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
    """Some k cells of the unit allow fewer than k digits between them.

    By Hall's theorem that is "no perfect matching" (see below): the trials of T1 and T2 ask
    it of thousands of matrices, and the 2^9 subsets of a 9-cell unit, tried one by one
    (``crowded_by_subsets``, held equal to it in the tests), would make the oracle too slow to
    run on them."""
    return matching(row) is None


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


def cheaply_blocked(m: Matrix) -> bool:
    """Section 2's blocked: a cell with no digit, two equal singletons in a unit, or a digit with
    no cell in a unit (Bird's ``blocked`` and ``missing``)."""
    return bird.blocked(m) or bird.missing(m)


def blocked(m: Matrix) -> bool:
    """SPEC 5.1's blocked: section 2's (``cheaply_blocked``), or k cells of a unit that allow
    fewer than k digits, or (F) the cells of k base lines that allow a digit lying in fewer than
    k cover lines."""
    return (cheaply_blocked(m) or any(crowded(u) for u in rows(m) + cols(m) + boxs(m))
            or fish_blocked(m))


def solved(m: Matrix) -> bool:
    """complete and unblocked: the only solution, written as a matrix of choices."""
    return complete(m) and not blocked(m)


def closure(rules: Sequence[Rule], m: Matrix) -> Matrix:
    """The fixpoint of applying ``rules`` to ``m`` until none changes anything.

    Each rule only removes digits, so any order of application ends in the same matrix or in a
    blocked one (SPEC 5.1); this one applies the first rule that changes anything, then starts
    again from the first, so the cheap rules do most of the work.
    """
    while (after := _first_change(rules, m)) is not None:
        m = after
    return m


def _first_change(rules: Sequence[Rule], m: Matrix) -> Matrix | None:
    """What the first of ``rules`` that changes ``m`` makes of it, or None when none does."""
    for rule in rules:
        after = rule(m)
        if after != m:
            return after
    return None


# -- what a rule saw, for ``explain`` and for the rules that work by instances ---------------------


class Finding(NamedTuple):
    """One instance of a rule: what it saw, in a solver's words, and the digits it removes, as
    (row, column, digit) with rows and columns from 0."""

    text: str
    removals: tuple[tuple[int, int, str], ...]


def cell_name(r: int, c: int) -> str:
    """r5c3: row 5, column 3 (counted from 1, as solvers write them)."""
    return f"r{r + 1}c{c + 1}"


def leaving(removals: Sequence[tuple[int, int, str]]) -> str:
    """"4 leaves r5c3, r9c8; 7 leaves r1c1": the removals by digit, in order."""
    by_digit: dict[str, list[str]] = {}
    for r, c, d in sorted(removals, key=lambda x: (x[2], x[0], x[1])):
        by_digit.setdefault(d, []).append(cell_name(r, c))
    return "; ".join(f"{d} leaves {', '.join(cells)}" for d, cells in by_digit.items())


def remove(m: Matrix, removals: Sequence[tuple[int, int, str]]) -> Matrix:
    """``m`` without the digits ``removals`` name."""
    gone: dict[tuple[int, int], set[str]] = {}
    for r, c, d in removals:
        gone.setdefault((r, c), set()).add(d)
    return [[without(gone.get((r, c), ()), xs) for c, xs in enumerate(row)]
            for r, row in enumerate(m)]


def by_findings(findings: Callable[[Matrix], Iterable[Finding]], name: str) -> Rule:
    """The rule ``name`` that removes, at once, every digit some instance found in ``m``
    removes (each instance's removals keep every solution of ``m``, so all of them together do
    too)."""
    def rule(m: Matrix) -> Matrix:
        return remove(m, [x for finding in findings(m) for x in finding.removals])
    rule.__name__ = rule.__qualname__ = name
    rule.__doc__ = findings.__doc__
    return rule


# -- F: fish ---------------------------------------------------------------------------------------

FISH_NAMES = {2: "X-wing", 3: "swordfish", 4: "jellyfish"}


def fish_sizes(n: int) -> range:
    """SPEC 7: fish of 2 <= k <= min(4, N / 2) lines."""
    return range(2, min(4, n // 2) + 1)


def homes(m: Matrix, d: str) -> list[set[int]]:
    """For each row, the columns of its cells that allow ``d``."""
    return [{c for c, xs in enumerate(row) if d in xs} for row in m]


def fish_in_rows(m: Matrix, lines: str = "rows", covers: str = "columns") -> list[Finding]:
    """F with rows as the base: "for a digit d and k rows (the base), when the cells of those
    rows that allow d lie in k columns (the cover) in all, d leaves every other cell of the
    cover columns"."""
    found = []
    for d in digits_for(m):
        where = homes(m, d)
        for k in fish_sizes(len(m)):
            for base in combinations(range(len(m)), k):
                cover = sorted(set().union(*(where[r] for r in base)))
                if len(cover) != k:
                    continue
                removals = tuple((r, c, d) for r in range(len(m)) if r not in base
                                 for c in cover if c in where[r])
                if removals:
                    text = (f"{FISH_NAMES[k]} on digit {d}, {lines} {numbers(base)}, "
                            f"{covers} {numbers(cover)}")
                    found.append(Finding(text, removals))
    return found


def numbers(indexes: Sequence[int]) -> str:
    """"2 and 7", "1, 4 and 9": lines counted from 1."""
    names = [str(i + 1) for i in indexes]
    return ", ".join(names[:-1]) + " and " + names[-1]


def fish_findings(m: Matrix) -> list[Finding]:
    """F in both orientations: the rows' fish, and the columns' (rows of ``cols m``, whose
    removals are turned back, since ``cols . cols = id``)."""
    across = fish_in_rows(cols(m), "columns", "rows")
    return fish_in_rows(m) + [Finding(f.text, tuple((r, c, d) for c, r, d in f.removals))
                              for f in across]


fish = by_findings(fish_findings, "fish")


def fish_blocked(m: Matrix) -> bool:
    """F's blocked: "the cells of k base lines that allow d lie in fewer than k cover lines".
    (The lines as bits: the trials ask this of every matrix they reach.)"""
    for lines in (m, cols(m)):
        for d in digits_for(m):
            where = [sum(1 << c for c in cs) for cs in homes(lines, d)]
            for k in fish_sizes(len(m)):
                for base in combinations(where, k):
                    cover = 0
                    for line in base:
                        cover |= line
                    if cover.bit_count() < k:
                        return True
    return False


# -- W: wings --------------------------------------------------------------------------------------


def sees(a: tuple[int, int], b: tuple[int, int], b_size: int) -> bool:
    """Two different cells that share a row, a column or a box (boxes of ``b_size`` cells a
    side)."""
    return a != b and (a[0] == b[0] or a[1] == b[1] or (
        a[0] // b_size == b[0] // b_size and a[1] // b_size == b[1] // b_size))


def wing_findings(m: Matrix) -> list[Finding]:
    """W: "a cell P, a digit z, and for each digit v that P allows other than z (one or two such
    digits), a different cell A_v that sees P (shares a unit with it) and allows no digit but v
    and z: z leaves every other cell that sees every A_v, and that also sees P when P allows z"
    (XY-wing: P = {x, y}; XYZ-wing: P = {x, y, z}).

    Whatever P turns out to be, some A_v is z: P = v makes A_v, which sees it, z; and when P
    allows z, P = z.  So a cell that sees them all cannot be z.
    """
    n, b = len(m), isqrt(len(m))
    cells = [(r, c) for r in range(n) for c in range(n)]
    found = []
    for p in cells:
        xs = m[p[0]][p[1]]
        for z in digits_for(m):
            vs = without(z, xs)
            if not 1 <= len(vs) <= 2:
                continue
            pincers = [[a for a in cells if sees(a, p, b) and set(m[a[0]][a[1]]) <= {v, z}]
                       for v in vs]
            for wing in product(*pincers):
                if len(set(wing)) < len(wing):
                    continue
                removals = tuple(
                    (r, c, z) for r, c in cells
                    if z in m[r][c] and (r, c) != p and (r, c) not in wing
                    and all(sees((r, c), a, b) for a in wing)
                    and (z not in xs or sees((r, c), p, b)))
                if removals:
                    found.append(Finding(wing_text(m, p, z, wing), removals))
    return found


def wing_text(m: Matrix, p: tuple[int, int], z: str, wing: Sequence[tuple[int, int]]) -> str:
    """"XY-wing: pivot r1c2 {3,7}, pincers r1c5 {3,9}, r4c2 {7,9}, on digit 9"."""
    xs = m[p[0]][p[1]]
    name = ("XY-wing" if len(xs) == 2 and z not in xs else
            "XYZ-wing" if len(xs) == 3 and z in xs else "wing")

    def shown(cell: tuple[int, int]) -> str:
        return f"{cell_name(*cell)} {{{','.join(m[cell[0]][cell[1]])}}}"

    return f"{name}: pivot {shown(p)}, pincers {', '.join(map(shown, wing))}, on digit {z}"


wings = by_findings(wing_findings, "wings")


# -- T1 and T2: trials -----------------------------------------------------------------------------


def setting(m: Matrix, r: int, c: int, d: str) -> Matrix:
    """``m`` with cell (r, c) set to {d}."""
    return [[d if (i, j) == (r, c) else xs for j, xs in enumerate(row)] for i, row in enumerate(m)]


def trials_by(rules: Sequence[Rule], name: str) -> Callable[[Matrix], Iterator[Finding]]:
    """The findings of "d leaves cell c when the closure of ``rules`` from the current matrix with
    c set to {d} is blocked", for every open cell c and digit d it allows.

    A singleton cell is not tried: setting it to its own digit gives ``m`` itself, and when the
    closure of ``m`` is blocked so is every matrix the rules reach from it (each has fewer
    digits), so the trials of the open cells empty them and the matrix is blocked all the same.

    Nor is a trial (c', d') whose answer an earlier trial gave: when the closure K of ``m`` with c
    set to {d} is not blocked and fixes c' to {d'}, then K lies within ``m`` with c' set to {d'},
    so the closure of that holds K's closure, K itself: not blocked either (rules only remove
    digits, and a matrix with fewer digits is blocked whenever one with more is).
    """
    def findings(m: Matrix) -> Iterator[Finding]:  # one by one, as found: a T2 pass is slow
        known_open = [[""] * len(m) for _ in m]  # digits whose trial is known not to block
        for r, row in enumerate(m):
            for c, xs in enumerate(row):
                for d in xs if len(xs) > 1 else "":
                    if d in known_open[r][c]:
                        continue
                    end = closure_or_none(rules, setting(m, r, c, d))
                    if end is None:
                        text = f"{name}: {cell_name(r, c)} = {d} makes {rules_text(rules)} blocked"
                        yield Finding(text, ((r, c, d),))
                        continue
                    for i, j in product(range(len(m)), repeat=2):
                        if single(end[i][j]) and not single(m[i][j]):
                            known_open[i][j] += end[i][j]
    return findings


def closure_or_none(rules: Sequence[Rule], m: Matrix) -> Matrix | None:
    """``closure rules m``, or None when it is blocked (``ends_blocked``)."""
    while not cheaply_blocked(m):
        after = _first_change(rules, m)
        if after is None:
            return None if blocked(m) else m
        m = after
    return None


def rules_text(rules: Sequence[Rule]) -> str:
    return "the closure of " + " + ".join(RULE_LETTERS[rule.__name__] for rule in rules)


RULE_LETTERS = {"prune": "N", "hide": "H", "lock": "L", "subsets": "S", "fish": "F",
                "wings": "W", "trial": "T1", "trial2": "T2"}

trial_findings = trials_by((prune, hide), "trial")
trial = by_findings(trial_findings, "trial")
trial.__doc__ = ("T1: \"d leaves cell c when the closure of N + H (naked and hidden singles) "
                 "from the current matrix with c set to {d} is blocked\" (Berthier's T&E(1)).")
trial2_findings = trials_by((prune, hide, trial), "trial2")
trial2 = by_findings(trial2_findings, "trial2")
trial2.__doc__ = ("T2: \"d leaves cell c when the closure of N + H + T1 from the current matrix "
                  "with c set to {d} is blocked\" (T&E(2)).")


# SPEC 5.1's table: each rung and the rules whose closure it is ("search" is the rung of none).
SINGLES = (prune, hide)
RUNGS = {
    "prune": (prune,),
    "singles": SINGLES,
    "intersections": (prune, hide, lock),
    "subsets": (prune, hide, lock, subsets),
    "fish": (prune, hide, lock, subsets, fish),
    "wings": (prune, hide, lock, subsets, fish, wings),
    "trial": (prune, hide, lock, subsets, fish, wings, trial),
    "trial2": (prune, hide, lock, subsets, fish, wings, trial, trial2),
}


# -- 5.1 grade -------------------------------------------------------------------------------------


def rung_closures(g: Matrix, limit: str = DEFAULT_GRADE_LIMIT):
    """(rung, closure) for each rung up to ``limit``, until one is blocked or solved.

    Each rung goes on from the closure of the one before: its rules include the rules below,
    so its closure of that closure is its closure of ``choices g`` (SPEC 5.1: every order of
    application ends in the same matrix), and the cheap rules do the work they can first.
    """
    m = choices(g)
    for name, rules in RUNGS.items():
        m = closure(rules, m)
        yield name, m
        if name == limit or complete(m) or cheaply_blocked(m):
            return


def grade(g: Matrix, limit: str = DEFAULT_GRADE_LIMIT) -> str:
    """SPEC 5.1: the first rung up to ``limit`` whose closure of ``choices g`` is complete and
    unblocked, else "search"."""
    for name, m in rung_closures(g, limit):
        if solved(m):
            return name
    return "search"


# -- solve --explain: the path of one puzzle up the ladder ----------------------------------------


class Step(NamedTuple):
    """What one rule removed on one rung, in a solver's words."""

    rung: str
    text: str


RULE_FINDINGS = {"fish": fish_findings, "wings": wing_findings, "trial": trial_findings,
                 "trial2": trial2_findings}


def explain(g: Matrix, limit: str = DEFAULT_GRADE_LIMIT) -> Iterator[Step]:
    """Rung by rung, what each rule removed on the way to the grade of ``g``, as it is found
    (a trial2 puzzle takes minutes): the closure of each rung from the one before, its rules
    applied cheapest first (as ``closure``); the last step names the grade."""
    yield from merged_singles(_explained(g, limit))


def _explained(g: Matrix, limit: str) -> Iterator[Step]:
    m = choices(g)
    for name, rules in RUNGS.items():
        while not cheaply_blocked(m):
            for rule in rules:
                after = yield from described(rule, m, name)
                if after != m:
                    m = after
                    break
            else:
                break
        if solved(m):
            yield Step(name, f"grade: {name}")
            return
        if name == limit or cheaply_blocked(m):
            break
    yield Step("search", "grade: search")


def merged_singles(steps: Iterable[Step]) -> Iterator[Step]:
    """``steps``, where singles of the same kind on the same rung, one after the other, make
    one step (their cells listed together); each step yielded once the next one differs."""
    held = None
    for step in steps:
        kind = step.text.split(": ", 1)[0]
        if held is not None and kind.endswith("singles") and held.rung == step.rung and \
                held.text.startswith(kind + ": "):
            held = Step(step.rung, held.text + ", " + step.text.split(": ", 1)[1])
            continue
        if held is not None:
            yield held
        held = step
    if held is not None:
        yield held


def described(rule: Rule, before: Matrix, rung: str) -> Generator[Step, None, Matrix]:
    """What ``rule`` does to ``before``, as steps of ``rung`` yielded as they are found; returns
    the matrix after it. For F, W, T1 and T2 each instance that removes something none before it
    named, as the instance is found (a T2 pass takes minutes); for the others, ``describe``."""
    name = rule.__name__
    if name not in RULE_FINDINGS:
        after = rule(before)
        if after != before:
            for text in describe(rule, before, after):
                yield Step(rung, text)
        return after
    named: set[tuple[int, int, str]] = set()
    for f in RULE_FINDINGS[name](before):
        if not set(f.removals) <= named:
            yield Step(rung, f"{f.text}: {leaving(f.removals)}")
            named |= set(f.removals)
    return remove(before, list(named))  # the rule's result: every instance's removals


def describe(rule: Rule, before: Matrix, after: Matrix) -> list[str]:
    """What ``rule`` (N, H, L or S) did to ``before``: the cells it fixed for N and H; the
    digits it removed for L and S."""
    name = rule.__name__
    if name in ("prune", "hide"):
        fixed = [f"{cell_name(r, c)} = {xs}" for r, row in enumerate(after)
                 for c, xs in enumerate(row) if single(xs) and not single(before[r][c])]
        words = "naked singles" if name == "prune" else "hidden singles"
        return [f"{words}: {', '.join(fixed)}"] if fixed else []
    words = "locked candidates" if name == "lock" else "subsets"
    gone = [(r, c, d) for r, row in enumerate(before) for c, xs in enumerate(row)
            for d in xs if d not in after[r][c]]
    return [f"{words}: {leaving(gone)}"]


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
