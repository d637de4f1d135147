"""Solve and classify whole datasets of Sudoku puzzles (see ../README.md).

The library never imports the CLI framework; ``pipeline.cli`` is a thin layer over
``pipeline.run.solve_dataset`` and ``pipeline.summary.summarize``.
"""

from pipeline.errors import PipelineError, RunIncomplete

__all__ = ["PipelineError", "RunIncomplete", "__version__"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sudoku-pipeline")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


__version__ = _version()
