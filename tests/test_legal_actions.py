"""Every action the rules accept is offered: the converse of "every offered action is legal".

Positions: random self-play positions from the shipped decks and the positions of the
scenarios, sampled with fixed seeds.  In each, candidate
actions are made broadly, with no rule in mind: every card in the player's hand and
graveyard cast (each X, mode, entwine, kicker and buyback, with each combination of targets
among all objects and players), played as a land, every activated ability of every permanent (with
each target and each permanent sacrificed), every mana ability of every permanent with each
color, every legal declaration of attackers or blockers, every choice of targets of a
triggered ability waiting for them, and the announcements of damage assignment orders and of
divisions of combat damage made by itertools (:func:`bridge.play.brute.choice_candidates`).
Each is pushed (and popped); each one accepted must be among ``decisions(game).options`` (a
division of combat damage: one offered that deals the damage alike, ``choice_key``).

To keep the run short, a spell or ability is tried with its targets only when tried without
them it breaks no rule but those about targets (timing, priority and costs don't depend on
the targets), and a permanent is tried with the other colors only when the first one was
refused for a reason about the color.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from bridge.engine import solver
from bridge.engine.acting import ACTING, ability_card, permanent_card, spec_targets
from bridge.engine.board import LegalAttacks, LegalBlocks
from bridge.engine.game import Game
from bridge.model.actions import (
    Action,
    Activate,
    AnswerOffer,
    AssignDamage,
    Cast,
    ChooseTargets,
    DeclareAttackers,
    DeclareBlockers,
    Pass,
    PlayLand,
)
from bridge.model.errors import IllegalActionError, InputError, MtgaspError
from bridge.model.scenario import load_scenario
from bridge.play.agents import Decision, RandomAgent, decisions, game_over
from bridge.play.brute import choice_candidates, choice_key
from bridge.play.selfplay import load_deck, shipped_decks, start_game

ROOT = Path(__file__).resolve().parent.parent
COLORS = ("white", "blue", "black", "red", "green", "colorless")
# reasons a verdict gives that the targets (or the sacrifice) chosen decide
TARGET_REASONS = {
    "missing_target",
    "illegal_target",
    "extra_target",
    "target_itself",
    "target_shroud",
    "target_protection",
    "same_target_twice",
    "sacrifice_cost_missing",
    "sacrifice_cost_illegal",
}
COLOR_REASONS = {"no_such_mana", "mana_color_unnamed"}
MAX_DECLARATIONS = 256


def _objects(game: Game) -> list[str]:
    state = game.state
    return (
        [p.id or "" for p in state.permanents()]
        + [p.name for p in state.players]
        + [s.id or "" for s in state.stack]
        + [c.id or "" for p in state.players for z in ("graveyard", "hand", "exile") for c in getattr(p, z)]
    )


def _accepted(game: Game, action: Action) -> tuple[bool, set[str]]:
    """Whether ``game.push`` takes the action (then popped), and the reasons if not."""
    try:
        game.push(action)
    except IllegalActionError as exc:
        return False, {v.reason for v in exc.verdict.violations}  # type: ignore[union-attr]
    except InputError:
        return False, {"input"}
    game.pop()
    return True, set()


def _with_targets(game: Game, action: Action, slots: int, seen: list[Action]) -> None:
    """The action tried as it is, then, if only its targets were wrong, with each
    combination of targets among all objects (for one or two targets; three: each object
    for the first)."""
    ok, reasons = _accepted(game, action)
    if ok:
        seen.append(action)
        return
    if reasons - TARGET_REASONS or slots == 0:
        return
    objects = _objects(game)
    for n in range(1, slots + 1):
        combos = itertools.product(objects, repeat=n) if n <= 2 else ([o] + [objects[0]] * (n - 1) for o in objects)
        for combo in combos:
            trial = action.model_copy(update={"targets": list(combo)})
            if _accepted(game, trial)[0]:
                seen.append(trial)


def _candidates(game: Game, decision: Decision) -> list[Action]:
    """The actions the rules accept among the broad candidates."""
    state = game.state
    player = decision.player
    seen: list[Action] = []
    if state.awaiting_targets:
        item = state.awaiting_targets[0]
        objects = _objects(game)
        # a modal ability whose mode is still to be chosen: each mode number, and none (603.3c)
        modes = len(ability_card(game, item).triggered[(item.trigger or 1) - 1].modes) if item.trigger else 0
        for mode in [None, *range(1, modes + 1)] if item.mode is None and modes else [None]:
            slots = len(spec_targets(game, item.model_copy(update={"mode": mode})))
            for combo in itertools.chain.from_iterable(itertools.product(objects, repeat=n) for n in range(slots + 1)):
                choice = ChooseTargets(ability=item.id or "", targets=list(combo), mode=mode, by=item.controller)
                if _accepted(game, choice)[0]:
                    seen.append(choice)
        for other in (Pass(by=player),):
            if _accepted(game, other)[0]:
                seen.append(other)
        return seen
    view = _declarations(game, decision)
    if view is not None:
        for declaration in view:
            if _accepted(game, declaration)[0]:
                seen.append(declaration)
        return seen
    seen += [c for c in choice_candidates(game) if _accepted(game, c)[0]]
    if not decision.can_pass:
        return seen + [o for o in decision.options if _accepted(game, o)[0]]
    me = state.player(player)
    if _accepted(game, Pass(by=player))[0]:
        seen.append(Pass(by=player))
    for card in me.hand:
        if _accepted(game, PlayLand(card=card.id or "", by=player))[0]:
            seen.append(PlayLand(card=card.id or "", by=player))
    for card, flashback in [(c, False) for c in me.hand] + [(c, True) for c in me.graveyard]:
        spec = game.pool.get(card.card)
        if "land" in spec.types:
            continue
        xs = range(6) if "{X}" in (spec.mana_cost or "") else [None]
        modes: list[tuple[int | None, bool]] = [(n, False) for n in range(1, len(spec.modes) + 1)] or [(None, False)]
        if spec.entwine:
            modes.append((None, True))
        kicks = (False, True) if spec.kicker else (False,)
        buybacks = (False, True) if spec.buyback else (False,)
        for x, (mode, entwined), kicked, buyback in itertools.product(xs, modes, kicks, buybacks):
            if entwined:
                item_targets = sum(len(m.targets) for m in spec.modes)
            else:
                item_targets = len(spec.modes[mode - 1].targets) if mode else len(spec.spell_targets())
            cast = Cast(
                card=card.id or "",
                by=player,
                x=x,
                mode=mode,
                kicked=kicked,
                buyback=buyback,
                flashback=flashback,
                entwined=entwined,
            )
            if spec.sacrifice_cost is not None:
                for perm in state.permanents():
                    _with_targets(game, cast.model_copy(update={"sacrifice": [perm.id]}), item_targets, seen)
            else:
                _with_targets(game, cast, item_targets, seen)
    for perm in state.permanents():
        card = permanent_card(game, perm.id or "")
        for number, ability in enumerate(card.activated, start=1):
            probe = Activate(source=perm.id or "", ability=number, by=player)
            if ability.sacrifice_cost is not None:
                for other in state.permanents():
                    _with_targets(game, probe.model_copy(update={"sacrifice": [other.id]}), len(ability.targets), seen)
            else:
                _with_targets(game, probe, len(ability.targets), seen)
        ok, reasons = _accepted(game, Activate(source=perm.id or "", color=COLORS[0], by=player))
        if ok:
            seen.append(Activate(source=perm.id or "", color=COLORS[0], by=player))
        if ok or reasons <= COLOR_REASONS:
            for color in COLORS[1:]:
                if _accepted(game, Activate(source=perm.id or "", color=color, by=player))[0]:  # type: ignore[arg-type]
                    seen.append(Activate(source=perm.id or "", color=color, by=player))  # type: ignore[arg-type]
    return seen


def _declarations(game: Game, decision: Decision) -> LegalAttacks | LegalBlocks | None:
    """The legal declarations, where the decision is one of attackers or blockers."""
    if decision.sample is None:
        return None
    first = decision.sample()[0]
    if isinstance(first, DeclareAttackers):
        return game.legal_attacks
    return game.legal_blocks if isinstance(first, DeclareBlockers) else None


def _unpaid(action: Action) -> Action:
    """An action without its choice of payment (an accepted action paid by default is offered
    with some ``pay``, or without one)."""
    return action.model_copy(update={"pay": None}) if isinstance(action, (Cast, Activate, AnswerOffer)) else action


def _positions() -> list[Game]:
    """Self-play positions (every other action of two games between shipped decks) and the
    positions of every 9th scenario."""
    games: list[Game] = []
    decks = [load_deck(p) for p in shipped_decks().values()]
    rng = random.Random(2009)
    for seed in range(2):
        a, b = rng.sample(range(len(decks)), 2)
        game = start_game((decks[a], decks[b]), seed=seed)
        agents = {p.name: RandomAgent(seed * 10 + i, pass_rate=0.3) for i, p in enumerate(game.state.players)}
        for step in range(60):
            if game_over(game):
                break
            if step % 2 == 1:
                games.append(Game(game.state, game.pool))
            decision = decisions(game)
            game.push(agents[decision.player].choose(game, decision))
    for path in sorted((ROOT / "scenarios").rglob("*.yaml"))[::9]:
        try:
            game = Game(load_scenario(path).state)
            decisions(game)
        except MtgaspError:
            continue  # a position that is bad input on purpose
        games.append(game)
    return games


def test_every_action_the_rules_accept_is_offered() -> None:
    positions = _positions()
    assert len(positions) >= 200, len(positions)
    tried = accepted = 0
    for game in positions:
        if game_over(game):
            continue
        decision = decisions(game)
        view = _declarations(game, decision)
        if view is not None and len(view) > MAX_DECLARATIONS:
            continue  # too many to list in a test
        offered = {choice_key(game, _unpaid(o)) for o in decision.options}
        if decision.can_pass:
            # passing announces the default division of combat damage first (no other is offered)
            offered.add(choice_key(game, AssignDamage(assignments={}, by=game.state.active)))
        for action in _candidates(game, decision):
            accepted += 1
            assert choice_key(game, _unpaid(action)) in offered, (game.state.step, game.state.turn, action, offered)
        tried += 1
    assert tried >= 200 and accepted >= 400, (tried, accepted)


def test_the_ways_to_pay_part_grounds_without_warnings() -> None:
    """The program part asked for the ways to pay (stack/mana.lp ``payments``, for each card in
    hand) is grounded with the whole modules and warnings on, as every other part is."""
    from bridge.engine.solver import Session

    game = Game.from_scenario(ROOT / "tests/positions/duel.yaml")
    hand = [c.id or "" for c in game.state.player("alice").hand]
    session = Session(
        game.modules(*ACTING),
        game.position.facts + '\nlisting("alice").',
        [("payments", (card,)) for card in hand],
        prune=False,
    )
    assert session.solve(models=1).satisfiable
    assert len(session.free_externals("enumerating", 1)) >= 2  # the ways to pay of two cards or more


def test_the_ways_to_pay_are_found_again_when_the_groundings_of_listings_were_forgotten() -> None:
    """A grounding of a listing is given again for another position with the same facts; its
    ways to pay (a program part grounded when first asked for) are not grounded twice, even
    when what the listing remembered of that grounding was forgotten in between."""
    from bridge.engine import legal

    board = _mana_board(["Divination"], ["Island", "Mountain", "Forest"])
    game = Game.from_state(board)
    assert "divination" in legal.listing(game, "alice").payment_choices
    ways = legal.payments(game, "alice", "divination")
    assert ways == [["forest", "island", "mountain"]]
    legal._LISTING_SESSIONS.clear()
    assert legal.payments(Game.from_state(board), "alice", "divination") == ways


def test_the_ways_to_pay_of_each_attempt_are_grounded_as_it_is_asked_about() -> None:
    """The ways to pay of one card and then another are grounded on one listing's grounding
    (a part for each, or all in one step), and are those of a listing grounded for each
    alone."""
    from bridge.engine import legal

    board = _mana_board(
        ["Divination", "Grizzly Bears", "Lightning Bolt"], ["Island", "Mountain", "Forest", "Forest", "Mountain"]
    )
    game = Game.from_state(board)
    cards = sorted(legal.listing(game, "alice").payment_choices)
    assert len(cards) == 3
    together = [legal.payments(game, "alice", card) for card in cards]
    legal._LISTING_SESSIONS.clear()
    solver.forget()
    game = Game.from_state(board)
    legal.listing(game, "alice")
    in_one_step = [legal.payments(game, "alice", card, cards) for card in cards]
    alone = []
    for card in cards:
        legal._LISTING_SESSIONS.clear()
        solver.forget()
        fresh = Game.from_state(board)
        legal.listing(fresh, "alice")
        alone.append(legal.payments(fresh, "alice", card))
    assert together == in_one_step == alone
    assert [len(ways) for ways in together] == [3, 3, 1]


def _mana_board(hand: list[str], lands: list[str]) -> dict[str, object]:
    """Alice in her first main phase with cards in hand and lands."""
    return {
        "turn": 5,
        "active": "alice",
        "step": "main1",
        "players": [{"name": "alice", "hand": hand, "battlefield": lands}, {"name": "bob"}],
    }


def _walk(game: Game, depth: int, found: list[Game]) -> None:
    """Every position on every line of ``depth`` decisions from the game's."""
    found.append(Game(game.state, game.pool))
    if depth == 0 or game_over(game):
        return
    for action in decisions(game).options:
        game.push(action)
        _walk(game, depth - 1, found)
        game.pop()


def test_every_order_and_division_the_rules_accept_is_offered() -> None:
    """Along every line from a double block and from a creature blocking two attackers to the
    division of combat damage, from two abilities triggering together past their order, and
    from a prevention shield meeting two attackers' damage, each damage assignment order, each
    division of combat damage, each choice of what a shield prevents (615.7) and each order of
    triggered abilities that the judge accepts among those made by itertools is offered (a
    division: one offered that deals the damage alike)."""
    positions: list[Game] = []
    for name, depth in (
        ("double_block_orders_and_divisions.yaml", 3),
        ("brigade_blocks_two_attackers.yaml", 4),
        ("two_firefiends_die_together.yaml", 2),
        ("shield_chooses_between_two_attackers.yaml", 2),
    ):
        _walk(Game.from_scenario(ROOT / "tests" / "perft" / name), depth, positions)
    kinds: set[str] = set()
    prevented = 0
    for game in positions:
        decision = decisions(game)
        offered = {choice_key(game, o) for o in decision.options}
        if decision.can_pass:
            offered.add(choice_key(game, AssignDamage(assignments={}, by=game.state.active)))
        for action in choice_candidates(game):
            if _accepted(game, action)[0]:
                kinds.add(f"{action.kind} by {getattr(action, 'by', None) or decision.player}")
                assert choice_key(game, action) in offered, (game.state.step, action)
                prevented += isinstance(action, AssignDamage) and bool(action.prevent)
    # the active player's and the defending player's orders and divisions were all met
    assert kinds >= {
        "order_blockers by alice",
        "order_attackers by bob",
        "assign_damage by alice",
        "order_triggers by alice",
    }
    assert "assign_damage by bob" in kinds
    assert prevented >= 2, prevented
