"""What the actions of a player with priority do: a spell is cast (601.2), an ability
activated (602.2) or a mana ability (605.3b), a land played (305.1), priority passed (115.4:
the top of the stack resolves or the step ends), a triggered ability's targets chosen; and
``advance``, everybody passing until a step is reached.
"""

from __future__ import annotations

import clingo

from bridge.engine.acting import (
    ability_card,
    activate_object,
    actor,
    cast_object,
    default_offer_answer,
    default_target_choice,
    in_hand,
)
from bridge.engine.board import Board, on_pass
from bridge.engine.facts import asp_string
from bridge.engine.moves import discard, exiled_card_to_graveyard, move_permanents
from bridge.engine.priority import give_priority
from bridge.engine.resolve import resolve_top
from bridge.engine.solver import atoms
from bridge.engine.triggers import put_in_order, targeted_events, triggers_on, with_targets_on_stack
from bridge.engine.turn import end_step, turn_based_action_first
from bridge.engine.updates import next_timestamp, update_permanent, update_permanents, updated
from bridge.model.actions import Activate, AnswerOffer, Cast, ChooseTargets, Pass, PlayLand, TurnFaceUp
from bridge.model.errors import InputError
from bridge.model.state import GameState, Permanent


def after_cast(game: Board, action: Cast, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 601.2a-h: the card moves to the stack, the cost is paid; its caster keeps priority."""
    item = cast_object(game, action)
    # CR 601.2e-g: the total cost was locked in before it is paid: the sacrifice comes now
    state = pay(game.state, item.controller or game.state.active, model)
    if action.sacrifice:
        state = move_permanents(state, {s: "graveyard" for s in action.sacrifice}, game.pool)
    players = [
        p.model_copy(
            update={
                "hand": [c for c in p.hand if c.id != item.id],
                "graveyard": [c for c in p.graveyard if c.id != item.id],
            }
        )
        for p in state.players
    ]
    state = updated(state, players=players, stack=[item, *state.stack], priority=item.controller, passed=[])
    # CR 601.2h: abilities that trigger on the spell being cast, or on becoming its target
    state = triggers_on(
        game.pool,
        state,
        state,
        [f"casts({asp_string(item.controller or state.active)}, {asp_string(item.id or '')})", *targeted_events(item)],
    )
    # CR 115.5, 704.3: state-based actions (a cost paid may leave some to perform), then the
    # abilities that triggered, before the caster receives priority
    return give_priority(game, state, item.controller or state.active)


def after_activate(game: Board, action: Activate, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 602.2: the ability goes on the stack, its costs are paid; its controller keeps
    priority.  A mana ability (605.3b) adds its mana at once and doesn't use the stack."""
    state = game.state
    if action.mana:
        return after_mana_ability(game, action, model)
    item = activate_object(game, action)
    ability = ability_card(game, item).activated[(item.ability or 1) - 1]
    state = pay(state, item.controller or state.active, model)
    source = state.permanent(action.source)
    changes: dict[str, object] = {}
    if ability.tap:
        changes["tapped"] = True
    # CR 606.4: a loyalty cost puts on or removes the loyalty counters the rules show
    for s in atoms(model, "loyalty_after_cost", 2):
        if s.arguments[0].string == action.source:
            changes["counters"] = {**source.counters, "loyalty": s.arguments[1].number}
    state = update_permanent(state, action.source, changes)
    players = list(state.players)
    if ability.pay_life:
        players = [
            p.model_copy(update={"life": p.life - ability.pay_life}) if p.name == item.controller else p
            for p in players
        ]
    state = updated(state, players=players)
    if ability.discard_cost:
        # CR 602.2b: the cards the player named (judged: that many, in the hand), else the default
        state = discard(state, item.controller or state.active, ability.discard_cost, game.pool, first=action.discard)
    if ability.exiled_card_cost:
        # CR 607.2b: a card exiled with the source, of those the rules show (the player's choice,
        # judged; the bridge's default: the smallest id)
        card = action.exiled or min(s.arguments[1].string for s in atoms(model, "exiled_card_for_cost", 2))
        state = exiled_card_to_graveyard(game, state, card)
    if ability.sacrifice_self:
        state = move_permanents(state, {action.source: "graveyard"}, game.pool)
    if action.sacrifice:
        state = move_permanents(state, {s: "graveyard" for s in action.sacrifice}, game.pool)
    used = [*state.activated_this_turn, f"{action.source}/{item.ability}"]
    state = updated(state, stack=[item, *state.stack], priority=item.controller, passed=[], activated_this_turn=used)
    if "becomes_the_target" in game.position.facts:
        state = triggers_on(game.pool, state, state, targeted_events(item))
    # CR 115.5, 704.3: state-based actions (paying life, discarding, sacrificing or removing
    # loyalty counters as a cost may leave some to perform: a planeswalker with no loyalty
    # left, 704.5i), then the abilities that triggered, before the activating player receives
    # priority
    return give_priority(game, state, item.controller or state.active)


def after_mana_ability(game: Board, action: Activate, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 605.3b, 106.4: the permanent is tapped and the mana the rules said goes into the
    activator's pool at once."""
    player = actor(game.state, action.by, "activate")
    added = "".join("{" + s.arguments[1].name.upper() + "}" for s in atoms(model, "adds_mana", 2))
    added += "".join(
        ("{" + s.arguments[1].name.upper() + "}") * s.arguments[2].number for s in atoms(model, "adds_mana_amount", 3)
    )
    # CR 605.4a: the triggered mana abilities it triggered add their mana at once, without the stack
    added += "".join("{" + s.arguments[3].name.upper() + "}" for s in atoms(model, "triggered_mana", 4))
    # CR 116.3, 602.2b: its cost as the rules show it: sacrificed with the hand discarded, else tapped
    sacrificed = any(s.arguments[0].string == action.source for s in atoms(model, "mana_cost_paid", 2))
    state = game.state
    if not sacrificed:
        state = update_permanent(state, action.source, {"tapped": True})
    players = [
        p.model_copy(update={"mana_pool": p.mana_pool + added}) if p.name == player else p for p in state.players
    ]
    # CR 115.3c: an action; the players' run of passes starts again
    state = updated(state, players=players, priority=player, passed=[])
    if sacrificed:
        state = move_permanents(state, {action.source: "graveyard"}, game.pool)
        state = discard(state, player, len(state.player(player).hand), game.pool)
        # CR 115.5, 704.3: state-based actions and triggered abilities before priority again
        return give_priority(game, state, player)
    return state


def pay(state: GameState, player: str, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 601.2g, 605.3a: tap the sources the payment names and take the mana from the pool
    (605.4a: with the mana the lands tapped made triggered mana abilities add at once)."""
    tapped = {s.arguments[0].string for s in atoms(model, "tap_for_mana", 2)}
    extra = "".join("{" + s.arguments[3].name.upper() + "}" for s in sorted(atoms(model, "triggered_mana", 4)))
    used = {
        s.arguments[1].name.upper(): s.arguments[2].number
        for s in atoms(model, "use_pool", 3)
        if s.arguments[0].string == player
    }
    state = update_permanents(state, {t: {"tapped": True} for t in tapped})
    players = []
    for p in state.players:
        if p.name == player and (used or extra):
            pool = p.mana_pool + extra
            symbols = [pool[i : i + 3] for i in range(0, len(pool), 3)]
            left = []
            for symbol in symbols:
                color = symbol[1]
                if used.get(color, 0) > 0:
                    used[color] -= 1
                else:
                    left.append(symbol)
            p = p.model_copy(update={"mana_pool": "".join(left)})
        players.append(p)
    return updated(state, players=players)


def after_turn_face_up(game: Board, action: TurnFaceUp, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 702.34d, 114: the morph cost is paid and the permanent turned face up, with no stack
    (it doesn't enter the battlefield again: nothing triggers on entering); its player keeps
    priority."""
    player = actor(game.state, action.by, "turn_face_up")
    state = pay(game.state, player, model)
    state = update_permanent(state, action.permanent, {"face_down": False})
    # CR 115.3c: an action; the players' run of passes starts again
    return updated(state, priority=player, passed=[])


def after_play_land(game: Board, action: PlayLand) -> GameState:
    """CR 305.1, 114.3: the land enters the battlefield; its player keeps priority."""
    player = actor(game.state, action.by, "play_land")
    card = in_hand(game.state, player, action.card, "play_land.card")
    state = game.state
    stamp = next_timestamp(game.state)
    players = []
    for p in state.players:
        if p.name == player:
            p = p.model_copy(
                update={
                    "hand": [c for c in p.hand if c.id != card.id],
                    "battlefield": [*p.battlefield, Permanent(id=card.id, card=card.card, timestamp=stamp, sick=True)],
                    "lands_played": p.lands_played + 1,
                }
            )
        players.append(p)
    after = updated(state, players=players, priority=player, passed=[])
    after = triggers_on(game.pool, after, after, [f"enters({asp_string(card.id or '')})"])
    # CR 115.5, 704.3: state-based actions (a second legendary land with the same name, 704.5k)
    # before the player receives priority again
    return give_priority(game, after, player)


def after_pass(game: Board, action: Pass) -> GameState:
    """CR 115.3d, 115.4: what the pass leads to, as the rules show it (turn/passing.lp): the
    next player receives priority; when all players have passed in succession, the top of the
    stack resolves (608.1) or, with an empty stack, the step ends (500.2, 505.2)."""
    game = turn_based_action_first(game)
    state = game.state
    player = state.priority_player()
    if state.pending_triggers:
        # CR 603.3b: abilities that triggered go on the stack before anyone acts on
        state = give_priority(game, state, player)
    if state.awaiting_targets:
        return state  # CR 603.3d: their controller chooses their targets before anything else
    # the rules say what the pass leads to (turn/passing.lp: 115.3d, 608.1, 500.2)
    then, who = on_pass(state)
    if then == "priority":
        # CR 115.5: state-based actions are checked before the next player receives
        # priority; a pass changes nothing they look at, and they were checked before the
        # passing player received priority, so none can apply
        return updated(state, priority=who, passed=[*state.passed, player])
    if then == "resolve_top":
        return resolve_top(game if game.state is state else Board(state, game.pool))
    return end_step(game if game.state is state else Board(state, game.pool))


def after_answer_offer(game: Board, action: AnswerOffer, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 608.2f: the player pays (the mana abilities activated and the mana spent as the rules
    found) or doesn't; the resolving object goes on resolving with that answer."""
    state = game.state
    offer = state.awaiting_payment
    assert offer is not None  # judged legal: something waits for the answer
    if action.pays:
        state = pay(state, offer.player, model)
    state = updated(state, awaiting_payment=None)
    return resolve_top(Board(state, game.pool), paid=action.pays)


def after_choose_targets(game: Board, action: ChooseTargets) -> GameState:
    """CR 603.3d: the ability goes on the stack with its targets; the abilities after it go on
    the stack in turn; then the player who was to receive priority receives it (115.5)."""
    state = game.state
    waiting, rest = state.awaiting_targets[0], state.awaiting_targets[1:]
    if action.mode is not None:
        waiting = waiting.model_copy(update={"mode": action.mode})  # CR 603.3c
    state = updated(state, awaiting_targets=[])
    state = with_targets_on_stack(game, state, waiting, list(action.targets))
    state = put_in_order(game, state, list(rest))
    if state.awaiting_targets or not state.pending_triggers:
        return state
    return give_priority(game, state, state.priority_player())


def advance(game: Board, step: str, turn: int | None) -> GameState:
    """Players pass priority until the game reaches ``step`` (in ``turn`` if given; nothing
    happens when it is there already); turn-based choices on the way take their defaults:
    no attackers, no blockers, the default combat damage assignment, the default targets of
    triggered abilities."""
    g = game
    for _ in range(500):
        state = g.state
        if (
            state.step == step
            and (turn is None or state.turn == turn)
            and not state.awaiting_targets
            and state.awaiting_payment is None
        ):
            return state
        choice = default_target_choice(g)
        if choice is not None:
            g = Board(after_choose_targets(g, choice), g.pool)
            continue
        answer_now = default_offer_answer(g)
        if answer_now is not None:
            g = Board(after_answer_offer(g, answer_now, frozenset()), g.pool)
            continue
        g = Board(after_pass(g, Pass()), g.pool)
    raise InputError(f"the game did not reach the {step} step" + (f" of turn {turn}" if turn else ""))
