"""A whole run: inputs in, an output directory of Parquet parts and summary.json out.

Order of events: find and inspect every input (headers and metadata only) and hash it,
so a bad input fails before anything is written; prepare the output directory and write
``manifest.json`` (settings and input hashes); stream the inputs in batches to the
workers, each writing one part; merge the parts' stats into ``summary.json``.
"""

from __future__ import annotations

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

from pipeline import __version__
from pipeline.errors import PipelineError
from pipeline.pool import run_units
from pipeline.read import InputFile, file_digest, find_inputs, inspect_input, read_batches
from pipeline.settings import Settings
from pipeline.summary import (
    PART_GLOB,
    SUMMARY_FILE,
    build_summary,
    merge_stats,
    write_summary,
)
from pipeline.work import RESULT_COLUMNS, Unit, output_schema, part_name, run_metadata, solve_part
from pipeline.work import to_ipc as _to_ipc

MANIFEST_FILE = "manifest.json"
# An easy puzzle (Project Euler 96, grid 01) to load the compiled solver before forking.
WARM_UP = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."


def solve_dataset(
    inputs: Sequence[str | Path],
    output: str | Path,
    settings: Settings,
    *,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Solve every puzzle of ``inputs`` into Parquet parts in ``output``; return the summary.

    ``progress``: show a progress bar on stderr (default: when stderr is a terminal and
    ``settings.quiet`` is false). Raises ``PipelineError`` for every expected failure.

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
    _check_not_inside(sources, Path(output))
    input_schema = _unified_schema(sources)
    digests = [file_digest(source.path) for source in sources]
    directory = prepare_output(Path(output), overwrite=settings.overwrite)
    run = {
        "version": __version__,
        "versions": versions(),
        "settings": settings.to_dict(),
        "inputs": [
            {"path": s.path, "format": s.format, "bytes": s.size, "sha256": digest}
            for s, (digest, _) in zip(sources, digests, strict=True)
        ],
    }
    _write_json(directory / MANIFEST_FILE, run)
    schema = output_schema(input_schema, run_metadata(run))
    _warm_up_solver(settings)

    rows_read = [0] * len(sources)
    all_stats: list[dict[str, Any]] = []
    show = (not settings.quiet and sys.stderr.isatty()) if progress is None else progress
    estimate = _row_estimate(sources, [lines for _, lines in digests])
    bar = _progress_bar(estimate, show)

    def units() -> Iterator[Unit]:
        for file_index, source in enumerate(sources):
            for batch_index, batch in enumerate(read_batches(source, settings.batch_size)):
                yield Unit(
                    batch=_to_ipc(batch),
                    source=source.path,
                    file_index=file_index,
                    batch_index=batch_index,
                    row_offset=rows_read[file_index],
                    puzzle_column=source.puzzle_column,
                    solution_column=source.solution_column,
                    schema=schema,
                    options=settings.solver_options(),
                    compression=settings.compression,
                    part_path=str(directory / part_name(file_index, batch_index)),
                )
                rows_read[file_index] += batch.num_rows
        bar.total = sum(rows_read)  # the estimate becomes exact once everything is read
        bar.refresh()

    def on_result(stats: dict[str, Any]) -> None:
        all_stats.append(stats)
        bar.update(stats["rows"])

    try:
        run_units(
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
    if merged["rows"] != sum(rows_read):
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
        output=str(directory),
        wall_seconds=time.perf_counter() - started,
    )
    write_summary(directory, summary)
    return summary


def prepare_output(directory: Path, *, overwrite: bool) -> Path:
    """Create ``directory``, or empty it of a previous run when ``overwrite`` is set.

    Only files this program writes are ever deleted; a directory holding anything else
    is refused, so a mistyped ``--output`` cannot wipe unrelated files.
    """
    if directory.exists() and not directory.is_dir():
        raise PipelineError(f"output {directory} exists and is not a directory; choose another")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        entries = list(directory.iterdir())
    except OSError as err:
        raise PipelineError(
            f"cannot create output directory {directory}: {err.strerror or err}"
        ) from None
    if not entries:
        return directory
    foreign = [entry.name for entry in entries if not _ours(entry)]
    if foreign:
        raise PipelineError(
            f"output directory {directory} holds files sudoku-pipeline did not write "
            f"(e.g. {sorted(foreign)[0]}); choose a new or empty directory with --output"
        )
    if not overwrite:
        raise PipelineError(
            f"output directory {directory} already holds a run; add --overwrite to replace "
            "it, or choose another directory with --output"
        )
    try:
        for entry in entries:
            entry.unlink()
    except OSError as err:
        raise PipelineError(f"cannot clear {directory}: {err.strerror or err}") from None
    return directory


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


def _ours(entry: Path) -> bool:
    """Whether ``entry`` is a file that sudoku-pipeline writes into an output directory."""
    name = entry.name
    return entry.is_file() and (
        entry.match(PART_GLOB)
        or name in (MANIFEST_FILE, SUMMARY_FILE)
        or (name.startswith(".") and name.endswith(".tmp"))
    )


def _check_not_inside(sources: list[InputFile], output: Path) -> None:
    """Refuse inputs inside the output directory: preparing it could delete them."""
    directory = output.resolve()
    for source in sources:
        if directory in Path(source.path).resolve().parents:
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


def _write_json(path: Path, payload: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
        os.replace(temporary, path)
    except OSError as err:
        temporary.unlink(missing_ok=True)
        raise PipelineError(f"cannot write {path}: {err.strerror or err}") from None
