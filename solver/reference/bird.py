"""Richard Bird's Sudoku solver, transliterated: the oracle every fast implementation is tested against.

A reader holding the seeds (``../shared/seeds``) should find every equation here under its own
name.  Seed 000 is Bird's lecture code, 001 the derivation slides, 002 the Edinburgh tutorial
(``showGrid``, ``put``, ``readMat``, ``showMat``; its ``many`` is ``fix``), 003 Hutton's note
(``fix``, ``void``, ``safe``, ``blocked``, ``expand`` at the first open cell).

Glossary (Bird's types, as Python values)::

    Digit   = str of length 1, '1'..'9'; a blank is '0' or '.'
    Row a   = list[a]
    Matrix a = list[Row a]                 (n rows of n, n = boxsize**2; 9 for Sudoku, 4 in tests)
    Grid    = Matrix Digit
    Choices = str, the digits still possible in a cell, ascending ("123456789", "47", "5", "")

Nothing here is optimised: clarity next to the seeds is the point.  ``search`` is a generator, so
solutions come lazily and a cap is ``itertools.islice``; ``Stats`` counts the nodes it visits
exactly as SPEC.md section 2 defines them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from math import isqrt

from solver.vocabulary import BLANKS, SYMBOLS

# -- 0. Basic data types ---------------------------------------------------------------------------


def digits_for(m: list) -> str:
    """The digits of an n x n matrix: '1'..'9' for Sudoku, '1'..'4' for 4 x 4, and on with
    letters (SPEC 7): '1'..'9', 'A'..'G' for 16 x 16."""
    return SYMBOLS[: len(m)]


def blank(d: str) -> bool:
    """blank = (== '0'), with the other conventions of SPEC section 1."""
    return d in BLANKS


def single(xs) -> bool:
    """single [_] = True; single _ = False"""
    return len(xs) == 1


# -- 1. Specification ------------------------------------------------------------------------------


def choices(g: list[list[str]]) -> list[list[str]]:
    """choices = map (map choice) where choice d | blank d = digits | otherwise = [d]"""
    ds = digits_for(g)
    return [[ds if blank(d) else d for d in row] for row in g]


def cp(xss: list) -> list[list]:
    """cp [] = [[]]; cp (xs:xss) = [x:ys | x <- xs, ys <- cp xss]"""
    if not xss:
        return [[]]
    rest = cp(xss[1:])
    return [[x, *ys] for x in xss[0] for ys in rest]


def expand(m: list[list[str]]) -> list[list[list[str]]]:
    """expand = cp . map cp  (every grid a matrix of choices allows; usable on tiny inputs only)"""
    return cp([cp(list(row)) for row in m])


def nodups(xs) -> bool:
    """nodups [] = True; nodups (x:xs) = x `notElem` xs && nodups xs"""
    xs = list(xs)
    return all(x not in xs[i + 1 :] for i, x in enumerate(xs))


def rows(m: list[list]) -> list[list]:
    """rows = id"""
    return [list(r) for r in m]


def cols(m: list[list]) -> list[list]:
    """cols = transpose"""
    return [list(c) for c in zip(*m, strict=True)]


def group(xs: list, n: int) -> list[list]:
    """group (Bird's, for any box size): chop a list into pieces of n."""
    return [xs[i : i + n] for i in range(0, len(xs), n)]


def ungroup(xss: list[list]) -> list:
    """ungroup = concat"""
    return [x for xs in xss for x in xs]


def boxs(m: list[list]) -> list[list]:
    """boxs = map ungroup . ungroup . map cols . group . map group"""
    n = isqrt(len(m))
    grouped = group([group(row, n) for row in m], n)
    return [ungroup(box) for box in ungroup([cols(band) for band in grouped])]


def valid(g: list[list[str]]) -> bool:
    """valid g = all nodups (rows g) && all nodups (cols g) && all nodups (boxs g)"""
    return all(nodups(r) for r in rows(g) + cols(g) + boxs(g))


def solve1(g: list[list[str]]) -> list[list[list[str]]]:
    """solve1 = filter valid . expand . choices  (the specification; hopeless beyond 4 x 4)"""
    return [h for h in expand(choices(g)) if valid(h)]


# -- 2. Pruning ------------------------------------------------------------------------------------


def remove(xs: str, ds: str) -> str:
    """remove xs [d] = [d]; remove xs ds = filter (`notElem` xs) ds"""
    if single(ds):
        return ds
    return "".join(d for d in ds if d not in xs)


def reduce(row: list[str]) -> list[str]:
    """reduce row = map (remove ones) row where ones = [d | [d] <- row]  (Bird's pruneRow)"""
    ones = "".join(xs for xs in row if single(xs))
    return [remove(ones, xs) for xs in row]


def prune_by(f: Callable[[list], list], reducer: Callable[[list], list], m: list) -> list:
    """pruneBy f = f . map reduce . f  (sound because f . f = id for f in rows, cols, boxs)"""
    return f([reducer(unit) for unit in f(m)])


def prune(m: list[list[str]]) -> list[list[str]]:
    """prune = pruneBy boxs . pruneBy cols . pruneBy rows"""
    return prune_by(boxs, reduce, prune_by(cols, reduce, prune_by(rows, reduce, m)))


def fix(f: Callable, x):
    """fix f x = if x == x' then x else fix f x' where x' = f x  (the tutorial's ``many``)"""
    while True:
        x2 = f(x)
        if x2 == x:
            return x
        x = x2


# -- 2b. Hidden singles (the ``singles`` rule set of SPEC.md, in Bird's style) --------------------


def hidden(row: list[str]) -> list[str]:
    """A digit that only one cell of the unit still allows is that cell's value.

    hidden row = [pick xs | xs <- row] where pick xs is [d] for the first d of a non-singleton xs
    that occurs in no other cell of the row, and xs otherwise.
    """

    def pick(i: int, xs: str) -> str:
        if single(xs):
            return xs
        for d in xs:
            if not any(d in ys for j, ys in enumerate(row) if j != i):
                return d
        return xs

    return [pick(i, xs) for i, xs in enumerate(row)]


def prune_singles(m: list[list[str]]) -> list[list[str]]:
    """pruneSingles = hiddenBy boxs . hiddenBy cols . hiddenBy rows . prune"""
    m = prune(m)
    for f in (rows, cols, boxs):
        m = prune_by(f, hidden, m)
    return m


# -- 3. Properties of matrices (Hutton) ------------------------------------------------------------


def complete(m: list[list[str]]) -> bool:
    """complete = all (all single)"""
    return all(single(xs) for row in m for xs in row)


def void(m: list[list[str]]) -> bool:
    """void = any (any null)"""
    return any(len(xs) == 0 for row in m for xs in row)


def consistent(row: list[str]) -> bool:
    """consistent = nodups . concat . filter single"""
    return nodups("".join(xs for xs in row if single(xs)))


def safe(m: list[list[str]]) -> bool:
    """safe m = all consistent (rows m) && all consistent (cols m) && all consistent (boxs m)"""
    return all(consistent(u) for u in rows(m) + cols(m) + boxs(m))


def blocked(m: list[list[str]]) -> bool:
    """blocked m = void m || not (safe m)"""
    return void(m) or not safe(m)


def missing(m: list[list[str]]) -> bool:
    """Some digit has no cell left in some unit (blocked too, under the ``singles`` rule set)."""
    ds = digits_for(m)
    return any(any(d not in "".join(u) for d in ds) for u in rows(m) + cols(m) + boxs(m))


# -- 4. Single-cell expansion ----------------------------------------------------------------------


def counts(m: list[list[str]]) -> list[int]:
    """counts = filter (/= 1) . map length . concat"""
    return [n for n in (len(xs) for row in m for xs in row) if n != 1]


def break_(p: Callable, xs: list) -> tuple[list, list]:
    """break p xs = (takeWhile (not . p) xs, dropWhile (not . p) xs)"""
    for i, x in enumerate(xs):
        if p(x):
            return xs[:i], xs[i:]
    return xs, []


def expand_at(m: list[list[str]], p: Callable[[str], bool]) -> list[list[list[str]]]:
    """[rows1 ++ [row1 ++ [c] : row2] ++ rows2 | c <- cs] at the first cell satisfying p."""
    rows1, (row, *rows2) = break_(lambda r: any(p(xs) for xs in r), m)
    row1, (cs, *row2) = break_(p, row)
    return [rows1 + [row1 + [c] + row2] + rows2 for c in cs]


def expand1(m: list[list[str]]) -> list[list[list[str]]]:
    """Bird: expand the earliest cell with the fewest choices (n = minimum (counts rows))."""
    n = min(counts(m))
    return expand_at(m, lambda xs: len(xs) == n)


def expand_first(m: list[list[str]]) -> list[list[list[str]]]:
    """Hutton's expand: the first cell with more than one choice."""
    return expand_at(m, lambda xs: not single(xs))


# -- 5. Search -------------------------------------------------------------------------------------


@dataclass
class Stats:
    """What a search visited: SPEC section 2 nodes, the deepest depth, and whether the budget hit."""

    max_nodes: int
    nodes: int = 0
    depth: int = 0
    budget_exceeded: bool = False


PROPAGATORS = {
    ("bird", "fixpoint"): lambda m: fix(prune, m),
    ("bird", "once"): prune,
    ("singles", "fixpoint"): lambda m: fix(prune_singles, m),
}


def search(
    m: list[list[str]],
    stats: Stats,
    *,
    propagate: Callable = PROPAGATORS["bird", "fixpoint"],
    expander: Callable = expand1,
    is_blocked: Callable = blocked,
    depth: int = 0,
) -> Iterator[list[list[str]]]:
    """One node of SPEC section 2, lazily yielding every solution below it.

    search m | blocked pm = [] | complete pm = [map (map head) pm]
             | otherwise = (concat . map search . expand1) pm    where pm = propagate m
    Before visiting a node the budget is checked: with ``max_nodes`` nodes visited, the search stops.
    """
    if stats.nodes >= stats.max_nodes:
        stats.budget_exceeded = True
        return
    stats.nodes += 1
    stats.depth = max(stats.depth, depth)
    pm = propagate(m)
    if is_blocked(pm):
        return
    if complete(pm):
        yield [[xs[0] for xs in row] for row in pm]
        return
    for child in expander(pm):
        yield from search(
            child, stats, propagate=propagate, expander=expander,
            is_blocked=is_blocked, depth=depth + 1,
        )
        if stats.budget_exceeded:
            return


def searcher(prune_variant: str = "fixpoint", cell: str = "smallest", rules: str = "bird") -> dict:
    """The keyword arguments of ``search`` for one SPEC variant."""
    if rules == "singles":
        return {
            "propagate": PROPAGATORS["singles", "fixpoint"],
            "expander": expand1,
            "is_blocked": lambda m: blocked(m) or missing(m),
        }
    return {
        "propagate": PROPAGATORS["bird", prune_variant],
        "expander": expand1 if cell == "smallest" else expand_first,
        "is_blocked": blocked,
    }


def solutions(
    g: list[list[str]],
    stats: Stats,
    *,
    max_solutions: int,
    prune_variant: str = "fixpoint",
    cell: str = "smallest",
    rules: str = "bird",
) -> list[list[list[str]]]:
    """The first ``max_solutions`` solutions of the search from ``choices g`` (the root, depth 0)."""
    found = search(choices(g), stats, **searcher(prune_variant, cell, rules))
    return list(islice(found, max_solutions))


def prune_solvable(g: list[list[str]]) -> bool:
    """fix prune (choices g) is complete and not blocked: pruning alone solves it."""
    m = fix(prune, choices(g))
    return complete(m) and not blocked(m)


def singles_solvable(g: list[list[str]]) -> bool:
    """Naked and hidden singles to their fixpoint give a complete, unblocked matrix."""
    m = fix(prune_singles, choices(g))
    return complete(m) and not blocked(m) and not missing(m)


# -- 6. Showing and reading grids (seed 002) -------------------------------------------------------


def intersperse(sep, xs: list) -> list:
    """intersperse "|" ["123","456","789"] == ["|","123","|","456","|","789","|"]"""
    out = [sep]
    for x in xs:
        out += [x, sep]
    return out


def show_row(row: str) -> str:
    """showRow "123456789" == "|123|456|789|" (boxes of b cells: isqrt of the row's length)"""
    return "".join(intersperse("|", ["".join(g) for g in group(list(row), isqrt(len(row)))]))


def show_grid(g: list[list[str]]) -> list[str]:
    """showGrid: rows as showRow, a rule of dashes around and between the bands."""
    b = isqrt(len(g))
    rule = "-" * (len(g) + b + 1)
    bands = [[show_row("".join(r)) for r in band] for band in group(list(g), b)]
    return ungroup(intersperse([rule], bands))


def put(g: list[list[str]], blanks: str = BLANKS) -> str:
    """put = putStrLn . unlines . showGrid  (returns the text; blanks shown as spaces).
    ``blanks``: the characters that are blanks (an alphabet with ``0`` as a digit has none of
    SPEC's but ``.``)."""
    shown = [[" " if d in blanks else d for d in row] for row in g]
    return "\n".join(show_grid(shown))


def show_mat(g: list[list[str]]) -> str:
    """showMat: the 81-character interchange form, blanks as '.'."""
    return "".join("." if blank(d) else d for row in g for d in row)


def read_mat(s: str) -> list[list[str]]:
    """readMat: the interchange string back into a matrix of rows (blanks kept as given)."""
    n = isqrt(len(s))
    return [list(s[i : i + n]) for i in range(0, n * n, n)]
