"""Priority, the stack and the turn: the flow of the game (Python owns the loop).

The rules decide (``asp_rules/stack/`` and ``asp_rules/turn/``): whether a spell may be cast,
an ability activated or a land played now, how a mana cost is paid, what a resolving spell or
ability does, which step comes next and its turn-based actions.  This module asks them and
moves the game along: who has priority (CR 115.3), all players passing in succession (115.4),
state-based actions before a player receives priority (115.5), resolving the top of the
stack (608), ending a step and beginning the next (500.2-500.5, 703).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import clingo

from bridge.cards import Card, TargetSpec
from bridge.errors import InputError, RuleModuleError
from bridge.facts import asp_string, priority_facts, stack_object_facts, stamps
from bridge.models import (Activate, AssignDamage, CardRef, Cast, ChooseTargets, DeclareAttackers, DeclareBlockers,
                           Effect, GameState, Pass, Permanent, PlayLand, StackObject, fresh_id)
from bridge.replacement import (draw_replaced, gain_or_draw, graveyard_destinations, lose, place,
                                 return_instead_of_draw, sources as replacement_sources)
from bridge.solver import Session, answer
from bridge.verdict import Verdict

if TYPE_CHECKING:
    from bridge.game import Game

__all__ = ["check_cast", "check_activate", "check_play_land", "after_cast", "after_activate", "after_play_land",
           "check_pass", "after_pass", "advance", "resolve_top", "begin_step"]

ACTING = ("combat/common", "characteristics/players", "turn/priority", "stack/objects", "stack/targets", "stack/cast",
          "stack/mana")
PRIORITY = ("inputs", "turn/priority")
RESOLVING = ("combat/common", "characteristics/players", "stack/objects", "stack/targets", "stack/resolve",
             "stack/zones", "stack/damage", "stack/keywords", "regeneration", "combat/damage_dealing")
# the damage the resolving object deals is dealt by combat/damage_dealing.lp's rules
RESOLVING_PARTS = (("dealing_spell_damage", ()),)
MAIN_STEPS = ("main1", "main2")


# ---------------------------------------------------------------------- finding what a player names
def _actor(state: GameState, by: str | None, where: str) -> str:
    names = [p.name for p in state.players]
    if by is not None and by not in names:
        raise InputError(f"{by!r} is not a player", location=f"{where}.by")
    return by or state.priority_player()


def _in_hand(state: GameState, player: str, card: str, where: str) -> CardRef:
    """The card a player names in his or her hand: by id, else by card name."""
    return _in_zone(state, player, card, where, "hand")


def _in_zone(state: GameState, player: str, card: str, where: str, zone: str) -> CardRef:
    """The card a player names in one of his or her zones: by id, else by card name."""
    hand = getattr(state.player(player), zone)
    for obj in hand:
        if obj.id == card:
            return obj
    for obj in hand:
        if obj.card.lower() == card.lower():
            return obj
    raise InputError(f"{card!r} is not in {player}'s {zone} ({zone}: {', '.join(o.card for o in hand) or 'empty'})",
                     location=where)


# ---------------------------------------------------------------------- casting and activating
def _acting_facts(game: "Game", item: StackObject, marker: str, pay: list[str] | None) -> str:
    used: dict[str, object] = {}
    cards = dict(game.position.cards)
    if item.card is not None and item.id not in cards:
        cards[item.id] = game.pool.get(item.card)  # type: ignore[index]
    lines = stack_object_facts(game.state, item, 0, cards, used, game.pool)  # type: ignore[arg-type]
    lines += [fact for card in used.values() for fact in card.facts()]  # type: ignore[attr-defined]
    lines.append(f"{marker}({asp_string(item.id or '')}).")
    lines += [f"declared_pay({asp_string(s)})." for s in pay or []]
    return game.position.facts + "\n" + "\n".join(lines)


def _judge(game: "Game", item: StackObject, marker: str, pay: list[str] | None,
           extra: Iterable[str] = ()) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    for s in pay or []:
        game._require_permanent_at(s, "pay")
    facts = _acting_facts(game, item, marker, pay) + "\n" + "\n".join(extra)
    model = answer(game.modules(*ACTING), facts).model
    return game.reader.verdict(model), model


def cast_object(game: "Game", action: Cast) -> StackObject:
    """The spell a cast action would put on the stack (CR 601.2a)."""
    player = _actor(game.state, action.by, "cast")
    zone = "graveyard" if action.flashback else "hand"
    card = _in_zone(game.state, player, action.card, "cast.card", zone)
    spec = game.pool.get(card.card)
    if {"instant", "sorcery"} & set(spec.types) and not spec.resolve and not spec.modes \
            and not (spec.effect and spec.targets):
        raise InputError(f"what {spec.name} does is not in the card vocabulary yet (its text: {spec.text.strip()!r})",
                         location="cast.card")
    for t in action.targets:
        game._require_object(t, "cast.targets")
    return StackObject(id=card.id, card=card.card, controller=player, targets=list(action.targets), x=action.x,
                       mode=action.mode, kicked=action.kicked, buyback=action.buyback, flashback=action.flashback)


def check_cast(game: "Game", action: Cast) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """Is casting this spell legal now (CR 601.2, 115.1a)?"""
    item = cast_object(game, action)
    for s in action.sacrifice:
        game._require_permanent_at(s, "cast.sacrifice")
    extra = [f"declared_sacrifice({asp_string(item.id or '')}, {asp_string(s)})." for s in action.sacrifice]
    return _judge(game, item, "casting", action.pay, extra)


def after_cast(game: "Game", action: Cast, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 601.2a-h: the card moves to the stack, the cost is paid; its caster keeps priority."""
    item = cast_object(game, action)
    # CR 601.2e-g: the total cost was locked in before it is paid: the sacrifice comes now
    state = _pay(game.state, item.controller or game.state.active, model)
    if action.sacrifice:
        state = _move_permanents(state, {s: "graveyard" for s in action.sacrifice}, game.pool)
    players = [p.model_copy(update={"hand": [c for c in p.hand if c.id != item.id],
                                    "graveyard": [c for c in p.graveyard if c.id != item.id]}) for p in state.players]
    state = _update(state, players=players, stack=[item, *state.stack], priority=item.controller, passed=[])
    # CR 601.2h: abilities that trigger on the spell being cast, or on becoming its target
    state = triggers_on(game.pool, state, state, [f"casts({asp_string(item.controller or state.active)}, "
                                                  f"{asp_string(item.id or '')})", *_targeted_events(item)])
    # CR 115.5, 704.3: a sacrifice as a cost may leave state-based actions to perform (an Aura
    # left attached to nothing) before the caster receives priority
    if state.pending_triggers or action.sacrifice:
        return _give_priority(game, state, item.controller or state.active)
    return state


def activate_object(game: "Game", action: Activate) -> StackObject:
    """The ability an activate action would put on the stack (CR 602.2a)."""
    player = _actor(game.state, action.by, "activate")
    game._require_permanent_at(action.source, "activate.source")
    for t in action.targets:
        game._require_object(t, "activate.targets")
    number = action.ability or 1
    card = permanent_card(game, action.source)
    if not action.mana and number > len(card.activated):
        raise InputError(f"{card.name} has no activated ability {number} (it has {len(card.activated)})",
                         location="activate.ability")
    oid = fresh_id(f"{action.source}_ability", game.state.used_ids())
    copied = None if card.id == game.position.card(action.source).id else card.name
    return StackObject(id=oid, source=action.source, ability=number, controller=player,
                       targets=list(action.targets), x=action.x, copied_from=copied)


def check_activate(game: "Game", action: Activate) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """Is activating this ability legal now (CR 602.2, 602.5, 606.3, 605.3a)?"""
    if action.mana:
        return _check_mana_ability(game, action)
    item = activate_object(game, action)
    for s in action.sacrifice:
        game._require_permanent_at(s, "activate.sacrifice")
    extra = [f"declared_sacrifice({asp_string(item.id or '')}, {asp_string(s)})." for s in action.sacrifice]
    return _judge(game, item, "activating", action.pay, extra)


def after_activate(game: "Game", action: Activate, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 602.2: the ability goes on the stack, its costs are paid; its controller keeps
    priority.  A mana ability (605.3b) adds its mana at once and doesn't use the stack."""
    state = game.state
    if action.mana:
        return _after_mana_ability(game, action, model)
    item = activate_object(game, action)
    ability = ability_card(game, item).activated[(item.ability or 1) - 1]
    state = _pay(state, item.controller or state.active, model)
    source = state.permanent(action.source)
    changes: dict[str, object] = {}
    if ability.tap:
        changes["tapped"] = True
    if ability.loyalty is not None:
        counters = dict(source.counters)
        counters["loyalty"] = game.characteristics(action.source).loyalty + ability.loyalty  # type: ignore[operator]
        changes["counters"] = counters
    state = _update_permanent(state, action.source, changes)
    players = list(state.players)
    if ability.pay_life:
        players = [p.model_copy(update={"life": p.life - ability.pay_life}) if p.name == item.controller else p
                   for p in players]
    state = _update(state, players=players)
    if ability.discard_cost:
        state = discard(state, item.controller or state.active, ability.discard_cost, game.pool)
    if ability.sacrifice_self:
        state = _move_permanents(state, {action.source: "graveyard"}, game.pool)
    if action.sacrifice:
        state = _move_permanents(state, {s: "graveyard" for s in action.sacrifice}, game.pool)
    used = [*state.activated_this_turn, f"{action.source}/{item.ability}"]
    state = _update(state, stack=[item, *state.stack], priority=item.controller, passed=[], activated_this_turn=used)
    if "becomes_the_target" in game.position.facts:
        state = triggers_on(game.pool, state, state, _targeted_events(item))
    # CR 115.5, 704.3: paying life, discarding, sacrificing or removing loyalty counters as a
    # cost may leave state-based actions to perform before the activating player receives
    # priority (a planeswalker with no loyalty left, 704.5i)
    if state.pending_triggers or ability.pay_life or ability.discard_cost or ability.sacrifice_self \
            or action.sacrifice or (ability.loyalty or 0) < 0:
        return _give_priority(game, state, item.controller or state.active)
    return state


MANA_LETTERS = {"white": "w", "blue": "u", "black": "b", "red": "r", "green": "g", "colorless": "c"}
MANA_COLORS = {letter: color for color, letter in MANA_LETTERS.items()}


def _check_mana_ability(game: "Game", action: Activate) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 605.3a: a mana ability of an untapped permanent its activator controls, by a player
    with priority, naming the color of the mana when its abilities make several (the rules
    judge it and say what mana it adds)."""
    player = _actor(game.state, action.by, "activate")
    game._require_permanent_at(action.source, "activate.source")
    color = MANA_LETTERS[action.color] if action.color is not None else "unnamed"
    facts = game.position.facts + f"\nactivating_mana({asp_string(action.source)}, {asp_string(player)}, {color})."
    model = answer(game.modules(*ACTING), facts).model
    return game.reader.verdict(model), model


def _after_mana_ability(game: "Game", action: Activate, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 605.3b, 106.4: the permanent is tapped and the mana the rules said goes into the
    activator's pool at once."""
    player = _actor(game.state, action.by, "activate")
    added = "".join("{" + s.arguments[1].name.upper() + "}" for s in model if s.match("adds_mana", 2))
    state = _update_permanent(game.state, action.source, {"tapped": True})
    players = [p.model_copy(update={"mana_pool": p.mana_pool + added}) if p.name == player else p
               for p in state.players]
    # CR 115.3c: an action; the players' run of passes starts again
    return _update(state, players=players, priority=player, passed=[])


def priority_now(game: "Game") -> tuple[bool, tuple[str, ...]]:
    """Do players receive priority in this step (CR 115.3a, 502.3, 514.3-514.3a), and which of
    its turn-based actions are still to be done before anyone has it (115.2c, 703.3)?  The
    rules answer (turn/priority.lp)."""
    return _priority_answer(priority_facts(game.state))


@functools.lru_cache(maxsize=1024)
def _priority_answer(facts: str) -> tuple[bool, tuple[str, ...]]:
    model = Session(PRIORITY, facts).solve().model
    pending = tuple(sorted(s.arguments[0].name for s in model if s.match("pending_turn_based_action", 1)))
    return any(s.match("priority_step", 0) for s in model), pending


def _priority_step(game: "Game") -> bool:
    """Do players receive priority in this step (CR 502.3, 514.3-514.3a)?"""
    return priority_now(game)[0]


def _pay(state: GameState, player: str, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 601.2g, 605.3a: tap the sources the payment names and take the mana from the pool."""
    tapped = {s.arguments[0].string for s in model if s.match("tap_for_mana", 2)}
    used = {s.arguments[1].name.upper(): s.arguments[2].number for s in model if s.match("use_pool", 3)
            and s.arguments[0].string == player}
    state = _update_permanents(state, {t: {"tapped": True} for t in tapped})
    players = []
    for p in state.players:
        if p.name == player and used:
            symbols = [p.mana_pool[i:i + 3] for i in range(0, len(p.mana_pool), 3)]
            left = []
            for symbol in symbols:
                color = symbol[1]
                if used.get(color, 0) > 0:
                    used[color] -= 1
                else:
                    left.append(symbol)
            p = p.model_copy(update={"mana_pool": "".join(left)})
        players.append(p)
    return _update(state, players=players)


# ---------------------------------------------------------------------- lands
def check_play_land(game: "Game", action: PlayLand) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 115.1c, 305.1-305.3: may this player play this land now?"""
    player = _actor(game.state, action.by, "play_land")
    card = _in_hand(game.state, player, action.card, "play_land.card")
    facts = game.position.facts + f"\nplaying_land({asp_string(card.id or '')}, {asp_string(player)})."
    model = Session(game.modules(*ACTING), facts).solve().model
    return game.reader.verdict(model), model


def after_play_land(game: "Game", action: PlayLand) -> GameState:
    """CR 305.1, 114.3: the land enters the battlefield; its player keeps priority."""
    player = _actor(game.state, action.by, "play_land")
    card = _in_hand(game.state, player, action.card, "play_land.card")
    state = game.state
    stamp = _next_timestamp(game)
    players = []
    for p in state.players:
        if p.name == player:
            p = p.model_copy(update={
                "hand": [c for c in p.hand if c.id != card.id],
                "battlefield": [*p.battlefield, Permanent(id=card.id, card=card.card, timestamp=stamp, sick=True)],
                "lands_played": p.lands_played + 1})
        players.append(p)
    after = _update(state, players=players, priority=player, passed=[])
    after = triggers_on(game.pool, after, after, [f"enters({asp_string(card.id or '')})"])
    return _give_priority(game, after, player) if after.pending_triggers else after


# ---------------------------------------------------------------------- priority
def check_pass(game: "Game", action: Pass) -> Verdict:
    """CR 115.3d: only the player with priority passes."""
    from bridge.verdict import Violation
    player = _actor(game.state, action.by, "pass")
    # a turn-based action still to be done is done first by its default (after_pass): the
    # pass is then that of the player who receives priority
    receives = _priority_step(game)
    if player == game.state.priority_player() and receives:
        return Verdict(legal=True)
    violation = Violation(rule="115.3d", objects=(player,), reason="no_priority", step_rule="115.1",
                          message=f"{player} doesn't have priority ({game.state.priority_player()} has)"
                          if receives else
                          f"{player} doesn't have priority (nobody has priority in the {game.state.step} step)",
                          world="declared")
    return Verdict(legal=False, violations=(violation,))


def after_pass(game: "Game", action: Pass) -> GameState:
    """CR 115.3d, 115.4: the next player receives priority; when all players have passed in
    succession, the top of the stack resolves or, with an empty stack, the step ends."""
    game = turn_based_action_first(game)
    state = game.state
    player = state.priority_player()
    if state.pending_triggers:
        # CR 603.3b: abilities that triggered go on the stack before anyone acts on
        state = _give_priority(game, state, player)
    if state.awaiting_targets:
        return state  # CR 603.3d: their controller chooses their targets before anything else
    passed = [*state.passed, player]
    if len(set(passed)) < len(state.players):
        # CR 115.5: state-based actions are checked before the next player receives
        # priority; a pass changes nothing they look at, and they were checked before the
        # passing player received priority, so none can apply
        return _update(state, priority=state.opponent(player), passed=passed)
    if state.stack:
        return resolve_top(game)
    return end_step(game)


def turn_based_action_first(game: "Game") -> "Game":
    """CR 115.2c, 703.3: a step's turn-based action not yet done (the rules say which) is
    done before anyone has priority: acting on a pass, the flow makes it by its defaults
    (no attackers and no blockers unless requirements make that declaration illegal, then
    one that obeys the most of them, 508.1d, 509.1c; combat damage as assigned by default,
    510.1), and the active player receives priority (508.3, 509.5, 510.4)."""
    from bridge.game import Game
    pending = priority_now(game)[1]
    if not pending:
        return game
    g = Game(game.state, game.pool)
    if "declare_attackers" in pending:
        _declare_by_default(g, DeclareAttackers(attackers={}))
    elif "declare_blockers" in pending:
        _declare_by_default(g, DeclareBlockers(blockers={}))
    else:
        g.push(AssignDamage(assignments={}))
    return Game(g.state, game.pool)


def _declare_by_default(game: "Game", empty: "DeclareAttackers | DeclareBlockers") -> None:
    """The flow's default declaration: the empty one when it is legal, else the legal one that
    obeys the most requirements (508.1d, 509.1c)."""
    from bridge.errors import IllegalActionError
    try:
        game.push(empty)
    except IllegalActionError:
        game.push(game.checker("attack" if isinstance(empty, DeclareAttackers) else "block").best())


def _give_priority(game: "Game", state: GameState, player: str, check: bool = True) -> GameState:
    """CR 115.5, 603.3b: state-based actions, then the abilities that triggered go on the
    stack, repeated until neither happens; then the player receives priority.  ``check`` is
    False when nothing that state-based actions look at changed since they were last
    performed (a step began with no turn-based action).  A loop of these mandatory actions
    that meets a position again is a draw (104.4b)."""
    from bridge.game import LOOP_ROUNDS, Game, drawn_by_loop
    seen: set[str] = set()
    for rounds in range(LOOP_ROUNDS):
        if check:
            state = Game(state, game.pool)._state_based_actions()
        state = state_triggers(game.pool, state)
        if not state.pending_triggers:
            break
        if rounds >= 2:
            key = _steps_key(state)
            if key in seen:
                return drawn_by_loop(state)
            seen.add(key)
        triggered = state.pending_triggers
        state = _put_triggers_on_stack(game, state)
        check = True
    else:
        waiting = ", ".join(sorted(f"{t.source} ({t.keyword or t.trigger})" for t in triggered))
        raise RuleModuleError(f"state-based actions and triggered abilities did not stop after {LOOP_ROUNDS} rounds "
                              f"and no position repeated (triggered last: {waiting})")
    return _update(state, priority=player, passed=[])


# ---------------------------------------------------------------------- triggered abilities
# the facts that could make an ability trigger (or a permanent enter tapped): without them
# the question needs no grounding
_MAY_TRIGGER = re.compile(r"triggered\(|\b(exalted|bushido|flanking|rampage|provoke|enters_tapped|permanents_enter_tapped|enters_tapped_unless_you_control)\b")


# For some events, the trigger events of stack/triggers.lp (trigger_event facts) that can
# answer them, and other abilities that act on them: with none of them on the battlefield
# the question needs no grounding.  Events not listed are always asked about.
_EVENT_TRIGGERS = {
    "step_begins(upkeep)": (", beginning_of_upkeep).",),
    "step_begins(draw)": (", beginning_of_draw_step).",),
    "step_begins(end)": (", beginning_of_end_step).",),
    "step_begins": (),  # the other steps: no trigger event of stack/triggers.lp answers them yet
    "casts": (", you_cast).", ", a_player_casts).", ", an_opponent_casts)."),
    "draws": (", an_opponent_draws).",),
    "first_draw": (", you_reveal_this_way).",),
    "discards": (", an_opponent_discards).",),
    "enters": (", enters_battlefield).", ", landfall).", ", another_enters_battlefield).", "enters_tapped",
               "permanents_enter_tapped"),
}


def _could_trigger(live: str, events: list[str]) -> bool:
    marks: set[str] = set()
    for event in events:
        found = _EVENT_TRIGGERS.get(event) or _EVENT_TRIGGERS.get(event.split("(")[0])
        if found is None:
            return True
        marks.update(found)
    return any(mark in live for mark in marks)


def collect_triggers(pool: object, state: GameState, events: list[str]) -> tuple[list[StackObject], set[str]]:
    """CR 603.2: the abilities that trigger on these events, asked on ``state`` (for a
    permanent leaving the battlefield, the position before it left, 603.6c), without ids yet;
    and the permanents that enter tapped (614.1c)."""
    from bridge.game import Game
    if not events:
        return [], set()
    game = Game(state, pool)  # type: ignore[arg-type]
    if not _MAY_TRIGGER.search(game.position.live):  # only permanents have triggered abilities
        return [], set()
    if not _could_trigger(game.position.live, events):
        return [], set()
    facts = game.position.facts + "\n" + "\n".join(f"event({e})." for e in events)
    model = Session(game.modules("stack/objects", "stack/triggers"), facts).solve().model
    def copied(s: clingo.Symbol) -> str | None:
        """CR 706.2: the card whose ability triggered, when the source has it by a copy effect."""
        card = s.arguments[1].string
        return None if card == game.position.card(s.arguments[0].string).id else game.pool.get(card).name

    items = [StackObject(source=s.arguments[0].string, trigger=s.arguments[2].number, controller=s.arguments[3].string,
                         copied_from=copied(s))
             for s in sorted((s for s in model if s.match("triggered", 4)), key=str)]
    owners = {str(s.arguments[0]): s.arguments[1].string for s in model if s.match("about_controller", 2)}
    for s in sorted((s for s in model if s.match("triggered_each", 5)), key=str):
        event = s.arguments[4]
        about = _about(event, s.arguments[0].string)
        # "that much": the life gained, as the ability's X
        x = event.arguments[2].number if event.match("gains_life", 3) else None
        items.append(StackObject(source=s.arguments[0].string, trigger=s.arguments[2].number, x=x,
                                 controller=s.arguments[3].string, about=about, about_controller=owners.get(str(event)),
                                 copied_from=copied(s)))
    for s in sorted((s for s in model if s.match("triggered_amount", 5)), key=str):
        # "that much": the amount of the event, as the ability's X
        items.append(StackObject(source=s.arguments[0].string, trigger=s.arguments[2].number,
                                 controller=s.arguments[3].string, x=s.arguments[4].number, copied_from=copied(s)))
    for s in sorted((s for s in model if s.match("keyword_triggered", 4)), key=str):
        items.append(StackObject(source=s.arguments[0].string, keyword=str(s.arguments[1]),
                                 about=s.arguments[2].string, controller=s.arguments[3].string))
    return items, {s.arguments[0].string for s in model if s.match("enters_tapped", 1)}


def _about(event: clingo.Symbol, source: str) -> str | None:
    """What an ability that triggered once for each event is about ("that creature", "that
    player"): the object of the event; for a blocking event, the other creature of the pair (the
    blocker's ability is about the creature it blocks, the attacker's about its blocker)."""
    if event.match("blocks_creature", 2):
        blocker, attacker = event.arguments[0].string, event.arguments[1].string
        return attacker if source == blocker else blocker
    if event.match("to_graveyard", 1) or event.match("enters", 1) or event.match("draws", 2) \
            or event.match("discards", 2):
        return event.arguments[0].string
    if event.match("deals_damage_to", 2):
        return event.arguments[1].string
    return None


def triggers_on(pool: object, before: GameState, after: GameState, events: list[str]) -> GameState:
    """The abilities that trigger on events, asked on ``before`` (look-back, 603.6c, 603.10),
    waiting on ``after``; the permanents that enter tapped, tapped on ``after``."""
    items, tapped = collect_triggers(pool, before, events)
    if tapped:  # CR 614.1c
        after = _update_permanents(after, {t: {"tapped": True} for t in tapped})
    if not items:
        return after
    taken = after.used_ids()
    named = [item.model_copy(update={"id": fresh_id(_trigger_base(item), taken)}) for item in items]
    return after.model_copy(update={"pending_triggers": [*after.pending_triggers, *named]})


_STATE_TRIGGER = re.compile(r"trigger_event\([^\n]*, state\)\.")


def state_triggers(pool: object, state: GameState) -> GameState:
    """CR 603.8: the state triggers whose state is true now, unless the ability is already on
    the stack or waiting to go there."""
    from bridge.game import Game
    if not _STATE_TRIGGER.search(Game(state, pool).position.live):  # type: ignore[arg-type]
        return state
    items, _ = collect_triggers(pool, state, ["state_check"])
    waiting = {(t.source, t.trigger) for t in state.pending_triggers}
    items = [i for i in items if (i.source, i.trigger) not in waiting]
    if not items:
        return state
    taken = state.used_ids()
    named = [item.model_copy(update={"id": fresh_id(_trigger_base(item), taken)}) for item in items]
    return state.model_copy(update={"pending_triggers": [*state.pending_triggers, *named]})


def _trigger_base(item: StackObject) -> str:
    if item.keyword is not None:
        return f"{item.source}_{item.keyword.split('(')[0]}"
    return f"{item.source}_trigger"


def leaving_events(state: GameState, moves: dict[str, str]) -> list[str]:
    """CR 603.6c: each permanent leaving the battlefield; to a graveyard, it also dies (if it
    was a creature: the rules check that on the position before)."""
    events = []
    for oid, where in moves.items():
        events.append(f"leaves({asp_string(oid)})")
        if where == "graveyard":
            events += [f"dies({asp_string(oid)})", f"to_graveyard({asp_string(oid)})"]
    return events


# ---------------------------------------------------------------- targets
def legal_targets(game: "Game", item: StackObject, marker: str) -> tuple[dict[int, list[str]], bool, bool]:
    """Every legal target of each of the object's targets; whether it is otherwise legal
    (timing, costs); and, for a triggered ability being put on the stack, whether the rules
    remove it (CR 603.3d): one question, every candidate put in as a chosen target."""
    state = game.state
    candidates = [p.id for p in state.permanents()] + [p.name for p in state.players] + \
                 [s.id for s in state.stack] + [c.id for p in state.players for c in p.graveyard]
    trial = item.model_copy(update={"targets": []})
    facts = _acting_facts(game, trial, marker, None)
    oid = asp_string(item.id or "")
    slots = len(spec_targets(game, item))
    facts += "\n" + "\n".join(f"stack_target({oid}, {i}, {asp_string(c or '')})."
                              for i in range(1, slots + 1) for c in candidates)
    model = answer(game.modules(*ACTING), facts).model
    legal: dict[int, list[str]] = {i: [] for i in range(1, slots + 1)}
    for s in model:
        if s.match("legal_target", 3) and s.arguments[0].string == item.id:
            legal[s.arguments[1].number].append(s.arguments[2].string)
    other = [s for s in model if s.match("violation", 3) and s.arguments[1].name not in _TARGET_REASONS]
    removed = any(s.match("trigger_removed", 1) for s in model)
    return {i: sorted(v) for i, v in legal.items()}, not other, removed


_TARGET_REASONS = frozenset({"missing_target", "illegal_target", "extra_target", "target_itself", "target_shroud",
                             "target_protection", "same_target_twice", "sacrifice_cost_missing"})

# CR 702.36a: provoke's target, "target creature defending player controls"
PROVOKE_TARGET = TargetSpec.model_validate({"quality": "creature", "controller": "opponent"})


def spec_targets(game: "Game", item: StackObject) -> list[TargetSpec]:
    """The targets the text of a spell or ability asks for (CR 601.2c, 602.2b, 603.3d)."""
    if item.keyword == "provoke":
        return [PROVOKE_TARGET]
    if item.keyword is not None or item.delayed is not None:
        return []
    if item.card is not None:
        card = game.pool.get(item.card)
        if item.mode is not None:
            return list(card.modes[item.mode - 1].targets)
        return list(card.spell_targets())
    card = ability_card(game, item)
    if item.trigger is not None:
        return list(card.triggered[item.trigger - 1].targets)
    return list(card.activated[(item.ability or 1) - 1].targets)


def target_choices(game: "Game", item: StackObject, marker: str,
                   known: tuple[dict[int, list[str]], bool, bool] | None = None) -> Iterator[list[str]]:
    """The choices of targets: each slot's legal targets; "up to" slots may be left out at the
    end (CR 601.2c); slots sharing one word "target" take different ones (113.3).  None when
    the object is illegal otherwise (timing, costs)."""
    legal, otherwise_ok, _ = known or legal_targets(game, item, marker)
    if not otherwise_ok:
        return
    specs = spec_targets(game, item)
    slots = [legal[i] for i in sorted(legal)]
    required = len(slots)
    while required and getattr(specs[required - 1], "up_to", False):
        required -= 1
    # the first slot of each slot's word "target": "up to three target creatures" is one word
    word = [0] * len(slots)
    for i in range(1, len(slots)):
        word[i] = word[i - 1] if getattr(specs[i], "same_word", False) else i
    for n in range(required, len(slots) + 1):
        if any(not s for s in slots[:n]):
            continue
        for combo in itertools.product(*slots[:n]):
            if any(combo[i] in combo[word[i]:i] for i in range(1, n)):
                continue
            yield list(combo)


def _put_triggers_on_stack(game: "Game", state: GameState) -> GameState:
    """CR 603.3b: in APNAP order each player puts the abilities he or she controls on the
    stack (in the order they triggered, by default), choosing their targets (603.3d).  The
    abilities already waiting for a choice of targets go first."""
    order = [state.active, state.opponent(state.active)]

    def chosen(item: StackObject) -> int:
        # CR 603.3b: each player puts his or her own in the order he or she chooses (the
        # sources named in the player's trigger_order first; the rest as they triggered)
        named = state.player(item.controller or state.active).trigger_order
        return named.index(item.source) if item.source in named else len(named)
    pending = sorted(state.pending_triggers, key=lambda t: (order.index(t.controller or state.active), chosen(t)))
    queue = [*state.awaiting_targets, *pending]
    return _put_in_order(game, _update(state, pending_triggers=[], awaiting_targets=[]), queue)


def _put_in_order(game: "Game", state: GameState, queue: list[StackObject]) -> GameState:
    """Put triggered abilities on the stack in this order, each with its targets (CR 603.3d):
    the only legal choice, or the one its controller stated beforehand (``trigger_targets``)
    when it is legal; where the controller has a choice to make, the game waits for it
    (``awaiting_targets``: a decision, :func:`after_choose_targets`).  The rules remove an
    ability with no legal choice."""
    from bridge.game import Game
    for k, item in enumerate(queue):
        g = Game(state, game.pool)
        if not spec_targets(g, item):
            state = _update(state, stack=[item, *state.stack])
            continue
        known = legal_targets(g, item, "putting_trigger")
        if known[2]:
            continue  # CR 603.3d: the rules removed it
        choices = list(target_choices(g, item, "putting_trigger", known))
        if not choices:
            raise RuleModuleError(f"the rules keep {item.label()} though it has no legal choice of targets")
        wanted = state.player(item.controller or state.active).trigger_targets.get(item.source or "")
        if wanted is not None and list(wanted) in choices:
            targets = list(wanted)
        elif len(choices) == 1:
            targets = choices[0]
        else:
            return _update(state, awaiting_targets=queue[k:])
        state = _with_targets_on_stack(game, state, item, targets)
    return state


def _with_targets_on_stack(game: "Game", state: GameState, item: StackObject, targets: list[str]) -> GameState:
    placed = item.model_copy(update={"targets": targets})
    state = _update(state, stack=[placed, *state.stack])
    if targets and "becomes_the_target" in game.position.facts:
        state = triggers_on(game.pool, state, state, _targeted_events(placed))
    return state


def trigger_target_choices(game: "Game") -> list[list[str]]:
    """The legal choices of targets of the triggered ability waiting for them (CR 603.3d),
    the default choice first: for each target an opponent's object or the opponent before
    the player's own, then by id."""
    state = game.state
    item = state.awaiting_targets[0]
    choices = list(target_choices(game, item, "putting_trigger"))
    mine = item.controller or state.active

    def ours(target: str) -> bool:
        if target in {p.name for p in state.players}:
            return target == mine
        perm = next((p for p in state.permanents() if p.id == target), None)
        return perm is not None and state.controller_of(perm) == mine
    return sorted(choices, key=lambda c: [(ours(t), t) for t in c])


def check_choose_targets(game: "Game", action: ChooseTargets) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 603.3d, 601.2c: the targets of the triggered ability waiting for them, chosen by
    its controller: the rules judge them."""
    from bridge.verdict import Violation
    state = game.state
    waiting = state.awaiting_targets[0] if state.awaiting_targets else None
    player = _actor(state, action.by, "choose_targets") if action.by else (
        waiting.controller if waiting is not None and waiting.controller else state.active)
    if waiting is None or waiting.id != action.ability or player != (waiting.controller or state.active):
        words = f"{game.describe(action.ability)} is not a triggered ability waiting for {player} to choose its targets"
        violation = Violation(rule="603.3d", objects=(action.ability,), message=words, reason="not_awaiting_targets",
                              step_rule="603.3", world="declared")
        return Verdict(legal=False, violations=(violation,)), frozenset()
    for t in action.targets:
        game._require_object(t, "choose_targets.targets")
    item = waiting.model_copy(update={"targets": list(action.targets)})
    return _judge(game, item, "putting_trigger", None)


def after_choose_targets(game: "Game", action: ChooseTargets) -> GameState:
    """CR 603.3d: the ability goes on the stack with its targets; the abilities after it go on
    the stack in turn; then the player who was to receive priority receives it (115.5)."""
    state = game.state
    waiting, rest = state.awaiting_targets[0], state.awaiting_targets[1:]
    state = _update(state, awaiting_targets=[])
    state = _with_targets_on_stack(game, state, waiting, list(action.targets))
    state = _put_in_order(game, state, list(rest))
    if state.awaiting_targets or not state.pending_triggers:
        return state
    return _give_priority(game, state, state.priority_player())


def awaiting_flow_violation(game: "Game") -> Verdict | None:
    """CR 603.3b, 603.3d: while a triggered ability waits for its controller to choose its
    targets, nobody acts before it is on the stack."""
    from bridge.verdict import Violation
    state = game.state
    if not state.awaiting_targets:
        return None
    item = state.awaiting_targets[0]
    who = item.controller or state.active
    words = f"{who} first chooses the targets of {item.label()} as it is put on the stack"
    violation = Violation(rule="603.3d", objects=(item.id or "",), message=words, reason="awaiting_targets",
                          step_rule="603.3b", world="declared")
    return Verdict(legal=False, violations=(violation,))


def default_target_choice(game: "Game") -> ChooseTargets | None:
    """The default choice of the triggered ability waiting for its targets, if one waits."""
    if not game.state.awaiting_targets:
        return None
    item = game.state.awaiting_targets[0]
    return ChooseTargets(ability=item.id or "", targets=trigger_target_choices(game)[0], by=item.controller)


def _targeted_events(item: StackObject) -> list[str]:
    """CR 603.2: each object a spell or ability targets "becomes the target" of it as it is put
    on the stack (601.2c, 602.2b, 603.3d)."""
    return [f"becomes_target({asp_string(t)})" for t in dict.fromkeys(item.targets)]


# A position as a key of answers that don't read priority or who passed.
def _steps_key(state: GameState) -> str:
    return state.model_copy(update={"priority": None, "passed": []}).model_dump_json()


# ---------------------------------------------------------------------- resolving
def resolve_top(game: "Game") -> GameState:
    """CR 608: the top object of the stack resolves: the rules say what it does and where it
    goes (a spell to a zone or the battlefield, a copy or an ability nowhere); then the active
    player receives priority (115.3b)."""
    from bridge.game import Game
    state = game.state
    top = state.stack[0]
    facts = game.position.facts + f"\nresolving({asp_string(top.id or '')})."
    model = Session(game.modules(*RESOLVING), facts, RESOLVING_PARTS).solve().model
    leaving = _leaving_stack(model)
    where = leaving.get(top.id or "")
    if where is None:
        raise RuleModuleError(f"the rules don't say where {top.label()} goes as it resolves")
    state = state.model_copy(update={"stack": state.stack[1:]})
    if where == "none":
        state = _update(state, gone=[*state.gone, top.id])
    if not any(s.match("countered_on_resolution", 1) for s in model):
        state = _apply_results(game, state, top, model, leaving)
    if where == "battlefield":
        state = _enter_battlefield(game, state, top, model)
    elif where != "none":
        state = _to_zone(state, top, where, game.pool)
    return _give_priority(Game(state, game.pool), state, state.active)


def _leaving_stack(model: frozenset[clingo.Symbol]) -> dict[str, str]:
    """Where each object leaving the stack goes, as the rules show it (``leaves_stack_to/2``:
    a zone of its owner's, the battlefield, or ``none`` when it ceases to exist)."""
    return {s.arguments[0].string: s.arguments[1].name for s in model if s.match("leaves_stack_to", 2)}


def _owner(state: GameState, item: StackObject) -> str:
    return item.controller or state.active


def _to_zone(state: GameState, item: StackObject, zone: str, pool: object = None) -> GameState:
    """A card leaves the stack for a zone of its owner's; on its way to the graveyard,
    replacement effects may send it elsewhere (CR 614.1a, 616.1)."""
    owner = _owner(state, item)
    if zone == "graveyard" and pool is not None:
        zone = graveyard_destinations(pool, state, [(item.id or "", item.card or "", owner, None)])[item.id or ""]
    moved = place(state.model_copy(update={"stack": [s for s in state.stack if s.id != item.id]}), owner,
                  CardRef(id=item.id, card=item.card or ""), zone)
    return _update(moved)


def _leave_stack(state: GameState, oid: str, where: str, pool: object = None) -> GameState:
    """An object leaves the stack (countered, CR 701.5a) for where the rules say: a zone of its
    owner's, or nowhere (it ceases to exist)."""
    if where == "none":
        return _update(state, stack=[s for s in state.stack if s.id != oid], gone=[*state.gone, oid])
    return _to_zone(state, state.stack_object(oid), where, pool)


def _enter_battlefield(game: "Game", state: GameState, item: StackObject, model: frozenset[clingo.Symbol]
                       ) -> GameState:
    """CR 608.3: a permanent spell enters the battlefield under its controller's control; an
    Aura attached to what the rules say (608.3a)."""
    card = game.pool.get(item.card or "")
    attached = next((s.arguments[1].string for s in model if s.match("enters_attached", 2)
                     and s.arguments[0].string == item.id), None)
    controller = item.controller or state.active
    perm = Permanent(id=item.id, card=item.card or "", sick=True, attached_to=attached,
                     timestamp=_next_timestamp(game, state), counters=entering_counters(card, item.x or 0),
                     chosen=as_enters_choices(game, state, item.id or "", card, controller, _copy_candidates(model)))
    players = [p.model_copy(update={"battlefield": [*p.battlefield, perm]}) if p.name == controller else p
               for p in state.players]
    after = _update(state, players=players)
    return triggers_on(game.pool, after, after, [f"enters({asp_string(item.id or '')})"])


def _copy_candidates(model: frozenset[clingo.Symbol]) -> dict[str, str]:
    """CR 706.5, 706.2-706.3: the creatures a card entering as a copy may copy, each with the
    card of the copiable values it would take (``none``: a face-down creature's)."""
    return {s.arguments[0].string: _text(s.arguments[1]) for s in model if s.match("copy_candidate", 2)}


def _text(sym: clingo.Symbol) -> str:
    return sym.string if sym.type == clingo.SymbolType.String else str(sym)


# ---------------------------------------------------------------------- what a resolving object does
@dataclass
class _Outcome:
    """What the rules say the resolving object does (CR 608.2c: its ``result/1`` atoms),
    gathered kind by kind (``_COLLECT``) before it is applied phase by phase (``_PHASES``)."""

    model: frozenset[clingo.Symbol]
    leaving: dict[str, str]                  # where the objects leaving the stack go
    players: frozenset[str]
    moves: dict[str, str] = field(default_factory=dict)                       # permanent -> where it goes
    changes: dict[str, dict[str, object]] = field(default_factory=dict)       # permanent -> new status
    added: dict[str, dict[str, int]] = field(default_factory=dict)            # object -> shields, counters added
    must_block: dict[str, list[str]] = field(default_factory=dict)
    regenerated: bool = False
    combat_damage_prevented: bool = False
    cant_cast: set[str] = field(default_factory=set)
    damage_prevented: set[str] = field(default_factory=set)
    next_from: list[tuple[str, str]] = field(default_factory=list)
    life: dict[str, int] = field(default_factory=dict)
    draws: dict[str, int] = field(default_factory=dict)
    discards: dict[str, int] = field(default_factory=dict)
    random_discards: dict[str, int] = field(default_factory=dict)
    chosen_discards: list[str] = field(default_factory=list)
    mills: list[tuple[str, int]] = field(default_factory=list)
    skips: dict[str, int] = field(default_factory=dict)
    losers: set[str] = field(default_factory=set)
    extra_turns: list[str] = field(default_factory=list)
    extra_combats: int = 0
    effects: list[str] = field(default_factory=list)
    pumps: list[tuple[str, int, int]] = field(default_factory=list)
    returned: list[tuple[str, str]] = field(default_factory=list)
    under: dict[str, str] = field(default_factory=dict)
    from_hand: list[str] = field(default_factory=list)
    from_library: list[str] = field(default_factory=list)
    to_bottom: list[str] = field(default_factory=list)
    tokens: list[tuple[str, str, int]] = field(default_factory=list)
    blocked: str | None = None
    exiled_cards: list[str] = field(default_factory=list)
    searches: list[tuple[str, str, str]] = field(default_factory=list)
    shuffles: list[str] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)
    countered: list[str] = field(default_factory=list)
    delayed: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)
    lifelink_replaced: set[str] = field(default_factory=set)

    def add(self, oid: str, what: str, n: int) -> None:
        added = self.added.setdefault(oid, {})
        added[what] = added.get(what, 0) + n

    def tally(self, amounts: dict[str, int], player: str, n: int) -> None:
        amounts[player] = amounts.get(player, 0) + n


_Collect = Callable[[_Outcome, Sequence[clingo.Symbol]], None]


def _moves_to(zone: str) -> _Collect:
    def collect(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
        out.moves[args[0].string] = zone
    collect.__doc__ = f"CR 400.6: the permanent leaves the battlefield ({zone})."
    return collect


def _tap(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.15a: the permanent is tapped."""
    out.changes.setdefault(args[0].string, {})["tapped"] = True


def _untap(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.15b: the permanent is untapped."""
    out.changes.setdefault(args[0].string, {})["tapped"] = False


def _freeze(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 502.2: it doesn't untap during its controller's next untap step."""
    out.changes.setdefault(args[0].string, {})["frozen"] = True


def _attach(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.3a: the source becomes attached to the object."""
    out.changes.setdefault(args[0].string, {})["attached_to"] = args[1].string


def _regenerate(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.11a: regenerated instead of destroyed (what that does: ``regeneration/2``)."""
    out.regenerated = True


def _regeneration_shield(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.11a: a regeneration shield."""
    out.add(args[0].string, "regeneration_shields", 1)


def _prevention_shield(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615.7: the next N damage to the player or permanent is prevented."""
    out.add(args[0].string, "prevention_shield", args[1].number)


def _put_counters(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 120.1: counters put on a permanent."""
    out.add(args[0].string, f"counter:{args[1].string}", args[2].number)


def _provoked(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 702.36a: the creature blocks the provoking creature this turn if able."""
    out.must_block.setdefault(args[0].string, []).append(args[1].string)


def _prevent_next_from(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615.8: the next time the chosen source would deal damage to it, that is prevented."""
    out.next_from.append((args[0].string, args[1].string))


def _prevent_all_combat_damage(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615: all combat damage this turn is prevented."""
    out.combat_damage_prevented = True


def _cant_cast_spells(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 101.2: the player can't cast spells this turn."""
    out.cant_cast.add(args[0].string)


def _prevent_all_damage_to(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615: all damage to the player and his or her creatures this turn is prevented."""
    out.damage_prevented.add(args[0].string)


def _draw(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 119.2: the player draws N cards."""
    out.tally(out.draws, args[0].string, args[1].number)


def _gain_life(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 117.3: the player gains N life."""
    out.tally(out.life, args[0].string, args[1].number)


def _lose_life(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 117.3: the player loses N life."""
    out.tally(out.life, args[0].string, -args[1].number)


def _discard(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.7a: the player discards N cards of his or her choice."""
    out.tally(out.discards, args[0].string, args[1].number)


def _discard_at_random(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.7b: the player discards N cards at random."""
    out.tally(out.random_discards, args[0].string, args[1].number)


def _discard_card(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.7a: the card chosen is discarded."""
    out.chosen_discards.append(args[0].string)


def _mill(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """The top N cards of the player's library go to his or her graveyard."""
    out.mills.append((args[0].string, args[1].number))


def _skip_turns(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 614.10: the player skips his or her next N turns."""
    out.tally(out.skips, args[0].string, args[1].number)


def _lose_game(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 104.3e: the player loses the game."""
    out.losers.add(args[0].string)


def _extra_turn(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 500.7: an extra turn after this one."""
    out.extra_turns.insert(0, args[0].string)


def _additional_combat(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 500.8: an additional combat phase."""
    out.extra_combats += 1


def _effect(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 611.2: the resolving object's continuous effect applies to the object."""
    out.effects.append(_text(args[1]))


def _pump(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 702.20a, 702.22a, 702.42a, 702.80a: +N/+N (or -1/-1) until end of turn."""
    out.pumps.append((args[0].string, args[1].number, args[2].number))


def _return_card(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 400.6: a card returned from a graveyard to the battlefield or its owner's hand."""
    out.returned.append((args[0].string, args[1].name))


def _returned_under(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 110.2: the returned card enters under this player's control."""
    out.under[args[0].string] = args[1].string


def _from_hand(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """A card put onto the battlefield from a hand."""
    out.from_hand.append(args[0].string)


def _from_library(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """A revealed card put onto the battlefield from a library."""
    out.from_library.append(args[0].string)


def _to_bottom(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """A revealed card put at the bottom of its library."""
    out.to_bottom.append(args[0].string)


def _create_tokens_result(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 110.5: N tokens for the player."""
    out.tokens.append((args[0].string, args[1].string, args[2].number))


def _tokens_block(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 509.7: the tokens enter blocking this attacking creature."""
    out.blocked = args[0].string


def _exile_card(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 406.2: a card in a graveyard, a hand or a library is exiled."""
    out.exiled_cards.append(args[0].string)


def _search(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.14a: the card found in the player's library, and where it goes."""
    out.searches.append((args[0].string, args[1].string, args[2].name))


def _shuffle(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """The player's library is shuffled."""
    out.shuffles.append(args[0].string)


def _copy(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 706.9: a copy of the spell goes on the stack."""
    out.copies.append(args[0].string)


def _counter(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.5a: the spell or ability is countered (where it goes: ``leaves_stack_to/2``)."""
    out.countered.append(args[0].string)


def _delayed(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 603.7: a delayed triggered ability: what it does, when it triggers, what it is about
    and the permanent it waits on."""
    about = args[2].string if args[2].type == clingo.SymbolType.String else None
    watch = args[3].string if args[3].type == clingo.SymbolType.String else None
    out.delayed.append((str(args[0]), args[1].name, about, watch))


# CR 608.2c: each kind of result the rules show, and what gathers it.
_COLLECT: dict[str, _Collect] = {
    "destroy": _moves_to("graveyard"), "sacrifice": _moves_to("graveyard"), "exile": _moves_to("exile"),
    "return_to_hand": _moves_to("hand"), "put_on_top": _moves_to("put_on_top"),
    "put_on_bottom": _moves_to("put_on_bottom"),
    "tap": _tap, "untap": _untap, "freeze": _freeze, "attach": _attach, "regenerate": _regenerate,
    "regeneration_shield": _regeneration_shield, "prevention_shield": _prevention_shield,
    "put_counters": _put_counters, "provoked": _provoked, "prevent_next_from": _prevent_next_from,
    "prevent_all_combat_damage": _prevent_all_combat_damage, "cant_cast_spells": _cant_cast_spells,
    "prevent_all_damage_to": _prevent_all_damage_to,
    "draw": _draw, "gain_life": _gain_life, "lose_life": _lose_life, "discard": _discard,
    "discard_at_random": _discard_at_random, "discard_card": _discard_card, "mill": _mill,
    "skip_turns": _skip_turns, "lose_game": _lose_game, "extra_turn": _extra_turn,
    "additional_combat": _additional_combat, "effect": _effect, "pump": _pump,
    "return_card": _return_card, "returned_under": _returned_under, "from_hand": _from_hand,
    "from_library": _from_library, "to_bottom": _to_bottom, "create_tokens": _create_tokens_result,
    "tokens_block": _tokens_block, "exile_card": _exile_card, "search": _search, "shuffle": _shuffle,
    "copy": _copy, "counter": _counter, "delayed": _delayed,
}


def _apply_results(game: "Game", state: GameState, top: StackObject, model: frozenset[clingo.Symbol],
                   leaving: dict[str, str]) -> GameState:
    """CR 608.2c: carry out what the rules said the resolving object does: each result
    gathered by its kind, then applied phase by phase, in the order of ``_PHASES``."""
    out = _Outcome(model=model, leaving=leaving, players=frozenset(p.name for p in state.players))
    for s in model:
        if s.match("result", 1):
            result = s.arguments[0]
            collect = _COLLECT.get(result.name)
            if collect is None:
                raise RuleModuleError(f"the rules show a result the bridge doesn't know: {result}")
            collect(out, result.arguments)
    for phase in _PHASES:
        state = phase(game, state, top, out)
    return state


# ---------------------------------------------------------------------- its phases, in order
def _damage(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 118, 609.7: the damage it deals, at once (the rules computed it as for combat
    damage: marked, wither, life lost, lifelink, prevention)."""
    from bridge.game import _deal_damage
    dealt, out.lifelink_replaced = _deal_damage(state, out.model, game.pool)
    return dealt.model_copy(update={"combat_damage_dealt": state.combat_damage_dealt})


def _status(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """What it changes of permanents and players: tapped, untapped, attached, frozen (701.3,
    701.15, 502.2), shields (701.11a, 615.7), counters (120.1), a creature that must block
    (702.36a); and the rules for the rest of the turn (615, 101.2)."""
    changes = {oid: dict(c) for oid, c in out.changes.items()}
    for oid, added in out.added.items():
        if oid in out.players:
            continue
        perm = state.permanent(oid)
        change = changes.setdefault(oid, {})
        counters = dict(perm.counters)
        for what, n in added.items():
            if what.startswith("counter:"):
                counters[what[8:]] = counters.get(what[8:], 0) + n
            else:
                change[what] = getattr(perm, what) + n
        if counters != perm.counters:
            change["counters"] = counters
    for oid, attackers in out.must_block.items():
        changes.setdefault(oid, {})["must_block"] = [*state.permanent(oid).must_block, *attackers]
    state = _update_permanents(state, changes)
    updates: dict[str, dict[str, object]] = {}
    for p in state.players:
        shield = out.added.get(p.name, {}).get("prevention_shield")
        if shield:
            updates.setdefault(p.name, {})["prevention_shield"] = p.prevention_shield + shield
        if p.name in out.cant_cast:
            updates.setdefault(p.name, {})["cant_cast_spells"] = True
        if p.name in out.damage_prevented:
            updates.setdefault(p.name, {})["damage_prevented"] = True
    if updates:
        state = _update(state, players=[p.model_copy(update=updates[p.name]) if p.name in updates else p
                                        for p in state.players])
    if out.combat_damage_prevented:
        state = _update(state, combat_damage_prevented=True)
    return state


def _regeneration(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 701.11a: what regenerating does, as the rules show it."""
    from bridge.game import apply_regeneration
    return apply_regeneration(state, out.model) if out.regenerated else state


def _prevent_next(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 615.8: a prevention effect for the next time the chosen source would deal damage."""
    for target, source in out.next_from:
        if target in out.players:
            state = _update(state, players=[p.model_copy(update={"prevent_next_from": [*p.prevent_next_from, source]})
                                            if p.name == target else p for p in state.players])
        else:
            perm = state.permanent(target)
            state = _update_permanents(state, {target: {"prevent_next_from": [*perm.prevent_next_from, source]}})
    return state


def _returning(out: _Outcome) -> set[str]:
    """The cards this resolution returns to the battlefield."""
    return {card_id for card_id, where in out.returned if where != "hand"}


def _effects_now(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 611.2: its continuous effect on the objects already there (one on a card it returns
    to the battlefield begins once the card is there, 608.2c: Rise from the Grave); the
    keyword abilities' +N/+N until end of turn."""
    coming = _returning(out)
    state = _add_effect(game, state, top, [e for e in out.effects if e not in coming])
    for target, power, toughness in out.pumps:
        words = f"{top.keyword}: {power:+d}/{toughness:+d} until end of turn"
        effect = Effect(text=words, targets=[target], modify_pt=(power, toughness), duration="end_of_turn",
                        timestamp=_next_timestamp(game, state), controller=top.controller or state.active)
        state = _update(state, effects=[*state.effects, effect])
    return state


def _life(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 117.3: life lost, then life gained (a gain may be replaced, 614.1a: then nothing
    triggers on it); the abilities that trigger on the gains and on the damage dealt."""
    from bridge.game import damage_events, lifelink_events
    losses = {name: n for name, n in out.life.items() if n < 0}
    if losses:
        state = _update(state, players=[p.model_copy(update={"life": p.life + losses.get(p.name, 0)})
                                        for p in state.players])
    gained = {name: n for name, n in out.life.items() if n > 0}
    state, replaced = gain_or_draw(game.pool, state, gained)
    events = [f"gains_life({asp_string(name)}, {asp_string(top.id or '')}, {n})" for name, n in gained.items()
              if name not in replaced]
    events += damage_events(out.model, out.players) + lifelink_events(out.model, out.lifelink_replaced)
    return triggers_on(game.pool, state, state, events)


def _cards(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 119.2: cards drawn; CR 701.7: discarded (the player's choice, by default the cards
    listed last; a card chosen by the spell's controller; at random); cards milled."""
    for player, n in out.draws.items():
        state = draw(state, player, n, game.pool)
    for player, n in out.discards.items():
        state = discard(state, player, n, game.pool)
    for card_id in out.chosen_discards:
        owner = next(p.name for p in state.players if any(c.id == card_id for c in p.hand))
        hand = state.player(owner).hand
        reordered = [c for c in hand if c.id != card_id] + [c for c in hand if c.id == card_id]
        state = discard(state.model_copy(update={"players": [p.model_copy(update={"hand": reordered})
                                                             if p.name == owner else p for p in state.players]}),
                        owner, 1, game.pool)
    for player, n in out.random_discards.items():
        state = discard(_shuffled_hand(state, player), player, n, game.pool)
    for player, n in out.mills:
        state = _mill(state, player, n, game.pool)
    return state


def _turns(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """Turns skipped (614.10), players losing (104.3e), extra turns (500.7: the most recently
    created is taken first) and combat phases (500.8)."""
    if out.skips:
        state = _update(state, players=[p.model_copy(update={"skip_turns": p.skip_turns + out.skips.get(p.name, 0)})
                                        for p in state.players])
    for loser in sorted(out.losers):
        state = _update(lose(game.pool, state, loser))
    if out.extra_turns or out.extra_combats:
        state = _update(state, extra_turns=[*out.extra_turns, *state.extra_turns],
                        extra_combats=state.extra_combats + out.extra_combats)
    return state


def _leave_battlefield(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 400.6: the permanents it destroys, exiles, returns or sacrifices leave the
    battlefield, at once (replacement effects on the way, leaving abilities triggering)."""
    return _move_permanents(state, out.moves, game.pool) if out.moves else state


def _enter_from_zones(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """Cards returned from graveyards (400.7: new objects), put onto the battlefield from a
    hand or a library, or put at the bottom of a library; then its continuous effect on the
    cards it returned to the battlefield (608.2c)."""
    candidates = _copy_candidates(out.model)
    for card_id, where in out.returned:
        state = _return_from_graveyard(game, state, card_id, where, out.under.get(card_id), candidates)
    for card_id in out.from_hand:
        state = _card_to(game, state, card_id, "hand", "battlefield", candidates=candidates)
    for card_id in out.from_library:
        state = _card_to(game, state, card_id, "library", "battlefield", candidates=candidates)
    for card_id in out.to_bottom:
        state = _update(state, players=[p.model_copy(update={"library": [c for c in p.library if c.id != card_id]
                                                              + [c for c in p.library if c.id == card_id]})
                                        for p in state.players])
    arrived = {p.id for p in state.permanents()} & _returning(out)
    return _add_effect(game, state, top, [e for e in out.effects if e in arrived])


def _new_tokens(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 110.5: tokens enter the battlefield (509.7: blocking, when the rules say so)."""
    for player, card_name, n in out.tokens:
        state = _create_tokens(game, state, player, card_name, n, out.blocked)
    return state


def _exile_cards(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 406.2: cards in graveyards, hands and libraries go to exile."""
    if not out.exiled_cards:
        return state
    players = []
    for p in state.players:
        moved = [c for zone in ("graveyard", "hand", "library") for c in getattr(p, zone) if c.id in out.exiled_cards]
        update = {zone: [c for c in getattr(p, zone) if c.id not in out.exiled_cards]
                  for zone in ("graveyard", "hand", "library")}
        players.append(p.model_copy(update={**update, "exile": [*p.exile, *moved]}))
    return _update(state, players=players)


def _libraries(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 701.14a: the cards found go where the instruction says; then the libraries searched
    are shuffled."""
    candidates = _copy_candidates(out.model)
    for player, card_id, where in out.searches:
        state = _take_from_library(game, state, player, card_id, where, candidates)
    for player in out.shuffles:
        state = shuffle(state, player)
    return state


def _stack(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 706.9: copies of spells go on the stack; CR 701.5a: the spells and abilities it
    counters leave the stack for where the rules say (702.31a: exile for a flashback spell;
    706.9a: a copy ceases to exist)."""
    for oid in out.copies:
        state = _copy_spell(state, oid, top.controller or state.active)
    for oid in out.countered:
        where = out.leaving.get(oid)
        if where is None:
            raise RuleModuleError(f"the rules don't say where the countered {oid!r} goes")
        state = _leave_stack(state, oid, where, game.pool)
    return state


def _create_delayed(game: "Game", state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 603.7: the delayed triggered abilities it creates wait for their moment or event;
    CR 603.7d: their source is the spell, or the source of the ability, and their controller
    its controller."""
    for key, at, about, watch in out.delayed:
        oid = fresh_id(f"{top.source or top.id}_delayed", state.used_ids())
        item = StackObject(id=oid, source=top.source or top.id, delayed=key, about=about, at=at,  # type: ignore[arg-type]
                           watch=watch, controller=top.controller or state.active)
        state = _update(state, delayed_triggers=[*state.delayed_triggers, item])
    return state


_Phase = Callable[["Game", GameState, StackObject, _Outcome], GameState]

# CR 608.2c: the instructions are followed in the order written; the bridge applies the
# results of one resolution in this order: damage (dealt at once), then what changes
# permanents and players in place, then the cards drawn and discarded, then the permanents
# leaving the battlefield, then the cards entering it (an effect on a card returned to the
# battlefield applies once the card is there), tokens, cards exiled and searched for, and
# last the stack: copies of spells, spells countered, and delayed triggered abilities (created
# last, so that one waiting on a permanent sees it leave only after it was created, 603.7a).
_PHASES: tuple[_Phase, ...] = (
    _damage, _status, _regeneration, _prevent_next, _effects_now, _life, _cards, _turns,
    _leave_battlefield, _enter_from_zones, _new_tokens, _exile_cards, _libraries, _stack, _create_delayed,
)


def _chooses(card: object) -> set[str]:
    """What a card's abilities ask for as it enters: a color, a creature type (614.12)."""
    needs: set[str] = set()

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            if "chosen" in value:
                needs.add({"set_creature_types": "creature_type", "set_land_types": "land_type"}.get(key, "color"))
            for v in value:
                walk(v, key)
        elif value == "chosen":
            needs.add("color" if key == "color" else "creature_type")
    walk([a.model_dump() if hasattr(a, "model_dump") else a for a in getattr(card, "abilities")])
    return needs


def _enters_as_copy(card: Card) -> bool:
    """CR 706.2: "enters the battlefield as a copy" (Clone, Vesuvan Doppelganger)."""
    return any(getattr(a, "keyword", None) in ("enters_as_copy", "enters_as_copy_except_color") for a in card.abilities)


def as_enters_choices(game: "Game", state: GameState, oid: str, card: object, controller: str,
                      candidates: Mapping[str, str] | None = None) -> dict[str, str]:
    """CR 614.1c, 614.12: the choices made as a permanent enters the battlefield: what Clone
    copies ("you may": the player's choice among the creatures the rules list in
    ``candidates``; the bridge's default: the one whose copiable values have the greatest
    power, if any), then the color, creature type or basic land type its abilities (or the
    copied ones) ask for (default: the color most common among the opponent's permanents,
    else white; the creature type most common among the player's creatures, else its own
    first; the basic land type most common among the player's lands, else plains).  The
    player's stated choices (``as_enters``) come first."""
    from bridge.cards import COLORS, Card
    assert isinstance(card, Card)
    stated = dict(state.player(controller).as_enters.get(oid, {}))
    chosen: dict[str, str] = {}
    looks_like = card
    if _enters_as_copy(card):
        # CR 706.5: a creature on the battlefield as it enters, with the card of the copiable
        # values it would take (706.2-706.3, as the rules say; none for a face-down creature)
        here = {p.id for p in state.permanents()}
        options = {x: c for x, c in (candidates or {}).items() if x != oid and x in here}

        def power(x: str) -> int:
            return (game.pool.get(options[x]).power or 0) if options[x] != "none" else 0
        target = stated.get("copy")
        if target not in options:
            target = max(options, key=lambda x: (power(x), x)) if options else None
        if target is not None:
            chosen["copy"] = target
            if options[target] != "none":
                looks_like = game.pool.get(options[target])
                chosen["copy_card"] = looks_like.id  # kept if the original leaves (706.2)
    for need in sorted(_chooses(card) | _chooses(looks_like)):
        if need in stated:
            chosen[need] = stated[need]
        elif need == "color":
            opponent = state.opponent(controller)
            colors = [c for p in state.permanents() if state.controller_of(p) == opponent
                      for c in game.pool.get(p.card).color_list()]
            order = list(COLORS.values())
            chosen["color"] = max(order, key=lambda c: (colors.count(c), -order.index(c))) if colors else "white"
        elif need == "land_type":
            basics = ("plains", "island", "swamp", "mountain", "forest")
            have = [t for p in state.permanents() if state.controller_of(p) == controller
                    for t in game.pool.get(p.card).subtypes if t in basics]
            chosen["land_type"] = max(basics, key=lambda t: (have.count(t), -basics.index(t)))
        else:
            types = [t for p in state.permanents() if state.controller_of(p) == controller
                     and "creature" in game.pool.get(p.card).types for t in game.pool.get(p.card).subtypes]
            own = card.subtypes[0] if card.subtypes else "human"
            chosen["creature_type"] = max(sorted(set(types)), key=types.count) if types else own
    return chosen


def entering_counters(card: object, x: int) -> dict[str, int]:
    """CR 614.1c, 614.12: "enters the battlefield with N (or X) counters", read from the
    permanent as it would exist on the battlefield (its own printed abilities); X is 0 unless
    it was cast with one (107.3)."""
    counters: dict[str, int] = {}
    for ability in getattr(card, "all_abilities")():
        if getattr(ability, "keyword", None) == "enters_with_counters":
            n = x if ability.x else ability.number
            if n:
                counters[ability.counter] = counters.get(ability.counter, 0) + n
    return counters


def _add_effect(game: "Game", state: GameState, top: StackObject, targets: list[str]) -> GameState:
    """CR 611.2: the resolving object's continuous effect on these objects."""
    if not targets:
        return state
    source = top.card if top.card is not None else top.source
    spec = _own_effect(game, top)
    fields = spec.model_dump(exclude_defaults=True) if spec is not None else {}
    effect = Effect.model_validate({**fields, "source": source, "targets": sorted(set(targets)),
                                    "timestamp": _next_timestamp(game, state), "controller": top.controller or state.active})
    return _update(state, effects=[*state.effects, effect])


def _return_from_graveyard(game: "Game", state: GameState, card_id: str, where: str,
                           controller: str | None = None, candidates: Mapping[str, str] | None = None) -> GameState:
    """A card leaves its owner's graveyard for the hand, or the battlefield under the owner's
    control or ``controller``'s (a new object, 400.7)."""
    return _card_to(game, state, card_id, "graveyard", where, controller, candidates)


def _take_from_library(game: "Game", state: GameState, player: str, card_id: str, where: str,
                       candidates: Mapping[str, str] | None = None) -> GameState:
    """The card found by a search goes to the hand or onto the battlefield (tapped)."""
    return _card_to(game, state, card_id, "library", where, candidates=candidates)


def _card_to(game: "Game", state: GameState, card_id: str, zone: str, where: str,
             controller: str | None = None, candidates: Mapping[str, str] | None = None) -> GameState:
    """A card leaves one of its owner's zones for the hand, or the battlefield (``battlefield``
    or ``battlefield_tapped``) under the owner's control, entering with what it enters with or
    as (614.1c, 614.12; ``candidates``: what a copy may copy, 706.5); what its entering
    triggers waits."""
    owner = next(p.name for p in state.players if any(c.id == card_id for c in getattr(p, zone)))
    card = next(c for c in getattr(state.player(owner), zone) if c.id == card_id)
    players = []
    for p in state.players:
        if p.name == owner:
            update: dict[str, object] = {zone: [c for c in getattr(p, zone) if c.id != card_id]}
            if where == "hand":
                update["hand"] = [*p.hand, card]
            else:
                printed = game.pool.get(card.card)
                update["battlefield"] = [*p.battlefield, Permanent(
                    id=card.id, card=card.card, sick=True, tapped=where == "battlefield_tapped",
                    controller=controller if controller not in (None, owner) else None,
                    timestamp=_next_timestamp(game, state), counters=entering_counters(printed, 0),
                    chosen=as_enters_choices(game, state, card.id or "", printed, controller or owner, candidates))]
            p = p.model_copy(update=update)
        players.append(p)
    after = _update(state, players=players)
    if where == "hand":
        return after
    return triggers_on(game.pool, after, after, [f"enters({asp_string(card_id)})"])


def shuffle(state: GameState, player: str) -> GameState:
    """CR 701.19: the library is put in a random order; here a fixed pseudo-random order
    drawn from the position, so that a game log replays exactly."""
    import random
    players = []
    for p in state.players:
        if p.name == player:
            library = list(p.library)
            seed = f"{state.turn}/{state.step}/{player}/" + ",".join(c.id or "" for c in library)
            random.Random(seed).shuffle(library)
            p = p.model_copy(update={"library": library})
        players.append(p)
    return _update(state, players=players)


def _shuffled_hand(state: GameState, player: str) -> GameState:
    """CR 701.7b: the hand in a random order (a fixed pseudo-random one drawn from the
    position, so that a game log replays), so that the cards listed last are a random choice."""
    import random
    hand = list(state.player(player).hand)
    random.Random(f"{state.turn}/{state.step}/{player}/hand/" + ",".join(c.id or "" for c in hand)).shuffle(hand)
    return state.model_copy(update={"players": [p.model_copy(update={"hand": hand}) if p.name == player else p
                                                for p in state.players]})


def _copy_spell(state: GameState, oid: str, controller: str) -> GameState:
    """CR 706.10: a copy of the spell goes on the stack (on top), controlled by the player who
    copied it, with the same choices (targets, X, mode)."""
    item = state.stack_object(oid)
    copy = item.model_copy(update={"id": fresh_id(f"{oid}_copy", state.used_ids()), "controller": controller,
                                   "copy_of_card": True})
    return _update(state, stack=[copy, *state.stack])


def ability_card(game: "Game", item: StackObject) -> Card:
    """The card whose ability a stack object is: the source's own, or the card it copies
    (CR 706.2: a Clone has the copied card's abilities)."""
    if item.copied_from is not None:
        return game.pool.get(item.copied_from)
    return game.position.card(item.source or "")


def permanent_card(game: "Game", object_id: str) -> Card:
    """The card whose text a permanent has: its own, or for a copy the card the rules say its
    copiable values come from (CR 706.2-706.3: ``text_card/2``; a Clone whose original has
    left keeps the card of the values it took)."""
    card = game.position.card(object_id)
    if not _COPYING.search(game.position.live):
        return card
    text = _text_cards(game).get(object_id)
    return game.pool.get(text) if text is not None and text != card.id else card


# the facts of a position in which some object may be a copy (CR 706)
_COPYING = re.compile(r"\bcopies\(|ability, enters_as_copy")
# the text cards of the permanents of the positions asked last, by position
_TEXT_CARDS: "dict[int, tuple[object, dict[str, str]]]" = {}


def _text_cards(game: "Game") -> dict[str, str]:
    """The card each permanent's text comes from, as the rules say (asked once a position)."""
    known = _TEXT_CARDS.get(id(game.position))
    if known is not None and known[0] is game.position:
        return known[1]
    cards = {oid: ch.text_card for oid, ch in game.all_characteristics().items() if ch.text_card is not None}
    if len(_TEXT_CARDS) >= 32:
        del _TEXT_CARDS[next(iter(_TEXT_CARDS))]
    _TEXT_CARDS[id(game.position)] = (game.position, cards)
    return cards


def _own_effect(game: "Game", item: StackObject) -> object:
    """The continuous effect of an activated ability or a spell's mode, when it has its own
    (else the card's ``effect`` applies)."""
    if item.keyword is not None or item.delayed is not None:
        return None
    if item.source is not None:
        card = ability_card(game, item)
        if item.trigger is not None:
            return card.triggered[item.trigger - 1].effect
        return card.activated[(item.ability or 1) - 1].effect
    if item.mode is not None:
        return game.pool.get(item.card or "").modes[item.mode - 1].effect
    return None


def draw(state: GameState, player: str, n: int, pool: object = None) -> GameState:
    """CR 120.1-120.2: draw from the top of the library; drawing from an empty library is
    recorded for the state-based actions (704.5b). CR 614.11, 614.11a: each draw may be
    replaced, even from an empty library, before the next."""
    found = replacement_sources(pool, state) if pool is not None and n > 0 else []
    if draw_replaced(found, state, player):
        for _ in range(n):
            state = return_instead_of_draw(state, player, pool)
        return state
    players = []
    drawn = 0
    first: list[str] = []
    for p in state.players:
        if p.name == player:
            take = p.library[:n]
            drawn = len(take)
            empty = len(p.library) < n
            if take and p.drawn_this_turn == 0:
                first = [take[0].id or "", take[0].card]
            p = p.model_copy(update={"library": p.library[n:], "hand": [*p.hand, *take],
                                     "drew_from_empty_library": p.drew_from_empty_library or empty,
                                     "drawn_this_turn": p.drawn_this_turn + drawn})
        players.append(p)
    state = _update(state, players=players)
    if pool is None or not drawn:
        return state
    whens = {t.when for p in state.permanents() for t in pool.get(p.card).triggered}  # type: ignore[attr-defined]
    # CR 120.1, 603.2c: each card drawn is an event ("whenever an opponent draws a card")
    events = [f"draws({asp_string(player)}, {k})" for k in range(1, drawn + 1)] if "an_opponent_draws" in whens else []
    if first and "you_reveal_this_way" in whens:
        # CR 603.10: the first card the player draws this turn (revealed by a static ability)
        card = pool.get(first[1]).id  # type: ignore[attr-defined]
        events.append(f"first_draw({asp_string(player)}, {asp_string(first[0])}, {asp_string(card)})")
    return triggers_on(pool, state, state, events) if events else state


def discard(state: GameState, player: str, n: int, pool: object = None) -> GameState:
    """CR 701.7: the player discards n cards; the player's choice, by default the cards listed
    last in the hand. On their way to the graveyard replacement effects may send them
    elsewhere (614.1a)."""
    hand = state.player(player).hand
    keep = max(len(hand) - n, 0)
    if n <= 0 or keep == len(hand):
        return state
    going = hand[keep:]
    players = [p.model_copy(update={"hand": p.hand[:keep]}) if p.name == player else p for p in state.players]
    state = _update(state, players=players)
    where = graveyard_destinations(pool, state, [(c.id or "", c.card, player, None) for c in going]) \
        if pool is not None else {}
    for card in going:
        state = place(state, player, card, where.get(card.id or "", "graveyard"))
    if pool is None:
        return state
    # CR 701.7, 603.2c: each card discarded is an event ("whenever an opponent discards a card")
    return triggers_on(pool, state, state, [f"discards({asp_string(player)}, {k})" for k in range(1, len(going) + 1)])


def _mill(state: GameState, player: str, n: int, pool: object) -> GameState:
    """The top n cards of the player's library (all when it has fewer) go to his or her
    graveyard, top first; replacement effects may send them elsewhere (614.1a)."""
    library = state.player(player).library
    going = library[:n]
    if not going:
        return state
    state = _update(state, players=[p.model_copy(update={"library": p.library[len(going):]}) if p.name == player else p
                                    for p in state.players])
    where = graveyard_destinations(pool, state, [(c.id or "", c.card, player, None) for c in going])
    for card in going:
        state = place(state, player, card, where.get(card.id or "", "graveyard"))
    return state


def _create_tokens(game: "Game", state: GameState, player: str, card_slug: str, n: int,
                   blocking: str | None = None) -> GameState:
    """CR 110.5b: tokens enter the battlefield under the player's control; CR 509.7: blocking
    an attacking creature, placed last in its damage assignment order when it has one (the
    active player may announce another order)."""
    if card_slug not in game.pool:
        raise InputError(f"the token card {card_slug!r} is not in the card pool")
    card = game.pool.get(card_slug)
    taken = state.used_ids()
    new = []
    for _ in range(n):
        oid = fresh_id(f"{card_slug}_token", taken, numbered=True)
        new.append(Permanent(id=oid, card=card.name, token=True, sick=True, blocking=[blocking] if blocking else [],
                             timestamp=_next_timestamp(game, state) + len(new)))
    players = [p.model_copy(update={"battlefield": [*p.battlefield, *new]}) if p.name == player else p
               for p in state.players]
    state = _update(state, players=players)
    state = triggers_on(game.pool, state, state, [f"enters({asp_string(t.id or '')})" for t in new])
    if blocking is not None:
        attacker = state.permanent(blocking)
        update: dict[str, object] = {"blocked": True}
        if attacker.damage_order:
            update["damage_order"] = [*attacker.damage_order, *(t.id for t in new)]
        state = _update_permanent(state, blocking, update)
    return state


def _move_permanents(state: GameState, moves: dict[str, str], pool: object = None) -> GameState:
    """Permanents leave the battlefield for their owner's zones (tokens cease to exist,
    704.5d); what was attached to them, blocked by them or attacking them is updated; with a
    card pool, the abilities that trigger on their leaving wait to go on the stack."""
    from bridge.game import _remove_from_combat
    before = state
    if pool is not None and "graveyard" in moves.values():
        # CR 614.1a, 616.1: a card on its way to a graveyard may go elsewhere instead
        going = [(perm.id or "", perm.card, player.name, before.controller_of(perm))
                 for player in before.players for perm in player.battlefield if moves.get(perm.id or "") == "graveyard"]
        tokens = frozenset(perm.id or "" for perm in before.permanents() if perm.token)
        instead = graveyard_destinations(pool, before, going, tokens=tokens)  # type: ignore[arg-type]
        moves = {**moves, **{oid: where if where != "library" else "shuffle_into_library"
                              for oid, where in instead.items() if where != "graveyard"}}
    state = _remove_from_combat(state, set(moves))
    owners = {perm.id: player.name for player in state.players for perm in player.battlefield}
    leaving = {perm.id: perm for perm in state.permanents() if perm.id in moves}
    players = []
    for player in state.players:
        battlefield = []
        for perm in player.battlefield:
            if perm.id in leaving:
                continue
            if perm.attached_to in leaving:
                perm = perm.model_copy(update={"attached_to": None})
            battlefield.append(perm)
        update: dict[str, object] = {"battlefield": battlefield}
        for oid, perm in leaving.items():
            if owners[oid] != player.name or perm.token:
                continue
            ref = CardRef(id=oid, card=perm.card)
            where = moves[oid]
            if where == "put_on_top":
                update["library"] = [ref, *update.get("library", player.library)]  # type: ignore[misc]
            elif where in ("put_on_bottom", "shuffle_into_library"):
                update["library"] = [*update.get("library", player.library), ref]  # type: ignore[misc]
            else:
                update[where] = [*update.get(where, getattr(player, where)), ref]  # type: ignore[misc]
        players.append(player.model_copy(update=update))
    effects = [e.model_copy(update={"targets": [t for t in e.targets if t not in leaving]})
               for e in state.effects if not e.targets or set(e.targets) - set(leaving)]
    tokens = [oid for oid, perm in leaving.items() if perm.token]
    after = _update(state, players=players, effects=effects, gone=[*state.gone, *tokens])
    for owner in sorted({owners[oid] for oid, where in moves.items() if where == "shuffle_into_library"}):
        after = shuffle(after, owner)
    if pool is None:
        return after
    return triggers_on(pool, before, after, leaving_events(before, moves))


# ---------------------------------------------------------------------- steps and turns
# CR 506.4, 511.3: what a permanent removed from combat keeps of combat: nothing.
_OUT_OF_COMBAT = {"attacking": None, "blocking": [], "band": None, "blocked": False, "damage_order": [],
                  "struck_first": False, "removed_from_combat": False}


def end_step(game: "Game") -> GameState:
    """CR 500.2-500.5: the step ends and the next begins.  The rules say which step comes next
    (skipped steps passed over), what changes as this one ends and, after the cleanup step,
    whose turn begins and which records of the turn start again."""
    state = game.state
    model = game._steps_model(state)
    step = next(s.arguments[0].name for s in model if s.match("next_step", 1))
    # in a step where nobody received priority, state-based actions were not checked after
    # its turn-based actions
    return begin_step(game, _step_ends(state, model), step, checked=state.priority is not None)


def _step_ends(state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """Apply what the rules show changing as the step ends (``step_ends``, 500.4, 500.8,
    511.3) and, when a new turn begins, who takes it and what starts again (``next_turn``,
    500.7, 614.10, 302.6)."""
    ends = [s.arguments[0] for s in model if s.match("step_ends", 1)]
    if any(c.match("empty_mana_pools", 0) for c in ends) and any(p.mana_pool for p in state.players):
        state = _update(state, players=[p.model_copy(update={"mana_pool": ""}) for p in state.players])
    removed = {c.arguments[0].string for c in ends if c.match("remove_from_combat", 1)}
    if removed:
        state = _update_permanents(state, {o: _OUT_OF_COMBAT for o in removed})
    if any(c.match("end_combat_phase", 0) for c in ends):
        state = _update(state, declared=[], attacked_this_combat=False)
    if any(c.match("use_extra_combat", 0) for c in ends):
        state = _update(state, extra_combats=state.extra_combats - 1)
    turn = next((s for s in model if s.match("next_turn", 2)), None)
    return state if turn is None else _new_turn(state, model, turn)


def _new_turn(state: GameState, model: frozenset[clingo.Symbol], turn: clingo.Symbol) -> GameState:
    """The turn the rules show begins (turn number and player), with the extra turns it used
    and the turns skipped on the way (500.7, 614.10), and the records they reset."""
    used = {s.arguments[0].number for s in model if s.match("extra_turn_used", 1)}
    # extra_turn(K, P) is the K-th extra turn created; the state lists the most recent first
    count = len(state.extra_turns)
    extra = [p for i, p in enumerate(state.extra_turns) if count - i not in used]
    skipped = {s.arguments[0].string: s.arguments[1].number for s in model if s.match("turns_skipped", 2)}
    resumes = next((s.arguments[0].string for s in model if s.match("next_turn_order_resumes", 1)), None)
    # CR 302.6: control that changed since the game last looked (an effect that ended in the
    # cleanup step) is recorded first; the new active player's permanents then start again
    from bridge.game import _control_changes
    state = _control_changes(state, model)
    player_fields: dict[str, dict[str, object]] = {p.name: {} for p in state.players}
    permanents: dict[str, dict[str, object]] = {}
    fields: dict[str, object] = {}
    for s in model:
        if not s.match("new_turn_resets", 1):
            continue
        what = s.arguments[0]
        if what.match("lands_played", 1) or what.match("drawn_this_turn", 1):
            player_fields[what.arguments[0].string][what.name] = 0
        elif what.match("activated_this_turn", 0):
            fields["activated_this_turn"] = []
        elif what.match("extra_combats", 0):
            fields["extra_combats"] = 0
        elif what.match("attacked_this_turn", 1) or what.match("sick", 1):
            permanents.setdefault(what.arguments[0].string, {})[what.name] = False
    players = [p.model_copy(update={**player_fields[p.name], "skip_turns": p.skip_turns - skipped.get(p.name, 0)})
               for p in state.players]
    state = _update(state, turn=turn.arguments[0].number, active=turn.arguments[1].string, players=players,
                    extra_turns=extra, after_extra_turns=resumes, **fields)
    return _update_permanents(state, permanents)


def begin_step(game: "Game", state: GameState, step: str, checked: bool = True) -> GameState:
    """The step begins: its turn-based actions (703), the abilities that trigger as it begins,
    then priority (115.3a) -- unless the rules say that a turn-based action awaits a player's
    declaration or combat damage first (508.1, 509.1, 510.1), or that no player receives
    priority in this step (502.3, 514.3): then, after the check of 514.3a where the rules ask
    for it, the step ends.  ``checked``: state-based actions were checked since anything
    changed (not so after a step in which nobody received priority)."""
    from bridge.game import Game
    # the records of the step that ended: who passed, priority, combat damage dealt in it
    state = _update(state, step=step, passed=[], priority=None, combat_damage_dealt=False, cleanup_again=False)
    g = Game(state, game.pool)
    model = g._sba_model()
    acted = not checked or any(s.match("tba", 1) for s in model)
    state = _turn_based_actions(g, state, model)
    # CR 500.6, 503.1, 504.2, 513.1: abilities that trigger "at the beginning of" the step (in
    # the draw step after the draw)
    state = triggers_on(game.pool, state, state, [f"step_begins({step})"])
    acted = acted or bool(state.pending_triggers)
    due = {s.arguments[0].string for s in model if s.match("delayed_triggers", 1)}
    if due:
        # CR 603.7b: the delayed triggered abilities whose moment this is trigger, once
        state = _update(state, delayed_triggers=[d for d in state.delayed_triggers if d.id not in due],
                        pending_triggers=[*state.pending_triggers, *(d for d in state.delayed_triggers if d.id in due)])
        acted = True
    receives, pending = priority_now(g)
    if pending:
        return state  # CR 115.2c: a declaration or combat damage first; then priority
    if receives:
        return _give_priority(g, state, state.active, check=acted)
    if any(s.match("state_check_before_ending", 0) for s in model):
        # CR 514.3a: state-based actions that would be performed are, and abilities waiting
        # go on the stack; when any did, the rules give players priority here
        after = Game(state, game.pool)._state_based_actions()
        if after != state or after.pending_triggers:
            after = _update(after, cleanup_again=True)
            again = Game(after, game.pool)
            if priority_now(again)[0]:
                return _give_priority(again, after, after.active, check=False)
        state = after
    return end_step(Game(state, game.pool))


def _turn_based_actions(game: "Game", state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """Apply the turn-based actions the rules show as the step begins (703.4)."""
    changes: dict[str, dict[str, object]] = {}
    ended: set[int] = set()
    shields: dict[str, dict[str, object]] = {}
    for s in model:
        if not s.match("tba", 1):
            continue
        action = s.arguments[0]
        if action.match("end_effect", 1):
            ended.add(int(action.arguments[0].name[1:]) - 1)  # effect e<k> is the k-th of the state
            continue
        if action.match("end_combat_damage_prevention", 0):
            state = _update(state, combat_damage_prevented=False)
            continue
        target = action.arguments[0].string
        if action.name == "untap":
            changes.setdefault(target, {})["tapped"] = False
        elif action.name == "thaw":
            changes.setdefault(target, {})["frozen"] = False
        elif action.name in ("phase_out", "phase_out_indirectly"):
            changes.setdefault(target, {}).update(phased_out=True,
                                                  phased_out_indirectly=action.name == "phase_out_indirectly")
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
            # the default choice: the cards listed last are discarded
            state = discard(state, target, len(state.player(target).hand) - action.arguments[1].number, game.pool)
    if ended:
        state = _update(state, effects=[e for k, e in enumerate(state.effects) if k not in ended])
    players = {p.name for p in state.players}
    if any(x in players for x in shields):
        state = _update(state, players=[p.model_copy(update=shields[p.name]) if p.name in shields else p
                                        for p in state.players])
    for x, fields in shields.items():
        if x not in players:
            changes.setdefault(x, {}).update(fields)
    return _update_permanents(state, changes)


# CR 514.2: the value of a record of this turn once it has ended (the state's field names).
_THIS_TURN_ENDED: dict[str, object] = {"prevention_shield": 0, "regeneration_shields": 0, "must_block": [],
                                       "prevent_next_from": [], "cant_cast_spells": False, "damage_prevented": False}


def advance(game: "Game", step: str, turn: int | None) -> GameState:
    """Players pass priority until the game reaches ``step`` (in ``turn`` if given; nothing
    happens when it is there already); turn-based choices on the way take their defaults:
    no attackers, no blockers, the default combat damage assignment, the default targets of
    triggered abilities."""
    from bridge.game import Game
    g = game
    for _ in range(500):
        state = g.state
        if state.step == step and (turn is None or state.turn == turn) and not state.awaiting_targets:
            return state
        choice = default_target_choice(g)
        if choice is not None:
            g = Game(after_choose_targets(g, choice), g.pool)
            continue
        g = Game(after_pass(g, Pass()), g.pool)
    raise InputError(f"the game did not reach the {step} step" + (f" of turn {turn}" if turn else ""))


# ---------------------------------------------------------------------- small helpers
def _next_timestamp(game: "Game", state: GameState | None = None) -> int:
    """CR 613.6: a timestamp later than every one in the position."""
    permanents, effects = stamps(state or game.state)
    return max([*permanents.values(), *effects], default=0) + 1


# fields the engine sets to values it made itself, with no new object in them: a copy needs no
# validation
_PLAIN_FIELDS = frozenset({"priority", "passed", "step", "combat_damage_dealt", "cleanup_again", "declared",
                           "combat_damage_prevented", "extra_combats", "attacked_this_combat"})


def _update(state: GameState, **fields: object) -> GameState:
    if fields and _PLAIN_FIELDS.issuperset(fields):
        return state.model_copy(update=fields)
    return GameState.model_validate(state.model_copy(update=fields).model_dump())


def _update_permanents(state: GameState, changes: dict[str, dict[str, object]]) -> GameState:
    from bridge.game import _update_permanents as update
    return update(state, changes)


def _update_permanent(state: GameState, object_id: str, changes: dict[str, object]) -> GameState:
    return _update_permanents(state, {object_id: changes}) if changes else state
