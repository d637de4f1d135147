"""The summary of a run: the record SPEC section 4 calls the summary, its readable table, and
``summarize``.

A ``Summary`` is built from ``Stats`` (``pipeline.stats``) added up over the parts, read as
``Numbers``, with the run record of the manifest (settings, versions, inputs). It is stored in
the output directory as ``_summary.parquet`` (no rows; its JSON in the metadata), so that every
file there is Parquet and the directory reads as one dataset; ``read_summary`` returns it.
``summarize`` rebuilds it from the output directory alone, and says from the manifest and the
parts (never from an earlier summary) whether the run is complete. ``summarize_by`` gives the
same numbers per value of any column (``pipeline.groups``), and the summary holds them per input
(``by_input``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from pipeline import storage
from pipeline.duplicates import Duplicates, duplicates
from pipeline.errors import PipelineError
from pipeline.groups import check_column, group_stats, input_labels, ordered
from pipeline.part import SUMMARY_KEY, PartInfo, read_columns, read_record, write_record
from pipeline.provenance import RunRecord
from pipeline.resume import (
    BY_INPUT_LIMIT,
    LOCK_FILE,
    SUMMARY_FILE,
    Coverage,
    batch_rows_of,
    belongs_to,
    coverage,
    manifest_schema,
    read_manifest,
    survey,
)
from pipeline.settings import SETTING_NAMES, Settings
from pipeline.stats import PERCENTILES, SE_BANDS, STATS_COLUMNS, Numbers, Stats, Tally
from pipeline.text import (
    compact_histogram,
    decimal_text,
    escaped,
    number_text,
    rate_text,
    share_text,
    where_text,
)
from solver.vocabulary import GRADES, MAX_NODES_LIMIT, MAX_SE_BUDGET, STATUSES

MAX_GROUPS = 100  # ``summarize --by``: more values than this, and the rest are one group
COMPILED_SECONDS = 5.0  # loading the solver takes less; longer, it was compiled


@dataclass(frozen=True)
class MissingRows:
    """Rows of an input not in the output: ``first_row`` .. ``last_row`` (None: to its end,
    unknown), and why."""

    source: str
    first_row: int
    last_row: int | None
    rows: int | None
    reason: str


@dataclass(frozen=True)
class InputRows:
    """An input of the run, as its record has it, with the rows read of it (None until it is
    read to its end) and the rows per batch it is cut into (None before any part of it)."""

    path: str
    format: str
    bytes: int | None
    sha256: str
    rows: int | None
    batch_rows: int | None = None


@dataclass(frozen=True)
class Summary:
    """What a run did and found (SPEC section 4); ``to_dict`` is the JSON the README documents."""

    complete: bool
    rows_in: int | None
    numbers: Numbers
    duplicates: dict[str, Duplicates] | None  # "exact", "symmetry": with --measures canonical
    by_input: dict[str, Numbers] | None  # by input path, up to BY_INPUT_LIMIT inputs
    wall_seconds: float | None
    compile_seconds: float  # of the wall time: loading, or compiling, the solver
    resumed_rows: int
    missing_rows: tuple[MissingRows, ...]
    solve_seconds: float
    worker_seconds: float
    workers: int
    engine: str
    settings: Settings
    versions: dict[str, str]
    inputs: tuple[InputRows, ...]
    directory: str
    parts: int
    batch_rows: int | None
    labels: dict[str, str] = field(default_factory=dict)  # each input's label (groups)
    generated: dict[str, Any] | None = None  # a generated run: its settings, draws, acceptance

    @property
    def rows_out(self) -> int:
        return self.numbers.rows

    @property
    def puzzles_per_second(self) -> float | None:
        """Rows solved (not kept from an earlier run) per second of wall time, the solver's
        loading (its compiling, on a first run) not counted."""
        wall = None if self.wall_seconds is None else self.wall_seconds - self.compile_seconds
        return round((self.rows_out - self.resumed_rows) / wall, 1) if wall and wall > 0 else None

    @property
    def command(self) -> str:
        """The command that wrote the run: 'generate' or 'solve-dataset'."""
        return "solve-dataset" if self.generated is None else "generate"

    @property
    def nothing_solved(self) -> bool:
        """A complete run whose rows were all solved by an earlier command."""
        return self.complete and self.resumed_rows == self.rows_out

    def to_json(self) -> str:
        """The summary as JSON text: what ``summarize --json`` prints."""
        return json.dumps(self.to_dict(), indent=2)

    def to_dict(self) -> dict[str, Any]:
        """The summary as a dict of plain values (``to_json``'s)."""
        numbers = self.numbers.to_dict()
        del numbers["rows"]
        return {
            "complete": self.complete,
            "rows": {"in": self.rows_in, "out": self.rows_out},
            **numbers,
            "duplicates": None if self.duplicates is None else {
                kind: found.to_dict() for kind, found in self.duplicates.items()},
            "by_input": None if self.by_input is None else {
                source: found.to_dict() for source, found in self.by_input.items()},
            "wall_seconds": self.wall_seconds,
            "compile_seconds": self.compile_seconds,
            "puzzles_per_second": self.puzzles_per_second,
            "resumed_rows": self.resumed_rows,
            "missing_rows": [asdict(missing) for missing in self.missing_rows],
            "solve_seconds": self.solve_seconds,
            "worker_seconds": self.worker_seconds,
            "workers": self.workers,
            "engine": self.engine,
            "settings": self.settings.to_dict(),
            "grade_limit": self.settings.grade_limit,  # said where the grade ladder is read
            "versions": self.versions,
            "inputs": [asdict(entry) for entry in self.inputs],
            "labels": self.labels,
            "output": {"directory": self.directory, "parts": self.parts,
                       "batch_rows": self.batch_rows},
            "generated": self.generated,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Summary:
        numbers = Numbers.from_dict({**data, "rows": data["rows"]["out"]})
        return cls(
            complete=data["complete"],
            rows_in=data["rows"]["in"],
            numbers=numbers,
            duplicates=None if data["duplicates"] is None else {
                kind: Duplicates.from_dict(found) for kind, found in data["duplicates"].items()},
            by_input=None if data["by_input"] is None else {
                source: Numbers.from_dict(found) for source, found in data["by_input"].items()},
            wall_seconds=data["wall_seconds"],
            compile_seconds=data.get("compile_seconds", 0.0),
            resumed_rows=data["resumed_rows"],
            missing_rows=tuple(MissingRows(**missing) for missing in data["missing_rows"]),
            solve_seconds=data["solve_seconds"],
            worker_seconds=data["worker_seconds"],
            workers=data["workers"],
            engine=data["engine"],
            settings=_settings(data["settings"]),
            versions=dict(data["versions"]),
            inputs=tuple(InputRows(**entry) for entry in data["inputs"]),
            directory=data["output"]["directory"],
            parts=data["output"]["parts"],
            batch_rows=data["output"]["batch_rows"],
            labels=dict(data.get("labels", {})),
            generated=data.get("generated"),
        )


def _settings(values: dict[str, Any]) -> Settings:
    return Settings(**{key: tuple(value) if isinstance(value, list) else value
                       for key, value in values.items() if key in SETTING_NAMES})


@dataclass(frozen=True)
class Grouped:
    """``summarize --by``: the numbers of each group of rows by a column, in order of first
    appearance, and whether the run they count is complete."""

    by: str
    complete: bool
    groups: dict[str, Numbers]
    command: str = "solve-dataset"  # the command that wrote the run
    measures: tuple[str, ...] = ()  # the run's setting: which measures its rows carry

    def to_dict(self) -> dict[str, Any]:
        return {"by": self.by, "complete": self.complete,
                "groups": {name: numbers.to_dict() for name, numbers in self.groups.items()}}


def build_summary(
    stats: Stats,
    *,
    rows_in: int | None,
    run: RunRecord,
    inputs: list[InputRows],
    output: str,
    wall_seconds: float | None,
    workers: int,
    compile_seconds: float = 0.0,
    engine: str,
    rows_kept: int = 0,
    missing: Iterable[MissingRows] = (),
    duplicates: dict[str, Duplicates] | None = None,
    by_input: dict[str, Numbers] | None = None,
    batch_rows: int | None = None,
    drawn: int | None = None,
) -> Summary:
    """The summary (SPEC section 4) from the stats of every part.

    ``run`` is the run's record (from its manifest). ``rows_in`` is None while an input has not
    been read to its end. ``workers``, ``engine``: how this command ran. ``rows_kept``: rows of
    parts an earlier, stopped run had written (a resumed run), so that the rate counts only the
    rows solved in ``wall_seconds``; ``missing``: the row ranges not in the output, each with
    its reason; ``duplicates``: ``duplicates_of``; ``by_input``: ``by_input_of``;
    ``batch_rows``: ``batch_rows_by_input``; ``drawn``: the candidates a generated run drew
    (SPEC 8) to keep its rows.
    """
    missing = tuple(missing)
    return Summary(
        complete=not missing and rows_in == stats.rows,
        rows_in=rows_in,
        numbers=Numbers.of(stats),
        duplicates=duplicates,
        by_input=by_input,
        wall_seconds=None if wall_seconds is None else round(wall_seconds, 3),
        compile_seconds=round(compile_seconds, 3),
        resumed_rows=rows_kept,
        missing_rows=missing,
        solve_seconds=round(stats.solve_seconds, 3),
        worker_seconds=round(stats.worker_seconds, 3),
        workers=workers,
        engine=engine,
        settings=run.settings,
        versions=run.versions,
        inputs=tuple(inputs),
        directory=output,
        parts=stats.parts,
        batch_rows=batch_rows,
        labels=input_labels(run.paths),
        generated=_generated(run, drawn, stats.rows),
    )


def _generated(run: RunRecord, drawn: int | None, kept: int) -> dict[str, Any] | None:
    """What a generated run asked for, drew and kept (None for a run of inputs)."""
    if run.generation is None:
        return None
    return {**run.generation.to_dict(), "drawn": drawn or 0, "kept": kept,
            "acceptance": round(kept / drawn, 6) if drawn else None}


def drawn_by(infos: list[PartInfo]) -> int:
    """The draws a generated run's parts (placed, in draw order) account for."""
    return max((info.first_draw + info.draws for info in infos), default=0)


def by_input_of(sources: list[str], tally: Tally) -> dict[str, Numbers] | None:
    """The summary's ``by_input``: the ``Numbers`` of each input (``sources``, the run's inputs
    in order), added up from the stats of its parts as they came, so no part is read again;
    None beyond ``BY_INPUT_LIMIT`` inputs."""
    if tally.per_input is None:
        return None
    return {source: Numbers.of(stats)
            for source, stats in zip(sources, tally.per_input, strict=True)}


def tally_of(directory: str, run: RunRecord, infos: list[PartInfo]) -> Tally:
    """The stats of the parts ``infos`` of ``directory``, read back and added up."""
    tally = Tally(len(run.inputs), BY_INPUT_LIMIT)
    for info in infos:
        table = read_columns(storage.join(directory, info.name), list(STATS_COLUMNS))
        tally.add(info.file_index, Stats.of_table(table))
    return tally


def batch_rows_by_input(infos: list[PartInfo], run: RunRecord) -> int | None:
    """The rows per batch of the run: the one size its inputs' parts share (None when inputs
    were cut differently)."""
    sizes = {batch_rows_of(info) for info in infos if not info.last or info.batch_index}
    return sizes.pop() if len(sizes) == 1 else None


def batch_rows_of_inputs(infos: list[PartInfo]) -> dict[int, int]:
    """The rows per batch each input (by its index) is cut into, as its parts show it."""
    return {info.file_index: batch_rows_of(info) for info in sorted(
        infos, key=lambda info: (info.file_index, info.last and not info.batch_index))}


def write_summary(directory: str | os.PathLike, summary: Summary) -> str:
    """Store ``summary`` in ``directory`` (``_summary.parquet``) atomically; its location."""
    directory = storage.location(directory)
    path = storage.join(directory, SUMMARY_FILE)
    # Compact: indented, json encodes in Python, a piece at a time (a run of 20,000 inputs
    # held 30 MiB for its 5 MiB of text; 9 MiB so).
    record = json.dumps(summary.to_dict(), separators=(",", ":")).encode()
    write_record(path, manifest_schema(directory), {SUMMARY_KEY: record})
    return path


def read_summary(directory: str | os.PathLike) -> Summary:
    """The summary the last run or ``summarize --write`` stored in ``directory``.

    >>> read_summary("output").rows_out  # doctest: +SKIP
    199
    """
    directory = storage.location(directory)
    summary = _previous_summary(directory)
    if summary is None:
        raise PipelineError(
            f"{escaped(directory)} holds no summary (a run that stopped before its end, or not a "
            "run); `sudoku-pipeline summarize` computes one from the parts"
        )
    return summary


def summarize(directory: str | os.PathLike, *, write: bool = False) -> Summary:
    """The summary of the run in ``directory``, from its manifest and its parts alone (stored
    there too when ``write``, under the directory's lock, so that it cannot race a run).

    Whether the run is complete is decided from the parts (``resume.coverage``): an input
    whose parts do not reach its last row, or leave a gap, is listed in ``missing_rows``.
    Times are not in the parts (but ``solve_us``): the wall and worker seconds are taken from
    the summary stored by the run when there is one, else left null and 0.
    """
    directory = storage.location(directory)
    lock = storage.lock_directory(directory, LOCK_FILE) if write else None
    try:
        summary = _summarize(directory)
        if write:
            write_summary(directory, summary)
        return summary
    finally:
        if lock is not None:
            lock.release()


def _summarize(directory: str) -> Summary:
    run, infos = run_parts(directory)
    tally = tally_of(directory, run, infos)
    covered = coverage(infos, run.paths)
    previous = _previous_summary(directory)
    stats = tally.total.with_worker_seconds(previous.worker_seconds if previous else 0.0)
    cut = batch_rows_of_inputs(infos)
    inputs = [
        InputRows(**asdict(entry),
                  rows=covered.rows[index] if covered.ended(index, entry.path) else None,
                  batch_rows=cut.get(index))
        for index, entry in enumerate(run.inputs)
    ]
    return build_summary(
        stats,
        rows_in=sum(covered.rows) if covered.complete else None,
        run=run,
        inputs=inputs,
        output=str(directory),
        wall_seconds=previous.wall_seconds if previous else None,
        compile_seconds=previous.compile_seconds if previous else 0.0,
        workers=previous.workers if previous else run.settings.workers,
        engine=previous.engine if previous else run.settings.engine,
        rows_kept=previous.resumed_rows if previous else 0,
        missing=missing_rows(covered, run.paths, previous.missing_rows if previous else ()),
        duplicates=duplicates_of(run, directory, infos),
        by_input=by_input_of(run.paths, tally),
        batch_rows=batch_rows_by_input(infos, run),
        drawn=drawn_by(infos),
    )


def summarize_by(directory: str | os.PathLike, column: str, *,
                 max_groups: int = MAX_GROUPS) -> Grouped:
    """The numbers of the run in ``directory`` per value of ``column`` (an input column such as
    Radcliffe's ``level``, or a result column), over the rows the parts hold; rows whose input
    lacks ``column`` are counted under their input's label (``pipeline.groups``).

    >>> summarize_by("output", "level").groups["Expert"].grade_ladder  # doctest: +SKIP
    {'prune': 0, 'singles': 0, 'intersections': 12, 'subsets': 69, 'search': 919}
    """
    directory = storage.location(directory)
    stats, complete, command = group_stats_of(directory, column, max_groups=max_groups)
    measures = read_manifest(directory).settings.measures
    return Grouped(column, complete,
                   {name: Numbers.of(group) for name, group in stats.items()}, command, measures)


def group_stats_of(directory: str, column: str, *, max_groups: int
                   ) -> tuple[dict[str, Stats], bool, str]:
    """The ``Stats`` of each group of the run's rows by ``column`` (``pipeline.groups``),
    whether the run is complete, and the command that wrote it."""
    run, infos = run_parts(directory)
    check_column(manifest_schema(directory).names, column, directory)
    parts = [(storage.join(directory, info.name), info.source) for info in infos]
    stats = group_stats(parts, column, input_labels(run.paths), max_groups=max_groups)
    return stats, coverage(infos, run.paths).complete, run.command


def duplicates_in(directory: str | os.PathLike) -> tuple[dict[str, Duplicates], bool]:
    """``summarize --duplicates``: the run's duplicates, exact and, when it computed canonical
    forms, up to symmetry (``pipeline.duplicates``), and whether the run is complete."""
    directory = storage.location(directory)
    run, infos = run_parts(directory)
    kinds = ("exact", "symmetry") if "canonical" in run.settings.measures else ("exact",)
    found = duplicates([(storage.join(directory, info.name), info.source) for info in infos],
                       kinds)
    return found, coverage(infos, run.paths).complete


@dataclass(frozen=True)
class Hard:
    """One of the hardest puzzles of a run: where it is, its numbers, and the puzzle."""

    source: str
    row: int
    status: str
    grade: str | None
    se: float | None
    rating: float | None
    search_nodes: int
    search_depth: int
    givens: int
    backdoor_size: int | None
    grid: str

    @property
    def over_se_budget(self) -> bool:
        """A unique 9 x 9 puzzle without an SE rating: over the work budget, when the run
        measured se."""
        return self.se is None and self.status == "unique" and len(self.grid) == 81


HARD_FIELDS = tuple(Hard.__dataclass_fields__)


def hardest_in(directory: str | os.PathLike, count: int, columns: tuple[str, ...] = ()
               ) -> tuple[list[Hard], list[dict[str, Any]], bool]:
    """``summarize --hardest``, and the report's: the ``count`` unique or solved puzzles with
    the highest SE rating (those over the SE work budget first) when the run measured se, then
    the highest rating, then the most search nodes (search nodes alone without either), first
    rows first; for each, the values of ``columns`` (the report's groups); and whether the run
    is complete."""

    directory = storage.location(directory)
    run, infos = run_parts(directory)
    complete = coverage(infos, run.paths).complete
    if not infos:
        return [], [], complete
    picked = _hardest_first(directory, infos, run).head(count).select(
        *dict.fromkeys([*HARD_FIELDS, *columns])).collect()
    found = [(_hard(row), {c: row[c] for c in columns}) for row in picked.iter_rows(named=True)]
    return [hard for hard, _ in found], [extra for _, extra in found], complete


def hardest_by(directory: str | os.PathLike, column: str, count: int
               ) -> tuple[dict[str, list[Hard]], bool]:
    """``summarize --by COLUMN --hardest N``: the ``count`` hardest puzzles (as ``hardest_in``
    ranks them) of each group of rows by ``column`` (groups as ``summarize --by`` makes them, in
    its order), and whether the run is complete."""
    import polars as pl

    directory = storage.location(directory)
    run, infos = run_parts(directory)
    check_column(manifest_schema(directory).names, column, directory)
    complete = coverage(infos, run.paths).complete
    if not infos:
        return {}, complete
    labels = input_labels(run.paths)
    label = pl.col("source").replace_strict(labels, default=pl.col("source"))
    key = label if column == "source" else pl.col(column).cast(pl.String).fill_null(label)
    rows = _hardest_first(directory, infos, run).with_columns(key.alias("_group"))
    picked = rows.group_by("_group", maintain_order=True).head(count).collect()
    first_rows = rows.group_by("_group").agg(pl.col("_position").min()).sort("_position").collect()
    found: dict[str, list[Hard]] = {}
    for row in picked.iter_rows(named=True):
        found.setdefault(row["_group"], []).append(_hard(row))
    return {name: found[name] for name in ordered(first_rows["_group"].to_list(), column)}, complete


def _hardest_first(directory: str, infos: list[PartInfo], run: RunRecord):
    """The unique or solved rows of the parts, hardest first (a polars LazyFrame): by SE rating
    when the run measured it (a row over the SE work budget above any rated one), then by
    rating, then by search nodes."""
    import polars as pl

    over = (pl.col("se").is_null() & (pl.col("status") == "unique")
            & (pl.col("boxsize") == 3))
    se = (pl.when(over).then(float("inf")).otherwise(pl.col("se"))
          if "se" in run.settings.measures else pl.col("se"))
    return (pl.scan_parquet([storage.join(directory, info.name) for info in infos])
            .with_row_index("_position").filter(pl.col("status").is_in(["unique", "solved"]))
            .with_columns(se.alias("_se"))
            .sort(["_se", "rating", "search_nodes", "_position"],
                  descending=[True, True, True, False], nulls_last=True))


def _hard(row: dict[str, Any]) -> Hard:
    return Hard(**{name: row[name] for name in HARD_FIELDS})


def run_parts(directory: str) -> tuple[RunRecord, list[PartInfo]]:
    """The run record of ``directory`` and the ``PartInfo`` of its parts, in run order, after
    checking that every file there belongs to that run."""
    if storage.kind(directory) != "directory":
        raise PipelineError(f"output directory not found: {escaped(directory)} (check the path)")
    run = read_manifest(directory)
    found = survey(directory)
    if run is None:
        raise PipelineError(
            f"{escaped(directory)} holds no run (no _manifest.parquet); run "
            "`sudoku-pipeline solve-dataset` first"
        )
    if found.foreign:
        raise PipelineError(
            f"{escaped(storage.join(directory, found.first_foreign()))}: not written by "
            "sudoku-pipeline; keep only one run's files in an output directory"
        )
    infos = []
    for key, footer in sorted(found.parts.items()):
        if not belongs_to(footer, run) or footer.info.key != key:
            raise PipelineError(
                f"{escaped(storage.join(directory, footer.info.name))} belongs to another run "
                "than its manifest; keep one run per output directory (rerun solve-dataset with "
                "--overwrite)"
            )
        if footer.info.placed:  # not a generated batch's candidates, still to be selected
            infos.append(footer.info)
    return run, infos


def duplicates_of(run: RunRecord, directory: str, infos: list[PartInfo]
                  ) -> dict[str, Duplicates] | None:
    """The duplicates of a run that computed canonical forms (else None): exact and up to
    symmetry."""
    if "canonical" not in run.settings.measures:
        return None
    return duplicates([(storage.join(directory, info.name), info.source) for info in infos])


def missing_rows(covered: Coverage, sources: list[str], reasons: Iterable[MissingRows]
                 ) -> list[MissingRows]:
    """The rows the parts do not hold: the gaps between parts, and the rest of each input
    whose last part is not there. A gap keeps the reason an earlier summary gave for it (a
    batch that kept failing)."""
    known = {(m.source, m.first_row): m.reason for m in reasons}
    missing = [
        MissingRows(source, first, first + rows - 1, rows,
                    known.get((source, first), "its part is not in the output directory"))
        for source, first, rows in covered.gaps
    ]
    for index, source in enumerate(sources):
        if not covered.last_seen[index]:
            first = covered.reached[index]
            missing.append(MissingRows(
                source, first, None, None,
                known.get((source, first), "not solved yet: the run stopped before")))
    return missing


def _previous_summary(directory: str) -> Summary | None:
    try:
        _, record = read_record(storage.join(directory, SUMMARY_FILE), SUMMARY_KEY)
        return Summary.from_dict(json.loads(record)) if record else None
    except (OSError, ValueError, KeyError, TypeError, PipelineError):
        return None


# --- the summary as text -----------------------------------------------------------------------

RULES_TEXT = {"bird": "Bird's pruning (naked singles) at every node",
              "singles": "naked and hidden singles at every node"}
# One word a meaning: the difficulty ladder's last rung is "beyond singles" (Bird's search is
# needed), the grade's last rung is "search" (beyond trial2).
LADDER_LABELS = {"prune_solvable": "prune-solvable", "singles_solvable_only": "singles-solvable only",
                 "needs_search": "beyond singles"}
GRADE_LABELS = {"search": "search (beyond trial2)"}


def budget_advice(rules: str, *, run: bool = True) -> str:
    """What to try when puzzles run out of the node budget under ``rules`` (in a run, or
    ``solve``'s puzzles when not ``run``)."""
    singles = ("--rules singles (hidden singles at every node) often needs far fewer nodes "
               "(16 x 16: hexadoku's hard1 takes 35, against more than 5,000,000 under bird), or ")
    where = ", in a new --output or with --overwrite" if run else ""
    return (singles if rules == "bird" else "") + (
        f"raise --max-nodes (at most {MAX_NODES_LIMIT:,}){where}")


def se_budget_advice(settings: Settings, count: int) -> str:
    """The line that counts the rows over the SE work budget, with what to do about them."""
    return (f"{count:,} {'row' if count == 1 else 'rows'} over the SE work budget "
            f"({settings.se_budget:,} chain steps): their se is null; raise --se-budget "
            f"(at most {MAX_SE_BUDGET:,}; 1,000,000,000 rated every ER 11 puzzle we measured, "
            "each within about a minute: docs/measures.md) in a new --output or with "
            "--overwrite")


def se_lines(numbers: Numbers, settings: Settings) -> list[str]:
    """The summary's lines of SPEC 5.4 (with --measures se): ER's percentiles, its bands, and
    the rows over the work budget."""
    se = numbers.se
    if "se" not in settings.measures:
        return []
    lines = []
    if se.rows:
        lines.append("se (ER)       " + "   ".join(
            f"p{p} {getattr(se, f'p{p}'):.1f}" for p in PERCENTILES)
            + f"   max {se.max:.1f}   ({se.rows:,} rows)")
        lines.append("se bands      " + "  ".join(
            f"{band_text(band)}:{count:,}" for band, count in numbers.se_bands.items() if count))
    if numbers.se_unrated:
        lines.append("  hint: " + se_budget_advice(settings, numbers.se_unrated))
    return lines


def se_text(value: float | None) -> str:
    """An SE rating as serate prints it, one decimal, or '-' for none."""
    return "-" if value is None else f"{value:.1f}"


def band_text(band: int) -> str:
    """'7.x' for the band of ER 7.0 to 7.9; '12+' for the last."""
    return f"{band}+" if band == SE_BANDS[-1] else f"{band}.x"


def format_summary(summary: Summary) -> str:
    """The summary as a plain-text table for a terminal."""
    numbers = summary.numbers
    rows_in, rows_out = summary.rows_in, summary.rows_out
    rows = f"{rows_in:,} rows in, {rows_out:,} rows out" if rows_in is not None else (
        f"{rows_out:,} rows out so far (an input is not read to its end)")
    parts = summary.parts
    lines = [
        f"{rows}, {parts:,} Parquet part{'' if parts == 1 else 's'} in "
        f"{escaped(summary.directory)}",
        *_generated_lines(summary.generated),
        "",
        f"{'status':<26}{'rows':>12}{'share':>9}   (shares of the {rows_out:,} rows)",
    ]
    for name, count in numbers.status.items():
        lines.append(f"  {name:<24}{count:>12,}{share_text(count, rows_out):>9}")
    if over := numbers.status["budget_exceeded"]:
        lines.append(f"  hint: {over:,} {'row' if over == 1 else 'rows'} ran out of the node "
                     f"budget ({summary.settings.max_nodes:,} nodes); "
                     + budget_advice(summary.settings.rules))
    if len(numbers.boxsize_histogram) > 1 or 3 not in numbers.boxsize_histogram:
        lines += ["", f"{'box size (SPEC 7)':<26}{'rows':>12}{'share':>9}",
                  *(f"  {f'{b} ({b * b} x {b * b})':<24}{count:>12,}"
                    f"{share_text(count, rows_out):>9}"
                    for b, count in numbers.boxsize_histogram.items())]
    laddered = numbers.laddered
    lines += [
        "",
        f"{'difficulty ladder':<26}{'rows':>12}{'share':>9}   (shares of the {laddered:,} "
        "puzzles neither invalid nor contradictory)",
        *(f"  {LADDER_LABELS[key]:<24}{count:>12,}{share_text(count, laddered):>9}"
          for key, count in numbers.ladder.items()),
        "",
        f"{'grade (SPEC 5.1)':<26}{'rows':>12}{'share':>9}   (shares of the {numbers.graded:,} "
        f"graded puzzles: unique or solved; rules {summary.settings.rules}; rungs tried up to "
        f"grade_limit {summary.settings.grade_limit})",
        *(f"  {GRADE_LABELS.get(name, name):<24}{count:>12,}{share_text(count, numbers.graded):>9}"
          for name, count in numbers.grade_ladder.items()),
        "",
        f"search        rules {summary.settings.rules}: {RULES_TEXT[summary.settings.rules]}",
        "search_nodes  " + "   ".join(
            f"p{p} {number_text(getattr(numbers.search_nodes, f'p{p}'))}" for p in PERCENTILES)
        + f"   max {number_text(numbers.search_nodes.max)}",
        "search_depth  " + compact_histogram(numbers.search_depth_histogram),
        "givens        " + compact_histogram(numbers.givens_histogram),
    ]
    rating = numbers.rating
    if rating.rows:
        lines.append("rating        " + "   ".join(
            f"p{p} {getattr(rating, f'p{p}'):.2f}" for p in PERCENTILES)
            + f"   max {rating.max:.2f}   ({rating.rows:,} rows)")
    if numbers.backdoor_size_histogram:
        lines.append("backdoor size " + compact_histogram(numbers.backdoor_size_histogram))
    lines += se_lines(numbers, summary.settings)
    if summary.duplicates:
        exact, symmetry = summary.duplicates["exact"], summary.duplicates["symmetry"]
        largest = symmetry.largest
        lines.append(
            f"duplicates    {exact.distinct:,} distinct puzzles, "
            f"{symmetry.distinct:,} up to symmetry"
            + (f"; largest class {largest[0].rows:,} rows" if largest else ""))
    matches = numbers.solution_matches
    if matches["true"] or matches["false"]:
        lines.append(f"published     {matches['true']:,} solutions match, {matches['false']:,} differ")
    if summary.missing_rows:
        lines.append("MISSING       " + _missing_text(summary.missing_rows))
    if summary.resumed_rows:
        lines.append(f"resumed       {summary.resumed_rows:,} rows were solved by an earlier run")
    wall = summary.wall_seconds
    compiling = (f" ({summary.compile_seconds:.1f} s of it compiling the solver: first run only)"
                 if summary.compile_seconds >= COMPILED_SECONDS else "")
    rate = summary.puzzles_per_second
    timing = (
        f"{wall:.2f} s wall{compiling}, {rate_text(rate or 0)} puzzles/s, "
        if wall
        else "wall time not recorded, "
    )
    lines.append(
        f"time          {timing}{summary.workers} worker{'s' if summary.workers != 1 else ''} "
        f"({summary.engine} engine), "
        f"{summary.solve_seconds:.2f} s in the search (grade and measures apart)"
    )
    return "\n".join(lines)


def _generated_lines(generated: dict[str, Any] | None) -> list[str]:
    """What a generated run drew and kept, in a line or two (none for a run of inputs)."""
    if generated is None:
        return []
    acceptance = generated["acceptance"]
    rate = "" if acceptance is None else f" (acceptance rate {acceptance:.2%})"
    asked = [f"seed {generated['seed']}", "grade " + (",".join(generated["grade"]) or "any"),
             f"symmetry {generated['symmetry']}",
             "minimal" if generated["minimal"] else "not minimal"]
    if generated.get("se"):
        asked.append(f"se {generated['se']}")
    if generated["distinct"]:
        asked.append("distinct up to symmetry")
    return [f"generated     {generated['kept']:,} of {generated['count']:,} puzzles kept from "
            f"{generated['drawn']:,} draws{rate}", f"              {', '.join(asked)}"]


def format_groups(grouped: Grouped) -> str:
    """``summarize_by``'s numbers as plain-text tables, one line per group: statuses; the
    difficulty ladder (shares of the puzzles neither invalid nor contradictory: ``puzzles``);
    the grade ladder, every rung in ladder order (shares of the graded rows); search nodes;
    and, when measured, rating, the SE rating (median, max, bands of ER as shares of the rated
    rows, rows over the work budget) and backdoor size (shares of the unique rows)."""
    groups = grouped.groups
    titles = ["ladder (share of puzzles)", "grade (share of graded)",
              "backdoor size (share of unique)", "se (share of rated)"]
    width = min(max(len(name) for name in [grouped.by, *titles, *groups]), 40)
    statuses = [s for s in STATUSES if any(g.status[s] for g in groups.values())]
    keys = [f"p{p}" for p in PERCENTILES] + ["max"]
    tables = [
        _table(grouped.by, ["rows", *statuses], width, {
            name: [f"{g.rows:,}", *(f"{g.status[s]:,}" for s in statuses)]
            for name, g in groups.items()}),
        _table(titles[0], ["puzzles", *LADDER_LABELS.values()], width, {
            name: [f"{g.laddered:,}", *(share_text(g.ladder[key], g.laddered)
                                        for key in LADDER_LABELS)]
            for name, g in groups.items()}),
        _table(titles[1], ["graded", *GRADES], width, {
            name: [f"{g.graded:,}", *(share_text(g.grade_ladder[rung], g.graded) for rung in GRADES)]
            for name, g in groups.items()}),
        _table("search_nodes", keys, width, {
            name: [number_text(getattr(g.search_nodes, k)) for k in keys]
            for name, g in groups.items()}),
    ]
    if any(g.rating.rows for g in groups.values()):
        tables.append(_table("rating", ["rows", *keys], width, {
            name: [f"{g.rating.rows:,}", *(decimal_text(getattr(g.rating, k)) for k in keys)]
            for name, g in groups.items()}))
    bands = [band for band in SE_BANDS if any(g.se_bands.get(band) for g in groups.values())]
    if "se" in grouped.measures:
        tables.append(_table(titles[3], ["rated", "p50", "max", *map(band_text, bands),
                                         "over budget"], width, {
            name: [f"{g.se.rows:,}", se_text(g.se.p50), se_text(g.se.max),
                   *(share_text(g.se_bands.get(band, 0), g.se.rows) for band in bands),
                   f"{g.se_unrated:,}"]
            for name, g in groups.items()}))
    sizes = sorted({size for g in groups.values() for size in g.backdoor_size_histogram})
    if sizes:
        tables.append(_table(titles[2], ["unique", *map(str, sizes), "more than 3"], width, {
            name: [f"{g.status['unique']:,}",
                   *(share_text(g.backdoor_size_histogram.get(size, 0), g.status["unique"])
                     for size in sizes),
                   share_text(g.status["unique"] - sum(g.backdoor_size_histogram.values()),
                              g.status["unique"])]
            for name, g in groups.items()}))
    return "\n\n".join(tables)


def format_duplicates(found: dict[str, Duplicates], labels: dict[str, str]) -> str:
    """``summarize --duplicates`` as text: for each kind, the counts, the sets of inputs that
    share puzzles, and the largest classes with their first rows."""
    titles = {"exact": "exact duplicates (the same grid)",
              "symmetry": "duplicates up to symmetry (the same canonical form, SPEC 6)"}
    blocks = []
    for kind, dup in found.items():
        lines = [f"{titles[kind]}: {dup.distinct:,} distinct of {dup.rows:,} rows; "
                 f"{dup.rows - dup.distinct:,} rows repeat an earlier one, in {dup.repeated:,} "
                 "classes"]
        if dup.shared:
            lines.append("  inputs sharing puzzles (classes):")
            lines += [f"    {' & '.join(labels.get(i, i) for i in inputs)}: {classes:,}"
                      for inputs, classes in dup.shared.items()]
        if dup.largest:
            lines.append("  largest classes (rows, first rows, value):")
            lines += [f"    {c.rows:>6,}  "
                      + ", ".join(where_text(labels.get(s, s), r) for s, r in c.where)
                      + (", ..." if c.rows > len(c.where) else "") + f"  {c.value}"
                      for c in dup.largest]
        blocks.append("\n".join(escaped(line) for line in lines))
    if "symmetry" not in found:
        blocks.append("(up to symmetry: not counted; the run has no canonical forms: "
                      "--measures canonical)")
    return "\n\n".join(blocks)


def format_hardest_by(groups: dict[str, list[Hard]], column: str, labels: dict[str, str], *,
                      se: bool = False) -> str:
    """``summarize --by COLUMN --hardest N``: a heading per group, then its table."""
    return "\n\n".join(f"{column} {escaped(name)}:\n{format_hardest(hards, labels, se=se)}"
                       for name, hards in groups.items())


def format_hardest(hardest: list[Hard], labels: dict[str, str], *, se: bool = False) -> str:
    """``summarize --hardest`` as a table: rank, where, numbers, and the puzzle as one line;
    with ``se`` (the run measured it) the SE rating first ('over' past the work budget)."""
    header = (f"{'#':>3}  {'se':>4}  {'rating':>6}  {'nodes':>10}  {'depth':>5}  {'grade':<13}  "
              f"{'givens':>6}  where (the column row: from 0, no header or comment), puzzle")
    if not se:
        header = header.replace(f"  {'se':>4}", "", 1)
    lines = [header]
    for rank, hard in enumerate(hardest, start=1):
        where = where_text(labels.get(hard.source, hard.source), hard.row)
        rated = "over" if hard.over_se_budget else se_text(hard.se)
        lines.append(f"{rank:>3}  " + (f"{rated:>4}  " if se else "")
                     + f"{decimal_text(hard.rating):>6}  {hard.search_nodes:>10,}  "
                     f"{hard.search_depth:>5}  {hard.grade or '-':<13}  {hard.givens:>6}  "
                     f"{escaped(where)}  {hard.grid}")
    return "\n".join(lines)


def _table(title: str, headers: list[str], width: int, rows: dict[str, list[str]]) -> str:
    """A title over the groups' names (their end when too long: file names differ there), and
    right-aligned columns."""
    cells_width = [max(10, len(header) + 2) for header in headers]

    def line(name: str, cells: list[str], indent: str) -> str:
        shown = name if len(name) <= width else "…" + name[-(width - 1):]
        return f"{indent}{shown:<{width + 2 - len(indent)}}" + "".join(
            f"{text:>{cell}}" for text, cell in zip(cells, cells_width, strict=True))

    return "\n".join([line(title, headers, ""),
                      *(line(escaped(name), cells, "  ") for name, cells in rows.items())])


def incomplete_message(summary: Summary) -> str:
    """One line for a summary whose run is incomplete: how much is done and what to do."""
    if summary.generated is not None:
        return (f"the run in {escaped(summary.directory)} is incomplete: {summary.rows_out:,} of "
                f"{summary.generated['count']:,} puzzles are kept; "
                f"{finish_advice(summary.command)}")
    of = f" of {summary.rows_in:,}" if summary.rows_in is not None else ""
    return (
        f"the run in {escaped(summary.directory)} is incomplete: {summary.rows_out:,}{of} rows "
        f"are solved; missing: {_missing_text(summary.missing_rows)}; {finish_advice(summary.command)}"
    )


def finish_advice(command: str) -> str:
    """What finishes an incomplete run that ``command`` ('generate', 'solve-dataset') wrote."""
    return f"rerun the {command} command that wrote it to finish it"


def _missing_text(missing: Iterable[MissingRows]) -> str:
    """'2 rows in 1 batch(es) ...; and the rest of 1 input(s) ...', for the table."""
    missing = list(missing)
    ranges = [m for m in missing if m.rows is not None]
    unread = [m for m in missing if m.rows is None]
    said = []
    if ranges:
        said.append(f"{sum(m.rows for m in ranges):,} rows in {len(ranges)} batch(es) "
                    "(listed in the summary, with the reason)")
    if unread:
        starts = ", ".join(f"{m.first_row:,} of {escaped(m.source)}" for m in unread[:3])
        said.append(f"the rest of {len(unread)} input(s), from row {starts}")
    return "; and ".join(said)
