"""Imports point one way between the tools around the product (DESIGN section 2).

``scripts/`` (launcher, demo, data generation, benchmarks) and ``tests/`` never import
each other: what both need lives in ``runstack/``, which imports neither. Neither
``scripts/`` nor ``runstack/`` imports ``sim/``: they reach the simulated systems over
HTTP, as any client does. Every import statement counts, module-level or inside a
function; a test runs a script as a program (``python -m scripts.stack``), never by
importing it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from runstack.processes import ROOT

RULES = {
    "scripts": {"tests", "sim"},
    "runstack": {"tests", "scripts", "sim"},
    "tests": {"scripts"},
}


def imported(path: Path) -> set[str]:
    """The top-level package of every absolute import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("package", sorted(RULES))
def test_no_import_against_the_direction(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no Python files under {package}/"
    wrong = {
        str(path.relative_to(ROOT)): sorted(imported(path) & RULES[package])
        for path in files
        if imported(path) & RULES[package]
    }
    assert wrong == {}, f"{package}/ must not import {sorted(RULES[package])}"


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import os\n\ndef f():\n    from tests.e2e import agents_stack\n    import sim.erp\n",
        encoding="utf-8",
    )
    assert imported(module) == {"os", "tests", "sim"}
