"""The exceptions of the project.  Each says where and what; none needs a traceback."""

from __future__ import annotations

import json

__all__ = [
    "IllegalActionError",
    "InputError",
    "MtgaspError",
    "RuleModuleError",
    "UnknownCardError",
    "one_line",
    "quote",
    "shorten",
]

# the longest a message's parts may be: a value quoted in a message, the file, the place, the problem
VALUE_CHARS = 80
SOURCE_CHARS = 200
LOCATION_CHARS = 200
PROBLEM_CHARS = 600


def shorten(text: str, limit: int) -> str:
    """``text``, shortened in the middle to ``limit`` characters when it is longer."""
    if len(text) <= limit:
        return text
    keep = max(limit - 5, 2)
    return f"{text[: keep - keep // 2]} ... {text[len(text) - keep // 2 :]}"


def _escape(char: str) -> str:
    if char in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line: control and other unprintable characters escaped (``\\n``,
    ``\\x00``), shortened in the middle to ``limit`` characters."""
    text = str(text)
    if limit is not None and len(text) > 4 * limit:  # don't escape a million characters to drop them
        text = shorten(text, 4 * limit)
    if not text.isprintable():
        text = "".join(c if c.isprintable() or (c == " ") else _escape(c) for c in text)
    return shorten(text, limit) if limit is not None else text


def quote(value: object, limit: int = VALUE_CHARS) -> str:
    """A value from the input as a message shows it: text in quotes, anything else as it is
    written in a file (JSON), on one line and shortened in the middle."""
    if isinstance(value, str):
        if len(value) <= limit and value.isprintable():
            return repr(value)
        return "'" + one_line(value, limit) + "'"
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = str(type(value).__name__)
    return one_line(text, limit)


class MtgaspError(Exception):
    """Base of every error the project raises on purpose."""


class RuleModuleError(MtgaspError):
    """A rule module failed to parse, ground or solve, or clingo warned about it."""


class WorkerDied(MtgaspError, RuntimeError):
    """A process (or Ray worker) doing a piece of a sweep's work died: out of memory, or
    killed."""


class InputError(MtgaspError, ValueError):
    """Bad input: a file, a card, an object id or a position that can't be used.

    ``source`` names the file (or other origin), ``location`` the place in it (a path such
    as ``state.players[1].battlefield[2]`` and, when known, a line), ``problem`` what is
    wrong.
    """

    def __init__(self, problem: str, *, source: str | None = None, location: str | None = None) -> None:
        self.problem = problem
        self.source = source
        self.location = location
        super().__init__(self.describe())

    def describe(self) -> str:
        """One line: file, place and problem."""
        parts = [one_line(p, n) for p, n in ((self.source, SOURCE_CHARS), (self.location, LOCATION_CHARS)) if p]
        problem = one_line(self.problem, PROBLEM_CHARS)
        return f"{': '.join(parts)}: {problem}" if parts else problem

    def at(self, *, source: str | None = None, location: str | None = None) -> InputError:
        """The same error with the origin filled in where it was missing."""
        return type(self)(self.problem, source=self.source or source, location=self.location or location)


class UnknownCardError(InputError):
    """A card name that is not in the card pool."""


class UnsupportedCardError(InputError):
    """A card of the pool whose text the card vocabulary doesn't hold yet, used in a way that
    needs it (casting an instant or sorcery that does nothing the engine knows)."""


class IllegalActionError(MtgaspError, ValueError):
    """An illegal action was applied to a game; ``verdict`` says which rules it breaks."""

    def __init__(self, verdict: object) -> None:
        self.verdict = verdict
        super().__init__(str(verdict))
