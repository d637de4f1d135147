"""Benchmark other box sizes (issue 19); prints figures, never fails on a time.

The puzzles are made here, the same every time (no shared data needed): complete grids from
``solver.compiled.generate`` (draws of a fixed seed), then cells blanked in a random order while the
solution stays unique, down to a number of givens drawn from the range asked for (16 x 16:
42-50% of the cells given); for 9 x 9 and 16 x 16 only puzzles that pruning alone does not solve
(they need search) are kept. For each box size:

1. the yardstick: ``tools/baseline_bitmask.py``, SPEC section 2 written plainly in numba over
   N-bit masks, on one core in this process (median of ``--repeats``), after checking that it
   visits the same nodes as the project's solver;
2. the pipeline end to end (``sudoku-pipeline solve-dataset``, a whole process, ``--workers 2``
   by default), puzzles/s, median of ``--repeats`` runs, on a file of the puzzles repeated to
   about ``--seconds`` of the yardstick's work (so that starting the processes and loading the
   compiled code, about 3 s, count as they would on a real dataset; at most 2,000,000 rows);
3. the ratio of 1 to 2 (issue 19's target for 16 x 16: at least 4).

    .venv/bin/python tools/bench_boxsize.py [--count 400] [--workers 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import baseline_bitmask  # noqa: E402
from bench_solver import machine  # noqa: E402

import solver  # noqa: E402
from solver.compiled import generate  # noqa: E402
from solver.grid import symbols, tables  # noqa: E402

OUT = ROOT / "bench-output"
COMMAND = Path(sys.executable).parent / "sudoku-pipeline"
SEED = 19
# Box size: (share of the cells given, lowest and highest; puzzles measured by default; whether
# only puzzles that need search are kept: nearly every unique 4 x 4 puzzle is prune-solvable).
SIZES = {2: ((0.31, 0.44), 4000, False), 3: ((0.28, 0.34), 2000, True),
         4: ((0.42, 0.50), 400, True), 5: ((0.55, 0.62), 40, False)}
MAX_NODES = 200_000
MAX_ROWS = 2_000_000


def unique(grid: np.ndarray, boxsize: int) -> bool:
    found = solver.solve_grids(grid[None, :], rules="singles", max_nodes=MAX_NODES)
    return found.n_solutions[0] == 1 and not found.budget_exceeded[0]


def puzzles(boxsize: int, count: int) -> list[np.ndarray]:
    """``count`` unique puzzles of ``boxsize``, that need search where SIZES says so."""
    rng = np.random.default_rng(SEED)
    (low, high), _, need_search = SIZES[boxsize]
    cells = boxsize**4
    found: list[np.ndarray] = []
    draw = 0
    while len(found) < count:
        _, solutions = generate.candidates(SEED, draw, 1, boxsize, minimal=False)
        draw += 1
        grid = solutions[0].copy()
        target = int(rng.integers(round(low * cells), round(high * cells) + 1))
        for cell in rng.permutation(cells):
            if np.count_nonzero(grid) <= target:
                break
            value, grid[cell] = grid[cell], 0
            if not unique(grid, boxsize):
                grid[cell] = value
        if np.count_nonzero(grid) <= target + max(1, cells // 20):
            if not (need_search and solver.solve_grids(grid[None, :]).prune_solvable[0]):
                found.append(grid)
    return found


def pipeline_seconds(path: Path, workers: int) -> float:
    """One whole ``solve-dataset`` process on ``path``: wall seconds."""
    started = time.perf_counter()
    subprocess.run([str(COMMAND), "solve-dataset", str(path), "--output", str(path) + ".out",
                    "--overwrite", "--quiet", "--boxsize", "auto", "--workers", str(workers),
                    "--max-nodes", str(MAX_NODES)],
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def baseline_seconds(grids: np.ndarray, boxsize: int) -> tuple[float, np.ndarray]:
    """The yardstick over every row, one core: seconds and (solutions, nodes, depth) rows."""
    units = tables(boxsize).units.astype(np.int64)
    out = np.zeros((len(grids), 3), np.int64)
    baseline_bitmask.solve_all(grids[:2], units, boxsize * boxsize, 2, MAX_NODES, out[:2])
    started = time.perf_counter()
    baseline_bitmask.solve_all(grids, units, boxsize * boxsize, 2, MAX_NODES, out)
    return time.perf_counter() - started, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2,3,4,5", help="box sizes to measure")
    parser.add_argument("--count", type=int, default=0, help="puzzles per size (0: defaults)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=40.0,
                        help="the yardstick's seconds of work in the file the pipeline solves")
    args = parser.parse_args()
    print(f"machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the start")
    OUT.mkdir(exist_ok=True)
    for boxsize in map(int, args.sizes.split(",")):
        n = boxsize * boxsize
        count = args.count or SIZES[boxsize][1]
        made = puzzles(boxsize, count)
        grids = np.array(made, np.uint8)
        ours = solver.solve_grids(grids, max_nodes=MAX_NODES)
        base = [baseline_seconds(grids, boxsize) for _ in range(args.repeats)]
        same = (np.array_equal(base[0][1][:, 1], ours.search_nodes)
                and np.array_equal(base[0][1][:, 0], ours.n_solutions))
        base_rate = count / statistics.median(seconds for seconds, _ in base)
        rows = int(min(max(count, base_rate * args.seconds), MAX_ROWS))
        path = OUT / f"boxsize_{boxsize}_search.txt"
        lines = [symbols(boxsize).text(g) + "\n" for g in grids]
        path.write_text("".join(lines[i % count] for i in range(rows)))
        pipeline_seconds(path, args.workers)  # warm: the compiled code loaded once
        walls = [pipeline_seconds(path, args.workers) for _ in range(args.repeats)]
        rate = rows / statistics.median(walls)
        givens = np.count_nonzero(grids, axis=1) / grids.shape[1]
        kind = "that need search" if SIZES[boxsize][2] else "(prune-solvable ones too)"
        print(f"\n{n} x {n}: {count} unique puzzles {kind}, {givens.min():.0%}-"
              f"{givens.max():.0%} of cells given, median {np.median(ours.search_nodes):,.0f} "
              f"nodes (max {ours.search_nodes.max():,})")
        print(f"   plain numba SPEC 2, one core        {base_rate:12,.0f} puzzles/s   "
              f"(same nodes as ours: {same})")
        print(f"   pipeline, {args.workers} workers, end to end  {rate:12,.0f} puzzles/s   "
              f"({rows:,} rows, the puzzles repeated; median {statistics.median(walls):.1f} s)")
        print(f"   ratio                               {rate / base_rate:12.2f}"
              + ("   (target >= 4)" if boxsize == 4 else ""))


if __name__ == "__main__":
    main()
