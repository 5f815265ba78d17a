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
