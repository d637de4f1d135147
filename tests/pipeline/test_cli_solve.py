"""`sudoku-pipeline solve PUZZLE`: one puzzle, shown as seed 002's grids, with its statistics."""

from __future__ import annotations

import json

import pytest
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
    reference = runner.invoke(app, ["solve", HUTTON["gentle"], "--implementation", "reference"])
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


def test_solve_prints_the_solution_line():
    result = runner.invoke(app, ["solve", HUTTON["easy"]])
    solution = [line for line in result.output.splitlines() if line.startswith("solution:")]
    assert solution == ["solution:         249571638861432975573986142725698413698143257314725869"
                        "937814526152369784486257391"]


def test_several_puzzles_give_one_line_each_and_stdin_works_too():
    puzzles = [HUTTON["easy"], "55" + "." * 79, HUTTON["gentle"]]
    given = runner.invoke(app, ["solve", *puzzles])
    piped = runner.invoke(app, ["solve"], input="# a comment\n" + "\n".join(puzzles) + "\n\n")
    assert given.exit_code == piped.exit_code == 1  # one of them has no solution
    assert given.output == piped.output
    lines = given.output.splitlines()
    assert len(lines) == 3 and len(lines[0]) == len(lines[2]) == 81
    assert lines[1] == "contradictory: digit 5 twice in row 1"


def test_json_lines_carry_every_field():
    result = runner.invoke(app, ["solve", "--json", "-"], input=HUTTON["minimal"] + "\n")
    assert result.exit_code == 0
    record = json.loads(result.output)
    assert record["puzzle"] == HUTTON["minimal"]
    assert (record["status"], record["givens"], record["n_solutions"]) == ("unique", 17, 1)
    assert len(record["first_solution"]) == 81


def test_nothing_to_solve_is_one_line():
    result = runner.invoke(app, ["solve"], input="")
    assert result.exit_code == 2
    assert result.output.startswith("error: no puzzle given")


@pytest.mark.slow
def test_explain_prints_as_it_goes_and_stops_on_ctrl_c():
    """Issue 29.7: --explain built its whole path before printing (a forum-hardest puzzle:
    nothing after 10 minutes). Each step is printed as it is found, and Ctrl-C stops it."""
    import select
    import signal
    import time

    from tests import runs

    hardest = "1.......2..34...5..6....7......3..4....5.6.....894.....2....1..7.......6..5.8..9."
    process = runs.start([str(runs.BIN / "sudoku-pipeline"), "solve", "--explain", hardest])
    lines, deadline = [], time.monotonic() + 60
    while not any(line.startswith("  ") for line in lines) and time.monotonic() < deadline:
        if select.select([process.stdout], [], [], 1)[0]:
            lines.append(process.stdout.readline())
    assert any(line.startswith("  ") for line in lines), lines  # a step, long before the end
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130 and stderr.strip().endswith("error: interrupted"), stderr


def test_a_puzzle_past_the_budget_says_what_to_try():
    """Issue 33.6: solve of hexadoku's hard1 under Bird's rules ended budget_exceeded with no
    hint that --rules singles solves it in 35 nodes."""
    from pathlib import Path

    published = Path(__file__).resolve().parents[2] / "data" / "hexadoku.csv"
    hard = next(line.split(",")[1] for line in published.read_text().splitlines()
                if line.startswith("hard1,"))
    options = ["--boxsize", "4", "--alphabet", "0123456789ABCDEF"]
    done = runner.invoke(app, ["solve", *options, "--max-nodes", "100000", hard])
    assert done.exit_code == 1 and "budget_exceeded" in done.stdout
    assert done.stderr.startswith("hint: 1 puzzle ran out of the node budget (100,000 nodes); "
                                  "--rules singles")
    assert "search nodes:     35" in runner.invoke(app, ["solve", *options, "--rules", "singles",
                                                         hard]).stdout
