"""The compiled SE rating (``solver.compiled.se``) against the reference (``solver.reference.se``)
and serate.

Every compiled rule must find the reference rule's first hint (name, difficulty, cells, digits,
removals, placement, text) on the same grid: on every position of the paths of committed
puzzles (up to their first chain rule, which is not compiled here), and on Hypothesis's
positions made from those by taking candidates away. The compiled path must be the reference's
step by step, and the ratings serate's on the test excerpt (tests/data/se/excerpt.tsv).
"""

from __future__ import annotations

import csv
import functools
import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.compiled import se as compiled_se
from solver.compiled.se_board import BOARD, from_puzzle, to_grid
from solver.compiled.se_rules import CHAIN_RULES, RULE_NAMES
from solver.reference import se as reference_se
from solver.reference import se_grid

# Slow (make test-slow): compiling the SE kernels takes about 3.5 minutes of one core in a
# fresh clone, more than the whole fast suite may take; the reference's tests are fast.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXCERPT = ROOT / "tests" / "data" / "se" / "excerpt.tsv"
COMPILED_RULES = [r for r in range(len(RULE_NAMES)) if r not in CHAIN_RULES]


def _excerpt() -> list[dict]:
    with open(EXCERPT, newline="") as f:
        return list(csv.DictReader((line for line in f if not line.startswith("#")),
                                   delimiter="\t"))


EXCERPT_ROWS = [r for r in _excerpt() if r["speed"] == "fast"]
NO_CHAIN_ROWS = [r for r in EXCERPT_ROWS if float(r["er"]) < 6.5]
# Two rows whose paths hand a chain rule over (cheap ones: the chains are the reference's here).
CHAIN_ROWS = [r for r in EXCERPT_ROWS if r["source"] in ("norvig10k:9100",
                                                         "berthier/Royle-49158-17c/SER.txt:46692")]


def _sample(path: Path, n: int, seed: int) -> list[str]:
    lines = [line.strip().split(",")[0] for line in path.read_text().splitlines()
             if line.strip() and not line.startswith(("#", "puzzle"))]
    return random.Random(seed).sample(lines, n)


SETS = {
    "excerpt": [r["puzzle"] for r in EXCERPT_ROWS],
    "radcliffe": _sample(ROOT / "data" / "sets" / "radcliffe_3m_sample.csv", 20, 1),
    "top1465": _sample(ROOT / "data" / "sets" / "top1465.txt", 20, 2),
    "sudoku17": _sample(ROOT / "data" / "sets" / "sudoku17_excerpt.txt", 8, 3),
}
# Every STRIDE-th position of each path is compared (the reference rules on all of them would
# take minutes: aligned triplet exclusion alone, 10 ms a position).
STRIDE = {"excerpt": 3, "radcliffe": 4, "top1465": 4, "sudoku17": 4}


def path_positions(puzzle: str):
    """(values, cands) before each step of the compiled path, up to the first chain rule."""
    values, cands = from_puzzle(puzzle)
    arrays = compiled_se.work(1)
    while True:
        yield values.copy(), cands.copy()
        status, _, steps = compiled_se.advance(BOARD, values, cands, arrays.scratch, arrays.out,
                                               arrays.log, 0)
        if status != compiled_se.LOG_FULL:
            return


def as_tuple(hint: se_grid.Hint | None):
    if hint is None:
        return None
    removals = {c: m for c, m in hint.removals.items() if m}
    return (hint.technique, hint.difficulty, hint.cells, hint.digits, removals, hint.placement,
            hint.text)


def reference_hint(rule: int, values: np.ndarray, cands: np.ndarray):
    return next(iter(reference_se.RULES[rule](to_grid(values, cands))), None)


def assert_rules_agree(values: np.ndarray, cands: np.ndarray) -> int:
    """Every compiled rule's first hint is the reference's; returns how many hints there were."""
    hints = 0
    for rule in COMPILED_RULES:
        ours = compiled_se.next_hint(values, cands, rule)
        theirs = reference_hint(rule, values, cands)
        assert as_tuple(ours) == as_tuple(theirs), (RULE_NAMES[rule], to_grid(values, cands).key())
        hints += theirs is not None
    return hints


def test_rules_are_the_references_in_its_order():
    assert RULE_NAMES == tuple(rule.__name__ for rule in reference_se.RULES)
    assert CHAIN_RULES == tuple(i for i, rule in enumerate(reference_se.RULES)
                                if rule.__module__.endswith("se_chains"))


def test_board_tables_are_the_references():
    assert BOARD.regions.tolist() == [list(r) for r in se_grid.REGIONS]
    assert BOARD.house.tolist() == [list(h) for h in se_grid.HOUSE]
    for c in range(81):
        for k, r in enumerate(se_grid.REGIONS_OF[c]):
            assert BOARD.regions[r, BOARD.index_in[c, k]] == c
        assert set(np.flatnonzero(BOARD.sees[c])) == se_grid.HOUSE_SET[c]
    values, cands = from_puzzle(SETS["excerpt"][0])
    grid = se_grid.Grid.from_puzzle(SETS["excerpt"][0])
    assert (values.tolist(), cands.tolist()) == (grid.values, grid.cands)


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_rule_finds_the_reference_hint_on_path_positions(name):
    positions = hints = 0
    for n, puzzle in enumerate(SETS[name]):
        for i, (values, cands) in enumerate(path_positions(puzzle)):
            if (i + n) % STRIDE[name] == 0:
                hints += assert_rules_agree(values, cands)
                positions += 1
    assert positions > 60 and hints > positions  # the rules did find things to compare


@pytest.mark.parametrize("row", NO_CHAIN_ROWS + CHAIN_ROWS, ids=lambda r: r["source"])
def test_path_is_the_references_step_by_step(row):
    ours = [as_tuple(h) for h in compiled_se.se_path(row["puzzle"])]
    theirs = [as_tuple(h) for h in reference_se.se_path(row["puzzle"])]
    assert ours == theirs


@pytest.mark.parametrize("row", NO_CHAIN_ROWS + CHAIN_ROWS, ids=lambda r: r["source"])
def test_rating_is_serates(row):
    ours = compiled_se.se_rating(row["puzzle"])
    assert (ours.er, ours.ep, ours.ed) == (float(row["er"]), float(row["ep"]), float(row["ed"]))
    theirs = reference_se.se_rating(row["puzzle"])
    assert (ours.techniques, ours.steps, ours.solved) == (theirs.techniques, theirs.steps,
                                                          theirs.solved)


def test_chain_rules_get_the_budget_left_and_stop_the_rating_when_it_is_spent(monkeypatch):
    """The hand-off passes each chain search the work left; a search over budget ends the
    rating without numbers."""
    budgets = []

    def search(rule, values, cands, max_work):
        budgets.append(max_work)
        over = max_work is not None and max_work < 10
        return SimpleNamespace(hint=None if over else reference_hint(rule, values, cands),
                               work=10, over_budget=over)

    monkeypatch.setattr(compiled_se, "_compiled_chains",
                        lambda: SimpleNamespace(chain_rule_search=search))
    row = next(r for r in EXCERPT_ROWS if r["source"] == "radcliffe:1870")  # two chain steps
    rating = compiled_se.se_rating(row["puzzle"], max_work=1000)
    assert (rating.er, rating.ep, rating.ed) == (float(row["er"]), float(row["ep"]),
                                                 float(row["ed"]))
    assert budgets == [1000, 990]
    budgets.clear()
    rating = compiled_se.se_rating(row["puzzle"], max_work=15)
    assert (rating.er, rating.ep, rating.ed, rating.solved) == (None, None, None, False)
    assert budgets == [15, 5]


@functools.cache
def some_positions() -> list[tuple[np.ndarray, np.ndarray]]:
    """Positions of the paths of a few puzzles (made on first use: it runs compiled code)."""
    return [p for name in ("excerpt", "top1465") for puzzle in SETS[name][:10]
            for p in path_positions(puzzle)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.lists(st.tuples(st.integers(0, 80),
                                                               st.integers(1, 9)), max_size=12))
def test_every_rule_finds_the_reference_hint_with_candidates_taken_away(index, taken):
    positions = some_positions()
    values, cands = (a.copy() for a in positions[index % len(positions)])
    for cell, digit in taken:
        if cands[cell] & ~(1 << digit):  # never empty a cell
            cands[cell] &= ~(1 << digit)
    assert_rules_agree(values, cands)
