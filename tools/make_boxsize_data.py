"""Write the generated test puzzles of every box size (tests/data/boxsize/generated_b*.txt):
unique puzzles from ``solver.compiled.generate`` (draws of a fixed seed, minimal or not), and, for each
size, a puzzle with several solutions, a contradictory one and invalid rows.

    python tools/make_boxsize_data.py

The files are committed; this script says how they were made (and makes them again, the same).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.compiled import generate  # noqa: E402
from solver.grid import symbols  # noqa: E402

SEED = 2026
# box size: (minimal unique puzzles, unique ones left denser: the removal stops at the first
# given that cannot go, so that the reference, Bird's equations in Python, can search them)
COUNTS = {2: (12, 4), 3: (6, 4), 4: (0, 6), 5: (0, 2)}


def puzzles(boxsize: int) -> list[str]:
    minimal, dense = COUNTS[boxsize]
    written = symbols(boxsize)
    rows = []
    for count, is_minimal, first in ((minimal, True, 0), (dense, False, 1000)):
        found, solutions = generate.candidates(SEED, first, count, boxsize, minimal=is_minimal)
        rows += [written.text(grid) for grid in found]
    found, solution = generate.candidates(SEED, 5000, 1, boxsize, minimal=False)
    # Every given of two digits gone: exchanging them in the solution gives a second one.
    several = written.text(found[0]).replace(written.symbols[0], ".").replace(written.symbols[1], ".")
    cells = boxsize**4
    twice = written.symbols[0] * 2 + "." * (cells - 2)  # the same digit twice in row 1
    return rows + [several, twice, written.text(solution[0]), "." * (cells - 1),
                   "x" + "." * (cells - 1)]


def main() -> None:
    directory = ROOT / "tests" / "data" / "boxsize"
    directory.mkdir(parents=True, exist_ok=True)
    for boxsize in COUNTS:
        n = boxsize * boxsize
        lines = [f"# {n} x {n} puzzles (box size {boxsize}): tools/make_boxsize_data.py, seed {SEED}"]
        (directory / f"generated_b{boxsize}.txt").write_text(
            "\n".join(lines + puzzles(boxsize)) + "\n")


if __name__ == "__main__":
    main()
