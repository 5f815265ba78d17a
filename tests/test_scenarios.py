"""Every scenario file runs as a test and must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.io.scenarios import run_scenario
from bridge.model.citations import rule_numbers
from bridge.model.paths import rules_text_file
from bridge.model.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=[str(p.relative_to(ROOT / "scenarios")) for p in SCENARIOS])
def test_scenario(path: Path) -> None:
    result = run_scenario(load_scenario(path), str(path))
    assert result.passed, result.difference


def test_scenarios_cite_rules_that_exist() -> None:
    path = rules_text_file()
    if path is None:
        pytest.skip("the rules text (shared/seeds/000_00f3c3315372eec8.txt beside the checkout) is absent")
    rules = rule_numbers(path.read_text(encoding="utf-8", errors="replace"))
    assert {"509.1c", "702.9b", "510.1c", "613.1f"} <= rules
    unknown = []
    for scenario_path in SCENARIOS:
        scenario = load_scenario(scenario_path)
        named = [*scenario.cite, *scenario.expect.violations]
        unknown += [f"{scenario_path.relative_to(ROOT)}: {rule}" for rule in named if rule not in rules]
    assert not unknown, "rules cited that the rules text doesn't have:\n" + "\n".join(unknown)


def test_rule_numbers_are_read_from_rule_lines_only() -> None:
    text = (
        "509 - Declare Blockers Step\n  509.1 - First, blockers.\n+ 509.1h - Changed rule.\n"
        "  509.5. - Fifth, priority.\n    Rule 509.1z in running text is no rule.\n"
    )
    assert rule_numbers(text) == {"509", "509.1", "509.1h", "509.5"}
