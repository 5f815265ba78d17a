"""The choices made as a spell is cast or a triggered ability put on the stack are all
offered: every division of an amount among the targets (CR 601.2d), every order of the cards
spliced onto a spell (702.44b), a morph card cast face down when its own mana cost is out of
reach (702.34a), every mode of a modal triggered ability (603.3c).

For each, the actions ``push`` accepts among candidates made broadly (every split of the
amount in whole numbers, zeros included; every permutation of every set of the splice cards
in the hand; face down or not) must be exactly the ones :func:`decisions` offers for that
card (its way to pay aside).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import TypeVar

import pytest

from bridge.engine.game import Game
from bridge.model.actions import (
    Action,
    Activate,
    AnswerOffer,
    AssignDamage,
    Cast,
    ChooseOrder,
    ChooseTargets,
    DeclareAttackers,
    DeclareBlockers,
    Pass,
)
from bridge.model.errors import IllegalActionError, InputError
from bridge.model.keys import canonical_text
from bridge.play.agents import decisions
from bridge.play.brute import action_key

T = TypeVar("T")


def _game(hand: list[object], battlefield: list[object], theirs: list[object] | None = None) -> Game:
    return Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "hand": hand, "battlefield": battlefield, "library": ["Forest"] * 3},
                {"name": "bob", "battlefield": theirs or [], "library": ["Forest"] * 3},
            ],
        }
    )


def _accepted(game: Game, action: Action) -> bool:
    try:
        game.push(action)
    except (IllegalActionError, InputError):
        return False
    game.pop()
    return True


def _offered(game: Game, card: str) -> set[str]:
    """The casts of ``card`` offered (without their way to pay)."""
    return {
        action_key(a.model_copy(update={"pay": None}))
        for a in decisions(game).options
        if isinstance(a, Cast) and a.card == card
    }


def _splits(amount: int, parts: int) -> list[list[int]]:
    """Every split of ``amount`` into ``parts`` whole numbers, zeros included."""
    return [list(s) for s in itertools.product(range(amount + 1), repeat=parts) if sum(s) == amount]


def test_every_division_of_arc_lightning_is_offered() -> None:
    game = _game(
        [{"id": "arc", "card": "Arc Lightning"}],
        ["Mountain", "Mountain", "Mountain"],
        [{"id": "bears", "card": "Grizzly Bears"}],
    )
    candidates = [
        Cast(card="arc", by="alice", targets=list(targets), divide=split)
        for n in (1, 2, 3)
        for targets in itertools.product(["alice", "bob", "bears"], repeat=n)
        for split in _splits(3, n)
    ]
    accepted = {action_key(c) for c in candidates if _accepted(game, c)}
    # different targets (113.3), one or more each (601.2d): one target 3 ways, two in either
    # order 6 ways with 1+2 or 2+1, three in any order 6 ways with 1+1+1
    assert len(accepted) == 3 + 6 * 2 + 6
    assert _offered(game, "arc") == accepted


def test_every_order_of_the_spliced_cards_is_offered() -> None:
    game = _game(
        [
            {"id": "mists", "card": "Reach Through Mists"},
            {"id": "ray", "card": "Glacial Ray"},
            {"id": "fray", "card": "Into the Fray"},
        ],
        ["Island", "Mountain", "Mountain", "Mountain", "Mountain"],
        [{"id": "bears", "card": "Grizzly Bears"}],
    )
    spliceable = ["ray", "fray"]
    orders = [
        list(o) for n in range(3) for c in itertools.combinations(spliceable, n) for o in itertools.permutations(c)
    ]
    candidates = [
        Cast(card="mists", by="alice", splice=order, targets=list(targets))
        for order in orders
        for n in range(3)
        for targets in itertools.product(["alice", "bob", "bears"], repeat=n)
    ]
    accepted = {action_key(c) for c in candidates if _accepted(game, c)}
    # the spliced cards' instructions are followed in the order chosen (702.44b): both orders
    assert {tuple(json.loads(k)["splice"]) for k in accepted} == {
        (),
        ("ray",),
        ("fray",),
        ("ray", "fray"),
        ("fray", "ray"),
    }
    assert _offered(game, "mists") == accepted


def test_both_orders_of_two_spliced_cards_are_offered() -> None:
    game = _game(
        [
            {"id": "mists", "card": "Reach Through Mists"},
            {"id": "ray", "card": "Glacial Ray"},
            {"id": "ray_2", "card": "Glacial Ray"},
        ],
        ["Island", "Mountain", "Mountain", "Mountain", "Mountain"],
    )
    offered = {
        tuple(a.splice) for a in decisions(game).options if isinstance(a, Cast) and a.card == "mists" and a.splice
    }
    assert {("ray", "ray_2"), ("ray_2", "ray")} <= offered
    assert _accepted(game, Cast(card="mists", splice=["ray_2", "ray"], targets=["bob", "bob"]))


def test_a_morph_card_out_of_reach_is_offered_face_down() -> None:
    # Branchsnap Lorian costs {1}{G}{G}: out of reach of an Island, an Island and a Mountain,
    # but face down it costs {3} (702.34a)
    game = _game([{"id": "lorian", "card": "Branchsnap Lorian"}], ["Island", "Island", "Mountain"])
    candidates = [Cast(card="lorian", by="alice", face_down=down) for down in (False, True)]
    accepted = {action_key(c) for c in candidates if _accepted(game, c)}
    assert accepted == {action_key(Cast(card="lorian", by="alice", face_down=True))}
    assert _offered(game, "lorian") == accepted


def test_a_morph_card_is_not_offered_face_down_without_three_mana() -> None:
    game = _game([{"id": "lorian", "card": "Branchsnap Lorian"}], ["Island", "Mountain"])
    assert not _accepted(game, Cast(card="lorian", face_down=True))
    assert _offered(game, "lorian") == set()


def _chamber_waiting() -> Game:
    """Energy Chamber's upkeep trigger waiting for its controller's choice: a +1/+1 counter on
    the Ornithopter (mode 1) or a charge counter on a noncreature artifact (mode 2)."""
    game = Game.from_state(
        {
            "turn": 2,
            "active": "bob",
            "step": "end",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [
                        {"id": "chamber", "card": "Energy Chamber"},
                        {"id": "ornithopter", "card": "Ornithopter"},
                        {"id": "egg", "card": "Dingus Egg"},
                    ],
                    "library": ["Forest"] * 3,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Pass(by="bob"))
    game.push(Pass(by="alice"))
    assert game.state.step == "upkeep" and game.state.awaiting_targets
    return game


def test_every_mode_of_a_modal_trigger_is_offered() -> None:
    game = _chamber_waiting()
    ability = game.state.awaiting_targets[0].id or ""
    candidates = [
        ChooseTargets(ability=ability, targets=[t], mode=m, by="alice")
        for m in (None, 1, 2)
        for t in ("alice", "bob", "chamber", "ornithopter", "egg")
    ]
    accepted = {action_key(c) for c in candidates if _accepted(game, c)}
    offered = {action_key(a) for a in decisions(game).options}
    assert offered == accepted
    # CR 603.3c: the controller chooses the mode: the Ornithopter in the first, a noncreature
    # artifact (the Egg or the Chamber itself) in the second
    assert {(json.loads(k)["mode"], json.loads(k)["targets"][0]) for k in accepted} == {
        (1, "ornithopter"),
        (2, "egg"),
        (2, "chamber"),
    }
    game.push(ChooseTargets(ability=ability, targets=["egg"], mode=2, by="alice"))
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    assert game.state.permanent("egg").counters == {"charge": 1}
    assert not game.state.permanent("ornithopter").counters


def test_a_modal_trigger_needs_its_mode() -> None:
    game = _chamber_waiting()
    ability = game.state.awaiting_targets[0].id or ""
    with pytest.raises(IllegalActionError) as refused:
        game.push(ChooseTargets(ability=ability, targets=["ornithopter"], by="alice"))
    assert [v.rule for v in refused.value.verdict.violations] == ["603.3c"]  # type: ignore[union-attr]
    with pytest.raises(InputError, match="mode 3"):
        game.push(ChooseTargets(ability=ability, targets=["ornithopter"], mode=3, by="alice"))


def _ways(game: Game, actions: list[Action]) -> set[tuple[str, ...]]:
    """The ways to pay among these actions, by the names of the cards they tap."""
    return {tuple(sorted(game.state.permanent(p).card for p in getattr(a, "pay", None) or [])) for a in actions}


def _subsets(game: Game, player: str) -> list[list[str]]:
    mine = [p.id or "" for p in game.state.permanents() if game.state.controller_of(p) == player]
    return [list(c) for n in range(1, len(mine) + 1) for c in itertools.combinations(mine, n)]


def test_every_way_to_pay_a_kicked_spell_is_offered() -> None:
    # Burst Lightning kicked costs {4}{R}: five of two Mountains, two Islands and two Forests,
    # a Mountain among them; the one left untapped is a Mountain, an Island or a Forest
    game = _game(
        [{"id": "burst", "card": "Burst Lightning"}],
        ["Mountain", "Mountain", "Island", "Island", "Forest", "Forest"],
    )
    kicked = Cast(card="burst", by="alice", targets=["bob"], kicked=True)
    accepted = [kicked.model_copy(update={"pay": s}) for s in _subsets(game, "alice")]
    accepted = [a for a in accepted if _accepted(game, a)]
    offered = [
        a
        for a in decisions(game).options
        if isinstance(a, Cast) and a.kicked and a.targets == ["bob"] and a.model_copy(update={"pay": None}) == kicked
    ]
    assert len(_ways(game, accepted)) == 3
    assert _ways(game, offered) == _ways(game, accepted)


def test_every_way_to_pay_what_mana_leak_offers_is_offered() -> None:
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "bears", "card": "Grizzly Bears"}],
                    "battlefield": [
                        {"id": "f1", "card": "Forest"},
                        {"id": "f2", "card": "Forest"},
                        "Forest",
                        "Forest",
                        "Island",
                        "Mountain",
                    ],
                    "library": ["Forest"] * 3,
                },
                {
                    "name": "bob",
                    "hand": [{"id": "leak", "card": "Mana Leak"}],
                    "battlefield": ["Island", "Island"],
                    "library": ["Forest"] * 3,
                },
            ],
        }
    )
    # the Bears tap two Forests; Mana Leak asks {3} of two Forests, an Island and a Mountain:
    # one of them is left untapped
    game.push(Cast(card="bears", by="alice", pay=["f1", "f2"]))
    game.push(Pass(by="alice"))
    game.push(Cast(card="leak", by="bob", targets=["bears"]))
    game.push(Pass(by="bob"))
    game.push(Pass(by="alice"))
    assert game.state.awaiting_payment is not None
    candidates = [AnswerOffer(by="alice", pays=True, pay=s) for s in _subsets(game, "alice")]
    accepted = [a for a in candidates if _accepted(game, a)]
    offered = [a for a in decisions(game).options if isinstance(a, AnswerOffer) and a.pays]
    assert _ways(game, accepted) == {
        ("Forest", "Forest", "Island"),
        ("Forest", "Forest", "Mountain"),
        ("Forest", "Island", "Mountain"),
    }
    assert _ways(game, offered) == _ways(game, accepted)


# ---------------------------------------------------------------------- choices stated ahead
# A choice made as an event happens where nobody has priority (a "you may" as an object
# resolves, champion's exile, Time Vault's skipped turn, a dredge for a draw, the card Meddling
# Mage names) is stated ahead with choose_order, and stands.  push takes any statement that
# names objects of the game, so the statements are compared by what they change: each
# statement made broadly (by either player, each object declined or named first in the
# replacement order; each card name of the game's cards stated for each object; each object,
# and each set of two or three cards of a hand, stated to discard) is pushed,
# the event played out, and the position reached (statements aside) kept; the statements
# decisions() offers must reach exactly the positions the accepted ones reach.


def _position(game: Game) -> str:
    """The position, what the players stated ahead aside, and the order of the graveyards
    (which no rule reads: no rule module knows a card's place in a graveyard)."""
    cleared = {
        "declines": [],
        "replacement_order": [],
        "as_enters": {},
        "source_choices": {},
        "discard_order": [],
        "sacrifice_order": [],
        "picks": {},
        "unfound": {},
    }
    players = [
        p.model_copy(update={**cleared, "graveyard": sorted(p.graveyard, key=lambda c: c.id or "")})
        for p in game.state.players
    ]
    return game.state.model_copy(update={"players": players}).model_dump_json()


def _reached(game: Game, statement: ChooseOrder | None, event: list[Action]) -> str | None:
    """The position after the statement (none: as things stand) and the event, or None when
    push refuses the statement."""
    if statement is not None and not _accepted(game, statement):
        return None
    pushed = [statement] if statement is not None else []
    for action in [*pushed, *event]:
        game.push(action)
    reached = _position(game)
    for _ in range(len(pushed) + len(event)):
        game.pop()
    return reached


def _broad_statements(game: Game) -> list[ChooseOrder]:
    state = game.state
    zones = [c for p in state.players for z in ("library", "hand", "graveyard", "exile") for c in getattr(p, z)]
    objects = [p.id or "" for p in state.permanents()] + [s.id or "" for s in state.stack] + [c.id or "" for c in zones]
    cards = [p.card for p in state.permanents()] + [s.card for s in state.stack if s.card] + [c.card for c in zones]
    names = sorted({game.pool.get(c).name for c in cards})
    out: list[ChooseOrder] = []
    for who in ("alice", "bob"):
        out += [ChooseOrder(by=who, declines=[o]) for o in objects]
        out += [ChooseOrder(by=who, replacements=[o]) for o in objects]
        if any(game.pool.get(c).abilities and "named_card" in str(game.pool.get(c).abilities) for c in cards):
            out += [ChooseOrder(by=who, as_enters={o: {"card_name": n}}) for o in objects for n in names]
        # the cards to discard: each object alone, and each set of two or three cards of a
        # hand in its order (their order in the graveyard is read by no rule)
        out += [ChooseOrder(by=who, discards=[o]) for o in objects]
        for hand in ([c.id or "" for c in p.hand] for p in state.players):
            sizes = (2, 3) if len(hand) <= 4 else (2,)
            out += [ChooseOrder(by=who, discards=list(s)) for k in sizes for s in itertools.combinations(hand, k)]
        # the card picked for each object on the stack, its source, or a permanent: each object
        keys = sorted(
            {s.id or "" for s in state.stack}
            | {s.source for s in state.stack if s.source}
            | {p.id or "" for p in state.permanents()}
        )
        out += [ChooseOrder(by=who, picks={k: o}) for k in keys for o in [*objects, ""]]
    return out


def _offered_statements(game: Game) -> list[ChooseOrder]:
    return [a for a in decisions(game).options if isinstance(a, ChooseOrder)]


def _walk_offered(game: Game, chosen: Callable[[ChooseOrder], object], outcome: Callable[[], T], depth: int) -> set[T]:
    """The outcomes reached stating nothing more, or the offered statements for which
    ``chosen`` is true, one after another, up to ``depth`` of them."""
    reached = {outcome()}
    if depth:
        for statement in [a for a in _offered_statements(game) if chosen(a)]:
            game.push(statement)
            reached |= _walk_offered(game, chosen, outcome, depth - 1)
            game.pop()
    return reached


def _check_statements(game: Game, event: list[Action], names_default: bool = False) -> set[str]:
    """The positions the accepted statements reach (the one reached stating nothing among
    them) must be those the offered ones reach; returns them.  Each offered statement
    reaches a position of its own, other than the one reached stating nothing (but, where
    ``names_default``, the statement of the choice made by default)."""
    default = _reached(game, None, event)
    accepted = {r for s in _broad_statements(game) if (r := _reached(game, s, event)) is not None} | {default}
    offered = _offered_statements(game)
    reached = {_reached(game, s, event) for s in offered}
    assert None not in reached, "an offered statement is refused"
    assert reached | {default} == accepted
    # each offered statement changes something, once
    assert len(reached) == len(offered) and (names_default or default not in reached)
    return {r for r in accepted if r is not None}


def _top_trigger_waiting(hand: list[object], battlefield: list[object], graveyard: list[object]) -> Game:
    """Alice casts the creature in her hand; its enters-the-battlefield ability is on the
    stack and she has priority."""
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": hand,
                    "battlefield": battlefield,
                    "graveyard": graveyard,
                    "library": ["Forest"] * 3,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    card = hand[0]["id"]  # type: ignore[index]
    game.push(Cast(card=card, by="alice"))
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    assert game.state.stack and game.state.stack[0].source == card and game.state.priority_player() == "alice"
    return game


def test_declining_champions_exile_is_offered() -> None:
    # CR 702.69a: Changeling Hero's champion ability: exile the Bears, or decline and
    # sacrifice the Hero
    game = _top_trigger_waiting(
        [{"id": "hero", "card": "Changeling Hero"}], ["Plains", "Plains", {"id": "bears", "card": "Grizzly Bears"}], []
    )
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 2
    assert [a.declines for a in _offered_statements(game)] == [["hero"]]


def test_declining_champion_is_not_offered_with_nothing_to_exile() -> None:
    game = _top_trigger_waiting([{"id": "hero", "card": "Changeling Hero"}], ["Plains", "Plains"], [])
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 1
    assert _offered_statements(game) == []


def test_declining_a_may_of_a_trigger_is_offered() -> None:
    # CR 603.5, 608.2d: Gravedigger's "you may return target creature card"
    game = _top_trigger_waiting(
        [{"id": "digger", "card": "Gravedigger"}], ["Swamp"] * 4, [{"id": "bears", "card": "Grizzly Bears"}]
    )
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 2
    # stated, it stands and is offered no more
    game.push(_offered_statements(game)[0])
    assert _offered_statements(game) == []


def test_declining_time_vaults_skip_is_offered() -> None:
    # CR 614.10b: alice would begin her turn while her Time Vault is tapped: she skips it
    # (the Vault untaps) or begins it
    game = Game.from_state(
        {
            "turn": 6,
            "active": "bob",
            "step": "end",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [{"id": "vault", "card": "Time Vault", "tapped": True}],
                    "library": ["Forest"] * 3,
                },
                {"name": "bob", "library": ["Island"] * 4},
            ],
        }
    )
    game.push(Pass(by="bob"))
    assert len(_check_statements(game, [Pass(by="alice")])) == 2
    game.push(_offered_statements(game)[0])
    game.push(Pass(by="alice"))
    assert game.state.turn == 7 and game.state.active == "alice"
    assert game.state.permanent("vault").tapped


def _upkeep(library: int, battlefield: list[object] | None = None) -> Game:
    return Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "upkeep",
            "players": [
                {
                    "name": "alice",
                    "battlefield": battlefield or [],
                    "graveyard": [{"id": "darkblast", "card": "Darkblast"}],
                    "library": ["Forest"] * library,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )


def test_dredge_for_the_draw_is_offered() -> None:
    # CR 702.49a, 616.1: alice's draw of her draw step, or Darkblast's dredge 3 instead
    game = _upkeep(4)
    reached = _check_statements(game, [Pass(by="alice"), Pass(by="bob")])
    assert len(reached) == 2
    [dredge] = _offered_statements(game)
    game.push(dredge)
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    alice = game.state.player("alice")
    assert [c.card for c in alice.hand] == ["Darkblast"] and len(alice.library) == 1


def test_dredge_is_not_offered_without_enough_cards_in_the_library() -> None:
    # CR 702.49b: two cards in the library, dredge 3 can't replace the draw
    game = _upkeep(2)
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 1
    assert _offered_statements(game) == []


def test_dredge_for_sindbads_draw_is_offered() -> None:
    # CR 614.11b: Sindbad's draw, replaced by dredge, reveals and discards nothing
    game = _upkeep(4, [{"id": "sindbad", "card": "Sindbad"}])
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    assert game.state.step == "main1"
    game.push(Activate(source="sindbad", ability=1, by="alice"))
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 2


def test_every_card_meddling_mage_can_name_is_offered() -> None:
    # CR 614.12: as the Mage enters, bob names a nonland card: the game's nonland cards are
    # the bound (a name of no card of the game is refused, as is a land's)
    game = Game.from_state(
        {
            "turn": 3,
            "active": "bob",
            "step": "main1",
            "players": [
                {"name": "alice", "hand": ["Lightning Bolt", "Giant Growth"], "battlefield": ["Mountain"]},
                {"name": "bob", "hand": [{"id": "mage", "card": "Meddling Mage"}], "battlefield": ["Plains", "Island"]},
            ],
        }
    )
    game.push(Cast(card="mage", by="bob"))
    reached = _check_statements(game, [Pass(by="bob"), Pass(by="alice")], names_default=True)
    assert len(reached) == 3  # Lightning Bolt (the default), Giant Growth, Meddling Mage
    assert not _accepted(game, ChooseOrder(by="bob", as_enters={"mage": {"card_name": "Plains"}}))
    assert not _accepted(game, ChooseOrder(by="bob", as_enters={"mage": {"card_name": "Shivan Dragon"}}))


def _ways_offered_and_accepted(game: Game, card: str) -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """The ways to pay the plain cast of ``card`` (its least cost) that push accepts among
    every set of alice's permanents, and those offered."""
    plain = Cast(card=card, by="alice")
    accepted = [plain.model_copy(update={"pay": s}) for s in _subsets(game, "alice")]
    accepted = [a for a in accepted if _accepted(game, a)]
    offered = [
        a for a in decisions(game).options if isinstance(a, Cast) and a.model_copy(update={"pay": None}) == plain
    ]
    if len(offered) == 1 and offered[0].pay is None:
        return _ways(game, accepted), set()
    return _ways(game, accepted), _ways(game, offered)


def test_every_way_to_pay_a_reduced_cost_is_offered() -> None:
    # Thunderscape Familiar: black spells cost {1} less (601.2e): Gravedigger's {3}{B} is
    # {2}{B}, paid with the Swamp and two of an Island, a Mountain and a Forest
    game = _game(
        [{"id": "digger", "card": "Gravedigger"}], ["Swamp", "Island", "Mountain", "Forest", "Thunderscape Familiar"]
    )
    accepted, offered = _ways_offered_and_accepted(game, "digger")
    assert accepted == {("Forest", "Island", "Swamp"), ("Forest", "Mountain", "Swamp"), ("Island", "Mountain", "Swamp")}
    assert offered == accepted


def test_every_way_to_pay_with_a_triggered_mana_ability_is_offered() -> None:
    # Mana Flare: each land tapped for mana makes one more (605.4a): Gravedigger's {3}{B}
    # is paid with the Swamp and one, two or three other lands (the mana left over stays)
    game = _game([{"id": "digger", "card": "Gravedigger"}], ["Swamp", "Island", "Mountain", "Forest", "Mana Flare"])
    accepted, offered = _ways_offered_and_accepted(game, "digger")
    assert len(accepted) == 7 and ("Island", "Swamp") in accepted
    assert offered == accepted


def test_every_color_voice_of_all_can_choose_is_offered() -> None:
    # CR 614.12, 105.1: as Voice of All enters, alice chooses a color; stated values made
    # broadly (every color, basic land type and creature type of the game, and a word that
    # is none) for the Voice and a land: only the Voice's colors count
    game = _game([{"id": "voice", "card": "Voice of All"}], [{"id": "plains", "card": "Plains"}, *["Plains"] * 3])
    game.push(Cast(card="voice", by="alice"))
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    words = ["white", "blue", "black", "red", "green", "plains", "island", "swamp", "mountain", "forest", "angel"]
    candidates = [
        ChooseOrder(by="alice", as_enters={o: {k: v}})
        for o in ("voice", "plains")
        for k in ("color", "creature_type", "land_type")
        for v in [*words, "purple"]
    ]
    default = _reached(game, None, event)
    accepted = {r for c in candidates if (r := _reached(game, c, event)) is not None} | {default}
    offered = _offered_statements(game)
    assert {_reached(game, s, event) for s in offered} | {default} == accepted
    assert len(accepted) == 5 and len(offered) == 5
    assert not _accepted(game, ChooseOrder(by="alice", as_enters={"voice": {"color": "purple"}}))


def test_every_creature_clone_can_copy_is_offered() -> None:
    # CR 706.5: as Clone enters, alice chooses a creature on the battlefield to copy (the
    # default: the one with the greatest power), or none ("you may": declined, it enters as
    # a 0/0 Clone and dies, 704.5f); stated broadly for Clone and a land, every object of the
    # game
    game = _game(
        [{"id": "clone", "card": "Clone"}],
        [{"id": "island", "card": "Island"}, "Island", "Island", "Island", {"id": "bears", "card": "Grizzly Bears"}],
        [{"id": "angel", "card": "Serra Angel"}],
    )
    game.push(Cast(card="clone", by="alice"))
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    objects = [p.id or "" for p in game.state.permanents()] + ["clone", "alice"]
    candidates = [ChooseOrder(by="alice", as_enters={o: {"copy": x}}) for o in ("clone", "island") for x in objects]
    candidates += [ChooseOrder(by="alice", declines=[o]) for o in ("clone", "island")]
    default = _reached(game, None, event)
    accepted = {r for c in candidates if (r := _reached(game, c, event)) is not None} | {default}
    offered = _offered_statements(game)
    assert {_reached(game, s, event) for s in offered} | {default} == accepted
    assert len(accepted) == 3 and sorted(s.as_enters["clone"]["copy"] for s in offered if s.as_enters) == [
        "angel",
        "bears",
    ]
    assert [s.declines for s in offered if s.declines] == [["clone"]]
    game.push(ChooseOrder(by="alice", declines=["clone"]))
    for action in event:
        game.push(action)
    assert [c.id for c in game.state.player("alice").graveyard] == ["clone"]


def _as_enters_check(game: Game, oids: list[str], event: list[Action]) -> list[ChooseOrder]:
    """Statements made broadly for the objects ``oids`` (a creature to copy, each object of
    the game; each color, basic land type and creature type word; declining) reach exactly the
    positions the offered statements reach (with the one reached stating nothing); returns
    the offered ones."""
    objects = [p.id or "" for p in game.state.permanents()] + oids
    words = ["white", "blue", "black", "red", "green", "plains", "island", "swamp", "mountain", "forest", "angel"]
    candidates = [ChooseOrder(by="alice", as_enters={o: {"copy": x}}) for o in oids for x in objects]
    candidates += [
        ChooseOrder(by="alice", as_enters={o: {k: v}})
        for o in oids
        for k in ("color", "creature_type", "land_type")
        for v in words
    ]
    candidates += [ChooseOrder(by="alice", declines=[o]) for o in oids]
    default = _reached(game, None, event)
    accepted = {r for c in candidates if (r := _reached(game, c, event)) is not None} | {default}
    offered = [s for s in _offered_statements(game) if s.as_enters or s.declines]
    assert {_reached(game, s, event) for s in offered} | {default} == accepted
    return offered


def _zombify(graveyard: list[object], theirs: list[object] | None = None) -> Game:
    """Alice's Zombify targets the first card of her graveyard; she has priority."""
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "zombify", "card": "Zombify"}],
                    "battlefield": ["Swamp"] * 4 + [{"id": "bears", "card": "Grizzly Bears"}],
                    "graveyard": graveyard,
                    "library": ["Forest"] * 3,
                },
                {"name": "bob", "battlefield": theirs or [{"id": "angel", "card": "Serra Angel"}]},
            ],
        }
    )
    target = game.state.player("alice").graveyard[0].id or ""
    game.push(Cast(card="zombify", targets=[target], by="alice"))
    return game


def test_every_color_of_a_voice_of_all_zombify_returns_is_offered() -> None:
    # CR 614.12, 110.2: Voice of All enters from alice's graveyard, not from the stack: she
    # chooses its color all the same
    game = _zombify([{"id": "voice", "card": "Voice of All"}])
    offered = _as_enters_check(game, ["voice", "bears"], [Pass(by="alice"), Pass(by="bob")])
    assert sorted(s.as_enters["voice"]["color"] for s in offered) == ["black", "blue", "green", "red", "white"]


def test_every_creature_a_clone_zombify_returns_can_copy_is_offered() -> None:
    # CR 706.5: Clone enters from alice's graveyard as a copy of the Bears or the Angel, or,
    # declined, as itself (a 0/0 that dies, 704.5f)
    game = _zombify([{"id": "clone", "card": "Clone"}])
    offered = _as_enters_check(game, ["clone"], [Pass(by="alice"), Pass(by="bob")])
    assert sorted(str(s.as_enters or s.declines) for s in offered) == [
        "['clone']",
        "{'clone': {'copy': 'angel'}}",
        "{'clone': {'copy': 'bears'}}",
    ]
    # a copy stated, what the copied card asks for as it enters is offered next (706.2, 614.12):
    # a Clone of Voice of All chooses a color
    game = _zombify(
        [{"id": "clone", "card": "Clone"}], [{"id": "voice", "card": "Voice of All", "chosen": {"color": "red"}}]
    )
    game.push(ChooseOrder(by="alice", as_enters={"clone": {"copy": "voice"}}))
    colors = [s.as_enters["clone"].get("color") for s in _offered_statements(game) if s.as_enters]
    assert sorted(c for c in colors if c) == ["black", "blue", "green", "red", "white"]


def test_every_creature_a_clone_elvish_piper_puts_can_copy_is_offered() -> None:
    # CR 608.2d, 706.5: the Piper puts Clone from alice's hand onto the battlefield: as it
    # enters, a copy of the Piper, or declined
    game = _piper([{"id": "clone", "card": "Clone"}])
    offered = _as_enters_check(game, ["clone", "piper"], [Pass(by="alice"), Pass(by="bob")])
    assert sorted(str(s.as_enters or s.declines) for s in offered) == [
        "['clone']",
        "['piper']",
        "{'clone': {'copy': 'piper'}}",
    ]


def test_every_source_circle_of_protection_can_choose_is_offered() -> None:
    # CR 615.8, 609.7a: as Circle of Protection: Red's ability resolves, alice chooses the
    # red source whose next damage to her is prevented: the Goblin Piker or the Raging Goblin
    # (the default: the one with the smaller id); stated broadly, every pair of objects
    game = Game.from_scenario("scenarios/replacement/circle_of_protection_chosen_source.yaml")
    game.push(Pass(by="bob"))
    game.push(Activate(source="cop", by="alice"))
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    objects = [p.id or "" for p in game.state.permanents()] + [s.id or "" for s in game.state.stack]
    candidates = [ChooseOrder(by=who, sources={k: x}) for who in ("alice", "bob") for k in objects for x in objects]
    default = _reached(game, None, event)
    accepted = {r for c in candidates if (r := _reached(game, c, event)) is not None} | {default}
    offered = _offered_statements(game)
    assert {_reached(game, s, event) for s in offered} | {default} == accepted
    assert sorted((s.sources or {}).get("cop", "") for s in offered) == ["piker", "raging"]
    assert len(accepted) == 2


# ---------------------------------------------------------------------- cards discarded by choice
# CR 514.1, 701.7b: the player who discards cards of his or her choice states them ahead


def _mind_rot_waiting(hand: list[object]) -> Game:
    """Alice's Mind Rot targets bob and waits on the stack; bob has priority."""
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "hand": [{"id": "rot", "card": "Mind Rot"}], "battlefield": ["Swamp"] * 3},
                {"name": "bob", "hand": hand, "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Cast(card="rot", by="alice", targets=["bob"]))
    game.push(Pass(by="alice"))
    assert game.state.priority_player() == "bob"
    return game


def test_every_pair_of_cards_mind_rot_discards_is_offered() -> None:
    game = _mind_rot_waiting(
        [
            {"id": "forest", "card": "Forest"},
            {"id": "island", "card": "Island"},
            {"id": "bolt", "card": "Lightning Bolt"},
        ]
    )
    # three cards, two discarded: three sets (the default, the cards listed last, among them)
    reached = _check_statements(game, [Pass(by="bob")], names_default=True)
    assert len(reached) == 3
    assert sorted(a.discards or [] for a in _offered_statements(game)) == [
        ["forest", "bolt"],
        ["forest", "island"],
        ["island", "bolt"],
    ]
    # a card that isn't in bob's hand can't be stated
    assert not _accepted(game, ChooseOrder(by="bob", discards=["rot"]))
    # stated, it stands and is offered no more; bob keeps the Island
    game.push(ChooseOrder(by="bob", discards=["bolt", "forest"]))
    assert _offered_statements(game) == []
    game.push(Pass(by="bob"))
    assert [c.id for c in game.state.player("bob").hand] == ["island"]


def test_the_discard_of_a_looter_is_offered_before_its_draw() -> None:
    # CR 701.7b: Merfolk Looter draws a card, then discards a card: either card of the hand,
    # or by default the card drawn (listed last)
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "bolt", "card": "Lightning Bolt"}, {"id": "growth", "card": "Giant Growth"}],
                    "battlefield": [{"id": "looter", "card": "Merfolk Looter"}],
                    "library": ["Forest"] * 3,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Activate(source="looter", ability=1, by="alice"))
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 3
    assert [a.discards for a in _offered_statements(game)] == [["bolt"], ["growth"]]


def _end_step(hand: int, battlefield: list[object] | None = None, theirs: list[object] | None = None) -> Game:
    return Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "end",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": f"c{k}", "card": "Forest"} for k in range(hand)],
                    "battlefield": battlefield or [],
                    "library": ["Forest"] * 3,
                },
                {"name": "bob", "battlefield": theirs or [], "library": ["Forest"] * 3},
            ],
        }
    )


def test_every_card_to_discard_in_the_cleanup_step_is_offered() -> None:
    # CR 514.1: eight cards, a maximum hand size of seven: alice discards one, any of them
    game = _end_step(8)
    reached = _check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)
    assert len(reached) == 8
    assert [a.discards for a in _offered_statements(game)] == [[f"c{k}"] for k in range(8)]
    game.push(ChooseOrder(by="alice", discards=["c2"]))
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    assert [c.id for c in game.state.player("alice").graveyard] == ["c2"]


def test_no_cleanup_discard_is_offered_within_the_maximum_hand_size() -> None:
    # seven cards; and nine with Library of Leng (no maximum hand size, 402.2)
    for game in (_end_step(7), _end_step(9, ["Library of Leng"])):
        assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 1
        assert _offered_statements(game) == []


def test_a_reduced_maximum_hand_size_offers_the_cleanup_discard() -> None:
    # CR 402.2, 613.10: bob's Gnat Miser reduces alice's maximum hand size to six: with seven
    # cards she discards one
    game = _end_step(7, theirs=["Gnat Miser"])
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)) == 7
    assert len(_offered_statements(game)) == 7


# ---------------------------------------------------------------------- cards picked as an object resolves
# CR 702.69a, 608.2d, 701.7b, 701.14a: the card a player picks as a spell or ability resolves
# (champion's exile, a card put from the hand, a card chosen from a revealed hand, a card found
# in a library) is stated ahead; cards alike (one card, and for permanents the same status
# and nothing else told apart, 110.6) are one pick


def _picks(game: Game) -> list[dict[str, str]]:
    return [a.picks for a in _offered_statements(game) if a.picks]


def _canonical(game: Game, statement: ChooseOrder, event: list[Action]) -> str:
    """The canonical position (ids renamed) after the statement and the event, what the
    players stated aside."""
    for action in [statement, *event]:
        game.push(action)
    cleared = [p.model_copy(update={"picks": {}}) for p in game.state.players]
    reached = canonical_text(game.state.model_copy(update={"players": cleared}))
    for _ in range(1 + len(event)):
        game.pop()
    return reached


def test_every_creature_champion_can_exile_is_offered() -> None:
    # CR 702.69a: the Bears, the Elves (not bob's Bears), or declining
    game = _top_trigger_waiting(
        [{"id": "hero", "card": "Changeling Hero"}],
        ["Plains", "Plains", {"id": "bears", "card": "Grizzly Bears"}, {"id": "elves", "card": "Llanowar Elves"}],
        [],
    )
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)) == 3
    assert _picks(game) == [{"hero": "bears"}, {"hero": "elves"}]
    # stated, it stands and is offered no more; the Elves are exiled
    game.push(ChooseOrder(by="alice", picks={"hero": "elves"}))
    assert _picks(game) == []
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    assert [c.id for c in game.state.player("alice").exile] == ["elves"]


def test_alike_permanents_are_one_pick_for_champion() -> None:
    # CR 110.6: two untapped Bears are one pick; a tapped one is another
    game = _top_trigger_waiting(
        [{"id": "hero", "card": "Changeling Hero"}],
        [
            "Plains",
            "Plains",
            {"id": "bears", "card": "Grizzly Bears"},
            {"id": "bears_2", "card": "Grizzly Bears"},
            {"id": "tapped", "card": "Grizzly Bears", "tapped": True},
        ],
        [],
    )
    assert _picks(game) == [{"hero": "bears"}, {"hero": "tapped"}]
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    reached = {x: _canonical(game, ChooseOrder(by="alice", picks={"hero": x}), event) for x in ("bears", "bears_2")}
    assert reached["bears"] == reached["bears_2"]
    assert reached["bears"] != _canonical(game, ChooseOrder(by="alice", picks={"hero": "tapped"}), event)
    # two untapped Bears alone: one pick, nothing to offer
    game = _top_trigger_waiting(
        [{"id": "hero", "card": "Changeling Hero"}],
        ["Plains", "Plains", {"id": "bears", "card": "Grizzly Bears"}, {"id": "bears_2", "card": "Grizzly Bears"}],
        [],
    )
    assert _picks(game) == []


def _piper(hand: list[object]) -> Game:
    game = _game(hand, [{"id": "piper", "card": "Elvish Piper"}, "Forest"])
    game.push(Activate(source="piper", by="alice"))
    return game


def test_every_creature_card_elvish_piper_can_put_is_offered() -> None:
    # CR 608.2d: the Craw Wurm or the Grizzly Bears (not the Forest), or declining the "may"
    game = _piper(
        [
            {"id": "forest", "card": "Forest"},
            {"id": "wurm", "card": "Craw Wurm"},
            {"id": "bears", "card": "Grizzly Bears"},
        ]
    )
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)) == 3
    assert _picks(game) == [{"piper": "bears"}, {"piper": "wurm"}]
    assert not _accepted(game, ChooseOrder(by="alice", picks={"piper": "forest"}))


def test_cards_of_one_name_are_one_pick_for_elvish_piper() -> None:
    # CR 110.6d: cards in a hand have no status: two Bears are one pick, beside the Wurm
    game = _piper(
        [
            {"id": "bears", "card": "Grizzly Bears"},
            {"id": "bears_2", "card": "Grizzly Bears"},
            {"id": "wurm", "card": "Craw Wurm"},
        ]
    )
    assert _picks(game) == [{"piper": "bears"}, {"piper": "wurm"}]
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    bears = [_canonical(game, ChooseOrder(by="alice", picks={"piper": x}), event) for x in ("bears", "bears_2")]
    assert bears[0] == bears[1]
    game = _piper([{"id": "bears", "card": "Grizzly Bears"}, {"id": "bears_2", "card": "Grizzly Bears"}])
    assert _picks(game) == []


def test_every_card_duress_can_take_is_offered() -> None:
    # CR 701.7b: alice chooses the Lightning Bolt or the Giant Growth of bob's revealed hand
    hand = [
        {"id": "bears", "card": "Grizzly Bears"},
        {"id": "bolt", "card": "Lightning Bolt"},
        {"id": "growth", "card": "Giant Growth"},
    ]
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "hand": [{"id": "duress", "card": "Duress"}], "battlefield": ["Swamp"]},
                {"name": "bob", "hand": hand, "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Cast(card="duress", by="alice", targets=["bob"]))
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)) == 2
    assert _picks(game) == [{"duress": "bolt"}, {"duress": "growth"}]
    # bob doesn't choose, and the Bears can't be chosen
    assert not _accepted(game, ChooseOrder(by="bob", picks={"duress": "growth"}))
    assert not _accepted(game, ChooseOrder(by="alice", picks={"duress": "bears"}))


def test_a_pick_is_judged_with_nothing_to_pick() -> None:
    # CR 701.7b: bob's hand holds no noncreature, nonland card: nothing is offered, and the
    # Bears can't be stated
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "hand": [{"id": "duress", "card": "Duress"}], "battlefield": ["Swamp"]},
                {"name": "bob", "hand": [{"id": "bears", "card": "Grizzly Bears"}, "Forest"]},
            ],
        }
    )
    game.push(Cast(card="duress", by="alice", targets=["bob"]))
    assert _picks(game) == []
    assert not _accepted(game, ChooseOrder(by="alice", picks={"duress": "bears"}))


def _tutor(library: list[object]) -> Game:
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "tutor", "card": "Diabolic Tutor"}],
                    "battlefield": ["Swamp"] * 4,
                    "library": library,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Cast(card="tutor", by="alice"))
    return game


def test_every_card_a_search_can_find_is_offered() -> None:
    # CR 701.14a: Diabolic Tutor finds any card of alice's library: each of three
    game = _tutor(
        [
            {"id": "bolt", "card": "Lightning Bolt"},
            {"id": "forest", "card": "Forest"},
            {"id": "growth", "card": "Giant Growth"},
        ]
    )
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)) == 3
    assert _picks(game) == [{"tutor": "bolt"}, {"tutor": "forest"}, {"tutor": "growth"}]
    assert not _accepted(game, ChooseOrder(by="alice", picks={"tutor": "tutor"}))


def test_cards_of_one_name_are_one_pick_for_a_search() -> None:
    # CR 110.6d, 701.14a: two Forests in the library are one pick (the library is shuffled after)
    game = _tutor(
        [
            {"id": "forest", "card": "Forest"},
            {"id": "bolt", "card": "Lightning Bolt"},
            {"id": "forest_2", "card": "Forest"},
        ]
    )
    assert _picks(game) == [{"tutor": "bolt"}, {"tutor": "forest"}]
    found = []
    for x in ("forest", "forest_2"):
        game.push(ChooseOrder(by="alice", picks={"tutor": x}))
        game.push(Pass(by="alice"))
        game.push(Pass(by="bob"))
        me = game.state.player("alice")
        found.append(([c.card for c in me.hand], sorted(c.card for c in me.library)))
        for _ in range(3):
            game.pop()
    assert found[0] == found[1] == (["Forest"], ["Forest", "Lightning Bolt"])


def test_every_basic_land_a_sacrificed_expanse_can_find_is_offered() -> None:
    # CR 701.14a: Terramorphic Expanse, sacrificed to activate it, searches for a basic land
    # card: the Forest or the Plains, not the Lightning Bolt
    library = [
        {"id": "bolt", "card": "Lightning Bolt"},
        {"id": "plains", "card": "Plains"},
        {"id": "forest", "card": "Forest"},
    ]
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [{"id": "expanse", "card": "Terramorphic Expanse"}],
                    "library": library,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Activate(source="expanse", by="alice"))
    # CR 701.14b: finding neither (declines) is a third position
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)) == 3
    assert _picks(game) == [{"expanse": "forest"}, {"expanse": "plains"}]
    assert [a.declines for a in _offered_statements(game) if a.declines] == [["expanse"]]


def test_finding_nothing_is_offered_for_a_card_with_a_quality_only() -> None:
    # CR 701.14b: Rampant Growth searches for a basic land card: alice may find none, and the
    # Forest stays in her library; CR 701.14c: Diabolic Tutor's "a card" must find one
    library = [{"id": "forest", "card": "Forest"}, {"id": "bolt", "card": "Lightning Bolt"}]
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "growth", "card": "Rampant Growth"}],
                    "library": library,
                    "battlefield": ["Forest", "Forest"],
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Cast(card="growth", by="alice"))
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")])) == 2
    assert [a.declines for a in _offered_statements(game)] == [["growth"]]
    assert _picks(game) == []  # one basic land card: nothing else to pick
    game.push(ChooseOrder(by="alice", declines=["growth"]))
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    assert sorted(c.card for c in game.state.player("alice").library) == ["Forest", "Lightning Bolt"]
    tutor = _tutor([{"id": "bolt", "card": "Lightning Bolt"}, {"id": "forest", "card": "Forest"}])
    assert not any(a.declines for a in _offered_statements(tutor))


def test_searching_and_finding_nothing_is_offered_for_a_may_search() -> None:
    # CR 603.5, 701.14b: Borderland Ranger's "you may search ... If you do, shuffle": alice
    # declines (no search, no shuffle), searches and finds nothing (the library shuffled), or
    # finds the Forest, the Island or the Swamp (the Forest, the first from the top, by default)
    library = [
        {"id": "bears", "card": "Grizzly Bears"},
        {"id": "forest", "card": "Forest"},
        {"id": "island", "card": "Island"},
        {"id": "swamp", "card": "Swamp"},
    ]
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "ranger", "card": "Borderland Ranger"}],
                    "battlefield": ["Forest"] * 3,
                    "library": library,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    for action in (Cast(card="ranger", by="alice"), Pass(by="alice"), Pass(by="bob")):
        game.push(action)
    assert len(_check_statements(game, [Pass(by="alice"), Pass(by="bob")], names_default=True)) == 5
    assert _picks(game) == [{"ranger": ""}, {"ranger": "forest"}, {"ranger": "island"}, {"ranger": "swamp"}]
    assert [a.declines for a in _offered_statements(game) if a.declines] == [["ranger"]]
    libraries = {}
    for statement in (ChooseOrder(by="alice", declines=["ranger"]), ChooseOrder(by="alice", picks={"ranger": ""})):
        for action in (statement, Pass(by="alice"), Pass(by="bob")):
            game.push(action)
        me = game.state.player("alice")
        libraries[bool(statement.declines)] = [c.id for c in me.library]
        assert me.hand == []
        for _ in range(3):
            game.pop()
    assert libraries[True] == ["bears", "forest", "island", "swamp"]
    assert sorted(libraries[False]) == sorted(libraries[True]) and libraries[False] != libraries[True]


def _bob_casts(card: str, targets: list[str], alice: list[object], bob: list[object], hand: list[object]) -> Game:
    """Bob casts the card at the targets and passes: alice has priority."""
    game = Game.from_state(
        {
            "turn": 4,
            "active": "bob",
            "step": "main1",
            "players": [
                {"name": "alice", "battlefield": alice, "hand": hand, "library": ["Forest"] * 3},
                {"name": "bob", "battlefield": bob, "hand": [{"id": "spell", "card": card}], "library": ["Forest"] * 3},
            ],
        }
    )
    game.push(Cast(card="spell", targets=targets, by="bob"))
    game.push(Pass(by="bob"))
    assert game.state.priority_player() == "alice"
    return game


def test_every_order_of_two_effects_on_damage_is_offered() -> None:
    # CR 616.1, 614.1a, 615.9: Lightning Bolt at alice, who controls Furnace of Rath and
    # Guardian Seraph: doubled then 1 prevented (5 damage), or 1 prevented then doubled (4,
    # the default: prevention first); she names either source first
    game = _bob_casts(
        "Lightning Bolt",
        ["alice"],
        [{"id": "furnace", "card": "Furnace of Rath"}, {"id": "seraph", "card": "Guardian Seraph"}],
        ["Mountain"],
        [],
    )
    event: list[Action] = [Pass(by="alice")]
    assert len(_check_statements(game, event, names_default=True)) == 2
    assert sorted(a.replacements or [] for a in _offered_statements(game)) == [["furnace"], ["seraph"]]
    lives = []
    for first in ("furnace", "seraph"):
        for action in (ChooseOrder(by="alice", replacements=[first]), *event):
            game.push(action)
        lives.append(game.state.player("alice").life)
        # named one, the other is last in any case: nothing more is offered
        game.pop()
        assert not any(a.replacements for a in _offered_statements(game))
        game.pop()
    assert lives == [15, 16]


def test_every_order_of_two_effects_on_a_card_put_into_a_graveyard_is_offered() -> None:
    # CR 616.1, 614.1a: Mind Rot makes alice discard Darksteel Colossus while bob controls
    # Leyline of the Void: shuffled into her library (its own effect) or exiled (the
    # Leyline's), her choice as its owner; bob has no choice to make
    game = _bob_casts(
        "Mind Rot",
        ["alice"],
        [],
        [{"id": "leyline", "card": "Leyline of the Void"}, "Swamp", "Swamp", "Swamp"],
        [{"id": "colossus", "card": "Darksteel Colossus"}],
    )
    event: list[Action] = [Pass(by="alice")]
    assert len(_check_statements(game, event, names_default=True)) == 2
    assert sorted(a.replacements or [] for a in _offered_statements(game)) == [["colossus"], ["leyline"]]
    game.push(ChooseOrder(by="alice", replacements=["leyline"]))
    game.push(Pass(by="alice"))
    assert [c.id for c in game.state.player("alice").exile] == ["colossus"]


def test_no_order_is_offered_for_effects_that_apply_to_different_events() -> None:
    # CR 616.1: Guardian Seraph prevents damage dealt to alice, Daunting Defender damage dealt
    # to her Clerics (the Defender is one): no damage event has both; with Furnace of Rath,
    # bob's, each has two
    game = _game([], [{"id": "seraph", "card": "Guardian Seraph"}, {"id": "defender", "card": "Daunting Defender"}])
    assert not any(a.replacements for a in _offered_statements(game))
    game = _game(
        [],
        [{"id": "seraph", "card": "Guardian Seraph"}, {"id": "defender", "card": "Daunting Defender"}],
        [{"id": "furnace", "card": "Furnace of Rath"}],
    )
    assert sorted(a.replacements or [] for a in _offered_statements(game) if a.replacements) == [
        ["defender"],
        ["furnace"],
        ["seraph"],
    ]


def _sacrifices(game: Game) -> list[list[str]]:
    return [a.sacrifices for a in _offered_statements(game) if a.sacrifices]


def test_every_creature_a_player_can_sacrifice_to_an_edict_is_offered() -> None:
    # CR 701.13a: Diabolic Edict makes alice sacrifice a creature of her choice: the Bears or
    # the Elves (two untapped Bears are one choice, 110.6); stated, the Elves go
    game = _bob_casts(
        "Diabolic Edict",
        ["alice"],
        [
            {"id": "elves", "card": "Llanowar Elves"},
            {"id": "bears", "card": "Grizzly Bears"},
            {"id": "bears_2", "card": "Grizzly Bears"},
        ],
        ["Swamp", "Swamp", {"id": "wurm", "card": "Craw Wurm"}],
        [],
    )
    assert _sacrifices(game) == [["bears"], ["elves"]]
    event: list[Action] = [Pass(by="alice")]
    reached = {x: _canonical(game, ChooseOrder(by="alice", sacrifices=[x]), event) for x in ("bears", "bears_2")}
    assert reached["bears"] == reached["bears_2"]
    # CR 701.13a: only a permanent she controls
    assert not _accepted(game, ChooseOrder(by="alice", sacrifices=["wurm"]))
    game.push(ChooseOrder(by="alice", sacrifices=["elves"]))
    assert _sacrifices(game) == []
    game.push(Pass(by="alice"))
    assert [c.id for c in game.state.player("alice").graveyard] == ["elves"]


def test_tariff_offers_only_the_creatures_of_the_highest_mana_value() -> None:
    # CR 609.5, 701.13a: Tariff: each player sacrifices the creature he or she controls with
    # the highest converted mana cost: of alice's, the Angel or the Craghorn (both 5), not the
    # Bears; bob, with one creature, has no choice
    game = _bob_casts(
        "Tariff",
        [],
        [
            {"id": "angel", "card": "Serra Angel"},
            {"id": "craghorn", "card": "Crested Craghorn"},
            {"id": "bears", "card": "Grizzly Bears"},
        ],
        ["Plains", "Plains", {"id": "elves", "card": "Llanowar Elves"}],
        [],
    )
    assert _sacrifices(game) == [["angel"], ["craghorn"]]
    candidates = [
        ChooseOrder(by=who, sacrifices=[x]) for who in ("alice", "bob") for x in ("angel", "craghorn", "bears", "elves")
    ]
    event: list[Action] = [Pass(by="alice")]
    default = _reached(game, None, event)
    accepted = {r for c in candidates if (r := _reached(game, c, event)) is not None} | {default}
    assert {_reached(game, ChooseOrder(by="alice", sacrifices=x), event) for x in _sacrifices(game)} == accepted
    assert len(accepted) == 2


def test_each_sacrifice_of_smallpox_is_offered_in_turn() -> None:
    # CR 701.13a, 608.2e: Smallpox: each player sacrifices a creature, then a land: alice states
    # the creature, then the land is still hers to choose; a land creature is not sacrificed
    # twice
    game = _bob_casts(
        "Smallpox",
        [],
        [
            {"id": "bears", "card": "Grizzly Bears"},
            {"id": "elves", "card": "Llanowar Elves"},
            {"id": "forest", "card": "Forest"},
            {"id": "island", "card": "Island"},
        ],
        ["Swamp", "Swamp"],
        [],
    )
    assert _sacrifices(game) == [["bears"], ["elves"]]
    game.push(ChooseOrder(by="alice", sacrifices=["elves"]))
    assert _sacrifices(game) == [["elves", "forest"], ["elves", "island"]]
    game.push(ChooseOrder(by="alice", sacrifices=["elves", "island"]))
    assert _sacrifices(game) == []
    game.push(Pass(by="alice"))
    assert sorted(c.id for c in game.state.player("alice").graveyard) == ["elves", "island"]


def test_declining_provoke_is_offered() -> None:
    # CR 702.36a, 603.5: Crested Craghorn attacks; its provoke "you may have target creature
    # defending player controls untap and block it if able": alice may decline, and the Bears
    # stay tapped
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "declare_attackers",
            "players": [
                {"name": "alice", "battlefield": [{"id": "craghorn", "card": "Crested Craghorn"}]},
                {
                    "name": "bob",
                    "battlefield": [
                        {"id": "bears", "card": "Grizzly Bears", "tapped": True},
                        {"id": "spider", "card": "Giant Spider"},
                    ],
                },
            ],
        }
    )
    game.push(DeclareAttackers(attackers={"craghorn": "bob"}))
    game.push(ChooseTargets(ability=game.state.awaiting_targets[0].id or "", targets=["bears"], by="alice"))
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    assert len(_check_statements(game, event)) == 2
    assert [a.declines for a in _offered_statements(game)] == [["craghorn"]]
    game.push(ChooseOrder(by="alice", declines=["craghorn"]))
    for action in event:
        game.push(action)
    assert game.state.permanent("bears").tapped


def test_the_planeswalker_a_creature_put_onto_the_battlefield_attacking_attacks_is_offered() -> None:
    # CR 508.5: Preeminent Captain attacks and puts the Soldier from alice's hand onto the
    # battlefield tapped and attacking: it attacks bob (the default) or his Liliana Vess, her
    # choice; stated broadly (every object and player), only those two are positions
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "declare_attackers",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "soldier", "card": "Preeminent Captain"}],
                    "battlefield": [{"id": "captain", "card": "Preeminent Captain"}],
                },
                {"name": "bob", "battlefield": [{"id": "liliana", "card": "Liliana Vess", "counters": {"loyalty": 5}}]},
            ],
        }
    )
    game.push(DeclareAttackers(attackers={"captain": "bob"}))
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    targets = ["alice", "bob", "captain", "soldier", "liliana"]
    candidates = [ChooseOrder(by="alice", as_enters={"soldier": {"attacking": x}}) for x in targets]
    default = _reached(game, None, event)
    accepted = {r for c in candidates if (r := _reached(game, c, event)) is not None} | {default}
    offered = [s for s in _offered_statements(game) if s.as_enters]
    assert [s.as_enters for s in offered] == [{"soldier": {"attacking": "liliana"}}]
    assert {_reached(game, s, event) for s in offered} | {default} == accepted
    assert len(accepted) == 2
    assert not _accepted(game, ChooseOrder(by="alice", as_enters={"soldier": {"attacking": "captain"}}))
    game.push(offered[0])
    for action in event:
        game.push(action)
    assert game.state.permanent("soldier").attacking == "liliana"


def _activation_positions(game: Game, candidates: list[Activate]) -> tuple[set[str], set[str]]:
    """The canonical positions the accepted candidates reach, and those the offered
    activations of the same ability reach (each pushed, then popped); a hand's order aside
    (cards of one name are alike, 110.6d)."""
    source, number = candidates[0].source, candidates[0].ability

    def reached(action: Action) -> str:
        game.push(action)
        players = [p.model_copy(update={"hand": sorted(p.hand, key=lambda c: c.card)}) for p in game.state.players]
        text = canonical_text(game.state.model_copy(update={"players": players}))
        game.pop()
        return text

    accepted = {reached(c) for c in candidates if _accepted(game, c)}
    offered = [
        a for a in decisions(game).options if isinstance(a, Activate) and a.source == source and a.ability == number
    ]
    return accepted, {reached(a) for a in offered}


def test_every_card_to_discard_for_a_cost_is_offered() -> None:
    # CR 602.2b, 116.3: Psychatog's "Discard a card": alice discards the Bears or a Lightning
    # Bolt (two of one name are one choice, 110.6d); named broadly (each card of the game, none,
    # two), only one card of her hand is accepted
    game = _game(
        [
            {"id": "bolt", "card": "Lightning Bolt"},
            {"id": "bears", "card": "Grizzly Bears"},
            {"id": "bolt_2", "card": "Lightning Bolt"},
        ],
        [{"id": "tog", "card": "Psychatog"}],
        [{"id": "elves", "card": "Llanowar Elves"}],
    )
    ids = ["bolt", "bears", "bolt_2", "tog", "elves"]
    candidates = [
        Activate(source="tog", ability=1, by="alice", discard=list(d))
        for k in (0, 1, 2)
        for d in itertools.combinations(ids, k)
    ]
    accepted, offered = _activation_positions(game, candidates)
    assert accepted == offered and len(offered) == 2
    assert not _accepted(game, Activate(source="tog", ability=1, by="alice", discard=["bolt", "bears"]))
    game.push(Activate(source="tog", ability=1, by="alice", discard=["bears"]))
    assert [c.id for c in game.state.player("alice").graveyard] == ["bears"]


def test_every_exiled_card_to_put_into_a_graveyard_for_a_cost_is_offered() -> None:
    # CR 607.2b, 602.2b: Void Maw's "Put a card exiled with Void Maw into its owner's
    # graveyard": the Bears or the Elves exiled with it, not the Angel exiled otherwise
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [{"id": "maw", "card": "Void Maw"}],
                    "exile": [
                        {"id": "bears", "card": "Grizzly Bears", "exiled_with": "maw"},
                        {"id": "elves", "card": "Llanowar Elves", "exiled_with": "maw"},
                        {"id": "angel", "card": "Serra Angel"},
                    ],
                },
                {"name": "bob"},
            ],
        }
    )
    candidates = [
        Activate(source="maw", ability=1, by="alice", exiled=x) for x in (None, "bears", "elves", "angel", "maw")
    ]
    accepted, offered = _activation_positions(game, candidates)
    assert accepted == offered and len(offered) == 2
    game.push(Activate(source="maw", ability=1, by="alice", exiled="elves"))
    assert [c.id for c in game.state.player("alice").graveyard] == ["elves"]


def test_every_card_forbidden_crypt_can_return_is_offered() -> None:
    # CR 614.11: alice's draw is replaced by returning a card from her graveyard to her hand:
    # the Bears or a Lightning Bolt (two of one name are one choice), her choice (by default
    # the card put there last); stated, it is returned at her draw step
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "upkeep",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [{"id": "crypt", "card": "Forbidden Crypt"}],
                    "graveyard": [
                        {"id": "bolt", "card": "Lightning Bolt"},
                        {"id": "bears", "card": "Grizzly Bears"},
                        {"id": "bolt_2", "card": "Lightning Bolt"},
                    ],
                    "library": ["Forest"] * 3,
                },
                {"name": "bob", "library": ["Forest"] * 3},
            ],
        }
    )
    assert _picks(game) == [{"crypt": "bears"}, {"crypt": "bolt"}]
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]
    # the Bears, the first Bolt, the second (the default): the Bolts' positions differ by id only
    assert len(_check_statements(game, event, names_default=True)) == 3
    game.push(ChooseOrder(by="alice", picks={"crypt": "bears"}))
    assert _picks(game) == []
    for action in event:
        game.push(action)
    assert game.state.step == "draw" and [c.id for c in game.state.player("alice").hand] == ["bears"]


def _bob_holds_a_bolt(alice: dict[str, object]) -> Game:
    """Bob's main phase, turn 4: he holds Lightning Bolt (``spell``) beside a Mountain;
    alice's part of the position is given."""
    return Game.from_state(
        {
            "turn": 4,
            "active": "bob",
            "step": "main1",
            "players": [
                {"name": "alice", **alice},
                {"name": "bob", "hand": [{"id": "spell", "card": "Lightning Bolt"}], "battlefield": ["Mountain"]},
            ],
        }
    )


def test_every_order_of_the_cards_nefarious_lich_exiles_is_offered() -> None:
    # CR 614.1a: Lightning Bolt would deal 3 damage to alice, who controls Nefarious Lich: she
    # exiles three cards from her graveyard instead, her choice (by default those put there
    # first). Every list of her graveyard's cards stated (up to four) reaches the positions
    # the offered statements reach, one card added at a time (two Bolts are one kind)
    game = _bob_holds_a_bolt(
        {
            "battlefield": [{"id": "lich", "card": "Nefarious Lich"}],
            "graveyard": [
                {"id": "bolt", "card": "Lightning Bolt"},
                {"id": "bears", "card": "Grizzly Bears"},
                {"id": "bolt_2", "card": "Lightning Bolt"},
                {"id": "forest", "card": "Forest"},
            ],
            "library": ["Forest"] * 3,
        }
    )
    game.push(Cast(card="spell", targets=["alice"], by="bob"))
    game.push(Pass(by="bob"))
    event: list[Action] = [Pass(by="alice")]

    def exiled(statement: ChooseOrder | None) -> frozenset[str]:
        pushed = [statement] if statement is not None else []
        for action in [*pushed, *event]:
            game.push(action)
        # cards of one name are alike: what is exiled, by name and count
        names = frozenset(
            f"{c.card}#{i}" for i, c in enumerate(sorted(game.state.player("alice").exile, key=lambda c: c.card))
        )
        for _ in range(len(pushed) + len(event)):
            game.pop()
        return names

    ids = ["bolt", "bears", "bolt_2", "forest"]
    stated = [list(p) for k in range(5) for p in itertools.permutations(ids, k)]
    accepted = {exiled(ChooseOrder(by="alice", exiles=s)) for s in stated}

    def offered(depth: int) -> set[frozenset[str]]:
        return _walk_offered(game, lambda a: a.exiles, lambda: exiled(None), depth)

    assert sorted(a.exiles[0] for a in _offered_statements(game) if a.exiles) == ["bears", "bolt", "forest"]
    assert offered(3) == accepted and len(accepted) == 3


def test_a_card_named_twice_in_a_statement_is_moved_once() -> None:
    # a card stated twice to exile (Nefarious Lich), or named twice to discard for a cost, is
    # one card: it leaves once, and no card is made twice
    game = _bob_holds_a_bolt(
        {
            "battlefield": [{"id": "lich", "card": "Nefarious Lich"}, {"id": "tog", "card": "Psychatog"}],
            "hand": [{"id": "bears", "card": "Grizzly Bears"}, {"id": "elves", "card": "Llanowar Elves"}],
            "graveyard": [
                {"id": "bolt", "card": "Lightning Bolt"},
                {"id": "growth", "card": "Giant Growth"},
                {"id": "forest", "card": "Forest"},
            ],
        }
    )
    game.push(ChooseOrder(by="alice", exiles=["forest", "forest"]))
    game.push(Cast(card="spell", targets=["alice"], by="bob"))
    game.push(Pass(by="bob"))
    game.push(Pass(by="alice"))
    me = game.state.player("alice")
    assert sorted(c.id for c in me.exile) == ["bolt", "forest", "growth"] and me.graveyard == []
    game.push(Pass(by="bob"))
    game.push(Activate(source="tog", ability=1, by="alice", discard=["bears", "bears"]))
    me = game.state.player("alice")
    assert [c.id for c in me.hand] == ["elves"] and [c.id for c in me.graveyard] == ["bears"]


def test_every_count_of_cards_splinter_leaves_unfound_is_offered() -> None:
    # CR 701.14b: Splinter exiles bob's Howling Mine and searches his graveyard, hand and
    # library for the others: the one in his graveyard must be found; of the two in his hand
    # and the two in his library alice may find none, one or both (nine outcomes). Every set
    # of hidden cards stated unfound reaches the outcomes the offered statements reach, one
    # card added at a time (two Howling Mines in one zone are one kind)
    mine = "Howling Mine"
    game = Game.from_state(
        {
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "hand": [{"id": "spl", "card": "Splinter"}], "battlefield": ["Forest"] * 4},
                {
                    "name": "bob",
                    "battlefield": [{"id": "mine", "card": mine}],
                    "graveyard": [{"id": "m0", "card": mine}],
                    "hand": [{"id": "h1", "card": mine}, {"id": "h2", "card": mine}],
                    "library": [{"id": "m1", "card": mine}, "Island", {"id": "m2", "card": mine}],
                },
            ],
        }
    )
    game.push(Cast(card="spl", targets=["mine"], by="alice"))
    event: list[Action] = [Pass(by="alice"), Pass(by="bob")]

    def found(statement: ChooseOrder | None) -> tuple[int, int, int, int]:
        pushed = [statement] if statement is not None else []
        for action in [*pushed, *event]:
            game.push(action)
        bob = game.state.player("bob")
        # cards of one name in one zone are alike: how many Howling Mines are where
        reached = tuple(sum(c.card == mine for c in z) for z in (bob.hand, bob.library, bob.graveyard, bob.exile))
        for _ in range(len(pushed) + len(event)):
            game.pop()
        return reached  # type: ignore[return-value]

    hidden = ["h1", "h2", "m1", "m2"]
    stated = [list(s) for k in range(5) for s in itertools.combinations(hidden, k)]
    accepted = {found(ChooseOrder(by="alice", unfound={"spl": s})) for s in stated}

    def offered(depth: int) -> set[tuple[int, int, int, int]]:
        return _walk_offered(game, lambda a: a.unfound, lambda: found(None), depth)

    assert found(None) == (0, 0, 0, 6)  # by default all are found (and the one exiled)
    assert sorted(a.unfound["spl"][0] for a in _offered_statements(game) if a.unfound) == ["h1", "m1"]
    assert offered(4) == accepted and len(accepted) == 9
    # the graveyard's card must be found, and the Island is no card to leave
    assert not _accepted(game, ChooseOrder(by="alice", unfound={"spl": ["m0"]}))
    assert found(ChooseOrder(by="alice", unfound={"spl": ["h1", "island"]})) == (1, 0, 0, 5)


def _pariah(alice: list[object], shield: int = 0, against: list[str] | None = None) -> Game:
    """Alice's Pariah enchants her Wall of Stone, beside the permanents given, over a
    graveyard of four Forests, with a prevention shield and the sources whose next damage to
    her is prevented (a Circle of Protection's); bob casts Lightning Bolt at her and passes."""
    game = _bob_holds_a_bolt(
        {
            "prevention_shield": shield,
            "prevent_next_from": against or [],
            "battlefield": [
                {"id": "pariah", "card": "Pariah", "attached_to": "wall"},
                {"id": "wall", "card": "Wall of Stone"},
                *alice,
            ],
            "graveyard": ["Forest"] * 4,
        }
    )
    game.push(Cast(card="spell", targets=["alice"], by="bob"))
    game.push(Pass(by="bob"))
    return game


Outcome = tuple[int, int, int, int, int]


def _after_bolt(game: Game, statement: ChooseOrder | None) -> Outcome:
    """Alice's life, the damage on her Wall, the cards she exiled, her shield and the
    sources whose next damage is still prevented after the statement and the Bolt."""
    pushed = [statement] if statement is not None else []
    for action in [*pushed, Pass(by="alice")]:
        game.push(action)
    me = game.state.player("alice")
    wall = next(p.damage for p in me.battlefield if p.id == "wall")
    reached = (me.life, wall, len(me.exile), me.prevention_shield, len(me.prevent_next_from))
    for _ in range(len(pushed) + 1):
        game.pop()
    return reached


def _orders_reached(game: Game, sources: list[str]) -> tuple[set[Outcome], set[Outcome]]:
    """What the Bolt does after every order of the sources alice may state (up to all of
    them), and after the orders the offered statements reach, two sources named at a time."""
    stated = [list(p) for k in range(len(sources) + 1) for p in itertools.permutations(sources, k)]
    accepted = {_after_bolt(game, ChooseOrder(by="alice", replacements=s)) for s in stated}
    offered = _walk_offered(game, lambda a: a.replacements, lambda: _after_bolt(game, None), 2)
    return accepted, offered


def test_every_order_of_pariah_and_the_effects_on_damage_to_its_player_is_offered() -> None:
    # CR 616.1, 614.9, 615.9, 614.1a: the Bolt's 3 damage to alice, who controls Pariah,
    # Guardian Seraph and Nefarious Lich: redirected to the Wall first (3, the default); 1
    # prevented, then 2 redirected; 1 prevented, then 2 cards exiled instead; 3 cards exiled
    # instead. Every order stated reaches the outcomes the offered statements reach, a source
    # named at a time; once the damage is redirected, the others no longer apply (616.1d)
    game = _pariah([{"id": "seraph", "card": "Guardian Seraph"}, {"id": "lich", "card": "Nefarious Lich"}])
    accepted, offered = _orders_reached(game, ["pariah", "seraph", "lich"])
    assert sorted(a.replacements or [] for a in _offered_statements(game)) == [["lich"], ["pariah"], ["seraph"]]
    assert _after_bolt(game, None) == (20, 3, 0, 0, 0)
    assert offered == accepted == {(20, 3, 0, 0, 0), (20, 2, 0, 0, 0), (20, 0, 2, 0, 0), (20, 0, 3, 0, 0)}


def test_an_effect_applied_before_pariah_redirects_the_damage_applies_once() -> None:
    # CR 614.5, 616.1d: Furnace of Rath doubles the Bolt's damage to alice, then Pariah deals
    # it to her Wall: Furnace doesn't double it again; named after Pariah, Furnace doubles the
    # damage to the Wall instead. CR 615.7: her prevention shield of 2 comes first unless she
    # places it: 1 left, dealt to the Wall (doubled there, or before: 2 either way); after
    # Furnace, 6 less 2; after Pariah, it prevents nothing and stays
    game = _pariah([{"id": "furnace", "card": "Furnace of Rath"}], shield=2)

    def bolt(*order: str) -> Outcome:
        return _after_bolt(game, ChooseOrder(by="alice", replacements=list(order)) if order else None)

    assert bolt() == bolt("furnace") == bolt("prevention_shield", "furnace") == (20, 2, 0, 0, 0)
    assert bolt("furnace", "prevention_shield") == (20, 4, 0, 0, 0)
    assert bolt("pariah", "prevention_shield") == bolt("pariah", "furnace", "prevention_shield") == (20, 6, 0, 2, 0)
    assert bolt("furnace", "pariah", "prevention_shield") == (20, 6, 0, 2, 0)


def test_the_effects_that_prevent_all_damage_to_a_player_take_their_place_in_the_order() -> None:
    # CR 616.1, 615.1a: the Bolt's next damage to alice is prevented (a Circle of Protection's
    # shield against it); she also controls Nefarious Lich and Pariah. By default the
    # prevention comes first (the shield is used); named after Pariah, the Wall is dealt 3;
    # after the Lich, she exiles three cards; either way the shield stays for the next time.
    # Every order stated reaches the outcomes the offered statements reach
    game = _pariah([{"id": "lich", "card": "Nefarious Lich"}], against=["spell"])
    accepted, offered = _orders_reached(game, ["pariah", "lich", "prevention"])
    assert sorted(a.replacements or [] for a in _offered_statements(game)) == [["lich"], ["pariah"], ["prevention"]]
    assert offered == accepted == {(20, 0, 0, 0, 0), (20, 3, 0, 0, 1), (20, 0, 3, 0, 1)}
    assert _after_bolt(game, None) == (20, 0, 0, 0, 0)


def test_of_two_pariahs_the_one_named_first_redirects_the_damage() -> None:
    # CR 614.9, 616.1d: alice's two Pariahs each enchant a Wall: the one she names first
    # deals the Bolt's 3 damage to its Wall, and then the other no longer applies (the damage
    # is no longer dealt to her); by default the smallest id
    game = _pariah(
        [
            {"id": "pariah_2", "card": "Pariah", "attached_to": "wall_2"},
            {"id": "wall_2", "card": "Wall of Stone"},
        ]
    )
    assert sorted(a.replacements or [] for a in _offered_statements(game)) == [["pariah"], ["pariah_2"]]
    walls = []
    for statement in (None, ChooseOrder(by="alice", replacements=["pariah_2"])):
        for action in [*([statement] if statement else []), Pass(by="alice")]:
            game.push(action)
        me = game.state.player("alice")
        walls.append((me.life, sorted((p.id or "", p.damage) for p in me.battlefield if p.card == "Wall of Stone")))
        for _ in range(2 if statement else 1):
            game.pop()
    assert walls == [(20, [("wall", 3), ("wall_2", 0)]), (20, [("wall", 0), ("wall_2", 3)])]


def test_what_a_shield_before_pariah_prevents_of_two_attackers_is_offered() -> None:
    # CR 615.7, 616.1, 614.9: bob's Child of Night (lifelink) and Gray Ogre, unblocked, would
    # deal 2 combat damage each to alice; her prevention shield of 2 comes before Pariah, which
    # deals the rest to her Wall. What the shield prevents of the two is her choice, offered
    # as her announcement: the Child's 2 (the default, the smaller id), the Ogre's 2 (bob
    # gains 2 through lifelink) or 1 of each (he gains 1)
    game = Game.from_state(
        {
            "turn": 4,
            "active": "bob",
            "step": "declare_attackers",
            "players": [
                {
                    "name": "alice",
                    "prevention_shield": 2,
                    "battlefield": [
                        {"id": "pariah", "card": "Pariah", "attached_to": "wall"},
                        {"id": "wall", "card": "Wall of Stone"},
                    ],
                },
                {
                    "name": "bob",
                    "battlefield": [{"id": "child", "card": "Child of Night"}, {"id": "ogre", "card": "Gray Ogre"}],
                },
            ],
        }
    )
    game.push(DeclareAttackers(attackers={"child": "alice", "ogre": "alice"}))
    for action in (Pass(by="bob"), Pass(by="alice"), DeclareBlockers(blockers={})):
        game.push(action)
    game.push(Pass(by="bob"))
    game.push(Pass(by="alice"))
    game.push(AssignDamage(assignments={}, by="bob"))
    offered = [a for a in decisions(game).options if isinstance(a, AssignDamage) and a.by == "alice"]
    outcomes = set()
    for announcement in offered:
        game.push(announcement)
        wall = next(p.damage for p in game.state.player("alice").battlefield if p.id == "wall")
        outcomes.add((game.state.player("bob").life, wall, game.state.player("alice").prevention_shield))
        game.pop()
    assert len(offered) == 3 and outcomes == {(20, 2, 0), (21, 2, 0), (22, 2, 0)}
