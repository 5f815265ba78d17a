"""Bad input gets exit status 2 and one message naming the file, the place and the problem."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main

GOOD_STATE = """\
title: t
cite: ["509.1a"]
state:
  active: alice
  step: declare_blockers
  players:
    - name: alice
      battlefield:
        - {id: wurm, card: Craw Wurm, attacking: bob, tapped: true}
    - name: bob
      battlefield:
        - {id: elves, card: Llanowar Elves}
"""

CASES = {
    "malformed_yaml": ("title: t\ncite: [509.1a\nstate: {}\n", "not valid YAML", "line "),
    "unknown_card": (
        GOOD_STATE.replace("Llanowar Elves", "Llanowar Elfs"),
        "unknown card 'Llanowar Elfs'",
        "players[1].battlefield[0]",
    ),
    "unknown_id": (GOOD_STATE + "do:\n  - declare_blockers: {elves: wyrm}\n", "no object has the id 'wyrm'", "do[0]"),
    "object_in_two_zones": (
        GOOD_STATE + "      hand: [{id: elves, card: Llanowar Elves}]\n",
        "already used",
        "players",
    ),
    "blocks_non_attacker": (
        GOOD_STATE.replace("attacking: bob, tapped: true", "tapped: true").replace(
            "{id: elves, card: Llanowar Elves}", "{id: elves, card: Llanowar Elves, blocking: [wurm]}"
        ),
        "which is not attacking",
        "battlefield",
    ),
    "unknown_field": (
        GOOD_STATE.replace("step: declare_blockers", "step: declare_blockers\n  weather: rain"),
        "unknown field 'weather'",
        "line 6",
    ),
    "unknown_step": (
        GOOD_STATE.replace("step: declare_blockers", "step: second_main"),
        "Input should be",
        "state.step",
    ),
    "unknown_action": (GOOD_STATE + "do:\n  - cast_spell: {card: Lightning Bolt}\n", "unknown action", "do[0]"),
    "unknown_expected_ability": (
        GOOD_STATE + "expect:\n  characteristics:\n    elves: {abilities: [flyin]}\n",
        "unknown ability 'flyin'",
        "expect.characteristics.elves.abilities[0]",
    ),
    "unknown_order_source": (
        GOOD_STATE + "do:\n  - choose_order: {by: bob, replacements: [nothing]}\n",
        "no object has the id 'nothing'",
        "choose_order",
    ),
    "not_a_mapping": ("- just\n- a list\n", "a scenario is a mapping", ""),
    "attacks_non_planeswalker": (
        GOOD_STATE.replace("attacking: bob", "attacking: elves"),
        "not a planeswalker",
        "attacking",
    ),
    "effect_source_missing": (
        GOOD_STATE + "  effects:\n    - {source: Giant Grwoth, targets: [elves]}\n",
        "neither a card nor an object",
        "effects[0].source",
    ),
    "effect_without_source_or_text": (
        GOOD_STATE + "  effects:\n    - {targets: [elves], modify_pt: [1, 1]}\n",
        "needs a source",
        "effects[0]",
    ),
    "timestamp_repeated": (
        GOOD_STATE.replace("{id: elves, card: Llanowar Elves}", "{id: elves, card: Llanowar Elves, timestamp: 3}")
        + "  effects:\n    - {source: Giant Growth, targets: [elves], timestamp: 3}\n",
        "same timestamp",
        "state",
    ),
    "effect_on_object_in_hand": (
        GOOD_STATE + "      hand: [{id: bolt, card: Lightning Bolt}]\n"
        "  effects:\n    - {source: Giant Growth, targets: [bolt]}\n",
        "not on the battlefield",
        "effects[0]",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_exits_2_with_one_clear_message(tmp_path: Path, name: str) -> None:
    text, problem, place = CASES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("ERROR")]
    assert len(error_lines) == 1, result.output
    line = error_lines[0]
    assert str(path) in line and problem in line and place in line, line


def test_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", str(tmp_path / "nope.yaml")])
    assert result.exit_code == 2
    assert "can't read the file" in result.output


@pytest.mark.parametrize("command", ["explain", "blocks", "attacks"])
def test_other_commands_report_bad_input(tmp_path: Path, command: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(GOOD_STATE.replace("Craw Wurm", "Craw Worm"))
    result = CliRunner().invoke(main, [command, str(path)])
    assert result.exit_code == 2
    assert "unknown card 'Craw Worm'" in result.output and "Traceback" not in result.output


def test_failing_expectation_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(GOOD_STATE + "do:\n  - declare_blockers: {elves: wurm}\nexpect:\n  legal: false\n")
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    assert "legal: expected false, got true" in result.output


def _one_message(args: list[str], path: Path, problem: str, place: str) -> None:
    """The command exits 2 with one line naming the file, the place and the problem."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and problem in lines[0] and place in lines[0], result.output


LOG_STATE = {
    "turn": 1,
    "active": "alice",
    "step": "main1",
    "players": [{"name": "alice", "hand": [{"id": "forest", "card": "Forest"}]}, {"name": "bob"}],
}

LOG_CASES = {
    "not_json": ("{garbage", "not a game log", "Expecting"),
    "a_list": ("[1, 2]", "a game log is a mapping", ""),
    "no_state": ('{"actions": []}', "a game log is a mapping", ""),
    "state_not_a_mapping": ('{"state": 5}', "valid dictionary", "state:"),
    "bad_life": (
        json.dumps({"state": {**LOG_STATE, "players": [{"name": "alice", "life": "x"}, {"name": "bob"}]}}),
        "valid integer",
        "state.players[0].life",
    ),
    "unknown_action": (
        json.dumps({"state": LOG_STATE, "actions": [{"kind": "bogus"}]}),
        "unknown action 'bogus'",
        "actions[0]",
    ),
    "unknown_action_field": (
        json.dumps({"state": LOG_STATE, "actions": [{"kind": "pass", "player": "x"}]}),
        "unknown field 'player'",
        "actions[0].player:",
    ),
    "illegal_action": (
        json.dumps(
            {
                "state": LOG_STATE,
                "actions": [{"kind": "play_land", "card": "forest"}, {"kind": "play_land", "card": "forest"}],
            }
        ),
        "action 1 can't be replayed",
        "actions[1]",
    ),
}


@pytest.mark.parametrize("name", sorted(LOG_CASES))
def test_a_bad_game_log_gets_one_clear_message(tmp_path: Path, name: str) -> None:
    text, problem, place = LOG_CASES[name]
    path = tmp_path / f"{name}.json"
    path.write_text(text)
    _one_message(["replay", str(path)], path, problem, place)


def test_a_good_game_log_replays(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"state": LOG_STATE, "actions": [{"kind": "play_land", "card": "forest"}]}))
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    assert "1 actions replayed" in result.output


DECK_CASES = {
    "malformed_yaml": ("name: d\ncards: [1, 2\n", "not valid YAML", "line 3, column 1"),
    "not_a_count": ("name: d\ncards:\n  Forest: many\n", "valid integer", "line 3, cards.Forest"),
    "unknown_field": ("name: d\ncards:\n  Forest: 40\ncolour: green\n", "unknown field 'colour'", "line 4"),
    "unknown_card": ("name: d\ncards:\n  Forrest: 40\n", "unknown card 'Forrest'", "cards.Forrest"),
}


@pytest.mark.parametrize("name", sorted(DECK_CASES))
def test_a_bad_deck_gets_one_clear_message(tmp_path: Path, name: str) -> None:
    text, problem, place = DECK_CASES[name]
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    good = tmp_path / "good.yaml"
    good.write_text("name: good\ncards:\n  Forest: 40\n")
    _one_message(["selfplay", "--games", "1", "--decks", str(bad), str(good)], bad, problem, place)


@pytest.mark.parametrize("option", ["--results", "--log-dir"])
def test_selfplay_checks_where_it_writes_before_it_plays(tmp_path: Path, option: str) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_text("name: d\ncards:\n  Forest: 40\n")
    target = deck / "inside"  # a file is in the way
    result = CliRunner().invoke(
        main, ["selfplay", "--games", "1", "--decks", str(deck), str(deck), option, str(target)]
    )
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "a file is in the way" in result.output and "games/s" not in result.output


def test_play_checks_where_the_log_goes_before_it_plays(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(GOOD_STATE)
    result = CliRunner().invoke(
        main, ["play", str(scenario), "--opponent", "first", "--log", str(scenario / "log.json")], input="q\n"
    )
    assert result.exit_code == 2, result.output
    assert "a file is in the way" in result.output and "winner" not in result.output


@pytest.mark.parametrize("option", ["--games", "--max-actions"])
def test_selfplay_wants_at_least_one(option: str) -> None:
    result = CliRunner().invoke(main, ["selfplay", option, "0"])
    assert result.exit_code == 2 and "0 is not in the range" in result.output
