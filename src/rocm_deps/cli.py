"""Command line (docs/architecture.md, *Command line and the documents*). Parses arguments, builds
settings once (`settings`), dispatches, and maps errors to exit codes. Below `settings`, nothing
reads `os.environ`."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from rocm_deps import __version__, convention, edge, process
from rocm_deps.config import Config
from rocm_deps.errors import (
    EXIT_CODES,
    EXIT_FAILURE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    FatalError,
    Interrupted,
)
from rocm_deps.options import Given, Help, Option, read
from rocm_deps.runner import Runner

if TYPE_CHECKING:
    from rocm_deps.interface import Back, Front

# The registry: each command is a folder with `settings.py`, an `interface.Front` (`OPTIONS`,
# `HELP`, `ACTION`, `build(given, edge)`), and `command.py`, an `interface.Back`
# (`run(settings, runner)` returns the exit code). docs/development.md, *Adding a command*.
COMMANDS: dict[str, str] = {
    "resolve": "rocm_deps.resolve",
    "install": "rocm_deps.install",
    "merge-check": "rocm_deps.guard",
    "comment": "rocm_deps.manifest",
    "sweep": "rocm_deps.sweep",
    "demo": "rocm_deps.demo",
    "config": "rocm_deps.show",
}
if TYPE_CHECKING:  # the type checker holds each command's front and back end to one settings
    import rocm_deps.demo.command
    import rocm_deps.demo.settings
    import rocm_deps.guard.command
    import rocm_deps.guard.settings
    import rocm_deps.install.command
    import rocm_deps.install.settings
    import rocm_deps.manifest.command
    import rocm_deps.manifest.settings
    import rocm_deps.resolve.command
    import rocm_deps.resolve.settings
    import rocm_deps.show.command
    import rocm_deps.show.settings
    import rocm_deps.sweep.command
    import rocm_deps.sweep.settings

    Built = TypeVar("Built")

    def _typed(front: Front[Built], back: Back[Built]) -> None: ...

    # One line a command (tests/test_cli_dispatch.py holds COMMANDS to these).
    _typed(rocm_deps.resolve.settings, rocm_deps.resolve.command)
    _typed(rocm_deps.install.settings, rocm_deps.install.command)
    _typed(rocm_deps.guard.settings, rocm_deps.guard.command)
    _typed(rocm_deps.manifest.settings, rocm_deps.manifest.command)
    _typed(rocm_deps.sweep.settings, rocm_deps.sweep.command)
    _typed(rocm_deps.demo.settings, rocm_deps.demo.command)
    _typed(rocm_deps.show.settings, rocm_deps.show.command)


def front(command: str) -> Front[Any]:
    """The command's front end: its options, help and settings builder."""
    return cast("Front[Any]", importlib.import_module(f"{COMMANDS[command]}.settings"))


def back(command: str) -> Back[Any]:
    """The command itself, imported only when it runs: a command pays no start-up time for
    the others."""
    return cast("Back[Any]", importlib.import_module(f"{COMMANDS[command]}.command"))


def build_parser() -> argparse.ArgumentParser:
    """The command line, from each command's options. Values are checked by `options.read`,
    as the action's inputs are."""
    parser = argparse.ArgumentParser(
        prog="rocm-deps",
        description="Resolve and install the dependency refs a pull request names "
                    "(ci-<name>-pr directives) for ROCm CI.",
        epilog="`rocm-deps COMMAND --help` describes each command, with examples.")
    parser.add_argument("--version", action="version", version=f"rocm-deps {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        module = front(command)
        about: Help = module.HELP
        subparser = commands.add_parser(
            command, help=about.summary, description=about.description,
            epilog=_epilog(about), formatter_class=argparse.RawDescriptionHelpFormatter)
        for option in module.OPTIONS:
            if option.cli:
                _add(subparser, option)
    return parser


def _epilog(about: Help) -> str:
    examples = "\n".join(f"  {example}" for example in about.examples)
    codes = "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES)
    return f"examples:\n{examples}\n\nexit codes:\n{codes}"


def _add(parser: argparse.ArgumentParser, option: Option) -> None:
    flag, help_text = f"--{option.name}", option.help
    if option.default and not option.switch:  # a choice is the metavar: the default is said
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
    options = front(command).OPTIONS
    return read(command, options, {option.name: getattr(arguments, option.name.replace("-", "_"))
                                   for option in options if option.cli})


def make_runner(environ: Mapping[str, str]) -> Runner:
    def path(name: str) -> Path | None:
        value = environ.get(name, "")
        return Path(value) if value else None

    return Runner(github_actions=environ.get("GITHUB_ACTIONS") == "true",
                  output_path=path("GITHUB_OUTPUT"), summary_path=path("GITHUB_STEP_SUMMARY"))


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"received {signal.Signals(signum).name}; stopped", title="Cancelled")


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    """The `rocm-deps` console script (its wrapper exits with what this returns)."""
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
        token = edge.token_of(given, environ)  # the one read of the token
        _mask(token, runner)  # before anything else is printed
        at = edge.Edge(environ, Path.cwd(), edge.Interpreter.current(), token)
        found = convention.find(given, at, runner)
        for notice in found.notices if found is not None else ():
            runner.notice(notice, title="rocm-deps: configuration")
        built = front(given.command).build(given, dataclasses.replace(at, found=found))
        config = getattr(built, "config", None)  # the demo builds its own
        if isinstance(config, Config) and given.command != "config" and (
                config.text is not None or environ.get("GITHUB_ACTIONS") == "true"):
            over = (f"over the built-in profile {config.profile}" if config.profile != "none"
                    else "alone (profile none)")
            runner.info(f"rocm-deps: configuration: {config.source}, {over} "
                        f"({config.profile_origin}); `rocm-deps config` shows every value and "
                        f"where it comes from")
        return back(given.command).run(built, runner)
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


def _mask(token: str | None, runner: Runner) -> None:
    if token:
        runner.mask(token)
        # Children never get the token in their environment; this keeps them from reading
        # ours (/proc/<pid>/environ) too.
        process.make_undumpable()
    # Without it, each command says what it does then: resolve goes on (no pinning), the
    # commands that need the API fail naming the empty variable (messages.needs_token).

