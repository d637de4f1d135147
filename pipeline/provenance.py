"""Where a run's rows come from, and what must match to continue a run.

- ``versions``: this package and the libraries that shape its output;
- ``code_digest``: a SHA-256 over the source of the modules that decide what a row holds (the
  solver package, ``solver.source_digest``, and the pipeline modules named in ``ROW_MODULES``),
  so that a run is continued, and a Dask worker trusted, only with the same code even when it
  changed without a new version;
- ``RunRecord``: the record of a run, kept once in its manifest, with its ``identity`` (what
  every part of the run carries), its ``fingerprint`` (what must be equal to continue it) and
  ``difference`` (the first thing that is not).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import pkgutil
import platform
from dataclasses import asdict, dataclass
from typing import Any

from pipeline.settings import (
    GENERATION_DECLARED,
    ROW_SETTINGS,
    SETTING_NAMES,
    Generation,
    Settings,
)
from pipeline.version import __version__

# The pipeline's modules that decide what a row holds (with every module of ``solver``; a
# package, with every module of it).
ROW_MODULES = ("pipeline.read", "pipeline.arrow", "pipeline.columns", "pipeline.part",
               "pipeline.work", "pipeline.generate_work", "pipeline.generate")


def versions() -> dict[str, str]:
    """Versions of this package and of the libraries that shape its output."""
    from importlib.metadata import version

    import numpy as np
    import pyarrow as pa

    return {
        "sudoku_pipeline": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
        "numba": version("numba"),
    }


@functools.cache
def code_digest() -> str:
    """The SHA-256 of the solver's source (``solver.source_digest``) and of ``ROW_MODULES``
    (computed once per process)."""
    import solver

    digest = hashlib.sha256(solver.source_digest().encode())
    for name in _with_submodules(ROW_MODULES):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise RuntimeError(f"module {name} is not installed")
        source = spec.loader.get_source(name) or ""
        digest.update(name.encode() + b"\0" + source.encode())
    return digest.hexdigest()


def _with_submodules(names: tuple[str, ...]) -> list[str]:
    """``names``, each package followed by its modules, sorted."""
    found = []
    for name in names:
        found.append(name)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            found += [f"{name}.{info.name}"
                      for info in pkgutil.iter_modules(spec.submodule_search_locations)]
    return sorted(found)


@functools.cache
def installed() -> dict[str, str]:
    """What decides a row, as installed in this process: the code digest and the versions."""
    return {"code": code_digest(), **versions()}


@dataclass(frozen=True)
class InputEntry:
    """One input of a run as its record holds it: where, what format, its size and content."""

    path: str
    format: str
    bytes: int | None
    sha256: str


@dataclass(frozen=True)
class RunRecord:
    """The record of a run, kept once, in its manifest: the versions and code that started it,
    its settings and its inputs. ``identity`` names the run in every part's footer (a part
    carries that, not the record)."""

    version: str
    versions: dict[str, str]
    code: str
    settings: Settings
    inputs: tuple[InputEntry, ...]
    generation: Generation | None = None  # what a generated run draws and keeps (SPEC 8)

    @classmethod
    def new(cls, settings: Settings, inputs: list[InputEntry],
            generation: Generation | None = None) -> RunRecord:
        """The record of a run starting here and now."""
        return cls(__version__, versions(), code_digest(), settings, tuple(inputs), generation)

    def to_dict(self) -> dict[str, Any]:
        generated = {} if self.generation is None else {"generation": self.generation.to_dict()}
        return {"version": self.version, "versions": self.versions, "code": self.code,
                "settings": self.settings.to_dict(),
                "inputs": [asdict(entry) for entry in self.inputs], **generated}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        """The record ``to_dict`` wrote; KeyError, TypeError or ValueError when it is not one.
        Settings this version does not know are left out (the fingerprint tells such a run
        apart by its version and code anyway)."""
        known = {key: tuple(value) if isinstance(value, list) else value
                 for key, value in data["settings"].items() if key in SETTING_NAMES}
        generation = data.get("generation")
        return cls(str(data["version"]), dict(data["versions"]), str(data["code"]),
                   Settings(**known), tuple(InputEntry(**entry) for entry in data["inputs"]),
                   None if generation is None else Generation.from_dict(generation))

    @property
    def command(self) -> str:
        """The command that writes such a run, to name in advice: 'generate' or
        'solve-dataset'."""
        return "solve-dataset" if self.generation is None else "generate"

    @functools.cached_property
    def identity(self) -> str:
        """A digest of the whole record: the parts of this run, and only they, carry it."""
        text = json.dumps(self.to_dict(), sort_keys=True).encode()
        return hashlib.sha256(text).hexdigest()[:32]

    def part_record(self, file_index: int) -> dict[str, Any]:
        """What a part of this run carries in its footer (``pipeline.part``): the run's identity,
        version and settings, and the input its rows come from (the worker that writes it adds
        ``written_by``, its versions). A few hundred bytes, however many inputs the run has."""
        generated = {} if self.generation is None else {"generation": self.generation.to_dict()}
        return {"run": self.identity, "version": self.version,
                "settings": self.settings.to_dict(), "input": asdict(self.inputs[file_index]),
                **generated}

    @property
    def paths(self) -> list[str]:
        """The inputs' paths, in run order."""
        return [entry.path for entry in self.inputs]

    def fingerprint(self) -> dict[str, Any]:
        """What a run must share with the run in a directory to continue it: the package version
        and code, the settings the rows depend on (``ROW_SETTINGS``), and the inputs (path as
        given, and content). Workers, engine, compression, time limit and the like may differ."""
        return {
            "version": self.version,
            "code": self.code,
            "settings": {key: getattr(self.settings, key) for key in ROW_SETTINGS},
            "generation": _rows_of(self.generation),
            "inputs": [(entry.path, entry.sha256) for entry in self.inputs],
        }

    def difference(self, now: RunRecord) -> str:
        """The first difference between this run's fingerprint and ``now``'s, in words ('' when
        they are equal)."""
        before, after = self.fingerprint(), now.fingerprint()
        if before["version"] != after["version"]:
            return f"sudoku-pipeline {before['version']} (this is {after['version']})"
        if before["code"] != after["code"]:
            return "another version of the solver or readers (their code has changed since)"
        for key in ROW_SETTINGS:
            if before["settings"][key] != after["settings"][key]:
                return (f"{key} = {before['settings'][key]!r} (this run has "
                        f"{after['settings'][key]!r})")
        if before["generation"] != after["generation"]:
            return _generation_difference(before["generation"], after["generation"])
        if self.paths != now.paths:
            return f"other inputs ({', '.join(self.paths)})"
        for old, new in zip(self.inputs, now.inputs, strict=True):
            if old.sha256 != new.sha256:
                return f"input {old.path} as it was before it changed"
        return ""


def _rows_of(generation: Generation | None) -> dict[str, Any] | None:
    """The settings of a generation that the rows depend on (max_draws only stops a run)."""
    if generation is None:
        return None
    return {key: getattr(generation, key) for key, declared in GENERATION_DECLARED.items()
            if declared.scope == "rows"}


def _generation_difference(before: dict[str, Any] | None, after: dict[str, Any] | None) -> str:
    if before is None or after is None:
        return "generated puzzles" if after is None else "puzzles read from inputs"
    key = next(key for key in before if before[key] != after[key])
    return f"{key} = {before[key]!r} (this run has {after[key]!r})"
