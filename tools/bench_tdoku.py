"""Our solver beside tdoku and zerodoku (issue 32, item 4): puzzles/s per core, set by set.

For each set of issue 32's table, in one process (one core): ``solver.solve_grids`` (the search
alone) and ``solver.solve_ascii`` (search, then the default grade), under the rules ``bird`` and
``singles``, each the median of ``--repeats`` timed runs after a warm-up; then, when tdoku's
``run_benchmark`` is found (``--tdoku PATH``, or ``TDOKU_RUN_BENCHMARK``; built from tdoku's
source with ``./BUILD.sh run_benchmark -DAVX2=ON -DZERODOKU=ON``, a checking tool, never a
dependency), tdoku's and zerodoku's rates on the same puzzles, with ours / zerodoku for the
search with hidden singles (issue 32: within 10 % of zerodoku or better). Without it, says so
and prints ours. Reads the sets from ``../shared/datasets`` (``--datasets DIR``); never fails on a time.

    .venv/bin/python tools/bench_tdoku.py [--repeats 3] [--tdoku build/run_benchmark]
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_solver import (  # noqa: E402  (tools/ is on sys.path when run as a script)
    DEFAULT_DATASETS,
    datasets_missing,
    grids_of,
    load,
    machine,
    sample,
)

import solver  # noqa: E402  (bench_solver puts the project on sys.path)

# (file, puzzles taken: None = all), as issue 32's table.
SETS = [
    ("kaggle_1m_sample.csv", None),
    ("radcliffe_3m_sample.csv", None),
    ("serg_benchmark.txt", None),
    ("top1465.txt", None),
    ("forum_hardest_1106.txt", None),
    ("forum_hardest_1905_sample.txt", 2000),
    ("sudoku17_all_49158.txt", 2000),
]
RULES = ("bird", "singles")


def median_rate(work, count: int, repeats: int) -> float:
    """Puzzles/s of ``work()`` on ``count`` puzzles: the median of ``repeats`` after a warm-up."""
    work()
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        seconds.append(time.perf_counter() - started)
    return count / statistics.median(seconds)


def ours(puzzles: list[str], repeats: int) -> dict[str, float]:
    """Our four rates on ``puzzles``: search and default, under each rule set."""
    grids = grids_of(puzzles)
    rows = np.frombuffer("".join(puzzles).encode(), np.uint8).reshape(len(puzzles), 81)
    rates = {}
    for rules in RULES:
        rates[f"{rules} search"] = median_rate(
            partial(solver.solve_grids, grids, rules=rules), len(puzzles), repeats)
        rates[f"{rules} default"] = median_rate(
            partial(solver.solve_ascii, rows, rules=rules), len(puzzles), repeats)
    return rates


def theirs(run_benchmark: str, puzzles: list[str]) -> dict[str, float]:
    """tdoku's and zerodoku's puzzles/s on ``puzzles`` (their own timing: a warm-up, then
    about 5 s each, in their listed order)."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "puzzles.txt"
        path.write_text("\n".join(puzzles) + "\n")
        done = subprocess.run([run_benchmark, "-s", "tdoku,zerodoku", "-c", "1", "-r", "0",
                               "-t", "5", "-w", "1", "-n", str(len(puzzles)), str(path)],
                              capture_output=True, text=True, check=True)
    rates = {}
    for row in csv.reader(done.stdout.splitlines()):
        if len(row) >= 6 and row[4] in ("tdoku", "zerodoku"):
            rates[row[4]] = float(row[5])
    return rates


def find_run_benchmark(given: str | None) -> str | None:
    found = given or os.environ.get("TDOKU_RUN_BENCHMARK") or shutil.which("run_benchmark")
    return found if found and Path(found).is_file() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tdoku", help="tdoku's run_benchmark (built with -DZERODOKU=ON)")
    args = parser.parse_args()
    print(f"# Beside tdoku and zerodoku, puzzles/s per core\n{machine()}")
    if datasets_missing(args.datasets):
        return 0
    run_benchmark = find_run_benchmark(args.tdoku)
    if run_benchmark is None:
        print("tdoku's run_benchmark was not found (--tdoku PATH or TDOKU_RUN_BENCHMARK): "
              "our figures only.")
    columns = ["tdoku", "zerodoku"] * bool(run_benchmark) + [
        f"{rules} {kind}" for rules in RULES for kind in ("search", "default")]
    print("| set | puzzles | " + " | ".join(columns)
          + " | singles search / zerodoku |" * bool(run_benchmark))
    for name, size in SETS:
        puzzles = [p.replace("0", ".") for p in sample(load(args.datasets / name), size)]
        rates = ours(puzzles, args.repeats)
        if run_benchmark:
            rates |= theirs(run_benchmark, puzzles)
        cells = [f"{rates[column]:,.0f}" if column in rates else "-" for column in columns]
        ratio = ""
        if run_benchmark and rates.get("zerodoku"):
            ratio = f" {rates['singles search'] / rates['zerodoku']:.2f} |"
        print(f"| {name} | {len(puzzles):,} | " + " | ".join(cells) + " |" + ratio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
