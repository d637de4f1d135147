"""Files that appear complete or not at all: write a temporary file in the same directory,
flush it to disk, rename it over the target, and flush the rename (so it survives a power cut)."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from pipeline.errors import PipelineError


def write_atomically(path: Path, write: Callable[[BinaryIO], None], *, hint: str = "") -> None:
    """Call ``write`` on a temporary file and rename it to ``path``; an OSError becomes a
    one-line ``PipelineError`` (with ``hint`` appended), and no temporary file is left behind.

    The temporary name carries host and pid (``.NAME.HOST-PID.tmp``): Dask workers on different
    machines may write the same part at once, and a killed run's leftovers are recognisable.
    """
    temporary = path.with_name(f".{path.name}.{socket.gethostname()}-{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
        sync_directory(path.parent)
    except OSError as err:
        temporary.unlink(missing_ok=True)
        raise PipelineError(f"cannot write {path}: {err.strerror or err}{hint}") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def sync_directory(directory: Path) -> None:
    """Flush a directory's entries to disk, so that a file renamed into it survives a power
    cut (where the filesystem allows it; otherwise the rename is durable on its own schedule)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:  # e.g. EINVAL: this filesystem cannot sync a directory
        pass
    finally:
        os.close(descriptor)
