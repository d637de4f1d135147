"""Per-part stats, their merge into ``summary.json``, and the summary as a readable table.

The same ``table_stats`` runs in the workers (on each part as it is written) and in
``summarize`` (on the parts read back), so a summary recomputed from the Parquet output
has exactly the numbers of the run that wrote it.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import storage
from pipeline.errors import PipelineError, one_line

STATUSES = (
    "invalid",
    "contradictory",
    "budget_exceeded",
    "unsolvable",
    "solved",
    "unique",
    "multiple",
)  # the order of solver.STATUSES (a test keeps them equal); summary tables follow it
SUMMARY_FILE = "summary.json"
PART_GLOB = "part-*.parquet"
STATS_COLUMNS = (
    "status",
    "givens",
    "prune_solvable",
    "singles_solvable",
    "search_depth",
    "search_nodes",
    "solution_matches",
    "solve_us",
)
HISTOGRAMS = ("search_depth", "search_nodes", "givens")
PERCENTILES = (50, 90, 99)


def table_stats(table: pa.Table) -> dict[str, Any]:
    """Counts over the rows of one output table, as plain, mergeable data.

    Histograms map a value (as a string, for JSON) to its number of rows, over the rows
    that are not invalid. The ladder counts the puzzles that are neither invalid nor
    contradictory: prune-solvable, singles-solvable but not prune-solvable, the rest.
    """
    codes = (
        pc.index_in(table.column("status"), value_set=pa.array(STATUSES))
        .fill_null(len(STATUSES))
        .to_numpy(zero_copy_only=False)
    )
    counts = np.bincount(codes, minlength=len(STATUSES) + 1)
    if counts[len(STATUSES)]:
        raise PipelineError("output holds a status that this version does not know")
    graded = (codes != STATUSES.index("invalid")) & (codes != STATUSES.index("contradictory"))
    prune = _flags(table, "prune_solvable") & graded
    singles = _flags(table, "singles_solvable") & graded
    matches = table.column("solution_matches")
    matched = int(pc.sum(matches).as_py() or 0)
    return {
        "rows": table.num_rows,
        "status": {name: int(counts[i]) for i, name in enumerate(STATUSES)},
        "ladder": {
            "prune_solvable": int(prune.sum()),
            "singles_solvable_only": int((singles & ~prune).sum()),
            "needs_search": int((graded & ~singles).sum()),
        },
        "solution_matches": {
            "true": matched,
            "false": len(matches) - matches.null_count - matched,
        },
        **{name: _histogram(table.column(name)) for name in HISTOGRAMS},
        "solve_seconds": float(pc.sum(table.column("solve_us")).as_py() or 0.0) / 1e6,
    }


def merge_stats(many: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The sum of several ``table_stats`` results (counts and histograms added up)."""
    total: dict[str, Any] = {"rows": 0, "parts": 0, "solve_seconds": 0.0}
    counters: dict[str, Counter] = {}
    for stats in many:
        for key, value in stats.items():
            if isinstance(value, dict):
                counters.setdefault(key, Counter()).update(value)
            elif key in total:
                total[key] += value
    for key, counter in counters.items():
        total[key] = dict(counter)
    total.setdefault("status", {})
    total["status"] = {name: total["status"].get(name, 0) for name in STATUSES}
    for name in HISTOGRAMS:
        total[name] = _sorted_histogram(total.get(name, {}))
    return total


def build_summary(
    stats: dict[str, Any],
    *,
    rows_in: int,
    run: dict[str, Any],
    inputs: list[dict[str, Any]],
    output: str,
    wall_seconds: float | None,
    rows_kept: int = 0,
    missing: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The content of ``summary.json`` (SPEC section 4) from merged stats.

    ``run`` is the run metadata stored in every part: version, versions, settings.
    ``rows_kept``: rows of parts an earlier, stopped run had written (a resumed run), so
    that the rate counts only the rows solved in ``wall_seconds``; ``missing``: the row
    ranges of batches that kept failing.
    """
    settings = run["settings"]
    nodes = stats["search_nodes"]
    wall = None if wall_seconds is None else round(wall_seconds, 3)
    solved = stats["rows"] - rows_kept
    return {
        "rows": {"in": rows_in, "out": stats["rows"]},
        "status": stats["status"],
        "ladder": stats["ladder"] if "ladder" in stats else {},
        "search_depth_histogram": stats["search_depth"],
        "search_nodes": {
            **{f"p{p}": percentile(nodes, p) for p in PERCENTILES},
            "max": max(map(int, nodes), default=None),
        },
        "givens_histogram": stats["givens"],
        "solution_matches": stats.get("solution_matches", {"true": 0, "false": 0}),
        "wall_seconds": wall,
        "puzzles_per_second": round(solved / wall, 1) if wall else None,
        "resumed_rows": rows_kept,
        "missing_rows": list(missing or []),
        "solve_seconds": round(stats["solve_seconds"], 3),
        "workers": settings["workers"],
        "engine": settings["engine"],
        "settings": settings,
        "versions": run["versions"],
        "inputs": inputs,
        "output": {"directory": output, "parts": stats["parts"]},
    }


def percentile(histogram: dict[str, int], p: float) -> int | None:
    """The nearest-rank ``p``-th percentile of the values counted by ``histogram``: the
    smallest value that at least ``p`` percent of the values do not exceed."""
    total = sum(histogram.values())
    if not total:
        return None
    rank = max(1, math.ceil(p / 100 * total))
    seen = 0
    for value, count in sorted((int(v), c) for v, c in histogram.items()):
        seen += count
        if seen >= rank:
            return value
    raise AssertionError("unreachable")


def write_summary(directory: str | os.PathLike, summary: dict[str, Any]) -> str:
    """Write ``summary.json`` into ``directory`` atomically; return its location."""
    path = storage.join(storage.location(directory), SUMMARY_FILE)
    storage.write_bytes(path, (json.dumps(summary, indent=2) + "\n").encode())
    return path


def is_part_name(name: str) -> bool:
    return fnmatch.fnmatchcase(name, PART_GLOB)


def part_names(directory: str) -> list[str]:
    """The names of the Parquet parts in ``directory``, sorted (that is, in input order)."""
    entries = storage.listing(directory)
    return [entry.name for entry in entries if entry.is_file and is_part_name(entry.name)]


def summarize(directory: str | os.PathLike) -> dict[str, Any]:
    """Recompute the summary of a finished run from its Parquet parts alone.

    Wall time is not in the Parquet files: it is taken from an existing summary.json
    when there is one, else left null.
    """
    import pyarrow.parquet as pq

    from pipeline.work import METADATA_KEY, PART_METADATA_KEY

    directory = storage.location(directory)
    if storage.kind(directory) != "directory":
        raise PipelineError(f"output directory not found: {directory} (check the path)")
    parts = part_names(directory)
    if not parts:
        raise PipelineError(
            f"no {PART_GLOB} files in {directory}; run `sudoku-pipeline solve-dataset` first"
        )
    all_stats = []
    rows_by_source: Counter = Counter()
    spans: list[tuple[str, int, int, str]] = []
    run_bytes = None
    for name in parts:
        path = storage.join(directory, name)
        try:
            with storage.arrow_source(path) as source:
                file = pq.ParquetFile(source)
                metadata = file.schema_arrow.metadata or {}
                table = file.read(columns=list(STATS_COLUMNS))
        except (pa.ArrowException, OSError) as err:
            raise PipelineError(f"cannot read {path}: {one_line(err)}") from None
        if METADATA_KEY not in metadata or PART_METADATA_KEY not in metadata:
            raise PipelineError(f"{path} was not written by sudoku-pipeline (no run metadata)")
        if run_bytes is None:
            run_bytes = metadata[METADATA_KEY]
        elif metadata[METADATA_KEY] != run_bytes:
            raise PipelineError(
                f"{path} belongs to another run than {parts[0]}; keep one run per output directory"
            )
        part = json.loads(metadata[PART_METADATA_KEY])
        rows_by_source[part["source"]] += part["rows"]
        spans.append((part["source"], part["first_row"], part["rows"], name))
        stats = table_stats(table)
        stats["parts"] = 1
        all_stats.append(stats)
    run = json.loads(run_bytes)
    _check_rows_tile(spans)
    previous = _previous_summary(directory)
    inputs = [{**entry, "rows": rows_by_source.get(entry["path"], 0)} for entry in run["inputs"]]
    merged = merge_stats(all_stats)
    return build_summary(
        merged,
        rows_in=(previous or {}).get("rows", {}).get("in", merged["rows"]),
        run=run,
        inputs=inputs,
        output=str(directory),
        wall_seconds=(previous or {}).get("wall_seconds"),
        rows_kept=(previous or {}).get("resumed_rows", 0),
    )


def _check_rows_tile(spans: list[tuple[str, int, int, str]]) -> None:
    """Every source's parts must cover its rows 0, 1, 2, ... once each, without a gap."""
    expected: dict[str, int] = {}
    for source, first_row, rows, name in sorted(spans):
        start = expected.get(source, 0)
        if first_row != start:
            low, high = sorted((start, first_row))
            if first_row > start:
                fix = "rerun the solve-dataset command that wrote it: it solves what is missing"
                problem = "are missing"
            else:
                fix = "rerun solve-dataset with --overwrite"
                problem = "appear twice"
            raise PipelineError(f"rows {low}-{high - 1} of {source} {problem} (at {name}); {fix}")
        expected[source] = first_row + rows


def _previous_summary(directory: str) -> dict[str, Any] | None:
    try:
        return json.loads(storage.read_bytes(storage.join(directory, SUMMARY_FILE)))
    except (OSError, ValueError, PipelineError):
        return None


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as a plain-text table for a terminal."""
    rows_out, parts = summary["rows"]["out"], summary["output"]["parts"]
    lines = [
        f"{summary['rows']['in']:,} rows in, {rows_out:,} rows out, {parts:,} Parquet "
        f"part{'' if parts == 1 else 's'} in {summary['output']['directory']}",
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
            f"  {label:<24}{ladder.get(key, 0):>12,}{_share(ladder.get(key, 0), rows_out):>9}"
            for key, label in (
                ("prune_solvable", "prune-solvable"),
                ("singles_solvable_only", "singles-solvable only"),
                ("needs_search", "needs search"),
            )
        ),
        "",
        "search_nodes  "
        + "   ".join(f"{key} {_number(value)}" for key, value in summary["search_nodes"].items()),
        "search_depth  " + _compact(summary["search_depth_histogram"]),
        "givens        " + _compact(summary["givens_histogram"]),
    ]
    matches = summary["solution_matches"]
    if matches["true"] or matches["false"]:
        lines.append(f"published     {matches['true']:,} solutions match, {matches['false']:,} differ")
    missing = summary.get("missing_rows") or []
    if missing:
        lines.append(
            f"MISSING       {sum(m['rows'] for m in missing):,} rows in {len(missing)} batch(es) "
            "that kept failing (listed in summary.json)"
        )
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


def _flags(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).fill_null(False).to_numpy(zero_copy_only=False).astype(bool)


def _histogram(column: pa.ChunkedArray) -> dict[str, int]:
    values = column.drop_null().to_numpy()
    found, counts = np.unique(values, return_counts=True)
    return {str(int(v)): int(c) for v, c in zip(found.tolist(), counts.tolist(), strict=True)}


def _sorted_histogram(histogram: dict[str, int]) -> dict[str, int]:
    return {key: histogram[key] for key in sorted(histogram, key=int)}


def _share(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "-"


def _number(value: int | None) -> str:
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
