"""An output directory across runs: start, resume or refuse; and which units are done.

Everything here is decided in this process before any unit is dispatched, whatever engine
then runs the units, so the local pool and Dask resume alike:

- ``open_output`` locks the directory (one run at a time), then either starts a new run in
  it (a new or empty directory, or ``overwrite``), or continues the run it holds when its
  ``manifest.json`` says that run had the same inputs and output settings (``fingerprint``),
  or refuses with a one-line message naming the difference.
- A unit is **done** when its part exists under its final name (parts are written to a
  temporary file, flushed and renamed, so a part under its final name is complete), its
  footer reads back, and its metadata says it holds that unit's rows for this run. Its stats
  are recomputed from its own columns, by the same ``table_stats`` a worker runs, so no
  separate stats file can ever disagree with a part. Anything else is redone.
- Temporary files of a run that was killed are removed (the lock guarantees that no other
  run is writing them).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.atomic import write_atomically
from pipeline.errors import PipelineError
from pipeline.settings import OUTPUT_KEYS
from pipeline.summary import PART_GLOB, STATS_COLUMNS, SUMMARY_FILE, table_stats
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

    directory: Path
    run: dict[str, Any]
    resumed: bool
    done: dict[tuple[int, int], tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    lock: int | None = None

    def close(self) -> None:
        """Remove stale temporary files and release the lock (idempotent)."""
        if self.lock is None:
            return
        remove_temporary_files(self.directory)
        (self.directory / LOCK_FILE).unlink(missing_ok=True)
        os.close(self.lock)
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


def open_output(directory: Path, run: dict[str, Any], *, overwrite: bool, batch_size: int) -> Output:
    """Lock ``directory`` and start a run in it, or continue the one it holds (see module).

    Raises ``PipelineError`` when the directory cannot be used, holds files of other
    programs, holds another run (without ``overwrite``), or is in use by another run.
    """
    if directory.exists() and not directory.is_dir():
        raise PipelineError(f"output {directory} exists and is not a directory; choose another")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        entries = [entry for entry in directory.iterdir() if entry.name != LOCK_FILE]
    except OSError as err:
        raise PipelineError(
            f"cannot create output directory {directory}: {err.strerror or err}"
        ) from None
    foreign = [entry.name for entry in entries if not is_ours(entry)]
    if foreign:
        raise PipelineError(
            f"output directory {directory} holds files sudoku-pipeline did not write "
            f"(e.g. {sorted(foreign)[0]}); choose a new or empty directory with --output"
        )
    output = Output(directory, run, resumed=False, lock=_lock(directory))
    # Temporary files alone (a run killed before its manifest was written) are no run.
    entries = [entry for entry in entries if not _temporary(entry)]
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
        remove_temporary_files(directory)
        if output.resumed:
            output.done = finished_parts(directory, output.run, batch_size)
        else:
            write_json(directory / MANIFEST_FILE, run)
    except BaseException:
        output.close()
        raise
    return output


def finished_parts(
    directory: Path, run: dict[str, Any], batch_size: int
) -> dict[tuple[int, int], tuple[dict[str, Any], dict[str, Any]]]:
    """The parts in ``directory`` that are complete and belong to ``run``, by (file index,
    batch index): their part info and stats. Parts that are not are deleted (they are
    this program's files, of no use to this run, and will be written again)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    expected_run = run_metadata(run)[METADATA_KEY]
    done = {}
    for path in sorted(directory.glob(PART_GLOB)):
        match = PART_NAME.fullmatch(path.name)
        try:
            file = pq.ParquetFile(path)
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
        path.unlink(missing_ok=True)
    return done


def is_ours(entry: Path) -> bool:
    """Whether ``entry`` is a file that sudoku-pipeline writes into an output directory."""
    return entry.is_file() and (
        entry.match(PART_GLOB)
        or entry.name in (MANIFEST_FILE, SUMMARY_FILE, LOCK_FILE)
        or _temporary(entry)
    )


def _temporary(entry: Path) -> bool:
    return entry.name.startswith(".") and entry.name.endswith(".tmp")


def remove_temporary_files(directory: Path) -> None:
    """Delete the temporary files a killed run left behind (``.NAME.HOST-PID.tmp``,
    see ``pipeline.atomic``; older runs wrote ``.NAME.PID.tmp``)."""
    try:
        for entry in directory.glob(".*.tmp"):
            entry.unlink(missing_ok=True)
    except OSError:  # e.g. the directory became read-only: they are harmless, and hidden
        pass


def write_json(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically and durably."""
    text = json.dumps(payload, indent=2, sort_keys=True) + "\n"
    write_atomically(path, lambda file: file.write(text.encode()))


def _previous_run(directory: Path) -> dict[str, Any] | None:
    """The run record in the directory's manifest, or None when there is none."""
    try:
        run = json.loads((directory / MANIFEST_FILE).read_text())
        fingerprint(run)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        raise PipelineError(
            f"{directory / MANIFEST_FILE} cannot be read; add --overwrite to start again, "
            "or choose another --output"
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


def _clear(directory: Path, entries: list[Path]) -> None:
    try:
        for entry in entries:
            entry.unlink()
    except OSError as err:
        raise PipelineError(f"cannot clear {directory}: {err.strerror or err}") from None


def _lock(directory: Path) -> int:
    """An exclusive lock on the directory, held until ``Output.close`` or process exit.

    A POSIX record lock (``lockf``): it belongs to this process alone, so forked workers
    never hold it, and the kernel drops it when the process dies, even by ``kill -9``.
    """
    import fcntl

    path = directory / LOCK_FILE
    while True:
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise PipelineError(
                f"cannot write into output directory {directory}: {err.strerror or err}"
            ) from None
        try:
            fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(descriptor)
            raise PipelineError(
                f"output directory {directory} is in use by another sudoku-pipeline run; "
                "wait for it to finish, or choose another --output"
            ) from None
        try:  # the file may have been removed by the run that held it: lock the new one
            if os.stat(path).st_ino == os.fstat(descriptor).st_ino:
                return descriptor
        except FileNotFoundError:
            pass
        os.close(descriptor)
