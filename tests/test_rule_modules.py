"""The rule modules keep the house rules, checked on their syntax trees.

Every module (``asp_rules/**/*.lp``) is parsed with ``clingo.ast``: the predicates each rule
derives (its head, an ``#external``), those it reads (its body, the conditions in its head,
an ``#external``'s condition, ``#minimize``/``#maximize``, ``#show`` terms), the
``#defined`` inputs and the ``#show`` outputs.  On them: every public predicate has a row in
``asp_rules/README.md``; ``#defined`` declares only true inputs (facts the bridge gives),
never a derived predicate; nothing derived goes unread (a rule reads it, a module shows it,
or the bridge reads it from an answer: ``s.match("name", arity)``, ``atoms(model, "name", arity)``,
``.name == "name"``) and
no input is given for nothing;
every module has its header and cites the rules it implements, every rule or group of rules
under a ``% CR`` comment, with rule numbers the October 2009 rules text has; and every
module grounds without a warning in each company the engine loads it with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import clingo
import clingo.ast
import pytest

from bridge.engine import solver
from bridge.engine.acting import ACTING
from bridge.engine.board import (
    ATTACK,
    BLOCK,
    CHOICES,
    DAMAGE,
    DEALING,
    DEALING_PARTS,
    DECLARED,
    ORDER,
    PRIORITY,
    SBA,
    SEARCH,
    TURN,
)
from bridge.engine.forall import FORALL, FORALL_PARTS
from bridge.engine.game import Game
from bridge.engine.replacement import MODULES as REPLACEMENT
from bridge.engine.resolve import RESOLVING, RESOLVING_PARTS
from bridge.engine.solver import Session
from bridge.model.citations import cited_numbers, rule_numbers
from bridge.model.paths import rules_dir, rules_text_file

_T = clingo.ast.ASTType
Signature = tuple[str, int]
ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(str(p.relative_to(rules_dir()))[:-3] for p in rules_dir().rglob("*.lp"))


# ---------------------------------------------------------------------- reading the modules
@dataclass
class Module:
    """What one module derives, reads, declares and shows (signature -> first line)."""

    name: str
    lines: list[str]
    derives: dict[Signature, int] = field(default_factory=dict)
    reads: dict[Signature, int] = field(default_factory=dict)
    defined: dict[Signature, int] = field(default_factory=dict)
    shown: dict[Signature, int] = field(default_factory=dict)
    outputs: dict[Signature, int] = field(default_factory=dict)  # terms of #show Term : Body
    rule_lines: list[int] = field(default_factory=list)  # first line of every rule, #external, #minimize
    parts: dict[str, int] = field(default_factory=dict)  # program part -> number of parameters


def _signatures(term: clingo.ast.AST) -> Iterator[Signature]:
    """The predicates of the term of a symbolic atom (each of a pool)."""
    if term.ast_type == _T.Pool:
        for alternative in term.arguments:
            yield from _signatures(alternative)
    elif term.ast_type == _T.Function and not term.external:
        yield term.name, len(term.arguments)
    elif term.ast_type == _T.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        yield term.symbol.name, len(term.symbol.arguments)


def _atoms(node: object) -> Iterator[Signature]:
    """The predicates of every symbolic atom below a node."""
    if isinstance(node, clingo.ast.AST):
        if node.ast_type == _T.SymbolicAtom:
            yield from _signatures(node.symbol)
        for key in node.child_keys:
            yield from _atoms(getattr(node, key))
    elif isinstance(node, (list, tuple, clingo.ast.ASTSequence)):
        for item in node:
            yield from _atoms(item)


def _head(head: clingo.ast.AST) -> tuple[list[Signature], list[clingo.ast.AST]]:
    """The predicates a rule head derives, and the parts of it that are conditions (read)."""
    kind = head.ast_type
    if kind == _T.Literal:
        return list(_atoms(head.atom)), []
    if kind in (_T.Aggregate, _T.Disjunction):
        return ([s for e in head.elements for s in _atoms(e.literal)], [e.condition for e in head.elements])
    if kind == _T.HeadAggregate:
        return (
            [s for e in head.elements for s in _atoms(e.condition.literal)],
            [e.condition.condition for e in head.elements],
        )
    raise AssertionError(f"a head of a kind this test doesn't know: {head}")


def _parse(name: str) -> Module:
    path = rules_dir() / f"{name}.lp"
    module = Module(name, path.read_text(encoding="utf-8").splitlines())

    def note(table: dict[Signature, int], sigs: object, line: int) -> None:
        for sig in sigs:  # type: ignore[attr-defined]
            table.setdefault(sig, line)

    def visit(s: clingo.ast.AST) -> None:
        line = s.location.begin.line
        if s.ast_type == _T.Rule:
            derived, conditions = _head(s.head)
            note(module.derives, derived, line)
            note(module.reads, _atoms(conditions), line)
            note(module.reads, _atoms(s.body), line)
            module.rule_lines.append(line)
        elif s.ast_type == _T.External:
            note(module.derives, _atoms(s.atom), line)
            note(module.reads, _atoms(s.body), line)
            module.rule_lines.append(line)
        elif s.ast_type == _T.Minimize:
            note(module.reads, _atoms(s), line)
            module.rule_lines.append(line)
        elif s.ast_type == _T.ShowTerm:
            note(module.reads, _atoms(s.body), line)
            note(module.outputs, _signatures(s.term), line)
        elif s.ast_type == _T.ShowSignature:
            module.shown.setdefault((s.name, s.arity), line)
        elif s.ast_type == _T.Defined:
            module.defined.setdefault((s.name, s.arity), line)
        elif s.ast_type == _T.Program and s.name != "base":
            module.parts[s.name] = len(s.parameters)

    clingo.ast.parse_files([str(path)], visit)
    return module


PARSED = {name: _parse(name) for name in MODULES}


def _where(table: str, sig: Signature) -> str:
    """The modules (with lines) whose ``table`` holds a predicate."""
    return ", ".join(f"{m.name}:{getattr(m, table)[sig]}" for m in PARSED.values() if sig in getattr(m, table))


def _all(table: str) -> set[Signature]:
    return {sig for m in PARSED.values() for sig in getattr(m, table)}


def _public(sig: Signature) -> bool:
    return not sig[0].startswith("_")


def _show(sigs: set[Signature], table: str) -> str:
    return "\n".join(f"  {n}/{a} ({_where(table, (n, a))})" for n, a in sorted(sigs))


# ---------------------------------------------------------------------- what the bridge reads
def _bridge_reads() -> tuple[set[Signature], set[str]]:
    """The atoms the bridge reads from an answer: ``s.match("name", arity)`` and
    ``atoms(model, "name", arity)`` (a signature), ``.name == "name"``, ``.name in (...)`` and
    ``.get("name")`` (a name, any arity)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "bridge").rglob("*.py")))
    sigs = {(n, int(a)) for n, a in re.findall(r'\.match\(\s*"(\w+)",\s*(\d+)\)', text)}
    sigs |= {(n, int(a)) for n, a in re.findall(r'\batoms\(\s*[^,()]+(?:\(\))?,\s*"(\w+)",\s*(\d+)\)', text)}
    names = set(re.findall(r'\.name\s*==\s*"(\w+)"', text)) | set(re.findall(r'\.get\(\s*"(\w+)"', text))
    for group in re.findall(r"\.name\s+in\s+\(([^)]*)\)", text):
        names |= set(re.findall(r'"(\w+)"', group))
    return sigs, names


def _read_by_bridge(sig: Signature) -> bool:
    sigs, names = BRIDGE_READS
    return sig in sigs or sig[0] in names


BRIDGE_READS = _bridge_reads()


def test_the_bridge_reads_are_found() -> None:
    sigs, names = BRIDGE_READS
    assert {("violation", 3), ("cites", 3), ("legal_target", 3), ("sba", 2)} <= sigs
    assert {"has_name", "has_type", "explain_value"} <= names


# ---------------------------------------------------------------------- the predicate table
def _readme_predicates() -> set[Signature]:
    """The predicates named in the first column of the README's predicate tables: `name/N`,
    `name(A, B)` (the arguments counted at the top level) or a bare `name` (no arguments)."""
    out: set[Signature] = set()
    text = (rules_dir() / "README.md").read_text(encoding="utf-8")
    tables = text[text.index("## Predicates") :]
    for line in tables.splitlines():
        if not line.startswith("| `"):
            continue
        for span in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
            found = re.fullmatch(r"(\w+)/(\d+)", span)
            if found:
                out.add((found[1], int(found[2])))
                continue
            found = re.fullmatch(r"(\w+)(?:\((.*)\))?", span)
            if found is None:
                continue
            arguments, depth, arity = found[2], 0, 0
            if arguments is not None:
                arity = 1
                for char in arguments:
                    depth += char in "(["
                    depth -= char in ")]"
                    arity += char == "," and depth == 0
            out.add((found[1], arity))
    return out


def test_every_public_predicate_is_in_the_readme_table() -> None:
    named = _readme_predicates()
    missing = {
        sig for sig in _all("derives") | _all("reads") | _all("defined") | _all("outputs") if _public(sig)
    } - named
    assert not missing, "predicates without a row in asp_rules/README.md:\n" + "\n".join(
        f"  {n}/{a} ({_where('derives', (n, a)) or _where('reads', (n, a))})" for n, a in sorted(missing)
    )


def test_the_readme_table_names_no_predicate_the_modules_lack() -> None:
    known = _all("derives") | _all("reads") | _all("defined") | _all("outputs")
    stale = _readme_predicates() - known
    assert not stale, "rows of asp_rules/README.md naming no predicate of the modules:\n" + "\n".join(
        f"  {n}/{a}" for n, a in sorted(stale)
    )


def test_the_readme_module_table_lists_every_module() -> None:
    text = (rules_dir() / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"(?m)^\| `([\w/]+)\.lp` \|", text))
    assert listed == set(MODULES), (
        f"not listed: {sorted(set(MODULES) - listed)}; no such module: {sorted(listed - set(MODULES))}"
    )


# ---------------------------------------------------------------------- inputs and outputs
def test_defined_declares_only_inputs() -> None:
    """``#defined`` keeps clingo quiet about a fact the bridge may not give; a predicate some
    rule derives (or an ``#external`` declares) needs no declaration, and one would hide a
    misspelling or a module left out."""
    # combat/attack_forall.lp makes the blocks of the position (blocking/2) a choice among the
    # legal declarations of blockers: the damage modules read them as they read the facts
    forall = PARSED["combat/attack_forall"]
    derived = {sig for m in PARSED.values() if m is not forall for sig in m.derives}
    hidden = _all("defined") & (derived | (forall.derives.keys() - {("blocking", 2)}))
    assert not hidden, "#defined, yet derived:\n" + "\n".join(
        f"  {n}/{a}: #defined in {_where('defined', (n, a))}; derived in {_where('derives', (n, a))}"
        for n, a in sorted(hidden)
    )


def test_inputs_are_declared_in_inputs_lp() -> None:
    """Every input is declared once, in inputs.lp (explain.lp's explained/1 is its own)."""
    elsewhere = {(m.name, sig) for m in PARSED.values() if m.name != "inputs" for sig in m.defined}
    assert elsewhere <= {("characteristics/explain", ("explained", 1))}, sorted(elsewhere)


def test_every_input_is_read() -> None:
    """A fact no rule reads is given for nothing."""
    unread = _all("defined") - _all("reads")
    assert not unread, "#defined inputs no rule reads:\n" + _show(unread, "defined")


def test_every_read_predicate_is_derived_or_an_input() -> None:
    undefined = _all("reads") - _all("derives") - _all("defined")
    assert not undefined, "read, yet neither derived nor #defined:\n" + _show(undefined, "reads")


def test_nothing_derived_goes_unread() -> None:
    """A derived predicate is read by a rule, shown, or read by the bridge from an answer
    (a question whose modules show everything); helpers (``_``) are read by a rule."""
    unread = {
        sig
        for sig in _all("derives") - _all("reads")
        if not _public(sig) or (sig not in _all("shown") and not _read_by_bridge(sig))
    }
    assert not unread, "derived and never read:\n" + _show(unread, "derives")


def test_shown_predicates_are_derived() -> None:
    nothing = _all("shown") - _all("derives")
    assert not nothing, "shown, yet derived by no rule:\n" + _show(nothing, "shown")


# ---------------------------------------------------------------------- headers and citations
_CR = re.compile(r"%.*\bCR \d{3}")
# a rule's citation is in the comment above its group of rules (lines with no blank line or
# comment between them), or a few lines further up, within the same section
_REACH = 6


def test_every_module_has_a_header() -> None:
    bad = []
    for m in PARSED.values():
        header = []
        for line in m.lines:
            if not line.startswith("%"):
                break
            header.append(line)
        text = "\n".join(header)
        if not header or not header[0].startswith(f"% {m.name}.lp -- ") or "Input" not in text or "Output" not in text:
            bad.append(m.name)
    assert not bad, "modules without a header (% name.lp -- purpose; Input ...; Output ...): " + ", ".join(bad)


def test_every_module_cites_the_rules() -> None:
    bad = [m.name for m in PARSED.values() if not any(_CR.search(line) for line in m.lines)]
    assert not bad, "modules citing no rule: " + ", ".join(bad)


def _uncited(m: Module) -> Iterator[int]:
    """The first lines of the rules of a module with no ``% CR`` comment above their group: in
    the comment right above the group's first line, or a few lines further up in the section."""
    lines = m.lines

    def divider(line: str) -> bool:
        return line.startswith(("% ---", "% ===", "#program"))

    for start in m.rule_lines:
        i = start - 1
        while i >= 1 and lines[i - 1].strip() and not lines[i - 1].lstrip().startswith(("%", "#program")):
            i -= 1  # up the group: lines with no blank line or comment between them
        if i >= 1 and lines[i - 1].startswith("#program"):
            i -= 1  # a part's first group: the comment above the part's name
        while i >= 1 and lines[i - 1].startswith("%") and not _CR.search(lines[i - 1]) and not divider(lines[i - 1]):
            i -= 1  # up the comment right above it
        if i >= 1 and _CR.search(lines[i - 1]):
            continue
        for j in range(i, max(0, i - _REACH), -1):
            line = lines[j - 1].strip()
            if _CR.search(line):
                break
            if divider(line):
                yield start
                break
        else:
            yield start


def test_every_rule_group_cites_a_rule() -> None:
    bad = [f"  {m.name}.lp:{n}: {m.lines[n - 1].strip()}" for m in PARSED.values() for n in _uncited(m)]
    assert not bad, "rules with no % CR comment above their group:\n" + "\n".join(bad)


def test_cited_numbers_are_read_with_their_ranges() -> None:
    assert list(cited_numbers("% CR 704.5a-s, 613.1-613.3 (500-514; 702.19j-k) and 509.1c.")) == [
        "704.5a",
        "704.5s",
        "613.1",
        "613.3",
        "500",
        "514",
        "702.19j",
        "702.19k",
        "509.1c",
    ]


def test_modules_and_readme_cite_rules_that_exist() -> None:
    path = rules_text_file()
    if path is None:
        pytest.skip("the rules text (shared/seeds/000_00f3c3315372eec8.txt beside the checkout) is absent")
    rules = rule_numbers(path.read_text(encoding="utf-8", errors="replace"))
    unknown = []
    for m in PARSED.values():
        for n, line in enumerate(m.lines, start=1):
            if "%" in line:
                unknown += [f"  {m.name}.lp:{n}: {x}" for x in cited_numbers(line[line.index("%") :]) if x not in rules]
    readme = (rules_dir() / "README.md").read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(readme, start=1):
        unknown += [f"  README.md:{n}: {x}" for x in cited_numbers(line) if x not in rules]
    assert not unknown, "rule numbers the October 2009 rules text doesn't have:\n" + "\n".join(unknown)


# ---------------------------------------------------------------------- grounding in company
Part = tuple[str, tuple[object, ...]]
D, S = (DECLARED,), (SEARCH,)


def _engine_modules(*area: str, layered: bool, pt: bool = True) -> tuple[str, ...]:
    """The modules the engine loads for a question about ``area`` (Game.modules)."""
    position = SimpleNamespace(position=SimpleNamespace(layered=layered))
    return Game.modules(position, *area, pt=pt)  # type: ignore[arg-type]


def _declarations(kind: str) -> list[tuple[tuple[str, ...], bool, tuple[Part, ...]]]:
    """The questions on declarations of attackers or blockers (bridge/engine/board.py): many declarations
    judged on one grounding, with the maximum an earlier search found; one declaration judged
    afresh, with the search when it is needed; the search for the maximum; every legal one."""
    modules = ATTACK if kind == "attack" else BLOCK
    judged = (*modules[:-1], f"combat/{kind}_results")
    return [
        (judged, False, ((kind, D), (f"{kind}_externals", ()), (f"{kind}_judgement", ()))),
        (
            (*judged, modules[-1]),
            False,
            (
                (kind, D),
                (kind, S),
                (f"{kind}_search", ()),
                (f"{kind}_search_always", ()),
                (f"{kind}_judgement", ()),
                (f"{kind}_judgement_by_search", ()),
            ),
        ),
        (modules, False, ((kind, S), (f"{kind}_search", ()), (f"{kind}_search_max", ()))),
    ]


def companies() -> list[tuple[tuple[str, ...], tuple[Part, ...]]]:
    """Every set of modules the engine loads together, with the program parts it grounds."""
    questions: list[tuple[tuple[str, ...], bool, tuple[Part, ...]]] = [  # area, power and toughness, parts
        ((), True, ()),
        (("characteristics/show",), True, ()),
        (("characteristics/players",), True, ()),
        *_declarations("attack"),
        *_declarations("block"),
        (ORDER, False, (("order_choices", ()),)),
        (DAMAGE, True, (("damage_assignment", D), ("damage_assignment", S), ("damage_search", ()))),
        ((*DAMAGE, *DEALING), True, (("damage_assignment", D), *DEALING_PARTS)),
        ((*DAMAGE, "combat/damage_explain"), True, (("damage_assignment", D),)),
        (FORALL, True, FORALL_PARTS),
        ((*SBA, *TURN), True, ()),
        (ACTING, True, (("payments", ()),)),
        (ACTING, True, (("judged_ways", ()),)),
        (RESOLVING, True, RESOLVING_PARTS),
        (("stack/objects", "stack/triggers"), True, ()),
        (("combat/common",), True, ()),
        (REPLACEMENT, False, ()),
        (CHOICES, False, ()),
    ]
    out = [
        (_engine_modules(*area, layered=layered, pt=pt), parts)
        for area, pt, parts in questions
        for layered in (False, True)
    ]
    out.append((_engine_modules("characteristics/explain", layered=True), ()))
    out += [(PRIORITY, ()), (("combat/citations",), ()), (("inputs", "stack/delayed"), ())]
    out.append((("inputs", "stack/trigger_order"), ()))
    return out


def test_every_module_and_part_is_in_some_company() -> None:
    loaded = {name for modules, _ in companies() for name in modules}
    assert loaded == set(MODULES), f"modules the engine never loads: {sorted(set(MODULES) - loaded)}"
    grounded = {(name, part) for modules, parts in companies() for name in modules for part, _ in parts}
    never = [f"{m.name}: {part}" for m in PARSED.values() for part in m.parts if (m.name, part) not in grounded]
    assert not never, "program parts never grounded with their module: " + ", ".join(never)


@pytest.mark.parametrize(
    "company", companies(), ids=lambda c: "+".join(m.split("/")[-1] for m in c[0] if m != "inputs")
)
def test_every_module_grounds_without_warnings_in_company(company: tuple[tuple[str, ...], tuple[Part, ...]]) -> None:
    """Ground the whole modules (no rule left out) with the program parts the engine grounds
    with them: a warning (an atom undefined, an operation undefined, an unsafe variable) is
    raised as RuleModuleError."""
    modules, parts = company
    session = Session(modules, "", parts, prune=False)
    assert session.solve(models=1).satisfiable


# Local names (a leading underscore) that two modules of the layers define together on
# purpose: characteristics/dependency.lp adds hypothetical states to the states of
# characteristics/layers.lp (_prev, _at), and characteristics/text.lp adds the text-changing
# layer's changes to them and to the filters of final.lp and pt.lp (_add, _del, _filter,
# _cda_filter, _need_does).
SHARED_LOCAL_NAMES = frozenset(
    {("_prev", 2), ("_at", 2), ("_add", 4), ("_del", 4), ("_filter", 3), ("_cda_filter", 4), ("_need_does", 2)}
)


def _local_heads(module: str) -> set[tuple[str, int]]:
    rules = solver._module_rules(module)
    return {h for r in rules if r is not None for h in r.heads if h[0].startswith("_")}


def test_modules_loaded_together_define_no_local_name_twice() -> None:
    """A local name is the module's own: two modules of one question that define the same
    one share atoms without meaning to (characteristics/pt.lp's creatures with counters and
    stack/zones.lp's countered spells were both `_countered`)."""
    clashes = set()
    for modules, _parts in companies():
        for i, first in enumerate(modules):
            for second in modules[i + 1 :]:
                for sig in (_local_heads(first) & _local_heads(second)) - SHARED_LOCAL_NAMES:
                    clashes.add((f"{sig[0]}/{sig[1]}", first, second))
    assert not clashes, sorted(clashes)
    # the ones shared on purpose are still shared (else the list above is out of date)
    shared = {sig for modules, _ in companies() for m in modules for sig in _local_heads(m)}
    assert all(sig in shared for sig in SHARED_LOCAL_NAMES)
