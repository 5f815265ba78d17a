"""mtgasp: the rules of Magic: The Gathering (Comprehensive Rules of October 2009) as answer-set
programs for clingo, and this Python bridge around them.

The package in layers, each importing only those below it (bridge/README.md): ``model`` (the
game state, the actions, cards and scenario files as data), ``engine`` (the rules asked and
applied), ``io`` (running scenario files, schemas, files written whole), ``play`` (agents,
self-play) and ``cli`` (the ``mtgasp`` command).  The names below are the public API.

>>> from bridge import Game, DeclareBlockers
>>> game = Game.from_scenario("scenarios/combat/block/lure_all_able_must_block.yaml")
>>> game.check(DeclareBlockers(blockers={"elves": "wurm", "cub": "wurm"})).legal
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bridge.engine.board import Board, Characteristics, PlayerCharacteristics
    from bridge.engine.game import Game
    from bridge.engine.verdict import Verdict, Violation
    from bridge.model.actions import (
        Action,
        Activate,
        Advance,
        AssignDamage,
        Cast,
        ChooseOrder,
        ChooseTargets,
        Concede,
        DeclareAttackers,
        DeclareBlockers,
        NextStep,
        OrderAttackers,
        OrderBlockers,
        Pass,
        PlayLand,
        RemoveFromCombat,
        StateBasedActions,
        TurnFaceUp,
    )
    from bridge.model.cards import Card, CardPool
    from bridge.model.errors import IllegalActionError, InputError, MtgaspError, RuleModuleError
    from bridge.model.scenario import Scenario, load_scenario
    from bridge.model.state import GameState

# The public names are imported when first used: the ``mtgasp`` command's start
# (bridge/launch.py) runs before the engine is loaded.
_HOMES = {
    "Board": "bridge.engine.board",
    "Characteristics": "bridge.engine.board",
    "PlayerCharacteristics": "bridge.engine.board",
    "Game": "bridge.engine.game",
    "Verdict": "bridge.engine.verdict",
    "Violation": "bridge.engine.verdict",
    "Card": "bridge.model.cards",
    "CardPool": "bridge.model.cards",
    "IllegalActionError": "bridge.model.errors",
    "InputError": "bridge.model.errors",
    "MtgaspError": "bridge.model.errors",
    "RuleModuleError": "bridge.model.errors",
    "Scenario": "bridge.model.scenario",
    "load_scenario": "bridge.model.scenario",
    "GameState": "bridge.model.state",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name, "bridge.model.actions" if name in __all__ else None)
    if home is None:
        raise AttributeError(f"module 'bridge' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "Action",
    "Activate",
    "Advance",
    "AssignDamage",
    "Board",
    "Card",
    "CardPool",
    "Cast",
    "Characteristics",
    "ChooseOrder",
    "ChooseTargets",
    "Concede",
    "DeclareAttackers",
    "DeclareBlockers",
    "Game",
    "GameState",
    "IllegalActionError",
    "InputError",
    "MtgaspError",
    "NextStep",
    "OrderAttackers",
    "OrderBlockers",
    "Pass",
    "PlayLand",
    "PlayerCharacteristics",
    "RemoveFromCombat",
    "RuleModuleError",
    "Scenario",
    "StateBasedActions",
    "TurnFaceUp",
    "Verdict",
    "Violation",
    "load_scenario",
]
