"""The clingo wrapper: the only module of the project that talks to clingo.

Rule modules (``asp_rules/**/*.lp``) are parsed once per process and kept as syntax trees;
each query builds a fresh ``clingo.Control`` from them, adds the facts of a position,
grounds the program parts it needs and solves.  Warnings are on: a warning from a rule
module (an undefined atom, a rule that can never fire because of a misspelling) is raised
as :class:`RuleModuleError`, as is any grounding or solving error, with the module named.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import clingo
import clingo.ast

from bridge.errors import RuleModuleError
from bridge.paths import rules_dir

__all__ = ["Solution", "Session", "solve", "module_statements", "symbol"]


@functools.cache
def module_statements(name: str) -> tuple[clingo.ast.AST, ...]:
    """Parse the rule module ``asp_rules/<name>.lp`` once and return its statements."""
    path = rules_dir() / f"{name}.lp"
    if not path.is_file():
        raise RuleModuleError(f"rule module {name!r} not found at {path}")
    statements: list[clingo.ast.AST] = []
    messages: list[str] = []
    try:
        clingo.ast.parse_files([str(path)], statements.append,
                               logger=lambda code, msg: messages.append(msg))
    except RuntimeError as exc:
        raise RuleModuleError(f"rule module {name!r} does not parse: {'; '.join(messages) or exc}") from None
    return tuple(statements)


def symbol(value: object) -> clingo.Symbol:
    """Turn a Python value (str, int, tuple) into a clingo symbol; strings stay strings."""
    if isinstance(value, clingo.Symbol):
        return value
    if isinstance(value, bool):
        raise TypeError("booleans have no clingo symbol")
    if isinstance(value, int):
        return clingo.Number(value)
    if isinstance(value, str):
        return clingo.String(value)
    if isinstance(value, tuple):
        return clingo.Tuple_([symbol(v) for v in value])
    raise TypeError(f"no clingo symbol for {value!r}")


def _python(sym: clingo.Symbol) -> object:
    if sym.type == clingo.SymbolType.String:
        return sym.string
    if sym.type == clingo.SymbolType.Number:
        return sym.number
    return str(sym)


@dataclass(frozen=True)
class Solution:
    """What one solve call found.

    ``models`` holds the shown atoms of each answer set reported (for optimization, the
    optimal ones only when ``optimal_only`` was asked); ``satisfiable`` tells whether any
    answer set exists.
    """

    satisfiable: bool
    models: tuple[frozenset[clingo.Symbol], ...] = field(default_factory=tuple)

    @property
    def model(self) -> frozenset[clingo.Symbol]:
        """The last answer set reported (the optimal one for an optimization)."""
        if not self.models:
            raise RuleModuleError("the rules have no answer set for this position")
        return self.models[-1]


_IGNORED_WARNING = re.compile(r"global variable in tuple of aggregate element")


@dataclass
class Stats:
    """Where clingo's time goes (for benchmarks): calls and seconds spent adding the rule
    modules and facts (parsing), grounding and solving."""

    sessions: int = 0
    solves: int = 0
    add_seconds: float = 0.0
    ground_seconds: float = 0.0
    solve_seconds: float = 0.0

    def reset(self) -> None:
        self.sessions = self.solves = 0
        self.add_seconds = self.ground_seconds = self.solve_seconds = 0.0


STATS = Stats()


class Session:
    """One grounded program: a position's facts with the rule modules a question needs.

    Ground once, then :meth:`solve` as often as needed, with assumptions on external atoms
    (many questions about one position).  More program parts can be grounded later with
    :meth:`ground`.
    """

    def __init__(self, modules: Sequence[str], facts: str, parts: Iterable[tuple[str, Sequence[object]]] = (),
                 arguments: Sequence[str] = ()) -> None:
        self._modules = tuple(modules)
        self._warnings: list[str] = []
        started = time.perf_counter()
        self._control = clingo.Control(["--warn=all", *arguments], logger=self._log, message_limit=50)
        try:
            self._add(self._modules)
            self._control.add("base", [], facts)
        except RuntimeError as exc:
            raise self._error("the position's facts do not parse", exc) from None
        STATS.sessions += 1
        STATS.add_seconds += time.perf_counter() - started
        self.ground([("base", ()), *parts])

    def _add(self, modules: Sequence[str]) -> None:
        with clingo.ast.ProgramBuilder(self._control) as builder:
            for name in modules:
                for statement in module_statements(name):
                    builder.add(statement)

    def add_modules(self, modules: Sequence[str]) -> None:
        """Add more rule modules; ground their parts with :meth:`ground`."""
        self._add(modules)
        self._modules += tuple(modules)

    def _log(self, code: clingo.MessageCode, message: str) -> None:
        if not _IGNORED_WARNING.search(message):
            self._warnings.append(message.strip())

    def _error(self, what: str, exc: Exception | None = None) -> RuleModuleError:
        detail = "; ".join(self._warnings) or (str(exc) if exc else "")
        return RuleModuleError(f"{what} (modules {', '.join(self._modules)}): {detail}")

    def _check_warnings(self, what: str) -> None:
        if self._warnings:
            raise self._error(what)

    def ground(self, parts: Iterable[tuple[str, Sequence[object]]], facts: str | None = None) -> None:
        """Ground program parts (name, arguments); optionally add facts to a new part first."""
        parts = list(parts)
        if facts is not None:
            name = f"_facts_{id(facts)}"
            self._control.add(name, [], facts)
            parts.append((name, ()))
        started = time.perf_counter()
        try:
            self._control.ground([(name, [symbol(a) for a in args]) for name, args in parts])
        except RuntimeError as exc:
            raise self._error("grounding failed", exc) from None
        STATS.ground_seconds += time.perf_counter() - started
        self._check_warnings("grounding warned")

    def solve(self, assumptions: Iterable[clingo.Symbol] = (), *, literals: Sequence[int] = (), models: int = 0,
              optimal_only: bool = False, opt_mode: str | None = None) -> Solution:
        """Solve.  ``models`` = 0 finds all answer sets, or for an optimization each better one up
        to the optimum.  Assumptions set atoms (externals) true."""
        config = self._control.configuration.solve
        config.models = str(models)
        if opt_mode is not None:
            config.opt_mode = opt_mode
        found: list[frozenset[clingo.Symbol]] = []

        def on_model(model: clingo.Model) -> None:
            if optimal_only and model.cost and not model.optimality_proven:
                return
            found.append(frozenset(model.symbols(shown=True)))

        started = time.perf_counter()
        try:
            fixed: list[object] = [(a, True) for a in assumptions]
            fixed.extend(literals)
            result = self._control.solve(assumptions=fixed, on_model=on_model)  # type: ignore[arg-type]
        except RuntimeError as exc:
            raise self._error("solving failed", exc) from None
        STATS.solves += 1
        STATS.solve_seconds += time.perf_counter() - started
        self._check_warnings("solving warned")
        return Solution(satisfiable=bool(result.satisfiable), models=tuple(found))

    def free_externals(self, name: str, arity: int) -> dict[tuple[object, ...], int]:
        """Make the external atoms of a predicate free (neither true nor false) and return
        their program literals by arguments, to be fixed per solve with ``literals``."""
        out: dict[tuple[object, ...], int] = {}
        for atom in self._control.symbolic_atoms.by_signature(name, arity):
            if atom.is_external:
                self._control.assign_external(atom.literal, None)
                out[tuple(_python(a) for a in atom.symbol.arguments)] = atom.literal
        return out

    def count(self, *, optimal: bool) -> int:
        """Count the answer sets (the optimal ones when ``optimal``) without keeping them."""
        config = self._control.configuration.solve
        config.models = "0"
        config.opt_mode = "optN" if optimal else "enum"
        total = 0

        def on_model(model: clingo.Model) -> None:
            nonlocal total
            # With optN, models met on the way to the optimum come first and the first
            # optimal one comes twice; only proven ones count.  Without an optimization
            # (no cost) every model is optimal.
            if not optimal or not model.cost or model.optimality_proven:
                total += 1

        try:
            self._control.solve(on_model=on_model)
        except RuntimeError as exc:
            raise self._error("solving failed", exc) from None
        self._check_warnings("solving warned")
        return total


def solve(modules: Sequence[str], facts: str, parts: Iterable[tuple[str, Sequence[object]]] = (),
          **options: object) -> Solution:
    """Ground ``modules`` with ``facts`` and the given parts, and solve once."""
    return Session(modules, facts, parts).solve(**options)  # type: ignore[arg-type]
