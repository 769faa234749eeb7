"""What the triggering event says: the PR body, its number, its author's trust, dispatch inputs.

Pure: a parsed event payload in, an `EventContext` out.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rocm_deps.errors import UsageError
from rocm_deps.files import EVENT_LIMIT, parse_json, read_bounded, without_lone_surrogates

# Events that run with the base repository's secrets and write token while the PR body is
# written by whoever opened the PR: directives need an explicit trust decision there.
PRIVILEGED_EVENTS = frozenset({"pull_request_target", "workflow_run", "issue_comment"})
# Events whose payload carries the pull request (its body included).
PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target", "pull_request_review",
                                 "pull_request_review_comment"})


@dataclass(frozen=True)
class RunHead:
    """Under workflow_run: what the triggering run was about, from the trusted payload."""

    event: str  # the triggering run's event: a pull request's, or a push, a schedule, ...
    repository: str | None  # head_repository.full_name: a fork's for a fork's pull request
    branch: str | None
    sha: str | None

    @property
    def of_a_pull_request(self) -> bool:
        return self.event in PULL_REQUEST_EVENTS


@dataclass(frozen=True)
class EventContext:
    event_name: str
    body: str | None = None
    pr_number: int | None = None
    author_association: str | None = None
    dispatch_inputs: Mapping[str, str] = field(default_factory=dict)
    repository: str | None = None  # owner/repo of the repository the event belongs to
    run: RunHead | None = None  # workflow_run only

    @property
    def privileged(self) -> bool:
        return self.event_name in PRIVILEGED_EVENTS


def read_event(path: Path | None) -> Mapping[str, Any]:
    return {} if path is None else read_json_object(path, "the event payload", EVENT_LIMIT)


def read_json_object(path: Path, what: str, limit: int,
                     expected: str = "a JSON object") -> dict[str, Any]:
    """A JSON file that must hold an object; every failure is a usage error naming `what`."""
    document = parse_json(read_bounded(path, limit, what), f"{what} {path}")
    if not isinstance(document, dict):
        raise UsageError(f"{what} {path}: expected {expected}")
    return document


def event_context(event_name: str, payload: Mapping[str, Any]) -> EventContext:
    context = _context(event_name, payload)
    repository = _text(_mapping(payload.get("repository")).get("full_name"))
    return dataclasses.replace(context, repository=repository)


def _context(event_name: str, payload: Mapping[str, Any]) -> EventContext:
    if event_name in PULL_REQUEST_EVENTS:
        pull = _mapping(payload.get("pull_request"))
        return EventContext(event_name, _text(pull.get("body")), _number(pull.get("number")),
                            _text(pull.get("author_association")))
    if event_name == "issue_comment":
        issue = _mapping(payload.get("issue"))
        if "pull_request" not in issue:
            return EventContext(event_name)  # a comment on a plain issue names nothing
        return EventContext(event_name, _text(issue.get("body")), _number(issue.get("number")),
                            _text(issue.get("author_association")))
    if event_name == "workflow_run":
        run = _mapping(payload.get("workflow_run"))
        pulls = run.get("pull_requests") or []
        first = _mapping(pulls[0]) if isinstance(pulls, list) and pulls else {}
        head = RunHead(_text(run.get("event")) or "",
                       _text(_mapping(run.get("head_repository")).get("full_name")),
                       _text(run.get("head_branch")), _text(run.get("head_sha")))
        # The payload carries no body here: it is read through the API. A fork's pull
        # request is not listed (`pull_requests` is empty): found by `head`.
        return EventContext(event_name, None, _number(first.get("number")), run=head)
    if event_name == "workflow_dispatch":
        inputs = _mapping(payload.get("inputs"))
        return EventContext(event_name, dispatch_inputs={
            without_lone_surrogates(str(key)): without_lone_surrogates(
                value if isinstance(value, str) else json.dumps(value))
            for key, value in inputs.items() if value is not None
        })
    return EventContext(event_name)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: object) -> str | None:
    return without_lone_surrogates(value) if isinstance(value, str) else None


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
