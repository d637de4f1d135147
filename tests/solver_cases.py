"""Puzzles and generators shared by the solver tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from solver import symmetry

DATA = Path(__file__).parent / "data" / "solver"
SHARED_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"

# Hutton's example grids (seed 003), row by row.
HUTTON = {
    "easy": "2....1.38........5.7...6..........13.981..25731....8..9..8...2..5..697844..25....",
    "gentle": ".1.42...5..2.71.39.......4.2.71....6....4....6....74.3.7.......12.73.5..3...82.7.",
    "diabolical": ".9.7..86..31..5.2.8.6........7.5...6...3.7...5...1.7........1.9.2.6..35..54..8.7.",
    "unsolvable": "1..9.7..3.8.....7...9...6....72.94..41.....95..85.43....3...7...5.....4.2..8.6..9",
    "minimal": ".98..........7........15...1...........2....9...9.6.82.......3.5.1.........4...2.",
    "blank": "." * 81,
}

VARIANTS = [
    {"prune": "fixpoint", "cell": "smallest", "rules": "bird"},
    {"prune": "once", "cell": "smallest", "rules": "bird"},
    {"prune": "once", "cell": "first", "rules": "bird"},
    {"prune": "fixpoint", "cell": "first", "rules": "bird"},
    {"rules": "singles"},
]


def excerpts() -> list[tuple[str, str]]:
    """(set name, puzzle) pairs copied from every shared dataset into tests/data/solver."""
    lines = (DATA / "excerpts.txt").read_text().splitlines()
    return [tuple(line.split()) for line in lines if line and not line.startswith("#")]


def as_text(grid) -> str:
    return "".join("." if v == 0 else str(int(v)) for v in grid)


@st.composite
def puzzles(draw, min_givens: int = 0, max_givens: int = 81) -> str:
    """A random solved grid with random cells blanked; sometimes a given is then changed, which
    makes puzzles with no solution and puzzles whose givens contradict each other."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    grid = symmetry.solved_grid(rng)
    givens = draw(st.integers(min_givens, max_givens))
    grid[rng.permutation(81)[givens:]] = 0
    if givens and draw(st.booleans()):
        cell = int(rng.choice(np.flatnonzero(grid)))
        grid[cell] = grid[cell] % 9 + 1
    return as_text(grid)
