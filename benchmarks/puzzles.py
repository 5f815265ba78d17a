"""The puzzle solver on the bundled puzzles (``puzzles/``) and on Forge's puzzle files, side by
side with python-mtg's ``find_win``.  Seconds are given by the wall clock and by this process's
CPU time (on a shared machine the CPU time is the steadier figure).

1. The bundled puzzles: each puzzle's result, seconds, actions pushed, positions, positions
   answered from the transposition table and actions per second, searched in the ways asked
   for (``--way``, repeated; by default the first two) side by side:

   - ``pruned``: the solver's default, one pass to the goal's bound, mana abilities of
     non-creature permanents activated by hand not searched (``bridge.play.solve.pruned``);
   - ``unpruned``: one pass, every option searched (the search before that pruning);
   - ``deepening``: iterative deepening (depth 8 first, then 8 more each iteration), pruned.

   Each answer is checked against the puzzle's ``solution:``.
2. Forge's ``.pzl`` files (``../shared/puzzles/forge`` beside the checkout, or ``--forge DIR``):
   whether each imports (else the first problem), and the solver's answer in one pass.
3. python-mtg's ``find_win`` (PyPI ``python-mtg``, run in ``benchmarks/.peers`` through
   ``pymtg_peer.py``) on every puzzle of 1 and 2 it can express (a win goal, its cards in its
   corpus and read whole, a step it can start in): its answer, time and nodes, optimistic
   (``forced=False``) and forced (every block tried), next to mtgasp's answer, and where they
   differ, the kind of difference.

Run by hand:  .venv/bin/python benchmarks/puzzles.py [--time-limit 300] [--only NAME] [--forge DIR]
              [--way pruned --way unpruned --way deepening] [--node-budget 4000] [--no-peer] [--json FILE]

(Several ways in one process: a puzzle's later ways find the engine's answers for the
positions the first one met already kept, so they are a warm start; ``--way`` once gives each
puzzle's first search of its positions.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import PEER_PYTHON, add_json_option, header, row, run_peer, write_json
from bridge.engine.game import Game
from bridge.io.pzl import PzlError, load_pzl
from bridge.model.paths import shared_folder
from bridge.model.puzzle import Puzzle, load_puzzle
from bridge.play.solve import SolveResult, differs_from_solution, solve

WAYS: dict[str, dict[str, object]] = {
    "pruned": {},
    "unpruned": {"prune": False},
    "deepening": {"first_depth": 8},
    "dfpn": {"search": "dfpn"},
}
FORGE = shared_folder("puzzles", "forge")


def peer_puzzle(name: str, puzzle: Puzzle) -> dict[str, Any] | str:
    """The puzzle as pymtg_peer.py reads it, or why find_win can't be asked it."""
    goal = puzzle.goal
    if goal.kind != "win":
        return f"goal {goal.kind}: find_win looks only for a win"
    state = puzzle.state
    if state.stack:
        return "a spell or ability on the stack"
    if any(p.attacking or p.blocking for pl in state.players for p in pl.battlefield):
        return "creatures in combat (its positions come from decklists)"
    players = [
        {
            "name": p.name,
            "life": p.life,
            "hand": [c.card for c in p.hand],
            "battlefield": [
                {"id": c.id, "card": c.card, "tapped": c.tapped, "attached_to": c.attached_to} for c in p.battlefield
            ],
            "graveyard": [c.card for c in p.graveyard],
            "library": [c.card for c in p.library],
        }
        for p in state.players
    ]
    return {
        "name": name,
        "me": goal.player,
        "active": state.active,
        "priority": state.priority,
        "step": state.step,
        "turns": goal.turn - state.turn,
        "players": players,
    }


def peer_cell(answer: dict[str, Any]) -> str:
    spent = " (budget spent)" if answer["budget_spent"] else ""
    return f"{answer['answer']}{spent} {answer['seconds']:.2f}s {answer['nodes']}n"


def difference(ours: str, answer: dict[str, Any]) -> str:
    """The kind of difference between mtgasp's answer and find_win's."""
    theirs = answer["answer"]
    if ours == "win" and theirs == "win":
        return "same"
    if ours == "no_win" and theirs == "None":
        return "same (None)"
    if ours == "no_win" and theirs == "win":
        return "find_win's win is refuted: the opponent's answer it doesn't try"
    if ours == "win" and theirs == "None":
        return "budget spent" if answer["budget_spent"] else "find_win misses the win within its moves"
    return f"mtgasp {ours}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--only", help="only the puzzles whose file name contains this")
    parser.add_argument("--forge", type=Path, default=FORGE, help="the folder of Forge's .pzl files")
    parser.add_argument("--node-budget", type=int, default=4000, help="find_win's node budget")
    parser.add_argument("--no-peer", action="store_true", help="leave python-mtg out")
    parser.add_argument("--way", action="append", choices=sorted(WAYS), help="a way to search (repeat for more)")
    add_json_option(parser)
    args = parser.parse_args()
    ways = args.way or ["pruned", "unpruned"]
    info = header()
    rows: list[dict[str, object]] = []
    ours: dict[str, SolveResult] = {}
    asked: list[dict[str, Any]] = []
    not_asked: dict[str, str] = {}

    def for_peer(name: str, puzzle: Puzzle) -> None:
        made = peer_puzzle(name, puzzle)
        if isinstance(made, str):
            not_asked[name] = made
        else:
            asked.append(made)

    print(
        f"{'puzzle':34} {'way':9} {'result':8} {'s':>7} {'cpu s':>7} {'actions':>8} "
        f"{'positions':>9} {'again':>6} {'/s':>5}  check"
    )
    totals = {way: [0.0, 0.0, 0] for way in ways}
    for path in sorted((ROOT / "puzzles").glob("*.yaml")):
        if args.only and args.only not in path.name:
            continue
        puzzle = load_puzzle(path)
        for way in ways:
            cpu = time.process_time()
            found = solve(Game(puzzle.state), puzzle.goal, time_limit=args.time_limit, **WAYS[way])  # type: ignore[arg-type]
            cpu = time.process_time() - cpu
            differs = differs_from_solution(puzzle, found)
            check = "as expected" if found.result != "unknown" and not differs else (differs or found.stopped_by)
            print(
                f"{path.stem:34} {way:9} {found.result:8} {found.seconds:7.2f} {cpu:7.2f} {found.nodes:8} "
                f"{found.positions:9} {found.transpositions:6} {found.nodes_per_second:5.0f}  {check}"
            )
            totals[way][0] += found.seconds
            totals[way][1] += cpu
            totals[way][2] += found.nodes
            rows.append(row(f"{path.stem} ({way}) seconds", "s", found.seconds))
            rows.append(row(f"{path.stem} ({way}) cpu seconds", "s", cpu))
            rows.append(row(f"{path.stem} ({way}) actions", "actions", found.nodes))
            rows.append(row(f"{path.stem} ({way}) positions", "positions", found.positions))
            if way == ways[0]:
                ours[path.stem] = found
        for_peer(path.stem, puzzle)
    for way, (seconds, cpu_seconds, nodes) in totals.items():
        rate = nodes / max(seconds, 1e-9)
        print(f"all, {way}: {seconds:.1f} s ({cpu_seconds:.1f} s CPU), {nodes} actions, {rate:.0f} actions/s")

    pzls = sorted(args.forge.glob("*.pzl")) if args.forge is not None and args.forge.is_dir() else []
    if pzls:
        print(f"\nForge's puzzles ({args.forge}), one pass, {args.time_limit:.0f} s each:")
        print(f"{'puzzle':20} {'imports':8} {'result':8} {'s':>7} {'positions':>9}  why not")
    for path in pzls:
        if args.only and args.only not in path.name:
            continue
        try:
            puzzle = load_pzl(path)
        except PzlError as exc:
            first = str(exc).splitlines()[0]
            print(f"{path.stem:20} {'no':8} {'-':8} {'-':>7} {'-':>9}  {first}")
            not_asked[path.stem] = "does not import"
            continue
        found = solve(Game(puzzle.state), puzzle.goal, time_limit=args.time_limit)
        why = found.stopped_by or ""
        print(f"{path.stem:20} {'yes':8} {found.result:8} {found.seconds:7.2f} {found.positions:9}  {why}")
        rows.append(row(f"forge {path.stem} seconds", "s", found.seconds))
        ours[path.stem] = found
        for_peer(path.stem, puzzle)

    if args.no_peer:
        write_json(args.json, info, rows)
        return
    print(f"\npython-mtg's find_win (node budget {args.node_budget}), next to mtgasp:")
    answers = run_peer(PEER_PYTHON, "pymtg_peer.py", "--puzzles", asked, ["--node-budget", str(args.node_budget)])
    if isinstance(answers, dict):
        print(f"  no answers: {answers.get('reason')}")
        write_json(args.json, info, rows)
        return
    print(f"{'puzzle':34} {'mtgasp':8} {'find_win':28} {'find_win forced':28}  difference")
    for answer in answers:
        name = answer["name"]
        result = ours[name].result
        if not answer.get("expressible"):
            print(f"{name:34} {result:8} {'not expressible: ' + answer['reason']}")
            continue
        if "error" in answer:
            print(f"{name:34} {result:8} error: {answer['error']}")
            continue
        loose, forced = answer["optimistic"], answer["forced"]
        print(
            f"{name:34} {result:8} {peer_cell(loose):28} {peer_cell(forced):28}  "
            f"{difference(result, loose)}; forced: {difference(result, forced)}"
        )
        rows.append(row(f"{name} find_win seconds", "s", ours[name].seconds, loose["seconds"]))
    for name, reason in not_asked.items():
        print(f"{name:34} {'-':8} not asked: {reason}")
    write_json(args.json, info, rows)


if __name__ == "__main__":
    main()
