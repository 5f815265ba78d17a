"""Rule numbers: those the Comprehensive Rules text defines, and those a rule module or a
scenario file cites.

The text defines a rule on a line that starts with its number and a dash (``509.1c - ...``,
``509.5. - ...``, ``+ 509.1h - ...`` for a changed rule); a number in running text defines
nothing.  A number is a section (``509``), a rule (``509.1``) or a subrule (``509.1c``).

A citation is one number or a range: ``704.5a-s`` (the subrules of 704.5 from a to s),
``613.1-613.3`` (the rules from 613.1 to 613.3), ``500-514`` (the sections).  A range stands
for the numbers of the text from one end to the other that are of the same kind as its ends:
``613.1-613.3`` is 613.1, 613.2 and 613.3, not their subrules.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from bridge.model.errors import InputError
from bridge.model.reading import read_text

__all__ = [
    "Citation",
    "citations",
    "cited_numbers",
    "compact",
    "expand",
    "module_citations",
    "read_rules_text",
    "rule_key",
    "rule_numbers",
    "section_of",
]

_RULE_LINE = re.compile(r"(?m)^[+*]?\s*(\d{3}(?:\.\d+[a-z]?)?)\.?\s+-\s")
# a rule number, or a range of them: 509.1c, 704.5a-s, 613.1-613.3, 500-514
_NUMBER = re.compile(r"\b(\d{3}(?:\.\d+)?)([a-z])?(?:-(?:([a-z])|(\d{3}(?:\.\d+)?[a-z]?)))?\b")
_SHAPE = re.compile(r"(\d{3})(?:\.(\d+)([a-z]?))?")


def rule_numbers(text: str) -> frozenset[str]:
    """The numbers of the rules the text defines: ``509``, ``509.1``, ``509.1c`` (each on a
    line ``509.1c - ...``)."""
    return frozenset(_RULE_LINE.findall(text))


def read_rules_text(path: Path | str) -> frozenset[str]:
    """The rule numbers a rules text file defines; :class:`InputError` when it can't be read
    or defines none."""
    numbers = rule_numbers(read_text(path, what="the rules text"))
    if not numbers:
        raise InputError("no numbered rules in it (lines such as '509.1c - ...'): not a rules text", source=str(path))
    return numbers


@functools.cache
def rule_key(number: str) -> tuple[int, int, str]:
    """The order of rule numbers: by section, rule, then subrule letter (``509`` first, then
    ``509.1``, ``509.1a``, ..., ``509.2``)."""
    found = _SHAPE.fullmatch(number)
    if found is None:
        raise ValueError(f"{number!r} is not a rule number")
    section, rule, letter = found.groups()
    return int(section), int(rule) if rule is not None else -1, letter or ""


def _kind(number: str) -> int:
    """0 for a section, 1 for a rule, 2 for a subrule."""
    _, rule, letter = rule_key(number)
    return 0 if rule < 0 else 2 if letter else 1


def section_of(number: str) -> str:
    """The section a number is in: ``509`` for ``509.1c``."""
    return number[:3]


@dataclass(frozen=True)
class Citation:
    """A number or a range of numbers cited on one line of a text: ``first`` and ``last`` are
    the same number when it is no range."""

    first: str
    last: str
    line: int

    def __str__(self) -> str:
        return self.first if self.first == self.last else f"{self.first}-{self.last}"


def citations(text: str) -> Iterator[Citation]:
    """The numbers and ranges a text cites, with their lines (``704.5a-s``: from 704.5a to
    704.5s)."""
    for number, start in ((m, text.count("\n", 0, m.start()) + 1) for m in _NUMBER.finditer(text)):
        first, letter, last_letter, last = number.groups()
        first += letter or ""
        if last_letter:
            last = first[:-1] + last_letter if letter else first + last_letter
        yield Citation(first, last or first, start)


def cited_numbers(text: str) -> Iterator[str]:
    """The rule numbers a text names: each end of a range (``704.5a-s``: 704.5a and 704.5s)."""
    for citation in citations(text):
        yield citation.first
        if citation.last != citation.first:
            yield citation.last


def module_citations(text: str) -> Iterator[Citation]:
    """The numbers and ranges the comments of a rule module cite (from each ``%`` to the end
    of its line: ``% CR 508.1g-i``, a header's ``(509.1c)``)."""
    for n, line in enumerate(text.splitlines(), start=1):
        if "%" in line:
            for citation in citations(line[line.index("%") :]):
                yield Citation(citation.first, citation.last, n)


def expand(first: str, last: str, known: Collection[str]) -> list[str]:
    """The numbers of ``known`` a range stands for, in order: from ``first`` to ``last``, of the
    kinds of its ends (``613.1-613.3``: 613.1, 613.2, 613.3, not 613.1a); empty when an end is
    not known or the range runs backwards."""
    if first not in known or last not in known:
        return []
    if first == last:
        return [first]
    low, high, kinds = rule_key(first), rule_key(last), {_kind(first), _kind(last)}
    return sorted((n for n in known if low <= rule_key(n) <= high and _kind(n) in kinds), key=rule_key)


def compact(numbers: Iterable[str], known: Collection[str]) -> list[str]:
    """``numbers`` (all of them in ``known``) written as few citations as :func:`expand` reads
    back: runs of subrules of one rule as ``508.1a-c``, runs of rules of one section as
    ``508.4-508.6`` (their subrules apart), each run unbroken by a number of ``known`` left out."""
    chosen = set(numbers)
    groups: dict[tuple[int, str], list[str]] = {}  # (kind, parent) -> the known numbers, in order
    for n in sorted(known, key=rule_key):
        kind = _kind(n)
        parent = n.rstrip("abcdefghijklmnopqrstuvwxyz") if kind == 2 else section_of(n) if kind == 1 else ""
        groups.setdefault((kind, parent), []).append(n)
    out: list[str] = []
    for (kind, _), members in groups.items():
        run: list[str] = []
        for n in [*members, ""]:
            if n in chosen:
                run.append(n)
                continue
            if run:
                first, last = run[0], run[-1]
                out.append(first if first == last else f"{first}-{last[-1]}" if kind == 2 else f"{first}-{last}")
            run = []
    return sorted(out, key=lambda c: rule_key(c.split("-")[0]))
