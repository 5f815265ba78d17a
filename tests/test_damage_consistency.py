"""Consistency of combat damage and state-based actions on random combats.

Up to four attackers and four blockers with random power, toughness, marked damage and
keywords (first strike, double strike, trample, deathtouch, lifelink, wither), each blocker
blocking a random attacker: the default assignment of every creature totals its power
(CR 510.1a), dealing it keeps the position valid, and the state-based actions loop ends
with the same result whatever the order of the facts.
"""

from __future__ import annotations

import clingo
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from bridge.engine.board import SBA
from bridge.engine.combat import deal_damage
from bridge.engine.game import Game
from bridge.engine.solver import Session
from bridge.model.actions import AssignDamage, NextStep
from bridge.model.cards import Card, CardPool
from bridge.model.state import GameState

KEYWORDS = ["first_strike", "double_strike", "trample", "deathtouch", "lifelink", "wither"]

creature = st.fixed_dictionaries(
    {
        "power": st.integers(0, 5),
        "toughness": st.integers(1, 5),
        "damage": st.integers(0, 2),
        "keywords": st.sets(st.sampled_from(KEYWORDS), max_size=2),
    }
)
combats = st.fixed_dictionaries(
    {
        "attackers": st.lists(creature, min_size=1, max_size=4),
        "blockers": st.lists(st.tuples(creature, st.integers(0, 3)), max_size=4),
        "first_step": st.booleans(),
    }
)


def build(combat: dict) -> Game:
    cards, alice, bob = [], [], []
    for i, a in enumerate(combat["attackers"]):
        cards.append(
            Card.model_validate(
                {
                    "name": f"A{i}",
                    "types": ["creature"],
                    "power": a["power"],
                    "toughness": a["toughness"],
                    "abilities": sorted(a["keywords"]),
                }
            )
        )
        alice.append(
            {
                "id": f"a{i}",
                "card": f"A{i}",
                "attacking": "bob",
                "tapped": True,
                "damage": min(a["damage"], a["toughness"] - 1),
            }
        )
    for j, (b, target) in enumerate(combat["blockers"]):
        cards.append(
            Card.model_validate(
                {
                    "name": f"B{j}",
                    "types": ["creature"],
                    "power": b["power"],
                    "toughness": b["toughness"],
                    "abilities": sorted(b["keywords"]),
                }
            )
        )
        bob.append(
            {
                "id": f"b{j}",
                "card": f"B{j}",
                "blocking": [f"a{target % len(alice)}"],
                "damage": min(b["damage"], b["toughness"] - 1),
            }
        )
    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "first_strike_damage" if combat["first_step"] else "combat_damage",
            "players": [{"name": "alice", "battlefield": alice}, {"name": "bob", "battlefield": bob}],
        }
    )
    return Game(state, CardPool.from_cards(cards, fallback=CardPool.default()))


@settings(max_examples=40)
@given(combats, st.randoms(use_true_random=False))
def test_default_assignment_totals_power_and_sba_end(combat: dict, rnd) -> None:
    game = build(combat)
    session = Session(
        game.modules("combat/common", "combat/damage_assignment"),
        game.position.facts + "\n#show assigner/2.",
        [("damage_assignment", (clingo.Function("declared"),))],
    )
    model = session.solve().model
    powers = {str(s.arguments[0].string): s.arguments[1].number for s in model if s.match("assigner", 2)}
    totals: dict[str, int] = {}
    for s in model:
        if s.match("assigned", 4):
            totals[s.arguments[1].string] = totals.get(s.arguments[1].string, 0) + s.arguments[3].number
    assert powers == {c["id"]: c["power"] for c in _dealing(combat, game)}
    assert totals == powers
    assert game.reader.verdict(model).legal
    # the default assignment dealt: the state-based actions that then apply are those the
    # test's own reading of 704.5a and 704.5f-h finds, and the same with the facts shuffled
    _, dealt = game._check_damage(AssignDamage(assignments={}), deal=True)
    damaged = Game(deal_damage(game.state, dealt, game.pool)[0], game.pool)
    expected = _state_based_actions(combat, damaged.state)
    assert damaged.state_based_actions() == expected
    lines = damaged.position.facts.splitlines()
    rnd.shuffle(lines)
    shuffled = Session(damaged.modules(*SBA), "\n".join(lines)).solve().model
    assert sorted((str(s.arguments[0]), s.arguments[1].string) for s in shuffled if s.match("sba", 2)) == expected
    # CR 510.2-510.4, 704.3: the game deals the damage and performs them at once
    game.push(AssignDamage(assignments={}))
    assert game.state_based_actions() == []
    dead = {a.split('"')[1] for a, _ in expected if not a.startswith("loses")}
    assert {p.id for p in game.state.permanents()} == {p.id for p in build(combat).state.permanents()} - dead


def _state_based_actions(combat: dict, state: GameState) -> list[tuple[str, str]]:
    """The state-based actions a position calls for, by the test's own reading of 704.5a and
    704.5f-h: a player at 0 life or less loses; a creature whose toughness (printed, less its
    -1/-1 counters) is 0 or less goes to the graveyard, else one with lethal damage or
    deathtouch damage is destroyed (once for each reason)."""
    out = [(f'loses("{p.name}")', "704.5a") for p in state.players if p.life <= 0]
    for perm in state.permanents():
        spec = (
            combat["attackers"][int(perm.id[1:])]
            if perm.id.startswith("a")
            else combat["blockers"][int(perm.id[1:])][0]
        )
        toughness = spec["toughness"] - perm.counters.get("-1/-1", 0) + perm.counters.get("+1/+1", 0)
        if toughness <= 0:
            out.append((f'to_graveyard("{perm.id}")', "704.5f"))
            continue
        if perm.damage >= toughness:
            out.append((f'destroy("{perm.id}")', "704.5g"))
        if perm.deathtouch_damage:
            out.append((f'destroy("{perm.id}")', "704.5h"))
    return sorted(out)


def _dealing(combat: dict, game: Game) -> list[dict]:
    """The creatures that deal damage in this step, by the test's own reading of 510.5."""
    first = combat["first_step"]
    out = []
    for perm in game.state.permanents():
        spec = (
            combat["attackers"][int(perm.id[1:])]
            if perm.id.startswith("a")
            else combat["blockers"][int(perm.id[1:])][0]
        )
        in_combat = perm.attacking is not None or bool(perm.blocking)
        strikes_first = bool(spec["keywords"] & {"first_strike", "double_strike"})
        if in_combat and spec["power"] > 0 and (strikes_first or not first):
            out.append({"id": perm.id, "power": spec["power"]})
    return out


whole_combats = st.fixed_dictionaries(
    {
        "attackers": st.lists(creature, min_size=1, max_size=4),
        "blockers": st.lists(st.tuples(creature, st.integers(0, 3)), max_size=4),
        "shields": st.lists(st.integers(0, 3), min_size=9, max_size=9),
    }
)


@settings(max_examples=25)
@given(whole_combats, st.randoms(use_true_random=False))
def test_whole_combat_ends_the_same_whatever_the_listing_order(combat: dict, rnd) -> None:
    """From declare blockers to the postcombat main phase by next_step alone (each creature
    assigning by default, prevention shields on random creatures and on bob): the combat
    ends with nobody in combat, no state-based action pending and no creature with lethal
    damage, and the same final position when the permanents are listed in another order."""
    start = build({**combat, "first_step": False}).state
    shields = iter(combat["shields"])
    players = []
    for player in start.players:
        battlefield = [p.model_copy(update={"prevention_shield": next(shields)}) for p in player.battlefield]
        players.append(player.model_copy(update={"battlefield": battlefield}))
    players[1] = players[1].model_copy(update={"prevention_shield": next(shields)})
    start = GameState.model_validate(
        {**start.model_dump(), "step": "declare_blockers", "players": [p.model_dump() for p in players]}
    )
    pool = build({**combat, "first_step": False}).pool
    # another listing order: shuffled, and reversed where the shuffle left a list as it was,
    # so that the second combat is not the first again (its answers would be the first's)
    assume(any(len(p.battlefield) > 1 for p in start.players))
    shuffled_players = []
    for player in start.players:
        battlefield = list(player.battlefield)
        rnd.shuffle(battlefield)
        if battlefield == list(player.battlefield):
            battlefield.reverse()
        shuffled_players.append(player.model_copy(update={"battlefield": battlefield}))
    shuffled = GameState.model_validate({**start.model_dump(), "players": [p.model_dump() for p in shuffled_players]})
    assert [p.id for p in shuffled.permanents()] != [p.id for p in start.permanents()]
    finals = []
    for state in (start, shuffled):
        game = Game(state, pool)
        for _ in range(5):
            game.push(NextStep())
            if game.state.step == "main2":
                break
        assert game.state.step == "main2"
        assert game.state_based_actions() == []
        for perm in game.state.permanents():
            assert perm.attacking is None and not perm.blocking and not perm.blocked
            assert perm.damage < game.characteristics(perm.id).toughness  # type: ignore[operator]
        finals.append(_summary(game.state))
    assert finals[0] == finals[1]


def _summary(state: GameState) -> dict:
    return {
        p.name: (
            p.life,
            p.prevention_shield,
            sorted(c.id for c in p.graveyard),
            sorted((c.id, c.damage, sorted(c.counters.items()), c.prevention_shield) for c in p.battlefield),
        )
        for p in state.players
    }
