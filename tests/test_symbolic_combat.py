"""mtgasp verify --prove: the properties of declarations (requirements, citations, renaming)
proven over every small position and every declaration of attackers and blockers by one
search of the solver.  Each way they can fail is found when a rule planted in the program
makes it fail: the empty declaration breaking a rule, a judgement that misses an unobeyed
requirement, a reason that cites no rule, a verdict that reads a timestamp's value or the
order of the ids; a position whose every declaration is illegal is not lost; the failure is
read back as the position and declaration the program chose."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.model.actions import DeclareAttackers, DeclareBlockers
from bridge.model.cards import CardPool
from bridge.model.errors import InputError
from bridge.play import symbolic_combat
from bridge.play import verify as verify_module
from bridge.play.positions import elements
from bridge.play.symbolic_combat import prove_declarations, uncited_rules
from bridge.play.verify import verify

POOL = CardPool.default()
# Juggernaut must attack (508.1d), Lure must be blocked by all (509.1c), Wall of Wood can't
# attack, Serra Angel flies, Giant Spider has reach
CARDS = ["Grizzly Bears", "Juggernaut", "Lure", "Wall of Wood", "Serra Angel", "Giant Spider"]


def planted(monkeypatch: pytest.MonkeyPatch, rules: str) -> None:
    """The search's program with ``rules`` added."""
    monkeypatch.setattr(symbolic_combat, "GOAL", symbolic_combat.GOAL + rules)
    symbolic_combat._grounded.cache_clear()


def search(
    kind: str, properties: tuple[str, ...] = ("requirements", "citations"), k: int = 2
) -> symbolic_combat.Search:
    return prove_declarations(CARDS, kind=kind, max_permanents=k, properties=properties, pool=POOL)


@pytest.mark.parametrize("kind", ["attack", "block"])
def test_the_rules_hold(kind: str) -> None:
    found = search(kind)
    assert found.complete and found.holds and found.chunks_done == found.chunks == len(elements(POOL, CARDS))


@pytest.mark.parametrize("kind", ["attack", "block"])
def test_every_chunk_has_positions(monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    # a failure planted in every position: one is found in each chunk (the search isn't vacuous;
    # at the declaration of blockers, a chunk whose first permanent can't attack and has no
    # creature of the active player after it has no position)
    planted(monkeypatch, "g_fail(requirements, planted, none) :- g_used(1).")
    found = prove_declarations(CARDS, kind=kind, max_permanents=2, pool=POOL, limit=1000)
    assert found.complete and not found.holds
    if kind == "attack":
        assert len(found.failures) == found.chunks
    else:
        assert 0 < len(found.failures) < found.chunks
        assert all(f.position.attackers for f in found.failures)


def test_the_empty_declaration_breaking_a_rule_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, 'violation(declared, planted, (o(2),)) :- g_at(2, E), g_elem(E, "serra_angel", "bob").')
    found = search("attack", ("requirements",))
    assert not found.holds and found.failures
    failure = found.failures[0]
    assert (
        failure.property == "requirements"
        and "empty declaration of attackers breaks a rule: planted" in failure.problem
    )
    assert failure.declaration == DeclareAttackers(attackers={})
    assert [p.card for p in failure.position.pieces][1] == "Serra Angel" and failure.position.pieces[1].side == 1


def test_a_judgement_that_misses_an_unobeyed_requirement_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # without the judgement against the search's declarations, the empty declaration of
    # blockers looks legal beside a Lure that could be blocked
    real = symbolic_combat.prefixed_statements

    def statements(modules, prefix, where, constraint, facts="", parts=()):  # type: ignore[no-untyped-def]
        return real(modules, prefix, where, constraint, facts, [p for p in parts if "judgement" not in p[0]])

    monkeypatch.setattr(symbolic_combat, "prefixed_statements", statements)
    symbolic_combat._grounded.cache_clear()
    found = search("attack", ("requirements",), k=1)
    (failure,) = found.failures
    assert "obeys req(attack,o(1)," in failure.problem and failure.declaration == DeclareAttackers(attackers={})
    assert failure.position.pieces[0].card == "Juggernaut" and not failure.position.pieces[0].tapped
    # Lure on an attacking creature, and a creature that could block it: three permanents
    symbolic_combat._grounded.cache_clear()
    found = prove_declarations(["Grizzly Bears", "Lure"], kind="block", max_permanents=3, pool=POOL)
    failure = found.failures[0]
    assert "obeys req(block_it" in failure.problem and failure.declaration == DeclareBlockers(blockers={})
    assert sorted(p.card for p in failure.position.pieces) == ["Grizzly Bears", "Grizzly Bears", "Lure"]
    assert failure.position.attackers


def test_a_reason_that_cites_no_rule_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, "violation(declared, planted_reason, (o(B),)) :- declared_block(o(B), o(A)), B < A.")
    assert search("block", ("requirements",)).holds  # only a declaration that blocks: requirements hold
    found = search("block", ("citations",))
    failure = found.failures[0]
    assert failure.property == "citations" and failure.problem.endswith("cites none: planted_reason")
    assert isinstance(failure.declaration, DeclareBlockers) and failure.declaration.blockers
    ids = failure.position.ids()
    (blocker, attacked), *_ = failure.declaration.blockers.items()
    assert ids.index(blocker) < ids.index(attacked[0])
    assert failure.position.pieces[ids.index(attacked[0])].side == 0


def test_a_position_whose_every_declaration_breaks_a_rule_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    # the search's world must break no rule, but a position where even its empty declaration
    # breaks one stays, and the empty declaration of the world `declared` shows it
    planted(monkeypatch, "violation(W, planted, (o(1),)) :- g_used(2), W = (declared; search).")
    found = search("attack", ("requirements",))
    assert not found.holds and "breaks a rule: planted" in found.failures[0].problem


def in_the_modules(monkeypatch: pytest.MonkeyPatch, rules: str) -> None:
    """The search's program with ``rules`` added to the modules, in each copy with its own
    predicates."""
    real = symbolic_combat.prefixed_statements

    def statements(modules, prefix, where, constraint, facts="", parts=()):  # type: ignore[no-untyped-def]
        return real(modules, prefix, where, constraint, f"{facts}\n{rules}", parts)

    monkeypatch.setattr(symbolic_combat, "prefixed_statements", statements)
    symbolic_combat._grounded.cache_clear()


@pytest.mark.parametrize(
    ("rules", "kind", "what"),
    [
        # a rule reading a timestamp's value: only the renamed copy's are above 100
        (
            "violation(declared, planted, (C,)) :- attacks(declared, C, _), timestamp(C, T), T > 100.",
            "attack",
            "with its objects (o(1),) renamed",
        ),
        # a rule reading the order of the ids: the renamed copy's are in the reverse order
        (
            "violation(declared, planted, (B,)) :- blocks(declared, B, _), blocks(declared, C, _), B < C.",
            "block",
            "with its objects (o(",
        ),
    ],
)
def test_a_verdict_that_depends_on_names_or_timestamps_is_found(
    monkeypatch: pytest.MonkeyPatch, rules: str, kind: str, what: str
) -> None:
    assert search(kind, ("renaming",), k=3 if kind == "block" else 1).holds
    in_the_modules(monkeypatch, rules)
    found = search(kind, ("renaming",), k=3 if kind == "block" else 1)
    failure = found.failures[0]
    assert failure.property == "renaming" and "breaks the rule planted in one copy" in failure.problem
    assert what in failure.problem
    if kind == "block":
        assert isinstance(failure.declaration, DeclareBlockers) and len(failure.declaration.blockers) == 2
    # the requirements and citations don't see it (the planted reason is asked of them too)
    assert search(kind, ("requirements",), k=1).holds


def test_verify_keeps_what_the_search_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    planted(monkeypatch, 'violation(declared, planted, (o(1),)) :- g_at(1, E), g_elem(E, "juggernaut", "alice").')
    report = verify(CARDS, max_permanents=1, properties=["requirements"], pool=POOL, prove=True, rules_text=frozenset())
    assert report.complete and [s.kind for s in report.searches] == ["attack", "block"]
    assert report.checked["requirements"] == 0  # proven, not checked position by position
    # the engine has no such rule: each finding says what the search found, a Juggernaut
    # untapped and tapped at each declaration (attacking at the declaration of blockers)
    steps = [(f.state.step, f.state.players[0].battlefield[0].tapped) for f in report.findings]
    assert sorted(steps) == [(s, t) for s in ("declare_attackers", "declare_blockers") for t in (False, True)]
    for finding in report.findings:
        assert finding.property == "requirements" and finding.message.startswith("the proof over every position:")
        assert finding.action in (DeclareAttackers(attackers={}), DeclareBlockers(blockers={}))
        (juggernaut,) = finding.state.players[0].battlefield
        assert juggernaut.card == "Juggernaut"
        assert (juggernaut.attacking == "bob") == (finding.state.step == "declare_blockers")


def test_what_the_search_finds_and_the_check_confirms_is_shrunk(monkeypatch: pytest.MonkeyPatch) -> None:
    # the search and the position-by-position check both fail where alice has a Juggernaut
    planted(monkeypatch, 'violation(declared, planted, (o(S),)) :- g_at(S, E), g_elem(E, "juggernaut", "alice").')

    def check(check: verify_module.Check) -> verify_module.Problem | None:
        if any(p.card == "Juggernaut" for p in check.state.players[0].battlefield):
            return verify_module.Problem("a planted problem", ("508.1d",))
        return None

    real = verify_module.PROPERTIES["requirements"]
    monkeypatch.setitem(verify_module.PROPERTIES, "requirements", dataclasses.replace(real, check=check))
    report = verify(CARDS, max_permanents=2, properties=["requirements"], pool=POOL, prove=True)
    assert report.findings and all(f.message == "a planted problem" for f in report.findings)
    # shrunk to the Juggernaut alone: the search's positions of two permanents add nothing
    assert all([p.card for p in f.state.permanents()] == ["Juggernaut"] for f in report.findings)
    assert any(len(f.original.permanents()) == 2 for f in report.findings if f.original is not None)


def test_the_rules_the_citations_table_cites_are_looked_up() -> None:
    assert uncited_rules(frozenset()) == []
    everything = frozenset({"508.1", "508.1a", "508.1b", "508.1c", "508.1d", "302.6", "506.3"})
    missing = uncited_rules(everything)
    assert "509.1c" in missing and "508.1d" not in missing
    report = verify(
        ["Grizzly Bears"], max_permanents=1, properties=["citations"], pool=POOL, prove=True, rules_text=everything
    )
    assert any(
        "cites rules the rules text doesn't have: " in f.message and "509.1c" in f.message for f in report.findings
    )


def test_bad_input() -> None:
    with pytest.raises(InputError, match="no proof of 'actions'"):
        prove_declarations(CARDS, kind="attack", max_permanents=1, properties=("actions",))
    with pytest.raises(InputError, match="declarations of 'damage'"):
        prove_declarations(CARDS, kind="damage", max_permanents=1)
    with pytest.raises(InputError, match="at least one permanent"):
        prove_declarations(CARDS, kind="block", max_permanents=0)


def test_command_prove(tmp_path: Path) -> None:
    summary = tmp_path / "v.json"
    result = CliRunner().invoke(
        main,
        [
            "verify",
            "--cards",
            "Grizzly Bears,Lure",
            "--max-permanents",
            "2",
            "--properties",
            "requirements,citations",
            "--positions",
            "0",
            "--prove",
            "--json",
            str(summary),
            "--out",
            str(tmp_path / "findings"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "requirements, citations proven at the declaration of attackers over every position" in result.output
    assert "proven at the declaration of blockers" in result.output
    assert "checked: nothing" in result.output
    # the characteristics not proven in the same run: what the searches assume is said
    assert "note: the searches cover the positions whose characteristics have an answer set" in result.output
    data = json.loads(summary.read_text())
    assert [(s["kind"], s["holds"], s["chunks_done"]) for s in data["searches"]] == [
        ("attack", True, 6),
        ("block", True, 6),
    ]
