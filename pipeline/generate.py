"""A generated run (SPEC 8): plan, dispatch batches of draws, select them in draw order, finish.

The candidates of draw j are a pure function of (seed, j, boxsize, symmetry, minimal), so the
puzzles a run keeps depend only on its settings, whatever cuts the draws into batches, runs
them (``--workers``, ``--engine``) or stops and continues the run:

- **dispatch**: units are batches of consecutive draws (``pipeline.generate_work``'s
  ``generate_part``): a worker draws them, solves them with the run's options and writes the
  candidates of a grade asked for as a part that is not placed yet
  (``part-FFFFF-BBBBBB.candidates``, which no Parquet reader's glob of the directory takes for
  rows);
- **select**: this process takes the finished batches in draw order only (one that finishes
  early waits for those before it). It drops the candidates equal up to symmetry to a puzzle
  kept before (``distinct``) and those beyond ``count``, numbers the rows kept, and writes
  them as the placed part (atomically: ``pipeline.part.write_part``), deleting the candidates.
  A stopped run leaves no candidates behind (``Output.close``). So the placed parts on disk are
  always a prefix of the draws, which is all a continued run needs (``selected_parts``): it
  rebuilds the count and the canonical forms seen from them, and deletes the rest.
- It stops sending batches once ``count`` puzzles are kept or ``max_draws`` are drawn, and,
  with automatic batches, while the draws in flight should give the puzzles still missing (a
  round then ends with them, and another starts if they fall short); parts of batches past
  the end are deleted. ``max_draws`` reached is a ``RunIncomplete`` (exit 3): the
  same command with a larger ``max_draws`` continues.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import pyarrow as pa

from pipeline import storage
from pipeline.engines import build_engine
from pipeline.engines.contract import Engine, Failure
from pipeline.errors import PipelineError, RunIncomplete
from pipeline.generate_work import (
    DRAW_FIELDS,
    PLAIN_COLUMNS,
    Draws,
    GenerateUnit,
    draw_table,
    generate_part,
)
from pipeline.part import Footer, PartInfo, output_schema, read_columns, write_part
from pipeline.provenance import InputEntry, RunRecord, installed
from pipeline.resume import (
    BY_INPUT_LIMIT,
    SUMMARY_FILE,
    Output,
    belongs_to,
    open_output,
)
from pipeline.settings import Generation, Settings
from pipeline.stats import STATS_COLUMNS, Stats, Tally
from pipeline.summary import (
    InputRows,
    Summary,
    build_summary,
    by_input_of,
    duplicates_of,
    summarize,
    write_summary,
)
from pipeline.warm_up import announcing_compiles, load_solver
from pipeline.work import solve_table

__all__ = ["GENERATED", "generate_dataset"]
GENERATED = "generated"  # the source of a generated run's rows (its one "input")
FORMAT = "generator"
# Draws per batch when batch_size is 0 (``auto_draws``): at most about a second of one core's
# drawing (16 x 16 and 25 x 25 draws are slower by far).
BATCHES_PER_WORKER = 4
MAX_AUTO_DRAWS = {2: 5_000, 3: 2_000, 4: 40, 5: 4}
# Batches finished ahead of one still running: past this many the dispatch stops sending
# new ones until it is done, so that a batch that keeps failing cannot make it run ahead for
# ever (a new round then starts).
AHEAD_PER_WORKER = 8


def generate_dataset(
    output: str | os.PathLike,
    settings: Settings,
    generation: Generation,
    *,
    engine: Engine | None = None,
    progress: bool | None = None,
) -> Summary:
    """Generate ``generation.count`` puzzles into Parquet parts in ``output`` (a run, as
    ``solve_dataset`` writes one, with the columns ``puzzle``, ``solution`` and ``draw``
    first); return the summary.

    A run that was stopped continues when started again with the same settings, and keeps
    the same puzzles. Raises ``PipelineError`` for every expected failure, and its subclass
    ``RunIncomplete`` when ``max_draws`` or the time limit stops the run first.

    >>> summary = generate_dataset("generated", *load_generation(count=100))  # doctest: +SKIP
    >>> summary.rows_out                                                       # doctest: +SKIP
    100
    """
    started = time.perf_counter()
    engine = engine or build_engine(settings, function=generate_part)
    engine.check()
    show = (not settings.quiet and sys.stderr.isatty()) if progress is None else progress
    draws = draws_of(settings, generation)
    with announcing_compiles(settings.quiet):
        compile_seconds = _warm_up(draws, settings)
    run = RunRecord.new(settings, [_generator_entry(generation, draws)], generation)
    out = open_output(output, run, pa.schema(DRAW_FIELDS), overwrite=settings.overwrite,
                      finished=selected_parts)
    with out:
        selection = Selection.of(out, settings, generation)
        if selection.ended:
            return _already_complete(out)
        storage.delete(out.path(SUMMARY_FILE))  # written again at the end
        dispatch(selection, engine, started=started, progress=show)
        return finish(selection, wall_seconds=time.perf_counter() - started,
                      compile_seconds=compile_seconds)


def draws_of(settings: Settings, generation: Generation) -> Draws:
    """What the candidates of a run are a function of, with the draw."""
    return Draws(generation.seed, int(settings.boxsize), generation.symmetry, generation.minimal)


def _generator_entry(generation: Generation, draws: Draws) -> InputEntry:
    """The run's one input: the generator, its digest that of what the candidates are a
    function of."""
    kept = {"grade": list(generation.accepts())} | ({"se": generation.se} if generation.se else {})
    text = json.dumps({**draws.__dict__, **kept}, sort_keys=True)
    return InputEntry(GENERATED, FORMAT, None, hashlib.sha256(text.encode()).hexdigest())


def _warm_up(draws: Draws, settings: Settings) -> float:
    """Load (compile, the first time) the drawing and solving kernels of this run here, so
    that forked workers inherit them; the seconds it took. Draw 0 may need no grading rule
    (most 9 x 9 draws need none), so a 9 x 9 run also loads the solver on its warm-up puzzles
    (``pipeline.warm_up``), which need them all: else each worker loaded them in its first
    batch (about 50 ms, measured).

    Other box sizes draw nothing here: one 25 x 25 draw takes minutes, which this process
    would spend deaf to Ctrl-C and before the time limit counts. Their drawing kernels are
    compiled on no draws; a worker's first batch loads their solving kernels."""
    started = time.perf_counter()
    draws_here = 1 if draws.boxsize == 3 else 0
    if draws.boxsize == 3:
        load_solver(settings.solve_options, quiet=settings.quiet)
    table = draw_table(draws, 0, draws_here, settings.solve_options.alphabet_of(draws.boxsize))
    solve_table(table, schema=output_schema(table.schema), puzzle_column="puzzle",
                solution_column="solution", options=settings.solve_options, source=GENERATED,
                first_row=0)
    return time.perf_counter() - started


def _already_complete(out: Output) -> Summary:
    """The summary of a run that kept its count already, from its parts."""
    summary = summarize(out.directory)
    if storage.kind(out.path(SUMMARY_FILE)) is None:
        write_summary(out.directory, summary)
    return replace(summary, resumed_rows=summary.rows_out)


# --- what a continued run keeps --------------------------------------------------------------


def selected_parts(directory: str, run: RunRecord, parts: dict[tuple[int, int], Footer]
                   ) -> tuple[dict[tuple[int, int], PartInfo], Tally]:
    """The placed parts that form a prefix of the draws (batch 0, 1, ... each starting at the
    draw and row the one before ended at), and their stats; every other part (candidates not
    selected, anything after a gap) is deleted: it is written again if needed."""
    done: dict[tuple[int, int], PartInfo] = {}
    tally = Tally(1, BY_INPUT_LIMIT)
    expected = PartInfo(GENERATED, 0, 0, 0, 0, False, 0, 0)  # where the next part must start
    ended = False
    for key, footer in sorted(parts.items()):
        info = footer.info
        path = storage.join(directory, info.name)
        usable = (not ended and belongs_to(footer, run) and info.key == key == expected.key
                  and info.first_row == expected.first_row and info.rows == footer.num_rows
                  and info.first_draw == expected.first_draw and info.draws > 0)
        if usable:
            try:
                stats = Stats.of_table(read_columns(path, list(STATS_COLUMNS)))
            except PipelineError:
                usable = False
        if not usable:
            storage.delete(path)
            continue
        done[key] = info
        tally.add(0, stats)
        ended = info.last
        expected = replace(expected, batch_index=info.batch_index + 1,
                           first_row=info.first_row + info.rows,
                           first_draw=info.first_draw + info.draws)
    return done, tally


# --- dispatch and select ---------------------------------------------------------------------


@dataclass
class Selection:
    """Where a run stands: the parts placed (``parts``) and their stats (``tally``), the
    puzzles kept and the draws made by them, the canonical forms kept (``distinct``), the
    finished batches waiting for one before them (``waiting``), and what ended the run."""

    out: Output
    settings: Settings
    generation: Generation
    draws: Draws
    parts: dict[tuple[int, int], PartInfo]
    tally: Tally
    kept: int = 0
    drawn: int = 0
    kept_before: int = 0  # by an earlier session
    seen: set[str] = field(default_factory=set)
    waiting: dict[int, tuple[GenerateUnit, Stats]] = field(default_factory=dict)
    ended: bool = False  # count reached
    failures: list[Failure] = field(default_factory=list)
    stopped: bool = False  # by the time limit

    @classmethod
    def of(cls, out: Output, settings: Settings, generation: Generation) -> Selection:
        """The selection of the parts ``out`` kept (a continued run) or of none."""
        selection = cls(out, settings, generation, draws_of(settings, generation), dict(out.done),
                        out.kept or Tally(1, BY_INPUT_LIMIT))
        for info in out.done.values():
            selection.kept += info.rows
            selection.drawn = info.first_draw + info.draws
            selection.ended = info.last
        selection.kept_before = selection.kept
        if generation.distinct:
            for info in out.done.values():
                column = read_columns(out.path(info.name), ["canonical"]).column("canonical")
                selection.seen.update(column.to_pylist())
        return selection

    @property
    def next_batch(self) -> int:
        return len(self.parts)

    @property
    def exhausted(self) -> bool:
        """Whether ``max_draws`` candidates are drawn."""
        return bool(self.generation.max_draws) and self.drawn >= self.generation.max_draws

    def acceptance(self) -> float:
        """Of the candidates drawn (by this run, all sessions), the share kept."""
        return self.kept / self.drawn if self.drawn else 0.0


def dispatch(selection: Selection, engine: Engine, *, started: float, progress: bool) -> None:
    """Send batches of draws to ``engine`` until ``count`` puzzles are kept, ``max_draws``
    drawn, the time limit reached or a batch given up; select each finished batch in draw
    order (see the module)."""
    settings = selection.settings
    bar = _progress_bar(selection, progress)
    deadline = None
    if settings.time_limit:
        deadline = time.monotonic() + settings.time_limit - (time.perf_counter() - started)
    issued = [selection.next_batch, selection.drawn]  # the next batch to send, its first draw

    def units() -> Iterator[GenerateUnit]:
        ahead = AHEAD_PER_WORKER * max(engine.workers, 1)
        while not selection.ended and len(selection.waiting) < ahead:
            size = settings.batch_size or auto_draws(selection, engine.workers,
                                                     in_flight=issued[1] - selection.drawn)
            if size == 0:  # the draws in flight should be enough: the round ends with them
                return
            first, end = issued[1], issued[1] + size
            if selection.generation.max_draws:
                end = min(end, selection.generation.max_draws)
            if end <= first:
                return
            yield _unit(selection, issued[0], first, end - first)
            issued[0], issued[1] = issued[0] + 1, end

    def on_result(unit: GenerateUnit, stats: Stats) -> bool:
        """Select what can be now; whether anything was (else no progress: a stop would
        throw this batch away, so the deadline does not count from it)."""
        placed = selection.next_batch
        selection.waiting[unit.part.batch_index] = (unit, stats)
        while selection.next_batch in selection.waiting:
            select(selection, *selection.waiting.pop(selection.next_batch))
            bar.n = selection.kept
            bar.set_postfix_str(_rate_text(selection), refresh=True)
        return selection.next_batch > placed

    try:
        while not (selection.ended or selection.exhausted or selection.stopped
                   or selection.failures):
            # Rounds: one ends when its batches ran ahead of one still running (see
            # AHEAD_PER_WORKER); the next starts from the first batch not selected.
            for unit, _ in selection.waiting.values():
                storage.delete(unit.path)
            selection.waiting.clear()
            issued[:] = [selection.next_batch, selection.drawn]
            outcome = engine.run(units(), on_result, deadline=deadline)
            selection.failures, selection.stopped = outcome.failures, outcome.stopped
    finally:
        bar.close()
        for unit, _ in selection.waiting.values():  # batches past the end or past a failure
            storage.delete(unit.path)
        selection.waiting.clear()


def auto_draws(selection: Selection, workers: int, in_flight: int = 0) -> int:
    """Draws per batch when ``batch_size`` is 0, chosen again for each batch: the draws the
    whole run needs at the acceptance rate so far (taken as 1 until some are selected),
    spread over ``BATCHES_PER_WORKER`` batches a worker, at most ``MAX_AUTO_DRAWS``, and no
    more than the puzzles still missing once the ``in_flight`` draws (sent, not selected) are
    in need; 0 when those should be enough. (The puzzles never depend on it.)

    The last cut matters: the run waits for every batch in flight, so a batch sent past the
    count's end is drawn, solved and graded for nothing (a fifth of a 3,000-puzzle run's
    time, measured, before it was cut)."""
    generation = selection.generation
    rate = selection.acceptance() if selection.kept else 1.0
    if not selection.kept and selection.drawn:  # none kept yet: at most one in the draws made
        rate = 1 / selection.drawn
    needed = generation.count / rate
    spread = int(-(-needed // (BATCHES_PER_WORKER * max(workers, 1))))
    missing = generation.count - selection.kept - in_flight * rate
    if missing <= 0 and in_flight:
        return 0
    # Two standard deviations more (of the puzzles kept of that many draws, binomial), so
    # that the last batch seldom falls short and a new round, of a few draws, is needed.
    missing = max(missing, 1)
    rest = math.ceil((missing + 2 * math.sqrt(missing * (1 - rate))) / rate)
    return max(1, min(spread, rest, MAX_AUTO_DRAWS[selection.draws.boxsize]))


def _unit(selection: Selection, batch: int, first_draw: int, draws: int) -> GenerateUnit:
    out = selection.out
    info = PartInfo(GENERATED, 0, batch, -1, 0, False, first_draw, draws)
    return GenerateUnit(
        part=info,
        draws=selection.draws,
        options=selection.settings.solve_options,
        grades=selection.generation.accepts(),
        se_band=selection.generation.se_band(),
        schema=output_schema(pa.schema(DRAW_FIELDS)),
        record=out.run.part_record(0),
        compression=out.run.settings.compression,
        path=out.path(info.name),
    )


def select(selection: Selection, unit: GenerateUnit, stats: Stats) -> None:
    """Place the next batch in draw order: its candidates that are new up to symmetry (with
    ``distinct``), up to ``count``, numbered from the puzzles kept before; or delete its part
    when the count was reached before it."""
    if selection.ended:
        storage.delete(unit.path)
        return
    table = read_columns(unit.path, unit.schema.names)
    if selection.generation.distinct:
        table = table.filter(pa.array(_new_forms(table.column("canonical").to_pylist(),
                                                 selection.seen), pa.bool_()))
    room = selection.generation.count - selection.kept
    table = table.slice(0, room)
    rows = pa.array(range(selection.kept, selection.kept + table.num_rows), pa.int64())
    table = table.set_column(table.schema.get_field_index("row"), "row", rows)
    info = replace(unit.part, first_row=selection.kept, rows=table.num_rows,
                   last=table.num_rows == room)
    write_part(table, info, selection.out.path(info.name),
               record={**unit.record, "written_by": installed()},
               compression=unit.compression, plain_columns=PLAIN_COLUMNS)
    storage.delete(unit.path)  # the candidates, now placed
    if selection.generation.distinct:
        selection.seen.update(table.column("canonical").to_pylist())
    selection.parts[info.key] = info
    if table.num_rows != stats.rows:  # the worker counted rows dropped here
        stats = Stats.of_table(table).with_worker_seconds(stats.worker_seconds)
    selection.tally.add(0, stats)
    selection.kept += info.rows
    selection.drawn = info.first_draw + info.draws
    selection.ended = info.last


def _new_forms(forms: list[str], seen: set[str]) -> list[bool]:
    """Whether each canonical form is the first of its class: not in ``seen``, nor earlier in
    ``forms``."""
    new = []
    here: set[str] = set()
    for form in forms:
        new.append(form not in seen and form not in here)
        here.add(form)
    return new


def _rate_text(selection: Selection) -> str:
    return f"drawn {selection.drawn:,}, kept {selection.acceptance():.1%}"


def _progress_bar(selection: Selection, show: bool):
    from tqdm import tqdm

    bar = tqdm(total=selection.generation.count, initial=selection.kept, unit=" puzzles",
               unit_scale=True, desc="generating", disable=not show, file=sys.stderr,
               smoothing=0.1, dynamic_ncols=True)
    bar.set_postfix_str(_rate_text(selection))
    return bar


# --- finish ----------------------------------------------------------------------------------


def finish(selection: Selection, *, wall_seconds: float, compile_seconds: float) -> Summary:
    """Store the summary of the parts placed, and raise ``RunIncomplete`` when the run ended
    before its count: max_draws, the time limit, or a batch that kept failing."""
    out = selection.out
    infos = [info for _, info in sorted(selection.parts.items())]
    stats = selection.tally.total
    summary = build_summary(
        stats,
        rows_in=selection.kept if selection.ended else None,
        run=out.run,
        inputs=[InputRows(GENERATED, FORMAT, None, out.run.inputs[0].sha256,
                          selection.kept if selection.ended else None)],
        output=out.directory,
        wall_seconds=wall_seconds,
        compile_seconds=compile_seconds,
        workers=selection.settings.workers,
        engine=selection.settings.engine,
        rows_kept=selection.kept_before,
        duplicates=duplicates_of(out.run, out.directory, infos),
        by_input=by_input_of(out.run.paths, selection.tally),
        batch_rows=None,
        drawn=selection.drawn,
    )
    write_summary(out.directory, summary)
    if selection.ended:
        return summary
    raise RunIncomplete(_why_incomplete(selection), summary)


def _why_incomplete(selection: Selection) -> str:
    """One line: what stopped the run, how far it got, how to continue."""
    generation = selection.generation
    so_far = (f"kept {selection.kept:,} of {generation.count:,} puzzles in "
              f"{selection.drawn:,} draws (acceptance rate {selection.acceptance():.2%})")
    if selection.failures:
        failure = selection.failures[0]
        info = failure.unit.part
        return (f"draws {info.first_draw:,}-{info.first_draw + info.draws - 1:,} kept failing "
                f"({failure.reason}, {failure.attempts} attempts); {so_far}, in "
                f"{selection.out.directory}; rerun the same command to retry them")
    if selection.stopped:
        return (f"time limit of {selection.settings.time_limit:g} s reached; {so_far}; rerun "
                "the same command to continue")
    needed = "" if not selection.kept else (
        f" (at this rate, about {generation.count / selection.acceptance():,.0f} draws in all)")
    return (f"max_draws reached: {so_far}, in {selection.out.directory}; rerun with a larger "
            f"--max-draws to continue{needed}")

