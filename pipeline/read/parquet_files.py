"""Parquet files: columns keep their types (the puzzle and solution columns must be text), the
rows are known up front, and the file is read in place, a row group at a time."""

from __future__ import annotations

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
