"""What a player could do now, as the rules list it, in one question.

:func:`listing` asks the rules once (``asp_rules/stack/cast.lp`` and ``stack/mana.lp`` with
``listing(P)``) which cards in the player's hand, or with flashback in the graveyard, he or
she could try to cast now, which activated abilities activate, which lands play and which
mana abilities activate, with each color (CR 115.1, 115.1a, 605.3a): priority, timing,
"can't" effects, a permanent to sacrifice and a mana cost within reach.  Playing a land and
activating a mana ability are judged whole there, and so is casting a spell or activating an
ability with nothing to choose (no target, mode, X, optional or additional cost); the
targets of the others and their exact payment are judged as each is tried
(:func:`bridge.engine.acting.legal_targets`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import clingo

from bridge.engine.acting import ACTING, MANA_COLORS
from bridge.engine.board import Board
from bridge.engine.facts import asp_string
from bridge.engine.solver import KEEP, Session, atoms, kept, lines_without, make_room, unread_inputs
from bridge.model.state import STEPS


@dataclass(frozen=True)
class Listing:
    """The answer: card ids that may be tried to cast (hand or graveyard), (source, ability
    number) pairs that may be tried to activate, land ids that may be played, (source, color
    word) mana activations (``creature_mana``: the sources of those that are creatures), and
    for what has a sacrifice in its cost, the permanents that could pay it (by card id, or by
    ``source/number``).  ``cast_now`` and ``activate_now``:
    those with nothing to choose (no target, mode, X, optional or additional cost) that the
    rules judged whole: legal as they are.  ``payment_choices``: those (by card id or
    ``source/number``) whose cost may be paid in ways that leave different mana abilities
    untapped (:func:`payments`); ``judged_payment_choices``: those whose least cost the listing
    can't tell exactly (a cost to reduce, an X, a triggered mana ability) and whose ways to pay
    may differ: they are asked of the attempt itself (:func:`bridge.engine.acting.ways_to_pay`).
    ``face_up``: the face-down permanents with a morph cost the player could turn face up (CR
    702.34d; the cost is judged as it is tried)."""

    casts: frozenset[str]
    abilities: frozenset[tuple[str, int]]
    cast_now: frozenset[str]
    activate_now: frozenset[tuple[str, int]]
    payment_choices: frozenset[str]
    lands: frozenset[str]
    mana: tuple[tuple[str, str], ...]
    sacrifices: dict[str, tuple[str, ...]]
    creature_mana: frozenset[str] = frozenset()
    face_up: frozenset[str] = frozenset()
    judged_payment_choices: frozenset[str] = frozenset()


def listing(game: Board, player: str) -> Listing:
    """What ``player`` could try now: one question of the rules, a solve on a grounding of
    the position with the step, who has priority, who is listed, whose turn it is, what is
    tapped or new and the combat's declarations left open (external atoms), so that the
    positions of a turn that differ only in those (passes, steps, mana paid) share one
    grounding."""
    session, opened = _listing_session(game)
    # no attempt is enumerated (once the ways to pay are grounded, see payments)
    literals = [-lit for lit in session.freed("enumerating", 1).values()]
    model = session.solve(signed=_fixed(game, player, opened), literals=literals).model
    return _read_listing(model)


def payments(game: Board, player: str, key: str, others: Iterable[str] = ()) -> list[list[str]]:
    """The ways to pay what ``player`` could try (a card id, or ``source/number`` for an
    ability) that leave different mana abilities untapped (CR 601.2g), each as the sources
    it taps (for ``pay``): more solves of the listing's grounding, not another grounding.
    ``others``: what may be asked about next (their ways to pay are grounded with these)."""
    session, opened = _listing_session(game)
    wanted = _attempt_text(key)
    # the ways to pay of an attempt are grounded once, when first asked for (with those of the
    # others: one grounding step costs less than several)
    session.ground([("payments", (_attempt_symbol(k),)) for k in sorted({key, *others})])
    enumerating = session.free_externals("enumerating", 1)
    if (wanted,) not in enumerating:
        return []
    fixed = _fixed(game, player, opened)
    literals = [lit if args == (wanted,) else -lit for args, lit in enumerating.items()]
    ways: list[list[str]] = []
    for model in session.solve(signed=fixed, literals=literals, project=True).models:
        kinds: dict[str, list[str]] = {}
        for s in atoms(model, "payment_source", 3):
            kinds.setdefault(s.arguments[2].string, []).append(s.arguments[1].string)
        # sources of one kind are alike: the ones with the smallest ids are tapped
        way = sorted(
            source
            for s in atoms(model, "payment_kind", 3)
            for source in sorted(kinds[s.arguments[1].string])[: s.arguments[2].number]
        )
        if way not in ways:
            ways.append(way)
    return sorted(ways)


def _attempt_text(key: str) -> str:
    """How the rules write an attempt: a card id, or ``act(Source, Number)``."""
    return key if "/" not in key else str(_attempt_symbol(key))


def _attempt_symbol(key: str) -> clingo.Symbol:
    """An attempt as the rules name it: a card id, or ``act(Source, Number)``."""
    if "/" not in key:
        return clingo.String(key)
    source, _, number = key.rpartition("/")
    return clingo.Function("act", [clingo.String(source), clingo.Number(int(number))])


def _fixed(
    game: Board, player: str, opened: dict[tuple[str, object], clingo.Symbol]
) -> list[tuple[clingo.Symbol, bool]]:
    """The open atoms of the listing grounding set as the position has them."""
    state = game.state
    fixed: set[tuple[str, object]] = {("step", state.step), ("listing", player), ("active_player", state.active)}
    if game.position.facts.find("\npriority(") >= 0:
        fixed.add(("priority", state.priority_player()))
    fixed |= {(flag, p.id) for p in state.permanents() for flag in ("tapped", "sick") if getattr(p, flag)}
    fixed |= {("lands_played", (p.name, p.lands_played)) for p in state.players}
    fixed |= {("declared_in_combat", d) for d in state.declared}
    fixed |= {("attacking", (p.id, p.attacking)) for p in state.permanents() if p.attacking is not None}
    fixed |= {(flag, None) for flag in ("attacked_this_combat", "combat_damage_dealt") if getattr(state, flag)}
    return [(sym, key in fixed) for key, sym in opened.items()]


def _read_listing(model: frozenset[clingo.Symbol]) -> Listing:
    """The listing's shown atoms as a :class:`Listing`."""
    casts = frozenset(s.arguments[0].string for s in atoms(model, "may_try_cast", 1))
    abilities = frozenset((s.arguments[0].string, s.arguments[1].number) for s in atoms(model, "may_try_activate", 2))
    cast_now = frozenset(s.arguments[0].string for s in atoms(model, "may_cast_now", 1))
    activate_now = frozenset(
        (s.arguments[0].string, s.arguments[1].number) for s in atoms(model, "may_activate_now", 2)
    )
    lands = frozenset(s.arguments[0].string for s in atoms(model, "may_play_land", 1))
    mana = tuple(
        sorted((s.arguments[0].string, MANA_COLORS[s.arguments[1].name]) for s in atoms(model, "may_activate_mana", 2))
    )
    choices = frozenset(_attempt_key(s.arguments[0]) for s in atoms(model, "may_choose_payment", 1))
    sacrifices: dict[str, list[str]] = {}
    for s in atoms(model, "may_sacrifice", 2):
        sacrifices.setdefault(_attempt_key(s.arguments[0]), []).append(s.arguments[1].string)
    return Listing(
        casts=casts,
        abilities=abilities,
        cast_now=cast_now,
        activate_now=activate_now,
        payment_choices=choices,
        lands=lands,
        mana=mana,
        sacrifices={k: tuple(sorted(v)) for k, v in sacrifices.items()},
        creature_mana=frozenset(s.arguments[0].string for s in atoms(model, "may_activate_creature_mana", 1)),
        face_up=frozenset(s.arguments[0].string for s in atoms(model, "may_turn_face_up", 1)),
        judged_payment_choices=frozenset(
            _attempt_key(s.arguments[0]) for s in atoms(model, "may_choose_judged_payment", 1)
        ),
    )


# the facts the listing grounding leaves open: the step, who has priority, who is listed, whose
# turn it is, what is tapped, what is new under its controller, whether a land was played, and
# which declarations this combat has made, which creatures attack a player, whether a creature
# attacked this combat and whether combat damage was dealt this step
_OPEN = frozenset(
    {
        "step",
        "priority",
        "active_player",
        "tapped",
        "sick",
        "declared_in_combat",
        "lands_played",
        "attacking",
        "attacked_this_combat",
        "combat_damage_dealt",
    }
)
_LISTING_SESSIONS: dict[str, tuple[Session, dict[tuple[str, object], clingo.Symbol]]] = kept({})


# the listing's facts of the positions seen last (the position's facts are the same object
# for the same state)
_KEPT: dict[int, tuple[object, str]] = kept({})


def _kept_facts(game: Board) -> str:
    """The position's facts the listing grounding holds fixed: those some rule of it reads,
    but the open ones."""
    known = _KEPT.get(id(game.position))
    if known is not None and known[0] is game.position:
        return known[1]
    kept = lines_without(game.position.facts, _OPEN | unread_inputs(game.modules(*ACTING)))
    # the lands played are open as 0 or 1: a count past it stays a fact; so does a creature
    # attacking a planeswalker (a player is open)
    players = {p.name for p in game.state.players}
    kept += "".join(
        f"\nlands_played({asp_string(p.name)}, {p.lands_played})." for p in game.state.players if p.lands_played > 1
    )
    kept += "".join(
        f"\nattacking({asp_string(p.id or '')}, {asp_string(p.attacking)})."
        for p in game.state.permanents()
        if p.attacking is not None and p.attacking not in players
    )
    make_room(_KEPT, KEEP.positions)
    _KEPT[id(game.position)] = (game.position, kept)
    return kept


def _listing_session(game: Board) -> tuple[Session, dict[tuple[str, object], clingo.Symbol]]:
    """The position's listing grounding, with its open atoms (external, declared free) by
    (predicate, argument)."""
    state = game.state
    kept = _kept_facts(game)
    known = _LISTING_SESSIONS.get(kept)
    if known is not None:
        return known
    names = [p.name for p in state.players]
    ids = [p.id or "" for p in state.permanents()]
    opened: dict[tuple[str, object], clingo.Symbol] = {}
    for step in STEPS:
        opened[("step", step)] = clingo.Function("step", [clingo.Function(step)])
    for pred in ("priority", "listing", "active_player"):
        for name in names:
            opened[(pred, name)] = clingo.Function(pred, [clingo.String(name)])
    for flag in ("tapped", "sick"):
        for o in ids:
            opened[(flag, o)] = clingo.Function(flag, [clingo.String(o)])
    for name in names:
        for k in (0, 1):
            opened[("lands_played", (name, k))] = clingo.Function(
                "lands_played", [clingo.String(name), clingo.Number(k)]
            )
    for declared in ("attackers", "blockers", "blocker_orders", "attacker_orders"):
        opened[("declared_in_combat", declared)] = clingo.Function("declared_in_combat", [clingo.Function(declared)])
    for o in ids:
        for name in names:
            opened[("attacking", (o, name))] = clingo.Function("attacking", [clingo.String(o), clingo.String(name)])
    for flag in ("attacked_this_combat", "combat_damage_dealt"):
        opened[(flag, None)] = clingo.Function(flag)
    facts = kept + "\n" + " ".join(f"#external {sym}. [free]" for sym in opened.values())
    session = Session.shared(game.modules(*ACTING), facts)
    make_room(_LISTING_SESSIONS, KEEP.groundings // 2)
    known = _LISTING_SESSIONS[kept] = (session, opened)
    return known


def _attempt_key(attempt: clingo.Symbol) -> str:
    """A card's id, or ``source/number`` for an ability (``act(S, K)``)."""
    if attempt.type == clingo.SymbolType.String:
        return attempt.string
    source, number = attempt.arguments
    return f"{source.string}/{number.number}"
