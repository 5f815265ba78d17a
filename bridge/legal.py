"""What a player could do now, as the rules list it, in one question.

:func:`listing` asks the rules once (``asp_rules/stack/cast.lp`` and ``stack/mana.lp`` with
``listing(P)``) which cards in the player's hand, or with flashback in the graveyard, he or
she could try to cast now, which activated abilities activate, which lands play and which
mana abilities activate, with each color (CR 115.1, 117.1a, 605.3a): priority, timing,
"can't" effects, a permanent to sacrifice and a mana cost within reach.  Playing a land and
activating a mana ability are judged whole there; a spell's or an ability's targets and
exact payment are judged as each is tried (``stack.legal_targets``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import clingo

from bridge import stack
from bridge.facts import asp_string
from bridge.solver import answer

if TYPE_CHECKING:
    from bridge.game import Game

__all__ = ["Listing", "listing"]


@dataclass(frozen=True)
class Listing:
    """The answer: card ids that may be cast (hand or graveyard), (source, ability number)
    pairs that may be activated, land ids that may be played, (source, color word) mana
    activations, and for what has a sacrifice in its cost, the permanents that could pay it
    (by card id, or by ``source/number``)."""

    casts: frozenset[str]
    abilities: frozenset[tuple[str, int]]
    lands: frozenset[str]
    mana: tuple[tuple[str, str], ...]
    sacrifices: dict[str, tuple[str, ...]]


def listing(game: "Game", player: str) -> Listing:
    """What ``player`` could try now (one question of the rules; the answer is kept for a
    position asked about again)."""
    facts = game.position.facts + f"\nlisting({asp_string(player)})."
    model = answer(game.modules(*stack.ACTING), facts).model
    casts = frozenset(s.arguments[0].string for s in model if s.match("may_try_cast", 1))
    abilities = frozenset((s.arguments[0].string, s.arguments[1].number) for s in model
                          if s.match("may_try_activate", 2))
    lands = frozenset(s.arguments[0].string for s in model if s.match("may_play_land", 1))
    mana = tuple(sorted((s.arguments[0].string, stack.MANA_COLORS[s.arguments[1].name]) for s in model
                        if s.match("may_activate_mana", 2)))
    sacrifices: dict[str, list[str]] = {}
    for s in model:
        if s.match("may_sacrifice", 2):
            sacrifices.setdefault(_attempt_key(s.arguments[0]), []).append(s.arguments[1].string)
    return Listing(casts=casts, abilities=abilities, lands=lands, mana=mana,
                   sacrifices={k: tuple(sorted(v)) for k, v in sacrifices.items()})


def _attempt_key(attempt: clingo.Symbol) -> str:
    """A card's id, or ``source/number`` for an ability (``act(S, K)``)."""
    if attempt.type == clingo.SymbolType.String:
        return attempt.string
    source, number = attempt.arguments
    return f"{source.string}/{number.number}"
