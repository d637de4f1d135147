"""Duplicates in the shared puzzle sets, exact and up to symmetry (SPEC section 6), as Markdown.

    python tools/report_duplicates.py [--datasets ../shared/datasets]

For each set: its puzzles, the distinct exact puzzles (blanks normalised to ``.``), the distinct
canonical forms (puzzles the same up to symmetry count once) and the size of the largest class
of equivalent puzzles.  Then how many of ``top1465.txt``'s puzzles are also in
``forum_hardest_1106.txt`` or ``norvig_top95.txt``: identically, or only in another guise (the
same canonical form, a different string).  Says plainly when the folder is absent.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_solver import DEFAULT_DATASETS, datasets_missing  # noqa: E402  (tools/ on sys.path)

from solver.compiled.canonical import canonical_ascii  # noqa: E402
from solver.vocabulary import BLANKS  # noqa: E402

TO_DOTS = str.maketrans({blank: "." for blank in BLANKS})


def read_puzzles(path: Path) -> list[str]:
    """One puzzle a line (``.txt``), or the first column of a CSV with a header."""
    if path.suffix == ".csv":
        with path.open(newline="") as f:
            return [row[0] for row in list(csv.reader(f))[1:] if row]
    return [line.strip() for line in path.read_text().splitlines() if line.strip()]


def forms(puzzles: list[str]) -> tuple[list[str], list[str | None]]:
    """(exact puzzles with blanks written ``.``, canonical forms; None where not a puzzle)."""
    exact = [p.translate(TO_DOTS) for p in puzzles]
    fits = [len(p) == 81 and p.isascii() for p in exact]
    rows = np.zeros((len(exact), 81), np.uint8)
    for i, p in enumerate(exact):
        if fits[i]:
            rows[i] = np.frombuffer(p.encode(), np.uint8)
    out = canonical_ascii(rows)
    canonical = [row.tobytes().decode() if fit and row.any() else None
                 for row, fit in zip(out, fits, strict=True)]
    return exact, canonical


def set_row(name: str, puzzles: list[str]) -> str:
    exact, canonical = forms(puzzles)
    classes = Counter(c for c in canonical if c is not None)
    invalid = canonical.count(None)
    note = f" ({invalid} not puzzles)" if invalid else ""
    return (f"| {name}{note} | {len(puzzles):,} | {len(set(exact)):,} | {len(classes):,} | "
            f"{max(classes.values(), default=0):,} |")


def overlap_row(name: str, mine: list[str], theirs: list[str]) -> str:
    """How many of ``mine`` are in ``theirs`` identically, or only in another guise."""
    my_exact, my_forms = forms(mine)
    their_exact, their_forms = forms(theirs)
    their_exact, their_forms = set(their_exact), set(their_forms) - {None}
    identical = sum(p in their_exact for p in my_exact)
    guise = sum(p not in their_exact and f in their_forms
                for p, f in zip(my_exact, my_forms, strict=True))
    return f"| {name} | {identical:,} | {guise:,} | {identical + guise:,} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=DEFAULT_DATASETS)
    args = parser.parse_args()
    if datasets_missing(args.datasets, "nothing to report"):
        return 0
    paths = sorted(args.datasets.glob("*.txt")) + sorted(args.datasets.glob("*.csv"))
    print("| set | puzzles | distinct | distinct up to symmetry | largest class |")
    print("|---|---:|---:|---:|---:|")
    for path in paths:
        print(set_row(path.name, read_puzzles(path)), flush=True)
    top = args.datasets / "top1465.txt"
    others = [args.datasets / name for name in ("forum_hardest_1106.txt", "norvig_top95.txt")]
    if top.exists() and all(p.exists() for p in others):
        print("\n| top1465.txt puzzles also in | identically | in another guise | either |")
        print("|---|---:|---:|---:|")
        for other in others:
            print(overlap_row(other.name, read_puzzles(top), read_puzzles(other)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
