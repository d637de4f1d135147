"""Solve and classify whole datasets of Sudoku puzzles (see ../README.md).

The library never imports the CLI framework; ``pipeline.cli`` is a thin layer over
``pipeline.run.solve_dataset`` and ``pipeline.summary.summarize``. For notebooks:
``solve_frame`` (a polars DataFrame or Arrow table in, the same with the result columns out),
``read_run`` (a run's rows as a polars LazyFrame), ``read_summary``, and ``generate_frame``
(new puzzles, SPEC 8, as a polars DataFrame; ``generate_dataset`` writes them as a run).
"""

from pipeline.errors import PipelineError, RunIncomplete
from pipeline.version import __version__

__all__ = ["PipelineError", "RunIncomplete", "__version__", "generate_dataset", "generate_frame",
           "read_run", "read_summary", "solve_dataset", "solve_frame"]
_LAZY = {"read_run": "pipeline.notebook", "read_summary": "pipeline.notebook",
         "solve_frame": "pipeline.notebook", "solve_dataset": "pipeline.run",
         "generate_frame": "pipeline.notebook", "generate_dataset": "pipeline.generate"}


def __getattr__(name: str):
    """The API functions, imported on first use (``import pipeline`` stays light)."""
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pipeline' has no attribute {name!r}")
