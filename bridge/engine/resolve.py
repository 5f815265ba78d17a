"""The top object of the stack resolves (CR 608): the rules say whether it resolves and what
it does (asp_rules/stack/resolve.lp and the modules with it); this module gathers their
results kind by kind and applies them phase by phase, then moves the spell where the rules
say and gives the active player priority (115.3b).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

import clingo

from bridge.engine.acting import ability_card
from bridge.engine.board import Board
from bridge.engine.combat import DEALT_ATOMS, deal_damage
from bridge.engine.facts import asp_string
from bridge.engine.moves import (
    as_enters_choices,
    card_to,
    copy_candidates,
    copy_spell,
    create_tokens,
    discard,
    discard_by_choice,
    draw,
    gain_or_draw,
    leave_stack,
    lose,
    mill,
    move_permanents,
    return_from_graveyard,
    shuffle,
    shuffled_hand,
    take_from_library,
    to_zone,
)
from bridge.engine.priority import give_priority
from bridge.engine.replacement import draw_replaced
from bridge.engine.replacement import sources as replacement_sources
from bridge.engine.sba import apply_regeneration
from bridge.engine.solver import answer, atoms, symbol_text
from bridge.engine.triggers import damage_events, lifelink_events, triggers_on
from bridge.engine.updates import next_timestamp, update_permanents, updated
from bridge.model.cards import EffectSpec
from bridge.model.errors import RuleModuleError
from bridge.model.state import Effect, GameState, PaymentOffer, Permanent, Player, StackObject, fresh_id

RESOLVING = (
    "combat/common",
    "characteristics/players",
    "stack/objects",
    "stack/targets",
    "stack/resolve",
    "stack/zones",
    "stack/damage",
    "stack/keywords",
    "regeneration",
    "combat/damage_dealing",
)


# the damage the resolving object deals is dealt by combat/damage_dealing.lp's rules
RESOLVING_PARTS = (("dealing_spell_damage", ()),)


# ---------------------------------------------------------------------- resolving
def resolve_top(game: Board, paid: bool | None = None) -> GameState:
    """CR 608: the top object of the stack resolves: the rules say what it does and where it
    goes (a spell to a zone or the battlefield, a copy or an ability nowhere); then the active
    player receives priority (115.3b).  When it offers a player a payment (608.2f) it waits
    for that player's answer (``paid``) before it goes on."""
    state = game.state
    top = state.stack[0]
    oid = asp_string(top.id or "")
    facts = game.position.facts + f"\nresolving({oid})."
    if paid is not None:
        facts += f"\n{'offer_paid' if paid else 'offer_declined'}({oid})."
    facts += _draws_replaced(game)
    model = answer(game.modules(*RESOLVING), facts, RESOLVING_PARTS).model
    offer = next(iter(atoms(model, "offers_payment", 2)), None)
    if offer is not None:
        # CR 608.2f: the player chooses whether to pay; nobody has priority meanwhile
        waiting = PaymentOffer(object=top.id or "", player=offer.arguments[1].string)
        return updated(state, awaiting_payment=waiting, priority=None, passed=[])
    leaving = _leaving_stack(model)
    where = leaving.get(top.id or "")
    if where is None:
        raise RuleModuleError(f"the rules don't say where {top.label()} goes as it resolves")
    state = state.model_copy(update={"stack": state.stack[1:]})
    if where == "none":
        state = updated(state, gone=[*state.gone, top.id])
    if not atoms(model, "countered_on_resolution", 1):
        state = _apply_results(game, state, top, model, leaving)
    if where == "battlefield":
        state = _enter_battlefield(game, state, top, model)
    elif where != "none":
        state = to_zone(state, top, where, game.pool)
    return give_priority(Board(state, game.pool), state, state.active)


def _draws_replaced(game: Board) -> str:
    """CR 614.11b: for an instruction that draws a card and then acts on it, the players whose
    draw the rules show replaced now (replacement.lp), as ``draw_replaced/1`` facts."""
    if "draw_and_discard_if(" not in game.position.live:
        return ""
    found = replacement_sources(game.pool, game.state)
    return "".join(
        f"\ndraw_replaced({asp_string(p.name)})."
        for p in game.state.players
        if draw_replaced(found, game.state, p.name)
    )


def _leaving_stack(model: frozenset[clingo.Symbol]) -> dict[str, str]:
    """Where each object leaving the stack goes, as the rules show it (``leaves_stack_to/2``:
    a zone of its owner's, the battlefield, or ``none`` when it ceases to exist)."""
    return {s.arguments[0].string: s.arguments[1].name for s in atoms(model, "leaves_stack_to", 2)}


def _enter_battlefield(game: Board, state: GameState, item: StackObject, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 608.3: a permanent spell enters the battlefield under its controller's control, or
    another player's when the rules say an effect changes it (616.1b); an Aura attached to
    what the rules say (608.3a); one the rules keep out as the copy chosen goes to its owner's
    graveyard (608.3b)."""
    card = game.pool.get(item.card or "")
    attached = next(
        (s.arguments[1].string for s in atoms(model, "enters_attached", 2) if s.arguments[0].string == item.id),
        None,
    )
    controller = item.controller or state.active
    under = _entering_under(model).get(item.id or "")
    chosen = as_enters_choices(game, state, item.id or "", card, under or controller, copy_candidates(model))
    if chosen.get("copy") in _kept_out_as_copy(model, item.id or ""):
        # CR 608.3b: it can't be put onto the battlefield as what was chosen: to its owner's graveyard
        return to_zone(state, item, "graveyard", game.pool)
    perm = Permanent(
        id=item.id,
        card=item.card or "",
        controller=under,
        sick=True,
        face_down=any(s.arguments[0].string == item.id for s in atoms(model, "enters_face_down", 1)),
        attached_to=attached,
        timestamp=next_timestamp(state),
        chosen=chosen,
    )
    players = [
        p.model_copy(update={"battlefield": [*p.battlefield, perm]}) if p.name == controller else p
        for p in state.players
    ]
    after = updated(state, players=players)
    # CR 614.1c, 107.3: the X it was cast with, for "enters the battlefield with X counters"
    cast_with = [f"cast_with_x({asp_string(item.id or '')}, {item.x})"] if item.x else []
    return triggers_on(game.pool, after, after, [f"enters({asp_string(item.id or '')})", *cast_with])


def _kept_out_as_copy(model: frozenset[clingo.Symbol], oid: str) -> set[str]:
    """CR 608.3b: the creatures whose copy the entering object can't be put onto the
    battlefield as, as the rules show it (``cant_enter_as_copy/2``)."""
    return {s.arguments[1].string for s in atoms(model, "cant_enter_as_copy", 2) if s.arguments[0].string == oid}


def _entering_under(model: frozenset[clingo.Symbol]) -> dict[str, str]:
    """CR 616.1b: the objects entering the battlefield under another player's control than they
    would, as the rules show it (``enters_under/2``)."""
    return {s.arguments[0].string: s.arguments[1].string for s in atoms(model, "enters_under", 2)}


# ---------------------------------------------------------------------- what a resolving object does
@dataclass
class _Outcome:
    """What the rules say the resolving object does (CR 608.2c: its ``result/1`` atoms),
    gathered kind by kind (``RESULTS``) before it is applied phase by phase (``_PHASES``)."""

    model: frozenset[clingo.Symbol]
    leaving: dict[str, str]  # where the objects leaving the stack go
    players: frozenset[str]
    moves: dict[str, str] = field(default_factory=dict)  # permanent -> where it goes
    changes: dict[str, dict[str, object]] = field(default_factory=dict)  # permanent -> new status
    added: dict[str, dict[str, int]] = field(default_factory=dict)  # object -> shields, counters added
    must_block: dict[str, list[str]] = field(default_factory=dict)
    regenerated: bool = False
    combat_damage_prevented: bool = False
    cant_cast: set[str] = field(default_factory=set)
    takes_entering: set[str] = field(default_factory=set)
    damage_prevented: set[str] = field(default_factory=set)
    next_from: list[tuple[str, str, str]] = field(default_factory=list)
    next_from_gains: list[tuple[str, str]] = field(default_factory=list)
    life: dict[str, int] = field(default_factory=dict)
    draws: dict[str, int] = field(default_factory=dict)
    mana: dict[str, str] = field(default_factory=dict)  # player -> mana added to the pool
    discards: dict[str, int] = field(default_factory=dict)
    random_discards: dict[str, int] = field(default_factory=dict)
    chosen_discards: list[str] = field(default_factory=list)
    mills: list[tuple[str, int]] = field(default_factory=list)
    skips: dict[str, int] = field(default_factory=dict)
    block_costs: list[int] = field(default_factory=list)
    poison: dict[str, int] = field(default_factory=dict)
    added_steps: list[str] = field(default_factory=list)
    losers: set[str] = field(default_factory=set)
    extra_turns: list[str] = field(default_factory=list)
    extra_combats: int = 0
    effects: list[str] = field(default_factory=list)
    spliced_effects: dict[str, list[str]] = field(default_factory=dict)  # spliced card -> objects
    effect_x: int = 0  # CR 611.2d: the X of its continuous effect, fixed as it resolves
    pumps: list[tuple[str, int, int]] = field(default_factory=list)
    returned: list[tuple[str, str]] = field(default_factory=list)
    exiled_with: dict[str, str] = field(default_factory=dict)  # card exiled -> the object that exiled it
    from_exile: list[str] = field(default_factory=list)
    under: dict[str, str] = field(default_factory=dict)
    from_hand: list[str] = field(default_factory=list)
    enter_status: dict[str, dict[str, object]] = field(default_factory=dict)  # card -> tapped, attacking
    from_library: list[str] = field(default_factory=list)
    to_bottom: list[str] = field(default_factory=list)
    tokens: list[tuple[str, str, int]] = field(default_factory=list)
    tokens_put_with: str | None = None  # CR 607.2c: the object the new tokens are linked to
    token_words: dict[str, dict[str, str]] = field(default_factory=dict)  # CR 612.2a: token card -> words
    blocked: str | None = None
    exiled_cards: list[str] = field(default_factory=list)
    searches: list[tuple[str, str, str]] = field(default_factory=list)
    shuffles: list[str] = field(default_factory=list)
    copies: list[str] = field(default_factory=list)
    countered: list[str] = field(default_factory=list)
    delayed: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)
    lifelink_replaced: set[str] = field(default_factory=set)

    def add(self, oid: str, what: str, n: int) -> None:
        added = self.added.setdefault(oid, {})
        added[what] = added.get(what, 0) + n

    def tally(self, amounts: dict[str, int], player: str, n: int) -> None:
        amounts[player] = amounts.get(player, 0) + n


_Collect = Callable[[_Outcome, Sequence[clingo.Symbol]], None]


def _moves_to(zone: str) -> _Collect:
    def collect(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
        out.moves[args[0].string] = zone

    collect.__doc__ = f"CR 400.6: the permanent leaves the battlefield ({zone})."
    return collect


def _tap(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.15a: the permanent is tapped."""
    out.changes.setdefault(args[0].string, {})["tapped"] = True


def _untap(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.15b: the permanent is untapped."""
    out.changes.setdefault(args[0].string, {})["tapped"] = False


def _freeze(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 502.2: it doesn't untap during its controller's next untap step."""
    out.changes.setdefault(args[0].string, {})["frozen"] = True


def _attach(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.3a: the source becomes attached to the object."""
    out.changes.setdefault(args[0].string, {})["attached_to"] = args[1].string


def _regenerate(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.11a: regenerated instead of destroyed (what that does: ``regeneration/2``)."""
    out.regenerated = True


def _regeneration_shield(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.11a: a regeneration shield."""
    out.add(args[0].string, "regeneration_shields", 1)


def _prevention_shield(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615.7: the next N damage to the player or permanent is prevented."""
    out.add(args[0].string, "prevention_shield", args[1].number)


def _put_counters(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 120.1: counters put on a permanent."""
    out.add(args[0].string, f"counter:{args[1].string}", args[2].number)


def _remove_counters(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 120.1: counters removed from a permanent."""
    out.add(args[0].string, f"counter:{args[1].string}", -args[2].number)


def _provoked(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 702.36a: the creature blocks the provoking creature this turn if able."""
    out.must_block.setdefault(args[0].string, []).append(args[1].string)


def _prevent_next_from(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615.8: the next time the chosen source would deal damage to it, that is prevented."""
    out.next_from.append((args[0].string, args[1].string, str(args[2])))


def _prevent_next_gains(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615.5: that prevention also gains the player life equal to the damage it prevents."""
    out.next_from_gains.append((args[0].string, args[1].string))


def _prevent_all_combat_damage(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615: all combat damage this turn is prevented."""
    out.combat_damage_prevented = True


def _cant_cast_spells(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 101.2: the player can't cast spells this turn."""
    out.cant_cast.add(args[0].string)


def _creatures_enter_under(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 616.1b: this turn, creatures entering under the player's opponents' control enter
    under his or hers instead."""
    out.takes_entering.add(args[0].string)


def _prevent_all_damage_to(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 615: all damage to the player and his or her creatures this turn is prevented."""
    out.damage_prevented.add(args[0].string)


def _draw(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 119.2: the player draws N cards."""
    out.tally(out.draws, args[0].string, args[1].number)


def _add_mana(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 605.5b, 106.4: N mana of a color goes into the player's pool."""
    player = args[0].string
    out.mana[player] = out.mana.get(player, "") + ("{" + args[1].name.upper() + "}") * args[2].number


def _gain_life(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 117.3: the player gains N life."""
    out.tally(out.life, args[0].string, args[1].number)


def _add_step(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 500.9: a step added directly after this step."""
    out.added_steps.append(args[0].name)


def _poison(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 120.1, 104.3d: the player gets N poison counters."""
    out.tally(out.poison, args[0].string, args[1].number)


def _block_cost(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 509.1d: this turn, each creature blocking costs N more."""
    out.block_costs.append(args[0].number)


def _lose_life(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 117.3: the player loses N life."""
    out.tally(out.life, args[0].string, -args[1].number)


def _discard(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.7a-b: the player discards N cards of his or her choice."""
    out.tally(out.discards, args[0].string, args[1].number)


def _discard_at_random(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.7b: the player discards N cards at random."""
    out.tally(out.random_discards, args[0].string, args[1].number)


def _discard_card(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.7a: the card chosen is discarded."""
    out.chosen_discards.append(args[0].string)


def _mill_result(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """The top N cards of the player's library go to his or her graveyard."""
    out.mills.append((args[0].string, args[1].number))


def _skip_turns(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 614.10: the player skips his or her next N turns."""
    out.tally(out.skips, args[0].string, args[1].number)


def _lose_game(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 104.3e: the player loses the game."""
    out.losers.add(args[0].string)


def _extra_turn(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 500.7: an extra turn after this one."""
    out.extra_turns.insert(0, args[0].string)


def _additional_combat(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 500.8: an additional combat phase."""
    out.extra_combats += 1


def _effect(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 611.2: the resolving object's continuous effect applies to the object."""
    out.effects.append(symbol_text(args[1]))


def _spliced_effect(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 702.44c, 611.2: the continuous effect of a card spliced onto the spell applies to the
    object."""
    out.spliced_effects.setdefault(args[1].string, []).append(symbol_text(args[2]))


def _effect_x(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 611.2d: the value of X in its continuous effect, determined once as it resolves."""
    out.effect_x = args[1].number


def _pump(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 702.20a, 702.22a, 702.42a, 702.80a: +N/+N (or -1/-1) until end of turn."""
    out.pumps.append((args[0].string, args[1].number, args[2].number))


def _return_card(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 400.6: a card returned from a graveyard to the battlefield or its owner's hand."""
    out.returned.append((args[0].string, args[1].name))


def _exiled_with(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 607.2a: the card exiled remembers the object whose linked ability exiled it."""
    out.exiled_with[args[0].string] = args[1].string


def _from_exile(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 607.2a, 400.6: a card in exile returns to the battlefield under its owner's control."""
    out.from_exile.append(args[0].string)


def _returned_under(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 110.2: the returned card enters under this player's control."""
    out.under[args[0].string] = args[1].string


def _enters_tapped(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """The card put onto the battlefield enters tapped."""
    out.enter_status.setdefault(args[0].string, {})["tapped"] = True


def _enters_attacking(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 508.5: the card put onto the battlefield enters attacking this player."""
    out.enter_status.setdefault(args[0].string, {})["attacking"] = args[1].string


def _from_hand(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """A card put onto the battlefield from a hand."""
    out.from_hand.append(args[0].string)


def _from_library(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """A revealed card put onto the battlefield from a library."""
    out.from_library.append(args[0].string)


def _to_bottom(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """A revealed card put at the bottom of its library."""
    out.to_bottom.append(args[0].string)


def _create_tokens_result(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 110.5: N tokens for the player."""
    out.tokens.append((args[0].string, args[1].string, args[2].number))


def _tokens_put_with(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 607.2c: the tokens are put onto the battlefield with this object (a linked ability of it
    refers to them)."""
    out.tokens_put_with = args[0].string


def _tokens_text(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 612.2a: the tokens of this card are defined with a creature type word changed."""
    out.token_words.setdefault(args[0].string, {})[args[1].name] = args[2].name


def _tokens_block(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 509.7: the tokens enter blocking this attacking creature."""
    out.blocked = args[0].string


def _exile_card(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 406.2: a card in a graveyard, a hand or a library is exiled."""
    out.exiled_cards.append(args[0].string)


def _search(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.14a: the card found in the player's library, and where it goes."""
    out.searches.append((args[0].string, args[1].string, args[2].name))


def _shuffle(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """The player's library is shuffled."""
    out.shuffles.append(args[0].string)


def _copy(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 706.9: a copy of the spell goes on the stack."""
    out.copies.append(args[0].string)


def _counter(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 701.5a: the spell or ability is countered (where it goes: ``leaves_stack_to/2``)."""
    out.countered.append(args[0].string)


def _delayed(out: _Outcome, args: Sequence[clingo.Symbol]) -> None:
    """CR 603.7: a delayed triggered ability: what it does, when it triggers, what it is about
    and the permanent it waits on."""
    about = args[2].string if args[2].type == clingo.SymbolType.String else None
    watch = args[3].string if args[3].type == clingo.SymbolType.String else None
    out.delayed.append((str(args[0]), args[1].name, about, watch))


# CR 608.2c: each kind of result the rules show, and what gathers it.
RESULTS: dict[str, _Collect] = {
    "destroy": _moves_to("graveyard"),
    "sacrifice": _moves_to("graveyard"),
    "exile": _moves_to("exile"),
    "return_to_hand": _moves_to("hand"),
    "put_on_top": _moves_to("put_on_top"),
    "put_on_bottom": _moves_to("put_on_bottom"),
    "tap": _tap,
    "untap": _untap,
    "freeze": _freeze,
    "attach": _attach,
    "regenerate": _regenerate,
    "regeneration_shield": _regeneration_shield,
    "prevention_shield": _prevention_shield,
    "put_counters": _put_counters,
    "remove_counters": _remove_counters,
    "provoked": _provoked,
    "prevent_next_from": _prevent_next_from,
    "prevent_next_gains": _prevent_next_gains,
    "prevent_all_combat_damage": _prevent_all_combat_damage,
    "cant_cast_spells": _cant_cast_spells,
    "creatures_enter_under": _creatures_enter_under,
    "prevent_all_damage_to": _prevent_all_damage_to,
    "draw": _draw,
    "gain_life": _gain_life,
    "add_mana": _add_mana,
    "lose_life": _lose_life,
    "block_cost": _block_cost,
    "poison": _poison,
    "add_step": _add_step,
    "discard": _discard,
    "discard_at_random": _discard_at_random,
    "discard_card": _discard_card,
    "mill": _mill_result,
    "skip_turns": _skip_turns,
    "lose_game": _lose_game,
    "extra_turn": _extra_turn,
    "additional_combat": _additional_combat,
    "effect": _effect,
    "spliced_effect": _spliced_effect,
    "effect_x": _effect_x,
    "pump": _pump,
    "return_card": _return_card,
    "returned_under": _returned_under,
    "exiled_with": _exiled_with,
    "return_from_exile": _from_exile,
    "from_hand": _from_hand,
    "enters_tapped": _enters_tapped,
    "enters_attacking": _enters_attacking,
    "from_library": _from_library,
    "to_bottom": _to_bottom,
    "create_tokens": _create_tokens_result,
    "tokens_put_with": _tokens_put_with,
    "tokens_text": _tokens_text,
    "tokens_block": _tokens_block,
    "exile_card": _exile_card,
    "search": _search,
    "shuffle": _shuffle,
    "copy": _copy,
    "counter": _counter,
    "delayed": _delayed,
}


def _apply_results(
    game: Board, state: GameState, top: StackObject, model: frozenset[clingo.Symbol], leaving: dict[str, str]
) -> GameState:
    """CR 608.2c: carry out what the rules said the resolving object does: each result
    gathered by its kind, then applied phase by phase, in the order of ``_PHASES``."""
    out = _Outcome(model=model, leaving=leaving, players=frozenset(p.name for p in state.players))
    for s in atoms(model, "result", 1):
        result = s.arguments[0]
        collect = RESULTS.get(result.name)
        if collect is None:
            raise RuleModuleError(f"the rules show a result the bridge doesn't know: {result}")
        collect(out, result.arguments)
    for phase in _PHASES:
        state = phase(game, state, top, out)
    return state


# ---------------------------------------------------------------------- its phases, in order
def _damage(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 118, 609.7: the damage it deals, at once (the rules computed it as for combat
    damage: marked, wither, life lost, lifelink, prevention)."""
    if not any(s.name in DEALT_ATOMS for s in out.model):
        return state  # nothing dealt, prevented or replaced
    dealt, out.lifelink_replaced = deal_damage(state, out.model, game.pool)
    return dealt.model_copy(update={"combat_damage_dealt": state.combat_damage_dealt})


def _status(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """What it changes of permanents and players: tapped, untapped, attached, frozen (701.3,
    701.15, 502.2), shields (701.11a, 615.7), counters (120.1), a creature that must block
    (702.36a); mana added to pools (106.4); and the rules for the rest of the turn (615,
    101.2)."""
    changes = {oid: dict(c) for oid, c in out.changes.items()}
    for oid, added in out.added.items():
        if oid in out.players:
            continue
        perm = state.permanent(oid)
        change = changes.setdefault(oid, {})
        counters = dict(perm.counters)
        for what, n in added.items():
            if what.startswith("counter:"):
                counters[what[8:]] = counters.get(what[8:], 0) + n
            else:
                change[what] = getattr(perm, what) + n
        if counters != perm.counters:
            change["counters"] = counters
    for oid, attackers in out.must_block.items():
        changes.setdefault(oid, {})["must_block"] = [*state.permanent(oid).must_block, *attackers]
    state = update_permanents(state, changes)
    updates: dict[str, dict[str, object]] = {}
    for p in state.players:
        shield = out.added.get(p.name, {}).get("prevention_shield")
        if shield:
            updates.setdefault(p.name, {})["prevention_shield"] = p.prevention_shield + shield
        if p.name in out.cant_cast:
            updates.setdefault(p.name, {})["cant_cast_spells"] = True
        if p.name in out.damage_prevented:
            updates.setdefault(p.name, {})["damage_prevented"] = True
        if p.name in out.takes_entering:
            updates.setdefault(p.name, {})["takes_entering_creatures"] = True
        if p.name in out.mana:
            updates.setdefault(p.name, {})["mana_pool"] = p.mana_pool + out.mana[p.name]
    if updates:
        state = updated(
            state, players=[p.model_copy(update=updates[p.name]) if p.name in updates else p for p in state.players]
        )
    if out.combat_damage_prevented:
        state = updated(state, combat_damage_prevented=True)
    if out.block_costs:  # CR 509.1d
        state = updated(state, block_costs=[*state.block_costs, *out.block_costs])
    return state


def _regeneration(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 701.11a: what regenerating does, as the rules show it."""
    return apply_regeneration(state, out.model) if out.regenerated else state


def _prevent_next(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 615.8: a prevention effect for the next time the chosen source would deal damage,
    with the quality the source was chosen for (checked again as it would deal it, 609.7b)."""
    for target, source, quality in out.next_from:
        o = _holder(state, target, out.players)
        shield = {
            "prevent_next_from": [*o.prevent_next_from, source],
            "prevent_next_from_quality": {**o.prevent_next_from_quality, source: quality},
        }
        state = _shielded(state, target, out.players, shield)
    for target, source in out.next_from_gains:  # CR 615.5: the prevention's additional effect
        o = _holder(state, target, out.players)
        state = _shielded(state, target, out.players, {"prevent_next_from_gains": [*o.prevent_next_from_gains, source]})
    return state


def _holder(state: GameState, target: str, players: Collection[str]) -> Player | Permanent:
    """The player or permanent a prevention effect protects."""
    return state.player(target) if target in players else state.permanent(target)


def _shielded(state: GameState, target: str, players: Collection[str], change: Mapping[str, object]) -> GameState:
    """The player or permanent ``target`` with the fields ``change`` gives it."""
    if target in players:
        return updated(state, players=[p.model_copy(update=change) if p.name == target else p for p in state.players])
    return update_permanents(state, {target: change})


def _returning(out: _Outcome) -> set[str]:
    """The cards this resolution returns to the battlefield."""
    return {card_id for card_id, where in out.returned if where != "hand"}


def _effects_now(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 611.2: its continuous effect on the objects already there (one on a card it returns
    to the battlefield begins once the card is there, 608.2c: Rise from the Grave); the
    keyword abilities' +N/+N until end of turn."""
    coming = _returning(out)
    state = _add_effect(game, state, top, [e for e in out.effects if e not in coming], out.effect_x)
    for card, targets in sorted(out.spliced_effects.items()):
        state = _add_effect(game, state, top, targets, out.effect_x, game.pool.get(card).effect)
    for target, power, toughness in out.pumps:
        words = f"{top.keyword}: {power:+d}/{toughness:+d} until end of turn"
        effect = Effect(
            text=words,
            targets=[target],
            modify_pt=(power, toughness),
            duration="end_of_turn",
            timestamp=next_timestamp(state),
            controller=top.controller or state.active,
        )
        state = updated(state, effects=[*state.effects, effect])
    return state


def _life(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 117.3: life lost, then life gained (a gain may be replaced, 614.1a: then nothing
    triggers on it); the abilities that trigger on the gains and on the damage dealt."""
    losses = {name: n for name, n in out.life.items() if n < 0}
    if losses:
        state = updated(
            state, players=[p.model_copy(update={"life": p.life + losses.get(p.name, 0)}) for p in state.players]
        )
    gained = {name: n for name, n in out.life.items() if n > 0}
    state, replaced = gain_or_draw(game.pool, state, gained)
    events = [
        f"gains_life({asp_string(name)}, {asp_string(top.id or '')}, {n})"
        for name, n in gained.items()
        if name not in replaced
    ]
    events += damage_events(out.model, out.players) + lifelink_events(out.model, out.lifelink_replaced)
    return triggers_on(game.pool, state, state, events)


def _cards(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 119.2: cards drawn; CR 701.7: discarded (the player's choice: the cards he or she
    stated first, then by default the cards listed last; a card chosen by the spell's
    controller; at random); cards milled."""
    for player, n in out.draws.items():
        state = draw(state, player, n, game.pool)
    for player, n in out.discards.items():
        state = discard_by_choice(state, player, n, game.pool)
    for card_id in out.chosen_discards:
        owner = next(p.name for p in state.players if any(c.id == card_id for c in p.hand))
        hand = state.player(owner).hand
        reordered = [c for c in hand if c.id != card_id] + [c for c in hand if c.id == card_id]
        state = discard(
            state.model_copy(
                update={
                    "players": [
                        p.model_copy(update={"hand": reordered}) if p.name == owner else p for p in state.players
                    ]
                }
            ),
            owner,
            1,
            game.pool,
        )
    for player, n in out.random_discards.items():
        state = discard(shuffled_hand(state, player), player, n, game.pool)
    for player, n in out.mills:
        state = mill(state, player, n, game.pool)
    return state


def _turns(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """Steps added (500.9), poison counters (120.1), turns skipped (614.10), players losing
    (104.3e), extra turns (500.7: the most recently created is taken first) and combat phases
    (500.8)."""
    if out.added_steps:  # CR 500.9: the most recently created first
        state = updated(state, added_steps=[*reversed(out.added_steps), *state.added_steps])
    if out.poison:  # CR 120.1
        state = updated(
            state,
            players=[p.model_copy(update={"poison": p.poison + out.poison.get(p.name, 0)}) for p in state.players],
        )
    if out.skips:
        state = updated(
            state,
            players=[
                p.model_copy(update={"skip_turns": p.skip_turns + out.skips.get(p.name, 0)}) for p in state.players
            ],
        )
    for loser in sorted(out.losers):
        state = updated(lose(game.pool, state, loser))
    if out.extra_turns or out.extra_combats:
        state = updated(
            state,
            extra_turns=[*out.extra_turns, *state.extra_turns],
            extra_combats=state.extra_combats + out.extra_combats,
        )
    return state


def _leave_battlefield(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 400.6: the permanents it destroys, exiles, returns or sacrifices leave the
    battlefield, at once (replacement effects on the way, leaving abilities triggering)."""
    state = move_permanents(state, out.moves, game.pool) if out.moves else state
    if out.exiled_with:
        # CR 607.2a: the cards now in exile remember the object whose linked ability exiled them
        players = [
            p.model_copy(
                update={
                    "exile": [
                        c.model_copy(update={"exiled_with": out.exiled_with[c.id]}) if c.id in out.exiled_with else c
                        for c in p.exile
                    ]
                }
            )
            for p in state.players
        ]
        state = updated(state, players=players)
    return state


def _enter_from_zones(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """Cards returned from graveyards (400.7: new objects), put onto the battlefield from a
    hand or a library, or put at the bottom of a library; then its continuous effect on the
    cards it returned to the battlefield (608.2c)."""
    candidates = copy_candidates(out.model)
    for card_id, where in out.returned:
        under = _entering_under(out.model).get(card_id, out.under.get(card_id))
        state = return_from_graveyard(game, state, card_id, where, under, candidates)
    for card_id in out.from_hand:
        under = _entering_under(out.model).get(card_id)
        state = card_to(game, state, card_id, "hand", "battlefield", under, candidates=candidates)
    if out.enter_status:  # CR 508.5: tapped and attacking, as the rules said
        state = update_permanents(state, out.enter_status)
    for card_id in out.from_exile:
        under = _entering_under(out.model).get(card_id)
        state = card_to(game, state, card_id, "exile", "battlefield", under, candidates=candidates)
    for card_id in out.from_library:
        under = _entering_under(out.model).get(card_id)
        state = card_to(game, state, card_id, "library", "battlefield", under, candidates=candidates)
    for card_id in out.to_bottom:
        state = updated(
            state,
            players=[
                p.model_copy(
                    update={
                        "library": [c for c in p.library if c.id != card_id] + [c for c in p.library if c.id == card_id]
                    }
                )
                for p in state.players
            ],
        )
    arrived = {p.id for p in state.permanents()} & _returning(out)
    return _add_effect(game, state, top, [e for e in out.effects if e in arrived], out.effect_x)


def _new_tokens(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 110.5: tokens enter the battlefield (509.7: blocking, when the rules say so)."""
    for player, card_name, n in out.tokens:
        state = create_tokens(
            game, state, player, card_name, n, out.blocked, out.tokens_put_with, out.token_words.get(card_name, {})
        )
    return state


def _exile_cards(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 406.2: cards in graveyards, hands and libraries go to exile."""
    if not out.exiled_cards:
        return state
    players = []
    for p in state.players:
        moved = [c for zone in ("graveyard", "hand", "library") for c in getattr(p, zone) if c.id in out.exiled_cards]
        update = {
            zone: [c for c in getattr(p, zone) if c.id not in out.exiled_cards]
            for zone in ("graveyard", "hand", "library")
        }
        players.append(p.model_copy(update={**update, "exile": [*p.exile, *moved]}))
    return updated(state, players=players)


def _libraries(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 701.14a: the cards found go where the instruction says; then the libraries searched
    are shuffled."""
    candidates = copy_candidates(out.model)
    for player, card_id, where in out.searches:
        state = take_from_library(game, state, player, card_id, where, candidates)
    for player in out.shuffles:
        state = shuffle(state, player)
    return state


def _stack(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 706.9: copies of spells go on the stack; CR 701.5a: the spells and abilities it
    counters leave the stack for where the rules say (702.31a: exile for a flashback spell;
    706.9a: a copy ceases to exist)."""
    for oid in out.copies:
        state = copy_spell(state, oid, top.controller or state.active)
    for oid in out.countered:
        where = out.leaving.get(oid)
        if where is None:
            raise RuleModuleError(f"the rules don't say where the countered {oid!r} goes")
        state = leave_stack(state, oid, where, game.pool)
    return state


def _create_delayed(game: Board, state: GameState, top: StackObject, out: _Outcome) -> GameState:
    """CR 603.7: the delayed triggered abilities it creates wait for their moment or event;
    CR 603.7d: their source is the spell, or the source of the ability, and their controller
    its controller."""
    for key, at, about, watch in out.delayed:
        oid = fresh_id(f"{top.source or top.id}_delayed", state.used_ids())
        item = StackObject(
            id=oid,
            source=top.source or top.id,
            delayed=key,
            about=about,
            at=at,
            watch=watch,
            controller=top.controller or state.active,
        )
        state = updated(state, delayed_triggers=[*state.delayed_triggers, item])
    return state


_Phase = Callable[["Board", GameState, StackObject, _Outcome], GameState]

# CR 608.2c: the instructions are followed in the order written; the bridge applies the
# results of one resolution in this order: damage (dealt at once), then what changes
# permanents and players in place, then the cards drawn and discarded, then the permanents
# leaving the battlefield, then the cards entering it (an effect on a card returned to the
# battlefield applies once the card is there), tokens, cards exiled and searched for, and
# last the stack: copies of spells, spells countered, and delayed triggered abilities (created
# last, so that one waiting on a permanent sees it leave only after it was created, 603.7a).
_PHASES: tuple[_Phase, ...] = (
    _damage,
    _status,
    _regeneration,
    _prevent_next,
    _effects_now,
    _life,
    _cards,
    _turns,
    _leave_battlefield,
    _enter_from_zones,
    _new_tokens,
    _exile_cards,
    _libraries,
    _stack,
    _create_delayed,
)


def _add_effect(
    game: Board,
    state: GameState,
    top: StackObject,
    targets: list[str],
    x: int = 0,
    spliced: EffectSpec | None = None,
) -> GameState:
    """CR 611.2: the resolving object's continuous effect on these objects (611.2d: with the
    X the rules fixed as it resolved; ``spliced``: the effect of a card spliced onto it, CR
    702.44c: the spell is its source)."""
    if not targets:
        return state
    source = top.card if top.card is not None else top.source
    spec = spliced if spliced is not None else _own_effect(game, top)
    if spec is None and top.card is not None:
        card_effect = game.pool.get(top.card).effect
        if card_effect is not None and card_effect.modify_pt is not None and "x" in card_effect.modify_pt:
            spec = card_effect
    fields = spec.model_dump(exclude_defaults=True) if spec is not None else {}
    if spec is not None and spec.modify_pt is not None:
        fields["modify_pt"] = tuple(x if v == "x" else v for v in spec.modify_pt)
    effect = Effect.model_validate(
        {
            **fields,
            "source": source,
            "targets": sorted(set(targets)),
            "timestamp": next_timestamp(state),
            "controller": top.controller or state.active,
        }
    )
    return updated(state, effects=[*state.effects, effect])


def _own_effect(game: Board, item: StackObject) -> EffectSpec | None:
    """The continuous effect of an activated ability or a spell's mode, when it has its own
    (else the card's ``effect`` applies)."""
    if item.keyword is not None or item.delayed is not None:
        return None
    if item.source is not None:
        card = ability_card(game, item)
        if item.trigger is not None:
            trigger = card.triggered[item.trigger - 1]
            if item.mode is not None and trigger.modes:
                return trigger.modes[item.mode - 1].effect
            return trigger.effect
        return card.activated[(item.ability or 1) - 1].effect
    if item.mode is not None:
        return game.pool.get(item.card or "").modes[item.mode - 1].effect
    return None
