"""Sudoku Explainer's rules below uniqueness and chains, one function per technique as SE names
it, its difficulty beside it (SPEC 5.4).

Each rule is a generator of hints in the order Sudoku Explainer finds them: the solver applies
the first hint of the first rule that has one, so the order of regions, digits and tuples is part
of the rule (``solver.reference.se_grid`` fixes the region orders; tuples are tried in SE's order,
``se_grid.combinations``). A hint that removes nothing is never yielded (SE calls it "not worth"),
except the direct hints, which are worth their placement.

    Hidden Single               1.0 last cell of a region, 1.2 in a block, 1.5 in a row or column
    Direct Pointing / Claiming  1.7 / 1.9   a locked digit leaves a hidden single
    Direct Hidden Pair/Triplet  2.0 / 2.5   a hidden set leaves a hidden single
    Naked Single                2.3
    Pointing / Claiming         2.6 / 2.8   (Generalized Intersection 2.9, never first on 9 x 9)
    Naked Pair/Triplet/Quad     3.0 / 3.6 / 5.0
    X-Wing, Swordfish, Jellyfish 3.2 / 3.8 / 5.2
    Hidden Pair/Triplet/Quad    3.4 / 4.0 / 5.4
    XY-Wing, XYZ-Wing           4.2 / 4.4
    Aligned Pair Exclusion      6.2
    Aligned Triplet Exclusion   7.5
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import product

from solver.reference.se_grid import (
    BLOCK,
    BLOCK_IDS,
    COLUMN_IDS,
    DIGITS,
    HOUSE,
    HOUSE_SET,
    KIND,
    REGIONS,
    ROW_IDS,
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

# Where region r2 lies inside region r1: a 9-bit mask of r1's indexes (0 when they do not cross).
INSIDE = [[sum(1 << i for i, c in enumerate(REGIONS[r1]) if c in REGIONS[r2]) for r2 in range(27)]
          for r1 in range(27)]

# The three region types in the order most of SE's rules scan them: blocks, columns, rows.
SCAN = (BLOCK_IDS, COLUMN_IDS, ROW_IDS)

SET_NAMES = {2: "Pair", 3: "Triplet", 4: "Quad"}
FISH_NAMES = {2: "X-Wing", 3: "Swordfish", 4: "Jellyfish"}


def popcount(m: int) -> int:
    return m.bit_count()


def common_tuple(masks: Sequence[int], degree: int) -> int | None:
    """SE's test for a set of ``degree``: every mask has at least two members and together they
    have exactly ``degree``; returns their union, or None."""
    union = 0
    for m in masks:
        if m & (m - 1) == 0:  # zero or one member
            return None
        union |= m
    return union if popcount(union) == degree else None


def removed(initial: Grid, current: Grid, cell: int, digit: int) -> bool:
    """Whether a candidate was there in ``initial`` and is gone in ``current``."""
    bit = 1 << digit
    return bool(initial.cands[cell] & bit) and not current.cands[cell] & bit


def in_region(region: int, positions: int) -> list[int]:
    cells = REGIONS[region]
    return [cells[i] for i in indexes(positions)]


# -- Singles ---------------------------------------------------------------------------------------


def hidden_singles(grid: Grid) -> Iterator[Hint]:
    """Hidden Single: a digit has one place left in a region. 1.0 when it is the region's last
    empty cell, else 1.2 in a block and 1.5 in a row or column. SE looks at the last-cell case
    first (blocks, columns, rows), then at the others in the same order."""
    table = grid.position_table()
    for last_cell in (True, False):
        for regions in SCAN:
            for r in regions:
                if (grid.empty_count(r) == 1) != last_cell:
                    continue
                for d in DIGITS:
                    pos = table[r][d]
                    if pos and not pos & (pos - 1):
                        cell = REGIONS[r][pos.bit_length() - 1]
                        difficulty = 1.0 if last_cell else 1.2 if KIND[r] == BLOCK else 1.5
                        yield Hint("Hidden Single", difficulty, [cell], [d], {}, (cell, d),
                                   f"{d} in {region_name(r)}")


def naked_singles(grid: Grid) -> Iterator[Hint]:
    """Naked Single (2.3): a cell has one candidate left."""
    for cell in range(81):
        m = grid.cands[cell]
        if not grid.values[cell] and m and not m & (m - 1):
            d = lowest(m)
            yield Hint("Naked Single", 2.3, [cell], [d], {}, (cell, d), f"{names([cell])} holds {d}")


# -- Intersections ---------------------------------------------------------------------------------

# SE's order: pointing from blocks onto columns, onto rows, then claiming from columns, from rows.
LOCKING_ORDER = ((BLOCK_IDS, COLUMN_IDS), (BLOCK_IDS, ROW_IDS), (COLUMN_IDS, BLOCK_IDS),
                 (ROW_IDS, BLOCK_IDS))


def _locked_digits(grid: Grid, table: list[list[int]]) -> Iterator[tuple[int, int, int]]:
    """(base, cover, digit): the digit has two or more places in region ``base`` and all of them
    lie where ``base`` meets ``cover`` (``table``: the grid's position table)."""
    for bases, covers in LOCKING_ORDER:
        for r1 in bases:
            for r2 in covers:
                inside = INSIDE[r1][r2]
                if not inside:
                    continue
                for d in DIGITS:
                    pos = table[r1][d]
                    if pos & (pos - 1) and not pos & ~inside:
                        yield r1, r2, d


def _locking_removals(grid: Grid, base: int, cover: int, d: int) -> dict[int, int]:
    bit = 1 << d
    inside = set(REGIONS[base])
    return {c: bit for c in REGIONS[cover] if c not in inside and grid.cands[c] & bit}


def _fish_parents(bases: Sequence[int], covers: Sequence[int], d: int):
    """SE's parents of a pointing, claiming or fish hint inside a nested chain: the digit's
    places removed from the base regions outside the cover regions."""
    covered = {c for r in covers for c in REGIONS[r]}

    def parents(initial: Grid, current: Grid) -> list[tuple[int, int]]:
        return [(c, d) for r in bases for c in REGIONS[r]
                if removed(initial, current, c, d) and c not in covered]
    return parents


def direct_intersections(grid: Grid) -> Iterator[Hint]:
    """Direct Pointing (1.7) and Direct Claiming (1.9): a digit locked in the meeting of two
    regions leaves a hidden single in another region of the first one's type."""
    table = grid.position_table()
    for r1, r2, d in _locked_digits(grid, table):
        for r3 in (BLOCK_IDS if KIND[r1] == BLOCK else ROW_IDS if r1 in ROW_IDS else COLUMN_IDS):
            if r3 == r1 or not INSIDE[r3][r2]:
                continue
            pos3 = table[r3][d]
            if not pos3 & (pos3 - 1):
                continue
            outside = pos3 & ~INSIDE[r3][r2]
            if outside and not outside & (outside - 1):
                cell = REGIONS[r3][outside.bit_length() - 1]
                pointing = KIND[r1] == BLOCK
                yield Hint("Direct Pointing" if pointing else "Direct Claiming",
                           1.7 if pointing else 1.9, in_region(r1, table[r1][d]), [d],
                           _locking_removals(grid, r1, r2, d), (cell, d),
                           f"{d} in {region_name(r1)} and {region_name(r2)}")


def intersections(grid: Grid) -> Iterator[Hint]:
    """Pointing (2.6: a block's digit confined to one row or column) and Claiming (2.8: a row's
    or column's digit confined to one block), then SE's Generalized Intersection (2.9), which on
    a 9 x 9 grid removes nothing that pointing or claiming has not already removed."""
    table = grid.position_table()
    for r1, r2, d in _locked_digits(grid, table):
        removals = _locking_removals(grid, r1, r2, d)
        if removals:
            pointing = KIND[r1] == BLOCK
            yield Hint("Pointing" if pointing else "Claiming", 2.6 if pointing else 2.8,
                       in_region(r1, table[r1][d]), [d], removals, None,
                       f"{d} in {region_name(r1)} and {region_name(r2)}",
                       _fish_parents([r1], [r2], d))
    yield from generalized_intersections(grid)


def generalized_intersections(grid: Grid) -> Iterator[Hint]:
    """Generalized Intersection (2.9): every place of a digit in a region (2 to 7 of them) sees
    a cell outside the region, which loses the digit."""
    table = grid.position_table()
    for regions in SCAN:
        for r in regions:
            members = set(REGIONS[r])
            for d in DIGITS:
                pos = table[r][d]
                if not 1 < popcount(pos) < 8:
                    continue
                cells = in_region(r, pos)
                seen = set(HOUSE_SET[cells[0]])
                for c in cells[1:]:
                    seen &= HOUSE_SET[c]
                bit = 1 << d
                removals = {c: bit for c in seen - members if grid.cands[c] & bit}
                if removals:
                    def parents(initial: Grid, current: Grid, r=r, d=d) -> list[tuple[int, int]]:
                        return [(c, d) for c in REGIONS[r] if removed(initial, current, c, d)]
                    yield Hint("Generalized Intersection", 2.9, cells, [d], removals, None,
                               f"{d} in {region_name(r)}", parents)


# -- Subsets ---------------------------------------------------------------------------------------


def _hidden_sets(grid: Grid, degree: int, direct: bool) -> Iterator[Hint]:
    table = grid.position_table()
    for regions in SCAN:
        for r in regions:
            empty = grid.empty_count(r)
            if not (empty > 2 * degree or (direct and empty > degree)):
                continue
            positions = table[r]
            for combo in combinations(degree, 9):
                values = [i + 1 for i in combo]
                common = common_tuple([positions[v] for v in values], degree)
                if common is None:
                    continue
                value_set = mask_of(values)
                cells = in_region(r, common)
                removals = {c: grid.cands[c] & ~value_set for c in cells
                            if grid.cands[c] & ~value_set}
                detail = f"{','.join(map(str, values))} in {names(cells)}"
                if direct:
                    for d in DIGITS:
                        if value_set >> d & 1 or not positions[d] & (positions[d] - 1):
                            continue
                        rest = positions[d] & ~common
                        if rest and not rest & (rest - 1):
                            cell = REGIONS[r][rest.bit_length() - 1]
                            yield Hint(f"Direct Hidden {SET_NAMES[degree]}", DIRECT_HIDDEN[degree],
                                       cells, values, removals, (cell, d), detail)
                            break
                elif removals:
                    yield Hint(f"Hidden {SET_NAMES[degree]}", HIDDEN[degree], cells, values,
                               removals, None, detail, _hidden_set_parents(r, values))


DIRECT_HIDDEN = {2: 2.0, 3: 2.5, 4: 4.3}
HIDDEN = {2: 3.4, 3: 4.0, 4: 5.4}
NAKED = {2: 3.0, 3: 3.6, 4: 5.0}
FISH = {2: 3.2, 3: 3.8, 4: 5.2}


def _hidden_set_parents(r: int, values: list[int]):
    def parents(initial: Grid, current: Grid) -> list[tuple[int, int]]:
        mine = 0
        for v in values:
            mine |= current.positions(r, v)
        return [(c, v) for i, c in enumerate(REGIONS[r]) if not mine >> i & 1
                for v in values if initial.cands[c] >> v & 1]
    return parents


def direct_hidden_pairs(grid: Grid) -> Iterator[Hint]:
    """Direct Hidden Pair (2.0): two digits confined to two cells of a region leave a hidden
    single in it; the pair's cells lose their other candidates too."""
    return _hidden_sets(grid, 2, direct=True)


def direct_hidden_triplets(grid: Grid) -> Iterator[Hint]:
    """Direct Hidden Triplet (2.5): the same with three digits in three cells."""
    return _hidden_sets(grid, 3, direct=True)


def hidden_sets(degree: int):
    """Hidden Pair (3.4), Hidden Triplet (4.0), Hidden Quad (5.4): ``degree`` digits confined to
    ``degree`` cells of a region; those cells lose their other candidates."""
    def rule(grid: Grid) -> Iterator[Hint]:
        return _hidden_sets(grid, degree, direct=False)
    rule.__name__ = f"hidden_{SET_NAMES[degree].lower()}s"
    return rule


def naked_sets(degree: int):
    """Naked Pair (3.0), Naked Triplet (3.6), Naked Quad (5.0): ``degree`` cells of a region
    with ``degree`` candidates between them; the region's other cells lose those digits."""
    def rule(grid: Grid) -> Iterator[Hint]:
        cands = grid.cands
        for regions in SCAN:
            for r in regions:
                if grid.empty_count(r) < 2 * degree:
                    continue
                for combo in combinations(degree, 9):
                    cells = [REGIONS[r][i] for i in combo]
                    common = common_tuple([cands[c] for c in cells], degree)
                    if common is None:
                        continue
                    removals = {c: cands[c] & common for c in REGIONS[r]
                                if c not in cells and cands[c] & common}
                    if removals:
                        values = digits_of(common)
                        yield Hint(f"Naked {SET_NAMES[degree]}", NAKED[degree], cells, values,
                                   removals, None,
                                   f"{','.join(map(str, values))} in {names(cells)}",
                                   _naked_set_parents(cells, common))
    rule.__name__ = f"naked_{SET_NAMES[degree].lower()}s"
    return rule


def _naked_set_parents(cells: list[int], common: int):
    def parents(initial: Grid, current: Grid) -> list[tuple[int, int]]:
        return [(c, v) for c in cells for v in DIGITS
                if initial.cands[c] >> v & 1 and not common >> v & 1]
    return parents


# -- Fish ------------------------------------------------------------------------------------------


def fish(degree: int):
    """X-Wing (3.2), Swordfish (3.8), Jellyfish (5.2): a digit's places in ``degree`` columns
    lie in ``degree`` rows (or the reverse); those rows lose it elsewhere. SE tries columns as
    the base lines first, then rows; tuples of lines outside, digits inside."""
    def rule(grid: Grid) -> Iterator[Hint]:
        occurrences = [0] + [grid.occurrences(d) for d in DIGITS]
        table = grid.position_table()
        for base_lines, cover_lines in ((COLUMN_IDS, ROW_IDS), (ROW_IDS, COLUMN_IDS)):
            for combo in combinations(degree, 9):
                bases = [base_lines[i] for i in combo]
                base_mask = sum(1 << i for i in combo)
                for d in DIGITS:
                    if occurrences[d] + 2 * degree > 9:
                        continue
                    common = common_tuple([table[b][d] for b in bases], degree)
                    if common is None:
                        continue
                    covers = [cover_lines[i] for i in indexes(common)]
                    removals = {}
                    for line in covers:
                        for c in in_region(line, table[line][d] & ~base_mask):
                            removals[c] = 1 << d
                    if removals:
                        cells = [REGIONS[line][i] for line in covers for i in combo
                                 if grid.cands[REGIONS[line][i]] >> d & 1]
                        yield Hint(FISH_NAMES[degree], FISH[degree], sorted(cells), [d], removals,
                                   None, f"{d} in {names(sorted(cells))}",
                                   _fish_parents(bases, covers, d))
    rule.__name__ = FISH_NAMES[degree].lower().replace("-", "_")
    return rule


# -- Wings -----------------------------------------------------------------------------------------


def _wings(grid: Grid, xyz: bool) -> Iterator[Hint]:
    cands = grid.cands
    pivot_size = 3 if xyz else 2
    for xy in range(81):
        xy_m = cands[xy]
        if popcount(xy_m) != pivot_size:
            continue
        for xz in HOUSE[xy]:
            xz_m = cands[xz]
            if popcount(xz_m) != 2 or popcount(xy_m & ~xz_m) != 1:
                continue
            for yz in HOUSE[xy]:
                yz_m = cands[yz]
                if popcount(yz_m) != 2:
                    continue
                union, inter = xy_m | xz_m | yz_m, xy_m & xz_m & yz_m
                if popcount(union) != 3 or popcount(inter) != (1 if xyz else 0):
                    continue
                z = lowest(xz_m & yz_m)
                victims = HOUSE_SET[xz] & HOUSE_SET[yz]
                if xyz:
                    victims &= HOUSE_SET[xy]
                removals = {c: 1 << z for c in victims - {xy, xz, yz} if cands[c] >> z & 1}
                if removals:
                    yield Hint("XYZ-Wing" if xyz else "XY-Wing", 4.4 if xyz else 4.2,
                               [xy, xz, yz], digits_of(union), removals, None,
                               f"{names([xy, xz, yz])} on {z}")


def xy_wings(grid: Grid) -> Iterator[Hint]:
    """XY-Wing (4.2): a pivot with candidates xy sees xz and yz; z leaves the cells seeing both
    wings."""
    return _wings(grid, xyz=False)


def xyz_wings(grid: Grid) -> Iterator[Hint]:
    """XYZ-Wing (4.4): a pivot with xyz sees xz and yz; z leaves the cells seeing all three."""
    return _wings(grid, xyz=True)


# -- Aligned exclusion -----------------------------------------------------------------------------


def _exclusion_bases(grid: Grid, largest: int) -> tuple[list[int], dict[int, list[int]]]:
    """SE's base cells of an aligned exclusion (two or more candidates, no naked single among
    the cells they see) and each one's excluders (cells it sees with 2..``largest``
    candidates)."""
    cands = grid.cands
    bases, excluders = [], {}
    for cell in range(81):
        if popcount(cands[cell]) < 2:
            continue
        mine, single = [], False
        for other in HOUSE[cell]:
            n = popcount(cands[other])
            if n == 1:
                single = True
            elif 2 <= n <= largest:
                mine.append(other)
        if not single and mine:
            bases.append(cell)
            excluders[cell] = mine
    return bases, excluders


def _exclusion_removals(grid: Grid, cells: Sequence[int], common: list[int]) -> dict[int, int]:
    """The candidates of ``cells`` that no allowed combination uses. A combination of one
    candidate per cell is not allowed if two cells that see each other get the same digit, or
    if it takes every candidate of one of the common excluders."""
    cands = grid.cands
    masks = tuple(cands[c] for c in cells)
    clashes = tuple((i, j) for i in range(len(cells)) for j in range(i + 1, len(cells))
                    if masks[i] & masks[j] and cells[j] in HOUSE_SET[cells[i]])
    allowed = _allowed(masks, tuple(sorted({cands[e] for e in common})), clashes)
    return {c: masks[j] & ~allowed[j] for j, c in enumerate(cells) if masks[j] & ~allowed[j]}


@lru_cache(maxsize=1 << 16)
def _allowed(masks: tuple[int, ...], excluders: tuple[int, ...],
             clashes: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    """For each cell, the candidates some allowed combination uses (a pure function of the
    candidates, the excluders' candidates and which cells see each other: cached)."""
    union = 0
    for m in masks:
        union |= m
    if not clashes and all(e & ~union for e in excluders):
        return masks  # every combination is allowed
    allowed = [0] * len(masks)
    for combo in product(*(digits_of(m) for m in masks)):
        if any(combo[i] == combo[j] for i, j in clashes):
            continue
        used = 0
        for d in combo:
            used |= 1 << d
        if any(not e & ~used for e in excluders):
            continue
        for j, d in enumerate(combo):
            allowed[j] |= 1 << d
    return tuple(allowed)


def _pairs(n: int) -> Iterator[tuple[int, int]]:
    """Pairs of range(n) in SE's order: (0,1), (0,2), (1,2), (0,3), ..."""
    for b in range(1, n):
        for a in range(b):
            yield a, b


def aligned_pair_exclusion(grid: Grid) -> Iterator[Hint]:
    """Aligned Pair Exclusion (6.2): two base cells sharing at least two bivalue excluders; a
    candidate of a base cell that no allowed pair of digits uses goes."""
    bases, excluders = _exclusion_bases(grid, 2)
    for i, j in _pairs(len(bases)):
        cells = [bases[i], bases[j]]
        second = set(excluders[cells[1]])
        common = [e for e in excluders[cells[0]] if e in second]
        if len(common) >= 2:
            removals = _exclusion_removals(grid, cells, common)
            if removals:
                yield Hint("Aligned Pair Exclusion", 6.2, cells, [], removals, None, names(cells))


def aligned_triplet_exclusion(grid: Grid) -> Iterator[Hint]:
    """Aligned Triplet Exclusion (7.5): the same with three base cells (the third seen by one of
    the first two) and excluders of two or three candidates."""
    bases, excluders = _exclusion_bases(grid, 3)
    if len(bases) < 3:
        return
    base_set = set(bases)
    excluder_sets = {c: set(e) for c, e in excluders.items()}
    for i, j in _pairs(len(bases)):
        c0, c1 = bases[i], bases[j]
        area = dict.fromkeys(excluders[c0])
        area.update(dict.fromkeys(excluders[c1]))
        tails = [c for c in area if c in base_set and c not in (c0, c1)]
        for c2 in tails:
            cells = [c0, c1, c2]
            common = [e for e in excluders[c0]
                      if e in excluder_sets[c1] and e in excluder_sets[c2]]
            if len(common) >= 2:
                removals = _exclusion_removals(grid, cells, common)
                if removals:
                    yield Hint("Aligned Triplet Exclusion", 7.5, cells, [], removals, None,
                               names(cells))
