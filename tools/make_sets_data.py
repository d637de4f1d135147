"""Build ``data/sets/``, the excerpts of the shared public sets that the README's and the
manual's examples run on, from ``../shared/datasets`` (deterministic).

A clone has no ``../shared``; these excerpts let every example run there, small enough to
commit, large enough to show what the full sets show. ``data/sets/PROVENANCE.md`` says what
each file holds and where the full set lives.

    .venv/bin/python tools/make_sets_data.py [--datasets ../shared/datasets] [--out data/sets]
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

import solver

HERE = Path(__file__).resolve().parent.parent
WHOLE = ("top1465.txt", "forum_hardest_1106.txt", "euler96_easy50.txt")
RADCLIFFE_PER_LEVEL = 200
SUDOKU17_FIRST = 2_000


def puzzles_of(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


def radcliffe_excerpt(path: Path) -> str:
    """The first RADCLIFFE_PER_LEVEL rows of each level, in file order, every column kept."""
    with path.open(newline="") as file:
        reader = csv.DictReader(file)
        taken: dict[str, int] = {}
        rows = []
        for row in reader:
            if taken.get(row["level"], 0) < RADCLIFFE_PER_LEVEL:
                taken[row["level"]] = taken.get(row["level"], 0) + 1
                rows.append(row)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=reader.fieldnames, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def sudoku17_excerpt(path: Path, top1465: list[str]) -> str:
    """The first SUDOKU17_FIRST 17-clue puzzles, then every later one that equals a top1465
    puzzle up to symmetry (so that the duplicates example finds what the full sets share)."""
    everything = puzzles_of(path)
    forms = solver.solve_strings(top1465, measures=("canonical",), rules="singles")
    wanted = {forms.canonical[i].tobytes().decode() for i in range(len(top1465))}
    rest = solver.solve_strings(everything[SUDOKU17_FIRST:], measures=("canonical",),
                                rules="singles")
    shared = [p for i, p in enumerate(everything[SUDOKU17_FIRST:])
              if rest.canonical[i].tobytes().decode() in wanted]
    return "\n".join(everything[:SUDOKU17_FIRST] + shared) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=HERE.parent / "shared" / "datasets")
    parser.add_argument("--out", type=Path, default=HERE / "data" / "sets")
    args = parser.parse_args()
    if not args.datasets.is_dir():
        raise SystemExit(f"{args.datasets} is not there: the shared datasets are needed")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in WHOLE:
        (args.out / name).write_text("\n".join(puzzles_of(args.datasets / name)) + "\n")
    (args.out / "radcliffe_3m_sample.csv").write_text(
        radcliffe_excerpt(args.datasets / "radcliffe_3m_sample.csv"))
    top = puzzles_of(args.datasets / "top1465.txt")
    (args.out / "sudoku17_excerpt.txt").write_text(
        sudoku17_excerpt(args.datasets / "sudoku17_all_49158.txt", top))
    for path in sorted(args.out.glob("*.*")):
        print(f"{path.name}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
