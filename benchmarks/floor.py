"""The floor under mtgasp's time per action: what its groundings alone cost, beside phase.rs's
whole time per action.

mtgasp answers a question of the rules by a grounding of the rule modules the question needs
with the position's facts, then a solve; a position met for the first time needs groundings
of its own. How low can its time per action go while it grounds as often as it does? Three
parts:

1. clingo's fixed costs on this machine (the least of ``--repeats`` runs): a control made,
   grounded with nothing and solved; and, per rule, programs of N made-up rules that match
   nothing (of one body atom, and joins of three atoms), N = 100 and 200.
2. A self-play game (``bridge.play.selfplay.play_game``: the decks of ``--decks``, seed
   ``--seed``, at most ``--actions`` actions) with every grounding it makes recorded (each
   ``Session``: its rule modules, facts and program parts). After the game, each is made
   again ``--repeats`` times, the engine's own way (``Session``: the control made, the rules
   the question keeps and the facts added, the parts ground) and its answer found (the best
   answer set, or the first where nothing is optimized), with its pruning already worked out
   (the first run of each, untimed); the least time is that grounding's floor. By kind of
   question (its modules but the characteristics'): groundings, statements kept (median),
   floor (median and total).
3. The bound: the floors summed, per action of the game, beside the game's own time per
   action and phase.rs's (``phase_selfplay_peer.py``: the same decks, ``--phase-games`` games
   from the same seed). However fast the Python around them, mtgasp's time per action can't
   fall below the floor without fewer groundings per action.

Run by hand:  .venv/bin/python benchmarks/floor.py [--actions 400] [--seed 1] [--repeats 3]
[--decks red_goblins green_stompy] [--phase-games 10] [--phase-python PATH] [--json FILE]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clingo

import bridge.play.selfplay as selfplay
from benchmarks.common import PEER_PYTHON, add_json_option, header, load_decks, row, times_ms, write_json
from benchmarks.selfplay import phase_games
from bridge.engine.solver import Session, module_statements
from bridge.model.paths import rules_dir


def least_ms(run: Callable[[], object], repeats: int) -> float:
    """The least time of ``repeats`` runs of ``run``, in ms."""
    return min(times_ms(run, repeats))


# ---------------------------------------------------------------------- 1. clingo's fixed costs
def made_up(n: int, join: bool) -> str:
    """N rules that match nothing: ``h_i(X) :- b_i(X).`` or ``h_i(X) :- a_i(X, Y), b_i(Y, Z), c_i(Z).``"""
    body = "a{i}(X, Y), b{i}(Y, Z), c{i}(Z)" if join else "b{i}(X)"
    return "\n".join(f"h{i}(X) :- {body.format(i=i)}." for i in range(n))


def ground_text(text: str) -> None:
    control = clingo.Control(["--warn=none"])
    control.add("base", [], text)
    control.ground([("base", [])])
    control.solve()


def fixed_costs(repeats: int) -> dict[str, float]:
    out = {"control made, ground empty, solved (ms)": least_ms(lambda: ground_text(""), repeats)}
    empty = out["control made, ground empty, solved (ms)"]
    for join in (False, True):
        for n in (100, 200):
            text = made_up(n, join)
            kind = "a join of three" if join else "one body atom"
            out[f"{n} rules of {kind}, per rule (us)"] = (
                (least_ms(lambda: ground_text(text), repeats) - empty) / n * 1000
            )
    return out


# ---------------------------------------------------------------------- 2. a game's groundings
@dataclass(frozen=True)
class Grounding:
    """A session the game made: what is needed to make it again."""

    modules: tuple[str, ...]
    facts: str
    parts: tuple[tuple[str, tuple[object, ...]], ...]
    arguments: tuple[str, ...]
    prune: bool

    @property
    def kind(self) -> str:
        named = [m.split("/")[-1] for m in self.modules if not m.startswith("characteristics/") and m != "inputs"]
        return ",".join(named) or "characteristics"

    def make(self) -> Session:
        return Session(self.modules, self.facts, self.parts, self.arguments, self.prune)


def record_game(
    decks: tuple[selfplay.Deck, selfplay.Deck], seed: int, actions: int
) -> tuple[list[Grounding], int, float]:
    """The groundings a game makes, its actions and its seconds."""
    made: list[Grounding] = []
    original = Session.__init__

    def recording(
        self: Session,
        modules: Sequence[str],
        facts: str,
        parts: Sequence[tuple[str, Sequence[object]]] = (),
        arguments: Sequence[str] = (),
        prune: bool = True,
        **rest: object,
    ) -> None:
        grounded = tuple((name, tuple(args)) for name, args in parts)
        made.append(Grounding(tuple(modules), facts, grounded, tuple(arguments), prune))
        original(self, modules, facts, grounded, arguments, prune, **rest)  # type: ignore[arg-type]

    Session.__init__ = recording  # type: ignore[method-assign, assignment]
    try:
        started = time.perf_counter()
        result = selfplay.play_game(decks, seed, max_actions=actions)
        seconds = time.perf_counter() - started
    finally:
        Session.__init__ = original  # type: ignore[method-assign]
    # the groundings of a session made inside another's (the modules' warnings checked once)
    # are no question of the game
    return [g for g in made if g.facts], result.actions, seconds


@dataclass
class Floor:
    """A kind of question's groundings: the statements each kept and each one's floor."""

    statements: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)


def floors(made: list[Grounding], repeats: int) -> dict[str, Floor]:
    """Each grounding made again, its pruning worked out first (untimed): the least time of
    the grounding and one answer set, by kind of question."""
    by_kind: dict[str, Floor] = defaultdict(Floor)
    for grounding in made:
        floor = by_kind[grounding.kind]
        floor.statements.append(grounding.make().statements)

        def again(g: Grounding = grounding) -> None:
            g.make().solve(best=True)

        floor.ms.append(least_ms(again, repeats))
    return by_kind


# ---------------------------------------------------------------------- the tables
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actions", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--decks", nargs=2, default=["red_goblins", "green_stompy"], metavar=("A", "B"))
    parser.add_argument("--phase-games", type=int, default=10)
    parser.add_argument("--phase-python", type=Path, default=PEER_PYTHON)
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    decks = load_decks(args.decks)
    for path in sorted(rules_dir().rglob("*.lp")):  # parse the rule modules once, untimed
        module_statements(path.relative_to(rules_dir()).with_suffix("").as_posix())

    costs = fixed_costs(max(args.repeats, 5))
    print("clingo's fixed costs (the least of the runs)")
    for name, value in costs.items():
        print(f"  {name:<48} {value:8.1f}")
    print()

    made, actions, seconds = record_game(decks, args.seed, args.actions)
    print(
        f"the game: {decks[0].name} against {decks[1].name}, seed {args.seed}: {actions} actions in {seconds:.2f} s "
        f"({seconds / actions * 1000:.2f} ms an action), {len(made)} groundings ({len(made) / actions:.2f} an action)"
    )
    by_kind = floors(made, args.repeats)
    title = (
        f"{'question (its modules)':<60} | {'groundings':>10} | {'statements':>10} | {'floor ms':>8} | {'total s':>7}"
    )
    print(title)
    print("-" * len(title))
    total = 0.0
    for kind, floor in sorted(by_kind.items(), key=lambda kv: -sum(kv[1].ms or [])):
        ms, statements = floor.ms, floor.statements
        total += sum(ms)
        print(
            f"{kind[:60]:<60} | {len(ms):10d} | {statistics.median(statements):10.0f} | "
            f"{statistics.median(ms):8.2f} | {sum(ms) / 1000:7.2f}"
        )
    print("(statements: those the question keeps, median; floor: the least time of a grounding made again, median)")
    print()

    peer = phase_games(args.phase_python, decks, args.phase_games, args.seed, 1000)
    ok = peer.get("reason") == "ok"
    theirs = peer.get("games", []) if ok else []
    peer_ms = sum(g["seconds"] for g in theirs) / max(1, sum(g["actions"] for g in theirs)) * 1000 if ok else None
    floor_ms = total / actions
    game_ms = seconds / actions * 1000
    print(f"{'ms an action':<52} | {'mtgasp':>8} | {'phase.rs':>8}")
    print(f"{'the game, whole':<52} | {game_ms:8.2f} | {peer_ms if peer_ms is not None else float('nan'):8.2f}")
    print(f"{'its groundings alone (the floor)':<52} | {floor_ms:8.2f} | {'-':>8}")
    if peer_ms is not None:
        print(
            f"(phase.rs: {len(theirs)} game{'s' if len(theirs) != 1 else ''} of the same decks from seed {args.seed}, "
            f"{sum(g['actions'] for g in theirs)} actions; {peer['info']})"
        )
        print(
            f"the floor is {floor_ms / peer_ms:.1f} times phase.rs's whole time per action: "
            f"{'no' if floor_ms > peer_ms else 'some'} room for parity while mtgasp grounds "
            f"{len(made) / actions:.2f} times an action"
        )
    else:
        print(f"phase.rs: unavailable: {peer.get('reason')}")
    rows = [
        row("time per action, the game", "ms", game_ms, peer_ms),
        row("time per action, its groundings alone", "ms", floor_ms, peer_ms),
        row("groundings per action", "groundings", len(made) / actions),
        *(row(name, "ms" if "(ms)" in name else "us", value) for name, value in costs.items()),
    ]
    write_json(args.json, info, rows)


if __name__ == "__main__":
    main()
