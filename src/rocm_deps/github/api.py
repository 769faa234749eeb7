"""GitHub API access (docs/architecture.md, *The GitHub API and the merge guard*): the only module
that imports PyGithub, and only when a token is given (resolve/resolver.py imports this module
lazily). PyGithub is used through its public API: `Github(timeout=, retry=)` and its requester;
nothing of it is patched.

An adapter: it answers "what is pull request N?" and "which commit is this ref?" and raises
`ApiError` with a message for the PR author; what the answers hold, and their checks, are in
`github/answers.py`. What a merged PR or a missing ref *means* is
decided by the caller (resolve/resolver.py, guard/). One request per question; explicit
timeouts; bounded retries; never an hour-long rate-limit sleep.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import requests
from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import (
    BadCredentialsException,
    RateLimitExceededException,
    UnknownObjectException,
)

from rocm_deps.github.answers import (
    ApiError,
    ApiUnreachable,
    CommitInfo,
    CommitStatus,
    Comparison,
    IssueComment,
    OpenPull,
    PullInfo,
    RateLimited,
    Refused,
    ResponseTooLarge,
    comment_of,
    object_of,
    pull_info,
    sha_of,
    status_of,
    time_of,
)
from rocm_deps.messages import full_sha_hint

if TYPE_CHECKING:
    from rocm_deps.config import ApiConfig

T = TypeVar("T")
# GitHub caps a PR body at 65,536 characters; a whole pull request answer is tens of KiB.
MAX_RESPONSE_BYTES = 2 * 1024 * 1024
MAX_CAUSE = 1000  # the network's own words, bounded but whole enough to act on
# A repository's open pull requests are listed 100 a page, at most this many pages.
OPEN_PULL_PAGES = 50
# A pull request's comments are read a page of 100 at a time, at most this many pages: the
# manifest is among the first comments the bot wrote, and a thread longer than this is
# not read to the end (the comment is then looked for in what was read).
COMMENT_PAGES = 30
PULL_COMMIT_PAGES = 3  # GitHub lists at most 250 commits of a pull request
# Every read of a description asks for GitHub's rendering of it too (`body_html`, in the same
# answer): what GitHub shows decides which lines are directives (page/lines.py).
FULL = "application/vnd.github.full+json"


class GitHubApi:
    def __init__(self, base_url: str, token: str, api: ApiConfig) -> None:
        self.base_url = base_url.rstrip("/")
        self.attempts = api.attempts
        self.timeout = api.timeout_seconds
        policy = self.retry = api.retry
        # Everything one request may take: every attempt's timeout, the waits between them
        # (the policy's, which urllib3 applies), a rate-limit wait, and a second of slack.
        self.deadline = (api.timeout_seconds * policy.attempts + sum(policy.waits())
                         + api.max_rate_limit_wait_seconds + 1)
        retry = GithubRetry(total=policy.attempts - 1, backoff_factor=policy.first_seconds,
                            max_rate_limit_wait=api.max_rate_limit_wait_seconds)
        self.github = Github(
            base_url=self.base_url, auth=Auth.Token(token),
            timeout=api.timeout_seconds, retry=retry, seconds_between_requests=None,
            seconds_between_writes=None, lazy=True, user_agent="rocm-deps")

    def pull(self, repository: str, number: int) -> PullInfo:
        what = f"pull request #{number} of {repository}"

        def fetch() -> PullInfo:
            return pull_info(self._get(f"/repos/{repository}/pulls/{number}", what,
                                       media_type=FULL), what, number)

        return self._call(fetch, what)

    def pull_with_head(self, repository: str, head_branch: str) -> PullInfo | None:
        """The open pull request of `repository` whose head is its own branch `head_branch`
        (the one a stacked pull request's base names); None when there is none."""
        return self.pull_of_run(repository, repository, head_branch, None)

    def pull_of_run(self, repository: str, head_repository: str, head_branch: str,
                    head_sha: str | None) -> PullInfo | None:
        """The open pull request of `repository` whose head is `head_branch` of
        `head_repository` (at `head_sha` when given: what a workflow_run of a fork's pull
        request names, where GitHub leaves `pull_requests` empty); None when there is none."""
        owner = head_repository.split("/", 1)[0]
        what = f"the open pull requests of {repository} from {owner}:{head_branch}"

        def fetch() -> PullInfo | None:
            raw = self._get(f"/repos/{repository}/pulls", what,
                            {"state": "open", "head": f"{owner}:{head_branch}",
                             "per_page": 100}, media_type=FULL)
            if not isinstance(raw, list):
                raise ApiError(f"the answer for {what} is not a JSON list")
            pulls = [pull_info(entry, what) for entry in raw]
            return next((pull for pull in pulls
                         if (head_sha is None or pull.head_sha == head_sha.lower())
                         and pull.head_ref == head_branch and (pull.head_repository or "")
                         .casefold() == head_repository.casefold()), None)

        return self._call(fetch, what)

    def commit(self, repository: str, ref: str) -> str:
        # The commits endpoint takes a SHA (full or abbreviated), a branch or a tag.
        name = ref.removeprefix("refs/")
        what = f"`{ref}` in {repository}"

        def fetch() -> str:
            raw = object_of(self._get(f"/repos/{repository}/commits/{quote(name, safe='/')}",
                                    what), what)
            return sha_of(raw.get("sha"), what)

        return self._call(fetch, what)

    def parents(self, repository: str, sha: str) -> tuple[str, ...]:
        """The parents of commit `sha`, first parent first."""
        what = f"the parents of {sha[:12]} in {repository}"

        def fetch() -> tuple[str, ...]:
            return _parents(object_of(self._get(f"/repos/{repository}/commits/{sha}", what),
                                      what), what)

        return self._call(fetch, what)

    def pull_commits(self, repository: str, number: int) -> tuple[str, ...]:
        """The SHAs of pull request `number`'s commits, oldest first (GitHub lists at most
        250; one request per 100)."""
        what = f"the commits of pull request #{number} of {repository}"
        url = f"/repos/{repository}/pulls/{number}/commits"

        def fetch() -> tuple[str, ...]:
            return tuple(sha_of(object_of(entry, what).get("sha"), what)
                         for entry in self._pages(url, what, PULL_COMMIT_PAGES))

        return self._call(fetch, what)

    def _request(self, verb: str, url: str, parameters: dict[str, Any] | None = None,
                 document: dict[str, Any] | None = None,
                 media_type: str | None = None) -> tuple[dict[str, Any], object]:
        """One request through PyGithub's public requester (its timeout and retries): the
        answer's headers and body, refused over MAX_RESPONSE_BYTES."""
        headers, raw = self.github.requester.requestJsonAndCheck(
            verb, url, parameters=parameters, input=document,
            headers={"Accept": media_type} if media_type else None)
        _check_size(headers, raw, url)
        return headers, raw

    def _get(self, url: str, what: str, parameters: dict[str, Any] | None = None,
             media_type: str | None = None) -> object:
        return self._request("GET", url, parameters, media_type=media_type)[1]

    def _pages(self, url: str, what: str, pages: int,
               parameters: dict[str, Any] | None = None,
               media_type: str | None = None) -> list[object]:
        """The entries of a listing, page by page (100 each), up to `pages` pages: the last
        is a short one, or one whose Link header (GitHub's) names no next page."""
        found: list[object] = []
        for page in range(1, pages + 1):
            headers, raw = self._request("GET", url,
                                         {**(parameters or {}), "per_page": 100, "page": page},
                                         media_type=media_type)
            if not isinstance(raw, list):
                raise ApiError(f"the answer for {what} is not a JSON list")
            found += raw
            link = str(headers.get("link", ""))
            if len(raw) < 100 or (link and 'rel="next"' not in link):
                break
        return found

    def comparison(self, repository: str, base: str, head: str) -> Comparison:
        """The commits after `base` up to `head`, with their parents (one compare request;
        its first page holds up to 250 commits), and how many there are in all."""
        what = f"the commits {base[:12]}...{head[:12]} of {repository}"

        def fetch() -> Comparison:
            raw = object_of(self._get(f"/repos/{repository}/compare/{base}...{head}", what),
                            what)
            commits, total = raw.get("commits"), raw.get("total_commits")
            if not isinstance(commits, list) or not isinstance(total, int) or isinstance(
                    total, bool):
                raise ApiError(f"the answer for {what} has no `commits` list or total")
            found = []
            for entry in commits:
                entry = object_of(entry, what)
                message = object_of(entry.get("commit"), what).get("message")
                found.append(CommitInfo(sha_of(entry.get("sha"), what), _parents(entry, what),
                                        message if isinstance(message, str) else ""))
            return Comparison(total, tuple(found))

        return self._call(fetch, what)

    def comments(self, repository: str, number: int) -> list[IssueComment]:
        """The comments of pull request `number`, oldest first (one request per page)."""
        what = f"the comments of pull request #{number} of {repository}"
        url = f"/repos/{repository}/issues/{number}/comments"

        def fetch() -> list[IssueComment]:
            return [comment_of(entry, what) for entry in self._pages(url, what, COMMENT_PAGES)]

        return self._call(fetch, what)

    def open_pulls(self, repository: str) -> list[OpenPull]:
        """The open pull requests of `repository`, oldest first (one request per 100, at most
        OPEN_PULL_PAGES pages), each with its body."""
        what = f"the open pull requests of {repository}"
        url = f"/repos/{repository}/pulls"

        def fetch() -> list[OpenPull]:
            found: dict[int, OpenPull] = {}
            for entry in self._pages(url, what, OPEN_PULL_PAGES, {
                    "state": "open", "sort": "created", "direction": "asc"}, FULL):
                pull = pull_info(entry, what)
                found[pull.number] = OpenPull(pull, time_of(object_of(entry, what).get(
                    "updated_at")))
            return sorted(found.values(), key=lambda open_pull: open_pull.pull.number)

        return self._call(fetch, what)

    def statuses(self, repository: str, sha: str) -> dict[str, CommitStatus]:
        """The latest status of each context on commit `sha` (its combined status: one
        request for up to 100 contexts)."""
        what = f"the statuses of {sha[:12]} in {repository}"

        def fetch() -> dict[str, CommitStatus]:
            raw = object_of(self._get(f"/repos/{repository}/commits/{sha}/status", what,
                                      {"per_page": 100}), what)
            entries = raw.get("statuses")
            if not isinstance(entries, list):
                raise ApiError(f"the answer for {what} has no `statuses` list")
            found: dict[str, CommitStatus] = {}
            for entry in entries:
                status = status_of(entry, what)
                found.setdefault(status.context, status)  # the latest comes first
            return found

        return self._call(fetch, what)

    def create_status(self, repository: str, sha: str, status: CommitStatus) -> None:
        what = f"a `{status.context}` status on {sha[:12]} of {repository}"

        def send() -> None:
            document = {"state": status.state, "context": status.context,
                        "description": status.description}
            if status.target_url:
                document["target_url"] = status.target_url
            self._request("POST", f"/repos/{repository}/statuses/{sha}", document=document)

        self._call(send, what)

    def rerun(self, repository: str, run_id: int) -> None:
        """Re-run workflow run `run_id` (every job of it)."""
        what = f"a re-run of workflow run {run_id} of {repository}"

        def send() -> None:
            self._request("POST", f"/repos/{repository}/actions/runs/{run_id}/rerun")

        self._call(send, what)

    def create_comment(self, repository: str, number: int, body: str) -> IssueComment:
        return self._write_comment("POST", f"/repos/{repository}/issues/{number}/comments",
                                   body, f"a new comment on pull request #{number} of "
                                         f"{repository}")

    def edit_comment(self, repository: str, comment_id: int, body: str) -> IssueComment:
        return self._write_comment("PATCH", f"/repos/{repository}/issues/comments/{comment_id}",
                                   body, f"comment {comment_id} of {repository}")

    def _write_comment(self, verb: str, url: str, body: str, what: str) -> IssueComment:
        def send() -> IssueComment:
            return comment_of(self._request(verb, url, document={"body": body})[1], what)

        return self._call(send, what)

    def _call(self, fetch: Callable[[], T], what: str) -> T:
        """`fetch` with an overall deadline: a server that sends a byte every few seconds
        never trips the per-read timeout, and must still not hold the job."""
        deadline = self.deadline
        outcome: list[T] = []
        failure: list[BaseException] = []

        def attempt() -> None:
            try:
                outcome.append(self._translated(fetch, what))
            except BaseException as error:  # handed to the caller's thread
                failure.append(error)

        started = time.monotonic()
        worker = threading.Thread(target=attempt, daemon=True, name="rocm-deps-api")
        worker.start()
        worker.join(deadline)
        if worker.is_alive():
            raise ApiUnreachable(f"could not reach the GitHub API at {self.base_url} while "
                                 f"reading {what}: no answer within {deadline:g} s (the overall "
                                 f"deadline of a request). Re-run the job, or check "
                                 f"`GITHUB_API_URL` and the runner's network")
        if failure:
            if isinstance(failure[0], ApiUnreachable):
                raise ApiUnreachable(f"could not reach the GitHub API at {self.base_url} while "
                                     f"reading {what}: {failure[0]}, {self.attempts} attempt(s) "
                                     f"over {time.monotonic() - started:.0f} s. Re-run the job, "
                                     f"or check `GITHUB_API_URL` and the runner's network"
                                     ) from None
            raise failure[0]
        return outcome[0]

    def _translated(self, fetch: Callable[[], T], what: str) -> T:
        try:
            return fetch()
        except UnknownObjectException:
            raise ApiError(f"{what} does not exist (HTTP 404 from {self.base_url})") from None
        except BadCredentialsException:
            raise ApiError(f"the GitHub token was rejected (HTTP 401) while reading {what}; "
                           f"check the `github-token` input") from None
        except RateLimitExceededException as error:
            raise RateLimited(f"the GitHub API rate limit is exhausted while reading {what}; "
                           f"{_reset_text(error.headers)}. Re-run after that, or pass a token "
                           f"with a higher limit (the job's GITHUB_TOKEN)") from None
        except GithubException as error:
            if error.status == 422 and "comment" in what:
                message = (error.data or {}).get("message") if isinstance(error.data,
                                                                          dict) else None
                raise ApiError(f"GitHub refused {what} (HTTP 422"
                               f"{': ' + str(message)[:200] if message else ''})") from None
            if error.status == 422:
                raise ApiError(f"{what}: no single commit matches (unknown, or an ambiguous "
                               f"abbreviation); {full_sha_hint()}") from None
            message = (error.data or {}).get("message") if isinstance(error.data, dict) else None
            if error.status == 403:  # not a rate limit (above): the token may not do it
                raise Refused(f"GitHub refused {what} (HTTP 403"
                              f"{': ' + str(message)[:200] if message else ''})") from None
            raise ApiError(f"reading {what} failed with HTTP {error.status}"
                           f"{': ' + str(message) if message else ''}") from None
        except requests.exceptions.RequestException as error:
            raise ApiUnreachable(self._cause(error)) from None  # _call says where and how long
        except ApiError:
            raise
        except Exception as error:  # PyGithub on HTML, a redirect elsewhere, a broken body
            raise ApiError(f"the GitHub API at {self.base_url} gave an answer for {what} that "
                           f"is not what GitHub sends ({type(error).__name__}: "
                           f"{str(error)[:200]}); check `GITHUB_API_URL`") from None

    def _cause(self, error: requests.exceptions.RequestException) -> str:
        text = str(error)
        if isinstance(error, requests.exceptions.Timeout) or "timed out" in text:
            return f"timed out after {self.timeout} s"
        if isinstance(error, requests.exceptions.RetryError):
            return "server errors (HTTP 5xx) on every attempt"
        reason = _innermost(error)
        return f"{type(reason).__name__}: {str(reason)[:MAX_CAUSE]}"


def _parents(commit: dict[str, Any], what: str) -> tuple[str, ...]:
    """The parents' SHAs of a commit GitHub answered, first parent first."""
    parents = commit.get("parents")
    if not isinstance(parents, list):
        raise ApiError(f"the answer for {what} has a commit without `parents`")
    return tuple(sha_of(object_of(parent, what).get("sha"), what) for parent in parents)


def _check_size(headers: dict[str, Any], raw: object, url: str) -> None:
    """An answer over MAX_RESPONSE_BYTES is refused (PyGithub has read it by then: the bound
    keeps what the tool goes on to use small, not what the client read)."""
    declared = str(headers.get("content-length", ""))
    if declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise ResponseTooLarge(f"the GitHub API answered {url} with {declared} bytes, over the "
                               f"{MAX_RESPONSE_BYTES}-byte limit; check `GITHUB_API_URL`")
    if len(json.dumps(raw)) > MAX_RESPONSE_BYTES:
        raise ResponseTooLarge(f"the GitHub API answered {url} with more than "
                               f"{MAX_RESPONSE_BYTES} bytes; check `GITHUB_API_URL`")



def _reset_text(headers: dict[str, str] | None) -> str:
    value = (headers or {}).get("X-RateLimit-Reset") or (headers or {}).get("x-ratelimit-reset")
    if not value or not str(value).isdigit():
        return "the reset time is unknown"
    reset = datetime.fromtimestamp(int(value), timezone.utc)
    minutes = max(0, round((reset - datetime.now(timezone.utc)).total_seconds() / 60))
    return f"it resets at {reset:%Y-%m-%d %H:%M} UTC (in {minutes} minutes)"


def _innermost(error: BaseException) -> BaseException:
    """The exception at the bottom of requests' and urllib3's wrapping (MaxRetryError holds a
    NewConnectionError holds the socket's error): the words that say what went wrong."""
    seen = {id(error)}
    while True:
        reason = getattr(error, "reason", None)
        inner = (reason if isinstance(reason, BaseException) else
                 error.args[0] if error.args and isinstance(error.args[0], BaseException) else
                 error.__cause__)
        if inner is None or id(inner) in seen:
            return error
        seen.add(id(inner))
        error = inner
