"""The solver's vocabulary, in one place: statuses, cells, search variants and their limits.

Everything that names a choice a caller can make (the API, the pipeline's settings, the CLI)
takes its allowed values from here, so that one spelling exists; ``solver.options`` validates
them.
"""

from __future__ import annotations

# SPEC section 3: the first status that applies, in this order.
STATUSES = ("invalid", "contradictory", "budget_exceeded", "unsolvable", "solved", "unique",
            "multiple")
# SPEC section 7: the symbols of the values 1..N, for N up to 25 (a box size of 5), and the
# box sizes (Hutton's ``boxsize``: 2 for 4 x 4, 3 for Sudoku, 4 for 16 x 16, 5 for 25 x 25).
SYMBOLS = "123456789ABCDEFGHIJKLMNOP"
DIGITS = SYMBOLS[:9]
BOXSIZES = (2, 3, 4, 5)
BLANKS = ".0 -_"  # SPEC section 1: the blank conventions
# SPEC section 8: the symmetries a generated puzzle's pattern of givens may have.
SYMMETRIES = ("none", "rotate180", "rotate90", "mirror", "diagonal")
UNIT_NAMES = ("row", "column", "box")

PRUNE_VARIANTS = ("fixpoint", "once")
CELL_VARIANTS = ("smallest", "first")
RULE_SETS = ("bird", "singles")
IMPLEMENTATIONS = ("fast", "reference")  # which implementation computes the same numbers

# Twice the largest search of any puzzle in the shared sets under the default variant (2,403,627
# nodes, a 17-clue puzzle; see BENCHMARKS.md, "Node budget"): no real puzzle hits it, and a
# pathological one costs at most about a second of one core.
DEFAULT_MAX_NODES = 5_000_000
# The largest budget accepted: about four minutes of one core for one 9 x 9 puzzle under
# ``bird`` (a 25 x 25 node costs 3 to 8 times more: up to about an hour). A larger one would
# let a single hostile puzzle hold a worker for hours.
MAX_NODES_LIMIT = 1_000_000_000
MAX_SOLUTIONS_LIMIT = 2**31 - 1  # solution counts are int32

# SPEC section 5: the rungs of the difficulty ladder, easiest first (``grade`` is an index here),
# and the measures a caller may ask for on top of the always-computed grade.
GRADES = ("prune", "singles", "intersections", "subsets", "fish", "wings", "trial", "trial2",
          "search")
# SPEC 5.1: the last rung ``grade`` tries (any rung but "search"); rows no rung up to it solves
# grade "search". T2 costs most: "subsets" keeps the cost of the four-rung ladder.
GRADE_LIMITS = GRADES[:-1]
DEFAULT_GRADE_LIMIT = "trial2"
MEASURES = ("rating", "backdoor", "canonical")
DEFAULT_RATING_SAMPLES = 32
# A rating costs one search of every copy, so its time grows linearly with the samples. The depths
# of one puzzle's copies spread by about 2 levels (sd 1.96 on top1465, 1.68 on forum_hardest), so
# the default's standard error is about 0.3 of a level; at 1,024 it is 0.06, for 32 times the
# default's time. More would buy nothing a user could see.
MAX_RATING_SAMPLES = 1024
