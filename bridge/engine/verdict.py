"""Verdicts: whether an action is legal, and each rule it breaks in plain words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import clingo

__all__ = ["MESSAGES", "Verdict", "Violation", "ViolationReader"]

# reason -> message; {0}, {1}, ... are the violation's objects, described.
MESSAGES: dict[str, str] = {
    # declaring attackers (CR 508.1)
    "wrong_step_attack": "attackers are declared in the declare attackers step, not in the {0} step",
    "attackers_already_declared": "attackers were already declared this combat ({0} is attacking)",
    "attack_declaration_repeated": "{0} already declared attackers this combat (declaring none counts too)",
    "attacker_not_on_battlefield": "{0} is not on the battlefield, so it can't attack",
    "attacker_not_creature": "{0} is not a creature, so it can't attack",
    "attacker_not_active_players": "{0} is not controlled by the active player, so it can't attack",
    "tapped_attacker": "{0} is tapped, so it can't attack",
    "summoning_sick": "{0} has not been under its controller's control since the turn began and has no haste",
    "not_attackable": "{0} can't attack {1}: only the defending player and that player's planeswalkers can be attacked",
    "unknown_target": "{0} attacks {1}, which is neither a player nor a permanent",
    "defender": "{0} has defender, so it can't attack",
    "cant_attack": "{0} can't attack",
    "cant_attack_unless": (
        "{0} can't attack unless the defending player controls a permanent it names, and that player controls none"
    ),
    "cant_attack_alone": "{0} can't attack alone",
    "max_attackers": "{0} allows no more than {1} attacking creature(s) each combat",
    "band_member_not_attacking": "{0} is in band {1} but is not attacking",
    "two_bands": "{0} is in more than one band",
    "illegal_band": "band {0} is not a legal band: it needs creatures with banding and at most one without, "
    'or creatures sharing the quality of a "bands with other" ability',
    "band_split": "the creatures of band {0} attack different players or planeswalkers",
    "unpaid_attack_cost": "{0} must pay {1} mana to attack but has only {2} available",
    "unpaid_block_cost": "{0} must pay {1} mana to block but has only {2} available",
    # declaring blockers (CR 509.1)
    "wrong_step_block": "blockers are declared in the declare blockers step, not in the {0} step",
    "blockers_already_declared": "blockers were already declared this combat ({0} is blocking)",
    "block_declaration_repeated": "{0} already declared blockers this combat (declaring none counts too)",
    "blocker_not_on_battlefield": "{0} is not on the battlefield, so it can't block",
    "blocker_not_creature": "{0} is not a creature, so it can't block",
    "blocker_not_defending_players": "{0} is not controlled by the defending player, so it can't block",
    "tapped_blocker": "{0} is tapped, so it can't block",
    "not_attacking": "{0} can't block {1}: {1} is not attacking",
    "blocks_itself": "{0} can't block itself",
    "too_many_blocked": "{0} blocks {1} creatures but may block only {2}",
    "cant_block": "{0} can't block",
    "flying": "{0} can't block {1}: {1} has flying and {0} has neither flying nor reach",
    "fear": "{0} can't block {1}: {1} has fear and {0} is neither an artifact creature nor black",
    "intimidate": (
        "{0} can't block {1}: {1} has intimidate and {0} is neither an artifact creature nor shares a color with it"
    ),
    "shadow": "{0} can't block {1}: {1} has shadow and {0} doesn't",
    "shadow_blocker": "{0} can't block {1}: {0} has shadow and can block only creatures with shadow",
    "horsemanship": "{0} can't block {1}: {1} has horsemanship and {0} doesn't",
    "landwalk": "{0} can't block {1}: {1} has landwalk and the defending player controls such a land",
    "protection": "{0} can't block {1}: {1} has protection from a quality {0} has",
    "unblockable": "{0} can't block {1}: {1} can't be blocked",
    "cant_be_blocked_by": "{0} can't block {1}: {1} can't be blocked by creatures like {0}",
    "can_block_only": "{0} can't block {1}: {0} can block only creatures with a quality {1} lacks",
    "cant_block_alone": "{0} can't block alone",
    "max_blockers": "{0} allows no more than {1} blocking creature(s) each combat",
    "too_few_blockers": "{0} can't be blocked except by {1} or more creatures",
    "too_many_blockers": "{0} can't be blocked by more than {1} creature(s)",
    # assigning combat damage (CR 510.1)
    "wrong_step_damage": "combat damage is assigned in the combat damage step, not in the {0} step",
    "assigns_without_power": "{0} has no power to assign combat damage with",
    "not_in_this_damage_step": "{0} doesn't deal combat damage in this combat damage step ({1}): only creatures "
    "with first strike or double strike deal damage in the first, and in the second "
    "those that had neither, and those with double strike",
    "damage_total": "{0} assigns {1} damage but must assign exactly its power, {2}",
    "damage_recipient_unblocked": "{0} is unblocked and assigns its combat damage only to what it attacks, not {1}",
    "damage_recipient_blocked": "{0} is blocked and assigns its combat damage only to its blockers, not {1}",
    "damage_recipient_blocking": "{0} is blocking and assigns its combat damage only to what it blocks, not {1}",
    "trample_planeswalker": "{0} has trample but attacks a planeswalker, so none of its damage goes to {1}",
    "damage_out_of_order_blocking": "{0} assigns damage to {1} before {2}, ahead of it in the damage assignment "
    "order, is assigned lethal damage",
    "damage_out_of_order": "{0} assigns damage to {1} before {2}, ahead of it in the damage assignment order, "
    "is assigned lethal damage",
    "trample_too_early": "{0} tramples over before {1}, which blocks it, is assigned lethal damage",
    "not_in_combat": "{0} is not attacking or blocking anything now, so it assigns no combat damage",
    "damage_already_dealt": "combat damage was already dealt in this {0} step",
    "announces_others_creature": "{1} doesn't control {0}, so {1} doesn't announce how it assigns its combat damage",
    "damage_announced_out_of_turn": "{0} doesn't announce combat damage now: the active player announces the "
    "attacking creatures' first, then the defending player the blocking creatures'",
    # casting spells, activating abilities, playing lands (CR 115, 601, 602, 305)
    "no_priority": "{0} doesn't have priority",
    "before_declare_attackers": "{0} can't act yet: nobody has priority in the declare attackers step until the "
    "active player has declared attackers",
    "before_declare_blockers": "{0} can't act yet: nobody has priority in the declare blockers step until the "
    "defending player has declared blockers",
    "before_combat_damage": "{0} can't act yet: nobody has priority in a combat damage step until combat damage "
    "has been assigned and dealt",
    "before_damage_assignment_order": "{0} can't act yet: nobody has priority in the declare blockers step until "
    "the damage assignment orders are announced",
    "timing_sorcery": "{0} is a sorcery: it can be cast only in its caster's main phase with the stack empty ({1})",
    "timing_creature": "{0} is a creature spell: it can be cast only in its caster's main phase with the stack "
    "empty ({1})",
    "timing_artifact": "{0} is an artifact spell: it can be cast only in its caster's main phase with the stack "
    "empty ({1})",
    "timing_enchantment": "{0} is an enchantment spell: it can be cast only in its caster's main phase with the "
    "stack empty ({1})",
    "timing_planeswalker": "{0} is a planeswalker spell: it can be cast only in its caster's main phase with the "
    "stack empty ({1})",
    "timing_ability": "{0} can be activated only as a sorcery ({1})",
    "timing_loyalty": "{0} is a loyalty ability: only as a sorcery ({1})",
    "missing_target": "{0} needs a target for its target number {1}",
    "division_share_below_one": "{0} must divide at least one to each of its targets, and {1} gets none",
    "division_not_for_each_target": "{0} divides its amount with one share for each target (target number {1})",
    "division_total": "{0} divides {2} among its targets, but the shares add up to {1}",
    "illegal_target": "{1} is not a legal target for {0}",
    "extra_target": "{0} has no target for {1}",
    "same_target_twice": '{0} targets {1} twice for one use of the word "target"',
    "target_itself": "{0} can't target itself",
    "target_shroud": "{1} has shroud, so {0} can't target it",
    "target_protection": "{1} has protection from a quality of {0}, so it can't be targeted by it",
    "unpaid_cost": "the total cost of {0} ({1} mana) can't be paid with the mana available",
    "unsupported_cost": "{0} has a mana symbol this engine can't pay yet",
    "not_a_mana_source": "{0} is not an untapped source of mana its player can use",
    "offer_unpaid": "the {1} that {0} offers to pay can't be paid with the mana available",
    "spell_is_not_a_mana_ability": "{0} is a spell that makes mana as it resolves, not a mana ability: it can't pay",
    "mana_without_priority": "{0} doesn't have priority, so can't activate a mana ability now",
    "no_such_mana": "{0} has no mana ability that makes {1} mana",
    "mana_color_unnamed": "{0} makes mana of more than one color: name the color",
    "tap_summoning_sick": "{0} is a creature its controller hasn't controlled since the turn began, so its {{T}} "
    "abilities can't be activated",
    "mana_source_summoning_sick": "{0} is a creature its controller hasn't controlled continuously since his or her "
    "most recent turn began, and without haste it can't be tapped for mana",
    "tap_cost_tapped": "{0} is tapped, so it can't pay a {{T}} cost",
    "life_cost": "{0} can't pay {1} life",
    "discard_cost": "{0} can't discard {1} card(s): not enough cards in hand",
    "discard_cost_named": "{0} names cards to discard other than the {1} the cost asks for",
    "discard_cost_not_in_hand": "{1} is not a card in {0}'s hand, to discard for the cost",
    "exiled_card_cost_illegal": "{1} is not a card exiled with {0}, to put into a graveyard for the cost",
    "exiled_card_cost": "{0} has no card exiled with it to put into its owner's graveyard",
    "once_each_turn": "{0}'s ability can be activated only once each turn",
    "before_attackers_only": "{0}'s ability can be activated only during its controller's turn, before attackers "
    "are declared",
    "cant_activate": "{0}'s activated abilities can't be activated",
    "loyalty_once_each_turn": "a loyalty ability of {0} was already activated this turn",
    "loyalty_cost": "{0} doesn't have enough loyalty counters to remove {1}",
    "not_your_permanent": "{0} is not controlled by the player activating its ability",
    "no_such_ability": "{0} doesn't have that activated ability",
    "not_a_land": "{0} is not a land",
    "land_cast": "{0} is a land: it is played as a land, never cast as a spell",
    "land_timing_step": "a land is played in its player's main phase, not now ({0})",
    "land_timing_turn": "{1} can't play a land in another player's turn ({0})",
    "land_timing_stack": "a land can be played only when the stack is empty ({0})",
    "land_already_played": "{0} already played {1} land(s) this turn",
    "lands_cant_be_played": "{0} can't be played: {1} says players can't play lands",
    "missing_mode": "{0} is modal: a mode must be chosen as it is cast",
    "no_such_mode": "{0} has no mode {1}",
    "mana_only_as_instant": "{0}'s mana ability can be activated only when an instant could be cast: with "
    "priority, not while paying a cost",
    "mode_chosen_by": "{1} can't choose the mode of {0}: that choice is another player's",
    "target_chosen_by": "{2} can't choose {1} as a target of {0}: that target is another player's choice",
    "no_such_cost": "{0} has no {1} cost",
    "entwined_with_a_mode": "{0} is entwined: all its modes are chosen, so mode {1} can't be chosen alone",
    "splice_not_in_hand": "{1} can't be spliced onto {0}: a card is spliced from its caster's hand onto another spell",
    "splice_without_splice": "{1} has no splice ability, so it can't be spliced onto {0}",
    "splice_wrong_subtype": "{1} splices only onto {2} spells, and {0} is not one",
    "splice_twice": "{1} is spliced onto {0} once at most",
    "face_down_without_morph": "{0} has no morph ability, so it can't be cast face down",
    "not_face_down": "{0} is not face down, so it can't be turned face up",
    "face_up_not_yours": "{1} doesn't control {0}, so can't turn it face up",
    "face_up_without_morph": "{0} would have no morph cost face up, so it can't be turned face up this way",
    "cast_only_after_blockers": "{0} can be cast only during combat after blockers are declared",
    "player_cant_cast": "{0} can't cast spells this turn",
    "named_card_cant_be_cast": "{0} can't be cast: {1} named its card",
    "split_second": "{0} has split second: while it is on the stack, no other spell can be cast and no ability "
    "but a mana ability activated",
    "sacrifice_cost_missing": "{0} has an additional cost: a permanent to sacrifice must be named",
    "sacrifice_cost_illegal": "{1} can't be sacrificed to pay the additional cost of {0}",
    # prevention shields (CR 615.7)
    "prevention_without_shield": "{0} has no prevention shield that would prevent this damage",
    "prevention_exceeds_damage": "{1} would not deal {2} damage to {0}, so the shield can't prevent that much of it",
    "prevention_amount": "the shield on {0} must prevent {2} damage (each 1 damage dealt while it lasts), not {1}",
    # damage assignment order (CR 509.2, 509.3)
    "wrong_step_order": "damage assignment orders are announced in the declare blockers step, not in the {0} step",
    "order_not_blocked": "{0} is not blocked, so it has no damage assignment order",
    "order_not_blocking": "{1} is in {0}'s damage assignment order but is not blocking it",
    "order_missing_blocker": "{0}'s damage assignment order leaves out {1}, which blocks it",
    "order_repeats_blocker": "{0}'s damage assignment order names {1} twice",
    "order_not_blocking_any": "{0} is not blocking, so it has no damage assignment order",
    "order_not_blocked_by": "{1} is in {0}'s damage assignment order but {0} does not block it",
    "order_missing_attacker": "{0}'s damage assignment order leaves out {1}, which it blocks",
    "order_repeats_attacker": "{0}'s damage assignment order names {1} twice",
    "orders_already_announced": "the damage assignment orders ({0}) were already announced in this combat",
    "order_left_out": "{0} needs a damage assignment order in this announcement",
    "orders_not_awaited": "no damage assignment order ({0}) is to be announced now: none blocks or is blocked by "
    "two or more creatures",
    "order_single_blocker": "only one creature blocks {0}: it has no damage assignment order to announce",
    "order_single_attacker": "{0} blocks only one creature: it has no damage assignment order to announce",
    "trigger_order_not_open": "{0} has no triggered abilities put on the stack together to order now",
    "named_card_not_nonland": "{1} is the name of no nonland card of the game, to name as {0} enters",
    "discard_not_in_hand": "{1} is not a card in {0}'s hand, to discard by choice",
    "champion_pick_not_choosable": "{2} is not another permanent of the quality {0} controls, to exile for {1}",
    "put_pick_not_choosable": "{2} is not a card of the quality in {0}'s hand, to put onto the battlefield for {1}",
    "discard_pick_not_choosable": "{2} is not a card of the quality in the revealed hand, for {0} to choose for {1}",
    "search_pick_not_choosable": "{2} is not a card of the quality in {0}'s library, to find for {1}",
    "unfound_not_hidden": "{2} is not a card in a hand or a library, for the search from {1} to leave unfound",
    "sacrifice_not_controlled": "{1} is not a permanent {0} controls, to sacrifice by choice",
    "attack_target_not_choosable": "{1} is neither a player nor a planeswalker, for {0} to attack as it enters",
    "chosen_value_not_of_its_kind": "{1} is none of the values to choose from as {0} enters",
    "trigger_order_not_yet": "{0} orders his or her triggered abilities after the active player orders theirs",
    "trigger_order_missing": "{0}'s order of the triggered abilities leaves out {1}",
    "trigger_order_not_among": "{1} is not one of the triggered abilities {0} puts on the stack now",
    "trigger_order_repeats": "the order names {0} twice",
    "trigger_order_same_place": "the order puts {0} and {1} in the same place",
    "attacker_orders_too_soon": "the defending player announces orders of blockers after the active player "
    "announces those of attackers",
}


def _plain(sym: clingo.Symbol) -> object:
    if sym.type == clingo.SymbolType.String:
        return sym.string
    if sym.type == clingo.SymbolType.Number:
        return sym.number
    if sym.type == clingo.SymbolType.Function and sym.name == "":
        return tuple(_plain(a) for a in sym.arguments)
    return str(sym)


def _requirement(sym: clingo.Symbol, describe: Callable[[str], str]) -> tuple[tuple[str, ...], str]:
    """Objects and words of a requirement term ``req(kind, ..., Effect)``."""
    kind = sym.arguments[0].name
    args = [str(_plain(a)) for a in sym.arguments[1:-1]]
    source = sym.arguments[-1]
    if source.type == clingo.SymbolType.Function and source.name == "s":
        via = f", by {describe(source.arguments[0].string)}"
    elif source.type == clingo.SymbolType.String and source.string != args[0]:
        via = f", by {describe(source.string)}"
    else:
        via = ""
    if kind == "attack":
        return (args[0],), f"attacks each combat if able{via}"
    if kind == "block_it" and source.type == clingo.SymbolType.Function and source.name == "provoke":
        return (args[0], args[1]), "must block {1} if able (provoked by it)"
    if kind == "block_it":
        return (args[0], args[1]), f"must block {{1}} (all creatures able to block it do so{via})"
    if kind == "block":
        return (args[0],), f"blocks each combat if able{via}"
    if kind == "be_blocked":
        return (args[0],), f"must be blocked if able{via}"
    return tuple(args), kind


@dataclass(frozen=True)
class Violation:
    """One rule an action breaks: the rule, the step rule above it, the objects, a message."""

    rule: str
    objects: tuple[str, ...]
    message: str
    reason: str
    step_rule: str | None = None
    world: str = field(default="declared", compare=False, repr=False)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules cited: the specific one and, if different, the step rule."""
        if self.step_rule and self.step_rule != self.rule:
            return (self.rule, self.step_rule)
        return (self.rule,)

    def __str__(self) -> str:
        return f"{' / '.join(self.rules)}: {self.message}"


@dataclass(frozen=True)
class Verdict:
    """Whether an action is legal, and why not."""

    legal: bool
    violations: tuple[Violation, ...] = field(default_factory=tuple)

    @property
    def rules(self) -> set[str]:
        """Every rule number the verdict cites."""
        return {r for v in self.violations for r in v.rules}

    def __bool__(self) -> bool:
        return self.legal

    def __str__(self) -> str:
        if self.legal:
            return "legal"
        return "illegal: " + "; ".join(str(v) for v in self.violations)


class ViolationReader:
    """Turns ``violation(World, Reason, Objects)`` atoms into a :class:`Verdict`.

    One reader serves one position: the same atom always reads as the same violation, so
    each is read once (many declarations checked on one position share most of them).
    """

    def __init__(self, cites: dict[str, tuple[str, str]], describe: Callable[[str], str]) -> None:
        self.cites = cites
        self.describe = describe
        self._read: dict[clingo.Symbol, Violation | None] = {}

    def verdict(self, model: frozenset[clingo.Symbol], world: str = "declared") -> Verdict:
        """The verdict on the world's declaration in a model."""
        found = []
        for sym in model:
            if sym not in self._read:
                self._read[sym] = self._violation(sym)
            v = self._read[sym]
            if v is not None and v.world == world:
                found.append(v)
        found.sort(key=lambda v: (v.step_rule or v.rule, v.rule, v.objects, v.reason))
        return Verdict(legal=not found, violations=tuple(found))

    def _violation(self, sym: clingo.Symbol) -> Violation | None:
        if not sym.match("violation", 3):
            return None
        world, reason_sym, detail = sym.arguments
        reason = reason_sym.name
        rule, step_rule = self.cites.get(reason, ("?", "?"))
        describe = self.describe
        if detail.type == clingo.SymbolType.Function and detail.name == "req":
            ids, words = _requirement(detail, describe)
            names = [describe(o) for o in ids]
            message = f"{names[0]} {words.format(*names)}: a legal declaration obeying more requirements exists"
        else:
            values = _plain(detail) if detail.type == clingo.SymbolType.Function else (_plain(detail),)
            if not isinstance(values, tuple):
                values = (values,)
            shown = [describe(v) if isinstance(v, str) else str(v) for v in values]
            template = MESSAGES.get(reason, reason.replace("_", " ") + ": {0}")
            message = template.format(*shown, *[""] * 3)
            ids = tuple(v for v in values if isinstance(v, str))
        return Violation(
            rule=rule, objects=tuple(ids), message=message, reason=reason, step_rule=step_rule, world=world.name
        )
