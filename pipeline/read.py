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
import os
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

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
UTF8_BOM_AS_LATIN1 = "\xef\xbb\xbf"
CSV_BLOCK_BYTES = 1 << 22  # a CSV record must fit in one block of the Arrow reader
DELIMITERS = {";": "semicolon", "\t": "tab", "|": "vertical bar"}


@dataclass(frozen=True)
class InputFile:
    """One input file, inspected (its header or metadata read) but not yet read.

    ``schema`` holds the columns as they will be passed through (already renamed where
    they clashed with an output column, see ``renames``); ``rows`` is known up front
    only for Parquet.
    """

    path: str
    format: str  # "csv", "parquet" or "txt"
    schema: pa.Schema
    puzzle_column: str
    solution_column: str | None
    renames: dict[str, str]
    size: int
    rows: int | None


def format_of(path: str) -> str | None:
    """The input format of ``path`` by its name (``csv``, ``parquet``, ``txt``), or None."""
    name = storage.basename(path).lower()
    for suffix, kind in SUFFIXES.items():
        if name.endswith(suffix):
            return kind
    return None


def find_inputs(paths: Sequence[str | os.PathLike]) -> list[str]:
    """The input files named by ``paths``, in order; a directory gives its supported files,
    sorted by name (other files in it, and hidden ones, are skipped)."""
    if not paths:
        raise PipelineError("no input given; name one or more files or directories")
    found: list[str] = []
    for given in paths:
        path = storage.location(given)
        what = storage.kind(path)
        if what == "directory":
            inside = [
                storage.join(path, entry.name)
                for entry in storage.listing(path)
                if entry.is_file and not entry.name.startswith(".") and format_of(entry.name)
            ]
            if not inside:
                raise PipelineError(
                    f"directory {path} holds no .csv, .csv.gz, .parquet or .txt files; "
                    "name the input files directly"
                )
            found.extend(inside)
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
    with one of those names is passed through as ``input_<name>``.
    """
    path = storage.location(path)
    kind = format_of(path)
    size = storage.size(path)
    if size == 0:
        raise PipelineError(f"input file is empty: {path} (remove it from the inputs)")
    rows = None
    if kind == "txt":
        _check_txt_has_rows(path)
        schema = pa.schema([(TXT_COLUMN, pa.string())])
    elif kind == "csv":
        schema = pa.schema([(name, pa.string()) for name in _csv_header(path)])
    else:
        schema, rows = _parquet_schema(path)
        if rows == 0:
            raise PipelineError(f"input file has no rows: {path} (remove it from the inputs)")
    if kind == "txt":
        puzzle, solution = TXT_COLUMN, None
    else:
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
            if name is not None and schema.field(name).type not in TEXT_TYPES:
                raise PipelineError(
                    f"{path}: column {name!r} holds {schema.field(name).type}, not text; "
                    "puzzles and solutions must be strings (a numeric column has lost "
                    "the leading zeros) - rewrite it as a string column"
                )
    reserved = set(reserved)
    renames = {name: f"input_{name}" for name in schema.names if name in reserved}
    if renames:
        schema = pa.schema([field.with_name(renames.get(field.name, field.name)) for field in schema])
    return InputFile(path, kind, schema, puzzle, solution, renames, size, rows)


def read_batches(source: InputFile, batch_size: int) -> Iterator[pa.Table]:
    """The rows of ``source`` in input order, as tables of exactly ``batch_size`` rows
    (the last one may be shorter), with columns named and typed as ``source.schema``."""
    path = source.path
    if source.format == "txt":
        batches = _txt_batches(path)
    elif source.format == "csv":
        batches = _csv_batches(path, source.schema)
    else:
        batches = _parquet_batches(path, batch_size)
    batches = _read_errors_as_pipeline_errors(path, batches)
    if source.renames:
        names = source.schema.names
        batches = (batch.rename_columns(names) for batch in batches)
    yield from rebatch(batches, batch_size)


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
            while chunk := file.read(1 << 22):
                digest.update(chunk)
                newlines += chunk.count(b"\n")
    except OSError as err:
        raise PipelineError(f"cannot read {path}: {err.strerror or err}") from None
    return digest.hexdigest(), newlines


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


def _read_errors_as_pipeline_errors(
    path: str, batches: Iterator[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """``batches``, with reading failures turned into one-line PipelineErrors."""
    try:
        yield from batches
    except PipelineError:
        raise
    except (pa.ArrowException, OSError, EOFError, zlib.error, UnicodeDecodeError) as err:
        raise PipelineError(
            f"cannot read {path}: {one_line(err)} (is the file complete, and in the format "
            "its name says?)"
        ) from None


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


def _csv_header(path: str) -> list[str]:
    """The column names of a CSV file, checked to be usable, and that a data row follows."""
    try:
        with _open_text(path) as file:
            reader = csv.reader(file)
            header = next(reader, None)
            first = next((record for record in reader if record), None)
    except (OSError, EOFError, zlib.error, csv.Error) as err:
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
    if len(set(header)) != len(header):
        twice = next(name for name in header if header.count(name) > 1)
        raise PipelineError(f"{path}: column {twice!r} appears twice in the header; rename one")
    if first is None:
        raise PipelineError(f"input file has a header but no rows: {path} (remove it from the inputs)")
    return header


def _csv_batches(path: str, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """Stream a CSV file, every column read as text exactly as written (no null values,
    no type inference), so nothing depends on how the file is chunked."""
    from pyarrow import csv as pacsv

    read_options = pacsv.ReadOptions(
        column_names=schema.names, skip_rows=1, block_size=CSV_BLOCK_BYTES, use_threads=False
    )
    convert_options = pacsv.ConvertOptions(
        column_types=dict(zip(schema.names, schema.types, strict=True)),
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:
        with storage.arrow_source(path) as source:
            if not isinstance(source, str):  # an fsspec file: Arrow cannot see its name
                source = pa.input_stream(source, compression="gzip" if _gzipped(path) else None)
            yield from pacsv.open_csv(
                source, read_options=read_options, convert_options=convert_options
            )
    except pa.ArrowInvalid as err:
        if "straddling" not in str(err):
            raise
        raise PipelineError(
            f"cannot read {path}: a record is longer than the CSV reader takes (at least "
            f"{CSV_BLOCK_BYTES >> 20} MiB), far too long for a row of puzzles (a quote that is "
            "never closed?)"
        ) from None


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


def _parquet_batches(path: str, batch_size: int) -> Iterator[pa.RecordBatch]:
    import pyarrow.parquet as pq

    # One thread: the workers need the cores, and Arrow's thread pool only adds system time.
    with storage.arrow_source(path) as source, pq.ParquetFile(source, memory_map=True) as file:
        for batch in file.iter_batches(batch_size=batch_size, use_threads=False):
            yield batch.replace_schema_metadata(None)


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


def _txt_batches(path: str) -> Iterator[pa.RecordBatch]:
    """Stream a text file, one puzzle per line, as record batches of one string column.

    A line ends at ``\\n``, ``\\r\\n`` or ``\\r``; the line ending is all that is removed.
    Lines starting with ``#`` are comments, not rows; an empty line is a row (an empty,
    hence invalid, puzzle); a final line ending does not start another row; a UTF-8
    byte-order mark at the start is skipped. Lines are
    split with numpy, not a Python loop.
    """
    carry = b""
    first_line = 0
    with storage.open_read(path) as file:
        if file.read(3) != b"\xef\xbb\xbf":  # a UTF-8 byte-order mark is not text
            file.seek(0)
        while True:
            block = file.read(BLOCK_BYTES)
            data = carry + block
            if not block:
                if data:  # the last line has no line ending
                    yield _txt_lines(path, data + b"\n", first_line)[0]
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
