"""Grids where the SE reference's path applies a chain rule, for the compiled chains' tests and
benchmark (``tests/data/se/chain_positions.tsv``).

Walks the reference path (``solver.reference.se``) of each puzzle, asking only the rules up to
``--max-rule`` (index in ``RULES``; 24 = dynamic forcing chains), and writes one row per step
whose first productive rule is a chain rule: where the puzzle came from, the step, the rule, the
technique of its hint, the grid's values (81 characters, ``.`` empty) and candidates (81 masks,
3 hex digits each, bit d for digit d). A puzzle's walk stops at its first step that needs a
later rule, or at ``--limit`` seconds.

    python tools/se_chain_positions.py tests/data/se/excerpt.tsv data/sets/top1465.txt:1-40 \\
        [--max-rule 24] [--limit 60] --out tests/data/se/chain_positions.tsv
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.compiled.se_chains import CHAIN_RULES  # noqa: E402
from solver.reference.se import RULES  # noqa: E402
from solver.reference.se_grid import Grid  # noqa: E402

HEADER = ("source", "step", "rule", "technique", "values", "cands")


def puzzles_of(spec: str) -> list[tuple[str, str]]:
    """(source, puzzle) of a TSV with a ``puzzle`` column (``source`` column kept), or of lines
    FIRST-LAST (1-based) of a text file of puzzles (``path:FIRST-LAST``)."""
    path, _, span = spec.partition(":")
    if path.endswith(".tsv"):
        with open(path, newline="") as f:
            rows = csv.DictReader((line for line in f if not line.startswith("#")),
                                  delimiter="\t")
            return [(row.get("source") or f"{Path(path).stem}:{i}", row["puzzle"])
                    for i, row in enumerate(rows, 1)]
    lines = Path(path).read_text().split()
    first, last = (int(x) for x in span.split("-")) if span else (1, len(lines))
    return [(f"{Path(path).stem}:{i}", lines[i - 1]) for i in range(first, last + 1)]


def chain_positions(puzzle: str, max_rule: int, limit: float):
    """(step, rule, technique, values, cands) of each step of the path that a chain rule
    makes."""
    grid = Grid.from_puzzle(puzzle)
    start = time.monotonic()
    step = 0
    while not grid.is_solved() and time.monotonic() - start < limit:
        index, found = first_hint(grid, max_rule)
        if found is None:
            return
        if index in CHAIN_RULES:
            yield step, index, found.technique, grid.values[:], grid.cands[:]
        found.apply(grid)
        step += 1


def first_hint(grid: Grid, max_rule: int):
    """(index of the rule, its first hint) of the first rule up to ``max_rule`` with a hint."""
    for index, rule in enumerate(RULES[:max_rule + 1]):
        hint = next(iter(rule(grid)), None)
        if hint is not None:
            return index, hint
    return None, None


def encode(values: list[int], cands: list[int]) -> tuple[str, str]:
    return "".join(str(v) if v else "." for v in values), "".join(f"{m:03x}" for m in cands)


def decode(values: str, cands: str) -> tuple[list[int], list[int]]:
    return ([int(ch) if ch != "." else 0 for ch in values],
            [int(cands[3 * i:3 * i + 3], 16) for i in range(81)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--max-rule", type=int, default=24)
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--min-er", type=float, default=6.5,
                        help="TSV rows with a lower serate ER are skipped (no chain)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.out, "w", newline="") as f:
        out = csv.writer(f, delimiter="\t", lineterminator="\n")
        out.writerow(HEADER)
        for spec in args.inputs:
            for source, puzzle in puzzles_of(spec):
                if spec.endswith(".tsv"):
                    er = _er_of(spec, puzzle)
                    if er is not None and er < args.min_er:
                        continue
                for step, rule, technique, values, cands in chain_positions(
                        puzzle, args.max_rule, args.limit):
                    out.writerow((source, step, rule, technique, *encode(values, cands)))
                f.flush()
                print(source, file=sys.stderr)


def _er_of(path: str, puzzle: str) -> float | None:
    with open(path, newline="") as f:
        for row in csv.DictReader((line for line in f if not line.startswith("#")),
                                  delimiter="\t"):
            if row["puzzle"] == puzzle and row.get("er"):
                return float(row["er"])
    return None


if __name__ == "__main__":
    main()
