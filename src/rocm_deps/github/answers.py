"""What GitHub's REST answers hold, as the tool uses them: the types, and the checks that
turn an answer (hostile input: bounded, validated field by field) into them, with the
errors every API call may raise. No PyGithub here: the commands import these at start-up
and `github/api.py` alone talks to the API.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rocm_deps.config import REPOSITORY
from rocm_deps.grammar.refs import FULL_SHA_ANY_CASE

MAX_LABEL = 200
ASSOCIATION = re.compile(r"[A-Z_]{1,32}")
STATUS_STATES = ("error", "failure", "pending", "success")
HTML_URL = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~%/#-]*)?")
MAX_COMMENT_ID = 2**63 - 1
# GitHub caps a description at 65,536 characters; an answer with a longer one is not GitHub's.
MAX_DESCRIPTION = 65_536
# GitHub's rendering of a description at that cap: every `#N` of it a link of a few hundred
# characters, still well under this.
MAX_DESCRIPTION_HTML = 64 * MAX_DESCRIPTION
MAX_MESSAGE = 300  # GitHub's own words quoted in an error
HISTORY_PAGES = 5  # a merge group's commits are read 100 a page, newest first, this many pages


class ApiError(Exception):
    """A failed API call, with a message for the PR author (what, where, the fix); `status` is
    the HTTP status GitHub answered (None when there was no answer), `detail` GitHub's own
    words about it."""

    def __init__(self, message: str, status: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.detail = detail


class Refused(ApiError):
    """HTTP 403 that is not a rate limit: the token lacks the permission (a job's
    GITHUB_TOKEN without `statuses: write`, say)."""


class ResponseTooLarge(ApiError):
    pass


class RateLimited(ApiError):
    """A rate limit GitHub will not lift within the deadline: `kind` primary or secondary, lifted
    at `until` (UTC)."""

    def __init__(self, message: str, status: int | None = None, *, kind: str = "secondary",
                 until: datetime | None = None) -> None:
        super().__init__(message, status)
        self.kind = kind
        self.until = until


class ApiUnreachable(ApiError):
    """The API did not answer (no connection, timeouts, server errors on every attempt):
    nothing was learnt about what was asked, which is not the asker's mistake."""



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
    head_repository: str | None = None  # owner/repo the head branch lives in (a fork's)
    head_ref: str = ""  # the head branch's name
    base_sha: str | None = None  # the base branch's commit the pull request is against now
    # GitHub's test merge onto the base: None while GitHub computes it (or never, for a list)
    mergeable: bool | None = None
    merge_commit_sha: str | None = None
    # The base repository's default branch: a pull request based on another branch may be
    # stacked on the pull request whose head that branch is.
    default_branch: str | None = None
    # GitHub's rendering of `body` (media type full+json); None when the answer has none.
    body_html: str | None = None


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    parents: tuple[str, ...]
    message: str


@dataclass(frozen=True)
class IssueComment:
    id: int
    author: str  # the login, "" when the answer has none
    body: str
    url: str = ""  # its html_url ("" when the answer has none that is a plain URL)


@dataclass(frozen=True)
class OpenPull:
    """A pull request as the list of open ones gives it."""

    pull: PullInfo
    updated_at: datetime | None  # None: the answer gave no valid time


@dataclass(frozen=True)
class CommitStatus:
    """The latest status of one context on a commit."""

    context: str
    state: str  # error, failure, pending, success
    description: str
    target_url: str


def pull_info(value: object, what: str, number: int | None = None) -> PullInfo:
    """One pull request of an answer (pull request `number`'s, or an entry of a list, which
    gives its number, and `merged_at` instead of `merged`), validated."""
    raw = object_of(value, what)
    head, base = object_of(raw.get("head"), what), object_of(raw.get("base"), what)
    state = raw.get("state")
    merged = raw.get("merged", raw.get("merged_at") is not None)
    if state not in ("open", "closed") or not isinstance(merged, bool):
        raise ApiError(f"the answer for {what} has no valid `state`/`merged`")
    if number is None:
        number = raw.get("number")
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise ApiError(f"the answer for {what} has a pull request without a `number`")
    body = raw.get("body")
    body_html = raw.get("body_html")
    if (isinstance(body, str) and len(body) > MAX_DESCRIPTION) or (isinstance(
            body_html, str) and len(body_html) > MAX_DESCRIPTION_HTML):
        raise ApiError(f"the answer for {what} has a description over GitHub's "
                       f"{MAX_DESCRIPTION}-character limit: it is not GitHub's")
    association = raw.get("author_association")
    head_repo = head.get("repo")
    full_name = head_repo.get("full_name") if isinstance(head_repo, dict) else None
    mergeable = raw.get("mergeable")
    merge_commit = raw.get("merge_commit_sha")
    base_sha = base.get("sha")
    base_repo = base.get("repo")
    default = base_repo.get("default_branch") if isinstance(base_repo, dict) else None
    return PullInfo(number, sha_of(head.get("sha"), what), state, merged,
                    label_of(base.get("ref")), label_of(head.get("label")),
                    body if isinstance(body, str) else None,
                    association if isinstance(association, str)
                    and ASSOCIATION.fullmatch(association) else None,
                    full_name if isinstance(full_name, str)
                    and REPOSITORY.fullmatch(full_name) else None,
                    label_of(head.get("ref")),
                    sha_of(base_sha, what) if base_sha is not None else None,
                    mergeable if isinstance(mergeable, bool) else None,
                    sha_of(merge_commit, what) if merge_commit is not None else None,
                    label_of(default) if isinstance(default, str) else None,
                    body_html if isinstance(body_html, str) and isinstance(body, str) else None)


def commit_info(value: object, what: str) -> CommitInfo:
    """A commit of an answer: a list entry or a git database commit (whose `message` is its
    own; a list entry's is under `commit`)."""
    raw = object_of(value, what)
    parents = raw.get("parents")
    if not isinstance(parents, list):
        raise ApiError(f"the answer for {what} has a commit without `parents`")
    inner = raw.get("commit")
    message = (inner if isinstance(inner, dict) else raw).get("message")
    return CommitInfo(sha_of(raw.get("sha"), what),
                      tuple(sha_of(object_of(parent, what).get("sha"), what)
                            for parent in parents),
                      message[:1000] if isinstance(message, str) else "")


def github_message(body: object) -> str:
    """GitHub's own words in an error answer: its `message`, with each validation error's
    (422: `errors`), bounded and printable; "" when it gave none."""
    if not isinstance(body, dict):
        return ""
    parts = [body.get("message")]
    for error in body.get("errors", [])[:5] if isinstance(body.get("errors"), list) else []:
        if isinstance(error, dict):
            parts.append(error.get("message") or " ".join(
                str(error[key]) for key in ("resource", "field", "code")
                if isinstance(error.get(key), str)))
        elif isinstance(error, str):
            parts.append(error)
    text = ": ".join(part for part in parts if isinstance(part, str) and part)
    return label_of(text)[:MAX_MESSAGE]


def stack_of(value: object, what: str) -> tuple[int, ...]:
    """A native stack: its pull requests' numbers, bottom first (`position` 1 is the bottom:
    GitHub lists them so)."""
    members = object_of(value, what).get("pull_requests")
    if not isinstance(members, list):
        raise ApiError(f"the answer for {what} has a stack without `pull_requests`")
    numbers = tuple(object_of(member, what).get("number") for member in members)
    if not all(isinstance(number, int) and not isinstance(number, bool) and number > 0
               for number in numbers):
        raise ApiError(f"the answer for {what} has a stack member without a `number`")
    return numbers  # type: ignore[return-value]


def object_of(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(f"the answer for {what} is not a JSON object")
    return value


def comment_of(value: object, what: str) -> IssueComment:
    raw = object_of(value, what)
    identifier, body, user = raw.get("id"), raw.get("body"), raw.get("user")
    if isinstance(identifier, bool) or not isinstance(identifier, int) or not (
            0 < identifier <= MAX_COMMENT_ID):
        raise ApiError(f"the answer for {what} has a comment without a valid `id`")
    login = user.get("login") if isinstance(user, dict) else None
    url = raw.get("html_url")
    return IssueComment(identifier, login if isinstance(login, str) else "",
                        body if isinstance(body, str) else "",
                        url if isinstance(url, str) and len(url) <= MAX_LABEL
                        and HTML_URL.fullmatch(url) else "")


def status_of(value: object, what: str) -> CommitStatus:
    raw = object_of(value, what)
    context, state = raw.get("context"), raw.get("state")
    if not isinstance(context, str) or state not in STATUS_STATES:
        raise ApiError(f"the answer for {what} has a status without a `context` and `state`")
    description, url = raw.get("description"), raw.get("target_url")
    return CommitStatus(label_of(context), state, label_of(description),
                        url if isinstance(url, str) and len(url) <= MAX_LABEL
                        and HTML_URL.fullmatch(url) else "")


def time_of(value: object) -> datetime | None:
    """An ISO 8601 time of an answer (`2026-12-01T10:00:00Z`), None when it is not one."""
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def sha_of(value: object, what: str) -> str:
    """A commit SHA from an answer: 40 or 64 hex digits, or the answer is refused (it is
    written to outputs and reaches git's argv)."""
    if not isinstance(value, str) or len(value) > 64 or not FULL_SHA_ANY_CASE.fullmatch(value):
        raise ApiError(f"the answer for {what} carries no valid commit SHA")
    return value.lower()


def label_of(value: object) -> str:
    """A branch or label from an answer, for messages only: bounded, printable."""
    text = value if isinstance(value, str) else ""
    return "".join(c if c.isprintable() else "?" for c in text[:MAX_LABEL])

