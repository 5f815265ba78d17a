"""``mtgasp coverage``: the rule numbers read from the rules text, the citations of the rule
modules and scenario files counted against them, on a small tree made here and once on the
real one."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.io.coverage import (
    EXPLANATIONS,
    asp_citations,
    format_coverage,
    measure,
    read_explanations,
    scenario_citations,
)
from bridge.model.cards import Card
from bridge.model.citations import citations, compact, expand, read_rules_text, rule_key, rule_numbers
from bridge.model.paths import rules_dir, rules_text_file, scenarios_dir

RULES = """\
Table of Contents:
   508 - Declare Attackers Step

508 - Declare Attackers Step
  508.1 - First, attackers.
  508.1a - One.
  508.1b - Two.
  508.1c - Three.
  508.2 - Second, triggers.
+ 508.3. - Third, priority (a changed rule, its number with a dot).
    As 508.9 says in running text, this is no rule.
509 - Declare Blockers Step
  509.1 - First, blockers.
  509.1a - One.
"""

SCENARIO = """\
title: t
cite: [{cite}]
state:
  active: alice
  players:
    - {{name: alice, battlefield: [Grizzly Bears]}}
    - {{name: bob}}
expect: {{violations: [{violations}]}}
"""


def _tree(tmp_path: Path, module: str, cites: list[tuple[str, str]]) -> tuple[Path, Path, Path]:
    """A rules text, a folder with one rule module and one of scenario files (cite, violations)."""
    text = tmp_path / "rules.txt"
    text.write_text(RULES)
    modules = tmp_path / "rules"
    modules.mkdir()
    (modules / "m.lp").write_text(module)
    scenarios = tmp_path / "scenarios"
    (scenarios / "area").mkdir(parents=True)
    for i, (cite, violations) in enumerate(cites):
        (scenarios / "area" / f"s{i}.yaml").write_text(SCENARIO.format(cite=cite, violations=violations))
    return text, modules, scenarios


MODULE = "% m.lp -- a module (508.1a)\n% CR 508.1a-b\nx.\n% CR 508.7: no such rule\ny.\n"


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, ["coverage", *args])


def _small(text: Path, modules: Path, scenarios: Path, *more: str) -> Any:
    """The command on a small tree, its sections 508 and 509."""
    return _run(
        "--rules-text",
        str(text),
        "--modules",
        str(modules),
        "--scenarios",
        str(scenarios),
        "--sections",
        "508-509",
        *more,
    )


# ---------------------------------------------------------------------- reading numbers
def test_rule_numbers_are_the_numbered_lines() -> None:
    assert rule_numbers(RULES) == {
        "508",
        "508.1",
        "508.1a",
        "508.1b",
        "508.1c",
        "508.2",
        "508.3",
        "509",
        "509.1",
        "509.1a",
    }


def test_the_rules_text_has_known_rules_and_no_invented_ones() -> None:
    path = rules_text_file()
    if path is None:
        pytest.skip("the rules text (shared/seeds beside the checkout) is absent")
    known = read_rules_text(path)
    assert {"509.1c", "508.1d", "702.19b", "613.1f", "704.5s", "509.5", "613"} <= known
    assert not {"999.9", "509.1z", "704.5z", "702.200"} & known


def test_ranges_stand_for_the_numbers_of_their_kind_between_their_ends() -> None:
    known = rule_numbers(RULES)
    assert [str(c) for c in citations("% CR 508.1a-c, 508.1-508.3 (508-509); 509.1a.")] == [
        "508.1a-508.1c",
        "508.1-508.3",
        "508-509",
        "509.1a",
    ]
    assert expand("508.1a", "508.1c", known) == ["508.1a", "508.1b", "508.1c"]
    assert expand("508.1", "508.3", known) == ["508.1", "508.2", "508.3"]  # not the subrules
    assert expand("508", "509", known) == ["508", "509"]
    assert expand("508.3", "508.1", known) == []  # backwards
    assert expand("508.1a", "508.1z", known) == []  # an end the text doesn't have


def test_compact_lists_read_back_as_the_same_numbers() -> None:
    known = rule_numbers(RULES)
    chosen = {"508.1", "508.1a", "508.1b", "508.2", "508.3", "509.1a"}
    listed = compact(chosen, known)
    assert listed == ["508.1-508.3", "508.1a-b", "509.1a"]
    again = {n for c in listed for x in citations(c) for n in expand(x.first, x.last, known)}
    assert again == chosen


# ---------------------------------------------------------------------- counting, on a small tree
def test_a_small_tree_is_counted(tmp_path: Path) -> None:
    text, modules, scenarios = _tree(tmp_path, MODULE, [("'508.1a', '508.2'", "'508.3'")])
    found = measure(text, modules, scenarios, "508")
    (row,) = found.rows
    # 508.1, 508.1a-c, 508.2, 508.3; the heading 508 is no rule
    assert (row.section, row.rules, row.asp, row.scenarios, row.both) == ("508", 6, 2, 2, 1)
    # cited nowhere: 508.1 (though its subrules are), 508.1c, 508.3 (a violation is not a cite)
    assert (row.neither, row.untouched) == (3, 2)
    assert found.asp == ("508.1a", "508.1b") and found.scenarios == ("508.1a", "508.2")
    assert found.uncited == {"508": ["508.1", "508.1c", "508.3"]}
    assert found.total == row.__class__("all", 6, 2, 2, 1, 3, 2, 0, 1)
    assert [(u.place, u.cited) for u in found.unknown] == [("rules/m.lp:4", "508.7")]


def test_citations_of_numbers_the_text_lacks_are_errors(tmp_path: Path) -> None:
    module = MODULE + "% CR 508.3-508.1: backwards\nz.\n"
    text, modules, scenarios = _tree(tmp_path, module, [("'508.1a', '508.9'", "'509.1q'")])
    result = _small(text, modules, scenarios)
    assert result.exit_code == 1, result.output
    errors = result.output[result.output.index("citation(s) of numbers") :].splitlines()[1:]
    assert errors == [
        "  rules/m.lp:4: 508.7 (no such rule in the rules text)",
        "  rules/m.lp:6: 508.3-508.1 (a range whose end comes before its start)",
        "  scenarios/area/s0.yaml: cite[1]: 508.9 (no such rule in the rules text)",
        "  scenarios/area/s0.yaml: expect.violations[0]: 509.1q (no such rule in the rules text)",
    ]


def test_the_table_and_the_json_file_agree(tmp_path: Path) -> None:
    text, modules, scenarios = _tree(tmp_path, "% CR 508.1a-b\nx.\n", [("'508.1a', '509.1'", "")])
    out = tmp_path / "out" / "figures.json"
    out.parent.mkdir()
    result = _small(text, modules, scenarios, "--json", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert _table(result.output) == {r["section"]: r for r in [*data["rows"], data["total"]]}
    assert data["cited_nowhere"] == {"508": ["508.1-508.3", "508.1c"], "509": ["509.1a"]}
    assert data["unknown_citations"] == []
    assert "  508: 508.1-508.3, 508.1c" in result.output


def _table(output: str) -> dict[str, dict[str, Any]]:
    """The rows of the printed table, by section."""
    lines = output.splitlines()
    head = lines[0].split()
    assert head == [
        "section",
        "rules",
        "ASP",
        "scenarios",
        "both",
        "neither",
        "untouched",
        "explained",
        "both|explained",
    ]
    keys = [
        "section",
        "rules",
        "asp",
        "scenarios",
        "both",
        "neither",
        "untouched",
        "explained",
        "covered_or_explained",
    ]
    rows = {}
    for line in lines[1:]:
        if re.fullmatch(r"-+", line):
            continue
        cells = line.split()
        if len(cells) != len(keys) or not all(c.isdigit() for c in cells[1:]):
            break
        rows[cells[0]] = dict(zip(keys, [cells[0], *map(int, cells[1:])]))
    return rows


# ---------------------------------------------------------------------- reasons for rules not covered
def test_reasons_are_shown_and_counted(tmp_path: Path) -> None:
    text, modules, scenarios = _tree(tmp_path, "% CR 508.1a-b\nx.\n", [("'508.1a', '508.2'", "")])
    (modules / EXPLANATIONS).write_text(
        '"508.1b": exercised by no scenario yet\n"508.1c": a definition with nothing to decide\n'
        '"509.1a": a rule of multiplayer games\n'
    )
    result = _small(text, modules, scenarios)
    assert result.exit_code == 0, result.output
    rows = _table(result.output)
    # 508: 508.1a both; 508.1b (ASP only) and 508.1c explained; 508.1, 508.2, 508.3 neither both nor explained
    assert (rows["508"]["both"], rows["508"]["explained"], rows["508"]["covered_or_explained"]) == (1, 2, 3)
    assert (rows["509"]["explained"], rows["509"]["covered_or_explained"]) == (1, 1)
    assert (rows["all"]["rules"], rows["all"]["covered_or_explained"]) == (8, 4)
    assert "both: 1 of 8 (12.5%); both or explained: 4 (50.0%)" in result.output
    assert "  508.1c  a definition with nothing to decide" in result.output
    assert "  509.1a  a rule of multiplayer games" in result.output
    unexplained = result.output[result.output.index("no reason given") :].splitlines()[1:]
    assert unexplained == ["  508: 508.1-508.3", "  509: 509.1"]
    found = measure(text, modules, scenarios, "508")
    assert found.explained == {
        "508.1b": "exercised by no scenario yet",
        "508.1c": "a definition with nothing to decide",
    }


def test_a_reason_for_a_covered_or_unknown_rule_is_an_error(tmp_path: Path) -> None:
    text, modules, scenarios = _tree(tmp_path, "% CR 508.1a-b\nx.\n", [("'508.1a'", "")])
    (modules / EXPLANATIONS).write_text('"508.1a": said to be uncovered\n"508.7": no such rule\n')
    result = _small(text, modules, scenarios)
    assert result.exit_code == 1, result.output
    errors = result.output[result.output.index("reasons misplaced") :].splitlines()[1:]
    assert errors == [
        "  rules/uncovered.yaml: line 2: 508.7 (no such rule in the rules text)",
        "  rules/uncovered.yaml: 508.1a (given a reason, but cited and exercised: it is covered)",
    ]
    assert _table(result.output)["508"]["explained"] == 0


@pytest.mark.parametrize(
    "content, message",
    [
        ("500.10: a bare number\n", "line 1: the key '500.10' is not a rule number in quotes"),
        ('"508.1c": [a, list]\n', "the reason for '508.1c' must be one line"),
        ('"508.1c": ""\n', "the reason for '508.1c' must be one line"),
        ('"508.1c": one\n"508.1c": two\n', "line 2: '508.1c' is given twice"),
        ("- 508.1c\n", "not a mapping of rule numbers to reasons"),
        ('"508.1c": [unclosed\n', "not valid YAML"),
    ],
)
def test_a_bad_reasons_file_is_one_line_exit_2(tmp_path: Path, content: str, message: str) -> None:
    text, modules, scenarios = _tree(tmp_path, MODULE, [("'508.1a'", "")])
    (modules / EXPLANATIONS).write_text(content)
    result = _small(text, modules, scenarios)
    assert result.exit_code == 2 and message in result.output, result.output
    assert result.output.count("\n") == 1 and "uncovered.yaml" in result.output


# ---------------------------------------------------------------------- bad input
def test_a_broken_scenario_is_one_line_exit_2(tmp_path: Path) -> None:
    text, modules, scenarios = _tree(tmp_path, MODULE, [("'508.1a'", "")])
    (scenarios / "area" / "broken.yaml").write_text("title: t\ncite: [508.1a\n")
    result = _small(text, modules, scenarios)
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "broken.yaml: line 3" in result.output, result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rules-text", "/nonexistent/rules.txt"], "can't read the rules text"),
        (["--rules-text", "README.md"], "no numbered rules in it"),
        (["--sections", "5x"], "'5x' is not a section"),
        (["--sections", "508,999"], "'999': the rules text has no such section"),
        (["--sections", "600-700"], "'600-700': the rules text has no such section"),
        (["--modules", "/nonexistent"], "not a folder of rule modules"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    text, modules, scenarios = _tree(tmp_path, MODULE, [("'508.1a'", "")])
    defaults = {
        "--rules-text": str(text),
        "--modules": str(modules),
        "--scenarios": str(scenarios),
        "--sections": "508",
    }
    for key, value in zip(args[::2], args[1::2]):
        defaults[key] = value
    result = _run(*[x for pair in defaults.items() for x in pair])
    assert result.exit_code == 2 and message in result.output, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output


# ---------------------------------------------------------------------- the real tree
@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, str, frozenset[str]]:
    text = rules_text_file()
    if text is None or scenarios_dir() is None:
        pytest.skip("the rules text (shared/seeds beside the checkout) or the scenarios are absent")
    out = tmp_path_factory.mktemp("coverage") / "coverage.json"
    result = _run("--json", str(out))
    assert result.exit_code == 0, result.output  # no citation of a number the text lacks
    return json.loads(out.read_text()), result.output, read_rules_text(text)


def test_the_real_tree_adds_up(real: tuple[Any, str, frozenset[str]]) -> None:
    data, output, known = real
    rows, total = data["rows"], data["total"]
    assert [r["section"] for r in rows] == [str(s) for s in [*range(500, 515), *range(601, 617), 702, 704]]
    for field in ("rules", "asp", "scenarios", "both", "neither", "untouched"):
        assert total[field] == sum(r[field] for r in rows), field
    for r in [*rows, total]:
        assert r["rules"] == r["asp"] + r["scenarios"] - r["both"] + r["neither"], r
        assert r["untouched"] <= r["neither"] and r["both"] <= min(r["asp"], r["scenarios"])
    assert _table(output) == {r["section"]: r for r in [*rows, total]}
    assert total["rules"] == sum(1 for n in known if "." in n and n[:3] in {r["section"] for r in rows})


def test_the_real_tree_names_only_numbers_of_the_text(real: tuple[Any, str, frozenset[str]]) -> None:
    data, _, known = real
    assert set(data["cited_by_asp"]) <= known and set(data["exercised_by_scenarios"]) <= known
    assert len(data["cited_by_asp"]) == data["total"]["asp"]
    assert len(data["exercised_by_scenarios"]) == data["total"]["scenarios"]
    nowhere = {
        n
        for listed in data["cited_nowhere"].values()
        for c in listed
        for x in citations(c)
        for n in expand(x.first, x.last, known)
    }
    assert len(nowhere) == data["total"]["neither"]
    assert not nowhere & (set(data["cited_by_asp"]) | set(data["exercised_by_scenarios"]))
    # verified by hand: block.lp's "% CR 509.1c" and the Lure scenario's cite
    assert "509.1c" in data["cited_by_asp"] and "509.1c" in data["exercised_by_scenarios"]
    assert "% CR 509.1c" in (rules_dir() / "combat" / "block.lp").read_text()
    # cited only through a range: 704.5a-s
    assert {"704.5a", "704.5k", "704.5s"} <= set(data["cited_by_asp"])


def test_the_real_reasons_name_rules_of_the_text_none_covered_in_order() -> None:
    text = rules_text_file()
    folder = scenarios_dir()
    if text is None or folder is None:
        pytest.skip("the rules text (shared/seeds beside the checkout) or the scenarios are absent")
    known = read_rules_text(text)
    path = rules_dir() / EXPLANATIONS
    reasons, unknown = read_explanations(path, known)
    assert reasons and unknown == []  # every number is a rule of the text
    asp, _ = asp_citations(rules_dir(), known)
    exercised, _ = scenario_citations(folder, known)
    assert sorted(n for n in reasons if n in asp and n in exercised) == []  # none is in fact covered
    keys = re.findall(r'(?m)^"([^"]+)":', path.read_text())
    assert keys == sorted(reasons, key=rule_key) == sorted(keys, key=rule_key)  # one flat mapping, in order


# ---------------------------------------------------------------------- keywords of the card pool
KEYWORD_RULES = """\
702 - Keyword Abilities
  702.1 - Most abilities describe exactly what they do in the card's rules
    text.
  702.2 - Deathtouch
  702.2a - One.
  702.2b - Two.
  702.9 - Flying
  702.9a - One.
  702.12 - Landwalk
  702.12a - One.
  702.34 - Morph
  702.34a - One.
"""


def _card(name: str, text: str, abilities: list[Any], **more: Any) -> Card:
    return Card.model_validate(
        {"name": name, "types": ["creature"], "power": 1, "toughness": 1, "text": text, "abilities": abilities, **more}
    )


def test_the_keywords_of_the_pool_are_counted_by_their_group(tmp_path: Path) -> None:
    text = tmp_path / "rules.txt"
    text.write_text(KEYWORD_RULES)
    modules = tmp_path / "rules"
    modules.mkdir()
    (modules / "m.lp").write_text("% CR 702.2a-b, 702.9a\nx.\n")
    (modules / EXPLANATIONS).write_text('"702.2": the heading\n"702.34": the heading\n"702.34a": the engine lacks it\n')
    scenarios = tmp_path / "scenarios"
    (scenarios / "area").mkdir(parents=True)
    (scenarios / "area" / "s.yaml").write_text(SCENARIO.format(cite="'702.2a', '702.2b', '702.9a'", violations=""))
    cards = [
        _card("Typhoid Rats", "Deathtouch", ["deathtouch"]),
        _card("Wind Drake", "Flying", ["flying"]),
        _card("Storm Crow", "Flying (It can't be blocked except by creatures with flying or reach.)", ["flying"]),
        _card("Shadow Sprite", "Morph {2}", [], missing="morph"),
        _card("Bog Wraith", "Swampwalk", [{"landwalk": "swamp"}]),
        _card("Plain Bear", "A bear that flies in its dreams.", []),
    ]
    found = measure(text, modules, scenarios, "702", cards)
    rows = {r.keyword: r for r in found.keywords}
    assert list(rows) == ["deathtouch", "flying", "landwalk", "morph"]  # by rule number; no text mention counts
    assert rows["flying"].cards == ("Storm Crow", "Wind Drake") and rows["flying"].in_card_files
    assert (rows["deathtouch"].rules, rows["deathtouch"].both, rows["deathtouch"].explained) == (3, 2, 1)
    assert rows["deathtouch"].covered and rows["morph"].covered and not rows["morph"].in_card_files
    assert not rows["flying"].covered and rows["flying"].open == ("702.9",)
    assert rows["landwalk"].open == ("702.12", "702.12a")
    result = _run(
        "--rules-text", str(text), "--modules", str(modules), "--scenarios", str(scenarios), "--sections", "702"
    )
    assert "keywords of the card pool: " in result.output  # the command reads the real pool
    out = format_coverage(found)
    assert (
        "keywords of the card pool: 4, covered (each rule of the keyword both cited and exercised, or explained): 2"
        in out
    )
    assert "  flying not covered: 702.9" in out and "  landwalk not covered: 702.12, 702.12a" in out
    assert re.search(r"(?m)^morph\* +702\.34 +1 +2 +0 +2 +yes$", out), out


def test_every_keyword_of_the_real_pool_is_covered(real: tuple[Any, str, frozenset[str]]) -> None:
    data, _, _ = real
    keywords = data["keywords"]
    names = {k["keyword"] for k in keywords}
    assert {"flying", "first strike", "landwalk", "protection", "banding", "kicker", "equip", "morph"} <= names
    assert [k["keyword"] for k in keywords if not k["covered"]] == []
