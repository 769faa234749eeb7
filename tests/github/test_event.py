"""What an event payload says: body, PR number, trust, dispatch inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from rocm_deps.errors import UsageError
from rocm_deps.github.event import EventContext, RunHead, event_context, read_json_object


@pytest.mark.parametrize(("name", "payload", "expected"), [
    ("pull_request", {"pull_request": {"number": 3, "body": "b", "author_association": "NONE"}},
     EventContext("pull_request", "b", 3, "NONE")),
    ("pull_request_target", {"pull_request": {"number": True, "body": 5}},
     EventContext("pull_request_target")),
    ("issue_comment", {"issue": {"number": 4, "body": "b", "pull_request": {}}},
     EventContext("issue_comment", "b", 4)),
    ("issue_comment", {"issue": {"number": 4, "body": "b"}}, EventContext("issue_comment")),
    ("workflow_run", {"workflow_run": {"pull_requests": [{"number": 9}, {"number": 10}],
                                       "event": "pull_request"}},
     EventContext("workflow_run", None, 9, run=RunHead("pull_request", None, None, None))),
    ("workflow_run", {"workflow_run": {"pull_requests": [], "event": "pull_request",
                                       "head_repository": {"full_name": "fork/miles"},
                                       "head_branch": "fix", "head_sha": "a" * 40}},
     EventContext("workflow_run", run=RunHead("pull_request", "fork/miles", "fix", "a" * 40))),
    ("pull_request_review", {"pull_request": {"number": 3, "body": "ci-sglang-pr: #1"}},
     EventContext("pull_request_review", "ci-sglang-pr: #1", 3)),
    ("pull_request_review_comment", {"pull_request": {"number": 3, "body": "b"}},
     EventContext("pull_request_review_comment", "b", 3)),
    ("workflow_dispatch", {"inputs": {"ci_sglang_pr": "#1", "flag": True, "none": None}},
     EventContext("workflow_dispatch", dispatch_inputs={"ci_sglang_pr": "#1", "flag": "true"})),
    ("push", {"pull_request": {"number": 1, "body": "ci-sglang-pr: #1"}}, EventContext("push")),
], ids=["pull-request", "wrong-types", "comment-on-pr", "comment-on-issue", "workflow-run",
        "workflow-run-fork", "review", "review-comment", "dispatch", "push-ignores-pr-fields"])
def test_event_context(name: str, payload: dict[str, object], expected: EventContext) -> None:
    assert event_context(name, payload) == expected


def test_repository_is_taken_from_every_event() -> None:
    context = event_context("push", {"repository": {"full_name": "radixark/miles"}})
    assert context.repository == "radixark/miles"


@pytest.mark.parametrize(("name", "privileged"), [
    ("pull_request_target", True), ("workflow_run", True), ("issue_comment", True),
    ("pull_request", False), ("workflow_dispatch", False)])
def test_privileged_events(name: str, privileged: bool) -> None:
    assert EventContext(name).privileged is privileged


@pytest.mark.parametrize(("text", "message"), [
    (None, "the event payload {path} does not exist"),
    ("[1]", "the event payload {path}: expected a JSON object"),
    ("{", "the event payload {path}: not valid JSON (Expecting property name"),
    ("[" * 100_000 + "]" * 100_000, "the event payload {path} is larger than 1 KiB"),
    ("{" + '"a":' * 0 + "}" + " " * 1100, "the event payload {path} is larger than 1 KiB"),
    ("\xff", "cannot read the event payload {path}: not UTF-8"),
], ids=["missing", "not-object", "not-json", "too-large", "just-over-the-limit", "not-utf8"])
def test_read_json_object_errors(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "event.json"
    if text is not None:
        path.write_bytes(text.encode("latin-1"))
    with pytest.raises(UsageError) as caught:
        read_json_object(path, "the event payload", 1024)
    assert message.format(path=path) in caught.value.message


def test_a_device_that_never_ends_is_read_only_up_to_the_limit() -> None:
    with pytest.raises(UsageError, match="the event payload /dev/zero is larger than 1 KiB"):
        read_json_object(Path("/dev/zero"), "the event payload", 1024)


def test_deep_nesting_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(UsageError, match="nested too deeply"):
        read_json_object(path, "the event payload", 1024 * 1024)


def test_a_lone_surrogate_in_the_payload_becomes_a_replacement_character() -> None:
    context = event_context("pull_request", {"pull_request": {
        "number": 1, "body": "ci-sglang-pr: #1 \ud800"}})
    assert context.body == "ci-sglang-pr: #1 \ufffd"
    assert context.body.encode("utf-8")  # writable to any file, the summary included
