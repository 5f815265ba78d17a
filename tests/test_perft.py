"""Perft: the reference counts of tests/perft/, recomputed, and confirmed by brute force.

The reference positions and their counts at depths 1 to 3 are in ``REFERENCE``: other
engines can compare their own counts with them. Each count is confirmed independently: a
brute-force perft that does not ask ``decisions`` what is legal, but keeps the candidate
actions ``game.push`` accepts among broad ones made from the position's objects and card
data (:func:`bridge.play.brute.accepted_actions`, whose docstring lists them). At every
position on the way, the accepted actions must be exactly the listed ones (nothing missing,
nothing extra, the same ways to pay: :func:`bridge.play.brute.listing_differences`), so the
brute-force counts are perft's.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.game import Game
from bridge.model.actions import Action, DeclareBlockers, Pass
from bridge.play import perft as perft_module
from bridge.play.agents import decisions, game_over
from bridge.play.brute import accepted_actions, action_key, listing_differences, refusal
from bridge.play.perft import PerftDefect, logged, perft

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = ROOT / "tests" / "perft"

# the leaves at depths 1, 2 and 3 (or more) from each reference position
REFERENCE = {
    "bolt_main_phase.yaml": [7, 26, 82],
    "birds_any_color.yaml": [11, 45, 87],
    "two_attackers_two_blockers.yaml": [9, 11, 53],
    "double_block_orders_and_divisions.yaml": [2, 2, 4, 15],
    "brigade_blocks_two_attackers.yaml": [2, 2, 2, 2, 4],
    "two_firefiends_die_together.yaml": [1, 2, 2, 2, 2],
    "three_creatures_declare_attackers.yaml": [4, 16, 16],
    "sparkmage_trigger_targets.yaml": [1, 4, 8],
    "first_strike_damage_step.yaml": [6, 10, 10],
    "bolt_in_declare_blockers.yaml": [1, 7, 12],
    "three_colors_of_mana.yaml": [5, 16, 38],
    "pyromancer_ability_targets.yaml": [1, 7, 23],
    "lure_and_flyer_blocks.yaml": [2, 4, 4],
    "attack_requirement_and_haste.yaml": [2, 12, 20],
    "shield_chooses_between_two_attackers.yaml": [1, 3, 3],
}
# how deep the brute force confirms them (each position it passes is compared in full); the
# positions of damage assignment orders and divisions all the way to their divisions
BRUTE_DEPTH = 2
BRUTE_DEEPER = {
    "double_block_orders_and_divisions.yaml": 4,
    "brigade_blocks_two_attackers.yaml": 5,
    "two_firefiends_die_together.yaml": 3,
    "shield_chooses_between_two_attackers.yaml": 3,
}


def _game(name: str) -> Game:
    return Game.from_scenario(POSITIONS / name)


def test_the_reference_positions_are_all_listed() -> None:
    assert sorted(p.name for p in POSITIONS.glob("*.yaml")) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_perft_reference_counts(name: str) -> None:
    game = _game(name)
    counted = perft(game, len(REFERENCE[name]))
    assert counted.complete
    assert counted.counts == REFERENCE[name]
    assert game.log == [] and game.state == game.start  # back where it began
    # the divide adds up to the count, one entry for each first action
    assert sum(n for _, n in counted.divide) == counted.counts[-1]
    assert len(counted.divide) == counted.counts[0]
    # every position below depth 3 was pushed once
    assert counted.nodes >= sum(counted.counts)


# ---------------------------------------------------------------------- the brute force
def _accepted(game: Game, action: Action) -> bool:
    """Whether ``game.push`` takes the action (then popped)."""
    return refusal(game, action) is None


def _key(action: Action) -> str:
    return action_key(action)


def _brute_perft(game: Game, depth: int, counts: list[int], level: int = 0) -> None:
    """Count as perft does, the children of each position being the actions ``push`` accepts
    among the broad candidates, compared at each position with those ``decisions`` lists."""
    if level:
        counts[level - 1] += 1
        if game_over(game):
            for d in range(level, depth):
                counts[d] += 1
            return
    if level == depth:
        return
    listed = decisions(game).options
    accepted = accepted_actions(game)
    where = (game.state.turn, game.state.step, [logged(a) for a in game.log])
    assert listing_differences(game, listed, accepted) == [], where
    for action in listed:  # the listed ones are the accepted ones, one for each way to pay
        game.push(action)
        _brute_perft(game, depth, counts, level + 1)
        game.pop()


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_brute_force_confirms_the_reference_counts(name: str) -> None:
    game = _game(name)
    depth = BRUTE_DEEPER.get(name, BRUTE_DEPTH)
    counts = [0] * depth
    _brute_perft(game, depth, counts)
    assert counts == REFERENCE[name][:depth]


def test_brute_force_blocks_by_itertools() -> None:
    """At the declaration of blockers, every assignment of blockers to attackers (by
    itertools) that the judge accepts is listed, and no other."""
    game = _game("two_attackers_two_blockers.yaml")
    blockers, attackers = ["elves", "cub"], ["bears", "wurm"]
    accepted = [
        d
        for choice in itertools.product([None, *attackers], repeat=len(blockers))
        if _accepted(game, d := DeclareBlockers(blockers={b: [a] for b, a in zip(blockers, choice) if a}))
    ]
    assert len(accepted) == perft(game, 1).counts[0] == REFERENCE["two_attackers_two_blockers.yaml"][0]
    assert set(map(_key, accepted)) == set(map(_key, decisions(game).options))


# ---------------------------------------------------------------------- the command
def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_command_prints_counts_divide_and_json(tmp_path: Path) -> None:
    out = tmp_path / "counts.json"
    path = str(POSITIONS / "bolt_main_phase.yaml")
    result = run("perft", path, "--depth", "2", "--divide", "--json", str(out))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "depth 1: 7" in lines and "depth 2: 26" in lines
    assert "nodes/s" in lines[-1]
    divided = [line for line in lines if line.startswith("{")]
    assert len(divided) == 7
    assert sum(int(line.rsplit(": ", 1)[1]) for line in divided) == 26
    first = json.loads(divided[0].rsplit(": ", 1)[0])
    assert first["kind"] in ("cast", "play_land", "activate", "pass")
    report = json.loads(out.read_text())
    assert report["complete"] is True
    assert report["counts"] == {"1": 7, "2": 26}
    assert sum(d["count"] for d in report["divide"]) == 26


def test_command_bad_input_exits_2(tmp_path: Path) -> None:
    result = run("perft", str(tmp_path / "missing.yaml"), "--depth", "2")
    assert result.exit_code == 2
    assert "missing.yaml" in result.output
    assert run("perft", str(POSITIONS / "bolt_main_phase.yaml"), "--depth", "0").exit_code == 2


def test_command_time_limit_exits_3_with_what_was_counted() -> None:
    result = run("perft", str(POSITIONS / "birds_any_color.yaml"), "--depth", "8", "--time-limit", "0.5")
    assert result.exit_code == 3, result.output
    assert "counted so far (incomplete)" in result.output
    assert "depth 1:" in result.output


def test_a_listed_action_that_push_refuses_is_a_defect(monkeypatch: pytest.MonkeyPatch) -> None:
    """An action listed as legal and refused names the action and the line: exit 1."""
    real = perft_module.decisions

    def with_an_illegal_one(game: Game):
        decision = real(game)
        options = decision.options
        if game.log:
            bad = Pass(by=next(p.name for p in game.state.players if p.name != decision.player))
            decision._options = (*options, bad)
        return decision

    monkeypatch.setattr(perft_module, "decisions", with_an_illegal_one)
    with pytest.raises(PerftDefect, match=r'"kind": "pass"\} is listed as legal but refused at turn 3'):
        perft(_game("bolt_main_phase.yaml"), 2)
    result = run("perft", str(POSITIONS / "bolt_main_phase.yaml"), "--depth", "2")
    assert result.exit_code == 1
    assert "the engine failed (PerftDefect)" in result.output and "after {" in result.output


def test_an_action_listed_twice_is_a_defect(monkeypatch: pytest.MonkeyPatch) -> None:
    real = perft_module.decisions

    def twice(game: Game):
        decision = real(game)
        decision._options = (*decision.options, decision.options[0])
        return decision

    monkeypatch.setattr(perft_module, "decisions", twice)
    with pytest.raises(PerftDefect, match=r"listed twice .* in the starting position"):
        perft(_game("bolt_main_phase.yaml"), 1)
