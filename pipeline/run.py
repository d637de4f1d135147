"""A whole run: inputs in, an output directory of Parquet parts and summary.json out.

Order of events: find and inspect every input (headers and metadata only) and hash it,
so a bad input fails before anything is written; lock the output directory and either
write ``manifest.json`` (settings and input hashes) or, when it holds the same run, continue
that run (``pipeline.resume``); stream the inputs in batches to the workers, skipping the
batches whose parts are done, each writing one part; merge the parts' stats into
``summary.json``, written last.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline import __version__, storage
from pipeline.errors import PipelineError, RunIncomplete
from pipeline.pool import Failure, run_units
from pipeline.read import InputFile, file_digest, find_inputs, inspect_input, read_batches
from pipeline.resume import MANIFEST_FILE, Output, open_output
from pipeline.settings import Settings
from pipeline.summary import (
    SUMMARY_FILE,
    build_summary,
    merge_stats,
    write_summary,
)
from pipeline.work import RESULT_COLUMNS, Unit, output_schema, part_name, run_metadata, solve_part
from pipeline.work import to_ipc as _to_ipc

__all__ = ["MANIFEST_FILE", "solve_dataset", "versions"]
# An easy puzzle (Project Euler 96, grid 01) to load the compiled solver before forking.
WARM_UP = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


def solve_dataset(
    inputs: Sequence[str | os.PathLike],
    output: str | os.PathLike,
    settings: Settings,
    *,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Solve every puzzle of ``inputs`` into Parquet parts in ``output``; return the summary.

    A run that was stopped (killed, interrupted, out of time, out of disk) continues when
    started again with the same inputs and output settings: finished parts are kept and only
    the others are solved (``pipeline.resume``).

    ``progress``: show a progress bar on stderr (default: when stderr is a terminal and
    ``settings.quiet`` is false). Raises ``PipelineError`` for every expected failure, and
    its subclass ``RunIncomplete`` when the time limit stops the run or batches keep failing.

    >>> summary = solve_dataset(["data/sample.csv"], "output", load_settings())  # doctest: +SKIP
    >>> summary["rows"]                                                          # doctest: +SKIP
    {'in': 300, 'out': 300}
    """
    started = time.perf_counter()
    sources = [
        inspect_input(
            path,
            column=settings.column,
            solution_column=settings.solution_column,
            reserved=RESULT_COLUMNS,
        )
        for path in find_inputs(inputs)
    ]
    output = storage.location(output)
    _check_not_inside(sources, output)
    input_schema = _unified_schema(sources)
    digests = [file_digest(source.path) for source in sources]
    run = {
        "version": __version__,
        "versions": versions(),
        "code": code_digest(),
        "settings": settings.to_dict(),
        "inputs": [
            {"path": s.path, "format": s.format, "bytes": s.size, "sha256": digest}
            for s, (digest, _) in zip(sources, digests, strict=True)
        ],
    }
    out = open_output(output, run, overwrite=settings.overwrite, batch_size=settings.batch_size)
    try:
        if out.resumed and (finished := _finished_summary(out, settings.batch_size)):
            return finished  # nothing left to do
        storage.delete(out.path(SUMMARY_FILE))  # written again at the end
        estimate = _row_estimate(sources, [lines for _, lines in digests])
        return _solve(sources, input_schema, out, settings, started=started, estimate=estimate,
                      progress=progress)
    finally:
        out.close()


def _solve(
    sources: list[InputFile],
    input_schema: pa.Schema,
    out: Output,
    settings: Settings,
    *,
    started: float,
    estimate: int | None,
    progress: bool | None,
) -> dict[str, Any]:
    """Stream the batches that are not done yet to the engine; write the summary."""
    directory, run = out.directory, out.run
    schema = output_schema(input_schema, run_metadata(run))
    _warm_up_solver(settings)
    deadline = started + settings.time_limit if settings.time_limit else None

    rows_read = [0] * len(sources)
    batch_rows: dict[tuple[int, int], int] = {}  # rows of each unit dispatched
    all_stats: list[dict[str, Any]] = []
    kept = {"rows": 0, "stopped": False}
    show = (not settings.quiet and sys.stderr.isatty()) if progress is None else progress
    bar = _progress_bar(estimate, show)

    def units() -> Iterator[Unit]:
        for file_index, source in enumerate(sources):
            for batch_index, batch in enumerate(read_batches(source, settings.batch_size)):
                key, row_offset = (file_index, batch_index), rows_read[file_index]
                rows_read[file_index] += batch.num_rows
                finished = out.done.pop(key, None)
                if finished is not None and finished[0]["rows"] == batch.num_rows:
                    all_stats.append(finished[1])
                    kept["rows"] += batch.num_rows
                    bar.update(batch.num_rows)
                    continue
                if deadline is not None and time.perf_counter() > deadline:
                    kept["stopped"] = True  # the time limit: no new batches
                    return
                batch_rows[key] = batch.num_rows
                yield Unit(
                    batch=_to_ipc(batch),
                    source=source.path,
                    file_index=file_index,
                    batch_index=batch_index,
                    row_offset=row_offset,
                    puzzle_column=source.puzzle_column,
                    solution_column=source.solution_column,
                    schema=schema,
                    options=settings.solver_options(),
                    compression=settings.compression,
                    part_path=out.path(part_name(file_index, batch_index)),
                )
        bar.total = sum(rows_read)  # the estimate becomes exact once everything is read
        bar.refresh()

    def on_result(stats: dict[str, Any]) -> None:
        all_stats.append(stats)
        bar.update(stats["rows"])

    try:
        failures = run_units(
            solve_part,
            units(),
            workers=settings.workers,
            on_result=on_result,
            engine=settings.engine,
            scheduler=settings.scheduler,
        )
    finally:
        bar.close()
    merged = merge_stats(all_stats)
    if kept["stopped"]:
        raise RunIncomplete(
            f"time limit of {settings.time_limit:g} s reached; {merged['rows']:,} rows are solved "
            f"and kept in {directory}; rerun the same command to continue"
        )
    for (file_index, batch_index), _ in out.done.items():  # parts of batches that no longer exist
        storage.delete(out.path(part_name(file_index, batch_index)))
    missing = [_missing_rows(failure, batch_rows) for failure in failures]
    if merged["rows"] != sum(rows_read) - sum(entry["rows"] for entry in missing):
        raise PipelineError(
            f"internal error: {sum(rows_read)} rows read but {merged['rows']} written; "
            "please report this"
        )
    inputs_summary = [
        {**entry, "rows": rows} for entry, rows in zip(run["inputs"], rows_read, strict=True)
    ]
    summary = build_summary(
        merged,
        rows_in=sum(rows_read),
        run=run,
        inputs=inputs_summary,
        output=directory,
        wall_seconds=time.perf_counter() - started,
        rows_kept=kept["rows"],
        missing=missing,
    )
    write_summary(directory, summary)
    if missing:
        raise RunIncomplete(_missing_message(missing, directory), summary)
    return summary


def _missing_rows(failure: Failure, batch_rows: dict[tuple[int, int], int]) -> dict[str, Any]:
    """The rows of a unit given up, for the summary and the message."""
    unit = failure.unit
    rows = batch_rows[unit.file_index, unit.batch_index]
    return {
        "source": unit.source,
        "first_row": unit.row_offset,
        "last_row": unit.row_offset + rows - 1,
        "rows": rows,
        "reason": f"{failure.reason} ({failure.attempts} attempts)",
    }


def _missing_message(missing: list[dict[str, Any]], directory: str) -> str:
    """One line: which rows are missing, why, and how to get them."""
    shown = "; ".join(
        f"rows {m['first_row']}-{m['last_row']} of {m['source']}: {m['reason']}" for m in missing[:3]
    )
    more = f"; and {len(missing) - 3} more batches (see summary.json)" if len(missing) > 3 else ""
    rows = sum(m["rows"] for m in missing)
    return (
        f"{rows:,} rows are missing from {directory}, in {len(missing)} batch(es) that kept "
        f"failing ({shown}{more}); every other row is written, with summary.json; rerun the "
        "same command to retry the missing rows (with fewer --workers if memory ran out)"
    )


def _finished_summary(out: Output, batch_size: int) -> dict[str, Any] | None:
    """The summary of the run in ``out`` when it is complete (every part done and a
    summary.json saying nothing is missing), else None."""
    try:
        summary = json.loads(storage.read_bytes(out.path(SUMMARY_FILE)))
        rows = [entry["rows"] for entry in summary["inputs"]]
        complete = (
            not summary.get("missing_rows")
            and summary["rows"]["in"] == summary["rows"]["out"] == sum(rows)
            and len(rows) == len(out.run["inputs"])
        )
    except (OSError, ValueError, KeyError, TypeError, PipelineError):
        return None
    expected = {
        (file_index, batch_index)
        for file_index, count in enumerate(rows)
        for batch_index in range(-(-count // batch_size))
    }
    return summary if complete and set(out.done) == expected else None


def versions() -> dict[str, str]:
    """Versions of this package and of the libraries that shape its output."""
    from importlib.metadata import version

    return {
        "sudoku_pipeline": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
        "numba": version("numba"),
    }


def code_digest() -> str:
    """The SHA-256 of the source of the modules that decide what a row holds (the solver,
    the readers, the unit of work): a run is continued only by the same code, even when a
    developer changed it without changing the version."""
    import solver

    digest = hashlib.sha256()
    modules = sorted(Path(solver.__file__).parent.glob("*.py"))
    modules += [Path(__file__).with_name(name) for name in ("read.py", "work.py")]
    for module in modules:
        digest.update(module.name.encode() + b"\0" + module.read_bytes())
    return digest.hexdigest()


def _check_not_inside(sources: list[InputFile], output: str) -> None:
    """Refuse inputs inside the output directory: preparing it could delete them."""
    directory = storage.canonical(output).rstrip("/") + "/"
    for source in sources:
        if storage.canonical(source.path).startswith(directory):
            raise PipelineError(
                f"input {source.path} is inside the output directory {output}; choose another --output"
            )


def _unified_schema(sources: list[InputFile]) -> pa.Schema:
    """One schema for every part: the input columns of all files, in order of first
    appearance, so that one glob reads the whole output."""
    fields: dict[str, pa.Field] = {}
    first_seen: dict[str, str] = {}
    for source in sources:
        for field in source.schema:
            known = fields.get(field.name)
            if known is None:
                fields[field.name] = field
                first_seen[field.name] = source.path
            elif known.type != field.type:
                raise PipelineError(
                    f"column {field.name!r} is {known.type} in {first_seen[field.name]} but "
                    f"{field.type} in {source.path}; run them separately or make the types agree"
                )
    return pa.schema(list(fields.values()))


def _row_estimate(sources: list[InputFile], newlines: list[int]) -> int | None:
    """Rows to expect, for the progress bar: exact for Parquet, line breaks for text."""
    total = 0
    for source, lines in zip(sources, newlines, strict=True):
        if source.rows is not None:
            total += source.rows
        elif source.path.lower().endswith(".gz"):
            return None
        else:
            total += max(lines - (source.format == "csv"), 1)
    return total


def _progress_bar(total: int | None, show: bool):
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit=" puzzles",
        unit_scale=True,
        desc="solving",
        disable=not show,
        file=sys.stderr,
        smoothing=0.1,
        dynamic_ncols=True,
    )


def _warm_up_solver(settings: Settings) -> None:
    """Load the compiled solver once here, so forked workers inherit it."""
    import solver

    grid = np.frombuffer(WARM_UP.encode(), dtype=np.uint8).reshape(1, 81)
    solver.solve_ascii(grid, **settings.solver_options())
