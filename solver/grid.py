"""Grids as numbers: the unit tables every implementation reads, and puzzles parsed from text or bytes.

A grid is 81 cell values in row-major order, 0 for a blank and 1..9 for a given (an (n, 81)
uint8 array for a batch). Only numpy here: importing this compiles nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from solver.vocabulary import BLANKS, DIGITS, UNIT_NAMES


class Tables(NamedTuple):
    """The constant tables of the grid (passed to compiled functions as arguments, so that
    numba's on-disk cache of them stays valid)."""

    units: np.ndarray  # (27, 9) cells of each unit: rows 0-8, columns 9-17, boxes 18-26
    peers: np.ndarray  # (81, 20) the cells sharing a unit with each cell
    unit_of: np.ndarray  # (81, 3) the row, column and box of each cell
    unit_bits: np.ndarray  # (81,) the same three units as bits of a 27-bit mask
    popcount: np.ndarray  # (512,) number of digits in a mask
    digit_of: np.ndarray  # (512,) the digit of a one-digit mask


def _tables() -> Tables:
    units = np.zeros((27, 9), np.int16)
    for i in range(9):
        units[i] = [9 * i + j for j in range(9)]
        units[9 + i] = [9 * j + i for j in range(9)]
        r0, c0 = 3 * (i // 3), 3 * (i % 3)
        units[18 + i] = [9 * (r0 + a) + c0 + b for a in range(3) for b in range(3)]
    peers = np.zeros((81, 20), np.int16)
    for cell in range(81):
        mine = {int(c) for u in units if cell in u for c in u} - {cell}
        peers[cell] = sorted(mine)
    unit_of = np.array([[c // 9, 9 + c % 9, 18 + 3 * (c // 27) + (c % 9) // 3] for c in range(81)],
                       np.int16)
    popcount = np.array([bin(m).count("1") for m in range(512)], np.int8)
    digit_of = np.zeros(512, np.uint8)
    for d in range(1, 10):
        digit_of[1 << (d - 1)] = d
    unit_bits = np.array([sum(1 << int(u) for u in units3) for units3 in unit_of], np.int32)
    return Tables(units, peers, unit_of, unit_bits, popcount, digit_of)


TABLES = _tables()
UNITS = TABLES.units
INVALID_BYTE = 255

# ASCII byte -> cell value: 1..9 for digits, 0 for blanks, INVALID_BYTE for anything else.
CELL_OF_BYTE = np.full(256, INVALID_BYTE, np.uint8)
CELL_OF_BYTE[np.frombuffer(DIGITS.encode(), np.uint8)] = np.arange(1, 10, dtype=np.uint8)
CELL_OF_BYTE[np.frombuffer(BLANKS.encode(), np.uint8)] = 0


def strip_line_ending(text: str) -> str:
    """Nothing is trimmed but line endings (SPEC section 1)."""
    return text.rstrip("\r\n")


def parse_error(text: str) -> str | None:
    """Why ``text`` is not a puzzle (SPEC section 1), or None when it is one."""
    text = strip_line_ending(text)
    if len(text) != 81:
        return f"expected 81 cells, got {len(text)}"
    for cell, ch in enumerate(text):
        if ch not in DIGITS and ch not in BLANKS:
            return (f"unexpected character {ch!r} at cell {cell} "
                    f"(row {cell // 9 + 1}, column {cell % 9 + 1})")
    return None


def contradiction(grid: np.ndarray) -> str | None:
    """The first repeated given, as 'digit 5 twice in box 4' (rows, then columns, then boxes)."""
    for unit_index, unit in enumerate(UNITS):
        values = grid[unit]
        counts = np.bincount(values[values > 0], minlength=10)
        repeated = np.flatnonzero(counts > 1)
        if len(repeated):
            digit = int(repeated[0])
            times = "twice" if counts[digit] == 2 else f"{counts[digit]} times"
            kind, number = UNIT_NAMES[unit_index // 9], unit_index % 9 + 1
            return f"digit {digit} {times} in {kind} {number}"
    return None


def grids_from_ascii(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n, 81) ASCII bytes -> ((n, 81) cell values 0..9, bool mask of rows with a bad byte)."""
    grids = CELL_OF_BYTE[rows]
    bad = (grids == INVALID_BYTE).any(axis=1)
    grids[bad] = 0
    return grids, bad


def ascii_rows(puzzles: Sequence[str]) -> tuple[np.ndarray, list[str | None]]:
    """Strings -> (n, 81) ASCII bytes, with the parse error of every row that does not fit."""
    rows = np.zeros((len(puzzles), 81), np.uint8)
    errors: list[str | None] = [None] * len(puzzles)
    for i, text in enumerate(puzzles):
        text = strip_line_ending(text)
        data = text.encode("utf-8", "surrogateescape")
        if len(data) == 81 and len(text) == 81:
            rows[i] = np.frombuffer(data, np.uint8)
        errors[i] = parse_error(text)
    return rows, errors


def text_of(grid: np.ndarray) -> str:
    """A grid of values 0..9 as the 81-character interchange form, blanks as '.'."""
    return "".join("." if v == 0 else str(int(v)) for v in grid)
