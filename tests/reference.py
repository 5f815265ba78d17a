"""A brute-force reference for declarations of blockers, written only for tests and benchmarks.

It knows a subset of the rules, written independently of the rule modules: creatures
described by plain flags, every declaration enumerated, restrictions checked one by one and
requirements maximized by counting (CR 509.1a-c, 702.9, 702.11, 702.12, 702.14, 702.15,
702.25, 702.28, 702.33).

A creature is a dict: ``id``, ``colors`` (set), ``artifact`` (bool), ``tapped`` (bool) and
``flags`` (set): flying reach fear intimidate shadow horsemanship islandwalk swampwalk
protection_<color> unblockable cant_block cant_block_alone lure (all creatures able to block
it do so) blocks_each_combat max_one_blocker (can't be blocked by more than one)
min_two_blockers (except by two or more) block_additional (can block one more) block_any
(can block any number).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

Declaration = frozenset[tuple[str, str]]


def can_block(blocker: dict, attacker: dict, lands: set[str]) -> bool:
    """May this blocker block this attacker, taken alone?"""
    a, b = attacker["flags"], blocker["flags"]
    if blocker["tapped"] or "cant_block" in b or "unblockable" in a:
        return False
    if "flying" in a and not b & {"flying", "reach"}:
        return False
    if "fear" in a and not (blocker["artifact"] or "black" in blocker["colors"]):
        return False
    if "intimidate" in a and not (blocker["artifact"] or blocker["colors"] & attacker["colors"]):
        return False
    if ("shadow" in a) != ("shadow" in b):
        return False
    if "horsemanship" in a and "horsemanship" not in b:
        return False
    if "islandwalk" in a and "island" in lands:
        return False
    if "swampwalk" in a and "swamp" in lands:
        return False
    for color in ("white", "blue", "black", "red", "green"):
        if f"protection_{color}" in a and color in blocker["colors"]:
            return False
    return True


def _choices(blocker: dict, attackers: list[dict], lands: set[str]) -> list[tuple[str, ...]]:
    able = [a["id"] for a in attackers if can_block(blocker, a, lands)]
    if "block_any" in blocker["flags"]:
        limit = len(able)
    elif "block_additional" in blocker["flags"]:
        limit = 2
    else:
        limit = 1
    return [c for k in range(min(limit, len(able)) + 1) for c in itertools.combinations(able, k)]


def declarations(attackers: list[dict], blockers: list[dict], lands: set[str]) -> Iterator[Declaration]:
    """Every declaration that breaks no restriction."""
    by_id = {a["id"]: a for a in attackers}
    options = [_choices(b, attackers, lands) for b in blockers]
    for combo in itertools.product(*options):
        pairs = frozenset((b["id"], a) for b, chosen in zip(blockers, combo) for a in chosen)
        active = {b for b, _ in pairs}
        if len(active) == 1 and any("cant_block_alone" in b["flags"] for b in blockers if b["id"] in active):
            continue
        counts = {a: sum(1 for _, x in pairs if x == a) for a in by_id}
        if any(counts[a] > 1 and "max_one_blocker" in by_id[a]["flags"] for a in by_id):
            continue
        if any(0 < counts[a] < 2 and "min_two_blockers" in by_id[a]["flags"] for a in by_id):
            continue
        yield pairs


def obeyed(pairs: Declaration, attackers: list[dict], blockers: list[dict]) -> int:
    """How many requirements a declaration obeys (tapped creatures are exempt)."""
    total = 0
    for b in blockers:
        if b["tapped"]:
            continue
        for a in attackers:
            if "lure" in a["flags"] and (b["id"], a["id"]) in pairs:
                total += 1
        if "blocks_each_combat" in b["flags"] and any(x == b["id"] for x, _ in pairs):
            total += 1
    return total


def legal_declarations(attackers: list[dict], blockers: list[dict], lands: set[str]) -> set[Declaration]:
    """The legal declarations: no restriction broken, requirements maximized (CR 509.1c)."""
    candidates = list(declarations(attackers, blockers, lands))
    if not candidates:
        return set()
    scores = [obeyed(d, attackers, blockers) for d in candidates]
    best = max(scores)
    return {d for d, s in zip(candidates, scores) if s == best}


def legal_attacks(
    creatures: list[dict], targets: list[str], max_attackers: int | None
) -> set[frozenset[tuple[str, str]]]:
    """The legal declarations of attackers (CR 508.1a-d) for creatures described by flags:
    ``tapped``, ``sick`` and ``flags`` among haste defender cant_attack cant_attack_alone
    attacks_each_combat; ``targets`` are what may be attacked; ``max_attackers`` is a limit
    like Silent Arbiter's (None for none)."""

    def able(c: dict) -> bool:
        f = c["flags"]
        return not (c["tapped"] or (c["sick"] and "haste" not in f) or f & {"defender", "cant_attack"})

    options = [[None] + ([(c["id"], t) for t in targets] if able(c) else []) for c in creatures]
    candidates = []
    for combo in itertools.product(*options):
        pairs = frozenset(p for p in combo if p)
        attackers = {c for c, _ in pairs}
        if max_attackers is not None and len(attackers) > max_attackers:
            continue
        if len(attackers) == 1 and any("cant_attack_alone" in c["flags"] for c in creatures if c["id"] in attackers):
            continue
        candidates.append(pairs)
    if not candidates:
        return set()

    def obeyed(pairs: frozenset[tuple[str, str]]) -> int:
        attackers = {c for c, _ in pairs}
        return sum(
            1 for c in creatures if "attacks_each_combat" in c["flags"] and not c["tapped"] and c["id"] in attackers
        )

    best = max(obeyed(p) for p in candidates)
    return {p for p in candidates if obeyed(p) == best}
