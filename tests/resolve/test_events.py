"""Every event that belongs to a pull request reads that pull request's body, or fails: never
a baseline run that names nothing because the body was not where it was looked for."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import Cli, CliResult, EventWriter
from tests.fake_github import FakeGitHub

TOKEN = "ghs_eventsTEST0123456789"
HEAD = "5" * 40
SGLANG_HEAD = "2" * 40


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.repository("sgl-project/sglang").add_pull(30421, SGLANG_HEAD)
        # A fork's pull request: its head branch lives in mallory/miles.
        fake.repository("radixark/miles").add_pull(
            7, HEAD, body="ci-sglang-pr: #30421", head_repository="mallory/miles",
            head_branch="fix", author="COLLABORATOR")
        yield fake


def resolve(cli: Cli, write_event: EventWriter, github: FakeGitHub, event: str,
            payload: dict[str, Any], *, token: bool = True) -> CliResult:
    path = write_event(payload=payload, repository="radixark/miles")
    return cli("resolve", "--event-name", event, "--event-path", path, "--format", "json",
               *(("--github-token-env", "TEST_TOKEN") if token else ()),
               env={"GITHUB_API_URL": github.url, "TEST_TOKEN": TOKEN})


@pytest.mark.parametrize("event", ["pull_request_review", "pull_request_review_comment"])
def test_a_review_event_reads_the_body_its_payload_carries(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, event: str) -> None:
    payload = {"pull_request": {"number": 7, "body": "ci-sglang-pr: #30421"},
               "review": {"state": "approved"}}
    result = resolve(cli, write_event, github, event, payload, token=False)
    assert result.code == 0, result.stderr
    assert result.outputs["skip_dependency_install"] == "false"
    assert result.outputs["sglang_ref"] == "refs/pull/30421/head"


def fork_run(**changes: object) -> dict[str, Any]:
    run = {"event": "pull_request", "pull_requests": [], "head_sha": HEAD,
           "head_branch": "fix", "head_repository": {"full_name": "mallory/miles"},
           "name": "ROCm suite"}
    return {"workflow_run": {**run, **changes}}


def test_a_fork_pull_requests_workflow_run_finds_its_pull_request_by_head(
        cli: Cli, write_event: EventWriter, github: FakeGitHub) -> None:
    result = resolve(cli, write_event, github, "workflow_run", fork_run())
    assert result.code == 0, result.stderr
    assert result.outputs["sglang_sha"] == SGLANG_HEAD
    assert json.loads(result.stdout)["named_by"] == "body"
    # The configuration on the default branch (none here), then the run's pull request.
    assert github.log[:3] == [
        "GET /repos/radixark/miles/contents/.github/rocm-deps.toml",
        "GET /repos/radixark/miles/pulls?head=mallory%3Afix&per_page=100&state=open",
        "GET /repos/sgl-project/sglang/pulls/30421"]


@pytest.mark.parametrize(("run", "token", "message"), [
    ({}, False, "under workflow_run the payload carries no PR body"),
    ({"head_sha": "6" * 40}, True, "no open pull request of radixark/miles has the head "
                                   "mallory/miles:fix at 666666666666"),
    ({"head_repository": {"full_name": "eve/miles"}}, True, "no open pull request"),
    ({"head_branch": None}, True, "lists no pull request and no head"),
    ({"pull_requests": [{"number": 7}]}, False, "under workflow_run the payload carries no PR"),
], ids=["no-token", "moved-head", "other-fork", "no-head", "listed-but-no-token"])
def test_a_workflow_run_of_a_pull_request_whose_body_cannot_be_read_fails(
        cli: Cli, write_event: EventWriter, github: FakeGitHub, run: dict[str, object],
        token: bool, message: str) -> None:
    result = resolve(cli, write_event, github, "workflow_run", fork_run(**run), token=token)
    assert result.code == 1, result.stderr
    assert message in result.stderr
    assert set(result.outputs) <= {"report"}  # never skip_dependency_install=true


def test_a_workflow_run_of_a_push_names_nothing_and_passes(
        cli: Cli, write_event: EventWriter, github: FakeGitHub) -> None:
    result = resolve(cli, write_event, github, "workflow_run",
                     fork_run(event="push", head_repository={"full_name": "radixark/miles"},
                              head_branch="main"), token=False)
    assert result.code == 0, result.stderr
    assert result.outputs["skip_dependency_install"] == "true"
