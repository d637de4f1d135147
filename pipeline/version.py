"""The installed version of this package (a module of its own, so that importing it imports
nothing else of the package)."""

from importlib.metadata import PackageNotFoundError, version


def _version() -> str:
    try:
        return version("sudoku-pipeline")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0+unknown"


__version__ = _version()
