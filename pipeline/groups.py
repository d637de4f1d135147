"""A run's rows in groups: by the value of a column (``summarize --by COLUMN``, the report), and
the labels that name inputs everywhere a group is shown.

Each group's numbers are ``Stats.by_group`` over its rows, added up part by part: the same
computation as the whole run's summary, so the groups of a run of one group have exactly the
run's numbers. An input is labelled by its file name (``input_labels``), with as much of its path
as tells two inputs of the same name apart; a row whose input lacks the column is grouped under
its input's label. Beyond ``max_groups`` values (a column of puzzles, say) the largest are kept
and the others are one group.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.errors import PipelineError
from pipeline.part import read_columns
from pipeline.stats import STATS_COLUMNS, Stats
from solver.vocabulary import GRADES, STATUSES

Part = tuple[str, str]  # a part's path, and the input its rows come from


def input_labels(paths: Sequence[str]) -> dict[str, str]:
    """Each input's label: its file name, or, when inputs share a name, the shortest end of its
    path that no other input's path ends with (``a/top.txt``, ``b/top.txt``).

    >>> input_labels(["/data/x/top1465.txt", "../shared/sudoku17.txt"])
    {'/data/x/top1465.txt': 'top1465.txt', '../shared/sudoku17.txt': 'sudoku17.txt'}
    >>> input_labels(["a/top.txt", "b/top.txt"])
    {'a/top.txt': 'a/top.txt', 'b/top.txt': 'b/top.txt'}
    """
    split = {path: tuple(piece for piece in path.rstrip("/").split("/") if piece) or (path,)
             for path in paths}
    # The ends of every length are counted once (comparing each input with every other took
    # minutes for 20,000 inputs).
    labels: dict[str, str] = {}
    length = 1
    while len(labels) < len(split):
        ends = Counter(pieces[-length:] for pieces in split.values())
        for path, pieces in split.items():
            if path not in labels and (ends[pieces[-length:]] == 1 or length >= len(pieces)):
                labels[path] = "/".join(pieces[-length:])
        length += 1
    return {path: labels[path] for path in split}


def group_stats(parts: Sequence[Part], column: str, labels: dict[str, str], *,
                max_groups: int) -> dict[str, Stats]:
    """The ``Stats`` of each group of the rows of ``parts`` by ``column``, in the column's own
    order (``in_order``), else in order of first appearance: at most ``max_groups`` of them, the
    largest, the others as one group named 'N other values'."""
    sizes: Counter = Counter()
    for path, source in parts:
        keys = _keys(read_columns(path, [column]).column(column), column, labels[source])
        found, counts = np.unique(keys, return_counts=True)
        sizes.update(dict(zip(found.tolist(), counts.tolist(), strict=True)))
    kept = _kept(sizes, max_groups)
    others = f"{len(sizes) - len(kept):,} other values"
    totals: dict[str, Stats] = {}
    for path, source in parts:
        table = read_columns(path, list(dict.fromkeys([*STATS_COLUMNS, column])))
        keys = np.array([key if key in kept else others for key in
                         _keys(table.column(column), column, labels[source]).tolist()], dtype=object)
        names, codes = np.unique(keys, return_inverse=True)
        first = np.full(len(names), len(keys))
        np.minimum.at(first, codes, np.arange(len(keys)))
        per_group = Stats.by_group(table, codes, len(names))
        for code in np.argsort(first, kind="stable").tolist():
            name = str(names[code])
            totals[name] = totals.get(name, Stats()) + per_group[code]
    return in_order(totals, column)


# Columns whose values have an order of their own: the ladder's rungs, the statuses.
ORDERS = {"grade": GRADES, "status": STATUSES}


def in_order(groups: dict[str, Stats], column: str) -> dict[str, Stats]:
    """``groups`` (in order of first appearance) in the order of ``column``'s values: the
    rungs of the ladder for ``grade``, SPEC's order for ``status``, numbers by value for a
    column of numbers; groups that are no such value (an input's label, 'N other values')
    after them, as they came."""
    return {name: groups[name] for name in ordered(list(groups), column)}


def ordered(names: list[str], column: str) -> list[str]:
    """Group ``names`` (in order of first appearance) in the order of ``column``'s values (see
    ``in_order``)."""
    order = ORDERS.get(column)
    rank = ({value: i for i, value in enumerate(order)} if order is not None
            else {name: _number(name) for name in names})
    ranked = sorted((name for name in names if rank.get(name) is not None), key=rank.get)
    return ranked + [name for name in names if rank.get(name) is None]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _kept(sizes: Counter, max_groups: int) -> set[str]:
    """The values kept as groups of their own: all, or the ``max_groups - 1`` largest."""
    if len(sizes) <= max_groups:
        return set(sizes)
    ranked = sorted(sizes.items(), key=lambda item: (-item[1], item[0]))
    return {value for value, _ in ranked[:max_groups - 1]}


def _keys(column: pa.ChunkedArray, name: str, label: str) -> np.ndarray:
    """Each row's group: its value of the column ``name`` as text, or, where null (its input has
    no such column), its input's label. The ``source`` column is shown by its label."""
    if name == "source":
        return np.full(len(column), label, dtype=object)
    text = pc.cast(column, pa.string()) if column.type != pa.string() else column
    return np.asarray(text.fill_null(label).to_numpy(zero_copy_only=False), dtype=object)


def check_column(names: Sequence[str], column: str, directory: str) -> None:
    """A ``PipelineError`` naming the columns there are when ``column`` is not one."""
    if column not in names:
        raise PipelineError(f"the run in {directory} has no column {column!r}; it has: "
                            f"{', '.join(names)}")
