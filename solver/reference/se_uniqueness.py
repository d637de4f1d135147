"""Sudoku Explainer's uniqueness rules: unique rectangles and loops (4.5 and up) and the
bivalue universal grave (BUG, 5.6 and up). They assume the puzzle has one solution.

    Unique Rectangle / Loop type 1, 2, 4   4.5; a loop of 6 cells 4.6, of 8 4.7, of 10+ 5.0
    ... type 3 with a naked or hidden set  the same plus 0.1 per set cell beyond the first
    BUG type 1                              5.6
    BUG type 2, type 4                      5.7
    BUG type 3                              5.7 plus 0.1 per naked-set digit beyond the first
"""

from __future__ import annotations

from collections.abc import Iterator

from solver.reference.se_grid import (
    DIGITS,
    HOUSE,
    HOUSE_SET,
    REGIONS,
    REGIONS_OF,
    Grid,
    Hint,
    combinations,
    digits_of,
    indexes,
    lowest,
    mask_of,
    names,
    region_name,
)
from solver.reference.se_rules import common_tuple, popcount

# -- Unique rectangles and loops -------------------------------------------------------------------


def _loops(grid: Grid, start: int, v1: int, v2: int) -> list[list[int]]:
    """SE's search for loops through ``start`` over cells holding both v1 and v2: each step
    changes region type; at most two cells may hold extra candidates unless all the extras seen
    so far are one single digit. A quirk reproduced: the extras are accumulated over every cell
    tried at a step, not only over the cells on the path."""
    cands = grid.cands
    both = 1 << v1 | 1 << v2
    found: list[list[int]] = []
    loop: list[int] = []

    def walk(cell: int, allowed_extra: int, extras: int, last_kind: int) -> None:
        loop.append(cell)
        for kind, region in enumerate(REGIONS_OF[cell]):
            if kind == last_kind:
                continue
            for nxt in REGIONS[region]:
                if nxt == loop[0] and len(loop) >= 4:
                    found.append(loop[:])
                elif nxt not in loop:
                    m = cands[nxt]
                    if m & both == both:
                        extras |= m & ~both
                        n = popcount(m)
                        if n == 2 or popcount(extras) == 1 or allowed_extra > 0:
                            walk(nxt, allowed_extra - (1 if n > 2 else 0), extras, kind)
        loop.pop()

    walk(start, 2, 0, -1)
    return found


def _is_valid_loop(loop: list[int]) -> bool:
    """Every region the loop enters it enters once at an odd and once at an even step."""
    odd: set[int] = set()
    even: set[int] = set()
    for i, cell in enumerate(loop):
        seen = odd if i % 2 else even
        for region in REGIONS_OF[cell]:
            if region in seen:
                return False
            seen.add(region)
    return odd == even


def loop_difficulty(size: int) -> float:
    """A loop's difficulty by its number of cells (plain Python: the compiled rating compiles
    this very function)."""
    result = 4.5
    if size >= 10:
        result += 0.3
    if size >= 8:
        result += 0.2
    elif size >= 6:
        result += 0.1
    return result


class _Loop:
    """One unique rectangle or loop hint before sorting (type, difficulty, identity)."""

    __slots__ = ("type", "loop", "v1", "v2", "removals", "difficulty", "name", "identity",
                 "detail")

    def __init__(self, type_: int, loop: list[int], v1: int, v2: int, removals: dict[int, int],
                 extra_difficulty: float = 0.0, extra_name: str = "", identity=None) -> None:
        self.type = type_
        self.loop = loop
        self.v1, self.v2 = v1, v2
        self.removals = removals
        self.difficulty = loop_difficulty(len(loop)) + extra_difficulty  # + 0.0 is exact
        shape = "Rectangle" if len(loop) == 4 else "Loop"
        size = f" {len(loop)}" if len(loop) > 6 else ""
        self.name = f"Unique {shape}{size} type {type_}{extra_name}"
        # SE's equality of these hints: same kind (type 3 naked and hidden are different kinds),
        # same set of cells, and for type 3 the same set (region, digits, cells)
        self.identity = (type_, frozenset(loop), identity)
        self.detail = f"{names(loop)} on {v1},{v2}"


def unique_rectangles_and_loops(grid: Grid) -> Iterator[Hint]:
    """Unique Rectangle / Unique Loop, types 1 to 4: cells alternating two digits around a loop
    would give two solutions, so the cells with extra candidates must keep one of them.

    SE collects every hint (bivalue start cells in row-major order, loops in search order, each
    loop's types in the order 1; 2; 3 then 4), drops repeats, and sorts them by difficulty then
    type, keeping the order found among equals; the first is applied."""
    cands = grid.cands
    result: list[_Loop] = []
    seen = set()

    def add(hint: _Loop | None) -> None:
        if hint is not None and hint.removals and hint.identity not in seen:
            seen.add(hint.identity)
            result.append(hint)

    for cell in range(81):
        m = cands[cell]
        if popcount(m) != 2:
            continue
        v1 = lowest(m)
        v2 = lowest(m & ~(1 << v1))
        for loop in _loops(grid, cell, v1, v2):
            if not _is_valid_loop(loop):
                continue
            extra = [c for c in loop if popcount(cands[c]) > 2]
            if len(extra) == 1:
                add(_Loop(1, loop, v1, v2, {extra[0]: 1 << v1 | 1 << v2}))
            elif len(extra) > 2:
                add(_type2(grid, loop, extra, v1, v2))
            elif len(extra) == 2:
                c1, c2 = extra
                others = (cands[c1] | cands[c2]) & ~(1 << v1 | 1 << v2)
                if popcount(others) == 1:
                    add(_type2(grid, loop, extra, v1, v2))
                elif popcount(others) >= 2:
                    for hint in _type3(grid, loop, c1, c2, v1, v2):
                        add(hint)
                add(_type4(grid, loop, c1, c2, v1, v2))
    result.sort(key=lambda h: (h.difficulty, h.type))
    for h in result:
        yield Hint(h.name, h.difficulty, h.loop, [h.v1, h.v2], h.removals, None, h.detail)


def _type2(grid: Grid, loop: list[int], extra: list[int], v1: int, v2: int) -> _Loop:
    """Type 2: the extra cells share one extra digit, which leaves every cell seeing them all."""
    value = lowest(grid.cands[extra[0]] & ~(1 << v1 | 1 << v2))
    common = set(HOUSE[extra[0]])
    for c in extra[1:]:
        common &= HOUSE_SET[c]
    removals = {c: 1 << value for c in common if c not in extra and grid.cands[c] >> value & 1}
    return _Loop(2, loop, v1, v2, removals)


def _shared_regions(c1: int, c2: int) -> list[int]:
    return [r for r, s in zip(REGIONS_OF[c1], REGIONS_OF[c2], strict=True) if r == s]


def _type3(grid: Grid, loop: list[int], c1: int, c2: int, v1: int, v2: int) -> list[_Loop]:
    """Type 3: the extra digits of the two extra cells act as one cell of a naked set, or the
    loop digits with others form a hidden set, in a region both extra cells share."""
    cands = grid.cands
    out: list[_Loop] = []
    pair = 1 << v1 | 1 << v2
    extra = (cands[c1] | cands[c2]) & ~pair
    for degree in range(popcount(extra), 8):
        for region in _shared_regions(c1, c2):
            cells = REGIONS[region]
            empty = grid.empty_count(region)
            i1, i2 = cells.index(c1), cells.index(c2)
            if degree * 2 <= empty:
                for combo in combinations(degree, 9):
                    if i1 not in combo or i2 in combo:
                        continue
                    naked = extra & cands[c1] & cands[c2]
                    masks, others = [], []
                    for i in combo:
                        if i == i1:
                            masks.append(extra)
                        else:
                            masks.append(cands[cells[i]])
                            naked |= cands[cells[i]]
                            others.append(cells[i])
                    if popcount(naked) != degree:
                        continue
                    common = common_tuple(masks, degree)
                    if common is None:
                        continue
                    removals = {c: cands[c] & common for c in cells
                                if c not in others and c not in (c1, c2) and cands[c] & common}
                    values = digits_of(common)
                    out.append(_Loop(3, loop, v1, v2, removals, (len(values) - 1) * 0.1,
                                     f" (w/Naked {SET_NAME[len(values)]})",
                                     ("naked", region, tuple(values), tuple(others))))
            if degree * 2 < empty:
                rest = [v for v in DIGITS if v not in (v1, v2) and not extra >> v & 1]
                if degree - 2 <= len(rest):
                    for combo in combinations(degree - 2, len(rest)):
                        values = [rest[i] for i in combo] + [v1, v2]
                        masks = [grid.positions(region, v) & ~(1 << i2) for v in values]
                        union = 0
                        for m in masks:
                            union |= m
                        if any(m == 0 for m in masks) or popcount(union) != degree:
                            continue
                        hidden = mask_of(values)
                        places = union & ~(1 << i1) & ~(1 << i2)
                        removals = {}
                        for i in indexes(places):
                            c = cells[i]
                            if cands[c] & ~hidden:
                                removals[c] = cands[c] & ~hidden
                        n_places = popcount(places)
                        out.append(_Loop(3, loop, v1, v2, removals, (n_places - 1) * 0.1,
                                         f" (w/Hidden {SET_NAME[popcount(hidden)]})",
                                         ("hidden", region, hidden, places)))
    return out


SET_NAME = {2: "Pair", 3: "Triplet", 4: "Quad", 5: "Quintuplet", 6: "Sextuplet", 7: "Septuplet",
            8: "Octuplet"}


def _type4(grid: Grid, loop: list[int], c1: int, c2: int, v1: int, v2: int) -> _Loop | None:
    """Type 4: one loop digit is locked in both extra cells of a shared region, so the other
    loop digit leaves them."""
    lock1 = lock2 = None
    for region in _shared_regions(c1, c2):
        others = [c for c in REGIONS[region] if c not in (c1, c2)]
        if not any(grid.cands[c] >> v1 & 1 for c in others):
            lock1 = region
        if not any(grid.cands[c] >> v2 & 1 for c in others):
            lock2 = region
    if lock1 is not None:
        return _Loop(4, loop, v1, v2, {c1: 1 << v2, c2: 1 << v2})
    if lock2 is not None:
        return _Loop(4, loop, v2, v1, {c1: 1 << v1, c2: 1 << v1})
    return None


# -- Bivalue universal grave -----------------------------------------------------------------------


def bug(grid: Grid) -> Iterator[Hint]:
    """BUG types 1 to 4: if the extra candidates of a few cells were gone, every empty cell would
    have two candidates and every digit two places in each region (a "bivalue universal grave"),
    which has two solutions; so one of the extras is true."""
    cands = grid.cands
    reduced = cands[:]
    bug_cells: list[int] = []
    bug_values: dict[int, int] = {}
    all_values = 0
    common: list[int] | None = None
    for region in range(27):
        cells = REGIONS[region]
        for d in DIGITS:
            pos = grid.positions(region, d)
            if popcount(pos) in (0, 2):
                continue
            new = [cells[i] for i in indexes(pos) if popcount(cands[cells[i]]) >= 3]
            if len(new) == 1:
                cell = new[0]
                if cell not in bug_cells:
                    bug_cells.append(cell)
                bug_values[cell] = bug_values.get(cell, 0) | 1 << d
                all_values |= 1 << d
                reduced[cell] &= ~(1 << d)
                if common is None:
                    common = list(HOUSE[cell])
                else:
                    common = [c for c in common if c in HOUSE_SET[cell]]
                common = [c for c in common if c not in bug_cells]
                if len(bug_cells) > 1 and popcount(all_values) > 1 and not common:
                    return
            if not new:
                return
    for cell in range(81):
        if not grid.values[cell] and popcount(reduced[cell]) != 2:
            return
    after = Grid(grid.values, reduced)
    for region in range(27):
        for d in DIGITS:
            if popcount(after.positions(region, d)) not in (0, 2):
                return
    if len(bug_cells) == 1:
        cell = bug_cells[0]
        yield Hint("BUG type 1", 5.6, [cell], digits_of(all_values),
                   {cell: cands[cell] & ~all_values}, None, names([cell]))
    elif popcount(all_values) == 1:
        yield from _bug2(grid, bug_cells, all_values, common)
        if len(bug_cells) == 2:
            yield from _bug4(grid, bug_cells, bug_values, all_values)
    elif common:
        if len(bug_cells) == 2:
            yield from _bug4(grid, bug_cells, bug_values, all_values)
        yield from _bug3(grid, bug_cells, all_values, common)


def _bug2(grid: Grid, bug_cells, all_values, common) -> Iterator[Hint]:
    value = lowest(all_values)
    if common:
        removals = {c: 1 << value for c in common if grid.cands[c] >> value & 1}
        if removals:
            yield Hint("BUG type 2", 5.7, bug_cells, [value], removals, None,
                       f"{names(bug_cells)} on {value}")


def _common_region(cells: list[int]) -> list[int]:
    """For each region type (block, row, column), the region all ``cells`` share, if any."""
    out = []
    for kind in range(3):
        regions = {REGIONS_OF[c][kind] for c in cells}
        if len(regions) == 1:
            out.append(regions.pop())
    return out


def _bug3(grid: Grid, bug_cells, all_values, common) -> Iterator[Hint]:
    cands = grid.cands
    for region in _common_region(bug_cells):
        members = set(REGIONS[region])
        region_cells = [c for c in common if c in members]
        for degree in range(2, 7):
            if len(region_cells) < degree:
                continue
            for combo in combinations(degree - 1, len(region_cells)):
                naked_cells = [region_cells[i] for i in combo]
                others = 0
                for c in naked_cells:
                    others |= cands[c]
                if popcount(others) != degree:
                    continue
                naked = common_tuple([cands[c] for c in naked_cells] + [all_values], degree)
                if naked is None:
                    continue
                erasable = [c for c in region_cells if c not in naked_cells and c not in bug_cells]
                removals = {c: cands[c] & naked for c in erasable if cands[c] & naked}
                if removals:
                    yield Hint("BUG type 3", 5.7 + (popcount(naked) - 1) * 0.1, bug_cells,
                               digits_of(naked), removals, None,
                               f"{names(bug_cells)} with {names(naked_cells)} on "
                               f"{','.join(map(str, digits_of(naked)))} in {region_name(region)}")


def _bug4(grid: Grid, bug_cells, bug_values, all_values) -> Iterator[Hint]:
    cands = grid.cands
    c1, c2 = bug_cells
    shared = cands[c1] & cands[c2] & ~all_values
    if popcount(shared) != 1:
        return
    value = lowest(shared)
    for _region in _common_region(bug_cells):
        removals = {c1: cands[c1] & ~bug_values[c1] & ~(1 << value),
                    c2: cands[c2] & ~bug_values[c2] & ~(1 << value)}
        yield Hint("BUG type 4", 5.7, bug_cells, [value], removals, None,
                   f"{names(bug_cells)} on {value}")

