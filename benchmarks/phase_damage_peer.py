"""Peer benchmark: time phase.rs (via ``phase-python``) through a full combat damage step.

A sibling of ``phase_peer.py`` (whose card records and position setup it reuses); run it in
the peers' environment::

    benchmarks/.peers/bin/python benchmarks/phase_damage_peer.py --board boards.json [--repeats 20]

which prints a JSON list, one row per board (format of ``phase_peer.py``: attackers, blockers,
``declaration`` blocker id -> attacker id; optional ``order``: attacker id -> its blockers in
the damage assignment order to answer phase's prompts with).

How the combat damage is reached and what is timed
--------------------------------------------------
Untimed: ``phase_peer._prepare`` builds the board with phase's debug actions, every attacker
attacks the defending player and phase prompts the defender to declare blockers; the board's
blocks are declared (a real, validated ``DeclareBlockers``). From there a dry run plays on:
both players pass priority, phase deals first-strike damage (if any creature has first or
double strike) and regular combat damage, prompting the attacking player with
``AssignCombatDamage`` for each attacker that has a choice (several blockers, or trample).
Each prompt is answered the way mtgasp assigns by default: lethal damage (toughness less
damage already marked) to each blocker in the damage assignment order, the rest to the last
blocker or, with trample, to the player. The dry run records the actions it applied, the
index of the last action whose events deal damage (phase performs state-based actions
before it gives priority, so after that call damage and state-based actions are done) and
the resulting position.

Timed (per repeat): the same position is reached again (untimed: snapshot restore, priority
passes, attack and block declarations), then the recorded actions are applied one by one with
``game.apply`` (prebuilt ``GameAction`` objects; the prompts are not read), with
``time.perf_counter_ns`` and the garbage collector disabled. Two medians are reported:
``damage_ms``, from just after the blockers are declared to the end of the call that dealt
the last combat damage (priority passes of the declare blockers step, the step changes,
both damage steps, the damage assignment answers, state-based actions), and ``end_ms``, up to
the end-of-combat step. Each repeat's final position must match the dry run's, else the row
says so.
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import phase_peer as pp

PASS = {"type": "PassPriority"}


def _answer(game, prompt: dict, order: list[int]) -> dict:
    """The default assignment for an ``AssignCombatDamage`` prompt, in mtgasp's terms."""
    data = prompt["data"]
    present = {b["blocker_id"] for b in data["blockers"]}
    blockers = [b for b in order if b in present] + sorted(present - set(order))
    left = data["total_damage"]
    trample = data.get("trample") is not None
    assignments = []
    for i, b in enumerate(blockers):
        obj = game.object(b)
        lethal = max(0, obj["toughness"] - obj["damage_marked"])
        last = i == len(blockers) - 1
        n = left if last and not trample else min(lethal, left)
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


def _readable(data: dict, back: dict[int, str]) -> dict[str, int]:
    """An ``AssignCombatDamage`` answer as board id -> damage (the player as ``player``)."""
    out = {back.get(b, str(b)): n for b, n in data["assignments"]}
    if data.get("trample_damage"):
        out["player"] = data["trample_damage"]
    return out


def _outcome(game, ids: dict[str, int]) -> dict[str, Any]:
    """Life totals, the board ids in graveyards, and damage marked on survivors."""
    back = {oid: bid for bid, oid in ids.items()}
    dead = sorted(back[o["id"]] for seat in (0, 1) for o in game.graveyard(seat) if o["id"] in back)
    damage = {}
    for bid, oid in ids.items():
        obj = game.object(oid)
        if obj["zone"] == "Battlefield" and obj["damage_marked"]:
            damage[bid] = obj["damage_marked"]
    return {"life": [game.player(0)["life"], game.player(1)["life"]], "dead": dead, "damage": damage}


def _blocked_position(prep):
    game = pp._reach(prep, "block")
    game.apply(prep.def_seat, prep.block_action)
    return game


def _dry_run(prep, board: dict) -> dict[str, Any]:
    """Play the combat once, reading every prompt: the actions, where damage ends, the result."""
    game = _blocked_position(prep)
    order = {prep.ids[a]: [prep.ids[b] for b in bs] for a, bs in (board.get("order") or {}).items()}
    back = {oid: bid for bid, oid in prep.ids.items()}
    actions, last_damage, prompts, differs = [], None, 0, []
    for _ in range(200):
        wf = game.waiting_for()
        if wf["type"] == "Priority" and game.phase == "EndCombat":
            break
        if wf["type"] == "Priority":
            seat, action = wf["data"]["player"], PASS
        elif wf["type"] == "AssignCombatDamage":
            seat = wf["data"]["player"]
            action = _answer(game, wf, order.get(wf["data"]["attacker_id"], []))
            offered = game.actions()
            if offered and _readable(offered[0].data, back) != _readable(action["data"], back):
                differs.append(
                    {
                        "attacker": back[wf["data"]["attacker_id"]],
                        "phase_default": _readable(offered[0].data, back),
                        "ours": _readable(action["data"], back),
                    }
                )
            prompts += 1
        else:
            raise pp._SetupError(f"unexpected prompt in combat: {wf['type']}")
        events = game.apply(seat, action).events
        actions.append((seat, action))
        if any(e["type"] == "DamageDealt" for e in events):
            last_damage = len(actions) - 1
    else:
        raise pp._SetupError("the end of combat was not reached")
    return {
        "actions": actions,
        "last_damage": last_damage,
        "prompts": prompts,
        "outcome": _outcome(game, prep.ids),
        "phase_default_differs": differs,
    }


def _time(prep, plan: dict, repeats: int, warmup: int = 2) -> tuple[list[float], list[float], bool]:
    ph = pp._load_phase()
    actions = [(seat, ph.GameAction.from_dict(a)) for seat, a in plan["actions"]]
    k = plan["last_damage"] if plan["last_damage"] is not None else len(actions) - 1
    damage, end, same = [], [], True
    gc_was_enabled = gc.isenabled()
    for i in range(warmup + repeats):
        game = _blocked_position(prep)  # untimed
        if gc_was_enabled:
            gc.disable()
        marks = []
        t0 = time.perf_counter_ns()
        for seat, action in actions:
            game.apply(seat, action)
            marks.append(time.perf_counter_ns())
        if gc_was_enabled:
            gc.enable()
        if i >= warmup:
            damage.append((marks[k] - t0) / 1e6)
            end.append((marks[-1] - t0) / 1e6)
        if i == warmup:
            same = game.phase == "EndCombat" and _outcome(game, prep.ids) == plan["outcome"]
    return damage, end, same


def damage_details(board: dict, repeats: int = 20) -> dict[str, Any]:
    """One board's row: medians, phase's result, and notes (``reason`` when it can't be run)."""
    ok, why = pp.phase_available()
    if not ok:
        return {"phase_available": False, "reason": why}
    try:
        prep = pp._prepare(board)
        if prep.block_action is None:
            return {"phase_available": True, "reason": prep.attack_error or "declare blockers not reached"}
        plan = _dry_run(prep, board)
    except (pp._SetupError, ValueError, KeyError) as exc:
        return {"phase_available": True, "reason": f"{type(exc).__name__}: {exc}"}
    damage, end, same = _time(prep, plan, repeats)
    return {
        "phase_available": True,
        "reason": "ok",
        "info": why,
        "damage_ms": statistics.median(damage),
        "end_ms": statistics.median(end),
        "outcome": plan["outcome"],
        "prompts": plan["prompts"],
        "actions": len(plan["actions"]),
        "repeatable": same,
        "phase_default_differs": plan["phase_default_differs"],
        "setup_ms": prep.setup_ms,
    }


def _main() -> int:
    args = sys.argv[1:]
    if args[:1] != ["--board"] or len(args) < 2:
        print(__doc__)
        return 2
    repeats = int(args[3]) if args[2:3] == ["--repeats"] else 20
    raw = sys.stdin.read() if args[1] == "-" else Path(args[1]).read_text(encoding="utf-8")
    boards = json.loads(raw)
    if isinstance(boards, dict):
        boards = [boards]
    print(json.dumps([damage_details(b, repeats) for b in boards], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
