"""The ``sudoku-pipeline`` command: thin Typer wrappers over the library.

Each command parses its options, calls one library function and ends through ``_end``: what
it returns (an ``Ending``) or raises (a ``PipelineError``, Ctrl-C) becomes one line on stderr
and the exit code that ``Ending.exit_code``, the one place, decides. Heavy modules (pyarrow,
numba, the solver) are imported inside the commands, so ``--help`` is quick.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from pipeline.errors import PipelineError, RunIncomplete
from pipeline.settings import (
    DECLARED,
    GENERATE_SETTINGS,
    GENERATION_DECLARED,
    SETTING_NAMES,
    SOLVE_SETTINGS,
    Generation,
    Settings,
    load_generation,
    load_settings,
)

app = typer.Typer(
    name="sudoku-pipeline",
    help="Solve and classify whole datasets of Sudoku puzzles with Richard Bird's algorithm.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: flags without a "<bool>" metavar, examples kept as written
)

EXIT_DONE = 0
EXIT_UNSOLVED = 1  # solve: a puzzle without a solution
EXIT_FAILED = 2  # an expected failure: a bad option, input, puzzle or directory
EXIT_INCOMPLETE = 3  # a run with rows missing, which the same command continues


class Terminated(KeyboardInterrupt):
    """SIGTERM (a service manager, ``kill``, a cluster's job scheduler): stop as Ctrl-C does."""

    signal_number = signal.SIGTERM


def _raise_terminated(signum, frame) -> None:
    raise Terminated()


def _print_version(asked: bool) -> None:
    if asked:
        from pipeline.version import __version__

        typer.echo(f"sudoku-pipeline {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool, typer.Option("--version", help="Print the version and exit.", is_eager=True,
                           callback=_print_version)
    ] = False,
) -> None:
    """Solve and classify whole datasets of Sudoku puzzles with Richard Bird's algorithm."""


# --- how a command ends: the one place its exit code is decided -------------------------


@dataclass(frozen=True)
class Ending:
    """How a command ended: what went wrong, if anything, and ``error``, the line that says it.
    ``exit_code`` turns that into the exit code, the one place that does, as black's ``Report``
    does with its counts."""

    error: str | None = None  # said on stderr as "error: ..."
    failed: bool = False  # an expected failure (said in ``error``, or by solve's lines)
    incomplete: bool = False  # a run with rows missing, which the same command continues
    unsolved: bool = False  # solve: a puzzle without a solution
    stopped_by: int | None = None  # the signal that stopped the command: SIGINT or SIGTERM

    @property
    def exit_code(self) -> int:
        """128 + the signal when stopped (the shells' convention: 130 Ctrl-C, 143 SIGTERM); else
        2 for a failure, 3 for an incomplete run, 1 for a puzzle without a solution, 0."""
        if self.stopped_by is not None:
            return 128 + self.stopped_by
        if self.failed:
            return EXIT_FAILED
        if self.incomplete:
            return EXIT_INCOMPLETE
        return EXIT_UNSOLVED if self.unsolved else EXIT_DONE


def command(name: str):
    """Register ``name``, a command of ``app`` that ends through ``_end``, whatever it returns
    (an ``Ending``; None when done) or raises."""

    def register(body: Callable[..., Ending | None]):
        @functools.wraps(body)
        def ended(**arguments: Any) -> NoReturn:
            _end(_ending_of(body, arguments))

        app.command(name)(ended)
        return body

    return register


def _ending_of(body: Callable[..., Ending | None], arguments: dict[str, Any]) -> Ending:
    """What ``body(**arguments)`` returned, or how it failed: a ``PipelineError`` (an incomplete
    run when it is a ``RunIncomplete``), Ctrl-C or SIGTERM."""
    try:
        return body(**arguments) or Ending()
    except RunIncomplete as err:
        return Ending(error=str(err), incomplete=True)
    except PipelineError as err:
        return Ending(error=str(err), failed=True)
    except KeyboardInterrupt as stop:
        return _stopped(stop)


def _stopped(stop: KeyboardInterrupt, then: str = "") -> Ending:
    """A command stopped by Ctrl-C or SIGTERM (``Terminated``); ``then``: what the line adds."""
    if isinstance(stop, Terminated):
        return Ending(error=f"terminated (SIGTERM){then}", stopped_by=signal.SIGTERM)
    return Ending(error=f"interrupted{then}", stopped_by=signal.SIGINT)


def _end(ending: Ending) -> NoReturn:
    """Say the ending's error in one line on stderr and exit with its code: every command ends
    here."""
    if ending.error is not None:
        message = ending.error
        # Run through `make solve-dataset`, the way to say --overwrite is OVERWRITE=1.
        if hint := os.environ.get("SUDOKU_PIPELINE_OVERWRITE_HINT"):
            message = message.replace("--overwrite", hint)
        typer.echo(f"error: {message}", err=True)
    raise typer.Exit(ending.exit_code)


# --- options generated from the settings' declarations -------------------------------------

OPTION_TYPES = {"count": int, "seconds": float, "choice": str, "text": str, "flag": bool,
                "names": str, "delimiter": str, "casts": str, "band": str}


def setting_option(name: str, *, default: Any = None) -> inspect.Parameter:
    """The CLI option of setting ``name``, from its declaration in ``pipeline.settings``."""
    declared = DECLARED[name] if name in DECLARED else GENERATION_DECLARED[name]
    flag = "--" + name.replace("_", "-")
    help = declared.help
    if declared.kind == "names":
        help += f" Of: {', '.join(declared.choices)}."
    elif declared.choices:
        help += f" One of: {', '.join(declared.choices)}."
    if declared.zero:
        help += f" 0 means {declared.zero}."
    names = [flag, f"-{declared.short}"] if declared.short else [flag]
    if declared.kind == "flag" and _built_in(name) is True:  # a flag that is on: say how to drop it
        names = [f"{flag}/--no-{flag[2:]}"]
    kind = OPTION_TYPES[declared.kind]
    option = typer.Option(*names, help=help, show_default=default is not None)
    annotation = Annotated[kind if default is not None else kind | None, option]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotation)


def _built_in(name: str) -> Any:
    """The built-in default of setting ``name``."""
    return getattr(Settings() if name in DECLARED else Generation(), name)


def with_settings(names: tuple[str, ...], defaults: dict[str, Any] | None = None):
    """Give a command one option per setting in ``names`` (passed as keyword arguments)."""

    def decorate(command):
        signature = inspect.signature(command, eval_str=True)
        given = [p for p in signature.parameters.values() if p.kind != p.VAR_KEYWORD]
        generated = [setting_option(name, default=(defaults or {}).get(name)) for name in names]
        command.__signature__ = signature.replace(parameters=given + generated)
        return command

    return decorate


# --- solve: one puzzle ------------------------------------------------------------------


@command("solve")
@with_settings(SOLVE_SETTINGS, defaults=Settings().as_options(SOLVE_SETTINGS))
def solve_command(
    puzzles: Annotated[
        list[str] | None,
        typer.Argument(help="Puzzles of 81 cells (digits 1-9, blanks . 0 space - _); none, or -, "
                       "reads one per line from standard input.", show_default=False),
    ] = None,
    implementation: Annotated[
        str, typer.Option(help="fast (numba) or reference (Bird's equations, literally).")
    ] = "fast",
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object per puzzle, with every result field.")
    ] = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Then print, rung by rung, what each rule of the "
                           "grade's ladder removed (the reference's rules: seconds for a trial "
                           "puzzle, minutes for a trial2 one; --grade-limit stops sooner); with "
                           "--measures se, the Sudoku Explainer path instead, a line per hint "
                           "as serate names it, then ER/EP/ED.")
    ] = False,
    **settings: Any,
) -> Ending:
    """Solve puzzles. One puzzle is shown as grids (the seeds' put) with its statistics and
    its solution as an 81-character line; several, or standard input, give one line each:
    the solution, or the status when there is none.

    Exit code 0 when every puzzle has a solution, 1 when one has none (unsolvable,
    contradictory givens, or the node budget ran out), 2 when one is not 81 valid cells,
    130 interrupted (Ctrl-C).

    Example:

    \b
        sudoku-pipeline solve \\
          ..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..
        cut -d, -f1 puzzles.csv | tail -n +2 | sudoku-pipeline solve --json
        sudoku-pipeline solve --explain \
          ..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..
        sudoku-pipeline solve --measures se --explain \
          ..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..
    """
    import solver
    from pipeline.warm_up import announcing_compiles

    texts = _puzzles_given(puzzles)
    try:
        options = load_settings(**settings).solve_options
        with announcing_compiles():
            batch = solver.solve_strings(texts, options, implementation=implementation)
    except ValueError as err:  # the solver's own check of its options
        raise PipelineError(str(err)) from None
    results = [batch.row(i) for i in range(len(batch))]
    if as_json:
        for text, result in zip(texts, results, strict=True):
            typer.echo(json.dumps({"puzzle": text, **vars(result)}))
    elif len(texts) == 1:
        _show_one(texts[0], results[0], options.alphabet_of(results[0].boxsize or 3))
    else:
        for result in results:
            typer.echo(result.first_solution or f"{result.status}" + (
                f": {result.error}" if result.error else ""))
    over = sum(result.status == "budget_exceeded" for result in results)
    if over and not as_json:
        from pipeline.summary import budget_advice

        typer.echo(f"hint: {over} puzzle{'' if over == 1 else 's'} ran out of the node budget "
                   f"({options.max_nodes:,} nodes); {budget_advice(options.rules, run=False)}", err=True)
    unrated = sum(result.status == "unique" and result.boxsize == 3 and result.se is None
                  for result in results) if options.measured("se") else 0
    if unrated and not as_json:
        typer.echo(f"hint: {unrated} puzzle{'' if unrated == 1 else 's'} went over the SE work "
                   f"budget ({options.se_budget:,} chain steps): no se; raise --se-budget",
                   err=True)
    if explain and options.measured("se"):
        _show_se_paths(texts, results, implementation)
    elif explain:
        _show_paths(texts, results, options)
    invalid = any(result.status == "invalid" for result in results)
    if invalid and len(texts) == 1 and not as_json:  # else its line says so
        return Ending(error=f"not a puzzle: {results[0].error}", failed=True)
    return Ending(failed=invalid,
                  unsolved=any(result.first_solution is None for result in results))


def _show_paths(texts: list[str], results: list, options) -> None:
    """Each graded puzzle's path up the ladder (``solver.explain``), a heading per rung, each
    step printed as it is found (so that Ctrl-C, which may come minutes in, stops after the
    steps shown)."""
    import solver

    for text, result in zip(texts, results, strict=True):
        if result.status == "invalid":
            continue
        typer.echo(f"\nthe ladder (SPEC 5.1), up to {options.grade_limit}: {text}")
        if not result.grade:
            typer.echo(f"no grade: the puzzle is {result.status} (SPEC 5.1 grades puzzles "
                       "with a solution)")
            continue
        rung = None
        for step in solver.explain(text, options):
            if not step.text.startswith("grade: ") and step.rung != rung:
                rung = step.rung
                typer.echo(f"{rung}:")
            typer.echo(step.text if step.text.startswith("grade: ") else f"  {step.text}")
            sys.stdout.flush()


def _show_se_paths(texts: list[str], results: list, implementation: str) -> None:
    """Each unique 9 x 9 puzzle's Sudoku Explainer path (``solver.se_path``, SPEC 5.4): a line
    per hint as it is found (so that Ctrl-C stops after the hints shown), then ER/EP/ED as
    serate prints them. No work budget: the path runs to its end."""
    import solver
    from solver.reference.se import Difficulties

    for text, result in zip(texts, results, strict=True):
        if result.status == "invalid":
            continue
        typer.echo(f"\nthe Sudoku Explainer path (SPEC 5.4): {text}")
        if result.status != "unique" or result.boxsize != 3:
            n = result.boxsize**2
            what = result.status if result.boxsize == 3 else f"{n} x {n}"
            typer.echo(f"no SE rating: the puzzle is {what} (SPEC 5.4 rates unique 9 x 9 "
                       "puzzles)")
            continue
        found = Difficulties()
        for hint in solver.se_path(text, implementation=implementation):
            typer.echo(hint.text)
            sys.stdout.flush()
            found.step(hint)
        typer.echo(found.text())


def _puzzles_given(arguments: list[str] | None) -> list[str]:
    """The puzzles named on the command line, or read from standard input (one per line;
    empty lines and lines starting with # are skipped)."""
    if arguments and arguments != ["-"]:
        return arguments
    lines = [line.rstrip("\r\n") for line in sys.stdin]
    puzzles = [line for line in lines if line.strip() and not line.startswith("#")]
    if not puzzles:
        raise PipelineError("no puzzle given: name one or more, or pipe them in, one per line")
    return puzzles


def _show_one(text: str, result, alphabet: str) -> None:
    """One puzzle as the seeds show grids (``put``, at its size), then its statistics and
    solution line; ``alphabet``: the puzzle's symbols ("" for the default ones)."""
    from solver.grid import strip_line_ending, symbols
    from solver.reference.bird import put, read_mat

    if result.status == "invalid":
        return
    written = symbols(result.boxsize, alphabet)
    typer.echo("puzzle:")
    typer.echo(put(read_mat(written.normal(strip_line_ending(text))), blanks="."))
    if result.first_solution is not None:
        typer.echo("first solution:")
        typer.echo(put(read_mat(result.first_solution), blanks="."))
    typer.echo(format_result(result))


def format_result(result) -> str:
    """The statistics of one ``solver.Result`` as aligned lines."""
    capped = " (capped: there may be more)" if result.solutions_capped else ""
    lines = [
        ("status", result.status + (f": {result.error}" if result.error else "")),
        ("givens", result.givens),
        ("solutions", f"{result.n_solutions}{capped}"),
        ("prune-solvable", result.prune_solvable),
        ("singles-solvable", result.singles_solvable),
        ("search depth", result.search_depth),
        ("search nodes", f"{result.search_nodes:,}"),
        ("time", f"{result.solve_us:,.0f} us"),
        ("solution", result.first_solution or "-"),
        ("grade", result.grade or "-"),
    ]
    measured = [("rating", result.rating), ("backdoor size", result.backdoor_size),
                ("se (ER/EP/ED)", None if result.se is None
                 else f"{result.se:.1f}/{result.se_ep:.1f}/{result.se_ed:.1f}"),
                ("se techniques", None if result.se_techniques is None
                 else ", ".join(f"{name} {count}" for name, count in
                                result.se_techniques.items())),
                ("canonical", result.canonical)]
    lines += [(name, value) for name, value in measured if value is not None]
    return "\n".join(f"{name + ':':18s}{value}" for name, value in lines)


# --- solve-dataset ----------------------------------------------------------------------


@command("solve-dataset")
@with_settings(SETTING_NAMES)
def solve_dataset_command(
    inputs: Annotated[
        list[str],
        typer.Argument(
            help="Input files (.csv, .csv.gz, .parquet, .txt) or directories of them; "
            "paths or fsspec URLs (s3://bucket/puzzles.csv).",
            show_default=False,
        ),
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output", "-o", help="Output directory for the Parquet parts: a path or a URL."
        ),
    ] = "output",
    config: Annotated[
        list[Path] | None,
        typer.Option(help="TOML settings file (see configs/default.toml); options override it. "
                     "Given more than once, each file overrides the ones before it."),
    ] = None,
    **overrides: Any,
) -> Ending:
    """Solve every puzzle of the inputs into an output directory of Parquet parts (with the
    run's manifest and summary), and print the summary.

    A run that was stopped (Ctrl-C, killed, out of time or disk) continues where it stopped
    when the same command is run again: finished parts are kept.

    Exit codes: 0 done, 2 an error (one line), 3 incomplete but resumable (time limit, or
    batches that kept failing: the rows missing are named), 130 interrupted (Ctrl-C),
    143 terminated (SIGTERM).

    Example:

    \b
        sudoku-pipeline solve-dataset data/sample.csv --output output --workers 2
    """

    def solve(settings: Settings):
        from pipeline.run import solve_dataset

        return solve_dataset(inputs, output, settings)

    return _run(output, overrides, lambda: (load_settings(config, **overrides),), solve, "solve")


def _run(output: str, overrides: dict[str, Any], load, run, verb: str) -> Ending | None:
    """A command that writes a run into ``output``: ``run(*load())`` (``load`` returns the
    ``Settings`` first), its summary printed (unless quiet), also when the run is incomplete;
    a stop (Ctrl-C, SIGTERM) says how to continue."""
    quiet = bool(overrides.get("quiet"))
    signal.signal(signal.SIGTERM, _raise_terminated)
    _show_warnings()
    try:
        from pipeline.summary import format_summary

        loaded = load()
        quiet = loaded[0].quiet
        summary = run(*loaded)
    except RunIncomplete as err:
        if err.summary is not None and not quiet:
            typer.echo(format_summary(err.summary))
        raise
    except KeyboardInterrupt as stop:
        again = "the same command without --overwrite" if overrides.get("overwrite") else (
            "the same command")
        return _stopped(stop, f"; finished parts are kept in {output}; rerun {again} to continue")
    if quiet:
        return None
    if summary.nothing_solved:
        typer.echo(f"nothing to {verb}: {output} holds this run already, complete (add "
                   f"--overwrite to {verb} it again); its summary:\n")
    typer.echo(format_summary(summary))
    return None


# --- generate ---------------------------------------------------------------------------


@command("generate")
@with_settings(GENERATE_SETTINGS)
def generate_command(
    output: Annotated[
        str, typer.Option("--output", "-o", help="Output directory for the Parquet parts: a "
                          "path or a URL.")
    ] = "generated",
    config: Annotated[
        list[Path] | None,
        typer.Option(help="TOML settings file (see configs/generate.toml); options override "
                     "it. Given more than once, each file overrides the ones before it."),
    ] = None,
    **overrides: Any,
) -> Ending:
    """Generate new puzzles (SPEC section 8) into an output directory, as a run: Parquet parts
    with the columns puzzle, solution and draw and every result column of solve-dataset, the
    run's manifest and summary; then print the summary.

    Every puzzle has exactly one solution, is minimal (unless --no-minimal), has a grade of
    --grade and, with --distinct, differs up to symmetry from every other. The same seed gives
    the same puzzles whatever --workers, --batch-size, --engine or stops and resumes: a stopped
    run continues when the same command is run again.

    Exit codes: 0 done, 2 an error (one line), 3 incomplete but resumable (--max-draws or the
    time limit reached: the message says how many were kept), 130 interrupted (Ctrl-C),
    143 terminated (SIGTERM).

    Example:

    \b
        sudoku-pipeline generate --count 1000 --seed 7 --output generated
        sudoku-pipeline generate --count 100 --grade subsets --symmetry rotate180 --distinct
    """
    def generate(settings: Settings, generation):
        from pipeline.generate import generate_dataset

        return generate_dataset(output, settings, generation)

    return _run(output, overrides, lambda: load_generation(config, **overrides), generate,
                "generate")


RunDirectory = Annotated[
    str, typer.Argument(help="Output directory (path or URL) of a solve-dataset run.")
]


# --- summarize --------------------------------------------------------------------------


@command("summarize")
def summarize_command(
    directory: RunDirectory = "output",
    write: Annotated[
        bool, typer.Option("--write", help="Also store it in DIRECTORY (_summary.parquet).")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON (SPEC section 4).")
    ] = False,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Print the numbers per value of this column instead (an input "
                     "column such as level, or source, status, grade): statuses, the ladders, "
                     "search_nodes and rating percentiles, backdoor sizes. Rows whose input "
                     "lacks the column are grouped by input file.", show_default=False),
    ] = None,
    duplicates: Annotated[
        bool, typer.Option("--duplicates", help="Print the duplicates instead: exact, and up to "
                           "symmetry (with canonical forms): which inputs share puzzles, and "
                           "the largest classes.")
    ] = False,
    hardest: Annotated[
        int | None,
        typer.Option("--hardest", help="Print the N hardest unique or solved puzzles instead "
                     "(highest rating, then most search nodes), each as one line; with --by, "
                     "the N hardest of each group.",
                     show_default=False, min=1),
    ] = None,
) -> Ending:
    """Recompute the summary of a run from its manifest and Parquet parts, and print it.

    Exit code 0 for a complete run, 3 when rows are missing (the run stopped, or batches
    kept failing: the same solve-dataset command finishes it), 2 for an error, 130
    interrupted (Ctrl-C).

    Example:

    \b
        sudoku-pipeline summarize output
        sudoku-pipeline summarize output --json | jq .ladder
        sudoku-pipeline summarize output --by level
        sudoku-pipeline summarize output --duplicates
        sudoku-pipeline summarize output --hardest 10
        sudoku-pipeline summarize output --by source --hardest 3
    """
    views = [name for name, chosen in (("--by", by is not None), ("--duplicates", duplicates),
                                       ("--hardest", hardest is not None)) if chosen]
    if len(views) > 1 and views != ["--by", "--hardest"]:
        raise PipelineError(f"{' and '.join(views)} print different tables: give one of them "
                            "(--by and --hardest go together: the hardest of each group)")
    if views and write:
        raise PipelineError(f"--write stores the whole run's summary: run it without {views[0]}")
    if by is not None and hardest is not None:
        return _summarize_hardest_by(directory, by, hardest, as_json)
    if by is not None:
        return _summarize_by(directory, by, as_json)
    if views:
        return _summarize_view(directory, hardest, as_json)
    from pipeline.summary import format_summary, incomplete_message, summarize

    summary = summarize(directory, write=write)
    typer.echo(summary.to_json() if as_json else format_summary(summary))
    if not summary.complete:
        return Ending(error=incomplete_message(summary), incomplete=True)
    return Ending()


def _summarize_view(directory: str, hardest: int | None, as_json: bool) -> Ending:
    """``summarize --duplicates`` (``hardest`` None) or ``--hardest N``."""
    from pipeline import summary as summaries
    from pipeline.storage import location

    run, _ = summaries.run_parts(location(directory))
    labels = summaries.input_labels(run.paths)
    if hardest is None:
        found, complete = summaries.duplicates_in(directory)
        text = (json.dumps({kind: dup.to_dict() for kind, dup in found.items()}, indent=2)
                if as_json else summaries.format_duplicates(found, labels))
    else:
        hards, _, complete = summaries.hardest_in(directory, hardest)
        text = (json.dumps([vars(hard) for hard in hards], indent=2) if as_json
                else summaries.format_hardest(hards, labels,
                                              se="se" in run.settings.measures))
    typer.echo(text)
    if not complete:
        return Ending(error=f"the run in {directory} is incomplete: this counts only the rows "
                      f"solved so far; {summaries.finish_advice(run.command)}", incomplete=True)
    return Ending()


def _summarize_hardest_by(directory: str, column: str, count: int, as_json: bool) -> Ending:
    """``summarize --by COLUMN --hardest N``: the N hardest puzzles of each group."""
    from pipeline import summary as summaries
    from pipeline.storage import location

    run, _ = summaries.run_parts(location(directory))
    groups, complete = summaries.hardest_by(directory, column, count)
    typer.echo(json.dumps({name: [vars(hard) for hard in hards] for name, hards in groups.items()},
                          indent=2) if as_json
               else summaries.format_hardest_by(groups, column, summaries.input_labels(run.paths),
                                                se="se" in run.settings.measures))
    if not complete:
        return Ending(error=f"the run in {directory} is incomplete: this counts only the rows "
                      f"solved so far; {summaries.finish_advice(run.command)}", incomplete=True)
    return Ending()


def _summarize_by(directory: str, column: str, as_json: bool) -> Ending:
    from pipeline.summary import finish_advice, format_groups, summarize_by

    grouped = summarize_by(directory, column)
    typer.echo(json.dumps(grouped.to_dict(), indent=2) if as_json else format_groups(grouped))
    if not grouped.complete:
        return Ending(error=f"the run in {directory} is incomplete: these numbers count only the "
                      f"rows solved so far; {finish_advice(grouped.command)}", incomplete=True)
    return Ending()


# --- report -----------------------------------------------------------------------------


@command("report")
def report_command(
    directory: RunDirectory = "output",
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", help="The HTML file to write (outside DIRECTORY, which "
                     "holds only Parquet). Default: DIRECTORY.html, beside it.", show_default=False),
    ] = None,
    by: Annotated[
        str, typer.Option("--by", help="Group the rows by this column (source, or an input "
                          "column such as level); rows whose input lacks it by input file.")
    ] = "source",
) -> Ending:
    """Write a report of a run as one HTML file that opens offline (charts as inline SVG):
    statuses, the grade ladder and search effort per group, rating and backdoor size, search
    depth, givens against effort, the 20 hardest puzzles as grids, invalid rows, duplicates,
    and the run's settings, versions and inputs.

    Exit code 0, or 3 when the run is incomplete (the report is written, with a banner saying
    how many rows are missing), 2 for an error, 130 interrupted (Ctrl-C).

    Example:

    \b
        sudoku-pipeline report output                 # writes output.html
        sudoku-pipeline report radcliffe-run --by level -o radcliffe.html
    """
    from pipeline.report import write_report
    from pipeline.summary import incomplete_message

    written, summary = write_report(directory, output, by=by)
    typer.echo(f"report written to {written}")
    if not summary.complete:
        return Ending(error=incomplete_message(summary) + " (the report counts the rows solved so "
                      "far)", incomplete=True)
    return Ending()


class _Warnings(logging.Handler):
    """The library's warnings (a worker that died, a setting a continued run keeps) on stderr,
    one line each."""

    def emit(self, record: logging.LogRecord) -> None:
        typer.echo(f"warning: {record.getMessage()}", err=True)


def _show_warnings() -> None:
    logger = logging.getLogger("pipeline")
    if not any(isinstance(handler, _Warnings) for handler in logger.handlers):
        logger.addHandler(_Warnings())


def main() -> None:
    """Console entry point of ``sudoku-pipeline``."""
    try:
        app()
        code = 0
    except SystemExit as done:
        code = done.code
    if not isinstance(code, int):  # sys.exit("message") or sys.exit(None)
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    # Every output file is closed by now. Skip the interpreter's teardown, which spends about
    # 0.3 s unloading the compiled solver: a tenth of a million-puzzle run.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:  # e.g. stdout piped into `head`, which has exited
            pass
    os._exit(code)
