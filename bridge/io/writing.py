"""Writing files whole or not at all, and file names made from names in the input."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

__all__ = ["safe_file_name", "write_whole"]


def write_whole(path: Path | str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename it:
    a reader sees the old file or the new one, never a part (a full disk or a stopped run
    leaves the old file as it was)."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".tmp")
    try:
        try:  # the mode a new file gets (mkstemp's is private to its owner), or the old file's
            mode = path.stat().st_mode & 0o777
        except OSError:
            mode = 0o666 & ~_umask()
        os.chmod(temporary, mode)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


_UNSAFE = re.compile(r"[^a-z0-9_.+-]+")


def safe_file_name(name: str, limit: int = 120) -> str:
    """A file name made from a name in the input: lower case, every run of characters other
    than letters, digits, ``_ . + -`` made ``_``, no leading dot (no ``..``, no hidden file,
    no folder), and at most ``limit`` characters (a long name keeps its start and a short
    hash of the whole)."""
    safe = _UNSAFE.sub("_", name.replace(" ", "_").lower()).lstrip(".") or "_"
    if len(safe) > limit:
        digest = hashlib.sha1(name.encode("utf-8", "surrogatepass")).hexdigest()[:10]
        safe = f"{safe[: limit - 11]}-{digest}"
    return safe
