"""State-based actions performed (CR 704.3): all that apply at once, until none does, as the
rules list them (asp_rules/sba.lp), with regeneration (701.11) and the replacement effects
the same question answers; control that changed since the game last looked (302.6); a
loop of mandatory actions is a draw (104.4b).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import clingo

from bridge.engine.board import Board
from bridge.engine.moves import restart, shuffle
from bridge.engine.replacement import destinations_shown, links_shown
from bridge.engine.solver import atoms
from bridge.engine.triggers import leaving_events, triggers_on
from bridge.engine.updates import remove_from_combat, steps_key, update_permanents
from bridge.model.cards import CardPool
from bridge.model.errors import RuleModuleError
from bridge.model.state import CardRef, GameState

# CR 104.4b: rounds of mandatory actions (state-based actions, abilities put on the stack) after
# which a loop that never meets a position again is reported as an error.
LOOP_ROUNDS = 100


def drawn_by_loop(state: GameState) -> GameState:
    """CR 104.4b: the game entered a loop of mandatory actions: it is a draw (every player
    leaves it, recorded by that rule)."""
    return state.model_copy(
        update={
            "players": [p.model_copy(update={"lost": True, "lost_by": p.lost_by or "104.4b"}) for p in state.players]
        }
    )


def perform_state_based_actions(board: Board) -> GameState:
    """CR 704.3: perform every state-based action that applies, at once, until none does."""
    state, game = board.state, board
    seen: set[str] = set()
    for rounds in range(LOOP_ROUNDS):
        if rounds >= 2:
            # CR 104.4b: a loop of mandatory actions is a draw: a position met again
            key = steps_key(state)
            if key in seen:
                return drawn_by_loop(state)
            seen.add(key)
        model = game._sba_model()
        replaced = {s.arguments[0] for s in atoms(model, "sba_replaced", 2)}
        actions = [s.arguments[0] for s in atoms(model, "sba", 2) if s.arguments[0] not in replaced]
        actions += [s.arguments[1] for s in atoms(model, "sba_replaced", 2)]
        if not actions:
            if state.step != "cleanup":
                # CR 302.6: control changed since the game last looked (in cleanup, where
                # nobody receives priority for it (514.3a), the next turn's start looks)
                state = record_control_changes(state, model)
            if any(p.drew_from_empty_library for p in state.players):
                # CR 704.5b: a draw from an empty library counts until this check (a player
                # who can't lose the game doesn't lose, and the attempt is spent)
                return state.model_copy(
                    update={"players": [p.model_copy(update={"drew_from_empty_library": False}) for p in state.players]}
                )
            board._known_steps = (state, model)
            return state
        before = state
        going = {a.arguments[0].string for a in actions if a.name in ("to_graveyard", "destroy")}
        # CR 614.1a, 616.1: a card on its way to a graveyard may go elsewhere instead (the
        # same question answers, replacement.lp)
        instead = destinations_shown(model, going)
        state = apply_sba(state, actions, instead, board.pool, model)
        # CR 104.3: why each player who lost now lost
        why: dict[str, str] = {}
        for s in atoms(model, "sba", 2):
            if s.arguments[0].name == "loses":
                name = s.arguments[0].arguments[0].string
                why[name] = min(why.get(name, s.arguments[1].string), s.arguments[1].string)
        if any(p.lost and p.lost_by is None for p in state.players):
            state = state.model_copy(
                update={
                    "players": [
                        p.model_copy(update={"lost_by": why.get(p.name)}) if p.lost and p.lost_by is None else p
                        for p in state.players
                    ]
                }
            )
        # CR 603.6c, 603.10: what left the battlefield triggers, looking back
        moves = {oid: instead.get(oid, "graveyard") for oid in going}
        state = triggers_on(board.pool, before, state, leaving_events(before, moves))
        game = Board(state, board.pool)
    raise RuleModuleError(
        f"state-based actions did not stop after {LOOP_ROUNDS} rounds and no position repeated "
        f"(the last round: {', '.join(sorted(map(str, actions)))})"
    )


def apply_sba(
    state: GameState,
    actions: list[clingo.Symbol],
    instead: Mapping[str, str] | None = None,
    pool: CardPool | None = None,
    model: Iterable[clingo.Symbol] = (),
) -> GameState:
    """Perform state-based actions simultaneously (CR 704.3): the rules chose them; a card
    going to a graveyard goes where ``instead`` says, if it says (614.1a); a creature
    regenerated changes as ``model`` shows (701.11a)."""
    instead = instead or {}
    links = links_shown(model)
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
    state = remove_from_combat(state, leaving)
    gone = {p.id for p in state.permanents() if p.id in leaving and p.token} | ceasing
    gone_ids = [*state.gone, *sorted(g for g in gone if g)]
    players = []
    for player in state.players:
        battlefield, graveyard = [], list(player.graveyard)
        elsewhere: dict[str, list[CardRef]] = {"exile": list(player.exile), "library": list(player.library)}
        for perm in player.battlefield:
            assert perm.id is not None  # validation gives every object an id
            if perm.id in leaving:
                if not perm.token:  # CR 704.5d: a token that has left the battlefield ceases to exist
                    where = instead.get(perm.id or "", "graveyard")
                    # CR 607.2b: a card exiled instead may remember the object whose linked
                    # replacement effect exiled it
                    linked = links.get(perm.id) if where == "exile" else None
                    (graveyard if where == "graveyard" else elsewhere[where]).append(
                        CardRef(id=perm.id, card=perm.card, exiled_with=linked)
                    )
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
        zones = {
            zone: [o for o in (elsewhere[zone] if zone in elsewhere else getattr(player, zone)) if o.id not in ceasing]
            for zone in ("library", "hand", "exile")
        }
        graveyard = [o for o in graveyard if o.id not in ceasing]
        players.append(
            player.model_copy(
                update={
                    "battlefield": battlefield,
                    "graveyard": graveyard,
                    **zones,
                    "lost": player.lost or player.name in losers,
                }
            )
        )
    effects = []
    for effect in state.effects:
        targets = [t for t in effect.targets if t not in leaving]
        if effect.targets and not targets:
            continue
        effects.append(effect.model_copy(update={"targets": targets}))
    state = GameState.model_validate(
        state.model_copy(update={"players": players, "effects": effects, "gone": gone_ids}).model_dump()
    )
    for name in sorted(restarting):
        state = restart(state, name, pool)
    for owner in sorted(
        {
            p.name
            for p in state.players
            for oid, where in instead.items()
            if where == "library" and any(c.id == oid for c in p.library)
        }
    ):
        state = shuffle(state, owner)
    return state


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
    return remove_from_combat(update_permanents(state, changes), removed)


def record_control_changes(state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 302.6: the permanents the rules show under another controller than the game saw
    last (``control_changed``, turn/control.lp) haven't been under their new controller's
    control since his or her most recent turn began: they are sick, and the controller seen
    is recorded (as a turn begins, the rules then say which of them start again)."""
    changed = {s.arguments[0].string: s.arguments[1].string for s in atoms(model, "control_changed", 2)}
    if not changed:
        return state
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        if perm.id in changed:
            seen = changed[perm.id]
            listed = state.controller_of(perm)
            changes[perm.id] = {"sick": True, "seen_controller": None if seen == listed else seen}
    return update_permanents(state, changes)
