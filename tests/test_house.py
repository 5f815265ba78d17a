"""The house rules of the code hold on the whole tree: ruff finds nothing to say and nothing to
reformat, and mypy finds no error in the bridge (with the checks pyproject.toml sets, strict
for every module).  Each tool runs as the command line runs it, from the repository root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_tool(*command: str) -> subprocess.CompletedProcess[str]:
    """``python -m <tool> ...`` from the repository root, its output kept."""
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def test_ruff_finds_nothing_to_fix() -> None:
    result = run_tool("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_finds_nothing_to_reformat() -> None:
    result = run_tool("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_no_error_in_the_bridge() -> None:
    result = run_tool("mypy")  # the packages pyproject.toml names
    assert result.returncode == 0, result.stdout + result.stderr
