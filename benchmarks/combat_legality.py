"""Combat legality benchmark: N attackers against N blockers, mtgasp beside phase.rs.

Boards mix evasion (flying, reach, swampwalk with the defender controlling a Swamp,
"can block only creatures with flying"), a Lure on one attacker (a requirement for every
untapped defending creature able to block it, CR 509.1c) and restrictions ("can't block",
"can't block alone", "can't be blocked by more than one creature", "can block an
additional creature").  For N = 5, 10, 20, 40 it prints the median time of

  (a) checking one (legal) block declaration on a fresh position: from the validated state
      to the verdict, facts and grounding included, every answer the process kept forgotten
      first; next to it phase.rs validating and applying the same declaration
      (``phase_peer.py``, in its own environment); and the same check asked again of the same
      position, answered from what the process kept ("kept");
  (b) checking many declarations on one position (grounded once), per declaration;
  (c) counting all legal block declarations (fresh, as in (a)); for N <= 6 the count is confirmed by the
      brute-force reference of the tests (``tests/reference.py``).

Run by hand:  .venv/bin/python benchmarks/combat_legality.py [--sizes 5 10 20 40]
phase.rs runs from a separate environment with ``phase-python`` installed; by default
``benchmarks/.peers/bin/python`` (make it with ``benchmarks/setup_peers.sh``), or give
``--phase-python PATH``.  Without it the phase column says why it is missing.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import reference

from benchmarks.common import PEER_PYTHON, add_json_option, header, median_ms, row, run_peer, write_json
from bridge.engine.game import Game
from bridge.model.actions import DeclareBlockers
from bridge.model.state import GameState

ATTACKER_CYCLE = ["Grizzly Bears", "Serra Angel", "Bog Wraith", "Craw Wurm", "Stalking Tiger", "Air Elemental"]
BLOCKER_CYCLE = ["Giant Spider", "Llanowar Elves", "Grizzly Bears", "Wall of Wood", "Mogg Flunkies", "Goblin Raider"]
# Flags of the brute-force reference for the cards the boards use.
FLAGS = {
    "Grizzly Bears": set(),
    "Serra Angel": {"flying"},
    "Bog Wraith": {"swampwalk"},
    "Craw Wurm": set(),
    "Stalking Tiger": {"max_one_blocker"},
    "Air Elemental": {"flying"},
    "Giant Spider": {"reach"},
    "Llanowar Elves": set(),
    "Wall of Wood": set(),
    "Mogg Flunkies": {"cant_block_alone"},
    "Goblin Raider": {"cant_block"},
    "Cloud Sprite": {"flying", "only_flyers"},
    "Foriysian Brigade": {"block_additional"},
}
COLORS = {
    "Serra Angel": {"white"},
    "Cloud Sprite": {"blue"},
    "Foriysian Brigade": {"white"},
    "Mogg Flunkies": {"red"},
    "Goblin Raider": {"red"},
    "Bog Wraith": {"black"},
    "Air Elemental": {"blue"},
}


def board(n: int) -> dict:
    """N attackers (the first one enchanted with Lure) against N blockers, one of them a Cloud
    Sprite and one a Foriysian Brigade; the defender controls a Swamp."""
    attackers = [{"id": f"a{i}", "card": ATTACKER_CYCLE[i % len(ATTACKER_CYCLE)]} for i in range(n)]
    blockers = [{"id": f"b{i}", "card": BLOCKER_CYCLE[i % len(BLOCKER_CYCLE)]} for i in range(n)]
    blockers[-1]["card"] = "Cloud Sprite"
    if n > 1:
        blockers[-2]["card"] = "Foriysian Brigade"
    return {
        "attacker": "alice",
        "defender": "bob",
        "attackers": attackers,
        "blockers": blockers,
        "auras": [{"id": "lure", "card": "Lure", "attached_to": "a0"}],
        "lands": {"bob": ["Swamp"]},
    }


def state(b: dict) -> GameState:
    """The board as a position at the declare blockers step."""
    alice = [{"id": a["id"], "card": a["card"], "attacking": "bob", "tapped": True} for a in b["attackers"]]
    alice += [{"id": x["id"], "card": x["card"], "attached_to": x["attached_to"]} for x in b["auras"]]
    bob = [{"id": x["id"], "card": x["card"]} for x in b["blockers"]]
    bob += [{"id": f"land{i}", "card": c} for i, c in enumerate(b["lands"]["bob"])]
    return GameState.model_validate(
        {
            "turn": 3,
            "active": "alice",
            "step": "declare_blockers",
            "players": [{"name": "alice", "battlefield": alice}, {"name": "bob", "battlefield": bob}],
        }
    )


def reference_count(b: dict) -> int:
    """The brute-force count, for small boards."""

    def creature(x: dict, extra: set[str]) -> dict:
        return {
            "id": x["id"],
            "colors": COLORS.get(x["card"], {"green"}),
            "artifact": False,
            "tapped": False,
            "flags": FLAGS[x["card"]] | extra,
        }

    attackers = [creature(a, {"lure"} if a["id"] == "a0" else set()) for a in b["attackers"]]
    blockers = [creature(x, set()) for x in b["blockers"]]
    # Cloud Sprite may block only flyers: the reference has no such flag, so it is given as
    # "can't block" each non-flyer by removing those choices.
    original = reference.can_block

    def can_block(blocker: dict, attacker: dict, lands: set[str]) -> bool:
        if "only_flyers" in blocker["flags"] and "flying" not in attacker["flags"]:
            return False
        return original(blocker, attacker, lands)

    reference.can_block = can_block
    try:
        return len(reference.legal_declarations(attackers, blockers, {"swamp"}))
    finally:
        reference.can_block = original


def random_declarations(b: dict, k: int, seed: int) -> list[DeclareBlockers]:
    rng = random.Random(seed)
    ids = [a["id"] for a in b["attackers"]]
    out = []
    for _ in range(k):
        out.append(DeclareBlockers(blockers={x["id"]: rng.choice(ids) for x in b["blockers"] if rng.random() < 0.6}))
    return out


def phase_times(boards: list[dict], python: Path, repeats: int) -> list[dict | None]:
    """phase.rs's time on each board, from its own environment (one process per board;
    boards of more than 20 creatures a side get 3 repeats: phase takes seconds there)."""
    if not python.exists():
        return [None] * len(boards)
    rows: list[dict | None] = []
    for b in boards:
        n = len(b["attackers"])
        answer = run_peer(python, "phase_peer.py", "--board", [b], ["--repeats", str(repeats if n <= 20 else 3)])
        if isinstance(answer, dict):
            print(answer["reason"], file=sys.stderr)
            rows.append(None)
        else:
            rows.append(answer[0])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 10, 20, 40])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--phase-python", type=Path, default=PEER_PYTHON)
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    print()

    rows = []
    boards = []
    for n in args.sizes:
        b = board(n)
        game = Game(state(b))
        first = next(iter(game.legal_blocks))
        b["declaration"] = {k: v if len(v) > 1 else v[0] for k, v in first.blockers.items()}
        boards.append(b)
        s = state(b)
        Game(s).check(first)  # warm: rule modules are parsed once per process
        fresh = median_ms(lambda: Game(s).check(first), args.repeats, fresh=True)
        kept = median_ms(lambda: Game(s).check(first), args.repeats)
        checker = game.checker("block")
        declarations = random_declarations(b, 50, seed=n)
        checker.check(declarations[0])
        per_check = median_ms(lambda: [checker.check(d) for d in declarations], max(3, args.repeats // 4)) / len(
            declarations
        )
        count = len(game.legal_blocks)
        count_ms = median_ms(lambda: len(Game(s).legal_blocks), max(3, args.repeats // 4), fresh=True)
        confirmed = ("yes" if reference_count(b) == count else "NO") if n <= 6 else "-"
        rows.append((n, fresh, kept, per_check, count, count_ms, confirmed))

    peers = phase_times(boards, args.phase_python, args.repeats)
    title = (
        f"{'N':>3} | {'(a) check fresh':>15} | {'phase.rs apply':>14} | {'(a) kept':>9} | {'(b) per check':>13} | "
        f"{'(c) count':>9} | {'count ms':>9} | brute force"
    )
    print(title)
    print("-" * len(title))
    figures = []
    for (n, fresh, kept, per_check, count, count_ms, confirmed), peer in zip(rows, peers):
        if peer and peer.get("block_ms") is not None:
            phase = f"{peer['block_ms']:.2f} ms" + ("" if peer.get("block_accepted", True) else " (rejected)")
        else:
            phase = "n/a"
        print(
            f"{n:>3} | {fresh:>12.2f} ms | {phase:>14} | {kept:>6.2f} ms | {per_check:>10.3f} ms | {count:>9} | "
            f"{count_ms:>6.1f} ms | {confirmed}"
        )
        peer_ms = peer.get("block_ms") if peer and peer.get("block_accepted", True) else None
        figures.append(row(f"N={n}: check one block declaration, fresh position", "ms", fresh, peer_ms))
        figures.append(row(f"N={n}: check one block declaration, asked again (kept)", "ms", kept))
        figures.append(row(f"N={n}: check a declaration, position grounded once", "ms", per_check))
        figures.append(row(f"N={n}: count the legal declarations ({count})", "ms", count_ms))
    agree = []
    for n in range(2, 7):
        engine_count = len(Game(state(board(n))).legal_blocks)
        agree.append(f"N={n}: {engine_count}" + ("" if engine_count == reference_count(board(n)) else " DIFFERS"))
    print("(c) against the brute-force reference: " + ", ".join(agree))
    if peers and peers[0] is None:
        print(f"(phase.rs: no environment at {args.phase_python}; run benchmarks/setup_peers.sh)")
    write_json(args.json, info, figures)


if __name__ == "__main__":
    main()
