"""A scenario's expectations must depend on its actions.

For every scenario with actions, two mutants are run: one with all its actions removed and
one with its last action removed (for a single action the two are the same).  A mutant that
still passes "survives": the scenario would not notice if its actions never happened.  A
mutant whose run raises an input error (an expectation naming an object its actions would
have made) is killed.
"""

from __future__ import annotations

from pathlib import Path

from bridge.io.scenarios import run_scenario
from bridge.model.errors import InputError
from bridge.model.scenario import Scenario, load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").rglob("*.yaml"))

# the share of action scenarios allowed a surviving mutant
MAX_SURVIVING_SHARE = 0.05


def mutants(scenario: Scenario) -> list[tuple[str, Scenario]]:
    """The scenario without its actions, and (with two or more) without its last action."""
    found = [("no actions", scenario.model_copy(update={"do": []}))]
    if len(scenario.do) > 1:
        found.append(("last action removed", scenario.model_copy(update={"do": scenario.do[:-1]})))
    return found


def survives(mutant: Scenario, path: str) -> bool:
    """Does the mutant still pass?"""
    try:
        return run_scenario(mutant, path).passed
    except InputError:
        return False


def test_mutants_of_action_scenarios_mostly_fail() -> None:
    with_actions = 0
    survivors: list[str] = []
    for path in SCENARIOS:
        scenario = load_scenario(path)
        if not scenario.do:
            continue
        with_actions += 1
        alive = [name for name, mutant in mutants(scenario) if survives(mutant, str(path))]
        if alive:
            survivors.append(f"{path.relative_to(ROOT)} ({', '.join(alive)})")
    assert with_actions, "no scenario has actions"
    share = len(survivors) / with_actions
    assert share <= MAX_SURVIVING_SHARE, (
        f"{len(survivors)} of {with_actions} action scenarios ({share:.1%}, at most "
        f"{MAX_SURVIVING_SHARE:.0%} allowed) still pass with their actions removed; give each an "
        f"expectation that depends on its actions:\n" + "\n".join(survivors)
    )


def _flyer_block_scenario(expect: dict) -> Scenario:
    return Scenario.model_validate(
        {
            "title": "A creature that can't block a flyer blocks it",
            "cite": ["509.1b"],
            "state": {
                "active": "alice",
                "step": "declare_blockers",
                "players": [
                    {"name": "alice", "battlefield": [{"id": "angel", "card": "Serra Angel", "attacking": "bob"}]},
                    {"name": "bob", "battlefield": [{"id": "bears", "card": "Grizzly Bears"}]},
                ],
            },
            "do": [{"declare_blockers": {"bears": "angel"}}],
            "expect": expect,
        }
    )


def test_an_illegal_action_fails_a_scenario_that_does_not_expect_it() -> None:
    result = run_scenario(_flyer_block_scenario({"life": {"bob": 20}}))
    assert not result.passed
    assert result.difference is not None
    assert "do[0] (declare_blockers)" in result.difference and "702.9b" in result.difference


def test_an_illegal_action_passes_a_scenario_that_expects_legal_false() -> None:
    assert run_scenario(_flyer_block_scenario({"legal": False, "violations": ["702.9b"]})).passed
    result = run_scenario(_flyer_block_scenario({"legal": True}))
    assert not result.passed and "expected true" in (result.difference or "")


def test_mutants_of_one_action_are_one() -> None:
    scenario = _flyer_block_scenario({"legal": False})
    assert [name for name, _ in mutants(scenario)] == ["no actions"]
    assert mutants(scenario)[0][1].do == []
