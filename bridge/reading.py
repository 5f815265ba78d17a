"""Reading YAML input files with errors that say where and what: the line and column of a
syntax error, the line and path of the first field that fails validation."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from bridge.errors import InputError

__all__ = ["read_yaml", "validation_error", "validation_problem"]


def read_yaml(path: Path | str) -> tuple[Any, str]:
    """A YAML file's data and its text; :class:`InputError` when it can't be read or isn't
    YAML."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"can't read the file: {reason}", source=source) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"not valid YAML: {problem}", source=source, location=where) from None
    return data, text


def validation_error(exc: ValidationError, source: str, text: str | None = None) -> InputError:
    """The :class:`InputError` for a file whose data failed validation: the first error's
    path, with its line when the file's text is given."""
    root = None
    if text is not None:
        try:
            root = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError:
            root = None
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


@functools.cache
def _action_tags() -> frozenset[str]:
    """The kinds of the actions (and their class names), as validation paths name them."""
    from typing import get_args
    from bridge.models import Action
    kinds = get_args(get_args(Action)[0])
    return frozenset({k.model_fields["kind"].default for k in kinds} | {k.__name__ for k in kinds})


def validation_problem(exc: ValidationError, root: yaml.Node | None = None) -> tuple[str, str]:
    """(location, problem) for the first error of a validation failure."""
    first = exc.errors()[0]
    tags = _action_tags()
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
        message = f"unknown action {ctx.get('tag')!r}; known actions: {ctx.get('expected_tags')}"
    elif first["type"] == "extra_forbidden":
        message = f"unknown field {loc[-1]!r}" if loc else "unknown field"
    elif first["type"] == "missing":
        message = f"missing field {loc[-1]!r}" if loc else "missing field"
    return where, message
