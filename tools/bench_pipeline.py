"""Benchmark the whole pipeline (issue 3); prints figures, never fails on a time.

1. Throughput: ``sudoku-pipeline solve-dataset`` on 1,000,000 puzzles (built from
   ``../shared/datasets/kaggle_1m_sample.csv`` by ``tools/make_symmetric_dataset.py``) with
   2 workers, timed from before the process starts to after it exits (summary written);
   peak resident memory of the largest process (``getrusage(RUSAGE_CHILDREN).ru_maxrss``,
   the maximum over the command and its workers).
2. Overhead: that wall time divided by the solving time per worker, measured two ways:
   the run's own ``solve_seconds`` (sum of ``solve_us``) / workers, and one in-process
   ``solver.solve_ascii`` call on all puzzles (no I/O at all) / workers.
3. Scaling: puzzles/s with 2 workers vs 1 on the first 10,000 puzzles of the hardest set,
   ``forum_hardest_1905_sample.txt``.

    .venv/bin/python tools/bench_pipeline.py [--rows 1000000] [--hard 10000] [--workers 2]

Figures go to stdout and to ``bench-output/bench_pipeline.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ROOT.parent / "shared" / "datasets"
OUT = ROOT / "bench-output"
COMMAND = Path(sys.executable).parent / "sudoku-pipeline"


def run_pipeline(inputs: list[Path | str], output: Path | str, *options: str) -> tuple[float, dict]:
    """Run the command as a user would; its wall time (process start to exit) and summary.
    Inputs and output may be URLs (``s3://...``)."""
    from pipeline.summary import read_summary

    started = time.perf_counter()
    subprocess.run(
        [
            str(COMMAND),
            "solve-dataset",
            *map(str, inputs),
            "--output",
            str(output),
            "--overwrite",
            "--quiet",
            *options,
        ],
        check=True,
    )
    wall = time.perf_counter() - started
    return wall, read_summary(str(output))


def pure_solve_seconds(path: Path) -> float:
    """One in-process solve_ascii call over every puzzle of a Parquet file: no I/O, no pool."""
    import pyarrow.parquet as pq

    import solver
    from pipeline.arrow import ascii_grid, text_array

    grid, fits = ascii_grid(text_array(pq.read_table(path, columns=["quizzes"])["quizzes"]))
    assert fits.all()
    solver.solve_ascii(grid[:10])  # compiled code loaded before timing
    started = time.perf_counter()
    solver.solve_ascii(grid)
    return time.perf_counter() - started


def kaggle_dataset(rows: int) -> Path | None:
    """``rows`` Kaggle puzzles as Parquet (random symmetries of the shared 1M sample, built
    once into bench-output/); None when ../shared/datasets is absent."""
    kaggle = DATASETS / "kaggle_1m_sample.csv"
    if not kaggle.is_file():
        return None
    OUT.mkdir(exist_ok=True)
    data = OUT / f"kaggle_symmetric_{rows}.parquet"
    if not data.is_file():
        print(f"building {data.name} ...", flush=True)
        subprocess.run(
            [
                sys.executable,
                str(ROOT / "tools" / "make_symmetric_dataset.py"),
                "--rows",
                str(rows),
                "--out",
                str(data),
            ],
            check=True,
        )
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--hard", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    hardest = DATASETS / "forum_hardest_1905_sample.txt"
    data = kaggle_dataset(args.rows)
    if data is None:
        print(f"bench_pipeline: {DATASETS} is absent (no kaggle_1m_sample.csv); nothing measured.")
        return
    load = os.getloadavg()[0]
    if load > 0.5:
        print(
            f"note: load average {load:.1f} before starting: other processes hold CPU time, "
            "so the figures below are low"
        )
    figures: dict = {
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_at_start": round(load, 2),
            "python": platform.python_version(),
            "platform": platform.platform(),
        }
    }

    print(f"\n1. {args.rows:,} Kaggle puzzles (symmetries), {args.workers} workers", flush=True)
    wall, summary = run_pipeline([data], OUT / "pipeline-run", "--workers", str(args.workers))
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rate = summary["rows"]["out"] / wall
    print(f"   end to end   {wall:7.2f} s   {rate:11,.0f} puzzles/s   (target >= 250,000)")
    print(f"   inside run   {summary['wall_seconds']:7.2f} s   (from reading to summary written)")
    print(f"   peak RSS     {peak_mib:7.0f} MiB of the largest process   (target < 1024)")
    print(f"   statuses     {summary['status']}")

    run_solve = summary["solve_seconds"] / args.workers
    pure = pure_solve_seconds(data) / args.workers
    print("\n2. Overhead: end-to-end wall / solving time per worker   (target <= 1.3)")
    print(f"   run's solve_us / workers        {run_solve:6.2f} s  ->  {wall / run_solve:5.2f} x")
    print(f"   in-process solve_ascii / workers {pure:5.2f} s  ->  {wall / pure:5.2f} x")
    figures["throughput"] = {
        "rows": summary["rows"]["out"],
        "workers": args.workers,
        "wall_seconds": round(wall, 3),
        "puzzles_per_second": round(rate),
        "peak_rss_mib": round(peak_mib),
        "solve_seconds_per_worker_in_run": round(run_solve, 3),
        "pure_solve_seconds_per_worker": round(pure, 3),
        "overhead_vs_run_solve": round(wall / run_solve, 3),
        "overhead_vs_pure_solve": round(wall / pure, 3),
    }

    if hardest.is_file():
        subset = OUT / f"forum_hardest_first_{args.hard}.txt"
        lines = hardest.read_text().splitlines()[: args.hard]
        subset.write_text("\n".join(lines) + "\n")
        print(f"\n3. Scaling on the first {len(lines):,} of {hardest.name}", flush=True)
        batch = str(max(1, len(lines) // 40))
        rates = {}
        for workers in (1, 2):
            wall, _ = run_pipeline(
                [subset],
                OUT / f"scaling-{workers}",
                "--workers",
                str(workers),
                "--batch-size",
                batch,
            )
            rates[workers] = len(lines) / wall
            print(
                f"   {workers} worker{'s' if workers > 1 else ' '}  {wall:7.2f} s"
                f"   {rates[workers]:9,.0f} puzzles/s"
            )
        print(f"   speed-up     {rates[2] / rates[1]:.2f}   (ideal 2.0)")
        figures["scaling"] = {
            "puzzles": len(lines),
            "puzzles_per_second": {str(k): round(v, 1) for k, v in rates.items()},
            "speedup": round(rates[2] / rates[1], 3),
        }
    else:
        print(f"\n3. Scaling: {hardest} is absent; not measured.")
    (OUT / "bench_pipeline.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nfigures written to {OUT / 'bench_pipeline.json'}")


if __name__ == "__main__":
    main()
