"""The summary of a run: the JSON record SPEC section 4 calls ``summary.json``, its readable
table, and ``summarize``.

A summary is built from ``Stats`` (``pipeline.stats``) added up over the parts, with the run
record of the manifest (settings, versions, inputs). It is stored in the output directory as
``_summary.parquet`` (no rows; the JSON in its metadata), so that every file there is Parquet
and the directory reads as one dataset; ``read_summary`` returns it. ``summarize`` rebuilds it
from the output directory alone, and says from the manifest and the parts (never from an
earlier summary) whether the run is complete. ``by_input`` (in the summary) and
``summarize_by`` give the same numbers per input, or per value of any column
(``pipeline.groups``).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from typing import Any

from pipeline import storage
from pipeline.duplicates import duplicates
from pipeline.errors import PipelineError
from pipeline.part import SUMMARY_KEY, PartInfo, read_columns, read_record, write_record
from pipeline.resume import (
    SUMMARY_FILE,
    belongs_to,
    coverage,
    manifest_schema,
    read_manifest,
    survey,
)
from pipeline.stats import LADDER, PERCENTILES, STATS_COLUMNS, Stats
from solver.vocabulary import GRADES, STATUSES


def build_summary(
    stats: Stats,
    *,
    rows_in: int | None,
    run: dict[str, Any],
    inputs: list[dict[str, Any]],
    output: str,
    wall_seconds: float | None,
    rows_kept: int = 0,
    missing: list[dict[str, Any]] | None = None,
    duplicates: dict[str, Any] | None = None,
    by_input: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The content of ``summary.json`` (SPEC section 4) from the stats of every part.

    ``run`` is the run record stored in every part: version, versions, settings, inputs.
    ``rows_in`` is None while an input has not been read to its end. ``rows_kept``: rows of
    parts an earlier, stopped run had written (a resumed run), so that the rate counts only
    the rows solved in ``wall_seconds``; ``missing``: the row ranges not in the output (batches
    that kept failing, or not solved yet), each with its reason; ``duplicates``: what
    ``pipeline.duplicates`` counts, when the run has canonical forms; ``by_input``: the
    numbers per input (``by_input_of``).
    """
    settings = run["settings"]
    wall = None if wall_seconds is None else round(wall_seconds, 3)
    solved = stats.rows - rows_kept
    missing = list(missing or [])
    return {
        "complete": not missing and rows_in == stats.rows,
        "rows": {"in": rows_in, "out": stats.rows},
        "status": _status_counts(stats),
        "ladder": {name: stats.ladder[name] for name in LADDER},
        "search_depth_histogram": _json_histogram(stats.search_depth),
        "search_nodes": _percentiles(stats.search_nodes),
        "givens_histogram": _json_histogram(stats.givens),
        "solution_matches": {key: stats.solution_matches[key] for key in ("true", "false")},
        "grade_ladder": _grade_ladder(stats),
        "rating": _rating(stats),
        "backdoor_size_histogram": _json_histogram(stats.backdoor_size),
        "duplicates": duplicates,
        "by_input": by_input,
        "wall_seconds": wall,
        "puzzles_per_second": round(solved / wall, 1) if wall else None,
        "resumed_rows": rows_kept,
        "missing_rows": missing,
        "solve_seconds": round(stats.solve_seconds, 3),
        "worker_seconds": round(stats.worker_seconds, 3),
        "workers": settings["workers"],
        "engine": settings["engine"],
        "settings": settings,
        "versions": run["versions"],
        "inputs": inputs,
        "output": {"directory": output, "parts": stats.parts, "batch_rows": run.get("batch_rows")},
    }


def numbers_of(stats: Stats) -> dict[str, Any]:
    """The numbers ``pipeline.groups`` gives for a group of rows, from the ``Stats`` of those
    rows: rows, statuses, the grade ladder, search_nodes and rating percentiles."""
    return {
        "rows": stats.rows,
        "status": _status_counts(stats),
        "grade_ladder": _grade_ladder(stats),
        "search_nodes": _percentiles(stats.search_nodes),
        "rating": _rating(stats),
    }


def by_input_of(sources: list[str], parts: Iterable[tuple[PartInfo, Stats]]) -> dict[str, Any]:
    """The summary's ``by_input``: ``numbers_of`` each input (``sources``, the run's inputs
    in order), added up from the stats of its parts, so no part is read again."""
    per_input = [Stats() for _ in sources]
    for info, stats in parts:
        per_input[info.file_index] += stats
    return {source: numbers_of(stats) for source, stats in zip(sources, per_input, strict=True)}


def _status_counts(stats: Stats) -> dict[str, int]:
    return {name: stats.status[name] for name in STATUSES}


def _grade_ladder(stats: Stats) -> dict[str, int]:
    return {name: stats.grade[name] for name in GRADES}


def _rating(stats: Stats) -> dict[str, Any]:
    return {"rows": sum(stats.rating.values()), **_percentiles(stats.rating)}


def _percentiles(histogram: dict[Any, int]) -> dict[str, Any]:
    return {**{f"p{p}": percentile(histogram, p) for p in PERCENTILES},
            "max": max(histogram, default=None)}


def percentile(histogram: dict[Any, int], p: float) -> Any:
    """The nearest-rank ``p``-th percentile of the values counted by ``histogram``: the
    smallest value that at least ``p`` percent of the values do not exceed."""
    total = sum(histogram.values())
    if not total:
        return None
    rank = max(1, math.ceil(p / 100 * total))
    seen = 0
    for value, count in sorted(histogram.items()):
        seen += count
        if seen >= rank:
            return value
    raise AssertionError("unreachable")


def write_summary(directory: str | os.PathLike, summary: dict[str, Any]) -> str:
    """Store ``summary`` in ``directory`` (``_summary.parquet``) atomically; its location."""
    directory = storage.location(directory)
    path = storage.join(directory, SUMMARY_FILE)
    record = json.dumps(summary, indent=2).encode()
    write_record(path, manifest_schema(directory), {SUMMARY_KEY: record})
    return path


def read_summary(directory: str | os.PathLike) -> dict[str, Any]:
    """The summary the last run or ``summarize --write`` stored in ``directory``.

    >>> read_summary("output")["rows"]  # doctest: +SKIP
    {'in': 199, 'out': 199}
    """
    directory = storage.location(directory)
    summary = _previous_summary(directory)
    if summary is None:
        raise PipelineError(
            f"{directory} holds no summary (a run that stopped before its end, or not a run); "
            "`sudoku-pipeline summarize` computes one from the parts"
        )
    return summary


def summarize(directory: str | os.PathLike) -> dict[str, Any]:
    """The summary of the run in ``directory``, from its manifest and its parts alone.

    Whether the run is complete is decided from the parts (``resume.coverage``): an input
    whose parts do not reach its last row, or leave a gap, is listed in ``missing_rows``.
    Times are not in the parts (but ``solve_us``): the wall and worker seconds are taken from
    the summary stored by the run when there is one, else left null and 0.
    """
    directory = storage.location(directory)
    run, infos = _run_parts(directory)
    part_stats = [
        (info, Stats.of_table(read_columns(storage.join(directory, info.name), list(STATS_COLUMNS))))
        for info in infos
    ]
    stats = sum((stats for _, stats in part_stats), Stats())
    sources = [entry["path"] for entry in run["inputs"]]
    covered = coverage(infos, sources)
    previous = _previous_summary(directory) or {}
    stats = stats.with_worker_seconds(previous.get("worker_seconds", 0.0))
    inputs = [
        {**entry, "rows": covered.rows[index] if covered.ended(index, entry["path"]) else None}
        for index, entry in enumerate(run["inputs"])
    ]
    parts = [storage.join(directory, info.name) for info in infos]
    return build_summary(
        stats,
        rows_in=sum(covered.rows) if covered.complete else None,
        run=run,
        inputs=inputs,
        output=str(directory),
        wall_seconds=previous.get("wall_seconds"),
        rows_kept=previous.get("resumed_rows", 0),
        missing=missing_rows(covered, sources, previous.get("missing_rows", [])),
        duplicates=duplicates_of(run, parts),
        by_input=by_input_of(sources, part_stats),
    )


def summarize_by(directory: str | os.PathLike, column: str) -> dict[str, Any]:
    """The numbers of the run in ``directory`` per value of ``column`` (an input column such as
    Radcliffe's ``level``, or a result column): ``{"by": column, "complete": bool, "groups":
    {value: numbers}}``, the numbers of ``pipeline.groups.group_summaries`` over the rows the
    parts hold. A row whose input lacks ``column`` is counted under its input file's name.

    >>> summarize_by("output", "level")["groups"]["Expert"]["grade_ladder"]  # doctest: +SKIP
    {'prune': 0, 'singles': 0, 'intersections': 12, 'subsets': 69, 'search': 919}
    """
    directory = storage.location(directory)
    run, infos = _run_parts(directory)
    names = manifest_schema(directory).names
    if column not in names:
        raise PipelineError(f"the run in {directory} has no column {column!r}; it has: "
                            f"{', '.join(names)}")
    # Imported here: polars takes 0.15 s to import, which every run would pay at its start.
    from pipeline.groups import GROUPED_COLUMNS, group_summaries, read_rows

    columns = list(dict.fromkeys([*GROUPED_COLUMNS, column]))
    rows = read_rows([storage.join(directory, info.name) for info in infos], columns)
    complete = coverage(infos, [entry["path"] for entry in run["inputs"]]).complete
    return {"by": column, "complete": complete, "groups": group_summaries(rows, column)}


def _run_parts(directory: str) -> tuple[dict[str, Any], list]:
    """The run record of ``directory`` and the ``PartInfo`` of its parts, in run order, after
    checking that every file there belongs to that run."""
    if storage.kind(directory) != "directory":
        raise PipelineError(f"output directory not found: {directory} (check the path)")
    run = read_manifest(directory)
    found = survey(directory)
    if run is None:
        raise PipelineError(
            f"{directory} holds no run (no _manifest.parquet); run `sudoku-pipeline solve-dataset` "
            "first"
        )
    if found.foreign:
        raise PipelineError(
            f"{storage.join(directory, sorted(found.foreign)[0])} was not written by "
            "sudoku-pipeline; keep only one run's files in an output directory"
        )
    infos = []
    for key, footer in sorted(found.parts.items()):
        if not belongs_to(footer, run) or footer.info.key != key:
            raise PipelineError(
                f"{storage.join(directory, footer.info.name)} belongs to another run than its "
                "manifest; keep one run per output directory (rerun solve-dataset with --overwrite)"
            )
        infos.append(footer.info)
    return run, infos


def duplicates_of(run: dict[str, Any], part_paths: list[str]) -> dict[str, Any] | None:
    """The duplicates section of a run that computed canonical forms (else None)."""
    if "canonical" not in run["settings"].get("measures", ()):
        return None
    return duplicates(part_paths)


def missing_rows(
    covered, sources: list[str], reasons: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The rows the parts do not hold, as ``missing_rows`` entries: the gaps between parts,
    and the rest of each input whose last part is not there. A gap keeps the reason an
    earlier summary gave for it (a batch that kept failing)."""
    known = {(m["source"], m["first_row"]): m["reason"] for m in reasons}
    missing = []
    for source, first, rows in covered.gaps:
        missing.append({
            "source": source, "first_row": first, "last_row": first + rows - 1, "rows": rows,
            "reason": known.get((source, first), "its part is not in the output directory"),
        })
    for index, source in enumerate(sources):
        if not covered.last_seen[index]:
            first = covered.reached[index]
            missing.append({
                "source": source, "first_row": first, "last_row": None, "rows": None,
                "reason": known.get((source, first), "not solved yet: the run stopped before"),
            })
    return missing


def _previous_summary(directory: str) -> dict[str, Any] | None:
    try:
        _, record = read_record(storage.join(directory, SUMMARY_FILE), SUMMARY_KEY)
        return json.loads(record) if record else None
    except (OSError, ValueError, PipelineError):
        return None


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as a plain-text table for a terminal."""
    rows_in, rows_out = summary["rows"]["in"], summary["rows"]["out"]
    parts = summary["output"]["parts"]
    rows = f"{rows_in:,} rows in, {rows_out:,} rows out" if rows_in is not None else (
        f"{rows_out:,} rows out so far (an input is not read to its end)")
    lines = [
        f"{rows}, {parts:,} Parquet part{'' if parts == 1 else 's'} in "
        f"{summary['output']['directory']}",
        "",
        f"{'status':<26}{'rows':>12}{'share':>9}",
    ]
    for name, count in summary["status"].items():
        lines.append(f"  {name:<24}{count:>12,}{_share(count, rows_out):>9}")
    ladder = summary["ladder"]
    lines += [
        "",
        f"{'difficulty ladder':<26}{'rows':>12}{'share':>9}",
        *(
            f"  {label:<24}{ladder.get(key, 0):>12,}{_share(ladder.get(key, 0), laddered):>9}"
            for laddered in [sum(ladder.values())]  # neither invalid nor contradictory
            for key, label in (
                ("prune_solvable", "prune-solvable"),
                ("singles_solvable_only", "singles-solvable only"),
                ("needs_search", "needs search"),
            )
        ),
        "",
        f"{'grade (SPEC 5.1)':<26}{'rows':>12}{'share':>9}",
        *(
            f"  {name:<24}{count:>12,}{_share(count, graded):>9}"
            for graded in [sum(summary["grade_ladder"].values())]
            for name, count in summary["grade_ladder"].items()
        ),
        "",
        "search_nodes  "
        + "   ".join(f"{key} {number_text(value)}" for key, value in summary["search_nodes"].items()),
        "search_depth  " + _compact(summary["search_depth_histogram"]),
        "givens        " + _compact(summary["givens_histogram"]),
    ]
    rating = summary["rating"]
    if rating["rows"]:
        lines.append("rating        " + "   ".join(
            f"{key} {rating[key]:.2f}" for key in ("p50", "p90", "p99", "max"))
            + f"   ({rating['rows']:,} rows)")
    if summary["backdoor_size_histogram"]:
        lines.append("backdoor size " + _compact(summary["backdoor_size_histogram"]))
    if repeated := summary.get("duplicates"):
        largest = repeated["largest_classes"]
        lines.append(
            f"duplicates    {repeated['distinct']:,} distinct puzzles, "
            f"{repeated['distinct_up_to_symmetry']:,} up to symmetry"
            + (f"; largest class {largest[0]['rows']:,} rows" if largest else ""))
    matches = summary["solution_matches"]
    if matches["true"] or matches["false"]:
        lines.append(f"published     {matches['true']:,} solutions match, {matches['false']:,} differ")
    if missing := summary.get("missing_rows"):
        lines.append("MISSING       " + _missing_text(missing))
    if summary.get("resumed_rows"):
        lines.append(f"resumed       {summary['resumed_rows']:,} rows were solved by an earlier run")
    wall = summary["wall_seconds"]
    timing = (
        f"{wall:.2f} s wall, {summary['puzzles_per_second']:,.0f} puzzles/s, "
        if wall
        else "wall time not recorded, "
    )
    lines.append(
        f"time          {timing}{summary['workers']} workers ({summary['engine']} engine), "
        f"{summary['solve_seconds']:.2f} s solving"
    )
    return "\n".join(lines)


def format_groups(grouped: dict[str, Any]) -> str:
    """``summarize_by``'s numbers as plain-text tables, one line per group: statuses, the grade
    ladder (shares of the graded rows), search nodes and, when measured, rating."""
    groups = grouped["groups"]
    width = min(max(len(name) for name in [grouped["by"], "grade (share of graded)", *groups]), 40)
    statuses = [s for s in STATUSES if any(g["status"][s] for g in groups.values())]
    keys = [f"p{p}" for p in PERCENTILES] + ["max"]
    tables = [
        _table(grouped["by"], ["rows", *statuses], width, {
            name: [f"{g['rows']:,}", *(f"{g['status'][s]:,}" for s in statuses)]
            for name, g in groups.items()}),
        _table("grade (share of graded)", ["graded", *GRADES], width, {
            name: [f"{graded:,}", *(_share(g["grade_ladder"][rung], graded) for rung in GRADES)]
            for name, g in groups.items() for graded in [sum(g["grade_ladder"].values())]}),
        _table("search_nodes", keys, width, {
            name: [number_text(g["search_nodes"][k]) for k in keys] for name, g in groups.items()}),
    ]
    if any(g["rating"]["rows"] for g in groups.values()):
        tables.append(_table("rating", ["rows", *keys], width, {
            name: [f"{g['rating']['rows']:,}", *(decimal_text(g["rating"][k]) for k in keys)]
            for name, g in groups.items()}))
    return "\n\n".join(tables)


def _table(title: str, headers: list[str], width: int, rows: dict[str, list[str]]) -> str:
    """A title over the groups' names (their end when too long: file names differ there), and
    right-aligned columns."""
    cells_width = [max(10, len(header) + 2) for header in headers]

    def line(name: str, cells: list[str], indent: str) -> str:
        shown = name if len(name) <= width else "…" + name[-(width - 1):]
        return f"{indent}{shown:<{width + 2 - len(indent)}}" + "".join(
            f"{text:>{cell}}" for text, cell in zip(cells, cells_width, strict=True))

    return "\n".join([line(title, headers, ""),
                      *(line(name, cells, "  ") for name, cells in rows.items())])


def decimal_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def incomplete_message(summary: dict[str, Any]) -> str:
    """One line for a summary whose run is incomplete: how much is done and what to do."""
    rows_in = summary["rows"]["in"]
    of = f" of {rows_in:,}" if rows_in is not None else ""
    return (
        f"the run in {summary['output']['directory']} is incomplete: {summary['rows']['out']:,}"
        f"{of} rows are solved; missing: {_missing_text(summary['missing_rows'])}; rerun the "
        "solve-dataset command that wrote it to finish it"
    )


def _missing_text(missing: list[dict[str, Any]]) -> str:
    """'2 rows in 1 batch(es) ...; and the rest of 1 input(s) ...', for the table."""
    ranges = [m for m in missing if m["rows"] is not None]
    unread = [m for m in missing if m["rows"] is None]
    said = []
    if ranges:
        said.append(f"{sum(m['rows'] for m in ranges):,} rows in {len(ranges)} batch(es) "
                    "(listed in the summary, with the reason)")
    if unread:
        starts = ", ".join(f"{m['first_row']:,} of {m['source']}" for m in unread[:3])
        said.append(f"the rest of {len(unread)} input(s), from row {starts}")
    return "; and ".join(said)


def _json_histogram(histogram: dict[int, int]) -> dict[str, int]:
    """A histogram as JSON: values as strings, in increasing order."""
    return {str(value): histogram[value] for value in sorted(histogram)}


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "-"


def number_text(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _compact(histogram: dict[str, int], limit: int = 12) -> str:
    """``value:count`` pairs in value order; with more than ``limit`` values, ``low-high:count``
    for ``limit`` ranges of equal width, so that every row is shown."""
    if not histogram:
        return "-"
    pairs = sorted((int(value), count) for value, count in histogram.items())
    if len(pairs) <= limit:
        return "  ".join(f"{value}:{count:,}" for value, count in pairs)
    low, high = pairs[0][0], pairs[-1][0]
    width = -(-(high - low + 1) // limit)  # ceiling division
    buckets: dict[int, int] = {}
    for value, count in pairs:
        start = low + (value - low) // width * width
        buckets[start] = buckets.get(start, 0) + count
    return "  ".join(f"{start}-{min(start + width - 1, high)}:{count:,}"
                     for start, count in sorted(buckets.items()))
