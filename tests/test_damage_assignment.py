"""Assigning combat damage (CR 510.1): checks and the list of legal assignments."""

from __future__ import annotations

from pathlib import Path

from bridge.engine.game import Game
from bridge.model.actions import AssignDamage

ROOT = Path(__file__).resolve().parent.parent / "scenarios" / "combat" / "damage"


def test_craw_wurm_example_lists_exactly_four_assignments() -> None:
    game = Game.from_scenario(ROOT / "example_510_1c_craw_wurm_assigns_3_to_wall.yaml")
    options = game.legal_damage_assignments("wurm")
    normalized = sorted((a.get("wall", 0), a.get("cadet", 0)) for a in options)
    assert normalized == [(3, 3), (4, 2), (5, 1), (6, 0)]


def test_giant_growth_leaves_one_assignment() -> None:
    game = Game.from_scenario(ROOT / "example_510_1c_giant_growth_on_wall_takes_all_six.yaml")
    assert game.legal_damage_assignments("wurm") == [{"wall": 6}]


def test_other_attackers_damage_counts_toward_lethal() -> None:
    game = Game.from_scenario(ROOT / "example_510_1c_baloth_and_boars_share_the_brigade.yaml")
    shared = {"baloth": {"armodon": 1, "brigade": 1, "ape": 5}}
    assert game.check(AssignDamage(assignments={**shared, "boars": {"brigade": 3, "piker": 1}})).legal
    verdict = game.check(AssignDamage(assignments={**shared, "boars": {"brigade": 2, "piker": 2}}))
    assert not verdict.legal
    # with only 3 damage on the Brigade (1 + 2), neither attacker may go past it
    assert {(v.rule, v.objects) for v in verdict.violations} == {
        ("510.1c", ("baloth", "ape", "brigade")),
        ("510.1c", ("boars", "piker", "brigade")),
    }


def test_trample_lists_lethal_first() -> None:
    game = Game.from_scenario(ROOT / "trample_lethal_then_player.yaml")
    options = game.legal_damage_assignments("rhinos")
    assert {"bears": 2, "bob": 6} in options and {"bears": 8} in options
    assert all(a.get("bears", 0) >= 2 for a in options)
    assert len(options) == 7
