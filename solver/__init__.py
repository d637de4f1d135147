"""Richard Bird's Sudoku solver, literally (``solver.bird``) and fast (``solver.fast``).

>>> import solver
>>> solver.solve("." * 81).n_solutions
2
"""

from solver.api import (
    CELL_VARIANTS,
    DEFAULT_MAX_NODES,
    ENGINES,
    PRUNE_VARIANTS,
    RULE_SETS,
    STATUSES,
    BatchResult,
    Result,
    contradiction,
    parse_error,
    solve,
    solve_ascii,
    solve_grids,
    solve_strings,
)

__version__ = "0.1.0"

__all__ = [
    "CELL_VARIANTS", "DEFAULT_MAX_NODES", "ENGINES", "PRUNE_VARIANTS", "RULE_SETS", "STATUSES",
    "BatchResult", "Result", "contradiction", "parse_error", "solve", "solve_ascii",
    "solve_grids", "solve_strings", "__version__",
]
