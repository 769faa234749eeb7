"""GitHub API access (DESIGN §5): the only module that imports PyGithub, and only when a token
is given (`resolution` imports this module lazily).

An adapter: it answers "what is pull request N?" and "which commit is this ref?" and raises
`ApiError` with a message for the PR author. What a merged PR or a missing ref *means* is
decided by the caller (`resolution`). One request per question; explicit timeouts; bounded
retries; never an hour-long rate-limit sleep.
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

if TYPE_CHECKING:
    from rocm_deps.config import ApiConfig

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
    def __init__(self, base_url: str, token: str, api: ApiConfig) -> None:
        self.base_url = base_url.rstrip("/")
        self.attempts = api.attempts
        self.timeout = api.timeout_seconds
        retry = GithubRetry(total=api.attempts - 1, backoff_factor=api.backoff_seconds,
                            max_rate_limit_wait=api.max_rate_limit_wait_seconds)
        self.github = Github(
            base_url=self.base_url, auth=Auth.Token(token),
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
