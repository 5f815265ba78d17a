"""Whole games from the shuffle to the end (CR 103, 104), played by random agents.

A deck file (``decks/*.yaml``) names a deck and counts its cards::

    name: Red Goblins
    cards:
      Mountain: 17
      Lightning Bolt: 3

``start_game`` shuffles both decks (seeded), chooses the starting player, draws seven cards
each and takes mulligans as 103.4 describes; ``play_game`` plays until a player loses
(104.3) or an action limit, checking after every action that the state is valid.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bridge.agents import RandomAgent, decisions, game_over
from bridge.cards import CardPool
from bridge.errors import InputError
from bridge.game import Game
from bridge.models import ZONES, GameState
from bridge.paths import cards_dir, decks_dir
from bridge.reading import read_yaml, validation_error

__all__ = ["Deck", "load_deck", "shipped_decks", "start_game", "play_game", "GameResult", "InvariantError", "Task",
           "Outcome", "run_tasks", "ResultsFile"]


class Deck(BaseModel):
    """A deck: a name and card counts (at least 40 cards)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    cards: dict[str, int] = Field(min_length=1)

    @field_validator("cards")
    @classmethod
    def _counts(cls, value: dict[str, int]) -> dict[str, int]:
        for card, n in value.items():
            if n < 1:
                raise ValueError(f"{card}: a count of at least 1")
        if sum(value.values()) < 40:
            raise ValueError(f"a deck has at least 40 cards, this one {sum(value.values())}")
        return value

    def card_list(self) -> list[str]:
        return [card for card, n in self.cards.items() for _ in range(n)]

    def fingerprint(self) -> str:
        """A short hash of the deck's cards: a deck file edited is another deck."""
        return hashlib.sha1(json.dumps(self.cards, sort_keys=True).encode()).hexdigest()[:12]


def load_deck(path: Path, pool: CardPool | None = None) -> Deck:
    """A deck file, checked against the card pool."""
    pool = pool or CardPool.default()
    data, text = read_yaml(path)
    try:
        deck = Deck.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), text) from None
    for card in deck.cards:
        if card not in pool:
            raise InputError(f"unknown card {card!r}", source=str(path), location=f"cards.{card}")
    return deck


BASICS = {"W": "Plains", "U": "Island", "B": "Swamp", "R": "Mountain", "G": "Forest"}


def random_deck(seed: int, pool: CardPool | None = None, card_set: str = "m10") -> Deck:
    """A random two-color deck (``random:SEED`` on the command line): 23 cards drawn with
    repeats from a set's playable and partial nonland cards (``cards/sets/<set>.txt``) whose
    mana costs use only those colors, and 17 basic lands of the two, so that random games
    reach the cards no shipped deck holds."""
    pool = pool or CardPool.default()
    rng = random.Random(seed)
    entries = (cards_dir() / "sets" / f"{card_set}.txt").read_text(encoding="utf-8").splitlines()
    names = [m.group(1) for m in (re.match(r"\d+ (.+?) \| (?:playable|partial)", line) for line in entries) if m]
    colors = {n: set(re.findall(r"[WUBRG]", pool.get(n).mana_cost or "")) for n in names
              if n in pool and "land" not in pool.get(n).types}
    first, second = rng.sample(sorted(BASICS), 2)
    fitting = sorted(n for n, c in colors.items() if c <= {first, second})
    cards: dict[str, int] = {}
    for _ in range(23):
        name = rng.choice(fitting)
        cards[name] = cards.get(name, 0) + 1
    cards[BASICS[first]], cards[BASICS[second]] = 9, 8
    return Deck(name=f"random:{seed}", cards=cards)


def shipped_decks() -> dict[str, Path]:
    """The decks shipped in ``decks/``, by file stem."""
    return {p.stem: p for p in sorted(decks_dir().glob("*.yaml"))}


def start_game(decks: tuple[Deck, Deck], seed: int, names: tuple[str, str] = ("alice", "bob"),
               keep: Callable[[list[str], int], bool] | None = None, pool: CardPool | None = None) -> Game:
    """CR 103.1-103.4, 103.7: shuffled libraries, a starting player, seven cards each and
    mulligans (each player keeps by ``keep(hand, size)``; by default a hand is kept when it
    holds two to five lands, or when it has five cards or fewer)."""
    pool = pool or CardPool.default()
    rng = random.Random(seed)
    libraries = []
    for deck in decks:
        cards = deck.card_list()
        rng.shuffle(cards)  # CR 103.1
        libraries.append(cards)
    first = rng.randrange(2)  # CR 103.2: a coin decides
    order = [first, 1 - first]
    keep = keep or (lambda hand, size: size <= 5 or 2 <= sum("land" in pool.get(c).types for c in hand) <= 5)
    hands: list[list[str]] = [[], []]
    for i in range(2):  # CR 103.3: seven cards; CR 103.4: mulligans, one fewer each time
        size = 7
        while True:
            hands[i], libraries[i] = libraries[i][:size], libraries[i][size:]
            if size == 0 or keep(hands[i], size):
                break
            libraries[i] = libraries[i] + hands[i]
            rng.shuffle(libraries[i])
            size -= 1
    players = [{"name": names[i], "library": libraries[i], "hand": hands[i]} for i in order]
    state = GameState.model_validate({"turn": 1, "active": names[first], "step": "upkeep", "players": players})
    return Game(state, pool)


# CR 104.3: how a game ended, by the rule by which its loser lost
ENDINGS = {"704.5a": "life", "704.5b": "empty library", "704.5c": "poison", "104.3a": "concession",
           "104.3e": "an effect"}


class InvariantError(AssertionError):
    """The game reached a state the rules can't produce."""


@dataclass
class GameResult:
    winner: str | None          # a player's name, "none" for a draw, None when unfinished
    ending: str                 # how it ended
    actions: int
    turns: int
    seconds: float
    log: dict[str, object] = field(default_factory=dict)
    final: GameState | None = None
    log_hash: str = ""          # a short hash of the game log: the same game played again has it

    @staticmethod
    def hash_log(log: dict[str, object]) -> str:
        return hashlib.sha1(json.dumps(log, sort_keys=True).encode()).hexdigest()[:16]


def owned_cards(state: GameState) -> dict[str, int]:
    """Each player's cards in all zones (tokens and copies on the stack not counted): what
    :func:`check_invariants` holds constant."""
    counts: dict[str, int] = {}
    for player in state.players:
        owned = sum(1 for zone in ("library", "hand", "graveyard", "exile") for c in getattr(player, zone)
                    if not c.token and not c.copy_of_card)
        # a permanent's owner is the player whose battlefield lists it (its controller may differ)
        owned += sum(1 for p in player.battlefield if not p.token)
        owned += sum(1 for s in state.stack if s.card is not None and not s.copy_of_card
                     and (s.controller or state.active) == player.name)
        counts[player.name] = owned
    return counts


def check_invariants(game: Game, sizes: dict[str, int]) -> None:
    """Every object id used once, every card in exactly one zone, no
    state-based action pending when a player has priority (CR 115.5), life and counters
    sane."""
    state = game.state
    ids = [o.id for p in state.players for zone in ZONES for o in getattr(p, zone)] + \
        [s.id for s in state.stack if s.id is not None]
    if len(set(ids)) != len(ids):
        raise InvariantError(f"ids used twice: {sorted(i for i, n in Counter(ids).items() if n > 1)}")
    for name, owned in owned_cards(state).items():
        if owned != sizes[name]:
            raise InvariantError(f"{name} has {owned} cards in all zones, not {sizes[name]}")
    for perm in state.permanents():
        if any(n < 0 for n in perm.counters.values()) or perm.damage < 0:
            raise InvariantError(f"{perm.id} has negative counters or damage")
    if state.priority is not None and not game_over(game) and game.state_based_actions():
        raise InvariantError(f"state-based actions pending while {state.priority} has priority: "
                             f"{game.state_based_actions()}")


def play_game(decks: tuple[Deck, Deck], seed: int, max_actions: int = 1000, check: bool = True,
              pool: CardPool | None = None) -> GameResult:
    """One game between random agents (seeded) to its end (CR 104) or ``max_actions``."""
    started = time.perf_counter()
    game = start_game(decks, seed, pool=pool)
    sizes = {p.name: len(p.library) + len(p.hand) for p in game.state.players}
    agents = {p.name: RandomAgent(seed * 1000 + i, pass_rate=0.25) for i, p in enumerate(game.state.players)}
    for _ in range(max_actions):
        if game_over(game):
            break
        decision = decisions(game)
        game.push(agents[decision.player].choose(game, decision))
        if check:
            check_invariants(game, sizes)
    winner = game.winner()
    reasons = {ENDINGS.get(p.lost_by or "", "other") for p in game.state.players if p.lost}
    ending = "unfinished" if winner is None else reasons.pop() if len(reasons) == 1 else "several"
    return GameResult(winner=winner, ending=ending if winner != "none" else "draw", actions=len(game.log),
                      turns=game.state.turn, seconds=time.perf_counter() - started, log=(log := game.game_log()),
                      final=game.state, log_hash=GameResult.hash_log(log))


@dataclass(frozen=True)
class Task:
    """One game to play: the pair of decks, the seed and where its log goes."""
    decks: tuple[Deck, Deck]
    seed: int
    max_actions: int
    log_dir: str | None = None

    def log_path(self) -> Path | None:
        if self.log_dir is None:
            return None
        name = f"{self.decks[0].name}-{self.decks[1].name}-{self.seed}.json".replace(" ", "_").lower()
        return Path(self.log_dir) / name


@dataclass(frozen=True)
class Outcome:
    """A game played by :func:`run_tasks`: its result (without the log and the final state),
    or what went wrong."""
    task: Task
    result: GameResult | None
    failure: str | None = None


def _run_task(task: Task) -> Outcome:
    try:
        result = play_game(task.decks, seed=task.seed, max_actions=task.max_actions)
    except Exception as exc:  # reported with the game's seed: a bug, or input the pool can't play
        return Outcome(task, None, f"{type(exc).__name__}: {exc}")
    path = task.log_path()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result.log))
    return Outcome(task, GameResult(winner=result.winner, ending=result.ending, actions=result.actions,
                                    turns=result.turns, seconds=result.seconds, log_hash=result.log_hash))


# The memory (address space) a worker process may take: a game that runs away fails alone,
# with its seed, instead of taking the machine's memory and the other games with it.
WORKER_MEMORY = 4 * 1024 ** 3
DIED = "the process playing it died (out of memory, or killed)"


def _limit_memory() -> None:
    import resource
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = WORKER_MEMORY if hard == resource.RLIM_INFINITY else min(WORKER_MEMORY, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # no such limit here: play without it
        pass


def run_tasks(tasks: list[Task], jobs: int = 1) -> Iterator[Outcome]:
    """Play the games, in ``jobs`` processes, yielding each outcome in the order of the tasks
    (each game depends only on its decks and seed, so the outcomes don't depend on ``jobs``).

    A few games at a time are given to the processes.  When a process dies, the games it
    could have been playing are played again one by one, each in a process of its own, so
    that only the game that kills its process fails (with its seed); the others go on."""
    if jobs <= 1:
        yield from map(_run_task, tasks)
        return
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    todo = deque(tasks)
    while todo:
        suspects: list[Task] = []
        with ProcessPoolExecutor(max_workers=jobs, initializer=_limit_memory) as pool:
            window: deque[tuple[Task, Future[Outcome]]] = deque()
            while todo or window:
                while todo and len(window) < 2 * jobs:
                    task = todo.popleft()
                    window.append((task, pool.submit(_run_task, task)))
                task, future = window.popleft()
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    suspects = [task] + [t for t, _ in window]
                    break
                yield outcome
        for task in suspects:
            with ProcessPoolExecutor(max_workers=1, initializer=_limit_memory) as alone:
                try:
                    yield alone.submit(_run_task, task).result()
                except BrokenProcessPool:
                    yield Outcome(task, None, DIED)


class ResultsFile:
    """The results of finished games, one JSON line each, so that a long run that was
    stopped can go on where it stopped: a game is known by its decks (names and cards), its
    seed and its action limit, and its line keeps a hash of its log, so that playing it
    again with a later engine tells whether that engine plays the same game.  Games that
    failed are not kept (they are played again)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[tuple[object, ...], GameResult] = {}
        try:  # before any game is played: a result that can't be written would be lost
            path.parent.mkdir(parents=True, exist_ok=True)
            path.open("a").close()
        except (FileExistsError, NotADirectoryError):
            raise InputError("can't write the results: a file is in the way of its folder", source=str(path)) from None
        except OSError as exc:
            raise InputError(f"can't write the results: {exc.strerror or exc}", source=str(path)) from None
        try:
            lines = path.read_text().splitlines()
        except OSError as exc:
            raise InputError(f"can't read the results: {exc}", source=str(path)) from None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                key = tuple(entry["key"])
                self.known[key] = GameResult(winner=entry["winner"], ending=entry["ending"],
                                             actions=int(entry["actions"]), turns=int(entry["turns"]),
                                             seconds=float(entry["seconds"]), log_hash=entry.get("log", ""))
            except (ValueError, KeyError, TypeError) as exc:
                raise InputError(f"not a game result: {exc}", source=str(path), location=f"line {number}") from None

    @staticmethod
    def key(task: Task) -> tuple[object, ...]:
        a, b = task.decks
        return (a.name, a.fingerprint(), b.name, b.fingerprint(), task.seed, task.max_actions)

    def get(self, task: Task) -> GameResult | None:
        """The recorded result of this game, if it was played."""
        return self.known.get(self.key(task))

    def record(self, task: Task, result: GameResult) -> None:
        """Append a finished game."""
        self.known[self.key(task)] = result
        entry = {"key": list(self.key(task)), "winner": result.winner, "ending": result.ending,
                 "actions": result.actions, "turns": result.turns, "seconds": round(result.seconds, 3),
                 "log": result.log_hash}
        with self.path.open("a") as out:
            out.write(json.dumps(entry) + "\n")


def summary(results: list[GameResult]) -> str:
    seconds = sum(r.seconds for r in results) or 1e-9
    actions = sum(r.actions for r in results)
    endings = Counter(r.ending for r in results)
    return (f"{len(results)} games, {actions} actions in {seconds:.1f} s: {len(results) / seconds:.3f} games/s, "
            f"{actions / seconds:.1f} actions/s; endings: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
