"""Sessions leave out the rules that can't fire on their facts: which rules go, and that no
answer changes (every session of a game and of a sample of scenarios asked twice, with the
rules left out and with the whole modules)."""

from __future__ import annotations

from pathlib import Path

import clingo
import clingo.ast
import pytest

from bridge.engine import solver
from bridge.engine.solver import Session, fact_words, live_statements
from bridge.io.scenarios import run_scenario
from bridge.model.cards import CardPool
from bridge.model.errors import RuleModuleError
from bridge.model.scenario import load_scenario
from bridge.play.selfplay import load_deck, play_game, shipped_decks

SBA = (
    "inputs",
    "characteristics/effects",
    "characteristics/final",
    "characteristics/pt",
    "replacement",
    "sba",
    "regeneration",
)
BEAR = """player("a"). permanent("x"). card_of("x", "bear"). controller_of("x", "a").
card_value("bear", type, creature). card_value("bear", name, "Grizzly Bears").
card_value("bear", power_base, 2). card_value("bear", toughness_base, 2)."""
LEGEND = BEAR + '\ncard_value("bear", supertype, legendary).'


def kept(modules: tuple[str, ...], facts: str) -> list[str]:
    return [str(s) for s in live_statements(modules, fact_words(modules, facts))[0]]


def test_a_rule_whose_name_no_fact_gives_is_left_out() -> None:
    # CR 704.5k is asked only when some fact names the supertype legendary
    legend_rule = [s for s in kept(SBA, LEGEND) if s.startswith("_legend(")]
    assert legend_rule
    assert not [s for s in kept(SBA, BEAR) if s.startswith("_legend(")]


def test_rules_left_out_follow_through_the_rules() -> None:
    # with no planeswalker anywhere, 704.5j's helper goes, and so does the rule reading it
    rules = kept(SBA, BEAR)
    assert not [s for s in rules if "_pw_type" in s]
    assert [s for s in rules if s.startswith("value(")]  # the copiable values stay


def test_the_answer_is_the_same_with_and_without_pruning() -> None:
    for facts in (BEAR, LEGEND, BEAR + '\npermanent("y"). card_of("y", "bear"). controller_of("y", "a").'):
        pruned = Session(SBA, facts).solve().model
        whole = Session(SBA, facts, prune=False).solve().model
        assert pruned == whole


def test_without_a_show_statement_every_fact_stays() -> None:
    # a program with no #show shows every atom, so no fact may be left out of it
    modules = ("inputs", "characteristics/effects", "characteristics/final", "characteristics/pt", "combat/common")
    facts = BEAR + '\nlife("a", 20).\nhand_size("a", 3).'
    pruned = Session(modules, facts).solve().model
    assert pruned == Session(modules, facts, prune=False).solve().model
    assert any(str(a) == 'hand_size("a",3)' for a in pruned)


def test_a_fact_line_that_is_no_ground_term_goes_to_clingo_as_text() -> None:
    # plain facts go to clingo as symbols; a line the symbol parser can't read (an interval)
    # is given as text, which clingo expands as it would in a file
    modules = ("inputs", "characteristics/effects", "characteristics/final", "characteristics/pt", "combat/common")
    facts = BEAR + '\nhand_size("a", 1..2).'
    pruned = Session(modules, facts).solve().model
    assert pruned == Session(modules, facts, prune=False).solve().model
    assert {str(a) for a in pruned} >= {'hand_size("a",1)', 'hand_size("a",2)'}


def test_facts_holding_rules_turn_pruning_off() -> None:
    facts = BEAR + '\ncard_value("bear", supertype, S) :- S = legendary.'
    assert not Session(SBA, facts)._pruned
    assert Session(SBA, BEAR)._pruned


def test_a_pruned_session_takes_no_more_modules() -> None:
    with pytest.raises(RuleModuleError, match="prune=False"):
        Session(SBA, BEAR).add_modules(["turn/steps"])


@pytest.fixture
def check_pruning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(solver, "CHECK_PRUNING", True)


def test_the_cross_check_sees_a_wrong_pruning(check_pruning: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pruning that left out a rule that fires is caught by the cross-check."""
    real = solver.live_statements

    def too_few(modules: tuple[str, ...], words: frozenset[str]) -> tuple[tuple[object, ...], frozenset[str]]:
        statements, read = real(modules, words)
        return tuple(s for s in statements if not str(s).startswith("value(")), read

    monkeypatch.setattr(solver, "live_statements", too_few)
    dead_bear = BEAR.replace("toughness_base, 2", "toughness_base, 0")  # CR 704.5f: it dies
    assert Session(SBA, dead_bear, prune=False).solve().model
    with pytest.raises(RuleModuleError, match="changed the answer"):
        Session(SBA, dead_bear).solve()


def test_a_self_play_game_gets_the_same_answers_without_pruning(
    check_pruning: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared = []
    real = solver.Session._compare

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        compared.append(self)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(solver.Session, "_compare", counted)
    decks = shipped_decks()
    for a, b, seed in (("grave_pact", "white_weenie", 8), ("black_knights", "blue_skies", 2)):
        before = len(compared)
        result = play_game((load_deck(decks[a]), load_deck(decks[b])), seed=seed, max_actions=120)
        # each game's answers were compared with those of the whole modules, and none differed
        assert len(compared) > before, result.actions


SCENARIOS = sorted((Path(__file__).resolve().parent.parent / "scenarios").rglob("*.yaml"))[::9]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenarios_get_the_same_answers_without_pruning(path: Path, check_pruning: None) -> None:
    result = run_scenario(load_scenario(path), str(path))
    assert result.passed, result.difference


def test_the_facts_read_leave_out_only_plain_facts_of_inputs_no_statement_names() -> None:
    decks = shipped_decks()
    result = play_game((load_deck(decks["black_knights"]), load_deck(decks["grave_pact"])), seed=2, max_actions=60)
    from bridge.engine.game import Game

    position = Game(result.final).position
    two = 'library_card("x1", "alice", 1, "forest"). library_card("x2", "alice", 2, "forest").'
    more = position.facts + f"\nprobe_only(1).\n{two}"
    modules = ("inputs", "characteristics/effects", "characteristics/final", "stack/cast", "stack/mana")
    read = live_statements(modules, fact_words(modules, more))[1]
    assert "library_card" not in read and "permanent" in read
    kept = solver._read_facts(more, read).split("\n")
    # a plain fact of an input predicate nothing reads goes; a line of two facts, a fact of
    # another predicate and the facts of predicates read stay
    assert not any(line.startswith("library_card(") for line in kept if line != two)
    assert two in kept and "probe_only(1)." in kept
    assert [line for line in more.split("\n") if line.startswith("permanent(")] == [
        line for line in kept if line.startswith("permanent(")
    ]
    # the same again once the lines are known
    assert solver._read_facts(more, read).split("\n") == kept


def test_the_analysis_kept_on_disk_is_the_analysis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What pruning needs of each statement is read back from disk as it was worked out; a
    damaged file, or one of another module text, is worked out again (and written anew)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    modules = ("characteristics/final", "stack/mana", "combat/block")
    solver._module_analysis.cache_clear()
    try:
        first = {m: solver._module_analysis(m) for m in modules}
        files = sorted((tmp_path / "mtgasp").iterdir())
        assert len(files) == len(modules)
        for m in modules:
            assert first[m] == solver._analyse(m)
        # a process that finds the files reads them
        solver._module_analysis.cache_clear()
        monkeypatch.setattr(solver, "_analyse", lambda name: pytest.fail(f"{name} analysed again"))
        assert {m: solver._module_analysis(m) for m in modules} == first
        # a damaged file is analysed again
        monkeypatch.undo()
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        for f in files:
            f.write_text('{"rules": [null], "names": []}', encoding="utf-8")
        solver._module_analysis.cache_clear()
        assert {m: solver._module_analysis(m) for m in modules} == first
        assert all(f.read_text(encoding="utf-8").startswith('{"module"') for f in files)
    finally:
        solver._module_analysis.cache_clear()


def test_an_unwritable_analysis_folder_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    solver._module_analysis.cache_clear()
    try:
        assert solver._module_analysis("stack/cast") == solver._analyse("stack/cast")
    finally:
        solver._module_analysis.cache_clear()


def _program_of(text: str) -> solver._Program:
    """A program of the given text as pruning sees it (its statements, rules and names)."""
    statements: list[object] = []
    clingo.ast.parse_string(text, statements.append)
    body = [s for s in statements if s.ast_type != clingo.ast.ASTType.Program]  # type: ignore[attr-defined]
    rules = tuple(solver._rule(s) for s in body)  # type: ignore[arg-type]
    return solver._Program(
        statements=tuple(body),  # type: ignore[arg-type]
        declarations=tuple(False for _ in body),
        names=tuple(solver._statement_names(s) for s in body),  # type: ignore[arg-type]
        rules=rules,
        needs=(),
        words=(),
        vocabulary=frozenset(),
        shows=True,
    )


def test_a_rule_whose_head_nothing_needs_is_left_out_unless_that_changes_the_answers() -> None:
    # r is derived and never read: it goes; p and q are read by no other statement either,
    # but p's rule negates q, which q's rule derives: left out together they would drop the
    # program's contradiction (no answer set), so both stay
    text = "#show a/0. a :- b. b. p :- not q. q :- p. r :- b."
    program = _program_of(text)
    kept = [str(program.statements[i]) for i in solver._needed(program, list(range(len(program.statements))))]
    assert kept == ["#show a/0.", "a :- b.", "b.", "p :- not q.", "q :- p."]
    whole = clingo.Control()
    whole.add("base", [], text)
    whole.ground([("base", [])])
    pruned = clingo.Control()
    pruned.add("base", [], "\n".join(kept))
    pruned.ground([("base", [])])
    assert not whole.solve().satisfiable and not pruned.solve().satisfiable
    # with the contradiction gone, the rules nothing needs go too
    program = _program_of("#show a/0. a :- b. b. p :- q. q :- p. r :- b.")
    kept = [str(program.statements[i]) for i in solver._needed(program, list(range(len(program.statements))))]
    assert kept == ["#show a/0.", "a :- b.", "b."]


def test_the_texts_of_cards_no_read_fact_names_are_left_out() -> None:
    decks = shipped_decks()
    result = play_game((load_deck(decks["black_knights"]), load_deck(decks["grave_pact"])), seed=2, max_actions=60)
    from bridge.engine.game import Game

    game = Game(result.final)
    state = game.state
    elsewhere = {game.position.cards[o.id or ""].id for o in state.permanents()}
    elsewhere |= {game.position.cards[o.id or ""].id for p in state.players for o in [*p.hand, *p.graveyard]}
    only_library = {game.position.cards[o.id or ""].id for p in state.players for o in p.library} - elsewhere
    assert only_library
    name_fact = f'card_value("{sorted(only_library)[0]}", name,'
    assert name_fact in game.position.facts
    # the state-based actions read no library: the texts of its cards are not given
    assert name_fact not in solver._prepare(SBA, game.position.facts, (), True).facts
    # alice dredging Darkblast from her graveyard (CR 702.49a): the library's size counts, and
    # the texts are given
    dredging = "\n".join(
        [
            game.position.facts,
            'zone_card("db", "alice", graveyard, "darkblast").',
            'replacement_order("alice", "db", 1).',
            *CardPool.default().get("darkblast").facts(),
        ]
    )
    assert name_fact in solver._prepare(SBA, dredging, (), True).facts
    # and the answers are those of the whole modules with every fact
    for facts in (game.position.facts, dredging):
        assert Session(SBA, facts).solve().model == Session(SBA, facts, prune=False).solve().model
