"""Replacement effects on cards going to a graveyard, on draws, on life gain and on losing
the game (CR 614, 616).

The rules decide (``asp_rules/replacement.lp``): which permanents' static abilities replace
an event, read from the permanents as the layer system leaves them (an ability that was
removed replaces nothing, while "if <this card> would be put into a graveyard from
anywhere" works from every zone); which one applies when several would (616.1: the sources
named in the affected player's ``replacement_order`` first, in that order, then the others by
source id); and what happens instead.  This module asks them one question for an event and
carries out what they show: it moves the cards, draws, starts a player over.  Effects on
damage are in the rules too (combat/damage_dealing.lp); the state-based actions' question
answers for the cards they put into a graveyard (sba.lp).

The question is asked only when a permanent's card (or the card it copies), an effect, or
the printed text of a card on its way to a graveyard mentions one of these abilities: with
none, nothing can replace these events.
"""
from __future__ import annotations

import re
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

import clingo

from bridge.facts import asp_string
from bridge.models import CardRef, GameState

__all__ = ["Source", "sources", "graveyard_destinations", "destinations_shown", "place", "draw_replaced", "lose",
           "return_instead_of_draw", "life_gain_replaced", "gain_or_draw", "exile_from_graveyard_instead"]

MODULES = ("replacement",)

# the static abilities that replace these events (cards/README.md), for the cheap check only
_ABILITIES = ("exile_opponents_graveyard_cards", "exile_your_graveyard_cards", "exile_permanents_instead_of_graveyard",
              "shuffle_into_library_instead_of_graveyard", "draws_return_from_graveyard", "life_gain_draws_instead",
              "replaces_losing", "cant_lose_game")
SELF_GRAVEYARD = "shuffle_into_library_instead_of_graveyard"
_MAY_REPLACE = re.compile(r"\b(" + "|".join(_ABILITIES) + r")\b")


@dataclass(frozen=True)
class Source:
    """A replacement effect the rules show on a player's event: the ``event`` (``lose``,
    ``draw`` or ``gain_life``) of ``player`` happens as ``instead`` (``restart``,
    ``return_from_graveyard``, ``lose_game``, ``draw``) through the static ability of the
    permanent ``id``.  ``cant_lose`` (with no source) says the player can't lose the game."""

    id: str
    event: str
    player: str
    instead: str


# whether a card mentions one of these abilities, for each pool (a pool's cards may differ
# from another's; the entries go with their pool)
_MENTIONS: "weakref.WeakKeyDictionary[object, dict[str, bool]]" = weakref.WeakKeyDictionary()


def _mentions(pool: object, card: str) -> bool:
    known = _MENTIONS.setdefault(pool, {})
    if card not in known:
        known[card] = bool(_MAY_REPLACE.search(pool.get(card).model_dump_json()))  # type: ignore[attr-defined]
    return known[card]


def _may_have_one(pool: object, state: GameState) -> bool:
    """Whether a permanent's card (or the card it copies) or an effect mentions one of these
    abilities at all: if not, nothing on the battlefield can replace these events and the
    rules needn't be asked."""
    cards = {p.id: p.card for p in state.permanents()}
    for perm in state.permanents():
        copied = cards.get(perm.chosen.get("copy", "")) or perm.chosen.get("copy_card")
        if _mentions(pool, perm.card) or (copied is not None and _mentions(pool, copied)):
            return True
    return any(_MAY_REPLACE.search(e.model_dump_json()) for e in state.effects)


def _pool(pool: object) -> object:
    from bridge.cards import CardPool
    return pool if pool is not None else CardPool.default()


def _ask(pool: object, state: GameState, extra: Iterable[str] = ()) -> frozenset[clingo.Symbol]:
    """The rules' answer on the state, with the question's facts (events, cards)."""
    from bridge.game import Game
    from bridge.solver import answer
    game = Game(state, pool)  # type: ignore[arg-type]
    lines = list(extra)
    facts = game.position.facts + ("\n" + "\n".join(lines) if lines else "")
    return answer(game.modules(*MODULES, pt=False), facts).model


def _text(sym: clingo.Symbol) -> str:
    return sym.string if sym.type == clingo.SymbolType.String else str(sym)


def sources(pool: object, state: GameState) -> list[Source]:
    """The replacement effects the rules show on the players' events now (losing the game,
    drawing, gaining life), one for each event that some effect replaces, and the players
    who can't lose the game."""
    pool = _pool(pool)
    if not _may_have_one(pool, state):
        return []
    found = []
    for s in _ask(pool, state):
        if s.match("replaced", 3) and s.arguments[0].name in ("lose", "draw", "gain_life"):
            event = s.arguments[0]
            found.append(Source(_text(s.arguments[2]), event.name, _text(event.arguments[0]), s.arguments[1].name))
        elif s.match("cant_lose", 1):
            found.append(Source("", "lose", _text(s.arguments[0]), "cant_lose"))
    return sorted(found, key=lambda s: (s.player, s.event, s.id))


def _instead(found: list[Source], event: str, player: str) -> str | None:
    return next((s.instead for s in found if s.event == event and s.player == player), None)


def graveyard_destinations(pool: object, state: GameState, cards: list[tuple[str, str, str, str | None]],
                           tokens: frozenset[str] = frozenset()) -> dict[str, str]:
    """CR 614.1a, 616.1: where each card (or token: ``tokens``) that would be put into its
    owner's graveyard goes, as the rules show: ``exile``, ``library`` (shuffled in), or
    ``graveyard``.  ``cards`` are (id, card, owner, controller if it is a permanent on the
    battlefield of ``state``)."""
    if not cards:
        return {}
    pool = _pool(pool)
    out = {oid: "graveyard" for oid, _, _, _ in cards}
    elsewhere = [card for _, card, _, controller in cards if controller is None]
    if not _may_have_one(pool, state) and not any(_has_printed(pool, card, SELF_GRAVEYARD) for card in elsewhere):
        return out
    extra = []
    for oid, card, owner, controller in cards:
        printed = pool.get(card)  # type: ignore[attr-defined]
        extra.append(f"would_go_to_graveyard({asp_string(oid)}, {asp_string(owner)}, {asp_string(printed.id)}).")
        if controller is None:
            extra += printed.facts()  # its text, though it may have left its zone already
        if oid in tokens:
            extra.append(f"token({asp_string(oid)}).")
    return {**out, **destinations_shown(_ask(pool, state, extra), out)}


def destinations_shown(model: Iterable[clingo.Symbol], ids: Iterable[str]) -> dict[str, str]:
    """Where the rules' answer (``replaced(to_graveyard(O), Zone, Source)``) sends each of
    ``ids`` instead of its owner's graveyard (those it doesn't name go there)."""
    out = {oid: "graveyard" for oid in ids}
    for s in model:
        if s.match("replaced", 3) and s.arguments[0].match("to_graveyard", 1):
            oid = _text(s.arguments[0].arguments[0])
            if oid in out:
                out[oid] = s.arguments[1].name
    return out


def _has_printed(pool: object, card: str, keyword: str) -> bool:
    try:
        printed = pool.get(card)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - an unknown card was reported where it was read
        return False
    return any(getattr(a, "keyword", a) == keyword for a in printed.abilities)


def place(state: GameState, player: str, ref: CardRef, where: str) -> GameState:
    """Put a card into one of its owner's zones: ``library`` shuffles it in (701.19)."""
    from bridge.stack import shuffle
    players = []
    for p in state.players:
        if p.name == player:
            zone = "library" if where == "library" else where
            p = p.model_copy(update={zone: [*getattr(p, zone), ref]})
        players.append(p)
    state = state.model_copy(update={"players": players})
    return shuffle(state, player) if where == "library" else state


def draw_replaced(found: list[Source], state: GameState, player: str) -> bool:
    """CR 614.11: the rules show that a draw of this player is replaced (even from an empty
    library); ``found`` is what :func:`sources` returned for ``state``."""
    return _instead(found, "draw", player) is not None


def lose(pool: object, state: GameState, player: str) -> GameState:
    """CR 104.3e: an effect says the player loses the game; the rules show whether he or she
    can't lose (then nothing happens) or whether a replacement effect replaces the loss
    (Lich's Mirror: the player starts over, 614.1a, as 704.6 for state-based actions)."""
    from bridge.game import _restart
    found = sources(pool, state) if pool is not None else []
    instead = _instead(found, "lose", player)
    if instead == "cant_lose":
        return state
    if instead == "restart":
        return _restart(state, player, pool)  # type: ignore[arg-type]
    return state.model_copy(update={"players": [p.model_copy(update={"lost": True, "lost_by": p.lost_by or "104.3e"})
                                                if p.name == player else p for p in state.players]})


def return_instead_of_draw(state: GameState, player: str, pool: object = None) -> GameState:
    """CR 614.11, 614.11a: one draw of the player, as the rules show it replaced now (each
    draw of a sequence is asked about in turn): a card returned from the graveyard to the
    hand (the player's choice; the bridge's default: the card put there last), or the game
    lost when there is none (Forbidden Crypt); not replaced any more, the card is drawn."""
    from bridge.stack import draw
    instead = _instead(sources(pool, state), "draw", player)
    if instead is None:
        return draw(state, player, 1, pool)
    if instead == "lose_game":
        return lose(pool, state, player)
    players = [p.model_copy(update={"graveyard": p.graveyard[:-1], "hand": [*p.hand, p.graveyard[-1]]})
               if p.name == player else p for p in state.players]
    return state.model_copy(update={"players": players})


def life_gain_replaced(found: list[Source], player: str) -> bool:
    """The rules show this player's life gain replaced (by drawing that many cards)."""
    return _instead(found, "gain_life", player) is not None


def gain_or_draw(pool: object, state: GameState, gains: dict[str, int]) -> tuple[GameState, set[str]]:
    """CR 118.4 with 614.1a: each player gains the life, unless the rules show the gain
    replaced (then he or she draws that many cards instead, and those draws may be replaced
    in turn, 616.2).  Returns the state and the players whose gain was replaced (no life
    gained: nothing triggers on it, 614.6)."""
    from bridge.stack import draw
    gains = {p: n for p, n in gains.items() if n > 0}
    found = sources(pool, state) if gains else []
    replaced = {p for p in gains if life_gain_replaced(found, p)}
    players = [p.model_copy(update={"life": p.life + gains[p.name]}) if p.name in gains and p.name not in replaced
               else p for p in state.players]
    state = state.model_copy(update={"players": players})
    for p in sorted(replaced):
        state = draw(state, p, gains[p], pool)
    return state, replaced


def exile_from_graveyard_instead(state: GameState, amounts: dict[str, int], pool: object = None,
                                 unable: Iterable[str] = ()) -> GameState:
    """Nefarious Lich: damage to the player was replaced by exiling that many cards from his
    or her graveyard (the player's choice; the bridge's default: those put there first); the
    players the rules show ``unable`` to (combat/damage_dealing.lp) lose the game instead."""
    unable = set(unable)
    for name, n in sorted(amounts.items()):
        if n <= 0:
            continue
        if name in unable:
            state = lose(pool, state, name)
            continue
        players = [p.model_copy(update={"graveyard": p.graveyard[n:], "exile": [*p.exile, *p.graveyard[:n]]})
                   if p.name == name else p for p in state.players]
        state = state.model_copy(update={"players": players})
    return state
