"""An attack judged against every legal declaration of blockers in one question
(``asp_rules/combat/attack_forall.lp``).

The position is at the declare blockers step with the attack made; the legal declarations of
blockers (as the engine lists them) are given to the rules as numbered facts.  One grounding
answers two questions: what could still happen in the rest of the combat (abilities that
would trigger on blocks or on the damage; the declarations that make two combat damage
steps), and, with the test switched on, a declaration of blockers the attack does not beat
in one combat damage step with the default damage assignment orders and division (510.1c-d,
702.17b): none means the attack wins against every declaration the rules judged.  The
declaration with the most blocks is asked alone first: it refutes most attacks that lose, on a
grounding of one declaration instead of all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import clingo

from bridge.engine.board import DAMAGE, DEALING, DEALING_PARTS, DECLARED, Board
from bridge.engine.facts import asp_string
from bridge.engine.solver import Session, atoms
from bridge.model.actions import DeclareBlockers

__all__ = ["FORALL", "FORALL_PARTS", "BlocksJudged", "judge_blocks"]

FORALL = (*DAMAGE, *DEALING, "combat/attack_forall")
FORALL_PARTS = (("damage_assignment", (DECLARED,)), *DEALING_PARTS, ("blocks_forall", ()))
_REFUTING = clingo.Function("refuting")


@dataclass(frozen=True)
class BlocksJudged:
    """The answer: ``left_open``, what could still happen in the combat as (kind, object)
    pairs (empty: nothing but passing and mana abilities, as far as the rules see);
    ``two_steps``, the indices of the declarations with two combat damage steps (not judged
    here); ``refuting``, the index of a declaration of one combat damage step the attack
    doesn't beat (None: it beats every one judged); ``judged``, how many the rules judged;
    ``life_after``, each player's life after the refuting declaration's combat damage."""

    left_open: tuple[tuple[str, str], ...]
    two_steps: frozenset[int]
    refuting: int | None
    judged: int
    life_after: dict[str, int]


def judge_blocks(board: Board, declarations: Sequence[DeclareBlockers]) -> BlocksJudged:
    """Judge the attack in the board's position (the declare blockers step, attackers
    declared) against each of ``declarations`` (the legal declarations of blockers): first the
    one with the most blocks alone (the likeliest counterexample, on a small grounding), then,
    unless it refutes the attack, all of them at once."""
    if len(declarations) > 1:
        most = max(range(len(declarations)), key=lambda n: sum(len(a) for a in declarations[n].blockers.values()))
        first = _judge(board, [declarations[most]])
        if first.left_open or (first.refuting is not None):
            return BlocksJudged(first.left_open, frozenset(), None if first.left_open else most, 1, first.life_after)
    return _judge(board, declarations)


def _judge(board: Board, declarations: Sequence[DeclareBlockers]) -> BlocksJudged:
    facts = [board.position.facts]
    for number, declaration in enumerate(declarations):
        facts.append(f"block_declaration({number}).")
        facts += [
            f"declaration_block({number}, {asp_string(b)}, {asp_string(a)})."
            for b, attackers in declaration.blockers.items()
            for a in attackers
        ]
    session = Session(board.modules(*FORALL), "\n".join(facts), FORALL_PARTS)
    rest = session.solve(signed=[(_REFUTING, False)]).model
    left_open = tuple(sorted((s.arguments[0].name, s.arguments[1].string) for s in atoms(rest, "combat_left_open", 2)))
    two_steps = frozenset(s.arguments[0].number for s in atoms(rest, "two_step_declaration", 1))
    judged = len(declarations) - len(two_steps)
    if left_open:
        return BlocksJudged(left_open, two_steps, None, 0, {})
    found = session.solve(signed=[(_REFUTING, True)], models=1)
    if not found.satisfiable:
        return BlocksJudged(left_open, two_steps, None, judged, {})
    refuting = next(s.arguments[0].number for s in atoms(found.model, "chosen_declaration", 1))
    life = {s.arguments[0].string: s.arguments[1].number for s in atoms(found.model, "life_after", 2)}
    return BlocksJudged(left_open, two_steps, refuting, judged, life)
