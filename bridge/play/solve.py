"""The puzzle solver: a strategy that reaches a goal against every answer, or a proof that none
does, or "unknown" with the bound that stopped the search.

The search is an AND-OR search over the engine's transitions: the legal actions are those
:func:`~bridge.play.agents.decisions` lists (every option of every group, never a sample,
mana abilities activated by hand included), each pushed and popped.  At a decision of the
puzzle player a position is won when one action leads to a won position (an OR node); at the
opponent's, when every legal action does (an AND node).  A part of an action may be another
player's choice (CR 601.3, 602.3: "an opponent chooses one", a target "of an opponent's
choice"; the rules say whose, :func:`~bridge.engine.acting.others_choices`): the actions that
differ only in it are one choice of the player who takes it, and the other player picks among
them (:meth:`Solver._groups`), so a strategy answers each of them and a refutation names the
one the other player picks.  A position is a leaf when the goal
is decided there (:func:`goal_status`): the game is over, or the goal's turn has ended (the
goal's bound cuts the tree).

Depth-first, by default in one pass to the goal's bound (the turn that ends it makes the tree
finite); iterative deepening on the number of actions is an option (``first_depth``, then
``depth_step`` more each iteration).  Measured on the bundled puzzles (benchmarks/puzzles.py),
one pass pushed 599 actions where iterative deepening pushed 2059: the forced passes between
steps make every line long, so the shallow iterations decide little and are searched again.
Before it (``step_first``, on by default), a first depth-first pass that only looks for a win
in the root's step: the puzzle player doesn't pass with an empty stack (the opponent could
pass in turn and end the step), a line that leaves the step is cut, and each spell or ability
is paid the first way listed (:func:`one_payment`).  A win found there is a win (every reply
of the opponent was searched); what it proves below a position (won or not) holds for the
second, whole pass, which searches everything it left out.  Many a "win this turn" puzzle is
won in the main phase without combat, and the whole pass would refute a combat (every attack,
block, order and division of damage) after each try in the main phase before trying the next
one: Forge's PC_18 is won within its main phase after 1,515 actions (2,921 with every way to
pay), where the whole pass alone hadn't found it after 7,163.  The bundled puzzles take about
10% more actions (benchmarks/README.md).
Or depth-first proof-number search (``search="dfpn"``, :meth:`Solver._proof_numbers_root`).
A transposition table keyed by :func:`~bridge.model.keys.position_key` keeps each
position's proven result (``win``, ``no_win``: they hold at any depth) or the depth to which
it was searched without being decided.  A position repeated on the line that leads to it is
not decided (a loop proves nothing either way).  Move ordering (:func:`ordered`): the
puzzle player's actions but passing first, then passing (in the turns before the goal's,
passing first); the opponent's passing first; mana abilities activated by hand last for
both; with ``forall``, at the puzzle player's declaration of attackers with a
goal to win, the attack :func:`~bridge.play.combat_forall.winning_attacks` finds winning
against every block first, and at the opponent's declaration of blockers the block it found
refuting that attack first (the order only: the search still plays out every line it needs,
so the strategy, the refutation and the scenarios written from them are its own; measured on
random boards in benchmarks/README.md, it changed the actions pushed little, as the default
order already tries the biggest attack and the biggest block first, and cost the time of the
rules' answer: off by default).  Pruning
(:func:`pruned`): the mana abilities of non-creature permanents activated by hand are not
searched.

The answers are never guessed: ``no_win`` only when every line within the goal's bound was
searched to its leaf (no depth cut, no repeated position, no limit), ``win`` only with the
strategy, each of whose lines ends in a leaf where the goal is reached.  Otherwise the answer
is ``unknown``, with the bound that stopped the search (``time_limit``, ``max_nodes``,
``interrupt``, or ``repetition`` when positions repeated).

Where the position hides information (the order of a library) the solver takes it as given:
the cards are where the position puts them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from bridge.engine.acting import others_choices
from bridge.engine.game import Game
from bridge.engine.legal import listing
from bridge.engine.solver import keeping_more
from bridge.io.writing import write_whole
from bridge.model.actions import Action, Activate, Cast, DeclareAttackers, DeclareBlockers, Pass
from bridge.model.errors import UnsupportedCardError
from bridge.model.keys import position_key
from bridge.model.limits import Deadline, TimeLimitReached
from bridge.model.puzzle import Goal, Puzzle
from bridge.model.state import ZONES
from bridge.play.agents import Decision, decisions
from bridge.play.combat_forall import ForallAnswer, winning_attacks
from bridge.play.moves import listed_options, push_listed

__all__ = [
    "Branch",
    "Progress",
    "SolveResult",
    "Solver",
    "describe_tree",
    "differs_from_solution",
    "emit_scenarios",
    "goal_status",
    "leaf_outcome",
    "pruned",
    "scenario_action",
    "solve",
    "tree_lines",
]

WIN = "win"
NO_WIN = "no_win"
_OPEN = "open"  # searched to a depth without being decided
_UNFOLLOWED = b"unfollowed"  # the key of where an option the engine can't follow leads
Search = Literal["dfs", "dfpn"]
SEARCHES: tuple[Search, ...] = ("dfs", "dfpn")
_INFINITE = 10**9  # a proof or disproof number that can't be reached
Result = Literal["win", "no_win", "unknown"]
# an expanded df-pn position: the puzzle player's decision or not, the options with the keys of
# where they lead, and the options' groups by their places in that list
_Expanded = tuple[bool, list[tuple[Action, "bytes | None"]], list[list[int]]]
MAX_TREE_LINES = 5000  # the lines of a strategy or refutation tree kept at most
ONE_PASS = 10**9  # a first depth no line reaches: one pass to the goal's bound
CUT_OUTCOME = "not shown: the tree has too many lines, or the time limit came"
TRANSPOSED_OUTCOME = "the position met earlier in the tree: as there"


def goal_status(game: Game, goal: Goal) -> bool | None:
    """Whether the goal is reached (True), can no longer be (False), or is still open (None)
    in the game's position."""
    state = game.state
    lost = {p.name for p in state.players if p.lost}
    if goal.player in lost:
        return False  # lost, or a draw (CR 104.4a)
    if goal.kind == "win":
        return True if lost else (False if state.turn > goal.turn else None)
    if goal.kind == "survive":
        return True if lost or state.turn >= goal.turn else None
    if not lost and state.turn <= goal.turn:
        return None
    permanents = {p.id: p for p in state.permanents()}
    if goal.kind == "destroy":
        return not any(t in permanents for t in goal.targets)
    chars = game.all_characteristics()  # the controller and name the rules find (layers)
    if goal.kind == "control":
        return all(t in chars and chars[t].controller == goal.player for t in goal.targets)
    return any(c.name == goal.card and c.controller == goal.player for c in chars.values())


def leaf_outcome(game: Game) -> str:
    """What the position at a leaf is, in words."""
    state = game.state
    lost = [p.name for p in state.players if p.lost]
    if len(lost) == len(state.players):
        return "a draw"
    if lost:
        return f"{state.opponent(lost[0])} wins"
    return f"turn {state.turn}, {state.active}'s {state.step} step: the game goes on"


@dataclass
class Branch:
    """An action of a strategy or refutation tree and what follows it: ``then``, the next
    decision's branches (one for the player who chooses, every option for the one who must
    be answered), or at a leaf ``outcome``."""

    action: Action
    by: str
    then: list[Branch] = field(default_factory=list)
    outcome: str | None = None
    # the player who chose a part of the action that isn't its taker's (an opponent's mode or
    # target, CR 601.3, 602.3): the branches beside it are his or her other choices
    chosen_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": action_json(self.action), "by": self.by}
        if self.chosen_by is not None:
            out["chosen_by"] = self.chosen_by
        if self.outcome is not None:
            out["outcome"] = self.outcome
        else:
            out["then"] = [b.to_json() for b in self.then]
        return out


def action_json(action: Action) -> dict[str, Any]:
    """An action as the game log writes it."""
    return action.model_dump(mode="json", exclude_defaults=True) | {"kind": action.kind}


def tree_lines(tree: list[Branch], complete: bool = False) -> list[list[Action]]:
    """Every line of a tree, from its root to a leaf (``complete``: but those whose leaf is
    where the tree was cut)."""
    lines: list[list[Action]] = []

    def walk(branches: list[Branch], prefix: list[Action]) -> None:
        for b in branches:
            line = prefix + [b.action]
            if b.then:
                walk(b.then, line)
            elif not complete or b.outcome != CUT_OUTCOME:
                lines.append(line)

    walk(tree, [])
    return lines


@dataclass
class SolveResult:
    """The answer: ``result``; ``tree``, the strategy (win) or the refutation (no_win), empty
    when unknown or when the goal is decided in the position itself; ``line``, the main line
    (the first branch at each decision, through the tree's shared positions) and ``line_by``,
    who took each of its actions; ``stopped_by``, for unknown, the bound that stopped the
    search (``unsupported_card``: a line casts a card the engine can't play yet, which
    ``outcome`` names); ``nodes``, the actions pushed; ``positions``, the distinct positions searched;
    ``transpositions``, the positions met again and answered from the transposition table;
    ``depth``, the most actions on a line searched; ``tree_complete``, False when the tree was cut
    at :data:`MAX_TREE_LINES` lines or by the time limit (the result stands)."""

    result: Result
    tree: list[Branch] = field(default_factory=list)
    line: list[Action] = field(default_factory=list)
    line_by: list[str] = field(default_factory=list)
    stopped_by: str | None = None
    nodes: int = 0
    positions: int = 0
    transpositions: int = 0
    depth: int = 0
    seconds: float = 0.0
    tree_complete: bool = True
    outcome: str = ""

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "result": self.result,
            "line": [action_json(a) for a in self.line],
            "nodes": self.nodes,
            "positions": self.positions,
            "transpositions": self.transpositions,
            "depth": self.depth,
            "seconds": round(self.seconds, 3),
            "nodes_per_second": round(self.nodes_per_second, 1),
        }
        if self.result == "unknown":
            out["stopped_by"] = self.stopped_by
            if self.outcome:
                out["outcome"] = self.outcome
        else:
            out["tree"] = [b.to_json() for b in self.tree]
            out["tree_complete"] = self.tree_complete
            out["outcome"] = self.outcome
        return out


class _Stop(Exception):
    """A bound stopped the search."""

    def __init__(self, bound: str) -> None:
        super().__init__(bound)
        self.bound = bound


@dataclass
class Progress:
    """Where a search is, for a progress display."""

    nodes: int
    positions: int
    depth: int
    seconds: float
    time_left: float | None


class Solver:
    """An AND-OR search of a game's position for the goal (see the module's text); the game is
    back at its position afterwards."""

    def __init__(
        self,
        game: Game,
        goal: Goal,
        *,
        time_limit: float | None = 60.0,
        max_nodes: int | None = None,
        first_depth: int = ONE_PASS,
        depth_step: int = 8,
        on_progress: Callable[[Progress], None] | None = None,
        progress_every: float = 1.0,
        prune: bool = True,
        hold: bool = True,
        search: Search = "dfs",
        forall: bool = False,
        step_first: bool = True,
    ) -> None:
        if search not in SEARCHES:
            raise ValueError(f"no search {search!r}: {', '.join(SEARCHES)}")
        self.game = game
        self.forall = forall
        # the attacks judged at a declaration of attackers, and the declaration of blockers
        # that refutes each, by the position where the blockers are declared
        self._forall_known: dict[bytes, ForallAnswer] = {}
        self._refuting: dict[bytes, DeclareBlockers] = {}
        self.forall_seconds = 0.0
        self.prune = prune
        self.hold = hold
        self.search = search
        self.step_first = step_first
        self._within: tuple[int, str] | None = None  # the step a first pass stays in
        self.goal = goal
        self.time_limit = time_limit or None
        self.max_nodes = max_nodes
        self.first_depth = first_depth
        self.depth_step = depth_step
        self.on_progress = on_progress
        self.progress_every = progress_every
        self.table: dict[bytes, tuple[str, int]] = {}
        self.nodes = 0
        self.transpositions = 0  # positions met again and answered from the table
        self.depth = 0  # the depth of the iteration
        self.deepest = 0  # the most actions from the start on a line searched
        self.base = len(game.log)
        self._started = 0.0
        self._next_report = 0.0
        self.unsupported: str | None = None  # a card the engine couldn't cast, met on some line
        self._cut = False  # a depth cut or a repeated position left a line undecided
        self._repeated = False
        # proof-number search: each position's proof and disproof numbers, and each expanded
        # position's options with the key of the position each leads to
        self._numbers: dict[bytes, tuple[int, int]] = {}
        self._children: dict[bytes, _Expanded] = {}

    # ------------------------------------------------------------------ the search
    def solve(self) -> SolveResult:
        """Search until the root is decided or a bound stops it."""
        self._started = time.monotonic()
        self._next_report = self._started + self.progress_every
        result = SolveResult("unknown")
        deadline = Deadline(self.time_limit + 2.0 if self.time_limit else None)
        try:
            with deadline, keeping_more():  # a search comes back to the positions it left
                root = self._root()
                if root is not None:
                    result = self._answer(root)
                else:
                    result.stopped_by = "unsupported_card" if self.unsupported else "repetition"
                    result.outcome = self.unsupported or ""
        except _Stop as stop:
            result.stopped_by = stop.bound
        except TimeLimitReached:
            result.stopped_by = "time_limit"
        except KeyboardInterrupt:
            result.stopped_by = "interrupt"
        finally:
            while len(self.game.log) > self.base:
                self.game.pop()
        result.nodes = self.nodes
        result.positions = len(self.table)
        result.transpositions = self.transpositions
        result.depth = self.deepest
        result.seconds = time.monotonic() - self._started
        return result

    def _root(self) -> str | None:
        """The root's result by iterative deepening; None when repeated positions alone left
        it undecided."""
        status = goal_status(self.game, self.goal)
        if status is not None:
            return WIN if status else NO_WIN
        if self.search == "dfpn":
            return self._proof_numbers_root()
        if self.step_first:
            # a first pass that stays in the root's step: what it proves (a win or a no_win, at
            # the root or below) holds for the second pass; positions left open are searched again
            self._within = (self.game.state.turn, self.game.state.step)
            found = self._pass(self.first_depth)
            self._within = None
            if found in (WIN, NO_WIN):
                return found
            self.table = {k: v for k, v in self.table.items() if v[0] != _OPEN}
        depth = self.first_depth
        while True:
            found = self._pass(depth)
            if found in (WIN, NO_WIN):
                return found
            if not self._cut or depth >= ONE_PASS:
                return None  # undecided at no depth: repetitions, or a card the engine can't cast
            depth += self.depth_step

    def _pass(self, depth: int) -> str:
        """One depth-first pass from the root to ``depth``."""
        self.depth = depth
        self._cut = False
        self._repeated = False
        return self._search(depth, set())

    def _search(self, depth: int, path: set[bytes]) -> str:
        """The result of the position within ``depth`` more actions: win, no_win or open."""
        game = self.game
        status = goal_status(game, self.goal)
        if status is not None:
            return WIN if status else NO_WIN
        if self._within is not None and (game.state.turn, game.state.step) != self._within:
            self._cut = True  # the first pass stays in its step
            return _OPEN
        key = position_key(game.state)
        known = self.table.get(key)
        if known is not None:
            result, searched = known
            if result != _OPEN:
                self.transpositions += 1
                return result
            if searched >= depth:
                self._cut = True  # still undecided at this depth
                return _OPEN
        self.deepest = max(self.deepest, self.depth - depth)
        if depth == 0:
            self._cut = True
            return _OPEN
        if key in path:
            self._cut = True
            self._repeated = True
            return _OPEN
        decision = decisions(game)
        ours = decision.player == self.goal.player
        options = self._options(decision, ours)
        undecided = False
        if self._within is not None and ours:
            fewer = _within_step(options, stack_empty=not game.state.stack)
            if len(fewer) < len(options):
                options, undecided = fewer, True  # the whole pass tries the others
                self._cut = True
        path.add(key)
        try:
            for group in self._groups(options, decision.player):
                found = self._group_result(group, ours, depth, path)
                if found == (WIN if ours else NO_WIN):
                    self.table[key] = (found, depth)
                    return found
                if found == _OPEN:
                    undecided = True
        finally:
            path.discard(key)
        if undecided:
            self.table[key] = (_OPEN, depth)
            return _OPEN
        result = NO_WIN if ours else WIN
        self.table[key] = (result, depth)
        return result

    def _group_result(self, group: list[Action], ours: bool, depth: int, path: set[bytes]) -> str:
        """The result of taking the action of a group (:meth:`_groups`): the other player chooses
        among its variants, so the group is the best of them for him or her (a variant the
        engine can't follow leaves it undecided)."""
        theirs = NO_WIN if ours else WIN
        undecided = False
        for action in group:
            self._count()
            if not self._pushed(action):
                undecided = True  # a line the engine can't follow
                continue
            try:
                found = self._search(depth - 1, path)
            finally:
                self.game.pop()
            if found == theirs:
                return found
            if found == _OPEN:
                undecided = True
        return _OPEN if undecided else (WIN if ours else NO_WIN)

    def _groups(self, options: list[Action], player: str) -> list[list[Action]]:
        """The options in groups, in the order tried: an action whose mode or some target another
        player chooses (CR 601.3, 602.3: the rules say who, acting.others_choices) is one choice
        of ``player`` with a variant for each choice of the other; every other option is a group
        of its own.  ``player`` takes the group, the other player picks the variant."""
        groups: dict[object, list[Action]] = {}
        for place, action in enumerate(options):
            shared = self._taker_part(action)
            groups.setdefault(place if shared is None else shared, []).append(action)
        return list(groups.values())

    def _taker_part(self, action: Action) -> str | None:
        """What the player taking an action chooses of it, as text: the action less the mode
        and targets another player chooses; None when he or she chooses all of it."""
        if not isinstance(action, (Cast, Activate)):
            return None
        if not action.targets and not (isinstance(action, Cast) and action.mode):
            return None
        try:
            mode, targets = others_choices(self.game, action)
        except UnsupportedCardError:
            return None
        if not mode and not targets:
            return None
        mine = [t if i not in targets else "" for i, t in enumerate(action.targets, 1)]
        update: dict[str, object] = {"targets": mine}
        if mode:
            update["mode"] = None
        return json.dumps(action_json(action.model_copy(update=update)), sort_keys=True)

    # ------------------------------------------------------------------ proof-number search
    def _proof_numbers_root(self) -> str | None:
        """The root's result by depth-first proof-number search (df-pn): the search goes down
        the line whose position is the cheapest to prove (at the puzzle player's decisions,
        the option with the smallest proof number) or to disprove (at the opponent's, the
        reply with the smallest disproof number), as long as these stay under the thresholds
        their parents set; a position's proof number is how many positions at least must still
        be won to win it, its disproof number how many must be lost.  Lines where the opponent
        has few answers are tried first, whatever their length; a position met again is
        answered from the table.  A position repeated on its own line counts as not won
        (neither player is made to leave it), so a proof never goes through one; a disproof
        that does is no proof of no_win, and the answer is then unknown."""
        key = position_key(self.game.state)
        self._prove(key, _INFINITE, _INFINITE, set())
        proof, disproof = self._numbers[key]
        if proof == 0:
            return WIN
        if disproof == 0:
            return None if self._repeated else NO_WIN
        return None  # not reached: the root's thresholds are infinite

    def _prove(self, key: bytes, proof_limit: int, disproof_limit: int, path: set[bytes]) -> None:
        """Search the game's position (whose key is ``key``) until its numbers reach a limit."""
        game = self.game
        self.deepest = max(self.deepest, len(game.log) - self.base)
        ours, children, groups = self._expand(key)
        path.add(key)
        try:
            while True:
                numbers = [self._child_numbers(child, path) for _, child in children]
                # a group's variants are the other player's choice (:meth:`_groups`)
                grouped = [_combine([numbers[i] for i in group], not ours) for group in groups]
                proof, disproof = _combine(grouped, ours)
                self._numbers[key] = (proof, disproof)
                if proof == 0 or disproof == 0:
                    self.table[key] = (WIN if proof == 0 else NO_WIN, 0)
                    return
                if proof >= proof_limit or disproof >= disproof_limit:
                    return
                # the group to follow, then its variant, and the limits of each
                chosen, limits = _follow(grouped, ours, (proof, disproof), (proof_limit, disproof_limit))
                members = groups[chosen]
                variant, limits = _follow([numbers[i] for i in members], not ours, grouped[chosen], limits)
                best = members[variant]
                action, child = children[best]
                self._count()
                if not self._pushed(action):
                    # a line the engine can't follow: not won, and its refutation no proof
                    self._numbers[_UNFOLLOWED] = (_INFINITE, 0)
                    children[best] = (action, _UNFOLLOWED)
                    continue
                try:
                    if child is None:  # met for the first time: its key, and whether the goal decides it
                        child = position_key(game.state)
                        children[best] = (action, child)
                        status = goal_status(game, self.goal)
                        if status is not None:
                            self._numbers[child] = (0, _INFINITE) if status else (_INFINITE, 0)
                            self.table[child] = (WIN if status else NO_WIN, 0)
                            continue
                    if child in path:
                        continue  # a repetition: not won on this line (its numbers say so now)
                    self._prove(child, *limits, path)
                finally:
                    game.pop()
        finally:
            path.discard(key)

    def _expand(self, key: bytes) -> _Expanded:
        """Whose decision the position is and its options, each with the key of the position it
        leads to once it was followed (None before: an option is pushed only when followed),
        and the options' groups (:meth:`_groups`) by their places in that list."""
        known = self._children.get(key)
        if known is not None:
            return known
        decision = decisions(self.game)
        ours = decision.player == self.goal.player
        children: list[tuple[Action, bytes | None]] = []
        groups: list[list[int]] = []
        for group in self._groups(self._options(decision, ours), decision.player):
            groups.append(list(range(len(children), len(children) + len(group))))
            children.extend((action, None) for action in group)
        expanded = (ours, children, groups)
        self._children[key] = expanded
        return expanded

    def _child_numbers(self, child: bytes | None, path: set[bytes]) -> tuple[int, int]:
        if child is None:
            return (1, 1)
        if child in path:
            self._repeated = True
            return (_INFINITE, 0)  # a repetition: not won on this line
        if child == _UNFOLLOWED:
            self._repeated = True  # not won, and not proven lost either
            return (_INFINITE, 0)
        known = self.table.get(child)
        if known is not None and known[0] != _OPEN:
            return (0, _INFINITE) if known[0] == WIN else (_INFINITE, 0)
        return self._numbers.get(child, (1, 1))

    def _options(self, decision: Decision, ours: bool) -> list[Action]:
        """The options searched at a decision, in the order they are tried, pruned when
        :attr:`prune` is on (:func:`pruned`)."""
        options = listed_options(self.game, decision, self.base)
        if self.prune:
            options = pruned(self.game, options)
        found = ordered(options, ours, hold=self.hold and ours and self.game.state.turn < self.goal.turn)
        return self._forall_first(found, ours) if self.forall else found

    def _forall_first(self, options: list[Action], ours: bool) -> list[Action]:
        """At the puzzle player's declaration of attackers, with a goal to win: the attack
        :func:`~bridge.play.combat_forall.winning_attacks` finds winning first; at the
        opponent's declaration of blockers, the one it found refuting the attack first.  Only
        the order changes: every option is still searched, so a win's strategy and a
        refutation's lines are the search's own (see the module's text)."""
        if not options:
            return options
        game = self.game
        first: Action | None = None
        if ours and self.goal.kind == "win" and isinstance(options[0], DeclareAttackers):
            key = position_key(game.state)
            answer = self._forall_known.get(key)
            if answer is None:
                started = time.monotonic()
                answer = winning_attacks(game, verify=False)  # the search plays every line out
                self.forall_seconds += time.monotonic() - started
                self._forall_known[key] = answer
                for judged in answer.judged:
                    if judged.refuting is not None and judged.blocks_key is not None:
                        self._refuting[judged.blocks_key] = judged.refuting
            first = answer.winning
        elif not ours and self._refuting and isinstance(options[0], DeclareBlockers):
            first = self._refuting.get(position_key(game.state))
        if first is None or first not in options:
            return options
        return [first, *(o for o in options if o != first)]

    def _pushed(self, action: Action) -> bool:
        """Push a listed option; False (nothing pushed) when it casts a card whose text the
        vocabulary doesn't hold yet: the line can't be followed, so no result below it is
        proven, and an answer that would need it is unknown (``unsupported_card``)."""
        try:
            push_listed(self.game, action, self.base)
        except UnsupportedCardError as exc:
            self._cut = True
            self.unsupported = exc.problem
            return False
        return True

    def _count(self) -> None:
        self.nodes += 1
        now = time.monotonic()
        if self.max_nodes is not None and self.nodes > self.max_nodes:
            self.nodes -= 1
            raise _Stop("max_nodes")
        if self.time_limit is not None and now - self._started > self.time_limit:
            raise _Stop("time_limit")
        if self.on_progress is not None and now >= self._next_report:
            self._next_report = now + self.progress_every
            left = self.time_limit - (now - self._started) if self.time_limit is not None else None
            self.on_progress(Progress(self.nodes, len(self.table), self.deepest, now - self._started, left))

    # ------------------------------------------------------------------ the answer
    def _answer(self, root: str) -> SolveResult:
        """The strategy (win) or refutation (no_win) read from the table."""
        result = SolveResult("win" if root == WIN else "no_win")
        self._lines = 0
        self._expanded: dict[bytes, list[Branch]] = {}
        result.tree = self._tree(root == WIN)
        result.tree_complete = self._lines <= MAX_TREE_LINES
        game = self.game
        branches = result.tree
        while branches:
            first = branches[0]
            result.line.append(first.action)
            result.line_by.append(first.by)
            game.push(first.action)
            branches = first.then
            if first.outcome == TRANSPOSED_OUTCOME:  # the main line goes on as from the first meeting
                branches = self._expanded.get(position_key(game.state), [])
        result.outcome = leaf_outcome(game)
        return result

    def _tree(self, win: bool) -> list[Branch]:
        """The branches from the game's position: for a win, the puzzle player's winning
        action and every reply of the opponent; for no win, every action of the puzzle player
        and the opponent's refuting reply.  A position already met in the tree (another order
        of the same actions, a spell cast in another step that ends the same) is not expanded
        again: its branch ends with :data:`TRANSPOSED_OUTCOME` and the tree goes on from where
        the position was first met (without this, a tree spanning two turns has a line for each
        step an instant could be cast in, and each of them the whole rest of the game)."""
        game = self.game
        if goal_status(game, self.goal) is not None:
            return []
        if self.time_limit is not None and time.monotonic() - self._started > self.time_limit:
            self._lines = max(self._lines, MAX_TREE_LINES + 1)  # the answer holds; its tree is cut
        if self._lines > MAX_TREE_LINES:
            return []
        decision = decisions(game)
        ours = decision.player == self.goal.player
        choose_one = ours == win  # the winner's choice: one branch
        wanted = WIN if win else NO_WIN
        branches: list[Branch] = []
        for group in self._groups(self._options(decision, ours), decision.player):
            # the other player picks among a group's variants (each is a branch of a strategy or
            # a refutation when the winner takes the group; the one the winner picks when not)
            chooser = None if len(group) == 1 else next(p.name for p in game.state.players if p.name != decision.player)
            if choose_one:
                if len(group) > 1 and any(self._outcome(action) != wanted for action in group):
                    continue
                made = [self._branch(action, decision.player, chooser, win) for action in group]
                if all(made):
                    branches = [b for b in made if b is not None]
                    break
                continue
            picked = next(filter(None, (self._branch(a, decision.player, chooser, win) for a in group)), None)
            if picked is None:
                raise AssertionError(f"a {wanted} position has an answer that is not")
            branches.append(picked)
        if not branches:
            raise AssertionError("a decided position has no branch that keeps its result")
        return branches

    def _outcome(self, action: Action) -> str | None:
        """The result the table holds for where an action leads (None: the engine can't take it)."""
        try:
            self.game.push(action)
        except UnsupportedCardError:
            return None
        try:
            return self._child_result()
        finally:
            self.game.pop()

    def _branch(self, action: Action, by: str, chooser: str | None, win: bool) -> Branch | None:
        """An action's branch of the tree, with what follows it; None when it doesn't lead to
        the tree's result (or the engine can't take it)."""
        game = self.game
        try:
            game.push(action)
        except UnsupportedCardError:
            return None
        try:
            if self._child_result() != (WIN if win else NO_WIN):
                return None
            branch = Branch(action, by, chosen_by=chooser)
            key = position_key(game.state) if goal_status(game, self.goal) is None else None
            if key is not None and key in self._expanded:
                self._lines += 1
                branch.outcome = TRANSPOSED_OUTCOME
            else:
                branch.then = self._tree(win)
                if key is not None and branch.then:
                    self._expanded[key] = branch.then
            if not branch.then and branch.outcome is None:
                self._lines += 1
                decided = goal_status(game, self.goal) is not None
                branch.outcome = leaf_outcome(game) if decided else CUT_OUTCOME
            return branch
        finally:
            game.pop()

    def _child_result(self) -> str:
        status = goal_status(self.game, self.goal)
        if status is not None:
            return WIN if status else NO_WIN
        known = self.table.get(position_key(self.game.state))
        return known[0] if known is not None else _OPEN


def _combine(numbers: list[tuple[int, int]], ours: bool) -> tuple[int, int]:
    """A position's proof and disproof numbers from its options': at the puzzle player's
    decision one option must be won (the smallest proof number) and every one lost (the sum of
    the disproof numbers); at the opponent's, every reply won and one lost."""
    if not numbers:
        raise AssertionError("a decision with no option")
    proofs = [n[0] for n in numbers]
    disproofs = [n[1] for n in numbers]
    if ours:
        return min(proofs), _cap(sum(disproofs))
    return _cap(sum(proofs)), min(disproofs)


def _follow(
    numbers: list[tuple[int, int]], ours: bool, node: tuple[int, int], limits: tuple[int, int]
) -> tuple[int, tuple[int, int]]:
    """The option a df-pn node follows (the first of the smallest own number: proof at the
    puzzle player's decision, disproof at the opponent's) and its limits: the second smallest
    own number bounds how far it may go, and the other number may grow by what the node's
    limit leaves."""
    own = [n[0] if ours else n[1] for n in numbers]
    best = min(range(len(own)), key=own.__getitem__)
    second = min((v for i, v in enumerate(own) if i != best), default=_INFINITE)
    child_proof, child_disproof = numbers[best]
    (proof, disproof), (proof_limit, disproof_limit) = node, limits
    if ours:
        return best, (min(proof_limit, second + 1), _cap(disproof_limit - disproof + child_disproof))
    return best, (_cap(proof_limit - proof + child_proof), min(disproof_limit, second + 1))


def _cap(value: int) -> int:
    return min(value, _INFINITE)


def pruned(game: Game, options: tuple[Action, ...]) -> tuple[Action, ...]:
    """The options without the mana abilities of non-creature permanents activated by hand.

    Why dropping them keeps every answer: mana made by hand goes to the pool and serves only
    to pay a cost (CR 106.4); a player may activate the same mana abilities while paying a
    spell's or an ability's cost (CR 601.2f, 602.2b), and the engine lists every way to pay
    where the choice matters, so each use of mana made by hand is also a line where the
    source is tapped while paying.  What the early activation adds is only the time between:
    the source is tapped sooner, and mana left unspent empties from the pool at the end of
    the step (CR 106.4) with no loss of life (no mana burn, glossary G13.6a).  Being tapped
    sooner changes nothing for a permanent that is not a creature (a creature tapped can't
    attack or block: those stay searched) unless a card looks at whether it is tapped, which
    none of the bundled puzzles' cards does; ``mtgasp solve --no-prune`` searches them all.
    The rules tell which sources are creatures (the listing's ``may_activate_creature_mana``)."""
    by_hand = [a for a in options if isinstance(a, Activate) and a.mana]
    if not by_hand:
        return options
    keep = listing(game, by_hand[0].by or game.state.priority_player()).creature_mana
    return tuple(a for a in options if not (isinstance(a, Activate) and a.mana) or a.source in keep)


def one_payment(options: list[Action]) -> list[Action]:
    """The options with one way to pay each spell or ability (the first listed), for the first
    pass: it only looks for a win, so any option it leaves out is searched by the whole pass."""
    seen: set[str] = set()
    kept: list[Action] = []
    for action in options:
        if isinstance(action, Cast | Activate) and action.pay is not None:
            alike = json.dumps(action.model_dump(mode="json", exclude={"pay"}), sort_keys=True)
            if alike in seen:
                continue
            seen.add(alike)
        kept.append(action)
    return kept


def _within_step(options: list[Action], stack_empty: bool) -> list[Action]:
    """The puzzle player's options the first pass searches: one way to pay each spell or
    ability, and no pass with an empty stack (the opponent may pass in turn and end the step,
    so no win stays in it through that pass)."""
    return [a for a in one_payment(options) if not (stack_empty and isinstance(a, Pass))]


def ordered(options: tuple[Action, ...], ours: bool, hold: bool = False) -> list[Action]:
    """The options in the order they are tried: the puzzle player's actions but passing
    first (declarations with more creatures first), then passing, or with ``hold`` (a turn
    before the goal's) passing first; the opponent's passing first, then the rest
    (declarations with more creatures first); mana abilities activated by hand last.

    ``hold`` because a card kept is worth more while the opponent still has a turn to play:
    a spell cast at the first chance in the turns before the goal's is seldom the one that
    wins, and each such try costs the whole rest of the game to refute (measured on the
    two-turn puzzles in benchmarks/README.md).  The order changes no answer, only how soon
    it is found."""

    def rank(action: Action) -> tuple[int, int]:
        size = 0
        if isinstance(action, DeclareAttackers):
            size = -len(action.attackers)
        elif isinstance(action, DeclareBlockers):
            size = -len(action.blockers)
        if isinstance(action, Activate) and action.mana:
            return (2, size)
        first = ours and not hold  # the puzzle player's actions before passing
        if isinstance(action, Pass):
            return (1 if first else 0, size)
        return (0 if first else 1, size)

    return sorted(options, key=rank)


def solve(game: Game, goal: Goal, **options: Any) -> SolveResult:
    """Solve the game's position for the goal (the options of :class:`Solver`)."""
    return Solver(game, goal, **options).solve()


# ---------------------------------------------------------------------- the puzzle's answer checked
def differs_from_solution(puzzle: Puzzle, found: SolveResult) -> str | None:
    """How the answer differs from the puzzle's ``solution:`` (None when it agrees or the
    puzzle gives none): the result, and for a win the puzzle player's first actions on the
    main line."""
    known = puzzle.solution
    if known is None or found.result == "unknown":
        return None
    if found.result != known.result:
        return f"expected {known.result}, found {found.result}"
    ours = [a for a, by in zip(found.line, found.line_by, strict=True) if by == puzzle.goal.player]
    for k, want in enumerate(known.first):
        if k >= len(ours) or not _agrees(want, ours[k]):
            got = action_json(ours[k]) if k < len(ours) else "nothing"
            return f"the puzzle player's action {k + 1} on the main line: expected {action_json(want)}, found {got}"
    return None


def _agrees(want: Action, got: Action) -> bool:
    """The action found is the one the solution names: of the same kind, and alike in every
    field the solution gives."""
    given = want.model_dump(mode="json", exclude_defaults=True)
    found = got.model_dump(mode="json")
    return want.kind == got.kind and all(found.get(k) == v for k, v in given.items())


# ---------------------------------------------------------------------- proof by replay
def emit_scenarios(puzzle: Puzzle, found: SolveResult, folder: Path, stem: str) -> list[Path]:
    """Write each complete line of the strategy (win) or refutation (no_win) as a scenario
    file in ``folder``: the puzzle's position, the line's actions, and the outcome expected
    where it ends (the winner, the turn and step, the life totals, and what the goal judges:
    the battlefields for destroy and have, the targets' controller for control; for a line
    that ends where it meets a position another line goes on from, every zone of each player).
    ``mtgasp check`` on the folder replays them: the proof."""
    written: list[Path] = []
    lines = tree_lines(found.tree, complete=True)
    for number, line in enumerate(lines, start=1):
        game = Game(puzzle.state)
        for action in line:
            game.push(action)
        kind = "strategy" if found.result == WIN else "refutation"
        expect = _expected(game, puzzle.goal)
        title = f"{puzzle.title}: {kind} line {number} of {len(lines)}"
        if goal_status(game, puzzle.goal) is None:
            # a line that ends where it meets a position of another line (a transposition):
            # the position is stated in full, zones in order, and that line goes on from it
            title += " (to a position another line goes on from)"
            expect["zones"] = {
                p.name: {zone: [c.card for c in getattr(p, zone)] for zone in ZONES} for p in game.state.players
            }
        scenario = {
            "title": title,
            "cite": puzzle.cite or ["104.2a"],
            "state": puzzle.state.model_dump(mode="json", exclude_defaults=True),
            "do": [scenario_action(a) for a in line],
            "expect": expect,
        }
        path = folder / f"{stem}-{kind}-{number:04d}.yaml"
        write_whole(path, yaml.safe_dump(scenario, sort_keys=False, allow_unicode=True, width=100))
        written.append(path)
    return written


def scenario_action(action: Action) -> Any:
    """An action as a scenario file can write it: ``{kind: cast, card: bolt, targets: [bob]}``
    (the fields the action gives), or the kind alone (``sba``)."""
    body = action.model_dump(mode="json", exclude_defaults=True)
    body.pop("kind", None)
    return {"kind": action.kind, **body} if body else action.kind


def _expected(game: Game, goal: Goal) -> dict[str, Any]:
    state = game.state
    losers = [p.name for p in state.players if p.lost]
    if not losers:
        winner = "nobody_yet"
    elif len(losers) == len(state.players):
        winner = "none"
    else:
        winner = state.opponent(losers[0])
    expect: dict[str, Any] = {
        "winner": winner,
        "turn": state.turn,
        "step": state.step,
        "life": {p.name: p.life for p in state.players},
    }
    if goal.kind in ("destroy", "have"):
        expect["zones"] = {p.name: {"battlefield": [c.card for c in p.battlefield]} for p in state.players}
    if goal.kind == "control":
        chars = game.all_characteristics()
        expect["characteristics"] = {t: {"controller": chars[t].controller} for t in goal.targets if t in chars}
    return expect


def describe_tree(game: Game, tree: list[Branch], indent: str = "") -> str:
    """A tree as indented lines of text, actions in words (the game is played along and
    taken back)."""
    from bridge.play.agents import describe_action

    out: list[str] = []
    for b in tree:
        text = f"{indent}{b.by}: {describe_action(game, b.action)}"
        if b.chosen_by is not None and isinstance(b.action, (Cast, Activate)):  # a variant of a group
            mode, targets = others_choices(game, b.action)
            parts = ["the mode"] * mode + [f"target {i}" for i in sorted(targets)]
            text += f" ({' and '.join(parts)} chosen by {b.chosen_by})"
        game.push(b.action)
        try:
            if b.outcome is not None:
                out.append(f"{text} -> {b.outcome}")
            else:
                out.append(text)
                out.append(describe_tree(game, b.then, indent + "  " if len(tree) > 1 or len(b.then) > 1 else indent))
        finally:
            game.pop()
    return "\n".join(line for line in out if line)
