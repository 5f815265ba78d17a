"""Scenario files: a position, the actions done in it, and what must then be true (the
format of scenarios/README.md), read with errors that name the file and the place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from bridge.model.actions import Action, action_from_yaml
from bridge.model.errors import InputError
from bridge.model.reading import read_yaml, validation_error
from bridge.model.state import GameState, Model, Step

__all__ = ["Expectation", "ObjectExpectation", "PlayerExpectation", "Scenario", "load_scenario"]


class ObjectExpectation(Model):
    """What must be true of one object; only the keys given are compared."""

    name: str | None = None
    power: int | None = None
    toughness: int | None = None
    loyalty: int | None = None
    colors: list[str] | None = None
    types: list[str] | None = None
    subtypes: list[str] | None = None
    supertypes: list[str] | None = None
    abilities: list[Any] | None = None
    controller: str | None = None
    damage: int | None = None
    counters: dict[str, int] | None = None
    tapped: bool | None = None
    attached_to: str | None = None
    attacking: str | None = None
    blocking: list[str] | None = None
    blocked_by: list[str] | None = None
    blocked: bool | None = None
    prevention_shield: int | None = None
    prevent_next_from: list[str] | None = Field(
        None, description="the sources whose next damage to it is prevented (CR 615.8)"
    )
    phased_out: bool | None = None


class PlayerExpectation(Model):
    """What must be true of a player (CR 613.9, 613.10); only the keys given are compared."""

    abilities: list[Any] | None = None
    max_hand_size: int | Literal["none"] | None = None
    prevention_shield: int | None = None
    poison: int | None = Field(None, ge=0, description="the player's poison counters (CR 104.3d)")
    prevent_next_from: list[str] | None = Field(
        None, description="the sources whose next damage to the player is prevented (CR 615.8)"
    )


class Expectation(Model):
    """What must be true after the scenario's actions."""

    legal: bool | None = None
    violations: list[str] = Field(default_factory=list, description="rule numbers the verdict must cite")
    characteristics: dict[str, ObjectExpectation] = Field(default_factory=dict)
    legal_block_count: int | None = Field(None, ge=0)
    legal_attack_count: int | None = Field(None, ge=0)
    step: Step | None = None
    life: dict[str, int] = Field(default_factory=dict)
    players: dict[str, PlayerExpectation] = Field(default_factory=dict)
    zones: dict[str, dict[Literal["library", "hand", "graveyard", "exile", "battlefield"], list[str]]] = Field(
        default_factory=dict, description="card names exactly in each zone (library top first, others unordered)"
    )
    winner: str | None = Field(
        None, description='the player who won, "none" for a draw, or "nobody_yet" while the game goes on'
    )
    stack: list[str] | None = Field(
        None, description="the stack, top first: card names (spells) or '<source id> ability <n>'"
    )
    priority: str | None = Field(None, description="the player who has priority")
    turn: int | None = Field(None, ge=1)
    active: str | None = None
    mana_pool: dict[str, str] = Field(default_factory=dict, description='player -> "{R}{R}"')


class Scenario(Model):
    """A scenario file: a position, what is done in it, and what must then be true."""

    title: str
    cite: list[str] = Field(min_length=1, description="CR rule numbers this scenario exercises")
    state: GameState
    do: list[Action] = Field(default_factory=list)
    expect: Expectation = Field(default_factory=Expectation)

    @field_validator("cite")
    @classmethod
    def _rule_numbers(cls, value: list[str]) -> list[str]:
        import re

        for rule in value:
            if not re.fullmatch(r"\d{3}(\.\d+[a-z]?)?", str(rule)):
                raise ValueError(f"{rule!r} is not a rule number like 509.1c")
        return value

    @field_validator("do", mode="before")
    @classmethod
    def _actions(cls, value: Any) -> Any:
        if value is None:
            return []
        if not isinstance(value, list):
            raise ValueError("do must be a list of actions")
        return [action_from_yaml(v) for v in value]


def load_scenario(path: Path) -> Scenario:
    """Read and validate a scenario file; :class:`InputError` says where and what is wrong."""
    source = str(path)
    data, text = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("a scenario is a mapping with title, cite, state, do and expect", source=source)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, source, text) from None
    return scenario
