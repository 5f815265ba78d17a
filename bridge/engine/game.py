"""The game: a position with the rules as the judge, and the actions applied to it.

Shaped like python-chess's ``Board``: a :class:`Game` holds a frozen
:class:`~bridge.model.state.GameState`; ``game.legal_attacks`` and ``game.legal_blocks`` are lazy
views that support ``in``, iteration and ``len()``; ``game.check(action)`` returns a
:class:`~bridge.engine.verdict.Verdict`; ``game.push(action)`` applies a legal action and raises
:class:`~bridge.model.errors.IllegalActionError` for an illegal one; ``game.pop()`` takes it back.
The questions are :class:`~bridge.engine.board.Board`'s; what each action does is the work of
the modules under it (:mod:`bridge.engine.combat`, :mod:`bridge.engine.casting`, ...).

>>> game = Game.from_scenario("scenarios/combat/block/lure_all_able_must_block.yaml")
>>> game.check(DeclareBlockers(blockers={"elves": "wurm"})).legal
False
"""

from __future__ import annotations

from collections.abc import Mapping

import clingo
from pydantic import TypeAdapter, ValidationError

from bridge.engine.acting import (
    awaiting_flow_violation,
    check_activate,
    check_answer_offer,
    check_cast,
    check_choose_targets,
    check_pass,
    check_play_land,
    check_turn_face_up,
)
from bridge.engine.board import Board, partial_cards
from bridge.engine.casting import (
    advance,
    after_activate,
    after_answer_offer,
    after_cast,
    after_choose_targets,
    after_pass,
    after_play_land,
    after_turn_face_up,
)
from bridge.engine.combat import after_assignment, after_declaration, after_orders, judge_damage, judge_declaration
from bridge.engine.priority import after_action
from bridge.engine.sba import perform_state_based_actions
from bridge.engine.turn import next_step
from bridge.engine.updates import remove_from_combat, updated
from bridge.engine.verdict import Verdict
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
from bridge.model.errors import IllegalActionError, InputError, MtgaspError
from bridge.model.reading import validation_problem
from bridge.model.state import GameState


class Game(Board):
    """A two-player game at some position, with the rules as the judge: a :class:`Board` that
    applies legal actions (``push``), takes them back (``pop``) and keeps the log."""

    def __init__(self, state: GameState, pool: CardPool | None = None) -> None:
        self._history: list[GameState] = []
        self.start = state
        self.log: list[Action] = []
        super().__init__(state, pool)

    def _check_flow(
        self, action: Cast | Activate | PlayLand | Pass | ChooseTargets | TurnFaceUp | AnswerOffer
    ) -> tuple[Verdict, frozenset[clingo.Symbol]]:
        key = f"{action.kind}:{action.model_dump_json()}"
        known = self._flow_verdicts.get(key)
        if known is None:
            known = self._flow_verdicts[key] = self._judge_flow(action)
        return known

    def _judge_flow(
        self, action: Cast | Activate | PlayLand | Pass | ChooseTargets | TurnFaceUp | AnswerOffer
    ) -> tuple[Verdict, frozenset[clingo.Symbol]]:
        if isinstance(action, ChooseTargets):
            return check_choose_targets(self, action)
        if isinstance(action, AnswerOffer):
            return check_answer_offer(self, action)
        waiting = awaiting_flow_violation(self)
        if waiting is not None:
            return waiting, frozenset()
        if isinstance(action, Cast):
            return check_cast(self, action)
        if isinstance(action, Activate):
            return check_activate(self, action)
        if isinstance(action, PlayLand):
            return check_play_land(self, action)
        if isinstance(action, TurnFaceUp):
            return check_turn_face_up(self, action)
        return check_pass(self, action), frozenset()

    def push(self, action: Action) -> Verdict:
        """Apply a legal action; raise :class:`IllegalActionError` for an illegal one."""
        return self._push(action)

    def _push(self, action: Action) -> Verdict:
        if isinstance(action, AssignDamage):
            verdict, model = judge_damage(self, action)
        elif isinstance(action, (DeclareAttackers, DeclareBlockers)):
            verdict, model = judge_declaration(self, action)
        elif isinstance(action, (Cast, Activate, PlayLand, Pass, ChooseTargets, TurnFaceUp, AnswerOffer)):
            verdict, model = self._check_flow(action)
        else:
            model = frozenset()
            verdict = self.check(action)
        if not verdict.legal:
            raise IllegalActionError(verdict)
        self._history.append(self.state)
        before = self.state
        try:
            after = after_action(self, before, self._after(action, model))
            if after.simultaneous_triggers:
                # CR 603.3b: the choice of order is that moment's: another action lets the
                # abilities stand in the order they were put (and abilities that left the stack
                # on the way have no order to choose)
                was = {} if isinstance(action, OrderTriggers) else before.simultaneous_triggers
                on_stack = {item.id for item in after.stack}
                open_now = {
                    p: ids
                    for p, ids in after.simultaneous_triggers.items()
                    if was.get(p) != ids and on_stack.issuperset(ids)
                }
                if open_now != after.simultaneous_triggers:
                    after = updated(after, simultaneous_triggers=open_now)
            self._set_state(after)
        except BaseException:  # a limit or an interrupt on the way: the game stays as it was
            self._set_state(self._history.pop())
            raise
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

    def game_log(self) -> dict[str, object]:
        """The starting position and every action applied since, enough to replay the game."""
        return {
            "state": self.start.model_dump(mode="json", exclude_defaults=True),
            "actions": [a.model_dump(mode="json", exclude_defaults=True) | {"kind": a.kind} for a in self.log],
        }

    @classmethod
    def replay(cls, log: Mapping[str, object], pool: CardPool | None = None) -> Game:
        """A game that replays a log written by :meth:`game_log`."""
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
                raise InputError(
                    f"the log's action {number} can't be replayed: {exc}", location=f"actions[{number}]"
                ) from None
        return game

    def _after(self, action: Action, model: frozenset[clingo.Symbol]) -> GameState:
        """The position a legal action leads to (``model``: the rules' answer that judged it)."""
        if isinstance(action, (DeclareAttackers, DeclareBlockers)):
            return after_declaration(self, action, model)
        if isinstance(action, AssignDamage):
            return after_assignment(self, action, model)
        if isinstance(action, StateBasedActions):
            return perform_state_based_actions(self)
        if isinstance(action, RemoveFromCombat):
            return remove_from_combat(self.state, set(action.objects))
        if isinstance(action, NextStep):
            return next_step(self)
        if isinstance(action, Cast):
            return after_cast(self, action, model)
        if isinstance(action, Activate):
            return after_activate(self, action, model)
        if isinstance(action, PlayLand):
            return after_play_land(self, action)
        if isinstance(action, TurnFaceUp):
            return after_turn_face_up(self, action, model)
        if isinstance(action, Pass):
            return after_pass(self, action)
        if isinstance(action, ChooseTargets):
            return after_choose_targets(self, action)
        if isinstance(action, AnswerOffer):
            return after_answer_offer(self, action, model)
        if isinstance(action, Advance):
            return advance(self, action.step, action.turn)
        if isinstance(action, ChooseOrder):
            update = {
                k: v
                for k, v in (
                    ("replacement_order", action.replacements),
                    ("trigger_order", action.triggers),
                    ("declines", action.declines),
                    ("trigger_targets", action.trigger_targets),
                    ("trigger_modes", action.trigger_modes),
                    ("as_enters", action.as_enters),
                    ("source_choices", action.sources),
                    ("timestamp_order", action.timestamps),
                    ("discard_order", action.discards),
                    ("sacrifice_order", action.sacrifices),
                    ("exile_order", action.exiles),
                    ("picks", action.picks),
                    ("unfound", action.unfound),
                )
                if v is not None
            }
            players = [p.model_copy(update=update) if p.name == action.by else p for p in self.state.players]
            return GameState.model_validate(self.state.model_copy(update={"players": players}).model_dump())
        if isinstance(action, OrderTriggers):
            return _reordered(self.state, action)
        if isinstance(action, Concede):
            # CR 104.3a: a player who concedes leaves the game (loses)
            players = [
                p.model_copy(update={"lost": True, "lost_by": p.lost_by or "104.3a"}) if p.name == action.by else p
                for p in self.state.players
            ]
            return GameState.model_validate(self.state.model_copy(update={"players": players}).model_dump())
        assert isinstance(action, (OrderBlockers, OrderAttackers))
        return after_orders(self.state, action)


def _reordered(state: GameState, action: OrderTriggers) -> GameState:
    """CR 603.3b: the player's abilities put on the stack together stand in the order chosen
    (the first put lowest); the player's choice is made."""
    chosen = set(action.order)
    places = [i for i, item in enumerate(state.stack) if item.id in chosen]  # top first
    items = {item.id: item for item in state.stack if item.id in chosen}
    stack = list(state.stack)
    for place, x in zip(places, reversed(action.order), strict=True):
        stack[place] = items[x]
    open_now = {p: ids for p, ids in state.simultaneous_triggers.items() if p != action.by}
    return updated(state, stack=stack, simultaneous_triggers=open_now)
