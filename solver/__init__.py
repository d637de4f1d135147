"""Richard Bird's Sudoku solver, literally (``solver.reference.bird``) and fast
(``solver.compiled.search_9x9``).

Importing the package compiles nothing and does not load numba: the fast implementation is loaded
the first time it runs.

>>> import solver
>>> solver.solve("." * 81).n_solutions
2
"""

from solver.api import (
    BatchResult,
    Result,
    difficulty,
    explain,
    se_path,
    solve,
    solve_ascii,
    solve_grids,
    solve_strings,
)
from solver.grid import contradiction, parse_error
from solver.jit import source_digest
from solver.options import SolveOptions
from solver.records import Difficulty, SearchColumns
from solver.vocabulary import (
    CELL_VARIANTS,
    DEFAULT_GRADE_LIMIT,
    DEFAULT_MAX_NODES,
    DEFAULT_RATING_SAMPLES,
    GRADE_LIMITS,
    GRADES,
    IMPLEMENTATIONS,
    MAX_NODES_LIMIT,
    MAX_RATING_SAMPLES,
    MEASURES,
    PRUNE_VARIANTS,
    RULE_SETS,
    SE_TECHNIQUES,
    STATUSES,
)

__version__ = "0.1.0"

__all__ = [
    "CELL_VARIANTS", "DEFAULT_GRADE_LIMIT", "DEFAULT_MAX_NODES", "DEFAULT_RATING_SAMPLES",
    "GRADE_LIMITS", "GRADES", "IMPLEMENTATIONS",
    "MAX_NODES_LIMIT", "MAX_RATING_SAMPLES", "MEASURES", "PRUNE_VARIANTS", "RULE_SETS",
    "SE_TECHNIQUES", "STATUSES", "BatchResult", "Difficulty", "Result", "SearchColumns",
    "SolveOptions", "contradiction", "difficulty", "explain", "parse_error", "se_path", "solve",
    "solve_ascii", "solve_grids", "solve_strings", "source_digest", "__version__",
]
