"""Is there an attack that wins this combat against every block?  The rules' answer
(``bridge.play.combat_forall.winning_attacks``: ``combat/attack_forall.lp``) against the
plain search's (``bridge.play.solve``, goal "win this turn") on the same random boards of N
attackers against M blockers (``combat_board``: evasion, first strike, trample, deathtouch,
lifelink, reach, defender, "can't block", Lure), and the solver with the rules' answer
ordering its moves (``--forall``).

For each board, each way runs in a process of its own, forked from one where the rule modules
are parsed already (no way finds the engine's answers of another way's run):

- ``forall``: ``winning_attacks(game, verify=False)``, the rules' answer alone;
- ``forall+verify``: ``winning_attacks(game)``, each counterexample (and the first block
  against a winning attack) also played out on the game;
- ``plain``: the solver without the rules' answer (its default, ``forall=False``);
- ``solver+forall``: the solver with it ordering the moves (``mtgasp solve --forall``).

Printed: each board's answers (they must agree), seconds and the solver's actions pushed;
then for each size the median seconds of each way, as rows (``ours``: the way's median,
``peer``: the plain search's, ``ratio``: ours over the plain search's, below 1 faster).

Run by hand:  .venv/bin/python benchmarks/combat_forall.py [--sizes 3x3,4x4,5x5] [--boards 3]
              [--time-limit 300] [--json FILE]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import add_json_option, header, row, write_json
from bridge.engine.game import Game
from bridge.model.puzzle import Goal
from bridge.model.state import GameState
from bridge.play.combat_forall import combat_board, winning_attacks
from bridge.play.solve import Solver

WAYS = ("forall", "forall+verify", "plain", "solver+forall")
GOAL = Goal(player="alice", kind="win", turn=3)


def run_way(way: str, state: dict[str, Any], time_limit: float) -> dict[str, Any]:
    """One way on one board: its answer, seconds and (the solver) actions pushed."""
    game = Game(GameState.model_validate(state))
    started = time.perf_counter()
    if way.startswith("forall"):
        answer = winning_attacks(game, verify=way == "forall+verify")
        seconds = time.perf_counter() - started
        asked = sum(j.asked for j in answer.judged)
        played = sum(j.played for j in answer.judged)
        return {"result": answer.result, "seconds": seconds, "asked": asked, "played": played}
    solver = Solver(game, GOAL, time_limit=time_limit, forall=way == "solver+forall")
    found = solver.solve()
    seconds = time.perf_counter() - started
    return {"result": found.result, "seconds": seconds, "nodes": found.nodes, "forall_seconds": solver.forall_seconds}


def isolated(way: str, state: dict[str, Any], time_limit: float) -> dict[str, Any]:
    """The way run in a forked process of its own."""
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(run_way, way, state, time_limit).result()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="3x3,4x4,5x5", help="attackers x blockers, comma-separated")
    parser.add_argument("--boards", type=int, default=3, help="boards of each size (seeds 1, 2, ...)")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds the plain search may take")
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    # parse the rule modules once, in this process, on a board none of the runs uses
    run_way("forall", combat_board(0, 2, 1), args.time_limit)
    rows: list[dict[str, object]] = []
    disagreements = 0
    for size in args.sizes.split(","):
        attackers, blockers = (int(n) for n in size.lower().split("x"))
        times: dict[str, list[float]] = {way: [] for way in WAYS}
        for seed in range(1, args.boards + 1):
            state = combat_board(1000 * attackers + 100 * blockers + seed, attackers, blockers)
            runs = {way: isolated(way, state, args.time_limit) for way in WAYS}
            results = {r["result"] for r in runs.values() if r["result"] != "unknown"}
            agree = len(results) <= 1
            disagreements += not agree
            cards = [p["card"] for player in state["players"] for p in player["battlefield"]]
            print(f"{size} board {seed} ({', '.join(cards)}; Bob at {state['players'][1]['life']}):")
            for way, r in runs.items():
                times[way].append(r["seconds"])
                extra = (
                    f", {r['nodes']} actions pushed"
                    + (f", {r['forall_seconds']:.2f} s in winning_attacks" if r["forall_seconds"] else "")
                    if "nodes" in r
                    else f", {r['asked']} blocks asked, {r['played']} played out"
                )
                print(f"  {way:<14} {r['result']:<8} {r['seconds']:8.2f} s{extra}")
            if not agree:
                print("  THE ANSWERS DIFFER")
        plain = statistics.median(times["plain"])
        for way in WAYS:
            median = statistics.median(times[way])
            rows.append(row(f"{size} {way} median seconds", "s", median, None if way == "plain" else plain))
        print(
            f"{size}: median seconds "
            + ", ".join(f"{way} {statistics.median(times[way]):.2f}" for way in WAYS)
            + f" ({args.boards} boards)"
        )
    print(f"{disagreements} board(s) with differing answers")
    write_json(args.json, info, rows)


if __name__ == "__main__":
    main()
