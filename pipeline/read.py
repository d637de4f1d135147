"""Finding, inspecting and reading the input files, in batches of Arrow record batches.

Formats (by file name): ``.csv`` and ``.csv.gz`` (a header row; every column is read as
text, exactly as written), ``.parquet`` (columns keep their types) and ``.txt`` (one
puzzle per line, lines starting with ``#`` are comments; the column is called ``puzzle``).
Reading never guesses types: an all-digit puzzle column such as Kaggle's stays a string.
An input is a local path or an fsspec URL (``s3://bucket/puzzles.csv``, see ``pipeline.storage``).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import hashlib
import io
import logging
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO, TextIO

import numpy as np
import pyarrow as pa

from pipeline import storage
from pipeline.errors import PipelineError, one_line

PUZZLE_NAMES = ("puzzle", "puzzles", "quizzes", "quiz", "grid", "sudoku", "board")
SOLUTION_NAMES = ("solution", "solutions")
SUFFIXES = {".csv": "csv", ".csv.gz": "csv", ".parquet": "parquet", ".txt": "txt"}
TXT_COLUMN = "puzzle"
TEXT_TYPES = (pa.string(), pa.large_string(), pa.string_view())
BLOCK_BYTES = 1 << 24  # read text files 16 MiB at a time
READ_BYTES = 1 << 22  # what is left of a file after its reader ends is hashed 4 MiB at a time
UTF8_BOM = b"\xef\xbb\xbf"
UTF8_BOM_AS_LATIN1 = UTF8_BOM.decode("latin-1")
CSV_BLOCK_BYTES = 1 << 22  # the Arrow reader's blocks: a record may straddle one boundary, not two
CSV_RECORD_CHARACTERS = 2 * CSV_BLOCK_BYTES  # so the header check reads fields up to this long
DELIMITERS = {";": "semicolon", "\t": "tab", "|": "vertical bar"}
SKIPPED_SHOWN = 5  # entries of an input directory named in the warning that it skipped them
log = logging.getLogger("pipeline")


class InputChanged(PipelineError):
    """An input that changed while this run read it: the rows read from it may mix two
    versions of the file, or miss some, so none of them can be kept. ``path`` names it."""

    def __init__(self, path: str, how: str):
        super().__init__(
            f"input {path} changed during the run ({how}); the rows this run read from it "
            "cannot be trusted: restore the file and rerun the same command, or start again "
            "with --overwrite"
        )
        self.path = path


@dataclass(frozen=True)
class InputFile:
    """One input file, inspected (its header or metadata read) but not yet read.

    ``schema`` holds the columns as they will be passed through (already renamed where
    they clashed with an output column, see ``renames``; a dictionary-encoded puzzle or
    solution column as its text); ``puzzle_column`` and ``solution_column`` are names in
    it; ``rows`` is known up front only for Parquet; ``stamp`` is the file as inspected
    (size, modification time...), against which reading checks that it did not change.
    """

    path: str
    format: str  # "csv", "parquet" or "txt"
    schema: pa.Schema
    puzzle_column: str
    solution_column: str | None
    renames: dict[str, str]
    size: int
    rows: int | None
    stamp: storage.Stamp


def format_of(path: str) -> str | None:
    """The input format of ``path`` by its name (``csv``, ``parquet``, ``txt``), or None."""
    name = storage.basename(path).lower()
    for suffix, kind in SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    return None


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
            if format_of(path) is None:
                raise PipelineError(
                    f"unknown input format: {path} (expected a .csv, .csv.gz, .parquet or "
                    ".txt file; rename it if it is one of those)"
                )
            found.append(path)
        elif what is not None:
            raise PipelineError(f"input is not a regular file: {path}")
        else:
            raise PipelineError(f"input not found: {path} (check the path)")
    seen: dict[str, str] = {}
    for path in found:
        key = storage.canonical(path)
        if key in seen:
            raise PipelineError(
                f"input {path} is given twice (directly or through a directory); name it once"
            )
        seen[key] = path
    return found


def inspect_input(
    path: str | os.PathLike,
    *,
    column: str = "",
    solution_column: str = "",
    reserved: Iterable[str] = (),
) -> InputFile:
    """Read the header (CSV), metadata (Parquet) or first lines (txt) of ``path``.

    ``column`` / ``solution_column`` name the puzzle and published-solution columns
    ("" means: find them by name); ``reserved`` are output column names: an input column
    with one of those names is passed through as ``input_<name>``. Every column of the
    output must have its own name, so duplicated names are refused here.
    """
    path = storage.location(path)
    kind = format_of(path)
    stamp = storage.stamp(path)  # first: a change while inspecting is seen when reading
    if stamp.size == 0:
        raise PipelineError(f"input file is empty: {path} (remove it from the inputs)")
    schema, rows = _schema_and_rows(path, kind)
    layout = column_layout(path, schema, kind=kind, column=column, solution_column=solution_column,
                            reserved=reserved)
    return InputFile(path, kind, layout.schema, layout.puzzle, layout.solution, layout.renames,
                     stamp.size, rows, stamp)


@dataclass(frozen=True)
class Layout:
    """The columns of an input as they are passed through: ``schema`` (renamed where they clash
    with output columns, see ``renames``; dictionary-encoded puzzles and solutions as text),
    and the names in it of the puzzle and published-solution columns."""

    schema: pa.Schema
    puzzle: str
    solution: str | None
    renames: dict[str, str]


def column_layout(
    where: str,
    schema: pa.Schema,
    *,
    kind: str = "parquet",
    column: str = "",
    solution_column: str = "",
    reserved: Iterable[str] = (),
) -> Layout:
    """How the columns ``schema`` of an input (a file, or a frame, named ``where`` in messages)
    are passed through, checked: unique names, a puzzle column of text, no clash after renames."""
    _check_unique_names(where, schema.names)
    puzzle, solution = _puzzle_and_solution(where, kind, schema, column, solution_column)
    schema = _as_text(schema, [puzzle, solution])
    renames = _renames(where, schema.names, set(reserved))
    if renames:
        schema = pa.schema([field.with_name(renames.get(field.name, field.name)) for field in schema])
    solution = renames.get(solution, solution) if solution else None
    return Layout(schema, renames.get(puzzle, puzzle), solution, renames)


def conform(table: pa.Table, layout: Layout) -> pa.Table:
    """``table`` (with the columns ``column_layout`` was given) as ``layout.schema`` has them."""
    batches = [_as_schema(batch, layout.schema) for batch in table.to_batches()]
    return pa.Table.from_batches(batches, schema=layout.schema)


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
    if source.format == "parquet":
        batches = _parquet_batches(source, batch_size)
    else:
        batches = _stream_batches(source, expected_sha256)
    batches = (_as_schema(batch, source.schema) for batch in batches)
    yield from rebatch(_read_errors_as_pipeline_errors(source, batches), batch_size)


def rebatch(batches: Iterable[pa.RecordBatch], size: int) -> Iterator[pa.Table]:
    """Cut a stream of record batches into tables of exactly ``size`` rows (the last
    may be shorter), so that batch boundaries never depend on how a reader chunks."""
    pending: list[pa.RecordBatch] = []
    pending_rows = 0
    for batch in batches:
        while batch.num_rows:
            take = min(size - pending_rows, batch.num_rows)
            pending.append(batch.slice(0, take))
            pending_rows += take
            batch = batch.slice(take)
            if pending_rows == size:
                yield pa.Table.from_batches(pending)
                pending, pending_rows = [], 0
    if pending_rows:
        yield pa.Table.from_batches(pending)


def file_digest(path: str | os.PathLike) -> tuple[str, int]:
    """The SHA-256 of a file's bytes, and the number of line breaks in it (an estimate of
    its rows for progress reporting)."""
    path = storage.location(path)
    digest = hashlib.sha256()
    newlines = 0
    try:
        with storage.open_read(path) as file:
            while chunk := file.read(READ_BYTES):
                digest.update(chunk)
                newlines += chunk.count(b"\n")
    except OSError as err:
        raise PipelineError(f"cannot read {path}: {err.strerror or err}") from None
    return digest.hexdigest(), newlines


# --- inspecting ----------------------------------------------------------------------------


def _directory_inputs(directory: str) -> list[str]:
    """The supported files of ``directory``, sorted by name; a warning names the entries
    skipped (other files, hidden ones, subdirectories, bad symbolic links)."""
    entries = storage.listing(directory)
    inputs = [entry for entry in entries if _is_input(entry)]
    skipped = [entry for entry in entries if not _is_input(entry)]
    if not inputs:  # one line: what is there is named in the error
        there = f" (it holds: {_names_of(skipped)})" if skipped else ""
        raise PipelineError(
            f"directory {directory} holds no .csv, .csv.gz, .parquet or .txt files{there}; "
            "name the input files directly"
        )
    if skipped:
        log.warning(
            "input directory %s: skipped %d entries that are not .csv, .csv.gz, .parquet or "
            ".txt files: %s", directory, len(skipped), _names_of(skipped)
        )
    return [storage.join(directory, entry.name) for entry in inputs]


def _is_input(entry: storage.Entry) -> bool:
    return entry.is_file and not entry.name.startswith(".") and format_of(entry.name) is not None


def _names_of(skipped: list[storage.Entry]) -> str:
    """The first few entries skipped, the bad ones first, each with why where it is not plain."""
    def described(entry: storage.Entry) -> str:
        why = entry.problem or ("hidden" if entry.name.startswith(".") else "")
        why = why or ("" if entry.is_file else "not a file")
        return f"{entry.name} ({why})" if why else entry.name

    ordered = sorted(skipped, key=lambda entry: not entry.problem)
    shown = ", ".join(described(entry) for entry in ordered[:SKIPPED_SHOWN])
    more = len(skipped) - SKIPPED_SHOWN
    return f"{shown} and {more} more" if more > 0 else shown


def _schema_and_rows(path: str, kind: str) -> tuple[pa.Schema, int | None]:
    """The columns of a file as read, and its rows when known up front (Parquet)."""
    if kind == "txt":
        _check_txt_has_rows(path)
        return pa.schema([(TXT_COLUMN, pa.string())]), None
    if kind == "csv":
        return pa.schema([(name, pa.string()) for name in _csv_header(path)]), None
    schema, rows = _parquet_schema(path)
    if rows == 0:
        raise PipelineError(f"input file has no rows: {path} (remove it from the inputs)")
    return schema, rows


def _check_unique_names(path: str, names: list[str]) -> None:
    """Refuse a file with two columns of one name (a CSV header, or a Parquet file, can
    hold them): neither could be told apart in the output."""
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise PipelineError(
            f"{path}: column {twice!r} appears twice; rename one (each column of the output "
            "needs a name of its own)"
        )


def _puzzle_and_solution(
    path: str, kind: str, schema: pa.Schema, column: str, solution_column: str
) -> tuple[str, str | None]:
    """The puzzle column and the published-solution column (or None), checked to hold text."""
    if kind == "txt":
        return TXT_COLUMN, None
    puzzle = _pick_column(path, schema, column, PUZZLE_NAMES, "puzzle", "--column")
    solution = _pick_column(
        path, schema, solution_column, SOLUTION_NAMES, "solution", "--solution-column"
    )
    if solution == puzzle:
        raise PipelineError(
            f"{path}: the puzzle and solution columns are the same ({puzzle!r}); "
            "name another one with --solution-column"
        )
    for name in (puzzle, solution):
        if name is not None and _text_type(schema.field(name).type) is None:
            raise PipelineError(
                f"{path}: column {name!r} holds {schema.field(name).type}, not text; "
                "puzzles and solutions must be strings (a numeric column has lost "
                "the leading zeros) - rewrite it as a string column"
            )
    return puzzle, solution


def _text_type(kind: pa.DataType) -> pa.DataType | None:
    """The text type a column of type ``kind`` is read as: itself, or for dictionary-encoded
    text (what polars writes for a Categorical column) its values' type; None if not text."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return kind if kind in TEXT_TYPES else None


def _as_text(schema: pa.Schema, names: list[str | None]) -> pa.Schema:
    """``schema`` with the columns ``names`` as plain text (a dictionary's field metadata,
    such as polars' Categorical marker, no longer applies)."""
    for name in filter(None, names):
        index = schema.get_field_index(name)
        field = schema.field(index)
        if pa.types.is_dictionary(field.type):
            plain = pa.field(name, _text_type(field.type), nullable=field.nullable)
            schema = schema.set(index, plain)
    return schema


def _renames(path: str, names: list[str], reserved: set[str]) -> dict[str, str]:
    """The input columns named as output columns, each renamed ``input_<name>``; refused
    when that name is taken too, as the output's names must all differ."""
    renames = {name: f"input_{name}" for name in names if name in reserved}
    for old, new in renames.items():
        if new in names or new in reserved:
            holder = "the file" if new in names else "the output"
            raise PipelineError(
                f"{path}: column {old!r} has the name of an output column, so it would be "
                f"passed through as {new!r}, but {holder} has a column {new!r} too; rename "
                "one of them"
            )
    return renames


def _pick_column(
    path: str, schema: pa.Schema, wanted: str, names: tuple[str, ...], what: str, option: str
) -> str | None:
    """The column called ``wanted`` (exact, else ignoring case), or when ``wanted`` is ""
    the first of ``names`` present, ignoring case; None for a solution column not found."""
    columns = schema.names
    if wanted:
        if wanted in columns:
            return wanted
        folded = [c for c in columns if c.lower() == wanted.lower()]
        if folded:
            return folded[0]
        raise PipelineError(
            f"{path} has no column {wanted!r} (its columns: {', '.join(columns)}); fix {option}"
        )
    by_lower: dict[str, str] = {}
    for c in columns:
        by_lower.setdefault(c.lower(), c)
    for name in names:
        if name in by_lower:
            return by_lower[name]
    if what == "solution":
        return None
    raise PipelineError(
        f"{path} has no puzzle column (its columns: {', '.join(columns) or 'none'}); "
        f"name it with {option} (looked for: {', '.join(names)})"
    )


# --- reading, and checking that the file did not change -------------------------------------


def _as_schema(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` with the names and types of ``schema``: renamed columns, and dictionary
    encoded text decoded."""
    if batch.schema.equals(schema, check_metadata=False):
        return batch
    columns = [
        column.dictionary_decode()
        if pa.types.is_dictionary(column.type) and not pa.types.is_dictionary(field.type)
        else column
        for column, field in zip(batch.columns, schema, strict=True)
    ]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _read_errors_as_pipeline_errors(
    source: InputFile, batches: Iterator[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """``batches``, with reading failures turned into one-line PipelineErrors; a failure
    of a file that changed since it was inspected is ``InputChanged``: that is its cause."""
    try:
        yield from batches
    except InputChanged:
        raise
    except (PipelineError, pa.ArrowException, OSError, EOFError, zlib.error, UnicodeDecodeError) as err:
        how = _change_seen(source)
        if how:
            raise InputChanged(source.path, how) from None
        if isinstance(err, PipelineError):
            raise
        raise PipelineError(
            f"cannot read {source.path}: {one_line(err)} (is the file complete, and in the "
            "format its name says?)"
        ) from None


def _change_seen(source: InputFile) -> str:
    """How ``source`` differs from when it was inspected, as far as its stamp tells
    (its size, modification time, identity), without reading it; "" when it looks the same."""
    try:
        now = storage.stamp(source.path)
    except PipelineError:
        return "it is no longer there, or no longer readable"
    if now.size != source.size:
        return f"it now has {now.size:,} bytes, it had {source.size:,}"
    if now != source.stamp:
        return "it was written again: its modification time or identity changed"
    return ""


def _check_unchanged(source: InputFile) -> None:
    how = _change_seen(source)
    if how:
        raise InputChanged(source.path, how)


class HashingReader:
    """A binary file read through, hashing (SHA-256) and counting the bytes as they pass,
    so that a file read as a stream is checked in the same pass that reads it."""

    def __init__(self, file: BinaryIO):
        self.file = file
        self.digest = hashlib.sha256()
        self.bytes_read = 0

    def read(self, size: int = -1) -> bytes:
        chunk = self.file.read(size)
        self.digest.update(chunk)
        self.bytes_read += len(chunk)
        return chunk

    def read_to_end(self) -> None:
        """Read what a reader left unread (after the data it wanted), so all is hashed."""
        while self.read(READ_BYTES):
            pass

    # What pyarrow's file wrapper asks of a stream.
    closed = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        """Nothing: the file belongs to whoever opened it (Arrow closes what it wraps)."""


def _stream_batches(source: InputFile, expected_sha256: str | None) -> Iterator[pa.RecordBatch]:
    """The record batches of a text or CSV file, read once from start to end, its bytes
    hashed on the way and checked at the end against what the run planned."""
    with storage.open_read(source.path) as file:
        reader = HashingReader(file)
        if source.format == "txt":
            yield from _txt_batches(source.path, reader)
        else:
            yield from _csv_batches(source.path, reader, source.schema)
        reader.read_to_end()
    if reader.bytes_read != source.size:
        raise InputChanged(
            source.path, f"{reader.bytes_read:,} bytes were read, it had {source.size:,}"
        )
    if expected_sha256 is None:
        _check_unchanged(source)
    elif reader.digest.hexdigest() != expected_sha256:
        raise InputChanged(source.path, "its content is not what it was: another SHA-256")


# --- CSV -------------------------------------------------------------------------------


def _gzipped(path: str) -> bool:
    return path.lower().endswith(".gz")


@contextlib.contextmanager
def _open_text(path: str, encoding: str = "utf-8-sig") -> Iterator[TextIO]:
    """``path`` opened as text (decompressed if it ends in .gz), line endings untouched."""
    with storage.open_read(path) as raw:
        binary = gzip.GzipFile(fileobj=raw) if _gzipped(path) else raw
        with io.TextIOWrapper(binary, encoding=encoding, newline="") as text:
            yield text


@contextlib.contextmanager
def _csv_fields_up_to(limit: int) -> Iterator[None]:
    """Let Python's csv module read fields of up to ``limit`` characters (128 KiB by
    default), as the Arrow reader does, so that the first record reads like the others."""
    previous = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _csv_header(path: str) -> list[str]:
    """The column names of a CSV file, checked to be usable, and that a data row follows."""
    try:
        with _open_text(path) as file, _csv_fields_up_to(CSV_RECORD_CHARACTERS):
            reader = csv.reader(file)
            header = next(reader, None)
            first = next((record for record in reader if record), None)
    except csv.Error as err:
        if "field limit" in str(err):
            raise _record_too_long(path) from None
        raise PipelineError(f"cannot read {path}: {one_line(err)}") from None
    except (OSError, EOFError, zlib.error) as err:
        raise PipelineError(f"cannot read {path}: {one_line(err)}") from None
    except UnicodeDecodeError:
        raise PipelineError(
            f"cannot read {path}: its first lines are not UTF-8 text (re-save it as UTF-8)"
        ) from None
    if not header or header == [""]:
        raise PipelineError(f"input file is empty: {path} (remove it from the inputs)")
    if len(header) == 1:
        for delimiter, name in DELIMITERS.items():
            if delimiter in header[0]:
                raise PipelineError(
                    f"{path}: the header has no comma but {name}s ({header[0][:60]!r}); CSV "
                    f"files must be comma-separated: re-save it with commas"
                )
    if first is None:
        raise PipelineError(f"input file has a header but no rows: {path} (remove it from the inputs)")
    return header


def _record_too_long(path: str) -> PipelineError:
    return PipelineError(
        f"cannot read {path}: a record is longer than the CSV reader takes (at least "
        f"{CSV_BLOCK_BYTES >> 20} MiB), far too long for a row of puzzles (a quote that is "
        "never closed?)"
    )


def _csv_batches(path: str, file: HashingReader, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """Stream a CSV file from ``file``, every column read as text exactly as written (no
    null values, no type inference), so nothing depends on how the file is chunked."""
    from pyarrow import csv as pacsv

    read_options = pacsv.ReadOptions(
        column_names=schema.names, skip_rows=1, block_size=CSV_BLOCK_BYTES, use_threads=False
    )
    convert_options = pacsv.ConvertOptions(
        column_types=dict(zip(schema.names, schema.types, strict=True)),
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    stream = pa.input_stream(file, compression="gzip" if _gzipped(path) else None)
    try:
        yield from pacsv.open_csv(stream, read_options=read_options, convert_options=convert_options)
    except pa.ArrowInvalid as err:
        if "straddling" not in str(err):
            raise
        raise _record_too_long(path) from None


# --- Parquet ---------------------------------------------------------------------------


def _parquet_schema(path: str) -> tuple[pa.Schema, int]:
    """The Arrow schema and row count of a Parquet file."""
    import pyarrow.parquet as pq

    try:
        with storage.arrow_source(path) as source:
            file = pq.ParquetFile(source)
            return file.schema_arrow.remove_metadata(), file.metadata.num_rows
    except (pa.ArrowException, OSError) as err:
        raise PipelineError(
            f"cannot read {path}: not a readable Parquet file ({one_line(err)})"
        ) from None


def _parquet_batches(source: InputFile, batch_size: int) -> Iterator[pa.RecordBatch]:
    """The record batches of a Parquet file, read in place, then checked not to have changed."""
    import pyarrow.parquet as pq

    # Not memory-mapped: a file rewritten under a mapping kills the process (SIGBUS), while a
    # read sees the change. Not pre-buffered: Arrow would keep every row group read so far
    # (1.3 GB of memory for 10 million Kaggle rows), where without it a row group at a time is
    # held. One thread: the workers need the cores, and Arrow's thread pool only adds system
    # time.
    with (storage.arrow_source(source.path) as where,
          pq.ParquetFile(where, pre_buffer=False) as file):
        for batch in file.iter_batches(batch_size=batch_size, use_threads=False):
            yield batch.replace_schema_metadata(None)
    _check_unchanged(source)


# --- txt -------------------------------------------------------------------------------


def _check_txt_has_rows(path: str) -> None:
    """Fail early when a text file holds nothing but comment lines."""
    # Latin-1 maps every byte to one character, so any bytes are read (their UTF-8 is
    # checked with the rows); reading with newline="" splits at any line ending and keeps it.
    with _open_text(path, encoding="latin-1") as file:
        for number, line in enumerate(file):
            if number == 0:
                line = line.removeprefix(UTF8_BOM_AS_LATIN1)  # "" for a file of just a BOM
            if line and not line.startswith("#"):
                return
    raise PipelineError(
        f"input file has only comment lines (or nothing): {path} (remove it from the inputs)"
    )


def _txt_batches(path: str, file: HashingReader) -> Iterator[pa.RecordBatch]:
    """Stream a text file, one puzzle per line, as record batches of one string column.

    A line ends at ``\\n``, ``\\r\\n`` or ``\\r``; the line ending is all that is removed.
    Lines starting with ``#`` are comments, not rows; an empty line is a row (an empty,
    hence invalid, puzzle); a final line ending does not start another row; a UTF-8
    byte-order mark at the start is skipped. Lines are
    split with numpy, not a Python loop.
    """
    start = file.read(len(UTF8_BOM))
    carry = b"" if start == UTF8_BOM else start  # a UTF-8 byte-order mark is not text
    first_line = 0
    while True:
        block = file.read(BLOCK_BYTES)
        data = carry + block
        if not block:
            if data:  # the last lines (a final '\r' becomes '\r\n')
                ended = data if data.endswith(b"\n") else data + b"\n"
                yield _txt_lines(path, ended, first_line)[0]
            return
        # Hold back a final '\r': it may be the first half of a '\r\n' in the next block.
        end = len(data) - 1 if data.endswith(b"\r") else len(data)
        cut = max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end)) + 1
        carry = data[cut:]
        if cut:
            batch, lines = _txt_lines(path, data[:cut], first_line)
            first_line += lines
            if batch.num_rows:
                yield batch


def _txt_lines(path: str, data: bytes, first_line: int) -> tuple[pa.RecordBatch, int]:
    """The non-comment lines of ``data`` (whole lines, each ending in a line break) as a
    record batch, and the number of lines read."""
    raw = np.frombuffer(data, dtype=np.uint8)
    cr = raw == 13
    if cr.any():
        lf_follows = np.zeros_like(cr)
        lf_follows[:-1] = raw[1:] == 10
        raw = raw[~(cr & lf_follows)].copy()
        raw[raw == 13] = 10
    ends = np.flatnonzero(raw == 10)
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    lengths = ends - starts
    comment = np.zeros(len(ends), dtype=bool)
    nonempty = lengths > 0
    comment[nonempty] = raw[starts[nonempty]] == ord("#")
    kept = ~comment
    keep_bytes = np.repeat(kept, lengths + 1)
    keep_bytes[ends] = False
    offsets = np.zeros(int(kept.sum()) + 1, dtype=np.int64)
    np.cumsum(lengths[kept], out=offsets[1:])
    if offsets[-1] >= 2**31:
        raise PipelineError(f"cannot read {path}: a block of lines is too large")
    values = raw[keep_bytes]
    array = pa.StringArray.from_buffers(
        len(offsets) - 1, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(values)
    )
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        line = first_line + _first_non_utf8_line(data)
        raise PipelineError(
            f"cannot read {path}: line {line + 1} is not UTF-8 text (re-save the file as UTF-8)"
        ) from None
    return pa.RecordBatch.from_arrays([array], names=[TXT_COLUMN]), len(ends)


def _first_non_utf8_line(data: bytes) -> int:
    """The 0-based index of the first line of ``data`` that is not valid UTF-8."""
    for number, line in enumerate(io.BytesIO(data)):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return number
    return 0
