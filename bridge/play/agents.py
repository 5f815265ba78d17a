"""Who decides, what they may do, and the loop that asks them.

``decisions(game)`` names the player who must act now and the legal actions, as the rules
list them: choosing the targets of a triggered ability as it goes on the stack, declaring
attackers or blockers at the start of those steps (every legal declaration), announcing
damage assignment orders after blockers are declared (every order), announcing how combat
damage is assigned (every division that deals it differently), else, for the
player with priority, playing a land, casting a spell (with each legal choice of targets,
and each way to pay where it matters), activating an ability, activating a mana ability
with each color it makes, stating a choice open now that an event where nobody has priority
will ask for (declining a "you may" of the object that resolves next, champion's exile or
Time Vault's skip; a dredge for the next draw; the card Meddling Mage names), or passing.
Agents choose among them: :class:`ScriptedAgent` (a scenario's ``do``), :class:`RandomAgent`
(seeded), :class:`FirstLegalAgent`, and :class:`HumanAgent` (a text prompt).  :func:`play`
runs the loop and keeps the game log.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Sequence
from typing import Protocol

from bridge.engine.acting import (
    activate_object,
    permanent_card,
    spec_targets,
    target_choices,
    trigger_choices,
    ways_to_pay,
)
from bridge.engine.board import priority_now
from bridge.engine.choices import open_choices
from bridge.engine.combat import damage_choices, defender_has_choice, order_choices
from bridge.engine.game import Game
from bridge.engine.legal import Listing, listing, payments
from bridge.model.actions import (
    Action,
    Activate,
    Advance,
    AnswerOffer,
    AssignDamage,
    Cast,
    ChooseTargets,
    DeclareAttackers,
    DeclareBlockers,
    OrderAttackers,
    OrderBlockers,
    OrderTriggers,
    Pass,
    PlayLand,
    StateBasedActions,
    TurnFaceUp,
)
from bridge.model.cards import ActivatedAbility, Card
from bridge.model.errors import InputError
from bridge.model.state import GameState, StackObject

__all__ = [
    "Agent",
    "Decision",
    "FirstLegalAgent",
    "HumanAgent",
    "RandomAgent",
    "ScriptedAgent",
    "decisions",
    "describe_action",
    "game_over",
    "play",
]

MAX_X = 5


Group = Callable[[], list[Action]]


class Decision:
    """The player who must act and the actions open to him or her (never empty), listed
    when first asked for; ``can_pass`` tells without listing them whether passing is one.
    The actions may come in groups (with priority: a card in hand, a card with flashback, an
    activated ability, the mana abilities; declarations of attackers or blockers), each
    listed on its own when asked for: ``groups`` (None for a plain tuple).  ``sample``, when
    given, is a group of a few of the options that is cheap to list, for agents that sample
    (the legal declarations can be exponentially many).  ``choices``, when given, are options
    listed after the groups and before passing that stand beside a pass that takes a default
    (the divisions of combat damage, where a pass deals it as assigned by default; with
    priority, the choices stated ahead of an event that asks for them, where not stating one
    takes the default): ``options`` has them, the groups and ``first`` don't."""

    def __init__(
        self,
        player: str,
        options: tuple[Action, ...] | Sequence[Group] | Callable[[], Sequence[Group]],
        can_pass: bool = False,
        sample: Group | None = None,
        choices: Group | None = None,
    ) -> None:
        self.player = player
        self.can_pass = can_pass
        self.sample = _once(sample) if sample is not None else None
        self.choices = _once(choices) if choices is not None else None
        self._options = options if isinstance(options, tuple) else None
        self._make_groups = None if isinstance(options, tuple) else options
        self._groups: list[Group] | None = None

    @property
    def groups(self) -> list[Group] | None:
        if self._make_groups is None:
            return None
        if self._groups is None:
            made = self._make_groups() if callable(self._make_groups) else self._make_groups
            self._groups = [_once(g) for g in made]
        return self._groups

    @property
    def options(self) -> tuple[Action, ...]:
        if self._options is None:
            groups = self.groups
            assert groups is not None
            listed = [a for group in groups for a in group()]
            listed += self.choices() if self.choices is not None else []
            self._options = tuple(listed + ([Pass(by=self.player)] if self.can_pass else []))
        return self._options

    def first(self, skip: Callable[[Action], bool] = lambda action: False) -> Action:
        """The first option (but those ``skip`` says), listing only the groups up to the
        first that has one."""
        if self._options is None and self.groups is not None:
            for group in self.groups:
                found = [a for a in group() if not skip(a)]
                if found:
                    return found[0]
            return Pass(by=self.player)
        return next((o for o in self.options if not skip(o)), self.options[0])


class _Once:
    """A group listed once however often it is asked for."""

    def __init__(self, group: Group) -> None:
        self.group = group
        self.listed: list[list[Action]] = []

    def __call__(self) -> list[Action]:
        if not self.listed:
            self.listed.append(self.group())
        return self.listed[0]


def _once(group: Group) -> Group:
    """The group, listed once however often it is asked for."""
    return group if isinstance(group, _Once) else _Once(group)


def game_over(game: Game) -> bool:
    """CR 104.2-104.4: a player has lost (or both: a draw)."""
    return any(p.lost for p in game.state.players)


# ---------------------------------------------------------------------- what may be done
def decisions(game: Game, trigger_order: bool = True) -> Decision:
    """Who acts now and the legal actions (CR 115.1, 508.1, 509.1-509.3, 510.1, 603.3b,
    603.3d).  ``trigger_order`` False passes over the choice of order of a player's triggered
    abilities put on the stack together, leaving them in the order they were put (the next
    action makes that choice so): self-play's random agents play so, as they always have."""
    state = game.state
    if state.simultaneous_triggers and trigger_order and not state.awaiting_targets:
        # CR 603.3b: in APNAP order, a player whose abilities went on the stack together
        # chooses their order (each different order once, the order as put first)
        who = state.active if state.active in state.simultaneous_triggers else state.opponent(state.active)
        placings = tuple(trigger_orders(state, who))
        return Decision(who, placings, sample=lambda: [placings[0]])
    if state.awaiting_payment is not None:
        # CR 608.2f: a resolving object waits for a player's answer to its offer of a payment
        # (not paying, the default, first; paying when the rules say the mana can pay it)
        offer = state.awaiting_payment
        answers = [AnswerOffer(by=offer.player, pays=False)]
        paying = AnswerOffer(by=offer.player, pays=True)
        if game.check(paying).legal:
            # CR 601.2g: each way to pay that leaves different mana abilities untapped
            ways = ways_to_pay(game, paying)
            answers += [paying.model_copy(update={"pay": w}) for w in ways] if len(ways) > 1 else [paying]
        return Decision(offer.player, tuple(answers))
    if state.awaiting_targets:
        # CR 603.3d: a triggered ability being put on the stack waits for its controller to
        # choose its targets (the default choice first)
        item = state.awaiting_targets[0]
        return Decision(item.controller or state.active, tuple(trigger_choices(game)))
    receives, pending = priority_now(game)
    # CR 508.1, 509.1, 115.2c: a declaration the step waits for (the rules say which) comes
    # before anyone has priority
    if "declare_attackers" in pending:
        few = _once(functools.partial(_attack_options, game))
        return Decision(state.active, [few, functools.partial(_every_declaration, game, "attack", few)], sample=few)
    if "declare_blockers" in pending:
        few = _once(functools.partial(_block_options, game))
        return Decision(
            state.opponent(state.active), [few, functools.partial(_every_declaration, game, "block", few)], sample=few
        )
    if "order_blockers" in pending or "order_attackers" in pending:
        # CR 509.2-509.3: the active player announces the orders of the attackers' blockers,
        # then the defending player those of the attackers a creature blocks (the default
        # order first, the sample for agents that sample)
        orders = tuple(order_choices(game))
        who = state.active if "order_blockers" in pending else state.opponent(state.active)
        return Decision(who, orders, sample=lambda: [orders[0]])
    if not receives:
        # CR 502.3, 514.3: nobody has priority in the untap step, nor in a cleanup step where
        # none was given; the game goes on to the next step that has it (a position can
        # begin here)
        return Decision(state.active, (Advance(step="upkeep"),))
    player = state.priority_player()
    if "combat_damage" in pending:
        # CR 510.1-510.3, 704.3: the step's combat damage comes first; state-based actions are
        # performed when a player would next receive priority, after it (also in a position
        # that begins with some pending)
        return _damage_decision(game)
    if not game.log and game.state_based_actions():
        # CR 704.3: a position can begin with state-based actions pending (lethal damage, a
        # player at 0 life); they are performed before anyone acts, as whenever a player
        # would receive priority (a game keeps none pending from then on)
        return Decision(player, (StateBasedActions(),))
    # CR 514.1, 603.5, 608.2d, 614.10b, 614.12, 616.1, 701.7b, 701.14a, 702.49a, 702.69a: the choices the player
    # states ahead of an event that asks for them where nobody has priority, open now
    return Decision(
        player,
        functools.partial(_priority_groups, game, player),
        can_pass=True,
        choices=functools.partial(_open_choices, game, player),
    )


def _open_choices(game: Game, player: str) -> list[Action]:
    """The choices the player states ahead (``choose_order``) that the rules show open now,
    each once: stated, it stands, and is not offered again."""
    return [*open_choices(game, player)]


def trigger_orders(state: GameState, player: str) -> list[OrderTriggers]:
    """Every order of the player's triggered abilities put on the stack together (CR 603.3b),
    the order they were put first; orders that differ only in where two abilities alike (the
    same source's same ability, the same targets and X) stand are given once."""
    ids = state.simultaneous_triggers[player]
    items = {s.id: s for s in state.stack if s.id in ids}

    def alike(x: str) -> tuple[object, ...]:
        item = items[x]
        return (item.source, item.trigger, tuple(item.targets), item.x, item.card, item.ability)

    seen: set[tuple[tuple[object, ...], ...]] = set()
    out: list[OrderTriggers] = []
    for order in itertools.permutations(ids):
        signature = tuple(alike(x) for x in order)
        if signature not in seen:
            seen.add(signature)
            out.append(OrderTriggers(by=player, order=list(order)))
    return out


def _damage_decision(game: Game) -> Decision:
    """CR 510.1: in a combat damage step before damage is dealt, the active player announces
    how the attacking creatures assign their combat damage, then the defending player how the
    blocking creatures assign theirs; damage is dealt once both have (510.2), and the active
    player receives priority (510.4).  When the defending player has a choice (a creature
    blocking two or more attackers, or a shield of his or hers meeting two or more sources'
    damage, 615.7), each announcement is a decision of its own (the default first).
    Otherwise the active player's decision is as it has been: passing deals the damage as
    assigned by default and passes; each other division of the attacking creatures' damage
    (the default one first) deals it and leaves priority with the active player."""
    state = game.state
    active, defender = state.active, state.opponent(state.active)
    if state.announced_damage is not None:
        announced = tuple(damage_choices(game, defender))
        return Decision(defender, announced, sample=lambda: [announced[0]])
    if defender_has_choice(game):
        divisions = tuple(damage_choices(game, active))
        return Decision(active, divisions, sample=lambda: [divisions[0]])
    player = state.priority_player()
    return Decision(
        player,
        functools.partial(_priority_groups, game, player),
        can_pass=True,
        choices=functools.partial(_active_divisions, game),
    )


def _active_divisions(game: Game) -> list[Action]:
    """The active player's divisions of combat damage, when there is more than the default."""
    divisions = damage_choices(game, game.state.active)
    return list(divisions) if len(divisions) > 1 else []


def _every_declaration(game: Game, kind: str, few: Group) -> list[Action]:
    """Every legal declaration of attackers or blockers (CR 508.1, 509.1) that ``few`` does
    not already list: the optimal answer sets of the rules' search, listed when asked for."""
    listed = few()
    view = game.legal_attacks if kind == "attack" else game.legal_blocks
    return [d for d in view if d not in listed]


def _priority_options(game: Game, player: str) -> list[Action]:
    """Every action of the player with priority, passing last."""
    return [a for group in _priority_groups(game, player) for a in group()] + [Pass(by=player)]


def _priority_groups(game: Game, player: str) -> list[Group]:
    """The actions of the player with priority but passing, in groups listed when asked for:
    each card in hand (copies of one card together: the rules are asked once), each card
    with flashback in the graveyard, each activated ability of a permanent, the mana
    abilities.  One question of the rules (``listing``) tells which of them could be
    taken now; each group then asks for its targets."""
    state = game.state
    listed = listing(game, player)
    groups: list[Group] = []
    copies: dict[str, list[str]] = {}
    face_down: list[str] = []
    for card in state.player(player).hand:
        if card.id in listed.casts or card.id in listed.lands:
            copies.setdefault(card.card, []).append(card.id or card.card)
        elif game.pool.get(card.card).morph:
            face_down.append(card.id or card.card)
    for name, ids in copies.items():
        if any(i in listed.lands for i in ids):
            groups.append(functools.partial(_lands, [i for i in ids if i in listed.lands], player))
        else:
            groups.append(functools.partial(_hand_options, game, player, name, ids, listed))
    for card in state.player(player).graveyard:
        if card.id in listed.casts:
            spec = game.pool.get(card.card)
            groups.append(functools.partial(_cast_options, game, player, card.id or "", spec, listed, flashback=True))
    for perm in state.permanents():
        numbers = sorted(n for source, n in listed.abilities if source == perm.id)
        for number in numbers:
            groups.append(functools.partial(_activate_options, game, player, perm.id or "", number, listed))
    if face_down:
        # CR 702.34a: a morph card whose mana cost is out of reach may still be cast face down
        groups.append(functools.partial(_face_down_options, game, player, face_down))
    if listed.face_up:
        # CR 702.34d: turning a face-down permanent face up, a special action
        groups.append(functools.partial(_face_up_options, game, player, sorted(listed.face_up)))
    if listed.mana:
        # CR 605.3a: a player with priority may activate mana abilities, naming the color
        groups.append(functools.partial(_mana_options, listed.mana, player))
    return groups


def _face_down_options(game: Game, player: str, ids: list[str]) -> list[Action]:
    """CR 702.34a: casting each of these morph cards face down for {3} (the rules judge it)."""
    actions: list[Action] = [Cast(card=i, by=player, face_down=True) for i in ids]
    return [a for a in actions if game.check(a).legal]


def _face_up_options(game: Game, player: str, ids: list[str]) -> list[Action]:
    """CR 702.34d: turning each face-down permanent face up whose morph cost can be paid."""
    actions: list[Action] = [TurnFaceUp(permanent=i, by=player) for i in ids]
    return [a for a in actions if game.check(a).legal]


def _lands(ids: list[str], player: str) -> list[Action]:
    """CR 305.1: playing any copy of a land (the rules judged it whole)."""
    return [PlayLand(card=i, by=player) for i in ids]


def _mana_options(mana: tuple[tuple[str, str], ...], player: str) -> list[Action]:
    return [Activate(source=source, mana=True, color=color, by=player) for source, color in mana]


def _hand_options(game: Game, player: str, name: str, ids: list[str], listed: Listing) -> list[Action]:
    """Casting any copy of one card in the hand (the rules are asked about the first)."""
    spec = game.pool.get(name)
    actions = _cast_options(game, player, ids[0], spec, listed)
    # a copy is not spliced onto itself (CR 702.44a: another card of the hand)
    return [
        a.model_copy(update={"card": card_id})
        for card_id in ids
        for a in actions
        if card_id not in getattr(a, "splice", ())
    ]


def _cast_options(
    game: Game, player: str, card_id: str, spec: Card, listed: Listing, flashback: bool = False
) -> list[Action]:
    if card_id in listed.cast_now:
        # the rules judged it whole
        return _ways_to_pay(game, player, card_id, [Cast(card=card_id, by=player, flashback=flashback)], listed)
    xs = range(MAX_X + 1) if "{X}" in (spec.mana_cost or "") else [None]
    # a mode, or (CR 702.39a) with the entwine cost paid all of them
    modes: list[tuple[int | None, bool]] = [(n, False) for n in range(1, len(spec.modes) + 1)] or [(None, False)]
    if spec.entwine:
        modes.append((None, True))
    kicks = [False, True] if spec.kicker else [False]
    buybacks = [False, True] if spec.buyback else [False]
    splices = _splice_choices(game, player, card_id, spec)
    divided = spec.divided_amount()
    out: list[Action] = []
    for x, (mode, entwined), kicked, buyback, splice in itertools.product(xs, modes, kicks, buybacks, splices):
        item = StackObject(
            id=card_id,
            card=spec.name,
            controller=player,
            x=x,
            mode=mode,
            kicked=kicked,
            buyback=buyback,
            flashback=flashback,
            entwined=entwined,
            spliced=[c for i in splice for c in game.state.player(player).hand if c.id == i],
        )
        for targets in target_choices(game, item, "casting"):
            cast = Cast(
                card=card_id,
                by=player,
                targets=targets,
                x=x,
                mode=mode,
                kicked=kicked,
                buyback=buyback,
                flashback=flashback,
                entwined=entwined,
                splice=list(splice),
            )
            # CR 601.2d: each division of the amount among the targets, one or more each
            divisions = _divisions(divided, len(targets)) if divided is not None and targets else [None]
            for divide in divisions:
                shared = cast.model_copy(update={"divide": divide}) if divide else cast
                if spec.sacrifice_cost is None:
                    out.append(shared)
                    continue
                # CR 116.8: each permanent the player could sacrifice for the additional cost
                for perm in listed.sacrifices.get(card_id, ()):
                    with_cost = shared.model_copy(update={"sacrifice": [perm]})
                    if game.check(with_cost).legal:
                        out.append(with_cost)
    if spec.morph and not flashback:
        # CR 702.34a: face down for {3}, with nothing else to choose
        face_down = Cast(card=card_id, by=player, face_down=True)
        if game.check(face_down).legal:
            out.append(face_down)
    return _ways_to_pay(game, player, card_id, out, listed)


def _splice_choices(game: Game, player: str, card_id: str, spec: Card) -> list[tuple[str, ...]]:
    """CR 702.44a-b: the other cards in the player's hand with a splice ability, spliced onto a
    spell with a subtype: none, and each set of them in each order (their instructions are
    followed in the order chosen; the rules judge each as its targets are listed)."""
    if not spec.subtypes:
        return [()]
    hand = [c for c in game.state.player(player).hand if c.id != card_id and game.pool.get(c.card).splice]
    ids = [c.id or "" for c in hand]
    return [
        order
        for n in range(len(ids) + 1)
        for combo in itertools.combinations(ids, n)
        for order in itertools.permutations(combo)
    ]


def _divisions(amount: int, parts: int) -> list[list[int]]:
    """Every way to divide ``amount`` into ``parts`` whole shares of one or more, in order."""
    return [
        [b - a for a, b in zip((0, *cuts), (*cuts, amount), strict=True)]
        for cuts in itertools.combinations(range(1, amount), parts - 1)
    ]


def _ways_to_pay(game: Game, player: str, key: str, actions: list[Action], listed: Listing) -> list[Action]:
    """CR 601.2g: where the cost may be paid in ways that leave different mana abilities
    untapped, each action is offered once for each way (``pay``): at its least cost (no X,
    kicker, buyback, entwine, splice, nor face down) the ways the listing's grounding gives
    when the rules say there is a choice; with more chosen, or where the rules say the
    listing can't tell the least cost exactly (a cost to reduce, an X, a triggered mana
    ability: 601.2e, 605.4a), the ways the rules give for the action with all its choices,
    when the player's mana sources don't all make the same mana or a triggered mana ability
    may add mana."""
    kinds = {frozenset(c for s, c in listed.mana if s == source) for source, _ in listed.mana}
    judged = key in listed.judged_payment_choices
    if key not in listed.payment_choices and not judged and len(kinds) < 2:
        return actions
    least_ways = payments(game, player, key, listed.payment_choices) if key in listed.payment_choices else []
    out: list[Action] = []
    for action in actions:
        least = (
            not getattr(action, "x", None)
            and not getattr(action, "kicked", False)
            and not getattr(action, "buyback", False)
            and not getattr(action, "entwined", False)
            and not getattr(action, "splice", None)
            and not getattr(action, "face_down", False)
        )
        if least and not judged:
            ways = least_ways
        elif (judged or len(kinds) > 1) and isinstance(action, (Cast, Activate)):
            ways = ways_to_pay(game, action)
        else:
            ways = []
        out += [action.model_copy(update={"pay": way}) for way in ways] if len(ways) > 1 else [action]
    return out


def _activate_options(game: Game, player: str, source: str, number: int, listed: Listing) -> list[Action]:
    ability = permanent_card(game, source).activated[number - 1]
    return _cost_cards(game, player, source, ability, _activations(game, player, source, number, listed))


def _cost_cards(game: Game, player: str, source: str, ability: ActivatedAbility, actions: list[Action]) -> list[Action]:
    """CR 602.2b: each activation with each choice of the cards its cost takes: the cards
    discarded (116.3; cards of one name are one choice, 110.6d) and the card exiled with the
    source put into a graveyard (607.2b); the default choice unnamed, first."""
    state = game.state
    hand = state.player(player).hand
    discards: list[dict[str, object]] = [{}]
    if ability.discard_cost and len(hand) > ability.discard_cost:
        n = ability.discard_cost
        seen = {tuple(sorted(c.card for c in hand[len(hand) - n :]))}  # the default: the last ones
        for combo in itertools.combinations(hand, n):
            names = tuple(sorted(c.card for c in combo))
            if names not in seen:
                seen.add(names)
                discards.append({"discard": [c.id or "" for c in combo]})
    exiles: list[dict[str, object]] = [{}]
    if ability.exiled_card_cost:
        exiled = sorted((c.id or "", c.card) for p in state.players for c in p.exile if c.exiled_with == source)
        kinds = {card for _, card in exiled[:1]}  # the default: the smallest id
        for cid, card in exiled[1:]:
            if card not in kinds:
                kinds.add(card)
                exiles.append({"exiled": cid})
    if len(discards) == 1 and len(exiles) == 1:
        return actions
    return [a.model_copy(update={**d, **e}) for a in actions for d in discards for e in exiles]


def _activations(game: Game, player: str, source: str, number: int, listed: Listing) -> list[Action]:
    probe = Activate(source=source, ability=number, by=player)
    key = f"{source}/{number}"
    if (source, number) in listed.activate_now:
        return _ways_to_pay(game, player, key, [probe], listed)  # the rules judged it whole
    ability = permanent_card(game, source).activated[number - 1]
    if ability.sacrifice_cost is not None:
        # CR 602.2b, 601.2g: each permanent the player could sacrifice for the cost
        out: list[Action] = []
        for perm in listed.sacrifices.get(f"{source}/{number}", ()):
            with_cost = probe.model_copy(update={"sacrifice": [perm]})
            item = activate_object(game, with_cost)
            if not spec_targets(game, item):
                if game.check(with_cost).legal:
                    out.append(with_cost)
                continue
            out += [
                with_cost.model_copy(update={"targets": t})
                for t in target_choices(game, item, "activating")
                if game.check(with_cost.model_copy(update={"targets": t})).legal
            ]
        return _ways_to_pay(game, player, key, out, listed)
    item = activate_object(game, probe)
    return _ways_to_pay(
        game,
        player,
        key,
        [
            Activate(source=source, ability=number, by=player, targets=t)
            for t in target_choices(game, item, "activating")
        ],
        listed,
    )


def _attack_options(game: Game) -> list[Action]:
    """A few declarations of attackers, cheap to list: no attackers, each creature attacking
    alone, and all attacking together, as far as the rules allow them; when none of those is
    legal, a declaration that obeys the most requirements (CR 508.1d)."""
    state = game.state
    defender = state.opponent(state.active)
    checker = game.checker("attack")
    pairs = checker.possible_pairs()
    able = [p.id for p in state.permanents() if p.id and (p.id, defender) in pairs]
    candidates = [DeclareAttackers(attackers={})]
    candidates += [DeclareAttackers(attackers={c: defender}) for c in able]
    if len(able) > 1:
        candidates.append(DeclareAttackers(attackers={c: defender for c in able}))
    return [c for c in candidates if checker.check(c).legal] or [checker.best()]


def _block_options(game: Game) -> list[Action]:
    """A few declarations of blockers, cheap to list: no blockers and each creature blocking
    one attacker alone, as far as the rules allow them; when none of those is legal (two
    creatures must block a creature with Lure), a declaration that obeys the most
    requirements (CR 509.1c)."""
    state = game.state
    defender = state.opponent(state.active)
    attackers = [p.id for p in state.permanents() if p.attacking and p.id]
    blockers = [p.id for p in state.permanents() if state.controller_of(p) == defender and p.id]
    checker = game.checker("block")
    pairs = checker.possible_pairs()
    candidates = [DeclareBlockers(blockers={})]
    candidates += [DeclareBlockers(blockers={b: [a]}) for b in blockers for a in attackers if (b, a) in pairs]
    return [c for c in candidates if checker.check(c).legal] or [checker.best()]


# ---------------------------------------------------------------------- agents
class Agent(Protocol):
    def choose(self, game: Game, decision: Decision) -> Action: ...


class FirstLegalAgent:
    """Takes the first legal action (lands, then spells, then abilities, then pass; the
    default targets of a triggered ability).  Its policy (no rule): it doesn't activate mana
    abilities by hand (paying a cost taps what it needs)."""

    def choose(self, game: Game, decision: Decision) -> Action:
        return decision.first(skip=_by_hand)


def _by_hand(action: Action) -> bool:
    """A mana ability activated by hand."""
    return isinstance(action, Activate) and action.mana


class RandomAgent:
    """A seeded random choice; passing has the probability ``pass_rate`` when there is
    something else to do (by default as likely as all the other actions together).  With
    priority, the groups of actions (a card, an ability) are tried in a random order and an
    action is chosen at random in the first group that has one, so that only the groups
    tried are listed.

    Its policy (no rule): it doesn't activate mana abilities by hand (paying a cost taps
    what it needs), and it declares attackers or blockers among the few declarations of the
    decision's ``sample`` (no attack, each creature alone, all together; no block, each
    blocker alone), not among every legal declaration, which can be exponentially many."""

    def __init__(self, seed: int, pass_rate: float = 0.5) -> None:
        self.random = random.Random(seed)
        self.pass_rate = pass_rate

    def choose(self, game: Game, decision: Decision) -> Action:
        if decision.can_pass and self.random.random() < self.pass_rate:
            return Pass(by=decision.player)  # decided before listing the other actions
        if decision.sample is not None:
            return self.random.choice(decision.sample())
        if decision.groups is not None:
            order = list(decision.groups)
            self.random.shuffle(order)
            for group in order:
                actions = [a for a in group() if not _by_hand(a)]
                if actions:
                    return self.random.choice(actions)
            return Pass(by=decision.player)
        others = [o for o in decision.options if not isinstance(o, Pass)]
        if not others:
            return next(o for o in decision.options if isinstance(o, Pass))
        return self.random.choice(others)


class ScriptedAgent:
    """Plays a list of actions, then passes; where the game waits for the targets of a
    triggered ability and the next action is no such choice, the default choice."""

    def __init__(self, actions: Sequence[Action]) -> None:
        self.actions = list(actions)

    def choose(self, game: Game, decision: Decision) -> Action:
        if game.state.awaiting_targets and not (self.actions and isinstance(self.actions[0], ChooseTargets)):
            return decision.options[0]
        if game.state.awaiting_payment and not (self.actions and isinstance(self.actions[0], AnswerOffer)):
            return decision.options[0]
        if self.actions:
            return self.actions.pop(0)
        return next((o for o in decision.options if isinstance(o, Pass)), decision.options[0])


class HumanAgent:
    """A person at a text prompt: the board, the stack and the numbered legal actions."""

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write

    def choose(self, game: Game, decision: Decision) -> Action:
        self.write(describe_game(game))
        self.write(f"{decision.player}, choose:")
        for i, option in enumerate(decision.options, start=1):
            self.write(f"  {i}. {describe_action(game, option)}")
        while True:
            answer = self.read("> ").strip()
            if answer in ("q", "quit"):
                raise KeyboardInterrupt
            if answer.isdigit() and 1 <= int(answer) <= len(decision.options):
                return decision.options[int(answer) - 1]
            self.write(f"type a number from 1 to {len(decision.options)}, or q to quit")


def describe_action(game: Game, action: Action) -> str:
    """An action in words."""
    d = game.describe
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, PlayLand):
        return f"play {d(action.card)}"
    if isinstance(action, Cast):
        text = f"cast {d(action.card)}"
        if action.face_down:
            text += " face down"
        if action.flashback:
            text += " by flashback"
        if action.mode is not None:
            text += f", mode {action.mode}"
        options = [word for word, on in (("kicked", action.kicked), ("buyback", action.buyback)) if on]
        options += ["entwined"] if action.entwined else []
        options += [f"{d(c)} spliced" for c in action.splice]
        if options:
            text += f" ({', '.join(options)})"
        if action.x is not None:
            text += f" with X = {action.x}"
        return text + (f" targeting {', '.join(d(t) for t in action.targets)}" if action.targets else "")
    if isinstance(action, Activate) and action.mana:
        return f"tap {d(action.source)} for {action.color or 'its'} mana"
    if isinstance(action, Activate):
        text = f"activate {d(action.source)}'s ability {action.ability or 1}"
        return text + (f" targeting {', '.join(d(t) for t in action.targets)}" if action.targets else "")
    if isinstance(action, ChooseTargets):
        return f"{d(action.ability)} targets " + (", ".join(d(t) for t in action.targets) or "nothing")
    if isinstance(action, DeclareAttackers):
        return "attack with " + (", ".join(f"{d(c)} -> {d(t)}" for c, t in action.attackers.items()) or "nothing")
    if isinstance(action, DeclareBlockers):
        return "block with " + (
            ", ".join(f"{d(b)} -> {', '.join(d(a) for a in v)}" for b, v in action.blockers.items()) or "nothing"
        )
    if isinstance(action, (OrderBlockers, OrderAttackers)):
        return "order " + "; ".join(f"{d(c)}: {', '.join(d(x) for x in v)}" for c, v in action.orders.items())
    if isinstance(action, OrderTriggers):
        return "put on the stack in the order " + ", ".join(d(x) for x in action.order)
    if isinstance(action, AssignDamage):
        parts = [
            f"{d(c)} -> " + ", ".join(f"{n} to {d(x)}" for x, n in v.items()) for c, v in action.assignments.items()
        ]
        return "assign combat damage: " + ("; ".join(parts) or "as by default")
    return action.kind


def describe_game(game: Game) -> str:
    """The board as lines of text."""
    state = game.state
    lines = [f"turn {state.turn}, {state.active}'s {state.step} step; {state.priority_player()} has priority"]
    for p in state.players:
        lines.append(
            f"{p.name}: life {p.life}, library {len(p.library)}, hand "
            f"{', '.join(c.card for c in p.hand) or '-'}" + (f", pool {p.mana_pool}" if p.mana_pool else "")
        )
        for perm in p.battlefield:
            flags = [f for f, on in (("tapped", perm.tapped), ("sick", perm.sick)) if on]
            if perm.attacking:
                flags.append(f"attacking {perm.attacking}")
            if perm.blocking:
                flags.append(f"blocking {', '.join(perm.blocking)}")
            if perm.damage:
                flags.append(f"{perm.damage} damage")
            lines.append(f"  {game.describe(perm.id or '')}" + (f" ({', '.join(flags)})" if flags else ""))
    if state.stack:
        lines.append(
            "stack (top first): "
            + ", ".join(s.label() + (f" -> {', '.join(s.targets)}" if s.targets else "") for s in state.stack)
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------- the loop
def play(
    game: Game,
    agents: dict[str, Agent],
    max_actions: int = 1000,
    on_action: Callable[[Game, Action], None] | None = None,
) -> Game:
    """Ask the agents until the game ends or ``max_actions`` actions were applied."""
    for _ in range(max_actions):
        if game_over(game):
            break
        decision = decisions(game)
        if decision.player not in agents:
            raise InputError(f"no agent plays for {decision.player!r}")
        action = agents[decision.player].choose(game, decision)
        game.push(action)
        if on_action is not None:
            on_action(game, action)
    return game
