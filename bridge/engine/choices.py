"""The choices a player states ahead of the event that asks for them, open now, as questions.

Some choices are made as an event happens at a moment no player has priority: a "you may"
followed or not as a spell or ability resolves (CR 603.5, 608.2d), champion's exile (702.69a),
Time Vault's skipped turn (614.10b), the source of damage a prevention effect names (615.8), a
draw replaced by dredge (702.49a, 616.1), the order of two or more replacement or prevention
effects that could apply to one event (616.1), the card Meddling Mage names, the creature Clone
copies (or none), the color, creature type or basic land type chosen as a permanent enters,
from the stack or put onto the battlefield from another zone (614.12, 706.5), the cards
discarded by choice in the cleanup step (514.1) or by a resolving instruction (701.7b), the
card picked as a spell or ability resolves: the permanent champion exiles (702.69a), the card
put from a hand onto the battlefield (608.2d), the card chosen from a revealed hand (701.7b),
the card found in a library (701.14a) or none (701.14b). The player states them with
``choose_order`` before the event (declines, sources, replacement order, as_enters, discards,
picks), and the statement stands. The rules list the choices open to a player now that he or
she hasn't stated (``asp_rules/stack/choices.lp``); :func:`open_choices` writes each as the
``choose_order`` that adds it to what the player has stated.

The question is asked only when a card that can give such a choice is where it would give it:
the top object of the stack (its card, or its source's, also in a graveyard or exile after it
was sacrificed to activate the ability), a permanent (Time Vault) or a card in the player's
graveyard (dredge); for the cleanup step's discard, in the end step with an empty stack, for
the active player holding more than seven cards or with a card or effect in play that can
change a maximum hand size; for the order of replacement effects, while two or more permanents,
cards in hands or graveyards with such an effect, and prevention shields, are about (an ability
an effect grants is not looked for).
"""

from __future__ import annotations

import itertools
import re
import weakref

from bridge.engine.board import CHOICES, Board
from bridge.engine.facts import asp_string
from bridge.engine.moves import as_enters_kinds
from bridge.engine.solver import answer, atoms, symbol_text
from bridge.model.actions import ChooseOrder
from bridge.model.cards import CardPool
from bridge.model.errors import InputError
from bridge.model.state import GameState

__all__ = ["open_choices"]

# the card data that can give such a choice (cards/README.md), for the cheap check only: on
# the top object of the stack (its card, or its source's), on a permanent, on a card in a
# graveyard
_ON_STACK = re.compile(
    r'"may":true|"(discard|put_from_hand|discard_chosen|search|reveal_top|return_to_battlefield|prevent_next_from'
    r'|sacrifice_one|exile_same_name)":[^n]|"(champion|provoke|named_card_cant_be_cast|enters_as_copy\w*|chosen)"'
)
_ON_PERMANENT = re.compile(r"\b(skip_turn_to_untap|draws_return_from_graveyard|damage_to_you_exiles_graveyard)\b")
_IN_GRAVEYARD = re.compile(r"\bdredge\b")
# a replacement or prevention effect that could apply with another to one event (616.1)
_REPLACES = re.compile(
    r"\b(double_damage|your_creatures_double_damage|prevent_one_to_your|prevent_one_to_you_from_opponents"
    r"|damage_to_you_exiles_graveyard|exile_opponents_graveyard_cards|exile_your_graveyard_cards"
    r"|exile_permanents_instead_of_graveyard|other_creatures_exiled_instead_of_graveyard"
    r"|shuffle_into_library_instead_of_graveyard|replaces_losing|draws_return_from_graveyard"
    r"|life_gain_draws_instead|dredge|damage_to_you_redirected_to_enchanted)\b"
)
# a card that can change a maximum hand size (402.2), on a permanent or in an effect
_HAND_SIZE = re.compile(r'"(set|modify)_max_hand_size":[^n]')
# CR 402.2: the maximum hand size when no effect changes it
_USUAL_HAND = 7
# the most sets of cards to discard offered (beyond: the first in the hand's order)
MAX_DISCARD_SETS = 252

# whether a card can give such a choice, for each pool and place
_MENTIONS: weakref.WeakKeyDictionary[CardPool, dict[tuple[str, str], bool]] = weakref.WeakKeyDictionary()


# what each card asks for as it enters, for each pool: card name -> (card id, kinds)
_KINDS: weakref.WeakKeyDictionary[CardPool, dict[str, tuple[str, frozenset[str]]]] = weakref.WeakKeyDictionary()


def _gives(pool: CardPool, card: str | None, where: re.Pattern[str]) -> bool:
    if card is None:
        return False
    known = _MENTIONS.setdefault(pool, {})
    if (card, where.pattern) not in known:
        try:
            known[(card, where.pattern)] = bool(where.search(pool.get(card).model_dump_json()))
        except InputError:
            known[(card, where.pattern)] = False
    return known[(card, where.pattern)]


def _may_have_one(pool: CardPool, state: GameState, player: str) -> bool:
    """Whether the top of the stack (its card, or its source's), a permanent or a card in the
    player's graveyard is a card that can give such a choice there: if not, none is open."""
    cards = {p.id: p.card for p in state.permanents()}
    if state.stack:
        top = state.stack[0]
        source = cards.get(top.source or "")
        if source is None and top.source:
            # a source that left the battlefield (sacrificed as a cost): its card where it went
            gone = (c for p in state.players for c in (*p.graveyard, *p.exile) if c.id == top.source)
            source = next((c.card for c in gone), None)
        if _gives(pool, top.card, _ON_STACK) or _gives(pool, source, _ON_STACK):
            return True
        copied = next((p.chosen.get("copy_card") for p in state.permanents() if p.id == top.source), None)
        if _gives(pool, copied, _ON_STACK):
            return True
    for perm in state.permanents():
        if _gives(pool, perm.card, _ON_PERMANENT) or _gives(pool, perm.chosen.get("copy_card"), _ON_PERMANENT):
            return True
    if state.step == "end" and not state.stack and player == state.active and _may_discard_to(pool, state, player):
        return True
    if any(_gives(pool, c.card, _IN_GRAVEYARD) for c in state.player(player).graveyard):
        return True
    return _replacements(pool, state) > 1


def _replacements(pool: CardPool, state: GameState) -> int:
    """How many replacement and prevention effects are about (616.1): permanents, cards in
    hands and graveyards with such an ability, prevention shields (615.7) and the effects that
    prevent all damage to a player."""
    perms = state.permanents()
    cards = [p.card for p in perms] + [c.card for p in state.players for z in (p.hand, p.graveyard) for c in z]
    shields = sum(bool(p.prevention_shield) for p in perms) + sum(bool(p.prevention_shield) for p in state.players)
    # and the effects that prevent all damage to a player (615.1a)
    whole = sum(bool(p.prevent_next_from or p.damage_prevented) for p in state.players) + state.combat_damage_prevented
    return sum(_gives(pool, c, _REPLACES) for c in cards) + shields + whole


def _may_discard_to(pool: CardPool, state: GameState, player: str) -> bool:
    """Whether the player's hand can be larger than his or her maximum hand size: more cards
    than seven, or a permanent or effect that can change the maximum."""
    if len(state.player(player).hand) > _USUAL_HAND:
        return True
    if not state.player(player).hand:
        return False
    cards = [p.card for p in state.permanents()] + [p.chosen.get("copy_card") for p in state.permanents()]
    return any(_gives(pool, c, _HAND_SIZE) for c in cards) or any(
        _HAND_SIZE.search(e.model_dump_json()) for e in state.effects
    )


def _asks(pool: CardPool, state: GameState) -> list[tuple[str, str]]:
    """What each card of the game's asks for as it enters the battlefield (the kinds of
    :func:`~bridge.engine.moves.as_enters_kinds`), by card id: the cards in every zone and
    those permanents copy."""
    perms = state.permanents()
    names = {c.card for p in state.players for z in (p.hand, p.graveyard, p.exile, p.library) for c in z}
    names |= {s.card for s in state.stack if s.card} | {p.card for p in perms}
    names |= {c for p in perms if (c := p.chosen.get("copy_card"))}
    known = _KINDS.setdefault(pool, {})
    out: set[tuple[str, str]] = set()
    for name in names:
        if name not in known:
            try:
                card = pool.get(name)
                known[name] = (card.id, frozenset(as_enters_kinds(card)))
            except InputError:
                known[name] = ("", frozenset())
        card_id, kinds = known[name]
        out.update((card_id, kind) for kind in kinds)
    return sorted(out)


def _discard_sets(player: str, hand: list[str], n: int, cards: set[str]) -> list[ChooseOrder]:
    """Each set of ``n`` of the ``cards`` the player may choose to discard, in the hand's
    order (CR 701.7b: which cards; their order in the graveyard is read by no rule), as the
    statement that names them; at most :data:`MAX_DISCARD_SETS`."""
    choosable = [x for x in hand if x in cards]
    sets = itertools.islice(itertools.combinations(choosable, min(n, len(choosable))), MAX_DISCARD_SETS)
    return [ChooseOrder(by=player, discards=list(s)) for s in sets]


def open_choices(board: Board, player: str) -> list[ChooseOrder]:
    """The choices open to ``player`` now that he or she hasn't stated, as the rules list them,
    each as the ``choose_order`` that states it beside what he or she has stated: a source
    added to the declines, a source of damage chosen for an object's source, a card with
    dredge or the source of a replacement effect added last to the replacement order, a card
    name, creature to copy, color, creature type or basic land type chosen for an object
    entering the battlefield (what its card, or the card of the creature it is stated to copy,
    asks for: :func:`~bridge.engine.moves.as_enters_kinds`), each set of the cards to discard
    (in place of the cards stated before), a card to pick for a source (one of each kind the
    rules tell apart; "" for none, searching)."""
    state = board.state
    if not _may_have_one(board.pool, state, player):
        return []
    me = state.player(player)
    # what the cards that could enter the battlefield ask for as they enter (614.12), and the
    # creatures the player stated his or her entering objects copy
    facts = board.position.facts + "".join(
        f"\ncard_asks({asp_string(card)}, {kind})." for card, kind in _asks(board.pool, state)
    )
    facts += "".join(
        f"\nstated_copy({asp_string(oid)}, {asp_string(chosen['copy'])})."
        for oid, chosen in sorted(me.as_enters.items())
        if "copy" in chosen
    )
    facts += "".join(f"\ndiscards_stated({asp_string(player)}, {asp_string(x)})." for x in me.discard_order)
    facts += "".join(f"\nexiles_stated({asp_string(player)}, {asp_string(x)})." for x in me.exile_order)
    model = answer(board.modules(*CHOICES, pt=False), facts).model
    stated = me.as_enters
    out: list[ChooseOrder] = []
    discards: dict[int, set[str]] = {}
    for s in sorted(atoms(model, "open_choice", 2), key=str):
        who, choice = s.arguments
        if symbol_text(who) != player:
            continue
        if choice.match("discard", 2):
            discards.setdefault(choice.arguments[0].number, set()).add(symbol_text(choice.arguments[1]))
        elif choice.match("decline", 1):
            out.append(ChooseOrder(by=player, declines=[*me.declines, symbol_text(choice.arguments[0])]))
        elif choice.match("source", 2):
            key, source = (symbol_text(a) for a in choice.arguments)
            out.append(ChooseOrder(by=player, sources={**me.source_choices, key: source}))
        elif choice.match("pick", 2):
            key, card = (symbol_text(a) for a in choice.arguments)
            out.append(ChooseOrder(by=player, picks={**me.picks, key: card}))
        elif choice.match("unfound", 2):
            key, card = (symbol_text(a) for a in choice.arguments)
            out.append(ChooseOrder(by=player, unfound={**me.unfound, key: [*me.unfound.get(key, []), card]}))
        elif choice.match("exile", 1):
            out.append(ChooseOrder(by=player, exiles=[*me.exile_order, symbol_text(choice.arguments[0])]))
        elif choice.match("sacrifice", 1):
            out.append(ChooseOrder(by=player, sacrifices=[*me.sacrifice_order, symbol_text(choice.arguments[0])]))
        elif choice.match("replacement", 1):
            source = symbol_text(choice.arguments[0])
            out.append(ChooseOrder(by=player, replacements=[*me.replacement_order, source]))
        else:
            # a card name, or a color, creature type or basic land type, as an object enters
            oid, kind, value = (
                (symbol_text(choice.arguments[0]), "card_name", symbol_text(choice.arguments[1]))
                if choice.match("card_name", 2)
                else tuple(symbol_text(a) for a in choice.arguments)
            )
            if kind in stated.get(oid, {}):
                continue
            entry = {**stated.get(oid, {}), kind: value}
            out.append(ChooseOrder(by=player, as_enters={**stated, oid: entry}))
    hand = [c.id or "" for c in me.hand]
    for n, cards in sorted(discards.items()):
        out += _discard_sets(player, hand, n, cards)
    return out
