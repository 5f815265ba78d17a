"""Whole games: decks, the start of a game (CR 103), random games with the state checked
after every action, and their logs replaying."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.game import Game
from bridge.model.errors import InputError
from bridge.play import selfplay
from bridge.play.selfplay import (
    GameResult,
    InvariantError,
    Outcome,
    Task,
    check_invariants,
    load_deck,
    play_game,
    run_tasks,
    shipped_decks,
    start_game,
)


def test_every_shipped_deck_loads_with_forty_cards() -> None:
    decks = {name: load_deck(path) for name, path in shipped_decks().items()}
    assert len(decks) >= 4
    for deck in decks.values():
        assert sum(deck.cards.values()) == 40


def test_a_game_starts_with_seven_cards_or_mulligans() -> None:
    decks = shipped_decks()
    game = start_game((load_deck(decks["red_goblins"]), load_deck(decks["green_stompy"])), seed=3)
    state = game.state
    assert state.turn == 1 and state.step == "upkeep"
    for player in state.players:
        assert 1 <= len(player.hand) <= 7
        assert len(player.hand) + len(player.library) == 40
    # the same seed, the same start
    again = start_game((load_deck(decks["red_goblins"]), load_deck(decks["green_stompy"])), seed=3)
    assert again.state == state


def test_a_random_game_keeps_the_state_valid_and_replays() -> None:
    decks = shipped_decks()
    result = play_game((load_deck(decks["white_weenie"]), load_deck(decks["black_knights"])), seed=5, max_actions=80)
    # the result names the winner the final position shows (CR 104.2a), and a game stops
    # short of its actions only when it is over
    assert result.final is not None
    lost = {p.name for p in result.final.players if p.lost}
    shown = (
        None
        if not lost
        else "none"
        if len(lost) == 2
        else next(p.name for p in result.final.players if p.name not in lost)
    )
    assert result.winner == shown
    assert result.actions == 80 if shown is None else 0 < result.actions <= 80
    assert result.turns == result.final.turn
    replayed = Game.replay(result.log)
    assert len(replayed.log) == result.actions
    assert replayed.state == result.final
    assert replayed.winner() == result.winner


def _broken(game: Game, player: int, **fields: object) -> Game:
    players = list(game.state.players)
    players[player] = players[player].model_copy(update=fields)
    broken = Game.__new__(Game)
    broken.__dict__.update(game.__dict__)
    broken.state = game.state.model_copy(update={"players": players})
    return broken


def test_the_invariant_check_finds_a_lost_card_and_an_id_used_twice() -> None:
    decks = shipped_decks()
    game = start_game((load_deck(decks["red_goblins"]), load_deck(decks["green_stompy"])), seed=3)
    sizes = {p.name: len(p.library) + len(p.hand) for p in game.state.players}
    check_invariants(game, sizes)
    first = game.state.players[0]
    with pytest.raises(InvariantError, match="cards in all zones"):
        check_invariants(_broken(game, 0, library=first.library[1:]), sizes)
    # a card listed twice: the same id in two zones
    with pytest.raises(InvariantError, match="ids used twice"):
        check_invariants(_broken(game, 0, library=first.library[1:], graveyard=[first.hand[0]]), sizes)


def test_a_bad_deck_is_reported(tmp_path: Path) -> None:
    deck = tmp_path / "d.yaml"
    deck.write_text("name: Bad\ncards:\n  Forest: 39\n")
    with pytest.raises(InputError, match="at least 40"):
        load_deck(deck)
    deck.write_text("name: Bad\ncards:\n  Forest: 39\n  Nonexistent Card: 1\n")
    result = CliRunner().invoke(main, ["selfplay", "--games", "1", "--decks", str(deck), str(deck)])
    assert result.exit_code == 2 and "Nonexistent Card" in result.output


def test_cli_selfplay_prints_rates() -> None:
    import re

    result = CliRunner().invoke(
        main, ["selfplay", "--games", "1", "--decks", "red_goblins", "blue_skies", "--max-actions", "40"]
    )
    assert result.exit_code == 0, result.output
    # "<pair>: 1 games, N actions in T s: G games/s, A actions/s; ..." with the rates those numbers make
    line = next(line for line in result.output.splitlines() if line.startswith("Red Goblins vs Blue Skies: "))
    match = re.search(r": 1 games, (\d+) actions in ([0-9.]+) s: ([0-9.]+) games/s, ([0-9.]+) actions/s", line)
    assert match, line
    actions, seconds, games_rate, actions_rate = int(match[1]), float(match[2]), float(match[3]), float(match[4])
    assert 0 < actions <= 40
    assert actions_rate == pytest.approx(games_rate * actions, rel=0.02)
    assert abs(1 / games_rate - seconds) <= 0.06  # the seconds are printed to a tenth


def test_cli_selfplay_in_two_processes_plays_the_same_games() -> None:
    import re

    args = ["selfplay", "--games", "2", "--decks", "red_goblins", "green_stompy", "--max-actions", "40", "--progress"]
    one = CliRunner().invoke(main, args)
    two = CliRunner().invoke(main, [*args, "--jobs", "2"])
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output

    def games(output: str) -> list[str]:  # each game's line without its time
        return [re.sub(r", [0-9.]+ s$", "", line) for line in output.splitlines() if line.startswith("[")]

    assert len(games(one.output)) == 2
    assert games(one.output) == games(two.output)
    assert "wall clock with 2 processes" in two.output


def test_cli_selfplay_plays_every_pair_of_shipped_decks() -> None:
    """The issue's volume run, small: one short game for each pair of shipped decks, in two
    processes, every state checked; the run exits 0 only when no game failed."""
    from itertools import combinations

    names = [load_deck(p).name for p in shipped_decks().values()]
    result = CliRunner().invoke(main, ["selfplay", "--games", "1", "--max-actions", "120", "--jobs", "2"])
    assert result.exit_code == 0, result.output
    pairs = [line.split(":")[0] for line in result.output.splitlines() if " vs " in line and "games/s" in line]
    assert sorted(pairs) == sorted(f"{a} vs {b}" for a, b in combinations(names, 2))
    assert f"all: {len(list(combinations(names, 2)))} games" in result.output


@pytest.mark.parametrize(
    "setup, action, rule",
    [
        ({"life": 0}, {"kind": "sba"}, "704.5a"),
        ({"poison": 10}, {"kind": "sba"}, "704.5c"),
        ({}, {"kind": "concede", "by": "alice"}, "104.3a"),
    ],
)
def test_a_player_who_loses_is_marked_with_the_rule(setup: dict, action: dict, rule: str) -> None:
    from pydantic import TypeAdapter

    from bridge.model.actions import Action

    state = {"active": "bob", "step": "main1", "players": [{"name": "alice", **setup}, {"name": "bob"}]}
    game = Game.from_state(state)
    game.push(TypeAdapter(Action).validate_python(action))
    alice = game.state.player("alice")
    assert alice.lost and alice.lost_by == rule
    assert game.winner() == "bob"


def test_a_draw_from_an_empty_library_loses_by_704_5b() -> None:
    from bridge.model.actions import Pass

    state = {"turn": 2, "active": "alice", "step": "upkeep", "players": [{"name": "alice"}, {"name": "bob"}]}
    game = Game.from_state(state)
    game.push(Pass(by="alice"))
    game.push(Pass(by="bob"))
    alice = game.state.player("alice")
    # the flag of the draw is spent by the check; the reason stays
    assert alice.lost and alice.lost_by == "704.5b" and not alice.drew_from_empty_library


def test_cli_selfplay_results_file_lets_a_stopped_run_go_on(tmp_path: Path) -> None:
    """A run given a results file records each game; a second run with more games plays only
    the new ones and reports all of them."""
    results = tmp_path / "results.jsonl"
    args = [
        "selfplay",
        "--decks",
        "red_goblins",
        "green_stompy",
        "--max-actions",
        "30",
        "--progress",
        "--results",
        str(results),
    ]
    first = CliRunner().invoke(main, [*args, "--games", "1"])
    assert first.exit_code == 0, first.output
    assert len(results.read_text().splitlines()) == 1
    second = CliRunner().invoke(main, [*args, "--games", "2"])
    assert second.exit_code == 0, second.output
    assert "1 of 2 games already played" in second.output
    played = [line for line in second.output.splitlines() if line.startswith("[")]
    assert len(played) == 1 and "seed 2" in played[0]
    assert "all: 2 games" in second.output
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert len(lines) == 2
    # each game's log hash: the same game played again has it
    decks = shipped_decks()
    again = play_game((load_deck(decks["red_goblins"]), load_deck(decks["green_stompy"])), seed=2, max_actions=30)
    assert lines[1]["key"][4] == 2 and lines[1]["log"] == again.log_hash == GameResult.hash_log(again.log)


def test_cli_selfplay_bad_results_file_is_reported(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    results.write_text('{"key": [1, 2]}\nnot json\n')
    result = CliRunner().invoke(
        main, ["selfplay", "--games", "1", "--decks", "red_goblins", "green_stompy", "--results", str(results)]
    )
    assert result.exit_code == 2
    assert "results.jsonl" in result.output and "line 1" in result.output and "Traceback" not in result.output


def test_cli_selfplay_recheck_plays_recorded_games_again(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    args = [
        "selfplay",
        "--decks",
        "red_goblins",
        "green_stompy",
        "--max-actions",
        "30",
        "--games",
        "2",
        "--results",
        str(results),
    ]
    assert CliRunner().invoke(main, args).exit_code == 0
    same = CliRunner().invoke(main, [*args, "--recheck", "2"])
    assert same.exit_code == 0 and "2 of 2 recorded games played again the same" in same.output
    # a recorded game whose log differs from what the engine plays now is named
    lines = results.read_text().splitlines()
    entry = json.loads(lines[0])
    entry["log"] = "0" * 16
    results.write_text("\n".join([json.dumps(entry), *lines[1:]]) + "\n")
    changed = CliRunner().invoke(main, [*args, "--recheck", "2"])
    assert changed.exit_code == 1 and "1 of 2" in changed.output and "seed 1" in changed.output


def _dies_on_seed_3(task: Task) -> Outcome:
    if task.seed == 3:
        os._exit(9)  # as a process killed for its memory
    return Outcome(task, GameResult(winner="alice", ending="life", actions=task.seed, turns=1, seconds=0.0))


def test_a_game_whose_process_dies_fails_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # the processes are forked, so they play with the stand-in
    monkeypatch.setattr(selfplay, "_run_task", _dies_on_seed_3)
    decks = shipped_decks()
    pair = (load_deck(decks["red_goblins"]), load_deck(decks["green_stompy"]))
    outcomes = list(run_tasks([Task(pair, seed, 10) for seed in range(1, 9)], jobs=2))
    assert [o.task.seed for o in outcomes] == list(range(1, 9))
    assert [o.task.seed for o in outcomes if o.result is None] == [3]
    assert outcomes[2].failure == selfplay.DIED
    assert [o.result.actions for o in outcomes if o.result is not None] == [1, 2, 4, 5, 6, 7, 8]


def test_random_decks_reach_other_cards_and_keep_the_state_valid() -> None:
    """Two-color random decks of Magic 2010 cards: seeded (the same deck each time), 40
    cards in two colors; their games keep the state valid and replay."""
    from bridge.play.selfplay import random_deck

    first, again = random_deck(5), random_deck(5)
    assert first == again and sum(first.cards.values()) == 40
    basics = [c for c in first.cards if c in ("Plains", "Island", "Swamp", "Mountain", "Forest")]
    assert len(basics) == 2 and sum(first.cards[b] for b in basics) == 17
    shipped = {c for p in shipped_decks().values() for c in load_deck(p).cards}
    decks = (random_deck(11), random_deck(12))
    assert (set(decks[0].cards) | set(decks[1].cards)) - shipped  # cards no shipped deck holds
    result = play_game(decks, seed=11, max_actions=150)
    replayed = Game.replay(json.loads(json.dumps(result.log)))
    assert replayed.state == result.final
    # the game cast cards no shipped deck holds
    names = {
        o.id: o.card
        for p in replayed.start.players
        for zone in ("library", "hand", "graveyard", "exile", "battlefield")
        for o in getattr(p, zone)
    }
    cast = {names[a.card] for a in replayed.log if a.kind == "cast"}  # type: ignore[attr-defined]
    assert cast - shipped, sorted(cast)


def test_selfplay_takes_a_random_deck_by_its_seed() -> None:
    result = CliRunner().invoke(
        main, ["selfplay", "--games", "1", "--max-actions", "30", "--decks", "random:1", "random:2"]
    )
    assert result.exit_code == 0, result.output
    assert "random:1 vs random:2: 1 games" in result.output
    bad = CliRunner().invoke(main, ["selfplay", "--games", "1", "--decks", "random:x", "random:2"])
    assert bad.exit_code == 2 and "random:SEED" in bad.output
