"""A canonical key of a position, for a transposition table.

Two states get the same key when they are the same position up to the names of their objects
and the values of their timestamps: an object id is only a name (renaming every id
consistently, everywhere it is written, keeps the key), and of the timestamps only their order
counts (CR 613.6: effects apply in timestamp order; shifting or spreading them keeps the key).
Anything else that differs (a permanent tapped, a life total, a card in another zone or at
another place in its list, an effect) gives another key.

The canonical form replaces each id by its number in a fixed walk of the state (the players in
order, their zones in :data:`~bridge.model.state.ZONES` order, each list in its order, then the
stack and the abilities waiting to trigger or for targets; ids that only a reference names,
such as an object that ceased to exist, in the order they are first named), written as that
number where the id was a string (a number is never a name, so a renamed id can't meet a
player's or a card's name), and each timestamp by its rank. Mappings keyed by ids become lists
of pairs sorted by the renamed key. Ids that nothing references among the ids that ceased to
exist (``gone``) are left out: they only keep new objects from taking their names.

Lists keep their order, also where a zone's order means nothing for the rules (a hand, the
battlefield): two states listing the same permanents in another order get different keys.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from bridge.model.state import ZONES, GameState

__all__ = ["canonical_form", "canonical_text", "position_key"]

# the fields that name objects (an id, or a player's or card's name where the field allows
# one: only a string that is an object id is renamed)
_PERMANENT_REFS = ("attached_to", "attacking", "put_with")
_PERMANENT_REF_LISTS = ("blocking", "damage_order", "must_block", "prevent_next_from", "prevent_next_from_gains")
_STACK_REFS = ("source", "about", "watch")
_EFFECT_REFS = ("source", "copy_of")
_PLAYER_REF_LISTS = (
    "prevent_next_from",
    "prevent_next_from_gains",
    "replacement_order",
    "declines",
    "discard_order",
    "sacrifice_order",
    "exile_order",
    "trigger_order",
    "timestamp_order",
)
_WAITING = ("stack", "pending_triggers", "delayed_triggers", "awaiting_targets")

Json = Any


def position_key(state: GameState) -> bytes:
    """A 16-byte key of the position: equal for states equal up to renaming object ids and
    shifting timestamps (their order kept), different otherwise (but for a hash collision)."""
    return hashlib.blake2b(canonical_text(state).encode(), digest_size=16).digest()


def canonical_text(state: GameState) -> str:
    """The canonical form as compact JSON with sorted keys: the key before hashing."""
    return json.dumps(canonical_form(state), sort_keys=True, separators=(",", ":"))


def canonical_form(state: GameState) -> dict[str, Json]:
    """The state as JSON data with ids numbered in a fixed walk and timestamps ranked."""
    data: dict[str, Json] = state.model_dump(mode="json", exclude_defaults=True)
    names = _Names(state)
    ranks = {t: i for i, t in enumerate(sorted(_timestamps(state)))}
    for player in data["players"]:
        for zone in ZONES:
            for obj in player.get(zone, []):
                obj["id"] = names.define(obj["id"])
    for field in _WAITING:
        for item in data.get(field, []):
            if "id" in item:
                item["id"] = names.define(item["id"])
    # references, in a fixed order: permanents, players, the stack and waiting abilities, effects
    for player in data["players"]:
        for perm in player.get("battlefield", []):
            _rename_fields(perm, _PERMANENT_REFS, _PERMANENT_REF_LISTS, names)
            if "prevent_next_from_quality" in perm:
                perm["prevent_next_from_quality"] = _sorted_pairs(
                    [(names.ref(k), v) for k, v in perm["prevent_next_from_quality"].items()]
                )
            if "chosen" in perm:
                perm["chosen"] = {k: names.ref(v) for k, v in sorted(perm["chosen"].items())}
            if "timestamp" in perm:
                perm["timestamp"] = ranks[perm["timestamp"]]
    for player in data["players"]:
        _rename_fields(player, (), _PLAYER_REF_LISTS, names)
        if "prevent_next_from_quality" in player:
            player["prevent_next_from_quality"] = _sorted_pairs(
                [(names.ref(k), v) for k, v in player["prevent_next_from_quality"].items()]
            )
        for field in ("source_choices", "picks"):
            if field in player:
                pairs = [(names.ref(k), names.ref(v)) for k, v in player[field].items()]
                player[field] = _sorted_pairs(pairs)
        if "trigger_targets" in player:
            pairs = [(names.ref(k), [names.ref(t) for t in v]) for k, v in player["trigger_targets"].items()]
            player["trigger_targets"] = _sorted_pairs(pairs)
        if "unfound" in player:
            # a set of cards for each source: their order tells nothing
            pairs = [(names.ref(k), sorted(names.ref(t) for t in v)) for k, v in player["unfound"].items()]
            player["unfound"] = _sorted_pairs(pairs)
        if "trigger_modes" in player:
            player["trigger_modes"] = _sorted_pairs([(names.ref(k), v) for k, v in player["trigger_modes"].items()])
        if "as_enters" in player:
            pairs = [(names.ref(k), {c: names.ref(x) for c, x in v.items()}) for k, v in player["as_enters"].items()]
            player["as_enters"] = _sorted_pairs(pairs)
    for player in data["players"]:
        for obj in player.get("exile", []):
            if "exiled_with" in obj:
                obj["exiled_with"] = names.ref(obj["exiled_with"])
    for field in _WAITING:
        for item in data.get(field, []):
            _rename_fields(item, _STACK_REFS, ("targets",), names)
    for effect in data.get("effects", []):
        _rename_fields(effect, _EFFECT_REFS, ("targets",), names)
        if "timestamp" in effect:
            effect["timestamp"] = ranks[effect["timestamp"]]
    if "simultaneous_triggers" in data:
        data["simultaneous_triggers"] = {p: [names.ref(x) for x in v] for p, v in data["simultaneous_triggers"].items()}
    if data.get("awaiting_payment") is not None:
        data["awaiting_payment"]["object"] = names.ref(data["awaiting_payment"]["object"])
    if data.get("announced_damage") is not None:
        pairs = [
            (names.ref(k), _sorted_pairs([(names.ref(x), n) for x, n in v.items()]))
            for k, v in data["announced_damage"].items()
        ]
        data["announced_damage"] = _sorted_pairs(pairs)
    if "activated_this_turn" in data:
        data["activated_this_turn"] = [_ability_key(entry, names) for entry in data["activated_this_turn"]]
    if "gone" in data:
        named = [names.known[g] for g in state.gone if g in names.known]
        if named:
            data["gone"] = sorted(named)
        else:
            del data["gone"]
    return data


class _Names:
    """Numbers for the ids of one state, given in the order they are met."""

    def __init__(self, state: GameState) -> None:
        self.ids = state.used_ids()
        self.known: dict[str, int] = {}

    def define(self, object_id: str) -> int:
        return self.known.setdefault(object_id, len(self.known))

    def ref(self, value: Json) -> Json:
        """A referenced id's number (numbered now if first met); anything else as it is."""
        if isinstance(value, str) and value in self.ids:
            return self.define(value)
        return value


def _rename_fields(item: dict[str, Json], single: Iterable[str], lists: Iterable[str], names: _Names) -> None:
    for field in single:
        if field in item:
            item[field] = names.ref(item[field])
    for field in lists:
        if field in item:
            item[field] = [names.ref(v) for v in item[field]]


def _sorted_pairs(pairs: list[tuple[Json, Json]]) -> list[list[Json]]:
    return [list(p) for p in sorted(pairs, key=_pair_text)]


def _pair_text(pair: tuple[Json, Json]) -> str:
    return json.dumps(pair, sort_keys=True)


def _ability_key(entry: str, names: _Names) -> Json:
    """``source/ability`` with the source renamed."""
    source, slash, number = entry.rpartition("/")
    if slash and source in names.ids:
        return [names.ref(source), number]
    return entry


def _timestamps(state: GameState) -> set[int]:
    stamps = {p.timestamp for p in state.permanents() if p.timestamp is not None}
    return stamps | {e.timestamp for e in state.effects if e.timestamp is not None}
