"""Peer benchmark: python-mtg's ``find_win`` on the puzzles, for ``puzzles.py``.

Run it in the peers' environment (``benchmarks/setup_peers.sh`` installs the PyPI package
``python-mtg``, import name ``mtg``, into ``benchmarks/.peers``)::

    benchmarks/.peers/bin/python benchmarks/pymtg_peer.py --puzzles puzzles.json [--node-budget 4000]

which prints a JSON list, one object per puzzle. The puzzles file (``puzzles.py`` writes it)::

    [{"name": "bolt_for_lethal", "me": "alice", "active": "alice", "step": "main1", "turns": 0,
      "players": [{"name": "alice", "life": 20, "hand": ["Lightning Bolt"],
                   "battlefield": [{"id": "m1", "card": "Mountain", "tapped": false, "attached_to": null}],
                   "graveyard": [], "library": ["Mountain"]}, ...]}, ...]

``turns`` is how many turns after the puzzle's own one the goal allows (0: this turn).

The position (outside the timed region)
---------------------------------------
python-mtg builds a game only from decklists (``bridge_to_engine.make_deck_state``, whose
card facts come from its own reading of each card's Oracle text). Each player's deck is
every card of the puzzle that player owns, loaded with no opening hand; then its objects are
moved where the puzzle puts them: ``in_hand``, ``on_battlefield`` (``tapped``, ``attached_to``),
``graveyard``, ``in_library`` with the library's order (``_lib_order``), life totals, the
active player and the step (``main1`` is its ``precombat_main``, ``main2`` its
``postcombat_main``, ``beginning_of_combat``/``declare_attackers`` its
``beginning_of_combat``: its referee declares attackers from there). Land drops and the
active player's instant-speed windows are switched on (``_explicit_lands``,
``_instant_speed``) so that playing a land and casting an instant are choices it searches.

A puzzle it can't express is not run, and the reason is given: a card its corpus doesn't
know, a clause of a card that its reader left out (``card_facts`` lists what it abstained
from), a step it can't start in (the damage steps, the end of the turn), a puzzle with the
opponent to act first.

What is timed and answered
--------------------------
``win_search.find_win(state, me, max_turns=turns, node_budget=N)`` (``forced=False``: the
opponent passes priority and blocks only to survive an unblocked lethal attack) and the same
with ``forced=True`` (every legal block declaration of the opponent is tried; its own turn
and its instants are still passed). Each returns a path of the puzzle player's actions to a
win, or None, which says either "no win found" or "node budget spent": python-mtg does not
tell them apart; this driver reports ``budget_spent`` when the nodes counted reached the
budget.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from typing import Any

STEPS = {
    "upkeep": "upkeep",
    "draw": "draw",
    "main1": "precombat_main",
    "beginning_of_combat": "beginning_of_combat",
    "declare_attackers": "beginning_of_combat",
    "main2": "postcombat_main",
}


def available() -> tuple[bool, str]:
    try:
        import mtg  # noqa: F401
        from mtg.engine import win_search  # noqa: F401
    except Exception as exc:  # the reason is the answer
        return False, f"python-mtg can't be imported: {type(exc).__name__}: {exc}"
    return True, ""


def _quiet() -> contextlib.AbstractContextManager[Any]:
    return contextlib.redirect_stdout(io.StringIO())


def _cards(puzzle: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for player in puzzle["players"]:
        names = list(player.get("hand", [])) + [p["card"] for p in player.get("battlefield", [])]
        names += list(player.get("graveyard", [])) + list(player.get("library", []))
        out[player["name"]] = names
    return out


def why_not(puzzle: dict[str, Any]) -> str | None:
    """Why python-mtg can't express the puzzle, or None."""
    from mtg import sim
    from mtg.bridge_to_engine import card_corpus, card_facts

    if puzzle["step"] not in STEPS:
        return f"it can't start in the step {puzzle['step']}"
    if puzzle.get("priority") not in (None, puzzle["active"]) or puzzle["active"] != puzzle["me"]:
        return "the opponent acts first (its referee plays the opponent passively)"
    db, corpus = sim.load_db(), {c["name"]: c for c in card_corpus.load_cards()}
    for names in _cards(puzzle).values():
        for name in sorted(set(names)):
            if name not in corpus:
                return f"{name}: not in its card corpus"
            _facts, dropped = card_facts(name, "x", "x_0", db, corpus)
            if dropped:
                return f"{name}: its reader left out {dropped[0][0]}"
    return None


def build(puzzle: dict[str, Any]) -> dict[str, Any]:
    """python-mtg's state for the puzzle's position."""
    from mtg.bridge_to_engine import make_deck_state, slug

    with _quiet():
        state: dict[str, Any] = make_deck_state(_cards(puzzle), seed=0, hand=0)
    instance = dict(state["instance_of"])
    free: dict[str, list[str]] = {}
    for owner, tid in state["in_library"]:
        free.setdefault(owner, []).append(tid)
    state["in_library"] = set()
    state["_lib_order"] = {p["name"]: [] for p in puzzle["players"]}
    state.setdefault("graveyard", set())
    lives = set()
    ids: dict[str, str] = {}
    attached: list[tuple[str, str]] = []
    for player in puzzle["players"]:
        name = player["name"]
        mine = sorted(free.get(name, []), key=lambda t: int(t.rsplit("_", 1)[1]))

        def take(card: str, mine: list[str] = mine) -> str:
            tid = next(t for t in mine if instance[t] == slug(card))
            mine.remove(tid)
            return tid

        for card in player.get("hand", []):
            state["in_hand"].add((name, take(card)))
        for permanent in player.get("battlefield", []):
            tid = take(permanent["card"])
            state["on_battlefield"].add((tid,))
            if permanent.get("id"):
                ids[permanent["id"]] = tid
            if permanent.get("attached_to"):
                attached.append((tid, permanent["attached_to"]))
            if permanent.get("tapped"):
                state["tapped"].add((tid,))
        for card in player.get("graveyard", []):
            state["graveyard"].add((take(card),))
        for card in player.get("library", []):
            tid = take(card)
            state["in_library"].add((name, tid))
            state["_lib_order"][name].append(tid)
        lives.add((name, player.get("life", 20)))
    state["life"] = lives
    state["attached_to"] = {(aura, ids[host]) for aura, host in attached}
    state["active_player"] = {(puzzle["active"],)}
    state["current_step"] = {(STEPS[puzzle["step"]],)}
    state["_explicit_lands"] = True
    state["_instant_speed"] = True
    return state


def _line(path: list[Any] | None) -> list[str] | None:
    return None if path is None else [repr(tuple(a)) for a in path]


def run(puzzle: dict[str, Any], node_budget: int) -> dict[str, Any]:
    from mtg.engine import win_search

    out: dict[str, Any] = {"name": puzzle["name"]}
    reason = why_not(puzzle)
    if reason is not None:
        return {**out, "expressible": False, "reason": reason}
    out["expressible"] = True
    for label, forced in (("optimistic", False), ("forced", True)):
        state = build(puzzle)
        start = time.perf_counter()
        with _quiet():
            path, nodes = win_search.find_win(
                state, me=puzzle["me"], max_turns=puzzle["turns"], node_budget=node_budget, forced=forced
            )
        out[label] = {
            "answer": "None" if path is None else "win",
            "line": _line(path),
            "seconds": time.perf_counter() - start,
            "nodes": nodes,
            "budget_spent": path is None and nodes > node_budget,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--puzzles", required=True, help="the puzzles as JSON (see the module's docstring)")
    parser.add_argument("--node-budget", type=int, default=4000)
    args = parser.parse_args()
    ok, reason = available()
    if not ok:
        print(json.dumps({"reason": reason}))
        return
    with open(args.puzzles) as f:
        puzzles = json.load(f)
    rows = []
    for puzzle in puzzles:
        try:
            rows.append(run(puzzle, args.node_budget))
        except Exception as exc:  # one puzzle's failure is that puzzle's answer
            rows.append({"name": puzzle["name"], "expressible": True, "error": f"{type(exc).__name__}: {exc}"})
    json.dump(rows, sys.stdout)


if __name__ == "__main__":
    main()
