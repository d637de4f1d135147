"""Benchmark inputs and outputs at s3:// URLs against local files (issue 5); prints figures,
never fails on a time.

``sudoku-pipeline solve-dataset`` on the same 1,000,000 Kaggle puzzles (the Parquet file that
``bench_pipeline.py`` builds from ``../shared/datasets/kaggle_1m_sample.csv``) with 2 workers,
timed from before the process starts to after it exits, three ways: local file to local
directory, local file to ``s3://``, and ``s3://`` to ``s3://``. Kaggle puzzles take about 2 us
each to solve, so this is the case where storage weighs most. ``--repeat`` runs of each,
alternating; medians.

The S3 server is moto (``tools/local_s3.py``), a Python server on this machine: no network
latency, but it shares the machine's cores with the run, so the figures say what the storage
code costs here, not what a real object store would.

    .venv/bin/python tools/bench_storage.py [--rows 1000000] [--workers 2] [--repeat 3]

Figures go to stdout and to ``bench-output/bench_storage.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics

from bench_pipeline import OUT, kaggle_dataset, run_pipeline  # tools/ is on sys.path
from local_s3 import local_s3

BUCKET = "bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = kaggle_dataset(args.rows)
    if data is None:
        print("bench_storage: ../shared/datasets is absent (no kaggle_1m_sample.csv); nothing measured.")
        return
    import s3fs

    with local_s3() as server:
        s3 = s3fs.S3FileSystem(use_listings_cache=False)
        s3.mkdir(BUCKET)
        s3.put(str(data), f"{BUCKET}/{data.name}")
        ways = {
            "local -> local": (data, OUT / "storage-local"),
            "local -> s3": (data, f"s3://{BUCKET}/out-local-input"),
            "s3 -> s3": (f"s3://{BUCKET}/{data.name}", f"s3://{BUCKET}/out-s3-input"),
        }
        print(f"{args.rows:,} Kaggle puzzles, {args.workers} workers, S3 = moto at {server.endpoint}")
        walls: dict[str, list[float]] = {way: [] for way in ways}
        statuses = {}
        for _ in range(args.repeat):
            for way, (source, output) in ways.items():
                wall, summary = run_pipeline([source], output, "--workers", str(args.workers))
                walls[way].append(wall)
                statuses[way] = summary["status"]
                print(f"   {way:16s}{wall:7.2f} s", flush=True)
    assert all(found == statuses["local -> local"] for found in statuses.values()), statuses

    base = statistics.median(walls["local -> local"])
    print(f"\nmedians of {args.repeat}:")
    figures = {
        "machine": {
            "cpus": os.cpu_count(),
            "load_average_after": round(os.getloadavg()[0], 2),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "rows": args.rows,
        "workers": args.workers,
        "ways": {},
    }
    for way, times in walls.items():
        median = statistics.median(times)
        print(
            f"   {way:16s}{median:7.2f} s {args.rows / median:11,.0f} puzzles/s"
            f"   {median / base:5.2f} x local"
        )
        figures["ways"][way] = {
            "median_wall_seconds": round(median, 3),
            "puzzles_per_second": round(args.rows / median),
            "vs_local": round(median / base, 3),
        }
    (OUT / "bench_storage.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nfigures written to {OUT / 'bench_storage.json'}")


if __name__ == "__main__":
    main()
