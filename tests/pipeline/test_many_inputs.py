"""Datasets split into many files (issue 22.1): the run record is kept once, in the manifest,
and a part carries only what identifies it, so the output and the memory of a run, its resume
and summarize grow with the rows, not with the inputs times the parts."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.run import solve_dataset
from pipeline.settings import load_settings
from pipeline.summary import summarize
from tests import runs
from tests.conftest import DATA

PUZZLES = [line.split(",")[0] for line in (DATA / "kaggle_20.csv").read_text().splitlines()[1:]]


def write_inputs(directory: Path, count: int, rows: int = 2) -> Path:
    """``count`` text files of ``rows`` puzzles each, in ``directory``."""
    directory.mkdir(parents=True)
    for index in range(count):
        lines = [PUZZLES[(index + k) % len(PUZZLES)] for k in range(rows)]
        (directory / f"day-{index:05d}.txt").write_text("\n".join(lines) + "\n")
    return directory


def footer_bytes(part: Path) -> int:
    return pq.read_metadata(part).serialized_size


def test_a_parts_footer_does_not_grow_with_the_number_of_inputs(tmp_path):
    few = write_inputs(tmp_path / "few", 2)
    many = write_inputs(tmp_path / "many", 100)  # a record of each in a footer: 8 kB and more
    settings = load_settings(workers=2, batch_size=10)
    solve_dataset([few], tmp_path / "out-few", settings, progress=False)
    summary = solve_dataset([many], tmp_path / "out-many", settings, progress=False)
    assert summary.complete and summary.rows_out == 200 and summary.parts == 100
    first_few = sorted((tmp_path / "out-few").glob("part-*.parquet"))[0]
    first_many = sorted((tmp_path / "out-many").glob("part-*.parquet"))[0]
    assert footer_bytes(first_many) - footer_bytes(first_few) < 64  # the paths differ a little
    # The schema alone is about 15 kB (se_techniques holds 39 leaf columns); a record of each of
    # the 100 inputs would add 8 kB and more.
    assert footer_bytes(first_many) < 20_000
    # Resume and summarize read the footers of every part: they still see one run.
    for part in sorted((tmp_path / "out-many").glob("part-*.parquet"))[::7]:
        part.unlink()
    again = solve_dataset([many], tmp_path / "out-many", settings, progress=False)
    assert again.complete and again.resumed_rows == 200 - 2 * 15
    assert summarize(tmp_path / "out-many").numbers == summary.numbers


@pytest.mark.slow
def test_twenty_thousand_small_files_run_in_bounded_memory(tmp_path):
    """20,000 files of 2 rows: every process of the run, and summarize, stays under 400 MiB
    (the footers held 20,000 inputs each before: the resume of 5,000 peaked at 3.6 GB)."""
    inputs = write_inputs(tmp_path / "days", 20_000)
    out = tmp_path / "out"
    for command in (runs.command(inputs, out, "--workers", "2", "-q"),
                    [str(Path(sys.executable).parent / "sudoku-pipeline"), "summarize", str(out)]):
        code, peak_mib, stderr = runs.measured(command, timeout=1200)
        assert code == 0, stderr
        assert peak_mib < 400, f"{command[1]}: peak {peak_mib} MiB"
    assert sum(1 for _ in out.glob("part-*.parquet")) == 20_000
