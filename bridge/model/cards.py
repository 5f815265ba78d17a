"""Card definitions: the format of ``cards/*.yaml``, its validation, and its ASP facts.

A card file holds one card.  Characteristics are plain fields; abilities are a list whose
items are a keyword (``flying``), a keyword with a parameter (``{landwalk: island}``,
``{protection: {color: black}}``, ``{can_block_additional: 1}``) or a static ability that
affects other objects (``{static: {affects: ..., grant: [...], modify_pt: [1, 1]}}``).

>>> pool = CardPool.default()
>>> pool.get("Serra Angel").power
4
>>> "flying" in pool.get("Serra Angel").keyword_names()
True
"""

from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bridge.model.errors import InputError, UnknownCardError, quote, shorten
from bridge.model.limits import MAX_INTEGER, MAX_NAME
from bridge.model.paths import cards_dir
from bridge.model.reading import read_yaml, validation_error

__all__ = ["COLORS", "Card", "CardPool", "EffectSpec", "Quality", "StaticAbility", "slug"]

COLORS = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}
CARD_TYPES = ("artifact", "creature", "enchantment", "instant", "land", "planeswalker", "sorcery", "tribal")
SUPERTYPES = ("basic", "legendary", "snow", "world")
BASIC_LAND_MANA = {"plains": "w", "island": "u", "swamp": "b", "mountain": "r", "forest": "g"}
# A position's facts give the texts (Card.facts) of the cards only in hands, graveyards,
# libraries or on the stack as spells, each between two comment lines, the first naming the
# card: a question whose read facts name no such card is given the facts without its text
# (bridge/engine/facts.py writes them, bridge/engine/solver.py leaves them out).
TEXTS_BEGIN = "% the texts of the card "
TEXTS_END = "% end of the texts"

# Keywords and rules markers without a parameter (CR 702 and the combat rules of 508-509).
SIMPLE_ABILITIES = frozenset(
    {
        "flying",
        "reach",
        "fear",
        "intimidate",
        "shadow",
        "horsemanship",
        "defender",
        "haste",
        "vigilance",
        "first_strike",
        "double_strike",
        "deathtouch",
        "lifelink",
        "trample",
        "banding",
        "flash",
        "split_second",
        "shroud",
        "wither",
        "unblockable",
        "cant_attack",
        "cant_block",
        "cant_attack_alone",
        "cant_block_alone",
        "attacks_each_combat",
        "blocks_each_combat",
        "must_be_blocked",
        "must_be_blocked_by_all",
        "can_block_any_number",
        "enters_as_copy",
        "enters_as_copy_except_color",
        "changeling",
        "cant_be_regenerated",
        "phasing",
        "indestructible",
        "exalted",
        "enters_tapped",
        "replaces_losing",
        "flanking",
        "provoke",
        "cant_be_countered",
        # replacement effects (CR 614, 615; cards/README.md)
        "exile_opponents_graveyard_cards",
        "exile_your_graveyard_cards",
        "shuffle_into_library_instead_of_graveyard",
        "exile_permanents_instead_of_graveyard",
        "other_creatures_exiled_instead_of_graveyard",
        "skip_turn_to_untap",
        "named_card_cant_be_cast",
        "damage_to_you_redirected_to_enchanted",
        "cant_lose_game",
        "prevent_one_to_you_from_opponents",
        "doesnt_untap",
        "cant_activate",
        "reveal_first_draw",
        "draws_return_from_graveyard",
        "life_gain_draws_instead",
        "damage_to_you_exiles_graveyard",
        "double_damage",
        "your_creatures_double_damage",
        "permanents_enter_tapped",
        "opponents_permanents_enter_tapped",
        "skip_draw_step",
        "players_cant_play_lands",
        "lands_cant_enter",
        "attacks_as_though_haste",
        "attacks_as_though_no_defender",
        "cast_nonland_as_though_flash",
        # a mana ability: "{T}: Add to your mana pool one mana of any color that a land an
        # opponent controls could produce" (Exotic Orchard, Fellwar Stone; CR 605.1a, 605.2)
        "mana_of_opponents_lands",
    }
)
# Abilities with a quality parameter.
QUALITY_ABILITIES = frozenset(
    {
        "landwalk",
        "protection",
        "bands_with_other",
        "cant_be_blocked_by",
        "can_block_only",
        "cant_attack_unless_defender_controls",
        "enchant",
        "reduces_cost_of",
        "prevent_one_to_your",
        "enters_tapped_unless_you_control",
        "champion",
    }
)
# Abilities with a number parameter.
NUMBER_ABILITIES = frozenset(
    {
        "can_block_additional",
        "cant_be_blocked_except_by",
        "cant_be_blocked_by_more_than",
        "max_attackers",
        "max_blockers",
        "attack_tax",
        "bushido",
        "rampage",
        "fading",
        "dredge",
        "cant_be_countered_if_x_at_least",
        # Lion's Eye Diamond: "Sacrifice this, Discard your hand: Add N mana of any one color.
        # Activate this ability only any time you could cast an instant" (a mana ability, 605.1a)
        "sacrifice_discard_hand_for_mana",
    }
)


@functools.lru_cache(maxsize=4096)
def slug(text: str) -> str:
    """Lower-case identifier for a name: ``"Craw Wurm"`` -> ``"craw_wurm"``."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _const(text: str) -> str:
    """An ASP constant for a type, subtype, color or keyword word."""
    value = slug(text)
    if not value or not value[0].isalpha():
        value = "x_" + value
    return value


def _asp_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Quality(_Strict):
    """A quality (CR 702.14a): one or more characteristic values an object must all have."""

    color: str | None = None
    type: str | list[str] | None = Field(
        None, description='a card type, or a list of card types it has all of ("artifact creature")'
    )
    subtype: str | None = None
    supertype: str | None = None
    not_supertype: str | None = None
    not_type: str | list[str] | None = Field(
        None, description='a card type it lacks, or a list of them ("noncreature, nonland")'
    )
    not_subtype: str | None = None
    not_color: str | None = None
    ability: str | None = None
    not_ability: str | None = Field(None, description='without this ability ("without flying")')
    name: str | None = None
    everything: bool | None = None
    multicolored: bool | None = None
    colorless: bool | None = None
    player: bool | None = Field(None, description="a player (Enchant player, CR 702.5a)")
    either: list[Quality] | None = Field(
        None,
        min_length=2,
        max_length=2,
        description='one of two qualities ("instant or sorcery", "artifact or enchantment")',
    )

    @model_validator(mode="before")
    @classmethod
    def _from_word(cls, value: Any) -> Any:
        # A bare word is a subtype ("island", "wall"), a color, a card type or "player".
        if isinstance(value, str):
            word = _const(value)
            if word == "player":
                return {"player": True}
            if word in COLORS.values():
                return {"color": word}
            if word in CARD_TYPES:
                return {"type": word}
            if word in SUPERTYPES:
                return {"supertype": word}
            return {"subtype": word}
        return value

    @model_validator(mode="after")
    def _not_empty(self) -> Quality:
        if not self.model_dump(exclude_none=True):
            raise ValueError(
                "a quality needs at least one of color, type, subtype, supertype, not_supertype, "
                "not_type, not_subtype, not_color, ability, name, everything, multicolored, colorless, "
                "player, either"
            )
        if self.color is not None and _const(self.color) not in (*COLORS.values(), "chosen"):
            raise ValueError(f"unknown color {self.color!r}")
        for one in [self.type] if isinstance(self.type, str) else self.type or []:
            if _const(one) not in CARD_TYPES:
                raise ValueError(f"unknown card type {one!r}")
        return self

    def parts(self) -> list[str]:
        """The ASP terms of each part."""
        terms = []
        for key in (
            "color",
            "type",
            "subtype",
            "supertype",
            "not_supertype",
            "not_type",
            "not_subtype",
            "not_color",
            "ability",
            "not_ability",
        ):
            value = getattr(self, key)
            for one in [value] if isinstance(value, str) else value or []:
                terms.append(f"{key}({_const(one)})")
        if self.name is not None:
            terms.append(f"name({_asp_string(self.name)})")
        for flag in ("everything", "multicolored", "colorless", "player"):
            if getattr(self, flag):
                terms.append(flag)
        if self.either is not None:
            terms.append(f"either({self.either[0].term()}, {self.either[1].term()})")
        return terms

    def term(self) -> str:
        """The ASP term: one part, or ``all(A, B)`` nested for several."""
        parts = self.parts()
        term = parts[0]
        for part in parts[1:]:
            term = f"all({term}, {part})"
        return term

    def all_terms(self) -> list[str]:
        """The term and, for a compound quality, its sub-terms (for the mentioned_quality/1 facts)."""
        parts = self.parts()
        terms = list(parts)
        term = parts[0]
        for part in parts[1:]:
            term = f"all({term}, {part})"
            terms.append(term)
        for q in self.either or []:
            terms += q.all_terms()
        return terms


class Ability(_Strict):
    """A keyword or rules marker with its parameter (if any)."""

    keyword: str
    quality: Quality | None = None
    number: int | None = None
    mana: str | None = None
    count: Affects | None = None
    counter: str | None = Field(None, description="max_counters, enters_with_counters: the kind of counter")
    x: bool = Field(False, description="enters_with_counters: X counters (the X paid as it was cast; 0 otherwise)")

    @model_validator(mode="before")
    @classmethod
    def _from_yaml(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"keyword": _const(value)}
        if isinstance(value, dict) and len(value) == 1 and "keyword" not in value:
            ((key, param),) = value.items()
            key = _const(key)
            if key in QUALITY_ABILITIES:
                return {"keyword": key, "quality": param}
            if key in NUMBER_ABILITIES:
                return {"keyword": key, "number": param}
            if key == "mana":
                return {"keyword": key, "mana": param}
            if key in ("cda_pt", "cda_power"):
                return {"keyword": key, "count": param}
            if key == "max_counters":
                if not isinstance(param, dict) or set(param) != {"counter", "number"}:
                    raise ValueError("max_counters needs {counter: <kind>, number: <N>}")
                return {"keyword": key, **param}
            if key == "enters_with_counters":
                if not isinstance(param, dict) or set(param) not in ({"counter", "number"}, {"counter", "x"}):
                    raise ValueError(
                        "enters_with_counters needs {counter: <kind>, number: <N>} or {counter: <kind>, x: true}"
                    )
                return {"keyword": key, **param}
            raise ValueError(f"unknown ability {key!r}")
        return value

    @model_validator(mode="after")
    def _check(self) -> Ability:
        k = self.keyword
        if k in ("cda_pt", "cda_power"):
            if self.count is None:
                raise ValueError(f"{k} needs a filter of the permanents to count")
        elif k in SIMPLE_ABILITIES:
            if self.quality or self.number is not None or self.mana or self.count:
                raise ValueError(f"{k} takes no parameter")
        elif k in QUALITY_ABILITIES:
            if self.quality is None:
                raise ValueError(f"{k} needs a quality")
        elif k in NUMBER_ABILITIES:
            if self.number is None or self.number < 0:
                raise ValueError(f"{k} needs a number of 0 or more")
        elif k == "mana":
            if not self.mana or (self.mana.upper() not in {*COLORS, "C"} and self.mana != "chosen"):
                raise ValueError("mana needs one of W, U, B, R, G, C, or chosen (the color chosen as it entered)")
        elif k == "max_counters":
            if not self.counter or self.number is None or self.number < 0:
                raise ValueError("max_counters needs a counter kind and a number of 0 or more")
        elif k == "enters_with_counters":
            if not self.counter or (self.number is None) == (not self.x) or (self.number or 0) < 0:
                raise ValueError("enters_with_counters needs a counter kind and a number of 0 or more, or x: true")
        else:
            raise ValueError(f"unknown ability {k!r}")
        return self

    def term(self) -> str:
        """The ASP term, e.g. ``landwalk(subtype(island))``."""
        if self.quality is not None:
            return f"{self.keyword}({self.quality.term()})"
        if self.counter is not None:
            return f"{self.keyword}({_asp_string(self.counter)}, {'x' if self.x else self.number})"
        if self.number is not None:
            return f"{self.keyword}({self.number})"
        if self.mana is not None:
            return f"mana({self.mana.lower()})"
        return self.keyword


class Affects(_Strict):
    """Which permanents a static ability affects (or a characteristic-defining ability
    counts): a filter, a controller and "other"."""

    controller: Literal["you", "opponent"] | None = None
    other: bool = False
    quality: Quality | None = None

    @model_validator(mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, dict):
            rest = {k: v for k, v in value.items() if k not in ("controller", "other")}
            out = {k: v for k, v in value.items() if k in ("controller", "other")}
            if rest:
                out["quality"] = rest
            return out
        return value

    def filter_facts(self, prefix: str, key: str) -> list[str]:
        """``<prefix>_filter(key, Q)``, ``<prefix>_controller(key, you)``, ``<prefix>_other(key)``."""
        out = [f"{prefix}_filter({key}, {part})." for part in (self.quality.parts() if self.quality else [])]
        if self.controller:
            out.append(f"{prefix}_controller({key}, {self.controller}).")
        if self.other:
            out.append(f"{prefix}_other({key}).")
        return out


class TextChange(_Strict):
    """Replace one color word, basic land type or creature type by another in an object's text
    (CR 612.2)."""

    # written "from" in files; a state copied in Python (model_dump) carries "from_"
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    from_: str = Field(alias="from")
    to: str

    @model_validator(mode="after")
    def _words(self) -> TextChange:
        def kind(word: str) -> str:
            if _const(word) in COLORS.values():
                return "color word"
            if _const(word) in BASIC_LAND_MANA:
                return "basic land type"
            if not re.fullmatch(r"[a-z][a-z0-9_]*", _const(word)):
                raise ValueError(f"{word!r} is neither a color word, a basic land type nor a creature type")
            return "creature type"

        kinds = {kind(w) for w in (self.from_, self.to)}
        if len(kinds) != 1:
            raise ValueError(
                "a color word is replaced by a color word, a land type by a land type, a creature type by another"
            )
        return self


_TYPE_LIST = list[
    Literal["artifact", "creature", "enchantment", "instant", "land", "planeswalker", "sorcery", "tribal"]
]
_COLOR_LIST = list[Literal["white", "blue", "black", "red", "green", "chosen"]]


class _EffectParts(_Strict):
    # layer 1 (CR 613.1a, 706)
    copy_of: str | None = Field(None, description="the objects become copies of this object (layer 1)")
    # layer 2 (CR 613.1b)
    gain_control: bool = Field(False, description="the effect's controller gains control of the objects (layer 2)")
    # layer 3 (CR 613.1c, 612)
    text_change: TextChange | None = Field(
        None, description="a color word, basic land type or creature type replaced (layer 3)"
    )
    # layer 4 (CR 613.1d, 305.7)
    add_types: _TYPE_LIST = Field(default_factory=list, description="card types added (layer 4)")
    remove_types: _TYPE_LIST = Field(default_factory=list, description="card types removed (layer 4)")
    add_subtypes: list[str] = Field(default_factory=list, description="subtypes added (layer 4)")
    set_creature_types: list[str] | None = Field(
        None,
        description="creature types replaced by these (layer 4); `chosen`: the type chosen as the permanent entered",
    )
    set_land_types: list[str] | None = Field(
        None, description="land types replaced by these; rules-text abilities lost (layer 4, CR 305.7)"
    )
    add_supertypes: list[Literal["basic", "legendary", "snow", "world"]] = Field(default_factory=list)
    remove_supertypes: list[Literal["basic", "legendary", "snow", "world"]] = Field(default_factory=list)
    # layer 5 (CR 613.1e)
    set_colors: _COLOR_LIST | None = Field(
        None,
        description="colors replaced by these; [] is colorless; `chosen`: "
        "the color chosen as the permanent entered (layer 5)",
    )
    add_colors: _COLOR_LIST = Field(default_factory=list, description="colors added (layer 5)")
    # layer 6 (CR 613.1f)
    grant: list[Ability] = Field(default_factory=list, description="abilities the objects gain (layer 6)")
    impose: list[Ability] = Field(
        default_factory=list, description="rules that apply to the objects without being abilities (Lure)"
    )
    remove: list[Ability] = Field(default_factory=list, description="abilities the objects lose (layer 6)")
    remove_all: bool = Field(False, description="the objects lose all abilities (layer 6)")
    # layer 7 (CR 613.3)
    set_pt: tuple[int, int] | None = Field(None, description="power and toughness become N/M (layer 7b)")
    set_pt_to_mana_value: bool = Field(
        False, description="power and toughness each become the object's converted mana cost (layer 7b)"
    )
    modify_pt: tuple[int | Literal["x"], int | Literal["x"]] | None = Field(
        None,
        description="+N/+M (layer 7c); `x` in an instant's or sorcery's effect: its X, or the count its "
        "`effect` step makes, fixed as it resolves (CR 611.2d)",
    )
    for_each: Affects | None = Field(
        None,
        description='modify_pt for each permanent matching this ("+1/+1 for '
        "each Plains you control\"; `you`: the effect's controller; `other`: not the "
        "affected object); static abilities only",
    )
    switch_pt: bool = Field(False, description="power and toughness switched (layer 7e)")
    # rules effects on players (CR 613.10, 402.2)
    set_max_hand_size: int | Literal["none"] | None = Field(
        None, description='the players\' maximum hand size becomes N ("none": no maximum)'
    )
    modify_max_hand_size: int | None = Field(None, description="the players' maximum hand size changes by N")

    def effect_facts(self, key: str) -> list[str]:
        """Facts ``does(Key, What)``: each thing the effect does, in the vocabulary of
        characteristics/effects.lp."""
        what = []
        if self.copy_of is not None:
            what.append(f"copies({_asp_string(self.copy_of)})")
        if self.gain_control:
            what.append("gains_control")
        if self.text_change is not None:
            what.append(f"text({_const(self.text_change.from_)}, {_const(self.text_change.to)})")
        changes: list[tuple[str, str, str]] = [("add", "type", t) for t in self.add_types]
        changes += [("remove", "type", t) for t in self.remove_types]
        changes += [("add", "subtype", _const(t)) for t in self.add_subtypes]
        changes += [("set", "creature_type", _const(t)) for t in self.set_creature_types or []]
        changes += [("set", "land_type", _const(t)) for t in self.set_land_types or []]
        changes += [("add", "supertype", t) for t in self.add_supertypes]
        changes += [("remove", "supertype", t) for t in self.remove_supertypes]
        changes += [("set", "color", c) for c in self.set_colors or []]
        changes += [("add", "color", c) for c in self.add_colors]
        if self.set_creature_types == []:
            changes.append(("set", "creature_type", "none"))
        if self.set_colors == []:
            changes.append(("set", "color", "none"))
        what += [f"change({op}, {kind}, {value})" for op, kind, value in changes]
        what += [f"grant({a.term()})" for a in self.grant]
        what += [f"impose({a.term()})" for a in self.impose]
        what += [f"remove({a.term()})" for a in self.remove]
        if self.remove_all:
            what.append("remove_all")
        if self.set_pt is not None:
            what.append(f"set_pt({self.set_pt[0]}, {self.set_pt[1]})")
        if self.set_pt_to_mana_value:
            what.append("set_pt_to_mana_value")
        if self.modify_pt is not None and self.for_each is None:
            what.append(f"modify_pt({self.modify_pt[0]}, {self.modify_pt[1]})")
        if self.modify_pt is not None and self.for_each is not None:
            what.append(f"modify_pt_each({self.modify_pt[0]}, {self.modify_pt[1]})")
            for part in self.for_each.quality.parts() if self.for_each.quality else []:
                what.append(f"each_filter({part})")
            if self.for_each.controller:
                what.append(f"each_controller({self.for_each.controller})")
            if self.for_each.other:
                what.append("each_other")
        if self.switch_pt:
            what.append("switch_pt")
        if self.set_max_hand_size is not None:
            what.append(f"set_max_hand_size({self.set_max_hand_size})")
        if self.modify_max_hand_size is not None:
            what.append(f"modify_max_hand_size({self.modify_max_hand_size})")
        return [f"does({key}, {w})." for w in what]

    def qualities(self) -> list[str]:
        """The quality terms its "for each" filter uses."""
        return self.for_each.quality.all_terms() if self.for_each and self.for_each.quality else []

    def abilities(self) -> list[Ability]:
        """Every ability the effect mentions."""
        return [*self.grant, *self.impose, *self.remove]

    def is_empty(self) -> bool:
        """True when the effect changes nothing."""
        return not self.effect_facts("x")


class StaticAbility(_EffectParts):
    """A static ability that generates a continuous effect (CR 604.1, 611.3)."""

    affects: Literal["self", "enchanted", "equipped", "you", "opponents", "players"] | Affects


class EffectSpec(_EffectParts):
    """The continuous effect a resolved spell or ability creates on its targets (CR 611.2)."""

    duration: Literal["end_of_turn", "permanent", "while_source_on_battlefield"] = "end_of_turn"


# ---------------------------------------------------------------------- spells and abilities
TARGET_KINDS = ("permanent", "player", "creature_or_player", "spell")
# who or what a step of a resolving spell or ability acts on (CR 608.2c)
REFERENCES = (
    "target",
    "target2",
    "target3",
    "you",
    "each_creature",
    "each_permanent",
    "each_player",
    "each_opponent",
    "each_other_creature",
    "self",
    "controller_of_target",
    "each_creature_that_attacked",
    "each_creature_you_control",
    "that_creature",
    "controller_of_that",
    "controller_of_enchanted",
    "each_other_creature_sharing_a_color",
    "active_player",
    "that_player",
    "each_attacking_creature",
    "each_creature_target_controls",
    "each_target",
    "exiled_with_this",
    "put_with_this",
)


# the yes-or-no words of a target's entry, each given as a fact target_<word>/2 when true
_TARGET_YES_NO = (
    "attacking",
    "blocking",
    "attacking_or_blocking",
    "tapped",
    "other",
    "up_to",
    "same_word",
    "opponent_chooses",
)
# what a target's entry may say besides its quality (the other keys are the quality's words)
_TARGET_FLAGS = ("controller", *_TARGET_YES_NO)


class TargetSpec(_Strict):
    """One target of a spell or ability (CR 113, 601.2c): a word (``creature``, ``player``,
    ``creature_or_player``, ``spell``, ``permanent``, ``artifact``, ``land``...) or a mapping
    of ``kind``, a ``quality`` the target must have, its ``controller`` and ``attacking``."""

    kind: Literal["permanent", "player", "creature_or_player", "spell", "card_in_graveyard"] = "permanent"
    quality: Quality | None = None
    controller: Literal["you", "opponent"] | None = None
    attacking: bool | None = None
    blocking: bool | None = None
    attacking_or_blocking: bool | None = Field(None, description='"target attacking or blocking creature"')
    tapped: bool | None = Field(None, description='"target tapped creature"')
    other: bool | None = Field(None, description='"another target ...": not the source of the ability')
    up_to: bool = Field(False, description='"up to N targets": this target may be left out (only the last ones)')
    same_word: bool = Field(
        False,
        description='shares the word "target" with the previous target ("two target '
        'lands"): a different object or player (CR 601.2c, 113.3)',
    )
    opponent_chooses: bool = Field(
        False,
        description='"target ... of an opponent\'s choice": an opponent of the controller chooses this '
        "target, when the controller would (CR 601.3, 602.3)",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_word(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = _const(value)
            if word in TARGET_KINDS:
                return {"kind": word}
            if word == "opponent":
                return {"kind": "player", "controller": "opponent"}
            return {"kind": "permanent", "quality": word}
        if isinstance(value, dict) and "quality" not in value and set(value) - {"kind", *_TARGET_FLAGS}:
            rest = {k: v for k, v in value.items() if k not in (*_TARGET_FLAGS, "spell", "kind")}
            out = {k: v for k, v in value.items() if k in _TARGET_FLAGS}
            if value.get("spell"):
                out["kind"] = "spell"
            if rest:
                out["quality"] = rest
            return out
        return value

    def facts(self, key: str, index: int) -> list[str]:
        out = [f"card_target_kind({key}, {index}, {self.kind})."]
        if self.quality is not None:
            out += [f"card_target_filter({key}, {index}, {part})." for part in self.quality.parts()]
        if self.controller is not None:
            out.append(f"card_target_controller({key}, {index}, {self.controller}).")
        for flag in _TARGET_YES_NO:
            if getattr(self, flag):
                out.append(f"target_{flag}({key}, {index}).")
        return out


# The steps whose verb takes a quality, with the reference that follows it (the field and its
# default), or None.
QUALITY_STEPS: dict[str, tuple[str, str] | None] = {
    "sacrifice_one": ("who", "you"),
    "discard_chosen": ("who", "target"),
    "prevent_next_from": ("to", "you"),
    "reveal_top": None,
    "put_from_hand": None,
    "draw_and_discard_if": ("who", "you"),
}

DELAYED_EVENTS = ("leaves_battlefield", "becomes_untapped", "leaves_battlefield_or_becomes_untapped")


class DelayedTrigger(_Strict):
    """A delayed triggered ability a resolving object creates (CR 603.7): when it triggers and
    what it does; ``that_creature`` in its steps names the object the ability that created it
    was about (for an ability with targets and no trigger event, its first target).  It
    triggers at a moment (``at``: the end of combat, the next end step) or the next time an
    object leaves the battlefield or becomes untapped (``at`` one of those events, ``watch``
    the object: the source of the ability that created it, or that creature)."""

    at: Literal[
        "end_of_combat",
        "next_end_step",
        "leaves_battlefield",
        "becomes_untapped",
        "leaves_battlefield_or_becomes_untapped",
    ]
    watch: Literal["source", "that_creature"] = "source"
    resolve: list[ResolveStep] = Field(min_length=1)


class ResolveStep(_Strict):
    """One thing a resolving spell or ability does (CR 608.2c), by one verb."""

    deal_damage: int | Literal["x", "count", "sacrificed_power"] | None = Field(
        None,
        description="an amount: a number, x, count, or sacrificed_power (the power of the creature "
        "an earlier step of it sacrificed, as it last existed on the battlefield)",
    )
    deals_its_power: str | None = Field(
        None,
        description="this creature (a reference) deals damage equal to its power to `to` "
        "(it is the source of the damage, CR 118.2)",
    )
    destroy: str | None = None
    exile: str | None = None
    return_to_hand: str | None = None
    put_on_top: str | None = None
    put_on_bottom: str | None = None
    tap: str | None = None
    untap: str | None = None
    freeze: str | None = Field(None, description="it doesn't untap during its controller's next untap step")
    counter: str | None = None
    regenerate: str | None = None
    sacrifice: str | None = None
    draw: int | Literal["x", "count"] | None = None
    discard: int | None = None
    discard_chosen: Quality | None = Field(
        None,
        description="the player (`who`) reveals his or her hand and "
        "discards a card with this quality that the spell's controller "
        "chooses (the bridge's default: the smallest id)",
    )
    discard_at_random: int | Literal["x"] | None = Field(
        None,
        description="the player (`who`) discards N cards at "
        "random (a fixed pseudo-random choice drawn from the "
        "position, so logs replay)",
    )
    gain_life: int | Literal["x", "count"] | None = None
    poison: int | None = Field(None, ge=1, description="the player (`who`) gets N poison counters (CR 104.3d)")
    add_step: Literal["upkeep", "draw", "end"] | None = Field(
        None, description="an additional step of this kind directly after this step (CR 500.9)"
    )
    lose_life: int | Literal["x", "count"] | None = None
    prevent_next: int | Literal["x"] | None = None
    reveal_top: Quality | None = Field(
        None,
        description="the controller reveals the top card of his or her library: "
        "with this quality it is put onto the battlefield, otherwise it may be put "
        "on the bottom of the library (declined with choose_order: declines)",
    )
    cant_cast_spells: str | None = Field(None, description="these players can't cast spells this turn (CR 101.2)")
    draw_and_discard_if: Quality | None = Field(
        None,
        description='"draw a card and reveal it; if it is <quality>, discard it": the player (`who`) draws a '
        "card and discards it if it has this quality; not a card a replacement of the draw put in the hand "
        "(CR 614.11b)",
    )
    creatures_enter_under: str | None = Field(
        None,
        description="this turn, a creature that would enter the battlefield under an opponent of this player's "
        "control enters under his or hers instead (CR 614.1, 616.1b)",
    )
    put_from_hand: Quality | None = Field(
        None,
        description="the controller puts a card with this quality from "
        "his or her hand onto the battlefield (his or her choice; the bridge's "
        "default: the one with the smallest id)",
    )
    attach: str | None = Field(None, description="the source (an Equipment) becomes attached to it (CR 701.3)")
    tapped_and_attacking: bool = Field(
        False, description="put_from_hand: the card enters the battlefield tapped and attacking (CR 508.5)"
    )
    highest_mana_value: bool = Field(
        False,
        description="sacrifice_one: the permanent with the highest converted mana cost among those "
        "with the quality; of several tied for it, the player chooses one (Tariff)",
    )
    mill: int | Literal["half"] | None = Field(
        None,
        description="the player (`who`) puts the top N cards of his "
        "or her library into his or her graveyard (`half`: half the library, "
        "rounded down)",
    )
    prevent_next_from: Quality | None = Field(
        None,
        description="the next time a source with this quality of the "
        "controller's choice would deal damage to `to` this turn, that "
        "damage is prevented (CR 615.8); the choice is stated with "
        "choose_order: sources, else the bridge's default: the topmost such "
        "object on the stack, else the such permanent with the smallest id",
    )
    put_counters: dict[str, int] | None = None
    add_mana: str | None = Field(
        None,
        pattern=r"^((\{[WUBRGC]\})+|produced)$",
        description='the player (`who`) adds this mana to his or her mana pool ("{B}{B}{B}"): '
        "as the spell or ability resolves, never as a mana ability (CR 605.5); `produced`: "
        "one mana of the type the land tapped for mana made (a triggered mana ability, CR 605.1b)",
    )
    create_tokens: dict[str, Any] | None = Field(
        None, description="{card: <token card name>, count: N, blocking: target} (CR 110.5, 509.7)"
    )
    effect: str | None = Field(None, description="the card's continuous `effect` applies to these objects")
    extra_turn: str | None = Field(None, description="this player takes an extra turn after this one (CR 500.7)")
    lose_game: str | None = Field(None, description="this player loses the game (CR 104.3e)")
    return_to_battlefield: str | None = Field(
        None,
        description="a card in a graveyard (a `card_in_graveyard` "
        "target) is put onto the battlefield under its owner's control",
    )
    under: Literal["owner", "you"] = Field(
        "owner",
        description="return_to_battlefield: under its owner's "
        "control, or under the control of the spell's or "
        'ability\'s controller ("under your control")',
    )
    return_card_to_hand: str | None = Field(None, description="a card in a graveyard is returned to its owner's hand")
    win_game: str | None = Field(None, description="this player wins the game: each opponent loses (CR 104.2a)")
    skip_turns: int | None = Field(
        None, ge=1, description="the player (`who`) skips his or her next N turns (CR 614.10)"
    )
    search: Quality | None = Field(
        None, description="search the library for a card with this quality (CR 701.14a), then shuffle"
    )
    put: Literal["hand", "battlefield", "battlefield_tapped"] = Field("hand", description="search: where the card goes")
    shuffle: str | None = Field(None, description="this player shuffles his or her library")
    copy_spell: str | None = Field(None, description="copy this spell; the copy keeps its targets (CR 706.9)")
    exile_same_name: str | None = Field(
        None,
        description="exile it, and search its controller's graveyard, hand "
        "and library for cards with its name and exile them "
        "(Splinter; hidden zones: all are found by default)",
    )
    sacrifice_one: Quality | None = Field(
        None,
        description="the player (`who`) sacrifices a permanent with this quality of his or her choice (CR 701.13a)",
    )
    additional_combat: bool | None = Field(
        None, description="an additional combat phase and main phase after this main phase (CR 500.8)"
    )
    prevent_all_damage_to: str | None = Field(
        None,
        description="prevent all damage that would be dealt this turn to this player and creatures he or she controls",
    )
    prevent_all_combat_damage: bool | None = Field(
        None, description="prevent all combat damage that would be dealt this turn (CR 615)"
    )
    block_cost: int | Literal["x"] | None = Field(
        None,
        description="this turn, creatures can't block unless their controller pays this much "
        "generic mana for each blocking creature he or she controls (War Cadence, CR 509.1d)",
    )
    delayed: DelayedTrigger | None = Field(None, description="create a delayed triggered ability (CR 603.7)")
    to: str | None = Field(
        None, description="deal_damage, deals_its_power, prevent_next: to whom; put_counters: on what (a reference)"
    )
    who: str | None = Field(None, description="draw, discard, gain_life, lose_life, add_mana: which player(s)")
    cant_be_regenerated: bool = Field(False, description="destroy: they can't be regenerated (CR 701.11)")
    cant_be_prevented_if_x_at_least: int | None = Field(
        None,
        ge=0,
        description='deal_damage: "the damage can\'t be prevented" when X is at least this (0: always; CR 615.11)',
    )
    unless_pays: str | None = Field(
        None,
        pattern=r"^(\{[0-9WUBRGC]+\})+$",
        description='"... unless <its controller> pays {3}": the step is done only if that player '
        "(the target's controller) declines to pay as it resolves (CR 608.2f)",
    )
    gain_prevented: bool = Field(
        False,
        description='prevent_next_from: "you gain life equal to the damage prevented this way", right after the '
        "prevention (CR 615.5)",
    )
    divided: bool = Field(
        False,
        description='deal_damage to each_target: the amount is "divided as you choose" among the '
        "targets, announced as the spell is cast (CR 601.2d)",
    )
    if_kicked: bool = Field(False, description="only if the spell was kicked (CR 702.30c)")
    unless_kicked: bool = Field(
        False,
        description="only if the spell wasn't kicked: with an `if_kicked` step, "
        '"if kicked, ... instead" (a self-replacement effect, CR 614.14)',
    )
    may: bool = Field(
        False,
        description='"you may": its controller chooses as it resolves (CR 603.5, 608.2d); '
        "done unless the player declined it (choose_order: declines)",
    )
    count: Affects | None = Field(
        None,
        description="an amount `count` (or a create_tokens count): the number "
        'of permanents matching this as the step happens ("for each Forest you '
        'control", "equal to the number of Mountains you control")',
    )
    where: Quality | None = Field(None, description='only those of "each" with this quality ("each black creature")')
    whose: Literal["you", "opponent"] | None = Field(
        None, description='only those of "each" controlled by you or an opponent (players: themselves)'
    )

    _VERBS = (
        "deal_damage",
        "deals_its_power",
        "destroy",
        "exile",
        "return_to_hand",
        "put_on_top",
        "put_on_bottom",
        "tap",
        "untap",
        "freeze",
        "counter",
        "regenerate",
        "sacrifice",
        "draw",
        "discard",
        "gain_life",
        "lose_life",
        "prevent_next",
        "put_counters",
        "create_tokens",
        "effect",
        "extra_turn",
        "additional_combat",
        "search",
        "shuffle",
        "copy_spell",
        "sacrifice_one",
        "exile_same_name",
        "prevent_all_combat_damage",
        "delayed",
        "lose_game",
        "win_game",
        "return_to_battlefield",
        "return_card_to_hand",
        "skip_turns",
        "prevent_all_damage_to",
        "discard_at_random",
        "discard_chosen",
        "prevent_next_from",
        "mill",
        "attach",
        "put_from_hand",
        "cant_cast_spells",
        "creatures_enter_under",
        "reveal_top",
        "add_mana",
        "block_cost",
        "poison",
        "add_step",
        "draw_and_discard_if",
    )

    @model_validator(mode="after")
    def _one_verb(self) -> ResolveStep:
        verbs = [v for v in self._VERBS if getattr(self, v) is not None]
        if len(verbs) != 1:
            raise ValueError(
                f"a step does exactly one thing ({', '.join(self._VERBS)}); this one has {verbs or 'none'}"
            )
        for ref in (
            self.to,
            self.who,
            *(
                getattr(self, v)
                for v in self._VERBS
                if isinstance(getattr(self, v), str)
                and v
                not in ("deal_damage", "draw", "gain_life", "lose_life", "prevent_next", "mill", "add_mana", "add_step")
            ),
        ):
            if isinstance(ref, str) and ref not in REFERENCES and ref != "x":
                raise ValueError(f"unknown reference {ref!r}; known: {', '.join(REFERENCES)}")
        if self.tapped_and_attacking and self.put_from_hand is None:
            raise ValueError("tapped_and_attacking goes with put_from_hand")
        if self.highest_mana_value and self.sacrifice_one is None:
            raise ValueError("highest_mana_value goes with sacrifice_one")
        if self.create_tokens is not None and not isinstance(self.create_tokens.get("card"), str):
            raise ValueError("create_tokens needs {card: <token card name>, count: N}")
        if self.divided and (self.deal_damage is None or self.to != "each_target"):
            raise ValueError("divided: only deal_damage to each_target is divided among the targets")
        if self.count is not None and self.count.other:
            raise ValueError("a step's count has a quality and a controller; `other` is not in its vocabulary")
        if self.create_tokens is not None:
            n = self.create_tokens.get("count", 1)
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_INTEGER:
                raise ValueError(f"create_tokens: count is a whole number from 0 to {MAX_INTEGER:,}")
            blocking = self.create_tokens.get("blocking")
            if blocking is not None and (not isinstance(blocking, str) or blocking not in REFERENCES):
                raise ValueError(f"create_tokens: blocking is a reference; known: {', '.join(REFERENCES)}")
        return self

    @property
    def verb(self) -> str:
        return next(v for v in self._VERBS if getattr(self, v) is not None)

    def facts(self, key: str, index: int | str) -> list[str]:
        out = self._facts(key, index)
        if self.if_kicked:
            out.append(f"step_if_kicked({key}, {index}).")
        if self.unless_kicked:
            out.append(f"step_unless_kicked({key}, {index}).")
        if self.may:
            out.append(f"step_may({key}, {index}).")
        if self.divided:
            out.append(f"step_divided({key}, {index}).")
        if self.gain_prevented:
            out.append(f"step_gain_prevented({key}, {index}).")
        if self.unless_pays is not None:
            out.append(f"step_unless_pays({key}, {index}).")
            out += [
                f"cost_part(unless({key}, {index}), {k}, {n})."
                for k, n in sorted(mana_symbols(self.unless_pays).items())
            ]
        if self.cant_be_prevented_if_x_at_least is not None:
            out.append(f"step_cant_be_prevented({key}, {index}, {self.cant_be_prevented_if_x_at_least}).")
        if self.under == "you":
            out.append(f"step_under_you({key}, {index}).")
        if self.tapped_and_attacking:
            out.append(f"step_attacking({key}, {index}).")
        if self.highest_mana_value:
            out.append(f"step_highest_mana_value({key}, {index}).")
        out += [f"step_filter({key}, {index}, {part})." for part in (self.where.parts() if self.where else [])]
        if self.count is not None:
            out.append(f"step_counts({key}, {index}).")
            out += self.count.filter_facts("step_count", f"ct({key}, {index})")
        if self.whose is not None:
            out.append(f"step_whose({key}, {index}, {self.whose}).")
        return out

    def _facts(self, key: str, index: int | str) -> list[str]:
        verb = self.verb
        value = getattr(self, verb)
        if verb == "add_step":
            return [f"step_does({key}, {index}, add_step({value}))."]
        if verb == "block_cost":
            return [f"step_does({key}, {index}, block_cost({value}))."]
        if verb in ("additional_combat", "prevent_all_combat_damage"):
            return [f"step_does({key}, {index}, {verb})."]
        if verb == "delayed":
            at = f"when({value.at}, {value.watch})" if value.at in DELAYED_EVENTS else value.at
            out = [f"step_does({key}, {index}, delayed({at}))."]
            for j, inner in enumerate(value.resolve, start=1):
                out += inner.facts(f"dl({key}, {index})", j)
            return out
        if verb == "search":
            return [f"step_does({key}, {index}, search({value.term()}, {self.put}, {self.who or 'you'}))."]
        if verb in QUALITY_STEPS:
            ref = QUALITY_STEPS[verb]
            then = f", {getattr(self, ref[0]) or ref[1]}" if ref is not None else ""
            return [f"step_does({key}, {index}, {verb}({value.term()}{then}))."]
        if verb == "mill":
            return [f"step_does({key}, {index}, mill({value}, {self.who or 'target'}))."]
        if verb == "add_mana" and value == "produced":
            return [f"step_does({key}, {index}, add_mana(produced, 1, {self.who or 'you'}))."]
        if verb == "add_mana":
            symbols = re.findall(r"\{(\w)\}", value)
            return [
                f"step_does({key}, {index}, add_mana({color.lower()}, {symbols.count(color)}, {self.who or 'you'}))."
                for color in sorted(set(symbols))
            ]

        def amount(v: object) -> str:  # x and count as they are, a number as its digits
            return str(v)

        if verb in ("deal_damage", "prevent_next"):
            return [f"step_does({key}, {index}, {verb}({amount(value)}, {self.to or 'target'}))."]
        if verb == "deals_its_power":
            return [f"step_does({key}, {index}, deals_its_power({value}, {self.to or 'target'}))."]
        if verb in ("draw", "discard", "gain_life", "lose_life", "skip_turns", "discard_at_random", "poison"):
            return [f"step_does({key}, {index}, {verb}({amount(value)}, {self.who or 'you'}))."]
        if verb == "put_counters":
            return [
                f"step_does({key}, {index}, put_counters({_asp_string(k)}, {n}, {self.to or 'target'}))."
                for k, n in sorted(value.items())
            ]
        if verb == "create_tokens":
            n = "count" if self.count is not None else int(value.get("count", 1))
            out = [
                f"step_does({key}, {index}, create_tokens({_asp_string(slug(value['card']))}, "
                f"{n}, {self.who or 'you'}))."
            ]
            if value.get("blocking"):
                out.append(f"step_tokens_block({key}, {index}, {value['blocking']}).")
            return out
        if verb == "destroy" and self.cant_be_regenerated:
            return [f"step_does({key}, {index}, destroy_no_regeneration({value}))."]
        return [f"step_does({key}, {index}, {verb}({value}))."]


# the trigger events a card's triggered ability may name (card files, `when`)
TriggerEvent = Literal[
    "enters_battlefield",
    "dies",
    "is_put_into_graveyard",
    "leaves_battlefield",
    "attacks",
    "blocks",
    "becomes_blocked",
    "deals_combat_damage_to_player",
    "you_gain_life",
    "landfall",
    "you_cast",
    "blocks_a_creature",
    "beginning_of_upkeep",
    "beginning_of_draw_step",
    "beginning_of_end_step",
    "put_into_graveyard_from_battlefield",
    "becomes_tapped",
    "state",
    "another_enters_battlefield",
    "is_dealt_damage",
    "deals_damage",
    "a_player_casts",
    "an_opponent_casts",
    "an_opponent_draws",
    "becomes_blocked_by_a_creature",
    "becomes_the_target",
    "deals_damage_to_an_opponent",
    "you_reveal_this_way",
    "an_opponent_discards",
    "beginning_of_combat",
    "beginning_of_precombat_main",
    "attacks_and_isnt_blocked",
    "a_player_taps_a_land_for_mana",
]
TRIGGER_EVENTS: tuple[str, ...] = get_args(TriggerEvent)


class Condition(_Strict):
    """A condition on the game state (about the ability's controller, "you"): an intervening
    "if" clause (CR 603.4) or the state of a state trigger (603.8)."""

    life_at_least: int | None = Field(None, description="you have N or more life")
    hand_empty: bool | None = Field(None, description="you have no cards in hand")
    no_other_creatures: bool | None = Field(None, description="you control no creatures other than the source")
    untapped: bool | None = Field(None, description="the source is untapped")
    creatures_at_least: int | None = Field(None, ge=1, description="you control N or more creatures")

    @model_validator(mode="after")
    def _one(self) -> Condition:
        given = [k for k, v in self.model_dump().items() if v is not None]
        if len(given) != 1:
            raise ValueError(
                f"a condition says exactly one thing (life_at_least, hand_empty, no_other_creatures, "
                f"untapped, creatures_at_least); this one has {given or 'none'}"
            )
        return self

    def term(self) -> str:
        if self.life_at_least is not None:
            return f"life_at_least({self.life_at_least})"
        if self.untapped:
            return "untapped"
        if self.creatures_at_least is not None:
            return f"creatures_at_least({self.creatures_at_least})"
        return "hand_empty" if self.hand_empty else "no_other_creatures"


class TriggeredAbility(_Strict):
    """A triggered ability (CR 603): its trigger event on the object itself or a step of its
    controller's turn (``each: true`` for every player's), its targets and what it does."""

    when: TriggerEvent
    each: bool = Field(False, description="the step of every player's turn, not only its controller's")
    first_each_turn: bool = Field(
        False, description='"first upkeep each turn": not in a step of that kind an effect added (CR 500.9)'
    )
    spell: Quality | None = Field(
        None, description="you_cast, a_player_casts, an_opponent_casts: only spells with this quality"
    )
    object: Quality | None = Field(
        None,
        description="put_into_graveyard_from_battlefield, "
        "another_enters_battlefield: only a permanent with this quality "
        "(for the first, looked at as it last existed, 603.6d); "
        "you_reveal_this_way: only a card with this quality",
    )
    whose: Literal["you", "any"] = Field(
        "any",
        description="put_into_graveyard_from_battlefield: only into your "
        "graveyard (a card you own); another_enters_battlefield: "
        "only under your control",
    )
    of: Literal["self", "enchanted", "put_with_this"] = Field(
        "self",
        description="beginning_of_upkeep (and the other steps): "
        "`enchanted` for the turn of the enchanted creature's controller; "
        "becomes_tapped, deals_damage, leaves_battlefield: the source itself or the permanent "
        "it enchants; leaves_battlefield: `put_with_this`, a permanent another ability of the source "
        "put onto the battlefield (linked abilities, CR 607.2c)",
    )
    at_least: int | None = Field(
        None,
        ge=2,
        description="blocks, becomes_blocked: only when it blocks, or is blocked by, N or more creatures as "
        'blockers are declared ("blocks two or more creatures", CR 509.4e)',
    )
    if_: Condition | None = Field(
        None,
        alias="if",
        description='an intervening "if" clause, checked as the '
        "event happens and again on resolution (CR 603.4); for `state`, the state "
        "(CR 603.8)",
    )
    targets: list[TargetSpec] = Field(default_factory=list)
    resolve: list[ResolveStep] = Field(default_factory=list)
    effect: EffectSpec | None = None
    modes: list[Mode] = Field(
        default_factory=list,
        description='a modal triggered ability\'s modes ("choose one —"), one chosen as it is put on '
        "the stack (CR 603.3c); then the ability has no targets or steps of its own",
    )

    @model_validator(mode="after")
    def _modes_alone(self) -> TriggeredAbility:
        if self.of == "put_with_this" and self.when != "leaves_battlefield":
            raise ValueError("`of: put_with_this` goes with `when: leaves_battlefield` only")
        if self.at_least is not None and self.when not in ("blocks", "becomes_blocked"):
            raise ValueError("`at_least` goes with `when: blocks` or `when: becomes_blocked` only")
        if self.modes and (self.targets or self.resolve or self.effect is not None):
            raise ValueError("a modal triggered ability has its targets and steps in its modes only")
        if len(self.modes) == 1:
            raise ValueError("a modal triggered ability has two or more modes")
        return self


DelayedTrigger.model_rebuild()


def _cost_numbers(value: str | None) -> str | None:
    """A mana cost whose generic amounts are within the limit on numbers."""
    for digits in re.findall(r"\d+", value or ""):
        if len(digits) > 7 or int(digits) > MAX_INTEGER:
            raise ValueError(
                f"the number {shorten(digits, 40)} in a mana cost is larger than the limit of {MAX_INTEGER:,}"
            )
    return value


class Mode(_Strict):
    """One mode of a modal spell or triggered ability ("Choose one —", CR 700.2): its targets
    and what it does."""

    targets: list[TargetSpec] = Field(default_factory=list)
    resolve: list[ResolveStep] = Field(default_factory=list)
    effect: EffectSpec | None = None


TriggeredAbility.model_rebuild()


class Splice(_Strict):
    """Splice onto <subtype> <cost> (CR 702.44): revealed from the hand as a spell with the
    subtype is cast, the card's text is copied onto it for an additional cost."""

    onto: str = Field(description="the subtype of the spells it may be spliced onto (arcane)")
    cost: str = Field(pattern=r"^(\{[0-9WUBRGXCS/]+\})*$", description="the splice cost")

    _cost_numbers = field_validator("cost")(_cost_numbers)


class ActivatedAbility(_Strict):
    """An activated ability other than a mana ability (CR 602): its cost, timing, targets and
    what it does; a planeswalker's loyalty ability gives ``loyalty`` (CR 606)."""

    cost: str = Field("", pattern=r"^(\{[0-9WUBRGXCS/]+\})*$", description="mana cost of activation")
    tap: bool = Field(False, description="{T} is part of the cost (CR 302.6 for creatures)")
    sacrifice_self: bool = False

    _cost_numbers = field_validator("cost")(_cost_numbers)
    sacrifice_cost: Quality | None = Field(
        None, description='"Sacrifice a <quality>" in the cost (the activation names it: `sacrifice: [id]`)'
    )
    pay_life: int = Field(0, ge=0)
    discard_cost: int = Field(0, ge=0, description="discard this many cards as a cost (the last ones by default)")
    exiled_card_cost: bool = Field(
        False,
        description='"Put a card exiled with <this> into its owner\'s graveyard" in the cost: a card its linked '
        "replacement effect exiled (CR 607.2b; by default the one with the smallest id)",
    )
    loyalty: int | None = Field(None, description="a loyalty ability: +N or -N loyalty counters (CR 606)")
    sorcery_speed: bool = Field(False, description="activate only as a sorcery (CR 602.5d)")
    once_each_turn: bool = Field(False, description="activate only once each turn (CR 602.5b)")
    before_attackers: bool = Field(
        False, description="activate only during your turn, before attackers are declared (CR 602.5b)"
    )
    targets: list[TargetSpec] = Field(default_factory=list)
    resolve: list[ResolveStep] = Field(default_factory=list)
    effect: EffectSpec | None = None


_QUALITY_SCHEMA: dict[str, Any] = {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/Quality"}]}
ABILITY_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"enum": sorted(SIMPLE_ABILITIES)},
        {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": False,
            "properties": {
                **{k: _QUALITY_SCHEMA for k in sorted(QUALITY_ABILITIES)},
                **{k: {"type": "integer", "minimum": 0} for k in sorted(NUMBER_ABILITIES)},
                "cda_pt": {"$ref": "#/$defs/Affects"},
                "cda_power": {"$ref": "#/$defs/Affects"},
                "mana": {"enum": ["W", "U", "B", "R", "G", "C", "chosen"]},
                "max_counters": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["counter", "number"],
                    "properties": {"counter": {"type": "string"}, "number": {"type": "integer", "minimum": 0}},
                },
                "enters_with_counters": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["counter"],
                    "properties": {
                        "counter": {"type": "string"},
                        "number": {"type": "integer", "minimum": 0},
                        "x": {"const": True},
                    },
                },
                "static": {"$ref": "#/$defs/StaticAbility"},
            },
        },
    ]
}


def _ability_item(value: Any) -> Any:
    if isinstance(value, dict) and "static" in value:
        if len(value) != 1:
            raise ValueError("a static ability is a mapping with the one key 'static'")
        return StaticAbility.model_validate(value["static"])
    return Ability.model_validate(value)


class Card(_Strict):
    """One card's printed characteristics and abilities."""

    name: str
    mana_cost: str | None = Field(None, pattern=r"^(\{[0-9WUBRGXCS/]+\})*$")
    colors: list[Literal["white", "blue", "black", "red", "green"]] | None = None
    types: list[Literal["artifact", "creature", "enchantment", "instant", "land", "planeswalker", "sorcery", "tribal"]]
    subtypes: list[str] = Field(default_factory=list)
    supertypes: list[Literal["basic", "legendary", "snow", "world"]] = Field(default_factory=list)
    power: int | None = None
    toughness: int | None = None
    loyalty: int | None = None
    text: str = ""
    missing: str | None = Field(
        None,
        min_length=1,
        description="what of the printed text the file leaves out: "
        "a game that uses the card says that part does nothing",
    )
    abilities: list[Any] = Field(default_factory=list, description="keywords and static abilities (cards/README.md)")
    effect: EffectSpec | None = Field(None, description="for an instant or sorcery: what it does to its targets")
    targets: list[TargetSpec] = Field(default_factory=list, description="a spell's targets (CR 601.2c, 113)")
    resolve: list[ResolveStep] = Field(
        default_factory=list, description="what an instant or sorcery does as it resolves (CR 608.2c)"
    )
    activated: list[ActivatedAbility] = Field(
        default_factory=list, description="activated abilities other than mana abilities (CR 602)"
    )
    modes: list[Mode] = Field(default_factory=list, description='a modal spell\'s modes ("Choose one", CR 700.2)')
    modes_chosen_by: Literal["opponent"] | None = Field(
        None,
        description='who chooses a modal spell\'s mode as it is cast: `opponent` ("An opponent chooses one", '
        "CR 601.3); by default its caster (601.2b)",
    )
    triggered: list[TriggeredAbility] = Field(default_factory=list, description="triggered abilities (CR 603)")
    kicker: str | None = Field(None, pattern=r"^(\{[0-9WUBRGXCS/]+\})*$", description="kicker cost (CR 702.30)")
    buyback: str | None = Field(None, pattern=r"^(\{[0-9WUBRGXCS/]+\})*$", description="buyback cost (CR 702.24)")
    flashback: str | None = Field(None, pattern=r"^(\{[0-9WUBRGXCS/]+\})*$", description="flashback cost (CR 702.31)")
    splice: Splice | None = Field(None, description="Splice onto <subtype> <cost> (CR 702.44)")
    morph: str | None = Field(
        None,
        pattern=r"^(\{[0-9WUBRGXCS/]+\})*$",
        description="morph cost (CR 702.34): it may be cast face down as a 2/2 creature for {3}",
    )
    entwine: str | None = Field(
        None,
        pattern=r"^(\{[0-9WUBRGXCS/]+\})*$",
        description="entwine cost of a modal spell (CR 702.39): paid, all its modes are chosen",
    )
    equip: str | None = Field(
        None,
        pattern=r"^(\{[0-9WUBRGXCS/]+\})*$",
        description="Equip cost (CR 702.6): an activated ability, last of `activated`, "
        '"attach to target creature you control; equip only as a sorcery"',
    )
    sacrifice_cost: Quality | None = Field(
        None, description='"As an additional cost to cast this, sacrifice a <quality> permanent" (CR 116.8)'
    )
    cast_only: Literal["after_blockers"] | None = Field(
        None, description='"Cast this only during combat after blockers are declared"'
    )
    flip: Card | None = Field(
        None, description="a flip card's flipped side (CR 709): its name, types, power, toughness and abilities"
    )

    _cost_numbers = field_validator("mana_cost", "kicker", "buyback", "flashback", "equip", "entwine", "morph")(
        _cost_numbers
    )

    @model_validator(mode="before")
    @classmethod
    def _equip(cls, value: Any) -> Any:
        # CR 702.6a: "Equip [cost]" means "[Cost]: Attach this permanent to target creature
        # you control. Activate this ability only any time you could cast a sorcery."
        if isinstance(value, dict) and isinstance(value.get("equip"), str):
            activated = list(value.get("activated") or [])

            def attaches(ability: Any) -> bool:  # already expanded (a card validated again)
                steps = ability.get("resolve") if isinstance(ability, dict) else getattr(ability, "resolve", [])
                return any(
                    (s.get("attach") if isinstance(s, dict) else getattr(s, "attach", None)) for s in steps or []
                )

            if not any(attaches(a) for a in activated):
                activated.append(
                    {
                        "cost": value["equip"],
                        "sorcery_speed": True,
                        "resolve": [{"attach": "target"}],
                        "targets": [{"quality": "creature", "controller": "you"}],
                    }
                )
            value = {**value, "activated": activated}
        return value

    @field_validator("abilities", mode="before")
    @classmethod
    def _abilities(cls, value: Any) -> Any:
        if not isinstance(value, list):
            raise ValueError("abilities must be a list")
        return [_ability_item(v) for v in value]

    @model_validator(mode="after")
    def _check(self) -> Card:
        if "creature" in self.types and (self.power is None or self.toughness is None):
            raise ValueError("a creature needs power and toughness")
        if "planeswalker" in self.types and self.loyalty is None:
            raise ValueError("a planeswalker needs loyalty")
        if self.entwine is not None and len(self.modes) < 2:
            raise ValueError("entwine is an ability of modal spells: a card with entwine needs two or more modes")
        if self.modes_chosen_by is not None and len(self.modes) < 2:
            raise ValueError("modes_chosen_by is said of modal spells: the card needs two or more modes")
        return self

    @property
    def id(self) -> str:
        """The card's identifier in facts and file names."""
        return slug(self.name)

    def color_list(self) -> list[str]:
        """Colors: as given, else from the mana cost's colored symbols (CR 202.2)."""
        if self.colors is not None:
            return list(self.colors)
        found = []
        for letter, color in COLORS.items():
            if self.mana_cost and letter in self.mana_cost and color not in found:
                found.append(color)
        return found

    def mana_value(self) -> int:
        """Converted mana cost (CR 202.3): numbers count, each colored or hybrid symbol 1, X 0."""
        total = 0
        for symbol in re.findall(r"\{([^}]+)\}", self.mana_cost or ""):
            if symbol.isdigit():
                total += int(symbol)
            elif symbol != "X":
                total += 1
        return total

    def all_abilities(self) -> list[Ability | StaticAbility]:
        """Printed abilities plus the intrinsic mana abilities of basic land types (CR 305.6)."""
        extra: list[Ability | StaticAbility] = []
        for sub in self.subtypes:
            mana = BASIC_LAND_MANA.get(_const(sub))
            if mana and "land" in self.types:
                extra.append(Ability(keyword="mana", mana=mana))
        return [*self.abilities, *extra]

    def divided_amount(self) -> int | None:
        """The amount a spell divides among its targets as it is cast (CR 601.2d), if any."""
        for step in self.resolve:
            if step.divided and isinstance(step.deal_damage, int):
                return step.deal_damage
        return None

    def spell_targets(self) -> list[TargetSpec]:
        """The targets of the card as a spell; an Aura spell targets what its enchant ability
        names (CR 113.1b, 303.4a)."""
        if self.targets or "aura" not in [slug(t) for t in self.subtypes]:
            return list(self.targets)
        enchant = next((a.quality for a in self.abilities if isinstance(a, Ability) and a.keyword == "enchant"), None)
        if enchant is None:
            return []
        return [TargetSpec(kind="player") if enchant.player else TargetSpec(kind="permanent", quality=enchant)]

    def keyword_names(self) -> list[str]:
        """Names of the card's keyword abilities (not its static abilities)."""
        return [a.keyword for a in self.all_abilities() if isinstance(a, Ability)]

    def facts(self) -> list[str]:
        """The card's ASP facts (worked out once for each card: cards are immutable)."""
        known = _CARD_FACTS.get(id(self))
        if known is not None and known[0] is self:
            return list(known[1])
        facts = self._facts()
        _CARD_FACTS[id(self)] = (self, facts)
        return list(facts)

    def _facts(self) -> list[str]:
        c = _asp_string(self.id)
        values = [("name", _asp_string(self.name)), ("mana_value", str(self.mana_value()))]
        values += [("type", t) for t in self.types] + [("subtype", _const(t)) for t in self.subtypes]
        values += [("supertype", t) for t in self.supertypes] + [("color", k) for k in self.color_list()]
        for kind, value in (
            ("power_base", self.power),
            ("toughness_base", self.toughness),
            ("loyalty_base", self.loyalty),
        ):
            if value is not None:
                values.append((kind, str(value)))
        out = [f"card_value({c}, {kind}, {value})." for kind, value in values]
        qualities: set[str] = set()
        index = 0
        for ability in self.all_abilities():
            if isinstance(ability, Ability):
                term = f"cda({c})" if ability.count is not None else ability.term()
                out.append(f"card_value({c}, ability, {term}).")
                _collect_qualities(ability, qualities)
                if ability.count is not None:
                    out += ability.count.filter_facts("card_cda", c)
                    if ability.keyword == "cda_power":
                        out.append(f"card_cda_power_only({c}).")
                    if ability.count.quality is not None:
                        qualities.update(ability.count.quality.parts())
                continue
            index += 1
            out.append(f"card_value({c}, ability, static({c}, {index})).")
            affects = ability.affects
            if isinstance(affects, str):
                out.append(f"static_affects({c}, {index}, {affects}).")
            else:
                out.append(f"static_affects({c}, {index}, each).")
                if affects.quality is not None:
                    for part in affects.quality.parts():
                        out.append(f"static_filter({c}, {index}, {part}).")
                        qualities.add(part)
                if affects.controller:
                    out.append(f"static_controller({c}, {index}, {affects.controller}).")
                if affects.other:
                    out.append(f"static_other({c}, {index}).")
            out += ability.effect_facts(f"sk({c}, {index})")
            qualities.update(ability.qualities())
            for a in ability.abilities():
                _collect_qualities(a, qualities)
        if self.effect is not None:
            for a in self.effect.abilities():
                _collect_qualities(a, qualities)
        # CR 601.2c, 608.2c: a spell's targets and what it does; CR 602: activated abilities
        out += _spell_facts(
            f"sp({c})", self.mana_cost or "", self.spell_targets(), self.resolve, self.effect, qualities
        )
        for k, trigger in enumerate(self.triggered, start=1):
            key = f"tr({c}, {k})"
            out.append(f"card_value({c}, ability, triggered({c}, {k})).")
            out.append(f"trigger_event({key}, {trigger.when}).")
            if trigger.each:
                out.append(f"trigger_each({key}).")
            if trigger.first_each_turn:
                out.append(f"trigger_first_each_turn({key}).")
            if trigger.at_least is not None:  # CR 509.4e
                out.append(f"trigger_at_least({key}, {trigger.at_least}).")
            if trigger.spell is not None:
                out += [f"trigger_spell_filter({key}, {part})." for part in trigger.spell.parts()]
                qualities.update(trigger.spell.all_terms())
            if trigger.object is not None:
                out.append(f"trigger_object_filter({key}, {trigger.object.term()}).")
                qualities.update(trigger.object.all_terms())
            if trigger.whose == "you":
                out.append(f"trigger_whose({key}, you).")
            if trigger.of != "self":
                out.append(f"trigger_of({key}, {trigger.of}).")
            if trigger.if_ is not None:
                out.append(f"trigger_if({key}, {trigger.if_.term()}).")
            out += _spell_facts(key, "", trigger.targets, trigger.resolve, trigger.effect, qualities)
            for n, mode in enumerate(trigger.modes, start=1):
                out += _spell_facts(f"tm({c}, {k}, {n})", "", mode.targets, mode.resolve, mode.effect, qualities)
        for n, mode in enumerate(self.modes, start=1):
            out += _spell_facts(f"md({c}, {n})", "", mode.targets, mode.resolve, mode.effect, qualities)
            out.append(f"card_mode({c}, {n}).")
        if self.modes_chosen_by is not None:  # CR 601.3: "An opponent chooses one"
            out.append(f"card_mode_chooser({c}, {self.modes_chosen_by}).")
        if self.entwine is not None:
            # CR 702.39a-b: the text of the spell with all its modes: each mode's targets after
            # those of the modes before it, and its instructions (N, I) after theirs
            offset = 0
            for n, mode in enumerate(self.modes, start=1):
                for i, target in enumerate(mode.targets, start=1):
                    out += target.facts(f"en({c})", offset + i)
                for i, step in enumerate(mode.resolve, start=1):
                    out += step.facts(f"en({c})", f"({n}, {i})")
                offset += len(mode.targets)
            if any(mode.effect is not None and not mode.effect.is_empty() for mode in self.modes):
                out.append(f"has_effect(en({c})).")
        if self.cast_only is not None:
            out.append(f"cast_only({c}, {self.cast_only}).")
        if self.sacrifice_cost is not None:
            out.append(f"sacrifice_cost(sp({c}), {self.sacrifice_cost.term()}).")
            qualities.update(self.sacrifice_cost.all_terms())
        # CR 702.44a: splice onto a subtype, and its cost
        if self.splice is not None:
            out.append(f"card_splice({c}, {_const(self.splice.onto)}).")
            out += [f"cost_part(splice({c}), {k}, {n})." for k, n in sorted(mana_symbols(self.splice.cost).items())]
        # CR 702.30, 702.24, 702.31, 702.39: additional and alternative costs
        for kind in ("kicker", "buyback", "flashback", "entwine", "morph"):
            cost = getattr(self, kind)
            if cost is not None:
                out += [f"cost_part({kind}({c}), {k}, {n})." for k, n in sorted(mana_symbols(cost).items())]
                out.append(f"card_has_cost({c}, {kind}).")
        for k, activated in enumerate(self.activated, start=1):
            key = f"ab({c}, {k})"
            out.append(f"card_value({c}, ability, activated({c}, {k})).")
            out += _spell_facts(key, activated.cost, activated.targets, activated.resolve, activated.effect, qualities)
            for flag in ("tap", "sorcery_speed", "once_each_turn", "before_attackers"):
                if getattr(activated, flag):
                    out.append(f"ability_{flag}({key}).")
            if activated.pay_life:
                out.append(f"ability_pay_life({key}, {activated.pay_life}).")
            if activated.sacrifice_cost is not None:
                out.append(f"sacrifice_cost({key}, {activated.sacrifice_cost.term()}).")
                qualities.update(activated.sacrifice_cost.all_terms())
            if activated.discard_cost:
                out.append(f"ability_discard({key}, {activated.discard_cost}).")
            if activated.exiled_card_cost:
                out.append(f"ability_exiled_card_cost({key}).")
            if activated.loyalty is not None:
                out.append(f"ability_loyalty({key}, {activated.loyalty}).")
        out += [f"mentioned_quality({q})." for q in sorted(qualities)]
        if self.flip is not None:
            # CR 709.2: the flipped side's values, keyed flip(Card); its mana cost and color
            # are the card's own.
            for fact in self.flip.facts():
                if fact.startswith("card_value(") and (", mana_value," in fact or ", color," in fact):
                    continue
                out.append(fact.replace(f"card_value({_asp_string(self.flip.id)},", f"card_value(flip({c}),", 1))
            out += [f"card_value(flip({c}), mana_value, {self.mana_value()})."]
            out += [f"card_value(flip({c}), color, {k})." for k in self.color_list()]
        return out


def mana_symbols(cost: str) -> dict[str, int]:
    """A mana cost as counts: ``generic``, each color letter in lower case, ``x`` (CR 202.1)."""
    counts: dict[str, int] = {}
    for symbol in re.findall(r"\{([^}]+)\}", cost):
        if symbol.isdigit():
            counts["generic"] = counts.get("generic", 0) + int(symbol)
        elif symbol.upper() in (*COLORS, "C", "X"):
            key = symbol.lower()
            counts[key] = counts.get(key, 0) + 1
        else:  # hybrid and snow symbols: not paid by this engine yet
            counts["unsupported"] = counts.get("unsupported", 0) + 1
    return counts


def _spell_facts(
    key: str,
    cost: str,
    targets: list[TargetSpec],
    steps: list[ResolveStep],
    effect: EffectSpec | None,
    qualities: set[str],
) -> list[str]:
    out = [f"cost_part({key}, {kind}, {n})." for kind, n in sorted(mana_symbols(cost).items())]
    for i, target in enumerate(targets, start=1):
        out += target.facts(key, i)
        if target.quality is not None:
            qualities.update(target.quality.all_terms())
    for i, step in enumerate(steps, start=1):
        out += step.facts(key, i)
        for verb in ("search", *QUALITY_STEPS):
            if getattr(step, verb) is not None:
                qualities.update(getattr(step, verb).all_terms())
        if step.where is not None:
            qualities.update(step.where.all_terms())
        if step.count is not None and step.count.quality is not None:
            qualities.update(step.count.quality.all_terms())
    if effect is not None and not effect.is_empty():
        out.append(f"has_effect({key}).")
    return out


def _collect_qualities(ability: Ability, into: set[str]) -> None:
    if ability.quality is not None:
        into.update(ability.quality.all_terms())


_CARD_FACTS: dict[int, tuple[Card, list[str]]] = {}


class CardPool:
    """The cards of a folder, loaded one file at a time as names are asked for."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._cards: dict[str, Card] = {}

    @classmethod
    def from_cards(cls, cards: list[Card], fallback: CardPool | None = None) -> CardPool:
        """A pool of the given cards (and, for other names, a fallback pool)."""
        pool = cls(fallback.folder if fallback else Path("/nonexistent"))
        pool._cards.update({c.id: c for c in cards})
        return pool

    @classmethod
    @functools.cache
    def default(cls) -> CardPool:
        """The pool shipped in ``cards/``."""
        return cls(cards_dir())

    def names(self) -> list[str]:
        """The ids of every card file in the pool."""
        return sorted(p.stem for p in self.folder.glob("*.yaml"))

    def get(self, name: str) -> Card:
        """The card called ``name`` (case and punctuation are forgiven)."""
        key = slug(name)
        card = self._cards.get(key)
        if card is None:
            card = self._load(key, name)
            self._cards[key] = card
        return card

    def __contains__(self, name: str) -> bool:
        if not isinstance(name, str) or len(name) > MAX_NAME:  # a name never becomes a path unchecked
            return False
        key = slug(name)
        return bool(key) and (self.folder / f"{key}.yaml").is_file()

    def _load(self, key: str, name: str) -> Card:
        if len(name) > MAX_NAME:
            raise UnknownCardError(f"unknown card {quote(name)}: a name is at most {MAX_NAME} characters")
        path = self.folder / f"{key}.yaml"
        if not key or not path.is_file():
            close = difflib.get_close_matches(key, self.names(), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise UnknownCardError(f"unknown card {quote(name)}{hint}")
        return load_card_file(path)

    def all(self) -> list[Card]:
        """Every card of the pool (validates each file)."""
        return [self.get(n) for n in self.names()]


def load_card_file(path: Path) -> Card:
    """Read and validate one card file."""
    data, text = read_yaml(path)
    try:
        card = Card.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, str(path), text) from None
    if card.id != path.stem:
        raise InputError(f"the card is named {card.name!r}, so its file must be {card.id}.yaml", source=str(path))
    return card


Ability.model_rebuild()
Card.model_rebuild()
