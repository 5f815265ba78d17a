"""Where the rule modules and card definitions are, in a checkout or an installed wheel."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

__all__ = ["cards_dir", "decks_dir", "rules_dir"]


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
