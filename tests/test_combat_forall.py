"""Is there an attack that wins this combat against every legal block?  The rules' answer
(``winning_attacks``: ``combat/attack_forall.lp`` judging each declaration of blockers) is
compared on small random boards with the plain answer: every attack and every declaration of
blockers ``decisions`` lists, each pushed and played out to the end of the combat.  The
solver with it finds the same answers as without, and its lines replay as scenarios."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.board import COMBAT_STEPS
from bridge.engine.game import Game
from bridge.io.scenarios import run_scenario
from bridge.model.actions import AssignDamage, DeclareAttackers, DeclareBlockers, OrderAttackers, OrderBlockers, Pass
from bridge.model.puzzle import Goal, Puzzle
from bridge.model.scenario import load_scenario
from bridge.model.state import GameState
from bridge.play.agents import decisions
from bridge.play.combat_forall import ForallAnswer, combat_board, winning_attacks
from bridge.play.solve import emit_scenarios, solve

# attackers x blockers, cycled through by the boards' seeds
SIZES = [(2, 1), (2, 2), (3, 1), (2, 3), (3, 2), (4, 1), (3, 3), (2, 4), (4, 2)]
BOARDS = list(range(54))
EVERY_ATTACK = BOARDS[::6]  # boards where each attack is compared, not only the answer


def _board(seed: int) -> GameState:
    attackers, blockers = SIZES[seed % len(SIZES)]
    return GameState.model_validate(combat_board(seed, attackers, blockers))


# ---------------------------------------------------------------------- the plain answer
def _pass_while_in_combat(game: Game) -> tuple[DeclareBlockers, ...] | None:
    """Pass (the only option these boards give besides declarations, damage assignment orders
    and divisions of combat damage, which take their defaults, listed first, as the rules'
    answer does) until blockers are to be declared (their declarations) or the combat is over
    (None)."""
    while not any(p.lost for p in game.state.players) and game.state.step in COMBAT_STEPS:
        options = decisions(game).options
        if isinstance(options[0], DeclareBlockers):
            return tuple(o for o in options if isinstance(o, DeclareBlockers))
        assert all(isinstance(o, (Pass, OrderBlockers, OrderAttackers, AssignDamage)) for o in options), options
        game.push(next((o for o in options if isinstance(o, Pass)), options[0]))
    return None


def _won(game: Game) -> bool:
    lost = {p.name for p in game.state.players if p.lost}
    return lost == {"bob"}


def _wins_against_every_block(game: Game, attack: DeclareAttackers) -> bool:
    depth = len(game.log)
    try:
        game.push(attack)
        blocks = _pass_while_in_combat(game)
        if blocks is None:
            return _won(game)
        at_blocks = len(game.log)
        for block in blocks:
            game.push(block)
            _pass_while_in_combat(game)
            won = _won(game)
            while len(game.log) > at_blocks:
                game.pop()
            if not won:
                return False
        return True
    finally:
        while len(game.log) > depth:
            game.pop()


def _plain_winning_attacks(game: Game, every: bool) -> set[str]:
    """The attacks that win against every block (``every``: all of them, else the first)."""
    found: set[str] = set()
    for attack in (o for o in decisions(game).options if isinstance(o, DeclareAttackers)):
        if _wins_against_every_block(game, attack):
            found.add(_named(attack))
            if not every:
                break
    return found


def _named(attack: DeclareAttackers) -> str:
    return str(sorted(attack.attackers.items()))


@cache
def _answer(seed: int) -> ForallAnswer:
    game = Game(_board(seed))
    answer = winning_attacks(game, every=seed in EVERY_ATTACK)  # counterexamples played out too
    assert not game.log  # back at the position
    return answer


# ---------------------------------------------------------------------- compared
@pytest.mark.parametrize("seed", BOARDS)
def test_the_rules_answer_is_the_plain_answer(seed: int) -> None:
    game = Game(_board(seed))
    answer = _answer(seed)
    assert answer.applicable, answer.reason
    plain = _plain_winning_attacks(game, every=seed in EVERY_ATTACK)
    found = {_named(j.attack) for j in answer.judged if j.wins}
    assert answer.result == ("win" if plain else "no_win")
    if seed in EVERY_ATTACK:
        assert found == plain
    elif answer.winning is not None:
        assert _wins_against_every_block(game, answer.winning)
    for judged in answer.judged:
        # an attack is refuted by a declaration of blockers, or wins (no declaration at all
        # comes only with no attackers)
        assert judged.wins != (judged.refuting is not None) or not judged.attack.attackers


def test_the_boards_hold_every_kind_of_combat() -> None:
    """The boards hold wins and no wins, first strike (declarations played out), blocks the
    rules judged, several blockers on one attacker, and Lure."""
    kinds: set[str] = set()
    for seed in BOARDS:
        state = _board(seed)
        answer = _answer(seed)
        kinds.add(answer.result)
        kinds |= {"played" for j in answer.judged if j.played}
        kinds |= {"asked" for j in answer.judged if j.asked}
        kinds |= {"double block" for j in answer.judged if j.refuting and len(j.refuting.blockers) > 1}
        kinds |= {"lure" for p in state.players[0].battlefield if p.card == "Lure"}
    assert kinds >= {"win", "no_win", "played", "asked", "lure"}


@pytest.mark.parametrize("seed", [1, 4, 10, 14, 24])
def test_the_solver_agrees_and_its_lines_replay(seed: int, tmp_path: Path) -> None:
    state = _board(seed)
    goal = Goal(player="alice", kind="win", turn=3)
    plain = solve(Game(state), goal, time_limit=None)
    ordered = solve(Game(state), goal, time_limit=None, forall=True)
    expected = _answer(seed)
    assert plain.result == ordered.result == expected.result
    if expected.winning is not None:
        assert ordered.line[0] == expected.winning
    puzzle = Puzzle(title=f"board {seed}", state=state, goal=goal)
    written = emit_scenarios(puzzle, ordered, tmp_path, f"board{seed}")
    assert written
    for path in written:
        result = run_scenario(load_scenario(path))
        assert result.passed, (path.name, result.difference)


# ---------------------------------------------------------------------- not applicable
def _with(alice: list[object], bob: list[object], bob_hand: list[str] | None = None, life: int = 3) -> Game:
    return Game(
        GameState.model_validate(
            {
                "turn": 3,
                "active": "alice",
                "step": "declare_attackers",
                "players": [
                    {"name": "alice", "battlefield": alice},
                    {"name": "bob", "life": life, "hand": bob_hand or [], "battlefield": bob},
                ],
            }
        )
    )


def test_an_instant_in_hand_makes_it_not_applicable() -> None:
    game = _with(
        [{"id": "wurm", "card": "Craw Wurm"}],
        [{"id": "forest", "card": "Forest"}, {"id": "bears", "card": "Grizzly Bears"}],
        bob_hand=["Fog"],
    )
    answer = winning_attacks(game)
    assert answer.result == "not_applicable"
    assert "bob could cast" in answer.reason


def test_an_ability_that_triggers_on_blocks_makes_it_not_applicable() -> None:
    game = _with([{"id": "wurm", "card": "Craw Wurm"}], [{"id": "wall", "card": "Wall of Frost"}])
    answer = winning_attacks(game)
    assert answer.result == "not_applicable"
    assert "wall" in answer.reason


def test_not_at_a_declaration_of_attackers() -> None:
    state = _board(0).model_copy(update={"step": "main1"})
    assert winning_attacks(Game(state)).result == "not_applicable"


def test_a_flier_the_spider_can_block() -> None:
    """Air Elemental and Wind Drake against Giant Spider (reach) with Bob at 4: attacking
    with both, the spider blocks the Elemental; no attack wins (fliers_meet_reach)."""
    game = _with(
        [{"id": "elemental", "card": "Air Elemental"}, {"id": "drake", "card": "Wind Drake"}],
        [{"id": "spider", "card": "Giant Spider"}],
        life=4,
    )
    answer = winning_attacks(game, every=True)
    assert answer.result == "no_win"
    both = next(j for j in answer.judged if len(j.attack.attackers) == 2)
    assert both.refuting == DeclareBlockers(blockers={"spider": ["elemental"]})


def test_the_command_orders_by_it_and_its_scenarios_pass(tmp_path: Path) -> None:
    puzzles = Path(__file__).resolve().parent.parent / "puzzles"
    runner = CliRunner()
    for name, result in (("fliers_meet_reach", "no_win"), ("trample_over_two_blockers", "win")):
        out = tmp_path / name
        solved = runner.invoke(
            main, ["solve", str(puzzles / f"{name}.yaml"), "--forall", "--json", "--emit-scenarios", str(out)]
        )
        assert solved.exit_code == 0, solved.output
        assert json.loads(solved.output)["result"] == result
        checked = runner.invoke(main, ["check", str(out)])
        assert checked.exit_code == 0, checked.output
