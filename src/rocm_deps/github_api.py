"""GitHub API access (DESIGN §5): the only module that imports PyGithub, and only when a token
is given (`resolve` imports this module lazily).

Pins every named ref to a full commit SHA, so all jobs of a run test the same commits; fails
before any GPU job is queued when a PR or ref does not exist; reads the live PR body. One
request per directive; explicit timeouts; bounded retries; never an hour-long rate-limit sleep.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar

import requests
from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import (
    BadCredentialsException,
    RateLimitExceededException,
    UnknownObjectException,
)

from rocm_deps.directives import Finding
from rocm_deps.errors import FatalError

if TYPE_CHECKING:
    from rocm_deps.commands.resolve import Override, ResolveReport, ResolveSettings
    from rocm_deps.config import Config
    from rocm_deps.event import EventContext
    from rocm_deps.runner import Runner

T = TypeVar("T")


class ApiError(Exception):
    """A failed API call, with a message for the PR author (what, where, the fix)."""


@dataclass(frozen=True)
class PullInfo:
    number: int
    head_sha: str
    state: str
    merged: bool
    base_ref: str
    head_label: str
    body: str | None
    author_association: str | None


class GitHubApi:
    def __init__(self, settings: ResolveSettings) -> None:
        api = settings.config.api
        self.base_url = settings.api_url.rstrip("/")
        self.attempts = api.attempts
        self.timeout = api.timeout_seconds
        retry = GithubRetry(total=api.attempts - 1, backoff_factor=api.backoff_seconds,
                            max_rate_limit_wait=api.max_rate_limit_wait_seconds)
        self.github = Github(
            base_url=self.base_url, auth=Auth.Token(settings.token or ""),
            timeout=api.timeout_seconds, retry=retry, seconds_between_requests=None,
            seconds_between_writes=None, lazy=True, user_agent="rocm-deps")

    def pull(self, repository: str, number: int) -> PullInfo:
        def fetch() -> PullInfo:
            pull = self.github.get_repo(repository).get_pull(number)
            raw: dict[str, Any] = pull.raw_data  # one GET /repos/{repository}/pulls/{number}
            head, base = raw.get("head") or {}, raw.get("base") or {}
            return PullInfo(number, str(head.get("sha", "")), str(raw.get("state", "")),
                            bool(raw.get("merged")), str(base.get("ref", "")),
                            str(head.get("label", "")), raw.get("body"),
                            raw.get("author_association"))

        return self._call(fetch, f"pull request #{number} of {repository}")

    def commit(self, repository: str, ref: str) -> str:
        # The commits endpoint takes a SHA (full or abbreviated), a branch or a tag.
        name = ref.removeprefix("refs/")

        def fetch() -> str:
            return str(self.github.get_repo(repository).get_commit(name).raw_data["sha"])

        return self._call(fetch, f"`{ref}` in {repository}")

    def _call(self, fetch: Callable[[], T], what: str) -> T:
        try:
            return fetch()
        except UnknownObjectException:
            raise ApiError(f"{what} does not exist (HTTP 404 from {self.base_url})") from None
        except BadCredentialsException:
            raise ApiError(f"the GitHub token was rejected (HTTP 401) while reading {what}; "
                           f"check the `github-token` input") from None
        except RateLimitExceededException as error:
            raise ApiError(f"the GitHub API rate limit is exhausted while reading {what}; "
                           f"{_reset_text(error.headers)}. Re-run after that, or pass a token "
                           f"with a higher limit (the job's GITHUB_TOKEN)") from None
        except GithubException as error:
            if error.status == 422:
                raise ApiError(f"{what}: no single commit matches (unknown, or an ambiguous "
                               f"abbreviation); give the full 40-digit SHA") from None
            message = (error.data or {}).get("message") if isinstance(error.data, dict) else None
            raise ApiError(f"reading {what} failed with HTTP {error.status}"
                           f"{': ' + str(message) if message else ''}") from None
        except requests.exceptions.RequestException as error:
            raise ApiError(f"the GitHub API at {self.base_url} did not answer while reading "
                           f"{what} ({self._cause(error)}, {self.attempts} attempt(s)); "
                           f"re-run the job, or check `GITHUB_API_URL`") from None

    def _cause(self, error: requests.exceptions.RequestException) -> str:
        text = str(error)
        if isinstance(error, requests.exceptions.Timeout) or "timed out" in text:
            return f"timed out after {self.timeout} s"
        if isinstance(error, requests.exceptions.RetryError):
            return "server errors (HTTP 5xx) on every attempt"
        return f"{type(error).__name__}: {text[:200]}"


def _reset_text(headers: dict[str, str] | None) -> str:
    value = (headers or {}).get("X-RateLimit-Reset") or (headers or {}).get("x-ratelimit-reset")
    if not value or not str(value).isdigit():
        return "the reset time is unknown"
    reset = datetime.fromtimestamp(int(value), timezone.utc)
    minutes = max(0, round((reset - datetime.now(timezone.utc)).total_seconds() / 60))
    return f"it resets at {reset:%Y-%m-%d %H:%M} UTC (in {minutes} minutes)"


def read_pull(settings: ResolveSettings, context: EventContext) -> PullInfo:
    """The live PR (a re-run after editing the description sees the edited body)."""
    if context.repository is None or context.pr_number is None:
        raise FatalError("body-source `api` needs the event's repository and PR number; this "
                         f"`{context.event_name}` event has none")
    try:
        return GitHubApi(settings).pull(context.repository, context.pr_number)
    except ApiError as error:
        raise FatalError(f"could not read the PR body from the API: {error}") from None


def pin_overrides(settings: ResolveSettings, config: Config, report: ResolveReport,
                  runner: Runner) -> None:
    """Give every override a full SHA, one request per directive; problems become errors."""
    api = GitHubApi(settings)
    for name, override in report.overrides.items():
        repository = config.dependency(name).repository
        try:
            _pin(api, repository, override, report)
        except ApiError as error:
            where = f"line {override.line}: " if override.line else ""
            report.errors.append(Finding(
                "error", f"{where}{name} `{override.raw}` ({override.source}): {error}",
                override.line or 0))


def _pin(api: GitHubApi, repository: str, override: Override, report: ResolveReport) -> None:
    if override.kind == "pr" and override.pr is not None:
        pull = api.pull(repository, override.pr)
        override.sha = pull.head_sha
        summary = (f"{override.name}: #{pull.number} ({pull.head_label} into {pull.base_ref}) "
                   f"is {'merged' if pull.merged else pull.state}; testing its head "
                   f"{pull.head_sha}")
        if pull.merged or pull.state == "closed":
            report.warnings.append(Finding(
                "warning", f"{summary}. The PR is no longer open: its head may be behind what "
                           f"was merged into {pull.base_ref}", override.line or 0))
        else:
            report.notices.append(summary)
        return
    sha = api.commit(repository, override.sha or override.ref)
    if override.kind == "short-commit":
        override.ref = sha  # install fetches and verifies the full SHA
    override.sha = sha
