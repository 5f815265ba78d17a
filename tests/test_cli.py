"""The mtgasp command: check, explain, blocks, attacks, schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main

ROOT = Path(__file__).resolve().parent.parent
LURE = str(ROOT / "scenarios" / "combat" / "block" / "lure_all_able_must_block.yaml")


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_check_passes_and_summarizes() -> None:
    result = run("check", LURE)
    assert result.exit_code == 0
    assert result.output.strip().endswith("1 passed, 0 failed")


def test_check_a_folder() -> None:
    result = run("check", "-q", str(ROOT / "scenarios" / "combat" / "order"))
    assert result.exit_code == 0
    assert "FAIL" not in result.output


def test_explain_names_rule_creatures_and_reason() -> None:
    result = run("explain", LURE)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[1] == "do[0] declare_blockers: illegal"
    assert lines[2].strip().startswith("509.1c  [Grizzly Bears (cub), Craw Wurm (wurm)]")
    assert "must block Craw Wurm (wurm)" in lines[2]


def test_blocks_lists_and_counts() -> None:
    listed = run("blocks", LURE)
    assert listed.exit_code == 0
    assert listed.output.splitlines() == [
        "Grizzly Bears (cub) blocks Craw Wurm (wurm); Llanowar Elves (elves) blocks Craw Wurm (wurm)",
        "1 legal declaration(s)",
    ]
    assert run("blocks", "--count", LURE).output.strip() == "1"


def test_attacks_count(tmp_path: Path) -> None:
    path = tmp_path / "two_bears.yaml"
    path.write_text(
        "title: t\ncite: ['508.1a']\nstate:\n  active: alice\n  step: declare_attackers\n"
        "  players:\n    - {name: alice, battlefield: [Grizzly Bears, Grizzly Bears]}\n"
        "    - {name: bob, battlefield: [Jace Beleren]}\n"
    )
    assert run("attacks", "--count", str(path)).output.strip() == "9"
    listed = run("attacks", str(path)).output.splitlines()
    assert "no attackers" in listed and listed[-1] == "9 legal declaration(s)"


def test_schema_is_json() -> None:
    scenario = json.loads(run("schema").output)
    cards = json.loads(run("schema", "--cards").output)
    assert scenario["title"] == "mtgasp scenario" and cards["title"] == "mtgasp card"


def test_check_reports_an_engine_failure_with_its_file_and_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    import bridge.cli as cli

    real = cli.run_scenario
    broken = "bolt_kills_a_creature.yaml"

    def run(scenario, path):  # type: ignore[no-untyped-def]
        if path.endswith(broken):
            raise RuntimeError("a fault planted by the test")
        return real(scenario, path)

    monkeypatch.setattr(cli, "run_scenario", run)
    folder = ROOT / "scenarios" / "stack"
    result = CliRunner().invoke(
        cli.main, ["check", "-q", str(folder / broken), str(folder / "activated_ability_keeps_priority.yaml")]
    )
    assert result.exit_code == 1
    assert f"CRASH {folder / broken}: the engine failed (RuntimeError: a fault planted by the test)" in result.output
    assert "1 passed, 0 failed, 1 crashed the engine" in result.output


def test_every_command_takes_a_time_limit() -> None:
    lacking = [
        name
        for name, command in main.commands.items()
        if "--time-limit" not in {opt for param in command.params for opt in getattr(param, "opts", [])}
    ]
    assert not lacking, lacking
