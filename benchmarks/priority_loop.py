"""Priority loop benchmark: the cost of a priority step, of the legal-action list and of a
whole turn on a mid-game board, with the number of clingo calls and where the time goes.

The board (fixed): each player has five lands, three creatures (one with a {T} ability),
four cards in hand (a land, an instant with a target, a sorcery, a creature) and a library.
Measured, medians of ``--repeats`` runs:

- pass: the player with priority passes and the other receives it (CR 115.3d);
- pass and resolve: both pass with Lightning Bolt on the stack; it resolves, state-based
  actions are checked and the active player receives priority (115.4, 608, 115.5);
- cast: Lightning Bolt is judged (timing, target, cost) and put on the stack (601.2);
- legal actions: every legal action of the player with priority (``decisions``);
- full turn (passing): from the upkeep of one turn to the upkeep of the next, everybody
  passing (untap, draw, no attack, cleanup) — ``advance``;
- full turn (random agents): the same turn with both players choosing at random among the
  legal actions (seeded), the legal actions listed at each decision.

For the two full turns: clingo calls (sessions) per turn, and the split of the time between
adding the programs (parsing the facts, adding the parsed modules), grounding, solving and
the rest (Python).

Run by hand:  .venv/bin/python benchmarks/priority_loop.py [--repeats 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bridge.agents import RandomAgent, decisions, play  # noqa: E402
from bridge.game import Game  # noqa: E402
from bridge.models import Advance, Cast, GameState, Pass  # noqa: E402
from bridge.solver import STATS  # noqa: E402

LIBRARY = ["Mountain", "Forest", "Grizzly Bears", "Lightning Bolt", "Giant Growth", "Island", "Mountain", "Forest"]


def board() -> GameState:
    def side(name: str, lands: list[str], creatures: list[str], hand: list[str]) -> dict:
        return {"name": name, "life": 20, "library": list(LIBRARY), "hand": hand,
                "battlefield": [{"card": land} for land in lands] + [{"card": c} for c in creatures]}
    return GameState.model_validate({
        "turn": 5, "active": "alice", "step": "main1",
        "players": [side("alice", ["Mountain", "Mountain", "Forest", "Forest", "Island"],
                         ["Grizzly Bears", "Prodigal Pyromancer", "Craw Wurm"],
                         ["Lightning Bolt", "Divination", "Mountain", "Grizzly Bears"]),
                    side("bob", ["Island", "Island", "Mountain", "Swamp", "Swamp"],
                         ["Llanowar Elves", "Giant Spider", "Mogg Fanatic"],
                         ["Doom Blade", "Counterspell", "Forest", "Giant Spider"])]})


def median_ms(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def with_bolt(state: GameState) -> GameState:
    game = Game(state)
    game.push(Cast(card="Lightning Bolt", targets=["bob"]))
    return game.state


def turn_profile(run: Callable[[], Game], repeats: int) -> dict[str, float]:
    """Medians of a whole turn: ms, sessions, and the time split."""
    rows = []
    for _ in range(repeats):
        STATS.reset()
        started = time.perf_counter()
        game = run()
        total = time.perf_counter() - started
        rows.append({"ms": total * 1000, "sessions": STATS.sessions, "actions": len(game.log),
                     "add": STATS.add_seconds * 1000, "ground": STATS.ground_seconds * 1000,
                     "solve": STATS.solve_seconds * 1000,
                     "python": (total - STATS.add_seconds - STATS.ground_seconds - STATS.solve_seconds) * 1000})
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    start = board()
    stacked = with_bolt(start)
    upkeep = start.model_copy(update={"step": "upkeep"})
    Game(start).check(Pass())  # parse the rule modules once

    rows = [
        ("pass (priority to the opponent)", median_ms(lambda: Game(start).push(Pass()), args.repeats)),
        ("pass and resolve Lightning Bolt", median_ms(lambda: _pass_twice(stacked), args.repeats)),
        ("cast Lightning Bolt", median_ms(lambda: Game(start).push(Cast(card="Lightning Bolt", targets=["bob"])),
                                          args.repeats)),
        ("legal actions of the priority player", median_ms(lambda: decisions(Game(start)), args.repeats)),
    ]
    print(f"{'mtgasp, mid-game board (5 lands, 3 creatures, 4 cards in hand each)':<58} | median ms")
    print("-" * 72)
    for name, ms in rows:
        print(f"{name:<58} | {ms:9.2f}")
    print()
    passing = turn_profile(lambda: _advance_turn(upkeep), max(3, args.repeats // 3))
    agents = turn_profile(lambda: _random_turn(upkeep), max(3, args.repeats // 3))
    print(f"{'full turn':<26} | {'ms':>8} | {'actions':>7} | {'clingo calls':>12} | {'add':>7} | "
          f"{'ground':>7} | {'solve':>7} | {'python':>7}")
    print("-" * 100)
    for name, p in (("everybody passing", passing), ("random agents", agents)):
        print(f"{name:<26} | {p['ms']:8.1f} | {p['actions']:7.0f} | {p['sessions']:12.0f} | {p['add']:7.1f} | "
              f"{p['ground']:7.1f} | {p['solve']:7.1f} | {p['python']:7.1f}")
    print("(add: the parsed modules and the position's facts added to clingo; times in ms, medians)")


def _pass_twice(state: GameState) -> None:
    game = Game(state)
    game.push(Pass())
    game.push(Pass())


def _advance_turn(state: GameState) -> Game:
    game = Game(state)
    game.push(Advance(step="upkeep", turn=state.turn + 1))
    return game


def _random_turn(state: GameState) -> Game:
    game = Game(state)
    agents = {"alice": RandomAgent(1), "bob": RandomAgent(2)}
    for _ in range(400):
        if game.state.turn > state.turn and game.state.step == "upkeep":
            break
        play(game, agents, max_actions=1)  # type: ignore[arg-type]
    return game


if __name__ == "__main__":
    main()
