"""CSV files (``.csv``, ``.tsv``, and either gzipped): a header row, then records (RFC 4180
quoting), every column read as text exactly as written: no type guessing, no null values, so
Kaggle's all-digit puzzles keep their leading zeros and nothing depends on how the file is
chunked. Fields are separated by commas (tabs in a ``.tsv`` file), or by the ``delimiter``
setting."""

from __future__ import annotations

import contextlib
import csv
from collections.abc import Iterator

import pyarrow as pa

from pipeline.errors import PipelineError, one_line
from pipeline.read.inputs import (
    MAX_RECORD_BYTES,
    InputFile,
    Reader,
    bounded_lines,
    open_text,
    record_too_long,
    streamed,
)
from pipeline.text import escaped

CSV_BLOCK_BYTES = MAX_RECORD_BYTES // 2  # Arrow's blocks: a record may straddle one boundary
# Delimiters a header without the expected one may use, named for the message.
DELIMITERS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "vertical bar"}


class CsvReader(Reader):
    name = "csv"
    suffixes = (".csv", ".csv.gz", ".tsv", ".tsv.gz")

    def default_delimiter(self, path: str) -> str:
        return "\t" if path.lower().endswith((".tsv", ".tsv.gz")) else ","

    def inspect(self, path: str, delimiter: str) -> tuple[pa.Schema, int | None]:
        return pa.schema([(name, pa.string()) for name in _csv_header(path, delimiter)]), None

    def estimated_rows(self, source: InputFile, newlines: int) -> int | None:
        rows = super().estimated_rows(source, newlines)
        return None if rows is None else max(rows - 1, 1)  # the header is not a row

    def batches(self, source: InputFile, batch_size: int,
                expected_sha256: str | None) -> Iterator[pa.RecordBatch]:
        """Stream the file, every column read as text exactly as written."""
        from pyarrow import csv as pacsv

        schema = source.schema
        read_options = pacsv.ReadOptions(
            column_names=schema.names, skip_rows=1, block_size=CSV_BLOCK_BYTES, use_threads=False
        )
        parse_options = pacsv.ParseOptions(delimiter=source.delimiter)
        convert_options = pacsv.ConvertOptions(  # text as written; a cast comes after
            column_types=dict.fromkeys(schema.names, pa.string()),
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        )
        with streamed(source, expected_sha256) as file:
            stream = pa.input_stream(file, compression="gzip" if source.gzipped else None)
            records = 1  # read so far, the header's included
            try:
                for batch in pacsv.open_csv(stream, read_options=read_options,
                                            parse_options=parse_options,
                                            convert_options=convert_options):
                    records += batch.num_rows
                    yield batch
            except pa.ArrowInvalid as err:
                if "straddling" not in str(err):
                    raise
                # Arrow reads whole blocks: the rows before the one too long were all read.
                raise record_too_long(source.path, record=records + 1) from None


@contextlib.contextmanager
def _csv_fields_up_to(limit: int) -> Iterator[None]:
    """Let Python's csv module read fields of up to ``limit`` characters (128 KiB by
    default), as the Arrow reader does, so that the first record reads like the others."""
    previous = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _csv_header(path: str, delimiter: str) -> list[str]:
    """The column names of a CSV file, checked to be usable, and that a data row follows."""
    shown = escaped(path)
    reader = None
    try:
        with open_text(path) as file, _csv_fields_up_to(MAX_RECORD_BYTES):
            reader = csv.reader(bounded_lines(file, path), delimiter=delimiter)
            header = next(reader, None)
            first = next((record for record in reader if record), None)
    except csv.Error as err:
        if "field limit" in str(err):
            raise record_too_long(path, reader.line_num if reader else None) from None
        raise PipelineError(f"cannot read {shown}: {one_line(err)}") from None
    except UnicodeDecodeError:
        raise PipelineError(
            f"cannot read {shown}: its first lines are not UTF-8 text (re-save it as UTF-8)"
        ) from None
    if not header or header == [""]:
        raise PipelineError(f"input file is empty: {shown} (remove it from the inputs)")
    if len(header) == 1:
        _check_delimiter(shown, header[0], delimiter)
    if first is None:
        raise PipelineError(f"input file has a header but no rows: {shown} (remove it from the "
                            "inputs)")
    return header


def _check_delimiter(path: str, header: str, delimiter: str) -> None:
    """A header of one field holding another delimiter: the file uses that one."""
    for other, name in DELIMITERS.items():
        if other != delimiter and other in header:
            option = "'\\t'" if other == "\t" else repr(other)
            raise PipelineError(
                f"{path}: the header has no {DELIMITERS.get(delimiter, repr(delimiter))} but "
                f"{name}s ({escaped(header[:60])!r}); give --delimiter {option} (or name a "
                "tab-separated file .tsv)"
            )
