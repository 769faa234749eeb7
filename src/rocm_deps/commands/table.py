"""The command table: each command's settings builder and the module that runs it, and what
every command gets before it runs (PyGithub, when it was given a token). The one dispatch of
the command line and the action (`cli.execute`)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from rocm_deps import settings
from rocm_deps.options import Command, Given
from rocm_deps.runner import Runner


@dataclass(frozen=True)
class Edge:
    """What a settings builder may read of the process: its environment, its working
    directory and its own interpreter."""

    environ: Mapping[str, str]
    cwd: Path
    interpreter: settings.Interpreter


@dataclass(frozen=True)
class Entry:
    build: Callable[[Given, Edge], settings.Settings]
    # rocm_deps.commands.<module>.run(settings, runner): imported only when it runs, so a
    # command pays no start-up time for the others.
    module: str
    # The API settings of a command that talks to GitHub, None when this run does not.
    api: Callable[[settings.Settings], settings.ApiSettings | None] = lambda _: None


def _install(given: Given, edge: Edge) -> settings.InstallSettings:
    return settings.install_settings(given, edge.environ,
                                     settings.resolve_settings(given, edge.environ),
                                     cwd=edge.cwd, interpreter=edge.interpreter)


def _own_api(built: settings.Settings) -> settings.ApiSettings | None:
    return getattr(built, "api", None)


def _install_api(built: settings.Settings) -> settings.ApiSettings | None:
    """Install talks to GitHub only when it resolves the event itself (single-job use)."""
    assert isinstance(built, settings.InstallSettings)
    return built.resolve.api if built.overrides is None else None


TABLE: Mapping[Command, Entry] = {
    "resolve": Entry(lambda given, edge: settings.resolve_settings(given, edge.environ),
                     "resolve", _own_api),
    "install": Entry(_install, "install", _install_api),
    "merge-check": Entry(lambda given, edge: settings.merge_check_settings(given, edge.environ),
                         "merge_check", _own_api),
    "comment": Entry(lambda given, edge: settings.comment_settings(given, edge.environ),
                     "comment", _own_api),
    "demo": Entry(lambda given, edge: settings.demo_settings(given, edge.environ,
                                                             edge.interpreter), "demo"),
}


def run(given: Given, edge: Edge, runner: Runner) -> int:
    """Build `given.command`'s settings, make PyGithub importable when it has a token, run
    it; returns its exit code."""
    entry = TABLE[given.command]
    built = entry.build(given, edge)
    api = entry.api(built)
    if api is not None and api.token:
        from rocm_deps.github.on_demand import ensure_github

        ensure_github(api.install_bases, api.uv, api.environ, runner)
    code: int = importlib.import_module(f"rocm_deps.commands.{entry.module}").run(built, runner)
    return code
