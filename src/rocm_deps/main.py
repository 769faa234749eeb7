"""Command line (DESIGN §8). Parses arguments, reads the environment once into settings
objects, dispatches, and maps errors to exit codes. Nothing below this reads `os.environ`."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType

from rocm_deps import __version__
from rocm_deps.commands.resolve import ResolveSettings
from rocm_deps.config import load_config
from rocm_deps.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, FatalError, Interrupted, UsageError
from rocm_deps.runner import Runner


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rocm-deps",
        description="Resolve and install the dependency refs a pull request names "
                    "(ci-<name>-pr directives) for ROCm CI.")
    parser.add_argument("--version", action="version", version=f"rocm-deps {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    resolve = commands.add_parser("resolve", help="parse and validate directives; write outputs")
    _common(resolve)
    _event_arguments(resolve)

    install = commands.add_parser("install", help="check out, patch and pip install overrides")
    _common(install)
    _event_arguments(install)
    source = install.add_mutually_exclusive_group()
    source.add_argument("--overrides", metavar="JSON",
                        help="the `overrides` output of resolve (default: resolve from the event)")
    source.add_argument("--overrides-file", metavar="F", type=Path,
                        help="a file holding the overrides JSON or a whole resolve report")
    install.add_argument("--workspace", metavar="DIR", type=Path,
                         help="checkout of the framework under test, where patch paths are "
                              "relative to (default: $GITHUB_WORKSPACE, else the current dir)")
    install.add_argument("--python", metavar="EXE",
                         help="interpreter to pip install into (default: python3 on PATH)")
    install.add_argument("--dry-run", action="store_true",
                         help="print every command in order and change nothing")
    install.add_argument("--workspace-install", choices=("true", "false"),
                         help="override the config's install.workspace-install")

    demo = commands.add_parser("demo", help="run resolve then install in a throw-away sandbox")
    demo.add_argument("--keep", action="store_true", help="keep the sandbox directory")
    demo.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="F", type=Path, help="TOML file overriding defaults")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="json prints the report on stdout (logs go to stderr)")


def _event_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--event-path", metavar="F", type=Path,
                        help="event payload JSON (default: $GITHUB_EVENT_PATH)")
    parser.add_argument("--event-name", metavar="N",
                        help="event name (default: $GITHUB_EVENT_NAME)")
    parser.add_argument("--input", metavar="NAME=VALUE", action="append", default=[],
                        help="a dispatch input such as ci_sglang_pr=#123 (repeatable)")
    parser.add_argument("--body-file", metavar="F", type=Path,
                        help="read the PR body from this file instead of the event")
    parser.add_argument("--github-token-env", metavar="VAR",
                        help="name of the environment variable holding a GitHub token")
    parser.add_argument("--body-source", choices=("event", "api"), default="event",
                        help="api: read the PR body from the GitHub API (needs a token)")
    parser.add_argument("--trusted-associations", metavar="LIST",
                        default="OWNER,MEMBER,COLLABORATOR",
                        help="author associations whose directives are honoured under "
                             "pull_request_target / workflow_run / issue_comment")


def make_runner(environ: Mapping[str, str]) -> Runner:
    def path(name: str) -> Path | None:
        value = environ.get(name, "")
        return Path(value) if value else None

    return Runner(github_actions=environ.get("GITHUB_ACTIONS") == "true",
                  output_path=path("GITHUB_OUTPUT"), summary_path=path("GITHUB_STEP_SUMMARY"))


def resolve_settings(arguments: argparse.Namespace, environ: Mapping[str, str],
                     runner: Runner) -> ResolveSettings:
    token = None
    if arguments.github_token_env:
        token = environ.get(arguments.github_token_env, "").strip() or None
        if token:
            runner.mask(token)  # before anything else can print it
    event_path = arguments.event_path or (
        Path(environ["GITHUB_EVENT_PATH"]) if environ.get("GITHUB_EVENT_PATH") else None)
    return ResolveSettings(
        config=load_config(arguments.config),
        event_name=arguments.event_name or environ.get("GITHUB_EVENT_NAME", ""),
        event_path=event_path,
        inputs=_parse_inputs(arguments.input),
        body_file=arguments.body_file,
        token=token,
        body_source=arguments.body_source,
        trusted_associations=tuple(
            item.strip() for item in arguments.trusted_associations.split(",") if item.strip()),
        output_format=arguments.format,
        api_url=environ.get("GITHUB_API_URL") or "https://api.github.com",
    )


def _parse_inputs(items: Sequence[str]) -> dict[str, str]:
    inputs = {}
    for item in items:
        name, separator, value = item.partition("=")
        if not separator or not name:
            raise UsageError(f"--input {item!r}: expected NAME=VALUE, e.g. ci_sglang_pr=#123")
        inputs[name] = value
    return inputs


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    raise Interrupted(f"received {signal.Signals(signum).name}; stopped", title="Cancelled")


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    environ = os.environ if environ is None else environ
    arguments = build_parser().parse_args(argv)
    runner = make_runner(environ)
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        return _dispatch(arguments, environ, runner)
    except FatalError as error:
        runner.error(error.message, title=error.title)
        return error.exit_code
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


def _dispatch(arguments: argparse.Namespace, environ: Mapping[str, str], runner: Runner) -> int:
    if arguments.command == "resolve":
        from rocm_deps.commands import resolve

        return resolve.run(resolve_settings(arguments, environ, runner), runner)
    if arguments.command == "install":
        from rocm_deps.commands import install

        return install.run(install.settings_from(arguments, environ, runner,
                                                 resolve_settings(arguments, environ, runner)),
                           runner)
    from rocm_deps.commands import demo

    return demo.run(keep=arguments.keep, output_format=arguments.format, runner=runner)


def entrypoint() -> None:
    raise SystemExit(main())
