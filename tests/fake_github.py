"""A real HTTP server on 127.0.0.1 that answers as GitHub documents it: the REST operations of
GitHub's published description (tests/github/description/rest.json) and GitHub's GraphQL API
(its schema, graphql.json). It routes by the description and refuses what GitHub refuses (an
undocumented route or verb is 404 Not Found), builds every answer from the description's own
examples (a pull request of a list is ~22 KB: its head and base repositories are whole), and
holds every request and every answer to the description. What does not hold is recorded in
`violations`, and leaving the `with` block fails the test.

Faults as GitHub gives them: server errors, a hang, an answer that drips in, the primary rate
limit, a secondary rate limit (403 or 429, with or without `retry-after`), the recorded shape
of 422 "Validation Failed". Every request is counted.
"""

from __future__ import annotations

import copy
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests import github_graphql, github_rest
from tests.github_html import body_html

PREFIX = "/api/v3"
GRAPHQL = "/api/graphql"
PRIMARY_MESSAGE = ("API rate limit exceeded for installation ID 1. If you reach out to GitHub "
                   "Support for help, please include the request ID 1234:5678.")
SECONDARY_MESSAGE = ("You have exceeded a secondary rate limit. Please wait a few minutes before "
                     "you try again. If you reach out to GitHub Support for help, please include "
                     "the request ID 1234:5678.")
RATE_LIMIT_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
NOT_FOUND = {"message": "Not Found", "documentation_url": "https://docs.github.com/rest",
             "status": "404"}


@dataclass
class Limit:
    """A rate limit the fake answers with, for `count` requests from request `first` on."""

    kind: str = "secondary"  # or "primary"
    status: int = 403  # GitHub's docs: 403 or 429 for either
    retry_after: int | None = None  # seconds, or no header
    first: int = 1
    count: int = 10**9


@dataclass
class Repository:
    full_name: str
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    commits: list[str] = field(default_factory=list)
    # "base...head" -> the commits between them, oldest first, as the queue branch's first
    # parents: a message, or (message, [messages of the merged branch's own commits]) for a
    # merge commit whose second parent is that branch.
    comparisons: dict[str, list[str | tuple[str, list[str]]]] = field(default_factory=dict)
    # "base...head" -> how many commits the history shows between the group's and its base (a
    # long group: the base lies past what a client reads)
    totals: dict[str, int] = field(default_factory=dict)
    # pull request number -> its comments, oldest first ({"id", "user": {"login"}, "body"})
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    # pull request number -> its commits' SHAs, oldest first (the head last)
    pull_commits: dict[int, list[str]] = field(default_factory=dict)
    # commit SHA -> its statuses, newest first ({"context", "state", "description", ...})
    statuses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    reruns: list[int] = field(default_factory=list)  # workflow runs re-run, in order
    # commit SHA -> its parents, for the commits that have some here (test merges)
    parents: dict[str, list[str]] = field(default_factory=dict)
    refused_reruns: set[int] = field(default_factory=set)  # runs GitHub will not re-run
    # path -> text, the files of the default branch and of every commit asked for (the
    # contents API), unless `files_at` holds that ref's own
    files: dict[str, str] = field(default_factory=dict)
    files_at: dict[str, dict[str, str]] = field(default_factory=dict)
    # native stacks (public preview): each the pull request numbers, bottom first; None: the
    # preview is not enabled, the stacks endpoint answers 404
    stacks: list[list[int]] | None = None
    # commit SHA -> the bytes of its diff's patches, which GitHub's commit answer carries (up
    # to 300 files): a test merge holds its pull request's whole diff
    diffs: dict[str, int] = field(default_factory=dict)
    default_branch: str = "main"

    def move(self, number: int, head_sha: str) -> None:
        """Pull request `number` gets a new head commit (a push, a force-push)."""
        self.pulls[number]["head"]["sha"] = head_sha
        self.commits.append(head_sha)
        self.pull_commits[number].append(head_sha)

    def add_comment(self, number: int, login: str, body: str) -> int:
        thread = self.comments.setdefault(number, [])
        identifier = 1000 + sum(len(entries) for entries in self.comments.values())
        thread.append({"id": identifier, "user": {"login": login, "type": "User"},
                       "body": body, "created_at": "2026-12-01T10:00:00Z",
                       "html_url": f"https://github.com/{self.full_name}/pull/{number}"
                                   f"#issuecomment-{identifier}"})
        return identifier

    def find_comment(self, identifier: int) -> dict[str, Any] | None:
        return next((comment for thread in self.comments.values() for comment in thread
                     if comment["id"] == identifier), None)

    def add_pull(self, number: int, head_sha: str, *, state: str = "open", merged: bool = False,
                 body: str | None = None, base: str = "main", author: str = "MEMBER",
                 earlier: tuple[str, ...] = (), head_repository: str | None = None,
                 head_branch: str | None = None, base_sha: str = "0" * 40,
                 mergeable: bool | None = True, merge_commit_sha: str | None = None,
                 updated_at: str = "2026-11-01T10:00:00Z") -> None:
        """A pull request whose commits are `earlier`, then its head (on `head_branch` of
        `head_repository`: a fork's, or by default this repository's `feature-N`)."""
        head_repository = head_repository or self.full_name
        head_branch = head_branch or f"feature-{number}"
        owner, base_owner = head_repository.split("/")[0], self.full_name.split("/")[0]
        self.pulls[number] = {
            "number": number, "state": state, "merged": merged,
            "merged_at": "2026-11-01T10:00:00Z" if merged else None,
            "title": f"Change {number}", "body": body, "author_association": author,
            "head": {"label": f"{owner}:{head_branch}", "ref": head_branch,
                     "sha": head_sha, "repo": {"full_name": head_repository}},
            "base": {"label": f"{base_owner}:{base}", "ref": base, "sha": base_sha,
                     "repo": {"full_name": self.full_name,
                              "default_branch": self.default_branch}},
            "mergeable": mergeable, "merge_commit_sha": merge_commit_sha,
            "created_at": "2026-11-01T10:00:00Z", "updated_at": updated_at,
        }
        self.commits += [*earlier, head_sha]
        self.pull_commits[number] = [*earlier, head_sha]
        if merge_commit_sha is not None:  # GitHub's test merge: the base, then the head
            self.commits.append(merge_commit_sha)
            self.parents[merge_commit_sha] = [base_sha, head_sha]

    def resolve(self, ref: str) -> str | None:
        """The commit a ref names (a branch, `heads/…`, `tags/…`, a SHA or an unambiguous
        abbreviation of 4 digits or more); None when none does."""
        name = ref.removeprefix("heads/")
        if name in self.branches:
            return self.branches[name]
        if ref.startswith("tags/") and ref[5:] in self.tags:
            return self.tags[ref[5:]]
        matches = sorted({sha for sha in self.commits if sha.startswith(ref.lower())})
        return matches[0] if len(ref) >= 4 and len(matches) == 1 else None

    def history(self, head: str) -> list[tuple[str, list[str], str]] | None:
        """The commits reachable from `head`, newest first, as (sha, parents, message): a
        merge group's (`comparisons`), down to its base and the base's own ancestors."""
        for key, entries in self.comparisons.items():
            base, tip = key.split("...")
            if tip != head:
                continue
            commits = _compare(base, head, entries)
            older = [(f"{index:039x}f", [f"{index + 1:039x}f"], "older")
                     for index in range(self.totals.get(key, 0))]
            if older:  # the long line of commits the base lies beyond
                commits = [(sha, parents if sha != commits[0][0] else [older[0][0]], message)
                           for sha, parents, message in commits]
            return [*reversed(commits), *older, (base, ["e" * 40], "the base")]
        return None


def _compare(base: str, head: str,
             entries: list[str | tuple[str, list[str]]]) -> list[tuple[str, list[str], str]]:
    """The commits of base..head, oldest first (branch commits before the merge that brings
    them), each with its parents; the last is `head`."""
    commits: list[tuple[str, list[str], str]] = []
    first_parent, serial = base, 0

    def add(message: str, parents: list[str], sha: str | None = None) -> str:
        nonlocal serial
        serial += 1
        sha = sha or f"{serial:040x}"
        commits.append((sha, parents, message))
        return sha

    for index, entry in enumerate(entries):
        message, branch = (entry, []) if isinstance(entry, str) else entry
        parents = [first_parent]
        if branch:
            tip = first_parent
            for branch_message in branch:
                tip = add(branch_message, [tip])
            parents.append(tip)
        first_parent = add(message, parents, head if index == len(entries) - 1 else None)
    return commits


class FakeGitHub:
    def __init__(self) -> None:
        self.repositories: dict[str, Repository] = {}
        self.requests: list[str] = []
        self.log: list[str] = []  # every request: "METHOD /path?query" (the prefix left out)
        self.login = "github-actions[bot]"  # whom the token belongs to: the comments' author
        self.fail_headers: dict[str, str] = {}  # sent with the `fail_first` answers
        self.authorizations: list[str] = []
        self.fail_first = 0
        self.fail_status = 502
        self.hang_seconds = 0.0
        self.rate_limited = False  # the primary rate limit, spent until an hour from now
        self.rate_limited_from = 0  # from this request on (counted from 1), rate limited
        self.limits: list[Limit] = []  # rate limits, as GitHub gives them
        self.echo_authorization = False  # an error body that quotes the request's token
        self.drip_seconds = 0.0  # send the answer one byte at a time, this far apart
        self.dripped: list[tuple[int, int]] = []  # per dripped answer: (bytes sent, its size)
        self.answer_override: tuple[int, bytes, dict[str, str]] | None = None  # raw answer
        self.statuses_forbidden = False  # a token without `statuses: write`
        self.status_refusal: dict[str, Any] | None = None  # a 422 body for a status write
        self.declare_length = True  # False: no Content-Length, the answer ends with the connection
        self.release = threading.Event()
        self.full_json_requests = 0  # requests that asked for GitHub's rendering too
        self.points = 0  # GraphQL points spent, by GitHub's formula
        self.queries: list[str] = []  # the operation name of each GraphQL query
        self.sizes: list[int] = []  # each answer's bytes
        self.operations: list[str] = []  # the REST operation (its operationId) of each request
        self.headers: list[dict[str, str]] = []  # the headers of each request
        self.violations: list[str] = []  # what GitHub's description does not allow
        # GraphQL operation name -> what happens on GitHub as that query arrives (another
        # job writing, an author editing: the world moves while a sweep reads)
        self.on_query: dict[str, Any] = {}
        # "Operation.alias" -> the message of an error GitHub gives for that alias of a query
        # (its data null), as when a part of a query times out
        self.alias_errors: dict[str, str] = {}
        self.schema = github_graphql.Schema()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{PREFIX}"

    def repository(self, full_name: str) -> Repository:
        return self.repositories.setdefault(full_name.lower(), Repository(full_name))

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        if exc[0] is None:
            assert self.violations == [], "GitHub's description refuses:\n" + "\n".join(
                self.violations[:20])

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.do_GET()

            def do_PATCH(self) -> None:
                self.do_GET()

            def do_PUT(self) -> None:
                self.do_GET()

            def do_DELETE(self) -> None:
                self.do_GET()

            def do_GET(self) -> None:
                fake.requests.append(urllib.parse.urlsplit(self.path).path)
                fake.log.append(f"{self.command} {self.path.removeprefix(PREFIX)}")
                fake.authorizations.append(self.headers.get("Authorization", ""))
                length = int(self.headers.get("Content-Length") or 0)
                sent = json.loads(self.rfile.read(length)) if length else None
                status, payload, headers = fake.answer(self.path, len(fake.requests),
                                                       self.command, sent, dict(self.headers))
                if status == 0:
                    fake.release.wait(fake.hang_seconds)  # hang past the client's timeout
                    self.close_connection = True
                    return
                body = payload.encode() if isinstance(payload, str) else json.dumps(
                    payload).encode()
                if fake.answer_override is not None:
                    status, body, headers = fake.answer_override
                fake.sizes.append(len(body))
                self.send_response(status)
                if "Content-Type" not in headers:
                    self.send_header("Content-Type", "application/json; charset=utf-8")
                if fake.declare_length:
                    self.send_header("Content-Length", str(len(body)))
                else:
                    self.close_connection = True
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if not fake.drip_seconds:
                    try:
                        self.wfile.write(body)
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client stopped reading (an answer over its size limit)
                    return
                self.close_connection = True
                fake.dripped.append((0, len(body)))
                for index in range(len(body)):  # alive, never finished in time
                    if fake.release.wait(fake.drip_seconds):
                        return
                    try:
                        self.wfile.write(body[index:index + 1])
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):
                        return  # the client gave up
                    fake.dripped[-1] = (index + 1, len(body))

        return Handler

    # The answers.

    def answer(self, target: str, count: int, method: str = "GET", sent: Any = None,
               headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
        headers = headers or {}
        self.headers.append(headers)
        parts = urllib.parse.urlsplit(target)
        if parts.path == GRAPHQL and method == "POST":
            return self._graphql(count, sent, headers)
        path = parts.path.removeprefix(PREFIX)
        route = github_rest.route(method, urllib.parse.unquote(path))
        if route is None:
            self.violations.append(f"{method} {path}: no operation of GitHub's REST "
                                   f"description (GitHub answers 404)")
            return 404, NOT_FOUND, {}
        self.operations.append(route.operation_id)
        query = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
        self.violations += github_rest.check_request(route, query, headers, sent)
        accept = headers.get("Accept", "")
        self.full_json_requests += "full+json" in accept
        status, payload, answer_headers = self._answer(route, query, count, sent, accept)
        self._check_answer(route, status, payload, answer_headers)
        return status, payload, answer_headers

    def _check_answer(self, route: github_rest.Route, status: int, payload: Any,
                      headers: dict[str, str]) -> None:
        if status == 0 or self.answer_override is not None or isinstance(payload, str):
            return
        schema = github_rest.answer_schema(route, status)
        if schema is None and status >= 400:
            # An error GitHub gives on any route (a permission, a rate limit, a server error).
            schema = {"$ref": "#/components/schemas/basic-error"}
        if schema is None:
            if not github_rest.documents_status(route, status):
                self.violations.append(f"{route.operation_id}: answers {status}, which it does "
                                       f"not document")
            return
        self.violations += github_rest.check(schema, payload, f"{route.operation_id} "
                                                              f"answer {status}")

    def _faults(self, count: int) -> tuple[int, Any, dict[str, str]] | None:
        if self.hang_seconds:
            return 0, None, {}
        if count <= self.fail_first:
            if self.fail_status in (403, 429):
                return self._limited(Limit("secondary", self.fail_status, _retry_after(
                    self.fail_headers)), count)
            message = {401: "Bad credentials", 404: "Not Found"}.get(self.fail_status,
                                                                   "Server Error")
            return self.fail_status, {"message": message, "documentation_url":
                                      "https://docs.github.com/rest"}, dict(self.fail_headers)
        if self.echo_authorization:
            return 400, {"message": f"Bad request with Authorization: "
                                    f"{self.authorizations[-1]}",
                         "documentation_url": "https://docs.github.com/rest"}, {}
        if self.rate_limited or 0 < self.rate_limited_from <= count:
            return self._limited(Limit("primary"), count)
        for limit in self.limits:
            if limit.first <= count < limit.first + limit.count:
                return self._limited(limit, count)
        return None

    def _limited(self, limit: Limit, count: int) -> tuple[int, Any, dict[str, str]]:
        """A rate limit as GitHub's docs describe it ("Rate limits for the REST API")."""
        reset = str(int(time.time()) + 3600)
        headers = {"x-ratelimit-limit": "5000", "x-ratelimit-resource": "core",
                   "x-ratelimit-reset": reset,
                   "x-ratelimit-remaining": "0" if limit.kind == "primary" else "4990",
                   "x-ratelimit-used": "5000" if limit.kind == "primary" else "10"}
        if limit.retry_after is not None:
            headers["retry-after"] = str(limit.retry_after)
        message = PRIMARY_MESSAGE if limit.kind == "primary" else SECONDARY_MESSAGE
        docs = RATE_LIMIT_DOCS + ("" if limit.kind == "primary"
                                  else "#about-secondary-rate-limits")
        return limit.status, {"message": message, "documentation_url": docs}, headers

    def _answer(self, route: github_rest.Route, query: dict[str, list[str]], count: int,
                sent: Any, accept: str) -> tuple[int, Any, dict[str, str]]:
        fault = self._faults(count)
        if fault is not None:
            return fault
        where = route.path_parameters
        repository = self.repositories.get(f"{where['owner']}/{where['repo']}".lower())
        if repository is None:
            return 404, NOT_FOUND, {}
        operation = route.operation_id
        size, page = _paging(query)
        if operation == "pulls/get":
            pull = repository.pulls.get(int(where["pull_number"]))
            if pull is None:
                return 404, NOT_FOUND, {}
            return 200, self._pull(repository, pull, full=True, accept=accept), {}
        if operation == "pulls/list":
            state, head = query.get("state", ["open"])[0], query.get("head", [""])[0]
            matching = [pull for _, pull in sorted(repository.pulls.items())
                        if (state == "all" or pull["state"] == state)
                        and (not head or pull["head"]["label"] == head)]
            return 200, [self._pull(repository, pull, full=False, accept=accept)
                         for pull in matching[(page - 1) * size:page * size]], _link(
                len(matching), size, page)
        if operation == "repos/get-commit":
            sha = repository.resolve(where["ref"])
            if sha is None:
                return 422, {"message": f"No commit found for SHA: {where['ref']}",
                             "documentation_url": "https://docs.github.com/rest/commits/"
                                                  "commits#get-a-commit", "status": "422"}, {}
            if accept == "application/vnd.github.sha":
                return 200, sha, {"Content-Type": "application/vnd.github.sha; charset=utf-8"}
            return 200, self._commit(repository, sha, list_entry=False), {}
        if operation == "git/get-commit":
            sha = where["commit_sha"]
            if sha not in repository.commits and sha not in repository.parents:
                return 404, NOT_FOUND, {}
            commit = github_rest.example("git-commit-2")
            commit.update(sha=sha, parents=[{"sha": parent, "url": "https://api.github.com/"
                                             f"repos/{repository.full_name}/git/commits/{parent}",
                                             "html_url": f"https://github.com/"
                                             f"{repository.full_name}/commit/{parent}"}
                                            for parent in repository.parents.get(sha, [])])
            return 200, commit, {}
        if operation == "pulls/list-commits":
            shas = repository.pull_commits.get(int(where["pull_number"]))
            if shas is None:
                return 404, NOT_FOUND, {}
            return 200, [self._commit(repository, sha) for sha in
                         shas[(page - 1) * size:page * size]], _link(len(shas), size, page)
        if operation == "repos/list-commits":
            history = repository.history(query.get("sha", [""])[0])
            if history is None:
                return 404, NOT_FOUND, {}
            return 200, [self._commit(repository, sha, parents=parents, message=message)
                         for sha, parents, message in history[(page - 1) * size:page * size]
                         ], _link(len(history), size, page)
        if operation in ("issues/list-comments", "issues/create-comment",
                         "issues/update-comment"):
            return self._comments(repository, operation, where, sent, size, page)
        if operation == "repos/get-combined-status-for-ref":
            return 200, self._combined(repository, where["ref"], size, page), {}
        if operation == "repos/create-commit-status":
            if self.statuses_forbidden:
                return 403, {"message": "Resource not accessible by integration",
                             "documentation_url": "https://docs.github.com/rest/commits/"
                                                  "statuses#create-a-commit-status",
                             "status": "403"}, {}
            if self.status_refusal is not None:
                return 422, self.status_refusal, {}
            status = self._status(repository, {**sent, "id": 1 + sum(
                len(entries) for entries in repository.statuses.values())})
            repository.statuses.setdefault(where["sha"], []).insert(0, status)
            return 201, status, {}
        if operation == "actions/re-run-workflow":
            run = int(where["run_id"])
            if run in repository.refused_reruns:  # e.g. a run older than 30 days
                return 403, {"message": "Unable to re-run this workflow run because it was "
                                        "created over a month ago",
                             "documentation_url": "https://docs.github.com/rest/actions/"
                                                  "workflow-runs", "status": "403"}, {}
            repository.reruns.append(run)
            return 201, {}, {}
        if operation == "repos/get-content":
            ref = query.get("ref", [repository.default_branch])[0]
            text = repository.files_at.get(ref, repository.files).get(where["path"])
            if text is None:
                return 404, NOT_FOUND, {}
            return 200, text, {"Content-Type": "application/vnd.github.raw; charset=utf-8"}
        if operation == "pull-request-stacks/list":
            if repository.stacks is None:
                return 404, NOT_FOUND, {}
            stacks = [self._stack(repository, index, members)
                      for index, members in enumerate(repository.stacks, start=1)]
            return 200, stacks[(page - 1) * size:page * size], _link(len(stacks), size, page)
        raise AssertionError(f"the fake does not answer {operation} yet")

    def _pull(self, repository: Repository, pull: dict[str, Any], full: bool,
              accept: str) -> dict[str, Any]:
        """A pull request as GitHub answers it: the description's example (`pull-request`, or a
        list's `pull-request-simple-items` entry) with this one's fields."""
        shown = (github_rest.example("pull-request") if full
                 else github_rest.example("pull-request-simple-items")[0])
        number = pull["number"]
        url = f"https://api.github.com/repos/{repository.full_name}/pulls/{number}"
        shown.update({key: value for key, value in pull.items()
                      if key in shown and key not in ("head", "base")})
        if full:
            shown["merged"] = pull["merged"]
        shown.update(url=url, html_url=f"https://github.com/{repository.full_name}/pull/{number}",
                     id=number * 10, title=pull["title"], closed_at=pull["merged_at"],
                     requested_teams=[])  # the example's team predates its required `type`
        for side in ("head", "base"):
            _overlay(shown[side], pull[side])
            repo = pull[side]["repo"]
            if repo is None:  # a deleted fork
                shown[side]["repo"] = None
                continue
            owner, name = repo["full_name"].split("/")
            shown[side]["repo"].update(repo, name=name, html_url=f"https://github.com/"
                                                                 f"{repo['full_name']}")
            shown[side]["repo"]["owner"]["login"] = owner
            shown[side]["user"]["login"] = owner
        if "full+json" in accept and isinstance(pull.get("body"), str):
            # GitHub's rendering of the description, in the same answer (full+json).
            shown["body_html"] = pull.get("body_html_as_given") or body_html(
                pull["body"], repository.full_name)
        return shown

    def _commit(self, repository: Repository, sha: str, list_entry: bool = True,
                parents: list[str] | None = None, message: str = "a commit") -> dict[str, Any]:
        commit = (github_rest.example("commit-items")[0] if list_entry
                  else github_rest.example("commit"))
        if not list_entry:
            template = commit["files"][0]
            size = repository.diffs.get(sha, 0)
            count = min(300, max(1, size // 10_000))
            commit["files"] = [{**template, "sha": "1" * 40, "filename": f"file{index}.py",
                                "contents_url": f"https://api.github.com/repos/"
                                                f"{repository.full_name}/contents/x",
                                "patch": template["patch"] if not size else
                                "@@ -1 +1 @@\n" + "+" * (size // count)}
                               for index in range(count)]
        commit.update(sha=sha, url=f"https://api.github.com/repos/{repository.full_name}/"
                                   f"commits/{sha}",
                      html_url=f"https://github.com/{repository.full_name}/commit/{sha}",
                      parents=[{"sha": parent, "url": "https://api.github.com/repos/"
                                f"{repository.full_name}/commits/{parent}"}
                               for parent in (parents if parents is not None
                                              else repository.parents.get(sha, []))])
        commit["commit"]["message"] = message
        return commit

    def _status(self, repository: Repository, sent: dict[str, Any]) -> dict[str, Any]:
        status = github_rest.example("status")
        status.update(target_url=None, description=None)
        status.update(sent, creator={**status["creator"], "login": self.login},
                      url=f"https://api.github.com/repos/{repository.full_name}/statuses/x")
        return status

    def _combined(self, repository: Repository, ref: str, size: int,
                  page: int) -> dict[str, Any]:
        latest: dict[str, dict[str, Any]] = {}
        for status in repository.statuses.get(ref, []):
            latest.setdefault(status["context"], status)
        shown = github_rest.example("combined-commit-status")
        contexts = []
        for status in latest.values():  # a simple status: a status without its creator
            full = self._status(repository, status)
            contexts.append({key: value for key, value in full.items() if key != "creator"})
        states = {status["state"] for status in contexts}
        shown.update(sha=ref, total_count=len(contexts),
                     state="failure" if states & {"failure", "error"} else
                     "success" if states == {"success"} else "pending",
                     statuses=contexts[(page - 1) * size:page * size])
        return shown

    def _stack(self, repository: Repository, index: int, members: list[int]) -> dict[str, Any]:
        pulls = [repository.pulls[number] for number in members]
        return {"id": 9_000 + index, "number": index, "node_id": f"S_{index}",
                "url": f"https://api.github.com/repos/{repository.full_name}/stacks/{index}",
                "base": {"ref": pulls[0]["base"]["ref"]},
                "open": any(pull["state"] == "open" for pull in pulls),
                "created_at": "2026-11-01T10:00:00Z",
                "pull_requests": [{"number": pull["number"], "state": pull["state"],
                                   "draft": False, "merged_at": pull["merged_at"],
                                   "head": {"ref": pull["head"]["ref"],
                                            "sha": pull["head"]["sha"]}} for pull in pulls]}

    def _comments(self, repository: Repository, operation: str, where: dict[str, str],
                  sent: Any, size: int, page: int) -> tuple[int, Any, dict[str, str]]:
        if operation == "issues/update-comment":
            comment = repository.find_comment(int(where["comment_id"]))
            if comment is None:
                return 404, NOT_FOUND, {}
            if comment["user"]["login"] != self.login:
                return 403, {"message": "Resource not accessible by integration",
                             "documentation_url": "https://docs.github.com/rest", "status":
                             "403"}, {}
            comment["body"] = sent["body"]
            return 200, self._comment(repository, comment), {}
        number = int(where["issue_number"])
        if number not in repository.pulls:
            return 404, NOT_FOUND, {}
        thread = repository.comments.setdefault(number, [])
        if operation == "issues/create-comment":
            identifier = repository.add_comment(number, self.login, sent["body"])
            return 201, self._comment(repository, repository.find_comment(identifier)), {}
        return 200, [self._comment(repository, comment)
                     for comment in thread[(page - 1) * size:page * size]], _link(
            len(thread), size, page)

    def _comment(self, repository: Repository, comment: dict[str, Any] | None
                 ) -> dict[str, Any]:
        assert comment is not None
        shown = github_rest.example("issue-comment")
        shown.update(id=comment["id"], body=comment["body"], html_url=comment["html_url"],
                     created_at=comment["created_at"])
        shown["user"]["login"] = comment["user"]["login"]
        return shown

    # GraphQL.

    def _graphql(self, count: int, sent: Any, headers: dict[str, str]
                 ) -> tuple[int, Any, dict[str, str]]:
        fault = self._faults(count)
        if fault is not None:
            status, payload, fault_headers = fault
            if status == 403 and fault_headers.get("x-ratelimit-remaining") == "0":
                # GraphQL's primary limit: "the response status will still be 200".
                return 200, {"errors": [{"type": "RATE_LIMITED", "message": payload[
                    "message"]}]}, {**fault_headers, "x-ratelimit-resource": "graphql"}
            return fault
        if not isinstance(sent, dict) or not isinstance(sent.get("query"), str):
            self.violations.append("POST /graphql without a query")
            return 400, {"message": "Problems parsing JSON"}, {}
        variables = sent.get("variables") or {}
        try:
            checked = github_graphql.validate(self.schema, sent["query"], variables)
        except github_graphql.GraphQLError as error:
            self.violations.append(f"GraphQL query refused by GitHub's schema: {error}")
            return 200, {"errors": [{"message": str(error)}]}, {}
        self.queries.append(github_graphql.parse(sent["query"]).name or "")
        happening = self.on_query.pop(self.queries[-1], None)
        if happening is not None:
            happening()
        self.points += checked.points
        errors: list[dict[str, Any]] = []
        root = {"repository": lambda args: self._graph_repository(args, errors),
                "node": lambda args: self._graph_node(args["id"]),
                "rateLimit": {"cost": checked.points, "remaining": 5000 - self.points,
                              "limit": 5000, "resetAt": "2026-12-07T12:00:00Z"}}
        try:
            data = github_graphql.execute(self.schema, sent["query"], variables, root)
        except github_graphql.GraphQLError as error:
            self.violations.append(f"the fake's GraphQL answer breaks the schema: {error}")
            return 500, {"message": str(error)}, {}
        _null_missing(data, errors)
        name = github_graphql.parse(sent["query"]).name
        for key, message in self.alias_errors.items():
            operation, _, alias = key.partition(".")
            container = data.get("repository") if isinstance(data.get("repository"),
                                                             dict) else data
            if operation == name and alias in container:
                container[alias] = None
                errors.append({"type": "SERVICE_UNAVAILABLE", "message": message,
                               "path": [*(["repository"] if container is not data else []),
                                        alias], "locations": [{"line": 1, "column": 1}]})
        return 200, {"data": data, **({"errors": errors} if errors else {})}, {
            "x-ratelimit-resource": "graphql", "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": str(5000 - self.points),
            "x-ratelimit-used": str(self.points)}

    def _graph_repository(self, args: dict[str, Any], errors: list[dict[str, Any]]) -> Any:
        repository = self.repositories.get(f"{args['owner']}/{args['name']}".lower())
        if repository is None:
            return _Missing(f"Could not resolve to a Repository with the name "
                            f"'{args['owner']}/{args['name']}'.")
        return {
            "nameWithOwner": repository.full_name,
            "defaultBranchRef": {"name": repository.default_branch},
            "pullRequests": lambda inner: self._graph_pulls(repository, inner),
            "pullRequest": lambda inner: self._graph_pull(repository, inner["number"]),
        }

    def _graph_node(self, identifier: str) -> Any:
        for repository in self.repositories.values():
            if identifier.startswith("IC_") and identifier[3:].isdigit():
                comment = repository.find_comment(int(identifier[3:]))
                if comment is not None:
                    return self._graph_comment(comment)
        return _Missing(f"Could not resolve to a node with the global id of '{identifier}'")

    @staticmethod
    def _graph_comment(comment: dict[str, Any]) -> dict[str, Any]:
        """An issue comment as GraphQL gives it: a GitHub App's bot is `Bot` with its login
        without REST's `[bot]` suffix."""
        login = comment["user"]["login"] if comment["user"] else None
        author = None if login is None else (
            {"__typename": "Bot", "login": login.removesuffix("[bot]")}
            if login.endswith("[bot]") else {"__typename": "User", "login": login})
        return {"__typename": "IssueComment", "id": f"IC_{comment['id']}",
                "databaseId": comment["id"], "author": author, "body": comment["body"],
                "url": comment["html_url"]}

    def _graph_pulls(self, repository: Repository, args: dict[str, Any]) -> dict[str, Any]:
        states = {state.lower() for state in args.get("states") or ["OPEN", "CLOSED", "MERGED"]}
        matching = [pull for _, pull in sorted(repository.pulls.items(), key=lambda item: (
            item[1]["created_at"], item[0])) if ("merged" if pull["merged"] else pull["state"])
            in states]
        start = int(args["after"]) if args.get("after") else 0
        size = args.get("first") or 100
        nodes = [self._graph_pull(repository, pull["number"])
                 for pull in matching[start:start + size]]
        more = start + size < len(matching)
        return {"totalCount": len(matching), "nodes": nodes,
                "pageInfo": {"hasNextPage": more, "endCursor": str(start + size) if nodes
                             else None}}

    def _graph_pull(self, repository: Repository, number: int) -> Any:
        pull = repository.pulls.get(number)
        if pull is None:
            return _Missing(f"Could not resolve to a PullRequest with the number of {number}.")
        head = pull["head"]
        head_repository = head["repo"]["full_name"] if head["repo"] else None
        thread = repository.comments.get(number, [])

        def comments(args: dict[str, Any]) -> dict[str, Any]:
            start = int(args["after"]) if args.get("after") else 0
            page = thread[start:start + args["first"]]
            more = start + args["first"] < len(thread)
            return {"totalCount": len(thread), "pageInfo": {
                "hasNextPage": more, "endCursor": str(start + args["first"]) if page else None},
                "nodes": [self._graph_comment(comment) for comment in page]}

        def commits(args: dict[str, Any]) -> dict[str, Any]:
            latest: dict[str, dict[str, Any]] = {}
            for status in repository.statuses.get(head["sha"], []):
                latest.setdefault(status["context"], status)
            status = {"contexts": [{"context": entry["context"],
                                    "state": entry["state"].upper(),
                                    "description": entry.get("description"),
                                    "targetUrl": entry.get("target_url")}
                                   for entry in latest.values()]} if latest else None
            return {"nodes": [{"commit": {"oid": head["sha"], "status": status}}]}

        state = "MERGED" if pull["merged"] else pull["state"].upper()
        return {
            "number": number, "state": state, "merged": pull["merged"],
            "updatedAt": pull["updated_at"] if _iso(pull["updated_at"]) else
            "2000-01-01T00:00:00Z", "authorAssociation": pull["author_association"],
            "body": pull["body"] or "",
            "bodyHTML": pull.get("body_html_as_given") or body_html(
                pull["body"] or "", repository.full_name),
            "baseRefName": pull["base"]["ref"], "baseRefOid": pull["base"]["sha"],
            "headRefName": head["ref"], "headRefOid": head["sha"],
            "headRepository": {"nameWithOwner": head_repository} if head_repository else None,
            "baseRepository": {"nameWithOwner": repository.full_name,
                               "defaultBranchRef": {"name": repository.default_branch}},
            "commits": commits, "comments": comments,
        }


@dataclass(frozen=True)
class _Missing:
    """What GraphQL answers null for, with a NOT_FOUND error."""

    message: str


def _null_missing(value: Any, errors: list[dict[str, Any]], path: tuple[Any, ...] = ()) -> None:
    """Answered `_Missing` objects become null and an error with their path, as GitHub does."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(
        value, list) else ()
    for key, inner in list(items):
        if isinstance(inner, _Missing):
            value[key] = None
            errors.append({"type": "NOT_FOUND", "path": [*path, key],
                           "locations": [{"line": 1, "column": 1}], "message": inner.message})
        else:
            _null_missing(inner, errors, (*path, key))


def _iso(text: str) -> bool:
    try:
        time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")
    except (ValueError, TypeError):
        return False
    return True


def _overlay(target: dict[str, Any], source: dict[str, Any]) -> None:
    for key, value in source.items():
        if key == "repo":
            continue
        target[key] = copy.deepcopy(value)


def _paging(query: dict[str, list[str]]) -> tuple[int, int]:
    return int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])


def _link(total: int, size: int, page: int) -> dict[str, str]:
    """GitHub's Link header: a next page while there is one (only when paged)."""
    pages = max(1, -(-total // size))
    if pages == 1:
        return {}
    return {"Link": f'<https://api.github.com/x?page={pages}>; rel="last"' + (
        f', <https://api.github.com/x?page={page + 1}>; rel="next"' if page < pages else "")}


def _retry_after(headers: dict[str, str]) -> int | None:
    for name, value in headers.items():
        if name.lower() == "retry-after" and value.isdigit():
            return int(value)
    return None
