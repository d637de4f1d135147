"""Where compiling the solver goes: CPU seconds per compiled function, from an empty cache.

Compiles one part of the solver in this process (``--half grade``: the grade whole, the 9 x 9
measures and the canonical form, ``pipeline.warm_up.load_difficulty``; ``--half search``: the
searches and the generators, as the suite's precompiling does; ``--half se``: the SE rating,
its nested levels included, as a run with ``--measures se`` does) into a new temporary numba
cache, and prints for the costliest functions the CPU seconds of their own compile (their
callees' compiles left out) and with them, then the total. numba links every compiled
function's callees into its module and optimizes them again there, so a deep call tree shows
as large own times high up: ``solver.compiled.grade``'s docstring says what was inlined for it.

    .venv/bin/python tools/compile_profile.py [--half grade|search|se] [--top 25]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from numba.core import event

ROOT = Path(__file__).resolve().parents[1]


class Compiles(event.Listener):
    """numba's compile events as (qualified name, module, own CPU s, with callees CPU s)."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, str, float, list[float]]] = []
        self.done: list[tuple[str, str, float, float]] = []

    def on_start(self, event) -> None:
        function = event.data["dispatcher"].py_func
        self.open.append((function.__qualname__, function.__module__, time.process_time(), [0.0]))

    def on_end(self, event) -> None:
        name, module, started, inner = self.open.pop()
        seconds = time.process_time() - started
        if self.open:
            self.open[-1][3][0] += seconds
        self.done.append((name, module, seconds - inner[0], seconds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("grade", "search", "se"), default="grade")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="compile-profile-")
    sys.path.insert(0, str(ROOT))
    from solver.options import SolveOptions
    from tests.precompile import MEASURES, this_half

    compiles = Compiles()
    event.register("numba:compile", compiles)
    if args.half == "grade":
        from pipeline.warm_up import load_difficulty

        load_difficulty(SolveOptions(measures=MEASURES))
    elif args.half == "se":
        from pipeline.warm_up import load_nested, load_se

        load_se()
        load_nested()
    else:
        from pipeline.warm_up import load_search

        load_search(SolveOptions(measures=MEASURES, boxsize=3))
        this_half(se=False)
    print(f"{'own s':>7} {'with callees':>12}  function")
    for name, module, own, whole in sorted(compiles.done, key=lambda row: -row[2])[:args.top]:
        print(f"{own:7.1f} {whole:12.1f}  {module}.{name}")
    print(f"{sum(row[2] for row in compiles.done):7.1f} {'':12}  in all, "
          f"{len(compiles.done)} compiles ({args.half})")


if __name__ == "__main__":
    main()
