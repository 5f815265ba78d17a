"""Peer benchmark: phase.rs (via ``phase-python``) on the priority loop benchmark's board.

A sibling of ``phase_peer.py`` (whose card records, engine and debug helpers it reuses); run
it in the peers' environment::

    benchmarks/.peers/bin/python benchmarks/phase_loop_peer.py --board board.json [--repeats 50]

which prints one JSON object. The board is ``priority_loop.py``'s position as a plain dict
(``turn``, ``active``, ``players``: ``name``, ``life``, ``library`` (top first), ``hand``,
``battlefield`` (``{"card": name}``)); the active player is phase's seat 0.

How the position is built (untimed)
-----------------------------------
``Engine.new_game`` (``Limited``, seat 0 = the active player) with decks holding exactly each
player's cards plus Plains filler up to the 40-card minimum; debug actions switched on in the
exported state; both players keep their opening hands; phase's debug actions then move every
card where the board has it (``MoveToZone``: lands and creatures to the battlefield, the hand
to the hand, the library to the library), clear the creatures' summoning sickness and remove
the filler (``RemoveObject``). The library order (top first) and the turn number are written
into the exported state (``players[i].library``, ``turn_number``), which is re-loaded. Two
snapshots are kept:

- ``draw``: ``SetPhase`` to the active player's draw step of the board's turn (``SetPhase``
  performs no turn-based action, so no card is drawn) with priority to the active player;
- ``end``: the same board in the end step of the previous turn (turn - 1, the other player
  active and with priority).

A game fresh out of ``Engine.load_game`` carries lazy rebuild work that would be charged to
its first action, so each measured position is reached by playing real actions from a
snapshot (untimed):

- main phase 1 of the board's turn, active player to act: ``draw`` restored, both players
  pass priority (the step ends; the hand and library stay as the board has them);
- upkeep of the board's turn: ``end`` restored, both players pass (cleanup, untap step,
  upkeep; priority to the active player).

What is timed (``time.perf_counter_ns``, garbage collector off, two untimed warm-up repeats,
medians of ``--repeats``), each repeat on a freshly reached game
------------------------------------------------------------------------------------------
- ``pass``: in main phase 1, ``apply(0, PassPriority)``: the opponent receives priority;
- ``resolve``: Lightning Bolt cast by the active player targeting the opponent (untimed: the
  ``CastSpell`` listed by ``actions()`` and ``ChooseTarget``), then the two timed calls
  ``apply(0, PassPriority)`` and ``apply(1, PassPriority)``: the second one resolves the
  Bolt, checks state-based actions and gives the active player priority;
- ``cast``: ``apply(0, CastSpell)`` (the action as ``actions()`` lists it, with
  ``payment_mode: Auto``), which opens a ``TargetSelection`` prompt, and
  ``apply(0, ChooseTarget {Player: 1})``, which finishes the cast: phase pays the cost itself
  (its auto payment taps a land for {R}) and puts the spell on the stack (both calls timed,
  also reported separately);
- ``actions``: ``game.actions()``, the legal actions of the player with priority. phase lists
  a spell or ability once, before its targets are chosen (they are offered in the
  ``TargetSelection`` prompt that follows); the count with targets expanded (one entry per
  legal target, as ``bridge.play.agents.decisions`` lists them) is worked out untimed by applying
  each listed action on a fresh game and reading its prompt;
- ``turn``: from the active player's upkeep to the next turn's upkeep, everybody passing. A
  dry run answers every prompt (``PassPriority``; ``DeclareAttackers`` with no attackers) and
  records the actions; timed: (a) the recorded actions replayed as prebuilt ``GameAction``
  objects without reading prompts, (b) a client loop that reads ``waiting_for()`` before each
  action and answers it. Both must end at the next turn's upkeep with the other player to act.

Each timed repeat's result is checked (who has priority, the stack, life totals, the step).
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import phase_peer as pp

PASS = {"type": "PassPriority"}
NO_ATTACK = {"type": "DeclareAttackers", "data": {"attacks": []}}
_FILLER = "Plains"
_MIN_DECK = 40


class _Setup:
    __slots__ = ("bolt", "draw_snapshot", "end_snapshot", "ids", "lands", "setup_ms", "turn")


def _debug(game, kind: str, data: dict | None = None):
    return pp._debug(game, 0, kind, data)


def _build(board: dict) -> _Setup:
    t0 = time.perf_counter()
    engine = pp._get_engine()
    by_name = {p["name"]: p for p in board["players"]}
    active = board["active"]
    seats = [by_name[active]] + [p for p in board["players"] if p["name"] != active]
    if len(seats) != 2:
        raise pp._SetupError("two players expected")
    for p in seats:
        for card in [c["card"] for c in p["battlefield"]] + p["hand"] + p["library"]:
            if card not in pp.ORACLE_RECORDS:
                raise pp._SetupError(f"no Oracle record for card {card!r}")
        if p.get("life", 20) != 20:
            raise pp._SetupError("life totals other than 20 are not set up")
    decks = []
    for p in seats:
        cards = [c["card"] for c in p["battlefield"]] + p["hand"] + p["library"]
        decks.append(cards + [_FILLER] * max(0, _MIN_DECK - len(cards)))
    game = pp._new_debug_game(engine, decks[0], decks[1])

    pool: dict[tuple[int, str], list[int]] = {}
    for oid, obj in game.state()["state"]["objects"].items():
        pool.setdefault((obj["owner"], obj["name"]), []).append(int(oid))
    for ids in pool.values():
        ids.sort()
    ids: dict[str, list[int]] = {}  # "seat:card" -> object ids on the battlefield / in hand
    library: dict[int, list[int]] = {}
    for seat, p in enumerate(seats):
        for entry in p["battlefield"]:
            oid = pool[(seat, entry["card"])].pop(0)
            _debug(game, "MoveToZone", {"object_id": oid, "to_zone": "Battlefield", "simulate": False})
            if "Creature" in pp.ORACLE_RECORDS[entry["card"]]["types"]:
                _debug(game, "SetSummoningSickness", {"object_id": oid, "sick": False})
            ids.setdefault(f"{seat}:{entry['card']}", []).append(oid)
        for card in p["hand"]:
            oid = pool[(seat, card)].pop(0)
            if game.object(oid)["zone"] != "Hand":
                _debug(game, "MoveToZone", {"object_id": oid, "to_zone": "Hand", "simulate": False})
            ids.setdefault(f"{seat}:{card}", []).append(oid)
        library[seat] = []
        for card in p["library"]:
            oid = pool[(seat, card)].pop(0)
            if game.object(oid)["zone"] != "Library":
                _debug(game, "MoveToZone", {"object_id": oid, "to_zone": "Library", "simulate": False})
            library[seat].append(oid)
    for _key, rest in pool.items():
        for oid in rest:
            _debug(game, "RemoveObject", {"object_id": oid})
    _debug(game, "RunStateBasedActions")

    st = game.state()
    s = st["state"]
    for seat, p in enumerate(seats):
        if sorted(s["players"][seat]["library"]) != sorted(library[seat]):
            raise pp._SetupError(f"seat {seat}: the library is not the board's")
        s["players"][seat]["library"] = library[seat]  # top first
        hand = sorted(s["objects"][str(o)]["name"] for o in s["players"][seat]["hand"])
        if hand != sorted(p["hand"]):
            raise pp._SetupError(f"seat {seat}: hand {hand} is not the board's")
    s["turn_number"] = board["turn"]
    draw_game = engine.load_game(json.dumps(st))
    _debug(draw_game, "SetPhase", {"phase": "Draw", "active_player": 0})
    s["turn_number"] = board["turn"] - 1
    end_game = engine.load_game(json.dumps(st))
    _debug(end_game, "SetPhase", {"phase": "End", "active_player": 1})

    setup = _Setup()
    setup.draw_snapshot = json.dumps(draw_game.state())
    setup.end_snapshot = json.dumps(end_game.state())
    setup.turn = board["turn"]
    setup.ids = ids
    bolts = ids.get("0:Lightning Bolt")
    setup.bolt = bolts[0] if bolts else None
    setup.lands = {
        oid: name.split(":", 1)[1]
        for name, oids in ids.items()
        for oid in oids
        if name.startswith("0:") and "Land" in pp.ORACLE_RECORDS[name.split(":", 1)[1]]["types"]
    }
    setup.setup_ms = (time.perf_counter() - t0) * 1000
    return setup


# ---------------------------------------------------------------------- positions (untimed)
def _priority(game) -> int | None:
    wf = game.waiting_for()
    return wf["data"]["player"] if wf["type"] == "Priority" else None


def _reach_main(setup: _Setup):
    game = pp._get_engine().load_game(setup.draw_snapshot)
    game.apply(0, PASS)
    game.apply(1, PASS)
    if game.phase != "PreCombatMain" or _priority(game) != 0 or game.turn != setup.turn:
        raise pp._SetupError(f"main phase not reached: {game.turn} {game.phase} {game.waiting_for()['type']}")
    return game


def _reach_upkeep(setup: _Setup):
    game = pp._get_engine().load_game(setup.end_snapshot)
    game.apply(1, PASS)
    game.apply(0, PASS)
    if game.phase != "Upkeep" or _priority(game) != 0 or game.turn != setup.turn:
        raise pp._SetupError(f"upkeep not reached: {game.turn} {game.phase} {game.waiting_for()['type']}")
    return game


def _bolt_actions(setup: _Setup):
    """The ``CastSpell`` that ``actions()`` lists for Lightning Bolt and the ``ChooseTarget``
    naming the opponent (both as prebuilt ``GameAction`` objects)."""
    ph = pp._load_phase()
    if setup.bolt is None:
        raise pp._SetupError("the active player has no Lightning Bolt in hand")
    game = _reach_main(setup)
    cast = [a for a in game.actions() if a.kind == "CastSpell" and a.data["object_id"] == setup.bolt]
    if not cast:
        raise pp._SetupError("phase does not list casting Lightning Bolt")
    prompt = game.apply(0, cast[0]).waiting_for
    if prompt["type"] != "TargetSelection":
        raise pp._SetupError(f"casting Lightning Bolt prompts {prompt['type']}, not TargetSelection")
    if {"Player": 1} not in prompt["data"]["selection"]["current_legal_targets"]:
        raise pp._SetupError("the opponent is not a legal target of Lightning Bolt")
    return cast[0], ph.GameAction.from_dict({"type": "ChooseTarget", "data": {"target": {"Player": 1}}})


# ---------------------------------------------------------------------- timing
def _timed(
    prepare: Callable[[], Any],
    run: Callable[[Any, list[int]], Any],
    check: Callable[[Any, Any], str | None],
    repeats: int,
    warmup: int = 2,
) -> tuple[list[float], list[list[float]], Any]:
    """Per repeat: ``prepare()`` (untimed), ``run(game, marks)`` timed (``marks`` collects
    intermediate ``perf_counter_ns`` stamps), then ``check(game, result)`` (untimed; a string
    is an error). Returns total ms per repeat, split ms per repeat, the first result."""
    totals, splits, first = [], [], None
    gc_was_enabled = gc.isenabled()
    for i in range(warmup + repeats):
        game = prepare()
        marks: list[int] = []
        if gc_was_enabled:
            gc.disable()
        t0 = time.perf_counter_ns()
        result = run(game, marks)
        t1 = time.perf_counter_ns()
        if gc_was_enabled:
            gc.enable()
        problem = check(game, result)
        if problem:
            raise pp._SetupError(f"a timed repeat ended elsewhere: {problem}")
        if i >= warmup:
            totals.append((t1 - t0) / 1e6)
            points = [t0] + marks + [t1]
            splits.append([(b - a) / 1e6 for a, b in zip(points, points[1:])])
        if first is None:
            first = result
    return totals, splits, first


def _median(xs: list[float]) -> float:
    return statistics.median(xs)


def _row(fn: Callable[[], dict]) -> dict:
    try:
        return fn()
    except (pp._SetupError, ValueError, KeyError, RuntimeError) as exc:
        return {"reason": f"{type(exc).__name__}: {exc}"}


def measure_pass(setup: _Setup, repeats: int) -> dict:
    pass_action = pp._load_phase().GameAction.from_dict(PASS)

    def check(game, _):
        if _priority(game) != 1 or game.stack() or game.phase != "PreCombatMain":
            return f"{game.phase}, {game.waiting_for()['type']}, stack {len(game.stack())}"
        return None

    totals, _, _ = _timed(lambda: _reach_main(setup), lambda g, m: g.apply(0, pass_action), check, repeats)
    return {"ms": _median(totals), "note": "apply(0, PassPriority) in main phase 1: the opponent gets priority"}


def measure_resolve(setup: _Setup, repeats: int) -> dict:
    cast, target = _bolt_actions(setup)
    pass_action = pp._load_phase().GameAction.from_dict(PASS)

    def prepare():
        game = _reach_main(setup)
        game.apply(0, cast)
        game.apply(0, target)
        if len(game.stack()) != 1 or _priority(game) != 0:
            raise pp._SetupError("Lightning Bolt is not on the stack with its caster to act")
        return game

    def run(game, marks):
        game.apply(0, pass_action)
        marks.append(time.perf_counter_ns())
        game.apply(1, pass_action)

    def check(game, _):
        life = game.player(1)["life"]
        if life != 17 or game.stack() or _priority(game) != 0 or game.phase != "PreCombatMain":
            return f"life {life}, stack {len(game.stack())}, {game.phase}, {game.waiting_for()}"
        return None

    totals, splits, _ = _timed(prepare, run, check, repeats)
    return {
        "ms": _median(totals),
        "first_pass_ms": _median([s[0] for s in splits]),
        "second_pass_ms": _median([s[1] for s in splits]),
        "note": "two PassPriority calls; the second resolves the Bolt (bob 20 -> 17), "
        "state-based actions, priority to alice",
    }


def measure_cast(setup: _Setup, repeats: int) -> dict:
    cast, target = _bolt_actions(setup)

    def run(game, marks):
        game.apply(0, cast)
        marks.append(time.perf_counter_ns())
        return game.apply(0, target)

    def check(game, result):
        stack = game.stack()
        if len(stack) != 1 or stack[0]["kind"]["data"]["ability"]["targets"] != [{"Player": 1}] or _priority(game) != 0:
            return f"stack {stack}, {game.waiting_for()}"
        return None

    totals, splits, result = _timed(lambda: _reach_main(setup), run, check, repeats)
    tapped = [
        setup.lands.get(e["data"]["object_id"], str(e["data"]["object_id"]))
        for e in result.events
        if e["type"] == "PermanentTapped"
    ]
    return {
        "ms": _median(totals),
        "cast_call_ms": _median([s[0] for s in splits]),
        "target_and_pay_ms": _median([s[1] for s in splits]),
        "tapped": tapped,
        "note": "CastSpell (payment_mode Auto) then ChooseTarget {Player: 1}; the second call "
        "pays (auto payment) and puts the spell on the stack",
    }


def _expanded(setup: _Setup, action) -> int:
    """How many choices one listed action stands for: its legal targets if it asks for one."""
    if action.kind not in ("CastSpell", "ActivateAbility"):
        return 1
    game = _reach_main(setup)
    prompt = game.apply(0, action).waiting_for
    if prompt["type"] == "TargetSelection":
        slots = prompt["data"]["target_slots"]
        n = 1
        for slot in slots:
            n *= len(slot["legal_targets"])
        return n
    return 1


def measure_actions(setup: _Setup, repeats: int) -> dict:
    def check(game, result):
        return None if result else "no legal action listed"

    totals, _, listed = _timed(lambda: _reach_main(setup), lambda g, m: g.actions(), check, repeats)
    kinds = Counter(a.kind for a in listed)
    expanded = sum(_expanded(setup, a) for a in listed)
    return {
        "ms": _median(totals),
        "count": len(listed),
        "kinds": dict(kinds),
        "with_targets": expanded,
        "note": "game.actions() for alice in main phase 1",
    }


def _turn_plan(setup: _Setup) -> list[tuple[int, dict]]:
    game = _reach_upkeep(setup)
    plan = []
    for _ in range(200):
        if game.turn == setup.turn + 1 and game.phase == "Upkeep":
            return plan
        wf = game.waiting_for()
        if wf["type"] == "Priority":
            action = PASS
        elif wf["type"] == "DeclareAttackers":
            action = NO_ATTACK
        else:
            raise pp._SetupError(f"unexpected prompt while everybody passes: {wf['type']} in {game.phase}")
        game.apply(wf["data"]["player"], action)
        plan.append((wf["data"]["player"], action))
    raise pp._SetupError("the next turn's upkeep was not reached")


def measure_turn(setup: _Setup, repeats: int) -> dict:
    ph = pp._load_phase()
    plan = _turn_plan(setup)
    prebuilt = [(seat, ph.GameAction.from_dict(a)) for seat, a in plan]
    answers = {"Priority": ph.GameAction.from_dict(PASS), "DeclareAttackers": ph.GameAction.from_dict(NO_ATTACK)}
    hand = len(_reach_upkeep(setup).hand(0))

    def replay(game, marks):
        for seat, action in prebuilt:
            game.apply(seat, action)
        return len(prebuilt)

    def client(game, marks):
        n = 0
        while not (game.turn == setup.turn + 1 and game.phase == "Upkeep") and n < 200:
            wf = game.waiting_for()
            game.apply(wf["data"]["player"], answers[wf["type"]])
            n += 1
        return n

    def check(game, n):
        if (
            game.turn != setup.turn + 1
            or game.phase != "Upkeep"
            or _priority(game) != 1
            or len(game.hand(0)) != hand + 1
            or n != len(plan)
        ):
            return f"turn {game.turn} {game.phase}, {game.waiting_for()}, {n} actions"
        return None

    replayed, _, _ = _timed(lambda: _reach_upkeep(setup), replay, check, repeats)
    read, _, _ = _timed(lambda: _reach_upkeep(setup), client, check, repeats)
    kinds = Counter(a["type"] for _, a in plan)
    steps = []
    game = _reach_upkeep(setup)
    for seat, action in prebuilt:
        if not steps or steps[-1] != game.phase:
            steps.append(game.phase)
        game.apply(seat, action)
    return {
        "ms": _median(replayed),
        "client_ms": _median(read),
        "actions": len(plan),
        "kinds": dict(kinds),
        "steps_with_a_prompt": steps,
    }


def run_all(board: dict, repeats: int) -> dict[str, Any]:
    ok, info = pp.phase_available()
    if not ok:
        return {"phase_available": False, "reason": info}
    try:
        setup = _build(board)
    except (pp._SetupError, ValueError, KeyError) as exc:
        return {"phase_available": True, "reason": f"could not build the board: {type(exc).__name__}: {exc}"}
    return {
        "phase_available": True,
        "reason": "ok",
        "info": info,
        "setup_ms": setup.setup_ms,
        "pass": _row(lambda: measure_pass(setup, repeats)),
        "resolve": _row(lambda: measure_resolve(setup, repeats)),
        "cast": _row(lambda: measure_cast(setup, repeats)),
        "actions": _row(lambda: measure_actions(setup, repeats)),
        "turn": _row(lambda: measure_turn(setup, repeats)),
    }


def _main() -> int:
    args = sys.argv[1:]
    if args[:1] != ["--board"] or len(args) < 2:
        print(__doc__)
        return 2
    repeats = int(args[3]) if args[2:3] == ["--repeats"] else 50
    raw = sys.stdin.read() if args[1] == "-" else Path(args[1]).read_text(encoding="utf-8")
    print(json.dumps(run_all(json.loads(raw), repeats), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
