"""Sudoku Explainer's chains: cycles, forcing chains, Nishio, multiple, dynamic and nested forcing
chains, with serate's length bonus (SPEC 5.4).

A chain is a set of implications between candidates ("r1c2 is 5" = a candidate on, "r1c2 is not
5" = off), each remembering the candidate(s) it was deduced from (its parents):

- on => off: the cell's other candidates go (the cell rule, off in Nishio and X-only chains) and
  the digit leaves the cell's block, row and column;
- off => on: a cell left with one other candidate holds it; a region with one other place for the
  digit holds it there. In a dynamic chain the candidates turned off are removed from the grid as
  the chain goes, so these rules see them gone (the removed ones become extra parents), and from
  level 1 on, when nothing else follows, simpler rules run on that reduced grid (pointing,
  claiming, hidden and naked pairs, X-wings; from level 2 on also chains) and what they remove is
  off too.

Each kind of hint has a base difficulty and grows with its length, the number of distinct
candidates in its chains (``complexity``, nested chains' complexities added):

    Bidirectional X-Cycle / Y-Cycle     6.5      Forcing X-Chain (Turbot Fish)  6.6
    Bidirectional Cycle, Forcing Chain  7.0      Nishio Forcing Chains          7.5
    Multiple (Cell/Region) Forcing      8.0      Dynamic Forcing Chains         8.5
    Dynamic Forcing Chains (+)          9.0      nested levels 2, 3, 4, 5       9.5, 10.0, 10.5, 11.0

    bonus = 0.1 for each step of 4, 6, 8, 12, 16, 24, 32, ... (alternately x 3/2 and x 4/3,
            rounded down) that complexity - 2 exceeds.

Every chain rule collects all its hints, sorts them by difficulty, then complexity, then kind,
keeping the order found among equals, and the first is applied.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator

from solver.reference import se_rules
from solver.reference.se_grid import (
    HOUSE,
    KIND,
    REGIONS,
    REGIONS_OF,
    Grid,
    Hint,
    digits_of,
    indexes,
    lowest,
    name,
    names,
    region_name,
)

# Why a candidate is on or off (SE's "cause"); region causes are 1 + the region's type index.
NAKED, HIDDEN_BLOCK, HIDDEN_ROW, HIDDEN_COLUMN, ADVANCED = 0, 1, 2, 3, 4


# -- The work budget -------------------------------------------------------------------------------


class OverBudget(Exception):
    """A rating's chains did more work than its budget allows (``Meter.limit``)."""


class Meter:
    """The work of one rating's chains: candidates taken off a search's queues (the "on" and
    the "off" ones of ``Chaining.propagate`` and ``Chaining.forcing_chains``; each candidate
    ``Chaining.cycles`` reaches, once), nested searches included. It counts steps, not seconds, so a
    puzzle is over a budget on every machine or on none, and the compiled implementation counts
    the same unit. Past ``limit`` (None: no limit) the next search to end raises
    ``OverBudget``."""

    __slots__ = ("spent", "limit")

    def __init__(self, limit: int | None = None) -> None:
        self.spent = 0
        self.limit = limit

    def charge(self, work: int) -> None:
        self.spent += work
        if self.limit is not None and self.spent > self.limit:
            raise OverBudget(f"{self.spent:,} chain steps, over the budget of "
                             f"{self.limit:,}")


# The meter of the rating under way (``se.se_rating`` sets one for each puzzle). One module-level
# meter, rather than one handed to every rule and nested rule, keeps the rules' signatures those
# of SE; the reference rates one puzzle at a time in a process.
meter = Meter()


def key(cell: int, digit: int, on: bool) -> int:
    """Candidates are equal when cell, digit and state are (SE's Potential.equals)."""
    return (cell * 10 + digit) * 2 + on


class Node:
    """A candidate on or off in a chain, with the candidates it follows from (SE's Potential)."""

    __slots__ = ("cell", "digit", "on", "parents", "cause", "nested", "key")

    def __init__(self, cell: int, digit: int, on: bool, parents: list[Node] | None = None,
                 cause: int | None = None, nested: ChainHint | None = None) -> None:
        self.cell = cell
        self.digit = digit
        self.on = on
        self.parents = parents if parents is not None else []
        self.cause = cause
        self.nested = nested
        self.key = (cell * 10 + digit) * 2 + on

    def __repr__(self) -> str:
        return f"{name(self.cell)}{'=' if self.on else '<>'}{self.digit}"


def chain_of(target: Node) -> list[Node]:
    """The candidates a target follows from, breadth first, each once (SE's getChain)."""
    result, done, todo = [], set(), [target]
    while todo:
        nxt = []
        for p in todo:
            if p.key not in done:
                done.add(p.key)
                result.append(p)
                nxt.extend(p.parents)
        todo = nxt
    return result


def ancestor_count(target: Node) -> int:
    return len(chain_of(target))


def length_bonus(complexity: int) -> float:
    """serate's length bonus: 0.1 per step of 4, 6, 8, 12, 16, 24, ... below complexity - 2
    (added up in floating point as serate does)."""
    added, ceiling, odd = 0.0, 4, False
    length = complexity - 2
    while length > ceiling:
        added += 0.1
        ceiling = ceiling * 3 // 2 if not odd else ceiling * 4 // 3
        odd = not odd
    return added


# -- The implication rules -------------------------------------------------------------------------

REGION_MASK = tuple(sum(1 << c for c in cells) for cells in REGIONS)
MASKS_OF = tuple(tuple(REGION_MASK[r] for r in REGIONS_OF[c]) for c in range(81))


class Board:
    """The candidates as chains read them: per cell (``cands``, the grid's own list) and per
    digit (``places[d]``, an 81-bit mask of the cells where d is a candidate). Walking a mask's
    bits upwards visits a block's, row's or column's cells in SE's region order."""

    __slots__ = ("grid", "cands", "places")

    def __init__(self, grid: Grid) -> None:
        self.grid = grid
        self.cands = grid.cands
        places = [0] * 10
        for c, m in enumerate(grid.cands):
            while m:
                low = m & -m
                places[low.bit_length() - 1] |= 1 << c
                m ^= low
        self.places = places

    def remove(self, cell: int, digit: int) -> None:
        self.cands[cell] &= ~(1 << digit)
        self.places[digit] &= ~(1 << cell)

    def saved(self) -> tuple[list[int], list[int]]:
        return self.cands[:], self.places[:]

    def restore(self, saved: tuple[list[int], list[int]]) -> None:
        self.cands[:] = saved[0]
        self.places[:] = saved[1]


def bits(m: int) -> Iterator[int]:
    """The set bits of a mask, lowest first."""
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def on_to_off(board: Board, p: Node, cell_rule: bool, known: dict[int, Node] | None = None,
              opposite: dict[int, Node] | None = None) -> list[Node]:
    """What an "on" candidate turns off: the cell's other candidates (if ``cell_rule``), then
    the digit in the block, row and column (each candidate once, first reason kept).

    With ``known`` (the "off" candidates found so far) and ``opposite`` (the "on" ones), a
    candidate already known off and not known on is left out: the propagation would drop it
    (it neither is new nor makes a contradiction), and not making it saves most of the time."""
    # The loops below spell out ``bits`` and the known-off test on purpose: this is the
    # propagation's innermost loop, and ``bits`` with a helper for the test made the chain
    # puzzles of the test excerpt (ER 7.5-8.4) 36% slower (3.05 -> 4.16 CPU s).
    out: list[Node] = []
    cell, d = p.cell, p.digit
    if cell_rule:
        m = board.cands[cell] & ~(1 << d)
        while m:
            low = m & -m
            m ^= low
            v = low.bit_length() - 1
            k = (cell * 10 + v) * 2
            if known is not None and k in known and k + 1 not in opposite:
                continue
            out.append(Node(cell, v, False, [p], NAKED))
    others = board.places[d] & ~(1 << cell)
    cause = 0
    for region in MASKS_OF[cell]:
        cause += 1
        m = others & region
        others ^= m
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            k = (c * 10 + d) * 2
            if known is not None and k in known and k + 1 not in opposite:
                continue
            out.append(Node(c, d, False, [p], cause))
    return out


def off_to_on(board: Board, p: Node, source: tuple[list[int], list[int]] | None,
              offs: dict[int, Node], cell_rule: bool, region_rule: bool,
              known: dict[int, Node] | None = None) -> list[Node]:
    """What an "off" candidate turns on: the last other candidate of a bivalue cell (if
    ``cell_rule``), the other place of the digit in a region with two places (if
    ``region_rule``). With a ``source`` (dynamic chains: the candidates when the chain
    started), the candidates removed since from that cell or region are extra parents.
    With ``known`` (the "on" candidates found so far), one already known on and not known off
    (in ``offs``) is left out, as in ``on_to_off``."""
    out: list[Node] = []
    cell, d = p.cell, p.digit
    if cell_rule:
        m = board.cands[cell]
        if m.bit_count() == 2:
            other = lowest(m & ~(1 << d)) if m >> d & 1 else lowest(m)
            k = (cell * 10 + other) * 2 + 1
            if known is None or k not in known or k - 1 in offs:
                n = Node(cell, other, True, [p], NAKED)
                if source is not None:
                    for v in bits(source[0][cell] & ~m):
                        n.parents.append(offs[(cell * 10 + v) * 2])
                out.append(n)
    if region_rule:
        places = board.places[d]
        me = 1 << cell
        found = cause = 0
        for region in MASKS_OF[cell]:
            cause += 1
            m = places & region
            if m.bit_count() != 2:
                continue
            o = m ^ me if m & me else m & -m
            if found & o:
                continue  # the same cell through an earlier region: the first reason is kept
            found |= o
            target = o.bit_length() - 1
            k = (target * 10 + d) * 2 + 1
            if known is not None and k in known and k - 1 not in offs:
                continue
            n = Node(target, d, True, [p], cause)
            if source is not None:
                for c in bits(source[1][d] & region & ~m):
                    n.parents.append(offs[(c * 10 + d) * 2])
            out.append(n)
    return out


def is_ancestor(child: Node, candidate: Node) -> bool:
    """Whether ``candidate`` is on the first-parent line of ``child`` (SE's isParent)."""
    p = child
    while p.parents:
        p = p.parents[0]
        if p.key == candidate.key:
            return True
    return False


# -- Hints -----------------------------------------------------------------------------------------

CYCLE, FORCING, BINARY, CELL, REGION = "cycle", "forcing", "binary", "cell", "region"


class ChainHint:
    """A chain hint before it is chosen: its removals, its chains' targets, and what its
    difficulty and rank need. ``kind`` is one of the five kinds of SE's chaining hints."""

    __slots__ = ("kind", "rule", "removals", "targets", "result", "x", "y", "absurd", "source",
                 "region", "digit", "_complexity", "_difficulty")

    def __init__(self, kind: str, rule: Chaining, removals: dict[int, int], targets: list[Node],
                 result: Node | None, *, x: bool = True, y: bool = True, absurd: bool = False,
                 source: Node | None = None, region: int | None = None, digit: int = 0) -> None:
        self.kind = kind
        self.rule = rule
        self.removals = removals
        self.targets = targets
        self.result = result
        self.x, self.y = x, y
        self.absurd = absurd
        self.source = source
        self.region = region
        self.digit = digit
        self._complexity = -1
        self._difficulty = -1.0

    def flat_complexity(self) -> int:
        if self.kind == CYCLE:  # the cycle's "off" view repeats the same candidates
            return ancestor_count(self.targets[0])
        return sum(ancestor_count(t) for t in self.targets)

    def nested_complexity(self) -> int:
        total, processed = 0, set()
        for target in self.targets:
            for p in chain_of(target):
                if p.nested is not None:
                    identity = p.nested.identity()
                    if identity not in processed:
                        processed.add(identity)
                        total += p.nested.complexity()
        return total

    def identity(self) -> tuple:
        """SE's FullChain equality: the same candidates in the same order in every chain."""
        return tuple(tuple(p.key for p in chain_of(t)) for t in self.targets)

    def complexity(self) -> int:
        if self._complexity < 0:
            self._complexity = self.flat_complexity() + self.nested_complexity()
        return self._complexity

    def base_difficulty(self) -> float:
        if self.kind == CYCLE:
            return 7.0 if self.x and self.y else 6.5
        if self.kind == FORCING:
            return 7.0 if self.x and self.y else 6.6
        return self.rule.difficulty

    def difficulty(self) -> float:
        if self._difficulty < 0:
            self._difficulty = self.base_difficulty() + length_bonus(self.complexity())
        return self._difficulty

    def sort_key(self) -> int:
        if self.kind in (CYCLE, FORCING):
            return 4 if self.x and self.y else 3 if self.y else 2
        if self.kind == BINARY:
            return 7 if self.absurd else 1
        return 5 if self.kind == CELL else 6

    def rank(self) -> tuple[float, int, int]:
        return (self.difficulty(), self.complexity(), self.sort_key())

    def placement(self) -> tuple[int, int] | None:
        r = self.result
        return (r.cell, r.digit) if r is not None and r.on else None

    def name(self) -> str:
        if self.kind == CYCLE:
            if self.x and self.y:
                return "Bidirectional Cycle"
            if self.y:
                return "Bidirectional Y-Cycle"
            return "Generalized X-Wing" if len(self.cycle_cells()) == 4 else "Bidirectional X-Cycle"
        if self.kind == FORCING:
            if self.x and self.y:
                return "Forcing Chain"
            if self.y:
                return "Forcing Y-Chain"
            return "Turbot Fish" if ancestor_count(self.targets[0]) == 6 else "Forcing X-Chain"
        rule = self.rule
        if self.kind == BINARY:
            what = "Forcing" if rule.nishio else "Contradiction Forcing" if self.absurd \
                else "Double Forcing"
        else:
            what = "Cell Forcing" if self.kind == CELL else "Region Forcing"
        return rule.prefix + what + rule.suffix

    def cycle_cells(self) -> list[int]:
        cells: dict[int, None] = {}
        p = self.targets[1]
        while p.parents:
            p = p.parents[0]
            cells.setdefault(p.cell)
        return list(cells)

    def rule_parents(self, initial: Grid, current: Grid) -> list[tuple[int, int]]:
        """SE's parents of this chain used inside a nested chain: the candidates removed from
        ``initial`` that its "on" steps relied on (collectRuleParents)."""
        result: dict[tuple[int, int], None] = {}
        ini, cur = initial.cands, current.cands
        for target in self.targets:
            done, todo = set(), [target]
            while todo:
                nxt = []
                for p in todo:
                    if p.key in done:
                        continue
                    done.add(p.key)
                    cause = p.cause
                    if cause is None:
                        if self.kind == CELL:
                            cause = NAKED
                        elif self.kind == REGION:
                            cause = 1 + ("block", "row", "column").index(KIND[self.region])
                    if p.on and cause is not None:
                        if cause == NAKED:
                            gone = ini[p.cell] & ~cur[p.cell]
                            for v in digits_of(gone):
                                result.setdefault((p.cell, v))
                        else:
                            bit = 1 << p.digit
                            for c in REGIONS[REGIONS_OF[p.cell][cause - 1]]:
                                if ini[c] & bit and not cur[c] & bit:
                                    result.setdefault((c, p.digit))
                    nxt.extend(p.parents)
                todo = nxt
        return list(result)

    def detail(self) -> str:
        def says(p: Node) -> str:
            return f"{name(p.cell)}{'=' if p.on else '<>'}{p.digit}"
        if self.kind == CYCLE:
            return f"{names(self.cycle_cells())}" + ("" if self.y else f" on {self.targets[0].digit}")
        if self.kind == FORCING:
            t = self.targets[0]
            return f"{says(Node(t.cell, t.digit, not t.on))} leads to {says(t)}"
        if self.kind == BINARY:
            src, on, off = self.source, self.targets[0], self.targets[1]
            if self.absurd or self.rule.nishio:
                return f"{says(src)} leads to both {says(on)} and {says(off)}"
            return (f"{name(src.cell)}={src.digit} and {name(src.cell)}<>{src.digit} "
                    f"both lead to {says(on)}")
        target = self.targets[0]
        if self.kind == CELL:
            return f"each candidate of {name(self.source.cell)} leads to {says(target)}"
        return f"each place of {self.digit} in {region_name(self.region)} leads to {says(target)}"

    def to_hint(self) -> Hint:
        cells, digits = set(), set()
        for t in self.targets:
            for p in chain_of(t):
                cells.add(p.cell)
                digits.add(p.digit)
        return Hint(self.name(), self.difficulty(), sorted(cells), sorted(digits),
                    {c: m for c, m in self.removals.items()}, self.placement(), self.detail(),
                    self.rule_parents)


def _sorted_unique(hints: list[ChainHint]) -> list[ChainHint]:
    """SE's order of a chain rule's hints: by rank, stable; then repeats (same removals) out."""
    hints.sort(key=ChainHint.rank)
    seen, out = set(), []
    for h in hints:
        k = tuple(sorted(h.removals.items()))
        if k not in seen:
            seen.add(k)
            out.append(h)
    return out


def _removals_on(cands: list[int], target: Node) -> dict[int, int]:
    """What a target "on" removes: its cell's other candidates (nothing if none)."""
    m = cands[target.cell] & ~(1 << target.digit)
    return {target.cell: m} if m else {}


def _removals(cands: list[int], target: Node) -> dict[int, int]:
    return _removals_on(cands, target) if target.on else {target.cell: 1 << target.digit}


# -- The chaining rules ----------------------------------------------------------------------------


class Chaining:
    """One of serate's chaining rules (SE's ``Chaining(multiple, dynamic, nishio, level)``).

    ``multiple``: cell and region forcing chains; ``dynamic``: candidates turned off are removed
    from the grid as the chain goes; ``nishio``: contradictions only, without the cell rule;
    ``level`` 1..5: nested rules run when the chain stalls (see ``inner_rules``). Without
    ``multiple`` and ``dynamic`` it is the "forcing chains and cycles" rule."""

    def __init__(self, multiple: bool, dynamic: bool, nishio: bool, level: int) -> None:
        self.multiple, self.dynamic, self.nishio, self.level = multiple, dynamic, nishio, level
        self._inner: list[Callable[[Grid], list]] | None = None
        if level >= 2:
            self.difficulty = 9.5 + 0.5 * (level - 2)
        elif level > 0:
            self.difficulty = 8.5 + 0.5 * level
        elif nishio:
            self.difficulty = 7.5
        elif dynamic:
            self.difficulty = 8.5
        elif multiple:
            self.difficulty = 8.0
        else:
            self.difficulty = 0.0  # cycles and forcing chains rate themselves
        self.prefix = "Dynamic " if level > 0 or (dynamic and not nishio) else \
            "Nishio " if nishio else ""
        self.suffix = " Chains" + nested_suffix(level)

    # The hints of this rule on a grid, in SE's order (sorted, repeats out).
    def hints(self, grid: Grid) -> list[ChainHint]:
        board = Board(grid)
        if self.multiple or self.dynamic:
            found = []
            for cell in range(81):
                if not grid.values[cell]:
                    n = grid.cands[cell].bit_count()
                    if n > 2 or (n > 1 and self.dynamic):
                        found.extend(self.cell_hints(board, cell, n))
        else:
            found = (self.loop_hints(board, y=False, x=True)
                     + self.loop_hints(board, y=True, x=False)
                     + self.loop_hints(board, y=True, x=True))
        return _sorted_unique(found)

    # -- cycles and forcing chains (static, one assumption)

    def loop_hints(self, board: Board, y: bool, x: bool) -> list[ChainHint]:
        result: list[ChainHint] = []
        values, cands = board.grid.values, board.cands
        for cell in range(81):
            if not values[cell] and cands[cell].bit_count() > 1:
                for d in digits_of(cands[cell]):
                    self.unary_chaining(board, Node(cell, d, True), result, y, x)
        return result

    def unary_chaining(self, board: Board, p_on: Node, result: list[ChainHint], y: bool,
                       x: bool) -> None:
        cands = board.cands
        if cands[p_on.cell].bit_count() > 2 and not x:
            return  # Y-cycles start from bivalue cells only
        cycles: list[Node] = []
        chains: list[Node] = []
        self.cycles(board, {p_on.key: p_on}, {}, y, x, cycles, p_on)
        if x:
            self.forcing_chains(board, {p_on.key: p_on}, {}, y, chains, p_on)
            p_off = Node(p_on.cell, p_on.digit, False)
            self.forcing_chains(board, {}, {p_off.key: p_off}, y, chains, p_off)
        for dst_on in cycles:
            hint = self.cycle_hint(cands, dst_on, reversed_cycle(dst_on), y, x)
            if hint.removals:
                result.append(hint)
        for target in chains:
            result.append(ChainHint(FORCING, self, _removals_forcing(cands, target), [target],
                                    target, x=x, y=y))

    @staticmethod
    def cycles(board, to_on, to_off, y, x, cycles, source) -> None:
        """SE's breadth-first search for cycles back to ``source`` (length 4 or more). The
        candidates it reaches (each once, "on" and "off") are charged to the rating's
        ``meter``: its queue takes an "off" candidate again for every "on" one that implies it,
        but what it reaches is what the compiled rule counts without searching (the candidates
        that can reach ``source`` again are few)."""
        pending_on, pending_off = deque(to_on.values()), deque(to_off.values())
        length = 0
        while pending_on or pending_off:
            length += 1
            while pending_on:
                p = pending_on.popleft()
                for off in on_to_off(board, p, y):
                    if not is_ancestor(p, off):
                        pending_off.append(off)
                        to_off[off.key] = off  # replaces an earlier version, as SE's set does
            length += 1
            while pending_off:
                p = pending_off.popleft()
                for on in off_to_on(board, p, None, to_off, y, x):
                    if length >= 4 and on.key == source.key:
                        cycles.append(on)
                    if on.key not in to_on:
                        pending_on.append(on)
                        to_on[on.key] = on
        meter.charge(len(to_on) + len(to_off))

    @staticmethod
    def forcing_chains(board, to_on, to_off, y, chains, source) -> None:
        """Chains from ``source`` to its own opposite (so the opposite holds); the candidates
        taken off its queues are charged to the rating's ``meter``."""
        pending_on, pending_off = deque(to_on.values()), deque(to_off.values())
        found = {p.key for p in chains}
        popped = 0
        while pending_on or pending_off:
            while pending_on:
                p = pending_on.popleft()
                popped += 1
                for off in on_to_off(board, p, y):
                    if off.key + 1 == source.key and off.key not in found:
                        found.add(off.key)
                        chains.append(off)
                    if off.key not in to_off:
                        pending_off.append(off)
                        to_off[off.key] = off
            while pending_off:
                p = pending_off.popleft()
                popped += 1
                for on in off_to_on(board, p, None, to_off, y, True):
                    if on.key - 1 == source.key and on.key not in found:
                        found.add(on.key)
                        chains.append(on)
                    if on.key not in to_on:
                        pending_on.append(on)
                        to_on[on.key] = on
        meter.charge(popped)

    def cycle_hint(self, cands, dst_on: Node, dst_off: Node, y: bool, x: bool) -> ChainHint:
        cells: dict[int, None] = {}
        p = dst_on
        while p.parents:
            cells.setdefault(p.cell)
            p = p.parents[0]
        forward: dict[tuple[int, int], None] = {}
        backward: dict[tuple[int, int], None] = {}
        p = dst_on
        while p.parents:
            bit = 1 << p.digit
            for c in HOUSE[p.cell]:
                if c not in cells and cands[c] & bit:
                    (forward if p.on else backward).setdefault((c, p.digit))
            p = p.parents[0]
        removals: dict[int, int] = {}
        for c, d in forward:
            if (c, d) in backward:
                removals[c] = removals.get(c, 0) | 1 << d
        return ChainHint(CYCLE, self, removals, [dst_on, dst_off], None, x=x, y=y)

    # -- multiple and dynamic forcing chains (binary, cell and region)

    def cell_hints(self, board: Board, cell: int, n: int) -> list[ChainHint]:
        grid = board.grid
        result: list[ChainHint] = []
        value_to_on: dict[int, dict[int, Node]] = {}
        value_to_off: dict[int, dict[int, Node]] = {}
        cell_to_on: dict[int, Node] | None = None
        cell_to_off: dict[int, Node] = {}
        for d in digits_of(grid.cands[cell]):
            p_on, p_off = Node(cell, d, True), Node(cell, d, False)
            on_to_on: dict[int, Node] = {}
            on_to_off: dict[int, Node] = {}
            double = n >= 3 and not self.nishio and self.dynamic
            contradiction = self.dynamic or self.nishio
            self.binary_chaining(board, p_on, p_off, result, on_to_on, on_to_off, double,
                                 contradiction)
            if not self.nishio:
                self.region_chainings(board, result, cell, d, on_to_on, on_to_off)
            value_to_on[d], value_to_off[d] = on_to_on, on_to_off
            if cell_to_on is None:
                cell_to_on, cell_to_off = dict(on_to_on), dict(on_to_off)
            else:
                cell_to_on = {k: v for k, v in cell_to_on.items() if k in on_to_on}
                cell_to_off = {k: v for k, v in cell_to_off.items() if k in on_to_off}
        if not self.nishio and (n == 2 or (self.multiple and n > 2)):
            for outcomes, common in ((value_to_on, cell_to_on), (value_to_off, cell_to_off)):
                for p in common.values():
                    removals = _removals(grid.cands, p)
                    if removals:
                        chains = [outcomes[d][p.key] for d in digits_of(grid.cands[cell])]
                        result.append(ChainHint(CELL, self, removals, chains, chains[0],
                                                source=Node(cell, 0, True)))
        return result

    def binary_chaining(self, board, p_on, p_off, result, on_to_on, on_to_off, double,
                        contradiction) -> None:
        grid = board.grid
        off_to_on: dict[int, Node] = {}
        off_to_off: dict[int, Node] = {}
        on_to_on[p_on.key] = p_on
        absurd = self.propagate(board, on_to_on, on_to_off)
        if contradiction and absurd is not None:  # p cannot be on
            result.append(ChainHint(BINARY, self, {p_on.cell: 1 << p_on.digit}, list(absurd),
                                    Node(p_on.cell, p_on.digit, False), absurd=True, source=p_on))
        off_to_off[p_off.key] = p_off
        absurd = self.propagate(board, off_to_on, off_to_off)
        if contradiction and absurd is not None:  # p cannot be off
            removals = _removals_on(grid.cands, p_off)
            if removals:
                result.append(ChainHint(BINARY, self, removals, list(absurd),
                                        Node(p_off.cell, p_off.digit, True), absurd=True,
                                        source=p_off))
        if double:
            for p in on_to_on.values():
                q = off_to_on.get(p.key)
                if q is not None:
                    removals = _removals_on(grid.cands, p)
                    if removals:
                        result.append(ChainHint(BINARY, self, removals, [p, q], p,
                                                source=p_on))
            for p in on_to_off.values():
                q = off_to_off.get(p.key)
                if q is not None:
                    result.append(ChainHint(BINARY, self, {q.cell: 1 << q.digit}, [p, q], p,
                                            source=p_off))

    def region_chainings(self, board, result, cell, d, on_to_on, on_to_off) -> None:
        grid = board.grid
        for r in REGIONS_OF[cell]:
            positions = grid.positions(r, d)
            count = positions.bit_count()
            if not (count == 2 or (self.multiple and count > 2)):
                continue
            cells = REGIONS[r]
            if cells[(positions & -positions).bit_length() - 1] != cell:
                continue  # the region is met first from its first place
            pos_to_on: dict[int, dict[int, Node]] = {}
            pos_to_off: dict[int, dict[int, Node]] = {}
            region_on: dict[int, Node] = {}
            region_off: dict[int, Node] = {}
            for i in indexes(positions):
                other = cells[i]
                if other == cell:
                    pos_to_on[i], pos_to_off[i] = on_to_on, on_to_off
                    region_on.update(on_to_on)
                    region_off.update(on_to_off)
                else:
                    o = Node(other, d, True)
                    other_on, other_off = {o.key: o}, {}
                    self.propagate(board, other_on, other_off)
                    pos_to_on[i], pos_to_off[i] = other_on, other_off
                    region_on = {k: v for k, v in region_on.items() if k in other_on}
                    region_off = {k: v for k, v in region_off.items() if k in other_off}
            for outcomes, common in ((pos_to_on, region_on), (pos_to_off, region_off)):
                for p in common.values():
                    removals = _removals(grid.cands, p)
                    if removals:
                        chains = [outcomes[i][p.key] for i in indexes(positions)]
                        result.append(ChainHint(REGION, self, removals, chains, chains[0],
                                                region=r, digit=d))

    def propagate(self, board: Board, to_on: dict[int, Node],
                  to_off: dict[int, Node]) -> tuple[Node, Node] | None:
        """SE's doChaining: follow the implications of ``to_on`` and ``to_off`` (filled in),
        "on" candidates first, each in the order found. Returns (on, off) versions of a
        candidate found both on and off, or None. The grid is left as it was. The candidates
        taken off the queues are charged to the rating's ``meter`` (which may raise
        ``OverBudget``)."""
        saved = board.saved()
        source = saved if self.dynamic else None
        cell_rule = not self.nishio
        pending_on, pending_off = deque(to_on.values()), deque(to_off.values())
        popped = 0  # the work this propagation charges to the rating's meter, at its end
        try:
            while pending_on or pending_off:
                popped += 1
                if pending_on:
                    p = pending_on.popleft()
                    for off in on_to_off(board, p, cell_rule, to_off, to_on):
                        conj = off.key + 1
                        if conj in to_on:
                            return to_on[conj], off
                        if off.key not in to_off:
                            to_off[off.key] = off
                            pending_off.append(off)
                else:
                    p = pending_off.popleft()
                    ons = off_to_on(board, p, source, to_off, cell_rule, True, to_on)
                    if self.dynamic:
                        board.remove(p.cell, p.digit)
                    for on in ons:
                        conj = on.key - 1
                        if conj in to_off:
                            return on, to_off[conj]
                        if on.key not in to_on:
                            to_on[on.key] = on
                            pending_on.append(on)
                if not pending_on and not pending_off and self.level > 0:
                    grid = board.grid
                    for off in self.advanced(grid, Grid(grid.values, saved[0]), to_off):
                        if off.key not in to_off:
                            to_off[off.key] = off
                            pending_off.append(off)
            return None
        finally:
            board.restore(saved)
            meter.charge(popped)

    # -- nested rules (levels 1..5)

    def inner_rules(self) -> list[Callable[[Grid], list]]:
        """The rules a stalled dynamic chain of this level calls on its reduced grid, in
        order; the first that removes something (with a reason inside the chain) is used."""
        if self._inner is None:
            rules: list[Callable[[Grid], list]] = [
                lambda g: list(se_rules.intersections(g)),
                lambda g: list(se_rules.hidden_sets(2)(g)),
                lambda g: list(se_rules.naked_sets(2)(g)),
                lambda g: list(se_rules.fish(2)(g)),
            ]
            if self.level < 4:
                if self.level >= 2:
                    rules.append(Chaining(False, False, False, 0).hints)
                if self.level >= 3:
                    rules.append(Chaining(True, False, False, 0).hints)
            else:
                rules.append(Chaining(True, True, False, 0).hints)
                if self.level >= 5:
                    rules.append(Chaining(True, True, False, self.level - 3).hints)
            self._inner = rules
        return self._inner

    def advanced(self, grid: Grid, source: Grid, offs: dict[int, Node]) -> list[Node]:
        """The candidates the first productive inner rule removes from the reduced ``grid``,
        off, their parents being the removals (since ``source``) the rule relied on."""
        result: list[Node] = []
        for rule in self.inner_rules():
            for hint in rule(grid):
                parents = hint.rule_parents(source, grid)
                if not parents:
                    continue  # the rule applied without the chain
                nested = hint if isinstance(hint, ChainHint) else None
                real = [offs[(c * 10 + d) * 2] for c, d in parents]
                for c in sorted(hint.removals):
                    for d in digits_of(hint.removals[c]):
                        result.append(Node(c, d, False, list(real), ADVANCED, nested))
            if result:
                break
        return result


def nested_suffix(level: int) -> str:
    if level == 1:
        return " (+)"
    if level == 2:
        return " (+ Forcing Chains)"
    if level == 3:
        return " (+ Multiple Forcing Chains)"
    if level == 4:
        return " (+ Dynamic Forcing Chains)"
    if level >= 5:
        return " (+ Dynamic Forcing Chains" + nested_suffix(level - 3) + ")"
    return ""


def reversed_cycle(end: Node) -> Node:
    """The cycle read backwards with every state flipped (SE's "off" view of a cycle)."""
    line: list[Node] = []
    p: Node | None = end
    while p is not None:
        line.insert(0, Node(p.cell, p.digit, not p.on, None, p.cause))
        p = p.parents[0] if p.parents else None
    for a, b in zip(line, line[1:], strict=False):
        a.parents.append(b)
    return line[0]


def _removals_forcing(cands: list[int], target: Node) -> dict[int, int]:
    """A forcing chain's removals: the target's digit if it is off, else the cell's other
    candidates (the entry is kept even when empty, as SE does)."""
    if not target.on:
        return {target.cell: 1 << target.digit}
    return {target.cell: cands[target.cell] & ~(1 << target.digit)}


def _producer(rule: Chaining):
    def produce(grid: Grid) -> Iterator[Hint]:
        for hint in rule.hints(grid):
            yield hint.to_hint()
    return produce


def forcing_chains_and_cycles(grid: Grid) -> Iterator[Hint]:
    """Bidirectional X-Cycles and Y-Cycles (6.5), Forcing X-Chains (6.6, Turbot Fish),
    Bidirectional Cycles and Forcing Chains (7.0), each plus the length bonus."""
    return _producer(Chaining(False, False, False, 0))(grid)


def nishio_forcing_chains(grid: Grid) -> Iterator[Hint]:
    """Nishio Forcing Chains (7.5 + length): a candidate whose X-chain contradicts itself."""
    return _producer(Chaining(False, True, True, 0))(grid)


def multiple_forcing_chains(grid: Grid) -> Iterator[Hint]:
    """Cell and Region Forcing Chains (8.0 + length): every candidate of a cell, or every place
    of a digit in a region, leads to the same conclusion."""
    return _producer(Chaining(True, False, False, 0))(grid)


def dynamic_forcing_chains(grid: Grid) -> Iterator[Hint]:
    """Dynamic Forcing Chains (8.5 + length): contradiction, double, cell and region forcing
    chains whose removals are carried along the chain."""
    return _producer(Chaining(True, True, False, 0))(grid)


def dynamic_forcing_chains_plus(grid: Grid) -> Iterator[Hint]:
    """Dynamic Forcing Chains (+) (9.0 + length): dynamic chains helped by pointing, claiming,
    hidden and naked pairs and X-wings when they stall."""
    return _producer(Chaining(True, True, False, 1))(grid)


def nested_forcing_chains(level: int):
    """Nested Forcing Chains, level 2 (9.5), 3 (10.0), 4 (10.5), 5 (11.0), plus length: dynamic
    chains helped by forcing chains (2), multiple chains (3), dynamic chains (4) or dynamic
    chains (+ forcing chains) (5) when they stall."""
    rule = Chaining(True, True, False, level)
    produce = _producer(rule)
    produce.__name__ = f"nested_forcing_chains_{level}"
    return produce
