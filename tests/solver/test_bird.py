"""Bird's laws and the seeds' own examples, checked on the reference solver."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.reference import bird
from tests.solver_cases import HUTTON


def matrices(n: int):
    cell = st.text("123456789"[:n], min_size=0, max_size=n)
    return st.lists(st.lists(cell, min_size=n, max_size=n), min_size=n, max_size=n)


@given(st.sampled_from([4, 9]).flatmap(matrices))
def test_rows_cols_boxs_are_involutions(m):
    assert bird.rows(bird.rows(m)) == m
    assert bird.cols(bird.cols(m)) == m
    assert bird.boxs(bird.boxs(m)) == m


@st.composite
def small_puzzles(draw):
    """A 4 x 4 grid with at most 6 blanks, so that ``expand`` can be enumerated."""
    digits = draw(st.permutations("1234"))
    base = ["1234", "3412", "2143", "4321"]
    grid = [[digits[int(d) - 1] for d in row] for row in base]
    for cell in draw(st.lists(st.integers(0, 15), max_size=6, unique=True)):
        grid[cell // 4][cell % 4] = "."
    for cell in draw(st.lists(st.integers(0, 15), max_size=1)):
        grid[cell // 4][cell % 4] = draw(st.sampled_from("1234"))
    return grid


@settings(max_examples=60, deadline=None)
@given(small_puzzles())
def test_pruning_never_loses_a_solution(grid):
    """filter valid . expand = filter valid . expand . prune"""
    m = bird.choices(grid)
    everything = [g for g in bird.expand(m) if bird.valid(g)]
    assert everything == [g for g in bird.expand(bird.prune(m)) if bird.valid(g)]
    assert everything == [g for g in bird.expand(bird.fix(bird.prune, m)) if bird.valid(g)]


@settings(max_examples=60, deadline=None)
@given(small_puzzles(), st.sampled_from(["fixpoint", "once"]), st.sampled_from(["smallest", "first"]))
def test_search_finds_exactly_the_specification_solutions(grid, prune_variant, cell):
    """search . choices = solve1, for every variant, on grids small enough for solve1."""
    stats = bird.Stats(max_nodes=10_000)
    found = bird.solutions(grid, stats, max_solutions=100, prune_variant=prune_variant, cell=cell)
    assert sorted(found) == sorted(bird.solve1(grid))


def test_prune_row_example_from_the_tutorial():
    row = ["169", "269", "17", "1678", "3", "4", "5", "26", "1"]
    assert bird.reduce(row) == ["69", "269", "7", "678", "3", "4", "5", "26", "1"]


def test_expand_example_from_the_tutorial():
    assert len(bird.expand([["12", "34"], ["56", "78"]])) == 16
    assert bird.expand([["12", "34"], ["56", "78"]])[0] == [["1", "3"], ["5", "7"]]
    assert bird.cp(["ab", "cd", "efg"])[:3] == [["a", "c", "e"], ["a", "c", "f"], ["a", "c", "g"]]


def test_expand1_picks_the_earliest_shortest_cell():
    """The tutorial's example: "67" (fourth cell of the first row) is expanded."""
    m = [["9", "1578", "3", "67", "167", "4", "2", "15678", "5678"]] + [["1234"] * 9] * 8
    children = bird.expand1(m)
    assert [child[0][3] for child in children] == ["6", "7"]
    assert all(child[1:] == m[1:] for child in children)


def test_show_grid_matches_the_tutorial():
    assert bird.show_row("123456789") == "|123|456|789|"
    shown = bird.show_grid(["123456789"] * 9)
    assert shown[0] == shown[4] == shown[8] == shown[12] == "-------------"
    assert shown[1] == "|123|456|789|" and len(shown) == 13


def test_read_mat_and_show_mat_round_trip():
    for text in HUTTON.values():
        assert bird.show_mat(bird.read_mat(text)) == text


def test_put_shows_blanks_as_spaces():
    lines = bird.put(bird.read_mat(HUTTON["easy"])).splitlines()
    assert lines[1] == "|2  |  1| 38|"


def test_hutton_easy_is_solved_by_pruning_alone():
    g = bird.read_mat(HUTTON["easy"])
    assert bird.prune_solvable(g)
    assert not bird.prune_solvable(bird.read_mat(HUTTON["gentle"]))


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_every_solution_is_valid_and_extends_the_givens(data):
    from tests.solver_cases import puzzles

    text = data.draw(puzzles(min_givens=25))
    g = bird.read_mat(text)
    stats = bird.Stats(max_nodes=400)
    for solution in bird.solutions(g, stats, max_solutions=3):
        assert bird.valid(solution)
        assert all(d in ".0" or d == s for d, s in zip(text, bird.show_mat(solution), strict=True))
