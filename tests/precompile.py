"""Compile every numba kernel of the solver before the suite runs, in two processes at once.

A fresh clone has an empty numba cache: compiling the kernels one after the other, as the tests
first call them, costs minutes of one core, while the other core idles (and two test processes
meeting the same uncompiled kernel would both compile it). The whole suite (see
``conftest.pytest_collection_finish``) shares them out as a run's warm-up does
(``pipeline.warm_up.compiling_beside``): a second process compiles the 9 x 9 search, the
grade's rules below the trials, the 9 x 9 measures and the canonical form, while this one
compiles the grade's trials, then the any-size search, the generators and, for a suite with
slow tests, the SE rating's nested levels (the rest of the SE rating compiles in the second
process: minutes of compiling that the fast suite does without); then it loads them all from
the cache, the grade's batch compiled then. A warm cache makes it a
second's load.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASURES = ("rating", "backdoor", "canonical")


def this_half(se: bool) -> None:
    """The any-size search, the generators of 9 x 9 and 4 x 4 puzzles (the other sizes have the
    same types) and, if ``se``, the SE rating's nested levels (the rest of it, and the 9 x 9
    search, compile in the second process)."""
    from pipeline.warm_up import load_nested, load_search
    from solver.compiled.generate import candidates
    from solver.options import SolveOptions

    load_search(SolveOptions(boxsize=2))
    candidates(1, 0, 1, 3)
    candidates(1, 0, 1, 2)
    if se:
        load_nested()


def everything() -> None:
    """Every kernel the suite calls, from the cache once both halves are in: every measure of
    a 9 x 9 and a 4 x 4 puzzle (one solution, so that every measure runs)."""
    import solver
    from pipeline.warm_up import WARM_UP
    from solver.compiled.generate import candidates
    from solver.grid import text_of

    puzzles, _ = candidates(1, 0, 1, 2)
    solver.solve_strings([WARM_UP[81:], text_of(puzzles[0])], boxsize="auto", measures=MEASURES)


def compile_all(se: bool) -> None:
    """Both halves, one in another process, the SE rating's only if ``se``; returns when all is
    in the cache. The grade is in the cache already when another test process compiled it, or
    an earlier suite did: then no second process is started (it cost each such test process
    about 3 s of CPU to load what ``everything`` loads anyway)."""
    from pipeline.warm_up import compiling_beside
    from solver.options import SolveOptions

    options = SolveOptions(measures=MEASURES + (("se",) if se else ()))
    with compiling_beside(options, quiet=True):
        this_half(se)
    everything()  # the 9 x 9 search too, compiled here when no second process was started
