"""Every number a run reports, computed one way: ``Stats`` counts rows, ``Numbers`` reads them.

``Stats`` holds counts over some rows of the output (histograms of values, not the rows), and
``a + b`` counts the rows of both: the workers count each part as they write it, resume counts
the parts kept from a stopped run, ``summarize`` the parts read back, and ``Stats.by_group``
counts the groups of ``summarize --by`` and of the report, all with the same code. ``Numbers``
is what the summary, ``by_input``, ``summarize --by`` and the report show of a ``Stats``: row
counts, the ladders, histograms and nearest-rank percentiles. So a summary recomputed from the
Parquet output has exactly the numbers of the run that wrote it, and a group that holds every
row has the run's numbers.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.errors import PipelineError
from solver.vocabulary import GRADES, STATUSES

# The output columns the stats are computed from (all a kept part is read for).
STATS_COLUMNS = (
    "status",
    "boxsize",
    "givens",
    "prune_solvable",
    "singles_solvable",
    "search_depth",
    "search_nodes",
    "solution_matches",
    "solve_us",
    "grade",
    "rating",
    "backdoor_size",
    "se",
)
# The difficulty ladder of SPEC section 4, over the puzzles that are neither invalid nor
# contradictory: prune-solvable, singles-solvable but not prune-solvable, and the rest.
LADDER = ("prune_solvable", "singles_solvable_only", "needs_search")
# The percentiles a summary gives of search_nodes and rating (nearest-rank).
PERCENTILES = (50, 90, 99)
HISTOGRAMS = ("boxsize", "search_depth", "search_nodes", "givens", "rating", "backdoor_size", "se")
# SPEC 5.4's scale in bands of whole numbers: 1.x (1.0 to 1.9) up to 11.x; ER 12 and more (20.0,
# serate's "no rule applies") is the last band.
SE_BANDS = tuple(range(1, 13))
_INVALID = STATUSES.index("invalid")
_CONTRADICTORY = STATUSES.index("contradictory")
_UNIQUE = STATUSES.index("unique")


@dataclass(frozen=True)
class Stats:
    """Counts over some rows of the output; ``a + b`` counts the rows of both.

    Histograms (``Counter``) map a value to its number of rows, over the rows that are not
    invalid (``grade``, ``rating`` and ``backdoor_size`` over the rows that have one).
    """

    rows: int = 0
    parts: int = 0
    status: Counter = field(default_factory=Counter)
    boxsize: Counter = field(default_factory=Counter)  # rows per box size (SPEC 7)
    ladder: Counter = field(default_factory=Counter)
    solution_matches: Counter = field(default_factory=Counter)  # "true" / "false"
    search_depth: Counter = field(default_factory=Counter)
    search_nodes: Counter = field(default_factory=Counter)
    givens: Counter = field(default_factory=Counter)
    grade: Counter = field(default_factory=Counter)  # rows per rung (SPEC 5.1)
    rating: Counter = field(default_factory=Counter)  # rating value -> rows (SPEC 5.2)
    backdoor_size: Counter = field(default_factory=Counter)  # (SPEC 5.3)
    se: Counter = field(default_factory=Counter)  # ER -> rows (SPEC 5.4)
    se_unrated: int = 0  # unique rows without an se: over the SE work budget, if it was measured
    solve_seconds: float = 0.0  # the sum of solve_us
    worker_seconds: float = 0.0  # workers' wall time on their parts, reading and writing included

    def __add__(self, other: Stats) -> Stats:
        return Stats(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def with_worker_seconds(self, seconds: float) -> Stats:
        return Stats(**{**{f.name: getattr(self, f.name) for f in fields(self)},
                        "worker_seconds": seconds})

    @classmethod
    def of_table(cls, table: pa.Table) -> Stats:
        """The stats of one part (an output table holding ``STATS_COLUMNS``)."""
        stats = cls.by_group(table, np.zeros(table.num_rows, np.int64), 1)[0]
        return Stats(**{**{f.name: getattr(stats, f.name) for f in fields(stats)}, "parts": 1})

    @classmethod
    def by_group(cls, table: pa.Table, groups: np.ndarray, n_groups: int) -> list[Stats]:
        """The stats of each group of the rows of ``table`` (holding ``STATS_COLUMNS``):
        ``groups[i]`` is row i's group, 0 .. n_groups - 1. Vectorised: one pass a column."""
        groups = np.asarray(groups, np.int64)
        codes = (
            pc.index_in(table.column("status"), value_set=pa.array(STATUSES))
            .fill_null(len(STATUSES))
            .to_numpy(zero_copy_only=False)
        )
        if np.any(codes == len(STATUSES)):
            raise PipelineError("output holds a status that this version does not know")
        laddered = (codes != _INVALID) & (codes != _CONTRADICTORY)
        prune = _flags(table, "prune_solvable") & laddered
        singles = _flags(table, "singles_solvable") & laddered
        rung = np.select([prune, singles & ~prune, laddered], [0, 1, 2], default=-1)
        matches = table.column("solution_matches")
        match = np.where(matches.is_null().to_numpy(zero_copy_only=False), -1,
                         matches.fill_null(False).to_numpy(zero_copy_only=False).astype(np.int8))
        grade = pc.index_in(table.column("grade"), value_set=pa.array(GRADES)).fill_null(-1)
        nine = table.column("boxsize").fill_null(0).to_numpy(zero_copy_only=False) == 3
        unrated = ((codes == _UNIQUE) & nine  # SPEC 5.4 rates 9 x 9 puzzles only
                   & table.column("se").is_null().to_numpy(zero_copy_only=False))
        status = _counts(groups, codes, n_groups, STATUSES)
        ladder = _counts(groups, rung, n_groups, LADDER)
        solution = _counts(groups, match, n_groups, ("false", "true"))
        grades = _counts(groups, grade.to_numpy(zero_copy_only=False), n_groups, GRADES)
        histograms = {name: _histograms(groups, table.column(name), n_groups)
                      for name in HISTOGRAMS}
        solve_us = table.column("solve_us").fill_null(0).to_numpy(zero_copy_only=False)
        seconds = np.bincount(groups, weights=solve_us, minlength=n_groups) / 1e6
        rows = np.bincount(groups, minlength=n_groups)
        unrated = np.bincount(groups, weights=unrated, minlength=n_groups)
        return [
            cls(rows=int(rows[g]), status=status[g], ladder=ladder[g],
                solution_matches=solution[g], grade=grades[g],
                **{name: histograms[name][g] for name in HISTOGRAMS},
                se_unrated=int(unrated[g]), solve_seconds=float(seconds[g]))
            for g in range(n_groups)
        ]


@dataclass
class Tally:
    """``Stats`` added up over parts as they come: in all, and per input while there are few
    enough inputs to list them (``per_input`` is None beyond ``limit`` inputs), so that a run of
    any number of parts and inputs holds a bounded number of them."""

    inputs: int
    limit: int
    total: Stats = field(default_factory=Stats)
    per_input: list[Stats] | None = None

    def __post_init__(self) -> None:
        if self.per_input is None and self.inputs <= self.limit:
            self.per_input = [Stats() for _ in range(self.inputs)]

    def add(self, file_index: int, stats: Stats) -> None:
        self.total += stats
        if self.per_input is not None:
            self.per_input[file_index] += stats


def _flags(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).fill_null(False).to_numpy(zero_copy_only=False).astype(bool)


def _counts(groups: np.ndarray, codes: np.ndarray, n_groups: int,
            names: tuple[str, ...]) -> list[Counter]:
    """Per group, rows per name (``codes`` index ``names``; a negative code is not counted)."""
    kept = codes >= 0
    table = np.bincount(groups[kept] * len(names) + codes[kept],
                        minlength=n_groups * len(names)).reshape(n_groups, len(names))
    return [Counter({name: int(count) for name, count in zip(names, row, strict=True) if count})
            for row in table]


def _histograms(groups: np.ndarray, column: pa.ChunkedArray, n_groups: int) -> list[Counter]:
    """Per group, rows per value of ``column`` (nulls not counted)."""
    present = ~column.is_null().to_numpy(zero_copy_only=False)
    values = column.fill_null(0).to_numpy(zero_copy_only=False)[present]
    found = [Counter() for _ in range(n_groups)]
    if n_groups == 1:
        unique, counts = np.unique(values, return_counts=True)
        found[0] = Counter(dict(zip(unique.tolist(), counts.tolist(), strict=True)))
        return found
    owners = groups[present]
    order = np.lexsort((values, owners))
    owners, values = owners[order], values[order]
    starts = np.flatnonzero(np.concatenate(
        ([True], (owners[1:] != owners[:-1]) | (values[1:] != values[:-1])))) if len(order) else []
    ends = np.append(starts[1:], len(order)) if len(order) else []
    for start, end in zip(starts, ends, strict=True):
        found[int(owners[start])][values[start].item()] = int(end - start)
    return found


# --- what is shown of a Stats ------------------------------------------------------------------


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


@dataclass(frozen=True)
class Percentiles:
    """How many values there are, the nearest-rank p50, p90, p99, and the largest."""

    rows: int
    p50: Any
    p90: Any
    p99: Any
    max: Any

    @classmethod
    def of(cls, histogram: dict[Any, int]) -> Percentiles:
        return cls(sum(histogram.values()), *(percentile(histogram, p) for p in PERCENTILES),
                   max(histogram, default=None))

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "p50": self.p50, "p90": self.p90, "p99": self.p99,
                "max": self.max}


@dataclass(frozen=True)
class Numbers:
    """The numbers of some rows (a run, an input, a group), read off their ``Stats``.

    ``ladder`` counts the puzzles neither invalid nor contradictory (``laddered``);
    ``grade_ladder`` the graded ones (unique or solved: ``graded``), every rung in ladder order.
    """

    rows: int
    status: dict[str, int]
    boxsize_histogram: dict[int, int]
    ladder: dict[str, int]
    grade_ladder: dict[str, int]
    search_depth_histogram: dict[int, int]
    search_nodes: Percentiles
    givens_histogram: dict[int, int]
    solution_matches: dict[str, int]
    rating: Percentiles
    backdoor_size_histogram: dict[int, int]
    se: Percentiles
    se_bands: dict[int, int]  # rows per whole number of ER (SE_BANDS; 12: 12 and more)
    se_unrated: int  # unique rows without se (with --measures se: over the SE work budget)

    @classmethod
    def of(cls, stats: Stats) -> Numbers:
        return cls(
            rows=stats.rows,
            status={name: stats.status[name] for name in STATUSES},
            boxsize_histogram=_sorted(stats.boxsize),
            ladder={name: stats.ladder[name] for name in LADDER},
            grade_ladder={name: stats.grade[name] for name in GRADES},
            search_depth_histogram=_sorted(stats.search_depth),
            search_nodes=Percentiles.of(stats.search_nodes),
            givens_histogram=_sorted(stats.givens),
            solution_matches={key: stats.solution_matches[key] for key in ("true", "false")},
            rating=Percentiles.of(stats.rating),
            backdoor_size_histogram=_sorted(stats.backdoor_size),
            se=Percentiles.of(stats.se),
            se_bands=se_bands(stats.se),
            se_unrated=stats.se_unrated,
        )

    @property
    def laddered(self) -> int:
        """The puzzles the difficulty ladder counts: neither invalid nor contradictory."""
        return sum(self.ladder.values())

    @property
    def graded(self) -> int:
        """The puzzles with a grade: unique or solved."""
        return sum(self.grade_ladder.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "status": self.status,
            "boxsize_histogram": _json_histogram(self.boxsize_histogram),
            "ladder": self.ladder,
            "grade_ladder": self.grade_ladder,
            "search_depth_histogram": _json_histogram(self.search_depth_histogram),
            "search_nodes": self.search_nodes.to_dict(),
            "givens_histogram": _json_histogram(self.givens_histogram),
            "solution_matches": self.solution_matches,
            "rating": self.rating.to_dict(),
            "backdoor_size_histogram": _json_histogram(self.backdoor_size_histogram),
            "se": self.se.to_dict(),
            "se_bands": _json_histogram(self.se_bands),
            "se_unrated": self.se_unrated,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Numbers:
        return cls(
            rows=data["rows"],
            status=dict(data["status"]),
            boxsize_histogram=_int_histogram(data["boxsize_histogram"]),
            ladder=dict(data["ladder"]),
            grade_ladder=dict(data["grade_ladder"]),
            search_depth_histogram=_int_histogram(data["search_depth_histogram"]),
            search_nodes=Percentiles(**data["search_nodes"]),
            givens_histogram=_int_histogram(data["givens_histogram"]),
            solution_matches=dict(data["solution_matches"]),
            rating=Percentiles(**data["rating"]),
            backdoor_size_histogram=_int_histogram(data["backdoor_size_histogram"]),
            # a summary written before SPEC 5.4 has no se
            se=Percentiles(**data.get("se", Percentiles.of({}).to_dict())),
            se_bands=_int_histogram(data.get("se_bands", {})),
            se_unrated=data.get("se_unrated", 0),
        )


def se_bands(histogram: dict[float, int]) -> dict[int, int]:
    """Rows per band of the SE scale (``SE_BANDS``: 1 for 1.0-1.9, ..., 12 for 12 and more),
    every band, met or not, so that the bands of groups line up."""
    bands = Counter({band: 0 for band in SE_BANDS})
    for value, count in histogram.items():
        bands[min(int(value), SE_BANDS[-1])] += count
    return dict(sorted(bands.items()))


def _sorted(histogram: Counter) -> dict[Any, int]:
    return {value: histogram[value] for value in sorted(histogram)}


def _json_histogram(histogram: dict[int, int]) -> dict[str, int]:
    """A histogram as JSON: values as strings, in increasing order."""
    return {str(value): count for value, count in histogram.items()}


def _int_histogram(histogram: dict[str, int]) -> dict[int, int]:
    return {int(value): count for value, count in histogram.items()}
