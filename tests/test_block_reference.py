"""Property: on random small boards the engine agrees with the brute-force reference.

Boards have up to four attackers and four blockers with random colors, evasion abilities,
"can't block" and (in the second property) the other restrictions and requirements the
reference knows (tests/reference.py).  The engine's verdict on a random declaration, its
list of legal declarations and their count must be the reference's.
"""

from __future__ import annotations

import reference
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.engine.game import Game
from bridge.model.actions import DeclareBlockers
from bridge.model.cards import Card, CardPool
from bridge.model.state import GameState

COLORS = ["white", "blue", "black", "red", "green"]
EVASION = [
    "flying",
    "fear",
    "intimidate",
    "shadow",
    "horsemanship",
    "unblockable",
    "islandwalk",
    "protection_red",
    "protection_green",
]
BLOCKER_BASIC = ["flying", "reach", "shadow", "horsemanship", "cant_block"]
ATTACKER_MORE = EVASION + ["lure", "max_one_blocker", "min_two_blockers"]
BLOCKER_MORE = BLOCKER_BASIC + ["cant_block_alone", "blocks_each_combat", "block_additional", "block_any"]

# reference flag -> card ability
ABILITY = {
    "islandwalk": {"landwalk": "island"},
    "swampwalk": {"landwalk": "swamp"},
    "protection_red": {"protection": {"color": "red"}},
    "protection_green": {"protection": {"color": "green"}},
    "lure": "must_be_blocked_by_all",
    "max_one_blocker": {"cant_be_blocked_by_more_than": 1},
    "min_two_blockers": {"cant_be_blocked_except_by": 2},
    "blocks_each_combat": "blocks_each_combat",
    "block_additional": {"can_block_additional": 1},
    "block_any": "can_block_any_number",
}


def creatures(flags: list[str], n: int) -> st.SearchStrategy[list[dict]]:
    return st.lists(
        st.fixed_dictionaries(
            {
                "colors": st.sets(st.sampled_from(COLORS), max_size=2),
                "artifact": st.booleans(),
                "flags": st.sets(st.sampled_from(flags), max_size=2),
                "tapped": st.booleans(),
            }
        ),
        max_size=n,
    )


def boards(attacker_flags: list[str], blocker_flags: list[str]) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries(
        {
            "attackers": creatures(attacker_flags, 4),
            "blockers": creatures(blocker_flags, 4),
            "lands": st.sets(st.sampled_from(["island", "swamp"])),
        }
    ).map(_name)


def _name(board: dict) -> dict:
    for i, a in enumerate(board["attackers"]):
        a["id"] = f"a{i}"
        a["tapped"] = True
    for i, b in enumerate(board["blockers"]):
        b["id"] = f"b{i}"
    return board


def _card(name: str, spec: dict) -> Card:
    return Card.model_validate(
        {
            "name": name,
            "types": ["artifact", "creature"] if spec["artifact"] else ["creature"],
            "colors": sorted(spec["colors"]),
            "power": 1,
            "toughness": 1,
            "abilities": [ABILITY.get(f, f) for f in sorted(spec["flags"])],
        }
    )


def build(board: dict) -> Game:
    cards = [_card(f"A{i}", a) for i, a in enumerate(board["attackers"])]
    cards += [_card(f"B{i}", b) for i, b in enumerate(board["blockers"])]
    pool = CardPool.from_cards(cards, fallback=CardPool.default())
    bob = [{"id": b["id"], "card": f"B{i}", "tapped": b["tapped"]} for i, b in enumerate(board["blockers"])]
    bob += [{"id": land, "card": land.capitalize()} for land in sorted(board["lands"])]
    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "declare_blockers",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [
                        {"id": a["id"], "card": f"A{i}", "attacking": "bob", "tapped": True}
                        for i, a in enumerate(board["attackers"])
                    ],
                },
                {"name": "bob", "battlefield": bob},
            ],
        }
    )
    return Game(state, pool)


def as_pairs(declaration: DeclareBlockers) -> reference.Declaration:
    return frozenset((b, a) for b, attackers in declaration.blockers.items() for a in attackers)


def random_declaration(board: dict, data: st.DataObject) -> DeclareBlockers:
    ids = [a["id"] for a in board["attackers"]]
    declaration: dict[str, list[str]] = {}
    if ids:
        for b in board["blockers"]:
            chosen = data.draw(st.lists(st.sampled_from(ids), max_size=2, unique=True))
            if chosen:
                declaration[b["id"]] = chosen
    return DeclareBlockers(blockers=declaration)


def _agree(board: dict, data: st.DataObject) -> None:
    game = build(board)
    legal = reference.legal_declarations(board["attackers"], board["blockers"], board["lands"])
    assert len(game.legal_blocks) == len(legal)
    assert {as_pairs(d) for d in game.legal_blocks} == legal
    for _ in range(3):
        action = random_declaration(board, data)
        expected = as_pairs(action) in legal
        verdict = game.check(action)
        assert verdict.legal == expected, str(verdict)
        assert (action in game.legal_blocks) == expected
        if not expected:
            assert verdict.rules & {"509.1a", "509.1b", "509.1c"}, str(verdict)


@settings(max_examples=60)
@given(boards(EVASION, BLOCKER_BASIC), st.data())
def test_evasion_and_cant_block_agree_with_reference(board: dict, data: st.DataObject) -> None:
    _agree(board, data)


@settings(max_examples=60)
@given(boards(ATTACKER_MORE, BLOCKER_MORE), st.data())
def test_restrictions_and_requirements_agree_with_reference(board: dict, data: st.DataObject) -> None:
    _agree(board, data)
