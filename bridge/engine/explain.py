"""Why an object has the characteristics it has: its path through the layers (CR 613); and
what each creature in combat may do with its combat damage (CR 510.1).

``explain(game, object_id)`` returns an :class:`Explanation`: the object's printed (or
copied) values, each effect applied to it in the order the rules apply them (layer,
timestamp, source, the values it changed, the effects it waited for by dependency), its
power and toughness after each sublayer of layer 7, and the final characteristics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import clingo

from bridge.engine.board import DAMAGE, DECLARED, Board, Characteristics
from bridge.engine.solver import Session

__all__ = ["DamageChoice", "Explanation", "Step", "explain", "explain_damage", "format_damage", "format_explanation"]

KINDS = (
    "name",
    "mana_value",
    "type",
    "subtype",
    "supertype",
    "color",
    "ability",
    "controller",
    "power_base",
    "toughness_base",
    "loyalty_base",
)


@dataclass(frozen=True)
class Step:
    """One effect applied to the object."""

    layer: str
    effect: str
    timestamp: int | None
    removed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    added: dict[str, tuple[str, ...]] = field(default_factory=dict)
    waited_for: tuple[str, ...] = ()
    awaited_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Explanation:
    """The path of one object's characteristics through the layers."""

    object_id: str
    printed: dict[str, tuple[str, ...]]
    steps: tuple[Step, ...]
    power_toughness: dict[str, tuple[int, int]]
    final: Characteristics


def _text(sym: clingo.Symbol) -> str:
    if sym.type == clingo.SymbolType.String:
        return sym.string
    if sym.match("static", 2):
        return f"static ability {sym.arguments[1].number} of {sym.arguments[0].string}"
    return str(sym)


def _state_key(sym: clingo.Symbol) -> tuple[int, int]:
    layer, index = sym.arguments
    return layer.number, index.number if index.type == clingo.SymbolType.Number else -1


def explain(game: Board, object_id: str) -> Explanation:
    """The explanation of one permanent's characteristics in a game's position."""
    game._require_permanent(object_id)
    facts = game.position.facts + f'\nexplained("{object_id}").'
    # the path through layers 1-6 is read from their states, which exist with no effect too
    model = Session(game.modules("characteristics/explain", layers=True), facts).solve().model
    values: dict[tuple[int, int], dict[str, set[str]]] = {}
    applied: dict[tuple[int, int], clingo.Symbol] = {}
    times: dict[clingo.Symbol, int] = {}
    waits: dict[clingo.Symbol, list[clingo.Symbol]] = {}
    awaited: dict[clingo.Symbol, list[clingo.Symbol]] = {}
    sources: dict[clingo.Symbol, str] = {}
    pts: dict[str, tuple[int, int]] = {}
    layer7: dict[clingo.Symbol, list[clingo.Symbol]] = {}
    each: dict[clingo.Symbol, int] = {}
    for sym in model:
        args = sym.arguments
        if sym.name == "explain_value":
            if args[0].arguments[1].type != clingo.SymbolType.Number:
                continue  # a hypothetical state tried for dependency
            values.setdefault(_state_key(args[0]), {}).setdefault(args[1].name, set()).add(_text(args[2]))
        elif sym.name == "explain_applied":
            applied[_state_key(args[0])] = args[1]
        elif sym.name == "explain_time":
            times[args[0]] = args[1].number
        elif sym.name == "explain_waits":
            waits.setdefault(args[0], []).append(args[1])
            awaited.setdefault(args[1], []).append(args[0])
        elif sym.name == "explain_source":
            sources[args[0]] = _text(args[1])
        elif sym.name == "explain_pt":
            pts[args[0].string] = (args[1].number, args[2].number)
        elif sym.name == "explain_layer7":
            layer7.setdefault(args[0], []).append(args[1])
        elif sym.name == "explain_each":
            each[args[0]] = args[1].number

    def name(effect: clingo.Symbol) -> str:
        if effect.name == "s":
            holder, card = _text(effect.arguments[0]), _text(effect.arguments[1])
            holder_card = game.position.card(holder)
            copied = "" if holder_card.id == card else f", copied from {game.pool.get(card).name}"
            return f"{game.describe(holder)}'s static ability{copied}"
        if effect.name == "cp":
            return f"{game.describe(_text(effect.arguments[0]))} entering as a copy"
        if effect.name == "cda4":
            return f"{game.describe(_text(effect.arguments[0]))}'s changeling (characteristic-defining)"
        index = int(effect.name[1:]) - 1
        entry = game.state.effects[index]
        return entry.source if entry.source else f'"{entry.text}"'

    printed = {k: tuple(sorted(v)) for k, v in values.get((0, 0), {}).items() if k in KINDS}
    steps = []
    states = sorted(values)
    for before, after in zip(states, states[1:]):
        effect = applied.get(after)
        if effect is None:
            continue
        old, new = values[before], values[after]
        removed = {k: tuple(sorted(old.get(k, set()) - new.get(k, set()))) for k in KINDS}
        added = {k: tuple(sorted(new.get(k, set()) - old.get(k, set()))) for k in KINDS}
        steps.append(
            Step(
                layer=str(after[0]),
                effect=name(effect),
                timestamp=times.get(effect),
                removed={k: v for k, v in removed.items() if v},
                added={k: v for k, v in added.items() if v},
                waited_for=tuple(name(w) for w in waits.get(effect, [])),
                awaited_by=tuple(f"{name(w)} (timestamp {times.get(w)})" for w in awaited.get(effect, [])),
            )
        )
    sublayer = {
        "set_pt": "7b",
        "set_pt_to_mana_value": "7b",
        "modify_pt": "7c",
        "modify_pt_each": "7c",
        "switch_pt": "7e",
    }
    for effect, parts in sorted(layer7.items(), key=lambda kv: (times.get(kv[0], 0), str(kv[0]))):
        for part in parts:
            words = str(part).replace("_", " ")
            if part.match("modify_pt_each", 2):
                p, t = (a.number for a in part.arguments)
                words = f"{p:+d}/{t:+d} for each of {each.get(effect, 0)}"
            steps.append(
                Step(
                    layer=sublayer.get(part.name, "7"),
                    effect=name(effect),
                    timestamp=times.get(effect),
                    added={"power_toughness": (words,)},
                )
            )
    steps.sort(key=lambda s: (s.layer if len(s.layer) > 1 else s.layer + " ",))
    return Explanation(
        object_id=object_id,
        printed=printed,
        steps=tuple(steps),
        power_toughness=pts,
        final=game.characteristics(object_id),
    )


def format_explanation(game: Board, e: Explanation) -> str:
    """The explanation as lines of text."""
    labels = {
        "mana_value": "converted mana cost",
        "power_base": "power",
        "toughness_base": "toughness",
        "loyalty_base": "loyalty",
        "type": "types",
        "subtype": "subtypes",
        "supertype": "supertypes",
        "color": "colors",
        "ability": "abilities",
    }
    lines = [game.describe(e.object_id)]
    printed = "; ".join(f"{labels.get(k, k)} {', '.join(v) or '-'}" for k, v in e.printed.items())
    lines.append(f"  printed or copied: {printed}")
    for step in e.steps:
        stamp = f" (timestamp {step.timestamp})" if step.timestamp is not None else ""
        changes = [f"{labels.get(k, k)} -{', -'.join(v)}" for k, v in step.removed.items()]
        changes += [
            f"{labels.get(k, k)} +{', +'.join(v)}" if k != "power_toughness" else ", ".join(v)
            for k, v in step.added.items()
        ]
        lines.append(f"  layer {step.layer}: {step.effect}{stamp}: {'; '.join(changes) or 'no change'}")
        if step.waited_for:
            lines.append(f"    applied after {', '.join(step.waited_for)}, which it depends on (613.7)")
        if step.awaited_by:
            lines.append(f"    applied before {', '.join(step.awaited_by)}, which depends on it (613.7)")
    if e.power_toughness:
        lines.append(
            "  power/toughness after " + ", ".join(f"{k} {p}/{t}" for k, (p, t) in sorted(e.power_toughness.items()))
        )
    f = e.final
    lines.append(
        f"  final: {f.name or '(no name)'}; types {', '.join(f.types) or '-'}; subtypes "
        f"{', '.join(f.subtypes) or '-'}; colors {', '.join(f.colors) or '-'}; abilities "
        f"{', '.join(f.abilities) or '-'}; controller {f.controller}"
        + (f"; {f.power}/{f.toughness}" if f.power is not None else "")
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------- combat damage
@dataclass(frozen=True)
class DamageChoice:
    """What the rules let one creature do with its combat damage in this step (CR 510.1)."""

    creature: str
    power: int
    recipients: tuple[str, ...]  # in damage assignment order; a player or planeswalker last
    lethal: dict[str, int]  # creature -> damage still lethal to it (510.1c-d)
    free_division: bool  # deathtouch or banding (702.2b, 702.19j-k)
    trample: bool  # may assign the rest to the player or planeswalker (702.17b)
    legal: tuple[dict[str, int], ...]  # every legal assignment, the others assigning by default


def explain_damage(game: Board) -> list[DamageChoice]:
    """Each creature that assigns combat damage in this step, and its legal assignments."""
    model = (
        Session(
            game.modules(*DAMAGE, "combat/damage_explain"), game.position.facts, [("damage_assignment", (DECLARED,))]
        )
        .solve()
        .model
    )
    power: dict[str, int] = {}
    order: dict[str, list[tuple[int, str]]] = {}
    lethal: dict[str, int] = {}
    free, trample = set(), set()
    for sym in model:
        args = sym.arguments
        if sym.match("explain_assigner", 2):
            power[args[0].string] = args[1].number
        elif sym.match("explain_recipient", 3):
            position = args[2].number or 10**6
            order.setdefault(args[0].string, []).append((position, args[1].string))
        elif sym.match("explain_lethal", 2):
            lethal[args[0].string] = args[1].number
        elif sym.match("explain_free", 1):
            free.add(args[0].string)
        elif sym.match("explain_trample", 1):
            trample.add(args[0].string)
    choices = []
    for creature in sorted(power):
        recipients = tuple(x for _, x in sorted(order.get(creature, [])))
        choices.append(
            DamageChoice(
                creature=creature,
                power=power[creature],
                recipients=recipients,
                lethal={x: lethal[x] for x in recipients if x in lethal},
                free_division=creature in free,
                trample=creature in trample,
                legal=tuple(game.legal_damage_assignments(creature)),
            )
        )
    return choices


def format_damage(game: Board, choices: list[DamageChoice], limit: int = 12) -> str:
    """The damage choices as lines of text."""
    d = game.describe
    if not choices:
        return "no creature assigns combat damage in this step"
    lines = []
    for c in choices:
        order = ", ".join(f"{d(x)}" + (f" (lethal {c.lethal[x]})" if x in c.lethal else "") for x in c.recipients)
        how = []
        if c.free_division:
            how.append("divides freely (702.2b, 702.19j-k)")
        if c.trample:
            how.append("tramples over once each blocker has lethal damage (702.17b)")
        lines.append(
            f"{d(c.creature)} assigns {c.power} to: {order or 'nothing'}" + (f"; {'; '.join(how)}" if how else "")
        )
        lines.append(f"  {len(c.legal)} legal assignment(s) (510.1):")
        ranked = sorted(c.legal, key=lambda a: [-a.get(x, 0) for x in c.recipients])
        for assignment in ranked[:limit]:
            lines.append("    " + ", ".join(f"{assignment[x]} to {d(x)}" for x in c.recipients if assignment.get(x)))
        if len(c.legal) > limit:
            lines.append(f"    ... and {len(c.legal) - limit} more")
    return "\n".join(lines)
