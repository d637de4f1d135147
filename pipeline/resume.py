"""An output directory across runs: start, resume or refuse; and which units are done.

Everything here is decided in this process before any unit is dispatched, whatever engine
then runs the units, so the local pool and Dask resume alike:

- ``open_output`` locks the directory (one run at a time), then either starts a new run in
  it (a new or empty directory, or ``overwrite``), or continues the run it holds when its
  ``manifest.json`` says that run had the same inputs and output settings (``fingerprint``),
  or refuses with a one-line message naming the difference.
- A unit is **done** when its part exists under its final name (parts are written to a
  temporary file, flushed and renamed, or uploaded whole to an object store, so a part under its
  final name is complete), its
  footer reads back, and its metadata says it holds that unit's rows for this run. Its stats
  are recomputed from its own columns, by the same ``table_stats`` a worker runs, so no
  separate stats file can ever disagree with a part. Anything else is redone.
- Temporary files of a run that was killed are removed (the lock guarantees that no other
  run is writing them).

The directory may be a URL (``s3://bucket/run``): ``pipeline.storage`` does the file work.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from pipeline import storage
from pipeline.errors import PipelineError
from pipeline.settings import OUTPUT_KEYS
from pipeline.summary import (
    STATS_COLUMNS,
    SUMMARY_FILE,
    is_part_name,
    part_names,
    table_stats,
)
from pipeline.work import METADATA_KEY, PART_METADATA_KEY, run_metadata

MANIFEST_FILE = "manifest.json"
LOCK_FILE = ".sudoku-pipeline.lock"
PART_NAME = re.compile(r"part-(\d{5})-(\d{6})\.parquet")


@dataclass
class Output:
    """An output directory, locked for this run.

    ``run`` is the run record every part and the summary carry: the one in the manifest
    when the run is resumed (so all its parts agree), else this run's. ``done`` maps
    (file index, batch index) to the part info and stats of each finished part.
    """

    directory: str
    run: dict[str, Any]
    resumed: bool
    done: dict[tuple[int, int], tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    lock: storage.Lock | None = None

    def path(self, name: str) -> str:
        """The location of the file ``name`` in the directory."""
        return storage.join(self.directory, name)

    def close(self) -> None:
        """Remove stale temporary files and release the lock (idempotent)."""
        if self.lock is None:
            return
        storage.remove_temporary_files(self.directory)
        self.lock.release()
        self.lock = None


def fingerprint(run: dict[str, Any]) -> dict[str, Any]:
    """What a run must share with the run in a directory to continue it: the package
    version and code, the settings that change the rows or the parts (``OUTPUT_KEYS``), and the
    inputs (path as given, and content). Workers, engine, compression, time limit and
    the like may differ: the rows do not depend on them."""
    return {
        "version": run["version"],
        "code": run.get("code"),
        "settings": {key: run["settings"].get(key) for key in OUTPUT_KEYS},
        "inputs": [{"path": i["path"], "sha256": i["sha256"]} for i in run["inputs"]],
    }


def open_output(
    directory: str | os.PathLike, run: dict[str, Any], *, overwrite: bool, batch_size: int
) -> Output:
    """Lock ``directory`` and start a run in it, or continue the one it holds (see module).

    Raises ``PipelineError`` when the directory cannot be used, holds files of other
    programs, holds another run (without ``overwrite``), or is in use by another run.
    """
    directory = storage.location(directory)
    if storage.is_private(directory):
        raise PipelineError(
            f"output {directory} is on a filesystem private to this process, where the worker "
            "processes' parts would be lost; choose a directory or a shared URL (s3://...)"
        )
    if storage.kind(directory) not in (None, "directory"):
        raise PipelineError(f"output {directory} exists and is not a directory; choose another")
    storage.make_directory(directory)
    entries = [entry for entry in storage.listing(directory) if entry.name != LOCK_FILE]
    foreign = [entry.name for entry in entries if not is_ours(entry)]
    if foreign:
        raise PipelineError(
            f"output directory {directory} holds files sudoku-pipeline did not write "
            f"(e.g. {sorted(foreign)[0]}); choose a new or empty directory with --output"
        )
    output = Output(directory, run, resumed=False, lock=storage.lock_directory(directory, LOCK_FILE))
    # Temporary files alone (a run killed before its manifest was written) are no run.
    entries = [entry for entry in entries if not storage.is_temporary(entry.name)]
    try:
        if entries and not overwrite:
            previous = _previous_run(directory)
            if previous is None:
                raise PipelineError(
                    f"output directory {directory} holds parts of a run without its "
                    f"{MANIFEST_FILE}; add --overwrite to start again, or choose another --output"
                )
            difference = _difference(fingerprint(previous), fingerprint(run))
            if difference:
                raise PipelineError(
                    f"output directory {directory} holds a run with {difference}; rerun with "
                    "the same inputs and settings to continue it, add --overwrite to replace "
                    "it, or choose another --output"
                )
            output.run, output.resumed = previous, True
        elif entries:
            _clear(directory, entries)
        storage.remove_temporary_files(directory)
        if output.resumed:
            output.done = finished_parts(directory, output.run, batch_size)
        else:
            write_json(output.path(MANIFEST_FILE), run)
    except BaseException:
        output.close()
        raise
    return output


def finished_parts(
    directory: str, run: dict[str, Any], batch_size: int
) -> dict[tuple[int, int], tuple[dict[str, Any], dict[str, Any]]]:
    """The parts in ``directory`` that are complete and belong to ``run``, by (file index,
    batch index): their part info and stats. Parts that are not are deleted (they are
    this program's files, of no use to this run, and will be written again)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    expected_run = run_metadata(run)[METADATA_KEY]
    done = {}
    for name in part_names(directory):
        path = storage.join(directory, name)
        match = PART_NAME.fullmatch(name)
        try:
            with storage.arrow_source(path) as source:
                file = pq.ParquetFile(source)
                metadata = file.schema_arrow.metadata or {}
                info = json.loads(metadata.get(PART_METADATA_KEY, b"null"))
                key = (int(match.group(1)), int(match.group(2))) if match else None
                usable = (
                    key is not None
                    and metadata.get(METADATA_KEY) == expected_run
                    and isinstance(info, dict)
                    and (info.get("file_index"), info.get("batch_index")) == key
                    and info.get("first_row") == key[1] * batch_size
                    and info.get("rows") == file.metadata.num_rows
                )
                if usable:
                    stats = table_stats(file.read(columns=list(STATS_COLUMNS)))
                    stats["parts"] = 1
                    done[key] = (info, stats)
                    continue
        except (pa.ArrowException, OSError, ValueError, PipelineError):
            pass
        storage.delete(path)
    return done


def is_ours(entry: storage.Entry) -> bool:
    """Whether ``entry`` is a file that sudoku-pipeline writes into an output directory."""
    return entry.is_file and (
        is_part_name(entry.name)
        or entry.name in (MANIFEST_FILE, SUMMARY_FILE, LOCK_FILE)
        or storage.is_temporary(entry.name)
    )


def write_json(path: str, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically and durably."""
    storage.write_bytes(path, (json.dumps(payload, indent=2, sort_keys=True) + "\n").encode())


def _previous_run(directory: str) -> dict[str, Any] | None:
    """The run record in the directory's manifest, or None when there is none."""
    path = storage.join(directory, MANIFEST_FILE)
    try:
        run = json.loads(storage.read_bytes(path))
        fingerprint(run)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, PipelineError):
        raise PipelineError(
            f"{path} cannot be read; add --overwrite to start again, or choose another --output"
        ) from None
    return run


def _difference(before: dict[str, Any], now: dict[str, Any]) -> str:
    """The first difference between two fingerprints, in words ('' when equal)."""
    if before["version"] != now["version"]:
        return f"sudoku-pipeline {before['version']} (this is {now['version']})"
    if before["code"] != now["code"]:
        return "another version of the solver or readers (their code has changed since)"
    for key in OUTPUT_KEYS:
        if before["settings"][key] != now["settings"][key]:
            return f"{key} = {before['settings'][key]!r} (this run has {now['settings'][key]!r})"
    paths = [entry["path"] for entry in before["inputs"]]
    if paths != [entry["path"] for entry in now["inputs"]]:
        return f"other inputs ({', '.join(paths)})"
    for old, new in zip(before["inputs"], now["inputs"], strict=True):
        if old["sha256"] != new["sha256"]:
            return f"input {old['path']} as it was before it changed"
    return ""


def _clear(directory: str, entries: list[storage.Entry]) -> None:
    for entry in entries:
        storage.delete(storage.join(directory, entry.name))

