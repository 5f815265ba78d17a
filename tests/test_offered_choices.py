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

import pytest

from bridge.engine.game import Game
from bridge.model.actions import Action, AnswerOffer, Cast, ChooseTargets, Pass
from bridge.model.errors import IllegalActionError, InputError
from bridge.play.agents import decisions
from bridge.play.brute import action_key


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
