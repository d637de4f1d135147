"""An output directory across runs: start, resume or refuse; which parts are there and whose.

Everything here is decided in this process, whatever engine then runs the units, so the local
pool and Dask resume alike:

- ``open_output`` locks the directory (one run at a time), then either starts a new run in
  it (a new or empty directory, or ``overwrite``), or continues the run it holds when its
  manifest (``_manifest.parquet``) says that run had the same inputs and row settings
  (``pipeline.provenance.fingerprint``), or refuses with a one-line message naming the
  difference. A directory holding anything the pipeline did not write is always refused.
- ``survey`` lists the parts of a directory with their footers. A part is **done** for a run
  when it is there under its final name (parts are written to a temporary file, flushed and
  renamed, or uploaded whole to an object store, so a part under its final name is complete),
  its footer reads back, and its metadata says it holds that unit's rows for this run. Its
  stats are recomputed from its own columns (``Stats.of_table``), so no separate stats file
  can ever disagree with a part.
- ``coverage`` says, from the parts alone, which rows of each input are there: a run is
  complete when every input's parts tile its rows from 0 to its last batch.

The directory may be a URL (``s3://bucket/run``): ``pipeline.storage`` does the file work.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa

from pipeline import storage
from pipeline.errors import PipelineError
from pipeline.part import (
    RUN_KEY,
    Footer,
    PartInfo,
    is_candidates,
    output_schema,
    parse_part_name,
    read_columns,
    read_footer,
    read_record,
    write_record,
)
from pipeline.provenance import RunRecord
from pipeline.stats import STATS_COLUMNS, Stats, Tally

# The run's records among its parts, Parquet files of no rows (``part.write_record``); their
# names start with "_", which pyarrow's datasets skip and which sorts before every part.
MANIFEST_FILE = "_manifest.parquet"
SUMMARY_FILE = "_summary.parquet"
LOCK_FILE = ".sudoku-pipeline.lock"
# The summary lists each input's numbers (``by_input``) up to this many inputs: a dataset split
# into thousands of files would make the summary, and the memory of a run, grow with them;
# beyond, ``summarize --by source`` gives them.
BY_INPUT_LIMIT = 1_000
OWN_FILES = (MANIFEST_FILE, SUMMARY_FILE, LOCK_FILE)


@dataclass(frozen=True)
class Survey:
    """A directory's parts (by (file index, batch index)) with their footers, the names of
    the files the pipeline did not write, and what is wrong with those that cannot even be
    looked at (a dangling symbolic link, say), by name."""

    parts: dict[tuple[int, int], Footer]
    foreign: list[str]
    problems: dict[str, str] = field(default_factory=dict)

    def first_foreign(self) -> str:
        """The first foreign entry by name, with its problem: 'x.csv', or
        'part-00000-000000.parquet, a dangling symbolic link'."""
        name = sorted(self.foreign)[0]
        return f"{name}, {self.problems[name]}" if name in self.problems else name


@dataclass
class Output:
    """An output directory, locked for this run.

    ``run`` is the run's record: the one in the manifest when the run is resumed (so all its
    parts agree), else this run's. ``done`` holds the info of each finished part, by (file
    index, batch index), and ``kept`` their stats added up.
    """

    directory: str
    run: RunRecord
    resumed: bool
    done: dict[tuple[int, int], PartInfo] = field(default_factory=dict)
    kept: Tally | None = None
    lock: storage.Lock | None = None

    def path(self, name: str) -> str:
        """The location of the file ``name`` in the directory."""
        return storage.join(self.directory, name)

    def __enter__(self) -> Output:
        return self

    def __exit__(self, kind, error, trace) -> None:
        """Closed however the run ends; an error ending it is the one said (``close``)."""
        self.close(failing=kind is not None)

    def close(self, failing: bool = False) -> None:
        """Remove stale temporary files and candidates, and release the lock (idempotent).
        When the run is ``failing`` already, a store that cannot be reached any more to clean
        up (it went away mid-run) leaves the error at hand to be said, not its own."""
        if self.lock is None:
            return
        lock, self.lock = self.lock, None
        for step in (lambda: _remove_leftovers(self.directory), lock.release):
            try:
                step()
            except PipelineError:
                if not failing:
                    raise


def survey(directory: str) -> Survey:
    """The parts in ``directory`` and the files that are not the pipeline's. A part is the
    pipeline's when its name is one ``part_name`` writes and its footer carries the pipeline's
    metadata; an unreadable file under a part's name is foreign too."""
    parts: dict[tuple[int, int], Footer] = {}
    foreign = []
    problems = {}
    for entry in storage.listing(directory):
        if entry.problem:
            problems[entry.name] = entry.problem
        key = parse_part_name(entry.name) if entry.is_file else None
        if key is None:
            if not (entry.is_file and (entry.name in OWN_FILES or storage.is_temporary(entry.name)
                                       or is_candidates(entry.name))):
                foreign.append(entry.name)
            continue
        try:
            footer = read_footer(storage.join(directory, entry.name))
        except (FileNotFoundError, PipelineError):
            footer = None
        if footer is None or footer.run is None or footer.info is None:
            foreign.append(entry.name)
        else:
            parts[key] = footer
    return Survey(parts, foreign, problems)


def open_output(
    directory: str | os.PathLike, run: RunRecord, schema: pa.Schema, *, overwrite: bool,
    finished: Callable[[str, RunRecord, dict[tuple[int, int], Footer]],
                       tuple[dict[tuple[int, int], PartInfo], Tally]] | None = None,
) -> Output:
    """Lock ``directory`` and start a run in it, or continue the one it holds (see module).
    ``schema`` is the input columns' (the manifest of a new run is written with the parts'
    schema). ``finished`` tells the parts a continued run keeps (default ``finished_parts``:
    those of its inputs' batches).

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
    found = survey(directory)
    if found.foreign:
        raise PipelineError(
            f"output directory {directory} holds files sudoku-pipeline did not write "
            f"(e.g. {found.first_foreign()}); it never deletes those: choose a new or empty "
            "directory with --output, or move them away"
        )
    output = Output(directory, run, resumed=False, lock=storage.lock_directory(directory, LOCK_FILE))
    try:
        # Temporary files alone (a run killed before its manifest was written) are no run.
        entries = [entry for entry in storage.listing(directory)
                   if entry.name != LOCK_FILE and not storage.is_temporary(entry.name)]
        if entries and not overwrite:
            previous = read_manifest(directory)
            if previous is None:
                raise PipelineError(
                    f"output directory {directory} holds parts of a run without its "
                    f"{MANIFEST_FILE}; add --overwrite to start again, or choose another --output"
                )
            if changed := previous.difference(run):
                raise PipelineError(
                    f"output directory {directory} holds a run with {changed}; rerun with "
                    "the same inputs and settings to continue it, add --overwrite to replace "
                    "it, or choose another --output"
                )
            output.run, output.resumed = previous, True
        else:
            _clear(directory)
        _remove_leftovers(directory)
        if output.resumed:
            output.done, output.kept = (finished or finished_parts)(directory, output.run,
                                                                      found.parts)
        else:
            write_manifest(directory, output_schema(schema), run)
    except BaseException:
        output.close(failing=True)
        raise
    return output


def finished_parts(
    directory: str, run: RunRecord, parts: dict[tuple[int, int], Footer]
) -> tuple[dict[tuple[int, int], PartInfo], Tally]:
    """The ``parts`` that are complete and belong to ``run`` (their info), and their stats added
    up. Each input's parts must share its batch size (``batch_rows_of``); the others are
    deleted (they are this program's files, of no use to this run, and will be written
    again)."""
    done: dict[tuple[int, int], PartInfo] = {}
    tally = Tally(len(run.inputs), BY_INPUT_LIMIT)
    sizes: dict[int, int] = {}
    for key, footer in sorted(parts.items()):
        info = footer.info
        path = storage.join(directory, info.name)
        usable = (belongs_to(footer, run) and info.key == key and info.rows == footer.num_rows
                  and info.file_index < len(run.inputs)
                  and info.source == run.inputs[info.file_index].path)
        if usable:
            size = sizes.setdefault(info.file_index, batch_rows_of(info))
            usable = info.first_row == info.batch_index * size and (info.last or info.rows == size)
        if usable:
            try:
                stats = Stats.of_table(read_columns(path, list(STATS_COLUMNS)))
            except PipelineError:
                stats = None
            if stats is not None:
                done[key] = info
                tally.add(info.file_index, stats)
                continue
        storage.delete(path)
    return done, tally


def batch_rows_of(info: PartInfo) -> int:
    """The rows per batch of the input a part comes from, as the part shows it: the rows of a
    part that does not end its input, and for one that does, its first row over its index (or
    its rows: the input's only part)."""
    if not info.last:
        return info.rows
    return info.first_row // info.batch_index if info.batch_index else max(info.rows, 1)


def belongs_to(footer: Footer, run: RunRecord) -> bool:
    """Whether a part's footer says it was written for ``run``."""
    return footer.run == run.identity


@dataclass(frozen=True)
class Coverage:
    """Which rows of each input the parts hold, by input: ``rows`` of them are there, up to
    row ``reached`` (the row after the last part seen); ``last_seen`` when the part that ends
    the input is there; ``gaps`` lists the row ranges missing in between (source, first row,
    rows)."""

    rows: list[int]
    reached: list[int]
    last_seen: list[bool]
    gaps: list[tuple[str, int, int]]

    @property
    def complete(self) -> bool:
        return all(self.last_seen) and not self.gaps

    def ended(self, index: int, source: str) -> bool:
        """Whether every row of input ``index`` is there."""
        return self.last_seen[index] and not any(gap[0] == source for gap in self.gaps)


def coverage(infos: list[PartInfo], sources: list[str]) -> Coverage:
    """What the parts described by ``infos`` hold of the inputs ``sources`` (in run order)."""
    rows = [0] * len(sources)
    reached = [0] * len(sources)
    last_seen = [False] * len(sources)
    gaps = []
    for info in sorted(infos, key=lambda info: info.key):
        index = info.file_index
        if info.first_row > reached[index]:
            gaps.append((sources[index], reached[index], info.first_row - reached[index]))
        rows[index] += info.rows
        reached[index] = info.first_row + info.rows
        last_seen[index] = info.last
    return Coverage(rows, reached, last_seen, gaps)


def write_manifest(directory: str, schema: pa.Schema, run: RunRecord) -> None:
    """The manifest: the parts' schema, with the run record in its metadata, and no rows."""
    record = json.dumps(run.to_dict(), sort_keys=True).encode()
    write_record(storage.join(directory, MANIFEST_FILE), schema, {RUN_KEY: record})


def read_manifest(directory: str) -> RunRecord | None:
    """The run record in the directory's manifest, or None when there is none (a
    ``PipelineError`` when it cannot be read)."""
    path = storage.join(directory, MANIFEST_FILE)
    try:
        _, record = read_record(path, RUN_KEY)
        return RunRecord.from_dict(json.loads(record))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError, PipelineError):
        raise PipelineError(
            f"{path} cannot be read; add --overwrite to start again, or choose another --output"
        ) from None


def manifest_schema(directory: str) -> pa.Schema:
    """The parts' schema, as the manifest has it (without the manifest's metadata)."""
    schema, _ = read_record(storage.join(directory, MANIFEST_FILE), RUN_KEY)
    return schema.remove_metadata()


def _remove_leftovers(directory: str) -> None:
    """Delete what a stopped run leaves that no run keeps: temporary files, and the candidates
    of generated batches that were never placed."""
    storage.remove_temporary_files(directory)
    for entry in storage.listing(directory):
        if entry.is_file and is_candidates(entry.name):
            storage.delete(storage.join(directory, entry.name))


def _clear(directory: str) -> None:
    """Delete the pipeline's files (``survey`` found no others)."""
    for entry in storage.listing(directory):
        if entry.name != LOCK_FILE:
            storage.delete(storage.join(directory, entry.name))
