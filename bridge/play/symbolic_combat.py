"""Proving properties of the declarations of attackers and blockers over every small position
at once, by one search of the solver.

:mod:`bridge.play.symbolic` proves the characteristics by enumerating every position.  The
properties of declarations have a "for all" over the declarations too, and a maximum over
them (CR 508.1d, 509.1c), so the positions are not enumerated: one program holds every
position (the generator of :mod:`bridge.play.symbolic`), every declaration a player could
make in it (the world ``declared``: each of the active player's permanents attacking the
other player or not; each of the defending player's permanents blocking any of the attacking
creatures), and every legal declaration the rules' search could find (the world ``search``),
and the solver looks for one where a property fails.  When there is none (the program has no
answer set), the property holds in every position, for every declaration: a proof.  At the
declaration of blockers, the position has some of the active player's creatures attacking
(any non-empty set of them, tapped or not as the position has them: every declaration of
attackers leads to one of these, and more).

What fails, for the declaration of ``kind`` (attackers or blockers):

- ``requirements`` (508.1d, 509.1c): the empty declaration breaks a rule other than obeying
  the most requirements (then no declaration may be legal: a legal one exists as long as the
  empty one breaks no restriction, since the most requirements obeyed is a maximum over the
  legal ones); or a legal declaration obeys a requirement but the empty one is not judged to
  leave one unobeyed (it would be legal: 508.1d says it is not);
- ``citations``: a declaration breaks a rule for a reason that cites no rule
  (combat/citations.lp; each rule that table cites is looked for in the rules text
  separately, :func:`uncited_rules`);
- ``renaming`` (613.6): the program holds the rules a second time, every predicate renamed,
  on the same permanents with other ids in the reverse order (``r(-S)`` for ``o(S)``) and
  timestamps shifted and spread (1000 + 3S, their order kept), with the same declarations
  renamed (the search world's too); a rule broken in one copy and not in the other, or a
  different number of times, or for objects (one or two) whose renamed twins don't break it
  in the other, fails.

A position where the rules of the characteristics have no answer set at all would have none
here either, and its declarations would go unsearched: it is the proof of the
characteristics over the same positions (:mod:`bridge.play.symbolic`, an enumeration) that
shows every position has one, and the two are meant to be asked together.

The search holds the rules of the characteristics (every layer's), of the declaration, of the
search world and of the judgement against it; ``#maximize`` is left out (the search world
is any legal declaration, so "a legal declaration obeys more requirements" is asked of every
one).  The search world's constraint (no violation) holds for a non-empty declaration only:
an empty one that breaks a rule keeps its position in the program, where the empty
declaration of the world ``declared`` shows it.  Every other integrity constraint of the
modules is made an atom, and a position where one holds is a failure too.  The positions are
searched in chunks (those whose first permanent is one piece of the pool), over processes or
a Ray cluster.

>>> proof = prove_declarations(["Grizzly Bears", "Lure"], kind="block", max_permanents=2)
>>> proof.holds, proof.chunks
(True, 6)
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge.engine.board import ATTACK as ATTACK_MODULES
from bridge.engine.board import BLOCK as BLOCK_MODULES
from bridge.engine.board import CHARACTERISTICS, DECLARED, LAYERS, PT, SEARCH, citations
from bridge.engine.facts import position_facts
from bridge.engine.solver import Enumeration, prefixed_statements
from bridge.model.actions import DeclareAttackers, DeclareBlockers
from bridge.model.cards import CardPool
from bridge.model.errors import InputError
from bridge.model.state import GameState
from bridge.play.positions import ATTACK, BLOCK, MAIN, PLAYERS, Piece, Position, kinds
from bridge.play.sweep import Backend, sweep
from bridge.play.symbolic import COPY, GENERATOR, RENAMED, SHIFT, SPREAD, element_facts, elements

__all__ = [
    "DECLARATION_PROPERTIES",
    "KINDS",
    "Atoms",
    "Failure",
    "Search",
    "chunk_failure",
    "declarations_program",
    "prove_declarations",
    "read_position",
    "search_chunks",
    "uncited_rules",
]

KINDS = ("attack", "block")
DECLARATION_PROPERTIES = ("requirements", "citations", "renaming")
ACTIVE, DEFENDING = (f'"{p}"' for p in PLAYERS)

# CR 508.1a, 509.1a: the declarations of the world `declared`; at the declaration of
# blockers, the attacking creatures (at least one: else there is no such step, 508.6).
DECLARED_TEXT = {
    "attack": f"""
g_side(S, P) :- g_at(S, E), g_elem(E, _, P).
% CR 508.1a: each of the active player's permanents attacks the other player or doesn't
{{ declared_attack(o(S), {DEFENDING}) }} :- g_side(S, {ACTIVE}).
g_some(declared) :- declared_attack(_, _).
g_some(search) :- attacks(search, _, _).
#show declared_attack/2.
""",
    "block": f"""
g_side(S, P) :- g_at(S, E), g_elem(E, _, P).
% CR 508.1, 508.6: some of the active player's creatures attack the other player
{{ g_attacking(S) }} :- g_side(S, {ACTIVE}), g_at(S, E), g_elem(E, C, _), g_creature(C).
:- not g_attacking(_).
attacking(o(S), {DEFENDING}) :- g_attacking(S).
attacked_this_turn(o(S)) :- g_attacking(S).
% CR 509.1a: each of the defending player's permanents blocks any of the attacking creatures
{{ declared_block(o(B), o(A)) }} :- g_side(B, {DEFENDING}), g_attacking(A).
g_some(declared) :- declared_block(_, _).
g_some(search) :- blocks(search, _, _).
#show g_attacking/1.
#show declared_block/2.
""",
}

# What fails (g_fail(Property, What, Detail)); the search world's own constraints
# (g_search_rule) bind a non-empty search declaration only.
GOAL = """
:- g_constraint(I), g_search_rule(I), g_some(search).
g_fail(constraint, I, none) :- g_constraint(I), not g_search_rule(I).
% CR 508.1d, 509.1c: the empty declaration breaks no restriction, and it is illegal exactly
% when a legal declaration obeys a requirement
g_fail(requirements, empty_breaks, R) :- not g_some(declared), violation(declared, R, _), R != {unmet}.
g_fail(requirements, requirement_unseen, R) :- not g_some(declared), obeyed(search, R), {kind}_requirement(R),
    not violation(declared, {unmet}, _).
% CR 508.1, 509.1: every rule a declaration breaks is cited
g_fail(citations, uncited, R) :- violation(declared, R, _), not g_cited(R).
g_cited(R) :- cites(R, _, _).
#show g_fail/3.
"""

# The second copy (property renaming): its declarations are the first copy's, renamed; its
# search world's declaration is the first's too, so that a verdict that differs between the
# copies differs for the same declarations.  A reason given in one copy and not the other, or
# a different number of times, fails; so does a violation of one or two objects without its
# renamed twin.
RENAMED_TEXT = {
    "attack": """
r_declared_attack(B, T) :- declared_attack(A, T), g_map(A, B).
:- attacks(search, A, T), g_map(A, B), g_map(T, U), not r_attacks(search, B, U).
:- r_attacks(search, B, U), g_map(A, B), g_map(T, U), not attacks(search, A, T).
:- band_member(search, A, C), g_map(A, B), g_map(C, D), not r_band_member(search, B, D).
:- r_band_member(search, B, D), g_map(A, B), g_map(C, D), not band_member(search, A, C).
""",
    "block": """
r_attacking(r(-S), P) :- attacking(o(S), P).
r_attacked_this_turn(r(-S)) :- attacked_this_turn(o(S)).
r_declared_block(B, D) :- declared_block(A, C), g_map(A, B), g_map(C, D).
:- blocks(search, A, C), g_map(A, B), g_map(C, D), not r_blocks(search, B, D).
:- r_blocks(search, B, D), g_map(A, B), g_map(C, D), not blocks(search, A, C).
""",
}
RENAMED_GOAL = """
% CR 613.6, 509.1, 508.1: a verdict doesn't depend on the objects' names or on the values of
% the timestamps (only on their order)
g_map(o(S), r(-S)) :- g_used(S).
g_map(P, P) :- player(P).
g_count(R, N) :- violation(declared, R, _), N = #count { X : violation(declared, R, X) }.
g_renamed_count(R, N) :- r_violation(declared, R, _), N = #count { X : r_violation(declared, R, X) }.
g_fail(renaming, R, count) :- g_count(R, N), not g_renamed_count(R, N).
g_fail(renaming, R, count) :- g_renamed_count(R, N), not g_count(R, N).
g_fail(renaming, R, (A,)) :- violation(declared, R, (A,)), g_map(A, B), not r_violation(declared, R, (B,)).
g_fail(renaming, R, (A,)) :- r_violation(declared, R, (B,)), g_map(A, B), not violation(declared, R, (A,)).
g_fail(renaming, R, (A, C)) :- violation(declared, R, (A, C)), g_map(A, B), g_map(C, D),
    not r_violation(declared, R, (B, D)).
g_fail(renaming, R, (A, C)) :- r_violation(declared, R, (B, D)), g_map(A, B), g_map(C, D),
    not violation(declared, R, (A, C)).
"""
for _kind in RENAMED_TEXT:
    RENAMED_TEXT[_kind] += RENAMED_GOAL


def declarations_program(
    pool: CardPool, cards: Sequence[str], max_permanents: int, kind: str, tapped: bool = True, renamed: bool = False
) -> tuple[list[Any], str, list[str]]:
    """The program of every position of 1 to ``max_permanents`` permanents of the cards at the
    declaration of ``kind`` (attackers or blockers) with every declaration (the module
    docstring says what; with ``renamed``, the second copy): the statements of the modules,
    the text of the rest, and where each integrity constraint is (``g_constraint(I)`` is the
    I-th)."""
    if kind not in KINDS:
        raise InputError(f"declarations of {kind!r}: not one of {', '.join(KINDS)}")
    if max_permanents < 1:
        raise InputError(f"a proof needs positions of at least one permanent, not {max_permanents}")
    pieces = elements(pool, cards, tapped)
    area = ATTACK_MODULES if kind == "attack" else BLOCK_MODULES
    modules = (*CHARACTERISTICS, *LAYERS, *PT, *dict.fromkeys(area), "combat/citations")
    parts = [
        (kind, (DECLARED,)),
        (kind, (SEARCH,)),
        (f"{kind}_search", ()),
        (f"{kind}_search_always", ()),
        (f"{kind}_judgement", ()),
        (f"{kind}_judgement_by_search", ()),
    ]
    constraints: list[str] = []
    statements = prefixed_statements(modules, "", constraints, "g_constraint", parts=parts)
    static = _static_facts(pool, cards, kind)
    second = ""
    if renamed:
        statements += prefixed_statements(modules, RENAMED, constraints, "g_constraint", facts=static, parts=parts)
        # the same permanents, their ids in the reverse order: r(-S)
        copy = COPY.format(p=RENAMED, o="r", timestamp=f"{SHIFT} + {SPREAD} * S")
        second = copy.replace("r(S)", "r(-S)").replace("r(T)", "r(-T)") + RENAMED_TEXT[kind]
    search_rules = [
        f"g_search_rule({i})." for i, where in enumerate(constraints, start=1) if f"combat/{kind}_search.lp" in where
    ]
    text = "\n".join(
        [
            static,
            element_facts(pool, pieces),
            GENERATOR.format(places=max_permanents),
            COPY.format(p="", o="o", timestamp="S"),
            DECLARED_TEXT[kind],
            *search_rules,
            GOAL.format(kind=kind, unmet=f"{kind}_requirement_unmet"),
            second,
        ]
    )
    return statements, text, constraints


def _static_facts(pool: CardPool, cards: Sequence[str], kind: str) -> str:
    """The facts of every position but its permanents, at the step of the declaration, with the
    texts of every card that may be a permanent."""
    _, spells = kinds(pool, cards)
    empty = Position((), (), tuple(spells)).state(ATTACK if kind == "attack" else BLOCK)
    if kind == "block":  # CR 508.8: the attackers are declared
        empty = empty.model_copy(update={"declared": ["attackers"], "attacked_this_combat": True})
    lines = [position_facts(empty, pool).facts]
    for card in dict.fromkeys(p.card for p in elements(pool, cards)):
        lines += pool.get(card).facts()
    return "\n".join(lines)


@dataclass(frozen=True)
class Failure:
    """A position and a declaration in it where a property fails, as the solver found it (a
    property of positions alone, ``sba``, has no declaration)."""

    property: str
    position: Position
    declaration: DeclareAttackers | DeclareBlockers | None
    problem: str

    def state(self) -> GameState:
        """The position at the declaration (blockers: with its attackers attacking), or in the
        main phase when there is none."""
        if self.declaration is None:
            return self.position.state(MAIN)
        if self.position.attackers is None:
            return self.position.state(ATTACK)
        return attacking_state(self.position)


def attacking_state(position: Position) -> GameState:
    """The position at the declaration of blockers with the creatures ``position.attackers``
    attacking the defending player, as the proof's program has it."""
    ids = position.ids()
    state = position.state(BLOCK).model_copy(update={"declared": ["attackers"], "attacked_this_combat": True})
    data = state.model_dump(mode="json", exclude_defaults=True)
    for player in data["players"]:
        for perm in player.get("battlefield", []):
            if ids.index(perm["id"]) in (position.attackers or ()):
                perm["attacking"] = PLAYERS[1]
                perm["attacked_this_turn"] = True
    return GameState.model_validate(data)


@dataclass
class Search:
    """What the search over every position of 1 to ``max_permanents`` permanents at the
    declaration of ``kind`` found: the failures (up to a limit, at most one for each chunk),
    the chunks done, whether every chunk was (``complete``)."""

    kind: str
    max_permanents: int
    properties: tuple[str, ...]
    chunks: int = 0
    chunks_done: int = 0
    failures: list[Failure] = field(default_factory=list)
    complete: bool = False
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def holds(self) -> bool:
        """No position and declaration where a property fails: the search complete, none found."""
        return self.complete and not self.failures

    @property
    def scope(self) -> str:
        """What the search goes over, as the command says it."""
        if self.kind in KINDS:
            return (
                f"at the declaration of {self.kind}ers over every position of 1 to {self.max_permanents} "
                "permanent(s) and every declaration"
            )
        return f"over every position of up to {self.max_permanents} permanent(s) and those it leads to"

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "max_permanents": self.max_permanents,
            "properties": list(self.properties),
            "holds": self.holds,
            "complete": self.complete,
            "chunks": self.chunks,
            "chunks_done": self.chunks_done,
            "failures": [
                {
                    "property": f.property,
                    "position": repr(f.position),
                    "declaration": None if f.declaration is None else f.declaration.model_dump(),
                    "problem": f.problem,
                }
                for f in self.failures
            ],
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


@dataclass(frozen=True)
class _Setup:
    pool: CardPool
    cards: tuple[str, ...]
    max_permanents: int
    tapped: bool
    kind: str
    properties: tuple[str, ...]


@functools.lru_cache(maxsize=1)
def _grounded(setup: _Setup) -> tuple[Enumeration, tuple[str, ...]]:
    """The program of the setup, grounded once in each process, its chunks searched one
    after another under assumptions: the solver keeps what it learnt from one chunk for the
    next.  Grounding each chunk on its own with its first permanent a fact, as the
    enumeration of the characteristics does, was measured slower: up to 3 permanents of the
    pool verify, with renaming, on two processes, 251 s against 51 s for the declarations of
    attackers, 318 s against 98 s for blockers (though the largest chunk alone, searched
    first, takes 20 s on its own grounding against 31 s under an assumption)."""
    statements, text, constraints = declarations_program(
        setup.pool, setup.cards, setup.max_permanents, setup.kind, setup.tapped, "renaming" in setup.properties
    )
    # an answer set is a failure of a property asked
    wanted = [f"g_property({p})." for p in (*setup.properties, "constraint")]
    goal = "g_wanted :- g_fail(P, _, _), g_property(P).\n:- not g_wanted."
    return Enumeration(statements, "\n".join([text, *wanted, goal])), tuple(constraints)


def _problem(prop: str, what: str, detail: object, constraints: Sequence[str], kind: str) -> str:
    verb = "attack" if kind == "attack" else "block"
    if prop == "constraint":
        return f"an integrity constraint would reject it: {constraints[int(what) - 1]}"
    if what == "empty_breaks":
        return f"the empty declaration of {verb}ers breaks a rule: {detail}"
    if what == "requirement_unseen":
        return f"a legal declaration of {verb}ers obeys {detail}, but the empty one is not judged to leave it unobeyed"
    if what == "uncited":
        return f"a declaration of {verb}ers breaks a rule for a reason that cites none: {detail}"
    shown = "as many times" if str(detail) == "count" else f"with its objects {detail} renamed"
    return f"a declaration of {verb}ers breaks the rule {what} in one copy but not {shown} in the renamed copy"


def _failure(
    atoms: list[tuple[str, tuple[object, ...]]],
    pieces: Sequence[Piece],
    spells: tuple[str, ...],
    setup: _Setup,
    constraints: Sequence[str],
) -> Failure:
    position, places = read_position(atoms, pieces, spells, setup.kind == "block")
    pairs: list[tuple[object, ...]] = []
    fails: list[tuple[str, str, object]] = []
    for name, args in atoms:
        if name in ("declared_attack", "declared_block"):
            pairs.append(args)
        elif name == "g_fail" and str(args[0]) in (*setup.properties, "constraint"):
            fails.append((str(args[0]), str(args[1]), args[2]))
    ids = position.ids()

    def named(term: object) -> str:  # o(S) -> the position's id
        return ids[places.index(int(str(term)[2:-1]))]

    declaration: DeclareAttackers | DeclareBlockers
    if setup.kind == "attack":
        declaration = DeclareAttackers(attackers={named(c): str(t) for c, t in pairs})
    else:
        blocks: dict[str, list[str]] = {}
        for b, a in sorted(pairs, key=str):
            blocks.setdefault(named(b), []).append(named(a))
        declaration = DeclareBlockers(blockers=blocks)
    prop, what, detail = sorted(fails, key=str)[0]
    problem = _problem(prop, what, detail, constraints, setup.kind)
    # an integrity constraint rejecting a position fails every property asked: the first names it
    return Failure(setup.properties[0] if prop == "constraint" else prop, position, declaration, problem)


def read_position(
    atoms: Sequence[tuple[str, tuple[object, ...]]], pieces: Sequence[Piece], spells: tuple[str, ...], attacking: bool
) -> tuple[Position, list[int]]:
    """The position an answer set of a program over many positions holds (``g_at``,
    ``g_attach``, with ``attacking`` ``g_attacking``), its permanents in the order of their
    places, and those places (``o(S)`` is the permanent at place S)."""
    at: dict[int, int] = {}
    attach: dict[int, int] = {}
    attackers: set[int] = set()
    for name, args in atoms:
        if name == "g_at":
            at[int(str(args[0]))] = int(str(args[1]))
        elif name == "g_attach":
            attach[int(str(args[0]))] = int(str(args[1]))
        elif name == "g_attacking":
            attackers.add(int(str(args[0])))
    places = sorted(at)
    position = Position(
        tuple(pieces[at[s]] for s in places),
        tuple(places.index(attach[s]) if s in attach else None for s in places),
        spells,
        frozenset(places.index(s) for s in attackers) if attacking else None,
    )
    return position, places


Atoms = list[tuple[str, tuple[object, ...]]]  # an answer set's shown atoms, as Enumeration.each gives them


def chunk_failure(
    wall_deadline: float | None,
    grounded: Callable[[], tuple[Enumeration, tuple[str, ...]]],
    assumption: tuple[str, tuple[object, ...]],
    read: Callable[[Atoms, Sequence[str]], Failure],
) -> tuple[Failure | None, float] | None:
    """One chunk of a search: the first answer set of the program (``grounded`` gives it, with
    where its integrity constraints are) with the atom ``assumption`` true, read as a failure
    (None when there is none), and the CPU seconds; None past the deadline (a time of the wall
    clock)."""
    began = time.process_time()
    if wall_deadline is not None and time.time() > wall_deadline:
        return None
    program, constraints = grounded()
    found: list[Failure] = []

    def model(atoms: Atoms) -> bool:
        found.append(read(atoms, constraints))
        return False

    program.each(model, [assumption])
    return (found[0] if found else None), time.process_time() - began


def _chunk(setup: _Setup, wall_deadline: float | None, first: int) -> tuple[Failure | None, float] | None:
    """The positions whose first permanent is element ``first``: a failure among them (None
    when there is none) and the CPU seconds; None past the deadline."""
    pieces = elements(setup.pool, setup.cards, setup.tapped)
    spells = tuple(kinds(setup.pool, setup.cards)[1])
    return chunk_failure(
        wall_deadline,
        functools.partial(_grounded, setup),
        ("g_at", (1, first)),
        lambda atoms, constraints: _failure(atoms, pieces, spells, setup, constraints),
    )


def prove_declarations(
    cards: Sequence[str],
    *,
    kind: str,
    max_permanents: int,
    properties: Sequence[str] = DECLARATION_PROPERTIES,
    tapped: bool = True,
    pool: CardPool | None = None,
    limit: int = 20,
    backend: Backend | None = None,
    deadline: float | None = None,
    on_progress: Callable[[Search], None] | None = None,
) -> Search:
    """Search every position of 1 to ``max_permanents`` permanents of the cards, with every
    declaration of ``kind``, for one where a property fails (the module docstring says
    what), one chunk of positions after another or spread over processes or a Ray cluster
    (``backend``).  ``deadline`` (a :func:`time.monotonic` value) stops it (``complete``
    False); ``on_progress`` is called after each chunk."""
    unknown = [p for p in properties if p not in DECLARATION_PROPERTIES]
    if unknown:
        raise InputError(f"no proof of {unknown[0]!r}: one of {', '.join(DECLARATION_PROPERTIES)}")
    if kind not in KINDS:
        raise InputError(f"declarations of {kind!r}: not one of {', '.join(KINDS)}")
    if max_permanents < 1:
        raise InputError(f"a proof needs positions of at least one permanent, not {max_permanents}")
    pool = pool or CardPool.default()
    pieces = elements(pool, cards, tapped)
    out = Search(kind, max_permanents, tuple(properties), chunks=len(pieces))
    setup = _Setup(pool, tuple(cards), max_permanents, tapped, kind, tuple(properties))
    wall_deadline = None if deadline is None else time.time() + (deadline - time.monotonic())
    work = functools.partial(_chunk, setup, wall_deadline)
    return search_chunks(out, work, backend, limit, on_progress, _grounded.cache_clear)


def search_chunks(
    out: Search,
    work: Callable[[int], tuple[Failure | None, float] | None],
    backend: Backend | None,
    limit: int,
    on_progress: Callable[[Search], None] | None,
    done: Callable[[], None],
) -> Search:
    """Search the chunks 0 to ``out.chunks`` - 1 with ``work`` (a chunk's failure or None,
    and its CPU seconds; None past the deadline), one after another or spread over processes
    or a Ray cluster (``backend``), into ``out``: up to ``limit`` failures, the chunks done,
    the seconds; ``complete`` when every chunk was.  ``done`` is called at the end (the
    groundings of this process dropped)."""
    started, cpu = time.monotonic(), time.process_time()
    elsewhere = backend is not None and (backend.kind == "ray" or (backend.jobs or 1) > 1)
    workers = 0.0
    results = sweep(work, range(out.chunks), backend)
    try:
        for result in results:
            if result is None:
                return out
            failure, seconds = result
            workers += seconds if elsewhere else 0.0
            out.chunks_done += 1
            if failure is not None and len(out.failures) < limit:
                out.failures.append(failure)
            out.seconds, out.cpu_seconds = time.monotonic() - started, time.process_time() - cpu + workers
            if on_progress is not None:
                on_progress(out)
        out.complete = True
        return out
    finally:
        results.close()
        done()
        out.seconds, out.cpu_seconds = time.monotonic() - started, time.process_time() - cpu + workers


def uncited_rules(rules_text: frozenset[str]) -> list[str]:
    """The rules combat/citations.lp cites that the rules text doesn't have (none when the
    text is empty: not checked)."""
    if not rules_text:
        return []
    cited = {rule for pair in citations().values() for rule in pair}
    return sorted(r for r in cited if r not in rules_text)
