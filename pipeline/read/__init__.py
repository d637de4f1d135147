"""Finding, inspecting and reading the input files, in batches of Arrow record batches.

One reader per format (``Reader``: ``csv_files``, ``parquet_files``, ``text_files``), chosen
by the file's name in ``reader_of``, the one place that does: ``.csv`` and ``.tsv`` (a header
row; every column read as text, exactly as written), ``.parquet`` (columns keep their types)
and ``.txt`` (one puzzle per line, ``#`` comments; the column is called ``puzzle``), each but
Parquet also gzipped (``.gz``). Reading never guesses types: an all-digit puzzle column such as
Kaggle's stays a string. An input is a local path or an fsspec URL (``pipeline.storage``).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence

import pyarrow as pa

from pipeline import storage
from pipeline.errors import PipelineError, one_line
from pipeline.read.csv_files import CsvReader
from pipeline.read.inputs import (
    READ_BYTES,
    InputChanged,
    InputFile,
    Layout,
    Reader,
    as_schema,
    change_seen,
    column_layout,
    conform,
    rebatch,
)
from pipeline.read.parquet_files import (
    ParquetReader,
    aligned_batch_rows,
    read_rows,
    row_group_rows,
    worker_ranges,
)
from pipeline.read.text_files import TextReader
from pipeline.text import escaped

__all__ = ["InputChanged", "InputFile", "Layout", "batch_rows_for", "column_layout", "conform",
           "estimated_rows", "file_digest", "find_inputs", "inspect_input", "read_batches",
           "read_range", "reader_of", "rebatch", "worker_batches"]

READERS: tuple[Reader, ...] = (CsvReader(), ParquetReader(), TextReader())
SUFFIXES = tuple(suffix for reader in READERS for suffix in reader.suffixes)
SUFFIXES_TEXT = ", ".join(SUFFIXES[:-1]) + " or " + SUFFIXES[-1]
SKIPPED_SHOWN = 5  # entries of an input directory named in the warning that it skipped them
log = logging.getLogger("pipeline")


def reader_of(path: str) -> Reader | None:
    """The reader of ``path`` by its name (its longest matching suffix), or None."""
    name = storage.basename(path).lower()
    return max((reader for reader in READERS if name.endswith(reader.suffixes)),
               key=lambda reader: max(len(s) for s in reader.suffixes if name.endswith(s)),
               default=None)


def find_inputs(paths: Sequence[str | os.PathLike]) -> list[str]:
    """The input files named by ``paths``, in order; a directory gives its supported files,
    sorted by name (the other entries in it, and hidden ones, are skipped with a warning
    naming them)."""
    if not paths:
        raise PipelineError("no input given; name one or more files or directories")
    found: list[str] = []
    for given in paths:
        path = storage.location(given)
        what = storage.kind(path)
        if what == "directory":
            found.extend(_directory_inputs(path))
        elif what == "file":
            if reader_of(path) is None:
                raise PipelineError(
                    f"unknown input format: {escaped(path)} (expected a {SUFFIXES_TEXT} file; "
                    "rename it if it is one of those)"
                )
            found.append(path)
        elif what is not None:
            raise PipelineError(f"input is not a regular file: {escaped(path)}")
        else:
            raise PipelineError(f"input not found: {escaped(path)} (check the path)")
    seen: dict[str, str] = {}
    for path in found:
        key = storage.canonical(path)
        if key in seen:
            raise PipelineError(
                f"input {escaped(path)} is given twice (directly or through a directory); name "
                "it once"
            )
        seen[key] = path
    return found


def inspect_input(
    path: str | os.PathLike,
    *,
    column: str = "",
    solution_column: str = "",
    delimiter: str = "",
    casts: dict[str, str] | None = None,
    reserved: Iterable[str] = (),
    leave_out: Iterable[str] = (),
) -> InputFile:
    """Read the header (CSV), metadata (Parquet) or first lines (txt) of ``path``.

    ``column`` / ``solution_column`` name the puzzle and published-solution columns
    ("" means: find them by name); ``delimiter`` separates a CSV file's fields ("" means: by
    its name); ``casts`` ({column: type name}) are columns to read as another type;
    ``reserved`` are output column names: an input column with one of those names
    is passed through as ``input_<name>``, unless it is one of ``leave_out``, which are not
    read at all (Parquet only: the result columns of a run's parts read as an input). Every
    column of the output must have its own name, so duplicated names are refused here.
    """
    path = storage.location(path)
    reader = reader_of(path)
    stamp = storage.stamp(path)  # first: a change while inspecting is seen when reading
    if stamp.size == 0:
        raise PipelineError(f"input file is empty: {escaped(path)} (remove it from the inputs)")
    delimiter = delimiter or reader.default_delimiter(path)
    schema, rows = reader.inspect(path, delimiter)
    left_out = set(leave_out) & set(schema.names)
    read = None
    if left_out:
        schema = pa.schema([field for field in schema if field.name not in left_out])
        read = tuple(schema.names)
    layout = column_layout(path, schema, puzzle_column=reader.fixed_puzzle_column(),
                           column=column, solution_column=solution_column, casts=casts,
                           reserved=reserved)
    return InputFile(path, reader.name, layout.schema, layout.puzzle, layout.solution,
                     layout.renames, stamp.size, rows, stamp, delimiter, read)


def read_batches(
    source: InputFile, batch_size: int, *, expected_sha256: str | None = None
) -> Iterator[pa.Table]:
    """The rows of ``source`` in input order, as tables of exactly ``batch_size`` rows
    (the last one may be shorter), with columns named and typed as ``source.schema``.

    Reading checks that the file is the one the run planned, and raises ``InputChanged``
    when it is not: a text or CSV file is read once as a stream, and its bytes, hashed on
    the way, must be ``source.size`` bytes with the SHA-256 ``expected_sha256`` (when given;
    else its modification time must be as inspected); a Parquet file, read in place, must
    keep its size, modification time and identity (for a URL, its ETag or time).
    """
    batches = reader_of(source.path).batches(source, batch_size, expected_sha256)
    batches = (as_schema(batch, source.schema) for batch in batches)
    yield from rebatch(_read_errors_as_pipeline_errors(source, batches), batch_size)


def worker_batches(source: InputFile, batch_rows: int) -> list[tuple[int, int]] | None:
    """The batches of ``source``, ``batch_rows`` rows each, as (first row, rows), for workers
    that read their own rows (``read_range``); None when this process must read them
    (``read_batches``): a text or CSV file is one stream, and a Parquet file whose row groups
    are large against the batches would be decoded many times over."""
    if source.format != ParquetReader.name:
        return None
    with _reading(source):
        return worker_ranges(row_group_rows(source), batch_rows)


def read_range(source: InputFile, first: int, rows: int) -> pa.Table:
    """Rows ``first`` .. ``first + rows - 1`` of ``source`` (a batch of ``worker_batches``),
    with columns named and typed as ``source.schema``; checked as ``read_batches`` checks."""
    with _reading(source):
        return conform(read_rows(source, first, rows), source.schema)


def batch_rows_for(source: InputFile, rows: int) -> int:
    """``rows`` per batch, or near it where the file's layout makes another number better:
    whole row groups of a Parquet file (see ``aligned_batch_rows``)."""
    if source.format != ParquetReader.name:
        return rows
    with _reading(source):
        return aligned_batch_rows(row_group_rows(source), rows)


def estimated_rows(source: InputFile, newlines: int) -> int | None:
    """Rows to expect of ``source``, for the progress bar (None when it cannot tell)."""
    return reader_of(source.path).estimated_rows(source, newlines)


def file_digest(path: str | os.PathLike, *, count_lines: bool = True) -> tuple[str, int]:
    """The SHA-256 of a file's bytes, and the number of line breaks in it (an estimate of
    its rows for progress reporting; 0 unless ``count_lines``: a Parquet file says its rows)."""
    path = storage.location(path)
    digest = hashlib.sha256()
    newlines = 0
    try:
        with storage.open_read(path) as file:
            while chunk := file.read(READ_BYTES):
                digest.update(chunk)
                if count_lines:
                    newlines += chunk.count(b"\n")
    except OSError as err:
        raise PipelineError(f"cannot read {escaped(path)}: {err.strerror or err}") from None
    return digest.hexdigest(), newlines


def _read_errors_as_pipeline_errors(
    source: InputFile, batches: Iterator[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """``batches``, read as ``_reading`` says."""
    with _reading(source):
        yield from batches


@contextlib.contextmanager
def _reading(source: InputFile) -> Iterator[None]:
    """Reading ``source``, with failures turned into one-line PipelineErrors; a failure of a
    file that changed since it was inspected is ``InputChanged``: that is its cause."""
    try:
        yield
    except (InputChanged, MemoryError):  # out of memory is this process's, not the file's
        raise
    except (PipelineError, pa.ArrowException, OSError, EOFError, zlib.error, UnicodeDecodeError) as err:
        how = change_seen(source)
        if how:
            raise InputChanged(source.path, how) from None
        if isinstance(err, PipelineError):
            raise
        raise PipelineError(
            f"cannot read {escaped(source.path)}: {one_line(err)} (is the file complete, and in "
            "the format its name says?)"
        ) from None


def _directory_inputs(directory: str) -> list[str]:
    """The supported files of ``directory``, sorted by name; a warning names the entries
    skipped (other files, hidden ones, subdirectories, bad symbolic links)."""
    entries = storage.listing(directory)
    inputs = [entry for entry in entries if _is_input(entry)]
    skipped = [entry for entry in entries if not _is_input(entry)]
    if not inputs:  # one line: what is there is named in the error
        there = f" (it holds: {_names_of(skipped)})" if skipped else ""
        raise PipelineError(
            f"directory {escaped(directory)} holds no {SUFFIXES_TEXT} files{there}; name the "
            "input files directly"
        )
    if skipped:
        log.warning("input directory %s: skipped %d entries that are not %s files: %s",
                    escaped(directory), len(skipped), SUFFIXES_TEXT, _names_of(skipped))
    return [storage.join(directory, entry.name) for entry in inputs]


def _is_input(entry: storage.Entry) -> bool:
    return entry.is_file and not entry.name.startswith(".") and reader_of(entry.name) is not None


def _names_of(skipped: list[storage.Entry]) -> str:
    """The first few entries skipped, the bad ones first, each with why where it is not plain."""
    def described(entry: storage.Entry) -> str:
        why = entry.problem or ("hidden" if entry.name.startswith(".") else "")
        why = why or ("" if entry.is_file else "not a file")
        return f"{escaped(entry.name)} ({why})" if why else escaped(entry.name)

    ordered = sorted(skipped, key=lambda entry: not entry.problem)
    shown = ", ".join(described(entry) for entry in ordered[:SKIPPED_SHOWN])
    more = len(skipped) - SKIPPED_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown
