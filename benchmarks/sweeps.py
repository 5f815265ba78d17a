"""Sweeps benchmark: the wall time of ``mtgasp check`` over a folder of scenarios and of
``mtgasp verify``, in this process, in local processes and on a local Ray cluster.

Each command is run as a person runs it (the ``mtgasp`` beside this Python), once per
backend: ``serial`` (no option), ``local:J`` (``--jobs J``), ``ray:J`` (``--backend ray
--jobs J``: a local cluster of J CPUs, started and shut down by the command, its start
included in the wall time). The standard output of each run is compared with the serial
run's, the times it prints left out: a backend whose results differ is named. The load
average before each run is printed too: on a machine shared with others, the figures move
with what the others run.

Run by hand:  .venv/bin/python benchmarks/sweeps.py [--check scenarios/]
[--verify "--max-permanents 1 --positions 10"] [--backends serial local:2 ray:2] [--json FILE]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import add_json_option, header, row, write_json

MTGASP = str(Path(sys.executable).parent / "mtgasp")


def _options(backend: str) -> list[str]:
    if backend == "serial":
        return []
    kind, _, jobs = backend.partition(":")
    if kind not in ("local", "ray") or not jobs.isdigit():
        raise SystemExit(f"--backends: {backend!r} is not serial, local:J or ray:J")
    return ["--jobs", jobs] + (["--backend", "ray"] if kind == "ray" else [])


def _without_times(text: str) -> str:
    return re.sub(r"[0-9.]+ s\b|[0-9.]+ positions/s|[0-9.]+/s", "_", text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", default="scenarios/", help="the folder (or file) of scenarios for mtgasp check")
    parser.add_argument(
        "--verify", default="--max-permanents 1 --positions 10", help="the options of mtgasp verify (one string)"
    )
    parser.add_argument("--backends", nargs="+", default=["serial", "local:2", "ray:2"])
    add_json_option(parser)
    args = parser.parse_args()
    info = header()
    rows = []
    with tempfile.TemporaryDirectory() as out:
        commands = {
            "check": [MTGASP, "check", args.check, "-q"],
            "verify": [MTGASP, "verify", *shlex.split(args.verify), "--out", str(Path(out) / "findings")],
        }
        for name, command in commands.items():
            first: str | None = None
            for backend in args.backends:
                load = os.getloadavg()[0]
                started = time.perf_counter()
                done = subprocess.run([*command, *_options(backend)], capture_output=True, text=True, cwd=ROOT)
                wall = time.perf_counter() - started
                same = first is None or _without_times(done.stdout) == first
                first = first if first is not None else _without_times(done.stdout)
                last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
                print(
                    f"{name:7} {backend:9} {wall:7.1f} s  exit {done.returncode}  load {load:4.1f}  "
                    f"{'same results' if same else 'RESULTS DIFFER'}: {last}"
                )
                rows.append(row(f"{name} {backend} wall", "s", wall))
    write_json(args.json, info, rows)


if __name__ == "__main__":
    main()
