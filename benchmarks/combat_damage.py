"""Combat damage benchmark: a full combat damage step with N attackers and N blockers, mtgasp
beside phase.rs.

Boards (fixed seed) of N attackers against N blockers, N = 5, 10, 20: about one attacker in
five is blocked by two creatures, one in five is unblocked, the rest are blocked by one;
attackers and blockers are drawn from common cards of ``cards/`` with first strike (Knight of
Meadowgrain, Benalish Knight), double strike (Boros Swiftblade, Fencing Ace), trample (Crash
of Rhinos, War Mammoth), deathtouch (Typhoid Rats, Deadly Recluse, Vampire Nighthawk),
lifelink (Child of Night, Knight of Meadowgrain, Vampire Nighthawk), flyers blocked by reach,
and blockers from Llanowar Elves to Wall of Stone, so that some creatures die and some don't.

mtgasp, per board: from the position after blockers are declared, at the first combat
damage step (``first_strike_damage`` when a creature in combat has first or double strike,
else ``combat_damage``), ``Game.from_state``, ``AssignDamage({})`` (every creature assigns
by the default: lethal damage to each blocker in order, the rest to the last or, with
trample, to the player), ``StateBasedActions()``; with first strike, then the next step
(``NextStep`` where the bridge has it, else the state's step set to ``combat_damage``) and
again ``AssignDamage({})`` and ``StateBasedActions()``.  Medians of the whole (state to final
state) and of its parts: assigning and dealing damage, state-based actions, the step change.

phase.rs, on the same board (``phase_damage_peer.py``, in its own environment): from just
after the same blockers are declared until the call that dealt the last combat damage
returns (priority passes, both damage steps, its damage assignment prompts answered with the
same defaults, state-based actions), and until the end-of-combat step.

Each engine's result (life totals, creatures that died, damage left on survivors) is checked
against a small independent reference written here from the rules (510.1-510.5, 702.2,
702.4, 702.7, 702.15, 702.19, 704.5g-h), and the two engines' results are compared; a
difference is printed, not treated as an error.

Run by hand:  .venv/bin/python benchmarks/combat_damage.py [--sizes 5 10 20] [--repeats 20]
[--phase-repeats 50] [--show-boards]
phase.rs runs from ``benchmarks/.peers/bin/python`` (``benchmarks/setup_peers.sh``) or
``--phase-python PATH``; without it only mtgasp's numbers are printed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import PEER_PYTHON, add_json_option, header, row, run_peer, write_json
from bridge.engine.game import Game
from bridge.engine.solver import forget
from bridge.model.actions import AssignDamage, StateBasedActions
from bridge.model.cards import CardPool
from bridge.model.state import GameState, Permanent

try:  # a newer bridge moves to the next step itself (CR 510.5)
    from bridge.model.actions import NextStep
except ImportError:
    NextStep = None

SEED = 510
# Attackers by role; flyers (Serra Angel, Vampire Nighthawk) are blocked by reach creatures.
DOUBLE_BLOCKED = ["Craw Wurm", "Crash of Rhinos", "Serra Angel", "War Mammoth", "Boros Swiftblade"]
SINGLE_BLOCKED = [
    "Grizzly Bears",
    "Craw Wurm",
    "Serra Angel",
    "Boros Swiftblade",
    "Crash of Rhinos",
    "War Mammoth",
    "Typhoid Rats",
    "Child of Night",
    "Knight of Meadowgrain",
    "Vampire Nighthawk",
    "Trained Armodon",
    "Fencing Ace",
]
UNBLOCKED = ["Grizzly Bears", "Savannah Lions", "Child of Night", "Fencing Ace", "Knight of Meadowgrain"]
BLOCKERS = [
    "Grizzly Bears",
    "Giant Spider",
    "Wall of Stone",
    "Wall of Wood",
    "Deadly Recluse",
    "Llanowar Elves",
    "Ardent Militia",
    "Trained Armodon",
    "Durkwood Boars",
    "Benalish Knight",
    "Typhoid Rats",
]
REACH = ["Giant Spider", "Deadly Recluse"]
FLYING = {"Serra Angel", "Vampire Nighthawk"}


# ---------------------------------------------------------------------- boards
def board(n: int, seed: int = SEED) -> dict:
    """N attackers against N blockers: n // 5 (at least one) attackers double-blocked, as many
    unblocked, the others blocked by one creature (ids a00.., b00..; a double block's blockers
    in id order, which is mtgasp's default damage assignment order)."""
    rng = random.Random(seed * 100 + n)
    k = max(1, n // 5)
    roles = ["double"] * k + ["none"] * k + ["single"] * (n - 2 * k)
    rng.shuffle(roles)
    decks: dict[tuple[str, ...], list[str]] = {}

    def draw(pool: list[str]) -> str:
        """The next card of a shuffled deck of the pool (reshuffled when empty): varied boards."""
        deck = decks.setdefault(tuple(pool), [])
        if not deck:
            deck += rng.sample(pool, len(pool))
        return deck.pop()

    attackers, blockers, declaration, order = [], [], {}, {}
    for i, role in enumerate(roles):
        a = {
            "id": f"a{i:02d}",
            "card": draw({"double": DOUBLE_BLOCKED, "single": SINGLE_BLOCKED, "none": UNBLOCKED}[role]),
        }
        attackers.append(a)
        for _ in range({"double": 2, "single": 1, "none": 0}[role]):
            b = {"id": f"b{len(blockers):02d}", "card": draw(REACH if a["card"] in FLYING else BLOCKERS)}
            blockers.append(b)
            declaration[b["id"]] = a["id"]
            order.setdefault(a["id"], []).append(b["id"])
    return {
        "attacker": "alice",
        "defender": "bob",
        "attackers": attackers,
        "blockers": blockers,
        "declaration": declaration,
        "order": {a: bs for a, bs in order.items() if len(bs) > 1},
    }


def strikes_first(card: str) -> bool:
    return bool({"first_strike", "double_strike"} & set(CardPool.default().get(card).keyword_names()))


def state(b: dict) -> GameState:
    """The board at its first combat damage step, blockers declared (CR 510.5 decides which)."""
    blocked = set(b["declaration"].values())
    has_blocked = "blocked" in Permanent.model_fields  # a newer bridge marks blocked attackers
    alice = []
    for a in b["attackers"]:
        vigilance = "vigilance" in CardPool.default().get(a["card"]).keyword_names()
        perm = {"id": a["id"], "card": a["card"], "attacking": "bob", "tapped": not vigilance}
        if has_blocked and a["id"] in blocked:
            perm["blocked"] = True
        alice.append(perm)
    bob = [{"id": x["id"], "card": x["card"], "blocking": [b["declaration"][x["id"]]]} for x in b["blockers"]]
    first = any(strikes_first(x["card"]) for x in b["attackers"] + b["blockers"])
    return GameState.model_validate(
        {
            "turn": 3,
            "active": "alice",
            "step": "first_strike_damage" if first else "combat_damage",
            "players": [{"name": "alice", "battlefield": alice}, {"name": "bob", "battlefield": bob}],
        }
    )


# ---------------------------------------------------------------------- mtgasp
def next_step(game: Game) -> Game:
    """From the first-strike damage step to the regular one."""
    if NextStep is not None:
        game.push(NextStep())
        return game
    update: dict[str, object] = {"step": "combat_damage"}
    if "combat_damage_dealt" in GameState.model_fields:
        update["combat_damage_dealt"] = False
    return Game.from_state(game.state.model_copy(update=update), game.pool)


def combat(s: GameState) -> tuple[GameState, dict[str, float]]:
    """The whole combat damage from the state; the final state and the time of each part (ms)."""
    parts = {"assign+deal": 0.0, "sba": 0.0, "step": 0.0}
    t0 = time.perf_counter()
    game = Game.from_state(s)
    steps = 2 if s.step == "first_strike_damage" else 1
    for i in range(steps):
        if i:
            t = time.perf_counter()
            game = next_step(game)
            parts["step"] += time.perf_counter() - t
        t = time.perf_counter()
        game.push(AssignDamage(assignments={}))
        t1 = time.perf_counter()
        game.push(StateBasedActions())
        parts["assign+deal"] += t1 - t
        parts["sba"] += time.perf_counter() - t1
    total = time.perf_counter() - t0
    parts["assign+deal"] += total - sum(parts.values())  # Game.from_state counts with the first push
    return game.state, {"total": total * 1000, **{k: v * 1000 for k, v in parts.items()}}


def our_times(s: GameState, repeats: int) -> tuple[GameState, dict[str, float]]:
    """The final state and the medians of each part's time, each run on the position as met for
    the first time (every answer the process kept forgotten before it)."""
    final, _ = combat(s)  # warm: rule modules are parsed once per process
    runs = []
    for _ in range(repeats):
        forget()
        runs.append(combat(s)[1])
    return final, {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def outcome(final: GameState) -> dict:
    """Life totals (alice, bob), board ids in graveyards, damage marked on survivors."""
    return {
        "life": [final.player("alice").life, final.player("bob").life],
        "dead": sorted(c.id for p in final.players for c in p.graveyard),
        "damage": {p.id: p.damage for p in final.permanents() if p.damage},
    }


# ---------------------------------------------------------------------- reference
def reference(b: dict) -> dict:
    """The expected result, worked out directly from the rules for these simple boards."""
    pool = CardPool.default()
    cs = {}
    for side, xs in (("alice", b["attackers"]), ("bob", b["blockers"])):
        for x in xs:
            card = pool.get(x["card"])
            cs[x["id"]] = {
                "side": side,
                "p": card.power,
                "t": card.toughness,
                "kw": set(card.keyword_names()),
                "dmg": 0,
                "dt": False,
                "alive": True,
            }
    blockers_of: dict[str, list[str]] = {}
    for bl, a in sorted(b["declaration"].items()):
        blockers_of.setdefault(a, []).append(bl)
    life = {"alice": 20, "bob": 20}
    first = any(c["kw"] & {"first_strike", "double_strike"} for c in cs.values())
    struck: set[str] = set()
    for step in ["first", "regular"] if first else ["regular"]:

        def deals(c: str) -> bool:
            kw = cs[c]["kw"]
            if not cs[c]["alive"] or cs[c]["p"] <= 0:
                return False
            if step == "first":
                return bool(kw & {"first_strike", "double_strike"})
            return c not in struck or "double_strike" in kw

        hits: list[tuple[str, str, int]] = []
        for a in (x["id"] for x in b["attackers"]):
            if not deals(a):
                continue
            p, trample = cs[a]["p"], "trample" in cs[a]["kw"]
            alive = [bl for bl in blockers_of.get(a, []) if cs[bl]["alive"]]
            if a not in blockers_of or (not alive and trample):  # 510.1a, 702.19e
                hits.append((a, "bob", p))
                continue
            for i, bl in enumerate(alive):  # 510.1c: lethal to each in order
                lethal = max(0, cs[bl]["t"] - cs[bl]["dmg"])
                n = p if i == len(alive) - 1 and not trample else min(lethal, p)
                hits.append((a, bl, n))
                p -= n
            if trample and p:  # 702.19b
                hits.append((a, "bob", p))
        for bl, a in b["declaration"].items():
            if deals(bl) and cs[a]["alive"]:
                hits.append((bl, a, cs[bl]["p"]))
        for src, tgt, n in hits:  # 510.2: all at once
            if n <= 0:
                continue
            if tgt in life:
                life[tgt] -= n
            else:
                cs[tgt]["dmg"] += n
                cs[tgt]["dt"] |= "deathtouch" in cs[src]["kw"]
            if "lifelink" in cs[src]["kw"]:
                life[cs[src]["side"]] += n
        if step == "first":
            struck = {c for c, v in cs.items() if v["alive"] and v["kw"] & {"first_strike", "double_strike"}}
        for c in cs.values():  # 704.5g-h
            if c["alive"] and (c["dmg"] >= c["t"] or (c["dt"] and c["dmg"] > 0)):
                c["alive"] = False
            c["dt"] = False
    return {
        "life": [life["alice"], life["bob"]],
        "dead": sorted(c for c, v in cs.items() if not v["alive"]),
        "damage": {c: v["dmg"] for c, v in cs.items() if v["alive"] and v["dmg"]},
    }


# ---------------------------------------------------------------------- phase.rs
def phase_rows(boards: list[dict], python: Path, repeats: int) -> list[dict]:
    """phase.rs's row for each board, from its own environment (one process for all)."""
    answer = run_peer(python, "phase_damage_peer.py", "--board", boards, ["--repeats", str(repeats)])
    return [answer] * len(boards) if isinstance(answer, dict) else answer


# ---------------------------------------------------------------------- report
def cards_of(b: dict) -> dict[str, str]:
    return {x["id"]: x["card"] for x in b["attackers"] + b["blockers"]}


def summary(b: dict, result: dict) -> str:
    """Creatures that died on each side and life totals."""
    attackers = {a["id"] for a in b["attackers"]}
    dead_a = sum(1 for c in result["dead"] if c in attackers)
    dead_b = len(result["dead"]) - dead_a
    alice, bob = result["life"]
    return (
        f"died: {dead_a} of alice's {len(b['attackers'])}, {dead_b} of bob's {len(b['blockers'])}; "
        f"life alice 20->{alice}, bob 20->{bob}"
    )


def differences(b: dict, ours: dict, theirs: dict, names: tuple[str, str] = ("mtgasp", "phase.rs")) -> list[str]:
    """Where two results differ (life as ``ours vs theirs``)."""
    cards = cards_of(b)
    out = []
    if ours["life"] != theirs["life"]:
        out.append(f"life (alice, bob): {ours['life']} vs {theirs['life']}")
    for c in sorted(set(ours["dead"]) ^ set(theirs["dead"])):
        out.append(f"{cards[c]} ({c}) died only in {names[0] if c in ours['dead'] else names[1]}")
    for c in sorted(set(ours["damage"]) | set(theirs["damage"])):
        if ours["damage"].get(c, 0) != theirs["damage"].get(c, 0) and c not in ours["dead"] + theirs["dead"]:
            out.append(f"{cards[c]} ({c}) damage {ours['damage'].get(c, 0)} vs {theirs['damage'].get(c, 0)}")
    return out


def verdict(b: dict, result: dict, expected: dict) -> str:
    diff = differences(b, result, expected, ("this result", "the reference"))
    return "agrees with the reference" if not diff else "DIFFERS from the reference: " + "; ".join(diff)


def describe(b: dict) -> str:
    """The blocks, compactly: attacker <- blockers."""
    by_attacker: dict[str, list[str]] = {}
    for bl, a in b["declaration"].items():
        by_attacker.setdefault(a, []).append(bl)
    cards = cards_of(b)
    return "; ".join(
        f"{cards[a['id']]}"
        + (" <- " + " + ".join(cards[x] for x in by_attacker[a["id"]]) if a["id"] in by_attacker else " unblocked")
        for a in b["attackers"]
    )


def readable(b: dict, assignment: dict[str, int]) -> str:
    """A damage assignment with card names."""
    cards = cards_of(b)
    return "{" + ", ".join(f"{cards.get(k, k)}: {v}" for k, v in assignment.items()) + "}"


def print_table(sizes: list[int], boards: list[dict], ours: list[tuple], peers: list[dict], repeats: int) -> None:
    header = (
        f"{'N':>3} | {'steps':>5} | {'mtgasp total':>12} | {'assign+deal':>11} | {'SBA':>8} | "
        f"{'step':>7} | {'phase.rs dmg+SBA':>16} | {'to end combat':>13} | same result"
    )
    print(header)
    print("-" * len(header))
    for n, b, (first, mine, t), peer in zip(sizes, boards, ours, peers):
        ok = "damage_ms" in peer
        same = ("yes" if not differences(b, mine, peer["outcome"]) else "NO") if ok else "-"
        phase = f"{peer['damage_ms']:>13.2f} ms" if ok else f"{'n/a':>16}"
        end = f"{peer['end_ms']:>10.2f} ms" if ok else f"{'n/a':>13}"
        print(
            f"{n:>3} | {2 if first else 1:>5} | {t['total']:>9.1f} ms | {t['assign+deal']:>8.1f} ms | "
            f"{t['sba']:>5.1f} ms | {t['step']:>4.1f} ms | {phase} | {end} | {same}"
        )
    print(
        f"(mtgasp: median of {repeats} runs, each part its own median; step change by "
        f"{'NextStep' if NextStep is not None else 'copying the state to combat_damage'}. "
        "phase.rs: from after blockers are declared)"
    )


def print_results(n: int, b: dict, first: bool, mine: dict, peer: dict, show_board: bool) -> None:
    unblocked = sum(1 for a in b["attackers"] if a["id"] not in b["declaration"].values())
    print(
        f"\nN={n}: {len(b['order'])} double blocks, {unblocked} unblocked, "
        f"{'first-strike step + regular step' if first else 'one damage step'}"
    )
    if show_board:
        print(f"  board:     {describe(b)}")
    expected = reference(b)
    print(f"  mtgasp:    {summary(b, mine)} ({verdict(b, mine, expected)})")
    if "damage_ms" not in peer:
        print(f"  phase.rs:  unavailable: {peer.get('reason')}")
        return
    theirs = peer["outcome"]
    print(
        f"  phase.rs:  {summary(b, theirs)} ({verdict(b, theirs, expected)}; {peer['prompts']} damage "
        "prompts answered" + ("" if peer["repeatable"] else "; a timed repeat ended elsewhere") + ")"
    )
    for d in differences(b, mine, theirs):
        print(f"  differs:   mtgasp vs phase.rs: {d}")
    cards = cards_of(b)
    for d in peer["phase_default_differs"]:
        print(
            f"  note:      {cards[d['attacker']]} ({d['attacker']}): phase.rs offers "
            f"{readable(b, d['phase_default'])}, mtgasp's default {readable(b, d['ours'])} was given instead"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--phase-repeats", type=int, default=50)
    parser.add_argument("--phase-python", type=Path, default=PEER_PYTHON)
    add_json_option(parser)
    parser.add_argument("--show-boards", action="store_true", help="print each board's blocks")
    args = parser.parse_args()
    info = header()
    print()

    boards = [board(n) for n in args.sizes]
    ours = []
    for b in boards:
        s = state(b)
        final, times = our_times(s, args.repeats)
        ours.append((s.step == "first_strike_damage", outcome(final), times))
    peers = phase_rows(boards, args.phase_python, args.phase_repeats)
    print_table(args.sizes, boards, ours, peers, args.repeats)
    for n, b, (first, mine, _), peer in zip(args.sizes, boards, ours, peers):
        print_results(n, b, first, mine, peer, args.show_boards)
    figures = []
    for n, (_, _, t), peer in zip(args.sizes, ours, peers):
        figures.append(row(f"N={n}: combat damage with state-based actions", "ms", t["total"], peer.get("damage_ms")))
        figures.append(row(f"N={n}: to the end of combat (phase.rs)", "ms", None, peer.get("end_ms")))
    write_json(args.json, info, figures)


if __name__ == "__main__":
    main()
