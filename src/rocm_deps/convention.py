"""The configuration found by convention (docs/architecture.md, *Configuration*): every command
that reads a configuration reads `.github/rocm-deps.toml` when it exists, as other tools read
their own files under `.github/`; an explicit `config` wins.

Where it is read from, in this order:
- `install` given `overrides` that carry the configuration resolve read: that one (the GPU
  job needs no token and no second read, and tests what resolve judged);
- outside a workflow (`GITHUB_ACTIONS` is not `true`): the file in the working tree's
  repository;
- in a workflow, the file as it is on the base branch, the trusted state: with a token,
  through the contents API (one request) at the pull request's or the merge group's base
  commit, else at the repository's default branch; without one, from the checkout only when
  the checkout is that base commit. A pull request that edits the file is told its edit
  applies after merge: its own run, its merge guard and the sweep judge it by the base's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rocm_deps import edge, process
from rocm_deps.config import REPOSITORY, ApiConfig
from rocm_deps.contract.overrides import CONFIG_KEY
from rocm_deps.defaults import CONFIG_FILE
from rocm_deps.edge import Edge, FoundConfig
from rocm_deps.environment import child_environment
from rocm_deps.errors import FatalError
from rocm_deps.files import CONFIG_LIMIT, OVERRIDES_LIMIT, read_bounded
from rocm_deps.github.answers import ApiError
from rocm_deps.github.on_demand import ensure_github
from rocm_deps.options import Given
from rocm_deps.runner import Runner

CONVENTIONAL = Path(CONFIG_FILE)
MAX_SOURCE = 300


def find(given: Given, at: Edge, runner: Runner) -> FoundConfig | None:
    """The configuration file by convention, for a command that reads one and was given no
    `config`; None when `config` names a file (or the command reads none)."""
    if "config" not in given.options or given.optional("config"):
        return None
    found = _carried(given)
    if found is not None:
        return found
    if at.environ.get("GITHUB_ACTIONS") != "true":
        return _working_tree(at.cwd)
    return _base_branch(given, at, runner)


def _carried(given: Given) -> FoundConfig | None:
    """The configuration `overrides` carries (install in the GPU job)."""
    text = given.optional("overrides") if "overrides" in given.options else None
    file = given.optional("overrides-file") if "overrides-file" in given.options else None
    try:
        if text is None and file is not None:
            text = read_bounded(Path(file), OVERRIDES_LIMIT, "--overrides-file")
        document = json.loads(text) if text is not None and len(text) <= OVERRIDES_LIMIT else None
    except (OSError, ValueError, FatalError):
        return None  # the install's own reading of `overrides` says what is wrong with it
    if isinstance(document, dict) and isinstance(document.get("overrides"), dict):
        document = document["overrides"]  # a whole resolve report
    entry = document.get(CONFIG_KEY) if isinstance(document, dict) else None
    if not isinstance(entry, dict):
        return None
    source, config_text = entry.get("source"), entry.get("text")
    if not isinstance(source, str) or not (config_text is None or (
            isinstance(config_text, str) and len(config_text) <= CONFIG_LIMIT)):
        raise FatalError(f"`overrides` carries a configuration (`{CONFIG_KEY}`) that is not what "
                         f"resolve writes: an object with a `source` and a `text` of at most "
                         f"{CONFIG_LIMIT} bytes", title="Invalid configuration")
    return FoundConfig(config_text, f"{source[:MAX_SOURCE]}, as resolve read it")


def _working_tree(cwd: Path) -> FoundConfig:
    top = next((directory for directory in (cwd, *cwd.parents)
                if (directory / ".git").exists()), None)
    path = (top or cwd) / CONVENTIONAL
    if path.is_file():
        return FoundConfig(read_bounded(path, CONFIG_LIMIT, "configuration file"), str(path),
                           path=str(path))
    return FoundConfig(None, f"the built-in profile (no {path})")


def _base_branch(given: Given, at: Edge, runner: Runner) -> FoundConfig:
    payload = _payload(given, at.environ)
    repository = (given.text("repository") if "repository" in given.options else "") or str(
        _mapping(payload.get("repository")).get("full_name") or "") or at.environ.get(
        "GITHUB_REPOSITORY", "")
    base = _base_commit(payload)
    workspace = Path(at.environ.get("GITHUB_WORKSPACE") or at.cwd)
    checkout = workspace / CONVENTIONAL
    head = _head(workspace, at.environ, runner)
    if at.token and REPOSITORY.fullmatch(repository):
        api_settings = edge.api_settings(given, at)
        ensure_github(api_settings, runner)
        from rocm_deps.github.api import GitHubApi  # PyGithub only with a token

        where = f"{base[:12]}" if base else "its default branch"
        try:
            text = GitHubApi(api_settings.url, at.token, ApiConfig()).contents(
                repository, CONVENTIONAL.as_posix(), base, CONFIG_LIMIT)
        except ApiError as error:
            raise FatalError(f"could not read {CONVENTIONAL} of {repository} at {where} (the "
                             f"configuration, read from the base branch): {error}. Give the "
                             f"job `contents: read`, or name a file with `config`",
                             title="Invalid configuration") from None
        source = (f"{CONVENTIONAL} of {repository} at {where} (the base branch)" if text
                  is not None else f"the built-in profile (no {CONVENTIONAL} in {repository} at "
                                   f"{where})")
        notices: tuple[str, ...] = ()
        if base is not None and head not in (None, base) and checkout.is_file() and (
                _read(checkout) != text):
            notices = (f"this pull request changes {CONVENTIONAL}: its run, its merge guard and "
                       f"the sweep read the base branch's ({where}); the change applies after "
                       f"it merges",)
        return FoundConfig(text, source, notices, path=CONFIG_FILE)
    wanted = base or at.environ.get("GITHUB_SHA", "").lower() or None
    if head is not None and head == wanted:
        if checkout.is_file():
            return FoundConfig(_read(checkout), f"{checkout} (the checkout of {head[:12]}, the "
                                                f"base)", path=CONFIG_FILE)
        return FoundConfig(None, f"the built-in profile (no {checkout} in the checkout of the "
                                 f"base)")
    why = (f"the checkout at {workspace} is {head[:12]}, not the base {wanted[:12]}"
           if head and wanted else "there is no checkout of the base")
    unread: tuple[str, ...] = ((
        f"{checkout} is not read: {why} (a pull request's own copy is not trusted); give the "
        f"step a github-token to read the base branch's, or name a file with `config`",)
        if checkout.is_file() else ())
    return FoundConfig(None, f"the built-in profile ({CONVENTIONAL} not read: no github-token, "
                             f"and {why})", unread)


def _payload(given: Given, environ: Mapping[str, str]) -> Mapping[str, Any]:
    path = (given.optional("event-path") if "event-path" in given.options else None) or (
        environ.get("GITHUB_EVENT_PATH"))
    if not path or not Path(path).is_file():
        return {}
    try:
        document = json.loads(read_bounded(Path(path), 10 * 1024 * 1024, "the event payload"))
    except (ValueError, FatalError):
        return {}  # the command's own reading of the event says what is wrong with it
    return document if isinstance(document, dict) else {}


def _base_commit(payload: Mapping[str, Any]) -> str | None:
    """The base commit a pull request's or a merge group's event names (None: another event,
    whose base is the repository's default branch)."""
    pull = _mapping(payload.get("pull_request"))
    for candidate in (_mapping(pull.get("base")).get("sha"),
                      _mapping(payload.get("merge_group")).get("base_sha")):
        if isinstance(candidate, str) and len(candidate) in (40, 64) and all(
                character in "0123456789abcdefABCDEF" for character in candidate):
            return candidate.lower()
    return None


def _head(workspace: Path, environ: Mapping[str, str], runner: Runner) -> str | None:
    """The commit the checkout at `workspace` is at (None: no checkout)."""
    if not (workspace / ".git").exists():
        return None
    result = process.run(["git", "-c", f"safe.directory={workspace}", "-C", str(workspace),
                          "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], runner,
                         env=child_environment(environ, None), echo=False)
    commit = result.stdout.strip().lower()
    return commit if result.ok and len(commit) in (40, 64) else None


def _read(path: Path) -> str:
    return read_bounded(path, CONFIG_LIMIT, "configuration file")


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
