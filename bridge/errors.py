"""The exceptions of the project.  Each says where and what; none needs a traceback."""

from __future__ import annotations


class MtgaspError(Exception):
    """Base of every error the project raises on purpose."""


class RuleModuleError(MtgaspError):
    """A rule module failed to parse, ground or solve, or clingo warned about it."""


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
        parts = [p for p in (self.source, self.location) if p]
        return f"{': '.join(parts)}: {self.problem}" if parts else self.problem

    def at(self, *, source: str | None = None, location: str | None = None) -> "InputError":
        """The same error with the origin filled in where it was missing."""
        return type(self)(self.problem, source=self.source or source, location=self.location or location)


class UnknownCardError(InputError):
    """A card name that is not in the card pool."""


class IllegalActionError(MtgaspError, ValueError):
    """An illegal action was applied to a game; ``verdict`` says which rules it breaks."""

    def __init__(self, verdict: object) -> None:
        self.verdict = verdict
        super().__init__(str(verdict))
