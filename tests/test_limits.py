"""The limits on input, the time limit, interrupts, and files written whole: each case of bad
input gets exit status 2 and one line naming the file, the place and the limit."""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.io.writing import safe_file_name, write_whole
from bridge.model import limits
from bridge.model.errors import InputError, one_line, quote
from bridge.model.limits import MAX_DEPTH, MAX_NAME, MAX_OBJECTS, TIME_LIMIT_STATUS, Deadline, TimeLimitReached
from bridge.model.state import GameState

HEAD = 'title: t\ncite: ["509.1a"]\nstate:\n  active: alice\n  players:\n'


def scenario(alice: str = "{name: alice}", bob: str = "{name: bob}") -> str:
    return HEAD + f"    - {alice}\n    - {bob}\n"


def one_error(args: list[str], *parts: str, stdin: str | None = None) -> str:
    """The command exits 2 with one error line holding each of ``parts``."""
    result = CliRunner().invoke(main, args, input=stdin)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith(("error:", "ERROR"))]
    assert len(lines) == 1, result.output
    for part in parts:
        assert part in lines[0], lines[0]
    assert len(lines[0]) < 1500 and lines[0].isprintable()
    return lines[0]


SCENARIO_CASES = {
    "deep_yaml": (HEAD + "    - " + "[" * 3000 + "]" * 3000 + "\n", f"nested more than {MAX_DEPTH} deep", "line 6"),
    "deep_mapping": (
        "title:\n" + "".join("  " * i + "a:\n" for i in range(1, 80)),
        f"nested more than {MAX_DEPTH} deep",
        "line 51",
    ),
    "long_integer": (
        scenario("{name: alice, life: " + "7" * 5000 + "}"),
        "larger than the limit of 1,000,000",
        "line 6, column",
    ),
    "large_integer": (
        scenario("{name: alice, life: 10000000}"),
        "10000000 is larger than the limit",
        "line 6, state.players[0].life",
    ),
    "alias_bomb": (
        scenario()
        + 'a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]\n'
        + "".join(f"b{i}: &b{i} [" + ", ".join([f"*{'a' if i == 0 else f'b{i - 1}'}"] * 10) + "]\n" for i in range(8)),
        "more than 200,000 values",
        "line 1",
    ),
    "alias_of_itself": (scenario() + "a: &a [1, *a]\n", "stands for a value that holds it", "line 8"),
    "control_character": (
        scenario("{name: alice, hand: [Forest\x07]}"),
        "the character '\\x07' is not allowed",
        "line 6, column",
    ),
    "long_name": (scenario("{name: " + "n" * 500 + "}"), f"past the limit of {MAX_NAME}", "players[0].name"),
    "too_many_objects": (
        scenario("{name: alice, library: [" + ", ".join(["Forest"] * 16_000) + "]}"),
        f"more than {MAX_OBJECTS:,} objects",
        "state",
    ),
    "long_text": (
        scenario("{name: alice, hand: [" + "x" * 1_000_000 + "]}"),
        "past the limit of 10,000",
        "line 6, column",
    ),
    "bad_date": (scenario() + "do: [2001-13-45]\n", "'2001-13-45' is not a date", "line 8"),
}


@pytest.mark.parametrize("name", sorted(SCENARIO_CASES))
def test_input_past_a_limit_gets_one_line(tmp_path: Path, name: str) -> None:
    text, problem, place = SCENARIO_CASES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    started = time.monotonic()
    one_error(["check", str(path)], str(path), problem, place)
    assert time.monotonic() - started < 20


def test_a_long_value_is_shortened_in_the_middle(tmp_path: Path) -> None:
    path = tmp_path / "long_action.yaml"
    path.write_text(scenario() + "do: [" + "cast_" * 1500 + "]\n")
    line = one_error(["check", str(path)], "unknown action 'cast_cast_", " ... ", "line 8, do[0]")
    assert len(line) < 1000


def test_a_file_larger_than_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(scenario() + "#" + "x" * (9 * 1024 * 1024) + "\n")
    one_error(["check", str(path)], "larger than the limit of 8,388,608 bytes")


def test_invalid_utf8_is_placed(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(scenario("{name: alice, hand: [Forest]}").encode() + b"# caf\xe9\n")
    one_error(["check", str(path)], "not UTF-8 text: the byte 0xe9", "line 8, column 6")


def test_ids_are_given_in_listing_order_without_a_quadratic_scan() -> None:
    started = time.monotonic()
    state = GameState.model_validate(
        {
            "active": "a",
            "players": [
                {"name": "a", "library": ["Forest"] * (MAX_OBJECTS - 2) + [{"id": "forest_3", "card": "Forest"}]},
                {"name": "b"},
            ],
        }
    )
    ids = [c.id for c in state.players[0].library]
    assert ids[:4] == ["forest", "forest_2", "forest_4", "forest_5"] and ids[-1] == "forest_3"
    assert len(set(ids)) == len(ids) and time.monotonic() - started < 5


LOG_CASES = {
    "deep_json": ('{"state": ' + "[" * 5000 + "]" * 5000 + "}", f"nested more than {MAX_DEPTH} deep", "line 1"),
    "long_number": ('{"state": {"turn": ' + "9" * 5000 + "}}", "larger than the limit", "state.turn"),
    "infinite": ('{"state": {"turn": 1e999}}', "the number inf is larger than the limit", "state.turn"),
}


@pytest.mark.parametrize("name", sorted(LOG_CASES))
def test_a_game_log_past_a_limit(tmp_path: Path, name: str) -> None:
    text, problem, place = LOG_CASES[name]
    path = tmp_path / "log.json"
    path.write_text(text)
    one_error(["replay", str(path)], str(path), "not a game log", problem, place)


# ------------------------------------------------------------------ selfplay
FOREST_DECK = "name: {name}\ncards:\n  Forest: 40\n"


def _deck(tmp_path: Path, name: str, file: str = "deck.yaml") -> Path:
    path = tmp_path / file
    path.write_text(FOREST_DECK.format(name=json.dumps(name)))
    return path


def test_a_deck_named_out_of_the_log_folder_writes_in_it(tmp_path: Path) -> None:
    deck = _deck(tmp_path, "../escaped")
    logs = tmp_path / "logs"
    result = CliRunner().invoke(
        main,
        ["selfplay", "--games", "1", "--max-actions", "3", "--decks", str(deck), str(deck), "--log-dir", str(logs)],
    )
    assert result.exit_code == 0, result.output
    written = [p for p in tmp_path.rglob("*.json")]
    assert [p.parent for p in written] == [logs] and written[0].name == "_escaped-.._escaped-1.json"
    assert json.loads(written[0].read_text())["actions"]


def test_a_deck_name_past_the_limit(tmp_path: Path) -> None:
    deck = _deck(tmp_path, "d" * 5000)
    one_error(["selfplay", "--games", "1", "--decks", str(deck), str(deck)], str(deck), "name", str(MAX_NAME))


def test_a_deck_of_thousands_of_cards(tmp_path: Path) -> None:
    deck = tmp_path / "deck.yaml"
    deck.write_text("name: big\ncards:\n  Forest: 5000\n")
    one_error(["selfplay", "--games", "1", "--decks", str(deck), str(deck)], str(deck), "at most 500 cards")


def test_a_safe_file_name() -> None:
    assert safe_file_name("Red Goblins-Green Stompy-1") == "red_goblins-green_stompy-1"
    assert safe_file_name("../../etc/passwd") == "_.._etc_passwd"
    assert "/" not in safe_file_name("/") and not safe_file_name("..x").startswith(".")
    long = safe_file_name("x" * 5000, limit=120)
    assert len(long) == 120 and long != safe_file_name("x" * 4999, limit=120)


def test_a_bad_card_file_is_found_before_the_first_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A deck holding a card whose file is not valid: exit 2 naming the card file, no game."""
    from bridge.model.cards import CardPool
    from bridge.model.paths import cards_dir

    folder = tmp_path / "cards"
    folder.mkdir()
    (folder / "forest.yaml").write_text((cards_dir() / "forest.yaml").read_text())
    (folder / "grizzly_bears.yaml").write_text("name: Grizzly Bears\ntypes: [creature]\npower: many\n")
    pool = CardPool(folder)
    monkeypatch.setattr(CardPool, "default", classmethod(lambda cls: pool))
    deck = tmp_path / "deck.yaml"
    deck.write_text("name: bears\ncards:\n  Forest: 20\n  Grizzly Bears: 20\n")
    line = one_error(
        ["selfplay", "--games", "1", "--decks", str(deck), str(deck)],
        str(folder / "grizzly_bears.yaml"),
        "power",
        "a card of the deck 'bears'",
    )
    assert "games/s" not in line


def test_an_unknown_random_deck_seed(tmp_path: Path) -> None:
    one_error(["selfplay", "--games", "1", "--decks", "random:" + "9" * 5000, "red_goblins"], "random:SEED", " ... ")


RESULT = {
    "key": ["g", "7df6182c96f3", "g", "7df6182c96f3", 1, 3],
    "winner": None,
    "ending": "unfinished",
    "actions": 3,
    "turns": 1,
    "seconds": 0.1,
    "log": "0123456789abcdef",
}

RESULTS_CASES = {
    "invalid_utf8": (b"\xff\xfe\n", "line 1, column 1: not UTF-8 text"),
    "binary": (b"\x00\x01\x02\n" + json.dumps(RESULT).encode() + b"\n", "line 1: not a game result: the line is"),
    "null_name": (
        json.dumps({**RESULT, "key": [None, *RESULT["key"][1:]]}).encode() + b"\n",
        "line 1: not a game result: the field 'key' is not [deck",
    ),
    "mapping_for_text": (
        json.dumps({**RESULT, "ending": {"a": 1}}).encode() + b"\n",
        "line 1: not a game result: the field 'ending' is not text",
    ),
    "mapping_key": (json.dumps({**RESULT, "key": {"a": 1}}).encode() + b"\n", "the field 'key' is not"),
    "missing": (
        json.dumps({k: v for k, v in RESULT.items() if k != "turns"}).encode() + b"\n",
        "the field 'turns' is missing",
    ),
    "a_bad_line_not_last": (b'{"key": [\n' + json.dumps(RESULT).encode() + b"\n", "line 1: not a game result"),
}


@pytest.mark.parametrize("name", sorted(RESULTS_CASES))
def test_a_bad_results_file_gets_one_line(tmp_path: Path, name: str) -> None:
    data, problem = RESULTS_CASES[name]
    results = tmp_path / "results.jsonl"
    results.write_bytes(data)
    deck = _deck(tmp_path, "g")
    line = one_error(
        ["selfplay", "--games", "1", "--max-actions", "3", "--decks", str(deck), str(deck), "--results", str(results)],
        str(results),
        problem,
    )
    assert "unhashable" not in line and "Error" not in line
    assert results.read_bytes() == data


def test_a_results_file_cut_short_resumes(tmp_path: Path) -> None:
    deck = _deck(tmp_path, "g")
    results = tmp_path / "results.jsonl"
    args = [
        "selfplay",
        "--games",
        "2",
        "--max-actions",
        "3",
        "--decks",
        str(deck),
        str(deck),
        "--results",
        str(results),
    ]
    assert CliRunner().invoke(main, args).exit_code == 0
    whole = results.read_text().splitlines()
    results.write_text(whole[0] + "\n" + whole[1][: len(whole[1]) // 2])  # a run stopped while writing
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    assert "line 2 was cut short" in again.output and "1 of 2 games already played" in again.output
    again_lines = results.read_text().splitlines()  # the game played again, the file whole
    assert [(json.loads(a)["key"], json.loads(a)["log"]) for a in again_lines] == [
        (json.loads(a)["key"], json.loads(a)["log"]) for a in whole
    ]


def test_write_whole_leaves_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    path = tmp_path / "log.json"
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        write_whole(path, "new \ud800")  # text that can't be written
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["log.json"]
    write_whole(path, "new")
    assert path.read_text() == "new"


# ------------------------------------------------------------------ the prompt
PROMPT = scenario("{name: alice, hand: [Forest]}")


@pytest.mark.parametrize("typed", ["9" * 1_000_000, "²", "١", "\x00", "-1", "1e5", "99999999999999999999"])
def test_the_prompt_takes_anything_typed(tmp_path: Path, typed: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(PROMPT.replace("HEAD", ""))
    result = CliRunner().invoke(main, ["play", str(path), "--opponent", "first"], input=f"{typed}\nq\n")
    assert result.exit_code == 0 and "Traceback" not in result.output
    assert "type a number from 1 to" in result.output and "stopped" in result.output


def test_the_end_of_the_input_stops_the_game(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(PROMPT)
    log = tmp_path / "game.json"
    result = CliRunner().invoke(main, ["play", str(path), "--opponent", "first", "--log", str(log)], input=b"\xff\n")
    assert result.exit_code == 0 and "type a number" in result.output and "stopped" in result.output
    assert json.loads(log.read_text())["state"]


# ------------------------------------------------------------------ time limits, interrupts
def test_a_game_past_its_time_limit_is_not_a_result(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    started = time.monotonic()
    result = CliRunner().invoke(
        main,
        [
            "selfplay",
            "--games",
            "1",
            "--max-actions",
            "100000",
            "--time-limit",
            "1",
            "--decks",
            "red_goblins",
            "green_stompy",
            "--results",
            str(results),
        ],
    )
    assert result.exit_code == TIME_LIMIT_STATUS, result.output
    assert "stopped by the time limit of 1 s" in result.output and time.monotonic() - started < 30
    assert results.read_text() == ""


@pytest.mark.parametrize("when", ["opens", "closes"])
def test_an_alarm_as_the_deadline_opens_or_closes_leaves_nothing_open(when: str) -> None:
    """The alarm may ring as the ``with`` opens or closes the deadline (a large grounding
    freed on the way out can take longer than the alarm's period): raised there, it would
    leave the alarm ringing into later code and the watchdog ending the process afterwards."""
    code, event = (Deadline.__enter__.__code__, "return") if when == "opens" else (Deadline.__exit__.__code__, "call")

    def ring(frame: object, what: str, arg: object) -> None:
        if what == event and getattr(frame, "f_code", None) is code:
            sys.setprofile(None)
            signal.raise_signal(signal.SIGALRM)

    before = signal.getsignal(signal.SIGALRM)
    deadline = Deadline(60)
    ran = False
    try:
        sys.setprofile(ring)
        with deadline:
            sys.setprofile(ring)
            ran = True
    finally:
        sys.setprofile(None)
    assert ran and deadline._done.is_set() and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is before


def test_a_deadline_never_closed_neither_rings_later_nor_ends_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    ended: list[int] = []
    monkeypatch.setattr(limits, "GRACE_SECONDS", 0.1)
    monkeypatch.setattr(limits.os, "_exit", ended.append)
    before = signal.getsignal(signal.SIGALRM)
    left: list[Deadline] = []

    def leave_open() -> None:
        left.append(Deadline(0.05).__enter__())  # its work returns without closing it

    leave_open()  # in this thread: the alarm
    thread = threading.Thread(target=leave_open)  # in another: only the watchdog
    thread.start()
    thread.join()
    try:
        for _ in range(40):  # the alarm rings here, the watchdogs look past the grace
            time.sleep(0.02)
    except TimeLimitReached:
        pytest.fail("a deadline whose work is over raised into later code")
    time.sleep(0.4)
    assert not ended and left[0]._done.is_set()  # closed by its alarm; the other has none
    assert signal.getsignal(signal.SIGALRM) is before


def _many_creatures(tmp_path: Path, n: int, block: bool = True) -> Path:
    """A declare blockers step with ``n`` attacking Craw Wurms and ``n`` Grizzly Bears (and
    one block declared, when ``block``)."""
    attackers = ", ".join(f"{{id: a{i}, card: Craw Wurm, attacking: bob, tapped: true}}" for i in range(n))
    blockers = ", ".join(f"{{id: b{i}, card: Grizzly Bears}}" for i in range(n))
    path = tmp_path / "many.yaml"
    path.write_text(
        HEAD.replace("  active: alice\n", "  active: alice\n  step: declare_blockers\n")
        + f"    - {{name: alice, battlefield: [{attackers}]}}\n"
        + f"    - {{name: bob, battlefield: [{blockers}]}}\n"
        + ("do: [{declare_blockers: {b0: a0}}]\n" if block else "")
        + "expect: {legal_block_count: 3}\n"
    )
    return path


@pytest.mark.parametrize("command", ["check", "explain", "blocks", "attacks"])
def test_a_command_past_its_time_limit(tmp_path: Path, command: str) -> None:
    path = _many_creatures(tmp_path, 400)
    result = CliRunner().invoke(main, [command, "--time-limit", "0.01", str(path)])
    assert result.exit_code == TIME_LIMIT_STATUS, result.output
    assert "time limit of 0.01 s" in result.output and "Traceback" not in result.output


def test_an_interrupt_ends_a_command_with_its_status(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import bridge.cli as cli

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_scenario", interrupted)
    path = tmp_path / "s.yaml"
    path.write_text(scenario())
    result = CliRunner().invoke(cli.main, ["check", str(path)])
    assert result.exit_code == 130 and "interrupted" in result.output and "passed" not in result.output


# ------------------------------------------------------------------ messages
def test_one_line_escapes_and_shortens() -> None:
    assert one_line("a\nb\x00c\u2028") == "a\\nb\\x00c\\u2028"
    assert one_line("x" * 1000, 21) == "x" * 8 + " ... " + "x" * 8
    assert quote("Ajani's") == '"Ajani\'s"' and quote({"a": [1]}) == '{"a": [1]}'
    error = InputError("bad\nvalue " + "v" * 5000, source="f\n.yaml", location="line 1")
    assert str(error).startswith("f\\n.yaml: line 1: bad\\nvalue ") and len(str(error)) < 1000


def test_a_count_inside_the_solver_stops_at_the_time_limit(tmp_path: Path) -> None:
    """Hundreds of creatures: the count of legal blocks is stopped inside clingo's solving,
    which raises the time limit again as its own."""
    path = _many_creatures(tmp_path, 150, block=False)
    for command in (["blocks", "--count"], ["check"]):
        started = time.monotonic()
        result = CliRunner().invoke(main, [*command, "--time-limit", "2", str(path)])
        assert result.exit_code == TIME_LIMIT_STATUS, result.output
        assert "time limit of 2 s" in result.output and time.monotonic() - started < 15


def test_an_engine_failure_is_not_bad_input(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A rule module that fails to ground is the engine's failure: exit 1, said as such, not
    exit 2 as if the file were wrong."""
    import bridge.cli as cli
    from bridge.model.errors import RuleModuleError

    def failing(*args: object) -> None:
        raise RuleModuleError("grounding failed: a fault planted by the test")

    path = tmp_path / "s.yaml"
    path.write_text(scenario() + "do: [pass]\n")
    monkeypatch.setattr(cli.Game, "check", failing)
    result = CliRunner().invoke(cli.main, ["explain", str(path)])
    assert result.exit_code == 1 and "error: the engine failed (RuleModuleError)" in result.output
    monkeypatch.setattr(cli, "run_scenario", failing)
    result = CliRunner().invoke(cli.main, ["check", str(path)])
    assert result.exit_code == 1 and "CRASH" in result.output and "a fault planted" in result.output


@pytest.mark.parametrize("broken", [{"battlefield": -1}, {"hand": "Forest"}, {"library": {"a": 1}}])
def test_a_zone_that_is_not_a_list(tmp_path: Path, broken: dict[str, object]) -> None:
    path = tmp_path / "log.json"
    players = [{"name": "alice"}, {"name": "bob", **broken}]
    path.write_text(json.dumps({"state": {"active": "alice", "players": players}, "actions": []}))
    zone = next(iter(broken))
    one_error(["replay", str(path)], f"state.players[1].{zone}", "valid list")
    path.write_text(json.dumps({"state": {"active": "alice", "stack": 5, "players": players[:1] + [{"name": "bob"}]}}))
    one_error(["replay", str(path)], "state.stack", "valid list")
