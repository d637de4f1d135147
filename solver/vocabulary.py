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
MEASURES = ("rating", "backdoor", "canonical", "se")
DEFAULT_RATING_SAMPLES = 32
# A rating costs one search of every copy, so its time grows linearly with the samples. The depths
# of one puzzle's copies spread by about 2 levels (sd 1.96 on top1465, 1.68 on forum_hardest), so
# the default's standard error is about 0.3 of a level; at 1,024 it is 0.06, for 32 times the
# default's time. More would buy nothing a user could see.
MAX_RATING_SAMPLES = 1024

# SPEC 5.4: the Sudoku Explainer rating's work budget, in chain steps (a candidate a chain search
# takes off its queue, each once a search: the propagations, cycles and forcing chains, nested
# ones included; counted alike by both implementations, so the same rows are over it whichever
# computes). Paths without chains take none, top1465's 0.01 to 3 million, forum-hardest ones of
# ER 10.3 to 11.5 20 to 612 million (docs/measures.md, "The SE work budget"). The compiled
# rating takes 8 to 21 million a second up to ER 9.x and 33 to 122 million on the nested
# levels, whose paths alone come near the default: so it rates every puzzle we hold and stops a
# row within about 10 s (30 s at the slowest nested rate). Past it a row's se is null and the
# summary counts it.
DEFAULT_SE_BUDGET = 1_000_000_000
MAX_SE_BUDGET = 10_000_000_000

# SPEC 5.4: the columns of ``se_techniques``, one per family of Sudoku Explainer's techniques, in
# serate's order of its rules, and the family of each hint name SE gives (``se_technique``). The
# variable part of a name (a loop's size and type, a BUG's type, a nesting level from 2 on) is
# not in the table: ``se_technique`` folds it away first.
SE_TECHNIQUE_OF = {
    "Hidden Single": "hidden_single",
    "Direct Pointing": "direct_pointing",
    "Direct Claiming": "direct_claiming",
    "Direct Hidden Pair": "direct_hidden_pair",
    "Naked Single": "naked_single",
    "Direct Hidden Triplet": "direct_hidden_triplet",
    "Pointing": "pointing",
    "Claiming": "claiming",
    "Generalized Intersection": "generalized_intersection",
    "Naked Pair": "naked_pair",
    "X-Wing": "x_wing",
    "Hidden Pair": "hidden_pair",
    "Naked Triplet": "naked_triplet",
    "Swordfish": "swordfish",
    "Hidden Triplet": "hidden_triplet",
    "XY-Wing": "xy_wing",
    "XYZ-Wing": "xyz_wing",
    "Unique Rectangle": "unique_rectangle",  # types 1-4
    "Unique Loop": "unique_loop",  # of 6, 8, 10 ... cells, types 1-4
    "Naked Quad": "naked_quad",
    "Jellyfish": "jellyfish",
    "Hidden Quad": "hidden_quad",
    "BUG": "bug",  # types 1-4
    "Aligned Pair Exclusion": "aligned_pair_exclusion",
    "Bidirectional X-Cycle": "x_cycle",
    "Generalized X-Wing": "x_cycle",  # an X-cycle of four cells
    "Bidirectional Y-Cycle": "y_cycle",
    "Bidirectional Cycle": "xy_cycle",
    "Forcing X-Chain": "forcing_x_chain",
    "Turbot Fish": "forcing_x_chain",  # a forcing X-chain of six candidates
    "Forcing Chain": "forcing_chain",
    "Aligned Triplet Exclusion": "aligned_triplet_exclusion",
    "Nishio Forcing Chains": "nishio_forcing_chains",
    "Cell Forcing Chains": "cell_forcing_chains",
    "Region Forcing Chains": "region_forcing_chains",
    "Dynamic Contradiction Forcing Chains": "dynamic_contradiction_forcing_chains",
    "Dynamic Double Forcing Chains": "dynamic_double_forcing_chains",
    "Dynamic Cell Forcing Chains": "dynamic_cell_forcing_chains",
    "Dynamic Region Forcing Chains": "dynamic_region_forcing_chains",
    "Dynamic Contradiction Forcing Chains (+)": "dynamic_forcing_chains_plus",
    "Dynamic Double Forcing Chains (+)": "dynamic_forcing_chains_plus",
    "Dynamic Cell Forcing Chains (+)": "dynamic_forcing_chains_plus",
    "Dynamic Region Forcing Chains (+)": "dynamic_forcing_chains_plus",
    "Nested Forcing Chains": "nested_forcing_chains",  # levels 2-5: "(+ Forcing Chains)" ...
}
SE_TECHNIQUES = tuple(dict.fromkeys(SE_TECHNIQUE_OF.values()))


def se_technique(name: str) -> str:
    """The ``se_techniques`` field of a hint SE names ``name``, e.g. ``Unique Loop 8 type 3
    (w/Naked Pair)`` -> ``unique_loop``; KeyError for a name SE does not give.

    >>> se_technique("Dynamic Region Forcing Chains (+ Multiple Forcing Chains)")
    'nested_forcing_chains'
    """
    for family in ("Unique Rectangle", "Unique Loop", "BUG"):
        if name.startswith(family + " "):
            return SE_TECHNIQUE_OF[family]
    if " (+ " in name:  # a nesting level from 2 on; level 1 is " (+)"
        return SE_TECHNIQUE_OF["Nested Forcing Chains"]
    return SE_TECHNIQUE_OF[name]
