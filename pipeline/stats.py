"""``Stats``: counts over rows of the output, computed per part and added up.

The same ``Stats.of_table`` runs in the workers (on each part as it is written), in resume (on
the parts kept from a stopped run) and in ``summarize`` (on the parts read back), so a
summary recomputed from the Parquet output has exactly the numbers of the run that wrote it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, fields

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.errors import PipelineError
from solver.vocabulary import STATUSES

# The output columns the stats are computed from (all a kept part is read for).
STATS_COLUMNS = (
    "status",
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
)
LADDER = ("prune_solvable", "singles_solvable_only", "needs_search")
# The percentiles a summary gives of search_nodes and rating (nearest-rank).
PERCENTILES = (50, 90, 99)


@dataclass(frozen=True)
class Stats:
    """Counts over some rows of the output; ``a + b`` counts the rows of both.

    Histograms (``Counter``) map a value to its number of rows, over the rows that are not
    invalid. The ladder counts the puzzles that are neither invalid nor contradictory:
    prune-solvable, singles-solvable but not prune-solvable, the rest.
    """

    rows: int = 0
    parts: int = 0
    status: Counter = field(default_factory=Counter)
    ladder: Counter = field(default_factory=Counter)
    solution_matches: Counter = field(default_factory=Counter)  # "true" / "false"
    search_depth: Counter = field(default_factory=Counter)
    search_nodes: Counter = field(default_factory=Counter)
    givens: Counter = field(default_factory=Counter)
    grade: Counter = field(default_factory=Counter)  # rows per rung (SPEC 5.1)
    rating: Counter = field(default_factory=Counter)  # rating value -> rows (SPEC 5.2)
    backdoor_size: Counter = field(default_factory=Counter)  # (SPEC 5.3)
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
        return cls(
            rows=table.num_rows,
            parts=1,
            status=Counter({name: int(counts[i]) for i, name in enumerate(STATUSES) if counts[i]}),
            ladder=Counter({
                "prune_solvable": int(prune.sum()),
                "singles_solvable_only": int((singles & ~prune).sum()),
                "needs_search": int((graded & ~singles).sum()),
            }),
            solution_matches=Counter(
                {"true": matched, "false": len(matches) - matches.null_count - matched}
            ),
            search_depth=_histogram(table.column("search_depth")),
            search_nodes=_histogram(table.column("search_nodes")),
            givens=_histogram(table.column("givens")),
            grade=Counter(table.column("grade").drop_null().to_pylist()),
            rating=_histogram(table.column("rating")),
            backdoor_size=_histogram(table.column("backdoor_size")),
            solve_seconds=float(pc.sum(table.column("solve_us")).as_py() or 0.0) / 1e6,
        )


def _flags(table: pa.Table, name: str) -> np.ndarray:
    return table.column(name).fill_null(False).to_numpy(zero_copy_only=False).astype(bool)


def _histogram(column: pa.ChunkedArray) -> Counter:
    values = column.drop_null().to_numpy(zero_copy_only=False)
    found, counts = np.unique(values, return_counts=True)
    return Counter(dict(zip(found.tolist(), counts.tolist(), strict=True)))
