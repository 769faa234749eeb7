"""The composite action's entrypoint: every `with:` input is validated here, not in bash.

`action.yml` passes each input as an `INPUT_<NAME>` environment variable (never through
`${{ }}` in a script). This module turns them into the command line of `main`, the way
actions/checkout's input helper turns inputs into settings: one place, each value checked,
each error naming the input and the expected form.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from rocm_deps.errors import EXIT_USAGE, UsageError
from rocm_deps.main import main as cli_main
from rocm_deps.model import BODY_SOURCES, MERGE_POLICIES, parse_true_false
from rocm_deps.runner import format_command

COMMANDS = ("resolve", "install", "merge-check")
INSTALL_ONLY = ("overrides", "python", "workspace", "workspace-install")
MERGE_CHECK_ONLY = ("policy",)
TOKEN_VARIABLE = "INPUT_GITHUB_TOKEN"  # noqa: S105 - a variable name, not a secret


def read_input(environ: Mapping[str, str], name: str) -> str:
    """An input as the runner passes it, surrounding whitespace removed (like getInput)."""
    return environ.get(f"INPUT_{name.replace('-', '_').upper()}", "").strip()


def choice(environ: Mapping[str, str], name: str, allowed: tuple[str, ...],
           default: str | None = None) -> str:
    value = read_input(environ, name) or default or ""
    if value not in allowed:
        raise UsageError(f"Input '{name}' has invalid value {value!r}. Expected one of: "
                         f"{', '.join(allowed)}.", title="rocm-deps: invalid input")
    return value


def boolean(environ: Mapping[str, str], name: str, default: bool) -> bool:
    value = read_input(environ, name)
    if not value:
        return default
    parsed = parse_true_false(value)
    if parsed is None:
        raise UsageError(f"Input '{name}' has invalid value {value!r}. Expected `true` or "
                         f"`false` (any letter case).", title="rocm-deps: invalid input")
    return parsed


def action_argv(environ: Mapping[str, str]) -> list[str]:
    command = choice(environ, "command", COMMANDS)
    if command == "merge-check":
        return merge_check_argv(environ)
    misplaced = [name for name in MERGE_CHECK_ONLY if read_input(environ, name)]
    if misplaced:
        raise UsageError(f"Input '{misplaced[0]}' applies to `command: merge-check` only; "
                         f"remove it from the {command} step.", title="rocm-deps: invalid input")
    argv = [command, "--body-source", choice(environ, "body-source", BODY_SOURCES, "event"),
            *token_argv(environ)]
    if read_input(environ, "trusted-associations"):
        argv += ["--trusted-associations", read_input(environ, "trusted-associations")]
    argv += config_argv(environ)
    dry_run = boolean(environ, "dry-run", False)
    if command == "resolve":
        given = [name for name in INSTALL_ONLY if read_input(environ, name)]
        if given or dry_run:
            name = given[0] if given else "dry-run"
            raise UsageError(f"Input '{name}' applies to `command: install` only; remove it "
                             f"from the resolve step.", title="rocm-deps: invalid input")
        return argv
    for name in ("overrides", "python", "workspace"):
        if read_input(environ, name):
            argv += [f"--{name}", read_input(environ, name)]
    if read_input(environ, "workspace-install"):
        workspace_install = boolean(environ, "workspace-install", True)
        argv += ["--workspace-install", "true" if workspace_install else "false"]
    if dry_run:
        argv.append("--dry-run")
    return argv


def merge_check_argv(environ: Mapping[str, str]) -> list[str]:
    given = [name for name in INSTALL_ONLY
             if read_input(environ, name)]
    if boolean(environ, "dry-run", False):
        given.append("dry-run")
    if choice(environ, "body-source", BODY_SOURCES, "event") != "event":
        given.append("body-source")
    if given:
        raise UsageError(f"Input '{given[0]}' does not apply to `command: merge-check`; remove "
                         f"it from the merge-check step.", title="rocm-deps: invalid input")
    return ["merge-check", "--policy", choice(environ, "policy", MERGE_POLICIES, "require-merged"),
            *token_argv(environ), *config_argv(environ)]


def token_argv(environ: Mapping[str, str]) -> list[str]:
    """The token's flag: it names the variable, never the value. An empty input means no
    token, and no warning."""
    return ["--github-token-env", TOKEN_VARIABLE] if read_input(environ, "github-token") else []


def config_argv(environ: Mapping[str, str]) -> list[str]:
    return ["--config", read_input(environ, "config")] if read_input(environ, "config") else []


def main(environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    try:
        argv = action_argv(environ)
    except UsageError as error:
        print(format_command("error", error.message, {"title": error.title}), file=sys.stderr)
        return EXIT_USAGE
    return cli_main(argv, environ)


if __name__ == "__main__":
    raise SystemExit(main())
