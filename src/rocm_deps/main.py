"""Command line (DESIGN §8). Parses arguments, builds settings once (`settings`), dispatches,
and maps errors to exit codes. Below `settings`, nothing reads `os.environ`."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType

from rocm_deps import __version__, settings
from rocm_deps.errors import (
    EXIT_FAILURE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    FatalError,
    Interrupted,
)
from rocm_deps.model import (
    BODY_SOURCES,
    DEFAULT_TRUSTED,
    DEMO_SCENARIOS,
    MERGE_POLICIES,
    OUTPUT_FORMATS,
)
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
    install.add_argument("--workspace-install", metavar="true|false",
                         help="override the config's install.workspace-install")

    merge = commands.add_parser(
        "merge-check", help="fail while a dependency pull request the description names is "
                            "not merged (merge guard)")
    _common(merge)
    _event_source(merge, ": pull_request, pull_request_target or merge_group")
    merge.add_argument("--policy", choices=MERGE_POLICIES, default="require-merged",
                       help="require-merged (default): fail while a named dependency pull "
                            "request is open or closed unmerged; forbid-overrides: fail while "
                            "anything is named; warn: annotate only")

    demo = commands.add_parser("demo", help="run resolve then install in a throw-away sandbox")
    demo.add_argument("--keep", action="store_true", help="keep the sandbox directory")
    demo.add_argument("--scenario", choices=DEMO_SCENARIOS, default=DEMO_SCENARIOS[0],
                      help="pull-requests (default): SGLang and Megatron-LM pull requests "
                           "install; missing-target: a Megatron-LM pull request deleted the "
                           "file the ROCm patch changes, and install says how to fix it")
    _format(demo)
    return parser


def _format(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=OUTPUT_FORMATS, default="text",
                        help="json prints the report on stdout (logs go to stderr)")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="F", type=Path, help="TOML file overriding defaults")
    _format(parser)


def _event_source(parser: argparse.ArgumentParser, event_names: str = "") -> None:
    """Where the event comes from, and the token that may ask the API about it."""
    parser.add_argument("--event-path", metavar="F", type=Path,
                        help="event payload JSON (default: $GITHUB_EVENT_PATH)")
    parser.add_argument("--event-name", metavar="N",
                        help=f"event name (default: $GITHUB_EVENT_NAME){event_names}")
    parser.add_argument("--github-token-env", metavar="VAR",
                        help="name of the environment variable holding a GitHub token")


def _event_arguments(parser: argparse.ArgumentParser) -> None:
    _event_source(parser)
    parser.add_argument("--input", metavar="NAME=VALUE", action="append", default=[],
                        help="a dispatch input such as ci_sglang_pr=#123 (repeatable)")
    parser.add_argument("--body-file", metavar="F", type=Path,
                        help="read the PR body from this file instead of the event")
    parser.add_argument("--body-source", choices=BODY_SOURCES, default="event",
                        help="api: read the PR body from the GitHub API (needs a token)")
    parser.add_argument("--trusted-associations", metavar="LIST",
                        default=",".join(DEFAULT_TRUSTED),
                        help="author associations whose directives are honoured under "
                             "pull_request_target / workflow_run / issue_comment")


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
    runner = make_runner(environ)
    token_variable = getattr(arguments, "github_token_env", None)
    if token_variable:
        token = environ.get(token_variable, "").strip()
        runner.mask(token)  # before anything else is printed
        if not token:
            runner.warning(f"--github-token-env {token_variable}: the variable is unset or "
                           f"empty; continuing without a token (no SHA pinning, no API checks)",
                           title="rocm-deps: no token")
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        return _dispatch(arguments, environ, runner)
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


def _dispatch(arguments: argparse.Namespace, environ: Mapping[str, str], runner: Runner) -> int:
    interpreter = settings.Interpreter.current()
    if arguments.command == "resolve":
        from rocm_deps.commands import resolve

        return resolve.run(settings.resolve_settings(arguments, environ), runner)
    if arguments.command == "install":
        from rocm_deps.commands import install

        resolve_settings = settings.resolve_settings(arguments, environ)
        return install.run(settings.install_settings(arguments, environ, resolve_settings,
                                                     cwd=Path.cwd(), interpreter=interpreter),
                           runner)
    if arguments.command == "merge-check":
        from rocm_deps.commands import merge_check

        return merge_check.run(settings.merge_check_settings(arguments, environ), runner)
    from rocm_deps.commands import demo

    return demo.run(settings.demo_settings(arguments, environ, interpreter), runner)


def entrypoint() -> None:
    raise SystemExit(main())
