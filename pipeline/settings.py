"""One frozen ``Settings`` object, built once from a TOML file plus CLI overrides.

Precedence: built-in defaults < the TOML file (``--config``) < command-line options.
The built-in defaults are the ones written in ``configs/default.toml`` (a test keeps
them equal). Every value is validated here, once; a bad one raises ``PipelineError``
with a one-line message naming the setting and what it accepts.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from pipeline.errors import PipelineError

PRUNES = ("fixpoint", "once")
CELLS = ("smallest", "first")
RULES = ("bird", "singles")
ENGINES = ("local", "dask")
COMPRESSIONS = ("zstd", "snappy", "lz4", "gzip", "none")

# Smallest and largest accepted value of the integer settings, and what 0 means.
INTEGER_RANGES = {
    "workers": (0, 1024, " (0 means all cores)"),
    "batch_size": (1, 10_000_000, ""),  # a part's 81-byte strings must fit 32-bit offsets
    "max_solutions": (1, 2**31 - 1, ""),
    "max_nodes": (0, 2**62, " (0 means the solver's default)"),
}

# Settings that change what is written (rows or part layout); a resumed run must match them.
OUTPUT_KEYS = (
    "batch_size",
    "max_solutions",
    "max_nodes",
    "prune",
    "cell",
    "rules",
    "column",
    "solution_column",
)


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, validated (see the settings table in README.md)."""

    workers: int = 0  # 0 means all available cores; resolved by ``load_settings``
    batch_size: int = 50_000
    max_solutions: int = 2
    max_nodes: int = 0  # 0 means solver.DEFAULT_MAX_NODES; resolved by ``load_settings``
    prune: str = "fixpoint"
    cell: str = "smallest"
    rules: str = "bird"
    column: str = ""  # puzzle column; "" means find it by name
    solution_column: str = ""  # published-solution column; "" means find it by name
    compression: str = "zstd"
    engine: str = "local"
    scheduler: str = ""  # engine dask: a scheduler address; "" starts a LocalCluster of `workers`
    time_limit: float = 0  # seconds; then no new batches start and the run stops, resumable; 0: none
    overwrite: bool = False
    quiet: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain data (JSON-able), e.g. for Parquet metadata."""
        return asdict(self)

    def solver_options(self) -> dict[str, Any]:
        """The keyword arguments of ``solver.solve_ascii`` these settings imply."""
        return {
            "max_solutions": self.max_solutions,
            "max_nodes": self.max_nodes,
            "prune": self.prune,
            "cell": self.cell,
            "rules": self.rules,
        }


SETTING_NAMES = tuple(f.name for f in fields(Settings))


def available_cores() -> int:
    """CPU cores this process may run on (respects taskset/cgroup affinity)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def read_config(path: Path) -> dict[str, Any]:
    """The settings in a TOML file, as a dict (unknown keys are an error)."""
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
    unknown = sorted(set(values) - set(SETTING_NAMES))
    if unknown:
        raise PipelineError(
            f"unknown setting {unknown[0]!r} in {path}; known settings: {', '.join(SETTING_NAMES)}"
        )
    return values


def load_settings(config: Path | None = None, **overrides: Any) -> Settings:
    """Settings from the defaults, then ``config`` (a TOML file), then ``overrides``.

    Overrides that are ``None`` are ignored, so CLI options that were not given can be
    passed straight through. ``workers = 0`` and ``max_nodes = 0`` are resolved to the
    number of cores and ``solver.DEFAULT_MAX_NODES``.

    >>> load_settings(workers=2, rules="singles").rules
    'singles'
    """
    values: dict[str, Any] = {}
    if config is not None:
        values.update(read_config(Path(config)))
    unknown = sorted(set(overrides) - set(SETTING_NAMES))
    if unknown:
        raise TypeError(f"unknown setting {unknown[0]!r}")
    values.update({key: value for key, value in overrides.items() if value is not None})
    settings = replace(Settings(), **{key: _checked(key, value) for key, value in values.items()})
    if settings.scheduler and settings.engine != "dask":
        raise PipelineError(
            f"setting scheduler ({settings.scheduler}) is for engine dask; add --engine dask"
        )
    if settings.workers == 0:
        settings = replace(settings, workers=available_cores())
    if settings.max_nodes == 0:
        import solver

        settings = replace(settings, max_nodes=int(solver.DEFAULT_MAX_NODES))
    return settings


def _checked(key: str, value: Any) -> Any:
    """``value`` if it is acceptable for setting ``key``, else a PipelineError."""
    if key in ("overwrite", "quiet"):
        if not isinstance(value, bool):
            raise PipelineError(f"setting {key} must be true or false, got {value!r}")
        return value
    if key in ("workers", "max_nodes", "batch_size", "max_solutions"):
        smallest, largest, note = INTEGER_RANGES[key]
        if isinstance(value, bool) or not isinstance(value, int) or not smallest <= value <= largest:
            raise PipelineError(
                f"setting {key} must be a whole number from {smallest:,} to {largest:,}"
                f"{note}, got {value!r}"
            )
        return value
    if key == "time_limit":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e9:
            raise PipelineError(
                f"setting time_limit must be a number of seconds, 0 or more (0 means no limit), "
                f"got {value!r}"
            )
        return value
    if key == "scheduler":
        if not isinstance(value, str) or value != value.strip():
            raise PipelineError(
                "setting scheduler must be a Dask scheduler address such as tcp://HOST:8786, "
                f"got {value!r}"
            )
        return value
    if key in ("column", "solution_column"):
        if not isinstance(value, str):
            raise PipelineError(f"setting {key} must be a column name (text), got {value!r}")
        return value
    choices = {
        "prune": PRUNES,
        "cell": CELLS,
        "rules": RULES,
        "engine": ENGINES,
        "compression": COMPRESSIONS,
    }[key]
    if value not in choices:
        raise PipelineError(f"setting {key} must be one of {', '.join(choices)}, got {value!r}")
    if key == "engine" and value == "dask":
        from pipeline.dask_engine import missing_dask

        if missing := missing_dask():
            raise PipelineError(missing)
    return value
