"""Build the benchmark dataset: 1,000,000 puzzles made from Kaggle's by Sudoku symmetries.

Each output row takes one of the 10,000 rows of ``../shared/datasets/kaggle_1m_sample.csv``
and applies one random symmetry of the Sudoku grid to its puzzle and, consistently, to its
solution: relabel the digits, permute the three bands and the rows within each band, the
three stacks and the columns within each stack, and transpose or not. Every such image is
a valid puzzle whose unique solution is the image of the original solution, with the same
givens count and the same difficulty. Vectorised numpy, seeded: the same command writes the
same file.

    .venv/bin/python tools/make_symmetric_dataset.py [--rows 1000000] [--seed 2024]
        [--source ../shared/datasets/kaggle_1m_sample.csv]
        [--out bench-output/kaggle_symmetric_1m.parquet]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = HERE.parent / "shared" / "datasets" / "kaggle_1m_sample.csv"
DEFAULT_OUT = HERE / "bench-output" / "kaggle_symmetric_1m.parquet"
CHUNK = 100_000  # rows transformed at a time (the index arrays are 81 x 8 bytes per row)


def load(source: Path) -> tuple[np.ndarray, np.ndarray]:
    """The quizzes and solutions of a Kaggle-style CSV as two (n, 81) ASCII arrays."""
    table = pacsv.read_csv(
        source,
        convert_options=pacsv.ConvertOptions(
            column_types={"quizzes": pa.string(), "solutions": pa.string()}
        ),
    )
    return ascii_matrix(table["quizzes"]), ascii_matrix(table["solutions"])


def ascii_matrix(column: pa.ChunkedArray) -> np.ndarray:
    """An all-81-character string column as an (n, 81) uint8 array."""
    array = column.combine_chunks()
    lengths = np.diff(np.frombuffer(array.buffers()[1], np.int32)[: len(array) + 1])
    if (lengths != 81).any():
        raise SystemExit("every puzzle and solution of the source must have 81 characters")
    data = np.frombuffer(array.buffers()[2], np.uint8)
    start = np.frombuffer(array.buffers()[1], np.int32)[0]
    return data[start : start + 81 * len(array)].reshape(-1, 81)


def random_lines(rng: np.random.Generator, n: int) -> np.ndarray:
    """For each of n grids, an order of the 9 rows (or columns) that keeps bands together:
    a random order of the 3 bands, and a random order of the 3 rows within each."""
    bands = rng.random((n, 3)).argsort(axis=1)
    within = rng.random((n, 3, 3)).argsort(axis=2)
    return (3 * bands[:, :, None] + within).reshape(n, 9)


def symmetries(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n random grid symmetries: for each, the source cell of every cell (n, 81) and a
    digit relabelling table for ASCII bytes (n, 256), blanks ('0', '.') kept."""
    rows, cols = random_lines(rng, n), random_lines(rng, n)
    source = rows[:, :, None] * 9 + cols[:, None, :]  # (n, 9, 9)
    transpose = rng.random(n) < 0.5
    source[transpose] = source[transpose].transpose(0, 2, 1)
    relabel = np.tile(np.arange(256, dtype=np.uint8), (n, 1))
    digits = rng.random((n, 9)).argsort(axis=1).astype(np.uint8) + ord("1")
    relabel[:, ord("1") : ord("9") + 1] = digits
    return source.reshape(n, 81), relabel


def transform(grids: np.ndarray, source: np.ndarray, relabel: np.ndarray) -> np.ndarray:
    moved = np.take_along_axis(grids, source, axis=1)
    return np.take_along_axis(relabel, moved.astype(np.intp), axis=1)


def strings(matrix: np.ndarray) -> pa.Array:
    """An (n, 81) ASCII array as an Arrow string array, built from buffers."""
    n = len(matrix)
    offsets = np.arange(0, 81 * (n + 1), 81, dtype=np.int32)
    return pa.StringArray.from_buffers(
        n, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(matrix))
    )


def build(source: Path, out: Path, rows: int, seed: int) -> None:
    quizzes, solutions = load(source)
    rng = np.random.default_rng(seed)
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(f".{out.name}.tmp")
    schema = pa.schema([("quizzes", pa.string()), ("solutions", pa.string())])
    with pq.ParquetWriter(temporary, schema, compression="zstd") as writer:
        for start in range(0, rows, CHUNK):
            n = min(CHUNK, rows - start)
            picks = rng.integers(0, len(quizzes), n)
            cells, relabel = symmetries(rng, n)
            writer.write_table(
                pa.table(
                    [
                        strings(transform(quizzes[picks], cells, relabel)),
                        strings(transform(solutions[picks], cells, relabel)),
                    ],
                    schema=schema,
                )
            )
    os.replace(temporary, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    if not args.source.is_file():
        sys.exit(f"source not found: {args.source} (the shared datasets are not available)")
    build(args.source, args.out, args.rows, args.seed)
    print(f"wrote {args.rows:,} rows to {args.out}")


if __name__ == "__main__":
    main()
