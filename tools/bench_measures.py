"""Benchmark of SPEC section 5's measures: what ``grade``, ``rating`` and ``backdoor_size`` cost.

Per core (one process), every figure the median of ``--repeats`` timed runs after a warm-up run:

- ``rating`` (K = 32) in puzzles/s over the whole of ``radcliffe_3m_sample.csv``;
- ``backdoor_size`` in puzzles/s over ``forum_hardest_1905_sample.txt`` (48,766 hard puzzles);
- ``grade``, which every run computes, as a share of the search's own time on
  ``kaggle_1m_sample.csv``, ``top1465.txt`` and 2,000 puzzles of ``forum_hardest_1905_sample.txt``.

What is timed is ``solver.difficulty``, the step ``solve_ascii`` adds after the search: the grade
of every solved row, plus the measure asked for (so the rating and backdoor figures include the
grade).  Reads the sets from ``../shared/datasets`` (override with ``--datasets DIR``) and says
so plainly when that folder is not there.  Never fails on a time: it prints figures.

    .venv/bin/python tools/bench_measures.py [--repeats 5] [--backdoor-sample N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
from bench_solver import (  # tools/ on sys.path
    DEFAULT_DATASETS,
    datasets_missing,
    grids_of,
    load,
    machine,
    sample,
)

import solver
from solver.api import statuses

RATING_SET = "radcliffe_3m_sample.csv"
BACKDOOR_SET = "forum_hardest_1905_sample.txt"
# (set, sample size for the grade's share; None = the whole file).  Bird's search takes about 2 ms
# a puzzle on forum_hardest: a sample keeps five timed runs short.
GRADE_SETS = (("kaggle_1m_sample.csv", None), ("top1465.txt", None),
              ("forum_hardest_1905_sample.txt", 2_000))
TARGETS = {"rating": 2_000, "backdoor": 500}  # puzzles/s per core (issue 12)
GRADE_TARGETS = {"kaggle_1m_sample.csv": 0.05}  # of the solve time; 0.25 for the hard sets


def median_seconds(run, repeats: int):
    """The median wall time of ``repeats`` calls of ``run`` after one untimed call, and the last
    result."""
    result = run()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), result


def searched(grids: np.ndarray, repeats: int):
    """(median search seconds, the columns, the statuses) under the default settings."""
    seconds, found = median_seconds(lambda: solver.solve_grids(grids), repeats)
    status = statuses(np.zeros(len(grids), bool), found.contradictory, found.budget_exceeded,
                      found.n_solutions, 2)
    return seconds, found, status


def grade_share(datasets: Path, repeats: int) -> None:
    print("\n## grade: its time as a share of the search's (default settings: bird, fixpoint)")
    print(f"{'set':44s} {'puzzles':>8s} {'search s':>9s} {'grade s':>9s} {'share':>7s} "
          f"{'target':>7s}  grades ({'/'.join(solver.GRADES)})")
    for name, size in GRADE_SETS:
        path = datasets / name
        if not path.exists():
            print(f"{name:44s} (missing)")
            continue
        everything = load(path)
        grids = grids_of(sample(everything, size))
        label = name if size is None else f"{name} ({size:,} of {len(everything):,})"
        if name.startswith("kaggle"):
            grids = np.tile(grids, (5, 1))  # 50,000 puzzles: long enough to time well
            label = f"{name} x5"
        search_s, found, status = searched(grids, repeats)
        grade_s, measured = median_seconds(
            lambda: solver.difficulty(grids, status, found), repeats)  # noqa: B023
        counts = np.bincount(measured.grade[measured.grade >= 0], minlength=len(solver.GRADES))
        target = GRADE_TARGETS.get(name, 0.25)
        print(f"{label:44s} {len(grids):8,d} {search_s:9.3f} {grade_s:9.4f} "
              f"{grade_s / search_s:7.2%} {target:7.0%}  {'/'.join(map(str, counts))}", flush=True)


def measure_rate(datasets: Path, name: str, measure: str, repeats: int,
                 sample: int | None = None) -> None:
    path = datasets / name
    if not path.exists():
        print(f"{name}: missing")
        return
    everything = load(path)
    puzzles = everything if sample is None else everything[:sample]
    grids = grids_of(puzzles)
    _, found, status = searched(grids, 1)
    seconds, measured = median_seconds(
        lambda: solver.difficulty(grids, status, found, measures=(measure,)), repeats)
    unique = status == solver.STATUSES.index("unique")
    needing = int((unique & ~found.singles_solvable).sum())
    size = f"{len(puzzles):,} puzzles" + ("" if sample is None else f" of {len(everything):,}")
    print(f"{name}: {size}, {needing:,} unique and not singles-solvable; {seconds:.3f} s: "
          f"**{len(puzzles) / seconds:,.0f} puzzles/s** (target {TARGETS[measure]:,})")
    if measure == "rating":
        rating = measured.rating[~np.isnan(measured.rating)]
        print(f"  rating mean {rating.mean():.2f}, max {rating.max():.2f}; "
              f"null (a copy over the budget) {int(np.isnan(measured.rating[unique]).sum())}")
    else:
        sizes, counts = np.unique(measured.backdoor_size[unique], return_counts=True)
        print("  backdoor sizes: " + ", ".join(
            f"{'null' if s < 0 else s}: {c:,}" for s, c in zip(sizes, counts, strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--backdoor-sample", type=int, default=None, metavar="N",
                        help="time the backdoor on the first N puzzles only (default: all)")
    args = parser.parse_args()
    print("# Measures benchmark (SPEC section 5)")
    print(f"machine: {machine()}")
    if datasets_missing(args.datasets):
        return 0
    print(f"datasets: {args.datasets}; median of {args.repeats} runs after a warm-up; one core")
    start = time.perf_counter()
    solver.solve("." * 81)
    from solver.compiled import grade as compiled_grade
    from solver.compiled import measures_9x9

    empty = np.zeros((1, 81), np.uint8)
    compiled_grade.grades(empty, 3), measures_9x9.ratings(empty, 1, 1)
    measures_9x9.backdoor_sizes(empty, np.ones((1, 81), np.uint8))
    print(f"engines load (numba cache) {time.perf_counter() - start:.2f} s")
    print("\n## rating, K = 32 (each copy's budget: the default max_nodes)")
    measure_rate(args.datasets, RATING_SET, "rating", args.repeats)
    print("\n## backdoor_size")
    measure_rate(args.datasets, BACKDOOR_SET, "backdoor", args.repeats, args.backdoor_sample)
    grade_share(args.datasets, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
