"""The clingo wrapper: the only module of the project that talks to clingo.

Rule modules (``asp_rules/**/*.lp``) are parsed once per process and kept as syntax trees
(what pruning needs of each statement is also kept on disk, :func:`analysis_dir`);
each query builds a fresh ``clingo.Control`` from them, adds the facts of a position,
grounds the program parts it needs and solves.  Warnings are on: a warning from a rule
module (an undefined atom, a rule that can never fire because of a misspelling) is raised
as :class:`RuleModuleError`, as is any grounding or solving error, with the module named.

Grounding costs some 12 microseconds for every rule even when nothing matches it, so a
session leaves out the rules that can't fire on its facts (:func:`live_statements`): a rule
one of whose positive body atoms no fact and no rule that can fire could give, and a normal
rule whose head no kept statement names (:func:`_needed`; while what goes is stratified on
its own).  Clingo gets only the facts some rule kept reads, and the texts of only the cards
that a read fact or a kept rule names (the texts of cards only in hands, graveyards,
libraries or on the stack are marked in the facts, ``TEXTS_BEGIN``).  The answer is the
same (``CHECK_PRUNING`` checks it); the modules are checked for warnings once, whole.
:meth:`Session.shared` and :func:`answer` give a session or an answer again for a question
whose program (rules kept, facts read) is one asked before; every such store of kept answers
registers with :func:`kept`, and :func:`forget` empties them all (benchmarks timing a
position met for the first time call it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import hashlib
import json
import os
import re
import time
import weakref
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TypedDict, TypeVar, Unpack

import clingo
import clingo.ast

from bridge.model.cards import TEXTS_BEGIN, TEXTS_END
from bridge.model.errors import RuleModuleError
from bridge.model.paths import rules_dir

try:  # clingo's C functions, as its Python layer calls them (cffi)
    from clingo._internal import _ffi as _FFI
    from clingo._internal import _lib as _LIB
except ImportError:  # pragma: no cover - another build of clingo: its Python layer throughout
    _FFI = _LIB = None

__all__ = [
    "KEEP",
    "Enumeration",
    "Session",
    "Solution",
    "answer",
    "atoms",
    "collect_less",
    "enumerate_answers",
    "fact_words",
    "forget",
    "keeping_more",
    "kept",
    "lines_without",
    "live_statements",
    "make_room",
    "module_statements",
    "prefixed_statements",
    "solve",
    "symbol",
    "unread_inputs",
]


def collect_less() -> None:
    """Tune Python's cyclic garbage collector for a process that asks many questions: each
    makes and drops thousands of small objects (symbols, answers, facts), none of them in
    cycles that matter, while the rule modules' syntax trees, the cards and the caches live as
    long as the process.  What exists now goes to the permanent generation (never traversed
    again), and the youngest generation is collected after 100,000 allocations instead of 700.
    For commands and benchmarks (some 10% of a self-play game's CPU time); a library user's
    program keeps its own settings unless it calls this.  Once per process: garbage is
    collected first, so that only live objects are frozen (frozen garbage would never be
    freed)."""
    if gc.get_freeze_count():
        return
    gc.collect()
    gc.freeze()
    gc.set_threshold(100_000, 20, 100)


@dataclass
class Keep:
    """How many groundings (clingo controls, some 0.5 MB each) and how many positions' facts
    and answers the caches of a process hold for questions asked again (:data:`KEEP`)."""

    groundings: int = 16
    positions: int = 64


KEEP = Keep()


@contextlib.contextmanager
def keeping_more(groundings: int = 128, positions: int = 512) -> Iterator[None]:
    """Keep more groundings and positions while a search runs.  A search comes back to the
    positions it left (a line tried, then another from the same position): with 16 groundings
    kept, half of those the bundled puzzles' searches grounded had been grounded before, and
    with 128 a search of two turns takes 18% fewer instructions; a game played on, whose
    positions don't come back, would only hold more memory (some 120 MB more for 128).  The
    caches shrink back as they are next used."""
    before = dataclasses.replace(KEEP)
    KEEP.groundings, KEEP.positions = max(groundings, before.groundings), max(positions, before.positions)
    try:
        yield
    finally:
        KEEP.groundings, KEEP.positions = before.groundings, before.positions


def make_room(cache: dict[Any, Any], size: int) -> None:
    """Drop the oldest entries of a cache until one more fits in ``size``."""
    while cache and len(cache) >= size:
        del cache[next(iter(cache))]


_FORGET: list[Callable[[], None]] = []
_Cache = TypeVar("_Cache", bound=dict[Any, Any])


def kept(cache: _Cache) -> _Cache:
    """Register a module's dictionary of answers kept for questions asked again (sessions,
    answer sets, facts of positions seen): :func:`forget` empties it."""
    _FORGET.append(cache.clear)
    return cache


def forget() -> None:
    """Forget every answer, session and position kept for questions asked again, so that the
    next question is worked out from its facts (the parsed rule modules and what pruning
    knows of them are kept: they don't depend on positions; so are the facts written for a
    state object met before, bridge/engine/facts.py, which a copy of the state doesn't meet).
    For benchmarks that time a position met for the first time."""
    for clear in _FORGET:
        clear()


@functools.cache
def module_statements(name: str) -> tuple[clingo.ast.AST, ...]:
    """Parse the rule module ``asp_rules/<name>.lp`` once and return its statements (without
    its comments)."""
    path = rules_dir() / f"{name}.lp"
    if not path.is_file():
        raise RuleModuleError(f"rule module {name!r} not found at {path}")
    statements: list[clingo.ast.AST] = []
    messages: list[str] = []
    try:
        clingo.ast.parse_files([str(path)], statements.append, logger=lambda code, msg: messages.append(msg))
    except RuntimeError as exc:
        raise RuleModuleError(f"rule module {name!r} does not parse: {'; '.join(messages) or exc}") from None
    return tuple(s for s in statements if s.ast_type != clingo.ast.ASTType.Comment)


Signature = tuple[str, int]
_T = clingo.ast.ASTType


class _Rule(NamedTuple):
    """What pruning needs of a rule: the signatures it may derive, those of its positive
    body atoms (each must be true for the rule to fire) with the names (constants and
    function symbols) written inside each, and every name it may put into a derived atom."""

    heads: tuple[Signature, ...]
    needs: tuple[tuple[Signature, frozenset[str]], ...]
    makes: frozenset[str]
    # a normal rule (one atom in its head): its head's predicates, when no other statement
    # needs them, can be left out (see _needed); the names in its body outside positive atoms
    normal: bool = False
    negated: frozenset[str] = frozenset()


def _signatures(term: clingo.ast.AST) -> list[Signature | None]:
    """The predicates of the term of a symbolic atom (several for a pool); None for one that
    is not a plain predicate (classical negation)."""
    if term.ast_type == _T.Pool:
        return [sig for alternative in term.arguments for sig in _signatures(alternative)]
    if term.ast_type == _T.Function and not term.external:
        return [(term.name, len(term.arguments))]
    if (
        term.ast_type == _T.SymbolicTerm
        and term.symbol.type == clingo.SymbolType.Function
        and term.symbol.name
        and not term.symbol.negative
    ):
        return [(term.symbol.name, len(term.symbol.arguments))]
    return [None]


def _head_signatures(head: clingo.ast.AST) -> list[Signature | None]:
    kind = head.ast_type
    if kind == _T.Literal:
        if head.atom.ast_type == _T.BooleanConstant:
            return []
        if head.atom.ast_type == _T.SymbolicAtom and head.sign == clingo.ast.Sign.NoSign:
            return _signatures(head.atom.symbol)
        return [None]
    if kind in (_T.Aggregate, _T.Disjunction):
        return [sig for element in head.elements for sig in _head_signatures(element.literal)]
    if kind == _T.HeadAggregate:
        return [sig for element in head.elements for sig in _head_signatures(element.condition.literal)]
    return [None]


def _symbol_names(symbol: clingo.Symbol, out: set[str]) -> None:
    if symbol.type == clingo.SymbolType.Function:
        if symbol.name:
            out.add(symbol.name)
        for argument in symbol.arguments:
            _symbol_names(argument, out)


def _names(node: object, out: set[str]) -> set[str]:
    """The constants and function symbols written in a part of a statement."""
    if isinstance(node, clingo.ast.AST):
        if node.ast_type == _T.SymbolicTerm:
            _symbol_names(node.symbol, out)
        else:
            if node.ast_type == _T.Function and node.name:
                out.add(node.name)
            for key in node.child_keys:
                _names(getattr(node, key), out)
    elif isinstance(node, (list, tuple, clingo.ast.ASTSequence)):
        for item in node:
            _names(item, out)
    return out


def _rule(statement: clingo.ast.AST, parameters: frozenset[str] = frozenset()) -> _Rule | None:
    """A rule as pruning sees it (an ``#external`` declaration is a rule too); None for a
    statement that derives nothing and is always kept.  ``parameters``: the names that stand
    for the arguments of the program part the rule is in (they are replaced when the part
    is grounded)."""
    if statement.ast_type == _T.External:
        heads = _signatures(statement.atom.symbol)
        makes = _names(statement.atom, set())
    elif statement.ast_type == _T.Rule:
        heads = _head_signatures(statement.head)
        makes = _names(statement.head, set())
    elif statement.ast_type == _T.Definition:  # the constant's name stands for its value
        return _Rule((), (), frozenset(_names(statement.value, {statement.name})))
    else:
        return None
    if any(h is None for h in heads):
        raise RuleModuleError(f"can't tell what this rule derives: {statement}")
    needs: list[tuple[Signature, frozenset[str]]] = []
    negated: set[str] = set()
    for literal in statement.body:
        if (
            literal.ast_type == _T.Literal
            and literal.sign == clingo.ast.Sign.NoSign
            and literal.atom.ast_type == _T.SymbolicAtom
        ):
            sigs = _signatures(literal.atom.symbol)
            if len(sigs) == 1 and sigs[0] is not None:
                words: set[str] = set()
                if literal.atom.symbol.ast_type == _T.Function:
                    _names(literal.atom.symbol.arguments, words)
                needs.append((sigs[0], frozenset(words - parameters)))
                continue
        elif literal.ast_type == _T.Literal and literal.atom.ast_type == _T.Comparison:
            _names(literal.atom, makes)  # X = c binds X to c
        _names(literal, negated)
    normal = (
        statement.ast_type == _T.Rule
        and statement.head.ast_type == _T.Literal
        and statement.head.sign == clingo.ast.Sign.NoSign
        and statement.head.atom.ast_type == _T.SymbolicAtom
        and len(heads) == 1
    )
    return _Rule(tuple(h for h in heads if h is not None), tuple(needs), frozenset(makes), normal, frozenset(negated))


def _analyse(name: str) -> tuple[tuple[_Rule | None, ...], tuple[frozenset[str], ...]]:
    """What pruning needs of each statement of a module: the rule (:func:`_rule`) and the
    names it writes (predicates, constants, function symbols)."""
    rules: list[_Rule | None] = []
    names: list[frozenset[str]] = []
    parameters: frozenset[str] = frozenset()
    for statement in module_statements(name):
        if statement.ast_type == _T.Program:
            parameters = frozenset(p.name for p in statement.parameters)
        rules.append(_rule(statement, parameters))
        names.append(_statement_names(statement))
    return tuple(rules), tuple(names)


def _statement_names(statement: clingo.ast.AST) -> frozenset[str]:
    """The names a statement writes (predicates, constants, function symbols)."""
    written = _names(statement, set())
    if statement.ast_type == _T.ShowSignature:
        written.add(statement.name)
    return frozenset(written)


# The analysis walks each statement's syntax tree in Python (most of a process's start); it is
# kept on disk by the module's text, and read again by the next process.  A file that can't be
# read or written only means the analysis is done again.
_ANALYSIS_FORMAT = 2


def analysis_dir() -> Path:
    """Where the analyses of the rule modules are kept (``$XDG_CACHE_HOME/mtgasp``, by default
    ``~/.cache/mtgasp``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mtgasp"


def _rule_data(rule: _Rule | None) -> object:
    if rule is None:
        return None
    return [
        [list(h) for h in rule.heads],
        [[list(sig), sorted(words)] for sig, words in rule.needs],
        sorted(rule.makes),
        rule.normal,
        sorted(rule.negated),
    ]


def _rule_from_data(data: Any) -> _Rule | None:
    if data is None:
        return None
    heads, needs, makes, normal, negated = data
    return _Rule(
        tuple((str(n), int(a)) for n, a in heads),
        tuple(((str(sig[0]), int(sig[1])), frozenset(map(str, words))) for sig, words in needs),
        frozenset(map(str, makes)),
        bool(normal),
        frozenset(map(str, negated)),
    )


@functools.cache
def _module_analysis(name: str) -> tuple[tuple[_Rule | None, ...], tuple[frozenset[str], ...]]:
    count = len(module_statements(name))
    text = (rules_dir() / f"{name}.lp").read_bytes()
    digest = hashlib.sha256(f"{_ANALYSIS_FORMAT} {clingo.__version__}\n".encode() + text).hexdigest()[:40]
    file = analysis_dir() / f"analysis-{digest}.json"
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        rules = tuple(_rule_from_data(r) for r in data["rules"])
        names = tuple(frozenset(map(str, n)) for n in data["names"])
        if len(rules) == len(names) == count:
            return rules, names
    except (OSError, ValueError, KeyError, TypeError):
        pass
    rules, names = _analyse(name)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        partial = file.with_name(f"{file.name}.{os.getpid()}.tmp")
        partial.write_text(
            json.dumps({"module": name, "rules": [_rule_data(r) for r in rules], "names": [sorted(n) for n in names]}),
            encoding="utf-8",
        )
        os.replace(partial, file)
    except OSError:
        pass
    return rules, names


def _module_rules(name: str) -> tuple[_Rule | None, ...]:
    return _module_analysis(name)[0]


def _module_names(name: str) -> tuple[frozenset[str], ...]:
    """The names each statement of a module writes (predicates, constants, function symbols)."""
    return _module_analysis(name)[1]


class _Program(NamedTuple):
    statements: tuple[clingo.ast.AST, ...]
    declarations: tuple[bool, ...]  # per statement: is it a ``#defined`` declaration
    names: tuple[frozenset[str], ...]  # per statement: the names it writes
    rules: tuple[_Rule | None, ...]
    needs: tuple[tuple[Signature, ...], ...]  # per rule: the signatures of its positive body atoms
    words: tuple[frozenset[str], ...]  # per rule: the names written in those atoms
    vocabulary: frozenset[str]  # every name whose presence in the facts matters
    shows: bool  # has it a #show statement


@functools.cache
def _program(modules: tuple[str, ...]) -> _Program:
    """The statements of ``modules`` with what pruning needs of each."""
    statements = tuple(s for name in modules for s in module_statements(name))
    rules = tuple(r for name in modules for r in _module_rules(name))
    needs = tuple(tuple(dict.fromkeys(sig for sig, _ in r.needs)) if r is not None else () for r in rules)
    words = tuple(frozenset().union(*(w for _, w in r.needs)) if r is not None else frozenset() for r in rules)
    vocabulary = frozenset().union(*words, (sig[0] for sigs in needs for sig in sigs))
    names = tuple(n for name in modules for n in _module_names(name))
    declarations = tuple(s.ast_type == _T.Defined for s in statements)
    shows = any(s.ast_type in (_T.ShowSignature, _T.ShowTerm) for s in statements)
    return _Program(statements, declarations, names, rules, needs, words, vocabulary, shows)


_TOKEN = re.compile(r"[a-z_][A-Za-z0-9_']*")


class _Line(NamedTuple):
    """What pruning needs of one line of facts: the names in it, and the input predicate of
    its one plain fact ("" when the line may hold more than one fact, or something else);
    and that fact as a symbol, which a session gives clingo without parsing the line again."""

    text: str
    tokens: frozenset[str]
    predicate: str
    fact: clingo.Symbol | None
    marker: bool = False  # a marker of a card's texts (TEXTS_BEGIN, TEXTS_END)


# Lines of facts seen, worked out once: positions share most of their lines.
_LINES: dict[str, _Line] = {}
_PLAIN_FACT = re.compile(r"([a-z_][A-Za-z0-9_']*)(?:\((?:[^)]|\)(?!\.))*\))?\.")


# The texts of cards between markers (TEXTS_BEGIN): a rule reads a card's printed text by
# the card's id (card_value/3, the name the facts give), which some other fact of the question,
# or a rule, must name for the text to change its answer.


class _Split(NamedTuple):
    lines: list[_Line]  # every line
    seen: list[_Line]  # the lines outside the texts between markers
    texts: list[tuple[str, list[_Line]]]  # each card's id and the lines of its text (markers too)


# The lines of the facts texts split last (a position's facts are asked about several times).
_SPLIT: dict[str, _Split] = kept({})


def _split_facts(facts: str) -> _Split:
    split = _SPLIT.get(facts)
    if split is None:
        if len(_SPLIT) >= 64:
            del _SPLIT[next(iter(_SPLIT))]
        lines = _split(facts)
        seen: list[_Line] = []
        texts: list[tuple[str, list[_Line]]] = []
        markers = [k for k, info in enumerate(lines) if info.marker]
        done = 0
        for k in range(0, len(markers) - 1, 2):  # a text's first and last lines
            first, last = markers[k], markers[k + 1]
            seen += lines[done:first]
            texts.append((lines[first].text[len(TEXTS_BEGIN) :], lines[first : last + 1]))
            done = last + 1
        seen += lines[done:]
        split = _SPLIT[facts] = _Split(lines, seen if texts else lines, texts)
    return split


def _lines(facts: str) -> list[_Line]:
    """What pruning needs of each line of the facts."""
    return _split_facts(facts).lines


def _split(facts: str) -> list[_Line]:
    known = _LINES
    get = known.get
    return [get(line) or _new_line(line) for line in facts.split("\n")]


def _new_line(line: str) -> _Line:
    if len(_LINES) >= 200_000:
        _LINES.clear()
    plain = _PLAIN_FACT.fullmatch(line)
    info = _LINES[line] = _Line(
        line,
        frozenset(_TOKEN.findall(line)),
        plain.group(1) if plain else "",
        _fact(line) if plain else None,
        line.startswith(TEXTS_BEGIN) or line == TEXTS_END,
    )
    return info


def _fact(line: str) -> clingo.Symbol | None:
    """The one fact of a line as a symbol; None when it is no ground term (an interval, a
    variable: clingo reads the line as text then, and says what is wrong with it)."""
    try:
        return clingo.parse_term(line[:-1])
    except RuntimeError:
        return None


def lines_without(facts: str, predicates: Collection[str]) -> str:
    """The facts less the lines that hold one plain fact of one of ``predicates``."""
    return "\n".join([info.text for info in _lines(facts) if info.predicate not in predicates])


def fact_words(modules: tuple[str, ...], facts: str) -> frozenset[str]:
    """The names in ``facts`` (every identifier, strings included: more names only keep more
    rules) that matter to pruning ``modules``."""
    return _names_in(modules, _lines(facts))


def _names_in(modules: tuple[str, ...], lines: list[_Line]) -> frozenset[str]:
    return _program(modules).vocabulary.intersection(set().union(*[info.tokens for info in lines]))


@functools.cache
def _input_predicates() -> frozenset[str]:
    """The predicates the bridge may give as facts (declared in ``inputs.lp``)."""
    return frozenset(s.name for s in module_statements("inputs") if s.ast_type == _T.Defined)


@functools.cache
def unread_inputs(modules: tuple[str, ...]) -> frozenset[str]:
    """The input predicates (``inputs.lp``) that no statement of ``modules`` names: their
    facts can't change an answer of those modules."""
    return _input_predicates() - frozenset().union(*_program(modules).names)


def _read_facts(facts: str, read: frozenset[str]) -> str:
    """The facts less the lines that are one plain fact of an input predicate no kept
    statement names (they can't change an answer); a line that may hold more is kept."""
    return "\n".join(info.text for info in _kept_lines(_lines(facts), read))


def _kept_lines(lines: list[_Line], read: frozenset[str]) -> list[_Line]:
    unread = _input_predicates() - read
    return [info for info in lines if info.predicate not in unread]


@functools.lru_cache(maxsize=512)
def live_statements(
    modules: tuple[str, ...], words: frozenset[str]
) -> tuple[tuple[clingo.ast.AST, ...], frozenset[str]]:
    """The statements of ``modules`` that can fire on facts whose names are ``words``.

    A rule can fire only when each of its positive body atoms can be true, so when its
    predicate is a fact's or derived by a rule that can fire, and when each name written in
    it (a constant, a function symbol) is in some atom.  Every name in an atom comes from
    the facts or from the head (or a comparison) of a rule that fired: variables only pass
    names on.  The rules that can fire are the least fixpoint of these conditions, and the
    others are left out, which changes no answer.  So are the rules that can fire but whose
    atoms nothing needs (:func:`_needed`).  The ``#defined`` declarations are left out too:
    they only keep clingo from warning of undefined atoms, which a session that leaves rules
    out doesn't ask about.  Also returned: every name the statements kept write (a fact of
    another predicate can't change an answer)."""
    program = _program(modules)
    index = _index(modules)
    missing = list(index.counts)
    for word in words:
        for i in index.by_word.get(word, ()):
            missing[i] -= 1
    live = [False] * len(missing)
    ready = [i for i, left in enumerate(missing) if left == 0]
    have: set[_Item] = set()  # the items derived, not among the words
    while ready:
        i = ready.pop()
        live[i] = True
        for item in index.gives[i]:
            if item in have or (item[1][0] if isinstance(item, tuple) else item) in words:
                continue
            have.add(item)
            for j in index.by_item.get(item, ()):
                missing[j] -= 1
                if missing[j] == 0:
                    ready.append(j)
    kept = [i for i, declaration in enumerate(program.declarations) if live[i] and not declaration]
    if program.shows:
        kept = _needed(program, kept)
    return tuple(program.statements[i] for i in kept), frozenset().union(*(program.names[i] for i in kept))


def _needed(program: _Program, live: list[int]) -> list[int]:
    """The statements of ``live`` that an answer needs: a normal rule whose head's predicate no
    other kept statement names (a shown one is named by its #show) derives atoms that are
    not shown and change nothing else, and is left out.  What is left out must be stratified
    on its own (no rule left out names a predicate of the others outside its positive
    atoms): then its atoms follow from the rest in one way, and no answer set is lost or
    gained."""
    loose = {i: rule for i in live if (rule := program.rules[i]) is not None and rule.normal}
    needed: set[str] = set()
    for i in live:
        if i not in loose:
            needed |= program.names[i]
    while True:
        grew = True
        while grew:
            grew = False
            for i, rule in list(loose.items()):
                if rule.heads[0][0] in needed:
                    del loose[i]
                    needed |= program.names[i]
                    grew = True
        defined = {rule.heads[0][0] for rule in loose.values()}
        unstratified = [i for i, rule in loose.items() if not rule.negated.isdisjoint(defined)]
        if not unstratified:
            return [i for i in live if i not in loose]
        for i in unstratified:
            del loose[i]
            needed |= program.names[i]


_Item = tuple[str, Signature] | str  # what a rule waits for: a signature ("sig", sig), or a name


class _Index(NamedTuple):
    """What :func:`live_statements` needs of a program, by rule: how many items (a name, or a
    signature as ("sig", signature)) it waits for; the rules waiting for each item; those
    waiting for each word present in the facts (a name, or a signature's predicate); and
    the items each rule gives when it fires.  A statement that derives nothing waits for
    nothing."""

    counts: tuple[int, ...]
    by_item: dict[_Item, tuple[int, ...]]
    by_word: dict[str, tuple[int, ...]]
    gives: tuple[tuple[_Item, ...], ...]


@functools.cache
def _index(modules: tuple[str, ...]) -> _Index:
    program = _program(modules)
    counts: list[int] = []
    by_item: dict[_Item, list[int]] = {}
    by_word: dict[str, list[int]] = {}
    gives: list[tuple[_Item, ...]] = []
    for i, rule in enumerate(program.rules):
        items: list[_Item] = [] if rule is None else [*(("sig", sig) for sig in program.needs[i]), *program.words[i]]
        counts.append(len(items))
        for item in items:
            by_item.setdefault(item, []).append(i)
            by_word.setdefault(item[1][0] if isinstance(item, tuple) else item, []).append(i)
        gives.append(() if rule is None else (*(("sig", sig) for sig in rule.heads), *rule.makes))
    return _Index(
        tuple(counts),
        {k: tuple(v) for k, v in by_item.items()},
        {k: tuple(v) for k, v in by_word.items()},
        tuple(gives),
    )


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
    # solved with ``best`` and nothing was optimized: the first answer set, as good as any
    unoptimized: bool = False

    @property
    def model(self) -> frozenset[clingo.Symbol]:
        """The last answer set reported (the optimal one for an optimization)."""
        if not self.models:
            raise RuleModuleError("the rules have no answer set for this position")
        return self.models[-1]


_IGNORED_WARNING = re.compile(r"global variable in tuple of aggregate element")

# When true (or with MTGASP_CHECK_PRUNING=1 in the environment), every session that leaves
# rules out is shadowed by one with the whole modules, and each answer is compared: a
# difference is raised as RuleModuleError.  Twice the work; for tests and for checking.
CHECK_PRUNING = os.environ.get("MTGASP_CHECK_PRUNING", "") not in ("", "0")


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


class _Prepared(NamedTuple):
    """What a session adds to clingo: the statements kept (None: every statement of the
    modules) and the facts; the names the statements were kept for (they tell the kept
    statements, and are quicker to compare)."""

    statements: tuple[clingo.ast.AST, ...] | None
    facts: str
    words: frozenset[str] = frozenset()
    lines: tuple[_Line, ...] = ()  # the facts' lines (of a session that leaves rules out)


# the programs prepared last, by modules, facts and parts (a session given again is asked for
# its program first: Session.shared)
_PREPARED: dict[tuple[object, ...], _Prepared] = kept({})


def _prepare(
    modules: tuple[str, ...], facts: str, parts: Sequence[tuple[str, Sequence[object]]], prune: bool
) -> _Prepared:
    # facts that hold rules could derive what the pruning takes for facts only
    if not prune or ":-" in facts or "{" in facts or ";" in facts:
        return _Prepared(None, facts)
    key = (modules, facts, tuple((name, tuple(args)) for name, args in parts))
    known = _PREPARED.get(key)
    if known is None:
        make_room(_PREPARED, KEEP.positions)
        known = _PREPARED[key] = _prepared(modules, facts, parts)
    return known


def _prepared(modules: tuple[str, ...], facts: str, parts: Sequence[tuple[str, Sequence[object]]]) -> _Prepared:
    _check_modules(modules, tuple((name, tuple(args)) for name, args in parts))
    # the arguments of the program parts are names in atoms too
    named = frozenset(_TOKEN.findall(" ".join(str(a) for _, args in parts for a in args)))
    split = _split_facts(facts)  # worked out once, for the names and for the facts read
    words = _names_in(modules, split.lines).union(named)
    statements, read = live_statements(modules, words)
    lines = split.lines
    # without a #show statement every atom is shown, the facts too: then none is left out
    shows = _program(modules).shows
    if shows and split.texts:
        # the texts of the cards that no read fact and no kept rule names are left out, and the
        # rules are kept again for the names left
        naming = set(read).union(*[info.tokens for info in _kept_lines(split.seen, read)])
        given = [info for card, text in split.texts if card in naming for info in text]
        if len(given) < sum(len(text) for _, text in split.texts):
            lines = split.seen + given
            words = _names_in(modules, lines).union(named)
            statements, read = live_statements(modules, words)
    kept = _kept_lines(lines, read) if shows else lines
    return _Prepared(statements, "\n".join(info.text for info in kept), words, tuple(kept))


_SHARED: dict[tuple[object, ...], Session] = kept({})


def _solve_configuration(control: clingo.Control) -> clingo.Configuration:
    """The solving options of a control's configuration (a group of options, not a value)."""
    config = control.configuration.solve
    assert isinstance(config, clingo.Configuration)
    return config


class Session:
    """One grounded program: a position's facts with the rule modules a question needs.

    Ground once, then :meth:`solve` as often as needed, with assumptions on external atoms
    (many questions about one position).  More program parts can be grounded later with
    :meth:`ground`.
    """

    def __init__(
        self,
        modules: Sequence[str],
        facts: str,
        parts: Iterable[tuple[str, Sequence[object]]] = (),
        arguments: Sequence[str] = (),
        prune: bool = True,
        _program: _Prepared | None = None,
    ) -> None:
        """``prune``: leave out the rules that can't fire on ``facts`` (not for a session
        that will take more modules or facts)."""
        self._modules = tuple(modules)
        self._warnings: list[str] = []
        self._shadow: Session | None = None
        self._freed: dict[tuple[str, int], dict[tuple[object, ...], int]] = {}
        self._freed_at: dict[tuple[str, int], int] = {}  # the number of parts grounded then
        # the answers given, by question: the same question on the same grounding has them
        self._answers: dict[tuple[object, ...], Solution] = {}
        # the program literal of each atom set by symbol (0: no atom of the program), looked up
        # once per grounding (clingo looks each up at every solve)
        self._literals: dict[int, int] = {}  # by the symbol's handle (clingo's symbols are unique)
        self._grounded: set[tuple[str, tuple[object, ...]]] = set()  # the program parts grounded
        parts = list(parts)
        prepared = _program or _prepare(self._modules, facts, parts, prune)
        self._pruned = prune = prepared.statements is not None
        # the statements of the rule modules the session holds (for benchmarks)
        self.statements = (
            len(prepared.statements)
            if prepared.statements is not None
            else sum(len(module_statements(name)) for name in self._modules)
        )
        started = time.perf_counter()
        # a session that leaves rules out would hear of atoms only the rules left out derive;
        # the whole modules were checked for them (_check_modules), and facts have no bodies
        warn = ["--warn=all", "--warn=no-atom-undefined"] if prune else ["--warn=all"]
        self._control = clingo.Control([*warn, *arguments], logger=_logger(self._warnings), message_limit=50)
        _free_later(self, self._control)
        try:
            if prepared.statements is not None:
                self._add_statements(prepared.statements)
                self._add_facts(prepared.lines)
            else:
                self._add_statements(s for name in self._modules for s in module_statements(name))
                self._control.add("base", [], prepared.facts)
        except RuntimeError as exc:
            raise self._error("the position's facts do not parse", exc) from None
        STATS.sessions += 1
        STATS.add_seconds += time.perf_counter() - started
        self._shadow = Session(modules, facts, parts, arguments, prune=False) if prune and CHECK_PRUNING else None
        self.ground([("base", ()), *parts])

    @classmethod
    def shared(cls, modules: Sequence[str], facts: str, parts: Sequence[tuple[str, Sequence[object]]] = ()) -> Session:
        """A session for a question that only solves (with literals on externals) and frees
        externals: one made earlier for the same program, the same rules kept and the same
        facts read, is given again (the facts that no rule reads may differ)."""
        modules = tuple(modules)
        prepared = _prepare(modules, facts, parts, True)
        key = (modules, tuple((name, tuple(args)) for name, args in parts), prepared.words, prepared.facts)
        known = _SHARED.get(key)
        if known is None:
            known = cls(modules, facts, parts, _program=prepared)
            make_room(_SHARED, KEEP.groundings)
        else:
            del _SHARED[key]  # most recent last
        _SHARED[key] = known
        return known

    def _add_statements(self, statements: Iterable[clingo.ast.AST]) -> None:
        with clingo.ast.ProgramBuilder(self._control) as builder:
            for statement in statements:
                builder.add(statement)

    def _add_facts(self, lines: Iterable[_Line]) -> None:
        """The facts of a session that leaves rules out: each plain fact as its symbol, through
        clingo's backend (the grounder sees them as facts, and parsing the text again took a
        sixth of a question's time), the other lines as text."""
        other: list[str] = []
        facts: list[clingo.Symbol] = []
        for info in lines:
            if info.fact is None:
                other.append(info.text)
            else:
                facts.append(info.fact)
        with self._control.backend() as backend:
            _add_fact_atoms(backend, facts)
        self._control.add("base", [], "\n".join(other))

    def add_modules(self, modules: Sequence[str]) -> None:
        """Add more rule modules; ground their parts with :meth:`ground`."""
        if self._pruned:
            raise RuleModuleError("a session that left out rules can't take more modules (prune=False)")
        self._add_statements(s for name in modules for s in module_statements(name))
        self._modules += tuple(modules)

    def _error(self, what: str, exc: Exception | None = None) -> RuleModuleError:
        detail = "; ".join(self._warnings) or (str(exc) if exc else "")
        return RuleModuleError(f"{what} (modules {', '.join(self._modules)}): {detail}")

    def _check_warnings(self, what: str) -> None:
        if self._warnings:
            raise self._error(what)

    def ground(self, parts: Iterable[tuple[str, Sequence[object]]], facts: str | None = None) -> None:
        """Ground program parts (name, arguments); optionally add facts to a new part first.
        A part grounded before (the same arguments) is not grounded again: a session given
        again to another question may be asked for a part it has."""
        todo = [(name, tuple(args)) for name, args in parts if (name, tuple(args)) not in self._grounded]
        if facts is not None:
            if self._pruned:
                raise RuleModuleError("a session that left out rules can't take more facts (prune=False)")
            name = f"_facts_{len(self._grounded)}"
            self._control.add(name, [], facts)
            todo.append((name, ()))
        if not todo:
            return
        self._grounded.update(todo)
        if self._shadow is not None:
            self._shadow.ground(todo)
        self._answers.clear()
        self._literals.clear()
        started = time.perf_counter()
        try:
            self._control.ground([(name, [symbol(a) for a in args]) for name, args in todo])
        except RuntimeError as exc:
            raise self._error("grounding failed", exc) from None
        STATS.ground_seconds += time.perf_counter() - started
        self._check_warnings("grounding warned")

    def solve(
        self,
        assumptions: Iterable[clingo.Symbol] = (),
        *,
        literals: Sequence[int] = (),
        signed: Sequence[tuple[clingo.Symbol, bool]] = (),
        models: int = 0,
        optimal_only: bool = False,
        opt_mode: str | None = None,
        best: bool = False,
        project: bool = False,
    ) -> Solution:
        """Solve.  ``models`` = 0 finds all answer sets, or for an optimization each better one up
        to the optimum.  ``best``: only the optimum matters, so when the ground program
        optimizes nothing (every answer set is as good) the first answer set is the answer;
        a search whose objective grounds to nothing would otherwise list every answer set.
        ``project``: answer sets that differ only in atoms not shown are one.
        Assumptions set atoms (externals) true; ``signed`` sets atoms true or false by their
        symbols (an external declared ``[free]`` needs no :meth:`free_externals`; a symbol
        that is no atom of the program set false changes nothing, set true makes the
        question unsatisfiable)."""
        assumptions = tuple(assumptions)
        signed = tuple(signed)
        # symbols by their handles: hashing a symbol asks clingo
        question = (
            tuple(a._rep for a in assumptions),
            tuple(literals),
            tuple((sym._rep, truth) for sym, truth in signed),
            models,
            optimal_only,
            opt_mode,
            best,
            project,
        )
        known = self._answers.get(question)
        if known is not None:
            return known
        config = _solve_configuration(self._control)
        config.models = str(models)
        config.project = "show" if project else "no"
        if opt_mode is not None:
            config.opt_mode = opt_mode
        found: list[frozenset[clingo.Symbol]] = []
        unoptimized = False

        def on_model(model: clingo.Model) -> bool:
            nonlocal unoptimized
            if optimal_only and model.cost and not model.optimality_proven:
                return True
            found.append(frozenset(model.symbols(shown=True)))
            if best and not model.cost:
                unoptimized = True
                return False
            return True

        started = time.perf_counter()
        try:
            result = self._control.solve(assumptions=self._fixed(assumptions, signed, literals), on_model=on_model)
        except RuntimeError as exc:
            raise self._error("solving failed", exc) from None
        STATS.solves += 1
        STATS.solve_seconds += time.perf_counter() - started
        self._check_warnings("solving warned")
        solution = Solution(satisfiable=bool(result.satisfiable), models=tuple(found), unoptimized=unoptimized)
        if self._shadow is not None:
            self._compare(solution, assumptions, literals, signed, models, optimal_only, opt_mode, best, project)
        if len(self._answers) >= 256:
            self._answers.clear()
        self._answers[question] = solution
        return solution

    def present(self, symbols: Sequence[clingo.Symbol]) -> list[bool]:
        """Whether each symbol is an atom of the grounded program."""
        return [bool(literal) for literal in self._literals_of(symbols)]

    def _literals_of(self, symbols: Sequence[clingo.Symbol]) -> list[int]:
        """The program literal of each symbol's atom (0: no atom of the program), looked up
        once per grounding."""
        known = self._literals
        unknown = [sym for sym in symbols if sym._rep not in known]
        if unknown:
            known.update(zip([sym._rep for sym in unknown], _atom_literals(self._control, unknown)))
        return [known[sym._rep] for sym in symbols]

    def _fixed(
        self,
        assumptions: Iterable[clingo.Symbol],
        signed: Sequence[tuple[clingo.Symbol, bool]],
        literals: Sequence[int],
    ) -> list[int]:
        """The program literals a solve assumes: an atom set true or false by its symbol (true
        and no atom of the program: no answer, as clingo has it), and the literals given."""
        fixed: list[int] = []
        pairs = [*((a, True) for a in assumptions), *signed]
        for (_, truth), literal in zip(pairs, self._literals_of([sym for sym, _ in pairs])):
            if literal:
                fixed.append(literal if truth else -literal)
            elif truth:
                return [1, -1]
        return fixed + list(literals)

    def _compare(
        self,
        solution: Solution,
        assumptions: Iterable[clingo.Symbol],
        literals: Sequence[int],
        signed: Sequence[tuple[clingo.Symbol, bool]],
        models: int,
        optimal_only: bool,
        opt_mode: str | None,
        best: bool = False,
        project: bool = False,
    ) -> None:
        """The same question to the session with the whole modules: the same answer."""
        assert self._shadow is not None
        mine = {a.literal: a.symbol for a in self._control.symbolic_atoms if a.is_external}
        theirs = {a.symbol: a.literal for a in self._shadow._control.symbolic_atoms if a.is_external}
        shadow_literals = [theirs[mine[abs(lit)]] * (1 if lit > 0 else -1) for lit in literals]
        other = self._shadow.solve(
            assumptions,
            literals=shadow_literals,
            signed=signed,
            models=models,
            optimal_only=optimal_only,
            opt_mode=opt_mode,
            best=best,
            project=project,
        )
        if solution.unoptimized or other.unoptimized:
            # any answer set is the answer: the two agree when both optimize nothing
            if solution.unoptimized != other.unoptimized or solution.satisfiable != other.satisfiable:
                raise self._error("leaving out rules changed whether the search optimizes")
            return
        # an enumeration may come in another order; an optimization's last answer is the optimum
        same = set(solution.models) == set(other.models) or bool(
            solution.models and other.models and solution.model == other.model
        )
        if solution.satisfiable != other.satisfiable or not same:
            differ = set(solution.model) ^ set(other.model) if solution.models and other.models else "satisfiable"
            raise self._error(f"leaving out rules changed the answer: {sorted(map(str, differ))[:10]}")

    def free_externals(self, name: str, arity: int) -> dict[tuple[object, ...], int]:
        """Make the external atoms of a predicate free (neither true nor false) and return
        their program literals by arguments, to be fixed per solve with ``literals``."""
        known = self._freed.get((name, arity))
        if known is not None and self._freed_at.get((name, arity)) == len(self._grounded):
            return known
        # made free again after a part grounded since may have more
        self._answers.clear()
        out: dict[tuple[object, ...], int] = {}
        self._freed[(name, arity)] = out
        self._freed_at[(name, arity)] = len(self._grounded)
        for atom in self._control.symbolic_atoms.by_signature(name, arity):
            if atom.is_external:
                self._control.assign_external(atom.literal, None)
                out[tuple(_python(a) for a in atom.symbol.arguments)] = atom.literal
        if self._shadow is not None:
            self._shadow.free_externals(name, arity)
        return out

    def freed(self, name: str, arity: int) -> dict[tuple[object, ...], int]:
        """The literals :meth:`free_externals` made free for a predicate (none before)."""
        return self._freed.get((name, arity), {})

    def count(self, *, optimal: bool) -> int:
        """Count the answer sets (the optimal ones when ``optimal``) without keeping them."""
        config = _solve_configuration(self._control)
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
        if self._shadow is not None and self._shadow.count(optimal=optimal) != total:
            raise self._error("leaving out rules changed the number of answers")
        return total


# Adding facts and looking up atoms make many small calls to clingo: its Python layer's
# checks and allocations for each cost several times the call itself, so these two call its
# C functions directly (clingo's Python layer throughout where they are not found).


def _add_fact_atoms(backend: clingo.Backend, facts: Sequence[clingo.Symbol]) -> None:
    """Each symbol a fact of the backend's program."""
    if _LIB is None or not facts:
        for fact in facts:
            backend.add_rule([backend.add_atom(fact)])
        return
    assert _FFI is not None
    symbols = _FFI.new("clingo_symbol_t[]", [fact._rep for fact in facts])
    atoms = _FFI.new("clingo_atom_t[]", len(facts))
    rep, add_atom, add_rule, null = backend._rep, _LIB.clingo_backend_add_atom, _LIB.clingo_backend_rule, _FFI.NULL
    for k in range(len(facts)):
        if not (add_atom(rep, symbols + k, atoms + k) and add_rule(rep, False, atoms + k, 1, null, 0)):
            raise RuntimeError(_FFI.string(_LIB.clingo_error_message()).decode())


def _atom_literals(control: clingo.Control, symbols: Sequence[clingo.Symbol]) -> list[int]:
    """The program literal of each symbol's atom, 0 for a symbol that is no atom of the
    program."""
    if _LIB is None:
        found = [control.symbolic_atoms[sym] for sym in symbols]
        return [atom.literal if atom is not None else 0 for atom in found]
    assert _FFI is not None
    atoms = control.symbolic_atoms._rep
    at = _FFI.new("clingo_symbolic_atom_iterator_t*")
    valid = _FFI.new("bool*")
    literal = _FFI.new("clingo_literal_t*")
    find, is_valid, literal_of = (
        _LIB.clingo_symbolic_atoms_find,
        _LIB.clingo_symbolic_atoms_is_valid,
        _LIB.clingo_symbolic_atoms_literal,
    )
    out: list[int] = []
    for sym in symbols:
        if not (find(atoms, sym._rep, at) and is_valid(atoms, at[0], valid)):
            raise RuntimeError(_FFI.string(_LIB.clingo_error_message()).decode())
        if not valid[0]:
            out.append(0)
        elif literal_of(atoms, at[0], literal):
            out.append(literal[0])
        else:
            raise RuntimeError(_FFI.string(_LIB.clingo_error_message()).decode())
    return out


@functools.cache
def _check_modules(modules: tuple[str, ...], parts: tuple[tuple[str, tuple[object, ...]], ...]) -> None:
    """Ground the whole modules once, without facts, so that their warnings (an undefined
    atom, an unsafe variable) are raised even though sessions leave rules out."""
    Session(modules, "", parts, prune=False)


# the controls of sessions no longer used, freed together when there are enough of them
_DROPPED: list[clingo.Control] = []
DROPPED_AT_ONCE = 256


def _free_later(session: Session, control: clingo.Control) -> None:
    """Keep the session's control once the session is dropped, until :data:`DROPPED_AT_ONCE`
    such controls are freed together.  Freed one at a time, as each session is dropped, their
    memory came back in pieces that later controls reused, and grounding and solving took
    about 60% more CPU (PC_18: 10.2 s of CPU for 600 actions with controls freed 300 at a time
    or never, 16.5 s freed one by one); freed together, it comes back whole."""
    if len(_DROPPED) >= DROPPED_AT_ONCE:
        _DROPPED.clear()
    weakref.finalize(session, _DROPPED.append, control)


def _logger(warnings: list[str]) -> Callable[[clingo.MessageCode, str], None]:
    """A control's logger: keeps clingo's messages but the ignored ones in ``warnings``.  Not a
    method of the session: the control would hold its session and the session its control, a
    cycle that only the cyclic garbage collector frees, rarely (:func:`collect_less`), so that
    the ground programs of dropped sessions piled up (a gigabyte in a minute of puzzle search,
    and the search 25% slower after it)."""

    def log(code: clingo.MessageCode, message: str) -> None:
        if not _IGNORED_WARNING.search(message):
            warnings.append(message.strip())

    return log


class _SolveOptions(TypedDict, total=False):
    """The options of :meth:`Session.solve`."""

    assumptions: Iterable[clingo.Symbol]
    literals: Sequence[int]
    models: int
    optimal_only: bool
    opt_mode: str | None
    best: bool
    project: bool


def solve(
    modules: Sequence[str],
    facts: str,
    parts: Iterable[tuple[str, Sequence[object]]] = (),
    **options: Unpack[_SolveOptions],
) -> Solution:
    """Ground ``modules`` with ``facts`` and the given parts, and solve once."""
    return Session(modules, facts, parts).solve(**options)


_ANSWERS: dict[tuple[object, ...], Solution] = kept({})


def answer(modules: Sequence[str], facts: str, parts: Sequence[tuple[str, Sequence[object]]] = ()) -> Solution:
    """The answer of ``modules`` on ``facts`` with the program parts ``parts`` grounded (all
    answer sets, or the optimum), given again for a question asked before whose program is
    the same: the same rules kept and the same facts read (the facts that no rule reads may
    differ)."""
    modules = tuple(modules)
    grounded = tuple((name, tuple(args)) for name, args in parts)
    prepared = _prepare(modules, facts, grounded, True)
    key = (modules, grounded, prepared.statements is None, prepared.words, prepared.facts)
    known = _ANSWERS.get(key)
    if known is None:
        known = Session(modules, facts, grounded, _program=prepared).solve()
        if len(_ANSWERS) >= 256:
            del _ANSWERS[next(iter(_ANSWERS))]
        _ANSWERS[key] = known
    return known


# The atoms of the answers read last, by predicate (reading a symbol's name and arity goes
# through clingo each time: an answer read for several predicates is indexed once).
_INDEXED: dict[int, tuple[frozenset[clingo.Symbol], dict[tuple[str, int], list[clingo.Symbol]]]] = kept({})


def atoms(model: frozenset[clingo.Symbol], name: str, arity: int) -> list[clingo.Symbol]:
    """The atoms of an answer set whose predicate is ``name``/``arity``."""
    known = _INDEXED.get(id(model))
    if known is None or known[0] is not model:
        index = _signature_index(model)
        if len(_INDEXED) >= 256:
            del _INDEXED[next(iter(_INDEXED))]
        known = _INDEXED[id(model)] = (model, index)
    return known[1].get((name, arity), [])


def _signature_index(model: Iterable[clingo.Symbol]) -> dict[tuple[str, int], list[clingo.Symbol]]:
    """The positive function symbols of an answer set by name and arity."""
    index: dict[tuple[str, int], list[clingo.Symbol]] = {}
    if _LIB is None:
        for sym in model:
            if sym.type == clingo.SymbolType.Function and sym.positive:
                index.setdefault((sym.name, len(sym.arguments)), []).append(sym)
        return index
    assert _FFI is not None
    name, arguments, size, positive = (
        _FFI.new("char const**"),
        _FFI.new("clingo_symbol_t const**"),
        _FFI.new("size_t*"),
        _FFI.new("bool*"),
    )
    function = _LIB.clingo_symbol_type_function
    type_of, name_of, arguments_of, is_positive = (
        _LIB.clingo_symbol_type,
        _LIB.clingo_symbol_name,
        _LIB.clingo_symbol_arguments,
        _LIB.clingo_symbol_is_positive,
    )
    names = _NAMES
    for sym in model:
        rep = sym._rep
        if type_of(rep) != function:
            continue
        if not (is_positive(rep, positive) and name_of(rep, name) and arguments_of(rep, arguments, size)):
            raise RuntimeError(_FFI.string(_LIB.clingo_error_message()).decode())
        if not positive[0]:
            continue
        # clingo keeps one copy of each name: its address names it
        at = int(_FFI.cast("uintptr_t", name[0]))
        text = names.get(at)
        if text is None:
            text = names[at] = _FFI.string(name[0]).decode()
        index.setdefault((text, size[0]), []).append(sym)
    return index


# the names of symbols by the address of clingo's copy (clingo 5 keeps one copy of each
# string until the process ends: clingo_add_string)
_NAMES: dict[int, str] = {}


def symbol_text(sym: clingo.Symbol) -> str:
    """A symbol as text: a string's own characters, any other symbol as clingo writes it."""
    return sym.string if sym.type == clingo.SymbolType.String else str(sym)


# An atom p("object", value) as clingo writes it: its predicate, the object's characters as
# written (escaped), and the value as written.
_ABOUT = re.compile(r'([a-z_][A-Za-z0-9_\']*)\("((?:[^"\\]|\\.)*)",(.*)\)', re.S)
_ESCAPE = re.compile(r"\\(.)", re.S)
_NUMBER = re.compile(r"-?[0-9]+")


def _unescaped(text: str) -> str:
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def about(sym: clingo.Symbol) -> tuple[str, str, int | str]:
    """An atom ``p(Object, Value)`` whose first argument is a string, read from its text in
    one call to clingo (reading the arguments one by one costs several): the predicate, the
    object, and the value (a number as an int, a string's characters, any other term as
    clingo writes it)."""
    text = str(sym)
    match = _ABOUT.fullmatch(text)
    if match is None:  # not of that form: read it argument by argument
        first, second = sym.arguments
        value: int | str = second.number if second.type == clingo.SymbolType.Number else symbol_text(second)
        return sym.name, symbol_text(first), value
    name, obj, rest = match.groups()
    if rest.startswith('"') and rest.endswith('"') and len(rest) > 1:
        return name, _unescaped(obj), _unescaped(rest[1:-1])
    return name, _unescaped(obj), int(rest) if _NUMBER.fullmatch(rest) else rest


# ---------------------------------------------------------------------- many positions in one program
class _Prefixed(clingo.ast.Transformer):
    """A statement with every predicate prefixed, and an integrity constraint's head made the
    atom ``constraint(I)``, I the constraint's place in ``where`` (its module and line)."""

    def __init__(self, prefix: str, where: list[str], constraint: str, module: str) -> None:
        self.prefix = prefix
        self.where = where
        self.constraint = constraint
        self.module = module

    def visit_SymbolicAtom(self, atom: clingo.ast.AST) -> clingo.ast.AST:
        return atom.update(symbol=self._predicate(atom.symbol))

    def _predicate(self, term: clingo.ast.AST) -> clingo.ast.AST:
        if term.ast_type == _T.Pool:  # p(a; b)
            return term.update(arguments=[self._predicate(t) for t in term.arguments])
        if term.ast_type == _T.Function and not term.external:
            return term.update(name=self.prefix + term.name)
        if term.ast_type == _T.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
            sym = term.symbol
            return clingo.ast.SymbolicTerm(
                term.location, clingo.Function(self.prefix + sym.name, sym.arguments, sym.positive)
            )
        raise RuleModuleError(f"{self.module}: a predicate that can't be renamed: {term}")

    def visit_Rule(self, rule: clingo.ast.AST) -> clingo.ast.AST:
        rule = rule.update(**self.visit_children(rule))
        head = rule.head
        if head.ast_type == _T.Literal and head.atom.ast_type == _T.BooleanConstant and not head.atom.value:
            loc = head.location
            self.where.append(f"{self.module}:{loc.begin.line}")
            number = clingo.ast.SymbolicTerm(loc, clingo.Number(len(self.where)))
            atom = clingo.ast.SymbolicAtom(clingo.ast.Function(loc, self.constraint, [number], 0))
            rule = rule.update(head=clingo.ast.Literal(loc, clingo.ast.Sign.NoSign, atom))
        return rule


class _Bound(clingo.ast.Transformer):
    """A statement of a program part with its parameters replaced by the part's arguments."""

    def __init__(self, values: dict[str, clingo.Symbol]) -> None:
        self.values = values

    def visit_SymbolicTerm(self, term: clingo.ast.AST) -> clingo.ast.AST:
        sym = term.symbol
        if sym.type == clingo.SymbolType.Function and not sym.arguments and sym.name in self.values:
            return term.update(symbol=self.values[sym.name])
        return term

    def visit_Function(self, term: clingo.ast.AST) -> clingo.ast.AST:
        if not term.arguments and not term.external and term.name in self.values:
            return clingo.ast.SymbolicTerm(term.location, self.values[term.name])
        return term.update(**self.visit_children(term))


Part = tuple[str, Sequence[object]]


def prefixed_statements(
    modules: Sequence[str],
    prefix: str,
    where: list[str],
    constraint: str,
    facts: str = "",
    parts: Sequence[Part] = (),
) -> list[clingo.ast.AST]:
    """The statements of the modules (and of ``facts``) as a program that holds them next to
    other copies: every predicate prefixed with ``prefix``, ``#show`` and optimization
    statements left out, and each integrity constraint's head made an atom
    ``constraint(I)`` whose place I in ``where`` says where the constraint is
    (``asp_rules/<module>.lp:<line>``), so that a program over many positions can look for
    the positions a constraint would reject.  The modules' base parts are held, and each of
    ``parts`` (a part's name and its arguments: ``("attack", ("declared",))``) with its
    parameters bound, all in one base part."""
    out: list[clingo.ast.AST] = []
    skip = (_T.ShowSignature, _T.ShowTerm, _T.Program, _T.Defined, _T.Minimize)
    for name in modules:
        prefixed = _Prefixed(prefix, where, constraint, f"asp_rules/{name}.lp")
        by_part: dict[str, tuple[list[str], list[clingo.ast.AST]]] = {"base": ([], [])}
        current = by_part["base"][1]
        for statement in module_statements(name):
            if statement.ast_type == _T.Program:
                params = [p.name for p in statement.parameters]
                current = by_part.setdefault(statement.name, (params, []))[1]
            elif statement.ast_type not in skip:
                current.append(statement)
        for part, args in [("base", ()), *parts]:
            params, statements = by_part.get(part, ([], []))
            bound = _Bound({p: symbol(a) for p, a in zip(params, args, strict=True)}) if params else None
            out += [prefixed(bound(s) if bound else s) for s in statements]
    if facts:
        parsed: list[clingo.ast.AST] = []
        try:
            clingo.ast.parse_string(facts, parsed.append)
        except RuntimeError as exc:
            raise RuleModuleError(f"facts that do not parse: {exc}") from None
        prefixed = _Prefixed(prefix, where, constraint, "the facts")
        out += [prefixed(s) for s in parsed if s.ast_type not in skip]
    return out


class Enumeration:
    """A program over many positions (``statements`` and ``text``), grounded once, whose answer
    sets are enumerated, all of them or those with some atoms true (:meth:`each`)."""

    def __init__(self, statements: Sequence[clingo.ast.AST], text: str) -> None:
        self._control = clingo.Control(["--warn=none", "--models=0"])
        started = time.perf_counter()
        try:
            with clingo.ast.ProgramBuilder(self._control) as builder:
                for statement in statements:
                    builder.add(statement)
            self._control.add("base", [], text)
        except RuntimeError as exc:
            raise RuleModuleError(f"a program over many positions that does not parse: {exc}") from None
        STATS.add_seconds += time.perf_counter() - started
        started = time.perf_counter()
        self._control.ground([("base", [])])
        STATS.ground_seconds += time.perf_counter() - started

    def each(
        self,
        found: Callable[[list[tuple[str, tuple[object, ...]]]], bool],
        true: Sequence[tuple[str, Sequence[object]]] = (),
    ) -> None:
        """Call ``found`` with every answer set in which the atoms ``true`` (predicate,
        arguments) are true, each as its shown atoms: the predicate and the arguments (a
        number, a string's characters, any other term as clingo writes it).  The search
        stops when ``found`` returns False."""
        assumptions = [(clingo.Function(name, [symbol(a) for a in args]), True) for name, args in true]

        def model(answer: clingo.Model) -> bool:
            return found([(sym.name, tuple(_python(a) for a in sym.arguments)) for sym in answer.symbols(shown=True)])

        self._control.solve(assumptions=assumptions, on_model=model)


def enumerate_answers(statements: Sequence[clingo.ast.AST], text: str) -> list[list[tuple[str, tuple[object, ...]]]]:
    """Every answer set of a program, each as its shown atoms (:meth:`Enumeration.each`)."""
    out: list[list[tuple[str, tuple[object, ...]]]] = []

    def keep(atoms: list[tuple[str, tuple[object, ...]]]) -> bool:
        out.append(atoms)
        return True

    Enumeration(statements, text).each(keep)
    return out
