"""Generation benchmark (issue 21): minimal unique puzzles per second, against QQWing.

Run with ``python tools/bench_generate.py`` (``make bench`` runs it too). Measured in one
sitting, each figure the median of ``--repeats`` runs after a warm-up (which also loads the
compiled code from numba's cache):

- QQWing (``qqwing --generate N --one-line``: minimal puzzles with one solution), when it is
  installed (``apt-get install qqwing``); the bench says so plainly when it is not;
- ``solver.compiled.generate.candidates`` alone, in this process (one core): the drawing;
- ``generate_dataset`` with one worker (``--workers 1``, the local engine): the whole run,
  drawing, solving, grading, writing and selecting parts, its puzzles per second as its
  summary counts them (compiling not counted; the selection runs in this process beside the
  worker);
- the same run per grade asked for, with ``distinct``, for 4 x 4 and 16 x 16 (rules singles);
- the acceptance rate of each grade: the share of the candidates of a run of any grade that
  have it (what ``--grade`` keeps of the draws).

Never fails on a time: it prints figures. Other processes share the machine: compare ratios
measured in one sitting.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_solver import machine  # noqa: E402  (tools/ is on sys.path when run as a script)

from pipeline.generate import generate_dataset  # noqa: E402
from pipeline.settings import load_generation  # noqa: E402
from solver.compiled.generate import candidates  # noqa: E402
from solver.vocabulary import GRADES  # noqa: E402

QQWING_COUNT = 1500


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and its children that have ended (the workers
    of a run, QQWing): what other processes on a busy machine do not inflate."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def qqwing_rate(count: int, repeats: int) -> tuple[float, float] | None:
    """Puzzles per second of ``qqwing --generate COUNT --one-line``, by the wall clock and per
    CPU second (medians), None without it."""
    binary = shutil.which("qqwing")
    if binary is None:
        return None
    rates, cpu_rates = [], []
    for _ in range(repeats):
        started, started_cpu = time.perf_counter(), cpu_seconds()
        done = subprocess.run([binary, "--generate", str(count), "--one-line"],
                              capture_output=True, text=True, check=True)
        rates.append(count / (time.perf_counter() - started))
        cpu_rates.append(count / (cpu_seconds() - started_cpu))
        assert len(done.stdout.split()) == count
    return statistics.median(rates), statistics.median(cpu_rates)


def candidates_rate(count: int, repeats: int, boxsize: int = 3) -> float:
    """Draws per CPU second of ``solver.compiled.generate.candidates`` in this process (median)."""
    candidates(1, 0, 2, boxsize)
    rates = []
    for seed in range(repeats):
        started = time.process_time()
        candidates(seed, 0, count, boxsize)
        rates.append(count / (time.process_time() - started))
    return statistics.median(rates)


def run_rate(count: int, repeats: int, **settings) -> tuple[float, dict, float]:
    """Puzzles kept per second of a generated run on one worker (median over seeds), the
    last run's ``generated`` summary (draws, acceptance), and puzzles per CPU second of the
    whole run (its worker and this process; median)."""
    rates, cpu_rates, generated = [], [], {}
    with tempfile.TemporaryDirectory(prefix="bench-generate-") as directory:
        for seed in range(repeats + 1):  # the first run warms up
            out = Path(directory) / f"run-{seed}"
            started, started_cpu = time.perf_counter(), cpu_seconds()
            summary = generate_dataset(out, *load_generation(
                count=count, seed=seed, workers=1, quiet=True, **settings), progress=False)
            if seed:
                compiling = summary.compile_seconds
                rates.append(count / (time.perf_counter() - started - compiling))
                cpu_rates.append(count / (cpu_seconds() - started_cpu - compiling))
            generated = summary.generated
    return statistics.median(rates), generated, statistics.median(cpu_rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=3000, help="9 x 9 puzzles a run keeps")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"settings: minimal puzzles, symmetry none, rules bird unless said, --workers 1; "
          f"medians of {args.repeats} runs\n")

    print(f"{'':50}{'wall':>10}{'per CPU s':>12}")
    qqwing = qqwing_rate(QQWING_COUNT, args.repeats)
    if qqwing is None:
        print("QQWing is not installed here (apt-get install qqwing): no comparison")
    else:
        print(f"{f'QQWing (qqwing --generate {QQWING_COUNT} --one-line)':50}{qqwing[0]:10,.0f}"
              f"{qqwing[1]:12,.0f}  puzzles/s")
    drawn = candidates_rate(args.count, args.repeats)
    print(f"{'solver.compiled.generate.candidates, 9 x 9 (drawing only)':50}{'':10}{drawn:12,.0f}")
    whole, generated, whole_cpu = run_rate(args.count, args.repeats)
    ratio = (f"  {whole / qqwing[0]:.1f} x QQWing by the wall, {whole_cpu / qqwing[1]:.1f} x "
             "per CPU second") if qqwing else ""
    print(f"{'generate --workers 1, 9 x 9, any grade':50}{whole:10,.0f}{whole_cpu:12,.0f}{ratio}")
    distinct, _, distinct_cpu = run_rate(args.count, args.repeats, distinct=True)
    print(f"{'generate --workers 1, 9 x 9, --distinct':50}{distinct:10,.0f}{distinct_cpu:12,.0f}")

    print(f"\nacceptance rate of each grade (shares of {args.count:,} candidates, seed "
          f"{args.repeats}), and puzzles/s asking for it alone:")
    shares = _grade_shares(args.count, args.repeats)
    for grade in GRADES:
        share = shares.get(grade, 0.0)
        if share == 0.0:
            print(f"  {grade:<14}{share:8.2%}   (none drawn: no rate)")
            continue
        wanted = max(20, min(500, int(args.count * share / 4)))
        rate, found, _ = run_rate(wanted, args.repeats, grade=grade)
        print(f"  {grade:<14}{share:8.2%}   {rate:10,.0f} puzzles/s   (runs of {wanted:,}; "
              f"acceptance {found['acceptance']:.2%})")

    print()
    small, _, small_cpu = run_rate(args.count, args.repeats, boxsize=2)
    print(f"{'generate --workers 1, 4 x 4':50}{small:10,.0f}{small_cpu:12,.0f}")
    large, _, large_cpu = run_rate(10, max(1, args.repeats - 1), boxsize=4, rules="singles")
    print(f"{'generate --workers 1, 16 x 16, --rules singles':50}{large:10,.2f}{large_cpu:12,.2f}")


def _grade_shares(count: int, seed: int) -> dict[str, float]:
    """The share of each grade among the candidates of one run of any grade (which keeps every
    candidate)."""
    import polars as pl

    with tempfile.TemporaryDirectory(prefix="bench-generate-") as directory:
        generate_dataset(directory, *load_generation(count=count, seed=seed, workers=1,
                                                     quiet=True), progress=False)
        grades = pl.read_parquet(f"{directory}/part-*.parquet")["grade"]
    return {grade: share for grade, share in zip(
        *grades.value_counts(normalize=True).to_dict(as_series=False).values(), strict=True)}


if __name__ == "__main__":
    main()
