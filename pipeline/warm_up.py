"""The compiled solver in this process: say when it is about to be compiled, and load it before
the workers are forked (so that they inherit it instead of each loading it in its first batch)
and before a run measures its batch size (which compiling would skew).

A solved run (``pipeline.run``), a generated one (``pipeline.generate``) and ``solve`` use it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import numpy as np

from solver.options import SolveOptions

COMPILING = "compiling the solver for this machine (first run only: about a minute)..."
# Puzzles that load every compiled kernel a run's settings use: an easy one (Project Euler 96,
# grid 01) and one that needs search, the grading rules and, when asked for, the rating and
# backdoor (Hutton's "diabolical").
WARM_UP = ("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
           ".9.7..86..31..5.2.8.6........7.5...6...3.7...5...1.7........1.9.2.6..35..54..8.7.")


def announce_compiling(quiet: bool = False) -> None:
    """Say on stderr, whatever it is (a terminal, a log file, make's output), that the solver
    is about to be compiled when it has not been on this machine: the first call then takes a
    minute or so, and nothing else would say why."""
    from solver.jit import compiled_before

    if not quiet and not compiled_before():
        print(COMPILING, file=sys.stderr, flush=True)


def load_solver(options: SolveOptions) -> float:
    """Load (compile, the first time) the 9 x 9 kernels ``options`` use by solving ``WARM_UP``;
    the seconds it took. The kernels do not depend on the alphabet, so ``WARM_UP``'s digits
    stand for any."""
    import solver

    started = time.perf_counter()
    grid = np.frombuffer(WARM_UP.encode(), dtype=np.uint8).reshape(-1, 81)
    solver.solve_ascii(grid, replace(options, alphabet=""))
    return time.perf_counter() - started
