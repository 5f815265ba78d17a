"""The puzzle solver on the bundled puzzles (``puzzles/``): each puzzle's result, seconds (wall
clock and this process's CPU time: on a shared machine the CPU time is the steadier figure),
actions pushed, positions and actions per second, searched two ways side by side:

- iterative deepening (depth 8 first, then 8 more each iteration);
- one pass to the goal's bound (the solver's default: no depth limit).

Each answer is checked against the puzzle's ``solution:``.  No peer: python-mtg's ``find_win``
comes later.

Run by hand:  .venv/bin/python benchmarks/puzzles.py [--time-limit 60] [--only NAME] [--one-pass] [--json FILE]

(``--one-pass``: the solver's default way only.  Both ways in one process, the one-pass figures
of a puzzle follow its deepening run, whose positions the engine has already answered: they
are a warm start; with ``--one-pass`` each puzzle's figures are its first search of its positions.)
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

WAYS = {"deepening": {"first_depth": 8}, "one pass": {}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--only", help="only the puzzles whose file name contains this")
    parser.add_argument("--one-pass", action="store_true", help="only one pass to the goal's bound")
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    rows: list[dict[str, object]] = []
    print(
        f"{'puzzle':34} {'way':10} {'result':8} {'s':>6} {'cpu s':>6} {'actions':>8} {'positions':>9} {'/s':>6}  check"
    )
    totals = {way: [0.0, 0.0, 0] for way in WAYS}
    for path in sorted((ROOT / "puzzles").glob("*.yaml")):
        if args.only and args.only not in path.name:
            continue
        puzzle = load_puzzle(path)
        for way, options in WAYS.items():
            if args.one_pass and way != "one pass":
                continue
            cpu = time.process_time()
            found = solve(Game(puzzle.state), puzzle.goal, time_limit=args.time_limit, **options)
            cpu = time.process_time() - cpu
            differs = differs_from_solution(puzzle, found)
            check = "as expected" if found.result != "unknown" and not differs else (differs or found.stopped_by)
            print(
                f"{path.stem:34} {way:10} {found.result:8} {found.seconds:6.2f} {cpu:6.2f} {found.nodes:8} "
                f"{found.positions:9} {found.nodes_per_second:6.0f}  {check}"
            )
            totals[way][0] += found.seconds
            totals[way][1] += cpu
            totals[way][2] += int(found.nodes)
            rows.append(row(f"{path.stem} ({way}) seconds", "s", found.seconds))
            rows.append(row(f"{path.stem} ({way}) CPU seconds", "s", cpu))
            rows.append(row(f"{path.stem} ({way}) actions", "actions", found.nodes))
    for way, (seconds, cpu_seconds, nodes) in totals.items():
        if args.one_pass and way != "one pass":
            continue
        print(
            f"all, {way}: {seconds:.1f} s ({cpu_seconds:.1f} s CPU), {nodes} actions, "
            f"{nodes / max(seconds, 1e-9):.0f} actions/s"
        )
    write_json(args.json, info, rows)


if __name__ == "__main__":
    main()
