"""Two versions of the solver on the same work, as ratios: ``--before DIR`` and ``--after DIR``,
each a checkout of this project (e.g. ``git archive main | tar -x -C /tmp/before``).

Run with ``python tools/compare_trees.py --before /tmp/before --after .``. Each measurement is a
new process that imports the solver of one tree (its numba cache is its own), warms every
piece of work up (compiling it, the first time) and times it ``--repeats`` times; the trees
take turns (before, after, before, after, ...) for ``--rounds`` rounds, so a busy machine
slows both alike. Printed: per piece of work, the median over the rounds of each tree's median
seconds, and after / before (below 1: the after tree is faster). Not part of ``make bench``
(it needs a second tree); never fails on a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"
BOXSIZE_DATA = ROOT / "tests" / "data" / "boxsize"


# The 9 x 9 work only (``--quick``): a few minutes a round on a busy machine.
QUICK = ("search kaggle x2 bird", "search top1465[:300] bird", "search forum_hardest[:150] singles",
         "grade top1465[:300]", "generate 9x9 300", "canonical sudoku17[:20000]",
         "canonical serg_benchmark[:2000]", "backdoor top1465[:200]")


def measure(tree: Path, datasets: Path, repeats: int, quick: bool = False) -> dict[str, float]:
    """Median seconds of each piece of work, with the solver of ``tree``."""
    sys.path.insert(0, str(tree))
    import numpy as np

    import solver
    from solver.grid import ascii_rows, grids_from_ascii

    assert solver.__file__.startswith(str(tree)), solver.__file__
    if (tree / "solver" / "compiled").is_dir():
        from solver.compiled import grade
        from solver.compiled.canonical import canonical_grids
        from solver.compiled.generate import candidates
        from solver.compiled.measures import backdoor_sizes
    else:  # the layout before issue 30 (its canonical form and backdoor size are not timed)
        canonical_grids = backdoor_sizes = None
        from solver.generate import candidates

        from solver import fast_grade as grade
    assert grade.__file__.startswith(str(tree)), grade.__file__

    def grids(path: Path, cells: int = 81) -> np.ndarray:
        lines = path.read_text().splitlines()
        if path.suffix == ".csv":
            lines = [line.split(",")[0] for line in lines[1:]]
        puzzles = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
        return grids_from_ascii(ascii_rows(puzzles, cells)[0])[0]

    kaggle = np.tile(grids(datasets / "kaggle_1m_sample.csv"), (2, 1))
    top = grids(datasets / "top1465.txt")[:300]
    hardest = grids(datasets / "forum_hardest_1106.txt")[:150]
    b2 = np.tile(grids(BOXSIZE_DATA / "generated_b2.txt", 16), (20, 1))
    b4 = grids(BOXSIZE_DATA / "generated_b4.txt", 256)
    b5 = grids(BOXSIZE_DATA / "generated_b5.txt", 625)
    sparse = grids(datasets / "sudoku17_all_49158.txt")[:20000]
    symmetric = grids(datasets / "serg_benchmark.txt")[:2000]
    top_solutions = solver.solve_grids(top[:200]).first_solution
    work = {
        "search kaggle x2 bird": lambda: solver.solve_grids(kaggle),
        "search top1465[:300] bird": lambda: solver.solve_grids(top),
        "search forum_hardest[:150] singles": lambda: solver.solve_grids(hardest, rules="singles"),
        "search 16x16 bird": lambda: solver.solve_grids(b4),
        "search 4x4 bird": lambda: solver.solve_grids(b2),
        "search 25x25 bird": lambda: solver.solve_grids(b5),
        "grade top1465[:300]": lambda: grade.grades(top, 3),
        "grade 16x16": lambda: grade.grades(b4, 4),
        "generate 9x9 300": lambda: candidates(7, 0, 300, 3),
        "generate 16x16 2": lambda: candidates(7, 0, 2, 4),
        "generate 4x4 1000": lambda: candidates(7, 0, 1000, 2),
        "canonical sudoku17[:20000]": lambda: canonical_grids(sparse),
        "canonical serg_benchmark[:2000]": lambda: canonical_grids(symmetric),
        "backdoor top1465[:200]": lambda: backdoor_sizes(top[:200], top_solutions, 3),
    }
    found = {}
    for name, run in work.items():
        if (quick and name not in QUICK) or (canonical_grids is None and
                                             name.startswith(("canonical", "backdoor"))):
            continue
        run()  # warm-up (and compile, the first time)
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            run()
            seconds.append(time.perf_counter() - start)
        found[name] = statistics.median(seconds)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path)
    parser.add_argument("--after", type=Path)
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="the 9 x 9 work only")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # one tree, JSON out
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure.resolve(), args.datasets, args.repeats,
                                 args.quick)))
        return 0
    if not (args.before and args.after):
        parser.error("--before and --after are both needed")
    if not args.datasets.is_dir():
        print(f"The public datasets are not here ({args.datasets}): nothing to measure.")
        return 0
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for label in ("before", "after"):
            tree = getattr(args, label).resolve()
            done = subprocess.run(
                [sys.executable, __file__, "--measure", str(tree), "--datasets",
                 str(args.datasets), "--repeats", str(args.repeats)]
                + (["--quick"] if args.quick else []),
                cwd=tree, capture_output=True, text=True, check=True)
            runs[label].append(json.loads(done.stdout.splitlines()[-1]))
    print(f"median of {args.rounds} rounds (each a median of {args.repeats} runs); "
          "ratio = after / before")
    for name in runs["before"][0]:
        before = statistics.median(run[name] for run in runs["before"])
        after = statistics.median(run[name] for run in runs["after"])
        print(f"{name:30s} before {before * 1000:9.1f} ms  after {after * 1000:9.1f} ms  "
              f"ratio {after / before:5.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
