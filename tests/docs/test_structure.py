"""The project's structure holds: the import layers, each setting declared once and named
wherever a user looks for it (--help, configs/default.toml, the settings table of the manual,
docs/usage.md), and the manual's table of result columns as pipeline/columns.py declares them."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pyarrow as pa
import pytest

from pipeline.settings import DECLARED, SETTING_NAMES, load_settings

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_the_import_layers_hold():
    """pyproject.toml's import-linter contracts (also run by `make lint`)."""
    linter = BIN / "lint-imports"
    if not linter.exists():
        pytest.skip("import-linter is not installed")
    done = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def compiled_functions_with_many_parameters(most: int = 7) -> list[str]:
    """The compiled functions of solver/ (decorated ``@compiled``) taking more than ``most``
    parameters, as ``path:line name count``."""
    found = []
    for path in sorted((ROOT / "solver").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.FunctionDef) and len(node.args.args) > most
                    and any("compiled" in ast.unparse(d) for d in node.decorator_list)):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} "
                             f"{len(node.args.args)}")
    return found


# The compiled SE chains (issue 31) landed with loose parameters; paid in records since, and
# held there.
SE_CHAINS = ("solver/compiled/se_chains.py:", "solver/compiled/se_inner.py:")


def test_compiled_functions_take_records():
    """Issue 30: arrays and limits travel as records (grid.Tables, options.Limits, a module's
    Work); at most 5 compiled functions anywhere take more than 7 parameters, and none of the
    SE chains."""
    many = compiled_functions_with_many_parameters()
    assert len(many) <= 5, many
    assert not [found for found in many if found.startswith(SE_CHAINS)], many


def test_every_setting_is_an_option_of_solve_dataset(cli):
    help_text = cli("solve-dataset", "--help").stdout
    for name in SETTING_NAMES:
        assert "--" + name.replace("_", "-") in help_text, name
    for name, declared in DECLARED.items():
        if declared.short:
            assert f"-{declared.short}" in help_text, name


def test_default_toml_names_every_setting_with_its_default():
    values = tomllib.loads((ROOT / "configs" / "default.toml").read_text())
    assert list(values) == list(SETTING_NAMES)
    assert load_settings(ROOT / "configs" / "default.toml") == load_settings()


USAGE = ROOT / "docs" / "usage.md"  # the manual's usage page: the settings and column tables


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` (a line "## heading"), up to the next section of its level."""
    assert f"\n{heading}\n" in text, heading
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_manual_settings_table_names_every_setting_and_its_option():
    section = _section(USAGE.read_text(), "## Settings")
    rows = re.findall(r"^\| `(\w+)` \| `(--[\w-]+)`", section, flags=re.MULTILINE)
    assert [name for name, _ in rows] == list(SETTING_NAMES)
    assert all(option == "--" + name.replace("_", "-") for name, option in rows)


def test_the_readme_points_at_the_settings_table():
    assert "docs/usage.md#settings" in (ROOT / "README.md").read_text()


def test_the_manual_column_table_is_the_table_of_result_columns():
    """docs/usage.md's output columns: every result column of pipeline/columns.py, in its order,
    with its Arrow type."""
    from pipeline.columns import RESULT_COLUMNS

    section = _section(USAGE.read_text(), "## Output")
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \|", section, flags=re.MULTILINE)
    assert [name for name, _ in rows] == [column.name for column in RESULT_COLUMNS]
    for (name, written), column in zip(rows, RESULT_COLUMNS, strict=True):
        # a struct's fields are listed in its meaning (se_techniques), not in the type cell
        expected = "struct" if column.type.id == pa.struct([]).id else str(column.type)
        assert written == expected, name


def test_the_spec_travels_with_the_project_whole():
    """docs/SPEC.md is the team's specification, every section of it (the README and the
    manual in docs/ cite sections 1 to 6); where the team's copy is at hand, it is that copy
    byte for byte."""
    spec = (ROOT / "docs" / "SPEC.md").read_text()
    for section in range(1, 7):
        assert re.search(rf"^## {section}\. ", spec, re.MULTILINE), f"section {section}"
    shared = ROOT.parent / "shared" / "SPEC.md"
    if shared.is_file():
        assert spec == shared.read_text()


def _example_inputs() -> list[tuple[str, str]]:
    """(document, path) for every input file an example command of the README and docs/ names:
    the words after ``solve-dataset`` up to its first option, and paths under data/."""
    found = []
    for document in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = document.read_text().replace("\\\n", " ")
        for line in text.splitlines():
            if "sudoku-pipeline solve-dataset " in line:
                words = line.split("sudoku-pipeline solve-dataset ", 1)[1].split()
                for word in words:
                    if word.startswith("-") or word == "#":
                        break
                    found.append((document.name, word.strip("`")))
            found += [(document.name, word.strip("`,.()")) for word in line.split()
                      if word.strip("`(").startswith("data/") and "*" not in word]
    return found


def test_every_example_reads_files_a_clone_has():
    """Issue 33.9: the README's examples read ../shared/datasets, which a clone does not have.
    Every input an example names is a file or folder of the project (URLs and the outputs of
    earlier examples aside)."""
    missing = [(document, path) for document, path in _example_inputs()
               if "://" not in path and not path.startswith(("$", "out", "sets", "generated"))
               and path not in ("PUZZLE",)
               and (path.startswith("..") or not (ROOT / path).exists())]  # ../shared: not a clone's
    assert not missing, missing


def test_the_distribution_holds_every_package():
    """``packages = ["solver", "pipeline"]`` left pipeline.engines and pipeline.read out of a
    built wheel (an editable install hid it): every folder of Python code is a package the
    build includes."""
    from fnmatch import fnmatch

    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    include = found["packages"]["find"]["include"]
    folders = {path.parent for top in ("solver", "pipeline") for path in (ROOT / top).rglob("*.py")
               if "__pycache__" not in path.parts}
    names = sorted(".".join(folder.relative_to(ROOT).parts) for folder in folders)
    assert names and all(any(fnmatch(name, pattern) for pattern in include) for name in names), names
