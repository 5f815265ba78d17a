"""The moves of a search: every option of a decision, pushed and named.

A search over the engine's transitions (a perft count, the puzzle solver) lists every option
of every decision (:func:`~bridge.play.agents.decisions`, all groups, never a sample), pushes
each and pops it.  An option listed twice, or listed and then refused by ``push``, is a fault
of the engine (its list of legal actions and its judge disagree): :class:`ListingDefect`
names the action and the line of actions from the search's start (``base``: the length of the
game log there) that led to the position.  A card whose text the vocabulary doesn't hold yet
is not a defect of the list: its refusal (:class:`~bridge.model.errors.UnsupportedCardError`)
goes to the search, which can't follow that line.
"""

from __future__ import annotations

import json

from bridge.engine.game import Game
from bridge.model.actions import Action
from bridge.model.errors import MtgaspError, UnsupportedCardError, one_line
from bridge.play.agents import Decision

__all__ = ["ListingDefect", "listed_options", "logged", "push_listed", "where"]


class ListingDefect(MtgaspError):
    """An action listed as legal that ``push`` refused (or one listed twice): the engine's list
    of legal actions and its judge disagree."""


def logged(action: Action) -> str:
    """An action as the game log writes it (:meth:`Game.game_log`), on one line."""
    return json.dumps(action.model_dump(mode="json", exclude_defaults=True) | {"kind": action.kind})


def listed_options(
    game: Game, decision: Decision, base: int, defect: type[ListingDefect] = ListingDefect
) -> tuple[Action, ...]:
    """Every option of the decision, all groups listed; one listed twice is a defect."""
    options = decision.options
    seen: set[str] = set()
    for action in options:
        key = json.dumps(action.model_dump(mode="json"), sort_keys=True)  # the same action written alike
        if key in seen:
            raise defect(f"{one_line(logged(action), 300)} is listed twice {where(game, base)}")
        seen.add(key)
    return options


def push_listed(game: Game, action: Action, base: int, defect: type[ListingDefect] = ListingDefect) -> None:
    """Push a listed action; its refusal is a defect of the engine, named with the position."""
    try:
        game.push(action)
    except UnsupportedCardError:
        raise  # the list holds it rightly: the card can be cast, but the engine can't say how it resolves
    except MtgaspError as exc:
        refused = f"{one_line(logged(action), 300)} is listed as legal but refused"
        raise defect(f"{refused} {where(game, base)}: {one_line(str(exc), 500)}") from None


def where(game: Game, base: int) -> str:
    """The position: turn and step, and the line of actions from the start."""
    state = game.state
    line = [logged(a) for a in game.log[base:]]
    return f"at turn {state.turn}, {state.active}'s {state.step} step, " + (
        f"after {' '.join(line)}" if line else "in the starting position"
    )
