"""Puzzle strings in Arrow, without a Python object per row: a text column as one contiguous
array, its 81-byte values as an (n, 81) byte matrix, and such a matrix back as strings."""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def text_array(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """A text column as one contiguous ``string`` or ``large_string`` array."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type) or pa.types.is_string_view(column.type):
        column = column.cast(pa.string())
    return column


def ascii_grid(puzzles: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The raw bytes of each 81-byte string as a row of an (n, 81) uint8 matrix, and a mask
    of the rows that fit (not null, exactly 81 bytes); rows that do not fit are zeros.

    Zero-copy when every row fits and the strings are contiguous (the common case).
    """
    n = len(puzzles)
    offset_type = np.int64 if pa.types.is_large_string(puzzles.type) else np.int32
    _, offsets_buffer, data_buffer = puzzles.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[puzzles.offset : puzzles.offset + n + 1]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    )
    fits = np.diff(offsets) == 81
    if puzzles.null_count:
        fits &= puzzles.is_valid().to_numpy(zero_copy_only=False)
    if fits.all() and offsets[-1] - offsets[0] == 81 * n:
        return data[offsets[0] : offsets[-1]].reshape(n, 81), fits
    grid = np.zeros((n, 81), dtype=np.uint8)
    starts = offsets[:-1][fits]
    grid[fits] = data[starts[:, None] + np.arange(81)]
    return grid, fits


def digits_array(grid: np.ndarray, present: np.ndarray) -> pa.Array:
    """An Arrow string array of the rows of an (n, 81) ASCII matrix; null where not
    ``present``. Built from buffers, without a per-row Python object."""
    n = len(grid)
    offsets = np.arange(0, 81 * (n + 1), 81, dtype=np.int32)
    nulls = int(n - np.count_nonzero(present))
    validity = pa.py_buffer(np.packbits(present, bitorder="little")) if nulls else None
    return pa.StringArray.from_buffers(
        n,
        pa.py_buffer(offsets),
        pa.py_buffer(np.ascontiguousarray(grid, dtype=np.uint8)),
        validity,
        nulls,
    )
