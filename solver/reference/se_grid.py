"""The board Sudoku Explainer reasons on: 81 cells, each a value or a set of candidates, and the
27 regions in the order its rules visit them.

This is the shared vocabulary of the SE reference (``solver.reference.se``): cells are numbered
0..80 in row-major order (cell ``9 * y + x`` is r{y+1}c{x+1}), candidates are bit masks with bit
``d`` for digit ``d`` (1..9), and a region is a tuple of 9 cells in Sudoku Explainer's own order
(a block reads row by row). Which region a rule looks at first decides which hint it finds first,
and the first hint found is the one applied, so the orders here are part of the definition:

- regions of a cell, and region types in general: block, row, column;
- a cell's "house" (the cells it sees): its block, then its row, then its column, each in region
  order, without repeats and without the cell itself.

Standard library only; 9 x 9 only.
"""

from __future__ import annotations

from collections.abc import Iterator

ALL = 0b1111111110  # digits 1..9
DIGITS = range(1, 10)

BLOCKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(9 * (3 * (b // 3) + i // 3) + 3 * (b % 3) + i % 3 for i in range(9)) for b in range(9))
ROWS: tuple[tuple[int, ...], ...] = tuple(tuple(9 * y + x for x in range(9)) for y in range(9))
COLUMNS: tuple[tuple[int, ...], ...] = tuple(tuple(9 * y + x for y in range(9)) for x in range(9))

# Region ids: blocks 0..8, rows 9..17, columns 18..26 (SE's order of region types).
BLOCK, ROW, COLUMN = "block", "row", "column"
REGIONS: tuple[tuple[int, ...], ...] = BLOCKS + ROWS + COLUMNS
KIND: tuple[str, ...] = (BLOCK,) * 9 + (ROW,) * 9 + (COLUMN,) * 9
BLOCK_IDS, ROW_IDS, COLUMN_IDS = range(0, 9), range(9, 18), range(18, 27)


def block_of(cell: int) -> int:
    return 3 * (cell // 27) + (cell % 9) // 3


def row_of(cell: int) -> int:
    return 9 + cell // 9


def column_of(cell: int) -> int:
    return 18 + cell % 9


# The block, row and column of each cell (region ids), in that order.
REGIONS_OF: tuple[tuple[int, int, int], ...] = tuple(
    (block_of(c), row_of(c), column_of(c)) for c in range(81))
INDEX_IN: tuple[dict[int, int], ...] = tuple(
    {r: REGIONS[r].index(c) for r in REGIONS_OF[c]} for c in range(81))


# For each cell, (region, bit of the cell in the region's position masks), block, row, column.
SLOTS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((r, 1 << INDEX_IN[c][r]) for r in REGIONS_OF[c]) for c in range(81))


def _house(cell: int) -> tuple[int, ...]:
    seen: dict[int, None] = {}
    for r in REGIONS_OF[cell]:
        for other in REGIONS[r]:
            seen.setdefault(other)
    del seen[cell]
    return tuple(seen)


HOUSE: tuple[tuple[int, ...], ...] = tuple(_house(c) for c in range(81))
HOUSE_SET: tuple[frozenset[int], ...] = tuple(frozenset(h) for h in HOUSE)


def crosses(r1: int, r2: int) -> bool:
    """Whether two regions share a cell."""
    return not set(REGIONS[r1]).isdisjoint(REGIONS[r2])


def name(cell: int) -> str:
    """r{row}c{column}, as players write a cell."""
    return f"r{cell // 9 + 1}c{cell % 9 + 1}"


def names(cells) -> str:
    return ",".join(name(c) for c in cells)


def region_name(region: int) -> str:
    """'block 5', 'row 3', 'column 7'."""
    return f"{KIND[region]} {region % 9 + 1}"


def digits_of(mask: int) -> list[int]:
    """The digits of a candidate mask, ascending."""
    return [d for d in DIGITS if mask >> d & 1]


def mask_of(digits) -> int:
    m = 0
    for d in digits:
        m |= 1 << d
    return m


def lowest(mask: int) -> int:
    """The smallest digit of a non-empty mask."""
    return (mask & -mask).bit_length() - 1


def combinations(k: int, n: int) -> Iterator[tuple[int, ...]]:
    """The k-subsets of range(n) in Sudoku Explainer's order: by increasing bit pattern (the
    largest member varies slowest), which is the order its tuples, fish and exclusions are tried
    in. Made once per (k, n): the set and fish rules ask for the same few thousands of times a
    step inside nested chains."""
    combos = _COMBINATIONS.get((k, n))
    if combos is None:
        combos = _COMBINATIONS[(k, n)] = tuple(_combinations(k, n))
    return iter(combos)


_COMBINATIONS: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}


def _combinations(k: int, n: int) -> Iterator[tuple[int, ...]]:
    if k == 0:
        if n > 0:
            yield ()
        return
    for pattern in _patterns(k, n):
        yield tuple(i for i in range(n) if pattern >> i & 1)


def _patterns(k: int, n: int) -> Iterator[int]:
    value = (1 << k) - 1
    top = 1 << n
    while value < top:
        yield value
        smallest = value & -value
        ripple = value + smallest
        value = ripple | (((value ^ ripple) >> 2) // smallest)


class Grid:
    """A Sudoku grid as Sudoku Explainer holds it: cell values (0 = empty) and, for empty cells,
    the candidates left (a bit mask); a filled cell has no candidates."""

    __slots__ = ("values", "cands")

    def __init__(self, values: list[int], cands: list[int]) -> None:
        self.values = values
        self.cands = cands

    @classmethod
    def from_puzzle(cls, puzzle: str) -> Grid:
        """The givens placed and every empty cell's candidates computed from them (SE's
        ``rebuildPotentialValues``: a digit is a candidate unless a given in the block, row or
        column holds it; no validity check)."""
        if len(puzzle) != 81:
            raise ValueError(f"a 9 x 9 puzzle has 81 characters, this one has {len(puzzle)}")
        values = []
        for ch in puzzle:
            if ch in "123456789":
                values.append(int(ch))
            elif ch in ".0":
                values.append(0)
            else:
                raise ValueError(f"unexpected character {ch!r} in a puzzle (digits 1-9, . or 0)")
        cands = [0 if values[c] else ALL for c in range(81)]
        for c in range(81):
            if values[c]:
                bit = 1 << values[c]
                for other in HOUSE[c]:
                    cands[other] &= ~bit
        return cls(values, cands)

    def copy(self) -> Grid:
        return Grid(self.values[:], self.cands[:])

    def place(self, cell: int, digit: int) -> None:
        """Set a value and remove it from the candidates of every cell the cell sees."""
        self.values[cell] = digit
        self.cands[cell] = 0
        bit = ~(1 << digit)
        for other in HOUSE[cell]:
            self.cands[other] &= bit

    def positions(self, region: int, digit: int) -> int:
        """Where ``digit`` is still a candidate in a region: a 9-bit mask of indexes in the
        region's order."""
        bit = 1 << digit
        cands = self.cands
        m = 0
        for i, c in enumerate(REGIONS[region]):
            if cands[c] & bit:
                m |= 1 << i
        return m

    def position_table(self) -> list[list[int]]:
        """``positions(r, d)`` of every region and digit at once, ``table[r][d]``: one pass over
        the cells instead of one per region and digit (the rules that scan every region for
        every digit build it once per call)."""
        table = [[0] * 10 for _ in range(27)]
        for c, m in enumerate(self.cands):
            if not m:
                continue
            digits = []
            while m:
                low = m & -m
                m ^= low
                digits.append(low.bit_length() - 1)
            for r, bit in SLOTS[c]:
                row = table[r]
                for d in digits:
                    row[d] |= bit
        return table

    def empty_count(self, region: int) -> int:
        values = self.values
        return sum(1 for c in REGIONS[region] if not values[c])

    def occurrences(self, digit: int) -> int:
        return self.values.count(digit)

    def is_solved(self) -> bool:
        return 0 not in self.values

    def key(self) -> tuple:
        """Equality as SE's grid compares: values and candidates."""
        return (tuple(self.values), tuple(self.cands))

    def __str__(self) -> str:
        return "".join(str(v) if v else "." for v in self.values)


def indexes(mask: int) -> list[int]:
    """The set bits of a 9-bit position mask, ascending."""
    return [i for i in range(9) if mask >> i & 1]


class Hint:
    """One step of Sudoku Explainer's path: a technique as SE names it, its difficulty, the
    cells and digits of the pattern, what it removes (``removals``: cell -> candidate mask) and
    what it places (``placement``: (cell, digit) or None), and a line as a player reads it."""

    __slots__ = ("technique", "difficulty", "cells", "digits", "removals", "placement", "detail",
                 "rule_parents")

    def __init__(self, technique: str, difficulty: float, cells, digits, removals: dict[int, int],
                 placement: tuple[int, int] | None = None, detail: str = "",
                 rule_parents=None) -> None:
        self.technique = technique
        self.difficulty = difficulty
        self.cells = tuple(cells)
        self.digits = tuple(digits)
        self.removals = removals
        self.placement = placement
        self.detail = detail
        # For nested forcing chains only: (initial grid, current grid) -> the candidates whose
        # removal made this hint possible, as (cell, digit) pairs (SE's "rule parents").
        self.rule_parents = rule_parents

    @property
    def eliminations(self) -> tuple[tuple[int, int], ...]:
        """The candidates removed, as (cell, digit) pairs in cell order."""
        return tuple((c, d) for c in sorted(self.removals) for d in digits_of(self.removals[c]))

    def is_worth(self) -> bool:
        return bool(self.removals)

    def apply(self, grid: Grid) -> None:
        """Remove the candidates, then place the digit if the hint places one (SE's order)."""
        for c, m in self.removals.items():
            grid.cands[c] &= ~m
        if self.placement is not None:
            grid.place(*self.placement)

    @property
    def effects(self) -> str:
        parts = [f"{name(c)}<>{','.join(map(str, digits_of(self.removals[c])))}"
                 for c in sorted(self.removals) if self.removals[c]]
        if self.placement is not None:
            parts.append(f"{name(self.placement[0])}={self.placement[1]}")
        return ", ".join(parts)

    @property
    def text(self) -> str:
        """e.g. ``Hidden Pair: 2,5 in r1c8,r3c8 => r1c8<>7 (3.4)``."""
        head = f"{self.technique}: {self.detail}" if self.detail else self.technique
        return f"{head} => {self.effects} ({rounded(self.difficulty):.1f})"

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Hint({self.text!r})"


def rounded(x: float) -> float:
    """One decimal as serate prints it: (int)((x + 0.05) * 10) / 10."""
    return int((x + 0.05) * 10) / 10
