"""``compiled``: numba's ``njit`` with an on-disk cache that can never hold stale code.

numba caches a compiled function beside its source, keyed to the modification time of the file
that defines it, and does not notice edits to the functions it inlines from other files: a
kernel changed in ``solver/kernels.py`` would leave ``solver/fast.py``'s cached code running the
old one. So every compiled function of the solver is cached in a directory named after
``source_digest()``, the SHA-256 of every source file of the package: any edit of any of them
means a new directory, and everything compiles again (once). The directories of older digests
are removed when a new one is made, so they do not pile up.

The base of those directories is ``NUMBA_CACHE_DIR`` when the user set it (shared caches are
not cleaned), else ``solver/__pycache__/numba`` when the package directory is writable, else
the user's cache directory (``~/.cache/sudoku-pipeline/numba``).
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


@functools.cache
def source_digest() -> str:
    """The SHA-256 of the source of every module of the solver package (names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def cache_directory() -> str:
    """The directory numba's cache of this source lives in (made, and older ones removed)."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        base, own = Path(chosen), False
    elif os.access(PACKAGE, os.W_OK):
        base, own = PACKAGE / "__pycache__" / "numba", True
    else:
        base, own = Path.home() / ".cache" / "sudoku-pipeline" / "numba", True
    directory = base / source_digest()[:16]
    if own and not directory.is_dir():
        _remove_older(base, keep=directory.name)
    directory.mkdir(parents=True, exist_ok=True)
    return str(directory)


def compiled_before() -> bool:
    """Whether this source has been compiled on this machine already (its cache holds code):
    if not, the first solve compiles it, which takes a minute or so."""
    return any(Path(cache_directory()).rglob("*.nbi"))


def _remove_older(base: Path, keep: str) -> None:
    """Remove the caches of other digests (another process may be removing them too)."""
    if base.is_dir():
        for entry in base.iterdir():
            if entry.name != keep and entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)


def compiled(function=None, **options):
    """``numba.njit(cache=True, nogil=True, **options)``, cached in ``cache_directory()``.

    Every kernel releases the GIL: a worker's heartbeat is a thread, and a kernel that held the
    GIL for longer than the stall limit (a 16 x 16 batch may search for minutes) would have its
    worker taken for a dead one and killed, its rows lost.

    Used as ``@compiled`` or ``@compiled(inline="always")``. numba reads its cache directory
    when the function is decorated, so it is set for that moment only, and the process's
    numba configuration is left as it was for any other code.
    """
    if function is None:
        return functools.partial(compiled, **options)
    import numba

    before = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = cache_directory()
    try:
        return numba.njit(cache=True, **{"nogil": True, **options})(function)
    finally:
        numba.config.CACHE_DIR = before
