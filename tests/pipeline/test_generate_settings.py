"""``generate``'s settings (SPEC 8): one-line errors for bad ones, every setting an option and in
the sample config, the symmetries for every box size, and the shape of the rows it writes."""

from __future__ import annotations

import tomllib

import pyarrow as pa
import pytest

from pipeline.generate_work import Draws, draw_table
from pipeline.settings import GENERATE_SETTINGS, load_generation
from solver.compiled.generate import orbits
from solver.vocabulary import GRADES, SYMMETRIES
from tests.conftest import ROOT

# --- bad settings: one line, exit 2 ----------------------------------------------------------


@pytest.mark.parametrize(("options", "words"), [
    (["--grade", "hardest"], "setting grade may name " + ", ".join(GRADES)),
    (["--symmetry", "rotate45"], "setting symmetry must be one of " + ", ".join(SYMMETRIES)),
    (["--count", "0"], "setting count must be a whole number from 1"),
    (["--distinct", "--boxsize", "4", "--rules", "singles"],
     "not for box size 4; leave out --distinct"),
    (["--count", "10", "--max-draws", "9"], "max_draws (9) is below count (10)"),
    (["--boxsize", "auto"], "give --boxsize 2, 3, 4 or 5 (not auto)"),
    (["--max-solutions", "1"], "max_solutions must be 2 or more"),
], ids=["grade", "symmetry", "count", "distinct", "max-draws", "boxsize", "max-solutions"])
def test_bad_settings_are_one_line_errors(tmp_path, cli, options, words):
    result = cli("generate", "-o", tmp_path / "out", *options)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert words in result.stderr, result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert not (tmp_path / "out").exists()


def test_every_symmetry_applies_to_every_box_size():
    """So no symmetry is wrong for a size: each maps the cells of any N x N grid onto
    themselves, and its orbits cover every cell once."""
    for boxsize in (2, 3, 4, 5):
        for symmetry in SYMMETRIES:
            cells = orbits(boxsize, symmetry)
            found = sorted(int(c) for c in cells.ravel() if c >= 0)
            assert found == list(range(boxsize**4))


def test_generate_settings_are_options_and_in_the_sample_config(cli):
    help_text = cli("generate", "--help").stdout
    for name in GENERATE_SETTINGS:
        assert "--" + name.replace("_", "-") in help_text, name
    assert "--minimal / --no-minimal" in help_text
    config = tomllib.loads((ROOT / "configs" / "generate.toml").read_text())
    assert set(config) <= set(GENERATE_SETTINGS)
    load_generation(ROOT / "configs" / "generate.toml")
    assert "--count" not in cli("solve-dataset", "--help").stdout


def test_a_generate_setting_in_a_solve_dataset_config_is_named(tmp_path, cli, euler_txt):
    config = tmp_path / "c.toml"
    config.write_text("count = 5\n")
    result = cli("solve-dataset", euler_txt, "-o", tmp_path / "out", "--config", config)
    assert result.exit_code == 2 and "'count' (a setting of generate)" in result.stderr


def test_rows_are_a_table_with_puzzle_solution_and_draw_first():
    table = draw_table(Draws(0, 2, "none", True), 3, 2)
    assert table.column_names == ["puzzle", "solution", "draw"]
    assert table.column("draw").to_pylist() == [3, 4]
    assert table.schema.field("draw").type == pa.int64()
