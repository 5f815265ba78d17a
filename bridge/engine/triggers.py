"""Triggered abilities: which abilities an event makes trigger (603.2, asked of the position
before the event for what leaves the battlefield, 603.6c, 603.10), state triggers (603.8), the
events of damage and life gain, and putting the abilities that triggered on the stack in APNAP
order with their controllers' choices of targets (603.3b, 603.3d).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import clingo

from bridge.engine.acting import choosable_modes, legal_targets, spec_targets, target_choices
from bridge.engine.board import Board
from bridge.engine.facts import asp_string
from bridge.engine.solver import Session, atoms
from bridge.engine.updates import update_permanents, updated
from bridge.model.cards import CardPool
from bridge.model.errors import RuleModuleError
from bridge.model.state import GameState, StackObject, fresh_id

# ---------------------------------------------------------------------- triggered abilities
# the words of the facts that could make an ability trigger (or a permanent enter tapped):
# without them the question needs no grounding (a word inside a longer one only asks it)
_MAY_TRIGGER = (
    "triggered(",
    "exalted",
    "bushido",
    "flanking",
    "rampage",
    "provoke",
    "fading(",
    "enters_with_counters(",
    "champion(",
    "enter_tapped",
    "enters_tapped",
)


def _may_trigger(facts: str) -> bool:
    return any(word in facts for word in _MAY_TRIGGER)


# For some events, the trigger events of stack/triggers.lp (trigger_event facts) that can
# answer them, and other abilities that act on them: with none of them on the battlefield
# the question needs no grounding.  Events not listed are always asked about.
_EVENT_TRIGGERS = {
    "step_begins(upkeep)": (", beginning_of_upkeep).", "fading("),
    "step_begins(draw)": (", beginning_of_draw_step).",),
    "step_begins(main1)": (", beginning_of_precombat_main).",),
    "step_begins(end)": (", beginning_of_end_step).",),
    "step_begins(beginning_of_combat)": (", beginning_of_combat).",),
    "blockers_declared": (", attacks_and_isnt_blocked).",),
    "step_begins": (),  # the other steps: no trigger event of stack/triggers.lp answers them yet
    "casts": (", you_cast).", ", a_player_casts).", ", an_opponent_casts)."),
    "draws": (", an_opponent_draws).",),
    "first_draw": (", you_reveal_this_way).",),
    "discards": (", an_opponent_discards).",),
    "enters": (
        ", enters_battlefield).",
        ", landfall).",
        ", another_enters_battlefield).",
        "enters_tapped",
        "permanents_enter_tapped",
        "fading(",
        "enters_with_counters(",
        "champion(",
    ),
    "cast_with_x": ("enters_with_counters(",),
}


@dataclass(frozen=True)
class Entering:
    """How the permanents that enter do so, as the rules show (CR 614.1c): the ids of those
    that enter tapped, and the counters each enters with, by kind."""

    tapped: frozenset[str] = frozenset()
    counters: dict[str, dict[str, int]] = field(default_factory=dict)


def _could_trigger(live: str, events: list[str]) -> bool:
    marks: set[str] = set()
    for event in events:
        found = _EVENT_TRIGGERS.get(event) or _EVENT_TRIGGERS.get(event.split("(")[0])
        if found is None:
            return True
        marks.update(found)
    return any(mark in live for mark in marks)


def collect_triggers(pool: CardPool | None, state: GameState, events: list[str]) -> tuple[list[StackObject], Entering]:
    """CR 603.2: the abilities that trigger on these events, asked on ``state`` (for a
    permanent leaving the battlefield, the position before it left, 603.6c), without ids yet;
    and how the permanents that enter do so: tapped, with counters (614.1c)."""
    if not events:
        return [], Entering()
    game = Board(state, pool)
    if not _may_trigger(game.position.live):  # only permanents have triggered abilities
        return [], Entering()
    if not _could_trigger(game.position.live, events):
        return [], Entering()
    facts = game.position.facts + "\n" + "\n".join(f"event({e})." for e in events)
    model = Session(game.modules("stack/objects", "stack/triggers"), facts).solve().model

    def copied(s: clingo.Symbol) -> str | None:
        """CR 706.2: the card whose ability triggered, when the source has it by a copy effect."""
        card = s.arguments[1].string
        return None if card == game.position.card(s.arguments[0].string).id else game.pool.get(card).name

    items = [
        StackObject(
            source=s.arguments[0].string,
            trigger=s.arguments[2].number,
            controller=s.arguments[3].string,
            copied_from=copied(s),
        )
        for s in sorted((s for s in atoms(model, "triggered", 4)), key=str)
    ]
    owners = {str(s.arguments[0]): s.arguments[1].string for s in atoms(model, "about_controller", 2)}
    for s in sorted((s for s in atoms(model, "triggered_each", 5)), key=str):
        event = s.arguments[4]
        about = _about(event, s.arguments[0].string)
        # "that much": the life gained, as the ability's X
        x = event.arguments[2].number if event.match("gains_life", 3) else None
        items.append(
            StackObject(
                source=s.arguments[0].string,
                trigger=s.arguments[2].number,
                x=x,
                controller=s.arguments[3].string,
                about=about,
                about_controller=owners.get(str(event)),
                copied_from=copied(s),
            )
        )
    for s in sorted((s for s in atoms(model, "triggered_amount", 5)), key=str):
        # "that much": the amount of the event, as the ability's X
        items.append(
            StackObject(
                source=s.arguments[0].string,
                trigger=s.arguments[2].number,
                controller=s.arguments[3].string,
                x=s.arguments[4].number,
                copied_from=copied(s),
            )
        )
    for s in sorted((s for s in atoms(model, "keyword_triggered", 4)), key=str):
        items.append(
            StackObject(
                source=s.arguments[0].string,
                keyword=str(s.arguments[1]),
                about=s.arguments[2].string,
                controller=s.arguments[3].string,
            )
        )
    counters: dict[str, dict[str, int]] = {}
    for s in atoms(model, "enters_with_counters", 3):
        kinds = counters.setdefault(s.arguments[0].string, {})
        kinds[s.arguments[1].string] = kinds.get(s.arguments[1].string, 0) + s.arguments[2].number
    return items, Entering(frozenset(s.arguments[0].string for s in atoms(model, "enters_tapped", 1)), counters)


def _about(event: clingo.Symbol, source: str) -> str | None:
    """What an ability that triggered once for each event is about ("that creature", "that
    player"): the object of the event; for a blocking event, the other creature of the pair (the
    blocker's ability is about the creature it blocks, the attacker's about its blocker)."""
    if event.match("blocks_creature", 2):
        blocker, attacker = event.arguments[0].string, event.arguments[1].string
        return attacker if source == blocker else blocker
    if (
        event.match("to_graveyard", 1)
        or event.match("enters", 1)
        or event.match("leaves", 1)
        or event.match("draws", 2)
        or event.match("discards", 2)
    ):
        return event.arguments[0].string
    if event.match("deals_damage_to", 2) or event.match("unblocked", 2):
        return event.arguments[1].string
    return None


def triggers_on(pool: CardPool | None, before: GameState, after: GameState, events: list[str]) -> GameState:
    """The abilities that trigger on events, asked on ``before`` (look-back, 603.6c, 603.10),
    waiting on ``after``; the permanents that enter tapped or with counters, so on ``after``."""
    items, entering = collect_triggers(pool, before, events)
    changes: dict[str, dict[str, object]] = {t: {"tapped": True} for t in entering.tapped}
    for oid, kinds in entering.counters.items():  # CR 614.1c
        counters = dict(after.permanent(oid).counters)
        for kind, n in kinds.items():
            counters[kind] = counters.get(kind, 0) + n
        changes.setdefault(oid, {})["counters"] = counters
    if changes:  # CR 614.1c
        after = update_permanents(after, changes)
    if not items:
        return after
    taken = after.used_ids()
    named = [item.model_copy(update={"id": fresh_id(_trigger_base(item), taken)}) for item in items]
    return after.model_copy(update={"pending_triggers": [*after.pending_triggers, *named]})


_STATE_TRIGGER = re.compile(r"trigger_event\([^\n]*, state\)\.")


def state_triggers(pool: CardPool | None, state: GameState) -> GameState:
    """CR 603.8: the state triggers whose state is true now, unless the ability is already on
    the stack or waiting to go there."""
    if not _STATE_TRIGGER.search(Board(state, pool).position.live):
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


def targeted_events(item: StackObject) -> list[str]:
    """CR 603.2: each object a spell or ability targets "becomes the target" of it as it is put
    on the stack (601.2c, 602.2b, 603.3d)."""
    return [f"becomes_target({asp_string(t)})" for t in dict.fromkeys(item.targets)]


# ---------------------------------------------------------------------- state updates
def damage_events(model: frozenset[clingo.Symbol], players: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """CR 119.2, 603.2: the damage dealt, as trigger events: each permanent or player dealt
    damage (the total), each source that dealt damage (the total), with the amounts."""
    dealt_to: dict[str, int] = {}
    dealt_by: dict[str, int] = {}
    events = atoms(model, "damage_event", 3)
    for s in events:
        src, to, n = s.arguments[0].string, s.arguments[1].string, s.arguments[2].number
        dealt_to[to] = dealt_to.get(to, 0) + n
        dealt_by[src] = dealt_by.get(src, 0) + n
    to_players = sorted(
        f"deals_damage_to({asp_string(s.arguments[0].string)}, {asp_string(s.arguments[1].string)})"
        for s in events
        if s.arguments[1].string in players
    )
    return [
        *(f"is_dealt_damage({asp_string(x)}, {n})" for x, n in sorted(dealt_to.items())),
        *(f"deals_damage({asp_string(x)}, {n})" for x, n in sorted(dealt_by.items())),
        *to_players,
    ]


def lifelink_events(model: frozenset[clingo.Symbol], replaced: set[str]) -> list[str]:
    """CR 702.13a, 117.3: life gained through lifelink, one event for each source, with the
    amount, and life gained for damage prevented (615.5) (614.6: none when the gain was
    replaced)."""
    dealt: dict[str, int] = {}
    for s in atoms(model, "damage_event", 3):
        dealt[s.arguments[0].string] = dealt.get(s.arguments[0].string, 0) + s.arguments[2].number
    lifelink = [
        f"gains_life({asp_string(s.arguments[0].string)}, {asp_string(s.arguments[1].string)}, "
        f"{dealt.get(s.arguments[1].string, 0)})"
        for s in atoms(model, "life_gained_from", 2)
        if s.arguments[0].string not in replaced
    ]
    # CR 615.5: life gained for damage prevented, one event for each prevention
    prevented = [
        f"gains_life({asp_string(s.arguments[0].string)}, {asp_string(s.arguments[1].string)}, {s.arguments[2].number})"
        for s in atoms(model, "prevention_gain", 3)
        if s.arguments[0].string not in replaced
    ]
    return sorted(lifelink + prevented)


def put_triggers_on_stack(game: Board, state: GameState) -> GameState:
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
    before = {s.id for s in state.stack}
    after = put_in_order(game, updated(state, pending_triggers=[], awaiting_targets=[]), queue)
    if after.awaiting_targets:
        return after  # (abilities put while targets are chosen one by one keep this order)
    # CR 603.3b: a player whose abilities went on the stack together (two or more) may still
    # choose their order, at this moment (a decision; the order as put stands otherwise)
    put: dict[str, list[str]] = {}
    for item in reversed(after.stack):
        if item.id not in before and item.id:
            put.setdefault(item.controller or state.active, []).append(item.id)
    together = {p: ids for p, ids in put.items() if len(ids) > 1 and p not in after.simultaneous_triggers}
    if together:
        after = updated(after, simultaneous_triggers={**after.simultaneous_triggers, **together})
    return after


def put_in_order(game: Board, state: GameState, queue: list[StackObject]) -> GameState:
    """Put triggered abilities on the stack in this order, each with its targets (CR 603.3d):
    the only legal choice, or the one its controller stated beforehand (``trigger_targets``)
    when it is legal; where the controller has a choice to make, the game waits for it
    (``awaiting_targets``: a decision, :func:`after_choose_targets`).  The rules remove an
    ability with no legal choice."""
    for k, item in enumerate(queue):
        g = Board(state, game.pool)
        if item.trigger is not None and item.mode is None and item.source is not None:
            modes = choosable_modes(g, item)
            if modes is not None:
                if not modes:
                    continue  # CR 603.3c: no mode can be chosen: removed
                moded = _stated_mode(g, item, modes)
                if moded is None:
                    # CR 603.3c: its controller chooses the mode (with its targets)
                    return updated(state, awaiting_targets=[item, *queue[k + 1 :]])
                item = moded
        if not spec_targets(g, item):
            state = updated(state, stack=[item, *state.stack])
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
            return updated(state, awaiting_targets=[item, *queue[k + 1 :]])
        state = with_targets_on_stack(game, state, item, targets)
    return state


def _stated_mode(game: Board, item: StackObject, modes: list[StackObject]) -> StackObject | None:
    """CR 603.3c: the mode of a modal triggered ability as it is put on the stack, when its
    controller has no choice left or stated it beforehand (``trigger_modes``) and it can be
    chosen; None when the controller is still to choose."""
    if len(modes) == 1:
        return modes[0]
    stated = game.state.player(item.controller or game.state.active).trigger_modes.get(item.source or "")
    return next((m for m in modes if m.mode == stated), None)


def with_targets_on_stack(game: Board, state: GameState, item: StackObject, targets: list[str]) -> GameState:
    placed = item.model_copy(update={"targets": targets})
    state = updated(state, stack=[placed, *state.stack])
    if targets and "becomes_the_target" in game.position.facts:
        state = triggers_on(game.pool, state, state, targeted_events(placed))
    return state
