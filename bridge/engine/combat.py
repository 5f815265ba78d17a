"""Combat as actions do it: a declaration of attackers or blockers judged and made (508.1,
509.1: tapping, costs, what triggers, 508.2, 509.4), and combat damage dealt as the rules
computed it (510.2: damage marked, life lost and gained, wither and loyalty), then
priority (510.3-510.4).
"""

from __future__ import annotations

import itertools
from typing import Literal

import clingo

from bridge.engine.board import DECLARED, Board, attack_facts, block_facts, check_fresh_model, priority_now
from bridge.engine.facts import asp_string
from bridge.engine.moves import exile_from_graveyard_instead, gain_or_draw
from bridge.engine.priority import give_priority
from bridge.engine.solver import atoms
from bridge.engine.triggers import damage_events, lifelink_events, triggers_on
from bridge.engine.updates import update_permanents, updated
from bridge.engine.verdict import Verdict
from bridge.model.actions import AssignDamage, DeclareAttackers, DeclareBlockers, OrderAttackers, OrderBlockers
from bridge.model.cards import CardPool
from bridge.model.state import GameState, Player

# the atoms of the rules' answer that deal_damage reads: an answer with none of them deals,
# prevents and replaces nothing
DEALT_ATOMS = frozenset(
    {
        "damage_marked",
        "wither_counters",
        "loyalty_after",
        "life_lost",
        "life_gained",
        "shield_left",
        "prevent_next_used",
        "deathtouch_damaged",
        "marks_struck_first",
        "graveyard_exile_instead",
        "graveyard_exile_impossible",
    }
)


def deal_damage(
    state: GameState, model: frozenset[clingo.Symbol], pool: CardPool | None = None
) -> tuple[GameState, set[str]]:
    """CR 510.2, 118.3: apply the results of the damage the rules computed; life gained through
    lifelink may be replaced (614.1a), and so may damage to a player (Nefarious Lich). Returns
    the state and the players whose life gain was replaced."""

    def amounts(name: str) -> dict[str, int]:
        return {s.arguments[0].string: s.arguments[1].number for s in atoms(model, name, 2)}

    marked, wither, loyalty = amounts("damage_marked"), amounts("wither_counters"), amounts("loyalty_after")
    lost, gained = amounts("life_lost"), amounts("life_gained")
    shields = amounts("shield_left")
    # CR 615.8: a "next time this source would deal damage" effect is used up
    used: dict[str, set[str]] = {}
    for s in atoms(model, "prevent_next_used", 2):
        used.setdefault(s.arguments[0].string, set()).add(s.arguments[1].string)
    deathtouched = {s.arguments[0].string for s in atoms(model, "deathtouch_damaged", 1)}
    struck_first = {s.arguments[0].string for s in atoms(model, "marks_struck_first", 1)}
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        assert perm.id is not None  # validation gives every object an id
        update: dict[str, object] = {}
        if perm.id in marked:
            update["damage"] = perm.damage + marked[perm.id]
        if perm.id in deathtouched:
            update["deathtouch_damage"] = True
        if perm.id in struck_first:
            update["struck_first"] = True
        if perm.id in shields:
            update["prevention_shield"] = shields[perm.id]
        if perm.id in used:
            update["prevent_next_from"] = [s for s in perm.prevent_next_from if s not in used[perm.id]]
            update["prevent_next_from_quality"] = {
                s: q for s, q in perm.prevent_next_from_quality.items() if s not in used[perm.id]
            }
            update["prevent_next_from_gains"] = [s for s in perm.prevent_next_from_gains if s not in used[perm.id]]
        counters = dict(perm.counters)
        if perm.id in wither:
            counters["-1/-1"] = counters.get("-1/-1", 0) + wither[perm.id]
        if perm.id in loyalty:
            counters["loyalty"] = max(loyalty[perm.id], 0)
        if counters != perm.counters:
            update["counters"] = counters
        if update:
            changes[perm.id] = update
    state = update_permanents(state, changes)
    players = [
        p.model_copy(
            update={
                "life": p.life - lost.get(p.name, 0),
                "prevention_shield": shields.get(p.name, p.prevention_shield),
                "prevent_next_from": [s for s in p.prevent_next_from if s not in used.get(p.name, set())],
                "prevent_next_from_quality": {
                    s: q for s, q in p.prevent_next_from_quality.items() if s not in used.get(p.name, set())
                },
                "prevent_next_from_gains": [s for s in p.prevent_next_from_gains if s not in used.get(p.name, set())],
            }
        )
        for p in state.players
    ]
    state = state.model_copy(update={"players": players})
    state = exile_from_graveyard_instead(
        state,
        amounts("graveyard_exile_instead"),
        pool,
        unable={s.arguments[0].string for s in atoms(model, "graveyard_exile_impossible", 1)},
    )
    state, replaced = (
        gain_or_draw(pool, state, gained)
        if pool is not None
        else (
            state.model_copy(
                update={
                    "players": [p.model_copy(update={"life": p.life + gained.get(p.name, 0)}) for p in state.players]
                }
            ),
            set(),
        )
    )
    return GameState.model_validate(state.model_copy(update={"combat_damage_dealt": True}).model_dump()), replaced


def pay_attack_costs(state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 508.1g-i: pay the locked-in total from the mana pool, then by tapping untapped mana
    sources in the order they are listed (the engine's default choice of sources)."""
    return _pay_costs(state, state.active, model, "attack_cost_total", "usable_source")


def pay_block_costs(state: GameState, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 509.1d-f: the defending player pays the locked-in total of the costs to block from
    the mana pool, then by tapping untapped mana sources in the order they are listed."""
    return _pay_costs(state, state.opponent(state.active), model, "block_cost_total", "usable_block_source")


def _pay_costs(state: GameState, payer: str, model: frozenset[clingo.Symbol], total: str, usable: str) -> GameState:
    """Pay the total the rules show (generic mana) from the payer's pool, then by tapping the
    usable sources the rules show, in listing order (the engine's default choice)."""
    owed = 0
    for s in atoms(model, total, 2):
        if s.arguments[0] == DECLARED:
            owed = s.arguments[1].number
    if not owed:
        return state
    player: Player = state.player(payer)
    pool = player.mana_pool
    symbols = [pool[i : i + 3] for i in range(0, len(pool), 3)]
    from_pool = min(owed, len(symbols))
    owed -= from_pool
    sources = {s.arguments[1].string for s in atoms(model, usable, 2) if s.arguments[0] == DECLARED}
    changes: dict[str, dict[str, object]] = {}
    for perm in state.permanents():
        if owed and perm.id in sources:
            changes[perm.id] = {"tapped": True}
            owed -= 1
    state = update_permanents(state, changes)
    players = [
        p.model_copy(update={"mana_pool": "".join(symbols[from_pool:])}) if p.name == payer else p
        for p in state.players
    ]
    return GameState.model_validate(state.model_copy(update={"players": players}).model_dump())


def judge_declaration(
    board: Board, action: DeclareAttackers | DeclareBlockers
) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """The verdict on a declaration of attackers or blockers and what it does, from one
    grounding (CR 508.1, 509.1): the board's checker's when it covers the declaration, else a
    fresh one."""
    board._require_ids(action)
    kind = "attack" if isinstance(action, DeclareAttackers) else "block"
    facts = attack_facts(action) if isinstance(action, DeclareAttackers) else block_facts(action)
    checker = board._attack_checker if kind == "attack" else board._block_checker
    known = checker.model(action) if checker is not None else None
    model = known if known is not None else check_fresh_model(board, kind, facts, results=True)
    return board.reader.verdict(model), model


def after_declaration(
    board: Board, action: DeclareAttackers | DeclareBlockers, model: frozenset[clingo.Symbol]
) -> GameState:
    """CR 508.2-508.3, 509.4-509.5, 603.3b: the declaration is made, what triggered goes on the
    stack, then the active player receives priority."""
    state = (
        after_attack(board, action, model)
        if isinstance(action, DeclareAttackers)
        else after_block(board, action, model)
    )
    return give_priority(board, state, state.active)


def after_attack(board: Board, action: DeclareAttackers, model: frozenset[clingo.Symbol]) -> GameState:
    taps = {s.arguments[1].string for s in atoms(model, "taps_to_attack", 2) if s.arguments[0] == DECLARED}
    bands = {c: f"band{i}" for i, band in enumerate(action.bands, start=1) for c in band}
    changes: dict[str, dict[str, object]] = {}
    for creature, target in action.attackers.items():
        changes[creature] = {
            "attacking": target,
            "attacked_this_turn": True,
            "tapped": True if creature in taps else board.state.permanent(creature).tapped,
        }
        if creature in bands:
            changes[creature]["band"] = bands[creature]
    state = update_permanents(board.state, changes)
    # CR 508.6: whether creatures were declared as attackers decides the steps to come
    state = state.model_copy(
        update={
            "declared": [*state.declared, "attackers"],
            "attacked_this_combat": state.attacked_this_combat or bool(action.attackers),
        }
    )
    state = pay_attack_costs(state, model)
    # CR 508.2a: abilities that trigger on attacking
    events = [f"attacks({asp_string(c)})" for c in action.attackers]
    # CR 506.5, 702.80b: the creature the rules show attacking alone
    events += [
        f"attacks_alone({asp_string(s.arguments[1].string)})"
        for s in atoms(model, "attacking_alone", 2)
        if s.arguments[0] == DECLARED
    ]
    return triggers_on(board.pool, state, state, events)


def after_block(board: Board, action: DeclareBlockers, model: frozenset[clingo.Symbol]) -> GameState:
    result: dict[str, list[str]] = {}
    for s in sorted(atoms(model, "block_result", 3), key=str):
        if s.arguments[0] == DECLARED:
            result.setdefault(s.arguments[1].string, []).append(s.arguments[2].string)
    blocking: dict[str, list[str]] = {}
    for blocker, attackers in action.blockers.items():
        extra = [a for a in result.get(blocker, []) if a not in attackers]
        blocking[blocker] = list(attackers) + sorted(extra)
    state = update_permanents(board.state, {b: {"blocking": attackers} for b, attackers in blocking.items()})
    state = state.model_copy(update={"declared": [*state.declared, "blockers"]})
    state = pay_block_costs(state, model)
    # CR 509.4: abilities that trigger on blocking and on becoming blocked
    blocked = sorted({a for attackers in blocking.values() for a in attackers})
    events = [f"blocks({asp_string(b)})" for b in blocking] + [f"becomes_blocked({asp_string(a)})" for a in blocked]
    events += [
        f"blocks_creature({asp_string(b)}, {asp_string(a)})" for b, attackers in blocking.items() for a in attackers
    ]
    # CR 509.4g: the rules say which attackers "attack and aren't blocked"
    events.append("blockers_declared")
    return triggers_on(board.pool, state, state, events)


def judge_damage(board: Board, action: AssignDamage) -> tuple[Verdict, frozenset[clingo.Symbol]]:
    """The verdict on an assignment of combat damage and the results of dealing it (510.1-510.2)."""
    return board._check_damage(action, deal=True)


def after_damage(board: Board, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 510.2: the combat damage is dealt as the rules said; what triggered on it waits; CR
    510.3-510.4, 115.5: state-based actions, the abilities that triggered go on the stack, and
    the active player receives priority."""
    state, replaced = deal_damage(board.state, model, board.pool)
    events = sorted(
        f"deals_combat_damage_to_player({asp_string(s.arguments[0].string)})"
        for s in atoms(model, "combat_damage_to_player", 1)
    )
    events += damage_events(model, {p.name for p in state.players}) + lifelink_events(model, replaced)
    state = triggers_on(board.pool, state, state, events)
    return give_priority(Board(state, board.pool), state, state.active)


def after_assignment(board: Board, action: AssignDamage, model: frozenset[clingo.Symbol]) -> GameState:
    """CR 510.1: the active player's announcement waits for the defending player's when he or
    she has a choice to make (the announcement is kept); otherwise combat damage is dealt
    (510.2), the creatures not named assigning theirs by default."""
    state = board.state
    if action.by == state.active and state.announced_damage is None and defender_has_choice(board):
        return updated(state, announced_damage=action.assignments, announced_prevention=action.prevent or None)
    if state.announced_damage is not None:
        board = Board(updated(state, announced_damage=None, announced_prevention=None), board.pool)
    return after_damage(board, model)


def after_orders(state: GameState, action: OrderBlockers | OrderAttackers) -> GameState:
    """CR 509.2-509.3: the damage assignment orders announced; after a declaration of blockers,
    the announcement is recorded (it is made once)."""
    state = update_permanents(state, {c: {"damage_order": list(order)} for c, order in action.orders.items()})
    announced: Literal["blocker_orders", "attacker_orders"] = (
        "blocker_orders" if isinstance(action, OrderBlockers) else "attacker_orders"
    )
    if "blockers" in state.declared and announced not in state.declared:
        state = updated(state, declared=[*state.declared, announced])
    return state


def damage_result(
    board: Board, assignments: dict[str, dict[str, int]], prevent: dict[str, dict[str, int]] | None = None
) -> frozenset[clingo.Symbol] | None:
    """What dealing this assignment of combat damage does (the creatures not named assigning
    theirs by default; the shields preventing what ``prevent`` says, 615.7), as the rules say:
    their answer but the assignment itself; None when the assignment is illegal."""
    verdict, model = judge_damage(board, AssignDamage(assignments=assignments, prevent=prevent or {}))
    return _result(model) if verdict.legal else None


def order_choices(board: Board) -> list[OrderBlockers | OrderAttackers]:
    """CR 509.2-509.3: the announcements of damage assignment orders the step waits for
    (the rules say which): every order of each attacker's blockers (509.2), or else every
    order of the attackers each creature blocks (509.3), one announcement for all of them
    (their product), the default order (by id) first."""
    pending = priority_now(board)[1]
    blockers = "order_blockers" in pending
    if not blockers and "order_attackers" not in pending:
        return []
    state = board.state
    if blockers:
        ordered = [p.id or "" for p in state.permanents() if p.attacking]
        each = {a: board.blocker_orders(a) for a in ordered}
    else:
        ordered = [p.id or "" for p in state.permanents() if p.blocking]
        each = {b: board.attacker_orders(b) for b in ordered}
    each = {c: orders for c, orders in sorted(each.items()) if orders}
    out: list[OrderBlockers | OrderAttackers] = []
    for combo in itertools.product(*each.values()):
        orders = dict(zip(each, combo, strict=True))
        out.append(OrderBlockers(orders=orders) if blockers else OrderAttackers(orders=orders))
    return out


def defender_has_choice(board: Board) -> bool:
    """Does the defending player choose how a blocking creature divides its combat damage
    (CR 510.1d: one blocking two or more attackers), or what a prevention shield on him or her
    or a creature of his or hers prevents of two or more sources' damage (615.7)?  The rules
    list the divisions and the choices."""
    state = board.state
    defender = state.opponent(state.active)
    if not any(len(p.blocking) > 1 for p in state.permanents()) and not _shielded(state, defender):
        # none blocks two attackers: each blocker's damage goes to the one it blocks; and no
        # shield of the defending player's chooses among sources (615.7)
        return False
    return len(damage_choices(board, defender)) > 1


def _shielded(state: GameState, player: str) -> bool:
    """Whether the player or a creature he or she controls has a prevention shield (615.7)."""
    return bool(state.player(player).prevention_shield) or any(
        p.prevention_shield for p in state.permanents() if state.controller_of(p) == player
    )


def damage_choices(board: Board, player: str) -> list[AssignDamage]:
    """CR 510.1: the player's announcements of how his or her creatures in combat (attacking
    for the active player, blocking for the other) assign their combat damage: every legal
    assignment of them together, as the rules list them, each with each choice of what the
    shields on the player and his or her creatures prevent (615.7), one for each different
    result of dealing it (what the rules say the damage does), the default assignment first
    (written as no assignment; the others name the creatures whose damage differs from it)."""
    state = board.state
    attacking = player == state.active
    mine = [
        p.id or ""
        for p in state.permanents()
        if state.controller_of(p) == player and (p.attacking if attacking else p.blocking)
    ]
    if not mine and not _shielded(state, player):
        return [AssignDamage(assignments={}, by=player)]
    # judged whole (no announcer): the legality of the division and what dealing it does
    verdict, model = judge_damage(board, AssignDamage(assignments={}))
    default: dict[str, dict[str, int]] = {}
    for s in atoms(model, "assigned", 4):
        if s.arguments[0] == DECLARED and s.arguments[1].string in mine:
            default.setdefault(s.arguments[1].string, {})[s.arguments[2].string] = s.arguments[3].number
    out = [AssignDamage(assignments={}, by=player)]
    seen = {_result(model)}
    splits = _prevention_splits(state, model, player)
    for combo in board.joint_damage_assignments(mine) if mine else [{}]:
        differs = {c: a for c, a in combo.items() if a != default.get(c, {})}
        for prevent in splits:
            if not differs and not prevent:
                continue
            verdict, model = judge_damage(board, AssignDamage(assignments=differs, prevent=prevent))
            if not verdict.legal:
                continue
            key = _result(model)
            if key not in seen:
                seen.add(key)
                out.append(AssignDamage(assignments=differs, prevent=prevent, by=player))
    return out


def _prevention_splits(
    state: GameState, model: frozenset[clingo.Symbol], player: str
) -> list[dict[str, dict[str, int]]]:
    """CR 615.7: the player's choices of what the prevention shields on him or her and his or
    her creatures prevent, where the rules show one (``prevention_choice/4``: the sources would
    deal more than the shield): for each shielded one, every division of the whole shield
    among the sources in whole numbers, no more than each would deal (their product over the
    shielded; the default, no choice stated, first)."""
    sources: dict[str, dict[str, int]] = {}
    for s in atoms(model, "prevention_choice", 4):
        shielded, chooser, source = (a.string for a in s.arguments[:3])
        if chooser == player:
            sources.setdefault(shielded, {})[source] = s.arguments[3].number
    shields = {p.id or "": p.prevention_shield for p in state.permanents()}
    shields.update((p.name, p.prevention_shield) for p in state.players)
    each: list[list[tuple[str, dict[str, int]]]] = []
    for shielded, dealt in sorted(sources.items()):
        names = sorted(dealt)
        splits = [
            {n: k for n, k in zip(names, amounts, strict=True) if k}
            for amounts in itertools.product(*(range(min(dealt[n], shields[shielded]) + 1) for n in names))
            if sum(amounts) == shields[shielded]
        ]
        each.append([(shielded, split) for split in splits])
    return [{}, *(dict(combo) for combo in itertools.product(*each) if combo)]


def _result(model: frozenset[clingo.Symbol]) -> frozenset[clingo.Symbol]:
    """What dealing an assignment does, as the rules say (its results but the assignment)."""
    return frozenset(s for s in model if not s.match("assigned", 4))


DAMAGE_RESULTS = (
    ("assigned", 4),
    ("damage_event", 3),
    ("prevented_damage", 3),
    ("altered_damage", 2),
    ("damage_marked", 2),
    ("wither_counters", 2),
    ("life_lost", 2),
    ("life_gained", 2),
)


def damage_results(board: Board) -> tuple[Verdict, dict[str, dict[tuple[str, ...], int]]]:
    """The verdict on the default assignment of combat damage in this step (510.1) and what
    the rules say dealing it does (510.2): by predicate (``assigned``, ``damage_event``,
    ``prevented_damage``, ``altered_damage``, ``damage_marked``, ``wither_counters``,
    ``life_lost``, ``life_gained``), the objects and players it names mapped to its amount
    (1 for an atom without one)."""
    verdict, model = judge_damage(board, AssignDamage(assignments={}))
    out: dict[str, dict[tuple[str, ...], int]] = {}
    for name, arity in DAMAGE_RESULTS:
        found = out.setdefault(name, {})
        for s in atoms(model, name, arity):
            args = [a for a in s.arguments if a != DECLARED]
            if args[-1].type == clingo.SymbolType.Number:
                found[tuple(a.string for a in args[:-1])] = args[-1].number
            else:
                found[tuple(a.string for a in args)] = 1
    return verdict, out
