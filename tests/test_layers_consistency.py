"""Consistency of the layer system (CR 613) on random boards.

Boards of up to six permanents drawn from cards with continuous effects (anthems, lords,
Humility, Opalescence, Blood Moon, Urborg, Control Magic, Clone, Life and Limb, ...) with
distinct random timestamps, plus random resolved effects: the characteristics program has
exactly one answer set, and the characteristics do not depend on the order of the facts.
"""

from __future__ import annotations

import re

import clingo
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.engine.board import CHARACTERISTICS, LAYERS, PT
from bridge.engine.game import Game
from bridge.engine.solver import Session
from bridge.model.paths import rules_dir

PERMANENTS = [
    "Grizzly Bears",
    "Serra Angel",
    "Coral Merfolk",
    "Lord of Atlantis",
    "Glorious Anthem",
    "Crusade",
    "Bad Moon",
    "Humility",
    "Opalescence",
    "Blood Moon",
    "Urborg, Tomb of Yawgmoth",
    "Forest",
    "Svogthos, the Restless Tomb",
    "Tropical Island",
    "March of the Machines",
    "Mycosynth Lattice",
    "Ornithopter",
    "Life and Limb",
    "Levitation",
    "Nightmare",
    "Swamp",
    "Enchanted Evening",
    "White Knight",
    "Kormus Bell",
]
AURAS = ["Control Magic", "Pacifism", "Lure", "Evil Presence", "Spectral Flight"]
EFFECTS = [
    {"source": "Giant Growth"},
    {"text": "loses all abilities", "remove_all": True},
    {"text": "becomes 0/1", "set_pt": [0, 1]},
    {"text": "switch", "switch_pt": True},
    {"text": "becomes white", "set_colors": ["white"]},
    {"text": "is an artifact", "add_types": ["artifact"]},
    {"text": "hack", "text_change": {"from": "swamp", "to": "island"}},
    {"text": "gains flying", "grant": ["flying"]},
]

boards = st.fixed_dictionaries(
    {
        "permanents": st.lists(
            st.tuples(st.sampled_from(PERMANENTS), st.sampled_from(["alice", "bob"])), min_size=1, max_size=5
        ),
        "aura": st.one_of(st.none(), st.sampled_from(AURAS)),
        "effects": st.lists(st.sampled_from(range(len(EFFECTS))), max_size=2),
        "stamps": st.permutations(list(range(1, 9))),
        "clone": st.booleans(),
    }
)


def position(board: dict) -> dict:
    players: dict[str, list[dict]] = {"alice": [], "bob": []}
    stamps = iter(board["stamps"])
    ids = []
    for i, (card, owner) in enumerate(board["permanents"]):
        ids.append(f"p{i}")
        players[owner].append({"id": f"p{i}", "card": card, "timestamp": next(stamps)})
    if board["aura"]:
        players["alice"].append({"id": "aura", "card": board["aura"], "attached_to": ids[0], "timestamp": next(stamps)})
    if board["clone"]:
        players["bob"].append({"id": "clone", "card": "Clone", "chosen": {"copy": ids[-1]}, "timestamp": next(stamps)})
    effects = [
        {**EFFECTS[k], "targets": [ids[j % len(ids)]], "timestamp": 100 + j} for j, k in enumerate(board["effects"])
    ]
    return {
        "active": "alice",
        "players": [{"name": n, "battlefield": b} for n, b in players.items()],
        "effects": effects,
    }


def characteristics(game: Game, facts: str) -> tuple[int, frozenset[str]]:
    session = Session((*CHARACTERISTICS, *LAYERS, *PT, "characteristics/show"), facts)
    count = session.count(optimal=False)
    return count, frozenset(str(s) for s in session.solve().model)


@settings(max_examples=40)
@given(boards, st.randoms(use_true_random=False))
def test_one_answer_set_whatever_the_order_of_facts(board: dict, rnd) -> None:
    game = Game.from_state(position(board))
    lines = game.position.facts.splitlines()
    count, values = characteristics(game, "\n".join(lines))
    assert count == 1
    shuffled = list(lines)
    rnd.shuffle(shuffled)
    if shuffled == lines:  # the same order would ask the first question again
        shuffled.reverse()
    assert shuffled != lines
    count2, values2 = characteristics(game, "\n".join(shuffled))
    assert count2 == 1
    assert values2 == values
    # the bridge's own view agrees with the rules' answer
    for perm in game.state.permanents():
        c = game.characteristics(perm.id)
        assert (f'power("{perm.id}",{c.power})' in values) == (c.power is not None)


# The rules that read a layer's order from what its effects say (CR 613.6, 613.7a), and that
# try out only the effects that could depend on another, without them: every effect of every
# layer tried out on the hypothetical state of every other.
_SCREENING = re.compile(r"^_(fixed_order|screened)\(L\) :-.*$", re.M)


def _order_and_values(facts: str, search_every_layer: bool) -> frozenset[str]:
    """The characteristics and the order of each layer's effects; with
    ``search_every_layer``, every order found by trying the effects out (613.7a)."""
    control = clingo.Control(["--warn=none"])
    for name in (*CHARACTERISTICS, *LAYERS, *PT, "characteristics/show"):
        text = (rules_dir() / f"{name}.lp").read_text()
        if search_every_layer and name == "characteristics/dependency":
            text, replaced = _SCREENING.subn("", text)
            assert replaced == 2
        control.add("base", [], text)
    control.add("base", [], facts + "\n#show position/3. #show _fixed_order/1.")
    control.ground([("base", [])])
    models = []
    control.solve(on_model=lambda m: models.append(frozenset(map(str, m.symbols(shown=True)))))
    assert len(models) == 1
    return models[0]


@settings(max_examples=60)
@given(boards)
def test_an_order_read_from_the_effects_is_the_order_their_dependencies_give(board: dict) -> None:
    """Where no effect of a layer could depend on another, the order read from timestamps
    alone is the one that trying the effects out finds (613.7a), and so are the values."""
    facts = Game.from_state(position(board)).position.facts
    read = _order_and_values(facts, search_every_layer=False)
    searched = _order_and_values(facts, search_every_layer=True)
    assert {a for a in read if not a.startswith("_fixed_order")} == searched


def test_a_layer_order_is_read_from_its_effects_only_where_no_effect_could_depend_on_another() -> None:
    """A lord granting islandwalk and an Aura granting flying: layer 6's order is read from
    the timestamps.  With every ability of the lord removed by a later effect, the lord's
    ability could be lost, so the order is found by trying the effects out: the lord's effect
    waits for the removal (613.7a) and then doesn't exist, so the Merfolk has no islandwalk."""
    merfolk = {"id": "m", "card": "Coral Merfolk", "timestamp": 1}
    lord = {"id": "lord", "card": "Lord of Atlantis", "timestamp": 2}
    flight = {"id": "fl", "card": "Flight", "attached_to": "m", "timestamp": 3}
    state: dict = {
        "active": "alice",
        "players": [{"name": "alice", "battlefield": [merfolk, lord, flight]}, {"name": "bob"}],
    }
    answer = _order_and_values(Game.from_state(state).position.facts, False)
    assert "_fixed_order(6)" in answer
    assert {'has_ability("m",flying)', 'has_ability("m",landwalk(subtype(island)))'} <= answer
    state["effects"] = [{"text": "loses all abilities", "remove_all": True, "targets": ["lord"], "timestamp": 9}]
    answer = _order_and_values(Game.from_state(state).position.facts, False)
    assert "_fixed_order(6)" not in answer
    assert 'has_ability("m",flying)' in answer
    assert 'has_ability("m",landwalk(subtype(island)))' not in answer


# Effects of layers 2, 5 and 6: control changes, and effects that add values, take them away,
# or both.
_CONTROL_COLOR_AND_ABILITY_EFFECTS = [
    {"text": "gains flying", "grant": ["flying"]},
    {"text": "gains flying and haste", "grant": ["flying", "haste"]},
    {"text": "loses flying", "remove": ["flying"]},
    {"text": "loses all abilities", "remove_all": True},
    {"text": "becomes white", "set_colors": ["white"]},
    {"text": "is blue too", "add_colors": ["blue"]},
    {"text": "becomes colorless", "set_colors": []},
    {"text": "bob gains control", "gain_control": True, "controller": "bob"},
    {"text": "alice gains control", "gain_control": True, "controller": "alice"},
]
_control_colors_and_abilities = st.fixed_dictionaries(
    {
        "permanents": st.lists(
            st.sampled_from(["Serra Angel", "Coral Merfolk", "Lord of Atlantis", "Levitation", "Humility"]),
            min_size=1,
            max_size=3,
        ),
        "control_magic": st.booleans(),
        "effects": st.lists(
            st.tuples(st.sampled_from(range(len(_CONTROL_COLOR_AND_ABILITY_EFFECTS))), st.integers(0, 3)),
            min_size=2,
            max_size=6,
        ),
    }
)


@settings(max_examples=80)
@given(_control_colors_and_abilities)
def test_orders_read_and_effects_applied_in_one_state_give_the_values_of_each_in_turn(board: dict) -> None:
    """Effects of layers 2, 5 and 6 on the same few objects (a Control Magic among them) in
    a random order: where a layer's order is read from the timestamps, and where effects of
    layers 5 and 6 apply in one state, the values are those of applying each in turn (a
    state for each, each layer's order found by trying the effects out)."""
    ids = [f"p{i}" for i in range(len(board["permanents"]))]
    battlefield = [{"id": i, "card": c, "timestamp": n + 1} for n, (i, c) in enumerate(zip(ids, board["permanents"]))]
    if board["control_magic"]:
        battlefield.append({"id": "cm", "card": "Control Magic", "attached_to": ids[0], "timestamp": 5})
        ids.append("cm")
    effects = [
        {**_CONTROL_COLOR_AND_ABILITY_EFFECTS[k], "targets": [ids[t % len(ids)]], "timestamp": 10 + j}
        for j, (k, t) in enumerate(board["effects"])
    ]
    state = {"active": "alice", "players": [{"name": "alice", "battlefield": battlefield}, {"name": "bob"}]}
    facts = Game.from_state({**state, "effects": effects}).position.facts
    read = _order_and_values(facts, search_every_layer=False)
    assert {a for a in read if not a.startswith("_fixed_order")} == _order_and_values(facts, search_every_layer=True)
