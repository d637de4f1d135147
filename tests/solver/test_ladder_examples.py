"""SPEC 5.1's ladder by hand: a real puzzle of each rung, graded by both implementations, and
the rules of the rungs (locked candidates, subsets, blocked) on matrices built by hand."""

from __future__ import annotations

import pytest

import solver
from solver.reference import bird, ladder
from tests.solver_cases import HUTTON

# -- a worked example of each rung -----------------------------------------------------------------

# Each a real puzzle, quoted with its place in the team's shared datasets (see
# tests/data/solver/PROVENANCE.md for their sources; lines counted among the puzzles).
RUNG_EXAMPLES = {
    # Hutton's "easy" grid (seed 003): naked singles alone fill it.
    "prune": HUTTON["easy"],
    # Hutton's "gentle" grid (seed 003): naked singles stall, hidden singles finish it.
    "singles": HUTTON["gentle"],
    # euler96_easy50.txt line 25 (Project Euler 96): singles stall; a digit confined to where a
    # box meets a line leaves the rest of that line, and singles go on to the end.
    "intersections":
        "36..2..89...361............8.3...6.24..6.3..76.7...1.8............418...97..3..14",
    # euler96_easy50.txt line 49: singles and locked candidates stall; a set of cells of a unit
    # holding as many digits as cells unlocks it.
    "subsets":
        ".....3.17.15..9..8.6.......1....7.....9...2.....5....4.......2.5..6..34.34.2.....",
    # euler96_easy50.txt line 7: an X-wing on digit 6, rows 1 and 9, columns 6 and 9: 6 leaves
    # r4c9, r7c6, r7c9, and singles finish it.
    "fish": ".43.8.25.6.............1.949....4.7....6.8....1.2....382.5.............5.34.9.71.",
    # norvig_sudoku10k.txt line 3: after a swordfish, an XY-wing: pivot r6c5 {4,8}, pincers
    # r6c9 {4,5} and r5c6 {5,8}: 5 leaves r5c7 and r5c8, which both see the pincers.
    "wings": ".....4.....5.....3...8.1.6.......81..73........2..6.......2....14...........5...7",
    # magictour_top100.txt line 5: no pattern above; setting a digit and following singles to
    # a contradiction removes it (T&E(1)).
    "trial": "38.6.......9.......2..3.51......5....3..1..6....4......17.5..8.......9.......7.32",
    # forum_hardest_1106.txt line 1: T&E(1) stalls; a trial one level deeper cracks it.
    "trial2": "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3",
    # norvig_hardest.txt line 2: no rule up to wings finishes it (T1 does): under grade_limit
    # wings it grades search. (A puzzle T2 cannot solve is rare: docs/grades.md.)
    "search":
        "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
}
# The limit each example is graded under in the tests (the reference's T2 takes minutes).
EXAMPLE_LIMITS = {"trial2": "trial2", "search": "wings"}


@pytest.mark.parametrize("rung", [pytest.param(rung, marks=pytest.mark.slow) if rung == "wings"
                                  else rung for rung in solver.GRADES])  # wings: 10 s
def test_a_real_puzzle_of_each_rung(rung):
    text = RUNG_EXAMPLES[rung]
    limit = EXAMPLE_LIMITS.get(rung, "trial")
    implementations = ("fast",) if rung == "trial2" else ("fast", "reference")
    for implementation in implementations:
        found = solver.solve(text, implementation=implementation, grade_limit=limit)
        assert found.grade == rung, implementation
    if rung in ("intersections", "subsets", "fish", "wings"):
        # the rung's own rule is what moves the closure of the rung below
        below = list(ladder.RUNGS.values())[solver.GRADES.index(rung) - 1]
        stalled = ladder.closure(below, bird.choices(bird.read_mat(text)))
        rule = ladder.RUNGS[rung][-1]
        assert not ladder.solved(stalled) and rule(stalled) != stalled


@pytest.mark.slow
def test_the_trial2_example_is_trial2_by_the_reference_too():
    """Half an hour of the reference's T2 on a loaded machine."""
    assert ladder.grade(bird.read_mat(RUNG_EXAMPLES["trial2"])) == "trial2"


def test_locked_candidates_pointing_and_claiming_by_hand():
    """Box 1 allows 1 only in its first row: 1 leaves the rest of row 1 (pointing).  Row 9
    allows 2 only in box 9: 2 leaves the rest of box 9 (claiming)."""
    m = [["123456789"] * 9 for _ in range(9)]
    for r in (1, 2):
        for c in range(3):
            m[r][c] = "23456789"
    for c in range(6):
        m[8][c] = "13456789"
    locked = ladder.lock(m)
    assert [xs for xs in locked[0][3:]] == ["23456789"] * 6
    assert locked[0][:3] == ["123456789"] * 3
    assert [locked[r][c] for r in (6, 7) for c in (6, 7, 8)] == ["13456789"] * 6
    assert locked[8][6:] == ["123456789"] * 3


def test_subsets_naked_pair_and_hidden_pair_by_hand():
    row = ["12", "12", "123", "1234", "56789", "56789", "56789", "56789", "56789"]
    assert ladder.exclude(row)[:4] == ["12", "12", "3", "4"]
    hidden = ["1234", "1256", "3456789", "3456789", "3456789", "3456789", "3456789", "3456789",
              "3456789"]
    assert ladder.exclude(hidden)[:2] == ["12", "12"]  # 1 and 2 live only in the first two


def test_blocked_counts_crowded_cells():
    """Three cells of a row allowing two digits between them block the matrix."""
    m = [["123456789"] * 9 for _ in range(9)]
    m[0][:3] = ["12", "12", "12"]
    assert ladder.blocked(m) and not bird.blocked(m)
