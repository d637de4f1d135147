"""The compiled solver in this process: load it before the workers are forked (so that they
inherit it instead of each loading it in its first batch) and before a run measures its batch
size (which compiling would skew), compiling only what the run's options use, on both cores,
and saying what is being compiled.

A solved run (``pipeline.run``), a generated run (``pipeline.generate``) and ``solve`` use it.

Run as ``python -m pipeline.warm_up OPTIONS`` (OPTIONS: a pickled ``SolveOptions``, in hex), it
loads the search, the grade's rules below the trials and the measures those options use:
``load_solver``'s second process.
"""

from __future__ import annotations

import contextlib
import pickle
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np

from solver.options import SolveOptions

# Puzzles that load every compiled kernel a run's settings use: an easy one (Project Euler 96,
# grid 01) and one that needs search, the grading rules and, when asked for, the rating and
# backdoor (Hutton's "diabolical"). Both have one solution.
WARM_UP = ("..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
           ".9.7..86..31..5.2.8.6........7.5...6...3.7...5...1.7........1.9.2.6..35..54..8.7.")
# A puzzle whose Sudoku Explainer path asks every compiled SE rule, dynamic forcing chains (+)
# included (ER 9.4, about a second; Berthier's highest-SER list, line 31): rated once before the
# workers start, it compiles the SE kernels in one process, where workers meeting their first
# chain puzzle at once would each compile them.
SE_WARM_UP = "..1...2......3..4.....5...........362.7........8..1........78...3.....9..5...8..1"
GRADE_MODULE = "solver.compiled.grade"  # what two processes compile side by side
SE_MODULE = "solver.compiled.se"  # the same, when a run rates SE
COMPILING = "compiling the solver for this machine (first run of this source only):"


class Announcement:
    """One line on stderr, whatever it is (a terminal, a log file, make's output), naming the
    solver's modules as they start compiling (numba's compile events: a function loaded from
    the cache says nothing), and at its end how long it took. Nothing is said when nothing
    compiles. Nested uses share the outermost's line."""

    depth = 0
    started: float | None = None

    def begin(self) -> None:
        """Start the line (once): the modules follow it."""
        if Announcement.started is None:
            Announcement.started = time.perf_counter()
            print(COMPILING, end="", file=sys.stderr, flush=True)

    def module(self, name: str) -> None:
        self.begin()
        name_module(name)

    @contextlib.contextmanager
    def around(self):
        from solver.jit import reporting_compiles

        Announcement.depth += 1
        try:
            with reporting_compiles(self.module if Announcement.depth == 1 else None):
                yield self
        finally:
            Announcement.depth -= 1
            if Announcement.depth == 0 and Announcement.started is not None:
                seconds = time.perf_counter() - Announcement.started
                print(f" ({seconds:.0f} s)", file=sys.stderr, flush=True)
                Announcement.started = None


@contextlib.contextmanager
def announcing_compiles(quiet: bool = False):
    """Within it, say on stderr which of the solver's modules compile (unless ``quiet``): the
    first call of a kernel on a machine takes seconds, and nothing else would say why."""
    if quiet:
        yield None
        return
    with Announcement().around() as announcement:
        yield announcement


def name_module(name: str) -> None:
    """The module's last name, on the line begun (by this process or the first)."""
    print(f" {name.rpartition('.')[2]}", end="", file=sys.stderr, flush=True)


def warm_up_grids(boxsize: int) -> np.ndarray:
    """Grids of ``boxsize`` to search: ``WARM_UP`` for 9 x 9, one blank grid for the others
    (searched for one node: the kernels are compiled for the types, whatever the puzzle)."""
    if boxsize != 3:
        return np.zeros((1, boxsize**4), np.uint8)
    grids = np.frombuffer(WARM_UP.encode(), dtype=np.uint8).reshape(-1, 81) - ord("0")
    return np.where(grids > 9, 0, grids).astype(np.uint8)


def load_difficulty(options: SolveOptions, grade: bool = True) -> None:
    """Load (compile, the first time) the grade (unless not ``grade``) and the measures
    ``options`` ask for, the canonical form included, on ``WARM_UP``, without the compiled
    search: the reference finds the solutions they need.
    The grade's kernels are the same at every box size (one type of ``Tables``); the measures
    beyond 9 x 9 are the any-size search's."""
    import solver
    from solver.vocabulary import STATUSES

    nine = replace(options, boxsize=3, alphabet="")  # the grids are values: no alphabet
    grids = warm_up_grids(3)
    found = solver.solve_grids(grids, nine, implementation="reference")
    if grade:
        unique = np.full(len(grids), STATUSES.index("unique"), np.uint8)
        solver.difficulty(grids, unique, found, replace(nine, measures=()))
    if 3 not in options.boxsizes:
        return
    if options.measured("rating"):
        from solver.compiled.measures import ratings

        ratings(grids, 3, options.rating_samples, options.max_nodes)
    if options.measured("backdoor"):
        from solver.compiled.measures import backdoor_sizes

        backdoor_sizes(grids, found.first_solution, 3)
    if options.measured("canonical"):
        from solver.api import canonical_forms

        canonical_forms(grids, np.ones(len(grids), bool))
    if rates_se(options):
        load_se()


def load_second_share(options: SolveOptions) -> None:
    """The second process's share of a run's compile (``compiling_beside``): the search at the
    run's box sizes, the grade's rules below the trials (``compile_passes(1)``), then the
    measures. The first process compiles the trials' passes meanwhile, then the grade's batch,
    every pass loaded from the cache."""
    from solver.compiled.grade import compile_passes

    load_search(options)
    compile_passes(1)
    load_difficulty(options, grade=False)


def load_se() -> None:
    """Compile the SE rating's kernels, its chains included (``SE_WARM_UP``), but for the
    nested levels' (``load_nested``)."""
    from solver.compiled.se import se_rating

    se_rating(SE_WARM_UP)


def load_nested() -> None:
    """Compile the SE rating's nested levels (ER 9.5 and up), which ``SE_WARM_UP`` does not
    reach: minutes of one core, so in the process that does not compile ``load_se``'s half."""
    from solver.compiled.se_chains import compile_nested

    compile_nested()


def rates_se(options: SolveOptions) -> bool:
    """Whether a run of ``options`` rates SE (a 9 x 9 measure)."""
    return options.measured("se") and 3 in options.boxsizes


def load_search(options: SolveOptions) -> None:
    """Load the search at each box size ``options`` take, but "auto" (then 9 x 9 only: rows
    of other sizes compile theirs as they come)."""
    import solver

    for boxsize in (3,) if options.boxsize == "auto" else options.boxsizes:
        grids = warm_up_grids(boxsize)
        searched = replace(options, boxsize=boxsize, alphabet="", max_nodes=1)
        solver.solve_grids(grids, searched)


def _start_second(options: SolveOptions, quiet: bool = False) -> subprocess.Popen:
    """A second process running ``load_second_share(options)``, naming on this process's line
    (begun here, unless ``quiet``) the modules it compiles."""
    if not quiet:
        Announcement().begin()
    command = [sys.executable, "-m", __name__, pickle.dumps(options).hex()]
    return subprocess.Popen(command + (["--quiet"] if quiet else []))


def _finish(process: subprocess.Popen | None) -> None:
    """Wait for ``_start_second``'s process; RuntimeError if it failed."""
    if process is not None and process.wait() != 0:
        raise RuntimeError(f"compiling the solver failed in its second process (exit "
                           f"{process.returncode})")


@contextlib.contextmanager
def compiling_beside(options: SolveOptions, quiet: bool = False):
    """Unless the grade (and the SE rating, if asked for) are in the cache already, a second
    process compiles the search, the grade's rules below the trials and the measures
    (``load_second_share``), while this one compiles the grade's trials (T1's pass then T2's,
    ``compile_passes(0)``), then runs the block. On 2 cores the grade, the longest part of a
    first run's compile, is shared out (BENCHMARKS), and its batch, compiled after (the first
    ``difficulty``), loads its passes from the cache. On leaving, the second process is
    waited for (RuntimeError if it failed), or, when the block raised (Ctrl-C, SIGTERM),
    killed: it goes too, and says nothing."""
    from solver.jit import compiled_before

    halves = (GRADE_MODULE, SE_MODULE) if rates_se(options) else (GRADE_MODULE,)
    cached = all(compiled_before(module) for module in halves)
    other = None if cached else _start_second(options, quiet)
    try:
        if other is not None:
            from solver.compiled.grade import compile_passes

            compile_passes(0)
        yield
    except BaseException:
        if other is not None:
            other.kill()
            other.wait()
        raise
    _finish(other)


def load_solver(options: SolveOptions, quiet: bool = False) -> float:
    """Load (compile, the first time) the kernels ``options`` use, and only those: the 9 x 9
    search and grade for a 9 x 9 run, the measures it asks for; the seconds it took. The
    search, the grade's rules below the trials and the measures compile in a second process
    while this one compiles the trials (``compiling_beside``); then this one solves
    ``WARM_UP`` (for 9 x 9 runs), which compiles the grade's batch and loads the rest from the
    cache."""
    started = time.perf_counter()
    with announcing_compiles(quiet):
        with compiling_beside(options, quiet):
            if rates_se(options):
                load_nested()
        load_search(options)  # compiled by the second process, if any: loaded here, to be forked
        if 3 in options.boxsizes:
            import solver

            grids = np.frombuffer(WARM_UP.encode(), dtype=np.uint8).reshape(-1, 81)
            solver.solve_ascii(grids, replace(options, boxsize=3, alphabet=""))
        else:
            load_difficulty(options)
    return time.perf_counter() - started


def _main(arguments: list[str]) -> None:
    """The second process: its modules go on the first process's line, which that one ends."""
    from solver.jit import reporting_compiles

    options = pickle.loads(bytes.fromhex(arguments[0]))
    with reporting_compiles(None if "--quiet" in arguments else name_module):
        load_second_share(options)


if __name__ == "__main__":
    _main(sys.argv[1:])
