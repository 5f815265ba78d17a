"""The puzzle solver on the bundled puzzles (``puzzles/``): each puzzle's result, seconds (wall
clock and the process's CPU time: the machine may be shared), actions pushed, positions,
positions answered from the transposition table, and actions per second, searched in the ways
asked for (``--way``, repeated; by default the first two) side by side:

- ``pruned``: the solver's default, one pass to the goal's bound, mana abilities of
  non-creature permanents activated by hand not searched (``bridge.play.solve.pruned``);
- ``unpruned``: one pass, every option searched (the search before that pruning);
- ``deepening``: iterative deepening (depth 8 first, then 8 more each iteration), pruned.

Each answer is checked against the puzzle's ``solution:``.  No peer: python-mtg's ``find_win``
comes later.

Run by hand:  .venv/bin/python benchmarks/puzzles.py [--time-limit 300] [--only NAME]
              [--way pruned --way unpruned --way deepening] [--json FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import add_json_option, header, row, write_json
from bridge.engine.game import Game
from bridge.model.puzzle import load_puzzle
from bridge.play.solve import differs_from_solution, solve

WAYS: dict[str, dict[str, object]] = {
    "pruned": {},
    "unpruned": {"prune": False},
    "deepening": {"first_depth": 8},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--only", help="only the puzzles whose file name contains this")
    parser.add_argument("--way", action="append", choices=sorted(WAYS), help="a way to search (repeat for more)")
    add_json_option(parser)
    args = parser.parse_args()
    ways = args.way or ["pruned", "unpruned"]
    info = header()
    rows: list[dict[str, object]] = []
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
    for way, (seconds, cpu, nodes) in totals.items():
        rate = nodes / max(seconds, 1e-9)
        print(f"all, {way}: {seconds:.1f} s ({cpu:.1f} s CPU), {nodes} actions, {rate:.0f} actions/s")
    write_json(args.json, info, rows)


if __name__ == "__main__":
    main()
