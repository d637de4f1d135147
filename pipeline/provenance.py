"""Where a run's rows come from, and what must match to continue a run.

- ``versions``: this package and the libraries that shape its output;
- ``code_digest``: a SHA-256 over the source of the modules that decide what a row holds (the
  solver package, and the pipeline modules named in ``ROW_MODULES``), so that a run is continued,
  and a Dask worker trusted, only with the same code even when it changed without a new version;
- ``run_record``: the record every part, the manifest and the summary carry;
- ``fingerprint``: the part of a run record that must be equal to continue that run.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import pkgutil
import platform
from typing import Any

from pipeline.settings import ROW_SETTINGS, Settings
from pipeline.version import __version__

# The pipeline's modules that decide what a row holds (with every module of ``solver``).
ROW_MODULES = ("pipeline.read", "pipeline.part", "pipeline.work")


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


def row_modules() -> list[str]:
    """The names of the modules whose source ``code_digest`` covers, sorted."""
    import solver

    names = [f"solver.{info.name}" for info in pkgutil.iter_modules(solver.__path__)]
    return sorted(["solver", *names, *ROW_MODULES])


@functools.cache
def code_digest() -> str:
    """The SHA-256 of the source of ``row_modules()`` (computed once per process)."""
    digest = hashlib.sha256()
    for name in row_modules():
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise RuntimeError(f"module {name} is not installed")
        source = spec.loader.get_source(name) or ""
        digest.update(name.encode() + b"\0" + source.encode())
    return digest.hexdigest()


@functools.cache
def installed() -> dict[str, str]:
    """What decides a row, as installed in this process: the code digest and the versions."""
    return {"code": code_digest(), **versions()}


def run_record(settings: Settings, inputs: list[dict[str, Any]]) -> dict[str, Any]:
    """The record of a run: versions, code, settings and inputs (path, format, bytes, sha256)."""
    return {
        "version": __version__,
        "versions": versions(),
        "code": code_digest(),
        "settings": settings.to_dict(),
        "inputs": inputs,
    }


def fingerprint(run: dict[str, Any]) -> dict[str, Any]:
    """What a run must share with the run in a directory to continue it: the package version
    and code, the settings the rows depend on (``ROW_SETTINGS``), and the inputs (path as
    given, and content). Workers, engine, compression, time limit and the like may differ."""
    return {
        "version": run["version"],
        "code": run.get("code"),
        "settings": {key: run["settings"].get(key) for key in ROW_SETTINGS},
        "inputs": [{"path": i["path"], "sha256": i["sha256"]} for i in run["inputs"]],
    }


def difference(before: dict[str, Any], now: dict[str, Any]) -> str:
    """The first difference between two runs' fingerprints, in words ('' when equal)."""
    before, now = fingerprint(before), fingerprint(now)
    if before["version"] != now["version"]:
        return f"sudoku-pipeline {before['version']} (this is {now['version']})"
    if before["code"] != now["code"]:
        return "another version of the solver or readers (their code has changed since)"
    for key in ROW_SETTINGS:
        if before["settings"][key] != now["settings"][key]:
            return f"{key} = {before['settings'][key]!r} (this run has {now['settings'][key]!r})"
    paths = [entry["path"] for entry in before["inputs"]]
    if paths != [entry["path"] for entry in now["inputs"]]:
        return f"other inputs ({', '.join(paths)})"
    for old, new in zip(before["inputs"], now["inputs"], strict=True):
        if old["sha256"] != new["sha256"]:
            return f"input {old['path']} as it was before it changed"
    return ""
