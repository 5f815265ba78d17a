"""The JSON Schemas of the file formats (committed under ``schemas/`` and diff-tested).

The schemas describe the files as they are written: the models' own schemas, with the
shorthands the models accept before validation put back in (a bare card name for a
permanent, ``{declare_blockers: {...}}`` for an action, ``flying`` or ``{landwalk: island}``
for an ability, a bare word for a quality).
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic.json_schema import models_json_schema

from bridge.model.cards import ABILITY_SCHEMA, Card, Quality, StaticAbility
from bridge.model.scenario import Scenario

__all__ = ["card_schema", "scenario_schema"]

_REF = "#/$defs/{model}"


def _quality_input(defs: dict[str, Any]) -> None:
    """A quality may be a bare word (a color, card type, supertype or subtype)."""
    quality = defs["Quality"]
    defs["Quality"] = {
        "anyOf": [{"type": "string"}, {k: v for k, v in quality.items() if k != "title"}],
        "title": "Quality",
        "description": quality.get("description", ""),
    }


def _ability_input(defs: dict[str, Any]) -> None:
    """Abilities as card files write them; static abilities' filters as flat mappings."""
    quality_props = defs["Quality"]["anyOf"][1]["properties"]
    defs["Ability"] = {**copy.deepcopy(ABILITY_SCHEMA), "title": "Ability"}
    for name in ("StaticAbility", "Effect", "EffectSpec"):
        if name in defs:
            for key in ("grant", "impose", "remove"):
                if key in defs[name]["properties"]:
                    defs[name]["properties"][key] = {"type": "array", "items": {"$ref": _REF.format(model="Ability")}}
    if "Affects" in defs:
        defs["Affects"] = {
            "type": "object",
            "additionalProperties": False,
            "title": "Affects",
            "description": "a filter: quality keys, controller (you or opponent) and other",
            "properties": {**quality_props, "controller": {"enum": ["you", "opponent"]}, "other": {"type": "boolean"}},
        }


def _target_input(defs: dict[str, Any]) -> None:
    """A target may be a word (creature, player, creature_or_player, spell, ...) or a flat
    mapping of quality keys with controller, attacking, blocking and spell."""
    if "TargetSpec" not in defs:
        return
    target = defs["TargetSpec"]
    quality_props = defs["Quality"]["anyOf"][1]["properties"]
    flat = {
        "type": "object",
        "additionalProperties": False,
        "properties": {**quality_props, **target["properties"], "spell": {"type": "boolean"}},
    }
    defs["TargetSpec"] = {
        "anyOf": [{"type": "string"}, flat],
        "title": "TargetSpec",
        "description": target.get("description", ""),
    }


def card_schema() -> dict[str, Any]:
    """The JSON Schema of a card file."""
    _, defs = models_json_schema(
        [(Card, "validation"), (Quality, "validation"), (StaticAbility, "validation")], ref_template=_REF
    )
    definitions = defs["$defs"]
    schema = dict(definitions.pop("Card"))
    schema["properties"] = dict(schema["properties"])
    schema["properties"]["abilities"] = {**schema["properties"]["abilities"], "items": ABILITY_SCHEMA}
    _quality_input(definitions)
    _ability_input(definitions)
    _target_input(definitions)
    # a flip card's flipped side is a card too (its "flip" field refers back to it)
    definitions["Card"] = {k: copy.deepcopy(v) for k, v in schema.items() if k != "title"}
    schema["$defs"] = definitions
    schema["title"] = "mtgasp card"
    return schema


def _referenced_card_defs(defs: dict[str, Any]) -> None:
    """The definitions of the card format that the abilities refer to (a static ability
    granted by an effect) and the scenario's own models don't define."""
    import json
    import re

    cards = card_schema()["$defs"]
    while True:
        missing = set(re.findall(r'"#/\$defs/(\w+)"', json.dumps(defs))) - set(defs)
        if not missing:
            return
        for name in missing:
            defs[name] = copy.deepcopy(cards[name])


def _name_or(definition: dict[str, Any]) -> dict[str, Any]:
    return {
        "anyOf": [
            {"type": "string", "description": "a card name"},
            {k: v for k, v in definition.items() if k != "title"},
        ],
        "title": definition.get("title", ""),
        "description": definition.get("description", ""),
    }


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file."""
    schema = Scenario.model_json_schema(ref_template=_REF)
    defs = schema["$defs"]
    defs["Permanent"] = _name_or(defs["Permanent"])
    defs["CardRef"] = _name_or(defs["CardRef"])
    if "Quality" in defs:
        _quality_input(defs)
        _ability_input(defs)
        _referenced_card_defs(defs)
    actions = []
    for name, field in (
        ("DeclareAttackers", "attackers"),
        ("DeclareBlockers", "blockers"),
        ("OrderBlockers", "orders"),
        ("OrderAttackers", "orders"),
        ("AssignDamage", "assignments"),
        ("RemoveFromCombat", "objects"),
    ):
        model = defs.pop(name)
        kind = model["properties"]["kind"]["const"]
        props = {kind: model["properties"][field]}
        props.update({k: v for k, v in model["properties"].items() if k not in ("kind", field)})
        actions.append(
            {
                "type": "object",
                "title": name,
                "description": model.get("description", ""),
                "properties": props,
                "required": [kind],
                "additionalProperties": False,
            }
        )
    # a blocker blocks one attacker (a name) or several (a list)
    actions[1]["properties"]["declare_blockers"]["additionalProperties"] = {
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    }
    # one object (a string) or several
    actions[5]["properties"]["remove_from_combat"] = {
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]
    }
    defs.pop("StateBasedActions", None)
    actions.append(
        {
            "const": "sba",
            "title": "StateBasedActions",
            "description": "perform state-based actions until none apply (CR 704.3)",
        }
    )
    # actions written as {name: {fields}} (CR 601, 602, 305, 115, 702.34d)
    for name, shorthand in (
        ("Cast", None),
        ("Activate", None),
        ("PlayLand", "card"),
        ("TurnFaceUp", "permanent"),
        ("Advance", "step"),
        ("ChooseOrder", None),
        ("ChooseTargets", None),
        ("AnswerOffer", None),
        ("OrderTriggers", None),
    ):
        model = defs.pop(name)
        kind = model["properties"]["kind"]["const"]
        body = {
            "type": "object",
            "additionalProperties": False,
            "properties": {k: v for k, v in model["properties"].items() if k != "kind"},
            "required": [r for r in model.get("required", []) if r != "kind"],
        }
        if shorthand is not None:
            body = {"anyOf": [model["properties"][shorthand], body]}
        actions.append(
            {
                "type": "object",
                "title": name,
                "description": model.get("description", ""),
                "properties": {kind: body},
                "required": [kind],
                "additionalProperties": False,
            }
        )
    defs.pop("Concede", None)
    actions.append(
        {
            "type": "object",
            "title": "Concede",
            "description": "this player concedes (CR 104.3a)",
            "properties": {"concede": {"type": "string"}},
            "required": ["concede"],
            "additionalProperties": False,
        }
    )
    defs.pop("Pass", None)
    actions.append({"const": "pass", "title": "Pass", "description": "the player with priority passes (CR 115.3d)"})
    actions.append(
        {
            "type": "object",
            "title": "PassBy",
            "description": "this player, who has priority, passes",
            "properties": {"pass": {"type": "string"}},
            "required": ["pass"],
            "additionalProperties": False,
        }
    )
    defs.pop("NextStep", None)
    actions.append(
        {
            "const": "next_step",
            "title": "NextStep",
            "description": "end the step; the next step of combat begins (CR 506.1, 508.6, 510.5, 511.3)",
        }
    )
    schema["properties"]["do"] = {"type": "array", "title": "Do", "items": {"oneOf": actions}}
    schema["title"] = "mtgasp scenario"
    return schema
