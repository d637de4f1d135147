"""Benchmark of SPEC 5.1's ``grade`` on the nine-rung ladder (issue 20): puzzles/s per core.

- the grade alone (``solver.compiled.grade.grades``, the compiled ladder of every box size) on
  ``kaggle_1m_sample.csv``, ``top1465.txt`` and 2,000 puzzles of
  ``forum_hardest_1905_sample.txt``, under the default ``grade_limit`` (trial2) and under
  ``--grade-limit subsets`` (the four-rung ladder's cost);
- end to end (``solver.solve_strings``: search, then grade) on the Kaggle sample, with both
  limits: its puzzles are singles-solvable, so the new rungs should cost nothing there;
- the hard end (issue 32): the default run (``solver.solve_strings``: search, then the grade)
  against the search alone (``solver.solve_grids``) on ``--hard-sample`` puzzles spread evenly
  over ``forum_hardest_1905_sample.txt`` (every k-th line: its first lines are easier for the
  grade than the rest, BENCHMARKS) and on ``top1465.txt``, and the milliseconds the grade
  takes to know a puzzle beyond T2: no set holds a puzzle of one solution beyond T2 (docs/
  grades.md), so those are the first ``--beyond`` forum-hardest puzzles with their last given
  taken out (several solutions each; a run with ``max_solutions 1`` grades such rows).

Every figure is the median of ``--repeats`` timed runs after a warm-up run, in one process (one
core). Reads the sets from ``../shared/datasets`` (override with ``--datasets DIR``) and says so
plainly when that folder is not there. Never fails on a time: it prints figures.

    .venv/bin/python tools/bench_grade.py [--repeats 5] [--hard-sample 2000] [--beyond 20]
                                          [--hard-end-only]
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


def spread(rows: list[str], size: int | None) -> list[str]:
    """``size`` of ``rows`` taken evenly over all of them (every k-th), or all when None."""
    if size is None or size >= len(rows):
        return rows
    return rows[::len(rows) // size][:size]


def hard_end(datasets: Path, repeats: int, sample: int, beyond: int) -> None:
    from solver.compiled import grade as compiled_grade

    print("\n## the hard end (issue 32): default run against the search alone, puzzles/s per core")
    print(f"{'set':32s} {'puzzles':>8s} {'search':>9s} {'default':>9s} {'default/search':>15s}")
    for name, size in (("forum_hardest_1905_sample.txt", sample), ("top1465.txt", None)):
        puzzles = spread(load(datasets / name), size)
        grids = grids_of(puzzles)
        search, _ = median_seconds(partial(solver.solve_grids, grids), repeats)
        default, _ = median_seconds(partial(solver.solve_strings, puzzles), repeats)
        print(f"{name:32s} {len(puzzles):8,d} {len(puzzles) / search:9,.0f} "
              f"{len(puzzles) / default:9,.0f} {search / default:15.3f}  (target: 0.333)",
              flush=True)
    grids = grids_of(load(datasets / "forum_hardest_1905_sample.txt")[:beyond])
    for grid in grids:
        grid[np.flatnonzero(grid)[-1]] = 0
    milliseconds, searched = [], 0
    for grid in grids:  # one at a time: each puzzle's own time
        seconds, grade = median_seconds(partial(compiled_grade.grades, grid[None], 3), repeats)
        searched += solver.GRADES[grade[0]] == "search"
        milliseconds.append(1000 * seconds)
    print(f"beyond T2 (the first {beyond} forum-hardest puzzles, last given out; {searched} "
          f"graded search), grade alone: median {statistics.median(milliseconds):.2f} ms, "
          f"max {max(milliseconds):.2f} ms a puzzle (target: under 50)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--hard-sample", type=int, default=2_000,
                        help="forum-hardest puzzles timed for the hard end, spread over the file "
                             "(default 2,000)")
    parser.add_argument("--beyond", type=int, default=20,
                        help="puzzles beyond T2 timed one by one (default 20)")
    parser.add_argument("--hard-end-only", action="store_true",
                        help="only the hard end (to compare two versions in turn)")
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
    if not args.hard_end_only:
        grade_rates(args.datasets, args.repeats)
        end_to_end(args.datasets, args.repeats)
    hard_end(args.datasets, args.repeats, args.hard_sample, args.beyond)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
