"""The compiled SE chain rules (``solver.compiled.se_chains``) against the reference's, rule by
rule, on the same grids: the positions of ``tests/data/se/chain_positions.tsv`` (or another file
made by ``tools/se_chain_positions.py``), each timed with the rule its path applied there.

Prints the dataset, the machine, then per rule: positions, the reference's and the compiled
code's total seconds (the compiled one the median of ``--repeat`` runs per position, compiled
beforehand), their ratio, the median ratio per position, and the work (candidates taken off the
propagation queues) per position. Figures only: nothing fails on a time.

    python tools/bench_se_chains.py [--positions tests/data/se/chain_positions.tsv]
        [--repeat 3] [--rules 20,22,23,24,25] [--every 4] [--as-rule 25]

``--as-rule R`` times rule R instead on the positions chosen (e.g. dynamic (+) where the dynamic
rule applied: the positions where it applies itself are few).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.compiled import se_chains as compiled  # noqa: E402
from solver.reference.se import RULES  # noqa: E402
from solver.reference.se_grid import Grid  # noqa: E402
from tools.se_chain_positions import decode  # noqa: E402


def read_positions(path: Path) -> list[tuple[str, int, list[int], list[int]]]:
    rows = []
    lines = path.read_text().splitlines()
    header = lines[0].split("\t")
    for line in lines[1:]:
        row = dict(zip(header, line.split("\t"), strict=True))
        values, cands = decode(row["values"], row["cands"])
        rows.append((f"{row['source']}#{row['step']}", int(row["rule"]), values, cands))
    return rows


def time_reference(rule: int, values, cands) -> float:
    start = time.process_time()
    next(iter(RULES[rule](Grid(values[:], cands[:]))), None)
    return time.process_time() - start


def time_compiled(rule: int, values, cands, repeat: int) -> tuple[float, int]:
    v, c = np.array(values, np.int8), np.array(cands, np.int32)
    times = []
    for _ in range(repeat):
        start = time.process_time()
        found = compiled.chain_rule_search(rule, v, c)
        times.append(time.process_time() - start)
    return statistics.median(times), found.work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=Path,
                        default=ROOT / "tests" / "data" / "se" / "chain_positions.tsv")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", default=",".join(map(str, sorted(compiled.COMPILED_RULES))))
    parser.add_argument("--every", type=int, default=4,
                        help="time every N-th position only (4: about 3 CPU minutes)")
    parser.add_argument("--as-rule", type=int, help="time this rule on the positions instead")
    args = parser.parse_args()
    rules = {int(r) for r in args.rules.split(",")}
    positions = [p for p in read_positions(args.positions) if p[1] in rules][::args.every]
    if args.as_rule is not None:
        positions = [(name, args.as_rule, values, cands) for name, _, values, cands in positions]
        rules = {args.as_rule}
    print(f"dataset: {args.positions}, every {args.every}: {len(positions)} positions "
          f"of rules {args.rules}" + (f", timed with rule {args.as_rule}" if args.as_rule else ""))
    print(f"machine: {platform.machine()} {platform.processor() or ''} {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}; "
          f"CPU seconds (process time)")
    start = time.monotonic()
    _, cands = positions[0][2], positions[0][3]
    for rule in sorted(rules):  # compile (or load the cache) before timing
        compiled.chain_rule_search(rule, np.array(positions[0][2], np.int8),
                                   np.array(cands, np.int32))
    print(f"compiled or loaded in {time.monotonic() - start:.1f} s wall")
    results: dict[int, list[tuple[float, float, int]]] = {}
    for _, rule, values, cands in positions:
        ref = time_reference(rule, values, cands)
        fast, work = time_compiled(rule, values, cands, args.repeat)
        results.setdefault(rule, []).append((ref, fast, work))
    print(f"{'rule':>4} {'name':<10} {'n':>4} {'reference s':>12} {'compiled s':>11} "
          f"{'ratio':>7} {'median ratio':>12} {'median work':>11}")
    for rule, rows in sorted(results.items()):
        ref = sum(r for r, _, _ in rows)
        fast = sum(f for _, f, _ in rows)
        per = statistics.median(r / max(f, 1e-9) for r, f, _ in rows)
        work = statistics.median(w for _, _, w in rows)
        label = RULES[rule].__name__.replace("_forcing_chains", "").replace("_and_cycles", "")
        print(f"{rule:>4} {label[:10]:<10} {len(rows):>4} {ref:>12.3f} {fast:>11.4f} "
              f"{ref / max(fast, 1e-9):>7.1f} {per:>12.1f} {work:>11.0f}")


if __name__ == "__main__":
    main()
