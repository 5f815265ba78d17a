"""Replacement effects as the rules decide them (asp_rules/replacement.lp), and control since
the turn began (asp_rules/turn/control.lp, CR 302.6).

A card on its way to a graveyard with several replacement effects that would apply goes
where the first of them in its controller's (or owner's) order sends it (616.1, 616.1d), the
named sources first, then by source id; the bridge applies what the rules show.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.engine.game import Game
from bridge.engine.replacement import Source, graveyard_destinations, sources
from bridge.engine.solver import STATS
from bridge.model.actions import Advance
from bridge.model.state import GameState

# where each source's effect would send bob's Darksteel Colossus instead of his graveyard
SENDS = {"colossus": "library", "leyline": "exile", "samurai": "exile"}

cases = st.fixed_dictionaries(
    {
        "leyline": st.booleans(),
        "samurai": st.booleans(),
        "order": st.permutations(["colossus", "leyline", "samurai"]),
        "named": st.integers(0, 3),
    }
)


def colossus_position(case: dict) -> GameState:
    alice = [{"id": "leyline", "card": "Leyline of the Void"}] if case["leyline"] else []
    bob = [{"id": "colossus", "card": "Darksteel Colossus"}]
    bob += [{"id": "samurai", "card": "Samurai of the Pale Curtain"}] if case["samurai"] else []
    return GameState.model_validate(
        {
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "battlefield": alice},
                {"name": "bob", "battlefield": bob, "replacement_order": case["order"][: case["named"]]},
            ],
        }
    )


@settings(max_examples=30)
@given(cases)
def test_the_first_effect_in_the_controllers_order_applies(case: dict) -> None:
    state = colossus_position(case)
    present = {"colossus"} | {s for s in ("leyline", "samurai") if case[s]}
    named = [s for s in case["order"][: case["named"]] if s in present]
    first = (named + sorted(present - set(named)))[0]
    where = graveyard_destinations(None, state, [("colossus", "Darksteel Colossus", "bob", "bob")])
    assert where == {"colossus": SENDS[first]}, case


def test_a_card_in_a_hand_is_exiled_by_an_opponents_leyline_not_by_its_owners() -> None:
    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "bolt", "card": "Lightning Bolt"}],
                    "battlefield": [{"id": "leyline", "card": "Leyline of the Void"}],
                },
                {"name": "bob", "hand": [{"id": "shock", "card": "Shock"}]},
            ],
        }
    )
    where = graveyard_destinations(
        None, state, [("bolt", "Lightning Bolt", "alice", None), ("shock", "Shock", "bob", None)]
    )
    assert where == {"bolt": "graveyard", "shock": "exile"}


def test_nothing_to_replace_asks_no_question() -> None:
    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "main1",
            "players": [{"name": "alice", "battlefield": ["Grizzly Bears"]}, {"name": "bob"}],
        }
    )
    before = STATS.sessions
    assert graveyard_destinations(None, state, [("grizzly_bears", "Grizzly Bears", "alice", "alice")]) == {
        "grizzly_bears": "graveyard"
    }
    assert sources(None, state) == []
    assert STATS.sessions == before


def test_a_player_who_cant_lose_has_no_loss_to_replace() -> None:
    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [
                        {"id": "angel", "card": "Platinum Angel"},
                        {"id": "mirror", "card": "Lich's Mirror"},
                    ],
                },
                {
                    "name": "bob",
                    "battlefield": [
                        {"id": "mirror_b", "card": "Lich's Mirror"},
                        {"id": "crypt", "card": "Forbidden Crypt"},
                    ],
                },
            ],
        }
    )
    assert sources(None, state) == [
        Source("", "lose", "alice", "cant_lose"),
        Source("crypt", "draw", "bob", "lose_game"),
        Source("mirror_b", "lose", "bob", "restart"),
    ]


def _to_alices_turn(state: GameState) -> GameState:
    """The game from bob's end step to alice's upkeep, everybody passing."""
    game = Game(state)
    game.push(Advance(step="upkeep", turn=state.turn + 1))
    return game.state


def test_turn_start_ends_the_sickness_of_the_new_active_players_permanents() -> None:
    state = GameState.model_validate(
        {
            "turn": 3,
            "active": "bob",
            "step": "end",
            "players": [
                {"name": "alice", "battlefield": [{"id": "bears", "card": "Grizzly Bears", "sick": True}]},
                {"name": "bob", "battlefield": [{"id": "cub", "card": "Grizzly Bears", "sick": True}]},
            ],
        }
    )
    after = _to_alices_turn(state)
    assert (after.active, after.permanent("bears").sick, after.permanent("cub").sick) == ("alice", False, True)


def test_turn_start_asks_who_controls_a_stolen_creature() -> None:
    # CR 302.6: bob's Grizzly Bears, taken by alice's Control Magic in an earlier turn and
    # seen under her control then, have been hers since her turn began
    state = GameState.model_validate(
        {
            "turn": 3,
            "active": "bob",
            "step": "end",
            "players": [
                {"name": "alice", "battlefield": [{"id": "magic", "card": "Control Magic", "attached_to": "bears"}]},
                {
                    "name": "bob",
                    "battlefield": [{"id": "bears", "card": "Grizzly Bears", "sick": True, "seen_controller": "alice"}],
                },
            ],
        }
    )
    assert _to_alices_turn(state).permanent("bears").sick is False
    # the same creature, with the Control Magic gone, returned to bob: not continuously his
    gone = state.model_copy(
        update={"players": [state.players[0].model_copy(update={"battlefield": []}), state.players[1]]}
    )
    gone = GameState.model_validate(gone.model_dump())
    after = _to_alices_turn(gone)
    assert (after.permanent("bears").sick, after.permanent("bears").seen_controller) == (True, None)
