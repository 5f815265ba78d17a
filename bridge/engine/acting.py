"""Judging what a player does with priority: casting a spell (601.2), activating an ability
(602.2) or a mana ability (605.3), playing a land (305), passing (115.3d), choosing the
targets of a triggered ability as it goes on the stack (603.3d); the legal targets of an
object and the choices of targets a player has; the card whose text a permanent has (706.2).
The rules judge (asp_rules/stack/cast.lp, mana.lp, targets.lp); this module puts the
question and reads the verdict.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field

import clingo

from bridge.engine.board import Board, priority_step
from bridge.engine.facts import Position, asp_string, stack_object_facts
from bridge.engine.solver import Session, answer, atoms, kept, make_room
from bridge.engine.verdict import Verdict, Violation
from bridge.model.actions import Activate, AnswerOffer, Cast, ChooseTargets, Pass, PlayLand, TurnFaceUp
from bridge.model.cards import Card, TargetSpec
from bridge.model.errors import InputError, UnsupportedCardError
from bridge.model.state import CardRef, GameState, StackObject, fresh_id

ACTING = (
    "combat/common",
    "characteristics/players",
    "turn/priority",
    "stack/objects",
    "stack/targets",
    "stack/cast",
    "stack/mana",
)


# ---------------------------------------------------------------------- finding what a player names
def actor(state: GameState, by: str | None, where: str) -> str:
    names = [p.name for p in state.players]
    if by is not None and by not in names:
        raise InputError(f"{by!r} is not a player", location=f"{where}.by")
    return by or state.priority_player()


def in_hand(state: GameState, player: str, card: str, where: str) -> CardRef:
    """The card a player names in his or her hand: by id, else by card name."""
    return in_zone(state, player, card, where, "hand")


def in_zone(state: GameState, player: str, card: str, where: str, zone: str) -> CardRef:
    """The card a player names in one of his or her zones: by id, else by card name."""
    hand: list[CardRef] = getattr(state.player(player), zone)
    for obj in hand:
        if obj.id == card:
            return obj
    for obj in hand:
        if obj.card.lower() == card.lower():
            return obj
    raise InputError(
        f"{card!r} is not in {player}'s {zone} ({zone}: {', '.join(o.card for o in hand) or 'empty'})", location=where
    )


# ---------------------------------------------------------------------- casting and activating
def acting_facts(game: Board, item: StackObject, marker: str, pay: list[str] | None) -> str:
    """The position's facts with the attempt to put ``item`` on the stack (``marker``: casting,
    activating...) and the permanents named to pay."""
    return game.position.facts + "\n" + "\n".join(attempt_lines(game, item, marker, pay))


def attempt_lines(game: Board, item: StackObject, marker: str, pay: list[str] | None) -> list[str]:
    """The facts of an attempt to put ``item`` on the stack (:func:`acting_facts`)."""
    used: dict[str, Card] = {}
    cards = dict(game.position.cards)
    if item.card is not None and item.id is not None and item.id not in cards:
        cards[item.id] = game.pool.get(item.card)
    lines = stack_object_facts(game.state, item, 0, cards, used, game.pool)
    lines += [fact for card in used.values() for fact in card.facts()]
    lines.append(f"{marker}({asp_string(item.id or '')}).")
    lines += [f"declared_pay({asp_string(s)})." for s in pay or []]
    return lines


def judge(
    game: Board, item: StackObject, marker: str, pay: list[str] | None, extra: Iterable[str] = ()
) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    for s in pay or []:
        game._require_object(s, "pay")  # a card in a zone too: the rules judge it (605.5b)
    lines = [*attempt_lines(game, item, marker, pay), *extra]
    model = _open_judgement(game, item, marker, pay, lines)
    if model is None:
        model = answer(game.modules(*ACTING), "\n".join([game.position.facts, *lines])).model
    return game.reader.verdict(model), model


# The frames of the attempts judged last (a position and all the choices of an attempt but
# those a search varies: the targets, the controller, the permanents tapped to pay; the land
# played, the mana ability activated, by whom), with the attempts met and, from the second
# distinct one, the frame's grounding with those choices left open: the frame's later attempts
# are judged on that one grounding.
Label = tuple[object, ...]


@dataclass
class _Frame:
    tried: set[Hashable] = field(default_factory=set)  # the attempts met before it is grounded
    facts: str = ""  # the fixed facts and the open atoms (external, free)
    opened: list[tuple[clingo.Symbol, Label]] = field(default_factory=list)
    present: list[bool] = field(default_factory=list)  # whether each is an atom of the grounding


_FRAMES: dict[tuple[object, ...], _Frame] = kept({})
_FRESH_MEETINGS = 1  # the attempts of a frame judged on a grounding of their own


def _framed(
    game: Board,
    lines: list[str],
    opened: Callable[[], list[tuple[clingo.Symbol, Label]]],
    chosen: Callable[[Label], bool],
    attempt: Hashable,
    key: tuple[object, ...] = (),
) -> frozenset[clingo.Symbol] | None:
    """The answer of an attempt on the grounding of its frame: the position's facts and
    ``lines``, with the atoms ``opened`` gives (each with a label) left open and set true when
    ``chosen`` says so of their label (``key`` tells the frames apart with the objects the
    atoms name).  None until a second attempt (``attempt``, the choices it makes) of the frame
    is met: one grounding of the attempt costs less then."""
    frame_key = (game.position.facts, *key, *lines)
    frame = _FRAMES.pop(frame_key, None) or _Frame()
    make_room(_FRAMES, 64)
    _FRAMES[frame_key] = frame
    if not frame.facts:
        frame.tried.add(attempt)
        if len(frame.tried) <= _FRESH_MEETINGS:
            return None  # the same attempt again is answered from what was kept
        frame.opened = opened()
        frame.facts = "\n".join([game.position.facts, *lines, *(f"#external {a}. [free]" for a, _ in frame.opened)])
    session = Session.shared(game.modules(*ACTING), frame.facts)
    if not frame.present:
        # an open atom that no kept rule reads is left out of the grounding, as its fact would be
        frame.present = session.present([a for a, _ in frame.opened])
    return session.solve(
        signed=[(atom, chosen(label)) for (atom, label), here in zip(frame.opened, frame.present) if here]
    ).model


_OPEN_MARKERS = frozenset({"casting", "activating"})


def _open_judgement(
    game: Board, item: StackObject, marker: str, pay: list[str] | None, lines: list[str]
) -> frozenset[clingo.Symbol] | None:
    """A cast or an activation (``lines``: the facts of the attempt) judged on its frame
    (:func:`_framed`): its targets (one slot more than the text asks for), its controller and
    the permanents named to pay left open, so that the attempts that differ only in those (a
    search trying each target, each player, each way to pay) share one grounding.  None for an
    attempt outside what the frame leaves open (a target in a library, a card named to pay)."""
    if marker not in _OPEN_MARKERS or item.id is None:
        return None
    state = game.state
    players = [p.name for p in state.players]
    permanents = [p.id or "" for p in state.permanents()]
    universe = [
        *players,
        *permanents,
        *(s.id or "" for s in state.stack),
        *(c.id or "" for p in state.players for zone in ("hand", "graveyard", "exile") for c in getattr(p, zone)),
    ]
    slots = len(spec_targets(game, item)) + 1
    controller = item.controller or state.active
    if (
        len(item.targets) > slots
        or not set(item.targets) <= set(universe)
        or not set(pay or []) <= set(permanents)
        or controller not in players
    ):
        return None
    o = asp_string(item.id)
    # the attempt's facts but those of its targets, controller and payment
    chosen = (f"stack_target({o},", f"stack_controller({o},", "declared_pay(")
    fixed = [x for x in lines if not x.startswith(chosen)]
    oid = clingo.String(item.id)

    def opened() -> list[tuple[clingo.Symbol, Label]]:
        return [
            *(
                (clingo.Function("stack_target", [oid, clingo.Number(i), clingo.String(t)]), (i, t))
                for i in range(1, slots + 1)
                for t in universe
            ),
            *((clingo.Function("stack_controller", [oid, clingo.String(p)]), ("controller", p)) for p in players),
            *((clingo.Function("declared_pay", [clingo.String(s)]), ("pay", s)) for s in permanents),
        ]

    named: set[Label] = {
        *enumerate(item.targets, start=1),
        ("controller", controller),
        *(("pay", s) for s in pay or []),
    }
    attempt = (tuple(item.targets), controller, tuple(pay or []))
    return _framed(game, fixed, opened, named.__contains__, attempt, (slots, *universe))


def cast_object(game: Board, action: Cast) -> StackObject:
    """The spell a cast action would put on the stack (CR 601.2a)."""
    player = actor(game.state, action.by, "cast")
    zone = "graveyard" if action.flashback else "hand"
    card = in_zone(game.state, player, action.card, "cast.card", zone)
    spec = game.pool.get(card.card)
    if (
        {"instant", "sorcery"} & set(spec.types)
        and not spec.resolve
        and not spec.modes
        and not (spec.effect and spec.targets)
    ):
        raise UnsupportedCardError(
            f"what {spec.name} does is not in the card vocabulary yet (its text: {spec.text.strip()!r})",
            location="cast.card",
        )
    for t in action.targets:
        game._require_object(t, "cast.targets")
    divide = action.divide
    amount = spec.divided_amount()
    if divide is None and amount is not None and action.targets:
        # the player's choice by default: as even as possible, the first targets getting more
        share, more = divmod(amount, len(action.targets))
        divide = [share + (1 if i < more else 0) for i in range(len(action.targets))]
    return StackObject(
        id=card.id,
        card=card.card,
        controller=player,
        targets=list(action.targets),
        divide=divide,
        x=action.x,
        mode=action.mode,
        kicked=action.kicked,
        buyback=action.buyback,
        flashback=action.flashback,
        entwined=action.entwined,
        face_down=action.face_down,
        spliced=[in_zone(game.state, player, x, "cast.splice", "hand") for x in action.splice],
    )


def check_cast(game: Board, action: Cast) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """Is casting this spell legal now (CR 601.2, 115.1a)?"""
    item = cast_object(game, action)
    for s in action.sacrifice:
        game._require_permanent_at(s, "cast.sacrifice")
    extra = [f"declared_sacrifice({asp_string(item.id or '')}, {asp_string(s)})." for s in action.sacrifice]
    if action.mode_by is not None:  # CR 601.3: the player who chose the mode
        if action.mode_by not in {p.name for p in game.state.players}:
            raise InputError(f"{action.mode_by!r} is not a player", location="cast.mode_by")
        extra.append(f"declared_mode_by({asp_string(item.id or '')}, {asp_string(action.mode_by)}).")
    return judge(game, item, "casting", action.pay, extra)


def ways_to_pay(game: Board, action: Cast | Activate | AnswerOffer) -> list[list[str]]:
    """CR 601.2g, 608.2f: the ways to pay the whole cost of a cast or an activation with all
    its choices made, or of the payment a resolving object offers, each as the sources it taps
    (for ``pay``): one for each set of mana abilities it leaves untapped (of sources alike,
    the ones with the smallest ids).  The rules enumerate them (stack/mana.lp, program part
    ``judged_ways``); none when the cost can't be paid (or is paid from the pool alone)."""
    action = action.model_copy(update={"pay": None})
    if isinstance(action, AnswerOffer):
        offer = game.state.awaiting_payment
        if offer is None:
            return []
        player = action.by or offer.player
        facts = game.position.facts + f"\npaying_offer({asp_string(offer.object)}, {asp_string(player)})."
    else:
        item = cast_object(game, action) if isinstance(action, Cast) else activate_object(game, action)
        marker = "casting" if isinstance(action, Cast) else "activating"
        extra = [f"declared_sacrifice({asp_string(item.id or '')}, {asp_string(s)})." for s in action.sacrifice]
        facts = acting_facts(game, item, marker, None) + "\n" + "\n".join(extra)
    session = Session(game.modules(*ACTING), facts, [("judged_ways", ())])
    ways: list[list[str]] = []
    for model in session.solve(models=0, project=True, opt_mode="ignore").models:
        kinds: dict[str, list[str]] = {}
        for s in atoms(model, "way_source", 2):
            kinds.setdefault(s.arguments[1].string, []).append(s.arguments[0].string)
        way = sorted(
            source
            for s in atoms(model, "way_kind", 2)
            for source in sorted(kinds[s.arguments[0].string])[: s.arguments[1].number]
        )
        if way and way not in ways:
            ways.append(way)
    return sorted(ways)


def activate_object(game: Board, action: Activate) -> StackObject:
    """The ability an activate action would put on the stack (CR 602.2a)."""
    player = actor(game.state, action.by, "activate")
    game._require_permanent_at(action.source, "activate.source")
    for t in action.targets:
        game._require_object(t, "activate.targets")
    number = action.ability or 1
    card = permanent_card(game, action.source)
    if not action.mana and number > len(card.activated):
        raise InputError(
            f"{card.name} has no activated ability {number} (it has {len(card.activated)})", location="activate.ability"
        )
    oid = fresh_id(f"{action.source}_ability", game.state.used_ids())
    copied = None if card.id == game.position.card(action.source).id else card.name
    return StackObject(
        id=oid,
        source=action.source,
        ability=number,
        controller=player,
        targets=list(action.targets),
        x=action.x,
        copied_from=copied,
    )


def check_activate(game: Board, action: Activate) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """Is activating this ability legal now (CR 602.2, 602.5, 606.3, 605.3a)?"""
    if action.mana:
        return check_mana_ability(game, action)
    item = activate_object(game, action)
    for s in action.sacrifice:
        game._require_permanent_at(s, "activate.sacrifice")
    extra = [f"declared_sacrifice({asp_string(item.id or '')}, {asp_string(s)})." for s in action.sacrifice]
    # CR 602.2b: the cards discarded and the exiled card put into a graveyard to pay the cost
    extra += [f"declared_discard({asp_string(item.id or '')}, {asp_string(x)})." for x in action.discard]
    if action.exiled is not None:
        extra.append(f"declared_exiled({asp_string(item.id or '')}, {asp_string(action.exiled)}).")
    players = {p.name for p in game.state.players}
    if len(action.targets_by) > len(action.targets):
        raise InputError("targets_by names more choosers than there are targets", location="activate.targets_by")
    for i, chooser in enumerate(action.targets_by, start=1):  # CR 602.3: who chose each target
        if chooser not in players:
            raise InputError(f"{chooser!r} is not a player", location="activate.targets_by")
        extra.append(f"declared_target_by({asp_string(item.id or '')}, {i}, {asp_string(chooser)}).")
    return judge(game, item, "activating", action.pay, extra)


def others_choices(game: Board, action: Cast | Activate) -> tuple[bool, frozenset[int]]:
    """The parts of a cast or an activation another player than its controller chooses, as the
    rules show them (CR 601.3, 602.3: "an opponent chooses one", a target "of an opponent's
    choice"): whether the mode is, and the positions (from 1) of the targets that are.  Asked
    only of a card whose text gives such a choice (the rules' answer is the judgement the
    action gets anyway when it is taken)."""
    if isinstance(action, Cast):
        zone = "graveyard" if action.flashback else "hand"
        player = actor(game.state, action.by, "cast")
        spec = game.pool.get(in_zone(game.state, player, action.card, "cast.card", zone).card)
        specs = [*spec.targets, *(t for m in spec.modes for t in m.targets)]
        if spec.modes_chosen_by is None and not any(t.opponent_chooses for t in specs):
            return False, frozenset()
        model = check_cast(game, action)[1]
    else:
        abilities = permanent_card(game, action.source).activated
        if action.mana or not any(t.opponent_chooses for a in abilities for t in a.targets):
            return False, frozenset()
        player = actor(game.state, action.by, "activate")
        model = check_activate(game, action)[1]
    mode = any(s.arguments[1].string != player for s in atoms(model, "mode_chooser", 2))
    targets = frozenset(
        s.arguments[1].number for s in atoms(model, "target_chooser", 3) if s.arguments[2].string != player
    )
    return mode, targets


MANA_LETTERS = {"white": "w", "blue": "u", "black": "b", "red": "r", "green": "g", "colorless": "c"}
MANA_COLORS = {letter: color for color, letter in MANA_LETTERS.items()}


def check_mana_ability(game: Board, action: Activate) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 605.3a: a mana ability of an untapped permanent its activator controls, by a player
    with priority, naming the color of the mana when its abilities make several (the rules
    judge it and say what mana it adds)."""
    player = actor(game.state, action.by, "activate")
    game._require_permanent_at(action.source, "activate.source")
    color = MANA_LETTERS[action.color] if action.color is not None else "unnamed"
    state = game.state

    def opened() -> list[tuple[clingo.Symbol, Label]]:
        return [
            (clingo.Function("activating_mana", [clingo.String(s), clingo.String(p), clingo.Function(c)]), (s, p, c))
            for s in (perm.id or "" for perm in state.permanents())
            for p in (p.name for p in state.players)
            for c in (*MANA_LETTERS.values(), "unnamed")
        ]

    # the mana abilities of every permanent, by every player, with every color left open
    ids = [*(p.name for p in state.players), *(perm.id for perm in state.permanents())]
    attempt = (action.source, player, color)
    model = _framed(game, [], opened, attempt.__eq__, attempt, ("activating_mana", *ids))
    if model is None:
        facts = game.position.facts + f"\nactivating_mana({asp_string(action.source)}, {asp_string(player)}, {color})."
        model = answer(game.modules(*ACTING), facts).model
    return game.reader.verdict(model), model


# ---------------------------------------------------------------------- turning face up
def check_turn_face_up(game: Board, action: TurnFaceUp) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 702.34d: may this player turn this face-down permanent face up now, paying its
    morph cost (the rules judge it and the payment)?"""
    player = actor(game.state, action.by, "turn_face_up")
    game._require_permanent_at(action.permanent, "turn_face_up.permanent")
    for s in action.pay or []:
        game._require_permanent_at(s, "pay")
    facts = (
        game.position.facts
        + f"\nturning_face_up({asp_string(action.permanent)}, {asp_string(player)})."
        + "".join(f"\ndeclared_pay({asp_string(s)})." for s in action.pay or [])
    )
    model = answer(game.modules(*ACTING), facts).model
    return game.reader.verdict(model), model


# ---------------------------------------------------------------------- lands
def check_play_land(game: Board, action: PlayLand) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 115.1c, 305.1-305.3: may this player play this land now?"""
    player = actor(game.state, action.by, "play_land")
    card = in_hand(game.state, player, action.card, "play_land.card")
    state = game.state

    def opened() -> list[tuple[clingo.Symbol, Label]]:
        return [
            (clingo.Function("playing_land", [clingo.String(c.id or ""), clingo.String(p)]), (c.id, p))
            for c in (c for q in state.players for c in q.hand)
            for p in (p.name for p in state.players)
        ]

    # every card in a hand played by every player left open
    ids = [*(p.name for p in state.players), *(c.id for p in state.players for c in p.hand)]
    attempt = (card.id, player)
    model = _framed(game, [], opened, attempt.__eq__, attempt, ("playing_land", *ids))
    if model is None:
        facts = game.position.facts + f"\nplaying_land({asp_string(card.id or '')}, {asp_string(player)})."
        model = answer(game.modules(*ACTING), facts).model
    return game.reader.verdict(model), model


# ---------------------------------------------------------------------- priority
def check_pass(game: Board, action: Pass) -> Verdict:
    """CR 115.3d: only the player with priority passes."""
    player = actor(game.state, action.by, "pass")
    # a turn-based action still to be done is done first by its default (after_pass): the
    # pass is then that of the player who receives priority
    receives = priority_step(game)
    if player == game.state.priority_player() and receives:
        return Verdict(legal=True)
    violation = Violation(
        rule="115.3d",
        objects=(player,),
        reason="no_priority",
        step_rule="115.1",
        message=f"{player} doesn't have priority ({game.state.priority_player()} has)"
        if receives
        else f"{player} doesn't have priority (nobody has priority in the {game.state.step} step)",
        world="declared",
    )
    return Verdict(legal=False, violations=(violation,))


# ---------------------------------------------------------------- targets
def legal_targets(game: Board, item: StackObject, marker: str) -> tuple[dict[int, list[str]], bool, bool]:
    """Every legal target of each of the object's targets; whether it is otherwise legal
    (timing, costs); and, for a triggered ability being put on the stack, whether the rules
    remove it (CR 603.3d): one question, every candidate put in as a chosen target."""
    state = game.state
    candidates = (
        [p.id for p in state.permanents()]
        + [p.name for p in state.players]
        + [s.id for s in state.stack]
        + [c.id for p in state.players for c in p.graveyard]
    )
    trial = item.model_copy(update={"targets": []})
    facts = acting_facts(game, trial, marker, None)
    oid = asp_string(item.id or "")
    slots = len(spec_targets(game, item))
    facts += "\n" + "\n".join(
        f"stack_target({oid}, {i}, {asp_string(c or '')})." for i in range(1, slots + 1) for c in candidates
    )
    model = answer(game.modules(*ACTING), facts).model
    legal: dict[int, list[str]] = {i: [] for i in range(1, slots + 1)}
    for s in atoms(model, "legal_target", 3):
        if s.arguments[0].string == item.id:
            legal[s.arguments[1].number].append(s.arguments[2].string)
    other = [s for s in atoms(model, "violation", 3) if s.arguments[1].name not in _TARGET_REASONS]
    removed = bool(atoms(model, "trigger_removed", 1))
    return {i: sorted(v) for i, v in legal.items()}, not other, removed


_TARGET_REASONS = frozenset(
    {
        "missing_target",
        "illegal_target",
        "extra_target",
        "target_itself",
        "target_shroud",
        "target_protection",
        "same_target_twice",
        "sacrifice_cost_missing",
        # CR 601.2d: the division among the targets is announced with them (none is here)
        "division_share_below_one",
        "division_not_for_each_target",
        "division_total",
    }
)


# CR 702.36a: provoke's target, "target creature defending player controls"
PROVOKE_TARGET = TargetSpec.model_validate({"quality": "creature", "controller": "opponent"})


def spec_targets(game: Board, item: StackObject) -> list[TargetSpec]:
    """The targets the text of a spell or ability asks for (CR 601.2c, 602.2b, 603.3d)."""
    if item.keyword == "provoke":
        return [PROVOKE_TARGET]
    if item.keyword is not None or item.delayed is not None:
        return []
    if item.card is not None:
        card = game.pool.get(item.card)
        if item.mode is not None:
            own = list(card.modes[item.mode - 1].targets)
        elif item.entwined and card.modes:
            # CR 702.39a-b: an entwined spell's targets are those of each of its modes, in order
            own = [t for mode in card.modes for t in mode.targets]
        else:
            own = list(card.spell_targets())
        # CR 702.44d: then the targets of each card spliced onto it
        return own + [t for ref in item.spliced for t in game.pool.get(ref.card).spell_targets()]
    card = ability_card(game, item)
    if item.trigger is not None:
        trigger = card.triggered[item.trigger - 1]
        if item.mode is not None and trigger.modes:  # CR 603.3c: the mode chosen
            return list(trigger.modes[item.mode - 1].targets)
        return list(trigger.targets)
    return list(card.activated[(item.ability or 1) - 1].targets)


def target_choices(
    game: Board, item: StackObject, marker: str, known: tuple[dict[int, list[str]], bool, bool] | None = None
) -> Iterator[list[str]]:
    """The choices of targets: each slot's legal targets; "up to" slots may be left out at the
    end (CR 601.2c); slots sharing one word "target" take different ones (113.3).  None when
    the object is illegal otherwise (timing, costs)."""
    legal, otherwise_ok, _ = known or legal_targets(game, item, marker)
    if not otherwise_ok:
        return
    specs = spec_targets(game, item)
    slots = [legal[i] for i in sorted(legal)]
    required = len(slots)
    while required and getattr(specs[required - 1], "up_to", False):
        required -= 1
    # the first slot of each slot's word "target": "up to three target creatures" is one word
    word = [0] * len(slots)
    for i in range(1, len(slots)):
        word[i] = word[i - 1] if getattr(specs[i], "same_word", False) else i
    for n in range(required, len(slots) + 1):
        if any(not s for s in slots[:n]):
            continue
        for combo in itertools.product(*slots[:n]):
            if any(combo[i] in combo[word[i] : i] for i in range(1, n)):
                continue
            yield list(combo)


def trigger_choices(game: Board) -> list[ChooseTargets]:
    """The legal choices of the triggered ability waiting for them: for a modal one whose mode
    is still to be chosen, each mode that can be chosen (CR 603.3c) with each legal choice of
    its targets, else each legal choice of targets (603.3d); the default first (the first
    mode, then the default targets)."""
    item = game.state.awaiting_targets[0]
    modes = choosable_modes(game, item) if item.mode is None else None
    if modes is None:
        return [
            ChooseTargets(ability=item.id or "", targets=t, by=item.controller)
            for t in trigger_target_choices(game, item)
        ]
    return [
        ChooseTargets(ability=item.id or "", targets=t, mode=moded.mode, by=item.controller)
        for moded in modes
        for t in trigger_target_choices(game, moded)
    ]


def choosable_modes(game: Board, item: StackObject) -> list[StackObject] | None:
    """CR 603.3c: the modes of a modal triggered ability that can be chosen as it is put on
    the stack, each as the ability with that mode; a mode whose targets have no legal choice
    can't be (the rules remove it, 603.3d).  None for an ability without modes."""
    if item.trigger is None or item.keyword is not None or item.delayed is not None:
        return None
    modes = ability_card(game, item).triggered[item.trigger - 1].modes
    if not modes:
        return None
    out = []
    for n in range(1, len(modes) + 1):
        candidate = item.model_copy(update={"mode": n})
        if not spec_targets(game, candidate) or not legal_targets(game, candidate, "putting_trigger")[2]:
            out.append(candidate)
    return out


def trigger_target_choices(game: Board, item: StackObject | None = None) -> list[list[str]]:
    """The legal choices of targets of a triggered ability being put on the stack (by default
    the one waiting for them; CR 603.3d), the default choice first: for each target an
    opponent's object or the opponent before the player's own, then by id."""
    state = game.state
    item = item or state.awaiting_targets[0]
    choices = list(target_choices(game, item, "putting_trigger"))
    mine = item.controller or state.active

    def ours(target: str) -> bool:
        if target in {p.name for p in state.players}:
            return target == mine
        perm = next((p for p in state.permanents() if p.id == target), None)
        return perm is not None and state.controller_of(perm) == mine

    return sorted(choices, key=lambda c: [(ours(t), t) for t in c])


def check_choose_targets(game: Board, action: ChooseTargets) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 603.3d, 601.2c: the targets of the triggered ability waiting for them, chosen by
    its controller: the rules judge them."""
    state = game.state
    waiting = state.awaiting_targets[0] if state.awaiting_targets else None
    player = (
        actor(state, action.by, "choose_targets")
        if action.by
        else (waiting.controller if waiting is not None and waiting.controller else state.active)
    )
    if waiting is None or waiting.id != action.ability or player != (waiting.controller or state.active):
        words = f"{game.describe(action.ability)} is not a triggered ability waiting for {player} to choose its targets"
        violation = Violation(
            rule="603.3d",
            objects=(action.ability,),
            message=words,
            reason="not_awaiting_targets",
            step_rule="603.3",
            world="declared",
        )
        return Verdict(legal=False, violations=(violation,)), frozenset()
    for t in action.targets:
        game._require_object(t, "choose_targets.targets")
    item = waiting.model_copy(update={"targets": list(action.targets)})
    modes = ability_card(game, waiting).triggered[(waiting.trigger or 1) - 1].modes if waiting.trigger else []
    if action.mode is not None and (waiting.mode is not None or action.mode > len(modes)):
        have = f"its mode is chosen ({waiting.mode})" if waiting.mode else f"it has {len(modes)} modes"
        raise InputError(
            f"mode {action.mode}: {game.describe(action.ability)} can't take it ({have})",
            location="choose_targets.mode",
        )
    if waiting.mode is None and modes:
        if action.mode is None:
            violation = Violation(
                rule="603.3c",
                objects=(action.ability,),
                message=f"{game.describe(action.ability)} is modal: its controller chooses a mode with its targets",
                reason="mode_not_chosen",
                step_rule="603.3",
                world="declared",
            )
            return Verdict(legal=False, violations=(violation,)), frozenset()
        item = item.model_copy(update={"mode": action.mode})
    return judge(game, item, "putting_trigger", None)


def check_answer_offer(game: Board, action: AnswerOffer) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """CR 608.2f: the player a resolving object offers a payment answers: not paying is always
    open; paying is judged as a cost (the rules say whether the mana can pay it)."""
    state = game.state
    offer = state.awaiting_payment
    player = actor(state, action.by, "answer_offer") if action.by else (offer.player if offer else state.active)
    if offer is None or player != offer.player:
        words = f"nothing waits for {player} to choose whether to pay"
        violation = Violation(
            rule="608.2f",
            objects=(player,),
            message=words,
            reason="not_awaiting_offer",
            step_rule="608.2",
            world="declared",
        )
        return Verdict(legal=False, violations=(violation,)), frozenset()
    if not action.pays:
        return Verdict(legal=True), frozenset()
    for s in action.pay or []:
        game._require_object(s, "answer_offer.pay")
    lines = [f"paying_offer({asp_string(offer.object)}, {asp_string(player)})."]
    lines += [f"declared_pay({asp_string(s)})." for s in action.pay or []]
    model = answer(game.modules(*ACTING), game.position.facts + "\n" + "\n".join(lines)).model
    return game.reader.verdict(model), model


def awaiting_flow_violation(game: Board) -> Verdict | None:
    """CR 603.3b, 603.3d: while a triggered ability waits for its controller to choose its
    targets, nobody acts before it is on the stack; CR 608.2f: while a resolving object waits
    for a player's answer to its offer, nobody acts before it."""
    state = game.state
    if state.awaiting_payment is not None:
        offer = state.awaiting_payment
        violation = Violation(
            rule="608.2f",
            objects=(offer.object,),
            message=f"{offer.player} first chooses whether to pay what {game.describe(offer.object)} offers",
            reason="awaiting_offer",
            step_rule="608.2",
            world="declared",
        )
        return Verdict(legal=False, violations=(violation,))
    if not state.awaiting_targets:
        return None
    item = state.awaiting_targets[0]
    who = item.controller or state.active
    words = f"{who} first chooses the targets of {item.label()} as it is put on the stack"
    violation = Violation(
        rule="603.3d",
        objects=(item.id or "",),
        message=words,
        reason="awaiting_targets",
        step_rule="603.3b",
        world="declared",
    )
    return Verdict(legal=False, violations=(violation,))


def default_offer_answer(game: Board) -> AnswerOffer | None:
    """The default answer to a resolving object's offer of a payment, if one waits: not to pay."""
    offer = game.state.awaiting_payment
    return None if offer is None else AnswerOffer(by=offer.player, pays=False)


def default_target_choice(game: Board) -> ChooseTargets | None:
    """The default choice of the triggered ability waiting for its targets, if one waits."""
    if not game.state.awaiting_targets:
        return None
    return trigger_choices(game)[0]


def ability_card(game: Board, item: StackObject) -> Card:
    """The card whose ability a stack object is: the source's own, or the card it copies
    (CR 706.2: a Clone has the copied card's abilities)."""
    if item.copied_from is not None:
        return game.pool.get(item.copied_from)
    return game.position.card(item.source or "")


def permanent_card(game: Board, object_id: str) -> Card:
    """The card whose text a permanent has: its own, or for a copy the card the rules say its
    copiable values come from (CR 706.2-706.3: ``text_card/2``; a Clone whose original has
    left keeps the card of the values it took)."""
    card = game.position.card(object_id)
    if "copies(" not in game.position.live and "ability, enters_as_copy" not in game.position.live:
        return card
    text = _text_cards(game).get(object_id)
    return game.pool.get(text) if text is not None and text != card.id else card


# the text cards of the permanents of the positions asked last, by position
_TEXT_CARDS: dict[int, tuple[Position, dict[str, str]]] = kept({})


def _text_cards(game: Board) -> dict[str, str]:
    """The card each permanent's text comes from, as the rules say (asked once a position)."""
    known = _TEXT_CARDS.get(id(game.position))
    if known is not None and known[0] is game.position:
        return known[1]
    cards = {oid: ch.text_card for oid, ch in game.all_characteristics().items() if ch.text_card is not None}
    if len(_TEXT_CARDS) >= 32:
        del _TEXT_CARDS[next(iter(_TEXT_CARDS))]
    _TEXT_CARDS[id(game.position)] = (game.position, cards)
    return cards
