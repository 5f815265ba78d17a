"""Attempts judged on their frame's grounding (bridge/engine/acting.py, ``_framed``): a cast or
an activation with its targets, controller and permanents named to pay left open, a land
played and a mana ability activated with the card, source, player and color left open, give
the answer a grounding of the attempt alone gives."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bridge.engine import acting, solver
from bridge.engine.game import Game
from bridge.engine.solver import STATS
from bridge.model.actions import Action, Activate, Cast, PlayLand
from bridge.model.errors import MtgaspError
from bridge.model.state import GameState
from bridge.play.brute import COLORS, _objects, _pay_sets, _target_lists

# alice, in her first main phase, with lands and spells in hand, mana creatures and an
# ability with a target; bob with a flier and a mana creature
STATE = {
    "turn": 3,
    "active": "alice",
    "step": "main1",
    "players": [
        {
            "name": "alice",
            "hand": ["Lightning Bolt", "Giant Growth", "Arc Lightning", "Forest"],
            "battlefield": [
                {"id": "mountain", "card": "Mountain"},
                {"id": "mountain_2", "card": "Mountain", "tapped": True},
                {"id": "forest", "card": "Forest"},
                {"id": "elves", "card": "Llanowar Elves"},
                {"id": "pyromancer", "card": "Prodigal Pyromancer"},
            ],
        },
        {
            "name": "bob",
            "hand": ["Shock", "Island"],
            "battlefield": [
                {"id": "angel", "card": "Serra Angel"},
                {"id": "birds", "card": "Birds of Paradise", "sick": True},
                {"id": "island", "card": "Island"},
            ],
        },
    ],
}


def attempts(game: Game) -> Iterator[Action]:
    """Casts, activations, lands and mana abilities by either player, with every choice of
    targets (one more than asked for) and some ways to pay."""
    state = game.state
    objects = _objects(game)
    for who in ("alice", "bob"):
        for player in state.players:
            for card in player.hand:
                yield PlayLand(card=card.id or "", by=who)
                slots = len(game.pool.get(card.card).spell_targets())
                for targets in _target_lists(objects, min(slots, 2)):
                    yield Cast(card=card.id or "", by=who, targets=targets)
                for pay in _pay_sets(game, who)[:8]:
                    yield Cast(card=card.id or "", by=who, targets=["bob"], pay=pay)
        for perm in state.permanents():
            for color in COLORS[:3]:
                yield Activate(source=perm.id or "", color=color, by=who)
            for number, ability in enumerate(game.pool.get(perm.card).activated, start=1):
                for targets in _target_lists(objects, len(ability.targets)):
                    yield Activate(source=perm.id or "", ability=number, by=who, targets=targets)


def judged(game: Game, action: Action) -> tuple[object, ...]:
    try:
        if isinstance(action, Cast):
            verdict, model = acting.check_cast(game, action)
        elif isinstance(action, PlayLand):
            verdict, model = acting.check_play_land(game, action)
        else:
            assert isinstance(action, Activate)
            verdict, model = acting.check_activate(game, action)
    except MtgaspError as exc:
        return (type(exc).__name__, str(exc))
    return (str(verdict), model)


def test_an_attempt_judged_on_its_frame_is_judged_as_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game(GameState.model_validate(STATE))
    tried = list(attempts(game))
    monkeypatch.setattr(acting, "_FRESH_MEETINGS", 10**9)  # every attempt on a grounding of its own
    alone = [judged(game, a) for a in tried]
    monkeypatch.setattr(acting, "_FRESH_MEETINGS", 0)  # every attempt on its frame's grounding
    framed: list[tuple[object, ...]] = []
    opened = 0
    for action in tried:
        before = STATS.solves
        framed.append(judged(game, action))
        opened += STATS.solves > before
    assert framed == alone
    assert sum(str(v).startswith("legal") for v, *_ in alone) >= 20  # some legal attempts of each kind
    assert opened >= len(tried) // 2


def test_attempts_of_one_frame_share_a_grounding() -> None:
    solver.forget()  # what earlier tests kept
    game = Game(GameState.model_validate(STATE))
    bolt = next(c.id for c in game.state.players[0].hand if c.card == "Lightning Bolt")
    targets = ["alice", "bob", "angel", "birds", "elves", "pyromancer"]
    before = STATS.sessions
    verdicts = [acting.check_cast(game, Cast(card=bolt or "", targets=[t]))[0] for t in targets[:1] * 3]
    # the first on a grounding of its own, the same again from what was kept
    assert STATS.sessions - before == 1
    verdicts += [acting.check_cast(game, Cast(card=bolt or "", targets=[t]))[0] for t in targets]
    # another attempt of the frame on the frame's grounding, and so are the rest
    assert STATS.sessions - before == 2
    assert all(v.legal for v in verdicts)
    mana = [acting.check_mana_ability(game, Activate(source=s, color="green")) for s in ("forest", "elves", "birds")]
    assert [v.legal for v, _ in mana] == [True, True, False]  # the Birds are bob's
