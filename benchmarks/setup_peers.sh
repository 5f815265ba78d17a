#!/usr/bin/env bash
# Make the peer engines' own environment for the benchmarks: phase.rs through phase-python, and
# python-mtg (its find_win, for puzzles.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3 -m venv "$here/.peers"
"$here/.peers/bin/pip" install --quiet phase-python python-mtg
"$here/.peers/bin/python" -c "import phase; print('phase-python', getattr(phase, '__version__', 'installed'))"
"$here/.peers/bin/python" -c "from importlib.metadata import version; import mtg.engine.win_search; print('python-mtg', version('python-mtg'))"
