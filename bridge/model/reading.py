"""Reading YAML and JSON input files with errors that say where and what: the line and column
of a syntax error, the line and path of the first field that fails validation.

Every file is held to the limits of :mod:`bridge.model.limits` before its data is used: its size,
how deep its lists and mappings nest, how many values it holds (YAML aliases counted as the
values they stand for, so an alias bomb is refused before it is expanded), how long its texts
are and how large its numbers."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from bridge.model.errors import InputError, quote, shorten
from bridge.model.limits import MAX_DEPTH, MAX_FILE_BYTES, MAX_INTEGER, MAX_STRING, MAX_VALUES

__all__ = [
    "check_values",
    "parse_json",
    "parse_yaml",
    "read_json",
    "read_text",
    "read_yaml",
    "validation_error",
    "validation_problem",
]


def read_text(path: Path | str, limit: int = MAX_FILE_BYTES, what: str = "the file") -> str:
    """A file's text (UTF-8); :class:`InputError` when it can't be read, is larger than
    ``limit`` bytes or isn't UTF-8 text."""
    source = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise InputError(f"can't read {what}: {reason}", source=source) from None
    except ValueError:  # a name no file can have (a null character)
        raise InputError(f"can't read {what}: no file can have this name", source=source) from None
    if len(data) > limit:
        raise InputError(f"{what} is larger than the limit of {limit:,} bytes", source=source)
    return decode(data, source)


def decode(data: bytes, source: str) -> str:
    """Bytes as UTF-8 text, or :class:`InputError` at the first byte that isn't."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"not UTF-8 text: the byte 0x{data[exc.start]:02x} can't be read",
            source=source,
            location=f"line {line}, column {column}",
        ) from None


def _place(text: str, position: int) -> str:
    line = text.count("\n", 0, position) + 1
    return f"line {line}, column {position - (text.rfind(chr(10), 0, position) + 1) + 1}"


class _Limit(yaml.MarkedYAMLError):
    """An input past one of the limits, at a place in the YAML text."""


class _LimitedLoader(yaml.SafeLoader):
    """The safe loader, held to the limits as it composes: nesting depth, the values the
    document stands for (aliases expanded), the length of texts, the size of integers."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._values = 0
        self._sizes: dict[int, int] = {}  # a finished list or mapping: the values it stands for

    def _count(self, n: int, mark: yaml.Mark | None) -> None:
        self._values += n
        if self._values > MAX_VALUES:
            raise _Limit(
                None,
                None,
                f"more than {MAX_VALUES:,} values (an alias counted as the values it stands for): past the limit",
                mark,
            )

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]  # the stubs leave it untyped
        # this pure-Python loader's events carry the pure-Python marks
        mark = event.start_mark if isinstance(event.start_mark, yaml.Mark) else None
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            if isinstance(node, yaml.ScalarNode):
                self._count(1, mark)
            elif id(node) not in self._sizes:  # a list or mapping still open: it would hold itself
                raise _Limit(None, None, f"the alias *{event.anchor} stands for a value that holds it", mark)
            else:
                self._count(self._sizes[id(node)], mark)
            return node
        if isinstance(event, yaml.ScalarEvent):
            if len(event.value) > MAX_STRING:
                raise _Limit(
                    None,
                    None,
                    f"a text of {len(event.value):,} characters: past the limit of {MAX_STRING:,}",
                    mark,
                )
            self._count(1, mark)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Limit(None, None, f"lists and mappings nested more than {MAX_DEPTH} deep: past the limit", mark)
        before = self._values
        self._count(1, mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._sizes[id(node)] = self._values - before
        return node

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        digits = node.value.replace("_", "").lstrip("+-")
        if len(digits) > 24:
            raise _Limit(
                None,
                None,
                f"the number {shorten(node.value, 40)} is larger than the limit of {MAX_INTEGER:,}",
                node.start_mark,
            )
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                None, None, f"{quote(node.value)} is not a number", node.start_mark
            ) from None

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError):
            raise yaml.constructor.ConstructorError(
                None, None, f"{quote(node.value)} is not a date", node.start_mark
            ) from None


_LimitedLoader.add_constructor("tag:yaml.org,2002:int", _LimitedLoader.construct_yaml_int)
_LimitedLoader.add_constructor("tag:yaml.org,2002:timestamp", _LimitedLoader.construct_yaml_timestamp)


def _compose(text: str) -> yaml.Node | None:
    loader = _LimitedLoader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def parse_yaml(text: str, source: str) -> Any:
    """The data of a YAML text, held to the limits; :class:`InputError` with the line and
    column when it isn't YAML or is past a limit."""
    loader = None
    try:
        loader = _LimitedLoader(text)
        data = loader.get_single_data()
    except yaml.reader.ReaderError as exc:
        char = exc.character if isinstance(exc.character, str) else chr(exc.character)
        raise InputError(
            f"not valid YAML: the character {quote(char)} is not allowed",
            source=source,
            location=_place(text, exc.position),
        ) from None
    except _Limit as exc:
        mark = exc.problem_mark
        raise InputError(
            str(exc.problem),
            source=source,
            location=f"line {mark.line + 1}, column {mark.column + 1}" if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        problem = getattr(exc, "problem", None) or "the text can't be read"
        raise InputError(f"not valid YAML: {problem}", source=source, location=where) from None
    except (ValueError, TypeError, OverflowError, RecursionError):
        raise InputError("not valid YAML: a value can't be read", source=source) from None
    finally:
        if loader is not None:
            loader.dispose()
    check_values(data, source, text)
    return data


def read_yaml(path: Path | str) -> tuple[Any, str]:
    """A YAML file's data and its text; :class:`InputError` when it can't be read, isn't
    YAML or is past a limit."""
    text = read_text(path)
    return parse_yaml(text, str(path)), text


class _BigNumber(str):
    """A number in a JSON text too long to be read as one."""


def _json_int(text: str) -> int | _BigNumber:
    return int(text) if len(text) <= 24 else _BigNumber(text)


_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def parse_json(text: str, source: str) -> Any:
    """The data of a JSON text, held to the limits; :class:`InputError` with the line and
    column when it isn't JSON or is past a limit."""
    if text.count("[") + text.count("{") > MAX_DEPTH:
        blank = _JSON_STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', text)
        depth = 0
        for match in _JSON_BRACKET.finditer(blank):
            depth += 1 if match.group() in "[{" else -1
            if depth > MAX_DEPTH:
                raise InputError(
                    f"lists and mappings nested more than {MAX_DEPTH} deep: past the limit",
                    source=source,
                    location=_place(text, match.start()),
                )
    try:
        data = json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not valid JSON: {exc.msg}", source=source, location=f"line {exc.lineno}, column {exc.colno}"
        ) from None
    except (ValueError, RecursionError):
        raise InputError("not valid JSON", source=source) from None
    check_values(data, source)
    return data


def read_json(path: Path | str, what: str = "the file") -> Any:
    """A JSON file's data; :class:`InputError` when it can't be read, isn't JSON or is past a
    limit."""
    return parse_json(read_text(path, what=what), str(path))


def check_values(data: Any, source: str, text: str | None = None) -> None:
    """:class:`InputError` at the first value past a limit: a number larger than
    :data:`MAX_INTEGER` (or not finite), a text longer than :data:`MAX_STRING`, more than
    :data:`MAX_VALUES` values.  ``text``: the YAML text, for the line."""
    count = 0
    todo: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while todo:
        value, path = todo.pop()
        count += 1
        problem = None
        if count > MAX_VALUES:
            problem = f"more than {MAX_VALUES:,} values: past the limit"
        elif isinstance(value, _BigNumber):
            problem = f"the number {shorten(value, 40)} is larger than the limit of {MAX_INTEGER:,}"
        elif isinstance(value, bool):
            continue
        elif isinstance(value, (int, float)):
            if isinstance(value, float) and math.isnan(value):
                problem = "a number that is not a number (nan)"
            elif abs(value) > MAX_INTEGER:
                shown = f"{value:g}" if isinstance(value, float) else shorten(str(value), 40)
                problem = f"the number {shown} is larger than the limit of {MAX_INTEGER:,}"
        elif isinstance(value, str):
            if len(value) > MAX_STRING:
                problem = f"a text of {len(value):,} characters: past the limit of {MAX_STRING:,}"
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and len(key) > MAX_STRING:
                    problem = f"a key of {len(key):,} characters: past the limit of {MAX_STRING:,}"
                    break
                todo.append((item, path + (key,)))
        elif isinstance(value, (list, tuple)):
            todo.extend((item, path + (i,)) for i, item in enumerate(value))
        if problem is not None:
            where = _loc_text(path) or "(top level)"
            if text is not None:
                line = _node_line(_safe_compose(text), path)
                if line is not None:
                    where = f"line {line}, {where}"
            raise InputError(problem, source=source, location=where)


def _safe_compose(text: str) -> yaml.Node | None:
    try:
        return _compose(text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return None


def validation_error(exc: ValidationError, source: str, text: str | None = None) -> InputError:
    """The :class:`InputError` for a file whose data failed validation: the first error's
    path, with its line when the file's text is given."""
    root = _safe_compose(text) if text is not None else None
    where, problem = validation_problem(exc, root)
    return InputError(problem, source=source, location=where)


def _node_line(root: yaml.Node | None, loc: tuple[Any, ...]) -> int | None:
    """The 1-based line of the YAML node at a validation error's path, as near as it goes."""
    node = root
    line = node.start_mark.line + 1 if node is not None else None
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            found = None
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == str(key):
                    found = v
                    break
            if found is None:
                break
            node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            node = node.value[key]
        else:
            continue
        line = node.start_mark.line + 1
    return line


def _loc_text(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("function-after", "function-before", "function-plain") or str(part).startswith("function-"):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out


# The tags of the tagged unions whose members validation paths name after a list index
# ("do[2].cast.targets"), which the file doesn't have; the models that define such a union
# add its tags (bridge/model/actions.py).
UNION_TAGS: set[str] = set()


def validation_problem(exc: ValidationError, root: yaml.Node | None = None) -> tuple[str, str]:
    """(location, problem) for the first error of a validation failure."""
    first = exc.errors()[0]
    tags = UNION_TAGS
    raw = tuple(first["loc"])
    # A list of actions is a tagged union: the error's path names the action's kind after its
    # index ("do[2].cast.targets"), which the file doesn't have.
    loc = tuple(p for i, p in enumerate(raw) if not (p in tags and i and isinstance(raw[i - 1], int)))
    where = _loc_text(loc) or "(top level)"
    line = _node_line(root, loc) if root is not None else None
    if line is not None:
        where = f"line {line}, {where}"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "union_tag_invalid":
        ctx = first.get("ctx", {})
        message = f"unknown action {quote(ctx.get('tag'))}; known actions: {ctx.get('expected_tags')}"
    elif first["type"] == "extra_forbidden":
        message = f"unknown field {quote(loc[-1])}" if loc else "unknown field"
    elif first["type"] == "missing":
        message = f"missing field {quote(loc[-1])}" if loc else "missing field"
    return where, message
