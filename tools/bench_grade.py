"""Benchmark of SPEC 5.1's ``grade`` on the nine-rung ladder (issue 20): puzzles/s per core.

- the grade alone (``solver.compiled.grade.grades``, the compiled ladder of every box size) on
  ``kaggle_1m_sample.csv``, ``top1465.txt`` and 2,000 puzzles of
  ``forum_hardest_1905_sample.txt``, under the default ``grade_limit`` (trial2) and under
  ``--grade-limit subsets`` (the four-rung ladder's cost);
- end to end (``solver.solve_strings``: search, then grade) on the Kaggle sample, with both
  limits: its puzzles are singles-solvable, so the new rungs should cost nothing there.

Every figure is the median of ``--repeats`` timed runs after a warm-up run, in one process (one
core). Reads the sets from ``../shared/datasets`` (override with ``--datasets DIR``) and says so
plainly when that folder is not there. Never fails on a time: it prints figures.

    .venv/bin/python tools/bench_grade.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from functools import partial
from pathlib import Path

import numpy as np
from bench_measures import median_seconds  # tools/
from bench_solver import DEFAULT_DATASETS, datasets_missing, grids_of, load, machine

import solver

# (set, puzzles timed: the first N of the file; None = all of it).
GRADE_SETS = (("kaggle_1m_sample.csv", None), ("top1465.txt", None),
              ("forum_hardest_1905_sample.txt", 2_000))
LIMITS = ("trial2", "subsets")
TARGETS = {"top1465.txt": 1_000, "forum_hardest_1905_sample.txt": 100}  # puzzles/s (issue 20)


def grade_rates(datasets: Path, repeats: int) -> None:
    from solver.compiled import grade as compiled_grade

    print("\n## grade alone (solver.compiled.grade.grades), puzzles/s per core")
    print(f"{'set':32s} {'puzzles':>8s} {'limit':>8s} {'puzzles/s':>10s} {'target':>7s}  "
          f"grades ({'/'.join(solver.GRADES)})")
    for name, size in GRADE_SETS:
        puzzles = load(datasets / name)[:size]
        grids = grids_of(puzzles)
        for limit in LIMITS:
            seconds, grades = median_seconds(partial(compiled_grade.grades, grids, 3, limit), repeats)
            counts = np.bincount(grades, minlength=len(solver.GRADES))
            target = f"{TARGETS[name]:,}" if name in TARGETS and limit == "trial2" else "-"
            print(f"{name:32s} {len(grids):8,d} {limit:>8s} {len(grids) / seconds:10,.0f} "
                  f"{target:>7s}  {'/'.join(map(str, counts))}", flush=True)


def end_to_end(datasets: Path, repeats: int) -> None:
    print("\n## Kaggle end to end (solver.solve_strings: search, grade), puzzles/s per core")
    puzzles = load(datasets / "kaggle_1m_sample.csv")
    rates = {}
    for limit in LIMITS * 2:  # interleaved, so that a slow spell of the machine hits both
        seconds, _ = median_seconds(partial(solver.solve_strings, puzzles, grade_limit=limit),
                                    repeats)
        rates.setdefault(limit, []).append(len(puzzles) / seconds)
    for limit, measured in rates.items():
        print(f"grade_limit {limit:8s} {len(puzzles):8,d} puzzles  "
              f"{statistics.median(measured):10,.0f} puzzles/s")
    ratio = statistics.median(rates["trial2"]) / statistics.median(rates["subsets"])
    print(f"trial2 / subsets: {ratio:.3f} (target: at least 0.95)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("# Grade benchmark (SPEC 5.1, the nine-rung ladder)")
    print(f"machine: {machine()}")
    if datasets_missing(args.datasets):
        return 0
    print(f"datasets: {args.datasets}; median of {args.repeats} runs after a warm-up; one core")
    start = time.perf_counter()
    from solver.compiled import grade as compiled_grade

    compiled_grade.grades(np.zeros((1, 81), np.uint8), 3)
    solver.solve("." * 81)
    print(f"engines load (numba cache) {time.perf_counter() - start:.2f} s")
    grade_rates(args.datasets, args.repeats)
    end_to_end(args.datasets, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
