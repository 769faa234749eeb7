"""Settings, built once at the edge from the command line and the environment.

`main` calls these; everything below receives frozen settings (`model.*Settings`) and never
reads `os.environ`, the current directory or the interpreter's own location. That includes
the defaults that depend on the machine: the event file, the workspace and the interpreter
under test.
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rocm_deps.config import Config, load_config
from rocm_deps.errors import UsageError
from rocm_deps.files import OVERRIDES_LIMIT, parse_json, read_bounded
from rocm_deps.model import (
    ApiSettings,
    DemoSettings,
    InstallSettings,
    MergeCheckSettings,
    Override,
    ResolveSettings,
    overrides_from_json,
    parse_true_false,
)

DEFAULT_API_URL = "https://api.github.com"


@dataclass(frozen=True)
class Interpreter:
    """Where this process runs: what the default interpreter search must step around."""

    executable: str
    prefix: str
    base_prefix: str

    @classmethod
    def current(cls) -> Interpreter:
        return cls(sys.executable, sys.prefix, sys.base_prefix)


def resolve_settings(arguments: argparse.Namespace, environ: Mapping[str, str]) -> ResolveSettings:
    event_name, event_path = _event(arguments, environ, arguments.body_file)
    config = load_config(arguments.config)
    return ResolveSettings(
        config=config,
        event_name=event_name,
        event_path=event_path,
        inputs=check_input_names(parse_inputs(arguments.input), config),
        body_file=arguments.body_file,
        api=_api_settings(arguments, environ),
        body_source=arguments.body_source,
        trusted_associations=tuple(
            item.strip() for item in arguments.trusted_associations.split(",") if item.strip()),
        output_format=arguments.format,
    )


def merge_check_settings(arguments: argparse.Namespace,
                         environ: Mapping[str, str]) -> MergeCheckSettings:
    event_name, event_path = _event(arguments, environ, None)
    return MergeCheckSettings(
        config=load_config(arguments.config), event_name=event_name, event_path=event_path,
        api=_api_settings(arguments, environ), policy=arguments.policy,
        output_format=arguments.format)


def _event(arguments: argparse.Namespace, environ: Mapping[str, str],
           body_file: Path | None) -> tuple[str, Path | None]:
    """The event's name and payload file: flags first, then the runner's variables."""
    event_path = arguments.event_path or (
        Path(environ["GITHUB_EVENT_PATH"]) if environ.get("GITHUB_EVENT_PATH") else None)
    event_name = arguments.event_name or environ.get("GITHUB_EVENT_NAME", "")
    _check_event_pair(event_path, event_name, body_file)
    return event_name, event_path


def _api_settings(arguments: argparse.Namespace, environ: Mapping[str, str]) -> ApiSettings:
    token = None
    if arguments.github_token_env:
        token = environ.get(arguments.github_token_env, "").strip() or None
    return ApiSettings(url=environ.get("GITHUB_API_URL") or DEFAULT_API_URL, token=token,
                       packages_dir=Path(environ.get("RUNNER_TEMP") or tempfile.gettempdir()),
                       uv=shutil.which("uv", path=environ.get("PATH", os.defpath)))


def _check_event_pair(event_path: Path | None, event_name: str, body_file: Path | None) -> None:
    """An event file means nothing without its event's name, and the reverse: the payload's
    shape depends on the event. Either alone would silently name nothing."""
    if event_path is not None and not event_name:
        raise UsageError(f"--event-path {event_path} needs --event-name (or GITHUB_EVENT_NAME): "
                         f"which event wrote the payload decides where the PR body is, e.g. "
                         f"--event-name pull_request")
    if event_name and event_path is None and body_file is None:
        raise UsageError(f"--event-name {event_name} needs --event-path (or GITHUB_EVENT_PATH) "
                         f"with the event's payload; to lint a PR description, use --body-file")


def check_input_names(inputs: dict[str, str], config: Config) -> dict[str, str]:
    """A dispatch input the configuration does not know is a typo, never silence."""
    known = [dependency.dispatch_input for dependency in config.dependencies]
    for name in inputs:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f"did you mean `{close[0]}`? " if close else ""
            raise UsageError(f"--input {name}: not a configured dispatch input; {hint}the "
                             f"dispatch inputs are {', '.join(known)}")
    return inputs


def parse_inputs(items: Sequence[str]) -> dict[str, str]:
    inputs = {}
    for item in items:
        name, separator, value = item.partition("=")
        if not separator or not name:
            raise UsageError(f"--input {item!r}: expected NAME=VALUE, e.g. ci_sglang_pr=#123")
        inputs[name] = value
    return inputs


def install_settings(arguments: argparse.Namespace, environ: Mapping[str, str],
                     resolve: ResolveSettings, *, cwd: Path,
                     interpreter: Interpreter) -> InstallSettings:
    config = resolve.config
    if arguments.workspace_install is not None:
        config = replace(config, install=replace(
            config.install, workspace_install=parse_boolean(arguments.workspace_install,
                                                            "--workspace-install")))
        resolve = replace(resolve, config=config)
    workspace = arguments.workspace or Path(environ.get("GITHUB_WORKSPACE") or cwd)
    return InstallSettings(
        config=config, overrides=_overrides(arguments, config), resolve=resolve,
        workspace=workspace.resolve(),
        python=find_python(arguments.python, environ, interpreter),
        dry_run=arguments.dry_run, output_format=arguments.format, environ=dict(environ))


def parse_boolean(value: str, name: str) -> bool:
    """`true`/`false` in any case; anything else is an error that names where it came from."""
    parsed = parse_true_false(value)
    if parsed is None:
        raise UsageError(f"{name}: invalid value {value!r}; expected `true` or `false`")
    return parsed


def _overrides(arguments: argparse.Namespace, config: Config) -> dict[str, Override] | None:
    if arguments.overrides is not None:
        return parse_overrides(arguments.overrides, config, "--overrides")
    if arguments.overrides_file is not None:
        text = read_bounded(arguments.overrides_file, OVERRIDES_LIMIT, "--overrides-file")
        return parse_overrides(text, config, f"--overrides-file {arguments.overrides_file}")
    return None  # install resolves the event itself


def parse_overrides(text: str, config: Config, where: str) -> dict[str, Override]:
    if len(text) > OVERRIDES_LIMIT:
        raise UsageError(f"{where}: larger than {OVERRIDES_LIMIT // 1024} KiB")
    return overrides_from_json(parse_json(text, where), config.names, where)


def find_python(requested: str | None, environ: Mapping[str, str],
                interpreter: Interpreter) -> str:
    """The interpreter under test: `--python`, else `python3` on PATH *outside* the tool's own
    virtualenv (the action's private environment must never get the dependencies)."""
    search_path = environ.get("PATH", os.defpath)
    if requested:
        found = shutil.which(requested, path=search_path)
        if found is None:
            raise UsageError(f"--python {requested!r}: no such interpreter (not an executable "
                             f"file and not found on PATH)")
        return found
    own_bin = (Path(interpreter.prefix, "bin").resolve()
               if interpreter.prefix != interpreter.base_prefix else None)
    directories = [entry for entry in search_path.split(os.pathsep)
                   if entry and (own_bin is None or Path(entry).resolve() != own_bin)]
    found = shutil.which("python3", path=os.pathsep.join(directories))
    if found is None:
        raise UsageError("no python3 found on PATH outside rocm-deps' own environment; "
                         "pass --python (action input `python`) with the container's interpreter")
    return found


def demo_settings(arguments: argparse.Namespace, environ: Mapping[str, str],
                  interpreter: Interpreter) -> DemoSettings:
    return DemoSettings(keep=arguments.keep, output_format=arguments.format,
                        scenario=arguments.scenario,
                        python=interpreter.executable,
                        temporary_directory=Path(environ.get("TMPDIR") or tempfile.gettempdir()),
                        environ=dict(environ))
