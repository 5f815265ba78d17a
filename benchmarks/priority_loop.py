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

phase.rs, side by side on the same board (``phase_loop_peer.py``, run in its own environment,
``benchmarks/.peers/bin/python`` from ``benchmarks/setup_peers.sh`` or ``--phase-python PATH``;
without it only mtgasp's numbers are printed, with the reason): the same pass, the two passes
that resolve the Bolt, the cast (``CastSpell`` with phase's auto payment, then ``ChooseTarget``),
``Game.actions()`` and the turn with everybody passing (phase's actions replayed, and a client
loop reading each prompt); medians of ``--phase-repeats`` runs, each on a position reached
by playing from a snapshot outside the timed region.

Run by hand:  .venv/bin/python benchmarks/priority_loop.py [--repeats 10] [--phase-repeats 50]
[--phase-python PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import PEER_PYTHON, add_json_option, header, median_ms, row, run_peer, write_json
from bridge.engine.game import Game
from bridge.engine.solver import STATS, forget
from bridge.model.actions import Advance, Cast, Pass
from bridge.model.state import GameState
from bridge.play.agents import RandomAgent, decisions, play

LIBRARY = ["Mountain", "Forest", "Grizzly Bears", "Lightning Bolt", "Giant Growth", "Island", "Mountain", "Forest"]


def board_dict() -> dict:
    """The board as plain data (also what phase.rs's driver is given)."""

    def side(name: str, lands: list[str], creatures: list[str], hand: list[str]) -> dict:
        return {
            "name": name,
            "life": 20,
            "library": list(LIBRARY),
            "hand": hand,
            "battlefield": [{"card": land} for land in lands] + [{"card": c} for c in creatures],
        }

    return {
        "turn": 5,
        "active": "alice",
        "step": "main1",
        "players": [
            side(
                "alice",
                ["Mountain", "Mountain", "Forest", "Forest", "Island"],
                ["Grizzly Bears", "Prodigal Pyromancer", "Craw Wurm"],
                ["Lightning Bolt", "Divination", "Mountain", "Grizzly Bears"],
            ),
            side(
                "bob",
                ["Island", "Island", "Mountain", "Swamp", "Swamp"],
                ["Llanowar Elves", "Giant Spider", "Mogg Fanatic"],
                ["Doom Blade", "Counterspell", "Forest", "Giant Spider"],
            ),
        ],
    }


def board() -> GameState:
    return GameState.model_validate(board_dict())


def with_bolt(state: GameState) -> GameState:
    game = Game(state)
    game.push(Cast(card="Lightning Bolt", targets=["bob"]))
    return game.state


def turn_profile(run: Callable[[], Game], repeats: int) -> dict[str, float]:
    """Medians of a whole turn: ms, sessions, and the time split; each run from a process that
    has forgotten every answer kept (the turn's positions met for the first time)."""
    rows = []
    for _ in range(repeats):
        forget()
        STATS.reset()
        started = time.perf_counter()
        game = run()
        total = time.perf_counter() - started
        rows.append(
            {
                "ms": total * 1000,
                "sessions": STATS.sessions,
                "actions": len(game.log),
                "add": STATS.add_seconds * 1000,
                "ground": STATS.ground_seconds * 1000,
                "solve": STATS.solve_seconds * 1000,
                "python": (total - STATS.add_seconds - STATS.ground_seconds - STATS.solve_seconds) * 1000,
            }
        )
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def phase_results(python: Path, repeats: int) -> dict:
    """phase.rs's numbers on the same board, from its own environment (``phase_loop_peer.py``)."""
    return run_peer(python, "phase_loop_peer.py", "--board", board_dict(), ["--repeats", str(repeats)])


def _phase_cell(peer: dict, key: str, field: str = "ms", width: int = 11) -> str:
    row = peer.get(key)
    return f"{row[field]:>{width}.2f}" if isinstance(row, dict) and field in row else f"{'n/a':>{width}}"


def _phase_notes(peer: dict, ours_count: int) -> list[str]:
    if peer.get("reason") != "ok":
        return [f"phase.rs: unavailable: {peer.get('reason')}"]
    notes = []
    for key, name in (
        ("pass", "pass"),
        ("resolve", "pass and resolve"),
        ("cast", "cast"),
        ("actions", "legal actions"),
        ("turn", "full turn"),
    ):
        if "reason" in peer[key]:
            notes.append(f"phase.rs, {name}: not measured: {peer[key]['reason']}")
    if "ms" in peer["resolve"]:
        r = peer["resolve"]
        notes.append(
            f"phase.rs pass and resolve: alice's PassPriority {r['first_pass_ms']:.2f} ms, bob's (resolves "
            f"the Bolt, SBA, priority to alice) {r['second_pass_ms']:.2f} ms"
        )
    if "ms" in peer["cast"]:
        c = peer["cast"]
        notes.append(
            f"phase.rs cast: CastSpell (auto payment) {c['cast_call_ms']:.2f} ms, ChooseTarget bob "
            f"(pays: taps {', '.join(c['tapped']) or 'nothing'}; spell on the stack) "
            f"{c['target_and_pay_ms']:.2f} ms"
        )
    if "ms" in peer["actions"]:
        a = peer["actions"]
        kinds = ", ".join(f"{n} {k}" for k, n in a["kinds"].items())
        notes.append(
            f"phase.rs legal actions: {a['count']} ({kinds}), a spell or ability once, its target chosen "
            f"in a prompt after it: {a['with_targets']} with targets expanded; mtgasp lists {ours_count}, "
            "one per target"
        )
    return notes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--phase-repeats", type=int, default=50)
    parser.add_argument("--phase-python", type=Path, default=PEER_PYTHON)
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    print()
    start = board()
    stacked = with_bolt(start)
    upkeep = start.model_copy(update={"step": "upkeep"})
    Game(start).check(Pass())  # parse the rule modules once

    timed: list[tuple[str, str, Callable[[], object]]] = [
        ("pass (priority to the opponent)", "pass", lambda: Game(start).push(Pass())),
        ("pass and resolve Lightning Bolt", "resolve", lambda: _pass_twice(stacked)),
        ("cast Lightning Bolt", "cast", lambda: Game(start).push(Cast(card="Lightning Bolt", targets=["bob"]))),
        ("legal actions of the priority player", "actions", lambda: decisions(Game(start)).options),
    ]
    # fresh: the position met for the first time (every answer kept forgotten); kept: asked again
    rows = [
        (name, key, median_ms(run, args.repeats, fresh=True), median_ms(run, args.repeats)) for name, key, run in timed
    ]
    ours_count = len(decisions(Game(start)).options)
    peer = phase_results(args.phase_python, args.phase_repeats)
    title = (
        f"{'mid-game board (5 lands, 3 creatures, 4 cards in hand each)':<58} | {'mtgasp ms':>9} | "
        f"{'phase.rs ms':>11} | {'mtgasp kept':>11}"
    )
    print(title)
    print("-" * len(title))
    for name, key, ms, kept in rows:
        print(f"{name:<58} | {ms:9.2f} | {_phase_cell(peer, key)} | {kept:11.2f}")
    print(
        f"(medians: mtgasp of {args.repeats} runs"
        + (f", phase.rs of {args.phase_repeats}" if peer.get("reason") == "ok" else "")
        + "; mtgasp: the position met for the first time, every answer the process kept forgotten before each "
        "run; kept: the same asked again, answered from the groundings and answers kept)"
    )
    for note in _phase_notes(peer, ours_count):
        print(note)
    print()
    passing = turn_profile(lambda: _advance_turn(upkeep), max(3, args.repeats // 3))
    agents = turn_profile(lambda: _random_turn(upkeep), max(3, args.repeats // 3))
    title = (
        f"{'full turn, upkeep to upkeep':<36} | {'ms':>8} | {'actions':>7} | {'clingo calls':>12} | {'add':>7} | "
        f"{'ground':>7} | {'solve':>7} | {'python':>7}"
    )
    print(title)
    print("-" * len(title))
    for name, p in (("mtgasp, everybody passing", passing), ("mtgasp, random agents", agents)):
        print(
            f"{name:<36} | {p['ms']:8.1f} | {p['actions']:7.0f} | {p['sessions']:12.0f} | {p['add']:7.1f} | "
            f"{p['ground']:7.1f} | {p['solve']:7.1f} | {p['python']:7.1f}"
        )
    turn = peer.get("turn") if peer.get("reason") == "ok" else None
    dashes = f" | {'-':>12} | {'-':>7} | {'-':>7} | {'-':>7} | {'-':>7}"
    if turn and "ms" in turn:
        for name, key in (("phase.rs, everybody passing", "ms"), ("phase.rs, same, reading each prompt", "client_ms")):
            print(f"{name:<36} | {turn[key]:8.2f} | {turn['actions']:7d}{dashes}")
    else:
        print(f"{'phase.rs, everybody passing':<36} | {'n/a':>8} | {'n/a':>7}{dashes}")
    print("(add: the parsed modules and the position's facts added to clingo; times in ms, medians)")
    if turn and "ms" in turn:
        kinds = " + ".join(f"{n} {k}" for k, n in turn["kinds"].items())
        print(
            f"phase.rs turn: {kinds} (no attackers); prompts in {', '.join(turn['steps_with_a_prompt'])}; "
            "mtgasp: one Advance"
        )
    elif turn:
        print(f"phase.rs turn: not measured: {turn.get('reason')}")
    else:
        print(f"phase.rs: unavailable: {peer.get('reason')}")
    figures = [row(name, "ms", ms, _phase_ms(peer, key)) for name, key, ms, _ in rows]
    figures += [row(f"{name}, asked again (kept)", "ms", kept) for name, _, _, kept in rows]
    figures.append(row("full turn, everybody passing", "ms", passing["ms"], turn.get("ms") if turn else None))
    figures.append(row("full turn, random agents", "ms", agents["ms"]))
    write_json(args.json, info, figures)


def _phase_ms(peer: dict, key: str) -> float | None:
    found = peer.get(key) if peer.get("reason") == "ok" else None
    return found["ms"] if isinstance(found, dict) and "ms" in found else None


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
