"""The committed JSON Schemas are the ones the models generate."""

import json
from pathlib import Path

from bridge.schemas import card_schema, scenario_schema

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
    assert {"DeclareAttackers", "DeclareBlockers", "OrderBlockers", "OrderAttackers", "GameState"} <= set(defs)
    assert defs["Permanent"]["additionalProperties"] is False
