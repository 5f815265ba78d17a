"""Explanations of characteristics: the path through the layers, as data and as text."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from bridge.cli import main
from bridge.explain import explain
from bridge.game import Game

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
