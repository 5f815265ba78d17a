"""Small changes to a position that decide nothing: copying the state with some fields changed
(validated again only when an object may have appeared or moved), updating permanents,
removing permanents from combat (506.4), a new timestamp (613.6), a position's key for
answers that don't read priority.
"""

from __future__ import annotations

from collections.abc import Mapping

from bridge.engine.facts import stamps
from bridge.model.state import GameState

# fields the engine sets to values it made itself, with no new object in them: a copy needs no
# validation
_PLAIN_FIELDS = frozenset(
    {
        "priority",
        "passed",
        "step",
        "combat_damage_dealt",
        "cleanup_again",
        "declared",
        "combat_damage_prevented",
        "extra_combats",
        "attacked_this_combat",
        "announced_damage",
        "announced_prevention",
        "simultaneous_triggers",
        "gone",  # ids only ever added: an object that ceased to exist (validation reads it as a permission)
    }
)


def updated(state: GameState, **fields: object) -> GameState:
    if fields and _PLAIN_FIELDS.issuperset(fields):
        return state.model_copy(update=fields)
    return GameState.model_validate(state.model_copy(update=fields).model_dump())


# Fields of a permanent that hold plain values: changing only these needs no revalidation of
# the state (no object appears or moves).
_PLAIN_PERMANENT_FIELDS = frozenset(
    {
        "tapped",
        "sick",
        "seen_controller",
        "damage",
        "attacking",
        "blocking",
        "blocked",
        "band",
        "damage_order",
        "struck_first",
        "removed_from_combat",
        "prevention_shield",
        "regeneration_shields",
        "must_block",
        "attacked_this_turn",
        "deathtouch_damage",
        "frozen",
        "prevent_next_from",
        "prevent_next_from_quality",
        "prevent_next_from_gains",
    }
)


def update_permanents(state: GameState, changes: Mapping[str, Mapping[str, object]]) -> GameState:
    players = []
    for player in state.players:
        battlefield = [
            p.model_copy(update=dict(changes[p.id])) if p.id is not None and p.id in changes else p
            for p in player.battlefield
        ]
        players.append(player.model_copy(update={"battlefield": battlefield}))
    copied = state.model_copy(update={"players": players})
    if all(_PLAIN_PERMANENT_FIELDS.issuperset(c) for c in changes.values()):
        return copied
    return GameState.model_validate(copied.model_dump())


def update_permanent(state: GameState, object_id: str, changes: dict[str, object]) -> GameState:
    return update_permanents(state, {object_id: changes}) if changes else state


# ---------------------------------------------------------------------- small helpers
def next_timestamp(state: GameState) -> int:
    """CR 613.6: a timestamp later than every one in the position."""
    permanents, effects = stamps(state)
    return max([*permanents.values(), *effects], default=0) + 1


# A position as a key of answers that don't read priority or who passed.
def steps_key(state: GameState) -> str:
    return state.model_copy(update={"priority": None, "passed": []}).model_dump_json()


# ---------------------------------------------------------------------- steps and turns
# CR 506.4, 511.3: what a permanent removed from combat keeps of combat: nothing.
OUT_OF_COMBAT: Mapping[str, object] = {
    "attacking": None,
    "blocking": [],
    "band": None,
    "blocked": False,
    "damage_order": [],
    "struck_first": False,
    "removed_from_combat": False,
}


def remove_from_combat(state: GameState, removed: set[str]) -> GameState:
    """CR 506.4: the permanents stop being attacking, blocking, blocked or unblocked (and
    leave their bands, 702.19f); a planeswalker stops being attacked (506.4c).  An attacker
    whose blockers are removed stays blocked (509.1h); a blocker whose attackers are removed
    stays on the battlefield blocking nothing."""
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        assert perm.id is not None  # validation gives every object an id
        change: dict[str, object] = {}
        if perm.id in removed:
            change.update(
                attacking=None,
                blocking=[],
                band=None,
                blocked=False,
                damage_order=[],
                struck_first=False,
                removed_from_combat=perm.removed_from_combat or _attacked(state, perm.id),
            )
        else:
            if perm.attacking is not None and any(perm.id in b.blocking for b in state.permanents()):
                change["blocked"] = True
            if set(perm.blocking) & removed:
                change["blocking"] = [a for a in perm.blocking if a not in removed]
            if set(perm.damage_order) & removed:
                change["damage_order"] = [x for x in perm.damage_order if x not in removed]
        if change:
            changes[perm.id] = change
    return update_permanents(state, changes)


def _attacked(state: GameState, object_id: str) -> bool:
    return any(p.attacking == object_id for p in state.permanents())
