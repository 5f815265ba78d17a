"""Self-play benchmark: whole random games, mtgasp beside phase.rs.

mtgasp: ``--games`` K games (default 4) between two shipped decks (``--decks``, default Red
Goblins against Green Stompy), played by ``bridge.play.selfplay.play_game`` exactly as
``mtgasp selfplay`` plays them: game g with seed ``--seed + g`` (the shuffle, the starting
player and the random agents, so every run plays the same games), random agents that pass
with probability 0.25 when they could do something else, the state checked after every
action (``--no-check``: not checked) and at most ``--max-actions`` actions (default 1000; a
game that reaches it is reported unfinished). Per game: actions, turns, seconds and how it
ended; then games/s, actions/s, the medians of seconds and actions per game, milliseconds per
turn (the engines count actions differently, turns alike), how the games ended (life, empty
library, unfinished, other) and who won, and where the time went: clingo's adding of
programs and facts, grounding and solving (``bridge.engine.solver.STATS``) and the rest (Python),
with the part spent in the state checks after each action (timed by wrapping
``bridge.play.selfplay.check_invariants``; included in the other columns).

phase.rs (``phase_selfplay_peer.py``, in its own environment): the same two decks card for
card (the cards phase_peer.py lacked were added with their Oracle text), random games with
the same seeds (not the same shuffles: each engine shuffles with its own generator), the
same agent (pass with probability 0.25 at a priority prompt, else a uniformly chosen listed
action), the same rule for keeping a hand (phase's mulligan is the London one: seven cards
drawn, some put on the bottom) and the same action limit; by default as many games as
mtgasp's, ``--phase-games N`` for more (the first K are the ones beside mtgasp's).

Run by hand:  .venv/bin/python benchmarks/selfplay.py [--games 4] [--seed 1]
[--decks red_goblins green_stompy] [--max-actions 1000] [--no-check] [--phase-games N]
[--phase-python PATH]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bridge.play.selfplay as selfplay
from benchmarks.common import PEER_PYTHON, add_json_option, header, load_decks, row, run_peer, write_json
from bridge.engine.solver import STATS, module_statements
from bridge.model.paths import rules_dir

SEATS = ("alice", "bob")  # mtgasp's player names; phase's seats 0 and 1
ENDINGS = ("life", "empty library", "unfinished")


class CheckTimer:
    """Wraps ``bridge.play.selfplay.check_invariants`` (the state check after every action) to
    time it, clingo's share included."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._original = selfplay.check_invariants

    def __enter__(self) -> CheckTimer:
        selfplay.check_invariants = self._check
        return self

    def __exit__(self, *exc: object) -> None:
        selfplay.check_invariants = self._original

    def _check(self, game, sizes) -> None:
        started = time.perf_counter()
        try:
            self._original(game, sizes)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


def our_games(decks, games: int, seed: int, max_actions: int, check: bool) -> list[dict]:
    rows = []
    for g in range(games):
        STATS.reset()
        with CheckTimer() as checks:
            result = selfplay.play_game(decks, seed=seed + g, max_actions=max_actions, check=check)
        kinds = Counter(a["kind"] for a in result.log.get("actions", []))
        rows.append(
            {
                "seed": seed + g,
                "actions": result.actions,
                "turns": result.turns,
                "seconds": result.seconds,
                "ending": result.ending,
                "winner": result.winner,
                "kinds": dict(kinds),
                "sessions": STATS.sessions,
                "add": STATS.add_seconds,
                "ground": STATS.ground_seconds,
                "solve": STATS.solve_seconds,
                "checks": checks.seconds,
                "life": [p.life for p in result.final.players] if result.final else [],
            }
        )
        print(
            f"mtgasp game {g + 1}/{games} (seed {seed + g}): {result.actions} actions, {result.seconds:.1f} s, "
            f"{result.ending}",
            file=sys.stderr,
            flush=True,
        )
    return rows


def phase_games(python: Path, decks, games: int, seed: int, max_actions: int) -> dict:
    """phase.rs's games, from its own environment (``phase_selfplay_peer.py``)."""
    spec = {
        "decks": [decks[0].card_list(), decks[1].card_list()],
        "games": games,
        "seed": seed,
        "max_actions": max_actions,
        "pass_rate": 0.25,
    }
    return run_peer(python, "phase_selfplay_peer.py", "--spec", spec)


def totals(rows: list[dict]) -> dict:
    seconds = sum(r["seconds"] for r in rows) or 1e-9
    endings = Counter(r["ending"] for r in rows)
    n = len(rows)
    return {
        "games": n,
        "actions": sum(r["actions"] for r in rows),
        "seconds": seconds,
        "games_s": n / seconds,
        "actions_s": sum(r["actions"] for r in rows) / seconds,
        "median_s": statistics.median(r["seconds"] for r in rows),
        "median_actions": statistics.median(r["actions"] for r in rows),
        "median_turns": statistics.median(r["turns"] for r in rows),
        "ms_turn": seconds / (sum(r["turns"] for r in rows) or 1) * 1000,
        "wins": Counter(_winner(r) for r in rows),
        "shares": {e: endings.get(e, 0) / n for e in ENDINGS},
        "other": sum(v for k, v in endings.items() if k not in ENDINGS) / n,
        "other_kinds": sorted(k for k in endings if k not in ENDINGS),
    }


def _winner(row: dict) -> str:
    w = row.get("winner")
    if isinstance(w, int):
        return SEATS[w]
    return {None: "-", "none": "draw"}.get(w, w)


def print_games(ours: list[dict], theirs: list[dict]) -> None:
    cell = "actions | turns |       s | ending        | winner"
    header = f"{'seed':>4} | mtgasp {cell} | phase.rs {cell}"
    print(header)
    print("-" * len(header))
    for i, mine in enumerate(ours):
        line = (
            f"{mine['seed']:>4} | {mine['actions']:>14} | {mine['turns']:>5} | {mine['seconds']:>7.1f} | "
            f"{mine['ending']:<13} | {_winner(mine):<6}"
        )
        if i < len(theirs):
            p = theirs[i]
            line += f" | {p['actions']:>16} | {p['turns']:>5} | {p['seconds']:>7.3f} | {p['ending']:<13} | {_winner(p)}"
        else:
            line += f" | {'n/a':>16} |"
        print(line)


def print_totals(rows: list[tuple[str, dict]]) -> None:
    header = (
        f"{'engine':<36} | {'games':>5} | {'actions':>7} | {'games/s':>8} | {'actions/s':>9} | "
        f"{'median s/game':>13} | {'median actions':>14} | {'ms/turn':>7} | {'life':>4} | {'library':>7} | "
        f"{'unfinished':>10} | {'other':>5}"
    )
    print(header)
    print("-" * len(header))
    for name, t in rows:
        s = t["shares"]
        median_s = f"{t['median_s']:13.1f}" if t["median_s"] >= 1 else f"{t['median_s']:13.3f}"
        print(
            f"{name:<36} | {t['games']:5d} | {t['actions']:7d} | {t['games_s']:8.3f} | {t['actions_s']:9.1f} | "
            f"{median_s} | {t['median_actions']:14.1f} | {t['ms_turn']:7.1f} | {s['life']:4.0%} | "
            f"{s['empty library']:7.0%} | "
            f"{s['unfinished']:10.0%} | {t['other']:5.0%}"
        )


def print_split(rows: list[dict], check: bool) -> None:
    total = sum(r["seconds"] for r in rows)
    parts = {k: sum(r[k] for r in rows) for k in ("add", "ground", "solve", "checks")}
    python = total - parts["add"] - parts["ground"] - parts["solve"]
    header = (
        f"{'mtgasp time split, all games':<36} | {'s':>7} | {'clingo calls':>12} | {'add':>13} | "
        f"{'ground':>13} | {'solve':>13} | {'python':>13}"
    )
    print(header)
    print("-" * len(header))

    def part(seconds: float) -> str:
        return f"{seconds:6.1f} ({seconds / total:4.0%})" if total else f"{'-':>13}"

    print(
        f"{'total':<36} | {total:7.1f} | {sum(r['sessions'] for r in rows):12d} | {part(parts['add'])} | "
        f"{part(parts['ground'])} | {part(parts['solve'])} | {part(python)}"
    )
    per = [(r["seconds"] / r["actions"] * 1000) if r["actions"] else 0 for r in rows]
    print(
        f"(add: the parsed rule modules and the position's facts added to clingo; python: the rest; "
        f"median {statistics.median(per):.1f} ms per action)"
    )
    if check:
        rest = total - parts["checks"]
        actions = sum(r["actions"] for r in rows)
        print(
            f"of which the state checks after every action (check_invariants, clingo included): "
            f"{parts['checks']:.1f} s ({parts['checks'] / total:.0%}); without them "
            f"{len(rows) / rest:.3f} games/s, {actions / rest:.1f} actions/s (estimated: the total less the checks)"
        )


def _kinds(rows: list[dict]) -> str:
    kinds: Counter[str] = Counter()
    for r in rows:
        kinds.update(r["kinds"])
    n = len(rows) or 1
    return ", ".join(f"{k} {v / n:.1f}" for k, v in kinds.most_common())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decks", nargs=2, default=["red_goblins", "green_stompy"], metavar=("A", "B"))
    parser.add_argument("--max-actions", type=int, default=1000)
    parser.add_argument("--no-check", action="store_true", help="don't check the state after every action")
    parser.add_argument("--phase-games", type=int, default=None, help="phase.rs games (default: --games)")
    parser.add_argument("--phase-python", type=Path, default=PEER_PYTHON)
    add_json_option(parser)
    args = parser.parse_args()
    decks = load_decks(args.decks)
    check = not args.no_check
    phase_n = max(args.phase_games or args.games, args.games)

    info = header()
    print(
        f"decks: alice (phase seat 0) {decks[0].name}, bob (phase seat 1) {decks[1].name}; seeds {args.seed} to "
        f"{args.seed + args.games - 1}; at most {args.max_actions} actions a game; mtgasp's state checked after "
        f"every action: {'yes' if check else 'no'}"
    )
    print()
    for path in sorted(rules_dir().rglob("*.lp")):  # parse the rule modules once, untimed (some 20 ms)
        module_statements(path.relative_to(rules_dir()).with_suffix("").as_posix())
    ours = our_games(decks, args.games, args.seed, args.max_actions, check)
    peer = phase_games(args.phase_python, decks, phase_n, args.seed, args.max_actions)
    ok = peer.get("reason") == "ok"
    theirs = peer["games"] if ok else []

    print_games(ours, theirs[: args.games])
    print()
    rows = [("mtgasp", totals(ours))]
    if ok:
        rows.append(("phase.rs, the same seeds", totals(theirs[: args.games])))
        if phase_n > args.games:
            rows.append((f"phase.rs, seeds {args.seed} to {args.seed + phase_n - 1}", totals(theirs)))
    print_totals(rows)
    print(
        f"(medians of the games; ms/turn: all the games' seconds over all their turns; turns per game, median: "
        f"mtgasp {totals(ours)['median_turns']:g}"
        + (f", phase.rs {totals(theirs)['median_turns']:g}" if ok else "")
        + ")"
    )
    for name, t in rows:
        wins = ", ".join(f"{'nobody' if who == '-' else who} {n}" for who, n in sorted(t["wins"].items()))
        other = f"; other endings: {', '.join(t['other_kinds'])}" if t["other_kinds"] else ""
        print(f"{name}: won by {wins}{other}")
    print()
    print_split(ours, check)
    print()
    print(f"mtgasp actions per game, by kind: {_kinds(ours)}")
    if ok:
        print(f"phase.rs actions per game, by kind ({len(theirs)} games): {_kinds(theirs)}")
        print(f"phase.rs: {peer['info']}")
        if peer.get("unparsed"):
            print(f"phase.rs leaves these cards' text unparsed: {peer['unparsed']}")
        errors = [g for g in theirs if g.get("error")]
        for g in errors:
            print(f"phase.rs game seed {g['seed']}: {g['ending']}: {g['error']}")
    else:
        print(f"phase.rs: unavailable: {peer.get('reason')}")
    write_json(args.json, info, json_rows(totals(ours), totals(theirs[: args.games]) if ok else None))


def json_rows(ours: dict, theirs: dict | None) -> list[dict[str, object]]:
    """The figures: mtgasp's against phase.rs's on the same seeds."""
    figures = [
        ("actions per second", "actions/s", "actions_s"),
        ("games per second", "games/s", "games_s"),
        ("milliseconds per turn", "ms", "ms_turn"),
        ("median seconds per game", "s", "median_s"),
    ]
    return [row(name, unit, ours[key], theirs[key] if theirs else None) for name, unit, key in figures]


if __name__ == "__main__":
    main()
