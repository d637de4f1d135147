"""`sudoku-pipeline solve PUZZLE`: one puzzle, shown as seed 002's grids, with its statistics."""

from __future__ import annotations

from typer.testing import CliRunner

from pipeline.cli import app
from tests.solver_cases import HUTTON

runner = CliRunner()


def test_solve_prints_puzzle_solution_and_statistics():
    result = runner.invoke(app, ["solve", HUTTON["easy"]])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "puzzle:" and lines[2] == "|2  |  1| 38|"
    assert "first solution:" in lines
    assert "|249|571|638|" in lines
    assert "status:           unique" in lines
    assert "search nodes:     1" in lines


def test_solve_reference_engine_gives_the_same_statistics():
    fast = runner.invoke(app, ["solve", HUTTON["gentle"]]).output.splitlines()
    reference = runner.invoke(app, ["solve", HUTTON["gentle"], "--engine", "reference"])
    assert reference.exit_code == 0
    strip_time = [line for line in fast if not line.startswith("time:")]
    assert strip_time == [line for line in reference.output.splitlines()
                          if not line.startswith("time:")]


def test_invalid_puzzle_gives_the_spec_message_and_exit_2():
    result = runner.invoke(app, ["solve", "1234"])
    assert result.exit_code == 2
    assert result.output.strip() == "error: not a puzzle: expected 81 cells, got 4"


def test_bad_option_is_one_line_and_exit_2():
    result = runner.invoke(app, ["solve", HUTTON["easy"], "--prune", "twice"])
    assert result.exit_code == 2
    assert "prune must be one of fixpoint, once" in result.output


def test_no_solution_exits_1():
    result = runner.invoke(app, ["solve", "55" + "." * 79])
    assert result.exit_code == 1
    assert "status:           contradictory: digit 5 twice in row 1" in result.output
