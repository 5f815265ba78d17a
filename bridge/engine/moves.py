"""Cards and permanents moving between zones: drawing (119), discarding (701.7), milling,
shuffling (a random order, as 103.1 shuffles a deck), permanents leaving the battlefield
(tokens cease to exist, 704.5d),
cards put onto the battlefield with what they enter with or as (614.1c, 614.12, 706.5),
tokens created (110.5b), a spell leaving the stack for where the rules say (608.2k); each
through the replacement effects the rules show (614.1a), and what the moves make trigger
waiting to go on the stack (603.6).  Losing the game (104.3e) and Lich's Mirror's new start
are here too, as a draw can lead to them and they to draws.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import clingo

from bridge.engine.board import Board
from bridge.engine.facts import asp_string
from bridge.engine.replacement import (
    _instead,
    draw_replaced,
    draw_replacement,
    graveyard_destinations,
    life_gain_replaced,
    sources,
)
from bridge.engine.replacement import sources as replacement_sources
from bridge.engine.solver import atoms, symbol_text
from bridge.engine.triggers import leaving_events, triggers_on
from bridge.engine.updates import next_timestamp, remove_from_combat, update_permanent, updated
from bridge.model.cards import COLORS, Card, CardPool
from bridge.model.errors import InputError
from bridge.model.state import CardRef, GameState, Permanent, StackObject, fresh_id


def place(state: GameState, player: str, ref: CardRef, where: str) -> GameState:
    """Put a card into one of its owner's zones: ``library`` shuffles it in."""
    players = []
    for p in state.players:
        if p.name == player:
            zone = "library" if where == "library" else where
            p = p.model_copy(update={zone: [*getattr(p, zone), ref]})
        players.append(p)
    state = state.model_copy(update={"players": players})
    return shuffle(state, player) if where == "library" else state


def draw(state: GameState, player: str, n: int, pool: CardPool | None = None) -> GameState:
    """CR 119.1-119.2: draw from the top of the library; drawing from an empty library is
    recorded for the state-based actions (704.5b). CR 614.11, 614.11a: each draw may be
    replaced, even from an empty library, before the next."""
    found = replacement_sources(pool, state) if pool is not None and n > 0 else []
    if draw_replaced(found, state, player):
        for _ in range(n):
            state = return_instead_of_draw(state, player, pool)
        return state
    players = []
    drawn = 0
    first: list[str] = []
    for p in state.players:
        if p.name == player:
            take = p.library[:n]
            drawn = len(take)
            empty = len(p.library) < n
            if take and p.drawn_this_turn == 0:
                first = [take[0].id or "", take[0].card]
            p = p.model_copy(
                update={
                    "library": p.library[n:],
                    "hand": [*p.hand, *take],
                    "drew_from_empty_library": p.drew_from_empty_library or empty,
                    "drawn_this_turn": p.drawn_this_turn + drawn,
                }
            )
        players.append(p)
    state = updated(state, players=players)
    if pool is None or not drawn:
        return state
    whens = {t.when for p in state.permanents() for t in pool.get(p.card).triggered}
    # CR 119.1, 603.2c: each card drawn is an event ("whenever an opponent draws a card")
    events = [f"draws({asp_string(player)}, {k})" for k in range(1, drawn + 1)] if "an_opponent_draws" in whens else []
    if first and "you_reveal_this_way" in whens:
        # CR 603.10: the first card the player draws this turn (revealed by a static ability)
        card = pool.get(first[1]).id
        events.append(f"first_draw({asp_string(player)}, {asp_string(first[0])}, {asp_string(card)})")
    return triggers_on(pool, state, state, events) if events else state


def exiled_card_to_graveyard(game: Board, state: GameState, card_id: str) -> GameState:
    """A card in exile is put into its owner's graveyard (a cost, CR 607.2b); replacement
    effects may send it elsewhere (614.1a)."""
    owner = next(p for p in state.players if any(c.id == card_id for c in p.exile))
    card = next(c for c in owner.exile if c.id == card_id)
    players = [
        p.model_copy(update={"exile": [c for c in p.exile if c.id != card_id]}) if p.name == owner.name else p
        for p in state.players
    ]
    state = updated(state, players=players)
    where = graveyard_destinations(game.pool, state, [(card_id, card.card, owner.name, None)])
    return place(state, owner.name, CardRef(id=card_id, card=card.card), where.get(card_id, "graveyard"))


def discard(
    state: GameState, player: str, n: int, pool: CardPool | None = None, first: Sequence[str] = ()
) -> GameState:
    """CR 701.7: the player discards n cards; the player's choice (``first``: the cards he or she
    named, in the hand), by default the cards listed last in the hand. On their way to the
    graveyard replacement effects may send them elsewhere (614.1a)."""
    hand = state.player(player).hand
    if first:
        named = [c for x in dict.fromkeys(first) for c in hand if c.id == x]
        hand = [c for c in hand if c.id not in set(first)] + named
        players = [p.model_copy(update={"hand": hand}) if p.name == player else p for p in state.players]
        state = updated(state, players=players)
    keep = max(len(hand) - n, 0)
    if n <= 0 or keep == len(hand):
        return state
    going = hand[keep:]
    players = [p.model_copy(update={"hand": p.hand[:keep]}) if p.name == player else p for p in state.players]
    state = updated(state, players=players)
    where = (
        graveyard_destinations(pool, state, [(c.id or "", c.card, player, None) for c in going])
        if pool is not None
        else {}
    )
    for card in going:
        state = place(state, player, card, where.get(card.id or "", "graveyard"))
    if pool is None:
        return state
    # CR 701.7, 603.2c: each card discarded is an event ("whenever an opponent discards a card")
    return triggers_on(pool, state, state, [f"discards({asp_string(player)}, {k})" for k in range(1, len(going) + 1)])


def discard_by_choice(state: GameState, player: str, n: int, pool: CardPool | None = None) -> GameState:
    """CR 514.1, 701.7b: the player discards n cards of his or her choice: the cards he or she
    stated (``discard_order``, judged by the rules as stated: cards in his or her hand) that are
    in the hand first, in that order, then the default, the cards listed last."""
    hand = state.player(player).hand
    ids = {c.id for c in hand}
    first = [x for x in dict.fromkeys(state.player(player).discard_order) if x in ids][: max(n, 0)]
    if not first:
        return discard(state, player, n, pool)
    rest = [c for c in hand if c.id not in first]
    keep = max(len(hand) - n, 0)
    by_id = {c.id: c for c in hand}
    # the cards kept, then those discarded in order: the stated ones, then the rest's last
    ordered = rest[:keep] + [by_id[x] for x in first] + rest[keep:]
    players = [p.model_copy(update={"hand": ordered}) if p.name == player else p for p in state.players]
    return discard(updated(state, players=players), player, n, pool)


def mill(state: GameState, player: str, n: int, pool: CardPool | None) -> GameState:
    """The top n cards of the player's library (all when it has fewer) go to his or her
    graveyard, top first; replacement effects may send them elsewhere (614.1a)."""
    library = state.player(player).library
    going = library[:n]
    if not going:
        return state
    state = updated(
        state,
        players=[
            p.model_copy(update={"library": p.library[len(going) :]}) if p.name == player else p for p in state.players
        ],
    )
    where = graveyard_destinations(pool, state, [(c.id or "", c.card, player, None) for c in going])
    for card in going:
        state = place(state, player, card, where.get(card.id or "", "graveyard"))
    return state


def shuffle(state: GameState, player: str) -> GameState:
    """CR 103.1: the library is put in a random order; here a fixed pseudo-random order
    drawn from the position, so that a game log replays exactly."""
    import random

    players = []
    for p in state.players:
        if p.name == player:
            library = list(p.library)
            seed = f"{state.turn}/{state.step}/{player}/" + ",".join(c.id or "" for c in library)
            random.Random(seed).shuffle(library)
            p = p.model_copy(update={"library": library})
        players.append(p)
    return updated(state, players=players)


def shuffled_hand(state: GameState, player: str) -> GameState:
    """CR 701.7b: the hand in a random order (a fixed pseudo-random one drawn from the
    position, so that a game log replays), so that the cards listed last are a random choice."""
    import random

    hand = list(state.player(player).hand)
    random.Random(f"{state.turn}/{state.step}/{player}/hand/" + ",".join(c.id or "" for c in hand)).shuffle(hand)
    return state.model_copy(
        update={"players": [p.model_copy(update={"hand": hand}) if p.name == player else p for p in state.players]}
    )


def lose(pool: CardPool | None, state: GameState, player: str) -> GameState:
    """CR 104.3e: an effect says the player loses the game; the rules show whether he or she
    can't lose (then nothing happens) or whether a replacement effect replaces the loss
    (Lich's Mirror: the player starts over, 614.1a, as 704.6 for state-based actions)."""
    found = sources(pool, state) if pool is not None else []
    instead = _instead(found, "lose", player)
    if instead == "cant_lose":
        return state
    if instead == "restart":
        return restart(state, player, pool)
    return state.model_copy(
        update={
            "players": [
                p.model_copy(update={"lost": True, "lost_by": p.lost_by or "104.3e"}) if p.name == player else p
                for p in state.players
            ]
        }
    )


def return_instead_of_draw(state: GameState, player: str, pool: CardPool | None = None) -> GameState:
    """CR 614.11, 614.11a: one draw of the player, as the rules show it replaced now (each
    draw of a sequence is asked about in turn): a card returned from the graveyard to the
    hand (the player's choice, stated ahead as the pick for the source, ``picks``, while it is in
    the graveyard; the bridge's default: the card put there last), or the game
    lost when there is none (Forbidden Crypt); dredge: the top N cards of the library milled
    and the card returned from the graveyard to the hand (702.49a); not replaced any more, the
    card is drawn."""
    found = draw_replacement(sources(pool, state), player)
    instead = found.instead if found is not None else None
    if found is None:
        return draw(state, player, 1, pool)
    if instead == "lose_game":
        return lose(pool, state, player)
    if instead == "dredge":
        state = mill(state, player, found.amount, pool)
        players = [
            p.model_copy(
                update={
                    "graveyard": [c for c in p.graveyard if c.id != found.id],
                    "hand": [*p.hand, *(c for c in p.graveyard if c.id == found.id)],
                }
            )
            if p.name == player
            else p
            for p in state.players
        ]
        return state.model_copy(update={"players": players})
    me = state.player(player)
    card = next((c for c in me.graveyard if c.id == me.picks.get(found.id)), me.graveyard[-1])
    players = [
        p.model_copy(update={"graveyard": [c for c in p.graveyard if c.id != card.id], "hand": [*p.hand, card]})
        if p.name == player
        else p
        for p in state.players
    ]
    return state.model_copy(update={"players": players})


def gain_or_draw(pool: CardPool | None, state: GameState, gains: dict[str, int]) -> tuple[GameState, set[str]]:
    """CR 117.3 with 614.1a: each player gains the life, unless the rules show the gain
    replaced (then he or she draws that many cards instead, and those draws may be replaced
    in turn, 616.2).  Returns the state and the players whose gain was replaced (no life
    gained: nothing triggers on it, 614.6)."""
    gains = {p: n for p, n in gains.items() if n > 0}
    found = sources(pool, state) if gains else []
    replaced = {p for p in gains if life_gain_replaced(found, p)}
    players = [
        p.model_copy(update={"life": p.life + gains[p.name]}) if p.name in gains and p.name not in replaced else p
        for p in state.players
    ]
    state = state.model_copy(update={"players": players})
    for p in sorted(replaced):
        state = draw(state, p, gains[p], pool)
    return state, replaced


def exile_from_graveyard_instead(
    state: GameState, amounts: dict[str, int], pool: CardPool | None = None, unable: Iterable[str] = ()
) -> GameState:
    """Nefarious Lich: damage to the player was replaced by exiling that many cards from his
    or her graveyard (the player's choice: those he or she stated, ``exile_order``, that are
    there, in order; then the bridge's default: those put there first); the players the rules
    show ``unable`` to (combat/damage_dealing.lp) lose the game instead."""
    unable = set(unable)
    for name, n in sorted(amounts.items()):
        if n <= 0:
            continue
        if name in unable:
            state = lose(pool, state, name)
            continue
        me = state.player(name)
        stated = [c for x in dict.fromkeys(me.exile_order) for c in me.graveyard if c.id == x]
        going = [*stated, *(c for c in me.graveyard if c not in stated)][:n]
        players = [
            p.model_copy(update={"graveyard": [c for c in p.graveyard if c not in going], "exile": [*p.exile, *going]})
            if p.name == name
            else p
            for p in state.players
        ]
        state = state.model_copy(update={"players": players})
    return state


def restart(state: GameState, name: str, pool: CardPool | None = None) -> GameState:
    """Lich's Mirror's replacement (CR 614.1, 704.6): the player's hand, graveyard and the
    permanents the player owns are shuffled into the library, the player draws seven cards and
    the life total becomes 20; with a card pool, what leaves the battlefield triggers."""
    before = state
    owned = [p for p in state.player(name).battlefield if not p.token]
    state = remove_from_combat(state, {p.id for p in owned if p.id})
    gone = {p.id for p in state.player(name).battlefield}
    players = []
    for player in state.players:
        if player.name == name:
            cards = [*player.hand, *player.graveyard, *(CardRef(id=p.id, card=p.card) for p in owned)]
            player = player.model_copy(
                update={
                    "library": [*player.library, *cards],
                    "hand": [],
                    "graveyard": [],
                    "battlefield": [],
                    "life": 20,
                    "drew_from_empty_library": False,
                }
            )
        else:
            player = player.model_copy(
                update={
                    "battlefield": [
                        p.model_copy(update={"attached_to": None}) if p.attached_to in gone else p
                        for p in player.battlefield
                    ]
                }
            )
        players.append(player)
    state = GameState.model_validate(state.model_copy(update={"players": players}).model_dump())
    state = shuffle(state, name)
    state = draw(state, name, 7, pool)
    if pool is None:
        return state
    return triggers_on(pool, before, state, leaving_events(before, {p.id or "": "library" for p in owned}))


def move_permanents(state: GameState, moves: dict[str, str], pool: CardPool | None = None) -> GameState:
    """Permanents leave the battlefield for their owner's zones (tokens cease to exist,
    704.5d); what was attached to them, blocked by them or attacking them is updated; with a
    card pool, the abilities that trigger on their leaving wait to go on the stack."""
    before = state
    links: dict[str, str] = {}  # CR 607.2b: a card exiled instead, and the object it is exiled with
    if pool is not None and "graveyard" in moves.values():
        # CR 614.1a, 616.1: a card on its way to a graveyard may go elsewhere instead
        going = [
            (perm.id or "", perm.card, player.name, before.controller_of(perm))
            for player in before.players
            for perm in player.battlefield
            if moves.get(perm.id or "") == "graveyard"
        ]
        tokens = frozenset(perm.id or "" for perm in before.permanents() if perm.token)
        instead = graveyard_destinations(pool, before, going, tokens=tokens, links=links)
        moves = {
            **moves,
            **{
                oid: where if where != "library" else "shuffle_into_library"
                for oid, where in instead.items()
                if where != "graveyard"
            },
        }
    state = remove_from_combat(state, set(moves))
    owners = {perm.id: player.name for player in state.players for perm in player.battlefield}
    leaving = {perm.id: perm for perm in state.permanents() if perm.id in moves}
    players = []
    for player in state.players:
        battlefield = []
        for perm in player.battlefield:
            if perm.id in leaving:
                continue
            if perm.attached_to in leaving:
                perm = perm.model_copy(update={"attached_to": None})
            battlefield.append(perm)
        update: dict[str, Sequence[CardRef | Permanent]] = {"battlefield": battlefield}
        for oid, perm in leaving.items():
            if owners[oid] != player.name or perm.token:
                continue
            ref = CardRef(id=oid, card=perm.card, exiled_with=links.get(oid) if moves[oid] == "exile" else None)
            where = moves[oid]
            if where == "put_on_top":
                update["library"] = [ref, *update.get("library", player.library)]
            elif where in ("put_on_bottom", "shuffle_into_library"):
                update["library"] = [*update.get("library", player.library), ref]
            else:
                update[where] = [*update.get(where, getattr(player, where)), ref]
        players.append(player.model_copy(update=update))
    effects = [
        e.model_copy(update={"targets": [t for t in e.targets if t not in leaving]})
        for e in state.effects
        if not e.targets or set(e.targets) - set(leaving)
    ]
    ceasing = [oid for oid, perm in leaving.items() if perm.token]
    after = updated(state, players=players, effects=effects, gone=[*state.gone, *ceasing])
    for owner in sorted({owners[oid] for oid, where in moves.items() if where == "shuffle_into_library"}):
        after = shuffle(after, owner)
    if pool is None:
        return after
    return triggers_on(pool, before, after, leaving_events(before, moves))


def create_tokens(
    game: Board,
    state: GameState,
    player: str,
    card_slug: str,
    n: int,
    blocking: str | None = None,
    put_with: str | None = None,
    words: dict[str, str] | None = None,
) -> GameState:
    """CR 110.5b: tokens enter the battlefield under the player's control; CR 509.7: blocking
    an attacking creature, placed last in its damage assignment order when it has one (the
    active player may announce another order); CR 607.2c: remembering the object whose linked
    ability put them there; CR 612.2a: defined with the words the rules show changed."""
    if card_slug not in game.pool:
        raise InputError(f"the token card {card_slug!r} is not in the card pool")
    card = game.pool.get(card_slug)
    taken = state.used_ids()
    new: list[Permanent] = []
    for _ in range(n):
        oid = fresh_id(f"{card_slug}_token", taken, numbered=True)
        new.append(
            Permanent(
                id=oid,
                card=card.name,
                token=True,
                sick=True,
                blocking=[blocking] if blocking else [],
                timestamp=next_timestamp(state) + len(new),
                put_with=put_with,
                token_words=words or {},
            )
        )
    players = [
        p.model_copy(update={"battlefield": [*p.battlefield, *new]}) if p.name == player else p for p in state.players
    ]
    state = updated(state, players=players)
    state = triggers_on(game.pool, state, state, [f"enters({asp_string(t.id or '')})" for t in new])
    if blocking is not None:
        attacker = state.permanent(blocking)
        update: dict[str, object] = {"blocked": True}
        if attacker.damage_order:
            update["damage_order"] = [*attacker.damage_order, *(t.id for t in new)]
        state = update_permanent(state, blocking, update)
    return state


def card_to(
    game: Board,
    state: GameState,
    card_id: str,
    zone: str,
    where: str,
    controller: str | None = None,
    candidates: Mapping[str, str] | None = None,
) -> GameState:
    """A card leaves one of its owner's zones for the hand, or the battlefield (``battlefield``
    or ``battlefield_tapped``) under the owner's control, entering with what it enters with or
    as (614.1c, 614.12; ``candidates``: what a copy may copy, 706.5); what its entering
    triggers waits."""
    owner = next(p.name for p in state.players if any(c.id == card_id for c in getattr(p, zone)))
    card = next(c for c in getattr(state.player(owner), zone) if c.id == card_id)
    players = []
    for p in state.players:
        if p.name == owner:
            update: dict[str, object] = {zone: [c for c in getattr(p, zone) if c.id != card_id]}
            if where == "hand":
                update["hand"] = [*p.hand, card]
            else:
                printed = game.pool.get(card.card)
                update["battlefield"] = [
                    *p.battlefield,
                    Permanent(
                        id=card.id,
                        card=card.card,
                        sick=True,
                        tapped=where == "battlefield_tapped",
                        controller=controller if controller not in (None, owner) else None,
                        timestamp=next_timestamp(state),
                        chosen=as_enters_choices(game, state, card.id or "", printed, controller or owner, candidates),
                    ),
                ]
            p = p.model_copy(update=update)
        players.append(p)
    after = updated(state, players=players)
    if where == "hand":
        return after
    return triggers_on(game.pool, after, after, [f"enters({asp_string(card_id)})"])


def return_from_graveyard(
    game: Board,
    state: GameState,
    card_id: str,
    where: str,
    controller: str | None = None,
    candidates: Mapping[str, str] | None = None,
) -> GameState:
    """A card leaves its owner's graveyard for the hand, or the battlefield under the owner's
    control or ``controller``'s (a new object, 400.7)."""
    return card_to(game, state, card_id, "graveyard", where, controller, candidates)


def take_from_library(
    game: Board, state: GameState, player: str, card_id: str, where: str, candidates: Mapping[str, str] | None = None
) -> GameState:
    """The card found by a search goes to the hand or onto the battlefield (tapped)."""
    return card_to(game, state, card_id, "library", where, candidates=candidates)


def as_enters_kinds(card: Card) -> set[str]:
    """What a card's abilities ask for as it enters: ``color``, ``creature_type``,
    ``land_type``, ``card_name`` (614.12)."""
    needs: set[str] = set()

    def walk(value: object, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            if "chosen" in value:
                needs.add({"set_creature_types": "creature_type", "set_land_types": "land_type"}.get(key, "color"))
            for v in value:
                walk(v, key)
        elif value == "chosen":
            needs.add("color" if key in ("color", "mana") else "creature_type")  # mana: "of the chosen color"

    walk([a.model_dump() if hasattr(a, "model_dump") else a for a in card.abilities])
    if any(getattr(a, "keyword", None) == "named_card_cant_be_cast" for a in card.abilities):
        needs.add("card_name")  # "as <this> enters the battlefield, name a nonland card"
    return needs


def enters_as_copy(card: Card) -> bool:
    """CR 706.2: "enters the battlefield as a copy" (Clone, Vesuvan Doppelganger)."""
    return any(getattr(a, "keyword", None) in ("enters_as_copy", "enters_as_copy_except_color") for a in card.abilities)


def as_enters_choices(
    game: Board, state: GameState, oid: str, card: Card, controller: str, candidates: Mapping[str, str] | None = None
) -> dict[str, str]:
    """CR 614.1c, 614.12: the choices made as a permanent enters the battlefield: what Clone
    copies ("you may": the player's choice among the creatures the rules list in
    ``candidates``, or none when he or she declines, ``declines`` naming the object; the
    bridge's default: the one whose copiable values have the greatest power, if any), then
    the color, creature type or basic land type its abilities (or the copied ones) ask for
    (default: the color most common among the opponent's permanents, else white; the
    creature type most common among the player's creatures, else its own first; the basic
    land type most common among the player's lands, else plains; a card name: see below).
    The player's stated choices (``as_enters``) come first."""
    stated = dict(state.player(controller).as_enters.get(oid, {}))
    chosen: dict[str, str] = {}
    looks_like = card
    if enters_as_copy(card) and oid not in state.player(controller).declines:
        # CR 706.5: a creature on the battlefield as it enters, with the card of the copiable
        # values it would take (706.2-706.3, as the rules say; none for a face-down creature)
        here = {p.id for p in state.permanents()}
        options = {x: c for x, c in (candidates or {}).items() if x != oid and x in here}

        def power(x: str) -> int:
            return (game.pool.get(options[x]).power or 0) if options[x] != "none" else 0

        target = stated.get("copy")
        if target not in options:
            target = max(options, key=lambda x: (power(x), x)) if options else None
        if target is not None:
            chosen["copy"] = target
            if options[target] != "none":
                looks_like = game.pool.get(options[target])
                chosen["copy_card"] = looks_like.id  # kept if the original leaves (706.2)
    for need in sorted(as_enters_kinds(card) | as_enters_kinds(looks_like)):
        if need in stated:
            chosen[need] = stated[need]
        elif need == "color":
            opponent = state.opponent(controller)
            colors = [
                c
                for p in state.permanents()
                if state.controller_of(p) == opponent
                for c in game.pool.get(p.card).color_list()
            ]
            order = list(COLORS.values())
            chosen["color"] = max(order, key=lambda c: (colors.count(c), -order.index(c))) if colors else "white"
        elif need == "card_name":
            # the bridge's default: the nonland card with the smallest id in an opponent's hand,
            # else the permanent's own name
            hand = sorted(
                (c.id or "", c.card)
                for c in state.player(state.opponent(controller)).hand
                if "land" not in game.pool.get(c.card).types
            )
            chosen["card_name"] = game.pool.get(hand[0][1]).name if hand else card.name
        elif need == "land_type":
            basics = ("plains", "island", "swamp", "mountain", "forest")
            have = [
                t
                for p in state.permanents()
                if state.controller_of(p) == controller
                for t in game.pool.get(p.card).subtypes
                if t in basics
            ]
            chosen["land_type"] = max(basics, key=lambda t: (have.count(t), -basics.index(t)))
        else:
            types = [
                t
                for p in state.permanents()
                if state.controller_of(p) == controller and "creature" in game.pool.get(p.card).types
                for t in game.pool.get(p.card).subtypes
            ]
            own = card.subtypes[0] if card.subtypes else "human"
            chosen["creature_type"] = max(sorted(set(types)), key=types.count) if types else own
    return chosen


def copy_spell(state: GameState, oid: str, controller: str) -> GameState:
    """CR 706.9: a copy of the spell goes on the stack (on top), controlled by the player who
    copied it, with the same choices (targets, X, mode)."""
    item = state.stack_object(oid)
    copy = item.model_copy(
        update={"id": fresh_id(f"{oid}_copy", state.used_ids()), "controller": controller, "copy_of_card": True}
    )
    return updated(state, stack=[copy, *state.stack])


def _owner(state: GameState, item: StackObject) -> str:
    return item.controller or state.active


def to_zone(state: GameState, item: StackObject, zone: str, pool: CardPool | None = None) -> GameState:
    """A card leaves the stack for a zone of its owner's; on its way to the graveyard,
    replacement effects may send it elsewhere (CR 614.1a, 616.1)."""
    owner = _owner(state, item)
    if zone == "graveyard" and pool is not None:
        zone = graveyard_destinations(pool, state, [(item.id or "", item.card or "", owner, None)])[item.id or ""]
    moved = place(
        state.model_copy(update={"stack": [s for s in state.stack if s.id != item.id]}),
        owner,
        CardRef(id=item.id, card=item.card or ""),
        zone,
    )
    return updated(moved)


def leave_stack(state: GameState, oid: str, where: str, pool: CardPool | None = None) -> GameState:
    """An object leaves the stack (countered, CR 701.5a) for where the rules say: a zone of its
    owner's, or nowhere (it ceases to exist)."""
    if where == "none":
        return updated(state, stack=[s for s in state.stack if s.id != oid], gone=[*state.gone, oid])
    return to_zone(state, state.stack_object(oid), where, pool)


def copy_candidates(model: frozenset[clingo.Symbol]) -> dict[str, str]:
    """CR 706.5, 706.2-706.3: the creatures a card entering as a copy may copy, each with the
    card of the copiable values it would take (``none``: a face-down creature's)."""
    return {s.arguments[0].string: symbol_text(s.arguments[1]) for s in atoms(model, "copy_candidate", 2)}
