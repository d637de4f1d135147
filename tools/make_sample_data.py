"""Build the default sample ``data/sample.csv`` from ``../shared/datasets`` (deterministic).

The sample mixes easy, hard, 17-clue and multi-solution puzzles from the shared public
sets, plus crafted rows (invalid, contradictory, unsolvable, other blank conventions), so
that the first ``make solve-dataset`` shows the statuses a default run can produce. Only
puzzles that take at most ``MAX_NODES`` search nodes are picked, so the run stays quick.
``data/PROVENANCE.md`` documents every piece.

    .venv/bin/python tools/make_sample_data.py [--datasets ../shared/datasets] [--out data]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import solver

MAX_NODES = 20_000
HERE = Path(__file__).resolve().parent.parent


def txt(datasets: Path, name: str) -> list[str]:
    return [line for line in (datasets / name).read_text().splitlines() if line]


def quick(puzzles: list[str], count: int) -> list[str]:
    """The first ``count`` puzzles that need at most MAX_NODES nodes (default settings)."""
    result = solver.solve_strings(puzzles)
    nodes = result.search_nodes
    return [p for p, n in zip(puzzles, nodes, strict=True) if n <= MAX_NODES][:count]


def crafted(easy: str, easy_solution: str) -> list[tuple[str, str, str]]:
    """Rows made by hand from the first Project Euler grid (see PROVENANCE.md)."""
    rows = [
        (easy[:80], "", "crafted: 80 cells"),
        (easy + ".", "", "crafted: 82 cells"),
        (easy[:16] + "x" + easy[17:], "", "crafted: letter x at cell 16"),
        ("", "", "crafted: empty puzzle"),
        (easy[:40] + "\u00e9" + easy[41:], "", "crafted: non-ASCII character"),
    ]
    # Contradictory: one given added that repeats a digit in a row, a column, a box.
    for cell, digit in ((1, "3"), (18, "9"), (1, "9")):
        clash = easy[:cell] + digit + easy[cell + 1 :]
        rows.append((clash, "", f"crafted: {digit} added at cell {cell}"))
    rows.append((easy.replace(".", "_"), easy_solution, "crafted: blanks written as _"))
    rows.append((easy.replace(".", " "), easy_solution, "crafted: blanks written as spaces"))
    rows.append((easy.replace(".", "-"), easy_solution, "crafted: blanks written as -"))
    # Unsolvable without a visible clash: fill the first blank with a digit the solution
    # does not have there and which no given in its units repeats.
    for digit in "123456789":
        cell = easy.index(".")
        candidate = easy[:cell] + digit + easy[cell + 1 :]
        if digit != easy_solution[cell] and solver.solve(candidate).status == "unsolvable":
            rows.append((candidate, "", f"crafted: digit {digit} at cell {cell}, no solution"))
            break
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=HERE.parent / "shared" / "datasets")
    parser.add_argument("--out", type=Path, default=HERE / "data")
    args = parser.parse_args()
    d = args.datasets
    rows: list[tuple[str, str, str]] = []

    with open(d / "kaggle_1m_sample.csv", newline="") as file:
        kaggle = list(csv.DictReader(file))[:40]
    rows += [(r["quizzes"], r["solutions"], "kaggle_1m_sample.csv") for r in kaggle]
    with open(d / "radcliffe_3m_sample.csv", newline="") as file:
        radcliffe = list(csv.DictReader(file))
    for level in ("Beginner", "Easy", "Medium", "Hard", "Expert"):
        chosen = [r for r in radcliffe if r["level"] == level][:8]
        rows += [(r["puzzle"], r["solution"], f"radcliffe_3m_sample.csv ({level})") for r in chosen]
    euler = txt(d, "euler96_easy50.txt")
    rows += [(p, "", "euler96_easy50.txt") for p in euler[:20] + [euler[40]]]
    for name, count in (
        ("norvig_hardest.txt", 6),
        ("top1465.txt", 40),
        ("sudoku17_all_49158.txt", 20),
    ):
        rows += [(p, "", name) for p in quick(txt(d, name), count)]
    rows += [(p, "", "serg_benchmark.txt") for p in txt(d, "serg_benchmark.txt")[:20]]
    easy_solution = solver.solve(euler[0]).first_solution
    rows += crafted(euler[0], easy_solution)

    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "sample.csv", "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["puzzle", "solution", "collection"])
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {args.out / 'sample.csv'}")


if __name__ == "__main__":
    main()
