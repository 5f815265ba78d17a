"""Property: declarations of attackers agree with the brute-force reference (CR 508.1a-d).

Random boards of up to four creatures with random tapped and summoning-sick status and
abilities among haste, defender, "can't attack", "can't attack alone" and "attacks each
combat if able", with or without a planeswalker to attack and a Silent Arbiter.
"""

from __future__ import annotations

import reference
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.engine.game import Game
from bridge.model.actions import DeclareAttackers
from bridge.model.cards import Card, CardPool
from bridge.model.state import GameState

FLAGS = ["haste", "defender", "cant_attack", "cant_attack_alone", "attacks_each_combat"]

boards = st.fixed_dictionaries(
    {
        "creatures": st.lists(
            st.fixed_dictionaries(
                {"tapped": st.booleans(), "sick": st.booleans(), "flags": st.sets(st.sampled_from(FLAGS), max_size=2)}
            ),
            max_size=4,
        ),
        "planeswalker": st.booleans(),
        "arbiter": st.booleans(),
    }
)


def build(board: dict) -> tuple[Game, list[dict], list[str]]:
    creatures = [{**c, "id": f"c{i}"} for i, c in enumerate(board["creatures"])]
    cards = [
        Card.model_validate(
            {"name": f"C{i}", "types": ["creature"], "power": 1, "toughness": 1, "abilities": sorted(c["flags"])}
        )
        for i, c in enumerate(creatures)
    ]
    pool = CardPool.from_cards(cards, fallback=CardPool.default())
    alice = [
        {"id": c["id"], "card": f"C{i}", "tapped": c["tapped"], "sick": c["sick"]} for i, c in enumerate(creatures)
    ]
    bob: list[dict] = []
    targets = ["bob"]
    if board["planeswalker"]:
        bob.append({"id": "jace", "card": "Jace Beleren"})
        targets.append("jace")
    if board["arbiter"]:
        bob.append({"id": "arbiter", "card": "Silent Arbiter"})
    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "declare_attackers",
            "players": [{"name": "alice", "battlefield": alice}, {"name": "bob", "battlefield": bob}],
        }
    )
    return Game(state, pool), creatures, targets


@settings(max_examples=80)
@given(boards, st.data())
def test_attacks_agree_with_reference(board: dict, data: st.DataObject) -> None:
    game, creatures, targets = build(board)
    legal = reference.legal_attacks(creatures, targets, 1 if board["arbiter"] else None)
    assert len(game.legal_attacks) == len(legal)
    assert {frozenset(d.attackers.items()) for d in game.legal_attacks} == legal
    for _ in range(3):
        chosen = {}
        for c in creatures:
            target = data.draw(st.sampled_from([None, *targets]))
            if target:
                chosen[c["id"]] = target
        action = DeclareAttackers(attackers=chosen)
        expected = frozenset(chosen.items()) in legal
        assert game.check(action).legal == expected, str(game.check(action))
        assert (action in game.legal_attacks) == expected
