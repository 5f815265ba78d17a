"""Peer benchmark: whole random games in phase.rs (via ``phase-python``), for ``selfplay.py``.

A sibling of ``phase_loop_peer.py`` (it reuses ``phase_peer.py``'s card records, to which the
cards of the shipped decks (``decks/*.yaml``) that it lacks are added here with their current
Oracle text; mana costs, types and power/toughness as in ``cards/``). Run it in the peers'
environment::

    benchmarks/.peers/bin/python benchmarks/phase_selfplay_peer.py --spec spec.json

which prints one JSON object. The spec (``selfplay.py`` writes it)::

    {"decks": [[card, ...], [card, ...]],     # 40 names each: the two decks, card by card
     "games": 4, "seed": 1, "max_actions": 1000, "pass_rate": 0.25}

A game (everything below is timed, as ``bridge.play.selfplay.play_game`` times all of its game)
------------------------------------------------------------------------------------------
``Engine.new_game(deck0, deck1, seed=seed + g, format="Limited")``: phase shuffles the decks
and chooses the starting player from the seed. Then, until phase prompts ``GameOver`` or
``max_actions`` actions were applied, the player that phase waits for (``waiting_for()``:
``data.player``, for the mulligan prompt the first pending player) acts, as
``bridge.play.agents.RandomAgent(pass_rate=0.25)`` does in ``play_game`` (one ``random.Random``
per seat, seeded ``seed * 1000 + seat``):

- at a ``Priority`` prompt the player passes with probability ``pass_rate`` without listing
  anything (``PassPriority``); otherwise ``Game.actions()`` is listed and one of the actions
  other than ``PassPriority`` is chosen uniformly (a pass when there is none);
- at any other prompt (targets, attackers, blockers, choices of cards, ...) one of the listed
  actions is chosen uniformly; ``CancelCast`` (backing out of a spell being cast) is left out
  unless it is the only one;
- mulligans follow ``bridge.play.selfplay.start_game``'s rule: a hand is kept when it holds two to
  five lands or when the player would keep five cards or fewer (phase's London mulligan
  then asks which cards go to the bottom: chosen at random like any prompt).

Every ``apply`` is one action (mulligan decisions and the choice of a target included); the
JSON reports them by kind. How a game ended: ``life`` (the loser's life is 0 or less),
``empty library`` (the loser drew from an empty library), ``poison``, ``draw``,
``unfinished`` (``max_actions`` reached), ``stuck`` (a prompt with no listed action) or
``error`` (phase refused an action it listed; the message is kept).
"""

from __future__ import annotations

import gc
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import phase_peer as pp

_rec = pp._rec
_CREATURE = ["Creature"]

# The shipped decks' cards that phase_peer.py has no record of (current Oracle text).
EXTRA_RECORDS: dict[str, dict] = {
    r["name"]: r
    for r in [
        # Red Goblins
        _rec(
            "Bogardan Firefiend",
            "{2}{R}",
            3,
            "R",
            "Creature — Elemental Spirit",
            _CREATURE,
            ["Elemental", "Spirit"],
            "2",
            "1",
            "When this creature dies, it deals 2 damage to target creature.",
        ),
        _rec(
            "Flametongue Kavu",
            "{3}{R}",
            4,
            "R",
            "Creature — Kavu",
            _CREATURE,
            ["Kavu"],
            "4",
            "2",
            "When this creature enters, it deals 4 damage to target creature.",
        ),
        _rec("Shock", "{R}", 1, "R", "Instant", ["Instant"], [], text="Shock deals 2 damage to any target."),
        _rec(
            "Bonesplitter",
            "{1}",
            1,
            "",
            "Artifact — Equipment",
            ["Artifact"],
            ["Equipment"],
            text="Equipped creature gets +2/+0.\nEquip {1}",
            keywords=("Equip",),
        ),
        _rec(
            "Lava Axe",
            "{4}{R}",
            5,
            "R",
            "Sorcery",
            ["Sorcery"],
            [],
            text="Lava Axe deals 5 damage to target player or planeswalker.",
        ),
        # Green Stompy
        _rec("Runeclaw Bear", "{1}{G}", 2, "G", "Creature — Bear", _CREATURE, ["Bear"], "2", "2"),
        _rec(
            "Rampant Growth",
            "{1}{G}",
            2,
            "G",
            "Sorcery",
            ["Sorcery"],
            [],
            text="Search your library for a basic land card, put that card onto the battlefield tapped, then shuffle.",
        ),
        _rec(
            "Overrun",
            "{2}{G}{G}{G}",
            5,
            "G",
            "Sorcery",
            ["Sorcery"],
            [],
            text="Creatures you control get +3/+3 and gain trample until end of turn.",
        ),
        # Black Knights
        _rec(
            "Black Knight",
            "{B}{B}",
            2,
            "B",
            "Creature — Human Knight",
            _CREATURE,
            ["Human", "Knight"],
            "2",
            "2",
            "First strike\nProtection from white",
            ["First strike", "Protection"],
        ),
        _rec(
            "Drudge Skeletons",
            "{1}{B}",
            2,
            "B",
            "Creature — Skeleton",
            _CREATURE,
            ["Skeleton"],
            "1",
            "1",
            "{B}: Regenerate this creature.",
        ),
        _rec(
            "Terror",
            "{1}{B}",
            2,
            "B",
            "Instant",
            ["Instant"],
            [],
            text="Destroy target nonartifact, nonblack creature. It can't be regenerated.",
        ),
        _rec(
            "Sign in Blood",
            "{B}{B}",
            2,
            "B",
            "Sorcery",
            ["Sorcery"],
            [],
            text="Target player draws two cards and loses 2 life.",
        ),
        _rec("Mind Rot", "{2}{B}", 3, "B", "Sorcery", ["Sorcery"], [], text="Target player discards two cards."),
        _rec(
            "Diabolic Edict",
            "{1}{B}",
            2,
            "B",
            "Instant",
            ["Instant"],
            [],
            text="Target player sacrifices a creature of their choice.",
        ),
        # Blue Skies
        _rec("Coral Merfolk", "{1}{U}", 2, "U", "Creature — Merfolk", _CREATURE, ["Merfolk"], "2", "1"),
        _rec(
            "Wall of Air",
            "{1}{U}{U}",
            3,
            "U",
            "Creature — Wall",
            _CREATURE,
            ["Wall"],
            "1",
            "5",
            "Defender, flying",
            ["Defender", "Flying"],
        ),
        _rec(
            "Prodigal Sorcerer",
            "{2}{U}",
            3,
            "U",
            "Creature — Human Wizard",
            _CREATURE,
            ["Human", "Wizard"],
            "1",
            "1",
            "{T}: This creature deals 1 damage to any target.",
        ),
        _rec("Unsummon", "{U}", 1, "U", "Instant", ["Instant"], [], text="Return target creature to its owner's hand."),
        _rec(
            "Boomerang",
            "{U}{U}",
            2,
            "U",
            "Instant",
            ["Instant"],
            [],
            text="Return target permanent to its owner's hand.",
        ),
        _rec("Essence Scatter", "{1}{U}", 2, "U", "Instant", ["Instant"], [], text="Counter target creature spell."),
        # White Weenie
        _rec(
            "Akrasan Squire",
            "{W}",
            1,
            "W",
            "Creature — Human Soldier",
            _CREATURE,
            ["Human", "Soldier"],
            "1",
            "1",
            "Exalted (Whenever a creature you control attacks alone, that creature gets +1/+1 until end of turn "
            "for each instance of exalted.)",
            ["Exalted"],
        ),
        _rec(
            "Ajani's Pridemate",
            "{1}{W}",
            2,
            "W",
            "Creature — Cat Soldier",
            _CREATURE,
            ["Cat", "Soldier"],
            "2",
            "2",
            "Whenever you gain life, you may put a +1/+1 counter on this creature.",
        ),
        _rec(
            "White Knight",
            "{W}{W}",
            2,
            "W",
            "Creature — Human Knight",
            _CREATURE,
            ["Human", "Knight"],
            "2",
            "2",
            "First strike\nProtection from black",
            ["First strike", "Protection"],
        ),
        _rec(
            "Pacifism",
            "{1}{W}",
            2,
            "W",
            "Enchantment — Aura",
            ["Enchantment"],
            ["Aura"],
            text="Enchant creature\nEnchanted creature can't attack or block.",
            keywords=["Enchant"],
        ),
        _rec(
            "Raise the Alarm",
            "{1}{W}",
            2,
            "W",
            "Instant",
            ["Instant"],
            [],
            text="Create two 1/1 white Soldier creature tokens.",
        ),
        _rec(
            "Healing Salve",
            "{W}",
            1,
            "W",
            "Instant",
            ["Instant"],
            [],
            text="Choose one —\n• Target player gains 3 life.\n• Prevent the next 3 damage that would be dealt to "
            "any target this turn.",
        ),
    ]
}

PASS = {"type": "PassPriority"}


def _engine():
    for name, record in EXTRA_RECORDS.items():
        pp.ORACLE_RECORDS.setdefault(name, record)
    return pp._get_engine()


def _lands(game, seat: int) -> int:
    return sum(1 for card in game.hand(seat) if "Land" in card["card_types"]["core_types"])


def _keep(game, seat: int, mulligans: int) -> bool:
    """``bridge.play.selfplay.start_game``'s rule: two to five lands, or five cards or fewer."""
    return 7 - mulligans <= 5 or 2 <= _lands(game, seat) <= 5


def _mulligan_options(game, pending: dict, options: list) -> list:
    """The first pending player's options: phase lists every pending player's at once (to
    keep or take a mulligan, or, once kept, which cards go to the bottom)."""
    if pending["phase"]["type"] == "Declare":
        want = "Keep" if _keep(game, pending["player"], pending.get("mulligan_count", 0)) else "Mulligan"
        return [a for a in options if a.kind == "MulliganDecision" and a.data["choice"]["type"] == want]
    return [a for a in options if a.kind == "SelectCards"]


def _actor(prompt: dict) -> int | None:
    data = prompt.get("data") or {}
    if isinstance(data, dict):
        if "player" in data:
            return data["player"]
        if prompt["type"] == "MulliganDecision":
            return data["pending"][0]["player"]
    return None


def _ending(game, prompt: dict) -> tuple[str, int | None]:
    winner = (prompt.get("data") or {}).get("winner")
    if winner is None:
        return "draw", None
    loser = game.player(1 - winner)
    if loser["life"] <= 0:
        return "life", winner
    if loser.get("drew_from_empty_library"):
        return "empty library", winner
    if loser.get("poison_counters", 0) >= 10:
        return "poison", winner
    return "other", winner


def play(engine, decks: list[list[str]], seed: int, max_actions: int, pass_rate: float) -> dict[str, Any]:
    """One random game; the whole of it timed (set-up and shuffle included)."""
    ph = pp._load_phase()
    pass_action = ph.GameAction.from_dict(PASS)
    kinds: Counter[str] = Counter()
    prompts: Counter[str] = Counter()
    listed = 0
    ending, winner, error = "unfinished", None, None
    rngs = {seat: random.Random(seed * 1000 + seat) for seat in (0, 1)}
    started = time.perf_counter()
    game = engine.new_game(decks[0], decks[1], seed=seed, format="Limited")
    actions = 0
    while actions < max_actions:
        prompt = game.waiting_for()
        kind = prompt["type"]
        if kind == "GameOver":
            ending, winner = _ending(game, prompt)
            break
        seat = _actor(prompt)
        if seat is None:
            ending, error = "stuck", f"no player to act at {kind}"
            break
        prompts[kind] += 1
        rng = rngs[seat]
        if kind == "Priority" and rng.random() < pass_rate:
            action = pass_action
        else:
            options = game.actions()
            listed += 1
            if kind == "MulliganDecision":
                options = _mulligan_options(game, prompt["data"]["pending"][0], options)
            others = [a for a in options if a.kind not in ("PassPriority", "CancelCast")]
            if not options:
                ending, error = "stuck", f"no action listed at {kind}"
                break
            action = rng.choice(others) if others else options[0]
        try:
            game.apply(seat, action)
        except ValueError as exc:
            ending, error = "error", f"{kind}: {action.to_dict()}: {exc}"
            break
        kinds[action.kind] += 1
        actions += 1
    else:
        prompt = game.waiting_for()
        if prompt["type"] == "GameOver":
            ending, winner = _ending(game, prompt)
    seconds = time.perf_counter() - started
    lives = [game.player(seat)["life"] for seat in (0, 1)]
    return {
        "seed": seed,
        "actions": actions,
        "turns": game.turn,
        "seconds": seconds,
        "ending": ending,
        "winner": winner,
        "life": lives,
        "kinds": dict(kinds),
        "prompts": dict(prompts),
        "listings": listed,
        "error": error,
    }


def run(spec: dict) -> dict[str, Any]:
    ok, info = pp.phase_available()
    if not ok:
        return {"phase_available": False, "reason": info}
    engine = _engine()
    decks = spec["decks"]
    missing = sorted({c for deck in decks for c in deck if c not in pp.ORACLE_RECORDS})
    if missing:
        return {"phase_available": True, "reason": f"no Oracle record for {', '.join(missing)}"}
    in_decks = {c for deck in decks for c in deck}
    unparsed = {k: v for k, v in pp.unparsed_cards().items() if k in in_decks}
    gc.collect()
    games = [
        play(engine, decks, spec["seed"] + g, spec["max_actions"], spec.get("pass_rate", 0.25))
        for g in range(spec["games"])
    ]
    return {"phase_available": True, "reason": "ok", "info": info, "unparsed": unparsed, "games": games}


def _main() -> int:
    args = sys.argv[1:]
    if args[:1] != ["--spec"] or len(args) < 2:
        print(__doc__)
        return 2
    raw = sys.stdin.read() if args[1] == "-" else Path(args[1]).read_text(encoding="utf-8")
    print(json.dumps(run(json.loads(raw)), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
