"""Perft: the legal action sequences from a position, counted.

As chess engines count move paths to test their move generators, :func:`perft` counts the
sequences of decisions from a position: a step is one decision of the player who must act,
exactly as :func:`~bridge.play.agents.decisions` lists them (every option of every group,
never a sample).  Each listed action is pushed, counted below, and popped.  The count at
depth D is the number of leaves D steps down; a game that ends sooner is a leaf where it
ends (it is counted at every depth past its end).

An action listed and then refused by ``push``, or listed twice at one decision, is a fault
of the engine (the list of legal actions and the judge disagree): :class:`PerftDefect`
names the action and the line of actions that led to the position.

>>> from bridge.engine.game import Game
>>> game = Game.from_scenario("tests/perft/bolt_main_phase.yaml")
>>> perft(game, 1).counts
[7]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bridge.engine.game import Game
from bridge.engine.solver import keeping_more
from bridge.model.actions import Action
from bridge.play.agents import decisions, game_over
from bridge.play.moves import ListingDefect, listed_options, logged, push_listed

__all__ = ["PerftCount", "PerftDefect", "logged", "perft"]


class PerftDefect(ListingDefect):
    """An action listed as legal that ``push`` refused (or one listed twice) while counting."""


@dataclass
class PerftCount:
    """What was counted: ``counts[d - 1]``, the leaves at depth d (1 to ``depth``); ``divide``,
    each first action with the leaves at ``depth`` under it, in the order listed;
    ``nodes``, the actions pushed; ``seconds``, the time taken.  While the count is under way
    (or when it was stopped) it holds what was counted so far, and ``complete`` is False."""

    depth: int
    counts: list[int] = field(default_factory=list)
    divide: list[tuple[Action, int]] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0
    complete: bool = False

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def perft(
    game: Game,
    depth: int,
    on_first: Callable[[PerftCount], None] | None = None,
    count: PerftCount | None = None,
) -> PerftCount:
    """Count the leaves at each depth from 1 to ``depth`` from the game's position (the game is
    back at its position afterwards).  ``on_first`` is called after each first action's
    subtree is counted; ``count``, when given, is filled in as the work goes (so that a caller
    stopped by a time limit has what was counted)."""
    result = count if count is not None else PerftCount(depth)
    result.depth = depth
    result.counts = [0] * depth
    started = time.perf_counter()
    base = len(game.log)
    try:
        if depth == 0:
            result.complete = True
            return result
        if game_over(game):
            result.counts = [1] * depth
            result.complete = True
            return result
        with keeping_more():  # the search comes back to each position after its children
            _first_actions(game, depth, on_first, result, base, started)
        result.complete = True
        return result
    finally:
        result.seconds = time.perf_counter() - started


def _first_actions(
    game: Game,
    depth: int,
    on_first: Callable[[PerftCount], None] | None,
    result: PerftCount,
    base: int,
    started: float,
) -> None:
    """Count under each first action, in turn."""
    for action in _options(game, base):
        before = list(result.counts)
        _push(game, action, base)
        result.nodes += 1
        _count(game, 1, depth, result, base)
        game.pop()
        result.divide.append((action, result.counts[-1] - before[-1]))
        if on_first is not None:
            result.seconds = time.perf_counter() - started
            on_first(result)


def _count(game: Game, level: int, depth: int, result: PerftCount, base: int) -> None:
    """Count the position ``level`` steps down: a leaf at this depth, and, past it, its
    children's leaves (or, the game over, itself at every depth below)."""
    result.counts[level - 1] += 1
    if level == depth:
        return
    if game_over(game):
        for d in range(level, depth):
            result.counts[d] += 1
        return
    for action in _options(game, base):
        _push(game, action, base)
        result.nodes += 1
        _count(game, level + 1, depth, result, base)
        game.pop()


def _options(game: Game, base: int) -> tuple[Action, ...]:
    """Every option of the decision, all groups listed; one listed twice is a defect."""
    return listed_options(game, decisions(game), base, PerftDefect)


def _push(game: Game, action: Action, base: int) -> None:
    push_listed(game, action, base, PerftDefect)
