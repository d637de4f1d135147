"""Puzzle strings in Arrow, without a Python object per row: a text column as one contiguous
array, its values of C bytes (81 for Sudoku) as an (n, C) byte matrix, and such a matrix back as
strings."""

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


def byte_lengths(puzzles: pa.Array) -> np.ndarray:
    """The length in bytes of each value of a text array; -1 for a null."""
    offsets, _ = _buffers(puzzles)
    lengths = np.diff(offsets).astype(np.int64)
    if puzzles.null_count:
        lengths[~puzzles.is_valid().to_numpy(zero_copy_only=False)] = -1
    return lengths


def _buffers(puzzles: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    n = len(puzzles)
    offset_type = np.int64 if pa.types.is_large_string(puzzles.type) else np.int32
    _, offsets_buffer, data_buffer = puzzles.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type)[puzzles.offset : puzzles.offset + n + 1]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.zeros(0, np.uint8)
    )
    return offsets, data


def ascii_grid(puzzles: pa.Array, cells: int = 81) -> tuple[np.ndarray, np.ndarray]:
    """The raw bytes of each string of ``cells`` bytes as a row of an (n, cells) uint8 matrix,
    and a mask of the rows that fit (not null, exactly ``cells`` bytes); rows that do not fit
    are zeros.

    Zero-copy when every row fits and the strings are contiguous (the common case).
    """
    n = len(puzzles)
    offsets, data = _buffers(puzzles)
    fits = np.diff(offsets) == cells
    if puzzles.null_count:
        fits &= puzzles.is_valid().to_numpy(zero_copy_only=False)
    if fits.all() and offsets[-1] - offsets[0] == cells * n:
        return data[offsets[0] : offsets[-1]].reshape(n, cells), fits
    grid = np.zeros((n, cells), dtype=np.uint8)
    starts = offsets[:-1][fits]
    grid[fits] = data[starts[:, None] + np.arange(cells)]
    return grid, fits


def digits_array(grid: np.ndarray, present: np.ndarray) -> pa.Array:
    """An Arrow string array of the rows of an (n, C) ASCII matrix; null where not
    ``present``. Built from buffers, without a per-row Python object."""
    n, cells = grid.shape
    offsets = np.arange(0, cells * (n + 1), cells, dtype=np.int32)
    nulls = int(n - np.count_nonzero(present))
    validity = pa.py_buffer(np.packbits(present, bitorder="little")) if nulls else None
    return pa.StringArray.from_buffers(
        n,
        pa.py_buffer(offsets),
        pa.py_buffer(np.ascontiguousarray(grid, dtype=np.uint8)),
        validity,
        nulls,
    )
