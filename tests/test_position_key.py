"""The canonical key of a position (bridge.model.keys.position_key): the same for a state whose
object ids are renamed consistently and for one whose timestamps are shifted in the same
order; different after a real change (a permanent tapped, a life total changed, a card
moved) and when two timestamps change places. The states are the scenarios' positions; the
renaming is done on the state's JSON text, every string that is an id replaced."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from bridge.model.keys import canonical_text, position_key
from bridge.model.scenario import load_scenario
from bridge.model.state import GameState

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "scenarios").rglob("*.yaml"))
# scenarios whose positions use the fields that name objects outside the zones
RICH = [
    "scenarios/layers/dependency/stolen_control_magic_brings_its_creature.yaml",
    "scenarios/layers/copy/clone_of_a_clone_after_the_original_left_copies_what_it_copied.yaml",
    "scenarios/triggers/controller_chooses_the_trigger_target.yaml",
    "scenarios/triggers/lightwielder_paladin_exiles_a_blocker_between_the_damage_steps.yaml",
    "scenarios/replacement/example_614_12_a_copy_of_voice_of_all_chooses_its_own_color.yaml",
]
# the players' mappings whose keys are ids
ID_KEYED = {"trigger_targets", "as_enters", "source_choices"}


# a position that names objects in every field that can: the stack, waiting abilities,
# effects, the players' choices, objects that ceased to exist (gone1, gone2; gone3 unnamed)
HANDMADE = "(handmade)"


@functools.cache
def position(path: str) -> GameState:
    if path == HANDMADE:
        return handmade()
    return load_scenario(ROOT / path).state


def handmade() -> GameState:
    return GameState.model_validate(
        {
            "turn": 4,
            "active": "alice",
            "step": "declare_blockers",
            "players": [
                {
                    "name": "alice",
                    "life": 17,
                    "library": [{"id": "lib1", "card": "Forest"}, "Mountain"],
                    "hand": [{"id": "bolt", "card": "Lightning Bolt"}],
                    "graveyard": [{"id": "gy1", "card": "Giant Growth"}],
                    "prevent_next_from": ["elves"],
                    "trigger_targets": {"kavu": ["bears", "bob"]},
                    "as_enters": {"clone": {"copy": "wurm"}},
                    "declines": ["kavu"],
                    "trigger_order": ["kavu", "pyro"],
                    "source_choices": {"pyro": "elves"},
                    "replacement_order": ["shield"],
                    "battlefield": [
                        {
                            "id": "wurm",
                            "card": "Craw Wurm",
                            "attacking": "bob",
                            "tapped": True,
                            "timestamp": 7,
                            "damage_order": ["elves", "wall"],
                            "blocked": True,
                        },
                        {"id": "bears", "card": "Grizzly Bears", "timestamp": 3, "counters": {"+1/+1": 2}},
                        {"id": "lure", "card": "Lure", "attached_to": "wurm", "timestamp": 9},
                        {"id": "pyro", "card": "Prodigal Pyromancer", "timestamp": 2},
                        {"id": "kavu", "card": "Grizzly Bears", "timestamp": 4},
                        {
                            "id": "clone",
                            "card": "Clone",
                            "timestamp": 12,
                            "chosen": {"copy": "wurm", "copy_card": "Craw Wurm"},
                        },
                        {"id": "shield", "card": "Forest", "timestamp": 1},
                    ],
                },
                {
                    "name": "bob",
                    "library": ["Island"],
                    "exile": [{"id": "ex1", "card": "Doom Blade"}],
                    "battlefield": [
                        {
                            "id": "elves",
                            "card": "Llanowar Elves",
                            "blocking": ["wurm"],
                            "timestamp": 5,
                            "prevent_next_from": ["pyro"],
                        },
                        {
                            "id": "wall",
                            "card": "Wall of Wood",
                            "blocking": ["wurm"],
                            "timestamp": 6,
                            "must_block": ["wurm"],
                        },
                    ],
                },
            ],
            "stack": [
                {"id": "spell1", "card": "Lightning Bolt", "controller": "bob", "targets": ["bears"]},
                {"id": "ab1", "source": "pyro", "ability": 1, "targets": ["gone1"]},
            ],
            "pending_triggers": [{"id": "trig1", "source": "kavu", "trigger": 1, "about": "elves"}],
            "delayed_triggers": [
                {"id": "del1", "source": "gone2", "delayed": "sacrifice", "at": "leaves_battlefield", "watch": "bears"}
            ],
            "effects": [
                {"source": "Giant Growth", "targets": ["bears"], "timestamp": 10},
                {"source": "pyro", "text": "x", "targets": ["elves"], "modify_pt": [1, 0], "timestamp": 11},
            ],
            "gone": ["gone1", "gone2", "gone3"],
            "activated_this_turn": ["pyro/1", "gone1/2"],
        }
    )


def _with(word: str, times: int) -> list[str]:
    """The scenarios whose text has ``word`` at least ``times`` times."""
    return [p for p in SCENARIOS if (ROOT / p).read_text().count(word) >= times]


positions = st.sampled_from([HANDMADE, *RICH, *SCENARIOS]).map(position)
with_ids = st.sampled_from([HANDMADE, *RICH, *_with("id:", 1)]).map(position)
with_timestamps = st.sampled_from([HANDMADE, *_with("timestamp:", 2)]).map(position)


def renamed(state: GameState, mapping: dict[str, str]) -> GameState:
    """The state with every string value that is an id (or ``id/n``, an activated ability)
    replaced by its new name, and the ids that key the players' choices."""

    def new(value: Any, keyed: bool = False) -> Any:
        if isinstance(value, dict):
            return {(mapping.get(k, k) if keyed else k): new(v, k in ID_KEYED) for k, v in value.items()}
        if isinstance(value, list):
            return [new(v) for v in value]
        if isinstance(value, str):
            source, slash, rest = value.rpartition("/")
            if value not in mapping and slash and source in mapping:
                return f"{mapping[source]}/{rest}"
            return mapping.get(value, value)
        return value

    return GameState.model_validate(new(state.model_dump(mode="json")))


def card_names(state: GameState) -> set[str]:
    """The card names of the state, and the words a text-changing effect changes (an id
    equal to one of them, such as ``elf``, can't be renamed alone)."""
    data = state.model_dump(mode="json")
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("card", "copied_from", "copy_card") and isinstance(v, str):
                    found.add(v)
                if k == "text_change" and isinstance(v, dict):
                    found.update(w for w in v.values() if isinstance(w, str))
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(data)
    return found


def restamped(state: GameState, change: dict[int, int]) -> GameState:
    data = state.model_dump(mode="json")
    for player in data["players"]:
        for perm in player["battlefield"]:
            if perm.get("timestamp") is not None:
                perm["timestamp"] = change[perm["timestamp"]]
    for effect in data["effects"]:
        if effect.get("timestamp") is not None:
            effect["timestamp"] = change[effect["timestamp"]]
    return GameState.model_validate(data)


def timestamps(state: GameState) -> list[int]:
    stamps = {p.timestamp for p in state.permanents() if p.timestamp is not None}
    return sorted(stamps | {e.timestamp for e in state.effects if e.timestamp is not None})


@st.composite
def renamings(draw: st.DrawFn) -> tuple[GameState, dict[str, str]]:
    state = draw(with_ids)
    ids = sorted(state.used_ids())
    assume(ids and not set(ids) & card_names(state))
    if draw(st.booleans()):
        # the same names shuffled among the objects
        mapping = dict(zip(ids, draw(st.permutations(ids))))
    else:
        words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789", min_size=1, max_size=6)
        suffixes = draw(st.lists(words, min_size=len(ids), max_size=len(ids)))
        mapping = {old: f"x{i}_{suffix}" for i, (old, suffix) in enumerate(zip(ids, suffixes))}
    return state, mapping


@given(renamings())
def test_renaming_every_id_consistently_keeps_the_key(case: tuple[GameState, dict[str, str]]) -> None:
    state, mapping = case
    other = renamed(state, mapping)
    assert other.used_ids() == {mapping[i] for i in state.used_ids()}
    assert position_key(other) == position_key(state)
    assert canonical_text(other) == canonical_text(state)


@given(with_timestamps, st.integers(1, 1000), st.integers(-50, 10**6), st.randoms(use_true_random=False))
def test_shifting_the_timestamps_in_order_keeps_the_key(state: GameState, scale: int, shift: int, rng: Any) -> None:
    stamps = timestamps(state)
    assume(stamps)
    # a strictly increasing map: scaled and shifted, with gaps added at random
    change, gap = {}, 0
    for t in stamps:
        gap += rng.randrange(0, 5)
        change[t] = t * scale + shift + gap
    assert position_key(restamped(state, change)) == position_key(state)


@given(with_timestamps, st.data())
def test_two_timestamps_changing_places_change_the_key(state: GameState, data: st.DataObject) -> None:
    stamps = timestamps(state)
    assume(len(stamps) >= 2)
    i = data.draw(st.integers(0, len(stamps) - 2))
    change = {t: t for t in stamps}
    change[stamps[i]], change[stamps[i + 1]] = stamps[i + 1], stamps[i]
    assert position_key(restamped(state, change)) != position_key(state)


def changes(state: GameState) -> list[tuple[str, int]]:
    """The real changes that can be made to the state: (kind, which)."""
    out: list[tuple[str, int]] = [("life", i) for i in range(len(state.players))]
    out += [("tap", i) for i in range(len(state.permanents()))]
    for i, player in enumerate(state.players):
        if player.hand:
            out.append(("discard", i))
        if player.library:
            out.append(("draw", i))
    return out


def changed(state: GameState, kind: str, which: int, amount: int) -> GameState:
    data = state.model_dump(mode="json")
    if kind == "life":
        data["players"][which]["life"] += amount
    elif kind == "tap":
        perm = [p for player in data["players"] for p in player["battlefield"]][which]
        perm["tapped"] = not perm["tapped"]
    elif kind == "discard":  # the first card in hand to the top of the graveyard
        player = data["players"][which]
        player["graveyard"].append(player["hand"].pop(0))
    else:  # the top card of the library to the hand
        player = data["players"][which]
        player["hand"].append(player["library"].pop(0))
    return GameState.model_validate(data)


@given(positions, st.data(), st.integers(1, 30), st.booleans())
def test_a_real_change_changes_the_key(state: GameState, data: st.DataObject, amount: int, lose: bool) -> None:
    kind, which = data.draw(st.sampled_from(changes(state)))
    other = changed(state, kind, which, -amount if lose else amount)
    assert position_key(other) != position_key(state)


def test_a_renamed_and_changed_position_differs() -> None:
    # renaming does not hide a change made with it: the bears tapped under another name
    state = GameState.model_validate(
        {
            "active": "alice",
            "players": [
                {"name": "alice", "battlefield": [{"id": "bears", "card": "Grizzly Bears", "timestamp": 3}]},
                {"name": "bob", "battlefield": [{"id": "elves", "card": "Llanowar Elves", "timestamp": 5}]},
            ],
        }
    )
    same = renamed(state, {"bears": "elves", "elves": "bears"})
    assert position_key(same) == position_key(state)
    tapped = changed(same, "tap", 0, 0)
    assert position_key(tapped) != position_key(state)
    assert len(position_key(state)) == 16
