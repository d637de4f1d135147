"""Grids as numbers, for any box size: the unit tables every engine reads, and puzzles parsed from
text or bytes (SPEC sections 1 and 7).

A puzzle of box size b (Hutton's ``boxsize``) has N = b * b rows, columns and boxes of N cells,
C = N * N cells in row-major order: 4 x 4 (b = 2), Sudoku (b = 3), 16 x 16 (b = 4), 25 x 25
(b = 5). A grid is C cell values, 0 for a blank and 1..N for a given (an (n, C) uint8 array for
a batch). Its symbols are the first N of ``SYMBOLS`` (letters in either case on input, upper case
on output), or those of an ``alphabet``. Only numpy here: importing this compiles nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from solver.vocabulary import BLANKS, BOXSIZES, SYMBOLS, UNIT_NAMES

INVALID_BYTE = 255
BOXSIZE_OF_CELLS = {b**4: b for b in BOXSIZES}  # 16 -> 2, 81 -> 3, 256 -> 4, 625 -> 5


class Tables(NamedTuple):
    """The constant tables of a box size: the one record every compiled function of the solver
    takes for the shape of its grids (passed as an argument, so that numba's on-disk cache of
    them stays valid, and numba compiles a function once per mask type)."""

    boxsize: int  # b
    size: int  # N = b * b: the digits, and the cells of a unit
    full: int  # the mask of every digit, N bits
    units: np.ndarray  # (3N, N) cells of each unit: rows, then columns, then boxes
    peers: np.ndarray  # (C, 3N - 2b - 1) the cells sharing a unit with each cell
    unit_of: np.ndarray  # (C, 3) the row, column and box of each cell
    meetings: np.ndarray  # (2N * b, 2N - b) each box/line meeting: its b shared cells, then
    #                       the box's N - b other cells, then the line's N - b other cells
    masks: np.ndarray  # (0,) of the type of a matrix's masks (``MASKS``)

    @property
    def cells(self) -> int:
        return self.size * self.size


def unit_cells(boxsize: int) -> np.ndarray:
    """(3N, N): the cells of each row, column and box of a grid of box size ``boxsize``."""
    n = boxsize * boxsize
    units = np.zeros((3 * n, n), np.int16)
    for i in range(n):
        units[i] = [n * i + j for j in range(n)]
        units[n + i] = [n * j + i for j in range(n)]
        r0, c0 = boxsize * (i // boxsize), boxsize * (i % boxsize)
        units[2 * n + i] = [n * (r0 + a) + c0 + c for a in range(boxsize) for c in range(boxsize)]
    return units


def meetings(boxsize: int, units: np.ndarray) -> np.ndarray:
    """(2N * b, 2N - b): for each place a box meets a row or a column, its b shared cells,
    then the box's N - b other cells, then the line's N - b other cells."""
    n = boxsize * boxsize
    rows = []
    for box in range(2 * n, 3 * n):
        for line in range(2 * n):
            shared = sorted(set(units[box].tolist()) & set(units[line].tolist()))
            if len(shared) == boxsize:
                box_rest = [c for c in units[box].tolist() if c not in shared]
                line_rest = [c for c in units[line].tolist() if c not in shared]
                rows.append(shared + box_rest + line_rest)
    return np.array(rows, np.int16)


# The type of a matrix's masks, int32 for every box size: one compiled specialisation of each
# kernel serves them all, so a run of 25 x 25 puzzles loads what 4 x 4 ones compiled (uint16
# masks for N <= 16 would compile every kernel twice).
MASKS = np.int32


@functools.cache
def tables(boxsize: int = 3) -> Tables:
    """The tables of box size ``boxsize``."""
    n = boxsize * boxsize
    cells = n * n
    units = unit_cells(boxsize)
    members = [set(map(int, unit)) for unit in units]
    peers = np.array([sorted(set().union(*(u for u in members if c in u)) - {c})
                      for c in range(cells)], np.int16)
    unit_of = np.array([[c // n, n + c % n, 2 * n + boxsize * (c // (n * boxsize))
                         + (c % n) // boxsize] for c in range(cells)], np.int16)
    return Tables(boxsize, n, (1 << n) - 1, units, peers, unit_of, meetings(boxsize, units),
                  np.zeros(0, MASKS))



@dataclass(frozen=True)
class Symbols:
    """How the cells of a box size are written: ``symbols[v - 1]`` is value v; ``values`` maps
    each byte to its value (1..N), 0 for a blank, ``INVALID_BYTE`` for anything else."""

    boxsize: int
    symbols: str
    values: np.ndarray  # (256,) uint8

    @property
    def size(self) -> int:
        return self.boxsize * self.boxsize

    @property
    def cells(self) -> int:
        return self.size * self.size

    def text(self, grid: np.ndarray) -> str:
        """A grid of values as its interchange string, blanks as '.'."""
        return "".join("." if v == 0 else self.symbols[v - 1] for v in grid)

    def normal(self, text: str) -> str:
        """A valid puzzle ``text`` with its symbols as this alphabet writes them and '.' for
        every blank (how ``put`` can tell a blank from a digit ``0``)."""
        return self.text(self.values[np.frombuffer(text.encode(), np.uint8)])

    def ascii(self, grids: np.ndarray) -> np.ndarray:
        """(n, C) values as the ASCII bytes of their symbols, blanks as '.'."""
        first = ord(self.symbols[0])
        if self.symbols == "".join(map(chr, range(first, first + self.size))):
            # Consecutive symbols (the default ones of every box size): an addition, a tenth
            # of the time of a table on a batch.
            grids = np.asarray(grids, np.uint8)
            out = grids + np.uint8(first - 1)
            out[grids == 0] = ord(".")
            return out
        table = np.full(256, INVALID_BYTE, np.uint8)
        table[:len(self.symbols) + 1] = np.frombuffer(("." + self.symbols).encode(), np.uint8)
        return translate(grids, table)


@functools.cache
def symbols(boxsize: int = 3, alphabet: str = "") -> Symbols:
    """The symbols of box size ``boxsize``: ``alphabet`` when given (its N characters, in
    order; none of them is ever a blank), else the first N of SYMBOLS, letters in either
    case."""
    n = boxsize * boxsize
    written = alphabet or SYMBOLS[:n]
    values = np.full(256, INVALID_BYTE, np.uint8)
    for blank in BLANKS:
        if blank not in written:
            values[ord(blank)] = 0
    for value, symbol in enumerate(written, start=1):
        for variant in {symbol, symbol.lower(), symbol.upper()}:
            if len(variant) == 1 and ord(variant) < 256 and (variant == symbol
                                                              or variant not in written):
                values[ord(variant)] = value
    return Symbols(boxsize, written, values)


def strip_line_ending(text: str) -> str:
    """Nothing is trimmed but line endings (SPEC section 1)."""
    return text.rstrip("\r\n")


def sizes_text(boxsizes: Sequence[int]) -> str:
    """'16, 81, 256 or 625'."""
    cells = [str(b**4) for b in boxsizes]
    return cells[0] if len(cells) == 1 else ", ".join(cells[:-1]) + " or " + cells[-1]


def boxsize_of(text: str, boxsize: int | str = 3) -> int | None:
    """The box size of the puzzle ``text`` under the setting ``boxsize`` (a number, or
    "auto": by its length), or None when its length is not one it takes."""
    found = BOXSIZE_OF_CELLS.get(len(text))
    if boxsize == "auto":
        return found
    return boxsize if found == boxsize else None


def length_error(length: int, boxsize: int | str = 3) -> str:
    """SPEC 7's message for a row of ``length`` cells that the setting ``boxsize`` refuses."""
    if boxsize == "auto":
        return f"expected {sizes_text(BOXSIZES)} cells, got {length}"
    error = f"expected {boxsize**4} cells, got {length}"
    other = BOXSIZE_OF_CELLS.get(length)
    if other is not None:
        error += f" (a {other * other} x {other * other} puzzle: --boxsize {other} or auto)"
    return error


def parse_error(text: str, boxsize: int | str = 3, alphabet: str = "") -> str | None:
    """Why ``text`` is not a puzzle (SPEC sections 1 and 7), or None when it is one."""
    text = strip_line_ending(text)
    size = boxsize_of(text, boxsize)
    if size is None:
        return length_error(len(text), boxsize)
    written = symbols(size, alphabet if len(alphabet) == size * size else "")
    n = size * size
    for cell, ch in enumerate(text):
        if ord(ch) > 255 or written.values[ord(ch)] == INVALID_BYTE:
            return (f"unexpected character {ch!r} at cell {cell} "
                    f"(row {cell // n + 1}, column {cell % n + 1})")
    return None


def contradiction(grid: np.ndarray, written: str = "") -> str | None:
    """The first repeated given, as 'digit 5 twice in box 4' (rows, then columns, then boxes),
    the digit written as its symbol (``written``: the alphabet; default, SYMBOLS)."""
    grid = np.asarray(grid)
    boxsize = BOXSIZE_OF_CELLS[grid.size]
    written = written or SYMBOLS
    n = boxsize * boxsize
    for unit_index, unit in enumerate(tables(boxsize).units):
        values = grid[unit]
        counts = np.bincount(values[values > 0], minlength=n + 1)
        repeated = np.flatnonzero(counts > 1)
        if len(repeated):
            digit = int(repeated[0])
            times = "twice" if counts[digit] == 2 else f"{counts[digit]} times"
            kind, number = UNIT_NAMES[unit_index // n], unit_index % n + 1
            return f"digit {written[digit - 1]} {times} in {kind} {number}"
    return None


def grids_from_ascii(rows: np.ndarray, alphabet: str = "") -> tuple[np.ndarray, np.ndarray]:
    """(n, C) ASCII bytes -> ((n, C) cell values 0..N, bool mask of rows with a bad byte)."""
    rows = np.asarray(rows, np.uint8)
    size = BOXSIZE_OF_CELLS[rows.shape[1]]
    grids = translate(rows, symbols(size, alphabet if len(alphabet) == size * size else "").values)
    bad = (grids == INVALID_BYTE).any(axis=1)
    grids[bad] = 0
    return grids, bad


def translate(grid: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Each byte of a uint8 array through a 256-byte ``table``, as a new writable array of the
    same shape. bytes.translate's C loop takes a quarter of the time of numpy's indexing
    (``table[grid]``) on a batch of 50,000 puzzles, which the pipeline does four times."""
    grid = np.ascontiguousarray(grid, np.uint8)
    out = bytearray(grid).translate(np.asarray(table, np.uint8).tobytes())
    return np.frombuffer(out, np.uint8).reshape(grid.shape)


def ascii_rows(puzzles: Sequence[str], cells: int = 81) -> tuple[np.ndarray, list[str | None]]:
    """Strings -> (n, cells) ASCII bytes, with the parse error of every row that does not fit
    (not ``cells`` characters)."""
    rows = np.zeros((len(puzzles), cells), np.uint8)
    errors: list[str | None] = [None] * len(puzzles)
    boxsize = BOXSIZE_OF_CELLS[cells]
    for i, text in enumerate(puzzles):
        text = strip_line_ending(text)
        data = text.encode("utf-8", "surrogateescape")
        if len(data) == cells and len(text) == cells:
            rows[i] = np.frombuffer(data, np.uint8)
        errors[i] = parse_error(text, boxsize)
    return rows, errors


def text_of(grid: np.ndarray) -> str:
    """A grid of values as its interchange form in the default symbols, blanks as '.'."""
    grid = np.asarray(grid)
    return symbols(BOXSIZE_OF_CELLS[grid.size]).text(grid)


CELL_OF_BYTE = symbols(3).values  # the 9 x 9 byte -> value table (digits, blanks)
