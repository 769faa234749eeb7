"""GitHub API access (docs/architecture.md, *The GitHub API and the merge guard*): the only module
that imports PyGithub, and only when a token is given (the commands import it lazily). PyGithub
is used through its public API: `Github(timeout=, retry=, api_version=)` and its requester's
`requestJson`, the one call every REST request and GraphQL query goes through; nothing of it
is patched.

An adapter: it answers "what is pull request N?" and "which commit is this ref?" and raises
`ApiError` with a message for the PR author; what the answers hold, and their checks, are in
`github/answers.py`. What a merged PR or a missing ref *means* is decided by the caller.

GitHub as it answers (its REST description and its docs "Rate limits for the REST API" and
"Best practices for using the REST API", API version 2022-11-28): every request names the API
version and a documented media type, asks only for what is read (a commit's parents from the
git database, a ref's commit as its bare SHA: no diffs), and is one trip through `_request`:
the answer counted in the bytes it came in, transient failures retried with the config's
policy, a rate limit (primary or secondary, 403 or 429, or a GraphQL answer that says so)
waited out only when its `retry-after` or `x-ratelimit-reset` falls within the request's
deadline, else stopped at once, saying until when. Writes are at least a second apart.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

import requests
from github import Auth, Github

from rocm_deps.github import graphql
from rocm_deps.github.answers import (
    HISTORY_PAGES,
    ApiError,
    ApiUnreachable,
    CommitInfo,
    CommitStatus,
    IssueComment,
    PullInfo,
    RateLimited,
    Refused,
    ResponseTooLarge,
    comment_of,
    commit_info,
    github_message,
    object_of,
    pull_info,
    sha_of,
    stack_of,
    status_of,
)
from rocm_deps.messages import full_sha_hint

if TYPE_CHECKING:
    from rocm_deps.config import ApiConfig

VERSION = "2022-11-28"  # the REST API version every request names (X-GitHub-Api-Version)
JSON = "application/vnd.github+json"
# Every read of a description asks for GitHub's rendering of it too (`body_html`, in the same
# answer): what GitHub shows decides which lines are directives (page/lines.py).
FULL = "application/vnd.github.full+json"
SHA = "application/vnd.github.sha"  # a commit as its bare SHA: the answer holds no diff
RAW = "application/vnd.github.raw+json"  # a file's contents as they are
# An answer is refused past this many bytes as it came in (not as re-serialised JSON). GitHub's
# largest legitimate answers here: a page of 100 pull requests at the documented ~22 KB each
# whose descriptions are at GitHub's 65,536-character cap, with their HTML (~20 MB); what is
# held of each item is bounded on its own (answers.py).
MAX_ANSWER_BYTES = 64 * 1024 * 1024
MAX_CAUSE = 1000  # the network's own words, bounded but whole enough to act on
# A pull request's comments are read a page of 100 at a time, at most this many pages: the
# manifest is among the first comments the bot wrote.
COMMENT_PAGES = 30
PULL_COMMIT_PAGES = 3  # GitHub lists at most 250 commits of a pull request
STATUS_PAGES = 10  # a commit's combined status, 100 contexts a page
STACK_PAGES = 10  # a repository's native stacks, 100 a page
# GitHub: "pause at least 1 second between mutative requests".
WRITE_SPACING_SECONDS = 1.0
# GitHub: a secondary rate limit without retry-after or a spent primary: "wait for at least
# one minute before retrying".
SECONDARY_WAIT_SECONDS = 60.0


@dataclass
class Spent:
    """What this client spent: requests in all, GraphQL points, and the budget GitHub said is
    left of each resource (`x-ratelimit-resource`: core, graphql) after the last answer."""

    requests: int = 0
    points: int = 0
    remaining: dict[str, tuple[int, int]] | None = None  # resource -> (remaining, limit)

    def budget(self) -> dict[str, tuple[int, int]]:
        return self.remaining or {}


class GitHubApi:
    def __init__(self, base_url: str, token: str, api: ApiConfig,
                 ends: float | None = None) -> None:
        """`ends`: the command's own deadline (a `time.monotonic()` instant) when it has one,
        the sweep's `--max-seconds`; every request keeps to it as well as to its own."""
        self.base_url = base_url.rstrip("/")
        self.timeout = api.timeout_seconds
        self.retry = api.retry
        self.max_rate_limit_wait = api.max_rate_limit_wait_seconds
        # Everything one request may take: every attempt's timeout, the waits between them,
        # a rate-limit wait, and a second of slack.
        self.request_seconds = (api.timeout_seconds * self.retry.attempts
                                + sum(self.retry.waits()) + api.max_rate_limit_wait_seconds + 1)
        self.ends = ends
        self.spent = Spent()
        self._last_write: float | None = None
        # Retries are this module's (`_request`): PyGithub's would wait out a rate limit past
        # the deadline and report a secondary limit as server errors.
        self.requester = Github(
            base_url=self.base_url, auth=Auth.Token(token), timeout=api.timeout_seconds,
            retry=0, seconds_between_requests=None, seconds_between_writes=None, lazy=True,
            user_agent="rocm-deps", api_version=VERSION).requester

    def pull(self, repository: str, number: int) -> PullInfo:
        what = f"pull request #{number} of {repository}"
        return pull_info(self._request("GET", f"/repos/{repository}/pulls/{number}", what,
                                       accept=FULL)[1], what, number)

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
        raw = self._request("GET", f"/repos/{repository}/pulls", what, {
            "state": "open", "head": f"{owner}:{head_branch}", "per_page": 100}, accept=FULL)[1]
        if not isinstance(raw, list):
            raise ApiError(f"the answer for {what} is not a JSON list")
        return next((pull for pull in (pull_info(entry, what) for entry in raw)
                     if (head_sha is None or pull.head_sha == head_sha.lower())
                     and pull.head_ref == head_branch and (pull.head_repository or "")
                     .casefold() == head_repository.casefold()), None)

    def commit(self, repository: str, ref: str) -> str:
        """The commit a SHA (full or abbreviated), a branch or a tag names: its bare SHA
        (media type `sha`), never the commit with its diff."""
        name = ref.removeprefix("refs/")
        what = f"`{ref}` in {repository}"
        try:
            text = self._request("GET", f"/repos/{repository}/commits/{name}", what,
                                 accept=SHA)[1]
        except ApiError as error:
            if error.status == 422:  # GitHub: no commit, or an ambiguous abbreviation
                raise ApiError(f"{what}: no single commit matches (HTTP 422: "
                               f"{error.detail or 'no message'}); {full_sha_hint()}",
                               422) from None
            raise
        return sha_of(text.strip() if isinstance(text, str) else text, what)

    def parents(self, repository: str, sha: str) -> tuple[str, ...]:
        """The parents of commit `sha`, first parent first (the git database's commit: no
        diff, whatever the commit changed)."""
        what = f"the parents of {sha[:12]} in {repository}"
        return commit_info(self._request("GET", f"/repos/{repository}/git/commits/{sha}",
                                         what)[1], what).parents

    def pull_commits(self, repository: str, number: int) -> tuple[str, ...]:
        """The SHAs of pull request `number`'s commits, oldest first (GitHub lists at most
        250; one request per 100)."""
        what = f"the commits of pull request #{number} of {repository}"
        return tuple(sha_of(object_of(entry, what).get("sha"), what) for entry in self._pages(
            f"/repos/{repository}/pulls/{number}/commits", what, PULL_COMMIT_PAGES))

    def first_parents(self, repository: str, base: str, head: str) -> tuple[CommitInfo, ...] | None:
        """The commits on the first-parent line from `head` back to `base` (excluded), newest
        first, read from the history that ends at `head` (100 commits a page, no diffs); None
        when `base` is not reached within HISTORY_PAGES pages."""
        what = f"the commits {base[:12]}..{head[:12]} of {repository}"
        url = f"/repos/{repository}/commits"
        read: dict[str, CommitInfo] = {}
        chain: list[CommitInfo] = []
        current = head
        for page in range(1, HISTORY_PAGES + 1):
            entries = self._request("GET", url, what, {"sha": head, "per_page": 100,
                                                       "page": page})[1]
            if not isinstance(entries, list):
                raise ApiError(f"the answer for {what} is not a JSON list")
            read.update((commit.sha, commit) for commit in (commit_info(entry, what)
                                                            for entry in entries))
            while current != base and current in read:
                chain.append(read[current])
                current = read[current].parents[0] if read[current].parents else base
            if current == base:
                return tuple(chain)
            if len(entries) < 100:
                return None
        return None

    def comments(self, repository: str, number: int) -> list[IssueComment]:
        """The comments of pull request `number`, oldest first (one request per page)."""
        what = f"the comments of pull request #{number} of {repository}"
        return [comment_of(entry, what) for entry in self._pages(
            f"/repos/{repository}/issues/{number}/comments", what, COMMENT_PAGES)]

    def statuses(self, repository: str, sha: str) -> dict[str, CommitStatus]:
        """The latest status of each context on commit `sha` (its combined status, 100
        contexts a page)."""
        what = f"the statuses of {sha[:12]} in {repository}"
        found: dict[str, CommitStatus] = {}
        for entry in self._pages(f"/repos/{repository}/commits/{sha}/status", what,
                                 STATUS_PAGES, key="statuses"):
            status = status_of(entry, what)
            found.setdefault(status.context, status)  # the latest comes first
        return found

    def contents(self, repository: str, path: str, ref: str | None, limit: int) -> str | None:
        """The text of file `path` at `ref` (None: the default branch; media type `raw`),
        None when there is no such file; a file over `limit` bytes is refused."""
        what = f"{path} at {ref or 'the default branch'} of {repository}"
        try:
            text = self._request("GET", f"/repos/{repository}/contents/{path}", what,
                                 {"ref": ref} if ref else None, accept=RAW)[1]
        except ApiError as error:
            if error.status == 404:
                return None
            raise
        if not isinstance(text, str):
            raise ApiError(f"the answer for {what} is not the file's text (a directory?)")
        if len(text.encode()) > limit:
            raise ApiError(f"{what} has more than {limit} bytes")
        return text

    def create_status(self, repository: str, sha: str, status: CommitStatus) -> None:
        what = f"a `{status.context}` status on {sha[:12]} of {repository}"
        document = {"state": status.state, "context": status.context,
                    "description": status.description}
        if status.target_url:
            document["target_url"] = status.target_url
        self._request("POST", f"/repos/{repository}/statuses/{sha}", what, document=document)

    def rerun(self, repository: str, run_id: int) -> None:
        """Re-run workflow run `run_id` (every job of it)."""
        self._request("POST", f"/repos/{repository}/actions/runs/{run_id}/rerun",
                      f"a re-run of workflow run {run_id} of {repository}")

    def create_comment(self, repository: str, number: int, body: str) -> IssueComment:
        what = f"a new comment on pull request #{number} of {repository}"
        return comment_of(self._request("POST", f"/repos/{repository}/issues/{number}/comments",
                                        what, document={"body": body})[1], what)

    def edit_comment(self, repository: str, comment_id: int, body: str) -> IssueComment:
        what = f"comment {comment_id} of {repository}"
        return comment_of(self._request(
            "PATCH", f"/repos/{repository}/issues/comments/{comment_id}", what,
            document={"body": body})[1], what)

    def query(self, query: str, variables: dict[str, Any],
                what: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """One GraphQL query: its `data` (what could be answered) and its `errors` (each an
        object; [] when there are none). What partial data means is the caller's to decide.
        A query's cost in points is taken from its `rateLimit { cost }` when it asks."""
        answer = object_of(self._request("POST", self.requester.graphql_url, what, document={
            "query": query, "variables": variables})[1], what)
        data, errors = answer.get("data"), answer.get("errors", [])
        if not isinstance(errors, list) or not all(isinstance(error, dict) for error in errors):
            raise ApiError(f"the answer for {what} has an `errors` member that is not a list "
                           f"of objects")
        if data is None and errors:
            raise ApiError(f"GitHub could not answer {what}: {graphql.errors_text(errors)}")
        data = object_of(data, what)
        cost = object_of(data.get("rateLimit") or {}, what).get("cost")
        if isinstance(cost, int) and not isinstance(cost, bool) and 0 <= cost <= 100_000:
            self.spent.points += cost
        return data, errors

    def open_pulls_page(self, repository: str, after: str | None) -> graphql.Page:
        """One page of `repository`'s open pull requests, oldest first (one GraphQL query):
        each with its description, refs and head commit's statuses."""
        owner, name = repository.split("/", 1)
        what = f"the open pull requests of {repository}"
        data, errors = self.query(graphql.OPEN_PULLS, {"owner": owner, "name": name,
                                                          "after": after}, what)
        if errors:  # a list with holes judges nothing right
            raise ApiError(f"GitHub could not answer {what} whole: "
                           f"{graphql.errors_text(errors)}")
        return graphql.page_of(data, what)

    def comment_authors(self, repository: str, numbers: Sequence[int],
                        after: dict[int, str]) -> list[graphql.Authors | ApiError]:
        """Who wrote a page of each pull request's comments (one query for all of them)."""
        owner, name = repository.split("/", 1)
        query, variables = graphql.comments_query(numbers, after)
        what = f"the comments of {len(numbers)} pull requests of {repository}"
        data, errors = self.query(query, {"owner": owner, "name": name, **variables}, what)
        return [entry if isinstance(entry, ApiError) else graphql.authors_of(
            entry, f"the comments of #{number}") for number, entry in zip(
            numbers, graphql.aliased(data.get("repository"), "p", len(numbers), errors, what),
            strict=True)]

    def comment_bodies(self, ids: Sequence[str]) -> list[IssueComment | ApiError]:
        """The comments `ids` (node IDs) with their bodies (one query)."""
        query, variables = graphql.bodies_query(ids)
        what = f"{len(ids)} comments"
        data, errors = self.query(query, variables, what)
        return [entry if isinstance(entry, ApiError) else graphql.comment_of(entry, what)
                for entry in graphql.aliased(data, "c", len(ids), errors, what)]

    def named_pulls(self, keys: Sequence[tuple[str, int]]) -> list[PullInfo | ApiError]:
        """Pull requests of any repositories, (owner/repo, number) each (one query)."""
        query, variables = graphql.pulls_query(keys)
        what = f"{len(keys)} pull requests"
        data, errors = self.query(query, variables, what)
        found: list[PullInfo | ApiError] = []
        for (repository, number), entry in zip(keys, graphql.aliased(
                data, "q", len(keys), errors, what), strict=True):
            one = f"{repository}#{number}"
            if isinstance(entry, ApiError):
                found.append(ApiError(f"{one} {str(entry).split(': ', 1)[1]}"))
                continue
            pull = entry.get("pullRequest") if isinstance(entry, dict) else None
            found.append(graphql.named_pull_of(pull, one) if pull is not None else ApiError(
                f"{one} does not exist: " + next(
                    (str(error.get("message", ""))[:200] for error in errors), "no answer")))
        return found

    def reread(self, repository: str, numbers: Sequence[int]) -> list[graphql.Reread | ApiError]:
        """Pull requests `numbers` of `repository` as the list gave them, read again (one
        query)."""
        owner, name = repository.split("/", 1)
        query, variables = graphql.reread_query(numbers)
        what = f"{len(numbers)} pull requests of {repository} again"
        data, errors = self.query(query, {"owner": owner, "name": name, **variables}, what)
        return [entry if isinstance(entry, ApiError) else graphql.Reread(
            *graphql.open_pull_of(entry, what, None)) for entry in graphql.aliased(
            data.get("repository"), "p", len(numbers), errors, what)]

    def stacks(self, repository: str) -> list[tuple[int, ...]] | None:
        """The repository's native stacks (public preview), each its pull request numbers
        bottom first; None where GitHub shows none (the preview is not enabled: 404)."""
        what = f"the stacks of {repository}"
        try:
            entries = self._pages(f"/repos/{repository}/stacks", what, STACK_PAGES)
        except ApiError as error:
            if error.status == 404:
                return None
            raise
        return [stack_of(entry, what) for entry in entries]

    def _pages(self, url: str, what: str, pages: int, parameters: dict[str, Any] | None = None,
               key: str | None = None, accept: str = JSON) -> list[object]:
        """The entries of a listing (the list an answer is, or its member `key`), page by page
        (100 each), up to `pages` pages: the last is a short one, or one whose Link header
        (GitHub's) names no next page."""
        found: list[object] = []
        for page in range(1, pages + 1):
            headers, raw = self._request("GET", url, what, {**(parameters or {}), "per_page": 100,
                                                            "page": page}, accept=accept)
            entries = object_of(raw, what).get(key) if key is not None else raw
            if not isinstance(entries, list):
                raise ApiError(f"the answer for {what} is not a JSON list")
            found += entries
            link = str(headers.get("link", ""))
            if len(entries) < 100 or (link and 'rel="next"' not in link):
                break
        return found

    def _request(self, verb: str, url: str, what: str, parameters: dict[str, Any] | None = None,
                 document: dict[str, Any] | None = None,
                 accept: str = JSON) -> tuple[dict[str, Any], object]:
        """One question through PyGithub's requester: its answer's headers and body (JSON
        decoded; the text itself for the `sha` and `raw` media types). Transient failures are
        asked again (the config's retry policy); a rate limit is waited out when it lifts
        within the request's deadline, else it ends the request at once; every other failure
        is an ApiError that quotes GitHub's message."""
        started = time.monotonic()
        ends = started + self.request_seconds
        if self.ends is not None:
            ends = min(ends, self.ends)
        writes = verb != "GET" and url != self.requester.graphql_url
        doing = "writing" if writes else "reading"
        attempt = 0
        while True:
            attempt += 1
            if writes:
                self._pace(ends, what)
            try:
                with _deadline(ends - time.monotonic()):
                    status, headers, text = self.requester.requestJson(
                        verb, url, parameters, {"Accept": accept}, document)
            except _Late:
                raise ApiUnreachable(
                    f"could not reach the GitHub API at {self.base_url} while {doing} {what}: "
                    f"no answer within {ends - started:.0f} s (the overall deadline of a "
                    f"request). Re-run the job, or check `GITHUB_API_URL` and the runner's "
                    f"network") from None
            except requests.exceptions.RequestException as error:
                failure: ApiError = ApiUnreachable(self._cause(error), None)
                wait: float | None = self.retry.wait(attempt)
            except (RuntimeError, ValueError) as error:  # PyGithub: a redirect elsewhere
                raise ApiError(f"the GitHub API at {self.base_url} gave an answer for {what} "
                               f"that is not what GitHub sends ({type(error).__name__}: "
                               f"{str(error)[:200]}); check `GITHUB_API_URL`") from None
            else:
                self.spent.requests += 1
                if writes:
                    self._last_write = time.monotonic()
                _check_size(headers, text, url)
                self._remember_budget(headers)
                body = _decoded(text, accept if status < 300 else JSON, what, self.base_url)
                failure_or_none = _failure(status, headers, body, what, self.base_url,
                                           self.retry.wait(attempt), doing)
                if failure_or_none is None:
                    return headers, body
                failure, wait = failure_or_none
            if isinstance(failure, RateLimited):
                # Waited out only when it lifts soon enough; asking on while limited is what
                # GitHub warns may ban an integration.
                assert wait is not None
                if (attempt >= self.retry.attempts or wait > self.max_rate_limit_wait
                        or time.monotonic() + wait > ends):
                    raise failure
            elif wait is None:
                raise failure
            elif attempt >= self.retry.attempts or time.monotonic() + wait > ends:
                raise ApiUnreachable(
                    f"could not reach the GitHub API at {self.base_url} while {doing} {what}: "
                    f"{failure}, {attempt} attempt(s) over {time.monotonic() - started:.0f} s. "
                    f"Re-run the job, or check `GITHUB_API_URL` and the runner's network",
                    failure.status) from None
            time.sleep(wait)

    def _pace(self, ends: float, what: str) -> None:
        """GitHub's guidance: at least a second between writes."""
        if self._last_write is None:
            return
        wait = self._last_write + WRITE_SPACING_SECONDS - time.monotonic()
        if wait > 0:
            if time.monotonic() + wait > ends:
                raise ApiUnreachable(f"no time is left for {what} within the deadline")
            time.sleep(wait)

    def _remember_budget(self, headers: dict[str, Any]) -> None:
        resource = str(headers.get("x-ratelimit-resource", ""))
        remaining, limit = (str(headers.get(name, "")) for name in (
            "x-ratelimit-remaining", "x-ratelimit-limit"))
        if resource.isidentifier() and remaining.isdigit() and limit.isdigit():
            self.spent.remaining = {**self.spent.budget(), resource: (int(remaining), int(limit))}

    def _cause(self, error: requests.exceptions.RequestException) -> str:
        text = str(error)
        if isinstance(error, requests.exceptions.Timeout) or "timed out" in text:
            return f"timed out after {self.timeout} s"
        reason = _innermost(error)
        return f"{type(reason).__name__}: {str(reason)[:MAX_CAUSE]}"


class _Late(BaseException):
    """The request's deadline passed while it was under way (a BaseException: nothing between
    the socket and `_request` may take it for a network error and retry)."""


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt what runs inside after `seconds` (SIGALRM): a server that sends a byte every
    few seconds never trips the per-read timeout, and must still not hold the job. Only the
    main thread receives signals; elsewhere the per-read timeout alone bounds a request. A
    timer already set (a test runner's) is restored with what is left of it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if seconds <= 0:
        raise _Late

    def expire(signum: int, frame: object) -> None:
        raise _Late

    previous = signal.signal(signal.SIGALRM, expire)
    earlier, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if earlier:
            signal.setitimer(signal.ITIMER_REAL,
                             max(earlier - (time.monotonic() - started), 0.001))


def _decoded(text: str, accept: str, what: str, base_url: str) -> object:
    """The answer's body: the text itself for the `sha` and `raw` media types (a success of
    theirs is not JSON), else JSON decoded, or it is not GitHub's."""
    if accept in (SHA, RAW):
        return text
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise ApiError(f"the GitHub API at {base_url} gave an answer for {what} that is not "
                       f"what GitHub sends (not JSON: {text[:80]!r}); check "
                       f"`GITHUB_API_URL`") from None


def _failure(status: int, headers: dict[str, Any], body: object, what: str, base_url: str,
             backoff: float, doing: str) -> tuple[ApiError, float | None] | None:
    """What an answer means when it is not a success: the error, and the wait before asking
    again (None: asking again would not help). None for a success. A GraphQL answer that
    says it was rate limited is a rate limit whatever its status (GitHub answers 200)."""
    limit = _rate_limit(status, headers, body)
    if limit is not None:
        kind, wait = limit
        until = datetime.now(timezone.utc) + timedelta(seconds=wait)
        said = (github_message(body) or f"HTTP {status}").rstrip(".")  # GitHub's ends in one
        return RateLimited(
            f"rate limited ({kind}) until {until:%H:%M} UTC while {doing} {what}: "
            f"{said}. Re-run after that, or pass a token "
            f"with a higher limit", status, kind=kind, until=until), wait
    if status < 300:
        return None
    message = github_message(body)
    quoted = f"HTTP {status}" + (f": {message}" if message else "")
    if status >= 500:
        return ApiUnreachable(f"server errors ({quoted}) on every attempt", status), backoff
    if status == 404:
        return ApiError(f"{what} does not exist ({quoted} from {base_url})", status,
                        message), None
    if status == 401:
        return ApiError(f"the GitHub token was rejected ({quoted}) while {doing} {what}; "
                        f"check the `github-token` input", status, message), None
    if status == 403:  # not a rate limit (above): the token may not do it
        return Refused(f"GitHub refused {what} ({quoted})", status, message), None
    if status in (301, 302, 307, 308):
        return ApiError(f"the GitHub API at {base_url} gave an answer for {what} that is not "
                        f"what GitHub sends (a redirect, {quoted}); check `GITHUB_API_URL`",
                        status, message), None
    return ApiError(f"GitHub refused {what} ({quoted})", status, message), None


def _rate_limit(status: int, headers: dict[str, Any],
                body: object) -> tuple[str, float] | None:
    """("primary" | "secondary", seconds to wait) when the answer says a rate limit was hit,
    as GitHub's docs tell it: 403 or 429 (or, from GraphQL, 200 with an error saying so);
    `x-ratelimit-remaining: 0` is the primary limit, reset at `x-ratelimit-reset`; otherwise
    a secondary limit, lifted after `retry-after` seconds, or at least a minute."""
    errors = body.get("errors") if isinstance(body, dict) else None
    graphql_limited = status == 200 and isinstance(errors, list) and any(
        isinstance(error, dict) and (error.get("type") == "RATE_LIMITED"
                                     or "rate limit" in str(error.get("message", "")).lower())
        for error in errors)
    message = github_message(body).lower()
    if not (graphql_limited or status == 429 or (status == 403 and (
            "rate limit" in message or "retry-after" in headers
            or headers.get("x-ratelimit-remaining") == "0"))):
        return None
    retry_after = str(headers.get("retry-after", ""))
    reset = str(headers.get("x-ratelimit-reset", ""))
    primary = headers.get("x-ratelimit-remaining") == "0" and "secondary" not in message
    if retry_after.isdigit():
        wait = float(retry_after)
    elif headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        wait = max(0.0, int(reset) - time.time())
    else:
        wait = SECONDARY_WAIT_SECONDS
    return ("primary" if primary else "secondary"), wait


def _check_size(headers: dict[str, Any], text: str, url: str) -> None:
    """An answer over MAX_ANSWER_BYTES as it came in is refused (PyGithub has read it by then:
    the bound keeps what the tool goes on to use, not what the client read)."""
    declared = str(headers.get("content-length", ""))
    size = int(declared) if declared.isdigit() else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_ANSWER_BYTES:
        raise ResponseTooLarge(f"the GitHub API answered {url} with {size} bytes, over the "
                               f"{MAX_ANSWER_BYTES}-byte limit; check `GITHUB_API_URL`")


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


