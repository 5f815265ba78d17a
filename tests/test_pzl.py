"""Forge's .pzl puzzle files: read into puzzles, imported as YAML, solved; every problem listed with its line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bridge.cli import main
from bridge.io.pzl import PzlError, load_pzl, parse_pzl
from bridge.io.scenarios import run_scenario
from bridge.model.paths import shared_folder
from bridge.model.puzzle import load_puzzle
from bridge.model.scenario import Scenario

HERE = Path(__file__).parent / "pzl"
# Forge's own files are read where they are kept (shared/puzzles/forge beside the checkout):
# Forge's data, not the project's, so not copied into it
FORGE_FOLDER = shared_folder("puzzles", "forge")
FORGE = sorted(FORGE_FOLDER.glob("*.pzl")) if FORGE_FOLDER is not None else []
needs_forge = pytest.mark.skipif(FORGE_FOLDER is None, reason="shared/puzzles/forge is not beside the checkout")


def _forge(name: str) -> Path:
    assert FORGE_FOLDER is not None
    return FORGE_FOLDER / name


HEAD = "[metadata]\nName:t\nGoal:Win\nTurns:1\n[state]\nactiveplayer=human\nactivephase=main1\n"


def _problems(text: str) -> list[str]:
    with pytest.raises(PzlError) as caught:
        parse_pzl(text)
    return [str(p) for p in caught.value.problems]


@needs_forge
def test_the_ten_forge_files_are_there() -> None:
    assert len(FORGE) == 10


@needs_forge
@pytest.mark.parametrize("path", FORGE, ids=lambda p: p.stem)
def test_each_forge_file_imports_or_exits_2_listing_its_problems_by_line(path: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["import", str(path), "-o", str(tmp_path / "out.yaml")])
    if result.exit_code == 0:
        assert load_puzzle(tmp_path / "out.yaml").goal.player == "human"
    else:
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        lines = [line for line in result.output.splitlines() if line.startswith("error:")]
        assert len(lines) >= 2
        assert all(": line " in line for line in lines[:-1])
        assert not (tmp_path / "out.yaml").exists()


@needs_forge
def test_mtgp_09_lists_its_unknown_cards_by_line() -> None:
    with pytest.raises(PzlError) as caught:
        load_pzl(_forge("MTGP_09.pzl"))
    assert [str(p) for p in caught.value.problems] == [
        "line 15: unknown card 'Watery Grave' (not in the card pool)",
        "line 15: unknown card 'Talisman of Impulse' (not in the card pool)",
        "line 15: unknown card 'Mana Crypt' (not in the card pool)",
        "line 16: unknown card 'Legacy Weapon' (not in the card pool)",
        "line 16: unknown card 'Nimbus Maze' (not in the card pool)",
        "line 16: unknown card 'City of Traitors' (not in the card pool)",
        "line 16: unknown card 'Fungal Reaches' (not in the card pool)",
        "line 16: unknown card 'River of Tears' (not in the card pool)",
        "line 16: unknown card 'Caves of Koilos' (not in the card pool)",
    ]


@needs_forge
def test_inq01_lists_its_unsupported_links_and_counts_repeated_cards() -> None:
    with pytest.raises(PzlError) as caught:
        load_pzl(_forge("INQ01.pzl"))
    problems = [str(p) for p in caught.value.problems]
    assert "line 17: Isochron Scepter: the modifier 'Imprinting:8' is not supported" in problems
    assert "line 18: Accumulated Knowledge: the modifier 'ExiledWith:9' is not supported" in problems
    assert "line 23: unknown card 'Sterling Grove' (not in the card pool) (2 times)" in problems
    assert "line 5: the goal's permanent 'Broodstar' is not in the card pool" in problems
    assert [p.line for p in caught.value.problems] == sorted(p.line or 0 for p in caught.value.problems)


def test_a_small_puzzle_imports_as_its_yaml_and_solves(tmp_path: Path) -> None:
    out = tmp_path / "bolt.yaml"
    result = CliRunner().invoke(main, ["import", str(HERE / "bolt_the_blocker.pzl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert load_puzzle(out) == load_pzl(HERE / "bolt_the_blocker.pzl")
    data = yaml.safe_load(out.read_text())
    human, ai = data["state"]["players"]
    assert ai["life"] == 4 and data["goal"] == {"player": "human", "turn": 1}
    assert [c["card"] for c in human["library"]] == ["Mountain", "Mountain"]
    solved = CliRunner().invoke(main, ["solve", str(HERE / "bolt_the_blocker.pzl"), "--time-limit", "60"])
    assert solved.exit_code == 0, solved.output
    assert solved.output.startswith("win: human wins")
    assert "human: cast Lightning Bolt targeting Goblin" in solved.output.splitlines()[1]


def test_modifiers_land_in_the_state() -> None:
    puzzle = load_pzl(HERE / "bolt_the_blocker.pzl")
    human, ai = puzzle.state.players
    by_card = {p.card: p for p in human.battlefield}
    assert [p.tapped for p in human.battlefield if p.card == "Mountain"] == [False, True]
    assert by_card["Grizzly Bears"].counters == {"+1/+1": 1}
    assert by_card["Holy Strength"].attached_to == by_card["Grizzly Bears"].id
    assert by_card["Craw Wurm"].sick and not by_card["Grizzly Bears"].sick
    goblin = ai.battlefield[0]
    assert goblin.card == "Goblin" and goblin.token


def test_crlf_comments_blank_lines_and_case_of_keys() -> None:
    text = (
        "# before\r\n[metadata]\r\nNAME:  Crlf : yes\r\n# inside\r\ngoal:survive\r\nturns:2\r\n\r\n[state]\r\n"
        "ActivePlayer=AI\r\nActivePhase=END_OF_TURN\r\nHumanLife=3\r\n# a comment\r\n\r\n"
        "HUMANPLAY= Grizzly Bears|Set:M10|Tapped ;\r\naiBattlefield=Craw Wurm;\r\nhumangraveyard=\r\n"
    )
    puzzle = parse_pzl(text)
    assert puzzle.title == "Crlf : yes"
    assert puzzle.state.active == "ai" and puzzle.state.step == "end"
    assert puzzle.goal.kind == "survive" and puzzle.goal.turn == 3
    human = puzzle.state.players[0]
    assert human.life == 3 and [(p.card, p.tapped) for p in human.battlefield] == [("Grizzly Bears", True)]


def test_cleanup_start_adds_a_turn_and_goals_map() -> None:
    base = "[state]\nactiveplayer=ai\nactivephase=CLEANUP\naibattlefield=Serra Angel;Grizzly Bears;Forest\n"
    have = parse_pzl(
        "[metadata]\nGoal:Play the Specified Permanent\nTargets:Card.YouCtrl+namedCraw Wurm\nTurns:1\n" + base
    )
    assert (have.goal.kind, have.goal.card, have.goal.turn) == ("have", "Craw Wurm", 2)
    destroy = parse_pzl("[metadata]\nGoal:Destroy Specified Creatures\nTurns:1\n" + base)
    assert destroy.goal.kind == "destroy" and destroy.goal.targets == ["serra_angel", "grizzly_bears"]
    white = parse_pzl("[metadata]\nGoal:Gain Control of Specified Permanents\nTargets:Card.White+OppCtrl\n" + base)
    assert white.goal.kind == "control" and white.goal.targets == ["serra_angel"]


def test_every_problem_is_listed_with_its_line() -> None:
    text = HEAD + "humanhand=Grizzly Bears|Counters:P1P1\nnot a line\naibattlefield=No Such Card;Forest|Frobbed\n"
    assert _problems(text) == [
        "line 8: Grizzly Bears: malformed counters 'P1P1' (TYPE=N, N at most 1,000,000)",
        "line 9: not a key=value line: 'not a line'",
        "line 10: Forest: the modifier 'Frobbed' is not supported",
        "line 10: unknown card 'No Such Card' (not in the card pool)",
    ]


def test_goals_and_filters_that_cant_be_expressed_name_their_line() -> None:
    text = "[metadata]\nGoal:Dance a jig\nTargets:x\n[state]\nailife=x\n"
    assert _problems(text) == [
        "line 2: the goal 'Dance a jig' is not one the solver can express",
        "line 5: ailife: 'x' is not a whole number of at most 1,000,000",
    ]
    text = "[metadata]\nGoal:Destroy Specified Permanents\nTargets:Creature.powerGE3+OppCtrl\n[state]\n"
    assert _problems(text) == [
        "line 3: the filter 'Creature.powerGE3+OppCtrl' can't be expressed (the part 'powerGE3')"
    ]


def test_solve_on_a_bad_pzl_exits_2_with_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "bad.pzl"
    path.write_text(HEAD + "humanhand=Nope;Nada\n")
    result = CliRunner().invoke(main, ["solve", str(path)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "line 8: unknown card 'Nope'" in result.output and "line 8: unknown card 'Nada'" in result.output


def test_numbers_past_the_limit_or_not_in_ascii_digits_are_problems_of_their_line() -> None:
    big = "9" * 5000
    problems = _problems(
        "[metadata]\nName:t\nGoal:Win\nTurns:" + big + "\n[state]\nactiveplayer=human\nactivephase=main1\n"
        "turn=²\nhumanlife=" + big + "\nhumanbattlefield=Grizzly Bears|Counters:P1P1=" + big + "|Damage:²\n"
    )
    assert {p.split(":")[0] for p in problems} == {"line 4", "line 8", "line 9", "line 10"}, problems
    assert all(len(p) < 400 for p in problems), problems


@needs_forge
@pytest.mark.parametrize("name", ["PC_18.pzl", "PC_07.pzl", "PC_051215.pzl", "Duelist_Number_5.pzl"])
def test_forge_puzzles_whose_cards_are_all_in_the_pool_import(name: str) -> None:
    puzzle = load_pzl(_forge(name))
    assert puzzle.goal.player == "human"
    assert puzzle.goal.kind == "win"


@needs_forge
def test_pc_18_is_won_by_dong_zhou_and_fire_bowman() -> None:
    """Perplexing Chimera #18: Loyal Retainers brings back Dong Zhou, the Tyrant, whose trigger
    makes Wu Warship deal 3 to the AI (4 -> 1); Xiahou Dun, the One-Eyed returns Return to Battle to
    the hand, which brings back Fire Bowman, cast and sacrificed before attackers for the last
    point. The line is legal and ends the game."""
    puzzle = load_pzl(_forge("PC_18.pzl"))
    line: list[dict[str, object]] = [
        {"cast": {"card": "loyal_retainers", "pay": ["plains", "plains_2", "mountain"]}},
        "pass",
        "pass",
        {"activate": {"source": "loyal_retainers", "ability": 1, "targets": ["dong_zhou_the_tyrant"]}},
        "pass",
        "pass",
        {"choose_targets": {"ability": "dong_zhou_the_tyrant_trigger", "targets": ["wu_warship"]}},
        "pass",
        "pass",
        {"activate": {"source": "xiahou_dun_the_one_eyed", "ability": 1, "targets": ["return_to_battle"]}},
        "pass",
        "pass",
        {"cast": {"card": "return_to_battle", "targets": ["fire_bowman"], "pay": ["swamp"]}},
        "pass",
        "pass",
        {"cast": {"card": "fire_bowman", "pay": ["mountain_2"]}},
        "pass",
        "pass",
        {"activate": {"source": "fire_bowman", "ability": 1, "targets": ["ai"]}},
        "pass",
        "pass",
    ]
    scenario = Scenario.model_validate(
        {
            "title": "PC_18",
            "cite": ["602.5b", "118.2b"],
            "state": puzzle.state.model_dump(exclude_defaults=True),
            "do": line,
            "expect": {"life": {"ai": 0}, "winner": "human"},
        }
    )
    result = run_scenario(scenario, "PC_18")
    assert result.passed, result.differences


@needs_forge
def test_pc_18_is_solved_within_its_main_phase(tmp_path: Path) -> None:
    """The solver finds PC_18's win: its first pass stays in the main phase, where the win is
    (the whole pass would refute a combat after each try).  No time limit, so the answer
    doesn't depend on the load; the node limit is some 30% above what it takes.  The
    strategy's lines replay as scenarios."""
    from bridge.engine.game import Game
    from bridge.model.scenario import load_scenario
    from bridge.play.solve import emit_scenarios, solve

    puzzle = load_pzl(_forge("PC_18.pzl"))
    found = solve(Game(puzzle.state), puzzle.goal, time_limit=None, max_nodes=2000)
    assert found.result == "win", found.stopped_by
    assert {"fire_bowman", "dong_zhou_the_tyrant"} <= {
        getattr(a, "source", None) or getattr(a, "card", None) or getattr(a, "ability", "").removesuffix("_trigger")
        for a in found.line
    }
    files = emit_scenarios(puzzle, found, tmp_path, "PC_18")
    assert files
    for file in files:
        result = run_scenario(load_scenario(file), str(file))
        assert result.passed, f"{file.name}: {result.difference}"
