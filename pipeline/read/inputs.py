"""What an input is, whatever its format: ``InputFile`` (inspected, not yet read), how its
columns pass through (``column_layout``), the ``Reader`` every format implements, and the checks
that a file did not change while it was read (``HashingReader``, ``InputChanged``)."""

from __future__ import annotations

import abc
import contextlib
import gzip
import hashlib
import io
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, TextIO

import pyarrow as pa

from pipeline import storage
from pipeline.errors import PipelineError, one_line
from pipeline.text import escaped

PUZZLE_NAMES = ("puzzle", "puzzles", "quizzes", "quiz", "grid", "sudoku", "board")
SOLUTION_NAMES = ("solution", "solutions")
TEXT_TYPES = (pa.string(), pa.large_string(), pa.string_view())
READ_BYTES = 1 << 22  # what is left of a file after its reader ends is hashed 4 MiB at a time
# The longest record (a line of a text file, a row of a CSV file) read: a puzzle is at most 625
# characters, so this is thousands of times what any puzzle file needs, and a file with a longer
# one (a gzip bomb, a binary file named .txt, a quote never closed) is refused with one line,
# in bounded memory, rather than read whole.
MAX_RECORD_BYTES = 8 << 20
UTF8_BOM = b"\xef\xbb\xbf"


class InputChanged(PipelineError):
    """An input that changed while this run read it: the rows read from it may mix two
    versions of the file, or miss some, so none of them can be kept. ``path`` names it."""

    def __init__(self, path: str, how: str):
        super().__init__(
            f"input {escaped(path)} changed during the run ({how}); the rows this run read from "
            "it cannot be trusted: restore the file and rerun the same command, or start again "
            "with --overwrite"
        )
        self.path = path
        self.how = how

    def __reduce__(self):  # raised in a worker, it comes back to the run's process whole
        return InputChanged, (self.path, self.how)


@dataclass(frozen=True)
class InputFile:
    """One input file, inspected (its header or metadata read) but not yet read.

    ``schema`` holds the columns as they will be passed through (already renamed where
    they clashed with an output column, see ``renames``; a dictionary-encoded puzzle or
    solution column as its text); ``puzzle_column`` and ``solution_column`` are names in
    it; ``rows`` is known up front only for Parquet; ``stamp`` is the file as inspected
    (size, modification time...), against which reading checks that it did not change;
    ``delimiter`` separates the fields of a CSV file; ``columns`` are the file's columns read
    (a Parquet file may leave some out), all of them when None.
    """

    path: str
    format: str  # the name of its reader: "csv", "parquet" or "txt"
    schema: pa.Schema
    puzzle_column: str
    solution_column: str | None
    renames: dict[str, str]
    size: int
    rows: int | None
    stamp: storage.Stamp
    delimiter: str = ""
    columns: tuple[str, ...] | None = None  # the file's columns read (None: all of them)

    @property
    def gzipped(self) -> bool:
        return is_gzipped(self.path)


class Reader(abc.ABC):
    """How one input format is read: its file names, its columns, its rows."""

    name: str  # the format, as the run record and the summary name it
    suffixes: tuple[str, ...]  # the file names it reads, lower case (".csv", ".csv.gz", ...)

    @abc.abstractmethod
    def inspect(self, path: str, delimiter: str) -> tuple[pa.Schema, int | None]:
        """The columns of the file as read, and its rows when known up front; a
        ``PipelineError`` naming what is wrong when it has none."""

    def fixed_puzzle_column(self) -> str | None:
        """The puzzle column when the format has only that one (text), else None."""
        return None

    @abc.abstractmethod
    def batches(self, source: InputFile, batch_size: int,
                expected_sha256: str | None) -> Iterator[pa.RecordBatch]:
        """The record batches of ``source``, checked not to have changed (``InputChanged``)."""

    def estimated_rows(self, source: InputFile, newlines: int) -> int | None:
        """Rows to expect, for the progress bar, from the file's line breaks (None when they
        do not tell: a compressed file)."""
        if source.rows is not None:
            return source.rows
        return None if source.gzipped else max(newlines, 1)

    def default_delimiter(self, path: str) -> str:
        return ""


def is_gzipped(path: str) -> bool:
    return path.lower().endswith(".gz")


@dataclass(frozen=True)
class Layout:
    """The columns of an input as they are passed through: ``schema`` (renamed where they clash
    with output columns, see ``renames``; dictionary-encoded puzzles and solutions as text),
    and the names in it of the puzzle and published-solution columns."""

    schema: pa.Schema
    puzzle: str
    solution: str | None
    renames: dict[str, str]


# The Arrow type of each type name the ``cast`` setting takes.
CAST_TYPES = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "string": pa.string()}


def column_layout(
    where: str,
    schema: pa.Schema,
    *,
    puzzle_column: str | None = None,
    column: str = "",
    solution_column: str = "",
    casts: dict[str, str] | None = None,
    reserved: Iterable[str] = (),
) -> Layout:
    """How the columns ``schema`` of an input (a file, or a frame, named ``where`` in messages)
    are passed through, checked: unique names, a puzzle column of text, no clash after renames,
    the columns named in ``casts`` ({column: type name}) of that type (those it has).
    ``puzzle_column`` is the format's only column, when it has one (text files)."""
    where = escaped(where)
    _check_unique_names(where, schema.names)
    if puzzle_column is not None:
        puzzle, solution = puzzle_column, None
    else:
        puzzle, solution = _puzzle_and_solution(where, schema, column, solution_column)
    schema = _as_text(schema, [puzzle, solution])
    for name, kind in (casts or {}).items():
        if name in (puzzle, solution):
            raise PipelineError(f"{where}: column {name!r} holds the puzzles or their "
                                "solutions, which stay text; cast another column")
        if name in schema.names:
            index = schema.get_field_index(name)
            schema = schema.set(index, schema.field(index).with_type(CAST_TYPES[kind]))
    renames = _renames(where, schema.names, set(reserved))
    if renames:
        schema = pa.schema([field.with_name(renames.get(field.name, field.name)) for field in schema])
    solution = renames.get(solution, solution) if solution else None
    return Layout(schema, renames.get(puzzle, puzzle), solution, renames)


def conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """``table`` with the names and types of ``schema`` (a ``Layout``'s, an ``InputFile``'s),
    batch by batch (``as_schema``)."""
    batches = [as_schema(batch, schema) for batch in table.to_batches()]
    return pa.Table.from_batches(batches, schema=schema)


def as_schema(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` with the names and types of ``schema``: renamed columns, dictionary encoded
    text decoded, and columns cast (``cast``) to their type."""
    if batch.schema.equals(schema, check_metadata=False):
        return batch
    columns = []
    for column, field in zip(batch.columns, schema, strict=True):
        if pa.types.is_dictionary(column.type) and not pa.types.is_dictionary(field.type):
            column = column.dictionary_decode()
        if column.type != field.type:
            try:
                column = column.cast(field.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as err:
                raise PipelineError(f"cannot cast column {field.name!r} to {field.type}: "
                                    f"{one_line(err)}") from None
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


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
    path: str, schema: pa.Schema, column: str, solution_column: str
) -> tuple[str, str | None]:
    """The puzzle column and the published-solution column (or None), checked to hold text."""
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
                f"{_why_not_text(schema.field(name).type)}"
            )
    return puzzle, solution


def _why_not_text(kind: pa.DataType) -> str:
    """What to do about a puzzle column of another type than text, for that type."""
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        return ("puzzles and solutions must be strings (a numeric column has lost the leading "
                "zeros) - rewrite it as a string column")
    if pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(
            kind):
        return "puzzles and solutions must be strings: cast the bytes to UTF-8 text"
    if pa.types.is_nested(kind):
        return ("puzzles and solutions must be strings of cells, one value a row: join each "
                "value into one string (e.g. 81 characters)")
    return "puzzles and solutions must be strings: rewrite it as a string column"


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
    shown = ", ".join(escaped(c) if len(c) <= 40 else escaped(c[:37]) + "..." for c in columns)
    if wanted:
        if wanted in columns:
            return wanted
        folded = [c for c in columns if c.lower() == wanted.lower()]
        if folded:
            return folded[0]
        raise PipelineError(f"{path} has no column {wanted!r} (its columns: {shown}); fix {option}")
    by_lower: dict[str, str] = {}
    for c in columns:
        by_lower.setdefault(c.lower(), c)
    for name in names:
        if name in by_lower:
            return by_lower[name]
    if what == "solution":
        return None
    if any(_looks_like_a_puzzle(c) for c in columns):
        raise PipelineError(
            f"{path} has no header: its first line is a puzzle, not column names; name the "
            "file .txt (one puzzle per line), or add a header line (e.g. puzzle)"
        )
    raise PipelineError(
        f"{path} has no puzzle column (its columns: {shown or 'none'}); "
        f"name it with {option} (looked for: {', '.join(names)})"
    )


def _looks_like_a_puzzle(name: str) -> bool:
    """A column name that is a puzzle (16, 81, 256 or 625 digits, letters and blanks)."""
    return len(name) in (16, 81, 256, 625) and all(c.isalnum() or c in ".-_ " for c in name)


# --- reading, and checking that the file did not change -------------------------------------


def change_seen(source: InputFile) -> str:
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


def check_unchanged(source: InputFile) -> None:
    how = change_seen(source)
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


@contextlib.contextmanager
def streamed(source: InputFile, expected_sha256: str | None) -> Iterator[HashingReader]:
    """The bytes of a text or CSV file as stored (compressed, for .gz), read once from start
    to end, hashed on the way and checked at the end against what the run planned."""
    with storage.open_read(source.path) as file:
        reader = HashingReader(file)
        yield reader
        reader.read_to_end()
    if reader.bytes_read != source.size:
        raise InputChanged(
            source.path, f"{reader.bytes_read:,} bytes were read, it had {source.size:,}"
        )
    if expected_sha256 is None:
        check_unchanged(source)
    elif reader.digest.hexdigest() != expected_sha256:
        raise InputChanged(source.path, "its content is not what it was: another SHA-256")


@contextlib.contextmanager
def open_text(path: str, encoding: str = "utf-8-sig") -> Iterator[TextIO]:
    """``path`` opened as text (decompressed if it ends in .gz), line endings untouched; a
    failure to read or decompress it (not gzip, a corrupt header, cut short) is a one-line
    ``PipelineError``."""
    try:
        with storage.open_read(path) as raw:
            binary = gzip.GzipFile(fileobj=raw) if is_gzipped(path) else raw
            with io.TextIOWrapper(binary, encoding=encoding, newline="") as text:
                yield text
    except (OSError, EOFError, zlib.error) as err:
        raise PipelineError(f"cannot read {escaped(path)}: {one_line(err)} (is the file "
                            "complete, and in the format its name says?)") from None


def bounded_lines(file: TextIO, path: str) -> Iterator[str]:
    """The lines of ``file``, each read in bounded memory: a line longer than
    ``MAX_RECORD_BYTES`` is a one-line error, not read whole."""
    number = 0
    while line := file.readline(MAX_RECORD_BYTES + 1):
        number += 1
        if len(line) > MAX_RECORD_BYTES:
            raise record_too_long(path, number)
        yield line


def record_too_long(path: str, line: int | None = None, *,
                    record: int | None = None) -> PipelineError:
    """The error of a line (text) or record (CSV; the header is record 1) over the limit."""
    where = (f"line {line:,}" if line else
             f"record {record:,} (the header is record 1)" if record else "a record")
    return PipelineError(
        f"cannot read {escaped(path)}: {where} is longer than {MAX_RECORD_BYTES >> 20} MiB, far "
        "too long for a row of puzzles (a binary or compressed file under another name, or a "
        "quote that is never closed?)"
    )
