"""Installed from the distribution, not run from the checkout, every packaged module imports.

The packages pyproject.toml ships are copied out of the checkout, built and installed
with pip (no editable install, no dependencies: those of .venv serve) into a folder of
their own; a fresh interpreter outside the checkout then imports every module of that
folder and proves it came from there. A module that reaches into ``tests/`` or a file
that is not shipped fails here, as it would for anyone who installs the project.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from runstack.processes import ROOT

pytestmark = pytest.mark.integration

IMPORT_ALL = """
import importlib, json, sys
target = sys.argv[1]
failed = {}
for name in json.loads(sys.stdin.read()):
    try:
        module = importlib.import_module(name)
    except Exception as exc:  # report every failure, not just the first
        failed[name] = f"{type(exc).__name__}: {exc}"
        continue
    if not (module.__file__ or "").startswith(target):
        failed[name] = f"imported from {module.__file__}, not from the installed copy"
print(json.dumps(failed))
"""


def _shipped_source(dest: Path) -> Path:
    """The files the distribution is built from: pyproject.toml, the readme and the packages
    its ``include`` patterns name, copied to ``dest``."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    dest.mkdir()
    for name in ("pyproject.toml", pyproject["project"]["readme"]):
        shutil.copy2(ROOT / name, dest / name)
    for folder in sorted(p for p in ROOT.iterdir() if p.is_dir()):
        if (folder / "__init__.py").is_file() and any(
            fnmatch.fnmatch(folder.name, pat) for pat in patterns
        ):
            shutil.copytree(
                folder, dest / folder.name, ignore=shutil.ignore_patterns("__pycache__")
            )
    return dest


def _modules(site: Path) -> list[str]:
    """Every module of the installed packages, by dotted name."""
    names = []
    for package in sorted(p for p in site.iterdir() if (p / "__init__.py").is_file()):
        for path in sorted(package.rglob("*.py")):
            parts = path.relative_to(site).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_every_packaged_module_imports_from_an_installed_copy(tmp_path: Path) -> None:
    source = _shipped_source(tmp_path / "source")
    site = tmp_path / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-cache-dir", "--target", str(site), str(source)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr

    modules = _modules(site)
    # The launcher, the demo and the benchmarks with what they use are really in the wheel.
    for expected in ("runstack.agent_server", "scripts.bench.fixtures", "scripts.demo"):
        assert expected in modules, expected
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    checked = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, str(site)],
        input=json.dumps(modules), cwd=elsewhere, env=env,
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout.splitlines()[-1]) == {}
