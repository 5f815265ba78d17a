"""mtgasp verify: each property holds on a small position and is seen to catch a violation
planted by making the engine answer wrongly; the shrinker; the exhaustive positions; the
command's exit statuses and summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine import combat as combat_module
from bridge.engine import game as game_module
from bridge.engine.board import Board, Characteristics, DeclarationChecker, LegalBlocks
from bridge.engine.game import Game
from bridge.engine.sba import drawn_by_loop
from bridge.engine.verdict import Verdict
from bridge.model.actions import DeclareBlockers, Pass
from bridge.model.cards import CardPool
from bridge.model.citations import read_rules_text
from bridge.model.errors import RuleModuleError
from bridge.model.paths import rules_text_file
from bridge.model.scenario import load_scenario
from bridge.model.state import GameState
from bridge.play import verify as verify_module
from bridge.play.verify import (
    PROPERTIES,
    Check,
    Position,
    Problem,
    Property,
    can_be_tapped,
    exhaustive_positions,
    finding_scenario,
    random_positions,
    renamed,
    shrink,
    verify,
)

POOL = CardPool.default()
RULES = frozenset({"508.1", "508.1a", "508.1d", "509.1", "509.1a", "509.1b", "509.1c", "702.9b", "613.1"})


def state(step: str, alice: list[dict], bob: list[dict], hand: list[str] | None = None) -> GameState:
    return GameState.model_validate(
        {
            "turn": 3,
            "active": "alice",
            "step": step,
            "players": [
                {"name": "alice", "battlefield": alice, "hand": hand or []},
                {"name": "bob", "battlefield": bob},
            ],
        }
    )


def check(s: GameState, rules: frozenset[str] = RULES) -> Check:
    return Check(s, POOL, 1, rules)


ANTHEM = state(
    "main1",
    [{"id": "bear", "card": "Grizzly Bears"}, {"id": "anthem", "card": "Glorious Anthem"}],
    [{"id": "spider", "card": "Giant Spider"}],
)
# a Lure-enchanted attacker, a flyer attacking, a blocker that can block one of them
LURED = state(
    "declare_blockers",
    [
        {"id": "bear", "card": "Grizzly Bears", "attacking": "bob", "tapped": True},
        {"id": "lure", "card": "Lure", "attached_to": "bear"},
        {"id": "angel", "card": "Serra Angel", "attacking": "bob"},
    ],
    [{"id": "cub", "card": "Grizzly Bears"}],
)
ATTACKING = state("declare_attackers", [{"id": "cyclops", "card": "Bloodrock Cyclops"}], [])


# ---------------------------------------------------------------------- characteristics
def test_characteristics_hold_on_an_anthem() -> None:
    assert PROPERTIES["characteristics"].check(check(ANTHEM)) is None


def test_characteristics_two_answers_for_an_object_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Board.characteristic_answers

    def two_powers(self: Board) -> list[dict[str, dict[str, list[int | str]]]]:
        answers = real(self)
        answers[0]["bear"]["power"] = [3, 4]
        return answers

    monkeypatch.setattr(Board, "characteristic_answers", two_powers)
    problem = PROPERTIES["characteristics"].check(check(ANTHEM))
    assert problem is not None and "2 values of power" in problem.message


def test_characteristics_that_depend_on_names_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Board.all_characteristics

    def by_name(self: Board) -> dict[str, Characteristics]:
        out = real(self)
        return {k: v if not k.startswith("obj") else v.__class__(**(v.__dict__ | {"power": 9})) for k, v in out.items()}

    monkeypatch.setattr(Board, "all_characteristics", by_name)
    problem = PROPERTIES["characteristics"].check(check(ANTHEM))
    assert problem is not None and problem.message.startswith("with ids renamed")


def test_renaming_keeps_the_position_up_to_names_and_timestamps() -> None:
    changed = renamed(LURED)
    assert changed is not None
    other, mapping = changed
    assert set(mapping) == {"bear", "lure", "angel", "cub"} and not set(mapping.values()) & set(mapping)
    lure = other.permanent(mapping["lure"])
    assert lure.attached_to == mapping["bear"]
    assert other.permanent(mapping["cub"]).card == "Grizzly Bears"


# ---------------------------------------------------------------------- state-based actions
LETHAL = state("main1", [{"id": "bear", "card": "Grizzly Bears", "damage": 2}, {"id": "lure", "card": "Lure"}], [])


def test_sba_reach_a_fixpoint() -> None:
    assert PROPERTIES["sba"].check(check(LETHAL)) is None


def test_sba_that_stop_too_soon_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify_module, "perform_state_based_actions", lambda board: board.state)
    problem = PROPERTIES["sba"].check(check(LETHAL))
    assert problem is not None and "some still apply" in problem.message


def test_sba_that_never_stop_are_caught_and_a_draw_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    def endless(board: Board) -> GameState:
        raise RuleModuleError("state-based actions did not stop after 100 rounds")

    monkeypatch.setattr(verify_module, "perform_state_based_actions", endless)
    problem = PROPERTIES["sba"].check(check(LETHAL))
    assert problem is not None and "don't stop" in problem.message and "104.4b" in problem.rules
    monkeypatch.setattr(verify_module, "perform_state_based_actions", lambda board: drawn_by_loop(board.state))
    assert PROPERTIES["sba"].check(check(LETHAL)) is None


# ---------------------------------------------------------------------- requirements
def test_requirements_hold_with_lure_and_with_an_attack_requirement() -> None:
    assert PROPERTIES["requirements"].check(check(LURED)) is None
    assert PROPERTIES["requirements"].check(check(ATTACKING)) is None


def test_a_wrong_requirement_maximum_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = state("declare_attackers", [{"id": "bear", "card": "Grizzly Bears"}], [])
    monkeypatch.setattr(DeclarationChecker, "requirement_max", lambda self: 1)
    problem = PROPERTIES["requirements"].check(check(plain))
    assert problem is not None and "the empty declaration is listed as legal" in problem.message


def test_no_legal_declaration_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LegalBlocks, "__iter__", lambda self: iter(()))
    problem = PROPERTIES["requirements"].check(check(LURED))
    assert problem is not None and problem.message == "no legal declaration of blockers"


# ---------------------------------------------------------------------- listed and accepted actions
BOLT = state(
    "main1", [{"id": "mountain", "card": "Mountain"}], [{"id": "bear", "card": "Grizzly Bears"}], ["Lightning Bolt"]
)


def test_actions_listed_are_those_accepted() -> None:
    assert PROPERTIES["actions"].check(check(BOLT)) is None


def test_an_action_left_out_of_the_listing_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = verify_module.decisions

    def without_pass(game):  # type: ignore[no-untyped-def]
        decision = real(game)
        decision._options = tuple(a for a in decision.options if not isinstance(a, Pass))
        return decision

    monkeypatch.setattr(verify_module, "decisions", without_pass)
    problem = PROPERTIES["actions"].check(check(BOLT))
    assert problem is not None and 'accepted but not listed: {"by": "alice", "kind": "pass"}' in problem.message


# ---------------------------------------------------------------------- citations
def test_verdicts_cite_rules_of_the_text() -> None:
    assert PROPERTIES["citations"].check(check(LURED)) is None


def test_an_illegal_verdict_citing_nothing_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Board.check

    def uncited(self: Board, action):  # type: ignore[no-untyped-def]
        verdict = real(self, action)
        return verdict if verdict.legal else Verdict(False, ())

    monkeypatch.setattr(Board, "check", uncited)
    problem = PROPERTIES["citations"].check(check(LURED))
    assert problem is not None and problem.message.startswith("an illegal verdict cites no rule")


def test_a_rule_missing_from_the_text_is_caught() -> None:
    problem = PROPERTIES["citations"].check(check(LURED, RULES - {"509.1c"}))
    assert problem is not None and "['509.1c'], not in the rules text" in problem.message
    assert isinstance(problem.action, DeclareBlockers)


# ---------------------------------------------------------------------- renaming
def test_verdicts_do_not_depend_on_names() -> None:
    assert PROPERTIES["renaming"].check(check(LURED)) is None


def test_a_verdict_that_depends_on_names_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Board.check

    def by_name(self: Board, action):  # type: ignore[no-untyped-def]
        renamed_ids = any(p.id and p.id.startswith("obj") for p in self.state.permanents())
        return Verdict(True) if renamed_ids else real(self, action)

    monkeypatch.setattr(Board, "check", by_name)
    problem = PROPERTIES["renaming"].check(check(LURED))
    assert problem is not None and "renamed" in problem.message and problem.action is not None


# ---------------------------------------------------------------------- conservation
# double strike, first strike, lifelink and wither in one combat, an anthem for the white ones
COMBAT = state(
    "declare_blockers",
    [
        {"id": "ace", "card": "Fencing Ace", "attacking": "bob", "tapped": True},
        {"id": "hawk", "card": "Vampire Nighthawk", "attacking": "bob", "tapped": True},
        {"id": "gang", "card": "Boggart Ram-Gang", "attacking": "bob", "tapped": True},
    ],
    [
        {"id": "cub", "card": "Grizzly Bears"},
        {"id": "spider", "card": "Giant Spider"},
        {"id": "crusade", "card": "Crusade"},
    ],
)


def test_conservation_holds_in_a_combat() -> None:
    for seed in range(3):
        assert PROPERTIES["conservation"].check(Check(COMBAT, POOL, seed, RULES)) is None


def test_conservation_reaches_both_combat_damage_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    real, steps = verify_module._damage_problem, []

    def spy(game):  # type: ignore[no-untyped-def]
        steps.append(game.state.step)
        return real(game)

    monkeypatch.setattr(verify_module, "_damage_problem", spy)
    assert PROPERTIES["conservation"].check(check(COMBAT)) is None
    assert steps == ["first_strike_damage", "combat_damage"]


def test_damage_dealt_that_was_not_assigned_less_prevention_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = verify_module.damage_results

    def one_more(board):  # type: ignore[no-untyped-def]
        verdict, results = real(board)
        results["damage_event"] = {k: n + 1 for k, n in results["damage_event"].items()}
        return verdict, results

    monkeypatch.setattr(verify_module, "damage_results", one_more)
    problem = PROPERTIES["conservation"].check(check(COMBAT))
    assert problem is not None and "damage to" in problem.message and "but dealt" in problem.message
    assert "510.2" in problem.rules


def test_life_that_changes_otherwise_than_the_damage_says_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = combat_module.deal_damage

    def lifelink_lost(state, model, pool=None):  # type: ignore[no-untyped-def]
        dealt, replaced = real(state, model, pool)
        players = [p.model_copy(update={"life": 20}) if p.name == "alice" else p for p in dealt.players]
        return dealt.model_copy(update={"players": players}), replaced

    monkeypatch.setattr(combat_module, "deal_damage", lifelink_lost)
    problem = PROPERTIES["conservation"].check(check(COMBAT))
    assert problem is not None and problem.message.startswith("alice's life changed by 0")


def test_a_card_that_vanishes_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = game_module.after_action

    def vanishes(board, before, after):  # type: ignore[no-untyped-def]
        # bob's Crusade leaves the battlefield for no zone (whatever line the random agent
        # plays: a card that dies on one line and not on another would make the test depend
        # on the line), and so does any card put into a graveyard
        done = real(board, before, after)
        players = [
            p.model_copy(update={"graveyard": [], "battlefield": [x for x in p.battlefield if x.id != "crusade"]})
            for p in done.players
        ]
        return done.model_copy(update={"players": players})

    monkeypatch.setattr(game_module, "after_action", vanishes)
    problem = PROPERTIES["conservation"].check(check(COMBAT))
    assert problem is not None and "cards lost" in problem.message and "400.7" in problem.rules


# ---------------------------------------------------------------------- replay
LANDS = state(
    "main1",
    [{"id": "m1", "card": "Mountain"}, {"id": "bear", "card": "Grizzly Bears"}],
    [{"id": "spider", "card": "Giant Spider"}],
    ["Lightning Bolt", "Mountain"],
)


def test_a_random_game_replays() -> None:
    for seed in range(3):
        assert PROPERTIES["replay"].check(Check(LANDS, POOL, seed, RULES)) is None


def test_a_log_that_replays_elsewhere_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Game.game_log

    def short(self: Game) -> dict[str, object]:
        log = real(self)
        return log | {"actions": log["actions"][:-1]}  # type: ignore[index]

    monkeypatch.setattr(Game, "game_log", short)
    problem = PROPERTIES["replay"].check(check(LANDS))
    assert problem is not None and problem.message.startswith("the log replays to another state")


def test_a_log_that_does_not_replay_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Game.game_log

    def wrong_player(self: Game) -> dict[str, object]:
        log = real(self)
        actions = [dict(a) for a in log["actions"]]  # type: ignore[attr-defined]
        actions[0]["by"] = "bob" if actions[0].get("by") == "alice" else "alice"
        return log | {"actions": actions}

    monkeypatch.setattr(Game, "game_log", wrong_player)
    problem = PROPERTIES["replay"].check(check(LANDS))
    assert problem is not None and problem.message.startswith("the log doesn't replay")


# ---------------------------------------------------------------------- shrinking and positions
def lure_fails(c: Check) -> Problem | None:
    """A planted finding: any position with Lure on the battlefield."""
    if any(p.card == "Lure" for p in c.state.permanents()):
        return Problem("Lure is here", ("702.5a",))
    return None


def test_the_shrinker_reduces_a_planted_finding_to_its_minimal_position() -> None:
    planted = Property("planted", lure_fails, ("main1",), "no Lure")
    start = LURED
    small, problem, tried = shrink(planted, check(start), Problem("Lure is here", ("702.5a",)))
    assert [p.card for p in small.permanents()] == ["Lure"]
    lure = small.permanents()[0]
    assert lure.attached_to is None and not lure.tapped
    assert problem.message == "Lure is here" and tried > 0


def test_exhaustive_positions_are_every_multiset_once() -> None:
    cards = ["Grizzly Bears", "Giant Spider", "Lure"]
    positions = list(exhaustive_positions(POOL, cards, 2, tapped=False))
    # 6 (card, side) elements: 6 positions of one, 21 of two; Lure is attached to the only
    # creature there is, or to nothing
    assert len(positions) == 27
    keys = {tuple(sorted((p.card, p.side) for p in pos.pieces)) for pos in positions}
    assert len(keys) == 27
    lure_and_bear = [p for p in positions if {x.card for x in p.pieces} == {"Lure", "Grizzly Bears"}]
    assert all(p.attached == (None, 0) or p.attached == (0, None) for p in lure_and_bear)
    two = Position(positions[0].pieces * 2, (None, None), ())
    assert len(two.state().permanents()) == 2


def test_exhaustive_positions_tap_what_can_be_tapped() -> None:
    cards = ["Grizzly Bears", "Giant Spider", "Lure", "Bonesplitter"]
    assert [c for c in cards if not can_be_tapped(POOL, c)] == ["Lure"]  # an Equipment has an ability
    untapped = list(exhaustive_positions(POOL, cards, 2, tapped=False))
    positions = list(exhaustive_positions(POOL, cards, 2))
    # 14 (card, side, tapped) elements: 14 positions of one, 105 multisets of two (each with
    # every way of attaching its Aura and Equipment)
    assert len({tuple(sorted(p.pieces)) for p in positions}) == 14 + 105
    assert len(positions) > len(untapped)
    assert not any(p.tapped for pos in positions for p in pos.pieces if p.card == "Lure")
    tapped = [p for p in positions if len(p.pieces) == 1 and p.pieces[0].tapped]
    assert sorted((p.pieces[0].card, p.pieces[0].side) for p in tapped) == sorted(
        (c, side) for c in ("Grizzly Bears", "Giant Spider", "Bonesplitter") for side in (0, 1)
    )
    assert {pos.pieces for pos in untapped} <= {pos.pieces for pos in positions}
    assert positions[0].state().permanents()[0].tapped is False
    assert next(p for p in tapped).state().permanents()[0].tapped is True


def test_a_short_exhaustive_run_finds_nothing() -> None:
    report = verify(
        ["Grizzly Bears", "Giant Spider", "Lure"],
        max_permanents=2,
        tapped=False,
        properties=["characteristics", "sba", "requirements", "citations", "renaming"],
        rules_text=read_rules_text(text) if (text := rules_text_file()) else frozenset(),
    )
    assert report.complete and report.positions == 27 and report.findings == []
    assert report.checked["characteristics"] == 27
    # the declarations are checked where the active player has a creature to attack with
    assert report.checked["requirements"] > 27


# ---------------------------------------------------------------------- the command
def run(*args: str):
    return CliRunner().invoke(main, ["verify", *args])


def test_command_no_finding_exits_0_with_json(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = run(
        "--cards", "Grizzly Bears,Lure", "--max-permanents", "1", "--positions", "0",
        "--properties", "characteristics,sba", "--json", str(out), "--out", str(tmp_path / "f"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "positions/s" in result.output and "0 finding(s)" in result.output
    summary = json.loads(out.read_text())
    # the Bears on either side, tapped or not, and Lure (never tapped) on either side
    assert summary["complete"] is True and summary["positions"] == 6
    assert summary["checked"] == {"characteristics": 6, "sba": 6} and summary["findings"] == []
    assert not (tmp_path / "f").exists()


def test_command_findings_exit_1_and_are_written_as_scenarios(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PROPERTIES, "sba", Property("sba", lure_fails, ("main1",), "planted"))
    out, folder = tmp_path / "summary.json", tmp_path / "found"
    result = run(
        "--cards", "Grizzly Bears,Lure", "--max-permanents", "2", "--positions", "0",
        "--properties", "sba", "--json", str(out), "--out", str(folder),
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    summary = json.loads(out.read_text())
    # every position with Lure shrinks to Lure alone on one side or the other
    assert len(summary["findings"]) == 2 and summary["groups"] == [
        {"property": "sba", "kind": "Lure is here", "count": 2}
    ]
    files = sorted(folder.glob("*.yaml"))
    assert len(files) == 2
    scenario = load_scenario(files[0])
    assert scenario.title.startswith("verify sba: Lure is here") and scenario.cite == ["702.5a"]
    assert [p.card for p in scenario.state.permanents()] == ["Lure"]
    assert "property sba" in files[0].read_text().splitlines()[0]


def test_command_bad_input_exits_2(tmp_path: Path) -> None:
    result = run("--cards", "Grizzly Bears,No Such Card", "--out", str(tmp_path))
    assert result.exit_code == 2 and "No Such Card" in result.output
    result = run("--properties", "characteristics,fairness", "--out", str(tmp_path))
    assert result.exit_code == 2 and "fairness" in result.output
    names = tmp_path / "cards.txt"
    names.write_text("# a pool\nGrizzly Bears\n\n")
    assert run("--cards", str(names), "--max-permanents", "1", "--positions", "0",
               "--properties", "sba", "--out", str(tmp_path)).exit_code == 0  # fmt: skip


def test_command_random_positions_only_and_the_bundled_pool(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    result = run(
        "--cards", "verify", "--max-permanents", "0", "--positions", "2", "--random-permanents", "3-4",
        "--properties", "characteristics,replay", "--json", str(out), "--out", str(tmp_path / "f"),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())
    assert summary["positions"] == 2 and summary["random_permanents"] == [3, 4]
    assert summary["checked"] == {"characteristics": 2, "replay": 2}
    assert len(summary["cards"]) >= 40 and "Humility" in summary["cards"]
    assert set(summary["cpu_seconds_by_property"]) == {"characteristics", "replay"}
    assert "s of CPU" in result.output
    for bad in ("5-3", "0-2", "x-y", "3-13"):
        result = run("--random-permanents", bad, "--out", str(tmp_path))
        assert result.exit_code == 2 and "--random-permanents" in result.output and "Traceback" not in result.output


def test_command_time_limit_exits_3_with_what_was_checked(tmp_path: Path) -> None:
    result = run("--max-permanents", "3", "--time-limit", "1", "--out", str(tmp_path))
    assert result.exit_code == 3, result.output
    assert "the time limit of 1 s was reached after" in result.output and "positions/s" in result.output


def test_finding_scenario_reads_back() -> None:
    finding = verify_module.Finding("citations", "a legal verdict cites ['509.1c']", ("509.1c",), LURED,
                                    DeclareBlockers(blockers={"cub": ["bear"]}))  # fmt: skip
    data = yaml.safe_load(finding_scenario(finding))
    assert data["do"] == [{"declare_blockers": {"cub": ["bear"]}}]


def test_random_positions_follow_the_seed_and_bounds() -> None:
    cards = ["Grizzly Bears", "Serra Angel", "Lure", "Lightning Bolt"]
    first = list(random_positions(POOL, cards, 2, 4, 12, seed=5))
    assert first == list(random_positions(POOL, cards, 2, 4, 12, seed=5))
    assert first != list(random_positions(POOL, cards, 2, 4, 12, seed=6))
    assert all(2 <= len(p.pieces) <= 4 and set(p.hand) <= {"Lightning Bolt"} for p in first)
    assert all(p.attackers is not None and all(p.pieces[i].side == 0 for i in p.attackers) for p in first)
    report = verify(cards, max_permanents=1, properties=["requirements"], random_count=3, seed=5)
    assert report.complete and report.positions == 10 + 3 and report.findings == []
