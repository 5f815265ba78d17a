"""A game state as ASP facts, with the checks that need card data.

The facts are the instance; the rule modules are the encoding (see ``asp_rules/README.md``
for every predicate).  Object ids and player names become ASP strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from bridge.model.cards import TEXTS_BEGIN, TEXTS_END, Card, CardPool, EffectSpec, slug
from bridge.model.errors import InputError, UnknownCardError
from bridge.model.state import ZONES, GameState, Permanent, Player, StackObject

__all__ = [
    "Position",
    "asp_string",
    "delayed_facts",
    "position_facts",
    "priority_facts",
    "stack_object_facts",
    "stamps",
]

# The facts of effects that apply in layers 1-6 (CR 613.1a-f).
_LAYERED = re.compile(
    r"^does\((sk\([^)]*\)|\w+), (copies|gains_control|text|change|grant|remove|remove_all)\b|"
    r"^card_value\([^,]+, ability, (enters_as_copy\w*|changeling)\)",
    re.M,
)
# words one of which such a fact holds (a quick look before the pattern)
_LAYERED_WORDS = (
    ", copies",
    ", gains_control",
    ", text(",
    ", change(",
    ", grant(",
    ", remove",
    "enters_as_copy",
    "changeling",
)


@functools.lru_cache(maxsize=8192)
def asp_string(text: str) -> str:
    """An ASP string literal (ids and names recur: each is quoted once)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class Position:
    """A validated state with the cards of its objects and its facts."""

    state: GameState
    cards: dict[str, Card]  # object id -> card
    facts: str
    timestamps: dict[str, int]  # object id -> timestamp
    live: str = ""  # the facts without the cards only in hands, libraries and graveyards

    @functools.cached_property
    def layered(self) -> bool:
        """Does some effect apply in layers 1-6 (so the rules need their states)?"""
        if not any(word in self.facts for word in _LAYERED_WORDS):
            return False
        return _LAYERED.search(self.facts) is not None

    def card(self, object_id: str) -> Card:
        """The card of an object."""
        return self.cards[object_id]

    def describe(self, object_id: str) -> str:
        """``Craw Wurm (wurm)`` for an object, the name for a player."""
        card = self.cards.get(object_id)
        if card is None:
            return object_id
        if slug(card.name) == object_id:
            return card.name
        return f"{card.name} ({object_id})"


def _where(state: GameState, object_id: str) -> str:
    for i, player in enumerate(state.players):
        for zone in ZONES:
            for j, obj in enumerate(getattr(player, zone)):
                if obj.id == object_id:
                    return f"state.players[{i}].{zone}[{j}]"
    return "state"


def stamps(state: GameState) -> tuple[dict[str, int], list[int]]:
    """CR 613.6: the timestamps of the permanents (by id) and of the effects (in order): as
    given, else in listing order, permanents first, skipping the numbers given."""
    explicit = {p.timestamp for p in state.permanents() if p.timestamp is not None}
    explicit |= {e.timestamp for e in state.effects if e.timestamp is not None}
    counter = iter(n for n in range(1, 10**9) if n not in explicit)
    permanents = {p.id or "": p.timestamp if p.timestamp is not None else next(counter) for p in state.permanents()}
    effects = [e.timestamp if e.timestamp is not None else next(counter) for e in state.effects]
    return permanents, effects


# The facts of each player and the player's zones, by player object (a state copied with other
# fields changed keeps its players: their facts are made once).
_PLAYER_FACTS: dict[int, tuple[Player, CardPool, list[str], dict[str, Card], dict[str, Card]]] = {}


def _word_name(word: str) -> str:
    """A creature type word as it is written in a name: ``elf`` -> ``Elf``."""
    return " ".join(part.capitalize() for part in word.split("_"))


def _shield_facts(who: str, holder: Player | Permanent) -> list[str]:
    """The prevention shields of a player or permanent (``who``, as the facts name it)."""
    out = [f"prevention_shield({who}, {holder.prevention_shield})."] if holder.prevention_shield else []
    out += [f"prevent_next_from({who}, {asp_string(s)})." for s in holder.prevent_next_from]
    out += _shield_qualities(who, holder.prevent_next_from, holder.prevent_next_from_quality)
    out += [f"prevent_next_gains({who}, {asp_string(s)})." for s in holder.prevent_next_from_gains]
    return out


def _player_part(
    state: GameState, player: Player, pool: CardPool
) -> tuple[list[str], dict[str, Card], dict[str, Card]]:
    """A player's facts (life, counts, the cards in the zones but the battlefield), the
    cards of the objects in all the player's zones, and the cards in the player's hand,
    graveyard and library by card id (first met first)."""
    known = _PLAYER_FACTS.get(id(player))
    if known is not None and known[0] is player and known[1] is pool:
        return known[2], known[3], known[4]
    cards: dict[str, Card] = {}
    for zone in ZONES:
        for obj in getattr(player, zone):
            assert obj.id is not None  # validation gives every object an id
            try:
                cards[obj.id] = pool.get(obj.card)
            except UnknownCardError as exc:
                raise exc.at(location=_where(state, obj.id)) from None
    lines: list[str] = []
    p = asp_string(player.name)
    lines += [f"player({p}).", f"life({p}, {player.life}).", f"poison({p}, {player.poison})."]
    if player.drew_from_empty_library:
        lines.append(f"drew_from_empty_library({p}).")
    if player.lost:
        lines.append(f"lost({p}).")
    lines += _shield_facts(p, player)
    if player.cant_cast_spells:
        lines.append(f"cant_cast_spells({p}).")
    if player.skip_turns:
        lines.append(f"skip_turns({p}, {player.skip_turns}).")
    lines += [
        f"source_choice({p}, {asp_string(a)}, {asp_string(b)})." for a, b in sorted(player.source_choices.items())
    ]
    lines += [f"replacement_order({p}, {asp_string(src)}, {i})." for i, src in enumerate(player.replacement_order, 1)]
    lines += [f"declines({p}, {asp_string(src)})." for src in player.declines]
    # CR 608.2d, 701.7b, 701.14a, 702.69a: the card the player picks as a source's object resolves
    lines += [f"picks({p}, {asp_string(a)}, {asp_string(b)})." for a, b in sorted(player.picks.items())]
    # CR 701.14b: the cards a source's search of hidden zones leaves unfound
    lines += [
        f"unfound({p}, {asp_string(a)}, {asp_string(x)})." for a, xs in sorted(player.unfound.items()) for x in xs
    ]
    # CR 508.5: the player or planeswalker a creature put onto the battlefield attacking attacks
    lines += [
        f"stated_attacks({p}, {asp_string(o)}, {asp_string(c['attacking'])})."
        for o, c in sorted(player.as_enters.items())
        if "attacking" in c
    ]
    # CR 701.13a: the permanents the player chose to sacrifice first, in order
    lines += [f"sacrifices_stated({p}, {asp_string(x)}, {i})." for i, x in enumerate(player.sacrifice_order, 1)]
    # CR 613.6g: the player's timestamp order of objects that received the same timestamp
    lines += [f"timestamp_order({p}, {asp_string(o)}, {i})." for i, o in enumerate(player.timestamp_order, 1)]
    if player.takes_entering_creatures:
        lines.append(f"takes_entering_creatures({p}).")
    if player.damage_prevented:
        lines.append(f"damage_prevented_for({p}).")
    lines += [f"lands_played({p}, {player.lands_played}).", f"hand_size({p}, {len(player.hand)})."]
    for zone in ("hand", "graveyard", "exile"):
        for obj in getattr(player, zone):
            lines.append(f"zone_card({asp_string(obj.id)}, {p}, {zone}, {asp_string(cards[obj.id].id)}).")
            if zone == "exile" and obj.exiled_with is not None:
                lines.append(f"exiled_with({asp_string(obj.id)}, {asp_string(obj.exiled_with)}).")
    # CR 401: the library, top first (for searching)
    for pos, obj in enumerate(player.library, start=1):
        assert obj.id is not None
        lines.append(f"library_card({asp_string(obj.id)}, {p}, {pos}, {asp_string(cards[obj.id].id)}).")
    # CR 704.5d-e: tokens and copies of cards outside the battlefield
    for zone in ZONES[:-1]:
        for obj in getattr(player, zone):
            if obj.token:
                lines.append(f"token_in_zone({asp_string(obj.id)}, {zone}).")
            if obj.copy_of_card:
                lines.append(f"card_copy_in_zone({asp_string(obj.id)}, {zone}).")
    pool_counts: dict[str, int] = {}
    for symbol in re.findall(r"\{([WUBRGC])\}", player.mana_pool):
        pool_counts[symbol.lower()] = pool_counts.get(symbol.lower(), 0) + 1
    lines += [f"mana_pool({p}, {k}, {n})." for k, n in sorted(pool_counts.items())]
    hidden = {
        cards[o.id or ""].id: cards[o.id or ""]
        for zone in ("hand", "graveyard", "library")
        for o in getattr(player, zone)
    }
    if len(_PLAYER_FACTS) >= 256:
        del _PLAYER_FACTS[next(iter(_PLAYER_FACTS))]
    _PLAYER_FACTS[id(player)] = (player, pool, lines, cards, hidden)
    return lines, cards, hidden


# The facts of each permanent, by permanent object (a state copied with other fields changed
# keeps its other permanents: their facts are made once).
_PERMANENT_FACTS: dict[int, tuple[Permanent, str, int, Card, CardPool, list[str], Card | None]] = {}


def _permanent_part(
    perm: Permanent, owner: str, stamp: int, card: Card, pool: CardPool
) -> tuple[list[str], Card | None]:
    """A permanent's facts (its card's text aside), and the card a copy copied as it entered."""
    known = _PERMANENT_FACTS.get(id(perm))
    if (
        known is not None
        and known[0] is perm
        and known[1] == owner
        and known[2] == stamp
        and known[3] is card
        and known[4] is pool
    ):
        return known[5], known[6]
    out: list[str] = []
    o = asp_string(perm.id)
    controller = perm.controller or owner
    copied = None
    if perm.phased_out:
        # CR 702.23b: treated as though it doesn't exist, but for phasing in (502.1)
        how = "indirect" if perm.phased_out_indirectly else "direct"
        out.append(f"phased_out({o}, {asp_string(controller)}, {how}).")
        out += [f"{flag}({o})." for flag in ("tapped", "token") if getattr(perm, flag)]
        if perm.attached_to is not None:
            out.append(f"phased_attached({o}, {asp_string(perm.attached_to)}).")
        return _keep_permanent(perm, owner, stamp, card, pool, out, copied)
    out += [
        f"permanent({o}).",
        f"card_of({o}, {asp_string(card.id)}).",
        f"controller_of({o}, {asp_string(controller)}).",
        f"owner({o}, {asp_string(owner)}).",
        f"timestamp({o}, {stamp}).",
    ]
    if "copy_card" in perm.chosen:  # CR 706.2: the card values a Clone copied as it entered
        copied = pool.get(perm.chosen["copy_card"])
    if perm.regeneration_shields:
        out.append(f"regeneration_shields({o}, {perm.regeneration_shields}).")
    out += _shield_facts(o, perm)
    out += [f"must_block({o}, {asp_string(a)})." for a in perm.must_block]
    if perm.frozen:
        out.append(f"frozen({o}).")
    for word, new in sorted(perm.token_words.items()):  # CR 612.2a: the name as the words spell it
        renamed = re.sub(rf"\b{re.escape(_word_name(word))}\b", _word_name(new), card.name)
        out.append(f"token_word({o}, {slug(word)}, {slug(new)}, {asp_string(card.name)}, {asp_string(renamed)}).")
    if perm.put_with is not None:  # CR 607.2c
        out.append(f"put_with({o}, {asp_string(perm.put_with)}).")
    if perm.seen_controller is not None:
        out.append(f"seen_controller({o}, {asp_string(perm.seen_controller)}).")
    for flag in (
        "tapped",
        "sick",
        "token",
        "face_down",
        "flipped",
        "deathtouch_damage",
        "struck_first",
        "blocked",
        "removed_from_combat",
        "attacked_this_turn",
    ):
        if getattr(perm, flag):
            out.append(f"{flag}({o}).")
    if perm.damage:
        out.append(f"damage({o}, {perm.damage}).")
    # CR 306.5b: a planeswalker's loyalty is its number of loyalty counters, 0 included
    out += [f"counters({o}, {asp_string(k)}, {n})." for k, n in sorted(perm.counters.items()) if n or k == "loyalty"]
    if perm.attached_to is not None:
        out.append(f"attached({o}, {asp_string(perm.attached_to)}).")
    if perm.attacking is not None:
        out.append(f"attacking({o}, {asp_string(perm.attacking)}).")
    if perm.band is not None:
        out.append(f"band_label({o}, {asp_string(perm.band)}).")
    out += [f"blocking({o}, {asp_string(a)})." for a in perm.blocking]
    out += [f"damage_order({o}, {asp_string(x)}, {i})." for i, x in enumerate(perm.damage_order, start=1)]
    for key, value in sorted(perm.chosen.items()):
        # CR 614.12: a color or creature type chosen as the permanent entered is a
        # value the rules use as such; other choices (an object to copy) are ids.
        shown = slug(value) if key in ("color", "creature_type", "land_type") else asp_string(value)
        out.append(f"chosen({o}, {asp_string(key)}, {shown}).")
    return _keep_permanent(perm, owner, stamp, card, pool, out, copied)


def _keep_permanent(
    perm: Permanent, owner: str, stamp: int, card: Card, pool: CardPool, out: list[str], copied: Card | None
) -> tuple[list[str], Card | None]:
    if len(_PERMANENT_FACTS) >= 4096:
        del _PERMANENT_FACTS[next(iter(_PERMANENT_FACTS))]
    _PERMANENT_FACTS[id(perm)] = (perm, owner, stamp, card, pool, out, copied)
    return out, copied


def position_facts(state: GameState, pool: CardPool | None = None) -> Position:
    """Check a state against the card pool and turn it into facts."""
    pool = pool or CardPool.default()
    cards: dict[str, Card] = {}
    players = [_player_part(state, player, pool) for player in state.players]
    for _, of_player, _ in players:
        cards.update(of_player)
    for k, item in enumerate(state.stack):
        if item.card is not None:
            assert item.id is not None  # validation gives every object an id
            try:
                cards[item.id] = pool.get(item.card)
            except UnknownCardError as exc:
                raise exc.at(location=f"state.stack[{k}]") from None
    out: list[str] = [f"turn({state.turn}).", f"step({state.step}).", f"active_player({asp_string(state.active)})."]
    if state.combat_damage_dealt:
        out.append("combat_damage_dealt.")
    if state.combat_damage_prevented:
        out.append("combat_damage_prevented.")
    out += [f"block_cost_effect({k}, {n})." for k, n in enumerate(state.block_costs, start=1)]
    out += [f"added_step({k}, {s})." for k, s in enumerate(state.added_steps, start=1)]
    if state.in_added_step:
        out.append("in_added_step.")
    # CR 115.3: the player who has or would receive priority (turn/priority.lp says whether
    # anyone has it now)
    out.append(f"priority({asp_string(state.priority_player())}).")
    # CR 115.4: the players who passed in succession since the last action
    out += [f"passed({asp_string(p)})." for p in state.passed]
    if state.cleanup_again:
        out.append("acted_in_cleanup.")
    out += [f"declared_in_combat({d})." for d in state.declared]
    if state.attacked_this_combat:
        out.append("attacked_this_combat.")
    if state.extra_combats:
        out.append(f"extra_combats({state.extra_combats}).")
    # CR 500.7: the extra turns to come, numbered in the order they were created (the state
    # lists the most recent first)
    out += [f"extra_turn({len(state.extra_turns) - i}, {asp_string(p)})." for i, p in enumerate(state.extra_turns)]
    if state.after_extra_turns is not None:
        out.append(f"turn_order_resumes({asp_string(state.after_extra_turns)}).")
    for entry in state.activated_this_turn:
        source, _, number = entry.rpartition("/")
        out.append(f"activated_this_turn({asp_string(source)}, {int(number)}).")
    for lines, _, _ in players:
        out += lines

    timestamps, effect_stamps = stamps(state)
    permanents = {perm.id: perm for perm in state.permanents()}
    names = {p.name for p in state.players}
    used_cards: dict[str, Card] = {}
    for player in state.players:
        for perm in player.battlefield:
            assert perm.id is not None
            card = cards[perm.id]
            used_cards[card.id] = card
            lines, copied = _permanent_part(perm, player.name, timestamps[perm.id], card, pool)
            if copied is not None:
                used_cards[copied.id] = copied
            if perm.attacking is not None and perm.attacking in permanents and not perm.phased_out:
                target = perm.attacking
                if "planeswalker" not in cards[target].types:
                    raise InputError(
                        f"attacking {target!r}, which is not a planeswalker",
                        location=f"{_where(state, perm.id)}.attacking",
                    )
            out += lines

    for k, effect in enumerate(state.effects, start=1):
        e = f"e{k}"
        location = f"state.effects[{k - 1}]"
        spec: EffectSpec = effect
        source_card = None
        if effect.source is not None and effect.source not in permanents:
            if effect.source in state.object_ids():
                source_card = cards[effect.source]
            else:
                try:
                    source_card = pool.get(effect.source)
                except UnknownCardError:
                    raise InputError(
                        f"the effect's source {effect.source!r} is neither a card nor an object "
                        "(an effect with no card behind it gives `text:` instead)",
                        location=f"{location}.source",
                    ) from None
        elif effect.source is not None:
            source_card = cards[effect.source]
        if effect.is_empty():
            if source_card is None or source_card.effect is None:
                name = source_card.name if source_card else effect.source
                raise InputError(
                    f"{name} has no effect to apply; say what the effect does "
                    "(grant, impose, remove, modify_pt, set_pt, ...)",
                    location=location,
                )
            spec = source_card.effect
            if spec.modify_pt is not None and "x" in spec.modify_pt:
                raise InputError(
                    f"{source_card.name}'s effect has an X, fixed as it resolved (CR 611.2d): "
                    "give modify_pt as numbers",
                    location=location,
                )
        stamp = effect_stamps[k - 1]
        duration = effect.duration or spec.duration or "end_of_turn"
        out += [f"resolved_effect({e}).", f"effect_timestamp({e}, {stamp}).", f"effect_duration({e}, {duration})."]
        if effect.source is not None:
            out.append(f"effect_source({e}, {asp_string(effect.source)}).")
        out += [f"effect_target({e}, {asp_string(t)})." for t in effect.targets]
        if effect.controller is not None:
            controller = effect.controller
        elif effect.source is not None and effect.source in permanents:
            controller = permanents[effect.source].controller or state.controller_of(permanents[effect.source])
        else:
            controller = state.active
        if controller not in names:
            raise InputError(f"controller {controller!r} is not a player", location=f"{location}.controller")
        out.append(f"effect_controller({e}, {asp_string(controller)}).")
        out += spec.effect_facts(e)
        qualities: set[str] = set()
        for ability in spec.abilities():
            if ability.quality is not None:
                qualities.update(ability.quality.all_terms())
        out += [f"mentioned_quality({q})." for q in sorted(qualities)]

    # CR 603.7: the delayed triggered abilities waiting
    out += delayed_facts(state.delayed_triggers)
    # CR 405: the stack, top first, and how many objects are on it
    if state.stack:
        out.append(f"stack_size({len(state.stack)}).")
    spells: dict[str, Card] = {}
    for k, item in enumerate(state.stack, start=1):
        out += stack_object_facts(state, item, k, cards, used_cards, pool, spells)
    out += [f for card in used_cards.values() for f in card.facts()]
    live = out + [f for card in spells.values() if card.id not in used_cards for f in card.facts()]
    # the texts of the cards only on the stack as spells, in hands, graveyards and libraries,
    # each between markers: a question whose read facts name no such card is given the facts
    # without its text (bridge/engine/solver.py)
    hidden = {card.id: card for card in spells.values()}
    for _, _, of_player in players:
        hidden.update(of_player)
    out += [_text_block(card) for key, card in hidden.items() if key not in used_cards]
    return Position(state=state, cards=cards, facts="\n".join(out), timestamps=timestamps, live="\n".join(live))


# A card's facts between markers, by card object (cards are immutable).
_TEXT_BLOCKS: dict[int, tuple[Card, str]] = {}


def _text_block(card: Card) -> str:
    """A card's facts as lines between markers, one text (TEXTS_BEGIN)."""
    known = _TEXT_BLOCKS.get(id(card))
    if known is not None and known[0] is card:
        return known[1]
    block = "\n".join([TEXTS_BEGIN + card.id, *card.facts(), TEXTS_END])
    if len(_TEXT_BLOCKS) >= 4096:
        del _TEXT_BLOCKS[next(iter(_TEXT_BLOCKS))]
    _TEXT_BLOCKS[id(card)] = (card, block)
    return block


def delayed_facts(items: Iterable[StackObject], new: Collection[str] = ()) -> list[str]:
    """The facts of delayed triggered abilities waiting (CR 603.7): when each triggers, the
    permanent it waits on, and those created during the action just taken (``new``)."""
    out = []
    for item in items:
        d = asp_string(item.id or "")
        out.append(f"delayed_trigger({d}, {item.at}).")
        if item.watch is not None:
            out.append(f"delayed_watch({d}, {asp_string(item.watch)}).")
        if item.id in new:
            out.append(f"delayed_new({d}).")
    return out


def priority_facts(state: GameState) -> str:
    """The facts ``turn/priority.lp`` reads, made from the state alone: the same lines
    :func:`position_facts` writes for them (who has priority is asked often, of positions
    whose other facts are many)."""
    out = [f"step({state.step}).", f"priority({asp_string(state.priority_player())})."]
    # CR 115.4: the players, those who passed in succession since the last action, and how
    # many objects are on the stack: what a pass leads to (turn/passing.lp)
    out += [f"player({asp_string(p.name)})." for p in state.players]
    out += [f"passed({asp_string(p)})." for p in state.passed]
    if state.stack:
        out.append(f"stack_size({len(state.stack)}).")
    if state.cleanup_again:
        out.append("acted_in_cleanup.")
    if state.combat_damage_dealt:
        out.append("combat_damage_dealt.")
    out += [f"declared_in_combat({d})." for d in state.declared]
    if state.attacked_this_combat:
        out.append("attacked_this_combat.")
    for perm in state.permanents():
        if perm.phased_out:
            continue
        o = asp_string(perm.id or "")
        if perm.attacking is not None:
            out.append(f"attacking({o}, {asp_string(perm.attacking)}).")
        out += [f"blocking({o}, {asp_string(a)})." for a in perm.blocking]
        if perm.blocked:
            out.append(f"blocked({o}).")
    return "\n".join(out)


def stack_object_facts(
    state: GameState,
    item: StackObject,
    position: int,
    cards: dict[str, Card],
    used_cards: dict[str, Card],
    pool: CardPool | None = None,
    spells: dict[str, Card] | None = None,
) -> list[str]:
    """The facts of a spell or ability on the stack (or being put there, position 0).  The
    cards whose texts the facts need go to ``used_cards``; a spell's own card to ``spells``
    when given."""
    o = asp_string(item.id or "")
    controller = item.controller or state.active
    out = [f"stack_object({o}).", f"stack_controller({o}, {asp_string(controller)})."]
    if position:
        out.append(f"stack_position({o}, {position}).")
    if item.card is not None:
        card = cards[item.id or ""]
        (used_cards if spells is None else spells)[card.id] = card
        out.append(f"stack_card({o}, {asp_string(card.id)}).")
        for k, ref in enumerate(item.spliced, start=1):  # CR 702.44a: cards spliced onto it
            spliced = (pool or CardPool.default()).get(ref.card)
            used_cards[spliced.id] = spliced
            out.append(f"stack_splice({o}, {k}, {asp_string(ref.id or '')}, {asp_string(spliced.id)}).")
    else:
        source_card = cards.get(item.source or "")
        if source_card is None:
            raise InputError(f"the ability's source {item.source!r} is not a permanent", location="state.stack")
        used_cards[source_card.id] = source_card
        if item.keyword is not None:
            out.append(f"stack_ability({o}, {asp_string(item.source or '')}, kw({item.keyword})).")
        elif item.delayed is not None:
            out.append(f"stack_ability({o}, {asp_string(item.source or '')}, {item.delayed}).")
        else:
            kind, number = ("tr", item.trigger) if item.trigger is not None else ("ab", item.ability)
            if item.copied_from is not None:  # CR 706.2: an ability the source has by a copy effect
                source_card = (pool or CardPool.default()).get(item.copied_from)
                used_cards[source_card.id] = source_card
            out.append(
                f"stack_ability({o}, {asp_string(item.source or '')}, {kind}({asp_string(source_card.id)}, {number}))."
            )
        if item.about is not None:
            out.append(f"stack_about({o}, {asp_string(item.about)}).")
        if item.about_controller is not None:
            out.append(f"stack_about_controller({o}, {asp_string(item.about_controller)}).")
    out += [f"stack_target({o}, {i}, {asp_string(t)})." for i, t in enumerate(item.targets, start=1)]
    if item.mode is not None:
        out.append(f"stack_mode({o}, {item.mode}).")
    for flag in ("kicked", "buyback", "flashback", "entwined", "face_down"):
        if getattr(item, flag):
            out.append(f"stack_{flag}({o}).")
    if item.copy_of_card:  # CR 706.9: a copy of a spell
        out.append(f"stack_copy({o}).")
    if item.x is not None:
        out.append(f"stack_x({o}, {item.x}).")
    out += [f"stack_divide({o}, {i}, {n})." for i, n in enumerate(item.divide or [], start=1)]
    return out


def _shield_qualities(holder: str, sources: list[str], qualities: dict[str, str]) -> list[str]:
    """CR 609.7b: the quality a source chosen for a shield must still have as it would deal the
    damage (a quality the rules look at: mentioned)."""
    out = []
    for s in sources:
        if s in qualities:
            q = qualities[s]
            out += [f"prevent_next_from_quality({holder}, {asp_string(s)}, {q}).", f"mentioned_quality({q})."]
    return out
