"""Where the rule modules, card definitions and decks are, in a checkout or an installed wheel; where
the scenario files and the rules text are, beside a checkout."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

__all__ = ["cards_dir", "decks_dir", "rules_dir", "rules_text_file", "scenarios_dir"]

# the October 2009 rules text, kept in shared/seeds beside a checkout
_RULES_TEXT = Path("shared") / "seeds" / "000_00f3c3315372eec8.txt"


def _data_dir(package: str) -> Path:
    checkout = Path(__file__).resolve().parents[2] / package
    if checkout.is_dir():
        return checkout
    try:
        found = resources.files(package)
    except ModuleNotFoundError:
        raise FileNotFoundError(f"the data folder {package!r} is neither in the checkout nor installed") from None
    return Path(str(found))


@functools.cache
def rules_dir() -> Path:
    """The folder ``asp_rules``."""
    return _data_dir("asp_rules")


@functools.cache
def cards_dir() -> Path:
    """The folder ``cards``."""
    return _data_dir("cards")


@functools.cache
def decks_dir() -> Path:
    """The folder ``decks``."""
    return _data_dir("decks")


def _checkout() -> Path:
    return Path(__file__).resolve().parents[2]


def scenarios_dir() -> Path | None:
    """The folder ``scenarios`` of the checkout; ``None`` in an installed wheel, which has none."""
    folder = _checkout() / "scenarios"
    return folder if folder.is_dir() else None


def shared_folder(*parts: str) -> Path | None:
    """A folder of ``shared/`` beside a checkout (``shared/puzzles/forge``), or ``None``."""
    for folder in _checkout().parents:
        found = folder.joinpath("shared", *parts)
        if found.is_dir():
            return found
    return None


def rules_text_file() -> Path | None:
    """The October 2009 rules text (``shared/seeds/...``) in a folder above the checkout, or
    ``None`` when there is none."""
    for folder in _checkout().parents:
        text = folder / _RULES_TEXT
        if text.is_file():
            return text
    return None
