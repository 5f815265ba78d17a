#!/usr/bin/env bash
# Make the peer engines' own environment for the benchmarks: phase.rs through phase-python.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3 -m venv "$here/.peers"
"$here/.peers/bin/pip" install --quiet phase-python
"$here/.peers/bin/python" -c "import phase; print('phase-python', getattr(phase, '__version__', 'installed'))"
