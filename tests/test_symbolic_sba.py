"""mtgasp verify --prove: state-based actions reach a fixpoint, proven over every small position
(and every position they lead to) by one search of the solver for a state-based action that
applies and takes nothing away.  A rule planted in the program that makes no progress is
found, with its position read back; the positions searched are closed under performing
state-based actions (an Aura whose creature left, a permanent that keeps its place when the
one before it leaves, no permanent at all)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine import sba as sba_engine
from bridge.engine.board import Board
from bridge.engine.sba import perform_state_based_actions
from bridge.model.cards import CardPool
from bridge.model.errors import InputError
from bridge.model.state import GameState
from bridge.play import symbolic_sba
from bridge.play import verify as verify_module
from bridge.play.positions import MAIN, Piece, Position, elements, random_positions
from bridge.play.symbolic_sba import prove_sba
from bridge.play.verify import read_pool, verify

POOL = CardPool.default()
# an Aura with no creature goes (704.5n), two Mirris go (704.5k), Equipment on a creature
CARDS = ["Grizzly Bears", "Pacifism", "Mirri, Cat Warrior", "Bonesplitter", "Forest"]
# an Equipment that is attached to nothing "becomes unattached" again and again
NO_PROGRESS = 'sba(unattach(O), "704.5p") :- permanent(O), has_subtype(O, equipment), not attached(O, _).\n'


def planted(monkeypatch: pytest.MonkeyPatch, rules: str) -> None:
    """The search's program with ``rules`` added."""
    monkeypatch.setattr(symbolic_sba, "GOAL", symbolic_sba.GOAL + rules)
    symbolic_sba._grounded.cache_clear()


def test_the_rules_hold() -> None:
    found = prove_sba(CARDS, max_permanents=2, pool=POOL)
    # a chunk for each first permanent, and one for the position without permanents
    assert found.complete and found.holds and found.chunks_done == found.chunks == len(elements(POOL, CARDS)) + 1


def test_an_action_that_takes_nothing_away_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, NO_PROGRESS)
    found = prove_sba(CARDS, max_permanents=2, pool=POOL, limit=100)
    assert found.complete and not found.holds
    for failure in found.failures:
        assert failure.property == "sba" and failure.declaration is None
        assert "the state-based action unattach(bonesplitter" in failure.problem
        equipment = [i for i, p in enumerate(failure.position.pieces) if p.card == "Bonesplitter"]
        assert equipment and all(failure.position.attached[i] is None for i in equipment)
    # one failure for each chunk whose positions may have a Bonesplitter: those whose first
    # permanent is one (it comes first), on either side, tapped or not
    firsts = {f.position.pieces[0] for f in found.failures}
    assert len(found.failures) == len(firsts) == 4 and {p.card for p in firsts} == {"Bonesplitter"}


def test_what_the_actions_take_away_is_read_from_the_position(monkeypatch: pytest.MonkeyPatch) -> None:
    # the progress of a permanent put into a graveyard is its being on the battlefield: taken
    # out, every two Mirris (704.5k, this edition: whoever controls them) are a failure
    rule = "g_progress(to_graveyard(O)) :- sba(to_graveyard(O), _), permanent(O)."
    assert rule in symbolic_sba.GOAL
    monkeypatch.setattr(symbolic_sba, "GOAL", symbolic_sba.GOAL.replace(rule, ""))
    symbolic_sba._grounded.cache_clear()
    found = prove_sba(["Mirri, Cat Warrior", "Forest"], max_permanents=2, pool=POOL, limit=1000)
    assert found.failures
    for failure in found.failures:
        assert "the state-based action to_graveyard(mirri_cat_warrior" in failure.problem
        assert [p.card for p in failure.position.pieces] == ["Mirri, Cat Warrior"] * 2


@pytest.mark.parametrize(
    ("rule", "pieces"),
    [
        # an Aura whose creature left: attached to nothing beside a creature
        (
            "g_fail(sba, no_progress, planted) :- g_at(S, E), g_elem(E, C, _), g_aura(C), not g_attach(S, _),"
            " g_creature_at(_).",
            2,
        ),
        # the permanent before it left: places filled from the second
        ("g_fail(sba, no_progress, planted) :- g_used(2), not g_used(1).", 1),
        # every permanent left
        ("g_fail(sba, no_progress, planted) :- not g_any.", 0),
    ],
    ids=["aura-whose-creature-left", "first-place-empty", "no-permanent"],
)
def test_the_positions_state_based_actions_lead_to_are_searched(
    monkeypatch: pytest.MonkeyPatch, rule: str, pieces: int
) -> None:
    planted(monkeypatch, rule + "\n")
    found = prove_sba(CARDS, max_permanents=2, pool=POOL, limit=1000)
    assert found.failures and all(len(f.position.pieces) == pieces for f in found.failures)
    if pieces == 2:
        for failure in found.failures:
            aura = next(i for i, p in enumerate(failure.position.pieces) if p.card == "Pacifism")
            assert failure.position.attached[aura] is None
            assert any(p.card in ("Grizzly Bears", "Mirri, Cat Warrior") for p in failure.position.pieces)


def test_verify_keeps_what_the_search_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, NO_PROGRESS)
    report = verify(CARDS, max_permanents=1, properties=["sba"], pool=POOL, prove=True, rules_text=frozenset())
    assert report.complete and [s.kind for s in report.searches] == ["sba"]
    assert report.checked["sba"] == 0  # proven, not checked position by position
    # the engine has no such rule: each finding says what the search found, a Bonesplitter on
    # either side, tapped or not, in the main phase
    found = sorted((f.state.players[1].battlefield != [], f.state.permanents()[0].tapped) for f in report.findings)
    assert found == [(s, t) for s in (False, True) for t in (False, True)]
    for finding in report.findings:
        assert finding.property == "sba" and finding.message.startswith("the proof over every position:")
        assert finding.state.step == "main1" and finding.action is None
        assert [p.card for p in finding.state.permanents()] == ["Bonesplitter"]


def measure(state: GameState) -> int:
    """What the proof's measure counts: permanents, attachments, counters, regeneration
    shields, players still in the game."""
    permanents = state.permanents()
    return (
        len(permanents)
        + sum(p.attached_to is not None for p in permanents)
        + sum(sum(p.counters.values()) + p.regeneration_shields for p in permanents)
        + sum(not p.lost for p in state.players)
    )


def test_the_engine_performs_each_action_as_the_proof_takes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # what the proof leans on: every round the engine performs takes away what its actions
    # name and adds nothing the measure counts; random positions of the pool verify (damage,
    # counters, Auras and Equipment attached at random) with state-based actions performed
    rounds = []
    real = sba_engine.apply_sba

    def recorded(state: GameState, actions: list[Any], *args: Any, **kwargs: Any) -> GameState:
        after = real(state, actions, *args, **kwargs)
        rounds.append((state, actions, after))
        return after

    monkeypatch.setattr(sba_engine, "apply_sba", recorded)
    cards = read_pool("verify", POOL)
    # and an Equipment and an Aura attached to a land (704.5p, 704.5n), which play doesn't lead to
    illegal = [
        Position((Piece("Bonesplitter", 0), Piece("Forest", 0), Piece("Grizzly Bears", 1)), (1, None, None), ()),
        Position((Piece("Forest", 1), Piece("Pacifism", 0)), (None, 0), ()),
    ]
    for position in [*random_positions(POOL, cards, 2, 6, 120, seed=7), *illegal]:
        perform_state_based_actions(Board(position.state(MAIN), POOL))
    performed = {a.name for _, actions, _ in rounds for a in actions}
    assert len(rounds) >= 20 and {"to_graveyard", "destroy", "unattach"} <= performed
    for before, actions, after in rounds:
        assert measure(after) < measure(before)
        old = {p.id: p for p in before.permanents()}
        now = {p.id: p for p in after.permanents()}
        for action in actions:
            target = action.arguments[0].string
            if action.name in ("to_graveyard", "destroy"):
                assert target not in now
            elif action.name == "unattach":
                assert now[target].attached_to is None
        for oid, perm in now.items():  # nothing new: no permanent, attachment or counter
            assert oid in old and perm.attached_to in (None, old[oid].attached_to)
            assert all(n <= old[oid].counters.get(kind, 0) for kind, n in perm.counters.items())


def test_positions_are_not_made_when_every_property_asked_is_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    # up to 4 permanents of the pool verify they are millions, made for nothing
    def made(*args: object) -> list[object]:
        raise AssertionError("the exhaustive positions were made")

    monkeypatch.setattr(verify_module, "exhaustive_positions", made)
    report = verify(CARDS, max_permanents=2, properties=["sba"], pool=POOL, prove=True)
    assert report.complete and report.searches[0].holds and report.positions == 0


def test_bad_input() -> None:
    with pytest.raises(InputError, match="at least one permanent"):
        prove_sba(CARDS, max_permanents=0)


def test_command_prove(tmp_path: Path) -> None:
    summary = tmp_path / "v.json"
    args = ["verify", "--cards", "Grizzly Bears,Pacifism", "--max-permanents", "2", "--properties", "sba"]
    result = CliRunner().invoke(
        main, [*args, "--positions", "0", "--prove", "--json", str(summary), "--out", str(tmp_path / "findings")]
    )
    assert result.exit_code == 0, result.output
    assert "sba proven over every position of up to 2 permanent(s) and those it leads to" in result.output
    assert "checked: nothing" in result.output
    data = json.loads(summary.read_text())
    assert [(s["kind"], s["holds"], s["chunks_done"]) for s in data["searches"]] == [("sba", True, 7)]
