"""Card files say what of their printed text they leave out (``missing``), and a game says so.

The printed text is read line by line (reminder text in parentheses aside): a line of
keywords, an activated ability ("<cost>: <effect>"), a triggered ability ("When",
"Whenever", "At", after an ability word such as "Landfall —"), "Choose one —". A card whose
file holds fewer of each than its text prints, or an instant or sorcery that can't be cast
(nothing in the file says what it does to what), must have ``missing``.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.engine.game import Game
from bridge.model.cards import Card, CardPool

POOL = CardPool.default()
CARDS = POOL.all()

# keywords whose triggers the rules know (cards/README.md)
KEYWORD_TRIGGERS = {"exalted", "flanking", "provoke", "bushido"}
# a line of keywords: each part a keyword, with its quality or cost
KEYWORD = re.compile(
    r"(flying|reach|fear|intimidate|shadow|horsemanship|defender|haste|vigilance|first strike|"
    r"double strike|deathtouch|lifelink|trample|banding|flash|shroud|wither|exalted|flanking|"
    r"provoke|phasing|indestructible|changeling|split second|morph|fading|rampage|bushido|"
    r"champion|dredge|entwine|kicker|buyback|flashback|equip|enchant|protection|bands with other|"
    r"(?:\w+ )?\w*walk)\b(.*)",
    re.I,
)
WORDS = {"first strike": "first_strike", "double strike": "double_strike"}


def _lines(card: Card) -> list[str]:
    text = re.sub(r"\([^)]*\)", "", card.text.split("----")[0])
    return [line.strip() for line in text.splitlines() if line.strip()]


def _keywords(line: str) -> list[str] | None:
    """The keywords of a line made only of keywords (with their qualities or costs), else None."""
    parts = [p.strip() for p in re.split(r"[,;]\s*|\s+and\s+from\s+", line) if p.strip()]
    found = []
    for part in parts:
        match = KEYWORD.fullmatch(part)
        if match is None:
            return None
        found.append(match.group(1).lower())
    return found


def lacks(card: Card) -> list[str]:
    """What of its printed text a card's file visibly leaves out."""
    out = []
    lines = _lines(card)
    if (
        {"instant", "sorcery"} & set(card.types)
        and not card.resolve
        and not card.modes
        and not (card.effect and card.targets)
    ):
        out.append("nothing says what it does")
    modal = card.modes or any(t.modes for t in card.triggered)
    if any(re.search(r"\bchoose one\b", line, re.I) for line in lines) and not modal:
        out.append("its modes")
    have = set(card.keyword_names()) | {str(a.term()).split("(")[0] for a in card.all_abilities() if hasattr(a, "term")}
    triggers = activated = 0
    for line in lines:
        keywords = _keywords(line)
        if keywords is not None:
            for word in keywords:
                key = WORDS.get(word, word.replace(" ", "_"))
                if key.endswith("walk"):
                    key = "landwalk"
                known = {
                    "kicker": card.kicker,
                    "buyback": card.buyback,
                    "flashback": card.flashback,
                    "entwine": card.entwine,
                    "morph": card.morph,
                    "equip": card.equip,
                    "enchant": "enchant" in have,
                    "protection": "protection" in have,
                    "bands_with_other": "bands_with_other" in have,
                }
                if not (known[key] if key in known else key in have):
                    out.append(f"the keyword {word}")
            continue
        if re.match(r"^(?:[\w ]+ — )?(When|Whenever|At the beginning|At end of)\b", line):
            triggers += 1
        elif re.match(r"^[^\"]*?:", line) and not line.lower().startswith(("as ", "choose")):
            activated += 1
    if triggers > len(card.triggered) + len(KEYWORD_TRIGGERS & set(card.keyword_names())):
        out.append("a triggered ability")
    # mana abilities: "{T}: Add ...", Exotic Orchard's and Lion's Eye Diamond's (605.1a)
    mana = sum(
        1
        for a in card.abilities
        if getattr(a, "mana", None)
        or getattr(a, "keyword", None) in ("mana_of_opponents_lands", "sacrifice_discard_hand_for_mana")
    )
    if activated > len(card.activated) + mana:
        out.append("an activated ability")
    return out


def test_the_check_finds_what_a_file_leaves_out() -> None:
    # Ajani Goldmane's -6 is an activated ability its file leaves out
    assert lacks(POOL.get("Ajani Goldmane")) == ["an activated ability"]
    bare = Card.model_validate(
        {
            "name": "X",
            "types": ["creature"],
            "power": 1,
            "toughness": 1,
            "text": "Flying\nWhen X enters the battlefield, draw a card.\n{T}: Add {G}.",
        }
    )
    assert lacks(bare) == ["the keyword flying", "a triggered ability", "an activated ability"]
    assert lacks(POOL.get("Serra Angel")) == [] and lacks(POOL.get("Prodigal Pyromancer")) == []


@pytest.mark.parametrize("card", [c for c in CARDS if lacks(c)], ids=lambda c: c.name)
def test_a_card_leaving_out_part_of_its_text_says_so(card: Card) -> None:
    assert card.missing, f"{card.name}: the file leaves out {', '.join(lacks(card))} but has no `missing`"


def test_a_game_names_its_partial_cards() -> None:
    game = Game.from_state(
        {
            "active": "alice",
            "players": [
                {"name": "alice", "hand": ["Fling"], "battlefield": ["Ajani Goldmane", "Grizzly Bears"]},
                {"name": "bob", "battlefield": [{"id": "bears", "card": "Grizzly Bears"}]},
            ],
            "effects": [
                {
                    "source": "Sleight of Mind",
                    "targets": ["bears"],
                    "text_change": {"from": "green", "to": "red"},
                    "duration": "permanent",
                }
            ],
        }
    )
    parts = game.partial_cards()
    assert list(parts) == ["Ajani Goldmane", "Fling", "Sleight of Mind"]
    assert parts["Ajani Goldmane"] == POOL.get("Ajani Goldmane").missing


def test_check_and_selfplay_say_which_part_does_nothing(tmp_path) -> None:
    path = tmp_path / "ajani.yaml"
    path.write_text(
        "title: t\ncite: ['606.3']\nstate:\n  active: alice\n  step: main1\n"
        "  players:\n    - {name: alice, battlefield: [{id: ajani, card: Ajani Goldmane}]}\n"
        "    - {name: bob}\ndo:\n  - activate: {source: ajani, ability: 1}\n"
        "expect:\n  stack: [ajani ability 1]\n"
    )
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert "note: Ajani Goldmane leaves out the -6" in result.output
    quiet = CliRunner().invoke(main, ["check", "-q", str(path)])
    assert "note:" not in quiet.output
    deck = tmp_path / "d.yaml"
    deck.write_text("name: Walkers\ncards:\n  Ajani Goldmane: 4\n  Plains: 36\n")
    played = CliRunner().invoke(
        main, ["selfplay", "--games", "1", "--max-actions", "5", "--decks", str(deck), "green_stompy"]
    )
    assert played.exit_code == 0, played.output
    assert played.output.count("note: Ajani Goldmane leaves out") == 1
