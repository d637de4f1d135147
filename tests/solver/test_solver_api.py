"""Golden facts anyone can check by hand, and the public API's contract."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import solver
from solver import symmetry
from solver.reference import bird
from tests.solver_cases import HUTTON, as_text, excerpts, puzzles


def test_hutton_easy_is_prune_solvable_in_one_node():
    r = solver.solve(HUTTON["easy"])
    assert (r.status, r.prune_solvable, r.search_depth, r.search_nodes) == ("unique", True, 0, 1)


def test_blank_grid_has_two_solutions_capped():
    r = solver.solve(HUTTON["blank"])
    assert (r.status, r.n_solutions, r.solutions_capped, r.givens) == ("multiple", 2, True, 0)


def test_hutton_minimal_is_unique_with_17_givens():
    r = solver.solve(HUTTON["minimal"], max_solutions=5)
    assert (r.status, r.givens, r.n_solutions, r.solutions_capped) == ("unique", 17, 1, False)


def test_max_solutions_one_says_solved():
    r = solver.solve(HUTTON["gentle"], max_solutions=1)
    assert (r.status, r.n_solutions, r.solutions_capped) == ("solved", 1, True)


def test_budget_exceeded_keeps_the_counts_reached():
    r = solver.solve(HUTTON["minimal"], max_nodes=10)
    assert (r.status, r.search_nodes, r.n_solutions) == ("budget_exceeded", 10, 0)


def test_a_search_that_ends_exactly_at_the_budget_is_not_exceeded():
    nodes = solver.solve(HUTTON["gentle"]).search_nodes
    assert solver.solve(HUTTON["gentle"], max_nodes=nodes).status == "unique"
    assert solver.solve(HUTTON["gentle"], max_nodes=nodes - 1).status == "budget_exceeded"


def test_contradictory_givens_stop_at_the_blocked_root():
    text = "55" + "." * 79
    r = solver.solve(text)
    assert (r.status, r.error) == ("contradictory", "digit 5 twice in row 1")
    assert (r.n_solutions, r.search_nodes, r.search_depth, r.first_solution) == (0, 1, 0, None)
    column = "5" + "." * 8 + "5" + "." * 71
    assert solver.solve(column).error == "digit 5 twice in column 1"
    box = "5" + "." * 9 + "5" + "." * 70
    assert solver.solve(box).error == "digit 5 twice in box 1"


@pytest.mark.parametrize("text, error", [
    ("1" * 80, "expected 81 cells, got 80"),
    ("", "expected 81 cells, got 0"),
    ("." * 17 + "x" + "." * 63, "unexpected character 'x' at cell 17 (row 2, column 9)"),
    ("." * 81 + " ", "expected 81 cells, got 82"),
])
def test_invalid_puzzles_say_what_and_where(text, error):
    r = solver.solve(text)
    assert (r.status, r.error, r.givens, r.search_nodes) == ("invalid", error, None, None)


def test_every_blank_convention_and_line_endings():
    base = HUTTON["easy"]
    for blank in ".0 -_":
        assert solver.solve(base.replace(".", blank) + "\r\n").first_solution == \
            solver.solve(base).first_solution


def test_unknown_options_are_refused_with_the_allowed_values():
    with pytest.raises(ValueError, match="prune must be one of fixpoint, once"):
        solver.solve(HUTTON["easy"], prune="twice")
    with pytest.raises(ValueError, match="max_solutions"):
        solver.solve(HUTTON["easy"], max_solutions=0)


def test_batch_of_ascii_rows_matches_one_by_one():
    texts = [p for _, p in excerpts()][:20] + ["x" * 81, "55" + "." * 79]
    rows = np.frombuffer("".join(texts).encode(), np.uint8).reshape(-1, 81)
    batch = solver.solve_ascii(rows)
    for i, text in enumerate(texts):
        assert {**vars(batch.row(i)), "solve_us": 0} == {**vars(solver.solve(text)), "solve_us": 0}


def test_solutions_are_valid_and_extend_the_givens():
    for _, text in excerpts():
        r = solver.solve(text)
        if r.first_solution:
            assert bird.valid(bird.read_mat(r.first_solution))
            assert all(p in ".0" or p == s for p, s in zip(text, r.first_solution, strict=True))


@settings(max_examples=40, deadline=None)
@given(puzzles(min_givens=20))
def test_counts_and_classes_are_invariant_under_symmetries(text):
    rng = np.random.default_rng(abs(hash(text)) % 2**32)
    grid = np.array([0 if ch == "." else int(ch) for ch in text], np.uint8)
    original = solver.solve(text, max_solutions=3)
    for _ in range(3):
        image = solver.solve(as_text(symmetry.apply(grid, *symmetry.random_symmetry(rng))),
                             max_solutions=3)
        if "budget_exceeded" in (original.status, image.status):
            continue
        assert image.n_solutions == original.n_solutions
        assert image.prune_solvable == original.prune_solvable
        assert image.singles_solvable == original.singles_solvable


def test_each_symmetry_generator_on_its_own():
    """relabel digits, swap rows in a band, swap bands, transpose: one at a time."""
    grid = np.array([0 if ch == "." else int(ch) for ch in HUTTON["gentle"]], np.uint8)
    identity = np.arange(9)
    relabel = np.concatenate([[0], np.roll(np.arange(1, 10), 1)]).astype(np.uint8)
    keep = np.concatenate([[0], np.arange(1, 10)]).astype(np.uint8)
    images = [
        symmetry.apply(grid, symmetry.cell_permutation(identity, identity, False), relabel),
        symmetry.apply(grid, symmetry.cell_permutation([1, 0, 2, 3, 4, 5, 6, 7, 8], identity,
                                                       False), keep),
        symmetry.apply(grid, symmetry.cell_permutation([3, 4, 5, 0, 1, 2, 6, 7, 8], identity,
                                                       False), keep),
        symmetry.apply(grid, symmetry.cell_permutation(identity, identity, True), keep),
    ]
    original = solver.solve(HUTTON["gentle"])
    for image in images:
        r = solver.solve(as_text(image))
        assert (r.n_solutions, r.prune_solvable) == (original.n_solutions, original.prune_solvable)
