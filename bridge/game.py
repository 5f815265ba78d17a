"""The game: a position, the questions asked of it, and the actions applied to it.

Shaped like python-chess's ``Board``: a :class:`Game` holds a frozen
:class:`~bridge.models.GameState`; ``game.legal_attacks`` and ``game.legal_blocks`` are lazy
views that support ``in``, iteration and ``len()``; ``game.check(action)`` returns a
:class:`~bridge.verdict.Verdict`; ``game.push(action)`` applies a legal action and raises
:class:`~bridge.errors.IllegalActionError` for an illegal one; ``game.pop()`` takes it back.

>>> game = Game.from_scenario("scenarios/combat/block/lure_all_able_must_block.yaml")
>>> game.check(DeclareBlockers(blockers={"elves": "wurm"})).legal
False
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import clingo

from bridge.cards import CardPool
from bridge.errors import IllegalActionError, InputError, MtgaspError
from bridge.facts import Position, asp_string, delayed_facts, position_facts
from bridge.errors import RuleModuleError
from bridge.models import (Action, Activate, Advance, AssignDamage, CardRef, Cast, ChooseOrder, ChooseTargets, Concede,
                           DeclareAttackers,
                           DeclareBlockers,
                           GameState, NextStep, OrderAttackers, OrderBlockers, Pass, PlayLand, Player, RemoveFromCombat,
                           StateBasedActions)
from bridge.models import STEPS as ALL_STEPS
from bridge.solver import Session, answer, remember_facts
from bridge.verdict import Verdict, ViolationReader

__all__ = ["Game", "Characteristics", "PlayerCharacteristics", "LegalAttacks", "LegalBlocks", "partial_cards"]

CHARACTERISTICS = ("inputs", "characteristics/effects", "characteristics/final")
LAYERS = ("characteristics/layers", "characteristics/dependency", "characteristics/locking", "characteristics/text")
PT = ("characteristics/pt",)
ATTACK = ("combat/common", "combat/attack", "combat/declared", "combat/attack_search")
BLOCK = ("combat/common", "combat/block", "combat/declared", "combat/block_search")
ORDER = ("combat/common", "combat/order")
DAMAGE = ("combat/common", "combat/damage_assignment")
DEALING = ("combat/damage_dealing",)
DEALING_PARTS = (("dealing_combat_damage", ()),)   # the events are the combat damage assigned
STEPS = ("combat/common", "characteristics/players", "turn/control", "turn/steps")
# the state-based actions (regeneration replacing destruction) and the delayed triggered
# abilities whose moment a step is: asked in the turn's session with the steps
SBA = ("sba", "regeneration", "stack/delayed")
COMBAT_STEPS = ("beginning_of_combat", "declare_attackers", "declare_blockers", "first_strike_damage",
                "combat_damage", "end_of_combat")
DECLARED = clingo.Function("declared")
SEARCH = clingo.Function("search")


@functools.cache
def citations() -> dict[str, tuple[str, str]]:
    """reason -> (specific rule, step rule), from ``combat/citations.lp``."""
    model = Session(("combat/citations",), "").solve().model
    return {s.arguments[0].name: (s.arguments[1].string, s.arguments[2].string)
            for s in model if s.match("cites", 3)}


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
    text_card: str | None = None    # the card whose text it has (CR 706.2: a copy's is what it copies)


@dataclass(frozen=True)
class PlayerCharacteristics:
    """What effects make of a player: abilities (CR 613.9) and maximum hand size (402.2)."""

    name: str
    abilities: tuple[str, ...]
    max_hand_size: int | str


def _text(sym: clingo.Symbol) -> str:
    return sym.string if sym.type == clingo.SymbolType.String else str(sym)


# The facts of the positions seen last (states are immutable: the same object has the same
# facts), so that the games made on one state share them.
_POSITIONS: "dict[int, tuple[GameState, CardPool, Position]]" = {}


# CR 104.4b: rounds of mandatory actions (state-based actions, abilities put on the stack) after
# which a loop that never meets a position again is reported as an error.
LOOP_ROUNDS = 100


def drawn_by_loop(state: GameState) -> GameState:
    """CR 104.4b: the game entered a loop of mandatory actions: it is a draw (every player
    leaves it, recorded by that rule)."""
    return state.model_copy(update={"players": [p.model_copy(update={"lost": True, "lost_by": p.lost_by or "104.4b"})
                                                for p in state.players]})


# The state-based actions question answered last, by position (priority and passes aside:
# they change nothing it asks about), with the card pool it was asked with (an entry counts
# only for that very pool: another pool's cards may differ).
_SBA_ANSWERS: "dict[str, tuple[CardPool, frozenset[clingo.Symbol]]]" = {}
# The groundings of positions with the step left open, by position without its step (and pool).
_TurnSession = tuple[Session, dict[tuple[object, ...], int], dict[tuple[object, ...], int]]
_TURN_SESSIONS: "dict[str, tuple[CardPool, _TurnSession]]" = {}


def _position(state: GameState, pool: CardPool) -> Position:
    known = _POSITIONS.get(id(state))
    if known is not None and known[0] is state and known[1] is pool:
        remember_facts(known[2].facts)
        return known[2]
    position = position_facts(state, pool)
    remember_facts(position.facts)
    if len(_POSITIONS) >= 64:
        del _POSITIONS[next(iter(_POSITIONS))]
    _POSITIONS[id(state)] = (state, pool, position)
    return position


def partial_cards(state: GameState, pool: CardPool) -> dict[str, str]:
    """The cards of a position (in any zone, on the stack, behind its effects) whose files
    leave part of their printed text out, by name, with what they leave out (``missing``):
    that part does nothing in a game."""
    names = {c.card for p in state.players for zone in ("library", "hand", "graveyard", "exile", "battlefield")
             for c in getattr(p, zone)}
    names |= {s.card for s in state.stack if s.card is not None}
    names |= {e.source for e in state.effects if e.source is not None and e.source in pool}
    return {name: card.missing for name in sorted(names) if (card := pool.get(name)).missing}


class Game:
    """A two-player game at some position, with the rules as the judge."""

    def __init__(self, state: GameState, pool: CardPool | None = None) -> None:
        self.pool = pool or CardPool.default()
        self._history: list[GameState] = []
        self.start = state
        self.log: list[Action] = []
        self._set_state(state)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_state(cls, state: GameState | Mapping[str, object], pool: CardPool | None = None) -> "Game":
        """A game at a position (a :class:`GameState` or its mapping)."""
        if not isinstance(state, GameState):
            state = GameState.model_validate(state)
        return cls(state, pool)

    @classmethod
    def from_scenario(cls, scenario: object, pool: CardPool | None = None) -> "Game":
        """A game at a scenario's position (a :class:`Scenario` or a file path)."""
        from bridge.scenario import load_scenario
        from bridge.models import Scenario
        if not isinstance(scenario, Scenario):
            scenario = load_scenario(Path(str(scenario)))
        return cls(scenario.state, pool)

    def _set_state(self, state: GameState) -> None:
        known = getattr(self, "_known_steps", None)
        if known is not None and known[0] is not state:
            self._known_steps = None
        self.state = state
        self.position: Position = _position(state, self.pool)
        self.reader = ViolationReader(citations(), self.describe)
        self._block_checker: _DeclarationChecker | None = None
        self._attack_checker: _DeclarationChecker | None = None
        # verdicts on casting, activating and playing a land here (an action listed as legal
        # and then taken is judged once)
        self._flow_verdicts: dict[str, tuple[Verdict, frozenset[clingo.Symbol]]] = {}

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

    # ------------------------------------------------------------------ characteristics
    def characteristics(self, object_id: str) -> Characteristics:
        """What a permanent is now, after every continuous effect."""
        return self.all_characteristics()[self._require_permanent(object_id)]

    def all_characteristics(self) -> dict[str, Characteristics]:
        """The characteristics of every permanent."""
        model = Session((*self.modules(), "characteristics/show"), self.position.facts).solve().model
        values: dict[str, dict[str, list[object]]] = {}
        for sym in model:
            obj = _text(sym.arguments[0])
            values.setdefault(obj, {}).setdefault(sym.name, []).append(
                sym.arguments[1].number if sym.arguments[1].type == clingo.SymbolType.Number else _text(sym.arguments[1]))
        out = {}
        for perm in self.state.permanents():
            v = values.get(perm.id, {})
            out[perm.id] = Characteristics(
                id=perm.id, name=str((v.get("has_name") or [""])[0]),
                types=tuple(sorted(map(str, v.get("has_type", [])))),
                subtypes=tuple(sorted(map(str, v.get("has_subtype", [])))),
                supertypes=tuple(sorted(map(str, v.get("has_supertype", [])))),
                colors=tuple(sorted(map(str, v.get("has_color", [])))),
                abilities=tuple(sorted(map(str, v.get("has_ability", [])))),
                power=(v.get("power") or [None])[0],  # type: ignore[arg-type]
                toughness=(v.get("toughness") or [None])[0],  # type: ignore[arg-type]
                loyalty=(v.get("loyalty") or [None])[0],  # type: ignore[arg-type]
                controller=str((v.get("controller") or [""])[0]),
                text_card=(v.get("text_card") or [None])[0])  # type: ignore[arg-type]
        return out

    def player_characteristics(self, name: str) -> "PlayerCharacteristics":
        """A player's abilities (CR 613.9) and maximum hand size (CR 613.10, 402.2)."""
        if name not in {p.name for p in self.state.players}:
            raise InputError(f"no player is called {name!r}")
        model = Session(self.modules("characteristics/players"), self.position.facts).solve().model
        abilities = sorted(str(s.arguments[1]) for s in model if s.match("player_has", 2) and s.arguments[0].string == name)
        hand = next(s.arguments[1] for s in model if s.match("max_hand_size", 2) and s.arguments[0].string == name)
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

    # ------------------------------------------------------------------ legality
    def check(self, action: Action) -> Verdict:
        """Is ``action`` legal here?  The verdict names each rule it breaks."""
        self._require_ids(action)
        if isinstance(action, DeclareBlockers):
            if self._block_checker is not None:
                return self._block_checker.check(action)
            return _check_fresh(self, "block", _block_facts(action))
        if isinstance(action, DeclareAttackers):
            if self._attack_checker is not None:
                return self._attack_checker.check(action)
            return _check_fresh(self, "attack", _attack_facts(action))
        if isinstance(action, (OrderBlockers, OrderAttackers)):
            return self._check_order(action)
        if isinstance(action, AssignDamage):
            return self._check_damage(action)
        if isinstance(action, NextStep):
            if self.state.step not in COMBAT_STEPS:
                raise InputError(f"next_step moves through the steps of the combat phase; the {self.state.step} "
                                 "step is outside it")
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
            for source in [*(action.replacements or []), *(action.triggers or []), *(action.declines or []), *chosen]:
                if source != "prevention_shield":
                    self._require_object(source, "choose_order")
            return Verdict(legal=True)
        if isinstance(action, (StateBasedActions, RemoveFromCombat, Advance)):
            return Verdict(legal=True)
        if isinstance(action, (Cast, Activate, PlayLand, Pass, ChooseTargets)):
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

    def _check_flow(self, action: Cast | Activate | PlayLand | Pass | ChooseTargets
                    ) -> tuple[Verdict, frozenset[clingo.Symbol]]:
        key = f"{action.kind}:{action.model_dump_json()}"
        known = self._flow_verdicts.get(key)
        if known is None:
            known = self._flow_verdicts[key] = self._judge_flow(action)
        return known

    def _judge_flow(self, action: Cast | Activate | PlayLand | Pass | ChooseTargets
                    ) -> tuple[Verdict, frozenset[clingo.Symbol]]:
        from bridge import stack
        if isinstance(action, ChooseTargets):
            return stack.check_choose_targets(self, action)
        waiting = stack.awaiting_flow_violation(self)
        if waiting is not None:
            return waiting, frozenset()
        if isinstance(action, Cast):
            return stack.check_cast(self, action)
        if isinstance(action, Activate):
            return stack.check_activate(self, action)
        if isinstance(action, PlayLand):
            return stack.check_play_land(self, action)
        return stack.check_pass(self, action), frozenset()

    def checker(self, kind: str) -> "_DeclarationChecker":
        """A checker grounded once for many declarations of ``kind`` (attack or block)."""
        if kind == "block":
            if self._block_checker is None:
                self._block_checker = _DeclarationChecker(self, "block")
            return self._block_checker
        if self._attack_checker is None:
            self._attack_checker = _DeclarationChecker(self, "attack")
        return self._attack_checker

    def _check_order(self, action: OrderBlockers | OrderAttackers) -> Verdict:
        facts = []
        pred = "declared_blocker_order" if isinstance(action, OrderBlockers) else "declared_attacker_order"
        for creature, order in action.orders.items():
            self._require_object(creature, action.kind)
            for pos, other in enumerate(order, start=1):
                self._require_object(other, f"{action.kind}.{creature}")
                facts.append(f"{pred}({asp_string(creature)}, {asp_string(other)}, {pos}).")
        model = Session(self.modules(*ORDER, pt=False), self.position.facts + "\n" + "\n".join(facts)).solve().model
        return self.reader.verdict(model)

    def _check_damage(self, action: AssignDamage, deal: bool = False):  # type: ignore[no-untyped-def]
        self._require_ids(action)
        facts = [f"declared_damage({asp_string(source)}, {asp_string(target)}, {amount})."
                 for source, targets in action.assignments.items() for target, amount in targets.items()]
        facts += [f"declared_prevention({asp_string(shielded)}, {asp_string(source)}, {amount})."
                  for shielded, sources in action.prevent.items() for source, amount in sources.items()]
        dealing = deal or bool(action.prevent)
        modules = self.modules(*DAMAGE, *(DEALING if dealing else ()))
        session = Session(modules, self.position.facts + "\n" + "\n".join(facts),
                          [("damage_assignment", (DECLARED,)), *(DEALING_PARTS if dealing else ())])
        model = session.solve().model
        verdict = self.reader.verdict(model)
        return (verdict, model) if deal else verdict

    def legal_damage_assignments(self, creature: str) -> list[dict[str, int]]:
        """Every legal assignment of a creature's combat damage (CR 510.1), the other
        creatures assigning theirs by default (lethal damage to each in order)."""
        self._require_permanent(creature)
        session = Session(self.modules(*DAMAGE), self.position.facts + f"\ndamage_chooser({asp_string(creature)}).",
                          [("damage_assignment", (SEARCH,)), ("damage_search", ())])
        found = []
        for model in session.solve(models=0).models:
            found.append({s.arguments[2].string: s.arguments[3].number for s in model
                          if s.match("assigned", 4) and s.arguments[0] == SEARCH and s.arguments[1].string == creature})
        return sorted(found, key=lambda d: sorted(d.items()))

    def state_based_actions(self) -> list[tuple[str, str]]:
        """The state-based actions that apply now (CR 704.5), as (action, rule) pairs."""
        return sorted((str(action), rule) for action, rule in self._sba())

    def _sba(self) -> list[tuple[clingo.Symbol, str]]:
        return [(s.arguments[0], s.arguments[1].string) for s in self._sba_model() if s.match("sba", 2)]

    def _sba_model(self) -> frozenset[clingo.Symbol]:
        """The state-based actions question; the same grounding answers the turn's questions:
        the next step, the turn-based actions of this one (CR 703) and whether it is skipped."""
        from bridge.stack import _steps_key
        key = _steps_key(self.state)
        known = _SBA_ANSWERS.get(key)
        if known is not None and known[0] is self.pool:
            return known[1]
        session, steps, tapped = self._turn_session()
        literals = [lit if args == (self.state.step,) else -lit for args, lit in steps.items()]
        now_tapped = {(p.id,) for p in self.state.permanents() if p.tapped}
        literals += [lit if args in now_tapped else -lit for args, lit in tapped.items()]
        model = session.solve(literals=literals).model
        if len(_SBA_ANSWERS) >= 64:
            del _SBA_ANSWERS[next(iter(_SBA_ANSWERS))]
        _SBA_ANSWERS[key] = (self.pool, model)
        return model

    def _turn_session(self) -> tuple[Session, dict[tuple[object, ...], int], dict[tuple[object, ...], int]]:
        """The position grounded with the step and which permanents are tapped left open (an
        external atom for each step and for each permanent being tapped): a turn whose steps
        change nothing else, or only what is tapped (mana paid, the untap step), is answered
        by one grounding."""
        from bridge.stack import _steps_key
        key = _steps_key(self.state.model_copy(update={"step": "untap"}))
        cached = _TURN_SESSIONS.get(key)
        if cached is not None and cached[0] is self.pool:
            return cached[1]
        step_fact = f"step({self.state.step})."
        # who has priority is no part of the key: these questions don't read it
        facts = "\n".join(line for line in self.position.facts.split("\n")
                          if line != step_fact and not line.startswith(("tapped(", "priority(", "passed("))) + "\n" + \
            " ".join(f"#external step({s})." for s in ALL_STEPS) + "\n" + \
            "\n".join(f"#external tapped({asp_string(p.id or '')})." for p in self.state.permanents())
        session = Session.shared(self.modules(*SBA, *STEPS), facts)
        known = session, session.free_externals("step", 1), session.free_externals("tapped", 1)
        if len(_TURN_SESSIONS) >= 8:
            del _TURN_SESSIONS[next(iter(_TURN_SESSIONS))]
        _TURN_SESSIONS[key] = (self.pool, known)
        return known

    def _state_based_actions(self) -> GameState:
        """CR 704.3: perform every state-based action that applies, at once, until none does."""
        from bridge.stack import _steps_key, leaving_events, triggers_on
        state, game = self.state, self
        seen: set[str] = set()
        for rounds in range(LOOP_ROUNDS):
            if rounds >= 2:
                # CR 104.4b: a loop of mandatory actions is a draw: a position met again
                key = _steps_key(state)
                if key in seen:
                    return drawn_by_loop(state)
                seen.add(key)
            model = game._sba_model()
            replaced = {s.arguments[0] for s in model if s.match("sba_replaced", 2)}
            actions = [s.arguments[0] for s in model if s.match("sba", 2) and s.arguments[0] not in replaced]
            actions += [s.arguments[1] for s in model if s.match("sba_replaced", 2)]
            if not actions:
                if state.step != "cleanup":
                    # CR 302.6: control changed since the game last looked (in cleanup, where
                    # nobody receives priority for it (514.3a), the next turn's start looks)
                    state = _control_changes(state, model)
                if any(p.drew_from_empty_library for p in state.players):
                    # CR 704.5b: a draw from an empty library counts until this check (a player
                    # who can't lose the game doesn't lose, and the attempt is spent)
                    return state.model_copy(update={"players": [p.model_copy(update={"drew_from_empty_library": False})
                                                                for p in state.players]})
                self._known_steps = (state, model)
                return state
            before = state
            from bridge.replacement import destinations_shown
            going = {a.arguments[0].string for a in actions if a.name in ("to_graveyard", "destroy")}
            # CR 614.1a, 616.1: a card on its way to a graveyard may go elsewhere instead (the
            # same question answers, replacement.lp)
            instead = destinations_shown(model, going)
            state = _apply_sba(state, actions, instead, self.pool, model)
            # CR 104.3: why each player who lost now lost
            why: dict[str, str] = {}
            for s in model:
                if s.match("sba", 2) and s.arguments[0].name == "loses":
                    name = s.arguments[0].arguments[0].string
                    why[name] = min(why.get(name, s.arguments[1].string), s.arguments[1].string)
            if any(p.lost and p.lost_by is None for p in state.players):
                state = state.model_copy(update={"players": [
                    p.model_copy(update={"lost_by": why.get(p.name)}) if p.lost and p.lost_by is None else p
                    for p in state.players]})
            # CR 603.6c, 603.10: what left the battlefield triggers, looking back
            moves = {oid: instead.get(oid, "graveyard") for oid in going}
            state = triggers_on(self.pool, before, state, leaving_events(before, moves))
            game = Game(state, self.pool)
        raise RuleModuleError(f"state-based actions did not stop after {LOOP_ROUNDS} rounds and no position repeated "
                              f"(the last round: {', '.join(sorted(map(str, actions)))})")

    def _steps_model(self, state: GameState) -> frozenset[clingo.Symbol]:
        """The next step's query on a state (reused when state-based actions just answered it)."""
        known = getattr(self, "_known_steps", None)
        if known is not None and known[0] is state:
            return known[1]
        return Game(state, self.pool)._sba_model()

    def _next_step(self) -> GameState:
        """The step ends and the next step of combat begins (CR 506.1), as when all players
        pass with the stack empty: the rules say which step (508.6, 510.5) and what changes
        (511.3).  A turn-based action not yet done is done first, by its default (a combat
        damage step in which no damage was dealt deals it)."""
        from bridge.stack import end_step, turn_based_action_first
        return end_step(turn_based_action_first(self))

    @property
    def legal_attacks(self) -> "LegalAttacks":
        """The legal declarations of attackers here (a lazy view)."""
        return LegalAttacks(self)

    @property
    def legal_blocks(self) -> "LegalBlocks":
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
            slots = sorted((s.arguments[2].number, s.arguments[1].string) for s in model
                           if s.match(pred, 3) and s.arguments[0].string == creature)
            orders.add(tuple(o for _, o in slots))
        return sorted(list(o) for o in orders if o)

    # ------------------------------------------------------------------ applying actions
    def push(self, action: Action) -> Verdict:
        """Apply a legal action; raise :class:`IllegalActionError` for an illegal one."""
        return self._push(action)

    def _push(self, action: Action) -> Verdict:
        if isinstance(action, AssignDamage):
            verdict, model = self._check_damage(action, deal=True)
        elif isinstance(action, (DeclareAttackers, DeclareBlockers)):
            # one grounding judges the declaration and says what it does
            self._require_ids(action)
            kind = "attack" if isinstance(action, DeclareAttackers) else "block"
            facts = _attack_facts(action) if isinstance(action, DeclareAttackers) else _block_facts(action)
            checker = self._attack_checker if kind == "attack" else self._block_checker
            known = checker.model(action) if checker is not None else None
            model = known if known is not None else _check_fresh_model(self, kind, facts, results=True)
            verdict = self.reader.verdict(model)
        elif isinstance(action, (Cast, Activate, PlayLand, Pass, ChooseTargets)):
            verdict, model = self._check_flow(action)
        else:
            model = frozenset()
            verdict = self.check(action)
        if not verdict.legal:
            raise IllegalActionError(verdict)
        self._history.append(self.state)
        before = self.state
        after = _tapping_triggers(self, before, self._after(action, model))
        self._set_state(_delayed_event_triggers(self, before, after))
        self.log.append(action)
        return verdict

    def pop(self) -> GameState:
        """Take back the last action; return the state it had produced."""
        undone = self.state
        self._set_state(self._history.pop())
        self.log.pop()
        return undone

    def partial_cards(self) -> dict[str, str]:
        """The cards of this game whose files leave part of their printed text out, with what
        they leave out: that part does nothing here (see :func:`partial_cards`)."""
        found = partial_cards(self.start, self.pool)
        found.update(partial_cards(self.state, self.pool))
        return dict(sorted(found.items()))

    # ------------------------------------------------------------------ the game log
    def game_log(self) -> dict[str, object]:
        """The starting position and every action applied since, enough to replay the game."""
        return {"state": self.start.model_dump(mode="json", exclude_defaults=True),
                "actions": [a.model_dump(mode="json", exclude_defaults=True) | {"kind": a.kind} for a in self.log]}

    @classmethod
    def replay(cls, log: Mapping[str, object], pool: CardPool | None = None) -> "Game":
        """A game that replays a log written by :meth:`game_log`."""
        from pydantic import TypeAdapter, ValidationError
        from bridge.reading import validation_problem
        if not isinstance(log, Mapping) or "state" not in log:
            raise InputError("a game log is a mapping with the starting state and the actions")
        try:
            part = "state"
            state = GameState.model_validate(log["state"])
            part = "actions"
            actions = TypeAdapter(list[Action]).validate_python(log.get("actions") or [])
        except ValidationError as exc:
            where, problem = validation_problem(exc)
            place = part if where == "(top level)" else f"{part}{'' if where.startswith('[') else '.'}{where}"
            raise InputError(problem, location=place) from None
        game = cls.from_state(state, pool)
        for number, action in enumerate(actions):
            try:
                game.push(action)
            except MtgaspError as exc:
                raise InputError(f"the log's action {number} can't be replayed: {exc}", location=f"actions[{number}]") from None
        return game

    def winner(self) -> str | None:
        """The player who won (CR 104.2a: the other one lost), "none" for a draw, else None."""
        lost = [p.name for p in self.state.players if p.lost]
        if not lost:
            return None
        if len(lost) == len(self.state.players):
            return "none"
        return next(p.name for p in self.state.players if not p.lost)

    def _after(self, action: Action, model: frozenset[clingo.Symbol]) -> GameState:
        if isinstance(action, (DeclareAttackers, DeclareBlockers)):
            state = self._after_attack(action, model) if isinstance(action, DeclareAttackers) \
                else self._after_block(action, model)
            # CR 508.2-508.3, 509.4-509.5, 603.3b: what triggered goes on the stack, then the
            # active player receives priority
            from bridge.stack import _give_priority
            return _give_priority(self, state, state.active, check=bool(state.pending_triggers))
        if isinstance(action, AssignDamage):
            from bridge.stack import _give_priority, triggers_on
            state, replaced = _deal_damage(self.state, model, self.pool)
            events = sorted(f"deals_combat_damage_to_player({asp_string(s.arguments[0].string)})" for s in model
                            if s.match("combat_damage_to_player", 1))
            events += damage_events(model, {p.name for p in state.players}) + lifelink_events(model, replaced)
            state = triggers_on(self.pool, state, state, events)
            # CR 510.3-510.4, 115.5: state-based actions, the abilities that triggered on the
            # damage go on the stack, and the active player receives priority
            return _give_priority(Game(state, self.pool), state, state.active)
        if isinstance(action, StateBasedActions):
            return self._state_based_actions()
        if isinstance(action, RemoveFromCombat):
            return _remove_from_combat(self.state, set(action.objects))
        if isinstance(action, NextStep):
            return self._next_step()
        from bridge import stack
        if isinstance(action, Cast):
            return stack.after_cast(self, action, model)
        if isinstance(action, Activate):
            return stack.after_activate(self, action, model)
        if isinstance(action, PlayLand):
            return stack.after_play_land(self, action)
        if isinstance(action, Pass):
            return stack.after_pass(self, action)
        if isinstance(action, ChooseTargets):
            return stack.after_choose_targets(self, action)
        if isinstance(action, Advance):
            return stack.advance(self, action.step, action.turn)
        if isinstance(action, ChooseOrder):
            update = {k: v for k, v in (("replacement_order", action.replacements), ("trigger_order", action.triggers),
                                        ("declines", action.declines), ("trigger_targets", action.trigger_targets),
                                        ("as_enters", action.as_enters), ("source_choices", action.sources))
                      if v is not None}
            players = [p.model_copy(update=update) if p.name == action.by else p for p in self.state.players]
            return GameState.model_validate(self.state.model_copy(update={"players": players}).model_dump())
        if isinstance(action, Concede):
            # CR 104.3a: a player who concedes leaves the game (loses)
            players = [p.model_copy(update={"lost": True, "lost_by": p.lost_by or "104.3a"}) if p.name == action.by else p
                       for p in self.state.players]
            return GameState.model_validate(self.state.model_copy(update={"players": players}).model_dump())
        field = "damage_order"
        return _update_permanents(self.state, {c: {field: list(order)} for c, order in action.orders.items()})

    def _after_attack(self, action: DeclareAttackers, model: frozenset[clingo.Symbol]) -> GameState:
        taps = {s.arguments[1].string for s in model if s.match("taps_to_attack", 2)
                and s.arguments[0] == DECLARED}
        bands = {c: f"band{i}" for i, band in enumerate(action.bands, start=1) for c in band}
        changes: dict[str, dict[str, object]] = {}
        for creature, target in action.attackers.items():
            changes[creature] = {"attacking": target, "attacked_this_turn": True,
                                 "tapped": True if creature in taps else self.state.permanent(creature).tapped}
            if creature in bands:
                changes[creature]["band"] = bands[creature]
        state = _update_permanents(self.state, changes)
        # CR 508.6: whether creatures were declared as attackers decides the steps to come
        state = state.model_copy(update={"declared": [*state.declared, "attackers"],
                                         "attacked_this_combat": state.attacked_this_combat or bool(action.attackers)})
        state = _pay_attack_costs(state, model)
        # CR 508.2a: abilities that trigger on attacking
        from bridge.stack import triggers_on
        events = [f"attacks({asp_string(c)})" for c in action.attackers]
        if len(action.attackers) == 1:  # CR 506.5, 702.80b
            events.append(f"attacks_alone({asp_string(next(iter(action.attackers)))})")
        return triggers_on(self.pool, state, state, events)

    def _after_block(self, action: DeclareBlockers, model: frozenset[clingo.Symbol]) -> GameState:
        result: dict[str, list[str]] = {}
        for s in sorted(model, key=str):
            if s.match("block_result", 3) and s.arguments[0] == DECLARED:
                result.setdefault(s.arguments[1].string, []).append(s.arguments[2].string)
        changes: dict[str, dict[str, object]] = {}
        for blocker, attackers in action.blockers.items():
            extra = [a for a in result.get(blocker, []) if a not in attackers]
            changes[blocker] = {"blocking": list(attackers) + sorted(extra)}
        state = _update_permanents(self.state, changes)
        state = state.model_copy(update={"declared": [*state.declared, "blockers"]})
        # CR 509.4: abilities that trigger on blocking and on becoming blocked
        from bridge.stack import triggers_on
        blocked = sorted({a for attackers in changes.values() for a in attackers["blocking"]})  # type: ignore[union-attr]
        events = [f"blocks({asp_string(b)})" for b in changes] + [f"becomes_blocked({asp_string(a)})" for a in blocked]
        events += [f"blocks_creature({asp_string(b)}, {asp_string(a)})" for b, change in changes.items()
                   for a in change["blocking"]]  # type: ignore[union-attr]
        return triggers_on(self.pool, state, state, events)


# ---------------------------------------------------------------------- declarations as facts
def _block_facts(action: DeclareBlockers) -> list[str]:
    return [f"declared_block({asp_string(b)}, {asp_string(a)})." for b, attackers in action.blockers.items()
            for a in attackers]


def _attack_facts(action: DeclareAttackers) -> list[str]:
    facts = [f"declared_attack({asp_string(c)}, {asp_string(t)})." for c, t in action.attackers.items()]
    for i, band in enumerate(action.bands, start=1):
        facts += [f"declared_band({asp_string(c)}, {asp_string(f'band{i}')})." for c in band]
    return facts


def _modules(game: Game, kind: str) -> tuple[str, ...]:
    return game.modules(*(ATTACK if kind == "attack" else BLOCK), pt=False)


def _search_parts(kind: str, mode: str) -> list[tuple[str, tuple[object, ...]]]:
    """The search world, its generation and the mode: ``always`` or ``max``."""
    return [(kind, (SEARCH,)), (f"{kind}_search", ()), (f"{kind}_search_{mode}", ())]


def _check_fresh_model(game: Game, kind: str, facts: list[str], results: bool = False) -> frozenset[clingo.Symbol]:
    """One declaration on a fresh grounding.  The declared world is grounded and solved
    first; only when it leaves unobeyed a requirement some declaration could obey is the
    search for a better declaration grounded with it and solved."""
    modules = _modules(game, kind)[:-1] + ((f"combat/{kind}_results",) if results else ())
    position = game.position.facts + "\n" + "\n".join(facts)
    model = Session(modules, position, [(kind, (DECLARED,))]).solve().model
    needed = clingo.Function(f"{kind}_search_needed", [DECLARED])
    if needed in model:
        model = Session((*modules, _modules(game, kind)[-1]), position,
                        [(kind, (DECLARED,)), *_search_parts(kind, "always"), (f"{kind}_judgement", ()),
                         (f"{kind}_judgement_by_search", ())]).solve().model
    return model


def _check_fresh(game: Game, kind: str, facts: list[str]) -> Verdict:
    """The verdict on one declaration, on a fresh grounding."""
    return game.reader.verdict(_check_fresh_model(game, kind, facts))


class _DeclarationChecker:
    """Many declarations of one kind on one position: the requirement maximum is found once,
    then the position is grounded once with every possible declaration pair as an external
    atom, and each declaration is a solve under assumptions."""

    def __init__(self, game: Game, kind: str) -> None:
        self.game = game
        self.kind = kind
        # CR 508.1d, 509.1c: only the maximum matters; with no requirement to obey, any legal
        # declaration shows it (listing them all is exponential in the creatures)
        search = Session(_modules(game, kind), game.position.facts, _search_parts(kind, "max")).solve(best=True).model
        extra = [f"known_{s}." for s in search if s.match("requirement_max", 2) or s.match("requirement_witness", 1)]
        self._search = search
        # with what a declaration does (combat/*_results), so that the one taken needs no grounding
        self.session = Session((*_modules(game, kind)[:-1], f"combat/{kind}_results"),
                               game.position.facts + "\n" + "\n".join(extra),
                               [(kind, (DECLARED,)), (f"{kind}_externals", ()), (f"{kind}_judgement", ())])
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
        return self.session.solve(literals=[lit if pair in pairs else -lit for pair, lit in self._literals.items()]).model

    def best(self) -> Action:
        """A legal declaration that obeys the most requirements (CR 508.1d, 509.1c): the one
        the maximum search found."""
        legal = LegalBlocks if self.kind == "block" else LegalAttacks
        return legal(self.game)._declaration(self._search)

    def check(self, action: DeclareAttackers | DeclareBlockers) -> Verdict:
        """The verdict on one declaration."""
        model = self.model(action)
        if model is None:
            facts = _block_facts(action) if isinstance(action, DeclareBlockers) else _attack_facts(action)
            return _check_fresh(self.game, self.kind, facts)
        return self.game.reader.verdict(model)


# ---------------------------------------------------------------------- legal declarations
class _LegalDeclarations:
    kind = ""

    def __init__(self, game: Game) -> None:
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
        return self.game.checker(self.kind).check(action).legal  # type: ignore[arg-type]

    def _declaration(self, model: frozenset[clingo.Symbol]) -> Action:
        raise NotImplementedError


class LegalAttacks(_LegalDeclarations):
    """The legal declarations of attackers (CR 508.1): ``in``, iteration, ``len()``."""

    kind = "attack"

    def _declaration(self, model: frozenset[clingo.Symbol]) -> DeclareAttackers:
        attackers = {s.arguments[1].string: s.arguments[2].string for s in model
                     if s.match("attacks", 3) and s.arguments[0] == SEARCH}
        bands: dict[str, list[str]] = {}
        for s in model:
            if s.match("band_member", 3) and s.arguments[0] == SEARCH:
                bands.setdefault(s.arguments[1].string, []).append(s.arguments[2].string)
        return DeclareAttackers(attackers=dict(sorted(attackers.items())),
                                bands=sorted(sorted(b) for b in bands.values() if len(b) > 1))


class LegalBlocks(_LegalDeclarations):
    """The legal declarations of blockers (CR 509.1): ``in``, iteration, ``len()``."""

    kind = "block"

    def _declaration(self, model: frozenset[clingo.Symbol]) -> DeclareBlockers:
        blocks: dict[str, list[str]] = {}
        for s in model:
            if s.match("blocks", 3) and s.arguments[0] == SEARCH:
                blocks.setdefault(s.arguments[1].string, []).append(s.arguments[2].string)
        return DeclareBlockers(blockers={b: sorted(a) for b, a in sorted(blocks.items())})


# ---------------------------------------------------------------------- state updates
def damage_events(model: frozenset[clingo.Symbol], players: "frozenset[str] | set[str]" = frozenset()) -> list[str]:
    """CR 119.2, 603.2: the damage dealt, as trigger events: each permanent or player dealt
    damage (the total), each source that dealt damage (the total), with the amounts."""
    dealt_to: dict[str, int] = {}
    dealt_by: dict[str, int] = {}
    for s in model:
        if s.match("damage_event", 3):
            src, to, n = s.arguments[0].string, s.arguments[1].string, s.arguments[2].number
            dealt_to[to] = dealt_to.get(to, 0) + n
            dealt_by[src] = dealt_by.get(src, 0) + n
    to_players = sorted(f"deals_damage_to({asp_string(s.arguments[0].string)}, {asp_string(s.arguments[1].string)})"
                        for s in model if s.match("damage_event", 3) and s.arguments[1].string in players)
    return [*(f"is_dealt_damage({asp_string(x)}, {n})" for x, n in sorted(dealt_to.items())),
            *(f"deals_damage({asp_string(x)}, {n})" for x, n in sorted(dealt_by.items())), *to_players]


def lifelink_events(model: frozenset[clingo.Symbol], replaced: set[str]) -> list[str]:
    """CR 702.13a, 118.4: life gained through lifelink, one event for each source, with the
    amount (614.6: none when the gain was replaced)."""
    dealt: dict[str, int] = {}
    for s in model:
        if s.match("damage_event", 3):
            dealt[s.arguments[0].string] = dealt.get(s.arguments[0].string, 0) + s.arguments[2].number
    return sorted(f"gains_life({asp_string(s.arguments[0].string)}, {asp_string(s.arguments[1].string)}, "
                  f"{dealt.get(s.arguments[1].string, 0)})"
                  for s in model if s.match("life_gained_from", 2) and s.arguments[0].string not in replaced)


def _tapping_triggers(game: Game, before: GameState, after: GameState) -> GameState:
    """CR 603.2d: an untapped permanent that became tapped (not one that entered tapped)
    triggers "whenever ... becomes tapped"; the abilities go on the stack when a player
    would next receive priority, at once if one has it now."""
    if "becomes_tapped)" not in game.position.facts:
        return after
    untapped = {p.id for p in before.permanents() if not p.tapped}
    events = [f"becomes_tapped({asp_string(p.id or '')})" for p in after.permanents() if p.tapped and p.id in untapped]
    if not events:
        return after
    from bridge.stack import _give_priority, triggers_on
    after = triggers_on(game.pool, after, after, events)
    if after.pending_triggers and after.priority is not None:
        after = _give_priority(Game(after, game.pool), after, after.priority)
    return after


def _delayed_event_triggers(game: Game, before: GameState, after: GameState) -> GameState:
    """CR 603.7a-b: what happened in this action to the permanents delayed triggered abilities
    wait on (one left the battlefield, or became untapped), and the abilities that trigger on
    it, as the rules say (stack/delayed.lp); they go on the stack when a player would next
    receive priority, at once if one has it now."""
    waiting = [d for d in after.delayed_triggers if d.watch is not None]
    if not waiting:
        return after
    was = {p.id: p for p in before.permanents()}
    now = {p.id: p for p in after.permanents()}
    events = []
    for watched in sorted({d.watch for d in waiting if d.watch is not None}):
        if watched not in now:
            events.append(f"event(leaves({asp_string(watched)})).")
        elif watched in was and was[watched].tapped and not now[watched].tapped:
            events.append(f"event(becomes_untapped({asp_string(watched)})).")
    if not events:
        return after
    old = {d.id for d in before.delayed_triggers}
    facts = delayed_facts(waiting, new={d.id or "" for d in waiting if d.id not in old})
    model = answer(("inputs", "stack/delayed"), "\n".join([*facts, *events])).model
    fired = {s.arguments[0].string for s in model if s.match("delayed_triggers", 1)}
    if not fired:
        return after
    from bridge.stack import _give_priority
    after = after.model_copy(update={
        "delayed_triggers": [d for d in after.delayed_triggers if d.id not in fired],
        "pending_triggers": [*after.pending_triggers, *(d for d in after.delayed_triggers if d.id in fired)]})
    if after.priority is not None:
        after = _give_priority(Game(after, game.pool), after, after.priority)
    return after


# Fields of a permanent that hold plain values: changing only these needs no revalidation of
# the state (no object appears or moves).
_PLAIN_PERMANENT_FIELDS = frozenset({
    "tapped", "sick", "seen_controller", "damage", "attacking", "blocking", "blocked", "band", "damage_order", "struck_first",
    "removed_from_combat", "prevention_shield", "regeneration_shields", "must_block", "attacked_this_turn",
    "deathtouch_damage", "frozen", "prevent_next_from"})


def _update_permanents(state: GameState, changes: Mapping[str, Mapping[str, object]]) -> GameState:
    players = []
    for player in state.players:
        battlefield = [p.model_copy(update=dict(changes[p.id])) if p.id in changes else p
                       for p in player.battlefield]
        players.append(player.model_copy(update={"battlefield": battlefield}))
    updated = state.model_copy(update={"players": players})
    if all(_PLAIN_PERMANENT_FIELDS.issuperset(c) for c in changes.values()):
        return updated
    return GameState.model_validate(updated.model_dump())


def _deal_damage(state: GameState, model: frozenset[clingo.Symbol], pool: CardPool | None = None
                 ) -> tuple[GameState, set[str]]:
    """CR 510.2, 118.3: apply the results of the damage the rules computed; life gained through
    lifelink may be replaced (614.1a), and so may damage to a player (Nefarious Lich). Returns
    the state and the players whose life gain was replaced."""
    from bridge.replacement import exile_from_graveyard_instead, gain_or_draw
    def amounts(name: str) -> dict[str, int]:
        return {s.arguments[0].string: s.arguments[1].number for s in model if s.match(name, 2)}
    marked, wither, loyalty = amounts("damage_marked"), amounts("wither_counters"), amounts("loyalty_after")
    lost, gained = amounts("life_lost"), amounts("life_gained")
    shields = amounts("shield_left")
    # CR 615.8: a "next time this source would deal damage" effect is used up
    used: dict[str, set[str]] = {}
    for s in model:
        if s.match("prevent_next_used", 2):
            used.setdefault(s.arguments[0].string, set()).add(s.arguments[1].string)
    deathtouched = {s.arguments[0].string for s in model if s.match("deathtouch_damaged", 1)}
    struck_first = {s.arguments[0].string for s in model if s.match("marks_struck_first", 1)}
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        update: dict[str, object] = {}
        if perm.id in marked:
            update["damage"] = perm.damage + marked[perm.id]
        if perm.id in deathtouched:
            update["deathtouch_damage"] = True
        if perm.id in struck_first:
            update["struck_first"] = True
        if perm.id in shields:
            update["prevention_shield"] = shields[perm.id]
        if perm.id in used:
            update["prevent_next_from"] = [s for s in perm.prevent_next_from if s not in used[perm.id]]
        counters = dict(perm.counters)
        if perm.id in wither:
            counters["-1/-1"] = counters.get("-1/-1", 0) + wither[perm.id]
        if perm.id in loyalty:
            counters["loyalty"] = max(loyalty[perm.id], 0)
        if counters != perm.counters:
            update["counters"] = counters
        if update:
            changes[perm.id] = update
    state = _update_permanents(state, changes)
    players = [p.model_copy(update={"life": p.life - lost.get(p.name, 0),
                                    "prevention_shield": shields.get(p.name, p.prevention_shield),
                                    "prevent_next_from": [s for s in p.prevent_next_from
                                                          if s not in used.get(p.name, set())]})
               for p in state.players]
    state = state.model_copy(update={"players": players})
    state = exile_from_graveyard_instead(state, amounts("graveyard_exile_instead"), pool,
                                         unable={s.arguments[0].string for s in model
                                                 if s.match("graveyard_exile_impossible", 1)})
    state, replaced = gain_or_draw(pool, state, gained) if pool is not None else (
        state.model_copy(update={"players": [p.model_copy(update={"life": p.life + gained.get(p.name, 0)})
                                             for p in state.players]}), set())
    return GameState.model_validate(state.model_copy(update={"combat_damage_dealt": True})
                                    .model_dump()), replaced


def _control_changes(state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 302.6: the permanents the rules show under another controller than the game saw
    last (``control_changed``, turn/control.lp) haven't been under their new controller's
    control since his or her most recent turn began: they are sick, and the controller seen
    is recorded (as a turn begins, the rules then say which of them start again)."""
    changed = {s.arguments[0].string: s.arguments[1].string for s in model if s.match("control_changed", 2)}
    if not changed:
        return state
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        if perm.id in changed:
            seen = changed[perm.id]
            listed = state.controller_of(perm)
            changes[perm.id] = {"sick": True, "seen_controller": None if seen == listed else seen}
    return _update_permanents(state, changes)


def _remove_from_combat(state: GameState, removed: set[str]) -> GameState:
    """CR 506.4: the permanents stop being attacking, blocking, blocked or unblocked (and
    leave their bands, 702.19f); a planeswalker stops being attacked (506.4c).  An attacker
    whose blockers are removed stays blocked (509.1h); a blocker whose attackers are removed
    stays on the battlefield blocking nothing."""
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        change: dict[str, object] = {}
        if perm.id in removed:
            change.update(attacking=None, blocking=[], band=None, blocked=False, damage_order=[],
                          struck_first=False, removed_from_combat=perm.removed_from_combat or _attacked(state, perm.id))
        else:
            if perm.attacking is not None and any(perm.id in b.blocking for b in state.permanents()):
                change["blocked"] = True
            if set(perm.blocking) & removed:
                change["blocking"] = [a for a in perm.blocking if a not in removed]
            if set(perm.damage_order) & removed:
                change["damage_order"] = [x for x in perm.damage_order if x not in removed]
        if change:
            changes[perm.id] = change  # type: ignore[index]
    return _update_permanents(state, changes)


def apply_regeneration(state: GameState, model: Iterable[clingo.Symbol]) -> GameState:
    """CR 701.11a: regenerate the permanents the rules regenerate, with the changes they show
    (``regeneration/2``): a shield used, all damage removed (and with it the deathtouch damage
    of 704.5h), tapped, removed from combat (506.4)."""
    changes: dict[str, dict[str, object]] = {}
    removed: set[str] = set()
    for s in model:
        if not s.match("regeneration", 2):
            continue
        oid, what = s.arguments[0].string, s.arguments[1].name
        change = changes.setdefault(oid, {})
        if what == "use_shield":
            change["regeneration_shields"] = state.permanent(oid).regeneration_shields - 1
        elif what == "remove_damage":
            change.update(damage=0, deathtouch_damage=False)
        elif what == "tap":
            change["tapped"] = True
        elif what == "remove_from_combat":
            removed.add(oid)
        else:
            raise RuleModuleError(f"the rules show a change of regeneration the bridge doesn't know: {what}")
    return _remove_from_combat(_update_permanents(state, changes), removed)


def _attacked(state: GameState, object_id: str) -> bool:
    return any(p.attacking == object_id for p in state.permanents())


def _apply_sba(state: GameState, actions: list[clingo.Symbol], instead: Mapping[str, str] | None = None,
               pool: CardPool | None = None, model: Iterable[clingo.Symbol] = ()) -> GameState:
    """Perform state-based actions simultaneously (CR 704.3): the rules chose them; a card
    going to a graveyard goes where ``instead`` says, if it says (614.1a); a creature
    regenerated changes as ``model`` shows (701.11a)."""
    instead = instead or {}
    leaving: set[str] = set()
    ceasing: set[str] = set()
    updates: dict[str, dict[str, object]] = {}
    if any(a.name == "regenerate" for a in actions):
        state = apply_regeneration(state, model)
    losers: set[str] = set()
    restarting: set[str] = set()
    for a in actions:
        target = a.arguments[0].string
        if a.name == "loses":
            losers.add(target)
        elif a.name == "restart":
            restarting.add(target)
        elif a.name in ("to_graveyard", "destroy"):
            leaving.add(target)
        elif a.name == "cease_to_exist":
            ceasing.add(target)
        elif a.name == "unattach":
            updates.setdefault(target, {})["attached_to"] = None
        elif a.name in ("cancel_counters", "remove_counters"):
            perm = state.permanent(target)
            counters = dict(perm.counters)
            if a.name == "cancel_counters":
                n = a.arguments[1].number
                counters["+1/+1"] -= n
                counters["-1/-1"] -= n
            else:
                counters[a.arguments[1].string] = a.arguments[2].number
            updates.setdefault(target, {})["counters"] = {k: v for k, v in counters.items() if v}
    # CR 506.4: what leaves the battlefield is removed from combat
    state = _remove_from_combat(state, leaving)
    gone = {p.id for p in state.permanents() if p.id in leaving and p.token} | ceasing
    gone_ids = [*state.gone, *sorted(g for g in gone if g)]
    players = []
    for player in state.players:
        battlefield, graveyard = [], list(player.graveyard)
        elsewhere: dict[str, list[CardRef]] = {"exile": list(player.exile), "library": list(player.library)}
        for perm in player.battlefield:
            if perm.id in leaving:
                if not perm.token:  # CR 704.5d: a token that has left the battlefield ceases to exist
                    where = instead.get(perm.id or "", "graveyard")
                    (graveyard if where == "graveyard" else elsewhere[where]).append(CardRef(id=perm.id, card=perm.card))
                continue
            if perm.id in ceasing:  # CR 704.5d: a phased-out token
                continue
            change = dict(updates.get(perm.id, {}))
            if perm.attached_to in leaving:
                change["attached_to"] = None
            # CR 506.4c: a creature attacking a planeswalker that left attacks nothing
            if perm.attacking in gone:
                change["attacking"] = None
                change["blocked"] = False
            # CR 704.5h: deathtouch damage counts only until this check
            change.setdefault("deathtouch_damage", False)
            battlefield.append(perm.model_copy(update=change))
        zones = {zone: [o for o in (elsewhere[zone] if zone in elsewhere else getattr(player, zone))
                        if o.id not in ceasing] for zone in ("library", "hand", "exile")}
        graveyard = [o for o in graveyard if o.id not in ceasing]
        players.append(player.model_copy(update={"battlefield": battlefield, "graveyard": graveyard, **zones,
                                                 "lost": player.lost or player.name in losers}))
    effects = []
    for effect in state.effects:
        targets = [t for t in effect.targets if t not in leaving]
        if effect.targets and not targets:
            continue
        effects.append(effect.model_copy(update={"targets": targets}))
    state = GameState.model_validate(state.model_copy(update={"players": players, "effects": effects,
                                                              "gone": gone_ids}).model_dump())
    for name in sorted(restarting):
        state = _restart(state, name, pool)
    from bridge.stack import shuffle
    for owner in sorted({p.name for p in state.players for oid, where in instead.items()
                         if where == "library" and any(c.id == oid for c in p.library)}):
        state = shuffle(state, owner)
    return state


def _restart(state: GameState, name: str, pool: CardPool | None = None) -> GameState:
    """Lich's Mirror's replacement (CR 614.1, 704.6): the player's hand, graveyard and the
    permanents the player owns are shuffled into the library, the player draws seven cards and
    the life total becomes 20; with a card pool, what leaves the battlefield triggers."""
    from bridge.stack import draw, leaving_events, shuffle, triggers_on
    before = state
    owned = [p for p in state.player(name).battlefield if not p.token]
    state = _remove_from_combat(state, {p.id for p in owned if p.id})
    gone = {p.id for p in state.player(name).battlefield}
    players = []
    for player in state.players:
        if player.name == name:
            cards = [*player.hand, *player.graveyard, *(CardRef(id=p.id, card=p.card) for p in owned)]
            player = player.model_copy(update={
                "library": [*player.library, *cards], "hand": [], "graveyard": [], "battlefield": [],
                "life": 20, "drew_from_empty_library": False})
        else:
            player = player.model_copy(update={"battlefield": [
                p.model_copy(update={"attached_to": None}) if p.attached_to in gone else p
                for p in player.battlefield]})
        players.append(player)
    state = GameState.model_validate(state.model_copy(update={"players": players}).model_dump())
    state = shuffle(state, name)
    state = draw(state, name, 7, pool)
    if pool is None:
        return state
    return triggers_on(pool, before, state, leaving_events(before, {p.id or "": "library" for p in owned}))


def _pay_attack_costs(state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 508.1g-i: pay the locked-in total from the mana pool, then by tapping untapped mana
    sources in the order they are listed (the engine's default choice of sources)."""
    owed = 0
    active = state.active
    for s in model:
        if s.match("attack_cost_total", 2) and s.arguments[0] == DECLARED:
            owed = s.arguments[1].number
    if not owed:
        return state
    player: Player = state.player(active)
    pool = player.mana_pool
    symbols = [pool[i:i + 3] for i in range(0, len(pool), 3)]
    from_pool = min(owed, len(symbols))
    owed -= from_pool
    sources = {s.arguments[1].string for s in model if s.match("usable_source", 2) and s.arguments[0] == DECLARED}
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        if owed and perm.id in sources:
            changes[perm.id] = {"tapped": True}
            owed -= 1
    state = _update_permanents(state, changes)
    players = [p.model_copy(update={"mana_pool": "".join(symbols[from_pool:])}) if p.name == active else p
               for p in state.players]
    return GameState.model_validate(state.model_copy(update={"players": players}).model_dump())

