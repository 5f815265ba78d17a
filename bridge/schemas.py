"""The JSON Schemas of the file formats (committed under ``schemas/`` and diff-tested)."""

from __future__ import annotations

from typing import Any

from bridge.cards import Card
from bridge.models import Scenario

__all__ = ["scenario_schema", "card_schema"]


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (the model's, as validated after the YAML
    shorthands: bare card names, ``{declare_blockers: {...}}`` actions)."""
    schema = Scenario.model_json_schema()
    schema["title"] = "mtgasp scenario"
    return schema


def card_schema() -> dict[str, Any]:
    """The JSON Schema of a card file."""
    schema = Card.model_json_schema()
    schema["title"] = "mtgasp card"
    return schema
