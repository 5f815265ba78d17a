"""Replacement and prevention effects on one damage event, in every order a player may choose.

A spell (Blaze) deals X damage to a Cleric creature while several permanents double damage (Furnace
of Rath) or prevent 1 of it (Daunting Defender's controller's Clerics), with a prevention
shield on the creature. Whatever order its controller names (CR 616.1), the damage the rules
mark on it equals applying each effect once (614.5), in that order, to what the earlier ones
left (616.1d), the shield first unless named later, and nothing applying to 0 damage (614.7a).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.engine.facts import asp_string
from bridge.engine.game import Game
from bridge.engine.resolve import RESOLVING, RESOLVING_PARTS
from bridge.engine.solver import Session
from bridge.model.state import GameState

cases = st.fixed_dictionaries(
    {
        "damage": st.integers(1, 5),
        "doublers": st.integers(0, 2),
        "preventers": st.integers(0, 2),
        "shield": st.integers(0, 3),
        "order": st.permutations(["d0", "d1", "p0", "p1", "prevention_shield"]),
        "named": st.integers(0, 5),
    }
)


def expected(case: dict) -> int:
    """The damage dealt, applying the effects in the chosen order."""
    present = {f"d{i}" for i in range(case["doublers"])} | {f"p{i}" for i in range(case["preventers"])}
    named = [s for s in case["order"][: case["named"]] if s in present or s == "prevention_shield"]
    rest = sorted(present - set(named), key=lambda s: (0 if s.startswith("p") else 1, s))
    statics = [s for s in named if s != "prevention_shield"] + rest
    shield_last = "prevention_shield" in named and any(
        named.index(s) < named.index("prevention_shield") for s in named if s != "prevention_shield"
    )
    value, shield = case["damage"], case["shield"]
    if not shield_last:
        value = max(value - shield, 0)
    for source in statics:
        if value == 0:
            break
        value = value * 2 if source.startswith("d") else value - 1
    if shield_last:
        value = max(value - shield, 0)
    return value


def position(case: dict) -> GameState:
    names = [s for s in case["order"][: case["named"]]]
    bob = [{"id": "cleric", "card": "Venerable Monk", "prevention_shield": case["shield"]}]
    bob += [{"id": f"p{i}", "card": "Daunting Defender"} for i in range(case["preventers"])]
    alice = [{"id": f"d{i}", "card": "Furnace of Rath"} for i in range(case["doublers"])]
    return GameState.model_validate(
        {
            "active": "alice",
            "step": "main1",
            "stack": [
                {"id": "blast", "card": "Blaze", "controller": "alice", "targets": ["cleric"], "x": case["damage"]}
            ],
            "players": [
                {"name": "alice", "battlefield": alice},
                {"name": "bob", "battlefield": bob, "replacement_order": names},
            ],
        }
    )


@settings(max_examples=40)
@given(cases)
def test_damage_follows_the_chosen_order(case: dict) -> None:
    state = position(case)
    game = Game(state)
    # the rules' own answer, before state-based actions (the marked damage may be lethal)
    facts = game.position.facts + f"\nresolving({asp_string('blast')})."
    model = Session(game.modules(*RESOLVING), facts, RESOLVING_PARTS).solve().model
    marked = {s.arguments[0].string: s.arguments[1].number for s in model if s.match("damage_marked", 2)}
    assert marked.get("cleric", 0) == expected(case), (case, marked)
