"""Grids where SE's path applies a nested forcing chain (levels 2-5, ER 9.5 and up), with the
reference's answer there, for the compiled nested chains' tests (``tests/data/se/
nested_positions.tsv``).

The reference's path to such a step takes hours, so the compiled path leads there
(``solver.compiled.se``, checked against the reference by the other tests); at each step whose
first productive rule is a nested level of at least ``--min-rule`` (26 = level 2 ... 29 = level
5), the reference's ``solver.reference.se_chains`` is asked every nested level from 26 up to that
one, and each answer is a row: where the puzzle came from, the step, the rule, the technique and
text of the reference's hint (empty for none), the grid (values, and candidates as 81 masks of 3
hex digits), the chain work the reference counted, and its CPU seconds. A level-2 answer
takes the reference one to two minutes, a higher one longer.

    python tools/se_nested_positions.py PUZZLE_TSV:LINE ... [--min-rule 26] [--per-puzzle 3] \\
        --out tests/data/se/nested_positions.tsv

``--recount OLD.tsv`` asks the reference again at the positions of a file this tool wrote (the
same rows, their hint, work and seconds taken anew; the comment line kept), for when what the
work counts changes:

    python tools/se_nested_positions.py --recount tests/data/se/nested_positions.tsv \\
        --out NEW.tsv
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver.compiled import se  # noqa: E402
from solver.compiled.se_board import BOARD, apply_hint, from_puzzle  # noqa: E402
from solver.compiled.se_chains import chain_rule_search, counted_chain_work  # noqa: E402
from solver.reference.se import RULES  # noqa: E402
from solver.reference.se_grid import Grid  # noqa: E402
from tools.se_chain_positions import decode, encode, puzzles_of  # noqa: E402

HEADER = ("source", "step", "rule", "technique", "values", "cands", "work", "reference_s", "text")
FIRST_NESTED = len(RULES) - 4
COMMENT = ("# Made by tools/se_nested_positions.py (the reference's answers at the compiled path's "
           "nested steps); see PROVENANCE.md\n")


def nested_steps(puzzle: str, min_rule: int):
    """(step, rule, values, cands) of each step of the compiled path whose first productive
    rule is a nested level of at least ``min_rule``."""
    values, cands = from_puzzle(puzzle)
    arrays = se.work()
    rule = step = 0
    while True:
        status, chain_rule, steps = se.advance(BOARD, values, cands, arrays.scratch, arrays.out,
                                               arrays.log, rule)
        step += steps
        if status == se.LOG_FULL:
            rule = 0
            continue
        if status != se.CHAIN:
            return
        hint = chain_rule_search(chain_rule, values, cands).hint
        if hint is None:
            rule = chain_rule + 1
            continue
        if chain_rule >= min_rule:
            yield step, chain_rule, values.copy(), cands.copy()
        apply_hint(hint, values, cands)
        step += 1
        rule = 0


def reference_answer(rule: int, values, cands):
    """(hint, work, CPU s) of the reference's rule ``rule`` on the grid."""
    grid = Grid([int(v) for v in values], [int(m) for m in cands])
    started = time.process_time()
    with counted_chain_work(None) as meter:
        hint = next(iter(RULES[rule](grid)), None)
    return hint, meter.spent, time.process_time() - started


def found_positions(inputs: list[str], min_rule: int, per_puzzle: int):
    """(source, step, rule asked, values, cands) where the reference is to be asked: every
    nested level up to the first productive one, at the first nested steps of each puzzle."""
    for spec in inputs:
        for source, puzzle in puzzles_of(spec):
            for n, (step, rule, values, cands) in enumerate(nested_steps(puzzle, min_rule)):
                if n == per_puzzle:
                    break
                for asked in range(FIRST_NESTED, rule + 1):
                    yield source, step, asked, values, cands


def recorded_positions(path: str):
    """The positions of a file this tool wrote, as ``found_positions`` gives them."""
    with open(path, newline="") as f:
        for row in csv.DictReader((line for line in f if not line.startswith("#")),
                                  delimiter="\t"):
            values, cands = decode(row["values"], row["cands"])
            yield row["source"], int(row["step"]), int(row["rule"]), values, cands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", help="TSV[:FIRST-LAST] or TEXT:FIRST-LAST")
    parser.add_argument("--min-rule", type=int, default=FIRST_NESTED)
    parser.add_argument("--per-puzzle", type=int, default=3)
    parser.add_argument("--recount", help="a file this tool wrote: ask again at its positions")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if bool(args.inputs) == bool(args.recount):
        parser.error("give puzzles or --recount, not both")
    positions = (recorded_positions(args.recount) if args.recount
                 else found_positions(args.inputs, args.min_rule, args.per_puzzle))
    new = not Path(args.out).exists()
    with open(args.out, "a", newline="") as f:
        out = csv.writer(f, delimiter="\t", lineterminator="\n")
        if new:
            f.write(COMMENT)
            out.writerow(HEADER)
        for source, step, asked, values, cands in positions:
            hint, work, seconds = reference_answer(asked, values, cands)
            out.writerow((source, step, asked, hint.technique if hint else "",
                          *encode(values, cands), work, f"{seconds:.1f}",
                          hint.text if hint else ""))
            f.flush()
            print(source, step, asked, hint.text if hint else "-", file=sys.stderr)


if __name__ == "__main__":
    main()
