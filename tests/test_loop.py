"""The loop: who decides, the legal actions, agents, the game log and its replay, `mtgasp play`."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.game import Game
from bridge.model.actions import Activate, Cast, Pass, PlayLand, TurnFaceUp
from bridge.play.agents import FirstLegalAgent, RandomAgent, ScriptedAgent, decisions, play

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "tests/positions/duel.yaml"


def test_decisions_list_every_legal_target_and_pass() -> None:
    game = Game.from_scenario(DUEL)
    decision = decisions(game)
    assert decision.player == "alice"
    bolts = [o for o in decision.options if isinstance(o, Cast) and o.card.startswith("lightning_bolt")]
    # Lightning Bolt: any creature or player (no creature is on the battlefield yet)
    assert sorted(t for o in bolts for t in o.targets) == ["alice", "bob"]
    assert any(isinstance(o, PlayLand) for o in decision.options)
    assert isinstance(decision.options[-1], Pass)
    for option in decision.options:
        assert game.check(option).legal


def test_split_second_leaves_only_mana_abilities_and_pass() -> None:
    """CR 702.58a-b: with a spell with split second on the stack, the player with priority is
    offered no spell and no activated ability, but still the mana abilities and passing; once
    it has resolved, the spell and the ability are offered again."""
    game = Game.from_state(
        {
            "active": "alice",
            "step": "main1",
            "priority": "bob",
            "stack": [{"card": "Sudden Spoiling", "controller": "alice", "targets": ["alice"]}],
            "players": [
                {"name": "alice", "battlefield": ["Grizzly Bears"]},
                {
                    "name": "bob",
                    "hand": ["Giant Growth"],
                    "battlefield": [
                        "Forest",
                        {"id": "elves", "card": "Llanowar Elves"},
                        {"id": "pyro", "card": "Prodigal Pyromancer"},
                    ],
                },
            ],
        }
    )
    decision = decisions(game)
    assert decision.player == "bob"
    assert all(isinstance(o, (Activate, Pass)) for o in decision.options)
    assert all(o.mana or o.color is not None for o in decision.options if isinstance(o, Activate))
    assert {o.source for o in decision.options if isinstance(o, Activate)} == {"forest", "elves"}
    game.push(Pass())
    game.push(Pass())
    assert not game.state.stack
    game.push(Pass())
    offered = decisions(game).options
    assert any(isinstance(o, Cast) for o in offered)
    assert any(isinstance(o, Activate) and o.source == "pyro" for o in offered)


def test_morph_offers_casting_face_down_and_turning_face_up() -> None:
    """CR 702.34a, 702.34d: a card with morph is offered cast face down; a face-down permanent
    with a morph cost its player can pay is offered turned face up, one he or she can't pay
    for is not."""
    game = Game.from_state(
        {
            "turn": 3,
            "active": "alice",
            "step": "main1",
            "players": [
                {
                    "name": "alice",
                    "hand": [{"id": "lorian_card", "card": "Branchsnap Lorian"}],
                    "battlefield": [
                        "Forest",
                        "Forest",
                        "Forest",
                        {"id": "lorian", "card": "Branchsnap Lorian", "face_down": True},
                        {"id": "demon", "card": "Grinning Demon", "face_down": True},
                    ],
                },
                {"name": "bob"},
            ],
        }
    )
    options = decisions(game).options
    assert {o.permanent for o in options if isinstance(o, TurnFaceUp)} == {"lorian"}
    assert any(isinstance(o, Cast) and o.face_down for o in options)
    assert all(game.check(o).legal for o in options)


def test_a_random_game_replays_to_the_identical_state() -> None:
    game = play(Game.from_scenario(DUEL), {"alice": RandomAgent(3), "bob": RandomAgent(4)}, max_actions=60)
    assert len(game.log) == 60
    log = json.loads(json.dumps(game.game_log()))
    again = Game.replay(log)
    assert again.state == game.state
    # the same seeds give the same game
    same = play(Game.from_scenario(DUEL), {"alice": RandomAgent(3), "bob": RandomAgent(4)}, max_actions=60)
    assert same.state == game.state


def test_scripted_agent_then_first_legal_response() -> None:
    script_copy = [PlayLand(card="Mountain"), Cast(card="Lightning Bolt", targets=["bob"])]
    script = ScriptedAgent(list(script_copy))
    game = play(Game.from_scenario(DUEL), {"alice": script, "bob": FirstLegalAgent()}, max_actions=4)
    assert game.state.player("alice").battlefield[-1].card == "Mountain"
    assert game.log[:2] == script_copy
    # bob's first legal action is to counter the Bolt (Counterspell, two Islands untapped)
    assert [s.card for s in game.state.stack] == ["Counterspell", "Lightning Bolt"]
    assert game.state.stack[0].targets == [game.state.stack[1].id]


def test_cli_play_shows_the_board_and_numbered_actions(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    result = CliRunner().invoke(
        main, ["play", str(DUEL), "--human", "alice", "--opponent", "first", "--log", str(log)], input="1\nq\n"
    )
    assert result.exit_code == 0, result.output
    assert "turn 2, alice's main1 step; alice has priority" in result.output
    assert "  1. cast Lightning Bolt" in result.output and "play Mountain" in result.output
    assert "pass" in result.output
    assert "stopped" in result.output
    replayed = CliRunner().invoke(main, ["replay", str(log)])
    assert replayed.exit_code == 0 and "actions replayed" in replayed.output
    bad = CliRunner().invoke(main, ["play", str(DUEL), "--human", "carol"])
    assert bad.exit_code == 2 and "carol" in bad.output


def test_casting_a_card_not_in_hand_is_bad_input(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "title: t\ncite: ['601.2a']\nstate:\n  active: alice\n  players:\n"
        "    - {name: alice, hand: [Grizzly Bears]}\n    - {name: bob}\n"
        "do:\n  - cast: {card: Lightning Bolt, targets: [bob]}\n"
    )
    result = CliRunner().invoke(main, ["check", str(scenario)])
    assert result.exit_code == 2
    assert "'Lightning Bolt' is not in alice's hand" in result.output
    assert "Traceback" not in result.output


def test_cli_play_a_person_plays_a_position_to_the_end(tmp_path: Path) -> None:
    scenario = tmp_path / "finish.yaml"
    scenario.write_text(
        "title: t\ncite: ['104.3b']\nstate:\n  active: alice\n  step: main1\n  turn: 3\n  players:\n"
        "    - {name: alice, hand: [Lightning Bolt], battlefield: [Mountain], library: [Forest]}\n"
        "    - {name: bob, life: 3, library: [Island]}\n"
    )
    # options: 1. Bolt at alice, 2. Bolt at bob, 3. pass; then 1. pass while the Bolt waits
    result = CliRunner().invoke(
        main, ["play", str(scenario), "--human", "alice", "--opponent", "first"], input="2\n1\n"
    )
    assert result.exit_code == 0, result.output
    assert "2. cast Lightning Bolt targeting bob" in result.output
    assert "winner: alice" in result.output


REQUIREMENTS = sorted(
    p
    for pattern in ("*lure*", "*509_1c*", "*unicorn*", "*must_attack*", "*into_the_fray*", "*juggernaut*")
    for p in (ROOT / "scenarios/combat").glob(f"*/{pattern}.yaml")
)


def test_the_declarations_offered_under_requirements_are_legal() -> None:
    """The options offered to an agent are checked against the full list of legal
    declarations: where declaring nothing and each creature alone all break a requirement
    (two creatures must block one with Lure, CR 509.1c), the one offered obeys the most."""
    from bridge.model.scenario import load_scenario
    from bridge.play.agents import _attack_options, _block_options

    seen = forced = 0
    for path in REQUIREMENTS:
        state = load_scenario(path).state
        if state.step not in ("declare_attackers", "declare_blockers"):
            continue
        game = Game(state)
        attack = state.step == "declare_attackers"
        if not attack and not any(p.attacking for p in state.permanents()):
            continue
        options = (_attack_options if attack else _block_options)(game)
        every = list(game.legal_attacks if attack else game.legal_blocks)
        assert options and all(o in every for o in options), (path.name, options)
        # every legal declaration is offered, and nothing else
        offered = decisions(game).options
        assert len(offered) == len(every) and all(o in every for o in offered), path.name
        seen += 1
        forced += not attack and all(len(o.blockers) > 1 for o in options)
    assert seen >= 20 and forced >= 5, (seen, forced)


def test_the_first_legal_agent_plays_a_lure_position_to_the_end() -> None:
    game = Game.from_scenario(ROOT / "scenarios/combat/block/lure_all_able_must_block.yaml")
    first = game.state.step
    game = play(game, {"alice": FirstLegalAgent(), "bob": FirstLegalAgent()}, max_actions=200)
    assert first == "declare_blockers" and game.winner() is not None
    blocks = next(a for a in game.log if a.kind == "declare_blockers")
    assert sorted(blocks.blockers) == ["cub", "elves"]  # both must block the Wurm (Lure)


def test_a_position_in_the_untap_or_cleanup_step_goes_on_to_the_upkeep() -> None:
    """CR 502.3, 514.3: nobody has priority there; the game goes on instead of asking for a pass."""
    for name in ("triggers/upkeep_trigger.yaml", "triggers/howling_mine_extra_card_for_each_player.yaml"):
        game = Game.from_scenario(ROOT / "scenarios" / name)
        assert game.state.step in ("untap", "cleanup")
        decision = decisions(game)
        assert [a.kind for a in decision.options] == ["advance"] and decision.player == game.state.active
        game.push(decision.options[0])
        assert game.state.step == "upkeep" and game.state.priority is not None


def test_a_position_with_state_based_actions_pending_performs_them_first() -> None:
    """CR 704.3: the first decision of a position whose creature has lethal damage is to
    perform state-based actions, and then none is pending."""
    game = Game.from_scenario(ROOT / "scenarios/sba/animated_land_with_lethal_damage_destroyed.yaml")
    assert game.state_based_actions()
    decision = decisions(game)
    assert [a.kind for a in decision.options] == ["sba"]
    game.push(decision.options[0])
    assert not game.state_based_actions()
    assert decisions(game).can_pass


# Random play from the scenarios' positions: a sample spread over all of them (every
# SAMPLE-th, sorted, so that it is the same every run) and the positions that once failed,
# each played for a few actions with the state checked after every one.
SAMPLE = 12
ONCE_FAILED = (
    "layers/copy/clone_does_not_copy_text_change.yaml",
    "turn/instant_in_cleanup_step_is_illegal.yaml",
    "stack/loyalty_ability_removing_the_last_counter_still_resolves.yaml",
    "sba/legend_rule_puts_both_into_graveyard.yaml",
    "combat/block/lure_all_able_must_block.yaml",
)


def test_random_play_from_the_scenarios_positions_keeps_the_state_valid() -> None:
    from bridge.model.errors import MtgaspError
    from bridge.model.scenario import load_scenario
    from bridge.play.selfplay import check_invariants, owned_cards

    every = sorted((ROOT / "scenarios").rglob("*.yaml"))
    chosen = every[::SAMPLE] + [ROOT / "scenarios" / name for name in ONCE_FAILED]
    played = 0
    for number, path in enumerate(chosen):
        try:
            game = Game(load_scenario(path).state)
        except MtgaspError:
            continue  # a scenario whose position is bad input on purpose
        sizes = owned_cards(game.state)
        agents = {p.name: RandomAgent(number * 10 + i, pass_rate=0.25) for i, p in enumerate(game.state.players)}
        play(game, agents, max_actions=25, on_action=lambda g, a: check_invariants(g, sizes))
        again = Game.replay(json.loads(json.dumps(game.game_log())))
        assert again.state == game.state, path
        played += 1
    assert played >= len(chosen) - 5


PANIC = """\
title: t
cite: ["113.3"]
state:
  active: alice
  step: main1
  players:
    - name: alice
      hand: [{id: panic, card: Panic Attack}]
      battlefield: [Mountain, Mountain, Mountain]
    - name: bob
      battlefield: [{id: a, card: Grizzly Bears}, {id: b, card: Llanowar Elves}, {id: c, card: Craw Wurm}]
"""


def test_up_to_three_targets_of_one_word_are_offered_different(tmp_path: Path) -> None:
    """CR 113.3: "up to three target creatures" is one word "target": no creature twice."""
    path = tmp_path / "panic.yaml"
    path.write_text(PANIC)
    game = Game.from_scenario(path)
    casts = [o for o in decisions(game).options if isinstance(o, Cast)]
    assert casts and all(len(set(c.targets)) == len(c.targets) for c in casts)
    assert {frozenset(c.targets) for c in casts} == {frozenset(s) for n in range(4) for s in combinations("abc", n)}
    assert all(game.check(c).legal for c in casts)


def test_a_clone_is_offered_the_activated_ability_it_copied() -> None:
    """CR 706.2: the Clone has the copied card's abilities, so an agent may activate them."""
    game = Game.from_scenario(ROOT / "scenarios/stack/clone_of_prodigal_pyromancer_uses_the_copied_ability.yaml")
    options = [o for o in decisions(game).options if getattr(o, "source", None) == "clone"]
    assert options and all(game.check(o).legal for o in options)
    assert {t for o in options for t in o.targets} == {"alice", "bob", "clone"}


def _position(tmp_path: Path, text: str) -> Game:
    path = tmp_path / "position.yaml"
    path.write_text(text)
    return Game.from_scenario(path)


def test_a_flash_creature_is_offered_in_the_opponents_end_step() -> None:
    """CR 702.8a: the rules list it (the listing's timing is theirs, flash included)."""
    game = Game.from_scenario(ROOT / "scenarios/casting/flash_creature_in_opponents_end_step_is_legal.yaml")
    decision = decisions(game)
    assert decision.player == "alice"
    casts = [o for o in decision.options if isinstance(o, Cast)]
    assert [c.card for c in casts] == ["ambush_viper"] and all(game.check(c).legal for c in casts)


STOLEN = """\
title: t
cite: ["613.2"]
state:
  active: alice
  step: main1
  players:
    - name: alice
      battlefield: [{id: magic, card: Control Magic, attached_to: pyro}]
    - name: bob
      battlefield: [{id: pyro, card: Prodigal Pyromancer}]
"""


def test_the_abilities_of_a_stolen_permanent_are_offered_to_its_new_controller(tmp_path: Path) -> None:
    """CR 613.2 (layer 2), 602.2: the rules' controller, not the one the position lists."""
    from bridge.model.actions import Activate

    game = _position(tmp_path, STOLEN)
    assert game.characteristics("pyro").controller == "alice"
    offered = [o for o in decisions(game).options if isinstance(o, Activate) and o.source == "pyro"]
    assert {t for o in offered for t in o.targets} == {"alice", "bob", "pyro"}
    assert all(game.check(o).legal for o in offered)
    game.push(Pass())
    assert decisions(game).player == "bob"
    assert not [o for o in decisions(game).options if isinstance(o, Activate) and o.source == "pyro"]


THREE_BEARS = """\
title: t
cite: ["508.1"]
state:
  active: alice
  step: declare_attackers
  players:
    - name: alice
      battlefield: [{id: a, card: Grizzly Bears}, {id: b, card: Grizzly Bears}, {id: c, card: Grizzly Bears}]
    - name: bob
"""


def test_every_legal_declaration_is_offered_and_random_agents_sample_a_few(tmp_path: Path) -> None:
    """CR 508.1: the options are every legal declaration (listed when asked for); a random
    agent chooses among the decision's cheap sample without listing them all."""
    from bridge.model.actions import DeclareAttackers

    game = _position(tmp_path, THREE_BEARS)
    decision = decisions(game)
    every = list(game.legal_attacks)
    assert len(every) == 8 and len(decision.options) == 8
    assert all(isinstance(o, DeclareAttackers) and o in every for o in decision.options)
    sampled = decisions(game)
    chosen = RandomAgent(1, pass_rate=0).choose(game, sampled)
    assert sampled.sample is not None and chosen in sampled.sample() and len(sampled.sample()) == 5
    assert sampled._options is None  # the agent listed only the sample
    assert FirstLegalAgent().choose(game, decisions(game)) == DeclareAttackers(attackers={})


def test_mana_abilities_are_offered_with_each_color_they_make(tmp_path: Path) -> None:
    """CR 605.3a, 106.1: a player with priority may activate them, naming the color."""
    from bridge.model.actions import Activate

    game = _position(
        tmp_path,
        "title: t\ncite: ['605.3a']\nstate:\n  active: alice\n  step: upkeep\n  players:\n"
        "    - {name: alice, battlefield: [{id: birds, card: Birds of Paradise}, Forest]}\n"
        "    - {name: bob, battlefield: [Mountain]}\n",
    )
    mana = [o for o in decisions(game).options if isinstance(o, Activate) and o.mana]
    assert sorted((o.source, o.color) for o in mana) == sorted(
        [("birds", c) for c in ("white", "blue", "black", "red", "green")] + [("forest", "green")]
    )
    game.push(next(o for o in mana if o.color == "blue"))
    assert game.state.player("alice").mana_pool == "{U}"


def test_the_ways_to_pay_that_leave_different_mana_untapped_are_offered() -> None:
    """CR 601.2g: Grizzly Bears with two Forests, two Mountains and an Island: paying the {1}
    with a Forest, a Mountain or the Island leaves different mana; the two Mountains are alike."""
    import sys

    sys.path.insert(0, str(ROOT))
    from benchmarks.priority_loop import board

    game = Game(board())
    bears = [o for o in decisions(game).options if isinstance(o, Cast) and o.card == "grizzly_bears_2"]
    assert len(bears) == 3 and all(game.check(o).legal for o in bears)
    untapped = set()
    for option in bears:
        kinds = sorted(game.state.permanent(s).card for s in option.pay or [])
        untapped.add(tuple(kinds))
    assert untapped == {("Forest", "Forest"), ("Forest", "Island"), ("Forest", "Mountain")}


def test_a_triggered_abilitys_targets_are_its_controllers_decision() -> None:
    """CR 603.3d: as Bogardan Firefiend's ability goes on the stack, its controller chooses its
    target among the legal ones (the default, an opponent's creature with the smallest id,
    first); nobody acts before it is on the stack."""
    from bridge.model.actions import ChooseTargets
    from bridge.model.errors import IllegalActionError

    game = Game.from_scenario(ROOT / "scenarios/triggers/controller_chooses_the_trigger_target.yaml")
    game.push(Cast(card="Shock", targets=["fiend"]))
    game.push(Pass())
    game.push(Pass())
    decision = decisions(game)
    assert decision.player == "bob" and game.state.awaiting_targets
    assert [o.targets for o in decision.options] == [["bears"], ["elves"]]
    assert all(isinstance(o, ChooseTargets) and game.check(o).legal for o in decision.options)
    try:
        game.push(Pass())
    except IllegalActionError as exc:
        assert exc.verdict.violations[0].rule == "603.3d"  # type: ignore[union-attr]
    else:
        raise AssertionError("a pass while a triggered ability waits for its targets")
    game.push(decision.options[1])
    assert [(s.source, s.targets) for s in game.state.stack] == [("fiend", ["elves"])]
    assert not game.state.awaiting_targets
