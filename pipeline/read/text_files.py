"""Text files (``.txt``, ``.txt.gz``): one puzzle per line, in a column called ``puzzle``.

A line ends at ``\\n``, ``\\r\\n`` or ``\\r``; the line ending is all that is removed. Lines
starting with ``#`` are comments, not rows; an empty line is a row (an empty, hence invalid,
puzzle); a final line ending does not start another row; a UTF-8 byte-order mark at the start
is skipped. Lines are split with numpy, not a Python loop, in blocks; a line longer than
``MAX_RECORD_BYTES`` is a one-line error, found in bounded memory.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from pipeline.errors import PipelineError
from pipeline.read.inputs import (
    MAX_RECORD_BYTES,
    UTF8_BOM,
    InputFile,
    Reader,
    bounded_lines,
    open_text,
    record_too_long,
    streamed,
)
from pipeline.text import escaped

TXT_COLUMN = "puzzle"
BLOCK_BYTES = 1 << 24  # read text files 16 MiB at a time
UTF8_BOM_AS_LATIN1 = UTF8_BOM.decode("latin-1")


class TextReader(Reader):
    name = "txt"
    suffixes = (".txt", ".txt.gz")

    def inspect(self, path: str, delimiter: str) -> tuple[pa.Schema, int | None]:
        _check_txt_has_rows(path)
        return pa.schema([(TXT_COLUMN, pa.string())]), None

    def fixed_puzzle_column(self) -> str:
        return TXT_COLUMN

    def batches(self, source: InputFile, batch_size: int,
                expected_sha256: str | None) -> Iterator[pa.RecordBatch]:
        with streamed(source, expected_sha256) as raw:
            file = gzip.GzipFile(fileobj=raw) if source.gzipped else raw
            yield from _txt_batches(source.path, file)


def _check_txt_has_rows(path: str) -> None:
    """Fail early when a text file holds nothing but comment lines."""
    # Latin-1 maps every byte to one character, so any bytes are read (their UTF-8 is
    # checked with the rows); reading with newline="" splits at any line ending and keeps it.
    with open_text(path, encoding="latin-1") as file:
        for number, line in enumerate(bounded_lines(file, path)):
            if number == 0:
                line = line.removeprefix(UTF8_BOM_AS_LATIN1)  # "" for a file of just a BOM
            if line and not line.startswith("#"):
                return
    raise PipelineError(
        f"input file has only comment lines (or nothing): {escaped(path)} (remove it from the "
        "inputs)"
    )


def _txt_batches(path: str, file) -> Iterator[pa.RecordBatch]:
    """Stream a text file, one puzzle per line, as record batches of one string column."""
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
        if len(carry) > MAX_RECORD_BYTES:  # a line that does not end: never read it whole
            raise record_too_long(path, first_line + data[:cut].count(b"\n") + 1)
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
        raise PipelineError(f"cannot read {escaped(path)}: a block of lines is too large")
    values = raw[keep_bytes]
    array = pa.StringArray.from_buffers(
        len(offsets) - 1, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(values)
    )
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        line = first_line + _first_non_utf8_line(data)
        raise PipelineError(
            f"cannot read {escaped(path)}: line {line + 1} is not UTF-8 text (re-save the file "
            "as UTF-8)"
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
