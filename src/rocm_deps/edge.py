"""What several commands read at the edge, built once: the process they run in, the event, the
GitHub API's settings and token, the configuration, the trusted associations.

Each command's own settings live in its folder (`<command>/settings.py`: the dataclass, the
`build` that makes it from the checked options and this module's `Edge`, its help). Below
`build`, nothing reads `os.environ`: the defaults that depend on the machine (the event file,
the workspace, the interpreter under test, the child environment) are decided there. Two
other readers of the process stand at the very edge, before any settings exist: the runner
protocol's files (`cli.make_runner`) and the action's inputs (`action.read_input`).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from rocm_deps.config import REPOSITORY, Config, load_config
from rocm_deps.config.profiles import profile_named
from rocm_deps.environment import absolute_search_path, child_environment
from rocm_deps.errors import UsageError
from rocm_deps.messages import did_you_mean
from rocm_deps.options import Given, OutputFormat

DEFAULT_API_URL = "https://api.github.com"
# GitHub's author_association values: a name outside them would never match anyone.
ASSOCIATIONS = ("COLLABORATOR", "CONTRIBUTOR", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR",
                "MANNEQUIN", "MEMBER", "NONE", "OWNER")


@dataclass(frozen=True)
class Interpreter:
    """Where this process runs: what the default interpreter search must step around."""

    executable: str
    prefix: str
    base_prefix: str

    @classmethod
    def current(cls) -> Interpreter:
        return cls(sys.executable, sys.prefix, sys.base_prefix)


@dataclass(frozen=True)
class FoundConfig:
    """The configuration file found by convention (`convention.find`): its text (None: none
    was found, the built-in profile alone), and what was read, for the step's log."""

    text: str | None
    source: str
    notices: tuple[str, ...] = ()
    path: str | None = None  # how a command line names the file: `--config` of a reproduction


@dataclass(frozen=True)
class Edge:
    """What a command's `build` may read of the process: its environment, its working
    directory, its own interpreter, and the GitHub token (read once, by `cli.execute`, from
    the variable `--github-token-env` names: `token_of`)."""

    environ: Mapping[str, str]
    cwd: Path
    interpreter: Interpreter
    token: str | None = None
    found: FoundConfig | None = None  # the configuration file found by convention


@dataclass(frozen=True)
class RunIdentity:
    """The workflow run and attempt this step belongs to ($GITHUB_RUN_ID, $GITHUB_RUN_ATTEMPT);
    None outside a run. A re-run of failed jobs is a later attempt of the same run."""

    run_id: int | None = None
    attempt: int | None = None

    @classmethod
    def of(cls, environ: Mapping[str, str]) -> RunIdentity:
        def number(name: str) -> int | None:
            text = environ.get(name, "").strip()
            return int(text) if text.isascii() and text.isdigit() and 0 < len(text) < 19 \
                and int(text) > 0 else None

        run_id, attempt = number("GITHUB_RUN_ID"), number("GITHUB_RUN_ATTEMPT")
        # A run without an attempt number is the runner's first attempt (act sets none).
        return cls(run_id, (attempt or 1) if run_id is not None else None)


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


def config_of(given: Given, at: Edge) -> Config:
    """An explicit `config` file, else what was found by convention (`at.found`), over the
    profile `profile` names (else the file's own, else the default)."""
    named = given.optional("profile")
    profile = profile_named(named) if named else None
    explicit = given.optional("config")
    if explicit is not None or at.found is None:
        return load_config(explicit, profile)
    found = at.found
    return load_config(None, profile, text=found.text,
                       source=found.source if found.text is not None else None,
                       named=found.path)


def output_format(given: Given) -> OutputFormat:
    return cast(OutputFormat, given.text("format"))


def path(text: str | None) -> Path | None:
    return Path(text) if text else None


def token_of(given: Given, environ: Mapping[str, str]) -> str | None:
    """The GitHub token, read from the variable `--github-token-env` names."""
    variable = given.optional("github-token-env")
    return (environ.get(variable, "").strip() or None) if variable else None


def api_settings(given: Given, at: Edge) -> ApiSettings:
    environ, token = at.environ, at.token
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


def event(given: Given, environ: Mapping[str, str],
          body_file: Path | None) -> tuple[str, Path | None]:
    """The event's name and payload file: options first, then the runner's variables. An
    event file means nothing without its event's name, and the reverse: the payload's shape
    depends on the event. Either alone would silently name nothing."""
    event_path = path(given.optional("event-path") or environ.get("GITHUB_EVENT_PATH"))
    event_name = given.text("event-name") or environ.get("GITHUB_EVENT_NAME", "")
    if event_path is not None and not event_name:
        raise UsageError(f"--event-path {event_path} needs --event-name (or GITHUB_EVENT_NAME): "
                         f"which event wrote the payload decides where the PR body is, e.g. "
                         f"--event-name pull_request")
    if event_name and event_path is None and body_file is None:
        raise UsageError(f"--event-name {event_name} needs --event-path (or GITHUB_EVENT_PATH) "
                         f"with the event's payload; to lint a PR description, use --body-file")
    return event_name, event_path


def repository(given: Given, environ: Mapping[str, str]) -> str | None:
    """`--repository`, else $GITHUB_REPOSITORY: the repository a description belongs to when
    no event says (`--body-file`), so a `Depends-On:` is judged locally as CI judges it."""
    name = given.text("repository") or environ.get("GITHUB_REPOSITORY", "")
    if not name:
        return None
    if not REPOSITORY.fullmatch(name):
        raise UsageError(f"{given.where('repository')} {name[:100]!r} is not OWNER/REPO"
                         + ("" if given.text("repository") else
                            " ($GITHUB_REPOSITORY; a local runner such as act takes it from the "
                            "checkout's `origin` remote: give --env GITHUB_REPOSITORY=OWNER/REPO"
                            " or the `repository` input)"))
    return name


def associations(given: Given) -> tuple[str, ...]:
    """`trusted-associations`: each a name GitHub sends."""
    names = tuple(item.strip() for item in given.text("trusted-associations").split(",")
                  if item.strip())
    for name in names:
        if name not in ASSOCIATIONS:
            raise UsageError(f"{given.where('trusted-associations')}: {name[:40]!r} is not an "
                             f"author association GitHub sends; "
                             f"{did_you_mean(name.upper(), ASSOCIATIONS)}"
                             f"one of: {', '.join(ASSOCIATIONS)}")
    return names


def suites(given: Given) -> tuple[str, ...]:
    """The suites a command checks (`--suite`, repeatable); (): every suite that commented."""
    from rocm_deps.contract.manifest import checked_suite  # the commands that read manifests

    return tuple(dict.fromkeys(checked_suite(line, given.where("suite"))
                               for line in given.lines("suite")))
