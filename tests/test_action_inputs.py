"""The action's inputs, validated in Python (`rocm_deps.action`), as actions/checkout does."""

from __future__ import annotations

import pytest

from rocm_deps.action import action_argv, main
from rocm_deps.errors import UsageError


def inputs(**values: str) -> dict[str, str]:
    return {f"INPUT_{name.upper()}": value for name, value in values.items()}


def test_install_inputs_become_the_command_line() -> None:
    argv = action_argv(inputs(command="install", config="c.toml", overrides='{"a": 1}',
                              python="/usr/bin/python3", workspace="/w", workspace_install="FALSE",
                              dry_run="TRUE", body_source="", trusted_associations="OWNER",
                              github_token="ghs_x"))
    assert argv == ["install", "--body-source", "event", "--github-token-env",
                    "INPUT_GITHUB_TOKEN", "--trusted-associations", "OWNER", "--config", "c.toml",
                    "--overrides", '{"a": 1}', "--python", "/usr/bin/python3", "--workspace",
                    "/w", "--workspace-install", "false", "--dry-run"]


@pytest.mark.parametrize(("dry_run", "planned"), [
    ("true", True), ("TRUE", True), ("True", True), ("false", False), ("", False)])
def test_dry_run_accepts_true_and_false_in_any_case(dry_run: str, planned: bool) -> None:
    argv = action_argv(inputs(command="install", dry_run=dry_run))
    assert ("--dry-run" in argv) is planned


@pytest.mark.parametrize(("name", "value", "message"), [
    ("dry_run", "yes", "Input 'dry-run' has invalid value 'yes'. Expected `true` or `false`"),
    ("dry_run", "1", "Input 'dry-run' has invalid value '1'."),
    ("workspace_install", "on", "Input 'workspace-install' has invalid value 'on'."),
    ("body_source", "comment", "Input 'body-source' has invalid value 'comment'. Expected one "
                               "of: event, api."),
], ids=["dry-run-yes", "dry-run-1", "workspace-install-on", "body-source"])
def test_invalid_values_name_the_input(name: str, value: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        action_argv({**inputs(command="install"), f"INPUT_{name.upper()}": value})
    assert message in caught.value.message


@pytest.mark.parametrize("command", ["", "Resolve", "merge"])
def test_command_is_required_and_exact(command: str) -> None:
    with pytest.raises(UsageError, match=f"Input 'command' has invalid value {command!r}"):
        action_argv(inputs(command=command))


@pytest.mark.parametrize("name", ["overrides", "python", "workspace", "workspace_install",
                                  "dry_run"])
def test_install_only_inputs_on_resolve_are_errors(name: str) -> None:
    with pytest.raises(UsageError) as caught:
        action_argv(inputs(command="resolve", **{name: "true"}))
    assert caught.value.message == (f"Input '{name.replace('_', '-')}' applies to "
                                    f"`command: install` only; remove it from the resolve step.")


def test_main_reports_an_invalid_input_as_an_annotation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(inputs(command="install", dry_run="yes")) == 2
    assert capsys.readouterr().err == (
        "::error title=rocm-deps%3A invalid input::Input 'dry-run' has invalid value 'yes'. "
        "Expected `true` or `false` (any letter case).\n")


def test_an_empty_token_input_names_no_token_variable() -> None:
    assert "--github-token-env" not in action_argv(inputs(command="resolve", github_token=" "))
