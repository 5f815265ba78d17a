"""Searching small positions for contradictions in the rules.

:func:`verify` makes positions from a card pool, every one up to a bound and random ones
beyond it, and checks properties the rules must have in every position, each a function of a
position that returns what is wrong (or nothing):

- ``characteristics``: the characteristics question has exactly one answer set, and in it
  every permanent has one name, one controller and at most one power, toughness and
  loyalty (a creature exactly one power and toughness) (CR 613); the answers are the same
  when the permanents are listed in another order (the facts come in another order, the
  timestamps kept) and when every object id is renamed and the timestamps shifted;
- ``sba``: state-based actions performed until none applies stop (CR 704.3), within the
  engine's bound of rounds, a loop being reported as the draw of 104.4b, and then none
  applies;
- ``requirements``: at the declarations of attackers and of blockers, a legal declaration
  exists (CR 508.1d, 509.1c: one obeying the most requirements is always possible), and the
  empty declaration is legal exactly when the most requirements a legal declaration obeys
  is none (the maximum the rules' search finds), whether asked by listing or by judging it;
- ``actions``: every action the judge (``push``) accepts among broad candidates is listed
  among the legal actions and every listed action is accepted
  (:mod:`bridge.play.brute`), in the main phase and at both declarations;
- ``citations``: every illegal verdict on a declaration of attackers or blockers (every
  assignment, up to :data:`CITATIONS_CAP` of them chosen with the seed) cites at least one
  rule and every legal one none, and each rule cited exists in the rules text;
- ``renaming``: the verdicts on declarations (up to :data:`RENAMING_CAP`, chosen with the
  seed) are the same, up to the renaming, when every object id is renamed and the
  timestamps shifted and spread (their order kept);
- ``conservation``: from the declaration of blockers, with a legal declaration and the game
  played on at random through combat damage: at each combat damage step the damage dealt
  from each source to each recipient is the damage assigned less the damage prevented
  (CR 510.2, 615), and life totals, damage and -1/-1 counters change as the damage's
  results say (118.3); after every action no card is lost, appears, or is in two zones
  (400.7);
- ``replay``: a game played at random from the position, a few legal actions deep, written
  as its log, replays to the same state.

A failing position is shrunk (permanents dropped, then counters, damage, attachments, being
tapped, attacking or blocking, and cards in hand, one at a time while the property still
fails) and kept as a :class:`Finding`, which :func:`finding_scenario` writes as a scenario
file.  The engine failing (an error that is not bad input) while a property is checked is a
finding of that property.

>>> report = verify(["Grizzly Bears", "Giant Spider"], max_permanents=1, properties=["characteristics"])
>>> report.checked["characteristics"], report.findings
(8, [])
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from bridge.engine.board import Board, Characteristics
from bridge.engine.combat import damage_results
from bridge.engine.game import Game
from bridge.engine.sba import perform_state_based_actions
from bridge.engine.verdict import Verdict
from bridge.model.actions import (
    Action,
    Advance,
    DeclareAttackers,
    DeclareBlockers,
    Pass,
    StateBasedActions,
)
from bridge.model.cards import CardPool
from bridge.model.errors import InputError, MtgaspError, one_line
from bridge.model.keys import position_key
from bridge.model.state import ZONES, GameState
from bridge.play.agents import RandomAgent, decisions, game_over
from bridge.play.brute import accepted_actions, declaration_candidates, listing_differences
from bridge.play.moves import logged
from bridge.play.positions import (
    ATTACK,
    BLOCK,
    MAIN,
    Position,
    can_be_tapped,
    exhaustive_positions,
    random_positions,
)
from bridge.play.sweep import Backend, sweep
from bridge.play.symbolic import Proof, prove_characteristics
from bridge.play.symbolic_combat import (
    DECLARATION_PROPERTIES,
    KINDS,
    Failure,
    Search,
    prove_declarations,
    uncited_rules,
)
from bridge.play.symbolic_sba import prove_sba

__all__ = [
    "DEFAULT_POOL",
    "PROPERTIES",
    "Finding",
    "Report",
    "can_be_tapped",
    "exhaustive_positions",
    "finding_scenario",
    "random_positions",
    "read_pool",
    "renamed",
    "shrink",
    "verify",
]

# A dozen creatures with combat keywords (flying, reach, first strike, deathtouch, trample,
# defender, haste, attacks each combat), a lord, an anthem, an Aura with a requirement, an
# Equipment, lands, and instants (these go to the active player's hand).
DEFAULT_POOL = (
    "Serra Angel",
    "Giant Spider",
    "Black Knight",
    "Typhoid Rats",
    "War Mammoth",
    "Wall of Wood",
    "Wall of Air",
    "Raging Goblin",
    "Goblin Chieftain",
    "Grizzly Bears",
    "Bloodrock Cyclops",
    "Llanowar Elves",
    "Glorious Anthem",
    "Lure",
    "Bonesplitter",
    "Forest",
    "Mountain",
    "Lightning Bolt",
    "Giant Growth",
)

CITATIONS_CAP = 24
RENAMING_CAP = 8


def blocking_state(game: Game, attackers: Iterable[str] | None, rng: random.Random | None = None) -> GameState | None:
    """From the declaration of attackers, the declaration of blockers after a legal
    declaration (the one with the most attackers among ``attackers``, or any of them when
    None), reached by playing on; None when no creature attacks (the step is skipped)."""
    wanted = None if attackers is None else set(attackers)
    legal = [a for a in game.legal_attacks if isinstance(a, DeclareAttackers) and a.attackers]
    if wanted is not None:
        legal = [a for a in legal if set(a.attackers) <= wanted] or legal
    if not legal:
        return None
    best = max(len(a.attackers) for a in legal)
    chosen = sorted((a for a in legal if len(a.attackers) == best), key=lambda a: sorted(a.attackers.items()))
    action = rng.choice(chosen) if rng is not None else chosen[0]
    game.push(action)
    game.push(Advance(step=BLOCK))
    state = game.state
    game.pop()
    game.pop()
    return state if state.step == BLOCK and any(p.attacking for p in state.permanents()) else None


# ---------------------------------------------------------------------- renaming
def renamed(state: GameState, shift: int = 1000, spread: int = 3) -> tuple[GameState, dict[str, str]] | None:
    """The same position with every object id renamed (in reverse order, so that sorted ids
    come in another order) and every timestamp t made ``spread * t + shift`` (their order
    kept); with the renaming.  None when an id is also a player's or a card's name (then a
    renaming by value can't tell them apart)."""
    ids = sorted(state.used_ids())
    names = {p.name for p in state.players} | {c.card for p in state.players for z in ZONES for c in getattr(p, z)}
    if set(ids) & names:
        return None
    mapping = {old: f"obj{len(ids) - i}" for i, old in enumerate(ids)}

    def walk(value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {mapping.get(k, k): walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str):
            return mapping.get(value, value)
        if key == "timestamp" and isinstance(value, int):
            return spread * value + shift
        return value

    data = walk(state.model_dump(mode="json", exclude_defaults=True))
    return GameState.model_validate(data), mapping


def reordered(state: GameState) -> GameState:
    """The same position with each player's battlefield listed in reverse order, every
    permanent's timestamp written out first (its default is its place in the listing)."""
    stamped = _with_timestamps(state)
    players = [p.model_copy(update={"battlefield": list(reversed(p.battlefield))}) for p in stamped.players]
    return stamped.model_copy(update={"players": players})


def _with_timestamps(state: GameState) -> GameState:
    """Every permanent with its timestamp written out (those without one get theirs from
    the engine's own reading of the position: the facts are the same)."""
    if all(p.timestamp is not None for p in state.permanents()):
        return state
    stamps = {perm.id: n for n, perm in enumerate(state.permanents(), start=1)}
    base = max((p.timestamp or 0 for p in state.permanents()), default=0)
    players = [
        p.model_copy(
            update={
                "battlefield": [
                    perm
                    if perm.timestamp is not None
                    else perm.model_copy(update={"timestamp": base + stamps[perm.id]})
                    for perm in p.battlefield
                ]
            }
        )
        for p in state.players
    ]
    return state.model_copy(update={"players": players})


# ---------------------------------------------------------------------- properties
@dataclass(frozen=True)
class Problem:
    """What is wrong in a position: a sentence, the rules involved, and the action that
    shows it (None when the position alone does)."""

    message: str
    rules: tuple[str, ...]
    action: Action | None = None


@dataclass(frozen=True)
class Check:
    """A property checked on one position (a state at the property's step)."""

    state: GameState
    pool: CardPool
    seed: int
    rules_text: frozenset[str]
    shared: dict[str, Board] = field(default_factory=dict, compare=False, repr=False)

    def board(self) -> Board:
        """The position's :class:`Board`, made once for all the properties checked at this
        step: the answers it keeps (the legal declarations, verdicts, characteristics) are
        grounded once and serve every property that asks them."""
        found = self.shared.get("board")
        if found is None:
            found = self.shared["board"] = Board(self.state, self.pool)
        return found


PropertyCheck = Callable[[Check], Problem | None]


def _characteristics_problem(board: Board) -> str | None:
    answers = board.characteristic_answers()
    if len(answers) != 1:
        return f"the characteristics question has {len(answers)} answer sets, not one"
    values = answers[0]
    for perm in board.state.permanents():
        v = values.get(perm.id or "", {})
        for name in ("has_name", "controller"):
            if len(v.get(name, [])) != 1:
                return f"{board.describe(perm.id or '')} has {len(v.get(name, []))} values of {name}: {v.get(name)}"
        for name in ("power", "toughness", "loyalty"):
            if len(v.get(name, [])) > 1:
                return f"{board.describe(perm.id or '')} has {len(v[name])} values of {name}: {v[name]}"
        if "creature" in v.get("has_type", []):
            for name in ("power", "toughness"):
                if len(v.get(name, [])) != 1:
                    return f"{board.describe(perm.id or '')} is a creature with {len(v.get(name, []))} values of {name}"
    return None


def _differences(
    before: dict[str, Characteristics], after: dict[str, Characteristics], mapping: dict[str, str]
) -> str | None:
    for oid, chars in sorted(before.items()):
        other = after.get(mapping.get(oid, oid))
        if other is None:
            return f"{oid} has no characteristics in the changed position"
        theirs = other.__dict__ | {"id": oid}
        for name, value in chars.__dict__.items():
            if theirs[name] != value:
                return f"{oid}'s {name} is {value!r}, but {theirs[name]!r} in the changed position"
    return None


def check_characteristics(check: Check) -> Problem | None:
    """CR 613: one answer for every object, whatever the order of the facts or the names."""
    rules = ("613.1", "613.6")
    board = check.board()
    problem = _characteristics_problem(board)
    if problem:
        return Problem(problem, rules)
    known = board.all_characteristics()
    problem = _differences(known, Board(reordered(check.state), check.pool).all_characteristics(), {})
    if problem:
        return Problem(f"listed in reverse order: {problem}", rules)
    changed = renamed(check.state)
    if changed is not None:
        problem = _differences(known, Board(changed[0], check.pool).all_characteristics(), changed[1])
        if problem:
            return Problem(f"with ids renamed and timestamps shifted: {problem}", rules)
    return None


def check_sba(check: Check) -> Problem | None:
    """CR 704.3: state-based actions performed until none applies stop; a loop is the draw of
    104.4b; then none applies."""
    rules = ("704.3", "104.4b")
    try:
        after = perform_state_based_actions(check.board())
    except MtgaspError as exc:
        if isinstance(exc, InputError):
            raise
        return Problem(f"state-based actions don't stop: {one_line(str(exc), 300)}", rules)
    if any(p.lost for p in after.players):
        return None  # the game is over (a loss, or a draw by 104.4b): nothing more to perform
    left = Board(after, check.pool).state_based_actions()
    if left:
        return Problem(f"state-based actions stopped while some still apply: {left}", rules)
    return None


def _empty(kind: str) -> DeclareAttackers | DeclareBlockers:
    return DeclareAttackers(attackers={}) if kind == "attack" else DeclareBlockers(blockers={})


def _kind(state: GameState) -> str:
    return "attack" if state.step == ATTACK else "block"


def check_requirements(check: Check) -> Problem | None:
    """CR 508.1d, 509.1c: a legal declaration exists, and the empty one is legal exactly when
    no legal declaration obeys a requirement."""
    kind = _kind(check.state)
    rules = ("508.1d",) if kind == "attack" else ("509.1c",)
    board = check.board()
    listed = list(board.legal_attacks if kind == "attack" else board.legal_blocks)
    if not listed:
        return Problem(f"no legal declaration of {kind}ers", rules)
    empty = _empty(kind)
    empty_listed = empty in listed
    most = board.checker(kind).requirement_max()
    if empty_listed != (most == 0):
        said = "is" if empty_listed else "is not"
        return Problem(
            f"the empty declaration {said} listed as legal, and the most requirements obeyed is {most}", rules
        )
    judged = board.check(empty).legal
    if judged != empty_listed:
        return Problem(
            f"the empty declaration is judged {'legal' if judged else 'illegal'} but listed otherwise", rules
        )
    return None


def check_actions(check: Check) -> Problem | None:
    """Every action the judge accepts is listed, and every listed action accepted."""
    game = Game(check.state, check.pool)
    listed = decisions(game).options
    while listed == (StateBasedActions(),):  # CR 704.3: performed before anyone acts
        game.push(listed[0])
        listed = decisions(game).options
    problems = listing_differences(game, listed, accepted_actions(game))
    if problems:
        return Problem(f"{len(problems)} difference(s): {'; '.join(problems[:3])}", ("116.3",))
    return None


def _sample(candidates: list[Action], cap: int, seed: int, state: GameState) -> list[Action]:
    if len(candidates) <= cap:
        return candidates
    rng = random.Random(f"{seed}:{state.model_dump_json()}")
    return rng.sample(candidates, cap)


def _declarations(check: Check, cap: int) -> list[Action]:
    kind = DeclareAttackers if check.state.step == ATTACK else DeclareBlockers
    game = Game(check.state, check.pool)
    return _sample([a for a in declaration_candidates(game) if isinstance(a, kind)], cap, check.seed, check.state)


def _citation_problem(verdict: Verdict, known: frozenset[str]) -> str | None:
    if verdict.legal and verdict.rules:
        return f"a legal verdict cites {sorted(verdict.rules)}"
    if not verdict.legal and not verdict.rules:
        return "an illegal verdict cites no rule"
    unknown = sorted(r for r in verdict.rules if known and r not in known)
    if unknown:
        return f"the verdict cites {unknown}, not in the rules text"
    return None


def check_citations(check: Check) -> Problem | None:
    """Every illegal verdict cites a rule of the rules text, every legal one none."""
    board = check.board()
    for action in _declarations(check, CITATIONS_CAP):
        verdict = board.check(action)
        problem = _citation_problem(verdict, check.rules_text)
        if problem:
            cited = tuple(sorted(r for r in verdict.rules if r in check.rules_text))
            step_rule = "508.1" if check.state.step == ATTACK else "509.1"
            return Problem(f"{problem}: {verdict}", cited or (step_rule,), action)
    return None


def _verdict_key(verdict: Verdict, mapping: dict[str, str]) -> set[tuple[object, ...]]:
    return {(v.rule, v.step_rule, v.reason, tuple(mapping.get(o, o) for o in v.objects)) for v in verdict.violations}


def check_renaming(check: Check) -> Problem | None:
    """A verdict is the same, up to the renaming, with object ids renamed and timestamps
    shifted."""
    changed = renamed(check.state)
    if changed is None:
        return None
    other = Board(changed[0], check.pool)
    for action in _declarations(check, RENAMING_CAP):
        problem = _renaming_problem(check.board(), other, changed[1], action)
        if problem is not None:
            return problem
    return None


def _renaming_problem(board: Board, other: Board, mapping: dict[str, str], action: Action) -> Problem | None:
    """The verdicts on a declaration and on its renamed twin, when they differ."""
    verdict = board.check(action)
    theirs = other.check(_rename_action(action, mapping))
    if verdict.legal != theirs.legal or _verdict_key(verdict, mapping) != _verdict_key(theirs, {}):
        rules = tuple(sorted(verdict.rules | theirs.rules)) or ("613.6",)
        return Problem(f"the verdict is '{verdict}' here but '{theirs}' renamed", rules, action)
    return None


def _rename_action(action: Action, mapping: dict[str, str]) -> Action:
    if isinstance(action, DeclareAttackers):
        return DeclareAttackers(attackers={mapping[c]: mapping.get(t, t) for c, t in action.attackers.items()})
    assert isinstance(action, DeclareBlockers)
    return DeclareBlockers(
        blockers={mapping[b]: [mapping[a] for a in attackers] for b, attackers in action.blockers.items()}
    )


# ---------------------------------------------------------------------- conservation
DAMAGE_STEPS = ("first_strike_damage", "combat_damage")
CONSERVATION_ACTIONS = 12  # actions played from the declaration of blockers, at most
REPLAY_ACTIONS = 12  # random legal actions played before the log is replayed


def cards_by_owner(state: GameState) -> Counter[tuple[str, str]]:
    """Every card of the game (tokens and copies, which may cease to exist, left out) by
    owner and name, in every zone and on the stack (a spell's owner is its controller: the
    pool has no card that casts another player's)."""
    out: Counter[tuple[str, str]] = Counter()
    for player in state.players:
        for zone in ("library", "hand", "graveyard", "exile"):
            out.update((player.name, c.card) for c in getattr(player, zone) if not c.token and not c.copy_of_card)
        out.update((player.name, perm.card) for perm in player.battlefield if not perm.token)
    out.update(
        (item.controller or state.active, item.card)
        for item in state.stack
        if item.card is not None and not item.copy_of_card
    )
    return out


def _card_problem(before: GameState, after: GameState) -> str | None:
    """CR 400.1, 400.7: every card stays in the game, in one zone (the states are not all
    validated on the way: an id in two zones is looked for here too)."""
    seen: set[str] = set()
    for player in after.players:
        for zone in ZONES:
            for obj in getattr(player, zone):
                if obj.id is not None and obj.id in seen:
                    return f"{obj.id} is in two zones"
                if obj.id is not None:
                    seen.add(obj.id)
    lost = cards_by_owner(before) - cards_by_owner(after)
    found = cards_by_owner(after) - cards_by_owner(before)
    if lost or found:
        return f"cards lost {sorted(lost.elements())}, cards that appeared {sorted(found.elements())}"
    return None


def _damage_problem(game: Game) -> str | None:
    """CR 510.2, 615: at a combat damage step, the damage dealt from each source to each
    recipient is the damage assigned less the damage prevented (an event a replacement effect
    redirects, doubles or turns into exiled cards left out: 614.1a, 614.9), every damage dealt
    was assigned, and the results are the damage dealt: damage marked and -1/-1 counters on
    creatures, life lost by players (118.3); after it is dealt (and state-based actions), life
    totals differ by the life lost and gained, and creatures still on the battlefield by the
    damage and counters they got."""
    verdict, results = damage_results(game)
    if not verdict.legal:
        return f"the default assignment of combat damage is judged illegal: {verdict}"
    assigned = {k: n for k, n in results["assigned"].items() if n > 0}
    dealt, prevented, altered = results["damage_event"], results["prevented_damage"], set(results["altered_damage"])
    for (source, recipient), n in sorted(assigned.items()):
        if (source, recipient) in altered:
            continue
        got, kept = dealt.get((source, recipient), 0), prevented.get((source, recipient), 0)
        if got + kept != n:
            return f"{source} assigned {n} damage to {recipient} but dealt {got} with {kept} prevented"
    for (source, recipient), n in sorted(dealt.items()):
        if (source, recipient) not in assigned and not any(s == source for s, _ in altered):
            return f"{source} dealt {n} damage to {recipient}, which it wasn't assigned"
    marked, wither = results["damage_marked"], results["wither_counters"]
    lost, gained = results["life_lost"], results["life_gained"]
    players = {p.name for p in game.state.players}
    to: Counter[str] = Counter()
    for (_, recipient), n in dealt.items():
        to[recipient] += n
    for recipient, n in sorted(to.items()):
        if recipient in players:
            result = lost.get((recipient,), 0)
        elif "creature" in game.characteristics(recipient).types:
            result = marked.get((recipient,), 0) + wither.get((recipient,), 0)
        else:
            continue  # a planeswalker: loyalty counters (not in the pool)
        if result != n:
            return f"{recipient} was dealt {n} damage, with {result} as its result"
    before = game.state
    game.push(_default_damage(game))
    after = game.state
    for player in before.players:
        change = next(p for p in after.players if p.name == player.name).life - player.life
        expected = gained.get((player.name,), 0) - lost.get((player.name,), 0)
        if change != expected:
            return f"{player.name}'s life changed by {change}, but the damage's results say {expected}"
    still = {p.id: p for p in after.permanents()}
    for perm in before.permanents():
        now = still.get(perm.id)
        if now is None or perm.id is None:
            continue
        if now.damage - perm.damage != marked.get((perm.id,), 0):
            return f"{perm.id} got {now.damage - perm.damage} damage, but {marked.get((perm.id,), 0)} was marked"
        net = now.counters.get("-1/-1", 0) - now.counters.get("+1/+1", 0)
        net -= perm.counters.get("-1/-1", 0) - perm.counters.get("+1/+1", 0)
        if net != wither.get((perm.id,), 0):
            return f"{perm.id} got {net} -1/-1 counters, but wither gave {wither.get((perm.id,), 0)}"
    game.pop()
    return None


def _default_damage(game: Game) -> Action:
    """The action that deals combat damage as the rules' default assigns it: the listed one."""
    options = decisions(game).options
    return next((a for a in options if isinstance(a, Pass)), options[0])


def check_conservation(check: Check) -> Problem | None:
    """From the declaration of blockers, a legal declaration (at random, with the seed, among
    those the decision samples) and the game played on at random until combat damage is
    dealt: at each combat damage step the damage dealt is the damage assigned less the
    damage prevented and the life totals and damage change as its results say; after every
    action no card is lost, appears or is in two zones."""
    game = Game(check.state, check.pool)
    agent = RandomAgent(zlib.crc32(f"{check.seed}:conservation:{check.state.model_dump_json()}".encode()), 0.7)
    # a block among the few the decision samples (none, each blocker alone, ...): listing
    # every legal one is exponential in the creatures
    action = agent.choose(game, decisions(game))
    for _ in range(CONSERVATION_ACTIONS):
        before = game.state
        if before.step in DAMAGE_STEPS and not before.combat_damage_dealt and not before.awaiting_targets:
            problem = _damage_problem(game)
            if problem is not None:
                return Problem(problem, ("510.2", "118.3", "615.1"), action if not game.log else None)
            action = _default_damage(game)
        game.push(action)
        problem = _card_problem(before, game.state)
        if problem is not None:
            return Problem(f"after {logged(action)}: {problem}", ("400.7",), action if len(game.log) == 1 else None)
        if game_over(game) or game.state.step not in (BLOCK, *DAMAGE_STEPS):
            return None
        action = agent.choose(game, decisions(game))
    return None


# ---------------------------------------------------------------------- replay
def check_replay(check: Check) -> Problem | None:
    """A game played at random from the position (a few legal actions) and written as its log
    (through JSON text, as a log file holds it) replays to the same state."""
    game = Game(check.state, check.pool)
    agent = RandomAgent(zlib.crc32(f"{check.seed}:replay:{check.state.model_dump_json()}".encode()))
    for _ in range(REPLAY_ACTIONS):
        if game_over(game):
            break
        game.push(agent.choose(game, decisions(game)))
    log = json.loads(json.dumps(game.game_log()))
    line = " ".join(logged(a) for a in game.log)
    try:
        replayed = Game.replay(log, check.pool)
    except InputError as exc:
        return Problem(f"the log doesn't replay: {one_line(str(exc), 300)}; the line: {line}", ("116.3",))
    if replayed.state != game.state:
        ours, theirs = game.state.model_dump(mode="json"), replayed.state.model_dump(mode="json")
        differ = sorted(k for k in ours if ours[k] != theirs.get(k))
        return Problem(f"the log replays to another state (it differs in {differ}); the line: {line}", ("116.3",))
    return None


@dataclass(frozen=True)
class Property:
    """A property: its check and the steps its positions are at."""

    name: str
    check: PropertyCheck
    steps: tuple[str, ...]
    about: str


PROPERTIES: dict[str, Property] = {
    p.name: p
    for p in (
        Property("characteristics", check_characteristics, (MAIN,), "one answer for every object (613)"),
        Property("sba", check_sba, (MAIN,), "state-based actions reach a fixpoint (704.3, 104.4b)"),
        Property("requirements", check_requirements, (ATTACK, BLOCK), "a legal declaration exists (508.1d, 509.1c)"),
        Property("actions", check_actions, (MAIN, ATTACK, BLOCK), "listed actions are the accepted ones"),
        Property("citations", check_citations, (ATTACK, BLOCK), "verdicts cite rules of the text"),
        Property("renaming", check_renaming, (ATTACK, BLOCK), "verdicts don't depend on names"),
        Property("conservation", check_conservation, (BLOCK,), "damage, life and cards are conserved"),
        Property("replay", check_replay, (MAIN,), "a game's log replays to the same state"),
    )
}


# ---------------------------------------------------------------------- shrinking
def _fails(prop: Property, check: Check) -> Problem | None:
    """The property's problem in the position (the engine failing is one)."""
    try:
        return prop.check(check)
    except InputError:
        raise
    except MtgaspError as exc:
        return Problem(f"the engine failed ({type(exc).__name__}): {one_line(str(exc), 300)}", prop_rules(prop))


def prop_rules(prop: Property) -> tuple[str, ...]:
    """The rules a property is about, for a finding's cite list."""
    return {
        "characteristics": ("613.1",),
        "sba": ("704.3",),
        "requirements": ("508.1d", "509.1c"),
        "actions": ("116.3",),
        "citations": ("508.1", "509.1"),
        "renaming": ("613.6",),
        "conservation": ("510.2", "400.7"),
        "replay": ("116.3",),
    }[prop.name]


def _smaller(state: GameState) -> Iterator[GameState]:
    """Positions with one thing less: a permanent (and what points at it), a card in hand,
    counters, damage, an attachment, being tapped, attacking or blocking; an effect."""
    data = state.model_dump(mode="json", exclude_defaults=True)

    def variant(change: Callable[[dict[str, Any]], bool]) -> GameState | None:
        copy = json.loads(json.dumps(data))
        if not change(copy):
            return None
        try:
            return GameState.model_validate(copy)
        except ValueError:
            return None

    def drop(player: int, zone: str, index: int) -> Callable[[dict[str, Any]], bool]:
        def change(d: dict[str, Any]) -> bool:
            gone = d["players"][player][zone].pop(index)
            oid = gone.get("id") if isinstance(gone, dict) else None
            for p in d["players"]:
                for perm in p.get("battlefield", []):
                    if perm.get("attached_to") == oid:
                        perm.pop("attached_to")
                    for key in ("blocking", "damage_order", "must_block"):
                        if oid in perm.get(key, []):
                            perm[key].remove(oid)
                            if not perm[key]:
                                perm.pop(key)
            return True

        return change

    def unset(player: int, index: int, key: str) -> Callable[[dict[str, Any]], bool]:
        def change(d: dict[str, Any]) -> bool:
            perm = d["players"][player]["battlefield"][index]
            if key not in perm:
                return False
            perm.pop(key)
            if key == "attacking":
                perm.pop("band", None)
                perm.pop("blocked", None)
            return True

        return change

    changes: list[Callable[[dict[str, Any]], bool]] = []
    for n, player in enumerate(data["players"]):
        changes += [drop(n, "battlefield", i) for i in range(len(player.get("battlefield", [])))]
    for n, player in enumerate(data["players"]):
        for zone in ("hand", "library", "graveyard", "exile"):
            changes += [drop(n, zone, i) for i in range(len(player.get(zone, [])))]
    for n, player in enumerate(data["players"]):
        for i in range(len(player.get("battlefield", []))):
            changes += [
                unset(n, i, key)
                for key in ("counters", "damage", "attached_to", "tapped", "attacking", "blocking", "sick")
            ]

    def drop_effect(index: int) -> Callable[[dict[str, Any]], bool]:
        def change(d: dict[str, Any]) -> bool:
            d["effects"].pop(index)
            return True

        return change

    changes += [drop_effect(i) for i in range(len(data.get("effects", [])))]
    for change in changes:
        smaller = variant(change)
        if smaller is not None and smaller != state:
            yield smaller


def shrink(
    prop: Property, check: Check, problem: Problem, deadline: float | None = None
) -> tuple[GameState, Problem, int]:
    """The smallest position (one thing less no longer fails) found by dropping one thing at a
    time while the property still fails, with its problem and the number of positions tried."""
    state, tried = check.state, 0
    progress = True
    while progress:
        progress = False
        for smaller in _smaller(state):
            if deadline is not None and time.monotonic() > deadline:
                return state, problem, tried
            tried += 1
            found = _fails(prop, Check(smaller, check.pool, check.seed, check.rules_text))
            if found is not None:
                state, problem, progress = smaller, found, True
                break
    return state, problem, tried


# ---------------------------------------------------------------------- the run
@dataclass
class Finding:
    """A property that fails in a (shrunk) position."""

    property: str
    message: str
    rules: tuple[str, ...]
    state: GameState
    action: Action | None = None
    original: GameState | None = None


@dataclass
class Report:
    """What was checked: positions by property, findings, the time; ``complete`` is False
    when the time limit stopped the run."""

    checked: dict[str, int] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    positions: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    cpu_by_property: dict[str, float] = field(default_factory=dict)
    complete: bool = False
    proof: Proof | None = None  # the characteristics proven over the exhaustive positions
    # the properties proven over the exhaustive positions by searches: sba, then each kind of declaration
    searches: list[Search] = field(default_factory=list)

    @property
    def positions_per_second(self) -> float:
        """Positions by wall-clock second."""
        return self.positions / self.seconds if self.seconds > 0 else 0.0

    @property
    def positions_per_cpu_second(self) -> float:
        """Positions by second of this process's CPU time (the measure on a shared machine)."""
        return self.positions / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    def groups(self) -> dict[tuple[str, str], int]:
        """Findings counted by property and kind (the message up to its first colon)."""
        out: dict[tuple[str, str], int] = {}
        for f in self.findings:
            key = (f.property, f.message.split(":")[0])
            out[key] = out.get(key, 0) + 1
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "complete": self.complete,
            "positions": self.positions,
            "checked": self.checked,
            "findings": [{"property": f.property, "message": f.message, "rules": list(f.rules)} for f in self.findings],
            "groups": [{"property": p, "kind": k, "count": n} for (p, k), n in sorted(self.groups().items())],
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "cpu_seconds_by_property": {k: round(v, 3) for k, v in self.cpu_by_property.items()},
            "positions_per_second": round(self.positions_per_second, 2),
            "positions_per_cpu_second": round(self.positions_per_cpu_second, 2),
            "proof": None if self.proof is None else self.proof.to_json(),
            "searches": [s.to_json() for s in self.searches],
        }


def read_pool(value: str, pool: CardPool) -> list[str]:
    """The cards of a ``--cards`` value: a comma list of names, a file of names (one a
    line, ``#`` comments), or the name of a pool of ``cards/pools`` (``verify``); each must
    be in the pool (:class:`InputError` names the first that
    isn't)."""
    from pathlib import Path

    from bridge.model.paths import cards_dir
    from bridge.model.reading import read_text

    path = Path(value)
    try:
        is_file = "," not in value and path.is_file()
    except (OSError, ValueError):
        is_file = False
    bundled = cards_dir() / "pools" / f"{value}.txt"
    if not is_file and value.isidentifier() and bundled.is_file():
        path, is_file = bundled, True
    if is_file:
        text = read_text(path, what="the card list")
        names = [line.split("#")[0].strip() for line in text.splitlines()]
    else:
        names = [n.strip() for n in value.split(",")]
    names = [n for n in names if n]
    if not names:
        raise InputError("no card names given", source=value if is_file else None)
    for name in names:
        pool.get(name)  # UnknownCardError (an InputError) for a name the pool doesn't have
    return list(dict.fromkeys(names))


def verify(
    cards: Sequence[str] = DEFAULT_POOL,
    *,
    max_permanents: int = 2,
    tapped: bool = True,
    properties: Sequence[str] | None = None,
    random_count: int = 0,
    random_sizes: tuple[int, int] | None = None,
    seed: int = 1,
    pool: CardPool | None = None,
    rules_text: frozenset[str] = frozenset(),
    deadline: float | None = None,
    on_progress: Callable[[Report], None] | None = None,
    report: Report | None = None,
    backend: Backend | None = None,
    prove: bool = False,
    renamed_copy: bool = False,
) -> Report:
    """Check the properties (by name; all by default) on every position of up to
    ``max_permanents`` permanents of the cards (tapped or not, ``tapped``), then on
    ``random_count`` random positions of ``random_sizes`` permanents (by default
    ``max_permanents + 1`` to ``max_permanents + 3``); each failing position is shrunk and
    kept as a finding.  ``deadline`` (a :func:`time.monotonic` value) stops the run
    (``complete`` False); ``rules_text`` holds the rule numbers cited rules must be among
    (empty: not checked).  ``backend`` spreads the positions over processes or a Ray cluster
    (:mod:`bridge.play.sweep`): the report is the same, findings in the same order.

    With ``prove``, the characteristics are not checked position by position on the
    exhaustive positions but proven over all of them by the solver's enumeration of one
    program (:mod:`bridge.play.symbolic`; with ``renamed_copy``, the same again with ids
    renamed and timestamps shifted, compared); sba over all of them by one search of the
    solver (:mod:`bridge.play.symbolic_sba`: every state-based action that applies takes
    something away); and requirements, citations and renaming over all of them and every
    declaration of attackers and of blockers by one search each
    (:mod:`bridge.play.symbolic_combat`); their chunks spread by ``backend`` too.  Each
    position they find failing is checked again here, shrunk and kept as a finding."""
    pool = pool or CardPool.default()
    chosen = [PROPERTIES[name] for name in (properties or list(PROPERTIES))]
    out = report if report is not None else Report()
    out.checked = {p.name: 0 for p in chosen}
    started, cpu = time.monotonic(), time.process_time()
    names = tuple(p.name for p in chosen)
    exhaustive_names = names
    seen_findings: set[tuple[str, str]] = set()
    proof_workers = 0.0  # the CPU seconds of the proof in other processes
    if prove and "characteristics" in names and max_permanents >= 1:
        exhaustive_names = tuple(n for n in names if n != "characteristics")
        out.proof, proof_workers = _prove(
            cards,
            max_permanents,
            tapped,
            pool,
            seed,
            rules_text,
            deadline,
            backend,
            renamed_copy,
            out,
            seen_findings,
            on_progress,
        )
        if not out.proof.complete:
            out.seconds, out.cpu_seconds = time.monotonic() - started, time.process_time() - cpu + proof_workers
            return out

    def search(prover: Callable[..., Search], **options: object) -> tuple[Search, float]:
        """A search over the exhaustive positions (``prover``, with ``options``), its failures
        confirmed; and its CPU seconds in other processes."""
        run = functools.partial(
            prover, cards, max_permanents=max_permanents, tapped=tapped, pool=pool, backend=backend, deadline=deadline
        )
        return _searched(
            functools.partial(run, **options), pool, seed, rules_text, deadline, out, seen_findings, on_progress
        )

    if prove and "sba" in names and max_permanents >= 1:
        exhaustive_names = tuple(n for n in exhaustive_names if n != "sba")
        sba_search, seconds = search(prove_sba)
        proof_workers += seconds
        if not sba_search.complete:
            out.seconds, out.cpu_seconds = time.monotonic() - started, time.process_time() - cpu + proof_workers
            return out
    searched = tuple(n for n in names if n in DECLARATION_PROPERTIES)
    if prove and searched and max_permanents >= 1:
        exhaustive_names = tuple(n for n in exhaustive_names if n not in searched)
        proof_workers += _prove_declarations(searched, search, rules_text, out, seen_findings)
        if not all(s.complete for s in out.searches):
            out.seconds, out.cpu_seconds = time.monotonic() - started, time.process_time() - cpu + proof_workers
            return out
    positions = itertools.chain(
        # none made when every property asked was proven (up to 4 permanents they are millions)
        (
            (exhaustive_names, p)
            for p in (exhaustive_positions(pool, cards, max_permanents, tapped) if exhaustive_names else ())
        ),
        (
            (names, p)
            for p in random_positions(
                pool, cards, *(random_sizes or (max_permanents + 1, max_permanents + 3)), random_count, seed
            )
        ),
    )
    # the deadline travels as a time of the wall clock: another process (or machine) has its own
    # monotonic clock
    wall_deadline = None if deadline is None else time.time() + (deadline - time.monotonic())
    work = functools.partial(_position_findings, pool, seed, rules_text, wall_deadline)
    # positions checked in other processes: their CPU seconds are added to this one's
    elsewhere = backend is not None and (backend.kind == "ray" or (backend.jobs or 1) > 1)
    workers_cpu = proof_workers

    def cpu_seconds() -> float:
        return time.process_time() - cpu + workers_cpu

    results = sweep(work, positions, backend)
    try:
        for checked in results:
            if checked is None or (deadline is not None and time.monotonic() > deadline):
                return out
            counts, findings, cpu_by_property, position_cpu = checked
            if elsewhere:
                workers_cpu += position_cpu
            for name, n in counts.items():
                out.checked[name] += n
            for name, seconds in cpu_by_property.items():
                out.cpu_by_property[name] = out.cpu_by_property.get(name, 0.0) + seconds
            for finding in findings:  # in the order of the positions: the same findings, whatever the backend
                _keep(out, seen_findings, finding)
            out.positions += 1
            out.seconds, out.cpu_seconds = time.monotonic() - started, cpu_seconds()
            if on_progress is not None:
                on_progress(out)
        out.complete = True
        return out
    finally:
        results.close()  # a sweep stopped early ends its processes
        out.seconds, out.cpu_seconds = time.monotonic() - started, cpu_seconds()


def _position_findings(
    pool: CardPool,
    seed: int,
    rules_text: frozenset[str],
    wall_deadline: float | None,
    item: tuple[tuple[str, ...], Position],
) -> tuple[dict[str, int], list[Finding], dict[str, float], float] | None:
    """The properties (by name) checked on one position: how many times each was checked, the
    findings (each once), the CPU seconds of each and of the whole check (in the process
    that checked them); None when the deadline (a time of the wall clock) has passed."""
    began = time.process_time()
    names, position = item
    deadline = None if wall_deadline is None else time.monotonic() + (wall_deadline - time.time())
    if deadline is not None and time.monotonic() > deadline:
        return None
    chosen = [PROPERTIES[name] for name in names]
    out = Report(checked=dict.fromkeys(names, 0))
    _check_position(position, chosen, pool, seed, rules_text, out, set(), deadline)
    return out.checked, out.findings, out.cpu_by_property, time.process_time() - began


def _check_position(
    position: Position,
    chosen: list[Property],
    pool: CardPool,
    seed: int,
    rules_text: frozenset[str],
    out: Report,
    seen: set[tuple[str, str]],
    deadline: float | None,
) -> None:
    states: dict[str, GameState | None] = {}
    checks: dict[str, Check] = {}  # one for each step, shared by the properties checked there

    def at(step: str) -> GameState | None:
        if step not in states:
            if step == BLOCK:
                attack = at(ATTACK)
                ids, rng = None, None
                if position.attackers is not None:
                    ids = [position.ids()[i] for i in sorted(position.attackers)]
                    rng = random.Random(f"{seed}:{position.pieces}")
                states[step] = None if attack is None else blocking_state(Game(attack, pool), ids, rng)
            else:
                states[step] = position.state(step)
        return states[step]

    for prop in chosen:
        for step in prop.steps:
            try:
                state = at(step)
            except MtgaspError as exc:
                if isinstance(exc, InputError):
                    raise
                states[step] = None
                _keep(
                    out,
                    seen,
                    Finding(
                        prop.name, f"reaching {step}: the engine failed: {exc}", ("508.1",), position.state(ATTACK)
                    ),
                )
                continue
            if state is None:
                continue
            check = checks.setdefault(step, Check(state, pool, seed, rules_text))
            began = time.process_time()
            problem = _fails(prop, check)
            out.cpu_by_property[prop.name] = out.cpu_by_property.get(prop.name, 0.0) + time.process_time() - began
            out.checked[prop.name] += 1
            if problem is None:
                continue
            small, small_problem, _ = shrink(prop, check, problem, deadline)
            _keep(
                out,
                seen,
                Finding(prop.name, small_problem.message, small_problem.rules, small, small_problem.action, state),
            )


def _prove(
    cards: Sequence[str],
    max_permanents: int,
    tapped: bool,
    pool: CardPool,
    seed: int,
    rules_text: frozenset[str],
    deadline: float | None,
    backend: Backend | None,
    renamed_copy: bool,
    out: Report,
    seen: set[tuple[str, str]],
    on_progress: Callable[[Report], None] | None,
) -> tuple[Proof, float]:
    """The characteristics proven over every exhaustive position; each position the proof
    finds failing is checked position by position, shrunk and kept as a finding (with what
    the proof says, when the check here doesn't fail: the proof's program holds every
    layer's rules and a renamed copy, which the check asks otherwise).  Also returned: the
    CPU seconds the proof took in other processes."""

    def progress(proof: Proof) -> None:
        out.proof = proof
        if on_progress is not None:
            on_progress(out)

    here = time.process_time()
    proof = prove_characteristics(
        cards,
        max_permanents=max_permanents,
        tapped=tapped,
        pool=pool,
        renamed=renamed_copy,
        backend=backend,
        deadline=deadline,
        on_progress=progress,
    )
    elsewhere = max(0.0, proof.cpu_seconds - (time.process_time() - here))
    prop = PROPERTIES["characteristics"]
    rules = ("613.1", "613.6")
    out.checked[prop.name] += proof.answered
    found = [(c.position, "; ".join(c.problems)) for c in proof.counterexamples]
    found += [(p, "the characteristics question has several answer sets") for p in proof.several]
    found += [(p, "the characteristics question has no answer set") for p in proof.unanswered]
    found += [(p, "the proof's program made a position the enumeration doesn't") for p in proof.foreign_examples]
    for position, message in found:
        confirmed = Report(checked={prop.name: 0})
        _check_position(position, [prop], pool, seed, rules_text, confirmed, set(), deadline)
        for finding in confirmed.findings:
            _keep(out, seen, finding)
        if not confirmed.findings:
            _keep(
                out, seen, Finding(prop.name, f"the proof over every position: {message}", rules, position.state(MAIN))
            )
    return proof, elsewhere


def _prove_declarations(
    names: tuple[str, ...],
    search: Callable[..., tuple[Search, float]],
    rules_text: frozenset[str],
    out: Report,
    seen: set[tuple[str, str]],
) -> float:
    """The properties of declarations (``names``) proven over every exhaustive position and
    every declaration of attackers, then of blockers (:mod:`bridge.play.symbolic_combat`, by
    ``search``); each failure the search finds is checked here, on its position (shrunk when it
    fails here too) or with its declaration, and kept as a finding; the rules the citations'
    table cites looked for in the rules text.  Returned: the CPU seconds the searches took in
    other processes."""
    elsewhere = 0.0
    if "citations" in names and (missing := uncited_rules(rules_text)):
        state = Position((), (), ()).state(ATTACK)
        message = f"combat/citations.lp cites rules the rules text doesn't have: {', '.join(missing)}"
        _keep(out, seen, Finding("citations", message, ("508.1", "509.1"), state))
    for kind in KINDS:
        found, seconds = search(prove_declarations, kind=kind, properties=names)
        elsewhere += seconds
        if not found.complete:
            break
    return elsewhere


def _searched(
    run: Callable[..., Search],
    pool: CardPool,
    seed: int,
    rules_text: frozenset[str],
    deadline: float | None,
    out: Report,
    seen: set[tuple[str, str]],
    on_progress: Callable[[Report], None] | None,
) -> tuple[Search, float]:
    """A search (``run``, given ``on_progress``) kept in the report as it goes, each failure
    it finds confirmed here (:func:`_confirm`); and the CPU seconds it took in other
    processes."""

    def progress(search: Search) -> None:
        if search not in out.searches:
            out.searches.append(search)
        if on_progress is not None:
            on_progress(out)

    here = time.process_time()
    search = run(on_progress=progress)
    elsewhere = max(0.0, search.cpu_seconds - (time.process_time() - here))
    if search not in out.searches:
        out.searches.append(search)
    for failure in search.failures:
        _confirm(failure, pool, seed, rules_text, deadline, out, seen)
    return search, elsewhere


def _confirm(
    failure: Failure,
    pool: CardPool,
    seed: int,
    rules_text: frozenset[str],
    deadline: float | None,
    out: Report,
    seen: set[tuple[str, str]],
) -> None:
    """A failure the search found, checked on its position: the property's check (shrunk when
    it fails), or the verdict on the declaration found; else kept as the search says."""
    prop = PROPERTIES[failure.property]
    state = failure.state()
    check = Check(state, pool, seed, rules_text)
    problem = _fails(prop, check)
    declared = failure.declaration
    if problem is None and declared is not None:
        if failure.property == "citations":
            verdict = check.board().check(declared)
            message = _citation_problem(verdict, rules_text)
            problem = None if message is None else Problem(f"{message}: {verdict}", prop_rules(prop), declared)
        elif failure.property == "renaming" and (changed := renamed(state)) is not None:
            problem = _renaming_problem(check.board(), Board(changed[0], pool), changed[1], declared)
    if problem is not None:
        small, small_problem, _ = shrink(prop, check, problem, deadline)
        finding = Finding(prop.name, small_problem.message, small_problem.rules, small, small_problem.action, state)
    else:
        message = f"the proof over every position: {failure.problem}"
        finding = Finding(prop.name, message, prop_rules(prop), state, failure.declaration)
    _keep(out, seen, finding)


def _keep(out: Report, seen: set[tuple[str, str]], finding: Finding) -> None:
    """Keep a finding unless the same property already failed in the same shrunk position (up
    to the names of its objects and the values of its timestamps)."""
    key = (finding.property, position_key(finding.state).hex())
    if key not in seen:
        seen.add(key)
        out.findings.append(finding)


# ---------------------------------------------------------------------- findings as files
def finding_scenario(finding: Finding) -> str:
    """A finding as a scenario file (YAML): the property in its title and a comment, the
    rules involved in ``cite``, the shrunk position, and the action that shows it."""
    state = finding.state.model_dump(mode="json", exclude_defaults=True)
    scenario: dict[str, Any] = {
        "title": one_line(f"verify {finding.property}: {finding.message}", 300),
        "cite": list(finding.rules),
        "state": state,
    }
    if finding.action is not None:
        dumped = finding.action.model_dump(mode="json", exclude_defaults=True)
        dumped.pop("kind", None)
        key = finding.action.kind
        scenario["do"] = [{key: dumped.get("attackers", dumped.get("blockers", dumped))}]
    prop = PROPERTIES[finding.property]
    header = (
        f"# A finding of `mtgasp verify`, property {finding.property}: {prop.about}.\n"
        f"# {one_line(finding.message, 1000)}\n"
        "# The position is shrunk: with any one thing less the property holds.  Judge it, then\n"
        "# add the expectation the rules give (or refine the property, with the reason).\n"
    )
    return header + yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True)
