"""``mtgasp diff --peer phase``: random boards put to mtgasp and to another engine, the answers
compared question by question.

A board is made from its seed alone (:func:`make_board`): permanents of the cards both
engines know, on either side, tapped or not, with counters, damage and Auras, a few lands
and cards in the active player's hand, and a declaration of attackers and one of blockers
to try.  Both engines are asked, each on its own:

- ``characteristics``: each creature's power, toughness and keywords after the layers;
- ``sba``: which permanents state-based actions take off the battlefield;
- then, on the board without damage and -1/-1 counters (so that nothing dies first):
  ``actions``, what the active player with priority in the precombat main phase may do
  (pass, play which land, cast which card, activate which permanent's non-mana ability);
- ``attack``: whether the declaration of attackers is legal;
- ``block``: when both accepted the attack, whether the declaration of blockers is legal;
- ``damage``: when both accepted the blocks, the combat played to its end with each
  attacker's damage assigned as mtgasp does by default: the life totals, the permanents
  that died and the damage marked on the others.

:func:`diff_boards` maps seeds to :class:`BoardResult` records (plain data, JSON-ready), one
board at a time and independent of the others, so that the seeds may be spread over
processes.  Each disagreement carries mtgasp's explanation (the rule numbers of its
verdict, a permanent's path through the layers, the state-based action's rule), the
peer's answer and a class; a class listed in the known edition differences
(``peers/edition_differences.yaml``: phase follows today's rules, mtgasp the October 2009
edition) is counted apart.  :func:`summarize` groups and counts them.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from bridge.engine.board import Board
from bridge.engine.explain import explain, format_explanation
from bridge.engine.game import Game
from bridge.model.actions import (
    Activate,
    Advance,
    AssignDamage,
    Cast,
    DeclareAttackers,
    DeclareBlockers,
    NextStep,
    OrderBlockers,
    Pass,
    PlayLand,
    StateBasedActions,
)
from bridge.model.cards import CardPool
from bridge.model.errors import InputError, MtgaspError, one_line
from bridge.model.state import GameState
from bridge.play.agents import decisions
from bridge.play.peers import phase as peer

PLAYERS = ("alice", "bob")  # alice is the active player, seat 0 for the peer
QUESTIONS = ("characteristics", "sba", "actions", "attack", "block", "assignment", "damage")
DIFFERENCES_FILE = Path(__file__).resolve().parent / "peers" / "edition_differences.yaml"
# the keywords both engines name; other abilities are not compared
KEYWORDS = frozenset(
    {
        "flying",
        "reach",
        "vigilance",
        "first strike",
        "double strike",
        "deathtouch",
        "lifelink",
        "trample",
        "haste",
        "defender",
        "fear",
        "plainswalk",
        "islandwalk",
        "swampwalk",
        "mountainwalk",
        "forestwalk",
    }
)
LANDS = ("Plains", "Island", "Swamp", "Mountain", "Forest")


# ---------------------------------------------------------------------- the card pool
@dataclass(frozen=True)
class CardKinds:
    """The cards both engines know, by the part they play on a board."""

    creatures: tuple[str, ...]
    auras: tuple[str, ...]
    enchantments: tuple[str, ...]
    spells: tuple[str, ...]
    lands: tuple[str, ...]


@cache
def card_kinds() -> CardKinds:
    """The peer's records that mtgasp's pool has as a complete card, sorted into kinds."""
    pool = CardPool.default()
    kinds: dict[str, list[str]] = {k: [] for k in ("creatures", "auras", "enchantments", "spells", "lands")}
    for name, record in sorted(peer.oracle_records().items()):
        if name not in pool or pool.get(name).missing:
            continue
        types = record["types"]
        if "Land" in types:
            kinds["lands"].append(name)
        elif "Creature" in types:
            kinds["creatures"].append(name)
        elif "Aura" in record["subtypes"]:
            kinds["auras"].append(name)
        elif "Enchantment" in types:
            kinds["enchantments"].append(name)
        else:
            kinds["spells"].append(name)
    return CardKinds(**{k: tuple(v) for k, v in kinds.items()})


# ---------------------------------------------------------------------- boards
def make_board(seed: int) -> dict[str, Any]:
    """The board of ``seed``: plain data, the same for the same seed.

    ``permanents``: id, card, side (0: alice, the active player; 1: bob), tapped, counters,
    damage, attached_to; ``hand``: alice's cards in hand; ``attack``: attacker -> "bob";
    ``block``: blocker -> [attackers]; ``order``: attacker -> its blockers in order."""
    rng = random.Random(seed)
    kinds = card_kinds()
    permanents: list[dict[str, Any]] = []

    def add(card: str, side: int, **status: Any) -> str:
        pid = f"p{len(permanents) + 1}"
        permanents.append({"id": pid, "card": card, "side": side, **{k: v for k, v in status.items() if v}})
        return pid

    creatures: list[list[str]] = [[], []]
    for side, (low, high) in enumerate(((1, 4), (0, 4))):
        for _ in range(rng.randint(low, high)):
            card = rng.choice(kinds.creatures)
            counters: dict[str, int] = {}
            if rng.random() < 0.12:
                counters["+1/+1"] = rng.randint(1, 2)
            if rng.random() < 0.12:
                counters["-1/-1"] = rng.randint(1, 2)
            toughness = int(peer.oracle_records()[card].get("toughness", "1"))
            damage = rng.randint(1, max(1, toughness)) if rng.random() < 0.15 else 0
            creatures[side].append(add(card, side, tapped=rng.random() < 0.15, counters=counters, damage=damage))
    every = creatures[0] + creatures[1]
    for side in (0, 1):
        if rng.random() < 0.3:
            add(rng.choice(kinds.enchantments), side)
        if every and rng.random() < 0.35:
            add(rng.choice(kinds.auras), side, attached_to=rng.choice(every))
    for side, most in ((0, 4), (1, 2)):
        for _ in range(rng.randint(0, most)):
            add(rng.choice(kinds.lands), side, tapped=side == 0 and rng.random() < 0.2)
    hand = [rng.choice(kinds.spells + kinds.creatures + kinds.lands) for _ in range(rng.randint(0, 3))]
    attack = {c: PLAYERS[1] for c in creatures[0] if rng.random() < 0.6}
    block: dict[str, list[str]] = {}
    if attack:
        for c in creatures[1]:
            if rng.random() < 0.6:
                block[c] = [rng.choice(sorted(attack))]
                if rng.random() < 0.1 and len(attack) > 1:
                    other = rng.choice(sorted(set(attack) - set(block[c])))
                    block[c].append(other)
    order: dict[str, list[str]] = {}
    for b, attackers in block.items():
        for a in attackers:
            order.setdefault(a, []).append(b)
    order = {a: bs for a, bs in order.items() if len(bs) > 1}
    return {
        "seed": seed,
        "permanents": permanents,
        "hand": hand,
        "attack": attack,
        "block": block,
        "order": order,
    }


def board_state(board: Mapping[str, Any], step: str = "main1", clean: bool = False) -> GameState:
    """The board as mtgasp's position at ``step`` of turn 3 (``clean``: without damage and
    -1/-1 counters)."""
    sides: list[list[dict[str, Any]]] = [[], []]
    for i, p in enumerate(board["permanents"]):
        perm: dict[str, Any] = {"id": p["id"], "card": p["card"], "timestamp": i + 1}
        if p.get("tapped"):
            perm["tapped"] = True
        counters = {k: n for k, n in (p.get("counters") or {}).items() if not (clean and k == "-1/-1")}
        if counters:
            perm["counters"] = counters
        if p.get("damage") and not clean:
            perm["damage"] = p["damage"]
        if p.get("attached_to"):
            perm["attached_to"] = p["attached_to"]
        sides[p["side"]].append(perm)
    players: list[dict[str, Any]] = [{"name": name, "battlefield": sides[n]} for n, name in enumerate(PLAYERS)]
    players[0]["hand"] = [{"id": f"h{i + 1}", "card": card} for i, card in enumerate(board.get("hand", []))]
    return GameState.model_validate({"turn": 3, "active": PLAYERS[0], "step": step, "players": players})


# ---------------------------------------------------------------------- results
@dataclass(frozen=True)
class Disagreement:
    """One answer on which the engines differ: the question, its subject (a permanent's id,
    an action, a declaration), each engine's answer, mtgasp's explanation with the rule
    numbers it cites, the class it is counted in, and the known edition difference it is
    (None: it is not one)."""

    seed: int
    question: str
    subject: str
    mtgasp: Any
    peer: Any
    rules: tuple[str, ...]
    explanation: str
    kind: str
    edition: str | None = None


@dataclass
class BoardResult:
    """What one board gave: the items compared and agreed on by question, the
    disagreements, and the error that stopped it (the peer or mtgasp failing), if any."""

    seed: int
    compared: dict[str, int] = field(default_factory=dict)
    agreed: dict[str, int] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0

    def count(self, question: str, same: bool) -> None:
        self.compared[question] = self.compared.get(question, 0) + 1
        if same:
            self.agreed[question] = self.agreed.get(question, 0) + 1

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------- known edition differences
@dataclass(frozen=True)
class EditionDifference:
    """A way the peer's rules (today's) differ from this edition's: the classes of
    disagreement it explains (regular expressions over the class), and this edition's rule."""

    id: str
    rule: str
    classes: tuple[str, ...]
    summary: str

    def matches(self, kind: str) -> bool:
        return any(re.fullmatch(pattern, kind) for pattern in self.classes)


def load_differences(path: Path = DIFFERENCES_FILE) -> list[EditionDifference]:
    """The known edition differences of ``path``."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        return [
            EditionDifference(
                id=str(d["id"]), rule=str(d["rule"]), classes=tuple(d["classes"]), summary=str(d["summary"]).strip()
            )
            for d in raw
        ]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as exc:
        raise InputError(f"can't read the known edition differences: {exc}", source=str(path)) from None


def _known(kind: str, differences: Sequence[EditionDifference]) -> str | None:
    return next((d.id for d in differences if d.matches(kind)), None)


# ---------------------------------------------------------------------- one board
def _keywords(abilities: Iterable[str]) -> list[str]:
    out = set()
    for ability in abilities:
        m = re.fullmatch(r"landwalk\(subtype\((\w+)\)\)", ability)
        word = f"{m.group(1)}walk" if m else ability.replace("_", " ")
        if word in KEYWORDS:
            out.add(word)
    return sorted(out)


def _names(board: Mapping[str, Any]) -> dict[str, str]:
    return {p["id"]: p["card"] for p in board["permanents"]}


def _compare_characteristics(
    board: Mapping[str, Any], game: Board, theirs: Mapping[str, Any], out: BoardResult
) -> None:
    names = _names(board)
    every = game.all_characteristics()
    for pid in sorted(theirs, key=lambda i: int(i[1:])):
        c = every[pid]
        ours: dict[str, Any] = {"power": c.power, "toughness": c.toughness, "keywords": _keywords(c.abilities)}
        other: dict[str, Any] = dict(theirs[pid])
        other["keywords"] = [k for k in other["keywords"] if k in KEYWORDS]
        same = ours == other
        out.count("characteristics", same)
        if same:
            continue
        parts = [k for k in ("power", "toughness") if ours[k] != other[k]]
        extra = sorted(set(ours["keywords"]) ^ set(other["keywords"]))
        kind = f"characteristics: {'/'.join(parts + extra)} of {names[pid]}"
        text = format_explanation(game, explain(game, pid))
        rules = tuple(sorted(set(re.findall(r"\b6\d\d\.\d+[a-z]?\b", text)))) or ("613",)
        out.disagreements.append(Disagreement(out.seed, "characteristics", pid, ours, other, rules, text, kind))


def _compare_sba(board: Mapping[str, Any], game: Game, theirs: list[str], out: BoardResult) -> None:
    names = _names(board)
    actions = game.state_based_actions()
    game.push(StateBasedActions())
    left = {p.id for p in game.state.permanents()}
    game.pop()
    ours = sorted((pid for pid in names if pid not in left), key=lambda i: int(i[1:]))
    for pid in sorted(names, key=lambda i: int(i[1:])):
        same = (pid in ours) == (pid in theirs)
        out.count("sba", same)
        if same:
            continue
        why = [(a, r) for a, r in actions if f'"{pid}"' in a]
        rules = tuple(sorted({r for _, r in why})) or ("704.3",)
        gone = "mtgasp removes it" if pid in ours else "phase removes it"
        kind = f"sba: {gone} ({names[pid]})"
        text = "; ".join(f"{a} ({r})" for a, r in why) or "no state-based action applies to it"
        out.disagreements.append(Disagreement(out.seed, "sba", pid, pid in ours, pid in theirs, rules, text, kind))


def _our_actions(game: Game) -> dict[tuple[str, str], Any]:
    names = {p.id: p.card for p in game.state.permanents()}
    hand = {c.id: c.card for c in game.state.player(PLAYERS[0]).hand}
    out: dict[tuple[str, str], Any] = {}
    for action in decisions(game).options:
        if isinstance(action, Pass):
            out[("pass", "")] = action
        elif isinstance(action, PlayLand):
            out[("play_land", hand.get(action.card, action.card))] = action
        elif isinstance(action, Cast):
            out[("cast", hand.get(action.card, action.card))] = action
        elif isinstance(action, Activate) and not action.mana:
            out[("activate", names.get(action.source, action.source))] = action
    return out


def _why_not(game: Game, kind: str, name: str) -> tuple[tuple[str, ...], str]:
    """mtgasp's verdict on trying an action it doesn't list (the first copy, no targets)."""
    state = game.state
    try:
        if kind in ("cast", "play_land"):
            card = next(c.id for c in state.player(PLAYERS[0]).hand if c.card == name)
            action: Cast | PlayLand = Cast(card=card, by=PLAYERS[0]) if kind == "cast" else PlayLand(card=card)
            verdict = game.check(action)
        else:
            source = next(p.id for p in state.permanents() if p.card == name)
            verdict = game.check(Activate(source=source or "", ability=1, by=PLAYERS[0]))
    except (MtgaspError, StopIteration) as exc:
        return (), f"not asked: {one_line(str(exc), 200)}"
    rules = tuple(sorted({r for v in verdict.violations for r in v.rules}))
    text = "; ".join(f"{', '.join(v.rules)}: {v.message}" for v in verdict.violations) or "legal when tried"
    return rules, text


def _compare_actions(game: Game, theirs: list[list[str]], out: BoardResult) -> None:
    ours = _our_actions(game)
    other = {(k, n) for k, n in theirs}
    for key in sorted(set(ours) | other):
        same = (key in ours) == (key in other)
        out.count("actions", same)
        if same:
            continue
        kind, name = key
        subject = f"{kind} {name}".strip()
        if key in ours:
            rules: tuple[str, ...] = ("117.1",)
            text = f"listed: {ours[key]!r}"
            cls = f"actions: only mtgasp lists {kind} {name}"
        else:
            rules, text = _why_not(game, kind, name)
            cls = f"actions: only phase lists {kind} {name}"
        out.disagreements.append(
            Disagreement(out.seed, "actions", subject, key in ours, key in other, rules, text, cls)
        )


def _declaration_disagreement(
    out: BoardResult, question: str, subject: str, legal: bool, message: str | None, rules: tuple[str, ...], text: str
) -> None:
    peer_legal = message is None
    same = legal == peer_legal
    out.count(question, same)
    if not same:
        verdict = "legal" if legal else f"illegal ({', '.join(rules)})"
        kind = f"{question}: mtgasp {verdict}, phase {'legal' if peer_legal else 'illegal'}"
        answer = "accepted" if peer_legal else message
        out.disagreements.append(Disagreement(out.seed, question, subject, legal, answer, rules, text, kind))


def _describe(mapping: Mapping[str, Any], names: Mapping[str, str]) -> str:
    def named(i: str) -> str:
        return f"{names.get(i, i)} ({i})"

    return ", ".join(
        f"{named(k)} -> {', '.join(named(x) for x in ([v] if isinstance(v, str) else v))}" for k, v in mapping.items()
    )


def _damage_outcome(game: Game, board: Mapping[str, Any]) -> dict[str, Any]:
    state = game.state
    on_field = {p.id: p for p in state.permanents()}
    names = _names(board)
    dead = sorted(pid for pid in names if pid not in on_field and _in_graveyard(state, pid))
    damage = {pid: on_field[pid].damage for pid in names if pid in on_field and on_field[pid].damage}
    return {"life": [state.player(n).life for n in PLAYERS], "dead": dead, "damage": damage}


def _in_graveyard(state: GameState, pid: str) -> bool:
    return any(c.id == pid for n in PLAYERS for c in state.player(n).graveyard)


def diff_board(seed: int, differences: Sequence[EditionDifference] = ()) -> BoardResult:
    """Make the board of ``seed``, ask both engines and compare their answers."""
    started = time.perf_counter()
    out = BoardResult(seed)
    board = make_board(seed)
    try:
        _diff(board, out)
    except (peer.PeerError, MtgaspError, ValueError, KeyError) as exc:
        out.error = f"{type(exc).__name__}: {one_line(str(exc), 300)}"
    out.disagreements = [
        Disagreement(**{**asdict(d), "edition": _known(d.kind, differences)}) for d in out.disagreements
    ]
    out.seconds = time.perf_counter() - started
    return out


def _diff(board: Mapping[str, Any], out: BoardResult) -> None:
    names = _names(board)
    # the board as it is: characteristics, then state-based actions
    full, clean = peer.phase_boards(board)
    game = Game(board_state(board))
    _compare_characteristics(board, game, full.characteristics(), out)
    _compare_sba(board, game, full.state_based_actions(), out)
    # the board without damage nor -1/-1 counters: actions, then combat
    game = Game(board_state(board, clean=True))
    _compare_actions(game, clean.priority_actions(), out)
    attack = dict(board["attack"])
    game = Game(board_state(board, "declare_attackers", clean=True))
    action = DeclareAttackers(attackers=attack)
    verdict = game.check(action)
    rules = tuple(sorted(set(verdict.rules)))
    text = "; ".join(f"{', '.join(v.rules)}: {v.message}" for v in verdict.violations)
    refused = clean.declare_attackers(attack)
    _declaration_disagreement(out, "attack", _describe(attack, names), verdict.legal, refused, rules, text)
    if not (verdict.legal and refused is None and attack):
        return
    game.push(action)
    game.push(Advance(step="declare_blockers"))
    block = {b: list(a) for b, a in board["block"].items()}
    blocking = DeclareBlockers(blockers={b: a[0] if len(a) == 1 else a for b, a in block.items()})
    verdict = game.check(blocking)
    rules = tuple(sorted(set(verdict.rules)))
    text = "; ".join(f"{', '.join(v.rules)}: {v.message}" for v in verdict.violations)
    refused = clean.declare_blockers(block)
    _declaration_disagreement(
        out, "block", _describe(block, names) or "no blockers", verdict.legal, refused, rules, text
    )
    if not (verdict.legal and refused is None):
        return
    game.push(blocking)
    order = {a: bs for a, bs in board["order"].items()}
    if order:
        game.push(OrderBlockers(orders=order))
    _compare_assignment(board, game, clean, order, out)
    game.push(Advance(step="end_of_combat"))
    ours = _damage_outcome(game, board)
    theirs = clean.combat_damage(order)
    same = ours == theirs
    out.count("damage", same)
    if not same:
        parts = [k for k in ("life", "dead", "damage") if ours[k] != theirs[k]]
        kind = f"damage: {'/'.join(parts)} differ"
        if any(len(attackers) > 1 for attackers in block.values()):
            # CR 509.3, 510.1d: how a creature blocking several attackers divides its damage is
            # the defending player's choice; phase asks for none and makes it itself
            kind += " (a creature blocks several attackers)"
        text = f"blocks: {_describe(block, names) or 'none'}; order: {order}"
        subject = _describe(attack, names)
        out.disagreements.append(
            Disagreement(out.seed, "damage", subject, ours, theirs, ("510.1", "510.2"), text, kind)
        )


def _compare_assignment(
    board: Mapping[str, Any], game: Game, theirs: peer.PhaseBoard, order: Mapping[str, list[str]], out: BoardResult
) -> None:
    """A random division of one multiply blocked attacker's combat damage among its blockers
    (when no creature in the combat has first or double strike and it has no trample):
    legal or not in each engine."""
    fighting = set(board["attack"]) | set(board["block"])
    strikers = [
        i for i in fighting if {"first strike", "double strike"} & set(_keywords(game.characteristics(i).abilities))
    ]
    candidates = [a for a in sorted(order) if "trample" not in _keywords(game.characteristics(a).abilities)]
    if strikers or not candidates:
        return
    rng = random.Random(board["seed"])
    attacker = rng.choice(candidates)
    power = game.characteristics(attacker).power or 0
    if power <= 0:
        return
    split: dict[str, int] = {}
    left = power
    for blocker in order[attacker][:-1]:
        split[blocker] = rng.randint(0, left)
        left -= split[blocker]
    split[order[attacker][-1]] = left
    game.push(NextStep())
    verdict = game.check(AssignDamage(assignments={attacker: split}))
    game.pop()
    rules = tuple(sorted(set(verdict.rules)))
    text = "; ".join(f"{', '.join(v.rules)}: {v.message}" for v in verdict.violations)
    names = _names(board)
    subject = f"{names[attacker]} ({attacker}) assigns " + ", ".join(
        f"{n} to {names[b]} ({b})" for b, n in split.items()
    )
    refused = theirs.try_assignment(attacker, split)
    _declaration_disagreement(out, "assignment", subject, verdict.legal, refused, rules, text)


def diff_boards(seeds: Iterable[int], differences: Sequence[EditionDifference] = ()) -> list[BoardResult]:
    """The results of the boards of ``seeds``, one board after another (pure: each result
    depends on its seed alone, so the seeds may be split among processes)."""
    return [diff_board(seed, differences) for seed in seeds]


# ---------------------------------------------------------------------- summary
@dataclass
class Summary:
    """The results of a run, grouped: items compared and agreed on by question, the
    disagreement classes with their counts, the known edition differences apart, errors."""

    boards: int
    compared: dict[str, int]
    agreed: dict[str, int]
    classes: dict[str, int]
    known: dict[str, int]
    errors: dict[str, int]
    seconds: float

    @property
    def agreement(self) -> float:
        """Agreed answers over answers compared, the known edition differences left out."""
        total = sum(self.compared.values()) - sum(self.known.values())
        return 1.0 if total <= 0 else sum(self.agreed.values()) / total

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "agreement": self.agreement}


def summarize(results: Sequence[BoardResult], seconds: float = 0.0) -> Summary:
    """Count the results: by question, by disagreement class, by known edition difference."""
    compared: Counter[str] = Counter()
    agreed: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    known: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for r in results:
        compared.update(r.compared)
        agreed.update(r.agreed)
        for d in r.disagreements:
            if d.edition is None:
                classes[d.kind] += 1
            else:
                known[d.edition] += 1
        if r.error is not None:
            errors[r.error.split(":", 1)[0]] += 1
    return Summary(
        boards=len(results),
        compared={q: compared[q] for q in QUESTIONS if q in compared},
        agreed={q: agreed[q] for q in QUESTIONS if q in compared},
        classes=dict(classes.most_common()),
        known=dict(known.most_common()),
        errors=dict(errors.most_common()),
        seconds=seconds,
    )


def format_summary(summary: Summary, results: Sequence[BoardResult], listed: int = 50) -> str:
    """The summary as text: the agreement, the questions, the classes, then the
    disagreements (the first ``listed``)."""
    lines = [
        f"{summary.boards} boards in {summary.seconds:.1f} s; agreement {100 * summary.agreement:.2f}% "
        f"({sum(summary.agreed.values())} of {sum(summary.compared.values()) - sum(summary.known.values())} answers; "
        f"{sum(summary.known.values())} known edition differences apart)"
    ]
    for q, n in summary.compared.items():
        lines.append(f"  {q:16} {summary.agreed.get(q, 0):6} of {n:6} agree")
    if summary.classes:
        lines.append("disagreement classes:")
        lines += [f"  {n:6}  {kind}" for kind, n in summary.classes.items()]
    if summary.known:
        lines.append("known edition differences (not counted):")
        lines += [f"  {n:6}  {kind}" for kind, n in summary.known.items()]
    if summary.errors:
        lines.append("boards stopped by an error:")
        lines += [f"  {n:6}  {kind}" for kind, n in summary.errors.items()]
        first = next(r for r in results if r.error)
        lines.append(f"  first: seed {first.seed}: {first.error}")
    shown = [d for r in results for d in r.disagreements if d.edition is None][:listed]
    if shown:
        lines.append("disagreements:")
    for d in shown:
        lines.append(f"  seed {d.seed} {d.question} {d.subject}: mtgasp {d.mtgasp!r} [{', '.join(d.rules)}]")
        lines.append(f"      phase {d.peer!r}")
        lines.append(f"      why: {one_line(d.explanation, 400)}")
    return "\n".join(lines)
