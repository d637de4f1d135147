"""One frozen ``Settings`` object, built once from a TOML file plus CLI overrides.

Each setting is declared once, as a field of ``Settings`` with its ``Declared`` metadata:
its help text, what values it takes and whether the rows depend on it. The CLI options,
the validation and the resume check are generated from these declarations; a test keeps
``configs/default.toml`` and the README's table naming the same settings.

Precedence: built-in defaults < the TOML files (``--config``, in the order given) <
command-line options. Every
value is validated once, when the settings are loaded; a bad one raises ``PipelineError`` with
a one-line message naming the setting and what it accepts. The settings that say how puzzles are
solved are the fields of ``solver.SolveOptions``: their defaults and their validation are the
solver's, and ``Settings.solve_options`` is the one ``SolveOptions`` a run carries to its
workers.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from pipeline.errors import PipelineError
from solver import options as solve
from solver.options import DEFAULTS, SolveOptions
from solver.vocabulary import (
    CELL_VARIANTS,
    GRADE_LIMITS,
    GRADES,
    MAX_NODES_LIMIT,
    MAX_RATING_SAMPLES,
    MAX_SE_BUDGET,
    MAX_SOLUTIONS_LIMIT,
    MEASURES,
    PRUNE_VARIANTS,
    RULE_SETS,
    SYMMETRIES,
)

ENGINES = ("local", "dask")  # where the units of work run (pipeline.engines)
CAST_TYPES = ("int", "float", "bool", "string")  # what --cast turns an input column into
COMPRESSIONS = ("zstd", "snappy", "lz4", "gzip", "none")
MAX_BATCH_SIZE = 10_000_000  # a part's 81-byte strings must fit 32-bit offsets
MAX_COUNT = 1_000_000_000  # puzzles a generated run keeps, at most (and draws it makes)


@dataclass(frozen=True)
class Declared:
    """How a setting is given and checked.

    ``kind``: "count" (a whole number from ``low`` to ``high``), "seconds" (a number, 0 or
    more), "choice" (one of ``choices``), "names" (some of ``choices``: a list, or text with
    commas, or "all"), "delimiter" (one character), "casts" (COLUMN:TYPE pairs), "text" or
    "flag" (true or false). ``zero``
    says what 0 means for a count whose ``low`` is 0. ``scope`` says what a run stopped and continued may
    change: "rows" (the rows depend on it: a run is continued only with the same value), "run"
    (how the output is written: a continued run keeps the value it started with, and says so)
    or "session" (how this command runs: free). ``short`` is a one-letter option.
    """

    help: str
    kind: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    zero: str = ""
    scope: str = "session"
    short: str = ""
    text: str = "text"  # what a "text" setting holds, for messages
    inputs: bool = False  # about reading input files: not a setting of ``generate``


def setting(default: Any, help: str, kind: str, **declared: Any) -> Any:
    return field(default=default, metadata={"declared": Declared(help, kind, **declared)})


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, validated (see the settings table in README.md)."""

    workers: int = setting(0, "Worker processes.", "count", high=1024, zero="all cores")
    batch_size: int = setting(0, "Rows per batch, i.e. per Parquet part.", "count",
                              high=MAX_BATCH_SIZE,
                              zero="chosen for the data: about 2 s of work a batch, at least 4 "
                              "batches a worker, at most 50,000 rows")
    max_solutions: int = setting(DEFAULTS.max_solutions,
                                 "Stop counting solutions at this many (1: find any one).", "count",
                                 low=1, high=MAX_SOLUTIONS_LIMIT, scope="rows")
    max_nodes: int = setting(0, "Search nodes per puzzle before budget_exceeded.", "count",
                             high=MAX_NODES_LIMIT, scope="rows",
                             zero=f"the solver's default, {DEFAULTS.max_nodes:,}")
    prune: str = setting(DEFAULTS.prune, "Propagation at each node (SPEC section 2).", "choice",
                         choices=PRUNE_VARIANTS, scope="rows")
    cell: str = setting(DEFAULTS.cell, "The cell each node expands.", "choice",
                        choices=CELL_VARIANTS, scope="rows")
    rules: str = setting(DEFAULTS.rules, "bird: naked singles; singles: adds hidden singles.", "choice",
                         choices=RULE_SETS, scope="rows")
    column: str = setting("", "Puzzle column; empty: found by name (puzzle, quizzes, ...).",
                          "text", scope="rows", text="a column name", inputs=True)
    solution_column: str = setting("", "Published-solution column; empty: solution(s).", "text",
                                   scope="rows", text="a column name", inputs=True)
    delimiter: str = setting("", "What separates the fields of a CSV file; empty: a comma (a tab "
                             "in a .tsv file).", "delimiter", scope="rows",
                             inputs=True)
    cast: tuple[str, ...] = setting((), "Input columns to read as another type, COLUMN:TYPE "
                                    f"(TYPE one of {', '.join(CAST_TYPES)}), comma-separated, "
                                    "e.g. difficulty:float.", "casts", scope="rows",
                                    inputs=True)
    compression: str = setting("zstd", "Parquet compression.", "choice", choices=COMPRESSIONS,
                               scope="run")
    engine: str = setting("local", "Where to run: local (a process pool) or dask (a Dask "
                          "cluster).", "choice", choices=ENGINES)
    scheduler: str = setting("", "Engine dask: the scheduler address, e.g. tcp://HOST:8786; "
                             "empty: a LocalCluster of --workers processes.", "text",
                             text="a Dask scheduler address such as tcp://HOST:8786")
    time_limit: float = setting(0, "Seconds; then the run stops, resumable, with exit code 3; "
                                "0: no limit.", "seconds")
    overwrite: bool = setting(False, "Replace a previous run in the output directory (without "
                              "it, the same run is continued and another is refused).", "flag")
    quiet: bool = setting(False, "No progress bar, no summary table.", "flag", short="q")
    measures: tuple[str, ...] = setting(DEFAULTS.measures, "Measures beyond the always computed grade "
                                        "(SPEC sections 5-6), comma-separated, or all.", "names",
                                        choices=MEASURES, scope="rows")
    rating_samples: int = setting(DEFAULTS.rating_samples, "Symmetric copies a rating averages "
                                  "over (SPEC 5.2).", "count", low=1, high=MAX_RATING_SAMPLES,
                                  scope="rows")
    grade_limit: str = setting(DEFAULTS.grade_limit, "The last rung of the ladder the grade "
                               "tries (SPEC 5.1); rows no rung up to it solves grade search. "
                               "subsets keeps the hardest sets cheap.", "choice",
                               choices=GRADE_LIMITS, scope="rows")
    se_budget: int = setting(DEFAULTS.se_budget, "The chain steps (candidates taken off a "
                             "chain search's queues, each once a search) an SE rating (SPEC "
                             "5.4) may take; past it the row's se is null and the summary "
                             "counts it.", "count", low=1, high=MAX_SE_BUDGET, scope="rows")
    boxsize: int | str = setting(DEFAULTS.boxsize, "The box size b of the puzzles, N = b * b: 3 "
                                 "for Sudoku (81 cells), 2 for 4 x 4, 4 for 16 x 16, 5 for 25 x "
                                 "25, or auto: each row's from its length (SPEC 7).", "choice",
                                 choices=("2", "3", "4", "5", "auto"), scope="rows")
    alphabet: str = setting(DEFAULTS.alphabet, "The symbols of the digits 1..N in order (e.g. "
                            "0123456789ABCDEF for hexadoku written with 0); empty: 1-9 then "
                            "A-P.", "text", scope="rows", text="N symbols")

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain data (JSON-able, lists for tuples, so that a record read back
        from JSON compares equal), e.g. for Parquet metadata."""
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in asdict(self).items()}

    def as_options(self, names: tuple[str, ...]) -> dict[str, Any]:
        """The values of ``names`` as a command line gives them (names as "a,b")."""
        return {name: ",".join(value) if isinstance(value := getattr(self, name), tuple)
                else value for name in names}

    @functools.cached_property
    def solve_options(self) -> SolveOptions:
        """How these settings solve puzzles: the ``SolveOptions`` every unit of the run carries
        (made once; ``load_settings`` has checked it can be)."""
        return _solve_options(self)


DECLARED: dict[str, Declared] = {f.name: f.metadata["declared"] for f in fields(Settings)}
SETTING_NAMES = tuple(DECLARED)
# The settings that are fields of ``solver.SolveOptions``: the solver validates them.
SOLVE_SETTINGS = tuple(name for name in SETTING_NAMES if name in solve.FIELDS)
ROW_SETTINGS = tuple(name for name, declared in DECLARED.items() if declared.scope == "rows")
RUN_SETTINGS = tuple(name for name, declared in DECLARED.items() if declared.scope == "run")


@dataclass(frozen=True)
class Generation:
    """What ``generate`` draws and keeps (SPEC section 8), beside the ``Settings`` of how the
    candidates are solved and the run is written. ``grade`` empty means any rung."""

    count: int = setting(1000, "Puzzles to keep.", "count", low=1, high=MAX_COUNT, scope="rows")
    seed: int = setting(0, "The seed: the same seed gives the same puzzles.", "count",
                        high=2**63 - 1, scope="rows")
    grade: tuple[str, ...] = setting((), "Rungs of SPEC 5.1's ladder a kept puzzle may have, "
                                     "comma-separated; empty or all: any.", "names",
                                     choices=GRADES, scope="rows")
    se: str = setting("", "The band of Sudoku Explainer ratings (SPEC 5.4, ER) a kept puzzle's "
                      "se is in, LOW-HIGH inclusive, e.g. 7.0-9.0 (9 x 9; adds --measures se); "
                      "empty: any.", "band", scope="rows", text="a band such as 7.0-9.0")
    symmetry: str = setting("none", "The symmetry of the pattern of givens.", "choice",
                            choices=SYMMETRIES, scope="rows")
    minimal: bool = setting(True, "No given (no orbit of givens, with a symmetry) can be "
                            "blanked with the solution staying unique.", "flag", scope="rows")
    distinct: bool = setting(False, "Keep no puzzle equal up to symmetry to one kept before "
                             "it (9 x 9: canonical forms).", "flag", scope="rows")
    max_draws: int = setting(0, "Candidates to draw at most; then the run stops with what it "
                             "kept, exit code 3, resumable with a larger value.", "count",
                             high=MAX_COUNT * 1000, zero="no limit")

    def to_dict(self) -> dict[str, Any]:
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in asdict(self).items()}

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> Generation:
        """The ``to_dict`` of a generation, back (names it does not know are left out)."""
        return cls(**{key: tuple(value) if isinstance(value, list) else value
                      for key, value in values.items() if key in GENERATION_NAMES})

    def accepts(self) -> tuple[str, ...]:
        """The rungs a kept puzzle may have."""
        return self.grade or GRADES

    def se_band(self) -> tuple[float, float] | None:
        """The lowest and highest se a kept puzzle may have (None: any)."""
        return _band("se", self.se) if self.se else None


GENERATION_DECLARED: dict[str, Declared] = {f.name: f.metadata["declared"]
                                            for f in fields(Generation)}
GENERATION_NAMES = tuple(GENERATION_DECLARED)
# The settings of ``generate``: what it draws, then how it solves and writes (no input files).
GENERATE_SETTINGS = GENERATION_NAMES + tuple(
    name for name, declared in DECLARED.items() if not declared.inputs)


def available_cores() -> int:
    """CPU cores this process may run on (respects taskset/cgroup affinity)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def read_config(path: Path, known: tuple[str, ...] = SETTING_NAMES) -> dict[str, Any]:
    """The settings in a TOML file, as a dict (keys not ``known`` are an error)."""
    try:
        with open(path, "rb") as file:
            values = tomllib.load(file)
    except FileNotFoundError:
        raise PipelineError(
            f"config file not found: {path} (check the path, or leave out --config "
            "to use the defaults of configs/default.toml)"
        ) from None
    except tomllib.TOMLDecodeError as err:
        raise PipelineError(f"config file {path} is not valid TOML: {err}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise PipelineError(f"cannot read config file {path}: {err}") from None
    unknown = sorted(set(values) - set(known))
    if unknown:
        elsewhere = " (a setting of generate)" if unknown[0] in GENERATION_NAMES else ""
        raise PipelineError(
            f"unknown setting {unknown[0]!r}{elsewhere} in {path}; known settings: "
            f"{', '.join(known)}"
        )
    return values


def load_settings(config: Path | str | Sequence[Path | str] | None = None,
                  **overrides: Any) -> Settings:
    """Settings from the defaults, then ``config`` (a TOML file, or several, each overriding
    the ones before it), then ``overrides``.

    Overrides that are ``None`` are ignored, so CLI options that were not given can be
    passed straight through. ``workers = 0`` and ``max_nodes = 0`` are resolved to the
    number of cores and ``solver.DEFAULT_MAX_NODES``.

    >>> load_settings(workers=2, rules="singles").rules
    'singles'
    """
    values = _given(config, overrides, SETTING_NAMES)
    settings = replace(Settings(), **{key: checked(key, value) for key, value in values.items()})
    if settings.scheduler and settings.engine != "dask":
        raise PipelineError(
            f"setting scheduler ({settings.scheduler}) is for engine dask; add --engine dask"
        )
    if settings.workers == 0:
        settings = replace(settings, workers=available_cores())
    if settings.max_nodes == 0:
        settings = replace(settings, max_nodes=DEFAULTS.max_nodes)
    # The solver's settings are checked here, once (and a box size given as text, "4" from the
    # command line, is the number 4, as it is in a TOML file).
    return replace(settings, boxsize=settings.solve_options.boxsize)


def _given(config: Path | str | Sequence[Path | str] | None, overrides: dict[str, Any],
           known: tuple[str, ...]) -> dict[str, Any]:
    """The values of the TOML files ``config`` (each overriding the ones before), then of the
    ``overrides`` that are not None."""
    values: dict[str, Any] = {}
    configs = [config] if isinstance(config, str | os.PathLike) else list(config or [])
    for path in configs:
        values.update(read_config(Path(path), known))
    unknown = sorted(set(overrides) - set(known))
    if unknown:
        raise TypeError(f"unknown setting {unknown[0]!r}")
    values.update({key: value for key, value in overrides.items() if value is not None})
    return values


def load_generation(config: Path | str | Sequence[Path | str] | None = None,
                    **overrides: Any) -> tuple[Settings, Generation]:
    """The settings of ``generate`` (``GENERATE_SETTINGS``), as ``load_settings`` makes them:
    how candidates are solved and written, and what is drawn and kept; the settings that
    only make sense together are checked here (one line each).

    >>> load_generation(count=10, grade="search")[1].grade
    ('search',)
    """
    values = _given(config, overrides, GENERATE_SETTINGS)
    asked = {key: values.pop(key) for key in GENERATION_NAMES if key in values}
    if isinstance(asked.get("grade"), str) and asked["grade"].strip() in ("any", ""):
        asked["grade"] = ()
    generation = replace(Generation(), **{key: checked(key, value)
                                          for key, value in asked.items()})
    settings = load_settings(**values)
    _check_generation(settings, generation)
    needed = ("canonical",) * generation.distinct + ("se",) * bool(generation.se)
    for measure in needed:
        if measure not in settings.measures:
            settings = replace(settings, measures=(*settings.measures, measure))
            settings = replace(settings, measures=settings.solve_options.measures)  # in order
    return settings, generation


def _check_generation(settings: Settings, generation: Generation) -> None:
    """What no one setting can say alone: a box size to draw, a canonical form for distinct,
    room for count in max_draws, a uniqueness check."""
    if settings.boxsize == "auto":
        raise PipelineError("generate draws puzzles of one box size: give --boxsize 2, 3, 4 or "
                            "5 (not auto)")
    if generation.se and settings.boxsize != 3:
        raise PipelineError(
            f"setting se keeps puzzles by their Sudoku Explainer rating, which SPEC 5.4 defines "
            f"for 9 x 9 puzzles only (box size 3), not for box size {settings.boxsize}; leave "
            "out --se")
    if generation.distinct and settings.boxsize != 3:
        raise PipelineError(
            f"setting distinct compares canonical forms, which SPEC 6 defines for 9 x 9 puzzles "
            f"only (box size 3), not for box size {settings.boxsize}; leave out --distinct")
    if generation.max_draws and generation.max_draws < generation.count:
        raise PipelineError(
            f"setting max_draws ({generation.max_draws:,}) is below count "
            f"({generation.count:,}): at most one puzzle is kept per draw; raise it, or 0 for "
            "no limit")
    if settings.boxsize in (4, 5) and settings.rules == "bird":
        n = settings.boxsize**2
        raise PipelineError(
            f"minimal {n} x {n} puzzles take Bird's search (naked singles only) millions of "
            "nodes each, past the node budget: generate them with --rules singles")
    if settings.max_solutions < 2:
        raise PipelineError("generate keeps puzzles with exactly one solution, which takes "
                            "counting to 2: setting max_solutions must be 2 or more")


def _solve_options(settings: Settings) -> SolveOptions:
    """The ``SolveOptions`` of ``settings``; a value the solver refuses is a one-line
    ``PipelineError`` naming the setting."""
    try:
        return SolveOptions(**{name: getattr(settings, name) for name in SOLVE_SETTINGS})
    except ValueError as err:
        name = str(err).split(" ", 1)[0]
        zero = DECLARED[name].zero if name in DECLARED else ""
        raise PipelineError(f"setting {err}" + (f" (0 means {zero})" if zero else "")) from None


def _names(name: str, value: Any, choices: tuple[str, ...]) -> tuple[str, ...]:
    """Some of ``choices``, in their order: from a list, or text ("rating,backdoor", "all")."""
    if isinstance(value, str):
        value = choices if value.strip() == "all" else [v.strip() for v in value.split(",")]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise PipelineError(f"setting {name} must be names from {', '.join(choices)} (or all), "
                            f"got {value!r}")
    wanted = [v for v in value if v]
    for one in wanted:
        if one not in choices:
            raise PipelineError(
                f"setting {name} may name {', '.join(choices)} (or all), got {one!r}")
    return tuple(choice for choice in choices if choice in wanted)


# A field delimiter may be given by name, or as the escape a shell passes literally.
DELIMITER_NAMES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|",
                   "space": " "}


def _delimiter(name: str, value: Any) -> str:
    """One character that can separate fields (not a quote, not a line break), or "" (by the
    file's name)."""
    value = DELIMITER_NAMES.get(value, value) if isinstance(value, str) else value
    if (not isinstance(value, str) or len(value) > 1 or value in ('"', "\n", "\r")
            or not value.isascii()):
        raise PipelineError(
            f"setting {name} must be one ASCII character (e.g. ';', or tab as '\\t' or tab), "
            f"or empty for a comma (a tab in .tsv files), got {value!r}")
    return value


def _casts(name: str, value: Any) -> tuple[str, ...]:
    """COLUMN:TYPE pairs (a list, or text with commas), each TYPE one of ``CAST_TYPES``."""
    if isinstance(value, str):
        value = [item.strip() for item in value.split(",") if item.strip()]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise PipelineError(f"setting {name} must be COLUMN:TYPE pairs, got {value!r}")
    for pair in value:
        column, _, kind = pair.rpartition(":")
        if not column or kind not in CAST_TYPES:
            raise PipelineError(
                f"setting {name} takes COLUMN:TYPE with TYPE one of {', '.join(CAST_TYPES)} "
                f"(e.g. difficulty:float), got {pair!r}")
    return tuple(value)


def _band(name: str, value: Any) -> tuple[float, float]:
    """LOW-HIGH (e.g. "7.0-9.0") as two numbers, LOW at most HIGH, both from 0 to 20 (serate's
    scale, 20.0 its "no rule applies"), else a one-line PipelineError."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*-\s*(\d+(?:\.\d*)?)\s*", value) \
        if isinstance(value, str) else None
    low, high = (float(found[1]), float(found[2])) if found else (1.0, 0.0)
    if not found or low > high or high > 20:
        raise PipelineError(f"setting {name} must be a band of SE ratings LOW-HIGH, both from 0 "
                            f"to 20 and LOW at most HIGH, e.g. 7.0-9.0 (or empty: any); got "
                            f"{value!r}")
    return low, high


def casts_of(settings: Settings) -> dict[str, str]:
    """The ``cast`` setting as {column: type name}."""
    return dict(pair.rpartition(":")[::2] for pair in settings.cast)


def checked(name: str, value: Any) -> Any:
    """``value`` if it is acceptable for setting ``name``, else a one-line PipelineError. (The
    values of ``SOLVE_SETTINGS`` are only put in their form here, names given as text made a
    tuple: ``solver.SolveOptions`` validates them.)"""
    declared = DECLARED[name] if name in DECLARED else GENERATION_DECLARED[name]
    kind = declared.kind
    if name in SOLVE_SETTINGS:
        return _names(name, value, declared.choices) if kind == "names" else value
    if kind == "flag":
        if not isinstance(value, bool):
            raise PipelineError(f"setting {name} must be true or false, got {value!r}")
    elif kind == "count":
        low, high = declared.low, declared.high
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            zero = f" (0 means {declared.zero})" if declared.zero else ""
            raise PipelineError(
                f"setting {name} must be a whole number from {low:,} to {high:,}{zero}, "
                f"got {value!r}"
            )
    elif kind == "seconds":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e9:
            raise PipelineError(
                f"setting {name} must be a number of seconds, 0 or more (0 means no limit), "
                f"got {value!r}"
            )
    elif kind == "choice":
        if value not in declared.choices:
            raise PipelineError(
                f"setting {name} must be one of {', '.join(declared.choices)}, got {value!r}"
            )
    elif kind == "names":
        return _names(name, value, declared.choices)
    elif kind == "delimiter":
        return _delimiter(name, value)
    elif kind == "casts":
        return _casts(name, value)
    elif kind == "band":
        if value == "":
            return value
        low, high = _band(name, value)
        return f"{low:.1f}-{high:.1f}"
    elif not isinstance(value, str) or value != value.strip():
        raise PipelineError(
            f"setting {name} must be {declared.text} (text without surrounding spaces), "
            f"got {value!r}"
        )
    return value
