"""Settings, built once at the edge from the checked options and the environment.

`cli` and `action` read their options through `options.read`; the command table
(`commands.table`) calls this module's builder for the command, which turns them into one
frozen settings object. Everything below receives those settings and never reads
`os.environ` or the interpreter's own location: the defaults that depend on the machine
(the event file, the workspace, the interpreter under test, the child environment) are
decided here. The one thing below that depends on the working directory is what the user
gave as a relative path (a config file, a lock file, a patch), as on any command line.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast

from rocm_deps.config import REPOSITORY, Config, load_config
from rocm_deps.config.profiles import Profile
from rocm_deps.contract.manifest import RUN_URL, checked_suite
from rocm_deps.contract.overrides import Override, overrides_from_json
from rocm_deps.environment import absolute_search_path, child_environment
from rocm_deps.errors import UsageError
from rocm_deps.files import OVERRIDES_LIMIT, parse_json, read_bounded
from rocm_deps.messages import closest, did_you_mean
from rocm_deps.options import (
    DEFAULT_BOT,
    DEFAULT_TRUSTED,
    BodySource,
    Given,
    OutputFormat,
    Policy,
    Rerun,
    Scenario,
)

DEFAULT_API_URL = "https://api.github.com"


@dataclass(frozen=True)
class ApiSettings:
    url: str = DEFAULT_API_URL
    token: str | None = None
    empty_variable: str | None = None  # --github-token-env named it, and it holds nothing
    # Where a step's own PyGithub install may be made (github.on_demand), in order.
    install_bases: tuple[Path, ...] = ()
    uv: str | None = None  # uv on PATH, used for that install when present
    # The environment of that install (child_environment: no token).
    environ: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ResolveSettings:
    config: Config
    event_name: str = ""
    event_path: Path | None = None
    inputs: Mapping[str, str] = field(default_factory=dict)
    body_file: Path | None = None
    api: ApiSettings = ApiSettings()
    body_source: BodySource = "event"
    trusted_associations: tuple[str, ...] = tuple(DEFAULT_TRUSTED.split(","))
    output_format: OutputFormat = "text"
    values: Mapping[str, str] = field(default_factory=dict)  # --value: above everything


@dataclass(frozen=True)
class MergeCheckSettings:
    config: Config
    event_name: str = ""
    event_path: Path | None = None
    api: ApiSettings = ApiSettings()
    policy: Policy = "require-merged"
    output_format: OutputFormat = "text"
    require_tested: bool = False
    body_file: Path | None = None  # on pull_request: this body instead of the payload's
    bot_login: str = DEFAULT_BOT
    body_source: BodySource = "event"  # api: the live body, as a re-run should judge it
    suites: tuple[str, ...] = ()  # --require-tested checks these; (): every suite there is


@dataclass(frozen=True)
class SweepSettings:
    config: Config
    repository: str
    api: ApiSettings = ApiSettings()
    suites: tuple[str, ...] = ()  # (): every suite a manifest comment names
    bot_login: str = DEFAULT_BOT
    rerun: Rerun = "none"
    max_reruns: int = 5
    lookback_minutes: int = 60
    max_seconds: int = 600
    output_format: OutputFormat = "text"


@dataclass(frozen=True)
class CommentSettings:
    config: Config
    reports: tuple[Path, ...]
    event_name: str = ""
    event_path: Path | None = None
    api: ApiSettings = ApiSettings()
    pr: int | None = None
    run_url: str = ""  # --run-url, else this run's; "" under workflow_run: the payload's
    bot_login: str = DEFAULT_BOT
    output_format: OutputFormat = "text"
    # This suite's section of the manifest; None: under workflow_run, the name of the
    # triggering workflow (read with the payload).
    suite: str | None = None


@dataclass(frozen=True)
class InstallSettings:
    resolve: ResolveSettings  # for single-job use, and the one home of the config
    overrides: Mapping[str, Override] | None  # None: resolve from the event (single job)
    workspace: Path
    python: str
    dry_run: bool = False
    output_format: OutputFormat = "text"
    # What every child process (git, pip, prepare) starts from: child_environment().
    environ: Mapping[str, str] = field(default_factory=dict)

    @property
    def config(self) -> Config:
        return self.resolve.config


@dataclass(frozen=True)
class DemoSettings:
    keep: bool
    output_format: OutputFormat
    scenario: Scenario
    python: str  # the interpreter that runs the tool (and builds the sandbox's venv)
    temporary_directory: Path
    environ: Mapping[str, str] = field(default_factory=dict)


Settings = ResolveSettings | InstallSettings | MergeCheckSettings | CommentSettings | DemoSettings


@dataclass(frozen=True)
class Edge:
    """What a command's `build` may read of the process: its environment, its working
    directory and its own interpreter."""

    environ: Mapping[str, str]
    cwd: Path
    interpreter: Interpreter


@dataclass(frozen=True)
class Interpreter:
    """Where this process runs: what the default interpreter search must step around."""

    executable: str
    prefix: str
    base_prefix: str

    @classmethod
    def current(cls) -> Interpreter:
        return cls(sys.executable, sys.prefix, sys.base_prefix)


def resolve_settings(given: Given, environ: Mapping[str, str]) -> ResolveSettings:
    body_file = _path(given.optional("body-file"))
    event_name, event_path = _event(given, environ, body_file)
    config = _config(given)
    return ResolveSettings(
        config=config,
        event_name=event_name,
        event_path=event_path,
        inputs=check_input_names(parse_inputs(given.items("input")), config),
        body_file=body_file,
        api=_api_settings(given, environ),
        body_source=cast(BodySource, given.text("body-source")),
        trusted_associations=_associations(given),
        output_format=_output_format(given),
        values=_explicit_values(given, config),
    )


def _config(given: Given) -> Config:
    return load_config(given.optional("config"), cast(Profile, given.text("profile")))


def _explicit_values(given: Given, config: Config) -> dict[str, str]:
    """`--value NAME=VALUE` (the action's `value` input: one per line), for configured values."""
    explicit = {}
    known = [value.name for value in config.values]
    for line in given.lines("value"):
        name, separator, text = line.partition("=")
        if not separator or name not in known:
            raise UsageError(f"{given.where('value')} {line[:80]!r}: expected NAME=VALUE with "
                             f"NAME one of {', '.join(known) or '(none)'}")
        explicit[name] = text
    return explicit


def merge_check_settings(given: Given, environ: Mapping[str, str]) -> MergeCheckSettings:
    body_file = _path(given.optional("body-file"))
    event_name, event_path = _event(given, environ, body_file)
    return MergeCheckSettings(
        config=_config(given), event_name=event_name,
        event_path=event_path, api=_api_settings(given, environ),
        policy=cast(Policy, given.text("policy")), output_format=_output_format(given),
        require_tested=bool(given.flag("require-tested")), body_file=body_file,
        bot_login=_login(given), body_source=cast(BodySource, given.text("body-source")),
        suites=tuple(dict.fromkeys(checked_suite(line, given.where("suite"))
                                   for line in given.lines("suite"))))


def sweep_settings(given: Given, environ: Mapping[str, str]) -> SweepSettings:
    repository = given.text("repository") or environ.get("GITHUB_REPOSITORY", "")
    if not REPOSITORY.fullmatch(repository):
        raise UsageError(f"{given.where('repository')} {repository[:100]!r} is not OWNER/REPO "
                         f"(default: $GITHUB_REPOSITORY, which is unset outside a run)")
    return SweepSettings(
        config=_config(given), repository=repository, api=_api_settings(given, environ),
        suites=tuple(dict.fromkeys(checked_suite(line, given.where("suite"))
                                   for line in given.lines("suite"))),
        bot_login=_login(given), rerun=cast(Rerun, given.text("rerun")),
        max_reruns=_count(given, "max-reruns", 0, 100),
        lookback_minutes=_count(given, "lookback-minutes", 0, 7 * 24 * 60),
        max_seconds=_count(given, "max-seconds", 1, 6 * 60 * 60),
        output_format=_output_format(given))


def _count(given: Given, name: str, low: int, high: int) -> int:
    text = given.text(name)
    if not (text.isascii() and text.isdigit() and low <= int(text) <= high):
        raise UsageError(f"{given.where(name)} has invalid value {text[:40]!r}. Expected a "
                         f"whole number from {low} to {high}.")
    return int(text)


def comment_settings(given: Given, environ: Mapping[str, str]) -> CommentSettings:
    event_name, event_path = _event(given, environ, None)
    # The action's input holds one file per line; the command line repeats --report.
    reports = tuple(Path(line) for line in given.lines("report"))
    if not reports:
        raise UsageError(f"{given.where('report')}: give the run's resolve report (and the GPU "
                         f"jobs' install reports): what the comment says comes from them")
    pr = given.optional("pr")
    if pr is not None and not (pr.isascii() and pr.isdigit() and 0 < int(pr) < 10**9):
        raise UsageError(f"{given.where('pr')} has invalid value {pr!r}. Expected a pull "
                         f"request number.")
    # Under workflow_run the run to link is the triggering one, read with the payload.
    run_url = given.text("run-url") or ("" if event_name == "workflow_run" else
                                        _this_run(environ))
    if run_url and not RUN_URL.fullmatch(run_url):
        raise UsageError(f"{given.where('run-url')} {run_url[:100]!r} is not an http(s) URL "
                         f"of letters, digits and `/._~%:-`")
    return CommentSettings(
        config=_config(given), reports=reports, event_name=event_name,
        event_path=event_path, api=_api_settings(given, environ),
        pr=int(pr) if pr is not None else None, run_url=run_url, bot_login=_login(given),
        output_format=_output_format(given), suite=_suite(given, environ, event_name))


def _suite(given: Given, environ: Mapping[str, str], event_name: str) -> str | None:
    """The suite `comment` writes for: the input, else the workflow's name (under
    workflow_run: None, the triggering workflow's, read with the payload)."""
    named = given.lines("suite")
    if len(named) > 1:
        raise UsageError(f"{given.where('suite')}: comment writes one suite's comment; got "
                         f"{len(named)} names")
    if named:
        return checked_suite(named[0], given.where("suite"))
    if event_name == "workflow_run":
        return None
    workflow = environ.get("GITHUB_WORKFLOW", "")
    if not workflow:
        raise UsageError(f"{given.where('suite')}: give this suite's name (outside a workflow "
                         f"run there is no $GITHUB_WORKFLOW to take it from)")
    return checked_suite(workflow.strip(), f"the workflow's name ($GITHUB_WORKFLOW; give "
                                           f"{given.where('suite')} instead):")


LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?")


# GitHub's author_association values: a name outside them would never match anyone.
ASSOCIATIONS = ("COLLABORATOR", "CONTRIBUTOR", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR",
                "MANNEQUIN", "MEMBER", "NONE", "OWNER")


def _associations(given: Given) -> tuple[str, ...]:
    names = tuple(item.strip() for item in given.text("trusted-associations").split(",")
                  if item.strip())
    for name in names:
        if name not in ASSOCIATIONS:
            hint = closest(name.upper(), ASSOCIATIONS)
            raise UsageError(f"{given.where('trusted-associations')}: {name[:40]!r} is not an "
                             f"author association GitHub sends"
                             f"{f'; did you mean {hint}?' if hint else ''} (one of: "
                             f"{', '.join(ASSOCIATIONS)})")
    return names


def _login(given: Given) -> str:
    login = given.text("bot-login")
    if not LOGIN.fullmatch(login):
        raise UsageError(f"{given.where('bot-login')} has invalid value {login!r}. Expected a "
                         f"GitHub login, e.g. {DEFAULT_BOT}.")
    return login


def _this_run(environ: Mapping[str, str]) -> str:
    """This run's URL, from the runner's variables ("" outside a run)."""
    server, repository, run_id = (environ.get(name, "") for name in (
        "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if server and repository and run_id.isdigit():
        return f"{server.rstrip('/')}/{repository}/actions/runs/{run_id}"
    return ""


def install_settings(given: Given, environ: Mapping[str, str], resolve: ResolveSettings, *,
                     cwd: Path, interpreter: Interpreter) -> InstallSettings:
    workspace_install = given.flag("workspace-install")
    if workspace_install is not None:
        config = resolve.config
        resolve = replace(resolve, config=replace(config, install=replace(
            config.install, workspace_install=workspace_install)))
    workspace = _path(given.optional("workspace")) or Path(environ.get("GITHUB_WORKSPACE")
                                                           or cwd)
    return InstallSettings(
        resolve=resolve, overrides=_overrides(given, resolve.config),
        workspace=workspace.resolve(),
        python=find_python(given.optional("python"), environ, interpreter),
        dry_run=bool(given.flag("dry-run")), output_format=_output_format(given),
        environ=child_environment(environ, token_of(given, environ)))


def demo_settings(given: Given, environ: Mapping[str, str],
                  interpreter: Interpreter) -> DemoSettings:
    return DemoSettings(keep=bool(given.flag("keep")), output_format=_output_format(given),
                        scenario=cast(Scenario, given.text("scenario")),
                        python=interpreter.executable,
                        temporary_directory=Path(environ.get("TMPDIR") or tempfile.gettempdir()),
                        environ=child_environment(environ, None))


def token_of(given: Given, environ: Mapping[str, str]) -> str | None:
    """The GitHub token, read from the variable `--github-token-env` names."""
    variable = given.optional("github-token-env")
    return (environ.get(variable, "").strip() or None) if variable else None


def _output_format(given: Given) -> OutputFormat:
    return cast(OutputFormat, given.text("format"))


def _path(text: str | None) -> Path | None:
    return Path(text) if text else None


def _event(given: Given, environ: Mapping[str, str],
           body_file: Path | None) -> tuple[str, Path | None]:
    """The event's name and payload file: options first, then the runner's variables."""
    event_path = _path(given.optional("event-path") or environ.get("GITHUB_EVENT_PATH"))
    event_name = given.text("event-name") or environ.get("GITHUB_EVENT_NAME", "")
    _check_event_pair(event_path, event_name, body_file)
    return event_name, event_path


def _api_settings(given: Given, environ: Mapping[str, str]) -> ApiSettings:
    token = token_of(given, environ)
    variable = given.optional("github-token-env")
    return ApiSettings(url=environ.get("GITHUB_API_URL") or DEFAULT_API_URL, token=token,
                       empty_variable=variable if variable and not token else None,
                       install_bases=install_bases(environ),
                       uv=shutil.which("uv", path=absolute_search_path(environ)),
                       environ=child_environment(environ, token))


def install_bases(environ: Mapping[str, str]) -> tuple[Path, ...]:
    """Where a step's PyGithub may be installed: $RUNNER_TEMP (the job's own, emptied after
    it), else the user's temporary directory."""
    runner_temp = (Path(environ["RUNNER_TEMP"]),) if environ.get("RUNNER_TEMP") else ()
    return (*runner_temp, Path(environ.get("TMPDIR") or tempfile.gettempdir()))


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
    known = [dependency.dispatch_input for dependency in config.dependencies] + [
        value.dispatch_input for value in config.values]
    for name in inputs:
        if name not in known:
            hint = did_you_mean(name, known)
            raise UsageError(f"--input {name}: not a configured dispatch input; {hint}the "
                             f"dispatch inputs are {', '.join(known)}")
    return inputs


def parse_inputs(items: tuple[str, ...]) -> dict[str, str]:
    inputs = {}
    for item in items:
        name, separator, value = item.partition("=")
        if not separator or not name:
            raise UsageError(f"--input {item!r}: expected NAME=VALUE, e.g. ci_sglang_pr=#123")
        inputs[name] = value
    return inputs


def _overrides(given: Given, config: Config) -> dict[str, Override] | None:
    text, file = given.optional("overrides"), given.optional("overrides-file")
    if text is not None and file is not None:
        raise UsageError("--overrides and --overrides-file name the same thing; give one")
    if text is not None:
        return parse_overrides(text, config, given.where("overrides"))
    if file is not None:
        document = read_bounded(Path(file), OVERRIDES_LIMIT, "--overrides-file")
        return parse_overrides(document, config, f"--overrides-file {file}")
    return None  # install resolves the event itself


def parse_overrides(text: str, config: Config, where: str) -> dict[str, Override]:
    if len(text) > OVERRIDES_LIMIT:
        raise UsageError(f"{where}: larger than {OVERRIDES_LIMIT // 1024} KiB")
    return overrides_from_json(parse_json(text, where), config.names, where)


def find_python(requested: str | None, environ: Mapping[str, str],
                interpreter: Interpreter) -> str:
    """The interpreter under test: `--python`, else `python3` on PATH *outside* the tool's own
    virtualenv (the action's private environment must never get the dependencies)."""
    search_path = absolute_search_path(environ)
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
