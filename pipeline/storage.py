"""Where the pipeline's files live: local paths, or fsspec URLs (``s3://bucket/prefix``, ...).

Every input and output location is a string. A local path, or a ``file://`` URL, is handled
by the operating system, and a file written is complete or absent even after a power cut: it
is written to a temporary file in the same directory, flushed, renamed over its target, and
the rename flushed. An output directory is locked with ``lockf``, which the kernel releases
when the process dies.

Any other URL goes through fsspec and the package of its protocol (``s3fs`` for ``s3://``,
``gcsfs`` for ``gs://``, ...), imported only then. An object store has no rename, but it
shows an object only once its upload is complete: a file is written from memory in one
upload, so it too is complete or absent. The lock is an object of its own (see
``ObjectStore.lock``). Failures of either kind become one-line ``PipelineError``s.

The two kinds are two backends of one interface, ``Storage``: ``LocalFiles`` and
``ObjectStore``. ``backend(where)`` chooses between them, the one place that does; the
functions of this module, which the rest of the pipeline calls, hand each location to its
backend.
"""

from __future__ import annotations

import abc
import contextlib
import errno
import glob
import hashlib
import io
import json
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from pipeline.errors import PipelineError, one_line
from pipeline.text import escaped

FSSPEC_HINT = 'pip install ".[s3]" for s3:// (fsspec and s3fs); gcsfs for gs://, adlfs for az://'
# Filesystems that live inside one process: workers could never share them.
PRIVATE_PROTOCOLS = ("memory",)
# The keys of an fsspec file's info that change when the file is written again (S3, GCS,
# Azure, HTTP, memory...).
VERSION_KEYS = ("ETag", "etag", "LastModified", "last_modified", "mtime", "updated", "created")


class Entry(NamedTuple):
    """An entry of a directory; ``problem`` says why it cannot even be looked at (a symbolic
    link loop, a dangling symbolic link), "" when it can."""

    name: str
    is_file: bool
    problem: str = ""


class Stamp(NamedTuple):
    """What tells one version of a file from another without reading it: its size, and
    locally its modification time and identity (device, inode: a file replaced by a rename
    is another file); for a URL, whichever of ETag and modification time the store gives."""

    size: int
    version: tuple


def location(value: str | os.PathLike) -> str:
    """A location as the rest of this module takes it: a URL, or a local path (``file://``
    URLs become paths, so that local files are always handled by the operating system)."""
    text = os.fspath(value)
    if text.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return unquote(urlparse(text).path) or "/"
    return text


def is_url(where: str) -> bool:
    """Whether ``where`` is a URL for fsspec (``s3://...``, ``simplecache::s3://...``)."""
    return "://" in where and not where.startswith("file://")


class Lock(NamedTuple):
    """A held lock on a directory: ``release()`` gives it up (idempotent)."""

    release: Callable[[], None]


class Storage(abc.ABC):
    """What the pipeline does with files, wherever they are."""

    @abc.abstractmethod
    def join(self, directory: str, name: str) -> str:
        """The location of ``name`` inside ``directory``."""

    @abc.abstractmethod
    def basename(self, where: str) -> str:
        """The last name of ``where``."""

    @abc.abstractmethod
    def canonical(self, where: str) -> str:
        """One spelling per file, to tell whether two locations are the same file, or one is
        inside the other."""

    @abc.abstractmethod
    def kind(self, where: str) -> str | None:
        """``"file"``, ``"directory"``, ``"other"`` (a device, a socket...) or None (not
        there)."""

    @abc.abstractmethod
    def listing(self, directory: str) -> list[Entry]:
        """The entries directly inside ``directory``, sorted by name."""

    @abc.abstractmethod
    def stamp(self, where: str) -> Stamp:
        """The ``Stamp`` of the file ``where`` now (``PipelineError`` when it cannot be seen)."""

    @abc.abstractmethod
    def open_read(self, where: str) -> BinaryIO:
        """``where`` opened for reading bytes (a context manager, like ``open``);
        ``FileNotFoundError`` when it is not there, ``PipelineError`` for other failures."""

    @abc.abstractmethod
    def arrow_source(self, where: str) -> contextlib.AbstractContextManager[str | BinaryIO]:
        """What a pyarrow reader takes: a local path (read by Arrow itself), or a file."""

    @abc.abstractmethod
    def make_directory(self, directory: str) -> None:
        """Create ``directory`` and its parents where needed."""

    @abc.abstractmethod
    def delete(self, where: str) -> None:
        """Delete the file ``where`` if it is there."""

    @abc.abstractmethod
    def write_atomically(self, where: str, write: Callable[[BinaryIO], None], hint: str,
                         leftovers: bool = True) -> None:
        """Call ``write`` on a file that becomes ``where`` only once complete; a failure
        becomes a one-line ``PipelineError`` (with ``hint`` appended). ``leftovers``: first
        remove the temporary files of ``where`` that killed processes left, which takes a look
        at every file of its directory (a run's parts skip it: each part's look made a run of
        20,000 parts quadratic, and the run removes its directory's leftovers at its start and
        its end)."""

    @abc.abstractmethod
    def remove_temporary_files(self, directory: str) -> None:
        """Delete the temporary files a killed run left behind in ``directory``."""

    @abc.abstractmethod
    def lock(self, directory: str, name: str) -> Lock:
        """An exclusive lock on ``directory`` (its file ``name``)."""

    def is_private(self, where: str) -> bool:
        """Whether ``where`` is on a filesystem that only this process sees."""
        return False


# --- local files ------------------------------------------------------------------------


class LocalFiles(Storage):
    """Files of the operating system: written to a temporary file, flushed, renamed, the
    rename flushed; locked with ``lockf``."""

    def join(self, directory: str, name: str) -> str:
        return os.path.join(directory, name)

    def basename(self, where: str) -> str:
        return os.path.basename(where)

    def canonical(self, where: str) -> str:
        return str(Path(where).resolve())

    def kind(self, where: str) -> str | None:
        if os.path.isdir(where):
            return "directory"
        if os.path.isfile(where):
            return "file"
        return "other" if os.path.lexists(where) else None

    def listing(self, directory: str) -> list[Entry]:
        try:
            with os.scandir(directory) as entries:
                return sorted(_local_entry(entry) for entry in entries)
        except OSError as err:
            raise PipelineError(f"cannot list {escaped(directory)}: {err.strerror or err}") from None

    def stamp(self, where: str) -> Stamp:
        try:
            status = os.stat(where)
        except OSError as err:
            raise PipelineError(f"cannot read {escaped(where)}: {err.strerror or err}") from None
        return Stamp(status.st_size, (status.st_mtime_ns, status.st_dev, status.st_ino))

    def open_read(self, where: str) -> BinaryIO:
        try:
            return open(where, "rb")
        except FileNotFoundError:
            raise
        except OSError as err:
            raise PipelineError(f"cannot read {escaped(where)}: {err.strerror or err}") from None

    @contextlib.contextmanager
    def arrow_source(self, where: str) -> Iterator[str]:
        yield where

    def make_directory(self, directory: str) -> None:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as err:
            raise PipelineError(
                f"cannot create output directory {escaped(directory)}: {err.strerror or err}"
            ) from None

    def delete(self, where: str) -> None:
        try:
            os.unlink(where)
        except FileNotFoundError:
            pass
        except OSError as err:
            raise PipelineError(f"cannot delete {escaped(where)}: {err.strerror or err}") from None

    def write_atomically(self, where: str, write: Callable[[BinaryIO], None], hint: str,
                         leftovers: bool = True) -> None:
        # The temporary name carries host and pid: Dask workers on different machines may
        # write the same part at once, and a killed run's leftovers are recognisable.
        path = Path(where)
        if leftovers:
            _remove_stale_temporaries(path)
        temporary = path.with_name(f"{_temporary_prefix(path)}{os.getpid()}.tmp")
        try:
            with open(temporary, "wb") as file:
                write(file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
            _sync_directory(path.parent)
        except OSError as err:
            _unlink_quietly(temporary)
            raise PipelineError(f"cannot write {escaped(str(path))}: {err.strerror or err}{hint}"
                                ) from None
        except BaseException:
            _unlink_quietly(temporary)
            raise

    def remove_temporary_files(self, directory: str) -> None:
        """``.NAME.HOST-PID.tmp`` (older runs wrote ``.NAME.PID.tmp``)."""
        try:
            for entry in Path(directory).glob(".*.tmp"):
                entry.unlink(missing_ok=True)
        except OSError:  # e.g. the directory became read-only: they are harmless, and hidden
            pass

    def lock(self, directory: str, name: str) -> Lock:
        """A POSIX record lock (``lockf``): it belongs to this process alone, so forked
        workers never hold it, and the kernel drops it when the process dies, even by
        ``kill -9``."""
        import fcntl

        path = os.path.join(directory, name)
        while True:
            try:
                descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as err:
                raise PipelineError(
                    f"cannot write into output directory {escaped(directory)}: "
                    f"{err.strerror or err}") from None
            try:
                fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(descriptor)
                raise _in_use(directory) from None
            try:  # the file may have been removed by the run that held it: lock the new one
                if os.stat(path).st_ino == os.fstat(descriptor).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(descriptor)

        def release() -> None:
            nonlocal descriptor
            if descriptor is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
                os.close(descriptor)
                descriptor = None

        return Lock(release)


def _local_entry(entry: os.DirEntry) -> Entry:
    """An entry of a local directory; a bad symbolic link is an entry with a problem, so that
    one bad entry never hides the others."""
    try:
        is_file = entry.is_file()
    except OSError as err:
        problem = "a symbolic link loop" if err.errno == errno.ELOOP else (err.strerror or str(err))
        return Entry(entry.name, False, problem)
    if not is_file and entry.is_symlink() and not os.path.exists(entry.path):
        return Entry(entry.name, False, "a dangling symbolic link")
    return Entry(entry.name, is_file)


def _remove_stale_temporaries(path: Path) -> None:
    """Delete the temporary files of ``path`` that processes of this host left when they were
    killed (``.NAME.HOST-PID.tmp``, with PID no longer running): a report or a summary killed
    while writing would otherwise leave them forever."""
    prefix = _temporary_prefix(path)
    try:
        leftovers = [entry for entry in path.parent.glob(f"{glob.escape(prefix)}*.tmp")]
    except OSError:
        return
    for entry in leftovers:
        pid = entry.name[len(prefix):-len(".tmp")]
        if pid.isdigit() and not _alive(int(pid)):
            _unlink_quietly(entry)


NAME_MAX = 255  # bytes in a file name, on Linux's filesystems
PID_DIGITS = 7  # at most, on Linux (pid_max is at most 2**22)


def _temporary_prefix(path: Path) -> str:
    """``.NAME.HOST-``, the start of the temporary file names of ``path`` on this host: with
    NAME shortened (its start, '~' and a digest of it) where the whole name, pid and ``.tmp``
    added, would be longer than a file name can be (a file whose own name is long)."""
    host = socket.gethostname()
    room = NAME_MAX - len(f"..{host}-.tmp".encode()) - PID_DIGITS
    name = path.name
    if len(name.encode()) > room:
        digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
        start = name.encode("utf-8", "surrogateescape")[:max(room - 9, 1)]
        name = start.decode("utf-8", "ignore") + "~" + digest
    return f".{name}.{host}-"


def _unlink_quietly(path: Path) -> None:
    """Remove ``path`` if it can be (on a read-only filesystem it cannot, and need not)."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def _sync_directory(directory: Path) -> None:
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


# --- object stores and other URLs, through fsspec ----------------------------------------


class ObjectStore(Storage):
    """Files at fsspec URLs: written whole, in one upload; listings never cached (workers write
    behind this process's back); locked by an object created only if absent."""

    def join(self, directory: str, name: str) -> str:
        return directory.rstrip("/") + "/" + name

    def basename(self, where: str) -> str:
        return where.rstrip("/").rsplit("/", 1)[-1]

    def canonical(self, where: str) -> str:
        fs, path = _filesystem(where)
        return fs.unstrip_protocol(path).rstrip("/")

    def kind(self, where: str) -> str | None:
        fs, path = _filesystem(where)
        with _remote_errors("read", where):
            try:
                info = fs.info(path)
            except FileNotFoundError:
                return None
        return {"file": "file", "directory": "directory"}.get(info.get("type"), "other")

    def listing(self, directory: str) -> list[Entry]:
        fs, path = _filesystem(directory)
        with _remote_errors("list", directory):
            try:
                found = fs.ls(path, detail=True)
            except FileNotFoundError:  # on an object store, a directory of nothing
                return []
        return sorted(
            Entry(item["name"].rstrip("/").rsplit("/", 1)[-1], item.get("type") == "file")
            for item in found
            if item["name"].rstrip("/") != path.rstrip("/")
        )

    def stamp(self, where: str) -> Stamp:
        fs, path = _filesystem(where)
        with _remote_errors("read", where):
            try:
                info = fs.info(path)
            except FileNotFoundError:
                raise PipelineError(f"cannot read {where}: it is not there (any more)") from None
        version = tuple((key, str(info[key])) for key in VERSION_KEYS if info.get(key) is not None)
        return Stamp(int(info.get("size") or 0), version)

    def open_read(self, where: str) -> BinaryIO:
        fs, path = _filesystem(where)
        with _remote_errors("read", where):
            return RemoteFile(fs.open(path, "rb"), where)  # type: ignore[return-value]

    @contextlib.contextmanager
    def arrow_source(self, where: str) -> Iterator[BinaryIO]:
        with self.open_read(where) as file:
            yield file

    def make_directory(self, directory: str) -> None:
        """No directory is needed, but the bucket must exist: a misspelt one is reported,
        never created."""
        fs, path = _filesystem(directory)
        root = path.strip("/").split("/")[0]
        with _remote_errors("create", directory):
            if root and not fs.exists(root):
                raise PipelineError(
                    f"cannot create output directory {directory}: {fs.unstrip_protocol(root)} "
                    "does not exist (create the bucket first, or check the URL)"
                )
            fs.makedirs(path, exist_ok=True)

    def delete(self, where: str) -> None:
        fs, path = _filesystem(where)
        with _remote_errors("delete", where):
            try:
                fs.rm_file(path)
            except FileNotFoundError:
                pass

    def write_atomically(self, where: str, write: Callable[[BinaryIO], None], hint: str,
                         leftovers: bool = True) -> None:
        buffer = io.BytesIO()
        write(buffer)
        fs, path = _filesystem(where)
        with _remote_errors("write", where, hint):
            fs.pipe_file(path, buffer.getvalue())

    def remove_temporary_files(self, directory: str) -> None:
        return None  # nothing is written to an object store but whole files

    def lock(self, directory: str, name: str) -> Lock:
        """An object naming its holder (host, pid, a token), created only if absent (S3's
        conditional write), so that of two runs started at once one fails.

        A lock object whose holder is alive refuses the run; one left by a run on this host
        that has ended (killed) is taken over; one left by a dead run on another host must be
        deleted by hand (the message says so), as nothing here can tell whether that run
        still runs.
        """
        path = self.join(directory, name)
        mine = {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "token": uuid.uuid4().hex,
            "since": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        }
        while not _create_exclusively(path, json.dumps(mine).encode()):
            held = self._holder(path)
            if held.get("host") != mine["host"] or _alive(held.get("pid")):
                raise PipelineError(
                    f"output directory {directory} is in use by another sudoku-pipeline run (on "
                    f"{held.get('host', '?')}, pid {held.get('pid', '?')}, since "
                    f"{held.get('since', '?')}); wait for it to finish, or choose another "
                    f"--output. If that run is no longer running, delete {path} and rerun"
                )
            self.delete(path)  # left by a run on this host that has ended: take it over
        if self._holder(path).get("token") != mine["token"]:
            raise _in_use(directory, " (started at the same moment)")

        def release() -> None:
            if mine["token"] and self._holder(path).get("token") == mine["token"]:
                self.delete(path)
            mine["token"] = ""

        return Lock(release)

    def _holder(self, path: str) -> dict[str, Any]:
        try:
            with self.open_read(path) as file:
                holder = json.loads(file.read())
        except (PipelineError, ValueError, FileNotFoundError):
            return {}
        return holder if isinstance(holder, dict) else {}

    def is_private(self, where: str) -> bool:
        fs, _ = _filesystem(where)
        protocols = fs.protocol if isinstance(fs.protocol, tuple) else (fs.protocol,)
        return any(protocol in PRIVATE_PROTOCOLS for protocol in protocols)


def _create_exclusively(url: str, data: bytes) -> bool:
    """Write ``data`` to ``url`` unless something is there already: whether it was written."""
    fs, path = _filesystem(url)
    with _remote_errors("write", url):
        try:
            fs.pipe_file(path, data, mode="create")
            return True
        except FileExistsError:
            return False
        except (TypeError, NotImplementedError):  # no exclusive create here: check, then write
            if fs.exists(path):
                return False
            fs.pipe_file(path, data)
            return True


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user
        return True
    return True


def _in_use(directory: str, holder: str = "") -> PipelineError:
    return PipelineError(
        f"output directory {escaped(directory)} is in use by another sudoku-pipeline "
        f"run{holder}; wait for it to finish, or choose another --output"
    )


def _filesystem(url: str) -> tuple[Any, str]:
    """The fsspec filesystem of ``url`` and the path in it, with no listing of it or its
    parents cached: other processes (the workers) write there."""
    try:
        import fsspec
    except ImportError:
        raise PipelineError(
            f"{url} is a URL, and reading or writing URLs needs fsspec; {FSSPEC_HINT}"
        ) from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
        fs.invalidate_cache(path)
        return fs, path
    except ImportError as err:  # fsspec names the package its protocol needs
        extra = ' (pip install ".[s3]")' if url.startswith(("s3://", "s3a://")) else ""
        raise PipelineError(f"cannot use {url}: {err}{extra}") from None
    except ValueError as err:  # an unknown protocol
        raise PipelineError(f"cannot use {url}: {_one_line(err)}") from None


@contextlib.contextmanager
def _remote_errors(action: str, url: str, hint: str = "") -> Iterator[None]:
    """Any failure of a remote filesystem (its libraries raise many kinds: botocore's
    missing credentials are not an OSError) as one line naming the URL."""
    try:
        yield
    except FileNotFoundError:
        raise
    except PipelineError:
        raise
    except Exception as err:  # noqa: BLE001 - translated, not swallowed
        raise PipelineError(f"cannot {action} {url}: {_one_line(err)}{hint}") from None


def _one_line(err: BaseException) -> str:
    """The message with its type, which says more than most messages of these libraries."""
    return f"{type(err).__name__}: {one_line(err)}" if str(err).strip() else type(err).__name__


class RemoteFile(io.RawIOBase):
    """A file of a remote filesystem, read: a failure mid-read (the store gone, a connection
    reset) is a one-line ``PipelineError`` naming the URL, as a failure to open it is, wherever
    the reading is done (Arrow's Parquet reader, the text and CSV readers, a lock's holder)."""

    def __init__(self, file: Any, where: str) -> None:
        super().__init__()
        self._file, self._where = file, where

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        with _remote_errors("read", self._where):
            return self._file.read(-1 if size is None else size)

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        with _remote_errors("read", self._where):
            return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def close(self) -> None:
        try:
            self._file.close()  # nothing to send when reading, so nothing to fail
        finally:
            super().close()


# --- the module's functions: each location to its backend ---------------------------------

LOCAL_FILES = LocalFiles()
OBJECT_STORE = ObjectStore()


def backend(where: str) -> Storage:
    """The backend of a location: the only place that tells local paths and URLs apart."""
    return OBJECT_STORE if is_url(where) else LOCAL_FILES


def join(directory: str, name: str) -> str:
    return backend(directory).join(directory, name)


def basename(where: str) -> str:
    return backend(where).basename(where)


def canonical(where: str) -> str:
    return backend(where).canonical(where)


def kind(where: str) -> str | None:
    return backend(where).kind(where)


def listing(directory: str) -> list[Entry]:
    return backend(directory).listing(directory)


def stamp(where: str) -> Stamp:
    return backend(where).stamp(where)


def open_read(where: str) -> BinaryIO:
    return backend(where).open_read(where)


def arrow_source(where: str) -> contextlib.AbstractContextManager[str | BinaryIO]:
    return backend(where).arrow_source(where)


def read_bytes(where: str) -> bytes:
    with open_read(where) as file:
        return file.read()


def make_directory(directory: str) -> None:
    backend(directory).make_directory(directory)


def delete(where: str) -> None:
    backend(where).delete(where)


def write_atomically(where: str, write: Callable[[BinaryIO], None], *, hint: str = "",
                     leftovers: bool = True) -> None:
    """Call ``write`` on a file that becomes ``where`` only once complete (see the module);
    ``leftovers``: see ``Storage.write_atomically``."""
    backend(where).write_atomically(where, write, hint, leftovers)


def write_bytes(where: str, data: bytes) -> None:
    write_atomically(where, lambda file: file.write(data))


def remove_temporary_files(directory: str) -> None:
    backend(directory).remove_temporary_files(directory)


def is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp")


def lock_directory(directory: str, name: str) -> Lock:
    """An exclusive lock on ``directory`` (its file ``name``), so that one run at a time
    writes there; ``PipelineError`` when another run holds it."""
    return backend(directory).lock(directory, name)


def is_private(where: str) -> bool:
    """Whether ``where`` is on a filesystem that only this process sees (``memory://``)."""
    return backend(where).is_private(where)
