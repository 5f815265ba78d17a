"""Set lists (``cards/sets/*.txt``): each card of a set, in collector order, with its status
against the card pool: ``playable``, ``partial: <what the file leaves out>`` or
``missing: <what the vocabulary lacks>``."""

import re
from pathlib import Path

import pytest

from bridge.model.cards import CardPool

ROOT = Path(__file__).resolve().parent.parent
SETS = sorted((ROOT / "cards" / "sets").glob("*.txt"))
LINE = re.compile(r"^(\d+) (.+?) \| (playable|partial: .+|missing: .+)$")


def read_set(path: Path) -> list[tuple[int, str, str]]:
    """(collector number, card name, status word) for each line that isn't a comment."""
    entries = []
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        match = LINE.match(line)
        assert match, f"{path.name}:{k}: expected '<number> <name> | playable|partial: ...|missing: ...': {line!r}"
        entries.append((int(match[1]), match[2], match[3].split(":")[0]))
    return entries


def test_m10_lists_its_249_cards_in_collector_order() -> None:
    entries = read_set(ROOT / "cards" / "sets" / "m10.txt")
    assert [n for n, _, _ in entries] == list(range(1, 250))
    names = [name for _, name, _ in entries]
    assert names[0] == "Ajani Goldmane" and names[228] == "Terramorphic Expanse"
    assert names[229:] == [land for land in ("Plains", "Island", "Swamp", "Mountain", "Forest") for _ in range(4)]


@pytest.mark.parametrize("path", SETS, ids=[p.stem for p in SETS])
def test_statuses_agree_with_the_pool(path: Path) -> None:
    pool = CardPool.default()
    for number, name, status in read_set(path):
        if status == "missing":
            assert name not in pool, f"{path.name} {number} {name}: has a card file, so it isn't missing"
        else:
            assert name in pool, f"{path.name} {number} {name}: marked {status} but has no card file"
            assert pool.get(name).name == name, f"{path.name} {number} {name}: the card file names another card"
            # a partial card's file says what it leaves out; a playable one's leaves nothing out
            missing = pool.get(name).missing
            assert bool(missing) == (status == "partial"), (
                f"{path.name} {number} {name}: marked {status}, but its file's `missing` is {missing!r}"
            )
