"""Every violation the rules can show reads as a message with all its values filled in.

The rule modules (``asp_rules/**/*.lp``) are read as syntax trees: each rule deriving
``violation(World, Reason, Objects)`` gives its reason (a constant, or a variable whose
values come from the rules defining the body atom that binds it) and how many values its
objects tuple passes.  Each reason must have a message template in ``bridge/engine/verdict.py``
whose placeholders those values fill, and a citation; a requirement term
(``req(kind, ..., Effect)``) must be a kind the bridge has words for.
"""

from __future__ import annotations

import string
from collections.abc import Iterator

import clingo
import clingo.ast
import pytest

from bridge.engine.verdict import MESSAGES, ViolationReader, _requirement
from bridge.model.paths import rules_dir

_T = clingo.ast.ASTType


def _rules() -> list[tuple[str, clingo.ast.AST]]:
    """(file, rule) for every rule of every module."""
    out: list[tuple[str, clingo.ast.AST]] = []
    for path in sorted(rules_dir().rglob("*.lp")):
        name = str(path.relative_to(rules_dir()))
        clingo.ast.parse_files(
            [str(path)], lambda s, name=name: out.append((name, s)) if s.ast_type == _T.Rule else None
        )
    return out


RULES = _rules()


def _head_function(rule: clingo.ast.AST) -> clingo.ast.AST | None:
    head = rule.head
    if (
        head.ast_type == _T.Literal
        and head.atom.ast_type == _T.SymbolicAtom
        and head.atom.symbol.ast_type == _T.Function
    ):
        return head.atom.symbol
    return None


def _body_functions(rule: clingo.ast.AST) -> Iterator[clingo.ast.AST]:
    """The positive body atoms of a rule (those that bind variables)."""
    for literal in rule.body:
        if (
            literal.ast_type == _T.Literal
            and literal.sign == clingo.ast.Sign.NoSign
            and literal.atom.ast_type == _T.SymbolicAtom
            and literal.atom.symbol.ast_type == _T.Function
        ):
            yield literal.atom.symbol


def _constant(term: clingo.ast.AST) -> str | None:
    if (
        term.ast_type == _T.SymbolicTerm
        and term.symbol.type == clingo.SymbolType.Function
        and term.symbol.name
        and not term.symbol.arguments
    ):
        return term.symbol.name
    return None


def _tuple_size(term: clingo.ast.AST) -> int | None:
    """How many values a tuple term passes; None for a term that is not a tuple."""
    if term.ast_type == _T.Function and term.name == "":
        return len(term.arguments)
    if term.ast_type == _T.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function and term.symbol.name == "":
        return len(term.symbol.arguments)
    return None


def _values_of(rule: clingo.ast.AST, variable: str, depth: int = 0) -> list[list[clingo.ast.AST]]:
    """The terms a variable of a rule can stand for, by each positive body atom holding it:
    the terms at that place in the heads of the rules defining that predicate (followed
    through variables).  The variable stands for terms every one of these atoms allows."""
    found: list[list[clingo.ast.AST]] = []
    for atom in _body_functions(rule):
        for place, argument in enumerate(atom.arguments):
            if argument.ast_type != _T.Variable or argument.name != variable:
                continue
            terms: list[clingo.ast.AST] = []
            for _, other in RULES:
                head = _head_function(other)
                if head is None or head.name != atom.name or len(head.arguments) != len(atom.arguments):
                    continue
                term = head.arguments[place]
                if term.ast_type == _T.Variable and depth < 4:
                    terms += [t for ts in _values_of(other, term.name, depth + 1) for t in ts]
                else:
                    terms.append(term)
            if terms:
                found.append(terms)
    return found


def _reasons(rule: clingo.ast.AST, variable: str) -> set[str]:
    """The constants a reason variable can stand for."""
    sets = [{_constant(t) for t in terms} for terms in _values_of(rule, variable)]
    sets = [s for s in sets if None not in s]
    return set.intersection(*sets) if sets else set()  # type: ignore[arg-type]


def _requirement_kinds(rule: clingo.ast.AST, variable: str) -> set[tuple[str, int]]:
    """The (kind, arity) of the requirement terms ``req(kind, ..., Effect)`` a variable can
    stand for."""
    sets = [
        {(_constant(t.arguments[0]), len(t.arguments)) for t in terms}
        for terms in _values_of(rule, variable)
        if all(t.ast_type == _T.Function and t.name == "req" for t in terms)
    ]
    return set.intersection(*sets) if sets else set()  # type: ignore[arg-type]


def _forwarded(
    rule: clingo.ast.AST, reason: clingo.ast.AST, objects: clingo.ast.AST, depth: int = 0
) -> list[tuple[clingo.ast.AST, clingo.ast.AST, clingo.ast.AST]]:
    """(reason term, objects term, the rule they are written in) for a rule whose reason and
    objects are variables that one body atom binds together (``violation(declared, R, X) :-
    _wrong(O, R, X)``): the pairs the heads of that atom's rules write, followed through
    variables again."""
    if reason.ast_type != _T.Variable or objects.ast_type != _T.Variable:
        return [(reason, objects, rule)]
    for atom in _body_functions(rule):
        names = [a.name if a.ast_type == _T.Variable else None for a in atom.arguments]
        if reason.name not in names or objects.name not in names:
            continue
        r, o = names.index(reason.name), names.index(objects.name)
        found = []
        for _, other in RULES:
            head = _head_function(other)
            if head is None or head.name != atom.name or len(head.arguments) != len(atom.arguments):
                continue
            if depth < 4:
                found += _forwarded(other, head.arguments[r], head.arguments[o], depth + 1)
        return found
    return [(reason, objects, rule)]


def _violations() -> tuple[dict[str, set[int]], dict[str, set[tuple[str, int]]]]:
    """reason -> the numbers of values its rules pass; requirement reason -> the (kind,
    arity) of each requirement term it may name."""
    passed: dict[str, set[int]] = {}
    requirements: dict[str, set[tuple[str, int]]] = {}
    for name, rule in RULES:
        head = _head_function(rule)
        if head is None or head.name != "violation" or len(head.arguments) != 3:
            continue
        for reason_term, objects, written in _forwarded(rule, head.arguments[1], head.arguments[2]):
            if _constant(reason_term) is not None:
                reasons = [_constant(reason_term)]
            else:
                assert reason_term.ast_type == _T.Variable, f"{name}: {written}"
                reasons = sorted(_reasons(written, reason_term.name))
                assert reasons, f"{name}: can't tell the reasons of {written}"
            size = _tuple_size(objects)
            for reason in reasons:
                assert reason is not None
                if size is not None:
                    passed.setdefault(reason, set()).add(size)
                    continue
                # a requirement the declaration leaves unobeyed: the term req(kind, ..., Effect)
                assert objects.ast_type == _T.Variable, (
                    f"{name}: the objects of {written} are neither a tuple nor a variable"
                )
                kinds = _requirement_kinds(written, objects.name)
                assert kinds, f"{name}: the objects of {written} are not a requirement term"
                requirements.setdefault(reason, set()).update(kinds)
    return passed, requirements


PASSED, REQUIREMENTS = _violations()


def _needed(template: str) -> int:
    """How many values a template needs: one more than its highest placeholder."""
    fields = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    assert all(f.isdigit() for f in fields), f"placeholders are numbered: {template!r}"
    return max((int(f) + 1 for f in fields), default=0)


def test_the_rules_were_read() -> None:
    # the parse found the violations of every area that has them
    assert {
        "too_many_blocked",
        "tapped_attacker",
        "damage_total",
        "illegal_target",
        "order_not_blocked",
        "unpaid_cost",
        "prevention_amount",
    } <= set(PASSED)
    assert set(REQUIREMENTS) == {"attack_requirement_unmet", "block_requirement_unmet"}


@pytest.mark.parametrize("reason", sorted(PASSED))
def test_every_violation_has_a_message_its_values_fill(reason: str) -> None:
    assert reason in MESSAGES, f"no message for the violation {reason!r}"
    template = MESSAGES[reason]
    for size in PASSED[reason]:
        assert _needed(template) <= size, (
            f"{reason}: the message needs {_needed(template)} values, a rule passes {size}: {template!r}"
        )
        message = template.format(*(f"<{k}>" for k in range(size)))
        assert "{" not in message.replace("{T}", "")


def test_the_message_of_a_creature_blocking_too_many() -> None:
    template = MESSAGES["too_many_blocked"]
    assert PASSED["too_many_blocked"] == {3}
    assert template.format("Grizzly Bears (b0)", 2, 1) == "Grizzly Bears (b0) blocks 2 creatures but may block only 1"


def test_a_provoked_creature_reads_as_provoked() -> None:
    term = clingo.Function(
        "req",
        [clingo.Function("block_it"), clingo.String("bears"), clingo.String("vorine"), clingo.Function("provoke")],
    )
    ids, words = _requirement(term, lambda o: o)
    assert ids == ("bears", "vorine") and words.format(*ids) == "must block vorine if able (provoked by it)"


@pytest.mark.parametrize("reason", sorted(REQUIREMENTS))
def test_every_requirement_has_words(reason: str) -> None:
    for kind, arity in REQUIREMENTS[reason]:
        objects = [clingo.String(f"c{k}") for k in range(arity - 2)]
        term = clingo.Function("req", [clingo.Function(kind), *objects, clingo.String("source")])
        _ids, words = _requirement(term, lambda o: f"<{o}>")
        assert words != kind, f"{reason}: no words for the requirement kind {kind!r}"
        reader = ViolationReader({reason: ("1.1", "1.1")}, lambda o: f"<{o}>")
        verdict = reader.verdict(
            frozenset({clingo.Function("violation", [clingo.Function("declared"), clingo.Function(reason), term])})
        )
        message = verdict.violations[0].message
        assert message.startswith("<c0> ") and "{" not in message, message


def test_every_violation_is_cited() -> None:
    cited = {
        _constant(h.arguments[0])
        for _, rule in RULES
        if (h := _head_function(rule)) is not None and h.name == "cites" and len(h.arguments) == 3
    }
    missing = sorted((set(PASSED) | set(REQUIREMENTS)) - cited)
    assert not missing, f"violations without a cites/3 fact: {missing}"
