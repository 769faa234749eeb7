"""`rocm-deps COMMAND --help` teaches: a description, examples, the exit codes; each choice
shown once; required options marked."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from rocm_deps.cli import COMMANDS, build_parser, front
from rocm_deps.errors import EXIT_CODES
from tests.conftest import Cli

ROOT = Path(__file__).resolve().parent.parent


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


@pytest.mark.parametrize(("command", "code"), [("resolve", 0), ("install", 1),
                                              ("merge-check", 1)])
def test_the_first_example_runs_as_written(cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                           command: str, code: int) -> None:
    """Copied from `--help` and run from the repository's root, without a token (merge-check's
    policy refuses the example description's directives: exit 1, saying why; install's plan
    is whole, then exit 1: this machine has none of the image's clones)."""
    monkeypatch.chdir(ROOT)
    words = shlex.split(front(command).HELP.examples[0])
    result = cli(*words[1:])
    assert result.code == code, result.stderr
    assert "#None" not in result.stdout + result.summary


def test_merge_check_on_a_body_file_names_the_line_not_a_pull_request(
        cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = cli("merge-check", "--body-file", "examples/description.md", "--policy",
                 "forbid-overrides")
    assert result.code == 1
    assert "sglang (line 5): fail: `ci-sglang-pr: #30421` is still in the description" in (
        result.stdout)
    assert "#None" not in result.stdout + result.summary
    assert "| (body file) | sglang |" in result.summary


@pytest.mark.parametrize("command", ["sweep", "merge-check", "comment"])
def test_a_command_that_needs_the_token_does_not_say_it_continues_without_one(
        cli: Cli, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    monkeypatch.chdir(ROOT)
    extra = {"sweep": ("--repository", "radixark/miles"),
             "merge-check": ("--require-tested", "--body-file", "examples/description.md"),
             "comment": ("--report", "r.json", "--suite", "ROCm CI")}[command]
    result = cli(command, "--github-token-env", "EMPTY_TOKEN", *extra, env={"EMPTY_TOKEN": ""})
    assert result.code == 2
    assert "continuing without a token" not in result.stderr
    assert "--github-token-env names EMPTY_TOKEN, which is unset or empty here" in result.stderr
