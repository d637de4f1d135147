"""The compiled SE chain rules (``solver.compiled.se_chains``) against the reference's.

``tests/data/se/chain_positions.tsv`` holds grids where the reference's path applies a chain rule
(made by ``tools/se_chain_positions.py`` from the puzzles of ``tests/data/se/excerpt.tsv`` and of
``data/sets/top1465.txt``). On each, every compiled chain rule up to the one applied must give
the reference's first hint of that rule (none for the earlier ones), and count the same work:
what the reference's searches charge its meter (the candidates taken off the queues of
``Chaining.propagate`` and ``forcing_chains``, the candidates ``cycles`` reaches), counted by a
meter of the test's own. A few positions run by default, all of them with ``-m slow``.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from solver.compiled import se_chains as compiled
from solver.reference.se import RULES
from solver.reference.se_grid import Grid

# Slow (make test-slow): compiling the SE kernels takes about 3.5 minutes of one core in a
# fresh clone, more than the whole fast suite may take; the reference's tests are fast.
pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[1] / "data" / "se" / "chain_positions.tsv"


def _positions() -> list[dict]:
    with open(DATA, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    for row in rows:
        row["rule"] = int(row["rule"])
        row["values"] = [int(ch) if ch != "." else 0 for ch in row["values"]]
        row["cands"] = [int(row["cands"][3 * i:3 * i + 3], 16) for i in range(81)]
    return rows


POSITIONS = _positions()
RULE_NAMES = {20: "static", 22: "nishio", 23: "multiple", 24: "dynamic", 25: "dynamic+",
              26: "nested2", 27: "nested3", 28: "nested4", 29: "nested5"}


def _cases(rows):
    """(position, rule) for every compiled rule up to the one the path applied there."""
    return [pytest.param(row, rule, id=f"{row['source']}#{row['step']}-{RULE_NAMES[rule]}")
            for row in rows for rule in sorted(compiled.COMPILED_RULES) if rule <= row["rule"]]


def _fast_rows():
    """The first position of each rule applied, and of each kind of hint it gave."""
    seen, rows = set(), []
    for row in POSITIONS:
        key = (row["rule"], row["technique"])
        if key not in seen and row["rule"] <= 24:
            seen.add(key)
            rows.append(row)
    return rows


@pytest.fixture
def counted():
    """The reference's chain work, counted by a meter of its own (as the compiled fallback
    counts it)."""
    with compiled.counted_chain_work(None) as meter:
        yield meter


def _same(hint, expected) -> None:
    if expected is None:
        assert hint is None
        return
    assert hint is not None
    assert (hint.technique, hint.difficulty, hint.removals, hint.placement) == (
        expected.technique, expected.difficulty, expected.removals, expected.placement)
    assert (hint.cells, hint.digits, hint.detail) == (expected.cells, expected.digits,
                                                       expected.detail)


def _check(row, rule, counted) -> None:
    grid = Grid(row["values"][:], row["cands"][:])
    expected = next(iter(RULES[rule](grid)), None)
    work = counted.spent
    found = compiled.chain_rule_search(rule, np.array(row["values"], np.int8),
                                       np.array(row["cands"], np.int32))
    _same(found.hint, expected)
    assert (found.work, found.over_budget) == (work, False)
    if rule == row["rule"]:
        assert expected is not None  # the position is one where this rule applies


@pytest.mark.parametrize(("row", "rule"), _cases(_fast_rows()))
def test_compiled_chains_give_the_reference_hint_and_work(row, rule, counted):
    _check(row, rule, counted)


def _smallest_rows(count: int = 12):
    """The positions with the fewest candidates: every compiled rule is quick there, the
    reference's dynamic (+) too, and several give double forcing chains."""
    return sorted(POSITIONS, key=lambda row: sum(m.bit_count() for m in row["cands"]))[:count]


@pytest.mark.parametrize(("row", "rule"), [
    pytest.param(row, rule, id=f"{row['source']}#{row['step']}-{RULE_NAMES[rule]}")
    for row in _smallest_rows() for rule in sorted(compiled.COMPILED_RULES)])
def test_every_compiled_rule_on_the_smallest_positions(row, rule, counted):
    _check(row, rule, counted)


@pytest.mark.slow
@pytest.mark.parametrize(("row", "rule"), _cases(POSITIONS))
def test_compiled_chains_on_every_position(row, rule, counted):
    _check(row, rule, counted)


@pytest.mark.slow
@pytest.mark.parametrize(("row", "rule"), [
    pytest.param(row, 25, id=f"{row['source']}#{row['step']}-dynamic+")
    for row in [r for r in POSITIONS if r["rule"] == 24][::8]])
def test_dynamic_plus_where_the_dynamic_rule_applies(row, rule, counted):
    _check(row, rule, counted)


def test_positions_cover_every_compiled_rule():
    """Level 5 (11.0+) applies on no recorded path position (the reference takes hours to
    answer there): it is held to the reference on the smallest positions, where it finds a
    hint (below)."""
    applied = {row["rule"] for row in POSITIONS} | {row["rule"] for row in NESTED_POSITIONS
                                                    if row["text"]}
    assert applied >= set(compiled.COMPILED_RULES) - {compiled.CHAIN_RULES[-1]}


def test_level_5_finds_the_references_hint_on_a_small_position(counted):
    row = _smallest_rows()[0]
    grid = Grid(row["values"][:], row["cands"][:])
    assert next(iter(RULES[compiled.CHAIN_RULES[-1]](grid)), None) is not None
    counted.spent = 0
    _check(row, compiled.CHAIN_RULES[-1], counted)


@pytest.mark.parametrize("rule", [22, 23])
def test_a_budget_stops_the_search_past_it(rule):
    row = next(r for r in POSITIONS if r["rule"] == rule)
    values, cands = np.array(row["values"], np.int8), np.array(row["cands"], np.int32)
    full = compiled.chain_rule_search(rule, values, cands)
    assert full.work > 0 and full.hint is not None
    enough = compiled.chain_rule_search(rule, values, cands, max_work=full.work)
    assert (enough.hint.text, enough.work, enough.over_budget) == (full.hint.text, full.work,
                                                                  False)
    stopped = compiled.chain_rule_search(rule, values, cands, max_work=full.work - 1)
    assert stopped == compiled.ChainSearch(None, full.work, True)


@pytest.mark.parametrize("rule", [23, 24])
def test_a_search_stopped_over_budget_leaves_the_next_one_whole(rule):
    """A thread's searches share their arrays (the cached propagations among them): one stopped
    part way, its budget spent inside a propagation, must leave every later search the answer
    it gives alone."""
    rows = [r for r in POSITIONS if r["rule"] in (23, 24)][:4]
    grids = [(np.array(r["values"], np.int8), np.array(r["cands"], np.int32)) for r in rows]
    alone = [compiled.chain_rule_search(rule, *grid) for grid in grids]
    for stopped, full in zip(grids, alone, strict=True):
        for spent in (full.work // 9, full.work // 4, full.work // 2, full.work - 1):
            assert compiled.chain_rule_search(rule, *stopped, max_work=spent).over_budget
            for grid, expected in zip(grids, alone, strict=True):
                again = compiled.chain_rule_search(rule, *grid)
                _same(again.hint, expected.hint)
                assert again.work == expected.work


@pytest.mark.parametrize("rule", [25, 26, 29])
def test_a_budget_stops_a_nested_search_inside_its_inner_searches(rule):
    row = POSITIONS[0]
    values, cands = np.array(row["values"], np.int8), np.array(row["cands"], np.int32)
    stopped = compiled.chain_rule_search(rule, values, cands, max_work=50)
    assert stopped == compiled.ChainSearch(None, 51, True)


def _nested_positions() -> list[dict]:
    with open(NESTED, newline="") as f:
        rows = list(csv.DictReader((line for line in f if not line.startswith("#")),
                                   delimiter="\t"))
    for row in rows:
        row["rule"], row["work"] = int(row["rule"]), int(row["work"])
        row["values"] = [int(ch) if ch != "." else 0 for ch in row["values"]]
        row["cands"] = [int(row["cands"][3 * i:3 * i + 3], 16) for i in range(81)]
    return rows


NESTED = DATA.parent / "nested_positions.tsv"
NESTED_POSITIONS = _nested_positions()


@pytest.mark.parametrize("row", NESTED_POSITIONS,
                         ids=lambda r: f"{r['source']}#{r['step']}-{RULE_NAMES[r['rule']]}")
def test_nested_chains_give_the_reference_hint_and_work(row):
    """The reference's answers were recorded (tools/se_nested_positions.py): a nested level
    takes it minutes a position."""
    found = compiled.chain_rule_search(row["rule"], np.array(row["values"], np.int8),
                                       np.array(row["cands"], np.int32))
    assert (found.hint.text if found.hint else "", found.work, found.over_budget) == (
        row["text"], row["work"], False)


def test_chain_rule_hint_is_the_search_without_budget():
    row = next(r for r in POSITIONS if r["rule"] == 20)
    values, cands = np.array(row["values"], np.int8), np.array(row["cands"], np.int32)
    assert compiled.chain_rule_hint(20, values, cands).text == compiled.chain_rule_search(
        20, values, cands).hint.text


def test_a_rule_that_is_no_chain_rule_is_refused():
    with pytest.raises(ValueError, match="not a chain rule"):
        compiled.chain_rule_hint(3, np.zeros(81, np.int8), np.zeros(81, np.int32))
