"""The ``mtgasp`` command's start: the memory allocator, then the command.

Every question the engine asks makes a clingo control that grounds and solves a program of
thousands of small objects and is then dropped; the C library's allocator spends a fifth of
a game's instructions on them and fragments its heap over a long run.  On Linux the command
runs on mimalloc (the ``cmeel-mimalloc`` package's library), which the process can only load
as it starts: the command starts itself again with the library preloaded (``LD_PRELOAD``).
Self-play takes about 18% less CPU and the puzzle searches about 30% (benchmarks/README.md).
``MTGASP_ALLOCATOR=system`` keeps the system's allocator; the library missing, or another
system, keeps it too.  The names here load nothing of the engine.
"""

from __future__ import annotations

import os
import sys
from importlib import metadata

ALLOCATOR = "MTGASP_ALLOCATOR"
_LIBRARY = "libmimalloc.so"


def allocator_library() -> str | None:
    """The path of mimalloc's shared library, if the package is installed (Linux only)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        files = metadata.files("cmeel-mimalloc") or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == _LIBRARY:
            path = str(file.locate())
            return path if os.path.exists(path) else None
    return None


def allocator() -> str:
    """The allocator this process runs on: ``mimalloc`` or ``system``."""
    loaded = os.environ.get(ALLOCATOR) == "mimalloc" and _LIBRARY in os.environ.get("LD_PRELOAD", "")
    return "mimalloc" if loaded else "system"


def with_fast_allocator() -> None:
    """Start this process again, with the same command line, on mimalloc; return at once when
    it runs on it already, when ``MTGASP_ALLOCATOR`` says otherwise or when the library is
    missing (then on the system's allocator)."""
    if os.environ.get(ALLOCATOR):
        return
    library = allocator_library()
    if library is None:
        return
    env = dict(os.environ)
    env[ALLOCATOR] = "mimalloc"
    env["LD_PRELOAD"] = ":".join(filter(None, (library, env.get("LD_PRELOAD"))))
    # memory freed stays with the process instead of going back to the system after 10 ms:
    # the next question's clingo control reuses it instead of faulting pages in again (legal
    # actions on a fresh position 47 -> 31 ms with a delay of a second, self-play 5% less CPU;
    # never giving it back: 4.5% less again, a puzzle search 6%, the same peak memory)
    env.setdefault("MIMALLOC_PURGE_DELAY", "-1")
    try:
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
    except OSError:  # pragma: no cover - the process goes on as it is
        return


def system_environment() -> dict[str, str]:
    """This process's environment for another program (a peer engine timed beside this one)
    on the system's allocator: without the library :func:`with_fast_allocator` preloads."""
    env = dict(os.environ)
    env[ALLOCATOR] = "system"
    rest = [part for part in env.get("LD_PRELOAD", "").split(":") if part and _LIBRARY not in part]
    if rest:
        env["LD_PRELOAD"] = ":".join(rest)
    else:
        env.pop("LD_PRELOAD", None)
    return env


def main() -> None:
    """The ``mtgasp`` command, on the faster allocator where it can be had."""
    with_fast_allocator()
    from bridge.cli import main as command

    command()
