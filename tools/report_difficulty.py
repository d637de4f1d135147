"""The public-record check of SPEC section 5: our grade and rating against Radcliffe's ratings, and
the grade and backdoor size of every shared set, as Markdown tables.

Radcliffe's Kaggle set ("3 million Sudoku puzzles with ratings", columns
``puzzle,solution,clues,difficulty,level``) rates each puzzle by the average search depth of a
solver over random runs, so SPEC 5.2 expects its ``difficulty`` to be 0 exactly for the
singles-solvable puzzles (grade ``prune`` or ``singles``) and to rise with our ``rating``:

1. the agreement table of ``difficulty == 0`` against grade prune or singles (each disagreement
   counted);
2. the Spearman correlation of ``rating`` (K = 32) with ``difficulty`` over the other rows
   (ranks with ties averaged);
3. the grade distribution per Radcliffe ``level``;
4. for every shared set, the grade distribution and the histogram of backdoor sizes.

Searches run with ``rules = "singles"`` (grade, rating and backdoor size do not depend on the
rule set; only the search's own speed does).  Reads ``../shared/datasets`` (``--datasets DIR``)
and says so plainly when it is not there.

    .venv/bin/python tools/report_difficulty.py [--datasets DIR] [--samples 32]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
from bench_solver import DEFAULT_DATASETS, datasets_missing, load, machine  # tools/ is on sys.path

import solver
from solver.grid import ascii_rows

RADCLIFFE = "radcliffe_3m_sample.csv"
LEVELS = ("Beginner", "Easy", "Medium", "Hard", "Expert")  # the sampler's 1,000 per level


def solve(puzzles: list[str], measures: tuple[str, ...], samples: int) -> solver.BatchResult:
    rows, errors = ascii_rows(puzzles)
    return solver.solve_ascii(rows, errors=errors, rules="singles", measures=measures,
                              rating_samples=samples)


def ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing the mean of their ranks."""
    order = np.argsort(values, kind="stable")
    _, first, counts = np.unique(values[order], return_index=True, return_counts=True)
    ranked = np.empty(len(values))
    ranked[order] = np.repeat(first + (counts + 1) / 2, counts)
    return ranked


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation: Pearson's, of the ranks."""
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(f"{v:,}" if isinstance(v, int) else str(v)
                                       for v in row) + " |")
    return "\n".join(lines)


def grade_counts(result: solver.BatchResult, where: np.ndarray) -> list[int]:
    graded = result.grade[where]
    return [int((graded == code).sum()) for code in range(len(solver.GRADES))] + \
        [int((graded < 0).sum())]


def radcliffe(path: Path, samples: int) -> None:
    with path.open(newline="") as f:
        records = list(csv.DictReader(f))
    puzzles = [r["puzzle"] for r in records]
    difficulty = np.array([float(r["difficulty"]) for r in records])
    level = np.array([r["level"] for r in records])
    result = solve(puzzles, ("rating",), samples)
    grades = np.array([g or "null" for g in result.grades()])
    easy = np.isin(grades, ["prune", "singles"])
    zero = difficulty == 0

    print(f"\n## Radcliffe ({path.name}, {len(records):,} puzzles)\n")
    print("### difficulty 0 against grade prune or singles\n")
    print(table(["", "grade prune or singles", "grade beyond singles"], [
        ["difficulty = 0", int((zero & easy).sum()), int((zero & ~easy).sum())],
        ["difficulty > 0", int((~zero & easy).sum()), int((~zero & ~easy).sum())],
    ]))
    print(f"\nDisagreements: {int((zero & ~easy).sum())} puzzles with difficulty 0 need more "
          f"than singles; {int((~zero & easy).sum())} singles-solvable puzzles have difficulty "
          "above 0.")

    others = ~zero & ~easy & ~np.isnan(result.rating)
    print(f"\n### rating (K = {samples}) against difficulty, over the other rows\n")
    rho = spearman(result.rating[others], difficulty[others])
    print(table(["rows", "Spearman rho", "mean rating", "mean difficulty"], [
        [int(others.sum()), f"{rho:.3f}", f"{result.rating[others].mean():.2f}",
         f"{difficulty[others].mean():.2f}"]]))
    rated = ~np.isnan(result.rating)
    print(f"\n(All rows with a rating, the singles-solvable ones included: rho = "
          f"{spearman(result.rating[rated], difficulty[rated]):.3f}.)")

    print("\n### grade per Radcliffe level\n")
    rows = []
    for name in [lv for lv in LEVELS if lv in level] + sorted(set(level) - set(LEVELS)):
        where = level == name
        rows.append([name, int(where.sum())] + grade_counts(result, where) +
                    [f"{result.rating[where].mean():.2f}", f"{difficulty[where].mean():.2f}"])
    print(table(["level", "puzzles", *solver.GRADES, "null", "mean rating", "mean difficulty"],
                rows))


def shared_sets(datasets: Path) -> None:
    print("\n## Grade and backdoor size of every shared set\n")
    print("(grade and backdoor size are null for rows that are not unique: several solutions, "
          "none, or contradictory givens)\n")
    grade_rows, backdoor_rows = [], []
    for path in sorted(datasets.glob("*.txt")) + sorted(datasets.glob("*.csv")):
        result = solve(load(path), ("backdoor",), solver.DEFAULT_RATING_SAMPLES)
        everyone = np.ones(len(result), bool)
        grade_rows.append([path.name, len(result)] + grade_counts(result, everyone))
        sizes = result.backdoor_size
        backdoor_rows.append([path.name, len(result)] +
                             [int((sizes == k).sum()) for k in range(4)] +
                             [int((sizes < 0).sum())])
    print(table(["set", "puzzles", *solver.GRADES, "null"], grade_rows))
    print()
    print(table(["set", "puzzles", "backdoor 0", "1", "2", "3", "null (> 3 or not unique)"],
                backdoor_rows))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    parser.add_argument("--samples", type=int, default=solver.DEFAULT_RATING_SAMPLES,
                        help="the rating's copies, K (default 32)")
    args = parser.parse_args()
    print("# Difficulty against the public record (SPEC section 5)")
    print(f"\nmachine: {machine()}")
    if datasets_missing(args.datasets, "nothing to report"):
        return 0
    if (args.datasets / RADCLIFFE).exists():
        radcliffe(args.datasets / RADCLIFFE, args.samples)
    else:
        print(f"\n{RADCLIFFE} is not in {args.datasets}: no Radcliffe comparison.")
    shared_sets(args.datasets)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
