"""Units of work built by hand, for the tests of ``solve_part`` and of the engines."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from pipeline.part import PartInfo, output_schema, part_name
from pipeline.provenance import InputEntry, RunRecord
from pipeline.settings import load_settings
from pipeline.work import Unit, to_ipc

HARD = Path(__file__).resolve().parent / "data" / "norvig_hardest_8.txt"
EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


def make_unit(
    table: pa.Table,
    directory: Path,
    *,
    batch_index: int = 0,
    first_row: int | None = None,
    source: str = "in.txt",
    puzzle_column: str = "puzzle",
    solution_column: str | None = None,
    **settings,
) -> Unit:
    """A unit solving ``table`` into ``directory`` under ``settings`` (see ``load_settings``),
    of a run of the one input ``source``."""
    chosen = load_settings(**settings)
    run = RunRecord.new(chosen, [InputEntry(source, "txt", None, "0" * 64)])
    info = PartInfo(
        source=source,
        file_index=0,
        batch_index=batch_index,
        first_row=table.num_rows * batch_index if first_row is None else first_row,
        rows=table.num_rows,
        last=False,
    )
    return Unit(
        part=info,
        batch=to_ipc(table),
        puzzle_column=puzzle_column,
        solution_column=solution_column,
        schema=output_schema(table.schema),
        options=chosen.solve_options,
        record=run.part_record(0),
        compression=chosen.compression,
        path=str(Path(directory) / part_name(0, batch_index)),
    )


def make_units(directory: Path, count: int) -> list[Unit]:
    """``count`` units of 4 rows each (an easy, an invalid and two hard puzzles, under a
    small node budget), writing their parts into ``directory`` (created)."""
    directory.mkdir(parents=True, exist_ok=True)
    table = pa.table({"puzzle": [EASY, EASY[:17] + "x" + EASY[18:], *HARD.read_text().splitlines()[:2]]})
    return [make_unit(table, directory, batch_index=index, max_nodes=500) for index in range(count)]
