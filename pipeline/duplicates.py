"""Duplicates in a run, exact and up to symmetry (SPEC section 6), counted over every part.

Each puzzle (the ``grid`` column: blanks normalised) and each canonical form is reduced to a
64-bit hash, computed with numpy over the (n, 81) bytes of a part at a time: 16 bytes a row
are kept, whatever the number of parts and inputs, and the classes are then found by sorting
(measured on 10,000,000 rows: about 400 MB at the peak, in a few seconds). Two
different strings share a hash with probability about n^2 / 2^65 (3e-6 for 10 million rows).
The largest classes are then found by their hash, and their canonical form and first row are
read back from the part that holds it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from pipeline.part import read_columns
from pipeline.work import ascii_grid, text_array

LARGEST_CLASSES = 10
_LANES = 11  # 81 bytes, padded to 88, as 11 words of 64 bits
_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def row_hashes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A 64-bit hash of each 81-character value of ``column`` and the mask of the rows that
    have one (not null)."""
    grid, present = ascii_grid(text_array(column))
    words = np.zeros((len(grid), _LANES * 8), np.uint8)
    words[:, :81] = grid
    lanes = words.view(np.uint64)
    digest = np.full(len(grid), 0xCBF29CE484222325, np.uint64)
    with np.errstate(over="ignore"):
        for lane in range(_LANES):
            digest = (digest ^ lanes[:, lane]) * _MULTIPLIER
            digest ^= digest >> np.uint64(29)
    return digest, present


def duplicates(part_paths: list[str]) -> dict[str, Any]:
    """``distinct`` puzzles (exact strings, blanks normalised), ``distinct_up_to_symmetry``
    (distinct canonical forms) and the ``largest_classes`` of equivalent puzzles: canonical
    form, rows, first source and row, over the parts ``part_paths`` (in run order)."""
    exact, canonical, sizes = [], [], []
    for path in part_paths:
        table = read_columns(path, ["grid", "canonical"])
        hashes, present = row_hashes(table.column("grid"))
        exact.append(hashes[present])
        hashes, present = row_hashes(table.column("canonical"))
        canonical.append(np.where(present, hashes, 0))  # 0: no form (kept to locate rows)
        sizes.append(table.num_rows)
    distinct = _count_distinct(_joined(exact))
    forms = _joined(canonical)
    values, first, counts = _classes(forms)
    del forms
    return {
        "distinct": distinct,
        "distinct_up_to_symmetry": int(np.count_nonzero(values)),
        "largest_classes": _largest_classes(values, first, counts, part_paths,
                                            np.cumsum([0, *sizes])),
    }


def _joined(arrays: list[np.ndarray]) -> np.ndarray:
    """One array of the hashes of every part (the list is emptied, to free them as it goes)."""
    joined = np.concatenate(arrays) if arrays else np.zeros(0, np.uint64)
    arrays.clear()
    return joined


def _count_distinct(hashes: np.ndarray) -> int:
    """How many distinct values ``hashes`` holds (sorted in place: a sort is faster than
    numpy's hashing ``unique`` here, and needs no memory beyond the array)."""
    hashes.sort()
    return int(np.count_nonzero(hashes[1:] != hashes[:-1])) + 1 if len(hashes) else 0


def _classes(forms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each distinct value of ``forms``, the index of its first row and its number of rows."""
    if not len(forms):
        return forms, np.zeros(0, np.int64), np.zeros(0, np.int64)
    order = np.argsort(forms, kind="stable")  # equal values keep their rows' order
    ordered = forms[order]
    starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
    counts = np.diff(np.append(starts, len(forms)))
    return ordered[starts], order[starts], counts


def _largest_classes(values: np.ndarray, first: np.ndarray, counts: np.ndarray,
                     part_paths: list[str], starts: np.ndarray) -> list[dict[str, Any]]:
    """The classes of more than one row, largest first (ties: first seen first)."""
    keep = (values != 0) & (counts > 1)
    order = np.lexsort((first[keep], -counts[keep]))[:LARGEST_CLASSES]
    classes = []
    for index, rows in zip(first[keep][order], counts[keep][order], strict=True):
        part = int(np.searchsorted(starts, index, side="right") - 1)
        row = read_columns(part_paths[part], ["canonical", "source", "row"]).slice(
            int(index - starts[part]), 1).to_pylist()[0]
        classes.append({"canonical": row["canonical"], "rows": int(rows),
                        "first": {"source": row["source"], "row": row["row"]}})
    return classes
