"""The actions the judge accepts among broad candidates, without asking what is legal.

:func:`accepted_actions` makes candidate actions broadly from a position's objects and card
data (every card in any hand played as a land and cast with every choice of targets among
all objects and players, every activated ability of every permanent with every choice of
targets, every permanent's mana ability with every color (the other colors tried when the
first was accepted or refused for its color only), passing, every assignment of the active
player's permanents to a player or planeswalker to attack and of the other player's
permanents to sets of attackers, by itertools, the choices of targets of a waiting
triggered ability, each by every player, and the announcements of :func:`choice_candidates`:
damage assignment orders and divisions of combat damage) and keeps those ``game.push`` accepts: the
engine's judge.  :func:`listing_differences` compares them with the actions
:func:`~bridge.play.agents.decisions` lists: they must be the same (nothing missing,
nothing extra).

Ways to pay (``pay``: of a cast, an activation, or the answer that pays what a resolving
object offers) are compared where the listing offers them (an action listed once for each
way): the ways listed must be the ways ``push`` accepts, among every set of the player's
permanents (the empty one: paid from the mana pool, tapping nothing).  A way to pay is the
cards tapped, by name: tapping one Mountain or another leaves the same mana untapped, and the
listing offers them as one way.  Where it offers no choice (the rules offer one only when the
untapped sources differ in the mana they make), the action must be accepted paid by default.

A pass made while a declaration of attackers or blockers is to be made is accepted as the
default declaration and then a pass (the default: the empty declaration when it is legal,
else one that obeys the most requirements, CR 508.1d, 509.1c); it is checked to lead where
those two do, and is not a decision of its own; so is a pass made while damage assignment
orders or combat damage are to be announced (the defaults, then the pass).  Divisions of combat
damage are compared by what dealing them does (:func:`choice_key`): the listing offers one
division for each different result.  Three things are left out: a mana ability activated
without naming its color (the listing names it always; naming the only color is the same
action), the choices a player states ahead of an event with ``choose_order`` (``push`` takes
any statement naming objects of the game; tests/test_offered_choices.py compares them by what
they change when the event comes), and the actions of the scenario format that are no
player's decision (``advance``, ``sba``, an assignment of combat damage announced whole
without ``by``...).

Every candidate's verdict is passed to ``on_verdict`` when given (to check what verdicts
cite).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Literal

from bridge.engine.acting import ability_card
from bridge.engine.combat import damage_result
from bridge.engine.game import Game
from bridge.engine.verdict import Verdict
from bridge.model.actions import (
    Action,
    Activate,
    AnswerOffer,
    AssignDamage,
    Cast,
    ChooseOrder,
    ChooseTargets,
    DeclareAttackers,
    DeclareBlockers,
    OrderAttackers,
    OrderBlockers,
    OrderTriggers,
    Pass,
    PlayLand,
)
from bridge.model.errors import IllegalActionError, InputError
from bridge.play.agents import decisions

__all__ = [
    "OnVerdict",
    "accepted_actions",
    "action_key",
    "choice_candidates",
    "choice_key",
    "listing_differences",
    "refusal",
]

COLORS: tuple[Literal["white", "blue", "black", "red", "green", "colorless"], ...] = (
    "white",
    "blue",
    "black",
    "red",
    "green",
    "colorless",
)
COLOR_REASONS = {"no_such_mana", "mana_color_unnamed"}

OnVerdict = Callable[[Action, Verdict], None]


def refusal(game: Game, action: Action, on_verdict: OnVerdict | None = None) -> set[str] | None:
    """None when ``game.push`` takes the action (then popped), else the reasons it gives."""
    try:
        verdict = game.push(action)
    except IllegalActionError as exc:
        refused: Verdict = exc.verdict  # type: ignore[assignment]
        if on_verdict is not None:
            on_verdict(action, refused)
        return {v.reason for v in refused.violations}
    except InputError:
        return {"input"}
    game.pop()
    if on_verdict is not None:
        on_verdict(action, verdict)
    return None


def _objects(game: Game) -> list[str]:
    """Every object and player: what a target could be."""
    state = game.state
    return (
        [p.name for p in state.players]
        + [p.id or "" for p in state.permanents()]
        + [s.id or "" for s in state.stack]
        + [c.id or "" for p in state.players for z in ("hand", "graveyard", "exile") for c in getattr(p, z)]
    )


def _target_lists(objects: list[str], slots: int) -> list[list[str]]:
    """Every list of targets of length 0 to ``slots`` (at least 1) among the objects."""
    return [list(c) for n in range(max(slots, 1) + 1) for c in itertools.product(objects, repeat=n)]


def _pay_sets(game: Game, player: str) -> list[list[str]]:
    """Every set of the player's permanents, as a ``pay`` list, the empty one included."""
    mine = [p.id or "" for p in game.state.permanents() if game.state.controller_of(p) == player]
    return [list(c) for n in range(len(mine) + 1) for c in itertools.combinations(mine, n)]


def _paid(game: Game, action: Cast | Activate) -> bool:
    """Whether ``push`` accepts the action paid as its ``pay`` says; the engine reads an empty
    ``pay`` as the default payment, so it is a way to pay (from the mana pool) only when
    nothing is tapped."""
    if not action.pay:
        try:
            game.push(action)
        except (IllegalActionError, InputError):
            return False
        tapped = {p.id for p in game.state.permanents() if p.tapped}
        game.pop()
        return tapped <= {p.id for p in game.state.permanents() if p.tapped}
    return refusal(game, action) is None


def declaration_candidates(game: Game) -> list[Action]:
    """Every assignment of the active player's permanents to attack a player or planeswalker
    (or nothing), and of the other player's permanents to block sets of attackers (or
    nothing), by itertools (CR 508.1a, 509.1a)."""
    state = game.state
    names = [p.name for p in state.players]
    active = state.active
    defenders = [n for n in names if n != active]
    mine = [p.id or "" for p in state.permanents() if state.controller_of(p) == active]
    theirs = [p.id or "" for p in state.permanents() if state.controller_of(p) != active]
    walkers = [p for p in theirs if "planeswalker" in game.pool.get(state.permanent(p).card).types]
    candidates: list[Action] = []
    for choice in itertools.product([None, *defenders, *walkers], repeat=len(mine)):
        candidates.append(DeclareAttackers(attackers={c: t for c, t in zip(mine, choice) if t is not None}))
    attacking = [p.id or "" for p in state.permanents() if p.attacking]
    sets = [list(c) for n in range(1, len(attacking) + 1) for c in itertools.combinations(attacking, n)]
    for block in itertools.product([None, *sets], repeat=len(theirs)):
        candidates.append(DeclareBlockers(blockers={b: a for b, a in zip(theirs, block) if a is not None}))
    return candidates


def choice_candidates(game: Game) -> list[Action]:
    """Announcements made broadly, by itertools: after a declaration of blockers in this
    combat, damage assignment orders (509.2-509.3): for each attacking creature, no order or
    any permutation of the creatures blocking it, and for each blocking creature, no order or
    any permutation of the attackers it blocks (not all left out); in a combat damage step,
    each player's divisions of combat damage (510.1): each of the player's attacking or
    blocking creatures divides its power in whole numbers among the creatures it blocks or is
    blocked by and the player or planeswalker it attacks (the product over the creatures), and
    the empty announcement, and each division of the prevention shields on the player and his
    or her creatures in combat among the creatures in combat (615.7); and each player's order
    of the two to four objects on top of the stack, any permutation (603.3b).  (A position
    that begins with blockers in place takes orders as its setup, 509.7's included; those are
    not tried.)"""
    state = game.state
    out: list[Action] = []
    perms = list(state.permanents())
    if "blockers" in state.declared and state.step == "declare_blockers":
        attackers = {p.id or "": [b.id or "" for b in perms if p.id in b.blocking] for p in perms if p.attacking}
        blockers = {p.id or "": list(p.blocking) for p in perms if p.blocking}
        for kind, relation in ((OrderBlockers, attackers), (OrderAttackers, blockers)):
            keys = [k for k, v in relation.items() if v]
            choices: list[list[tuple[str, ...] | None]] = [[None, *itertools.permutations(relation[k])] for k in keys]
            for order_combo in itertools.product(*choices):
                orders = {k: list(o) for k, o in zip(keys, order_combo, strict=True) if o is not None}
                if orders:
                    out.append(kind(orders=orders))
    # CR 603.3b: each player's order of the objects on top of the stack (two to four of them)
    tops = [s.id or "" for s in state.stack[:4]]
    for player in state.players:
        for k in range(2, len(tops) + 1):
            for order in itertools.permutations(reversed(tops[:k])):
                out.append(OrderTriggers(by=player.name, order=list(order)))
    if state.step in ("first_strike_damage", "combat_damage"):
        chars = game.all_characteristics()
        for player in state.players:
            mine = [p for p in perms if state.controller_of(p) == player.name and (p.attacking or p.blocking)]
            each: list[list[tuple[str, dict[str, int]]]] = []
            for perm in mine:
                pid = perm.id or ""
                if perm.attacking:
                    to = [b.id or "" for b in perms if pid in b.blocking] + [perm.attacking]
                else:
                    to = list(perm.blocking)
                power = max(chars[pid].power or 0, 0) if pid in chars else 0
                each.append([(pid, split) for split in _splits(power, to)])
            out.append(AssignDamage(assignments={}, by=player.name))
            # CR 615.7: what the shields on the player and his or her creatures prevent: each
            # division of a shield among the creatures in combat, in whole numbers
            fighting = sorted(p.id or "" for p in perms if p.attacking or p.blocking)
            shielded = [(p.id or "", p.prevention_shield) for p in mine if p.prevention_shield]
            shielded += [(player.name, player.prevention_shield)] if player.prevention_shield else []
            shields = [[(x, split) for split in _splits(m, fighting) if sum(split.values()) == m] for x, m in shielded]
            for prevent in itertools.product(*shields):
                if prevent:
                    out.append(AssignDamage(assignments={}, prevent=dict(prevent), by=player.name))
            for combo in itertools.product(*each):
                assignments = {c: split for c, split in combo if split}
                if assignments:
                    out.append(AssignDamage(assignments=assignments, by=player.name))
    return out


def _splits(power: int, recipients: list[str]) -> list[dict[str, int]]:
    """Every division of ``power`` in whole numbers among the recipients (zeros left out)."""
    if not recipients or power <= 0:
        return [{}]
    out = []
    for cuts in itertools.combinations(range(power + len(recipients) - 1), len(recipients) - 1):
        bounds = [-1, *cuts, power + len(recipients) - 1]
        amounts = [bounds[i + 1] - bounds[i] - 1 for i in range(len(recipients))]
        out.append({r: n for r, n in zip(recipients, amounts, strict=True) if n})
    return out


def choice_key(game: Game, action: Action) -> str:
    """An action written the same way whatever the order of its mappings; a division of
    combat damage by who announces it and what dealing it does (the rules' answer)."""
    if isinstance(action, AssignDamage) and action.by is not None:
        result = damage_result(game, action.assignments, action.prevent)
        shown = sorted(str(s) for s in result) if result is not None else ["illegal"]
        return json.dumps({"kind": "assign_damage", "by": action.by, "result": shown})
    return action_key(action)


def accepted_actions(game: Game, on_verdict: OnVerdict | None = None) -> list[Action]:
    """The actions ``push`` accepts among the broad candidates (see the module's docstring)."""
    state = game.state
    names = [p.name for p in state.players]
    objects = _objects(game)
    candidates: list[Action] = []
    for item in state.awaiting_targets:
        # a modal ability whose mode is still to be chosen: each mode number, and none (603.3c)
        modes = len(ability_card(game, item).triggered[(item.trigger or 1) - 1].modes) if item.trigger else 0
        candidates += [
            ChooseTargets(ability=item.id or "", targets=t, mode=mode, by=who)
            for mode in ([None, *range(1, modes + 1)] if item.mode is None and modes else [None])
            for t in _target_lists(objects, 2)
            for who in (item.controller, *names)
        ]
    if state.awaiting_payment is not None:
        # CR 608.2f: an answer to the offer of a payment, by anyone
        candidates += [AnswerOffer(by=who, pays=pays) for who in names for pays in (False, True)]
    candidates += declaration_candidates(game)
    candidates += choice_candidates(game)
    for who in names:
        candidates.append(Pass(by=who))
        for player in state.players:
            for in_hand in player.hand:
                candidates.append(PlayLand(card=in_hand.id or "", by=who))
                slots = len(game.pool.get(in_hand.card).spell_targets())
                candidates += [Cast(card=in_hand.id or "", by=who, targets=t) for t in _target_lists(objects, slots)]
        for perm in state.permanents():
            card = game.pool.get(perm.card)
            for number, ability in enumerate(card.activated, start=1):
                candidates += [
                    Activate(source=perm.id or "", ability=number, by=who, targets=t)
                    for t in _target_lists(objects, len(ability.targets))
                ]
    found = [a for a in candidates if refusal(game, a, on_verdict) is None]
    # each mana ability with each color, the other colors tried when the first one was
    # accepted or refused only for its color (who acts, and when, doesn't depend on it)
    for who in names:
        for perm in state.permanents():
            first = Activate(source=perm.id or "", color=COLORS[0], by=who)
            reasons = refusal(game, first, on_verdict)
            if reasons is None or reasons <= COLOR_REASONS:
                tries = [Activate(source=perm.id or "", color=c, by=who) for c in COLORS]
                found += [a for a in tries if refusal(game, a, on_verdict) is None]
    # CR 601.2g, 608.2f: each way to pay an accepted spell, ability or offered payment, by the
    # permanents tapped
    for action in list(found):
        if isinstance(action, AnswerOffer) and action.pays:
            offers = [action.model_copy(update={"pay": pay}) for pay in _pay_sets(game, action.by or "") if pay]
            found += [offer for offer in offers if refusal(game, offer) is None]
        if isinstance(action, (Cast, Activate)) and not (isinstance(action, Activate) and action.mana):
            found += [
                paid
                for pay in _pay_sets(game, action.by or "")
                if _paid(game, paid := action.model_copy(update={"pay": pay}))
            ]
    return found


Way = tuple[str, ...] | None


def action_key(action: Action) -> str:
    """An action written the same way whatever the order of its mappings."""
    return json.dumps(action.model_dump(mode="json"), sort_keys=True)


def _by_way_to_pay(game: Game, actions: list[Action]) -> dict[str, set[Way]]:
    """The actions without their ``pay``, each with the ways it is paid: the names of the cards
    tapped, sorted (None: paid by default)."""
    out: dict[str, set[Way]] = {}
    for action in actions:
        pay = getattr(action, "pay", None)
        plain = action.model_copy(update={"pay": None}) if pay is not None else action
        way = None if pay is None else tuple(sorted(game.state.permanent(p).card for p in pay))
        out.setdefault(choice_key(game, plain), set()).add(way)
    return out


def _pass_by_default(
    game: Game, listed: tuple[Action, ...], accepted: list[Action], problems: list[str]
) -> list[Action]:
    """The accepted actions but a pass made while a declaration of attackers or blockers is to
    be made: the engine takes it as the default declaration followed by the pass of
    the player who then has priority (a scenario's ``pass``), not as a decision of its own
    (the default: none when that is legal, else one that obeys the most requirements);
    checked here to lead where those two do (a problem is said when not)."""
    if listed and all(isinstance(a, ANNOUNCEMENTS) for a in listed):
        return _pass_after_announcements(game, accepted, problems)
    if not listed or not all(isinstance(a, (DeclareAttackers, DeclareBlockers)) for a in listed):
        return accepted
    kept: list[Action] = []
    for action in accepted:
        if not isinstance(action, Pass):
            kept.append(action)
            continue
        game.push(action)
        after = game.pop()
        attack = isinstance(listed[0], DeclareAttackers)
        empty: Action = DeclareAttackers(attackers={}) if attack else DeclareBlockers(blockers={})
        default = empty if refusal(game, empty) is None else game.checker("attack" if attack else "block").best()
        try:
            game.push(default)
        except IllegalActionError:
            problems.append(f"{action_key(action)} is accepted, but neither the empty declaration nor the best one is")
            continue
        game.push(action)
        if game.state != after:
            problems.append(f"{action_key(action)} does not lead where the default declaration and then a pass do")
        game.pop()
        game.pop()
    return kept


ANNOUNCEMENTS = (OrderBlockers, OrderAttackers, AssignDamage, OrderTriggers)


def _pass_after_announcements(game: Game, accepted: list[Action], problems: list[str]) -> list[Action]:
    """The accepted announcements (the others are the next decision's): a pass made while
    damage assignment orders or combat damage are to be announced, and any action taken while
    a player may order his or her triggered abilities put on the stack together, is checked to
    lead where the default announcements (the first listed, each in turn) and then it do."""
    kept: list[Action] = []
    for action in accepted:
        if isinstance(action, ANNOUNCEMENTS):
            kept.append(action)
            continue
        game.push(action)
        after = game.pop()
        pushed = 0
        while True:
            options = decisions(game).options
            if not options or not all(isinstance(a, ANNOUNCEMENTS) for a in options):
                break
            game.push(options[0])
            pushed += 1
        game.push(action)
        if game.state != after:
            problems.append(f"{action_key(action)} does not lead where the default announcements and then it do")
        for _ in range(pushed + 1):
            game.pop()
    return kept


def _default_division_by_pass(game: Game, listed: tuple[Action, ...], accepted: list[Action]) -> list[Action]:
    """The accepted actions but, where the listing offers passing and no division of combat
    damage (the active player has no choice of one), the announcement of the default
    division: passing announces it first."""
    if any(isinstance(a, AssignDamage) for a in listed) or not any(isinstance(a, Pass) for a in listed):
        return accepted
    default = damage_result(game, {})
    return [
        a
        for a in accepted
        if not (isinstance(a, AssignDamage) and damage_result(game, a.assignments, a.prevent) == default)
    ]


def listing_differences(game: Game, listed: tuple[Action, ...], accepted: list[Action]) -> list[str]:
    """How the listed actions and the accepted ones differ (nothing when they are the same,
    one action for each way to pay where the listing offers ways)."""
    problems: list[str] = []
    # a choice stated ahead (choose_order) is judged by what it changes when the event comes,
    # not by push (which takes any statement naming objects of the game): left out here
    listed = tuple(a for a in listed if not isinstance(a, ChooseOrder))
    accepted = _pass_by_default(game, listed, accepted, problems)
    accepted = _default_division_by_pass(game, listed, accepted)
    listed_ways = _by_way_to_pay(game, list(listed))
    accepted_ways = _by_way_to_pay(game, accepted)
    problems += [f"accepted but not listed: {key}" for key in sorted(set(accepted_ways) - set(listed_ways))]
    problems += [f"listed but not accepted: {key}" for key in sorted(set(listed_ways) - set(accepted_ways))]
    for key, ways in listed_ways.items():
        if key not in accepted_ways:
            continue
        paid = accepted_ways[key] - {None}
        if None not in accepted_ways[key]:
            problems.append(f"listed but not accepted paid by default: {key}")
        if ways != {None} and ways != paid:  # where no choice is offered, the default payment stands for every way
            problems.append(f"ways to pay listed {sorted(ways, key=str)} but accepted {sorted(paid, key=str)}: {key}")
    return problems
