"""The clingo wrapper: modules parsed once, warnings and errors raised with the module named."""

from __future__ import annotations

import clingo
import pytest

from bridge.engine import solver
from bridge.engine.solver import Session, about, module_statements, solve, symbol_text
from bridge.model.errors import RuleModuleError


def atoms(solution) -> list[list[str]]:
    return sorted(sorted(str(s) for s in model) for model in solution.models)


def test_modules_are_parsed_once() -> None:
    assert module_statements("combat/citations") is module_statements("combat/citations")


def test_exact_answer_sets() -> None:
    assert atoms(solve(["inputs"], "{ a; b }. :- a, b. #show a/0. #show b/0.")) == [[], ["a"], ["b"]]


def test_unsatisfiable_is_reported() -> None:
    solution = solve(["inputs"], "a. :- a.")
    assert not solution.satisfiable
    with pytest.raises(RuleModuleError, match="no answer set"):
        _ = solution.model


def test_undefined_atom_warning_is_an_error_naming_the_modules() -> None:
    with pytest.raises(RuleModuleError, match=r"combat/citations.*does not occur|does not occur.*") as info:
        solve(["combat/citations"], "b :- not_defined_anywhere.")
    assert "combat/citations" in str(info.value)


def test_unsafe_variable_is_an_error() -> None:
    with pytest.raises(RuleModuleError, match="unsafe"):
        solve(["inputs"], "p(X) :- not q(X). q(1).")


def test_unknown_module() -> None:
    with pytest.raises(RuleModuleError, match="not found"):
        module_statements("combat/no_such_module")


def test_externals_are_fixed_per_solve() -> None:
    session = Session(["inputs"], "#external e(1..3). p(X) :- e(X). #show p/1.")
    literals = session.free_externals("e", 1)
    assert set(literals) == {(1,), (2,), (3,)}
    first = session.solve(literals=[literals[(1,)], -literals[(2,)], -literals[(3,)]])
    assert atoms(first) == [["p(1)"]]
    second = session.solve(literals=[-literals[(1,)], literals[(2,)], literals[(3,)]])
    assert atoms(second) == [["p(2)", "p(3)"]]


def test_a_session_says_how_many_statements_of_its_modules_it_holds() -> None:
    modules = ["inputs", "characteristics/effects", "characteristics/final"]
    facts = 'permanent("g"). card_of("g", grizzly_bears). card_value(grizzly_bears, type, creature).'
    whole = Session(modules, facts, prune=False)
    pruned = Session(modules, facts)
    assert whole.statements == sum(len(module_statements(m)) for m in modules)
    assert 0 < pruned.statements < whole.statements  # the rules that can't fire on these facts left out


def test_count_optimal_models_counts_each_once() -> None:
    session = Session(["inputs"], "{ a; b }. #maximize { 1 : a }. #show a/0. #show b/0.")
    assert session.count(optimal=True) == 2


def test_an_atom_about_an_object_read_from_its_text_is_read_as_argument_by_argument() -> None:
    """``about`` reads p(Object, Value) from the atom's text: escaped quotes and backslashes,
    commas inside strings and terms, negative numbers, and an atom whose first argument is not a
    string (read argument by argument) give what reading the arguments one by one gives."""
    control = clingo.Control()
    control.add(
        "base",
        [],
        r'p("a\"b", 3). p("x,y", "Urborg, \"T\" of \\ Y"). p("o", landwalk(subtype(mountain))). p("o", -4).'
        r' p("q\\", "new\nline"). p(1, 2). p("o", f("s,t")). p("o", "").',
    )
    control.ground([("base", [])])
    seen = []
    control.solve(on_model=lambda m: seen.extend(m.symbols(atoms=True)))
    assert len(seen) == 8
    for sym in seen:
        first, second = sym.arguments
        value = second.number if second.type == clingo.SymbolType.Number else symbol_text(second)
        assert about(sym) == (sym.name, symbol_text(first), value)


# Symbols of every kind: functions of each arity and sign, tuples, strings, numbers, the
# infimum and supremum, names met twice.
_SYMBOLS = [
    clingo.parse_term(text)
    for text in ("a", "b(1)", "b(2)", "-c(2,3)", "5", '"s"', "d(x,y,z)", "(1,2)", "f(g(1))", "#inf", "#sup", "-a")
]


def test_an_answer_set_indexed_by_clingo_s_own_functions_as_by_its_python_layer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    direct = solver._signature_index(_SYMBOLS)
    monkeypatch.setattr(solver, "_LIB", None)
    assert direct == solver._signature_index(_SYMBOLS)
    assert set(direct) == {("a", 0), ("b", 1), ("d", 3), ("", 2), ("f", 1)}


def test_facts_added_and_atoms_looked_up_by_clingo_s_own_functions_as_by_its_python_layer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    facts = [clingo.parse_term(text) for text in ("p(1)", 'p("x")', "q(a,b)", "-r(2)")]
    asked = [*facts, clingo.parse_term("p(3)"), clingo.parse_term("s")]  # the last two are no atoms

    def ground(direct: bool) -> tuple[list[str], list[int]]:
        if not direct:
            monkeypatch.setattr(solver, "_LIB", None)
        control = clingo.Control(["--warn=none"])
        with control.backend() as backend:
            solver._add_fact_atoms(backend, facts)
        control.add("base", [], "t(X) :- p(X). #external s2.")
        control.ground([("base", [])])
        models: list[list[str]] = []
        control.solve(on_model=lambda m: models.append(sorted(map(str, m.symbols(atoms=True)))))
        literals = solver._atom_literals(control, asked)
        monkeypatch.undo()
        return models[0], literals

    model, literals = ground(direct=True)
    assert (model, literals) == ground(direct=False)
    assert model == sorted(["p(1)", 'p("x")', "q(a,b)", "-r(2)", "t(1)", 't("x")'])
    assert all(literals[:4]) and literals[4:] == [0, 0]


def test_a_search_keeps_more_groundings_and_the_caches_shrink_back_after() -> None:
    """Session.shared gives a grounding again while it is kept: 16 by default, 128 inside
    keeping_more (a search); after it, the kept groundings shrink back to 16 as the cache is
    next used."""
    modules = ("inputs", "turn/priority", "turn/passing")

    def ask(n: int) -> Session:
        return Session.shared(modules, f'step(main1). player("p{n}"). priority("p{n}").')

    solver.forget()
    first = ask(0)
    for n in range(1, 40):
        ask(n)
    assert ask(0) is not first  # dropped: 16 are kept
    with solver.keeping_more():
        first = ask(100)
        for n in range(101, 140):
            ask(n)
        assert ask(100) is first
        assert len(solver._SHARED) == 16 + 40  # those kept before, and the search's
    assert solver.KEEP.groundings == 16
    ask(200)
    assert len(solver._SHARED) == 16
