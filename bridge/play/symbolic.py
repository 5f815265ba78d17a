"""Proving a property of the rules over every small position at once, by the solver.

:mod:`bridge.play.verify` checks one position after another.  For a property that the rules
alone decide, the characteristics of CR 613, one search of the solver checks every position
of up to K permanents: choice rules make the positions (the same ones as
:func:`bridge.play.positions.exhaustive_positions`, up to symmetry), the rule modules derive the
answers of each, and the solver enumerates the answer sets, each a position with its
answers.  Every position must come exactly once (613 leaves no choice: one answer set, no
fewer, no more), and in none may the property fail.  When none does, the property holds in
every one of them: a proof, not a sample.  A position where it fails is read back as a
:class:`~bridge.play.positions.Position`; :mod:`bridge.play.verify` checks it again one
position at a time, shrinks it and writes it as a scenario.  The positions are enumerated in
chunks (those whose first permanent is one piece of the pool), which processes or a Ray
cluster can share.

The program (:func:`characteristics_program`) holds the characteristics modules (every
layer's) on permanents named ``o(S)``, S the permanent's place in the position and its
timestamp, and with ``renamed`` a second time, every predicate renamed, on permanents named
``r(S)`` whose timestamps are shifted and spread (1000 + 3S, their order kept).  The
property fails at a permanent that has no name or several, no controller or several,
several values of power, toughness or loyalty, or is a creature without them; where the two
copies disagree on a characteristic (the answer depends on the names of the objects or on
the values of the timestamps); and where an integrity constraint of the modules would
reject the position (each is made an atom the enumeration reads).

>>> proof = prove_characteristics(["Grizzly Bears", "Glorious Anthem"], max_permanents=2)
>>> proof.positions, proof.answered, proof.holds
(27, 27, True)
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.engine.board import CHARACTERISTICS, LAYERS, PT
from bridge.engine.facts import asp_string, position_facts
from bridge.engine.solver import Enumeration, enumerate_answers, prefixed_statements
from bridge.model.cards import CardPool
from bridge.model.errors import InputError, RuleModuleError
from bridge.play import positions
from bridge.play.positions import MAIN, PLAYERS, Piece, Position, kinds, positions_from
from bridge.play.sweep import Backend, sweep

__all__ = [
    "SHOWN",
    "Counterexample",
    "Proof",
    "characteristics_program",
    "element_facts",
    "elements",
    "position_answers",
    "prove_characteristics",
    "static_facts",
]

# The characteristics a question about an object shows (characteristics/show.lp).
SHOWN = (
    "has_type",
    "has_subtype",
    "has_supertype",
    "has_color",
    "has_ability",
    "power",
    "toughness",
    "loyalty",
    "controller",
    "has_name",
    "mana_value",
    "text_card",
)
MODULES = (*CHARACTERISTICS, *LAYERS, *PT)
RENAMED = "r_"  # the prefix of the second copy's predicates
# the second copy's timestamps: shifted and spread, in the same order
SHIFT, SPREAD = 1000, 3

# The positions: element E (a card, a side, tapped or not) in place S, the places filled
# from the first, in the order of the elements (each multiset once: ORDER), with every way
# of attaching the Auras (to a creature; to nothing when there is none) and the Equipment
# (to nothing, or to a creature of its side).  The generator's predicates begin with ``g_``.
ORDER = ":- g_at(S, E), g_at(S + 1, F), F < E.\n"
GENERATOR = (
    """
g_slot(1..{places}).
{{ g_at(S, E) : g_elem(E, _, _) }} 1 :- g_slot(S).
g_used(S) :- g_at(S, _).
:- not g_used(1).
:- g_slot(S), S > 1, g_used(S), not g_used(S - 1).
"""
    + ORDER
    + """% CR 303.4a, 301.7a: an Aura enchants a creature (nothing when there is none); an
% Equipment is unattached or equips a creature of its controller's
g_creature_at(S) :- g_at(S, E), g_elem(E, C, _), g_creature(C).
g_some_creature :- g_creature_at(_).
1 {{ g_attach(S, T) : g_creature_at(T) }} 1 :- g_at(S, E), g_elem(E, C, _), g_aura(C), g_some_creature.
{{ g_attach(S, T) : g_creature_at(T), g_at(T, F), g_elem(F, _, P) }} 1 :- g_at(S, E), g_elem(E, C, P), g_equipment(C).
#show g_at/2.
#show g_attach/2.
"""
)
# The positions of one chunk: the first place holds the element ``first``, the others
# elements from it on.  The grounder then holds only the chunk's positions: grounding the
# program again for each chunk costs less than searching the whole one under an assumption
# (the first place's other choices are gone before the search).
CHOICE = "{ g_at(S, E) : g_elem(E, _, _) } 1 :- g_slot(S).\n"
FIRST = "g_at(1, {first}).\n{{ g_at(S, E) : g_elem(E, _, _), E >= {first} }} 1 :- g_slot(S), S > 1.\n"


def in_chunk(text: str, first: int) -> str:
    """A program's text made to hold only the positions whose first permanent is the element
    ``first`` (its generator's choice of the first place made a fact)."""
    if CHOICE not in text:
        raise RuleModuleError("the program's generator has no choice of the first place to fix")
    return text.replace(CHOICE, FIRST.format(first=first))


# The facts of a permanent as the engine writes them (bridge/engine/facts.py), in one copy.
COPY = """
% CR 110.1, 613.6: a permanent, its card, controller, owner, timestamp, status, attachment
{p}permanent({o}(S)) :- g_used(S).
{p}card_of({o}(S), C) :- g_at(S, E), g_elem(E, C, _).
{p}controller_of({o}(S), P) :- g_at(S, E), g_elem(E, _, P).
{p}owner({o}(S), P) :- g_at(S, E), g_elem(E, _, P).
{p}timestamp({o}(S), {timestamp}) :- g_used(S).
{p}tapped({o}(S)) :- g_at(S, E), g_tapped(E).
{p}attached({o}(S), {o}(T)) :- g_attach(S, T).
"""

# What fails: in the first copy, a permanent without exactly one name and controller, or
# with several values of power, toughness or loyalty (g_values); a creature without power or
# toughness (g_without); a characteristic that the copies don't share (g_renamed); an
# integrity constraint's body (g_constraint, made by prefixed_statements).
GOAL = """
% CR 613.1, 613.6: the layers give every object one value of each characteristic it has
g_values(S, has_name, N) :- g_used(S), N = #count {{ X : has_name(o(S), X) }}, N != 1.
g_values(S, controller, N) :- g_used(S), N = #count {{ X : controller(o(S), X) }}, N != 1.
g_values(S, K, N) :- g_used(S), g_single(K), N = #count {{ X : g_value(K, o(S), X) }}, N > 1.
g_without(S, power) :- has_type(o(S), creature), not power(o(S), _).
g_without(S, toughness) :- has_type(o(S), creature), not toughness(o(S), _).
g_single(power; toughness; loyalty).
g_value(power, O, X) :- power(O, X).
g_value(toughness, O, X) :- toughness(O, X).
g_value(loyalty, O, X) :- loyalty(O, X).
{differences}
#show g_values/3.
#show g_without/2.
#show g_renamed/3.
#show g_constraint/1.
"""
DIFFERENCE = """
% CR 613.6: only the order of the timestamps matters, and an object's name none
g_renamed(S, {name}, X) :- {name}(o(S), X), not {renamed}{name}(r(S), X).
g_renamed(S, {name}, X) :- {renamed}{name}(r(S), X), not {name}(o(S), X).
"""


@functools.cache
def _elements(pool: CardPool, cards: tuple[str, ...], tapped: bool) -> tuple[Piece, ...]:
    return positions.elements(pool, cards, tapped)


def elements(pool: CardPool, cards: Sequence[str], tapped: bool = True) -> tuple[Piece, ...]:
    """The pieces a position is made of, in the order of the exhaustive enumeration."""
    return _elements(pool, tuple(cards), tapped)


def static_facts(pool: CardPool, cards: Sequence[str], hand: Sequence[str]) -> str:
    """The facts of every position but its permanents: the players, the step, the cards in
    the active player's hand (as the engine writes them), and the texts of every card that
    may be a permanent."""
    empty = Position((), (), tuple(hand)).state(MAIN)
    lines = [position_facts(empty, pool).facts]
    for card in dict.fromkeys(p.card for p in elements(pool, cards)):
        lines += pool.get(card).facts()
    return "\n".join(lines)


def element_facts(pool: CardPool, pieces: Sequence[Piece]) -> str:
    """The pieces as the generator's facts: ``g_elem(E, Card, Side)`` and ``g_tapped(E)`` for
    the E-th piece, and which cards are creatures, Auras and Equipment."""
    out = []
    by_id = {}
    for e, piece in enumerate(pieces):
        card = pool.get(piece.card)
        c = asp_string(card.id)
        out.append(f"g_elem({e}, {c}, {asp_string(PLAYERS[piece.side])}).")
        if piece.tapped:
            out.append(f"g_tapped({e}).")
        by_id[c] = card
    for c, card in by_id.items():
        if "creature" in card.types:
            out.append(f"g_creature({c}).")
        if "aura" in card.subtypes:
            out.append(f"g_aura({c}).")
        if "equipment" in card.subtypes:
            out.append(f"g_equipment({c}).")
    return "\n".join(out)


def characteristics_program(
    pool: CardPool,
    cards: Sequence[str],
    max_permanents: int,
    tapped: bool = True,
    renamed: bool = False,
    hand: Sequence[str] | None = None,
    ordered: bool = True,
) -> tuple[list[Any], str, list[str]]:
    """The program whose answer sets are the positions of 1 to ``max_permanents`` permanents
    of the cards with their characteristics and what fails in each (the module docstring
    says what): the statements of the modules' copies, the text of the rest (the facts, the
    generator, the goal), and where each integrity constraint is (``g_constraint(I)`` is the
    I-th).  The active player's hand holds ``hand`` (by default the cards' instants and
    sorceries, as in the enumeration); without ``ordered`` the permanents come in any order
    (for one position given in its own order)."""
    if max_permanents < 1:
        raise InputError(f"a proof needs positions of at least one permanent, not {max_permanents}")
    pieces = elements(pool, cards, tapped)
    constraints: list[str] = []
    statements = prefixed_statements(MODULES, "", constraints, "g_constraint")
    static = static_facts(pool, cards, kinds(pool, cards)[1] if hand is None else hand)
    generator = GENERATOR.format(places=max_permanents)
    if not ordered:
        generator = generator.replace(ORDER, "")
    parts = [static, element_facts(pool, pieces), generator, COPY.format(p="", o="o", timestamp="S")]
    differences = ""
    if renamed:
        statements += prefixed_statements(MODULES, RENAMED, constraints, "g_constraint", facts=static)
        parts.append(COPY.format(p=RENAMED, o="r", timestamp=f"{SHIFT} + {SPREAD} * S"))
        differences = "".join(DIFFERENCE.format(name=name, renamed=RENAMED) for name in SHOWN)
    text = "\n".join([*parts, GOAL.format(differences=differences)])
    return statements, text, constraints


@dataclass
class Counterexample:
    """A position where the property fails, and what fails, as the solver found it."""

    position: Position
    problems: tuple[str, ...]


@dataclass
class Proof:
    """What the solver's enumeration of every position of 1 to ``max_permanents`` permanents
    found: the ``positions`` the enumeration in Python makes, those the solver answered
    (``answered``: each must be, once), where the property fails (up to a limit), the
    positions the program makes that the enumeration in Python doesn't (``foreign``: none, or
    the program's generator is wrong), and whether every chunk was done (``complete``)."""

    max_permanents: int
    renamed: bool
    positions: int = 0
    answered: int = 0
    chunks: int = 0  # the positions in chunks, by their first permanent
    chunks_done: int = 0
    counterexamples: list[Counterexample] = field(default_factory=list)
    several: list[Position] = field(default_factory=list)  # answered more than once
    unanswered: list[Position] = field(default_factory=list)  # not answered
    # made by the program but not by the enumeration (the generator is wrong): how many, some
    foreign: int = 0
    foreign_examples: list[Position] = field(default_factory=list)
    complete: bool = False
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def holds(self) -> bool:
        """The property holds in every position: the search complete, every position answered
        once, and none failing."""
        return (
            self.complete
            and self.answered == self.positions
            and not (self.counterexamples or self.several or self.unanswered or self.foreign)
        )

    @property
    def positions_per_second(self) -> float:
        return self.answered / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, object]:
        return {
            "max_permanents": self.max_permanents,
            "renamed": self.renamed,
            "positions": self.positions,
            "answered": self.answered,
            "holds": self.holds,
            "complete": self.complete,
            "chunks": self.chunks,
            "chunks_done": self.chunks_done,
            "counterexamples": [
                {"position": repr(c.position), "problems": list(c.problems)} for c in self.counterexamples
            ],
            "several_answer_sets": [repr(p) for p in self.several],
            "no_answer_set": [repr(p) for p in self.unanswered],
            "not_enumerated": self.foreign,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


_Key = tuple[tuple[int, ...], tuple[int | None, ...]]  # the elements in their places, attachments


def _key(position: Position, index: dict[Piece, int]) -> _Key:
    return tuple(index[p] for p in position.pieces), tuple(position.attached)


def _problem(name: str, args: tuple[object, ...], constraints: Sequence[str]) -> str:
    if name == "g_constraint":
        return f"an integrity constraint would reject it: {constraints[int(str(args[0])) - 1]}"
    where = f"the permanent at place {args[0]}"
    if name == "g_values":
        return f"{where} has {args[2]} values of {args[1]}"
    if name == "g_without":
        return f"{where} is a creature without {args[1]}"
    return f"{where}: {args[1]} {args[2]} in one copy only, the other with ids renamed and timestamps shifted"


def _read(atoms: list[tuple[str, tuple[object, ...]]], constraints: Sequence[str]) -> tuple[_Key, list[str]]:
    at: dict[Any, Any] = {}
    attach: dict[Any, Any] = {}
    problems = []
    for name, args in atoms:
        if name == "g_at":
            at[args[0]] = args[1]
        elif name == "g_attach":
            attach[args[0]] = args[1]
        else:
            problems.append(_problem(name, args, constraints))
    places = sorted(at)
    attached = tuple(attach[s] - 1 if s in attach else None for s in places)
    return (tuple(at[s] for s in places), attached), problems


@dataclass(frozen=True)
class _Setup:
    pool: CardPool
    cards: tuple[str, ...]
    max_permanents: int
    tapped: bool
    renamed: bool


@dataclass(frozen=True)
class _Chunk:
    """The positions whose first permanent is one element: how many the enumeration makes and
    how many the program answered, some of those answered twice, not answered, not made by the
    enumeration (how many of them, some), those failing with what fails; the CPU seconds."""

    positions: int
    answered: int
    several: tuple[_Key, ...]
    unanswered: tuple[_Key, ...]
    foreign: int
    foreign_examples: tuple[_Key, ...]
    failing: tuple[tuple[_Key, tuple[str, ...]], ...]
    cpu: float


@functools.lru_cache(maxsize=1)
def _program(setup: _Setup) -> tuple[list[Any], str, tuple[str, ...]]:
    """The program of the setup, made once in each process (grounded for each chunk)."""
    statements, text, constraints = characteristics_program(
        setup.pool, setup.cards, setup.max_permanents, setup.tapped, setup.renamed
    )
    return statements, text, tuple(constraints)


def _chunk(setup: _Setup, limit: int, wall_deadline: float | None, first: int) -> _Chunk | None:
    """The positions whose first permanent is element ``first``, answered by the program and
    made by the enumeration, compared; None past the deadline (a time of the wall clock:
    another process has its own monotonic clock)."""
    began = time.process_time()
    if wall_deadline is not None and time.time() > wall_deadline:
        return None
    index = {piece: e for e, piece in enumerate(elements(setup.pool, setup.cards, setup.tapped))}
    made = {_key(p, index) for p in positions_from(setup.pool, setup.cards, setup.max_permanents, setup.tapped, first)}
    statements, text, constraints = _program(setup)
    enumeration = Enumeration(statements, in_chunk(text, first))
    seen: set[_Key] = set()
    several: list[_Key] = []
    foreign: list[_Key] = []
    failing: list[tuple[_Key, tuple[str, ...]]] = []
    stopped = False

    def found(atoms: list[tuple[str, tuple[object, ...]]]) -> bool:
        nonlocal stopped
        key, problems = _read(atoms, constraints)
        if key in seen:
            several.append(key)
        elif key not in made:
            seen.add(key)
            foreign.append(key)
        else:
            seen.add(key)
            if problems and len(failing) < limit:
                failing.append((key, tuple(sorted(problems))))
        if wall_deadline is not None and len(seen) % 256 == 0 and time.time() > wall_deadline:
            stopped = True
            return False
        return True

    enumeration.each(found)
    if stopped:
        return None
    return _Chunk(
        len(made),
        len(made & seen),
        tuple(several[:limit]),
        tuple(sorted(made - seen)[:limit]),
        len(foreign),
        tuple(foreign[:limit]),
        tuple(failing),
        time.process_time() - began,
    )


def prove_characteristics(
    cards: Sequence[str],
    *,
    max_permanents: int,
    tapped: bool = True,
    pool: CardPool | None = None,
    renamed: bool = False,
    limit: int = 20,
    backend: Backend | None = None,
    deadline: float | None = None,
    on_progress: Callable[[Proof], None] | None = None,
) -> Proof:
    """Enumerate every position of 1 to ``max_permanents`` permanents of the cards with the
    answers of the characteristics modules (the module docstring says what fails; with
    ``renamed``, the second copy too), one chunk of positions (those whose first permanent
    is one element) after another, or spread over processes or a Ray cluster (``backend``,
    :mod:`bridge.play.sweep`): the proof is the same.  Up to ``limit`` positions of each kind
    of failure are kept.  ``deadline`` (a :func:`time.monotonic` value) stops it
    (``complete`` False); ``on_progress`` is called after each chunk."""
    if max_permanents < 1:
        raise InputError(f"a proof needs positions of at least one permanent, not {max_permanents}")
    pool = pool or CardPool.default()
    started, cpu = time.monotonic(), time.process_time()
    pieces = elements(pool, cards, tapped)
    _, spells = kinds(pool, cards)
    out = Proof(max_permanents, renamed, chunks=len(pieces))
    setup = _Setup(pool, tuple(cards), max_permanents, tapped, renamed)
    wall_deadline = None if deadline is None else time.time() + (deadline - time.monotonic())
    elsewhere = backend is not None and (backend.kind == "ray" or (backend.jobs or 1) > 1)
    workers = 0.0

    def note(kept: list[Position], more: Sequence[_Key]) -> None:
        kept += [Position(tuple(pieces[e] for e in k[0]), k[1], tuple(spells)) for k in more[: limit - len(kept)]]

    results = sweep(functools.partial(_chunk, setup, limit, wall_deadline), range(len(pieces)), backend)
    try:
        for chunk in results:
            if chunk is None:
                return out
            workers += chunk.cpu if elsewhere else 0.0
            out.chunks_done += 1
            out.positions += chunk.positions
            out.answered += chunk.answered
            out.foreign += chunk.foreign
            note(out.several, chunk.several)
            note(out.unanswered, chunk.unanswered)
            note(out.foreign_examples, chunk.foreign_examples)
            for key, problems in chunk.failing[: max(0, limit - len(out.counterexamples))]:
                found = Position(tuple(pieces[e] for e in key[0]), key[1], tuple(spells))
                out.counterexamples.append(Counterexample(found, problems))
            out.seconds, out.cpu_seconds = time.monotonic() - started, time.process_time() - cpu + workers
            if on_progress is not None:
                on_progress(out)
        out.complete = True
        return out
    finally:
        results.close()
        _program.cache_clear()  # the program of this process, when it made one
        out.seconds, out.cpu_seconds = time.monotonic() - started, time.process_time() - cpu + workers


def position_answers(position: Position, *, pool: CardPool | None = None) -> list[dict[str, dict[str, list[object]]]]:
    """The answer sets the proof's program (one copy) gives one position, each as
    :meth:`bridge.engine.board.Board.characteristic_answers` gives the engine's: object id
    (the position's, :meth:`Position.ids`) -> characteristic -> its values."""
    pool = pool or CardPool.default()
    cards = sorted({p.card for p in position.pieces})
    pieces = elements(pool, cards)
    index = {piece: e for e, piece in enumerate(pieces)}
    missing = [p for p in position.pieces if p not in index]
    if missing:
        raise InputError(f"not a piece of an exhaustive position: {missing[0]}")
    statements, text, _ = characteristics_program(
        pool, cards, len(position.pieces), renamed=False, hand=position.hand, ordered=False
    )
    fixed = [f":- not g_at({s}, {index[p]})." for s, p in enumerate(position.pieces, start=1)]
    for s, target in enumerate(position.attached, start=1):
        fixed.append(f":- g_attach({s}, _)." if target is None else f":- not g_attach({s}, {target + 1}).")
    shows = [f"#show {name}/2." for name in SHOWN]
    ids = {f"o({s})": oid for s, oid in enumerate(position.ids(), start=1)}
    out = []
    for atoms in enumerate_answers(statements, "\n".join([text, *fixed, *shows])):
        values: dict[str, dict[str, list[object]]] = {}
        for name, args in atoms:
            if name in SHOWN:
                values.setdefault(ids[str(args[0])], {}).setdefault(name, []).append(args[1])
        out.append(values)
    return out
