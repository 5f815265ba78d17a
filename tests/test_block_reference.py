"""Property: on random small boards the engine agrees with a brute-force reference.

The reference is written only for this subset of the rules: up to four attackers and four
untapped-or-tapped blockers, evasion abilities (flying, reach, fear, intimidate, shadow,
horsemanship, islandwalk, protection from a color, "can't be blocked") and "can't block",
each blocker blocking at most one attacker (CR 509.1a-b).
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.cards import Card, CardPool
from bridge.game import Game
from bridge.models import DeclareBlockers, GameState

COLORS = ["white", "blue", "black", "red", "green"]
ATTACKER_ABILITIES = ["flying", "fear", "intimidate", "shadow", "horsemanship", "unblockable",
                      "islandwalk", "protection_red", "protection_green"]
BLOCKER_ABILITIES = ["flying", "reach", "shadow", "horsemanship", "cant_block"]


def creature_strategy(abilities: list[str]) -> st.SearchStrategy[dict]:
    return st.fixed_dictionaries({
        "colors": st.lists(st.sampled_from(COLORS), max_size=2, unique=True),
        "artifact": st.booleans(),
        "abilities": st.lists(st.sampled_from(abilities), max_size=2, unique=True),
        "tapped": st.booleans(),
    })


def _ability_yaml(name: str) -> object:
    if name == "islandwalk":
        return {"landwalk": "island"}
    if name.startswith("protection_"):
        return {"protection": {"color": name.split("_")[1]}}
    return name


def _card(name: str, spec: dict) -> Card:
    return Card.model_validate({
        "name": name, "types": ["artifact", "creature"] if spec["artifact"] else ["creature"],
        "colors": spec["colors"], "power": 1, "toughness": 1,
        "abilities": [_ability_yaml(a) for a in spec["abilities"]]})


def can_block(blocker: dict, attacker: dict, island: bool) -> bool:
    """The reference: may this blocker block this attacker (CR 509.1a-b, 702)?"""
    a, b = set(attacker["abilities"]), set(blocker["abilities"])
    if blocker["tapped"] or "cant_block" in b or "unblockable" in a:
        return False
    if "flying" in a and not b & {"flying", "reach"}:
        return False
    if "fear" in a and not (blocker["artifact"] or "black" in blocker["colors"]):
        return False
    if "intimidate" in a and not (blocker["artifact"] or set(blocker["colors"]) & set(attacker["colors"])):
        return False
    if ("shadow" in a) != ("shadow" in b):
        return False
    if "horsemanship" in a and "horsemanship" not in b:
        return False
    if "islandwalk" in a and island:
        return False
    for color in ("red", "green"):
        if f"protection_{color}" in a and color in blocker["colors"]:
            return False
    return True


boards = st.fixed_dictionaries({
    "attackers": st.lists(creature_strategy(ATTACKER_ABILITIES), max_size=4),
    "blockers": st.lists(creature_strategy(BLOCKER_ABILITIES), max_size=4),
    "island": st.booleans(),
})


def build(board: dict) -> Game:
    cards = [_card(f"A{i}", a) for i, a in enumerate(board["attackers"])]
    cards += [_card(f"B{i}", b) for i, b in enumerate(board["blockers"])]
    pool = CardPool.from_cards(cards, fallback=CardPool.default())
    bob = [{"id": f"b{i}", "card": f"B{i}", "tapped": b["tapped"]} for i, b in enumerate(board["blockers"])]
    if board["island"]:
        bob.append({"id": "isl", "card": "Island"})
    state = GameState.model_validate({
        "active": "alice", "step": "declare_blockers",
        "players": [
            {"name": "alice", "battlefield": [{"id": f"a{i}", "card": f"A{i}", "attacking": "bob", "tapped": True}
                                              for i in range(len(board["attackers"]))]},
            {"name": "bob", "battlefield": bob}]})
    return Game(state, pool)


def reference_legal(board: dict) -> set[frozenset[tuple[str, str]]]:
    options = []
    for i, blocker in enumerate(board["blockers"]):
        choices: list[tuple[str, str] | None] = [None]
        choices += [(f"b{i}", f"a{j}") for j, attacker in enumerate(board["attackers"])
                    if can_block(blocker, attacker, board["island"])]
        options.append(choices)
    return {frozenset(c for c in combo if c) for combo in itertools.product(*options)}


def as_pairs(declaration: DeclareBlockers) -> frozenset[tuple[str, str]]:
    return frozenset((b, a) for b, attackers in declaration.blockers.items() for a in attackers)


@settings(max_examples=60)
@given(boards)
def test_count_and_list_agree_with_reference(board: dict) -> None:
    game = build(board)
    expected = reference_legal(board)
    assert len(game.legal_blocks) == len(expected)
    assert {as_pairs(d) for d in game.legal_blocks} == expected


@settings(max_examples=60)
@given(boards, st.data())
def test_verdicts_agree_with_reference(board: dict, data: st.DataObject) -> None:
    game = build(board)
    n_att, n_blk = len(board["attackers"]), len(board["blockers"])
    declaration: dict[str, str] = {}
    if n_att:
        for i in range(n_blk):
            j = data.draw(st.integers(-1, n_att - 1))
            if j >= 0:
                declaration[f"b{i}"] = f"a{j}"
    action = DeclareBlockers(blockers=declaration)
    expected = all(can_block(board["blockers"][int(b[1:])], board["attackers"][int(a[1:])], board["island"])
                   for b, a in declaration.items())
    fresh = game.check(action)
    assert fresh.legal == expected, str(fresh)
    assert (action in game.legal_blocks) == expected
    if not expected:
        assert fresh.rules & {"509.1a", "509.1b"}
