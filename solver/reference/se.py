"""The Sudoku Explainer rating (SPEC 5.4), the reference: Sudoku Explainer's rules as its batch
rater ``serate`` (version 2022.3.24, 1to9only/SudokuExplainer) applies them, in plain Python.

serate rates a puzzle by solving it step by step. At each step it asks its rules, in a fixed
order, for a hint, and applies the FIRST hint found: the first rule that has one wins, whatever
its difficulty, and within a rule the first pattern found in SE's scanning order wins (the
uniqueness rules and the chains sort their hints first, easiest and shortest first). Then:

    ER  the highest difficulty of any step;
    EP  the highest difficulty up to and including the first step that places a digit;
    ED  the difficulty of the first step;

each printed with one decimal as serate rounds it. The rules, in serate's order (the difficulty of
each is beside its function, in ``se_rules``, ``se_uniqueness`` and ``se_chains``):

    Hidden Single, Direct Pointing/Claiming, Direct Hidden Pair, Naked Single, Direct Hidden
    Triplet, Pointing/Claiming, Naked Pair, X-Wing, Hidden Pair, Naked Triplet, Swordfish,
    Hidden Triplet, XY-Wing, XYZ-Wing, Unique Rectangles/Loops, Naked Quad, Jellyfish, Hidden
    Quad, BUG, Aligned Pair Exclusion, Forcing Chains & Cycles, Aligned Triplet Exclusion,
    Nishio Forcing Chains, Multiple Forcing Chains, Dynamic Forcing Chains, Dynamic Forcing
    Chains (+), and the nested levels 2 to 5.

The puzzle is assumed to have exactly one solution (the pipeline rates only ``unique`` rows). As
serate does, nothing checks it: on a puzzle with several solutions the uniqueness rules may make
false deductions, and when no rule applies any more the rating is ER 20.0 (serate's value for "no
hint"), with EP and ED as far as they got; a puzzle with no solution usually ends that way too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from solver.reference import se_chains, se_rules, se_uniqueness
from solver.reference.se_grid import Grid, Hint, rounded

Rule = Callable[[Grid], Iterator[Hint]]

NO_HINT = 20.0  # serate's difficulty when no rule applies

# serate's producers, in the order it asks them (Solver.java): the first hint found is applied.
RULES: tuple[Rule, ...] = (
    se_rules.hidden_singles,                # 1.0 / 1.2 / 1.5
    se_rules.direct_intersections,          # 1.7 / 1.9
    se_rules.direct_hidden_pairs,           # 2.0
    se_rules.naked_singles,                 # 2.3
    se_rules.direct_hidden_triplets,        # 2.5
    se_rules.intersections,                 # 2.6 / 2.8 (2.9)
    se_rules.naked_sets(2),                 # 3.0
    se_rules.fish(2),                       # 3.2
    se_rules.hidden_sets(2),                # 3.4
    se_rules.naked_sets(3),                 # 3.6
    se_rules.fish(3),                       # 3.8
    se_rules.hidden_sets(3),                # 4.0
    se_rules.xy_wings,                      # 4.2
    se_rules.xyz_wings,                     # 4.4
    se_uniqueness.unique_rectangles_and_loops,  # 4.5 - 5.3
    se_rules.naked_sets(4),                 # 5.0
    se_rules.fish(4),                       # 5.2
    se_rules.hidden_sets(4),                # 5.4
    se_uniqueness.bug,                      # 5.6 - 6.2
    se_rules.aligned_pair_exclusion,        # 6.2
    se_chains.forcing_chains_and_cycles,    # 6.5 / 6.6 / 7.0 + length
    se_rules.aligned_triplet_exclusion,     # 7.5
    se_chains.nishio_forcing_chains,        # 7.5 + length
    se_chains.multiple_forcing_chains,      # 8.0 + length
    se_chains.dynamic_forcing_chains,       # 8.5 + length
    se_chains.dynamic_forcing_chains_plus,  # 9.0 + length
    se_chains.nested_forcing_chains(2),     # 9.5 + length
    se_chains.nested_forcing_chains(3),     # 10.0 + length
    se_chains.nested_forcing_chains(4),     # 10.5 + length
    se_chains.nested_forcing_chains(5),     # 11.0 + length
)


def next_hint(grid: Grid) -> Hint | None:
    """The hint serate applies next: the first hint of the first rule that has one."""
    for rule in RULES:
        for hint in rule(grid):
            return hint
    return None


def se_path(puzzle: str) -> Iterator[Hint]:
    """The hints serate applies to ``puzzle`` (81 characters, digits 1-9, blanks ``.`` or ``0``),
    in order, each yielded as soon as it is found. Stops when the grid is full or no rule
    applies (see the module docstring)."""
    grid = Grid.from_puzzle(puzzle)
    while not grid.is_solved():
        hint = next_hint(grid)
        if hint is None:
            return
        yield hint
        hint.apply(grid)


@dataclass(frozen=True)
class SERating:
    """serate's three numbers (one decimal, as it prints them) and the techniques of the path
    with how often each was applied (named as SE names its hints). ``work``: the chain
    steps the rating took (``se_chains.Meter``); when they passed the budget
    (``over_budget``) the rating stopped there, and ER, EP and ED are None."""

    er: float | None
    ep: float | None
    ed: float | None
    techniques: dict[str, int] = field(default_factory=dict)
    steps: int = 0
    solved: bool = True
    work: int = 0
    over_budget: bool = False


@dataclass
class Difficulties:
    """serate's three numbers as its path goes (``Solver.getDifficulty``): ER the highest
    difficulty so far, ED the running highest after the first step, EP the running highest
    after the first step that places a digit."""

    er: float = 0.0
    ep: float = 0.0
    ed: float = 0.0

    def step(self, hint: Hint) -> None:
        """Take the next hint of the path into account."""
        self.er = max(self.er, hint.difficulty)
        if self.ep == 0.0:
            if self.ed == 0.0:
                self.ed = self.er
            if hint.placement is not None:
                self.ep = self.er

    def text(self) -> str:
        """'ER/EP/ED: 7.1/1.2/1.2', one decimal each, as serate prints them."""
        return f"ER/EP/ED: {rounded(self.er):.1f}/{rounded(self.ep):.1f}/{rounded(self.ed):.1f}"


def se_rating(puzzle: str, max_work: int | None = None) -> SERating:
    """ER, EP and ED of ``puzzle`` as serate computes them (``Solver.getDifficulty``): ER the
    highest difficulty on the path, ED the running highest after the first step, EP the running
    highest after the first step that places a digit. A puzzle no rule finishes gets ER 20.0.

    ``max_work``: the most chain steps the chains may take (``se_chains.Meter``; None: no
    limit); past it the rating stops and says so (``over_budget``, ER, EP and ED None)."""
    found = Difficulties()
    techniques: Counter[str] = Counter()
    steps = 0
    grid = Grid.from_puzzle(puzzle)
    solved = True
    meter = se_chains.meter = se_chains.Meter(max_work)
    try:
        while not grid.is_solved():
            hint = next_hint(grid)
            if hint is None:
                found.er, solved = NO_HINT, False
                break
            steps += 1
            techniques[hint.technique] += 1
            hint.apply(grid)
            found.step(hint)
    except se_chains.OverBudget:
        return SERating(None, None, None, dict(techniques), steps, False, meter.spent, True)
    finally:
        se_chains.meter = se_chains.Meter()
    return SERating(rounded(found.er), rounded(found.ep), rounded(found.ed), dict(techniques),
                    steps, solved, meter.spent)
