"""`rocm-deps COMMAND --help` teaches: a description, examples, the exit codes; each choice
shown once; required options marked."""

from __future__ import annotations

import re

import pytest

from rocm_deps.cli import COMMANDS, build_parser, front
from rocm_deps.errors import EXIT_CODES


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([command, "--help"])
    assert exited.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps: compare words


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_a_description_examples_and_exit_codes(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    shown = help_of(command, capsys)
    about = front(command).HELP
    assert " ".join(about.description.split()) in shown
    assert 1 <= len(about.examples) <= 3
    for example in about.examples:
        assert "examples: " in shown and example in shown
    assert "exit codes:" in shown
    for code, meaning in EXIT_CODES:
        assert f"{code} {meaning}" in shown
    # A choice is the metavar; the help names only the default.
    assert not re.search(r"\([a-z-]+ \| [a-z-]+", shown), shown


def test_required_options_are_marked(capsys: pytest.CaptureFixture[str]) -> None:
    assert "(action: one file per line) (required)" in help_of("comment", capsys)
    assert "(required)" not in help_of("resolve", capsys)


def test_the_examples_name_only_options_of_their_command() -> None:
    parser = build_parser()
    for command in COMMANDS:
        about = front(command).HELP
        for example in about.examples:
            words = [word.strip("'") for word in re.findall(r"'[^']*'|\S+", example)]
            assert words[:2] == ["rocm-deps", command]
            parser.parse_args(words[1:])  # exits (a test failure) on an unknown option


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_every_default(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    shown = help_of(command, capsys)
    for option in front(command).OPTIONS:
        if option.cli and option.default and not option.switch:
            assert f"(default {option.default})" in shown, (command, option.name)


def test_sweep_help_shows_its_numbers_and_suite_speaks_to_its_command(
        capsys: pytest.CaptureFixture[str]) -> None:
    sweep = help_of("sweep", capsys)
    for default in ("(default 5)", "(default 60)", "(default 600)"):
        assert default in sweep
    for command in ("sweep", "merge-check"):
        shown = help_of(command, capsys)
        suite = shown[shown.rindex("--suite NAME"):]
        assert suite.startswith("--suite NAME a suite to check"), command
        assert "comment:" not in shown, command
