"""Settings: defaults, the TOML file, overrides, validation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import solver
from pipeline.errors import PipelineError
from pipeline.settings import available_cores, load_settings
from pipeline.summary import read_summary

ROOT = Path(__file__).resolve().parents[2]


def test_default_toml_is_the_built_in_defaults():
    assert load_settings(ROOT / "configs" / "default.toml") == load_settings()


def test_zero_means_all_cores_and_the_solver_budget():
    settings = load_settings()
    assert settings.workers == available_cores()
    assert settings.max_nodes == solver.DEFAULT_MAX_NODES


def test_fast_config_uses_hidden_singles():
    assert load_settings(ROOT / "configs" / "fast.toml").rules == "singles"


def test_overrides_beat_the_file_and_none_is_ignored(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('workers = 3\nrules = "singles"\nbatch_size = 10\n')
    settings = load_settings(config, workers=1, rules=None, max_nodes=99)
    assert (settings.workers, settings.rules, settings.batch_size) == (1, "singles", 10)
    assert settings.max_nodes == 99
    assert replace(settings, quiet=True).quiet  # frozen, but copyable


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"workers": -1}, "workers must be a whole number"),
        ({"batch_size": -1}, "batch_size must be a whole number from 0 .*0 means chosen"),
        ({"max_solutions": True}, "max_solutions must be a whole number"),
        ({"prune": "twice"}, "prune must be one of fixpoint, once"),
        ({"cell": "last"}, "cell must be one of"),
        ({"rules": "x-wing"}, "rules must be one of bird, singles"),
        ({"engine": "spark"}, "engine must be one of"),
        ({"compression": "brotli"}, "compression must be one of"),
        ({"overwrite": "yes"}, "overwrite must be true or false"),
        ({"column": 3}, "column must be a column name"),
    ],
)
def test_bad_values_are_named(overrides, message):
    with pytest.raises(PipelineError, match=message):
        load_settings(**overrides)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("workers = \n", "not valid TOML"),
        ("wokers = 2\n", "unknown setting 'wokers'"),
        ('batch_size = "big"\n', "batch_size must be a whole number"),
    ],
)
def test_bad_config_files(tmp_path, text, message):
    config = tmp_path / "c.toml"
    config.write_text(text)
    with pytest.raises(PipelineError, match=message):
        load_settings(config)


def test_missing_config_file(tmp_path):
    with pytest.raises(PipelineError, match="config file not found"):
        load_settings(tmp_path / "nope.toml")


def test_several_config_files_apply_in_order(tmp_path, cli, euler_txt):
    """--config twice: each file overrides the ones before it (the last alone was kept)."""
    first, second = tmp_path / "first.toml", tmp_path / "second.toml"
    first.write_text('rules = "singles"\nmax_nodes = 77\n')
    second.write_text("max_nodes = 99\nbatch_size = 4\n")
    chosen = load_settings([first, second])
    assert (chosen.rules, chosen.max_nodes, chosen.batch_size) == ("singles", 99, 4)
    out = tmp_path / "out"
    done = cli("solve-dataset", euler_txt, "-o", out, "-q", "--workers", "1",
               "--config", first, "--config", second)
    assert done.exit_code == 0, done.stderr
    settings = read_summary(out).settings
    assert (settings.rules, settings.max_nodes, settings.batch_size) == ("singles", 99, 4)
