"""Is there an attack that wins this combat whatever the defending player blocks with?

An exists-forall question, put to the rules in a counterexample-guided loop of two kinds of
question: the attacks are the legal declarations of attackers the engine lists (the optimal
answer sets of ``combat/attack_search.lp``), tried in turn, most attackers first; each is
judged against every legal declaration of blockers the engine lists
(``combat/block_search.lp``) in one solve (:func:`~bridge.engine.forall.judge_blocks`:
``combat/attack_forall.lp`` with the damage modules, the declaration a choice), which gives a
declaration of blockers that refutes it (a counterexample) or shows that none does.
Declarations of blockers that put a creature with first strike or double strike into the
combat (two combat damage steps, state-based actions between them) are played out on the
game instead, one by one, until one refutes the attack.

Sound only where nothing but passing and mana abilities can happen after the attack until
the combat ends: no spell, no activated ability other than a mana ability, no triggered
ability.  The engine decides it: every priority decision on the way from the attack to the
declaration of blockers, and on the line played out after it (the counterexample, or for an
attack that wins the first legal declaration of blockers), must list nothing but passing and
mana abilities (:func:`~bridge.play.agents.decisions`), and the rules must see no ability
that would trigger on blocks or on the damage (``combat_left_open/2``).  Otherwise the answer
is "not applicable", with the reason.

With ``verify`` (the default), each counterexample is played out on the game (the defending
player must still be in the game as the combat ends), and so is the first declaration of
blockers against an attack that wins (the defending player must have lost): a disagreement
between the rules' answer and the game raises :class:`ForallDisagreement`.

Damage assignment orders and division are the engine's defaults (in order, lethal damage to
each creature and the rest to the last, or with trample to the player: 510.1c-d, 702.17b):
where the engine offers the players other orders and divisions as choices (509.2-509.3,
510.1), the defaults are taken.  The answers stay exact under these conditions:

- a win: the attacking player's choices can't make an unblocked creature deal more damage to
  the defending player, nor a blocked trampler more than the default's excess, so with the
  defending player's choices fixed a win with the defaults is a win; the defending player has
  choices (509.3) only for a creature blocking two or more attackers, and they can change his
  or her life (lifelink, or an attacker killed in a first combat damage step): a win is a win
  under every choice when no creature of his or hers can block two or more attackers;
- no win: the attacking player's other choices can change the defending player's life only
  through which blockers die in a first combat damage step (a blocker with lifelink that dies
  then gains nothing in the second): a counterexample refutes the attack under every choice
  when no attacker with first strike or double strike is blocked by two or more creatures in
  it.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from bridge.engine.board import COMBAT_STEPS
from bridge.engine.forall import judge_blocks
from bridge.engine.game import Game
from bridge.model.actions import (
    Action,
    Activate,
    AssignDamage,
    DeclareAttackers,
    DeclareBlockers,
    OrderAttackers,
    OrderBlockers,
    Pass,
)
from bridge.model.cards import CardPool
from bridge.model.errors import MtgaspError
from bridge.model.keys import position_key
from bridge.play.agents import decisions

__all__ = [
    "ATTACKERS",
    "BLOCKERS",
    "AttackJudged",
    "ForallAnswer",
    "ForallDisagreement",
    "NotApplicable",
    "combat_board",
    "winning_attacks",
]


class ForallDisagreement(MtgaspError):
    """The rules' answer on an attack and the game played out disagree."""


class NotApplicable(Exception):
    """Something other than passing and mana abilities could happen in the combat."""


@dataclass
class AttackJudged:
    """One attack and its answer: ``wins``; ``refuting``, the declaration of blockers that
    refutes it (None for an attack that wins, or one that leads to no declaration of blockers);
    ``blocks``, the legal declarations of blockers; ``asked``, those the rules judged (at
    once); ``played``, those played out on the game (two combat damage steps); ``blocks_key``,
    the position key where the blockers are declared (None when no declaration of blockers
    comes)."""

    attack: DeclareAttackers
    wins: bool
    refuting: DeclareBlockers | None = None
    blocks: int = 0
    asked: int = 0
    played: int = 0
    blocks_key: bytes | None = None


@dataclass
class ForallAnswer:
    """The answer: ``applicable`` (else ``reason``); ``winning``, an attack that wins (None:
    none does, every legal attack refuted in ``judged``); ``judged``, the attacks judged, in
    the order tried; ``seconds``."""

    applicable: bool
    winning: DeclareAttackers | None = None
    judged: list[AttackJudged] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0

    @property
    def result(self) -> str:
        """``win``, ``no_win`` or ``not_applicable``."""
        if not self.applicable:
            return "not_applicable"
        return "win" if self.winning is not None else "no_win"


def _passing(action: Action) -> bool:
    return isinstance(action, Pass) or (isinstance(action, Activate) and action.mana)


def _passing_or_default(action: Action) -> bool:
    """Passing, a mana ability, or a damage assignment order or division of combat damage
    (CR 509.2-509.3, 510.1): those are taken as the defaults, under the conditions the module's
    text gives."""
    return _passing(action) or isinstance(action, (OrderBlockers, OrderAttackers, AssignDamage))


def _pass_on(game: Game, until_blocks: bool) -> DeclareBlockers | tuple[DeclareBlockers, ...] | None:
    """Pass priority through the combat (each decision checked: nothing but passing and mana
    abilities), until the declaration of blockers (``until_blocks``: its legal declarations
    are returned) or the end of the combat (None); the game over ends it too."""
    while not any(p.lost for p in game.state.players):
        if game.state.step not in COMBAT_STEPS:
            return None
        decision = decisions(game)
        options = decision.options
        if all(isinstance(o, DeclareBlockers) for o in options):
            if not until_blocks:
                raise AssertionError("a second declaration of blockers in one combat")
            return tuple(o for o in options if isinstance(o, DeclareBlockers))
        if not all(_passing_or_default(o) for o in options):
            other = next(o for o in options if not _passing_or_default(o))
            raise NotApplicable(f"{decision.player} could {other.kind} in the {game.state.step.replace('_', ' ')} step")
        # a pass, or where orders or a division are awaited, the default (listed first)
        game.push(next((o for o in options if isinstance(o, Pass)), options[0]))
        if not until_blocks and game.state.step == "end_of_combat":
            return None
    return None


def _attack_won(game: Game) -> bool:
    """CR 104.2a: the defending player has lost and the attacking player hasn't."""
    state = game.state
    lost = {p.name for p in state.players if p.lost}
    return state.opponent(state.active) in lost and state.active not in lost


def _play_out(game: Game, block: DeclareBlockers) -> bool:
    """Declare the blockers and pass to the end of the combat: does the attack win?"""
    depth = len(game.log)
    try:
        game.push(block)
        _pass_on(game, until_blocks=False)
        return _attack_won(game)
    finally:
        while len(game.log) > depth:
            game.pop()


def _judge(game: Game, attack: DeclareAttackers, verify: bool) -> AttackJudged:
    """The attack against every legal declaration of blockers (the game is back afterwards);
    ``verify``: the rules' counterexample, or the first declaration against a winning attack,
    played out on the game too."""
    depth = len(game.log)
    try:
        game.push(attack)
        blocks = _pass_on(game, until_blocks=True)
        if not isinstance(blocks, tuple):
            return AttackJudged(attack, _attack_won(game))
        judged = AttackJudged(attack, False, blocks=len(blocks), blocks_key=position_key(game.state))
        answer = judge_blocks(game, blocks)
        judged.asked = answer.judged
        if answer.left_open:
            kind, source = answer.left_open[0]
            raise NotApplicable(f"an ability of {source} ({kind}) would trigger in the combat")
        if answer.refuting is not None:
            judged.refuting = blocks[answer.refuting]
            if verify and _play_out(game, judged.refuting):
                raise ForallDisagreement(
                    f"the rules found {judged.refuting.blockers} refuting {attack.attackers}, yet played out it loses"
                )
            return judged
        for number in sorted(answer.two_steps):
            judged.played += 1
            if not _play_out(game, blocks[number]):
                judged.refuting = blocks[number]
                return judged
        single = [b for n, b in enumerate(blocks) if n not in answer.two_steps]
        if verify and single and not _play_out(game, single[0]):
            raise ForallDisagreement(
                f"the rules found {attack.attackers} winning against every block, yet {single[0].blockers} refutes it"
            )
        judged.wins = True
        return judged
    finally:
        while len(game.log) > depth:
            game.pop()


def winning_attacks(game: Game, *, every: bool = False, verify: bool = True) -> ForallAnswer:
    """At the active player's declaration of attackers: an attack that wins this combat
    against every legal declaration of blockers (the first found, or with ``every`` each
    attack judged), or the proof that none does (each attack with the declaration of
    blockers that refutes it), or "not applicable" (see the module's text).  ``verify``: each
    counterexample, and the first declaration of blockers against an attack that wins, played
    out on the game as well (a disagreement raises :class:`ForallDisagreement`).  The game is
    at its position again afterwards."""
    started = time.monotonic()
    answer = ForallAnswer(applicable=True)
    decision = decisions(game)
    attacks = [o for o in decision.options if isinstance(o, DeclareAttackers)]
    if not attacks or len(attacks) != len(decision.options):
        return ForallAnswer(applicable=False, reason="not a declaration of attackers", seconds=0.0)
    attacks.sort(key=lambda a: -len(a.attackers))
    try:
        for attack in attacks:
            judged = _judge(game, attack, verify)
            answer.judged.append(judged)
            if judged.wins and answer.winning is None:
                answer.winning = attack
                if not every:
                    break
    except NotApplicable as why:
        answer = ForallAnswer(applicable=False, reason=str(why), judged=answer.judged)
    answer.seconds = time.monotonic() - started
    return answer


# ---------------------------------------------------------------------- boards to try it on
ATTACKERS = (
    "Grizzly Bears",
    "Hill Giant",
    "Craw Wurm",
    "Serra Angel",
    "Wind Drake",
    "Air Elemental",
    "Crash of Rhinos",
    "Typhoid Rats",
    "Child of Night",
    "Vampire Nighthawk",
    "Goblin Piker",
    "Knight of Meadowgrain",
    "White Knight",
)
BLOCKERS = (
    "Grizzly Bears",
    "Hill Giant",
    "Giant Spider",
    "Deadly Recluse",
    "Wall of Wood",
    "Wall of Swords",
    "Craven Giant",
    "Goblin Raider",
    "Typhoid Rats",
    "Child of Night",
    "Vampire Nighthawk",
    "Serra Angel",
    "Knight of Meadowgrain",
)


def combat_board(seed: int, attackers: int, blockers: int, *, first_strike: bool = True) -> dict[str, object]:
    """A position (as a scenario's ``state``) at Alice's declaration of attackers: ``attackers``
    creatures of hers against ``blockers`` of Bob's, drawn by ``seed`` from cards with evasion,
    first strike, trample, deathtouch, lifelink, reach, defender and "can't block" (walls
    among them), at times a Lure on one of hers, and Bob's life between 1 and the attackers'
    power.  ``first_strike`` False leaves out the cards with first strike."""
    rng = random.Random(seed)
    pool = CardPool.default()

    def cards(names: tuple[str, ...], n: int) -> list[str]:
        names = tuple(c for c in names if first_strike or "first_strike" not in pool.get(c).abilities)
        return [rng.choice(names) for _ in range(n)]

    ours = cards(ATTACKERS, attackers)
    theirs = cards(BLOCKERS, blockers)
    power = sum(pool.get(c).power or 0 for c in ours)
    alice: list[object] = [{"id": f"a{i}", "card": c} for i, c in enumerate(ours, start=1)]
    if rng.random() < 0.2:
        alice.append({"id": "lure", "card": "Lure", "attached_to": f"a{rng.randrange(1, attackers + 1)}"})
    return {
        "turn": 3,
        "active": "alice",
        "step": "declare_attackers",
        "players": [
            {"name": "alice", "library": ["Forest"], "battlefield": alice},
            {
                "name": "bob",
                "life": rng.randint(1, max(1, power)),
                "library": ["Forest"],
                "battlefield": [{"id": f"b{i}", "card": c} for i, c in enumerate(theirs, start=1)],
            },
        ],
    }
