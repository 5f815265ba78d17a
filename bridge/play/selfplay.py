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
import os
import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bridge.engine.game import Game
from bridge.io.writing import safe_file_name, write_whole
from bridge.model.cards import CardPool
from bridge.model.errors import InputError, one_line, quote
from bridge.model.limits import MAX_DECK_CARDS, MAX_NAME, MAX_RESULTS_BYTES, Deadline, TimeLimitReached
from bridge.model.paths import cards_dir, decks_dir
from bridge.model.reading import read_text, read_yaml, validation_error
from bridge.model.state import ZONES, GameState
from bridge.play.agents import RandomAgent, decisions, game_over
from bridge.play.sweep import Backend, sweep

__all__ = [
    "Deck",
    "GameResult",
    "InvariantError",
    "Outcome",
    "ResultsFile",
    "Task",
    "load_deck",
    "play_game",
    "run_tasks",
    "shipped_decks",
    "start_game",
]


class Deck(BaseModel):
    """A deck: a name and card counts (at least 40 cards)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    cards: dict[str, int] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value or len(value) > MAX_NAME or not value.isprintable():
            raise ValueError(f"a deck's name is printable text of 1 to {MAX_NAME} characters")
        return value

    @field_validator("cards")
    @classmethod
    def _counts(cls, value: dict[str, int]) -> dict[str, int]:
        for card, n in value.items():
            if len(card) > MAX_NAME:
                raise ValueError(f"a card's name is at most {MAX_NAME} characters, this one {len(card):,}")
            if n < 1:
                raise ValueError(f"{quote(card)}: a count of at least 1")
        if sum(value.values()) < 40:
            raise ValueError(f"a deck has at least 40 cards, this one {sum(value.values())}")
        if sum(value.values()) > MAX_DECK_CARDS:
            raise ValueError(f"a deck has at most {MAX_DECK_CARDS} cards (the limit), this one {sum(value.values()):,}")
        return value

    def card_list(self) -> list[str]:
        return [card for card, n in self.cards.items() for _ in range(n)]

    def fingerprint(self) -> str:
        """A short hash of the deck's cards: a deck file edited is another deck."""
        return hashlib.sha1(json.dumps(self.cards, sort_keys=True).encode()).hexdigest()[:12]


def load_deck(path: Path, pool: CardPool | None = None) -> Deck:
    """A deck file, checked against the card pool: each card's file is read and its facts
    made, so that a card the engine can't use is found before any game."""
    pool = pool or CardPool.default()
    data, text = read_yaml(path)
    if not isinstance(data, dict):
        raise InputError("a deck is a mapping with a name and the counts of its cards", source=str(path))
    try:
        deck = Deck.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), text) from None
    for card in deck.cards:
        if card not in pool:
            raise InputError(f"unknown card {quote(card)}", source=str(path), location=f"cards.{card}")
    check_cards(deck, pool, str(path))
    return deck


def check_cards(deck: Deck, pool: CardPool | None = None, source: str | None = None) -> None:
    """:class:`InputError` when a card of the deck can't be used: its file is not valid, or
    the engine can't make its facts."""
    pool = pool or CardPool.default()
    for name in deck.cards:
        try:
            pool.get(name).facts()
        except InputError as exc:
            if exc.source:  # the card's own file is wrong: name it, and the deck that holds it
                raise InputError(
                    f"{exc.problem} (a card of the deck {quote(deck.name)})", source=exc.source, location=exc.location
                ) from None
            raise exc.at(source=source, location=f"cards.{name}") from None


BASICS = {"W": "Plains", "U": "Island", "B": "Swamp", "R": "Mountain", "G": "Forest"}


def random_deck(seed: int, pool: CardPool | None = None, card_set: str = "m10") -> Deck:
    """A random two-color deck (``random:SEED`` on the command line): 23 cards drawn with
    repeats from a set's playable and partial nonland cards (``cards/sets/<set>.txt``) whose
    mana costs use only those colors, and 17 basic lands of the two, so that random games
    reach the cards no shipped deck holds."""
    pool = pool or CardPool.default()
    rng = random.Random(seed)
    entries = read_text(cards_dir() / "sets" / f"{card_set}.txt", what="the card set").splitlines()
    names = [m.group(1) for m in (re.match(r"\d+ (.+?) \| (?:playable|partial)", line) for line in entries) if m]
    colors = {
        n: set(re.findall(r"[WUBRG]", pool.get(n).mana_cost or ""))
        for n in names
        if n in pool and "land" not in pool.get(n).types
    }
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


def start_game(
    decks: tuple[Deck, Deck],
    seed: int,
    names: tuple[str, str] = ("alice", "bob"),
    keep: Callable[[list[str], int], bool] | None = None,
    pool: CardPool | None = None,
) -> Game:
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
ENDINGS = {
    "704.5a": "life",
    "704.5b": "empty library",
    "704.5c": "poison",
    "104.3a": "concession",
    "104.3e": "an effect",
}


class InvariantError(AssertionError):
    """The game reached a state the rules can't produce."""


@dataclass
class GameResult:
    winner: str | None  # a player's name, "none" for a draw, None when unfinished
    ending: str  # how it ended
    actions: int
    turns: int
    seconds: float
    log: dict[str, object] = field(default_factory=dict)
    final: GameState | None = None
    log_hash: str = ""  # a short hash of the game log: the same game played again has it

    @staticmethod
    def hash_log(log: dict[str, object]) -> str:
        return hashlib.sha1(json.dumps(log, sort_keys=True).encode()).hexdigest()[:16]


def owned_cards(state: GameState) -> dict[str, int]:
    """Each player's cards in all zones (tokens and copies on the stack not counted): what
    :func:`check_invariants` holds constant."""
    counts: dict[str, int] = {}
    for player in state.players:
        owned = sum(
            1
            for zone in ("library", "hand", "graveyard", "exile")
            for c in getattr(player, zone)
            if not c.token and not c.copy_of_card
        )
        # a permanent's owner is the player whose battlefield lists it (its controller may differ)
        owned += sum(1 for p in player.battlefield if not p.token)
        owned += sum(
            1
            for s in state.stack
            if s.card is not None and not s.copy_of_card and (s.controller or state.active) == player.name
        )
        counts[player.name] = owned
    return counts


def check_invariants(game: Game, sizes: dict[str, int]) -> None:
    """Every object id used once, every card in exactly one zone, no
    state-based action pending when a player has priority (CR 115.5), life and counters
    sane."""
    state = game.state
    ids = [o.id for p in state.players for zone in ZONES for o in getattr(p, zone)] + [
        s.id for s in state.stack if s.id is not None
    ]
    if len(set(ids)) != len(ids):
        raise InvariantError(f"ids used twice: {sorted(i for i, n in Counter(ids).items() if n > 1)}")
    for name, owned in owned_cards(state).items():
        if owned != sizes[name]:
            raise InvariantError(f"{name} has {owned} cards in all zones, not {sizes[name]}")
    for perm in state.permanents():
        if any(n < 0 for n in perm.counters.values()) or perm.damage < 0:
            raise InvariantError(f"{perm.id} has negative counters or damage")
    if state.priority is not None and not game_over(game) and game.state_based_actions():
        raise InvariantError(
            f"state-based actions pending while {state.priority} has priority: {game.state_based_actions()}"
        )


def play_game(
    decks: tuple[Deck, Deck], seed: int, max_actions: int = 1000, check: bool = True, pool: CardPool | None = None
) -> GameResult:
    """One game between random agents (seeded) to its end (CR 104) or ``max_actions``."""
    started = time.perf_counter()
    game = start_game(decks, seed, pool=pool)
    sizes = {p.name: len(p.library) + len(p.hand) for p in game.state.players}
    agents = {p.name: RandomAgent(seed * 1000 + i, pass_rate=0.25) for i, p in enumerate(game.state.players)}
    for _ in range(max_actions):
        if game_over(game):
            break
        decision = decisions(game, trigger_order=False)
        game.push(agents[decision.player].choose(game, decision))
        if check:
            check_invariants(game, sizes)
    winner = game.winner()
    reasons = {ENDINGS.get(p.lost_by or "", "other") for p in game.state.players if p.lost}
    ending = "unfinished" if winner is None else reasons.pop() if len(reasons) == 1 else "several"
    return GameResult(
        winner=winner,
        ending=ending if winner != "none" else "draw",
        actions=len(game.log),
        turns=game.state.turn,
        seconds=time.perf_counter() - started,
        log=(log := game.game_log()),
        final=game.state,
        log_hash=GameResult.hash_log(log),
    )


@dataclass(frozen=True)
class Task:
    """One game to play: the pair of decks, the seed and where its log goes."""

    decks: tuple[Deck, Deck]
    seed: int
    max_actions: int
    log_dir: str | None = None
    time_limit: float | None = None  # seconds; the game stops unfinished (not a result) past it

    def log_path(self) -> Path | None:
        """The game log's file in ``log_dir``: named after the decks and the seed, made safe
        (a deck's name never leads out of the folder)."""
        if self.log_dir is None:
            return None
        name = safe_file_name(f"{self.decks[0].name}-{self.decks[1].name}-{self.seed}", limit=200) + ".json"
        return Path(self.log_dir) / name


@dataclass(frozen=True)
class Outcome:
    """A game played by :func:`run_tasks`: its result (without the log and the final state),
    or what went wrong."""

    task: Task
    result: GameResult | None
    failure: str | None = None
    timed_out: bool = False


def _run_task(task: Task) -> Outcome:
    try:
        with Deadline(task.time_limit, hard_exit=False):
            result = play_game(task.decks, seed=task.seed, max_actions=task.max_actions)
    except TimeLimitReached:
        return Outcome(task, None, f"stopped by the time limit of {task.time_limit:g} s", timed_out=True)
    except Exception as exc:  # reported with the game's seed: a bug, or input the pool can't play
        return Outcome(task, None, f"{type(exc).__name__}: {one_line(str(exc), 300)}")
    path = task.log_path()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_whole(path, json.dumps(result.log))
        except OSError as exc:
            return Outcome(task, None, f"the game log can't be written to {path}: {exc.strerror or exc}")
    return Outcome(
        task,
        GameResult(
            winner=result.winner,
            ending=result.ending,
            actions=result.actions,
            turns=result.turns,
            seconds=result.seconds,
            log_hash=result.log_hash,
        ),
    )


# The memory (address space) a worker process may take: a game that runs away fails alone,
# with its seed, instead of taking the machine's memory and the other games with it.
WORKER_MEMORY = 4 * 1024**3
DIED = "the process playing it died (out of memory, or killed)"


def _limit_memory() -> None:
    import resource

    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = WORKER_MEMORY if hard == resource.RLIM_INFINITY else min(WORKER_MEMORY, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # no such limit here: play without it
        pass


def run_tasks(tasks: list[Task], jobs: int = 1, backend: Backend | None = None) -> Iterator[Outcome]:
    """Play the games, in ``jobs`` processes (or where ``backend`` says), yielding each
    outcome in the order of the tasks (each game depends only on its decks and seed, so the
    outcomes depend neither on ``jobs`` nor on the backend).

    A few games at a time are given to the processes.  When a process dies, the games it
    could have been playing are played again one by one, each in a process of its own, so
    that only the game that kills its process fails (with its seed); the others go on."""
    backend = backend or Backend(jobs=jobs)
    # _run_task looked up now, not at import: a test may stand another in for it
    yield from sweep(_run_task, tasks, backend, died=_died, initializer=_limit_memory)


def _died(task: Task) -> Outcome:
    return Outcome(task, None, DIED)


class ResultsFile:
    """The results of finished games, one JSON line each, so that a long run that was
    stopped can go on where it stopped: a game is known by its decks (names and cards), its
    seed and its action limit, and its line keeps a hash of its log, so that playing it
    again with a later engine tells whether that engine plays the same game.  Games that
    failed are not kept (they are played again).

    The file is written whole or not at all (a temporary file, then a rename); a last line
    cut short (by a run stopped while another program wrote it) is dropped with a warning,
    and its game played again."""

    FIELDS = "key, winner, ending, actions, turns, seconds and log"

    def __init__(self, path: Path, warn: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.known: dict[tuple[object, ...], GameResult] = {}
        self.lines: list[str] = []  # the file's lines, as they are, less a line cut short
        self.dropped = False
        source = str(path)
        if path.is_dir():
            raise InputError("can't write the results: it is a folder", source=source)
        try:  # before any game is played: a result that can't be written would be lost
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                write_whole(path, "")
        except (FileExistsError, NotADirectoryError):
            raise InputError("can't write the results: a file is in the way of its folder", source=source) from None
        except OSError as exc:
            raise InputError(f"can't write the results: {exc.strerror or exc}", source=source) from None
        if not os.access(path.parent, os.W_OK):
            raise InputError("can't write the results: its folder can't be written to", source=source)
        text = read_text(path, limit=MAX_RESULTS_BYTES, what="the results")
        lines = text.split("\n")
        last = len(lines) if not text.endswith("\n") else None  # the line without its newline
        if last is not None and not lines[-1].strip():
            last = None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                key, result = self._entry(line)
            except ValueError as exc:
                if number == last:
                    self.dropped = True
                    if warn is not None:
                        warn(
                            f"{one_line(source, 200)}: line {number} was cut short (a run stopped while writing "
                            "it): dropped, and its game is played again"
                        )
                    break
                raise InputError(f"not a game result: {exc}", source=source, location=f"line {number}") from None
            self.known[key] = result
            self.lines.append(line)

    @classmethod
    def _entry(cls, line: str) -> tuple[tuple[object, ...], GameResult]:
        """A line's key and result; ValueError says in words what is wrong with it."""
        try:
            entry = json.loads(line, parse_int=lambda t: int(t) if len(t) <= 24 else float("inf"))
        except ValueError:
            raise ValueError(f"the line is not a JSON object with {cls.FIELDS}") from None
        if not isinstance(entry, dict):
            raise ValueError(f"the line is not a JSON object with {cls.FIELDS}")
        missing = [k for k in ("key", "winner", "ending", "actions", "turns", "seconds") if k not in entry]
        if missing:
            raise ValueError(f"the field {quote(missing[0])} is missing")
        key = entry["key"]
        if not (
            isinstance(key, list)
            and len(key) == 6
            and all(isinstance(k, str) for k in key[:4])
            and all(isinstance(k, int) and not isinstance(k, bool) and abs(k) < 10**24 for k in key[4:])
        ):
            raise ValueError("the field 'key' is not [deck, its hash, deck, its hash, seed, action limit]")
        for name, kinds in (("winner", (str, type(None))), ("ending", (str,)), ("log", (str,))):
            if name in entry and not isinstance(entry[name], kinds):
                raise ValueError(f"the field {quote(name)} is not text")
        for name in ("actions", "turns", "seconds"):
            value = entry[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 10**12:
                raise ValueError(f"the field {quote(name)} is not a number of at least 0")
        return tuple(key), GameResult(
            winner=entry["winner"],
            ending=entry["ending"],
            actions=int(entry["actions"]),
            turns=int(entry["turns"]),
            seconds=float(entry["seconds"]),
            log_hash=entry.get("log", ""),
        )

    @staticmethod
    def key(task: Task) -> tuple[object, ...]:
        a, b = task.decks
        return (a.name, a.fingerprint(), b.name, b.fingerprint(), task.seed, task.max_actions)

    def get(self, task: Task) -> GameResult | None:
        """The recorded result of this game, if it was played."""
        return self.known.get(self.key(task))

    def record(self, task: Task, result: GameResult) -> None:
        """Add a finished game: the file is written again whole (a temporary file, then a
        rename), so that it never holds part of a line."""
        self.known[self.key(task)] = result
        entry = {
            "key": list(self.key(task)),
            "winner": result.winner,
            "ending": result.ending,
            "actions": result.actions,
            "turns": result.turns,
            "seconds": round(result.seconds, 3),
            "log": result.log_hash,
        }
        self.lines.append(json.dumps(entry))
        write_whole(self.path, "\n".join(self.lines) + "\n")


def summary(results: list[GameResult]) -> str:
    seconds = sum(r.seconds for r in results) or 1e-9
    actions = sum(r.actions for r in results)
    endings = Counter(r.ending for r in results)
    return (
        f"{len(results)} games, {actions} actions in {seconds:.1f} s: {len(results) / seconds:.3f} games/s, "
        f"{actions / seconds:.1f} actions/s; endings: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items()))
    )
