"""The limits on input, checked before any work, and the time limit of a command.

An input past a limit is refused with :class:`~bridge.model.errors.InputError` (exit status 2 at
the command line) naming the file, the place and the limit.  The README's "Limits" section
lists them; keep the two alike.

A command's time limit (``--time-limit S``) is a :class:`Deadline`: when it passes, the work
under way stops with :class:`TimeLimitReached`, which each command turns into its own
report and exit status :data:`TIME_LIMIT_STATUS`.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = [
    "INTERRUPT_STATUS",
    "MAX_DECK_CARDS",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_INTEGER",
    "MAX_NAME",
    "MAX_OBJECTS",
    "MAX_PROMPT",
    "MAX_RESULTS_BYTES",
    "MAX_STRING",
    "MAX_VALUES",
    "TIME_LIMIT_STATUS",
    "Deadline",
    "TimeLimitReached",
]

MAX_FILE_BYTES = 8 * 1024 * 1024  # a scenario, card, deck or game log file
MAX_RESULTS_BYTES = 64 * 1024 * 1024  # a --results file (one short line per game)
MAX_DEPTH = 50  # lists and mappings inside one another
MAX_INTEGER = 1_000_000  # the size of a number, either sign
MAX_VALUES = 200_000  # values in one file, YAML aliases counted as what they stand for
MAX_STRING = 10_000  # characters in any text of a file
MAX_NAME = 100  # characters in a name: a player, an object id, a card, a deck
MAX_OBJECTS = 1_000  # objects in one position, in all zones and on the stack
MAX_DECK_CARDS = 500  # cards in one deck
MAX_PROMPT = 1_000  # characters of one answer typed at `mtgasp play`'s prompt

TIME_LIMIT_STATUS = 3  # the exit status of a command stopped by its time limit
INTERRUPT_STATUS = 130  # the exit status of a command stopped by an interrupt (Ctrl-C)

# How long the work may overrun its time limit, inside the solver, before the process ends
# itself (the solver's grounding can't be stopped from Python).
GRACE_SECONDS = 10.0


class TimeLimitReached(BaseException):
    """The time limit of the work under way passed.  A ``BaseException``: it passes through
    the ``except Exception`` of code that reports a failure and goes on, like an interrupt."""

    def __init__(self, seconds: float | TimeLimitReached = 0.0) -> None:
        # raised again by clingo, which passes the exception
        self.seconds: float = seconds.seconds if isinstance(seconds, TimeLimitReached) else float(seconds)
        super().__init__(f"the time limit of {self.seconds:g} s was reached")


class Deadline:
    """A time limit for the work inside ``with Deadline(seconds):``, measured on the wall
    clock; ``seconds`` 0 or ``None`` means none.

    In the main thread an alarm raises :class:`TimeLimitReached` where the work is; should
    the work be inside the solver and not come back to Python within :data:`GRACE_SECONDS`,
    a watchdog thread prints ``message`` and ends the process with
    :data:`TIME_LIMIT_STATUS` (``hard_exit=False`` leaves that out).  :meth:`paused` stops
    the clock, for time spent waiting on a person.

    Enter it with a ``with`` statement, not in a generator that yields inside it: the frame of
    that statement, on the stack, is how the alarm and the watchdog know the work is under
    way.  A deadline whose work is over but which was never closed (its ``__exit__`` cut
    short) neither raises into later code nor ends the process: it closes itself."""

    def __init__(self, seconds: float | None, *, message: str = "", hard_exit: bool = True) -> None:
        self.seconds = float(seconds or 0)
        self.message = message
        self.hard_exit = hard_exit
        self._remaining = self.seconds
        self._ends: float | None = None
        self._done = threading.Event()
        self._alarm = False
        self._home: FrameType | None = None  # the frame whose ``with`` holds the deadline
        self._thread = 0  # the thread it limits
        self._previous: Callable[[int, FrameType | None], Any] | int | None = None  # the SIGALRM handler before

    @property
    def reached(self) -> bool:
        return self.seconds > 0 and self._remaining <= 0

    def __enter__(self) -> Deadline:
        if self.seconds <= 0:
            return self
        self._alarm = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
        self._home, self._thread = sys._getframe(1), threading.get_ident()
        if sys.unraisablehook is not _quiet_unraisable:
            sys.unraisablehook = _quiet_unraisable
        if self.hard_exit:
            threading.Thread(target=self._watch, name="mtgasp-deadline", daemon=True).start()
        if self._alarm:
            self._previous = signal.signal(signal.SIGALRM, self._ring)
        self._start()  # last: from here on the alarm may ring, and __exit__ follows
        return self

    def __exit__(self, *exc: object) -> None:
        if self.seconds <= 0:
            return
        self._done.set()  # first: an alarm that rings from here on does nothing
        self._stop()
        if self._alarm:
            signal.signal(signal.SIGALRM, self._previous)
        self._home = None

    def _start(self) -> None:
        self._ends = time.monotonic() + max(self._remaining, 0.0)
        if self._alarm:
            # it rings again and again until the work stops: an exception raised where Python
            # ignores it (a finalizer) is not the end of it
            signal.setitimer(signal.ITIMER_REAL, max(self._remaining, 1e-3), 0.05)

    def _stop(self) -> None:
        if self._alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if self._ends is not None:
            self._remaining = self._ends - time.monotonic()
            self._ends = None

    def _ring(self, signum: int, frame: FrameType | None) -> None:
        if self._done.is_set() or self._ends is None:  # stopped or paused meanwhile
            return
        held = self._held(frame)
        if held is None:  # the deadline is being opened or closed: raised there, it would stay open
            return  # (it rings again, inside the work or after its close)
        if not held:  # the work it limited is over, yet the deadline was not closed: close it
            self._done.set()
            self._stop()
            signal.signal(signal.SIGALRM, self._previous)
            self._home = None
            return
        self._remaining = 0
        raise TimeLimitReached(self.seconds)

    def _held(self, frame: FrameType | None) -> bool | None:
        """Whether ``frame`` (the top of the limited thread's stack) is inside the ``with``
        that holds the deadline; None inside the deadline's own ``__enter__`` or ``__exit__``."""
        while frame is not None:
            if frame.f_code in _OPEN_CLOSE:
                return None
            if frame is self._home:
                return True
            frame = frame.f_back
        return False

    def paused(self) -> _Pause:
        """``with deadline.paused():`` the clock stops (a person is answering)."""
        return _Pause(self)

    def _watch(self) -> None:
        while not self._done.wait(0.25):
            ends = self._ends
            if ends is not None and time.monotonic() > ends + GRACE_SECONDS:
                if not self._held(sys._current_frames().get(self._thread)):
                    return  # the work it limited is over (or the deadline is being closed)
                text = self.message or f"the time limit of {self.seconds:g} s was reached"
                try:
                    sys.stdout.flush()
                    sys.stderr.write(f"error: {text} (the solver did not stop; ended)\n")
                    sys.stderr.flush()
                finally:
                    os._exit(TIME_LIMIT_STATUS)


_OPEN_CLOSE = (Deadline.__enter__.__code__, Deadline.__exit__.__code__)


def _quiet_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """The time limit reached inside a finalizer, where Python can't raise it: nothing to
    tell (the alarm rings again where it can); anything else as Python tells it."""
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, TimeLimitReached):
        return
    sys.__unraisablehook__(unraisable)


class _Pause:
    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline

    def __enter__(self) -> None:
        if self.deadline.seconds > 0 and self.deadline._ends is not None:
            self.deadline._stop()

    def __exit__(self, *exc: object) -> None:
        if self.deadline.seconds > 0 and self.deadline._ends is None and not self.deadline._done.is_set():
            self.deadline._start()
