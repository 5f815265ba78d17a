"""Proving that state-based actions reach a fixpoint over every small position at once, by one
search of the solver.

CR 704.3: whenever a player would receive priority, every state-based action that applies is
performed at once, and again until none applies.  That this stops, within a bound of rounds,
follows from one property of each round, which the solver proves here for every position: every
state-based action that applies changes the position by taking something away, so that a
measure of the position falls.  The measure is the number of permanents, of attachments, of
counters, of regeneration shields and of players still in the game: a permanent put into a
graveyard or destroyed leaves (and what is attached to it is attached to nothing after it), an
unattached Aura or Equipment was attached, counters cancelled or removed were there, a
regenerated creature uses a shield, a player who loses was in the game, a token or copy that
ceases to exist was somewhere.  Performing state-based actions adds nothing the measure counts,
so the rounds from a position stop within the measure, at most twice the permanents plus the
two players, far below the engine's bound (:data:`bridge.engine.sba.LOOP_ROUNDS`), and a loop of
mandatory state-based actions (104.4b) can't arise.

For that argument to hold from every position of up to K permanents, the positions searched are
closed under performing state-based actions: any places 1 to K filled (a permanent keeps its
place, its id ``o(S)`` and its timestamp S when others leave), none at all, and every Aura
attached to a creature or to nothing (the creature it enchanted left).  That is every position
of :mod:`bridge.play.symbolic` and more.  The program holds the rules the engine asks about
state-based actions (the characteristics of every layer, replacement, state-based actions,
regeneration, delayed triggers, the turn's modules) on those positions, and the solver looks
for one where a state-based action applies that takes nothing away, or an integrity
constraint of the modules would reject the position (each is made an atom).  When there is
none (no answer set), the property holds: a proof.

What the proof takes from elsewhere: the engine performs each action as the rules name it and
adds nothing (:func:`bridge.engine.sba.apply_sba`, which the scenarios with state-based actions
and the position-by-position check of random positions exercise); and every position has an
answer set (the proof of the characteristics, an enumeration, shows one for each position of
:mod:`bridge.play.symbolic`; for the positions this search adds, it rests on the modules
having no choice rule).

>>> search = prove_sba(["Grizzly Bears", "Pacifism"], max_permanents=2)
>>> search.holds, search.chunks
(True, 7)
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from bridge.engine.board import CHARACTERISTICS, LAYERS, PT, SBA, TURN
from bridge.engine.solver import Enumeration, prefixed_statements
from bridge.model.cards import CardPool
from bridge.model.errors import InputError
from bridge.play.positions import Piece, kinds
from bridge.play.sweep import Backend
from bridge.play.symbolic import COPY, ORDER, element_facts, elements, static_facts
from bridge.play.symbolic_combat import Atoms, Failure, Search, chunk_failure, read_position, search_chunks

__all__ = ["MODULES", "prove_sba", "sba_program"]

# The modules of the engine's question about state-based actions (bridge/engine/board.py,
# Board._turn_session), every layer's.
MODULES = tuple(dict.fromkeys((*CHARACTERISTICS, *LAYERS, *PT, "replacement", *SBA, *TURN)))

# The positions, closed under performing state-based actions: element E (a card, a side,
# tapped or not) at any of the places 1 to K, those filled in the order of the elements; an
# Aura attached to a creature or to nothing; an Equipment to nothing or a creature on its side.
# A chunk holds the positions whose first filled place has one element; the last chunk, the
# position without permanents.
GENERATOR = (
    """
g_slot(1..{places}).
{{ g_at(S, E) : g_elem(E, _, _) }} 1 :- g_slot(S).
g_used(S) :- g_at(S, _).
"""
    + ORDER
    + """% CR 303.4a, 301.7a, 704.5n: an Aura enchants a creature, or nothing once the creature left;
% an Equipment is unattached or equips a creature of its controller's
g_creature_at(S) :- g_at(S, E), g_elem(E, C, _), g_creature(C).
{{ g_attach(S, T) : g_creature_at(T) }} 1 :- g_at(S, E), g_elem(E, C, _), g_aura(C).
{{ g_attach(S, T) : g_creature_at(T), g_at(T, F), g_elem(F, _, P) }} 1 :- g_at(S, E), g_elem(E, C, P), g_equipment(C).
g_before(S) :- g_used(T), g_slot(S), T < S.
g_first(E) :- g_at(S, E), not g_before(S).
g_any :- g_used(_).
g_first({empty}) :- not g_any.
#show g_at/2.
#show g_attach/2.
"""
)

# What fails: a state-based action that applies and takes nothing away (g_progress names what
# each takes away), or an integrity constraint's body (g_constraint, made by
# prefixed_statements).  An answer set is a failure.
GOAL = """
% CR 704.3, 704.5: each state-based action that applies takes away something the position has
g_progress(to_graveyard(O)) :- sba(to_graveyard(O), _), permanent(O).
g_progress(destroy(O)) :- sba(destroy(O), _), permanent(O).
g_progress(unattach(O)) :- sba(unattach(O), _), attached(O, _).
g_progress(regenerate(O)) :- sba(regenerate(O), _), regeneration_shields(O, N), N > 0.
g_progress(cancel_counters(O, N)) :- sba(cancel_counters(O, N), _), N > 0,
    counters(O, "+1/+1", A), A >= N, counters(O, "-1/-1", B), B >= N.
g_progress(remove_counters(O, K, N)) :- sba(remove_counters(O, K, N), _), counters(O, K, M), M > N.
g_progress(loses(P)) :- sba(loses(P), _), player(P), not lost(P).
g_progress(cease_to_exist(O)) :- sba(cease_to_exist(O), _), token_in_zone(O, _).
g_progress(cease_to_exist(O)) :- sba(cease_to_exist(O), _), card_copy_in_zone(O, _).
g_progress(cease_to_exist(O)) :- sba(cease_to_exist(O), _), phased_out(O, _, _).
g_fail(sba, no_progress, A) :- sba(A, _), not g_progress(A).
g_fail(constraint, I, none) :- g_constraint(I).
g_failing :- g_fail(_, _, _).
:- not g_failing.
#show g_fail/3.
"""


def sba_program(
    pool: CardPool, cards: Sequence[str], max_permanents: int, tapped: bool = True
) -> tuple[list[Any], str, list[str]]:
    """The program whose answer sets are the positions of up to ``max_permanents`` permanents
    of the cards (the module docstring says which) where a state-based action takes nothing
    away: the statements of the modules, the text of the rest, and where each integrity
    constraint is (``g_constraint(I)`` is the I-th)."""
    if max_permanents < 1:
        raise InputError(f"a proof needs positions of at least one permanent, not {max_permanents}")
    pieces = elements(pool, cards, tapped)
    constraints: list[str] = []
    statements = prefixed_statements(MODULES, "", constraints, "g_constraint")
    text = "\n".join(
        [
            static_facts(pool, cards, kinds(pool, cards)[1]),
            element_facts(pool, pieces),
            GENERATOR.format(places=max_permanents, empty=len(pieces)),
            COPY.format(p="", o="o", timestamp="S"),
            GOAL,
        ]
    )
    return statements, text, constraints


@dataclass(frozen=True)
class _Setup:
    pool: CardPool
    cards: tuple[str, ...]
    max_permanents: int
    tapped: bool


@functools.lru_cache(maxsize=1)
def _grounded(setup: _Setup) -> tuple[Enumeration, tuple[str, ...]]:
    """The program of the setup, grounded once in each process, its chunks searched one after
    another under assumptions (as the searches of declarations are)."""
    statements, text, constraints = sba_program(setup.pool, setup.cards, setup.max_permanents, setup.tapped)
    return Enumeration(statements, text), tuple(constraints)


def _problem(what: str, detail: object, constraints: Sequence[str]) -> str:
    if what == "no_progress":
        return f"the state-based action {detail} applies but takes nothing away: they may never stop"
    return f"an integrity constraint would reject it: {constraints[int(what) - 1]}"


def _failure(atoms: Atoms, pieces: Sequence[Piece], spells: tuple[str, ...], constraints: Sequence[str]) -> Failure:
    position, places = read_position(atoms, pieces, spells, False)
    ids = position.ids()
    fails = sorted((str(args[1]), str(args[2])) for name, args in atoms if name == "g_fail")
    what, detail = fails[0]
    for s in places:  # o(S) -> the position's id
        detail = detail.replace(f"o({s})", ids[places.index(s)])
    return Failure("sba", position, None, _problem(what, detail, constraints))


def _chunk(setup: _Setup, wall_deadline: float | None, first: int) -> tuple[Failure | None, float] | None:
    """The positions whose first permanent is element ``first`` (past the last element: the
    position without permanents): a failure among them (None when there is none) and the CPU
    seconds; None past the deadline."""
    pieces = elements(setup.pool, setup.cards, setup.tapped)
    spells = tuple(kinds(setup.pool, setup.cards)[1])
    return chunk_failure(
        wall_deadline,
        functools.partial(_grounded, setup),
        ("g_first", (first,)),
        lambda atoms, constraints: _failure(atoms, pieces, spells, constraints),
    )


def prove_sba(
    cards: Sequence[str],
    *,
    max_permanents: int,
    tapped: bool = True,
    pool: CardPool | None = None,
    limit: int = 20,
    backend: Backend | None = None,
    deadline: float | None = None,
    on_progress: Callable[[Search], None] | None = None,
) -> Search:
    """Search every position of up to ``max_permanents`` permanents of the cards (and those
    state-based actions lead to) for one where a state-based action takes nothing away (the
    module docstring says why that proves they stop), one chunk of positions after another
    or spread over processes or a Ray cluster (``backend``).  ``deadline`` (a
    :func:`time.monotonic` value) stops it (``complete`` False); ``on_progress`` is called
    after each chunk."""
    if max_permanents < 1:
        raise InputError(f"a proof needs positions of at least one permanent, not {max_permanents}")
    pool = pool or CardPool.default()
    pieces = elements(pool, cards, tapped)
    out = Search("sba", max_permanents, ("sba",), chunks=len(pieces) + 1)
    setup = _Setup(pool, tuple(cards), max_permanents, tapped)
    wall_deadline = None if deadline is None else time.time() + (deadline - time.monotonic())
    work = functools.partial(_chunk, setup, wall_deadline)
    return search_chunks(out, work, backend, limit, on_progress, _grounded.cache_clear)
