"""Hypothesis strategies that build broken input for the fuzzing suite (tests/test_fuzz.py).

Values are made from the JSON Schemas of the file formats (``schemas/*.json``, and the
models' own schemas for decks), then broken on purpose: keys dropped and added, values of
the wrong type, numbers huge and negative, ids unknown and repeated, cycles (an Aura
attached to itself, a creature blocking itself), deep nesting, long and odd strings; and the
file's text broken in turn: cut short, invalid UTF-8, control characters, an alias bomb,
numbers of thousands of digits.

A new kind of input file gets its base documents and its command in test_fuzz.py; its
values come from its schema through :func:`from_schema` and its breaking through
:func:`broken_document` and :func:`broken_text`.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent

# words the generated values are made of: names the engine knows, and some it doesn't
CARD_NAMES = [
    "Grizzly Bears",
    "Craw Wurm",
    "Lure",
    "Forest",
    "Mountain",
    "Lightning Bolt",
    "Giant Growth",
    "Serra Angel",
    "Llanowar Elves",
    "Goblin Piker",
    "Pacifism",
    "Jace Beleren",
    "Unknown Card",
]
IDS = ["a", "b", "bear", "wurm", "lure", "elves", "nobody"]
PLAYERS = ["alice", "bob", "carol"]
WORDS = CARD_NAMES + IDS + PLAYERS + ["declare_blockers", "main1", "combat_damage", "flying", "red", "creature"]

ODD_STRINGS = [
    "",
    " ",
    "\x00",
    "a\nb",
    "\t",
    "\x1b[31mred",
    "\u202eevil",
    "\ud800",
    "\u2028",
    "é" * 3,
    "../escaped",
    "/etc/passwd",
    "C:\\x",
    "x" * 150,
    "y" * 20_000,
    "{",
    "*a",
    "&a",
    "- x",
    "9" * 40,
    "1e400",
    ".nan",
    "null",
    "~",
]
ODD_NUMBERS = [
    -1,
    0,
    1,
    7,
    -(10**6),
    10**6,
    10**6 + 1,
    -(10**7),
    2**31,
    2**63,
    10**30,
    1.5,
    -0.0,
    float("inf"),
    float("-inf"),
    1e300,
]


def nested(depth: int, leaf: Any = 1, mapping: bool = False) -> Any:
    """A value nested ``depth`` lists (or mappings) deep."""
    value = leaf
    for _ in range(depth):
        value = {"a": value} if mapping else [value]
    return value


odd_values = st.one_of(
    st.sampled_from(ODD_STRINGS),
    st.sampled_from(ODD_NUMBERS),
    st.none(),
    st.booleans(),
    st.text(max_size=20),
    st.integers(),
    st.just([]),
    st.just({}),
    st.builds(nested, st.integers(min_value=45, max_value=70), st.just(1), st.booleans()),
    st.lists(st.sampled_from(WORDS), max_size=4),
    st.dictionaries(st.sampled_from(WORDS), st.integers(-3, 30), max_size=3),
)


# ------------------------------------------------------------------ from a schema
def from_schema(node: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values for a JSON Schema node: mostly valid by the schema (so that they reach past
    the format to the engine), small, from the project's words."""
    if depth > 7:
        return st.one_of(st.none(), st.sampled_from(WORDS), st.integers(0, 3))
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return st.deferred(lambda: from_schema(defs.get(name, {}), defs, depth + 1))
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    for key in ("anyOf", "oneOf"):
        if key in node:
            return st.one_of([from_schema(n, defs, depth + 1) for n in node[key]])
    if "allOf" in node:
        return from_schema(node["allOf"][0], defs, depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        return st.one_of([from_schema({**node, "type": k}, defs, depth) for k in kind])
    if kind == "object" or "properties" in node:
        props = node.get("properties", {})
        required = set(node.get("required", []))
        must = {k: from_schema(v, defs, depth + 1) for k, v in props.items() if k in required}
        may = {k: from_schema(v, defs, depth + 1) for k, v in props.items() if k not in required}
        if not props and isinstance(node.get("additionalProperties"), dict):
            return st.dictionaries(
                st.sampled_from(WORDS), from_schema(node["additionalProperties"], defs, depth + 1), max_size=3
            )
        return st.fixed_dictionaries(must, optional=may)
    if kind == "array":
        items = node.get("items", {})
        low = node.get("minItems", 0)
        return st.lists(from_schema(items, defs, depth + 1), min_size=low, max_size=max(low, 3))
    if kind == "string":
        if "pattern" in node and node["pattern"].startswith("^(\\{"):
            return st.from_regex(node["pattern"], fullmatch=True).map(lambda s: s[:12])
        return st.one_of(st.sampled_from(WORDS), st.text(max_size=6))
    if kind == "integer":
        low = node.get("minimum", node.get("exclusiveMinimum", -3))
        high = node.get("maximum", 25)
        return st.integers(min_value=max(low, -3), max_value=max(min(high, 25), max(low, -3)))
    if kind == "number":
        return st.floats(min_value=-5, max_value=30, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return st.one_of(st.none(), st.sampled_from(WORDS), st.integers(0, 5))


def schema(name: str) -> dict[str, Any]:
    """A committed schema: ``scenario`` or ``card``."""
    return json.loads((ROOT / "schemas" / f"{name}.schema.json").read_text())


def from_definition(root: dict[str, Any], name: str | None = None) -> st.SearchStrategy[Any]:
    """Values for a schema (or one of its definitions)."""
    defs = root.get("$defs", {})
    return from_schema(defs[name] if name else root, defs)


# ------------------------------------------------------------------ breaking a document
def _places(doc: Any) -> list[tuple[Any, ...]]:
    """The path of every value in a document, the document itself first."""
    out: list[tuple[Any, ...]] = []
    todo: list[tuple[Any, tuple[Any, ...]]] = [(doc, ())]
    while todo:
        value, path = todo.pop()
        out.append(path)
        if isinstance(value, dict):
            todo.extend((v, path + (k,)) for k, v in value.items())
        elif isinstance(value, list):
            todo.extend((v, path + (i,)) for i, v in enumerate(value))
    return sorted(out, key=lambda p: [str(x) for x in p])


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def _mutate(doc: Any, kind: str, place: int, value: Any) -> Any:
    """The document with one thing broken at the place numbered ``place``."""
    places = _places(doc)
    path = places[place % len(places)]
    if not path:
        return value if kind == "replace" else doc
    parent, key = _get(doc, path[:-1]), path[-1]
    target = parent[key]
    if kind == "drop":
        del parent[key]
    elif kind == "replace":
        parent[key] = value
    elif kind == "unknown_key":
        container = target if isinstance(target, dict) else parent if isinstance(parent, dict) else None
        if container is not None:
            container[str(value) if not isinstance(value, (dict, list)) else "weather"] = value
    elif kind == "duplicate":
        container = target if isinstance(target, list) else parent if isinstance(parent, list) else None
        if container:
            container.append(copy.deepcopy(container[0]))
    elif kind == "cycle":
        mapping = target if isinstance(target, dict) else parent if isinstance(parent, dict) else None
        if mapping is not None:
            own = mapping.get("id", mapping.get("card", "a"))
            field = ("attached_to", "blocking", "attacking", "targets", "source", "id")[place % 6]
            mapping[field] = [own] if field in ("blocking", "targets") else own
    elif kind == "unknown_id":
        if isinstance(target, str):
            parent[key] = "nobody_" + target[:5]
    elif kind == "move":
        others = [p for p in places if p and p[: len(path)] != path and path[: len(p)] != p]
        if others:
            there = others[(place * 7) % len(others)]
            _get(doc, there[:-1])[there[-1]] = copy.deepcopy(target)
    return doc


MUTATIONS = ["drop", "replace", "unknown_key", "duplicate", "cycle", "unknown_id", "move"]


@st.composite
def broken_document(draw: st.DrawFn, bases: list[Any], parts: st.SearchStrategy[Any]) -> Any:
    """One of ``bases`` with one to three things broken; ``parts`` makes values to put in
    (from the schema)."""
    doc = copy.deepcopy(bases[draw(st.integers(0, len(bases) - 1))])
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        kind = draw(st.sampled_from(MUTATIONS))
        value = draw(st.one_of(odd_values, parts))
        doc = _mutate(doc, kind, draw(st.integers(0, 10_000)), value)
    return doc


# ------------------------------------------------------------------ breaking a text
BOMB = '\nlol0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n' + "".join(
    f"lol{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]\n" for i in range(1, 9)
)


def dump(doc: Any, as_json: bool) -> str:
    """A document as YAML or JSON text (a value the dumper can't write becomes its text)."""
    try:
        if as_json:
            return json.dumps(doc, ensure_ascii=False)
        return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, default_flow_style=None, width=1000)
    except (ValueError, TypeError, yaml.YAMLError, UnicodeEncodeError, RecursionError):
        return str(doc)


def _break_text(data: bytes, kind: str, at: int) -> bytes:
    where = at % (len(data) + 1)
    if kind == "cut":
        return data[:where]
    if kind == "invalid_utf8":
        return data[:where] + b"\xff\xfe\xc3" + data[where:]
    if kind == "control":
        return data[:where] + b"\x01\x00\x1b[2J\r" + data[where:]
    if kind == "digits":
        digits = data.find(b"1")
        return data if digits < 0 else data[:digits] + b"9" * 5000 + data[digits:]
    if kind == "deep":
        return data[:where] + b"[" * 3000 + b"]" * 3000 + data[where:]
    if kind == "bomb":
        return data + BOMB.encode()
    if kind == "tab":
        return data[:where] + b"\n\t- x: [\n" + data[where:]
    if kind == "bom":
        return b"\xef\xbb\xbf" + data
    if kind == "huge":
        return data + b"\n# " + b"x" * (8 * 1024 * 1024 + 10) + b"\n"
    return data


TEXT_BREAKS = ["none"] * 8 + ["cut", "invalid_utf8", "control", "digits", "deep", "bomb", "tab", "bom"]


@st.composite
def broken_text(draw: st.DrawFn, doc: Any, yaml_ok: bool = True) -> bytes:
    """A document's text, itself broken (or not)."""
    as_json = not yaml_ok or draw(st.booleans())
    data = dump(doc, as_json).encode("utf-8", "surrogatepass")
    kind = draw(st.sampled_from(TEXT_BREAKS + ["huge"] if draw(st.integers(0, 40)) == 0 else TEXT_BREAKS))
    return _break_text(data, kind, draw(st.integers(0, 1 << 20)))


# ------------------------------------------------------------------ prompt input
prompt_lines = st.one_of(
    st.sampled_from(
        [
            "1",
            "2",
            "0",
            "-1",
            "999999999",
            "1 2",
            "²",
            "١",
            " 3 ",
            "",
            "quit",
            "Q",
            "\x00",
            "\x1b[A",
            "9" * 5000,
            "9" * 1_000_100,
        ]
    ),
    st.integers(min_value=-3, max_value=40).map(str),
    st.text(max_size=12).filter(lambda s: "\n" not in s and "\r" not in s),
)


@st.composite
def prompt_input(draw: st.DrawFn) -> bytes:
    """What a person types at `mtgasp play`'s prompt: lines of numbers and not numbers,
    perhaps invalid UTF-8, perhaps ending without q (or without a newline)."""
    lines = draw(st.lists(prompt_lines, max_size=8))
    text = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        text += b"\n"
    if draw(st.integers(0, 5)) == 0:
        text += b"\xff\xfe 2\n"
    return text
