"""The actions of a game as pydantic models: declarations, orders, damage assignments, casting,
activating, playing a land, passing, and the flow's own (state-based actions, advancing to a
step); ``Action`` is their union, tagged by ``kind``.  In scenario files an action is written
``{kind: value}`` (``declare_blockers: {elves: wurm}``) or as a bare word (``pass``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, Field, field_validator, model_validator

from bridge.model.reading import UNION_TAGS
from bridge.model.state import Model, Step


def _one_or_many(value: Any) -> Any:
    """A list of ids may be written as one id (``targets: bob``)."""
    return [value] if isinstance(value, str) else value


Ids = Annotated[list[str], BeforeValidator(_one_or_many)]


class DeclareAttackers(Model):
    """CR 508.1: attacker id -> player name or planeswalker id; ``bands`` lists bands (508.1e)."""

    kind: Literal["declare_attackers"] = "declare_attackers"
    attackers: dict[str, str]
    bands: list[list[str]] = Field(default_factory=list)


class DeclareBlockers(Model):
    """CR 509.1: blocker id -> the attacker (or attackers) it blocks."""

    kind: Literal["declare_blockers"] = "declare_blockers"
    blockers: dict[str, list[str]]

    @field_validator("blockers", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: [v] if isinstance(v, str) else v for k, v in value.items()}
        return value


class OrderBlockers(Model):
    """CR 509.2: attacker id -> its blockers in damage assignment order."""

    kind: Literal["order_blockers"] = "order_blockers"
    orders: dict[str, list[str]]


class OrderAttackers(Model):
    """CR 509.3: blocker id -> the attackers it blocks in damage assignment order."""

    kind: Literal["order_attackers"] = "order_attackers"
    orders: dict[str, list[str]]


class StateBasedActions(Model):
    """CR 704.3: perform state-based actions until none apply (written ``- sba``)."""

    kind: Literal["sba"] = "sba"


class AssignDamage(Model):
    """CR 510.1: creature id -> {recipient id or player name: damage}; ``prevent`` is the
    affected player's choice of which damage a prevention shield prevents (CR 615.7):
    shielded id or player -> {source id: damage prevented}.  Creatures left out assign their
    damage by default.  ``by``, when given, is the player announcing (510.1: the active player
    for the attacking creatures, then the defending player for the blocking creatures, whose
    announcement the game waits for when he or she has a choice); without it the assignment
    is announced whole and the damage dealt."""

    kind: Literal["assign_damage"] = "assign_damage"
    assignments: dict[str, dict[str, int]]
    prevent: dict[str, dict[str, int]] = Field(default_factory=dict)
    by: str | None = None

    @field_validator("assignments")
    @classmethod
    def _amounts(cls, value: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
        for source, targets in value.items():
            for target, amount in targets.items():
                if amount < 0:
                    raise ValueError(f"{source} assigns a negative amount to {target}")
        return value


class RemoveFromCombat(Model):
    """CR 506.4: an effect removes these permanents from combat."""

    kind: Literal["remove_from_combat"] = "remove_from_combat"
    objects: Ids = Field(min_length=1)


class Pass(Model):
    """CR 116.3d: the player with priority passes (written ``- pass``)."""

    kind: Literal["pass"] = "pass"
    by: str | None = Field(None, description="who passes; by default the player with priority")


class PlayLand(Model):
    """CR 114.2a, 305.2: play a land from the hand (a special action)."""

    kind: Literal["play_land"] = "play_land"
    card: str = Field(description="the land's id, or a card name in the player's hand")
    by: str | None = None


class TurnFaceUp(Model):
    """CR 702.34d, 114: turn a face-down permanent its player controls face up, paying its
    morph cost (a special action: no stack; ``pay``: the permanents tapped for mana)."""

    kind: Literal["turn_face_up"] = "turn_face_up"
    permanent: str = Field(description="the face-down permanent's id")
    by: str | None = None
    pay: Ids | None = None


class Cast(Model):
    """CR 601.2: cast a spell from the hand: targets, X and how it is paid (``pay``: the
    permanents tapped for mana; by default the mana pool first, then untapped sources)."""

    kind: Literal["cast"] = "cast"
    card: str = Field(description="the card's id, or a card name in the player's hand")
    by: str | None = None
    targets: Ids = Field(default_factory=list)
    x: int | None = Field(None, ge=0)
    mode: int | None = Field(None, ge=1, description="the mode of a modal spell (1 = first)")
    mode_by: str | None = Field(
        None,
        description="the player who chose the mode (CR 601.3: an opponent, when the spell says so); "
        "by default the player the rules name",
    )
    kicked: bool = Field(False, description="pay its kicker cost")
    buyback: bool = Field(False, description="pay its buyback cost")
    flashback: bool = Field(False, description="cast it from the graveyard for its flashback cost")
    entwined: bool = Field(False, description="pay its entwine cost: all its modes are chosen (CR 702.39)")
    face_down: bool = Field(
        False, description="cast it face down as a 2/2 creature for {3}, by its morph ability (CR 702.34)"
    )
    splice: Ids = Field(
        default_factory=list,
        description="cards in the caster's hand spliced onto it (CR 702.44), in the order their texts follow; "
        "their targets follow the spell's own in `targets`",
    )
    sacrifice: Ids = Field(default_factory=list, description="permanents sacrificed as an additional cost")
    pay: Ids | None = None
    divide: list[int] | None = Field(
        None,
        description="the division of a spell's amount among its targets, one share for each target in "
        "their order (CR 601.2d); by default as even as possible, the first targets getting more",
    )


class Activate(Model):
    """CR 602.2, 605.3: activate an ability of a permanent: ``ability`` 1 is its first
    activated ability; ``mana`` activates its mana ability (CR 605) instead."""

    kind: Literal["activate"] = "activate"
    source: str
    ability: int | None = Field(None, ge=1)
    mana: bool = False
    color: Literal["white", "blue", "black", "red", "green", "colorless"] | None = Field(
        None,
        description="the color of the mana a mana ability adds, among those its abilities make (605.3a, "
        "106.1); it may be left out when they make one; naming it activates a mana ability",
    )
    by: str | None = None
    targets: Ids = Field(default_factory=list)
    targets_by: Ids = Field(
        default_factory=list,
        description="the player who chose each target, in the order of `targets` (CR 602.3: an opponent, for "
        "a target of an opponent's choice); by default, and for the targets left out, the players the rules name",
    )
    x: int | None = Field(None, ge=0)
    sacrifice: Ids = Field(default_factory=list, description="permanents sacrificed to pay its cost")
    discard: Ids = Field(
        default_factory=list,
        description="the cards in the player's hand discarded to pay its cost (CR 602.2b); by default the "
        "cards listed last in the hand",
    )
    exiled: str | None = Field(
        None,
        description="the card exiled with its source put into its owner's graveyard to pay its cost (CR 607.2b, "
        "602.2b); by default the one with the smallest id",
    )
    pay: Ids | None = None

    @model_validator(mode="before")
    @classmethod
    def _color_is_mana(cls, value: Any) -> Any:
        if isinstance(value, dict) and value.get("color") is not None and not value.get("mana"):
            return {**value, "mana": True}
        return value


class ChooseTargets(Model):
    """CR 603.3c-603.3d: the controller of a triggered ability being put on the stack chooses
    its mode, if it is modal, and its targets (written ``{choose_targets: {ability:
    kavu_trigger, targets: [elves]}}``, with ``mode: 2`` for the second mode)."""

    kind: Literal["choose_targets"] = "choose_targets"
    ability: str = Field(description="the id of the triggered ability waiting for its targets")
    targets: Ids = Field(default_factory=list)
    mode: int | None = Field(None, ge=1, description="the mode of a modal triggered ability (1 = first)")
    by: str | None = None


class AnswerOffer(Model):
    """CR 608.2f: the player a resolving spell or ability offers a payment to ("unless its
    controller pays {3}") pays it or not (written ``{answer_offer: {by: bob, pays: true}}``;
    ``pay`` names the permanents tapped for mana, as a cast's does)."""

    kind: Literal["answer_offer"] = "answer_offer"
    by: str | None = None
    pays: bool
    pay: Ids | None = None


class Concede(Model):
    """CR 104.3a: a player concedes the game (written ``concede: bob``)."""

    kind: Literal["concede"] = "concede"
    by: str


class ChooseOrder(Model):
    """A player states the order he or she will choose among replacement and prevention
    effects (CR 616.1) and among his or her own triggered abilities that trigger at once (CR
    603.3b), by their sources, the cards he or she discards by choice (514.1, 701.7b), the card
    he or she picks as a source's spell or ability resolves (608.2d, 701.7b, 701.14a, 702.69a), and the
    timestamp order of objects that received the same timestamp (613.6g); it stands until
    stated again (written ``{choose_order: {by:
    alice, replacements: [...], triggers: [...]}}``)."""

    kind: Literal["choose_order"] = "choose_order"
    by: str
    replacements: list[str] | None = Field(
        None,
        description="these sources' effects apply first, in this order; "
        "`prevention_shield` places the prevention shields (615.7), which "
        "otherwise come first, and `prevention` the effects that prevent all damage to the player "
        "(615.1a), which otherwise come first too",
    )
    triggers: list[str] | None = Field(
        None, description="these sources' abilities go on the stack first, in this order (so they resolve last)"
    )
    declines: list[str] | None = Field(None, description='the "you may" instructions of these sources are not followed')
    trigger_targets: dict[str, list[str]] | None = Field(
        None, description="source -> the targets chosen for its triggered abilities"
    )
    trigger_modes: dict[str, int] | None = Field(
        None, description="source -> the mode chosen for its modal triggered abilities (CR 603.3c)"
    )
    as_enters: dict[str, dict[str, str]] | None = Field(
        None, description="object id -> the choices made as it enters the battlefield (copy, color, creature_type)"
    )
    sources: dict[str, str] | None = Field(
        None, description="object id -> the source of damage chosen when its ability resolves (CR 615.8)"
    )
    discards: list[str] | None = Field(
        None,
        description="cards in the player's hand: when he or she discards cards of his or her choice "
        "(CR 514.1, 701.7b), these are discarded first, in this order (the cards listed last after them)",
    )
    exiles: list[str] | None = Field(
        None,
        description="cards in the player's graveyard: when an effect has him or her exile cards of his or her "
        "choice from it (Nefarious Lich, CR 614.1a), these first, in this order (then those put there first)",
    )
    sacrifices: list[str] | None = Field(
        None,
        description="permanents the player controls: when he or she sacrifices a permanent of his or her "
        "choice (CR 701.13a), the first of these that can be sacrificed then, in this order (else the default)",
    )
    picks: dict[str, str] | None = Field(
        None,
        description="source -> the card the player picks as its spell or ability resolves: the other "
        "permanent champion exiles (CR 702.69a), the card put from his or her hand onto the battlefield "
        "(608.2d), the card chosen from a revealed hand to discard (701.7b), the card found in a library "
        'search (701.14a), or no card, "", for a search for a card with a stated quality that finds none '
        "(701.14b); keyed by a permanent, the card its replacement effect returns from the graveyard instead "
        "of a draw (Forbidden Crypt, 614.11); a source not named, or a card that can't be picked then, takes "
        "the default",
    )
    unfound: dict[str, list[str]] | None = Field(
        None,
        description="source -> the cards in a hand or a library that its search for all cards with a stated "
        "quality doesn't find (Splinter, CR 701.14b); the others are found",
    )
    timestamps: list[str] | None = Field(
        None,
        description="objects that received their timestamps at the same time (entering or becoming "
        "attached at once): their timestamp order, the earliest first; the active player's "
        "order is the one that counts (CR 613.6g)",
    )


class OrderTriggers(Model):
    """CR 603.3b: a player puts his or her triggered abilities that triggered at once on the
    stack in the order he or she chooses: their ids, the first put on the stack first (so it
    resolves last); written ``{order_triggers: {by: alice, order: [t2, t1]}}``."""

    kind: Literal["order_triggers"] = "order_triggers"
    by: str
    order: list[str] = Field(min_length=2)


class Advance(Model):
    """Players pass priority until the game reaches ``step`` (of this turn or the next);
    choices on the way take their defaults (no attackers, no blockers, default damage)."""

    kind: Literal["advance"] = "advance"
    step: Step
    turn: int | None = Field(None, ge=1, description="the turn to reach the step in (default: the first time)")


class NextStep(Model):
    """The active player's step ends and the next step of the combat phase begins, with its
    turn-based actions (CR 506.1, 508.6, 510.5, 511.3); written ``- next_step``."""

    kind: Literal["next_step"] = "next_step"


Action = Annotated[
    DeclareAttackers
    | DeclareBlockers
    | OrderBlockers
    | OrderAttackers
    | AssignDamage
    | StateBasedActions
    | RemoveFromCombat
    | NextStep
    | Pass
    | PlayLand
    | TurnFaceUp
    | Cast
    | Activate
    | Advance
    | Concede
    | ChooseOrder
    | ChooseTargets
    | AnswerOffer
    | OrderTriggers,
    Field(discriminator="kind"),
]
# validation paths name an action's kind after its index in a list of actions
UNION_TAGS.update(kind.model_fields["kind"].default for kind in get_args(get_args(Action)[0]))
UNION_TAGS.update(kind.__name__ for kind in get_args(get_args(Action)[0]))
_ACTION_FIELD = {
    "declare_attackers": "attackers",
    "declare_blockers": "blockers",
    "order_blockers": "orders",
    "order_attackers": "orders",
    "assign_damage": "assignments",
    "remove_from_combat": "objects",
}
# actions written as a mapping of their fields under their name: {cast: {card: ..., targets: [...]}}
_ACTION_MAPPING = (
    "cast",
    "activate",
    "play_land",
    "turn_face_up",
    "pass",
    "advance",
    "concede",
    "choose_order",
    "choose_targets",
    "answer_offer",
    "order_triggers",
)


def action_from_yaml(value: Any) -> Any:
    """``{declare_blockers: {...}}`` -> ``{kind: declare_blockers, blockers: {...}}``.

    An unknown action keeps its name as ``kind``, so validation reports it at its place.
    """
    if isinstance(value, dict) and "kind" not in value and len(value) == 1:
        ((name, body),) = value.items()
        if name in _ACTION_MAPPING:
            if name == "advance" and isinstance(body, str):
                return {"kind": "advance", "step": body}
            if name == "play_land" and isinstance(body, str):
                return {"kind": "play_land", "card": body}
            if name == "turn_face_up" and isinstance(body, str):
                return {"kind": "turn_face_up", "permanent": body}
            if name in ("pass", "concede") and isinstance(body, str):
                return {"kind": name, "by": body}
            return {"kind": name, **body} if isinstance(body, dict) else {"kind": name}
    if isinstance(value, dict) and "kind" not in value:
        keys = [k for k in value if k in _ACTION_FIELD]
        if len(keys) == 1:
            kind = keys[0]
            rest = {k: v for k, v in value.items() if k != kind}
            return {"kind": kind, _ACTION_FIELD[kind]: value[kind], **rest}
        if not keys and value:
            return {"kind": str(next(iter(value)))}
    if isinstance(value, str):
        return {"kind": value}
    return value
