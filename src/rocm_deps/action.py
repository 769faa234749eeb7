"""The composite action's entrypoint: every `with:` input is checked here, not in bash.

`action.yml` passes each input as an `INPUT_<NAME>` environment variable (never through
`${{ }}` in a script). The inputs are the command line's options under the same names (each
command's `OPTIONS`), read through the same `options.read` and built into the same settings,
the way actions/checkout's input helper turns inputs into settings: one place, each value
checked, each error naming the input and the expected form.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from rocm_deps.cli import COMMANDS, execute, front
from rocm_deps.errors import EXIT_USAGE, UsageError
from rocm_deps.messages import invalid_value
from rocm_deps.options import TOKEN_VARIABLE, Given, Option, read
from rocm_deps.runner import format_command


def read_input(environ: Mapping[str, str], name: str) -> str:
    """An input as the runner passes it, surrounding whitespace removed (like getInput)."""
    return environ.get(f"INPUT_{name.replace('-', '_').upper()}", "").strip()


def read_inputs(environ: Mapping[str, str]) -> Given:
    """The action's inputs as the options of its `command`."""
    inputs = action_inputs()
    command = read_input(environ, "command")
    if command not in inputs:
        raise UsageError(invalid_value("Input 'command'", command,
                                       f"one of: {', '.join(inputs)}"),
                         title="rocm-deps: invalid input")
    names = {option.name for options in inputs.values() for option in options}
    raw: dict[str, str | None] = {name: read_input(environ, name) for name in names}
    # The token reaches the tool as the name of the variable that holds it, never as a value;
    # an empty input means no token, and no warning.
    raw["github-token-env"] = TOKEN_VARIABLE if read_input(environ, "github-token") else None
    elsewhere = {option.name: (", ".join(other for other, options in inputs.items()
                                         if option.name in {o.name for o in options}),
                               option.default)
                 for options in inputs.values() for option in options}
    mine = front(command).OPTIONS
    return read(command, [option for option in mine if option.action or
                          option.name == "github-token-env"], raw, from_action=True,
                elsewhere=elsewhere)


def action_inputs() -> dict[str, tuple[Option, ...]]:
    """Each command of the action (`command:`) and its inputs."""
    return {command: tuple(option for option in front(command).OPTIONS if option.action)
            for command in COMMANDS if front(command).ACTION}


def main(environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    try:
        given = read_inputs(environ)
    except UsageError as error:
        # Before any runner exists: the annotation is written directly.
        print(format_command("error", error.message, {"title": error.title}), file=sys.stderr)
        return EXIT_USAGE
    return execute(lambda: given, environ)


if __name__ == "__main__":
    raise SystemExit(main())
