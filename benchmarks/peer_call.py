"""Running a peer driver script in the peers' Python and reading its JSON answer."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_peer(python: Path, script: str, flag: str, payload: object, extra: list[str] | None = None) -> dict:
    """``python benchmarks/<script> <flag> <payload as a JSON file> <extra>``: its JSON output,
    or ``{"reason": ...}`` saying why there is none."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(payload, f)
    try:
        run = subprocess.run(
            [str(python), str(HERE / script), flag, f.name, *(extra or [])], capture_output=True, text=True
        )
    except OSError as exc:
        return {"reason": f"could not run {python}: {exc}"}
    finally:
        Path(f.name).unlink()
    if run.returncode != 0:
        return {"reason": f"{script} failed: {run.stderr.strip()[-500:]}"}
    return json.loads(run.stdout)
