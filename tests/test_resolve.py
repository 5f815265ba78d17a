"""What a resolving spell or ability does: the rules' answers the bridge applies (stack/*.lp,
regeneration.lp) and the bridge's table of result kinds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from bridge.engine.acting import permanent_card
from bridge.engine.game import Game
from bridge.engine.resolve import RESULTS
from bridge.engine.solver import Session
from bridge.model.actions import AnswerOffer, Cast, Pass
from bridge.model.cards import ResolveStep
from bridge.model.paths import rules_dir

ROOT = Path(__file__).resolve().parent.parent


def atoms(modules: tuple[str, ...], facts: str, name: str) -> list[str]:
    model = Session(modules, facts).solve().model
    return sorted(str(s) for s in model if s.name == name)


def test_every_result_the_rules_show_has_a_kind_the_bridge_applies() -> None:
    shown = set()
    for path in rules_dir().glob("stack/*.lp"):
        shown |= set(re.findall(r"^result\((\w+)", path.read_text(), re.M))
    assert shown, "no result/1 rule found"
    assert shown <= set(RESULTS), shown - set(RESULTS)
    # and the bridge knows no kind the rules never show
    assert set(RESULTS) <= shown, set(RESULTS) - shown


DELAYED = ("inputs", "stack/delayed")


def test_a_delayed_ability_triggers_on_its_permanent_leaving() -> None:
    facts = 'delayed_trigger("d", leaves_battlefield). delayed_watch("d", "m"). event(leaves("m")).'
    assert atoms(DELAYED, facts, "delayed_triggers") == ['delayed_triggers("d")']
    assert atoms(DELAYED, facts.replace('leaves("m")', 'leaves("x")'), "delayed_triggers") == []


def test_an_untapping_in_the_action_that_created_the_ability_does_not_trigger_it() -> None:
    # CR 603.7a: the untapping may have come before the ability existed
    facts = (
        'delayed_trigger("d", leaves_battlefield_or_becomes_untapped). delayed_watch("d", "m"). '
        'event(becomes_untapped("m")).'
    )
    assert atoms(DELAYED, facts, "delayed_triggers") == ['delayed_triggers("d")']
    assert atoms(DELAYED, facts + ' delayed_new("d").', "delayed_triggers") == []
    assert (
        atoms(
            DELAYED, facts.replace("leaves_battlefield_or_becomes_untapped", "leaves_battlefield"), "delayed_triggers"
        )
        == []
    )


def test_a_delayed_ability_at_a_moment_triggers_as_its_step_begins() -> None:
    facts = 'delayed_trigger("c", end_of_combat). delayed_trigger("e", next_end_step).'
    assert atoms(DELAYED, facts + " step(end_of_combat).", "delayed_triggers") == ['delayed_triggers("c")']
    assert atoms(DELAYED, facts + " step(end).", "delayed_triggers") == ['delayed_triggers("e")']
    assert atoms(DELAYED, facts + " step(main2).", "delayed_triggers") == []


REGENERATION = (
    "inputs",
    "characteristics/effects",
    "characteristics/final",
    "characteristics/pt",
    "replacement",
    "sba",
    "regeneration",
)
# a 2/2 with lethal damage (CR 704.5g)
BOA = """permanent("b"). card_of("b", "boa"). controller_of("b", "p"). damage("b", 2).
card_value("boa", type, creature). card_value("boa", power_base, 2). card_value("boa", toughness_base, 2)."""


def test_regeneration_changes_once_and_removes_from_combat_only_what_is_in_combat() -> None:
    shielded = BOA + ' regeneration_shields("b", 1). deathtouch_damage("b").'
    assert atoms(REGENERATION, shielded, "regeneration") == [
        'regeneration("b",remove_damage)',
        'regeneration("b",tap)',
        'regeneration("b",use_shield)',
    ]
    assert atoms(REGENERATION, shielded + ' blocking("b", "w").', "regeneration") == [
        'regeneration("b",remove_damage)',
        'regeneration("b",remove_from_combat)',
        'regeneration("b",tap)',
        'regeneration("b",use_shield)',
    ]
    assert atoms(REGENERATION, BOA, "regeneration") == []
    assert atoms(REGENERATION, BOA, "sba") == ['sba(destroy("b"),"704.5g")']


def test_a_steps_count_of_other_permanents_is_refused_not_ignored() -> None:
    with pytest.raises(ValidationError, match="other"):
        ResolveStep.model_validate({"create_tokens": {"card": "Soldier"}, "count": {"type": "creature", "other": True}})
    ResolveStep.model_validate({"create_tokens": {"card": "Soldier"}, "count": {"type": "creature"}})


def test_a_clones_text_is_the_card_the_rules_say_it_copies() -> None:
    game = Game.from_state(
        {
            "active": "alice",
            "players": [
                {
                    "name": "alice",
                    "battlefield": [
                        {"id": "pyro", "card": "Prodigal Pyromancer"},
                        {"id": "clone", "card": "Clone", "chosen": {"copy": "pyro"}},
                        {"id": "clone2", "card": "Clone", "chosen": {"copy": "clone"}},
                        {"id": "bears", "card": "Grizzly Bears"},
                    ],
                },
                {"name": "bob"},
            ],
        }
    )
    assert permanent_card(game, "clone").name == "Prodigal Pyromancer"
    assert permanent_card(game, "clone2").name == "Prodigal Pyromancer"
    assert permanent_card(game, "bears").name == "Grizzly Bears"


def _mana_leak_waiting() -> Game:
    game = Game.from_state(
        {
            "active": "alice",
            "step": "main1",
            "players": [
                {"name": "alice", "hand": ["Grizzly Bears"], "battlefield": ["Forest"] * 5},
                {"name": "bob", "hand": ["Mana Leak"], "battlefield": ["Island", "Island"]},
            ],
        }
    )
    game.push(Cast(card="grizzly_bears"))
    game.push(Pass())
    game.push(Cast(card="mana_leak", targets=["grizzly_bears"]))
    game.push(Pass())
    game.push(Pass())
    return game


def test_608_2f_a_resolving_offer_waits_for_its_answer_and_nobody_acts_meanwhile() -> None:
    game = _mana_leak_waiting()
    offer = game.state.awaiting_payment
    assert offer is not None and (offer.object, offer.player) == ("mana_leak", "alice")
    assert [s.id for s in game.state.stack] == ["mana_leak", "grizzly_bears"]
    verdict = game.check(Pass())
    assert not verdict.legal and [v.rule for v in verdict.violations] == ["608.2f"]
    # bob is not the one asked
    assert not game.check(AnswerOffer(by="bob", pays=False)).legal
    game.push(AnswerOffer(by="alice", pays=True))
    assert game.state.awaiting_payment is None
    assert [s.id for s in game.state.stack] == ["grizzly_bears"]
    assert game.state.player("alice").mana_pool == ""
    assert sum(p.tapped for p in game.state.permanents() if p.card == "Forest") == 5
