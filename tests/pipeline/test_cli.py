"""The ``sudoku-pipeline`` command: happy paths, and every expected failure as one line + exit 2."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.summary import read_summary

EASY = "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3.."
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("command", ["solve", "solve-dataset", "summarize"])
def test_every_command_has_help_with_an_example(cli, command):
    result = cli(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout and f"sudoku-pipeline {command}" in result.stdout


def test_solve_dataset_prints_the_summary(cli, tmp_path, sample_csv):
    out = tmp_path / "out"
    result = cli("solve-dataset", sample_csv, "--output", out, "--workers", "2")
    assert result.exit_code == 0, result.stderr
    assert "199 rows in, 199 rows out" in result.stdout
    for word in ("invalid", "contradictory", "unsolvable", "unique", "multiple", "p50", "wall"):
        assert word in result.stdout
    summary = read_summary(out)
    assert (summary.rows_in, summary.rows_out) == (199, 199) and summary.workers == 2
    assert result.stderr == ""  # no progress bar when stderr is not a terminal


def test_config_file_and_overrides(cli, tmp_path, euler_txt):
    fast = Path(__file__).resolve().parents[2] / "configs" / "fast.toml"
    out = tmp_path / "out"
    result = cli(
        "solve-dataset",
        euler_txt,
        "-o",
        out,
        "--config",
        fast,
        "--quiet",
        "--max-nodes",
        "77",
        "--batch-size",
        "3",
        "--workers",
        "1",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""  # --quiet: no summary table either
    settings = read_summary(out).settings
    assert (settings.rules, settings.max_nodes, settings.batch_size) == ("singles", 77, 3)
    assert len(list(out.glob("part-*.parquet"))) == 3


def test_summarize(cli, tmp_path, kaggle_csv):
    out = tmp_path / "out"
    assert cli("solve-dataset", kaggle_csv, "-o", out, "-q").exit_code == 0
    result = cli("summarize", out)
    assert result.exit_code == 0
    assert "20 rows in, 20 rows out" in result.stdout and "20 solutions match" in result.stdout


def test_solve_one_puzzle(cli):
    result = cli("solve", EASY)
    assert result.exit_code == 0
    assert "|483|921|657|" in result.stdout and "unique" in result.stdout


def bad_inputs(tmp: Path) -> dict[str, tuple[list, str]]:
    """Each expected failure: the arguments after ``solve-dataset`` and a word of its message."""
    (tmp / "notes.json").write_text("{}")
    (tmp / "empty.csv").write_text("")
    (tmp / "header.csv").write_text("puzzle\n")
    (tmp / "nopuzzle.csv").write_text("a,b\n1,2\n")
    (tmp / "broken.parquet").write_bytes(b"PAR1 not really")
    (tmp / "broken.csv.gz").write_bytes(gzip.compress(b"puzzle\n" + b"1" * 81 + b"\n")[:-12])
    (tmp / "latin1.txt").write_bytes("\u00e9".encode("latin-1") * 81 + b"\n")
    pq.write_table(pa.table({"puzzle": [1]}), tmp / "numbers.parquet")
    (tmp / "ok.txt").write_text(EASY + "\n")
    (tmp / "taken").mkdir()
    (tmp / "taken" / "_summary.parquet").write_bytes(b"PAR1 a summary without its run")
    (tmp / "bad.toml").write_text("wokers = 2\n")
    ok = tmp / "ok.txt"
    return {
        "missing file": ([tmp / "nope.csv"], "input not found"),
        "unknown format": ([tmp / "notes.json"], "unknown input format"),
        "empty file": ([tmp / "empty.csv"], "is empty"),
        "header only": ([tmp / "header.csv"], "no rows"),
        "no puzzle column": ([tmp / "nopuzzle.csv"], "no puzzle column"),
        "named column missing": ([tmp / "nopuzzle.csv", "--column", "quiz"], "no column 'quiz'"),
        "corrupt parquet": ([tmp / "broken.parquet"], "not a readable Parquet file"),
        "truncated gzip": ([tmp / "broken.csv.gz"], "cannot read"),
        "not utf-8": ([tmp / "latin1.txt"], "not UTF-8"),
        "numeric puzzles": ([tmp / "numbers.parquet"], "not text"),
        "existing output": ([ok, "-o", tmp / "taken"], "--overwrite"),
        "bad setting": ([ok, "--prune", "sometimes"], "prune must be one of"),
        "bad workers": ([ok, "--workers", "-2"], "workers must be"),
        "bad config": ([ok, "--config", tmp / "bad.toml"], "unknown setting 'wokers'"),
        "missing config": ([ok, "--config", tmp / "nope.toml"], "config file not found"),
    }


CASES = [
    "missing file",
    "unknown format",
    "empty file",
    "header only",
    "no puzzle column",
    "named column missing",
    "corrupt parquet",
    "truncated gzip",
    "not utf-8",
    "numeric puzzles",
    "existing output",
    "bad setting",
    "bad workers",
    "bad config",
    "missing config",
]


@pytest.mark.parametrize("case", CASES)
def test_expected_failures_are_one_line_and_exit_2(cli, tmp_path, case):
    args, words = bad_inputs(tmp_path)[case]
    if "-o" not in args:
        args = [*args, "-o", tmp_path / "out"]
    result = cli("solve-dataset", *args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert words in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_summarize_without_a_run(cli, tmp_path):
    for directory in (tmp_path / "nope", tmp_path):
        result = cli("summarize", directory)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1


def test_the_console_script_for_real(tmp_path, sample_csv, cli):
    """One real process of the installed `sudoku-pipeline` command, pool and all."""
    out = tmp_path / "out"
    env = {**os.environ, "COLUMNS": "100"}
    run = subprocess.run(
        [
            BIN / "sudoku-pipeline",
            "solve-dataset",
            sample_csv,
            "-o",
            out,
            "--workers",
            "2",
            "--batch-size",
            "40",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "199 rows in, 199 rows out" in run.stdout
    assert len(list(out.glob("part-*.parquet"))) == 5
    # The same command again, in this process (a process of its own costs a second or two).
    again = cli("solve-dataset", sample_csv, "-o", out)  # another batch size: the same rows
    assert again.exit_code == 0 and "nothing to solve" in again.stdout, again.stderr
    other = cli("solve-dataset", sample_csv, "-o", out, "--rules", "singles")  # other rows
    assert other.exit_code == 2
    assert other.stderr.startswith("error: output directory") and other.stderr.count("\n") == 1


def test_python_dash_m_pipeline(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pipeline", "solve-dataset", tmp_path / "missing.txt"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2
    assert run.stderr == f"error: input not found: {tmp_path / 'missing.txt'} (check the path)\n"


def test_version_and_plain_help(cli):
    from pipeline import __version__

    assert cli("--version").stdout == f"sudoku-pipeline {__version__}\n"
    text = cli("solve-dataset", "--help").stdout
    assert "<bool>" not in text  # flags take no value
    assert "  --overwrite  " in text or "  --overwrite\n" in text


def test_bare_make_prints_help():
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(["make", "-s"], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "make solve-dataset" in done.stdout and "make test" in done.stdout
