"""Command line (docs/architecture.md, *Command line and the documents*). Parses arguments, builds
settings once (`settings`), dispatches, and maps errors to exit codes. Below `settings`, nothing
reads `os.environ`."""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from rocm_deps import __version__, process, settings
from rocm_deps.errors import (
    EXIT_CODES,
    EXIT_FAILURE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    FatalError,
    Interrupted,
)
from rocm_deps.options import COMMANDS, Command, Given, Option, for_command, read
from rocm_deps.runner import Runner

# Each command's module: `build(given, edge)` makes its settings, `run(settings, runner)` runs
# it and returns the exit code.
COMMAND_MODULES: dict[Command, str] = {
    "resolve": "rocm_deps.resolve.command",
    "install": "rocm_deps.install.command",
    "merge-check": "rocm_deps.guard.command",
    "comment": "rocm_deps.manifest.command",
    "sweep": "rocm_deps.sweep.command",
    "demo": "rocm_deps.demo.command",
}


def build_parser() -> argparse.ArgumentParser:
    """The command line, from the one table of options (`options.OPTIONS`). Values are checked
    by `options.read`, as the action's inputs are."""
    parser = argparse.ArgumentParser(
        prog="rocm-deps",
        description="Resolve and install the dependency refs a pull request names "
                    "(ci-<name>-pr directives) for ROCm CI.",
        epilog="`rocm-deps COMMAND --help` describes each command, with examples.")
    parser.add_argument("--version", action="version", version=f"rocm-deps {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        about = COMMAND_HELP[command]
        subparser = commands.add_parser(
            command, help=about.summary, description=about.description,
            epilog=_epilog(command, about), formatter_class=argparse.RawDescriptionHelpFormatter)
        for option in for_command(command):
            _add(subparser, option)
    return parser


@dataclass(frozen=True)
class CommandHelp:
    summary: str  # one line, in `rocm-deps --help`
    description: str  # a paragraph, in `rocm-deps COMMAND --help`
    examples: tuple[str, ...]


COMMAND_HELP: dict[Command, CommandHelp] = {
    "resolve": CommandHelp(
        "parse and validate directives; write outputs",
        "Read the PR body (the event's, --body-file, or the live one with --body-source api) "
        "and the dispatch inputs, check every directive as GitHub shows it, and write "
        "skip_dependency_install, the refs and the overrides document. With a token, every "
        "ref is pinned to a SHA and checked to exist.",
        ("rocm-deps resolve --body-file examples/description.md",
         "rocm-deps resolve --body-file examples/description.md --profile cuda --format json",
         "rocm-deps resolve --input ci_sglang_pr=#30421 --github-token-env GH_TOKEN")),
    "install": CommandHelp(
        "check out, patch and pip install overrides",
        "In the GPU container: for each dependency named (by --overrides, else by resolving "
        "the event itself), clean the image's clone, fetch and check out exactly that commit, "
        "probe and apply the patches, pip install it editable into the interpreter under "
        "test and check that it imports from the clone. --dry-run prints every command.",
        ("rocm-deps install --dry-run --body-file examples/description.md",
         "rocm-deps install --overrides-file resolve.json --python /usr/bin/python3")),
    "merge-check": CommandHelp(
        "fail while a dependency pull request the description names is not merged "
        "(merge guard)",
        "The merge guard: fail while a dependency pull request the description names is open "
        "or closed unmerged (--policy), and with --require-tested while a named commit is not "
        "the one each suite's manifest comment says was tested. Needs a token.",
        ("rocm-deps merge-check --body-file examples/description.md "
         "--github-token-env GH_TOKEN",
         "rocm-deps merge-check --require-tested --suite 'ROCm suite' "
         "--github-token-env GH_TOKEN")),
    "comment": CommandHelp(
        "put what this run tested on the pull request (one manifest comment)",
        "Read the run's reports (one resolve report, the GPU jobs' install reports) and "
        "write this suite's manifest comment on the pull request (one per suite), with "
        "the tested commits that merge-check --require-tested reads back. Needs a token with "
        "pull-requests: write. --report is required.",
        ("rocm-deps comment --report resolve.json --report install-mi350.json --pr 7 "
         "--suite 'ROCm suite' --github-token-env GH_TOKEN",)),
    "sweep": CommandHelp(
        "re-judge every open pull request: a commit status per suite, re-runs when a "
        "dependency moved",
        "For every open pull request whose description names a dependency, set a commit "
        "status per suite (`rocm-deps: <suite>`) on its head: success while every named "
        "commit is what the suite's manifest comment says it tested and each named pull "
        "request's head is still that commit, failure when one moved, pending before the "
        "suite reported. A status is written only when it changed. --rerun moved re-runs "
        "the suite's recorded run for a moved dependency. Needs a token (pull-requests: read, "
        "statuses: write; actions: write to re-run).",
        ("rocm-deps sweep --repository radixark/miles --github-token-env GH_TOKEN",
         "rocm-deps sweep --rerun moved --max-reruns 3 --github-token-env GH_TOKEN")),
    "demo": CommandHelp(
        "run resolve then install in a throw-away sandbox",
        "Build a sandbox shaped like the MI350 image (origins with history, tags and pull "
        "request refs; complete clones; a virtualenv as the container's interpreter) and run "
        "the real resolve and install in it.",
        ("rocm-deps demo", "rocm-deps demo --scenario missing-target --keep")),
}


def _epilog(command: Command, about: CommandHelp) -> str:
    examples = "\n".join(f"  {example}" for example in about.examples)
    codes = "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES)
    return f"examples:\n{examples}\n\nexit codes:\n{codes}"


def _add(parser: argparse.ArgumentParser, option: Option) -> None:
    flag, help_text = f"--{option.name}", option.help
    if option.choices:  # the choices are the metavar: the help says the default only
        help_text += f" (default {option.default})"
    if option.required:
        help_text += " (required)"
    if option.switch:
        parser.add_argument(flag, action="store_const", const="true", help=help_text)
    elif option.repeatable:
        parser.add_argument(flag, action="append", metavar=option.metavar, help=help_text)
    else:
        metavar = "|".join(option.choices) if option.choices else option.metavar
        parser.add_argument(flag, metavar=metavar, help=help_text)


def given_from_arguments(arguments: argparse.Namespace) -> Given:
    command = arguments.command
    return read(command, {option.name: getattr(arguments, option.name.replace("-", "_"))
                          for option in for_command(command)})


def make_runner(environ: Mapping[str, str]) -> Runner:
    def path(name: str) -> Path | None:
        value = environ.get(name, "")
        return Path(value) if value else None

    return Runner(github_actions=environ.get("GITHUB_ACTIONS") == "true",
                  output_path=path("GITHUB_OUTPUT"), summary_path=path("GITHUB_STEP_SUMMARY"))


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"received {signal.Signals(signum).name}; stopped", title="Cancelled")


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    arguments = build_parser().parse_args(argv)
    return execute(lambda: given_from_arguments(arguments), environ)


def execute(read_options: Callable[[], Given], environ: Mapping[str, str]) -> int:
    """Read the options, build the settings and run the command; every error becomes an
    annotation and its exit code. The one path of the command line and the action."""
    runner = make_runner(environ)
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        given = read_options()
        _mask_token(given, environ, runner)  # before anything else is printed
        # Imported only when it runs: a command pays no start-up time for the others.
        command = importlib.import_module(COMMAND_MODULES[given.command])
        built = command.build(given, settings.Edge(environ, Path.cwd(),
                                                   settings.Interpreter.current()))
        code: int = command.run(built, runner)
        return code
    except FatalError as error:
        runner.error(error.message, title=error.title)
        return error.exit_code
    except OSError as error:  # the environment, not a bug: disk full, read-only, ...
        runner.error(f"{error.strerror or error}"
                     f"{f' ({error.filename})' if error.filename else ''}: the machine refused "
                     f"a read or a write (a full disk, a read-only file system?)",
                     title="rocm-deps: environment")
        return EXIT_FAILURE
    except KeyboardInterrupt:
        runner.error("interrupted (SIGINT); stopped", title="Cancelled")
        return EXIT_INTERRUPTED
    except Exception:  # the last line of defence: report, never crash silently
        import traceback  # only on this path: it costs start-up time on every run

        runner.error("internal error in rocm-deps; this is a bug, please report it with the "
                     "log above", title="rocm-deps internal error")
        traceback.print_exc(file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        signal.signal(signal.SIGTERM, previous)


def _mask_token(given: Given, environ: Mapping[str, str], runner: Runner) -> None:
    variable = given.optional("github-token-env")
    if not variable:
        return
    token = settings.token_of(given, environ)
    if token:
        runner.mask(token)
        # Children never get the token in their environment; this keeps them from reading
        # ours (/proc/<pid>/environ) too.
        process.make_undumpable()
    else:
        runner.warning(f"--github-token-env {variable}: the variable is unset or empty; "
                       f"continuing without a token (no SHA pinning, no API checks)",
                       title="rocm-deps: no token")


def entrypoint() -> None:
    raise SystemExit(main())
