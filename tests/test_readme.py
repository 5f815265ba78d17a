"""The README's two commands are the ones CI runs."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_commands_are_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    blocks = readme.split("```sh\n")[1:3]
    commands = [b.split("\n```")[0].strip() for b in blocks]
    assert len(commands) == 2
    assert "mtgasp check" in commands[0]
    assert "pytest" in commands[1]
    for command in commands:
        assert command in ci
