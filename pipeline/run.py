"""A whole run, in three steps: plan, dispatch, finish.

- **plan**: find and inspect every input (headers and metadata only) and hash it, so a bad
  input fails before anything is written; lock the output directory and either write its
  manifest (the run record) or continue the run it holds (``pipeline.resume``);
- **dispatch**: stream the inputs in batches to the engine, skipping the batches whose parts
  are done, each unit writing one part; collect each part's ``Stats``;
- **finish**: check every part of the run on disk against the manifest, store the summary
  last, and raise ``RunIncomplete`` for what is missing.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TypeVar

import pyarrow as pa

from pipeline import storage
from pipeline.columns import RESULT_NAMES
from pipeline.engines import build_engine
from pipeline.engines.contract import Engine, Failure, PartMissing
from pipeline.errors import PipelineError, RunIncomplete, one_line
from pipeline.part import PartInfo, output_schema
from pipeline.provenance import InputEntry, RunRecord
from pipeline.read import (
    InputChanged,
    InputFile,
    batch_rows_for,
    estimated_rows,
    file_digest,
    find_inputs,
    inspect_input,
    read_batches,
    worker_batches,
)
from pipeline.resume import (
    BY_INPUT_LIMIT,
    MANIFEST_FILE,
    SUMMARY_FILE,
    Output,
    batch_rows_of,
    belongs_to,
    coverage,
    open_output,
    survey,
    write_manifest,
)
from pipeline.settings import RUN_SETTINGS, Settings, available_cores, casts_of
from pipeline.stats import Stats, Tally
from pipeline.summary import (
    InputRows,
    MissingRows,
    Summary,
    batch_rows_by_input,
    batch_rows_of_inputs,
    build_summary,
    by_input_of,
    duplicates_of,
    finish_advice,
    run_parts,
    summarize,
    tally_of,
    write_summary,
)
from pipeline.text import escaped
from pipeline.warm_up import load_solver
from pipeline.work import Unit, to_ipc

__all__ = ["solve_dataset"]
T = TypeVar("T")
# The automatic batch size (setting batch_size = 0): see ``auto_batch_rows``.
AUTO_BATCH_SECONDS = 2.0
BATCHES_PER_WORKER = 4
MIN_AUTO_BATCH = 16
MAX_AUTO_BATCH = 50_000
PILOT_ROWS = 512
PILOT_SECONDS = 0.25
log = logging.getLogger("pipeline")


def solve_dataset(
    inputs: Sequence[str | os.PathLike],
    output: str | os.PathLike,
    settings: Settings,
    *,
    engine: Engine | None = None,
    progress: bool | None = None,
) -> Summary:
    """Solve every puzzle of ``inputs`` into Parquet parts in ``output``; return the summary.

    A run that was stopped (killed, interrupted, out of time, out of disk) continues when
    started again with the same inputs and row settings: finished parts are kept and only
    the others are solved (``pipeline.resume``). A run that is complete already is not
    solved again: its summary (from its parts) comes back with ``resumed_rows`` equal to
    its rows.

    ``engine``: where the units run (default: the one ``settings.engine`` names).
    ``progress``: show a progress bar on stderr (default: when stderr is a terminal and
    ``settings.quiet`` is false). Raises ``PipelineError`` for every expected failure, and
    its subclass ``RunIncomplete`` when the time limit stops the run or rows are missing.

    >>> summary = solve_dataset(["data/sample.csv"], "output", load_settings())  # doctest: +SKIP
    >>> summary.rows_out                                                         # doctest: +SKIP
    300
    """
    started = time.perf_counter()
    engine = engine or build_engine(settings)
    engine.check()
    _warn_about_workers(settings)
    show = (not settings.quiet and sys.stderr.isatty()) if progress is None else progress
    plan = make_plan(inputs, output, settings)
    with plan.out:
        if plan.out.resumed and plan.finished():
            return _already_complete(plan.out)
        storage.delete(plan.out.path(SUMMARY_FILE))  # written again at the end
        try:
            dispatched = dispatch(plan, engine, started=started, progress=show)
        except MemoryError:
            raise _out_of_memory(plan) from None
        return finish(plan, dispatched, wall_seconds=time.perf_counter() - started)


def _out_of_memory(plan: Plan) -> RunIncomplete:
    """This process ran out of memory reading and sending batches (the workers' own failures
    are theirs): what is written is kept, and smaller batches need less."""
    return RunIncomplete(
        f"out of memory in the main process while reading and sending batches to the workers; "
        f"the parts already written are kept in {plan.out.directory}: rerun the same command "
        "with a smaller --batch-size (or fewer --workers) to continue"
    )


# --- plan ------------------------------------------------------------------------------------


@dataclass
class Plan:
    """The inputs, inspected; the output directory, locked; the output schema."""

    sources: list[InputFile]
    out: Output
    schema: pa.Schema
    settings: Settings
    estimates: list[int | None]  # rows expected of each input, for the bar and the batches
    compile_seconds: float  # loading (or, the first time, compiling) the solver
    first_kept: dict[int, PartInfo] = field(default_factory=dict)  # by input: a part kept

    def __post_init__(self) -> None:
        for key, info in sorted(self.out.done.items()):
            self.first_kept.setdefault(key[0], info)

    @property
    def estimate(self) -> int | None:
        """Rows expected in all, for the progress bar (None when an input cannot tell)."""
        return None if None in self.estimates else sum(self.estimates)

    @property
    def compression(self) -> str:
        """The run's compression, as it started: every part of a run is written alike."""
        return self.out.run.settings.compression

    def finished(self) -> bool:
        """Whether the directory already holds every row of this run (decided from the
        parts, never from an earlier summary)."""
        return coverage(list(self.out.done.values()), [s.path for s in self.sources]).complete

    def batch_rows(self, file_index: int) -> int:
        """Rows per batch of input ``file_index``: as its parts kept from an earlier session
        have them; else the setting ``batch_size``; else chosen now, for this input's work
        (``auto_batch_rows``)."""
        kept = self.first_kept.get(file_index)
        if kept is not None:
            return batch_rows_of(kept)
        return self.settings.batch_size or auto_batch_rows(
            self.sources[file_index], self.settings, self.estimates[file_index], self.estimate)


def make_plan(inputs: Sequence[str | os.PathLike], output: str | os.PathLike,
              settings: Settings) -> Plan:
    """Inspect and hash the inputs, choose the batch size, then open the output directory
    (see the module)."""
    inputs, parts = runs_as_parts(inputs)
    sources = [
        inspect_input(path, column=settings.column, solution_column=settings.solution_column,
                      delimiter=settings.delimiter, casts=casts_of(settings),
                      reserved=RESULT_NAMES, leave_out=RESULT_NAMES if path in parts else ())
        for path in find_inputs(inputs)
    ]
    _check_casts(sources, casts_of(settings))
    output = storage.location(output)
    _check_not_inside(sources, output)
    input_schema = _unified_schema(sources)
    digests = [file_digest(source.path, count_lines=source.rows is None) for source in sources]
    entries = [InputEntry(s.path, s.format, s.size, digest)
               for s, (digest, _) in zip(sources, digests, strict=True)]
    estimates = [estimated_rows(source, lines)
                 for source, (_, lines) in zip(sources, digests, strict=True)]
    # before the workers are forked
    compile_seconds = load_solver(settings.solve_options, quiet=settings.quiet)
    out = open_output(output, RunRecord.new(settings, entries), input_schema,
                      overwrite=settings.overwrite)
    if out.resumed:
        _warn_about_kept_settings(out.run.settings, settings)
    return Plan(sources, out, output_schema(input_schema), settings, estimates, compile_seconds)


def runs_as_parts(inputs: Sequence[str | os.PathLike]) -> tuple[list[str], set[str]]:
    """``inputs``, each output directory of a run (one holding a manifest: a solve-dataset or
    generate run) replaced by its parts in run order; and the set of those parts, whose result
    columns are left out when they are read (the run's own input columns are the dataset: a
    part named as a file keeps them, as ``input_*`` columns)."""
    found: list[str] = []
    parts: set[str] = set()
    for given in inputs:
        path = storage.location(given)
        if storage.kind(path) != "directory" or storage.kind(
                storage.join(path, MANIFEST_FILE)) != "file":
            found.append(path)
            continue
        run, infos = run_parts(path)
        if not coverage(infos, run.paths).complete:
            raise PipelineError(f"input {escaped(path)} is a run that is not complete: "
                                f"{finish_advice(run.command)} first, or name its parts")
        named = [storage.join(path, info.name) for info in infos]
        found += named
        parts.update(named)
    return found, parts


def auto_batch_rows(source: InputFile, settings: Settings, rows: int | None,
                    total: int | None) -> int:
    """Rows per batch of ``source``, chosen when it is first read, for the work it holds: about
    ``AUTO_BATCH_SECONDS`` of one worker's work (measured on its first rows, so that an easy
    input's batch size never makes a hard input's batches minutes long), and at least
    ``BATCHES_PER_WORKER`` batches a worker over the run's ``total`` rows, so every worker is
    busy from the start and a stop loses little; between ``MIN_AUTO_BATCH`` (one row when
    rows take longer than ``AUTO_BATCH_SECONDS / MIN_AUTO_BATCH`` each: the SE rating of a
    hard puzzle takes seconds) and ``MAX_AUTO_BATCH`` rows, then rounded to whole row groups
    of a Parquet file where they are near that (``batch_rows_for``: its workers then read their
    own rows, each decoding only them). An input of one row is not measured. Each part records
    its rows: a continued run keeps the batches an input started with."""
    if rows is not None and rows <= 1:
        return MIN_AUTO_BATCH
    return batch_rows_for(source, batch_rows_by(_pilot(source, settings), total,
                                                settings.workers))


def batch_rows_by(seconds_per_row: float, total: int | None, workers: int) -> int:
    """``auto_batch_rows``'s rule, for rows of ``seconds_per_row`` of CPU each, ``total`` rows
    in the run (None: not known) and ``workers``."""
    by_time = AUTO_BATCH_SECONDS / max(seconds_per_row, 1e-9)
    by_spread = MAX_AUTO_BATCH  # a compressed file's rows are not known before it is read
    if total is not None:
        by_spread = -(-max(total, 1) // (BATCHES_PER_WORKER * workers))
    least = MIN_AUTO_BATCH if by_time >= MIN_AUTO_BATCH else 1
    return int(min(max(min(by_time, by_spread), least), MAX_AUTO_BATCH))


def _pilot(source: InputFile, settings: Settings) -> float:
    """CPU seconds per row of the solver on the first rows of ``source`` (at most
    ``PILOT_ROWS`` rows, stopping after ``PILOT_SECONDS`` of CPU; one row first, then twice as
    many each time up to 16, so that rows of seconds each cost the pilot one). CPU time, not
    the clock: the pilot runs while the workers start, and a busy machine would otherwise make
    the batches of the same input smaller from run to run."""
    import solver
    from pipeline.arrow import ascii_grid, text_array

    first = next(iter(read_batches(source, PILOT_ROWS)), None)
    if first is None:
        return 0.0
    grid, fits = ascii_grid(text_array(first.column(source.puzzle_column)))
    grid = grid[fits]
    started = time.process_time()
    solved, chunk = 0, 1
    while solved < len(grid) and time.process_time() - started < PILOT_SECONDS:
        solver.solve_ascii(grid[solved:solved + chunk], settings.solve_options)
        solved += len(grid[solved:solved + chunk])
        chunk = min(2 * chunk, 16)
    return (time.process_time() - started) / solved if solved else 0.0


def _warn_about_kept_settings(started_with: Settings, settings: Settings) -> None:
    """A continued run keeps the settings of how its output is written; name any given now
    that it does not take, rather than ignoring it silently."""
    for name in RUN_SETTINGS:
        if getattr(started_with, name) != getattr(settings, name):
            log.warning(
                "this run continues with %s = %r, as it started; %s %s applies to a new run "
                "only (add --overwrite to start again)", name, getattr(started_with, name),
                "--" + name.replace("_", "-"), getattr(settings, name))


def _warn_about_workers(settings: Settings) -> None:
    cores = available_cores()
    if settings.engine == "local" and settings.workers > 2 * cores:
        log.warning(
            "--workers %d is far above the %d cores here: the workers share the cores, and each "
            "holds its batches in memory; 0 means one worker per core", settings.workers, cores)


def _check_not_inside(sources: list[InputFile], output: str) -> None:
    """Refuse inputs inside the output directory: preparing it could delete them."""
    directory = storage.canonical(output).rstrip("/") + "/"
    for source in sources:
        if storage.canonical(source.path).startswith(directory):
            raise PipelineError(
                f"input {source.path} is inside the output directory {output}; choose another --output"
            )


def _check_casts(sources: list[InputFile], casts: dict[str, str]) -> None:
    """Refuse a column to cast that no input has (a mistyped name)."""
    for name in casts:
        if not any(name in source.schema.names for source in sources):
            raise PipelineError(f"setting cast names column {name!r}, which no input has; "
                                "check the name")


def _unified_schema(sources: list[InputFile]) -> pa.Schema:
    """One schema for every part: the input columns of all files, in order of first
    appearance, so that one glob reads the whole output."""
    fields: dict[str, pa.Field] = {}
    first_seen: dict[str, str] = {}
    for source in sources:
        for field_ in source.schema:
            known = fields.get(field_.name)
            if known is None:
                fields[field_.name] = field_
                first_seen[field_.name] = source.path
            elif known.type != field_.type:
                raise PipelineError(
                    f"column {field_.name!r} is {known.type} in {first_seen[field_.name]} but "
                    f"{field_.type} in {source.path}; run them separately or make the types agree"
                )
    return pa.schema(list(fields.values()))


def _already_complete(out: Output) -> Summary:
    """The summary of a run that is complete already, from its parts; nothing is solved.
    (A run killed after its last part but before its summary gets its summary now.)"""
    summary = summarize(out.directory)
    if storage.kind(out.path(SUMMARY_FILE)) is None:
        write_summary(out.directory, summary)
    return replace(summary, resumed_rows=summary.rows_out)


# --- dispatch --------------------------------------------------------------------------------


@dataclass
class Dispatched:
    """What a dispatch did: the info of every part of the run it knows (kept or written now)
    and their stats added up (``tally``; ``stale`` when kept parts that no longer fit were
    deleted after being counted), the rows it read of each input, the units given up, and
    whether the time limit stopped it."""

    parts: dict[tuple[int, int], PartInfo]
    tally: Tally
    rows_read: list[int]
    rows_kept: int = 0
    failures: list[Failure] = field(default_factory=list)
    stopped: bool = False
    stale: bool = False


def dispatch(plan: Plan, engine: Engine, *, started: float, progress: bool | None) -> Dispatched:
    """Send every batch that is not done to ``engine``; collect what comes back."""
    settings, out = plan.settings, plan.out
    done = dict(out.done)
    tally = out.kept or Tally(len(plan.sources), BY_INPUT_LIMIT)
    result = Dispatched(parts={}, tally=tally, rows_read=[0] * len(plan.sources))
    bar = _progress_bar(plan.estimate, bool(progress))

    def batches(file_index: int, source: InputFile) -> Iterator[tuple[PartInfo, pa.Table | None]]:
        """Each batch of an input: its part's info, and its rows (None: its worker reads them)."""
        size = plan.batch_rows(file_index)
        ranges = worker_batches(source, size) if engine.reads_in_workers(source.path) else None
        if ranges is not None:
            for batch_index, (first, rows) in enumerate(ranges):
                yield PartInfo(source.path, file_index, batch_index, first, rows,
                               batch_index == len(ranges) - 1), None
            return
        # The reader checks, at the input's end, that it read what the plan hashed.
        expected = out.run.inputs[file_index].sha256
        first = 0
        read = with_last(read_batches(source, size, expected_sha256=expected))
        for batch_index, (batch, last) in enumerate(read):
            yield PartInfo(source.path, file_index, batch_index, first, batch.num_rows, last), batch
            first += batch.num_rows

    def units() -> Iterator[Unit]:
        for file_index, source in enumerate(plan.sources):
            for info, batch in batches(file_index, source):
                result.rows_read[file_index] += info.rows
                kept = done.pop(info.key, None)
                if kept is not None and kept == info:
                    result.parts[info.key] = kept
                    result.rows_kept += info.rows
                    bar.update(info.rows)
                    continue
                yield Unit(
                    part=info,
                    batch=None if batch is None else to_ipc(batch),
                    puzzle_column=source.puzzle_column,
                    solution_column=source.solution_column,
                    schema=plan.schema,
                    options=settings.solve_options,
                    record=out.run.part_record(file_index),
                    compression=plan.compression,
                    path=out.path(info.name),
                    source=None if batch is not None else source,
                )
        bar.total = sum(result.rows_read)  # the estimate becomes exact once everything is read
        bar.refresh()

    def on_result(unit: Unit, stats: Stats) -> None:
        result.parts[unit.part.key] = unit.part
        result.tally.add(unit.part.file_index, stats)
        bar.update(unit.rows)

    deadline = None
    if settings.time_limit:
        deadline = time.monotonic() + settings.time_limit - (time.perf_counter() - started)
    try:
        outcome = engine.run(units(), on_result, deadline=deadline)
    except InputChanged as changed:
        _forget_parts_read_from(changed.path, result, out)
        raise
    except PipelineError as err:
        if _made_again(out, plan):  # rm -rf OUT (&& mkdir OUT): where err came from
            raise _directory_emptied(out, err) from None
        if isinstance(err, PartMissing) and _parts_seen(out):  # the directory is shared:
            raise _parts_lost(out, [err.unit.part]) from None  # the part was deleted under the run
        raise
    finally:
        bar.close()
    result.failures, result.stopped = outcome.failures, outcome.stopped
    if not outcome.stopped:  # every input was read: what is left are batches that no longer exist
        for info in done.values():
            storage.delete(out.path(info.name))
        result.stale = bool(done)
    return result


def _made_again(out: Output, plan: Plan) -> bool:
    """Whether the output directory was emptied or removed under the run (its manifest is
    gone); if so the directory and manifest are made again, so that the parts written from
    now on are kept and the same command continues."""
    try:
        if storage.kind(out.path(MANIFEST_FILE)) is not None:
            return False
    except PipelineError:  # the store cannot be reached at all: the error at hand says so
        return False
    storage.make_directory(out.directory)
    write_manifest(out.directory, plan.schema, out.run)
    return True


def _directory_emptied(out: Output, err: PipelineError) -> RunIncomplete:
    """What to say when ``err`` (a part gone as soon as written, or one that could not be
    written) came from the output directory being emptied or removed under the run."""
    what = (f"the part of {err.unit.part.describe()} went as soon as it was written"
            if isinstance(err, PartMissing) else one_line(err).split("; ")[0])  # not its hint
    return RunIncomplete(
        f"the output directory {out.directory} was emptied or removed during the run ({what}); "
        "the parts written since are kept: rerun the same command to solve the rest"
    )


def _forget_parts_read_from(path: str, result: Dispatched, out: Output) -> None:
    """Delete the parts this session wrote from an input that changed while it was read: their
    rows may come from either version of it. Parts kept from earlier sessions stay (the file
    was checked against the manifest when this session started)."""
    for key, info in list(result.parts.items()):
        if info.source == path and key not in out.done:
            storage.delete(out.path(info.name))
            del result.parts[key]


def with_last(items: Iterable[T]) -> Iterator[tuple[T, bool]]:
    """Each item with whether it is the last one (by looking one item ahead)."""
    iterator = iter(items)
    try:
        item = next(iterator)
    except StopIteration:
        return
    for following in iterator:
        yield item, False
        item = following
    yield item, True


def _progress_bar(total: int | None, show: bool):
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit=" puzzles",
        unit_scale=True,
        desc="solving",
        disable=not show,
        file=sys.stderr,
        smoothing=0.1,
        dynamic_ncols=True,
    )


# --- finish ----------------------------------------------------------------------------------


def finish(plan: Plan, dispatched: Dispatched, *, wall_seconds: float) -> Summary:
    """Check the parts on disk, store the summary, and raise ``RunIncomplete`` for rows
    missing (a time limit, batches that kept failing, parts lost during the run)."""
    out = plan.out
    if dispatched.stale:  # kept parts that no longer fit were counted, then deleted
        dispatched.tally = tally_of(out.directory, out.run, list(dispatched.parts.values()))
    stats = dispatched.tally.total
    if dispatched.stopped:
        raise RunIncomplete(
            f"time limit of {plan.settings.time_limit:g} s reached; {stats.rows:,} rows are "
            f"solved and kept in {out.directory}; {_rerun(plan.settings)} to continue"
        )
    _made_again(out, plan)
    lost = _lost_parts(out, dispatched)
    if lost:
        raise _parts_lost(out, lost)
    missing = [_missing_entry(failure) for failure in dispatched.failures]
    infos = [info for _, info in sorted(dispatched.parts.items())]
    cut = batch_rows_of_inputs(infos)
    inputs = [
        InputRows(**asdict(entry), rows=rows, batch_rows=cut.get(index))
        for index, (entry, rows) in enumerate(zip(out.run.inputs, dispatched.rows_read,
                                                   strict=True))
    ]
    summary = build_summary(
        stats,
        rows_in=sum(dispatched.rows_read),
        run=out.run,
        inputs=inputs,
        output=out.directory,
        wall_seconds=wall_seconds,
        compile_seconds=plan.compile_seconds,
        workers=plan.settings.workers,
        engine=plan.settings.engine,
        rows_kept=dispatched.rows_kept,
        missing=missing,
        duplicates=duplicates_of(out.run, out.directory, infos),
        by_input=by_input_of(out.run.paths, dispatched.tally),
        batch_rows=batch_rows_by_input(infos, out.run),
    )
    write_summary(out.directory, summary)
    if missing:
        raise RunIncomplete(_missing_message(missing, out.directory, plan.settings), summary)
    return summary


def _rerun(settings: Settings) -> str:
    """How to continue a stopped run: the same command, but without --overwrite, which would
    start it again (and again, at every rerun)."""
    if settings.overwrite:
        return "rerun the same command without --overwrite (which starts over)"
    return "rerun the same command"


def _parts_seen(out: Output) -> bool:
    """Whether parts of this run are in its output directory as seen from here: then the
    workers write where this process reads, and a part missing was deleted, not elsewhere."""
    return any(belongs_to(footer, out.run) for footer in survey(out.directory).parts.values())


def _parts_lost(out: Output, lost: list[PartInfo]) -> RunIncomplete:
    shown = "; ".join(info.describe() for info in lost[:3])
    return RunIncomplete(
        f"{len(lost)} part(s) of this run are no longer in {out.directory} as they were "
        f"written ({shown}); was the directory changed during the run? rerun the same "
        "command to solve them again"
    )


def _lost_parts(out: Output, dispatched: Dispatched) -> list[PartInfo]:
    """The parts this run counts that are not on disk as written: each is listed and its
    footer checked against the run record."""
    on_disk = survey(out.directory).parts
    lost = []
    for key, info in sorted(dispatched.parts.items()):
        footer = on_disk.get(key)
        if footer is None or footer.info != info or not belongs_to(footer, out.run):
            lost.append(info)
    return lost


def _missing_entry(failure: Failure) -> MissingRows:
    """The rows of a unit given up, for the summary and the message."""
    info = failure.unit.part
    return MissingRows(info.source, info.first_row, info.first_row + info.rows - 1, info.rows,
                       f"{failure.reason} ({failure.attempts} attempts)")


def _missing_message(missing: list[MissingRows], directory: str, settings: Settings) -> str:
    """One line: which rows are missing, why, and how to get them."""
    shown = "; ".join(
        f"rows {m.first_row}-{m.last_row} of {m.source}: {m.reason}" for m in missing[:3]
    )
    more = f"; and {len(missing) - 3} more batches (see the summary)" if len(missing) > 3 else ""
    rows = sum(m.rows for m in missing)
    return (
        f"{rows:,} rows are missing from {directory}, in {len(missing)} batch(es) that kept "
        f"failing ({shown}{more}); every other row is written, with the summary; "
        f"{_rerun(settings)} to retry the missing rows (with fewer --workers or a smaller "
        f"--batch-size if memory ran out)"
    )
