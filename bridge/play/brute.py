"""The actions the judge accepts among broad candidates, without asking what is legal.

:func:`accepted_actions` makes candidate actions broadly from a position's objects and card
data (every card in any hand played as a land and cast with every choice of targets among
all objects and players, every activated ability of every permanent with every choice of
targets, every permanent's mana ability with every color (the other colors tried when the
first was accepted or refused for its color only), passing, every assignment of the active
player's permanents to a player or planeswalker to attack and of the other player's
permanents to sets of attackers, by itertools, and the choices of targets of a waiting
triggered ability, each by every player) and keeps those ``game.push`` accepts: the
engine's judge.  :func:`listing_differences` compares them with the actions
:func:`~bridge.play.agents.decisions` lists: they must be the same (nothing missing,
nothing extra).

Ways to pay (``pay``) are compared where the listing offers them (an action listed once for
each way): the ways listed must be the ways ``push`` accepts, among every set of the player's
permanents (the empty one: paid from the mana pool, tapping nothing).  A way to pay is the
cards tapped, by name: tapping one Mountain or another leaves the same mana untapped, and the
listing offers them as one way.  Where it offers no choice (the rules offer one only when the
untapped sources differ in the mana they make), the action must be accepted paid by default.

A pass made while a declaration of attackers or blockers is to be made is accepted as the
default declaration and then a pass (the default: the empty declaration when it is legal,
else one that obeys the most requirements, CR 508.1d, 509.1c); it is checked to lead where
those two do, and is not a decision of its own.  Two things are left out: a mana ability activated without naming
its color (the listing names it always; naming the only color is the same action), and the
actions of the scenario format that are no player's decision (``advance``, ``sba``...).

Every candidate's verdict is passed to ``on_verdict`` when given (to check what verdicts
cite).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Literal

from bridge.engine.game import Game
from bridge.engine.verdict import Verdict
from bridge.model.actions import (
    Action,
    Activate,
    Cast,
    ChooseTargets,
    DeclareAttackers,
    DeclareBlockers,
    Pass,
    PlayLand,
)
from bridge.model.errors import IllegalActionError, InputError

__all__ = ["OnVerdict", "accepted_actions", "action_key", "listing_differences", "refusal"]

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


def accepted_actions(game: Game, on_verdict: OnVerdict | None = None) -> list[Action]:
    """The actions ``push`` accepts among the broad candidates (see the module's docstring)."""
    state = game.state
    names = [p.name for p in state.players]
    objects = _objects(game)
    candidates: list[Action] = []
    for item in state.awaiting_targets:
        candidates += [
            ChooseTargets(ability=item.id or "", targets=t, by=who)
            for t in _target_lists(objects, 2)
            for who in (item.controller, *names)
        ]
    candidates += declaration_candidates(game)
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
    # CR 601.2g: each way to pay an accepted spell or ability, by the permanents tapped
    for action in list(found):
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
        out.setdefault(action_key(plain), set()).add(way)
    return out


def _pass_by_default(
    game: Game, listed: tuple[Action, ...], accepted: list[Action], problems: list[str]
) -> list[Action]:
    """The accepted actions but a pass made while a declaration of attackers or blockers is to
    be made: the engine takes it as the default declaration followed by the pass of
    the player who then has priority (a scenario's ``pass``), not as a decision of its own
    (the default: none when that is legal, else one that obeys the most requirements);
    checked here to lead where those two do (a problem is said when not)."""
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


def listing_differences(game: Game, listed: tuple[Action, ...], accepted: list[Action]) -> list[str]:
    """How the listed actions and the accepted ones differ (nothing when they are the same,
    one action for each way to pay where the listing offers ways)."""
    problems: list[str] = []
    accepted = _pass_by_default(game, listed, accepted, problems)
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
