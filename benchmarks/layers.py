"""Layers benchmark: every characteristic of every permanent (CR 613), on generated boards of N
permanents under E continuous effects.

Boards (fixed seed per N and E) of N = 10, 30, 100 permanents under E = 5, 10, 30 continuous
effects, each effect from a shipped card: Glorious Anthem, Crusade and Bad Moon (anthems, one
by color), Goblin King, Elvish Champion and Lord of Atlantis (lords by creature type), Act of
Treason (a control change), Twisted Image (switching power and toughness), Humble (setting
them, and removing every ability), Distorting Lens (a color change), Animate Land (a type
change), Jump and Flight (granting flying), Emerald Charm (removing it), Giant Growth, Holy
Strength (an Aura) and Bonesplitter (Equipment, each attached with a timestamp of its own),
and two dependencies (613.7): Blood Moon with Urborg, Tomb of Yawgmoth (layer 4; Urborg's
ability depends on Blood Moon) and Confiscate on a Control Magic (layer 2; Control Magic's
effect depends on who controls it). The effects of spells are the state's ``effects``; the
others are permanents, counted among the N (the rest are creatures and lands of both
players; where the N can't hold them, the spells' effects take their place). Every
permanent and effect has its own timestamp, in an order drawn at random.

Timed (medians of ``--repeats``), each on a new ``Game`` from a copy of the state (its facts
built anew):

- first: the first ``all_characteristics()`` on the board in the process;
- fresh: the same again with every answer the process kept forgotten
  (``bridge.engine.solver.forget``), so that the rules work it out again from the facts (the
  parsed rule modules and the rules pruning keeps for these names are kept);
- again: the same position asked again, answers kept (what a search meeting a position twice
  pays);
- tapped: the board's characteristics asked (untimed, every answer forgotten before), then
  one creature tapped and all characteristics again (what the first board's answers save);
- counter: the same with a +1/+1 counter put on one creature.

The answers are checked first on small boards worked out by hand (below, ``CHECKS``): each is
run as a scenario with ``expect: characteristics`` by the scenario runner
(``bridge.io.scenarios.run_scenario``); a difference is printed and the script exits 1.

phase.rs: its Python bindings have no call that computes characteristics on demand, and the
boards would have to be built by its debug actions from card records it lacks; the peer
column is empty, and the script says so.

Run by hand:  .venv/bin/python benchmarks/layers.py [--permanents 10 30 100] [--effects 5 10 30]
[--repeats 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import add_json_option, header, row, write_json
from bridge.engine.game import Game
from bridge.engine.solver import STATS, forget
from bridge.io.scenarios import run_scenario
from bridge.model.scenario import Scenario
from bridge.model.state import GameState

# the target of the issue: 100 permanents under 30 effects, all characteristics, fresh
TARGET_MS = {(100, 30): 20.0}

CREATURES = [
    "Grizzly Bears",
    "Goblin Piker",
    "Llanowar Elves",
    "Coral Merfolk",
    "Serra Angel",
    "Canopy Spider",
    "Spineless Thug",
]
LANDS = ["Forest", "Mountain", "Island", "Swamp"]

# The effects in the order a board takes them (cycled): (kind, what). A permanent's effect is
# ("permanent", card) or ("aura", card) (attached to a creature); a spell's is ("effect", card).
# Where a board has no room left for permanents, the spells' effects stand in (SPELLS, cycled).
EFFECTS: list[tuple[str, str]] = [
    ("permanent", "Glorious Anthem"),
    ("permanent", "Goblin King"),
    ("effect", "Act of Treason"),
    ("effect", "Twisted Image"),
    ("effect", "Distorting Lens"),
    ("aura", "Holy Strength"),
    ("aura", "Bonesplitter"),
    ("permanent", "Blood Moon"),
    ("permanent", "Urborg, Tomb of Yawgmoth"),
    ("effect", "Humble"),
    ("aura", "Flight"),
    ("effect", "Emerald Charm"),
    ("effect", "Animate Land"),
    ("permanent", "Elvish Champion"),
    ("aura", "Control Magic"),
    ("aura", "Confiscate"),
    ("permanent", "Crusade"),
    ("effect", "Giant Growth"),
    ("permanent", "Bad Moon"),
    ("permanent", "Lord of Atlantis"),
    ("effect", "Jump"),
]
SPELLS = ["Giant Growth", "Twisted Image", "Distorting Lens", "Jump", "Humble", "Emerald Charm"]
# the least number of creatures and lands a board keeps for the effects to act on
MIN_BODIES = 6


def board(n: int, e: int, seed: int = 613) -> GameState:
    """N permanents under E continuous effects (see the module's text)."""
    rng = random.Random(seed * 1000 + n * 10 + e)
    perms: dict[str, list[dict[str, Any]]] = {"alice": [], "bob": []}
    effects: list[dict[str, Any]] = []
    room = max(0, n - MIN_BODIES)  # permanents the effects may take
    chosen: list[tuple[str, str]] = []
    spell = 0
    for i in range(e):
        kind, card = EFFECTS[i % len(EFFECTS)]
        needs = {"permanent": 1, "aura": 1, "effect": 0}[kind]
        if card == "Confiscate" and chosen[-1:] != [("aura", "Control Magic")]:
            kind, card, needs = "effect", SPELLS[spell % len(SPELLS)], 0  # Confiscate needs its Control Magic
            spell += 1
        if needs > room:
            kind, card = "effect", SPELLS[spell % len(SPELLS)]
            spell += 1
            needs = 0
        room -= needs
        chosen.append((kind, card))
    bodies = n - sum(1 for kind, _ in chosen if kind != "effect")
    for i in range(bodies):
        owner = "alice" if i % 2 == 0 else "bob"
        card = LANDS[(i // 3) % len(LANDS)] if i % 3 == 2 else CREATURES[(i // 3 * 2 + i % 3) % len(CREATURES)]
        perms[owner].append({"id": f"p{i:03d}", "card": card})
    creatures = [p for side in perms.values() for p in side if p["card"] in CREATURES]
    lands = [p for side in perms.values() for p in side if p["card"] in LANDS]
    flyers = [p for p in creatures if p["card"] == "Serra Angel"] or creatures
    bobs = [p for p in perms["bob"] if p["card"] in CREATURES]
    alices = [p for p in perms["alice"] if p["card"] in CREATURES]
    magic_id = None
    for i, (kind, card) in enumerate(chosen):
        oid = f"e{i:02d}"
        if kind == "permanent":
            perms["alice" if i % 2 == 0 else "bob"].append({"id": oid, "card": card})
        elif kind == "aura":
            if card == "Control Magic":
                perms["bob"].append({"id": oid, "card": card, "attached_to": rng.choice(alices)["id"]})
                magic_id = oid
            elif card == "Confiscate":
                perms["alice"].append({"id": oid, "card": card, "attached_to": magic_id})
            else:
                perms["alice"].append({"id": oid, "card": card, "attached_to": rng.choice(creatures)["id"]})
        elif card == "Act of Treason":
            effects.append({"source": card, "targets": [rng.choice(bobs)["id"]], "controller": "alice"})
        elif card == "Distorting Lens":
            effects.append({"source": card, "targets": [rng.choice(creatures)["id"]], "set_colors": ["white"]})
        elif card == "Animate Land":
            effects.append({"source": card, "targets": [rng.choice(lands)["id"]]})
        elif card == "Emerald Charm":
            effects.append({"source": card, "targets": [rng.choice(flyers)["id"]]})
        else:
            effects.append({"source": card, "targets": [rng.choice(creatures)["id"]]})
    everything = [p for side in perms.values() for p in side] + effects
    for thing, stamp in zip(everything, rng.sample(range(1, 10 * len(everything) + 1), len(everything))):
        thing["timestamp"] = stamp
    return GameState.model_validate(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "battlefield": perms["alice"]},
                {"name": "bob", "battlefield": perms["bob"]},
            ],
            "effects": effects,
        }
    )


def effect_count(state: GameState) -> int:
    """The continuous effects of a board as generated: its spells' effects and the permanents
    that bring one (all but the creatures and lands that fill it)."""
    return len(state.effects) + sum(1 for p in state.permanents() if p.id and p.id.startswith("e"))


def changed(state: GameState, how: str) -> GameState:
    """One creature tapped, or given a +1/+1 counter."""
    target = next(p for p in state.permanents() if p.card in CREATURES)
    update: dict[str, Any] = {"tapped": True} if how == "tapped" else {"counters": {"+1/+1": 1}}
    players = [
        pl.model_copy(
            update={"battlefield": [p.model_copy(update=update) if p is target else p for p in pl.battlefield]}
        )
        for pl in state.players
    ]
    return state.model_copy(update={"players": players})


def timed(state: GameState, fresh: bool = True) -> float:
    """ms: a new game from a copy of the state (facts built anew) and all its characteristics;
    ``fresh``: with every answer kept so far forgotten."""
    copy = state.model_copy(deep=True)
    if fresh:
        forget()
    started = time.perf_counter()
    Game(copy).all_characteristics()
    return (time.perf_counter() - started) * 1000


def after_change(state: GameState, changed: GameState) -> float:
    """ms: all characteristics of ``changed`` in a process that has just answered ``state``
    (and nothing else)."""
    timed(state)
    return timed(changed, fresh=False)


# ---------------------------------------------------------------------- the checks
def _perm(oid: str, card: str, stamp: int, **extra: Any) -> dict[str, Any]:
    return {"id": oid, "card": card, "timestamp": stamp, **extra}


# Small boards with their characteristics worked out by hand from the rules (613.1-613.8).
CHECKS: list[dict[str, Any]] = [
    {
        "title": "Anthem and goblin lord: Goblin Piker 2/1 +1/+1 +1/+1, the King only the Anthem's",
        "cite": ["613.3c"],
        "alice": [
            _perm("anthem", "Glorious Anthem", 1),
            _perm("king", "Goblin King", 2),
            _perm("piker", "Goblin Piker", 3),
            _perm("bears", "Grizzly Bears", 4),
        ],
        "bob": [_perm("elves", "Llanowar Elves", 5)],
        "expect": {
            "piker": {"power": 4, "toughness": 3, "abilities": ["cant_block", {"landwalk": "mountain"}]},
            "king": {"power": 3, "toughness": 3},
            "bears": {"power": 3, "toughness": 3},
            "elves": {"power": 1, "toughness": 1},
        },
    },
    {
        "title": "Act of Treason on bob's bears: alice controls them and her Anthem pumps them; haste",
        "cite": ["613.1b", "613.3c"],
        "alice": [_perm("anthem", "Glorious Anthem", 1)],
        "bob": [_perm("bears", "Grizzly Bears", 2)],
        "effects": [{"source": "Act of Treason", "targets": ["bears"], "controller": "alice", "timestamp": 10}],
        "expect": {"bears": {"controller": "alice", "power": 3, "toughness": 3, "abilities": ["haste"]}},
    },
    {
        "title": "Canopy Spider 1/3: switched (5), Giant Growth (8), Holy Strength (9): 5/8 switched is 8/5",
        "cite": ["613.3c", "613.3e"],
        "alice": [_perm("spider", "Canopy Spider", 1), _perm("holy", "Holy Strength", 9, attached_to="spider")],
        "effects": [
            {"source": "Twisted Image", "targets": ["spider"], "timestamp": 5},
            {"source": "Giant Growth", "targets": ["spider"], "timestamp": 8},
        ],
        "expect": {"spider": {"power": 8, "toughness": 5}},
    },
    {
        "title": "Thug turned white gets Crusade's +1/+1; Humble makes the bears 0/1 then Bonesplitter +2/+0; "
        "Flight after Emerald Charm: flying",
        "cite": ["613.1e", "613.3b", "613.3c", "613.6"],
        "alice": [
            _perm("crusade", "Crusade", 1),
            _perm("thug", "Spineless Thug", 2),
            _perm("bears", "Grizzly Bears", 3),
            _perm("split", "Bonesplitter", 30, attached_to="bears"),
            _perm("angel", "Serra Angel", 4),
            _perm("flight", "Flight", 40, attached_to="angel"),
        ],
        "effects": [
            {"source": "Distorting Lens", "targets": ["thug"], "set_colors": ["white"], "timestamp": 10},
            {"source": "Humble", "targets": ["bears"], "timestamp": 20},
            {"source": "Emerald Charm", "targets": ["angel"], "timestamp": 25},
        ],
        "expect": {
            "thug": {"colors": ["white"], "power": 3, "toughness": 3},
            "bears": {"power": 2, "toughness": 1, "abilities": []},
            "angel": {"power": 5, "toughness": 5, "abilities": ["flying", "vigilance"]},
        },
    },
    {
        "title": "Dependencies: Blood Moon then Urborg (Urborg loses its ability: no land is a Swamp); "
        "Confiscate on bob's Control Magic: alice keeps her angel; Animate Land makes a Forest 3/3",
        "cite": ["613.7", "613.7a", "613.1b", "613.1d"],
        "alice": [
            _perm("angel", "Serra Angel", 1),
            _perm("confiscate", "Confiscate", 20, attached_to="magic"),
            _perm("forest", "Forest", 3),
            _perm("moon", "Blood Moon", 30),
        ],
        "bob": [
            _perm("magic", "Control Magic", 10, attached_to="angel"),
            _perm("urborg", "Urborg, Tomb of Yawgmoth", 40),
            _perm("island", "Island", 5),
        ],
        "effects": [{"source": "Animate Land", "targets": ["forest"], "timestamp": 50}],
        "expect": {
            "magic": {"controller": "alice"},
            "angel": {"controller": "alice"},
            "urborg": {"subtypes": ["mountain"], "abilities": [{"mana": "R"}]},
            "island": {"subtypes": ["island"]},
            "forest": {"types": ["creature", "land"], "subtypes": ["forest"], "power": 3, "toughness": 3},
        },
    },
]


def check_boards() -> list[str]:
    """The hand-worked boards run as scenarios: the differences found (none when all agree)."""
    problems = []
    for check in CHECKS:
        scenario = Scenario.model_validate(
            {
                "title": check["title"],
                "cite": check["cite"],
                "state": {
                    "active": "alice",
                    "step": "main1",
                    "players": [
                        {"name": "alice", "battlefield": check.get("alice", [])},
                        {"name": "bob", "battlefield": check.get("bob", [])},
                    ],
                    "effects": check.get("effects", []),
                },
                "expect": {"characteristics": check["expect"]},
            }
        )
        result = run_scenario(scenario, path=check["title"])
        if not result.passed:
            problems.append(f"{check['title']}: {result.difference}")
    return problems


# ---------------------------------------------------------------------- main
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--permanents", type=int, nargs="+", default=[10, 30, 100])
    parser.add_argument("--effects", type=int, nargs="+", default=[5, 10, 30])
    parser.add_argument("--repeats", type=int, default=5)
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    print()

    problems = check_boards()
    if problems:
        print("!" * 100)
        print(f"WRONG CHARACTERISTICS on {len(problems)} of the {len(CHECKS)} hand-worked boards:")
        for p in problems:
            print(f"  {p}")
        print("!" * 100)
    else:
        print(f"characteristics checked: the engine agrees with the {len(CHECKS)} boards worked out by hand")
    print()

    title = (
        f"{'permanents':>10} | {'effects':>7} | {'first ms':>8} | {'fresh ms':>8} | {'again ms':>8} | "
        f"{'tapped ms':>9} | {'counter ms':>10} | {'target':>8} | {'phase.rs':>8} | fresh: add ground solve"
    )
    print(title)
    print("-" * len(title))
    figures = []
    table: dict[tuple[int, int], float] = {}
    for n in args.permanents:
        for e in args.effects:
            state = board(n, e)
            assert len(state.permanents()) == n and effect_count(state) == e, (n, e)
            first = timed(state)
            STATS.reset()
            runs = [timed(state) for _ in range(args.repeats)]
            fresh = statistics.median(runs)
            split = {k: getattr(STATS, f"{k}_seconds") * 1000 / sum(runs) for k in ("add", "ground", "solve")}
            tapped_state, counter_state = changed(state, "tapped"), changed(state, "counter")
            again = statistics.median(timed(state, fresh=False) for _ in range(args.repeats))
            tapped = statistics.median(after_change(state, tapped_state) for _ in range(args.repeats))
            counter = statistics.median(after_change(state, counter_state) for _ in range(args.repeats))
            table[n, e] = fresh
            target = TARGET_MS.get((n, e))
            mark = f"<= {target:g} ms" if target else "-"
            print(
                f"{n:>10} | {e:>7} | {first:>8.1f} | {fresh:>8.1f} | {again:>8.1f} | {tapped:>9.1f} | "
                f"{counter:>10.1f} | {mark:>8} | {'-':>8} | "
                f"{split['add']:>4.0%} {split['ground']:>6.0%} {split['solve']:>5.0%}"
            )
            figures.append(row(f"{n} permanents, {e} effects: all characteristics, first", "ms", first))
            figures.append(row(f"{n} permanents, {e} effects: all characteristics, fresh", "ms", fresh))
            figures.append(row(f"{n} permanents, {e} effects: asked again", "ms", again))
            figures.append(row(f"{n} permanents, {e} effects: after one permanent tapped", "ms", tapped))
            figures.append(row(f"{n} permanents, {e} effects: after a +1/+1 counter", "ms", counter))
    print(
        f"(medians of {args.repeats}; each a new Game from a copy of the state, its facts built anew; fresh: the "
        "answers kept forgotten first; add, "
        "ground, solve: clingo's shares of the fresh runs' time, the rest is Python's)"
    )
    print()
    print_growth(table, args.permanents, args.effects)
    for (n, e), target in TARGET_MS.items():
        if (n, e) in table:
            verdict = "met" if table[n, e] <= target else "NOT met"
            print(f"target: {n} permanents under {e} effects <= {target:g} ms fresh: {table[n, e]:.1f} ms, {verdict}")
    print(
        "phase.rs: not measured: phase-python has no call that computes characteristics on demand (its "
        "objects hold what its last action left), and these boards would have to be built with its debug "
        "actions from card records it lacks"
    )
    write_json(args.json, info, figures)
    return 1 if problems else 0


def print_growth(table: dict[tuple[int, int], float], ns: list[int], es: list[int]) -> None:
    """Fresh ms as a grid, with the growth from the smallest row and column."""
    title = f"{'fresh ms':>16} | " + " | ".join(f"{e:>4} effects" for e in es)
    print(title)
    print("-" * len(title))
    for n in ns:
        print(f"{n:>5} permanents | " + " | ".join(f"{table[n, e]:>12.1f}" for e in es))
    if len(ns) > 1:
        print(
            f"growth with permanents ({ns[0]} to {ns[-1]}), by effects: "
            + ", ".join(f"{e}: x{table[ns[-1], e] / table[ns[0], e]:.1f}" for e in es)
        )
    if len(es) > 1:
        print(
            f"growth with effects ({es[0]} to {es[-1]}), by permanents: "
            + ", ".join(f"{n}: x{table[n, es[-1]] / table[n, es[0]]:.1f}" for n in ns)
        )


if __name__ == "__main__":
    sys.exit(main())
