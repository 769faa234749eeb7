"""A real HTTP server on 127.0.0.1 that answers the few GitHub REST endpoints rocm-deps uses.

Responses are shaped like GitHub's (fields trimmed to what matters); every request is
counted; faults can be injected: a status for the first k requests, a hang longer than the
client's timeout, a primary rate limit that resets an hour from now.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.github_html import body_html

PREFIX = "/api/v3"


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
    # "base...head" -> a total_commits larger than the commits answered (a long group)
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
                 mergeable: bool | None = True, merge_commit_sha: str | None = None) -> None:
        """A pull request whose commits are `earlier`, then its head (on `head_branch` of
        `head_repository`: a fork's, or by default this repository's `feature-N`)."""
        head_repository = head_repository or self.full_name
        head_branch = head_branch or f"feature-{number}"
        owner, base_owner = head_repository.split("/")[0], self.full_name.split("/")[0]
        self.pulls[number] = {
            "url": f"https://api.github.com/repos/{self.full_name}/pulls/{number}",
            "html_url": f"https://github.com/{self.full_name}/pull/{number}",
            "number": number, "state": state, "merged": merged,
            "merged_at": "2026-11-01T10:00:00Z" if merged else None,
            "title": f"Change {number}", "body": body, "user": {"login": "author"},
            "author_association": author,
            "head": {"label": f"{owner}:{head_branch}", "ref": head_branch,
                     "sha": head_sha, "repo": {"full_name": head_repository}},
            "base": {"label": f"{base_owner}:{base}", "ref": base, "sha": base_sha,
                     "repo": {"full_name": self.full_name, "default_branch": "main"}},
            "mergeable": mergeable, "merge_commit_sha": merge_commit_sha,
            "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
        }
        self.commits += [*earlier, head_sha]
        self.pull_commits[number] = [*earlier, head_sha]
        if merge_commit_sha is not None:  # GitHub's test merge: the base, then the head
            self.commits.append(merge_commit_sha)
            self.parents[merge_commit_sha] = [base_sha, head_sha]

    def resolve(self, ref: str) -> tuple[int, dict[str, Any]]:
        name = ref.removeprefix("heads/")
        if name in self.branches:
            return 200, self._commit(self.branches[name])
        if ref.startswith("tags/") and ref[5:] in self.tags:
            return 200, self._commit(self.tags[ref[5:]])
        matches = sorted({sha for sha in self.commits if sha.startswith(ref.lower())})
        if len(ref) >= 4 and len(matches) == 1:
            return 200, self._commit(matches[0])
        return 422, {"message": f"No commit found for SHA: {ref}",
                     "documentation_url": "https://docs.github.com/rest/commits/commits"}

    def compare(self, base: str, head: str,
                entries: list[str | tuple[str, list[str]]]) -> list[dict[str, Any]]:
        """The commits of base...head as GitHub lists them (oldest first, branch commits
        before the merge that brings them), each with its parents; the last is `head`."""
        commits: list[dict[str, Any]] = []
        first_parent, serial = base, 0

        def add(message: str, parents: list[str], sha: str | None = None) -> str:
            nonlocal serial
            serial += 1
            sha = sha or f"{serial:040x}"
            commits.append({**self._commit(sha), "commit": {"message": message},
                            "parents": [{"sha": parent} for parent in parents]})
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

    def _commit(self, sha: str) -> dict[str, Any]:
        return {"sha": sha, "url": f"https://api.github.com/repos/{self.full_name}/commits/{sha}",
                "html_url": f"https://github.com/{self.full_name}/commit/{sha}",
                "commit": {"message": "a commit", "tree": {"sha": "1" * 40}},
                "parents": [{"sha": parent} for parent in self.parents.get(sha, [])]}


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
        self.rate_limited = False
        self.rate_limited_from = 0  # from this request on (counted from 1), rate limited
        self.echo_authorization = False  # an error body that quotes the request's token
        self.drip_seconds = 0.0  # send the answer one byte at a time, this far apart
        self.dripped: list[tuple[int, int]] = []  # per dripped answer: (bytes sent, its size)
        self.answer_override: tuple[int, bytes, dict[str, str]] | None = None  # raw answer
        self.statuses_forbidden = False  # a token without `statuses: write`
        self.declare_length = True  # False: no Content-Length, the answer ends with the connection
        self.release = threading.Event()
        self.full_json_requests = 0  # requests that asked for GitHub's rendering too
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

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

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.do_GET()

            def do_PATCH(self) -> None:
                self.do_GET()

            def do_GET(self) -> None:
                fake.requests.append(urllib.parse.urlsplit(self.path).path)
                fake.log.append(f"{self.command} {self.path.removeprefix(PREFIX)}")
                fake.authorizations.append(self.headers.get("Authorization", ""))
                length = int(self.headers.get("Content-Length") or 0)
                sent = json.loads(self.rfile.read(length)) if length else None
                status, payload, headers = fake.answer(self.path, len(fake.requests),
                                                       self.command, sent,
                                                       self.headers.get("Accept", ""))
                if status == 0:
                    fake.release.wait(fake.hang_seconds)  # hang past the client's timeout
                    return
                body = json.dumps(payload).encode()
                if fake.answer_override is not None:
                    status, body, headers = fake.answer_override
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                if fake.declare_length:
                    self.send_header("Content-Length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if not fake.drip_seconds:
                    try:
                        self.wfile.write(body)
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client stopped reading (an answer over its size limit)
                    return
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

    def answer(self, path: str, count: int, method: str = "GET", sent: Any = None,
               accept: str = "") -> tuple[int, Any, dict[str, str]]:
        status, payload, headers = self._answer(path, count, method, sent)
        if status == 200 and "full+json" in accept and "/pulls" in path:
            # GitHub's rendering of each description, in the same answer (full+json).
            repository = "/".join(urllib.parse.urlsplit(path).path.removeprefix(
                PREFIX).strip("/").split("/")[1:3])
            name = self.repository(repository).full_name

            def rendered(pull: Any) -> Any:
                if not isinstance(pull, dict) or "body" not in pull:
                    return pull
                return {**pull, "body_html": pull.get("body_html_as_given")
                        or body_html(pull["body"], name)}

            payload = ([rendered(pull) for pull in payload] if isinstance(payload, list)
                       else rendered(payload))
        self.full_json_requests += "full+json" in accept
        return status, payload, headers

    def _answer(self, path: str, count: int, method: str = "GET",
                sent: Any = None) -> tuple[int, Any, dict[str, str]]:
        if self.hang_seconds:
            return 0, None, {}
        if count <= self.fail_first:
            message = ("You have exceeded a secondary rate limit." if self.fail_headers
                       else "Server Error")
            return self.fail_status, {"message": message}, dict(self.fail_headers)
        if self.echo_authorization:
            return 400, {"message": f"Bad request with Authorization: "
                                    f"{self.authorizations[-1]}"}, {}
        if self.rate_limited or 0 < self.rate_limited_from <= count:
            reset = str(int(time.time()) + 3600)
            return 403, {"message": "API rate limit exceeded for installation ID 1.",
                         "documentation_url": "https://docs.github.com/rest/rate-limit"}, {
                "X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0",
                "X-RateLimit-Reset": reset, "X-RateLimit-Resource": "core"}
        parts = urllib.parse.urlsplit(path).path.removeprefix(PREFIX).strip("/").split("/", 4)
        not_found = (404, {"message": "Not Found",
                           "documentation_url": "https://docs.github.com/rest"}, {})
        if len(parts) == 4 and parts[0] == "repos" and parts[3] == "pulls":  # the list
            listed = self.repositories.get(f"{parts[1]}/{parts[2]}".lower())
            if listed is None:
                return not_found
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
            state, head = query.get("state", ["open"])[0], query.get("head", [""])[0]
            size, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
            matching = [{key: value for key, value in pull.items() if key != "merged"}
                        for _, pull in sorted(listed.pulls.items())
                        if (state == "all" or pull["state"] == state)
                        and (not head or pull["head"]["label"] == head)]
            # GitHub's Link header: a next page while there is one (only when paged).
            pages = max(1, -(-len(matching) // size))
            link = f'<{path}>; rel="last"' + (
                f', <{path}>; rel="next"' if page < pages else "")
            return 200, matching[(page - 1) * size:page * size], (
                {"Link": link} if pages > 1 else {})
        if len(parts) < 5 or parts[0] != "repos":
            return not_found
        repository = self.repositories.get(f"{parts[1]}/{parts[2]}".lower())
        if repository is None:
            return not_found
        kind, rest = parts[3], urllib.parse.unquote(parts[4])
        if kind == "statuses" and method == "POST" and self.statuses_forbidden:
            return 403, {"message": "Resource not accessible by integration"}, {}
        if kind == "statuses" and method == "POST":
            status = {**sent, "id": len(fake_statuses := repository.statuses.setdefault(
                rest, [])) + 1, "creator": {"login": self.login}}
            fake_statuses.insert(0, status)
            return 201, status, {}
        if kind == "commits" and rest.endswith("/status"):
            sha = rest.removesuffix("/status")
            latest: dict[str, dict[str, Any]] = {}
            for status in repository.statuses.get(sha, []):
                latest.setdefault(status["context"], status)
            return 200, {"state": "pending", "sha": sha, "total_count": len(latest),
                         "statuses": list(latest.values())}, {}
        if kind == "actions" and method == "POST" and rest.startswith("runs/") and (
                rest.endswith("/rerun")):
            run = int(rest.split("/")[1])
            if run in repository.refused_reruns:  # e.g. a run older than 30 days
                return 403, {"message": "Unable to re-run this workflow run because it was "
                                        "created over a month ago"}, {}
            repository.reruns.append(run)
            return 201, {}, {}
        if kind == "issues":
            return self._comments(repository, method, path, rest, sent)
        if kind == "pulls" and rest.isdigit() and int(rest) in repository.pulls:
            return 200, repository.pulls[int(rest)], {}
        number, _, tail = rest.partition("/")
        if kind == "pulls" and tail == "commits" and number.isdigit() and (
                int(number) in repository.pull_commits):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
            size, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
            shas = repository.pull_commits[int(number)][(page - 1) * size:page * size]
            return 200, [repository._commit(sha) for sha in shas], {}
        if kind == "compare" and rest in repository.comparisons:
            base, head = rest.split("...")
            commits = repository.compare(base, head, repository.comparisons[rest])
            return 200, {"status": "ahead", "base_commit": repository._commit(base),
                         "merge_base_commit": repository._commit(base),
                         "ahead_by": len(commits), "behind_by": 0,
                         "total_commits": repository.totals.get(rest, len(commits)),
                         "url": f"https://api.github.com/repos/{repository.full_name}/compare/"
                                f"{rest}",
                         "commits": commits, "files": []}, {}
        if kind == "commits":
            status, payload = repository.resolve(rest)
            return status, payload, {}
        return not_found

    def _comments(self, repository: Repository, method: str, path: str, rest: str,
                  sent: Any) -> tuple[int, Any, dict[str, str]]:
        """GET/POST issues/{n}/comments (pages of `per_page`), PATCH issues/comments/{id}."""
        not_found = (404, {"message": "Not Found"}, {})
        number, _, tail = rest.partition("/")
        if method == "PATCH" and number == "comments" and tail.isdigit():
            comment = repository.find_comment(int(tail))
            if comment is None:
                return not_found
            if comment["user"]["login"] != self.login:
                return 403, {"message": "Resource not accessible by integration"}, {}
            comment["body"] = sent["body"]
            return 200, comment, {}
        if not number.isdigit() or tail != "comments":
            return not_found
        thread = repository.comments.setdefault(int(number), [])
        if method == "POST":
            identifier = repository.add_comment(int(number), self.login, sent["body"])
            return 201, repository.find_comment(identifier), {}
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)
        size, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
        return 200, thread[(page - 1) * size:page * size], {}

