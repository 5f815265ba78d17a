"""Scenario files: reading them with errors that name the place, and running them.

A scenario runs its actions in order; the first illegal one stops it, and fails the scenario
unless the scenario expects ``legal: false``.  Then each expectation is compared with what
happened, and the first that differs is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bridge.engine.verdict import Verdict
from bridge.model.actions import Action, AnswerOffer, ChooseOrder, ChooseTargets
from bridge.model.cards import Ability
from bridge.model.errors import IllegalActionError, InputError
from bridge.model.scenario import Scenario

if TYPE_CHECKING:
    from bridge.engine.game import Game

__all__ = ["ScenarioResult", "run_scenario"]


@dataclass
class ScenarioResult:
    """The outcome of a scenario: ``passed``, else the first expectation that differs."""

    path: str
    passed: bool
    difference: str | None = None
    verdicts: list[Verdict] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        """Were all the actions legal?"""
        return all(v.legal for v in self.verdicts)


def _ability_terms(values: list[Any], where: str = "expect") -> set[str]:
    terms = set()
    for k, v in enumerate(values):
        try:
            terms.add(Ability.model_validate(v).term())
        except ValidationError as exc:
            reason = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
            raise InputError(
                f"{reason} (an ability is written as in card files: flying, {{protection: {{color: red}}}})",
                location=f"{where}[{k}]",
            ) from None
    return terms


def default_choices(game: Game, before: Action | None = None) -> None:
    """The choices of targets the game waits for (CR 603.3d), and the answers to offers of a
    payment (608.2f), that a scenario doesn't make take their defaults
    (``stack.default_target_choice``, not paying) before ``before``, an action of another kind
    (or before its expectations are compared)."""
    from bridge.engine.acting import default_offer_answer, default_target_choice

    if isinstance(before, (ChooseTargets, ChooseOrder, AnswerOffer)):
        return
    for _ in range(100):
        choice: Action | None = default_target_choice(game)
        if choice is None:
            choice = default_offer_answer(game)
        if choice is None:
            return
        game.push(choice)


def run_scenario(scenario: Scenario, path: str = "<scenario>") -> ScenarioResult:
    """Run a scenario's actions and compare its expectations."""
    from bridge.engine.game import Game  # the game imports this module for from_scenario

    try:
        game = Game(scenario.state)
    except InputError as exc:
        raise exc.at(source=path) from None
    verdicts: list[Verdict] = []
    for index, action in enumerate(scenario.do):
        try:
            default_choices(game, action)
            verdicts.append(game.push(action))
        except IllegalActionError as exc:
            assert isinstance(exc.verdict, Verdict)  # a game refuses an action with its verdict
            verdicts.append(exc.verdict)
            break
        except InputError as exc:
            where = f"do[{index}]" + (f".{exc.location}" if exc.location else "")
            raise InputError(exc.problem, source=exc.source or path, location=where) from None
    if all(v.legal for v in verdicts):
        default_choices(game)
    result = ScenarioResult(path=path, passed=True, verdicts=verdicts)
    expect = scenario.expect

    def differ(text: str) -> ScenarioResult:
        result.passed = False
        result.difference = text
        return result

    legal = all(v.legal for v in verdicts)
    cited = set().union(*(v.rules for v in verdicts)) if verdicts else set()
    if not legal and expect.legal is not False:
        # an illegal action stops the scenario: its later actions never happen, so only a
        # scenario that expects the refusal may pass
        index = next(i for i, v in enumerate(verdicts) if not v.legal)
        said = "expected true" if expect.legal else "an illegal action needs legal: false"
        return differ(f"legal: {said}, but do[{index}] ({scenario.do[index].kind}) was {verdicts[index]}")
    if expect.legal is False and legal:
        return differ("legal: expected false, got true (every action was legal)")
    for rule in expect.violations:
        if rule not in cited:
            got = ", ".join(sorted(cited)) or "none"
            return differ(f"violations: expected {rule} to be cited, cited: {got}")
    if expect.characteristics:
        chars = game.all_characteristics()
        for object_id, want in expect.characteristics.items():
            if object_id not in chars:
                raise InputError(
                    f"no permanent has the id {object_id!r}",
                    source=path,
                    location=f"expect.characteristics.{object_id}",
                )
            got_chars = chars[object_id]
            perm = game.state.permanent(object_id)
            blocked_by = sorted(p.id for p in game.state.permanents() if p.id is not None and object_id in p.blocking)
            actual: dict[str, Any] = {
                "name": got_chars.name,
                "power": got_chars.power,
                "toughness": got_chars.toughness,
                "loyalty": got_chars.loyalty,
                "colors": sorted(got_chars.colors),
                "types": sorted(got_chars.types),
                "subtypes": sorted(got_chars.subtypes),
                "supertypes": sorted(got_chars.supertypes),
                "abilities": sorted(got_chars.abilities),
                "controller": got_chars.controller,
                "damage": perm.damage,
                "counters": dict(perm.counters),
                "tapped": perm.tapped,
                "attached_to": perm.attached_to,
                "attacking": perm.attacking,
                "blocking": sorted(perm.blocking),
                "blocked_by": blocked_by,
                "blocked": perm.attacking is not None and (perm.blocked or bool(blocked_by)),
                "prevention_shield": perm.prevention_shield,
                "phased_out": perm.phased_out,
                "prevent_next_from": sorted(perm.prevent_next_from),
            }
            for key, value in want.model_dump(exclude_unset=True).items():
                if key == "abilities" and value is not None:
                    try:
                        value = sorted(_ability_terms(value, f"expect.characteristics.{object_id}.abilities"))
                    except InputError as exc:
                        raise exc.at(source=path) from None
                elif isinstance(value, list):
                    value = sorted(
                        str(v).lower() if key not in ("blocking", "blocked_by", "prevent_next_from") else v
                        for v in value
                    )
                if actual[key] != value:
                    return differ(f"characteristics.{object_id}.{key}: expected {value}, got {actual[key]}")
    for name, want_player in expect.players.items():
        try:
            got_player = game.player_characteristics(name)
        except InputError as exc:
            raise exc.at(source=path, location=f"expect.players.{name}") from None
        if want_player.abilities is not None:
            wanted = sorted(_ability_terms(want_player.abilities))
            if list(got_player.abilities) != wanted:
                return differ(f"players.{name}.abilities: expected {wanted}, got {list(got_player.abilities)}")
        if want_player.max_hand_size is not None and got_player.max_hand_size != want_player.max_hand_size:
            return differ(
                f"players.{name}.max_hand_size: expected {want_player.max_hand_size}, got {got_player.max_hand_size}"
            )
        shield = game.state.player(name).prevention_shield
        if want_player.prevention_shield is not None and shield != want_player.prevention_shield:
            return differ(f"players.{name}.prevention_shield: expected {want_player.prevention_shield}, got {shield}")
        poison = game.state.player(name).poison
        if want_player.poison is not None and poison != want_player.poison:
            return differ(f"players.{name}.poison: expected {want_player.poison}, got {poison}")
        sources = sorted(game.state.player(name).prevent_next_from)
        if want_player.prevent_next_from is not None and sources != sorted(want_player.prevent_next_from):
            return differ(
                f"players.{name}.prevent_next_from: expected {sorted(want_player.prevent_next_from)}, got {sources}"
            )
    if expect.legal_block_count is not None:
        count = len(game.legal_blocks)
        if count != expect.legal_block_count:
            return differ(f"legal_block_count: expected {expect.legal_block_count}, got {count}")
    if expect.legal_attack_count is not None:
        count = len(game.legal_attacks)
        if count != expect.legal_attack_count:
            return differ(f"legal_attack_count: expected {expect.legal_attack_count}, got {count}")
    if expect.step is not None and game.state.step != expect.step:
        return differ(f"step: expected {expect.step}, got {game.state.step}")
    for key, got_value in (
        ("turn", game.state.turn),
        ("active", game.state.active),
        ("priority", game.state.priority_player()),
    ):
        want = getattr(expect, key)
        if want is not None and want != got_value:
            return differ(f"{key}: expected {want}, got {got_value}")
    if expect.stack is not None:
        stack = [item.label() for item in game.state.stack]
        if stack != expect.stack:
            return differ(f"stack: expected {expect.stack}, got {stack}")
    for name, pool in expect.mana_pool.items():
        try:
            got_pool = game.state.player(name).mana_pool
        except KeyError:
            raise InputError(
                f"no player is called {name!r}", source=path, location=f"expect.mana_pool.{name}"
            ) from None
        if sorted(got_pool[i : i + 3] for i in range(0, len(got_pool), 3)) != sorted(
            pool[i : i + 3] for i in range(0, len(pool), 3)
        ):
            return differ(f"mana_pool.{name}: expected {pool or 'empty'}, got {got_pool or 'empty'}")
    for name, zones in expect.zones.items():
        try:
            player = game.state.player(name)
        except KeyError:
            raise InputError(f"no player is called {name!r}", source=path, location=f"expect.zones.{name}") from None
        for zone, wanted in zones.items():
            got_cards = [c.card for c in getattr(player, zone)]
            same = got_cards == wanted if zone == "library" else sorted(got_cards) == sorted(wanted)
            if not same:
                return differ(f"zones.{name}.{zone}: expected {wanted}, got {got_cards}")
    if expect.winner is not None:
        losers = {p.name for p in game.state.players if p.lost}
        alive = [p.name for p in game.state.players if not p.lost]
        winner = (
            alive[0] if losers and len(alive) == 1 else ("none" if len(losers) == len(game.state.players) else None)
        )
        if (winner or "nobody_yet") != expect.winner:
            return differ(f"winner: expected {expect.winner}, got {winner or 'nobody yet'}")
    for name, life in expect.life.items():
        got_life = game.state.player(name).life
        if got_life != life:
            return differ(f"life.{name}: expected {life}, got {got_life}")
    return result
