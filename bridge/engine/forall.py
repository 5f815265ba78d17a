"""An attack judged against every legal declaration of blockers in one question
(``asp_rules/combat/attack_forall.lp``).

The position is at the declare blockers step with the attack made; the legal declarations of
blockers (as the engine lists them) are given to the rules as numbered facts.  One question
tells what could still happen in the rest of the combat (abilities that would trigger on
blocks or on the damage) and which declarations make two combat damage steps; each other
declaration is then a question of its own, the blocks given as facts: does the attack win
by it, the combat damage dealt with the default damage assignment orders and division
(510.1c-d, 702.17b)?  The first that refutes the attack ends the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridge.engine.board import DAMAGE, DEALING, DEALING_PARTS, DECLARED, Board
from bridge.engine.facts import asp_string
from bridge.engine.solver import Session, atoms
from bridge.model.actions import DeclareBlockers

__all__ = ["FORALL", "FORALL_PARTS", "REST", "BlocksJudged", "judge_blocks", "rest_of_combat"]

FORALL = (*DAMAGE, *DEALING, "combat/attack_forall")
FORALL_PARTS = (("damage_assignment", (DECLARED,)), *DEALING_PARTS, ("blocks_judged", ()))
REST = ("combat/common", "combat/attack_forall")


@dataclass(frozen=True)
class BlocksJudged:
    """The answer: ``left_open``, what could still happen in the combat as (kind, object)
    pairs (empty: nothing but passing and mana abilities, as far as the rules see);
    ``two_steps``, the indices of the declarations with two combat damage steps (not judged
    here); ``refuting``, the index of a declaration of one combat damage step the attack
    doesn't beat (None: it beats every one judged); ``judged``, the declarations judged;
    ``life_after``, each player's life after the refuting declaration's combat damage."""

    left_open: tuple[tuple[str, str], ...]
    two_steps: frozenset[int]
    refuting: int | None
    judged: int
    life_after: dict[str, int]


def _declaration_facts(declarations: Sequence[DeclareBlockers]) -> list[str]:
    facts = []
    for number, declaration in enumerate(declarations):
        facts.append(f"block_declaration({number}).")
        facts += [
            f"declaration_block({number}, {asp_string(b)}, {asp_string(a)})."
            for b, attackers in declaration.blockers.items()
            for a in attackers
        ]
    return facts


def rest_of_combat(
    board: Board, declarations: Sequence[DeclareBlockers]
) -> tuple[tuple[tuple[str, str], ...], frozenset[int]]:
    """What could still happen in the combat (abilities that would trigger: (kind, object)
    pairs) and which declarations make two combat damage steps (their indices)."""
    facts = "\n".join([board.position.facts, *_declaration_facts(declarations)])
    model = Session(board.modules(*REST, pt=False), facts).solve().model
    left_open = tuple(sorted((s.arguments[0].name, s.arguments[1].string) for s in atoms(model, "combat_left_open", 2)))
    return left_open, frozenset(s.arguments[0].number for s in atoms(model, "two_step_declaration", 1))


def attack_beats(board: Board, declaration: DeclareBlockers) -> tuple[bool, dict[str, int]]:
    """Does the attack win against one declaration of blockers of one combat damage step
    (the defending player at 0 or less life, the attacking player not), and each player's
    life after the combat damage."""
    blocks = [
        f"blocking({asp_string(b)}, {asp_string(a)})."
        for b, attackers in declaration.blockers.items()
        for a in attackers
    ]
    model = Session(board.modules(*FORALL), "\n".join([board.position.facts, *blocks]), FORALL_PARTS).solve().model
    life = {s.arguments[0].string: s.arguments[1].number for s in atoms(model, "life_after", 2)}
    return any(s.match("attack_wins", 0) for s in model), life


def judge_blocks(board: Board, declarations: Sequence[DeclareBlockers]) -> BlocksJudged:
    """Judge the attack in the board's position (the declare blockers step, attackers
    declared) against each of ``declarations`` (the legal declarations of blockers) of one
    combat damage step, the declarations with the most blocks first, until one refutes it."""
    left_open, two_steps = rest_of_combat(board, declarations)
    judged = 0
    if not left_open:
        order = sorted(
            (n for n in range(len(declarations)) if n not in two_steps),
            key=lambda n: -sum(len(a) for a in declarations[n].blockers.values()),
        )
        for number in order:
            judged += 1
            wins, life = attack_beats(board, declarations[number])
            if not wins:
                return BlocksJudged(left_open, two_steps, number, judged, life)
    return BlocksJudged(left_open, two_steps, None, judged, {})
