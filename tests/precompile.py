"""Compile every numba kernel of the solver before the suite runs, in two processes at once.

A fresh clone has an empty numba cache: compiling the kernels one after the other, as the tests
first call them, costs about a minute and a half of one core, while the other core idles. The
whole suite (see ``conftest.pytest_collection_finish``) compiles half of them in a second
process while this one compiles the other half; every later process, a test's or a worker's,
loads them from the cache. A warm cache makes both halves a second's load.

Run as a script, it compiles the second half.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def first_half() -> None:
    """The 9 x 9 search, grade and canonical form (about 40 s of compiling from cold)."""
    import solver

    solver.solve_strings([HARD], measures=("canonical",))


def second_half() -> None:
    """The generators, the search and grade of every other box size, and rating and backdoor
    size (the same kernels at every size): about as long."""
    import solver
    from solver.compiled.generate import candidates
    from solver.grid import text_of

    candidates(1, 0, 1, 3)
    puzzles, _ = candidates(1, 0, 1, 2)  # one puzzle of one solution: every measure runs
    solver.solve_strings([text_of(puzzles[0])], boxsize=2, measures=("rating", "backdoor"))


def compile_all() -> None:
    """Both halves, the second in another process; returns when both are in the cache."""
    other = subprocess.Popen([sys.executable, __file__], cwd=ROOT)
    try:
        first_half()
    finally:
        other.wait()
    if other.returncode != 0:
        raise RuntimeError(f"compiling the solver's kernels failed (exit {other.returncode})")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    second_half()
