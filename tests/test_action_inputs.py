"""The action's inputs, checked in Python (`rocm_deps.action`), as actions/checkout does: the
same option table and the same settings builder as the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rocm_deps.action import action_inputs, main, read_inputs
from rocm_deps.cli import build_parser, given_from_arguments
from rocm_deps.errors import UsageError
from rocm_deps.install.settings import OPTIONS as INSTALL_OPTIONS
from rocm_deps.options import ACTION_ONLY_INPUTS, TOKEN_VARIABLE

ROOT = Path(__file__).resolve().parent.parent


def inputs(**values: str) -> dict[str, str]:
    return {f"INPUT_{name.upper()}": value for name, value in values.items()}


def test_install_inputs_are_the_options_the_command_line_gives() -> None:
    from_action = read_inputs(inputs(
        command="install", config="c.toml", overrides='{"a": 1}', python="/usr/bin/python3",
        workspace="/w", workspace_install="FALSE", dry_run="TRUE", body_source="",
        trusted_associations="OWNER", github_token="ghs_x"))
    from_cli = given_from_arguments(build_parser().parse_args([
        "install", "--config", "c.toml", "--overrides", '{"a": 1}', "--python",
        "/usr/bin/python3", "--workspace", "/w", "--workspace-install", "false", "--dry-run",
        "--trusted-associations", "OWNER", "--github-token-env", TOKEN_VARIABLE]))
    names = [option.name for option in INSTALL_OPTIONS]
    assert [from_action.values.get(name) for name in names] == [
        from_cli.values.get(name) for name in names]
    assert from_action.flag("dry-run") is True
    assert from_action.flag("workspace-install") is False
    assert from_action.text("body-source") == "auto"  # empty: the one default


@pytest.mark.parametrize(("dry_run", "planned"), [
    ("true", True), ("TRUE", True), ("True", True), ("false", False), ("", False)])
def test_dry_run_accepts_true_and_false_in_any_case(dry_run: str, planned: bool) -> None:
    assert read_inputs(inputs(command="install", dry_run=dry_run)).flag("dry-run") is planned


@pytest.mark.parametrize(("name", "value", "message"), [
    ("dry_run", "yes", "Input 'dry-run' has invalid value 'yes'. Expected `true` or `false`"),
    ("dry_run", "1", "Input 'dry-run' has invalid value '1'."),
    ("workspace_install", "on", "Input 'workspace-install' has invalid value 'on'."),
    ("body_source", "comment", "Input 'body-source' has invalid value 'comment'. Expected one "
                               "of: auto, event, api."),
], ids=["dry-run-yes", "dry-run-1", "workspace-install-on", "body-source"])
def test_invalid_values_name_the_input(name: str, value: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        read_inputs({**inputs(command="install"), f"INPUT_{name.upper()}": value})
    assert message in caught.value.message


@pytest.mark.parametrize("command", ["", "Resolve", "merge", "demo"])
def test_command_is_required_and_exact(command: str) -> None:
    with pytest.raises(UsageError, match=f"Input 'command' has invalid value {command!r}"):
        read_inputs(inputs(command=command))


@pytest.mark.parametrize(("name", "commands"), [
    ("overrides", "install"), ("python", "install"), ("workspace", "install"),
    ("workspace_install", "install"), ("dry_run", "install, sweep")])
def test_install_only_inputs_on_resolve_are_errors(name: str, commands: str) -> None:
    with pytest.raises(UsageError) as caught:
        read_inputs(inputs(command="resolve", **{name: "true"}))
    assert caught.value.message == (f"Input '{name.replace('_', '-')}' applies to "
                                    f"`command: {commands}`, not to `command: resolve`; remove "
                                    f"it from the resolve step.")


def test_main_reports_an_invalid_input_as_an_annotation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(inputs(command="install", dry_run="yes")) == 2
    assert capsys.readouterr().err == (
        "::error title=rocm-deps%3A invalid input::Input 'dry-run' has invalid value 'yes'. "
        "Expected `true` or `false` (any letter case).\n")


def test_an_empty_token_input_names_no_token_variable() -> None:
    assert read_inputs(inputs(command="resolve", github_token=" ")).optional(
        "github-token-env") is None
    assert read_inputs(inputs(command="resolve", github_token="t")).optional(
        "github-token-env") == TOKEN_VARIABLE


def action_yml_inputs() -> dict[str, str]:
    """`inputs:` of action.yml, name -> default, read without a YAML library: the file is
    ours and keeps one key per line."""
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    block = text.split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
    defaults: dict[str, str] = {}
    name = ""
    for line in block.splitlines():
        if (header := re.fullmatch(r"  ([a-z-]+):", line)) is not None:
            name = header.group(1)
            defaults[name] = ""
        elif (default := re.fullmatch(r'    default: "(.*)"', line)) is not None:
            defaults[name] = default.group(1)
    return defaults


def test_action_yml_declares_exactly_the_action_options_with_their_defaults() -> None:
    declared = action_yml_inputs()
    expected = {option.name: option.default for options in action_inputs().values()
                for option in options}
    # One input, one default, whichever commands read it.
    assert len({(option.name, option.default) for options in action_inputs().values()
                for option in options}) == len(expected)
    assert {name: declared[name] for name in declared
            if name not in ACTION_ONLY_INPUTS} == expected
    assert set(ACTION_ONLY_INPUTS) <= set(declared)


def test_every_cli_default_is_the_options_table_default() -> None:
    """The command line shows the table's defaults in its help and adds none of its own."""
    parser = build_parser()
    for command in ("resolve", "install", "merge-check", "sweep", "demo"):
        arguments = parser.parse_args([command])
        given = given_from_arguments(arguments)
        assert given.values == {}, command  # nothing given: every value is the table's
        assert given.text("format") == "text"
