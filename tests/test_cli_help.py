"""`rocm-deps COMMAND --help` teaches: a description, examples, the exit codes; each choice
shown once; required options marked."""

from __future__ import annotations

import re

import pytest

from rocm_deps.cli import COMMAND_HELP, build_parser
from rocm_deps.errors import EXIT_CODES
from rocm_deps.options import COMMANDS


def help_of(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([command, "--help"])
    assert exited.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps: compare words


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_has_a_description_examples_and_exit_codes(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    shown = help_of(command, capsys)
    about = COMMAND_HELP[command]
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
    for command, about in COMMAND_HELP.items():
        for example in about.examples:
            words = [word.strip("'") for word in re.findall(r"'[^']*'|\S+", example)]
            assert words[:2] == ["rocm-deps", command]
            parser.parse_args(words[1:])  # exits (a test failure) on an unknown option
