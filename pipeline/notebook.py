"""The pipeline from a notebook: solve a data frame in memory, read a run back.

- ``solve_frame(frame, **settings)``: a polars DataFrame or an Arrow table in; the same rows
  with the result columns of the Parquet output out (a null puzzle is an ``invalid`` row);
- ``read_run(directory)``: a run's rows as a polars LazyFrame, in input order;
- ``read_summary(directory)``: the summary the run stored;
- ``generate_frame(count=..., **settings)``: new puzzles (SPEC 8) as a polars DataFrame.

>>> import polars as pl, pipeline
>>> frame = pl.DataFrame({"puzzle": ["." * 81, None]})
>>> pipeline.solve_frame(frame, max_solutions=3).select("status", "n_solutions").rows()
[('multiple', 3), ('invalid', None)]
"""

from __future__ import annotations

import os
from typing import Any

import pyarrow as pa

from pipeline import storage
from pipeline.columns import RESULT_NAMES
from pipeline.errors import PipelineError
from pipeline.part import output_schema
from pipeline.read import column_layout, conform
from pipeline.resume import coverage
from pipeline.settings import ROW_SETTINGS, load_generation, load_settings
from pipeline.summary import read_summary, run_parts
from pipeline.text import escaped
from pipeline.work import solve_table

__all__ = ["generate_frame", "read_run", "read_summary", "solve_frame"]
CHUNK_ROWS = 50_000  # solved at a time, so that the solver's arrays stay small
# The settings a frame is solved with: those the rows depend on (but how files are read).
FRAME_SETTINGS = tuple(name for name in ROW_SETTINGS if name not in ("delimiter", "cast"))


def solve_frame(frame: Any, *, source: str = "frame", **settings: Any) -> Any:
    """``frame`` (a polars DataFrame or a pyarrow Table) with the result columns of a run's
    Parquet output appended: ``grid``, ``status``, ``error``, ... ``source`` (``source``) and
    ``row`` (0, 1, ...). ``settings`` are those of ``solve-dataset`` that decide the rows
    (``column``, ``max_solutions``, ``rules``, ...). Returns the type it was given.

    The puzzle column is found as in a file (``puzzle``, ``quizzes``, ..., or ``column=``);
    input columns named like result columns come back as ``input_<name>``. Solved in this
    process, on one core.
    """
    elsewhere = sorted(set(settings) - set(FRAME_SETTINGS))
    if elsewhere:
        raise TypeError(
            f"solve_frame solves in this process, on one core, and does not take {elsewhere[0]!r}; "
            f"it takes the settings that decide the rows: {', '.join(FRAME_SETTINGS)} (for "
            "workers, engines and files, write the frame to Parquet and use solve-dataset)")
    chosen = load_settings(**settings)
    polars = _is_polars(frame)
    table = frame.to_arrow() if polars else frame
    if not isinstance(table, pa.Table):
        raise TypeError(f"solve_frame takes a polars DataFrame or a pyarrow Table, not {type(frame)}")
    layout = column_layout("the frame", table.schema, column=chosen.column,
                           solution_column=chosen.solution_column, reserved=RESULT_NAMES)
    table = conform(table, layout.schema)
    schema = output_schema(layout.schema)
    pieces = [
        solve_table(table.slice(start, CHUNK_ROWS), schema=schema, puzzle_column=layout.puzzle,
                    solution_column=layout.solution, options=chosen.solve_options,
                    source=source, first_row=start)
        for start in range(0, max(table.num_rows, 1), CHUNK_ROWS)
    ]
    solved = pa.concat_tables(pieces).replace_schema_metadata(None)
    if polars:
        import polars as pl

        return pl.from_arrow(solved)
    return solved


def read_run(directory: str | os.PathLike, *, allow_incomplete: bool = False):
    """The rows of the run in ``directory`` as a polars LazyFrame, in input order (its parts
    sorted by name). A run that is not complete (stopped, or with batches that kept failing)
    is a ``PipelineError`` saying how many rows it has, unless ``allow_incomplete``: then
    its rows are what it has."""
    import polars as pl

    directory = storage.location(directory)
    run, infos = run_parts(directory)
    covered = coverage(infos, run.paths)
    if not covered.complete and not allow_incomplete:
        raise PipelineError(
            f"the run in {escaped(directory)} is incomplete: its parts hold "
            f"{sum(covered.rows):,} rows, not every row of its inputs; finish it (rerun the "
            f"{run.command} command that wrote it), or pass allow_incomplete=True to read the "
            "rows it has")
    if not infos:
        raise PipelineError(f"{escaped(directory)} holds no part yet")
    return pl.scan_parquet([storage.join(directory, info.name) for info in infos])


def generate_frame(*, output: str | os.PathLike | None = None, **settings: Any):
    """New puzzles (SPEC 8) as a polars DataFrame: the rows of a generated run (``puzzle``,
    ``solution``, ``draw`` and the result columns), in draw order. ``settings`` are those of
    ``sudoku-pipeline generate`` (``count``, ``seed``, ``grade``, ``symmetry``, ``workers``,
    ...). The run is written to ``output`` (and continued there, as the command does), or to a
    temporary directory, deleted after.

    >>> from pipeline import generate_frame
    >>> generate_frame(count=3, boxsize=2, seed=1).select("puzzle", "grade").height
    3
    """
    import tempfile

    from pipeline.generate import generate_dataset

    chosen = load_generation(**{"quiet": True, **settings})
    if output is not None:
        generate_dataset(output, *chosen, progress=False)
        return read_run(output).collect()
    with tempfile.TemporaryDirectory(prefix="generated-") as directory:
        generate_dataset(directory, *chosen, progress=False)
        return read_run(directory).collect()


def _is_polars(frame: Any) -> bool:
    return type(frame).__module__.startswith("polars")
