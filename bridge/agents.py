"""Who decides, what they may do, and the loop that asks them.

``decisions(game)`` names the player who must act now and the legal actions (the rules judge
each one): declaring attackers or blockers at the start of those steps, else, for the player
with priority, playing a land, casting a spell (with each legal choice of targets),
activating an ability, or passing.  Agents choose among them: :class:`ScriptedAgent` (a
scenario's ``do``), :class:`RandomAgent` (seeded), :class:`FirstLegalAgent`, and
:class:`HumanAgent` (a text prompt).  :func:`play` runs the loop and keeps the game log.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol


from bridge import stack
from bridge.errors import InputError
from bridge.facts import asp_string
from bridge.game import Game
from bridge.cards import TargetSpec, mana_symbols
from bridge.models import (Action, Activate, Advance, Cast, DeclareAttackers, DeclareBlockers, Pass, PlayLand,
                           StackObject, StateBasedActions)
from bridge.solver import answer

__all__ = ["Decision", "decisions", "Agent", "ScriptedAgent", "RandomAgent", "FirstLegalAgent", "HumanAgent", "play",
           "describe_action", "game_over"]

MAX_X = 5


Group = Callable[[], list[Action]]


class Decision:
    """The player who must act and the actions open to him or her (never empty), listed
    when first asked for; ``can_pass`` tells without listing them whether passing is one.
    With priority the actions come in groups (a card in hand, a card with flashback, an
    activated ability), each listed on its own when asked for: ``groups``."""

    def __init__(self, player: str, options: "tuple[Action, ...] | Sequence[Group]", can_pass: bool = False) -> None:
        self.player = player
        self.can_pass = can_pass
        self._options = options if isinstance(options, tuple) else None
        self.groups: list[Group] | None = None if isinstance(options, tuple) else [_once(g) for g in options]

    @property
    def options(self) -> tuple[Action, ...]:
        if self._options is None:
            assert self.groups is not None
            listed = [a for group in self.groups for a in group()]
            self._options = tuple(listed + ([Pass(by=self.player)] if self.can_pass else []))
        return self._options


def _once(group: Group) -> Group:
    listed: list[list[Action]] = []

    def once() -> list[Action]:
        if not listed:
            listed.append(group())
        return listed[0]
    return once


def game_over(game: Game) -> bool:
    """CR 104.2-104.4: a player has lost (or both: a draw)."""
    return any(p.lost for p in game.state.players)


# ---------------------------------------------------------------------- what may be done
def decisions(game: Game) -> Decision:
    """Who acts now and the legal actions (CR 115.1, 508.1, 509.1)."""
    state = game.state
    fresh = not state.passed and not state.stack
    if state.step == "declare_attackers" and fresh and "attackers" not in state.declared \
            and not any(p.attacking for p in state.permanents()):
        return Decision(state.active, tuple(_attack_options(game)))
    if state.step == "declare_blockers" and fresh and "blockers" not in state.declared \
            and not any(p.blocking for p in state.permanents()) and any(p.attacking for p in state.permanents()):
        return Decision(state.opponent(state.active), tuple(_block_options(game)))
    if not stack._priority_step(game):
        # CR 502.3, 514.3: nobody has priority in the untap step, nor in a cleanup step where
        # none was given; the game goes on to the next step that has it (a position can
        # begin here)
        return Decision(state.active, (Advance(step="upkeep"),))
    player = state.priority_player()
    if not game.log and game.state_based_actions():
        # CR 704.3: a position can begin with state-based actions pending (lethal damage, a
        # player at 0 life); they are performed before anyone acts, as whenever a player
        # would receive priority (a game keeps none pending from then on)
        return Decision(player, (StateBasedActions(),))
    return Decision(player, _priority_groups(game, player), can_pass=True)


def _mana_within_reach(game: Game, player: str) -> int | None:
    """An upper bound on the mana the player could have for a spell now: the mana pool and
    one mana from each untapped permanent he or she controls (a mana ability makes one mana);
    None when some effect could lower costs (then no spell is ruled out by its cost)."""
    if "reduces_cost_of" in game.position.facts:
        return None
    state = game.state
    untapped = sum(1 for p in state.permanents() if state.controller_of(p) == player and not p.tapped)
    return untapped + state.player(player).mana_pool.count("{")


def _cant_cast_now(game: Game, player: str, spec: object, reach: int | None) -> bool:
    """A spell certainly can't be cast now: a sorcery-speed spell outside its owner's main
    phase with an empty stack (CR 307.1, 301.1, 302.1, 303.1, 304.1 ...), or one costing more
    than the mana within reach (601.2e-g). The rules judge every other one."""
    from bridge.cards import Card
    assert isinstance(spec, Card)
    state = game.state
    if state.player(player).cant_cast_spells:
        return True  # CR 101.2 (Silence)
    sorcery_speed = "instant" not in spec.types and "flash" not in spec.abilities
    if sorcery_speed and (state.stack or state.step not in ("main1", "main2") or state.active != player):
        return True
    return reach is not None and spec.mana_value() > reach


def _cant_activate_now(game: Game, player: str, source: str, ability: object) -> bool:
    """An ability certainly can't be activated now: {T} in its cost and its permanent tapped
    (CR 602.2b, 601.2g), sorcery timing outside its controller's main phase with an empty
    stack (602.5d, 606.3), or a cost above the mana within reach.  The rules judge the rest."""
    from bridge.cards import ActivatedAbility
    assert isinstance(ability, ActivatedAbility)
    state = game.state
    perm = next((p for p in state.permanents() if p.id == source), None)
    if perm is None or (ability.tap and perm.tapped):
        return True
    if (ability.sorcery_speed or ability.loyalty is not None) and \
            (state.stack or state.step not in ("main1", "main2") or state.active != player):
        return True
    reach = _mana_within_reach(game, player)
    cost = sum(n for kind, n in mana_symbols(ability.cost).items() if kind != "x")
    return reach is not None and cost > reach


def _priority_options(game: Game, player: str) -> list[Action]:
    """Every action of the player with priority, passing last."""
    return [a for group in _priority_groups(game, player) for a in group()] + [Pass(by=player)]


def _priority_groups(game: Game, player: str) -> list[Group]:
    """The actions of the player with priority but passing, in groups listed when asked for:
    each card in hand (copies of one card together: the rules are asked once), each card
    with flashback in the graveyard, each activated ability of a permanent."""
    state = game.state
    reach = _mana_within_reach(game, player)
    groups: list[Group] = []
    copies: dict[str, list[str]] = {}
    for card in state.player(player).hand:
        copies.setdefault(card.card, []).append(card.id or card.card)
    for name, ids in copies.items():
        groups.append(functools.partial(_hand_options, game, player, name, ids, reach))
    for card in state.player(player).graveyard:
        spec = game.pool.get(card.card)
        if spec.flashback:
            groups.append(functools.partial(_cast_options, game, player, card.id or "", spec, flashback=True))
    for perm in state.permanents():
        if state.controller_of(perm) != player:
            continue
        for number, _ in enumerate(stack.permanent_card(game, perm.id or "").activated, start=1):
            groups.append(functools.partial(_activate_options, game, player, perm.id or "", number))
    return groups


def _hand_options(game: Game, player: str, name: str, ids: list[str], reach: int | None) -> list[Action]:
    """Playing or casting any copy of one card in the hand."""
    state = game.state
    spec = game.pool.get(name)
    if "land" in spec.types:
        action = PlayLand(card=ids[0], by=player)
        # CR 305.2, 305.3: one land a turn, in a main phase of one's own turn with the
        # stack empty; the rules judge the rest
        certainly_not = state.player(player).lands_played >= 1 or state.stack or state.active != player \
            or state.step not in ("main1", "main2")
        actions: list[Action] = [action] if not certainly_not and game.check(action).legal else []
    elif _cant_cast_now(game, player, spec, reach):
        actions = []
    else:
        actions = _cast_options(game, player, ids[0], spec)
    return [a.model_copy(update={"card": card_id}) for card_id in ids for a in actions]


def _legal_targets(game: Game, item: StackObject, marker: str) -> tuple[dict[int, list[str]], bool]:
    """Every legal target of each of the object's targets, and whether it is otherwise
    legal (timing, costs), in one question: every candidate is put in as a chosen target."""
    state = game.state
    candidates = [p.id for p in state.permanents()] + [p.name for p in state.players] + \
                 [s.id for s in state.stack] + [c.id for p in state.players for c in p.graveyard]
    trial = item.model_copy(update={"targets": []})
    facts = stack._acting_facts(game, trial, marker, None)
    oid = asp_string(item.id or "")
    slots = len(_spec_targets(game, item))
    facts += "\n" + "\n".join(f"stack_target({oid}, {i}, {asp_string(c or '')})."
                              for i in range(1, slots + 1) for c in candidates)
    model = answer(game.modules(*stack.ACTING), facts).model
    legal: dict[int, list[str]] = {i: [] for i in range(1, slots + 1)}
    for s in model:
        if s.match("legal_target", 3) and s.arguments[0].string == item.id:
            legal[s.arguments[1].number].append(s.arguments[2].string)
    target_reasons = {"missing_target", "illegal_target", "extra_target", "target_itself", "target_shroud",
                      "target_protection", "same_target_twice", "sacrifice_cost_missing"}
    other = [s for s in model if s.match("violation", 3) and s.arguments[1].name not in target_reasons]
    return {i: sorted(v) for i, v in legal.items()}, not other


# CR 702.36a: provoke's target, "target creature defending player controls"
PROVOKE_TARGET = TargetSpec.model_validate({"quality": "creature", "controller": "opponent"})


def _spec_targets(game: Game, item: StackObject) -> list[object]:
    if item.keyword == "provoke":
        return [PROVOKE_TARGET]
    if item.card is not None:
        card = game.pool.get(item.card)
        if item.mode is not None:
            return list(card.modes[item.mode - 1].targets)
        return list(card.spell_targets())
    card = stack.ability_card(game, item)
    if item.trigger is not None:
        return list(card.triggered[item.trigger - 1].targets)
    return list(card.activated[(item.ability or 1) - 1].targets)


def _choices(game: Game, item: StackObject, marker: str) -> Iterator[list[str]]:
    """The legal choices of targets: each slot's legal targets; "up to" slots may be left
    out at the end (CR 601.2c); slots sharing one word "target" take different ones (113.3)."""
    legal, otherwise_ok = _legal_targets(game, item, marker)
    if not otherwise_ok:
        return
    specs = _spec_targets(game, item)
    slots = [legal[i] for i in sorted(legal)]
    required = len(slots)
    while required and getattr(specs[required - 1], "up_to", False):
        required -= 1
    # the first slot of each slot's word "target": "up to three target creatures" is one word
    word = [0] * len(slots)
    for i in range(1, len(slots)):
        word[i] = word[i - 1] if getattr(specs[i], "same_word", False) else i
    for n in range(required, len(slots) + 1):
        if any(not s for s in slots[:n]):
            continue
        for combo in itertools.product(*slots[:n]):
            if any(combo[i] in combo[word[i]:i] for i in range(1, n)):
                continue
            yield list(combo)


def _cast_options(game: Game, player: str, card_id: str, spec: object, flashback: bool = False) -> list[Action]:
    from bridge.cards import Card
    assert isinstance(spec, Card)
    xs = range(0, MAX_X + 1) if "{X}" in (spec.mana_cost or "") else [None]
    modes: list[int | None] = list(range(1, len(spec.modes) + 1)) or [None]
    kicks = [False, True] if spec.kicker else [False]
    out: list[Action] = []
    for x, mode, kicked in itertools.product(xs, modes, kicks):
        item = StackObject(id=card_id, card=spec.name, controller=player, x=x, mode=mode, kicked=kicked,
                           flashback=flashback)
        for targets in _choices(game, item, "casting"):
            cast = Cast(card=card_id, by=player, targets=targets, x=x, mode=mode, kicked=kicked, flashback=flashback)
            if spec.sacrifice_cost is None:
                out.append(cast)
                continue
            # CR 116.8: each permanent the player could sacrifice for the additional cost
            for perm in game.state.permanents():
                if perm.id and game.state.controller_of(perm) == player:
                    with_cost = cast.model_copy(update={"sacrifice": [perm.id]})
                    if game.check(with_cost).legal:
                        out.append(with_cost)
    return out


def _activate_options(game: Game, player: str, source: str, number: int) -> list[Action]:
    probe = Activate(source=source, ability=number, by=player)
    ability = stack.permanent_card(game, source).activated[number - 1]
    if _cant_activate_now(game, player, source, ability):
        return []
    if ability.sacrifice_cost is not None:
        # CR 602.2b, 601.2g: each permanent the player could sacrifice for the cost
        out: list[Action] = []
        for perm in game.state.permanents():
            if perm.id and game.state.controller_of(perm) == player:
                with_cost = probe.model_copy(update={"sacrifice": [perm.id]})
                item = stack.activate_object(game, with_cost)
                if not _spec_targets(game, item):
                    if game.check(with_cost).legal:
                        out.append(with_cost)
                    continue
                out += [with_cost.model_copy(update={"targets": t}) for t in _choices(game, item, "activating")
                        if game.check(with_cost.model_copy(update={"targets": t})).legal]
        return out
    item = stack.activate_object(game, probe)
    return [Activate(source=source, ability=number, by=player, targets=t) for t in _choices(game, item, "activating")]


def _attack_options(game: Game) -> list[Action]:
    """Declaring no attackers, each creature attacking alone, and all attacking together, as
    far as the rules allow them (a full list can be exponential); when none of those is
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
    """Declaring no blockers and each creature blocking one attacker alone, as far as the
    rules allow them; when none of those is legal (two creatures must block a creature with
    Lure), a declaration that obeys the most requirements (CR 509.1c)."""
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
    """Takes the first legal action (lands, then spells, then abilities, then pass)."""

    def choose(self, game: Game, decision: Decision) -> Action:
        return decision.options[0]


class RandomAgent:
    """A seeded random choice; passing has the probability ``pass_rate`` when there is
    something else to do (by default as likely as all the other actions together).  With
    priority, the groups of actions (a card, an ability) are tried in a random order and an
    action is chosen at random in the first group that has one, so that only the groups
    tried are listed."""

    def __init__(self, seed: int, pass_rate: float = 0.5) -> None:
        self.random = random.Random(seed)
        self.pass_rate = pass_rate

    def choose(self, game: Game, decision: Decision) -> Action:
        if decision.can_pass and self.random.random() < self.pass_rate:
            return Pass(by=decision.player)  # decided before listing the other actions
        if decision.groups is not None:
            order = list(decision.groups)
            self.random.shuffle(order)
            for group in order:
                actions = group()
                if actions:
                    return self.random.choice(actions)
            return Pass(by=decision.player)
        others = [o for o in decision.options if not isinstance(o, Pass)]
        if not others:
            return next(o for o in decision.options if isinstance(o, Pass))
        return self.random.choice(others)


class ScriptedAgent:
    """Plays a list of actions, then passes."""

    def __init__(self, actions: Sequence[Action]) -> None:
        self.actions = list(actions)

    def choose(self, game: Game, decision: Decision) -> Action:
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
        if action.x is not None:
            text += f" with X = {action.x}"
        return text + (f" targeting {', '.join(d(t) for t in action.targets)}" if action.targets else "")
    if isinstance(action, Activate):
        text = f"activate {d(action.source)}'s ability {action.ability or 1}"
        return text + (f" targeting {', '.join(d(t) for t in action.targets)}" if action.targets else "")
    if isinstance(action, DeclareAttackers):
        return "attack with " + (", ".join(f"{d(c)} -> {d(t)}" for c, t in action.attackers.items()) or "nothing")
    if isinstance(action, DeclareBlockers):
        return "block with " + (", ".join(f"{d(b)} -> {', '.join(d(a) for a in v)}"
                                         for b, v in action.blockers.items()) or "nothing")
    return action.kind


def describe_game(game: Game) -> str:
    """The board as lines of text."""
    state = game.state
    lines = [f"turn {state.turn}, {state.active}'s {state.step} step; {state.priority_player()} has priority"]
    for p in state.players:
        lines.append(f"{p.name}: life {p.life}, library {len(p.library)}, hand "
                     f"{', '.join(c.card for c in p.hand) or '-'}" + (f", pool {p.mana_pool}" if p.mana_pool else ""))
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
        lines.append("stack (top first): " + ", ".join(
            s.label() + (f" -> {', '.join(s.targets)}" if s.targets else "")
            for s in state.stack))
    return "\n".join(lines)


# ---------------------------------------------------------------------- the loop
def play(game: Game, agents: dict[str, Agent], max_actions: int = 1000,
         on_action: Callable[[Game, Action], None] | None = None) -> Game:
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
