"""``compiled``: numba's ``njit`` with an on-disk cache that can never hold stale code.

numba caches a compiled function beside its source, keyed to the modification time of the file
that defines it, and does not notice edits to the functions it inlines from other files: a
kernel changed in ``solver/compiled/kernels.py`` would leave ``solver/compiled/search.py``'s
cached code running the old one. So each module's compiled functions are cached in a directory
named after ``module_digest(module)``: the SHA-256 of the module's source and of the source of
every solver module it imports, directly or through another (``imported_modules``). An edit of
a module recompiles that module and the modules that import it, and nothing else: a docstring
of ``solver/api.py`` or a line of a reference module recompiles no kernel, an edit of the
kernel library recompiles every module built on it. When a module's directory is made, the
directories of its older digests are removed, so they do not pile up.

The base of those directories is ``NUMBA_CACHE_DIR`` when the user set it (shared caches are
not cleaned), else ``solver/__pycache__/numba`` when the package directory is writable, else
the user's cache directory (``~/.cache/sudoku-pipeline/numba``).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import os
import re
import shutil
import types
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
NAME = PACKAGE.name  # "solver"
SEARCH_MODULE = f"{NAME}.compiled.search_9x9"  # the kernels every run loads first


def source_files() -> list[Path]:
    """Every module of the solver package, subpackages included."""
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def _digest(paths) -> str:
    digest = hashlib.sha256()
    for path in paths:
        name = path.relative_to(PACKAGE).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.cache
def source_digest() -> str:
    """The SHA-256 of the source of every module of the solver package (names and contents):
    the solver's version, as a run record keeps it."""
    return _digest(source_files())


def module_file(module: str) -> Path | None:
    """The source file of the solver module ``module`` (dotted), or None when there is none."""
    parts = module.split(".")
    if parts[0] != NAME:
        return None
    base = PACKAGE.joinpath(*parts[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imported_names(module: str, tree: ast.Module) -> set[str]:
    """The dotted names ``module``'s own import statements name (relative ones resolved)."""
    package = module if module_file(module).name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            origin = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(anchor + ([origin] if origin else []))
            for alias in node.names:
                # ``from solver import x`` names the module solver.x, not the package's __init__
                below = f"{origin}.{alias.name}"
                names.add(below if module_file(below) is not None else origin)
    return names


# A line that begins an import statement (indented or not), with a parenthesized list's lines.
IMPORT_LINE = re.compile(r"^[ \t]*((?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*))",
                         re.MULTILINE)


def _import_statements(text: str) -> ast.Module:
    """``text``'s import statements, parsed: every process that compiles or loads a kernel
    reads the import graph, and parsing only these lines is a sixteenth of parsing whole modules.
    Lines of a docstring that read as imports only add a module (a recompile too many, never
    one too few); any that do not parse fall back to the whole module."""
    lines = "\n".join(match.group(1) for match in IMPORT_LINE.finditer(text))
    try:
        return ast.parse(lines)
    except SyntaxError:
        return ast.parse(text)


@functools.cache
def direct_imports(module: str) -> frozenset[str]:
    """The solver modules whose code ``module`` imports: for ``from solver.x import y``, the
    module ``solver.x.y`` when there is one, else ``solver.x``. A package's ``__init__`` is
    not counted for the modules below it: no kernel is compiled from it."""
    tree = _import_statements(module_file(module).read_text())
    return frozenset(name for name in _imported_names(module, tree)
                     if module_file(name) is not None and name != module)


@functools.cache
def imported_modules(module: str) -> tuple[str, ...]:
    """``module`` and every solver module it imports, directly or through another, sorted."""
    seen = {module}
    pending = [module]
    while pending:
        for name in direct_imports(pending.pop()):
            if name not in seen:
                seen.add(name)
                pending.append(name)
    return tuple(sorted(seen))


@functools.cache
def module_digest(module: str) -> str:
    """The SHA-256 of the sources ``module``'s compiled code may come from: its own and those
    of ``imported_modules``. A function of another module (a test's, a tool's) is keyed to the
    whole package instead."""
    if module_file(module) is None:
        return source_digest()
    return _digest(module_file(name) for name in imported_modules(module))


def cache_base() -> tuple[Path, bool]:
    """Where the cache directories live, and whether they are ours to clean."""
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return Path(chosen), False
    if os.access(PACKAGE, os.W_OK):
        return PACKAGE / "__pycache__" / "numba", True
    return Path.home() / ".cache" / "sudoku-pipeline" / "numba", True


def directory_of(module: str) -> Path:
    """The cache directory of ``module``'s source (not made): ``<module>-<digest>``."""
    return cache_base()[0] / f"{module}-{module_digest(module)[:16]}"


@functools.cache
def cache_directory(module: str) -> str:
    """The directory numba's cache of ``module`` lives in (made, and older ones removed)."""
    directory = directory_of(module)
    if cache_base()[1] and not directory.is_dir():
        _remove_older(directory)
    directory.mkdir(parents=True, exist_ok=True)
    return str(directory)


def compiled_before(module: str = SEARCH_MODULE) -> bool:
    """Whether this source of ``module`` has been compiled on this machine already (its cache
    holds code): if not, its first call compiles it, which takes seconds."""
    return any(directory_of(module).rglob("*.nbi"))


@contextlib.contextmanager
def reporting_compiles(report):
    """Within it, ``report(module)`` is called (when ``report`` is not None) the first time a
    function of the solver module ``module`` starts compiling in this process: numba's
    compile event, which a function loaded from the cache does not raise. What a caller waits
    for, said by the solver, which prints nothing itself."""
    if report is None:
        yield
        return
    from numba.core import event

    reported = set()

    class Reporter(event.Listener):
        def on_start(self, ev):
            module = ev.data["dispatcher"].py_func.__module__
            if module.startswith(f"{NAME}.") and module not in reported:
                reported.add(module)
                report(module)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Reporter()):
        yield


def _remove_older(directory: Path) -> None:
    """Remove the caches of the same module's other digests (another process may be removing
    them too)."""
    module = directory.name.rpartition("-")[0]
    if directory.parent.is_dir():
        for entry in directory.parent.iterdir():
            if (entry.is_dir() and entry.name != directory.name
                    and entry.name.rpartition("-")[0] == module):
                shutil.rmtree(entry, ignore_errors=True)


class _OneCopyOfTheScope:
    """Stands for the ``copy`` module inside numba's inliner while it inlines one call.

    The inliner copies the callee's IR block by block, each block with ``copy.deepcopy`` and a
    memo of its own. Every variable refers to the function's one scope, which holds every
    variable: each block's copy copied the whole scope again, so inlining cost the callee's
    blocks times its variables: about a fifth of the grade's compile (5 million copies for
    180 inlined calls; BENCHMARKS). Here the blocks of one IR share one memo, as they share one
    scope: one copy of it. The code compiled is the same, instruction by instruction
    (``tests/solver/test_jit.py``)."""

    def __init__(self) -> None:
        self.memos: dict[int, dict] = {}

    def deepcopy(self, value, memo=None):
        import copy

        from numba.core import ir

        if memo is None and isinstance(value, ir.Block):
            memo = self.memos.setdefault(id(value.scope), {})
        return copy.deepcopy(value, memo)


@functools.cache
def _inline_with_one_copy_of_the_scope() -> None:
    """Make numba's inliner use ``_OneCopyOfTheScope`` (once a process; numba compiles under
    a lock of its own, so one call inlines at a time). Left alone if numba's inliner no longer
    copies with the ``copy`` module."""
    import copy

    from numba.core import inline_closurecall

    if getattr(inline_closurecall, "copy", None) is not copy:
        return
    inline_ir = inline_closurecall.InlineWorker.inline_ir

    @functools.wraps(inline_ir)
    def inlining(*args, **kwargs):
        inline_closurecall.copy = _OneCopyOfTheScope()
        try:
            return inline_ir(*args, **kwargs)
        finally:
            inline_closurecall.copy = copy

    inline_closurecall.InlineWorker.inline_ir = inlining


def _load_from_the_cache(self, sig, target_context):
    """numba's ``Cache.load_overload`` without its refresh of the target context.

    That refresh imports and registers every implementation numba can compile (its NumPy,
    its random generators, its polynomials...): a tenth of a second in each process, where
    loading cached machine code needs only numba's runtime (``rtsys``, whose functions the
    code calls). A compile refreshes the context itself, first thing."""
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
    with self._guard_against_spurious_io_errors():
        return self._load_overload(sig, target_context)


@functools.cache
def _adjust_numba() -> None:
    """Once a process, before its first compiled function: loading from the cache skips numba's
    refresh (``_load_from_the_cache``), and the first compile makes numba's inliner copy a
    scope once (``_inline_with_one_copy_of_the_scope``; not before: its module takes 0.07 s
    to import, which a process that only loads does without). Either is left alone if numba's
    code is no longer as expected. A warm run of 20,000 puzzles took 0.17 s less (BENCHMARKS)."""
    from numba.core import caching, event

    cache = caching.Cache
    if hasattr(cache, "_load_overload") and hasattr(cache, "_guard_against_spurious_io_errors"):
        cache.load_overload = _load_from_the_cache

    class FirstCompile(event.Listener):
        def on_start(self, ev):
            _inline_with_one_copy_of_the_scope()

        def on_end(self, ev):
            pass

    event.register("numba:compile", FirstCompile())


def compiled(function=None, *, borrows: bool = False, **options):
    """``numba.njit(cache=True, nogil=True, **options)``, cached in the ``cache_directory`` of
    the function's module.

    Every kernel releases the GIL: a worker's heartbeat is a thread, and a kernel that held the
    GIL for longer than the stall limit (a 16 x 16 batch may search for minutes) would have its
    worker taken for a dead one and killed, its rows lost.

    ``borrows=True``: the function only borrows arrays its caller holds. It allocates none (its
    compile fails if it does) and returns none (``tests/solver/test_jit.py`` checks every
    such function's return types), so it is compiled without numba's reference counts
    (``_nrt=False``). With them, every call increments and decrements the count of each array
    it is handed, tuples of arrays counted array by array, and of each row it takes as a view:
    atomic operations that were a quarter of the grade's time and two fifths of the SE
    rating's (sampled with a profiler). Nor may it call a compiled function that returns a new
    array: it would never release it. A function called from Python keeps its counts, and one
    inlined (``inline="always"``) is compiled as part of its caller.

    Used as ``@compiled``, ``@compiled(borrows=True)`` or ``@compiled(inline="always")``.
    numba reads its cache directory when the function is decorated, so it is set for that
    moment only, and the process's numba configuration is left as it was for any other code.
    """
    if function is None:
        return functools.partial(compiled, borrows=borrows, **options)
    import numba

    _adjust_numba()
    # Set either way: a function numba compiles as a callee takes its caller's setting unless
    # its own says otherwise.
    options["_nrt"] = not borrows
    before = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = cache_directory(function.__module__)
    try:
        return numba.njit(cache=True, **{"nogil": True, **options})(function)
    finally:
        numba.config.CACHE_DIR = before


def borrowing(dispatcher) -> bool:
    """Whether ``dispatcher`` was made by ``compiled(borrows=True)``."""
    return dispatcher.targetoptions.get("_nrt") is False


def compiled_copies(functions: dict, suffix: str, inline: frozenset = frozenset(),
                    **bindings) -> dict:
    """Copies of the compiled ``functions`` (name: dispatcher, of one module), each bound under
    its name in one namespace with ``bindings`` (name: dispatcher): the copies call one another
    and the bindings where the originals call the originals. A search that runs a whole search
    of its own kind inside itself (SE's nested chains) is compiled so, one copy a depth: numba's
    on-disk cache cannot hold a recursive call graph. A copy is cached as the original's name
    and ``suffix`` (numba's cache tells functions apart by qualified name).

    The copies named in ``inline`` are inlined into their callers: numba links the whole
    compiled tree below a function into that function's module and optimizes it there again,
    so each compiled copy above the depth below costs that depth's whole compile once more.
    The copies keep numba's reference counts (they are not ``borrows=True``): the SE functions
    they inline allocate."""
    first = next(iter(functions.values())).py_func
    namespace = dict(first.__globals__)
    namespace.update(bindings)
    for name, dispatcher in functions.items():
        original = dispatcher.py_func
        copy = types.FunctionType(original.__code__, namespace, name + suffix,
                                  original.__defaults__, original.__closure__)
        copy.__qualname__ = name + suffix
        copy.__module__ = original.__module__
        copy.__doc__ = original.__doc__
        namespace[name] = compiled(copy, **({"inline": "always"} if name in inline else {}))
    return {name: namespace[name] for name in functions}
