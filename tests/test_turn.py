"""The turn structure the rules decide: whose turn comes next (CR 500.7, 614.10), and loops of
mandatory actions (104.4b)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.engine import priority, sba
from bridge.engine.board import on_pass
from bridge.engine.game import Game
from bridge.engine.priority import give_priority
from bridge.engine.turn import end_step
from bridge.model.actions import StateBasedActions
from bridge.model.errors import RuleModuleError
from bridge.model.state import GameState, StackObject

PLAYERS = ("alice", "bob")


def _other(name: str) -> str:
    return PLAYERS[1 - PLAYERS.index(name)]


def reference_next_turn(
    active: str, extra: list[str], resumes: str | None, skips: dict[str, int]
) -> tuple[str, list[str], str | None, dict[str, int]]:
    """The next turn by CR 500.7 and 614.10 written plainly: the extra turns (listed most
    recent first) are taken first, then the turn order goes on; a turn of a player who skips
    turns is passed over, and one fewer is left to skip."""
    extra, skips = list(extra), dict(skips)
    regular = resumes or _other(active)
    while True:
        is_extra = bool(extra)
        player = extra.pop(0) if is_extra else regular
        if skips[player] == 0:
            break
        skips[player] -= 1
        if not is_extra:
            regular = _other(player)
    return player, extra, (regular if is_extra else None), skips


positions = st.fixed_dictionaries(
    {
        "active": st.sampled_from(PLAYERS),
        "extra": st.lists(st.sampled_from(PLAYERS), max_size=3),
        "resumes": st.none() | st.sampled_from(PLAYERS),
        "skips": st.fixed_dictionaries({p: st.integers(0, 2) for p in PLAYERS}),
    }
)


@settings(max_examples=25)
@given(positions)
def test_the_next_turns_agree_with_the_plain_reference(position: dict) -> None:
    state = GameState.model_validate(
        {
            "turn": 4,
            "active": position["active"],
            "step": "cleanup",
            "extra_turns": position["extra"],
            "after_extra_turns": position["resumes"],
            "players": [{"name": p, "skip_turns": position["skips"][p], "library": ["Forest"] * 4} for p in PLAYERS],
        }
    )
    active, extra, resumes, skips = position["active"], position["extra"], position["resumes"], position["skips"]
    for turn in range(5, 8):
        active, extra, resumes, skips = reference_next_turn(active, extra, resumes, skips)
        state = end_step(Game(state))
        assert (state.step, state.turn, state.active) == ("upkeep", turn, active)
        assert (state.extra_turns, state.after_extra_turns) == (extra, resumes)
        assert {p.name: p.skip_turns for p in state.players} == skips
        state = state.model_copy(update={"step": "cleanup", "priority": None, "passed": []})


LICH_LOOP = {
    "turn": 3,
    "active": "alice",
    "players": [
        {"name": "alice", "poison": 10},
        {
            "name": "bob",
            "library": ["Forest"],
            "battlefield": [{"id": "mirror", "card": "Lich's Mirror", "controller": "alice"}],
        },
    ],
}


def test_a_loop_of_state_based_actions_meeting_a_position_again_is_a_draw() -> None:
    game = Game.from_state(LICH_LOOP)
    game.push(StateBasedActions())
    assert game.winner() == "none"
    assert [(p.lost, p.lost_by) for p in game.state.players] == [(True, "104.4b"), (True, "104.4b")]


def test_state_based_actions_that_go_on_without_meeting_a_position_again_are_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sba, "LOOP_ROUNDS", 2)
    with pytest.raises(RuleModuleError, match=r"did not stop after 2 rounds and no position repeated.*restart"):
        Game.from_state(LICH_LOOP).push(StateBasedActions())


TRIGGER = StackObject(id="t", source="bears", trigger=1, controller="alice")
BEARS = {
    "turn": 3,
    "active": "alice",
    "players": [{"name": "alice", "battlefield": [{"id": "bears", "card": "Grizzly Bears"}]}, {"name": "bob"}],
}


def test_abilities_triggering_again_and_again_on_the_same_position_are_a_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    # an ability that triggers each time and, put on the stack, leaves the position as it was
    monkeypatch.setattr(
        priority, "state_triggers", lambda pool, state: state.model_copy(update={"pending_triggers": [TRIGGER]})
    )
    monkeypatch.setattr(
        priority, "put_triggers_on_stack", lambda game, state: state.model_copy(update={"pending_triggers": []})
    )
    game = Game.from_state(BEARS)
    state = give_priority(game, game.state, "alice")
    assert [(p.lost, p.lost_by) for p in state.players] == [(True, "104.4b"), (True, "104.4b")]


def test_abilities_triggering_without_end_or_repetition_are_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # each round one more ability goes on the stack: no position comes again
    monkeypatch.setattr(
        priority,
        "state_triggers",
        lambda pool, state: state.model_copy(
            update={"pending_triggers": [TRIGGER.model_copy(update={"id": f"t{len(state.stack)}"})]}
        ),
    )
    monkeypatch.setattr(
        priority,
        "put_triggers_on_stack",
        lambda game, state: state.model_copy(
            update={"pending_triggers": [], "stack": [*state.pending_triggers, *state.stack]}
        ),
    )
    game = Game.from_state(BEARS)
    with pytest.raises(RuleModuleError, match=r"did not stop after \d+ rounds and no position repeated.*bears"):
        give_priority(game, game.state, "alice")


def test_the_facts_of_who_has_priority_are_those_of_the_position() -> None:
    """``priority_facts`` writes the lines ``position_facts`` writes for turn/priority.lp."""
    from pathlib import Path

    from bridge.engine.facts import position_facts, priority_facts
    from bridge.model.errors import MtgaspError
    from bridge.model.scenario import load_scenario

    root = Path(__file__).resolve().parent.parent / "scenarios"
    checked = 0
    for path in sorted(root.rglob("*.yaml"))[::10]:
        try:
            state = load_scenario(path).state
            lines = set(position_facts(state).facts.split("\n"))
        except MtgaspError:
            continue  # a position that is bad input on purpose
        assert set(priority_facts(state).split("\n")) <= lines, path
        checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    ("passed", "stack", "then"),
    [
        ([], 0, ("priority", "bob")),  # CR 115.3d: the next player receives priority
        ([], 2, ("priority", "bob")),
        (["bob"], 1, ("resolve_top", "")),  # CR 608.1: all passed, the top of the stack resolves
        (["bob"], 3, ("resolve_top", "")),
        (["bob"], 0, ("end_step", "")),  # CR 500.2, 505.2: all passed, the stack empty
    ],
)
def test_what_a_pass_leads_to_is_the_rules_answer(passed: list[str], stack: int, then: tuple[str, str]) -> None:
    state = GameState.model_validate(
        {
            "active": "alice",
            "step": "main1",
            "priority": "alice",
            "passed": passed,
            "players": [{"name": "alice"}, {"name": "bob"}],
            "stack": [{"card": "Lightning Bolt", "controller": "bob", "targets": ["alice"]} for _ in range(stack)],
        }
    )
    assert on_pass(state) == then


def test_positions_that_differ_in_the_open_facts_share_the_priority_grounding() -> None:
    """Who has priority, who passed, the step and the size of the stack are open in the priority
    question's grounding: asking about positions that differ only in them grounds once; a
    stack past the open sizes is a fact, and the answer the same."""
    from bridge.engine.solver import STATS, forget

    def state(step: str, passed: list[str], stack: int) -> GameState:
        return GameState.model_validate(
            {
                "active": "alice",
                "step": step,
                "priority": "bob" if passed else "alice",
                "passed": passed,
                "players": [{"name": "alice"}, {"name": "bob"}],
                "stack": [{"card": "Lightning Bolt", "controller": "bob", "targets": ["alice"]} for _ in range(stack)],
            }
        )

    forget()
    before = STATS.sessions
    assert on_pass(state("main1", [], 0)) == ("priority", "bob")
    assert on_pass(state("end", ["alice"], 0)) == ("end_step", "")
    assert on_pass(state("upkeep", ["alice"], 3)) == ("resolve_top", "")
    assert STATS.sessions - before == 1
    assert on_pass(state("main1", ["alice"], 12)) == ("resolve_top", "")
    assert STATS.sessions - before == 2
