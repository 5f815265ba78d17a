"""Puzzle files: a position, the goal one player must reach against every answer of the other,
and (for tests) the known solution; read with errors that name the file and the place.

The format is described in ``puzzles/README.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from bridge.model.actions import Action, action_from_yaml
from bridge.model.errors import InputError
from bridge.model.reading import read_yaml, validation_error
from bridge.model.state import GameState, Model

__all__ = ["Goal", "Puzzle", "Solution", "load_puzzle"]

GoalKind = Literal["win", "survive", "destroy", "control", "have"]


class Goal(Model):
    """What the puzzle player (``player``) must reach, whatever the opponent does, and by when:
    ``win`` the game before turn ``turn`` ends; ``survive`` (not lose) until turn ``turn``
    begins; ``destroy`` the permanents ``targets`` (none of them on the battlefield as turn
    ``turn`` ends), ``control`` them (each on the battlefield under the player's control as the
    turn ends), ``have`` a permanent named ``card`` under the player's control as the turn
    ends.  A game the puzzle player wins before then reaches every goal but ``destroy``,
    ``control`` and ``have``, which are judged on the position where the game ended."""

    player: str = Field(description="the puzzle player, who must reach the goal")
    kind: GoalKind = Field("win", description="win, survive, destroy, control or have")
    turn: int = Field(ge=1, description="win/destroy/control/have: by the end of this turn; survive: until it begins")
    targets: list[str] = Field(default_factory=list, description="destroy, control: the permanents' ids")
    card: str | None = Field(None, description="have: the name of the permanent")

    @model_validator(mode="after")
    def _fields_of_the_kind(self) -> Goal:
        if self.kind in ("destroy", "control") and not self.targets:
            raise ValueError(f"a {self.kind} goal names its targets (permanent ids)")
        if self.kind not in ("destroy", "control") and self.targets:
            raise ValueError(f"a {self.kind} goal has no targets")
        if (self.kind == "have") != (self.card is not None):
            raise ValueError("a have goal, and only it, names a card")
        return self


class Solution(Model):
    """The known answer, for tests: the result and, for a win, the puzzle player's first
    actions on the main line (the strategy must begin with them)."""

    result: Literal["win", "no_win"]
    first: list[Action] = Field(default_factory=list, description="win: the first actions of the main line")

    @field_validator("first", mode="before")
    @classmethod
    def _actions(cls, value: Any) -> Any:
        if value is None:
            return []
        if not isinstance(value, list):
            raise ValueError("first must be a list of actions")
        return [action_from_yaml(v) for v in value]

    @model_validator(mode="after")
    def _first_only_for_a_win(self) -> Solution:
        if self.first and self.result != "win":
            raise ValueError("only a win has first actions")
        return self


class Puzzle(Model):
    """A puzzle file: a position, a goal, what it is about, and optionally its solution."""

    title: str
    description: str = ""
    cite: list[str] = Field(default_factory=list, description="CR rule numbers the puzzle turns on")
    state: GameState
    goal: Goal
    solution: Solution | None = None


def load_puzzle(path: Path | str) -> Puzzle:
    """Read and validate a puzzle file; :class:`InputError` says where and what is wrong."""
    source = str(path)
    data, text = read_yaml(Path(path))
    if not isinstance(data, dict):
        raise InputError("a puzzle is a mapping with title, state, goal and optionally solution", source=source)
    try:
        puzzle = Puzzle.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, source, text) from None
    _check_goal(puzzle, source)
    return puzzle


def _check_goal(puzzle: Puzzle, source: str) -> None:
    """The goal's names must be the position's: a player, permanents, a turn not yet over."""
    state, goal = puzzle.state, puzzle.goal
    names = [p.name for p in state.players]
    if goal.player not in names:
        raise InputError(
            f"{goal.player!r} is not a player (the players: {', '.join(names)})", source=source, location="goal.player"
        )
    limit = state.turn if goal.kind != "survive" else state.turn + 1
    if goal.turn < limit:
        when = "turn it must be survived until" if goal.kind == "survive" else "turn that ends the puzzle"
        raise InputError(
            f"the {when} ({goal.turn}) must not be before {limit} (the position is in turn {state.turn})",
            source=source,
            location="goal.turn",
        )
    ids = {p.id for p in state.permanents()}
    for k, target in enumerate(goal.targets):
        if target not in ids:
            raise InputError(f"no permanent has the id {target!r}", source=source, location=f"goal.targets[{k}]")
