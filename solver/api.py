"""The public face of the solver: parse a puzzle, solve one or a batch, get SPEC section 3 numbers.

``solve`` takes one puzzle string; ``solve_ascii`` takes a batch as an (n, 81) array of ASCII bytes
(what the pipeline holds); ``solve_strings`` takes a sequence of strings.  Each takes a
``SolveOptions`` (or its fields as keywords) and runs either implementation: ``"fast"`` (numba,
``solver.compiled.search_9x9`` and ``solver.compiled.measures_9x9``, imported on first use) or
``"reference"`` (Bird's equations, ``solver.reference.bird`` and ``solver.reference.ladder``); both
give the same numbers, to the node. Besides SPEC section 3's columns they give section 5's ``grade``
(always) and, when ``measures`` asks for them, ``rating`` and ``backdoor_size``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from solver.grid import (
    BOXSIZE_OF_CELLS,
    ascii_rows,
    boxsize_of,
    contradiction,
    grids_from_ascii,
    length_error,
    parse_error,
    strip_line_ending,
    symbols,
    text_of,
)
from solver.options import SolveOptions, check_choice, options_with
from solver.records import (
    MISSING,
    BatchResult,
    Difficulty,
    Result,
    SearchColumns,
)
from solver.records import ROW as ROW  # the row view, public here as it was
from solver.reference import bird, ladder
from solver.reference.se_grid import Hint as SEHint
from solver.vocabulary import GRADES, IMPLEMENTATIONS, SE_TECHNIQUES, STATUSES, se_technique


def solve_grids(grids: np.ndarray, options: SolveOptions | None = None, *,
                implementation: str = "fast", **changes) -> SearchColumns:
    """Search well-formed grids ((n, C) values 0..N, C = N * N cells of one box size): what
    the search found, per row. ``changes`` replace fields of ``options``."""
    options = options_with(options, changes)
    grids = np.asarray(grids, dtype=np.uint8)
    grids = np.ascontiguousarray(grids.reshape(-1, grids.shape[-1]))
    return implementation_of(implementation).search(grids, options)


def solve_ascii(rows: np.ndarray, options: SolveOptions | None = None, *,
                implementation: str = "fast", errors: Sequence[str | None] | None = None,
                **changes) -> BatchResult:
    """Solve a batch given as an (n, C) uint8 array of the puzzles' ASCII bytes, C = N * N the
    cells of one box size (81 for Sudoku).

    A row holding any byte but a symbol of the box size (``options.alphabet`` for its N, else
    the default symbols) or a blank is ``invalid``.  ``errors`` may give a parse error for rows
    known to be invalid already (e.g. of the wrong length): those rows are invalid whatever
    their bytes.  ``options`` (or its fields as keywords, ``changes``) says how to search and
    which optional measures of SPEC sections 5 and 6 to compute (``"rating"``, over
    ``rating_samples`` copies each searched with ``max_nodes``, ``"backdoor"`` and
    ``"canonical"``); ``grade`` is always computed.
    """
    options = options_with(options, changes)
    solver = implementation_of(implementation)
    rows = np.asarray(rows, dtype=np.uint8)
    rows = np.ascontiguousarray(rows.reshape(-1, rows.shape[-1]))
    boxsize = BOXSIZE_OF_CELLS[rows.shape[1]]
    alphabet = options.alphabet_of(boxsize)
    written = symbols(boxsize, alphabet)
    grids, bad = grids_from_ascii(rows, alphabet)
    error: list[str | None] = [None] * len(rows)
    if errors is not None:  # only then a pass over the rows in Python
        error = list(errors)
        bad |= np.array([e is not None for e in error], bool).reshape(-1)
    for i in np.flatnonzero(bad):
        error[i] = error[i] or parse_error(rows[i].tobytes().decode("utf-8", "replace"),
                                           boxsize, alphabet)
    found = solver.search(grids, options)
    status = statuses(bad, found.contradictory, found.budget_exceeded, found.n_solutions,
                      options.max_solutions)
    for i in np.flatnonzero(status == STATUSES.index("contradictory")):
        error[i] = contradiction(grids[i], written.symbols)
    measured = solver.difficulty(grids, status, found, options)
    canonical = (canonical_forms(grids, ~bad, implementation)
                 if options.measured("canonical") and boxsize == 3
                 else np.zeros(rows.shape, np.uint8))
    return BatchResult.of(
        found, measured, status=status, error=error, valid=~bad,
        boxsize=np.where(bad & (options.boxsize == "auto"), 0, boxsize).astype(np.int8),
        solutions_capped=found.n_solutions >= options.max_solutions,
        first_solution=written.ascii(found.first_solution),
        has_solution=(found.n_solutions > 0) & ~bad, solve_us=found.solve_ns / 1000.0,
        canonical=canonical)


def canonical_forms(grids: np.ndarray, valid: np.ndarray,
                    implementation: str = "fast") -> np.ndarray:
    """SPEC section 6's canonical form of each valid row of ``grids`` (9 x 9), as (n, 81)
    ASCII bytes (zero bytes where ``valid`` is False): ``solver.compiled.canonical`` (numba) or, for the
    reference implementation, ``solver.reference.canonical``, which walks the symmetries one
    by one."""
    forms = np.zeros((len(grids), 81), np.uint8)
    if valid.any():
        forms[valid] = implementation_of(implementation).canonical(grids[valid])
    return forms


def statuses(invalid: np.ndarray, contradictory: np.ndarray, budget_exceeded: np.ndarray,
             n_solutions: np.ndarray, max_solutions: int) -> np.ndarray:
    """The first status of SPEC section 3 that applies, per row (indexes into STATUSES)."""
    conditions = [invalid, contradictory, budget_exceeded, n_solutions == 0,
                  np.full(len(invalid), max_solutions == 1), n_solutions == 1]
    return np.select(conditions, range(6), default=6).astype(np.uint8)


def solve_strings(puzzles: Sequence[str], options: SolveOptions | None = None, *,
                  implementation: str = "fast", **changes) -> BatchResult:
    """Solve a sequence of puzzle strings of any box size ``options.boxsize`` takes (a
    string of another length is invalid); options as ``solve_ascii``."""
    options = options_with(options, changes)
    texts = [strip_line_ending(text) for text in puzzles]
    sizes = [boxsize_of(text, options.boxsize) for text in texts]
    parts = []
    for boxsize in sorted({size for size in sizes if size is not None}):
        rows = np.array([i for i, size in enumerate(sizes) if size == boxsize], np.int64)
        ascii, errors = ascii_rows([texts[i] for i in rows], boxsize**4)
        parts.append((rows, solve_ascii(ascii, options, implementation=implementation,
                                        errors=errors)))
    misfits = np.array([i for i, size in enumerate(sizes) if size is None], np.int64)
    if len(misfits) or not parts:
        fallback = 3 if options.boxsize == "auto" else options.boxsize
        errors = [length_error(len(texts[i]), options.boxsize) for i in misfits]
        result = solve_ascii(np.zeros((len(misfits), fallback**4), np.uint8), options,
                             implementation=implementation, errors=errors)
        parts.append((misfits, result))
    return parts[0][1] if len(parts) == 1 and len(parts[0][0]) == len(texts) and np.all(
        parts[0][0] == np.arange(len(texts))) else BatchResult.merged(parts, len(texts))


def solve(puzzle: str, options: SolveOptions | None = None, *, implementation: str = "fast",
          **changes) -> Result:
    """Solve one puzzle (81 characters, blanks ``.0 -_``; other box sizes with ``boxsize``)
    and report SPEC section 3's numbers, its ``grade`` and the section 5 ``measures`` asked for
    (``options``, or its fields as keywords).

    >>> solve("." * 81).status
    'multiple'
    >>> r = solve(".1.42...5..2.71.39.......4.2.71....6....4....6....74.3.7.......12.73.5..3...82.7.",
    ...           measures=("rating", "backdoor"))
    >>> (r.grade, r.rating, r.backdoor_size)
    ('singles', 0.0, 0)
    >>> solve("....2..11.24....", boxsize="auto").first_solution
    '3142243113244213'
    """
    return solve_strings([puzzle], options, implementation=implementation, **changes).row(0)


def explain(puzzle: str, options: SolveOptions | None = None, **changes) -> Iterator[ladder.Step]:
    """The path of one puzzle up the ladder (SPEC 5.1), rung by rung: what each rule removed, in
    a solver's words, as the reference's rules (``solver.reference.ladder.explain``) find it, up to
    ``options.grade_limit``, step by step as they are found. The last step names the grade.
    ValueError (at once) for a text that is not a puzzle of a box size ``options.boxsize`` takes.

    The reference is literal, hence slow: seconds for a ``trial`` puzzle, minutes for a
    ``trial2`` one (``grade_limit`` stops it sooner).

    >>> easy = "2....1.38........5.7...6..........13.981..25731....8..9..8...2..5..697844..25...."
    >>> list(explain(easy))[-1].text
    'grade: prune'
    """
    options = options_with(options, changes)
    text = strip_line_ending(puzzle)
    boxsize = boxsize_of(text, options.boxsize)
    error = (length_error(len(text), options.boxsize) if boxsize is None
             else parse_error(text, boxsize, options.alphabet_of(boxsize)))
    if error:
        raise ValueError(error)
    rows, _ = ascii_rows([text], boxsize**4)
    grids, _ = grids_from_ascii(rows, options.alphabet_of(boxsize))
    return ladder.explain(bird.read_mat(text_of(grids[0])), options.grade_limit)


def se_path(puzzle: str, *, implementation: str = "fast") -> Iterator[SEHint]:
    """The Sudoku Explainer path of one 9 x 9 puzzle (SPEC 5.4): the hints serate applies, in
    order, each yielded as soon as it is found (``hint.text`` reads e.g. ``Hidden Pair: 2,5 in
    r1c8,r3c8 => r1c8<>7 (3.4)``). No work budget: it runs until the grid is full or no rule
    applies. ValueError (at once) for a text that is not a 9 x 9 puzzle.

    >>> easy = "2....1.38........5.7...6..........13.981..25731....8..9..8...2..5..697844..25...."
    >>> next(se_path(easy)).text
    'Hidden Single: 2 in block 3 => r3c9=2 (1.2)'
    """
    text = strip_line_ending(puzzle)
    error = (length_error(len(text), 3) if len(text) != 81
             else parse_error(text, 3, ""))
    if error:
        raise ValueError(error)
    rows, _ = ascii_rows([text], 81)
    grids, _ = grids_from_ascii(rows, "")
    return implementation_of(implementation).se_path(text_of(grids[0]))


def implementation_of(name: str) -> Compiled | Reference:
    """The implementation called ``name`` (one of IMPLEMENTATIONS): the one object whose
    methods every entry point calls."""
    return IMPLEMENTATION[check_choice("implementation", name, IMPLEMENTATIONS)]


# -- SPEC section 5, on the rows it applies to ----------------------------------------------------

# The statuses whose rows SPEC 5 measures: grade needs a solution, rating and backdoor a unique one.
GRADED = (STATUSES.index("solved"), STATUSES.index("unique"))
UNIQUE = STATUSES.index("unique")


def difficulty(grids: np.ndarray, status: np.ndarray, found: SearchColumns,
               options: SolveOptions | None = None, *, implementation: str = "fast",
               **changes) -> Difficulty:
    """SPEC section 5 for a searched batch: ``grade`` for the rows whose ``status`` (indexes into
    STATUSES) is unique or solved, ``rating`` and ``backdoor_size`` for the unique rows when
    ``options.measures`` names them (each copy of a rating searched with ``max_nodes``); nulls
    elsewhere. ``found`` is what the search found for ``grids`` (``solve_grids``)."""
    options = options_with(options, changes)
    return implementation_of(implementation).difficulty(grids, status, found, options)


# -- the two implementations, one object each with the same methods --------------------------------


class Implementation:
    """What the two implementations share: the Sudoku Explainer rating and path (SPEC 5.4) of
    their own ``se`` module (``se_module``), and the ``se`` columns of a batch from it."""

    def se_module(self) -> Any:
        raise NotImplementedError

    def se_rating(self, puzzle: str, max_work: int | None = None) -> Any:
        """``puzzle``'s ``solver.reference.se.SERating``, over budget past ``max_work``."""
        return self.se_module().se_rating(puzzle, max_work)

    def se_path(self, puzzle: str) -> Iterator[SEHint]:
        return self.se_module().se_path(puzzle)

    def rate_se(self, measured: Difficulty, grids: np.ndarray, status: np.ndarray,
                options: SolveOptions) -> None:
        """SPEC 5.4 for the unique rows of a 9 x 9 batch, into ``measured``, when ``options``
        ask for it: ER, EP, ED and the count of each technique family on the path
        (``se_techniques``); null over the budget ``options.se_budget``."""
        if not options.measured("se") or grids.shape[1] != 81:
            return
        for i in np.flatnonzero(status == UNIQUE):
            rated = self.se_rating(text_of(grids[i]), options.se_budget)
            if rated.over_budget:
                continue
            measured.se[i], measured.se_ep[i], measured.se_ed[i] = rated.er, rated.ep, rated.ed
            for name, count in rated.techniques.items():
                measured.se_techniques[i, SE_TECHNIQUES.index(se_technique(name))] += count


class Compiled(Implementation):
    """The compiled solver (``solver.compiled``, numba): each module is imported, and its code
    loaded, the first time it runs. Each concept's module serves every box size."""

    def search(self, grids: np.ndarray, options: SolveOptions) -> SearchColumns:
        from solver.compiled import search

        return search.solve_grids(grids, options, BOXSIZE_OF_CELLS[grids.shape[1]])

    def difficulty(self, grids: np.ndarray, status: np.ndarray, found: SearchColumns,
                   options: SolveOptions) -> Difficulty:
        """``solver.compiled.grade`` and ``solver.compiled.measures``.

        The search has settled the first two rungs already (``prune_solvable``,
        ``singles_solvable``), and a singles-solvable puzzle has rating 0 and backdoor size 0:
        only the other rows reach the compiled code, which is loaded the first time one does.
        """
        boxsize = BOXSIZE_OF_CELLS[grids.shape[1]]
        measured = Difficulty.null(len(grids))
        graded = np.isin(status, GRADED)
        settled = found.singles_solvable
        singles = (GRADES.index("singles") if options.grade_limit != "prune"
                   else GRADES.index("search"))
        measured.grade[graded & settled] = np.where(found.prune_solvable, GRADES.index("prune"),
                                                    singles)[graded & settled]
        harder = graded & ~settled
        if harder.any():
            from solver.compiled import grade

            # the rows' only solutions, where the search showed them unique: the grade's own
            # search for them is skipped (only the rows graded here: on Kaggle's sets, few)
            only = np.where((status[harder] == UNIQUE)[:, None], found.first_solution[harder], 0)
            measured.grade[harder] = grade.grades(grids[harder], boxsize, options.grade_limit,
                                                  only)
        unique = status == UNIQUE
        harder = unique & ~settled
        if options.measured("rating"):
            measured.rating[unique & settled] = 0.0
            if harder.any():
                from solver.compiled import measures

                measured.rating[harder] = measures.ratings(
                    grids[harder], boxsize, options.rating_samples, options.max_nodes)
        if options.measured("backdoor"):
            measured.backdoor_size[unique & settled] = 0
            if harder.any():
                from solver.compiled import measures

                measured.backdoor_size[harder] = measures.backdoor_sizes(
                    grids[harder], found.first_solution[harder], boxsize)
        self.rate_se(measured, grids, status, options)
        return measured

    def se_module(self) -> Any:
        """``solver.compiled.se``: the reference's path, compiled."""
        from solver.compiled import se

        return se

    def canonical(self, grids: np.ndarray) -> np.ndarray:
        from solver.compiled.canonical import canonical_grids

        return canonical_grids(grids)


class Reference(Implementation):
    """Bird's equations (``solver.reference``), one puzzle at a time."""

    def search(self, grids: np.ndarray, options: SolveOptions) -> SearchColumns:
        out = SearchColumns.empty(len(grids), grids.shape[1])
        written = symbols(BOXSIZE_OF_CELLS[grids.shape[1]])
        for i, grid in enumerate(grids):
            start = time.perf_counter_ns()
            g = bird.read_mat(text_of(grid))
            stats = bird.Stats(max_nodes=options.max_nodes)
            sols = bird.solutions(g, stats, max_solutions=options.max_solutions,
                                  prune_variant=options.prune, cell=options.cell,
                                  rules=options.rules)
            out.contradictory[i] = contradiction(grid) is not None
            out.givens[i] = np.count_nonzero(grid)
            out.n_solutions[i], out.search_nodes[i], out.search_depth[i] = (
                len(sols), stats.nodes, stats.depth)
            out.budget_exceeded[i] = stats.budget_exceeded
            if sols:
                solution = np.frombuffer(bird.show_mat(sols[0]).encode(), np.uint8)
                out.first_solution[i] = written.values[solution]
            out.prune_solvable[i] = bird.prune_solvable(g)
            out.singles_solvable[i] = bird.singles_solvable(g)
            out.solve_ns[i] = time.perf_counter_ns() - start
        return out

    def difficulty(self, grids: np.ndarray, status: np.ndarray, found: SearchColumns,
                   options: SolveOptions) -> Difficulty:
        """``solver.reference.ladder``."""
        measured = Difficulty.null(len(grids))
        for i in np.flatnonzero(np.isin(status, GRADED)):
            g = bird.read_mat(text_of(grids[i]))
            measured.grade[i] = GRADES.index(ladder.grade(g, options.grade_limit))
            if status[i] != UNIQUE:
                continue
            if options.measured("rating"):
                value = ladder.rating(g, options.rating_samples, options.max_nodes)
                measured.rating[i] = np.nan if value is None else value
            if options.measured("backdoor"):
                solution = bird.read_mat(text_of(found.first_solution[i]))
                size = ladder.backdoor_size(g, solution, ladder.largest_backdoor(len(g)))
                measured.backdoor_size[i] = MISSING if size is None else size
        self.rate_se(measured, grids, status, options)
        return measured

    def se_module(self) -> Any:
        """``solver.reference.se``: serate's rules in plain Python."""
        from solver.reference import se

        return se

    def canonical(self, grids: np.ndarray) -> np.ndarray:
        """``solver.reference.canonical``, which walks the symmetries one by one."""
        from solver.reference.canonical import canonical_reference

        return np.array([np.frombuffer(canonical_reference(text_of(grid)).encode(), np.uint8)
                         for grid in grids], np.uint8).reshape(-1, 81)


IMPLEMENTATION = {"fast": Compiled(), "reference": Reference()}
