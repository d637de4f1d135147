"""The ``singles`` rule set (SPEC "Rule sets"): same solutions, fewer nodes, the ladder's facts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import solver
from tests.solver_cases import DATA, HUTTON, SHARED_DATASETS, excerpts, puzzles

SEVENTEEN = SHARED_DATASETS / "sudoku17_all_49158.txt"


def lines(path):
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def check_rule_set_laws(texts, max_nodes=200_000):
    bird = solver.solve_strings(texts, max_nodes=max_nodes, max_solutions=3)
    singles = solver.solve_strings(texts, max_nodes=max_nodes, max_solutions=3, rules="singles")
    done = (bird.status != 2) & (singles.status != 2)  # neither ran out of budget
    assert np.array_equal(bird.n_solutions[done], singles.n_solutions[done])
    # the classes do not depend on the rule set searched with
    assert np.array_equal(bird.prune_solvable, singles.prune_solvable)
    assert np.array_equal(bird.singles_solvable, singles.singles_solvable)
    # every prune-solvable puzzle is singles-solvable
    assert not np.any(bird.prune_solvable & ~bird.singles_solvable)
    # a singles-solvable puzzle is settled at the root under ``singles``
    solvable = singles.singles_solvable & bird.valid
    assert np.all(singles.search_nodes[solvable] == 1)
    assert np.all(singles.search_depth[solvable] == 0)


def test_laws_on_excerpts_of_every_set():
    check_rule_set_laws([p for _, p in excerpts()] + list(HUTTON.values()))


@settings(max_examples=60, deadline=None)
@given(puzzles(min_givens=17, max_givens=81))
def test_laws_on_generated_puzzles(text):
    check_rule_set_laws([text])


def test_hutton_gentle_and_minimal_need_no_search_under_singles():
    for name in ("gentle", "minimal"):
        r = solver.solve(HUTTON[name], rules="singles")
        assert (r.singles_solvable, r.prune_solvable, r.search_nodes) == (True, False, 1)


def test_about_half_of_a_17_clue_sample_is_singles_solvable():
    sample = lines(DATA / "sudoku17_sample500.txt")
    share = solver.solve_strings(sample, max_nodes=1).singles_solvable.mean()
    assert 0.4 <= share <= 0.55


@pytest.mark.skipif(not SEVENTEEN.exists(), reason="../shared/datasets is not here")
def test_singles_solvable_share_of_the_whole_17_clue_list():
    texts = lines(SEVENTEEN)
    result = solver.solve_strings(texts, max_nodes=1)  # the class needs no search at all
    assert len(texts) == 49158
    assert int(result.singles_solvable.sum()) == 21905  # 44.6 %: "about half"
    assert not result.prune_solvable.any()  # no 17-clue puzzle falls to naked singles alone
