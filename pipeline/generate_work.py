"""The unit of work of a generated run (SPEC 8): a batch of consecutive draws in, the part of
its candidates out.

``generate_part`` is a plain top-level function, as ``pipeline.work.solve_part`` is, so any
engine runs it: it draws its candidates (``solver.compiled.generate.candidates``, a pure function of
the seed and the draw), solves them with the run's options (``pipeline.work.solve_table``: the
same columns as ``solve-dataset``), keeps those whose grade is asked for and writes them as a
part whose ``PartInfo`` is not placed yet (``first_row`` -1). The run then selects the parts in
draw order (``pipeline.generate``): which of a batch's candidates are kept depends on the
batches before it (``distinct``, ``count``), which a worker does not know.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.arrow import digits_array
from pipeline.part import Footer, PartInfo, write_part
from pipeline.provenance import installed
from pipeline.stats import Stats
from pipeline.work import solve_table
from solver.grid import symbols
from solver.options import SolveOptions

# The columns a generated run adds before the result columns (its "input").
DRAW_FIELDS = (pa.field("puzzle", pa.string()), pa.field("solution", pa.string()),
               pa.field("draw", pa.int64()))
PLAIN_COLUMNS = ["puzzle", "solution", "grid", "first_solution", "canonical"]


@dataclass(frozen=True)
class Draws:
    """What every candidate of a run is a pure function of, with the draw (SPEC 8)."""

    seed: int
    boxsize: int
    symmetry: str
    minimal: bool


@dataclass(frozen=True)
class GenerateUnit:
    """One batch of draws, as plain data: which (``part``: its ``first_draw`` and ``draws``,
    not placed), how they are drawn (``draws``) and solved (``options``), the rungs kept
    (``grades``), and where and how the part is written (as ``pipeline.work.Unit``)."""

    part: PartInfo
    draws: Draws
    options: SolveOptions
    grades: tuple[str, ...]
    schema: pa.Schema
    record: dict[str, Any]
    compression: str
    path: str
    se_band: tuple[float, float] | None = None  # the lowest and highest se kept (None: any)

    @property
    def rows(self) -> int:
        """Draws, not rows: how many puzzles the unit works on (the progress counts them)."""
        return self.part.draws

    def holds(self, footer: Footer, stats: Stats) -> bool:
        """Whether a part whose footer reads ``footer``, of a unit that returned ``stats``,
        is this unit's: its draws, with however many candidates it kept."""
        return (footer.info == replace(self.part, rows=footer.num_rows)
                and footer.num_rows == stats.rows)


def draw_table(draws: Draws, first: int, count: int, alphabet: str = "") -> pa.Table:
    """Draws ``first`` .. ``first + count - 1`` as the columns ``puzzle`` (blanks '.'),
    ``solution`` and ``draw``."""
    from solver.compiled.generate import candidates

    puzzles, solutions = candidates(draws.seed, first, count, draws.boxsize, draws.symmetry,
                                    draws.minimal)
    written = symbols(draws.boxsize, alphabet)
    present = np.ones(count, bool)
    return pa.Table.from_arrays(
        [digits_array(written.ascii(puzzles), present), digits_array(written.ascii(solutions),
                                                                     present),
         pa.array(np.arange(first, first + count, dtype=np.int64))],
        schema=pa.schema(DRAW_FIELDS))


def generate_part(unit: GenerateUnit) -> Stats:
    """Draw, solve and grade one batch; write its candidates of a rung asked for (and of an SE
    band, with ``se_band``) as one part (atomically); return their stats."""
    started = time.perf_counter()
    info = unit.part
    table = draw_table(unit.draws, info.first_draw, info.draws,
                       unit.options.alphabet_of(unit.draws.boxsize))
    solved = solve_table(table, schema=unit.schema, puzzle_column="puzzle",
                         solution_column="solution", options=unit.options, source=info.source,
                         first_row=info.first_draw)
    keep = pc.and_(pc.equal(solved["status"], "unique"),
                   pc.is_in(solved["grade"], pa.array(unit.grades)))
    if unit.se_band is not None:  # a null se (over the SE work budget) is not in any band
        low, high = unit.se_band
        keep = pc.and_(keep, pc.and_(pc.greater_equal(solved["se"], low),
                                     pc.less_equal(solved["se"], high)).fill_null(False))
    kept = solved.filter(keep)
    write_part(kept, replace(info, rows=kept.num_rows), unit.path,
               record={**unit.record, "written_by": installed()},
               compression=unit.compression, plain_columns=PLAIN_COLUMNS)
    return Stats.of_table(kept).with_worker_seconds(time.perf_counter() - started)
