"""What the sweep asks GitHub's GraphQL API, and what its answers hold (docs/architecture.md,
*Living results*): the queries, and the checks that turn their `data` into the same types the
REST answers give (`github/answers.py`). No PyGithub here; `github/api.py` sends them.

Four queries, each asking only for the fields the sweep reads:
- `OPEN_PULLS`: 100 open pull requests a query, oldest first, with their descriptions as
  written and as GitHub shows them, their refs, and their head commit's status contexts;
- `comments_query`: the comments of many pull requests in one query (an alias each);
- `pulls_query`: many pull requests of any repositories in one query (dependencies,
  prerequisites);
- `reread_query`: many pull requests' head, update time and statuses again, just before a
  `success` is written over them.
Every value a query names comes in as a variable: numbers and repository names never become
query text. Each asks for `rateLimit { cost }`: the points it spent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rocm_deps.config import REPOSITORY
from rocm_deps.github.answers import (
    ASSOCIATION,
    HTML_URL,
    MAX_COMMENT_ID,
    MAX_DESCRIPTION,
    MAX_DESCRIPTION_HTML,
    MAX_LABEL,
    ApiError,
    CommitStatus,
    IssueComment,
    OpenPull,
    PullInfo,
    label_of,
    sha_of,
    status_of,
    time_of,
)

PAGE = 100  # pull requests a page, comments a page: GitHub's largest `first`
BATCH = 100  # pull requests asked in one aliased query
RATE = "rateLimit { cost remaining limit resetAt }"
STATUSES = ("commits(last: 1) { nodes { commit { oid status { contexts { "
            "context state description targetUrl } } } } }")
# A pull request as the sweep judges it (its own repository's: the list, the re-read).
OPEN_PULL_FIELDS = (
    "number state merged updatedAt authorAssociation body bodyHTML baseRefName baseRefOid "
    "headRefName headRefOid headRepository { nameWithOwner } " + STATUSES)
# A pull request named by another (a dependency, a prerequisite): where its head is and
# whether it merged into its repository's default branch.
NAMED_PULL_FIELDS = ("number state merged headRefName headRefOid baseRefName baseRefOid "
                     "headRepository { nameWithOwner } baseRepository { nameWithOwner "
                     "defaultBranchRef { name } }")
# Who wrote each comment (a manifest is trusted only from the bot); the bodies of the bot's
# comments alone are read next (`bodies_query`): what a query holds stays small. GraphQL names
# a GitHub App's bot `github-actions` where REST says `github-actions[bot]`: `__typename` tells.
COMMENT_AUTHORS = ("totalCount pageInfo { hasNextPage endCursor } nodes { id databaseId "
                   "author { __typename login } }")

OPEN_PULLS = (
    "query OpenPulls($owner: String!, $name: String!, $after: String) { " + RATE + " "
    "repository(owner: $owner, name: $name) { defaultBranchRef { name } "
    "pullRequests(states: [OPEN], first: 100, after: $after, "
    "orderBy: {field: CREATED_AT, direction: ASC}) { totalCount "
    "pageInfo { hasNextPage endCursor } nodes { " + OPEN_PULL_FIELDS + " } } } }")


def comments_query(numbers: Sequence[int], after: dict[int, str] | None = None
                   ) -> tuple[str, dict[str, Any]]:
    """Who wrote the comments of pull requests `numbers` of one repository, a page each
    (after the cursor `after` gives, where it gives one)."""
    after = after or {}
    variables: dict[str, Any] = {}
    parts, declared = [], []
    for index, number in enumerate(numbers):
        variables[f"n{index}"] = number
        declared.append(f", $n{index}: Int!")
        cursor = ""
        if number in after:
            variables[f"c{index}"] = after[number]
            declared.append(f", $c{index}: String")
            cursor = f", after: $c{index}"
        parts.append(f"p{index}: pullRequest(number: $n{index}) {{ number "
                     f"comments(first: {PAGE}{cursor}) {{ {COMMENT_AUTHORS} }} }}")
    return (f"query Comments($owner: String!, $name: String!{''.join(declared)}) {{ {RATE} "
            f"repository(owner: $owner, name: $name) {{ {' '.join(parts)} }} }}", variables)


def bodies_query(ids: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The comments `ids` (GraphQL node IDs), each with its body."""
    variables = {f"i{index}": identifier for index, identifier in enumerate(ids)}
    declared = ", ".join(f"$i{index}: ID!" for index in range(len(ids)))
    parts = " ".join(f"c{index}: node(id: $i{index}) {{ ... on IssueComment {{ databaseId "
                     f"author {{ __typename login }} body url }} }}" for index in range(len(ids)))
    return f"query Bodies({declared}) {{ {RATE} {parts} }}", variables


def pulls_query(keys: Sequence[tuple[str, int]]) -> tuple[str, dict[str, Any]]:
    """Pull requests `keys` ((owner/repo, number), any repositories) in one query."""
    variables: dict[str, Any] = {}
    parts, declared = [], []
    for index, (repository, number) in enumerate(keys):
        owner, name = repository.split("/", 1)
        variables.update({f"o{index}": owner, f"r{index}": name, f"n{index}": number})
        declared.append(f"$o{index}: String!, $r{index}: String!, $n{index}: Int!")
        parts.append(f"q{index}: repository(owner: $o{index}, name: $r{index}) {{ "
                     f"pullRequest(number: $n{index}) {{ {NAMED_PULL_FIELDS} }} }}")
    return (f"query Pulls({', '.join(declared)}) {{ {RATE} {' '.join(parts)} }}", variables)


def reread_query(numbers: Sequence[int]) -> tuple[str, dict[str, Any]]:
    """Pull requests `numbers` of one repository as the list gives them, read again."""
    variables = {f"n{index}": number for index, number in enumerate(numbers)}
    declared = "".join(f", $n{index}: Int!" for index in range(len(numbers)))
    parts = " ".join(f"p{index}: pullRequest(number: $n{index}) {{ {OPEN_PULL_FIELDS} }}"
                     for index in range(len(numbers)))
    return (f"query Reread($owner: String!, $name: String!{declared}) {{ {RATE} "
            f"repository(owner: $owner, name: $name) {{ {parts} }} }}", variables)


def contract_queries() -> list[tuple[str, dict[str, Any]]]:
    """One of each query the sweep sends, for the tests that hold them to GitHub's schema
    (every alias and variable form: with and without a cursor)."""
    repository = {"owner": "o", "name": "r"}
    comments, comment_variables = comments_query([1, 2], {2: "Y3Vyc29y"})
    reread, reread_variables = reread_query([1, 2])
    return [(OPEN_PULLS, {**repository, "after": None}),
            (comments, {**repository, **comment_variables}),
            bodies_query(["IC_1", "IC_2"]),
            pulls_query([("o/r", 1), ("p/q", 2)]),
            (reread, {**repository, **reread_variables})]


@dataclass(frozen=True)
class Page:
    """One page of open pull requests."""

    pulls: tuple[OpenPull, ...]
    statuses: dict[int, dict[str, CommitStatus] | None]  # number -> its head's (None: unknown)
    total: int  # open pull requests in all, as GitHub counts them now
    after: str | None  # the cursor of the next page, None after the last


@dataclass(frozen=True)
class Reread:
    """A pull request read again: as the list gave it, its update time and its head's
    statuses (None: not said for that head)."""

    pull: PullInfo
    updated_at: datetime | None
    statuses: dict[str, CommitStatus] | None


@dataclass(frozen=True)
class Authors:
    """A page of a pull request's comments: who wrote each (node ID -> login, REST's form)."""

    authors: tuple[tuple[str, str], ...]
    after: str | None  # the cursor of the next page of them, None after the last


def page_of(data: dict[str, Any], what: str) -> Page:
    repository = _object(data.get("repository"), what, "repository")
    default = _object(repository.get("defaultBranchRef") or {}, what, "defaultBranchRef")
    default_branch = label_of(default.get("name")) if isinstance(default.get("name"),
                                                                 str) else None
    connection = _object(repository.get("pullRequests"), what, "pullRequests")
    nodes = connection.get("nodes")
    if not isinstance(nodes, list):
        raise ApiError(f"the answer for {what} has no list of pull requests")
    pulls, statuses = [], {}
    for node in nodes:
        pull, updated, found = open_pull_of(node, what, default_branch)
        pulls.append(OpenPull(pull, updated))
        statuses[pull.number] = found
    total = connection.get("totalCount")
    if not isinstance(total, int) or isinstance(total, bool) or total < 0:
        raise ApiError(f"the answer for {what} has no `totalCount`")
    info = _object(connection.get("pageInfo"), what, "pageInfo")
    cursor = info.get("endCursor")
    after = cursor if info.get("hasNextPage") is True and isinstance(cursor, str) and (
        0 < len(cursor) <= MAX_LABEL) else None
    if info.get("hasNextPage") is True and after is None:
        raise ApiError(f"the answer for {what} has a next page without a cursor")
    return Page(tuple(pulls), statuses, total, after)


def open_pull_of(node: object, what: str, default_branch: str | None
                 ) -> tuple[PullInfo, datetime | None, dict[str, CommitStatus] | None]:
    """A pull request of the list or the re-read: as REST gives it, its update time, and its
    head commit's statuses (None when the answer does not say them for that head)."""
    raw = _object(node, what, "a pull request")
    number = raw.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise ApiError(f"the answer for {what} has a pull request without a `number`")
    what = f"{what}: #{number}"
    body, body_html = raw.get("body"), raw.get("bodyHTML")
    if (isinstance(body, str) and len(body) > MAX_DESCRIPTION) or (
            isinstance(body_html, str) and len(body_html) > MAX_DESCRIPTION_HTML):
        raise ApiError(f"the answer for {what} has a description over GitHub's "
                       f"{MAX_DESCRIPTION}-character limit: it is not GitHub's")
    state, merged = raw.get("state"), raw.get("merged")
    if state not in ("OPEN", "CLOSED", "MERGED") or not isinstance(merged, bool):
        raise ApiError(f"the answer for {what} has no valid `state`/`merged`")
    head = sha_of(raw.get("headRefOid"), what)
    head_repository = _repository(raw.get("headRepository"))
    head_ref = label_of(raw.get("headRefName"))
    association = raw.get("authorAssociation")
    pull = PullInfo(
        number, head, "open" if state == "OPEN" else "closed", merged,
        label_of(raw.get("baseRefName")),
        f"{(head_repository or 'unknown/').split('/')[0]}:{head_ref}",
        body if isinstance(body, str) else None,
        association if isinstance(association, str) and ASSOCIATION.fullmatch(association)
        else None, head_repository, head_ref,
        sha_of(raw.get("baseRefOid"), what) if raw.get("baseRefOid") is not None else None,
        default_branch=default_branch,
        body_html=body_html if isinstance(body_html, str) and isinstance(body, str) else None)
    return pull, time_of(raw.get("updatedAt")), _head_statuses(raw, head, what)


def named_pull_of(node: object, what: str) -> PullInfo:
    """A dependency pull request or a prerequisite."""
    raw = _object(node, what, "a pull request")
    number = raw.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise ApiError(f"the answer for {what} has a pull request without a `number`")
    state, merged = raw.get("state"), raw.get("merged")
    if state not in ("OPEN", "CLOSED", "MERGED") or not isinstance(merged, bool):
        raise ApiError(f"the answer for {what} has no valid `state`/`merged`")
    base = raw.get("baseRepository")
    default = (base.get("defaultBranchRef") if isinstance(base, dict) else None) or {}
    head_repository = _repository(raw.get("headRepository"))
    head_ref = label_of(raw.get("headRefName"))
    return PullInfo(
        number, sha_of(raw.get("headRefOid"), what), "open" if state == "OPEN" else "closed",
        merged, label_of(raw.get("baseRefName")),
        f"{(head_repository or 'unknown/').split('/')[0]}:{head_ref}", None, None,
        head_repository, head_ref,
        sha_of(raw.get("baseRefOid"), what) if raw.get("baseRefOid") is not None else None,
        default_branch=label_of(default.get("name")) if isinstance(default, dict)
        and isinstance(default.get("name"), str) else None)


def authors_of(node: object, what: str) -> Authors:
    raw = _object(node, what, "a pull request")
    connection = _object(raw.get("comments"), what, "comments")
    nodes = connection.get("nodes")
    if not isinstance(nodes, list):
        raise ApiError(f"the answer for {what} has no list of comments")
    found = []
    for entry in nodes:
        comment = _object(entry, what, "a comment")
        identifier = comment.get("id")
        if not isinstance(identifier, str) or not 0 < len(identifier) <= MAX_LABEL:
            raise ApiError(f"the answer for {what} has a comment without a valid `id`")
        found.append((identifier, login_of(comment.get("author"))))
    info = _object(connection.get("pageInfo"), what, "pageInfo")
    cursor = info.get("endCursor")
    after = cursor if info.get("hasNextPage") is True and isinstance(cursor, str) and (
        0 < len(cursor) <= MAX_LABEL) else None
    if info.get("hasNextPage") is True and after is None:
        raise ApiError(f"the answer for {what} has a next page without a cursor")
    return Authors(tuple(found), after)


def comment_of(node: object, what: str) -> IssueComment:
    """A comment read by its node ID, with its body."""
    comment = _object(node, what, "a comment")
    identifier = comment.get("databaseId")
    if isinstance(identifier, bool) or not isinstance(identifier, int) or not (
            0 < identifier <= MAX_COMMENT_ID):
        raise ApiError(f"the answer for {what} has a comment without a valid `databaseId`")
    body, url = comment.get("body"), comment.get("url")
    return IssueComment(identifier, login_of(comment.get("author")),
                        body if isinstance(body, str) else "",
                        url if isinstance(url, str) and len(url) <= MAX_LABEL
                        and HTML_URL.fullmatch(url) else "")


def login_of(author: object) -> str:
    """An author's login as REST gives it: a GitHub App's bot `<app>[bot]` (GraphQL says
    `<app>` and `__typename: Bot`); "" for a deleted user (null)."""
    if not isinstance(author, dict) or not isinstance(author.get("login"), str):
        return ""
    login = label_of(author["login"])
    return f"{login}[bot]" if author.get("__typename") == "Bot" else login


def _head_statuses(raw: dict[str, Any], head: str,
                   what: str) -> dict[str, CommitStatus] | None:
    """The latest status of each context on the pull request's head commit (its last commit,
    when that is the head the answer names; None otherwise: a push between the two)."""
    commits = raw.get("commits")
    nodes = commits.get("nodes") if isinstance(commits, dict) else None
    if not isinstance(nodes, list) or len(nodes) != 1:
        return None
    commit = _object(_object(nodes[0], what, "a commit").get("commit"), what, "a commit")
    if commit.get("oid") != head:
        return None
    status = commit.get("status")
    if status is None:
        return {}  # no status on the commit at all
    contexts = _object(status, what, "status").get("contexts")
    if not isinstance(contexts, list):
        raise ApiError(f"the answer for {what} has a status without `contexts`")
    found: dict[str, CommitStatus] = {}
    for context in contexts:
        entry = dict(_object(context, what, "a status context"))
        state = entry.get("state")
        # GraphQL's StatusState names REST's states in capitals; EXPECTED (a required
        # context nothing has reported yet) is pending.
        entry["state"] = "pending" if state == "EXPECTED" else (
            state.lower() if isinstance(state, str) else state)
        entry["target_url"] = entry.pop("targetUrl", None)
        status_entry = status_of(entry, what)
        found.setdefault(status_entry.context, status_entry)
    return found


def _repository(value: object) -> str | None:
    """owner/name of a repository object; None for a deleted one (GitHub answers null)."""
    name = value.get("nameWithOwner") if isinstance(value, dict) else None
    return name if isinstance(name, str) and REPOSITORY.fullmatch(name) else None


def _object(value: object, what: str, member: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ApiError(f"the answer for {what} has no `{member}` object")
    return value


def aliased(container: object, prefix: str, count: int, errors: list[dict[str, Any]],
            what: str) -> list[object | ApiError]:
    """The answers of aliases `<prefix>0` … under `container`, each the alias's value or the
    ApiError that says why GitHub gave none (its NOT_FOUND: it does not exist)."""
    said: dict[str, str] = {}
    for error in errors:
        path = error.get("path")
        alias = next((part for part in path if isinstance(part, str) and part.startswith(
            prefix) and part[len(prefix):].isdigit()), None) if isinstance(path, list) else None
        if alias is not None:
            said.setdefault(alias, ("does not exist: " if error.get("type") == "NOT_FOUND"
                                    else "could not be read: ")
                            + label_of(str(error.get("message", "")))[:200])
    found: list[object | ApiError] = []
    members = container if isinstance(container, dict) else {}
    for index in range(count):
        value = members.get(f"{prefix}{index}")
        if value is None:
            found.append(ApiError(f"{what}: {said.get(f'{prefix}{index}', 'no answer')}"))
        else:
            found.append(value)
    return found


def errors_text(errors: list[dict[str, Any]]) -> str:
    """GitHub's own words for a query's errors, the first few, bounded."""
    return "; ".join(label_of(str(error.get("message", "")))[:200]
                     for error in errors[:3]) or "no message"
