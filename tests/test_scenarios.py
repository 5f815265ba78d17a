"""Every scenario file runs as a test and must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.scenario import load_scenario, run_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[str(p.relative_to(ROOT / "scenarios")) for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    result = run_scenario(load_scenario(path), str(path))
    assert result.passed, result.difference


def test_scenarios_cite_rules_and_are_many() -> None:
    combat = [p for p in SCENARIOS if "combat" in p.parts]
    assert len(combat) >= 1
    for path in SCENARIOS:
        assert load_scenario(path).cite, path
