"""Benchmark of the Sudoku Explainer rating (issue 31): puzzles/s per core of the compiled rating
(``solver.compiled.se``) and of the reference (``solver.reference.se``), and where the compiled
rating's time goes: its compiled rules, or the chain rules it hands over (to
``solver.compiled.se_chains`` when that module is there, else to the reference's chains).

- samples of ``kaggle_1m_sample.csv`` and ``radcliffe_3m_sample.csv`` (their paths rarely need a
  chain) and of ``top1465.txt`` (most need chains);
- with ``--truth DIR``, serate's own seconds beside ours: the TSVs of serate ground truth in DIR
  (columns ``puzzle`` and ``serate_s``, as tools/se_agreement.py reads them), puzzles rated up to
  ``--max-er`` by serate.

Both engines rate the same puzzles in turn (compiled, reference, compiled, ...); the figures are
the median of ``--repeats`` runs for the compiled rating after a warm-up (compiling included in
none of them), one run for the reference. One process, one core. Never fails on a time.

    .venv/bin/python tools/bench_se.py [--sample 200] [--top-sample 10] [--repeats 3]
        [--truth /path/to/truth] [--max-er 7.9]
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import time
from pathlib import Path

from bench_solver import DEFAULT_DATASETS, datasets_missing, load, machine  # tools/

from solver.compiled import se as compiled_se
from solver.reference import se as reference_se


class ChainClock:
    """Seconds spent in the compiled rating's chain hand-off (wraps ``chain_hint``)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._chain_hint = compiled_se.chain_hint

    def __enter__(self) -> ChainClock:
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return self._chain_hint(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
                self.calls += 1
        compiled_se.chain_hint = timed
        return self

    def __exit__(self, *exc) -> None:
        compiled_se.chain_hint = self._chain_hint


def rate_all(rating, puzzles: list[str]) -> tuple[float, list]:
    start = time.perf_counter()
    results = [rating(p) for p in puzzles]
    return time.perf_counter() - start, results


def compare(label: str, puzzles: list[str], repeats: int) -> None:
    """One line: puzzles/s of both engines, the ratio, the chains' share, agreement."""
    compiled_runs, chain_shares = [], []
    reference_seconds = None
    for run in range(repeats):
        with ChainClock() as clock:
            seconds, ours = rate_all(compiled_se.se_rating, puzzles)
        compiled_runs.append(seconds)
        chain_shares.append((clock.seconds, clock.calls))
        if run == 0:
            reference_seconds, theirs = rate_all(reference_se.se_rating, puzzles)
    compiled_seconds = statistics.median(compiled_runs)
    chain_seconds, chain_calls = chain_shares[compiled_runs.index(compiled_seconds)]
    same = sum((a.er, a.ep, a.ed) == (b.er, b.ep, b.ed) for a, b in zip(ours, theirs, strict=True))
    n = len(puzzles)
    print(f"{label:34s} {n:6d} {n / compiled_seconds:10.1f} {n / reference_seconds:10.2f} "
          f"{reference_seconds / compiled_seconds:7.1f} {compiled_seconds - chain_seconds:9.3f} "
          f"{chain_seconds:9.3f} {chain_calls:6d} {same:5d}/{n}", flush=True)


def read_truth(path: Path, max_er: float) -> list[tuple[str, float]]:
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r.get("status", "ok") == "ok"]
    return [(r["puzzle"], float(r["serate_s"])) for r in rows if float(r["er"]) <= max_er]


def against_serate(truth: Path, max_er: float, repeats: int) -> None:
    print(f"\n## against serate's own seconds (serate_s of {truth}), serate ER <= {max_er}")
    print(f"{'set':34s} {'n':>6s} {'ours p/s':>10s} {'serate p/s':>10s} {'times':>7s}")
    for path in sorted(truth.glob("*.tsv")):
        rows = read_truth(path, max_er)
        if not rows:
            continue
        puzzles = [p for p, _ in rows]
        seconds = statistics.median(rate_all(compiled_se.se_rating, puzzles)[0]
                                    for _ in range(repeats))
        serate = sum(s for _, s in rows)
        print(f"{path.stem:34s} {len(rows):6d} {len(rows) / seconds:10.1f} "
              f"{len(rows) / serate:10.2f} {serate / seconds:7.1f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    ap.add_argument("--sample", type=int, default=200, help="kaggle and radcliffe puzzles")
    ap.add_argument("--top-sample", type=int, default=10, help="top1465 puzzles")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--truth", type=Path, default=None, help="serate truth TSVs (a folder)")
    ap.add_argument("--max-er", type=float, default=7.9, help="with --truth: serate ER at most")
    args = ap.parse_args()
    print(f"# SE rating benchmark; machine: {machine()}")
    chains = compiled_se._compiled_chains()
    print(f"# chains handed to: {'solver.compiled.se_chains' if chains else 'the reference'}")
    if datasets_missing(args.datasets):
        return 0
    compiled_se.se_rating(load(args.datasets / "top1465.txt")[0])  # compile or load the cache
    print(f"\n{'set (random sample)':34s} {'n':>6s} {'compiled':>10s} {'reference':>10s} "
          f"{'times':>7s} {'rules s':>9s} {'chains s':>9s} {'chain?':>6s} {'same':>9s}")
    print(f"{'':34s} {'':6s} {'puzzles/s':>10s} {'puzzles/s':>10s}")
    for name, size in (("kaggle_1m_sample.csv", args.sample),
                       ("radcliffe_3m_sample.csv", args.sample),
                       ("top1465.txt", args.top_sample)):
        puzzles = load(args.datasets / name)
        puzzles = random.Random(2026).sample(puzzles, min(size, len(puzzles)))
        compare(name, puzzles, args.repeats)
    if args.truth is not None:
        against_serate(args.truth, args.max_er, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
