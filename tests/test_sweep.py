"""Sweeps (bridge/play/sweep.py): the same results, in the same order, in this process, in
local processes and on a local Ray cluster; check, solve, selfplay and verify with
--backend and --jobs."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridge.cli import main
from bridge.model.errors import InputError
from bridge.play import sweep as sweeping
from bridge.play import verify as verifying
from bridge.play.selfplay import Outcome, Task, load_deck, run_tasks, shipped_decks
from bridge.play.sweep import Backend, sweep
from bridge.play.verify import Check, Problem, Property, Report, verify

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = [
    ROOT / "scenarios/combat/block/lure_all_able_must_block.yaml",
    ROOT / "scenarios/combat/block/artifact_creature_can_block.yaml",
    ROOT / "scenarios/combat/block/attacking_players_creature_cannot_block.yaml",
    ROOT / "scenarios/combat/block/band_nonflyer_cannot_block_flying_member.yaml",
    ROOT / "scenarios/combat/block/band_two_blockers_each_block_whole_band.yaml",
]
PUZZLES = [ROOT / "puzzles/doom_blade_the_angel.yaml", ROOT / "puzzles/trample_over_two_blockers.yaml"]


# ---------------------------------------------------------------------- the sweep itself
def _halve(n: int) -> int:
    if n == 13:
        raise InputError("thirteen can't be halved here")
    return n // 2


def test_local_processes_give_the_serial_results_in_order() -> None:
    items = [9, 2, 7, 4, 100, 1, 0, 55, 8, 3, 6, 5] * 3
    progress: list[tuple[int, int | None]] = []
    two = list(sweep(_halve, items, Backend(jobs=2), on_progress=lambda done, total: progress.append((done, total))))
    assert two == list(map(_halve, items)) == [n // 2 for n in items]
    assert progress == [(n, len(items)) for n in range(1, len(items) + 1)]
    # items counted as they come (a generator): no total
    seen: list[int | None] = []
    assert list(sweep(_halve, iter(items), Backend(jobs=2), on_progress=lambda _, t: seen.append(t))) == two
    assert set(seen) == {None}


def test_an_error_in_a_process_is_raised_as_it_was_raised_there() -> None:
    with pytest.raises(InputError, match="thirteen"):
        list(sweep(_halve, [1, 2, 13, 4], Backend(jobs=2)))
    # the results before it came first
    got = []
    with pytest.raises(InputError):
        for result in sweep(_halve, [8, 6, 13, 4], Backend(jobs=2)):
            got.append(result)
    assert got == [4, 3]


def _dies_on_five(n: int) -> int:
    if n == 5:
        os._exit(9)  # as a process killed for its memory
    return n * 10


def test_only_the_item_that_kills_its_process_fails() -> None:
    items = list(range(1, 10))
    results = list(sweep(_dies_on_five, items, Backend(jobs=2), died=lambda n: -n))
    assert results == [10, 20, 30, 40, -5, 60, 70, 80, 90]
    with pytest.raises(RuntimeError, match="died"):
        list(sweep(_dies_on_five, items, Backend(jobs=2)))


def _exits(check: Check) -> Problem | None:
    os._exit(9)  # as a process killed for its memory


def test_a_process_that_dies_ends_the_command_on_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # the processes are forked: they check sba with the planted check
    monkeypatch.setitem(verifying.PROPERTIES, "sba", dataclasses.replace(verifying.PROPERTIES["sba"], check=_exits))
    args = ["verify", "--cards", "Grizzly Bears", "--max-permanents", "1", "--properties", "sba", "--positions", "0"]
    result = CliRunner().invoke(main, [*args, "--jobs", "2", "--out", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines()[-1] == "error: a process of the sweep died (out of memory, or killed)"
    assert isinstance(result.exception, SystemExit)  # no traceback


def test_the_backend_of_the_options() -> None:
    assert Backend.of("local", 3) == Backend("local", 3)
    assert Backend("local", 3).describe() == "3 processes"
    assert Backend().describe() == "this process"
    with pytest.raises(InputError, match="--address"):
        Backend.of("local", None, "auto")
    with pytest.raises(InputError, match="--backend"):
        Backend.of("spark")


@pytest.mark.parametrize("command", ["check", "solve", "verify", "selfplay"])
def test_backend_ray_without_ray_installed_exits_2_saying_how_to_install_it(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweeping, "_ray_installed", lambda: False)
    args = {"check": [str(SCENARIOS[0])], "solve": [str(PUZZLES[0])], "verify": [], "selfplay": []}[command]
    result = CliRunner().invoke(main, [command, *args, "--backend", "ray"])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "pip install 'mtgasp[ray]'" in lines[0] and "Traceback" not in result.output


def test_an_address_without_backend_ray_exits_2() -> None:
    result = CliRunner().invoke(main, ["check", str(SCENARIOS[0]), "--address", "auto"])
    assert result.exit_code == 2 and "--backend ray" in result.output


# ---------------------------------------------------------------------- the commands, local processes
def test_check_in_two_processes_prints_what_the_serial_run_prints() -> None:
    files = [str(p) for p in SCENARIOS] + [str(ROOT / "scenarios/does_not_exist.yaml")]
    one = CliRunner().invoke(main, ["check", *files])
    two = CliRunner().invoke(main, ["check", *files, "--jobs", "2"])
    assert one.exit_code == two.exit_code == 2  # the missing file
    assert one.output == two.output
    assert one.output.splitlines()[-1] == "5 passed, 0 failed, 1 could not be read"
    assert [line.split()[1] for line in one.output.splitlines()[:5]] == [str(p) for p in SCENARIOS]


def _bob_or_bears(check: Check) -> Problem | None:
    """A stand-in property that fails where bob has a permanent, or alice a Grizzly Bears."""
    alice, bob = check.state.players
    if bob.battlefield:
        return Problem("bob has a permanent", ("613.1",))
    if any(p.card == "Grizzly Bears" for p in alice.battlefield):
        return Problem("alice has Grizzly Bears", ("613.1",))
    return None


def _busy(check: Check) -> Problem | None:
    """A stand-in property that only spends CPU (a tenth of a second a position)."""
    began = time.process_time()
    while time.process_time() - began < 0.1:
        pass
    return None


def test_verify_counts_the_cpu_of_the_processes_that_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # the positions are checked in two other processes while this one waits for them: the
    # report's CPU seconds are theirs too, at least what the property spent there
    monkeypatch.setitem(verifying.PROPERTIES, "characteristics", Property("characteristics", _busy, ("main1",), "busy"))
    run = dict(max_permanents=1, tapped=False, properties=["characteristics"], random_count=0, seed=5)
    two = verify(["Grizzly Bears", "Giant Spider"], **run, backend=Backend(jobs=2))  # type: ignore[arg-type]
    assert two.positions == 4
    assert two.cpu_by_property["characteristics"] >= 0.4
    assert two.cpu_seconds >= two.cpu_by_property["characteristics"]


def _findings(report: Report) -> list[tuple[object, ...]]:
    return [
        (f.property, f.message, f.rules, f.state.model_dump_json(), f.original and f.original.model_dump_json())
        for f in report.findings
    ]


def _same_reports(a: Report, b: Report) -> None:
    assert a.complete and b.complete
    assert (a.positions, a.checked) == (b.positions, b.checked)
    assert _findings(a) == _findings(b)


def test_verify_in_two_processes_finds_the_same_in_the_same_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # the processes are forked, so they check with the stand-in
    stand_in = Property("characteristics", _bob_or_bears, ("main1",), "a stand-in")
    monkeypatch.setitem(verifying.PROPERTIES, "characteristics", stand_in)
    cards = ["Grizzly Bears", "Giant Spider"]
    run = dict(max_permanents=2, tapped=False, properties=["characteristics"], random_count=3, seed=5)
    serial = verify(cards, **run)  # type: ignore[arg-type]
    two = verify(cards, **run, backend=Backend(jobs=2))  # type: ignore[arg-type]
    _same_reports(serial, two)
    # the findings, kept once each after shrinking, in the order the positions found them
    assert serial.positions == 4 + 10 + 3
    # 15 of the positions fail; shrunk to one permanent, they come to three findings, in the
    # order of the positions (Piece sorts by card: Giant Spider's before Grizzly Bears')
    kept = [(f.message, [[p.card for p in player.battlefield] for player in f.state.players]) for f in serial.findings]
    assert kept == [
        ("bob has a permanent", [[], ["Giant Spider"]]),
        ("alice has Grizzly Bears", [["Grizzly Bears"], []]),
        ("bob has a permanent", [[], ["Grizzly Bears"]]),
    ]


def test_solve_over_a_folder_prints_one_line_per_puzzle_in_order(tmp_path: Path) -> None:
    for p in PUZZLES:
        shutil.copy(p, tmp_path / p.name)
    (tmp_path / "bad.yaml").write_text("goal: [\n")
    serial = CliRunner().invoke(main, ["solve", str(tmp_path), "--time-limit", "120"])
    two = CliRunner().invoke(main, ["solve", str(tmp_path), "--time-limit", "120", "--jobs", "2"])
    assert serial.exit_code == two.exit_code == 2, serial.output  # the bad puzzle
    lines = serial.output.splitlines()
    assert lines[0].startswith("ERROR") and "bad.yaml" in lines[0]
    assert lines[1].startswith("win     ") and "doom_blade_the_angel.yaml" in lines[1]
    assert lines[2].startswith("win     ") and "trample_over_two_blockers.yaml" in lines[2]
    assert lines[3] == "3 puzzles: 2 solved, 1 can't be read"
    assert _without_times(serial.output) == _without_times(two.output)


def _without_times(output: str) -> str:
    return re.sub(r"in [0-9.]+ s \([0-9]+/s\)", "in _ s", output)


def _answers(output: str) -> list[dict[str, object]]:
    """The JSON lines of ``solve --json`` without their times."""
    out = []
    for line in output.splitlines():
        answer = json.loads(line)
        answer.pop("seconds", None)
        answer.pop("nodes_per_second", None)
        out.append(answer)
    return out


# ---------------------------------------------------------------------- Ray
def _need_ray() -> None:
    """Ray is the optional extra: the tests that use it are skipped without it, except in CI,
    whose test command installs it."""
    if os.environ.get("CI"):
        import ray  # noqa: F401  # the extra must be there
    else:
        pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    """A local Ray cluster of two CPUs, started once for the tests that share it."""
    _need_ray()
    with sweeping.cluster(Backend("ray", jobs=2)):
        yield


def test_verify_on_ray_is_the_serial_report(ray_cluster: None) -> None:
    run = dict(max_permanents=1, tapped=False, properties=["characteristics"], random_count=2, seed=3)
    cards = ["Grizzly Bears", "Giant Spider"]
    serial = verify(cards, **run)  # type: ignore[arg-type]
    on_ray = verify(cards, **run, backend=Backend("ray"))  # type: ignore[arg-type]
    _same_reports(serial, on_ray)
    assert serial.positions == 4 + 2


def test_selfplay_on_ray_plays_the_serial_games(ray_cluster: None) -> None:
    decks = shipped_decks()
    pair = (load_deck(decks["red_goblins"]), load_deck(decks["green_stompy"]))
    tasks = [Task(pair, seed, 12) for seed in (1, 2, 3)]

    def games(outcomes: list[Outcome]) -> list[tuple[object, ...]]:
        return [(o.task.seed, o.failure, o.result and dataclasses.replace(o.result, seconds=0.0)) for o in outcomes]

    assert games(list(run_tasks(tasks, backend=Backend("ray")))) == games(list(run_tasks(tasks)))


def test_solve_and_check_on_ray_answer_as_local_processes(ray_cluster: None) -> None:
    puzzles = [str(p) for p in PUZZLES]
    local = CliRunner().invoke(main, ["solve", *puzzles, "--json"])
    on_ray = CliRunner().invoke(main, ["solve", *puzzles, "--json", "--backend", "ray"])
    assert local.exit_code == on_ray.exit_code == 0, local.output + on_ray.output
    assert _answers(local.output) == _answers(on_ray.output)
    assert [a["file"] for a in _answers(local.output)] == puzzles
    assert {a["result"] for a in _answers(local.output)} == {"win"}
    files = [str(p) for p in SCENARIOS]
    serial = CliRunner().invoke(main, ["check", *files])
    checked = CliRunner().invoke(main, ["check", *files, "--backend", "ray"])
    assert serial.exit_code == checked.exit_code == 0
    assert serial.output == checked.output


def test_the_command_starts_a_quiet_local_ray_cluster_and_removes_it() -> None:
    """The command line as a person runs it: a local cluster started, nothing from Ray on
    the terminal, the same output as the serial run, and the cluster's folder gone after."""
    _need_ray()
    files = [str(p) for p in SCENARIOS[:3]]
    mtgasp = [str(Path(sys.executable).parent / "mtgasp")]
    temp = tempfile.mkdtemp(prefix="mt")  # short: the cluster's sockets live under it
    try:
        env = os.environ | {"TMPDIR": temp}
        serial = subprocess.run([*mtgasp, "check", *files], capture_output=True, text=True, env=env, cwd=ROOT)
        on_ray = subprocess.run(
            [*mtgasp, "check", *files, "--backend", "ray", "--jobs", "2"],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert on_ray.returncode == serial.returncode == 0, on_ray.stderr
        assert on_ray.stdout == serial.stdout
        assert on_ray.stderr == ""
        assert os.listdir(temp) == []
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _diff_document(path: Path, *options: str) -> dict[str, object]:
    result = CliRunner().invoke(main, ["diff", "--boards", "12", "--seed", "30", "--json", str(path), *options])
    assert result.exit_code in (0, 1), result.output
    document = json.loads(path.read_text())
    del document["summary"]["seconds"]
    return document


def test_diff_in_two_processes_and_on_ray_is_the_serial_run(tmp_path: Path, ray_cluster: None) -> None:
    pytest.importorskip("phase")
    serial = _diff_document(tmp_path / "serial.json")
    assert serial["summary"]["boards"] == 12 and serial["complete"]  # type: ignore[index]
    assert _diff_document(tmp_path / "two.json", "--jobs", "2") == serial
    assert _diff_document(tmp_path / "ray.json", "--backend", "ray") == serial
