"""Records that cross the solver's boundaries: named columns instead of positional tuples.

``FIELDS`` is the one table of a batch's result: each field's name, numpy type, null, shape,
where its values come from, how a row reads it and what it means. The result records are
generated from it: ``Difficulty`` (SPEC 5's measures, allocated null), ``BatchResult`` (every
field, as arrays), ``Result`` (one row of it) and ``ROW`` (how a row reads each field); so is
the pipeline's table of result columns (``pipeline.columns.RESULT_COLUMNS``). A new measure is
one entry of ``FIELDS``. ``SearchColumns`` is the search kernels' own record (they fill it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, make_dataclass
from typing import Any, NamedTuple

import numpy as np

from solver.vocabulary import GRADES, SE_TECHNIQUES, STATUSES


class SearchColumns(NamedTuple):
    """What the search found for each row of a batch (SPEC section 3's numbers), as arrays."""

    contradictory: np.ndarray  # bool: givens repeat a digit in a unit
    budget_exceeded: np.ndarray  # bool
    givens: np.ndarray  # int16 (a 25 x 25 puzzle has up to 625)
    n_solutions: np.ndarray  # int32
    prune_solvable: np.ndarray  # bool
    singles_solvable: np.ndarray  # bool
    search_depth: np.ndarray  # int32
    search_nodes: np.ndarray  # int64
    first_solution: np.ndarray  # (n, C) uint8 values 1..N; zeros when there is none
    solve_ns: np.ndarray  # int64 wall time per row

    @classmethod
    def empty(cls, n: int, cells: int = 81) -> SearchColumns:
        return cls(
            contradictory=np.zeros(n, np.bool_),
            budget_exceeded=np.zeros(n, np.bool_),
            givens=np.zeros(n, np.int16),
            n_solutions=np.zeros(n, np.int32),
            prune_solvable=np.zeros(n, np.bool_),
            singles_solvable=np.zeros(n, np.bool_),
            search_depth=np.zeros(n, np.int32),
            search_nodes=np.zeros(n, np.int64),
            first_solution=np.zeros((n, cells), np.uint8),
            solve_ns=np.zeros(n, np.int64),
        )


MISSING = -1  # the null of the int8 columns ``grade`` and ``backdoor_size`` (``rating``'s is NaN)

# Where a field's values come from (``solver.api.solve_ascii``):
SEARCH = "search"  # the field of that name of the search's ``SearchColumns``, as it is
MEASURE = "measure"  # a field of ``Difficulty``, which an implementation's ``difficulty`` fills
BATCH = "batch"  # computed by ``solve_ascii`` itself (from the input, the search, the options)

# A field's shape in a batch of n rows:
SCALAR = "scalar"  # (n,)
GRID = "grid"  # (n, C): a byte per cell, C the cells of the batch's largest box size
PER_TECHNIQUE = "per technique"  # (n, len(SE_TECHNIQUES)): a count per SE technique family

Reader = Callable[..., Any]  # (batch, row i, the row's box size or None) -> the row's value


@dataclass(frozen=True)
class Field:
    """One field of a batch's result.

    ``dtype``: its numpy type (None for ``error``, a list of messages). ``null``: what a row
    without a value holds (NaN, ``MISSING``, 0: zero bytes for a grid, zero counts), or None
    where no value stands for null: a number of the search is null only on an invalid row, and
    ``nullable`` False says the field is never null (``status``, ``solve_us``). ``read``: how
    row i of a ``BatchResult`` reads as a ``Result`` field; None, the plain way: the number as
    a Python bool, int or float, None where it holds ``null``. ``always``: an invalid row has
    it too (its other fields are None). ``public`` False: the batch's own flag, neither a
    ``Result`` field nor a column.
    """

    name: str
    dtype: type | None
    null: float | None
    shape: str
    group: str
    meaning: str
    read: Reader | None = None
    nullable: bool = True
    always: bool = False
    public: bool = True

    def nulls(self, values: np.ndarray) -> np.ndarray:
        """Where ``values`` (this field's) hold its ``null``."""
        if isinstance(self.null, float) and np.isnan(self.null):
            return np.isnan(values)
        return values == self.null

    def allocate(self, n: int, cells: int = 81) -> np.ndarray:
        """n rows of this field, each null (zeros where ``null`` is None)."""
        shape = {SCALAR: (n,), GRID: (n, cells), PER_TECHNIQUE: (n, len(SE_TECHNIQUES))}
        return np.full(shape[self.shape], 0 if self.null is None else self.null, self.dtype)

    def value(self, batch: Any, i: int, boxsize: int | None) -> Any:
        """Row ``i`` of ``batch`` (a ``BatchResult``) as this ``Result`` field."""
        if self.read is not None:
            return self.read(batch, i, boxsize)
        value = getattr(batch, self.name)[i]
        return None if self.null is not None and self.nulls(value) else value.item()


def _text(column: np.ndarray, i: int, boxsize: int) -> str:
    return column[i, :boxsize**4].tobytes().decode()


def _techniques(batch: Any, i: int, boxsize: int | None) -> dict[str, int] | None:
    """Row ``i``'s ``se_techniques``: the families on its SE path with their counts (those
    used only), None where ``se`` is null."""
    if np.isnan(batch.se[i]):
        return None
    return {name: int(count) for name, count in zip(SE_TECHNIQUES, batch.se_techniques[i],
                                                     strict=True) if count}


# The fields of a batch's result, in the order of a part's columns (``pipeline.columns``, which
# adds its own: ``grid``, ``solution_matches``, ``source``, ``row``). Each meaning is SPEC's,
# shortened; docs/usage.md's column table says more.
FIELDS = (
    Field("status", np.uint8, None, SCALAR, BATCH, "`invalid`, `contradictory`, "
          "`budget_exceeded`, `unsolvable`, `solved`, `unique`, `multiple` (SPEC 3: the first "
          "that applies)", read=lambda batch, i, b: STATUSES[batch.status[i]], nullable=False,
          always=True),
    Field("error", None, None, SCALAR, BATCH, "why a puzzle is `invalid` or `contradictory`, "
          "else null", read=lambda batch, i, b: batch.error[i], always=True),
    Field("valid", np.bool_, None, SCALAR, BATCH, "the row is a puzzle (not `invalid`): else "
          "its metrics are meaningless", public=False),
    Field("boxsize", np.int8, 0, SCALAR, BATCH, "the box size b of the puzzle, N = b * b (SPEC "
          "7: 3 for Sudoku; null for an invalid row under boxsize auto)", always=True),
    Field("givens", np.int16, None, SCALAR, SEARCH, "given digits (null when invalid)"),
    Field("n_solutions", np.int32, None, SCALAR, SEARCH,
          "solutions found, at most `max_solutions`"),
    Field("solutions_capped", np.bool_, None, SCALAR, BATCH,
          "the count stopped at `max_solutions`"),
    Field("prune_solvable", np.bool_, None, SCALAR, SEARCH, "Bird's pruning alone solves it"),
    Field("singles_solvable", np.bool_, None, SCALAR, SEARCH,
          "naked and hidden singles solve it"),
    Field("search_depth", np.int32, None, SCALAR, SEARCH, "deepest search node"),
    Field("search_nodes", np.int64, None, SCALAR, SEARCH,
          "search nodes visited, root included"),
    Field("first_solution", np.uint8, 0, GRID, BATCH, "the first solution found, N * N "
          "symbols, else null", read=lambda batch, i, b: (_text(batch.first_solution, i, b)
                                                          if batch.has_solution[i] else None)),
    Field("has_solution", np.bool_, None, SCALAR, BATCH, "a solution was found (the rows where "
          "`first_solution` means something)", public=False),
    Field("grade", np.int8, MISSING, SCALAR, MEASURE, "the first rung of SPEC 5.1's ladder "
          "that solves it (always computed; null unless `unique` or `solved`)",
          read=lambda batch, i, b: (None if batch.grade[i] == MISSING
                                    else GRADES[batch.grade[i]])),
    Field("rating", np.float64, np.nan, SCALAR, MEASURE, "SPEC 5.2: the mean search depth over "
          "symmetric copies (`--measures rating`; null unless `unique`)"),
    Field("backdoor_size", np.int8, MISSING, SCALAR, MEASURE, "SPEC 5.3: the fewest solution "
          "cells singles need (`--measures backdoor`; null unless `unique`, or above 3)"),
    Field("se", np.float64, np.nan, SCALAR, MEASURE, "SPEC 5.4: the Sudoku Explainer rating "
          "(ER: the hardest step of serate's path, 1.0 to about 12; `--measures se`, 9 x 9 "
          "only; null unless `unique`, and over the SE work budget `se_budget`)"),
    Field("se_ep", np.float64, np.nan, SCALAR, MEASURE, "SPEC 5.4: EP, the hardest step up to "
          "the first placement (null as `se`)"),
    Field("se_ed", np.float64, np.nan, SCALAR, MEASURE, "SPEC 5.4: ED, the first step's "
          "difficulty (null as `se`)"),
    Field("se_techniques", np.int16, 0, PER_TECHNIQUE, MEASURE, "SPEC 5.4: how many hints of "
          "each technique family serate's path applies, a struct of int16 fields "
          "(`hidden_single`, `x_wing`, ..., `nested_forcing_chains`; docs/measures.md); null "
          "as `se`", read=_techniques),
    Field("canonical", np.uint8, 0, GRID, BATCH, "SPEC 6: the minlex form up to the Sudoku "
          "symmetries (`--measures canonical`; null when invalid)",
          read=lambda batch, i, b: _text(batch.canonical, i, b) if batch.canonical[i, 0] else None),
    Field("solve_us", np.float64, None, SCALAR, BATCH, "microseconds of this puzzle's search "
          "(its grade and measures not included; the only non-deterministic column)",
          nullable=False),
)


def _result_order(fields: tuple[Field, ...]) -> tuple[Field, ...]:
    """The public fields in ``Result``'s order: the table's, but for ``solve_us`` (after
    ``first_solution``) and ``boxsize`` (last), where ``Result`` had them before the table
    (``solve --json`` prints them so)."""
    moved = {"solve_us", "boxsize"}
    by_name = {field.name: field for field in fields}
    order = [field.name for field in fields if field.public and field.name not in moved]
    order.insert(order.index("first_solution") + 1, "solve_us")
    return tuple(by_name[name] for name in [*order, "boxsize"])


ROW_FIELDS = _result_order(FIELDS)
# How row ``i`` of a ``BatchResult`` reads as each field of ``Result`` (with the row's box size).
ROW = {field.name: field.value for field in ROW_FIELDS}
ALWAYS = tuple(field.name for field in ROW_FIELDS if field.always)  # an invalid row's fields

Result = make_dataclass("Result", [(field.name, Any, None) for field in ROW_FIELDS], frozen=True)
Result.__module__ = __name__
Result.__doc__ = """What solving one puzzle found (SPEC sections 3, 5, 6 and 7): the public fields
of ``FIELDS``, each None where null; an invalid puzzle has only its status, error and box
size."""


class Difficulty(NamedTuple("Difficulty", [(field.name, np.ndarray) for field in FIELDS
                                           if field.group == MEASURE])):
    """SPEC section 5's measures for each row of a batch, as arrays, with their nulls: the
    ``MEASURE`` fields of ``FIELDS``."""

    __slots__ = ()

    @classmethod
    def null(cls, n: int) -> Difficulty:
        return cls(*(field.allocate(n) for field in FIELDS if field.group == MEASURE))


class _BatchMethods:
    """The methods of ``BatchResult`` (its fields are ``FIELDS``)."""

    def __len__(self) -> int:
        return len(self.status)

    def statuses(self) -> list[str]:
        return [STATUSES[s] for s in self.status]

    def grades(self) -> list[str | None]:
        return [None if g == MISSING else GRADES[g] for g in self.grade]

    def row(self, i: int) -> Any:
        """Row ``i`` as a ``Result`` (nulls where SPEC says so), field by field from ``ROW``."""
        boxsize = int(self.boxsize[i]) or None
        valid = bool(self.valid[i])
        return Result(**{name: read(self, i, boxsize) if valid or name in ALWAYS else None
                         for name, read in ROW.items()})

    @classmethod
    def of(cls, found: SearchColumns, measured: Difficulty, **computed: Any) -> Any:
        """A batch's result: the ``SEARCH`` fields as the search ``found`` them, the
        ``MEASURE`` fields ``measured``, and the ``BATCH`` fields ``computed``."""
        searched = {field.name: getattr(found, field.name) for field in FIELDS
                    if field.group == SEARCH}
        return cls(**searched, **measured._asdict(), **computed)

    @classmethod
    def merged(cls, parts: list[tuple[np.ndarray, Any]], n: int) -> Any:
        """One result of ``n`` rows from ``parts``: each the rows (indexes) it holds and their
        result (of one box size)."""
        width = max(part.first_solution.shape[1] for _, part in parts)
        columns = {field.name: field.allocate(n, width) for field in FIELDS
                   if field.dtype is not None}
        error: list[str | None] = [None] * n
        for rows, part in parts:
            for name, column in columns.items():
                value = getattr(part, name)
                if column.ndim == 2:
                    column[rows, :value.shape[1]] = value
                else:
                    column[rows] = value
            for row, message in zip(rows.tolist(), part.error, strict=True):
                error[row] = message
        return cls(error=error, **columns)


BatchResult = make_dataclass(
    "BatchResult", [(field.name, np.ndarray if field.dtype else list) for field in FIELDS],
    bases=(_BatchMethods,))
BatchResult.__module__ = __name__
BatchResult.__doc__ = """The result of a batch: every field of ``FIELDS``, as numpy arrays of
length n (``error`` a list).

Where ``valid`` is False (invalid rows) ``givens`` and every metric are meaningless and are to
be written as null; ``first_solution`` rows are meaningful only where ``has_solution``. A field
is null where it holds its ``Field.null`` (``grade`` and ``backdoor_size`` -1, ``rating`` and
the ``se`` numbers NaN, ``boxsize`` 0: an invalid row under boxsize "auto"). The grid-shaped
fields (``first_solution``, ``canonical``: ASCII, "." for a blank) are C bytes wide, C the
cells of the batch's largest box size; a row of a smaller box size fills its first cells."""
