"""A player receives priority (CR 115.5, 603.3b): state-based actions, then the abilities that
triggered go on the stack, until neither happens; and what an action set off besides what it
does ("becomes tapped" abilities, delayed triggered abilities waiting on a permanent).
"""

from __future__ import annotations

from bridge.engine import sba
from bridge.engine.board import Board
from bridge.engine.facts import asp_string, delayed_facts
from bridge.engine.sba import drawn_by_loop, perform_state_based_actions
from bridge.engine.solver import answer, atoms
from bridge.engine.triggers import put_triggers_on_stack, state_triggers, triggers_on
from bridge.engine.updates import steps_key, updated
from bridge.model.errors import RuleModuleError
from bridge.model.state import GameState


def give_priority(game: Board, state: GameState, player: str) -> GameState:
    """CR 115.5, 704.3, 603.3b: state-based actions, then the abilities that triggered go on
    the stack, repeated until neither happens; then the player receives priority (every time
    a player would receive it: the rules say which state-based actions apply, and a position
    asked again is answered from what was kept).  A loop of these mandatory actions that
    meets a position again is a draw (104.4b)."""
    seen: set[str] = set()
    for rounds in range(sba.LOOP_ROUNDS):
        state = perform_state_based_actions(Board(state, game.pool))
        state = state_triggers(game.pool, state)
        if not state.pending_triggers:
            break
        if rounds >= 2:
            key = steps_key(state)
            if key in seen:
                return drawn_by_loop(state)
            seen.add(key)
        triggered = state.pending_triggers
        state = put_triggers_on_stack(game, state)
    else:
        waiting = ", ".join(sorted(f"{t.source} ({t.keyword or t.trigger})" for t in triggered))
        raise RuleModuleError(
            f"state-based actions and triggered abilities did not stop after {sba.LOOP_ROUNDS} rounds "
            f"and no position repeated (triggered last: {waiting})"
        )
    return updated(state, priority=player, passed=[])


def tapping_triggers(game: Board, before: GameState, after: GameState) -> GameState:
    """CR 603.2d: an untapped permanent that became tapped (not one that entered tapped)
    triggers "whenever ... becomes tapped"; the abilities go on the stack when a player
    would next receive priority, at once if one has it now."""
    untapped = {p.id for p in before.permanents() if not p.tapped}
    events = [f"becomes_tapped({asp_string(p.id or '')})" for p in after.permanents() if p.tapped and p.id in untapped]
    if not events or "becomes_tapped)" not in game.position.facts:
        return after
    after = triggers_on(game.pool, after, after, events)
    if after.pending_triggers and after.priority is not None:
        after = give_priority(Board(after, game.pool), after, after.priority)
    return after


def delayed_event_triggers(game: Board, before: GameState, after: GameState) -> GameState:
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
    fired = {s.arguments[0].string for s in atoms(model, "delayed_triggers", 1)}
    if not fired:
        return after
    after = after.model_copy(
        update={
            "delayed_triggers": [d for d in after.delayed_triggers if d.id not in fired],
            "pending_triggers": [*after.pending_triggers, *(d for d in after.delayed_triggers if d.id in fired)],
        }
    )
    if after.priority is not None:
        after = give_priority(Board(after, game.pool), after, after.priority)
    return after


def after_action(board: Board, before: GameState, after: GameState) -> GameState:
    """What an action set off besides what it does: permanents it tapped trigger "becomes
    tapped" abilities (603.2d), delayed triggered abilities waiting on a permanent that left
    or untapped trigger (603.7a-b); they go on the stack as a player would next receive
    priority."""
    return delayed_event_triggers(board, before, tapping_triggers(board, before, after))
