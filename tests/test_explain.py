"""Explanations of characteristics: the path through the layers, as data and as text."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.explain import explain
from bridge.engine.game import Game

ROOT = Path(__file__).resolve().parent.parent
HUMILITY = ROOT / "scenarios/layers/humility_opalescence/humility_later_than_opalescence_everything_1_1.yaml"
MOON = ROOT / "scenarios/layers/dependency/urborg_then_blood_moon_no_land_is_a_swamp.yaml"


def test_steps_in_layer_order_with_sublayers() -> None:
    game = Game.from_scenario(HUMILITY)
    e = explain(game, "humility")
    assert [s.layer for s in e.steps] == ["4", "6", "7b", "7b"]
    assert e.steps[0].added == {"type": ("creature",)}
    assert [s.timestamp for s in e.steps[2:]] == [10, 20]
    assert e.power_toughness["7e"] == (1, 1)
    assert (e.final.power, e.final.toughness) == (1, 1)


def test_dependency_is_named() -> None:
    e = explain(Game.from_scenario(MOON), "urborg")
    (step,) = e.steps
    assert step.layer == "4" and step.added["subtype"] == ("mountain",)
    assert step.awaited_by and "Urborg" in step.awaited_by[0]


def test_cli_explains_an_object() -> None:
    result = CliRunner().invoke(main, ["explain", str(MOON), "--object", "urborg"])
    assert result.exit_code == 0
    assert "layer 4: Blood Moon (moon)'s static ability (timestamp 20)" in result.output
    assert "which depends on it (613.7)" in result.output
    bad = CliRunner().invoke(main, ["explain", str(MOON), "--object", "nothing"])
    assert bad.exit_code == 2 and "no permanent has the id 'nothing'" in bad.output


CRAW_WURM = ROOT / "scenarios/combat/damage/example_510_1c_craw_wurm_assigns_3_to_wall.yaml"
TRAMPLE = ROOT / "scenarios/combat/damage/example_702_17b_protection_does_not_excuse_lethal.yaml"


def test_damage_choices_of_the_craw_wurm_example() -> None:
    from bridge.engine.explain import explain_damage

    choices = {c.creature: c for c in explain_damage(Game.from_scenario(CRAW_WURM))}
    wurm = choices["wurm"]
    assert wurm.power == 6 and wurm.recipients == ("wall", "cadet")
    assert wurm.lethal == {"wall": 3, "cadet": 1}
    assert not wurm.free_division and not wurm.trample
    assert sorted(a["wall"] for a in wurm.legal) == [3, 4, 5, 6]
    assert "wall" not in choices  # 0 power assigns no combat damage (510.1a)


def test_cli_shows_legal_assignments_and_why_one_is_illegal() -> None:
    result = CliRunner().invoke(main, ["explain", str(TRAMPLE)])
    assert result.exit_code == 0
    assert "tramples over once each blocker has lethal damage (702.17b)" in result.output
    assert "5 legal assignment(s)" in result.output
    assert "2 to Grizzly Bears (bears), 4 to bob" in result.output
    assert "do[0] assign_damage: illegal" in result.output
    assert "702.17b / 510.1" in result.output
    only = CliRunner().invoke(main, ["explain", str(CRAW_WURM), "--damage"])
    assert only.exit_code == 0 and "4 legal assignment(s)" in only.output and "do[0]" not in only.output
