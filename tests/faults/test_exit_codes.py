"""Every command's endings and their exit codes, in one table run through typer's CliRunner: 0
done, 1 a puzzle without a solution (solve), 2 an expected failure, 3 a run incomplete but
resumable, 130 Ctrl-C, 143 SIGTERM; every code but 0 and 1 said in one line, ``error: ...``
(``pipeline.cli.Ending`` decides them, in one place)."""

from __future__ import annotations

import shutil
from itertools import takewhile

import pytest

from pipeline.cli import Terminated
from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from tests.conftest import DATA

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
NO_SOLUTION = "55" + "." * 79  # contradictory givens
INPUT = DATA / "euler_mixed.txt"
VIEWS = [[], ["--by", "source"], ["--duplicates"], ["--hardest", "2"]]  # summarize's tables

# The command line ({complete} and {incomplete}: the runs of the fixture; {new}: a directory
# not there yet; {missing}: a path that is not there), and its exit code.
ENDINGS = [
    (["solve", EASY], 0),
    (["solve", NO_SOLUTION], 1),
    (["solve", EASY, NO_SOLUTION], 1),
    (["solve", "123"], 2),
    (["solve", "123", NO_SOLUTION], 2),
    (["solve", EASY, "--prune", "twice"], 2),
    (["solve-dataset", INPUT, "-o", "{new}", "--workers", "1", "-q"], 0),
    (["solve-dataset", INPUT, "-o", "{new}", "--workers", "1", "-q", "--batch-size", "2",
      "--time-limit", "1e-9"], 3),
    (["solve-dataset", "{missing}", "-o", "{new}"], 2),
    (["generate", "-o", "{new}", "--count", "2", "--seed", "1", "--workers", "1", "-q"], 0),
    (["generate", "-o", "{new}", "--count", "5", "--max-draws", "5", "--grade", "search",
      "--seed", "1", "--workers", "1", "-q"], 3),
    (["generate", "-o", "{new}", "--count", "5", "--max-draws", "4"], 2),
    *[(["summarize", "{complete}", *view], 0) for view in VIEWS],
    *[(["summarize", "{incomplete}", *view], 3) for view in VIEWS],
    *[(["summarize", "{missing}", *view], 2) for view in VIEWS],
    (["summarize", "{complete}", "--duplicates", "--write"], 2),
    (["report", "{complete}", "-o", "{new}.html"], 0),
    (["report", "{incomplete}", "-o", "{new}.html"], 3),
    (["report", "{missing}"], 2),
]

# A command line, and the library function it spends its time in (where a stop lands).
WORK = [
    (["solve", EASY], "solver.solve_strings"),
    (["solve", EASY, "--explain"], "solver.explain"),
    (["solve-dataset", INPUT, "-o", "{new}"], "pipeline.run.solve_dataset"),
    (["generate", "-o", "{new}"], "pipeline.generate.generate_dataset"),
    (["summarize", "{complete}"], "pipeline.summary.summarize"),
    (["summarize", "{complete}", "--by", "source"], "pipeline.summary.summarize_by"),
    (["summarize", "{complete}", "--duplicates"], "pipeline.summary.duplicates_in"),
    (["summarize", "{complete}", "--hardest", "2"], "pipeline.summary.hardest_in"),
    (["report", "{complete}", "-o", "{new}.html"], "pipeline.report.write_report"),
]
RUNS = [(args, function) for args, function in WORK if args[0] in ("solve-dataset", "generate")]


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict[str, str]:
    """A complete run, and the same run with a part deleted (incomplete)."""
    base = tmp_path_factory.mktemp("endings")
    complete, incomplete = base / "complete", base / "incomplete"
    solve_dataset([INPUT], complete, load_settings(workers=1, batch_size=3), progress=False)
    shutil.copytree(complete, incomplete)
    (incomplete / "part-00000-000001.parquet").unlink()
    return {"complete": str(complete), "incomplete": str(incomplete),
            "missing": str(base / "missing")}


def _line(args: list, places: dict[str, str], new: str) -> list[str]:
    """The command line ``args`` with its places filled in."""
    return [str(arg).format(new=new, **places) for arg in args]


def _shown(value) -> str:
    """A test's id: a command line as typed, or a function's name."""
    return " ".join(map(str, value)) if isinstance(value, list) else str(value)


def _said_in_one_line(result) -> bool:
    return result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")


@pytest.mark.parametrize(("args", "code"), ENDINGS, ids=_shown)
def test_every_ending_of_every_command_has_its_exit_code(cli, places, tmp_path, args, code):
    result = cli(*_line(args, places, str(tmp_path / "new")))
    assert result.exit_code == code, (result.stdout, result.stderr)
    if code > 1 and not _several_puzzles(args):
        assert _said_in_one_line(result), result.stderr
    else:  # done, a puzzle without a solution, or several puzzles: each line says how it ended
        assert result.stderr == "", result.stderr
    assert "Traceback" not in result.output


def _several_puzzles(args: list) -> bool:
    """Whether ``args`` solve several puzzles (named before any option, in this table)."""
    return args[0] == "solve" and len(list(takewhile(lambda arg: arg[0] != "-", args[1:]))) > 1


def _stopping(monkeypatch, function: str, stop: type[KeyboardInterrupt]) -> None:
    """Make ``function`` (module.name) stop as Ctrl-C or SIGTERM would, when it is called."""
    def stopped(*args, **kwargs):
        raise stop()

    monkeypatch.setattr(function, stopped)


@pytest.mark.parametrize(("args", "function"), WORK, ids=_shown)
def test_ctrl_c_ends_every_command_with_130(cli, places, tmp_path, monkeypatch, args, function):
    _stopping(monkeypatch, function, KeyboardInterrupt)
    result = cli(*_line(args, places, str(tmp_path / "new")))
    assert result.exit_code == 130, (result.stdout, result.stderr)
    assert _said_in_one_line(result) and result.stderr.startswith("error: interrupted")


@pytest.mark.parametrize(("args", "function"), RUNS, ids=_shown)
def test_sigterm_ends_a_run_with_143_and_how_to_continue(cli, places, tmp_path, monkeypatch,
                                                         args, function):
    _stopping(monkeypatch, function, Terminated)
    result = cli(*_line(args, places, str(tmp_path / "new")))
    assert result.exit_code == 143, (result.stdout, result.stderr)
    assert _said_in_one_line(result) and "rerun the same command to continue" in result.stderr
    assert result.stderr.startswith("error: terminated (SIGTERM); finished parts are kept in ")
