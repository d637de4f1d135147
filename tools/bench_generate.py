"""Generation benchmark (issue 21): minimal unique puzzles per second, against QQWing.

Run with ``python tools/bench_generate.py`` (``make bench`` runs it too). Measured in one
sitting, each figure the median of ``--repeats`` runs after a warm-up (which also loads the
compiled code from numba's cache):

- QQWing (``qqwing --generate N --one-line``: minimal puzzles with one solution), when it is
  installed (``apt-get install qqwing``); the bench says so plainly when it is not;
- ``solver.generate.candidates`` alone, in this process (one core): the drawing;
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
from solver.generate import candidates  # noqa: E402
from solver.vocabulary import GRADES  # noqa: E402

QQWING_COUNT = 1500


def qqwing_rate(count: int, repeats: int) -> float | None:
    """Puzzles per second of ``qqwing --generate COUNT --one-line`` (median), None without it."""
    binary = shutil.which("qqwing")
    if binary is None:
        return None
    rates = []
    for _ in range(repeats):
        started = time.perf_counter()
        done = subprocess.run([binary, "--generate", str(count), "--one-line"],
                              capture_output=True, text=True, check=True)
        seconds = time.perf_counter() - started
        assert len(done.stdout.split()) == count
        rates.append(count / seconds)
    return statistics.median(rates)


def candidates_rate(count: int, repeats: int, boxsize: int = 3) -> float:
    """Draws per CPU second of ``solver.generate.candidates`` in this process (median)."""
    candidates(1, 0, 2, boxsize)
    rates = []
    for seed in range(repeats):
        started = time.process_time()
        candidates(seed, 0, count, boxsize)
        rates.append(count / (time.process_time() - started))
    return statistics.median(rates)


def run_rate(count: int, repeats: int, **settings) -> tuple[float, dict]:
    """Puzzles kept per second of a generated run on one worker (median over seeds), and the
    last run's ``generated`` summary (draws, acceptance)."""
    rates, generated = [], {}
    with tempfile.TemporaryDirectory(prefix="bench-generate-") as directory:
        for seed in range(repeats + 1):  # the first run warms up
            out = Path(directory) / f"run-{seed}"
            started = time.perf_counter()
            summary = generate_dataset(out, *load_generation(
                count=count, seed=seed, workers=1, quiet=True, **settings), progress=False)
            if seed:
                rates.append(count / (time.perf_counter() - started - summary.compile_seconds))
            generated = summary.generated
    return statistics.median(rates), generated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=3000, help="9 x 9 puzzles a run keeps")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {machine()}")
    print(f"settings: minimal puzzles, symmetry none, rules bird unless said, --workers 1; "
          f"medians of {args.repeats} runs\n")

    qqwing = qqwing_rate(QQWING_COUNT, args.repeats)
    if qqwing is None:
        print("QQWing is not installed here (apt-get install qqwing): no comparison")
    else:
        print(f"QQWing (qqwing --generate {QQWING_COUNT} --one-line)     {qqwing:10,.0f} puzzles/s")
    drawn = candidates_rate(args.count, args.repeats)
    print(f"solver.generate.candidates, 9 x 9, one core        {drawn:10,.0f} puzzles/s")
    whole, generated = run_rate(args.count, args.repeats)
    ratio = f"   {whole / qqwing:.1f} x QQWing" if qqwing else ""
    print(f"generate --workers 1, 9 x 9, any grade            {whole:10,.0f} puzzles/s{ratio}")
    distinct, _ = run_rate(args.count, args.repeats, distinct=True)
    print(f"generate --workers 1, 9 x 9, --distinct           {distinct:10,.0f} puzzles/s")

    print(f"\nacceptance rate of each grade (shares of {args.count:,} candidates, seed "
          f"{args.repeats}), and puzzles/s asking for it alone:")
    shares = _grade_shares(args.count, args.repeats)
    for grade in GRADES:
        share = shares.get(grade, 0.0)
        if share == 0.0:
            print(f"  {grade:<14}{share:8.2%}   (none drawn: no rate)")
            continue
        wanted = max(20, min(500, int(args.count * share / 4)))
        rate, found = run_rate(wanted, args.repeats, grade=grade)
        print(f"  {grade:<14}{share:8.2%}   {rate:10,.0f} puzzles/s   (runs of {wanted:,}; "
              f"acceptance {found['acceptance']:.2%})")

    print()
    small, _ = run_rate(args.count, args.repeats, boxsize=2)
    print(f"generate --workers 1, 4 x 4                       {small:10,.0f} puzzles/s")
    large, _ = run_rate(4, max(1, args.repeats - 1), boxsize=4, rules="singles")
    print(f"generate --workers 1, 16 x 16, --rules singles    {large:10,.2f} puzzles/s")


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
