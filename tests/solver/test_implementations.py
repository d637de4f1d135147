"""The fast implementation against the reference, field by field, for every variant of SPEC section 2."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

import solver
from solver.grid import ascii_rows, grids_from_ascii
from tests.solver_cases import HUTTON, SHARED_DATASETS, VARIANTS, excerpts, puzzles

BUDGET = 120  # keeps the reference quick in `make test`; budget-hit rows must agree too
SLOW_BUDGET = 5_000  # `make test-slow`: most excerpts run to the end


def rows_of(columns: solver.SearchColumns) -> list[dict]:
    """Every number the search found for every row, but the wall time. (Statuses and errors
    follow from them by code both implementations share; the grade is compared in test_ladder.py.)"""
    names = [name for name in columns._fields if name != "solve_ns"]
    return [{name: getattr(columns, name)[i].tolist() for name in names}
            for i in range(len(columns.givens))]


def assert_implementations_agree(puzzle_list, **options):
    rows, errors = ascii_rows(puzzle_list)
    assert not any(errors)
    grids, _ = grids_from_ascii(rows)
    fast = solver.solve_grids(grids, implementation="fast", **options)
    reference = solver.solve_grids(grids, implementation="reference", **options)
    for text, mine, oracle in zip(puzzle_list, rows_of(fast), rows_of(reference), strict=True):
        assert mine == oracle, text


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(v.values()))
@pytest.mark.parametrize("max_solutions", [1, 2, 5])
def test_hutton_grids(variant, max_solutions):
    assert_implementations_agree(list(HUTTON.values()), max_solutions=max_solutions, max_nodes=BUDGET,
                         **variant)


# The fast suite: Bird's default search and the singles rules, on a third of the excerpts (two
# of every set); every variant runs to the end of every excerpt in `make test-slow` (below).
@pytest.mark.parametrize("variant", [VARIANTS[0], VARIANTS[-1]], ids=lambda v: "-".join(v.values()))
def test_excerpts_of_every_shared_set(variant):
    assert_implementations_agree([p for _, p in excerpts()][::3], max_nodes=BUDGET, **variant)


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(v.values()))
def test_excerpts_of_every_shared_set_to_the_end(variant):
    assert_implementations_agree([p for _, p in excerpts()], max_nodes=SLOW_BUDGET, **variant)


@pytest.mark.parametrize("max_nodes", [1, 2, 7, 50])
def test_tight_budgets(max_nodes):
    assert_implementations_agree([p for _, p in excerpts()][::4], max_nodes=max_nodes)


@pytest.mark.skipif(not SHARED_DATASETS.is_dir(), reason="../shared/datasets is not here")
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(v.values()))
def test_fresh_samples_of_the_shared_sets(variant):
    check_fresh_samples(1, BUDGET, variant)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_DATASETS.is_dir(), reason="../shared/datasets is not here")
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(v.values()))
def test_larger_fresh_samples_of_the_shared_sets(variant):
    check_fresh_samples(10, SLOW_BUDGET, variant)


def check_fresh_samples(per_set, max_nodes, variant):
    """A new random sample of every shared set at each run (the seed is printed)."""
    seed = random.randrange(2**32)
    print(f"sample seed {seed}")  # shown by pytest when the test fails
    rng = random.Random(seed)
    for path in sorted(SHARED_DATASETS.glob("*.txt")) + sorted(SHARED_DATASETS.glob("*.csv")):
        lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
        if path.suffix == ".csv":  # header, then the puzzle is the first field of a record
            lines = [line.split(",")[0] for line in lines[1:]]
        sample = rng.sample(lines, per_set)
        assert_implementations_agree(sample, max_nodes=max_nodes, **variant)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(puzzles(min_givens=0, max_givens=81))
def test_generated_puzzles(text):
    for variant in VARIANTS:
        assert_implementations_agree([text], max_nodes=300, max_solutions=3, **variant)
