"""Replacement effects on cards going to a graveyard, on draws and on life gain (CR 614, 616).

The static abilities that generate them are read from the permanents as the layer system
leaves them (an ability that was removed replaces nothing), except "if <this card> would be
put into a graveyard from anywhere", which its card has in every zone (CR 112.6). Effects on
damage are in the rules (combat/damage_dealing.lp); these are the events the bridge carries
out itself.

When several effects would apply to one event, the affected player or the controller (else
the owner) of the affected object chooses one (616.1): the sources named in the player's
``replacement_order`` first, in that order, then the others by source id; after one applies,
only those that still apply to the modified event can follow (616.1d), and an effect can
make another one apply (616.2: a life gain replaced by draws, each draw replaced in turn).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from bridge.models import CardRef, GameState

# the static abilities that replace these events (cards/README.md)
GRAVEYARD = {"exile_opponents_graveyard_cards": "exile", "exile_your_graveyard_cards": "exile",
             "exile_permanents_instead_of_graveyard": "exile"}
SELF_GRAVEYARD = "shuffle_into_library_instead_of_graveyard"
DRAW = "draws_return_from_graveyard"
LOSING = "replaces_losing"
CANT_LOSE = "cant_lose_game"
LIFE_GAIN = "life_gain_draws_instead"
_MAY_REPLACE = re.compile(r"\b(" + "|".join([*GRAVEYARD, SELF_GRAVEYARD, DRAW, LIFE_GAIN, LOSING, CANT_LOSE]) + r")\b")


@dataclass(frozen=True)
class Source:
    """A permanent whose static ability generates a replacement effect."""

    id: str
    keyword: str
    controller: str


_MENTIONS: dict[tuple[int, str], bool] = {}


def _mentions(pool: object, card: str) -> bool:
    key = (id(pool), card)
    if key not in _MENTIONS:
        _MENTIONS[key] = bool(_MAY_REPLACE.search(pool.get(card).model_dump_json()))  # type: ignore[attr-defined]
    return _MENTIONS[key]


def _may_have_one(pool: object, state: GameState) -> bool:
    """Whether a permanent's card (or the card it copies) or an effect mentions one of these
    abilities at all: if not, nothing can replace these events and the rules needn't be
    asked."""
    cards = {p.id: p.card for p in state.permanents()}
    for perm in state.permanents():
        copied = cards.get(perm.chosen.get("copy", "")) or perm.chosen.get("copy_card")
        if _mentions(pool, perm.card) or (copied is not None and _mentions(pool, copied)):
            return True
    return any(_MAY_REPLACE.search(e.model_dump_json()) for e in state.effects)


def sources(pool: object, state: GameState) -> list[Source]:
    """The replacement effects of the permanents on the battlefield now."""
    from bridge.game import Game
    if not _may_have_one(pool, state):
        return []
    game = Game(state, pool)  # type: ignore[arg-type]
    wanted = {*GRAVEYARD, SELF_GRAVEYARD, DRAW, LIFE_GAIN, LOSING, CANT_LOSE}
    found = []
    for oid, ch in sorted(game.all_characteristics().items()):
        for ability in ch.abilities:
            if ability in wanted:
                found.append(Source(oid, ability, ch.controller))
    return found


def _ordered(state: GameState, chooser: str, effects: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """CR 616.1: the chooser's order: his or her named sources first, then by source id."""
    named = state.player(chooser).replacement_order
    return sorted(effects, key=lambda e: (named.index(e[0]) if e[0] in named else len(named), e[0]))


def graveyard_destinations(pool: object, state: GameState, cards: list[tuple[str, str, str, str | None]],
                           found: list[Source] | None = None, tokens: frozenset[str] = frozenset()
                           ) -> dict[str, str]:
    """CR 614.1a, 616.1: where each card (or token: ``tokens``) that would be put into its
    owner's graveyard goes instead: ``exile`` or ``library`` (shuffled in), or ``graveyard``.
    ``cards`` are (id, card, owner, controller if it is a permanent)."""
    if not cards:
        return {}
    if found is None:
        found = sources(pool, state)
    printed_self = {oid for oid, card, _, _ in cards
                    if _has_printed(pool, card, SELF_GRAVEYARD)}
    if not found and not printed_self:
        return {oid: "graveyard" for oid, _, _, _ in cards}
    on_battlefield = {s.id for s in found if s.keyword == SELF_GRAVEYARD}
    out = {}
    for oid, card, owner, controller in cards:
        effects: list[tuple[str, str]] = []
        for s in found:
            if s.keyword == "exile_permanents_instead_of_graveyard":
                # "if a permanent would be put into a graveyard" (tokens too)
                if controller is not None:
                    effects.append((s.id, "exile"))
            elif s.keyword in GRAVEYARD and oid not in tokens:
                # "a card": not a token
                mine = s.controller == owner
                if (s.keyword == "exile_your_graveyard_cards") == mine:
                    effects.append((s.id, GRAVEYARD[s.keyword]))
        # "If this would be put into a graveyard from anywhere": on the battlefield only if it
        # still has the ability; elsewhere its card has it
        if (oid in on_battlefield) or (controller is None and oid in printed_self):
            effects.append((oid, "library"))
        chooser = controller or owner
        ordered = _ordered(state, chooser, effects)
        # the first applies; the card no longer goes to a graveyard, so no other applies
        out[oid] = ordered[0][1] if ordered else "graveyard"
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
    """CR 614.11: a draw of this player is replaced (even from an empty library)."""
    return any(s.keyword == DRAW and s.controller == player for s in found)


def lose(pool: object, state: GameState, player: str) -> GameState:
    """CR 104.3e: an effect says the player loses the game, unless a replacement effect of
    his or her own replaces the loss (Lich's Mirror, 614.1a; as 704.6 for state-based
    actions)."""
    from bridge.game import _restart
    found = sources(pool, state) if pool is not None else []
    if any(s.keyword == CANT_LOSE and s.controller == player for s in found):
        return state  # "you can't lose the game" (Platinum Angel)
    if any(s.keyword == LOSING and s.controller == player for s in found):
        return _restart(state, player, pool)  # type: ignore[arg-type]
    return state.model_copy(update={"players": [p.model_copy(update={"lost": True, "lost_by": p.lost_by or "104.3e"})
                                                if p.name == player else p for p in state.players]})


def return_instead_of_draw(state: GameState, player: str, pool: object = None) -> GameState:
    """Forbidden Crypt: return a card from the graveyard to the hand instead of drawing (the
    player's choice; the bridge's default: the card put there last); with none, the player
    loses the game."""
    graveyard = state.player(player).graveyard
    if not graveyard:
        return lose(pool, state, player)
    players = [p.model_copy(update={"graveyard": p.graveyard[:-1], "hand": [*p.hand, p.graveyard[-1]]})
               if p.name == player else p for p in state.players]
    return state.model_copy(update={"players": players})


def life_gain_replaced(found: list[Source], player: str) -> bool:
    """Nefarious Lich: this player's life gain is replaced by drawing that many cards."""
    return any(s.keyword == LIFE_GAIN and s.controller == player for s in found)


def gain_or_draw(pool: object, state: GameState, gains: dict[str, int]) -> tuple[GameState, set[str]]:
    """CR 118.4 with 614.1a: each player gains the life, unless an effect replaces the gain
    (then draws that many cards instead, and those draws may be replaced in turn, 616.2).
    Returns the state and the players whose gain was replaced (no life gained: nothing
    triggers on it, 614.6)."""
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


def exile_from_graveyard_instead(state: GameState, amounts: dict[str, int], pool: object = None) -> GameState:
    """Nefarious Lich: damage to the player was replaced by exiling that many cards from his
    or her graveyard (the player's choice; the bridge's default: those put there first); if
    the player can't, he or she loses the game."""
    for name, n in sorted(amounts.items()):
        graveyard = state.player(name).graveyard
        if n <= 0:
            continue
        if len(graveyard) < n:
            state = lose(pool, state, name)
            continue
        players = [p.model_copy(update={"graveyard": p.graveyard[n:], "exile": [*p.exile, *p.graveyard[:n]]})
                   if p.name == name else p for p in state.players]
        state = state.model_copy(update={"players": players})
    return state
