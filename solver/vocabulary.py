"""The solver's vocabulary, in one place: statuses, cells, search variants and their limits.

Everything that names a choice a caller can make (the API, the pipeline's settings, the CLI)
takes its allowed values and their validation from here, so that one spelling exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# SPEC section 3: the first status that applies, in this order.
STATUSES = ("invalid", "contradictory", "budget_exceeded", "unsolvable", "solved", "unique",
            "multiple")
DIGITS = "123456789"
BLANKS = ".0 -_"  # SPEC section 1: the blank conventions
UNIT_NAMES = ("row", "column", "box")

PRUNE_VARIANTS = ("fixpoint", "once")
CELL_VARIANTS = ("smallest", "first")
RULE_SETS = ("bird", "singles")
SOLVER_ENGINES = ("fast", "reference")  # which implementation computes the same numbers

# Twice the largest search of any puzzle in the shared sets under the default variant (2,403,627
# nodes, a 17-clue puzzle; see BENCHMARKS.md, "Node budget"): no real puzzle hits it, and a
# pathological one costs at most about a second of one core.
DEFAULT_MAX_NODES = 5_000_000
# The largest budget accepted: about four minutes of one core for one puzzle under ``bird``. A
# larger one would let a single hostile puzzle hold a worker for hours.
MAX_NODES_LIMIT = 1_000_000_000
MAX_SOLUTIONS_LIMIT = 2**31 - 1  # solution counts are int32

# SPEC section 5: the rungs of the difficulty ladder, easiest first (``grade`` is an index here),
# and the measures a caller may ask for on top of the always-computed grade.
GRADES = ("prune", "singles", "intersections", "subsets", "search")
MEASURES = ("rating", "backdoor", "canonical")
DEFAULT_RATING_SAMPLES = 32
# A rating costs one search of every copy, so its time grows linearly with the samples. The depths
# of one puzzle's copies spread by about 2 levels (sd 1.96 on top1465, 1.68 on forum_hardest), so
# the default's standard error is about 0.3 of a level; at 1,024 it is 0.06, for 32 times the
# default's time. More would buy nothing a user could see.
MAX_RATING_SAMPLES = 1024


def check_choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``, else ValueError naming ``name`` and the choices."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value  # type: ignore[return-value]


def check_count(name: str, value: object, largest: int) -> int:
    """``value`` if it is a whole number from 1 to ``largest``, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= largest:
        raise ValueError(f"{name} must be a whole number from 1 to {largest:,}; got {value!r}")
    return value


def check_measures(measures: object) -> tuple[str, ...]:
    """The measures asked for, in ``MEASURES`` order, each once; ValueError for anything else.

    >>> check_measures(["backdoor", "rating"])
    ('rating', 'backdoor')
    """
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        raise ValueError(f"measures must be a sequence of names from {', '.join(MEASURES)}, "
                         f"e.g. ('rating',); got {measures!r}")
    asked = list(measures)
    for name in asked:
        if name not in MEASURES:
            raise ValueError(f"measures may hold only {', '.join(MEASURES)}; got {name!r}")
    return tuple(name for name in MEASURES if name in asked)


def check_rating_samples(samples: object) -> int:
    """``rating_samples`` if it is a whole number from 1 to MAX_RATING_SAMPLES, else ValueError."""
    return check_count("rating_samples", samples, MAX_RATING_SAMPLES)


@dataclass(frozen=True)
class SearchOptions:
    """One variant of SPEC section 2's search and its caps, validated on construction.

    >>> SearchOptions(rules="singles").hidden_singles
    True
    """

    max_solutions: int = 2
    max_nodes: int = DEFAULT_MAX_NODES
    prune: str = "fixpoint"
    cell: str = "smallest"
    rules: str = "bird"

    def __post_init__(self) -> None:
        check_count("max_solutions", self.max_solutions, MAX_SOLUTIONS_LIMIT)
        check_count("max_nodes", self.max_nodes, MAX_NODES_LIMIT)
        check_choice("prune", self.prune, PRUNE_VARIANTS)
        check_choice("cell", self.cell, CELL_VARIANTS)
        check_choice("rules", self.rules, RULE_SETS)

    @property
    def prune_once(self) -> bool:
        """One ``prune`` per node (seeds 000, 001, 003); only ``bird`` has the variant."""
        return self.prune == "once" and self.rules == "bird"

    @property
    def first_cell(self) -> bool:
        """Expand the first open cell (Hutton's ``solve4``); only ``bird`` has the variant."""
        return self.cell == "first" and self.rules == "bird"

    @property
    def hidden_singles(self) -> bool:
        return self.rules == "singles"
