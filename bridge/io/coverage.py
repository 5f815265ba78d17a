"""Which rules of the rules text the rule modules cite and the scenario files exercise.

A rule counts as cited by the rule modules when a comment of a module names its number, alone
or in a range (``% CR 508.1g-i``; see :mod:`bridge.model.citations` for what a range stands
for), and as exercised by the scenarios when a scenario file's ``cite`` list names it.  A rule
counts only for its own number: ``508.1`` is not cited because ``508.1d`` is.  The figures
also say, for each section, how many rules are cited nowhere even counting their subrules
(``untouched``).  Section headings (``508``) are numbers a citation may name, not rules that
are counted.

A citation of a number the rules text doesn't have (in any module or scenario, whatever the
sections asked for) is listed as an error: with a scenario's ``cite``, its expected
``violations`` are checked too.

A rule that is not both cited and exercised may be explained: ``uncovered.yaml`` in the
folder of rule modules maps rule numbers to a one-line reason (a definition with nothing to
decide, a rule of multiplayer games, an object the engine lacks, ...).  The figures count
the rules "covered or explained"; the report shows each reason beside its rule.  An entry
naming a number the rules text doesn't have, or a rule that is in fact both cited and
exercised, is an error like an unknown citation.

For section 702, the keywords the cards of the pool have are counted apart: those their files
give (a keyword ability, or a keyword cost such as kicker) and those their printed text has on
a line of keywords though the file leaves them out.  A keyword is covered when every rule of
its group (``702.9`` and ``702.9a-c`` for flying) is both cited and exercised, or explained.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from bridge.model.cards import Ability, Card
from bridge.model.citations import (
    compact,
    expand,
    module_citations,
    read_rules_text,
    rule_key,
    section_of,
)
from bridge.model.errors import InputError, quote
from bridge.model.reading import parse_yaml, read_text
from bridge.model.scenario import load_scenario

__all__ = [
    "DEFAULT_SECTIONS",
    "EXPLANATIONS",
    "Coverage",
    "KeywordRow",
    "Row",
    "Unknown",
    "format_coverage",
    "measure",
    "parse_sections",
    "pool_keywords",
    "read_explanations",
]

DEFAULT_SECTIONS = "500-514,601-616,702,704"
_FIELDS = ("rules", "asp", "scenarios", "both", "neither", "untouched", "explained", "covered_or_explained")
# the file, in the folder of rule modules, that gives the reason a rule is not covered
EXPLANATIONS = "uncovered.yaml"
_REASON_CHARS = 200
_SECTIONS = re.compile(r"(\d{3})(?:-(\d{3}))?")


@dataclass(frozen=True)
class Unknown:
    """A citation naming a number the rules text doesn't have: where, what, why."""

    place: str
    cited: str
    problem: str

    def __str__(self) -> str:
        return f"{self.place}: {self.cited} ({self.problem})"


@dataclass(frozen=True)
class Row:
    """The figures of one section (or of all, ``section == "all"``)."""

    section: str
    rules: int
    asp: int
    scenarios: int
    both: int
    neither: int
    untouched: int  # neither it nor any subrule of it cited by a module or a scenario
    explained: int = 0  # not both, and given a reason in uncovered.yaml
    covered_or_explained: int = 0  # both, or explained


@dataclass(frozen=True)
class KeywordRow:
    """A keyword that cards of the pool have: its rule of 702, the cards, whether their files
    give it (or only their printed text has it), its group's rules and how many of them are
    both cited and exercised, or explained; and the rules of the group that are neither."""

    keyword: str
    rule: str
    cards: tuple[str, ...]
    in_card_files: bool
    rules: int
    both: int
    explained: int
    open: tuple[str, ...]

    @property
    def covered(self) -> bool:
        """Every rule of the keyword's group is both cited and exercised, or explained."""
        return not self.open


@dataclass(frozen=True)
class Coverage:
    """The figures by section and in all, the rules cited by each side, those cited nowhere
    (compactly, by section) and the citations of numbers the text doesn't have."""

    rows: tuple[Row, ...]
    total: Row
    asp: tuple[str, ...]
    scenarios: tuple[str, ...]
    uncited: dict[str, list[str]]
    unknown: tuple[Unknown, ...]
    sources: dict[str, str] = field(default_factory=dict)
    explained: dict[str, str] = field(default_factory=dict)  # rule -> reason, of the sections counted
    unexplained: dict[str, list[str]] = field(default_factory=dict)  # by section, compactly
    keywords: tuple[KeywordRow, ...] = ()  # of the card pool, when 702 is counted

    def to_json(self) -> dict[str, Any]:
        """The figures and the lists as JSON data."""
        return {
            "sources": self.sources,
            "rows": [asdict(r) for r in self.rows],
            "total": asdict(self.total),
            "cited_by_asp": list(self.asp),
            "exercised_by_scenarios": list(self.scenarios),
            "cited_nowhere": self.uncited,
            "explained": self.explained,
            "unexplained": self.unexplained,
            "unknown_citations": [asdict(u) for u in self.unknown],
            "keywords": [{**asdict(k), "covered": k.covered} for k in self.keywords],
        }


def parse_sections(spec: str, known: Collection[str]) -> list[str]:
    """The sections a ``--sections`` value names (``500-514,702``: a range holds the sections of
    the text from one end to the other); :class:`InputError` for a section, or a range holding
    none, that the text doesn't have."""
    sections = {n for n in known if "." not in n}
    out: list[str] = []
    for item in (part.strip() for part in spec.split(",")):
        found = _SECTIONS.fullmatch(item)
        if found is None:
            raise InputError(f"{quote(item)} is not a section like 508 or a range like 500-514", source="--sections")
        first, last = found[1], found[2] or found[1]
        named = sorted(s for s in sections if first <= s <= last)
        if not named or (first == last and first not in sections):
            raise InputError(f"{quote(item)}: the rules text has no such section", source="--sections")
        out += [s for s in named if s not in out]
    return sorted(out)


def _note(
    first: str, last: str, place: str, cited: str, known: Collection[str], into: set[str], unknown: list[Unknown]
) -> None:
    missing = [n for n in dict.fromkeys((first, last)) if n not in known]
    unknown += [Unknown(place, n, "no such rule in the rules text") for n in missing]
    if missing:
        into.update(n for n in (first, last) if n in known)
        return
    numbers = expand(first, last, known)
    if not numbers:
        unknown.append(Unknown(place, cited, "a range whose end comes before its start"))
    into.update(numbers)


def _files(folder: Path, pattern: str, what: str) -> list[Path]:
    if not folder.is_dir():
        raise InputError(f"not a folder of {what}", source=str(folder))
    return sorted(folder.rglob(pattern))


def asp_citations(folder: Path, known: Collection[str]) -> tuple[set[str], list[Unknown]]:
    """The numbers the comments of the rule modules under ``folder`` cite (ranges expanded),
    and their citations of numbers the text doesn't have."""
    cited: set[str] = set()
    unknown: list[Unknown] = []
    for path in _files(folder, "*.lp", "rule modules"):
        place = f"{folder.name}/{path.relative_to(folder).as_posix()}"
        for c in module_citations(read_text(path, what="the rule module")):
            _note(c.first, c.last, f"{place}:{c.line}", str(c), known, cited, unknown)
    return cited, unknown


def scenario_citations(folder: Path, known: Collection[str]) -> tuple[set[str], list[Unknown]]:
    """The numbers the ``cite`` lists of the scenario files under ``folder`` name, and the
    numbers of their ``cite`` and expected ``violations`` the text doesn't have."""
    cited: set[str] = set()
    unknown: list[Unknown] = []
    for path in _files(folder, "*.yaml", "scenario files"):
        place = f"{folder.name}/{path.relative_to(folder).as_posix()}"
        scenario = load_scenario(path)
        for i, number in enumerate(scenario.cite):
            _note(number, number, f"{place}: cite[{i}]", number, known, cited, unknown)
        for i, number in enumerate(scenario.expect.violations):
            if number not in known:
                unknown.append(Unknown(f"{place}: expect.violations[{i}]", number, "no such rule in the rules text"))
    return cited, unknown


def read_explanations(path: Path, known: Collection[str]) -> tuple[dict[str, str], list[Unknown]]:
    """The reasons ``uncovered.yaml`` gives (rule number -> one line), and its entries naming a
    number the rules text doesn't have; no file, no reasons.  :class:`InputError` when it is
    not a mapping of quoted rule numbers to one-line reasons, or names a rule twice."""
    if not path.exists():
        return {}, []
    source = f"{path.parent.name}/{path.name}"
    text = read_text(path, what="the reasons for uncovered rules")
    data = parse_yaml(text, source)
    if data is None:
        return {}, []
    if not isinstance(data, dict):
        raise InputError("not a mapping of rule numbers to reasons", source=source)
    root = yaml.compose(text)  # read already: for the keys as written and their lines
    keys = root.value if isinstance(root, yaml.MappingNode) else []
    seen: set[str] = set()
    for key, _ in keys:
        if key.value in seen:
            raise InputError(
                f"{quote(key.value)} is given twice", source=source, location=f"line {key.start_mark.line + 1}"
            )
        seen.add(key.value)
    reasons: dict[str, str] = {}
    unknown: list[Unknown] = []
    for (key, _), (number, reason) in zip(keys, data.items()):
        where = f"line {key.start_mark.line + 1}"
        if not isinstance(number, str):
            raise InputError(
                f'the key {quote(key.value)} is not a rule number in quotes ("500.3": a bare 500.10 reads as 500.1)',
                source=source,
                location=where,
            )
        if not isinstance(reason, str) or not reason.strip() or "\n" in reason.strip() or len(reason) > _REASON_CHARS:
            raise InputError(
                f"the reason for {quote(number)} must be one line of text, at most {_REASON_CHARS} characters",
                source=source,
                location=where,
            )
        if number not in known:
            unknown.append(Unknown(f"{source}: {where}", number, "no such rule in the rules text"))
            continue
        reasons[number] = reason.strip()
    return reasons, unknown


# a keyword heading of 702: "702.9 - Flying" (a name of at most three words)
_KEYWORD_HEADING = re.compile(r"(?m)^[+*]?\s*(702\.\d+)\.?\s+-\s+([A-Za-z][A-Za-z '-]*?)\s*$")
# keywords of card files named otherwise in 702, and the keyword costs of a card file
_KEYWORD_GROUP = {"bands_with_other": "banding"}
_COST_KEYWORDS = ("kicker", "buyback", "flashback", "equip", "entwine", "splice", "morph")


def keyword_headings(text: str) -> dict[str, str]:
    """The keywords 702 defines, named as card files name them (``first_strike``), with their
    rule numbers (``702.7``)."""
    return {
        "_".join(m[2].lower().split()): m[1]
        for m in _KEYWORD_HEADING.finditer(text)
        if len(m[2].split()) <= 3 and m[1] != "702.1"
    }


def _printed_keywords(card: Card, names: Collection[str]) -> set[str]:
    """The keywords of ``names`` that begin a part of a line of the card's printed text
    (reminder text aside): "Morph {4}{G}", "Flying, first strike", "Islandwalk"."""
    found: set[str] = set()
    body = re.sub(r"\([^)]*\)", "", card.text.split("----")[0])
    for part in (p.strip().lower() for line in body.splitlines() for p in re.split(r"[,;]", line)):
        for name in names:
            words = name.replace("_", " ")
            if re.match(rf"{re.escape(words)}(?:$|[\s\d{{—])", part):
                found.add(name)
        if re.match(r"[a-z]*walk\b", part):
            found.add("landwalk")
    return found


def pool_keywords(cards: Iterable[Card], names: Collection[str]) -> dict[str, tuple[list[str], bool]]:
    """For each keyword of ``names`` that a card has, the cards that have it and whether the
    card files give it (else only the printed text of those cards has it)."""
    given: dict[str, list[str]] = {}
    printed: dict[str, list[str]] = {}
    for card in cards:
        have = {_KEYWORD_GROUP.get(a.keyword, a.keyword) for a in card.abilities if isinstance(a, Ability)}
        have |= {k for k in _COST_KEYWORDS if getattr(card, k)}
        for name in have & set(names):
            given.setdefault(name, []).append(card.name)
        for name in _printed_keywords(card, names) - have:
            printed.setdefault(name, []).append(card.name)
    out = {k: (sorted(v), True) for k, v in given.items()}
    out |= {k: (sorted(v), False) for k, v in printed.items() if k not in given}
    return out


def _keyword_rows(
    text: str,
    cards: Iterable[Card],
    known: Collection[str],
    asp: set[str],
    scenarios: set[str],
    reasons: Collection[str],
) -> tuple[KeywordRow, ...]:
    headings = keyword_headings(text)
    rows = []
    for name, (holders, in_files) in pool_keywords(cards, headings).items():
        rule = headings[name]
        group = [n for n in known if n == rule or n.rstrip("abcdefghijklmnopqrstuvwxyz") == rule]
        both = {n for n in group if n in asp and n in scenarios}
        given = {n for n in group if n in reasons and n not in both}
        rows.append(
            KeywordRow(
                name.replace("_", " "),
                rule,
                tuple(holders),
                in_files,
                len(group),
                len(both),
                len(given),
                tuple(compact((n for n in group if n not in both and n not in given), known)),
            )
        )
    return tuple(sorted(rows, key=lambda r: rule_key(r.rule)))


def _row(section: str, rules: list[str], asp: set[str], scenarios: set[str], explained: Collection[str] = ()) -> Row:
    anywhere = asp | scenarios
    touched = anywhere | {n.rstrip("abcdefghijklmnopqrstuvwxyz") for n in anywhere}  # and the parents of subrules
    both = sum(n in asp and n in scenarios for n in rules)
    given = sum(n in explained and not (n in asp and n in scenarios) for n in rules)
    return Row(
        section,
        len(rules),
        sum(n in asp for n in rules),
        sum(n in scenarios for n in rules),
        both,
        sum(n not in anywhere for n in rules),
        sum(n not in touched for n in rules),
        given,
        both + given,
    )


def measure(
    rules_text: Path,
    modules: Path,
    scenarios: Path,
    sections: str = DEFAULT_SECTIONS,
    cards: Iterable[Card] = (),
) -> Coverage:
    """The coverage of the rules of ``sections`` (a ``--sections`` value) of the rules text by
    the rule modules under ``modules`` and the scenario files under ``scenarios``, and with
    702 among them, of the keywords of ``cards``; :class:`InputError` for a file or a value
    that can't be used."""
    known = read_rules_text(rules_text)
    chosen = parse_sections(sections, known)
    asp, asp_unknown = asp_citations(modules, known)
    exercised, scenario_unknown = scenario_citations(scenarios, known)
    reasons, reason_unknown = read_explanations(modules / EXPLANATIONS, known)
    place = f"{modules.name}/{EXPLANATIONS}"
    reason_unknown += [
        Unknown(place, n, "given a reason, but cited and exercised: it is covered")
        for n in sorted(reasons, key=rule_key)
        if n in asp and n in exercised
    ]
    by_section: dict[str, list[str]] = {s: [] for s in chosen}
    for n in sorted(known, key=rule_key):
        if "." in n and section_of(n) in by_section:
            by_section[section_of(n)].append(n)
    rows = tuple(_row(s, rules, asp, exercised, reasons) for s, rules in by_section.items())
    everything = [n for rules in by_section.values() for n in rules]
    total = Row(
        "all",
        *(sum(getattr(r, f) for r in rows) for f in _FIELDS),
    )
    not_both = [n for n in everything if not (n in asp and n in exercised)]
    uncited = {
        s: compact((n for n in rules if n not in asp and n not in exercised), known) for s, rules in by_section.items()
    }
    keywords = (
        _keyword_rows(read_text(rules_text, what="the rules text"), cards, known, asp, exercised, reasons)
        if "702" in chosen
        else ()
    )
    return Coverage(
        keywords=keywords,
        rows=rows,
        total=total,
        asp=tuple(n for n in everything if n in asp),
        scenarios=tuple(n for n in everything if n in exercised),
        uncited={s: listed for s, listed in uncited.items() if listed},
        unknown=tuple(asp_unknown + scenario_unknown + reason_unknown),
        sources={"rules_text": str(rules_text), "modules": str(modules), "scenarios": str(scenarios)},
        explained={n: reasons[n] for n in not_both if n in reasons},
        unexplained={
            s: listed
            for s, rules in by_section.items()
            if (listed := compact((n for n in rules if n in not_both and n not in reasons), known))
        },
    )


_COLUMNS = ("section", "rules", "ASP", "scenarios", "both", "neither", "untouched", "explained", "both|explained")


def _table(rows: Iterable[Row]) -> list[str]:
    cells = [_COLUMNS] + [(r.section, *(str(getattr(r, f)) for f in _FIELDS)) for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(_COLUMNS))]
    return [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in cells
    ]


def _by_section(listed: dict[str, list[str]], width: int) -> list[str]:
    """Rule numbers by section, each section's wrapped under its name."""
    lines: list[str] = []
    for section, numbers in listed.items():
        lines += textwrap.wrap(
            ", ".join(numbers),
            width,
            initial_indent=f"  {section}: ",
            subsequent_indent=" " * 7,
            break_on_hyphens=False,
        )
    return lines


def _keyword_table(rows: tuple[KeywordRow, ...], width: int) -> list[str]:
    covered = sum(r.covered for r in rows)
    lines = [
        f"keywords of the card pool: {len(rows)}, covered (each rule of the keyword both cited and "
        f"exercised, or explained): {covered}"
    ]
    cells = [("keyword", "rule", "cards", "rules", "both", "explained", "covered")] + [
        (
            r.keyword if r.in_card_files else f"{r.keyword}*",
            r.rule,
            str(len(r.cards)),
            str(r.rules),
            str(r.both),
            str(r.explained),
            "yes" if r.covered else "no",
        )
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines += [
        "  ".join(c.ljust(w) if i in (0, 1) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in cells
    ]
    if any(not r.in_card_files for r in rows):
        lines.append("*: printed on the cards, left out of their files")
    for r in rows:
        if not r.covered:
            lines += textwrap.wrap(
                ", ".join(r.open),
                width,
                initial_indent=f"  {r.keyword} not covered: ",
                subsequent_indent="    ",
                break_on_hyphens=False,
            )
    return lines


def format_coverage(coverage: Coverage, width: int = 100) -> str:
    """The report: the table by section and in all, the rules cited nowhere by section, and
    the citations of numbers the text doesn't have."""
    lines = _table([*coverage.rows, coverage.total])
    lines.insert(-1, "-" * len(lines[0]))
    lines += textwrap.wrap(
        "ASP: cited in a rule module's comments; scenarios: named in a scenario's cite list; a rule "
        "counts for its own number only; untouched: cited nowhere, nor is any subrule of it; explained: "
        f"not both, and given a reason in {EXPLANATIONS}",
        width,
    )
    total = coverage.total
    if total.rules:
        lines.append(
            f"both: {total.both} of {total.rules} ({100 * total.both / total.rules:.1f}%); both or explained: "
            f"{total.covered_or_explained} ({100 * total.covered_or_explained / total.rules:.1f}%)"
        )
    if coverage.uncited:
        lines += ["", "cited nowhere:", *_by_section(coverage.uncited, width)]
    if coverage.explained:
        lines.append("")
        lines.append(f"not both cited and exercised, with the reason ({EXPLANATIONS}):")
        width_n = max(len(n) for n in coverage.explained)
        for number, reason in coverage.explained.items():
            lines += textwrap.wrap(
                reason, width, initial_indent=f"  {number.ljust(width_n)}  ", subsequent_indent=" " * (width_n + 4)
            )
    if coverage.unexplained:
        lines += ["", f"not both cited and exercised, and no reason given in {EXPLANATIONS}:"]
        lines += _by_section(coverage.unexplained, width)
    if coverage.keywords:
        lines.append("")
        lines += _keyword_table(coverage.keywords, width)
    if coverage.unknown:
        lines.append("")
        lines.append(
            f"{len(coverage.unknown)} citation(s) of numbers the rules text doesn't have, or reasons misplaced:"
        )
        lines += [f"  {u}" for u in coverage.unknown]
    return "\n".join(lines)
