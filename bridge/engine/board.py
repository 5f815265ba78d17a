"""A position and the questions the rules answer about it.

A :class:`Board` holds a frozen :class:`~bridge.model.state.GameState` and its facts; it asks
the rule modules what each permanent is (613), whether a declaration of attackers or
blockers, a damage assignment order or an assignment of combat damage is legal and which
rules it breaks (508.1, 509.1-509.3, 510.1), the legal declarations (lazy views that count
and list them), the state-based actions that apply (704.5) and what the turn does next, who
has priority (115).  The sets of rule modules each question loads are named here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Literal, Self, overload

import clingo

from bridge.engine.facts import Position, asp_string, position_facts, priority_facts
from bridge.engine.solver import KEEP, Session, about, answer, atoms, kept, lines_without, make_room
from bridge.engine.verdict import Verdict, ViolationReader
from bridge.model.actions import (
    Action,
    Activate,
    Advance,
    AnswerOffer,
    AssignDamage,
    Cast,
    ChooseOrder,
    ChooseTargets,
    Concede,
    DeclareAttackers,
    DeclareBlockers,
    NextStep,
    OrderAttackers,
    OrderBlockers,
    OrderTriggers,
    Pass,
    PlayLand,
    RemoveFromCombat,
    StateBasedActions,
    TurnFaceUp,
)
from bridge.model.cards import CardPool
from bridge.model.errors import InputError, RuleModuleError
from bridge.model.scenario import Scenario, load_scenario
from bridge.model.state import STEPS as ALL_STEPS
from bridge.model.state import GameState

CHARACTERISTICS = ("inputs", "characteristics/effects", "characteristics/final")
LAYERS = ("characteristics/layers", "characteristics/dependency", "characteristics/locking", "characteristics/text")
PT = ("characteristics/pt",)
ATTACK = ("combat/common", "combat/attack", "combat/declared", "combat/attack_search")
BLOCK = ("combat/common", "combat/block", "combat/declared", "combat/block_search")
ORDER = ("combat/common", "combat/order")
TRIGGER_ORDER = ("inputs", "stack/trigger_order")
DAMAGE = ("combat/common", "combat/damage_assignment")
DEALING = ("combat/damage_dealing",)
CHOICES = ("replacement", "characteristics/players", "stack/objects", "stack/choices")
# a value the rules write as a constant (a color, a creature or basic land type)
_WORD = re.compile(r"[a-z][a-z0-9_]*")


def _word(value: str) -> str:
    """A value the rules write as a constant, or else as a string."""
    return value if _WORD.fullmatch(value) else asp_string(value)


DEALING_PARTS = (("dealing_combat_damage", ()),)  # the events are the combat damage assigned
TURN = ("combat/common", "characteristics/players", "turn/control", "turn/steps")


# the state-based actions (regeneration replacing destruction) and the delayed triggered
# abilities whose moment a step is: asked in the turn's session with the steps
SBA = ("sba", "regeneration", "stack/delayed")


# CR 506.1: the steps of the combat phase
COMBAT_STEPS = ALL_STEPS[ALL_STEPS.index("beginning_of_combat") : ALL_STEPS.index("end_of_combat") + 1]


DECLARED = clingo.Function("declared")
SEARCH = clingo.Function("search")
PRIORITY = ("inputs", "turn/priority", "turn/passing")


@functools.cache
def citations() -> dict[str, tuple[str, str]]:
    """reason -> (specific rule, step rule), from ``combat/citations.lp``."""
    model = Session(("combat/citations",), "").solve().model
    return {s.arguments[0].name: (s.arguments[1].string, s.arguments[2].string) for s in atoms(model, "cites", 3)}


@dataclass(frozen=True)
class Characteristics:
    """An object's characteristics as the rules compute them (CR 109.3)."""

    id: str
    name: str
    types: tuple[str, ...]
    subtypes: tuple[str, ...]
    supertypes: tuple[str, ...]
    colors: tuple[str, ...]
    abilities: tuple[str, ...]
    power: int | None
    toughness: int | None
    loyalty: int | None
    controller: str
    text_card: str | None = None  # the card whose text it has (CR 706.2: a copy's is what it copies)


@dataclass(frozen=True)
class PlayerCharacteristics:
    """What effects make of a player: abilities (CR 613.9) and maximum hand size (402.2)."""

    name: str
    abilities: tuple[str, ...]
    max_hand_size: int | str


def _number(shown: list[int | str] | None) -> int | None:
    """The number a characteristic shows (power, toughness, loyalty), None when none."""
    value = shown[0] if shown else None
    return value if isinstance(value, int) else None


# The facts of the positions seen last (states are immutable: the same object has the same
# facts), so that the games made on one state share them.
_POSITIONS: dict[int, tuple[GameState, CardPool, Position]] = kept({})


# The state-based actions question answered last, by position (priority and passes aside:
# they change nothing it asks about), with the card pool it was asked with (an entry counts
# only for that very pool: another pool's cards may differ).
_SBA_ANSWERS: dict[tuple[str, frozenset[str]], tuple[CardPool, frozenset[clingo.Symbol]]] = kept({})


# The groundings of positions with the step left open, by position without its step (and pool).
_TURN_SESSIONS: dict[str, tuple[CardPool, Session]] = kept({})

# The turn questions' facts of the positions seen last, and the facts left out of them (the
# step, what is tapped, the sizes of the hands below _HANDS, whether a creature attacked this
# combat and whether combat damage was dealt are open; who has priority and who passed are not
# read).
_TURN_FACTS: dict[int, tuple[Position, str]] = kept({})
_TURN_OPEN = frozenset(
    {"step", "tapped", "priority", "passed", "hand_size", "attacked_this_combat", "combat_damage_dealt"}
)
_HANDS = 9  # hand sizes 0 to 8 are open; a larger one stays a fact

_KnownSteps = tuple[GameState, frozenset[clingo.Symbol]]


def _position(state: GameState, pool: CardPool) -> Position:
    known = _POSITIONS.get(id(state))
    if known is not None and known[0] is state and known[1] is pool:
        return known[2]
    position = position_facts(state, pool)
    make_room(_POSITIONS, KEEP.positions)
    _POSITIONS[id(state)] = (state, pool, position)
    return position


def partial_cards(state: GameState, pool: CardPool) -> dict[str, str]:
    """The cards of a position (in any zone, on the stack, behind its effects) whose files
    leave part of their printed text out, by name, with what they leave out (``missing``):
    that part does nothing in a game."""
    names = {
        c.card
        for p in state.players
        for zone in ("library", "hand", "graveyard", "exile", "battlefield")
        for c in getattr(p, zone)
    }
    names |= {s.card for s in state.stack if s.card is not None}
    names |= {e.source for e in state.effects if e.source is not None and e.source in pool}
    return {name: card.missing for name in sorted(names) if (card := pool.get(name)).missing}


class Board:
    """A position of a two-player game and the questions the rules answer about it: what each
    permanent is (613), whether a declaration, an order or an assignment of combat damage is
    legal and why not (508.1, 509.1-509.3, 510.1), the legal declarations, the state-based
    actions that apply (704.5) and what the turn does next.  A :class:`~bridge.engine.game.Game`
    is a board that also applies actions."""

    # the next step's answer on a state, when state-based actions just gave it
    _known_steps: _KnownSteps | None
    # the position's facts and the reader of verdicts, made when first asked for once an action
    # changed the state (a pass asks only the priority question, which has facts of its own)
    _position: Position | None
    _reader: ViolationReader | None

    def __init__(self, state: GameState, pool: CardPool | None = None) -> None:
        self.pool = pool or CardPool.default()
        self._set_state(state)
        # a position given from outside is checked at once (an unknown card...)
        self._position = _position(state, self.pool)

    @classmethod
    def from_state(cls, state: GameState | Mapping[str, object], pool: CardPool | None = None) -> Self:
        """A game at a position (a :class:`GameState` or its mapping)."""
        if not isinstance(state, GameState):
            state = GameState.model_validate(state)
        return cls(state, pool)

    @classmethod
    def from_scenario(cls, scenario: Scenario | str | PathLike[str], pool: CardPool | None = None) -> Self:
        """A game at a scenario's position (a :class:`Scenario` or a file path)."""
        if not isinstance(scenario, Scenario):
            scenario = load_scenario(Path(str(scenario)))
        return cls(scenario.state, pool)

    def _set_state(self, state: GameState) -> None:
        known = getattr(self, "_known_steps", None)
        if known is not None and known[0] is not state:
            self._known_steps = None
        self.state = state
        self._position = None
        self._reader = None
        self._block_checker: DeclarationChecker | None = None
        self._attack_checker: DeclarationChecker | None = None
        # verdicts on casting, activating and playing a land here (an action listed as legal
        # and then taken is judged once)
        self._flow_verdicts: dict[str, tuple[Verdict, frozenset[clingo.Symbol]]] = {}

    @property
    def position(self) -> Position:
        """The position's facts (bridge/engine/facts.py)."""
        known = self._position
        if known is None:
            known = self._position = _position(self.state, self.pool)
        return known

    @property
    def reader(self) -> ViolationReader:
        """Reads the verdicts of the rules' answers on this position."""
        known = self._reader
        if known is None:
            # the position's describe, not the board's: a bound method of the board would make
            # a cycle (board, reader, board) that only the cyclic garbage collector frees
            known = self._reader = ViolationReader(citations(), self.position.describe)
        return known

    def modules(self, *area: str, pt: bool = True, layers: bool = False) -> tuple[str, ...]:
        """The rule modules a question about this position needs: the characteristics (with
        the states of layers 1-6 only when some effect applies in them or ``layers`` asks for
        them, and layer 7 unless the question never reads power and toughness), then ``area``
        (``sba`` with ``replacement``, whose answers on losing the game it reads)."""
        if "sba" in area and "replacement" not in area:
            area = ("replacement", *area)
        layered = layers or self.position.layered
        return (*CHARACTERISTICS, *(LAYERS if layered else ()), *(PT if pt else ()), *area)

    def describe(self, object_id: str) -> str:
        """An object as people read it: ``Craw Wurm (wurm)``."""
        return self.position.describe(object_id)

    def characteristics(self, object_id: str) -> Characteristics:
        """What a permanent is now, after every continuous effect."""
        return self.all_characteristics()[self._require_permanent(object_id)]

    def all_characteristics(self) -> dict[str, Characteristics]:
        """The characteristics of every permanent."""
        answers = self.characteristic_answers()
        if not answers:
            raise RuleModuleError("the rules have no answer set for this position")
        values = answers[-1]
        out = {}
        for perm in self.state.permanents():
            assert perm.id is not None  # validation gives every object an id
            v = values.get(perm.id, {})
            out[perm.id] = Characteristics(
                id=perm.id,
                name=str((v.get("has_name") or [""])[0]),
                types=tuple(sorted(map(str, v.get("has_type", [])))),
                subtypes=tuple(sorted(map(str, v.get("has_subtype", [])))),
                supertypes=tuple(sorted(map(str, v.get("has_supertype", [])))),
                colors=tuple(sorted(map(str, v.get("has_color", [])))),
                abilities=tuple(sorted(map(str, v.get("has_ability", [])))),
                power=_number(v.get("power")),
                toughness=_number(v.get("toughness")),
                loyalty=_number(v.get("loyalty")),
                controller=str((v.get("controller") or [""])[0]),
                text_card=str(v["text_card"][0]) if v.get("text_card") else None,
            )
        return out

    def characteristic_answers(self) -> list[dict[str, dict[str, list[int | str]]]]:
        """Every answer set of the characteristics question (CR 613 leaves no choice: there
        should be exactly one), each as object -> shown predicate -> the values shown, with
        as many values as the rules derive (one for a name or a power, where the rules are
        consistent)."""
        solution = answer((*self.modules(), "characteristics/show"), self.position.facts)
        answers = []
        for model in solution.models:
            values: dict[str, dict[str, list[int | str]]] = {}
            for sym in model:
                name, obj, value = about(sym)
                values.setdefault(obj, {}).setdefault(name, []).append(value)
            answers.append(values)
        return answers

    def player_characteristics(self, name: str) -> PlayerCharacteristics:
        """A player's abilities (CR 613.9) and maximum hand size (CR 613.10, 402.2)."""
        if name not in {p.name for p in self.state.players}:
            raise InputError(f"no player is called {name!r}")
        model = answer(self.modules("characteristics/players"), self.position.facts).model
        abilities = sorted(str(s.arguments[1]) for s in atoms(model, "player_has", 2) if s.arguments[0].string == name)
        hand = next(s.arguments[1] for s in atoms(model, "max_hand_size", 2) if s.arguments[0].string == name)
        size: int | str = hand.number if hand.type == clingo.SymbolType.Number else str(hand)
        return PlayerCharacteristics(name=name, abilities=tuple(abilities), max_hand_size=size)

    def _require_permanent(self, object_id: str) -> str:
        if not any(p.id == object_id for p in self.state.permanents()):
            raise InputError(f"no permanent has the id {object_id!r}")
        return object_id

    def _require_permanent_at(self, object_id: str, where: str) -> None:
        if not any(p.id == object_id for p in self.state.permanents()):
            raise InputError(f"no permanent has the id {object_id!r}", location=where)

    def _require_object(self, object_id: str, where: str) -> None:
        if object_id not in self.state.object_ids() and object_id not in {p.name for p in self.state.players}:
            raise InputError(f"no object has the id {object_id!r}", location=where)

    def check(self, action: Action) -> Verdict:
        """Is ``action`` legal here?  The verdict names each rule it breaks."""
        self._require_ids(action)
        if isinstance(action, DeclareBlockers):
            if self._block_checker is not None:
                return self._block_checker.check(action)
            return check_fresh(self, "block", block_facts(action))
        if isinstance(action, DeclareAttackers):
            if self._attack_checker is not None:
                return self._attack_checker.check(action)
            return check_fresh(self, "attack", attack_facts(action))
        if isinstance(action, (OrderBlockers, OrderAttackers)):
            return self._check_order(action)
        if isinstance(action, OrderTriggers):
            return self._check_trigger_order(action)
        if isinstance(action, AssignDamage):
            return self._check_damage(action)
        if isinstance(action, NextStep):
            if self.state.step not in COMBAT_STEPS:
                raise InputError(
                    f"next_step moves through the steps of the combat phase; the {self.state.step} step is outside it"
                )
            return Verdict(legal=True)
        if isinstance(action, Concede):
            if action.by not in {p.name for p in self.state.players}:
                raise InputError(f"{action.by!r} is not a player", location="concede")
            return Verdict(legal=True)
        if isinstance(action, ChooseOrder):
            if action.by not in {p.name for p in self.state.players}:
                raise InputError(f"{action.by!r} is not a player", location="choose_order")
            chosen = [x for source, targets in (action.trigger_targets or {}).items() for x in (source, *targets)]
            chosen += [x for pair in (action.sources or {}).items() for x in pair]
            chosen += list(action.trigger_modes or {})
            chosen += list(action.timestamps or [])
            chosen += list(action.discards or [])
            chosen += list(action.sacrifices or [])
            chosen += list(action.exiles or [])
            # a pick of no card ("") finds nothing in a search (701.14b)
            chosen += [x for pair in (action.picks or {}).items() for x in pair if x]
            chosen += [x for source, cards in (action.unfound or {}).items() for x in (source, *cards)]
            for source in [*(action.replacements or []), *(action.triggers or []), *(action.declines or []), *chosen]:
                if source not in ("prevention_shield", "prevention"):
                    self._require_object(source, "choose_order")
            named = [(o, c["card_name"]) for o, c in (action.as_enters or {}).items() if "card_name" in c]
            values = [
                (o, k, v)
                for o, c in (action.as_enters or {}).items()
                for k, v in c.items()
                if k in ("color", "creature_type", "land_type", "attacking")
            ]
            if named or values or action.discards or action.picks or action.sacrifices or action.unfound:
                # CR 614.12: the card names and values stated are judged by the rules
                # (stack/choices.lp); CR 701.7a: so are the cards stated to discard (in the hand);
                # CR 701.13a: the permanents stated to sacrifice (his or hers);
                # CR 608.2d, 701.7b, 701.14a, 702.69a: the cards stated to pick; CR 701.14b: and
                # those a search leaves unfound (in a hidden zone)
                facts = "".join(f"\nstated_card_name({asp_string(o)}, {asp_string(n)})." for o, n in named)
                facts += "".join(
                    f"\nstated_pick({asp_string(action.by)}, {asp_string(s)}, {asp_string(x)})."
                    for s, x in sorted((action.picks or {}).items())
                )
                facts += "".join(
                    f"\nstated_unfound({asp_string(action.by)}, {asp_string(s)}, {asp_string(x)})."
                    for s, xs in sorted((action.unfound or {}).items())
                    for x in xs
                )
                facts += "".join(
                    f"\nstated_discard({asp_string(action.by)}, {asp_string(x)})." for x in action.discards or []
                )
                facts += "".join(
                    f"\nstated_sacrifice({asp_string(action.by)}, {asp_string(x)})." for x in action.sacrifices or []
                )
                # a color or type is a word; what a creature attacks, an id (508.5)
                facts += "".join(
                    f"\nstated_chosen({asp_string(o)}, {k}, {asp_string(v) if k == 'attacking' else _word(v)})."
                    for o, k, v in values
                )
                model = answer(self.modules(*CHOICES, pt=False), self.position.facts + facts).model
                return self.reader.verdict(model)
            return Verdict(legal=True)
        if isinstance(action, (StateBasedActions, RemoveFromCombat, Advance)):
            return Verdict(legal=True)
        if isinstance(action, (Cast, Activate, PlayLand, Pass, ChooseTargets, TurnFaceUp, AnswerOffer)):
            return self._check_flow(action)[0]
        raise InputError(f"actions of kind {getattr(action, 'kind', action)!r} are not supported")

    def _require_ids(self, action: Action) -> None:
        """Every id an action names must be an object or a player."""
        if isinstance(action, DeclareBlockers):
            for b, attackers in action.blockers.items():
                self._require_object(b, "declare_blockers")
                for a in attackers:
                    self._require_object(a, f"declare_blockers.{b}")
        elif isinstance(action, DeclareAttackers):
            for c, target in action.attackers.items():
                self._require_object(c, "declare_attackers")
                self._require_object(target, f"declare_attackers.{c}")
            for band in action.bands:
                for c in band:
                    self._require_object(c, "declare_attackers.bands")
        elif isinstance(action, AssignDamage):
            for source, targets in action.assignments.items():
                self._require_object(source, "assign_damage")
                for target in targets:
                    self._require_object(target, f"assign_damage.{source}")
            for shielded, sources in action.prevent.items():
                self._require_object(shielded, "assign_damage.prevent")
                for source in sources:
                    self._require_object(source, f"assign_damage.prevent.{shielded}")
        elif isinstance(action, RemoveFromCombat):
            for obj in action.objects:
                self._require_permanent_at(obj, "remove_from_combat")

    def _check_flow(
        self, action: Cast | Activate | PlayLand | Pass | ChooseTargets | TurnFaceUp | AnswerOffer
    ) -> tuple[Verdict, frozenset[clingo.Symbol]]:
        """What a player does with priority is judged by a :class:`~bridge.engine.game.Game`,
        which can also apply it."""
        raise InputError(f"a {action.kind} action is judged by a game, not a board")

    def checker(self, kind: str) -> DeclarationChecker:
        """A checker grounded once for many declarations of ``kind`` (attack or block)."""
        if kind == "block":
            if self._block_checker is None:
                self._block_checker = DeclarationChecker(self, "block")
            return self._block_checker
        if self._attack_checker is None:
            self._attack_checker = DeclarationChecker(self, "attack")
        return self._attack_checker

    def _check_trigger_order(self, action: OrderTriggers) -> Verdict:
        """CR 603.3b: a player's order of his or her triggered abilities put on the stack
        together (the rules judge it, stack/trigger_order.lp)."""
        if action.by not in {p.name for p in self.state.players}:
            raise InputError(f"{action.by!r} is not a player", location="order_triggers.by")
        for x in action.order:
            self._require_object(x, "order_triggers.order")
        facts = [f"active_player({asp_string(self.state.active)}).", f"trigger_order_by({asp_string(action.by)})."]
        facts += [
            f"simultaneous_trigger({asp_string(p)}, {asp_string(x)}, {i})."
            for p, ids in self.state.simultaneous_triggers.items()
            for i, x in enumerate(ids, start=1)
        ]
        facts += [f"announced_trigger_order({asp_string(x)}, {i})." for i, x in enumerate(action.order, start=1)]
        return self.reader.verdict(Session(TRIGGER_ORDER, "\n".join(facts)).solve().model)

    def _check_order(self, action: OrderBlockers | OrderAttackers) -> Verdict:
        pred = "declared_blocker_order" if isinstance(action, OrderBlockers) else "declared_attacker_order"
        facts = [f"announcing({'blocker' if isinstance(action, OrderBlockers) else 'attacker'}_orders)."]
        for creature, order in action.orders.items():
            self._require_object(creature, action.kind)
            for pos, other in enumerate(order, start=1):
                self._require_object(other, f"{action.kind}.{creature}")
                facts.append(f"{pred}({asp_string(creature)}, {asp_string(other)}, {pos}).")
        model = Session(self.modules(*ORDER, pt=False), self.position.facts + "\n" + "\n".join(facts)).solve().model
        return self.reader.verdict(model)

    @overload
    def _check_damage(self, action: AssignDamage, deal: Literal[False] = False) -> Verdict: ...

    @overload
    def _check_damage(self, action: AssignDamage, deal: Literal[True]) -> tuple[Verdict, frozenset[clingo.Symbol]]: ...

    def _check_damage(
        self, action: AssignDamage, deal: bool = False
    ) -> Verdict | tuple[Verdict, frozenset[clingo.Symbol]]:
        self._require_ids(action)
        if action.by is not None and action.by not in {p.name for p in self.state.players}:
            raise InputError(f"{action.by!r} is not a player", location="assign_damage.by")
        # CR 510.1: the active player's announcement, made before, with this one
        assignments = {**(self.state.announced_damage or {}), **action.assignments}
        facts = [
            f"declared_damage({asp_string(source)}, {asp_string(target)}, {amount})."
            for source, targets in assignments.items()
            for target, amount in targets.items()
        ]
        if action.by is not None:
            facts.append(f"damage_announcer({asp_string(action.by)}).")
            facts += [f"damage_announcing({asp_string(source)})." for source in action.assignments]
        if self.state.announced_damage is not None:
            facts.append("attackers_damage_announced.")
        # CR 615.7: the active player's choice, announced before, with this one
        prevent = {**(self.state.announced_prevention or {}), **action.prevent}
        facts += [
            f"declared_prevention({asp_string(shielded)}, {asp_string(source)}, {amount})."
            for shielded, sources in prevent.items()
            for source, amount in sources.items()
        ]
        dealing = deal or bool(prevent)
        modules = self.modules(*DAMAGE, *(DEALING if dealing else ()))
        session = Session(
            modules,
            self.position.facts + "\n" + "\n".join(facts),
            [("damage_assignment", (DECLARED,)), *(DEALING_PARTS if dealing else ())],
        )
        model = session.solve().model
        verdict = self.reader.verdict(model)
        return (verdict, model) if deal else verdict

    def legal_damage_assignments(self, creature: str) -> list[dict[str, int]]:
        """Every legal assignment of a creature's combat damage (CR 510.1), the other
        creatures assigning theirs by default (lethal damage to each in order)."""
        self._require_permanent(creature)
        session = Session(
            self.modules(*DAMAGE),
            self.position.facts + f"\ndamage_chooser({asp_string(creature)}).",
            [("damage_assignment", (SEARCH,)), ("damage_search", ())],
        )
        found = []
        for model in session.solve(models=0).models:
            found.append(
                {
                    s.arguments[2].string: s.arguments[3].number
                    for s in atoms(model, "assigned", 4)
                    if s.arguments[0] == SEARCH and s.arguments[1].string == creature
                }
            )
        return sorted(found, key=lambda d: sorted(d.items()))

    def joint_damage_assignments(self, creatures: list[str]) -> list[dict[str, dict[str, int]]]:
        """Every legal assignment of these creatures' combat damage together (CR 510.1),
        the other creatures assigning theirs by default: creature -> {recipient: damage}."""
        facts = "\n".join(f"damage_chooser({asp_string(c)})." for c in creatures)
        session = Session(
            self.modules(*DAMAGE),
            self.position.facts + "\n" + facts,
            [("damage_assignment", (SEARCH,)), ("damage_search", ())],
        )
        found = []
        chosen = set(creatures)
        for model in session.solve(models=0).models:
            one: dict[str, dict[str, int]] = {}
            for s in atoms(model, "assigned", 4):
                if s.arguments[0] == SEARCH and s.arguments[1].string in chosen:
                    one.setdefault(s.arguments[1].string, {})[s.arguments[2].string] = s.arguments[3].number
            found.append(one)
        return sorted(found, key=lambda d: sorted((k, sorted(v.items())) for k, v in d.items()))

    def state_based_actions(self) -> list[tuple[str, str]]:
        """The state-based actions that apply now (CR 704.5), as (action, rule) pairs."""
        return sorted((str(action), rule) for action, rule in self._sba())

    def _sba(self) -> list[tuple[clingo.Symbol, str]]:
        return [(s.arguments[0], s.arguments[1].string) for s in atoms(self._sba_model(), "sba", 2)]

    def _sba_model(self) -> frozenset[clingo.Symbol]:
        """The state-based actions question; the same grounding answers the turn's questions:
        the next step, the turn-based actions of this one (CR 703) and whether it is skipped.
        An answer is given again for a position with the same facts and open atoms true
        (:func:`_turn_open`; who has priority and who passed are no part of it)."""
        facts = self._turn_facts()
        state = self.state
        now = _turn_open(state)
        key = (facts, now)
        known = _SBA_ANSWERS.get(key)
        if known is not None and known[0] is self.pool:
            return known[1]
        session = self._turn_session(facts)
        model = session.solve(signed=[(_symbol(atom), atom in now) for atom in _turn_opened(state)]).model
        make_room(_SBA_ANSWERS, KEEP.positions)
        _SBA_ANSWERS[key] = (self.pool, model)
        return model

    def _turn_facts(self) -> str:
        """The position's facts with the step and what is tapped as external atoms, without
        who has priority and who passed (these questions don't read them)."""
        position = self.position
        known = _TURN_FACTS.get(id(position))
        if known is not None and known[0] is position:
            return known[1]
        state = self.state
        facts = "\n".join(
            [
                lines_without(position.facts, _TURN_OPEN),
                *(f"#external {atom}. [free]" for atom in _turn_opened(state)),
                # a hand size past the open ones stays a fact
                *(f"hand_size({asp_string(p.name)}, {len(p.hand)})." for p in state.players if len(p.hand) >= _HANDS),
            ]
        )
        make_room(_TURN_FACTS, KEEP.positions)
        _TURN_FACTS[id(position)] = (position, facts)
        return facts

    def _turn_session(self, facts: str) -> Session:
        """The position grounded with the step and which permanents are tapped left open (an
        external atom for each step and for each permanent being tapped): a turn whose steps
        change nothing else, or only what is tapped (mana paid, the untap step), is answered
        by one grounding."""
        cached = _TURN_SESSIONS.get(facts)
        if cached is not None and cached[0] is self.pool:
            return cached[1]
        known = Session.shared(self.modules(*SBA, *TURN), facts)
        make_room(_TURN_SESSIONS, KEEP.groundings // 2)
        _TURN_SESSIONS[facts] = (self.pool, known)
        return known

    def _steps_model(self, state: GameState) -> frozenset[clingo.Symbol]:
        """The next step's query on a state (reused when state-based actions just answered it)."""
        known: _KnownSteps | None = getattr(self, "_known_steps", None)
        if known is not None and known[0] is state:
            return known[1]
        return Board(state, self.pool)._sba_model()

    @property
    def legal_attacks(self) -> LegalAttacks:
        """The legal declarations of attackers here (a lazy view)."""
        return LegalAttacks(self)

    @property
    def legal_blocks(self) -> LegalBlocks:
        """The legal declarations of blockers here (a lazy view)."""
        return LegalBlocks(self)

    def blocker_orders(self, attacker: str) -> list[list[str]]:
        """Every damage assignment order of an attacker's blockers (CR 509.2)."""
        return self._orders("blocker_order", self._require_permanent(attacker))

    def attacker_orders(self, blocker: str) -> list[list[str]]:
        """Every damage assignment order of the attackers a creature blocks (CR 509.3)."""
        return self._orders("attacker_order", self._require_permanent(blocker))

    def _orders(self, pred: str, creature: str) -> list[list[str]]:
        session = Session(self.modules(*ORDER, pt=False), self.position.facts, [("order_choices", ())])
        orders: set[tuple[str, ...]] = set()
        for model in session.solve(models=0).models:
            slots = sorted(
                (s.arguments[2].number, s.arguments[1].string)
                for s in atoms(model, pred, 3)
                if s.arguments[0].string == creature
            )
            orders.add(tuple(o for _, o in slots))
        return sorted(list(o) for o in orders if o)

    def winner(self) -> str | None:
        """The player who won (CR 104.2a: the other one lost), "none" for a draw, else None."""
        lost = [p.name for p in self.state.players if p.lost]
        if not lost:
            return None
        if len(lost) == len(self.state.players):
            return "none"
        return next(p.name for p in self.state.players if not p.lost)


# ---------------------------------------------------------------------- declarations as facts
# the open atoms' symbols, parsed once
_symbol = functools.lru_cache(maxsize=8192)(clingo.parse_term)


def _turn_opened(state: GameState) -> list[str]:
    """The atoms the turn questions' grounding of ``state`` leaves open (external, free)."""
    names = [asp_string(p.name) for p in state.players]
    ids = [asp_string(p.id or "") for p in state.permanents()]
    opened = [f"step({s})" for s in ALL_STEPS]
    opened += [f"tapped({o})" for o in ids]
    opened += [f"hand_size({n}, {k})" for n in names for k in range(_HANDS)]
    return [*opened, "attacked_this_combat", "combat_damage_dealt"]


def _turn_open(state: GameState) -> frozenset[str]:
    """The open atoms (:func:`_turn_opened`) true in ``state``."""
    true = [f"step({state.step})"]
    true += [f"tapped({asp_string(p.id or '')})" for p in state.permanents() if p.tapped]
    true += [f"hand_size({asp_string(p.name)}, {len(p.hand)})" for p in state.players if len(p.hand) < _HANDS]
    true += [flag for flag in ("attacked_this_combat", "combat_damage_dealt") if getattr(state, flag)]
    return frozenset(true)


def block_facts(action: DeclareBlockers) -> list[str]:
    return [
        f"declared_block({asp_string(b)}, {asp_string(a)})."
        for b, attackers in action.blockers.items()
        for a in attackers
    ]


def attack_facts(action: DeclareAttackers) -> list[str]:
    facts = [f"declared_attack({asp_string(c)}, {asp_string(t)})." for c, t in action.attackers.items()]
    for i, band in enumerate(action.bands, start=1):
        facts += [f"declared_band({asp_string(c)}, {asp_string(f'band{i}')})." for c in band]
    return facts


def _modules(game: Board, kind: str) -> tuple[str, ...]:
    return game.modules(*(ATTACK if kind == "attack" else BLOCK), pt=False)


def _search_parts(kind: str, mode: str) -> list[tuple[str, tuple[object, ...]]]:
    """The search world, its generation and the mode: ``always`` or ``max``."""
    return [(kind, (SEARCH,)), (f"{kind}_search", ()), (f"{kind}_search_{mode}", ())]


def check_fresh_model(game: Board, kind: str, facts: list[str], results: bool = False) -> frozenset[clingo.Symbol]:
    """One declaration on a fresh grounding.  The declared world is grounded and solved
    first; only when it leaves unobeyed a requirement some declaration could obey is the
    search for a better declaration grounded with it and solved."""
    modules = _modules(game, kind)[:-1] + ((f"combat/{kind}_results",) if results else ())
    position = game.position.facts + "\n" + "\n".join(facts)
    model = answer(modules, position, [(kind, (DECLARED,))]).model
    needed = clingo.Function(f"{kind}_search_needed", [DECLARED])
    if needed in model:
        model = answer(
            (*modules, _modules(game, kind)[-1]),
            position,
            [
                (kind, (DECLARED,)),
                *_search_parts(kind, "always"),
                (f"{kind}_judgement", ()),
                (f"{kind}_judgement_by_search", ()),
            ],
        ).model
    return model


def check_fresh(game: Board, kind: str, facts: list[str]) -> Verdict:
    """The verdict on one declaration, on a fresh grounding."""
    return game.reader.verdict(check_fresh_model(game, kind, facts))


class DeclarationChecker:
    """Many declarations of one kind on one position: the requirement maximum is found once,
    then the position is grounded once with every possible declaration pair as an external
    atom, and each declaration is a solve under assumptions."""

    def __init__(self, game: Board, kind: str) -> None:
        self.game = game
        self.kind = kind
        # CR 508.1d, 509.1c: only the maximum matters; with no requirement to obey, any legal
        # declaration shows it (listing them all is exponential in the creatures)
        search = Session(_modules(game, kind), game.position.facts, _search_parts(kind, "max")).solve(best=True).model
        extra = [
            f"known_{s}." for s in [*atoms(search, "requirement_max", 2), *atoms(search, "requirement_witness", 1)]
        ]
        self._search = search
        # with what a declaration does (combat/*_results), so that the one taken needs no grounding
        self.session = Session(
            (*_modules(game, kind)[:-1], f"combat/{kind}_results"),
            game.position.facts + "\n" + "\n".join(extra),
            [(kind, (DECLARED,)), (f"{kind}_externals", ()), (f"{kind}_judgement", ())],
        )
        pred = "assumed_block" if kind == "block" else "assumed_attack"
        self._literals = self.session.free_externals(pred, 2)

    def possible_pairs(self) -> set[tuple[object, ...]]:
        """The (attacker, what it attacks) or (blocker, attacker) pairs some declaration could
        hold: a declaration with any other pair is illegal."""
        return set(self._literals)

    def model(self, action: DeclareAttackers | DeclareBlockers) -> frozenset[clingo.Symbol] | None:
        """The answer on one declaration (its verdict and what it does), when this grounding
        covers it: no bands, only pairs some declaration could hold."""
        if isinstance(action, DeclareBlockers):
            pairs = {(b, a) for b, attackers in action.blockers.items() for a in attackers}
        else:
            if action.bands:
                return None
            pairs = set(action.attackers.items())
        if not pairs <= self._literals.keys():
            return None
        return self.session.solve(
            literals=[lit if pair in pairs else -lit for pair, lit in self._literals.items()]
        ).model

    def requirement_max(self) -> int:
        """The most requirements a legal declaration obeys (CR 508.1d, 509.1c): 0 when no
        legal declaration can obey any (or none is legal)."""
        return max((s.arguments[1].number for s in atoms(self._search, "requirement_max", 2)), default=0)

    def best(self) -> DeclareAttackers | DeclareBlockers:
        """A legal declaration that obeys the most requirements (CR 508.1d, 509.1c): the one
        the maximum search found."""
        legal = LegalBlocks if self.kind == "block" else LegalAttacks
        return legal(self.game)._declaration(self._search)

    def check(self, action: DeclareAttackers | DeclareBlockers) -> Verdict:
        """The verdict on one declaration."""
        model = self.model(action)
        if model is None:
            facts = block_facts(action) if isinstance(action, DeclareBlockers) else attack_facts(action)
            return check_fresh(self.game, self.kind, facts)
        return self.game.reader.verdict(model)


# ---------------------------------------------------------------------- legal declarations
class _LegalDeclarations:
    kind = ""

    def __init__(self, game: Board) -> None:
        self.game = game

    def _session(self) -> Session:
        return Session(_modules(self.game, self.kind), self.game.position.facts, _search_parts(self.kind, "always"))

    def __len__(self) -> int:
        return self.count()

    def count(self) -> int:
        """How many distinct legal declarations there are (the empty one included if legal)."""
        return self._session().count(optimal=True)

    def __iter__(self) -> Iterator[Action]:
        session = self._session()
        for model in session.solve(models=0, optimal_only=True, opt_mode="optN").models:
            yield self._declaration(model)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, (DeclareAttackers, DeclareBlockers)):
            return False
        return self.game.checker(self.kind).check(action).legal

    def _declaration(self, model: frozenset[clingo.Symbol]) -> DeclareAttackers | DeclareBlockers:
        raise NotImplementedError


class LegalAttacks(_LegalDeclarations):
    """The legal declarations of attackers (CR 508.1): ``in``, iteration, ``len()``."""

    kind = "attack"

    def _declaration(self, model: frozenset[clingo.Symbol]) -> DeclareAttackers:
        attackers = {
            s.arguments[1].string: s.arguments[2].string for s in atoms(model, "attacks", 3) if s.arguments[0] == SEARCH
        }
        bands: dict[str, list[str]] = {}
        for s in atoms(model, "band_member", 3):
            if s.arguments[0] == SEARCH:
                bands.setdefault(s.arguments[1].string, []).append(s.arguments[2].string)
        return DeclareAttackers(
            attackers=dict(sorted(attackers.items())), bands=sorted(sorted(b) for b in bands.values() if len(b) > 1)
        )


class LegalBlocks(_LegalDeclarations):
    """The legal declarations of blockers (CR 509.1): ``in``, iteration, ``len()``."""

    kind = "block"

    def _declaration(self, model: frozenset[clingo.Symbol]) -> DeclareBlockers:
        blocks: dict[str, list[str]] = {}
        for s in atoms(model, "blocks", 3):
            if s.arguments[0] == SEARCH:
                blocks.setdefault(s.arguments[1].string, []).append(s.arguments[2].string)
        return DeclareBlockers(blockers={b: sorted(a) for b, a in sorted(blocks.items())})


def priority_now(game: Board) -> tuple[bool, tuple[str, ...]]:
    """Do players receive priority in this step (CR 115.3a, 502.3, 514.3-514.3a), and which of
    its turn-based actions are still to be done before anyone has it (115.2c, 703.3)?  The
    rules answer (turn/priority.lp)."""
    return _priority_answer(game.state)[:2]


def on_pass(state: GameState) -> tuple[str, str]:
    """What the player with priority passing now leads to, as the rules show it
    (turn/passing.lp): ``("priority", player)``, the next player receives priority (CR
    115.3d); ``("resolve_top", "")``, all players passed in succession and the top of the
    stack resolves (608.1); ``("end_step", "")``, they passed with the stack empty and the step or
    phase ends (500.2, 505.2).  Answered with the priority question of the same position (one
    grounding for both)."""
    return _priority_answer(state)[2]


_PRIORITY_ANSWERS: dict[str, tuple[bool, tuple[str, ...], tuple[str, str]]] = kept({})
# the priority question's facts left open (external atoms): a grounding answers every position
# whose combat (attacking and blocking creatures) and players are the same
_PRIORITY_OPEN = frozenset(
    {
        "step",
        "priority",
        "passed",
        "stack_size",
        "acted_in_cleanup",
        "combat_damage_dealt",
        "declared_in_combat",
        "attacked_this_combat",
    }
)
_STACK_SIZES = 9  # stack sizes 1 to 8 are open; a larger one stays a fact


def _priority_opened(state: GameState) -> list[str]:
    """The atoms the priority question's grounding leaves open."""
    names = [asp_string(p.name) for p in state.players]
    opened = [f"step({s})" for s in ALL_STEPS]
    opened += [f"{pred}({n})" for pred in ("priority", "passed") for n in names]
    opened += [f"stack_size({k})" for k in range(1, _STACK_SIZES)]
    opened += [f"declared_in_combat({d})" for d in ("attackers", "blockers", "blocker_orders", "attacker_orders")]
    return [*opened, "acted_in_cleanup", "combat_damage_dealt", "attacked_this_combat"]


def _priority_answer(state: GameState) -> tuple[bool, tuple[str, ...], tuple[str, str]]:
    facts = priority_facts(state)
    known = _PRIORITY_ANSWERS.get(facts)
    if known is None:
        lines = [(line, line.partition("(")[0].rstrip(".") in _PRIORITY_OPEN) for line in facts.split("\n")]
        true = {line[:-1] for line, is_open in lines if is_open}
        fixed = [line for line, is_open in lines if not is_open]
        fixed += [f"stack_size({len(state.stack)})."] if len(state.stack) >= _STACK_SIZES else []
        opened = _priority_opened(state)
        session = Session.shared(PRIORITY, "\n".join([*fixed, *(f"#external {atom}. [free]" for atom in opened)]))
        model = session.solve(signed=[(_symbol(atom), atom in true) for atom in opened]).model
        pending = tuple(sorted(s.arguments[0].name for s in atoms(model, "pending_turn_based_action", 1)))
        shown = [s.arguments[0] for s in atoms(model, "on_pass", 1)]
        if len(shown) != 1:
            raise RuleModuleError(f"turn/passing.lp shows {len(shown)} outcomes of a pass, not one: {shown}")
        outcome = shown[0]
        then = (outcome.name, outcome.arguments[0].string if outcome.arguments else "")
        if len(_PRIORITY_ANSWERS) >= 1024:
            _PRIORITY_ANSWERS.clear()
        known = _PRIORITY_ANSWERS[facts] = (bool(atoms(model, "priority_step", 0)), pending, then)
    return known


def priority_step(game: Board) -> bool:
    """Do players receive priority in this step (CR 502.3, 514.3-514.3a)?"""
    return priority_now(game)[0]
