"""9 x 9 search benchmark: the 9 x 9 specialisation (``solver.compiled.search_9x9``) against the
any-size search (``solver.compiled.search``) on the same 9 x 9 puzzles, as a ratio.

Run with ``python tools/bench_search_9x9.py`` (``make bench`` runs it too). Reads the public sets
from ``../shared/datasets`` (``--datasets DIR``). One process, one core; the two searches are
timed in turns (A, B, A, B, ...) after a warm-up, so a busy machine slows both alike, and each
figure is the median of ``--repeats`` turns. The columns are checked equal first (every column
but the time). Never fails on a time: it prints figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.compiled import search, search_9x9  # noqa: E402
from solver.options import SolveOptions  # noqa: E402
from tools.bench_solver import DEFAULT_DATASETS, datasets_missing, grids_of, load  # noqa: E402

# (file, puzzles: the first so many, the file repeated if need be)
SETS = [("kaggle_1m_sample.csv", 20_000), ("top1465.txt", 500), ("forum_hardest_1106.txt", 200)]


def turns(grids: np.ndarray, options: SolveOptions, repeats: int) -> tuple[float, float]:
    """Median seconds of the specialisation and of the any-size search, timed in turns."""
    special, general = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        search_9x9.solve_grids(grids, options)
        special.append(time.perf_counter() - start)
        start = time.perf_counter()
        search.solve_grids(grids, options, 3, specialised=False)
        general.append(time.perf_counter() - start)
    return statistics.median(special), statistics.median(general)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print("# 9 x 9 search: specialisation vs any-size kernels")
    if datasets_missing(args.datasets):
        return 0
    print(f"median of {args.repeats} turns; ratio = any-size time / 9 x 9 time (> 1: the "
          "specialisation is faster)")
    for rules in ("bird", "singles"):
        options = SolveOptions(rules=rules)
        for name, count in SETS:
            grids = grids_of(load(args.datasets / name))
            grids = np.tile(grids, (-(-count // len(grids)), 1))[:count]
            a = search_9x9.solve_grids(grids, options)
            b = search.solve_grids(grids, options, 3, specialised=False)
            same = all(np.array_equal(x, y) for x, y in zip(a[:-1], b[:-1], strict=True))
            special, general = turns(grids, options, args.repeats)
            print(f"{name:24s} {rules:7s} {len(grids):7d} puzzles: 9x9 {special * 1000:9.1f} ms, "
                  f"any-size {general * 1000:9.1f} ms, ratio {general / special:5.3f}, "
                  f"identical columns: {same}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
