"""The ``sudoku-pipeline`` command: thin Typer wrappers over the library.

Each command parses its options, calls one library function and turns a
``PipelineError`` into one line on stderr and exit code 2. Heavy modules (pyarrow,
numba, the solver) are imported inside the commands, so ``--help`` is quick.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from pipeline.errors import PipelineError, RunIncomplete

app = typer.Typer(
    name="sudoku-pipeline",
    help="Solve and classify whole datasets of Sudoku puzzles with Richard Bird's algorithm.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _fail(message: str, code: int = EXIT_USAGE) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


# --- solve: one puzzle ------------------------------------------------------------------


@app.command("solve")
def solve_command(
    puzzle: Annotated[str, typer.Argument(help="81 cells: digits 1-9, blanks . 0 space - _")],
    max_solutions: Annotated[
        int, typer.Option(help="Stop after this many solutions (1 means: any one).")
    ] = 2,
    max_nodes: Annotated[
        int, typer.Option(help="Node budget; 0 means the solver's default (5,000,000).")
    ] = 0,
    prune: Annotated[str, typer.Option(help="fixpoint or once.")] = "fixpoint",
    cell: Annotated[str, typer.Option(help="smallest or first.")] = "smallest",
    rules: Annotated[str, typer.Option(help="bird or singles.")] = "bird",
    engine: Annotated[
        str, typer.Option(help="fast (numba) or reference (Bird's equations, literally).")
    ] = "fast",
) -> None:
    """Solve one puzzle: print it and its first solution as grids, and the search statistics.

    Exit code 0 when a solution was found, 1 when none was (unsolvable, contradictory givens,
    or the node budget ran out), 2 when the puzzle is not 81 valid cells.

    Example:

        sudoku-pipeline solve \\
          ..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..
    """
    import solver
    from solver.bird import put, read_mat
    from solver.grid import strip_line_ending

    try:
        result = solver.solve(
            puzzle,
            max_solutions=max_solutions,
            max_nodes=max_nodes or solver.DEFAULT_MAX_NODES,
            prune=prune,
            cell=cell,
            rules=rules,
            engine=engine,
        )
    except ValueError as err:
        raise _fail(str(err)) from None
    if result.status == "invalid":
        raise _fail(f"not a puzzle: {result.error}")
    typer.echo("puzzle:")
    typer.echo(put(read_mat(strip_line_ending(puzzle))))
    if result.first_solution is not None:
        typer.echo("first solution:")
        typer.echo(put(read_mat(result.first_solution)))
    typer.echo(format_result(result))
    if result.first_solution is None:
        raise typer.Exit(1)


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
    ]
    return "\n".join(f"{name + ':':18s}{value}" for name, value in lines)


# --- solve-dataset ----------------------------------------------------------------------


@app.command("solve-dataset")
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
        Path | None,
        typer.Option(help="TOML settings file (see configs/default.toml); options override it."),
    ] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes; 0 means all cores.")] = None,
    batch_size: Annotated[
        int | None, typer.Option(help="Rows per batch, i.e. per Parquet part.")
    ] = None,
    max_solutions: Annotated[
        int | None, typer.Option(help="Stop counting solutions at this many (1: find any one).")
    ] = None,
    max_nodes: Annotated[
        int | None, typer.Option(help="Search nodes per puzzle before budget_exceeded.")
    ] = None,
    prune: Annotated[str | None, typer.Option(help="fixpoint or once.")] = None,
    cell: Annotated[str | None, typer.Option(help="smallest or first.")] = None,
    rules: Annotated[str | None, typer.Option(help="bird or singles (adds hidden singles).")] = None,
    column: Annotated[
        str | None, typer.Option(help="Puzzle column (default: found by name, e.g. puzzle).")
    ] = None,
    solution_column: Annotated[
        str | None, typer.Option(help="Published-solution column (default: solution(s)).")
    ] = None,
    compression: Annotated[
        str | None, typer.Option(help="Parquet compression: zstd, snappy, lz4, gzip, none.")
    ] = None,
    engine: Annotated[
        str | None, typer.Option(help="Where to run: local (process pool) or dask (a Dask cluster).")
    ] = None,
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Engine dask: scheduler address, e.g. tcp://HOST:8786; "
            "without it a LocalCluster of --workers processes runs on this machine."
        ),
    ] = None,
    time_limit: Annotated[
        float | None,
        typer.Option(
            help="Seconds; then no new batch starts and the run stops with exit code 3, "
            "resumable. 0 means no limit."
        ),
    ] = None,
    overwrite: Annotated[
        bool | None,
        typer.Option(
            "--overwrite",
            help="Replace a previous run in the output directory (without it, the same run "
            "is continued and another is refused).",
        ),
    ] = None,
    quiet: Annotated[
        bool | None, typer.Option("--quiet", "-q", help="No progress bar, no summary table.")
    ] = None,
) -> None:
    """Solve every puzzle of the inputs into Parquet parts plus summary.json, and print
    the summary.

    A run that was stopped (Ctrl-C, killed, out of time or disk) continues where it stopped
    when the same command is run again: finished parts are kept.
    Exit codes: 0 done, 2 an error (one line), 3 incomplete but resumable (time limit, or
    batches that kept failing: the rows missing are named), 130 interrupted.

    Example:

        sudoku-pipeline solve-dataset data/sample.csv --output output --workers 2
    """
    try:
        from pipeline.run import solve_dataset
        from pipeline.settings import load_settings
        from pipeline.summary import format_summary

        settings = load_settings(
            config,
            workers=workers,
            batch_size=batch_size,
            max_solutions=max_solutions,
            max_nodes=max_nodes,
            prune=prune,
            cell=cell,
            rules=rules,
            column=column,
            solution_column=solution_column,
            compression=compression,
            engine=engine,
            scheduler=scheduler,
            time_limit=time_limit,
            overwrite=overwrite,
            quiet=quiet,
        )
        summary = solve_dataset(inputs, output, settings)
    except RunIncomplete as err:
        if err.summary is not None and not settings.quiet:
            typer.echo(format_summary(err.summary))
        raise _fail(str(err), err.exit_code) from None
    except PipelineError as err:
        raise _fail(str(err)) from None
    except KeyboardInterrupt:
        again = "the same command without --overwrite" if overwrite else "the same command"
        raise _fail(
            f"interrupted; finished parts are kept in {output}; rerun {again} to continue",
            EXIT_INTERRUPTED,
        ) from None
    if not settings.quiet:
        typer.echo(format_summary(summary))


# --- summarize --------------------------------------------------------------------------


@app.command("summarize")
def summarize_command(
    directory: Annotated[
        str, typer.Argument(help="Output directory (path or URL) of a solve-dataset run.")
    ] = "output",
    write: Annotated[
        bool, typer.Option("--write/--no-write", help="Also rewrite DIRECTORY/summary.json.")
    ] = False,
) -> None:
    """Recompute the summary of a run from its Parquet parts and print it.

    Example:

        sudoku-pipeline summarize output
    """
    try:
        from pipeline.summary import format_summary, summarize, write_summary

        summary = summarize(directory)
        if write:
            write_summary(directory, summary)
    except PipelineError as err:
        raise _fail(str(err)) from None
    typer.echo(format_summary(summary))


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
