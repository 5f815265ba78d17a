"""The turn: a step ends and the next begins (500.2-500.5) as the rules say (asp_rules/turn/):
which step comes next (skipped steps passed over), what ends with a step or a turn, whose
turn comes next (extra and skipped turns), the turn-based actions as a step begins (703), the
abilities that trigger then, and priority, or, in a step without it, the next step at once.
A step's turn-based action still to be done (a declaration, combat damage) is done first,
by its default, when a player passes (115.2c).
"""

from __future__ import annotations

import clingo

from bridge.engine.board import Board, priority_now
from bridge.engine.combat import (
    after_damage,
    after_declaration,
    after_orders,
    judge_damage,
    judge_declaration,
    order_choices,
)
from bridge.engine.moves import discard_by_choice, draw
from bridge.engine.priority import after_action, give_priority
from bridge.engine.sba import perform_state_based_actions, record_control_changes
from bridge.engine.solver import atoms
from bridge.engine.triggers import triggers_on
from bridge.engine.updates import OUT_OF_COMBAT, update_permanents, updated
from bridge.model.actions import AssignDamage, DeclareAttackers, DeclareBlockers
from bridge.model.errors import IllegalActionError
from bridge.model.state import GameState


def end_step(game: Board) -> GameState:
    """CR 500.2-500.5: the step ends and the next begins.  The rules say which step comes next
    (skipped steps passed over), what changes as this one ends and, after the cleanup step,
    whose turn begins and which records of the turn start again."""
    state = game.state
    model = game._steps_model(state)
    step = next(s.arguments[0].name for s in atoms(model, "next_step", 1))
    return begin_step(game, _step_ends(state, model), step)


def _step_ends(state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """Apply what the rules show changing as the step ends (``step_ends``, 500.4, 500.8,
    511.3) and, when a new turn begins, who takes it and what starts again (``next_turn``,
    500.7, 614.10, 302.6)."""
    ends = [s.arguments[0] for s in atoms(model, "step_ends", 1)]
    if any(c.match("empty_mana_pools", 0) for c in ends) and any(p.mana_pool for p in state.players):
        state = updated(state, players=[p.model_copy(update={"mana_pool": ""}) for p in state.players])
    removed = {c.arguments[0].string for c in ends if c.match("remove_from_combat", 1)}
    if removed:
        state = update_permanents(state, {o: OUT_OF_COMBAT for o in removed})
    if any(c.match("end_combat_phase", 0) for c in ends):
        state = updated(state, declared=[], attacked_this_combat=False)
    if any(c.match("use_extra_combat", 0) for c in ends):
        state = updated(state, extra_combats=state.extra_combats - 1)
    # CR 500.9: the added step the rules say comes next is used; it is an added step
    added = any(c.match("use_added_step", 0) for c in ends)
    if added or state.in_added_step:
        state = updated(state, added_steps=state.added_steps[1:] if added else state.added_steps, in_added_step=added)
    turn = next((s for s in atoms(model, "next_turn", 2)), None)
    return state if turn is None else _new_turn(state, model, turn)


def _new_turn(state: GameState, model: frozenset[clingo.Symbol], turn: clingo.Symbol) -> GameState:
    """The turn the rules show begins (turn number and player), with the extra turns it used
    and the turns skipped on the way (500.7, 614.10), and the records they reset."""
    used = {s.arguments[0].number for s in atoms(model, "extra_turn_used", 1)}
    # extra_turn(K, P) is the K-th extra turn created; the state lists the most recent first
    count = len(state.extra_turns)
    extra = [p for i, p in enumerate(state.extra_turns) if count - i not in used]
    skipped = {s.arguments[0].string: s.arguments[1].number for s in atoms(model, "turns_skipped", 2)}
    resumes = next((s.arguments[0].string for s in atoms(model, "next_turn_order_resumes", 1)), None)
    # CR 302.6: control that changed since the game last looked (an effect that ended in the
    # cleanup step) is recorded first; the new active player's permanents then start again
    state = record_control_changes(state, model)
    player_fields: dict[str, dict[str, object]] = {p.name: {} for p in state.players}
    permanents: dict[str, dict[str, object]] = {}
    fields: dict[str, object] = {}
    for s in atoms(model, "new_turn_resets", 1):
        what = s.arguments[0]
        if what.match("lands_played", 1) or what.match("drawn_this_turn", 1):
            player_fields[what.arguments[0].string][what.name] = 0
        elif what.match("activated_this_turn", 0):
            fields["activated_this_turn"] = []
        elif what.match("extra_combats", 0):
            fields["extra_combats"] = 0
        elif what.match("attacked_this_turn", 1) or what.match("sick", 1):
            permanents.setdefault(what.arguments[0].string, {})[what.name] = False
    # CR 614.10b: a permanent that skipped its controller's turn untaps, the first thing in the
    # turn taken
    for s in atoms(model, "next_turn_untaps", 1):
        permanents.setdefault(s.arguments[0].string, {})["tapped"] = False
    players = [
        p.model_copy(update={**player_fields[p.name], "skip_turns": p.skip_turns - skipped.get(p.name, 0)})
        for p in state.players
    ]
    state = updated(
        state,
        turn=turn.arguments[0].number,
        active=turn.arguments[1].string,
        players=players,
        extra_turns=extra,
        after_extra_turns=resumes,
        **fields,
    )
    return update_permanents(state, permanents)


def begin_step(game: Board, state: GameState, step: str) -> GameState:
    """The step begins: its turn-based actions (703), the abilities that trigger as it begins,
    then priority (115.3a) -- unless the rules say that a turn-based action awaits a player's
    declaration or combat damage first (508.1, 509.1, 510.1), or that no player receives
    priority in this step (502.3, 514.3): then, after the check of 514.3a where the rules ask
    for it, the step ends."""
    # the records of the step that ended: who passed, priority, combat damage dealt in it
    state = updated(
        state,
        step=step,
        passed=[],
        priority=None,
        combat_damage_dealt=False,
        cleanup_again=False,
        announced_damage=None,
        announced_prevention=None,
    )
    g = Board(state, game.pool)
    model = g._sba_model()
    state = _turn_based_actions(g, state, model)
    # CR 500.6, 503.1, 504.2, 513.1: abilities that trigger "at the beginning of" the step (in
    # the draw step after the draw)
    state = triggers_on(game.pool, state, state, [f"step_begins({step})"])
    due = {s.arguments[0].string for s in atoms(model, "delayed_triggers", 1)}
    if due:
        # CR 603.7b: the delayed triggered abilities whose moment this is trigger, once
        state = updated(
            state,
            delayed_triggers=[d for d in state.delayed_triggers if d.id not in due],
            pending_triggers=[*state.pending_triggers, *(d for d in state.delayed_triggers if d.id in due)],
        )
    receives, pending = priority_now(g)
    if pending:
        return state  # CR 115.2c: a declaration or combat damage first; then priority
    if receives:
        return give_priority(g, state, state.active)
    if atoms(model, "state_check_before_ending", 0):
        # CR 514.3a: state-based actions that would be performed are, and abilities waiting
        # go on the stack; when any did, the rules give players priority here
        after = perform_state_based_actions(Board(state, game.pool))
        if after != state or after.pending_triggers:
            after = updated(after, cleanup_again=True)
            again = Board(after, game.pool)
            if priority_now(again)[0]:
                return give_priority(again, after, after.active)
        state = after
    return end_step(Board(state, game.pool))


def _turn_based_actions(game: Board, state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """Apply the turn-based actions the rules show as the step begins (703.4)."""
    changes: dict[str, dict[str, object]] = {}
    ended: set[int] = set()
    shields: dict[str, dict[str, object]] = {}
    for s in atoms(model, "tba", 1):
        action = s.arguments[0]
        if action.match("end_effect", 1):
            ended.add(int(action.arguments[0].name[1:]) - 1)  # effect e<k> is the k-th of the state
            continue
        if action.match("end_combat_damage_prevention", 0):
            state = updated(state, combat_damage_prevented=False)
            continue
        if action.match("end_block_costs", 0):
            state = updated(state, block_costs=[])
            continue
        target = action.arguments[0].string
        if action.name == "untap":
            changes.setdefault(target, {})["tapped"] = False
        elif action.name == "thaw":
            changes.setdefault(target, {})["frozen"] = False
        elif action.name in ("phase_out", "phase_out_indirectly"):
            changes.setdefault(target, {}).update(
                phased_out=True, phased_out_indirectly=action.name == "phase_out_indirectly"
            )
        elif action.name == "phase_in":
            changes.setdefault(target, {}).update(phased_out=False, phased_out_indirectly=False)
        elif action.name == "remove_damage":
            changes.setdefault(target, {})["damage"] = 0
        elif action.name == "mark_struck_first":
            changes.setdefault(target, {})["struck_first"] = True
        elif action.name == "end_this_turn":
            # CR 514.2: what is left of a shield or restriction for this turn ends
            shields.setdefault(target, {})[action.arguments[1].name] = _THIS_TURN_ENDED[action.arguments[1].name]
        elif action.name == "draw":
            state = draw(state, target, 1, game.pool)
        elif action.name == "discard_to":
            # CR 514.1: the cards the player stated first, then the default: the cards listed last
            n = len(state.player(target).hand) - action.arguments[1].number
            state = discard_by_choice(state, target, n, game.pool)
    if ended:
        state = updated(state, effects=[e for k, e in enumerate(state.effects) if k not in ended])
    players = {p.name for p in state.players}
    if any(x in players for x in shields):
        state = updated(
            state, players=[p.model_copy(update=shields[p.name]) if p.name in shields else p for p in state.players]
        )
    for x, fields in shields.items():
        if x not in players:
            changes.setdefault(x, {}).update(fields)
    return update_permanents(state, changes)


# CR 514.2: the value of a record of this turn once it has ended (the state's field names).
_THIS_TURN_ENDED: dict[str, object] = {
    "prevention_shield": 0,
    "regeneration_shields": 0,
    "must_block": [],
    "prevent_next_from": [],
    "prevent_next_from_quality": {},
    "prevent_next_from_gains": [],
    "cant_cast_spells": False,
    "damage_prevented": False,
    "takes_entering_creatures": False,
}


def turn_based_action_first(game: Board) -> Board:
    """CR 115.2c, 703.3: a step's turn-based action not yet done (the rules say which) is
    done before anyone has priority: acting on a pass, the flow makes it by its defaults
    (no attackers and no blockers unless requirements make that declaration illegal, then
    one that obeys the most of them, 508.1d, 509.1c; damage assignment orders by id, 509.2-509.3;
    combat damage as assigned by default, or as the active player announced it, 510.1), and the
    active player receives priority (508.3, 509.5, 510.4)."""
    pending = priority_now(game)[1]
    if not pending:
        return game
    board = Board(game.state, game.pool)
    if "order_blockers" in pending or "order_attackers" in pending:
        # CR 509.2-509.3: the default orders (by id) are announced, the active player's, then
        # the defending player's
        return turn_based_action_first(Board(after_orders(board.state, order_choices(board)[0]), game.pool))
    if "declare_attackers" in pending:
        state = _declare_by_default(board, DeclareAttackers(attackers={}))
    elif "declare_blockers" in pending:
        # the orders the declaration calls for come next (509.2-509.3)
        return turn_based_action_first(Board(_declare_by_default(board, DeclareBlockers(blockers={})), game.pool))
    else:
        # the active player's announcement, if made, with the defending player's default
        verdict, model = judge_damage(board, AssignDamage(assignments={}))
        if not verdict.legal:
            raise IllegalActionError(verdict)
        plain = Board(updated(board.state, announced_damage=None, announced_prevention=None), game.pool)
        state = after_action(board, board.state, after_damage(plain, model))
    return Board(state, game.pool)


def _declare_by_default(board: Board, empty: DeclareAttackers | DeclareBlockers) -> GameState:
    """The flow's default declaration: the empty one when it is legal, else the legal one that
    obeys the most requirements (508.1d, 509.1c)."""
    declaration: DeclareAttackers | DeclareBlockers = empty
    verdict, model = judge_declaration(board, empty)
    if not verdict.legal:
        declaration = board.checker("attack" if isinstance(empty, DeclareAttackers) else "block").best()
        verdict, model = judge_declaration(board, declaration)
        if not verdict.legal:
            raise IllegalActionError(verdict)
    return after_action(board, board.state, after_declaration(board, declaration, model))


def next_step(board: Board) -> GameState:
    """The step ends and the next step of combat begins (CR 506.1), as when all players
    pass with the stack empty: the rules say which step (508.6, 510.5) and what changes
    (511.3).  A turn-based action not yet done is done first, by its default (a combat
    damage step in which no damage was dealt deals it)."""
    return end_step(turn_based_action_first(board))
