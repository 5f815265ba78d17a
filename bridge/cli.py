"""The ``mtgasp`` command.

Exit status: 0 when everything asked for holds, 1 when a scenario's expectation differs (or
a scenario made the engine fail: reported with its file, and the run goes on) or a citation
names a number the rules text doesn't have (``coverage``),
2 when a file can't be used (the message names the file, the place and the problem),
3 when the time limit (``--time-limit``) stopped the work (what was done is reported),
130 when an interrupt (Ctrl-C) stopped it.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from bridge.engine.board import partial_cards
from bridge.engine.game import Game
from bridge.engine.solver import collect_less
from bridge.io.coverage import DEFAULT_SECTIONS
from bridge.io.scenarios import default_choices, run_scenario
from bridge.io.writing import write_whole
from bridge.model.actions import DeclareAttackers, DeclareBlockers
from bridge.model.cards import CardPool
from bridge.model.errors import InputError, MtgaspError, WorkerDied, one_line, quote
from bridge.model.limits import INTERRUPT_STATUS, MAX_PROMPT, TIME_LIMIT_STATUS, Deadline, TimeLimitReached
from bridge.model.scenario import Scenario, load_scenario
from bridge.play.sweep import BACKENDS, Backend, cluster, sweep

if TYPE_CHECKING:
    from bridge.model.puzzle import Puzzle
    from bridge.play.agents import Agent
    from bridge.play.perft import PerftCount
    from bridge.play.selfplay import Deck, GameResult, Outcome

__all__ = ["main"]


def _files(paths: Iterable[str], suffixes: tuple[str, ...] = (".yaml",)) -> list[Path]:
    """The files of the arguments: a folder stands for its files with one of ``suffixes``
    (any case), in the order of their names."""
    out: list[Path] = []
    for p in map(Path, paths):
        try:
            folder = p.is_dir()
        except (OSError, ValueError):  # a name no file can have: reading it says so
            folder = False
        out.extend(sorted(f for f in p.rglob("*") if f.suffix.lower() in suffixes) if folder else [p])
    return out


def _show(path: object) -> str:
    """A file's name as a report line shows it: one line, shortened in the middle."""
    return one_line(str(path), 200)


def _fail(message: str, exc: Exception | None = None) -> NoReturn:
    """End the command on an error: exit 2 for bad input; exit 1 when ``exc`` is the
    engine's own failure (a rule module that can't be grounded), which no input explains."""
    if exc is not None and not isinstance(exc, InputError):
        click.echo(f"error: the engine failed ({type(exc).__name__}): {one_line(message, 1000)}", err=True)
        sys.exit(1)
    click.echo(f"error: {one_line(message, 1000)}", err=True)
    sys.exit(2)


def _out_of_time(message: str) -> NoReturn:
    """The time limit stopped the command: say what was done, exit 3."""
    click.echo(f"stopped: {one_line(message, 1000)}", err=True)
    sys.exit(TIME_LIMIT_STATUS)


def _time_limit(default: float, what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(
        "--time-limit",
        "time_limit",
        default=default,
        show_default=True,
        type=click.FloatRange(min=0, max=10**7),
        help=f"seconds {what} may take (0: no limit); past it the command stops, says what it "
        f"has done, and exits with status {TIME_LIMIT_STATUS}",
    )


def _writable_folder(folder: Path, what: str) -> None:
    """Fail now, before anything is played, if ``folder`` can't be made or written to: the
    game log (or result) written at the end would be lost."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        _fail(f"{folder}: can't write {what} there: a file is in the way of that folder")
    except OSError as exc:
        _fail(f"{folder}: can't write {what} there: {exc.strerror or exc}")
    if not os.access(folder, os.W_OK):
        _fail(f"{folder}: can't write {what} there: permission denied")


def _sweep_options(jobs: bool = True) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The options that say where a command's many pieces of work run (bridge/play/sweep.py)."""

    def add(command: Callable[..., None]) -> Callable[..., None]:
        command = click.option(
            "--address",
            help="with --backend ray: the address of the Ray cluster to use (auto: the one this machine "
            "belongs to); without it a local cluster is started for the run and shut down after it",
        )(command)
        command = click.option(
            "--backend",
            type=click.Choice(BACKENDS),
            default="local",
            show_default=True,
            help="where the work runs: local processes (--jobs), or the tasks of a Ray cluster (the "
            "optional extra mtgasp[ray]); the results, and their order, are the same",
        )(command)
        if jobs:
            command = click.option(
                "--jobs",
                type=click.IntRange(min=1, max=256),
                help="pieces of work at once, in separate processes (default: 1, in this process; with "
                "--backend ray, the CPUs of the local cluster: all of this machine's)",
            )(command)
        return command

    return add


def _backend(kind: str, jobs: int | None, address: str | None) -> Backend:
    """The backend of the options, or exit 2 with what is wrong with them."""
    try:
        return Backend.of(kind, jobs, address)
    except InputError as exc:
        _fail(str(exc), exc)


@contextlib.contextmanager
def _on(where: Backend) -> Iterator[None]:
    """Connected to the backend's Ray cluster (started, when local) for the command's sweeps,
    and shut down after them; exit 2 when the cluster can't be reached."""
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(cluster(where))
    except InputError as exc:
        _fail(str(exc), exc)
    with stack:
        yield


class _Commands(click.Group):
    """The commands, each of which ends on an interrupt with status 130 (said on one line),
    never a traceback, on a time limit that escaped it with status 3, and when a process of
    its sweep died with status 1 (said on one line)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:  # a bad option: its value quoted on one line, shortened
            # click marks the message final, yet it is read only when the error is shown
            exc.message = one_line(exc.message, 500)  # type: ignore[misc]
            raise
        except KeyboardInterrupt:
            sys.stdout.flush()
            click.echo("interrupted", err=True)
            raise click.exceptions.Exit(INTERRUPT_STATUS) from None
        except TimeLimitReached as exc:
            click.echo(f"stopped: {exc}", err=True)
            raise click.exceptions.Exit(TIME_LIMIT_STATUS) from None
        except WorkerDied as exc:  # what was done is lost with the process: said on one line
            sys.stdout.flush()
            click.echo(f"error: {one_line(str(exc), 500)}", err=True)
            raise click.exceptions.Exit(1) from None


@click.group(cls=_Commands)
@click.version_option(package_name="mtgasp")
def main() -> None:
    """Magic: The Gathering rules as answer-set programs: judge, explain, count.

    Exit status: 0 all holds, 1 an expectation differs, a game failed or a citation names no
    rule, 2 an input can't be
    used (one line names the file, the place and the problem), 3 the time limit stopped the
    work, 130 an interrupt stopped it."""
    collect_less()


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--quiet", "-q", is_flag=True, help="print only scenarios that do not pass")
@_time_limit(60, "each scenario")
@_sweep_options()
def check(
    paths: tuple[str, ...], quiet: bool, time_limit: float, jobs: int | None, backend: str, address: str | None
) -> None:
    """Run scenario files (or folders of them) and report pass or the first difference.
    Exit status 0 all pass, 1 one differs, 2 a file can't be read, 3 a scenario ran out of
    time (reported as TIME, and the run goes on)."""
    where = _backend(backend, jobs, address)
    counts = dict.fromkeys(("pass", "FAIL", "ERROR", "CRASH", "TIME"), 0)
    files = _files(paths)
    with _on(where):
        for kind, line, notes in sweep(functools.partial(_check_one, time_limit), files, where, died=_check_died):
            counts[kind] += 1
            if not quiet or kind != "pass":
                click.echo(line)
            if not quiet:
                _say_partial(notes, indent="      ")
    click.echo(
        f"{counts['pass']} passed, {counts['FAIL']} failed"
        + (f", {counts['ERROR']} could not be read" if counts["ERROR"] else "")
        + (f", {counts['CRASH']} crashed the engine" if counts["CRASH"] else "")
        + (f", {counts['TIME']} stopped by the time limit" if counts["TIME"] else "")
    )
    failed = counts["FAIL"] or counts["CRASH"]
    sys.exit(2 if counts["ERROR"] else TIME_LIMIT_STATUS if counts["TIME"] else 1 if failed else 0)


def _check_one(time_limit: float, path: Path) -> tuple[str, str, dict[str, str]]:
    """One scenario file run: how it went (pass, FAIL, ERROR, CRASH, TIME), the line that
    says so, and the parts of its cards' text the engine leaves out (:func:`_say_partial`)."""
    try:
        with Deadline(time_limit, message=f"{_show(path)}: the time limit of {time_limit:g} s was reached"):
            scenario = load_scenario(path)
            result = run_scenario(scenario, str(path))
    except TimeLimitReached:
        return "TIME", f"TIME  {_show(path)}: stopped by the time limit of {time_limit:g} s", {}
    except InputError as exc:
        return "ERROR", f"ERROR {one_line(str(exc), 1000)}", {}
    except Exception as exc:  # a fault of the engine, not of the file: named, and the run goes on
        return "CRASH", f"CRASH {_show(path)}: the engine failed ({type(exc).__name__}: {one_line(str(exc), 500)})", {}
    notes = partial_cards(scenario.state, CardPool.default())
    if result.passed:
        return "pass", f"pass  {_show(path)}", notes
    return "FAIL", f"FAIL  {_show(path)}: {one_line(result.difference or '', 1000)}", notes


def _check_died(path: Path) -> tuple[str, str, dict[str, str]]:
    why = "out of memory, killed, or past its time limit"
    return "CRASH", f"CRASH {_show(path)}: the process running it died ({why})", {}


def _say_partial(parts: dict[str, str], indent: str = "") -> None:
    """Name each card whose file leaves part of its printed text out, and what: it does
    nothing in this game."""
    for name, missing in parts.items():
        click.echo(f"{indent}note: {name} leaves out {missing} (not in the engine: it does nothing here)")


def _load(path: str) -> tuple[Scenario, Game]:
    try:
        scenario = load_scenario(Path(path))
        return scenario, Game(scenario.state)
    except MtgaspError as exc:
        _fail(str(exc.at(source=path)) if isinstance(exc, InputError) else f"{path}: {exc}", exc)
        raise  # unreachable


@main.command()
@click.argument("path")
@click.option("--object", "object_id", help="explain this permanent's characteristics, layer by layer")
@click.option("--damage", is_flag=True, help="list each creature's legal combat damage assignments in the position")
@_time_limit(60, "the command")
def explain(path: str, object_id: str | None, damage: bool, time_limit: float) -> None:
    """Print the verdict on each of a scenario's actions, rule by rule, with each creature's
    legal combat damage assignments before an assign_damage action (or, with --object, how
    the layers make a permanent what it is; with --damage, the damage choices only)."""
    try:
        with Deadline(time_limit):
            _explain(path, object_id, damage)
    except TimeLimitReached:
        _out_of_time(f"{path}: the time limit of {time_limit:g} s was reached; what is above was explained")


def _explain(path: str, object_id: str | None, damage: bool) -> None:
    from bridge.engine.explain import explain_damage, format_damage

    scenario, game = _load(path)
    if object_id is not None:
        from bridge.engine.explain import explain as explain_object
        from bridge.engine.explain import format_explanation

        try:
            click.echo(format_explanation(game, explain_object(game, object_id)))
        except MtgaspError as exc:
            _fail(f"{path}: {exc}", exc)
        return
    if damage:
        try:
            click.echo(format_damage(game, explain_damage(game)))
        except MtgaspError as exc:
            _fail(f"{path}: {exc}", exc)
        return
    click.echo(f"{scenario.title}  [{', '.join(scenario.cite)}]")
    _say_partial(game.partial_cards())
    if not scenario.do:
        click.echo("no actions")
    for index, action in enumerate(scenario.do):
        try:
            default_choices(game, action)
            verdict = game.check(action)
        except MtgaspError as exc:
            _fail(f"{path}: do[{index}]: {exc}", exc)
            return
        if action.kind == "assign_damage":
            try:
                click.echo(format_damage(game, explain_damage(game)))
            except MtgaspError as exc:
                _fail(f"{path}: do[{index}]: {exc}", exc)
                return
        click.echo(f"do[{index}] {action.kind}: {'legal' if verdict.legal else 'illegal'}")
        for v in verdict.violations:
            names = ", ".join(game.describe(o) for o in v.objects)
            click.echo(f"  {' / '.join(v.rules)}  [{names}]  {v.message}")
        if not verdict.legal:
            break
        game.push(action)


def _declarations(path: str, kind: str, count: bool, time_limit: float) -> None:
    n = 0
    try:
        with Deadline(time_limit):
            _, game = _load(path)
            view = game.legal_blocks if kind == "blocks" else game.legal_attacks
            if count:
                click.echo(len(view))
                return
            for declaration in view:
                n += 1
                click.echo(_format(game, declaration))
        click.echo(f"{n} legal declaration(s)")
    except MtgaspError as exc:
        _fail(f"{path}: {exc}", exc)
    except TimeLimitReached:
        done = "the count was not finished" if count else f"{n} legal declaration(s) listed above, and maybe more"
        _out_of_time(f"{path}: the time limit of {time_limit:g} s was reached: {done}")


def _format(game: Game, declaration: object) -> str:
    if isinstance(declaration, DeclareBlockers):
        if not declaration.blockers:
            return "no blockers"
        return "; ".join(
            f"{game.describe(b)} blocks {', '.join(game.describe(a) for a in attackers)}"
            for b, attackers in declaration.blockers.items()
        )
    assert isinstance(declaration, DeclareAttackers)
    if not declaration.attackers:
        return "no attackers"
    text = "; ".join(f"{game.describe(c)} attacks {game.describe(t)}" for c, t in declaration.attackers.items())
    for band in declaration.bands:
        text += f"; band: {', '.join(game.describe(c) for c in band)}"
    return text


@main.command()
@click.argument("path")
@click.option("--count", is_flag=True, help="print only the number of legal declarations")
@_time_limit(60, "the command")
def blocks(path: str, count: bool, time_limit: float) -> None:
    """List the legal declarations of blockers in a scenario's position."""
    _declarations(path, "blocks", count, time_limit)


@main.command()
@click.argument("path")
@click.option("--count", is_flag=True, help="print only the number of legal declarations")
@_time_limit(60, "the command")
def attacks(path: str, count: bool, time_limit: float) -> None:
    """List the legal declarations of attackers in a scenario's position."""
    _declarations(path, "attacks", count, time_limit)


@main.command()
@click.argument("path")
@click.option(
    "--depth",
    required=True,
    type=click.IntRange(min=1, max=100),
    help="count the action sequences this many steps deep",
)
@click.option("--divide", is_flag=True, help="also print the count under each first action")
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    help="also write the counts here (JSON; written when the time limit stops the count too, marked incomplete)",
)
@_time_limit(600, "the count")
def perft(path: str, depth: int, divide: bool, json_path: str | None, time_limit: float) -> None:
    """Count the legal action sequences from a scenario's position (its state), DEPTH steps
    deep: a step is one decision of the player who must act, every action the engine lists
    as legal (casting with each choice of targets and way to pay, activating, each color of
    a mana ability, playing a land, passing, every legal declaration of attackers or
    blockers, the targets of a triggered ability).  The count at each depth from 1 to DEPTH
    is the number of positions that many steps down; a game that ends sooner counts as one
    at every depth past its end.  With --divide, the count at DEPTH under each first action
    (written as the game log writes it).  Exit status 1 when an action listed as legal is
    refused (or listed twice): the engine is at fault, and the message names the action and
    the line that led to it."""
    from bridge.play.perft import PerftCount, logged
    from bridge.play.perft import perft as count_sequences

    _scenario, game = _load(path)
    if json_path:
        _writable_folder(Path(json_path).absolute().parent, "the counts")
    _say_partial(game.partial_cards())
    count = PerftCount(depth)

    def first_done(done: PerftCount) -> None:
        action, n = done.divide[-1]
        if divide:
            click.echo(f"{logged(action)}: {n}")
        deadline.message = f"{path}: the time limit of {time_limit:g} s was reached; {_perft_so_far(done)}"

    deadline = Deadline(time_limit, message=f"{path}: the time limit of {time_limit:g} s was reached")
    stopped = False
    try:
        with deadline:
            count_sequences(game, depth, on_first=first_done, count=count)
    except TimeLimitReached:
        stopped = True
    except MtgaspError as exc:
        _fail(f"{path}: {exc}", exc)
    if json_path:
        report = {
            "position": path,
            "depth": depth,
            "complete": count.complete,
            "counts": {str(d): n for d, n in enumerate(count.counts, start=1)},
            "divide": [{"action": json.loads(logged(a)), "count": n} for a, n in count.divide],
            "nodes": count.nodes,
            "seconds": round(count.seconds, 3),
            "nodes_per_second": round(count.nodes_per_second, 1),
        }
        try:
            write_whole(json_path, json.dumps(report, indent=1) + "\n")
        except OSError as exc:
            _fail(f"{json_path}: can't write the counts: {exc.strerror or exc}")
    if stopped:
        _out_of_time(f"{path}: the time limit of {time_limit:g} s was reached; {_perft_so_far(count)}")
    for d, n in enumerate(count.counts, start=1):
        click.echo(f"depth {d}: {n}")
    click.echo(f"{count.nodes} nodes in {count.seconds:.2f} s, {count.nodes_per_second:.1f} nodes/s")


def _perft_so_far(count: PerftCount) -> str:
    """What a stopped perft had counted: the first actions done, and the leaves so far."""
    counts = ", ".join(f"depth {d}: {n}" for d, n in enumerate(count.counts, start=1))
    return (
        f"counted so far (incomplete) under {len(count.divide)} first action(s): {counts or 'nothing'}; "
        f"{count.nodes} nodes in {count.seconds:.2f} s, {count.nodes_per_second:.1f} nodes/s"
    )


@main.command()
@click.option("--cards", is_flag=True, help="the schema of card files instead of scenario files")
@_time_limit(60, "the command")
def schema(cards: bool, time_limit: float) -> None:
    """Print the JSON Schema of scenario files (or of card files)."""
    from bridge.io.schemas import card_schema, scenario_schema

    try:
        with Deadline(time_limit):
            text = json.dumps(card_schema() if cards else scenario_schema(), indent=2, sort_keys=True)
    except TimeLimitReached:
        _out_of_time(f"the time limit of {time_limit:g} s was reached; nothing was printed")
    click.echo(text)


@main.command()
@click.option(
    "--sections",
    default=DEFAULT_SECTIONS,
    show_default=True,
    help="the sections of the rules text to count, by number or range, separated by commas",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    help="also write the figures and the lists to this file (JSON)",
)
@click.option(
    "--rules-text",
    type=click.Path(dir_okay=False),
    help="the October 2009 rules text (default: shared/seeds/000_00f3c3315372eec8.txt in a folder above the checkout)",
)
@click.option(
    "--modules",
    type=click.Path(file_okay=False),
    help="the folder of rule modules whose comments cite rules (default: asp_rules)",
)
@click.option(
    "--scenarios",
    type=click.Path(file_okay=False),
    help="the folder of scenario files whose cite lists name rules (default: the checkout's scenarios)",
)
@_time_limit(60, "the command")
def coverage(
    sections: str,
    json_path: str | None,
    rules_text: str | None,
    modules: str | None,
    scenarios: str | None,
    time_limit: float,
) -> None:
    """For each rule of the sections, whether a rule module's comment cites it and whether a
    scenario's cite list names it: a table by section, then the rules cited nowhere, then the
    rules not both cited and exercised with the reason uncovered.yaml (in the folder of rule
    modules) gives, and those without one.  A rule counts for its own number only (508.1 is
    not cited because 508.1d is; the column "untouched" counts the rules cited nowhere, nor
    any subrule of them).  Exit status 0, or 1 when a module, scenario or uncovered.yaml
    names a number the rules text doesn't have, or uncovered.yaml explains a rule that is
    both cited and exercised (each is listed), 2 when a file or folder can't be used, 3 when
    the time limit stopped the count."""
    from bridge.io.coverage import format_coverage, measure
    from bridge.model.paths import rules_dir, rules_text_file, scenarios_dir

    text = Path(rules_text) if rules_text else rules_text_file()
    folder = Path(scenarios) if scenarios else scenarios_dir()
    if text is None:
        _fail("the rules text was not found beside the checkout: name it with --rules-text FILE")
    if folder is None:
        _fail("no scenarios folder beside the package: name one with --scenarios DIR")
    if json_path:
        _writable_folder(Path(json_path).absolute().parent, "the figures")
    try:
        with Deadline(time_limit):
            found = measure(text, Path(modules) if modules else rules_dir(), folder, sections, CardPool.default().all())
    except InputError as exc:
        _fail(str(exc), exc)
    except TimeLimitReached:
        _out_of_time(f"the time limit of {time_limit:g} s was reached before the count was done")
    click.echo(format_coverage(found))
    if json_path:
        try:
            write_whole(json_path, json.dumps(found.to_json(), indent=1) + "\n")
        except OSError as exc:
            _fail(f"{json_path}: can't write the figures: {exc.strerror or exc}")
        click.echo(f"figures: {json_path}")
    sys.exit(1 if found.unknown else 0)


@main.command()
@click.argument("path")
@click.option(
    "--human",
    "humans",
    multiple=True,
    help="a player a person plays at the prompt (default: the active player); the others play by --opponent",
)
@click.option(
    "--opponent", type=click.Choice(["random", "first", "human"]), default="random", help="how the other players choose"
)
@click.option(
    "--seed",
    default=1,
    show_default=True,
    type=click.IntRange(min=-(10**18), max=10**18),
    help="seed of the random players",
)
@click.option("--max-actions", default=2000, show_default=True, type=click.IntRange(min=1, max=10**6))
@click.option(
    "--log",
    "log_path",
    type=click.Path(dir_okay=False, writable=True),
    help="write the game log (JSON) here; `mtgasp replay` plays it back",
)
@_time_limit(600, "the engine (not the prompt)")
def play(
    path: str,
    humans: tuple[str, ...],
    opponent: str,
    seed: int,
    max_actions: int,
    log_path: str | None,
    time_limit: float,
) -> None:
    """Play the position of a scenario file to the end: a person at the prompt against the
    chosen opponent; each turn shows the board, the stack and the numbered legal actions.
    Typing q (or the end of the input) stops the game; the position and the log so far are
    kept.  Exit status 3 when the engine's time runs out (the clock stops at the prompt)."""
    from bridge.play.agents import FirstLegalAgent, HumanAgent, RandomAgent, describe_game
    from bridge.play.agents import play as run

    _scenario, game = _load(path)
    if log_path:
        _writable_folder(Path(log_path).absolute().parent, "the game log")
    names = [p.name for p in game.state.players]
    for name in humans:
        if name not in names:
            _fail(f"{path}: no player is called {name!r} (players: {', '.join(names)})")
    humans = humans or (game.state.active,)
    _say_partial(game.partial_cards())
    deadline = Deadline(time_limit, message=f"{path}: the time limit of {time_limit:g} s was reached")
    quit_asked = []

    def read(prompt: str) -> str:
        """A line typed at the prompt (the clock stopped meanwhile): q at the end of the input;
        anything other than q or a number of a few digits is shown as not understood."""
        click.echo(prompt, nl=False)
        stream = getattr(sys.stdin, "buffer", sys.stdin)  # bytes: text that isn't UTF-8 is not understood
        with deadline.paused():
            raw = stream.readline(MAX_PROMPT + 1)
            if len(raw) > MAX_PROMPT:  # the rest of a line too long to be an answer
                while raw and raw[-1:] not in ("\n", b"\n"):
                    raw = stream.readline(MAX_PROMPT + 1)
                return "?"
        line = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        answer = line.strip() if line else "q"
        if answer in ("q", "quit", ""):
            quit_asked.append(True)
            return "q"
        return answer if answer.isascii() and answer.isdigit() and len(answer) <= 9 else "?"

    agents: dict[str, Agent] = {}
    for i, name in enumerate(names):
        if name in humans or opponent == "human":
            agents[name] = HumanAgent(read=read, write=click.echo)
        elif opponent == "first":
            agents[name] = FirstLegalAgent()
        else:
            agents[name] = RandomAgent(seed + i)
    stopped = None
    try:
        with deadline:
            run(game, agents, max_actions=max_actions)
    except KeyboardInterrupt:
        if not quit_asked:
            raise  # an interrupt, not q: the command ends with its status
        click.echo("stopped")
    except TimeLimitReached:
        stopped = f"{path}: the time limit of {time_limit:g} s was reached after {len(game.log)} actions"
    except MtgaspError as exc:
        _fail(f"{path}: {exc}", exc)
    click.echo(describe_game(game))
    winner = game.winner()
    click.echo(f"winner: {winner}" if winner else f"no winner after {len(game.log)} actions")
    if log_path:
        try:
            write_whole(log_path, json.dumps(game.game_log(), indent=1))
        except OSError as exc:
            _fail(f"{log_path}: can't write the game log: {exc.strerror or exc}")
        click.echo(f"game log: {log_path}")
    if stopped:
        _out_of_time(stopped)


@main.command()
@click.argument("log_path", type=click.Path(exists=True, dir_okay=False))
@_time_limit(600, "the replay")
def replay(log_path: str, time_limit: float) -> None:
    """Replay a game log and print the final position."""
    from bridge.model.reading import read_json
    from bridge.play.agents import describe_game

    try:
        data = read_json(log_path)
    except InputError as exc:
        _fail(str(InputError(f"not a game log: {exc.problem}", source=exc.source, location=exc.location)))
        return
    try:
        with Deadline(time_limit):
            game = Game.replay(data)
    except MtgaspError as exc:
        _fail(f"{log_path}: {exc}", exc)
        return
    except TimeLimitReached:
        actions = data.get("actions") if isinstance(data, dict) else None
        count = f"its {len(actions)} actions" if isinstance(actions, list) else "its actions"
        _out_of_time(f"{log_path}: the time limit of {time_limit:g} s was reached before {count} were replayed")
        return
    _say_partial(game.partial_cards())
    click.echo(describe_game(game))
    click.echo(f"{len(game.log)} actions replayed")


def _deck(name: str, shipped: dict[str, Path]) -> Deck:
    """A deck named on the command line: a shipped deck, ``random:SEED``, or a deck file."""
    from bridge.play.selfplay import load_deck, random_deck

    if name.startswith("random:"):
        seed = name.removeprefix("random:")
        if not (seed.isascii() and seed.isdigit() and len(seed) <= 18):
            raise InputError(f"{quote(name)}: a random deck is random:SEED, SEED a whole number of at most 18 digits")
        return random_deck(int(seed))
    return load_deck(shipped.get(name) or Path(name))


def _recheck(known: list[Outcome], count: int, runner: Backend) -> None:
    """Play ``count`` recorded games again (spread evenly over them) and compare their logs."""
    from bridge.play.selfplay import run_tasks

    if not known:
        _fail("--recheck: the results file holds none of this run's games")
        return
    step = max(1, len(known) // count)
    chosen = known[::step][:count]
    differ = []
    for old, new in zip(chosen, run_tasks([o.task for o in chosen], backend=runner)):
        a, b = old.task.decks
        where = f"{a.name} vs {b.name}, seed {old.task.seed}"
        assert old.result is not None  # a recorded game's
        if new.result is None:
            differ.append(f"{where}: {new.failure}")
        elif not old.result.log_hash or new.result.log_hash != old.result.log_hash:
            differ.append(f"{where}: log {new.result.log_hash}, recorded {old.result.log_hash or '(none)'}")
    click.echo(f"recheck: {len(chosen) - len(differ)} of {len(chosen)} recorded games played again the same")
    if differ:
        click.echo("  " + "\n  ".join(differ), err=True)
        sys.exit(1)


@main.command()
@click.option(
    "--games", default=10, show_default=True, type=click.IntRange(min=1, max=10**6), help="games for each pair of decks"
)
@click.option("--seed", default=1, show_default=True, type=click.IntRange(min=-(10**18), max=10**18))
@click.option(
    "--decks",
    "deck_names",
    nargs=2,
    help="two decks (names in decks/, files, or random:SEED for a random Magic 2010 deck); default: "
    "every pair of decks/",
)
@click.option(
    "--max-actions",
    default=1000,
    show_default=True,
    type=click.IntRange(min=1, max=10**6),
    help="a game stops unfinished after this many",
)
@click.option("--log-dir", type=click.Path(file_okay=False), help="write each game's log here")
@click.option("--progress", is_flag=True, help="print a line for each game as it ends")
@click.option(
    "--results",
    "results_path",
    type=click.Path(dir_okay=False),
    help="keep each finished game's result in this file (JSON lines); a run given the same file "
    "plays only the games it doesn't hold yet",
)
@click.option(
    "--recheck",
    type=click.IntRange(min=1, max=10**6),
    help="with --results: play K of the games the file holds again, spread over the run, and check "
    "that they are the same games (the hash of their logs); play nothing else",
)
@_time_limit(300, "each game")
@_sweep_options()
def selfplay(
    games: int,
    seed: int,
    deck_names: tuple[str, str] | None,
    max_actions: int,
    log_dir: str | None,
    progress: bool,
    results_path: str | None,
    recheck: int | None,
    time_limit: float,
    jobs: int | None,
    backend: str,
    address: str | None,
) -> None:
    """Random legal games between decks, checking the state after every action; prints
    games per second, actions per second and how the games ended.  The decks and their
    cards are checked before the first game (exit status 2 when one can't be used).  Exit
    status 1 when a game crashed or broke an invariant (each is named with its decks and
    seed), else 3 when a game was stopped by the time limit (it is not kept in --results)."""
    import time
    from itertools import combinations

    from bridge.play.selfplay import Outcome, ResultsFile, Task, load_deck, run_tasks, shipped_decks, summary

    runner = _backend(backend, jobs, address)
    shipped = shipped_decks()
    try:
        if deck_names:
            chosen = [_deck(n, shipped) for n in deck_names]
            pairs = [(chosen[0], chosen[1])]
        else:
            decks = [load_deck(p) for p in shipped.values()]
            pairs = list(combinations(decks, 2))
        recorded = (
            ResultsFile(Path(results_path), warn=lambda text: click.echo(f"warning: {text}", err=True))
            if results_path
            else None
        )
    except MtgaspError as exc:
        _fail(str(exc), exc)
        return
    if log_dir:
        _writable_folder(Path(log_dir), "game logs")
    pool = CardPool.default()
    _say_partial(
        {
            name: card.missing
            for name in sorted({n for pair in pairs for d in pair for n in d.cards})
            if name in pool and (card := pool.get(name)).missing
        }
    )
    # game by game across the pairs, so that a run stopped early has covered every pair alike
    tasks = [Task((a, b), seed + g, max_actions, log_dir, time_limit) for g in range(games) for a, b in pairs]
    known = [Outcome(t, recorded.get(t)) for t in tasks if recorded is not None and recorded.get(t) is not None]
    if recheck is not None:
        with _on(runner):
            _recheck(known, recheck, runner)
        return
    if known:
        click.echo(f"{len(known)} of {len(tasks)} games already played ({results_path}); playing the others")
    to_play = [t for t in tasks if recorded is None or recorded.get(t) is None]
    with _on(runner):
        started = time.perf_counter()
        results, failures, out_of_time = [], [], []
        by_pair: dict[tuple[str, str], list[GameResult]] = {}
        outcomes = itertools.chain(((o, True) for o in known), ((o, False) for o in run_tasks(to_play, backend=runner)))
        for n, (outcome, old) in enumerate(outcomes, start=1):
            a, b = outcome.task.decks
            where = f"{a.name} vs {b.name}, seed {outcome.task.seed}"
            if outcome.timed_out:
                out_of_time.append(where)
                click.echo(f"TIME  {where}: {outcome.failure}", err=True)
                continue
            if outcome.result is None:
                failures.append(f"{where}: {outcome.failure}")
                click.echo(f"FAILED {where}: {outcome.failure}", err=True)
                continue
            r = outcome.result
            results.append(r)
            if recorded is not None and not old:
                recorded.record(outcome.task, r)
            mine = by_pair.setdefault((a.name, b.name), [])
            mine.append(r)
            if progress and not old:
                click.echo(
                    f"[{n}/{len(tasks)}] {where}: {r.winner or '-'} ({r.ending}), {r.actions} actions, "
                    f"{r.turns} turns, {r.seconds:.1f} s"
                )
            if len(mine) == games:
                click.echo(
                    f"{a.name} vs {b.name}: "
                    + summary(mine)
                    + "; winners: "
                    + ", ".join(f"{x.winner or '-'}" for x in mine)
                )
        wall = time.perf_counter() - started
    click.echo("all: " + summary(results))
    if runner.describe() != "this process" and len(results) > len(known):
        actions = sum(r.actions for r in results[len(known) :])
        played = len(results) - len(known)
        click.echo(
            f"wall clock with {runner.describe()}: {wall:.1f} s, {played / max(wall, 1e-9):.3f} games/s, "
            f"{actions / max(wall, 1e-9):.1f} actions/s"
        )
    if failures:
        click.echo(f"{len(failures)} of {len(tasks)} games failed:\n  " + "\n  ".join(failures), err=True)
        sys.exit(1)
    if out_of_time:
        _out_of_time(
            f"{len(out_of_time)} of {len(tasks)} games were stopped by the time limit of {time_limit:g} s "
            "(not kept as results)"
        )


def _read_puzzle(path: str) -> Puzzle:
    """A puzzle file: YAML, or Forge's ``.pzl`` (each of whose problems is printed on its own line, then exit 2)."""
    from bridge.io.pzl import PzlError, load_pzl
    from bridge.model.puzzle import load_puzzle

    if not path.lower().endswith(".pzl"):
        return load_puzzle(path)
    try:
        return load_pzl(path)
    except PzlError as exc:
        for line in exc.lines():
            click.echo(f"error: {one_line(line, 1000)}", err=True)
        click.echo(f"error: {_show(path)}: {len(exc.problems)} problem(s); the puzzle can't be read", err=True)
        sys.exit(2)


@main.command("import")
@click.argument("path")
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(dir_okay=False),
    help="the YAML file to write (default: FILE.yaml beside FILE.pzl)",
)
@_time_limit(60, "the command")
def import_pzl(path: str, output: str | None, time_limit: float) -> None:
    """Read a Forge ``.pzl`` puzzle file and write it as a YAML puzzle (puzzles/README.md).
    Every problem (an unknown card, a goal or filter the solver can't express, a malformed
    line) is listed with its line; then exit status 2 and nothing is written."""
    try:
        with Deadline(time_limit):
            _import_pzl(path, output)
    except TimeLimitReached:
        _out_of_time(f"{path}: the time limit of {time_limit:g} s was reached; nothing was written")


def _import_pzl(path: str, output: str | None) -> None:
    import yaml

    if not path.lower().endswith(".pzl"):
        _fail(f"{path}: not a .pzl file")
    try:
        puzzle = _read_puzzle(path)
    except MtgaspError as exc:
        _fail(str(exc.at(source=path)) if isinstance(exc, InputError) else f"{path}: {exc}", exc)
    target = Path(output) if output else Path(path).with_suffix(".yaml")
    text = yaml.safe_dump(
        puzzle.model_dump(mode="json", exclude_defaults=True), sort_keys=False, allow_unicode=True, width=100
    )
    try:
        write_whole(target, text)
    except OSError as exc:
        _fail(f"{target}: can't write the puzzle: {exc.strerror or exc}")
    click.echo(f"{target}: written")


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--time-limit",
    "time_limit",
    default=60,
    show_default=True,
    type=click.FloatRange(min=0, max=10**7),
    help="seconds the search may take (0: no limit); past it the answer is unknown (exit status 3)",
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    help="actions the search may push at most; past it the answer is unknown (exit status 3)",
)
@click.option("--json", "as_json", is_flag=True, help="print the answer as one JSON object")
@click.option(
    "--emit-scenarios",
    "emit",
    type=click.Path(file_okay=False),
    help="write each line of the strategy (or refutation) here as a scenario file, for mtgasp check",
)
@click.option(
    "--progress/--no-progress", default=None, help="show the progress on standard error (default: on a terminal)"
)
@click.option(
    "--prune/--no-prune",
    default=True,
    show_default=True,
    help="leave out mana abilities of non-creature permanents activated by hand (paying a cost taps them)",
)
@click.option(
    "--search",
    "way",
    type=click.Choice(["dfs", "dfpn"]),
    default="dfs",
    show_default=True,
    help="depth-first to the goal's bound, or depth-first proof-number search (the same answers; "
    "benchmarks/README.md compares them)",
)
@click.option(
    "--forall/--no-forall",
    default=False,
    show_default=True,
    help="at a declaration of attackers (goal: win), try first the attack the rules find winning against every "
    "legal block, and answer each attack first with the block they find refuting it (the order only)",
)
@_sweep_options()
def solve(
    paths: tuple[str, ...],
    time_limit: float,
    max_nodes: int | None,
    as_json: bool,
    emit: str | None,
    progress: bool | None,
    jobs: int | None,
    backend: str,
    address: str | None,
    prune: bool,
    way: str,
    forall: bool,
) -> None:
    """Solve a puzzle file (puzzles/README.md): a strategy that reaches the goal against every
    legal answer of the opponent (win), a refutation that answers each try of the puzzle
    player (no_win), or unknown with the bound that stopped the search.  Given several files
    or a folder (its .yaml and .pzl files), one line for each puzzle (with --json, one object
    a line), in the order of the files, whatever --jobs and --backend (the progress: the
    puzzles done).  Exit status: 0
    solved (win or no_win) and, when the puzzle gives its solution, as it says; 1 the answer
    differs from the puzzle's solution (or the engine failed); 2 the puzzle can't be read;
    3 a limit stopped the search (unknown); 130 an interrupt stopped it (what was known is
    printed)."""
    where = _backend(backend, jobs, address)
    files = _files(paths, (".yaml", ".pzl"))
    if len(files) == 1 and files[0] == Path(paths[0]):
        _solve_one(str(files[0]), time_limit, max_nodes, as_json, emit, progress, prune, way, forall)
        return
    if emit:
        _writable_folder(Path(emit), "the scenarios")
    statuses: list[int] = []
    work = functools.partial(_solve_quietly, time_limit, max_nodes, emit, as_json, prune, way, forall)
    show = sys.stderr.isatty() if progress is None else progress

    def report(done: int, total: int | None) -> None:
        click.echo(f"{done} of {total} puzzles", err=True)

    died = functools.partial(_solve_died, as_json)
    with _on(where):
        for status, line in sweep(work, files, where, died=died, on_progress=report if show else None):
            statuses.append(status)
            click.echo(line)
            if status == INTERRUPT_STATUS:
                click.echo("interrupted", err=True)
                sys.exit(INTERRUPT_STATUS)
    if not as_json:
        counts = {word: sum(s == status for s in statuses) for word, status in _SOLVE_STATUSES.items()}
        click.echo(f"{len(files)} puzzles: " + ", ".join(f"{n} {word}" for word, n in counts.items() if n))
    for status in (2, TIME_LIMIT_STATUS, 1):
        if status in statuses:
            sys.exit(status)


_SOLVE_STATUSES = {"solved": 0, "differ from their solution": 1, "can't be read": 2, "unknown": TIME_LIMIT_STATUS}


def _solve_quietly(
    time_limit: float,
    max_nodes: int | None,
    emit: str | None,
    as_json: bool,
    prune: bool,
    way: str,
    forall: bool,
    path: Path,
) -> tuple[int, str]:
    """One puzzle of many solved: its exit status and its line (``as_json``: the answer as
    one JSON object, with the file's name, or the file and its error)."""
    status, line, out = _solve_answer(time_limit, max_nodes, emit, prune, path, way, forall)
    return status, json.dumps({"file": str(path)} | out) if as_json else line


def _solve_answer(
    time_limit: float,
    max_nodes: int | None,
    emit: str | None,
    prune: bool,
    path: Path,
    way: str = "dfs",
    forall: bool = False,
) -> tuple[int, str, dict[str, object]]:
    from bridge.io.pzl import PzlError, load_pzl
    from bridge.model.puzzle import load_puzzle
    from bridge.play.solve import differs_from_solution, emit_scenarios
    from bridge.play.solve import solve as search

    name = _show(path)
    try:
        puzzle = load_pzl(str(path)) if path.suffix.lower() == ".pzl" else load_puzzle(str(path))
        found = search(
            Game(puzzle.state),
            puzzle.goal,
            time_limit=time_limit,
            max_nodes=max_nodes,
            prune=prune,
            search=way,
            forall=forall,
        )
    except PzlError as exc:
        error = f"{name}: {len(exc.problems)} problem(s), the first: {one_line(exc.lines()[0], 500)}"
        return 2, f"ERROR {error}", {"error": error}
    except MtgaspError as exc:
        if isinstance(exc, InputError):
            error = one_line(str(exc.at(source=str(path))), 1000)
            return 2, f"ERROR {error}", {"error": error}
        error = one_line(f"{name}: the engine failed: {exc}", 1000)
        return 1, f"ERROR {error}", {"error": error}
    differs = differs_from_solution(puzzle, found)
    out = found.to_json()
    if puzzle.solution is not None and found.result != "unknown":
        out["solution_differs"] = differs
    summary = (
        f"{found.nodes} actions in {found.seconds:.2f} s ({found.nodes_per_second:.0f}/s), "
        f"{found.positions} positions, depth {found.depth}"
    )
    if found.result == "unknown":
        why = f" ({found.outcome})" if found.outcome else ""
        line = f"unknown {name}: stopped by {found.stopped_by}{why}; {summary}"
    else:
        line = f"{found.result:<7} {name}: {found.outcome}; {summary}"
    if emit and found.result != "unknown":
        try:
            written = emit_scenarios(puzzle, found, Path(emit), path.stem)
            line += f"; {len(written)} scenario(s) written to {emit}"
        except OSError as exc:
            error = f"{name}: can't write the scenarios to {emit}: {exc.strerror or exc}"
            return 2, f"ERROR {error}", {"error": error}
    if differs:
        line += f"; the puzzle's solution differs: {differs}"
    if found.stopped_by == "interrupt":
        return INTERRUPT_STATUS, line, out
    return (TIME_LIMIT_STATUS if found.result == "unknown" else 1 if differs else 0), line, out


def _solve_died(as_json: bool, path: Path) -> tuple[int, str]:
    error = f"{_show(path)}: the process solving it died (out of memory, or killed)"
    return 1, json.dumps({"file": str(path), "error": error}) if as_json else f"ERROR {error}"


def _solve_one(
    path: str,
    time_limit: float,
    max_nodes: int | None,
    as_json: bool,
    emit: str | None,
    progress: bool | None,
    prune: bool = True,
    way: str = "dfs",
    forall: bool = False,
) -> None:
    """One puzzle solved, its strategy or refutation printed (``mtgasp solve FILE``)."""
    from bridge.play.solve import Progress, describe_tree, differs_from_solution, emit_scenarios
    from bridge.play.solve import solve as search

    try:
        puzzle = _read_puzzle(path)
        game = Game(puzzle.state)
    except MtgaspError as exc:
        _fail(str(exc.at(source=path)) if isinstance(exc, InputError) else f"{path}: {exc}", exc)
    if emit:
        _writable_folder(Path(emit), "the scenarios")
    show = sys.stderr.isatty() if progress is None else progress

    def report(p: Progress) -> None:
        left = f", {p.time_left:.0f} s left" if p.time_left is not None else ""
        rate = p.nodes / p.seconds if p.seconds > 0 else 0.0
        line = f"{p.nodes} actions, {p.positions} positions, {rate:.0f}/s, depth {p.depth}, {p.seconds:.0f} s{left}"
        click.echo(("\r" + line + "   ") if sys.stderr.isatty() else line, err=True, nl=not sys.stderr.isatty())

    try:
        found = search(
            game,
            puzzle.goal,
            time_limit=time_limit,
            max_nodes=max_nodes,
            on_progress=report if show else None,
            prune=prune,
            search=way,
            forall=forall,
        )
    except MtgaspError as exc:
        _fail(f"{path}: {exc}", exc)
    if show and sys.stderr.isatty():
        click.echo("", err=True)
    differs = differs_from_solution(puzzle, found)
    if as_json:
        out = found.to_json()
        if puzzle.solution is not None and found.result != "unknown":
            out["solution_differs"] = differs
        click.echo(json.dumps(out))
    else:
        summary = (
            f"{found.nodes} actions in {found.seconds:.2f} s ({found.nodes_per_second:.0f}/s), "
            f"{found.positions} positions, depth {found.depth}"
        )
        if found.result == "unknown":
            why = f" ({found.outcome})" if found.outcome else ""
            click.echo(f"unknown: stopped by {found.stopped_by}{why}; {summary}")
        else:
            click.echo(f"{found.result}: {found.outcome}; {summary}")
            click.echo(describe_tree(Game(puzzle.state), found.tree))
            if not found.tree_complete:
                click.echo("(the tree is cut: it has too many lines, or the time limit came)")
        if differs:
            click.echo(f"the puzzle's solution differs: {differs}")
    if emit and found.result != "unknown":
        try:
            written = emit_scenarios(puzzle, found, Path(emit), Path(path).stem)
        except OSError as exc:
            _fail(f"{emit}: can't write the scenarios: {exc.strerror or exc}")
        if not as_json:
            click.echo(f"{len(written)} scenario(s) written to {emit}")
    if found.stopped_by == "interrupt":
        click.echo("interrupted", err=True)
        sys.exit(INTERRUPT_STATUS)
    if found.result == "unknown":
        sys.exit(TIME_LIMIT_STATUS)
    if differs:
        sys.exit(1)


def _random_sizes(value: str | None, max_permanents: int) -> tuple[int, int]:
    """The sizes of random positions: ``LOW-HIGH`` (1 to 12), by default 1 to 3 more than the
    exhaustive ones."""
    if value is None:
        return max_permanents + 1, max_permanents + 3
    low, dash, high = value.partition("-")
    try:
        sizes = (int(low), int(high if dash else low))
    except ValueError:
        raise InputError(f"--random-permanents: {quote(value)} is not LOW-HIGH (two whole numbers)") from None
    if not 1 <= sizes[0] <= sizes[1] <= 12:
        raise InputError(f"--random-permanents: {quote(value)}: the sizes go from 1 to 12, the lower first")
    return sizes


@main.command()
@click.option(
    "--cards",
    "cards_option",
    help="the card pool: names separated by commas, a file of names (one a line), or the name "
    "of a pool of cards/pools (verify: forty cards with combat keywords or continuous "
    "effects); default: a dozen creatures with combat keywords, a lord, an anthem, an Aura, "
    "an Equipment, lands and two instants",
)
@click.option(
    "--max-permanents",
    default=2,
    show_default=True,
    type=click.IntRange(min=0, max=6),
    help="every position of up to this many permanents is checked (0: none, random ones only)",
)
@click.option(
    "--tapped/--untapped-only",
    default=True,
    show_default=True,
    help="the exhaustive positions have each creature, land or permanent with an activated ability tapped or not",
)
@click.option(
    "--properties",
    default="all",
    show_default=True,
    help="the properties to check, separated by commas: characteristics, sba, requirements, "
    "actions, citations, renaming, conservation, replay (or all)",
)
@click.option(
    "--positions",
    "random_count",
    default=20,
    show_default=True,
    type=click.IntRange(min=0, max=10**7),
    help="random positions checked after the exhaustive ones",
)
@click.option(
    "--random-permanents",
    "random_sizes",
    help="how many permanents a random position has, LOW-HIGH (default: 1 to 3 more than --max-permanents)",
)
@click.option("--seed", default=1, show_default=True, type=int, help="the seed of the random positions and samples")
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    help="also write a summary here (JSON: positions checked per property, findings, seconds)",
)
@click.option(
    "--out",
    "out_dir",
    default="verify-findings",
    show_default=True,
    type=click.Path(file_okay=False),
    help="the folder each finding is written to, as a scenario file",
)
@click.option(
    "--rules-text",
    type=click.Path(dir_okay=False),
    help="the rules text whose numbers citations must be among (default: the one beside the checkout)",
)
@click.option(
    "--prove",
    is_flag=True,
    help="prove the characteristics over every position of up to --max-permanents permanents by the solver's "
    "enumeration of one program, sba (every state-based action that applies takes something away) over those "
    "positions by one search of the solver, and requirements, citations and renaming over them and every "
    "declaration of attackers and blockers by one search each (chunks spread by --jobs or --backend), instead "
    "of checking them position by position",
)
@click.option(
    "--renamed-copy",
    is_flag=True,
    help="with --prove: the program holds the rules a second time, with ids renamed and timestamps shifted, "
    "and the two must agree (some three times the time)",
)
@_time_limit(600, "the run")
@_sweep_options()
def verify(
    cards_option: str | None,
    max_permanents: int,
    tapped: bool,
    prove: bool,
    renamed_copy: bool,
    properties: str,
    random_count: int,
    random_sizes: str | None,
    seed: int,
    json_path: str | None,
    out_dir: str,
    rules_text: str | None,
    time_limit: float,
    jobs: int | None,
    backend: str,
    address: str | None,
) -> None:
    """Search small positions for contradictions in the rules: every position of up to
    --max-permanents permanents from the card pool (each on either side, tapped or not, up
    to the order of the permanents, every way of attaching its Auras and Equipment), then
    --positions random ones, each checked for the properties.  With --prove the
    characteristics, sba, requirements, citations and renaming are proven over all the positions of up
    to --max-permanents at once, by the solver.  Each failing position is shrunk (one thing
    dropped at a time while the property still fails) and written to --out as a scenario
    file.  Positions/s and a progress line go to stderr.  Exit status 0 no finding, 1
    findings, 2 bad input, 3 the time limit stopped the run (what was checked is reported)."""
    import time

    from bridge.io.writing import safe_file_name
    from bridge.model.citations import read_rules_text
    from bridge.model.paths import rules_text_file
    from bridge.play.verify import DEFAULT_POOL, PROPERTIES, Report, finding_scenario, read_pool
    from bridge.play.verify import verify as run_verify

    where = _backend(backend, jobs, address)
    pool = CardPool.default()
    try:
        cards = read_pool(cards_option, pool) if cards_option is not None else list(DEFAULT_POOL)
        names = list(PROPERTIES) if properties.strip() == "all" else [p.strip() for p in properties.split(",")]
        unknown = [n for n in names if n not in PROPERTIES]
        if unknown or not names:
            raise InputError(
                f"--properties: unknown property {quote(unknown[0] if unknown else properties)} "
                f"(known: {', '.join(PROPERTIES)})"
            )
        sizes = _random_sizes(random_sizes, max_permanents)
        text = Path(rules_text) if rules_text else rules_text_file()
        numbers = read_rules_text(text) if text is not None else frozenset()
    except InputError as exc:
        _fail(str(exc), exc)
    if text is None:
        click.echo("note: no rules text found: cited rules are not looked up (--rules-text FILE)", err=True)
    out = Path(out_dir)
    parent = out if out.exists() else out.absolute().parent
    if (out.exists() and not out.is_dir()) or not os.access(parent, os.W_OK):
        _fail(f"{out}: can't write findings there")
    if json_path:
        _writable_folder(Path(json_path).absolute().parent, "the summary")
    report = Report()
    last = [time.monotonic()]

    def progress(done: Report) -> None:
        now = time.monotonic()
        if now - last[0] >= 5:
            last[0] = now
            proving = done.proof
            searching = done.searches[-1] if done.searches else None
            if searching is not None and not searching.complete:
                where = "of sba" if searching.kind == "sba" else f"at the declaration of {searching.kind}ers"
                click.echo(
                    f"search {where}: {searching.chunks_done} of {searching.chunks} chunks, "
                    f"{len(searching.failures)} failing",
                    err=True,
                )
                return
            if proving is not None and not proving.complete:
                click.echo(
                    f"proof: {proving.answered:,} positions answered, {proving.chunks_done} of {proving.chunks} "
                    f"chunks, {len(proving.counterexamples)} failing, {proving.positions_per_second:,.0f} positions/s",
                    err=True,
                )
                return
            click.echo(
                f"{done.positions} positions, {sum(done.checked.values())} checks, "
                f"{len(done.findings)} finding(s), {done.positions_per_cpu_second:.1f} positions/s of CPU",
                err=True,
            )

    deadline = time.monotonic() + time_limit if time_limit > 0 else None
    try:
        with (
            _on(where),
            Deadline(time_limit + 120 if time_limit > 0 else 0, message="the verifier was stopped past its time limit"),
        ):
            run_verify(
                cards,
                max_permanents=max_permanents,
                tapped=tapped,
                properties=names,
                random_count=random_count,
                random_sizes=sizes,
                seed=seed,
                pool=pool,
                rules_text=numbers,
                deadline=deadline,
                on_progress=progress,
                report=report,
                backend=where,
                prove=prove,
                renamed_copy=renamed_copy,
            )
    except InputError as exc:
        _fail(str(exc), exc)
    except TimeLimitReached:
        report.complete = False
    written = []
    if report.findings:
        try:
            out.mkdir(parents=True, exist_ok=True)
            for n, finding in enumerate(report.findings, start=1):
                path = out / f"{safe_file_name(f'{finding.property}-{n:03d}-{finding.message[:60]}', 100)}.yaml"
                write_whole(path, finding_scenario(finding))
                written.append(path)
        except OSError as exc:
            _fail(f"{out}: can't write the findings: {exc.strerror or exc}")
    if json_path:
        summary = report.to_json() | {
            "cards": cards,
            "max_permanents": max_permanents,
            "tapped": tapped,
            "random_positions": random_count,
            "random_permanents": list(sizes),
            "seed": seed,
            "files": [str(p) for p in written],
        }
        try:
            write_whole(json_path, json.dumps(summary, indent=1) + "\n")
        except OSError as exc:
            _fail(f"{json_path}: can't write the summary: {exc.strerror or exc}")
    proven = {name for search in report.searches for name in search.properties}
    # a property proven by a search and checked at no position isn't named among those checked
    checked = ", ".join(f"{name} {n}" for name, n in report.checked.items() if n or name not in proven) or "nothing"
    if report.positions or (report.proof is None and not report.searches):
        click.echo(
            f"{report.positions} positions in {report.cpu_seconds:.1f} s of CPU ({report.seconds:.1f} s wall), "
            f"{report.positions_per_cpu_second:.1f} positions/s ({report.positions_per_second:.1f} by the wall "
            f"clock); checked: {checked}"
        )
    else:  # the proof alone
        click.echo(f"{report.cpu_seconds:.1f} s of CPU ({report.seconds:.1f} s wall); checked: {checked}")
    proof = report.proof
    if proof is not None:
        how = "proven" if proof.holds else "not proven" if proof.complete else "stopped by the time limit"
        chunks = "" if proof.complete else f" ({proof.chunks_done} of {proof.chunks} chunks)"
        click.echo(
            f"characteristics {how} over {proof.answered:,} of the {proof.positions:,} positions{chunks} of 1 to "
            f"{proof.max_permanents} permanent(s)"
            f"{', with ids renamed and timestamps shifted in a second copy' if proof.renamed else ''}: "
            f"{proof.seconds:.1f} s, "
            f"{proof.positions_per_second:,.0f} positions/s; {len(proof.counterexamples)} failing, "
            f"{len(proof.several)} with several answer sets, {len(proof.unanswered)} with none"
        )
    for search in report.searches:
        how = "proven" if search.holds else "not proven" if search.complete else "stopped by the time limit"
        chunks = "" if search.complete else f" ({search.chunks_done} of {search.chunks} chunks)"
        click.echo(
            f"{', '.join(search.properties)} {how} {search.scope}{chunks}: {search.seconds:.1f} s, "
            f"{len(search.failures)} failing"
        )
    if report.searches and (proof is None or not proof.holds):
        click.echo(
            "note: the searches cover the positions whose characteristics have an answer set; that every one "
            "has one is proven with the property characteristics (--properties characteristics,...)"
        )
    click.echo(f"{len(report.findings)} finding(s)")
    for (prop, kind), count in sorted(report.groups().items()):
        click.echo(f"  {prop}: {one_line(kind, 150)}: {count}")
    for path in written:
        click.echo(f"  {path}")
    if not report.complete:
        _out_of_time(f"the time limit of {time_limit:g} s was reached after {report.positions} positions ({checked})")
    sys.exit(1 if report.findings else 0)


@main.command()
@click.option(
    "--peer", default="phase", show_default=True, type=click.Choice(["phase"]), help="the engine to compare with"
)
@click.option("--boards", default=100, show_default=True, type=click.IntRange(min=1, max=10**6), help="boards compared")
@click.option(
    "--seed", default=1, show_default=True, type=click.IntRange(min=0, max=10**9), help="board i has seed S+i"
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False),
    help="also write the summary, every disagreement and every error here (JSON)",
)
@click.option(
    "--differences",
    "differences_path",
    type=click.Path(dir_okay=False),
    help="the known edition differences (default: bridge/play/peers/edition_differences.yaml)",
)
@click.option(
    "--list", "listed", default=50, show_default=True, type=click.IntRange(min=0), help="disagreements printed"
)
@_time_limit(3600, "the run")
@_sweep_options()
def diff(
    peer: str,
    boards: int,
    seed: int,
    json_path: str | None,
    differences_path: str | None,
    listed: int,
    time_limit: float,
    jobs: int | None,
    backend: str,
    address: str | None,
) -> None:
    """Compare another rules engine (phase.rs, through phase-python) with mtgasp on random
    boards: characteristics after the layers, state-based actions, the legal actions of the
    player with priority, declarations of attackers and blockers, combat damage.  Every
    disagreement is listed with mtgasp's explanation and the peer's answer, grouped into
    classes with counts; the known edition differences are counted apart.  Exit status 0 no
    disagreement (known differences apart), 1 disagreements or boards that failed, 2 the peer
    is not installed or an input can't be used, 3 the time limit stopped the run."""
    import time

    from bridge.play import diff as diffing
    from bridge.play.peers import phase as phase_peer

    missing = phase_peer.unavailable()
    if missing is not None:
        _fail(missing)
    try:
        known = diffing.load_differences(Path(differences_path)) if differences_path else diffing.load_differences()
    except InputError as exc:
        _fail(str(exc), exc)
    if json_path:
        _writable_folder(Path(json_path).absolute().parent, "the summary")
    seeds = list(range(seed, seed + boards))
    started = time.monotonic()
    deadline = started + time_limit if time_limit > 0 else None
    results: list[diffing.BoardResult] = []
    last = [started]

    def progress() -> None:
        now = time.monotonic()
        if now - last[0] >= 10:
            last[0] = now
            rate = len(results) / max(now - started, 1e-9)
            click.echo(f"{len(results)} of {boards} boards, {rate:.2f} boards/s", err=True)

    complete = True
    chunks = [seeds[i : i + 10] for i in range(0, len(seeds), 10)]
    where = _backend(backend, jobs, address)
    try:
        with (
            Deadline(time_limit + 120 if time_limit > 0 else 0, message="the diff was stopped past its time limit"),
            _on(where),
        ):
            done = sweep(functools.partial(diffing.diff_boards, differences=known), chunks, where)
            try:
                for chunk_results in done:
                    results += chunk_results
                    progress()
                    if deadline is not None and time.monotonic() > deadline and len(results) < boards:
                        complete = False
                        break
            finally:
                done.close()  # a sweep stopped early ends its processes
    except TimeLimitReached:
        complete = False
    summary = diffing.summarize(results, time.monotonic() - started)
    if json_path:
        document = {
            "peer": peer,
            "peer_version": phase_peer.version(),
            "seed": seed,
            "boards": boards,
            "complete": complete,
            "summary": summary.to_json(),
            "known_differences": [d.__dict__ for d in known],
            "disagreements": [d.__dict__ for r in results for d in r.disagreements],
            "errors": {str(r.seed): r.error for r in results if r.error},
        }
        try:
            write_whole(json_path, json.dumps(document, indent=1, default=str) + "\n")
        except OSError as exc:
            _fail(f"{json_path}: can't write the summary: {exc.strerror or exc}")
    click.echo(f"peer: phase-python {phase_peer.version()}")
    click.echo(diffing.format_summary(summary, results, listed))
    if not complete:
        _out_of_time(f"the time limit of {time_limit:g} s was reached after {len(results)} boards")
    sys.exit(1 if summary.classes or summary.errors else 0)


if __name__ == "__main__":  # pragma: no cover
    # after every command is defined (python -m bridge.cli: the system's allocator)
    main()
