"""The fuzzing suite: broken scenarios, cards, puzzles (YAML and Forge's .pzl), decks, game logs, results files, prompt
input and command-line arguments, made by the strategies of tests/fuzz_strategies.py, given to the
commands.  Every run must end with exit status 0, 1, 2 or 3 (the time limit), without a
traceback and within its time limit; an error is one line naming the file; the input file
is left as it was.

In CI the tests run derandomized (profile "ci" in conftest.py) with a budget of a few
minutes; by hand, ``python -m pytest tests/test_fuzz.py --hypothesis-profile=long`` runs
more than 10,000 inputs, and prints how they ended.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from fuzz_strategies import (
    ROOT,
    TEXT_BREAKS,
    _break_text,
    broken_document,
    broken_text,
    from_definition,
    odd_values,
    prompt_input,
    schema,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.cli import main
from bridge.model.errors import InputError
from bridge.model.limits import INTERRUPT_STATUS, TIME_LIMIT_STATUS

# how each run ended, by target and status: printed at the end of the session (conftest.py)
OUTCOMES: Counter[tuple[str, str]] = Counter()

TIME_LIMIT = 10.0  # seconds each command is given
SLACK = 15.0  # how much longer a run may take (loading, the solver's grounding)
MAX_ERROR_LINE = 1_500  # characters of one error line

# the share of the profile's examples each target gets
_EXAMPLES = settings().max_examples


def budget(share: float) -> settings:
    return settings(
        max_examples=max(5, int(_EXAMPLES * share)),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def _digest(path: Path) -> tuple[bytes, int]:
    return hashlib.sha256(path.read_bytes()).digest(), path.stat().st_mtime_ns


def run_command(target: str, args: list[str], inputs: list[Path], stdin: bytes | None = None) -> Any:
    """Run the command; check how it ended, its messages and that its input files are as
    they were."""
    before = {p: _digest(p) for p in inputs}
    started = time.monotonic()
    result = CliRunner().invoke(main, args, input=stdin)
    took = time.monotonic() - started
    output = result.output
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        import traceback

        trace = "".join(traceback.format_exception(result.exception))
        pytest.fail(f"{args}: the command raised {type(result.exception).__name__}:\n{trace[-3000:]}")
    code = result.exit_code
    engine_failed = code == 1 and ("the engine failed" in output or "CRASH" in output)
    OUTCOMES[(target, f"{code} (the engine failed)" if engine_failed else str(code))] += 1
    assert code in (0, 1, 2, TIME_LIMIT_STATUS), f"{args}: exit status {code}\n{output[-2000:]}"
    assert code != INTERRUPT_STATUS
    assert "Traceback" not in output, output[-3000:]
    assert took < TIME_LIMIT + SLACK, f"{args}: took {took:.1f} s"
    if code == 2:
        errors = [line for line in output.splitlines() if line.startswith(("error:", "ERROR", "Error:"))]
        assert errors, f"{args}: exit 2 without an error line:\n{output[-2000:]}"
        for line in errors:
            assert len(line) <= MAX_ERROR_LINE, f"an error line of {len(line)} characters"
            assert line.isprintable(), f"an error line with a control character: {line[:300]!r}"
    for path, digest in before.items():
        assert path.exists() and _digest(path) == digest, f"{path} was changed"
    return result


@pytest.fixture(scope="module")
def folder() -> Any:
    where = Path(tempfile.mkdtemp(prefix="mtgasp-fuzz-"))
    yield where
    shutil.rmtree(where, ignore_errors=True)


_COUNTER = iter(range(10**9))


def _write(folder: Path, data: bytes, suffix: str) -> Path:
    path = folder / f"input{next(_COUNTER)}{suffix}"
    path.write_bytes(data)
    return path


def _load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


# ------------------------------------------------------------------ scenarios
_SCENARIOS = sorted((ROOT / "scenarios").rglob("*.yaml"))
SCENARIO_BASES = [_load_yaml(p) for p in _SCENARIOS[:: max(1, len(_SCENARIOS) // 16)]]
SCENARIO_SCHEMA = schema("scenario")
scenario_parts = st.one_of(
    from_definition(SCENARIO_SCHEMA, "Permanent"),
    from_definition(SCENARIO_SCHEMA, "CardRef"),
    from_definition(SCENARIO_SCHEMA, "Player"),
    from_definition(SCENARIO_SCHEMA, "Effect"),
    from_definition(SCENARIO_SCHEMA, "StackObject"),
    from_definition(SCENARIO_SCHEMA, "Expectation"),
    from_definition({**SCENARIO_SCHEMA["properties"]["do"]["items"], "$defs": SCENARIO_SCHEMA["$defs"]}),
)
scenarios = st.one_of(
    broken_document(SCENARIO_BASES, scenario_parts),
    broken_document(SCENARIO_BASES, scenario_parts),
    broken_document(SCENARIO_BASES, scenario_parts),
    from_definition(SCENARIO_SCHEMA),
).flatmap(broken_text)


@budget(3.0)
@given(text=scenarios, command=st.sampled_from(["check", "check", "check", "explain", "blocks", "attacks"]))
def test_broken_scenarios(folder: Path, text: bytes, command: str) -> None:
    path = _write(folder, text, ".yaml")
    extra = ["--count"] if command in ("blocks", "attacks") else []
    result = run_command("scenario", [command, "--time-limit", str(TIME_LIMIT), *extra, str(path)], [path])
    if command == "check" and result.exit_code == 2:
        errors = [line for line in result.output.splitlines() if line.startswith("ERROR")]
        assert len(errors) == 1 and str(path) in errors[0], result.output[-2000:]
    path.unlink()


# ------------------------------------------------------------------ cards
_CARDS = sorted((ROOT / "cards").glob("*.yaml"))
CARD_BASES = [(p.stem, _load_yaml(p)) for p in _CARDS[:: max(1, len(_CARDS) // 24)]]
CARD_SCHEMA = schema("card")
card_parts = st.one_of(
    from_definition(CARD_SCHEMA, "Ability"),
    from_definition(CARD_SCHEMA, "Quality"),
    from_definition(CARD_SCHEMA, "TargetSpec"),
)


@budget(2.0)
@given(index=st.integers(0, len(CARD_BASES) - 1), data=st.data())
def test_broken_cards(folder: Path, index: int, data: st.DataObject) -> None:
    """A card file is read and its facts made: an InputError (one line, naming the file) or
    a card; never another exception."""
    from bridge.model.cards import load_card_file

    stem, doc = CARD_BASES[index]
    doc = data.draw(st.one_of(broken_document([doc], card_parts), from_definition(CARD_SCHEMA)))
    text = data.draw(broken_text(doc))
    sub = folder / f"card{next(_COUNTER)}"
    sub.mkdir()
    path = sub / f"{stem}.yaml"
    path.write_bytes(text)
    before = _digest(path)
    try:
        card = load_card_file(path)
        card.facts()
        OUTCOMES[("card", "read")] += 1
    except InputError as exc:
        OUTCOMES[("card", "refused")] += 1
        line = str(exc)
        assert "\n" not in line and len(line) <= MAX_ERROR_LINE and line.isprintable(), line[:500]
        assert str(path) in line or not exc.source, line
    assert _digest(path) == before
    shutil.rmtree(sub)


# ------------------------------------------------------------------ puzzles
PUZZLE_BASES = [_load_yaml(p) for p in sorted((ROOT / "puzzles").glob("*.yaml"))]
puzzle_parts = st.one_of(
    scenario_parts,
    st.fixed_dictionaries(
        {
            "player": st.sampled_from(["alice", "bob", "nobody", ""]),
            "kind": st.sampled_from(["win", "survive", "destroy", "control", "have", "lose"]),
            "turn": st.one_of(st.integers(-3, 12), st.integers(10**20, 10**30)),
        }
    ),
)
puzzles = st.one_of(
    broken_document(PUZZLE_BASES, puzzle_parts),
    broken_document(PUZZLE_BASES, puzzle_parts),
).flatmap(broken_text)


@budget(0.5)
@given(text=puzzles)
def test_broken_puzzles(folder: Path, text: bytes) -> None:
    path = _write(folder, text, ".yaml")
    args = ["solve", "--time-limit", str(TIME_LIMIT), "--max-nodes", "300", "--no-progress", str(path)]
    run_command("puzzle", args, [path])
    path.unlink()


# ------------------------------------------------------------------ Forge's .pzl puzzles
PZL_BASE = (ROOT / "tests" / "pzl" / "bolt_the_blocker.pzl").read_text()
pzl_values = st.one_of(
    st.sampled_from(["", "Mountain", "No Such Card", "Mountain|Tapped|Counters:P1P1=2", "t:Goblin,P:1,T:1"]),
    st.sampled_from(["Win", "Survive", "Destroy Specified Permanents", "Gain Control of Everything", "|Id:1"]),
    st.integers(-(10**30), 10**30).map(str),
    st.text(max_size=40),
)


@st.composite
def pzl_texts(draw: st.DrawFn) -> bytes:
    """The small puzzle's text with a few lines broken: dropped, doubled, a value replaced, a
    line of anything put in; then the text itself broken (or not)."""
    lines = PZL_BASE.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["drop", "double", "value", "insert"]))
        if kind == "drop":
            del lines[at]
        elif kind == "double":
            lines.insert(at, lines[at])
        elif kind == "value":
            key, sep, _ = lines[at].partition("=" if "=" in lines[at] else ":")
            lines[at] = key + (sep or "=") + draw(pzl_values)
        else:
            lines.insert(at, draw(pzl_values))
        if not lines:
            break
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    return _break_text(data, draw(st.sampled_from(TEXT_BREAKS)), draw(st.integers(0, 1 << 20)))


@budget(0.3)
@given(text=pzl_texts(), command=st.sampled_from(["import", "solve"]))
def test_broken_pzl_files(folder: Path, text: bytes, command: str) -> None:
    path = _write(folder, text, ".pzl")
    extra = ["-o", str(folder / "out.yaml")] if command == "import" else ["--max-nodes", "200", "--no-progress"]
    args = (
        [command, *extra, str(path)]
        if command == "import"
        else [command, "--time-limit", str(TIME_LIMIT), *extra, str(path)]
    )
    run_command("pzl", args, [path])
    path.unlink()


# ------------------------------------------------------------------ decks
from bridge.play.selfplay import Deck  # noqa: E402

DECK_BASES = [_load_yaml(p) for p in sorted((ROOT / "decks").glob("*.yaml"))]
DECK_SCHEMA = Deck.model_json_schema()
decks = st.one_of(
    broken_document(DECK_BASES, from_definition(DECK_SCHEMA)),
    broken_document(DECK_BASES, from_definition(DECK_SCHEMA)),
    from_definition(DECK_SCHEMA),
).flatmap(broken_text)


@budget(0.8)
@given(text=decks, other=st.sampled_from(["red_goblins", "random:3"]))
def test_broken_decks(folder: Path, text: bytes, other: str) -> None:
    path = _write(folder, text, ".yaml")
    logs = folder / f"logs{next(_COUNTER)}"
    run_command(
        "deck",
        [
            "selfplay",
            "--games",
            "1",
            "--max-actions",
            "3",
            "--time-limit",
            str(TIME_LIMIT),
            "--log-dir",
            str(logs),
            "--decks",
            str(path),
            other,
        ],
        [path],
    )
    for log in logs.glob("*") if logs.is_dir() else []:
        assert log.parent == logs and log.suffix == ".json", log  # a deck's name leads nowhere else
        json.loads(log.read_text())  # written whole
    shutil.rmtree(logs, ignore_errors=True)
    path.unlink()


# ------------------------------------------------------------------ game logs
def _a_game_log() -> dict[str, Any]:
    from bridge.play.selfplay import load_deck, play_game, shipped_decks

    shipped = shipped_decks()
    result = play_game(
        (load_deck(shipped["red_goblins"]), load_deck(shipped["green_stompy"])), seed=2, max_actions=12, check=False
    )
    return result.log


LOG_BASES: list[dict[str, Any]] = []


def _log_bases() -> list[dict[str, Any]]:
    if not LOG_BASES:
        LOG_BASES.append(_a_game_log())
        scenario = SCENARIO_BASES[0]
        LOG_BASES.append({"state": scenario["state"], "actions": []})
    return LOG_BASES


log_parts = st.one_of(
    from_definition(SCENARIO_SCHEMA, "GameState"),
    scenario_parts,
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["pass", "play_land", "cast", "bogus"])},
        optional={"card": st.sampled_from(["forest", "Forest", "x"]), "by": st.sampled_from(["alice", "bob", "x"])},
    ),
)


@budget(1.5)
@given(data=st.data())
def test_broken_game_logs(folder: Path, data: st.DataObject) -> None:
    doc = data.draw(broken_document(_log_bases(), log_parts))
    text = data.draw(broken_text(doc, yaml_ok=False))
    path = _write(folder, text, ".json")
    run_command("log", ["replay", "--time-limit", str(TIME_LIMIT), str(path)], [path])
    path.unlink()


# ------------------------------------------------------------------ results files
_GOOD_DECK = "name: g\ncards:\n  Forest: 40\n"


def _results_line(folder: Path) -> str:
    """The line a run of one game (deck g against itself, seed 1, 3 actions) records."""
    from bridge.play.selfplay import ResultsFile, Task, load_deck

    deck = load_deck(_deck_file(folder))
    key = list(ResultsFile.key(Task((deck, deck), 1, 3)))
    return json.dumps(
        {
            "key": key,
            "winner": None,
            "ending": "unfinished",
            "actions": 3,
            "turns": 1,
            "seconds": 0.1,
            "log": "0123456789abcdef",
        }
    )


def _deck_file(folder: Path) -> Path:
    path = folder / "g.yaml"
    if not path.exists():
        path.write_text(_GOOD_DECK)
    return path


@budget(0.8)
@given(data=st.data())
def test_broken_results_files(folder: Path, data: st.DataObject) -> None:
    line = json.loads(_results_line(folder))
    doc = data.draw(broken_document([line], odd_values))
    lines = [json.dumps(doc, ensure_ascii=False) if not isinstance(doc, str) else doc]
    lines = data.draw(st.sampled_from([lines, [json.dumps(line)] + lines, lines + [json.dumps(line)]]))
    text = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    text = data.draw(
        st.one_of(
            st.just(text),
            st.integers(0, len(text)).map(lambda n: text[:n]),
            st.just(text + b"\xff\x00{\n"),
            st.just(text[: len(text) // 2]),
        )
    )
    path = _write(folder, text, ".jsonl")
    deck = _deck_file(folder)
    result = run_command(
        "results",
        [
            "selfplay",
            "--games",
            "1",
            "--max-actions",
            "3",
            "--time-limit",
            str(TIME_LIMIT),
            "--decks",
            str(deck),
            str(deck),
            "--results",
            str(path),
        ],
        [deck],
    )
    if result.exit_code == 2 or path.read_bytes() == text:  # refused, or nothing to add: left as it was
        assert path.read_bytes() == text
    else:  # written again whole: every line a result, the line cut short dropped
        for _number, kept in enumerate(path.read_text().splitlines(), start=1):
            if kept.strip():
                json.loads(kept)
    path.unlink()


# ------------------------------------------------------------------ prompt input
PROMPT_SCENARIO = """\
title: a position to play
cite: ["117.1"]
state:
  active: alice
  step: main1
  players:
    - name: alice
      hand: [Forest, Grizzly Bears, Lightning Bolt]
      battlefield: [Mountain, Forest]
      library: [Forest, Forest, Forest]
    - name: bob
      battlefield: [Llanowar Elves]
      library: [Forest, Forest, Forest]
"""


@budget(0.8)
@given(typed=prompt_input(), opponent=st.sampled_from(["first", "random", "human"]))
def test_prompt_input(folder: Path, typed: bytes, opponent: str) -> None:
    path = folder / "prompt.yaml"
    if not path.exists():
        path.write_text(PROMPT_SCENARIO)
    log = folder / f"game{next(_COUNTER)}.json"
    result = run_command(
        "prompt",
        [
            "play",
            str(path),
            "--opponent",
            opponent,
            "--max-actions",
            "8",
            "--time-limit",
            str(TIME_LIMIT),
            "--log",
            str(log),
        ],
        [path],
        stdin=typed,
    )
    if result.exit_code == 0:
        json.loads(log.read_text())  # written whole
    log.unlink(missing_ok=True)


# ------------------------------------------------------------------ puzzle files
# Puzzle files (a position and a goal, for `mtgasp solve` and `mtgasp verify`) join the
# suite when the format and the commands exist: their bases are the bundled puzzles, their
# values come from schemas/puzzle.schema.json through from_definition, they are broken by
# broken_document and broken_text like the scenarios above, and each run is
# run_command("puzzle", ["solve", "--time-limit", str(TIME_LIMIT), str(path)], [path]).


# ------------------------------------------------------------------ command-line arguments
odd_names = st.one_of(
    st.sampled_from(
        [
            "random:",
            "random:x",
            "random:" + "9" * 5000,
            "random:-1",
            "random:²",
            "../escaped",
            "",
            "x" * 5000,
            "decks",
            "/",
            "red_goblins",
            "random:12",
        ]
    ),
    st.text(max_size=30).filter(lambda s: "\x00" not in s),
)


@budget(0.5)
@given(
    a=odd_names,
    b=odd_names,
    option=st.sampled_from(
        [
            [],
            ["--games", "0"],
            ["--games", "9" * 50],
            ["--seed", "-" + "9" * 30],
            ["--time-limit", "-1"],
            ["--jobs", "100000"],
            ["--max-actions", "9" * 5000],
        ]
    ),
)
def test_odd_arguments(folder: Path, a: str, b: str, option: list[str]) -> None:
    run_command(
        "arguments",
        ["selfplay", "--games", "1", "--max-actions", "2", "--time-limit", str(TIME_LIMIT), *option, "--decks", a, b],
        [],
    )


@budget(0.5)
@given(
    names=st.lists(
        st.one_of(
            st.text(max_size=20).filter(lambda s: "\x00" not in s and "/" not in s and s not in (".", "..")),
            st.sampled_from(["x" * 5000, "é" * 300, "a\nb"]),
        ),
        min_size=1,
        max_size=3,
    ),
    real=st.booleans(),
)
def test_odd_paths(folder: Path, names: list[str], real: bool) -> None:
    paths = [str(folder / "odd" / n) for n in names] + (["/dev/null"] if real else [])
    run_command("arguments", ["check", "-q", "--time-limit", str(TIME_LIMIT), *paths], [])
