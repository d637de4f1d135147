"""Solver benchmark: puzzles/s and search nodes/s per core, fast implementation vs reference, per set.

Run with ``make bench`` (or ``python tools/bench_solver.py``).  Reads the big public sets from
``../shared/datasets`` when that folder is there (override with ``--datasets DIR``) and says so
plainly when it is not.  Single process, one core; every figure is the median of ``--repeats``
timed runs of the same puzzles after a warm-up, so the compiled code is loaded from numba's
cache before anything is timed.  Never fails on a time: it prints figures.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import solver  # noqa: E402
from solver.grid import ascii_rows, grids_from_ascii  # noqa: E402

DEFAULT_DATASETS = ROOT.parent / "shared" / "datasets"

# (file, sample size under bird, sample size under singles); None = the whole file.
SETS = [
    ("kaggle_1m_sample.csv", None, None),
    ("radcliffe_3m_sample.csv", None, None),
    ("euler96_easy50.txt", None, None),
    ("serg_benchmark.txt", None, None),
    ("norvig_sudoku10k.txt", 2000, None),
    ("top1465.txt", None, None),
    ("norvig_top95.txt", None, None),
    ("magictour_top100.txt", None, None),
    ("forum_hardest_1106.txt", None, None),
    ("forum_hardest_1905_sample.txt", 400, 4000),
    ("sudoku17_all_49158.txt", 1500, None),
]


def datasets_missing(datasets: Path, nothing: str = "nothing to measure") -> bool:
    """True, after saying so plainly, when the public datasets are not at ``datasets``."""
    if datasets.is_dir():
        return False
    print(f"The public datasets are not here ({datasets}): {nothing}. "
          "Run beside the team's shared/ folder or pass --datasets DIR.")
    return True


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba

    return (f"{model}; {os.cpu_count()} cores; Python {platform.python_version()}; "
            f"numba {numba.__version__}; numpy {np.__version__}; solver {solver.__version__}")


def load(path: Path) -> list[str]:
    if path.suffix == ".csv":
        with path.open(newline="") as f:
            return [row[0] for row in list(csv.reader(f))[1:]]
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def grids_of(puzzles: list[str]) -> np.ndarray:
    rows, errors = ascii_rows(puzzles)
    assert not any(errors), "benchmark sets hold only well-formed puzzles"
    return grids_from_ascii(rows)[0]


def timed(grids: np.ndarray, repeats: int, **options) -> tuple[float, solver.SearchColumns]:
    """Median seconds of ``repeats`` runs of the fast implementation on ``grids``, and the columns."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        columns = solver.solve_grids(grids, **options)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), columns


def depth_summary(depth: np.ndarray) -> str:
    p50, p90, p99 = np.percentile(depth, [50, 90, 99])
    return f"{p50:.0f}/{p90:.0f}/{p99:.0f}/{depth.max()}"


def sample(puzzles: list[str], size: int | None, seed: int = 2026) -> list[str]:
    if size is None or size >= len(puzzles):
        return puzzles
    rng = np.random.default_rng(seed)
    return [puzzles[i] for i in sorted(rng.choice(len(puzzles), size, replace=False))]


def headline(datasets: Path, repeats: int) -> None:
    print("\n## Targets (bird, fixpoint, smallest; max_solutions 2; one core)")
    kaggle = grids_of(load(datasets / "kaggle_1m_sample.csv"))
    kaggle = np.tile(kaggle, (5, 1))  # 50,000 puzzles: long enough to time well
    seconds, _ = timed(kaggle, repeats)
    print(f"kaggle_1m_sample.csv x5  {len(kaggle) / seconds:12,.0f} puzzles/s   (target 400,000)")
    top = grids_of(load(datasets / "top1465.txt"))
    seconds, columns = timed(top, repeats)
    nodes = columns.search_nodes.sum()
    print(f"top1465.txt              {nodes / seconds:12,.0f} nodes/s     (target 1,500,000)"
          f"   {len(top) / seconds:,.0f} puzzles/s, mean {nodes / len(top):,.0f} nodes")


def speedup(datasets: Path) -> None:
    print("\n## Fast implementation vs reference (same puzzles, same numbers)")
    for name, size in (("kaggle_1m_sample.csv", 200), ("top1465.txt", 20)):
        puzzles = sample(load(datasets / name), size)
        grids = grids_of(puzzles)
        start = time.perf_counter()
        reference = solver.solve_grids(grids, implementation="reference")
        reference_s = time.perf_counter() - start
        fast_s, columns = timed(grids, 5)
        same = all(np.array_equal(a, b)  # every column but solve_ns, the last
                   for a, b in zip(reference[:-1], columns[:-1], strict=True))
        print(f"{name:24s} {len(puzzles):5d} puzzles: reference {reference_s:8.3f} s, "
              f"fast {fast_s * 1000:8.3f} ms, speedup {reference_s / fast_s:10,.0f}x, "
              f"identical columns: {same}")


def per_set(datasets: Path, repeats: int) -> None:
    print("\n## Every set, both rule sets (puzzles/s; mean and max nodes; depth p50/p90/p99/max)")
    print(f"{'set':31s} {'rules':7s} {'puzzles':>8s} {'puzzles/s':>11s} {'nodes/s':>11s} "
          f"{'mean nodes':>11s} {'max nodes':>10s} {'depth':>12s} {'budget hit':>10s} "
          f"{'prune-solv.':>11s} {'singles-solv.':>13s}")
    for name, bird_size, singles_size in SETS:
        path = datasets / name
        if not path.exists():
            print(f"{name:31s} (missing)")
            continue
        everything = load(path)
        for rules, size in (("bird", bird_size), ("singles", singles_size)):
            puzzles = sample(everything, size)
            grids = grids_of(puzzles)
            seconds, columns = timed(grids, repeats, rules=rules)
            budget, nodes, depth = columns.budget_exceeded, columns.search_nodes, columns.search_depth
            label = name if size is None else f"{name} ({len(puzzles)} of {len(everything)})"
            print(f"{label:31s} {rules:7s} {len(puzzles):8d} {len(puzzles) / seconds:11,.0f} "
                  f"{nodes.sum() / seconds:11,.0f} {nodes.mean():11,.1f} {nodes.max():10,d} "
                  f"{depth_summary(depth):>12s} {budget.sum():10d} "
                  f"{columns.prune_solvable.mean():11.1%} "
                  f"{columns.singles_solvable.mean():13.1%}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="targets and speedup only")
    args = parser.parse_args()
    print("# Solver benchmark")
    print(f"machine: {machine()}")
    if datasets_missing(args.datasets):
        return 0
    print(f"datasets: {args.datasets}; median of {args.repeats} runs; implementation fast unless said")
    start = time.perf_counter()
    solver.solve("." * 81)  # load (or compile, once) the implementation before timing anything
    print(f"solver load (numba cache) {time.perf_counter() - start:.2f} s")
    headline(args.datasets, args.repeats)
    speedup(args.datasets)
    if not args.quick:
        per_set(args.datasets, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
