"""Peer benchmark: time phase.rs (via ``phase-python``) on one combat declaration.

This module is meant to run in its own virtual environment that has the PyPI
package ``phase-python`` installed (import name ``phase``), e.g.::

    benchmarks/setup_peers.sh            # makes benchmarks/.peers with phase-python
    benchmarks/.peers/bin/python benchmarks/phase_peer.py

``phase`` is imported lazily. If it is not importable, ``phase_available()``
returns ``(False, reason)`` and the timing functions return ``None`` (the
reason is then in ``last_reason()``); nothing raises at import time.

From another environment (no phase there), call it as a subprocess::

    benchmarks/.peers/bin/python benchmarks/phase_peer.py --board boards.json [--repeats 50]

which prints a JSON list (one row per board: block_ms, block_accepted,
block_reason, attack_ms, attack_reason). Without arguments it runs the demo.

Board format (the contract with the main benchmark script)::

    board = {
      "attacker": "alice", "defender": "bob",
      "attackers": [{"id": "a1", "card": "Serra Angel"}, ...],   # alice's, attacking bob
      "blockers":  [{"id": "b1", "card": "Giant Spider"}, ...],  # bob's, untapped
      "auras": [{"id": "l1", "card": "Lure", "attached_to": "a3"}],  # optional, alice's
      "lands": {"bob": ["Swamp", "Island"]},                       # optional
      "declaration": {"b1": "a1", "b2": "a1", "b3": "a2"},       # blocker id -> attacker id
    }

(Extension: a declaration value may also be a list of attacker ids, for a
blocker that blocks several attackers, e.g. Palace Guard.)

How the phase position is built (all of it OUTSIDE the timed region)
--------------------------------------------------------------------
phase ships no card data. ``ORACLE_RECORDS`` below holds MTGJSON-style records
(real Oracle text) that ``phase.build_oracle_face`` turns into phase ``CardFace``
dicts; they are loaded with ``phase.Engine.from_json``. phase-python cannot
create arbitrary objects (its ``Debug::CreateCard`` "must be handled at the
WASM layer"), so the board is reached like this:

1. ``Engine.new_game`` in the ``Limited`` format (2 players, unlimited copies)
   with seat 0 = attacker, seat 1 = defender; each deck holds exactly the
   board's cards plus basic-land filler (to the 40-card minimum).
2. ``debug_mode`` / ``debug_permitted`` are switched on in the exported state
   dict (``Game.state()``) and the game is re-loaded with ``Engine.load_game``.
3. Both players keep their hands (``MulliganDecision``), then phase's own
   debug actions (``GameAction`` ``Debug``) put the board's cards onto the
   battlefield (``MoveToZone``, raw, from hand/library), attach the auras
   (``Attach``), clear summoning sickness (``SetSummoningSickness``) and run
   state-based actions. Both players set phase stops on the declare-attackers
   and declare-blockers steps (``SetPhaseStops``), otherwise phase silently
   submits an empty declaration when nobody can legally attack / block, and
   an illegal declaration (e.g. a ground creature blocking a flyer) could not
   even be submitted. ``SetPhase`` jumps to the attacker's precombat main
   phase. -> snapshot "main" (``Game.state()``, kept as a JSON string).
4. Per repeat (untimed): ``Engine.load_game(main)``, both players pass
   priority through main phase and beginning of combat until phase prompts
   ``DeclareAttackers``. For a block measurement, the attacker then declares
   every board attacker against the defending player (a real, validated
   ``DeclareAttackers`` action) and both pass priority until phase prompts
   the defender with ``DeclareBlockers``.

What is timed
-------------
``time_block``: only the single call ``game.apply(defender_seat, action)``
with the prebuilt ``GameAction`` ``DeclareBlockers {assignments: [(blocker,
attacker), ...]}``, timed with ``time.perf_counter_ns`` (garbage collector
disabled around it). That call is phase's whole pipeline for the
declaration: payload guards, legality check against the pending
``DeclareBlockers`` prompt (evasion, block restrictions, requirements such
as Lure's CR 509.1c maximisation, "can't block alone", block capacities
...), recording the blocks, block events/triggers, state-based actions and
handing priority to the active player. It also contains the small PyO3 call
overhead; the returned ``ActionResult`` converts events to Python lazily, and
they are never read in the timed region. An illegal declaration makes
``apply`` raise ``ValueError``; that is timed too (validation + rejection)
and reported as ``accepted=False`` by ``block_details``.

``time_attack``: the same at the DeclareAttackers prompt, timing
``game.apply(attacker_seat, DeclareAttackers {attacks: [(id, Player(defender))
for every board attacker]})``.

Medians are in milliseconds; two untimed warm-up repeats come first. The
position is reached by playing priority passes from a restored main-phase
snapshot rather than by restoring a snapshot taken at the prompt itself,
because a game fresh out of ``load_game`` carries lazy rebuild work that
would be charged to the timed call (measured: about +0.07 to +0.1 ms).

Limitations / honesty notes
---------------------------
* The position is produced with phase's debug actions, not by casting spells;
  cards put on the battlefield raw (no ETB) and summoning sickness is cleared.
  The timed action itself is a normal, fully validated player action.
* ``Game`` has no clone: each repeat restores the snapshot and replays the
  priority passes (and the attack declaration) outside the timed region.
* Board attackers must be legal attackers for phase (e.g. Wall of Wood has
  defender, a lone Mogg Flunkies can't attack alone); otherwise the block
  position cannot be reached and ``time_block`` returns ``None`` (reason in
  ``last_reason()``).
* Oracle text uses the current "This creature ..." wording; phase parses every
  card listed here into structured keywords/static abilities (checked:
  Lure -> ``MustBeBlockedByAll``, Stalking Tiger -> ``CantBeBlockedByMoreThan``,
  Cloud Sprite -> ``BlockRestriction`` flying, Palace Guard -> ``ExtraBlockers``,
  Goblin Piker -> ``CantBlock``, Mogg Flunkies -> ``CombatAlone``, Bog Wraith
  -> ``Landwalk(Swamp)``). ``unparsed_cards()`` reports any card whose text
  phase leaves unparsed with the installed version.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from pathlib import Path
from typing import Any

__all__ = [
    "ORACLE_RECORDS",
    "attack_details",
    "block_details",
    "last_reason",
    "phase_available",
    "time_attack",
    "time_block",
    "unparsed_cards",
]

# --------------------------------------------------------------------------
# Card data: MTGJSON "atomic card"-style records with real Oracle text.
# --------------------------------------------------------------------------


def _rec(
    name, cost, mv, colors, type_line, types, subtypes, power=None, toughness=None, text="", keywords=(), supertypes=()
):
    r = {
        "name": name,
        "manaCost": cost,
        "manaValue": mv,
        "convertedManaCost": mv,
        "colors": list(colors),
        "colorIdentity": list(colors),
        "type": type_line,
        "types": list(types),
        "subtypes": list(subtypes),
        "supertypes": list(supertypes),
        "text": text,
        "layout": "normal",
        "identifiers": {},
        "legalities": {},
    }
    if power is not None:
        r["power"] = power
        r["toughness"] = toughness
    if keywords:
        r["keywords"] = list(keywords)
    return r


# The records live in the package (``bridge/play/peers/oracle_records.json``), shared with
# ``mtgasp diff --peer phase``; read here as plain JSON so that this environment needs no
# more than phase-python.
_RECORDS_FILE = Path(__file__).resolve().parent.parent / "bridge" / "play" / "peers" / "oracle_records.json"
ORACLE_RECORDS: dict[str, dict] = {r["name"]: r for r in json.loads(_RECORDS_FILE.read_text(encoding="utf-8"))}

_FILLER = "Plains"  # library filler (never leaves the library)
_MIN_DECK = 40  # Limited minimum deck size
_MIN_FILLER = 30  # keep a real library behind the board cards
_SEED = 42

# --------------------------------------------------------------------------
# Lazy import / availability
# --------------------------------------------------------------------------

_phase_mod = None
_import_error: str | None = None
_engine = None
_last_reason: str = ""
_prepared_cache: dict[str, _Prepared] = {}


def _load_phase():
    global _phase_mod, _import_error
    if _phase_mod is not None or _import_error is not None:
        return _phase_mod
    try:
        import phase

        for attr in ("Engine", "GameAction", "build_oracle_face"):
            if not hasattr(phase, attr):
                raise ImportError(f"phase module has no attribute {attr!r}")
        _phase_mod = phase
    except Exception as exc:  # ImportError, or a broken binary wheel
        _import_error = (
            f"phase-python is not importable ({type(exc).__name__}: {exc}); "
            "install it with `pip install phase-python` in this environment"
        )
    return _phase_mod


def phase_available() -> tuple[bool, str]:
    """(True, version info) if phase-python can be used, else (False, reason)."""
    ph = _load_phase()
    if ph is None:
        return False, _import_error or "phase-python is not importable"
    try:
        from importlib.metadata import version

        ver = version("phase-python")
    except Exception:
        ver = "unknown version"
    return True, f"phase-python {ver} ({getattr(ph, '__file__', '?')})"


def last_reason() -> str:
    """Why the last timing call returned None (or a note on its result)."""
    return _last_reason


def _set_reason(msg: str) -> None:
    global _last_reason
    _last_reason = msg


def _get_engine():
    global _engine
    if _engine is None:
        ph = _load_phase()
        faces = {}
        for rec in ORACLE_RECORDS.values():
            face = ph.build_oracle_face(rec, None)
            faces[face["name"].lower()] = face
        _engine = ph.Engine.from_json(json.dumps(faces))
    return _engine


def unparsed_cards() -> dict[str, str]:
    """Cards with rules text that phase's parser left without any structured
    ability (name -> oracle text). Empty when every card is understood."""
    ph = _load_phase()
    if ph is None:
        return {}
    out = {}
    for name, rec in ORACLE_RECORDS.items():
        if not rec["text"]:
            continue
        face = ph.build_oracle_face(rec, None)
        if not any(face.get(k) for k in ("keywords", "abilities", "triggers", "static_abilities", "replacements")):
            out[name] = rec["text"]
        elif face.get("non_ability_text"):
            out[name] = f"partly unparsed: {face['non_ability_text']}"
    return out


# --------------------------------------------------------------------------
# Position setup (untimed)
# --------------------------------------------------------------------------


class _SetupError(Exception):
    pass


class _Prepared:
    __slots__ = (
        "atk_seat",
        "attack_action",
        "attack_error",
        "block_action",
        "def_seat",
        "ids",
        "main_state",
        "setup_ms",
    )


def _debug(game, actor, kind, data=None):
    payload = {"type": kind}
    if data is not None:
        payload["data"] = data
    return game.apply(actor, {"type": "Debug", "data": payload})


def _pass_until(game, want: str, limit: int = 12):
    for _ in range(limit):
        wf = game.waiting_for()
        if wf["type"] == want:
            return wf
        if wf["type"] != "Priority":
            raise _SetupError(f"unexpected prompt while advancing to {want}: {wf['type']}")
        game.apply(wf["data"]["player"], {"type": "PassPriority"})
    raise _SetupError(f"did not reach {want} (now {game.waiting_for()})")


def _board_key(board: dict) -> str:
    return json.dumps(board, sort_keys=True, default=str)


def _new_debug_game(engine, deck0: list[str], deck1: list[str]):
    """A Limited game of the two decks, seat 0 first, with phase's debug actions allowed and
    both opening hands kept."""
    game = engine.new_game(deck0, deck1, seed=_SEED, first_player=0, format="Limited")
    st = game.state()
    st["state"]["debug_mode"] = True
    st["state"]["debug_permitted"] = [0]
    game = engine.load_game(json.dumps(st))
    while game.waiting_for()["type"] == "MulliganDecision":
        pending = game.waiting_for()["data"]["pending"]
        game.apply(pending[0]["player"], {"type": "MulliganDecision", "data": {"choice": {"type": "Keep"}}})
    return game


def _prepare(board: dict) -> _Prepared:
    key = _board_key(board)
    hit = _prepared_cache.get(key)
    if hit is not None:
        return hit
    t0 = time.perf_counter()
    ph = _load_phase()
    engine = _get_engine()
    atk_name = board.get("attacker", "alice")
    def_name = board.get("defender", "bob")
    seat = {atk_name: 0, def_name: 1}
    attackers = list(board.get("attackers", []))
    blockers = list(board.get("blockers", []))
    auras = list(board.get("auras", []) or [])
    lands = dict(board.get("lands", {}) or {})
    for who in lands:
        if who not in seat:
            raise _SetupError(f"lands for unknown player {who!r}")
    for entry in attackers + blockers + auras:
        if entry["card"] not in ORACLE_RECORDS:
            raise _SetupError(f"no Oracle record for card {entry['card']!r}")
    for names in lands.values():
        for n in names:
            if n not in ORACLE_RECORDS:
                raise _SetupError(f"no Oracle record for land {n!r}")

    # (seat, board id or None, card name) for every permanent to place
    placed: list[tuple[int, str | None, str]] = []
    placed += [(0, a["id"], a["card"]) for a in attackers]
    placed += [(0, a["id"], a["card"]) for a in auras]
    placed += [(1, b["id"], b["card"]) for b in blockers]
    for who, names in lands.items():
        placed += [(seat[who], None, n) for n in names]

    decks = {0: [], 1: []}
    for s, _, card in placed:
        decks[s].append(card)
    for s in decks:
        decks[s] += [_FILLER] * max(_MIN_FILLER, _MIN_DECK - len(decks[s]))

    game = _new_debug_game(engine, decks[0], decks[1])

    # Pool of object ids per (owner seat, card name), taken from hand+library.
    pool: dict[tuple[int, str], list[int]] = {}
    for oid, obj in game.state()["state"]["objects"].items():
        if obj["zone"] in ("Hand", "Library"):
            pool.setdefault((obj["owner"], obj["name"]), []).append(int(oid))
    for ids in pool.values():
        ids.sort()

    ids: dict[str, int] = {}
    for s, bid, card in placed:
        oid = pool[(s, card)].pop(0)
        if bid is not None:
            if bid in ids:
                raise _SetupError(f"duplicate board id {bid!r}")
            ids[bid] = oid
        _debug(game, 0, "MoveToZone", {"object_id": oid, "to_zone": "Battlefield", "simulate": False})
        if "Creature" in ORACLE_RECORDS[card]["types"]:
            _debug(game, 0, "SetSummoningSickness", {"object_id": oid, "sick": False})
    for aura in auras:
        host = aura.get("attached_to")
        if host is None:
            continue
        if host not in ids:
            raise _SetupError(f"aura {aura['id']} attached to unknown {host!r}")
        _debug(game, 0, "Attach", {"object_id": ids[aura["id"]], "target": {"type": "Object", "data": ids[host]}})
    _debug(game, 0, "RunStateBasedActions")
    # Phase stops keep phase from auto-skipping the declare steps (it submits
    # an empty declaration by itself when nobody can attack / block).
    for s_ in (0, 1):
        game.apply(s_, {"type": "SetPhaseStops", "data": {"stops": ["DeclareAttackers", "DeclareBlockers"]}})
    _debug(game, 0, "SetPhase", {"phase": "PreCombatMain", "active_player": 0})
    for bid, oid in ids.items():
        if game.object(oid)["zone"] != "Battlefield":
            raise _SetupError(f"{bid} did not stay on the battlefield")

    prep = _Prepared()
    prep.ids = ids
    prep.atk_seat, prep.def_seat = 0, 1
    # Snapshot at the attacker's precombat main phase (priority to seat 0).
    prep.main_state = json.dumps(game.state())
    _pass_until(game, "DeclareAttackers")
    attack_dict = {
        "type": "DeclareAttackers",
        "data": {"attacks": [[ids[a["id"]], {"type": "Player", "data": 1}] for a in attackers]},
    }
    prep.attack_action = ph.GameAction.from_dict(attack_dict)

    prep.block_action = None
    prep.attack_error = None
    try:
        game.apply(0, attack_dict)
    except ValueError as exc:
        prep.attack_error = f"phase rejected the attack declaration: {exc}"
    if prep.attack_error is None:
        wf = _pass_until(game, "DeclareBlockers")
        if wf["data"].get("player") != 1:
            raise _SetupError(f"unexpected blocker prompt {wf}")
        decl = board.get("declaration", {}) or {}
        try:
            assignments = []
            for b, a in decl.items():
                # A list value (extension) lets one blocker block several
                # attackers, e.g. Palace Guard.
                for one in a if isinstance(a, (list, tuple)) else [a]:
                    assignments.append([ids[b], ids[one]])
        except KeyError as exc:
            raise _SetupError(f"declaration names unknown id {exc}") from None
        prep.block_action = ph.GameAction.from_dict({"type": "DeclareBlockers", "data": {"assignments": assignments}})
    prep.setup_ms = (time.perf_counter() - t0) * 1000.0
    _prepared_cache[key] = prep
    return prep


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


def _reach(prep: _Prepared, step: str):
    """Untimed: restore the precombat-main snapshot and play on with real
    engine actions up to the requested declaration prompt."""
    game = _get_engine().load_game(prep.main_state)
    _pass_until(game, "DeclareAttackers")
    if step == "attack":
        return game
    game.apply(prep.atk_seat, prep.attack_action)
    _pass_until(game, "DeclareBlockers")
    return game


def _time_apply(prep: _Prepared, step: str, seat: int, action, repeats: int, warmup: int = 2) -> dict[str, Any]:
    times = []
    accepted = None
    error = None
    gc_was_enabled = gc.isenabled()
    for i in range(warmup + repeats):
        game = _reach(prep, step)  # untimed
        ok = True
        err = None
        if gc_was_enabled:
            gc.disable()
        t0 = time.perf_counter_ns()
        try:
            game.apply(seat, action)
        except ValueError as exc:
            ok = False
            err = exc
        t1 = time.perf_counter_ns()
        if gc_was_enabled:
            gc.enable()
        if i >= warmup:
            times.append((t1 - t0) / 1e6)
        if accepted is None:
            accepted = ok
            error = None if err is None else str(err)
        del game
    return {"median_ms": statistics.median(times), "times_ms": times, "accepted": accepted, "error": error}


def _details(board: dict, kind: str, repeats: int) -> dict[str, Any] | None:
    """Time one declaration of ``kind`` ("block" or "attack") on the board."""
    ok, why = phase_available()
    if not ok:
        _set_reason(why)
        return None
    try:
        prep = _prepare(board)
    except Exception as exc:
        _set_reason(f"could not build the phase position: {type(exc).__name__}: {exc}")
        return None
    if kind == "block" and prep.block_action is None:
        _set_reason(prep.attack_error or "declare-blockers step not reached")
        return None
    seat, action = (prep.def_seat, prep.block_action) if kind == "block" else (prep.atk_seat, prep.attack_action)
    res = _time_apply(prep, kind, seat, action, repeats)
    res["setup_ms"] = prep.setup_ms
    res["object_ids"] = dict(prep.ids)
    _set_reason("ok" if res["accepted"] else f"phase rejected the {kind} declaration (timed anyway): {res['error']}")
    return res


def block_details(board: dict, repeats: int = 50) -> dict[str, Any] | None:
    """Like ``time_block`` but returns a dict: median_ms, times_ms, accepted
    (did phase accept the declaration), error (phase's message if rejected),
    setup_ms (untimed position setup), object_ids (board id -> phase id)."""
    return _details(board, "block", repeats)


def time_block(board: dict, repeats: int = 50) -> float | None:
    """Median ms for phase to validate + apply ``board['declaration']`` at the
    declare-blockers step. None if phase is unavailable or the position cannot
    be built (see ``last_reason()``)."""
    res = block_details(board, repeats)
    return None if res is None else res["median_ms"]


def attack_details(board: dict, repeats: int = 50) -> dict[str, Any] | None:
    """Timing dict (as ``block_details``) for declaring all board attackers
    against the defending player at the declare-attackers step."""
    return _details(board, "attack", repeats)


def time_attack(board: dict, repeats: int = 50) -> float | None:
    """Median ms for phase to validate + apply the declaration of every board
    attacker (attacking the defending player) at the declare-attackers step."""
    res = attack_details(board, repeats)
    return None if res is None else res["median_ms"]


# --------------------------------------------------------------------------
# Demo
# --------------------------------------------------------------------------


def bears_board(n: int) -> dict:
    """n Grizzly Bears attacking into n Grizzly Bears, blocked one-to-one."""
    return {
        "attacker": "alice",
        "defender": "bob",
        "attackers": [{"id": f"a{i}", "card": "Grizzly Bears"} for i in range(1, n + 1)],
        "blockers": [{"id": f"b{i}", "card": "Grizzly Bears"} for i in range(1, n + 1)],
        "declaration": {f"b{i}": f"a{i}" for i in range(1, n + 1)},
    }


def _json_mode(path: str, repeats: int) -> int:
    """``--board FILE`` (``-`` = stdin): FILE holds one board or a list of
    boards; prints a JSON list with, per board, block/attack medians (ms),
    whether phase accepted the blocks, and phase's message / reason."""
    import sys

    raw = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    boards = json.loads(raw)
    if isinstance(boards, dict):
        boards = [boards]
    ok, why = phase_available()
    out = []
    for board in boards:
        row: dict[str, Any] = {"phase_available": ok, "phase_info": why}
        blk = block_details(board, repeats) if ok else None
        row["block_ms"] = None if blk is None else blk["median_ms"]
        row["block_accepted"] = None if blk is None else blk["accepted"]
        row["block_reason"] = last_reason() if ok else why
        atk = attack_details(board, repeats) if ok else None
        row["attack_ms"] = None if atk is None else atk["median_ms"]
        row["attack_reason"] = last_reason() if ok else why
        out.append(row)
    print(json.dumps(out, indent=1))
    return 0 if ok else 1


def _main() -> int:
    import sys

    args = sys.argv[1:]
    if args[:1] == ["--board"] and len(args) >= 2:
        repeats = int(args[3]) if args[2:3] == ["--repeats"] else 50
        return _json_mode(args[1], repeats)
    ok, why = phase_available()
    print(f"phase available: {ok} -- {why}")
    if not ok:
        return 1
    bad = unparsed_cards()
    print(f"cards phase leaves unparsed: {bad or 'none'}")
    print(f"{'N':>3}  {'block median ms':>16}  {'attack median ms':>17}  {'accepted':>8}  {'setup ms':>9}")
    for n in (5, 10, 20):
        board = bears_board(n)
        blk = block_details(board, repeats=50)
        if blk is None:
            print(f"{n:>3}  block: None ({last_reason()})")
            continue
        atk = attack_details(board, repeats=50)
        atk_s = f"{atk['median_ms']:.4f}" if atk else "None"
        print(f"{n:>3}  {blk['median_ms']:>16.4f}  {atk_s:>17}  {blk['accepted']!s:>8}  {blk['setup_ms']:>9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
