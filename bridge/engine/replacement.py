"""Replacement effects on cards going to a graveyard, on draws, on life gain and on losing
the game, as questions (CR 614, 616).

The rules decide (``asp_rules/replacement.lp``): which permanents' static abilities replace
an event, read from the permanents as the layer system leaves them (an ability that was
removed replaces nothing, while "if <this card> would be put into a graveyard from
anywhere" works from every zone); which one applies when several would (616.1: the sources
named in the affected player's ``replacement_order`` first, in that order, then the others by
source id); and what happens instead.  This module asks them one question for an event;
:mod:`bridge.engine.moves` carries out what they show.

The question is asked only when a permanent's card (or the card it copies), an effect, or
the printed text of a card on its way to a graveyard mentions one of these abilities: with
none, nothing can replace these events.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import clingo

from bridge.engine.board import Board
from bridge.engine.facts import asp_string
from bridge.engine.solver import answer, symbol_text
from bridge.model.cards import CardPool
from bridge.model.state import GameState

MODULES = ("replacement",)


# the static abilities that replace these events (cards/README.md), for the cheap check only
_ABILITIES = (
    "exile_opponents_graveyard_cards",
    "exile_your_graveyard_cards",
    "exile_permanents_instead_of_graveyard",
    "shuffle_into_library_instead_of_graveyard",
    "draws_return_from_graveyard",
    "life_gain_draws_instead",
    "replaces_losing",
    "cant_lose_game",
    "dredge",
)


SELF_GRAVEYARD = "shuffle_into_library_instead_of_graveyard"
_MAY_REPLACE = re.compile(r"\b(" + "|".join(_ABILITIES) + r")\b")


@dataclass(frozen=True)
class Source:
    """A replacement effect the rules show on a player's event: the ``event`` (``lose``,
    ``draw`` or ``gain_life``) of ``player`` happens as ``instead`` (``restart``,
    ``return_from_graveyard``, ``lose_game``, ``draw``, ``dredge``) through the static ability of the
    permanent ``id`` (for ``dredge``, of the card ``id`` in the player's graveyard, with its
    number ``amount``).  ``cant_lose`` (with no source) says the player can't lose the game."""

    id: str
    event: str
    player: str
    instead: str
    amount: int = 0


# whether a card mentions one of these abilities, for each pool (a pool's cards may differ
# from another's; the entries go with their pool)
_MENTIONS: weakref.WeakKeyDictionary[CardPool, dict[str, bool]] = weakref.WeakKeyDictionary()


def _mentions(pool: CardPool, card: str) -> bool:
    known = _MENTIONS.setdefault(pool, {})
    if card not in known:
        known[card] = bool(_MAY_REPLACE.search(pool.get(card).model_dump_json()))
    return known[card]


def _may_have_one(pool: CardPool, state: GameState) -> bool:
    """Whether a permanent's card (or the card it copies), a card in a graveyard (dredge) or an
    effect mentions one of these abilities at all: if not, nothing can replace these events
    and the rules needn't be asked."""
    cards = {p.id: p.card for p in state.permanents()}
    for perm in state.permanents():
        copied = cards.get(perm.chosen.get("copy", "")) or perm.chosen.get("copy_card")
        if _mentions(pool, perm.card) or (copied is not None and _mentions(pool, copied)):
            return True
    if any(_mentions(pool, c.card) for p in state.players for c in p.graveyard):
        return True
    return any(_MAY_REPLACE.search(e.model_dump_json()) for e in state.effects)


def _pool(pool: CardPool | None) -> CardPool:
    return pool if pool is not None else CardPool.default()


def _ask(pool: CardPool | None, state: GameState, extra: Iterable[str] = ()) -> frozenset[clingo.Symbol]:
    """The rules' answer on the state, with the question's facts (events, cards)."""
    game = Board(state, pool)
    lines = list(extra)
    facts = game.position.facts + ("\n" + "\n".join(lines) if lines else "")
    return answer(game.modules(*MODULES, pt=False), facts).model


def sources(pool: CardPool | None, state: GameState) -> list[Source]:
    """The replacement effects the rules show on the players' events now (losing the game,
    drawing, gaining life), one for each event that some effect replaces, and the players
    who can't lose the game."""
    pool = _pool(pool)
    if not _may_have_one(pool, state):
        return []
    found = []
    for s in _ask(pool, state):
        if s.match("replaced", 3) and s.arguments[0].name in ("lose", "draw", "gain_life"):
            event, instead = s.arguments[0], s.arguments[1]
            amount = instead.arguments[0].number if instead.arguments else 0
            found.append(
                Source(symbol_text(s.arguments[2]), event.name, symbol_text(event.arguments[0]), instead.name, amount)
            )
        elif s.match("cant_lose", 1):
            found.append(Source("", "lose", symbol_text(s.arguments[0]), "cant_lose"))
    return sorted(found, key=lambda s: (s.player, s.event, s.id))


def _instead(found: list[Source], event: str, player: str) -> str | None:
    return next((s.instead for s in found if s.event == event and s.player == player), None)


def draw_replacement(found: list[Source], player: str) -> Source | None:
    """CR 614.11: the replacement effect the rules show on a draw of this player, if any."""
    return next((s for s in found if s.event == "draw" and s.player == player), None)


def graveyard_destinations(
    pool: CardPool | None,
    state: GameState,
    cards: Sequence[tuple[str, str, str, str | None]],
    tokens: frozenset[str] = frozenset(),
    links: dict[str, str] | None = None,
) -> dict[str, str]:
    """CR 614.1a, 616.1: where each card (or token: ``tokens``) that would be put into its
    owner's graveyard goes, as the rules show: ``exile``, ``library`` (shuffled in), or
    ``graveyard``.  ``cards`` are (id, card, owner, controller if it is a permanent on the
    battlefield of ``state``).  ``links`` receives, for each card exiled instead, the object
    whose linked replacement effect exiled it, when the rules show one (607.2b)."""
    if not cards:
        return {}
    pool = _pool(pool)
    out = {oid: "graveyard" for oid, _, _, _ in cards}
    elsewhere = [card for _, card, _, controller in cards if controller is None]
    if not _may_have_one(pool, state) and not any(_has_printed(pool, card, SELF_GRAVEYARD) for card in elsewhere):
        return out
    extra = []
    for oid, card, owner, controller in cards:
        printed = pool.get(card)
        extra.append(f"would_go_to_graveyard({asp_string(oid)}, {asp_string(owner)}, {asp_string(printed.id)}).")
        if controller is None:
            extra += printed.facts()  # its text, though it may have left its zone already
        if oid in tokens:
            extra.append(f"token({asp_string(oid)}).")
    model = _ask(pool, state, extra)
    if links is not None:
        links.update(links_shown(model))
    return {**out, **destinations_shown(model, out)}


def links_shown(model: Iterable[clingo.Symbol]) -> dict[str, str]:
    """CR 607.2b, 614.13: the cards a replacement effect exiles instead, each with the object whose
    linked ability refers to them, as the rules show (``exiled_with_instead/2``)."""
    return {
        symbol_text(s.arguments[0]): symbol_text(s.arguments[1]) for s in model if s.match("exiled_with_instead", 2)
    }


def destinations_shown(model: Iterable[clingo.Symbol], ids: Iterable[str]) -> dict[str, str]:
    """Where the rules' answer (``replaced(to_graveyard(O), Zone, Source)``) sends each of
    ``ids`` instead of its owner's graveyard (those it doesn't name go there)."""
    out = {oid: "graveyard" for oid in ids}
    for s in model:
        if s.match("replaced", 3) and s.arguments[0].match("to_graveyard", 1):
            oid = symbol_text(s.arguments[0].arguments[0])
            if oid in out:
                out[oid] = s.arguments[1].name
    return out


def _has_printed(pool: CardPool, card: str, keyword: str) -> bool:
    try:
        printed = pool.get(card)
    except Exception:
        return False
    return any(getattr(a, "keyword", a) == keyword for a in printed.abilities)


def draw_replaced(found: list[Source], state: GameState, player: str) -> bool:
    """CR 614.11: the rules show that a draw of this player is replaced (even from an empty
    library); ``found`` is what :func:`sources` returned for ``state``."""
    return _instead(found, "draw", player) is not None


def life_gain_replaced(found: list[Source], player: str) -> bool:
    """The rules show this player's life gain replaced (by drawing that many cards)."""
    return _instead(found, "gain_life", player) is not None
