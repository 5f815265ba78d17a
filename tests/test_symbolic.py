"""mtgasp verify --prove: the characteristics proven over every small position at once by the
solver.  The proof's positions are the enumeration's, its program gives a position the
engine's answers, and each way the characteristics can fail (a second value, an answer that
depends on names or timestamps, an integrity constraint, several answer sets, none) is
found when a rule planted in the modules makes it fail."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.board import Board
from bridge.model.cards import CardPool
from bridge.model.errors import InputError
from bridge.play import symbolic
from bridge.play.positions import MAIN, Piece, Position, elements, exhaustive_positions, positions_from
from bridge.play.sweep import Backend
from bridge.play.symbolic import position_answers, prove_characteristics
from bridge.play.verify import read_pool, verify

POOL = CardPool.default()
# a creature, a land, an Aura, an Equipment, an anthem and a lord: every kind of piece
CARDS = ["Grizzly Bears", "Forest", "Pacifism", "Bonesplitter", "Glorious Anthem", "Goblin Chieftain"]


def planted(monkeypatch: pytest.MonkeyPatch, rules: str) -> None:
    """The proof's program with ``rules`` added to the characteristics modules (in both copies,
    each with its own predicates)."""
    real = symbolic.prefixed_statements

    def statements(modules: tuple[str, ...], prefix: str, where: list[str], constraint: str, facts: str = "") -> list:
        return real(modules, prefix, where, constraint, facts=f"{facts}\n{rules}")

    monkeypatch.setattr(symbolic, "prefixed_statements", statements)
    fresh()


def fresh() -> None:
    """No program kept from a proof before (each process keeps the last one it grounded)."""
    symbolic._program.cache_clear()


def small(cards: list[str] = CARDS, k: int = 2, renamed: bool = False) -> symbolic.Proof:
    return prove_characteristics(cards, max_permanents=k, pool=POOL, renamed=renamed)


def test_the_proof_answers_every_exhaustive_position_once() -> None:
    proof = small()
    count = sum(1 for _ in exhaustive_positions(POOL, CARDS, 2, True))
    assert proof.positions == count and proof.answered == count
    assert proof.complete and proof.holds
    assert (proof.counterexamples, proof.several, proof.unanswered) == ([], [], [])


def test_the_proof_sees_a_position_made_twice_or_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    # without its symmetry breaking the generator makes each multiset in every order (but
    # the first place, which holds the least permanent of the chunk: three permanents)
    generator = symbolic.GENERATOR.replace(":- g_at(S, E), g_at(S + 1, F), F < E.\n", "")
    monkeypatch.setattr(symbolic, "GENERATOR", generator)
    fresh()
    proof = small(CARDS[:3], k=3)
    assert proof.complete and proof.answered == proof.positions and proof.foreign > 0 and not proof.holds
    assert all(list(p.pieces) != sorted(p.pieces) for p in proof.foreign_examples)
    # with an Aura attached to nothing even when there is a creature, too many; with the
    # Equipment never attached, too few
    monkeypatch.setattr(symbolic, "GENERATOR", symbolic.GENERATOR.replace("1 {{ g_attach", "{{ g_attach"))
    fresh()
    proof = small()
    assert proof.foreign > 0 and not proof.holds
    monkeypatch.setattr(
        symbolic,
        "GENERATOR",
        symbolic.GENERATOR.replace(
            "}} 1 :- g_at(S, E), g_elem(E, C, P), g_equipment(C).",
            "}} 0 :- g_at(S, E), g_elem(E, C, P), g_equipment(C).",
        ),
    )
    fresh()
    proof = small()
    assert proof.unanswered and all(p.attached.count(None) < len(p.attached) for p in proof.unanswered)
    assert proof.answered < proof.positions and not proof.holds


def test_the_program_gives_a_position_the_engines_answers() -> None:
    cards = read_pool("verify", POOL)
    positions = list(exhaustive_positions(POOL, cards, 2, True))
    for position in random.Random(3).sample(positions, 12) + [
        Position((Piece("Humility", 0), Piece("Captain of the Watch", 1)), (None, None), ()),
        Position((Piece("Grizzly Bears", 0), Piece("Rancor", 1)), (None, 0), ("Giant Growth",)),
    ]:
        ours = position_answers(position, pool=POOL)
        engine = Board(position.state(MAIN), POOL).characteristic_answers()
        assert len(ours) == 1 and len(engine) == 1
        assert {o: {k: sorted(map(str, v)) for k, v in d.items()} for o, d in ours[0].items()} == {
            o: {k: sorted(map(str, v)) for k, v in d.items()} for o, d in engine[0].items()
        }, position


def test_a_second_power_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, "power(O, 7) :- permanent(O), tapped(O), has_type(O, creature).")
    proof = small(["Grizzly Bears", "Forest"], 1)
    assert proof.answered == proof.positions == 8  # each card on either side, tapped or not
    assert [c.position.pieces for c in proof.counterexamples] == [
        (Piece("Grizzly Bears", 0, True),),
        (Piece("Grizzly Bears", 1, True),),
    ]
    assert proof.counterexamples[0].problems == ("the permanent at place 1 has 2 values of power",)


def test_an_answer_that_depends_on_the_timestamps_values_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, "has_color(O, red) :- permanent(O), timestamp(O, T), T < 2.")
    assert small(["Grizzly Bears"], 2).holds  # without the renamed copy, nothing to compare
    proof = small(["Grizzly Bears"], 2, renamed=True)
    assert len(proof.counterexamples) == proof.positions and not proof.holds
    assert "has_color red in one copy only" in proof.counterexamples[0].problems[0]


def test_an_integrity_constraint_that_rejects_a_position_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, ':- permanent(O), card_of(O, "forest"), tapped(O).')
    proof = small(["Grizzly Bears", "Forest"], 1)
    assert [c.position.pieces for c in proof.counterexamples] == [
        (Piece("Forest", 0, True),),
        (Piece("Forest", 1, True),),
    ]
    assert "an integrity constraint would reject it: the facts:" in proof.counterexamples[0].problems[0]


def test_several_answer_sets_and_none_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, "has_color(O, blue) :- permanent(O), card_of(O, \"forest\"), not _planted(O).\n"
                         "_planted(O) :- permanent(O), card_of(O, \"forest\"), not has_color(O, blue).")  # fmt: skip
    proof = small(["Grizzly Bears", "Forest"], 1)
    assert {p.pieces[0].card for p in proof.several} == {"Forest"} and not proof.holds
    monkeypatch.undo()
    planted(monkeypatch, '_odd(O) :- permanent(O), card_of(O, "forest"), not _odd(O).')
    proof = small(["Grizzly Bears", "Forest"], 1)
    assert proof.answered == 4 and {p.pieces[0].card for p in proof.unanswered} == {"Forest"}


def test_verify_proves_and_confirms_what_it_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    report = verify(CARDS, max_permanents=2, properties=["characteristics", "sba"], prove=True, pool=POOL)
    assert report.proof is not None and report.proof.holds and report.findings == []
    # sba proven by its search (bridge/play/symbolic_sba.py), not checked position by position
    assert report.checked == {"characteristics": report.proof.positions, "sba": 0}
    assert [(s.kind, s.holds) for s in report.searches] == [("sba", True)]
    # a planted second power: the enumeration's check confirms it too, and shrinks it
    planted(monkeypatch, "power(O, 7) :- permanent(O), tapped(O), has_type(O, creature).")

    real = Board.characteristic_answers

    def planted_answers(self: Board) -> list[dict[str, dict[str, list[int | str]]]]:
        answers = real(self)
        for perm in self.state.permanents():
            if perm.tapped and perm.card == "Grizzly Bears":
                answers[0][perm.id or ""]["power"].append(7)
        return answers

    monkeypatch.setattr(Board, "characteristic_answers", planted_answers)
    report = verify(
        ["Grizzly Bears", "Forest"], max_permanents=2, properties=["characteristics"], prove=True, pool=POOL
    )
    assert report.proof is not None and len(report.proof.counterexamples) > 2
    # a tapped Bears on either side
    assert [(f.property, [(p.card, p.tapped) for p in f.state.permanents()]) for f in report.findings] == [
        ("characteristics", [("Grizzly Bears", True)])
    ] * 2


def test_a_finding_the_position_by_position_check_does_not_see_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, "has_color(O, red) :- permanent(O), timestamp(O, T), T < 2.")
    report = verify(
        ["Grizzly Bears"], max_permanents=1, properties=["characteristics"], prove=True, renamed_copy=True, pool=POOL
    )
    assert report.findings and report.findings[0].message.startswith("the proof over every position: ")


def test_bad_input() -> None:
    with pytest.raises(InputError, match="at least one permanent"):
        prove_characteristics(CARDS, max_permanents=0)
    with pytest.raises(InputError, match="Lightning Bolt"):
        position_answers(Position((Piece("Lightning Bolt", 0),), (None,), ()))
    with pytest.raises(InputError, match="Glorious Anthem"):  # an enchantment is never tapped
        position_answers(Position((Piece("Glorious Anthem", 0, True),), (None,), ()))


def test_the_proof_is_the_same_in_processes() -> None:
    here = small(renamed=True)
    there = prove_characteristics(CARDS, max_permanents=2, pool=POOL, renamed=True, backend=Backend("local", jobs=2))
    assert (there.positions, there.answered, there.holds) == (here.positions, here.answered, True)
    assert there.cpu_seconds > 0


def test_the_time_limit_stops_the_proof() -> None:
    proof = prove_characteristics(CARDS, max_permanents=2, deadline=0.0)
    assert not proof.complete and not proof.holds and proof.answered == 0


def test_command_prove(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = CliRunner().invoke(
        main,
        ["verify", "--cards", ",".join(CARDS), "--max-permanents", "2", "--positions", "0", "--prove",
         "--renamed-copy", "--properties", "characteristics", "--jobs", "2", "--json", str(out),
         "--out", str(tmp_path / "f")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    count = sum(1 for _ in exhaustive_positions(POOL, CARDS, 2, True))
    assert (
        f"characteristics proven over {count} of the {count} positions of 1 to 2 permanent(s), with ids renamed "
        "and timestamps shifted in a second copy" in result.output
    )
    summary = json.loads(out.read_text())
    assert summary["proof"]["holds"] is True and summary["checked"] == {"characteristics": count}


def test_the_chunks_are_the_exhaustive_positions() -> None:
    pieces = elements(POOL, CARDS)
    chunks = [list(positions_from(POOL, CARDS, 3, True, first)) for first in range(len(pieces))]
    assert all(p.pieces[0] == pieces[first] for first, chunk in enumerate(chunks) for p in chunk)
    assert [p for chunk in chunks for p in chunk] == sorted(
        exhaustive_positions(POOL, CARDS, 3, True), key=lambda p: (p.pieces[0], len(p.pieces))
    )
