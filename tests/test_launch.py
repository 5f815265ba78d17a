"""The mtgasp command starts on mimalloc where the library is installed (bridge/launch.py), keeps
the system's allocator when asked, and gives a peer engine's process the system's."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from bridge.launch import ALLOCATOR, allocator_library, system_environment

ROOT = Path(__file__).resolve().parent.parent

# run in a fresh interpreter: start again on the allocator, then say which one runs
PROBE = (
    "from bridge.launch import allocator, with_fast_allocator\n"
    "with_fast_allocator()\n"
    "import os\n"
    "print(allocator(), 'libmimalloc' in open('/proc/self/maps').read(), os.environ.get('MIMALLOC_PURGE_DELAY'))\n"
)


def _probe(**env: str) -> str:
    base = {k: v for k, v in os.environ.items() if k not in (ALLOCATOR, "LD_PRELOAD", "MIMALLOC_PURGE_DELAY")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env={**base, **env}, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


needs_library = pytest.mark.skipif(allocator_library() is None, reason="mimalloc's library is not installed here")


@needs_library
def test_the_process_starts_again_on_mimalloc() -> None:
    assert _probe() == "mimalloc True -1"


@needs_library
def test_the_system_allocator_when_asked() -> None:
    assert _probe(MTGASP_ALLOCATOR="system") == "system False None"


def test_a_peer_gets_the_system_allocator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ALLOCATOR, "mimalloc")
    monkeypatch.setenv("LD_PRELOAD", "/somewhere/libmimalloc.so:/other/libx.so")
    env = system_environment()
    assert (env[ALLOCATOR], env["LD_PRELOAD"]) == ("system", "/other/libx.so")
    monkeypatch.setenv("LD_PRELOAD", "/somewhere/libmimalloc.so")
    assert "LD_PRELOAD" not in system_environment()


def test_importing_a_benchmarks_helpers_starts_nothing_again() -> None:
    # the tests import benchmarks' helpers: only a benchmark run as a script starts again
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "print('before', flush=True)\n"
        "import benchmarks.common\n"
        "from bridge.launch import allocator\n"
        "print('after', allocator())\n"
    )
    base = {k: v for k, v in os.environ.items() if k not in (ALLOCATOR, "LD_PRELOAD")}
    done = subprocess.run([sys.executable, "-c", code], env=base, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n") == ["before", "after system", ""]


def test_the_command_starts_through_the_launcher() -> None:
    (script,) = [e for e in metadata.entry_points(group="console_scripts") if e.name == "mtgasp"]
    assert script.value == "bridge.launch:main"
