"""The small positions :mod:`bridge.play.verify` checks and :mod:`bridge.play.symbolic` proves
properties over: permanents (a card, a side, tapped or not, damage, counters), what each Aura
or Equipment is attached to, the cards in the active player's hand; every one up to a
number of permanents, up to symmetry, or random ones."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bridge.model.cards import CardPool, slug
from bridge.model.state import GameState, fresh_id

__all__ = [
    "ATTACK",
    "BLOCK",
    "MAIN",
    "PLAYERS",
    "Piece",
    "Position",
    "attachments",
    "can_be_tapped",
    "elements",
    "exhaustive_positions",
    "kinds",
    "positions_from",
    "random_positions",
]

PLAYERS = ("alice", "bob")  # alice is the active player
MAIN, ATTACK, BLOCK = "main1", "declare_attackers", "declare_blockers"


@dataclass(frozen=True, order=True)
class Piece:
    """A permanent as generated: its card, its side (0: the active player's) and status."""

    card: str
    side: int
    tapped: bool = False
    damage: int = 0
    counters: int = 0  # +1/+1 counters


@dataclass(frozen=True)
class Position:
    """A generated position: the permanents, what each Aura or Equipment is attached to (an
    index into ``pieces``, or None), the cards in the active player's hand, and (for the
    declaration of blockers) which of the active player's creatures attack."""

    pieces: tuple[Piece, ...]
    attached: tuple[int | None, ...]
    hand: tuple[str, ...]
    attackers: frozenset[int] | None = None  # None: the most that may attack

    def ids(self) -> list[str]:
        """The permanents' ids, in the order of ``pieces``: their card's name, numbered."""
        taken: set[str] = set()
        return [fresh_id(slug(p.card), taken) for p in self.pieces]

    def state(self, step: str = MAIN) -> GameState:
        """The position at the main phase or the declaration of attackers (the declaration of
        blockers is reached by playing: :func:`bridge.play.verify.blocking_state`)."""
        ids = self.ids()
        sides: list[list[dict[str, Any]]] = [[], []]
        for i, (piece, oid) in enumerate(zip(self.pieces, ids)):
            perm: dict[str, Any] = {"id": oid, "card": piece.card, "timestamp": i + 1}
            if piece.tapped:
                perm["tapped"] = True
            if piece.damage:
                perm["damage"] = piece.damage
            if piece.counters:
                perm["counters"] = {"+1/+1": piece.counters}
            target = self.attached[i]
            if target is not None:
                perm["attached_to"] = ids[target]
            sides[piece.side].append(perm)
        players = [{"name": name, "battlefield": sides[n]} for n, name in enumerate(PLAYERS)]
        players[0]["hand"] = list(self.hand)
        return GameState.model_validate({"turn": 3, "active": PLAYERS[0], "step": step, "players": players})


def kinds(pool: CardPool, cards: Iterable[str]) -> tuple[list[str], list[str]]:
    """The permanent cards and the others (which go to the hand)."""
    permanents: list[str] = []
    spells: list[str] = []
    for name in cards:
        types = pool.get(name).types
        (spells if {"instant", "sorcery"} & set(types) else permanents).append(name)
    return permanents, spells


def attachments(pool: CardPool, pieces: tuple[Piece, ...], rng: random.Random | None) -> list[tuple[int | None, ...]]:
    """What each Aura (any creature, or nothing when there is none) and Equipment (nothing,
    or a creature on its side) may be attached to: every way, or one at random."""
    creatures = [i for i, p in enumerate(pieces) if "creature" in pool.get(p.card).types]
    options: list[list[int | None]] = []
    for piece in pieces:
        card = pool.get(piece.card)
        if "aura" in card.subtypes:
            options.append(list(creatures) or [None])
        elif "equipment" in card.subtypes:
            options.append([None, *(c for c in creatures if pieces[c].side == piece.side)])
        else:
            options.append([None])
    if rng is not None:
        return [tuple(rng.choice(o) for o in options)]
    return list(itertools.product(*options))


def can_be_tapped(pool: CardPool, card: str) -> bool:
    """Whether a permanent of the card is given a tapped variant: a creature, a land, or a
    permanent with an activated ability (an Equipment's equip).  Symmetry breaking: an
    enchantment without activated abilities, tapped, is the same position as untapped (no
    rule of the pool looks at a tapped Aura or anthem: tapping changes what a permanent
    can do, 110.5, and such a permanent does nothing by being untapped)."""
    data = pool.get(card)
    return bool({"creature", "land"} & set(data.types)) or bool(data.activated)


def elements(pool: CardPool, cards: Sequence[str], tapped: bool = True) -> tuple[Piece, ...]:
    """The pieces an exhaustive position is made of, in order: each permanent card on either
    side, tapped or not (``tapped``; only those :func:`can_be_tapped`)."""
    permanents, _ = kinds(pool, cards)
    states = {card: (False, True) if tapped and can_be_tapped(pool, card) else (False,) for card in permanents}
    return tuple(sorted(Piece(card, side, t) for card in permanents for side in (0, 1) for t in states[card]))


def exhaustive_positions(
    pool: CardPool, cards: Sequence[str], max_permanents: int, tapped: bool = True
) -> Iterator[Position]:
    """Every position of 1 to ``max_permanents`` permanents of the cards, each on either
    side, tapped or not (``tapped``; only those :func:`can_be_tapped`), up to symmetry: a
    multiset per side (the permanents sorted), with every way of attaching its Auras and
    Equipment; the other cards in the active player's hand."""
    _, spells = kinds(pool, cards)
    for n in range(1, max_permanents + 1):
        for pieces in itertools.combinations_with_replacement(elements(pool, cards, tapped), n):
            for attached in attachments(pool, pieces, None):
                yield Position(pieces, attached, tuple(spells))


def positions_from(
    pool: CardPool, cards: Sequence[str], max_permanents: int, tapped: bool, first: int
) -> Iterator[Position]:
    """The exhaustive positions (:func:`exhaustive_positions`) whose first permanent, the
    least, is the element ``first`` of :func:`elements`: the positions in chunks."""
    _, spells = kinds(pool, cards)
    pieces = elements(pool, cards, tapped)
    for n in range(1, max_permanents + 1):
        for rest in itertools.combinations_with_replacement(pieces[first:], n - 1):
            chosen = (pieces[first], *rest)
            for attached in attachments(pool, chosen, None):
                yield Position(chosen, attached, tuple(spells))


def random_positions(
    pool: CardPool, cards: Sequence[str], smallest: int, largest: int, count: int, seed: int
) -> Iterator[Position]:
    """``count`` random positions of ``smallest`` to ``largest`` permanents, tapped, damaged
    and with counters at random, some of the active player's creatures attacking."""
    permanents, spells = kinds(pool, cards)
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.randint(smallest, max(smallest, largest))
        pieces = tuple(
            sorted(
                Piece(
                    rng.choice(permanents),
                    rng.randrange(2),
                    tapped=rng.random() < 0.25,
                    damage=rng.choice((0, 0, 0, 1, 2)),
                    counters=rng.choice((0, 0, 0, 1)),
                )
                for _ in range(n)
            )
        )
        attached = attachments(pool, pieces, rng)[0]
        hand = tuple(s for s in spells if rng.random() < 0.7)
        attackers = frozenset(i for i, p in enumerate(pieces) if p.side == 0 and rng.random() < 0.7)
        yield Position(pieces, attached, hand, attackers)
