"""Perft: the reference counts of tests/perft/, recomputed, and confirmed by brute force.

The reference positions and their counts at depths 1 to 3 are in ``REFERENCE``: other
engines can compare their own counts with them. Each count is confirmed independently: a
brute-force perft that does not ask ``decisions`` what is legal, but makes candidate actions
broadly from the position's objects and card data (every card in any hand played as a land
and cast with every choice of targets among all objects and players, every activated ability
of every permanent with every choice of targets, every permanent's mana ability with every
color (the other colors tried when the first was accepted or refused for its color only),
passing, every assignment of the active player's permanents to a player or planeswalker to
attack and of the other player's permanents to sets of attackers, by itertools, and the
choices of targets of a waiting triggered ability, each by every player) and keeps those
``game.push`` accepts: the engine's judge. At every position on the way, the accepted
actions must be exactly the listed ones (nothing missing, nothing extra), so the brute-force
counts are perft's.

Ways to pay (``pay``) are compared where the listing offers them (an action listed once for
each way): the ways listed must be the ways ``push`` accepts, among every set of the player's
permanents (the empty one: paid from the mana pool, tapping nothing).  A way to pay is the
cards tapped, by name: tapping one Mountain or another leaves the same mana untapped, and the
listing offers them as one way.  Where it offers no choice (the rules offer one only when the
untapped sources differ in the mana they make), the action must be accepted paid by default.

A pass made while a declaration of attackers or blockers is to be made is accepted as the
default declaration (none) and then a pass; it is checked to lead where those two do, and is
not a decision of its own.  Two things the brute force leaves out: a mana ability activated
without naming its color (the listing names it always; naming the only color is the same
action), and the actions of the scenario format that are no player's decision (``advance``,
``sba``, ``next_step``...).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.game import Game
from bridge.model.actions import (
    Action,
    Activate,
    Cast,
    ChooseTargets,
    DeclareAttackers,
    DeclareBlockers,
    Pass,
    PlayLand,
)
from bridge.model.errors import IllegalActionError, InputError
from bridge.play import perft as perft_module
from bridge.play.agents import decisions, game_over
from bridge.play.perft import PerftDefect, logged, perft

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = ROOT / "tests" / "perft"
COLORS = ("white", "blue", "black", "red", "green", "colorless")
COLOR_REASONS = {"no_such_mana", "mana_color_unnamed"}

# the leaves at depths 1, 2 and 3 from each reference position
REFERENCE = {
    "bolt_main_phase.yaml": [7, 26, 82],
    "birds_any_color.yaml": [11, 45, 87],
    "two_attackers_two_blockers.yaml": [9, 9, 63],
    "three_creatures_declare_attackers.yaml": [4, 16, 16],
    "sparkmage_trigger_targets.yaml": [1, 4, 8],
}
# how deep the brute force confirms them (each position it passes is compared in full)
BRUTE_DEPTH = 2


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
def _refusal(game: Game, action: Action) -> set[str] | None:
    """None when ``game.push`` takes the action (then popped), else the reasons it gives."""
    try:
        game.push(action)
    except IllegalActionError as exc:
        return {v.reason for v in exc.verdict.violations}  # type: ignore[attr-defined]
    except InputError:
        return {"input"}
    game.pop()
    return None


def _accepted(game: Game, action: Action) -> bool:
    """Whether ``game.push`` takes the action (then popped)."""
    return _refusal(game, action) is None


def _objects(game: Game) -> list[str]:
    """Every object and player: what a target could be."""
    state = game.state
    return (
        [p.name for p in state.players]
        + [p.id or "" for p in state.permanents()]
        + [s.id or "" for s in state.stack]
        + [c.id or "" for p in state.players for z in ("hand", "graveyard", "exile") for c in getattr(p, z)]
    )


def _target_lists(objects: list[str], slots: int) -> list[list[str]]:
    """Every list of targets of length 0 to ``slots`` (at least 1) among the objects."""
    return [list(c) for n in range(max(slots, 1) + 1) for c in itertools.product(objects, repeat=n)]


def _pay_sets(game: Game, player: str) -> list[list[str]]:
    """Every set of the player's permanents, as a ``pay`` list, the empty one included."""
    mine = [p.id or "" for p in game.state.permanents() if game.state.controller_of(p) == player]
    return [list(c) for n in range(len(mine) + 1) for c in itertools.combinations(mine, n)]


def _paid(game: Game, action: Cast | Activate) -> bool:
    """Whether ``push`` accepts the action paid as its ``pay`` says; the engine reads an empty
    ``pay`` as the default payment, so it is a way to pay (from the mana pool) only when
    nothing is tapped."""
    if not action.pay:
        try:
            game.push(action)
        except (IllegalActionError, InputError):
            return False
        tapped = {p.id for p in game.state.permanents() if p.tapped}
        game.pop()
        return tapped <= {p.id for p in game.state.permanents() if p.tapped}
    return _accepted(game, action)


def _brute_options(game: Game) -> list[Action]:
    """The actions ``push`` accepts among the broad candidates (see the module's docstring)."""
    state = game.state
    names = [p.name for p in state.players]
    objects = _objects(game)
    candidates: list[Action] = []
    for item in state.awaiting_targets:
        candidates += [
            ChooseTargets(ability=item.id or "", targets=t, by=who)
            for t in _target_lists(objects, 2)
            for who in (item.controller, *names)
        ]
    active = state.active
    defenders = [n for n in names if n != active]
    mine = [p.id or "" for p in state.permanents() if state.controller_of(p) == active]
    theirs = [p.id or "" for p in state.permanents() if state.controller_of(p) != active]
    # CR 508.1a: each permanent of the active player attacking nothing, a player, or a
    # planeswalker card on the battlefield (by the card's data)
    walkers = [p for p in theirs if "planeswalker" in game.pool.get(state.permanent(p).card).types]
    for choice in itertools.product([None, *defenders, *walkers], repeat=len(mine)):
        candidates.append(DeclareAttackers(attackers={c: t for c, t in zip(mine, choice) if t is not None}))
    # CR 509.1a: each permanent of the defending player blocking nothing or a set of attackers
    attacking = [p.id or "" for p in state.permanents() if p.attacking]
    sets = [list(c) for n in range(1, len(attacking) + 1) for c in itertools.combinations(attacking, n)]
    for choice in itertools.product([None, *sets], repeat=len(theirs)):
        candidates.append(DeclareBlockers(blockers={b: a for b, a in zip(theirs, choice) if a is not None}))
    for who in names:
        candidates.append(Pass(by=who))
        for player in state.players:
            for card in player.hand:
                candidates.append(PlayLand(card=card.id or "", by=who))
                spec = game.pool.get(card.card)
                slots = len(spec.spell_targets())
                candidates += [Cast(card=card.id or "", by=who, targets=t) for t in _target_lists(objects, slots)]
        for perm in state.permanents():
            card = game.pool.get(perm.card)
            for number, ability in enumerate(card.activated, start=1):
                candidates += [
                    Activate(source=perm.id or "", ability=number, by=who, targets=t)
                    for t in _target_lists(objects, len(ability.targets))
                ]
    found = [a for a in candidates if _accepted(game, a)]
    # each mana ability with each color, the other colors tried when the first one was
    # accepted or refused only for its color (who acts, and when, doesn't depend on it)
    for who in names:
        for perm in state.permanents():
            first = Activate(source=perm.id or "", color=COLORS[0], by=who)
            reasons = _refusal(game, first)
            if reasons is None or reasons <= COLOR_REASONS:
                tries = [Activate(source=perm.id or "", color=c, by=who) for c in COLORS]  # type: ignore[arg-type]
                found += [a for a in tries if _accepted(game, a)]
    # CR 601.2g: each way to pay an accepted spell or ability, by the permanents tapped
    for action in list(found):
        if isinstance(action, (Cast, Activate)) and not (isinstance(action, Activate) and action.mana):
            found += [
                paid
                for pay in _pay_sets(game, action.by or "")
                if _paid(game, paid := action.model_copy(update={"pay": pay}))
            ]
    return found


Way = tuple[str, ...] | None


def _key(action: Action) -> str:
    """An action written the same way whatever the order of its mappings."""
    return json.dumps(action.model_dump(mode="json"), sort_keys=True)


def _by_way_to_pay(game: Game, actions: list[Action]) -> dict[str, set[Way]]:
    """The actions without their ``pay``, each with the ways it is paid: the names of the cards
    tapped, sorted (None: paid by default)."""
    out: dict[str, set[Way]] = {}
    for action in actions:
        pay = getattr(action, "pay", None)
        plain = action.model_copy(update={"pay": None}) if pay is not None else action
        way = None if pay is None else tuple(sorted(game.state.permanent(p).card for p in pay))
        out.setdefault(_key(plain), set()).add(way)
    return out


def _pass_by_default(game: Game, listed: tuple[Action, ...], accepted: list[Action]) -> list[Action]:
    """The accepted actions but a pass made while a declaration of attackers or blockers is to
    be made: the engine takes it as the default declaration (none) followed by the pass of
    the player who then has priority (a scenario's ``pass``), not as a decision of its own;
    checked here to lead where those two do."""
    if not listed or not all(isinstance(a, (DeclareAttackers, DeclareBlockers)) for a in listed):
        return accepted
    kept = []
    for action in accepted:
        if not isinstance(action, Pass):
            kept.append(action)
            continue
        game.push(action)
        after = game.pop()
        attack = isinstance(listed[0], DeclareAttackers)
        game.push(DeclareAttackers(attackers={}) if attack else DeclareBlockers(blockers={}))
        game.push(action)
        assert game.state == after, (game.state.step, action)
        game.pop()
        game.pop()
    return kept


def _compare(game: Game, listed: tuple[Action, ...], accepted: list[Action]) -> None:
    where = (game.state.turn, game.state.step, [logged(a) for a in game.log])
    accepted = _pass_by_default(game, listed, accepted)
    listed_ways = _by_way_to_pay(game, list(listed))
    accepted_ways = _by_way_to_pay(game, accepted)
    assert set(listed_ways) == set(accepted_ways), (where, set(listed_ways) ^ set(accepted_ways))
    for key, ways in listed_ways.items():
        paid = accepted_ways[key] - {None}
        assert None in accepted_ways[key], (where, key, "not paid by default")
        if ways != {None}:  # where no choice is offered, the default payment stands for every way
            assert ways == paid, (where, key, ways, paid)


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
    accepted = _brute_options(game)
    _compare(game, listed, accepted)
    for action in listed:  # the listed ones are the accepted ones, one for each way to pay
        game.push(action)
        _brute_perft(game, depth, counts, level + 1)
        game.pop()


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_brute_force_confirms_the_reference_counts(name: str) -> None:
    game = _game(name)
    counts = [0] * BRUTE_DEPTH
    _brute_perft(game, BRUTE_DEPTH, counts)
    assert counts == REFERENCE[name][:BRUTE_DEPTH]


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
