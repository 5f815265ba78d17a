"""phase.rs (the ``phase-python`` package, import name ``phase``) as a peer: a board built in
its engine and its answers to the questions ``mtgasp diff`` asks, as plain data.

phase ships no card data: ``oracle_records.json`` beside this module holds MTGJSON-style
records (today's Oracle text) that ``phase.build_oracle_face`` turns into phase's card faces.
phase-python cannot create objects at will, so a board is reached as the benchmarks reach it
(``benchmarks/phase_peer.py``): a Limited game whose decks hold the board's cards and basic
land filler, phase's own debug actions to move the cards where the board has them (the
battlefield, the hand), tap them, put counters on them and attach the Auras, phase stops on
both declaration steps, and the game set to the active player's precombat main phase.
Damage marked on a permanent is written into the exported state, which is loaded again.

Everything here is a peer's answer, not a rule of this project: nothing in the engine reads
it. The module imports ``phase`` only when asked (the ``peers`` extra installs it).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

RECORDS_FILE = Path(__file__).resolve().parent / "oracle_records.json"
INSTALL_HINT = "install the peer with: pip install 'mtgasp[peers]' (or pip install -e '.[peers]' in a checkout)"

_FILLER = "Plains"  # library filler
_MIN_DECK = 40  # the Limited minimum
_MIN_FILLER = 30
_SEED = 42
_PASS = {"type": "PassPriority"}
# the steps phase must stop at (otherwise it declares nothing on its own when nobody can)
_STOPS = ["DeclareAttackers", "DeclareBlockers"]


class PeerError(Exception):
    """The peer could not reach the position or answered in an unexpected shape."""


def unavailable() -> str | None:
    """None when phase-python can be imported, else a one-line reason with how to install it."""
    try:
        module = importlib.import_module("phase")
    except Exception as exc:  # ImportError, or a wheel that does not load here
        return f"phase-python is not importable ({type(exc).__name__}: {exc}); {INSTALL_HINT}"
    for attr in ("Engine", "build_oracle_face"):
        if not hasattr(module, attr):
            return f"the installed phase module has no {attr!r}; {INSTALL_HINT}"
    return None


def version() -> str:
    """The installed phase-python's version."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("phase-python")
    except PackageNotFoundError:
        return "unknown"


@cache
def oracle_records() -> dict[str, dict[str, Any]]:
    """The card records the peer is given, by card name."""
    records: list[dict[str, Any]] = json.loads(RECORDS_FILE.read_text(encoding="utf-8"))
    return {r["name"]: r for r in records}


@cache
def _engine() -> Any:
    phase = importlib.import_module("phase")
    faces = {}
    for record in oracle_records().values():
        face = phase.build_oracle_face(record, None)
        faces[face["name"].lower()] = face
    return phase.Engine.from_json(json.dumps(faces))


def _debug(game: Any, kind: str, data: Mapping[str, Any] | None = None) -> Any:
    payload: dict[str, Any] = {"type": kind}
    if data is not None:
        payload["data"] = dict(data)
    return game.apply(0, {"type": "Debug", "data": payload})


def _pass_until(game: Any, wanted: str, limit: int = 16) -> Any:
    for _ in range(limit):
        prompt = game.waiting_for()
        if prompt["type"] == wanted:
            return prompt
        if prompt["type"] != "Priority":
            raise PeerError(f"unexpected prompt {prompt['type']} on the way to {wanted}")
        game.apply(prompt["data"]["player"], _PASS)
    raise PeerError(f"{wanted} was not reached")


def phase_boards(board: Mapping[str, Any]) -> tuple[PhaseBoard, PhaseBoard]:
    """The board built in phase twice, from one setup: as it is, and clean (without damage
    and -1/-1 counters: the position where declarations and actions are compared)."""
    records = oracle_records()
    permanents: list[Mapping[str, Any]] = list(board["permanents"])
    hand: list[str] = list(board.get("hand", []))
    for card in [p["card"] for p in permanents] + hand:
        if card not in records:
            raise PeerError(f"no Oracle record for {card!r}")
    decks: list[list[str]] = [[], []]
    for p in permanents:
        decks[p["side"]].append(p["card"])
    decks[0] += hand
    for deck in decks:
        deck += [_FILLER] * max(_MIN_FILLER, _MIN_DECK - len(deck))
    engine = _engine()
    game = engine.new_game(decks[0], decks[1], seed=_SEED, first_player=0, format="Limited")
    # the hands and libraries are set in the exported state (cards moving between a hidden
    # zone and another: no characteristic changes), debug actions allowed, and the game loaded
    exported = game.state()
    state = exported["state"]
    state["debug_mode"] = True
    state["debug_permitted"] = [0]
    free: dict[tuple[int, str], list[int]] = {}
    for oid, obj in sorted(state["objects"].items(), key=lambda item: int(item[0])):
        if obj["zone"] in ("Hand", "Library"):
            free.setdefault((obj["owner"], obj["name"]), []).append(int(oid))
    in_hand = [free[(0, card)].pop(0) for card in hand]
    for seat, player in enumerate(state["players"]):
        hidden = player["hand"] + player["library"]
        player["hand"] = [oid for oid in hidden if oid in in_hand] if seat == 0 else []
        player["library"] = [oid for oid in hidden if oid not in in_hand]
        for oid in hidden:
            state["objects"][str(oid)]["zone"] = "Hand" if oid in player["hand"] else "Library"
    game = engine.load_game(exported)
    while game.waiting_for()["type"] == "MulliganDecision":
        pending = game.waiting_for()["data"]["pending"]
        game.apply(pending[0]["player"], {"type": "MulliganDecision", "data": {"choice": {"type": "Keep"}}})

    ids: dict[str, int] = {}
    for p in permanents:
        oid = free[(p["side"], p["card"])].pop()
        ids[p["id"]] = oid
        _debug(game, "MoveToZone", {"object_id": oid, "to_zone": "Battlefield", "simulate": False})
        if "Creature" in records[p["card"]]["types"]:
            _debug(game, "SetSummoningSickness", {"object_id": oid, "sick": False})
    for p in permanents:
        oid = ids[p["id"]]
        if p.get("attached_to"):
            target = {"type": "Object", "data": ids[p["attached_to"]]}
            _debug(game, "Attach", {"object_id": oid, "target": target})
        if p.get("tapped"):
            _debug(game, "SetTapped", {"object_id": oid, "tapped": True})
        if (p.get("counters") or {}).get("+1/+1"):
            _debug(game, "ModifyCounters", {"object_id": oid, "counter_type": "P1P1", "delta": p["counters"]["+1/+1"]})
    for seat in (0, 1):
        game.apply(seat, {"type": "SetPhaseStops", "data": {"stops": _STOPS}})
    _debug(game, "SetPhase", {"phase": "PreCombatMain", "active_player": 0})
    exported = game.state()
    clean = PhaseBoard(game, ids)
    for p in permanents:
        if p.get("damage"):
            exported["state"]["objects"][str(ids[p["id"]])]["damage_marked"] = p["damage"]
    full = PhaseBoard(engine.load_game(exported), ids)
    for p in permanents:
        if (p.get("counters") or {}).get("-1/-1"):
            data = {"object_id": ids[p["id"]], "counter_type": "M1M1", "delta": p["counters"]["-1/-1"]}
            _debug(full.game, "ModifyCounters", data)
    return full, clean


class PhaseBoard:
    """A board built in phase: the game at the active player's precombat main phase, and the
    board's ids mapped to phase's object ids."""

    def __init__(self, game: Any, ids: Mapping[str, int]) -> None:
        self.game = game
        self.ids = dict(ids)
        self.back = {oid: bid for bid, oid in self.ids.items()}
        for bid, oid in self.ids.items():
            if game.object(oid)["zone"] != "Battlefield":
                raise PeerError(f"{bid} is not on the battlefield after the setup")

    # ------------------------------------------------------------------ questions
    def characteristics(self) -> dict[str, dict[str, Any]]:
        """Each creature's power, toughness and keywords (lower case, landwalk as
        ``swampwalk`` ...), as phase has them after its layers."""
        out: dict[str, dict[str, Any]] = {}
        for bid, oid in self.ids.items():
            obj = self.game.object(oid)
            if "Creature" not in obj["card_types"]["core_types"]:
                continue
            out[bid] = {
                "power": obj["power"],
                "toughness": obj["toughness"],
                "keywords": sorted(_keyword(k) for k in obj["keywords"]),
            }
        return out

    def state_based_actions(self) -> list[str]:
        """The board's permanents that phase's state-based actions take off the battlefield,
        checked as phase does before a player receives priority: the active player passes.
        (phase's debug action ``RunStateBasedActions`` makes one pass only, where 704.3 checks
        again until none applies: a creature that an anthem's source dying leaves at 0
        toughness would stay.)"""
        self.game.apply(0, _PASS)
        return sorted(bid for bid, oid in self.ids.items() if self.game.object(oid)["zone"] != "Battlefield")

    def priority_actions(self) -> list[list[str]]:
        """The actions phase lists for the player with priority, as [kind, card name]: pass,
        play_land, cast, activate (mana abilities left out: phase pays costs itself)."""
        out: set[tuple[str, str]] = set()
        for action in self.game.actions():
            shown = action.to_dict()
            kind, data = shown["type"], shown.get("data") or {}
            if kind == "PassPriority":
                out.add(("pass", ""))
            elif kind == "PlayLand":
                out.add(("play_land", self.game.object(data["object_id"])["name"]))
            elif kind == "CastSpell":
                out.add(("cast", self.game.object(data["object_id"])["name"]))
            elif kind == "ActivateAbility":
                out.add(("activate", self.game.object(data["source_id"])["name"]))
            else:
                out.add((kind, ""))
        return [list(a) for a in sorted(out)]

    def declare_attackers(self, attack: Mapping[str, str]) -> str | None:
        """None when phase accepts the declaration (every attacker attacks the defending
        player), else its message."""
        _pass_until(self.game, "DeclareAttackers")
        attacks = [[self.ids[a], {"type": "Player", "data": 1}] for a in attack]
        return self._apply(0, {"type": "DeclareAttackers", "data": {"attacks": attacks}})

    def declare_blockers(self, block: Mapping[str, Sequence[str]]) -> str | None:
        """After an accepted attack: None when phase accepts the declaration of blockers."""
        _pass_until(self.game, "DeclareBlockers")
        pairs = [[self.ids[b], self.ids[a]] for b, attackers in block.items() for a in attackers]
        return self._apply(1, {"type": "DeclareBlockers", "data": {"assignments": pairs}})

    def _apply(self, seat: int, action: Mapping[str, Any]) -> str | None:
        try:
            self.game.apply(seat, dict(action))
        except ValueError as exc:
            return str(exc) or "rejected"
        return None

    def try_assignment(self, attacker: str, assignment: Mapping[str, int]) -> str | None:
        """After accepted blocks, on a copy of the game: play on to ``attacker``'s combat damage
        assignment (others' assigned by default) and answer it with ``assignment`` (blocker
        id -> damage); None when phase accepts it, else its message."""
        game = _engine().load_game(self.game.state())
        for _ in range(200):
            prompt = game.waiting_for()
            if prompt["type"] == "Priority" and game.phase in ("EndCombat", "PostCombatMain"):
                raise PeerError(f"no damage assignment was asked of {attacker}")
            if prompt["type"] == "Priority":
                game.apply(prompt["data"]["player"], _PASS)
            elif prompt["type"] == "AssignCombatDamage":
                data = prompt["data"]
                if self.back.get(data["attacker_id"]) != attacker:
                    game.apply(data["player"], self._assignment(game, data, []))
                    continue
                pairs = [[self.ids[b], n] for b, n in assignment.items()]
                answer = {
                    "type": "AssignCombatDamage",
                    "data": {"mode": "Normal", "assignments": pairs, "trample_damage": 0, "controller_damage": 0},
                }
                try:
                    game.apply(data["player"], answer)
                except ValueError as exc:
                    return str(exc) or "rejected"
                return None
            else:
                raise PeerError(f"unexpected prompt in combat: {prompt['type']}")
        raise PeerError("the damage assignment was not reached")

    def combat_damage(self, order: Mapping[str, Sequence[str]]) -> dict[str, Any]:
        """After accepted blocks: play to the end of combat, each attacker's damage assigned
        as mtgasp does by default (lethal damage to each blocker in ``order``, the rest to the
        last one or, with trample, to the player); then the life totals, the board's
        permanents in a graveyard and the damage marked on the others."""
        game = self.game
        for _ in range(200):
            prompt = game.waiting_for()
            if prompt["type"] == "Priority" and game.phase in ("EndCombat", "PostCombatMain"):
                break
            if prompt["type"] == "Priority":
                game.apply(prompt["data"]["player"], _PASS)
            elif prompt["type"] == "AssignCombatDamage":
                data = prompt["data"]
                wanted = [self.ids[b] for b in order.get(self.back.get(data["attacker_id"], ""), [])]
                game.apply(data["player"], self._assignment(game, data, wanted))
            elif prompt["type"] == "GameOver":
                break
            else:
                raise PeerError(f"unexpected prompt in combat: {prompt['type']}")
        else:
            raise PeerError("the end of combat was not reached")
        dead = sorted(bid for bid, oid in self.ids.items() if game.object(oid)["zone"] == "Graveyard")
        damage = {
            bid: game.object(oid)["damage_marked"]
            for bid, oid in self.ids.items()
            if game.object(oid)["zone"] == "Battlefield" and game.object(oid)["damage_marked"]
        }
        return {"life": [game.player(0)["life"], game.player(1)["life"]], "dead": dead, "damage": damage}

    def _assignment(self, game: Any, data: Mapping[str, Any], order: list[int]) -> dict[str, Any]:
        present = [b["blocker_id"] for b in data["blockers"]]
        blockers = [b for b in order if b in present] + sorted(set(present) - set(order))
        left = data["total_damage"]
        trample = data.get("trample") is not None
        assignments = []
        for i, b in enumerate(blockers):
            obj = game.object(b)
            lethal = max(0, obj["toughness"] - obj["damage_marked"])
            n = left if i == len(blockers) - 1 and not trample else min(lethal, left)
            assignments.append([b, n])
            left -= n
        return {
            "type": "AssignCombatDamage",
            "data": {
                "mode": "Normal",
                "assignments": assignments,
                "trample_damage": left if trample else 0,
                "controller_damage": 0,
            },
        }


def _keyword(value: Any) -> str:
    """A phase keyword as a lower-case name: ``Flying`` -> flying, ``{"Landwalk": "Swamp"}``
    -> swampwalk."""
    if isinstance(value, str):
        return value.lower().replace("strike", " strike").replace("  ", " ").strip()
    if isinstance(value, Mapping) and len(value) == 1:
        ((name, arg),) = value.items()
        if name == "Landwalk" and isinstance(arg, str):
            return f"{arg.lower()}walk"
        return str(name).lower()
    return str(value).lower()
