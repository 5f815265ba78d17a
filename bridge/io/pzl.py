"""Reading Forge's ``.pzl`` puzzle files into the project's puzzles (:class:`Puzzle`).

A ``.pzl`` file has a ``[metadata]`` section (``Key:Value``: Name, Goal, Turns, Targets,
TargetCount, Difficulty, Description) and a ``[state]`` section (``key=value``: life totals,
turn, active player and phase, each zone of both players, cards with ``|Modifier`` parts).
Keys are case-insensitive, ``#`` starts a comment line, blank lines and stray spaces are
skipped, LF and CRLF both end a line.  Forge's human (``human`` or ``p0``) is the puzzle
player, named ``human``; its AI (``ai`` or ``p1``) the opponent, named ``ai``.

Every problem of the file is collected with its line: an unknown card (not in the card pool),
a goal or a card filter the project's goals can't express, a malformed line.  When there is
any, :class:`PzlError` lists them all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bridge.model.cards import Card, CardPool, slug
from bridge.model.errors import InputError, UnknownCardError, quote
from bridge.model.limits import MAX_INTEGER
from bridge.model.puzzle import Puzzle
from bridge.model.reading import read_text
from bridge.model.state import fresh_id

__all__ = ["HUMAN", "OPPONENT", "PzlError", "load_pzl", "parse_pzl"]

HUMAN = "human"
OPPONENT = "ai"

_PHASES = {
    "untap": "untap",
    "upkeep": "upkeep",
    "draw": "draw",
    "main1": "main1",
    "combat_begin": "beginning_of_combat",
    "combat_declare_attackers": "declare_attackers",
    "combat_declare_blockers": "declare_blockers",
    "combat_first_strike_damage": "first_strike_damage",
    "combat_damage": "combat_damage",
    "combat_end": "end_of_combat",
    "main2": "main2",
    "end_of_turn": "end",
    "cleanup": "cleanup",
}
_PLAYERS = {"human": HUMAN, "p0": HUMAN, "ai": OPPONENT, "p1": OPPONENT}
_ZONES = {
    "hand": "hand",
    "library": "library",
    "graveyard": "graveyard",
    "exile": "exile",
    "battlefield": "battlefield",
    "play": "battlefield",
}
# player keys read and ignored: they change nothing the project's position holds, or are empty
_IGNORED_PLAYER_KEYS = {"landsplayedlastturn", "name", "sideboard"}
_COUNTERS = {"P1P1": "+1/+1", "M1M1": "-1/-1", "P1P0": "+1/+0", "P0P1": "+0/+1", "M1M0": "-1/-0", "M0M1": "-0/-1"}
_COLORS = {"white": "W", "blue": "U", "black": "B", "red": "R", "green": "G"}
_DESTROY_GOALS = {
    "destroy specified permanents",
    "destroy specified creatures",
    "kill specified creatures",
    "remove specified permanents from the battlefield",
}
_HAVE_GOALS = {"play the specified permanent", "put the specified permanent on the battlefield"}
_CONTROL_GOALS = {"gain control of specified permanents"}


@dataclass(frozen=True)
class Problem:
    """One problem of a ``.pzl`` file: its line (None: the file as a whole) and what is wrong."""

    line: int | None
    problem: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.problem}" if self.line is not None else self.problem


class PzlError(InputError):
    """A ``.pzl`` file the project can't use; ``problems`` lists every problem with its line."""

    def __init__(self, problems: list[Problem], *, source: str | None = None) -> None:
        self.problems = problems
        first = str(problems[0]) if problems else "no problem"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(first + more, source=source)

    def at(self, *, source: str | None = None, location: str | None = None) -> InputError:
        return PzlError(self.problems, source=self.source or source)

    def lines(self) -> list[str]:
        """One line per problem, each naming the file."""
        prefix = f"{self.source}: " if self.source else ""
        return [prefix + str(p) for p in self.problems]


@dataclass
class _Entry:
    """A card of a zone as the file lists it."""

    line: int
    name: str
    token: bool = False
    tapped: bool = False
    sick: bool = False
    counters: dict[str, int] = field(default_factory=dict)
    label: str | None = None
    attached_to: str | None = None
    attacking: bool = False
    damage: int = 0
    stats: dict[str, str] = field(default_factory=dict)  # a token's P and T as the file gives them
    card: Card | None = None
    id: str = ""


@dataclass
class _Reading:
    problems: list[Problem] = field(default_factory=list)
    metadata: dict[str, tuple[int, str]] = field(default_factory=dict)
    state: dict[str, tuple[int, str]] = field(default_factory=dict)
    zones: dict[tuple[str, str], list[_Entry]] = field(default_factory=dict)
    life: dict[str, int] = field(default_factory=dict)
    lands_played: dict[str, int] = field(default_factory=dict)

    def fail(self, line: int | None, problem: str) -> None:
        self.problems.append(Problem(line, problem))


def _whole(text: str, signed: bool = False) -> int | None:
    """A whole number written in ASCII digits (a sign first when ``signed``), at most
    :data:`~bridge.model.limits.MAX_INTEGER` either way; None for anything else."""
    body = text[1:] if signed and text[:1] in ("+", "-") else text
    if not (body.isascii() and body.isdigit()) or len(body) > len(str(MAX_INTEGER)):
        return None
    number = int(text)
    return number if abs(number) <= MAX_INTEGER else None


def load_pzl(path: Path | str, pool: CardPool | None = None) -> Puzzle:
    """Read a ``.pzl`` file; :class:`PzlError` lists every problem with its line."""
    source = str(path)
    text = read_text(path)
    try:
        return parse_pzl(text, pool)
    except PzlError as exc:
        raise exc.at(source=source) from None


def parse_pzl(text: str, pool: CardPool | None = None) -> Puzzle:
    """The puzzle a ``.pzl`` text describes; :class:`PzlError` lists every problem."""
    pool = pool or CardPool.default()
    r = _Reading()
    _sections(text, r)
    for (_, zone), entries in r.zones.items():
        for entry in entries:
            _card(entry, zone, pool, r)
    state_data = _state(r)
    goal_data = _goal(r, state_data, pool)
    if r.problems:
        raise PzlError(_distinct(r.problems))
    meta = {k: v for k, (_, v) in r.metadata.items()}
    description = meta.get("description", "").replace("\\n", "\n").strip()
    extra = [
        f"{label}: {meta[key]}" for key, label in (("difficulty", "Difficulty"), ("url", "Source")) if meta.get(key)
    ]
    if extra:
        description = "\n".join([description, *extra]) if description else "\n".join(extra)
    try:
        return Puzzle.model_validate(
            {
                "title": meta.get("name", "").strip() or "Forge puzzle",
                "description": description,
                "state": state_data,
                "goal": goal_data,
            }
        )
    except ValidationError as exc:
        raise PzlError([Problem(None, f"the position is not valid: {one}") for one in _messages(exc)]) from None


def _distinct(problems: list[Problem]) -> list[Problem]:
    """The problems by line, each once (a card repeated on a line is one problem, with its count)."""
    counts: dict[Problem, int] = {}
    for problem in problems:
        counts[problem] = counts.get(problem, 0) + 1
    ordered = sorted(counts, key=lambda p: p.line or 0)
    return [p if counts[p] == 1 else Problem(p.line, f"{p.problem} ({counts[p]} times)") for p in ordered]


def _messages(exc: ValidationError) -> list[str]:
    return [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]


def _sections(text: str, r: _Reading) -> None:
    section: str | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            name = line[1:-1].strip().lower()
            if name not in ("metadata", "state"):
                r.fail(number, f"unknown section {quote(line)} (a .pzl file has [metadata] and [state])")
            section = name
            continue
        if section is None:
            r.fail(number, "a line before the first section header ([metadata] or [state])")
        elif section == "metadata":
            key, sep, value = line.partition(":")
            if not sep or not key.strip():
                r.fail(number, f"not a Key:Value line: {quote(line[:80])}")
                continue
            r.metadata[key.strip().lower()] = (number, value.strip())
        elif section == "state":
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                r.fail(number, f"not a key=value line: {quote(line[:80])}")
                continue
            _state_line(number, key.strip().lower(), value.strip(), r)


def _state_line(number: int, key: str, value: str, r: _Reading) -> None:
    if key in ("activeplayer", "activephase", "turn", "activephaseadvance", "removesummoningsickness"):
        r.state[key] = (number, value)
        return
    prefix = next((p for p in ("human", "ai", "p0", "p1") if key.startswith(p)), None)
    if prefix is None:
        r.fail(number, f"unknown key {quote(key)}")
        return
    player, suffix = _PLAYERS[prefix], key[len(prefix) :]
    if suffix in _ZONES:
        r.zones.setdefault((player, _ZONES[suffix]), []).extend(_entries(number, value, r))
    elif suffix in ("life", "landsplayed"):
        amount = _whole(value.strip(), signed=True)
        if amount is None:
            r.fail(number, f"{key}: {quote(value)} is not a whole number of at most {MAX_INTEGER:,}")
            return
        if suffix == "life":
            r.life[player] = amount
        elif amount < 0:
            r.fail(number, f"{key}: {amount} is negative")
        else:
            r.lands_played[player] = amount
    elif suffix in _IGNORED_PLAYER_KEYS:
        return
    elif suffix in ("command", "precast", "putonstack", "manapool", "persistentmana", "counters"):
        if value.strip(" ;"):
            r.fail(number, f"{key}: the player's {suffix} is not supported")
    else:
        r.fail(number, f"unknown key {quote(key)}")


def _entries(number: int, value: str, r: _Reading) -> list[_Entry]:
    out: list[_Entry] = []
    for item in value.split(";"):
        parts = [p.strip() for p in item.split("|")]
        if not parts[0]:
            if any(parts[1:]):
                r.fail(number, f"a card without a name: {quote(item.strip())}")
            continue
        entry = _Entry(number, parts[0])
        if entry.name.startswith(("t:", "T:")):
            _token(entry, r)
        for modifier in parts[1:]:
            _modifier(entry, modifier, r)
        out.append(entry)
    return out


def _token(entry: _Entry, r: _Reading) -> None:
    text = entry.name
    if text.startswith("T:"):
        r.fail(entry.line, f"a token from a token script ({quote(text)}) is not supported")
        entry.name = ""
        return
    fields: dict[str, str] = {}
    for part in text[2:].split(","):
        key, sep, value = part.partition(":")
        if sep:
            fields[key.strip().lower()] = value.strip()
        elif part.strip() and not fields:
            fields["name"] = part.strip()
    entry.token = True
    entry.name = fields.get("name", "")
    entry.counters = {}
    if not entry.name:
        r.fail(entry.line, f"a token without a name: {quote(text)}")
    entry.stats = {key: fields[key] for key in ("p", "t") if key in fields}  # checked against the pool's token


def _modifier(entry: _Entry, modifier: str, r: _Reading) -> None:
    key, _, value = modifier.partition(":")
    key = key.strip().lower()
    value = value.strip()
    if not key:
        return
    if key == "tapped":
        entry.tapped = True
    elif key == "summonsick":
        entry.sick = True
    elif key == "id":
        if not value.isdigit():
            r.fail(entry.line, f"{entry.name}: Id:{quote(value)} is not a number")
        entry.label = value
    elif key in ("attachedto", "attaching"):
        if not value.isdigit():
            r.fail(entry.line, f"{entry.name}: {modifier} is not a card's Id")
        entry.attached_to = value
    elif key == "counters":
        for pair in value.split(","):
            kind, sep, n = pair.partition("=")
            count = _whole(n.strip())
            if not sep or count is None or not kind.strip():
                r.fail(
                    entry.line, f"{entry.name}: malformed counters {quote(pair)} (TYPE=N, N at most {MAX_INTEGER:,})"
                )
                continue
            name = _COUNTERS.get(kind.strip().upper(), kind.strip().lower())
            entry.counters[name] = min(MAX_INTEGER, entry.counters.get(name, 0) + count)
    elif key == "damage":
        damage = _whole(value)
        if damage is None:
            r.fail(entry.line, f"{entry.name}: Damage:{quote(value)} is not a number of at most {MAX_INTEGER:,}")
        else:
            entry.damage = damage
    elif key == "attacking":
        if value:
            r.fail(entry.line, f"{entry.name}: attacking a planeswalker (Attacking:{value}) is not supported")
        entry.attacking = True
    elif key in ("set", "noetbtrigs"):
        return  # the printing and Forge's way of putting it onto the battlefield change nothing here
    else:
        r.fail(entry.line, f"{entry.name}: the modifier {quote(modifier)} is not supported")


def _card(entry: _Entry, zone: str, pool: CardPool, r: _Reading) -> None:
    if not entry.name:
        return
    try:
        entry.card = pool.get(entry.name)
    except UnknownCardError:
        what = "token" if entry.token else "card"
        r.fail(entry.line, f"unknown {what} {quote(entry.name)} (not in the card pool)")
        return
    if entry.token:
        for key, stat in (("p", entry.card.power), ("t", entry.card.toughness)):
            given = entry.stats.get(key)
            if given is not None and str(stat) != given:
                r.fail(entry.line, f"the token {quote(entry.name)} is {key.upper()}:{given} but the pool's is {stat}")
        if zone != "battlefield":
            r.fail(entry.line, f"a token ({entry.name}) outside the battlefield")
    if zone != "battlefield" and (entry.tapped or entry.sick or entry.attached_to or entry.attacking):
        r.fail(entry.line, f"{entry.name}: Tapped, SummonSick, AttachedTo and Attacking are for the battlefield")


def _state(r: _Reading) -> dict[str, Any]:
    line_of = {k: n for k, (n, _) in r.state.items()}
    values = {k: v for k, (_, v) in r.state.items()}
    active = values.get("activeplayer", "human").lower()
    if active not in _PLAYERS:
        r.fail(line_of.get("activeplayer"), f"ActivePlayer={quote(values['activeplayer'])}: not human, ai, p0 or p1")
    step = values.get("activephase", "main1").lower()
    if step not in _PHASES:
        r.fail(line_of.get("activephase"), f"ActivePhase={quote(values['activephase'])}: not a phase Forge names")
    if values.get("activephaseadvance"):
        r.fail(line_of["activephaseadvance"], "ActivePhaseAdvance is not supported")
    if values.get("removesummoningsickness", "").lower() == "true":
        for entries in r.zones.values():
            for entry in entries:
                entry.sick = False
    turn = 1
    if "turn" in values:
        given = _whole(values["turn"])
        if given is not None and given >= 1:
            turn = given
        else:
            r.fail(line_of["turn"], f"turn={quote(values['turn'])}: not a turn number")
    taken: set[str] = set()
    labels: dict[str, _Entry] = {}
    for entries in r.zones.values():
        for entry in entries:
            if entry.card is not None:
                entry.id = fresh_id(slug(entry.card.name), taken)
            if entry.label is not None:
                if entry.label in labels:
                    r.fail(entry.line, f"Id:{entry.label} is given twice")
                labels[entry.label] = entry
    active_name = _PLAYERS.get(active, HUMAN)
    players = []
    for name in (HUMAN, OPPONENT):
        other = OPPONENT if name == HUMAN else HUMAN
        data: dict[str, Any] = {"name": name, "life": r.life.get(name, 20)}
        if name in r.lands_played:
            data["lands_played"] = r.lands_played[name]
        for zone in ("library", "hand", "graveyard", "exile", "battlefield"):
            cards = []
            for entry in r.zones.get((name, zone), []):
                if entry.card is None:
                    continue
                item: dict[str, Any] = {"id": entry.id, "card": entry.card.name}
                if zone == "battlefield":
                    item.update(_permanent(entry, labels, other, r))
                cards.append(item)
            if cards:
                data[zone] = cards
        players.append(data)
    declared = any(e.attacking for es in r.zones.values() for e in es)
    state: dict[str, Any] = {
        "turn": turn,
        "active": active_name,
        "step": _PHASES.get(step, "main1"),
        "players": players,
    }
    if declared:
        if _PHASES.get(step) != "declare_attackers":
            r.fail(line_of.get("activephase"), "attacking creatures are supported in COMBAT_DECLARE_ATTACKERS only")
        state["declared"] = ["attackers"]
    return state


def _permanent(entry: _Entry, labels: dict[str, _Entry], defender: str, r: _Reading) -> dict[str, Any]:
    item: dict[str, Any] = {}
    if entry.token:
        item["token"] = True
    if entry.tapped:
        item["tapped"] = True
    if entry.sick:
        item["sick"] = True
    if entry.counters:
        item["counters"] = dict(entry.counters)
    if entry.damage:
        item["damage"] = entry.damage
    if entry.attacking:
        item["attacking"] = defender
    if entry.attached_to is not None:
        host = labels.get(entry.attached_to)
        if host is None:
            r.fail(entry.line, f"{entry.name}: AttachedTo:{entry.attached_to} names no card's Id")
        elif host.card is None:
            pass  # an unknown card, reported on its own line
        elif not any(host is e for e in _battlefield(r)):
            r.fail(entry.line, f"{entry.name}: AttachedTo:{entry.attached_to} is not on the battlefield")
        else:
            item["attached_to"] = host.id
    return item


def _battlefield(r: _Reading) -> list[_Entry]:
    return [e for (_, zone), es in r.zones.items() if zone == "battlefield" for e in es]


def _goal(r: _Reading, state: dict[str, Any], pool: CardPool) -> dict[str, Any]:
    line_of = {k: n for k, (n, _) in r.metadata.items()}
    meta = {k: v for k, (_, v) in r.metadata.items()}
    text = meta.get("goal", "Win").strip()
    kind_text = text.lower()
    turns_text = meta.get("turns", "1")
    limit = 1
    given = _whole(turns_text)
    if given is not None and given >= 1:
        limit = given
    else:
        r.fail(line_of.get("turns"), f"Turns:{quote(turns_text)} is not a turn number")
    if state["step"] == "cleanup":
        limit += 1  # Forge: a state that starts in the cleanup step gets one turn more
    if limit < state["turn"]:
        r.fail(
            line_of.get("turns"), f"Turns:{turns_text}: the turn limit is before the position's turn {state['turn']}"
        )
    count_text = meta.get("targetcount", "1")
    if _whole(count_text) is None:
        r.fail(line_of.get("targetcount"), f"TargetCount:{quote(count_text)} is not a number")
    targets_text = meta.get("targets")
    goal: dict[str, Any] = {"player": HUMAN, "turn": limit}
    if kind_text in _DESTROY_GOALS or kind_text in _CONTROL_GOALS:
        kind = "destroy" if kind_text in _DESTROY_GOALS else "control"
        default = "Creature.OppCtrl" if kind == "destroy" else "Card.inZoneBattlefield+OppCtrl"
        line = line_of.get("targets", line_of.get("goal"))
        ids: list[str] = []
        before = len(r.problems)
        for expression in (targets_text or default).split(","):
            ids.extend(_matching(expression.strip(), line, r, state))
        if not ids and len(r.problems) == before:
            r.fail(line, f"no permanent matches Targets:{targets_text or default} (the goal would be reached already)")
        goal.update(kind=kind, targets=sorted(set(ids), key=ids.index))
    elif kind_text in _HAVE_GOALS:
        line = line_of.get("targets", line_of.get("goal"))
        if _whole(count_text) not in (None, 1):
            r.fail(line_of.get("targetcount"), f"TargetCount:{count_text}: only one permanent can be asked for")
        name = _named(targets_text, line, r)
        if name is not None and name not in pool:
            r.fail(line, f"the goal's permanent {quote(name)} is not in the card pool")
        goal.update(kind="have", card=pool.get(name).name if name is not None and name in pool else name)
    elif kind_text == "survive":
        goal.update(kind="survive", turn=limit + 1)
    elif kind_text.startswith("win"):  # Forge reads "Win before opponent's next turn" as Win too
        goal.update(kind="win")
    else:
        r.fail(line_of.get("goal"), f"the goal {quote(text)} is not one the solver can express")
    return goal


_NAMED = re.compile(
    r"^(?:Card|Permanent|Creature)\.YouCtrl\+named(.+)$|^(?:Card|Permanent|Creature)\.named(.+)\+YouCtrl$"
)


def _named(targets: str | None, line: int | None, r: _Reading) -> str | None:
    if not targets:
        r.fail(line, "a Play the Specified Permanent goal needs Targets")
        return None
    match = _NAMED.match(targets.strip())
    if match is None:
        r.fail(line, f"the filter {quote(targets)} can't be expressed (Card.YouCtrl+namedNAME is)")
        return None
    return (match.group(1) or match.group(2)).strip()


_TYPES = {"card": None, "permanent": None, "creature": "creature", "artifact": "artifact", "land": "land"}
_TYPES.update({"enchantment": "enchantment", "planeswalker": "planeswalker"})


def _matching(expression: str, line: int | None, r: _Reading, state: dict[str, Any]) -> list[str]:
    """The ids of the battlefield permanents a simple Forge filter matches: ``Type[.Sub]`` then
    ``+``-joined ``OppCtrl``/``YouCtrl``, a color, ``inZoneBattlefield``, ``namedNAME``."""
    head, *rest = expression.split("+")
    base, _, first = head.partition(".")
    if base.lower() not in _TYPES:
        r.fail(line, f"the filter {quote(expression)} can't be expressed (unknown type {quote(base)})")
        return []
    words = ([first] if first else []) + rest
    controller: str | None = None
    colors: list[str] = []
    subtypes: list[str] = []
    name: str | None = None
    for word in words:
        low = word.lower()
        if low == "oppctrl":
            controller = OPPONENT
        elif low == "youctrl":
            controller = HUMAN
        elif low == "inzonebattlefield":
            continue
        elif low in _COLORS:
            colors.append(low)
        elif low.startswith("named"):
            name = word[5:]
        elif word[:1].isupper() and word.isalpha():
            subtypes.append(word)
        else:
            r.fail(line, f"the filter {quote(expression)} can't be expressed (the part {quote(word)})")
            return []
    wanted_type = _TYPES[base.lower()]
    out: list[str] = []
    for (player, zone), entries in r.zones.items():
        if zone != "battlefield" or (controller is not None and player != controller):
            continue
        for entry in entries:
            card = entry.card
            if card is None:
                continue
            if wanted_type is not None and wanted_type not in card.types:
                continue
            if name is not None and slug(card.name) != slug(name):
                continue
            if any(color not in _card_colors(card) for color in colors):
                continue
            if any(sub not in card.subtypes for sub in subtypes):
                continue
            out.append(entry.id)
    return out


def _card_colors(card: Card) -> list[str]:
    if card.colors is not None:
        return list(card.colors)
    cost = card.mana_cost or ""
    return [color for color, letter in _COLORS.items() if letter in cost]
