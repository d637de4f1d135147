"""Parquet files: columns keep their types (the puzzle and solution columns must be text), the
rows are known up front, and the file is read in place, a row group at a time: by the run's
process (``batches``), or by each worker for the rows of its own batch (``read_rows``), when
the file's row groups let a batch be read without decoding much more than its rows
(``worker_ranges``)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator

import pyarrow as pa

from pipeline import storage
from pipeline.errors import PipelineError, one_line
from pipeline.read.inputs import InputFile, Reader, check_unchanged
from pipeline.text import escaped


class ParquetReader(Reader):
    name = "parquet"
    suffixes = (".parquet",)

    def inspect(self, path: str, delimiter: str) -> tuple[pa.Schema, int | None]:
        import pyarrow.parquet as pq

        try:
            with storage.arrow_source(path) as source:
                file = pq.ParquetFile(source)
                schema, rows = file.schema_arrow.remove_metadata(), file.metadata.num_rows
        except (pa.ArrowException, OSError) as err:
            raise PipelineError(
                f"cannot read {escaped(path)}: not a readable Parquet file ({one_line(err)})"
            ) from None
        if rows == 0:
            raise PipelineError(f"input file has no rows: {escaped(path)} (remove it from the "
                                "inputs)")
        return schema, rows

    def batches(self, source: InputFile, batch_size: int,
                expected_sha256: str | None) -> Iterator[pa.RecordBatch]:
        """Read in place, then checked not to have changed (its stamp: size, time, identity)."""
        import pyarrow.parquet as pq

        # Not memory-mapped: a file rewritten under a mapping kills the process (SIGBUS), while
        # a read sees the change. Not pre-buffered: Arrow would keep every row group read so
        # far (1.3 GB of memory for 10 million Kaggle rows), where without it a row group at a
        # time is held. One thread: the workers need the cores, and Arrow's thread pool only
        # adds system time.
        with (storage.arrow_source(source.path) as where,
              pq.ParquetFile(where, pre_buffer=False) as file):
            for batch in file.iter_batches(batch_size=batch_size, columns=source.columns,
                                           use_threads=False):
                yield batch.replace_schema_metadata(None)
        check_unchanged(source)


# A file's batches are read by the workers themselves only when the row groups they decode
# hold at most this many times the file's rows (a row group is decoded whole, by every batch
# that has rows in it).
MAX_DECODED_PER_ROW = 1.5


def row_group_rows(source: InputFile) -> list[int]:
    """The rows of each row group of the Parquet file ``source``, in order."""
    import pyarrow.parquet as pq

    with storage.arrow_source(source.path) as where, pq.ParquetFile(where) as file:
        return _group_rows(file.metadata)


def _group_rows(metadata) -> list[int]:
    return [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)]


def aligned_batch_rows(groups: list[int], rows: int) -> int:
    """``rows`` per batch, rounded to a whole number of row groups when the file's row groups
    (but its last) are of one size at most twice ``rows``: then every batch decodes exactly
    its own rows when its worker reads them."""
    size = groups[0]
    if not size or any(group != size for group in groups[:-1]) or size > 2 * rows:
        return rows
    return max(round(rows / size), 1) * size


def worker_ranges(groups: list[int], batch_rows: int) -> list[tuple[int, int]] | None:
    """The batches of a file of row groups ``groups``, ``batch_rows`` rows each, as (first
    row, rows), when its workers should read them themselves; None when the row groups are
    so large against the batches that each would decode far more rows than it holds
    (``MAX_DECODED_PER_ROW``)."""
    total = sum(groups)
    starts = list(itertools.accumulate(groups, initial=0))
    ranges = [(first, min(batch_rows, total - first)) for first in range(0, total, batch_rows)]
    decoded = sum(_decoded_rows(starts, first, rows) for first, rows in ranges)
    return ranges if decoded <= MAX_DECODED_PER_ROW * total else None


def _covering(starts: list[int], first: int, rows: int) -> range:
    """The row groups (by index; ``starts``: where each begins, then the file's rows) that
    hold rows ``first`` .. ``first + rows - 1``."""
    return range(bisect.bisect_right(starts, first) - 1, bisect.bisect_left(starts, first + rows))


def _decoded_rows(starts: list[int], first: int, rows: int) -> int:
    groups = _covering(starts, first, rows)
    return starts[groups.stop] - starts[groups.start]


def read_rows(source: InputFile, first: int, rows: int) -> pa.Table:
    """Rows ``first`` .. ``first + rows - 1`` of the Parquet file ``source`` (its columns
    as read, not yet as ``source.schema``), from the row groups that hold them; checked not to
    have changed since it was inspected, after reading (``InputChanged``)."""
    import pyarrow.parquet as pq

    # As ``batches`` reads: not memory-mapped, not pre-buffered, one thread.
    with (storage.arrow_source(source.path) as where,
          pq.ParquetFile(where, pre_buffer=False) as file):
        starts = list(itertools.accumulate(_group_rows(file.metadata), initial=0))
        groups = _covering(starts, first, rows)
        table = file.read_row_groups(list(groups), columns=source.columns, use_threads=False)
    check_unchanged(source)
    return table.slice(first - starts[groups.start], rows).replace_schema_metadata(None)
