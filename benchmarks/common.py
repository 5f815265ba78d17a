"""What every benchmark shares: the header it prints (its command line, the machine, the commit
mtgasp runs from), its figures as rows written with ``--json FILE``, the timing helpers, and
running a peer driver script in the peers' Python.

A row is one figure of the benchmark: its ``name``, ``unit`` (``ms`` or ``actions/s``...),
mtgasp's figure (``mtgasp``), the peer's (``peer``, null when the peer has none) and
``ratio``, mtgasp's figure divided by the peer's (null where the peer has none): above 1, a
time of mtgasp's is longer or a rate of mtgasp's higher. ``--json FILE`` writes
``{"command", "machine", "commit", "rows": [...]}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import clingo

from bridge.engine.solver import collect_less, forget
from bridge.launch import allocator, system_environment, with_fast_allocator

if TYPE_CHECKING:
    from bridge.play.selfplay import Deck

HERE = Path(__file__).resolve().parent
# the allocator the mtgasp command runs on (bridge/launch.py): a benchmark run as a script
# starts again on it (not a program that imports a benchmark's helpers, such as the tests)
if Path(sys.argv[0]).resolve().parent == HERE:
    with_fast_allocator()
# the garbage collector as the mtgasp command sets it
collect_less()

ROOT = HERE.parent
PEER_PYTHON = HERE / ".peers" / "bin" / "python"
# the folders whose changes change what mtgasp computes
ENGINE_PARTS = ("bridge", "asp_rules", "cards", "decks")


# ---------------------------------------------------------------------- header
def command() -> str:
    """The command line the benchmark was run with."""
    return " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv])


def machine() -> str:
    """OS, CPU model, cores, Python and clingo versions, the allocator mtgasp runs on."""
    cpu = platform.processor() or "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.release()} {platform.machine()}, {cpu}, {os.cpu_count()} cores; "
        f"Python {platform.python_version()}, clingo {clingo.__version__}, mtgasp's allocator {allocator()}"
    )


def _git(*args: str) -> str:
    try:
        run = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    except OSError:
        return ""
    return run.stdout.strip() if run.returncode == 0 else ""


def checkout() -> str:
    """The checkout mtgasp runs from: its commit (``git describe``) and whether the tree
    differs from it, the engine's own folders named apart."""
    commit = _git("describe", "--always", "--tags")
    if not commit:
        return f"{ROOT} (not a git checkout)"
    engine = _git("status", "--porcelain", "--", *ENGINE_PARTS)
    anything = _git("status", "--porcelain", "--untracked-files=no")
    if engine:
        state = "with uncommitted changes in " + ", ".join(f"{p}/" for p in ENGINE_PARTS)
    elif anything:
        state = "with uncommitted changes outside the engine (bridge/, asp_rules/, cards/, decks/ as committed)"
    else:
        state = "clean"
    return f"{ROOT}, commit {commit}, {state}"


def header() -> dict[str, str]:
    """Print the command line, the machine and the commit; return them (for ``--json``)."""
    info = {"command": command(), "machine": machine(), "commit": checkout()}
    print(f"command: {info['command']}")
    print(f"machine: {info['machine']}")
    print(f"mtgasp: {info['commit']}")
    return info


# ---------------------------------------------------------------------- rows and --json
def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures to FILE as JSON rows")


def row(name: str, unit: str, ours: float | None, peer: float | None = None) -> dict[str, object]:
    """One figure: mtgasp's, the peer's and their ratio (mtgasp's over the peer's)."""
    ratio = ours / peer if ours is not None and peer else None
    return {
        "name": name,
        "unit": unit,
        "mtgasp": _rounded(ours),
        "peer": _rounded(peer),
        "ratio": _rounded(ratio),
    }


def _rounded(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.6g}")


def write_json(path: Path | None, info: dict[str, str], rows: list[dict[str, object]]) -> None:
    """Write the header and the rows to ``path`` (nothing when None)."""
    if path is None:
        return
    path.write_text(json.dumps({**info, "rows": rows}, indent=1) + "\n")
    print(f"(figures written to {path})")


# ---------------------------------------------------------------------- timing
def times_ms(run: Callable[[], object], repeats: int, fresh: bool = False) -> list[float]:
    """The time of each of ``repeats`` runs, in ms.  ``fresh``: every answer, session and
    position the process kept is forgotten before each run (outside the time), so that a run
    on a position asked before is worked out again, as for a position met the first time;
    otherwise a question asked again is answered from what was kept."""
    out = []
    for _ in range(repeats):
        if fresh:
            forget()
        started = time.perf_counter()
        run()
        out.append((time.perf_counter() - started) * 1000)
    return out


def median_ms(run: Callable[[], object], repeats: int, fresh: bool = False) -> float:
    return statistics.median(times_ms(run, repeats, fresh))


def p90(values: list[float]) -> float:
    """The 90th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, -(-9 * len(ordered) // 10) - 1))]


# ---------------------------------------------------------------------- decks
def load_decks(names: Sequence[str]) -> tuple[Deck, Deck]:
    """The two decks named: a shipped deck by its name (``red_goblins``), else a deck file."""
    from bridge.play.selfplay import load_deck, shipped_decks

    shipped = shipped_decks()
    first, second = (load_deck(shipped.get(name) or Path(name)) for name in names)
    return first, second


# ---------------------------------------------------------------------- peers
def run_peer(python: Path, script: str, flag: str, payload: object, extra: list[str] | None = None) -> Any:
    """``python benchmarks/<script> <flag> <payload as a JSON file> <extra>``: its JSON output
    (a mapping or a list), or ``{"reason": ...}`` saying why there is none."""
    if not python.exists():
        return {"reason": f"no environment at {python}; run benchmarks/setup_peers.sh"}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(payload, f)
    try:
        run = subprocess.run(
            [str(python), str(HERE / script), flag, f.name, *(extra or [])],
            capture_output=True,
            text=True,
            env=system_environment(),
        )
    except OSError as exc:
        return {"reason": f"could not run {python}: {exc}"}
    finally:
        Path(f.name).unlink()
    if run.returncode != 0:
        return {"reason": f"{script} failed: {run.stderr.strip()[-500:]}"}
    return json.loads(run.stdout)
