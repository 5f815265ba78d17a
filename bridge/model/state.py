"""The game state as pydantic models (frozen, ``extra="forbid"``).

A :class:`GameState` is a whole two-player position: turn and step, players with their
zones, permanents with their status, the stack, and the continuous effects of spells and
abilities that already resolved.  Cross-field checks (one object in one zone, attachments and
blocks that point at real objects) run when a model is built; checks that need card data (is
this id a planeswalker?) run in :mod:`bridge.engine.facts`.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bridge.model.cards import EffectSpec, slug
from bridge.model.errors import quote
from bridge.model.limits import MAX_NAME, MAX_OBJECTS

__all__ = [
    "STEPS",
    "ZONES",
    "CardRef",
    "Effect",
    "GameState",
    "Model",
    "Permanent",
    "Player",
    "StackObject",
    "Step",
    "fresh_id",
]

# "first_strike_damage" is the first of two combat damage steps (CR 510.5, 702.7b).
Step = Literal[
    "untap",
    "upkeep",
    "draw",
    "main1",
    "beginning_of_combat",
    "declare_attackers",
    "declare_blockers",
    "first_strike_damage",
    "combat_damage",
    "end_of_combat",
    "main2",
    "end",
    "cleanup",
]
STEPS: tuple[str, ...] = get_args(Step)
ZONES = ("library", "hand", "graveyard", "exile", "battlefield")


def fresh_id(base: str, taken: set[str], numbered: bool = False) -> str:
    """The first of ``base``, ``base_2``, ``base_3``... (``base_1`` first when ``numbered``)
    that is not in ``taken``; it is added to ``taken``."""
    n = 1
    candidate = f"{base}_1" if numbered else base
    while candidate in taken:
        n += 1
        candidate = f"{base}_{n}"
    taken.add(candidate)
    return candidate


class Model(BaseModel):
    """A value read from a file or given to the API: frozen, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class CardRef(Model):
    """A card in a zone other than the battlefield; a bare card name is accepted."""

    id: str | None = None
    card: str
    token: bool = Field(False, description="a token, which ceases to exist outside the battlefield (CR 704.5d)")
    copy_of_card: bool = Field(
        False, description="a copy of a card, which ceases to exist outside the stack and the battlefield (CR 704.5e)"
    )
    exiled_with: str | None = Field(
        None,
        description="in exile: the object whose ability exiled it, when another ability of that object "
        'refers to the cards "exiled with" it (linked abilities, CR 607.2a)',
    )

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        return {"card": value} if isinstance(value, str) else value


class Permanent(Model):
    """A permanent on the battlefield; a bare card name is accepted."""

    id: str | None = None
    card: str
    controller: str | None = Field(None, description="when not the player it is listed under")
    tapped: bool = False
    sick: bool = Field(False, description="not controlled continuously since the turn began (CR 302.6)")
    seen_controller: str | None = Field(
        None,
        description="the controller the game saw last, after control-changing "
        "effects, when it is not the one the permanent is listed "
        "under (or its `controller`): a change since makes it sick "
        "(CR 302.6)",
    )
    damage: int = Field(0, ge=0)
    counters: dict[str, int] = Field(default_factory=dict)
    attached_to: str | None = None
    attacking: str | None = Field(None, description="a player's name or a planeswalker's id")
    blocking: list[str] = Field(default_factory=list, description="the attackers it blocks")
    band: str | None = Field(None, description="attacking creatures with the same band are banded (CR 702.19)")
    attacked_this_turn: bool = Field(False, description="declared as an attacker this turn (CR 508.1)")
    blocked: bool = Field(
        False,
        description="an attacking creature that was blocked: it stays blocked when its "
        "blockers leave combat (CR 509.1h, 506.4)",
    )
    removed_from_combat: bool = Field(
        False, description="a planeswalker removed from combat: the creatures attacking it attack nothing (CR 506.4c)"
    )
    damage_order: list[str] = Field(
        default_factory=list,
        description="damage assignment order: an attacker's blockers (CR 509.2) or a blocker's attackers (CR 509.3)",
    )
    token: bool = False
    face_down: bool = False
    deathtouch_damage: bool = Field(
        False,
        description="dealt damage by a source with deathtouch since state-based actions were last checked (CR 704.5h)",
    )
    regeneration_shields: int = Field(0, ge=0, description="regeneration shields on it (CR 701.11)")
    frozen: bool = Field(False, description="it doesn't untap during its controller's next untap step")
    must_block: list[str] = Field(
        default_factory=list, description="attacking creatures it blocks this turn if able (provoke, CR 702.36a)"
    )
    prevention_shield: int = Field(
        0, ge=0, description="the next N damage dealt to it this turn is prevented (CR 615.7)"
    )
    prevent_next_from: list[str] = Field(
        default_factory=list,
        description="the next time each of these sources "
        "would deal damage to it this turn, that damage is prevented (CR 615.8)",
    )
    prevent_next_from_quality: dict[str, str] = Field(
        default_factory=dict,
        description='for a source of prevent_next_from chosen for a quality ("a red source"), the quality '
        "(a rules term, color(red)) it must still have as it would deal the damage (CR 609.7b)",
    )
    prevent_next_from_gains: list[str] = Field(
        default_factory=list,
        description="the sources of prevent_next_from whose prevented damage also gains the player "
        "as much life, right after (CR 615.5)",
    )
    struck_first: bool = Field(
        False, description="had first strike or double strike as the first combat damage step began (CR 510.5)"
    )
    flipped: bool = Field(False, description="a flip card turned to its flipped side (CR 709)")
    phased_out: bool = Field(False, description="phased out: treated as though it doesn't exist (CR 702.23b)")
    phased_out_indirectly: bool = Field(
        False, description="phased out with the permanent it is attached to (CR 702.23f)"
    )
    timestamp: int | None = None
    chosen: dict[str, str] = Field(default_factory=dict)
    token_words: dict[str, str] = Field(
        default_factory=dict,
        description="a token made by a spell or ability whose text a text-changing effect changed: the creature "
        "type words of its definition replaced, in its subtypes and its name (CR 612.2a)",
    )
    put_with: str | None = Field(
        None,
        description="the object whose ability put it onto the battlefield, when another ability of that "
        'object refers to what was "put onto the battlefield with" it (linked abilities, CR 607.2c)',
    )

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        return {"card": value} if isinstance(value, str) else value

    @field_validator("counters")
    @classmethod
    def _counters(cls, value: dict[str, int]) -> dict[str, int]:
        for kind, n in value.items():
            if n < 0:
                raise ValueError(f"counter {kind!r} has a negative count")
        return value

    @model_validator(mode="after")
    def _check(self) -> Permanent:
        if self.band is not None and self.attacking is None:
            raise ValueError("only an attacking creature can be in a band")
        if self.attacking is not None and self.blocking:
            raise ValueError("a creature can't be both attacking and blocking")
        if self.blocked and self.attacking is None:
            raise ValueError("only an attacking creature can be blocked")
        return self


class Player(Model):
    """A player and the player's zones."""

    name: str = Field(min_length=1)
    life: int = 20
    poison: int = Field(0, ge=0)
    mana_pool: str = Field("", pattern=r"^(\{[WUBRGC]\})*$")
    lands_played: int = Field(0, ge=0)
    drawn_this_turn: int = Field(
        0, ge=0, description='cards the player has drawn this turn ("the first card you draw each turn", CR 603.10)'
    )
    prevention_shield: int = Field(
        0, ge=0, description="the next N damage dealt to the player this turn is prevented (CR 615.7)"
    )
    prevent_next_from: list[str] = Field(
        default_factory=list,
        description="the next time each of these sources "
        "would deal damage to the player this turn, that damage is prevented "
        "(CR 615.8)",
    )
    prevent_next_from_quality: dict[str, str] = Field(
        default_factory=dict,
        description='for a source of prevent_next_from chosen for a quality ("a red source"), the quality '
        "(a rules term, color(red)) it must still have as it would deal the damage (CR 609.7b)",
    )
    prevent_next_from_gains: list[str] = Field(
        default_factory=list,
        description="the sources of prevent_next_from whose prevented damage also gains the player "
        "as much life, right after (CR 615.5)",
    )
    cant_cast_spells: bool = Field(False, description="the player can't cast spells this turn (Silence; CR 101.2)")
    source_choices: dict[str, str] = Field(
        default_factory=dict,
        description="the source of damage the player "
        'chooses when an ability of this object resolves ("a red source of '
        'your choice", CR 615.8), when it has the quality asked for',
    )
    drew_from_empty_library: bool = Field(False, description="since state-based actions were last checked (704.5b)")
    lost: bool = Field(False, description="the player has lost the game (CR 104.3)")
    lost_by: str | None = Field(
        None,
        description="the rule by which the player lost: 704.5a (life), 704.5b (a "
        "draw from an empty library), 704.5c (poison), 104.3a "
        "(concession), 104.3e (an effect), 104.4b (a draw: a loop of "
        "mandatory actions)",
    )
    skip_turns: int = Field(0, ge=0, description="the player skips his or her next N turns (CR 614.10, 614.10a)")
    damage_prevented: bool = Field(
        False,
        description="all damage that would be dealt this turn to the player and "
        "creatures he or she controls is prevented (Safe Passage, CR 615)",
    )
    takes_entering_creatures: bool = Field(
        False,
        description="this turn, a creature that would enter the battlefield under an opponent's control enters "
        "under this player's instead (Gather Specimens, CR 616.1b)",
    )
    replacement_order: list[str] = Field(
        default_factory=list,
        description="the player's choice of order among "
        "replacement and prevention effects on an event that affects him or her "
        "or a permanent he or she controls: these sources first, in this order "
        "(CR 616.1)",
    )
    trigger_targets: dict[str, list[str]] = Field(
        default_factory=dict,
        description="the targets the player "
        "chooses for the abilities of these sources as they go on the "
        "stack, when legal (CR 603.3d, 601.2c); others take the default",
    )
    trigger_modes: dict[str, int] = Field(
        default_factory=dict,
        description="the mode the player chooses for the modal triggered abilities of these "
        "sources as they go on the stack, when it can be chosen (CR 603.3c); others take the "
        "default (the first mode that can be chosen)",
    )
    as_enters: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="object id -> the choices the "
        "player makes as it enters the battlefield ({copy: <id>, color: red, "
        "creature_type: elf, land_type: island, card_name: Lightning Bolt}, CR 614.1c, 614.12)",
    )
    declines: list[str] = Field(
        default_factory=list,
        description='the optional ("you may") instructions of '
        "these sources' spells and abilities that the player chooses not to follow, also having an "
        "object with the id enter the battlefield as a copy (CR 603.5, 608.2d, 706.5)",
    )
    discard_order: list[str] = Field(
        default_factory=list,
        description="the cards the player chooses to discard first, in this order, when he or she "
        "discards cards of his or her choice (CR 514.1, 701.7b); the cards listed last in the hand after them",
    )
    exile_order: list[str] = Field(
        default_factory=list,
        description="the cards the player chooses to exile first from his or her graveyard, in this order, when "
        "an effect has him or her exile cards of his or her choice from it (Nefarious Lich, CR 614.1a)",
    )
    sacrifice_order: list[str] = Field(
        default_factory=list,
        description="the permanents the player chooses to sacrifice first, in this order, when he or she "
        "sacrifices a permanent of his or her choice (CR 701.13a); otherwise the default",
    )
    picks: dict[str, str] = Field(
        default_factory=dict,
        description="source -> the card the player picks as its spell or ability resolves, while it "
        "can be picked: the other permanent champion exiles (CR 702.69a), the card put from his or her "
        "hand (608.2d), the card discarded from a revealed hand (701.7b), the card found in a library "
        '(701.14a), or none, "" (701.14b), the card returned instead of a draw (614.11); otherwise the default',
    )
    unfound: dict[str, list[str]] = Field(
        default_factory=dict,
        description="source -> the cards in a hand or a library that its search for all cards with a stated "
        "quality doesn't find (CR 701.14b); the others are found",
    )
    trigger_order: list[str] = Field(
        default_factory=list,
        description="the player's choice of order for his or "
        "her triggered abilities that trigger at once: those of these sources go on "
        "the stack first, in this order (CR 603.3b)",
    )
    timestamp_order: list[str] = Field(
        default_factory=list,
        description="the player's choice of timestamp order for objects that received the same "
        "timestamp at once, the earliest first; the active player's counts (CR 613.6g)",
    )
    library: list[CardRef] = Field(default_factory=list, description="top card first")
    hand: list[CardRef] = Field(default_factory=list)
    graveyard: list[CardRef] = Field(default_factory=list)
    exile: list[CardRef] = Field(default_factory=list)
    battlefield: list[Permanent] = Field(default_factory=list)


class StackObject(Model):
    """A spell or an activated ability on the stack (CR 111, 602.2a); a bare card name is a
    spell of the active player."""

    id: str | None = None
    card: str | None = Field(None, description="a spell's card")
    source: str | None = Field(None, description="an ability's source: a permanent's id")
    ability: int | None = Field(None, ge=1, description="which activated ability of the source (1 = first)")
    trigger: int | None = Field(None, ge=1, description="which triggered ability of the source (1 = first)")
    copied_from: str | None = Field(
        None,
        description="the card whose activated or triggered ability it is, when "
        "the source has it by a copy effect (a Clone, CR 706.2); by "
        "default the source's own card",
    )
    keyword: str | None = Field(
        None,
        description="a triggered keyword ability of the source: exalted, bushido(N), fading(N), champion(Q) and "
        "champion_return(Q) (CR 702.80, 702.42, 702.29, 702.69)",
    )
    about: str | None = Field(None, description='the object the trigger event was about ("that creature")')
    about_controller: str | None = Field(
        None, description='the controller of that object as the event happened ("that land\'s controller")'
    )
    delayed: str | None = Field(None, description="a delayed triggered ability: the key of what it does (CR 603.7)")
    at: (
        Literal[
            "end_of_combat",
            "next_end_step",
            "leaves_battlefield",
            "becomes_untapped",
            "leaves_battlefield_or_becomes_untapped",
        ]
        | None
    ) = Field(
        None,
        description="when a delayed triggered ability triggers: at a moment, or the next time `watch` "
        "leaves the battlefield or becomes untapped",
    )
    watch: str | None = Field(None, description="the permanent a delayed triggered ability waits on (CR 603.7a)")
    controller: str | None = Field(None, description="by default the active player")
    targets: list[str] = Field(default_factory=list)
    x: int | None = Field(None, ge=0, description="the value chosen for X (CR 601.2b)")
    divide: list[int] | None = Field(
        None, description="the division announced of its amount among its targets, in their order (CR 601.2d)"
    )
    mode: int | None = Field(None, ge=1, description="the mode chosen (CR 601.2b, 700.2)")
    kicked: bool = Field(False, description="its kicker cost was paid (CR 702.30)")
    buyback: bool = Field(False, description="its buyback cost was paid (CR 702.24)")
    flashback: bool = Field(False, description="cast from a graveyard for its flashback cost (CR 702.31)")
    entwined: bool = Field(False, description="its entwine cost was paid: all its modes were chosen (CR 702.39)")
    face_down: bool = Field(False, description="cast face down by its morph ability (CR 702.34, 707)")
    spliced: list[CardRef] = Field(
        default_factory=list,
        description="the cards spliced onto it from its controller's hand (CR 702.44), in order: their texts "
        "follow its own",
    )
    copy_of_card: bool = Field(False, description="a copy of a spell (CR 706.9)")

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        return {"card": value} if isinstance(value, str) else value

    def label(self) -> str:
        """How scenarios name it: the card of a spell; ``pyro ability 1``, ``kavu trigger 1``,
        ``squire exalted`` for abilities."""
        if self.card is not None:
            return self.card
        if self.trigger is not None:
            return f"{self.source} trigger {self.trigger}"
        if self.keyword is not None:
            return f"{self.source} {self.keyword}"
        if self.delayed is not None:
            return f"{self.source} delayed trigger"
        return f"{self.source} ability {self.ability}"

    @model_validator(mode="after")
    def _check(self) -> StackObject:
        if (self.card is None) == (self.source is None):
            raise ValueError("a stack object is a spell (card) or an ability (source and ability), not both")
        if self.source is not None and [self.ability, self.trigger, self.keyword, self.delayed].count(None) != 3:
            raise ValueError(
                "an ability on the stack names which activated (ability), triggered (trigger) or "
                "keyword (keyword) ability of its source it is"
            )
        return self


class PaymentOffer(Model):
    """A resolving spell or ability waiting for a player to choose whether to pay what it
    offers (CR 608.2f)."""

    object: str = Field(description="the resolving spell or ability (the top of the stack)")
    player: str = Field(description="the player who chooses")


class Effect(EffectSpec):
    """A continuous effect from a spell or ability that already resolved (CR 611.2).

    What it does comes from the source card's ``effect`` unless given here.
    """

    source: str | None = Field(None, description="the card (by name) or object (by id) the effect comes from")
    text: str | None = Field(
        None,
        description="what the effect says, for an effect with no card behind it "
        "(the rules' examples); then what it does must be given here",
    )
    targets: list[str] = Field(default_factory=list)
    timestamp: int | None = None
    controller: str | None = Field(
        None,
        description="who controls the effect: by default the source permanent's controller, else the active player",
    )
    # None: the source card's duration.  Wider than the field it overrides, on purpose (a card's
    # effect always has a duration); bridge.engine.facts, which reads it, allows for None.
    duration: Literal["end_of_turn", "permanent", "while_source_on_battlefield"] | None = None  # type: ignore[assignment]


def _effect_origin(effect: Effect) -> Effect:
    if effect.modify_pt is not None and "x" in effect.modify_pt:
        raise ValueError("an effect that resolved has its X fixed (CR 611.2d): give modify_pt as numbers")
    if effect.source is None and effect.text is None:
        raise ValueError("an effect needs a source (a card or an object) or a text")
    if effect.source is None and effect.is_empty():
        raise ValueError("an effect without a source must say what it does (grant, modify_pt, set_pt, ...)")
    return effect


def _name_problem(value: Any) -> str | None:
    """What is wrong with a name from the input (a player's, an object's id, a card's), or
    None: printable text of at most :data:`~bridge.model.limits.MAX_NAME` characters."""
    if not isinstance(value, str):
        return None  # the field's own validation tells
    if len(value) > MAX_NAME:
        return f"a name of {len(value):,} characters: past the limit of {MAX_NAME}"
    if not value.isprintable():
        return f"the name {quote(value)} has a character that can't be printed"
    return None


def _check_size(value: dict[str, Any]) -> None:
    """A position within the limits: at most :data:`~bridge.model.limits.MAX_OBJECTS` objects,
    names of at most :data:`~bridge.model.limits.MAX_NAME` printable characters (checked before
    ids are given, so that a position too large is refused at once)."""
    objects = 0
    for i, player in enumerate(value["players"]):
        if not isinstance(player, dict):
            continue
        problem = _name_problem(player.get("name"))
        if problem:
            raise ValueError(f"players[{i}].name: {problem}")
        for zone in ZONES:
            objs = player.get(zone)
            if not isinstance(objs, list):
                continue
            objects += len(objs)
            if objects > MAX_OBJECTS:
                raise ValueError(f"more than {MAX_OBJECTS:,} objects in the position: past the limit")
            for j, obj in enumerate(objs):
                fields = ("id", "card") if isinstance(obj, dict) else ()
                for key in fields:
                    problem = _name_problem(obj.get(key))
                    if problem:
                        raise ValueError(f"players[{i}].{zone}[{j}].{key}: {problem}")
                if isinstance(obj, str) and (problem := _name_problem(obj)):
                    raise ValueError(f"players[{i}].{zone}[{j}]: {problem}")
    for key in ("stack", "pending_triggers", "delayed_triggers", "effects", "gone"):
        items = value.get(key)
        if isinstance(items, list):
            objects += len(items)
    if objects > MAX_OBJECTS:
        raise ValueError(f"more than {MAX_OBJECTS:,} objects in the position: past the limit")


class GameState(Model):
    """A two-player position."""

    turn: int = Field(1, ge=1)
    active: str
    step: Step = "main1"
    players: list[Player] = Field(min_length=2, max_length=2)
    effects: list[Effect] = Field(default_factory=list)
    combat_damage_dealt: bool = Field(
        False, description="combat damage was dealt in this combat damage step (CR 510.2)"
    )
    stack: list[StackObject] = Field(default_factory=list, description="top first (CR 405)")
    declared: list[Literal["attackers", "blockers", "blocker_orders", "attacker_orders"]] = Field(
        default_factory=list,
        description="the declarations made in this combat (CR 508.1, 509.1) and the damage assignment orders "
        "announced after them (509.2, 509.3)",
    )
    simultaneous_triggers: dict[str, list[str]] = Field(
        default_factory=dict,
        description="player -> his or her triggered abilities just put on the stack together, in the order "
        "put (the first is lowest), while he or she may still choose their order (CR 603.3b)",
    )
    announced_damage: dict[str, dict[str, int]] | None = Field(
        None,
        description="in a combat damage step, the active player's announced assignment of his or her "
        "creatures' combat damage, while the defending player announces the blockers' (CR 510.1): creature "
        "id -> {recipient: damage}",
    )
    announced_prevention: dict[str, dict[str, int]] | None = Field(
        None,
        description="with announced_damage, the active player's choice of what the prevention shields on "
        "him or her and his or her creatures prevent (CR 615.7): shielded id -> {source: damage}",
    )
    attacked_this_combat: bool = Field(
        False,
        description="creatures were declared as attackers in this combat "
        "(an empty declaration doesn't count; CR 508.6)",
    )
    priority: str | None = Field(
        None, description="the player who has priority (by default the active player, CR 116.3a-b)"
    )
    passed: list[str] = Field(
        default_factory=list, description="players who passed in succession since the last action (CR 115.4)"
    )
    extra_turns: list[str] = Field(
        default_factory=list, description="players who take extra turns after this one, the next first (CR 500.7)"
    )
    extra_combats: int = Field(
        0, ge=0, description="additional combat phases to come after this turn's postcombat main phase (CR 500.8)"
    )
    after_extra_turns: str | None = Field(None, description="during extra turns: whose regular turn comes next")
    combat_damage_prevented: bool = Field(False, description="all combat damage is prevented this turn (Fog, CR 615)")
    added_steps: list[Step] = Field(
        default_factory=list,
        description="steps effects added directly after the current step, the next first (CR 500.9)",
    )
    in_added_step: bool = Field(
        False, description="the current step is one an effect added (CR 500.9), not the turn's own"
    )
    block_costs: list[int] = Field(
        default_factory=list,
        description="this turn, creatures can't block unless their controller pays N for each "
        "blocking creature he or she controls: one N for each such effect (War Cadence, CR 509.1d)",
    )
    cleanup_again: bool = Field(
        False,
        description="state-based actions were performed or abilities triggered in "
        "this cleanup step, so players receive priority and another "
        "cleanup step follows (CR 514.3a)",
    )
    delayed_triggers: list[StackObject] = Field(
        default_factory=list,
        description="delayed triggered abilities waiting for their moment, with `at` in their id's key (CR 603.7)",
    )
    pending_triggers: list[StackObject] = Field(
        default_factory=list, description="abilities that triggered and wait to be put on the stack (CR 603.3)"
    )
    awaiting_payment: PaymentOffer | None = Field(
        None,
        description="the top of the stack, resolving, waits for a player to choose whether to pay what it offers "
        "(CR 608.2f); nobody has priority meanwhile",
    )
    awaiting_targets: list[StackObject] = Field(
        default_factory=list,
        description="triggered abilities being "
        "put on the stack, in order, the first waiting for its controller "
        "to choose its targets (CR 603.3d)",
    )
    gone: list[str] = Field(
        default_factory=list,
        description="ids of objects that ceased to exist (tokens, "
        "abilities that left the stack), which targets may "
        "still name",
    )
    activated_this_turn: list[str] = Field(
        default_factory=list, description="abilities activated this turn, as 'source/ability' (CR 602.5b, 606.3)"
    )

    @model_validator(mode="after")
    def _check(self) -> GameState:
        names = [p.name for p in self.players]
        if len(set(names)) != len(names):
            raise ValueError(f"two players are named {names[0]!r}")
        if self.active not in names:
            raise ValueError(f"the active player {self.active!r} is not one of the players {names}")
        where: dict[str, str] = {}
        for i, player in enumerate(self.players):
            for zone in ZONES:
                for j, obj in enumerate(getattr(player, zone)):
                    place = f"players[{i}].{zone}[{j}]"
                    if obj.id is None:
                        continue
                    if obj.id in names:
                        raise ValueError(f"{place}: the id {obj.id!r} is a player's name")
                    if obj.id in where:
                        raise ValueError(
                            f"{place}: the id {obj.id!r} is already used at {where[obj.id]} "
                            "(an object is in one zone only)"
                        )
                    where[obj.id] = place
        for k, item in enumerate(self.stack):
            if item.id in names:
                raise ValueError(f"stack[{k}]: the id {item.id!r} is a player's name")
            if item.id in where:
                raise ValueError(f"stack[{k}]: the id {item.id!r} is already used at {where[item.id]}")
            if item.id is not None:
                where[item.id] = f"stack[{k}]"
            if item.controller is not None and item.controller not in names:
                raise ValueError(f"stack[{k}]: controller {item.controller!r} is not a player")
        for field_name in ("priority",):
            who = getattr(self, field_name)
            if who is not None and who not in names:
                raise ValueError(f"{field_name}: {who!r} is not a player")
        for who in self.passed:
            if who not in names:
                raise ValueError(f"passed: {who!r} is not a player")
        permanents = {p.id: p for p in self.permanents()}
        for k, item in enumerate(self.stack):
            if item.source is not None and item.source not in where and item.source not in self.gone:
                raise ValueError(f"stack[{k}]: the source {item.source!r} is no object")
            for t in item.targets:
                if t not in where and t not in names and t not in self.gone:
                    raise ValueError(f"stack[{k}]: target {t!r} is neither a player nor an object")
        for i, player in enumerate(self.players):
            for j, perm in enumerate(player.battlefield):
                place = f"players[{i}].battlefield[{j}]"
                if perm.controller is not None and perm.controller not in names:
                    raise ValueError(f"{place}: controller {perm.controller!r} is not a player")
                if perm.seen_controller is not None and perm.seen_controller not in names:
                    raise ValueError(f"{place}: seen_controller {perm.seen_controller!r} is not a player")
                if perm.attached_to is not None:
                    if perm.attached_to not in permanents and perm.attached_to not in names:
                        raise ValueError(f"{place}: attached to {perm.attached_to!r}, which is not on the battlefield")
                    if perm.attached_to == perm.id:
                        raise ValueError(f"{place}: a permanent can't be attached to itself")
                if perm.attacking is not None and perm.attacking not in names and perm.attacking not in where:
                    # a planeswalker that left the battlefield is in another zone (CR 506.4c)
                    raise ValueError(f"{place}: attacking {perm.attacking!r}, which is neither a player nor an object")
                for a in perm.blocking:
                    if a not in permanents:
                        raise ValueError(f"{place}: blocking {a!r}, which is not on the battlefield")
                    if permanents[a].attacking is None:
                        raise ValueError(f"{place}: blocking {a!r}, which is not attacking")
        for k, effect in enumerate(self.effects):
            try:
                _effect_origin(effect)
            except ValueError as exc:
                raise ValueError(f"effects[{k}]: {exc}") from None
            for t in effect.targets:
                if t not in permanents and t not in names:
                    raise ValueError(f"effects[{k}]: target {t!r} is not on the battlefield")
        # CR 613.6g: objects that received their timestamps at once (entering the battlefield
        # or becoming attached simultaneously) may share one; an effect's is its own
        stamps = {p.timestamp for p in self.permanents() if p.timestamp is not None}
        effect_stamps = [e.timestamp for e in self.effects if e.timestamp is not None]
        if len(set(effect_stamps)) != len(effect_stamps) or stamps & set(effect_stamps):
            raise ValueError("two objects or effects have the same timestamp")
        return self

    @model_validator(mode="before")
    @classmethod
    def _assign_ids(cls, value: Any) -> Any:
        """Give every object without an id one made from its card name (``grizzly_bears_2``)."""
        if not isinstance(value, dict) or not isinstance(value.get("players"), list):
            return value
        _check_size(value)
        taken: set[str] = set()
        last: dict[str, int] = {}  # per base: the number of the last id given (ids are only added to taken)

        def fresh(base: str) -> str:
            n = last.get(base, 1)
            candidate = base if n == 1 else f"{base}_{n}"
            while candidate in taken:
                n += 1
                candidate = f"{base}_{n}"
            last[base] = n
            taken.add(candidate)
            return candidate

        for player in value["players"]:
            if not isinstance(player, dict):
                continue
            for zone in ZONES:
                objs = player.get(zone)
                for obj in objs if isinstance(objs, list) else []:
                    if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                        taken.add(obj["id"])
        given = value.get("stack")
        items: list[Any] = given if isinstance(given, list) else []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                taken.add(item["id"])
        players = []
        for player in value["players"]:
            if not isinstance(player, dict):
                players.append(player)
                continue
            player = dict(player)
            for zone in ZONES:
                objs = player.get(zone)
                if not isinstance(objs, list):
                    continue
                new = []
                for obj in objs:
                    if isinstance(obj, str):
                        obj = {"card": obj}
                    if isinstance(obj, dict) and obj.get("id") is None and isinstance(obj.get("card"), str):
                        obj = {**obj, "id": fresh(slug(obj["card"]) or "object")}
                    new.append(obj)
                player[zone] = new
            players.append(player)
        stack = []
        for item in items:
            if isinstance(item, str):
                item = {"card": item}
            if isinstance(item, dict) and item.get("id") is None:
                base = slug(str(item.get("card") or f"{item.get('source')}_ability")) or "object"
                item = {**item, "id": fresh(base)}
            stack.append(item)
        out = {**value, "players": players}
        if "stack" in value and (value["stack"] is None or isinstance(value["stack"], list)):
            out["stack"] = stack  # an empty `stack:` is no stack; anything else stays, for validation to name
        return out

    # ------------------------------------------------------------------ queries
    def player(self, name: str) -> Player:
        """The player called ``name``."""
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    def opponent(self, name: str) -> str:
        """The other player's name."""
        return next(p.name for p in self.players if p.name != name)

    def permanents(self) -> list[Permanent]:
        """Every permanent on the battlefield, in listing order."""
        return [perm for p in self.players for perm in p.battlefield]

    def seen_controller_of(self, perm: Permanent) -> str:
        """The controller the game saw last (CR 302.6): as recorded, else the listed one."""
        return perm.seen_controller if perm.seen_controller is not None else self.controller_of(perm)

    def controller_of(self, perm: Permanent) -> str:
        """The player who controls a permanent."""
        if perm.controller is not None:
            return perm.controller
        return next(p.name for p in self.players if any(x is perm for x in p.battlefield))

    def permanent(self, object_id: str) -> Permanent:
        """The permanent with this id."""
        for perm in self.permanents():
            if perm.id == object_id:
                return perm
        raise KeyError(object_id)

    def object_ids(self) -> set[str]:
        """The ids of all objects in all zones, the stack included."""
        return {o.id for p in self.players for z in ZONES for o in getattr(p, z) if o.id} | {
            s.id for s in self.stack if s.id
        }

    def used_ids(self) -> set[str]:
        """Every id in use or used: objects, abilities waiting to trigger or to go on the
        stack, and objects that ceased to exist (a new object takes none of them)."""
        waiting = {t.id for t in [*self.pending_triggers, *self.delayed_triggers, *self.awaiting_targets] if t.id}
        return self.object_ids() | waiting | set(self.gone)

    def priority_player(self) -> str:
        """Who has priority now (CR 116.3): as recorded, else the active player."""
        return self.priority or self.active

    def stack_object(self, object_id: str) -> StackObject:
        """The spell or ability on the stack with this id."""
        for item in self.stack:
            if item.id == object_id:
                return item
        raise KeyError(object_id)
