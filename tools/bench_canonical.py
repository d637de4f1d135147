"""Canonical-form benchmark: puzzles/s per core of ``solver.compiled.canonical.canonical_grids``,
per set.

Run with ``python tools/bench_canonical.py`` (``make bench`` runs it too).  Reads the public sets
from ``../shared/datasets`` when that folder is there (override with ``--datasets DIR``) and says
so plainly when it is not.  Single process, one core; each figure is the median of ``--repeats``
timed runs over the whole set after a warm-up run (which also loads the compiled code from
numba's cache).  Puzzles/s per core count the process's CPU time, which other processes on a
busy machine do not inflate; the wall-clock figure is printed beside it.  Then the slowest
puzzles are timed again one by one (each copied 100 times into a batch, best of 5, CPU time) and
the worst is named.  Never fails on a time: it prints figures.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_solver import DEFAULT_DATASETS, datasets_missing, machine  # noqa: E402  (tools/ is on sys.path when run as a script)

from solver.compiled.canonical import TABLES, canonical_batch, canonical_grids  # noqa: E402
from solver.grid import CELL_OF_BYTE, INVALID_BYTE  # noqa: E402

# (file, CSV column or None for one puzzle a line, target puzzles/s per core or None)
SETS = [
    ("kaggle_1m_sample.csv", "quizzes", 200_000),
    ("sudoku17_all_49158.txt", None, 200_000),
    ("serg_benchmark.txt", None, 20_000),
    ("top1465.txt", None, None),
    ("forum_hardest_1905_sample.txt", None, None),
    ("radcliffe_3m_sample.csv", "puzzle", None),
]
SUSPECTS = 10  # puzzles re-timed precisely per set, the slowest of a first quick pass
COPIES = 100  # copies of one puzzle in a batch, when timing it alone


def load(path: Path, column: str | None) -> list[str]:
    if column is None:
        return [line.strip() for line in path.read_text().splitlines() if line.strip()]
    with path.open(newline="") as f:
        return [row[column] for row in csv.DictReader(f)]


def grids_of(puzzles: list[str]) -> np.ndarray:
    rows = np.frombuffer("".join(puzzles).encode(), np.uint8).reshape(-1, 81)
    grids = CELL_OF_BYTE[rows]
    assert (grids != INVALID_BYTE).all(), "benchmark sets hold only well-formed puzzles"
    return grids


def median_seconds(grids: np.ndarray, repeats: int) -> tuple[float, float]:
    """Median (CPU seconds, wall seconds) of ``repeats`` runs after a warm-up."""
    canonical_grids(grids)
    cpu, wall = [], []
    for _ in range(repeats):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        canonical_grids(grids)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return statistics.median(cpu), statistics.median(wall)


def seconds_alone(grid: np.ndarray) -> float:
    """One puzzle's time: a batch of COPIES copies, best of 5, divided by COPIES."""
    batch = np.ascontiguousarray(np.tile(grid, (COPIES, 1)))
    out = np.zeros_like(batch)
    found = np.zeros((COPIES, 19), np.int8)
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        canonical_batch(batch, out, found, TABLES)
        best = min(best, time.process_time() - start)
    return best / COPIES


def slowest(grids: np.ndarray) -> tuple[float, int]:
    """(seconds, index) of the slowest puzzle: a quick pass one call per puzzle, then the
    SUSPECTS slowest of it timed again precisely."""
    out = np.zeros((1, 81), np.uint8)
    found = np.zeros((1, 19), np.int8)
    quick = np.empty(len(grids))
    for i in range(len(grids)):
        start = time.perf_counter()
        canonical_batch(grids[i:i + 1], out, found, TABLES)
        quick[i] = time.perf_counter() - start
    suspects = np.argsort(quick)[-SUSPECTS:]
    return max((seconds_alone(grids[i]), int(i)) for i in suspects)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("# Canonical-form benchmark")
    print(f"machine: {machine()}")
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f} (other processes skew the figures)"
          .format(*os.getloadavg()))
    if datasets_missing(args.datasets):
        return 0
    print(f"datasets: {args.datasets}; one core; median of {args.repeats} runs after a warm-up; "
          "puzzles/s and us/puzzle in CPU time")
    start = time.perf_counter()
    canonical_grids(np.zeros((1, 81), np.uint8))
    print(f"engine load (numba cache) {time.perf_counter() - start:.2f} s\n")
    print(f"| {'set':30s} | {'puzzles':>8s} | {'puzzles/s':>10s} | {'us/puzzle':>9s} | "
          f"{'wall /s':>10s} | {'target/s':>8s} | {'slowest puzzle':>14s} |")
    print(f"|{'-' * 32}|{'-' * 9}:|{'-' * 11}:|{'-' * 10}:|{'-' * 11}:|{'-' * 9}:|{'-' * 15}:|")
    worst = (0.0, "", "")
    for name, column, target in SETS:
        path = args.datasets / name
        if not path.exists():
            print(f"| {name:30s} | (missing) |")
            continue
        puzzles = load(path, column)
        grids = grids_of(puzzles)
        seconds, wall = median_seconds(grids, args.repeats)
        slow_seconds, slow_index = slowest(grids)
        if slow_seconds > worst[0]:
            worst = (slow_seconds, name, puzzles[slow_index])
        goal = f"{target:,}" if target else ""
        print(f"| {name:30s} | {len(grids):8,d} | {len(grids) / seconds:10,.0f} | "
              f"{seconds / len(grids) * 1e6:9.2f} | {len(grids) / wall:10,.0f} | {goal:>8s} | "
              f"{slow_seconds * 1e6:11.1f} us |", flush=True)
    if worst[1]:
        print(f"\nworst single puzzle: {worst[0] * 1e6:.1f} us, {worst[1]}: {worst[2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
