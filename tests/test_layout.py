"""The bridge's layout holds: its subpackages import only the layers below them, the engine's and
the model's modules only those below them in their order, and no modules form a cycle (the
contracts in pyproject.toml, checked by import-linter; bridge/README.md draws them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lint_imports(*args: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-c",
        "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
        *args,
    ]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_import_contracts_are_kept() -> None:
    result = lint_imports("--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_a_broken_layer_is_found(tmp_path: Path) -> None:
    # the same contracts on a copy of the package whose model imports the engine
    copy = tmp_path / "bridge"
    subprocess.run(["cp", "-r", str(ROOT / "bridge"), str(copy)], check=True)
    (copy / "model" / "paths.py").write_text(
        (copy / "model" / "paths.py").read_text() + "\nfrom bridge.engine import solver  # noqa\n"
    )
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    command = [
        sys.executable,
        "-c",
        "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
        "--no-cache",
    ]
    result = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "bridge.model.paths -> bridge.engine.solver" in result.stdout
