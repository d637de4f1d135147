"""Duplicates in a run, exact and up to symmetry (SPEC section 6), counted over every part.

Each puzzle (the ``grid`` column: blanks normalised) and each canonical form is reduced to a
64-bit hash, computed with numpy over the (n, C) bytes of a part at a time (C the cells of
the rows' box size, one length at a time): 16 bytes a row are kept, whatever the number of
parts and inputs, and the classes are then found by sorting
(measured on 10,000,000 rows: about 400 MB at the peak, in a few seconds). Two different
strings share a hash with probability about n^2 / 2^65 (3e-6 for 10 million rows). A part holds
rows of one input, so the inputs a class spans are known from the hashes' positions alone; the
largest classes' values and rows are then read back from the parts that hold them.

The summary (``summarize``, with ``--measures canonical``), ``summarize --duplicates`` and the
report all take their duplicates from ``duplicates`` here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.arrow import ascii_grid, byte_lengths, text_array
from pipeline.part import read_columns

LARGEST_CLASSES = 10
SHOWN_ROWS = 3  # rows named per class
KINDS = {"exact": "grid", "symmetry": "canonical"}  # a kind of duplicate: the column it compares
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class DuplicateClass:
    """Rows sharing one value of the compared column: the value, how many rows, the first
    ``SHOWN_ROWS`` of them (input, row), and the rows per input (the inputs it spans)."""

    value: str
    rows: int
    where: tuple[tuple[str, int], ...]
    inputs: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "rows": self.rows,
                "where": [{"source": source, "row": row} for source, row in self.where],
                "inputs": self.inputs}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DuplicateClass:
        return cls(data["value"], data["rows"],
                   tuple((w["source"], w["row"]) for w in data["where"]), dict(data["inputs"]))


@dataclass(frozen=True)
class Duplicates:
    """How the rows of a run repeat, by one column: ``rows`` with a value, ``distinct`` values,
    ``repeated`` (classes of more than one row), the ``largest`` classes, and ``shared``: for
    each set of two or more inputs, the classes whose rows span exactly those inputs."""

    column: str
    rows: int
    distinct: int
    repeated: int
    largest: tuple[DuplicateClass, ...]
    shared: dict[tuple[str, ...], int]

    def to_dict(self) -> dict[str, Any]:
        return {"column": self.column, "rows": self.rows, "distinct": self.distinct,
                "repeated": self.repeated,
                "largest_classes": [found.to_dict() for found in self.largest],
                "shared": [{"inputs": list(inputs), "classes": classes}
                           for inputs, classes in self.shared.items()]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Duplicates:
        return cls(data["column"], data["rows"], data["distinct"], data["repeated"],
                   tuple(DuplicateClass.from_dict(c) for c in data["largest_classes"]),
                   {tuple(s["inputs"]): s["classes"] for s in data["shared"]})


def row_hashes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A 64-bit hash of each value of ``column`` (of any length: a grid of every box size)
    and the mask of the rows that have one (not null); the rows of one length at a time."""
    values = text_array(column)
    lengths = byte_lengths(values)
    digest = np.zeros(len(values), np.uint64)
    if (lengths == 81).all():  # the usual case: one length, no copy
        return _hashed(ascii_grid(values)[0]), np.ones(len(values), bool)
    for length in np.unique(lengths[lengths >= 0]).tolist():
        rows = np.flatnonzero(lengths == length)
        digest[rows] = _hashed(ascii_grid(values.take(pa.array(rows)), length)[0])
    return digest, lengths >= 0


def _hashed(grid: np.ndarray) -> np.ndarray:
    """The hash of each row of an (n, C) byte matrix, never 0 (0 stands for no value); rows of
    other lengths differ by their length, mixed in first."""
    n, cells = grid.shape
    lanes = -(-cells // 8)
    words = np.zeros((n, lanes * 8), np.uint8)
    words[:, :cells] = grid
    digest = np.full(n, 0xCBF29CE484222325 ^ cells, np.uint64)
    with np.errstate(over="ignore"):
        for lane in words.view(np.uint64).T:
            digest = (digest ^ lane) * _MULTIPLIER
            digest ^= digest >> np.uint64(29)
    return digest | np.uint64(1)


def duplicates(parts: list[tuple[str, str]], kinds: tuple[str, ...] = tuple(KINDS)
               ) -> dict[str, Duplicates]:
    """For each kind (``exact``: the ``grid`` column; ``symmetry``: ``canonical``) the
    ``Duplicates`` over ``parts``, (path, input) pairs in run order."""
    columns = [KINDS[kind] for kind in kinds]
    hashes: dict[str, list[np.ndarray]] = {column: [] for column in columns}
    sizes = []
    for path, _ in parts:
        table = read_columns(path, columns)
        for column in columns:
            hashes[column].append(row_hashes(table.column(column))[0])
        sizes.append(table.num_rows)
    starts = np.cumsum([0, *sizes])
    inputs = [source for _, source in parts]
    return {kind: _classes(KINDS[kind], _joined(hashes[KINDS[kind]]), parts, inputs, starts)
            for kind in kinds}


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """One array of the hashes of every part (the list is emptied, to free them as it goes)."""
    joined = np.concatenate(arrays) if arrays else np.zeros(0, np.uint64)
    arrays.clear()
    return joined


def _classes(column: str, hashes: np.ndarray, parts: list[tuple[str, str]], inputs: list[str],
             starts: np.ndarray) -> Duplicates:
    """The classes of equal hashes (0, no value, is not one)."""
    order = np.argsort(hashes, kind="stable")  # equal values keep their rows' (run) order
    ordered = hashes[order]
    first_valued = int(np.searchsorted(ordered, 1))
    order, ordered = order[first_valued:], ordered[first_valued:]
    if not len(order):
        return Duplicates(column, 0, 0, 0, (), {})
    heads = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(heads, len(ordered)))
    repeated = np.flatnonzero(counts > 1)
    largest = repeated[np.lexsort((order[heads[repeated]], -counts[repeated]))][:LARGEST_CLASSES]
    numbers: dict[str, int] = {}
    for source in inputs:
        numbers.setdefault(source, len(numbers))
    names = list(numbers)
    input_of_part = np.array([numbers[source] for source in inputs], np.int64)
    input_of_row = input_of_part[np.searchsorted(starts, order, side="right") - 1]
    return Duplicates(
        column, int(len(ordered)), int(len(heads)), int(len(repeated)),
        tuple(_described(column, order[heads[k]:heads[k] + counts[k]], parts, inputs, starts)
              for k in largest.tolist()),
        _shared(heads, counts, input_of_row, names))


def _shared(heads: np.ndarray, counts: np.ndarray, input_of_row: np.ndarray,
            names: list[str]) -> dict[tuple[str, ...], int]:
    """For each set of two or more inputs, the classes whose rows span exactly those inputs.

    Within a class the rows are in run order, so its inputs come in increasing index: each
    (class, input) pair is where the input changes. A class's set of inputs is summed up in a
    64-bit signature (a random number per input, added), so classes are grouped by set with one
    sort, whatever their number; only one class of each set is spelled out."""
    rows_class = np.repeat(np.arange(len(heads)), counts)
    first_of_pair = np.concatenate(([True], (rows_class[1:] != rows_class[:-1])
                                    | (input_of_row[1:] != input_of_row[:-1])))
    pair_class, pair_input = rows_class[first_of_pair], input_of_row[first_of_pair]
    spread = np.bincount(pair_class, minlength=len(heads))
    weights = np.random.default_rng(0).integers(1, 2**63, len(names), dtype=np.uint64)
    pair_starts = np.flatnonzero(np.concatenate(([True], pair_class[1:] != pair_class[:-1])))
    with np.errstate(over="ignore"):
        signature = np.add.reduceat(weights[pair_input], pair_starts)
    several = np.flatnonzero(spread[pair_class[pair_starts]] > 1)
    if not len(several):
        return {}
    found, first, classes = np.unique(signature[several], return_index=True, return_counts=True)
    shared = {}
    for start, number in zip(pair_starts[several[first]].tolist(), classes.tolist(), strict=True):
        width = int(spread[pair_class[start]])
        shared[tuple(names[i] for i in pair_input[start:start + width].tolist())] = number
    return dict(sorted(shared.items(), key=lambda item: (-item[1], item[0])))


def _described(column: str, rows: np.ndarray, parts: list[tuple[str, str]], inputs: list[str],
               starts: np.ndarray) -> DuplicateClass:
    """A class of ``rows`` (positions in the run, in order) with its value and first rows read
    back from their parts."""
    per_input: Counter = Counter()
    where = []
    for index, position in enumerate(rows.tolist()):
        part = int(np.searchsorted(starts, position, side="right") - 1)
        per_input[inputs[part]] += 1
        if index < SHOWN_ROWS:
            found = read_columns(parts[part][0], [column, "source", "row"]).slice(
                position - int(starts[part]), 1).to_pylist()[0]
            where.append((found["source"], found["row"]))
            if index == 0:
                value = found[column]
    return DuplicateClass(value, len(rows), tuple(where), dict(per_input))
