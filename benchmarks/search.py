"""Search primitives: ``game.push(action)``, ``game.pop()`` and a position's canonical key
(``bridge.model.keys.position_key``), on positions of random self-play, and what a stored
position costs in bytes.

Positions: ``--games`` K games (default 2) between two shipped decks (``--decks``, default Red
Goblins against Green Stompy), each started by ``bridge.play.selfplay.start_game`` with seed
``--seed + g`` and played by ``RandomAgent``s (pass rate 0.25, as ``mtgasp selfplay`` plays)
for at most ``--actions`` actions (default 150). At each position the agent's action is chosen
(the legal actions listed by ``decisions``, untimed), then timed:

- push: ``game.push(action)``, the action as play first applies it (its legality judged);
- pop: ``game.pop()``, back to the position;
- push again: the same action pushed again after the pop, as a search does when it comes back
  to a position (the game then goes on from it);
- key: ``position_key(state)`` of the position reached.

Sizes of a stored position, on the same positions: the key (16 bytes), its canonical text
(before hashing), the state pickled, the state as JSON (``model_dump_json(exclude_defaults=True)``)
and the memory a state takes when built from that JSON (``tracemalloc``).

Medians and 90th percentiles over all positions. phase.rs: no figures (its Python bindings have
no undo; a position is restored by loading an exported state), and the script says so.

Run by hand:  .venv/bin/python benchmarks/search.py [--games 2] [--seed 1] [--actions 150]
[--decks red_goblins green_stompy] [--json FILE]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bridge.play.selfplay as selfplay
from benchmarks.common import add_json_option, header, load_decks, p90, row, write_json
from bridge.model.keys import canonical_text, position_key
from bridge.model.state import GameState
from bridge.play.agents import RandomAgent, decisions, game_over


def measure(
    decks: tuple[selfplay.Deck, selfplay.Deck], seed: int, actions: int
) -> tuple[dict[str, list[float]], Counter[str]]:
    """One game's positions: the times (ms) of push, pop, push again and the key, and sizes;
    the actions pushed, by kind."""
    game = selfplay.start_game(decks, seed)
    agents = {p.name: RandomAgent(seed * 1000 + i, pass_rate=0.25) for i, p in enumerate(game.state.players)}
    out: dict[str, list[float]] = {k: [] for k in ("push", "pop", "again", "key")}
    states: list[GameState] = []
    kinds: Counter[str] = Counter()
    for _ in range(actions):
        if game_over(game):
            break
        decision = decisions(game)
        action = agents[decision.player].choose(game, decision)
        t0 = time.perf_counter()
        game.push(action)
        t1 = time.perf_counter()
        game.pop()
        t2 = time.perf_counter()
        game.push(action)
        t3 = time.perf_counter()
        position_key(game.state)
        t4 = time.perf_counter()
        out["push"].append((t1 - t0) * 1000)
        out["pop"].append((t2 - t1) * 1000)
        out["again"].append((t3 - t2) * 1000)
        out["key"].append((t4 - t3) * 1000)
        states.append(game.state)
        kinds[action.kind] += 1
    out.update(sizes(states))
    return out, kinds


def sizes(states: list[GameState]) -> dict[str, list[float]]:
    """Bytes of each state: key, canonical text, pickle, JSON, memory when built from JSON."""
    out: dict[str, list[float]] = {k: [] for k in ("key bytes", "canonical", "pickle", "json", "memory")}
    for state in states:
        text = state.model_dump_json(exclude_defaults=True)
        out["key bytes"].append(len(position_key(state)))
        out["canonical"].append(len(canonical_text(state).encode()))
        out["pickle"].append(len(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)))
        out["json"].append(len(text.encode()))
        out["memory"].append(memory(text))
    return out


def memory(text: str) -> float:
    """Bytes still held by a state built from its JSON (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    state = GameState.model_validate_json(text)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del state
    return float(held)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--actions", type=int, default=150, help="at most this many actions a game")
    parser.add_argument("--decks", nargs=2, default=["red_goblins", "green_stompy"], metavar=("A", "B"))
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    decks = load_decks(args.decks)
    print(
        f"positions: random games ({args.games}) of {decks[0].name} against {decks[1].name}, seeds {args.seed} to "
        f"{args.seed + args.games - 1}, at most {args.actions} actions each"
    )
    print()
    runs = [measure(decks, args.seed + g, args.actions) for g in range(args.games)]
    allof: dict[str, list[float]] = {}
    kinds: Counter[str] = Counter()
    for run, counted in runs:
        kinds.update(counted)
        for k, v in run.items():
            allof.setdefault(k, []).extend(v)
    n = len(allof["push"])
    title = f"{'on ' + str(n) + ' positions of self-play':<40} | {'median':>10} | {'p90':>10} | {'max':>10}"
    print(title)
    print("-" * len(title))
    figures = []
    for key, name in (
        ("push", "push (first time: legality judged)"),
        ("pop", "pop"),
        ("again", "push again after the pop"),
        ("key", "position key"),
    ):
        v = allof[key]
        print(f"{name:<40} | {statistics.median(v):>7.3f} ms | {p90(v):>7.3f} ms | {max(v):>7.3f} ms")
        figures.append(row(f"{name}, median", "ms", statistics.median(v)))
        figures.append(row(f"{name}, p90", "ms", p90(v)))
    print()
    title = f"{'bytes of a stored position':<40} | {'median':>10} | {'p90':>10} | {'max':>10}"
    print(title)
    print("-" * len(title))
    for key, name in (
        ("key bytes", "key (blake2b digest)"),
        ("canonical", "key's canonical text (before hashing)"),
        ("pickle", "state, pickled"),
        ("json", "state, JSON without defaults"),
        ("memory", "state in memory (built from its JSON)"),
    ):
        v = allof[key]
        print(f"{name:<40} | {statistics.median(v):>10.0f} | {p90(v):>10.0f} | {max(v):>10.0f}")
        figures.append(row(f"{name}, median", "bytes", statistics.median(v)))
    print()
    print("actions pushed, by kind: " + ", ".join(f"{k} {v}" for k, v in kinds.most_common()))
    print(
        "(push includes the next player's priority, state-based actions and triggers; the legal actions were "
        "listed before it, untimed, so a cast or an activation was judged then and is not judged again)"
    )
    print(
        "phase.rs: not measured: phase-python has no undo (a position is restored by Engine.load_game "
        "from an exported state) and no key of a position"
    )
    write_json(args.json, info, figures)


if __name__ == "__main__":
    main()
