"""The canonical (minlex) form of SPEC section 6: the fast implementation against the reference
that walks every symmetry, and the laws a canonical form obeys, on real and generated puzzles."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import solver
from solver import symmetry
from solver.compiled.canonical import (
    canonical,
    canonical_ascii,
    canonical_grids,
    canonical_with_symmetry,
)
from solver.reference.canonical import canonical_reference
from tests.solver_cases import SHARED_DATASETS, as_text, excerpts, puzzles

ROOT = Path(__file__).resolve().parents[2]

# A Kaggle solution, and its canonical form as the reference computed it (6 s; checked again by
# the slow test below).
FULL = "864371259325849761971265843436192587198657432257483916689734125713528694542916378"
FULL_CANONICAL = "123456789457189236698372541235697814764815392819234675382541967571963428946728153"
EMPTY = "." * 81
SINGLE = "....5" + "." * 76
# Repeated givens: two 7s in the first row, and an excerpt with a digit doubled in its box.
CONTRADICTORY = [
    "7...7" + "." * 76,
    "36..2..89..3361............8.3...6.24..6.3..76.7...1.8............418...97..3..14",
]

# Givens of the pattern grid (below) where (row + column) % 3 == 0: moving the stacks round, or
# the bands, maps the puzzle to itself with its digits renamed.
ROTATION_INVARIANT = ("1..4..7....6..9..3.8..2..5.2..5..8....7..1..4.9..3..6.3..6..9....8..2..5."
                      "1..4..7.")


def grid_of(text: str) -> np.ndarray:
    return np.array([0 if ch in ".0 -_" else int(ch) for ch in text], np.uint8)


def pattern_grid() -> np.ndarray:
    """The classic solved grid: moving its stacks round (column c -> c + 3) or its bands round
    (row r -> r + 3) gives the same grid with digits shifted, so it has many automorphisms."""
    r, c = np.divmod(np.arange(81), 9)
    return ((3 * (r % 3) + r // 3 + c) % 9 + 1).astype(np.uint8)


def disguised(grid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return symmetry.apply(grid, *symmetry.random_symmetry(rng))


@st.composite
def symmetric_puzzles(draw) -> str:
    """Puzzles with nontrivial automorphisms, disguised by a random symmetry.

    Either the pattern grid with the givens kept in whole orbits of the stack rotation (and
    perhaps the band rotation too), an automorphism of the whole puzzle; or a random solved grid
    whose givens are symmetric about the diagonal, a symmetry of the pattern only (ties that
    only the digits break).
    """
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    density = draw(st.floats(0.05, 0.95))
    if draw(st.booleans()):
        grid = pattern_grid()
        chosen = rng.random((9, 3)) < density  # keep cell (r, c) iff chosen[r, c % 3]
        if draw(st.booleans()):
            chosen[3:] = np.tile(chosen[:3], (2, 1))  # and iff chosen[r % 3, c % 3]
        keep = np.tile(chosen, (1, 3))
    else:
        grid = symmetry.solved_grid(rng)
        upper = np.triu(rng.random((9, 9)) < density)
        keep = upper | upper.T
    grid = np.where(keep.reshape(81), grid, 0).astype(np.uint8)
    return as_text(disguised(grid, rng))


def line_orders_of(cells: np.ndarray):
    """(transposed, row order, column order) when ``cells`` is one of the 3,359,232 cell
    symmetries as ``symmetry.cell_permutation`` builds them, else None."""
    for transposed in (False, True):
        square = cells.reshape(9, 9)
        rows, cols = (square[:, 0] % 9, square[0] // 9) if transposed else \
            (square[:, 0] // 9, square[0] % 9)
        keeps_bands = all(len({int(order[3 * b + i]) // 3 for i in range(3)}) == 1
                          for order in (rows, cols) for b in range(3))
        same = np.array_equal(symmetry.cell_permutation(rows, cols, transposed), cells)
        if same and keeps_bands and sorted(rows) == list(range(9)) == sorted(cols):
            return transposed, rows, cols
    return None


def assert_symmetric_copy(text: str, image: str) -> None:
    """``image`` is ``text`` under some Sudoku symmetry: the implementation names one and it checks out;
    the givens, the digit counts and the solution count are the same."""
    form, cells, relabel = canonical_with_symmetry(text)
    assert form == image
    assert line_orders_of(cells) is not None
    assert relabel[0] == 0 and sorted(relabel[1:].tolist()) == list(range(1, 10))
    assert as_text(symmetry.apply(grid_of(text), cells, relabel)) == image
    counts = sorted(np.bincount(grid_of(text), minlength=10)[1:].tolist())
    assert sorted(np.bincount(grid_of(image), minlength=10)[1:].tolist()) == counts
    solved, copied = solver.solve(text), solver.solve(image)
    # Bird's search visits the cells of a copy in another order: on a sparse puzzle one of the
    # two can run past the node budget, and its count is then unknown, not different.
    if "budget_exceeded" not in (solved.status, copied.status):
        assert solved.n_solutions == copied.n_solutions


def first_of_every_set() -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    for name, puzzle in excerpts():
        seen.setdefault(name, puzzle)
    return sorted(seen.items())


# -- the fast implementation against the reference ------------------------------------------------


@pytest.mark.parametrize(("name", "puzzle"), first_of_every_set(), ids=lambda x: x[:24])
def test_one_puzzle_of_every_shared_set_against_the_reference(name, puzzle):
    assert canonical(puzzle) == canonical_reference(puzzle)


@pytest.mark.parametrize("puzzle", [
    SINGLE,
    "5" + "." * 79 + "3",
    *CONTRADICTORY,
    *[p for name, p in excerpts() if name == "serg_benchmark.txt"][1:3],  # many automorphisms
    ROTATION_INVARIANT,
], ids=["single", "two", "contradictory-row", "contradictory-box", "serg-1", "serg-2",
        "rotation-invariant"])
def test_special_puzzles_against_the_reference(puzzle):
    assert canonical(puzzle) == canonical_reference(puzzle)


@pytest.mark.slow
@pytest.mark.parametrize("puzzle", [FULL[:45] + "." * 36, "." * 36 + FULL[36:], FULL[:80] + "."],
                         ids=["top-half", "bottom-half", "all-but-one"])
def test_dense_puzzles_against_the_reference(puzzle):
    assert canonical(puzzle) == canonical_reference(puzzle)


def test_full_and_empty_grids():
    assert canonical(FULL) == FULL_CANONICAL
    assert canonical(EMPTY) == EMPTY
    assert canonical(SINGLE) == "." * 80 + "1"


@pytest.mark.slow
def test_full_and_empty_grids_against_the_reference():
    assert canonical_reference(FULL) == FULL_CANONICAL
    assert canonical_reference(EMPTY) == EMPTY


@pytest.mark.slow
@pytest.mark.parametrize(("name", "puzzle"), excerpts(), ids=lambda x: x[:24])
def test_every_excerpt_against_the_reference(name, puzzle):
    assert canonical(puzzle) == canonical_reference(puzzle)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.one_of(puzzles(max_givens=60), symmetric_puzzles()))
def test_generated_puzzles_against_the_reference(text):
    assert canonical(text) == canonical_reference(text)


# -- laws -----------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.one_of(puzzles(), symmetric_puzzles()), st.integers(0, 2**32 - 1))
def test_every_symmetric_copy_has_the_same_canonical_form(text, seed):
    copy = as_text(disguised(grid_of(text), np.random.default_rng(seed)))
    assert canonical(copy) == canonical(text)


@settings(max_examples=100, deadline=None)
@given(st.one_of(puzzles(), symmetric_puzzles()))
def test_the_canonical_form_is_its_own_canonical_form(text):
    form = canonical(text)
    assert canonical(form) == form


@settings(max_examples=100, deadline=None)
@given(st.one_of(puzzles(), symmetric_puzzles()))
@example(".....1.4........2.5........2......8....8.4..1......................2...9.........")
def test_the_canonical_form_is_a_symmetric_copy(text):
    assert_symmetric_copy(text, canonical(text))


@settings(max_examples=100, deadline=None)
@given(puzzles(), puzzles())
def test_different_forms_mean_different_classes(a, b):
    """Two puzzles with the same canonical form are symmetric copies; with different forms, the
    forms themselves differ (trivially) and neither is a copy of the other's form."""
    if canonical(a) == canonical(b):
        assert_symmetric_copy(b, canonical(a))
    else:
        assert canonical(canonical(a)) != canonical(b)


def test_the_least_pattern_comes_first():
    """Most leading blanks first: a lone given goes to the last cell, whatever its digit."""
    for cell in (0, 40, 80):
        for digit in "19":
            assert canonical("." * cell + digit + "." * (80 - cell)) == "." * 80 + "1"


# -- the batch forms ------------------------------------------------------------------------------


def test_batch_forms_equal_the_single_form():
    texts = [p for _, p in excerpts()] + [FULL, EMPTY, SINGLE, *CONTRADICTORY]
    expected = [canonical(t) for t in texts]
    rows = np.frombuffer("".join(texts).encode(), np.uint8).reshape(-1, 81)
    assert [r.tobytes().decode() for r in canonical_ascii(rows)] == expected
    grids = np.array([grid_of(t) for t in texts])
    assert [r.tobytes().decode() for r in canonical_grids(grids)] == expected


def test_every_blank_character_is_a_blank():
    text = [p for _, p in excerpts()][0]
    variants = [text.replace(".", blank) for blank in ".0 -_"]
    rows = np.frombuffer("".join(variants).encode(), np.uint8).reshape(-1, 81)
    assert {r.tobytes().decode() for r in canonical_ascii(rows)} == {canonical(text)}
    assert {canonical(v) for v in variants} == {canonical(text)}


def test_rows_with_other_bytes_are_zero_rows_and_the_rest_untouched():
    good = [p for _, p in excerpts()][:3]
    bad = good[1][:40] + "x" + good[1][41:]
    rows = np.frombuffer("".join([good[0], bad, good[2]]).encode(), np.uint8).reshape(-1, 81)
    rows = np.vstack([rows, np.full((1, 81), 0, np.uint8), np.full((1, 81), 0xFF, np.uint8)])
    out = canonical_ascii(rows)
    assert out[0].tobytes().decode() == canonical(good[0])
    assert out[2].tobytes().decode() == canonical(good[2])
    assert not out[[1, 3, 4]].any()


@pytest.mark.parametrize(("text", "message"), [
    ("." * 80, "expected 81 cells, got 80"),
    ("." * 82, "expected 81 cells, got 82"),
    ("." * 80 + "\n", "expected 81 cells, got 80"),
    ("." * 40 + "x" + "." * 40, "unexpected character 'x' at cell 40 (row 5, column 5)"),
    ("." * 40 + "\t" + "." * 40, "unexpected character '\\t' at cell 40"),
])
def test_a_non_puzzle_is_a_clear_value_error(text, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        canonical(text)


def test_a_line_ending_is_no_part_of_the_puzzle():
    assert canonical(SINGLE + "\r\n") == canonical(SINGLE + "\n") == canonical(SINGLE)


def test_cell_values_above_nine_are_refused():
    with pytest.raises(ValueError, match="0 \\(blank\\) to 9"):
        canonical_grids(np.full((1, 81), 10, np.uint8))


def test_importing_compiles_nothing():
    code = ("import solver.compiled.canonical as c; "
            "assert not c.canonical_batch.signatures, c.canonical_batch.signatures")
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# -- the shared sets ------------------------------------------------------------------------------


def shared_sets() -> list[Path]:
    return sorted(SHARED_DATASETS.glob("*.txt")) + sorted(SHARED_DATASETS.glob("*.csv"))


@pytest.mark.skipif(not SHARED_DATASETS.is_dir(), reason="../shared/datasets is not here")
def test_samples_of_the_shared_sets_keep_their_form_under_random_symmetries():
    seed = random.randrange(2**32)
    print(f"sample seed {seed}")  # shown by pytest when the test fails
    rng = np.random.default_rng(seed)
    for path in shared_sets():
        lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
        if path.suffix == ".csv":  # header, then the puzzle is the first field of a record
            lines = [line.split(",")[0] for line in lines[1:]]
        sample = [lines[i] for i in rng.choice(len(lines), min(300, len(lines)), replace=False)]
        grids = np.array([grid_of(t) for t in sample])
        copies = np.array([disguised(g, rng) for g in grids])
        assert np.array_equal(canonical_grids(copies), canonical_grids(grids)), path.name
