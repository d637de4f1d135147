"""Records that cross the solver's boundaries: named columns instead of positional tuples."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.vocabulary import SE_TECHNIQUES


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


class Difficulty(NamedTuple):
    """SPEC section 5's measures for each row of a batch, as arrays, with their nulls."""

    grade: np.ndarray  # int8, index into GRADES; MISSING = null
    rating: np.ndarray  # float64; NaN = null
    backdoor_size: np.ndarray  # int8; MISSING = null
    se: np.ndarray  # float64 (SPEC 5.4: ER); NaN = null
    se_ep: np.ndarray  # float64; NaN = null
    se_ed: np.ndarray  # float64; NaN = null
    se_techniques: np.ndarray  # (n, len(SE_TECHNIQUES)) int16: hints of each family on the path

    @classmethod
    def null(cls, n: int) -> Difficulty:
        return cls(grade=np.full(n, MISSING, np.int8), rating=np.full(n, np.nan),
                   backdoor_size=np.full(n, MISSING, np.int8), se=np.full(n, np.nan),
                   se_ep=np.full(n, np.nan), se_ed=np.full(n, np.nan),
                   se_techniques=np.zeros((n, len(SE_TECHNIQUES)), np.int16))
