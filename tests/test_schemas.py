"""The committed JSON Schemas are the ones the models generate."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from bridge.io.schemas import card_schema, scenario_schema

ROOT = Path(__file__).resolve().parent.parent


def test_scenario_schema_is_committed() -> None:
    committed = json.loads((ROOT / "schemas" / "scenario.schema.json").read_text())
    assert committed == scenario_schema(), "run: mtgasp schema > schemas/scenario.schema.json"


def test_card_schema_is_committed() -> None:
    committed = json.loads((ROOT / "schemas" / "card.schema.json").read_text())
    assert committed == card_schema(), "run: mtgasp schema --cards > schemas/card.schema.json"


def test_scenario_schema_describes_actions_and_state() -> None:
    schema = scenario_schema()
    defs = schema["$defs"]
    actions = {a["title"] for a in schema["properties"]["do"]["items"]["oneOf"]}
    assert actions == {
        "DeclareAttackers",
        "DeclareBlockers",
        "OrderBlockers",
        "OrderAttackers",
        "AssignDamage",
        "StateBasedActions",
        "RemoveFromCombat",
        "NextStep",
        "Cast",
        "Activate",
        "PlayLand",
        "TurnFaceUp",
        "Advance",
        "Pass",
        "PassBy",
        "Concede",
        "ChooseOrder",
        "ChooseTargets",
        "AnswerOffer",
        "OrderTriggers",
    }
    assert "GameState" in defs
    assert defs["Permanent"]["anyOf"][1]["additionalProperties"] is False


@pytest.mark.parametrize("kind, folder", [("card", "cards"), ("scenario", "scenarios")])
def test_every_file_follows_its_schema(kind: str, folder: str) -> None:
    schema = json.loads((ROOT / "schemas" / f"{kind}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted((ROOT / folder).rglob("*.yaml")):
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text())))
        assert not errors, f"{path}: {errors[0].message}"


def test_card_schema_rejects_unknown_keyword() -> None:
    validator = jsonschema.Draft202012Validator(card_schema())
    card = {"name": "X", "types": ["creature"], "power": 1, "toughness": 1, "abilities": ["flyng"]}
    assert list(validator.iter_errors(card))
    card["abilities"] = ["flying", {"landwalk": "island"}, {"protection": {"color": "black"}}]
    assert not list(validator.iter_errors(card))


def test_scenario_schema_takes_shorthands() -> None:
    validator = jsonschema.Draft202012Validator(scenario_schema())
    scenario = {
        "title": "t",
        "cite": ["509.1a"],
        "state": {"active": "a", "players": [{"name": "a", "battlefield": ["Grizzly Bears"]}, {"name": "b"}]},
        "do": [{"declare_blockers": {"x": "y", "z": ["y", "w"]}}],
    }
    assert not list(validator.iter_errors(scenario))
    scenario["do"] = [{"cast_spell": {}}]
    assert list(validator.iter_errors(scenario))
