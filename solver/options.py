"""``SolveOptions``: every choice a caller makes about how puzzles are searched and measured,
with its default, written once, and validated once, when the options are made.

The pipeline builds one from its settings, a unit of work carries it unchanged to a worker,
and ``solver.solve_ascii`` hands it to the kernels; a notebook user may pass its fields as
keywords instead (``solver.solve(p, max_solutions=3)``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple

from solver.vocabulary import (
    BOXSIZES,
    CELL_VARIANTS,
    DEFAULT_GRADE_LIMIT,
    DEFAULT_MAX_NODES,
    DEFAULT_RATING_SAMPLES,
    DEFAULT_SE_BUDGET,
    GRADE_LIMITS,
    MAX_NODES_LIMIT,
    MAX_RATING_SAMPLES,
    MAX_SE_BUDGET,
    MAX_SOLUTIONS_LIMIT,
    MEASURES,
    PRUNE_VARIANTS,
    RULE_SETS,
)


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


def check_boxsize(boxsize: object) -> int | str:
    """A box size (2, 3, 4 or 5; given as a number or its digit) or "auto", else ValueError."""
    if boxsize == "auto":
        return "auto"
    if isinstance(boxsize, str) and boxsize.isdigit():
        boxsize = int(boxsize)
    if isinstance(boxsize, bool) or boxsize not in BOXSIZES:
        raise ValueError(f"boxsize must be one of {', '.join(map(str, BOXSIZES))} or auto; "
                         f"got {boxsize!r}")
    return boxsize


def check_alphabet(alphabet: object, boxsize: int | str) -> str:
    """"" (the default symbols), or the N symbols of the values 1..N in order: distinct
    (ignoring case), printable ASCII (one byte each), none of them "." (the output's blank)."""
    if not isinstance(alphabet, str):
        raise ValueError(f"alphabet must be text, e.g. 0123456789ABCDEF; got {alphabet!r}")
    if not alphabet:
        return alphabet
    sizes = [b * b for b in BOXSIZES]
    if len(alphabet) not in sizes:
        raise ValueError(f"alphabet must hold {', '.join(map(str, sizes))} symbols (N for N x N "
                         f"puzzles); got {len(alphabet)} ({alphabet!r})")
    if boxsize != "auto" and len(alphabet) != boxsize * boxsize:
        raise ValueError(f"alphabet holds {len(alphabet)} symbols, but boxsize {boxsize} puzzles "
                         f"have {boxsize * boxsize}")
    for symbol in alphabet:
        if not symbol.isascii():
            raise ValueError(f"alphabet symbols must be ASCII characters, one byte each (puzzles "
                             f"are read as bytes, a symbol a cell); {symbol!r} is not: got "
                             f"{alphabet!r}")
        if symbol == "." or symbol.isspace() or not symbol.isprintable():
            raise ValueError(f"alphabet symbols must be printable, other than '.' (the output's "
                             f"blank) and spaces; {symbol!r} is not: got {alphabet!r}")
    twice = [c for c in alphabet if alphabet.upper().count(c.upper()) > 1]
    if twice:
        raise ValueError(f"alphabet symbols must differ, ignoring case; {twice[0]!r} is there "
                         f"twice: got {alphabet!r}")
    return alphabet


class Limits(NamedTuple):
    """How a search runs (SPEC section 2), as the compiled searches take it: its caps and its
    variant, one record (``SolveOptions.limits``)."""

    max_solutions: int
    max_nodes: int
    prune_once: bool  # one ``prune`` per node (seeds 000, 001, 003)
    first_cell: bool  # expand the first open cell (Hutton's ``solve4``)
    hidden_singles: bool  # rule set ``singles``


@dataclass(frozen=True)
class SolveOptions:
    """How to search (SPEC section 2: variant, rule set, caps), what to measure (sections 5
    and 6; ``grade_limit``, the last rung of the ladder the grade tries; ``se_budget``, the
    chain steps an SE rating may take), and how puzzles are
    written (section 7: box size, alphabet), validated on construction.

    >>> SolveOptions(rules="singles").hidden_singles
    True
    >>> SolveOptions(measures=["backdoor", "rating"]).measures
    ('rating', 'backdoor')
    """

    max_solutions: int = 2
    max_nodes: int = DEFAULT_MAX_NODES
    prune: str = "fixpoint"
    cell: str = "smallest"
    rules: str = "bird"
    measures: tuple[str, ...] = ()
    rating_samples: int = DEFAULT_RATING_SAMPLES
    boxsize: int | str = 3
    alphabet: str = ""
    grade_limit: str = DEFAULT_GRADE_LIMIT
    se_budget: int = DEFAULT_SE_BUDGET

    def __post_init__(self) -> None:
        check_count("max_solutions", self.max_solutions, MAX_SOLUTIONS_LIMIT)
        check_count("max_nodes", self.max_nodes, MAX_NODES_LIMIT)
        check_choice("prune", self.prune, PRUNE_VARIANTS)
        check_choice("cell", self.cell, CELL_VARIANTS)
        check_choice("rules", self.rules, RULE_SETS)
        object.__setattr__(self, "measures", check_measures(self.measures))
        check_count("rating_samples", self.rating_samples, MAX_RATING_SAMPLES)
        object.__setattr__(self, "boxsize", check_boxsize(self.boxsize))
        check_alphabet(self.alphabet, self.boxsize)
        check_choice("grade_limit", self.grade_limit, GRADE_LIMITS)
        check_count("se_budget", self.se_budget, MAX_SE_BUDGET)

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

    @property
    def limits(self) -> Limits:
        """The caps and variant of the search, as the compiled searches take them."""
        return Limits(self.max_solutions, self.max_nodes, self.prune_once, self.first_cell,
                      self.hidden_singles)

    def measured(self, measure: str) -> bool:
        """Whether ``measure`` (one of MEASURES) is asked for."""
        return measure in self.measures

    @property
    def boxsizes(self) -> tuple[int, ...]:
        """The box sizes a puzzle may have under these options."""
        return BOXSIZES if self.boxsize == "auto" else (self.boxsize,)

    def alphabet_of(self, boxsize: int) -> str:
        """The alphabet of puzzles of ``boxsize`` ("" for the default symbols)."""
        return self.alphabet if len(self.alphabet) == boxsize * boxsize else ""


FIELDS = tuple(field.name for field in fields(SolveOptions))
DEFAULTS = SolveOptions()


def options_with(options: SolveOptions | None, changes: dict[str, Any]) -> SolveOptions:
    """``options`` (default: the defaults) with the fields in ``changes`` replaced; a name that
    is not a field is a TypeError, a bad value a ValueError."""
    if not changes:
        return options or DEFAULTS
    unknown = sorted(set(changes) - set(FIELDS))
    if unknown:
        raise TypeError(f"unknown solve option {unknown[0]!r}; the options are {', '.join(FIELDS)}")
    return replace(options or DEFAULTS, **changes)
