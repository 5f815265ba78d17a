"""mtgasp diff --peer phase: boards from seeds, the classification of disagreements, the
known edition differences, and a small diff run against phase.rs (phase-python, the
``peers`` extra)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.game import Game
from bridge.play import diff
from bridge.play.peers import phase as peer

PEER_MISSING = peer.unavailable()
needs_peer = pytest.mark.skipif(PEER_MISSING is not None, reason=f"phase-python can't be imported: {PEER_MISSING}")


def test_a_board_depends_on_its_seed_alone() -> None:
    assert diff.make_board(7) == diff.make_board(7)
    assert diff.make_board(7) != diff.make_board(8)


def test_boards_are_made_of_cards_both_engines_know() -> None:
    kinds = diff.card_kinds()
    known = set(kinds.creatures + kinds.auras + kinds.enchantments + kinds.spells + kinds.lands)
    for seed in range(40):
        board = diff.make_board(seed)
        assert {p["card"] for p in board["permanents"]} | set(board["hand"]) <= known
        ids = {p["id"] for p in board["permanents"]}
        assert set(board["attack"]) <= ids
        assert all(a in board["attack"] for attackers in board["block"].values() for a in attackers)
        # the position is one mtgasp reads
        Game(diff.board_state(board))


def test_a_clean_board_has_no_damage_nor_minus_counters() -> None:
    board = next(
        b
        for b in map(diff.make_board, range(200))
        if any(p.get("damage") for p in b["permanents"])
        and any("-1/-1" in (p.get("counters") or {}) for p in b["permanents"])
    )
    clean = diff.board_state(board, clean=True)
    assert all(p.damage == 0 for p in clean.permanents())
    assert all("-1/-1" not in p.counters for p in clean.permanents())
    full = diff.board_state(board)
    assert any(p.damage for p in full.permanents())


def test_keywords_are_named_alike() -> None:
    assert diff._keywords(["double_strike", "landwalk(subtype(swamp))", "cant_block", "flying"]) == [
        "double strike",
        "flying",
        "swampwalk",
    ]
    assert peer._keyword("DoubleStrike") == "double strike"
    assert peer._keyword({"Landwalk": "Forest"}) == "forestwalk"
    assert peer._keyword("Flying") == "flying"


def _disagreement(kind: str, seed: int = 1) -> diff.Disagreement:
    return diff.Disagreement(seed, kind.split(":")[0], "p1", 1, 2, ("510.1",), "", kind)


def test_known_edition_differences_are_counted_apart() -> None:
    known = [diff.EditionDifference("order", "509.2", (r"block: mtgasp illegal \(509\.2\), phase legal",), "")]
    r = diff.BoardResult(1)
    for same in (True, True, False, False):
        r.count("block", same)
    r.disagreements = [
        diff.Disagreement(
            **{**_disagreement("block: mtgasp illegal (509.2), phase legal").__dict__, "edition": "order"}
        ),
        _disagreement("block: mtgasp legal, phase illegal"),
    ]
    assert diff._known("block: mtgasp illegal (509.2), phase legal", known) == "order"
    assert diff._known("block: mtgasp legal, phase illegal", known) is None
    summary = diff.summarize([r])
    assert summary.classes == {"block: mtgasp legal, phase illegal": 1}
    assert summary.known == {"order": 1}
    # 2 agreed of the 3 answers left once the known difference is set apart
    assert summary.agreement == pytest.approx(2 / 3)


def test_the_shipped_differences_each_name_a_rule_of_this_edition() -> None:
    from bridge.model.citations import read_rules_text
    from bridge.model.paths import rules_text_file

    known = diff.load_differences()
    assert known, "the file lists the known edition differences"
    text = rules_text_file()
    numbers = read_rules_text(text) if text is not None else None
    for d in known:
        assert d.classes and d.summary
        if numbers is not None:
            assert d.rule in numbers, d.id


def test_a_differences_file_that_cant_be_read_is_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "d.yaml"
    bad.write_text("- {id: x}\n")
    with pytest.raises(diff.InputError):
        diff.load_differences(bad)


def test_without_the_peer_the_command_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peer, "unavailable", lambda: "phase-python is not importable; " + peer.INSTALL_HINT)
    result = CliRunner().invoke(main, ["diff", "--boards", "1"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "pip install" in lines[0] and "[peers]" in lines[0]


@needs_peer
def test_a_small_diff_compares_every_question() -> None:
    results = diff.diff_boards(range(1, 7))
    assert [r.seed for r in results] == list(range(1, 7))
    assert all(r.error is None for r in results), [r.error for r in results]
    summary = diff.summarize(results)
    for question in ("characteristics", "sba", "actions", "attack", "block", "damage"):
        assert summary.compared.get(question, 0) > 0, question
    assert sum(summary.agreed.values()) <= sum(summary.compared.values())


@needs_peer
def test_a_peer_answer_that_differs_is_listed_with_the_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    honest = peer.PhaseBoard.characteristics

    def off_by_one(self: peer.PhaseBoard) -> dict[str, dict[str, object]]:
        answer = honest(self)
        for values in answer.values():
            values["power"] = int(str(values["power"])) + 1
        return answer

    monkeypatch.setattr(peer.PhaseBoard, "characteristics", off_by_one)
    (result,) = diff.diff_boards([3])
    found = [d for d in result.disagreements if d.question == "characteristics"]
    assert found and len(found) == result.compared["characteristics"]
    assert all(d.kind.startswith("characteristics: power of ") for d in found)
    assert all(d.peer["power"] == d.mtgasp["power"] + 1 for d in found)
    assert all(d.rules and "613" in d.rules[0] for d in found)


@needs_peer
def test_the_command_writes_the_summary(tmp_path: Path) -> None:
    out = tmp_path / "diff.json"
    result = CliRunner().invoke(main, ["diff", "--boards", "2", "--seed", "5", "--json", str(out)])
    assert result.exit_code in (0, 1), result.output
    assert "agreement" in result.output
    document = json.loads(out.read_text())
    assert document["boards"] == 2 and document["complete"]
    assert document["summary"]["compared"]["characteristics"] > 0
    assert result.exit_code == (1 if document["summary"]["classes"] or document["errors"] else 0)


@needs_peer
def test_a_division_the_order_forbids_is_a_known_edition_difference() -> None:
    # board 33: Giant Spider blocked by Serra Angel then Goblin King tries 1 and 3: CR 510.1c
    # forbids damage to the King before the Angel has lethal damage; today's rules have no
    # damage assignment order, and phase accepts it
    (result,) = diff.diff_boards([33], diff.load_differences())
    (found,) = [d for d in result.disagreements if d.question == "assignment"]
    assert found.mtgasp is False and found.peer == "accepted"
    assert "510.1c" in found.rules
    assert found.edition == "damage_assignment_order"
    summary = diff.summarize([result])
    assert summary.known == {"damage_assignment_order": 1}
    assert "assignment: mtgasp illegal (510.1, 510.1c), phase legal" not in summary.classes
