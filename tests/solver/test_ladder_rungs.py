"""SPEC 5.1's new rungs (fish, wings, trial, trial2): the fast grade against the reference on
every shared set and on generated puzzles of every size, the laws of the ladder, the claims of
issue 20 on the shared sets, ``grade_limit`` and ``solve --explain``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from solver import symmetry
from solver.compiled import generate
from solver.compiled import grade as compiled_grade
from solver.grid import ascii_rows, grids_from_ascii, symbols
from solver.reference import bird, ladder
from tests.solver.test_ladder import grids_of, matrix_of
from tests.solver.test_ladder_examples import RUNG_EXAMPLES
from tests.solver_cases import SHARED_DATASETS, excerpts

DATA = SHARED_DATASETS


def fast_grades(texts, limit="trial2", boxsize=3):
    rows, errors = ascii_rows(texts, boxsize**4)
    assert not any(errors)
    grids = grids_from_ascii(rows)[0] if boxsize != 3 else grids_of(texts)
    return [solver.GRADES[code] for code in compiled_grade.grades(grids, boxsize, limit)]


def reference_grades(texts, limit):
    return [ladder.grade(matrix_of(text), limit) for text in texts]


def one_excerpt_per_set():
    chosen = {}
    for name, text in excerpts():
        chosen.setdefault(name, text)
    return chosen


# -- fast against reference ------------------------------------------------------------------------


def test_grades_agree_up_to_trial_on_an_excerpt_of_every_set():
    """Of the sets whose puzzle is left to the search, serg's (the reference grades the forum
    sets' in a second or more each; every excerpt of them runs in make test-slow)."""
    texts = [text for name, text in one_excerpt_per_set().items() if not name.startswith("forum")]
    assert fast_grades(texts, "trial") == reference_grades(texts, "trial")


@pytest.mark.slow
def test_grades_agree_up_to_trial_on_every_excerpt():
    texts = [text for _, text in excerpts()]
    assert fast_grades(texts, "trial") == reference_grades(texts, "trial")


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_grades_agree_on_generated_puzzles(draw, minimal):
    puzzles, _ = generate.candidates(20, draw, 1, 3, minimal=minimal)
    text = symbols(3).text(puzzles[0])
    assert fast_grades([text], "trial") == reference_grades([text], "trial")


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6))
def test_4x4_grades_agree_on_the_whole_ladder(draw):
    puzzles, _ = generate.candidates(7, draw, 1, 2, minimal=bool(draw % 2))
    text = symbols(2).text(puzzles[0])
    assert fast_grades([text], boxsize=2) == reference_grades([text], "trial2")


@pytest.mark.slow
def test_16x16_grades_agree_up_to_wings():
    puzzles, _ = generate.candidates(3, 0, 2, 4)  # draw 2 takes 3 s to make
    texts = [symbols(4).text(p) for p in puzzles]
    assert fast_grades(texts, "wings", boxsize=4) == reference_grades(texts, "wings")


# -- T2's shortcuts: a solution's digits, none or several solutions --------------------------------

# euler96_easy50.txt line 1's solution with r1c2, r1c7, r2c2, r2c7 (an unavoidable rectangle of
# 8 and 2: the two digits can swap) and five cells that singles fill left blank: two solutions.
TWO_SOLUTIONS = "4.3921.579.7345.21251876493548.329767295.41381367982.53726895148.425376969541.382"


def test_a_puzzle_with_two_solutions_grades_search_as_the_references():
    """T2 asks how many solutions its matrix holds before its first pass: two keep every
    closure open, and the grade is search at once, as the reference's T2 finds by trying
    every candidate."""
    assert fast_grades([TWO_SOLUTIONS]) == reference_grades([TWO_SOLUTIONS], "trial2") == \
        ["search"]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.integers(7, 11))
def test_4x4_grids_of_several_solutions_or_none_grade_as_the_references(draw, blanks):
    """A 4 x 4 solution with cells left blank (several solutions, mostly), or one of them then
    set to a wrong digit (often none): the whole ladder, against the reference's."""
    rng = random.Random(draw)
    solution = "1234341221434321"
    columns = rng.sample([0, 1], 2) + rng.sample([2, 3], 2)  # a symmetry: another solution
    text = "".join(solution[4 * r + c] for r in range(4) for c in columns)
    cells = rng.sample(range(16), blanks)
    puzzle = "".join("." if i in cells else text[i] for i in range(16))
    wrong = cells[0]
    spoiled = puzzle[:wrong] + str(int(text[wrong]) % 4 + 1) + puzzle[wrong + 1:]
    for candidate in (puzzle, spoiled):
        assert fast_grades([candidate], boxsize=2) == reference_grades([candidate], "trial2")


def test_the_trial2_example_is_trial2_in_every_order_of_its_cells():
    """T2 skips a solution's digits and blocks T1 trials by images: the grade of the trial2
    example and of its symmetric copies (its cells in other orders) stays trial2."""
    grids = grids_of([RUNG_EXAMPLES["trial2"]])
    rng = np.random.default_rng(32)
    for _ in range(4):
        cells, relabel = symmetry.random_symmetry(rng)
        images = symmetry.apply(grids, cells, relabel)
        assert compiled_grade.grades(images, 3).tolist() == [solver.GRADES.index("trial2")]


# -- laws ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rung", ["fish", "wings", "trial"])
def test_each_rungs_closure_is_the_same_in_any_order_of_its_rules(rung):
    """From the closure of the rung below (where the rung's own rule has work to do)."""
    text = RUNG_EXAMPLES["wings" if rung == "wings" else "fish" if rung == "fish" else "trial"]
    below = list(ladder.RUNGS)[list(ladder.RUNGS).index(rung) - 1]
    start = ladder.closure(ladder.RUNGS[below], bird.choices(matrix_of(text)))
    expected = ladder.closure(ladder.RUNGS[rung], start)
    rng = random.Random(rung)
    for _ in range(2 if rung == "trial" else 4):
        rules = list(ladder.RUNGS[rung])
        rng.shuffle(rules)
        assert ladder.closure(rules, start) == expected


def assert_monotone(texts, boxsize=3):
    """A puzzle graded r is graded r under every limit from r up, and search below r."""
    full = fast_grades(texts, boxsize=boxsize)
    for limit in solver.GRADE_LIMITS:
        top = solver.GRADES.index(limit)
        expected = [g if solver.GRADES.index(g) <= top else "search" for g in full]
        assert fast_grades(texts, limit, boxsize) == expected, limit


def test_the_rungs_are_monotone_on_every_excerpt():
    assert_monotone([text for _, text in excerpts()])


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10**6))
def test_the_rungs_are_monotone_on_generated_puzzles(draw):
    puzzles, _ = generate.candidates(11, draw, 4, 3, minimal=bool(draw % 2))
    assert_monotone([symbols(3).text(p) for p in puzzles])


def test_the_grade_is_invariant_under_symmetries_on_the_hard_excerpts():
    texts = [text for name, text in excerpts() if "hardest" in name or "top" in name]
    grids = grids_of(texts)
    rng = np.random.default_rng(20)
    expected = compiled_grade.grades(grids, 3)
    for _ in range(3):
        cells, relabel = symmetry.random_symmetry(rng)
        assert compiled_grade.grades(symmetry.apply(grids, cells, relabel), 3).tolist() == \
            expected.tolist()


# -- the rules by hand -----------------------------------------------------------------------------


def test_an_x_wing_by_hand():
    """Digit 1 in rows 1 and 5 only in columns 2 and 7: it leaves those columns' other cells."""
    m = [["123456789"] * 9 for _ in range(9)]
    for r in (0, 4):
        m[r] = ["23456789" if c not in (1, 6) else "123456789" for c in range(9)]
    fished = ladder.fish(m)
    assert all("1" not in fished[r][c] for r in range(9) for c in (1, 6) if r not in (0, 4))
    assert fished[0][1] == fished[4][6] == "123456789" and "1" in fished[3][3]


def test_fish_blocked_by_hand():
    """Digit 1 in rows 1, 4 and 7 only in columns 1 and 2: three rows, two columns."""
    m = [["123456789"] * 9 for _ in range(9)]
    for r in (0, 3, 6):
        m[r] = ["123456789" if c < 2 else "23456789" for c in range(9)]
    assert ladder.fish_blocked(m) and ladder.blocked(m) and not ladder.cheaply_blocked(m)


def test_an_xyz_wing_by_hand():
    """P = r1c1 {1,2,3}, A_1 = r1c5 {1,3}, A_2 = r2c2 {2,3}: 3 leaves r1c2 and r1c3 (they see
    P and both pincers), not r1c9 (it does not see r2c2)."""
    m = [["123456789"] * 9 for _ in range(9)]
    m[0][0], m[0][4], m[1][1] = "123", "13", "23"
    winged = ladder.wings(m)
    assert "3" not in winged[0][1] and "3" not in winged[0][2] and "3" in winged[0][8]


# -- issue 20's claims, measured -------------------------------------------------------------------


def shared(name):
    lines = [line.strip() for line in (DATA / name).read_text().splitlines() if line.strip()]
    return [line[:81] for line in lines]


needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/datasets is not here")


@needs_data
def test_top1465_is_about_78_percent_trial():
    """Measured: 1,139 of 1,465 (77.7%) trial, 248 subsets, 60 intersections, 13 wings, 3
    trial2, 2 fish; none search."""
    grades = fast_grades(shared("top1465.txt"))
    assert grades.count("trial") == 1139
    assert grades.count("search") == 0


@needs_data
def test_the_forum_hardest_puzzles_are_trial2():
    """The first 300 of forum_hardest_1905_sample.txt (all 48,766: docs/grades.md)."""
    assert set(fast_grades(shared("forum_hardest_1905_sample.txt")[:300])) == {"trial2"}


# -- grade_limit and explain -----------------------------------------------------------------------


def test_grade_limit_is_validated_once():
    with pytest.raises(ValueError, match="grade_limit must be one of prune, singles"):
        solver.SolveOptions(grade_limit="search")
    assert solver.SolveOptions().grade_limit == "trial2"


def test_rows_the_limit_leaves_unsolved_grade_search():
    # Not the wings example: the reference's search of it takes 12 s (fish and trial are here).
    texts = [RUNG_EXAMPLES[rung] for rung in solver.GRADE_LIMITS if rung != "wings"]
    for implementation in ("fast", "reference"):
        found = solver.solve_strings(texts[:6], grade_limit="subsets",
                                     implementation=implementation)
        assert found.grades() == ["prune", "singles", "intersections", "subsets", "search",
                                  "search"]
    assert solver.solve(RUNG_EXAMPLES["singles"], grade_limit="prune").grade == "search"


def test_explain_names_the_x_wing_and_the_grade():
    steps = solver.explain(RUNG_EXAMPLES["fish"])
    texts = [step.text for step in steps]
    assert ("X-wing on digit 6, rows 1 and 9, columns 6 and 9: 6 leaves r4c9, r7c6, r7c9"
            in texts)
    assert texts[-1] == "grade: fish"
    assert [step.rung for step in steps] == sorted(
        (step.rung for step in steps), key=solver.GRADES.index)  # rung by rung


def test_solve_explain_prints_the_path(cli):
    out = cli("solve", "--explain", RUNG_EXAMPLES["wings"]).stdout
    assert "grade:            wings" in out
    assert "XY-wing: pivot r6c5 {4,8}, pincers r6c9 {4,5}, r5c6 {5,8}, on digit 5: " \
        "5 leaves r5c7, r5c8" in out
    assert out.rstrip().endswith("grade: wings")
