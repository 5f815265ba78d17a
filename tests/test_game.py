"""The python-chess-shaped API: views, check, push and pop, characteristics, orders."""

from __future__ import annotations

import pytest

from bridge.engine.game import Game
from bridge.model.actions import DeclareAttackers, DeclareBlockers, OrderBlockers
from bridge.model.errors import IllegalActionError, InputError


def combat(step: str = "declare_blockers", **extra) -> Game:
    alice = [
        {"id": "wurm", "card": "Craw Wurm", "attacking": "bob", "tapped": True},
        {"id": "angel", "card": "Serra Angel", "attacking": "bob", "tapped": True},
    ]
    bob = [
        {"id": "elves", "card": "Llanowar Elves"},
        {"id": "spider", "card": "Giant Spider"},
        {"id": "bear", "card": "Grizzly Bears", "tapped": True},
    ]
    return Game.from_state(
        {
            "turn": 4,
            "active": "alice",
            "step": step,
            "players": [{"name": "alice", "battlefield": alice}, {"name": "bob", "battlefield": bob}],
            **extra,
        }
    )


def test_legal_blocks_view_supports_in_iteration_and_len() -> None:
    game = combat()
    declarations = list(game.legal_blocks)
    # elves: none or wurm (can't block the flyer); spider: none, wurm or angel; bear is tapped
    assert len(game.legal_blocks) == len(declarations) == 2 * 3
    assert DeclareBlockers(blockers={"spider": "angel", "elves": "wurm"}) in game.legal_blocks
    assert DeclareBlockers(blockers={"elves": "angel"}) not in game.legal_blocks
    assert DeclareBlockers(blockers={}) in game.legal_blocks
    assert all(isinstance(d, DeclareBlockers) for d in declarations)


def test_check_names_rule_and_creatures() -> None:
    verdict = combat().check(DeclareBlockers(blockers={"elves": "angel", "bear": "wurm"}))
    assert not verdict.legal
    assert verdict.rules == {"702.9b", "509.1b", "509.1a"}
    by_rule = {v.rule: v for v in verdict.violations}
    assert by_rule["702.9b"].objects == ("elves", "angel")
    assert by_rule["509.1a"].objects == ("bear",)
    assert "flying" in by_rule["702.9b"].message


def test_push_applies_and_pop_takes_back() -> None:
    game = combat()
    before = game.state
    game.push(DeclareBlockers(blockers={"spider": "angel"}))
    assert game.state.permanent("spider").blocking == ["angel"]
    with pytest.raises(IllegalActionError) as info:
        game.push(DeclareBlockers(blockers={"elves": "wurm"}))
    assert "509.1" in info.value.verdict.rules
    assert game.pop() is not before
    assert game.state == before


def test_illegal_action_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        combat().push(DeclareBlockers(blockers={"elves": "angel"}))


def test_attack_then_state_has_attackers_tapped_unless_vigilant() -> None:
    game = Game.from_state(
        {
            "active": "alice",
            "step": "declare_attackers",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [{"id": "angel", "card": "Serra Angel"}, {"id": "wurm", "card": "Craw Wurm"}],
                },
                {"name": "bob"},
            ],
        }
    )
    assert len(game.legal_attacks) == 4
    game.push(DeclareAttackers(attackers={"angel": "bob", "wurm": "bob"}))
    assert (game.state.permanent("angel").tapped, game.state.permanent("wurm").tapped) == (False, True)
    assert game.state.permanent("angel").attacking == "bob"


def test_attack_cost_is_paid_from_pool_then_sources_in_listing_order() -> None:
    game = Game.from_state(
        {
            "active": "alice",
            "step": "declare_attackers",
            "players": [
                {
                    "name": "alice",
                    "mana_pool": "{G}",
                    "battlefield": [
                        {"id": "bear", "card": "Grizzly Bears"},
                        {"id": "f1", "card": "Forest"},
                        {"id": "f2", "card": "Forest"},
                    ],
                },
                {"name": "bob", "battlefield": ["Propaganda"]},
            ],
        }
    )
    game.push(DeclareAttackers(attackers={"bear": "bob"}))
    alice = game.state.player("alice")
    assert alice.mana_pool == ""
    assert [p.tapped for p in alice.battlefield] == [True, True, False]


def test_characteristics_with_lord_anthem_and_counters() -> None:
    game = Game.from_state(
        {
            "active": "alice",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [
                        {"id": "lord", "card": "Lord of Atlantis"},
                        {"id": "merfolk", "card": "Coral Merfolk", "counters": {"+1/+1": 2}},
                        {"id": "anthem", "card": "Glorious Anthem"},
                    ],
                },
                {"name": "bob"},
            ],
        }
    )
    merfolk = game.characteristics("merfolk")
    assert (merfolk.power, merfolk.toughness) == (2 + 1 + 1 + 2, 1 + 1 + 1 + 2)
    assert "landwalk(subtype(island))" in merfolk.abilities
    lord = game.characteristics("lord")
    assert (lord.power, lord.toughness) == (3, 3)
    assert "landwalk(subtype(island))" not in lord.abilities


def test_resolved_effect_from_card_and_inline() -> None:
    game = Game.from_state(
        {
            "active": "alice",
            "players": [{"name": "alice", "battlefield": [{"id": "bear", "card": "Grizzly Bears"}]}, {"name": "bob"}],
            "effects": [
                {"source": "Giant Growth", "targets": ["bear"]},
                {"source": "bear", "targets": ["bear"], "grant": ["flying"]},
            ],
        }
    )
    bear = game.characteristics("bear")
    assert (bear.power, bear.toughness, bear.abilities) == (5, 5, ("flying",))


def test_damage_assignment_orders_are_permutations() -> None:
    game = Game.from_state(
        {
            "active": "alice",
            "step": "declare_blockers",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [{"id": "wurm", "card": "Craw Wurm", "attacking": "bob", "tapped": True}],
                },
                {
                    "name": "bob",
                    "battlefield": [
                        {"id": "a", "card": "Grizzly Bears", "blocking": ["wurm"]},
                        {"id": "b", "card": "Llanowar Elves", "blocking": ["wurm"]},
                        {"id": "c", "card": "Runeclaw Bear", "blocking": ["wurm"]},
                    ],
                },
            ],
        }
    )
    orders = game.blocker_orders("wurm")
    assert len(orders) == 6 and sorted(orders[0]) == ["a", "b", "c"]
    assert game.check(OrderBlockers(orders={"wurm": ["c", "a", "b"]})).legal
    assert not game.check(OrderBlockers(orders={"wurm": ["c", "a"]})).legal


def test_unknown_ids_are_input_errors() -> None:
    game = combat()
    with pytest.raises(InputError, match="no object has the id 'dragon'"):
        game.check(DeclareBlockers(blockers={"dragon": "wurm"}))
    with pytest.raises(InputError, match="no permanent"):
        game.characteristics("dragon")


def test_many_checks_agree_with_fresh_checks() -> None:
    game = combat()
    checker = game.checker("block")
    for blockers in ({}, {"elves": "wurm"}, {"elves": "angel"}, {"spider": ["wurm", "angel"]}, {"bear": "wurm"}):
        action = DeclareBlockers(blockers=blockers)
        assert checker.check(action) == Game(game.state).check(action)


def wide_combat(attackers: int, blockers: int, lure: bool = False) -> Game:
    alice = [{"id": f"a{i}", "card": "Grizzly Bears", "attacking": "bob", "tapped": True} for i in range(attackers)]
    if lure:
        alice.append({"id": "lure", "card": "Lure", "attached_to": "a0"})
    bob = [{"id": f"b{i}", "card": "Grizzly Bears"} for i in range(blockers)]
    return Game.from_state(
        {
            "turn": 4,
            "active": "alice",
            "step": "declare_blockers",
            "players": [{"name": "alice", "battlefield": alice}, {"name": "bob", "battlefield": bob}],
        }
    )


def test_the_requirement_maximum_is_found_without_listing_every_declaration() -> None:
    # CR 509.1c: with no requirement every legal declaration obeys the most (none), so the
    # search stops at the first; listing them all is exponential in the creatures
    from bridge.engine.board import _modules, _search_parts
    from bridge.engine.solver import Session

    small = wide_combat(2, 3)
    search = Session(_modules(small, "block"), small.position.facts, _search_parts("block", "max"))
    assert len(search.solve().models) == 3**3  # each blocker: no block or one of two attackers
    found = search.solve(best=True)
    assert found.unoptimized and len(found.models) == 1
    assert clingo_str(found.model, "requirement_max") == ["requirement_max(block,0)"]
    # with a requirement (Lure: every creature able blocks it) the search optimizes to the end
    lured = wide_combat(2, 3, lure=True)
    found = Session(_modules(lured, "block"), lured.position.facts, _search_parts("block", "max")).solve(best=True)
    assert not found.unoptimized
    assert clingo_str(found.model, "requirement_max") == ["requirement_max(block,3)"]
    # a board of 8 attackers and 9 blockers has 9^9 legal declarations: judged at once
    wide = wide_combat(8, 9)
    checker = wide.checker("block")
    assert len(checker.possible_pairs()) == 8 * 9
    assert checker.check(DeclareBlockers(blockers={f"b{i}": [f"a{i % 8}"] for i in range(9)})).legal
    assert not checker.check(DeclareBlockers(blockers={"b0": ["a0", "a1"]})).legal


def clingo_str(model: frozenset, name: str) -> list[str]:
    return sorted(str(s) for s in model if s.name == name)


def test_answers_are_kept_for_their_own_card_pool() -> None:
    # the same position with a card of the same name but another toughness in each new pool:
    # an answer kept for one pool must not answer for another, even when the first pool is
    # gone and the second one is made at the same place in memory
    from bridge.model.cards import Card, CardPool
    from bridge.model.state import GameState

    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "battlefield": [{"id": "x", "card": "Test Beast", "damage": 2}]},
                {"name": "bob"},
            ],
        }
    )
    for n in range(200):
        toughness = 2 + n % 2
        card = Card.model_validate({"name": "Test Beast", "types": ["creature"], "power": 1, "toughness": toughness})
        game = Game(state, CardPool.from_cards([card], fallback=CardPool.default()))
        expected = [('destroy("x")', "704.5g")] if toughness == 2 else []
        assert game.state_based_actions() == expected, n


def test_the_facts_made_from_parts_met_before_are_those_made_afresh() -> None:
    """A position's facts reuse each player's, permanent's and card text's facts made for the
    same object before (a state copied with other fields changed keeps its other objects):
    they are the facts of the same state with every object made anew. A game's permanents
    enter, tap, fight, die and move in the list, so that their timestamps shift."""
    from bridge.engine.facts import position_facts
    from bridge.model.state import GameState
    from bridge.play.agents import RandomAgent, decisions
    from bridge.play.selfplay import load_deck, shipped_decks, start_game

    decks = shipped_decks()
    game = start_game((load_deck(decks["red_goblins"]), load_deck(decks["green_stompy"])), 3)
    agents = {p.name: RandomAgent(1000 + i, pass_rate=0.25) for i, p in enumerate(game.state.players)}
    reused = 0
    for _ in range(150):
        before = game.state
        game.push(agents[(d := decisions(game, trigger_order=False)).player].choose(game, d))
        reused += any(p is q for p in game.state.permanents() for q in before.permanents())
        afresh = GameState.model_validate(game.state.model_dump())
        assert not any(p is q for p in afresh.permanents() for q in game.state.permanents())
        assert position_facts(game.state, game.pool).facts == position_facts(afresh, game.pool).facts
    assert reused > 50  # most actions keep some permanents


def test_a_permanent_kept_by_a_copy_gets_the_timestamp_of_its_new_place() -> None:
    """CR 613.6: permanents given without timestamps get them in listing order, so the one
    left when another leaves takes another timestamp although its object is the same."""
    from bridge.engine.facts import position_facts
    from bridge.model.state import GameState

    state = combat().state
    alice = state.players[0]
    wurm, angel = alice.battlefield
    assert wurm.timestamp is None and angel.timestamp is None
    before = position_facts(state).facts
    assert 'timestamp("angel", 2).' in before.split("\n")
    left = state.model_copy(update={"players": [alice.model_copy(update={"battlefield": [angel]}), state.players[1]]})
    assert left.players[0].battlefield[0] is angel
    facts = position_facts(left).facts
    assert facts == position_facts(GameState.model_validate(left.model_dump())).facts
    assert 'timestamp("angel", 1).' in facts.split("\n")
