"""Benchmark the Dask engine against the local pool (issue 5); prints figures, never fails on a time.

The same data, the same settings and the same number of workers for both implementations:
``sudoku-pipeline solve-dataset`` run as a user would, timed from before the process starts
to after it exits (summary written), with ``--engine local`` (the process pool) and with
``--engine dask`` (a LocalCluster of as many single-threaded worker processes, started and
closed by the run), ``--repeat`` times each, alternating; the fastest run of each counts.
Dask overhead = (Dask wall time / local wall time - 1). Also printed: the CPU seconds of each
command and its processes (``getrusage(RUSAGE_CHILDREN)``), which other load on the machine
does not inflate, and the load average after each run.

The data, two input files: ``../shared/datasets/forum_hardest_1905_sample.txt`` (48,766 of
the hardest known puzzles, about 1,000 puzzles/s per core under Bird's search) and the first
``--seventeen`` (3,000) of ``sudoku17_all_49158.txt`` (17-clue puzzles, about 140/s per core,
with a long tail), so that 2 workers spend over 30 s solving. ``--rows N`` takes only the
first N hard puzzles (a quick try). The output rows of the two runs are compared (every
column but solve_us) as a check.

    .venv/bin/python tools/bench_dask.py [--rows N] [--seventeen 3000] [--workers 2]
                                         [--batch-size 1000] [--repeat 1]

Figures go to stdout and to ``bench-output/bench_dask.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
from pathlib import Path

from bench_pipeline import run_pipeline  # the command as a user runs it, timed (tools/ is on sys.path)

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT.parent / "shared" / "datasets"
HARDEST = DATASETS / "forum_hardest_1905_sample.txt"
SEVENTEEN = DATASETS / "sudoku17_all_49158.txt"
OUT = ROOT / "bench-output"
ENGINES = ("local", "dask")


def measure(inputs: list[Path], engine: str, args) -> dict:
    """One run of ``engine``, printed as a line of the table; its figures."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, summary = run_pipeline(
        inputs, OUT / f"dask-bench-{engine}", "--engine", engine,
        "--workers", str(args.workers), "--batch-size", str(args.batch_size),
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU time of the command and all its processes (workers included), whoever else runs.
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    rows, in_run = summary["rows"]["out"], summary["wall_seconds"]
    per_worker = summary["solve_seconds"] / args.workers
    load = os.getloadavg()[0]
    line = f"{engine:8s}{wall:9.2f}{in_run:10.2f}{rows / wall:11,.0f}{per_worker:16.2f}"
    print(f"{line}{cpu:8.1f}{load:7.2f}", flush=True)
    return {
        "rows": rows,
        "wall_seconds": round(wall, 3),
        "wall_seconds_in_run": in_run,
        "puzzles_per_second": round(rows / wall, 1),
        "solve_seconds_per_worker": round(per_worker, 3),
        "cpu_seconds": round(cpu, 2),
        "load_average_after": round(load, 2),
    }


def first_lines(path: Path, count: int) -> Path:
    """The first ``count`` lines of ``path``, as a file in bench-output."""
    excerpt = OUT / f"{path.stem}_first_{count}.txt"
    excerpt.write_text("\n".join(path.read_text().splitlines()[:count]) + "\n")
    return excerpt


def count_lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def same_rows(first: Path, second: Path) -> bool:
    """Whether two output directories hold the same rows, every column but solve_us."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def rows(directory: Path) -> pa.Table:
        parts = sorted(directory.glob("part-*.parquet"))
        table = pa.concat_tables(pq.read_table(part).replace_schema_metadata(None) for part in parts)
        return table.drop_columns(["solve_us"])

    return rows(first).equals(rows(second))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=0, help="first N hard puzzles only (0: all)")
    parser.add_argument("--seventeen", type=int, default=3000, help="first N 17-clue puzzles")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1, help="runs per engine, alternating")
    args = parser.parse_args()
    if not (HARDEST.is_file() and SEVENTEEN.is_file()):
        print(f"bench_dask: {DATASETS} is absent (no {HARDEST.name}); nothing measured.")
        return
    try:
        import distributed  # noqa: F401
    except ImportError:
        print('bench_dask: Dask is not installed (pip install ".[dask]"); nothing measured.')
        return
    OUT.mkdir(exist_ok=True)
    inputs = [HARDEST]
    if args.rows:
        inputs = [first_lines(HARDEST, args.rows)]
    if args.seventeen:
        inputs.append(first_lines(SEVENTEEN, args.seventeen))
    dataset = " + ".join(f"{path.name} ({count_lines(path):,})" for path in inputs)
    load = os.getloadavg()[0]
    if load > 0.5:
        print(
            f"note: load average {load:.1f} before starting: other processes hold CPU time, "
            "so the figures below are low and the overhead less certain"
        )
    print(
        f"dataset  {dataset}\nworkers  {args.workers}   batch size {args.batch_size:,}   "
        f"runs per engine {args.repeat} (alternating; the fastest counts)\n"
        f"{'engine':8s}{'wall s':>9s}{'in run s':>10s}{'puzzles/s':>11s}{'solve s/worker':>16s}"
        f"{'CPU s':>8s}{'load':>7s}",
        flush=True,
    )
    results: dict[str, dict] = {}
    for _ in range(args.repeat):
        for engine in ENGINES:
            figures = measure(inputs, engine, args)
            if engine not in results or figures["wall_seconds"] < results[engine]["wall_seconds"]:
                results[engine] = figures
    overhead = results["dask"]["wall_seconds"] / results["local"]["wall_seconds"] - 1
    identical = same_rows(OUT / "dask-bench-local", OUT / "dask-bench-dask")
    print(f"Dask overhead  {100 * overhead:+.1f} % of the local wall time   (target < 15 %)")
    print(f"rows identical (all columns but solve_us): {identical}")
    if results["local"]["solve_seconds_per_worker"] < 30:
        print("note: under 30 s of solving per worker; fixed costs weigh more than on a long run")
    figures = {
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_at_start": round(load, 2),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "dataset": dataset,
        "workers": args.workers,
        "batch_size": args.batch_size,
        "runs_per_engine": args.repeat,
        "engines": results,
        "dask_overhead_percent": round(100 * overhead, 2),
        "rows_identical": identical,
    }
    (OUT / "bench_dask.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"figures written to {OUT / 'bench_dask.json'}")


if __name__ == "__main__":
    main()
